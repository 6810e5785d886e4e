// A naive pure-JavaScript stand-in for the *planned* relpos package API (web/index.js), used only
// to develop and test the demo page while the real WebAssembly package is not built yet:
//   node scripts/serve.mjs --web tests/browser/stand-in
// It is NOT the package and is never shipped. It follows cpp/include/relpos/schemes.h and
// positions.h literally, with O(seq²·d) loops and no SIMD; `standIn: true` marks it.

const TAU_BASE = 10000;

// ---------------------------------------------------------------- positions
function sinusoidRow(p, dim, layout = 'interleaved', base = TAU_BASE, out = new Float32Array(dim)) {
  const half = dim / 2;
  for (let i = 0; i < half; i++) {
    const w = Math.pow(base, (-2 * i) / dim);
    if (layout === 'concatenated') {
      out[i] = Math.sin(p * w);
      out[half + i] = Math.cos(p * w);
    } else {
      out[2 * i] = Math.sin(p * w);
      out[2 * i + 1] = Math.cos(p * w);
    }
  }
  return out;
}
function sinusoidTable(length, dim, layout = 'interleaved', base = TAU_BASE, firstPosition = 0) {
  const t = new Float32Array(length * dim);
  for (let p = 0; p < length; p++) sinusoidRow(firstPosition + p, dim, layout, base, t.subarray(p * dim, (p + 1) * dim));
  return t;
}
function mapTable(seq, f) {
  const t = new Int32Array(seq * seq);
  for (let i = 0; i < seq; i++) for (let j = 0; j < seq; j++) t[i * seq + j] = f(i, j);
  return t;
}
const clip = (x, lo, hi) => Math.min(hi, Math.max(lo, x));
const shawIndexTable = (seq, k) => mapTable(seq, (i, j) => clip(j - i, -k, k) + k);
const bertRelativeIndexTable = (seq, m) => mapTable(seq, (i, j) => i - j + m - 1);

function t5RelativeBucket(rel, bidirectional = true, numBuckets = 32, maxDistance = 128) {
  let bucket = 0;
  let n = numBuckets;
  if (bidirectional) {
    n = Math.floor(n / 2);
    if (rel > 0) bucket += n;
    rel = Math.abs(rel);
  } else {
    rel = -Math.min(rel, 0);
  }
  const maxExact = Math.floor(n / 2);
  if (rel < maxExact) return bucket + rel;
  const large = maxExact + Math.trunc((Math.log(rel / maxExact) / Math.log(maxDistance / maxExact)) * (n - maxExact));
  return bucket + Math.min(large, n - 1);
}
const t5BucketTable = (seq, bidirectional, numBuckets, maxDistance) =>
  mapTable(seq, (i, j) => t5RelativeBucket(j - i, bidirectional, numBuckets, maxDistance));

function debertaRelativePosition(rel, buckets, maxRelative) {
  if (!(buckets > 0 && maxRelative > 0)) return rel;
  const mid = Math.floor(buckets / 2);
  const sign = Math.sign(rel);
  const absPos = rel < mid && rel > -mid ? mid - 1 : Math.abs(rel);
  if (absPos <= mid) return rel;
  const logPos = Math.ceil((Math.log(absPos / mid) / Math.log((maxRelative - 1) / mid)) * (mid - 1)) + mid;
  return logPos * sign;
}
const debertaRelativeTable = (seq, buckets, maxRelative) =>
  mapTable(seq, (i, j) => debertaRelativePosition(i - j, buckets, maxRelative));
const debertaSpan = (buckets, maxRelative) => (buckets > 0 ? buckets : maxRelative);

