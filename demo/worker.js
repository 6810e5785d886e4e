// Web Worker for long work, so the page never freezes: the encoder section's random-weight models
// (a generated Hugging Face checkpoint through rp.loadModel, or the JavaScript-assembled encoder),
// the benchmark — both timed with lib/timing.js — loading a real model through rp.loadModel (the panel:
// its forward pass, or the pipeline its task head supports) and the Real model section's trained
// sentence encoder (all-MiniLM-L6-v2: similarity matrix, nearest-neighbour search).
// Messages in:  { id, cmd: 'info' | 'encode' | 'bench' | 'load-model' | 'model-forward' | 'model-pipeline'
//                 | 'real-load' | 'real-embed' | 'real-corpus' | 'real-search' | 'real-gpu-load' | 'real-devices',
//                 build: 'simd'|'scalar'|'auto', ... }
// 'real-gpu-load' loads a second copy of the real model with rp.loadModel(url, { device: 'auto' }): on WebGPU
// when the worker has an adapter, otherwise it answers { available: false, reason: info.deviceReason };
// 'real-devices' runs the same texts on both copies (WebAssembly, WebGPU) and answers both timings and the
// cosine between their embeddings.
// The worker's relpos is init({ threads: 'auto' }); the benchmark's "1 vs N threads" choice adds a
// second, single-thread instance of the same build (init({ threads: 1 })). Both are made once and kept.
// Messages out: { id, type: 'progress', progress } … then { id, type: 'result', result } or { id, type: 'error', message }.
// Module workers cannot use the page's import map, so the package entry point is imported by URL.
import { makeScheme } from './lib/schemes.js';
import { rng } from './lib/rng.js';
import { measure, measureAsync, stats } from './lib/timing.js';
import { cosineMatrix, nearest } from './lib/similarity.js';
import { EncoderRunner } from './model/run-encoder.js';

const PACKAGE_URL = new URL('../web/index.js', import.meta.url).href;
const WASM_DIR = new URL('../web/dist/', import.meta.url).href;
const TOKENIZERS_URL = new URL('../tokenizers/tokenizers.mjs', import.meta.url).href;

let pkg = null; // the package module (init, pipeline)
const relposModule = () => (pkg ??= import(PACKAGE_URL));
const instances = new Map(); // threads ('auto' | 1) → Promise<runtime>
function relpos(build, threads = 'auto') {
  if (!instances.has(threads))
    instances.set(threads, relposModule().then((m) => {
      const init = m.init ?? m.default?.init ?? m.default;
      // threads: 'auto' — every core when the page is cross-origin isolated (npm start sends COOP/COEP).
      return init({ simd: build === 'simd' ? true : build === 'scalar' ? false : 'auto', wasmPaths: WASM_DIR, threads });
    }));
  return instances.get(threads);
}
// Real models loaded in the panel: fewer, longer runs than the benchmark's.
const MODEL_TIMING = Object.freeze({ warmup: 1, minRuns: 5, maxRuns: 30, minMs: 300, runMs: 3 });
// The sentence-transformers recipe for all-MiniLM-L6-v2: mean over the real tokens, then L2-normalised.
const EMBEDDING = Object.freeze({ pooling: 'mean', normalize: true });
const CORPUS_BATCH = 8;

// What the panel can run for a loaded model: the pipeline of its task head (model.head: { task, labels }),
// and for fill-mask the tokenizer's mask token, so the page can offer a sentence with it.
function headOf(m) {
  if (!m.head?.task) return null;
  const maskToken = ['[MASK]', '<mask>'].find((t) => Number.isInteger(m.tokenizer?.token_to_id?.(t))) ?? null;
  return { task: m.head.task, labels: m.head.labels ? Array.from(m.head.labels) : null, architecture: m.config?.architectures?.[0] ?? null, maskToken };
}

const info = (rp) => ({ simd: !!rp.simd, standIn: !!rp.standIn, version: rp.version ?? null, hasLoadModel: typeof rp.loadModel === 'function',
  threads: rp.threads ?? 1, threadsReason: rp.threadsReason ?? null });
