// Thread scaling of the npm package: the single-thread SIMD build (init()) against the threads build
// (init({ threads: 2 })), interleaved in one process, wall-clock medians (CPU time would add the
// Workers' time). Attention: every package scheme at the given seqs, batch 1, 8 heads, head_dim 64.
// End to end: the four bench-model layers through rp.loadModel at seq 128 and 512.
// Serial fraction: the Karp–Flatt estimate from the 2-thread speedup s, f = (2/s − 1) / (2 − 1), and
// the Amdahl speedup projected for 4 and 8 cores, 1 / (f + (1 − f)/n) — a projection, not a measurement.
import fs from 'node:fs';
import path from 'node:path';
import { interleave, median } from './util.mjs';
import { makeBenchData, packageSchemes } from './data.mjs';
import { E2E_MODELS } from './e2e_models.mjs';

export const serialFraction = (speedup2) => Math.min(1, Math.max(0, 2 / speedup2 - 1));
export const amdahl = (f, n) => 1 / (f + (1 - f) / n);

export async function threadScaling({ rpModule, models, seqs, reps, log }) {
  const one = await rpModule.init();
  const two = await rpModule.init({ threads: 2 });
  const out = { threads: two.threads, threads_reason: two.threadsReason, attention: [], end_to_end: [] };
  if (two.threads !== 2) return out;
  const H = 8, D = 64;
  for (const S of seqs) {
    const data = makeBenchData(S, H, D);
    for (const [name, scheme] of Object.entries(packageSchemes(S, H, D, data))) {
      const args = { q: data.q, k: data.k, v: data.v, batch: 1, heads: H, seqLen: S, headDim: D, scheme };
      const r = await interleave({ one: () => one.attention(args), two: () => two.attention(args) }, { reps: reps[S], warm: 2 });
      const row = { scheme: name, seq: S, one_ms: +r.one.wall_median.toFixed(3), two_ms: +r.two.wall_median.toFixed(3) };
      row.speedup = +(row.one_ms / row.two_ms).toFixed(3);
      out.attention.push(row);
      log(`threads: attention ${name} seq ${S}: 1 thread ${row.one_ms} ms, 2 threads ${row.two_ms} ms (×${row.speedup})`);
    }
  }
  for (const m of E2E_MODELS) {
    const dir = path.join(models, m);
    if (!fs.existsSync(dir)) continue;
    const m1 = await one.loadModel(dir), m2 = await two.loadModel(dir);
    for (const S of [128, 512]) {
      const ids = Array.from({ length: S }, (_, i) => (i * 7919 + 13) % 512);
      const r = await interleave({ one: () => m1.forward({ inputIds: ids }), two: () => m2.forward({ inputIds: ids }) }, { reps: 7, warm: 2 });
      const row = { model: m, seq: S, one_ms: +r.one.wall_median.toFixed(3), two_ms: +r.two.wall_median.toFixed(3) };
      row.speedup = +(row.one_ms / row.two_ms).toFixed(3);
      row.serial_fraction = +serialFraction(row.speedup).toFixed(3);
      out.end_to_end.push(row);
      log(`threads: e2e ${m} seq ${S}: 1 thread ${row.one_ms} ms, 2 threads ${row.two_ms} ms (×${row.speedup}, serial fraction ≈ ${row.serial_fraction})`);
    }
    m1.dispose();
    m2.dispose();
  }
  if (out.end_to_end.length) {
    const f = median(out.end_to_end.map((r) => r.serial_fraction));
    out.serial_fraction = +f.toFixed(3);
    out.projected_speedup = { 4: +amdahl(f, 4).toFixed(2), 8: +amdahl(f, 8).toFixed(2), note: 'Amdahl projection from the measured 2-thread serial fraction, not a measurement' };
  }
  one.dispose();
  two.dispose();
  return out;
}
