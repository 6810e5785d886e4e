// Part of section 4 — load a real Hugging Face model through rp.loadModel in the worker and run it
// on the encoder section's text: a Hub id (with host and revision), a URL or picked files; a row of
// progress per file (bytes, and whether it came from the browser cache), then the view of the pipeline
// its task head supports (task-views.js: entities, answer span, fill-mask top-k, labels) and its raw
// forward pass (tokens and attention maps).
import { h, field, errorBox } from '../lib/dom.js';
import { taskView } from './task-views.js';
import { heatmap } from '../plots/heatmap.js';
import { describeTiming } from '../lib/timing.js';

const REQUIRED = ['config.json', 'model.safetensors', 'tokenizer.json'];
// A SentencePiece model stands in for tokenizer.json (DeBERTa-v2/v3, T5).
const TOKENIZER_FILES = ['tokenizer.json', 'spm.model', 'spiece.model'];

/** Mounts the "Load a real Hugging Face model" panel into root; `worker(build)` gives a WorkerClient. */
export function mountLoadModel(root, { rp, worker, text, state }) {
  const hasLoad = typeof rp.loadModel === 'function';
  const url = field({ label: 'Model folder URL', kind: 'url', value: '', name: 'enc-url', help: 'A folder (same origin or CORS-enabled) holding config.json, model.safetensors and tokenizer.json' });
  const hubId = field({ label: 'Hugging Face Hub id', kind: 'text', value: '', name: 'enc-hub-id', help: "owner/name, e.g. 'microsoft/deberta-v3-xsmall', 'sentence-transformers/all-mpnet-base-v2', 'answerdotai/ModernBERT-base', 'nomic-ai/nomic-embed-text-v1.5', 'google/embeddinggemma-300m', 'Qwen/Qwen3-Embedding-0.6B', 'Qwen/Qwen3-Reranker-0.6B'" });
  const hubHost = field({ label: 'Hub host', kind: 'text', value: 'https://huggingface.co', name: 'enc-hub-host', help: 'huggingface.co, a mirror or a self-hosted copy (CORS-enabled)' });
  const hubRev = field({ label: 'Revision', kind: 'text', value: 'main', name: 'enc-hub-rev', help: 'branch, tag or commit' });
  const loadHub = h('button', { type: 'button', class: 'secondary' }, 'Load from the Hub');
  const fileRows = h('tbody');
  const fileTable = h('table', { class: 'load-files', hidden: true, 'aria-label': 'Files loaded' },
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'File'), h('th', { scope: 'col' }, 'Bytes'), h('th', { scope: 'col' }, 'From'))), fileRows);
  const files = h('input', { type: 'file', id: 'enc-files', multiple: true, 'aria-describedby': 'enc-files-help' });
  const loadUrl = h('button', { type: 'button', class: 'secondary' }, 'Load from URL');
  const loadFiles = h('button', { type: 'button', class: 'secondary' }, 'Load selected files');
  const prog = h('progress', { max: 1, value: 0, 'aria-label': 'Model loading progress', hidden: true });
  const loadMsg = h('p', { role: 'status', 'aria-live': 'polite' });
  const real = h('details', { class: 'real-model' },
    h('summary', {}, 'Load a real Hugging Face model'),
    h('p', { class: 'note' }, hasLoad
      ? 'Give a Hugging Face Hub id, pick the files of a model folder, or give its URL. The model runs in the worker through rp.loadModel; files downloaded from the Hub stay in the browser cache for the next load. A checkpoint with a task head (token classification, question answering, fill-mask, text classification) gets the view of its pipeline. Families: BERT, DistilBERT, RoFormer, DeBERTa-v2/v3, T5 encoders, MPNet, ModernBERT (up to 8192 tokens, sliding-window layers), NomicBERT; the embedders built on decoders, EmbeddingGemma (Gemma3 text, bidirectional) and Qwen3-Embedding / Qwen3-Reranker (a reranker checkpoint scores query–document pairs); and the decoder stacks BLOOM, MPT, LLaMA, Transformer-XL.'
      : 'This build of relpos has no rp.loadModel() yet (the model layer is still being built), so real models cannot be loaded here; the controls report what is missing.'),
    h('div', { class: 'controls' }, hubId.root, hubHost.root, hubRev.root, loadHub),
    h('div', { class: 'controls' }, url.root, loadUrl),
    h('div', { class: 'controls' }, h('div', { class: 'field' }, h('label', { for: 'enc-files' }, 'Local files'), files, h('small', { id: 'enc-files-help' }, `${REQUIRED.join(', ')} (or spm.model), and tokenizer_config.json when the folder has one`)), loadFiles),
    prog, loadMsg, fileTable);
  const taskArea = h('div', { class: 'task-area' });
  const runReal = h('button', { type: 'button', hidden: true }, 'Run the loaded model on the text above');
  const realOut = h('div');
  real.append(taskArea, runReal, realOut);
  root.append(real);
  runReal.addEventListener('click', async () => {
    runReal.disabled = true;
    try {
      const r = await worker('auto').request('model-forward', { text: text.value });
      const shape = r.shape ?? (r.hidden ? [r.hidden.length] : []);
      const finite = r.hidden ? Array.from(r.hidden).every(Number.isFinite) : false;
      const d = describeTiming(r.timing);
      realOut.replaceChildren(h('p', { class: 'model-timing' }, `Output ${JSON.stringify(shape)}, ${finite ? 'all finite' : 'NOT all finite'}. model.forward: median `,
        h('span', { class: 'median' }, d.median), ' ms (', h('span', { class: 'range' }, d.range), ' ms, ', h('span', { class: 'runs' }, d.runs),
        `) on the ${r.simd ? 'SIMD128' : 'scalar'} build, ${r.threads} thread${r.threads > 1 ? 's' : ''}.`));
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

  const rows = new Map();
  const fmt = (n) => (n === null || n === undefined ? '?' : n.toLocaleString('en'));
  const onProgress = (p) => {
    prog.hidden = false;
    const frac = typeof p === 'number' ? p : p && p.total ? p.loaded / p.total : null;
    if (frac === null) prog.removeAttribute('value');
    else prog.value = frac;
    loadMsg.textContent = p?.file ? `Loading ${p.file}…` : 'Loading…';
    if (!p?.file) return;
    let row = rows.get(p.file);
    if (!row) {
      row = { bytes: h('td'), from: h('td') };
      rows.set(p.file, row);
      fileRows.append(h('tr', { 'data-file': p.file }, h('th', { scope: 'row' }, p.file), row.bytes, row.from));
      fileTable.hidden = false;
    }
    row.bytes.textContent = `${fmt(p.loaded)} / ${fmt(p.total)}`;
    row.from.textContent = p.cached ? 'browser cache' : 'network';
    row.cached = !!p.cached;
  };
  async function load(source) {
    loadMsg.className = '';
    loadMsg.textContent = 'Loading…';
    prog.hidden = true;
    rows.clear();
    fileRows.replaceChildren();
    fileTable.hidden = true;
    taskArea.replaceChildren();
    realOut.replaceChildren();
    state.task = null;
    try {
      const info = await worker('auto').request('load-model', { source }, onProgress);
      prog.value = 1;
      loadMsg.className = 'ok';
      const cached = [...rows.values()].filter((r) => r.cached).length;
      const from = cached === 0 ? '' : cached === rows.size ? ' All files came from the browser cache.' : ` ${cached} of ${rows.size} files came from the browser cache.`;
      loadMsg.textContent = `Loaded ${info.modelType}: ${info.layers ?? '?'} layers, ${info.heads ?? '?'} heads, hidden ${info.hidden ?? '?'}.${from}`;
      state.realModel = info;
      taskArea.replaceChildren(taskView(info.head, { request: (cmd, payload) => worker('auto').request(cmd, payload), state }));
      runReal.hidden = false;
    } catch (err) {
      prog.hidden = true;
      loadMsg.className = 'error';
      loadMsg.textContent = err.message;
    }
  }
  loadHub.addEventListener('click', () => {
    const id = hubId.value.trim();
    if (!id) {
      loadMsg.className = 'error';
      loadMsg.textContent = "Enter a Hub id such as 'microsoft/deberta-v3-xsmall' first.";
      return;
    }
    load({ hub: { id, host: hubHost.value.trim(), revision: hubRev.value.trim() } });
  });
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
    const missing = REQUIRED.filter((n) => !chosen[n] && !(n === 'tokenizer.json' && TOKENIZER_FILES.some((t) => chosen[t])));
    if (missing.length) {
      loadMsg.className = 'error';
      loadMsg.textContent = `Missing ${missing.join(', ')} — select all of ${REQUIRED.join(', ')} from the model folder.`;
      return;
    }
    // every picked file: loadModel reads what it needs (tokenizer_config.json, special_tokens_map.json, …)
    load({ files: chosen });
  });

}
