// WebGPU storage dtypes (web/webgpu/kernels/dtype.js, kernels/gemm.js, executor.js):
//   q8   - the q8 GEMM (int8 weights 4 per u32, a row scale and 4-bit group multipliers, dequantized in the
//          tile load) equals a float64 dequantize-then-multiply reference, vector and scalar paths, more
//          than 8 groups per row, bias + activation;
//        - the q8 gather of an int8 embedding table equals its decoded rows;
//        - rp.loadModel(…, { device: 'webgpu', dtype: 'q8' }) keeps linear layers and embedding tables int8
//          on the GPU (info.gpuWeightBytes ≤ 0.27× the fp32 load's on the bench models) and every fixture / bench model the GPU plan
//          covers stays within q8.test.mjs's bounds of its fp32 load (mean-pooled cosine ≥ 0.999, last
//          hidden state max error ≤ 0.15 × max |fp32| on the fixtures, ≤ 0.01 × on the bench models); its
//          distance to the CPU's q8 (which also quantizes activations to int16 per row) is reported;
//   fp16 - every WGSL generator's f16 program is its f32 program with f16 storage: with `f16` spelled `f32`
//          it compiles on any device and gives bitwise the f32 kernel's results (the f16 branch's bindings,
//          indexing and conversions are exercised in CI, where SwiftShader has no 'shader-f16');
//        - a model loaded with dtype 'fp16' through a GPU object that claims 'shader-f16' (programs compiled
//          with f16 spelled f32) dispatches only f16 programs over its whole forward, and holds 2-byte weights;
//        - where the adapter has 'shader-f16', the f16 programs compile, GEMM matches float64 within f16
//          rounding, and a fixture model in fp16 stays at cosine ≥ 0.999 of fp32 (else skipped, saying so);
//        - where it has not: device 'webgpu' rejects naming 'shader-f16', 'auto' falls back to fp32 on WASM
//          with info.deviceReason, device 'wasm' (the default) rejects fp16, and the kernels refuse f16.
// No adapter: the suite fails under CI (process.env.CI), else skips, as webgpu-ops.test.mjs does.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';

import { randomArray } from './helpers.mjs';
import { BENCH_NAMES, caseDir } from '../../scripts/q8-accuracy.mjs';
import { webgpuAdapter } from './webgpu-adapter.mjs';

const W = { ...(await import('../../web/webgpu/index.js')), ...(await import('../../web/webgpu/compare.js')) };  // compare.js: repository only, not in the package

const { ctx, gpu, skip } = await webgpuAdapter({ keep: true });
const noF16 = skip || (!ctx.shaderF16 && `this adapter (${ctx.info.description || ctx.info.vendor}) has no 'shader-f16' (SwiftShader never has): the f16 cases run where an adapter has it (bench/gpu/run.sh runs this file on its GPU)`);
const hasF16 = skip || (ctx.shaderF16 && 'this adapter has shader-f16: the no-f16 rejection cannot be observed');

const { init } = await import('../../web/index.js');
const rp = await init({ simd: true });

after(() => rp.dispose()); // (ctx is released when the file ends: webgpuAdapter)

async function runRead(on, fn, out, count) {
  on.device.pushErrorScope('validation');
  await on.run(fn);
  const err = await on.device.popErrorScope();
  if (err) throw new Error(`WebGPU validation error: ${err.message}`);
  return on.read(out, count);
}

// ---------- q8 GEMM ----------

/** Random q8 words for W [N, K] (the layout of gemm.js / plan.h Q8Values) and W decoded in float64. */
function randomQ8(N, K, seed) {
  const { q: QW, s: SW } = W.q8RowWords(K);
  const q = new Uint32Array(N * QW), s = new Uint32Array(N * SW), w = new Float64Array(N * K);
  const f = new Float32Array(1), bits = new Uint32Array(f.buffer);
  let r = seed >>> 0;
  const next = () => (r = (Math.imul(r, 1664525) + 1013904223) >>> 0);
  for (let n = 0; n < N; ++n) {
    f[0] = (1 + (next() % 1000)) * 1e-7; // row scale: |w| ≤ 1e-4 · 16 · 127 ≈ 0.2
    s[n * SW] = bits[0];
    const scale = f[0];
    const G = Math.ceil(K / 32), m = [];
    for (let g = 0; g < G; ++g) {
      m.push(1 + (next() % 16));
      s[n * SW + 1 + (g >> 3)] |= (m[g] - 1) << (4 * (g % 8));
    }
    for (let k = 0; k < K; ++k) {
      const v = (next() % 255) - 127; // int8 in [−127, 127]
      q[n * QW + (k >> 2)] |= (v & 255) << (8 * (k % 4));
      w[n * K + k] = scale * m[k >> 5] * v;
    }
  }
  return { q, s, w };
}

const GELU64 = (x) => {
  // erf by its Taylor series (|x| small here), float64
  const z = x / Math.SQRT2;
  let sum = 0, term = z;
  for (let n = 0; n < 60; ++n) {
    sum += term / (2 * n + 1);
    term *= (-z * z) / (n + 1);
  }
  return 0.5 * x * (1 + (2 / Math.sqrt(Math.PI)) * sum);
};

