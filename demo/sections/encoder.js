// Section 4 — run an encoder in the worker: tokens, per-layer/per-head attention maps, output norms
// and timings (median of repeated runs, min–max, run count) per build.
// A scheme with a Hugging Face model family runs that family's random-weight checkpoint through
// rp.loadModel + model.forward (the C++ model layer); other schemes run an encoder assembled in
// JavaScript from rp.attention (demo/model/run-encoder.js). Random weights, labelled as such.
// A real Hugging Face folder loads in the panel below (load-model.js).
import { h, field, errorBox } from '../lib/dom.js';
import { SCHEMES, available, schemeLabel } from '../lib/schemes.js';
import { WorkerClient } from '../lib/worker-client.js';
import { describeTiming, formatMs } from '../lib/timing.js';
import { heatmap } from '../plots/heatmap.js';
import { DIMS, SEED, FAMILIES, familiesFor } from '../model/checkpoints.js';
import { LONG_TOKENS } from '../model/run-encoder.js';
import { mountLoadModel } from './load-model.js';

// Below this many tokens fixed per-call costs dominate a forward pass (see the note shown).
const TINY_TOKENS = 64;
const JS_PATH = 'js';

// Rows of the timing table: one per variant, keyed by variantKey. A variant is what differs between
// the timed runs of one input — the build today; a weight dtype ('fp32' | 'q8') or a thread count
// become further keys here, in variantLabel and in the worker request.
const variantsFor = (both) => (both ? [{ build: 'simd' }, { build: 'scalar' }] : [{ build: 'auto' }]);
const variantKey = (v) => Object.values(v).join('/');
const buildName = (r, build) => (r.standIn ? `JS stand-in (${build})` : r.simd ? 'WebAssembly SIMD128' : 'WebAssembly scalar');
const variantLabel = (v, r) => buildName(r, v.build);

const pathText = (r) =>
  r.path === 'model' ? `rp.loadModel + model.forward (C++ model layer, ${r.modelType})` : 'assembled in JavaScript from rp.attention';

export function mount(root, { rp }) {
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
  const runBtn = h('button', { type: 'button' }, 'Run encoder');
  const controls = h('div', { class: 'controls', role: 'group', 'aria-label': 'Encoder input' }, text.root, scheme.root, family.root, length.root, layers.root, both.root, runBtn);
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
  }
  scheme.input.addEventListener('change', fillFamilies);
  fillFamilies();

  async function run() {
    if (state.busy) return;
    state.busy = true;
    runBtn.disabled = true;
    const variants = variantsFor(both.value);
    const payload = { text: text.value, scheme: scheme.value, family: family.value === JS_PATH ? null : family.value, layers: layers.value, length: length.value };
    try {
      const results = [];
      // one variant after another: runs in parallel would share the CPU and distort each other's times
      for (const [i, v] of variants.entries()) {
        status.textContent = `Running and timing in the worker (${i + 1} of ${variants.length}: ${v.build})…`;
        results.push(await worker(v.build).request('encode', payload));
      }
      state.last = results[0];
      state.results = results;
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
    const cells = (t, part) => {
      const d = describeTiming(t);
      return [h('td', { class: `median ${part}` }, d.median), h('td', { class: `range ${part}` }, d.range), h('td', { class: `runs ${part}` }, d.runs)];
    };
    const head = (what) => [h('th', { scope: 'col' }, `${what}: median ms`), h('th', { scope: 'col' }, 'min–max ms'), h('th', { scope: 'col' }, 'runs')];
    return h('table', { class: 'timing-table' },
      h('caption', { class: 'note' }, `Time per forward pass — ${results[0].timed}, repeated in the worker after warm-up; median, fastest–slowest run, and the number of runs`),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Build'), head('whole forward'), js ? head('attention') : null)),
      h('tbody', {}, results.map((r, i) => h('tr', { 'data-variant': variantKey(variants[i]) },
        h('th', { scope: 'row' }, variantLabel(variants[i], r)),
        cells(r.timing.forward, 'forward'),
        js ? cells(r.timing.attention, 'attention') : null))));
  }

  function comparison(results) {
    if (results.length < 2) return null;
    const [a, b] = results.map((r) => r.timing.forward);
    const overlap = a.min <= b.max && b.min <= a.max;
    const [fast, slow] = a.median <= b.median ? [results[0], results[1]] : [results[1], results[0]];
    const ratio = slow.timing.forward.median / fast.timing.forward.median;
    return h('p', { class: 'note comparison' }, overlap
      ? `The min–max ranges overlap: at this size the difference between the builds (medians ${formatMs(a.median)} vs ${formatMs(b.median)} ms) is within the run-to-run noise.`
      : `${buildName(slow, '')} takes ${ratio.toFixed(2)}× as long as ${buildName(fast, '')} (medians; the ranges do not overlap).`);
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
    const cmp = comparison(results);
    if (cmp) out.append(cmp);

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
