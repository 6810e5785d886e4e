// BGE-M3 (BAAI/bge-m3): dense, sparse (lexical) and ColBERT (multi-vector) outputs of one XLM-RoBERTa forward,
// and the scores that combine them, as the model authors' FlagEmbedding v1.4.0 computes them
// (inference/embedder/encoder_only/m3.py, finetune/embedder/encoder_only/m3/modeling.py):
//   dense      normalize(h[0])                                          (the <s> row, L2, eps 1e-12)
//   sparse     w_l = relu(sparse_linear(h_l)) per token; lexical weights = { id → max w over the id's positions },
//              ids of the tokenizer's cls / eos / pad / unk tokens and weights ≤ 0 dropped, first-kept order
//   colbert    normalize(colbert_linear(h_l)) for l = 1 … n−1                 (<s> dropped, </s> kept)
//   scores     dense q·p; lexical matching Σ_{shared ids} w_q·w_p; ColBERT (1/(n_q−1)) Σ_i max_j q_i·p_j;
//              computeScore: per pair, with FlagEmbedding's weights [w_dense, w_sparse, w_colbert] (default 1, 1, 1)
//              'sparse+dense' and 'colbert+sparse+dense' weighted means; like compute_score its ColBERT max also
//              runs over the zero rows of a passage padded to the longest passage of its batch (batchSize pairs).
// The two heads are the repository's colbert_linear.pt ([H, H] + [H]) and sparse_linear.pt ([1, H] + [1]),
// torch.save state dicts read by the C++ restricted unpickler (readTensors). They are small (H·H), run once per
// token after the forward, in JavaScript (float64 sums).
import { describe, checkBool, checkObject } from '../validation.js';
import { loadModel } from '../model.js';
import { unwrap } from '../positions.js';
import { openSource } from '../sources.js';
import { readBytes } from '../tokenizer.js';
import { batchSizeOption, forwardBatched, lengthOptions } from './batching.js';
import { requireTokenizer, specialToken } from './common.js';
import { encodeInput } from './encoding.js';

export const BGE_M3_FILES = Object.freeze({ colbert: 'colbert_linear.pt', sparse: 'sparse_linear.pt' });
const TASK = 'bge-m3';
const EPS = 1e-12;
/** The compute_score weights of the model card's example (dense, sparse, colbert). */
export const BGE_M3_CARD_WEIGHTS = Object.freeze([0.4, 0.2, 0.4]);

/** A .pt head's tensors → { weight, bias, out } checked against [out, H] / [out]. */
function checkLinear(tensors, file, hidden, out) {
  const names = Object.keys(tensors);
  const w = tensors.weight, b = tensors.bias;
  if (!w || !b) throw new Error(`${file}: expected a torch Linear state dict with 'weight' and 'bias', got ${names.length ? names.map((n) => `'${n}'`).join(', ') : 'no tensors'}`);
  const want = `weight [${out}, ${hidden}] and bias [${out}]`;
  if (w.dims.length !== 2 || w.dims[1] !== hidden || w.dims[0] !== out || b.dims.length !== 1 || b.dims[0] !== out)
    throw new Error(`${file}: expected ${want} (hidden size ${hidden} from config.json), got weight [${w.dims.join(', ')}] and bias [${b.dims.join(', ')}]`);
  return { weight: w.data, bias: b.data, out };
}

/** y = W x + b for one row x (float64 sums). */
function linear(head, x, y) {
  const H = x.length;
  for (let o = 0; o < head.out; ++o) {
    let s = head.bias[o];
    const row = o * H;
    for (let k = 0; k < H; ++k) s += head.weight[row + k] * x[k];
    y[o] = s;
  }
}

function normalize(v) {
  let ss = 0;
  for (let i = 0; i < v.length; ++i) ss += v[i] * v[i];
  const inv = 1 / Math.max(Math.sqrt(ss), EPS);
  for (let i = 0; i < v.length; ++i) v[i] *= inv;
  return v;
}

const dot = (a, b, ao = 0, bo = 0, n = a.length) => {
  let s = 0;
  for (let i = 0; i < n; ++i) s += a[ao + i] * b[bo + i];
  return s;
};

