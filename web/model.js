// Hugging Face checkpoints in the browser and Node: rp.loadModel(source, options) → Model.
//
//   const model = await rp.loadModel('https://example.com/my-model/', { onProgress });
//   const { lastHiddenState } = model.forward({ inputIds: [[101, 7592, 102]] });
//   const out = model.forward({ text: 'hello world' }, { outputAttentions: true });  // needs a tokenizer
//
// Files of a model folder: config.json (required), the weights (model.safetensors, a sharded set or
// pytorch_model.bin — see web/weights.js for the layouts and their order), tokenizer.json or
// spm.model / spiece.model (optional unless text is given; see web/tokenizer.js),
// tokenizer_config.json and special_tokens_map.json (optional), modules.json and the sentence-transformers
// files it leads to (optional; web/sentence-transformers.js, kept as model.sentenceTransformers). `source` is
//   - a Hugging Face Hub id ('owner/name', options host/revision/cache; sources.js, hub.js, cache.js);
//   - a URL prefix (http(s), blob: is not a folder; relative URLs resolve against the page), or under
//     Node a filesystem folder path or file: URL;
//   - a map { 'config.json': File | Blob | ArrayBuffer | Uint8Array | string | object, … } of files the
//     user picked (also accepted wrapped as { files: { … } }).
// Weights cross into the WebAssembly heap once: each weight file is streamed chunk by chunk into a
// heap buffer owned by C++ (ByteBuffer, cpp/bindings/models.cpp), parsed there, converted and packed;
// the raw bytes are freed when loading ends. JS never holds a whole copy.
import { unwrap } from './positions.js';
import { checkBool, checkKnownOptions, checkMemory, checkStrings, describe, MAX_HEAP_BYTES } from './validation.js';
import { openSource } from './sources.js';
import { pool } from './pipelines/feature-extraction.js';
import { loadTokenizer } from './tokenizer.js';
import { readSentenceTransformers } from './sentence-transformers.js';
import { checkVariant, readCheckpoint } from './weights.js';

export const MODEL_FILES = Object.freeze({
  config: 'config.json',
  weights: 'model.safetensors',
  tokenizer: 'tokenizer.json',
  tokenizerConfig: 'tokenizer_config.json',
});

/** Model types whose Hugging Face implementation masks attention causally (decoder stacks). */
const CAUSAL_TYPES = new Set(['transfo-xl', 'bloom', 'mpt', 'llama', 'qwen3']);
/** Whether a config's model attends causally: gemma3_text is bidirectional when use_bidirectional_attention (EmbeddingGemma). */
const isCausal = (type, config) => CAUSAL_TYPES.has(type) || (type === 'gemma3_text' && config.use_bidirectional_attention !== true);
/** Heads whose outputs are the vocabulary, computed at the asked rows only (logitsAt). */
const VOCABULARY_TASKS = new Set(['fill-mask', 'text-generation']);

const disposeSymbol = Symbol.dispose ?? Symbol.for('Symbol.dispose');

// ---- reading files -------------------------------------------------------------------------------

function progressReporter(onProgress, file) {
  if (onProgress === undefined || onProgress === null) return () => {};
  return (loaded, total) => onProgress({ file, loaded, total });
}

async function readJson(src, name, report, { required }) {
  const text = await src.text(name);
  if (text === null) {
    if (required) throw new Error(`${name}: not found at ${src.where(name)} (a model folder needs config.json and its weights)`);
    return null;
  }
  report(text.length, text.length);
  let value;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new Error(`${name} is not valid JSON: ${e.message}`, { cause: e });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error(`${name} must be a JSON object`);
  return { text, value };
}

const DTYPES = ['fp32', 'q8', 'fp16'];
/** options.dtype: 'fp32' (default), 'q8' (8-bit linear-layer weights) or 'fp16' (WebGPU only, shader-f16). */
function checkDtype(dtype) {
  if (dtype === undefined || dtype === null) return 'fp32';
  if (typeof dtype !== 'string') throw new TypeError(`loadModel: dtype: expected one of 'fp32', 'q8', 'fp16', got ${describe(dtype)}`);
  if (!DTYPES.includes(dtype)) throw new RangeError(`loadModel: dtype: expected one of 'fp32', 'q8', 'fp16', got '${dtype}'`);
  return dtype;
}

const DEVICES = ['wasm', 'webgpu', 'auto'];
/** options.device: 'wasm' (default), 'webgpu' or 'auto'. */
function checkDevice(device) {
  if (device === undefined || device === null) return 'wasm';
  if (typeof device !== 'string' || !DEVICES.includes(device))
    throw new TypeError(`loadModel: device: expected one of 'wasm', 'webgpu', 'auto', got ${typeof device === 'string' ? `'${device}'` : describe(device)}`);
  return device;
}

