// How close two encoders' outputs are as sentence embeddings: the cosine similarity of their
// mean-pooled last hidden states, the mean taken over real tokens only (attention mask 1), one value
// per sequence. The encoder section compares q8 weights against fp32 with it (same checkpoint, same
// input); pure functions, no DOM, usable in the worker, on the page and under Node.
//
//   const cos = pooledCosine(q8.hidden, fp32.hidden, { dims: [1, S, D], mask });   // → [0.9999…]
//
// hidden: Float32Array (or any array of numbers) laid out [batch, seq, dim]; dims [batch, seq, dim] or
// [seq, dim] (one sequence); mask: batch·seq entries of 0/1 (missing: every token is real).

function shape(dims) {
  if (!Array.isArray(dims) || (dims.length !== 2 && dims.length !== 3) || !dims.every((d) => Number.isInteger(d) && d > 0))
    throw new RangeError(`pooled cosine: dims: expected [batch, seq, dim] or [seq, dim] of positive integers, got ${JSON.stringify(dims)}`);
  return dims.length === 3 ? dims : [1, ...dims];
}

/**
 * Masked mean over tokens: Float64Array[batch · dim], row b = mean of hidden[b, s, :] over the s with
 * mask[b·seq + s] ≠ 0. A sequence without a real token is a RangeError (its mean is undefined).
 */
export function maskedMeanPool(hidden, dims, mask) {
  const [B, S, D] = shape(dims);
  if (hidden?.length !== B * S * D) throw new RangeError(`pooled cosine: hidden: expected ${B * S * D} values for dims ${JSON.stringify(dims)}, got ${hidden?.length}`);
  if (mask !== undefined && mask !== null && mask.length !== B * S) throw new RangeError(`pooled cosine: mask: expected ${B * S} entries (batch · seq), got ${mask.length}`);
  const out = new Float64Array(B * D);
  for (let b = 0; b < B; b++) {
    let n = 0;
    for (let s = 0; s < S; s++) {
      if (mask && !mask[b * S + s]) continue;
      n++;
      const row = (b * S + s) * D;
      for (let d = 0; d < D; d++) out[b * D + d] += hidden[row + d];
    }
    if (n === 0) throw new RangeError(`pooled cosine: sequence ${b} has no real token (its mask is all 0)`);
    for (let d = 0; d < D; d++) out[b * D + d] /= n;
  }
  return out;
}

/** Cosine similarity of a[off, off + n) and b[off, off + n); 0 when either is the zero vector. */
export function cosine(a, b, off = 0, n = a.length - off) {
  let ab = 0, aa = 0, bb = 0;
  for (let i = off; i < off + n; i++) {
    ab += a[i] * b[i];
    aa += a[i] * a[i];
    bb += b[i] * b[i];
  }
  return aa > 0 && bb > 0 ? ab / Math.sqrt(aa * bb) : 0;
}

/** Per sequence: cosine of the masked mean pools of a and b (same dims, same mask). Returns number[]. */
export function pooledCosine(a, b, { dims, mask } = {}) {
  const [B, , D] = shape(dims);
  const pa = maskedMeanPool(a, dims, mask), pb = maskedMeanPool(b, dims, mask);
  return Array.from({ length: B }, (_, i) => cosine(pa, pb, i * D, D));
}
