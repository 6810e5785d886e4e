// What the GPU-machine scripts of bench/gpu/ share: Dawn's Node binding (the carried copy that run.sh points
// RELPOS_WEBGPU at, else node_modules/webgpu), seeded data and timing of recorded dispatches.
//   const { dawn, gpu } = await openDawn(flags);   // GPU object for createContext({ gpu }) / loadModel({ gpu });
//                                                  // loadDawn(): the module only
//   random(n, seed) → Float32Array in [−1, 1)       median(xs)
//   clockedGpu(gpu) → { gpu, clock }: clock.waitMs, the time spent in GPUBuffer.mapAsync (a call's GPU part)
//   await submitTimed(ctx, record, reps) → seconds per dispatch of one submit of `reps` record(encoder) calls
//   await oneBufferMs(W, call) → ms of call() with each forward in one command buffer (PlanExecutor.firstSubmit = 0)
import { pathToFileURL } from 'node:url';

/** Loads Dawn's binding and installs its GPU* classes as globals (browsers have them). */
export async function loadDawn() {
  const spec = process.env.RELPOS_WEBGPU ? pathToFileURL(process.env.RELPOS_WEBGPU).href : 'webgpu';
  const dawn = await import(spec);
  for (const [name, value] of Object.entries(dawn.globals)) if (!(name in globalThis)) globalThis[name] = value;
  return dawn;
}

/** loadDawn() and one GPU object made with Dawn instance `flags`. */
export async function openDawn(flags = []) {
  const dawn = await loadDawn();
  return { dawn, gpu: dawn.create(flags) };
}

/**
 * A GPU object whose queues count their submits (clock.submits) and note the last one's time (clock.lastSubmit,
 * performance.now() ms), and a clock of the time spent waiting in
 * GPUBuffer.mapAsync (clock.waitMs: the GPU work and the read-back a call waits for): a call's CPU part is its time
 * minus the wait (recording, submits, copies out of mapped buffers, JavaScript), told apart without touching the library.
 */
export function clockedGpu(gpu) {
  const clock = { submits: 0, waitMs: 0, lastSubmit: 0 };
  const proto = globalThis.GPUBuffer?.prototype;
  if (proto && !proto.mapAsync.clocked) {
    const mapAsync = proto.mapAsync;
    // waits that overlap (a forward maps several outputs at once) count once: from the first start to the last end
    let inFlight = 0, since = 0;
    proto.mapAsync = async function clockedMapAsync(...args) {
      if (inFlight++ === 0) since = performance.now();
      try {
        return await mapAsync.apply(this, args);
      } finally {
        if (--inFlight === 0) for (const c of clockedGpu.clocks) c.waitMs += performance.now() - since;
      }
    };
    proto.mapAsync.clocked = true;
  }
  clockedGpu.clocks.push(clock);
  const wrapDevice = (device) => {
    const queue = device.queue, submit = queue.submit.bind(queue);
    queue.submit = (buffers) => {
      clock.submits += buffers.length;
      clock.lastSubmit = performance.now();
      return submit(buffers);
    };
    return device;
  };
  const wrapAdapter = (adapter) => new Proxy(adapter, {
    get(target, key) {
      if (key === 'requestDevice') return async (descriptor) => wrapDevice(await target.requestDevice(descriptor));
      const value = target[key];
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const proxy = new Proxy(gpu, {
    get(target, key) {
      if (key === 'requestAdapter') return async (options) => { const a = await target.requestAdapter(options); return a && wrapAdapter(a); };
      const value = target[key];
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { gpu: proxy, clock };
}
clockedGpu.clocks = [];

/** A seeded LCG's n floats in [−1, 1) (the same stream in every script). */
export function random(n, seed) {
  let s = seed >>> 0;
  const out = new Float32Array(n);
  for (let i = 0; i < n; ++i) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = (s >>> 8) / 2 ** 23 - 1;
  }
  return out;
}

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Records `reps` dispatches into one command buffer, submits it and waits: seconds per dispatch. */
export async function submitTimed(ctx, record, reps) {
  const enc = ctx.device.createCommandEncoder();
  for (let r = 0; r < reps; ++r) record(enc);
  const cb = enc.finish();
  const t0 = performance.now();
  ctx.device.queue.submit([cb]);
  await ctx.device.queue.onSubmittedWorkDone();
  return (performance.now() - t0) / 1000 / reps;
}

/**
 * The PlanExecutor the next relpos WebGPU model builds (from `W`, the package's web/webgpu/index.js module instance),
 * for PlanExecutor.profile: wraps prepare() so that get() returns the executor that ran it last.
 */
export function captureExecutor(W) {
  let executor = null;
  const prepare = W.PlanExecutor.prototype.prepare;
  W.PlanExecutor.prototype.prepare = function (...args) {
    executor = this;
    return prepare.apply(this, args);
  };
  return { get: () => executor };
}

/**
 * ms of `call()` with the forward in one command buffer (W.PlanExecutor.firstSubmit = 0) instead of submitted in chunks
 * as it is encoded; the setting is restored afterwards, also when call() throws. null when chunks are off already.
 */
export async function oneBufferMs(W, call) {
  const first = W.PlanExecutor.firstSubmit;
  if (!(first > 0)) return null;
  W.PlanExecutor.firstSubmit = 0;
  try {
    const t = performance.now();
    await call();
    return performance.now() - t;
  } finally {
    W.PlanExecutor.firstSubmit = first;
  }
}
