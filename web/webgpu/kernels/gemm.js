// GEMM with a fused bias + activation epilogue, register-tiled; f32 or f16 storage, f32 arithmetic.
//
//   transB = true  (nn.Linear):  C[M, N] = act(A[M, K] · W[N, K]ᵀ + bias[N])
//   transB = false (plain):      C[M, N] = act(A[M, K] · B[K, N]  + bias[N])
// Row-major f32 throughout; bias optional; act ∈ none, relu, gelu (erf), gelu_tanh, silu (activation_wgsl.js).
// Accumulation is f32, k in ascending order per 4-lane vector.
//
// Tiling (variant = `${BM}x${BN}` plus BK): one workgroup of 256 threads computes a BM×BN tile of C; each
// thread a TM×TN block of it, held in TM·TN/4 vec4 registers (all loops are unrolled by this generator, so
// nothing spills to indexed private arrays). Thread (tx, ty) owns rows g·(4·BM/TM) + 4·ty + r (TM/4 groups
// g of 4 rows r) and columns g'·(4·BN/TN) + 4·tx + c: vec4 reads of shared memory, no bank conflicts on B.
// K advances BK at a time through shared memory, double-buffered: tile t+1's global vec4 loads are issued
// into registers before tile t is multiplied, then stored into the other buffer — one barrier per tile.
// Shared layout: As[buf][k][m] and Bs[buf][k][n] as vec4 along m / n (A and W are transposed on the way in).
//   variant      BM×BN  BK  TM×TN  shared memory
//   '128x128'    128×128 8  8×8    16 KiB
//   '128x128k16' 128×128 16 8×8    32 KiB  (needs maxComputeWorkgroupStorageSize ≥ 32768)
//   '128x64'     128×64  8  8×4    12 KiB
//   '64x64'      64×64  16  4×4    16 KiB
// Split K (split = S > 1, for products too small to fill the GPU): workgroup z = s sums k in
// [s·kSplit, min(K, (s + 1)·kSplit)) (kSplit a multiple of BK) into f32 partials P[s][M][N] (ctx.splitPartials,
// one buffer grown as needed), and a second pass (splitReduceWgsl) writes C = act(Σ_s P[s] + bias) in s order. Each
// element's sum then runs over the same k in the same order within a split, the splits added afterwards: a different
// rounding from the unsplit product (f32, k ascending across the whole K).
// Vector path when K % 4 == 0 and N % 4 == 0 (buffers bound as array<vec4<f32>>), else a scalar path
// with the same tiling. Global loads are bounds-checked (zero fill) and stores guarded: a few integer ops
// per tile load, so one pipeline serves every shape (fewer shader compiles).
// Several outputs (parts: the q, k and v projections of one input, or a gated FFN's two halves, as one product over
// their weights concatenated along N — the executor's fused GEMM groups, executor.js): columns [s_p, s_p + w_p) of
// C go to output p at element offset o_p as a row-major [M, w_p] matrix, each part with its own activation; outputs
// are up to 3 bindings, parts in one buffer share a binding (their offsets differ), so no two writable bindings
// alias. Every element is the same sum in the same order as in a product of its part alone: bit-identical results.
// A gated A operand, as a gated FFN's down projection reads gate ⊙ act(up): gate, a second buffer G of A's shape
// (each A value is A·G as it is loaded), or glu { activation, actHalf }, A holding both halves as [M, 2K] (each A
// value is act(A[m, h·K + k]) · A[m, (1 − h)·K + k], h = actHalf: ModernBERT's GeGLU). Rounded to the storage type as
// a separate product would store it, so the product is never written and the result equals its GEMM over the
// stored product bit for bit.
// Storage (dtype.js): dtype 'f32' (default) or 'f16' for A, C, bias and float weights; tiles in shared memory
// and the accumulators are f32 either way (an f16 load is widened once, on its way into shared memory).
// q8 weights (transB only: an nn.Linear loaded with dtype 'q8', cpp/src/plan/plan.h Q8Values): W is
//   wq  u32 [N · ceil(K/4)]: byte b of word (n, w) = int8 q[n][4w + b]
//   ws  u32 [N · (1 + ceil(G/8))], G = ceil(K/32): word 0 of row n = bits of the f32 row scale s[n], then the
//       4-bit group multipliers m − 1 (group g at word 1 + g/8, bits 4·(g % 8))
//   W[n][k] = s[n] · m[n][k/32] · q[n][k], dequantized in the tile load (4 k of one row share one word and
//   one group), so the GEMM reads ~1 byte per weight instead of 4; everything after the load is the f32 path.
import { dispatch, grid } from '../device.js';
import { activationWgsl, ACTIVATIONS } from './activation_wgsl.js';
import { storage, requireDtype } from './dtype.js';