/**
 * Moves `model` onto WebGPU (web/webgpu/, imported only here): the C++ family's plan (cpp/src/plan)
 * run by PlanExecutor, weights uploaded now. Throws an Error with the reason when it cannot.
 */
async function attachWebGpu(model, handle, options, dtype, loadMs, streamed = null) {
  let t = performance.now();
  const W = await import('./webgpu/index.js');
  const ctx = streamed?.ctx ?? (await W.acquireContext(gpuOptions(options)));
  const ms = { context: streamed?.contextMs ?? performance.now() - t, plans: 0, weightValues: 0, uploads: 0, release: 0 };
  loadMs.gpu = ms;
  const timed = (key, fn) => (...args) => {
    const t0 = performance.now();
    try {
      return fn(...args);
    } finally {
      ms[key] += performance.now() - t0;
    }
  };
  if (dtype === 'fp16' && !ctx.shaderF16) {
    ctx.release();
    throw new Error(`webgpu: dtype 'fp16' needs the adapter feature 'shader-f16', which this adapter (${ctx.info.description || ctx.info.device || ctx.info.vendor || 'unnamed'}) does not have${W.f16Hint(ctx.info)}`);
  }
  const source = {
    plan: timed('plans', (batch, seq, hiddenStates, logits = false, positions = 0) => unwrap(handle.plan(batch, seq, hiddenStates, logits, positions))),
    weightValues: timed('weightValues', (i) => unwrap(handle.weightValues(i))), // q8 Linears: { q, scales } (int8 on the GPU)
    gpuBuffer: (id) => streamed.sink.buffer(id), // Linears that streamed straight to the GPU (webgpu/weight-sink.js)
    gpuScales: (id) => streamed.sink.scales(id), // … their scale words, q8
  };
  const executor = new W.PlanExecutor(ctx, source, { dtype: dtype === 'fp16' ? 'f16' : 'f32' });
  try {
    t = performance.now();
    executor.prepare(1, 1, false); // checks the plan and uploads every weight once
    if (handle.head()) executor.prepare(1, 1, false, true, 0); // the task head's too
    await executor.fuseWeights(); // q / k / v and gate / up weights concatenated: one product each (webgpu/fusion.js)
    await ctx.device.queue.onSubmittedWorkDone(); // the uploads (and f16 narrowing) done on the GPU
    // what prepare spent outside the plan recordings and the copies out of WASM: GPU buffers, writes, f16 narrowing
    ms.uploads = performance.now() - t - ms.plans - ms.weightValues;
  } catch (e) {
    executor.destroy();
    streamed?.sink.destroy();
    ctx.release();
    throw e;
  }
  // bytes of weights on the GPU (q8 Linears: int8 words and their scale words; fp16: 2 per value)
  let weightBytes = 0;
  // (each GPU buffer once: a fused GEMM group's weights are views of one buffer, or kept beside it where unaligned)
  const held = new Set([...executor.weights.values(), ...executor.scales.values()].map((b) => (b.offset !== undefined && b.buffer ? b.buffer : b)));
  for (const b of new Set([...held, ...executor.fusedBuffers])) weightBytes += b.size;
  // The GPU holds the weights now: the WASM copies of the Linear layers and embedding tables go (norm gains, biases and
  // scheme tables, a few KB, stay for the plans); a 0.6 B model's weights are not kept twice.
  t = performance.now();
  const freed = unwrap(handle.releaseWeights());
  ms.release = performance.now() - t;
  return { executor, ctx, adapter: ctx.info, weightBytes, wasmWeightBytes: Math.max(0, model.info.weightBytes - freed) };
}

/** The names LoadModelOptions has (index.d.ts); anything else is a TypeError naming the closest. */
export const LOAD_OPTIONS = Object.freeze(['onProgress', 'host', 'revision', 'cache', 'tokenizers', 'dtype', 'variant', 'device', 'gpu', 'gguf', 'subgroups']);

