// GPU-side GEMM times (timestamp queries around the dispatches, so no CPU encode or submit cost is counted) for the
// products relpos's models run with few rows, and Dawn's experimental subgroup matrices (tensor cores through
// VK_KHR_cooperative_matrix) tried on the same products (issue #37):
//   - relpos's GEMM (web/webgpu/kernels/gemm.js) in f32 and f16 storage with its default tile and split, at
//     the shapes of one MiniLM sentence, Qwen3-0.6B and EmbeddingGemma-300m at 128 tokens, DeBERTa-base at 512
//     and MiniLM's 64 × 128-token batch;
//   - where the adapter exposes 'chromium-experimental-subgroup-matrix' (Dawn instance toggle allow_unsafe_apis):
//     its configurations (adapter.info.subgroupMatrixConfigs) and, for the f16 → f32 one, a plain subgroup-matrix
//     GEMM C = A·Wᵀ (one subgroup per workgroup, TM × TN result matrices each, operands loaded straight from storage
//     buffers), checked against float64 of the f16 operands and timed the same way.
// Not used by any model: a probe of what the feature gives, kept off by default (docs/webgpu.md, "Subgroup matrices").
// Writes $OUT/gemm-probe.json after every row. GPU_BENCH_SMALL=1: small shapes (SwiftShader has no subgroup matrices;
// the relpos rows and the feature probe still run).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadDawn, median, random } from './common.mjs';

const W = await import('../../web/webgpu/index.js');
const { GpuContext } = await import('../../web/webgpu/device.js');
const SMALL = process.env.GPU_BENCH_SMALL === '1';
const OUT = process.env.OUT || 'bench/results/tmp/gpu';
mkdirSync(OUT, { recursive: true });
const started = Date.now();
const log = (...a) => console.log(`[${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s]`, ...a);

const FEATURE = 'chromium-experimental-subgroup-matrix';
const dawn = await loadDawn();
const flags = (process.env.RELPOS_DAWN_FLAGS ?? '').split(/\s+/).filter(Boolean);
// allow_unsafe_apis exposes the experimental features; Dawn takes one enable-dawn-features list
const toggles = ['allow_unsafe_apis', ...flags.filter((f) => f.startsWith('enable-dawn-features=')).flatMap((f) => f.slice(21).split(','))];
const gpu = dawn.create([...flags.filter((f) => !f.startsWith('enable-dawn-features=')), `enable-dawn-features=${[...new Set(toggles)].join(',')}`]);
const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
const want = ['shader-f16', 'timestamp-query', 'subgroups', FEATURE].filter((f) => adapter.features.has(f));
const limits = {};
for (const name of ['maxComputeWorkgroupStorageSize', 'maxComputeInvocationsPerWorkgroup', 'maxStorageBufferBindingSize', 'maxBufferSize'])
  limits[name] = adapter.limits[name];
const device = await adapter.requestDevice({ requiredFeatures: want, requiredLimits: limits });
const ai = adapter.info ?? {};
const configs = [...(ai.subgroupMatrixConfigs ?? [])].map((c) => ({ componentType: c.componentType, resultComponentType: c.resultComponentType, M: c.M, N: c.N, K: c.K }));
const ctx = new GpuContext(gpu, adapter, device, { backend: 'webgpu', source: 'probe', vendor: ai.vendor ?? '', architecture: ai.architecture ?? '', device: ai.device ?? '', description: ai.description ?? '', subgroups: device.features.has('subgroups'), subgroupMinSize: ai.subgroupMinSize ?? 0, subgroupMaxSize: ai.subgroupMaxSize ?? 0 }, [...device.features].sort(), Object.fromEntries(Object.entries(device.limits).filter(([, v]) => typeof v === 'number')));
const result = { date: new Date().toISOString(), small: SMALL, node: process.version, toggles, adapter: ctx.info, features: ctx.features, subgroupMatrixConfigs: configs, rows: [], errors: [] };
const save = () => writeFileSync(join(OUT, 'gemm-probe.json'), JSON.stringify(result, null, 1) + '\n');
log('adapter', JSON.stringify(ctx.info));
log('features', ctx.features.join(' '));
log('subgroup matrix configs', JSON.stringify(configs));
save();
if (!ctx.features.includes('timestamp-query')) {
  result.errors.push({ what: 'timestamp-query', message: 'the adapter has no timestamp-query: no GPU-side times' });
  save();
  log('no timestamp-query: nothing to time');
  process.exit(0);
}

