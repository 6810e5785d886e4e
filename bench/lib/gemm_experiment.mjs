// Times bench/src/gemm_experiment.cpp's micro-kernel variants in WASM SIMD128, interleaved.
// Usage: node bench/lib/gemm_experiment.mjs   (after bench/run.sh built build/g-wasm/bench/gemm_experiment.*)
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { BUILD } from './harness.mjs';
import { interleave, randomArray } from './util.mjs';

const require = createRequire(import.meta.url);
const create = require(path.join(BUILD, 'gemm_experiment.cjs'));
const mod = await create({ wasmBinary: fs.readFileSync(path.join(BUILD, 'gemm_experiment.wasm')) });
const names = ['baseline 4x8', 'bump k×4 4x8', 'bump k×2 5x8', 'bump k×2 6x8', 'bump k×2 4x12'];
const shapes = [
  { what: 'QK^T block (M 60/64 rows, N 480 keys, K 64)', M: 60, N: 480, K: 64 },
  { what: 'PV block (M 60 rows, N 48 dims, K 512 keys)', M: 60, N: 48, K: 512 },
];
const stub = new Proxy({}, { get: () => () => 0 });
const pk = (await WebAssembly.instantiate(fs.readFileSync(path.join(BUILD, 'peak_simd.wasm')), { wasi_snapshot_preview1: stub, env: stub })).instance.exports;
const PEAK_STEPS = 1e7;
const out = [];
for (const s of shapes) {
  const A = mod._malloc(4 * s.M * s.K), B = mod._malloc(4 * s.K * s.N), C = mod._malloc(4 * s.M * s.N);
  mod.HEAPF32.set(randomArray(s.M * s.K, 1), A >> 2);
  mod.HEAPF32.set(randomArray(s.K * s.N, 2), B >> 2);
  const reps = Math.max(1, Math.round(2e8 / (2 * s.M * s.N * s.K)));
  const contestants = {};
  names.forEach((n, v) => { contestants[n] = () => mod._gemm(v, s.M, s.N, s.K, A, B, C, reps); });
  contestants.peak = () => { const t0 = performance.now(); pk.peak(12, PEAK_STEPS / 12, 0.999, 0.001); return performance.now() - t0; };
  const r = await interleave(contestants, { reps: 15, warm: 3 });
  const peak = (PEAK_STEPS * 2 * 4) / r.peak.median / 1e6;
  out.push({ shape: s.what, variant: 'peak (12 chains mul+add)', gflops: +peak.toFixed(2), vs_baseline: null });
  for (const n of names) {
    const gf = (2 * s.M * s.N * s.K * reps) / r[n].median / 1e6;
    out.push({ shape: s.what, variant: n, gflops: +gf.toFixed(2), pct_peak: +(100 * gf / peak).toFixed(1), vs_baseline: +(r[names[0]].median / r[n].median).toFixed(3) });
  }
}
console.table(out);
fs.mkdirSync(path.join(path.dirname(new URL(import.meta.url).pathname), '../results'), { recursive: true });
fs.writeFileSync(path.join(path.dirname(new URL(import.meta.url).pathname), '../results/gemm_experiment.json'), JSON.stringify({ date: new Date().toISOString(), rows: out }, null, 1) + '\n');
