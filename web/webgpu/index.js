// relpos's WebGPU kernels (issue #27): loaded only when asked for — `await import('./webgpu/index.js')` from
// inside the package (package.json does not export it) — never by web/index.js at load.
//
//   const gpu = await createContext({ gpu });          // device.js: adapter info, features, limits
//   const a = gpu.upload(float32Array), c = gpu.empty(bytes);
//   await gpu.run((enc) => gemm(gpu, enc, { a, b, c, M, N, K, activation: 'gelu' }));
//   const result = await gpu.read(c, M * N);
// Each kernel records into a GPUCommandEncoder, so a forward pass is one command buffer; see
// docs/architecture.md for the executor that will drive them from the C++ model's plan.
export { acquireContext, createContext, findGpu, GpuContext, dispatch, lostError, f16Hint, hasSubgroups } from './device.js';
export { reduceSum } from './kernels/reduce.js';
export { gemm, gemmWgsl, GEMM_VARIANTS, defaultGemmVariant, defaultGemmSplit, gemmSharedBytes, q8RowWords } from './kernels/gemm.js';
export { DTYPES, storage, toHalf, fromHalf } from './kernels/dtype.js';
export { norm, normWgsl } from './kernels/norm.js';
export { activate, gated, add, elementwiseWgsl } from './kernels/elementwise.js';
export { embedding, embeddingIds, embeddingWgsl } from './kernels/embedding.js';
export { pooling, poolingWgsl } from './kernels/pooling.js';
export { convert, convertWgsl, widen, widenWgsl } from './kernels/convert.js';
export { paddedPositions, paddedPositionsCpu } from './kernels/positions.js';
export { rope, ropeTables, ropeWgsl } from './kernels/rope.js';
export { normRope, normRopeWgsl } from './kernels/norm_rope.js';
export { attention, attentionTile, attentionWgsl, t5Buckets, alibiSlopes } from './kernels/attention.js';
export { maskRows } from './kernels/mask_rows.js';
export { splitHeads, splitHeadsWgsl } from './kernels/heads.js';
export { ACTIVATIONS, activationName } from './kernels/activation_wgsl.js';
export { PlanExecutor, checkPlan } from './executor.js';
