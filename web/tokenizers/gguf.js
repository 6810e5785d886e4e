// The tokenizer a GGUF file carries (tokenizer.ggml.*), as an @huggingface/tokenizers Tokenizer: the metadata is turned
// into the tokenizer.json the model's own repository would have, so the existing tokenizers run it (no new tokenizer).
//   bert   WordPiece: llama.cpp's converter stores word-initial pieces as '▁word' and continuations as 'x' (from
//          '##x'); both are turned back. BertNormalizer (lowercase from tokenizer.ggml.normalizer.lowercase, default
//          true, as llama.cpp's WPM lowercases), BertPreTokenizer, [CLS] A [SEP] (+ B [SEP]) by bos / separator ids.
//   gpt2   byte-level BPE with tokenizer.ggml.merges; the pre-tokenizer named by tokenizer.ggml.pre (GGUF_PRE below:
//          llama.cpp's regex of that name); bos / eos around the text by add_bos_token / add_eos_token.
//   llama  SentencePiece (Gemma, LLaMA-style): pieces, scores and token types → web/sentencepiece.js's BPE model
//          (merges ranked by score, byte fallback when the vocabulary has <0xXX> pieces), a dummy '▁' prefix by
//          tokenizer.ggml.add_space_prefix (default true); bos / eos by the add flags.
// CONTROL tokens (token_type 3) are special added tokens, USER_DEFINED (4) plain added tokens. Anything else is an
// Error naming tokenizer.ggml.model / .pre and the supported values. No tokenizer.ggml.tokens → null (ids only).
import { PIECE_TYPE, sentencePieceTokenizerJson } from '../sentencepiece.js';
import { tokenizerModule } from '../tokenizer.js';

const CONTROL = 3, USER_DEFINED = 4, BYTE = 6;

// llama.cpp's pre-tokenizer regexes (src/llama-vocab.cpp) by tokenizer.ggml.pre, as tokenizers Split patterns.
const GPT2 = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";
const QWEN2 = "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
const LLAMA3 = "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
export const GGUF_PRE = Object.freeze({ default: GPT2, 'gpt-2': GPT2, 'modern-bert': GPT2, qwen2: QWEN2, 'llama-bpe': LLAMA3, llama3: LLAMA3 });
export const GGUF_TOKENIZER_MODELS = Object.freeze(['bert', 'gpt2', 'llama']);

const fail = (file, message) => new Error(`${file}: ${message}`);

function ids(m) {
  const get = (k) => (Number.isInteger(m[`tokenizer.ggml.${k}`]) ? m[`tokenizer.ggml.${k}`] : null);
  return { bos: get('bos_token_id'), eos: get('eos_token_id'), sep: get('seperator_token_id'), unk: get('unknown_token_id'), pad: get('padding_token_id') };
}

function addedTokens(tokens, types) {
  const out = [];
  tokens.forEach((content, id) => {
    const t = types ? types[id] : 1;
    if (t === CONTROL || t === USER_DEFINED)
      out.push({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: t === CONTROL });
  });
  return out;
}

/** TemplateProcessing around A (and B) with the given special ids before / after, type ids 0 then 1. */
function template(tokens, before, after, between = after) {
  const sp = (id, type) => ({ SpecialToken: { id: tokens[id], type_id: type } });
  const seq = (id, type) => ({ Sequence: { id, type_id: type } });
  const special_tokens = {};
  for (const id of [...before, ...after, ...between]) special_tokens[tokens[id]] = { id: tokens[id], ids: [id], tokens: [tokens[id]] };
  return {
    type: 'TemplateProcessing',
    single: [...before.map((i) => sp(i, 0)), seq('A', 0), ...after.map((i) => sp(i, 0))],
    pair: [...before.map((i) => sp(i, 0)), seq('A', 0), ...between.map((i) => sp(i, 0)), seq('B', 1), ...after.map((i) => sp(i, 1))],
    special_tokens,
  };
}

const flag = (m, key, fallback) => (typeof m[`tokenizer.ggml.${key}`] === 'boolean' ? m[`tokenizer.ggml.${key}`] : fallback);

function bertJson(m, tokens, types, file) {
  const { bos, eos, sep, unk } = ids(m);
  const cls = bos, sepId = sep ?? eos;
  if (unk === null || cls === null || sepId === null) throw fail(file, 'a bert vocabulary needs tokenizer.ggml.unknown_token_id, bos_token_id ([CLS]) and seperator_token_id / eos_token_id ([SEP])');
  const vocab = {};
  tokens.forEach((t, id) => {
    const piece = types?.[id] === CONTROL ? t : t.startsWith('\u2581') ? t.slice(1) : `##${t}`;
    if (!(piece in vocab)) vocab[piece] = id;
  });
  const before = flag(m, 'add_bos_token', true) ? [cls] : [];
  const after = flag(m, 'add_eos_token', true) || flag(m, 'add_sep_token', false) ? [sepId] : [];
  return {
    version: '1.0',
    added_tokens: addedTokens(tokens, types),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: flag(m, 'normalizer.lowercase', true) },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    model: { type: 'WordPiece', unk_token: tokens[unk], continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab },
    post_processor: template(tokens, before, after),
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
  };
}

