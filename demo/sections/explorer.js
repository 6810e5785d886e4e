// Section 1 — scheme explorer: the position structure of each scheme as labelled heatmaps, computed
// by the package's rp.positions.* functions (through lib/positions.js). With "Sliding window" on, one
// rp.attention({ window }) call on seeded random q, k, v (and tables) with the chosen scheme shows the
// band: probabilities outside |i − j| ≤ w are 0, and only the band's query·key pairs are computed.
import { h, field, errorBox } from '../lib/dom.js';
import * as P from '../lib/positions.js';
import { heatmap } from '../plots/heatmap.js';
import { lineplot } from '../plots/lineplot.js';

const SCHEMES = [
  ['shaw', 'Shaw et al. — clipped relative index'],
  ['bert-relative', 'BERT relative_key — relative index'],
  ['t5', 'T5 — relative position buckets'],
  ['deberta', 'DeBERTa — log-bucketed relative position'],
  ['alibi', 'ALiBi — linear biases per head'],
  ['rope', 'RoPE — q·k against distance'],
  ['sinusoidal', 'Sinusoidal — absolute position table'],
];

// Parameter controls per scheme: [key, field options]
const PARAMS = {
  shaw: [['seq', { label: 'Sequence length', value: 10, min: 2, max: 64 }], ['k', { label: 'Max distance k', value: 3, min: 1, max: 32 }]],
  'bert-relative': [['seq', { label: 'Sequence length', value: 12, min: 2, max: 64 }], ['M', { label: 'Max positions M', value: 16, min: 2, max: 512, help: 'needs M ≥ sequence length' }]],
  t5: [
    ['seq', { label: 'Sequence length', value: 48, min: 2, max: 128 }],
    ['buckets', { label: 'Buckets', value: 32, min: 2, max: 128 }],
    ['maxDistance', { label: 'Max distance', value: 128, min: 2, max: 1024 }],
    ['bidirectional', { label: 'Bidirectional', kind: 'checkbox', value: true }],
  ],
  deberta: [
    ['seq', { label: 'Sequence length', value: 48, min: 2, max: 128 }],
    ['buckets', { label: 'Position buckets', value: 16, min: 0, max: 512, help: '0 = no log bucketing' }],
    ['maxRelative', { label: 'Max relative positions', value: 64, min: 2, max: 1024 }],
  ],
  alibi: [
    ['seq', { label: 'Sequence length', value: 16, min: 2, max: 64 }],
    ['heads', { label: 'Heads', value: 8, min: 1, max: 16 }],
    ['rule', { label: 'Slopes', kind: 'select', value: 'bloom', options: [['bloom', 'BLOOM'], ['mpt', 'MPT']] }],
    ['symmetric', { label: 'Symmetric (−m·|i−j|)', kind: 'checkbox', value: false }],
  ],
  rope: [
    ['seq', { label: 'Max distance', value: 128, min: 4, max: 2048 }],
    ['dim', { label: 'Head dim', value: 64, min: 2, max: 256, step: 2 }],
    ['theta', { label: 'Theta', value: 10000, min: 1, max: 10000000 }],
    ['layout', { label: 'Layout', kind: 'select', value: 'half', options: [['half', 'half (LLaMA)'], ['interleaved', 'interleaved (RoFormer)']] }],
  ],
  sinusoidal: [
    ['seq', { label: 'Sequence length', value: 64, min: 2, max: 256 }],
    ['dim', { label: 'Dimension', value: 64, min: 2, max: 256, step: 2 }],
    ['layout', { label: 'Layout', kind: 'select', value: 'interleaved', options: [['interleaved', 'interleaved (Vaswani)'], ['concatenated', 'concatenated (tensor2tensor)']] }],
  ],
};

// Controls every scheme gets: the sliding window of rp.attention.
const WINDOW_PARAMS = [
  ['windowOn', { label: 'Sliding window', kind: 'checkbox', value: false }],
  ['window', { label: 'Window w (|i − j| ≤ w)', value: 3, min: 0, max: 64, help: 'ModernBERT local layers: w = 64' }],
];

// Seeded values in [−1, 1) (the same picture on every render).
function seeded(n, seed) {
  let s = seed >>> 0;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = (s >>> 8) / 2 ** 23 - 1;
  }
  return out;
}

