// pipeline('feature-extraction', model): last hidden states pooled per text ('mean' over the
// attention mask, 'cls', 'last_token', or 'none'), through the recipe's Dense modules (EmbeddingGemma),
// optionally L2-normalised, optionally truncated to the first `dimensions` (Matryoshka) before the norm.
// Texts may get a prompt prepended.
//
// Defaults: a folder saved by sentence-transformers (model.sentenceTransformers, from modules.json,
// the Pooling config, a Normalize module, config_sentence_transformers.json and
// sentence_bert_config.json; web/sentence-transformers.js) sets pooling, normalize, the default
// prompt, whether the prompt's tokens are pooled, the truncation length, and lowercasing — the way
// SentenceTransformer.encode() embeds. Without those files: mean pooling, no norm, no prompt. The
// caller's options always win; pipe.defaults says what the defaults are and which file each came from.
import { checkBool, checkKnownOptions, describe } from '../validation.js';
import { batchSizeOption, checkLength, forwardBatched, LENGTH_OPTIONS, lengthOptions, positionLimit } from './batching.js';
import { requireTokenizer, textList } from './common.js';
import { encodeInput } from './encoding.js';
import { applyDense } from '../st-dense.js';

export const POOLINGS = Object.freeze(['mean', 'cls', 'last_token', 'none']);
const OPTIONS = ['pooling', 'normalize', 'prompt', 'promptName', 'includePrompt', 'dense', 'dimensions', ...LENGTH_OPTIONS];
const RELPOS = 'relpos';

function l2normalize(o) {
  let ss = 0;
  for (let h = 0; h < o.length; ++h) ss += o[h] * o[h];
  const inv = 1 / Math.max(Math.sqrt(ss), 1e-12);
  for (let h = 0; h < o.length; ++h) o[h] *= inv;
}

/**
 * Mean over the attention mask, the first token ('cls'), the last token the mask keeps
 * ('last_token'; zeros when it keeps none), or none, of last_hidden_state; optional L2 norm.
 */
