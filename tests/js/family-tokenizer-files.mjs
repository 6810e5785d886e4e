// Hand-made tokenizer.json / tokenizer_config.json files in the formats of the #26 families, with
// small vocabularies, for tests/js/family-tokenizers.test.mjs:
//   - ModernBERT (answerdotai/ModernBERT-base): byte-level BPE as GPT-NeoX / OLMo ship it — NFC
//     normalizer, ByteLevel pre-tokenizer and decoder (GPT-2's bytes_to_unicode alphabet: 'Ġ' is the
//     space), [CLS] $A [SEP] / [CLS] $A [SEP] $B [SEP] TemplateProcessing, [MASK] with lstrip.
//   - MPNet (sentence-transformers/all-mpnet-base-v2, microsoft/mpnet-base): WordPiece with the
//     lowercasing BERT normalizer, RoBERTa specials <s> </s> <pad> <unk> <mask>, RobertaProcessing
//     (<s> A </s></s> B </s>), unknown token [UNK].
//   - NomicBERT (nomic-ai/nomic-embed-text-v1*): BERT's uncased WordPiece tokenizer.json.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { openSource } from '../../web/sources.js';
import { loadTokenizer } from '../../web/tokenizer.js';

const UTF8 = new TextEncoder();

/** GPT-2's bytes_to_unicode: printable bytes stand for themselves, the other 68 for U+0100 onwards in byte order. */
export const BYTE_CHAR = (() => {
  const out = [];
  let extra = 0;
  for (let b = 0; b < 256; ++b) {
    const printable = (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
    out.push(String.fromCharCode(printable ? b : 0x100 + extra++));
  }
  return out;
})();

/** Text as byte-level characters: spell(' café') = 'ĠcafÃ©'. */
export const spell = (text) => Array.from(UTF8.encode(text), (b) => BYTE_CHAR[b]).join('');

const added = (id, content, { lstrip = false, special = true } = {}) => ({ id, content, single_word: false, lstrip, rstrip: false, normalized: false, special });
const template = (cls, sep, ids) => ({
  type: 'TemplateProcessing',
  single: [{ SpecialToken: { id: cls, type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: sep, type_id: 0 } }],
  pair: [
    { SpecialToken: { id: cls, type_id: 0 } },
    { Sequence: { id: 'A', type_id: 0 } },
    { SpecialToken: { id: sep, type_id: 0 } },
    { Sequence: { id: 'B', type_id: 1 } },
    { SpecialToken: { id: sep, type_id: 1 } },
  ],
  special_tokens: Object.fromEntries([cls, sep].map((t) => [t, { id: t, ids: [ids[t]], tokens: [t] }])),
});

export const MODERNBERT_SPECIALS = ['[UNK]', '[CLS]', '[SEP]', '[PAD]', '[MASK]'];

/**
 * ModernBERT-style files. pieces: byte-level strings (spell(' world'), or parts of a character's
 * bytes) that get merges, left to right, in the order given. Ids: <|endoftext|> 0, <|padding|> 1,
 * the 256 bytes, the merged pieces, runs of 4, 3 and 2 spaces (added tokens, normalized, as in
 * GPT-NeoX's vocabulary), then [UNK] [CLS] [SEP] [PAD] [MASK].
 */
export function modernBertFiles(pieces) {
  const vocab = { '<|endoftext|>': 0, '<|padding|>': 1 };
  let id = 2;
  const add = (t) => {
    if (!(t in vocab)) vocab[t] = id++;
  };
  BYTE_CHAR.forEach(add);
  const merges = [];
  for (const piece of pieces) {
    const chars = [...piece];
    let cur = chars[0];
    for (const ch of chars.slice(1)) {
      if (!(cur + ch in vocab)) {
        merges.push(`${cur} ${ch}`);
        add(cur + ch);
      }
      cur += ch;
    }
  }
  // GPT-NeoX's vocabulary ends with runs of spaces, added tokens that match before pre-tokenization
  const spaces = [4, 3, 2].map((k) => ' '.repeat(k));
  spaces.forEach(add);
  for (const t of MODERNBERT_SPECIALS) add(t);
  const json = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [
      added(0, '<|endoftext|>'),
      added(1, '<|padding|>'),
      ...spaces.map((t) => ({ ...added(vocab[t], t, { special: false }), normalized: true })),
      ...MODERNBERT_SPECIALS.map((t) => added(vocab[t], t, { lstrip: t === '[MASK]' })),
    ],
    normalizer: { type: 'NFC' },
    pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true },
    post_processor: template('[CLS]', '[SEP]', vocab),
    decoder: { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true },
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: null,
      end_of_word_suffix: null,
      fuse_unk: false,
      byte_fallback: false,
      ignore_merges: false,
      vocab,
      merges,
    },
  };
  const config = {
    clean_up_tokenization_spaces: true,
    cls_token: '[CLS]',
    mask_token: '[MASK]',
    model_input_names: ['input_ids', 'attention_mask'],
    model_max_length: 8192,
    pad_token: '[PAD]',
    sep_token: '[SEP]',
    tokenizer_class: 'PreTrainedTokenizerFast',
    unk_token: '[UNK]',
  };
  return { 'tokenizer.json': json, 'tokenizer_config.json': config, vocabSize: id };
}

