// loadModel wall time A/B of two checkouts' web/ folders (a before/after of a load change), one fresh Node process per
// load, alternating, 5 rounds, medians; prints { ms, weights, build, heap } per side (info.loadMs, rp.heapBytes).
//   node bench/lib/load_ab.mjs <model folder> <variant | -> <webDirA> <webDirB> [--out file.json] [--webgpu] [--dtype q8]
// --webgpu: device 'webgpu', fp32, through Dawn (bench/gpu/common.mjs; without a GPU, SwiftShader with
// VK_ICD_FILENAMES — its uploads are CPU copies, the rest of the load is what a GPU machine's CPU does); each load also
// reports info.loadMs.gpu.
// A web dir ending in '#f32-bytes-only' is that dir with its GPU weight sink taking float32 bytes alone (F16 / BF16
// tensors then arrive as float32 rows decoded in the heap, as before the sink widened them on the GPU); one ending in
// '#q8-in-heap' has a sink without beginQ8 (a q8 load then quantizes into the heap and lays the int8 model out for the
// GPU after the load, as before q8 layers streamed to the GPU). Each load also reports gpuBytes, the bytes the sink wrote
// (none when the executor uploads the weights after the load).

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
const args = process.argv.slice(2);
const outAt = args.indexOf('--out');
const outFile = outAt >= 0 ? args.splice(outAt, 2)[1] : null;
const gpuAt = args.indexOf('--webgpu');
const webgpu = gpuAt >= 0 && args.splice(gpuAt, 1).length > 0;
const dtypeAt = args.indexOf('--dtype');
const dtype = dtypeAt >= 0 ? args.splice(dtypeAt, 2)[1] : 'fp32';
const [model, variant, ...webs] = args;
const res = Object.fromEntries(webs.map((w) => [w, []]));
const common = new URL('../gpu/common.mjs', import.meta.url).href;
const code = `const { GpuWeightSink } = await import(process.env.WEB + '/webgpu/weight-sink.js'); let gpuBytes = 0;
if (process.env.VARIANT_FLAG === 'f32-bytes-only') Object.defineProperty(GpuWeightSink.prototype, 'takesBytes', { get: () => ['F32'], set() {} });
if (process.env.VARIANT_FLAG === 'q8-in-heap') GpuWeightSink.prototype.beginQ8 = undefined;
const { writeBytes, rows } = GpuWeightSink.prototype;
GpuWeightSink.prototype.writeBytes = function (id, o, v) { gpuBytes += v.length; return writeBytes.call(this, id, o, v); };
GpuWeightSink.prototype.rows = function (id, f, c, v) { gpuBytes += v.byteLength; return rows.call(this, id, f, c, v); };
const { q8Rows } = GpuWeightSink.prototype;
GpuWeightSink.prototype.q8Rows = function (id, f, c, q, s) { gpuBytes += q.byteLength + s.byteLength; return q8Rows.call(this, id, f, c, q, s); };
const rp0 = await import(process.env.WEB + '/index.js'); const R = await rp0.init({ threads: 1 });
const options = { dtype: process.env.DTYPE, ...(process.env.VARIANT ? { variant: process.env.VARIANT } : {}) };
if (process.env.WEBGPU) Object.assign(options, { device: 'webgpu', gpu: (await (await import('${common}')).openDawn()).gpu });
const t = performance.now(); const m = await R.loadModel(process.env.MODEL, options);
const ms = performance.now() - t; const l = m.info.loadMs; console.log(JSON.stringify({ ms, weights: l.weights, build: l.build, heap: R.heapBytes, gpu: l.gpu, gpuBytes }));`;
for (let r = 0; r < 5; ++r)
  for (const w of r % 2 ? [...webs].reverse() : webs) {
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', code], { env: { ...process.env, DTYPE: dtype, WEB: w.replace(/#.*$/, ''), VARIANT_FLAG: w.includes('#') ? w.slice(w.indexOf('#') + 1) : '', MODEL: model, VARIANT: variant === '-' ? '' : variant, WEBGPU: webgpu ? '1' : '' } }).toString();
    res[w].push(JSON.parse(out.trim().split('\n').at(-1)));
  }
const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
if (outFile) fs.writeFileSync(outFile, JSON.stringify({ date: new Date().toISOString(), model, variant, dtype, device: webgpu ? 'webgpu' : 'wasm', node: process.version, cpu: (await import('node:os')).cpus()[0].model, loadavg: (await import('node:os')).loadavg(), runs: res }, null, 1));
for (const w of webs) {
  const gpu = webgpu ? [...['weightValues', 'uploads'].map((k) => `${k} ${med(res[w].map((x) => x.gpu[k])).toFixed(0)}`), `gpuBytes ${res[w][0].gpuBytes}`].join(' ') : '';
  console.log(w, 'median ms', med(res[w].map((x) => x.ms)).toFixed(0), 'weights', med(res[w].map((x) => x.weights)).toFixed(0), 'build', med(res[w].map((x) => x.build)).toFixed(0), gpu, 'heap MiB', (med(res[w].map((x) => x.heap)) / 2 ** 20).toFixed(0));
}
