// The WebGPU kernels (web/webgpu/) against their CPU twins, on tiny shapes:
//   - GEMM (both B layouts, every tile variant, vector and scalar paths, bias + each activation) against a
//     float64 JS product;
//   - attention against the relpos WASM package's rp.attention for none, RoPE (pre-pass), ALiBi, T5 and
//     MPNet bucket bias, DeBERTa c2p / p2c and BERT relative_key(_query) (relative_vectors), with a key mask and a sliding window (rp.attention has no window argument: each
//     query row is checked against a call whose key mask is that row's window), plus a float64 JS
//     reference that also covers causal, tiled windows and fully masked rows;
//   - LayerNorm / RMSNorm, activations and GLUs, embedding gather, RoPE tables, t5Buckets / alibiSlopes
//     against JS twins of the CPU formulas (and rp.positions), pooling against the pipelines' pool(),
//     maskRows and splitHeads against JS twins;
//   - the reductions of norms and pooling with subgroups (where the adapter has them: SwiftShader, size 4) and with
//     subgroups: false, at dims 1 … 1000, against the same twins and each other; the WGSL each path compiles; the
//     silent fallback on an adapter without the feature.
//     padded positions (MPNet) against their CPU twin.
// Runs on Chromium's SwiftShader Vulkan driver through Dawn (npm `webgpu`) unless VK_ICD_FILENAMES is set
// (~0.1 GFLOP/s: keep shapes small). No adapter: the suite fails under CI (process.env.CI), else skips.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { maxError, randomArray, ROOT } from './helpers.mjs';
import { webgpuAdapter } from './webgpu-adapter.mjs';

const W = await import('../../web/webgpu/index.js');
const { pool } = await import('../../web/pipelines/feature-extraction.js');

const adapter = await webgpuAdapter({ keep: true });
let ctx = adapter.ctx;
const skip = adapter.skip;

// The CPU package, for rp.attention and rp.positions (web/dist, built by `npm run build`).
let rp = null;
let noRp = null;
try {
  const { init } = await import('../../web/index.js');
  rp = await init();
} catch (e) {
  noRp = e;
}
if (noRp && process.env.CI) {
  test('the relpos WASM package loads (CI)', () => {
    throw new Error(`relpos WASM package (web/dist) did not load: ${noRp.message}`);
  });
}
const skipRp = skip || (noRp ? `relpos WASM package not available (${ROOT}/web/dist): ${noRp.message}` : false);

// (ctx is released when the file ends: webgpuAdapter)

// ---------- helpers ----------
const up = (a) => ctx.upload(a);
async function runRead(fn, out, count, Type = Float32Array) {
  ctx.device.pushErrorScope('validation');
  await ctx.run(fn);
  const err = await ctx.device.popErrorScope();
  if (err) throw new Error(`WebGPU validation error: ${err.message}`);
  return ctx.read(out, count, Type);
}
function maxAbs(a, b) {
  assert.equal(a.length, b.length);
  let worst = 0;
  for (let i = 0; i < a.length; ++i) {
    const e = Math.abs(a[i] - b[i]);
    if (!(e <= worst)) worst = Number.isNaN(e) ? Infinity : e;
  }
  return worst;
}
/** erf in float64 (Taylor series to |x| < 4, where 1 − erf < 2e-8; ~1e-10 accurate). */
function erf64(x) {
  const a = Math.abs(x);
  if (a >= 4) return Math.sign(x);
  let term = a, sum = a;
  for (let n = 1; n < 80; ++n) {
    term *= (-a * a) / n;
    sum += term / (2 * n + 1);
  }
  return Math.sign(x) * (2 / Math.sqrt(Math.PI)) * sum;
}
const ACT64 = {
  none: (x) => x,
  relu: (x) => (x > 0 ? x : 0),
  gelu: (x) => 0.5 * x * (1 + erf64(x / Math.SQRT2)),
  gelu_tanh: (x) => 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x * x * x))),
  tanh: Math.tanh,
  silu: (x) => x / (1 + Math.exp(-x)),
};

describe('webgpu device', { skip }, () => {
  test('reports the adapter, its features and its limits', () => {
    assert.equal(ctx.info.backend, 'webgpu');
    assert.equal(typeof ctx.info.vendor, 'string');
    assert.equal(typeof ctx.info.architecture, 'string');
    assert.ok(ctx.info.vendor || ctx.info.architecture || ctx.info.description, 'adapter info names something');
    assert.ok(Array.isArray(ctx.features));
    assert.equal(ctx.shaderF16, ctx.features.includes('shader-f16'));
    assert.ok(ctx.limits.maxComputeWorkgroupStorageSize >= 16384);
    assert.ok(ctx.limits.maxStorageBufferBindingSize >= 128 * 2 ** 20);
  });

  test('a gpu option that is not a GPU object is a TypeError', async () => {
    await assert.rejects(W.createContext({ gpu: {} }), /options\.gpu: expected a GPU object/);
  });

  test('a GPU object without adapters gives an Error that says so', async () => {
    await assert.rejects(W.createContext({ gpu: { requestAdapter: async () => null } }), /no GPU adapter: options\.gpu\.requestAdapter/);
  });
});

