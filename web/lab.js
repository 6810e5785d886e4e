// relpos lab: train a tiny transformer on a synthetic task at one length, test it at longer ones, and
// look at its attention — the length-generalisation lab of issue #18.
//
//   import { lab } from 'relpos';
//   const run = await lab.train({ task: 'shift-k', scheme: 'shaw', trainLength: 16, steps: 300 });
//   const [atL, at4L] = await run.evaluate([16, 64]);
//   const { maps } = await run.attention({ length: 32 });
//   run.dispose();
//
// The training core (cpp/train/) is a WebAssembly module of its own (dist/relpos-lab-{simd,scalar}),
// never loaded with the inference module: lab.train() starts a Worker (lab-worker.js) — a module Worker
// in browsers and bundlers, a node:worker_threads Worker under Node — which loads it, trains every step
// in one loop, and stays alive for run.evaluate / run.attention until run.dispose(). Options are checked
// here, before any Worker starts (validation.js conventions); the C++ session checks them again.
import { requireWebAssembly, simdSupported } from './loader.js';
import { isNode } from './instantiate.js';
import { checkInt, checkKnownOptions, checkMemory, checkNumber, checkChoice, describe } from './validation.js';

export const TASKS = Object.freeze(['shift-k', 'reverse', 'count-so-far', 'bracket-depth']);
export const SCHEMES = Object.freeze(['none', 'sinusoidal', 'learned', 'alibi', 't5', 'rope', 'shaw', 'deberta']);
export const DEFAULTS = Object.freeze({
  task: 'shift-k',
  k: 3,
  symbols: 8,
  trainLength: 16,
  steps: 300,
  batch: 32,
  model: Object.freeze({ dim: 64, layers: 2, heads: 4 }),
  lr: 3e-3,
  seed: 1,
});

// Limits (cpp/train/session.h's kLab* constants).
const MAX_LENGTH = 4096;
const MAX_BATCH = 4096;
const MAX_DIM = 4096;
const MAX_LAYERS = 64;
const MAX_SYMBOLS = 4096;
const MAX_STEPS = 10_000_000;
const DEBERTA_TABLE_ROWS = 32; // 2 · position_buckets (cpp/train/model.h)

const T = 'lab.train';

function abortError(signal) {
  const reason = signal?.reason;
  if (reason instanceof DOMException && reason.name === 'AbortError') return reason;
  return new DOMException('lab.train: aborted', 'AbortError');
}

/** Bytes of one trainer workspace (cpp/train/model.cpp's Trainer constructor, rounded up). */
function trainerBytes({ batch, length, dim, heads, layers, classes }) {
  const rows = batch * length;
  const perLayer = batch * heads * length * length + rows * (12 * dim + 8 * dim) + 4 * rows;
  return 4 * (layers * perLayer + rows * (10 * dim + 4 * dim + 3 * classes) + rows * Math.max(dim, 4 * dim, classes) * 2);
}

/** The options of lab.train, checked and with every default filled in (no functions, no signal). */
/** The names LabTrainOptions and LabModelOptions have (lab.d.ts). */
const TRAIN_OPTIONS = ['task', 'scheme', 'trainLength', 'steps', 'batch', 'model', 'seed', 'lr', 'k', 'symbols', 'maxLength', 'build', 'progressEvery', 'onProgress', 'signal'];
const MODEL_OPTIONS = ['dim', 'layers', 'heads'];