export const GEMM_VARIANTS = Object.freeze({
  '128x128': { BM: 128, BN: 128, BK: 8, TM: 8, TN: 8 },
  '128x128k16': { BM: 128, BN: 128, BK: 16, TM: 8, TN: 8 },
  '128x64': { BM: 128, BN: 64, BK: 8, TM: 8, TN: 4 },
  '64x64': { BM: 64, BN: 64, BK: 16, TM: 4, TN: 4 },
});

const THREADS = 256;

export function gemmSharedBytes(variant) {
  const { BM, BN, BK } = GEMM_VARIANTS[variant];
  return 2 * (BK * BM + BK * BN) * 4;
}

/** Workgroups of a variant over C [M, N]. */
export function gemmWorkgroups(variant, M, N) {
  const { BM, BN } = GEMM_VARIANTS[variant];
  return Math.ceil(M / BM) * Math.ceil(N / BN);
}

/**
 * The variant used when none is named: 128×128 tiles where they still make ≥ 192 workgroups, else 64×64 (4× the
 * workgroups). A GPU is only fast when its cores are all busy: on an NVIDIA H200 (132 SMs; bench/gpu/bench.mjs,
 * bench/results/gpu/nvidia-h200-2026-11-26*), DeBERTa-base's FFN down at 512 tokens (512 × 3072 → 768) ran at
 * 4.8 TFLOP/s in 24 workgroups of 128×128 and 10.7 in 96 of 64×64, its FFN up (→ 3072) 13.5 (96 of 128×128) against
 * 14.9 (384 of 64×64), while MiniLM's 64 × 128-token products (576–768 workgroups of 128×128) ran 15–25 % faster
 * in 128×128 tiles; 128×64 was never the fastest.
 */
export function defaultGemmVariant(ctx, M, N) {
  const fits = (v) => gemmSharedBytes(v) <= (ctx.limits.maxComputeWorkgroupStorageSize ?? 16384);
  if (fits('128x128') && gemmWorkgroups('128x128', M, N) >= 192) return '128x128';
  return '64x64';
}

/**
 * Splits of K used when none is named (1: none): products whose 64×64 tiles make fewer than 48 workgroups and whose
 * K is ≥ 1024 (a 128-token input to a 1024-wide model: Qwen3's down projection, 128 × 3072 → 1024, is 32 tiles of
 * 3072 k) are split into up to 8 parts of ≥ 256 k, so that the product runs in about 128 workgroups. The H200 ran a
 * 512 × 3072 → 768 product 2.2× faster in 96 workgroups than in 24 (defaultGemmVariant); splitting itself is not yet
 * timed on a GPU (bench/gpu/bench.mjs times it at the real-size shapes).
 */
export function defaultGemmSplit(variant, M, N, K) {
  const groups = gemmWorkgroups(variant, M, N);
  if (groups >= 48 || K < 1024) return 1;
  return Math.max(1, Math.min(8, Math.ceil(128 / groups), Math.floor(K / 256)));
}

/** Words per row of a q8 weight [N, K]: { q: ceil(K/4), s: 1 + ceil(ceil(K/32)/8) } (the header's layout). */
export function q8RowWords(K) {
  return { q: Math.ceil(K / 4), s: 1 + Math.ceil(Math.ceil(K / 32) / 8) };
}

// Parts (several outputs): the output bindings' names, binding 0 of the parts being C itself.
const outName = (b) => (b === 0 ? 'C' : `C${b}`);

// WGSL of a parts store: fn put(row, col, v) (vector: a vec4 at col..col+3, all in one part) or put1(row, col, v),
// each part's activation applied; `dims` has s1, s2 (part starts), w0..w2 (widths), o0..o2 (element offsets).
function partsWgsl(parts, vector, S) {
  const F = vector ? 'vec4<f32>' : 'f32', st = vector ? S.storeV : S.store, L = [];
  parts.forEach((p, i) => L.push(activationWgsl(p.activation, F, `p${i}`)));
  L.push(`fn ${vector ? 'put' : 'put1'}(row: u32, col: u32, v: ${F}) {`);
  parts.forEach((p, i) => {
    const start = i === 0 ? '0u' : `dims.s${i}`;
    const at = `dims.o${i} + row * dims.w${i} + col - ${start}`;
    const line = `${outName(p.binding)}[${vector ? `(${at}) / 4u` : at}] = ${st(`act_p${i}(v)`)};`;
    L.push(i < parts.length - 1 ? `  if (col < dims.s${i + 1}) { ${line} return; }` : `  ${line}`);
  });
  L.push('}');
  return L.join('\n');
}

