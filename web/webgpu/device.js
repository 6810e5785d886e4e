// The GPUDevice that relpos's WebGPU kernels run on.
//
//   const ctx = await createContext({ gpu });   // gpu: a GPU object (navigator.gpu or webgpu's create([]))
//   const ctx = await acquireContext({ gpu });  // the same, shared by every holder of that GPU object and those
//                                               // options (loadModel's models); ctx.release() when done
//   ctx.info      → { vendor, architecture, device, description, backend: 'webgpu', source, subgroups,
//                     subgroupMinSize, subgroupMaxSize }
//   ctx.features  → adapter features granted to the device (e.g. 'shader-f16', 'timestamp-query', 'subgroups')
//   ctx.subgroups → whether the kernels' reductions (norms, pooling's normalize) use subgroup operations: the
//                   adapter has the feature 'subgroups', the WGSL language feature 'subgroup_id' exists, and
//                   createContext({ subgroups: false }) did not switch them off (kernels/reduce.js)
//   ctx.limits    → the limits the device was created with (the adapter's maxima for the ones below)
//
// Where the GPU object comes from, in order: options.gpu; globalThis.navigator.gpu (browsers, or a
// Node process that installed one); in Node, the npm package `webgpu` (Dawn's Node binding), whose
// create([]) returns one. Dawn on Linux opens libvulkan.so.1 and whatever Vulkan driver the loader
// finds (VK_ICD_FILENAMES picks one, e.g. Chromium's SwiftShader for tests on a CPU).
// No adapter → an Error saying what was tried. A lost device (driver reset, device.destroy(), a browser
// reclaiming it) is reported in ctx.lost (a promise of { reason, message }) and ctx.lostInfo (null until
// then); ctx.guard(what, fn) runs GPU work that ends in an Error saying so (error.deviceLost) instead of a
// hang or stale results when the device is lost before or during it.

const isNode = typeof process !== 'undefined' && !!process.versions?.node && typeof window === 'undefined';

/** Limits asked for at the adapter's maximum: big weights, big workgroup tiles. */
const RAISED_LIMITS = [
  'maxStorageBufferBindingSize',
  'maxBufferSize',
  'maxComputeWorkgroupStorageSize',
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupSizeX',
  'maxComputeWorkgroupSizeY',
  'maxStorageBuffersPerShaderStage',
];

const describe = (v) => (v === null ? 'null' : typeof v === 'object' ? (v.constructor?.name ?? 'object') : `${typeof v} ${String(v)}`);

let nodeGpu = null; // the npm package 'webgpu''s GPU object, created once

const SWIFTSHADER_HINT = 'a GPU driver, or VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json for SwiftShader on the CPU';

/**
 * Linux: null when the Vulkan loader can find a driver (an ICD manifest where it looks, or VK_ICD_FILENAMES /
 * VK_DRIVER_FILES / VK_ADD_DRIVER_FILES), else the folders looked in. Without a driver, creating Dawn's instance
 * only makes the loader print "vkCreateInstance: Found no drivers!", so relpos does not create one.
 */
async function missingVulkanDriver() {
  if (process.platform !== 'linux') return null;
  const env = process.env;
  if (env.VK_ICD_FILENAMES || env.VK_DRIVER_FILES || env.VK_ADD_DRIVER_FILES) return null;
  const fsName = 'node:fs'; // non-literal: bundlers targeting the web must not resolve it
  const { readdirSync } = await import(/* webpackIgnore: true */ /* @vite-ignore */ fsName);
  const home = env.HOME ?? '';
  const dirs = [
    ...(env.XDG_CONFIG_DIRS || '/etc/xdg').split(':'), '/etc', '/usr/local/etc', env.XDG_DATA_HOME || `${home}/.local/share`,
    ...(env.XDG_DATA_DIRS || '/usr/local/share:/usr/share').split(':'),
  ].filter(Boolean).map((d) => `${d}/vulkan/icd.d`);
  for (const dir of dirs) {
    try {
      if (readdirSync(dir).some((f) => f.endsWith('.json'))) return null;
    } catch {
      // no such folder
    }
  }
  return dirs;
}

