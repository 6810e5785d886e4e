// The lab (web/lab.js): real training runs in the lab Worker on small configurations — the loss
// falls and the model generalises on shift-k with Shaw positions, runs are bitwise reproducible,
// the SIMD and scalar builds agree, evaluation and attention have the documented shapes, bad options
// fail with the package's error classes before any Worker starts, AbortSignal stops training, and
// importing relpos starts no Worker (the lab module loads only on lab.train).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';

import { lab } from '../../web/index.js';
import labDefault, { DEFAULTS, SCHEMES, TASKS } from '../../web/lab.js';
import { simdSupported } from '../../web/loader.js';
import { ROOT } from './helpers.mjs';

const SMALL = { trainLength: 6, steps: 24, batch: 8, model: { dim: 16, layers: 2, heads: 2 }, k: 2, symbols: 5 };
// Learns shift-2 on length 8 in 120 steps (≈ 1–3 s): loss ≈ 2.09 → < 0.1, accuracy 1.0 at L and 2L.
const SHAW = { task: 'shift-k', scheme: 'shaw', trainLength: 8, steps: 120, batch: 32, k: 2, model: { dim: 32, layers: 2, heads: 4 } };

/** Workers started in this process while fn runs (process 'worker' events), and fn's result or error. */
async function countWorkers(fn) {
  const workers = [];
  const listener = (w) => workers.push(w);
  process.on('worker', listener);
  try {
    return { value: await fn(), workers };
  } catch (error) {
    return { error, workers };
  } finally {
    process.off('worker', listener);
  }
}

const exited = (worker) => new Promise((r) => (worker.threadId === -1 ? r() : worker.once('exit', r)));

test('the lab exports its tasks, schemes and defaults, the same object from relpos and relpos/lab', () => {
  assert.equal(labDefault, lab);
  assert.deepEqual(TASKS, ['shift-k', 'reverse', 'count-so-far', 'bracket-depth']);
  assert.deepEqual(SCHEMES, ['none', 'sinusoidal', 'learned', 'alibi', 't5', 'rope', 'shaw', 'deberta']);
  assert.deepEqual(DEFAULTS, { task: 'shift-k', k: 3, symbols: 8, trainLength: 16, steps: 300, batch: 32, model: { dim: 64, layers: 2, heads: 4 }, lr: 3e-3, seed: 1 });
  assert.equal(lab.TASKS, TASKS);
});

test('importing relpos starts no worker and loads no lab module until lab.train is called', () => {
  const script = `
    let workers = 0;
    process.on('worker', () => ++workers);
    const { lab } = await import(${JSON.stringify(resolve(ROOT, 'web/index.js'))});
    const rp = await (await import(${JSON.stringify(resolve(ROOT, 'web/index.js'))})).init();
    await new Promise((r) => setTimeout(r, 200));
    const before = workers;
    const run = await lab.train({ scheme: 'none', trainLength: 4, steps: 2, batch: 2, k: 1, model: { dim: 8, layers: 1, heads: 1 } });
    run.dispose();
    rp.dispose();
    console.log(JSON.stringify({ before, after: workers, lab: typeof lab.train }));`;
  const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }));
  assert.deepEqual(out, { before: 0, after: 1, lab: 'function' });
});

