// Issue #26: a local (sliding-window) attention call vs a global one at 8192 tokens, ModernBERT-base
// shape (12 heads, head_dim 64, RoPE), through the npm package (rp.attention({ window })), single
// thread, interleaved rounds, medians. Target: local ÷ global ≤ 0.3 (window 64 = local_attention 128;
// the banded schedule's FLOP ratio is computed beside it: Q·Kᵀ and P·V over the keys each block of
// 64 queries visits).
import { interleave, randomArray } from './util.mjs';

const HEADS = 12, HEAD_DIM = 64, WINDOW = 64, BLOCK = 64, TARGET = 0.3;

// Query·key pairs the driver computes for one head (relpos/scheme.h, "Key columns").
function visitedPairs(seq, window) {
  let pairs = 0;
  for (let i0 = 0; i0 < seq; i0 += BLOCK) {
    const i1 = Math.min(seq, i0 + BLOCK);
    const j0 = window < 0 ? 0 : Math.max(0, i0 - window), j1 = window < 0 ? seq : Math.min(seq, i1 + window);
    pairs += (i1 - i0) * (j1 - j0);
  }
  return pairs;
}

export async function localVsGlobal({ rp, seq = 8192, reps = 3, log }) {
  if (!rp) return { unavailable: 'npm package not loaded' };
  const n = HEADS * seq * HEAD_DIM;
  const args = { q: randomArray(n, 261), k: randomArray(n, 262), v: randomArray(n, 263), batch: 1, heads: HEADS, seqLen: seq, headDim: HEAD_DIM,
    scheme: { type: 'rope', layout: 'half', theta: 10000 } };
  const r = await interleave({ global: () => rp.attention(args), local: () => rp.attention({ ...args, window: WINDOW }) }, { reps, warm: 1 });
  for (const c of ['global', 'local']) if (r[c].error) return { unavailable: `${c}: ${r[c].error}` };
  const g = r.global.median, l = r.local.median;  // process CPU ms per call (medians), as the other sections
  const flopsGlobal = 4 * HEAD_DIM * HEADS * visitedPairs(seq, -1), flopsLocal = 4 * HEAD_DIM * HEADS * visitedPairs(seq, WINDOW);
  const row = { seq, heads: HEADS, head_dim: HEAD_DIM, scheme: 'rope', window: WINDOW, global_ms: g, local_ms: l,
    global_wall_ms: r.global.wall_median, local_wall_ms: r.local.wall_median,
    ratio: l / g, flop_ratio: flopsLocal / flopsGlobal, global_gflops: flopsGlobal / g / 1e6, local_gflops: flopsLocal / l / 1e6, target: TARGET };
  log?.(`window: ${JSON.stringify(row)}`);
  return row;
}

export function windowTargets(r, add, fmt) {
  const w = r.window_attention;
  add(`local (window 64) ÷ global attention at 8192 tokens ≤ ${TARGET}`, w?.ratio != null ? w.ratio <= TARGET : null,
    w?.ratio != null ? `${fmt(w.local_ms)} ms ÷ ${fmt(w.global_ms)} ms = ${fmt(w.ratio, 3)} (FLOP ratio ${fmt(w.flop_ratio, 3)}; 12 heads, head_dim 64, rope, npm package, 1 thread)` : w?.unavailable ?? '');
}

export function windowMarkdown(r, L, fmt) {
  const w = r.window_attention;
  if (!w || w.unavailable) return;
  L.push('## Sliding-window attention (issue #26)', '',
    '| seq | heads × head_dim | scheme | window | global ms | local ms | local ÷ global | FLOP ratio | global GFLOP/s | local GFLOP/s |',
    '| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    `| ${w.seq} | ${w.heads} × ${w.head_dim} | ${w.scheme} | ${w.window} | ${fmt(w.global_ms)} | ${fmt(w.local_ms)} | ${fmt(w.ratio, 3)} | ${fmt(w.flop_ratio, 3)} | ${fmt(w.global_gflops)} | ${fmt(w.local_gflops)} |`, '');
}
