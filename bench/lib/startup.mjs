// Child process: cold start of the npm package. Prints one JSON line:
// import_ms (ES module import), init_ms (init() → resolved), first_result_ms (init() start → first
// attention output of batch 1, 8 heads, seq 128, head_dim 64, scheme none), wall clock, and the
// process CPU time of the same span (all threads: wasm compilation runs on V8's background threads).
const c0 = process.cpuUsage();
const t0 = performance.now();
const rp = await import(process.argv[2]);
const t1 = performance.now();
const c1 = process.cpuUsage(c0);
const r = await rp.init({ simd: true });
const t2 = performance.now();
const n = 8 * 128 * 64;
const q = new Float32Array(n).fill(0.01), k = q, v = q;
r.attention({ q, k, v, batch: 1, heads: 8, seqLen: 128, headDim: 64, scheme: { type: 'none' } });
const t3 = performance.now();
const c3 = process.cpuUsage(c0);
const cpu = (c) => (c.user + c.system) / 1000;
console.log(JSON.stringify({ import_ms: t1 - t0, init_ms: t2 - t1, first_result_ms: t3 - t1, first_result_cpu_ms: cpu(c3) - cpu(c1), what: 'init({simd:true}) start → first rp.attention output (1×8×128×64, none), fresh node process' }));
