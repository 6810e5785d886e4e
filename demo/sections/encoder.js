// Section 4 — run an encoder in the worker: tokens, per-layer/per-head attention maps, output
// norms and timings on the SIMD and scalar builds. Default model: random weights (honest label).
// A real Hugging Face folder loads through rp.loadModel when the package provides it.
import { h, field, errorBox } from '../lib/dom.js';
import { SCHEMES, available } from '../lib/schemes.js';
import { WorkerClient } from '../lib/worker-client.js';
import { heatmap } from '../plots/heatmap.js';
import { DEFAULT_CONFIG } from '../model/random-encoder.js';

const REQUIRED = ['config.json', 'model.safetensors', 'tokenizer.json'];

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

  // ---- real model through rp.loadModel
  const hasLoad = typeof rp.loadModel === 'function';
  const url = field({ label: 'Model folder URL', kind: 'url', value: '', name: 'enc-url', help: 'A folder (same origin or CORS-enabled) holding config.json, model.safetensors and tokenizer.json' });
  const files = h('input', { type: 'file', id: 'enc-files', multiple: true, 'aria-describedby': 'enc-files-help' });
  const loadUrl = h('button', { type: 'button', class: 'secondary' }, 'Load from URL');
  const loadFiles = h('button', { type: 'button', class: 'secondary' }, 'Load selected files');
  const prog = h('progress', { max: 1, value: 0, 'aria-label': 'Model loading progress', hidden: true });
  const loadMsg = h('p', { role: 'status', 'aria-live': 'polite' });
  const real = h('details', { class: 'real-model' },
    h('summary', {}, 'Load a real Hugging Face model'),
    h('p', { class: 'note' }, hasLoad
      ? 'Pick the three files of a model folder, or give its URL. The model runs in the worker through rp.loadModel.'
      : 'This build of relpos has no rp.loadModel() yet (the model layer is still being built), so real models cannot be loaded here; the controls report what is missing.'),
    h('div', { class: 'controls' }, url.root, loadUrl),
    h('div', { class: 'controls' }, h('div', { class: 'field' }, h('label', { for: 'enc-files' }, 'Local files'), files, h('small', { id: 'enc-files-help' }, REQUIRED.join(', '))), loadFiles),
    prog, loadMsg);
  const runReal = h('button', { type: 'button', hidden: true }, 'Run the loaded model on the text above');
  const realOut = h('div');
  real.append(runReal, realOut);
  root.append(real);
  runReal.addEventListener('click', async () => {
    runReal.disabled = true;
    try {
      const r = await worker('auto').request('model-forward', { text: text.value });
      const shape = r.shape ?? (r.hidden ? [r.hidden.length] : []);
      const finite = r.hidden ? Array.from(r.hidden).every(Number.isFinite) : false;
      realOut.replaceChildren(h('p', {}, `Output ${JSON.stringify(shape)}, ${finite ? 'all finite' : 'NOT all finite'}, ${r.totalMs.toFixed(1)} ms on the ${r.simd ? 'SIMD128' : 'scalar'} build.`));
      if (r.tokens) realOut.append(h('ul', { class: 'tokens', 'aria-label': 'model tokens' }, r.tokens.map((t) => h('li', {}, t))));
      const first = Array.isArray(r.attentions) ? r.attentions[0] : null;
      const S = r.tokens?.length ?? 0;
      if (first && S && first.length % (S * S) === 0)
        realOut.append(h('div', { class: 'figs' }, Array.from({ length: Math.min(4, first.length / (S * S)) }, (_, hd) => heatmap({
          data: first.slice(hd * S * S, (hd + 1) * S * S), rows: S, cols: S, title: `Layer 0, head ${hd}`, rowNames: r.tokens, colNames: r.tokens, vmin: 0, maxWidth: 300, annotate: false,
        }))));
    } catch (err) {
      realOut.replaceChildren(errorBox(err.message));
    } finally {
      runReal.disabled = false;
    }
  });

  const onProgress = (p) => {
    prog.hidden = false;
    const frac = typeof p === 'number' ? p : p && p.total ? p.loaded / p.total : null;
    if (frac === null) prog.removeAttribute('value');
    else prog.value = frac;
    loadMsg.textContent = p?.file ? `Loading ${p.file}…` : 'Loading…';
  };
  async function load(source) {
    loadMsg.className = '';
    prog.hidden = true;
    try {
      const info = await worker('auto').request('load-model', { source }, onProgress);
      prog.value = 1;
      loadMsg.className = 'ok';
      loadMsg.textContent = `Loaded ${info.modelType}: ${info.layers ?? '?'} layers, ${info.heads ?? '?'} heads, hidden ${info.hidden ?? '?'}.`;
      state.realModel = info;
      runReal.hidden = false;
    } catch (err) {
      prog.hidden = true;
      loadMsg.className = 'error';
      loadMsg.textContent = err.message;
    }
  }
  loadUrl.addEventListener('click', () => {
    const u = url.value.trim();
    if (!u) {
      loadMsg.className = 'error';
      loadMsg.textContent = 'Enter the URL of a model folder first.';
      return;
    }
    load({ url: u });
  });
  loadFiles.addEventListener('click', () => {
    const chosen = Object.fromEntries(Array.from(files.files ?? [], (f) => [f.name, f]));
    const missing = REQUIRED.filter((n) => !chosen[n]);
    if (missing.length) {
      loadMsg.className = 'error';
      loadMsg.textContent = `Missing ${missing.join(', ')} — select all of ${REQUIRED.join(', ')} from the model folder.`;
      return;
    }
    load({ files: Object.fromEntries(REQUIRED.map((n) => [n, chosen[n]])) });
  });

  run();
  state.run = run;
  return state;
}
