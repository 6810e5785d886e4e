// Targets, latest.md tables and docs/performance.md tables of the issue #19 / #20 sections (lib/proc_peers.mjs,
// lib/profile.mjs, lib/batching.mjs); report.mjs and readme.mjs call these.
const fmt = (x, d = 2) => (x === null || x === undefined || Number.isNaN(x) ? '–' : typeof x === 'number' ? x.toFixed(d) : String(x));
const BENCH_LAYERS = ['bert-minilm-layer', 'bert-relative-key-layer', 't5-small-encoder-layer', 'deberta-v3-xsmall-layer'];
const PARTS = ['tokenizer', 'js_copies', 'embeddings', 'gemm', 'attention', 'norms_activations', 'pooling', 'js_pooling', 'thread_wakeups', 'other'];
const PART_LABEL = { tokenizer: 'tokenizer', js_copies: 'JS ↔ heap copies + wrapper', embeddings: 'embeddings', gemm: 'GEMMs', attention: 'attention',
  norms_activations: 'norms + activations + residuals', pooling: 'pooler (C++)', js_pooling: 'mean pooling (JS)', thread_wakeups: 'thread wake-ups + join waits', other: 'other C++' };
export const NOT_SLOWER_TOLERANCE = 1.05;
// Other sessions' runnable threads before the children (lib/proc_peers.mjs foreignRunnable): with one or more, Linux
// autogroups give any 2-thread child about one core, so its 2-thread rows are no scaling figure.
const foreign = (sec) => {
  const f = (sec.foreign_runnable_before_children ?? []).filter((x) => x != null);
  return f.length ? `; other sessions' runnable threads ${Math.min(...f).toFixed(1)}–${Math.max(...f).toFixed(1)} (≥ 1: a 2-thread child gets about one core, DEVELOPERS.md "Threads")` : '';
};

// What the worst short row is bound by, from the per-call profile of the same model, tokens and threads:
// the GEMMs' share and rate, and the rate they would need for 1.5× onnxruntime-web if every other part
// of the call (the profile's total − GEMMs) stayed as it is.
function boundBy(r, row, threads) {
  const p = r.profile?.rows?.find((x) => x.threads === threads && x.model === row.model && x.tokens === row.seq);
  const ort = row[`ort_${threads}_ms`];
  if (!p || !p.gemm_gflops || !ort) return '';
  const gemm = p.parts_ms.gemm, rest = p.total_ms - gemm, needGemm = ort / 1.5 - rest;
  const need = needGemm > 0 ? `${fmt((p.gemm_gflops * gemm) / needGemm, 1)} GFLOP/s` : 'less than nothing: the rest of the call alone is over budget';
  return ` — ${row.model} ×${row.seq} per-call profile: GEMMs ${fmt((100 * gemm) / p.total_ms, 0)} % of the call at ${fmt(p.gemm_gflops, 1)} GFLOP/s;` +
    ` 1.5× onnxruntime-web (${fmt(ort)} ms) would need them at ${need}`;
}

