// tokenizer.json of the demo's random-weight checkpoints: a BERT-style WordPiece tokenizer (Hugging
// Face tokenizers format, read by @huggingface/tokenizers) over a fixed English vocabulary.
//   ids 0–4: [PAD] [UNK] [CLS] [SEP] [MASK];  then punctuation, digits, letters a–z and their
//   continuation pieces ##a–##z (so every ASCII word tokenizes), common suffixes, then whole words.
// Text is lower-cased and split on whitespace and punctuation; every sequence is [CLS] … [SEP].
// Words with characters outside the vocabulary become [UNK].

const SPECIALS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
const PUNCT = [...'.,!?;:\'"()-'];
const DIGITS = [...'0123456789'];
const LETTERS = [...'abcdefghijklmnopqrstuvwxyz'];
const SUFFIXES = ['##s', '##es', '##ed', '##ing', '##er', '##ly', '##est', '##ion', '##al', '##ness'];
const WORDS = (
  'the a an and or but if then because so of to in on at by for with from as into over under after before ' +
  'is was are were be been being has have had do does did will would can could should may might must not no yes ' +
  'i you he she it we they me him her us them my your his its our their this that these those there here ' +
  'who what which when where why how all some any each every one two three first last next other same new old ' +
  'cat dog bird fish mat house home tree car road city day night time year word sentence text token model ' +
  'position attention head layer sat ran saw said went came made took gave found tired happy sad big small ' +
  'long short good bad quick slow brown fox jumps lazy think therefore am far near left right up down very ' +
  'relative absolute distance order language learn see look read write play run walk sit stand sleep eat'
).split(' ');

export function vocabulary() {
  const tokens = [...SPECIALS, ...PUNCT, ...DIGITS, ...DIGITS.map((d) => `##${d}`), ...LETTERS, ...LETTERS.map((c) => `##${c}`), ...SUFFIXES];
  for (const w of WORDS) if (!tokens.includes(w)) tokens.push(w);
  return Object.fromEntries(tokens.map((t, i) => [t, i]));
}

export const VOCAB_SIZE = Object.keys(vocabulary()).length;
export const PAD_ID = 0;

/**
 * A BERT-style WordPiece tokenizer.json over `vocab` ({ token: id }): lower-cased, split on whitespace
 * and punctuation, [CLS] a [SEP] / [CLS] a [SEP] b [SEP]; `specials` are its added tokens.
 */
export function wordPieceTokenizerJson(vocab, specials) {
  const special = (content) => ({ id: vocab[content], content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
  const tok = (id, type_id) => ({ SpecialToken: { id, type_id } });
  const seq = (id, type_id) => ({ Sequence: { id, type_id } });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: specials.map(special),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [tok('[CLS]', 0), seq('A', 0), tok('[SEP]', 0)],
      pair: [tok('[CLS]', 0), seq('A', 0), tok('[SEP]', 0), seq('B', 1), tok('[SEP]', 1)],
      special_tokens: Object.fromEntries(['[CLS]', '[SEP]'].map((t) => [t, { id: t, ids: [vocab[t]], tokens: [t] }])),
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab },
  };
}

/** The demo's tokenizer.json object. */
export const makeTokenizerJson = () => wordPieceTokenizerJson(vocabulary(), SPECIALS);
