// A small encoder with deterministic random weights, built from rp.attention and a few JS matmuls —
// the encoder section's path for schemes with no Hugging Face model family (run-encoder.js):
//   x = embed(ids);  per layer: x += Wo·attention(LN(x)Wq, LN(x)Wk, LN(x)Wv; scheme);  x += FFN(LN(x))
// It shows how a position scheme shapes attention maps; its weights are random (seeded), so it
// does not understand language.
import { rng } from '../lib/rng.js';
import { matmul, layerNorm, gelu, splitHeads, mergeHeads, norm } from '../lib/vec.js';
import { makeScheme } from '../lib/schemes.js';

export const DEFAULT_CONFIG = { vocabSize: 4096, dModel: 64, heads: 4, layers: 2, ffn: 128, seed: 2024 };

export class RandomEncoder {
  constructor(rp, config = {}) {
    this.rp = rp;
    this.config = { ...DEFAULT_CONFIG, ...config };
    const { dModel: D, ffn: F, layers, seed } = this.config;
    this.layers = [];
    for (let l = 0; l < layers; l++) {
      const r = rng(seed * 31 + l + 1);
      const s = 1 / Math.sqrt(D);
      this.layers.push({
        wq: r.normals(D * D, s), wk: r.normals(D * D, s), wv: r.normals(D * D, s), wo: r.normals(D * D, s),
        w1: r.normals(D * F, s), w2: r.normals(F * D, 1 / Math.sqrt(F)),
      });
    }
  }

  embed(ids) {
    const D = this.config.dModel;
    const x = new Float32Array(ids.length * D);
    ids.forEach((id, i) => x.set(rng(this.config.seed * 7 + id * 104729).normals(D), i * D));
    return x;
  }

  /** @returns {{ hidden: Float32Array, shape: number[], layers: {probs: Float32Array, norms: number[]}[], attentionMs: number, totalMs: number }} */
  forward(ids, schemeType = 'none', schemeParams = {}) {
    const t0 = performance.now();
    const { dModel: D, heads: H, ffn: F, seed } = this.config;
    const hd = D / H, S = ids.length;
    let x = this.embed(ids);
    let attentionMs = 0;
    const out = [];
    this.layers.forEach((w, l) => {
      const hN = layerNorm(x, S, D);
      const q = splitHeads(matmul(hN, S, D, w.wq, D), S, H, hd);
      const k = splitHeads(matmul(hN, S, D, w.wk, D), S, H, hd);
      const v = splitHeads(matmul(hN, S, D, w.wv, D), S, H, hd);
      const scheme = makeScheme(schemeType, { heads: H, headDim: hd, seqLen: S }, schemeParams, seed + l);
      const ta = performance.now();
      const res = this.rp.attention({ q, k, v, batch: 1, heads: H, seqLen: S, headDim: hd, scheme, returnProbs: true });
      attentionMs += performance.now() - ta;
      const a = matmul(mergeHeads(res.output, S, H, hd), S, D, w.wo, D);
      for (let i = 0; i < x.length; i++) x[i] += a[i];
      const f = matmul(gelu(matmul(layerNorm(x, S, D), S, D, w.w1, F)), S, F, w.w2, D);
      for (let i = 0; i < x.length; i++) x[i] += f[i];
      const norms = [];
      for (let i = 0; i < S; i++) norms.push(norm(x.subarray(i * D, (i + 1) * D)));
      out.push({ probs: res.probs, norms });
    });
    return { hidden: x, shape: [S, D], layers: out, attentionMs, totalMs: performance.now() - t0 };
  }
}
