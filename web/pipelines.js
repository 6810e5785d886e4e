// Text in, numbers or labels out, over a Model loaded with tokenizer.json (web/model.js):
//
//   const embed = pipeline('feature-extraction', model);
//   const { data, dims } = await embed(['first text', 'second'], { pooling: 'mean', normalize: true });
//   const classify = pipeline('text-classification', model);          // needs a classification head
//   await classify('great movie', { topK: 2 });                        // [{ label, score }, …]
//   const zeroShot = pipeline('zero-shot-classification', model);      // an NLI head (entailment label)
//   await zeroShot('the match ended 2-1', ['sport', 'politics']);      // { sequence, labels, scores }
// Pipelines run synchronously inside; they return promises so that callers can swap in async back ends.
import { checkBool, checkObject, describe } from './validation.js';

export const PIPELINE_TASKS = Object.freeze(['feature-extraction', 'text-classification', 'zero-shot-classification']);

function texts(input, task) {
  const list = typeof input === 'string' ? [input] : input;
  if (!Array.isArray(list) || list.length === 0 || list.some((t) => typeof t !== 'string'))
    throw new TypeError(`${task}: expected a string or a non-empty array of strings, got ${describe(input)}`);
  return list;
}

function softmax(row) {
  const m = Math.max(...row);
  const e = row.map((x) => Math.exp(x - m));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / s);
}
const sigmoid = (x) => 1 / (1 + Math.exp(-x));

function requireTokenizer(model, task) {
  if (!model.tokenizer) throw new Error(`${task}: the model was loaded without tokenizer.json (or spm.model / spiece.model), so it cannot take text`);
}
function requireHead(model, task) {
  if (!model.labels)
    throw new Error(
      `${task}: the checkpoint has no sequence-classification head (classifier weights; supported for bert, deberta-v2, distilbert, roformer)`,
    );
}

/** Mean over the attention mask (or the first token, or none) of last_hidden_state; optional L2 norm. */
export function pool(lastHiddenState, attentionMask, { pooling = 'mean', normalize = false } = {}) {
  const [B, L, H] = lastHiddenState.dims;
  if (pooling === 'none') return lastHiddenState;
  const out = new Float32Array(B * H);
  for (let b = 0; b < B; ++b) {
    const o = out.subarray(b * H, (b + 1) * H);
    if (pooling === 'cls') {
      o.set(lastHiddenState.data.subarray(b * L * H, b * L * H + H));
    } else {
      const acc = new Float64Array(H);
      let n = 0;
      for (let l = 0; l < L; ++l) {
        if (!attentionMask.data[b * L + l]) continue;
        ++n;
        const row = lastHiddenState.data.subarray((b * L + l) * H, (b * L + l + 1) * H);
        for (let h = 0; h < H; ++h) acc[h] += row[h];
      }
      for (let h = 0; h < H; ++h) o[h] = n ? acc[h] / n : 0;
    }
    if (normalize) {
      let ss = 0;
      for (let h = 0; h < H; ++h) ss += o[h] * o[h];
      const inv = 1 / Math.max(Math.sqrt(ss), 1e-12);
      for (let h = 0; h < H; ++h) o[h] *= inv;
    }
  }
  return { data: out, dims: [B, H] };
}

function featureExtraction(model) {
  return async function extract(input, options = {}) {
    const task = 'feature-extraction';
    checkObject(options, `${task}: options`);
    const pooling = options.pooling ?? 'mean';
    if (!['mean', 'cls', 'none'].includes(pooling))
      throw new Error(`${task}: pooling: expected 'mean', 'cls' or 'none', got ${describe(pooling)}`);
    const normalize = checkBool(options.normalize ?? false, `${task}: normalize`);
    if (normalize && pooling === 'none') throw new Error(`${task}: normalize needs pooling 'mean' or 'cls'`);
    requireTokenizer(model, task);
    const r = model.forward({ text: texts(input, task) });
    return pool(r.lastHiddenState, r.attentionMask, { pooling, normalize });
  };
}