describe('webgpu q8 GEMM equals dequantize-then-multiply', { skip }, () => {
  async function check({ M, N, K, bias = true, activation = 'none', seed = 1, split }) {
    const A = randomArray(M * K, seed), b = bias ? randomArray(N, seed + 1) : null;
    const { q, s, w } = randomQ8(N, K, seed + 2);
    const c = ctx.empty(4 * M * N);
    const got = await runRead(ctx, (enc) => W.gemm(ctx, enc, { a: ctx.upload(A), b: ctx.upload(q), scales: ctx.upload(s), c, bias: b ? ctx.upload(b) : undefined, M, N, K, variant: '64x64', activation, split }), c, M * N);
    let worst = 0, tol = 0;
    for (let i = 0; i < M; ++i)
      for (let j = 0; j < N; ++j) {
        let acc = b ? b[j] : 0, mag = b ? Math.abs(b[j]) : 0;
        for (let k = 0; k < K; ++k) {
          acc += A[i * K + k] * w[j * K + k];
          mag += Math.abs(A[i * K + k] * w[j * K + k]);
        }
        const want = activation === 'gelu' ? GELU64(acc) : acc;
        worst = Math.max(worst, Math.abs(got[i * N + j] - want));
        tol = Math.max(tol, 2e-6 * mag + 1e-6 * Math.abs(want) + 1e-7);
      }
    // f32 sums of K ≤ 288 products: rounding well under 2e-6 of Σ|a·w| (and the tanh-free erf's 1e-6)
    assert.ok(worst <= tol, `M ${M} N ${N} K ${K}: max |error| ${worst} > ${tol}`);
  }

  test('vector path (K, N multiples of 4), 9 groups per row (two multiplier words), partial tiles, bias', async () => {
    await check({ M: 70, N: 68, K: 288, seed: 3 });
  });
  test('scalar path (K = 37: a ragged last word and group), bias + gelu; no bias', async () => {
    await check({ M: 5, N: 13, K: 37, activation: 'gelu', seed: 5 });
    await check({ M: 3, N: 6, K: 5, bias: false, seed: 7 });
  });
  test('split K: each part dequantizes its own k range (3 parts of 96 k; the scalar path in 2 parts)', async () => {
    await check({ M: 40, N: 68, K: 288, activation: 'gelu', seed: 9, split: 3 });
    await check({ M: 5, N: 13, K: 37, seed: 11, split: 2 });
  });
  test('parts: q8 weights concatenated along N (words and scale words, as the executor fuses them) equal each part alone bit for bit', async () => {
    for (const [K, widths, split] of [[288, [68, 32, 32], undefined], [37, [13, 6], 2]]) {
      const M = 9, A = ctx.upload(randomArray(M * K, 31)), { q: QW, s: SW } = W.q8RowWords(K);
      const N = widths.reduce((a, b) => a + b, 0), { q, s } = randomQ8(N, K, 33), bias = randomArray(N, 35);
      const parts = [], alone = [];
      let n0 = 0;
      for (const n of widths) {
        const own = ctx.empty(4 * M * n);
        alone.push(await runRead(ctx, (enc) => W.gemm(ctx, enc, { a: A, b: ctx.upload(q.slice(n0 * QW, (n0 + n) * QW)), scales: ctx.upload(s.slice(n0 * SW, (n0 + n) * SW)), bias: ctx.upload(bias.slice(n0, n0 + n)), c: own, M, N: n, K, split }), own, M * n));
        parts.push({ c: ctx.empty(4 * M * n), n, activation: 'none' });
        n0 += n;
      }
      await runRead(ctx, (enc) => W.gemm(ctx, enc, { a: A, b: ctx.upload(q), scales: ctx.upload(s), bias: ctx.upload(bias), M, N, K, split, parts }), parts[0].c, 1);
      for (const [i, p] of parts.entries()) assert.deepEqual(await ctx.read(p.c, M * p.n), alone[i], `K ${K} part ${i}`);
    }
  });
  test('q8 embedding gather: an int8 table (row scale, group multipliers) summed with a float table equals the decoded rows', async () => {
    const vocab = 7, dim = 44, tokens = 5; // dim: a ragged last word, two groups
    const { q, s, w } = randomQ8(vocab, dim, 21);
    const pos = randomArray(tokens * dim, 22);
    const ids = new Uint32Array([6, 0, 3, 3, 9]); // 9 ≥ vocab reads the last row (the kernel's clamp)
    const out = ctx.empty(4 * tokens * dim);
    const got = await runRead(ctx, (enc) => W.embedding(ctx, enc, { out, tokens, dim, tables: [
      { table: ctx.upload(q), scales: ctx.upload(s), ids: ctx.upload(ids), rows: vocab },
      { table: ctx.upload(pos), ids: ctx.upload(new Uint32Array([0, 1, 2, 3, 4])), rows: tokens },
    ] }), out, tokens * dim);
    let worst = 0;
    for (let t = 0; t < tokens; ++t)
      for (let c = 0; c < dim; ++c) worst = Math.max(worst, Math.abs(got[t * dim + c] - (w[Math.min(ids[t], vocab - 1) * dim + c] + pos[t * dim + c])));
    assert.ok(worst <= 1e-6, `max |error| ${worst}`);
  });
  test('q8 arguments are checked', () => {
    const a = ctx.empty(64), enc = ctx.device.createCommandEncoder();
    assert.throws(() => W.gemm(ctx, enc, { a, b: a, c: a, scales: a, M: 1, N: 2, K: 8, transB: false }), /q8 weights \(scales given\) need transB = true/);
    assert.throws(() => W.gemm(ctx, enc, { a: ctx.empty(4 * 64), b: a, c: ctx.empty(4 * 64), scales: ctx.empty(4), M: 8, N: 8, K: 8 }), /gemm: scales: expected a GPUBuffer of at least 64 bytes \(16 u32 \(q8 scale words\)\)/);
  });
});