/** compute_lexical_matching_score: Σ over ids in both of w1·w2 (Maps or plain objects id → weight). */
export function lexicalMatchingScore(a, b) {
  const entries = (x, where) => {
    if (x instanceof Map) return x;
    if (x !== null && typeof x === 'object') return new Map(Object.entries(x));
    throw new TypeError(`lexicalMatchingScore: ${where}: expected lexical weights (a Map or object token id → weight), got ${describe(x)}`);
  };
  const p = entries(b, 'second argument');
  let s = 0;
  for (const [id, w] of entries(a, 'first argument')) {
    const v = p.get(String(id));
    if (v !== undefined) s += w * v;
  }
  return s;
}

/** colbert_score: (1 / n_q) Σ_i max_j q_i·p_j over the rows of two { data, dims: [n, D] } tensors. */
export function colbertScore(q, p) {
  for (const [x, where] of [[q, 'query'], [p, 'passage']])
    if (!x || !(x.data instanceof Float32Array) || !Array.isArray(x.dims) || x.dims.length !== 2)
      throw new TypeError(`colbertScore: ${where}: expected ColBERT vectors { data: Float32Array, dims: [n, D] }, got ${describe(x)}`);
  const [nq, D] = q.dims, [np, Dp] = p.dims;
  if (D !== Dp) throw new RangeError(`colbertScore: the query's vectors have ${D} dimensions, the passage's ${Dp}`);
  if (nq === 0) return 0;
  let sum = 0;
  for (let i = 0; i < nq; ++i) {
    let best = -Infinity;
    for (let j = 0; j < np; ++j) best = Math.max(best, dot(q.data, p.data, i * D, j * D, D));
    sum += np ? best : 0;
  }
  return sum / nq;
}

/** { dense, sparse, colbert } scores → compute_score's dict with the two weighted means. */
function combine(dense, sparse, colbert, [w0, w1, w2]) {
  return {
    dense,
    sparse,
    colbert,
    'sparse+dense': dense.map((d, i) => (w1 * sparse[i] + w0 * d) / (w0 + w1)),
    'colbert+sparse+dense': dense.map((d, i) => (w0 * d + w1 * sparse[i] + w2 * colbert[i]) / (w0 + w1 + w2)),
  };
}

function checkWeights(w) {
  if (w === undefined || w === null) return [1, 1, 1];
  if (!Array.isArray(w) || w.length !== 3 || w.some((x) => typeof x !== 'number' || !Number.isFinite(x) || x < 0) || w[0] + w[1] + w[2] <= 0 || w[0] + w[1] <= 0)
    throw new TypeError(`${TASK}: computeScore: weights: expected [dense, sparse, colbert] weights (3 numbers ≥ 0, e.g. [0.4, 0.2, 0.4]), got ${describe(w)}`);
  return w;
}

/** The BGE-M3 object returned by loadBgeM3 (index.d.ts BgeM3). */
export class BgeM3 {
  #colbert;
  #sparse;
  #drop;

  constructor(model, colbert, sparse) {
    /** The XLM-RoBERTa Model underneath (loadModel). */
    this.model = model;
    this.#colbert = colbert;
    this.#sparse = sparse;
    const tok = model.tokenizer;
    // FlagEmbedding's unused_tokens: the ids of cls_token, eos_token, pad_token, unk_token
    const names = { cls_token: '<s>', eos_token: '</s>', pad_token: '<pad>', unk_token: '<unk>' };
    this.#drop = new Set(Object.entries(names).map(([k, d]) => tok.token_to_id(specialToken(tok, k) ?? d)).filter((id) => Number.isInteger(id)));
    /** ColBERT vector width (colbert_linear.pt's out features). */
    this.colbertDim = colbert.out;
  }