// The rp.attention scheme object for the explorer's current values (random tables where one is needed).
function attentionScheme(type, v, headDim) {
  switch (type) {
    case 'shaw': return { type, maxDistance: v.k, keyTable: seeded((2 * v.k + 1) * headDim, 5) };
    case 'bert-relative': return { type, maxPositions: v.M, table: seeded((2 * v.M - 1) * headDim, 6) };
    case 't5': return { type, numBuckets: v.buckets, maxDistance: v.maxDistance, bidirectional: v.bidirectional, biasTable: seeded(v.buckets, 7) };
    case 'deberta': {
      const span = v.buckets > 0 ? v.buckets : v.maxRelative;
      return { type, buckets: v.buckets, maxRelative: v.maxRelative, posKey: seeded(2 * span * headDim, 8), posQuery: seeded(2 * span * headDim, 9) };
    }
    case 'alibi': return { type, slopes: v.rule, symmetric: v.symmetric };
    case 'rope': return { type, layout: v.layout, theta: v.theta };
    default: return { type, layout: v.layout };
  }
}

// Probabilities of one windowed attention call (one head) and how many query·key pairs its banded
// schedule computes (blocks of 64 queries, keys [max(0, i0 − w), min(n, i1 + w))).
function windowFigure(rp, type, v, W) {
  const n = Math.min(48, v.seq), headDim = 8, w = v.window;
  const q = seeded(n * headDim, 1), k = seeded(n * headDim, 2), val = seeded(n * headDim, 3);
  const { probs } = rp.attention({ q, k, v: val, batch: 1, heads: 1, seqLen: n, headDim, window: w, scheme: attentionScheme(type, v, headDim), returnProbs: true });
  let pairs = 0;
  for (let i0 = 0; i0 < n; i0 += 64) {
    const i1 = Math.min(n, i0 + 64);
    pairs += (i1 - i0) * (Math.min(n, i1 + w) - Math.max(0, i0 - w));
  }
  let inWindow = 0;
  for (let i = 0; i < n; i++) inWindow += Math.min(n, i + w + 1) - Math.max(0, i - w);
  return {
    probs,
    n,
    fig: heatmap({ data: probs, rows: n, cols: n, title: `rp.attention probabilities, window ${w} (${type}, random q, k, v)`, maxWidth: Math.min(W, 420), annotate: false }),
    summary: ` Window ${w}: ${inWindow} of ${n * n} (i, j) pairs inside |i − j| ≤ ${w}; the banded schedule computes ${pairs} (blocks of 64 queries × their key band), at 8192 tokens ${(((64 + 2 * w) / 8192) * 100).toFixed(1)} % of full attention's; probabilities outside are exactly 0.`,
  };
}

const width = (root) => Math.max(300, Math.min(520, (root.clientWidth || 520) - 4));

