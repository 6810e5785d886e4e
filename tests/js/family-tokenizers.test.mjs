// The task pipelines on the tokenizers of the #26 families (MPNet, ModernBERT, NomicBERT), with
// hand-made tokenizer.json files in each family's format (tests/js/family-tokenizer-files.mjs):
//   - ModernBERT's byte-level BPE: character offsets of byte tokens ('Ġ' spaces, accents / emoji /
//     CJK split over several byte tokens, NFC, repeated and exotic whitespace), checked against spans
//     derived independently from the UTF-8 bytes of the text, and word ids against the GPT-2
//     pre-tokenizer pieces (what Hugging Face's fast tokenizers report);
//   - pair layouts (<s> A </s></s> B </s> for MPNet, [CLS] A [SEP] B [SEP] for ModernBERT and
//     NomicBERT), token types reaching forward() only for NomicBERT, truncation limits (MPNet
//     max_position_embeddings − 2, ModernBERT / NomicBERT their trained length);
//   - NER grouping, QA spans and fill-mask strings on byte-level tokens, with stand-in models whose
//     logits are chosen per token, and end to end on a real BERT checkpoint of the task fixtures
//     (../shared/fixtures/hf-tasks) with the byte-level tokenizer swapped in.
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';

import { init, pipeline } from '../../web/index.js';
import { positionLimit } from '../../web/pipelines/batching.js';
import { encodeInput, encodeSegment, tokenizerKind } from '../../web/pipelines/encoding.js';
import { tokensToString } from '../../web/pipelines/token-classification.js';
import { BYTE_CHAR, modernBertFiles, mpnetFiles, nomicFiles, spell, tokenizerOf, writeFolder } from './family-tokenizer-files.mjs';
import { haveTaskFixtures, TASK_FIXTURES } from './task-fixtures.mjs';

const UTF8 = new TextEncoder();
const LABELS = ['O', 'B-PER', 'I-PER', 'B-LOC', 'I-LOC'];

// ModernBERT-style: merges for a few words; everything else stays bytes ('ë' = 'Ã' + '«', '😀' = four tokens).
const MB_PIECES = [
  'Hello', ' world', ' café', ' Paris', ' visited', '東', ' Ångström', "'s", ' the', ' capital', ' of', ' France', ' is', ' Zoë', ' lives', ' in', ' Tokyo',
].map(spell);
const mbFiles = modernBertFiles(MB_PIECES);
const modernbert = await tokenizerOf(mbFiles, 'modernbert');
const MP_WORDS = ['hello', 'world', 'paris', 'zoe', 'cafe', 'the', 'is', 'capital', 'of', 'france', 'big', '##ger', ',', '.', '!', '?'];
const mpnet = await tokenizerOf(mpnetFiles(MP_WORDS), 'mpnet');
const nomic = await tokenizerOf(nomicFiles(MP_WORDS), 'nomic_bert');

const spans = (tok, text) => {
  const s = encodeSegment(tok, text);
  return s.tokens.map((t, i) => [t, text.slice(...s.offsets[i])]);
};

// ---- an independent oracle for byte-level offsets and words ----------------------------------------

const CHAR_OF_BYTE = new Map(BYTE_CHAR.map((c, b) => [c, b]));
const GPT2_PIECES = /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;
const SPACE_RUN = /^ {2,4}$/u;

/**
 * Offsets and word ids of byte-level tokens of an NFC text (added tokens: runs of spaces only), derived from the
 * text's own UTF-8 bytes: the tokens' bytes must spell the text; a token covers the characters (with
 * the combining marks after them: '❤' + U+FE0F) of its non-whitespace bytes (empty at the next
 * non-whitespace character when it has none); words are the GPT-2 pre-tokenizer pieces.
 */
function byteOracle(text, tokens) {
  const charStart = [];
  const charEnd = [];
  const space = [];
  for (const m of text.matchAll(/\P{M}\p{M}*|\p{M}+/gsu)) {
    const n = UTF8.encode(m[0]).length;
    for (let k = 0; k < n; ++k) {
      charStart.push(m.index);
      charEnd.push(m.index + m[0].length);
      space.push(/\s/u.test(m[0]));
    }
  }
  // the runs of spaces are added tokens, spelled as they are; the text between them is pre-tokenized apart
  const bytes = tokens.map((t) => (SPACE_RUN.test(t) ? Array.from(UTF8.encode(t)) : [...t].map((c) => CHAR_OF_BYTE.get(c))));
  assert.deepEqual(bytes.flat(), Array.from(UTF8.encode(text)), `the tokens spell the text ${JSON.stringify(text)}`);
  const starts = new Set();
  let b = 0;
  for (const section of text.split(/( {2,4})/u)) {
    for (const m of SPACE_RUN.test(section) ? [[section]] : section.matchAll(GPT2_PIECES)) {
      starts.add(b);
      b += UTF8.encode(m[0]).length;
    }
  }
  const offsets = [];
  const words = [];
  let word = -1;
  b = 0;
  for (const tb of bytes) {
    if (starts.has(b)) ++word;
    words.push(word);
    const solid = [];
    for (let k = b; k < b + tb.length; ++k) if (!space[k]) solid.push(k);
    if (solid.length) offsets.push([charStart[solid[0]], charEnd[solid.at(-1)]]);
    else {
      let k = b + tb.length;
      while (k < space.length && space[k]) ++k;
      const x = k < space.length ? charStart[k] : text.length;
      offsets.push([x, x]);
    }
    b += tb.length;
  }
  return { offsets, words };
}

