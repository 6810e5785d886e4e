// Section 4 — run an encoder in the worker: tokens, per-layer/per-head attention maps, output norms
// and timings (median of repeated runs, min–max, run count) per build.
// A scheme with a Hugging Face model family runs that family's random-weight checkpoint through
// rp.loadModel + model.forward (the C++ model layer); other schemes run an encoder assembled in
// JavaScript from rp.attention (demo/model/run-encoder.js). Random weights, labelled as such.
// A real Hugging Face folder loads in the panel below (load-model.js).
// "Compare fp32 and q8" loads the same checkpoint twice (rp.loadModel dtype 'fp32' and 'q8') and shows,
// per build, both forward times, the weight bytes each holds (model.info.weightBytes) and the cosine of
// the q8 and fp32 mean-pooled last hidden states (lib/pooled-cosine.js).
import { h, field, errorBox } from '../lib/dom.js';
import { SCHEMES, available, schemeLabel } from '../lib/schemes.js';
import { WorkerClient } from '../lib/worker-client.js';
import { describeTiming, formatMs } from '../lib/timing.js';
import { pooledCosine } from '../lib/pooled-cosine.js';
import { heatmap } from '../plots/heatmap.js';
import { DIMS, SEED, FAMILIES, familiesFor } from '../model/checkpoints.js';
import { LONG_TOKENS } from '../model/run-encoder.js';
import { mountLoadModel } from './load-model.js';

// Below this many tokens fixed per-call costs dominate a forward pass (see the note shown).
const TINY_TOKENS = 64;
const JS_PATH = 'js';

// Rows of the timing table: one per variant, keyed by variantKey. A variant is what differs between
// the timed runs of one input: the build, and with "compare fp32 and q8" the weight dtype (sent to the
// worker as the request's dtype). Each row also names the threads its worker's relpos computes with.
const variantsFor = (both, dtypes) => (both ? ['simd', 'scalar'] : ['auto']).flatMap((build) => (dtypes ? dtypes.map((dtype) => ({ build, dtype })) : [{ build }]));
const variantKey = (v) => Object.values(v).join('/');
const buildName = (r, build) => (r.standIn ? `JS stand-in (${build})` : r.simd ? 'WebAssembly SIMD128' : 'WebAssembly scalar');
const threadsText = (r) => `${r.threads ?? 1} thread${(r.threads ?? 1) > 1 ? 's' : ''}`;
const variantLabel = (v, r) => `${buildName(r, v.build)}, ${threadsText(r)}`;
const DTYPE_LABEL = { fp32: 'fp32', q8: 'q8 (8-bit)' };
const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;

/** For every q8 result, the fp32 result of the same build: { cosine (pooled, q8 vs fp32), ratio (weight bytes) }. */
export function q8Comparisons(results, variants) {
  const out = new Map();
  results.forEach((r, i) => {
    if (variants[i].dtype !== 'q8') return;
    const j = variants.findIndex((v) => v.build === variants[i].build && v.dtype === 'fp32');
    if (j < 0) return;
    const ref = results[j];
    const [S, D] = r.shape;
    const [cos] = pooledCosine(r.hidden, ref.hidden, { dims: [1, S, D], mask: r.attentionMask });
    out.set(i, { cosine: cos, ratio: r.weightBytes / ref.weightBytes, ref });
  });
  return out;
}

const pathText = (r) =>
  r.path === 'model' ? `rp.loadModel + model.forward (C++ model layer, ${r.modelType})` : 'assembled in JavaScript from rp.attention';