export function mount(root, { rp }) {
  const state = { last: null, window: null };
  const scheme = field({ label: 'Scheme', kind: 'select', value: 'shaw', options: SCHEMES, name: 'explorer-scheme' });
  const controls = h('div', { class: 'controls', role: 'group', 'aria-label': 'Scheme explorer parameters' });
  const out = h('div', { class: 'explorer-out' });
  root.append(controls, out);
  let fields = {};

  const build = () => {
    controls.replaceChildren(scheme.root);
    fields = {};
    for (const [key, opts] of [...PARAMS[scheme.value], ...WINDOW_PARAMS]) {
      const f = field({ ...opts, name: `explorer-${key}` });
      fields[key] = f;
      controls.append(f.root);
    }
    render();
  };

  let timer;
  controls.addEventListener('input', (e) => {
    if (e.target === scheme.input) return;
    clearTimeout(timer);
    timer = setTimeout(render, 120);
  });
  scheme.input.addEventListener('change', build);

  function render() {
    const v = Object.fromEntries(Object.entries(fields).map(([k, f]) => [k, f.value]));
    const W = width(root);
    out.replaceChildren();
    try {
      const figs = h('div', { class: 'figs' });
      let summary = '';
      switch (scheme.value) {
        case 'shaw': {
          const t = P.shawIndexTable(rp, v.seq, v.k);
          state.last = t;
          figs.append(heatmap({ ...t, title: `Shaw index clip(j − i, −${v.k}, ${v.k}) + ${v.k}`, annotate: true, maxWidth: W }));
          summary = `Row 0: [${Array.from(t.data.slice(0, t.cols)).join(', ')}]. Each pair (i, j) reads row clip(j − i, −k, k) + k of a [${2 * v.k + 1}, head_dim] table; pairs more than ${v.k} apart share the edge rows 0 and ${2 * v.k}.`;
          break;
        }
        case 'bert-relative': {
          if (v.M < v.seq) throw new RangeError(`max positions M (${v.M}) must be at least the sequence length (${v.seq})`);
          const t = P.bertRelativeIndexTable(rp, v.seq, v.M);
          state.last = t;
          figs.append(heatmap({ ...t, title: `BERT relative index i − j + M − 1 (M = ${v.M})`, annotate: true, maxWidth: W }));
          summary = `Row 0: [${Array.from(t.data.slice(0, t.cols)).join(', ')}]. A [${2 * v.M - 1}, head_dim] table, one row per signed distance, no clipping (seq ≤ M).`;
          break;
        }
        case 't5': {
          const t = P.t5BucketTable(rp, v.seq, v.bidirectional, v.buckets, v.maxDistance);
          state.last = t;
          figs.append(heatmap({ ...t, title: `T5 bucket of j − i (${v.buckets} buckets, max distance ${v.maxDistance}${v.bidirectional ? ', bidirectional' : ', causal'})`, maxWidth: W }));
          summary = `Exact buckets for small distances, logarithmic beyond; each bucket holds one learned scalar bias per head. MPNet: these buckets (always 32, max distance 128, bidirectional), added after q·k is scaled by 1/√d, one table shared by every layer.`;
          break;
        }
        case 'deberta': {
          const t = P.debertaRelativeTable(rp, v.seq, v.buckets, v.maxRelative);
          state.last = t;
          figs.append(heatmap({ ...t, title: `DeBERTa relative position r(i, j) = bucket(i − j)`, colormap: 'diverging', maxWidth: W }));
          summary = `Span ${P.debertaSpan(rp, v.buckets, v.maxRelative)}: c2p reads row clamp(r + span, 0, 2·span − 1) of the projected position keys.`;
          break;
        }
        case 'alibi': {
          const { slopes, maps } = P.alibiBiases(rp, v.seq, v.heads, v.rule, v.symmetric);
          state.last = { slopes, maps };
          const small = Math.max(150, Math.min(240, W / 2 - 8));
          let big = 0; // one colour scale for all heads, so the slopes can be compared
          for (const m of maps) for (const x of m.data) big = Math.max(big, Math.abs(x));
          maps.forEach((m, hd) => figs.append(heatmap({ ...m, title: `Head ${hd}: slope ${slopes[hd].toPrecision(3)}`, colormap: 'diverging', vmin: -big, vmax: big, maxWidth: small, annotate: false })));
          summary = `Slopes (${v.rule}): [${Array.from(slopes, (s) => s.toPrecision(3)).join(', ')}]. Bias = ${v.symmetric ? '−m·|i − j|' : 'm·(j − i)'}, added to q·k/√d.`;
          break;
        }
        case 'rope': {
          const t = P.ropeTables(rp, v.seq + 1, v.dim, v.layout, v.theta);
          // q = k = all-ones: q_rot(m)·k_rot(n) = Σ_c cos[m,c]cos[n,c] + sin[m,c]sin[n,c] = Σ_c cos((m − n)ω_c)
          const xs = [], ys = [];
          for (let d = 0; d <= v.seq; d++) {
            let s = 0;
            for (let c = 0; c < v.dim; c++) s += t.cos[d * v.dim + c] * t.cos[c] + t.sin[d * v.dim + c] * t.sin[c];
            xs.push(d);
            ys.push(s);
          }
          state.last = { xs, ys };
          figs.append(lineplot({ title: `RoPE: q·k for q = k = 1 (head dim ${v.dim}, θ = ${v.theta})`, xLabel: 'distance m − n', yLabel: 'q·k', series: [{ name: 'q·k', xs, ys }], width: Math.max(320, W), yZero: false }));
          const n = Math.min(32, v.seq);
          const qk = new Float32Array(n * n);
          for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) qk[i * n + j] = ys[Math.abs(i - j)];
          figs.append(heatmap({ data: qk, rows: n, cols: n, title: `q·k(i, j), first ${n} positions`, colormap: 'diverging', maxWidth: Math.min(W, 360) }));
          summary = `Rotating q and k by angles proportional to position makes q·k depend only on m − n; it decays (with ripples) as the distance grows.`;
          break;
        }
        case 'sinusoidal': {
          const t = P.sinusoidTable(rp, v.seq, v.dim, v.layout);
          state.last = t;
          figs.append(heatmap({ ...t, title: `Sinusoid table PE[position, dim] (${v.layout})`, rowLabel: 'position', colLabel: 'dimension', colormap: 'diverging', maxWidth: Math.max(W, 360), aspect: 0.6 }));
          summary = `Low dimensions oscillate fast, high dimensions slowly (ω_i = 10000^(−2i/d)).`;
          break;
        }
      }
      if (v.windowOn) {
        const wf = windowFigure(rp, scheme.value, v, W);
        state.window = { probs: wf.probs, n: wf.n, window: v.window };
        figs.append(wf.fig);
        summary += wf.summary;
      }
      out.append(h('p', { class: 'summary', 'aria-live': 'polite' }, summary), figs);
    } catch (err) {
      state.last = null;
      out.append(errorBox(err.message));
    }
  }
  build();
  return state;
}