const TRICKY = [
  'Hello world',
  '  Hello   world  ',
  'Zoë  Ångström visited 東京 😀!',
  " Paris's café,\tthe\u00a0world\n",
  '👩‍👩‍👧 family 🇫🇷 flag',
  'naïve résumé — “quotes” … ½ ＡＢＣ',
  'x\u3000y\u2028z\r\n\r\nend',
  '日本語のテキスト、句読点。',
  '𝒳𝒴 math ∑∫ and ❤️ hearts',
  'tabs\t\tand  double  spaces',
  'caf\u00e9 and Ｃａｆé 123 4567',
  "don't won't I'm we've they'll he'd",
  'ﬁne ligature and Å vs Å',
];

test('tokenizerKind: ModernBERT byte-level BPE, MPNet and NomicBERT WordPiece', () => {
  assert.deepEqual(tokenizerKind(modernbert), { type: 'bytelevel' });
  assert.deepEqual(tokenizerKind(mpnet), { type: 'wordpiece', prefix: '##' });
  assert.deepEqual(tokenizerKind(nomic), { type: 'wordpiece', prefix: '##' });
  // the alphabet of the byte tokens is GPT-2's
  assert.equal(spell(' '), 'Ġ');
  assert.equal(spell('\n'), 'Ċ');
  assert.equal(spell('\t'), 'ĉ');
  assert.equal(spell('é'), 'Ã©');
  assert.equal(spell('😀'), 'ðŁĺĢ');
});

test("byte-level: 'Ġ' is the space before a word and not part of its span; whitespace tokens are empty", () => {
  const check = (text, tokens, offsets, words) => {
    const s = encodeSegment(modernbert, text);
    assert.deepEqual([s.tokens, s.offsets, s.words], [tokens, offsets, words], JSON.stringify(text));
  };
  check('Hello world ', ['Hello', 'Ġworld', 'Ġ'], [[0, 5], [6, 11], [12, 12]], [0, 1, 2]);
  check('Hello \nworld', ['Hello', 'Ġ', 'Ċ', 'w', 'o', 'r', 'l', 'd'], [[0, 5], [7, 7], [7, 7], [7, 8], [8, 9], [9, 10], [10, 11], [11, 12]], [0, 1, 2, 3, 3, 3, 3, 3]);
  // runs of spaces are GPT-NeoX added tokens: empty at the next word, words of their own, and the
  // word after them has no 'Ġ' (pre-tokenized apart); five spaces = '    ' + 'Ġ'
  check(
    '  Hello   world     ',
    ['  ', 'Hello', '   ', 'w', 'o', 'r', 'l', 'd', '    ', 'Ġ'],
    [[2, 2], [2, 7], [10, 10], [10, 11], [11, 12], [12, 13], [13, 14], [14, 15], [20, 20], [20, 20]],
    [0, 1, 2, 3, 3, 3, 3, 3, 4, 5],
  );
});

test('byte-level: accents, emoji and CJK split over several byte tokens give each token the whole character', () => {
  const text = 'Zoë Ångström visited 東京 😀!';
  assert.deepEqual(spans(modernbert, text), [
    ['Z', 'Z'], ['o', 'o'], ['Ã', 'ë'], ['«', 'ë'], // 'ë' is C3 AB: two tokens
    ['ĠÃħngstrÃ¶m', 'Ångström'], ['Ġvisited', 'visited'],
    ['Ġ', ''], ['æĿ±', '東'], ['ä', '京'], ['º', '京'], ['¬', '京'], // '東' merged, '京' three bytes
    ['Ġ', ''], ['ð', '😀'], ['Ł', '😀'], ['ĺ', '😀'], ['Ģ', '😀'], ['!', '!'], // a surrogate pair: 2 UTF-16 units, 4 bytes
  ]);
  const s = encodeSegment(modernbert, text);
  assert.deepEqual(s.offsets.slice(12, 16), [[24, 26], [24, 26], [24, 26], [24, 26]]);
  assert.deepEqual(s.words, [0, 0, 0, 0, 1, 2, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4]); // ' 😀!' is one piece (no letters, no digits)
});

