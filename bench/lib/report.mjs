// Turns the results object into bench/results/latest.{json,md,svg} and evaluates the targets.
import fs from 'node:fs';
import path from 'node:path';
import { debertaBucket } from './positions.mjs';
import { shortMarkdown, shortTargets } from './report_short.mjs';
import { trainingMarkdown, trainingTargets } from './report_training.mjs';
import { familiesMarkdown, familiesTargets } from './report_families.mjs';
import { windowMarkdown, windowTargets } from './window.mjs';
import { spansMarkdown, spansTargets } from './spans.mjs';
import { webgpuMarkdown, webgpuTargets } from './webgpu.mjs';
import { webgpuPeerMarkdown, webgpuPeerTargets } from './report_webgpu_peer.mjs';
import { wllamaPeerMarkdown } from './report_wllama_peer.mjs';

const MiB = 2 ** 20, KiB = 1024;
const fmt = (x, d = 2) => (x === null || x === undefined || Number.isNaN(x) ? '–' : typeof x === 'number' ? x.toFixed(d) : String(x));

// Multiply-adds of each benchmarked scheme relative to plain attention (2·S²·d per head), counting
// only what its formula needs at these settings (block of 64 query rows, head_dim 64, 8 heads):
// the floor for its ×none ratio if its extra GEMMs ran exactly as fast as plain attention's.
export function flopBound(scheme, S) {
  const d = 64, B = 64;
  const win = (rows) => Math.min(rows, S + B - 1); // distinct table rows one block of queries reaches
  switch (scheme) {
    case 'shaw': return 1 + win(33) / S;                  // keys + values, k = 16
    case 'shaw_k128': return 1 + win(257) / S;            // keys + values, k = 128
    case 'shaw_keys': return 1 + win(257) / (2 * S);      // keys only, k = 128
    case 'huang': return 1 + win(257) / (2 * S);          // m = 128
    case 'bert_relative_key': return 1 + win(2 * S - 1) / (2 * S);
    case 'transformer_xl': return 1 + win(2 * S - 1) / (2 * S) + ((2 * S - 1) * 512 * d) / (2 * S * S * d); // + R·W_kRᵀ per head
    case 'tupe': return 1.5 + (2 * S * 128 * d) / (2 * S * S * d);
    case 'deberta': return 1 + debertaReachedRows(S) / (2 * S * S);
    case 'mlp': return 1 + (S * (16 * 64 + 64 * d)) / (2 * S * S * d);
    default: return 1;
  }
}

// DeBERTa (256 buckets, 512 positions): table rows × queries (c2p, per block of 64 queries) plus
// table rows × keys (p2c, per panel of 64 keys) that relpos projects — only the rows each block reaches.
function debertaReachedRows(S) {
  const span = 256;
  const idx = (delta) => Math.max(0, Math.min(2 * span - 1, debertaBucket(-delta) + span)); // δ = j − i; idx non-increasing in δ
  let rows = 0;
  for (let a = 0; a < S; a += 64) {
    const b = Math.min(S, a + 64);
    rows += (b - a) * (idx(-(b - 1)) - idx(S - 1 - a) + 1);  // c2p: queries [a, b), δ ∈ [−(b−1), S−1−a]
    rows += (b - a) * (idx(a - (S - 1)) - idx(b - 1) + 1);    // p2c: keys [a, b), δ ∈ [a−(S−1), b−1]
  }
  return rows;
}