// ---------- q8 models ----------

const FIXTURES = join(caseDir('bert-absolute'), '..');
/** Fixture and bench models the GPU plan covers (webgpu-models.test.mjs's list ∩ q8.test.mjs's). */
const Q8_FIXTURES = ['bert-absolute', 'distilbert-sinusoidal', 'roformer-rotary', 't5-a-classic', 't5-b-v1_1-gated-gelu', 'llama-rope', 'bloom-alibi', 'mpt-alibi'];
const Q8_BENCH = BENCH_NAMES.filter((n) => n === 'bert-minilm-layer' || n === 't5-small-encoder-layer');
const haveQ8 = existsSync(join(FIXTURES, 'bert-absolute', 'config.json'));

test('webgpu q8: int8 linear weights on the GPU, within the q8 bounds of fp32 on every covered fixture and bench model', { skip: skip || (!haveQ8 && `no fixtures at ${FIXTURES}`) }, async (t) => {
  const rows = [];
  for (const name of [...Q8_FIXTURES, ...Q8_BENCH]) {
    const dir = caseDir(name);
    if (!existsSync(join(dir, 'config.json'))) continue;
    const input = JSON.parse(readFileSync(join(dir, 'input.json'), 'utf8'));
    const inputs = { inputIds: input.input_ids, attentionMask: input.attention_mask };
    const fp32 = await rp.loadModel(dir);
    const cpu8 = await rp.loadModel(dir, { dtype: 'q8' });
    const gpu8 = await rp.loadModel(dir, { dtype: 'q8', device: 'webgpu' });
    const gpu32 = await rp.loadModel(dir, { device: 'webgpu' });
    try {
      assert.equal(gpu8.info.device, 'webgpu');
      assert.equal(gpu8.info.dtype, 'q8');
      const ref = fp32.forward(inputs).lastHiddenState;
      const g8 = (await gpu8.forward(inputs)).lastHiddenState;
      const vsFp32 = W.compareHidden(ref, g8, input.attention_mask);
      const vsCpuQ8 = W.compareHidden(cpu8.forward(inputs).lastHiddenState, g8, input.attention_mask);
      const cpuQ8 = W.compareHidden(ref, cpu8.forward(inputs).lastHiddenState, input.attention_mask);
      const memory = gpu8.info.gpuWeightBytes / gpu32.info.gpuWeightBytes;
      const row = { name, gpuQ8VsFp32: vsFp32, cpuQ8VsFp32: cpuQ8, gpuQ8VsCpuQ8: vsCpuQ8, gpuWeightBytes: [gpu32.info.gpuWeightBytes, gpu8.info.gpuWeightBytes], memory };
      rows.push(row);
      const bench = Q8_BENCH.includes(name);
      const msg = JSON.stringify(row);
      assert.ok(vsFp32.cosine >= 0.999, msg);
      assert.ok(vsFp32.rel <= (bench ? 0.01 : 0.15), msg);
      // the same int8 weights as the CPU's q8; only the CPU's int16 activation rounding differs
      assert.ok(vsCpuQ8.rel <= 2e-3, msg);
      // linear weights and embedding tables ~1.02 bytes instead of 4; norms, biases and type tables stay fp32
      assert.ok(memory < (bench ? 0.27 : 0.42), msg);
    } finally {
      for (const m of [fp32, cpu8, gpu8, gpu32]) m.dispose();
    }
  }
  assert.ok(rows.length >= 8, `only ${rows.length} models found`);
  const f = (x) => x.toExponential(2);
  for (const r of rows)
    t.diagnostic(`${r.name}: GPU q8 vs fp32 cosine ${r.gpuQ8VsFp32.cosine.toFixed(6)} rel ${f(r.gpuQ8VsFp32.rel)}; CPU q8 vs fp32 cosine ${r.cpuQ8VsFp32.cosine.toFixed(6)} rel ${f(r.cpuQ8VsFp32.rel)}; GPU q8 vs CPU q8 rel ${f(r.gpuQ8VsCpuQ8.rel)}; GPU weight bytes q8/fp32 ${r.memory.toFixed(3)} (${r.gpuWeightBytes.join(' / ')})`);
});

// ---------- fp16 ----------

