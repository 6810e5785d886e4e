// WebGPU storage dtypes on a real GPU (bench/gpu/run.sh runs it after bench.mjs; GPU_BENCH_ONLY=dtypes alone):
//   GEMM 4096³ C = A·Wᵀ (SMALL: 128³) in fp32, fp16 (A, W, C stored f16, f32 sums; needs 'shader-f16') and q8
//        (W int8 + scale words dequantized in the tile load; A, C f32), each with every tile variant the device
//        allows: TFLOP/s = 2·M·N·K / time (median of timed submits), max |error| on 256 sampled entries against
//        float64 of the operands as stored (f16-rounded A and W for fp16, the decoded int8 W for q8).
//   a MiniLM-L6-shaped model (the real all-MiniLM-L6-v2 where .gpu/minilm or RELPOS_MINILM holds it, else random
//        weights of the same shapes, bert_checkpoint.mjs) on 64 texts × 128 tokens through rp.loadModel(…,
//        { device: 'webgpu', dtype }) for fp32, fp16 and q8: forward time (median of 5) and, against the fp32
//        GPU run, the smallest cosine of mean-pooled embeddings and max |Δ| / max |fp32| of the last hidden
//        state (compareGpuDtypes, web/webgpu/compare.js), plus info.gpuWeightBytes.
// Writes $OUT/gpu-dtypes.json after every measurement. Without 'shader-f16' the fp16 rows record the reason.
import { writeFileSync, mkdirSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadDawn, median, random, submitTimed } from './common.mjs';

const W = await import('../../web/webgpu/index.js');
const SMALL = !!process.env.GPU_BENCH_SMALL;
const OUT = process.env.OUT || 'bench/results/tmp/gpu';
mkdirSync(OUT, { recursive: true });
const started = Date.now();
const log = (...a) => console.log(`[${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s]`, ...a);

const dawn = await loadDawn();
// The adapter's features with Dawn's defaults, then (when 'shader-f16' is missing) with allow_unsafe_apis, which
// exposes features Dawn still marks experimental on a backend, then with vulkan_enable_f16_on_nvidia (Dawn withholds
// 'shader-f16' on NVIDIA's Vulkan driver unless this adapter toggle is set); the first instance that has it runs everything.
const probes = [];
let gpu = null, ctx = null, flags = [];
for (const f of [[], ['enable-dawn-features=allow_unsafe_apis'], ['enable-dawn-features=vulkan_enable_f16_on_nvidia']]) {
  const g = dawn.create(f);
  const adapter = await g.requestAdapter({ powerPreference: 'high-performance' });
  probes.push({ flags: f, adapterFeatures: adapter ? [...adapter.features].sort() : null });
  if (!gpu || (!ctx.shaderF16 && adapter?.features.has('shader-f16'))) {
    if (ctx) ctx.destroy();
    gpu = g;
    flags = f;
    ctx = await W.createContext({ gpu });
  }
  if (ctx.shaderF16) break;
}
const results = { startedAt: new Date(started).toISOString(), small: SMALL, adapter: ctx.info, shaderF16: ctx.shaderF16, dawnFlags: flags, probes, gemm: [], models: [], errors: [] };
log('probes', JSON.stringify(probes));
const save = () => {
  results.wallSeconds = (Date.now() - started) / 1000;
  writeFileSync(join(OUT, 'gpu-dtypes.json'), JSON.stringify(results, null, 2));
};
log('adapter', JSON.stringify(ctx.info), 'shader-f16', ctx.shaderF16);
save();


async function measure(record, flops) {
  const run = (reps) => submitTimed(ctx, record, reps);
  ctx.device.pushErrorScope('validation');
  const first = Math.min(await run(1), await run(1));
  const bad = await ctx.device.popErrorScope();
  if (bad) throw new Error(bad.message);
  const reps = Math.max(1, Math.min(100, Math.ceil(0.04 / Math.max(first, 1e-6))));
  const samples = [];
  for (let s = 0; s < (SMALL ? 3 : 5); ++s) samples.push(await run(reps));
  const t = median(samples);
  return { ms: +(t * 1e3).toFixed(4), tflops: +(flops / t / 1e12).toFixed(3), reps };
}