export function targets(r) {
  const t = [];
  const add = (name, pass, detail) => t.push({ target: name, status: pass === null ? 'not measured' : pass ? 'met' : 'MISSED', detail });
  const k = (seq, scheme) => r.kernels?.find((x) => x.variant === 'simd' && x.seq === seq && x.scheme === scheme);
  const none512 = k(512, 'none');
  add('plain attention seq 512 ≥ 25 GFLOP/s', none512?.gflops != null ? none512.gflops >= 25 : null,
    none512 ? `${fmt(none512.gflops)} GFLOP/s (${fmt(none512.pct_peak, 1)} % of the measured ${fmt(r.peak?.simd.gflops)} GFLOP/s peak)` : '');
  const p512 = r.peer?.find((x) => x.seq === 512 && x.scheme === 'none');
  add('plain attention seq 512 faster than onnxruntime-web', p512?.relpos_over_ort != null ? p512.relpos_over_ort < 1 : null,
    p512 ? `relpos ${fmt(p512.relpos_ms ?? p512.relpos_kernel_ms)} ms vs ORT ${fmt(p512.ort_ms)} ms (${p512.measured_via})` : '');
  for (const seq of [512, 2048]) {
    const rows = (r.kernels || []).filter((x) => x.variant === 'simd' && x.seq === seq && x.scheme !== 'none');
    if (!rows.length) { add(`every scheme within 1.25× of plain at seq ${seq}`, null, ''); continue; }
    const bad = rows.filter((x) => x.ratio_to_none == null || x.ratio_to_none > 1.25);
    add(`every scheme within 1.25× of plain at seq ${seq}`, bad.length === 0,
      bad.length ? 'over: ' + bad.map((x) => `${x.scheme} ${x.ratio_to_none == null ? 'failed' : fmt(x.ratio_to_none) + '×'} (multiply-add floor ${fmt(flopBound(x.scheme, seq))}×)`).join(', ') : `worst ${fmt(Math.max(...rows.map((x) => x.ratio_to_none)))}×`);
  }
  // thread scaling (lib/threads.mjs): 1 vs 2 threads of the npm package, wall clock
  for (const seq of [512, 2048]) {
    const rows = (r.threads?.attention || []).filter((x) => x.seq === seq);
    const worst = rows.length ? rows.reduce((a, b) => (b.speedup < a.speedup ? b : a)) : null;
    add(`attention 2 threads ≥ 1.8× 1 thread at seq ${seq}, every scheme`, rows.length ? rows.every((x) => x.speedup >= 1.8) : null,
      worst ? `worst ${worst.scheme} ${fmt(worst.speedup)}×; ` + rows.map((x) => `${x.scheme} ${fmt(x.speedup)}×`).join(', ') : r.threads?.threads_reason ?? '');
  }
  for (const seq of [128, 512]) {
    const rows = (r.threads?.end_to_end || []).filter((x) => x.seq === seq);
    add(`end-to-end layers 2 threads ≥ 1.7× 1 thread at seq ${seq}`, rows.length ? rows.every((x) => x.speedup >= 1.7) : null,
      rows.map((x) => `${x.model} ${fmt(x.speedup)}×`).join(', '));
  }
  // peers at equal thread counts (lib/peer_threads.mjs): relpos vs onnxruntime-web, both on 1 and both on 2 threads, wall clock
  const pt = r.threads?.peers;
  if (pt?.unavailable) add('relpos faster than onnxruntime-web at equal thread counts', null, pt.unavailable);
  for (const n of pt && !pt.unavailable ? [1, 2] : []) {
    const th = n === 1 ? '1 thread' : '2 threads';
    const cases = [...pt.attention.filter((x) => !x.skipped && !x.error).map((x) => [`${x.scheme} attention seq ${x.seq}`, x]),
      ...pt.end_to_end.map((x) => [`end to end ${x.model} seq ${x.seq}`, x])];
    for (const [what, x] of cases) {
      const q = x[`ort_over_relpos_${n}`];
      add(`relpos faster than onnxruntime-web, both on ${th}: ${what}`, q != null ? q > 1 : null,
        `relpos ${fmt(x[`relpos_${n}_ms`])} ms vs ORT ${fmt(x[`ort_${n}_ms`])} ms wall, ORT ÷ relpos ${fmt(q)}×` + (x[`relpos_${n}_error`] || x[`ort_${n}_error`] ? ` (error: ${x[`relpos_${n}_error`] || x[`ort_${n}_error`]})` : ''));
    }
  }
  const tc = pt?.thread_check;
  if (tc) {
    const w = (k) => (tc[k] ? `${tc[k].working_threads} working thread(s) (CPU ms ${tc[k].working_thread_cpu_ms.join(' + ')})` : 'not read');
    add(`onnxruntime-web numThreads 2 works on 2 threads and beats numThreads 1 (${tc.case})`,
      tc.ort_2_uses_2_threads == null || tc.ort_2_faster_than_ort_1 == null ? null : tc.ort_2_uses_2_threads && tc.ort_2_faster_than_ort_1,
      `ORT numThreads 1: ${w('ort_1')}; numThreads 2: ${w('ort_2')}; wall 1 ÷ 2 threads ${fmt(pt.attention.find((x) => x.scheme === 'none' && tc.case.endsWith(`seq ${x.seq}`))?.ort_scaling)}× (relpos: ${w('relpos_1')} / ${w('relpos_2')})`);
  }
  if (r.threads?.serial_fraction != null)
    t.push({ target: 'serial fraction of a forward pass (from the 2-thread speedup)', status: 'measured', detail:
      `≈ ${fmt(r.threads.serial_fraction, 3)}; projected (Amdahl, not measured): ${fmt(r.threads.projected_speedup[4])}× on 4 cores, ${fmt(r.threads.projected_speedup[8])}× on 8` });
  for (const scheme of ['shaw_keys', 'deberta']) {
    const rows = (r.peer || []).filter((x) => x.scheme === scheme && x.ort_speedup != null);
    add(`${scheme} ≥ 3× faster than onnxruntime-web`, rows.length ? rows.every((x) => x.ort_speedup >= 3) : null,
      rows.map((x) => `seq ${x.seq}: ${fmt(x.ort_speedup)}×`).join(', '));
  }
  const h = r.package_heap?.find((x) => x.scheme === 'none' && x.heap_after_bytes);
  const hk = r.kernels?.filter((x) => x.variant === 'simd' && x.seq === 8192);
  if (h) {
    const failed = r.package_heap.filter((x) => !x.heap_after_bytes);
    const worst = r.package_heap.filter((x) => x.heap_after_bytes).reduce((a, b) => (b.heap_after_bytes > a.heap_after_bytes ? b : a));
    add('seq 8192 peak heap < 64 MiB, every scheme (whole WebAssembly heap, npm package)', !failed.length && worst.heap_after_bytes < 64 * MiB,
      `largest ${fmt(worst.heap_after_bytes / MiB, 1)} MiB (${worst.scheme}) over ${r.package_heap.length - failed.length} schemes, for ${fmt(worst.io_bytes / MiB, 0)} MiB of q, k, v and output streamed a few heads at a time` +
      (failed.length ? `; failed: ${failed.map((x) => x.scheme).join(', ')}` : ''));
  } else if (hk?.length) {
    const mem = hk[0].wasm_memory_bytes;
    add('seq 8192 peak heap < 64 MiB', mem < 64 * MiB, `bench harness wasm memory ${fmt(mem / MiB, 1)} MiB (all schemes' tables resident)`);
  } else add('seq 8192 peak heap < 64 MiB', null, 'seq 8192 not run');
  if (hk?.length) {
    const worst = hk.reduce((a, b) => (b.scratch_bytes > a.scratch_bytes ? b : a));
    add('seq 8192 scratch (relpos Workspace) < 64 MiB', worst.scratch_bytes < 64 * MiB, `largest ${fmt(worst.scratch_bytes / MiB, 1)} MiB (${worst.scheme})`);
  }
  const e2e = (r.end_to_end || []).filter((x) => x.relpos_over_ort != null);
  if (e2e.length) {
    add('end to end: faster than onnxruntime-web on all four layers', e2e.every((x) => x.relpos_over_ort < 1),
      e2e.map((x) => `${x.model} seq ${x.seq}: ${fmt(1 / x.relpos_over_ort)}×`).join(', '));
    const deb = e2e.filter((x) => /deberta/.test(x.model));
    add('end to end: DeBERTa ≥ 2× faster than onnxruntime-web', deb.length ? deb.every((x) => x.relpos_over_ort <= 0.5) : null,
      deb.map((x) => `seq ${x.seq}: ${fmt(1 / x.relpos_over_ort)}×`).join(', '));
  } else {
    add('end to end: faster than onnxruntime-web on all four layers', null, '');
    add('end to end: DeBERTa ≥ 2× faster than onnxruntime-web', null, '');
  }
  const ql = (r.q8_linear || []).filter((x) => x.speedup != null);
  add('q8 linear layer ≥ 1.5× the fp32 one at every bench-model shape (SIMD128)', ql.length ? ql.every((x) => x.speedup >= 1.5) : null,
    ql.map((x) => `M ${x.M} ${x.K}→${x.N}: ${fmt(x.speedup)}×`).join(', '));
  const qb = (r.end_to_end || []).filter((x) => x.q8_weight_bytes && x.seq === 128);
  add('q8 weight bytes ≤ 0.27× fp32 on every bench model (model.info.weightBytes)', qb.length ? qb.every((x) => x.q8_weight_bytes <= 0.27 * x.fp32_weight_bytes) : null,
    qb.map((x) => `${x.model} ${fmt(x.q8_weight_bytes / x.fp32_weight_bytes, 3)}`).join(', '));
  const qe = (r.end_to_end || []).filter((x) => x.q8_over_fp32 != null);
  add('end to end: q8 faster than fp32 on all four layers', qe.length ? qe.every((x) => x.q8_over_fp32 < 1) : null,
    qe.map((x) => `${x.model} seq ${x.seq}: q8 ${fmt(x.relpos_q8_ms)} ms = ${fmt(1 / x.q8_over_fp32)}× fp32, ${fmt(1 / x.q8_over_ort)}× ORT`).join(', '));
  const wasm = r.sizes?.find((x) => x.file === 'web/dist/relpos-simd.wasm');
  const glue = r.sizes?.find((x) => x.file === 'web/dist/relpos-simd.js');
  if (wasm && glue) {
    const g = wasm.gzip_bytes + glue.gzip_bytes;
    const web = r.sizes.filter((x) => /^web\/[^/]+\.js$/.test(x.file)).reduce((a, b) => a + b.gzip_bytes, 0);
    add('SIMD wasm + glue ≤ 240 KiB gzip', g <= 240 * KiB, `${fmt(g / KiB, 1)} KiB (wasm ${fmt(wasm.gzip_bytes / KiB, 1)} + glue ${fmt(glue.gzip_bytes / KiB, 1)}); with web/*.js ${fmt((g + web) / KiB, 1)} KiB`);
  } else add('SIMD wasm + glue ≤ 240 KiB gzip', null, 'web/dist not built');
  const s = r.startup;
  add('first result ≤ 50 ms after init() starts (median wall)', s?.first_result_ms != null ? s.first_result_ms <= 50 : null,
    s?.first_result_ms != null ? `median ${fmt(s.first_result_ms, 1)} ms wall, best ${fmt(s.first_result_min_ms, 1)} ms, ${fmt(s.first_result_cpu_ms, 1)} ms CPU (init alone ${fmt(s.init_ms, 1)} ms; the module import before init ${fmt(s.import_ms, 1)} ms)` : s?.error ?? '');
  shortTargets(r, add);  // issues #19 / #20 (lib/report_short.mjs)
  familiesTargets(r, add);  // issue #26 (lib/report_families.mjs)
  trainingTargets(r, add);  // issue #18 (lib/report_training.mjs)
  windowTargets(r, add, fmt);  // issue #26 (lib/window.mjs)
  spansTargets(r, add);  // issue #28 (lib/spans.mjs)
  webgpuTargets(r, add);  // issue #27 (lib/webgpu.mjs)
  webgpuPeerTargets(r, add);  // issue #27, Chromium peer (lib/report_webgpu_peer.mjs)
  return t;
}