// The output declarations after C (bindings `first`, first + 1, …) of a parts product.
function partBindings(parts, first, T) {
  const n = Math.max(...parts.map((p) => p.binding)) + 1;
  return Array.from({ length: n - 1 }, (_, j) => `@group(0) @binding(${first + j}) var<storage, read_write> ${outName(j + 1)}: array<${T}>;`);
}

const PART_DIMS = 's1: u32, s2: u32, w0: u32, w1: u32, w2: u32, o0: u32, o1: u32, o2: u32';

/**
 * WGSL source for one (variant, transB, vector, bias, activation, dtype, weights) combination; parts:
 * [{ binding, activation }] for several outputs (activation then per part), not with split (the reduction writes them).
 */
export function gemmWgsl({ variant, transB, vector, bias, activation, dtype = 'f32', weights = 'float', split = false, parts = null, gate = false, glu = null }) {
  const cfg = GEMM_VARIANTS[variant];
  if (!cfg) throw new Error(`webgpu: gemm: unknown variant '${variant}' (expected ${Object.keys(GEMM_VARIANTS).join(', ')})`);
  const { BM, BN, BK, TM, TN } = cfg;
  const TX = BN / TN, TY = BM / TM;
  if (TX * TY !== THREADS) throw new Error(`webgpu: gemm: variant ${variant} does not have ${THREADS} threads`);
  const GM = TM / 4, GN = TN / 4; // vec4 groups per thread along m and n
  const SM = BM / GM, SN = BN / GN; // row / column stride between a thread's groups
  const AS = (BK * BM) / 4, BS = (BK * BN) / 4; // vec4s per shared buffer
  const q8 = weights === 'q8';
  if (weights !== 'float' && !q8) throw new Error(`webgpu: gemm: weights '${weights}' (expected 'float' or 'q8')`);
  if (q8 && !transB) throw new Error('webgpu: gemm: q8 weights are nn.Linear rows (transB = true)');
  if (split && bias) throw new Error('webgpu: gemm: a split product adds its bias in the reduction (splitReduceWgsl)');
  if (split && parts) throw new Error('webgpu: gemm: a split product writes its parts in the reduction (splitReduceWgsl)');
  const S = storage(dtype);
  const T = vector ? S.V : S.E;
  const ld = vector ? S.loadV : S.load; // storage → f32 (identity for f32)
  const L = [];
  L.push(`${S.enable}// relpos gemm ${variant} transB=${transB} vector=${vector} bias=${bias} act=${activation} dtype=${dtype} weights=${weights}${split ? ' split' : ''}`);
  L.push(`struct Dims { M: u32, N: u32, K: u32, kSplit: u32${parts ? `, ${PART_DIMS}` : ''} }`);
  L.push(`@group(0) @binding(0) var<storage, read> A: array<${T}>;`);
  L.push(`@group(0) @binding(1) var<storage, read> B: array<${q8 ? 'u32' : T}>;`);
  // split: C is the f32 partials [S, M, N]
  L.push(`@group(0) @binding(2) var<storage, read_write> C: array<${split ? (vector ? 'vec4<f32>' : 'f32') : T}>;`);
  L.push('@group(0) @binding(3) var<uniform> dims: Dims;');
  if (bias) L.push(`@group(0) @binding(4) var<storage, read> bias: array<${T}>;`);
  if (q8) {
    L.push(`@group(0) @binding(${bias ? 5 : 4}) var<storage, read> Bs8: array<u32>;`);
    // W[n][k..k+3] (k a multiple of 4) dequantized; 0 outside [N, K].
    L.push(`fn wq(n: u32, k: u32, kEnd: u32) -> vec4<f32> {
  if (n >= dims.N || k >= kEnd) { return vec4<f32>(0.0); }
  let w = bitcast<i32>(B[n * ((dims.K + 3u) / 4u) + k / 4u]);
  let g = k / 32u;
  let sb = n * (1u + (dims.K + 255u) / 256u);
  let s = bitcast<f32>(Bs8[sb]) * f32(((Bs8[sb + 1u + g / 8u] >> ((g % 8u) * 4u)) & 15u) + 1u);
  return vec4<f32>(f32(extractBits(w, 0u, 8u)), f32(extractBits(w, 8u, 8u)), f32(extractBits(w, 16u, 8u)), f32(extractBits(w, 24u, 8u))) * s;
}`);
  }
  const extraOuts = parts ? Math.max(...parts.map((p) => p.binding)) : 0;
  if (parts) {
    L.push(...partBindings(parts, 4 + (bias ? 1 : 0) + (q8 ? 1 : 0), T));
    L.push(partsWgsl(parts, vector, S));
  }
  if (gate) L.push(`@group(0) @binding(${4 + (bias ? 1 : 0) + (q8 ? 1 : 0) + extraOuts}) var<storage, read> G: array<${T}>;`);
  if (glu) L.push(activationWgsl(glu.activation, 'vec4<f32>', 'glu'));
  L.push(`var<workgroup> As: array<vec4<f32>, ${2 * AS}>;`);
  L.push(`var<workgroup> Bs: array<vec4<f32>, ${2 * BS}>;`);
  L.push(activationWgsl(activation, 'vec4<f32>', 'v'));

  // Global loads into registers: one vec4 per load slot (4 consecutive k for A / W, 4 consecutive n for B).
  // A slot e covers row e / (BK/4), k-chunk e % (BK/4) of the tile.
  const slotsA = (BM * BK) / 4, slotsB = (BN * BK) / 4;
  const nA = Math.ceil(slotsA / THREADS), nB = Math.ceil(slotsB / THREADS);
  // load4(buf, rowExpr, colExpr, rows, cols, ld): a vec4 at (row, col..col+3) of a row-major [rows, cols] matrix.
  const load4 = (buf, row, col, rows, cols, ldm) => {
    if (q8 && buf === 'B') return `wq(${row}, ${col}, kEnd)`;
    if ((gate || glu) && buf === 'A') {
      const half = (h) => (h ? `${col} + dims.K` : col); // the pair layout: columns of the h-th half of a 2K-wide row
      const product = gate ? `${loadRaw('A', row, col, rows, cols, ldm)} * ${loadRaw('G', row, col, rows, cols, ldm)}`
        : `act_glu(${loadRaw('A', row, half(glu.actHalf), rows, cols, '2u * dims.K', col)}) * ${loadRaw('A', row, half(1 - glu.actHalf), rows, cols, '2u * dims.K', col)}`;
      return dtype === 'f32' ? product : S.loadV(S.storeV(product));
    }
    return loadRaw(buf, row, col, rows, cols, ldm);
  };
  // at: the column checked against `cols` (the k of a pair layout's column, whose index is col + K)
  const loadRaw = (buf, row, col, rows, cols, ldm, at = col) => {
    if (vector) {
      const idx = `((${row}) * ${ldm} + (${col})) / 4u`;
      return `select(vec4<f32>(0.0), ${ld(`${buf}[min(${idx}, arrayLength(&${buf}) - 1u)]`)}, (${row}) < ${rows} && (${at}) < ${cols})`;
    }
    const one = (c) => {
      const r = `(${row})`, k = `(${col}) + ${c}u`;
      return `select(0.0, ${ld(`${buf}[min(${r} * ${ldm} + ${k}, arrayLength(&${buf}) - 1u)]`)}, ${r} < ${rows} && (${at}) + ${c}u < ${cols})`;
    };
    return `vec4<f32>(${one(0)}, ${one(1)}, ${one(2)}, ${one(3)})`;
  };
  const fetch = [];
  const store = [];
  for (let l = 0; l < nA; ++l) {
    const guard = slotsA % THREADS !== 0 ? `if (tid + ${l * THREADS}u < ${slotsA}u) ` : '';
    fetch.push(`${guard}{ let e = tid + ${l * THREADS}u; ra${l} = ${load4('A', `m0 + e / ${BK / 4}u`, `k0 + (e % ${BK / 4}u) * 4u`, 'dims.M', 'kEnd', 'dims.K')}; }`);
    // transposed store: As[buf][k + c][row] (vec4 index (k + c)·BM/4 + row/4, lane row % 4)
    store.push(`${guard}{ let e = tid + ${l * THREADS}u; let row = e / ${BK / 4}u; let k = (e % ${BK / 4}u) * 4u; let at = nb * ${AS}u + row / 4u; let lane = row % 4u;
      As[at + (k + 0u) * ${BM / 4}u][lane] = ra${l}.x; As[at + (k + 1u) * ${BM / 4}u][lane] = ra${l}.y;
      As[at + (k + 2u) * ${BM / 4}u][lane] = ra${l}.z; As[at + (k + 3u) * ${BM / 4}u][lane] = ra${l}.w; }`);
  }
  for (let l = 0; l < nB; ++l) {
    const guard = slotsB % THREADS !== 0 ? `if (tid + ${l * THREADS}u < ${slotsB}u) ` : '';
    if (transB) {
      fetch.push(`${guard}{ let e = tid + ${l * THREADS}u; rb${l} = ${load4('B', `n0 + e / ${BK / 4}u`, `k0 + (e % ${BK / 4}u) * 4u`, 'dims.N', 'kEnd', 'dims.K')}; }`);
      store.push(`${guard}{ let e = tid + ${l * THREADS}u; let row = e / ${BK / 4}u; let k = (e % ${BK / 4}u) * 4u; let at = nb * ${BS}u + row / 4u; let lane = row % 4u;
      Bs[at + (k + 0u) * ${BN / 4}u][lane] = rb${l}.x; Bs[at + (k + 1u) * ${BN / 4}u][lane] = rb${l}.y;
      Bs[at + (k + 2u) * ${BN / 4}u][lane] = rb${l}.z; Bs[at + (k + 3u) * ${BN / 4}u][lane] = rb${l}.w; }`);
    } else {
      // B [K, N]: slot e covers k-row e / (BN/4), n-chunk e % (BN/4): copied as is.
      fetch.push(`${guard}{ let e = tid + ${l * THREADS}u; rb${l} = ${load4('B', `k0 + e / ${BN / 4}u`, `n0 + (e % ${BN / 4}u) * 4u`, 'kEnd', 'dims.N', 'dims.N')}; }`);
      store.push(`${guard}{ let e = tid + ${l * THREADS}u; Bs[nb * ${BS}u + e] = rb${l}; }`);
    }
  }

  L.push(`@compute @workgroup_size(${THREADS})
fn main(@builtin(local_invocation_index) tid: u32, @builtin(workgroup_id) wg: vec3<u32>) {
  let n0 = wg.x * ${BN}u;
  let m0 = wg.y * ${BM}u;
  let tx = tid % ${TX}u;
  let ty = tid / ${TX}u;
  // the k this workgroup sums: all of K, or split wg.z's range
  let kBeg = ${split ? 'wg.z * dims.kSplit' : '0u'};
  let kEnd = ${split ? 'min(dims.K, kBeg + dims.kSplit)' : 'dims.K'};
  let out0 = ${split ? 'wg.z * dims.M * dims.N' : '0u'};`);
  for (let l = 0; l < nA; ++l) L.push(`  var ra${l} = vec4<f32>(0.0);`);
  for (let l = 0; l < nB; ++l) L.push(`  var rb${l} = vec4<f32>(0.0);`);
  for (let g = 0; g < GM; ++g) for (let r = 0; r < 4; ++r) for (let h = 0; h < GN; ++h) L.push(`  var c${g}_${r}_${h} = vec4<f32>(0.0);`);
  L.push(`  let tiles = (kEnd - kBeg + ${BK - 1}u) / ${BK}u;
  var k0 = kBeg;
  var nb = 0u;
  ${fetch.join('\n  ')}
  ${store.join('\n  ')}
  workgroupBarrier();
  for (var t = 0u; t < tiles; t++) {
    let cb = t % 2u;
    nb = 1u - cb;
    k0 = kBeg + (t + 1u) * ${BK}u;
    let more = t + 1u < tiles;
    if (more) {
      ${fetch.join('\n      ')}
    }`);
  for (let k = 0; k < BK; ++k) {
    for (let g = 0; g < GM; ++g) L.push(`    let a${k}_${g} = As[cb * ${AS}u + ${k * (BM / 4) + (g * SM) / 4}u + ty];`);
    for (let h = 0; h < GN; ++h) L.push(`    let b${k}_${h} = Bs[cb * ${BS}u + ${k * (BN / 4) + (h * SN) / 4}u + tx];`);
    for (let g = 0; g < GM; ++g)
      for (let r = 0; r < 4; ++r)
        for (let h = 0; h < GN; ++h) L.push(`    c${g}_${r}_${h} = fma(vec4<f32>(a${k}_${g}[${r}]), b${k}_${h}, c${g}_${r}_${h});`);
  }
  L.push(`    if (more) {
      ${store.join('\n      ')}
    }
    workgroupBarrier();
  }`);
  // Epilogue: bias, activation, store.
  for (let g = 0; g < GM; ++g)
    for (let r = 0; r < 4; ++r) {
      L.push(`  {
    let row = m0 + ${g * SM + r}u + ty * 4u;`);
      for (let h = 0; h < GN; ++h) {
        const col = `n0 + ${h * SN}u + tx * 4u`;
        const inside = 'row < dims.M && col < dims.N';
        L.push(`    {
      let col = ${col};
      if (${inside}) {`);
        if (vector) {
          L.push(`        var v = c${g}_${r}_${h};`);
          if (bias) L.push(`        v = v + ${ld('bias[col / 4u]')};`);
          if (parts) L.push('        put(row, col, v);');
          else L.push(split ? '        C[(out0 + row * dims.N + col) / 4u] = v;' : `        C[(row * dims.N + col) / 4u] = ${S.storeV('act_v(v)')};`);
        } else {
          L.push(`        var v = c${g}_${r}_${h};`);
          if (bias) L.push(`        v = v + vec4<f32>(${['bias[col]', 'bias[min(col + 1u, dims.N - 1u)]', 'bias[min(col + 2u, dims.N - 1u)]', 'bias[min(col + 3u, dims.N - 1u)]'].map(ld).join(', ')});`);
          if (parts) {
            for (let c = 0; c < 4; ++c) L.push(`        if (col + ${c}u < dims.N) { put1(row, col + ${c}u, v[${c}]); }`);
          } else {
            L.push('        v = act_v(v);');
            for (let c = 0; c < 4; ++c) L.push(`        if (col + ${c}u < dims.N) { C[${split ? 'out0 + ' : ''}row * dims.N + col + ${c}u] = ${split ? `v[${c}]` : S.store(`v[${c}]`)}; }`);
          }
        }
        L.push('      }\n    }');
      }
      L.push('  }');
    }
  L.push('}');
  return L.join('\n');
}