/** q8 words of a random W [N, K] (gemm.js layout) and W decoded (Float32Array). */
function randomQ8(N, K, seed) {
  const { q: QW, s: SW } = W.q8RowWords(K);
  const q = new Uint32Array(N * QW), s = new Uint32Array(N * SW), w = new Float32Array(N * K);
  const f = new Float32Array(1), bits = new Uint32Array(f.buffer);
  let r = seed >>> 0;
  const next = () => (r = (Math.imul(r, 1664525) + 1013904223) >>> 0);
  const G = Math.ceil(K / 32);
  for (let n = 0; n < N; ++n) {
    f[0] = (1 + (next() % 1000)) * 1e-7;
    s[n * SW] = bits[0];
    const m = new Uint8Array(G);
    for (let g = 0; g < G; ++g) {
      m[g] = 1 + (next() % 16);
      s[n * SW + 1 + (g >> 3)] |= (m[g] - 1) << (4 * (g % 8));
    }
    for (let k = 0; k < K; ++k) {
      const v = ((next() >>> 8) % 255) - 127;
      q[n * QW + (k >> 2)] |= (v & 255) << (8 * (k % 4));
      w[n * K + k] = f[0] * m[k >> 5] * v;
    }
  }
  return { q, s, w };
}

function sampledError(A, B, C, M, N, K) {
  let worst = 0, rel = 0, s = 7;
  for (let t = 0; t < 256; ++t) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const i = s % M;
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const j = s % N;
    let ref = 0, mag = 0;
    for (let k = 0; k < K; ++k) {
      ref += A[i * K + k] * B[j * K + k];
      mag += Math.abs(A[i * K + k] * B[j * K + k]);
    }
    const e = Math.abs(C[i * N + j] - ref);
    worst = Math.max(worst, e);
    rel = Math.max(rel, e / mag);
  }
  return { maxAbsError: worst, maxErrorOverSumAbs: rel };
}

// ---------------- GEMM fp32 / fp16 / q8 ----------------
{
  const n = SMALL ? 128 : 4096, M = n, N = n, K = n;
  const A = random(M * K, 1), B = random(N * K, 2);
  const limit = ctx.limits.maxComputeWorkgroupStorageSize;
  const variants = Object.keys(W.GEMM_VARIANTS).filter((v) => W.gemmSharedBytes(v) <= limit);
  const q8 = randomQ8(N, K, 3);
  const A16 = W.toHalf(A), B16 = W.toHalf(B);
  const setups = {
    fp32: () => ({ a: ctx.upload(A), b: ctx.upload(B), c: ctx.empty(4 * M * N), args: {}, ref: [A, B], read: async (c) => ctx.read(c, M * N) }),
    fp16: () => ({ a: ctx.upload(A16), b: ctx.upload(B16), c: ctx.empty(2 * M * N), args: { dtype: 'f16' }, ref: [W.fromHalf(A16), W.fromHalf(B16)], read: async (c) => W.fromHalf(await ctx.read(c, M * N, Uint16Array)) }),
    q8: () => ({ a: ctx.upload(A), b: ctx.upload(q8.q), scales: ctx.upload(q8.s), c: ctx.empty(4 * M * N), args: {}, ref: [A, q8.w], read: async (c) => ctx.read(c, M * N) }),
  };
  for (const [dtype, make] of Object.entries(setups)) {
    if (dtype === 'fp16' && !ctx.shaderF16) {
      results.gemm.push({ dtype, skipped: `the adapter has no 'shader-f16' (features: ${ctx.features.join(', ')})` });
      log(`gemm fp16 skipped: no shader-f16`);
      continue;
    }
    const s = make();
    for (const variant of variants) {
      try {
        const m = await measure((enc) => W.gemm(ctx, enc, { a: s.a, b: s.b, c: s.c, scales: s.scales, M, N, K, variant, ...s.args }), 2 * M * N * K);
        const row = { dtype, M, N, K, variant, ...m, ...sampledError(s.ref[0], s.ref[1], await s.read(s.c), M, N, K) };
        results.gemm.push(row);
        log(`gemm ${n}³ ${dtype.padEnd(4)} ${variant.padEnd(11)} ${m.tflops.toFixed(2).padStart(7)} TFLOP/s  ${m.ms.toFixed(3)} ms  err ${row.maxAbsError.toExponential(2)} (${row.maxErrorOverSumAbs.toExponential(2)} of Σ|a·w|)`);
      } catch (e) {
        results.errors.push({ what: `gemm ${dtype} ${variant}`, message: e.message });
        log(`gemm ${dtype} ${variant} FAILED: ${e.message}`);
      }
      save();
    }
    for (const b of [s.a, s.b, s.c, s.scales]) b?.destroy();
  }
}

