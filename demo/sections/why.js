// Section 2 — why positions matter: a sentence with a repeated word ("I think therefore I am").
// Each word's embedding (seeded by the word) is its q, k and v; with no position scheme the two
// copies of the word get identical outputs, with every scheme they differ.
import { h, field, errorBox } from '../lib/dom.js';
import { rng, hashString } from '../lib/rng.js';
import { cosine, maxAbsDiff } from '../lib/vec.js';
import { SCHEMES, makeScheme, sameForAllHeads, available, NOT_IN_BUILD } from '../lib/schemes.js';
import { bars } from '../plots/bars.js';
import { heatmap } from '../plots/heatmap.js';

const HEAD_DIM = 16;
const HEADS = 2;

// Every scheme, plus ALiBi's original m·(j − i) without a causal mask: the −m·i part is the same for
// every key of a query row, so softmax removes it and both copies attend identically.
const VARIANTS = [
  ...SCHEMES.map((s) => (s.type === 'alibi' ? { ...s, label: 'ALiBi (symmetric −m|i − j|)', params: { symmetric: true } } : s)),
  { id: 'alibi-nonsymmetric', type: 'alibi', label: 'ALiBi m(j − i), no causal mask', params: { symmetric: false } },
];

export function embed(words, d = HEAD_DIM) {
  const x = new Float32Array(words.length * d);
  words.forEach((w, i) => x.set(rng(hashString(w)).normals(d, 0.5), i * d)); // std 0.5: q·k/√d stays O(1), so attention is not just "look at yourself"
  return x;
}

export function mount(root, { rp }) {
  const state = { results: [] };
  const text = field({ label: 'Sentence (words separated by spaces)', kind: 'text', value: 'I think therefore I am', name: 'why-text' });
  const pick = field({ label: 'Show the two output vectors for', kind: 'select', value: 'none', options: SCHEMES.map((s) => [s.type, s.label]), name: 'why-scheme' });
  const controls = h('div', { class: 'controls', role: 'group', 'aria-label': 'Sentence and scheme' }, text.root, pick.root);
  const out = h('div');
  root.append(controls, out);

  function run() {
    out.replaceChildren();
    const words = text.value.trim().split(/\s+/).filter(Boolean);
    let a = -1, b = -1;
    for (let i = 0; i < words.length && a < 0; i++)
      for (let j = i + 1; j < words.length; j++)
        if (words[j] === words[i]) {
          a = i;
          b = j;
          break;
        }
    if (a < 0) {
      out.append(errorBox('Type a sentence in which some word appears twice (e.g. “I think therefore I am”).'));
      return;
    }
    const seq = words.length;
    const x = embed(words);
    const q = sameForAllHeads(x, HEADS);
    const results = [];
    let shown = null;
    for (const s of VARIANTS) {
      if (!available(rp, s.type)) {
        results.push({ type: s.id ?? s.type, label: s.label, error: NOT_IN_BUILD, unavailable: true });
        continue;
      }
      try {
        const scheme = makeScheme(s.type, { heads: HEADS, headDim: HEAD_DIM, seqLen: seq }, s.params);
        const { output } = rp.attention({ q, k: q, v: q, batch: 1, heads: HEADS, seqLen: seq, headDim: HEAD_DIM, scheme });
        // both heads' outputs of each copy, concatenated
        const row = (i) => Float32Array.from({ length: HEADS * HEAD_DIM }, (_, t) => output[(Math.floor(t / HEAD_DIM) * seq + i) * HEAD_DIM + (t % HEAD_DIM)]);
        const oa = row(a), ob = row(b);
        const r = { type: s.id ?? s.type, label: s.label, cosine: cosine(oa, ob), maxDiff: maxAbsDiff(oa, ob), finite: oa.every(Number.isFinite) && ob.every(Number.isFinite) };
        results.push(r);
        if (s.type === pick.value) shown = { oa, ob, label: s.label };
      } catch (err) {
        results.push({ type: s.id ?? s.type, label: s.label, error: err.message });
      }
    }
    state.results = results;
    state.pair = [a, b];
    const word = words[a];
    out.append(h('p', {}, `Repeated word: “${word}” at positions ${a} and ${b} of ${seq}. Head dim ${HEAD_DIM}, ${HEADS} heads, identity projections.`));
    const tbody = h('tbody');
    for (const r of results)
      tbody.append(
        h('tr', { 'data-scheme': r.type },
          h('td', {}, r.label),
          r.error ? h('td', { colspan: 3, class: r.unavailable ? 'note' : 'error' }, r.error) : [
            h('td', {}, r.cosine.toFixed(6)),
            h('td', {}, r.maxDiff.toExponential(2)),
            h('td', {}, r.maxDiff === 0 ? 'identical' : r.maxDiff < 1e-6 ? 'identical (to float rounding)' : 'different'),
          ]),
      );
    const table = h('table', { class: 'why-table' },
      h('caption', { class: 'note' }, `Outputs of the two “${word}” tokens`),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Scheme'), h('th', { scope: 'col' }, 'cosine similarity'), h('th', { scope: 'col' }, 'max |difference|'), h('th', { scope: 'col' }, 'outputs'))),
      tbody);
    const ok = results.filter((r) => !r.error);
    const angle = (c) => (Math.acos(Math.min(1, Math.max(-1, c))) * 180) / Math.PI;
    const chart = bars({
      title: `Angle between the two “${word}” outputs (0° = indistinguishable)`,
      items: ok.map((r) => ({ label: r.label, value: angle(r.cosine), color: r.maxDiff < 1e-6 ? '#999' : '#0072B2' })),
      min: 0,
      max: Math.max(1, ...ok.map((r) => angle(r.cosine))),
      format: (v) => `${v.toFixed(2)}°`,
      width: Math.min(520, Math.max(300, root.clientWidth - 4)),
    });
    const figs = h('div', { class: 'figs' }, h('div', { class: 'scroll' }, table), chart);
    out.append(figs);
    out.append(h('p', { class: 'note' }, 'ALiBi’s original bias m·(j − i) was made for causal models: without a causal mask the −m·i part is a constant per query row, softmax removes it, and the two copies again attend identically. The symmetric form −m·|i − j| (or a causal mask) keeps the distance.'));
    if (shown) {
      const both = new Float32Array(2 * shown.oa.length);
      both.set(shown.oa, 0);
      both.set(shown.ob, shown.oa.length);
      out.append(heatmap({
        data: both, rows: 2, cols: shown.oa.length, title: `${shown.label}: outputs of the two “${word}” tokens (both heads)`,
        rowNames: [`${word} @${a}`, `${word} @${b}`], rowLabel: 'token', colLabel: 'output dimension', colormap: 'diverging',
        maxWidth: Math.min(560, Math.max(300, root.clientWidth - 4)), aspect: 2, annotate: false,
      }));
    }
  }
  let timer;
  text.input.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(run, 200);
  });
  pick.input.addEventListener('change', run);
  run();
  return state;
}