function gpt2Json(m, tokens, types, file) {
  const pre = m['tokenizer.ggml.pre'] ?? 'default';
  const pattern = GGUF_PRE[pre];
  if (!pattern) throw fail(file, `tokenizer.ggml.pre '${pre}' is not supported by relpos (supported: ${Object.keys(GGUF_PRE).join(', ')})`);
  const merges = m['tokenizer.ggml.merges'];
  if (!Array.isArray(merges)) throw fail(file, 'a gpt2 vocabulary needs tokenizer.ggml.merges');
  const vocab = {};
  tokens.forEach((t, id) => {
    if (!(t in vocab)) vocab[t] = id;
  });
  const { bos, eos } = ids(m);
  const before = flag(m, 'add_bos_token', false) && bos !== null ? [bos] : [];
  const after = flag(m, 'add_eos_token', false) && eos !== null ? [eos] : [];
  return {
    version: '1.0',
    added_tokens: addedTokens(tokens, types),
    normalizer: null,
    pre_tokenizer: {
      type: 'Sequence',
      pretokenizers: [
        { type: 'Split', pattern: { Regex: pattern }, behavior: 'Isolated', invert: false },
        { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false },
      ],
    },
    model: { type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: null, end_of_word_suffix: null, fuse_unk: false, byte_fallback: false, ignore_merges: false, vocab, merges },
    post_processor: before.length || after.length ? template(tokens, before, after) : null,
    decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
  };
}

function spmJson(m, tokens, types, file) {
  const scores = m['tokenizer.ggml.scores'];
  if (!scores || scores.length !== tokens.length) throw fail(file, 'a llama (SentencePiece) vocabulary needs tokenizer.ggml.scores, one per token');
  const { bos, eos, unk } = ids(m);
  const pieces = tokens.map((piece, i) => ({ piece, score: Math.fround(scores[i]), type: types ? types[i] : PIECE_TYPE.NORMAL }));
  const unkId = unk ?? pieces.findIndex((p) => p.type === PIECE_TYPE.UNKNOWN);
  if (unkId < 0) throw fail(file, 'a llama (SentencePiece) vocabulary needs an unknown token (tokenizer.ggml.unknown_token_id or a token of type 2)');
  const spm = {
    pieces,
    modelType: 'BPE',
    unkId,
    trainer: { byteFallback: pieces.some((p) => p.type === BYTE) },
    normalizer: { name: 'identity', charsmap: new Uint8Array(0), addDummyPrefix: flag(m, 'add_space_prefix', true), removeExtraWhitespaces: false, escapeWhitespaces: true },
  };
  const special = pieces.flatMap((p, id) => (p.type === CONTROL ? [{ id, content: p.piece }] : []));
  const before = flag(m, 'add_bos_token', true) && bos !== null ? [bos] : [];
  const after = flag(m, 'add_eos_token', false) && eos !== null ? [eos] : [];
  const spTemplate = template(tokens, before, after);
  return sentencePieceTokenizerJson(spm, { name: file, specialTokens: special, template: { single: spTemplate.single, pair: spTemplate.pair } });
}

/** The Tokenizer of a GGUF file's metadata (see the top of this file), or null when it has no vocabulary. */
export async function ggufTokenizer(m, { file = 'model.gguf', tokenizers } = {}) {
  const tokens = m['tokenizer.ggml.tokens'];
  if (!Array.isArray(tokens)) return null;
  const model = m['tokenizer.ggml.model'];
  const types = m['tokenizer.ggml.token_type'] ? Array.from(m['tokenizer.ggml.token_type']) : null;
  let json;
  if (model === 'bert') json = bertJson(m, tokens, types, file);
  else if (model === 'gpt2') json = gpt2Json(m, tokens, types, file);
  else if (model === 'llama') json = spmJson(m, tokens, types, file);
  else throw fail(file, `tokenizer.ggml.model '${model}' is not supported by relpos (supported: ${GGUF_TOKENIZER_MODELS.join(', ')})`);
  const { Tokenizer } = await tokenizerModule(tokenizers, file);
  const { bos, eos, unk, pad } = ids(m);
  const config = {};
  for (const [key, id] of [['bos_token', bos], ['eos_token', eos], ['unk_token', unk], ['pad_token', pad]]) if (id !== null && tokens[id] !== undefined) config[key] = tokens[id];
  try {
    return new Tokenizer(json, config);
  } catch (e) {
    throw new Error(`${file}: could not build the tokenizer from tokenizer.ggml.*: ${e.message}`, { cause: e });
  }
}