const BERT_NORMALIZER = { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true };
const wordPieceModel = (vocab) => ({ type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab });

/**
 * MPNet-style files over `words` (whole words and '##' pieces). Ids: <s> 0, <pad> 1, </s> 2,
 * <unk> 3, [PAD] [UNK] [CLS] [SEP] [MASK] (BERT's vocabulary follows), the words, <mask> last.
 */
export function mpnetFiles(words) {
  const vocab = {};
  let id = 0;
  for (const t of ['<s>', '<pad>', '</s>', '<unk>', '[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]', ...words, '<mask>']) if (!(t in vocab)) vocab[t] = id++;
  const json = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [added(0, '<s>'), added(1, '<pad>'), added(2, '</s>'), added(3, '<unk>'), added(vocab['[UNK]'], '[UNK]'), added(vocab['<mask>'], '<mask>', { lstrip: true })],
    normalizer: BERT_NORMALIZER,
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: { type: 'RobertaProcessing', sep: ['</s>', 2], cls: ['<s>', 0], trim_offsets: true, add_prefix_space: false },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: wordPieceModel(vocab),
  };
  const config = {
    bos_token: '<s>',
    cls_token: '<s>',
    do_lower_case: true,
    eos_token: '</s>',
    mask_token: '<mask>',
    model_max_length: 512,
    pad_token: '<pad>',
    sep_token: '</s>',
    strip_accents: null,
    tokenize_chinese_chars: true,
    tokenizer_class: 'MPNetTokenizer',
    unk_token: '[UNK]',
  };
  return { 'tokenizer.json': json, 'tokenizer_config.json': config, vocabSize: id };
}

/** NomicBERT-style (BERT uncased) files over `words`. Ids: [PAD] 0, [UNK] 1, [CLS] 2, [SEP] 3, [MASK] 4, the words. */
export function nomicFiles(words) {
  const vocab = {};
  let id = 0;
  for (const t of ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]', ...words]) if (!(t in vocab)) vocab[t] = id++;
  const json = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'].map((t) => added(vocab[t], t)),
    normalizer: BERT_NORMALIZER,
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: template('[CLS]', '[SEP]', vocab),
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: wordPieceModel(vocab),
  };
  const config = {
    cls_token: '[CLS]',
    do_lower_case: true,
    mask_token: '[MASK]',
    model_max_length: 8192,
    pad_token: '[PAD]',
    sep_token: '[SEP]',
    strip_accents: null,
    tokenize_chinese_chars: true,
    tokenizer_class: 'BertTokenizer',
    unk_token: '[UNK]',
  };
  return { 'tokenizer.json': json, 'tokenizer_config.json': config, vocabSize: id };
}

/** Writes the files (and any `extra` { name: object | string }) into a new temporary folder. */
export function writeFolder(files, extra = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'relpos-family-tok-'));
  for (const [name, value] of Object.entries({ ...files, ...extra })) {
    if (name === 'vocabSize') continue;
    writeFileSync(join(dir, name), typeof value === 'string' ? value : JSON.stringify(value));
  }
  return dir;
}

/** The @huggingface/tokenizers Tokenizer relpos builds from the files (web/tokenizer.js). */
export async function tokenizerOf(files, modelType) {
  const dir = writeFolder(files);
  try {
    const src = await openSource(dir, {});
    const readJson = async (f) => {
      const t = await src.text(f);
      return t === null ? null : { value: JSON.parse(t) };
    };
    return await loadTokenizer(src, { modelType, readJson });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
