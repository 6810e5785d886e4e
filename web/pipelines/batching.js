// Shared by every pipeline: the options truncation / maxLength / batchSize, the model's position
// limit, and running encoded inputs through model.forward in batches of similar length (sorted
// inside the call so that padding stays small; results go back in input order).
import { checkBool, describe } from '../validation.js';

// Rotary (and JinaBERT's ALiBi) families whose C++ model takes any length but whose checkpoints (and
// tokenizers' model_max_length) stop at the length they were trained for: ModernBERT's max_position_embeddings
// (8192), NomicBERT's n_positions (2048 / 8192), Qwen3's (32768), Gemma3's (EmbeddingGemma: 2048) and
// JinaBERT v2's (8192) max_position_embeddings, which model.info.maxPositionEmbeddings reports.
const TRAINED_LENGTH = new Set(['modernbert', 'nomic_bert', 'qwen3', 'gemma3_text', 'jina_bert_v2']);

/**
 * The longest sequence the model can take (model.info.maxSequence, the C++ model's own limit):
 * max_position_embeddings for absolute-position models (BERT — also its relative_key tables —,
 * DistilBERT, RoFormer's sinusoid table, MPT, DeBERTa-v2 with position_biased_input), and
 * max_position_embeddings − 2 for MPNet (its positions start at 2, after the padding index); the
 * trained length for ModernBERT, NomicBERT, Qwen3 and Gemma3 (rotary) and JinaBERT v2 (ALiBi); null for relative-position models
 * (DeBERTa-v3, T5, Transformer-XL, BLOOM, LLaMA), which have no built-in limit.
 */
export function positionLimit(model) {
  const limit = model.info?.maxSequence;
  if (Number.isInteger(limit) && limit > 0) return limit;
  const trained = model.info?.maxPositionEmbeddings;
  if (TRAINED_LENGTH.has(model.info?.modelType) && Number.isInteger(trained) && trained > 0) return trained;
  return null;
}

/** Where positionLimit comes from, for messages: '(max_position_embeddings)' and the like. */
export function limitSource(model) {
  const type = model.info?.modelType;
  if (type === 'mpnet') return '(max_position_embeddings − 2: MPNet positions start at 2)';
  if (type === 'roberta' || type === 'xlm-roberta' || type === 'camembert')
    return '(max_position_embeddings − pad_token_id − 1: positions start after the padding id)';
  if (type === 'nomic_bert') return '(n_positions)';
  return '(max_position_embeddings)';
}

/** The option names every pipeline call takes (lengthOptions, batchSizeOption). */
export const LENGTH_OPTIONS = Object.freeze(['truncation', 'maxLength', 'batchSize']);

export function checkPositiveInt(value, name) {
  if (typeof value !== 'number') throw new TypeError(`${name}: expected a positive integer, got ${describe(value)}`);
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name}: expected a positive integer, got ${describe(value)}`);
  return value;
}

/** options.truncation (default true) and options.maxLength (default: positionLimit(model), or none). */
export function lengthOptions(model, options, task) {
  const truncation = checkBool(options.truncation ?? true, `${task}: truncation`);
  let maxLength = options.maxLength ?? null;
  if (maxLength !== null) checkPositiveInt(maxLength, `${task}: maxLength`);
  const limit = positionLimit(model);
  if (maxLength !== null && limit !== null && maxLength > limit)
    throw new RangeError(`${task}: maxLength: ${maxLength} is more than the model's ${limit} positions ${limitSource(model)}`);
  if (maxLength === null) maxLength = limit;
  return { truncation, maxLength, limit, limitSource: limitSource(model) };
}

export const DEFAULT_BATCH_SIZE = 32;

export function batchSizeOption(options, task) {
  return options.batchSize === undefined || options.batchSize === null ? DEFAULT_BATCH_SIZE : checkPositiveInt(options.batchSize, `${task}: batchSize`);
}

/** RangeError when an encoded input is longer than the model can take (truncation off); source: limitSource(model). */
export function checkLength(enc, limit, task, what, source = '(max_position_embeddings)') {
  if (limit !== null && enc.ids.length > limit)
    throw new RangeError(
      `${task}: ${what} has ${enc.ids.length} tokens, more than the model's ${limit} positions ${source}; pass truncation: true (the default) or a shorter text`,
    );
}

// Families without token-type embeddings, whatever config.json says (relpos reads no type table for them).
const TYPELESS = new Set(['mpnet', 'modernbert']);

/**
 * True when forward() should get token type ids: the model has a token-type table and a row uses
 * type 1 (MPNet's RobertaProcessing and ModernBERT's template give the second text type 1; the
 * models have no table, so they get none).
 */
function wantsTypes(model, encodings) {
  if (TYPELESS.has(model.info?.modelType)) return false;
  const vocab = model.config?.type_vocab_size;
  return typeof vocab === 'number' && vocab > 1 && encodings.some((e) => e.typeIds && e.typeIds.some((t) => t !== 0));
}

/**
 * Runs encodings ({ ids, typeIds }) through model.forward, batchSize rows at a time, shortest first.
 * forwardOptions: an object, or a function (indices of the batch's encodings) → object.
 * collect(result, row, index) is called for every encoding with its row in that batch's result.
 * Async: a model on WebGPU (info.device) answers forward with a Promise.
 */
export async function forwardBatched(model, encodings, batchSize, forwardOptions, collect) {
  const order = encodings.map((_, i) => i).sort((x, y) => encodings[x].ids.length - encodings[y].ids.length || x - y);
  const types = wantsTypes(model, encodings);
  for (let s = 0; s < order.length; s += batchSize) {
    const idx = order.slice(s, s + batchSize);
    const inputs = { inputIds: idx.map((i) => encodings[i].ids) };
    if (types) inputs.tokenTypeIds = idx.map((i) => encodings[i].typeIds);
    const opts = typeof forwardOptions === 'function' ? forwardOptions(idx) : forwardOptions;
    const result = await model.forward(inputs, opts);
    idx.forEach((i, row) => collect(result, row, i));
  }
}

/** Row b of a [B, N] tensor as a plain array. */
export function row2(t, b) {
  const n = t.dims[1];
  return Array.from(t.data.subarray(b * n, (b + 1) * n));
}

/** Rows l = 0 … len−1 of batch b of a [B, L, N] tensor. */
export function rows3(t, b, len) {
  const [, L, N] = t.dims;
  const out = [];
  for (let l = 0; l < len; ++l) out.push(Array.from(t.data.subarray((b * L + l) * N, (b * L + l + 1) * N)));
  return out;
}

export function softmax(row) {
  let m = -Infinity;
  for (const x of row) if (x > m) m = x;
  const e = row.map((x) => Math.exp(x - m));
  let s = 0;
  for (const x of e) s += x;
  return e.map((x) => x / s);
}

export const sigmoid = (x) => 1 / (1 + Math.exp(-x));
