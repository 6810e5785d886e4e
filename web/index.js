// relpos — SIMD WebAssembly attention kernels for every position scheme.
//
//   const rp = await init({ simd: 'auto' });
//   const { output } = rp.attention({ q, k, v, batch, heads, seqLen, headDim, scheme: { type: 'rope' } });
//
// Inputs cross into the WebAssembly heap once per call (module malloc + HEAPF32.set, freed in
// `finally`), results come back as fresh Float32Arrays the caller owns, and one relpos::Workspace
// per runtime is reused so that repeated calls do not grow the heap. Without probs/terms, q, k, v
// and output cross a few (batch, head) slices at a time (at most STREAM_BYTES of them), so a long
// sequence needs little heap beyond one head's worth. Bad arguments throw
// TypeError / RangeError / Error before any WebAssembly memory is touched (validation.js).
import { INIT_OPTIONS, loadModule, requireWebAssembly, simdSupported } from './loader.js';
import { planThreads, requestedThreads } from './threads.js';
import { loadModel as loadModelInto } from './model.js';
import { createPositions, unwrap } from './positions.js';
import { normalizeScheme, SCHEME_TYPES } from './schemes.js';
import { checkBool, checkFloat32, checkInt, checkKnownOptions, checkMemory, describe, MAX_HEAP_BYTES, product } from './validation.js';

export { simdSupported } from './loader.js';
export { pipeline, pool, PIPELINE_TASKS, TASK_ALIASES } from './pipelines.js';
import { pipeline, PIPELINE_TASKS, setRuntimeFactory, TASK_ALIASES } from './pipelines.js';
export { clearCache, CACHE_NAME } from './cache.js';
export { lab } from './lab.js';
import { lab } from './lab.js';
import { clearCache } from './cache.js';

/** The package version. */
export const version = '0.1.0';
export { SCHEME_TYPES } from './schemes.js';

const disposeSymbol = Symbol.dispose ?? Symbol.for('Symbol.dispose');
const FACTORY_BY_TYPE = {};

const ATTENTION_OPTIONS = ['q', 'k', 'v', 'batch', 'heads', 'seqLen', 'headDim', 'mask', 'causal', 'window', 'scheme', 'returnProbs', 'returnTerms'];

/**
 * Loads the SIMD128 or scalar build. `simd`: true, false or 'auto' (default: SIMD when the engine
 * validates a SIMD128 module). `wasmPaths`: where the .wasm files are hosted (see index.d.ts).
 * `threads`: 'auto' or a count (default 1): more than one loads relpos-simd-threads when the engine
 * can run it (threads.js), else the single-thread build; rp.threads / rp.threadsReason say which.
 * A threads build whose Workers cannot start falls back to one thread, with the reason.
 */
export async function init(options = {}) {
  checkKnownOptions(options, 'init: options', INIT_OPTIONS);
  requireWebAssembly('init');
  const simd = options.simd === undefined ? 'auto' : options.simd;
  if (simd !== true && simd !== false && simd !== 'auto')
    throw new TypeError(`init: simd: expected true, false or 'auto', got ${describe(simd)}`);
  const requested = await requestedThreads(options.threads);
  const useSimd = simd === 'auto' ? simdSupported() : simd;
  if (useSimd && !simdSupported())
    throw new Error('init: simd: true was requested but this engine cannot compile WebAssembly SIMD128');
  const plan = planThreads(requested, useSimd);
  let mod;
  let variant = plan.variant;
  try {
    mod = await loadModule(variant, options.wasmPaths, variant === 'simd-threads' ? requested - 1 : 0);
  } catch (e) {
    if (!e.workerStart) throw e;
    // the documented fall-back (docs/runtime.md): one thread, and threadsReason says why
    plan.reason = `the threads build could not start its Workers (${e.message.replace(/^a Worker could not start: /, '')})`;
    variant = 'simd';
    mod = await loadModule(variant, options.wasmPaths);
  }
  const threads = mod.setNumThreads(variant === 'simd-threads' ? requested : 1);
  const reason = threads < requested ? plan.reason ?? `only ${threads} of ${requested} threads could be started` : null;
  return new Runtime(mod, useSimd, threads, reason);
}