export function pool(lastHiddenState, attentionMask, options = {}) {
  const { pooling = 'mean', normalize = false } = checkKnownOptions(options, 'pool: options', ['pooling', 'normalize']);
  const [B, L, H] = lastHiddenState.dims;
  if (pooling === 'none') return lastHiddenState;
  const out = new Float32Array(B * H);
  for (let b = 0; b < B; ++b) {
    const o = out.subarray(b * H, (b + 1) * H);
    if (pooling === 'cls') {
      o.set(lastHiddenState.data.subarray(b * L * H, b * L * H + H));
    } else if (pooling === 'last_token') {
      let l = L - 1;
      while (l >= 0 && !attentionMask.data[b * L + l]) --l;
      if (l >= 0) o.set(lastHiddenState.data.subarray((b * L + l) * H, (b * L + l + 1) * H));
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
    if (normalize) l2normalize(o);
  }
  return { data: out, dims: [B, H] };
}

/**
 * What the pipeline does when the caller gives no option, and where each default came from (a file
 * name, 'config.json' for the position limit, or 'relpos' for the built-in default).
 */
export function featureDefaults(model) {
  const st = model.sentenceTransformers ?? null;
  const limit = positionLimit(model);
  const maxLength = st?.maxSeqLength ? (limit === null ? st.maxSeqLength : Math.min(st.maxSeqLength, limit)) : limit;
  const hasConfig = Boolean(st?.files.includes('config_sentence_transformers.json'));
  const promptName = st?.defaultPromptName ?? null;
  return Object.freeze({
    pooling: st ? st.pooling : 'mean',
    normalize: st ? st.normalize : false,
    /** The recipe's Dense modules after pooling ([] when none; applied only with the recipe's pooling). */
    dense: st?.dense ?? Object.freeze([]),
    promptName,
    prompt: promptName === null ? null : st.prompts[promptName],
    prompts: st ? st.prompts : Object.freeze({}),
    includePrompt: st ? st.includePrompt : true,
    lowercase: st ? st.doLowerCase : false,
    maxLength,
    /** Why the files' recipe cannot be run (the caller must then choose pooling), or null. */
    unsupported: st ? st.unsupported : null,
    from: Object.freeze({
      pooling: st ? st.poolingFile ?? 'modules.json' : RELPOS,
      normalize: st ? 'modules.json' : RELPOS,
      promptName: hasConfig ? 'config_sentence_transformers.json' : RELPOS,
      includePrompt: st?.poolingFile ?? RELPOS,
      lowercase: st?.files.includes('sentence_bert_config.json') ? 'sentence_bert_config.json' : RELPOS,
      maxLength: st?.maxSeqLength ? 'sentence_bert_config.json' : limit !== null ? 'config.json' : RELPOS,
    }),
  });
}

/** Width of a pooled embedding: the last Dense module's out_features when the recipe's pooling runs, else the hidden size. */
function outputWidth(model, pooling, defaults, options) {
  const dense = options.dense !== false && pooling === defaults.pooling ? defaults.dense : [];
  return dense.length ? dense[dense.length - 1].outFeatures : model.info.hiddenSize;
}

const known = (prompts) => {
  const names = Object.keys(prompts);
  return names.length ? `the model's prompts are ${names.map((n) => `'${n}'`).join(', ')} (config_sentence_transformers.json)` : 'the model has no prompts (no config_sentence_transformers.json prompts)';
};

/** options.prompt (a literal, wins) or options.promptName, else the default prompt → text or null. */
function resolvePrompt(options, defaults, task) {
  if (options.prompt !== undefined && options.prompt !== null) {
    if (typeof options.prompt !== 'string') throw new TypeError(`${task}: prompt: expected a string (the text put before each input), got ${describe(options.prompt)}`);
    return options.prompt || null;
  }
  if (options.promptName === undefined) return defaults.prompt || null;
  if (options.promptName === null) return null;
  if (typeof options.promptName !== 'string') throw new TypeError(`${task}: promptName: expected the name of one of the model's prompts, got ${describe(options.promptName)}`);
  if (!Object.prototype.hasOwnProperty.call(defaults.prompts, options.promptName))
    throw new Error(`${task}: promptName: ${JSON.stringify(options.promptName)} is not a prompt of this model: ${known(defaults.prompts)}`);
  return defaults.prompts[options.promptName] || null;
}

export function featureExtraction(model, task = 'feature-extraction') {
  const defaults = featureDefaults(model);
  const sentenceTransformers = model.sentenceTransformers != null;
  async function extract(input, options = {}) {
    checkKnownOptions(options, `${task}: options`, OPTIONS);
    let pooling = options.pooling;
    if (pooling === undefined || pooling === null) {
      if (defaults.pooling === null)
        throw new Error(`${task}: ${defaults.unsupported}; pass pooling (${POOLINGS.map((p) => `'${p}'`).join(', ')}) to pool the transformer's output yourself`);
      pooling = defaults.pooling;
    }
    if (!POOLINGS.includes(pooling))
      throw new Error(`${task}: pooling: expected 'mean', 'cls', 'last_token' or 'none', got ${describe(pooling)}`);
    const normalize = checkBool(options.normalize ?? (pooling === 'none' ? false : defaults.normalize), `${task}: normalize`);
    if (normalize && pooling === 'none') throw new Error(`${task}: normalize needs pooling 'mean', 'cls' or 'last_token'`);
    const includePrompt = checkBool(options.includePrompt ?? defaults.includePrompt, `${task}: includePrompt`);
    let dimensions = options.dimensions ?? null;
    if (dimensions !== null) {
      if (pooling === 'none') throw new Error(`${task}: dimensions needs pooling 'mean', 'cls' or 'last_token' (it truncates the pooled vector)`);
      const H = outputWidth(model, pooling, defaults, options);
      if (typeof dimensions !== 'number') throw new TypeError(`${task}: dimensions: expected an integer in [1, ${H}] (the model's hidden size), got ${describe(dimensions)}`);
      if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > H)
        throw new RangeError(`${task}: dimensions: expected an integer in [1, ${H}] (the model's hidden size), got ${describe(dimensions)}`);
      if (dimensions === H) dimensions = null;
    }
    const prompt = resolvePrompt(options, defaults, task);
    // the recipe's Dense modules follow its own pooling (a caller's other pooling, or dense: false, gets the raw pooled vector)
    const dense = checkBool(options.dense ?? true, `${task}: dense`) && pooling === defaults.pooling ? defaults.dense : [];
    requireTokenizer(model, task);
    const { truncation, maxLength, limit, limitSource } = lengthOptions(model, { ...options, maxLength: options.maxLength ?? defaults.maxLength }, task);
    const batchSize = batchSizeOption(options, task);
    const { list, single } = textList(input, task);
    // as sentence-transformers' Transformer.tokenize: the text (with its prompt) stripped, then lowercased
    const prepare = (text) => {
      const t = sentenceTransformers ? text.trim() : text;
      return defaults.lowercase ? t.toLowerCase() : t;
    };
    const encode = (text) => encodeInput(model.tokenizer, prepare(text), null, { maxLength, truncation });
    const encodings = list.map((text, i) => {
      const enc = encode(prompt === null ? text : prompt + text);
      if (!truncation) checkLength(enc, limit, task, single ? 'the input' : `input[${i}]`, limitSource);
      return enc;
    });
    // Pooling module's include_prompt: false: the first (prompt tokens − 1) positions — [CLS] and the
    // prompt, without its closing special token — leave the mask (SentenceTransformer.encode's prompt_length).
    const excluded = prompt !== null && !includePrompt ? Math.max(0, encode(prompt).ids.length - 1) : 0;
    const pooled = new Array(list.length);
    // forward pools (on WebGPU: on the GPU, reading back [batch, hidden] alone) unless prompt tokens leave the mask
    const inForward = pooling !== 'none' && excluded === 0;
    const normalizeNow = normalize && dimensions === null && dense.length === 0;
    const forwardOptions = inForward ? { pooling, normalize: normalizeNow } : {};
    await forwardBatched(model, encodings, batchSize, forwardOptions, (r, row, i) => {
      if (inForward) {
        const H = r.pooled.dims[1];
        pooled[i] = finish({ data: r.pooled.data.slice(row * H, (row + 1) * H), dims: [1, H] });
        return;
      }
      const [, L, H] = r.lastHiddenState.dims;
      const one = { data: r.lastHiddenState.data.subarray(row * L * H, (row + 1) * L * H), dims: [1, L, H] };
      let maskData = r.attentionMask.data.subarray(row * L, (row + 1) * L);
      if (excluded > 0) {
        maskData = maskData.slice();
        maskData.fill(0, 0, Math.min(excluded, L));
      }
      const mask = { data: maskData, dims: [1, L] };
      if (pooling === 'none') {
        pooled[i] = { ...one, len: encodings[i].ids.length };
        return;
      }
      pooled[i] = finish(pool(one, mask, { pooling, normalize: normalizeNow }));
    });
    // the recipe's Dense modules (on the CPU, on [1, H]), then the norm where it follows them or a truncation
    function finish(p) {
      if (dense.length) {
        let x = p.data;
        for (const d of dense) x = applyDense(d, x);
        p.data = x;
        p.dims = [1, x.length];
        if (normalize && dimensions === null) l2normalize(p.data);
      }
      if (dimensions !== null) {
        // Matryoshka: the first `dimensions` values, then the norm (as the model cards do after truncate_dim)
        p.data = p.data.slice(0, dimensions);
        p.dims = [1, dimensions];
        if (normalize) l2normalize(p.data);
      }
      return p;
    }
    if (pooling === 'none') {
      // [batch, seq, hidden] right-padded to the longest input (values at padding unspecified: zeros)
      const H = pooled[0].dims[2];
      const L = Math.max(...pooled.map((p) => p.len));
      const data = new Float32Array(list.length * L * H);
      pooled.forEach((p, b) => data.set(p.data.subarray(0, p.len * H), b * L * H));
      return { data, dims: [list.length, L, H] };
    }
    const H = pooled[0].dims[1];
    const data = new Float32Array(list.length * H);
    pooled.forEach((p, b) => data.set(p.data, b * H));
    return { data, dims: [list.length, H] };
  }
  /** The defaults of this model and where each came from (featureDefaults). */
  Object.defineProperty(extract, 'defaults', { value: defaults, enumerable: true });
  return extract;
}
