// The WebGPU adapter the webgpu-* suites run on, found once per test file: SwiftShader (Chromium's software
// Vulkan) unless VK_ICD_FILENAMES names another driver; on a GPU machine without node_modules
// (bench/gpu/run.sh) RELPOS_WEBGPU is the `webgpu` package's index.js and RELPOS_DAWN_FLAGS its Dawn flags.
//   const { ctx, skip } = await webgpuAdapter();   // ctx: a GpuContext or null; skip: false or the reason
//   const gpu = recordingGpu(realGpu);               // a GPU object whose gpu.devices are the GPUDevices it made
// No adapter: under CI (process.env.CI) a failing test says why — the suites must not skip there — else
// every test skips with the reason.
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';

const SWIFTSHADER = '/usr/lib/chromium/vk_swiftshader_icd.json';

/** { ctx, gpu, skip }: keep: true leaves the context open for the caller (else it is destroyed). */
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
    const { createContext } = await import('../../web/webgpu/index.js');
    ctx = await createContext({ gpu });
  } catch (e) {
    noGpu = e;
  }
  if (noGpu && process.env.CI) {
    test('a WebGPU adapter exists (CI)', () => {
      throw new Error(`no WebGPU adapter under CI (VK_ICD_FILENAMES=${process.env.VK_ICD_FILENAMES ?? 'unset'}): ${noGpu.message}`);
    });
  }
  if (ctx && !keep) {
    ctx.destroy();
    ctx = null;
  }
  return { ctx, gpu, skip: noGpu ? `no WebGPU adapter: ${noGpu.message}` : false };
}

/**
 * A GPU object over `real` (navigator.gpu, Dawn's create()) that keeps every GPUDevice it creates in `.devices`:
 * how a test (or scripts/robustness-table.mjs) reaches the device a model runs on, to lose it.
 */
export function recordingGpu(real) {
  const devices = [];
  const wrap = (target, overrides) => new Proxy(target, {
    get(t, key) {
      if (key in overrides) return overrides[key];
      const v = Reflect.get(t, key, t);
      return typeof v === 'function' ? v.bind(t) : v;
    },
  });
  return {
    devices,
    requestAdapter: async (options) => {
      const adapter = await real.requestAdapter(options);
      if (!adapter) return adapter;
      return wrap(adapter, {
        requestDevice: async (desc) => {
          const device = await adapter.requestDevice(desc);
          devices.push(device);
          return device;
        },
      });
    },
  };
}