test('byte-level: the NFC normalizer composes e + U+0301, and both code units stay in the span', () => {
  const text = 'cafe\u0301 [MASK] the';
  const s = encodeSegment(modernbert, text);
  assert.deepEqual(s.tokens, ['c', 'a', 'f', 'Ã', '©', '[MASK]', 'Ġthe']);
  assert.deepEqual(s.offsets, [[0, 1], [1, 2], [2, 3], [3, 5], [3, 5], [6, 12], [13, 16]]);
  assert.deepEqual(s.words, [0, 0, 0, 0, 0, 1, 2]); // an added token is a word of its own
  // '[MASK]' strips the space before it (lstrip); the text after it keeps its 'Ġ'
  const m = encodeSegment(modernbert, 'The capital of France is [MASK].');
  assert.deepEqual(m.tokens.slice(-3), ['Ġis', '[MASK]', '.']);
  assert.deepEqual(m.offsets.slice(-3), [[22, 24], [25, 31], [31, 32]]);
});

test('byte-level offsets and words equal the spans derived from the UTF-8 bytes on tricky text', () => {
  let tokens = 0;
  for (const text of TRICKY) {
    const s = encodeSegment(modernbert, text);
    const oracle = byteOracle(text.normalize('NFC'), s.tokens);
    if (text === text.normalize('NFC')) {
      assert.deepEqual(s.offsets, oracle.offsets, JSON.stringify(text));
    } else {
      // characters NFC changes ('Å' written A + U+030A): spans stay in the original string
      for (const [a, b] of s.offsets) assert.ok(0 <= a && a <= b && b <= text.length);
    }
    assert.deepEqual(s.words, oracle.words, JSON.stringify(text));
    s.offsets.forEach(([a, b], i) => {
      assert.ok(!/^\s|\s$/u.test(text.slice(a, b)), `${JSON.stringify(s.tokens[i])} → ${JSON.stringify(text.slice(a, b))}`);
      if (i > 0) assert.ok(a >= s.offsets[i - 1][0] && b >= s.offsets[i - 1][1], 'offsets never go back');
    });
    tokens += s.tokens.length;
  }
  assert.ok(tokens > 300, `${tokens} tokens checked`);
});

test('byte-level and MPNet offsets on 400 random strings of mixed scripts, marks, emoji and whitespace', () => {
  const ALPHABET = [...'aZé ü', 'e\u0301', 'Å', '  ', '\t', '\n', '\u00a0', '\u3000', '東', '京', 'ß', 'ﬁ', '😀', '👩\u200d👧', '🇫🇷', '❤\ufe0f', ',', '.', "'s", '!?', '½', '9', '42', 'Hello', ' world', 'Ａ'];
  let seed = 12345;
  const rand = (n) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  let compared = 0;
  for (let k = 0; k < 400; ++k) {
    let text = '';
    const len = 1 + rand(12);
    for (let j = 0; j < len; ++j) text += ALPHABET[rand(ALPHABET.length)];
    const s = encodeSegment(modernbert, text);
    if (text === text.normalize('NFC')) {
      assert.deepEqual(s.offsets, byteOracle(text, s.tokens).offsets, JSON.stringify(text));
      ++compared;
    }
    for (const tok of [modernbert, mpnet]) {
      const e = encodeSegment(tok, text);
      e.offsets.forEach(([a, b], i) => {
        assert.ok(0 <= a && a <= b && b <= text.length, `${JSON.stringify(text)}: ${a}..${b}`);
        assert.ok(!/^\s|\s$/u.test(text.slice(a, b)), `${JSON.stringify(text)}: ${JSON.stringify(e.tokens[i])} → ${JSON.stringify(text.slice(a, b))}`);
        if (i > 0) assert.ok(a >= e.offsets[i - 1][0] && b >= e.offsets[i - 1][1], `${JSON.stringify(text)}: offsets go back at ${i}`);
      });
    }
  }
  assert.ok(compared > 200, `${compared} strings compared with the oracle`);
});

test('byte-level: a token whose bytes end inside a character shares it with the next token', async () => {
  // 'ðŁĺ' + 'Ģ': the first three bytes of 😀 merged, the fourth alone; 'ĠÃ' + '©': a space and half of é
  const tok = await tokenizerOf(modernBertFiles([spell('😀').slice(0, 3), 'ĠÃ']), 'modernbert');
  const text = 'a😀 é';
  const s = encodeSegment(tok, text);
  assert.deepEqual(s.tokens, ['a', 'ðŁĺ', 'Ģ', 'ĠÃ', '©']);
  assert.deepEqual(s.offsets, [[0, 1], [1, 3], [1, 3], [4, 5], [4, 5]]);
  assert.deepEqual(s.words, [0, 1, 1, 2, 2]);
  assert.deepEqual(s.offsets, byteOracle(text, s.tokens).offsets);
});

test('MPNet: WordPiece offsets through lowercasing and accent stripping; <mask> typed in the text', () => {
  const text = 'Hello World, Zoë café Paris!! <mask> is bigger';
  assert.deepEqual(spans(mpnet, text), [
    ['hello', 'Hello'], ['world', 'World'], [',', ','], ['zoe', 'Zoë'], ['cafe', 'café'], ['paris', 'Paris'], ['!', '!'], ['!', '!'],
    ['<mask>', '<mask>'], ['is', 'is'], ['big', 'big'], ['##ger', 'ger'],
  ]);
  assert.deepEqual(encodeSegment(mpnet, text).words, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10]);
});

