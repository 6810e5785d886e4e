// A tokenizer.json for the tiny hf-llm-embedders fixtures, which carry token ids only: WordPiece over the words
// 't0' … 't{V−1}' (id = number, so 't90 t93' encodes to the fixture's ids 90, 93), unknown words → 't3', plus named
// words and added (special) tokens such as the reranker prompt's fixed parts. No post-processor: no special tokens are
// added around a text. Used by tests/js/llm-embedders.test.mjs and the docs' example twins (tests/js/docs/workspace.mjs).

/** The tokenizer.json text. words: { word: id } beside 't0' …; added: { content: id } matched before splitting. */
export function wordTokenizer(V, { words = {}, added = {} } = {}) {
  const vocab = {};
  for (let i = 0; i < V; ++i) vocab[`t${i}`] = i;
  Object.assign(vocab, words, added);
  return JSON.stringify({
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: Object.entries(added).map(([content, id]) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
    normalizer: null,
    pre_tokenizer: { type: 'WhitespaceSplit' },
    post_processor: null,
    decoder: null,
    model: { type: 'WordPiece', unk_token: 't3', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab },
  });
}

/** Ids as the text wordTokenizer encodes back to them. */
export const textOf = (ids) => ids.map((i) => `t${i}`).join(' ');