test('shift-k with Shaw positions: the loss falls and evaluation at L and 2L is near perfect; progress is reported', async () => {
  const progress = [];
  const run = await lab.train({ ...SHAW, progressEvery: 25, onProgress: (p) => progress.push(p) });
  try {
    assert.ok(run.losses instanceof Float32Array && run.losses.length === 120);
    const head = run.losses.slice(0, 5).reduce((a, b) => a + b) / 5;
    const tail = run.losses.slice(-10).reduce((a, b) => a + b) / 10;
    assert.ok(head > 1.8 && tail < 0.3, `loss ${head} → ${tail}`);
    assert.deepEqual(progress.map((p) => p.step), [25, 50, 75, 100, 120], 'progress steps (always once at the end)');
    for (const p of progress) {
      assert.equal(p.steps, 120);
      assert.equal(p.loss, run.losses[p.step - 1]);
      assert.ok(p.learningRate > 0 && p.learningRate <= 3e-3 && p.seconds >= 0);
    }
    assert.ok(run.seconds > 0 && run.flops > 0);
    assert.equal(run.config.causal, true);
    assert.equal(run.config.maxLength, 32);
    assert.equal(run.config.build, simdSupported() ? 'simd' : 'scalar');
    assert.equal(typeof run.config.onProgress, 'undefined');

    const [atL, at2L] = await run.evaluate([8, 16], { batches: 4 });
    assert.ok(atL.accuracy > 0.95, `accuracy at L ${atL.accuracy}`);
    assert.ok(at2L.accuracy > 0.9, `accuracy at 2L ${at2L.accuracy}`);
    for (const e of [atL, at2L]) {
      assert.equal(e.sequences, 4 * 32);
      assert.ok(e.perPosition instanceof Float64Array && e.perPosition.length === e.length);
      assert.ok(Number.isNaN(e.perPosition[0]) && Number.isNaN(e.perPosition[1]), 'positions < k have no label: NaN');
      for (let i = 2; i < e.length; ++i) assert.ok(e.perPosition[i] >= 0 && e.perPosition[i] <= 1);
      assert.ok(e.perSequence >= 0 && e.perSequence <= e.accuracy + 1e-12);
    }

    const a = await run.attention({ length: 12, seed: 3 });
    assert.equal(a.length, 12);
    assert.equal(a.layers, 2);
    assert.equal(a.heads, 4);
    assert.deepEqual([a.tokens, a.labels, a.predictions].map((x) => [x.constructor.name, x.length]), Array(3).fill(['Int32Array', 12]));
    assert.deepEqual(Array.from(a.labels.slice(0, 2)), [-1, -1]);
    assert.deepEqual(Array.from(a.labels.slice(2)), Array.from(a.tokens.slice(0, 10)), 'shift-2 labels');
    assert.equal(a.maps.length, 8);
    for (const map of a.maps) {
      assert.ok(map instanceof Float32Array && map.length === 144);
      for (let i = 0; i < 12; ++i) {
        let sum = 0;
        for (let j = 0; j < 12; ++j) {
          sum += map[i * 12 + j];
          if (j > i) assert.equal(map[i * 12 + j], 0, `causal: map[${i}, ${j}]`);
        }
        assert.ok(Math.abs(sum - 1) < 1e-5, `row ${i} sums to ${sum}`);
      }
    }
    const again = await run.attention({ length: 12, seed: 3 });
    assert.deepEqual(again.maps, a.maps, 'the same sample seed gives the same maps');
  } finally {
    run.dispose();
  }
});

test('the same seed gives bitwise identical losses; another seed does not', async () => {
  const runs = [];
  for (const seed of [5, 5, 6]) {
    const run = await lab.train({ ...SMALL, scheme: 'rope', seed });
    runs.push(run.losses);
    run.dispose();
  }
  assert.deepEqual(new Uint8Array(runs[0].buffer), new Uint8Array(runs[1].buffer));
  assert.notDeepEqual(runs[0], runs[2]);
});

test('the SIMD and scalar builds train to the same losses within float rounding', { skip: !simdSupported() && 'no SIMD here' }, async () => {
  const losses = {};
  for (const build of ['simd', 'scalar']) {
    const run = await lab.train({ ...SMALL, scheme: 't5', build });
    assert.equal(run.config.build, build);
    losses[build] = run.losses;
    run.dispose();
  }
  let worst = 0;
  for (let i = 0; i < losses.simd.length; ++i) worst = Math.max(worst, Math.abs(losses.simd[i] - losses.scalar[i]));
  assert.ok(worst < 1e-3, `max |simd − scalar| = ${worst}`);
});

const NATIVE = resolve(ROOT, 'build/native/relpos_lab_native');
test('the lab reproduces relpos_lab_native\'s tail loss and accuracies', { skip: !existsSync(NATIVE) && `${NATIVE} is not built` }, async () => {
  const args = ['--task', 'shift-k', '--k', '2', '--symbols', '5', '--len', '6', '--steps', '40', '--batch', '8', '--d', '16', '--heads', '2', '--layers', '2', '--seed', '3', '--schemes', 'alibi', '--eval-batches', '4'];
  const line = execFileSync(NATIVE, args, { encoding: 'utf8' }).split('\n').find((l) => l.startsWith('alibi'));
  const [, loss, acc1, acc2, acc4] = line.trim().split(/\s+/).map(Number);
  const run = await lab.train({ ...SMALL, steps: 40, seed: 3, scheme: 'alibi' });
  try {
    const tail = run.losses.slice(-20).reduce((a, b) => a + b) / 20;
    assert.ok(Math.abs(tail - loss) < 2e-3, `tail loss ${tail} vs native ${loss}`);
    const evals = await run.evaluate([6, 12, 24], { batches: 4 });
    evals.forEach((e, i) => assert.ok(Math.abs(e.accuracy - [acc1, acc2, acc4][i]) < 0.02, `accuracy at ${e.length}: ${e.accuracy} vs native ${[acc1, acc2, acc4][i]}`));
  } finally {
    run.dispose();
  }
});