  /**
   * texts → { dense?, lexicalWeights?, colbertVecs?, tokens } from one forward per batch.
   * options: dense (default true), sparse (false), colbert (false), maxLength, batchSize, truncation.
   */
  async encode(texts, options = {}) {
    checkObject(options, `${TASK}: encode: options`);
    const { model } = this;
    requireTokenizer(model, TASK);
    const single = typeof texts === 'string';
    const list = single ? [texts] : texts;
    if (!Array.isArray(list) || list.length === 0 || list.some((t) => typeof t !== 'string'))
      throw new TypeError(`${TASK}: encode: expected a string or a non-empty array of strings, got ${describe(texts)}`);
    const want = {
      dense: checkBool(options.dense ?? true, `${TASK}: encode: dense`),
      sparse: checkBool(options.sparse ?? false, `${TASK}: encode: sparse`),
      colbert: checkBool(options.colbert ?? false, `${TASK}: encode: colbert`),
    };
    const { truncation, maxLength } = lengthOptions(model, options, TASK);
    const batchSize = batchSizeOption(options, TASK);
    const encodings = list.map((t) => encodeInput(model.tokenizer, t, null, { maxLength, truncation }));
    const H = model.info.hiddenSize;
    const dense = want.dense ? new Float32Array(list.length * H) : null;
    const lexical = want.sparse ? new Array(list.length) : null;
    const colbert = want.colbert ? new Array(list.length) : null;
    const x = new Float64Array(H), y = new Float64Array(Math.max(this.#colbert.out, 1));
    await forwardBatched(model, encodings, batchSize, {}, (r, row, i) => {
      const [, L] = r.lastHiddenState.dims;
      const h = r.lastHiddenState.data, ids = encodings[i].ids, n = ids.length;
      const at = (l) => (row * L + l) * H;
      if (dense) dense.set(normalize(Float64Array.from(h.subarray(at(0), at(0) + H))), i * H);
      if (lexical) {
        const weights = new Map();
        for (let l = 0; l < n; ++l) {
          for (let k = 0; k < H; ++k) x[k] = h[at(l) + k];
          linear(this.#sparse, x, y);
          const w = Math.fround(Math.max(0, y[0]));
          if (this.#drop.has(ids[l]) || !(w > 0)) continue;
          const key = String(ids[l]);
          if (!(weights.get(key) >= w)) weights.set(key, w);
        }
        lexical[i] = weights;
      }
      if (colbert) {
        const D = this.#colbert.out;
        const out = new Float32Array(Math.max(n - 1, 0) * D);
        for (let l = 1; l < n; ++l) {
          for (let k = 0; k < H; ++k) x[k] = h[at(l) + k];
          linear(this.#colbert, x, y);
          out.set(normalize(y.slice(0, D)), (l - 1) * D);
        }
        colbert[i] = { data: out, dims: [Math.max(n - 1, 0), D] };
      }
    });
    const result = { tokens: encodings.map((e) => e.tokens) };
    if (dense) result.dense = { data: dense, dims: [list.length, H] };
    if (lexical) result.lexicalWeights = lexical;
    if (colbert) result.colbertVecs = colbert;
    return result;
  }

  /** Lexical weights keyed by token text (FlagEmbedding's convert_id_to_token: decode([id]); a later id wins a clash). */
  tokens(lexicalWeights) {
    if (!(lexicalWeights instanceof Map)) throw new TypeError(`${TASK}: tokens: expected lexical weights (a Map from encode), got ${describe(lexicalWeights)}`);
    const out = new Map();
    for (const [id, w] of lexicalWeights) out.set(this.model.tokenizer.decode([Number(id)]), w);
    return out;
  }

  lexicalMatchingScore(a, b) {
    return lexicalMatchingScore(a, b);
  }

  colbertScore(q, p) {
    return colbertScore(q, p);
  }

  /**
   * compute_score: pairs [[query, passage], …] → { dense, sparse, colbert, 'sparse+dense', 'colbert+sparse+dense' }
   * (arrays, one score per pair). options: weights [dense, sparse, colbert] (default [1, 1, 1]; the model card
   * uses [0.4, 0.2, 0.4]), batchSize (pairs per batch, default 256 as compute_score), maxQueryLength, maxPassageLength.
   */
  async computeScore(pairs, options = {}) {
    checkObject(options, `${TASK}: computeScore: options`);
    if (!Array.isArray(pairs) || pairs.length === 0 || pairs.some((p) => !Array.isArray(p) || p.length !== 2 || typeof p[0] !== 'string' || typeof p[1] !== 'string'))
      throw new TypeError(`${TASK}: computeScore: expected a non-empty array of [query, passage] string pairs, got ${describe(pairs)}`);
    const weights = checkWeights(options.weights);
    const size = options.batchSize ?? 256;
    batchSizeOption({ batchSize: size }, `${TASK}: computeScore`);
    const all = { dense: true, sparse: true, colbert: true };
    const dense = [], sparse = [], colbert = [];
    for (let s = 0; s < pairs.length; s += size) {
      const chunk = pairs.slice(s, s + size);
      const q = await this.encode(chunk.map((p) => p[0]), { ...all, maxLength: options.maxQueryLength, batchSize: size });
      const p = await this.encode(chunk.map((x) => x[1]), { ...all, maxLength: options.maxPassageLength, batchSize: size });
      const H = this.model.info.hiddenSize;
      const longest = Math.max(...p.tokens.map((t) => t.length));
      chunk.forEach((_, i) => {
        dense.push(dot(q.dense.data, p.dense.data, i * H, i * H, H));
        sparse.push(lexicalMatchingScore(q.lexicalWeights[i], p.lexicalWeights[i]));
        // the padded batch: a passage shorter than the longest also offers its zero rows (score 0) to the max
        let c = colbertScore(q.colbertVecs[i], p.colbertVecs[i]);
        if (p.tokens[i].length < longest) c = colbertPadded(q.colbertVecs[i], p.colbertVecs[i]);
        colbert.push(c);
      });
    }
    return combine(dense, sparse, colbert, weights);
  }

  /** Frees the model. */
  dispose() {
    this.model.dispose();
  }
}

/** colbertScore with a zero row among the passage's (compute_score's padded batch). */
function colbertPadded(q, p) {
  const [nq, D] = q.dims, np = p.dims[0];
  if (nq === 0) return 0;
  let sum = 0;
  for (let i = 0; i < nq; ++i) {
    let best = 0;
    for (let j = 0; j < np; ++j) best = Math.max(best, dot(q.data, p.data, i * D, j * D, D));
    sum += best;
  }
  return sum / nq;
}

/** The two heads of a BGE-M3 folder, read through mod.readTensors (the C++ restricted unpickler). */
async function readBgeM3Heads(mod, src, hidden, onProgress) {
  const heads = {};
  for (const [key, file] of Object.entries(BGE_M3_FILES)) {
    const report = onProgress ? (loaded, total) => onProgress({ file, loaded, total }) : () => {};
    const bytes = await readBytes(src, file, report);
    if (!bytes) throw new Error(`${file}: not found at ${src.where(file)} (a BGE-M3 folder has colbert_linear.pt and sparse_linear.pt beside the XLM-RoBERTa weights)`);
    const buffer = unwrap(mod.allocateBytes(bytes.length));
    let tensors;
    try {
      mod.HEAPU8.set(bytes, buffer.address() >>> 0);
      tensors = unwrap(mod.readTensors(file, buffer));
    } finally {
      buffer.delete();
    }
    // runner.get_model: Linear(H, H) (colbert_dim −1 → H) and Linear(H, 1), loaded with load_state_dict (strict shapes)
    heads[key] = checkLinear(tensors, file, hidden, key === 'sparse' ? 1 : hidden);
  }
  return heads;
}

/** rp.loadBgeM3(source, options): the XLM-RoBERTa model (loadModel, same options) and its two heads. */
export async function loadBgeM3(mod, source, options = {}) {
  const model = await loadModel(mod, source, options);
  try {
    const type = model.info.modelType;
    if (type !== 'xlm-roberta' && type !== 'roberta' && type !== 'camembert')
      throw new Error(`loadBgeM3: config.json: model_type '${type}' is not BGE-M3's encoder (expected 'xlm-roberta')`);
    if (!model.tokenizer) throw new Error('loadBgeM3: the folder has no tokenizer (tokenizer.json or sentencepiece.bpe.model)');
    const src = await openSource(source, options);
    const heads = await readBgeM3Heads(mod, src, model.info.hiddenSize, options.onProgress);
    return new BgeM3(model, heads.colbert, heads.sparse);
  } catch (e) {
    model.dispose();
    throw e;
  }
}
