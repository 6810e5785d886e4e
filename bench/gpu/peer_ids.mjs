// The seeded token ids of the GPU peer bench's rows (bench/gpu/peer.mjs) and of the XLM-R CPU peer bench
// (bench/xlmr_chromium_peer.mjs): the same rows on both, so a model's id-fed rows are comparable across the two.

/** Seeded ids in [lo, hi) other than `avoid`, `n` of them (the same LCG as common.mjs's random). */
export function seededIds(n, lo, hi, avoid, seed) {
  let s = seed >>> 0;
  const out = [];
  while (out.length < n) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const id = lo + (s % (hi - lo));
    if (id !== avoid) out.push(id);
  }
  return out;
}

/** Right-padded batch { inputIds, attentionMask } (rows of numbers) from unpadded rows, padded with `pad`. */
export function batchOf(rows, pad) {
  const L = Math.max(...rows.map((r) => r.length));
  return {
    inputIds: rows.map((r) => [...r, ...new Array(L - r.length).fill(pad)]),
    attentionMask: rows.map((r) => [...r.map(() => 1), ...new Array(L - r.length).fill(0)]),
  };
}

/** Rows with the token counts of `like`, ids seeded in the model's range (first and last kept as its cls / sep). */
export function sameLengths(like, cfg, seed) {
  const pad = cfg.pad_token_id ?? 0;
  const [lo, hi] = cfg.model_type === 'modernbert' ? [0, 50280] : [3, cfg.vocab_size];
  return like.map((r, i) => seededIds(r.length, lo, hi, pad, seed + i));
}
