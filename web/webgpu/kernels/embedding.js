// Embedding gather, f32 or f16 storage of tables and out (dtype.js; the sum in f32): the sum of up to three table rows per token (BERT: word + position + token type).
//
//   out[t, c] = Σ_s table_s[ids_s[t], c]     t < tokens, c < dim, s < tables (1 to 3)
// tables: [rows_s, dim] row-major; ids_s: u32 [tokens]. Ids are checked on the CPU when given as typed
// arrays (embeddingIds); in the shader an id ≥ rows_s reads row rows_s − 1 rather than another buffer.
// One invocation per output element, 256 per workgroup.
// A q8 table (an EmbeddingTable loaded with dtype 'q8'; cpp/src/plan/plan.h Q8Values, the words of gemm.js's
// q8 weights): `table` holds u32 words, 4 int8 of a row each (row stride ceil(dim/4)), and `scales` the row's
// words (f32 scale bits, then 4-bit multipliers − 1 per 32 columns; 0 for a table): value = s · m · q, as the
// CPU's q8 gather dequantizes it.
import { dispatch, grid } from '../device.js';
import { storage, requireDtype } from './dtype.js';

const THREADS = 256;

export function embeddingWgsl(count, dtype = 'f32', q8 = []) {
  const S = storage(dtype);
  const L = [`${S.enable}struct Dims { tokens: u32, dim: u32, gx: u32, pad: u32, rows: vec4<u32> }`,
    '@group(0) @binding(0) var<uniform> dims: Dims;',
    `@group(0) @binding(1) var<storage, read_write> out: array<${S.E}>;`];
  let b = 2;
  for (let s = 0; s < count; ++s) {
    L.push(`@group(0) @binding(${b++}) var<storage, read> table${s}: array<${q8[s] ? 'u32' : S.E}>;`,
      `@group(0) @binding(${b++}) var<storage, read> ids${s}: array<u32>;`);
    if (q8[s]) L.push(`@group(0) @binding(${b++}) var<storage, read> scales${s}: array<u32>;`);
  }
  L.push(`@compute @workgroup_size(${THREADS})
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let i = gid.y * dims.gx * ${THREADS}u + gid.x;
  if (i >= dims.tokens * dims.dim) { return; }
  let t = i / dims.dim;
  let c = i % dims.dim;
  var v = 0.0;`);
  for (let s = 0; s < count; ++s) {
    const row = `min(ids${s}[t], dims.rows[${s}] - 1u)`;
    if (q8[s])
      L.push(`  {
    let r = ${row};
    let w = bitcast<i32>(table${s}[r * ((dims.dim + 3u) / 4u) + c / 4u]);
    let sb = r * (1u + (dims.dim + 255u) / 256u);
    let g = c / 32u;
    let m = f32(((scales${s}[sb + 1u + g / 8u] >> ((g % 8u) * 4u)) & 15u) + 1u);
    v += bitcast<f32>(scales${s}[sb]) * m * f32(extractBits(w, (c % 4u) * 8u, 8u));
  }`);
    else L.push(`  v += ${S.load(`table${s}[${row} * dims.dim + c]`)};`);
  }
  L.push(`  out[i] = ${S.store('v')};\n}`);
  return L.join('\n');
}

/** Checks ids (a typed array) against a table's row count; returns a Uint32Array copy. */
export function embeddingIds(ids, rows, name = 'ids') {
  const out = new Uint32Array(ids.length);
  for (let t = 0; t < ids.length; ++t) {
    const id = Number(ids[t]);
    if (!Number.isInteger(id) || id < 0 || id >= rows)
      throw new RangeError(`webgpu: embedding: ${name}[${t}] = ${ids[t]} is outside the table's ${rows} rows`);
    out[t] = id;
  }
  return out;
}

/**
 * args: { out, tokens, dim, tables: [{ table, ids, rows, scales? }] (1 to 3), dtype = 'f32' } — buffers; out is
 * [tokens, dim]. A table with `scales` is q8 (the header's words).
 */
export function embedding(ctx, encoder, { out, tokens, dim, tables, dtype = 'f32' }) {
  requireDtype(ctx, dtype, 'embedding');
  if (!Array.isArray(tables) || tables.length < 1 || tables.length > 3)
    throw new RangeError(`webgpu: embedding: tables: expected 1 to 3 { table, ids, rows }, got ${Array.isArray(tables) ? tables.length : typeof tables}`);
  if (!Number.isInteger(tokens) || tokens < 1 || !Number.isInteger(dim) || dim < 1)
    throw new RangeError(`webgpu: embedding: tokens and dim: expected positive integers, got ${tokens}, ${dim}`);
  const rows = [0, 0, 0, 0];
  tables.forEach((t, s) => {
    if (!Number.isInteger(t.rows) || t.rows < 1) throw new RangeError(`webgpu: embedding: tables[${s}].rows: expected a positive integer, got ${t.rows}`);
    rows[s] = t.rows;
  });
  const q8 = tables.map((t) => !!t.scales);
  const key = `embedding:${tables.length}${dtype === 'f32' ? '' : `:${dtype}`}${q8.some(Boolean) ? `:q8=${q8.map(Number).join('')}` : ''}`;
  const pipeline = ctx.pipeline(key, () => embeddingWgsl(tables.length, dtype, q8));
  const g = grid(ctx, Math.ceil((tokens * dim) / THREADS));
  const buffers = [ctx.uniforms([tokens, dim, g[0], 0, ...rows]), out];
  for (const t of tables) buffers.push(t.table, t.ids, ...(t.scales ? [t.scales] : []));
  dispatch(ctx, encoder, pipeline, buffers, g, key);
}