/**
 * WGSL of a split product's second pass: C[i] = act(Σ_{s < S} P[s·M·N + i] + bias[i % N]), s ascending; with parts
 * ([{ binding, activation }]) each element goes to its part's output as in the product's own epilogue.
 */
export function splitReduceWgsl({ vector, bias, activation, dtype = 'f32', parts = null }) {
  const S = storage(dtype);
  const T = vector ? S.V : S.E, F = vector ? 'vec4<f32>' : 'f32';
  const row = vector ? '(dims.N / 4u)' : 'dims.N';
  const put = !parts ? `C[i] = ${(vector ? S.storeV : S.store)('act_v(v)')};`
    : `${vector ? 'put' : 'put1'}(i / ${row}, (i % ${row})${vector ? ' * 4u' : ''}, v);`;
  return `${S.enable}// relpos gemm split reduce vector=${vector} bias=${bias} act=${activation} dtype=${dtype}${parts ? ` parts=${parts.map((p) => `${p.binding}:${p.activation}`).join(',')}` : ''}
struct Dims { n: u32, N: u32, S: u32, gx: u32${parts ? `, ${PART_DIMS}` : ''} }
@group(0) @binding(0) var<storage, read> P: array<${F}>;
@group(0) @binding(1) var<storage, read_write> C: array<${T}>;
@group(0) @binding(2) var<uniform> dims: Dims;
${bias ? `@group(0) @binding(3) var<storage, read> bias: array<${T}>;` : ''}
${parts ? `${partBindings(parts, bias ? 4 : 3, T).join('\n')}\n${partsWgsl(parts, vector, S)}` : activationWgsl(activation, F, 'v')}
@compute @workgroup_size(${THREADS})
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = gid.y * dims.gx * ${THREADS}u + gid.x;  // element (vec4 of elements) of C
  if (i >= dims.n) { return; }
  var v = P[i];
  for (var s = 1u; s < dims.S; s++) { v += P[s * dims.n + i]; }
  ${bias ? `v += ${(vector ? S.loadV : S.load)(`bias[i % ${row}]`)};` : ''}
  ${put}
}`;
}