test('pairs: MPNet <s> A </s></s> B </s>, ModernBERT and NomicBERT [CLS] A [SEP] B [SEP]', () => {
  const mp = encodeInput(mpnet, 'Hello world', 'the capital');
  assert.deepEqual(mp.tokens, ['<s>', 'hello', 'world', '</s>', '</s>', 'the', 'capital', '</s>']);
  assert.deepEqual(mp.ids, [0, 9, 10, 2, 2, 14, 16, 2]);
  assert.deepEqual(mp.sequenceIds, [null, 0, 0, null, null, 1, 1, null]);
  assert.deepEqual(mp.offsets, [null, [0, 5], [6, 11], null, null, [0, 3], [4, 11], null]);
  assert.deepEqual(mp.typeIds, [0, 0, 0, 0, 1, 1, 1, 1]); // RobertaProcessing's; MPNet has no type table (see below)
  const single = encodeInput(mpnet, 'Hello world');
  assert.deepEqual(single.tokens, ['<s>', 'hello', 'world', '</s>']);

  const mb = encodeInput(modernbert, 'Hello world', 'Zoë lives');
  assert.deepEqual(mb.tokens, ['[CLS]', 'Hello', 'Ġworld', '[SEP]', 'Z', 'o', 'Ã', '«', 'Ġlives', '[SEP]']);
  assert.deepEqual(mb.sequenceIds, [null, 0, 0, null, 1, 1, 1, 1, 1, null]);
  assert.deepEqual(mb.offsets, [null, [0, 5], [6, 11], null, [0, 1], [1, 2], [2, 3], [2, 3], [4, 9], null]);
  assert.deepEqual(mb.ids.slice(0, 1), [mbFiles['tokenizer.json'].model.vocab['[CLS]']]);

  const nb = encodeInput(nomic, 'Hello world', 'the capital');
  assert.deepEqual(nb.tokens, ['[CLS]', 'hello', 'world', '[SEP]', 'the', 'capital', '[SEP]']);
  assert.deepEqual(nb.typeIds, [0, 0, 0, 0, 1, 1, 1]);
});

test('pair truncation counts each family’s special tokens (4 for MPNet, 3 for ModernBERT / NomicBERT)', () => {
  const a = 'hello world '.repeat(10); // 20 tokens each
  const b = 'the capital of france '.repeat(5);
  const mp = encodeInput(mpnet, a, b, { maxLength: 24 });
  assert.equal(mp.ids.length, 24);
  assert.deepEqual([mp.sequenceIds.filter((x) => x === 0).length, mp.sequenceIds.filter((x) => x === 1).length], [10, 10]);
  assert.equal(mp.truncated, 20);
  const nb = encodeInput(nomic, a, b, { maxLength: 24 });
  assert.deepEqual([nb.sequenceIds.filter((x) => x === 0).length, nb.sequenceIds.filter((x) => x === 1).length], [10, 11]); // equal lengths: the second text gets the odd token
  const mbA = 'Hello world'.repeat(1) + ' world'.repeat(19); // 20 tokens
  const mb = encodeInput(modernbert, mbA, ' the capital'.repeat(10), { maxLength: 13 });
  assert.deepEqual(mb.tokens, ['[CLS]', 'Hello', 'Ġworld', 'Ġworld', 'Ġworld', 'Ġworld', '[SEP]', 'Ġthe', 'Ġcapital', 'Ġthe', 'Ġcapital', 'Ġthe', '[SEP]']);
  assert.throws(() => encodeInput(mpnet, a, b, { maxLength: 3 }), { name: 'RangeError', message: 'maxLength: 3 is less than the 4 special tokens the tokenizer adds' });
});

// ---- stand-in models: the fields the pipelines read, logits chosen per token --------------------------

/**
 * A model of `modelType` with the C++ model's info (maxSequence: its own limit, 0 for none) whose
 * forward() records its inputs and answers with respond(tokens of a row, row index).
 */
function standIn(tokenizer, { modelType, maxSequence, maxPositionEmbeddings, typeVocabSize, head, respond }) {
  const seen = [];
  const config = { model_type: modelType, ...(typeVocabSize === undefined ? {} : { type_vocab_size: typeVocabSize }) };
  return {
    tokenizer,
    config,
    info: { modelType, maxSequence, maxPositionEmbeddings, hiddenSize: 4 },
    labels: head === 'text-classification' ? ['neg', 'pos'] : null,
    head: head ? { task: head, labels: head === 'token-classification' ? LABELS : head === 'text-classification' ? ['neg', 'pos'] : null } : null,
    sentenceTransformers: null,
    seen,
    forward(inputs, options = {}) {
      seen.push(inputs);
      const rows = inputs.inputIds.map((ids) => ids.map((id) => tokenizer.id_to_token(id)));
      return respond(rows, options);
    },
    dispose() {},
  };
}

