// The WebGPU adapter the webgpu-* suites run on, found once per test file: SwiftShader (Chromium's software
// Vulkan) unless VK_ICD_FILENAMES names another driver; on a GPU machine without node_modules
// (bench/gpu/run.sh) RELPOS_WEBGPU is the `webgpu` package's index.js and RELPOS_DAWN_FLAGS its Dawn flags.
//   const { ctx, skip } = await webgpuAdapter();   // ctx: a GpuContext or null; skip: false or the reason
//   const gpu = recordingGpu(realGpu);               // a GPU object whose gpu.devices are the GPUDevices it made
//   const gpu = countingGpu(realGpu);                // gpu.counts: GPU objects its devices created, bytes mapped
//   const gpu = shaderRecordingGpu(realGpu);         // gpu.codes: the WGSL of every shader module its devices made
//   await within(promise, ms, what);                 // the promise, or an Error saying it hung
// No adapter: under CI (process.env.CI) a failing test says why — the suites must not skip there — else
// every test skips with the reason.
import { existsSync } from 'node:fs';
import { after, test } from 'node:test';
import { pathToFileURL } from 'node:url';

const SWIFTSHADER = '/usr/lib/chromium/vk_swiftshader_icd.json';

/**
 * { ctx, gpu, skip }. The context is the one models loaded with that GPU object (undefined: Node's Dawn) and the default
 * GPU options share (acquireContext), held until the test file ends: the file's models run on one device, as a
 * page's do, and each kernel compiles once per file instead of once per model (SwiftShader takes seconds per GEMM
 * kernel). keep: true hands it to the caller too (for kernel tests; released when the file ends, not by the caller).
 */
export async function webgpuAdapter({ keep = false } = {}) {
  if (!process.env.VK_ICD_FILENAMES && existsSync(SWIFTSHADER)) process.env.VK_ICD_FILENAMES = SWIFTSHADER;
  let gpu;
  if (process.env.RELPOS_WEBGPU) {
    const dawn = await import(pathToFileURL(process.env.RELPOS_WEBGPU).href);
    for (const [name, value] of Object.entries(dawn.globals)) if (!(name in globalThis)) globalThis[name] = value;
    gpu = dawn.create((process.env.RELPOS_DAWN_FLAGS ?? '').split(/\s+/).filter(Boolean));
  }
  let ctx = null, noGpu = null;
  try {
    const { acquireContext } = await import('../../web/webgpu/index.js');
    ctx = await acquireContext({ gpu });
  } catch (e) {
    noGpu = e;
  }
  if (noGpu && process.env.CI) {
    test('a WebGPU adapter exists (CI)', () => {
      throw new Error(`no WebGPU adapter under CI (VK_ICD_FILENAMES=${process.env.VK_ICD_FILENAMES ?? 'unset'}): ${noGpu.message}`);
    });
  }
  if (ctx) {
    const held = ctx;
    after(() => held.release());
  }
  return { ctx: keep ? ctx : null, gpu, skip: noGpu ? `no WebGPU adapter: ${noGpu.message}` : false };
}

/**
 * A GPU object over `real` (navigator.gpu, Dawn's create()) that keeps every GPUDevice it creates in `.devices`:
 * how a test (or scripts/robustness-table.mjs) reaches the device a model runs on, to lose it.
 */
export function recordingGpu(real) {
  const devices = [];
  return overDevices(real, { devices }, (device) => {
    devices.push(device);
    return device;
  });
}

/**
 * A GPU object over `real` that keeps the WGSL of every shader module its devices create in `.codes`: which
 * kernels a model compiled (e.g. the subgroup reductions or the plain ones).
 */
export function shaderRecordingGpu(real) {
  const codes = [];
  return overDevices(real, { codes }, (device) => wrap(device, { createShaderModule: (d) => (codes.push(d.code), device.createShaderModule(d)) }));
}

/** A GPU object over `real` (its WGSL language features, and `fields`) whose adapters' devices are onDevice(device). */
function overDevices(real, fields, onDevice) {
  return {
    ...fields,
    wgslLanguageFeatures: real.wgslLanguageFeatures,
    requestAdapter: async (options) => {
      const adapter = await real.requestAdapter(options);
      if (!adapter) return adapter;
      return wrap(adapter, { requestDevice: async (desc) => onDevice(await adapter.requestDevice(desc)) });
    },
  };
}

const wrap = (target, overrides) => new Proxy(target, {
  get(t, key) {
    if (key in overrides) return overrides[key];
    const v = Reflect.get(t, key, t);
    return typeof v === 'function' ? v.bind(t) : v;
  },
});

/**
 * A GPU object over `real` whose devices count what they create: gpu.counts = { buffers, bindGroups, pipelines,
 * shaderModules, mappedBytes, submits, passes, dispatches, copies } (mappedBytes: bytes of the ranges read through
 * getMappedRange of MAP_READ buffers; submits: command buffers submitted; passes, dispatches, copies: compute passes
 * begun, dispatches and buffer copies encoded); gpu.reset() zeroes them. How a test proves a forward allocates nothing, reads back only what it must and
 * how it is encoded.
 */
export function countingGpu(real) {
  const counts = { buffers: 0, bindGroups: 0, pipelines: 0, shaderModules: 0, mappedBytes: 0, submits: 0, passes: 0, dispatches: 0, copies: 0 };
  const count = (name, fn) => (...args) => {
    counts[name]++;
    return fn(...args);
  };
  const device = (d) => wrap(d, {
    createBuffer: (desc) => {
      counts.buffers++;
      const b = d.createBuffer(desc);
      if (!(desc.usage & GPUBufferUsage.MAP_READ)) return b;
      const getMappedRange = b.getMappedRange.bind(b);
      b.getMappedRange = (offset = 0, size) => {
        const range = getMappedRange(offset, size);
        counts.mappedBytes += range.byteLength;
        return range;
      };
      return b;
    },
    createBindGroup: count('bindGroups', d.createBindGroup.bind(d)),
    createComputePipeline: count('pipelines', d.createComputePipeline.bind(d)),
    createComputePipelineAsync: count('pipelines', d.createComputePipelineAsync.bind(d)),
    createShaderModule: count('shaderModules', d.createShaderModule.bind(d)),
    createCommandEncoder: (desc) => {
      const e = d.createCommandEncoder(desc);
      return wrap(e, {
        beginComputePass: (desc) => {
          counts.passes++;
          const pass = e.beginComputePass(desc);
          return wrap(pass, { dispatchWorkgroups: count('dispatches', pass.dispatchWorkgroups.bind(pass)) });
        },
        copyBufferToBuffer: count('copies', e.copyBufferToBuffer.bind(e)),
      });
    },
    queue: wrap(d.queue, { submit: (buffers) => { counts.submits += buffers.length; return d.queue.submit(buffers); } }),
  });
  return overDevices(real, { counts, reset: () => { for (const k in counts) counts[k] = 0; } }, device);
}

/** Rejects with "hung" when `promise` has not settled after `ms` (a GPU loss must end work, never hang it). */
export function within(promise, ms, what) {
  let timer;
  return Promise.race([promise, new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} hung: not settled after ${ms} ms`)), ms);
  })]).finally(() => clearTimeout(timer));
}
