// init({ threads }): the threads build (relpos-simd-threads) in Node, results bitwise equal to the
// single-thread SIMD build, the fallback with its readable reason when SharedArrayBuffer is missing
// (a child process deletes it, as a page that is not cross-origin isolated lacks it) or without SIMD,
// and the validation of the option. q8 models (8-bit linear layers over the pool) give the same bits
// on 2 and 3 threads as on the single-thread SIMD build.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { init } from '../../web/index.js';
import { randomArray, ROOT } from './helpers.mjs';

const bitwise = (a, b) =>
  a.length === b.length && Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength)) === 0;

test('threads: 2 runs the threads build on 2 threads, bitwise equal to the single-thread SIMD build', async () => {
  const one = await init();
  const two = await init({ threads: 2 });
  assert.equal(one.threads, 1);
  assert.equal(one.threadsReason, null);
  assert.equal(two.threads, 2);
  assert.equal(two.threadsReason, null);
  assert.equal(two.simd, true);
  // 2 × 3 × 40 × 16 stays under the inline threshold (parallel_for.h kMinParallelWork: one region on the
  // caller); 1 × 4 × 128 × 32 is above it, so the Worker computes slices too
  for (const [batch, heads, seqLen, headDim] of [[2, 3, 40, 16], [1, 4, 128, 32]]) {
    const n = batch * heads * seqLen * headDim;
    const q = randomArray(n, 1), k = randomArray(n, 2), v = randomArray(n, 3);
    const tables = { type: 't5', numBuckets: 8, maxDistance: 16, bidirectional: true, biasTable: randomArray(8 * heads, 4) };
    for (const scheme of [{ type: 'none' }, { type: 'rope' }, { type: 'alibi' }, tables]) {
      const args = { q, k, v, batch, heads, seqLen, headDim, scheme, returnProbs: true };
      const a = one.attention(args), b = two.attention(args);
      assert.ok(bitwise(a.output, b.output), `${scheme.type} ${seqLen}: output`);
      assert.ok(bitwise(a.probs, b.probs), `${scheme.type} ${seqLen}: probs`);
    }
  }
  one.dispose();
  two.dispose();
});

test("threads: 'auto' in Node uses os.availableParallelism(), at most 8", async () => {
  const rp = await init({ threads: 'auto' });
  assert.equal(rp.threads, Math.min(8, availableParallelism()));
  rp.dispose();
});

test('threads: 2 without SharedArrayBuffer falls back to the single-thread build, says why, and works', () => {
  const script = `
    delete globalThis.SharedArrayBuffer;
    const { init } = await import(${JSON.stringify(new URL('../../web/index.js', import.meta.url).href)});
    const rp = await init({ threads: 2 });
    const x = new Float32Array(2 * 4 * 8).fill(0.5);
    const { output } = rp.attention({ q: x, k: x, v: x, batch: 1, heads: 2, seqLen: 4, headDim: 8, scheme: { type: 'none' } });
    console.log(JSON.stringify({ threads: rp.threads, reason: rp.threadsReason, simd: rp.simd, out: output[0] }));`;
  const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' }));
  assert.deepEqual(out, { threads: 1, reason: 'not cross-origin isolated (SharedArrayBuffer unavailable)', simd: true, out: 0.5 });
});

test('threads: 2 with simd: false runs the scalar build on one thread and says there is no SIMD', async () => {
  const rp = await init({ simd: false, threads: 2 });
  assert.equal(rp.threads, 1);
  assert.match(rp.threadsReason, /^no SIMD/);
  rp.dispose();
});

test('an invalid threads option is a TypeError or RangeError naming the option', async () => {
  for (const bad of ['2', true, null, {}])
    await assert.rejects(init({ threads: bad }), (e) => e instanceof TypeError && /^init: threads: expected 'auto' or an integer/.test(e.message));
  for (const bad of [0, -1, 1.5, 65, NaN, Infinity])
    await assert.rejects(init({ threads: bad }), (e) => e instanceof RangeError && /^init: threads: expected 'auto' or an integer in \[1, 64\]/.test(e.message));
});

test("threads in Node start even when another library has put worker_threads' Worker on globalThis (onnxruntime-web does), and that Worker is put back", async () => {
  const { Worker: NodeWorker } = await import('node:worker_threads');
  const had = Object.prototype.hasOwnProperty.call(globalThis, 'Worker');
  const previous = globalThis.Worker;
  globalThis.Worker = NodeWorker;
  try {
    const rp = await init({ threads: 2 });
    assert.equal(rp.threads, 2);
    assert.equal(globalThis.Worker, NodeWorker, 'the foreign Worker is restored');
    const x = Float32Array.from({ length: 2 * 8 * 4 }, (_, i) => Math.sin(i));
    const { output } = rp.attention({ q: x, k: x, v: x, batch: 1, heads: 2, seqLen: 8, headDim: 4, scheme: { type: 'none' } });
    assert.ok(output.every(Number.isFinite));
    rp.dispose();
  } finally {
    if (had) globalThis.Worker = previous;
    else delete globalThis.Worker;
  }
});