/** Finds a GPU object (see the header); returns { gpu, source } or throws an Error. */
export async function findGpu(options = {}) {
  if (options.gpu !== undefined && options.gpu !== null) {
    if (typeof options.gpu.requestAdapter !== 'function')
      throw new TypeError(`webgpu: options.gpu: expected a GPU object with requestAdapter() (navigator.gpu, or create([]) of the npm package 'webgpu'), got ${describe(options.gpu)}`);
    return { gpu: options.gpu, source: 'options.gpu' };
  }
  const nav = globalThis.navigator;
  if (nav && nav.gpu && typeof nav.gpu.requestAdapter === 'function') return { gpu: nav.gpu, source: 'navigator.gpu' };
  if (!isNode)
    throw new Error('webgpu: this browser exposes no navigator.gpu (WebGPU needs a secure context — https or localhost — and a browser with WebGPU enabled)');
  let mod;
  try {
    const name = 'webgpu'; // hidden from bundlers: web/model.js reaches this file, the package is Node-only
    mod = await import(/* webpackIgnore: true */ /* @vite-ignore */ name);
  } catch (e) {
    throw new Error(`webgpu: no navigator.gpu in this Node process and the npm package 'webgpu' (Dawn's Node binding) could not be loaded: ${e.message}. Install it (npm install webgpu) or pass { gpu }`);
  }
  // The binding's classes (GPUBufferUsage, GPUMapMode, …) are globals in a browser; dispatchers use them.
  for (const [name, value] of Object.entries(mod.globals)) if (!(name in globalThis)) globalThis[name] = value;
  if (!nodeGpu) {
    const looked = await missingVulkanDriver();
    if (looked) throw new Error(`webgpu: no GPU adapter: no Vulkan driver is installed (no ICD manifest in ${looked.join(', ')}); Dawn needs ${SWIFTSHADER_HINT}`);
  }
  // One Dawn instance per process: every context (models share one per options: acquireContext) requests its adapter from it.
  nodeGpu ??= mod.create([]);
  return { gpu: nodeGpu, source: "npm package 'webgpu' (Dawn)" };
}

/**
 * Whether a device of `adapter` (from `gpu`) can run the subgroup reductions (kernels/reduce.js): the adapter
 * feature 'subgroups' and the WGSL builtins subgroup_id / num_subgroups (language feature 'subgroup_id').
 */
export function hasSubgroups(gpu, adapter) {
  return !!adapter.features?.has('subgroups') && !!gpu.wgslLanguageFeatures?.has?.('subgroup_id');
}

/**
 * Requests an adapter and a device. options: { gpu, powerPreference ('high-performance' default),
 * f16: true to ask for 'shader-f16' when the adapter has it (default true), subgroups: true to ask for
 * 'subgroups' when the adapter has it (default true; false keeps every kernel on its plain workgroup-memory path) }.
 */