export function mount(root, { rp, showThreads }) {
  const state = { last: null, results: [], runs: 0, busy: false };
  const workers = {};
  const worker = (build) => (workers[build] ??= new WorkerClient(build));

  root.append(h('p', { class: 'honest' },
    h('strong', {}, 'Random weights. '),
    `Each scheme with a Hugging Face model family runs a real checkpoint of that family — config.json, model.safetensors and tokenizer.json, generated in your browser from seeded random numbers (seed ${SEED}; hidden ${DIMS.hidden}, ${DIMS.heads} heads, ${DIMS.positions} positions, a ${DIMS.vocab}-word WordPiece vocabulary) — loaded with rp.loadModel and run by model.forward, the C++ model layer web apps use. Schemes without a family run a small encoder assembled in JavaScript from rp.attention. Both show the mechanics of each position scheme — where attention goes — not language understanding.`));

  const schemes = SCHEMES.filter((s) => available(rp, s.type));
  const canLoad = typeof rp.loadModel === 'function';
  const text = field({ label: 'Text', kind: 'text', value: 'The cat sat on the mat because it was tired.', name: 'enc-text' });
  const scheme = field({ label: 'Position scheme', kind: 'select', value: 'alibi', options: schemes.map((s) => [s.type, s.label]), name: 'enc-scheme' });
  const family = field({ label: 'Model', kind: 'select', value: '', options: [], name: 'enc-family' });
  const length = field({ label: 'Input', kind: 'select', value: 'text', options: [['text', 'the text as typed'], ['long', `${LONG_TOKENS} tokens (the text repeated)`]], name: 'enc-length' });
  const layers = field({ label: 'Layers', value: 2, min: 1, max: 6, name: 'enc-layers' });
  const both = field({ label: 'Time the SIMD and the scalar build', kind: 'checkbox', value: true, name: 'enc-both' });
  const q8 = field({ label: 'Compare fp32 and 8-bit (q8) weights', kind: 'checkbox', value: false, name: 'enc-q8', help: 'rp.loadModel(…, { dtype }) models only' });
  const runBtn = h('button', { type: 'button' }, 'Run encoder');
  const controls = h('div', { class: 'controls', role: 'group', 'aria-label': 'Encoder input' }, text.root, scheme.root, family.root, length.root, layers.root, both.root, q8.root, runBtn);
  const status = h('p', { role: 'status', 'aria-live': 'polite', class: 'note' });
  const out = h('div', { class: 'encoder-out' });
  root.append(controls, status, out);

  // The Model choices follow the scheme: its Hugging Face families, else the JavaScript encoder.
  function fillFamilies() {
    const ids = canLoad ? familiesFor(scheme.value) : [];
    const opts = ids.length
      ? ids.map((id) => h('option', { value: id }, `${FAMILIES[id].label} — rp.loadModel`))
      : [h('option', { value: JS_PATH }, 'assembled in JavaScript (no Hugging Face family)')];
    family.input.replaceChildren(...opts);
    family.input.disabled = opts.length < 2;
    q8.input.disabled = !ids.length; // q8 is a rp.loadModel option: the JavaScript encoder has no dtype
  }
  scheme.input.addEventListener('change', fillFamilies);
  fillFamilies();

  async function run() {
    if (state.busy) return;
    state.busy = true;
    runBtn.disabled = true;
    const isModel = family.value !== JS_PATH;
    const variants = variantsFor(both.value, isModel && q8.value ? ['fp32', 'q8'] : null);
    const payload = { text: text.value, scheme: scheme.value, family: family.value === JS_PATH ? null : family.value, layers: layers.value, length: length.value };
    try {
      const results = [];
      // one variant after another: runs in parallel would share the CPU and distort each other's times
      for (const [i, v] of variants.entries()) {
        status.textContent = `Running and timing in the worker (${i + 1} of ${variants.length}: ${Object.values(v).join(', ')})…`;
        results.push(await worker(v.build).request('encode', { ...payload, dtype: v.dtype }));
      }
      state.last = results[0];
      state.results = results;
      state.variants = variants;
      showThreads?.(results[0]);
      state.runs++;
      const r = results[0];
      status.textContent = `Done: ${r.tokens.length} tokens, ${r.layers.length} layers, ${schemeLabel(payload.scheme)}.`;
      show(results, variants);
    } catch (err) {
      status.textContent = '';
      out.replaceChildren(errorBox(`Encoder failed: ${err.message}`));
    } finally {
      runBtn.disabled = false;
      state.busy = false;
    }
  }
  runBtn.addEventListener('click', run);

  function timingTable(results, variants) {
    const js = results[0].path === JS_PATH;
    const dtypes = variants.some((v) => v.dtype);
    const q8s = dtypes ? q8Comparisons(results, variants) : null;
    const cells = (t, part) => {
      const d = describeTiming(t);
      return [h('td', { class: `median ${part}` }, d.median), h('td', { class: `range ${part}` }, d.range), h('td', { class: `runs ${part}` }, d.runs)];
    };
    const head = (what) => [h('th', { scope: 'col' }, `${what}: median ms`), h('th', { scope: 'col' }, 'min–max ms'), h('th', { scope: 'col' }, 'runs')];
    return h('table', { class: 'timing-table' },
      h('caption', { class: 'note' }, `Time per forward pass — ${results[0].timed}, repeated in the worker after warm-up; median, fastest–slowest run, and the number of runs`),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Build'), dtypes ? h('th', { scope: 'col' }, 'Weights') : null, head('whole forward'), js ? head('attention') : null,
        dtypes ? [h('th', { scope: 'col' }, 'weight bytes held'), h('th', { scope: 'col' }, 'cosine with fp32 (mean-pooled last hidden state)')] : null)),
      h('tbody', {}, results.map((r, i) => h('tr', { 'data-variant': variantKey(variants[i]), 'data-dtype': r.dtype ?? null },
        h('th', { scope: 'row' }, variantLabel(variants[i], r)),
        dtypes ? h('td', { class: 'dtype' }, DTYPE_LABEL[r.dtype] ?? r.dtype) : null,
        cells(r.timing.forward, 'forward'),
        js ? cells(r.timing.attention, 'attention') : null,
        dtypes ? [
          h('td', { class: 'weight-bytes', 'data-bytes': r.weightBytes }, kib(r.weightBytes), q8s.has(i) ? ` (${q8s.get(i).ratio.toFixed(2)}×)` : null),
          h('td', { class: 'cosine', 'data-cosine': q8s.has(i) ? q8s.get(i).cosine : null }, q8s.has(i) ? q8s.get(i).cosine.toFixed(6) : 'reference'),
        ] : null))));
  }

  function q8Note(results, variants) {
    const q8s = q8Comparisons(results, variants);
    if (!q8s.size) return null;
    const [i, c] = [...q8s][0];
    const a = c.ref.timing.forward, b = results[i].timing.forward;
    const overlap = a.min <= b.max && b.min <= a.max;
    return h('p', { class: 'note q8-summary' },
      `8-bit weights: the same checkpoint loaded with dtype 'q8' holds ${kib(results[i].weightBytes)} of weights instead of ${kib(c.ref.weightBytes)} (${c.ratio.toFixed(2)}×; norms, biases and position tables stay float32), `,
      `and its mean-pooled output has cosine ${c.cosine.toFixed(6)} with fp32's. `,
      overlap ? `The forward min–max ranges overlap (medians ${formatMs(b.median)} ms with q8, ${formatMs(a.median)} ms with fp32): at this size the difference is within the run-to-run noise.`
        : `Forward median ${formatMs(b.median)} ms with q8 vs ${formatMs(a.median)} ms with fp32 (the ranges do not overlap).`);
  }

  // the builds compared on the same weights (fp32 when both dtypes ran)
  function comparison(results, variants) {
    const idx = variants.map((v, i) => i).filter((i) => (variants[i].dtype ?? 'fp32') === 'fp32');
    if (idx.length < 2) return null;
    const [ra, rb] = idx.slice(0, 2).map((i) => results[i]);
    const [a, b] = [ra, rb].map((r) => r.timing.forward);
    const overlap = a.min <= b.max && b.min <= a.max;
    const [fast, slow] = a.median <= b.median ? [ra, rb] : [rb, ra];
    const ratio = slow.timing.forward.median / fast.timing.forward.median;
    const name = (r) => `${buildName(r, '')} (${threadsText(r)})`;
    return h('p', { class: 'note comparison' }, overlap
      ? `The min–max ranges overlap: at this size the difference between the builds (medians ${formatMs(a.median)} vs ${formatMs(b.median)} ms) is within the run-to-run noise.`
      : `${name(slow)} takes ${ratio.toFixed(2)}× as long as ${name(fast)} (medians; the ranges do not overlap).`);
  }

  function show(results, variants) {
    const r = results[0];
    const [S] = r.shape;
    const H = r.config.heads;
    const finite = Array.from(r.hidden).every(Number.isFinite);
    out.replaceChildren();
    const pathNote = r.path === 'model'
      ? `A random-weight ${FAMILIES[r.family].label} checkpoint generated in the browser (config.json, model.safetensors, tokenizer.json).${r.causal ? ' This family is a decoder stack: attention is causal — each token sees itself and the tokens before it.' : ''}`
      : `${schemeLabel(scheme.value)} has no Hugging Face model family in relpos, so this encoder is built from rp.attention and JavaScript matrix products. Only its attention runs in WebAssembly: compare the builds in the attention columns; the rest of the whole forward is the same JavaScript on both.`;
    out.append(h('p', { class: 'path', 'data-path': r.path, 'data-family': r.family ?? '', 'data-model-type': r.modelType ?? '' },
      h('strong', {}, 'Ran: '), pathText(r), '. ', h('span', { class: 'note' }, pathNote)));
    const shown = Math.min(S, 40);
    out.append(h('h3', {}, 'Tokens'), h('ul', { class: 'tokens', 'aria-label': 'tokens' }, r.tokens.slice(0, shown).map((t) => h('li', {}, t)), S > shown ? h('li', { class: 'more' }, `… ${S} in all`) : null));
    out.append(h('p', {}, `Output: [${S}, ${r.shape[1]}] hidden states, ${finite ? 'all finite' : 'NOT all finite'}.`));
    out.append(h('h3', {}, 'Timings'), h('div', { class: 'scroll' }, timingTable(results, variants)));
    if (S < TINY_TOKENS) {
      const longer = h('button', { type: 'button', class: 'secondary' }, `Run with ${LONG_TOKENS} tokens`);
      longer.addEventListener('click', () => {
        length.input.value = 'long';
        run();
      });
      out.append(h('p', { class: 'note tiny' },
        h('strong', {}, `Only ${S} tokens: `),
        'at this size fixed per-call costs — crossing from JavaScript into WebAssembly, allocating and copying outputs, per-layer set-up — outweigh the arithmetic, so the builds time close together and their order can flip between runs. ',
        `At ${LONG_TOKENS} tokens the kernels' work dominates and the builds separate. `, longer));
    }
    const cmp = comparison(results, variants);
    if (cmp) out.append(cmp);
    const q8n = q8Note(results, variants);
    if (q8n) out.append(q8n);

    // output norms [layers × tokens]
    const L = r.layers.length;
    const names = S <= 48;
    const norms = new Float32Array(L * S);
    r.layers.forEach((l, li) => norms.set(l.norms, li * S));
    const wide = Math.min(640, Math.max(300, root.clientWidth - 4));
    out.append(heatmap({ data: norms, rows: L, cols: S, title: '‖hidden state‖ after each layer', rowLabel: 'layer', colLabel: 'token', colNames: names ? r.tokens : undefined, rowNames: r.layers.map((_, i) => `layer ${i}`), maxWidth: wide, aspect: names ? 0.7 : (16 * S) / (wide - 86), annotate: S <= 14 }));
    // attention maps: layer picker, one map per head
    const pick = field({ label: 'Layer to show', kind: 'select', value: 0, options: r.layers.map((_, i) => [i, `layer ${i}`]), name: 'enc-layer' });
    const maps = h('div', { class: 'figs' });
    const draw = () => {
      const li = Number(pick.value);
      const probs = r.layers[li].probs;
      const w = Math.max(260, Math.min(330, (root.clientWidth - 24) / 2));
      maps.replaceChildren(...Array.from({ length: H }, (_, hd) => heatmap({
        data: probs.slice(hd * S * S, (hd + 1) * S * S), rows: S, cols: S, title: `Layer ${li}, head ${hd}`,
        rowNames: names ? r.tokens : undefined, colNames: names ? r.tokens : undefined, colormap: 'viridis', vmin: 0, maxWidth: w, annotate: false, square: !names,
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