export function shortTargets(r, add) {
  const s = r.short_seq;
  if (s?.rows) {
    for (const n of [1, 2]) {
      const rows = s.rows.filter((x) => BENCH_LAYERS.includes(x.model) && x.batch === 1 && x.seq >= 16 && x.seq <= 64);
      const q = rows.map((x) => [x, x[`ort_over_relpos_${n}`]]);
      const worst = q.filter(([, v]) => v != null).sort((a, b) => a[1] - b[1])[0];
      add(`short sequences: relpos ≥ 1.5× onnxruntime-web at batch 1 × 16–64 tokens on every bench layer, ${n === 1 ? '1 thread' : '2 threads'} (separate processes)`,
        q.length && q.every(([, v]) => v != null) ? q.every(([, v]) => v >= 1.5) : null,
        (worst ? `worst ${worst[0].model} ×${worst[0].seq} ${fmt(worst[1])}×; ` : '') + q.map(([x, v]) => `${x.model.replace(/-layer$/, '')} ${x.seq} ${fmt(v)}×`).join(', ') +
        (worst && worst[1] < 1.5 ? boundBy(r, worst[0], n) : ''));
    }
  }
  if (s?.q8?.length) {
    add('q8 at 2 threads ≥ 1.8× q8 at 1 thread on the layers at 128 tokens (separate processes)', s.q8.every((x) => x.q8_scaling != null) ? s.q8.every((x) => x.q8_scaling >= 1.8) : null,
      s.q8.map((x) => `${x.model} ${fmt(x.relpos_q8_1_ms)} → ${fmt(x.relpos_q8_2_ms)} ms, ${fmt(x.q8_scaling)}×`).join('; '));
    add('q8 at 2 threads faster than onnxruntime-web (2 threads) on a dynamically quantized ONNX of the same layer, 128 tokens', s.q8.every((x) => x.ort_q8_over_relpos_q8_2 != null) ? s.q8.every((x) => x.ort_q8_over_relpos_q8_2 > 1) : null,
      s.q8.map((x) => `${x.model} relpos ${fmt(x.relpos_q8_2_ms)} ms vs ORT ${fmt(x.ort_q8_2_ms)} ms, ORT÷relpos ${fmt(x.ort_q8_over_relpos_q8_2)}×`).join('; '));
  }
  const p = r.proc_peers;
  if (p?.rows) {
    const layers = p.rows.filter((x) => x.model && x.vs_latest_1 != null);
    const vals = layers.flatMap((x) => [[`${x.model} ${x.seq} 1t`, x.vs_latest_1], [`${x.model} ${x.seq} 2t`, x.vs_latest_2]]).filter(([, v]) => v != null);
    add(`nothing slower at 128 and 512 tokens than the committed latest.json (relpos ${p.baseline?.relpos_commit ?? '?'}; layers 1 and 2 threads; new ÷ old ≤ ${NOT_SLOWER_TOLERANCE} for noise)`,
      vals.length ? vals.every(([, v]) => v <= NOT_SLOWER_TOLERANCE) : null,
      vals.map(([k, v]) => `${k} ${fmt(v)}`).join(', ') + ' (1 thread: CPU-time medians, as latest.json\'s e2e rows; 2 threads: wall, as its threads rows)');
    const two = p.rows.filter((x) => x.ort_over_relpos_2 != null);
    add('relpos faster than onnxruntime-web on 2 threads, each runtime in its own process (attention seq 512, layers 128 and 512)', two.length ? two.every((x) => x.ort_over_relpos_2 > 1) : null,
      two.map((x) => `${x.model ?? x.scheme + ' attention'} ${x.seq} ${fmt(x.ort_over_relpos_2)}×`).join(', '));
  }
  const f = r.fill_mask?.rows?.filter((x) => x.every_over_at != null);
  if (r.fill_mask) add('fill-mask: logits at the mask positions only beat logits at every token (DeBERTa-v3-base-shaped head)', f?.length ? f.every((x) => x.every_over_at > 1) : null,
    f?.length ? f.map((x) => `seq ${x.seq}: ${fmt(x.logits_at_mask_ms, 1)} vs ${fmt(x.logits_every_token_ms, 1)} ms, ${fmt(x.every_over_at, 1)}×`).join('; ') : r.fill_mask.unavailable ?? r.fill_mask.rows?.map((x) => x.error).join('; ') ?? '');
}

// The profile rows as "part x.xx ms (yy %)" for the largest parts.
function profileCell(x, top = 4) {
  const parts = PARTS.map((k) => [k, x.parts_ms[k]]).filter(([, v]) => v > 0).sort((a, b) => b[1] - a[1]).slice(0, top);
  return parts.map(([k, v]) => `${PART_LABEL[k]} ${fmt(v, 3)} (${fmt((100 * v) / x.total_ms, 0)} %)`).join(', ');
}

// "GEMMs 70–94 %, attention 2–9 %, …" over the profile rows of one thread count (shares of a call).
export function profileSummary(rows) {
  const parts = PARTS.map((k) => {
    const s = rows.map((x) => (100 * x.parts_ms[k]) / x.total_ms);
    return [k, Math.min(...s), Math.max(...s)];
  }).filter(([, , hi]) => hi >= 0.5).sort((a, b) => b[2] - a[2]);
  const g = rows.map((x) => x.gemm_gflops).filter((x) => x != null);
  return parts.map(([k, lo, hi]) => `${PART_LABEL[k]} ${fmt(lo, 0)}–${fmt(hi, 0)} %`).join(', ') +
    (g.length ? `; the linear layers run at ${fmt(Math.min(...g), 1)}–${fmt(Math.max(...g), 1)} GFLOP/s` : '');
}

