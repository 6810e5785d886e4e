// The relative_vectors attention terms (DeBERTa c2p / p2c, BERT relative_key_query) against the plain
// and T5-bucket attention of the same shape, on whatever adapter Dawn finds (run it through run.sh's setup:
//   bash bench/gpu/run.sh runs it after bench.mjs; alone: GPU_BENCH_KERNELS=0 GPU_BENCH_MODELS=0 bash bench/gpu/run.sh).
// Shape 1 × 12 heads × L × 64, L = 512 and 4096, all keys visible; time = median over timed submits
// (bench.mjs's method); rate = 4·H·L²·d flops of the content attention (the terms' extra dots not counted,
// so a slower scheme shows as a lower rate); max |error| against float64 on sampled query rows.
// Writes $OUT/relative-vectors.json; GPU_BENCH_SMALL=1: L = 40 (a check of the script on SwiftShader).
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { median, openDawn, random, submitTimed } from './common.mjs';

const W = await import('../../web/webgpu/index.js');
const SMALL = !!process.env.GPU_BENCH_SMALL;
const OUT = process.env.OUT || 'bench/results/tmp/gpu';
mkdirSync(OUT, { recursive: true });
const ctx = await W.createContext({ gpu: (await openDawn()).gpu });
const results = { startedAt: new Date().toISOString(), adapter: ctx.info, attention: [], errors: [] };
const save = () => writeFileSync(join(OUT, 'relative-vectors.json'), JSON.stringify(results, null, 2));
console.log('adapter', JSON.stringify(ctx.info));

async function time(record, reps, submits) {
  const samples = [];
  for (let s = 0; s < submits; ++s) samples.push(1000 * (await submitTimed(ctx, record, reps)));
  return samples;
}
// DeBERTa's log bucket of a relative position (bucket 256, max 512), for a realistic row map
function logBucket(rel, bucket = 256, maxPos = 512) {
  const mid = bucket / 2, abs = rel < mid && rel > -mid ? mid - 1 : Math.abs(rel);
  if (Math.abs(rel) <= mid) return rel;
  return Math.sign(rel) * (Math.ceil((Math.log(abs / mid) / Math.log((maxPos - 1) / mid)) * (mid - 1)) + mid);
}

const H = 12, D = 64;
for (const L of SMALL ? [40] : [512, 4096]) {
  const n = H * L * D;
  const q = random(n, 1), k = random(n, 2), v = random(n, 3);
  const [qb, kb, vb] = [q, k, v].map((x) => ctx.upload(x));
  const out = ctx.empty(n * 4), mask = ctx.upload(new Uint32Array(L).fill(1));
  const span = 256, kr = random(H * 2 * span * D, 4), qr = random(H * 2 * span * D, 5);
  const dRows = Int32Array.from({ length: 2 * L - 1 }, (_, t) => Math.min(2 * span - 1, Math.max(0, span + logBucket(L - 1 - t))));
  const M = L, E = random((2 * M - 1) * D, 6);
  const bRows = Int32Array.from({ length: 2 * L - 1 }, (_, t) => M - 1 - (t - (L - 1)));
  const nb = 32, t5 = random(nb * H, 7), buckets = W.t5Buckets(L, { numBuckets: nb, maxDistance: 128 });
  const s3 = 1 / Math.sqrt(D * 3), s2 = 1 / Math.sqrt(D * 2), s1 = 1 / Math.sqrt(D);
  const up = (x) => ctx.upload(x);
  const dot = (a, ao, b, bo) => { let s = 0; for (let c = 0; c < D; ++c) s += a[ao + c] * b[bo + c]; return s; };
  const schemes = {
    none: { scale: s1, scheme: { type: 'none' }, bias: () => 0 },
    't5 bucket': { scale: 1, scheme: { type: 'bucket', buckets: up(buckets), table: up(t5) }, bias: (h, i, j) => t5[buckets[j - i + L - 1] * H + h] },
    'deberta c2p+p2c': {
      scale: s3, scheme: { type: 'relative_vectors', rows: up(dRows), table: up(kr), table2: up(qr), tableHead: 2 * span * D, table2Head: 2 * span * D, termScale: s3 },
      bias: (h, i, j) => { const r = dRows[j - i + L - 1]; return s3 * (dot(q, (h * L + i) * D, kr, (h * 2 * span + r) * D) + dot(k, (h * L + j) * D, qr, (h * 2 * span + r) * D)); },
    },
    'deberta c2p': {
      scale: s2, scheme: { type: 'relative_vectors', rows: up(dRows), table: up(kr), tableHead: 2 * span * D, termScale: s2 },
      bias: (h, i, j) => s2 * dot(q, (h * L + i) * D, kr, (h * 2 * span + dRows[j - i + L - 1]) * D),
    },
    'bert relative_key_query': {
      scale: s1, scheme: { type: 'relative_vectors', rows: up(bRows), table: up(E), table2: up(E), termScale: s1 },
      bias: (h, i, j) => { const r = bRows[j - i + L - 1]; return s1 * (dot(q, (h * L + i) * D, E, r * D) + dot(k, (h * L + j) * D, E, r * D)); },
    },
  };
  const sample = [[0, 0], [H - 1, L - 1], [5, Math.floor(L / 2)]];
  for (const [name, s] of Object.entries(schemes)) {
    try {
      const record = (enc) => W.attention(ctx, enc, { q: qb, k: kb, v: vb, out, batch: 1, heads: H, seqLen: L, headDim: D, mask, scale: s.scale, scheme: s.scheme });
      ctx.device.pushErrorScope('validation');
      const first = await time(record, 1, 2);
      const bad = await ctx.device.popErrorScope();
      if (bad) throw new Error(bad.message);
      const reps = Math.max(1, Math.min(200, Math.ceil(40 / Math.max(Math.min(...first), 1e-3))));
      const ms = median(await time(record, reps, SMALL ? 3 : 7));
      const got = await ctx.read(out, n);
      let err = 0;
      for (const [h, i] of sample) {
        const logits = Array.from({ length: L }, (_, j) => s.scale * dot(q, (h * L + i) * D, k, (h * L + j) * D) + s.bias(h, i, j));
        const mx = Math.max(...logits), p = logits.map((x) => Math.exp(x - mx)), sum = p.reduce((a, b) => a + b, 0);
        for (let c = 0; c < D; ++c) {
          let acc = 0;
          for (let j = 0; j < L; ++j) acc += p[j] * v[(h * L + j) * D + c];
          err = Math.max(err, Math.abs(got[(h * L + i) * D + c] - acc / sum));
        }
      }
      const row = { heads: H, seqLen: L, headDim: D, scheme: name, ms, tflops: (4 * H * L * L * D) / (ms / 1e3) / 1e12, reps, maxAbsErrorSampledRows: err };
      results.attention.push(row);
      console.log(`L ${L} ${name.padEnd(24)} ${ms.toFixed(3)} ms  ${row.tflops.toFixed(2)} TFLOP/s  err ${err.toExponential(2)}`);
    } catch (e) {
      results.errors.push({ what: `${L} ${name}`, message: e.message });
      console.log(`L ${L} ${name} FAILED: ${e.message}`);
    }
    save();
  }
}
ctx.destroy();
