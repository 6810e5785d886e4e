// Web Worker for long work, so the page never freezes: the random-weight encoder, the benchmark,
// and loading a real model through rp.loadModel (when the package has it).
// Messages in:  { id, cmd: 'info' | 'encode' | 'bench' | 'load-model' | 'model-forward', build: 'simd'|'scalar'|'auto', ... }
// Messages out: { id, type: 'progress', progress } … then { id, type: 'result', result } or { id, type: 'error', message }.
// Module workers cannot use the page's import map, so the package entry point is imported by URL.
import { makeScheme } from './lib/schemes.js';
import { rng } from './lib/rng.js';
import { RandomEncoder } from './model/random-encoder.js';
import { tokenize } from './model/tokenizer.js';

const PACKAGE_URL = new URL('../web/index.js', import.meta.url).href;
const WASM_DIR = new URL('../web/dist/', import.meta.url).href;
const TOKENIZERS_URL = new URL('../tokenizers/tokenizers.mjs', import.meta.url).href;

let rpPromise = null;
function relpos(build) {
  rpPromise ??= import(PACKAGE_URL).then((m) => {
    const init = m.init ?? m.default?.init ?? m.default;
    // threads: 'auto' — every core when the page is cross-origin isolated (npm start sends COOP/COEP).
    return init({ simd: build === 'simd' ? true : build === 'scalar' ? false : 'auto', wasmPaths: WASM_DIR, threads: 'auto' });
  });
  return rpPromise;
}

const info = (rp) => ({ simd: !!rp.simd, standIn: !!rp.standIn, version: rp.version ?? null, hasLoadModel: typeof rp.loadModel === 'function',
  threads: rp.threads ?? 1, threadsReason: rp.threadsReason ?? null });
let encoder = null;
let model = null;

const handlers = {
  async info(msg, rp) {
    return info(rp);
  },

  async encode({ text, scheme, layers }, rp) {
    if (!encoder || encoder.config.layers !== layers) encoder = new RandomEncoder(rp, { layers });
    const { tokens, ids } = tokenize(text, encoder.config.vocabSize);
    encoder.forward(ids, scheme); // warm-up (first call pays for wasm tier-up and allocations)
    const r = encoder.forward(ids, scheme);
    return { ...info(rp), tokens, config: encoder.config, shape: r.shape, hidden: r.hidden, layers: r.layers, attentionMs: r.attentionMs, totalMs: r.totalMs };
  },

  async bench({ schemes, lengths, heads = 4, headDim = 64, minMs = 40, maxReps = 15 }, rp, progress) {
    const results = schemes.map((type) => ({ type, ms: lengths.map(() => NaN), error: null }));
    const total = schemes.length * lengths.length;
    let done = 0;
    for (const S of lengths) {
      const r = rng(S);
      const n = heads * S * headDim;
      const q = r.normals(n), k = r.normals(n), v = r.normals(n);
      for (const res of results) {
        try {
          const scheme = makeScheme(res.type, { heads, headDim, seqLen: S });
          const call = () => rp.attention({ q, k, v, batch: 1, heads, seqLen: S, headDim, scheme });
          // calibrate: batch calls so each sample lasts ≥ 2 ms (the browser's timer is coarse)
          let inner = 1;
          for (let t = performance.now(), n = 0; ; ) {
            call();
            n++;
            const el = performance.now() - t;
            if (el >= 5 || n >= 200) {
              inner = Math.max(1, Math.ceil((2 * n) / Math.max(el, 1e-3)));
              break;
            }
          }
          const times = [];
          const start = performance.now();
          while (times.length < 3 || (performance.now() - start < minMs && times.length < maxReps)) {
            const t = performance.now();
            for (let c = 0; c < inner; c++) call();
            times.push((performance.now() - t) / inner);
          }
          times.sort((a, b) => a - b);
          res.ms[lengths.indexOf(S)] = times[Math.floor(times.length / 2)];
        } catch (err) {
          res.error = err.message;
        }
        progress({ done: ++done, total, type: res.type, seqLen: S });
      }
    }
    return { ...info(rp), heads, headDim, lengths, results };
  },

  async 'load-model'({ source }, rp, progress) {
    if (typeof rp.loadModel !== 'function')
      throw new Error('This build of relpos has no rp.loadModel() yet (the model layer is still being built). The random-weight encoder above works now.');
    model?.dispose?.();
    model = null;
    // File objects go to loadModel as they are: it streams them into the WebAssembly heap (no copy here).
    const src = source.files ? { files: source.files } : source.url;
    // The tokenizer package (for tokenizer.json), served by scripts/serve.mjs; module workers have no import map.
    const tokenizers = await import(TOKENIZERS_URL).catch(() => undefined);
    model = await rp.loadModel(src, { onProgress: (p) => progress(p), tokenizers });
    const cfg = model.info;
    return { modelType: cfg.modelType, layers: cfg.numLayers, heads: cfg.numHeads, hidden: cfg.hiddenSize };
  },

  async 'model-forward'({ text }, rp) {
    if (!model) throw new Error('No model loaded.');
    const t0 = performance.now();
    const r = model.forward({ text }, { outputAttentions: true });
    const totalMs = performance.now() - t0;
    return {
      ...info(rp),
      totalMs,
      tokens: r.tokens[0],
      shape: r.lastHiddenState.dims,
      hidden: r.lastHiddenState.data,
      attentions: r.attentions.map((a) => a.data),
    };
  },
};

self.onmessage = async ({ data: msg }) => {
  const { id, cmd } = msg;
  const progress = (p) => self.postMessage({ id, type: 'progress', progress: p });
  try {
    const handler = handlers[cmd];
    if (!handler) throw new Error(`unknown command ${cmd}`);
    const rp = await relpos(msg.build);
    const result = await handler(msg, rp, progress);
    self.postMessage({ id, type: 'result', result });
  } catch (err) {
    self.postMessage({ id, type: 'error', message: err?.message ?? String(err) });
  }
};
