// Does relpos's threads build keep its threads busy in a fresh process? One runtime, alone in this
// Node process, runs one forward (or attention call) many times; prints wall time, process CPU time
// (process.cpuUsage: user + system, all threads) and their ratio, plus the module's thread count.
//   node --no-experimental-fetch bench/lib/threads_cpu.mjs '<spec JSON>'
// spec: { webIndex?, threads: 1|2, model?: dir, seq?: 128, batch?: 1, reps?: 30, attention?: seq }
// Prints one JSON line { threads, reps, wall_ms, cpu_ms, cpu_per_wall, per_call_ms }.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const spec = JSON.parse(process.argv[2] ?? '{}');
const webIndex = spec.webIndex ?? pathToFileURL(path.join(here, '../../web/index.js')).href;
let run, reportedThreads = spec.threads, reason = null;
if (spec.runtime === 'ort') {
  // onnxruntime-web on the same layer's ONNX (bench/node_modules), for comparison
  const ort = await import('onnxruntime-web');
  Object.assign(ort.env.wasm, { numThreads: spec.threads, simd: true, proxy: false });
  ort.env.logLevel = 'error';
  const session = await ort.InferenceSession.create(fs.readFileSync(path.join(spec.model, 'model.onnx')), { executionProviders: ['wasm'], graphOptimizationLevel: 'all',
    externalData: [{ path: 'model.safetensors', data: fs.readFileSync(path.join(spec.model, 'model.safetensors')) }] });
  const seq = spec.seq ?? 128;
  const ids = BigInt64Array.from({ length: seq }, (_, i) => BigInt((i * 7919 + 13) % 512));
  const feeds = { input_ids: new ort.Tensor('int64', ids, [1, seq]), attention_mask: new ort.Tensor('int64', new BigInt64Array(seq).fill(1n), [1, seq]) };
  run = () => session.run(feeds);
} else {
  const rpModule = await import(webIndex);
  const pre = spec.preinitSingle ? await rpModule.init({ simd: true }) : null;
  const rp = spec.threads > 1 ? await rpModule.init({ threads: spec.threads }) : await rpModule.init({ simd: true });
  reportedThreads = rp.threads;
  reason = rp.threadsReason;
  if (spec.attention) {
    const S = spec.attention, H = 8, D = 64, n = H * S * D;
    const x = new Float32Array(n).map((_, i) => Math.sin(i * 0.37));
    const args = { q: x, k: x, v: x, batch: 1, heads: H, seqLen: S, headDim: D, scheme: { type: 'none' } };
    run = () => rp.attention(args);
  } else {
    const m = await rp.loadModel(spec.model, spec.dtype === 'q8' ? { dtype: 'q8' } : {});
    const seq = spec.seq ?? 128, batch = spec.batch ?? 1;
    const inputIds = Array.from({ length: batch }, (_, b) => Array.from({ length: seq }, (_, i) => (i * 7919 + 13 + 31 * b) % 512));
    run = () => m.forward({ inputIds: batch === 1 ? inputIds[0] : inputIds });
  }
}
for (let w = 0; w < (spec.warm ?? 3); ++w) await run();
const reps = spec.reps ?? 30;
if (spec.yieldEvery) await new Promise((r) => setTimeout(r, 0));
// per-thread CPU ticks (utime + stime) from /proc/self/task/*/stat (Linux): which threads worked
const taskTicks = () => {
  const out = {};
  try {
    for (const t of fs.readdirSync('/proc/self/task')) {
      const st = fs.readFileSync(`/proc/self/task/${t}/stat`, 'utf8');
      const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
      const [oncpu, delay] = fs.readFileSync(`/proc/self/task/${t}/schedstat`, 'utf8').split(' ').map(Number);
      out[t] = { name: st.slice(st.indexOf('(') + 1, st.lastIndexOf(')')), ticks: +f[11] + +f[12], oncpu: oncpu / 1e6, delay: delay / 1e6 };
    }
  } catch { /* not Linux */ }
  return out;
};
const k0 = taskTicks();
const c0 = process.cpuUsage(), t0 = performance.now();
for (let r = 0; r < reps; ++r) {
  const p = run();
  if (p instanceof Promise) await p;
  else if (spec.awaitEach) await null;
}
const wall = performance.now() - t0, u = process.cpuUsage(c0), cpu = (u.user + u.system) / 1000;
const k1 = taskTicks();
// per thread that ran: ms on a CPU, ms runnable but waiting for one (schedstat run_delay), ms blocked (the rest of the wall time)
const busy = Object.entries(k1).filter(([t, v]) => k0[t] && v.oncpu - k0[t].oncpu > 0.05 * wall).map(([t, v]) => {
  const on = v.oncpu - k0[t].oncpu, delay = v.delay - k0[t].delay;
  return { tid: +t, on_cpu_ms: +on.toFixed(1), runnable_waiting_ms: +delay.toFixed(1), blocked_ms: +(wall - on - delay).toFixed(1) };
});
console.log(JSON.stringify({ runtime: spec.runtime ?? 'relpos', threads: reportedThreads, reason, reps, wall_ms: +wall.toFixed(2), cpu_ms: +cpu.toFixed(2),
  cpu_per_wall: +(cpu / wall).toFixed(3), per_call_ms: +(wall / reps).toFixed(3), threads_sched: busy }));
process.exit(0);
