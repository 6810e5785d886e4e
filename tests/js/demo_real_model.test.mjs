// The Real model section's and the task views' pure helpers: cosine matrix and nearest neighbours
// (demo/lib/similarity.js), cutting a text into marked pieces for entities and answer spans
// (demo/lib/spans.js), measureAsync's contract (demo/lib/timing.js), and the corpus text.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { cosineMatrix, nearest } from '../../demo/lib/similarity.js';
import { markPieces } from '../../demo/lib/spans.js';
import { measureAsync } from '../../demo/lib/timing.js';
import { CORPUS, DEFAULT_SENTENCES, EXAMPLE_QUERIES, PARAPHRASE_PAIRS } from '../../demo/model/sentences.js';

test('cosineMatrix: symmetric, 1 on the diagonal, the cosine of each pair whatever the norms', () => {
  const rows = Float32Array.from([1, 0, 0, /**/ 0, 2, 0, /**/ 3, 3, 0]);
  const m = cosineMatrix(rows, 3, 3);
  const at = (i, j) => m[i * 3 + j];
  for (let i = 0; i < 3; i++) assert.ok(Math.abs(at(i, i) - 1) < 1e-6);
  assert.equal(at(0, 1), 0);
  assert.ok(Math.abs(at(0, 2) - Math.SQRT1_2) < 1e-6);
  assert.equal(at(2, 1), at(1, 2));
});

test('nearest: the k best rows by cosine, best first, ties by index', () => {
  const corpus = Float32Array.from([1, 0, /**/ 0, 1, /**/ 1, 1, /**/ -1, 0, /**/ 2, 0]);
  const r = nearest(Float32Array.from([1, 0.1]), corpus, 5, 2, 3);
  assert.deepEqual(r.map((x) => x.index), [0, 4, 2]);
  assert.ok(Math.abs(r[0].cosine - r[1].cosine) < 1e-12);
  assert.ok(r[1].cosine > r[2].cosine);
  assert.equal(nearest(Float32Array.from([0, 1]), corpus, 5, 2, 10).length, 5);
});

test('markPieces: plain and marked pieces in order, joining back to the text', () => {
  const text = 'Sarah lives in London.';
  const { pieces, skipped } = markPieces(text, [{ start: 15, end: 21, label: 'LOC' }, { start: 0, end: 5, label: 'PER' }]);
  assert.deepEqual(pieces.map((p) => [p.text, p.span?.label ?? null]), [['Sarah', 'PER'], [' lives in ', null], ['London', 'LOC'], ['.', null]]);
  assert.equal(pieces.map((p) => p.text).join(''), text);
  assert.deepEqual(skipped, []);
});

test('markPieces leaves out spans without offsets, empty, out of range or overlapping a kept one', () => {
  const text = 'abcdefgh';
  const bad = [{ start: null, end: null }, { start: 3, end: 3 }, { start: 6, end: 12 }, { start: 2, end: 5 }];
  const { pieces, skipped } = markPieces(text, [{ start: 1, end: 4 }, ...bad]);
  assert.deepEqual(pieces.map((p) => [p.text, !!p.span]), [['a', false], ['bcd', true], ['efgh', false]]);
  assert.equal(skipped.length, bad.length);
  assert.deepEqual(markPieces('', []).pieces, []);
});

test('measureAsync awaits every call and reports median, min, max, runs and calls like measure()', async () => {
  let inFlight = 0, maxInFlight = 0, n = 0;
  const t = await measureAsync(async () => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    // 3 ms, not 1: Node's timer may fire up to ~1 ms early against performance.now() (libuv caches the loop time),
    // and a call measured under runMs is batched (calls > 1)
    await new Promise((r) => setTimeout(r, 3));
    inFlight--;
    return ++n;
  }, { minRuns: 5, maxRuns: 8, minMs: 5, runMs: 1 });
  assert.equal(maxInFlight, 1);
  assert.ok(t.runs >= 5 && t.runs <= 8, `${t.runs} runs`);
  assert.ok(t.min <= t.median && t.median <= t.max && t.min >= 0.5, JSON.stringify(t));
  assert.equal(t.calls, 1);
  assert.equal(t.last, n);
});

test('the built-in text: paraphrase pairs index the defaults, the corpus has 30–60 distinct sentences', () => {
  for (const [a, b] of PARAPHRASE_PAIRS) assert.ok(DEFAULT_SENTENCES[a] && DEFAULT_SENTENCES[b]);
  assert.ok(CORPUS.length >= 30 && CORPUS.length <= 60, `${CORPUS.length}`);
  assert.equal(new Set(CORPUS).size, CORPUS.length);
  assert.ok(EXAMPLE_QUERIES.every((q) => !CORPUS.includes(q)));
});
