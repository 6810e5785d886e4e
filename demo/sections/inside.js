// Section 3 — inside the logits: rp.attention(..., returnTerms, returnProbs) for one head, each
// term as a heatmap, their sum (the logits) and the package's softmax, checked against a softmax
// of the sum computed here.
import { h, field, errorBox } from '../lib/dom.js';
import { rng } from '../lib/rng.js';
import { softmaxRows, maxAbsDiff } from '../lib/vec.js';
import { makeScheme, schemeLabel, available, NOT_IN_BUILD } from '../lib/schemes.js';
import { heatmap } from '../plots/heatmap.js';

const TERM_NAMES = {
  content: 'content → content (q·k)',
  c2p: 'content → position (c2p)',
  p2c: 'position → content (p2c)',
  bias: 'relative position bias',
  position: 'content → position (q·W_R R)',
  content_bias: 'global content bias (u·k)',
  position_bias: 'global position bias (v·W_R R)',
};
const CHOICES = ['deberta', 'transformer-xl', 't5', 'shaw', 'bert-relative', 'huang', 'alibi'];

export function mount(root, { rp }) {
  const state = {};
  const have = CHOICES.filter((c) => available(rp, c));
  const missing = CHOICES.filter((c) => !available(rp, c));
  const scheme = field({ label: 'Scheme', kind: 'select', value: have[0], options: have.map((c) => [c, schemeLabel(c)]), name: 'inside-scheme' });
  const seq = field({ label: 'Sequence length', value: 12, min: 2, max: 48, name: 'inside-seq' });
  const head = field({ label: 'Head', kind: 'select', value: 0, options: [[0, 'head 0'], [1, 'head 1']], name: 'inside-head' });
  const seed = field({ label: 'Seed', value: 1, min: 0, max: 1e6, name: 'inside-seed' });
  const controls = h('div', { class: 'controls', role: 'group', 'aria-label': 'Decomposition parameters' }, scheme.root, seq.root, head.root, seed.root);
  const out = h('div');
  if (missing.length) root.append(h('p', { class: 'note' }, `${missing.map(schemeLabel).join(', ')}: ${NOT_IN_BUILD}.`));
  root.append(controls, out);

  function run() {
    out.replaceChildren();
    if (!have.length) return out.append(errorBox('No scheme with separate logit terms is in this build of relpos yet.'));
    const heads = 2, d = 16, S = seq.value, H = Number(head.value);
    const r = rng(1000 + seed.value);
    const n = heads * S * d;
    const q = r.normals(n), k = r.normals(n), v = r.normals(n);
    try {
      const sch = makeScheme(scheme.value, { heads, headDim: d, seqLen: S }, scheme.value === 'deberta' ? { buckets: 8, maxRelative: 32 } : {}, seed.value);
      const res = rp.attention({ q, k, v, batch: 1, heads, seqLen: S, headDim: d, scheme: sch, returnProbs: true, returnTerms: true });
      if (!res.terms) throw new Error('this build of relpos returned no terms (returnTerms is not implemented yet)');
      const slice = (a) => a.slice(H * S * S, (H + 1) * S * S);
      const names = Object.keys(res.terms);
      const sum = new Float32Array(S * S);
      const W = Math.max(220, Math.min(300, (root.clientWidth - 24) / 3));
      const figs = h('div', { class: 'figs' });
      for (const t of names) {
        const m = slice(res.terms[t]);
        for (let i = 0; i < m.length; i++) sum[i] += m[i];
        figs.append(heatmap({ data: m, rows: S, cols: S, title: TERM_NAMES[t] ?? t, colormap: 'diverging', maxWidth: W, annotate: false }));
      }
      figs.append(heatmap({ data: sum, rows: S, cols: S, title: `logits = ${names.join(' + ')}`, colormap: 'diverging', maxWidth: W, annotate: false }));
      const probs = slice(res.probs);
      figs.append(heatmap({ data: probs, rows: S, cols: S, title: 'attention = softmax(logits) (from the package)', colormap: 'viridis', vmin: 0, maxWidth: W, annotate: false }));
      const err = maxAbsDiff(softmaxRows(sum, S, S), probs);
      Object.assign(state, { terms: names, softmaxError: err });
      out.append(
        h('p', {}, `${schemeLabel(scheme.value)}, head ${H}: ${names.length} terms (${names.join(', ')}). `,
          h('span', { class: err < 1e-4 ? 'ok' : 'error' }, `max |softmax(sum of terms) − probs| = ${err.toExponential(2)}`),
          err < 1e-4 ? ' — the terms add up to what the kernel used.' : ' — the terms do not add up to the logits!'),
        figs,
      );
    } catch (e) {
      state.error = e.message;
      out.append(errorBox(e.message));
    }
  }
  let timer;
  controls.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(run, 200);
  });
  run();
  return state;
}
