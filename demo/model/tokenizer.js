// Toy tokenizer for the random-weight encoder: words and punctuation, each mapped to an id by a
// hash (no vocabulary file), wrapped in [CLS] … [SEP]. Real models bring their tokenizer.json.
import { hashString } from '../lib/rng.js';

export const CLS = 1, SEP = 2;

export function tokenize(text, vocabSize = 4096, maxTokens = 128) {
  const words = (text.match(/[\p{L}\p{N}]+|[^\s\p{L}\p{N}]/gu) ?? []).slice(0, maxTokens - 2);
  const tokens = ['[CLS]', ...words, '[SEP]'];
  const ids = [CLS, ...words.map((w) => 3 + (hashString(w.toLowerCase()) % (vocabSize - 3))), SEP];
  return { tokens, ids };
}