function alibiSlopes(heads, rule = 'bloom', mptBiasMax = 8) {
  const s = [];
  if (rule === 'mpt') {
    const n = 2 ** Math.ceil(Math.log2(heads));
    const all = [];
    for (let k = 1; k <= n; k++) all.push(1 / 2 ** ((k * mptBiasMax) / n));
    if (n !== heads) {
      const odd = all.filter((_, i) => i % 2 === 1);
      const even = all.filter((_, i) => i % 2 === 0);
      s.push(...odd, ...even);
    } else s.push(...all);
    return Float32Array.from(s.slice(0, heads));
  }
  const cp = 2 ** Math.floor(Math.log2(heads));
  const base = 2 ** -(8 / cp);
  for (let k = 1; k <= cp; k++) s.push(base ** k);
  if (cp !== heads) {
    const extra = 2 ** -(4 / cp);
    const rem = Math.min(cp, heads - cp);
    for (let k = 1; k < 1 + 2 * rem; k += 2) s.push(extra ** k);
  }
  return Float32Array.from(s);
}
function alibiBiases(seq, heads, rule = 'bloom', symmetric = false) {
  const slopes = typeof rule === 'string' ? alibiSlopes(heads, rule) : rule;
  const t = new Float32Array(heads * seq * seq);
  for (let h = 0; h < heads; h++)
    for (let i = 0; i < seq; i++)
      for (let j = 0; j < seq; j++) t[(h * seq + i) * seq + j] = symmetric ? -slopes[h] * Math.abs(i - j) : slopes[h] * (j - i);
  return t;
}
function ropeTables(length, rotaryDim, layout = 'half', theta = 10000) {
  const cos = new Float32Array(length * rotaryDim);
  const sin = new Float32Array(length * rotaryDim);
  const half = rotaryDim / 2;
  for (let p = 0; p < length; p++)
    for (let i = 0; i < half; i++) {
      const a = p * Math.pow(theta, (-2 * i) / rotaryDim);
      const idx = layout === 'interleaved' ? [2 * i, 2 * i + 1] : [i, i + half];
      for (const c of idx) {
        cos[p * rotaryDim + c] = Math.cos(a);
        sin[p * rotaryDim + c] = Math.sin(a);
      }
    }
  return { cos, sin };
}

// ---------------------------------------------------------------- attention
const dot = (a, ao, b, bo, n) => {
  let s = 0;
  for (let t = 0; t < n; t++) s += a[ao + t] * b[bo + t];
  return s;
};