// GPU time of `reps` record(pass-less encoder) calls: an empty timestamped pass before and after them.
const querySet = device.createQuerySet({ type: 'timestamp', count: 2 });
const resolved = device.createBuffer({ size: 16, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
const readBack = device.createBuffer({ size: 16, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
async function gpuSeconds(record, reps) {
  const enc = device.createCommandEncoder();
  enc.beginComputePass({ timestampWrites: { querySet, beginningOfPassWriteIndex: 0 } }).end();
  for (let r = 0; r < reps; ++r) record(enc);
  enc.beginComputePass({ timestampWrites: { querySet, endOfPassWriteIndex: 1 } }).end();
  enc.resolveQuerySet(querySet, 0, 2, resolved, 0);
  enc.copyBufferToBuffer(resolved, 0, readBack, 0, 16);
  device.queue.submit([enc.finish()]);
  await readBack.mapAsync(GPUMapMode.READ);
  const [t0, t1] = new BigUint64Array(readBack.getMappedRange().slice(0));
  readBack.unmap();
  return Number(t1 - t0) / 1e9 / reps;
}
async function measure(record, flops) {
  device.pushErrorScope('validation');
  const first = await gpuSeconds(record, 2);
  const bad = await device.popErrorScope();
  if (bad) throw new Error(bad.message);
  const reps = Math.max(2, Math.min(200, Math.ceil(0.02 / Math.max(first, 1e-7))));
  const samples = [];
  for (let s = 0; s < 5; ++s) samples.push(await gpuSeconds(record, reps));
  const t = median(samples);
  return { us: +(t * 1e6).toFixed(2), tflops: +(flops / t / 1e12).toFixed(2), reps };
}

// Products: [name, M, K, N]
const SHAPES = SMALL
  ? [['small', 64, 64, 64], ['small-wide', 32, 128, 96]]
  : [
      ['minilm 1 sentence qkv', 32, 384, 1152], ['minilm 1 sentence ffn up', 32, 384, 1536], ['minilm 1 sentence ffn down', 32, 1536, 384],
      ['qwen3 128 qkv', 128, 1024, 4096], ['qwen3 128 gate+up', 128, 1024, 6144], ['qwen3 128 o', 128, 2048, 1024], ['qwen3 128 down', 128, 3072, 1024],
      ['gemma 128 qkv', 128, 768, 1280], ['gemma 128 gate+up', 128, 768, 2304], ['gemma 128 down', 128, 1152, 768],
      ['deberta 512 ffn up', 512, 768, 3072], ['deberta 512 ffn down', 512, 3072, 768],
      ['minilm 64×128 ffn up', 8192, 384, 1536], ['4096³', 4096, 4096, 4096],
    ];

// relpos's GEMM as a model runs it: default tile and split, bias, no activation; uniforms and bind groups made while
// recording (CPU work, outside the timed span)
for (const [name, M, K, N] of SHAPES) {
  for (const dtype of ctx.shaderF16 ? ['f32', 'f16'] : ['f32']) {
    const up = (x) => (dtype === 'f16' ? ctx.upload(W.toHalf(x)) : ctx.upload(x));
    const a = up(random(M * K, 4)), b = up(random(N * K, 5)), bias = up(random(N, 6)), c = ctx.empty(M * N * (dtype === 'f16' ? 2 : 4));
    try {
      const m = await measure((enc) => W.gemm(ctx, enc, { a, b, c, bias, M, N, K, dtype }), 2 * M * N * K);
      result.rows.push({ kernel: 'relpos', dtype, name, M, K, N, ...m });
      log(`relpos ${dtype} ${name.padEnd(26)} ${M}×${K}→${N}: ${String(m.us).padStart(9)} µs ${String(m.tflops).padStart(7)} TFLOP/s`);
    } catch (e) {
      result.errors.push({ what: `relpos ${dtype} ${name}`, message: e.message });
    }
    save();
    for (const x of [a, b, bias, c]) x.destroy();
  }
}

// Subgroup matrices: C[M, N] = A[M, K] · W[N, K]ᵀ. A is the left matrix, row-major (stride K); Wᵀ is the right matrix,
// column-major with stride K (entry [k, n] at n·K + k); C row-major (stride N). One subgroup per workgroup (the
// workgroup's x size is the subgroup size), TM × TN result matrices of m × n each; loop over K in steps of k.
function sgmWgsl({ m, n, k, TM, TN, sg, inType, outType }) {
  const L = `subgroup_matrix_left<${inType}, ${k}, ${m}>`, R = `subgroup_matrix_right<${inType}, ${n}, ${k}>`, T = `subgroup_matrix_result<${outType}, ${n}, ${m}>`;
  const lines = [];
  if (inType === 'f16' || outType === 'f16') lines.push('enable f16;');
  lines.push('enable chromium_experimental_subgroup_matrix;');
  lines.push(`@group(0) @binding(0) var<storage, read> A: array<${inType}>;`);
  lines.push(`@group(0) @binding(1) var<storage, read> B: array<${inType}>;`);
  lines.push(`@group(0) @binding(2) var<storage, read_write> C: array<${outType}>;`);
  lines.push('@group(0) @binding(3) var<uniform> dims: vec4<u32>;');
  lines.push(`@compute @workgroup_size(${sg})`);
  lines.push('fn main(@builtin(workgroup_id) wg: vec3<u32>) {');
  lines.push('  let N = dims.y; let K = dims.z;');
  lines.push(`  let row0 = wg.y * ${TM * m}u; let col0 = wg.x * ${TN * n}u;`);
  for (let i = 0; i < TM; ++i) for (let j = 0; j < TN; ++j) lines.push(`  var c${i}_${j} = ${T}();`);
  lines.push(`  for (var kk = 0u; kk < K; kk += ${k}u) {`);
  for (let i = 0; i < TM; ++i) lines.push(`    let a${i} = subgroupMatrixLoad<${L}>(&A, (row0 + ${i * m}u) * K + kk, false, K);`);
  for (let j = 0; j < TN; ++j) {
    lines.push(`    let b${j} = subgroupMatrixLoad<${R}>(&B, (col0 + ${j * n}u) * K + kk, true, K);`);
    for (let i = 0; i < TM; ++i) lines.push(`    c${i}_${j} = subgroupMatrixMultiplyAccumulate(a${i}, b${j}, c${i}_${j});`);
  }
  lines.push('  }');
  for (let i = 0; i < TM; ++i) for (let j = 0; j < TN; ++j) lines.push(`  subgroupMatrixStore(&C, (row0 + ${i * m}u) * N + col0 + ${j * n}u, c${i}_${j}, false, N);`);
  lines.push('}');
  return lines.join('\n');
}

const f16Config = configs.find((c) => c.componentType === 'f16' && c.resultComponentType === 'f32');
if (!ctx.features.includes(FEATURE) || !f16Config) {
  result.subgroupMatrix = { available: false, reason: !adapter.features.has(FEATURE) ? `the adapter has no '${FEATURE}' (with allow_unsafe_apis)` : 'no f16 → f32 configuration' };
  log('subgroup matrices:', result.subgroupMatrix.reason);
  save();
} else {
  const { M: m, N: n, K: k } = f16Config, sg = ctx.info.subgroupMaxSize || 32;
  result.subgroupMatrix = { available: true, config: f16Config, subgroupSize: sg, rows: [] };
  for (const [TM, TN] of [[1, 1], [2, 2], [2, 4], [4, 2]]) {
    let pipeline;
    try {
      device.pushErrorScope('validation');
      const module = device.createShaderModule({ code: sgmWgsl({ m, n, k, TM, TN, sg, inType: 'f16', outType: 'f32' }) });
      pipeline = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' } });
      const bad = await device.popErrorScope();
      if (bad) throw new Error(bad.message);
    } catch (e) {
      result.errors.push({ what: `subgroup matrix ${TM}×${TN} compile`, message: e.message });
      save();
      log(`subgroup matrix ${TM}×${TN}: compile failed: ${e.message.slice(0, 400)}`);
      continue;
    }
    for (const [name, M, K, N] of SHAPES) {
      if (M % (TM * m) || N % (TN * n) || K % k) continue;
      const A = random(M * K, 4), B = random(N * K, 5);
      const a = ctx.upload(W.toHalf(A)), b = ctx.upload(W.toHalf(B)), c = ctx.empty(M * N * 4);
      const dims = device.createBuffer({ size: 16, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
      device.queue.writeBuffer(dims, 0, new Uint32Array([M, N, K, 0]));
      const group = device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [a, b, c, dims].map((buffer, binding) => ({ binding, resource: { buffer } })) });
      const record = (enc) => {
        const pass = enc.beginComputePass();
        pass.setPipeline(pipeline);
        pass.setBindGroup(0, group);
        pass.dispatchWorkgroups(N / (TN * n), M / (TM * m));
        pass.end();
      };
      try {
        const t = await measure(record, 2 * M * N * K);
        // accuracy: 256 sampled entries against float64 of the f16-rounded operands, relative to Σ|a·w|
        const C = await ctx.read(c, M * N);
        const Ah = W.fromHalf(W.toHalf(A)), Bh = W.fromHalf(W.toHalf(B));
        let worst = 0;
        for (let s = 0; s < 256; ++s) {
          const r = (s * 7919) % M, col = (s * 104729) % N;
          let ref = 0, mag = 0;
          for (let q = 0; q < K; ++q) { const p = Ah[r * K + q] * Bh[col * K + q]; ref += p; mag += Math.abs(p); }
          worst = Math.max(worst, Math.abs(C[r * N + col] - ref) / Math.max(mag, 1e-30));
        }
        const row = { kernel: `subgroup-matrix ${m}×${n}×${k}, ${TM}×${TN} per subgroup`, dtype: 'f16→f32', name, M, K, N, ...t, relErr: +worst.toExponential(2) };
        result.subgroupMatrix.rows.push(row);
        log(`sgm ${TM}×${TN} ${name.padEnd(26)} ${M}×${K}→${N}: ${String(t.us).padStart(9)} µs ${String(t.tflops).padStart(7)} TFLOP/s  err ${row.relErr} of Σ|a·w|`);
      } catch (e) {
        result.errors.push({ what: `subgroup matrix ${TM}×${TN} ${name}`, message: e.message });
        log(`sgm ${TM}×${TN} ${name}: ${e.message.slice(0, 300)}`);
      }
      save();
      for (const x of [a, b, c, dims]) x.destroy();
    }
  }
}
log(`done: ${result.rows.length} relpos rows, ${result.subgroupMatrix.rows?.length ?? 0} subgroup-matrix rows, ${result.errors.length} errors → ${join(OUT, 'gemm-probe.json')}`);
process.exit(0);