export async function createContext(options = {}) {
  if (options === null || typeof options !== 'object') throw new TypeError(`webgpu: options: expected an object, got ${describe(options)}`);
  for (const name of ['f16', 'subgroups'])
    if (options[name] !== undefined && typeof options[name] !== 'boolean')
      throw new TypeError(`webgpu: options.${name}: expected true or false, got ${describe(options[name])}`);
  const { gpu, source } = await findGpu(options);
  const powerPreference = options.powerPreference ?? 'high-performance';
  const adapter = await gpu.requestAdapter({ powerPreference });
  if (!adapter) {
    const hint = isNode
      ? ` (Dawn on Linux needs libvulkan.so.1 — Debian package libvulkan1 — and a Vulkan driver: ${SWIFTSHADER_HINT})`
      : '';
    throw new Error(`webgpu: no GPU adapter: ${source}.requestAdapter({ powerPreference: '${powerPreference}' }) returned null${hint}`);
  }
  const wantF16 = options.f16 ?? true;
  const requiredFeatures = [];
  if (wantF16 && adapter.features.has('shader-f16')) requiredFeatures.push('shader-f16');
  if (adapter.features.has('timestamp-query')) requiredFeatures.push('timestamp-query');
  const subgroups = (options.subgroups ?? true) && hasSubgroups(gpu, adapter);
  if (subgroups) requiredFeatures.push('subgroups');
  const requiredLimits = {};
  for (const name of RAISED_LIMITS) if (adapter.limits[name] !== undefined) requiredLimits[name] = adapter.limits[name];
  const device = await adapter.requestDevice({ requiredFeatures, requiredLimits });
  if (!device) throw new Error('webgpu: adapter.requestDevice() returned null');
  const ai = adapter.info ?? {};
  const info = {
    backend: 'webgpu',
    source,
    vendor: ai.vendor ?? '',
    architecture: ai.architecture ?? '',
    device: ai.device ?? '',
    description: ai.description ?? '',
    subgroups: subgroups && device.features.has('subgroups'),
    // the adapter's subgroup sizes (0 where it does not say), whether or not the kernels use subgroups
    subgroupMinSize: ai.subgroupMinSize ?? 0,
    subgroupMaxSize: ai.subgroupMaxSize ?? 0,
  };
  const limits = {};
  for (const key in device.limits) if (typeof device.limits[key] === 'number') limits[key] = device.limits[key];
  return new GpuContext(gpu, adapter, device, info, [...device.features].sort(), limits);
}

// Contexts that models share (loadModel's device 'webgpu' acquires one): one per GPU object and options, kept while a
// model holds it. The models of a page then run on one GPUDevice, as WebGPU intends: each pipeline compiles once for
// all of them (SwiftShader takes seconds per GEMM pipeline, a driver tens of milliseconds), and the split-K partials
// are one buffer. A lost device leaves the table at once, so the next load gets a new one.
const sharedContexts = new WeakMap(); // GPU object → Map(options key → Promise<GpuContext>)

/**
 * A context shared with the other holders of the same GPU object and options (createContext's); each acquire is
 * paired with one ctx.release(), and the last release destroys the device. createContext's errors, unchanged.
 */
export async function acquireContext(options = {}) {
  if (options === null || typeof options !== 'object') throw new TypeError(`webgpu: options: expected an object, got ${describe(options)}`);
  const { gpu } = await findGpu(options);
  const key = `${options.powerPreference ?? 'high-performance'}:${options.f16 ?? true}:${options.subgroups ?? true}`;
  let table = sharedContexts.get(gpu);
  if (!table) sharedContexts.set(gpu, (table = new Map()));
  for (;;) {
    let entry = table.get(key);
    if (!entry) {
      const made = createContext(options).then((ctx) => {
        ctx.users = 0;
        ctx.leave = () => table.get(key) === made && table.delete(key);
        ctx.lost.then(ctx.leave);
        return ctx;
      });
      made.catch(() => table.get(key) === made && table.delete(key));
      table.set(key, (entry = made));
    }
    const ctx = await entry;
    // released or lost while this call waited: that device is gone, the next turn makes a new one
    if (ctx.released || ctx.lostInfo) {
      ctx.leave();
      continue;
    }
    ctx.users++;
    return ctx;
  }
}

export class GpuContext {
  constructor(gpu, adapter, device, info, features, limits) {
    this.gpu = gpu;
    this.adapter = adapter;
    this.device = device;
    this.info = Object.freeze(info);
    this.features = Object.freeze(features);
    this.limits = Object.freeze(limits);
    this.shaderF16 = features.includes('shader-f16');
    /** Whether the reductions use subgroup operations (kernels/reduce.js; see createContext). */
    this.subgroups = !!info.subgroups;
    /** { reason, message } once the device is lost (or destroyed), else null. */
    this.lostInfo = null;
    this.lost = device.lost.then((e) => (this.lostInfo ??= { reason: e.reason ?? 'unknown', message: e.message ?? '' }));
    /** Compiled pipelines by kernel key (see pipeline()). */
    this.pipelines = new Map();
    /** The split GEMMs' partial sums (splitPartials). */
    this.partials = null;
  }