function schemeSetup(s, dims) {
  const { heads, seq, headDim: d } = dims;
  const inv = 1 / Math.sqrt(d);
  const base = { scale: inv, names: [], terms: () => [], rewrite: null, value: null };
  switch (s.type) {
    case 'none':
      return base;
    case 'sinusoidal': {
      const pe = sinusoidTable(seq, d, s.layout ?? 'interleaved', s.base ?? TAU_BASE);
      return { ...base, rewrite: (x, isV) => addRows(x, pe, seq, d) };
    }
    case 'learned-absolute': {
      if (s.table.length < seq * d) throw new RangeError(`learned-absolute: table has ${s.table.length / d} rows < seq ${seq}`);
      return { ...base, rewrite: (x) => addRows(x, s.table, seq, d) };
    }
    case 'shaw': {
      const k = s.maxDistance;
      return {
        ...base,
        names: ['relative'],
        terms: (h, q, K, i, j) => [dot(q, i * d, s.keyTable, (clip(j - i, -k, k) + k) * d, d) * inv],
        value: s.valueTable ? (i, j) => (clip(j - i, -k, k) + k) * d : null,
        valueTable: s.valueTable,
      };
    }
    case 'bert-relative': {
      const M = s.maxPositions;
      if (seq > M) throw new RangeError(`bert-relative: seq ${seq} > maxPositions ${M}`);
      return {
        ...base,
        names: s.keyQuery ? ['query_relative', 'key_relative'] : ['query_relative'],
        terms: (h, q, K, i, j) => {
          const r = (i - j + M - 1) * d;
          const a = dot(q, i * d, s.table, r, d) * inv;
          return s.keyQuery ? [a, dot(K, j * d, s.table, r, d) * inv] : [a];
        },
      };
    }
    case 'huang': {
      const m = s.maxDistance;
      const row = new Float32Array(d);
      return {
        ...base,
        names: ['relative'],
        terms: (h, q, K, i, j) => {
          let e;
          if (s.table) e = s.table.subarray((clip(j - i, -m, m) + m) * d, (clip(j - i, -m, m) + m + 1) * d);
          else e = sinusoidRow(j - i, d, 'concatenated', TAU_BASE, row);
          return [dot(q, i * d, e, 0, d) * inv];
        },
      };
    }
    case 'transformer-xl': {
      const D = s.dModel;
      const c = s.clampLen ?? 0;
      // projected relative rows per head for r = i − j ∈ [−(seq−1), seq−1]
      const proj = new Float32Array(heads * (2 * seq - 1) * d);
      const R = new Float32Array(D);
      for (let r = -(seq - 1); r <= seq - 1; r++) {
        sinusoidRow(c > 0 ? clip(r, -c, c) : r, D, 'concatenated', TAU_BASE, R);
        for (let h = 0; h < heads; h++)
          for (let t = 0; t < d; t++) proj[(h * (2 * seq - 1) + r + seq - 1) * d + t] = dot(s.wKR, (h * d + t) * D, R, 0, D);
      }
      return {
        ...base,
        names: ['position', 'content_bias', 'position_bias'],
        terms: (h, q, K, i, j) => {
          const p = (h * (2 * seq - 1) + i - j + seq - 1) * d;
          return [dot(q, i * d, proj, p, d) * inv, dot(s.u, h * d, K, j * d, d) * inv, dot(s.v, h * d, proj, p, d) * inv];
        },
      };
    }
    case 't5': {
      const nb = s.numBuckets ?? 32;
      return {
        ...base,
        scale: 1,
        names: ['bias'],
        terms: (h, q, K, i, j) => [s.biasTable[t5RelativeBucket(j - i, s.bidirectional ?? true, nb, s.maxDistance ?? 128) * heads + h]],
      };
    }
    case 'deberta': {
      const want = s.terms ?? ['c2p', 'p2c'];
      const span = debertaSpan(s.buckets ?? 256, s.maxRelative ?? 512);
      const sc = 1 / Math.sqrt(d * (1 + want.length));
      const r = (a, b) => debertaRelativePosition(a - b, s.buckets ?? 256, s.maxRelative ?? 512);
      return {
        ...base,
        scale: sc,
        names: want,
        terms: (h, q, K, i, j) =>
          want.map((t) =>
            t === 'c2p'
              ? dot(q, i * d, s.posKey, (h * 2 * span + clip(r(i, j) + span, 0, 2 * span - 1)) * d, d) * sc
              : dot(K, j * d, s.posQuery, (h * 2 * span + clip(-r(j, i) + span, 0, 2 * span - 1)) * d, d) * sc,
          ),
      };
    }
    case 'rope': {
      const rd = s.rotaryDim || d;
      const { cos, sin } = ropeTables(seq, rd, s.layout ?? 'half', s.theta ?? 10000);
      return {
        ...base,
        rewrite: (x, isV) => {
          if (isV) return x;
          const y = Float32Array.from(x);
          for (let p = 0; p < seq; p++)
            for (let i = 0; i < rd / 2; i++) {
              const [a, b] = s.layout === 'interleaved' ? [2 * i, 2 * i + 1] : [i, i + rd / 2];
              const c = cos[p * rd + a], sn = sin[p * rd + a];
              y[p * d + a] = x[p * d + a] * c - x[p * d + b] * sn;
              y[p * d + b] = x[p * d + b] * c + x[p * d + a] * sn;
            }
          return y;
        },
      };
    }
    case 'alibi': {
      const slopes = typeof s.slopes === 'string' || !s.slopes ? alibiSlopes(heads, s.slopes ?? 'bloom') : s.slopes;
      return {
        ...base,
        names: ['bias'],
        terms: (h, q, K, i, j) => [s.symmetric ? -slopes[h] * Math.abs(i - j) : slopes[h] * (j - i)],
      };
    }
    default:
      throw new TypeError(`unknown scheme type ${s.type}`);
  }
}
function addRows(x, table, seq, d) {
  const y = Float32Array.from(x);
  for (let t = 0; t < seq * d; t++) y[t] += table[t];
  return y;
}

