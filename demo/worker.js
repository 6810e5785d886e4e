// Web Worker for long work, so the page never freezes: the encoder section's random-weight models
// (a generated Hugging Face checkpoint through rp.loadModel, or the JavaScript-assembled encoder),
// the benchmark — both timed with lib/timing.js — and loading a real model through rp.loadModel.
// Messages in:  { id, cmd: 'info' | 'encode' | 'bench' | 'load-model' | 'model-forward', build: 'simd'|'scalar'|'auto', ... }
// Messages out: { id, type: 'progress', progress } … then { id, type: 'result', result } or { id, type: 'error', message }.
// Module workers cannot use the page's import map, so the package entry point is imported by URL.
import { makeScheme } from './lib/schemes.js';
import { rng } from './lib/rng.js';
import { measure } from './lib/timing.js';
import { EncoderRunner } from './model/run-encoder.js';

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

  // The encoder section: the scheme's random-weight Hugging Face checkpoint through rp.loadModel, or
  // the JavaScript-assembled encoder (demo/model/run-encoder.js); timings are medians of repeated runs.
  async encode(msg, rp) {
    encoder ??= new EncoderRunner(rp, await import(TOKENIZERS_URL).catch(() => undefined));
    return { ...info(rp), ...(await encoder.run(msg)) };
  },

  async bench({ schemes, lengths, heads = 4, headDim = 64, minMs = 60, maxRuns = 15 }, rp, progress) {
    const results = schemes.map((type) => ({ type, ms: lengths.map(() => NaN), timing: lengths.map(() => null), error: null }));
    const total = schemes.length * lengths.length;
    let done = 0;
    for (const [li, S] of lengths.entries()) {
      const r = rng(S);
      const n = heads * S * headDim;
      const q = r.normals(n), k = r.normals(n), v = r.normals(n);
      for (const res of results) {
        try {
          const scheme = makeScheme(res.type, { heads, headDim, seqLen: S });
          // median of ≥ 5 runs (up to maxRuns within minMs); short calls batched into 2-ms runs
          const t = measure(() => rp.attention({ q, k, v, batch: 1, heads, seqLen: S, headDim, scheme }), { minRuns: 5, maxRuns, minMs, runMs: 2, maxCalls: 200 });
          res.ms[li] = t.median;
          res.timing[li] = { median: t.median, min: t.min, max: t.max, runs: t.runs, calls: t.calls };
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
    // A Hub id goes with its host and revision; in the worker too, downloaded files land in the Cache API.
    const src = source.files ? { files: source.files } : source.hub ? source.hub.id : source.url;
    const hub = source.hub ? { host: source.hub.host || undefined, revision: source.hub.revision || undefined } : {};
    // The tokenizer package (for tokenizer.json), served by scripts/serve.mjs; module workers have no import map.
    const tokenizers = await import(TOKENIZERS_URL).catch(() => undefined);
    model = await rp.loadModel(src, { ...hub, onProgress: (p) => progress(p), tokenizers });
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
