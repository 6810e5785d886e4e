// Behaviour the HF fixtures do not cover (their reference used slow tokenizers), proved with
// synthetic models whose head outputs are chosen per token: word aggregation ('first', 'average',
// 'max') with character offsets, question-answering windows (docStride is the overlap) and word
// alignment, truncation defaults, and the bad inputs each pipeline refuses with a clear Error.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { pipeline } from '../../web/index.js';
import { positionLimit } from '../../web/pipelines/batching.js';
import { contextWindows } from '../../web/pipelines/question-answering.js';
import { caseTokenizer, haveTaskFixtures, loadTaskCase, standInInfo } from './task-fixtures.mjs';

const skip = haveTaskFixtures ? false : 'no HF task fixtures';
const LABELS = ['O', 'B-PER', 'I-PER', 'B-LOC', 'I-LOC'];

/** A model whose token logits are log(probabilities) chosen per token string (default: O). */
async function taggingModel(caseName, probsByToken) {
  const c = loadTaskCase(caseName);
  const tokenizer = await caseTokenizer(c);
  const seen = [];
  return {
    tokenizer,
    config: c.config,
    info: standInInfo(c.config),
    labels: null,
    head: { task: 'token-classification', labels: LABELS },
    seen,
    forward({ inputIds }) {
      seen.push(inputIds);
      const B = inputIds.length;
      const L = Math.max(...inputIds.map((r) => r.length));
      const data = new Float32Array(B * L * 5);
      inputIds.forEach((ids, b) =>
        ids.forEach((id, l) => {
          const p = probsByToken[tokenizer.id_to_token(id)] ?? [0.9, 0.025, 0.025, 0.025, 0.025];
          p.forEach((x, k) => (data[(b * L + l) * 5 + k] = Math.log(x)));
        }),
      );
      return { logits: { data, dims: [B, L, 5] } };
    },
  };
}

const P = {
  z: [0.1, 0.6, 0.1, 0.1, 0.1],
  '##o': [0.025, 0.025, 0.05, 0.1, 0.8],
  '##e': [0.1, 0.1, 0.5, 0.2, 0.1],
  jose: [0.05, 0.8, 0.05, 0.05, 0.05],
  sao: [0.1, 0.05, 0.05, 0.7, 0.1],
  paul: [0.1, 0.05, 0.05, 0.1, 0.7],
};
const TEXT = 'Zoë met José in São Paulo.'; // z ##o ##e met jose in sao paul ##o .

const near = (got, exp) => {
  assert.equal(got.length, exp.length, JSON.stringify(got));
  got.forEach((g, i) => {
    const { score, ...rest } = g;
    const { score: s, ...r } = exp[i];
    assert.deepEqual(rest, r);
    assert.ok(Math.abs(score - s) < 1e-6, `${score} vs ${s}`);
  });
};

test("aggregationStrategy 'first' | 'max' | 'average' merge WordPiece subwords into words, with character offsets", { skip }, async () => {
  const ner = pipeline('ner', await taggingModel('bert-token-classification', P));
  near(await ner(TEXT, { aggregationStrategy: 'first' }), [
    { entity_group: 'PER', score: 0.6, word: 'zoe', start: 0, end: 3 },
    { entity_group: 'PER', score: 0.8, word: 'jose', start: 8, end: 12 },
    { entity_group: 'LOC', score: 0.7, word: 'sao paulo', start: 16, end: 25 },
  ]);
  near(await ner(TEXT, { aggregationStrategy: 'max' }), [
    { entity_group: 'LOC', score: 0.8, word: 'zoe', start: 0, end: 3 },
    { entity_group: 'PER', score: 0.8, word: 'jose', start: 8, end: 12 },
    { entity_group: 'LOC', score: 0.75, word: 'sao paulo', start: 16, end: 25 },
  ]);
  near(await ner(TEXT, { aggregationStrategy: 'average' }), [
    { entity_group: 'LOC', score: 1 / 3, word: 'zoe', start: 0, end: 3 },
    { entity_group: 'PER', score: 0.8, word: 'jose', start: 8, end: 12 },
    { entity_group: 'LOC', score: 0.725, word: 'sao paulo', start: 16, end: 25 },
  ]);
  // 'simple' does not merge subwords: the pieces of 'Zoë' land in different groups
  near(await ner(TEXT, { aggregationStrategy: 'simple' }), [
    { entity_group: 'PER', score: 0.6, word: 'z', start: 0, end: 1 },
    { entity_group: 'LOC', score: 0.8, word: '##o', start: 1, end: 2 },
    { entity_group: 'PER', score: 0.5, word: '##e', start: 2, end: 3 },
    { entity_group: 'PER', score: 0.8, word: 'jose', start: 8, end: 12 },
    { entity_group: 'LOC', score: 0.75, word: 'sao paul ##o', start: 16, end: 25 },
  ].map((e) => (e.word === 'sao paul ##o' ? { ...e, word: 'sao paulo', score: (0.7 + 0.7 + 0.8) / 3 } : e)));
  // 'none': one entry per token, index counted from [CLS] = 0; start/end slice the original text
  const none = await ner(TEXT);
  assert.deepEqual(none.map((e) => [e.entity, e.index, e.word, TEXT.slice(e.start, e.end)]), [
    ['B-PER', 1, 'z', 'Z'], ['I-LOC', 2, '##o', 'o'], ['I-PER', 3, '##e', 'ë'], ['B-PER', 5, 'jose', 'José'],
    ['B-LOC', 7, 'sao', 'São'], ['I-LOC', 8, 'paul', 'Paul'], ['I-LOC', 9, '##o', 'o'],
  ]);
  // ignoreLabels applies to entity and entity_group alike
  near(await ner(TEXT, { aggregationStrategy: 'first', ignoreLabels: ['O', 'PER'] }), [{ entity_group: 'LOC', score: 0.7, word: 'sao paulo', start: 16, end: 25 }]);
});

