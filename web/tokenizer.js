// The tokenizer of a model folder: tokenizer.json when there is one, else a SentencePiece model
// (spm.model for DeBERTa-v2/v3, spiece.model for T5, sentencepiece.bpe.model for XLM-RoBERTa) converted by
// web/sentencepiece.js, with the
// special tokens of tokenizer_config.json / special_tokens_map.json laid out like the Hugging Face
// slow tokenizer of the model type. Either way the result is an @huggingface/tokenizers Tokenizer.
import { isMatchable, PIECE_TYPE, parseSentencePieceModel, sentencePieceTokenizerJson } from './sentencepiece.js';
import { describe } from './validation.js';

export const TOKENIZER_FILES = Object.freeze({
  json: 'tokenizer.json',
  config: 'tokenizer_config.json',
  specialTokensMap: 'special_tokens_map.json',
  sentencePiece: Object.freeze(['spm.model', 'spiece.model', 'sentencepiece.bpe.model']),
});

export async function tokenizerModule(override, file) {
  if (override) return override;
  try {
    return await import('@huggingface/tokenizers');
  } catch (e) {
    throw new Error(
      `${file}: the @huggingface/tokenizers package could not be imported (${e.message}); install it, ` +
        `or pass its module as loadModel(source, { tokenizers })`,
      { cause: e },
    );
  }
}

