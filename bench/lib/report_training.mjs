// Issue #18: the training section of latest.md and of docs/performance.md
// (bench/lib/training.mjs measures it; report.mjs and readme.mjs call these).
const fmt = (x, d = 2) => (x == null || Number.isNaN(x) ? '–' : x.toFixed(d));

function tables(r, L) {
  const t = r.training;
  if (!t) return;
  if (!t.rows?.length) {
    L.push(`Training throughput (issue #18): not measured (${t.unavailable?.split('\n')[0] ?? 'no rows'}).`, '');
    return;
  }
  const s = t.settings;
  L.push(`Training (issue #18, \`lab.train\`, the lab module's SIMD build in one worker, one thread, Node): the demo's defaults — ${s.task} (k = ${s.k}), L = ${s.trainLength}, batch ${s.batch}, d ${s.model.dim}, ${s.model.layers} layers, ${s.model.heads} heads, ${s.steps} steps. ` +
    'Tokens/s counts forward + backward + AdamW over steps × batch × L; GFLOP/s counts 3 × the forward multiply–add FLOPs per step; "forward" is the same model\'s forward pass alone (`run.evaluate` at L), and training ÷ forward is the fraction the issue targets (≥ 0.5).', '');
  L.push('| scheme | training s | tokens/s | training GFLOP/s | forward GFLOP/s | training ÷ forward |' + (t.browser?.rows ? ' Chromium training s |' : ''),
    '| --- | ---: | ---: | ---: | ---: | ---: |' + (t.browser?.rows ? ' ---: |' : ''));
  for (const x of t.rows) {
    const b = t.browser?.rows?.find((y) => y.scheme === x.scheme);
    L.push(`| ${x.scheme} | ${fmt(x.train_s, 1)} | ${x.tokens_per_s} | ${fmt(x.train_gflops, 1)} | ${fmt(x.forward_gflops, 1)} | ${fmt(x.train_over_forward)} |` + (t.browser?.rows ? ` ${fmt(b?.train_s, 1)} |` : ''));
  }
  L.push('');
  const b = t.browser;
  if (b?.rows) L.push(`In ${b.chromium} (headless, ${b.cores} cores reported), the demo's default run — every scheme one after the other, one worker — took ${fmt(b.wall_s, 0)} s in all; the slowest scheme trained in ${fmt(b.max_train_s, 1)} s (budget: 60 s per scheme).`, '');
  else if (b?.unavailable) L.push(`Chromium: not measured (${b.unavailable.split('\n')[0]}).`, '');
}

export const trainingMarkdown = (r, L) => {
  if (r.training) {
    L.push('## Training throughput (issue #18)', '');
    tables(r, L);
  }
};
export const trainingReadme = (r, L) => tables(r, L);

export function trainingTargets(r, add) {
  const t = r.training;
  if (!t) return;
  const rows = t.rows ?? [];
  const worst = [...rows].sort((a, b) => a.train_over_forward - b.train_over_forward)[0];
  add('training GFLOP/s ≥ 0.5 × forward GFLOP/s, every scheme (lab module, 1 thread)', rows.length ? rows.every((x) => x.train_over_forward >= 0.5) : null,
    rows.length ? `worst ${worst.scheme} ${fmt(worst.train_over_forward)}; ` + rows.map((x) => `${x.scheme} ${fmt(x.train_over_forward)}`).join(', ') : t.unavailable?.split('\n')[0] ?? '');
  const b = t.browser;
  if (b) add('the demo\'s default run: every scheme trains within 60 s on one thread in Chromium', b.rows ? b.max_train_s <= 60 : null,
    b.rows ? `slowest ${fmt(b.max_train_s, 1)} s; ` + b.rows.map((x) => `${x.scheme} ${fmt(x.train_s, 1)}`).join(', ') : b.unavailable?.split('\n')[0] ?? '');
}