  /** A compute pipeline for `code`, compiled once per key. */
  pipeline(key, makeCode) {
    let p = this.pipelines.get(key);
    if (!p) {
      const code = makeCode();
      const module = this.device.createShaderModule({ code, label: key });
      p = this.device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' }, label: key });
      this.pipelines.set(key, p);
    }
    return p;
  }

  /** Same as pipeline(), but surfaces WGSL compile errors as an Error with the messages. */
  async pipelineChecked(key, makeCode) {
    if (this.pipelines.has(key)) return this.pipelines.get(key);
    const code = makeCode();
    const module = this.device.createShaderModule({ code, label: key });
    const ci = await module.getCompilationInfo();
    const errors = ci.messages.filter((m) => m.type === 'error');
    if (errors.length) throw new Error(`webgpu: ${key}: WGSL errors:\n${errors.map((m) => `  ${m.lineNum}:${m.linePos} ${m.message}`).join('\n')}`);
    const p = await this.device.createComputePipelineAsync({ layout: 'auto', compute: { module, entryPoint: 'main' }, label: key });
    this.pipelines.set(key, p);
    return p;
  }

  /** A storage buffer holding `data` (a typed array; its bytes rounded up to 4). */
  upload(data, label = '') {
    const bytes = Math.max(4, (data.byteLength + 3) & ~3);
    const buffer = this.device.createBuffer({
      size: bytes,
      usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST,
      mappedAtCreation: true,
      label,
    });
    new Uint8Array(buffer.getMappedRange()).set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
    buffer.unmap();
    return buffer;
  }

  /**
   * queue.writeBuffer of a typed array at `offset` bytes, in pieces of at most 16 MiB; a view of a SharedArrayBuffer
   * (the threaded WASM heap) goes through a plain copy, one piece at a time.
   */
  write(buffer, offset, data) {
    const piece = 16 << 20;
    const shared = typeof SharedArrayBuffer !== 'undefined' && data.buffer instanceof SharedArrayBuffer;
    const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    for (let at = 0; at < bytes.length; at += piece) {
      let part = bytes.subarray(at, Math.min(bytes.length, at + piece));
      if (shared) part = part.slice();
      this.device.queue.writeBuffer(buffer, offset + at, part.buffer, part.byteOffset, part.byteLength);
    }
  }

  /**
   * The f32 partial sums of split GEMMs (kernels/gemm.js): one storage buffer of at least `bytes`, kept and reused
   * by every split product (they run one after another); a larger need replaces it (what was already recorded keeps
   * the old one; the device's destruction frees both).
   */
  splitPartials(bytes) {
    if (!this.partials || this.partials.size < bytes) this.partials = this.empty(bytes, 'relpos split-K partials');
    return this.partials;
  }

  /** An uninitialised (zeroed) storage buffer of `bytes` bytes. */
  empty(bytes, label = '') {
    return this.device.createBuffer({
      size: Math.max(4, (bytes + 3) & ~3),
      usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST,
      label,
    });
  }

  /**
   * A uniform buffer with the given 32-bit words (u32/i32/f32 by the typed array kind of each entry).
   * While a DispatchCache is active (ctx.cache, set by the plan executor around one recording), the n-th
   * call of a recording returns the n-th buffer of the previous recording when its words are the same.
   */
  uniforms(words) {
    const cache = this.cache;
    let key = null;
    if (cache) {
      key = words.map((w) => (w.f !== undefined ? `f${w.f}` : w.i !== undefined ? `i${w.i}` : w)).join(',');
      const hit = cache.uniforms[cache.u];
      if (hit && hit.key === key) {
        cache.tape?.uniform(cache.u, hit, key, words);
        cache.u++;
        return hit.buffer;
      }
    }
    const old = cache?.uniforms[cache.u];
    if (old && cache.rewrite && old.words === words.length) {
      // same dispatch, other sizes (another shape of the plan): new words into the same buffer, in queue order
      this.device.queue.writeBuffer(old.buffer, 0, packWords(words));
      old.key = key;
      cache.tape?.uniform(cache.u, old, key, words);
      cache.u++;
      return old.buffer;
    }
    const buffer = newUniforms(this.device, words);
    if (cache) {
      if (cache.uniforms[cache.u]) cache.retired.push(cache.uniforms[cache.u].buffer);
      const entry = { key, buffer, words: words.length };
      cache.tape?.uniform(cache.u, entry, key, words);
      cache.uniforms[cache.u++] = entry;
    }
    return buffer;
  }