/** createContext's options from loadModel's: the GPU object, and subgroups (false: the kernels' plain reductions). */
function gpuOptions(options) {
  return { gpu: options.gpu, subgroups: options.subgroups ?? true };
}
const FORWARD_OPTIONS = ['outputHiddenStates', 'outputAttentions', 'logits', 'logitsAt', 'pooling', 'normalize', 'outputLastHiddenState'];
const FORWARD_POOLINGS = ['mean', 'cls', 'last_token'];
const FORWARD_INPUTS = ['inputIds', 'attentionMask', 'tokenTypeIds', 'text', 'textPair'];
const GGUF_NAME = /\.gguf$/i;
/** Whether a source may be a GGUF file (then web/io/gguf.js decides): options.gguf, a '.gguf' path or URL, bytes, a map naming one. */
function mayBeGguf(source, options) {
  if (options.gguf !== undefined && options.gguf !== null) return true;
  const text = source instanceof URL ? source.href : source;
  if (typeof text === 'string') return GGUF_NAME.test(text.replace(/[?#].*$/, ''));
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source) || (typeof Blob !== 'undefined' && source instanceof Blob)) return true;
  const files = source && typeof source === 'object' ? (source.files && typeof source.files === 'object' ? source.files : source) : null;
  return Boolean(files) && Object.keys(files).some((n) => GGUF_NAME.test(n));
}

/** Loads a model; see index.d.ts (LoadModelOptions). `runtime` is the Runtime (for its module). */
export async function loadModel(mod, source, options = {}) {
  checkKnownOptions(options, 'loadModel: options', LOAD_OPTIONS);
  let { onProgress } = options;
  if (onProgress !== undefined && onProgress !== null && typeof onProgress !== 'function')
    throw new TypeError(`loadModel: onProgress: expected a function, got ${describe(onProgress)}`);
  const dtype = checkDtype(options.dtype);
  const device = checkDevice(options.device);
  if (options.subgroups !== undefined && options.subgroups !== null) checkBool(options.subgroups, 'loadModel: subgroups');
  if (dtype === 'fp16' && device === 'wasm')
    throw new Error("loadModel: dtype 'fp16' runs on WebGPU only (device 'webgpu', or 'auto' to fall back to fp32 on WebAssembly); on device 'wasm' use 'fp32' or 'q8'");
  const variant = checkVariant(options.variant);
  const started = performance.now();
  const loadMs = { files: 0, weights: 0, build: 0, gpu: null, total: 0 };
  // A GGUF file (web/io/gguf.js, imported only then): a '.gguf' path or URL, its bytes, options.gguf, or a folder
  // or map of files holding GGUF files and no config.json
  const G = mayBeGguf(source, options) ? await import('./io/gguf.js') : null;
  let gguf = G ? await G.ggufSource(source, options) : null;
  const src = gguf?.src ?? (await openSource(source, options)); // options.host, .revision, .cache: Hub ids and the browser cache
  onProgress = src.progress(onProgress); // events say { cached } for files read from the browser cache
  if (!gguf && typeof src.list === 'function') {
    const names = await src.list();
    if (!names.includes(MODEL_FILES.config) && names.some((n) => GGUF_NAME.test(n))) gguf = { src, file: (await import('./io/gguf.js')).ggufInFolder(names) };
  }
  if (gguf) {
    const { loadGguf } = await import('./io/gguf.js');
    loadMs.files = performance.now() - started;
    // device 'webgpu' (fp32, fp16): the linear layers stream to the GPU, never into the heap
    const streamed = device === 'webgpu' ? await streamToGpu(options, dtype).catch((e) => Promise.reject(webGpuError(e))) : null;
    const t = performance.now();
    let g;
    try {
      g = await loadGguf(mod, src, gguf.file, { dtype: dtype === 'fp16' ? 'fp32' : dtype, onProgress, tokenizers: options.tokenizers, weightSink: streamed?.sink });
      streamed?.sink.finish();
    } catch (e) {
      failStreamed(streamed);
      throw e; // the file's own Errors as on WASM (the GPU's say 'webgpu:')
    }
    loadMs.weights = performance.now() - t; // read, decoded and built as the file streams in
    const model = new Model(mod, g.handle, g.config, g.tokenizer, g.recipe);
    model.gguf = g.gguf;
    return attachDevice(model, g.handle, options, dtype, device, loadMs, started, streamed);
  }

  const config = await readJson(src, MODEL_FILES.config, progressReporter(onProgress, MODEL_FILES.config), { required: true });
  const supported = mod.supportedModelTypes();
  const type = config.value.model_type;
  if (type === undefined || type === null)
    throw new Error(`config.json: missing required field 'model_type' (supported: ${supported.join(', ')})`);
  if (!supported.includes(type))
    throw new Error(
      `config.json: unsupported model_type ${typeof type === 'string' ? `'${type}'` : describe(type)} (supported: ${supported.join(', ')})`,
    );

  const tokenizer = await loadTokenizer(src, {
    modelType: type,
    readJson: (name) => readJson(src, name, progressReporter(onProgress, name), { required: false }),
    onProgress,
    tokenizers: options.tokenizers,
  });

  // modules.json, the Pooling config, config_sentence_transformers.json (sentence-transformers.js)
  const sentenceTransformers = await readSentenceTransformers(src, { report: (name) => progressReporter(onProgress, name) });

  // fp16: the CPU model is fp32 (the 'auto' fallback, and the plan's weights, halved on upload)
  const loadOptions = { dtype: dtype === 'fp16' ? 'fp32' : dtype };
  // Families whose tensors StreamedCheckpoint knows convert safetensors as they stream in (weights.js)
  const stream = unwrap(mod.openStream(config.text, loadOptions));
  let handle;
  let t = performance.now();
  loadMs.files = t - started;
  let streamed = null; // device 'webgpu': the linear layers stream to the GPU (q8: as int8 rows), never into the heap
  const toGpu = stream && device === 'webgpu';
  try {
    if (toGpu) {
      streamed = await streamToGpu(options, dtype).catch((e) => Promise.reject(webGpuError(e)));
      unwrap(stream.setWeightSink(streamed.sink));
      t = performance.now(); // its context is loadMs.gpu.context; 'weights' is then reading, converting and writing to the GPU
    }
    const files = await readCheckpoint(mod, src, onProgress, variant, stream);
    streamed?.sink.finish();
    loadMs.weights = performance.now() - t;
    t = performance.now();
    try {
      handle = unwrap(files.length === 0 && stream ? stream.load(config.text) : mod.loadModel(config.text, files, loadOptions));
      loadMs.build = performance.now() - t;
    } finally {
      files.forEach((f) => f.buffer.delete());
    }
  } catch (e) {
    failStreamed(streamed);
    throw e; // the file's own Errors (RangeError when it cannot fit) as on WASM; the GPU's say 'webgpu:'
  } finally {
    stream?.delete();
  }
  const model = new Model(mod, handle, config.value, tokenizer, sentenceTransformers);
  const dim = sentenceTransformers?.poolingDimension ?? null;
  if (dim !== null && dim !== model.info.hiddenSize) {
    model.dispose();
    failStreamed(streamed);
    throw new Error(`${sentenceTransformers.poolingFile}: word_embedding_dimension ${dim} does not match the model's hidden size ${model.info.hiddenSize} (config.json)`);
  }
  const firstDense = sentenceTransformers?.dense?.[0];
  if (dim === null && firstDense && firstDense.inFeatures !== model.info.hiddenSize) {
    model.dispose();
    failStreamed(streamed);
    throw new Error(`sentence-transformers Dense module: in_features ${firstDense.inFeatures} does not match the model's hidden size ${model.info.hiddenSize} (config.json)`);
  }
  return attachDevice(model, handle, options, dtype, device, loadMs, started, streamed);
}

/**
 * Device 'webgpu', a family whose safetensors stream or a GGUF file (fp32, fp16, q8): the GPU context comes first and the
 * stream sends its linear layers there (webgpu/weight-sink.js), so a model larger than the 2 GB WASM heap loads.
 */
async function streamToGpu(options, dtype) {
  const t = performance.now();
  const W = await import('./webgpu/index.js');
  const ctx = await W.acquireContext(gpuOptions(options));
  if (dtype === 'fp16' && !ctx.shaderF16) {
    ctx.release();
    throw new Error(`webgpu: dtype 'fp16' needs the adapter feature 'shader-f16', which this adapter (${ctx.info.description || ctx.info.device || ctx.info.vendor || 'unnamed'}) does not have${W.f16Hint(ctx.info)}`);
  }
  const { GpuWeightSink } = await import('./webgpu/weight-sink.js');
  const sink = new GpuWeightSink(ctx, dtype === 'fp16' ? 'f16' : 'f32');
  return { ctx, sink, contextMs: performance.now() - t };
}

/** An Error of a WebGPU load, worded as attachDevice words them. */
function webGpuError(e) {
  return new Error(`loadModel: device 'webgpu': ${e.message}`, { cause: e });
}

/** A load that streamed to the GPU failed before the executor took the buffers: they and the context go. */
function failStreamed(streamed) {
  streamed?.sink.destroy();
  streamed?.ctx.release();
}

/** device 'webgpu' / 'auto': the model moves to WebGPU (or, for 'auto', says why it stays). */
async function attachDevice(model, handle, options, dtype, device, loadMs, started, streamed = null) {
  if (device !== 'wasm') {
    try {
      model._useWebGpu(await attachWebGpu(model, handle, options, dtype, loadMs, streamed));
    } catch (e) {
      if (device === 'webgpu') {
        model.dispose();
        throw webGpuError(e);
      }
      model._fallBack(e.message);
    }
  }
  loadMs.total = performance.now() - started;
  model._loaded(loadMs);
  return model;
}

// ---- the model -----------------------------------------------------------------------------------

const asIdArray = (row, name) => {
  if (Array.isArray(row) || ArrayBuffer.isView(row)) return Array.from(row, Number);
  throw new TypeError(`${name}: expected an array of token ids (or an array of such arrays), got ${describe(row)}`);
};

/** Normalises ids (one sequence or a batch, ragged allowed) into right-padded Int32Arrays. */
function batchInputs(inputIds, attentionMask, padId) {
  const nested = Array.isArray(inputIds) && inputIds.length > 0 && (Array.isArray(inputIds[0]) || ArrayBuffer.isView(inputIds[0]));
  const rows = nested ? inputIds.map((r, b) => asIdArray(r, `forward: inputIds[${b}]`)) : [asIdArray(inputIds, 'forward: inputIds')];
  let masks = null;
  if (attentionMask !== undefined && attentionMask !== null) {
    masks = nested ? Array.from(attentionMask, (r, b) => asIdArray(r, `forward: attentionMask[${b}]`)) : [asIdArray(attentionMask, 'forward: attentionMask')];
    if (masks.length !== rows.length)
      throw new RangeError(`forward: attentionMask: expected ${rows.length} rows like inputIds, got ${masks.length}`);
    masks.forEach((m, b) => {
      if (m.length !== rows[b].length)
        throw new RangeError(`forward: attentionMask[${b}]: expected ${rows[b].length} entries like inputIds[${b}], got ${m.length}`);
    });
  }
  const batch = rows.length;
  if (batch === 0) throw new RangeError('forward: inputIds: expected at least one sequence');
  const seq = Math.max(...rows.map((r) => r.length));
  if (seq === 0) throw new RangeError('forward: inputIds: expected at least one token');
  const ragged = rows.some((r) => r.length !== seq);
  const ids = new Int32Array(batch * seq).fill(padId);
  const mask = masks || ragged ? new Int32Array(batch * seq) : null;
  rows.forEach((r, b) => {
    r.forEach((id, l) => {
      if (!Number.isInteger(id)) throw new TypeError(`forward: inputIds[${b}][${l}]: expected an integer token id, got ${describe(id)}`);
      ids[b * seq + l] = id;
      if (mask) mask[b * seq + l] = masks ? (masks[b][l] ? 1 : 0) : 1;
    });
  });
  return { ids, mask, batch, seq };
}

/** tokenTypeIds rows (like inputIds) → right-padded Int32Array [batch, seq]. */
function tokenTypesOf(tokenTypeIds, inputIds, batch, seq) {
  const nested = batch > 1 || (Array.isArray(tokenTypeIds) && (Array.isArray(tokenTypeIds[0]) || ArrayBuffer.isView(tokenTypeIds[0])));
  const rows = nested ? Array.from(tokenTypeIds, (r, b) => asIdArray(r, `forward: tokenTypeIds[${b}]`)) : [asIdArray(tokenTypeIds, 'forward: tokenTypeIds')];
  const idRows = nested ? inputIds : [inputIds];
  if (rows.length !== batch) throw new RangeError(`forward: tokenTypeIds: expected ${batch} rows like inputIds, got ${rows.length}`);
  const out = new Int32Array(batch * seq);
  rows.forEach((r, b) => {
    if (r.length !== idRows[b].length)
      throw new RangeError(`forward: tokenTypeIds[${b}]: expected ${idRows[b].length} entries like inputIds[${b}], got ${r.length}`);
    r.forEach((t, l) => {
      if (!Number.isInteger(t)) throw new TypeError(`forward: tokenTypeIds[${b}][${l}]: expected an integer segment id, got ${describe(t)}`);
      out[b * seq + l] = t;
    });
  });
  return out;
}

/** options.logitsAt ([[b, l], …], masked-LM and causal-LM heads only) → flat positions b·seq + l, or undefined. */
function logitsPositions(logitsAt, logits, head, batch, seq) {
  if (logitsAt === undefined || logitsAt === null) return undefined;
  if (!logits) throw new TypeError('forward: logitsAt needs logits: true');
  if (!VOCABULARY_TASKS.has(head.task)) throw new TypeError(`forward: logitsAt is for masked-LM and causal-LM heads; this head is '${head.task}'`);
  if (!Array.isArray(logitsAt) || logitsAt.length === 0)
    throw new TypeError(`forward: logitsAt: expected a non-empty array of [batch index, token index] pairs, got ${describe(logitsAt)}`);
  return logitsAt.map((p, i) => {
    if (!Array.isArray(p) || p.length !== 2 || !Number.isInteger(p[0]) || !Number.isInteger(p[1]))
      throw new TypeError(`forward: logitsAt[${i}]: expected [batch index, token index], got ${describe(p)}`);
    if (p[0] < 0 || p[0] >= batch || p[1] < 0 || p[1] >= seq)
      throw new RangeError(`forward: logitsAt[${i}] = [${p[0]}, ${p[1]}] is outside the batch [${batch}, ${seq}]`);
    return p[0] * seq + p[1];
  });
}

/** The head's flat logits as the task's tensors: QA splits start/end; masked LM over every token is [B, L, V]. */
function shapeHeadOutputs(result, head, batch, seq, positions) {
  const { data } = result.logits;
  if (head.task === 'question-answering') {
    const start = new Float32Array(batch * seq), end = new Float32Array(batch * seq);
    for (let i = 0; i < batch * seq; ++i) {
      start[i] = data[2 * i];
      end[i] = data[2 * i + 1];
    }
    delete result.logits;
    result.startLogits = { data: start, dims: [batch, seq] };
    result.endLogits = { data: end, dims: [batch, seq] };
  } else if (VOCABULARY_TASKS.has(head.task) && !positions) {
    result.logits.dims = [batch, seq, head.outputs];
  }
}

export class Model {
  #mod;
  #handle;
  #disposed = false;
  #gpu = null; // { executor, adapter } when the model runs on WebGPU

  constructor(mod, handle, config, tokenizer, sentenceTransformers = null) {
    this.#mod = mod;
    this.#handle = handle;
    /** config.json as parsed (Hugging Face field names). */
    this.config = config;
    const info = handle.config();
    /** The configuration relpos resolved (Hugging Face defaults applied, family names unified). */
    this.info = Object.freeze({ ...info, causal: isCausal(info.modelType, config), threads: mod.numThreads(), device: 'wasm', deviceReason: null });
    /** Label names of the classification head (sequence or token) in id order, or null when there is none. */
    const labels = handle.labels();
    this.labels = labels.length ? Object.freeze(labels) : null;
    /**
     * The checkpoint's task head, or null: { task: 'text-classification' | 'token-classification' |
     * 'question-answering' | 'fill-mask' | 'text-generation' (a causal LM: Qwen3ForCausalLM, whose logits a reranker
     * reads), labels (null for QA, fill-mask and text-generation), outputs }.
     */
    const head = handle.head();
    this.head = head ? Object.freeze({ task: head.task, labels: head.labels.length ? Object.freeze(head.labels) : null, outputs: head.outputs }) : null;
    /** The @huggingface/tokenizers Tokenizer built from tokenizer.json or spm.model / spiece.model, or null. */
    this.tokenizer = tokenizer;
    /**
     * The sentence-transformers recipe of the folder (modules.json, the Pooling config,
     * config_sentence_transformers.json, sentence_bert_config.json; web/sentence-transformers.js), or
     * null without modules.json. pipeline('feature-extraction') takes its defaults from it.
     */
    this.sentenceTransformers = sentenceTransformers;
    /**
     * A model loaded from a GGUF file: { file, architecture, metadata, rankLabels } (web/io/gguf.js), else null.
     */
    this.gguf = null;
  }

  /** @internal loadModel: the model runs on WebGPU from now on. */
  _useWebGpu(gpu) {
    this.#gpu = gpu;
    const dtype = gpu.executor.dtype === 'f16' ? 'fp16' : this.info.dtype;
    this.info = Object.freeze({
      ...this.info, device: 'webgpu', deviceReason: null, deviceLost: null, adapter: gpu.adapter, dtype, gpuWeightBytes: gpu.weightBytes,
      wasmWeightBytes: gpu.wasmWeightBytes,
    });
    // A lost device (driver reset, device.destroy(), the browser reclaiming it) shows in info.deviceLost.
    gpu.ctx.lost.then((lost) => this.#deviceLost(lost));
  }

  #deviceLost(lost) {
    if (this.#disposed || this.info.deviceLost) return;
    this.info = Object.freeze({ ...this.info, deviceLost: Object.freeze({ reason: lost.reason, message: lost.message }) });
  }

  /** @internal loadModel: where the load's time went (info.loadMs, milliseconds rounded to 0.1). */
  _loaded(loadMs) {
    const round = (o) => Object.freeze(Object.fromEntries(Object.entries(o).map(([k, v]) => [k, v === null ? null : typeof v === 'number' ? Math.round(v * 10) / 10 : round(v)])));
    this.info = Object.freeze({ ...this.info, loadMs: round(loadMs) });
  }

  /** @internal loadModel with device 'auto': stays on WebAssembly, for `reason`. */
  _fallBack(reason) {
    this.info = Object.freeze({ ...this.info, device: 'wasm', deviceReason: reason });
  }

  #check(what) {
    if (this.#disposed) throw new Error(`${what}: this model has been disposed`);
  }

  /** Token ids of one text or a batch (right-padded); needs a tokenizer. */
  encode(text, options = {}) {
    this.#check('encode');
    const { textPair } = checkKnownOptions(options, 'encode: options', ['textPair']);
    if (!this.tokenizer)
      throw new Error('encode: this model was loaded without tokenizer.json (or spm.model / spiece.model), so it cannot take text; pass inputIds instead');
    const texts = checkStrings(text, 'encode: text').list;
    const pairs = textPair === undefined ? null : typeof textPair === 'string' ? texts.map(() => textPair) : checkStrings(textPair, 'encode: textPair', { allowSingle: false }).list;
    if (pairs && pairs.length !== texts.length)
      throw new TypeError(`encode: textPair: expected a string or ${texts.length} strings (one per text), got ${describe(textPair)}`);
    const enc = texts.map((t, i) => this.tokenizer.encode(t, pairs ? { text_pair: pairs[i] } : undefined));
    const out = { inputIds: enc.map((e) => e.ids), attentionMask: enc.map((e) => e.attention_mask), tokens: enc.map((e) => e.tokens) };
    // Segment ids of a pair, as Hugging Face's tokenizers give them: 0 for the first text with its
    // special tokens ([CLS] a [SEP]), 1 for the rest (b [SEP]); none for a model with one token type
    // (RoBERTa family: type_vocab_size 1, all 0 as XLMRobertaTokenizer gives them).
    const typeVocab = this.config.type_vocab_size;
    if (pairs && !(Number.isInteger(typeVocab) && typeVocab <= 1)) {
      out.tokenTypeIds = texts.map((t, i) => {
        const first = this.tokenizer.encode(t).ids.length;
        return enc[i].ids.map((_, l) => (l < first ? 0 : 1));
      });
    }
    return out;
  }

  /**
   * Runs the encoder. inputs: { inputIds, attentionMask?, tokenTypeIds? } (one sequence or a batch;
   * ragged rows are right-padded) or { text, textPair? } (string or string[]). options:
   * { outputHiddenStates, outputAttentions, logits, logitsAt, pooling, normalize, outputLastHiddenState };
   * `logits` adds the task head's output (see index.d.ts: [B, labels], [B, L, labels], startLogits/endLogits
   * [B, L], or masked-LM [P, vocab] at logitsAt = [[b, l], …], [B, L, vocab] without it). `pooling`
   * ('mean' | 'cls' | 'last_token', optionally `normalize`d) adds `pooled` [B, H] and drops lastHiddenState
   * and poolerOutput unless outputLastHiddenState: true; on WebGPU the pooling runs on the GPU and only
   * [B, H] is read back.
   * On a model loaded with device 'webgpu' (info.device), forward returns a Promise of that object;
   * forwardAsync does so on every model.
   */
  forward(inputs, options = {}) {
    this.#check('forward');
    checkKnownOptions(inputs, 'forward: inputs', FORWARD_INPUTS);
    checkKnownOptions(options, 'forward: options', FORWARD_OPTIONS);
    const outputHiddenStates = checkBool(options.outputHiddenStates ?? false, 'forward: outputHiddenStates');
    const outputAttentions = checkBool(options.outputAttentions ?? false, 'forward: outputAttentions');
    const logits = checkBool(options.logits ?? false, 'forward: logits');
    const pooling = options.pooling ?? null;
    if (pooling !== null && !FORWARD_POOLINGS.includes(pooling))
      throw new Error(`forward: pooling: expected 'mean', 'cls' or 'last_token', got ${describe(pooling)}`);
    const normalize = checkBool(options.normalize ?? false, 'forward: normalize');
    if (normalize && pooling === null) throw new Error("forward: normalize needs pooling ('mean', 'cls' or 'last_token')");
    const outputLastHiddenState = checkBool(options.outputLastHiddenState ?? pooling === null, 'forward: outputLastHiddenState');
    if (!outputLastHiddenState && pooling === null) throw new Error('forward: outputLastHiddenState: false needs pooling (else the call would return nothing)');
    const pooled = pooling === null ? null : { mode: pooling, normalize, lastHiddenState: outputLastHiddenState };
    let { inputIds, attentionMask, tokenTypeIds } = inputs;
    let tokens;
    if (inputs.text !== undefined) {
      if (inputIds !== undefined) throw new TypeError('forward: inputs: give either text or inputIds, not both');
      ({ inputIds, attentionMask, tokens, tokenTypeIds } = this.encode(inputs.text, { textPair: inputs.textPair }));
    } else if (inputIds === undefined) {
      throw new TypeError('forward: inputs: expected { inputIds } or { text }');
    }
    if (logits && !this.head)
      throw new Error('forward: logits: this checkpoint has no task head (…ForSequenceClassification, …ForTokenClassification, …ForQuestionAnswering, …ForMaskedLM or Qwen3ForCausalLM weights)');
    const padId = Number.isInteger(this.config.pad_token_id) ? this.config.pad_token_id : 0;
    const { ids, mask, batch, seq } = batchInputs(inputIds, attentionMask, padId);
    const types = tokenTypeIds === undefined || tokenTypeIds === null ? null : tokenTypesOf(tokenTypeIds, inputIds, batch, seq);
    const positions = logitsPositions(options.logitsAt, logits, this.head, batch, seq);
    if (this.#gpu) return this.#forwardGpu({ ids, mask, types, batch, seq, tokens, outputHiddenStates, outputAttentions, logits, positions, pooled });
    // Lower bound of the memory this call needs (outputs + one layer's activations), checked before
    // the call; the exact need is enforced in C++ (std::bad_alloc → RangeError).
    const { hiddenSize: h, numLayers: layers, numHeads: nh, intermediateSize: ff } = this.info;
    const tokens4 = 4 * batch * seq;
    checkMemory('forward', {
      'ids and mask': 2 * tokens4,
      lastHiddenState: tokens4 * h,
      hiddenStates: outputHiddenStates ? (layers + 1) * tokens4 * h : 0,
      attentions: outputAttentions ? layers * tokens4 * nh * seq : 0,
      'activations (at least)': tokens4 * (4 * h + ff),
    });
    const mod = this.#mod;
    const block = mod._malloc(12 * ids.length) >>> 0;
    if (!block)
      throw new RangeError(
        `forward: out of WebAssembly memory: could not allocate ${12 * ids.length} bytes with the heap at ${mod.HEAP8.buffer.byteLength} bytes, limit ${MAX_HEAP_BYTES} bytes`,
      );
    let result;
    try {
      mod.HEAP32.set(ids, block >>> 2);
      if (mask) mod.HEAP32.set(mask, (block >>> 2) + ids.length);
      if (types) mod.HEAP32.set(types, (block >>> 2) + 2 * ids.length);
      result = unwrap(
        this.#handle.forward(batch, seq, block, mask ? block + 4 * ids.length : 0, types ? block + 8 * ids.length : 0,
                             outputHiddenStates, outputAttentions, logits, positions),
      );
    } finally {
      mod._free(block);
    }
    if (logits) shapeHeadOutputs(result, this.head, batch, seq, positions);
    const padded = new Int32Array(ids);
    result.inputIds = { data: padded, dims: [batch, seq] };
    result.attentionMask = { data: mask ? new Int32Array(mask) : new Int32Array(ids.length).fill(1), dims: [batch, seq] };
    if (pooled) {
      // the same pooled rows as the GPU's (kernels/pooling.js); the pooler output goes with the last hidden state
      result.pooled = pool(result.lastHiddenState, result.attentionMask, { pooling: pooled.mode, normalize: pooled.normalize });
      if (!pooled.lastHiddenState) {
        delete result.lastHiddenState;
        delete result.poolerOutput;
      }
    }
    if (tokens) result.tokens = tokens;
    return result;
  }

  /** forward() as a Promise, on either device. */
  async forwardAsync(inputs, options = {}) {
    return this.forward(inputs, options);
  }

  async #forwardGpu({ ids, mask, types, batch, seq, tokens, outputHiddenStates, outputAttentions, logits, positions, pooled }) {
    if (outputAttentions) throw new Error('forward: outputAttentions is not available on WebGPU (the attention kernel never forms the L×L probabilities); load with device \'wasm\'');
    const at = positions ? Int32Array.from(positions) : null;
    // A lost GPU device ends the call in an Error saying so (GpuContext.guard): no hang, no stale outputs.
    const { ctx, executor } = this.#gpu;
    let out;
    try {
      out = await ctx.guard('forward', () => executor.forward({ batch, seq, ids, mask, types, hiddenStates: outputHiddenStates, logits, positions: at, pool: pooled }));
    } catch (e) {
      if (e.deviceLost) this.#deviceLost(e.deviceLost);
      throw e;
    }
    this.#check('forward');
    const H = this.info.hiddenSize;
    const result = {};
    if (out.lastHiddenState) result.lastHiddenState = { data: out.lastHiddenState, dims: [batch, seq, H] };
    if (out.pooled) result.pooled = { data: out.pooled, dims: [batch, H] };
    if (outputHiddenStates) result.hiddenStates = out.hiddenStates.map((data) => ({ data, dims: [batch, seq, H] }));
    if (out.poolerOutput) result.poolerOutput = { data: out.poolerOutput, dims: [batch, H] };
    if (logits) {
      // the binding's shapes (cpp/bindings/models.cpp forward), then the task's tensors as on WASM
      const n = this.head.outputs, task = this.head.task;
      const dims = task === 'text-classification' ? [batch, n] : VOCABULARY_TASKS.has(task) ? [at ? at.length : batch * seq, n] : [batch, seq, n];
      result.logits = { data: out.logits, dims };
      shapeHeadOutputs(result, this.head, batch, seq, positions);
    }
    result.inputIds = { data: new Int32Array(ids), dims: [batch, seq] };
    result.attentionMask = { data: mask ? new Int32Array(mask) : new Int32Array(ids.length).fill(1), dims: [batch, seq] };
    if (tokens) result.tokens = tokens;
    return result;
  }

  /** Frees the model's WebAssembly memory (and its GPU buffers); the model cannot be used afterwards. */
  dispose() {
    if (this.#disposed) return;
    this.#disposed = true;
    if (this.#gpu) {
      this.#gpu.executor.destroy();
      this.#gpu.ctx.release();
    }
    this.#handle.delete();
  }

  [disposeSymbol]() {
    this.dispose();
  }
}