test('q8 models on 2 and 3 threads are bitwise equal to the single-thread SIMD build (8-bit linear layers split into tiles)', async () => {
  const shared = join(ROOT, '..', 'shared');
  const cases = [
    // 2 × 128 tokens of a real-geometry layer (hidden 384, feed-forward 1536): several row and column tiles
    { dir: join(shared, 'bench-models', 'bert-minilm-layer'), batch: 2 },
    { dir: join(shared, 'fixtures', 'hf', 't5-b-v1_1-gated-gelu'), batch: 0 },
  ];
  for (const c of cases) assert.ok(existsSync(c.dir), `${c.dir} is missing`);
  const one = await init({ simd: true });
  const runtimes = [await init({ threads: 2 }), await init({ threads: 3 })];
  assert.deepEqual(runtimes.map((rp) => rp.threads), [2, 3]);
  for (const c of cases) {
    const input = JSON.parse(readFileSync(join(c.dir, 'input.json'), 'utf8'));
    let inputIds = input.input_ids, attentionMask = input.attention_mask;
    if (c.batch === 2) {
      inputIds = [inputIds[0], inputIds[0]];
      attentionMask = [attentionMask[0], attentionMask[0].map((m, i) => (i < 91 ? m : 0))];
    }
    const run = async (rp) => {
      const model = await rp.loadModel(c.dir, { dtype: 'q8' });
      assert.equal(model.info.dtype, 'q8');
      const out = model.forward({ inputIds, attentionMask }, { outputHiddenStates: true });
      model.dispose();
      return out;
    };
    const base = await run(one);
    assert.ok(base.lastHiddenState.data.every(Number.isFinite));
    for (const rp of runtimes) {
      const out = await run(rp);
      assert.ok(bitwise(out.lastHiddenState.data, base.lastHiddenState.data), `${c.dir}, ${rp.threads} threads: lastHiddenState`);
      out.hiddenStates.forEach((h, i) => assert.ok(bitwise(h.data, base.hiddenStates[i].data), `${c.dir}, ${rp.threads} threads: hiddenStates[${i}]`));
    }
  }
  one.dispose();
  runtimes.forEach((rp) => rp.dispose());
});

// Per-thread scheduler accounting of this process's threads (Linux /proc/self/task/*/schedstat: ns on a
// CPU, ns runnable but waiting for one). On the shared 2-core machine the kernel may give a process one
// core however many threads want to run (issue #19: any 2-thread process — relpos, onnxruntime-web, two
// busy JS threads — then shows CPU ÷ wall ≈ 1), so the robust measure of whether relpos keeps two threads
// busy is their demand, on-CPU + runnable time, not the CPU time they happened to get.
const SCHED_CHILD = `
  import fs from 'node:fs';
  const { init } = await import(process.argv[1]);
  const dir = process.argv[2];
  const sched = () => Object.fromEntries(fs.readdirSync('/proc/self/task').map((t) => {
    const [on, wait] = fs.readFileSync('/proc/self/task/' + t + '/schedstat', 'utf8').split(' ').map(Number);
    return [t, { on: on / 1e6, wait: wait / 1e6 }];
  }));
  const rp = await init({ threads: 2 });
  const model = await rp.loadModel(dir);
  const inputIds = Array.from({ length: 128 }, (_, i) => (i * 7919 + 13) % 512);
  for (let w = 0; w < 3; ++w) model.forward({ inputIds });
  const s0 = sched(), c0 = process.cpuUsage(), t0 = performance.now();
  for (let r = 0; r < 20; ++r) model.forward({ inputIds });
  const wall = performance.now() - t0, u = process.cpuUsage(c0), s1 = sched();
  const busy = Object.keys(s1).filter((t) => s0[t]).map((t) => ({ on: s1[t].on - s0[t].on, wait: s1[t].wait - s0[t].wait }))
    .filter((x) => x.on > 0.05 * wall).sort((a, b) => b.on - a.on);
  console.log(JSON.stringify({ threads: rp.threads, wall, cpu: (u.user + u.system) / 1000, busy }));
  process.exit(0);`;

test('threads: 2 in a fresh process keeps two threads busy on a 128-token layer forward (scheduler demand > 1.25 cores; CPU ÷ wall is what the shared machine granted)', { skip: !existsSync('/proc/self/task') && 'no /proc (Linux only)' }, () => {
  const dir = join(ROOT, '..', 'shared', 'bench-models', 'bert-minilm-layer');
  assert.ok(existsSync(dir), `${dir} is missing`);
  const index = new URL('../../web/index.js', import.meta.url).href;
  const out = JSON.parse(execFileSync(process.execPath, ['--no-experimental-fetch', '--input-type=module', '-e', SCHED_CHILD, index, dir], { cwd: ROOT, encoding: 'utf8' }));
  assert.equal(out.threads, 2);
  const demand = out.busy.reduce((a, x) => a + x.on + x.wait, 0) / out.wall;
  const detail = `demand ${demand.toFixed(2)} cores, CPU ÷ wall ${(out.cpu / out.wall).toFixed(2)}, threads ${JSON.stringify(out.busy.map((x) => [+x.on.toFixed(1), +x.wait.toFixed(1)]))} (ms on CPU, ms runnable) over ${out.wall.toFixed(0)} ms`;
  assert.ok(out.busy.length >= 2, `only one thread worked: ${detail}`);
  assert.ok(out.busy[1].on > 0.3 * out.busy[0].on, `the Worker did little of the work: ${detail}`);
  // 1.25, not 1.5: at a load average of 6 on 2 cores, a thread that finished its chunk sleeps at the join while
  // the other waits for a CPU (measured 1.45); a pool that ran on one thread would be ≈ 1.0.
  assert.ok(demand > 1.25, `two threads did not both want a core most of the time: ${detail}`);
});