  /** Copies `count` elements of `Type` (Float32Array by default) from a buffer to the CPU. */
  async read(buffer, count, Type = Float32Array, byteOffset = 0) {
    const bytes = count * Type.BYTES_PER_ELEMENT;
    const staging = this.device.createBuffer({ size: Math.max(4, (bytes + 3) & ~3), usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
    const enc = this.device.createCommandEncoder();
    enc.copyBufferToBuffer(buffer, byteOffset, staging, 0, Math.max(4, (bytes + 3) & ~3));
    this.device.queue.submit([enc.finish()]);
    await staging.mapAsync(GPUMapMode.READ);
    const out = new Type(staging.getMappedRange().slice(0, bytes));
    staging.unmap();
    staging.destroy();
    return out;
  }

  /** Records fn(encoder) into one command buffer, submits it, and waits until the GPU is done. */
  async run(fn) {
    const enc = this.device.createCommandEncoder();
    const result = fn(enc);
    this.device.queue.submit([enc.finish()]);
    await this.device.queue.onSubmittedWorkDone();
    return result;
  }

  /**
   * Runs `fn()` (GPU work: a promise, e.g. a forward) unless the device is lost, and races it against the
   * loss: a device lost before, during or by the end of the work gives an Error whose message names `what`
   * and the loss, with error.deviceLost = { reason, message } (its cause: the work's own error, if any). A
   * failure of the work itself that the loss may explain (mapAsync's AbortError / OperationError on a lost
   * device) is reported as the loss too: after such a failure the device gets LOST_GRACE_MS to report it.
   */
  async guard(what, fn) {
    if (this.lostInfo) throw lostError(what, this.lostInfo);
    let work; // fn runs now (a forward records and submits before its first await), its failures become rejections
    try {
      work = Promise.resolve(fn());
    } catch (e) {
      work = Promise.reject(e);
    }
    const lost = this.lost.then((info) => {
      throw lostError(what, info);
    });
    lost.catch(() => {}); // settles only if the device is lost; never an unhandled rejection
    let result;
    try {
      result = await Promise.race([work, lost]);
    } catch (e) {
      work.catch(() => {}); // the work may still fail after the loss was reported
      if (e?.deviceLost) throw e;
      // mapAsync on a lost device rejects with an AbortError / OperationError, which may come first
      if (e?.name !== 'AbortError' && e?.name !== 'OperationError') throw e;
      let timer;
      const info = await Promise.race([this.lost, new Promise((resolve) => {
        timer = setTimeout(() => resolve(null), GpuContext.LOST_GRACE_MS);
      })]);
      clearTimeout(timer);
      if (info) throw lostError(what, info, e);
      throw e;
    }
    if (this.lostInfo) throw lostError(what, this.lostInfo); // finished on a lost device: results not trusted
    return result;
  }

  /** Milliseconds a failed guard() waits for device.lost before reporting the work's own error. */
  static LOST_GRACE_MS = 2000;

  /** Releases the device (its buffers with it). */
  destroy() {
    this.released = true;
    this.device.destroy();
  }

  /** Gives up a hold of acquireContext: the last one destroys the device (a context of createContext: at once). */
  release() {
    if (this.released) return;
    if (this.users !== undefined && --this.users > 0) return;
    this.leave?.();
    this.destroy();
  }
}

/**
 * Why an adapter lacks 'shader-f16' where the reason is known, for the fp16 Error (else ''): Dawn withholds the
 * feature on NVIDIA's Vulkan driver (a driver bug list; Chrome on Linux + NVIDIA shows none for the same reason)
 * unless the adapter toggle vulkan_enable_f16_on_nvidia is set, which a Node process can do through the npm
 * package 'webgpu' (unsafe for browsing; a bench or a trusted app may).
 */
export function f16Hint(info) {
  if (!/nvidia/i.test(`${info.vendor} ${info.description}`)) return '';
  return isNode
    ? ". Dawn withholds 'shader-f16' on NVIDIA's Vulkan driver; in Node, pass { gpu: create(['enable-dawn-features=vulkan_enable_f16_on_nvidia']) } (npm package 'webgpu') to enable it"
    : ". Browsers built on Dawn withhold 'shader-f16' on NVIDIA's Vulkan driver (Chrome on Linux)";
}

/** The Error of GPU work on a lost device (GpuContext.guard). */
export function lostError(what, info, cause) {
  const e = new Error(
    `${what}: the GPU device was lost (reason '${info.reason}'${info.message ? `: ${info.message}` : ''}); its buffers, and the model's weights on it, are gone — load the model again (device 'auto' falls back to WebAssembly, with the reason, when no GPU adapter is left)`,
    cause === undefined ? undefined : { cause },
  );
  e.deviceLost = { reason: info.reason, message: info.message };
  return e;
}

/**
 * Records one compute dispatch of `pipeline` over `groups` workgroups with buffers bound 0, 1, …; an
 * entry may be a GPUBuffer or a view { buffer, offset, size } (bytes; offset aligned to the device's
 * minStorageBufferOffsetAlignment).
 */
export function dispatch(ctx, encoder, pipeline, buffers, groups, label = '') {
  const cache = ctx.cache;
  let bindGroup = null;
  if (cache) {
    const hit = cache.groups[cache.g];
    if (hit && hit.pipeline === pipeline && hit.buffers.length === buffers.length && hit.buffers.every((b, i) => sameBinding(b, buffers[i]))) bindGroup = hit.bindGroup;
  }
  // a cache shared by shapes: the bind groups of views at other offsets (another shape's) are kept by what they bind
  const key = !bindGroup && cache?.rewrite ? bindingKey(pipeline, buffers) : null;
  if (key) bindGroup = cache.byBinding.get(key) ?? null;
  if (!bindGroup) {
    bindGroup = ctx.device.createBindGroup({
      layout: pipeline.getBindGroupLayout(0),
      entries: buffers.map((b, binding) => ({ binding, resource: b.buffer && b.offset !== undefined ? b : { buffer: b } })),
    });
    if (key) {
      if (cache.byBinding.size >= 8192) cache.byBinding.clear();
      cache.byBinding.set(key, bindGroup);
    }
  }
  if (cache) cache.groups[cache.g] = { pipeline, buffers: [...buffers], bindGroup };
  if (cache) cache.g++;
  const shared = ctx.sharedPass; // a recording that keeps one compute pass open across dispatches (sharePasses)
  if (shared && shared.encoder !== encoder) endSharedPass(ctx);
  const pass = shared ? (shared.pass ??= encoder.beginComputePass({ label: 'relpos dispatches' })) : encoder.beginComputePass({ label });
  if (shared) shared.encoder = encoder;
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, bindGroup);
  pass.dispatchWorkgroups(...groups);
  if (!shared) pass.end();
}

/**
 * From now on, consecutive dispatch() calls on one encoder share one compute pass (WebGPU makes each dispatch's
 * writes visible to the next within a pass): fewer passes to encode. The caller must endSharedPass(ctx) before any
 * other command on the encoder (a copy), before finish(), and stopSharing(ctx) when done.
 */
export function sharePasses(ctx) {
  ctx.sharedPass = { encoder: null, pass: null };
}

/** Ends the shared compute pass, if one is open (sharePasses). */
export function endSharedPass(ctx) {
  const shared = ctx.sharedPass;
  if (shared?.pass) shared.pass.end();
  if (shared) {
    shared.pass = null;
    shared.encoder = null;
  }
}

/** Ends the shared pass and returns to one pass per dispatch. */
export function stopSharing(ctx) {
  endSharedPass(ctx);
  ctx.sharedPass = null;
}

let nextId = 0;
const ids = new WeakMap(); // GPU object → a number, for bindingKey
const idOf = (o) => {
  let id = ids.get(o);
  if (id === undefined) ids.set(o, (id = ++nextId));
  return id;
};

/** What a bind group binds (pipeline, buffers, views' offsets and sizes), as a Map key. */
function bindingKey(pipeline, buffers) {
  return `${idOf(pipeline)}|${buffers.map((b) => (b.buffer && b.offset !== undefined ? `${idOf(b.buffer)}@${b.offset}+${b.size}` : idOf(b))).join(',')}`;
}

/** Splits a dispatch of `count` workgroups into (x, y) within maxComputeWorkgroupsPerDimension. */
export function grid(ctx, count) {
  const max = ctx.limits.maxComputeWorkgroupsPerDimension ?? 65535;
  if (count <= max) return [count, 1, 1];
  const y = Math.ceil(count / max);
  return [Math.ceil(count / y), y, 1];
}

/** A mapped-at-creation uniform buffer holding `words` (GpuContext.uniforms). */
function newUniforms(device, words) {
  const size = Math.max(16, (words.length * 4 + 15) & ~15);
  const buffer = device.createBuffer({ size, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST, mappedAtCreation: true });
  new Uint8Array(buffer.getMappedRange()).set(new Uint8Array(packWords(words)));
  buffer.unmap();
  return buffer;
}

/** The bytes of uniform `words` (u32, { i } as i32, { f } as f32), padded to 16. */
function packWords(words) {
  const range = new ArrayBuffer(Math.max(16, (words.length * 4 + 15) & ~15));
  const u = new Uint32Array(range), i = new Int32Array(range), f = new Float32Array(range);
  words.forEach((w, at) => {
    if (w.f !== undefined) f[at] = w.f;
    else if (w.i !== undefined) i[at] = w.i;
    else u[at] = w;
  });
  return range;
}

/** Same bound resource: the same GPUBuffer, or views of the same buffer at the same offset and size. */
function sameBinding(a, b) {
  if (a === b) return true;
  return !!a && !!b && a.buffer !== undefined && a.buffer === b.buffer && a.offset === b.offset && a.size === b.size;
}

/**
 * A command encoder that submits as it goes: cut() finishes the commands encoded so far and submits them, then
 * encoding continues into a new command buffer; finish() submits the rest. A forward encoded through it starts
 * running on the GPU while its later layers are still being encoded (PlanExecutor.firstSubmit), instead of
 * after the whole forward is encoded. Only beginComputePass and copyBufferToBuffer are forwarded (what the
 * executor's kernels use); a pass must be ended before cut().
 */
export class ChunkedEncoder {
  constructor(device, label) {
    this.device = device;
    this.label = label;
    this.real = device.createCommandEncoder({ label });
  }

