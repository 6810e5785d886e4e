// Child process: WebAssembly heap of the npm package after one attention call of batch 1, 8 heads,
// head_dim 64 at the given seq (fresh runtime), for one harness scheme name (lib/data.mjs tables).
// Prints one JSON line.
import { makeBenchData, packageSchemes } from './data.mjs';

const [, , index, name, seqArg] = process.argv;
const S = Number(seqArg), H = 8, D = 64, n = H * S * D;
const rp = await import(index);
const r = await rp.init({ simd: true });
const before = r.heapBytes;
const data = makeBenchData(S, H, D);
const scheme = packageSchemes(S, H, D, data)[name];
if (!scheme) throw new Error(`unknown scheme ${name}`);
const t0 = performance.now();
r.attention({ q: data.q, k: data.k, v: data.v, batch: 1, heads: H, seqLen: S, headDim: D, scheme });
const ms = performance.now() - t0;
const io = 4 * 4 * n;
console.log(JSON.stringify({ heap_before_bytes: before, heap_after_bytes: r.heapBytes, io_bytes: io, beyond_io_bytes: r.heapBytes - io, ms: +ms.toFixed(1) }));