describe('webgpu gemm matches a float64 product', { skip }, () => {
  function reference(A, B, bias, M, N, K, transB, act) {
    const C = new Float64Array(M * N);
    for (let i = 0; i < M; ++i)
      for (let j = 0; j < N; ++j) {
        let s = bias ? bias[j] : 0;
        for (let k = 0; k < K; ++k) s += A[i * K + k] * (transB ? B[j * K + k] : B[k * N + j]);
        C[i * N + j] = ACT64[act](s);
      }
    return C;
  }
  async function check({ M, N, K, transB, variant, act = 'none', bias = true, seed = 1, split }) {
    const A = randomArray(M * K, seed), B = randomArray(N * K, seed + 1), b = bias ? randomArray(N, seed + 2) : null;
    const c = ctx.empty(M * N * 4);
    const got = await runRead((enc) => W.gemm(ctx, enc, { a: up(A), b: up(B), c, bias: b ? up(b) : undefined, M, N, K, transB, variant, activation: act, split }), c, M * N);
    const want = reference(A, B, b, M, N, K, transB, act);
    // f32 sums of K products of |·| ≤ 1: rounding ≤ K·2^−24 per unit of Σ|a·b| ≤ K.
    const tol = 4e-7 * K + 2e-6;
    const err = maxAbs(got, want);
    assert.ok(err <= tol, `M ${M} N ${N} K ${K} transB ${transB} ${variant} ${act}: max |error| ${err} > ${tol}`);
  }

  // Each (variant, layout, vector/scalar, bias, activation) is one pipeline, and SwiftShader takes seconds
  // to compile one: every variant runs both layouts on the vector path, full and partial tiles through the
  // same pipeline; the scalar path and the activations run on 64x64.
  for (const variant of Object.keys(W.GEMM_VARIANTS)) {
    const { BM, BN, BK } = W.GEMM_VARIANTS[variant];
    test(`${variant}: A·Wᵀ and A·B, full and partial tiles`, async (t) => {
      if (W.gemmSharedBytes(variant) > ctx.limits.maxComputeWorkgroupStorageSize)
        return t.skip(`needs ${W.gemmSharedBytes(variant)} bytes of workgroup memory, the device has ${ctx.limits.maxComputeWorkgroupStorageSize}`);
      for (const transB of [true, false]) {
        await check({ M: BM, N: BN, K: 2 * BK, transB, variant });
        await check({ M: BM + 3, N: BN + 4, K: BK + 4, transB, variant, seed: 5 });
        await check({ M: 3, N: 8, K: 4, transB, variant, seed: 7 });
      }
    });
  }

  test('the default tile keeps the GPU busy: 128×128 where that still makes ≥ 192 workgroups, else 64×64', () => {
    const big = { limits: { maxComputeWorkgroupStorageSize: 16384 } };
    // MiniLM, 64 texts × 128 tokens: 576–768 (QKV, FFN up) and 192 (→ 384) workgroups of 128×128
    assert.equal(W.defaultGemmVariant(big, 8192, 1152), '128x128');
    assert.equal(W.defaultGemmVariant(big, 8192, 384), '128x128');
    // one 512-token sequence of a base model: 24–96 workgroups of 128×128 (the H200 ran 512 × 3072 → 768 2.2× faster in 64×64)
    assert.equal(W.defaultGemmVariant(big, 512, 768), '64x64');
    assert.equal(W.defaultGemmVariant(big, 512, 3072), '64x64');
    assert.equal(W.defaultGemmVariant(big, 2048, 3072), '128x128');
    // a sentence
    assert.equal(W.defaultGemmVariant(big, 29, 384), '64x64');
  });

  test('split K: partial sums over k ranges, then bias and activation in the reduction; both layouts, vector and scalar, uneven last part', async () => {
    // K = 200: 3 parts of 80 k (whole BK = 16 tiles) → 80, 80, 40; 7 parts → 32 each but the last 8
    await check({ M: 70, N: 68, K: 200, transB: true, variant: '64x64', split: 3, act: 'gelu', seed: 41 });
    await check({ M: 33, N: 20, K: 200, transB: false, variant: '64x64', split: 7, seed: 43 });
    await check({ M: 9, N: 13, K: 37, transB: true, variant: '64x64', split: 2, act: 'relu', seed: 45 });
    await check({ M: 5, N: 8, K: 64, transB: true, variant: '64x64', split: 4, bias: false, seed: 47 });
    // more parts than BK tiles: as many parts as tiles
    await check({ M: 4, N: 8, K: 32, transB: true, variant: '64x64', split: 9, seed: 49 });
  });

  test('split K by default only where 64×64 tiles make < 48 workgroups and K ≥ 1024: about 128 workgroups, ≤ 8 parts of ≥ 256 k', () => {
    assert.equal(W.defaultGemmSplit('64x64', 128, 1024, 3072), 4); // Qwen3's down projection at 128 tokens: 32 tiles
    assert.equal(W.defaultGemmSplit('64x64', 128, 3072, 1024), 1); // its gate / up projections: 96 tiles
    assert.equal(W.defaultGemmSplit('64x64', 29, 384, 1536), 6); // MiniLM's FFN down, one sentence: 6 tiles
    assert.equal(W.defaultGemmSplit('64x64', 29, 384, 384), 1); // K < 1024
    assert.equal(W.defaultGemmSplit('64x64', 1, 64, 1024), 4); // one tile: ≥ 256 k per part
    assert.equal(W.defaultGemmSplit('128x128', 8192, 384, 1536), 1);
  });

  test('scalar path (K or N not a multiple of 4), with and without bias', async () => {
    await check({ M: 7, N: 13, K: 11, transB: true, variant: '64x64', seed: 9 });
    await check({ M: 70, N: 66, K: 18, transB: true, variant: '64x64', seed: 11 });
    await check({ M: 9, N: 6, K: 5, transB: false, variant: '64x64', seed: 13, bias: false });
  });

  for (const act of W.ACTIVATIONS.filter((a) => a !== 'none'))
    test(`bias + ${act} epilogue`, async () => {
      await check({ M: 40, N: 36, K: 24, transB: true, variant: '64x64', act, seed: 21 });
    });

  // parts: one product over weights concatenated along N writes each part's columns to its own output, as the
  // executor's fused q / k / v and gate / up products do: every element equal, bit for bit, to its part's product alone
  async function partsEqualAlone({ M, K, widths, transB = true, variant = '64x64', acts, bias = true, split, oneBuffer = false, seed = 61 }) {
    const N = widths.reduce((a, b) => a + b, 0);
    const A = randomArray(M * K, seed), B = randomArray(N * K, seed + 1), b = bias ? randomArray(N, seed + 2) : null;
    // the parts' weights as the executor concatenates them: rows n of W [N, K] (transB), columns of B [K, N] otherwise
    const rowsOf = (s, n) => (transB ? B.subarray(s * K, (s + n) * K) : Float32Array.from({ length: K * n }, (_, i) => B[Math.floor(i / n) * N + s + (i % n)]));
    const lead = 5; // one buffer: parts laid out after `lead` elements, back to back
    const size = lead + M * N;
    const whole = oneBuffer ? ctx.empty(4 * size) : null;
    const parts = [], alone = [];
    let s = 0, at = lead;
    for (const [i, n] of widths.entries()) {
      const activation = acts?.[i] ?? 'none';
      const c = oneBuffer ? whole : ctx.empty(4 * M * n);
      parts.push({ c, n, offset: oneBuffer ? at : 0, activation });
      const own = ctx.empty(4 * M * n);
      await runRead((enc) => W.gemm(ctx, enc, { a: up(A), b: up(rowsOf(s, n)), c: own, bias: b ? up(b.subarray(s, s + n)) : undefined, M, N: n, K, transB, variant, activation, split }), own, 1);
      alone.push(await ctx.read(own, M * n));
      s += n;
      at += M * n;
    }
    await runRead((enc) => W.gemm(ctx, enc, { a: up(A), b: up(B), bias: b ? up(b) : undefined, M, N, K, transB, variant, split, parts }), parts[0].c, 1);
    if (oneBuffer) {
      const got = await ctx.read(whole, size);
      assert.deepEqual(got.subarray(lead), Float32Array.from(alone.flatMap((x) => [...x])), 'parts in one buffer');
    } else {
      for (const [i, p] of parts.entries()) assert.deepEqual(await ctx.read(p.c, M * p.n), alone[i], `part ${i}`);
    }
  }

  test('parts: q, k, v in three buffers with bias; gate and up in one buffer, the second activated; equal to each part alone bit for bit', async () => {
    await partsEqualAlone({ M: 19, K: 24, widths: [32, 16, 16] });
    await partsEqualAlone({ M: 70, K: 36, widths: [40, 40], acts: ['none', 'silu'], bias: false, oneBuffer: true, seed: 63 });
    // a tile (64 columns) across a part boundary, 128×128 tiles, the plain layout
    await partsEqualAlone({ M: 9, K: 16, widths: [12, 100, 20], acts: ['gelu', 'none', 'relu'], variant: '128x128', seed: 65 });
    await partsEqualAlone({ M: 6, K: 12, widths: [8, 12], transB: false, seed: 67 });
  });

  test('parts: the scalar path (a width or offset not a multiple of 4) and split K (the reduction writes the parts)', async () => {
    await partsEqualAlone({ M: 7, K: 11, widths: [5, 6, 3], acts: ['none', 'gelu', 'none'], seed: 69 });
    await partsEqualAlone({ M: 7, K: 12, widths: [6, 10], oneBuffer: true, seed: 71 });
    await partsEqualAlone({ M: 33, K: 200, widths: [24, 8, 8], split: 3, acts: ['none', 'none', 'silu'], seed: 73 });
    await partsEqualAlone({ M: 5, K: 37, widths: [9, 4], split: 2, oneBuffer: true, seed: 75 });
  });

  test('gate: A ⊙ G loaded as the A operand equals the gated product then the GEMM, bit for bit (vector, scalar, split K, with parts)', async () => {
    for (const [M, N, K, split, transB] of [[19, 24, 32, undefined, true], [7, 13, 11, undefined, true], [33, 20, 200, 3, true], [6, 8, 12, undefined, false]]) {
      const A = randomArray(M * K, 77), G = randomArray(M * K, 78), B = randomArray(N * K, 79), bias = randomArray(N, 80);
      const a1 = up(A), c1 = ctx.empty(4 * M * N);
      await runRead((enc) => {
        W.gated(ctx, enc, { gate: a1, up: up(G), rows: 1, width: M * K, activation: 'none' });
        W.gemm(ctx, enc, { a: a1, b: up(B), c: c1, bias: up(bias), M, N, K, split, transB, variant: '64x64' });
      }, c1, 1);
      const c2 = ctx.empty(4 * M * N);
      const got = await runRead((enc) => W.gemm(ctx, enc, { a: up(A), gate: up(G), b: up(B), c: c2, bias: up(bias), M, N, K, split, transB, variant: '64x64' }), c2, M * N);
      assert.deepEqual(got, await ctx.read(c1, M * N), `M ${M} N ${N} K ${K} split ${split}`);
    }
    const a = ctx.empty(4 * 64), enc = ctx.device.createCommandEncoder();
    assert.throws(() => W.gemm(ctx, enc, { a, gate: ctx.empty(8), b: a, c: a, M: 4, N: 4, K: 4 }), /gemm: gate: expected a GPUBuffer of at least 64 bytes/);
  });

  test('glu: act(one half) ⊙ the other of a [M, 2K] A, loaded as the A operand, equals the pair-layout GLU then the GEMM, bit for bit', async () => {
    for (const [M, N, K, split, act, actHalf] of [[19, 24, 32, undefined, 'gelu', 0], [7, 13, 11, undefined, 'silu', 1], [33, 20, 200, 3, 'gelu_tanh', 0]]) {
      const X = randomArray(M * 2 * K, 81), B = randomArray(N * K, 82);
      const y = ctx.empty(4 * M * K), c1 = ctx.empty(4 * M * N);
      await runRead((enc) => {
        W.gated(ctx, enc, { x: up(X), y, rows: M, width: K, activation: act, actHalf });
        W.gemm(ctx, enc, { a: y, b: up(B), c: c1, M, N, K, split, variant: '64x64' });
      }, c1, 1);
      const c2 = ctx.empty(4 * M * N);
      const got = await runRead((enc) => W.gemm(ctx, enc, { a: up(X), glu: { activation: act, actHalf }, b: up(B), c: c2, M, N, K, split, variant: '64x64' }), c2, M * N);
      assert.deepEqual(got, await ctx.read(c1, M * N), `M ${M} N ${N} K ${K} ${act} half ${actHalf}`);
    }
    const a = ctx.empty(64), enc = ctx.device.createCommandEncoder();
    assert.throws(() => W.gemm(ctx, enc, { a, glu: { activation: 'gelu' }, b: a, c: a, M: 4, N: 4, K: 4 }), /gemm: a: expected a GPUBuffer of at least 128 bytes/);
    assert.throws(() => W.gemm(ctx, enc, { a, glu: { activation: 'gelu', actHalf: 2 }, b: a, c: a, M: 2, N: 2, K: 2 }), /gemm: glu: expected/);
  });

  test('parts: more than 3 outputs, widths that miss N, an output too small are RangeErrors naming them', () => {
    const a = ctx.empty(4 * 64), enc = ctx.device.createCommandEncoder();
    const part = (n, c = ctx.empty(4 * 64)) => ({ c, n });
    assert.throws(() => W.gemm(ctx, enc, { a, b: a, M: 2, N: 4, K: 2, parts: [part(1), part(1), part(1), part(1)] }), /gemm: parts: expected 1 to 3 outputs, got 4/);
    assert.throws(() => W.gemm(ctx, enc, { a, b: a, M: 2, N: 4, K: 2, parts: [part(1), part(2)] }), /gemm: parts: widths sum to 3, expected N = 4/);
    assert.throws(() => W.gemm(ctx, enc, { a, b: a, M: 2, N: 4, K: 2, parts: [part(2), part(2, ctx.empty(8))] }), /gemm: parts\[1\]\.c: expected a GPUBuffer of at least 16 bytes \(2×2 from element 0\), got 8 bytes/);
    assert.throws(() => W.gemm(ctx, enc, { a, b: a, M: 2, N: 4, K: 2, parts: [part(2), { ...part(2), activation: 'swish' }] }), /gemm: parts\[1\]\.activation 'swish'/);
  });

  test('bad sizes and buffers are RangeErrors naming them', async () => {
    const a = ctx.empty(16), enc = ctx.device.createCommandEncoder();
    assert.throws(() => W.gemm(ctx, enc, { a, b: a, c: a, M: 0, N: 1, K: 1 }), /gemm: M: expected a positive integer/);
    assert.throws(() => W.gemm(ctx, enc, { a, b: a, c: a, M: 4, N: 4, K: 4 }), /gemm: a: expected a GPUBuffer of at least 64 bytes/);
    assert.throws(() => W.gemm(ctx, enc, { a, b: a, c: a, M: 1, N: 1, K: 1, variant: '7x7' }), /unknown variant '7x7'/);
    assert.throws(() => W.gemm(ctx, enc, { a, b: a, c: a, M: 1, N: 1, K: 1, split: 0 }), /gemm: split: expected a positive integer, got 0/);
  });
});