  beginComputePass(descriptor) {
    return this.real.beginComputePass(descriptor);
  }

  copyBufferToBuffer(...args) {
    this.real.copyBufferToBuffer(...args);
  }

  cut() {
    this.device.queue.submit([this.real.finish()]);
    this.real = this.device.createCommandEncoder({ label: this.label });
  }

  /** Submits what is left; the encoder is done. */
  finish() {
    this.device.queue.submit([this.real.finish()]);
    this.real = null;
  }
}

/**
 * A recorded forward as the commands it encoded (a flat list), so that the next forward of the same
 * prepared shape replays them instead of running every kernel's JavaScript again (PlanExecutor). While a recording
 * captures (cache.tape set, commands through tape.encoder(real)), it notes each uniform buffer it used with its words,
 * each pass, pipeline, bind group, dispatch and copy. replay(encoder, queue, staging) re-encodes the same commands,
 * first writing back the uniform words that another shape overwrote since; copies into read-back buffers go to the
 * `staging` buffers given for that call. valid(cache) says whether every uniform buffer it used is still the cache's.
 */
export class DispatchTape {
  constructor() {
    this.uniforms = []; // { at, entry, key, bytes }
    this.commands = []; // [op, …args]: 0 begin pass, 1 pipeline, 2 bind group, 3 dispatch, 4 end, 5 copy, 6 cut
    this.targets = new Map(); // read-back buffer → its index among the recording's outputs (copies into it)
  }