const align16 = (n) => (n + 15) & ~15;
/** Heap bytes of q, k, v and output that one streamed chunk of (batch, head) slices may use. */
const STREAM_BYTES = 8 * 2 ** 20;

/** Lays out several buffers in one malloc'd block; offsets are 16-byte aligned. */
function layout(sizesInBytes) {
  let total = 0;
  const offsets = sizesInBytes.map((bytes) => {
    const at = total;
    total += align16(bytes);
    return at;
  });
  return { offsets, total: Math.max(total, 16) };
}

class Runtime {
  #mod;
  #workspace;
  #disposed = false;

  constructor(mod, simd, threads = 1, threadsReason = null) {
    this.#mod = mod;
    this.#workspace = new mod.Workspace();
    /** True when the SIMD128 build was loaded. */
    this.simd = simd;
    /** Threads this runtime computes with (1 unless init({ threads }) asked for more and got them). */
    this.threads = threads;
    /** Why fewer threads run than init({ threads }) asked for, or null. */
    this.threadsReason = threadsReason;
    /** The package version. */
    this.version = version;
    /** Scheme types this build provides. */
    this.schemes = Object.freeze(SCHEME_TYPES.filter((t) => mod.availableSchemes().includes(t)));
    /** Position tables and index maps. */
    this.positions = createPositions(mod);
  }

  /** Current size of the WebAssembly heap in bytes (it only ever grows). */
  get heapBytes() {
    return this.#mod.HEAP8.buffer.byteLength;
  }

