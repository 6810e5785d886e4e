// Child process of the `families` bench section (lib/families.mjs): ONE runtime of the npm package at ONE
// thread count and dtype loads ONE synthetic checkpoint (lib/family_models.mjs) and times forward passes of
// batch 1 × seq tokens. Prints one JSON line:
//   { load_ms, runs_ms, median_ms (wall), cpu_median_ms (process CPU time, all threads), heap_after_load_bytes, heap_bytes,
//     threads, threads_reason } | { error }
// heap_bytes is the WebAssembly memory at the end: it never shrinks, so it is the run's peak.
//   node --no-experimental-fetch families_child.mjs '<spec JSON>'
// spec: { webIndex, threads: 1 | 2, dtype: 'fp32' | 'q8', family, layers, everyN, seq, vocab, reps, warm }
import { median } from './util.mjs';
import { familyCheckpoint, familyIds } from './family_models.mjs';

const spec = JSON.parse(process.argv[2]);
try {
  const rpModule = await import(spec.webIndex);
  const rp = await rpModule.init(spec.threads > 1 ? { threads: spec.threads } : {});
  let files = familyCheckpoint(spec.family, spec);
  const t0 = performance.now();
  const model = await rp.loadModel(files, spec.dtype === 'q8' ? { dtype: 'q8' } : {});
  const load_ms = performance.now() - t0;
  files = null;
  const heap_after_load_bytes = rp.heapBytes;
  const ids = familyIds(spec.seq, spec.vocab);
  for (let w = 0; w < (spec.warm ?? 1); ++w) model.forward({ inputIds: [ids] });
  const runs = [], cpu = [];
  for (let r = 0; r < spec.reps; ++r) {
    const c = process.cpuUsage();
    const t = performance.now();
    model.forward({ inputIds: [ids] });
    runs.push(performance.now() - t);
    const u = process.cpuUsage(c);
    cpu.push((u.user + u.system) / 1000);
  }
  console.log(JSON.stringify({ load_ms: +load_ms.toFixed(1), runs_ms: runs.map((x) => +x.toFixed(2)), median_ms: +median(runs).toFixed(2),
    cpu_median_ms: +median(cpu).toFixed(2),
    heap_after_load_bytes, heap_bytes: rp.heapBytes, threads: rp.threads ?? 1, threads_reason: rp.threadsReason ?? null }));
  model.dispose();
} catch (e) {
  console.log(JSON.stringify({ error: String(e?.message ?? e) }));
}