// ---------------- a MiniLM-shaped model in fp32 / fp16 / q8 ----------------
{
  const B = SMALL ? 2 : 64, L = SMALL ? 16 : 128;
  const dir = process.env.RELPOS_MINILM || join(process.cwd(), '.gpu', 'minilm');
  const real = existsSync(join(dir, 'model.safetensors')) && existsSync(join(dir, 'config.json'));
  const name = `${real ? 'all-MiniLM-L6-v2' : 'MiniLM-L6-shaped (random weights)'}, ${B} texts × ${L} tokens`;
  try {
    const files = real
      ? { 'config.json': readFileSync(join(dir, 'config.json'), 'utf8'), 'model.safetensors': new Uint8Array(readFileSync(join(dir, 'model.safetensors'))) }
      : (await import('./bert_checkpoint.mjs')).bertCheckpoint({ hidden: 384, heads: 12, ffn: 1536 }, 6, { vocab: 30522 });
    const vocab = JSON.parse(files['config.json']).vocab_size;
    const inputIds = Array.from({ length: B }, (_, b) => Array.from({ length: L }, (_, l) => (l === 0 ? 101 : l === L - 1 ? 102 : 1000 + ((b * 7919 + l * 104729) % Math.min(20000, vocab - 1000)))));
    // every text a different length (padding masked), as a real batch
    const attentionMask = inputIds.map((row, b) => row.map((_, l) => (l < L - ((b * 13) % (L / 2)) ? 1 : 0)));
    const rp = await (await import('../../web/index.js')).init();
    const dtypes = ctx.shaderF16 ? ['fp32', 'fp16', 'q8'] : ['fp32', 'q8'];
    if (!ctx.shaderF16) results.errors.push({ what: `model ${name} fp16`, message: "no 'shader-f16' on this adapter" });
    const rows = await W.compareGpuDtypes(rp, () => files, { inputIds, attentionMask }, { dtypes, gpu, reps: 5 });
    for (const r of rows) {
      const m = await rp.loadModel(files, { device: 'webgpu', dtype: r.dtype, gpu });
      r.gpuWeightBytes = m.info.gpuWeightBytes;
      m.dispose();
      results.models.push({ name, batch: B, seq: L, ...r });
      log(`model ${name} ${r.dtype.padEnd(4)}: forward ${r.forwardMs.toFixed(2)} ms, GPU weights ${(r.gpuWeightBytes / 2 ** 20).toFixed(1)} MiB${r.cosine !== undefined ? `, vs fp32: cosine ${r.cosine.toFixed(6)}, max |Δ| / max |fp32| ${r.rel.toExponential(2)}` : ''}`);
    }
  } catch (e) {
    results.errors.push({ what: `model ${name}`, message: e.message });
    log(`model ${name} FAILED: ${e.stack}`);
  }
  save();
}

results.finishedAt = new Date().toISOString();
save();
log(`done: ${results.gemm.length} gemm rows, ${results.models.length} model rows, ${results.errors.length} errors → ${join(OUT, 'gpu-dtypes.json')}`);
ctx.destroy();
process.exit(results.errors.filter((e) => !/shader-f16/.test(e.message)).length ? 1 : 0);