function resolveOptions(options) {
  checkKnownOptions(options, `${T}: options`, TRAIN_OPTIONS);
  const pick = (name, fallback) => (options[name] === undefined ? fallback : options[name]);
  const task = checkChoice(pick('task', DEFAULTS.task), `${T}: task`, TASKS);
  const scheme = checkChoice(options.scheme, `${T}: scheme`, SCHEMES);
  const trainLength = checkInt(pick('trainLength', DEFAULTS.trainLength), `${T}: trainLength`, { max: MAX_LENGTH });
  const maxLength = checkInt(pick('maxLength', Math.min(4 * trainLength, MAX_LENGTH)), `${T}: maxLength`, { max: MAX_LENGTH });
  if (trainLength > maxLength) throw new RangeError(`${T}: trainLength: ${trainLength} exceeds maxLength ${maxLength}`);
  const steps = checkInt(pick('steps', DEFAULTS.steps), `${T}: steps`, { max: MAX_STEPS });
  const batch = checkInt(pick('batch', DEFAULTS.batch), `${T}: batch`, { max: MAX_BATCH });
  const model = options.model === undefined ? {} : checkKnownOptions(options.model, `${T}: model`, MODEL_OPTIONS);
  const dim = checkInt(model.dim === undefined ? DEFAULTS.model.dim : model.dim, `${T}: model.dim`, { max: MAX_DIM });
  const layers = checkInt(model.layers === undefined ? DEFAULTS.model.layers : model.layers, `${T}: model.layers`, { max: MAX_LAYERS });
  const heads = checkInt(model.heads === undefined ? DEFAULTS.model.heads : model.heads, `${T}: model.heads`, { max: dim });
  if (dim % heads !== 0) throw new RangeError(`${T}: model.dim: ${dim} is not divisible by model.heads ${heads}`);
  if (scheme === 'rope' && (dim / heads) % 2 !== 0)
    throw new RangeError(`${T}: model.dim: rope needs an even head size, got model.dim / model.heads = ${dim / heads}`);
  if (scheme === 'sinusoidal' && dim % 2 !== 0) throw new RangeError(`${T}: model.dim: sinusoidal needs an even model.dim, got ${dim}`);
  const seed = checkInt(pick('seed', DEFAULTS.seed), `${T}: seed`, { min: 0, max: Number.MAX_SAFE_INTEGER });
  const lr = checkNumber(pick('lr', DEFAULTS.lr), `${T}: lr`, { positive: true });
  const k = checkInt(pick('k', DEFAULTS.k), `${T}: k`, { max: MAX_LENGTH });
  const symbols = checkInt(pick('symbols', DEFAULTS.symbols), `${T}: symbols`, { min: 2, max: MAX_SYMBOLS });
  if (task === 'shift-k' && trainLength <= k)
    throw new RangeError(`${T}: trainLength: shift-k with k = ${k} needs trainLength > k, got ${trainLength}`);
  if (scheme === 'deberta' && batch * trainLength < DEBERTA_TABLE_ROWS)
    throw new RangeError(`${T}: batch: deberta needs batch · trainLength ≥ ${DEBERTA_TABLE_ROWS} (its relative table rows), got ${batch} · ${trainLength}`);
  const simd = simdSupported();
  const build = checkChoice(pick('build', simd ? 'simd' : 'scalar'), `${T}: build`, ['simd', 'scalar']);
  if (build === 'simd' && !simd) throw new Error(`${T}: build: 'simd' was requested but this engine cannot compile WebAssembly SIMD128 with exceptions`);
  const progressEvery = checkInt(pick('progressEvery', 10), `${T}: progressEvery`);
  if (options.onProgress !== undefined && typeof options.onProgress !== 'function')
    throw new TypeError(`${T}: onProgress: expected a function, got ${describe(options.onProgress)}`);
  const signal = options.signal;
  if (signal !== undefined && (signal === null || typeof signal !== 'object' || typeof signal.aborted !== 'boolean' || typeof signal.addEventListener !== 'function'))
    throw new TypeError(`${T}: signal: expected an AbortSignal, got ${describe(signal)}`);
  const classes = task === 'count-so-far' || task === 'bracket-depth' ? maxLength + 1 : symbols;
  checkMemory(T, {
    'training workspace': trainerBytes({ batch, length: trainLength, dim, heads, layers, classes }),
    'evaluation workspace (maxLength)': trainerBytes({ batch, length: maxLength, dim, heads, layers, classes }),
  });
  const causal = task !== 'reverse';
  return { task, scheme, trainLength, steps, batch, model: { dim, layers, heads }, seed, lr, k, symbols, maxLength, build, progressEvery, causal };
}