/** The f16 program with f16 spelled f32 (and no `enable f16;`): runs on any device, on f32 buffers. */
function asF32(code) {
  assert.ok(code.startsWith('enable f16;\n'), 'an f16 program starts with enable f16;');
  return code.slice('enable f16;\n'.length).replaceAll('f16', 'f32');
}
/** A context whose kernels take dtype 'f16' but compile asF32 (a per-test view of ctx). */
function f16AsF32(on) {
  return Object.assign(Object.create(Object.getPrototypeOf(on)), on, {
    shaderF16: true,
    pipeline: (key, make) => on.pipeline(`${key}:as-f32`, () => asF32(make())),
  });
}

/** One dispatch of each kernel, as { name, run(on, dtype) → Promise<Float32Array> } on fixed f32 inputs. */
function kernelCases() {
  let on = ctx;
  const up = (x) => on.upload(x); // the context a case runs on uploads (an f16 one halves float32 arrays)
  const rows = 6, dim = 40, M = 9, N = 12, K = 20;
  const x = randomArray(rows * dim, 1), res = randomArray(rows * dim, 2), gamma = randomArray(dim, 3), beta = randomArray(dim, 4);
  const A = randomArray(M * K, 5), B = randomArray(N * K, 6), bias = randomArray(N, 7);
  const q8 = randomQ8(N, 36, 8), A36 = randomArray(M * 36, 9);
  const ids = new Uint32Array([3, 0, 2, 1, 3, 2]);
  const H = 2, L = 10, D = 8, qkv = randomArray(H * L * D, 10);
  const buckets = W.t5Buckets(L, { numBuckets: 8, maxDistance: 16 }), table = randomArray(8 * H, 11);
  const mask = new Uint32Array(L).fill(1);
  mask[7] = 0;
  const out = (n) => ctx.empty(4 * n);
  const cases = [
    ['gemm vector, bias + gelu', M * N, (on, dtype, c) => (enc) => W.gemm(on, enc, { a: up(A), b: up(B), c, bias: up(bias), M, N, K, variant: '64x64', activation: 'gelu', dtype })],
    ['gemm scalar (K = 19)', M * N, (on, dtype, c) => (enc) => W.gemm(on, enc, { a: up(A), b: up(B), c, M, N, K: 19, variant: '64x64', dtype })],
    ['gemm q8 weights', M * N, (on, dtype, c) => (enc) => W.gemm(on, enc, { a: up(A36), b: up(q8.q), scales: up(q8.s), c, M, N, K: 36, variant: '64x64', dtype })],
    ['gemm split K, bias + gelu (f32 partials)', M * N, (on, dtype, c) => (enc) => W.gemm(on, enc, { a: up(A), b: up(B), c, bias: up(bias), M, N, K, variant: '64x64', activation: 'gelu', split: 2, dtype })],
    ['layernorm with residual, sum and beta', rows * dim, (on, dtype, c) => (enc) => W.norm(on, enc, { kind: 'layernorm', x: up(x), residual: up(res), sum: out(rows * dim), y: c, gamma: up(gamma), beta: up(beta), rows, dim, eps: 1e-5, dtype })],
    ['rmsnorm', rows * dim, (on, dtype, c) => (enc) => W.norm(on, enc, { kind: 'rmsnorm', x: up(x), y: c, gamma: up(gamma), rows, dim, eps: 1e-6, dtype })],
    ['activate gelu_tanh', rows * dim, (on, dtype, c) => (enc) => W.activate(on, enc, { x: up(x), y: c, n: rows * dim, activation: 'gelu_tanh', dtype })],
    ['gated silu (pair layout)', rows * dim / 2, (on, dtype, c) => (enc) => W.gated(on, enc, { x: up(x), y: c, rows, width: dim / 2, activation: 'silu', actHalf: 1, dtype })],
    ['add', rows * dim, (on, dtype, c) => (enc) => W.add(on, enc, { a: up(x), b: up(res), y: c, n: rows * dim, dtype })],
    ['embedding of two tables', rows * dim, (on, dtype, c) => (enc) => W.embedding(on, enc, { out: c, tokens: rows, dim, tables: [{ table: up(x.subarray(0, 4 * dim)), ids: up(ids), rows: 4 }, { table: up(res.subarray(0, 4 * dim)), ids: up(ids.slice().reverse()), rows: 4 }], dtype })],
    ['rope (half layout), in place', H * L * D, (on, dtype, c) => {
      const t = W.ropeTables(L, D); // cos / sin stay f32 in every dtype
      return (enc) => {
        const src = up(qkv); // f32 or f16 bytes, as the context uploads
        enc.copyBufferToBuffer(src, 0, c, 0, src.size);
        W.rope(on, enc, { x: c, cos: ctx.upload(t.cos), sin: ctx.upload(t.sin), rows: H * L, seqLen: L, headDim: D, rotaryDim: D, layout: 'half', dtype });
      };
    }],
    ['attention, T5 buckets, key mask', H * L * D, (on, dtype, c) => (enc) => W.attention(on, enc, { q: up(qkv), k: up(qkv.slice().reverse()), v: up(x.subarray(0, H * L * D)), out: c, batch: 1, heads: H, seqLen: L, headDim: D, mask: up(mask), scale: 1, scheme: { type: 'bucket', buckets: up(buckets), table: up(table) }, dtype })],
    ['split heads', rows * dim, (on, dtype, c) => (enc) => W.splitHeads(on, enc, { x: up(x), y: c, rows, heads: 4, d: dim / 4, dtype })],
    ['pooling mean, normalized', 2 * dim, (on, dtype, c) => (enc) => W.pooling(on, enc, { x: up(x), out: c, mask: up(new Uint32Array([1, 1, 0, 1, 0, 0])), batch: 2, seqLen: 3, hidden: dim, mode: 'mean', normalize: true, dtype })],
  ];
  // make(context, dtype, out) → record(encoder); uploads go through that context
  return cases.map(([name, n, make]) => [name, n, (ctxOf, dtype, c) => {
    on = ctxOf;
    return make(ctxOf, dtype, c);
  }]);
}