  /** Runs attention; see index.d.ts for the options and the result. */
  attention(options) {
    if (this.#disposed) throw new Error('attention: this relpos runtime has been disposed');
    checkKnownOptions(options, 'attention: options', ATTENTION_OPTIONS);
    const { q, k, v, mask } = options;
    const batch = checkInt(options.batch, 'attention: batch');
    const heads = checkInt(options.heads, 'attention: heads');
    const seqLen = checkInt(options.seqLen, 'attention: seqLen');
    const headDim = checkInt(options.headDim, 'attention: headDim');
    const n = product('attention: batch·heads·seqLen·headDim', batch, heads, seqLen, headDim);
    for (const [name, array] of [['q', q], ['k', k], ['v', v]]) {
      checkFloat32(array, `attention: ${name}`);
      if (array.length !== n)
        throw new RangeError(
          `attention: ${name}: expected batch·heads·seqLen·headDim = ${batch}·${heads}·${seqLen}·${headDim} = ${n} floats, got Float32Array(${array.length})`,
        );
    }
    const hasMask = mask !== undefined && mask !== null;
    if (hasMask) {
      if (!(mask instanceof Uint8Array))
        throw new TypeError(`attention: mask: expected a Uint8Array of [batch, seqLen] (nonzero = key visible), got ${describe(mask)}`);
      if (mask.length !== batch * seqLen)
        throw new RangeError(`attention: mask: expected batch·seqLen = ${batch}·${seqLen} = ${batch * seqLen} bytes, got Uint8Array(${mask.length})`);
    }
    const causal = checkBool(options.causal ?? false, 'attention: causal');
    // Sliding window: query i attends keys |i − j| ≤ window (a banded schedule); omitted = full attention.
    const window = options.window === undefined || options.window === null ? -1 : checkInt(options.window, 'attention: window (keys with |i − j| ≤ window; omit for full attention)', { min: 0 });
    const returnProbs = checkBool(options.returnProbs ?? false, 'attention: returnProbs');
    const returnTerms = checkBool(options.returnTerms ?? false, 'attention: returnTerms');
    if (options.scheme === undefined) throw new Error(`attention: scheme: expected a scheme object such as { type: 'none' }, got undefined`);
    const scheme = normalizeScheme(options.scheme, 'attention: scheme');
    const mod = this.#mod;
    const params = scheme.params ? { ...scheme.params } : null;
    scheme.check({ batch, heads, seqLen, headDim }, params);
    if (typeof mod[scheme.factory] !== 'function')
      throw new Error(`attention: scheme.type: '${scheme.type}' is not available in this build (available: ${this.schemes.join(', ')})`);
    // Memory needed, checked against the limit before anything is allocated: the buffers of this
    // call plus a lower bound of the C++ workspace (K/V panels and, streaming, a block of logits).
    const scores = returnProbs || returnTerms ? batch * heads * seqLen * seqLen : 0;
    if (!Number.isSafeInteger(scores))
      throw new RangeError(`attention: batch·heads·seqLen·seqLen = ${batch}·${heads}·${seqLen}·${seqLen} overflows (more than 2^53 scores), far beyond the limit of ${MAX_HEAP_BYTES} bytes`);
    const tableEntries = Object.entries(scheme.tables);
    const tableBytes = tableEntries.map(([, t]) => (t ? t.byteLength : 0));
    // (batch, head) slices per heap round trip: all of them when probs/terms are wanted (they are
    // [batch, heads, seq, seq] results anyway), otherwise as many as fit in STREAM_BYTES (at least one).
    const slices = batch * heads;
    const sliceFloats = seqLen * headDim;
    const perChunk = returnProbs || returnTerms ? slices : Math.min(slices, Math.max(1, Math.floor(STREAM_BYTES / (16 * sliceFloats))));
    const chunkFloats = perChunk * sliceFloats;
    const memory = {
      'q, k, v, output': 16 * chunkFloats,
      probs: returnProbs ? 4 * scores : 0,
      'terms (content + scheme terms, at least)': returnTerms ? 4 * scores : 0,
      mask: hasMask ? mask.length : 0,
      tables: tableBytes.reduce((a, b) => a + b, 0),
      'workspace (at least)': 4 * (2 * seqLen * headDim + (returnProbs ? 0 : Math.min(64, seqLen) * (window < 0 ? seqLen : Math.min(seqLen, 64 + 2 * window)))),
    };
    checkMemory('attention', memory);

    // --- WebAssembly memory from here on ---
    let tablesBlock = 0;
    let block = 0;
    let handle = null;
    try {
      // 1. Tables, then the scheme object pointing at them.
      if (tableEntries.length) {
        const tl = layout(tableBytes);
        tablesBlock = this.#malloc(tl.total);
        tableEntries.forEach(([field, table], i) => {
          if (table) {
            mod.HEAPF32.set(table, (tablesBlock + tl.offsets[i]) >>> 2);
            params[field] = tablesBlock + tl.offsets[i];
          } else {
            params[field] = 0;
          }
        });
      }
      if (params)
        for (const [key, value] of Object.entries(params))
          if (value && typeof value === 'object' && value.enum) params[key] = mod[value.enum][value.value];
      handle = unwrap(params ? mod[scheme.factory](params) : mod[scheme.factory]());
      const termNames = ['content', ...handle.termNames()];

      // 2. One chunk's q, k, v, output, plus probs, terms and mask, in one block.
      const nTerms = returnTerms ? termNames.length : 0;
      const sizes = [4 * chunkFloats, 4 * chunkFloats, 4 * chunkFloats, 4 * chunkFloats, returnProbs ? 4 * scores : 0];
      for (let t = 0; t < nTerms; ++t) sizes.push(4 * scores);
      sizes.push(hasMask ? mask.length : 0);
      const l = layout(sizes);
      if (nTerms > 1) checkMemory('attention', { ...memory, 'terms (content + scheme terms, at least)': nTerms * 4 * scores });
      block = this.#malloc(l.total);
      const at = (i) => block + l.offsets[i];
      const termPtrs = [];
      for (let t = 0; t < nTerms; ++t) termPtrs.push(at(5 + t));
      const maskPtr = hasMask ? at(5 + nTerms) : 0;
      if (hasMask) mod.HEAPU8.set(mask, maskPtr);

      // 3. Chunks of slices through the heap; output copied out after each (HEAPF32 re-read every
      // time: the heap may have grown).
      const output = new Float32Array(n);
      for (let s0 = 0; s0 < slices; s0 += perChunk) {
        const s1 = Math.min(slices, s0 + perChunk);
        const from = s0 * sliceFloats, to = s1 * sliceFloats;
        mod.HEAPF32.set(q.subarray(from, to), at(0) >>> 2);
        mod.HEAPF32.set(k.subarray(from, to), at(1) >>> 2);
        mod.HEAPF32.set(v.subarray(from, to), at(2) >>> 2);
        unwrap(
          mod.attention(
            { batch, heads, seq: seqLen, headDim },
            at(0), at(1), at(2), maskPtr, causal, window, handle,
            at(3), returnProbs ? at(4) : 0, termPtrs, this.#workspace, 64, s0, s1,
          ),
        );
        output.set(mod.HEAPF32.subarray(at(3) >>> 2, (at(3) >>> 2) + (to - from)), from);
      }

      // 4. Fresh copies for the caller.
      const heap = mod.HEAPF32;
      const result = { output };
      if (returnProbs) result.probs = heap.slice(at(4) >>> 2, (at(4) >>> 2) + scores);
      if (returnTerms) {
        result.terms = {};
        termNames.forEach((name, t) => {
          result.terms[name] = heap.slice(termPtrs[t] >>> 2, (termPtrs[t] >>> 2) + scores);
        });
      }
      return result;
    } finally {
      if (handle) handle.delete();
      if (block) mod._free(block);
      if (tablesBlock) mod._free(tablesBlock);
    }
  }

  /** Model types loadModel() accepts (config.json's model_type). */
  get modelTypes() {
    return Object.freeze(this.#mod.supportedModelTypes());
  }

  /**
   * Loads a Hugging Face checkpoint (config.json, model.safetensors, optional tokenizer.json) from a
   * URL prefix, a folder (Node) or a map of files; see index.d.ts and web/model.js.
   */
  async loadModel(source, options = {}) {
    if (this.#disposed) throw new Error('loadModel: this relpos runtime has been disposed');
    return loadModelInto(this.#mod, source, options);
  }

  /**
   * Loads BGE-M3 (BAAI/bge-m3 or a folder laid out like it): the XLM-RoBERTa model (same source and options as
   * loadModel) and its colbert_linear.pt / sparse_linear.pt heads → BgeM3 { encode, computeScore, … }
   * (web/pipelines/bge-m3.js, imported on first use).
   */
  async loadBgeM3(source, options = {}) {
    if (this.#disposed) throw new Error('loadBgeM3: this relpos runtime has been disposed');
    const { loadBgeM3 } = await import('./pipelines/bge-m3.js');
    return loadBgeM3(this.#mod, source, options);
  }

  /**
   * Empties the browser cache of downloaded model files (Cache API; see web/cache.js). Resolves to
   * the number of files removed (0 under Node, which has no cache).
   */
  clearCache() {
    return clearCache();
  }

  #malloc(bytes) {
    const p = this.#mod._malloc(bytes) >>> 0; // an address ≥ 2^31 reads back negative from wasm
    if (!p)
      throw new RangeError(
        `attention: out of WebAssembly memory: could not allocate ${bytes} bytes with the heap at ${this.heapBytes} bytes, limit ${MAX_HEAP_BYTES} bytes`,
      );
    return p;
  }

  /** Frees the runtime's scratch memory; the runtime cannot be used afterwards. */
  dispose() {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#workspace.delete();
  }

  [disposeSymbol]() {
    this.dispose();
  }
}

setRuntimeFactory((options) => init(options));

export default { init, simdSupported, SCHEME_TYPES, version, pipeline, PIPELINE_TASKS, TASK_ALIASES, clearCache, lab };
