// pipeline('question-answering', model): extractive answers, as Hugging Face's
// QuestionAnsweringPipeline does with a fast tokenizer (4.34: preprocess with
// return_overflowing_tokens, select_starts_ends, decode_spans, get_indices with align_to_words).
//   - Windows: [CLS] question [SEP] context[k·step … k·step + cap) [SEP], cap = maxSeqLen − question
//     − special tokens, step = cap − docStride (docStride is the overlap), until one reaches the end.
//   - Per window: logits outside the context (question, special tokens except [CLS], padding) are
//     set to −10000; start and end are softmaxed over the window; the null score is
//     p_start[CLS]·p_end[CLS] (minimum over windows); spans s ≤ e < s + maxAnswerLen of context
//     tokens score p_start[s]·p_end[e]; each window gives its best topK.
//   - Spans become characters through the tokenizer's offsets (alignToWords: whole words).
import { checkBool, checkKnownOptions, describe } from '../validation.js';
import { batchSizeOption, checkPositiveInt, forwardBatched, limitSource, positionLimit, row2, softmax } from './batching.js';
import { checkTopK, requireTokenizer, specialToken } from './common.js';
import { assemble, encodeSegment, specialCount } from './encoding.js';

const MASKED = -10000;

/** Context tokens [from, to) of a segment. */
function slice(seg, from, to) {
  return { ids: seg.ids.slice(from, to), tokens: seg.tokens.slice(from, to), offsets: seg.offsets.slice(from, to), words: seg.words.slice(from, to) };
}

/**
 * The windows of one (question, context): [{ start, stop }] ranges of context tokens. Throws when
 * the question leaves no room or the stride is not smaller than a window.
 */
export function contextWindows(questionLength, contextLength, maxSeqLen, docStride, specials, task = 'question-answering') {
  if (questionLength + contextLength + specials <= maxSeqLen) return [{ start: 0, stop: contextLength }];
  const cap = maxSeqLen - specials - questionLength;
  if (cap <= 0)
    throw new RangeError(
      `${task}: the question has ${questionLength} tokens, which with ${specials} special tokens leaves no room for the context in maxSeqLen ${maxSeqLen}: ask a shorter question or raise maxSeqLen`,
    );
  if (docStride >= cap)
    throw new RangeError(
      `${task}: docStride ${docStride} (the overlap between windows) must be less than the ${cap} context tokens a window holds (maxSeqLen ${maxSeqLen} − ${questionLength} question tokens − ${specials} special tokens)`,
    );
  const step = cap - docStride;
  const out = [];
  for (let start = 0; ; start += step) {
    const stop = Math.min(start + cap, contextLength);
    out.push({ start, stop });
    if (stop === contextLength) break;
  }
  return out;
}

/**
 * Span candidates of one window: { starts, ends, scores } (best first, at most topK) and the null
 * score. desired[l]: token l may be in an answer (context tokens); cls: index of [CLS] or -1.
 */
export function selectSpans(startLogits, endLogits, desired, cls, { topK, maxAnswerLen }) {
  const keep = (l) => desired[l] || l === cls;
  const ps = softmax(startLogits.map((x, l) => (keep(l) ? x : MASKED)));
  const pe = softmax(endLogits.map((x, l) => (keep(l) ? x : MASKED)));
  const nullScore = ps[0] * pe[0];
  const spans = [];
  for (let s = 0; s < ps.length; ++s) {
    if (!desired[s] || s === cls) continue;
    for (let e = s; e < Math.min(ps.length, s + maxAnswerLen); ++e) {
      if (!desired[e] || e === cls) continue;
      spans.push({ s, e, score: ps[s] * pe[e] });
    }
  }
  spans.sort((a, b) => b.score - a.score || a.s - b.s || a.e - b.e);
  return { spans: spans.slice(0, topK), nullScore };
}

/**
 * Character span of tokens s…e of an assembled window (alignToWords: extended to whole words).
 * Tokens with empty spans (whitespace: a lone byte-level 'Ġ' or SentencePiece '▁', placed at the
 * next word) do not stretch it over the whitespace; a span of such tokens only is empty.
 */
export function characterSpan(win, s, e, alignToWords) {
  let lo = s;
  let hi = e;
  if (alignToWords) {
    const inWord = (l, w) => l >= 0 && l < win.words.length && win.sequenceIds[l] === 1 && win.words[l] === w;
    while (inWord(lo - 1, win.words[s])) --lo;
    while (inWord(hi + 1, win.words[e])) ++hi;
  }
  let start = Infinity;
  let end = -Infinity;
  for (let l = lo; l <= hi; ++l) {
    const [a, b] = win.offsets[l];
    if (b > a) {
      start = Math.min(start, a);
      end = Math.max(end, b);
    }
  }
  return start <= end ? [start, end] : [win.offsets[s][0], win.offsets[s][0]];
}