function svg(r) {
  const rows = (r.kernels || []).filter((x) => x.variant === 'simd' && x.ms);
  const schemes = [...new Set(rows.map((x) => x.scheme))];
  const peer = (r.peer || []).filter((x) => x.ort_ms);
  const peerSchemes = [...new Set(peer.map((x) => x.scheme))];
  const W = 900, Hh = 560, L = 70, R = 230, T = 40, B = 60;
  const seqs = [...new Set(rows.map((x) => x.seq))].sort((a, b) => a - b);
  const all = rows.map((x) => x.ms).concat(peer.map((x) => x.ort_ms));
  if (!seqs.length || !all.length) return '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="40"><text x="10" y="25">no kernel data</text></svg>';
  const lx0 = Math.log2(seqs[0]), lx1 = Math.log2(seqs[seqs.length - 1]) || lx0 + 1;
  const ly0 = Math.floor(Math.log10(Math.min(...all))), ly1 = Math.ceil(Math.log10(Math.max(...all)));
  const X = (s) => L + ((Math.log2(s) - lx0) / Math.max(lx1 - lx0, 1e-9)) * (W - L - R);
  const Y = (ms) => Hh - B - ((Math.log10(ms) - ly0) / Math.max(ly1 - ly0, 1e-9)) * (Hh - T - B);
  const colors = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf', '#393b79', '#ad494a', '#637939', '#7b4173', '#000000'];
  const col = (s) => colors[schemes.indexOf(s) % colors.length] ?? '#444';
  const out = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${Hh}" viewBox="0 0 ${W} ${Hh}" font-family="sans-serif" font-size="12">`);
  out.push(`<rect width="${W}" height="${Hh}" fill="white"/>`);
  out.push(`<text x="${L}" y="20" font-size="14" font-weight="bold">relpos attention time vs sequence length (WASM SIMD128, 1 thread, batch 1, 8 heads, head_dim 64)</text>`);
  out.push(`<text x="${L}" y="34" fill="#555">${r.meta.machine} · ${r.meta.date.slice(0, 16)} · solid: relpos kernel per scheme · dashed: onnxruntime-web ${r.meta.ort_web}</text>`);
  for (let e = ly0; e <= ly1; ++e) {
    const y = Y(10 ** e);
    out.push(`<line x1="${L}" x2="${W - R}" y1="${y}" y2="${y}" stroke="#ddd"/><text x="${L - 6}" y="${y + 4}" text-anchor="end">${10 ** e >= 1 ? 10 ** e : (10 ** e).toPrecision(1)} ms</text>`);
  }
  for (const s of seqs) {
    const x = X(s);
    out.push(`<line x1="${x}" x2="${x}" y1="${T}" y2="${Hh - B}" stroke="#eee"/><text x="${x}" y="${Hh - B + 16}" text-anchor="middle">${s}</text>`);
  }
  out.push(`<text x="${(L + W - R) / 2}" y="${Hh - 20}" text-anchor="middle">sequence length (log scale)</text>`);
  out.push(`<line x1="${L}" x2="${L}" y1="${T}" y2="${Hh - B}" stroke="#000"/><line x1="${L}" x2="${W - R}" y1="${Hh - B}" y2="${Hh - B}" stroke="#000"/>`);
  schemes.forEach((s, i) => {
    const pts = rows.filter((x) => x.scheme === s).sort((a, b) => a.seq - b.seq).map((x) => `${X(x.seq).toFixed(1)},${Y(x.ms).toFixed(1)}`);
    out.push(`<polyline fill="none" stroke="${col(s)}" stroke-width="${s === 'none' ? 3 : 1.5}" points="${pts.join(' ')}"/>`);
    for (const p of pts) out.push(`<circle cx="${p.split(',')[0]}" cy="${p.split(',')[1]}" r="2.5" fill="${col(s)}"/>`);
    out.push(`<line x1="${W - R + 15}" x2="${W - R + 40}" y1="${T + 10 + i * 17}" y2="${T + 10 + i * 17}" stroke="${col(s)}" stroke-width="3"/><text x="${W - R + 46}" y="${T + 14 + i * 17}">${s}</text>`);
  });
  peerSchemes.forEach((s, i) => {
    const c = schemes.includes(s) ? col(s) : '#444';
    const pts = peer.filter((x) => x.scheme === s).sort((a, b) => a.seq - b.seq).map((x) => `${X(x.seq).toFixed(1)},${Y(x.ort_ms).toFixed(1)}`);
    out.push(`<polyline fill="none" stroke="${c}" stroke-width="1.5" stroke-dasharray="5,4" points="${pts.join(' ')}"/>`);
    const yy = T + 10 + (schemes.length + 1 + i) * 17;
    out.push(`<line x1="${W - R + 15}" x2="${W - R + 40}" y1="${yy}" y2="${yy}" stroke="${c}" stroke-width="2" stroke-dasharray="5,4"/><text x="${W - R + 46}" y="${yy + 4}">ORT ${s}</text>`);
  });
  out.push('</svg>');
  return out.join('\n');
}