let encoder = null;
let model = null;
let real = null; // the Real model section: { url, model, embed, corpus: { texts, data, n, dim } | null }
let realGpu = null; // its WebGPU copy: { url, model, embed } (null until 'real-gpu-load' found an adapter)
// The WebAssembly vs WebGPU comparison: one warm-up call, then 5 timed calls (no calibration rounds: a
// software GPU such as SwiftShader takes seconds per batch); the median with min–max, as lib/timing.js.
async function timeDevice(fn, runs = 5) {
  let last = await fn();
  const samples = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    last = await fn();
    samples.push(performance.now() - t);
  }
  return { ...stats(samples), calls: 1, last };
}
const adapterOf = (info) => (info ? { vendor: info.vendor ?? '', architecture: info.architecture ?? '', description: info.description ?? '', device: info.device ?? '' } : null);

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
    return { modelType: cfg.modelType, layers: cfg.numLayers, heads: cfg.numHeads, hidden: cfg.hiddenSize, head: headOf(model) };
  },

  // The panel's task view: the loaded model's pipeline on the input, and its time (median of runs).
  async 'model-pipeline'({ task, input, options = {} }, rp) {
    if (!model) throw new Error('No model loaded.');
    const { pipeline } = await relposModule();
    const run = pipeline(task, model);
    const t = await measureAsync(() => run(input, options), MODEL_TIMING);
    return { ...info(rp), task, output: t.last, timing: strip(t) };
  },

  // The Real model section: all-MiniLM-L6-v2, loaded once from the demo server (no network).
  async 'real-load'({ url, variant }, rp, progress) {
    if (real?.url !== url) {
      real?.model.dispose?.();
      real = null;
      const { pipeline } = await relposModule();
      const tokenizers = await import(TOKENIZERS_URL).catch(() => undefined);
      const m = await rp.loadModel(url, { onProgress: (p) => progress(p), tokenizers, ...(variant ? { variant } : {}) });
      real = { url, model: m, embed: pipeline('feature-extraction', m), corpus: null };
    }
    const i = real.model.info;
    return { ...info(rp), modelType: i.modelType, layers: i.numLayers, heads: i.numHeads, hidden: i.hiddenSize, weightBytes: i.weightBytes ?? null };
  },

  // The WebGPU copy of the real model (device 'auto': stays on WebAssembly, with info.deviceReason, when
  // this worker has no WebGPU adapter — that copy is disposed at once and the reason returned).
  async 'real-gpu-load'({ url, variant }, rp, progress) {
    if (realGpu?.url !== url) {
      realGpu?.model.dispose?.();
      realGpu = null;
      const { pipeline } = await relposModule();
      const tokenizers = await import(TOKENIZERS_URL).catch(() => undefined);
      let m;
      try {
        m = await rp.loadModel(url, { device: 'auto', onProgress: (p) => progress(p), tokenizers, ...(variant ? { variant } : {}) });
      } catch (err) {
        return { ...info(rp), available: false, reason: err.message };
      }
      if (m.info.device !== 'webgpu') {
        const reason = m.info.deviceReason ?? `loadModel with device 'auto' chose '${m.info.device}'`;
        m.dispose();
        return { ...info(rp), available: false, reason };
      }
      realGpu = { url, model: m, embed: pipeline('feature-extraction', m) };
    }
    return { ...info(rp), available: true, adapter: adapterOf(realGpu.model.info.adapter) };
  },

  // The same texts on WebAssembly and on WebGPU, one device after the other (never both at once): each
  // time is a median of 5 runs (timeDevice); the embeddings' per-sentence cosine (WASM vs WebGPU, both
  // L2-normalised) and the largest absolute difference of their components say how close they agree.
  async 'real-devices'({ texts }, rp) {
    if (!real || !realGpu) throw new Error('Load the real model on both devices first.');
    const w = await timeDevice(() => real.embed(texts, EMBEDDING));
    const g = await timeDevice(() => realGpu.embed(texts, EMBEDDING));
    const [n, dim] = w.last.dims;
    const cosines = [];
    let maxAbs = 0;
    for (let i = 0; i < n; i++) {
      let dot = 0, na = 0, nb = 0;
      for (let d = 0; d < dim; d++) {
        const a = w.last.data[i * dim + d], b = g.last.data[i * dim + d];
        dot += a * b; na += a * a; nb += b * b;
        maxAbs = Math.max(maxAbs, Math.abs(a - b));
      }
      cosines.push(dot / Math.max(Math.sqrt(na * nb), 1e-30));
    }
    const tokens = texts.map((x) => real.model.tokenizer?.encode(x).ids.length ?? null);
    return { ...info(rp), n, dim, tokens, cosines, minCosine: Math.min(...cosines), maxAbs,
      matrix: cosineMatrix(g.last.data, n, dim), adapter: adapterOf(realGpu.model.info.adapter),
      wasm: { timing: strip(w) }, webgpu: { timing: strip(g) } };
  },

  // Similarity matrix: the sentences' embeddings in one batch, their pairwise cosines, and the time of
  // that batch (median of runs).
  async 'real-embed'({ texts }, rp) {
    if (!real) throw new Error('The real model is not loaded.');
    const t = await measureAsync(() => real.embed(texts, EMBEDDING), MODEL_TIMING);
    const [n, dim] = t.last.dims;
    const tokens = texts.map((x) => real.model.tokenizer?.encode(x).ids.length ?? null);
    return { ...info(rp), n, dim, tokens, matrix: cosineMatrix(t.last.data, n, dim), timing: strip(t) };
  },

  // The nearest-neighbour corpus: embedded once, in batches (progress after each), kept in the worker.
  async 'real-corpus'({ texts }, rp, progress) {
    if (!real) throw new Error('The real model is not loaded.');
    const key = texts.join('\n');
    if (real.corpus?.key !== key) {
      real.corpus = null;
      const parts = [];
      let dim = 0;
      for (let b = 0; b < texts.length; b += CORPUS_BATCH) {
        const e = await real.embed(texts.slice(b, b + CORPUS_BATCH), EMBEDDING);
        dim = e.dims[1];
        parts.push(e.data);
        progress({ done: Math.min(texts.length, b + CORPUS_BATCH), total: texts.length });
      }
      const data = new Float32Array(texts.length * dim);
      parts.reduce((at, p) => (data.set(p, at), at + p.length), 0);
      real.corpus = { key, data, n: texts.length, dim };
    }
    return { ...info(rp), n: real.corpus.n, dim: real.corpus.dim };
  },

  // A query against the corpus: embed it, rank the corpus by cosine; timed as one (median of runs).
  async 'real-search'({ query, k = 5 }, rp) {
    if (!real?.corpus) throw new Error('The corpus is not embedded yet.');
    const { data, n, dim } = real.corpus;
    const t = await measureAsync(async () => nearest((await real.embed(query, EMBEDDING)).data, data, n, dim, k), MODEL_TIMING);
    return { ...info(rp), results: t.last, timing: strip(t) };
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
