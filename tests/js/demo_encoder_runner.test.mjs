// The demo's encoder work under Node (demo/model/run-encoder.js, demo/lib/timing.js): the shared
// timing helper's statistics and run bookkeeping (call counts, not speed), the 256-token input, and
// both paths — a family's checkpoint through rp.loadModel, and the JavaScript-assembled encoder —
// returning what the section shows: tokens, per-layer attention and norms, and timings that carry a
// median inside their min–max and a run count.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as tokenizers from '@huggingface/tokenizers';

import { init } from '../../web/index.js';
import { calibrate, describeTiming, measure, stats } from '../../demo/lib/timing.js';
import { EncoderRunner, LONG_TOKENS } from '../../demo/model/run-encoder.js';

const QUICK = { warmup: 1, minRuns: 5, maxRuns: 5, minMs: 0, runMs: 0.5 };

test('stats: median (mean of the middle two for even counts), min, max, runs', () => {
  assert.deepEqual(stats([5, 1, 3]), { median: 3, min: 1, max: 5, runs: 3 });
  assert.deepEqual(stats([4, 1, 3, 2]), { median: 2.5, min: 1, max: 4, runs: 4 });
  assert.equal(stats([]).runs, 0);
});

test('measure: warm-up, calibration and at least minRuns runs of `calls` calls each; parts per call', () => {
  let n = 0;
  const t = measure(() => (++n, { inner: 2 }), { warmup: 3, minRuns: 6, maxRuns: 6, minMs: 0, runMs: 0.2, parts: (r) => r });
  assert.equal(t.runs, 6);
  assert.ok(t.calls >= 1);
  assert.ok(n >= 3 + 6 * t.calls, `fn ran ${n} times`);
  assert.ok(t.min <= t.median && t.median <= t.max);
  assert.deepEqual(t.parts.inner, { median: 2, min: 2, max: 2, runs: 6, calls: t.calls });
  // a call longer than a run is never batched
  const slow = () => { const s = performance.now(); while (performance.now() - s < 1.5); };
  assert.equal(calibrate(slow, { runMs: 1 }).calls, 1);
  assert.match(describeTiming({ median: 1.234, min: 1.2, max: 1.5, runs: 9, calls: 4 }).runs, /^9 runs × 4 calls$/);
  assert.equal(describeTiming({ median: 1.234, min: 1.2, max: 1.5, runs: 9, calls: 1 }).range, '1.20–1.50');
});

const rp = await init({ simd: true });
const runner = new EncoderRunner(rp, tokenizers);

test(`the long input is exactly ${LONG_TOKENS} tokens, whatever the text`, () => {
  for (const text of ['The cat sat on the mat because it was tired.', 'Zürich, naïve café — 3.14!', '', 'supercalifragilistic']) {
    const ids = runner.tokenizer.encode(runner.inputText(text, 'long')).ids;
    assert.equal(ids.length, LONG_TOKENS, JSON.stringify(text));
  }
  assert.equal(runner.inputText('as typed', 'text'), 'as typed');
});

function checkResult(r, { S, layers, path }) {
  assert.equal(r.path, path);
  assert.equal(r.tokens.length, S);
  assert.deepEqual(r.shape, [S, 64]);
  assert.ok(Array.from(r.hidden).every(Number.isFinite));
  assert.equal(r.layers.length, layers);
  for (const l of r.layers) {
    assert.equal(l.probs.length, 4 * S * S);
    assert.equal(l.norms.length, S);
    assert.ok(l.norms.every((x) => Number.isFinite(x) && x > 0));
  }
  for (const t of Object.values(r.timing)) {
    assert.equal(t.runs, 5);
    assert.ok(t.calls >= 1 && t.min <= t.median && t.median <= t.max, JSON.stringify(t));
  }
}

test('a scheme with a family runs its checkpoint through rp.loadModel; a scheme without runs the JS encoder', async () => {
  const text = 'The cat sat on the mat because it was tired.';
  const bloom = await runner.run({ text, scheme: 'alibi', family: 'bloom', layers: 2, length: 'text', timing: QUICK });
  checkResult(bloom, { S: 13, layers: 2, path: 'model' });
  assert.equal(bloom.modelType, 'bloom');
  assert.equal(bloom.causal, true);
  assert.deepEqual(Object.keys(bloom.timing), ['forward']);
  const t5 = await runner.run({ text, scheme: 't5', family: 't5', layers: 3, length: 'long', timing: QUICK });
  checkResult(t5, { S: LONG_TOKENS, layers: 3, path: 'model' });
  const huang = await runner.run({ text, scheme: 'huang', family: null, layers: 2, length: 'long', timing: QUICK });
  checkResult(huang, { S: LONG_TOKENS, layers: 2, path: 'js' });
  assert.deepEqual(Object.keys(huang.timing), ['forward', 'attention']);
  await assert.rejects(runner.run({ text, scheme: 't5', family: 'bloom', layers: 2, length: 'text', timing: QUICK }), /does not implement/);
});

test('fp32 and q8 of the same checkpoint: q8 holds fewer weight bytes, and its pooled output stays close where another model’s does not', async () => {
  const { pooledCosine } = await import('../../demo/lib/pooled-cosine.js');
  const { makeCheckpoint } = await import('../../demo/model/checkpoints.js');
  const text = 'The cat sat on the mat because it was tired.';
  const pooled = (a, b) => pooledCosine(a.hidden, b.hidden, { dims: [1, ...a.shape], mask: a.attentionMask })[0];
  for (const [scheme, family] of [['learned-absolute', 'bert-absolute'], ['alibi', 'bloom'], ['deberta', 'deberta-v2']]) {
    const fp32 = await runner.run({ text, scheme, family, layers: 2, length: 'text', dtype: 'fp32', timing: QUICK });
    const q8 = await runner.run({ text, scheme, family, layers: 2, length: 'text', dtype: 'q8', timing: QUICK });
    checkResult(q8, { S: 13, layers: 2, path: 'model' });
    assert.deepEqual([fp32.dtype, q8.dtype], ['fp32', 'q8'], family);
    assert.ok(q8.weightBytes > 0 && q8.weightBytes < 0.8 * fp32.weightBytes, `${family}: ${q8.weightBytes} vs ${fp32.weightBytes}`);
    assert.deepEqual(Array.from(q8.attentionMask), new Array(13).fill(1));
    const close = pooled(q8, fp32);
    assert.ok(close >= 0.99, `${family}: q8 vs fp32 pooled cosine ${close}`);
    assert.ok(Array.from(q8.hidden).some((x, i) => x !== fp32.hidden[i]), `${family}: q8 gave fp32's outputs bit for bit`);
    // what a broken q8 would look like: another random model of the family (seed 7) fails the bound
    const other = await rp.loadModel(makeCheckpoint(family, { layers: 2, seed: 7 }), { tokenizers });
    const ids = Array.from(other.forward({ text }).inputIds.data);
    const hidden = other.forward({ inputIds: [ids] }).lastHiddenState.data;
    other.dispose();
    const far = pooled({ ...fp32, hidden }, fp32);
    assert.ok(far < 0.99, `${family}: another model's pooled cosine ${far} should fail the 0.99 bound`);
  }
  // both dtypes stay loaded for the current family; a new family replaces them
  assert.deepEqual([...runner.loaded.keys()].sort(), ['fp32', 'q8']);
});