function rebuildError({ name, message }) {
  if (name === 'TypeError') return new TypeError(message);
  if (name === 'RangeError') return new RangeError(message);
  return new Error(message);
}

/** A Worker running lab-worker.js, behind one small interface for browsers and Node. */
async function startWorker(handlers) {
  if (isNode) {
    const name = 'node:worker_threads'; // non-literal: bundlers targeting the web must not resolve it
    const { Worker: NodeWorker } = await import(/* webpackIgnore: true */ /* @vite-ignore */ name);
    // Not `new URL('./lab-worker.js', import.meta.url)`: bundlers would take that for an asset; they
    // only need to see the browser Worker below.
    const here = import.meta.url;
    // Workers inherit the process's execArgv; --input-type (node --input-type=module -e …) would stop the file from loading.
    const execArgv = process.execArgv.filter((a) => !a.startsWith('--input-type'));
    const worker = new NodeWorker(new URL('lab-worker.js', here), { execArgv });
    worker.on('message', handlers.message);
    worker.on('error', handlers.error);
    worker.on('exit', (code) => handlers.exit(code));
    return { post: (m) => worker.postMessage(m), terminate: () => worker.terminate(), ref: () => worker.ref(), unref: () => worker.unref() };
  }
  const worker = new Worker(new URL('./lab-worker.js', import.meta.url), { type: 'module' });
  worker.onmessage = (e) => handlers.message(e.data);
  worker.onerror = (e) => {
    e.preventDefault?.();
    handlers.error(new Error(`lab: the worker failed: ${e.message ?? 'could not load lab-worker.js'}`));
  };
  worker.onmessageerror = () => handlers.error(new Error('lab: a message from the worker could not be read'));
  return { post: (m) => worker.postMessage(m), terminate: () => worker.terminate(), ref() {}, unref() {} };
}

class Run {
  #worker;
  #pending;
  #state;

  constructor(worker, pending, state, config, trained) {
    this.#worker = worker;
    this.#pending = pending;
    this.#state = state;
    /** The resolved options (no functions or signal), with causal, maxLength and build. */
    this.config = config;
    /** Float32Array(steps): the loss of every training step. */
    this.losses = trained.losses;
    /** Wall seconds of training (in the worker). */
    this.seconds = trained.seconds;
    /** 3 × forward multiply–add FLOPs × steps. */
    this.flops = trained.flops;
  }