  uniform(at, entry, key, words) {
    this.uniforms.push({ at, entry, key, bytes: packWords(words) });
  }

  /** An encoder that forwards to `real` and notes what it encoded. */
  encoder(real) {
    const cmds = this.commands;
    return {
      beginComputePass(descriptor) {
        const pass = real.beginComputePass(descriptor);
        cmds.push([0, descriptor]);
        return {
          setPipeline(p) { cmds.push([1, p]); pass.setPipeline(p); },
          setBindGroup(i, g) { cmds.push([2, i, g]); pass.setBindGroup(i, g); },
          dispatchWorkgroups(x, y = 1, z = 1) { cmds.push([3, x, y, z]); pass.dispatchWorkgroups(x, y, z); },
          end() { cmds.push([4]); pass.end(); },
        };
      },
      copyBufferToBuffer(src, srcOffset, dst, dstOffset, size) {
        cmds.push([5, src, srcOffset, dst, dstOffset, size]);
        real.copyBufferToBuffer(src, srcOffset, dst, dstOffset, size);
      },
      // a ChunkedEncoder's submit point (recorded, replayed at the same place)
      cut: real.cut ? () => { cmds.push([6]); real.cut(); } : undefined,
    };
  }

  valid(cache) {
    return this.uniforms.every((u) => cache.uniforms[u.at] === u.entry);
  }