test('learned positions with maxLength beyond trainLength evaluate up to maxLength and no further', async () => {
  const run = await lab.train({ ...SMALL, scheme: 'learned', maxLength: 30 });
  try {
    assert.equal(run.config.maxLength, 30);
    const evals = await run.evaluate([6, 30], { batches: 2 });
    assert.deepEqual(evals.map((e) => e.perPosition.length), [6, 30]);
    const a = await run.attention({ length: 30 });
    assert.equal(a.maps[0].length, 900);
    await assert.rejects(run.evaluate([31]), (e) => e instanceof RangeError && /lengths\[0\].*31.*maxLength 30/.test(e.message));
    await assert.rejects(run.attention({ length: 31 }), (e) => e instanceof RangeError && /length.*maxLength 30/.test(e.message));
  } finally {
    run.dispose();
  }
});

test('reverse is bidirectional: attention reaches keys after the query; count-so-far and bracket-depth train', async () => {
  const run = await lab.train({ ...SMALL, task: 'reverse', scheme: 'alibi' });
  try {
    assert.equal(run.config.causal, false);
    const a = await run.attention({ length: 6 });
    assert.ok(a.maps.every((m) => m[1] > 0), 'query 0 attends to key 1');
    const [e] = await run.evaluate([6], { batches: 1 });
    assert.ok(e.perPosition.every((x) => !Number.isNaN(x)), 'every position of reverse is labelled');
  } finally {
    run.dispose();
  }
  for (const task of ['count-so-far', 'bracket-depth']) {
    const r = await lab.train({ ...SMALL, task, scheme: 'deberta', steps: 4 });
    assert.ok(r.losses.every(Number.isFinite), task);
    r.dispose();
  }
});

const BAD = [
  [null, TypeError, /options: expected an object/],
  [{ scheme: 'rotary' }, Error, /scheme: expected one of 'none'.*'deberta', got "rotary"/],
  [{ scheme: 'rope', step: 5 }, TypeError, /^lab\.train: options: unknown option 'step' \(did you mean 'steps'\?\)/],
  [{ scheme: 'rope', model: { dims: 32 } }, TypeError, /^lab\.train: model: unknown option 'dims' \(did you mean 'dim'\?\)/],
  [{}, TypeError, /scheme/],
  [{ scheme: 'shaw', task: 'copy' }, Error, /task: expected one of 'shift-k'.*'bracket-depth', got "copy"/],
  [{ scheme: 'shaw', task: 3 }, TypeError, /task/],
  [{ scheme: 'shaw', trainLength: '16' }, TypeError, /trainLength/],
  [{ scheme: 'shaw', trainLength: 0 }, RangeError, /trainLength/],
  [{ scheme: 'shaw', trainLength: 1.5 }, RangeError, /trainLength/],
  [{ scheme: 'shaw', steps: -1 }, RangeError, /steps/],
  [{ scheme: 'shaw', batch: 0 }, RangeError, /batch/],
  [{ scheme: 'shaw', model: [] }, TypeError, /model/],
  [{ scheme: 'shaw', model: { dim: 30, heads: 4 } }, RangeError, /model\.dim: 30 is not divisible by model\.heads 4/],
  [{ scheme: 'rope', model: { dim: 12, heads: 4 } }, RangeError, /model\.dim: rope needs an even head size/],
  [{ scheme: 'shaw', model: { heads: 0 } }, RangeError, /model\.heads/],
  [{ scheme: 'shaw', model: { layers: 65 } }, RangeError, /model\.layers/],
  [{ scheme: 'shaw', trainLength: 32, maxLength: 16 }, RangeError, /trainLength: 32 exceeds maxLength 16/],
  [{ scheme: 'shaw', maxLength: 5000 }, RangeError, /maxLength/],
  [{ scheme: 'shaw', k: 16, trainLength: 16 }, RangeError, /trainLength.*k = 16/],
  [{ scheme: 'shaw', symbols: 1 }, RangeError, /symbols/],
  [{ scheme: 'shaw', lr: 0 }, RangeError, /lr/],
  [{ scheme: 'shaw', lr: '1e-3' }, TypeError, /lr/],
  [{ scheme: 'shaw', seed: -1 }, RangeError, /seed/],
  [{ scheme: 'shaw', build: 'gpu' }, Error, /build: expected one of 'simd', 'scalar'/],
  [{ scheme: 'shaw', progressEvery: 0 }, RangeError, /progressEvery/],
  [{ scheme: 'shaw', onProgress: 'log' }, TypeError, /onProgress: expected a function/],
  [{ scheme: 'shaw', signal: {} }, TypeError, /signal: expected an AbortSignal/],
  [{ scheme: 'deberta', batch: 2, trainLength: 8 }, RangeError, /batch: deberta needs batch · trainLength ≥ 32/],
  [{ scheme: 'shaw', batch: 4096, trainLength: 4096, maxLength: 4096 }, RangeError, /lab\.train: needs \d+ bytes of WebAssembly memory/],
];