test('SentencePiece words for first/average/max: a piece after a space starts a word; grouped words keep their spaces', { skip }, async () => {
  const text = 'John Smith lives in Paris'; // ▁Jo h n ▁Sm ith ▁lives ▁in ▁Par is
  const ner = pipeline('token-classification', await taggingModel('deberta-v2-token-classification', {
    '\u2581Jo': [0.1, 0.6, 0.1, 0.1, 0.1],
    h: [0.05, 0.05, 0.05, 0.05, 0.8],
    n: [0.9, 0.025, 0.025, 0.025, 0.025],
    '\u2581Sm': [0.05, 0.05, 0.7, 0.1, 0.1],
    ith: [0.05, 0.05, 0.05, 0.8, 0.05],
    '\u2581Par': [0.05, 0.05, 0.05, 0.8, 0.05],
    is: [0.05, 0.05, 0.05, 0.05, 0.8],
  }));
  near(await ner(text, { aggregationStrategy: 'first' }), [
    { entity_group: 'PER', score: 0.65, word: 'John Smith', start: 0, end: 10 },
    { entity_group: 'LOC', score: 0.8, word: 'Paris', start: 20, end: 25 },
  ]);
  const first = await ner(text, { aggregationStrategy: 'first', ignoreLabels: [] });
  assert.deepEqual(first.map((e) => text.slice(e.start, e.end)), ['John Smith', 'lives in', 'Paris']);
});

/** A QA model: start and end logits +8 at the tokens named, 0 elsewhere; it records every window. */
async function qaModel(caseName, startToken, endToken) {
  const c = loadTaskCase(caseName);
  const tokenizer = await caseTokenizer(c);
  const windows = [];
  return {
    tokenizer,
    config: c.config,
    info: standInInfo(c.config),
    labels: null,
    head: { task: 'question-answering', labels: null },
    windows,
    forward({ inputIds }) {
      const B = inputIds.length;
      const L = Math.max(...inputIds.map((r) => r.length));
      const s = new Float32Array(B * L);
      const e = new Float32Array(B * L);
      inputIds.forEach((ids, b) => {
        windows.push(Array.from(ids, (id) => tokenizer.id_to_token(id)));
        ids.forEach((id, l) => {
          const t = tokenizer.id_to_token(id);
          if (t === startToken) s[b * L + l] = 8;
          if (t === endToken) e[b * L + l] = 8;
        });
      });
      return { startLogits: { data: s, dims: [B, L] }, endLogits: { data: e, dims: [B, L] } };
    },
  };
}

const CONTEXT = 'John lives in Paris. He works at a small company in London and travels to Berlin every month.';