describe('webgpu fp16: the f16 WGSL is the f32 generator with f16 storage', { skip }, () => {
  test('every kernel: f16 storage arrays only (32-bit ids, masks, tables of constants), f32 arithmetic', () => {
    const programs = {
      gemm: W.gemmWgsl({ variant: '64x64', transB: true, vector: true, bias: true, activation: 'gelu', dtype: 'f16' }),
      'gemm q8': W.gemmWgsl({ variant: '64x64', transB: true, vector: false, bias: true, activation: 'none', dtype: 'f16', weights: 'q8' }),
      norm: W.normWgsl({ kind: 'layernorm', residual: true, sum: true, beta: true, dtype: 'f16' }),
      gated: W.elementwiseWgsl({ op: 'gated', activation: 'gelu', layout: 'split', dtype: 'f16' }),
      embedding: W.embeddingWgsl(3, 'f16'),
      rope: W.ropeWgsl('interleaved', 'f16'),
      attention: W.attentionWgsl({ D: 16, BQ: 64, BKV: 16, scheme: 'alibi', hasMask: true, dtype: 'f16' }),
      pooling: W.poolingWgsl({ mode: 'cls', normalize: false, dtype: 'f16' }),
      'split heads': W.splitHeadsWgsl('f16'),
    };
    // the conversions read or write float32 on one side (outputs widened on the GPU, weights narrowed there)
    for (const [from, to] of [['f16', 'f32'], ['f32', 'f16']]) {
      const code = W.convertWgsl({ from, to });
      assert.ok(code.startsWith('enable f16;\n'), `convert ${from} → ${to}`);
      assert.match(code, new RegExp(`var<storage, read> x: array<${from}>;[\\s\\S]*var<storage, read_write> y: array<${to}>;`));
    }
    assert.match(W.poolingWgsl({ mode: 'last_token', normalize: true, dtype: 'f16', outDtype: 'f32' }), /var<storage, read> x: array<f16>;\n.*var<storage, read_write> out: array<f32>;/);
    // storage buffers that stay 32-bit: ids, masks, buckets, q8 words, RoPE's cos/sin and ALiBi's slopes
    const allowed = /var<storage, read> (ids\d|mask|buckets|B|Bs8|cosT|sinT|slopes): array<(u32|i32|f32)>/;
    for (const [name, code] of Object.entries(programs)) {
      assert.ok(code.startsWith('enable f16;\n'), `${name}: enable f16 first`);
      for (const line of code.split('\n').filter((l) => /var<storage/.test(l)))
        assert.ok(/array<(vec4<)?f16>?>/.test(line) || allowed.test(line), `${name}: ${line}`);
      assert.ok(!/var<workgroup>[^;]*f16/.test(code), `${name}: shared memory stays f32`);
    }
    for (const bad of [() => W.gemmWgsl({ variant: '64x64', transB: true, vector: true, bias: false, activation: 'none', dtype: 'bf16' }), () => W.normWgsl({ kind: 'rmsnorm', dtype: 'f64' })])
      assert.throws(bad, /dtype '(bf16|f64)' \(expected 'f32' or 'f16'\)/);
  });

  const cases = skip ? [] : kernelCases();
  test('each kernel\'s f16 program with f16 spelled f32 compiles and gives bitwise the f32 kernel\'s results', async () => {
    const view = f16AsF32(ctx);
    for (const [name, n, make] of cases) {
      const c32 = ctx.empty(4 * n), c16 = ctx.empty(4 * n);
      const want = await runRead(ctx, make(ctx, 'f32', c32), c32, n);
      const got = await runRead(ctx, make(view, 'f16', c16), c16, n);
      assert.ok(want.some((v) => v !== 0), `${name}: the f32 kernel wrote something`);
      assert.deepEqual(Array.from(got), Array.from(want), name);
    }
  });

  test('toHalf / fromHalf round every float32 to the nearest binary16 (ties to even, overflow to ∞)', () => {
    const all = new Uint16Array(65536).map((_, i) => i);
    const f = W.fromHalf(all), back = W.toHalf(f);
    for (let i = 0; i < 65536; ++i) if (!Number.isNaN(f[i])) assert.equal(back[i], all[i], `half 0x${i.toString(16)}`);
    assert.deepEqual(Array.from(W.fromHalf(W.toHalf(new Float32Array([1 + 2 ** -11, 1 + 3 * 2 ** -11, 65504, 65520, -1e6, 2 ** -25, 2 ** -24 * 1.5])))),
      [1, 1 + 2 ** -9, 65504, Infinity, -Infinity, 0, 2 ** -23]);
  });
});