const classify = (rows) => {
  const data = new Float32Array(rows.length * 2);
  rows.forEach((r, b) => data.set([0, r.length / 100], b * 2));
  return { logits: { data, dims: [rows.length, 2] } };
};

const FAMILIES = {
  // MPNet: positions 2 … 513 of a 514-row table (the C++ model's max_sequence is 514 − 2)
  mpnet: () => ({ tok: mpnet, modelType: 'mpnet', maxSequence: 512, maxPositionEmbeddings: 514, limit: 512, types: false, source: '(max_position_embeddings − 2: MPNet positions start at 2)' }),
  // ModernBERT: rotary, no table; its checkpoints stop at max_position_embeddings (8192)
  modernbert: () => ({ tok: modernbert, modelType: 'modernbert', maxSequence: 0, maxPositionEmbeddings: 8192, limit: 8192, types: false, source: '(max_position_embeddings)' }),
  // NomicBERT: rotary, n_positions 2048 (nomic-embed-text-v1) reported as maxPositionEmbeddings
  nomic_bert: () => ({ tok: nomic, modelType: 'nomic_bert', maxSequence: 0, maxPositionEmbeddings: 2048, limit: 2048, types: true, typeVocabSize: 2, source: '(n_positions)' }),
};

test('position limits: MPNet max_position_embeddings − 2, ModernBERT and NomicBERT their trained length; other relative models none', () => {
  for (const [name, f] of Object.entries(FAMILIES)) {
    const fam = f();
    assert.equal(positionLimit(standIn(fam.tok, { ...fam, respond: classify })), fam.limit, name);
  }
  assert.equal(positionLimit({ info: { modelType: 'deberta-v2', maxSequence: 0, maxPositionEmbeddings: 512 } }), null);
  assert.equal(positionLimit({ info: { modelType: 'nomic_bert', maxSequence: 2048, maxPositionEmbeddings: 2048 } }), 2048); // learned positions
});

test('truncation defaults to each family’s limit; longer maxLength and untruncated long inputs are refused naming the limit', async () => {
  for (const [name, f] of Object.entries(FAMILIES)) {
    const fam = f();
    const model = standIn(fam.tok, { ...fam, head: 'text-classification', respond: classify });
    const classifier = pipeline('text-classification', model);
    const word = fam.tok === modernbert ? ' world' : 'world ';
    const long = word.repeat(fam.limit + 50);
    await classifier(long);
    assert.equal(model.seen.at(-1).inputIds[0].length, fam.limit, name);
    await classifier(long, { maxLength: 100 });
    assert.equal(model.seen.at(-1).inputIds[0].length, 100, name);
    await assert.rejects(classifier(long, { maxLength: fam.limit + 1 }), {
      name: 'RangeError',
      message: `text-classification: maxLength: ${fam.limit + 1} is more than the model's ${fam.limit} positions ${fam.source}`,
    });
    await assert.rejects(classifier(long, { truncation: false }), {
      name: 'RangeError',
      message: `text-classification: the input has ${fam.limit + 52} tokens, more than the model's ${fam.limit} positions ${fam.source}; pass truncation: true (the default) or a shorter text`,
    });
    const embed = pipeline('feature-extraction', standIn(fam.tok, { ...fam, respond: () => ({ lastHiddenState: null }) }));
    await assert.rejects(embed('x', { maxLength: fam.limit + 1 }), { name: 'RangeError', message: new RegExp(`is more than the model's ${fam.limit} positions`) });
  }
});

test('token type ids reach forward() only for NomicBERT (MPNet and ModernBERT have no token-type embeddings)', async () => {
  for (const [name, f] of Object.entries(FAMILIES)) {
    const fam = f();
    const model = standIn(fam.tok, { ...fam, head: 'text-classification', respond: classify });
    // MPNet's config.json has no type_vocab_size; a config that names one still gives no types
    if (name === 'mpnet') model.config.type_vocab_size = 2;
    await pipeline('text-classification', model)({ text: 'hello world', textPair: 'the capital' });
    const inputs = model.seen.at(-1);
    if (fam.types) assert.deepEqual(inputs.tokenTypeIds, [[0, 0, 0, 0, 1, 1, 1]], name);
    else assert.equal(inputs.tokenTypeIds, undefined, name);
    const zs = standIn(fam.tok, { ...fam, head: 'text-classification', respond: classify });
    zs.labels = ['contradiction', 'neutral', 'entailment'];
    zs.head.labels = zs.labels;
    zs.respond = null;
    zs.forward = (inputs) => {
      zs.seen.push(inputs);
      return { logits: { data: new Float32Array(inputs.inputIds.length * 3), dims: [inputs.inputIds.length, 3] } };
    };
    await pipeline('zero-shot-classification', zs)('hello world', ['france', 'paris']);
    assert.equal(zs.seen.every((i) => (i.tokenTypeIds !== undefined) === fam.types), true, name);
  }
});