  replay(encoder, queue, staging) {
    for (const u of this.uniforms)
      if (u.entry.key !== u.key) {
        queue.writeBuffer(u.entry.buffer, 0, u.bytes);
        u.entry.key = u.key;
      }
    let pass = null;
    for (const c of this.commands) {
      switch (c[0]) {
        case 0: pass = encoder.beginComputePass(c[1]); break;
        case 1: pass.setPipeline(c[1]); break;
        case 2: pass.setBindGroup(c[1], c[2]); break;
        case 3: pass.dispatchWorkgroups(c[1], c[2], c[3]); break;
        case 4: pass.end(); pass = null; break;
        case 6: encoder.cut(); break;
        default: {
          const out = this.targets.get(c[3]);
          encoder.copyBufferToBuffer(c[1], c[2], out === undefined ? c[3] : staging[out], c[4], c[5]);
        }
      }
    }
  }
}

/**
 * The uniform buffers and bind groups of one recorded sequence of dispatches (a prepared plan's forward,
 * web/webgpu/executor.js): while `ctx.cache` is set to it, the n-th ctx.uniforms() and the n-th dispatch()
 * of a recording reuse those of the previous recording when they are equal (same words; same pipeline and
 * bound buffers), so a forward after the first allocates no GPU objects. rewind() before each recording;
 * destroy() with the plan.
 */
export class DispatchCache {
  /** rewrite: a cache shared by several shapes of one plan: the n-th uniform buffer with other words of the same count is rewritten in place (queue.writeBuffer) instead of replaced. */
  constructor({ rewrite = false } = {}) {
    this.rewrite = rewrite;
    this.byBinding = new Map(); // bindingKey → GPUBindGroup (rewrite only)
    this.uniforms = [];
    this.groups = [];
    this.retired = [];
    this.u = 0;
    this.g = 0;
  }

  rewind() {
    this.u = 0;
    this.g = 0;
  }

  destroy() {
    for (const e of this.uniforms) e.buffer.destroy();
    for (const b of this.retired) b.destroy();
    this.uniforms = [];
    this.groups = [];
    this.retired = [];
    this.byBinding.clear();
  }
}