test('every bad option rejects with the package\'s error class and a message naming the option, before any worker starts', async () => {
  const { workers } = await countWorkers(async () => {
    for (const [options, cls, pattern] of BAD)
      await assert.rejects(lab.train(options), (e) => {
        assert.equal(e.constructor, cls, `${JSON.stringify(options)}: ${e.constructor.name}: ${e.message}`);
        assert.match(e.message, pattern);
        assert.match(e.message, /^lab\.train: /);
        return true;
      });
  });
  assert.equal(workers.length, 0, 'no worker started');
});

test('a C++ error inside the worker reaches the caller as the same class and message', async () => {
  // lab.js never sends a configuration the C++ session rejects, so talk to the worker directly.
  const worker = new Worker(new URL('../../web/lab-worker.js', import.meta.url));
  try {
    const messages = [];
    const error = await new Promise((resolveError, reject) => {
      worker.on('error', reject);
      worker.on('exit', (code) => reject(new Error(`the worker exited (${code}) before reporting an error`)));
      worker.on('message', (m) => {
        messages.push(m.type);
        if (m.type === 'ready')
          worker.postMessage({ type: 'start', progressEvery: 1, config: { ...SMALL, task: 'shift-k', scheme: 'rope', seed: 1, lr: 1e-3, maxLength: 24, build: 'scalar', model: { dim: 12, layers: 1, heads: 4 } } });
        if (m.type === 'error') resolveError(m);
        if (m.type === 'trained') reject(new Error('the worker trained a configuration the session should reject'));
      });
    });
    assert.deepEqual(messages, ['ready', 'error']);
    assert.equal(error.name, 'RangeError');
    assert.match(error.message, /^model\.dim: rope needs an even head size, got model\.dim \/ model\.heads = 3$/);
  } finally {
    await worker.terminate();
  }
});

test('an AbortSignal aborted before or during training rejects with AbortError and terminates the worker; lab.train works afterwards', async () => {
  const before = await countWorkers(() => lab.train({ ...SMALL, scheme: 'shaw', signal: AbortSignal.abort() }));
  assert.equal(before.error?.name, 'AbortError');
  assert.ok(before.error instanceof DOMException);
  assert.equal(before.workers.length, 0, 'no worker started for an already aborted signal');

  const controller = new AbortController();
  let calls = 0;
  const during = await countWorkers(() =>
    lab.train({
      ...SMALL,
      scheme: 'shaw',
      steps: 100000,
      progressEvery: 2,
      signal: controller.signal,
      onProgress: ({ step }) => {
        ++calls;
        if (step >= 6) controller.abort();
      },
    }),
  );
  assert.equal(during.error?.name, 'AbortError');
  assert.ok(calls >= 3 && calls < 1000, `onProgress calls: ${calls}`);
  assert.equal(during.workers.length, 1);
  await exited(during.workers[0]);

  const run = await lab.train({ ...SMALL, scheme: 'shaw', steps: 3 });
  assert.equal(run.losses.length, 3);
  run.dispose();
});

test('dispose terminates the worker and later calls reject saying the run was disposed', async () => {
  const { value: run, workers } = await countWorkers(() => lab.train({ ...SMALL, scheme: 'none', steps: 2 }));
  const pending = run.evaluate([6]);
  run.dispose();
  run.dispose(); // twice is harmless
  await assert.rejects(pending, /disposed/);
  await assert.rejects(run.evaluate([6]), (e) => e.constructor === Error && /lab: this run was disposed/.test(e.message));
  await assert.rejects(run.attention(), /disposed/);
  await exited(workers[0]);
});