test('question-answering: long contexts are split into windows that overlap by docStride tokens; the answer is context.slice(start, end)', { skip }, async () => {
  const model = await qaModel('bert-question-answering', 'berlin', 'berlin');
  const qa = pipeline('question-answering', model);
  const got = await qa({ question: 'Where does John travel?', context: CONTEXT }, { maxSeqLen: 16, docStride: 3, topK: 3 });
  // question: where does john travel ? = 5 tokens; a window holds 16 − 5 − 3 = 8 context tokens
  const q = 5;
  assert.ok(model.windows.every((w) => w.length <= 16 && w[0] === '[CLS]' && w[q + 1] === '[SEP]' && w.at(-1) === '[SEP]'));
  // windows run shortest first: put them back in context order by where their tokens start
  const all = model.tokenizer.encode(CONTEXT, { add_special_tokens: false }).tokens;
  const ctx = model.windows
    .map((w) => w.slice(q + 2, -1))
    .map((c) => ({ c, at: all.findIndex((_, k) => c.every((t, j) => all[k + j] === t)) }))
    .sort((a, b) => a.at - b.at);
  assert.deepEqual(ctx.map((w) => w.at), [0, 5, 10, 15]); // 8 tokens a window, 3 shared: a step of 5
  for (let k = 1; k < ctx.length; ++k) assert.deepEqual(ctx[k].c.slice(0, 3), ctx[k - 1].c.slice(-3), `window ${k} starts with the last docStride tokens of window ${k - 1}`);
  assert.equal(ctx.at(-1).at + ctx.at(-1).c.length, all.length); // the last window reaches the end
  assert.deepEqual(contextWindows(q, all.length, 16, 3, 3), [{ start: 0, stop: 8 }, { start: 5, stop: 13 }, { start: 10, stop: 18 }, { start: 15, stop: 20 }]);
  const best = Array.isArray(got) ? got[0] : got;
  assert.equal(best.answer, 'Berlin');
  assert.equal(CONTEXT.slice(best.start, best.end), 'Berlin');
  assert.equal(best.start, CONTEXT.indexOf('Berlin'));
  assert.ok(best.score > 0.5);
  // the arguments of Transformers.js: (question, context, options)
  const again = await qa('Where does John travel?', CONTEXT, { maxSeqLen: 16, docStride: 3 });
  assert.equal(again.answer, 'Berlin');
});

test('question-answering: spans are aligned to whole words unless alignToWords is false; handleImpossibleAnswer adds the null answer', { skip }, async () => {
  const model = await qaModel('bert-question-answering', '##t', '##t');
  const qa = pipeline('question-answering', model);
  const context = 'The cat sits on the mat today.';
  assert.equal((await qa({ question: 'Where?', context })).answer, 'mat');
  assert.equal((await qa({ question: 'Where?', context }, { alignToWords: false })).answer, 't');
  const flat = pipeline('question-answering', await qaModel('bert-question-answering', 'none', 'none'));
  const withNull = await flat({ question: 'Where?', context }, { topK: 100, handleImpossibleAnswer: true });
  const spans = await flat({ question: 'Where?', context }, { topK: 100, maxAnswerLen: 3 });
  assert.ok(withNull.some((a) => a.answer === '' && a.start === 0 && a.end === 0));
  assert.equal(withNull.length, 1 + (9 * 10) / 2); // 9 context tokens (ma ##t): every span, plus the null answer
  assert.equal(spans.length, 9 + 8 + 7); // maxAnswerLen 3: spans of 1, 2 or 3 tokens
  const list = await qa([{ question: 'Where?', context }, { question: 'Where?', context: 'mat' }]);
  assert.equal(list.length, 2);
  assert.equal(list[1].answer, 'mat');
});