function tables(r, L, full) {
  const s = r.short_seq;
  if (s?.rows?.length) {
    const la = s.loadavg_before_children ?? [];
    L.push(`Short sequences (issue #19): relpos ms / onnxruntime-web ms and ORT ÷ relpos, ${s.rounds} rounds, each runtime and thread count in its own process (bench/lib/proc_peers.mjs; wall clock${la.length ? `; 1-minute load average ${Math.min(...la).toFixed(1)}–${Math.max(...la).toFixed(1)} before the children: other jobs shared the two cores` : ''}${foreign(s)}). all-MiniLM-L6-v2 is the real 6-layer model, relpos only (no ONNX export here):`, '');
    L.push('| model | batch × tokens | 1 thread: relpos / ORT ms | ORT ÷ relpos | 2 threads: relpos / ORT ms | ORT ÷ relpos | relpos 1t ÷ 2t |' + (full ? ' max \\|Δ\\| vs ORT |' : ''),
      '| --- | --- | ---: | ---: | ---: | ---: | ---: |' + (full ? ' --- |' : ''));
    for (const x of s.rows)
      L.push(`| ${x.model} | ${x.batch} × ${x.seq} | ${fmt(x.relpos_1_ms, 2)} / ${fmt(x.ort_1_ms, 2)} | ${x.ort_over_relpos_1 != null ? `${fmt(x.ort_over_relpos_1)}×` : '–'} | ${fmt(x.relpos_2_ms, 2)} / ${fmt(x.ort_2_ms, 2)} | ${x.ort_over_relpos_2 != null ? `${fmt(x.ort_over_relpos_2)}×` : '–'} | ${fmt(x.relpos_scaling)}× |` + (full ? ` ${x.max_abs_diff?.toExponential(1) ?? '–'} |` : ''));
    L.push('');
  }
  if (s?.q8?.length) {
    L.push('q8 (`dtype: \'q8\'`) at 128 tokens on 1 and 2 threads, against onnxruntime-web running a dynamically quantized ONNX of the same layer (bench/data/make_q8_onnx.py: DynamicQuantizeLinear → MatMulInteger → scale, as quantize_dynamic writes it); separate processes:', '');
    L.push('| model | relpos q8 1t / 2t ms | 2t ÷ 1t speed-up | ORT q8 1t / 2t ms | ORT ÷ relpos 1t | ORT ÷ relpos 2t |', '| --- | ---: | ---: | ---: | ---: | ---: |');
    for (const x of s.q8)
      L.push(`| ${x.model} | ${fmt(x.relpos_q8_1_ms)} / ${fmt(x.relpos_q8_2_ms)} | ${fmt(x.q8_scaling)}× | ${fmt(x.ort_q8_1_ms)} / ${fmt(x.ort_q8_2_ms)} | ${fmt(x.ort_q8_over_relpos_q8_1)}× | ${fmt(x.ort_q8_over_relpos_q8_2)}× |`);
    L.push('');
  }
  const p = r.proc_peers;
  if (p?.rows?.length) {
    const lp = p.loadavg_before_children ?? [];
    L.push(`Peers in separate processes (issue #20): relpos vs onnxruntime-web, each runtime and thread count in its own process, children alternating over ${p.rounds} rounds, medians across rounds (wall clock${lp.length ? `; 1-minute load average ${Math.min(...lp).toFixed(1)}–${Math.max(...lp).toFixed(1)} before the children` : ''}${foreign(p)}). The in-process table above shares two cores between ORT's spinning workers and relpos's pool; this one does not. Last columns: relpos now ÷ the committed latest.json (relpos ${p.baseline?.relpos_commit ?? '?'}; 1 thread: CPU-time medians of both, 2 threads: wall medians of both — the threads section's in-process rows):`, '');
    const med = (a) => { const s = a.filter((v) => Number.isFinite(v)).sort((u, v) => u - v); return s.length ? s[s.length >> 1] : null; };
    const r2 = med(p.rows.map((x) => x.relpos_2_cpu_ms / x.relpos_2_ms)), o2 = med(p.rows.map((x) => x.ort_2_cpu_ms / x.ort_2_ms));
    const rd = med(p.rows.map((x) => x.relpos_2_demand)), od = med(p.rows.map((x) => x.ort_2_demand));
    if (r2 != null && o2 != null)
      L.push(`CPU time ÷ wall time of the 2-thread children (median over the rows): relpos ${fmt(r2)}, onnxruntime-web ${fmt(o2)}` +
        (rd != null && od != null ? `; cores their threads wanted (on-CPU + runnable time ÷ wall, /proc/self/task/*/schedstat): relpos ${fmt(rd)}, onnxruntime-web ${fmt(od)}` : '') + '. ' +
        (rd != null && r2 < 1.3 && rd > 1.5 ? 'relpos\'s threads wanted two cores but the shared machine granted about one (Linux autogroup fair share between sessions: any 2-thread process of this session, two busy JS threads included, then gets ≈ 1.0, DEVELOPERS.md "Threads"), so its 2-thread rows here are not a scaling figure. ' : '') +
        (rd != null && r2 < 1.3 && rd < 1.3 ? 'relpos\'s threads did not even want two cores: its pool ran the work on about one thread. ' : '') +
        (rd == null && r2 < 1.3 ? 'This run predates the bench\'s scheduler-demand figures, so it cannot tell whether relpos\'s threads wanted two cores; a later diagnosis (DEVELOPERS.md "Threads") found that any busy thread of another login session caps every 2-thread process of this session at about one core (Linux autogroups), two busy JS threads included (it does not explain onnxruntime-web\'s higher ratio in this run) — so these 2-thread rows are not a scaling figure. ' : ''), '');
    const cw = (x, n) => (x[`${n}_cpu_ms`] && x[`${n}_ms`] ? fmt(x[`${n}_cpu_ms`] / x[`${n}_ms`]) : '–');
    L.push('| case | seq | 1 thread: relpos / ORT ms | ORT ÷ relpos | 2 threads: relpos / ORT ms | ORT ÷ relpos | relpos 1t ÷ 2t | ORT 1t ÷ 2t | ÷ latest.json 1t / 2t |' + (full ? ' 2 threads CPU ÷ wall: relpos / ORT |' : ''),
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |' + (full ? ' ---: |' : ''));
    for (const x of p.rows)
      L.push(`| ${x.model ?? `${x.scheme} attention`} | ${x.seq} | ${fmt(x.relpos_1_ms, 1)} / ${fmt(x.ort_1_ms, 1)} | ${fmt(x.ort_over_relpos_1)}× | ${fmt(x.relpos_2_ms, 1)} / ${fmt(x.ort_2_ms, 1)} | ${fmt(x.ort_over_relpos_2)}× | ${fmt(x.relpos_scaling)}× | ${fmt(x.ort_scaling)}× | ${x.vs_latest_1 != null ? `${fmt(x.vs_latest_1)} / ${fmt(x.vs_latest_2)}` : '–'} |` + (full ? ` ${cw(x, 'relpos_2')} / ${cw(x, 'ort_2')} |` : ''));
    L.push('');
  }
  const pr = r.profile;
  if (pr?.rows?.length) {
    L.push(`Per-call profile at batch 1 (issue #19; bench/lib/profile.mjs over a profiled copy of the package, cpp/src/profile/profile.h; ${pr.reps} calls averaged): total ms per call, the linear layers' GFLOP/s (2 · tokens · layers · (4H² + 2H·I) over the GEMM time) and the largest parts. JS ↔ heap copies + wrapper = the JS call's wall time minus the C++ parts; thread wake-ups = a parallel region's set-up, wake and join wait on the calling thread.`, '');
    const rows = full ? pr.rows : pr.rows.filter((x) => x.model === 'all-MiniLM-L6-v2' || x.seq === 16 || x.seq === 64);
    L.push('| model | threads | tokens | ms / call | GEMM GFLOP/s | largest parts: ms (share) |' + (full ? ' ' + PARTS.map((k) => PART_LABEL[k]).join(' | ') + ' | regions / call |' : ''),
      '| --- | ---: | ---: | ---: | ---: | --- |' + (full ? PARTS.map(() => ' ---: |').join('') + ' ---: |' : ''));
    const sum = [1, 2].map((t) => [t, pr.rows.filter((x) => x.threads === t)]).filter(([, x]) => x.length);
    for (const x of rows)
      L.push(`| ${x.model} | ${x.threads} | ${x.tokens} | ${fmt(x.total_ms, 3)} | ${fmt(x.gemm_gflops, 1)} | ${profileCell(x, 4)} |` + (full ? ' ' + PARTS.map((k) => fmt(x.parts_ms[k], 3)).join(' | ') + ` | ${x.threads > 1 ? x.regions_per_call : '–'} |` : ''));
    L.push('');
    L.push('Where the time goes at batch 1 × 8–64 tokens (share of one call, lowest–highest over the models and lengths profiled): ' +
      sum.map(([t, x]) => `**${t === 1 ? '1 thread' : '2 threads'}**: ${profileSummary(x)}`).join('. ') + '.' +
      (full ? '' : ' Each layer\'s own split (GEMMs / attention / norms / wake-ups per encoder layer) is in latest.json and latest.md.'), '');
  } else if (pr?.unavailable) L.push(`Per-call profile: not measured (${pr.unavailable.split('\n')[0]}).`, '');
  if (full && pr?.rows?.some((x) => x.layers_ms?.length > 1)) {
    L.push('Each encoder layer\'s split (ms per call inside layer i) for the multi-layer model:', '');
    L.push('| model | threads | tokens | layer | GEMMs | attention | norms + activations + residuals | thread wake-ups | other |', '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const x of pr.rows.filter((y) => y.layers_ms?.length > 1))
      x.layers_ms.forEach((l, i) => L.push(`| ${x.model} | ${x.threads} | ${x.tokens} | ${i} | ${fmt(l.gemm, 3)} | ${fmt(l.attention, 3)} | ${fmt(l.norms_activations, 3)} | ${fmt(l.thread_wakeups, 3)} | ${fmt(l.other, 3)} |`));
    L.push('');
  }
  const b = r.batching;
  if (b?.rows?.length) {
    L.push(`Embedding ${b.texts} texts of ${b.words} words with the real MiniLM (issue #20; mean pooling + L2 norm): one batch padded to the longest text (${b.padded_tokens.one_batch} token slots) against length-sorted batches of ${b.batch_size} each padded to its own longest (${b.padded_tokens.sorted} slots; ${b.tokens.total} real tokens). Same process, interleaved, wall clock, ${b.note}; tokenizing all texts alone takes ${fmt(b.tokenize_ms, 0)} ms; sorted and padded embeddings agree within ${b.max_abs_diff_sorted_vs_padded?.toExponential(0)}.`, '');
    L.push('| threads | one padded batch: ms (texts/s) | sorted batches: ms (texts/s) | speed-up |', '| ---: | ---: | ---: | ---: |');
    for (const x of b.rows) L.push(`| ${x.threads} | ${fmt(x.padded_ms, 0)} (${fmt(x.padded_texts_per_s, 1)}) | ${fmt(x.sorted_ms, 0)} (${fmt(x.sorted_texts_per_s, 1)}) | ${fmt(x.speedup)}× |`);
    L.push('');
  } else if (b?.unavailable) L.push(`Sorted batching: not measured (${b.unavailable.split('\n')[0]}).`, '');
  const fm = r.fill_mask;
  if (fm?.rows?.some((x) => x.every_over_at != null)) {
    L.push(`Fill-mask (issue #20): ${fm.model}, batch 1, one mask; \`model.forward(inputs, { logits: true, logitsAt })\` against \`{ logits: true }\` (vocabulary logits at every token) and the encoder alone, 1 thread, wall clock:`, '');
    L.push('| tokens | encoder only ms | logits at the mask ms | logits at every token ms | every token ÷ at the mask |', '| ---: | ---: | ---: | ---: | ---: |');
    for (const x of fm.rows.filter((y) => y.every_over_at != null))
      L.push(`| ${x.seq} | ${fmt(x.encoder_only_ms, 1)} | ${fmt(x.logits_at_mask_ms, 1)} | ${fmt(x.logits_every_token_ms, 1)} | ${fmt(x.every_over_at, 1)}× |`);
    L.push('');
  } else if (fm) L.push(`Fill-mask (logits at the mask only vs every token): not measured — ${fm.unavailable?.split('\n')[0] ?? [...new Set(fm.rows?.map((x) => x.error))].join('; ')}.`, '');
}

export const shortMarkdown = (r, L) => {
  if (r.short_seq || r.proc_peers || r.profile || r.batching || r.fill_mask) {
    L.push('## Short sequences, separate-process peers, per-call profile, batching, fill-mask (issues #19, #20)', '');
    tables(r, L, true);
  }
};
export const shortReadme = (r, L) => tables(r, L, false);