// ---- NER, QA and fill-mask on byte-level tokens --------------------------------------------------

const TAG = { O: [0.9, 0.025, 0.025, 0.025, 0.025], 'B-PER': [0.05, 0.8, 0.05, 0.05, 0.05], 'I-PER': [0.05, 0.05, 0.8, 0.05, 0.05], 'B-LOC': [0.05, 0.05, 0.05, 0.8, 0.05], 'I-LOC': [0.05, 0.05, 0.05, 0.05, 0.8] };

/** Token logits: log of TAG[labelAt(l)] for position l of each row. */
const tagging = (labelAt) => (rows) => {
  const L = Math.max(...rows.map((r) => r.length));
  const data = new Float32Array(rows.length * L * 5);
  rows.forEach((r, b) => r.forEach((_, l) => TAG[labelAt(l, r)].forEach((p, k) => (data[(b * L + l) * 5 + k] = Math.log(p)))));
  return { logits: { data, dims: [rows.length, L, 5] } };
};

test('NER on byte-level tokens: split characters stay inside their word, entity words are the decoded text, spans slice it', async () => {
  const text = 'Zoë Ångström  visited 東京 😀!';
  // [CLS] Z o Ã « ĠÃħngstrÃ¶m '  ' v i s i t e d Ġ æĿ± ä º ¬ Ġ ð Ł ĺ Ģ ! [SEP]
  const labels = ['O', 'B-PER', 'I-PER', 'I-PER', 'B-LOC', 'I-PER', 'I-PER', 'O', 'O', 'O', 'O', 'O', 'O', 'O', 'O', 'B-LOC', 'I-LOC', 'I-LOC', 'I-LOC'];
  assert.deepEqual(encodeInput(modernbert, text).tokens.slice(0, 19).join(' '), '[CLS] Z o Ã « ĠÃħngstrÃ¶m    v i s i t e d Ġ æĿ± ä º ¬');
  const model = standIn(modernbert, { modelType: 'modernbert', maxSequence: 0, maxPositionEmbeddings: 8192, head: 'token-classification', respond: tagging((l) => labels[l] ?? 'O') });
  const ner = pipeline('ner', model);
  const none = await ner(text);
  assert.deepEqual(none.map((e) => [e.entity, e.word, e.index, e.start, e.end]), [
    ['B-PER', 'Z', 1, 0, 1], ['I-PER', 'o', 2, 1, 2], ['I-PER', 'Ã', 3, 2, 3], ['B-LOC', '«', 4, 2, 3], // raw tokens, as HF
    ['I-PER', 'ĠÃħngstrÃ¶m', 5, 4, 12], ['I-PER', '  ', 6, 14, 14], ['B-LOC', 'æĿ±', 15, 22, 23], ['I-LOC', 'ä', 16, 23, 24], ['I-LOC', 'º', 17, 23, 24], ['I-LOC', '¬', 18, 23, 24],
  ]);
  const pick = (r) => r.map((e) => [e.entity_group, e.word, e.start, e.end]);
  // simple: consecutive tokens, so the B-LOC on the second byte of 'ë' starts a new (half-character) group
  // simple: consecutive tokens, so the B-LOC on the second byte of 'ë' starts a new (half-character)
  // group; the double space (I-PER) joins 'Ångström' without stretching it over the spaces
  assert.deepEqual(pick(await ner(text, { aggregationStrategy: 'simple' })), [['PER', 'Zo\uFFFD', 0, 3], ['LOC', '\uFFFD', 2, 3], ['PER', 'Ångström', 4, 12], ['LOC', '東京', 22, 24]]);
  // first / max: 'Zoë' is one word (a token starting inside a character continues it); 東京 one word
  for (const aggregationStrategy of ['first', 'max']) {
    const got = await ner(text, { aggregationStrategy });
    assert.deepEqual(pick(got), [['PER', 'Zoë Ångström', 0, 12], ['LOC', '東京', 22, 24]], aggregationStrategy);
    for (const e of got) assert.equal(e.word, text.slice(e.start, e.end));
  }
  assert.deepEqual(tokensToString(['ĠZ', 'o', 'Ã', '«', 'Ġ', 'ĠÃħngstrÃ¶m', '  '], { type: 'bytelevel' }), 'Zoë  Ångström');
});