  #request(message) {
    if (this.#state.disposed) return Promise.reject(new Error('lab: this run was disposed'));
    if (this.#state.failed) return Promise.reject(this.#state.failed);
    const id = ++this.#state.nextId;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      if (this.#pending.size === 1) this.#worker.ref();
      this.#worker.post({ ...message, id });
    });
  }

  /** Accuracy at each length: [{ length, accuracy, perSequence, perPosition, sequences }]. */
  async evaluate(lengths, options = {}) {
    const name = 'run.evaluate';
    const list = typeof lengths === 'number' ? [lengths] : lengths;
    if (!Array.isArray(list)) throw new TypeError(`${name}: lengths: expected an array of integers, got ${describe(lengths)}`);
    checkKnownOptions(options, `${name}: options`, ['batches']);
    list.forEach((L, i) => {
      checkInt(L, `${name}: lengths[${i}]`);
      if (L > this.config.maxLength)
        throw new RangeError(`${name}: lengths[${i}]: ${L} exceeds maxLength ${this.config.maxLength} (set lab.train's maxLength)`);
    });
    const batches = checkInt(options.batches === undefined ? 8 : options.batches, `${name}: batches`, { max: 1 << 20 });
    return this.#request({ type: 'evaluate', lengths: list, batches });
  }

  /** One sequence of `length` (seed: its sample seed): tokens, labels, predictions and every head's map. */
  async attention(options = {}) {
    const name = 'run.attention';
    checkKnownOptions(options, `${name}: options`, ['length', 'seed']);
    const length = checkInt(options.length === undefined ? this.config.trainLength : options.length, `${name}: length`);
    if (length > this.config.maxLength)
      throw new RangeError(`${name}: length: ${length} exceeds maxLength ${this.config.maxLength} (set lab.train's maxLength)`);
    const seed = checkInt(options.seed === undefined ? 1 : options.seed, `${name}: seed`, { min: 0, max: Number.MAX_SAFE_INTEGER });
    return this.#request({ type: 'attention', length, seed });
  }

  /** Terminates the worker; later calls reject. */
  dispose() {
    if (this.#state.disposed) return;
    this.#state.disposed = true;
    this.#worker.terminate();
    const error = new Error('lab: this run was disposed');
    for (const { reject } of this.#pending.values()) reject(error);
    this.#pending.clear();
  }

  [Symbol.dispose ?? Symbol.for('Symbol.dispose')]() {
    this.dispose();
  }
}

/**
 * Trains one model in a Worker; resolves to a Run once every step is done. Rejects with TypeError /
 * RangeError / Error for bad options (before any Worker starts), with a DOMException 'AbortError' when
 * `signal` aborts (the Worker is terminated), and with the C++ error's class and message otherwise.
 */
export async function train(options = {}) {
  const config = resolveOptions(options);
  requireWebAssembly('lab.train');
  const { onProgress, signal } = options;
  if (signal?.aborted) throw abortError(signal);
  const pending = new Map();
  const state = { nextId: 0, disposed: false, failed: null };
  let settle;
  const trained = new Promise((resolve, reject) => {
    settle = { resolve, reject };
  });
  let training = true;
  const fail = (error) => {
    if (training) {
      training = false;
      settle.reject(error);
      return;
    }
    state.failed ??= error;
    for (const { reject } of pending.values()) reject(error);
    pending.clear();
  };
  const worker = await startWorker({
    message(data) {
      if (data.type === 'ready') worker.post({ type: 'start', config, progressEvery: config.progressEvery });
      else if (data.type === 'progress') {
        if (training && onProgress) {
          try {
            onProgress({ step: data.step, steps: config.steps, loss: data.loss, learningRate: data.learningRate, seconds: data.seconds });
          } catch (e) {
            fail(e);
          }
        }
      } else if (data.type === 'trained') {
        training = false;
        settle.resolve(data);
      } else if (data.type === 'result' || data.type === 'error') {
        if (data.type === 'error' && data.id === undefined) return fail(rebuildError(data));
        const request = pending.get(data.id);
        if (!request) return;
        pending.delete(data.id);
        if (pending.size === 0) worker.unref();
        if (data.type === 'result') request.resolve(data.value);
        else request.reject(rebuildError(data));
      }
    },
    error(e) {
      fail(e instanceof Error ? e : new Error(`lab: the worker failed: ${e}`));
    },
    exit(code) {
      if (!state.disposed) fail(new Error(`lab: the worker exited (code ${code})`));
    },
  });
  const onAbort = () => {
    state.disposed = true;
    worker.terminate();
    fail(abortError(signal));
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  if (signal?.aborted) onAbort(); // aborted while the worker started
  let result;
  try {
    result = await trained;
  } catch (e) {
    state.disposed = true;
    worker.terminate();
    throw e;
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  worker.unref();
  return new Run(worker, pending, state, { ...config, causal: result.causal, maxLength: result.maxLength }, result);
}

/** The lab: its tasks, schemes, defaults and train(). */
export const lab = Object.freeze({ TASKS, SCHEMES, DEFAULTS, train });
export default lab;
