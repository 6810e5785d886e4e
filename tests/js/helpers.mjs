// Shared by tests/js/*.test.mjs: loading both builds and the native reference results.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** build/native/relpos-golden.json (written by `npm run build`), or $RELPOS_GOLDEN. */
export function loadGolden() {
  const path = process.env.RELPOS_GOLDEN ?? resolve(ROOT, 'build/native/relpos-golden.json');
  if (!existsSync(path)) throw new Error(`${path} is missing: run \`npm run build\` (native target relpos_golden_json)`);
  return JSON.parse(readFileSync(path, 'utf8'));
}

/** The JS scheme object of a golden case (tables named in `float32` become Float32Arrays). */
export function schemeOf(c) {
  const scheme = { ...c.scheme };
  for (const key of c.float32) scheme[key] = Float32Array.from(c.scheme[key]);
  return scheme;
}

export function attentionArgs(c, extra = {}) {
  return {
    q: Float32Array.from(c.q),
    k: Float32Array.from(c.k),
    v: Float32Array.from(c.v),
    batch: c.batch,
    heads: c.heads,
    seqLen: c.seqLen,
    headDim: c.headDim,
    causal: c.causal,
    ...(c.mask ? { mask: Uint8Array.from(c.mask) } : {}),
    scheme: schemeOf(c),
    ...extra,
  };
}

/** Largest |a − b| / (1 + |b|) over the arrays (after checking lengths). */
export function maxError(a, b) {
  if (a.length !== b.length) throw new Error(`length ${a.length} ≠ ${b.length}`);
  let worst = 0;
  for (let i = 0; i < a.length; ++i) {
    const e = Math.abs(a[i] - b[i]) / (1 + Math.abs(b[i]));
    if (!(e <= worst)) worst = Number.isNaN(e) ? Infinity : e;
  }
  return worst;
}

/** A deterministic Float32Array of n values in [-1, 1). */
export function randomArray(n, seed = 1) {
  let s = seed >>> 0;
  const out = new Float32Array(n);
  for (let i = 0; i < n; ++i) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = (s >>> 8) / 2 ** 23 - 1;
  }
  return out;
}

/** Cosine of two equal-length vectors. */
export const cosine = (a, b) => {
  let dot = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; ++i) {
    dot += a[i] * b[i];
    na += a[i] * a[i];
    nb += b[i] * b[i];
  }
  return dot / Math.sqrt(na * nb);
};
