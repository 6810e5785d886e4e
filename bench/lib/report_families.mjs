// Targets, latest.md and docs/performance.md tables of the `families` section (lib/families.mjs, issue #26).
const fmt = (x, d = 2) => (x === null || x === undefined || Number.isNaN(x) ? '–' : typeof x === 'number' ? x.toFixed(d) : String(x));
const MiB = 2 ** 20;

export function familiesTargets(r, add) {
  const f = r.families;
  if (!f) return;
  add('ModernBERT local layer ÷ global layer at 8192 tokens ≤ 0.3 (FLOP ratio ~0.27)', f.local_over_global_8192 != null ? f.local_over_global_8192 <= 0.3 : null,
    f.local_over_global_8192 != null ? `${fmt(f.local_over_global_8192, 3)}` : '');
  const docs = f.long_document ?? [];
  add('one 8192-token document through ModernBERT-base (22 layers) runs in the browser heap (≤ 2 GB), fp32 and q8',
    docs.length ? docs.every((x) => x.document_ms != null && x.peak_heap_bytes <= 2 ** 31) : null,
    docs.map((x) => `${x.dtype} ${x.threads}t ${x.document_ms != null ? fmt(x.document_ms / 1000, 1) + ' s, ' + fmt(x.peak_heap_bytes / MiB, 0) + ' MiB' : 'error: ' + x.error}`).join('; '));
}

export function familiesMarkdown(r, L) {
  const f = r.families;
  if (!f) return;
  L.push('## MPNet, ModernBERT, NomicBERT (`families`: lib/families.mjs)', '');
  L.push('Released shapes with random weights (lib/family_models.mjs), batch 1, fp32, 1 thread, process CPU time, each measurement in a fresh process. ' +
    'One layer = T(2 layers) − T(1 layer), medians. ModernBERT local layers attend to |i − j| ≤ 64 (local_attention 128) with the banded schedule.', '');
  const seqs = [...new Set(f.per_layer.map((x) => x.seq))];
  L.push('| layer | ' + seqs.map((s) => `${s} tokens ms`).join(' | ') + ' |', '| --- | ' + seqs.map(() => '---:').join(' | ') + ' |');
  for (const key of [...new Set(f.per_layer.map((x) => `${x.family}|${x.kind}`))]) {
    const [family, kind] = key.split('|');
    L.push(`| ${family}${kind === 'layer' ? '' : ' ' + kind} | ` + seqs.map((s) => {
      const x = f.per_layer.find((y) => y.family === family && y.kind === kind && y.seq === s);
      return x?.layer_ms != null ? fmt(x.layer_ms, x.layer_ms < 100 ? 2 : 0) : x?.error ? 'error' : '–';
    }).join(' | ') + ' |');
  }
  L.push('');
  if (f.local_over_global_8192 != null) L.push(`ModernBERT local ÷ global layer at 8192 tokens: **${fmt(f.local_over_global_8192, 3)}** (target ≤ 0.3).`, '');
  if (f.long_document?.length) {
    L.push('One 8192-token document, ModernBERT-base shape (22 layers, hidden 768, 12 heads, GeGLU 1152, window 128), wall clock:', '');
    L.push('| weights | threads | seconds per document | load s | heap after load MiB | peak heap MiB |', '| --- | ---: | ---: | ---: | ---: | ---: |');
    for (const x of f.long_document)
      L.push(x.error ? `| ${x.dtype} | ${x.threads} | error: ${x.error} | | | |`
        : `| ${x.dtype} | ${x.threads_run ?? x.threads}${x.threads_reason ? ' (' + x.threads_reason + ')' : ''} | ${fmt(x.document_ms / 1000, 1)} | ${fmt(x.load_ms / 1000, 1)} | ${fmt(x.heap_after_load_bytes / MiB, 0)} | ${fmt(x.peak_heap_bytes / MiB, 0)} |`);
    L.push('');
  }
  for (const n of f.notes ?? []) L.push(`- ${n}`);
  L.push('');
}