/**
 * Records C = act(A·Wᵀ + bias) (transB, default) or act(A·B + bias) into `encoder`.
 * args: { a, b, c, bias?, M, N, K, transB = true, activation = 'none', variant?, dtype = 'f32' ('f16':
 * a, b, c, bias hold f16; needs ctx.shaderF16), scales? } — GPUBuffers. With `scales`, b holds q8 weights
 * (the header's wq words, transB only) and scales their ws words.
 * parts (instead of c and activation): [{ c, n, offset = 0, activation = 'none' }], up to 3, Σ n = N: columns of C in
 * order, part p written to its c (a GPUBuffer or a { buffer, offset } view) at element `offset` as [M, n].
 * gate: a buffer of A's shape and type: the product uses A ⊙ gate as its A (a gated FFN's down projection).
 * glu: { activation, actHalf = 0 }: a holds [M, 2K], the product uses act(one half) ⊙ the other as its A.
 */
export function gemm(ctx, encoder, args) {
  const { a, b, M, N, K } = args;
  // split (defaultGemmSplit when not given): K in this many parts of whole BK tiles, then one reduction pass
  const transB = args.transB ?? true;
  const dtype = args.dtype ?? 'f32';
  requireDtype(ctx, dtype, 'gemm');
  const q8 = !!args.scales;
  if (q8 && !transB) throw new Error('webgpu: gemm: q8 weights (scales given) need transB = true (nn.Linear rows)');
  const activation = args.activation ?? 'none';
  if (!ACTIVATIONS.includes(activation)) throw new Error(`webgpu: gemm: activation '${activation}' (expected ${ACTIVATIONS.join(', ')})`);
  for (const [name, v] of [['M', M], ['N', N], ['K', K]])
    if (!Number.isInteger(v) || v < 1) throw new RangeError(`webgpu: gemm: ${name}: expected a positive integer, got ${v}`);
  const variant = args.variant ?? defaultGemmVariant(ctx, M, N);
  const cfg = GEMM_VARIANTS[variant];
  if (!cfg) throw new Error(`webgpu: gemm: unknown variant '${variant}' (expected ${Object.keys(GEMM_VARIANTS).join(', ')})`);
  const shared = gemmSharedBytes(variant);
  const limit = ctx.limits.maxComputeWorkgroupStorageSize ?? 16384;
  if (shared > limit) throw new RangeError(`webgpu: gemm: variant '${variant}' needs ${shared} bytes of workgroup memory, this device allows ${limit}`);
  const eb = dtype === 'f16' ? 2 : 4, words = q8RowWords(K);
  const out = args.parts ? gemmParts(args.parts, M, N, eb) : null;
  const c = out ? out.buffers[0] : args.c;
  const glu = args.glu ? { activation: args.glu.activation ?? 'none', actHalf: args.glu.actHalf ?? 0 } : null;
  if (glu && (!ACTIVATIONS.includes(glu.activation) || (glu.actHalf !== 0 && glu.actHalf !== 1)))
    throw new Error(`webgpu: gemm: glu: expected { activation: ${ACTIVATIONS.join(' | ')}, actHalf: 0 | 1 }, got ${JSON.stringify(args.glu)}`);
  if (glu && args.gate) throw new Error('webgpu: gemm: gate and glu are two layouts of one gated A: give one');
  const need = [['a', a, (glu ? 2 : 1) * M * K, eb, dtype]];
  if (args.gate) need.push(['gate', args.gate, M * K, eb, dtype]);
  if (!out) need.push(['c', c, M * N, eb, dtype]);
  if (q8) need.push(['b', b, N * words.q, 4, 'u32 (q8 words)'], ['scales', args.scales, N * words.s, 4, 'u32 (q8 scale words)']);
  else need.push(['b', b, N * K, eb, dtype]);
  if (args.bias) need.push(['bias', args.bias, N, eb, dtype]);
  for (const [name, buf, n, bytes, type] of need)
    if (!buf || buf.size < n * bytes) throw new RangeError(`webgpu: gemm: ${name}: expected a GPUBuffer of at least ${n * bytes} bytes (${n} ${type}), got ${buf ? buf.size + ' bytes' : buf}`);
  const asked = args.split ?? defaultGemmSplit(variant, M, N, K);
  if (!Number.isInteger(asked) || asked < 1) throw new RangeError(`webgpu: gemm: split: expected a positive integer, got ${asked}`);
  const kSplit = Math.ceil(Math.ceil(K / asked) / cfg.BK) * cfg.BK, parts = Math.ceil(K / kSplit);
  const vector = K % 4 === 0 && N % 4 === 0 && (!out || out.vector);
  const split = parts > 1;
  const layout = out ? out.parts.map((p) => ({ binding: p.binding, activation: p.activation })) : null;
  const outKey = layout ? `:parts=${layout.map((p) => `${p.binding}${p.activation === 'none' ? '' : `/${p.activation}`}`).join(',')}` : '';
  const gate = !!args.gate;
  const opts = { variant, transB, vector, bias: !split && !!args.bias, activation: split || out ? 'none' : activation, dtype, weights: q8 ? 'q8' : 'float', split, parts: split ? null : layout, gate, glu };
  const key = `gemm:${variant}:${transB ? 'nt' : 'nn'}:${vector ? 'v' : 's'}:${opts.bias ? 'bias' : '-'}:${opts.activation}${dtype === 'f32' ? '' : `:${dtype}`}${q8 ? ':q8' : ''}${split ? ':split' : outKey}${gate ? ':gate' : ''}${glu ? `:glu=${glu.activation}/${glu.actHalf}` : ''}`;
  const pipeline = ctx.pipeline(key, () => gemmWgsl(opts));
  const partials = split ? ctx.splitPartials(parts * M * N * 4) : null;
  const buffers = [a, b, split ? partials : c, ctx.uniforms([M, N, K, kSplit, ...(out && !split ? out.dims : [])])];
  if (opts.bias) buffers.push(args.bias);
  if (q8) buffers.push(args.scales);
  if (out && !split) buffers.push(...out.buffers.slice(1));
  if (gate) buffers.push(args.gate);
  const gx = Math.ceil(N / cfg.BN), gy = Math.ceil(M / cfg.BM);
  dispatch(ctx, encoder, pipeline, buffers, [gx, gy, parts], key);
  if (!split) return;
  const bias = !!args.bias, n = vector ? (M * N) / 4 : M * N;
  const rkey = `gemm-split-reduce:${vector ? 'v' : 's'}:${bias ? 'bias' : '-'}:${out ? 'none' : activation}${dtype === 'f32' ? '' : `:${dtype}`}${outKey}`;
  const reduce = ctx.pipeline(rkey, () => splitReduceWgsl({ vector, bias, activation: out ? 'none' : activation, dtype, parts: layout }));
  const g = grid(ctx, Math.ceil(n / THREADS));
  const rb = [partials, c, ctx.uniforms([n, N, parts, g[0], ...(out ? out.dims : [])])];
  if (bias) rb.push(args.bias);
  if (out) rb.push(...out.buffers.slice(1));
  dispatch(ctx, encoder, reduce, rb, g, rkey);
}