test('threads: short inputs (1–16 tokens: regions below the inline threshold) give the same bits on 1, 2 and 3 threads', async () => {
  const dir = join(ROOT, '..', 'shared', 'bench-models', 'bert-minilm-layer');
  assert.ok(existsSync(dir), `${dir} is missing`);
  const rts = [await init({ simd: true }), await init({ threads: 2 }), await init({ threads: 3 })];
  const models = await Promise.all(rts.map((rp) => rp.loadModel(dir)));
  for (const [batch, seq] of [[1, 1], [1, 8], [1, 16], [2, 16], [8, 32]]) {
    const inputIds = Array.from({ length: batch }, (_, b) => Array.from({ length: seq }, (_, i) => (i * 7919 + 13 + 31 * b) % 512));
    const outs = models.map((m) => m.forward({ inputIds }).lastHiddenState.data);
    for (let t = 1; t < outs.length; ++t) assert.ok(bitwise(outs[t], outs[0]), `${batch} × ${seq}: ${rts[t].threads} threads`);
  }
  models.forEach((m) => m.dispose());
  rts.forEach((rp) => rp.dispose());
});

// A child process started with `flags` runs this: threads 2 and 'auto' against the single-thread build.
const CHILD = `
const { init } = await import(${JSON.stringify(new URL('../../web/index.js', import.meta.url).href)});
const n = 1 * 4 * 128 * 32;  // above the inline threshold: the Worker computes slices too
const x = Float32Array.from({ length: n }, (_, i) => Math.sin(i * 0.37));
const args = { q: x, k: x.map((v) => v / 2), v: x, batch: 1, heads: 4, seqLen: 128, headDim: 32, scheme: { type: 'alibi' } };
const one = await init();
const ref = Buffer.from(one.attention(args).output.buffer);
const out = {};
for (const threads of [2, 'auto']) {
  const rp = await init({ threads });
  out[threads] = { threads: rp.threads, reason: rp.threadsReason, same: Buffer.from(rp.attention(args).output.buffer).equals(ref) };
  rp.dispose();
}
console.log(JSON.stringify(out));
`;

async function runChild(flags, script = CHILD) {
  const { execFile } = await import('node:child_process');
  const { promisify } = await import('node:util');
  const { mkdtempSync, writeFileSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const file = join(mkdtempSync(join(tmpdir(), 'relpos-flags-')), 'child.mjs');
  writeFileSync(file, script);
  const eval_ = flags.includes('--input-type=module');
  const args = eval_ ? [...flags, '-e', script] : [...flags, file];
  const { stdout, stderr } = await promisify(execFile)(process.execPath, args, { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  return { out: JSON.parse(stdout.trim().split('\n').at(-1)), stderr };
}

const NODE_FLAGS = [
  ['--max-old-space-size=4096'],
  ['--expose-gc'],
  ['--stack-size=2000'],
  ['--max-semi-space-size=16'],
  ['--title=relpos-threads-test'],
  ['--max-old-space-size=4096', '--expose-gc', '--input-type=module'],
];
test(`threads start under the Node flags people use (${NODE_FLAGS.map((f) => f.join(' ')).join('; ')}): threads 2 and 'auto' really run, with the single-thread bits`, async () => {
  const auto = Math.min(8, availableParallelism());
  const runs = await Promise.all(NODE_FLAGS.map((flags) => runChild(flags)));
  runs.forEach(({ out }, i) => {
    assert.deepEqual(out, {
      2: { threads: 2, reason: null, same: true },
      auto: { threads: auto, reason: null, same: true },
    }, NODE_FLAGS[i].join(' '));
  });
});

test('Workers that cannot start (node --permission without --allow-worker) end in the one-thread fall-back with threadsReason, not a rejected init', async (t) => {
  const major = Number(process.versions.node.split('.')[0]);
  if (major < 20) return t.skip('the permission model needs Node 20');
  const flag = major >= 22 ? '--permission' : '--experimental-permission';
  const { out, stderr } = await runChild([flag, '--allow-fs-read=*']);
  for (const threads of ['2', 'auto']) {
    assert.equal(out[threads].threads, 1);
    assert.equal(out[threads].same, true);
    assert.match(out[threads].reason, /^the threads build could not start its Workers \(.*(ERR_ACCESS_DENIED|Access to this API has been restricted)/);
  }
  assert.doesNotMatch(stderr, /sent an error|Aborted|RuntimeError/);
});