function markdown(r) {
  const m = r.meta;
  const L = [];
  L.push(`# relpos benchmark results`, '');
  L.push(`${m.date} · ${m.machine} · Node ${m.node} (V8 ${m.v8}) · onnxruntime-web ${m.ort_web} · relpos ${m.relpos_commit}${m.relpos_worktree_dirty ? ' + uncommitted work tree' : ''} · 1 thread · load average ${m.loadavg_at_start.join(' ')} → ${m.loadavg_at_end?.join(' ')} · ${m.duration_s} s${m.quick ? ' · QUICK run' : ''}`, '');
  L.push('Single-threaded, medians of interleaved rounds after warm-up, all in one process run. **Times are process CPU time** (process.cpuUsage, user + system) unless marked wall: the machine is shared with other engineers\' builds, and CPU time does not count the time other processes hold the core (wall-clock medians are in latest.json). Compare ratios within this run.', '');
  L.push('## Targets', '', '| target | status | measured |', '| --- | --- | --- |');
  for (const t of r.targets) L.push(`| ${t.target} | ${t.status === 'MISSED' ? '**MISSED**' : t.status} | ${t.detail} |`);
  L.push('');
  if (r.peak) {
    L.push('## Peak (mul+add microkernel, bench/src/peak.cpp)', '');
    L.push(`SIMD128: **${r.peak.simd.gflops} GFLOP/s** (f32x4.mul + f32x4.add, by accumulator count ${JSON.stringify(r.peak.simd.by_accumulators)}); scalar WASM: **${r.peak.scalar.gflops} GFLOP/s** (${JSON.stringify(r.peak.scalar.by_accumulators)}); ratio ${r.peak.simd_over_scalar}×.`, '');
  }
  if (r.kernels?.length) {
    L.push('## Kernels (relpos::attention via the bench harness; batch 1, 8 heads, head_dim 64)', '');
    L.push('Effective GFLOP/s = 4·seq²·head_dim·heads / time (the same count for every scheme, so it falls when a scheme adds work). ×none (floor): the measured ratio to plain attention, and in brackets the ratio of multiply-adds the scheme\'s formula needs at these settings (bench/lib/report.mjs flopBound) — a scheme whose floor exceeds 1.25 cannot meet the 1.25× target by kernel tuning alone. Scratch = the call\'s relpos Workspace; wasm memory = the harness instance after all schemes at that size (inputs, all schemes\' tables and workspaces).', '');
    for (const variant of ['simd', 'scalar']) {
      const rows = r.kernels.filter((x) => x.variant === variant);
      if (!rows.length) continue;
      const seqs = [...new Set(rows.map((x) => x.seq))];
      L.push(`### ${variant === 'simd' ? 'SIMD128' : 'scalar'} build`, '');
      L.push('| scheme | ' + seqs.map((s) => `seq ${s} ms | GFLOP/s | % peak | ×none (floor)`).join(' | ') + ' |');
      L.push('| --- | ' + seqs.map(() => '---: | ---: | ---: | ---:').join(' | ') + ' |');
      for (const sc of [...new Set(rows.map((x) => x.scheme))]) {
        const cells = seqs.map((s) => {
          const x = rows.find((y) => y.seq === s && y.scheme === sc);
          if (!x) return '– | – | – | –';
          if (x.error && !x.ms) return `error: ${x.error.slice(0, 60)} | | |`;
          return `${fmt(x.ms, x.ms < 10 ? 3 : 1)} | ${fmt(x.gflops, 1)} | ${fmt(x.pct_peak, 0)} | ${fmt(x.ratio_to_none)} (${fmt(flopBound(sc, s))})`;
        });
        L.push(`| ${sc} | ${cells.join(' | ')} |`);
      }
      L.push('');
      L.push('| seq | wasm memory MiB | largest scratch MiB (scheme) |', '| ---: | ---: | --- |');
      for (const s of seqs) {
        const at = rows.filter((x) => x.seq === s);
        const w = at.reduce((a, b) => (b.scratch_bytes > a.scratch_bytes ? b : a));
        L.push(`| ${s} | ${fmt(at[0].wasm_memory_bytes / MiB, 1)} | ${fmt(w.scratch_bytes / MiB, 2)} (${w.scheme}) |`);
      }
      L.push('');
    }
  }
  if (r.experiment_wasm_exp?.length) {
    L.push('## Experiments: proposed kernel changes, timed against the current build in this process', '');
    L.push('Rows without a note: WASM-SIMD exp in raddstoreexpminusmax_f32 (bench/src/softmax_wasm_exp.cpp). Rows "transformer_xl (Rk cached)": the packed R·W_kRᵀ table cached per head in the scheme object (bench/lib/make_txl_experiment.mjs), proposed ×none shown in the speed-up column note. Each variant is the same harness linked ahead of librelpos_simd.a.', '');
    L.push('| seq | scheme | current ms | proposed ms | speed-up | GFLOP/s current → proposed | max |Δ| output |', '| ---: | --- | ---: | ---: | ---: | --- | --- |');
    for (const x of r.experiment_wasm_exp) L.push(`| ${x.seq} | ${x.scheme} | ${fmt(x.current_ms)} | ${fmt(x.wasm_exp_ms)} | ${fmt(x.speedup)}×${x.proposed_ratio_to_none ? ` (×none ${fmt(x.current_ratio_to_none)} → ${fmt(x.proposed_ratio_to_none)})` : ''} | ${fmt(x.current_gflops, 1)} → ${fmt(x.wasm_exp_gflops, 1)} | ${x.max_abs_diff.toExponential(1)} |`);
    L.push('');
  }
  if (r.peer?.length) {
    L.push('## Peer: onnxruntime-web (wasm EP, SIMD, 1 thread) on the same attention as ONNX graphs', '');
    L.push('Graphs as exported models compute it (bench/lib/onnx.mjs): plain; T5 bias via Gather of the bucket table; ALiBi slopes·positions; Shaw / BERT relative_key via Gather → [seq, seq, d] + Einsum; DeBERTa c2p + p2c via GatherElements. relpos via the npm package `rp.attention` (copies in and out, as ORT does) and, for reference, the kernel alone.', '');
    L.push('| seq | scheme | ORT ms | relpos ms | relpos kernel ms | relpos/ORT | ORT÷relpos | max |Δ| (package / kernel) | agree ≤1e-4 |', '| ---: | --- | ---: | ---: | ---: | ---: | ---: | --- | --- |');
    for (const x of r.peer) {
      if (x.skipped || x.error) { L.push(`| ${x.seq} | ${x.scheme} | ${x.skipped ? 'skipped: ' + x.skipped : 'error: ' + x.error} | | | | | | |`); continue; }
      L.push(`| ${x.seq} | ${x.scheme} | ${fmt(x.ort_ms)} | ${fmt(x.relpos_ms)} | ${fmt(x.relpos_kernel_ms)} | ${fmt(x.relpos_over_ort, 3)} | ${fmt(x.ort_speedup)} | ${x.max_abs_diff !== undefined ? x.max_abs_diff.toExponential(1) : '–'} / ${x.max_abs_diff_kernel !== undefined ? x.max_abs_diff_kernel.toExponential(1) : '–'} | ${x.agree === null ? (x.relpos || 'n/a') : x.agree ? 'yes' : '**NO**'} |`);
    }
    L.push('');
  }
  if (r.end_to_end?.length) {
    L.push('## End to end: one encoder layer (../shared/bench-models), token ids → last_hidden_state', '');
    L.push('| model | seq | ORT ms | relpos ms | relpos/ORT | ORT vs expected | relpos vs expected (seq 128) / vs ORT (seq 512) | relpos via |', '| --- | ---: | ---: | ---: | ---: | --- | --- | --- |');
    const e = (v) => (v !== undefined ? v.toExponential(1) : '–');
    for (const x of r.end_to_end)
      L.push(`| ${x.model} | ${x.seq} | ${fmt(x.ort_ms)} | ${x.relpos_ms != null ? fmt(x.relpos_ms) : x.relpos_error ? 'error: ' + x.relpos_error.slice(0, 60) : 'pending'} | ${fmt(x.relpos_over_ort, 3)} | ${e(x.ort_max_abs_diff)} | ${x.seq === 128 ? e(x.relpos_max_abs_diff) : e(x.relpos_vs_ort_max_abs_diff)}${(x.relpos_max_abs_diff ?? 0) > 1e-4 || (x.relpos_vs_ort_max_abs_diff ?? 0) > 1e-4 ? ' **> 1e-4**' : ''} | ${x.relpos_via ?? '–'} |`);
    L.push('');
  }
  if (r.q8_linear?.length) {
    L.push('## 8-bit linear layer (bench/src/linear_harness.cpp, SIMD128): fp32 vs q8 weights', '');
    L.push('| models | M | K → N | fp32 ms | q8 ms | q8 speed-up | fp32 GFLOP/s | q8 GOP/s | q8 vs fp32 max rel diff |', '| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const x of r.q8_linear)
      L.push(x.error ? `| error: ${x.error} | | | | | | | | |` : `| ${x.models} | ${x.M} | ${x.K} → ${x.N} | ${fmt(x.fp32_ms, 3)} | ${fmt(x.q8_ms, 3)} | ${fmt(x.speedup)}× | ${fmt(x.fp32_gflops)} | ${fmt(x.q8_gops)} | ${x.q8_rel_diff} |`);
    L.push('');
  }
  if ((r.end_to_end || []).some((x) => x.relpos_q8_ms != null)) {
    L.push('## End to end with 8-bit weights (rp.loadModel(dir, { dtype: \'q8\' }))', '');
    L.push('| model | seq | ORT fp32 ms | relpos fp32 ms | relpos q8 ms | q8 ÷ fp32 | q8 ÷ ORT | q8 vs fp32 max abs (rel) | weight bytes q8 / fp32 |', '| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |');
    for (const x of r.end_to_end.filter((y) => y.relpos_q8_ms != null))
      L.push(`| ${x.model} | ${x.seq} | ${fmt(x.ort_ms)} | ${fmt(x.relpos_ms)} | ${fmt(x.relpos_q8_ms)} | ${fmt(x.q8_over_fp32, 3)} | ${fmt(x.q8_over_ort, 3)} | ${x.q8_max_abs_diff_vs_fp32?.toExponential(1) ?? '–'} (${x.q8_rel_diff_vs_fp32?.toExponential(1) ?? '–'}) | ${x.q8_weight_bytes ? `${x.q8_weight_bytes.toLocaleString('en')} / ${x.fp32_weight_bytes.toLocaleString('en')}` : '–'} |`);
    L.push('');
  }
  if (r.sizes?.length) {
    L.push('## Size and start-up', '', '| file | bytes | gzip -9 bytes |', '| --- | ---: | ---: |');
    for (const x of r.sizes) L.push(`| ${x.file} | ${x.bytes.toLocaleString('en')} | ${x.gzip_bytes.toLocaleString('en')} |`);
    L.push('');
    if (r.startup) L.push(`Start-up (${r.startup.runs ?? 0} fresh node processes): ${r.startup.what ?? ''}: **median ${fmt(r.startup.first_result_ms, 1)} ms wall** (best ${fmt(r.startup.first_result_min_ms, 1)} ms; ${fmt(r.startup.first_result_cpu_ms, 1)} ms CPU over all threads; init alone ${fmt(r.startup.init_ms, 1)} ms; the ES-module import before init ${fmt(r.startup.import_ms, 1)} ms).${r.startup.error ? ' Error: ' + r.startup.error : ''}`, '');
  }
  if (r.package_heap?.length) {
    L.push('## Heap at seq 8192 (npm package)', '',
      'Fresh runtime per scheme (a child process), one rp.attention call, batch 1, 8 heads, head_dim 64; the WebAssembly heap never shrinks, so its size after the call is the peak.', '',
      '| scheme | heap before MiB | heap after call MiB | q/k/v/out in JS MiB | call ms (wall) |', '| --- | ---: | ---: | ---: | ---: |');
    for (const x of r.package_heap) L.push(`| ${x.scheme} | ${x.heap_before_bytes ? fmt(x.heap_before_bytes / MiB, 1) : ''} | ${x.heap_after_bytes ? fmt(x.heap_after_bytes / MiB, 1) : 'error: ' + (x.error || '').slice(0, 80)} | ${fmt(x.io_bytes / MiB, 0)} | ${fmt(x.ms, 0)} |`);
    L.push('');
  }

  const pt = r.threads?.peers;
  if (pt?.attention?.length || pt?.end_to_end?.length) {
    L.push('## Peers at equal thread counts: relpos vs onnxruntime-web, both on 1 thread and both on 2 (threads section)', '',
      'relpos `init({ simd: true })` and `init({ threads: 2 })`; onnxruntime-web: two independent copies in this process with env.wasm.numThreads 1 and 2 (bench/lib/ort_instances.mjs). Same inputs, interleaved rounds, **wall-clock** medians (CPU time would add the second thread). Attention graphs as in the peer section; end to end as in the e2e section. max |Δ|: largest difference of relpos (both builds) and ORT 2 threads from ORT 1 thread.', '');
    L.push('| case | seq | relpos 1t ms | ORT 1t ms | ORT÷relpos 1t | relpos 2t ms | ORT 2t ms | ORT÷relpos 2t | relpos 1t÷2t | ORT 1t÷2t | max \\|Δ\\| |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |');
    for (const x of [...pt.attention, ...pt.end_to_end]) {
      const name = x.model ?? `${x.scheme} attention`;
      if (x.skipped || x.error) { L.push(`| ${name} | ${x.seq} | ${x.skipped ? 'skipped: ' + x.skipped : 'error: ' + x.error} | | | | | | | | |`); continue; }
      L.push(`| ${name} | ${x.seq} | ${fmt(x.relpos_1_ms)} | ${fmt(x.ort_1_ms)} | ${fmt(x.ort_over_relpos_1)}× | ${fmt(x.relpos_2_ms)} | ${fmt(x.ort_2_ms)} | ${fmt(x.ort_over_relpos_2)}× | ${fmt(x.relpos_scaling)}× | ${fmt(x.ort_scaling)}× | ${x.max_abs_diff?.toExponential(1) ?? '–'} |`);
    }
    L.push('');
    const tc = pt.thread_check;
    if (tc) L.push(`Thread check (${tc.case}, each contestant alone for ≥ 0.4 s, CPU time per OS thread from /proc/self/task; a thread with ≥ 15 % of the CPU time counts as working): ` +
      ['relpos_1', 'relpos_2', 'ort_1', 'ort_2'].map((k) => tc[k] ? `${k.replace('_', ' ')}t: ${tc[k].working_threads} working (CPU ms ${tc[k].working_thread_cpu_ms.join(' + ')} of ${tc[k].cpu_ms}; ${fmt(tc[k].wall_ms)} ms wall per run)` : `${k}: not read`).join('; ') + '.', '');
  }
  spansMarkdown(r, L);
  shortMarkdown(r, L);
  trainingMarkdown(r, L);
  familiesMarkdown(r, L);
  windowMarkdown(r, L, fmt);
  webgpuMarkdown(r, L);
  webgpuPeerMarkdown(r, L);
  wllamaPeerMarkdown(r, L);
  if (r.notes.length) L.push('## Notes', '', ...r.notes.map((n) => `- ${n}`), '');
  L.push('![time vs seq](latest.svg)', '');
  return L.join('\n');
}

export function writeReports(results, dir) {
  results.targets = targets(results);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'latest.json'), JSON.stringify(results, null, 1) + '\n');
  fs.writeFileSync(path.join(dir, 'latest.md'), markdown(results));
  fs.writeFileSync(path.join(dir, 'latest.svg'), svg(results) + '\n');
  console.log('\n== targets ==');
  for (const t of results.targets) console.log(`${t.status === 'MISSED' ? 'MISSED' : t.status.padEnd(6)}  ${t.target}: ${t.detail}`);
  console.log(`\nwrote ${dir}/latest.{json,md,svg}`);
}