function scoresOf(model, logits, b) {
  const n = logits.dims[1];
  const row = Array.from(logits.data.subarray(b * n, (b + 1) * n));
  return model.config.problem_type === 'multi_label_classification' ? row.map(sigmoid) : softmax(row);
}

function textClassification(model) {
  return async function classify(input, options = {}) {
    const task = 'text-classification';
    checkObject(options, `${task}: options`);
    requireTokenizer(model, task);
    requireHead(model, task);
    const topK = options.topK === undefined ? 1 : options.topK;
    if (topK !== null && !(Number.isInteger(topK) && topK >= 1))
      throw new RangeError(`${task}: topK: expected a positive integer or null (all labels), got ${describe(topK)}`);
    const list = texts(input, task);
    const r = model.forward({ text: list }, { logits: true });
    const results = list.map((_, b) =>
      scoresOf(model, r.logits, b)
        .map((score, i) => ({ label: model.labels[i], score }))
        .sort((x, y) => y.score - x.score)
        .slice(0, topK ?? undefined),
    );
    return typeof input === 'string' ? results[0] : results;
  };
}

function labelIndex(model, prefix) {
  return model.labels.findIndex((l) => l.toLowerCase().startsWith(prefix));
}

function zeroShotClassification(model) {
  return async function zeroShot(input, candidateLabels, options = {}) {
    const task = 'zero-shot-classification';
    checkObject(options, `${task}: options`);
    requireTokenizer(model, task);
    requireHead(model, task);
    const labels = typeof candidateLabels === 'string' ? [candidateLabels] : candidateLabels;
    if (!Array.isArray(labels) || labels.length === 0 || labels.some((l) => typeof l !== 'string'))
      throw new TypeError(`${task}: candidateLabels: expected a string or a non-empty array of strings, got ${describe(candidateLabels)}`);
    const template = options.hypothesisTemplate ?? 'This example is {}.';
    if (typeof template !== 'string' || !template.includes('{}'))
      throw new Error(`${task}: hypothesisTemplate: expected a string containing '{}', got ${describe(template)}`);
    const multiLabel = checkBool(options.multiLabel ?? false, `${task}: multiLabel`);
    const entail = labelIndex(model, 'entail');
    const contra = labelIndex(model, 'contra');
    if (entail < 0 || (multiLabel && contra < 0))
      throw new Error(
        `${task}: the classification head's labels (${model.labels.join(', ')}) have no 'entailment'${multiLabel ? " and 'contradiction'" : ''} label: an NLI checkpoint is needed`,
      );
    const list = texts(input, task);
    const results = list.map((sequence) => {
      const hypotheses = labels.map((l) => template.replace('{}', l));
      const r = model.forward({ text: labels.map(() => sequence), textPair: hypotheses }, { logits: true });
      const n = r.logits.dims[1];
      const row = (i) => r.logits.data.subarray(i * n, (i + 1) * n);
      const scores = multiLabel
        ? labels.map((_, i) => softmax([row(i)[contra], row(i)[entail]])[1])
        : softmax(labels.map((_, i) => row(i)[entail]));
      const order = labels.map((_, i) => i).sort((a, b) => scores[b] - scores[a]);
      return { sequence, labels: order.map((i) => labels[i]), scores: order.map((i) => scores[i]) };
    });
    return typeof input === 'string' ? results[0] : results;
  };
}

/** pipeline(task, model) → async function; see index.d.ts. */
export function pipeline(task, model) {
  if (!PIPELINE_TASKS.includes(task))
    throw new Error(`pipeline: task: expected one of ${PIPELINE_TASKS.map((t) => `'${t}'`).join(', ')}, got ${describe(task)}`);
  if (!model || typeof model.forward !== 'function' || !('tokenizer' in model))
    throw new TypeError(`pipeline: model: expected a model from rp.loadModel(), got ${describe(model)}`);
  if (task === 'feature-extraction') return featureExtraction(model);
  requireHead(model, task);
  return task === 'text-classification' ? textClassification(model) : zeroShotClassification(model);
}