// A parts product's outputs: each part's buffer (a view's underlying one, its offset in elements added to the part's),
// one binding per distinct buffer (parts in one buffer share it), the uniform words (s1, s2, w0..w2, o0..o2) and
// whether every part keeps the vec4 path (widths and offsets multiples of 4).
function gemmParts(list, M, N, eb) {
  if (!Array.isArray(list) || list.length < 1 || list.length > 3) throw new RangeError(`webgpu: gemm: parts: expected 1 to 3 outputs, got ${Array.isArray(list) ? list.length : list}`);
  const buffers = [], parts = [];
  let start = 0;
  for (const [i, p] of list.entries()) {
    const activation = p.activation ?? 'none';
    if (!ACTIVATIONS.includes(activation)) throw new Error(`webgpu: gemm: parts[${i}].activation '${activation}' (expected ${ACTIVATIONS.join(', ')})`);
    if (!Number.isInteger(p.n) || p.n < 1) throw new RangeError(`webgpu: gemm: parts[${i}].n: expected a positive integer, got ${p.n}`);
    const view = p.c?.buffer !== undefined && p.c?.offset !== undefined;
    const buffer = view ? p.c.buffer : p.c;
    if (view && p.c.offset % eb) throw new RangeError(`webgpu: gemm: parts[${i}].c: a view at byte ${p.c.offset}, not a whole element`);
    const offset = (p.offset ?? 0) + (view ? p.c.offset / eb : 0);
    if (!buffer || buffer.size < (offset + M * p.n) * eb) throw new RangeError(`webgpu: gemm: parts[${i}].c: expected a GPUBuffer of at least ${(offset + M * p.n) * eb} bytes (${M}×${p.n} from element ${offset}), got ${buffer ? buffer.size + ' bytes' : buffer}`);
    let binding = buffers.indexOf(buffer);
    if (binding < 0) binding = buffers.push(buffer) - 1;
    parts.push({ binding, activation, start, n: p.n, offset });
    start += p.n;
  }
  if (start !== N) throw new RangeError(`webgpu: gemm: parts: widths sum to ${start}, expected N = ${N}`);
  const at = (i, k) => parts[i]?.[k] ?? 0;
  const dims = [at(1, 'start'), at(2, 'start'), at(0, 'n'), at(1, 'n'), at(2, 'n'), at(0, 'offset'), at(1, 'offset'), at(2, 'offset')];
  return { buffers, parts, dims, vector: parts.every((p) => p.n % 4 === 0 && p.offset % 4 === 0) };
}