test('NER on byte-level tokens: newlines, U+00A0 and runs of spaces separate words and never stretch an entity', async () => {
  const text = 'Paris\nTokyo\u00a0Paris  Tokyo';
  const enc = encodeInput(modernbert, text);
  // the letters B-LOC, the whitespace tokens 'Ċ' and 'Â' 'ł' (U+00A0) I-LOC: they join the group before them
  const labels = enc.offsets.map((o) => (o === null ? 'O' : o[1] > o[0] ? 'B-LOC' : 'I-LOC'));
  assert.deepEqual(enc.tokens.slice(1, -1).join(' '), 'P a r i s Ċ T o k y o Â ł P a r i s    T o k y o');
  const ner = pipeline('ner', standIn(modernbert, { modelType: 'modernbert', maxSequence: 0, maxPositionEmbeddings: 8192, head: 'token-classification', respond: tagging((l) => labels[l]) }));
  for (const aggregationStrategy of ['first', 'average', 'max']) {
    const got = await ner(text, { aggregationStrategy });
    assert.deepEqual(got.map((e) => [e.entity_group, e.word, e.start, e.end]), [['LOC', 'Paris', 0, 5], ['LOC', 'Tokyo', 6, 11], ['LOC', 'Paris', 12, 17], ['LOC', 'Tokyo', 19, 24]], aggregationStrategy);
  }
});

/** QA logits peaked at the tokens `start` and `end` (by index in the row). */
const peaked = (start, end) => (rows) => {
  const L = Math.max(...rows.map((r) => r.length));
  const s = new Float32Array(rows.length * L);
  const e = new Float32Array(rows.length * L);
  rows.forEach((_, b) => {
    s[b * L + start] = 10;
    e[b * L + end] = 10;
  });
  return { startLogits: { data: s, dims: [rows.length, L] }, endLogits: { data: e, dims: [rows.length, L] } };
};

test('QA on byte-level tokens: answers from split characters cover whole characters; alignToWords uses the pre-tokenizer words', async () => {
  const question = 'Who?';
  const context = "Zoë's café is  in Paris, France.";
  const enc = encodeInput(modernbert, question, context);
  const first = enc.sequenceIds.indexOf(1);
  const ctxTokens = enc.tokens.slice(first, -1);
  assert.deepEqual(ctxTokens, ['Z', 'o', 'Ã', '«', "'s", 'ĠcafÃ©', 'Ġis', '  ', 'i', 'n', 'ĠParis', ',', 'ĠFrance', '.']);
  const qaModel = (s, e) => standIn(modernbert, { modelType: 'modernbert', maxSequence: 0, maxPositionEmbeddings: 8192, head: 'question-answering', respond: peaked(first + s, first + e) });
  const ask = (s, e, options) => pipeline('question-answering', qaModel(s, e))({ question, context }, options);
  // the second byte of 'ë' alone: the whole 'ë'; with alignToWords, the word 'Zoë' (not "'s", a piece of its own)
  assert.deepEqual(pick2(await ask(3, 3, { alignToWords: false })), ['ë', 2, 3]);
  assert.deepEqual(pick2(await ask(3, 3)), ['Zoë', 0, 3]);
  assert.deepEqual(pick2(await ask(10, 11)), ['Paris,', 18, 24]);
  assert.deepEqual(pick2(await ask(10, 10)), ['Paris', 18, 23]); // 'Paris' and ',' are two words, as in HF's word_ids
  assert.deepEqual(pick2(await ask(10, 12)), ['Paris, France', 18, 31]);
  assert.deepEqual(pick2(await ask(7, 8, { alignToWords: false })), ['i', 15, 16]); // from the run of spaces: starts at the next character
  assert.deepEqual(pick2(await ask(7, 8)), ['in', 15, 17]);
  assert.deepEqual(pick2(await ask(6, 7)), ['is', 11, 13]); // ends on the spaces: not stretched over them
});
const pick2 = (a) => [a.answer, a.start, a.end];

test('fill-mask on byte-level tokens: token_str and sequence are decoded bytes; [MASK] keeps the space before it out', async () => {
  const vocab = mbFiles['tokenizer.json'].model.vocab;
  const favourite = ['ĠParis', 'ĠTokyo', 'Ġcaf'];
  const model = standIn(modernbert, {
    modelType: 'modernbert',
    maxSequence: 0,
    maxPositionEmbeddings: 8192,
    head: 'fill-mask',
    respond: (rows, options) => {
      const V = mbFiles.vocabSize;
      const data = new Float32Array(options.logitsAt.length * V);
      options.logitsAt.forEach((_, p) => favourite.forEach((t, k) => (data[p * V + vocab[t]] = 10 - k)));
      return { logits: { data, dims: [options.logitsAt.length, V] } };
    },
  });
  model.config.pad_token_id = vocab['[PAD]'];
  const got = await pipeline('fill-mask', model)('The capital of France is [MASK].', { topK: 3 });
  assert.deepEqual(got.map((r) => [r.token_str, r.sequence]), [
    [' Paris', 'The capital of France is Paris.'],
    [' Tokyo', 'The capital of France is Tokyo.'],
    [' caf', 'The capital of France is caf.'],
  ]);
});

// ---- end to end: a real BERT checkpoint with the byte-level tokenizer swapped in ----------------------