/**
 * A GPU object whose adapter and device claim 'shader-f16' without having it: every shader module's code is
 * recorded (`modules`) and compiled with f16 spelled f32. A model loaded through it with dtype 'fp16' runs
 * the executor's whole f16 path (f16 uploads and 2-byte buffers, every op's dtype) on any device; its
 * numbers are meaningless (f32 programs over f16 bits), what it checks is that every kernel it dispatches
 * was generated for f16 and that the bindings validate.
 */
function claimsF16(real) {
  const modules = [];
  const wrap = (target, overrides) => new Proxy(target, {
    get(t, key) {
      if (key in overrides) return overrides[key];
      const v = Reflect.get(t, key, t);
      return typeof v === 'function' ? v.bind(t) : v;
    },
  });
  const gpuObject = {
    modules,
    wgslLanguageFeatures: real.wgslLanguageFeatures, // subgroup_id: the f16 programs take the subgroup reductions too
    requestAdapter: async (options) => {
      const adapter = await real.requestAdapter(options);
      return wrap(adapter, {
        features: new Set([...adapter.features, 'shader-f16']),
        requestDevice: async (desc = {}) => {
          const device = await adapter.requestDevice({ ...desc, requiredFeatures: (desc.requiredFeatures ?? []).filter((f) => f !== 'shader-f16') });
          return wrap(device, {
            features: new Set([...device.features, 'shader-f16']),
            createShaderModule: (d) => {
              modules.push(d.code);
              return device.createShaderModule({ ...d, code: d.code.startsWith('enable f16;\n') ? asF32(d.code) : d.code });
            },
          });
        },
      });
    },
  };
  return gpuObject;
}

test("webgpu fp16: a model's whole forward dispatches only f16 kernels (every op, every scheme: none, rope, alibi, buckets, GLU)", { skip: skip || (!haveQ8 && 'no fixtures') }, async () => {
  const real = (await W.findGpu({ gpu })).gpu;
  const modernbert = join(FIXTURES, '..', 'hf-families', 'modernbert-a'); // the GLU pair layout
  // deberta-v2-b-v3like streams: its relative tables are derived on the GPU (gemm + split heads) in f16 too
  for (const name of ['bert-absolute', 'roformer-rotary', 'bloom-alibi', 't5-b-v1_1-gated-gelu', 'deberta-v2-b-v3like', ...(existsSync(modernbert) ? [modernbert] : [])]) {
    const fake = claimsF16(real);
    const dir = name.includes('/') ? name : caseDir(name);
    const model = await rp.loadModel(dir, { device: 'webgpu', dtype: 'fp16', gpu: fake });
    try {
      assert.equal(model.info.device, 'webgpu');
      assert.equal(model.info.dtype, 'fp16');
      const out = await model.forward({ inputIds: [[2, 3, 4, 5, 6], [7, 8, 9, 2, 3]], attentionMask: [[1, 1, 1, 1, 1], [1, 1, 1, 0, 0]] }, { outputHiddenStates: true });
      assert.deepEqual(out.lastHiddenState.dims, [2, 5, model.info.hiddenSize]);
      assert.ok(fake.modules.length >= 4, `${name}: ${fake.modules.length} shader modules`);
      const f32 = fake.modules.filter((code) => !code.startsWith('enable f16;\n'));
      assert.deepEqual(f32.map((c) => c.split('\n')[0]), [], `${name}: kernels generated for f32`);
      // weights upload as f16: 2 bytes per value (no q8 here)
      const fp32 = await rp.loadModel(dir, { device: 'webgpu' });
      assert.equal(model.info.gpuWeightBytes * 2 - fp32.info.gpuWeightBytes <= 4 * 64, true, `${name}: ${model.info.gpuWeightBytes} vs ${fp32.info.gpuWeightBytes}`);
      fp32.dispose();
    } finally {
      model.dispose();
    }
  }
});

