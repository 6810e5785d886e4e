// Every scheme the demo runs, as the planned rp.attention() scheme objects, with deterministic
// random learned tables (seeded), so the same scheme is built identically on the page and in
// the worker. Learned tables are random here: they show the mechanics, not trained values.
import { rng } from './rng.js';

export const SCHEMES = [
  { type: 'none', label: 'None (plain attention)' },
  { type: 'sinusoidal', label: 'Sinusoidal absolute' },
  { type: 'learned-absolute', label: 'Learned absolute (BERT)' },
  { type: 'shaw', label: 'Shaw relative' },
  { type: 'bert-relative', label: 'BERT relative_key_query' },
  { type: 'huang', label: 'Huang relative' },
  { type: 'transformer-xl', label: 'Transformer-XL' },
  { type: 't5', label: 'T5 relative bias' },
  { type: 'deberta', label: 'DeBERTa disentangled' },
  { type: 'rope', label: 'RoPE' },
  { type: 'alibi', label: 'ALiBi' },
];
// Whether this build of the package provides a scheme (rp.schemes lists them; absent = assume yes).
export const available = (rp, type) => !Array.isArray(rp.schemes) || rp.schemes.includes(type);
export const NOT_IN_BUILD = 'not in this build of relpos yet';

export const schemeLabel = (type) => SCHEMES.find((s) => s.type === type)?.label ?? type;

// Defaults per scheme; any of them can be overridden through `params`.
export const DEFAULTS = {
  shaw: { maxDistance: 3 },
  'bert-relative': { maxPositions: 512 },
  huang: { maxDistance: 16 },
  'transformer-xl': { clampLen: 0 },
  t5: { numBuckets: 32, maxDistance: 128, bidirectional: true },
  deberta: { buckets: 256, maxRelative: 512 },
  rope: { layout: 'half', theta: 10000 },
  // Symmetric by default: the demo's encoders are bidirectional, and there m·(j − i) loses its −m·i
  // part to the softmax (constant per row), leaving a bias that no longer depends on the query.
  alibi: { slopes: 'bloom', symmetric: true },
  sinusoidal: { layout: 'interleaved' },
};

// dims: { heads, headDim, seqLen }; seed: number. Table scales keep position terms comparable to q·k.
export function makeScheme(type, dims, params = {}, seed = 7) {
  const { heads, headDim: d, seqLen } = dims;
  const p = { ...DEFAULTS[type], ...params };
  const r = rng(seed * 7919 + type.length * 104729);
  const table = (rows, cols = d, std = 1) => r.normals(rows * cols, std);
  switch (type) {
    case 'none':
      return { type };
    case 'sinusoidal':
      return { type, layout: p.layout };
    case 'learned-absolute':
      return { type, table: table(Math.max(seqLen, p.rows ?? 512), d, 0.5) };
    case 'shaw':
      return { type, maxDistance: p.maxDistance, keyTable: table(2 * p.maxDistance + 1), valueTable: table(2 * p.maxDistance + 1, d, 0.5) };
    case 'bert-relative': {
      const M = Math.max(p.maxPositions, seqLen);
      return { type, maxPositions: M, keyQuery: true, table: table(2 * M - 1) };
    }
    case 'huang':
      return { type, maxDistance: p.maxDistance, table: table(2 * p.maxDistance + 1) };
    case 'transformer-xl': {
      const dModel = p.dModel ?? heads * d;
      return {
        type,
        dModel,
        clampLen: p.clampLen,
        u: table(heads, d, 0.5),
        v: table(heads, d, 0.5),
        wKR: table(heads * d, dModel, 1 / Math.sqrt(dModel)),
      };
    }
    case 't5':
      return { type, numBuckets: p.numBuckets, maxDistance: p.maxDistance, bidirectional: p.bidirectional, biasTable: table(p.numBuckets, heads, 1.5) };
    case 'deberta': {
      const span = p.buckets > 0 ? p.buckets : p.maxRelative;
      return {
        type,
        buckets: p.buckets,
        maxRelative: p.maxRelative,
        terms: ['c2p', 'p2c'],
        posKey: table(heads * 2 * span),
        posQuery: table(heads * 2 * span),
      };
    }
    case 'rope':
      return { type, layout: p.layout, theta: p.theta };
    case 'alibi':
      return { type, slopes: p.slopes, symmetric: p.symmetric };
    default:
      throw new TypeError(`unknown scheme ${type}`);
  }
}

// q, k, v: [1, heads, seq, headDim] from one [seq, headDim] matrix x (identity projections).
export function sameForAllHeads(x, heads) {
  const y = new Float32Array(x.length * heads);
  for (let h = 0; h < heads; h++) y.set(x, h * x.length);
  return y;
}