function attention(o) {
  const { q, k, v, batch = 1, heads = 1, seqLen: seq, headDim: d, mask, causal = false } = o;
  const n = batch * heads * seq * d;
  for (const [name, x] of [['q', q], ['k', k], ['v', v]])
    if (!(x instanceof Float32Array) || x.length !== n) throw new RangeError(`${name} must be a Float32Array of ${n} floats`);
  const sc = schemeSetup(o.scheme ?? { type: 'none' }, { heads, seq, headDim: d });
  const output = new Float32Array(n);
  const ss = seq * seq;
  const probs = o.returnProbs ? new Float32Array(batch * heads * ss) : null;
  const termNames = ['content', ...sc.names];
  const terms = o.returnTerms ? Object.fromEntries(termNames.map((t) => [t, new Float32Array(batch * heads * ss)])) : null;
  const row = new Float64Array(seq);
  for (let b = 0; b < batch; b++)
    for (let h = 0; h < heads; h++) {
      const off = (b * heads + h) * seq * d;
      let Q = q.subarray(off, off + seq * d), K = k.subarray(off, off + seq * d), V = v.subarray(off, off + seq * d);
      if (sc.rewrite) [Q, K, V] = [sc.rewrite(Q, false), sc.rewrite(K, false), sc.rewrite(V, true)];
      for (let i = 0; i < seq; i++) {
        let mx = -Infinity;
        for (let j = 0; j < seq; j++) {
          const c = dot(Q, i * d, K, j * d, d) * sc.scale;
          const extra = sc.terms(h, Q, K, i, j);
          let l = c;
          for (const e of extra) l += e;
          const at = ((b * heads + h) * seq + i) * seq + j;
          if (terms) {
            terms.content[at] = c;
            sc.names.forEach((t, ti) => (terms[t][at] = extra[ti]));
          }
          const masked = (mask && !mask[b * seq + j]) || (causal && j > i) || (o.window != null && Math.abs(i - j) > o.window);
          row[j] = masked ? -Infinity : l;
          if (row[j] > mx) mx = row[j];
        }
        let sum = 0;
        for (let j = 0; j < seq; j++) sum += row[j] = mx === -Infinity ? 0 : Math.exp(row[j] - mx);
        for (let j = 0; j < seq; j++) {
          const p = sum > 0 ? row[j] / sum : 0;
          if (probs) probs[((b * heads + h) * seq + i) * seq + j] = p;
          for (let t = 0; t < d; t++) output[off + i * d + t] += p * V[j * d + t];
          if (sc.value && p) {
            const r = sc.value(i, j);
            for (let t = 0; t < d; t++) output[off + i * d + t] += p * sc.valueTable[r + t];
          }
        }
      }
    }
  const res = { output };
  if (probs) res.probs = probs;
  if (terms) res.terms = terms;
  return res;
}

export async function init(options = {}) {
  return {
    simd: options.simd === undefined || options.simd === 'auto' ? true : !!options.simd,
    standIn: true,
    version: '0.0.0-stand-in',
    attention,
    schemes: ['none', 'sinusoidal', 'learned-absolute', 'shaw', 'bert-relative', 'huang', 'transformer-xl', 't5', 'deberta', 'rope', 'alibi'],
    // same signatures as web/positions.js
    positions: {
      sinusoidTable: (length, dim, o = {}) => sinusoidTable(length, dim, o.layout, o.base, o.firstPosition),
      sinusoidRow: (p, dim, o = {}) => sinusoidRow(p, dim, o.layout, o.base),
      shawIndexTable,
      bertRelativeIndexTable,
      t5RelativeBucket: (r, o = {}) => t5RelativeBucket(r, o.bidirectional ?? true, o.numBuckets ?? 32, o.maxDistance ?? 128),
      t5BucketTable: (seq, o = {}) => t5BucketTable(seq, o.bidirectional ?? true, o.numBuckets ?? 32, o.maxDistance ?? 128),
      debertaRelativePosition: (r, o = {}) => debertaRelativePosition(r, o.buckets ?? 256, o.maxRelative ?? 512),
      debertaRelativeTable: (seq, o = {}) => debertaRelativeTable(seq, o.buckets ?? 256, o.maxRelative ?? 512),
      debertaSpan: (o = {}) => debertaSpan(o.buckets ?? 256, o.maxRelative ?? 512),
      alibiSlopes: (heads, rule = 'bloom', o = {}) => alibiSlopes(heads, rule, o.biasMax ?? 8),
      alibiBias: (seq, slopes, o = {}) => alibiBiases(seq, slopes.length, slopes, o.symmetric ?? false),
      ropeTables: (length, rotaryDim, o = {}) => ropeTables(length, rotaryDim, o.layout ?? 'half', o.theta ?? 10000),
    },
  };
}
export default init;
