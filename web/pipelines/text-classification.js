// pipeline('text-classification' | 'sentiment-analysis', model): labels of a sequence-classification
// head for texts or { text, textPair } pairs (rerankers, NLI), as Hugging Face's
// TextClassificationPipeline (4.34): functionToApply 'sigmoid' | 'softmax' | 'none' (default:
// sigmoid for one label or problem_type multi_label_classification, softmax otherwise); without
// topK a text gives [best], a pair gives best and an array one best per input; with topK (a number,
// or null for all labels) every input gives its labels sorted by score.
import { checkKnownOptions, describe } from '../validation.js';
import { batchSizeOption, checkLength, forwardBatched, LENGTH_OPTIONS, lengthOptions, row2, sigmoid, softmax } from './batching.js';
import { checkTopK, requireTokenizer } from './common.js';
import { encodeInput } from './encoding.js';
import { isReranker, reranking } from './reranking.js';

export const FUNCTIONS = Object.freeze(['sigmoid', 'softmax', 'none']);

export function requireClassifier(model, task) {
  const head = model.head;
  const labels = head === undefined ? model.labels : head?.task === 'text-classification' ? head.labels : null;
  if (!labels)
    throw new Error(
      `${task}: the checkpoint has ${head ? `a ${head.task} head, not` : 'no'} sequence-classification head (…ForSequenceClassification classifier weights; supported for bert, deberta-v2, distilbert, roformer)`,
    );
  return labels;
}

/** The default of functionToApply for a model (HF TextClassificationPipeline.postprocess). */
export function defaultFunction(model, numLabels) {
  if (model.config?.problem_type === 'multi_label_classification' || numLabels === 1) return 'sigmoid';
  return 'softmax';
}

/** Scores of one row of logits. */
export function applyFunction(row, fn) {
  if (fn === 'sigmoid') return row.map(sigmoid);
  if (fn === 'softmax') return softmax(row);
  return row.slice();
}

/** One input → { text, textPair } (textPair null for a plain text). */
function item(x, where) {
  if (typeof x === 'string') return { text: x, textPair: null };
  if (x !== null && typeof x === 'object' && !Array.isArray(x) && typeof x.text === 'string') {
    const pair = x.textPair ?? x.text_pair ?? null;
    if (pair !== null && typeof pair !== 'string') throw new TypeError(`${where}: textPair: expected a string, got ${describe(pair)}`);
    return { text: x.text, textPair: pair };
  }
  throw new TypeError(`${where}: expected a string or { text, textPair }, got ${describe(x)}`);
}

export function textClassification(model, task = 'text-classification') {
  if (isReranker(model)) return reranking(model, task);
  return async function classify(input, options = {}) {
    checkKnownOptions(options, `${task}: options`, ['topK', 'functionToApply', ...LENGTH_OPTIONS]);
    requireTokenizer(model, task);
    const labels = requireClassifier(model, task);
    const legacy = !('topK' in options);
    const topK = legacy ? 1 : checkTopK(options.topK, task, { allowNull: true });
    let fn = options.functionToApply ?? null;
    if (fn !== null) {
      if (typeof fn !== 'string') throw new TypeError(`${task}: functionToApply: expected 'sigmoid', 'softmax' or 'none', got ${describe(fn)}`);
      if (!FUNCTIONS.includes(fn)) throw new Error(`${task}: functionToApply: expected 'sigmoid', 'softmax' or 'none', got ${describe(fn)}`);
    } else fn = defaultFunction(model, labels.length);
    const { truncation, maxLength, limit, limitSource } = lengthOptions(model, options, task);
    const batchSize = batchSizeOption(options, task);
    const many = Array.isArray(input);
    if (many && input.length === 0) throw new TypeError(`${task}: expected a string, { text, textPair } or a non-empty array of them, got Array(0)`);
    const items = (many ? input : [input]).map((x, i) => item(x, many ? `${task}: input[${i}]` : task));
    const encodings = items.map((it, i) => {
      const enc = encodeInput(model.tokenizer, it.text, it.textPair, { maxLength, truncation });
      if (!truncation) checkLength(enc, limit, task, many ? `input[${i}]` : 'the input', limitSource);
      return enc;
    });
    const results = new Array(items.length);
    await forwardBatched(model, encodings, batchSize, { logits: true }, (r, row, i) => {
      const scores = applyFunction(row2(r.logits, row), fn);
      const all = scores.map((score, k) => ({ label: labels[k], score }));
      if (legacy) {
        let best = 0;
        scores.forEach((s, k) => {
          if (s > scores[best]) best = k;
        });
        results[i] = all[best];
      } else results[i] = all.sort((a, b) => b.score - a.score).slice(0, topK ?? undefined);
    });
    if (!legacy) return many ? results : results[0];
    if (many) return results;
    return typeof input === 'string' ? [results[0]] : results[0];
  };
}