function normalizeInputs(args, task) {
  let [first, second, third] = args;
  let options;
  let examples;
  let single;
  if (typeof first === 'string' || typeof second === 'string') {
    examples = [{ question: first, context: second }];
    single = true;
    options = third;
  } else {
    single = !Array.isArray(first);
    examples = single ? [first] : first;
    options = second;
    if (!Array.isArray(examples) || examples.length === 0)
      throw new TypeError(`${task}: expected { question, context }, an array of them, or (question, context), got ${describe(first)}`);
  }
  examples.forEach((ex, i) => {
    const where = single ? task : `${task}: input[${i}]`;
    if (ex === null || typeof ex !== 'object') throw new TypeError(`${where}: expected { question, context }, got ${describe(ex)}`);
    for (const key of ['question', 'context']) {
      if (typeof ex[key] !== 'string') throw new TypeError(`${where}: ${key}: expected a string, got ${describe(ex[key])}`);
      if (ex[key].trim() === '') throw new Error(`${where}: ${key} is empty: expected a non-empty ${key}`);
    }
  });
  return { examples, single, options: options ?? {} };
}

function checkOptions(model, options, task) {
  checkKnownOptions(options, `${task}: options`, ['topK', 'maxAnswerLen', 'maxSeqLen', 'docStride', 'handleImpossibleAnswer', 'alignToWords', 'batchSize']);
  const topK = checkTopK(options.topK ?? 1, task);
  const maxAnswerLen = checkPositiveInt(options.maxAnswerLen ?? 15, `${task}: maxAnswerLen`);
  const handleImpossibleAnswer = checkBool(options.handleImpossibleAnswer ?? false, `${task}: handleImpossibleAnswer`);
  const alignToWords = checkBool(options.alignToWords ?? true, `${task}: alignToWords`);
  const limit = positionLimit(model);
  const tokMax = model.tokenizer.config?.model_max_length;
  const defaultLen = Math.min(384, limit ?? Infinity, typeof tokMax === 'number' && tokMax > 0 ? tokMax : Infinity);
  const maxSeqLen = options.maxSeqLen === undefined || options.maxSeqLen === null ? defaultLen : checkPositiveInt(options.maxSeqLen, `${task}: maxSeqLen`);
  if (limit !== null && maxSeqLen > limit) throw new RangeError(`${task}: maxSeqLen: ${maxSeqLen} is more than the model's ${limit} positions ${limitSource(model)}`);
  const docStride =
    options.docStride === undefined || options.docStride === null
      ? Math.min(Math.floor(maxSeqLen / 2), 128)
      : (() => {
          if (typeof options.docStride !== 'number') throw new TypeError(`${task}: docStride: expected a non-negative integer, got ${describe(options.docStride)}`);
          if (!Number.isInteger(options.docStride) || options.docStride < 0) throw new RangeError(`${task}: docStride: expected a non-negative integer, got ${describe(options.docStride)}`);
          return options.docStride;
        })();
  const batchSize = batchSizeOption(options, task);
  return { topK, maxAnswerLen, handleImpossibleAnswer, alignToWords, maxSeqLen, docStride, batchSize };
}

export function questionAnswering(model, task = 'question-answering') {
  return async function answer(...args) {
    const { examples, single, options } = normalizeInputs(args, task);
    requireTokenizer(model, task);
    const o = checkOptions(model, options, task);
    const tokenizer = model.tokenizer;
    const specials = specialCount(tokenizer, true);
    const clsToken = specialToken(tokenizer, 'cls_token');
    const clsId = clsToken === null ? undefined : tokenizer.token_to_id(clsToken);
    const windows = []; // { example, enc }
    examples.forEach((ex, i) => {
      const q = encodeSegment(tokenizer, ex.question);
      const c = encodeSegment(tokenizer, ex.context);
      if (c.ids.length === 0) throw new Error(`${single ? task : `${task}: input[${i}]`}: context has no tokens: expected text the tokenizer does not drop`);
      for (const { start, stop } of contextWindows(q.ids.length, c.ids.length, o.maxSeqLen, o.docStride, specials, task))
        windows.push({ example: i, enc: assemble(tokenizer, q, slice(c, start, stop)) });
    });
    const answers = examples.map(() => []);
    const nullScores = examples.map(() => Infinity);
    await forwardBatched(model, windows.map((w) => w.enc), o.batchSize, { logits: true }, (r, row, k) => {
      if (!r.startLogits || !r.endLogits) throw new Error(`${task}: the model's head did not return startLogits / endLogits (it needs a question-answering head)`);
      const { enc, example } = windows[k];
      const L = enc.ids.length;
      const desired = enc.sequenceIds.map((s) => s === 1);
      const cls = clsId === undefined ? -1 : enc.ids.indexOf(clsId);
      const { spans, nullScore } = selectSpans(row2(r.startLogits, row).slice(0, L), row2(r.endLogits, row).slice(0, L), desired, cls, o);
      nullScores[example] = Math.min(nullScores[example], nullScore);
      const context = examples[example].context;
      for (const { s, e, score } of spans) {
        const [start, end] = characterSpan(enc, s, e, o.alignToWords);
        answers[example].push({ score, start, end, answer: context.slice(start, end) });
      }
    });
    const results = answers.map((list, i) => {
      if (o.handleImpossibleAnswer) list.push({ score: nullScores[i], start: 0, end: 0, answer: '' });
      const top = list.sort((a, b) => b.score - a.score).slice(0, o.topK);
      return top.length === 1 ? top[0] : top;
    });
    return single ? results[0] : results;
  };
}
