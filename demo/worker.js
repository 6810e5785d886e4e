// Web Worker for long work, so the page never freezes: the encoder section's random-weight models
// (a generated Hugging Face checkpoint through rp.loadModel, or the JavaScript-assembled encoder),
// the benchmark — both timed with lib/timing.js — and loading a real model through rp.loadModel.
// Messages in:  { id, cmd: 'info' | 'encode' | 'bench' | 'load-model' | 'model-forward', build: 'simd'|'scalar'|'auto', ... }
// The worker's relpos is init({ threads: 'auto' }); the benchmark's "1 vs N threads" choice adds a
// second, single-thread instance of the same build (init({ threads: 1 })). Both are made once and kept.
// Messages out: { id, type: 'progress', progress } … then { id, type: 'result', result } or { id, type: 'error', message }.
// Module workers cannot use the page's import map, so the package entry point is imported by URL.
import { makeScheme } from './lib/schemes.js';
import { rng } from './lib/rng.js';
import { measure } from './lib/timing.js';
import { EncoderRunner } from './model/run-encoder.js';

const PACKAGE_URL = new URL('../web/index.js', import.meta.url).href;
const WASM_DIR = new URL('../web/dist/', import.meta.url).href;
const TOKENIZERS_URL = new URL('../tokenizers/tokenizers.mjs', import.meta.url).href;

const instances = new Map(); // threads ('auto' | 1) → Promise<runtime>
function relpos(build, threads = 'auto') {
  if (!instances.has(threads))
    instances.set(threads, import(PACKAGE_URL).then((m) => {
      const init = m.init ?? m.default?.init ?? m.default;
      // threads: 'auto' — every core when the page is cross-origin isolated (npm start sends COOP/COEP).
      return init({ simd: build === 'simd' ? true : build === 'scalar' ? false : 'auto', wasmPaths: WASM_DIR, threads });
    }));
  return instances.get(threads);
}
// Real models loaded in the panel: fewer, longer runs than the benchmark's.
const MODEL_TIMING = Object.freeze({ warmup: 1, minRuns: 5, maxRuns: 30, minMs: 300, runMs: 3 });

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

  // compareThreads: also time every cell on a single-thread instance of the same build (only when this
  // worker's relpos runs more than one thread; the result's `single` holds those times, null otherwise).
  async bench({ schemes, lengths, heads = 4, headDim = 64, minMs = 60, maxRuns = 15, compareThreads = false, build }, rp, progress) {
    const rp1 = compareThreads && rp.threads > 1 ? await relpos(build, 1) : null;
    const results = schemes.map((type) => ({ type, ms: lengths.map(() => NaN), timing: lengths.map(() => null), error: null,
      single: rp1 ? { ms: lengths.map(() => NaN), timing: lengths.map(() => null) } : null }));
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
          const time = (runtime) => strip(measure(() => runtime.attention({ q, k, v, batch: 1, heads, seqLen: S, headDim, scheme }), { minRuns: 5, maxRuns, minMs, runMs: 2, maxCalls: 200 }));
          // one instance after the other on the same inputs: never both at once
          if (rp1) {
            res.single.timing[li] = time(rp1);
            res.single.ms[li] = res.single.timing[li].median;
          }
          res.timing[li] = time(rp);
          res.ms[li] = res.timing[li].median;
        } catch (err) {
          res.error = err.message;
        }
        progress({ done: ++done, total, type: res.type, seqLen: S });
      }
    }
    return { ...info(rp), heads, headDim, lengths, results, compareThreads, singleThreads: rp1 ? rp1.threads : null };
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
    const r = model.forward({ text }, { outputAttentions: true });
    // the same ids again, timed like every other figure on the page (median, min–max, runs)
    const ids = Array.from(r.inputIds.data);
    const t = measure(() => model.forward({ inputIds: [ids] }), MODEL_TIMING);
    return {
      ...info(rp),
      timing: strip(t),
      tokens: r.tokens[0],
      shape: r.lastHiddenState.dims,
      hidden: r.lastHiddenState.data,
      attentions: r.attentions.map((a) => a.data),
    };
  },
};

const strip = ({ median, min, max, runs, calls }) => ({ median, min, max, runs, calls });

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