test('question-answering: a question longer than maxSeqLen, an empty context and a docStride not below the window are clear Errors', { skip }, async () => {
  const qa = pipeline('question-answering', await qaModel('bert-question-answering', 'x', 'x'));
  const long = 'why '.repeat(70);
  await assert.rejects(qa({ question: long, context: CONTEXT }), { name: 'RangeError', message: /^question-answering: the question has 70 tokens, which with 3 special tokens leaves no room for the context in maxSeqLen 64/ });
  await assert.rejects(qa({ question: 'Why?', context: '' }), { name: 'Error', message: 'question-answering: context is empty: expected a non-empty context' });
  await assert.rejects(qa({ question: 'Why?', context: '   ' }), { name: 'Error', message: 'question-answering: context is empty: expected a non-empty context' });
  await assert.rejects(qa({ question: '', context: CONTEXT }), { name: 'Error', message: 'question-answering: question is empty: expected a non-empty question' });
  await assert.rejects(qa({ question: 'Why?', context: CONTEXT }, { maxSeqLen: 16, docStride: 11 }), { name: 'RangeError', message: /docStride 11 \(the overlap between windows\) must be less than the 11 context tokens a window holds/ });
  await assert.rejects(qa({ question: 'Why?' }), { name: 'TypeError', message: 'question-answering: context: expected a string, got undefined' });
  await assert.rejects(qa({ question: 'Why?', context: CONTEXT }, { maxSeqLen: 65 }), { name: 'RangeError', message: /maxSeqLen: 65 is more than the model's 64 positions/ });
  await assert.rejects(qa({ question: 'Why?', context: CONTEXT }, { topK: 0 }), { name: 'RangeError' });
  assert.equal((await qa({ question: 'Why?', context: CONTEXT })).answer.length > 0, true); // still usable
});

test('truncation: absolute-position models default to max_position_embeddings; relative-position models have no limit', { skip }, async () => {
  const bert = await taggingModel('bert-token-classification', {});
  const deberta = await taggingModel('deberta-v2-token-classification', {});
  assert.equal(positionLimit(bert), 64);
  assert.equal(positionLimit(deberta), null); // position_biased_input false: DeBERTa-v3-like
  const long = 'Anna went to Rome and Madrid and Oslo. '.repeat(12); // ~120 tokens
  const ner = pipeline('ner', bert);
  await ner(long, { ignoreLabels: [] });
  assert.equal(bert.seen.at(-1)[0].length, 64);
  await ner(long, { ignoreLabels: [], maxLength: 20 });
  assert.equal(bert.seen.at(-1)[0].length, 20);
  await assert.rejects(ner(long, { truncation: false }), { name: 'RangeError', message: /^ner: the input has \d+ tokens, more than the model's 64 positions \(max_position_embeddings\); pass truncation: true/ });
  await assert.rejects(ner(long, { maxLength: 100 }), { name: 'RangeError', message: "ner: maxLength: 100 is more than the model's 64 positions (max_position_embeddings)" });
  const nerD = pipeline('ner', deberta);
  await nerD(long);
  assert.ok(deberta.seen.at(-1)[0].length > 100);
  await nerD(long, { maxLength: 30 });
  assert.equal(deberta.seen.at(-1)[0].length, 30);
});

test('bad inputs to the task pipelines are TypeErrors / Errors naming the option and what was expected', { skip }, async () => {
  const ner = pipeline('ner', await taggingModel('bert-token-classification', {}));
  await assert.rejects(ner(TEXT, { aggregationStrategy: 'mean' }), { name: 'Error', message: "ner: aggregationStrategy: expected one of 'none', 'simple', 'first', 'average', 'max', got \"mean\"" });
  await assert.rejects(ner(TEXT, { ignoreLabels: 'O' }), { name: 'TypeError', message: 'ner: ignoreLabels: expected an array of strings, got "O"' });
  await assert.rejects(ner(TEXT, { ignoreLabels: ['O', 1] }), { name: 'TypeError', message: 'ner: ignoreLabels[1]: expected a string, got 1' });
  await assert.rejects(ner(42), { name: 'TypeError', message: 'ner: input: expected a string or a non-empty array of strings, got 42' });
  assert.throws(() => pipeline('fill-mask', ner.model), { name: 'Error', message: 'fill-mask: the checkpoint has a token-classification head; this task needs a masked-LM head (…ForMaskedLM)' });
  assert.throws(() => pipeline('summarization', ner.model), { name: 'Error', message: /^pipeline: task: expected one of 'feature-extraction', .*'ner', 'sentiment-analysis', got "summarization"/ });
  assert.equal((await ner(TEXT)).length >= 0, true);
});

/** A masked-LM model whose logits at every mask favour the tokens given (log-probabilities). */
async function mlmModel(caseName, favourite) {
  const c = loadTaskCase(caseName);
  const tokenizer = await caseTokenizer(c);
  const V = c.config.vocab_size;
  return {
    tokenizer,
    config: c.config,
    info: standInInfo(c.config),
    labels: null,
    head: { task: 'fill-mask', labels: null },
    forward(inputs, { logitsAt }) {
      const data = new Float32Array(logitsAt.length * V);
      logitsAt.forEach((_, p) => Object.entries(favourite).forEach(([t, x]) => (data[p * V + tokenizer.token_to_id(t)] = x)));
      return { logits: { data, dims: [logitsAt.length, V] } };
    },
  };
}

test('fill-mask: every mask of a text gets its own list (sequences keep the other masks); targets are looked up as HF does', { skip }, async () => {
  const fill = pipeline('fill-mask', await mlmModel('bert-fill-mask', { city: 12, river: 11 }));
  const one = await fill('Paris is the [MASK] of France.', { topK: 2 });
  assert.deepEqual(one.map((r) => [r.token_str, r.sequence]), [['city', 'paris is the city of france.'], ['river', 'paris is the river of france.']]);
  const two = await fill('The [MASK] flows through the [MASK].', { topK: 1 });
  assert.equal(two.length, 2);
  assert.deepEqual(two.map((r) => r[0].sequence), ['[CLS] the city flows through the [MASK]. [SEP]', '[CLS] the [MASK] flows through the city. [SEP]']);
  // 'River' is not in the lower-case vocabulary: its first piece 'river' is used; duplicates count once
  const t = await fill('Paris is the [MASK] of France.', { targets: ['River', 'river', 'city'] });
  assert.deepEqual(t.map((r) => r.token_str), ['city', 'river']);
  const spm = pipeline('fill-mask', await mlmModel('deberta-v2-fill-mask', { '\u2581city': 5 }));
  const s = await spm('Paris is the [MASK] of France.', { targets: 'city', topK: 3 });
  assert.deepEqual(s.map((r) => [r.token_str, r.sequence]), [['city', 'Paris is the city of France.']]);
});

test('fill-mask: an input without the mask token, or targets that give no token, are clear Errors', { skip }, async () => {
  const fill = pipeline('fill-mask', await mlmModel('bert-fill-mask', { city: 12 }));
  await assert.rejects(fill('Paris is the capital of France.'), { name: 'Error', message: 'fill-mask: the input "Paris is the capital of France." has no mask token: expected [MASK] where the word to predict goes' });
  await assert.rejects(fill(['a [MASK] b', 'no mask here']), { name: 'Error', message: /^fill-mask: input\[1\] "no mask here" has no mask token/ });
  await assert.rejects(fill('a [MASK] b', { targets: [''] }), { name: 'Error', message: 'fill-mask: targets: none of Array(1) gives a token of the vocabulary' });
  await assert.rejects(fill('a [MASK] b', { targets: 3 }), { name: 'TypeError', message: 'fill-mask: targets: expected a string or a non-empty array of strings, got 3' });
  await assert.rejects(fill('a [MASK] b', { topK: 1.5 }), { name: 'RangeError', message: 'fill-mask: topK: expected a positive integer, got 1.5' });
  assert.equal((await fill('a [MASK] b'))[0].token_str, 'city');
});

test('text-classification: output shapes follow HF (a text → [best], a pair → best, a list → one best each; topK → sorted lists)', { skip }, async () => {
  const c = loadTaskCase('deberta-v2-text-pair-classification');
  const tokenizer = await caseTokenizer(c);
  const labels = ['contradiction', 'neutral', 'entailment'];
  const model = {
    tokenizer, config: c.config, info: { modelType: 'deberta-v2' }, labels, head: { task: 'text-classification', labels },
    forward({ inputIds }) {
      const data = new Float32Array(inputIds.length * 3);
      inputIds.forEach((ids, b) => data.set([0, ids.length / 10, 1], b * 3));
      return { logits: { data, dims: [inputIds.length, 3] } };
    },
  };
  const classify = pipeline('text-classification', model);
  const a = await classify('a cat');
  assert.ok(Array.isArray(a) && a.length === 1 && a[0].label === 'entailment');
  const b = await classify({ text: 'a cat', textPair: 'a dog' });
  assert.equal(b.label, 'entailment');
  const list = await classify(['a cat', { text: 'a cat', textPair: 'a dog' }]);
  assert.ok(list.every((r) => !Array.isArray(r) && r.label === 'entailment'));
  const all = await classify(['a cat'], { topK: null, functionToApply: 'none' });
  assert.deepEqual(all[0].map((r) => r.label), ['entailment', 'neutral', 'contradiction']);
  assert.equal(all[0][0].score, 1);
  const sig = await classify('a cat', { topK: 1, functionToApply: 'sigmoid' });
  assert.ok(Math.abs(sig[0].score - 1 / (1 + Math.exp(-1))) < 1e-7);
  await assert.rejects(classify('a', { functionToApply: 'relu' }), { name: 'Error', message: "text-classification: functionToApply: expected 'sigmoid', 'softmax' or 'none', got \"relu\"" });
  await assert.rejects(classify({ text: 'a', textPair: 3 }), { name: 'TypeError', message: 'text-classification: textPair: expected a string, got 3' });
});