describe('webgpu norms, activations, embedding, pooling', { skip }, () => {
  test('LayerNorm of x + residual (sum written) and RMSNorm match the float64 formulas', async () => {
    const rows = 5, dim = 300; // dim > 256 threads: the strided loop and the tree both matter
    const x = randomArray(rows * dim, 31), r = randomArray(rows * dim, 32), g = randomArray(dim, 33), b = randomArray(dim, 34);
    for (let i = 0; i < dim; ++i) x[i] += 3; // a row with a large mean
    const y = ctx.empty(rows * dim * 4), sum = ctx.empty(rows * dim * 4);
    const eps = 1e-12;
    const got = await runRead((enc) => W.norm(ctx, enc, { kind: 'layernorm', x: up(x), residual: up(r), sum, y, gamma: up(g), beta: up(b), rows, dim, eps }), y, rows * dim);
    const gotSum = await ctx.read(sum, rows * dim);
    const want = new Float64Array(rows * dim), wantRms = new Float64Array(rows * dim);
    for (let row = 0; row < rows; ++row) {
      const s = Array.from({ length: dim }, (_, i) => x[row * dim + i] + r[row * dim + i]);
      const mean = s.reduce((a, v) => a + v, 0) / dim;
      const variance = s.reduce((a, v) => a + (v - mean) ** 2, 0) / dim;
      const ms = s.reduce((a, v) => a + v * v, 0) / dim;
      s.forEach((v, i) => {
        want[row * dim + i] = ((v - mean) / Math.sqrt(variance + eps)) * g[i] + b[i];
        wantRms[row * dim + i] = (v / Math.sqrt(ms + 1e-6)) * g[i];
      });
    }
    assert.ok(maxAbs(got, want) < 2e-5, `layernorm error ${maxAbs(got, want)}`);
    assert.ok(maxAbs(gotSum, Float32Array.from(x, (v, i) => v + r[i])) === 0, 'the residual sum is written exactly');
    const yr = ctx.empty(rows * dim * 4);
    const xs = Float32Array.from(x, (v, i) => v + r[i]);
    const gotRms = await runRead((enc) => W.norm(ctx, enc, { kind: 'rmsnorm', x: up(xs), y: yr, gamma: up(g), rows, dim, eps: 1e-6 }), yr, rows * dim);
    assert.ok(maxAbs(gotRms, wantRms) < 2e-5, `rmsnorm error ${maxAbs(gotRms, wantRms)}`);
  });

  test('in place (no y): x = norm(x + residual) and x = norm(x), LayerNorm and RMSNorm, equal the out-of-place results bit for bit', async () => {
    const rows = 4, dim = 300;
    const x = randomArray(rows * dim, 35), r = randomArray(rows * dim, 36), g = randomArray(dim, 37), b = randomArray(dim, 38);
    for (const [kind, beta, residual] of [['layernorm', b, r], ['layernorm', null, null], ['rmsnorm', null, r], ['rmsnorm', null, null]]) {
      const args = { kind, gamma: up(g), ...(beta ? { beta: up(beta) } : {}), rows, dim, eps: 1e-6 };
      const y = ctx.empty(rows * dim * 4);
      const want = await runRead((enc) => W.norm(ctx, enc, { ...args, x: up(x), ...(residual ? { residual: up(residual) } : {}), y }), y, rows * dim);
      const xb = up(x);
      const got = await runRead((enc) => W.norm(ctx, enc, { ...args, x: xb, ...(residual ? { residual: up(residual) } : {}) }), xb, rows * dim);
      assert.deepEqual(got, want, `${kind}${beta ? ' + beta' : ''}${residual ? ' + residual' : ''}`);
    }
    assert.throws(() => W.norm(ctx, ctx.device.createCommandEncoder(), { kind: 'layernorm', x: up(x), sum: ctx.empty(rows * dim * 4), gamma: up(g), rows, dim }), /sum needs y/);
  });

  test('sumInPlace (a pre-LN add then norm in one dispatch): x = x + residual and y = norm of it, y apart or the residual itself, equal to the two ops bit for bit', async () => {
    const rows = 3, dim = 300;
    const x = randomArray(rows * dim, 51), r = randomArray(rows * dim, 52), g = randomArray(dim, 53), b = randomArray(dim, 54);
    for (const [kind, beta] of [['layernorm', b], ['rmsnorm', null]]) {
      const args = { kind, gamma: up(g), ...(beta ? { beta: up(beta) } : {}), rows, dim, eps: 1e-6 };
      // two ops: x += r, then y = norm(x)
      const x1 = up(x), y1 = ctx.empty(rows * dim * 4);
      await runRead((enc) => { W.add(ctx, enc, { a: x1, b: up(r), n: rows * dim }); W.norm(ctx, enc, { ...args, x: x1, y: y1 }); }, y1, 1);
      const [wantSum, wantNorm] = [await ctx.read(x1, rows * dim), await ctx.read(y1, rows * dim)];
      const x2 = up(x), y2 = ctx.empty(rows * dim * 4);
      const gotNorm = await runRead((enc) => W.norm(ctx, enc, { ...args, x: x2, residual: up(r), sumInPlace: true, y: y2 }), y2, rows * dim);
      assert.deepEqual(await ctx.read(x2, rows * dim), wantSum, `${kind}: the sum in x`);
      assert.deepEqual(gotNorm, wantNorm, `${kind}: the norm in y`);
      const x3 = up(x), r3 = up(r);
      const gotInto = await runRead((enc) => W.norm(ctx, enc, { ...args, x: x3, residual: r3, sumInPlace: true, y: r3 }), r3, rows * dim);
      assert.deepEqual(await ctx.read(x3, rows * dim), wantSum, `${kind}: the sum in x (output into the residual)`);
      assert.deepEqual(gotInto, wantNorm, `${kind}: the norm replaces the residual`);
    }
    const enc = ctx.device.createCommandEncoder();
    assert.throws(() => W.norm(ctx, enc, { kind: 'rmsnorm', x: up(x), sumInPlace: true, y: up(x), gamma: up(g), rows, dim }), /sumInPlace needs a residual/);
    const r4 = up(r);
    assert.throws(() => W.norm(ctx, enc, { kind: 'rmsnorm', x: up(x), residual: r4, y: r4, gamma: up(g), rows, dim }), /only with sumInPlace/);
  });

  test('residualNorm (Gemma3\'s sandwich in one dispatch): r = rms₁(r) in place, x += r, r = rms₂(x) (or x = rms₂(x)) — equal to the three ops bit for bit', async () => {
    for (const [rows, dim] of [[3, 300], [5, 24]]) {
      const x = randomArray(rows * dim, 55), r = randomArray(rows * dim, 56), g1 = randomArray(dim, 57), g2 = randomArray(dim, 58);
      const args = { kind: 'rmsnorm', rows, dim, eps: 1e-6 };
      const x1 = up(x), r1 = up(r);
      await runRead((enc) => {
        W.norm(ctx, enc, { ...args, x: r1, gamma: up(g1) });
        W.norm(ctx, enc, { ...args, x: x1, residual: r1, sumInPlace: true, y: r1, gamma: up(g2) });
      }, r1, 1);
      const x2 = up(x), r2 = up(r);
      const got = await runRead((enc) => W.norm(ctx, enc, { ...args, x: x2, residual: r2, sumInPlace: true, y: r2, gamma: up(g2), residualNorm: up(g1) }), r2, rows * dim);
      assert.deepEqual(await ctx.read(x2, rows * dim), await ctx.read(x1, rows * dim), `${rows}×${dim}: the sum in x`);
      assert.deepEqual(got, await ctx.read(r1, rows * dim), `${rows}×${dim}: the norm of the sum in r`);
      // the last sandwich of a stack: x = rms₂(x + rms₁(r)) in place
      const x3 = up(x), r3 = up(r), x4 = up(x);
      await runRead((enc) => {
        W.norm(ctx, enc, { ...args, x: r3, gamma: up(g1) });
        W.norm(ctx, enc, { ...args, x: x3, residual: r3, gamma: up(g2) });
      }, x3, 1);
      const inPlace = await runRead((enc) => W.norm(ctx, enc, { ...args, x: x4, residual: up(r), gamma: up(g2), residualNorm: up(g1) }), x4, rows * dim);
      assert.deepEqual(inPlace, await ctx.read(x3, rows * dim), `${rows}×${dim}: in place`);
    }
    const enc = ctx.device.createCommandEncoder(), b = up(new Float32Array(8));
    assert.throws(() => W.norm(ctx, enc, { kind: 'layernorm', x: b, residual: b, sumInPlace: true, y: b, gamma: b, rows: 1, dim: 8, residualNorm: b }), /residualNorm .* needs kind 'rmsnorm' and a residual/);
  });

  test('activations match the float64 functions from −12 to 12, in place and out of place', async () => {
    const n = 2401;
    const x = Float32Array.from({ length: n }, (_, i) => -12 + (24 * i) / (n - 1));
    for (const act of W.ACTIVATIONS) {
      const buf = up(x);
      const got = await runRead((enc) => W.activate(ctx, enc, { x: buf, n, activation: act }), buf, n);
      const want = Float64Array.from(x, ACT64[act]);
      // A–S erf (1.5e-7) in gelu; otherwise a few ulps of values up to 12.
      const err = maxError(got, want);
      assert.ok(err < 1e-6, `${act}: max relative error ${err}`);
      const y = ctx.empty(n * 4);
      const got2 = await runRead((enc) => W.activate(ctx, enc, { x: up(x), y, n, activation: act }), y, n);
      assert.deepEqual(got2, got, `${act}: out of place equals in place`);
    }
  });

  test('GeGLU and SwiGLU: pair layout (either half activated) and split layout', async () => {
    const rows = 3, F = 70;
    const x = Float32Array.from(randomArray(rows * 2 * F, 41), (v) => 4 * v);
    for (const [act, half] of [['gelu', 0], ['silu', 1], ['gelu_tanh', 0]]) {
      const y = ctx.empty(rows * F * 4);
      const got = await runRead((enc) => W.gated(ctx, enc, { x: up(x), y, rows, width: F, activation: act, actHalf: half }), y, rows * F);
      const want = new Float64Array(rows * F);
      for (let r = 0; r < rows; ++r)
        for (let i = 0; i < F; ++i) {
          const a = x[r * 2 * F + half * F + i], u = x[r * 2 * F + (1 - half) * F + i];
          want[r * F + i] = ACT64[act](a) * u;
        }
      assert.ok(maxError(got, want) < 2e-6, `${act} half ${half}: ${maxError(got, want)}`);
    }
    const gate = randomArray(rows * F, 42), upv = randomArray(rows * F, 43), y = ctx.empty(rows * F * 4);
    const got = await runRead((enc) => W.gated(ctx, enc, { gate: up(gate), up: up(upv), y, rows, width: F, activation: 'silu' }), y, rows * F);
    assert.ok(maxError(got, Float64Array.from(gate, (g, i) => ACT64.silu(g) * upv[i])) < 2e-6);
    const sum = ctx.empty(rows * F * 4);
    const added = await runRead((enc) => W.add(ctx, enc, { a: up(gate), b: up(upv), y: sum, n: rows * F }), sum, rows * F);
    assert.deepEqual(added, Float32Array.from(gate, (g, i) => g + upv[i]));
    // in place (no y): gate = act(gate) · up and a += b, the same values as out of place
    const gb = up(gate);
    assert.deepEqual(await runRead((enc) => W.gated(ctx, enc, { gate: gb, up: up(upv), rows, width: F, activation: 'silu' }), gb, rows * F), got, 'gated in place');
    const ab = up(gate);
    assert.deepEqual(await runRead((enc) => W.add(ctx, enc, { a: ab, b: up(upv), n: rows * F }), ab, rows * F), added, 'add in place');
  });

  test('embedding gather sums word, position and type rows; bad ids are RangeErrors', async () => {
    const tokens = 9, dim = 20;
    const words = randomArray(50 * dim, 51), pos = randomArray(16 * dim, 52), types = randomArray(2 * dim, 53);
    const ids = W.embeddingIds([3, 49, 0, 7, 7, 12, 1, 2, 48], 50);
    const pids = W.embeddingIds(Array.from({ length: tokens }, (_, t) => t + 2), 16);
    const tids = W.embeddingIds([0, 0, 0, 0, 1, 1, 1, 1, 1], 2);
    const out = ctx.empty(tokens * dim * 4);
    const got = await runRead((enc) => W.embedding(ctx, enc, {
      out, tokens, dim,
      tables: [{ table: up(words), ids: up(ids), rows: 50 }, { table: up(pos), ids: up(pids), rows: 16 }, { table: up(types), ids: up(tids), rows: 2 }],
    }), out, tokens * dim);
    const want = new Float32Array(tokens * dim);
    for (let t = 0; t < tokens; ++t)
      for (let c = 0; c < dim; ++c) want[t * dim + c] = words[ids[t] * dim + c] + pos[pids[t] * dim + c] + types[tids[t] * dim + c];
    assert.deepEqual(got, want);
    assert.throws(() => W.embeddingIds([0, 50], 50), /ids\[1\] = 50 is outside the table's 50 rows/);
    assert.throws(() => W.embeddingIds([-1], 50), RangeError);
  });

  test("pooling equals the pipelines' pool() (mean over the mask, cls, last token under left and right padding, normalize, an all-masked row)", async () => {
    const B = 3, L = 5, H = 300;
    const x = randomArray(B * L * H, 61);
    // right padding, an inner pad with left padding, nothing kept (last_token: zeros)
    const mask = Uint32Array.from([1, 1, 1, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0, 0, 0]);
    for (const pooling of ['mean', 'cls', 'last_token'])
      for (const normalize of [false, true]) {
        const out = ctx.empty(B * H * 4);
        const got = await runRead((enc) => W.pooling(ctx, enc, { x: up(x), mask: up(mask), out, batch: B, seqLen: L, hidden: H, mode: pooling, normalize }), out, B * H);
        const want = pool({ data: x, dims: [B, L, H] }, { data: Array.from(mask), dims: [B, L] }, { pooling, normalize }).data;
        assert.ok(maxAbs(got, want) < 1e-6, `${pooling} normalize ${normalize}: ${maxAbs(got, want)}`);
      }
  });
});

// ---------- subgroup reductions (kernels/reduce.js) ----------
/** Records the WGSL of every pipeline `c` compiles from now on (c.pipeline's code), into the returned array. */
function compiledCode(c) {
  const codes = [];
  const pipeline = c.pipeline.bind(c);
  c.pipeline = (key, make) => pipeline(key, () => {
    const code = make();
    codes.push(code);
    return code;
  });
  return codes;
}
/** A GPU object over `real` whose adapters lack `feature` (or, with language: true, WGSL's language feature). */
function withoutFeature(real, feature, { language = false } = {}) {
  if (language) return { requestAdapter: (o) => real.requestAdapter(o), wgslLanguageFeatures: new Set([...real.wgslLanguageFeatures].filter((f) => f !== feature)) };
  return {
    wgslLanguageFeatures: real.wgslLanguageFeatures,
    requestAdapter: async (o) => {
      const adapter = await real.requestAdapter(o);
      const features = new Set([...adapter.features].filter((f) => f !== feature));
      return new Proxy(adapter, { get: (t, k) => (k === 'features' ? features : typeof t[k] === 'function' ? t[k].bind(t) : t[k]) });
    },
  };
}

describe('webgpu subgroup reductions: the subgroup path and the plain one (subgroups: false) match the float64 formulas and each other', { skip }, () => {
  const subgroups = !skip && W.hasSubgroups(ctx.gpu, ctx.adapter);
  let plain = null;
  before(async () => {
    if (!skip) plain = await W.createContext({ gpu: ctx.gpu, subgroups: false });
  });
  after(() => plain?.destroy());
  const DIMS = [1, 7, 300, 384, 1000]; // below, between and above 256 threads and the subgroup sizes

  test('the default context takes the subgroup path where the adapter has it; subgroups: false switches it off; bad values are TypeErrors', async () => {
    assert.equal(ctx.subgroups, subgroups);
    assert.equal(ctx.info.subgroups, subgroups);
    assert.equal(ctx.features.includes('subgroups'), subgroups);
    if (ctx.info.architecture === 'swiftshader') {
      // SwiftShader exposes 'subgroups' (size 4) and Dawn's WGSL has subgroup_id: the subgroup path is really tested here
      assert.equal(subgroups, true, 'SwiftShader has subgroups');
      assert.equal(ctx.info.subgroupMinSize, 4);
      assert.equal(ctx.info.subgroupMaxSize, 4);
    }
    assert.equal(plain.subgroups, false);
    assert.equal(plain.info.subgroups, false);
    assert.ok(!plain.features.includes('subgroups'), 'the plain device was created without the feature');
    await assert.rejects(W.createContext({ gpu: ctx.gpu, subgroups: 'no' }), /options\.subgroups: expected true or false, got string no/);
  });

  test('the WGSL each context compiles: subgroupAdd with the subgroup path, none of it with subgroups: false', { skip: !subgroups && 'this adapter has no subgroups' }, async () => {
    for (const on of [true, false]) {
      const c = await W.createContext({ gpu: ctx.gpu, subgroups: on }); // fresh: nothing compiled yet
      try {
        const codes = compiledCode(c);
        const x = c.upload(randomArray(384, 5)), g = c.upload(randomArray(384, 6)), y = c.empty(384 * 4);
        const mask = c.upload(Uint32Array.from([1, 1]));
        await c.run((enc) => {
          W.norm(c, enc, { kind: 'rmsnorm', x, y, gamma: g, rows: 1, dim: 384, eps: 1e-6 });
          W.pooling(c, enc, { x, mask, out: y, batch: 1, seqLen: 2, hidden: 192, mode: 'mean', normalize: true });
        });
        assert.equal(codes.length, 2, 'both kernels compiled');
        for (const code of codes) {
          assert.equal(code.startsWith('enable subgroups;'), on, code.slice(0, 60));
          assert.equal(/subgroupAdd/.test(code), on);
        }
        assert.equal([...c.pipelines.keys()].filter((k) => k.endsWith(':sg')).length, on ? 2 : 0, 'the variant is in the pipeline keys');
      } finally {
        c.destroy();
      }
    }
  });

  test('an adapter without the feature, or WGSL without subgroup_id, falls back to the plain path silently', { skip: !subgroups && 'this adapter has no subgroups' }, async () => {
    for (const gpu of [withoutFeature(ctx.gpu, 'subgroups'), withoutFeature(ctx.gpu, 'subgroup_id', { language: true })]) {
      const c = await W.createContext({ gpu });
      try {
        assert.equal(c.subgroups, false);
        const x = randomArray(7, 9), g = randomArray(7, 10), y = c.empty(7 * 4);
        const got = await c.run((enc) => W.norm(c, enc, { kind: 'rmsnorm', x: c.upload(x), y, gamma: c.upload(g), rows: 1, dim: 7, eps: 1e-6 })).then(() => c.read(y, 7));
        const inv = 1 / Math.sqrt(x.reduce((a, v) => a + v * v, 0) / 7 + 1e-6);
        assert.ok(maxAbs(got, Float64Array.from(x, (v, i) => v * inv * g[i])) < 1e-5);
      } finally {
        c.destroy();
      }
    }
  });

  test('LayerNorm (residual and sum, beta or none) and RMSNorm at dims 1, 7, 300, 384, 1000', async () => {
    const rows = 3;
    for (const dim of DIMS) {
      const x = randomArray(rows * dim, 71 + dim), r = randomArray(rows * dim, 72 + dim), g = randomArray(dim, 73), b = randomArray(dim, 74);
      for (let i = 0; i < dim; ++i) x[i] += 3; // a row with a large mean
      const want = { layernorm: new Float64Array(rows * dim), nobeta: new Float64Array(rows * dim), rmsnorm: new Float64Array(rows * dim) };
      for (let row = 0; row < rows; ++row) {
        const s = Array.from({ length: dim }, (_, i) => x[row * dim + i] + r[row * dim + i]);
        const mean = s.reduce((a, v) => a + v, 0) / dim;
        const inv = 1 / Math.sqrt(s.reduce((a, v) => a + (v - mean) ** 2, 0) / dim + 1e-12);
        const invRms = 1 / Math.sqrt(s.reduce((a, v) => a + v * v, 0) / dim + 1e-6);
        s.forEach((v, i) => {
          want.nobeta[row * dim + i] = (v - mean) * inv * g[i];
          want.layernorm[row * dim + i] = want.nobeta[row * dim + i] + b[i];
          want.rmsnorm[row * dim + i] = v * invRms * g[i];
        });
      }
      const got = [];
      for (const c of [ctx, plain]) {
        const out = {};
        const run = async (name, args) => {
          const y = c.empty(rows * dim * 4), sum = c.empty(rows * dim * 4);
          await c.run((enc) => W.norm(c, enc, { x: c.upload(x), residual: c.upload(r), sum, y, gamma: c.upload(g), rows, dim, ...args }));
          out[name] = await c.read(y, rows * dim);
          assert.equal(maxAbs(await c.read(sum, rows * dim), Float32Array.from(x, (v, i) => v + r[i])), 0, 'the residual sum is written exactly');
        };
        await run('layernorm', { kind: 'layernorm', beta: c.upload(b), eps: 1e-12 });
        await run('nobeta', { kind: 'layernorm', eps: 1e-12 });
        await run('rmsnorm', { kind: 'rmsnorm', eps: 1e-6 });
        for (const name in want) assert.ok(maxAbs(out[name], want[name]) < 2e-5, `${c.subgroups ? 'subgroups' : 'plain'} ${name} dim ${dim}: ${maxAbs(out[name], want[name])}`);
        got.push(out);
      }
      for (const name in want) assert.ok(maxAbs(got[0][name], got[1][name]) < 1e-5, `subgroups vs plain ${name} dim ${dim}: ${maxAbs(got[0][name], got[1][name])}`);
    }
  });

  test("pooling (mean, cls, last_token; normalize or not) equals the pipelines' pool() at hidden 1, 7, 300, 384, 1000", async () => {
    const B = 3, L = 4;
    const mask = Uint32Array.from([1, 1, 1, 0, 0, 1, 1, 1, 0, 0, 0, 0]); // right padding, left padding, nothing kept
    for (const H of DIMS) {
      const x = randomArray(B * L * H, 81 + H);
      for (const mode of ['mean', 'cls', 'last_token'])
        for (const normalize of [false, true]) {
          const want = pool({ data: x, dims: [B, L, H] }, { data: Array.from(mask), dims: [B, L] }, { pooling: mode, normalize }).data;
          const got = [];
          for (const c of [ctx, plain]) {
            const out = c.empty(B * H * 4);
            await c.run((enc) => W.pooling(c, enc, { x: c.upload(x), mask: c.upload(mask), out, batch: B, seqLen: L, hidden: H, mode, normalize }));
            got.push(await c.read(out, B * H));
            assert.ok(maxAbs(got.at(-1), want) < 1e-6, `${c.subgroups ? 'subgroups' : 'plain'} ${mode} normalize ${normalize} hidden ${H}: ${maxAbs(got.at(-1), want)}`);
          }
          assert.ok(maxAbs(got[0], got[1]) < 1e-6);
        }
    }
  });
});

// ---------- attention ----------
/** float64 attention (the contract of cpp/include/relpos/attention.h) with an optional bias(h, i, j). */
function attention64({ q, k, v, B, H, L, D, mask, window = -1, causal = false, scale, bias }) {
  const out = new Float64Array(B * H * L * D);
  for (let b = 0; b < B; ++b)
    for (let h = 0; h < H; ++h)
      for (let i = 0; i < L; ++i) {
        const row = (b * H + h) * L;
        const s = new Float64Array(L).fill(-Infinity);
        let mx = -Infinity;
        for (let j = 0; j < L; ++j) {
          if ((mask && !mask[b * L + j]) || (window >= 0 && Math.abs(i - j) > window) || (causal && j > i)) continue;
          let d = 0;
          for (let c = 0; c < D; ++c) d += q[(row + i) * D + c] * k[(row + j) * D + c];
          s[j] = d * scale + (bias ? bias(h, i, j) : 0);
          mx = Math.max(mx, s[j]);
        }
        if (mx === -Infinity) continue; // no visible key: 0
        let sum = 0;
        const p = s.map((x) => (x === -Infinity ? 0 : Math.exp(x - mx)));
        p.forEach((x) => (sum += x));
        for (let c = 0; c < D; ++c) {
          let acc = 0;
          for (let j = 0; j < L; ++j) acc += p[j] * v[(row + j) * D + c];
          out[(row + i) * D + c] = acc / sum;
        }
      }
  return out;
}

/** rp.attention (WASM) with a sliding window: one call per query row, its window folded into the key mask. */
function rpAttentionWindowed(opts, window) {
  const { batch: B, heads: H, seqLen: L, headDim: D } = opts;
  if (window < 0) return rp.attention(opts).output;
  const out = new Float32Array(B * H * L * D);
  for (let i = 0; i < L; ++i) {
    const mask = new Uint8Array(B * L);
    for (let b = 0; b < B; ++b)
      for (let j = 0; j < L; ++j) mask[b * L + j] = (opts.mask ? opts.mask[b * L + j] : 1) && Math.abs(i - j) <= window ? 1 : 0;
    const o = rp.attention({ ...opts, mask }).output;
    for (let b = 0; b < B; ++b)
      for (let h = 0; h < H; ++h) out.set(o.subarray(((b * H + h) * L + i) * D, ((b * H + h) * L + i + 1) * D), ((b * H + h) * L + i) * D);
  }
  return out;
}

describe('webgpu attention', { skip }, () => {
  const B = 2, H = 3, L = 41, D = 16;
  const n = B * H * L * D;
  const q = randomArray(n, 71), k = randomArray(n, 72), v = randomArray(n, 73);
  const maskU8 = new Uint8Array(B * L).fill(1);
  for (let j = 33; j < L; ++j) maskU8[L + j] = 0; // padding in the second sequence
  maskU8[5] = 0;
  const mask = Uint32Array.from(maskU8);
  const nb = 16, maxDistance = 24;
  const table = randomArray(nb * H, 74);
  const slopes = W.alibiSlopes(H, 'bloom');

  async function gpuAttention({ scheme = { type: 'none' }, window = -1, causal = false, scale = 1 / Math.sqrt(D), rope = null, qIn = q, kIn = k, bq, bkv, withMask = true }) {
    const qb = up(qIn), kb = up(kIn), vb = up(v), out = ctx.empty(n * 4);
    return runRead((enc) => {
      if (rope) {
        const { cos, sin } = W.ropeTables(L, rope.rotaryDim ?? D, rope.theta ?? 10000);
        const [cb, sb] = [up(cos), up(sin)];
        for (const x of [qb, kb]) W.rope(ctx, enc, { x, cos: cb, sin: sb, rows: B * H * L, seqLen: L, headDim: D, rotaryDim: rope.rotaryDim, layout: rope.layout });
      }
      W.attention(ctx, enc, { q: qb, k: kb, v: vb, out, batch: B, heads: H, seqLen: L, headDim: D, mask: withMask ? up(mask) : undefined, window, causal, scale, scheme, bq, bkv });
    }, out, n);
  }

  const cases = [
    { name: 'none', rp: { type: 'none' }, gpu: () => ({}) },
    { name: 'rope half (pre-pass)', rp: { type: 'rope', layout: 'half' }, gpu: () => ({ rope: { layout: 'half' } }) },
    { name: 'rope interleaved, rotaryDim 8, theta 500', rp: { type: 'rope', layout: 'interleaved', rotaryDim: 8, theta: 500 }, gpu: () => ({ rope: { layout: 'interleaved', rotaryDim: 8, theta: 500 } }) },
    { name: 'alibi (bloom slopes)', rp: { type: 'alibi', slopes: 'bloom' }, gpu: () => ({ scheme: { type: 'alibi', slopes: up(slopes) } }) },
    { name: 'alibi (custom slopes, symmetric)', rp: { type: 'alibi', slopes: Float32Array.from([0.5, -0.25, 0.125]), symmetric: true }, gpu: () => ({ scheme: { type: 'alibi', slopes: up(Float32Array.from([0.5, -0.25, 0.125])), symmetric: true } }) },
    {
      name: 't5 bucket bias (content scale 1)',
      rp: { type: 't5', numBuckets: nb, maxDistance, biasTable: table },
      gpu: () => ({ scale: 1, scheme: { type: 'bucket', buckets: up(W.t5Buckets(L, { numBuckets: nb, maxDistance })), table: up(table) } }),
    },
    {
      // MPNet: T5 buckets with the 1/sqrt(d) content scale; rp's t5 scheme has scale 1, so its q is pre-scaled.
      name: 'mpnet bucket bias (content scale 1/sqrt(d))',
      rp: { type: 't5', numBuckets: nb, maxDistance, biasTable: table },
      rpQ: Float32Array.from(q, (x) => x / Math.sqrt(D)),
      gpu: () => ({ scheme: { type: 'bucket', buckets: up(W.t5Buckets(L, { numBuckets: nb, maxDistance })), table: up(table) } }),
    },
  ];

  for (const c of cases)
    for (const window of [-1, 4])
      test(`${c.name}, key mask${window >= 0 ? `, window ${window}` : ''}: equals rp.attention`, { skip: skipRp }, async () => {
        const got = await gpuAttention({ ...c.gpu(), window });
        const want = rpAttentionWindowed({ q: c.rpQ ?? q, k, v, batch: B, heads: H, seqLen: L, headDim: D, mask: maskU8, scheme: c.rp }, window);
        const err = maxError(got, want);
        assert.ok(err < 2e-6, `max relative error ${err}`);
      });

  // Relative vectors (DeBERTa c2p / p2c, BERT relative_key / relative_key_query) against rp.attention: the
  // GPU gets the plan's description (row per distance, q-side table, k-side table2, head strides, term
  // scale), rp the scheme itself. Small spans / M = L so clamped distances and the table ends are hit.
  const relativeCases = [];
  for (const [M, keyQuery] of [[L, false], [L, true], [L + 9, true]]) {
    const E = randomArray((2 * M - 1) * D, 90 + M + (keyQuery ? 1 : 0));
    const rows = Int32Array.from({ length: 2 * L - 1 }, (_, t) => M - 1 - (t - (L - 1))); // row i − j + M − 1
    relativeCases.push({
      name: `bert relative_key${keyQuery ? '_query' : ''} (M ${M})`,
      rp: { type: 'bert-relative', maxPositions: M, keyQuery, table: E },
      gpu: () => ({ scheme: { type: 'relative_vectors', rows: up(rows), table: up(E), table2: keyQuery ? up(E) : undefined, termScale: 1 / Math.sqrt(D) } }),
    });
  }
  for (const [buckets, maxRelative] of [[8, 16], [-1, 6]])
    for (const terms of [['c2p'], ['p2c'], ['c2p', 'p2c']]) {
      const span = buckets > 0 ? buckets : maxRelative;
      const posKey = randomArray(H * 2 * span * D, 95 + span), posQuery = randomArray(H * 2 * span * D, 96 + span);
      const scale = 1 / Math.sqrt(D * (1 + terms.length));
      relativeCases.push({
        name: `deberta ${terms.join('+')} (buckets ${buckets}, maxRelative ${maxRelative})`,
        rp: { type: 'deberta', buckets, maxRelative, terms, posKey, posQuery },
        gpu: () => {
          assert.equal(rp.positions.debertaSpan({ buckets, maxRelative }), span);
          // idx(i, j) = clamp(bucket(i − j) + span, 0, 2·span − 1) at (j − i) + L − 1
          const rows = Int32Array.from({ length: 2 * L - 1 }, (_, t) =>
            Math.min(2 * span - 1, Math.max(0, span + rp.positions.debertaRelativePosition(L - 1 - t, { buckets, maxRelative }))));
          assert.ok(rows[0] === 2 * span - 1 && rows[2 * L - 2] === 0, 'the distances reach both clamped ends');
          return {
            scale,
            scheme: {
              type: 'relative_vectors', rows: up(rows), termScale: scale,
              table: terms.includes('c2p') ? up(posKey) : undefined, tableHead: 2 * span * D,
              table2: terms.includes('p2c') ? up(posQuery) : undefined, table2Head: 2 * span * D,
            },
          };
        },
      });
    }
  for (const c of relativeCases)
    for (const [window, bkv] of [[-1, undefined], [4, undefined], [-1, 4]])
      test(`${c.name}, key mask${window >= 0 ? `, window ${window}` : ''}${bkv ? `, bkv ${bkv}` : ''}: equals rp.attention`, { skip: skipRp }, async () => {
        const got = await gpuAttention({ ...c.gpu(), window, bkv });
        const want = rpAttentionWindowed({ q, k, v, batch: B, heads: H, seqLen: L, headDim: D, mask: maskU8, scheme: c.rp }, window);
        const err = maxError(got, want);
        assert.ok(err < 2e-6, `max relative error ${err}`);
      });

  test('relative_vectors: bad arguments are clear errors', () => {
    const enc = ctx.device.createCommandEncoder(), x = ctx.empty(64);
    const base = { q: x, k: x, v: x, out: x, batch: 1, heads: 1, seqLen: 4, headDim: 4 };
    assert.throws(() => W.attention(ctx, enc, { ...base, scheme: { type: 'relative_vectors', rows: x, termScale: 0.5 } }), /relative_vectors needs scheme.rows .* and scheme.table and\/or scheme.table2/);
    assert.throws(() => W.attention(ctx, enc, { ...base, scheme: { type: 'relative_vectors', rows: x, table: x } }), /finite scheme.termScale/);
    assert.throws(() => W.attention(ctx, enc, { ...base, scheme: { type: 'relative_vectors', rows: x, table: x, tableHead: 6, termScale: 1 } }), /tableHead: expected a non-negative multiple of 4/);
  });

  test('checkPlan accepts relative_vectors attention, mask_rows and derived weights; an unknown scheme kind and a derived weight without its sources are refused', () => {
    const attention = { op: 'attention', heads: 2, kv_heads: 2, head_dim: 8, q_row: 48, k_row: 48, v_row: 48, q_head: 8, k_head: 8, v_head: 8 };
    W.checkPlan({ ops: [{ op: 'mask_rows', x: 0, x_off: 0, rows: 4, width: 16 }, { ...attention, kind: 'relative_vectors' }] });
    assert.throws(() => W.checkPlan({ ops: [{ ...attention, kind: 'shaw' }] }), /attention scheme 'shaw' has no WebGPU kernel yet/);
    // a derived table (DeBERTa's projected relative embeddings) reads earlier float weights
    const derived = { key: 9, kind: 'derived', from: 0, linear: 1, bias: 2, rows: 4, heads: 2, in: 8, out: 16 };
    W.checkPlan({ weights: [{ key: 1 }, { key: 2 }, { key: 3 }, derived], ops: [] });
    for (const bad of [{ from: 3 }, { linear: 0, from: 5 }, { heads: 3 }, { bias: -2 }])
      assert.throws(() => W.checkPlan({ weights: [{ key: 1 }, { key: 2 }, { key: 3 }, { ...derived, ...bad }], ops: [] }), /derived weight 3 needs earlier float weights/);
    assert.throws(() => W.checkPlan({ weights: [{ key: 1 }, { key: 2, kind: 'q8', rows: 16, cols: 8 }, { key: 3 }, derived], ops: [] }), /derived weight 3/);
  });

  test('t5Buckets and alibiSlopes equal rp.positions (bucket edges at exact powers, bloom/mpt extra heads)', { skip: skipRp }, () => {
    for (const [len, o] of [[300, { numBuckets: 32, maxDistance: 128 }], [70, { numBuckets: 8, maxDistance: 20, bidirectional: false }], [130, { numBuckets: 64, maxDistance: 256 }]]) {
      const table2d = rp.positions.t5BucketTable(len, o);
      const byDistance = W.t5Buckets(len, o);
      for (let j = 0; j < len; ++j) assert.equal(byDistance[j - 0 + len - 1], table2d[j], `len ${len} d ${j}`);
      for (let i = 0; i < len; ++i) assert.equal(byDistance[0 - i + len - 1], table2d[i * len], `len ${len} d ${-i}`);
    }
    for (const heads of [1, 3, 8, 12, 16, 20])
      for (const rule of ['bloom', 'mpt']) assert.deepEqual(W.alibiSlopes(heads, rule), rp.positions.alibiSlopes(heads, rule), `${rule} ${heads}`);
  });

  test('the float64 reference: causal, windows across tiles, tile sizes, no mask', async () => {
    const bias = (h, i, j) => table[W.t5Buckets(L, { numBuckets: nb, maxDistance })[j - i + L - 1] * H + h];
    for (const o of [
      { window: 0 },
      { window: 9, bq: 16, bkv: 8 },
      { causal: true, bq: 16, bkv: 4 },
      { causal: true, window: 3, bq: 32, bkv: 8, scheme: { type: 'bucket', buckets: up(W.t5Buckets(L, { numBuckets: nb, maxDistance })), table: up(table) }, bias },
      { withMask: false, bq: 16 },
    ]) {
      const got = await gpuAttention(o);
      const want = attention64({ q, k, v, B, H, L, D, mask: o.withMask === false ? null : maskU8, window: o.window ?? -1, causal: !!o.causal, scale: 1 / Math.sqrt(D), bias: o.bias });
      const err = maxError(got, want);
      assert.ok(err < 2e-6, `${JSON.stringify({ ...o, scheme: undefined, bias: undefined })}: ${err}`);
    }
  });

  test('a fully masked row gives 0; logits of ±1e4 stay finite and match (exp arguments ≤ 0, tiny p flushed)', async () => {
    const none = new Uint8Array(B * L);
    none.fill(1, 0, L); // second sequence fully masked
    const qb = up(Float32Array.from(q, (x) => x * 3e3)), out = ctx.empty(n * 4);
    const got = await runRead((enc) => W.attention(ctx, enc, { q: qb, k: up(k), v: up(v), out, batch: B, heads: H, seqLen: L, headDim: D, mask: up(Uint32Array.from(none)) }), out, n);
    assert.ok(got.every(Number.isFinite));
    assert.ok(got.subarray(H * L * D).every((x) => x === 0), 'masked sequence is all 0');
    const want = attention64({ q: Float32Array.from(q, (x) => x * 3e3), k, v, B, H, L, D, mask: none, scale: 1 / Math.sqrt(D) });
    assert.ok(maxError(got, want) < 1e-4, `${maxError(got, want)}`);
  });

  test('strided layout: q, k, v read in place from a fused QKV [B, L, 3·H·D] buffer, output written as [B, L, H·D]', async () => {
    const HD = H * D;
    const x = new Float32Array(B * L * 3 * HD);
    for (let b = 0; b < B; ++b)
      for (let h = 0; h < H; ++h)
        for (let l = 0; l < L; ++l)
          for (let c = 0; c < D; ++c) {
            const src = ((b * H + h) * L + l) * D + c, row = (b * L + l) * 3 * HD + h * D + c;
            x[row] = q[src];
            x[row + HD] = k[src];
            x[row + 2 * HD] = v[src];
          }
    const xb = up(x), out = ctx.empty(n * 4);
    const got = await runRead((enc) => W.attention(ctx, enc, {
      q: xb, k: xb, v: xb, out, batch: B, heads: H, seqLen: L, headDim: D, mask: up(mask), window: 6, bq: 16,
      strides: { in: { b: L * 3 * HD, h: D, l: 3 * HD, off: { q: 0, k: HD, v: 2 * HD } }, out: { b: L * HD, h: D, l: HD, off: 0 } },
    }), out, n);
    const want = attention64({ q, k, v, B, H, L, D, mask: maskU8, window: 6, scale: 1 / Math.sqrt(D) });
    const wantBLHD = new Float64Array(n);
    for (let b = 0; b < B; ++b)
      for (let h = 0; h < H; ++h)
        for (let l = 0; l < L; ++l)
          for (let c = 0; c < D; ++c) wantBLHD[((b * L + l) * H + h) * D + c] = want[((b * H + h) * L + l) * D + c];
    assert.ok(maxError(got, wantBLHD) < 2e-6, `${maxError(got, wantBLHD)}`);
  });

  test('grouped-query attention: 6 query heads read 2 (and 3) kv heads from their own [B, L, KV·D] buffers, causal and windowed', async () => {
    const Hq = 6;
    for (const KV of [2, 3, 1]) {
      const G = Hq / KV;
      // q [B, L, Hq·D]; k, v [B, L, KV·D]; the float64 reference gets k and v repeated per query head (repeat_kv)
      const qq = new Float32Array(B * L * Hq * D), kk = new Float32Array(B * L * KV * D), vv = new Float32Array(B * L * KV * D);
      const rnd = (i) => Math.sin(12.9898 * i + 78.233 * KV) * 0.9;
      qq.forEach((_, i) => (qq[i] = rnd(i)));
      kk.forEach((_, i) => (kk[i] = rnd(i + 1e5)));
      vv.forEach((_, i) => (vv[i] = rnd(i + 2e5)));
      const qr = new Float32Array(B * Hq * L * D), kr = new Float32Array(B * Hq * L * D), vr = new Float32Array(B * Hq * L * D);
      for (let b = 0; b < B; ++b)
        for (let h = 0; h < Hq; ++h)
          for (let l = 0; l < L; ++l)
            for (let c = 0; c < D; ++c) {
              const dst = ((b * Hq + h) * L + l) * D + c;
              qr[dst] = qq[(b * L + l) * Hq * D + h * D + c];
              kr[dst] = kk[(b * L + l) * KV * D + Math.floor(h / G) * D + c];
              vr[dst] = vv[(b * L + l) * KV * D + Math.floor(h / G) * D + c];
            }
      for (const o of [{}, { causal: true }, { causal: true, window: 5 }, { window: 7 }]) {
        const n = B * L * Hq * D, out = ctx.empty(n * 4);
        const got = await runRead((enc) => W.attention(ctx, enc, {
          q: up(qq), k: up(kk), v: up(vv), out, batch: B, heads: Hq, kvHeads: KV, seqLen: L, headDim: D, mask: up(mask), bq: 16, ...o,
          strides: { in: { b: L * Hq * D, h: D, l: Hq * D, off: { q: 0, k: 0, v: 0 } }, kv: { b: L * KV * D, l: KV * D }, out: { b: L * Hq * D, h: D, l: Hq * D, off: 0 } },
        }), out, n);
        const want = attention64({ q: qr, k: kr, v: vr, B, H: Hq, L, D, mask: maskU8, window: o.window ?? -1, causal: !!o.causal, scale: 1 / Math.sqrt(D) });
        const wantBLHD = new Float64Array(n);
        for (let b = 0; b < B; ++b)
          for (let h = 0; h < Hq; ++h)
            for (let l = 0; l < L; ++l)
              for (let c = 0; c < D; ++c) wantBLHD[((b * L + l) * Hq + h) * D + c] = want[((b * Hq + h) * L + l) * D + c];
        const err = maxError(got, wantBLHD);
        assert.ok(err < 2e-6, `kv heads ${KV} ${JSON.stringify(o)}: ${err}`);
      }
    }
    const enc = ctx.device.createCommandEncoder(), x = ctx.empty(64);
    assert.throws(() => W.attention(ctx, enc, { q: x, k: x, v: x, out: x, batch: 1, heads: 6, kvHeads: 4, seqLen: 1, headDim: 4 }), /heads 6 is not a multiple of kvHeads 4/);
  });

  test('bad arguments are clear errors', () => {
    const enc = ctx.device.createCommandEncoder(), x = ctx.empty(16);
    const base = { q: x, k: x, v: x, out: x, batch: 1, heads: 1, seqLen: 4, headDim: 4 };
    assert.throws(() => W.attention(ctx, enc, { ...base, headDim: 6 }), /headDim must be a multiple of 4/);
    assert.throws(() => W.attention(ctx, enc, { ...base, window: -2 }), /window: expected −1/);
    assert.throws(() => W.attention(ctx, enc, { ...base, scheme: { type: 'deberta' } }), /scheme.type 'deberta'/);
    assert.throws(() => W.attention(ctx, enc, { ...base, scheme: { type: 'bucket' } }), /bucket needs scheme.buckets/);
  });

  test('maskRows zeroes exactly the rows whose mask is 0 (DeBERTa embeddings · attention mask)', async () => {
    const rows = 2 * 9, width = 20;
    const x = randomArray(rows * width, 83);
    const m = Uint32Array.from({ length: rows }, (_, r) => (r % 9 < 6 ? 1 : 0)); // padding at the end of each sequence
    m[3] = 0; // and one inside
    const xb = up(x);
    const got = await runRead((enc) => W.maskRows(ctx, enc, { x: xb, mask: up(m), rows, width }), xb, rows * width);
    const want = Float32Array.from(x, (value, i) => (m[Math.floor(i / width)] ? value : 0));
    assert.deepEqual(got, want);
    assert.throws(() => W.maskRows(ctx, ctx.device.createCommandEncoder(), { x: xb, mask: xb, rows: 0, width }), /rows: expected a positive integer/);
  });

  test('splitHeads lays token-major rows out per head (a derived table: DeBERTa\'s projected relative embeddings)', async () => {
    const rows = 7, heads = 3, d = 5;
    const x = randomArray(rows * heads * d, 85);
    const y = ctx.empty(4 * x.length);
    const got = await runRead((enc) => W.splitHeads(ctx, enc, { x: up(x), y, rows, heads, d }), y, x.length);
    const want = new Float32Array(x.length); // the per-head copy of cpp/src/models/deberta_v2.cpp
    for (let h = 0; h < heads; ++h) for (let r = 0; r < rows; ++r) want.set(x.subarray(r * heads * d + h * d, r * heads * d + (h + 1) * d), (h * rows + r) * d);
    assert.deepEqual(got, want);
    assert.throws(() => W.splitHeads(ctx, ctx.device.createCommandEncoder(), { x: y, y, rows, heads: 0, d }), /heads: expected a positive integer/);
    assert.throws(() => W.splitHeads(ctx, ctx.device.createCommandEncoder(), { x: ctx.empty(8), y, rows, heads, d }), /x: expected a GPUBuffer of at least 420 bytes/);
  });

  test('RoPE pre-pass equals the CPU rotation formula in float64 (both layouts, partial rotaryDim)', async () => {
    const rows = 2 * 7, seq = 7, dim = 12;
    const x = randomArray(rows * dim, 81);
    for (const [layout, rotaryDim] of [['half', 12], ['interleaved', 12], ['half', 8]]) {
      const { cos, sin } = W.ropeTables(seq, rotaryDim, 10000);
      const xb = up(x);
      const got = await runRead((enc) => W.rope(ctx, enc, { x: xb, cos: up(cos), sin: up(sin), rows, seqLen: seq, headDim: dim, rotaryDim, layout }), xb, rows * dim);
      const want = Float64Array.from(x);
      const h = rotaryDim / 2;
      for (let r = 0; r < rows; ++r) {
        const p = r % seq;
        for (let i = 0; i < h; ++i) {
          const w = Math.pow(10000, (-2 * i) / rotaryDim), c = Math.cos(p * w), s = Math.sin(p * w);
          const [a, b] = layout === 'half' ? [i, i + h] : [2 * i, 2 * i + 1];
          want[r * dim + a] = x[r * dim + a] * c - x[r * dim + b] * s;
          want[r * dim + b] = x[r * dim + b] * c + x[r * dim + a] * s;
        }
      }
      assert.ok(maxAbs(got, want) < 1e-6, `${layout} ${rotaryDim}: ${maxAbs(got, want)}`);
    }
  });

  test('RoPE into y: x unchanged, y holds every column of the rotated rows (the pass-through ones copied) at the same offsets, strides and heads', async () => {
    // token-major q of 2 heads × 12 inside rows of 40 floats at offset 5 (a fused projection): what attention reads
    const seq = 3, batch = 2, heads = 2, dim = 12, rowStride = 40, headStride = 12, offset = 5, tokens = batch * seq;
    const x = randomArray(offset + tokens * rowStride, 82);
    for (const [layout, rotaryDim] of [['half', 12], ['interleaved', 8], ['half', 8]]) {
      const { cos, sin } = W.ropeTables(seq, rotaryDim, 10000);
      const common = { cos: up(cos), sin: up(sin), rows: tokens * heads, seqLen: seq, headDim: dim, rotaryDim, layout, heads, rowStride, headStride, offset };
      const inPlace = up(x);
      const want = await runRead((enc) => W.rope(ctx, enc, { ...common, x: inPlace }), inPlace, x.length);
      const xb = up(x), marker = Float32Array.from(x, () => 777), y = up(marker);
      const got = await runRead((enc) => W.rope(ctx, enc, { ...common, x: xb, y }), y, x.length);
      assert.deepEqual(await ctx.read(xb, x.length), x, `${layout} ${rotaryDim}: x unchanged`);
      for (let t = 0; t < tokens; ++t)
        for (let c = 0; c < rowStride; ++c) {
          const at = offset + t * rowStride + c;
          assert.equal(got[at], c < heads * headStride ? want[at] : 777, `${layout} ${rotaryDim}: token ${t} column ${c}`);
        }
    }
  });
});

describe('webgpu rope pair', { skip }, () => {
  test('q and k rotated in one dispatch (second) equal two rotations into y, bit for bit: views of one buffer, grouped k heads, a partial rotaryDim', async () => {
    // ModernBERT's layout: q and k at offsets 0 and 24 of rows of 72 (a fused QKV output), 3 heads × 8; then 4 q heads, 2 k heads
    for (const [H, KV, D, rotaryDim, layout] of [[3, 3, 8, 8, 'half'], [4, 2, 12, 8, 'interleaved']]) {
      const seq = 5, batch = 2, tokens = batch * seq, row = (H + 2 * KV) * D, qOff = 0, kOff = H * D;
      const x = randomArray(tokens * row, 97);
      const { cos, sin } = W.ropeTables(seq, rotaryDim, 10000);
      const common = { cos: up(cos), sin: up(sin), seqLen: seq, headDim: D, rotaryDim, layout, headStride: D };
      const xb = up(x), marker = () => up(new Float32Array(x.length).fill(777));
      const [wq, wk, gq, gk] = [marker(), marker(), marker(), marker()];
      await runRead((enc) => {
        W.rope(ctx, enc, { ...common, x: xb, y: wq, rows: tokens * H, heads: H, rowStride: row, offset: qOff });
        W.rope(ctx, enc, { ...common, x: xb, y: wk, rows: tokens * KV, heads: KV, rowStride: row, offset: kOff });
      }, wq, 1);
      await runRead((enc) => W.rope(ctx, enc, { ...common, x: xb, y: gq, rows: tokens * H, heads: H, rowStride: row, offset: qOff, second: { x: xb, y: gk, rows: tokens * KV, heads: KV, rowStride: row, offset: kOff } }), gq, 1);
      assert.deepEqual(await ctx.read(gq, x.length), await ctx.read(wq, x.length), `${layout}: q`);
      assert.deepEqual(await ctx.read(gk, x.length), await ctx.read(wk, x.length), `${layout}: k`);
    }
    const b = ctx.empty(64), enc = ctx.device.createCommandEncoder();
    const args = { x: b, cos: b, sin: b, rows: 4, seqLen: 2, headDim: 4, heads: 2 };
    assert.throws(() => W.rope(ctx, enc, { ...args, second: { x: b, y: b, rows: 4, heads: 2 } }), /rope: second: expected .* and a y for the first/);
    assert.throws(() => W.rope(ctx, enc, { ...args, y: b, second: { x: b, y: b, rows: 5, heads: 2 } }), /rope: second: rows 5 is not a multiple of seqLen 2 × heads 2/);
  });
});

// ---------- q / k RMSNorm + RoPE in one dispatch (Qwen3, Gemma3) ----------
describe('webgpu normRope', { skip }, () => {
  // q [tokens, heads·dim] and k [tokens, kvHeads·dim] as the plan's projections (k at an offset in a wider row):
  // normRope into yq / yk equals the executor's unfused ops — in-place RMSNorms of every head, then RoPE into y —
  // bit for bit, q and k untouched, nothing of yq / yk written outside the heads
  async function check({ heads, kvHeads, dim, rotaryDim = dim, layout, seq = 5, batch = 2, eps = 1e-6, seed = 91 }) {
    const tokens = batch * seq, kRow = kvHeads * dim + 6, kOff = 3;
    const q = randomArray(tokens * heads * dim, seed), k = randomArray(kOff + tokens * kRow, seed + 1);
    const gq = randomArray(dim, seed + 2), gk = randomArray(dim, seed + 3);
    const { cos, sin } = W.ropeTables(seq, rotaryDim, 10000);
    const tables = { cos: up(cos), sin: up(sin) };
    // unfused: the norms in place (rows of one head), then RoPE from the normed buffers into y
    const qn = up(q), wantQ = up(new Float32Array(q.length)), wantK = up(new Float32Array(k.length).fill(777));
    await runRead((enc) => W.norm(ctx, enc, { kind: 'rmsnorm', x: qn, gamma: up(gq), rows: tokens * heads, dim, eps }), qn, 1);
    // k's heads are not contiguous rows (a wider row at an offset): normed as compact rows, put back in its layout
    const kHeads = up(new Float32Array(tokens * kvHeads * dim));
    const kCompact = new Float32Array(tokens * kvHeads * dim);
    for (let t = 0; t < tokens; ++t) kCompact.set(k.subarray(kOff + t * kRow, kOff + t * kRow + kvHeads * dim), t * kvHeads * dim);
    ctx.device.queue.writeBuffer(kHeads, 0, kCompact);
    await runRead((enc) => W.norm(ctx, enc, { kind: 'rmsnorm', x: kHeads, gamma: up(gk), rows: tokens * kvHeads, dim, eps }), kHeads, 1);
    const normedK = await ctx.read(kHeads, kCompact.length), kn2 = new Float32Array(k);
    for (let t = 0; t < tokens; ++t) kn2.set(normedK.subarray(t * kvHeads * dim, (t + 1) * kvHeads * dim), kOff + t * kRow);
    const common = { ...tables, seqLen: seq, headDim: dim, rotaryDim, layout };
    await runRead((enc) => {
      W.rope(ctx, enc, { ...common, x: qn, y: wantQ, rows: tokens * heads, heads, rowStride: heads * dim, headStride: dim });
      W.rope(ctx, enc, { ...common, x: up(kn2), y: wantK, rows: tokens * kvHeads, heads: kvHeads, rowStride: kRow, headStride: dim, offset: kOff });
    }, wantQ, 1);
    const qb = up(q), kb = up(k), yq = up(new Float32Array(q.length)), yk = up(new Float32Array(k.length).fill(777));
    await runRead((enc) => W.normRope(ctx, enc, { q: qb, k: kb, yq, yk, gammaQ: up(gq), gammaK: up(gk), ...tables, tokens, seqLen: seq, heads, kvHeads, headDim: dim, rotaryDim, layout, eps, kRowStride: kRow, kOffset: kOff }), yq, 1);
    const what = `${layout} heads ${heads}/${kvHeads} dim ${dim} rotary ${rotaryDim}`;
    assert.deepEqual(await ctx.read(yq, q.length), await ctx.read(wantQ, q.length), `${what}: q`);
    assert.deepEqual(await ctx.read(yk, k.length), await ctx.read(wantK, k.length), `${what}: k (777 outside its heads)`);
    assert.deepEqual(await ctx.read(qb, q.length), q, `${what}: q unchanged`);
    assert.deepEqual(await ctx.read(kb, k.length), k, `${what}: k unchanged`);
  }

  test('equals in-place RMSNorms then RoPE into y, bit for bit: both layouts, grouped k heads, a partial rotaryDim, dim > 256 threads', async () => {
    await check({ heads: 4, kvHeads: 2, dim: 16, layout: 'half' });
    await check({ heads: 3, kvHeads: 1, dim: 12, rotaryDim: 8, layout: 'interleaved', seed: 93 });
    await check({ heads: 2, kvHeads: 2, dim: 320, rotaryDim: 256, layout: 'half', seq: 3, batch: 1, seed: 95 });
  });

  test('bad shapes are RangeErrors naming them', () => {
    const b = ctx.empty(64), enc = ctx.device.createCommandEncoder();
    const args = { q: b, k: b, yq: b, yk: b, gammaQ: b, gammaK: b, cos: b, sin: b, tokens: 4, seqLen: 2, heads: 2, kvHeads: 1, headDim: 4 };
    assert.throws(() => W.normRope(ctx, enc, { ...args, kvHeads: 0 }), /normRope: kvHeads: expected a positive integer, got 0/);
    assert.throws(() => W.normRope(ctx, enc, { ...args, tokens: 5 }), /normRope: tokens 5 is not a multiple of seqLen 2/);
    assert.throws(() => W.normRope(ctx, enc, { ...args, rotaryDim: 6 }), /normRope: rotaryDim: expected an even number ≤ headDim 4, got 6/);
    assert.throws(() => W.normRope(ctx, enc, { ...args, layout: 'neox' }), /normRope: layout 'neox'/);
  });
});

// ---------- positions that follow the padding (MPNet's add_rows source 2) ----------
describe('webgpu padded positions', { skip }, () => {
  test('paddedPositions equals its CPU twin (padding_idx 1 and 0; left, inner and right pads; 2-D grid) and refuses bad shapes', async () => {
    const cases = [
      { batch: 3, seq: 7, pad: 1, ids: [1, 1, 0, 5, 6, 7, 2, 0, 9, 1, 8, 3, 2, 1, 0, 4, 4, 4, 4, 4, 2] },
      { batch: 2, seq: 5, pad: 0, ids: [0, 3, 0, 3, 3, 7, 7, 7, 0, 0] },
      { batch: 1, seq: 3, pad: 1, ids: [1, 1, 1] },
    ];
    // a long batch: more than one workgroup, pads at random places
    const long = { batch: 5, seq: 131, pad: 1, ids: Array.from({ length: 5 * 131 }, (_, i) => ((i * 7919) % 13 === 0 ? 1 : 2 + ((i * 31) % 50))) };
    for (const { batch, seq, pad, ids } of [...cases, long]) {
      const out = ctx.empty(batch * seq * 4);
      const got = await runRead((enc) => W.paddedPositions(ctx, enc, { ids: up(Int32Array.from(ids)), out, batch, seq, paddingIdx: pad }), out, batch * seq, Uint32Array);
      const want = W.paddedPositionsCpu(ids, batch, seq, pad);
      assert.deepEqual(got, want, `batch ${batch} seq ${seq} pad ${pad}`);
    }
    // the twin is the formula of relpos::padded_position_ids (MPNet: real tokens from padding_idx + 1)
    assert.deepEqual(Array.from(W.paddedPositionsCpu([1, 1, 0, 5, 1, 2], 1, 6, 1)), [1, 1, 2, 3, 1, 4]);
    const enc = ctx.device.createCommandEncoder();
    const b = ctx.empty(16);
    assert.throws(() => W.paddedPositions(ctx, enc, { ids: b, out: b, batch: 0, seq: 2, paddingIdx: 1 }), /batch: expected a positive integer, got 0/);
    assert.throws(() => W.paddedPositions(ctx, enc, { ids: b, out: b, batch: 1, seq: 2, paddingIdx: -1 }), /paddingIdx: expected an integer ≥ 0/);
  });
});

before(() => {
  if (ctx) console.log(`# webgpu adapter: ${JSON.stringify(ctx.info)}`);
});