describe('webgpu fp16 on an adapter without shader-f16', { skip: hasF16 }, () => {
  const dir = caseDir('bert-absolute');
  test("device 'webgpu' rejects naming shader-f16; 'auto' falls back to fp32 on WASM with the reason; 'wasm' rejects fp16", { skip: !haveQ8 && 'no fixtures' }, async () => {
    await assert.rejects(rp.loadModel(dir, { device: 'webgpu', dtype: 'fp16' }), /device 'webgpu': webgpu: dtype 'fp16' needs the adapter feature 'shader-f16', which this adapter .* does not have/);
    await assert.rejects(rp.loadModel(dir, { dtype: 'fp16' }), /dtype 'fp16' runs on WebGPU only \(device 'webgpu', or 'auto'/);
    await assert.rejects(rp.loadModel(dir, { dtype: 'fp16', device: 'wasm' }), /dtype 'fp16' runs on WebGPU only/);
    const auto = await rp.loadModel(dir, { device: 'auto', dtype: 'fp16' });
    const fp32 = await rp.loadModel(dir);
    try {
      assert.equal(auto.info.device, 'wasm');
      assert.equal(auto.info.dtype, 'fp32');
      assert.match(auto.info.deviceReason, /shader-f16/);
      const inputs = { inputIds: [[2, 3, 4, 5]] };
      assert.deepEqual(Array.from(auto.forward(inputs).lastHiddenState.data), Array.from(fp32.forward(inputs).lastHiddenState.data));
    } finally {
      auto.dispose();
      fp32.dispose();
    }
  });
  test("on an NVIDIA adapter the fp16 Error says Dawn withholds shader-f16 there and names the vulkan_enable_f16_on_nvidia toggle; 'auto' gives that reason", { skip: !haveQ8 && 'no fixtures' }, async () => {
    // this adapter (SwiftShader), reporting itself as NVIDIA's: what a Node user on Linux + NVIDIA sees
    const real = (await W.findGpu({ gpu })).gpu;
    const nvidia = {
      requestAdapter: async (o) => {
        const adapter = await real.requestAdapter(o);
        const info = { vendor: 'nvidia', architecture: '', device: '', description: 'NVIDIA: 580.159.04 580.159.4.0' };
        return new Proxy(adapter, { get: (t, k) => (k === 'info' ? info : typeof t[k] === 'function' ? t[k].bind(t) : t[k]) });
      },
    };
    const want = /which this adapter \(NVIDIA: 580\.159\.04 580\.159\.4\.0\) does not have\. Dawn withholds 'shader-f16' on NVIDIA's Vulkan driver; in Node, pass \{ gpu: create\(\['enable-dawn-features=vulkan_enable_f16_on_nvidia'\]\) \}/;
    await assert.rejects(rp.loadModel(dir, { device: 'webgpu', dtype: 'fp16', gpu: nvidia }), want);
    const auto = await rp.loadModel(dir, { device: 'auto', dtype: 'fp16', gpu: nvidia });
    try {
      assert.equal(auto.info.device, 'wasm');
      assert.match(auto.info.deviceReason, want);
    } finally {
      auto.dispose();
    }
    assert.equal(W.f16Hint({ vendor: 'intel', description: 'Intel(R) Arc' }), '');
  });
  test('the kernels and the executor refuse f16 on this device', () => {
    const a = ctx.empty(64), enc = ctx.device.createCommandEncoder();
    assert.throws(() => W.gemm(ctx, enc, { a, b: a, c: a, M: 2, N: 2, K: 2, dtype: 'f16' }), /gemm: dtype 'f16' needs the 'shader-f16' feature/);
    assert.throws(() => W.norm(ctx, enc, { x: a, y: a, gamma: a, rows: 1, dim: 4, dtype: 'f16' }), /norm: dtype 'f16' needs the 'shader-f16' feature/);
    assert.throws(() => new W.PlanExecutor(ctx, {}, { dtype: 'f16' }), /PlanExecutor: dtype 'f16' needs the 'shader-f16' feature/);
  });
});

// ---------- widening F16 / BF16 checkpoint bytes (weight-sink.js) ----------

/** The float32 bits io/dtype_convert.h's decoding gives each 2-byte value (half_to_float; BF16: the bits << 16). */
function decodedBits(halves, from) {
  return Uint32Array.from(halves, (h) => {
    if (from === 'bf16') return (h << 16) >>> 0;
    const sign = (h & 0x8000) << 16, e = (h >>> 10) & 0x1f;
    let m = h & 0x3ff;
    if (e === 0x1f) return (sign | 0x7f800000 | (m << 13)) >>> 0;
    if (e === 0) {
      if (m === 0) return sign >>> 0;
      let shift = 0;
      while ((m & 0x400) === 0) (m <<= 1), ++shift;
      return (sign | ((113 - shift) << 23) | ((m & 0x3ff) << 13)) >>> 0;
    }
    return (sign | ((e + 112) << 23) | (m << 13)) >>> 0;
  });
}

test('widen: every F16 and BF16 bit pattern becomes the float32 bits the CPU decodes it to (subnormals, ±inf, NaN payloads), in slices past the binding limit too', { skip }, async () => {
  const all = new Uint16Array(65536).map((_, i) => i);
  for (const from of ['f16', 'bf16']) {
    const want = Array.from(decodedBits(all, from));
    const y = ctx.empty(4 * all.length);
    await runRead(ctx, (enc) => W.widen(ctx, enc, { x: ctx.upload(all), y, n: all.length, from, to: 'f32' }), y, 1);
    assert.deepEqual(Array.from(await ctx.read(y, all.length, Uint32Array)), want, `${from} → f32`);
    // a device whose storage bindings hold 1 KiB: 256 dispatches of 128 words at 256-byte-aligned offsets
    const small = Object.assign(Object.create(Object.getPrototypeOf(ctx)), ctx, { limits: { ...ctx.limits, maxStorageBufferBindingSize: 1024 } });
    const z = ctx.empty(4 * all.length);
    await runRead(ctx, (enc) => W.widen(small, enc, { x: ctx.upload(all), y: z, n: all.length, from, to: 'f32' }), z, 1);
    assert.deepEqual(Array.from(await ctx.read(z, all.length, Uint32Array)), want, `${from} → f32 in slices`);
  }
  const enc = ctx.device.createCommandEncoder();
  assert.throws(() => W.widen(ctx, enc, { x: y0(), y: y0(), n: 3, from: 'bf16', to: 'f32' }), /n: expected a positive even integer, got 3/);
  assert.throws(() => W.widen(ctx, enc, { x: y0(), y: y0(), n: 2, from: 'f32', to: 'f32' }), /from: expected 'f16' or 'bf16', got 'f32'/);
  function y0() {
    return ctx.empty(16);
  }
});

describe('webgpu fp16 on an adapter with shader-f16', { skip: noF16 }, () => {
  test('the f16 programs compile, and the kernels agree with f32 within f16 rounding', async () => {
    for (const [name, n, make] of kernelCases()) {
      // f16 inputs: the f32 buffers' values halved on upload, through the same cases
      const c32 = ctx.empty(4 * n), c16 = ctx.empty(2 * n + 4);
      const want = await runRead(ctx, make(ctx, 'f32', c32), c32, n);
      const halfCtx = Object.assign(Object.create(Object.getPrototypeOf(ctx)), ctx, {
        upload: (x) => ctx.upload(x instanceof Float32Array ? W.toHalf(x) : x),
      });
      halfCtx.device.pushErrorScope('validation');
      await halfCtx.run(make(halfCtx, 'f16', c16));
      const err = await halfCtx.device.popErrorScope();
      assert.equal(err, null, `${name}: ${err?.message}`);
      const got = W.fromHalf(await ctx.read(c16, n, Uint16Array));
      let worst = 0, mag = 0;
      for (let i = 0; i < n; ++i) {
        worst = Math.max(worst, Math.abs(got[i] - want[i]));
        mag = Math.max(mag, Math.abs(want[i]));
      }
      assert.ok(worst <= 2e-2 * Math.max(mag, 1), `${name}: max |f16 − f32| ${worst} (max |f32| ${mag})`);
    }
  });
  test('convert: float32 → f16 on the GPU equals toHalf (normal range; clamped to ±65504 past it), f16 → float32 equals fromHalf', async () => {
    const all = new Uint16Array(65536).map((_, i) => i).filter((h) => (h & 0x7c00) !== 0x7c00 && ((h & 0x7c00) !== 0 || (h & 0x3ff) === 0)); // every normal half, ±0
    const wide = ctx.empty(4 * all.length), narrow = ctx.empty(2 * all.length + 4);
    await ctx.run((enc) => W.convert(ctx, enc, { x: ctx.upload(all), y: wide, n: all.length, from: 'f16', to: 'f32' }));
    assert.deepEqual(Array.from(await ctx.read(wide, all.length)), Array.from(W.fromHalf(all)));
    // normal halves only (a GPU may flush f16 subnormals; weights that small do not matter at f16's precision)
    const x = Float32Array.from([...randomArray(4096, 12).filter((v) => Math.abs(v) >= 2 ** -14), 1 + 2 ** -11, 1 + 3 * 2 ** -11, 65504, 1e6, -1e6]);
    await ctx.run((enc) => W.convert(ctx, enc, { x: ctx.upload(x), y: narrow, n: x.length, from: 'f32', to: 'f16' }));
    const want = W.toHalf(x.map((v) => Math.min(65504, Math.max(-65504, v))));
    assert.deepEqual(Array.from(await ctx.read(narrow, x.length, Uint16Array)), Array.from(want));
  });
  test('widen to f16: F16 and BF16 bytes become the f16 that convert makes of their float32 (a layer is the same either way)', async () => {
    const all = new Uint16Array(65536).map((_, i) => i).filter((h) => (h & 0x7f80) !== 0x7f80 && (h & 0x7c00) !== 0x7c00); // no NaN of either
    const halves = all.length % 2 ? all.subarray(1) : all;
    for (const from of ['f16', 'bf16']) {
      const direct = ctx.empty(2 * halves.length), wide = ctx.empty(4 * halves.length), viaF32 = ctx.empty(2 * halves.length);
      await runRead(ctx, (enc) => W.widen(ctx, enc, { x: ctx.upload(halves), y: direct, n: halves.length, from, to: 'f16' }), direct, 1);
      await runRead(ctx, (enc) => {
        W.widen(ctx, enc, { x: ctx.upload(halves), y: wide, n: halves.length, from, to: 'f32' });
        W.convert(ctx, enc, { x: wide, y: viaF32, n: halves.length, from: 'f32', to: 'f16' });
      }, viaF32, 1);
      assert.deepEqual(Array.from(await ctx.read(direct, halves.length, Uint16Array)), Array.from(await ctx.read(viaF32, halves.length, Uint16Array)), from);
    }
  });
  test('a fixture model in fp16 stays at cosine ≥ 0.999 of fp32', { skip: !haveQ8 && 'no fixtures' }, async () => {
    const dir = caseDir('bert-absolute');
    const input = JSON.parse(readFileSync(join(dir, 'input.json'), 'utf8'));
    const rows = await W.compareGpuDtypes(rp, () => dir, { inputIds: input.input_ids, attentionMask: input.attention_mask }, { dtypes: ['fp32', 'fp16'], reps: 1, gpu });
    assert.ok(rows[1].cosine >= 0.999, JSON.stringify(rows));
  });
});
