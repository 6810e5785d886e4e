// Section 4 — run an encoder in the worker: tokens, per-layer/per-head attention maps, output
// norms and timings on the SIMD and scalar builds. Default model: random weights (honest label).
// A real Hugging Face folder loads through rp.loadModel when the package provides it.
import { h, field, errorBox } from '../lib/dom.js';
import { SCHEMES, available } from '../lib/schemes.js';
import { WorkerClient } from '../lib/worker-client.js';
import { heatmap } from '../plots/heatmap.js';
import { DEFAULT_CONFIG } from '../model/random-encoder.js';
import { mountLoadModel } from './load-model.js';

export function mount(root, { rp }) {
  const state = { last: null, runs: 0 };
  const workers = {};
  const worker = (build) => (workers[build] ??= new WorkerClient(build));

  const c = DEFAULT_CONFIG;
  root.append(h('p', { class: 'honest' },
    h('strong', {}, 'Random weights. '),
    `The default model is a ${c.layers}-layer, ${c.heads}-head encoder (d_model ${c.dModel}) whose weights and token embeddings are deterministic random numbers (seed ${c.seed}), built in JavaScript from rp.attention and a few matrix products. It shows the mechanics of each position scheme — where attention goes — not language understanding.`));

  const text = field({ label: 'Text', kind: 'text', value: 'The cat sat on the mat because it was tired.', name: 'enc-text' });
  const scheme = field({ label: 'Position scheme', kind: 'select', value: 'alibi', options: SCHEMES.filter((s) => available(rp, s.type)).map((s) => [s.type, s.label]), name: 'enc-scheme' });
  const layers = field({ label: 'Layers', value: 2, min: 1, max: 6, name: 'enc-layers' });
  const both = field({ label: 'Time the SIMD and the scalar build', kind: 'checkbox', value: true, name: 'enc-both' });
  const runBtn = h('button', { type: 'button' }, 'Run encoder');
  const controls = h('div', { class: 'controls', role: 'group', 'aria-label': 'Encoder input' }, text.root, scheme.root, layers.root, both.root, runBtn);
  const status = h('p', { role: 'status', 'aria-live': 'polite', class: 'note' });
  const out = h('div', { class: 'encoder-out' });
  root.append(controls, status, out);

  async function run() {
    runBtn.disabled = true;
    status.textContent = 'Running in the worker…';
    const builds = both.value ? ['simd', 'scalar'] : ['auto'];
    const payload = { text: text.value, scheme: scheme.value, layers: layers.value };
    try {
      const results = await Promise.all(builds.map((b) => worker(b).request('encode', payload)));
      state.last = results[0];
      state.runs++;
      status.textContent = `Done: ${results[0].tokens.length} tokens, ${results[0].layers.length} layers.`;
      show(results, builds);
    } catch (err) {
      status.textContent = '';
      out.replaceChildren(errorBox(`Encoder failed: ${err.message}`));
    } finally {
      runBtn.disabled = false;
    }
  }
  runBtn.addEventListener('click', run);

  function show(results, builds) {
    const r = results[0];
    const [S, D] = r.shape;
    const H = r.config.heads;
    const finite = r.hidden.every(Number.isFinite);
    out.replaceChildren();
    out.append(h('h3', {}, 'Tokens'), h('ul', { class: 'tokens', 'aria-label': 'tokens' }, r.tokens.map((t) => h('li', {}, t))));
    out.append(h('p', {}, `Output: [${S}, ${D}] hidden states, ${finite ? 'all finite' : 'NOT all finite'}.`));
    const times = h('table', {},
      h('caption', { class: 'note' }, 'Time for one forward pass (after one warm-up pass)'),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Build'), h('th', { scope: 'col' }, 'attention (ms)'), h('th', { scope: 'col' }, 'whole forward (ms)'))),
      h('tbody', {}, results.map((x, i) => h('tr', {},
        h('td', {}, x.standIn ? `JS stand-in (${builds[i]})` : x.simd ? 'WebAssembly SIMD128' : 'WebAssembly scalar'),
        h('td', {}, x.attentionMs.toFixed(2)), h('td', {}, x.totalMs.toFixed(2))))));
    out.append(h('div', { class: 'scroll' }, times));
    // output norms [layers × tokens]
    const L = r.layers.length;
    const norms = new Float32Array(L * S);
    r.layers.forEach((l, li) => norms.set(l.norms, li * S));
    const wide = Math.min(640, Math.max(300, root.clientWidth - 4));
    out.append(heatmap({ data: norms, rows: L, cols: S, title: '‖hidden state‖ after each layer', rowLabel: 'layer', colLabel: 'token', colNames: r.tokens, rowNames: r.layers.map((_, i) => `layer ${i}`), maxWidth: wide, aspect: 0.7, annotate: S <= 14 }));
    // attention maps: layer picker, one map per head
    const pick = field({ label: 'Layer to show', kind: 'select', value: 0, options: r.layers.map((_, i) => [i, `layer ${i}`]), name: 'enc-layer' });
    const maps = h('div', { class: 'figs' });
    const draw = () => {
      const li = Number(pick.value);
      const probs = r.layers[li].probs;
      const w = Math.max(260, Math.min(330, (root.clientWidth - 24) / 2));
      maps.replaceChildren(...Array.from({ length: H }, (_, hd) => heatmap({
        data: probs.slice(hd * S * S, (hd + 1) * S * S), rows: S, cols: S, title: `Layer ${li}, head ${hd}`,
        rowNames: r.tokens, colNames: r.tokens, colormap: 'viridis', vmin: 0, maxWidth: w, annotate: false,
      })));
    };
    pick.input.addEventListener('change', draw);
    out.append(h('h3', {}, 'Attention per head'), h('div', { class: 'controls' }, pick.root), maps);
    draw();
  }

  mountLoadModel(root, { rp, worker, text, state });

  run();
  state.run = run;
  return state;
}