/** A whole (small) file as bytes, or null when absent (also sentence-transformers Dense weights). */
export async function readBytes(src, name, report) {
  const chunks = [];
  let used = 0;
  let total = null;
  const found = await src.bytes(name, {
    start(size) {
      total = size ?? null;
      report(0, total);
    },
    write(chunk) {
      chunks.push(chunk.slice());
      used += chunk.length;
      report(used, total);
    },
  });
  if (!found) return null;
  const out = new Uint8Array(used);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

// ---- special tokens of a SentencePiece folder ------------------------------------------------------

const SPECIAL_KEYS = ['unk_token', 'pad_token', 'cls_token', 'sep_token', 'mask_token', 'bos_token', 'eos_token'];
const special = (content, typeId) => ({ SpecialToken: { id: content, type_id: typeId } });
const sequence = (id, typeId) => ({ Sequence: { id, type_id: typeId } });

/**
 * XLMRobertaTokenizer's fairseq vocabulary over the SentencePiece model (pieces <unk>=0, <s>=1, </s>=2, …):
 * <s>=0, <pad>=1, </s>=2, <unk>=3, then piece k (k ≥ 3) at id k + 1 (fairseq_offset 1); <mask> follows the pieces.
 */
function fairseqPieces(m, file) {
  const want = ['<unk>', '<s>', '</s>'];
  if (m.pieces.length < 3 || want.some((p, i) => m.pieces[i].piece !== p))
    throw new Error(`${file}: expected the XLM-RoBERTa SentencePiece layout <unk>, <s>, </s> as pieces 0, 1, 2, got ${m.pieces.slice(0, 3).map((p) => JSON.stringify(p.piece)).join(', ')}`);
  const control = (piece) => ({ piece, score: 0, type: PIECE_TYPE.CONTROL });
  const pieces = [control('<s>'), control('<pad>'), control('</s>'), { piece: '<unk>', score: 0, type: PIECE_TYPE.UNKNOWN }, ...m.pieces.slice(3)];
  return { ...m, pieces, unkId: 3 };
}

/** The special-token layouts of the Hugging Face slow tokenizers (DebertaV2Tokenizer, T5Tokenizer, XLMRobertaTokenizer). */
export const SPECIAL_LAYOUTS = Object.freeze({
  'deberta-v2': {
    defaults: { unk_token: '[UNK]', pad_token: '[PAD]', cls_token: '[CLS]', sep_token: '[SEP]', mask_token: '[MASK]', bos_token: '[CLS]', eos_token: '[SEP]' },
    // [CLS] A [SEP] and [CLS] A [SEP] B [SEP], token types 0 then 1.
    template: (t) => ({
      single: [special(t.cls_token, 0), sequence('A', 0), special(t.sep_token, 0)],
      pair: [special(t.cls_token, 0), sequence('A', 0), special(t.sep_token, 0), sequence('B', 1), special(t.sep_token, 1)],
    }),
    lowercase: (cfg) => cfg.do_lower_case === true,
    extraIds: () => 0,
  },
  t5: {
    defaults: { unk_token: '<unk>', pad_token: '<pad>', eos_token: '</s>' },
    // A </s> and A </s> B </s>, token types all 0.
    template: (t) => ({
      single: [sequence('A', 0), special(t.eos_token, 0)],
      pair: [sequence('A', 0), special(t.eos_token, 0), sequence('B', 0), special(t.eos_token, 0)],
    }),
    lowercase: () => false,
    // T5Tokenizer appends <extra_id_0..n-1> after the pieces, <extra_id_0> last.
    extraIds: (cfg) => {
      if (cfg.extra_ids === undefined || cfg.extra_ids === null) return 100;
      if (!Number.isInteger(cfg.extra_ids) || cfg.extra_ids < 0 || cfg.extra_ids > 100000)
        throw new Error(`${TOKENIZER_FILES.config}: extra_ids: expected an integer in [0, 100000], got ${describe(cfg.extra_ids)}`);
      return cfg.extra_ids;
    },
  },
  'xlm-roberta': {
    defaults: { unk_token: '<unk>', pad_token: '<pad>', cls_token: '<s>', sep_token: '</s>', mask_token: '<mask>', bos_token: '<s>', eos_token: '</s>' },
    // <s> A </s> and <s> A </s></s> B </s>, token types all 0 (XLMRobertaTokenizer).
    template: (t) => ({
      single: [special(t.cls_token, 0), sequence('A', 0), special(t.sep_token, 0)],
      pair: [special(t.cls_token, 0), sequence('A', 0), special(t.sep_token, 0), special(t.sep_token, 0), sequence('B', 0), special(t.sep_token, 0)],
    }),
    lowercase: () => false,
    extraIds: () => 0,
    pieces: fairseqPieces,
    lstrip: (t) => [t.mask_token], // <mask> swallows the space before it (AddedToken(lstrip=True))
  },
});

const tokenContent = (v, where) => {
  if (typeof v === 'string') return v;
  if (v && typeof v === 'object' && typeof v.content === 'string') return v.content;
  throw new Error(`${where}: expected a string or { content: string }, got ${describe(v)}`);
};

/**
 * Special tokens [{ id, content }] and the template for a parsed SentencePiece model. Ids come from
 * the model's pieces; tokens the model lacks (T5's <extra_id_N>, DeBERTa-v3's [MASK]) are appended
 * after them in the slow tokenizer's order.
 */
export function sentencePieceSpecials(m, modelType, cfg, file) {
  if (modelType === null) return { tokens: [], template: null, lowercase: false }; // plain SentencePiece
  const layout = SPECIAL_LAYOUTS[modelType];
  if (!layout)
    throw new Error(
      `${file}: no special-token layout is known for model_type '${modelType}' (known: ${Object.keys(SPECIAL_LAYOUTS).join(', ')}); ` +
        `give the folder a tokenizer.json`,
    );
  if (cfg.split_by_punct === true) throw new Error(`${TOKENIZER_FILES.config}: split_by_punct is not supported for ${file}; give the folder a tokenizer.json`);
  const names = { ...layout.defaults };
  for (const key of SPECIAL_KEYS) if (cfg[key] !== undefined && cfg[key] !== null) names[key] = tokenContent(cfg[key], `${TOKENIZER_FILES.config}: ${key}`);
  const lstrip = new Set(layout.lstrip ? layout.lstrip(names) : []);
  const ids = new Map(m.pieces.map((p, i) => [p.piece, i]));
  const extra = layout.extraIds(cfg);
  const tokens = [];
  const add = (content, id) => {
    if (!tokens.some((t) => t.content === content)) tokens.push({ id, content, lstrip: lstrip.has(content) });
  };
  for (let n = 0; n < extra; ++n) add(`<extra_id_${n}>`, m.pieces.length + extra - 1 - n);
  let next = m.pieces.length + extra;
  const more = Array.isArray(cfg.additional_special_tokens) ? cfg.additional_special_tokens.map((v, i) => tokenContent(v, `${TOKENIZER_FILES.config}: additional_special_tokens[${i}]`)) : [];
  for (const content of [...SPECIAL_KEYS.filter((k) => names[k] !== undefined).map((k) => names[k]), ...more]) {
    if (tokens.some((t) => t.content === content)) continue;
    add(content, ids.has(content) ? ids.get(content) : next++);
  }
  return { tokens, template: layout.template(names), lowercase: layout.lowercase(cfg) };
}

/**
 * SentencePiece's best path (unigram_model.cc, EncodeOptimized) over a lattice of the tokenizers
 * library (`this`), in SentencePiece's order and precision: each piece, by start position, offers
 * (its score + the best score up to its start) to its end position, which keeps the first strictly
 * better offer and stores it as float32. Offers are float64 sums, except the unknown piece's (a
 * float32 sum). The library sums in float64 only, which resolves near-ties (e.g. '0'+'00' against
 * '00'+'0' after a long prefix) the other way.
 */
function bestPath(unkId) {
  return function bestPathOfLattice() {
    const best = Array.from({ length: this.len + 1 }, () => ({ score: 0, node: null }));
    for (let pos = 0; pos < this.len; ++pos) {
      const before = best[pos].score;
      for (const node of this.begin_nodes[pos]) {
        const target = best[pos + node.length];
        const offer = node.token_id === unkId ? Math.fround(node.score + before) : node.score + before;
        if (target.node === null || offer > target.score) {
          target.score = Math.fround(offer);
          target.node = node;
        }
      }
    }
    const path = [];
    for (let pos = this.len; pos > 0; pos = path[path.length - 1].pos) {
      if (!best[pos].node) return [];
      path.push(best[pos].node);
    }
    return path.reverse();
  };
}

/**
 * Where the tokenizers library's generic Unigram differs from SentencePiece's, the built model is
 * adjusted: only normal and user-defined pieces take part in the segmentation (control, byte and
 * unused pieces never match text); scores are float32 (the unknown piece's: min score − 10) and the
 * best path is SentencePiece's (bestPath); with byte_fallback an unknown piece becomes its UTF-8 bytes <0xXX> (the
 * library's Unigram has no byte fallback). BPE needs nothing: the library's BPE has both.
 */
function adaptUnigram(tokenizer, m) {
  const model = tokenizer.model;
  for (const p of m.pieces) {
    if (isMatchable(p.type)) continue;
    let node = model.trie.root; // unmark the piece's end in the library's character trie
    for (const ch of p.piece) node = node?.children.get(ch);
    if (node) node.is_leaf = false;
  }
  let minScore = 0;
  for (const p of m.pieces) if (p.type === PIECE_TYPE.NORMAL && p.score < minScore) minScore = p.score;
  model.unk_score = Math.fround(minScore - 10); // SentencePiece: min over normal pieces − 10, in float32
  model.scores[model.unk_token_id] = model.unk_score;
  const populate = model.populate_nodes.bind(model);
  const viterbi = bestPath(model.unk_token_id);
  model.populate_nodes = (lattice) => {
    populate(lattice);
    lattice.viterbi = viterbi;
  };
  if (!m.trainer.byteFallback) return;
  const encode = model.encode.bind(model);
  const bytes = new TextEncoder();
  const hex = (b) => `<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`;
  model.encode = (tokens) => encode(tokens).flatMap((t) => (model.tokens_to_ids.has(t) ? [t] : Array.from(bytes.encode(t), hex)));
}

/**
 * Builds an @huggingface/tokenizers Tokenizer from a SentencePiece model's bytes. modelType: a
 * config.json model_type with a layout in SPECIAL_LAYOUTS, or null for plain SentencePiece (no
 * special tokens: the ids SentencePieceProcessor.encode gives).
 */
export function sentencePieceTokenizer(Tokenizer, bytes, { file = 'spm.model', modelType, config = {} } = {}) {
  const parsed = parseSentencePieceModel(bytes, file);
  const m = SPECIAL_LAYOUTS[modelType]?.pieces ? SPECIAL_LAYOUTS[modelType].pieces(parsed, file) : parsed;
  const { tokens, template, lowercase } = sentencePieceSpecials(m, modelType, config, file);
  const json = sentencePieceTokenizerJson(m, { name: file, specialTokens: tokens, lowercase, template });
  const libConfig = {};
  for (const key of SPECIAL_KEYS) {
    const t = config[key] ?? SPECIAL_LAYOUTS[modelType]?.defaults[key];
    if (t !== undefined) libConfig[key] = tokenContent(t, key);
  }
  let tokenizer;
  try {
    tokenizer = new Tokenizer(json, libConfig);
  } catch (e) {
    throw new Error(`${file}: could not build the tokenizer: ${e.message}`, { cause: e });
  }
  if (m.modelType === 'UNIGRAM') adaptUnigram(tokenizer, m);
  return tokenizer;
}

/**
 * The tokenizer of a folder, or null when it has neither tokenizer.json nor a SentencePiece model.
 * readJson(name) → { value } | null reads an optional JSON file; onProgress as in loadModel.
 */
export async function loadTokenizer(src, { modelType, readJson, onProgress, tokenizers }) {
  const report = (file) => (onProgress ? (loaded, total) => onProgress({ file, loaded, total }) : () => {});
  const tok = await readJson(TOKENIZER_FILES.json);
  let spm = null;
  let spmFile = null;
  if (!tok) {
    for (const name of TOKENIZER_FILES.sentencePiece) {
      spm = await readBytes(src, name, report(name));
      if (spm) {
        spmFile = name;
        break;
      }
    }
    if (!spm) return null;
  }
  const tokConfig = await readJson(TOKENIZER_FILES.config);
  const { Tokenizer } = await tokenizerModule(tokenizers, spmFile ?? TOKENIZER_FILES.json);
  if (tok) {
    try {
      return new Tokenizer(tok.value, tokConfig ? tokConfig.value : {});
    } catch (e) {
      throw new Error(`tokenizer.json: could not build the tokenizer: ${e.message}`, { cause: e });
    }
  }
  const map = await readJson(TOKENIZER_FILES.specialTokensMap);
  const config = { ...(map ? map.value : {}), ...(tokConfig ? tokConfig.value : {}) };
  return sentencePieceTokenizer(Tokenizer, spm, { file: spmFile, modelType, config });
}