const skipReal = haveTaskFixtures ? false : 'no HF task fixtures';
const folders = [];
after(() => folders.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A copy of a hf-tasks BERT case (8,000-token vocabulary) whose tokenizer is the ModernBERT-style one (≤ 8,000 ids). */
function swapped(caseName) {
  const dir = writeFolder(mbFiles);
  folders.push(dir);
  for (const f of ['config.json', 'model.safetensors']) copyFileSync(join(TASK_FIXTURES, caseName, f), join(dir, f));
  return dir;
}

test('real BERT token-classification and QA checkpoints with a byte-level tokenizer: entities and answers slice the text', { skip: skipReal }, async () => {
  assert.ok(mbFiles.vocabSize <= 8000);
  const rp = await init({ simd: true });
  const nerModel = await rp.loadModel(swapped('bert-token-classification'));
  try {
    assert.deepEqual(tokenizerKind(nerModel.tokenizer), { type: 'bytelevel' });
    const ner = pipeline('ner', nerModel);
    const texts = TRICKY.filter((t) => t === t.normalize('NFC'));
    for (const strategy of ['first', 'average', 'max']) {
      const all = await ner(texts, { aggregationStrategy: strategy, ignoreLabels: [] });
      all.forEach((entities, i) => {
        const text = texts[i];
        for (const e of entities) {
          // whole words: the decoded bytes are the text, whitespace runs as they were
          assert.equal(e.word, text.slice(e.start, e.end).trim(), `${strategy} ${JSON.stringify(text)}: ${JSON.stringify(e)}`);
          assert.ok(!/^\s/u.test(text.slice(e.start, e.end)), JSON.stringify(e));
        }
      });
    }
    const none = await ner(texts[2], { ignoreLabels: [] });
    const enc = encodeInput(nerModel.tokenizer, texts[2]);
    assert.deepEqual(none.map((e) => [e.word, e.start, e.end]), enc.tokens.slice(1, -1).map((t, i) => [t, ...enc.offsets[i + 1]]));
  } finally {
    nerModel.dispose();
  }
  const qaModel = await rp.loadModel(swapped('bert-question-answering'));
  try {
    const qa = pipeline('question-answering', qaModel);
    for (const context of TRICKY.filter((t) => t.trim() !== '')) {
      for (const alignToWords of [true, false]) {
        const answers = await qa({ question: 'Where is the café?', context }, { topK: 3, alignToWords });
        for (const a of [answers].flat()) {
          assert.equal(a.answer, context.slice(a.start, a.end));
          assert.equal(a.answer, a.answer.trim(), JSON.stringify(a));
        }
      }
    }
  } finally {
    qaModel.dispose();
  }
});

test('real BERT fill-mask checkpoint with a byte-level tokenizer: token_str is decode([token]) and sequence puts it in place', { skip: skipReal }, async () => {
  const rp = await init({ simd: true });
  const model = await rp.loadModel(swapped('bert-fill-mask'));
  try {
    const got = await pipeline('fill-mask', model)('Zoë visited [MASK] in 東京.', { topK: 4 });
    assert.equal(got.length, 4);
    for (const r of got) {
      assert.equal(r.token_str, model.tokenizer.decode([r.token]));
      assert.ok(r.sequence.startsWith('Zoë visited') && r.sequence.endsWith('in 東京.'), JSON.stringify(r));
    }
  } finally {
    model.dispose();
  }
});

// ---- the real family checkpoints, once relpos runs them (hf-families fixtures) --------------------------

const FAMILY_FIXTURES = join(TASK_FIXTURES, '..', 'hf-families');
test('real MPNet / ModernBERT / NomicBERT fixtures: model.info gives the limits the pipelines use, and feature-extraction truncates there', { skip: existsSync(FAMILY_FIXTURES) ? false : 'no hf-families fixtures' }, async () => {
  const rp = await init({ simd: true });
  const cases = [
    ['mpnet-b', mpnetFiles(MP_WORDS.slice(0, 14)), 512, 'world '],
    ['modernbert-a', null, 512, 'x '],
    ['nomic-bert-a', nomicFiles(MP_WORDS.slice(0, 14)), 2048, 'world '],
  ];
  for (const [name, files, limit, word] of cases) {
    const dir = writeFolder(files ?? {});
    folders.push(dir);
    for (const f of ['config.json', 'model.safetensors']) copyFileSync(join(FAMILY_FIXTURES, name, f), join(dir, f));
    const model = await rp.loadModel(dir);
    try {
      assert.equal(positionLimit(model), limit, name);
      if (!model.tokenizer) continue; // ModernBERT's byte alphabet does not fit a 100-token vocabulary
      assert.ok(files.vocabSize <= model.info.vocabSize);
      const embed = pipeline('feature-extraction', model);
      const seen = [];
      const forward = model.forward.bind(model);
      model.forward = (inputs, options) => {
        seen.push(inputs);
        return forward(inputs, options);
      };
      const out = await embed(word.repeat(limit + 10), { pooling: 'mean' });
      assert.equal(seen.at(-1).inputIds[0].length, limit, name);
      assert.equal(seen.at(-1).tokenTypeIds, undefined);
      assert.ok(Array.from(out.data).every(Number.isFinite));
    } finally {
      model.dispose();
    }
  }
});
