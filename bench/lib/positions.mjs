// Reference index maps written from the Hugging Face code (float32 steps as torch does them),
// independent of relpos, for the ONNX graphs.
const f = Math.fround;

// T5Attention._relative_position_bucket(relative_position = j − i, ...)
export function t5Bucket(rel, bidirectional = true, numBuckets = 32, maxDistance = 128) {
  let buckets = 0;
  let nb = numBuckets;
  let rp = rel;
  if (bidirectional) {
    nb = Math.floor(nb / 2);
    if (rp > 0) buckets += nb;
    rp = Math.abs(rp);
  } else {
    rp = -Math.min(rp, 0);
  }
  const maxExact = Math.floor(nb / 2);
  if (rp < maxExact) return buckets + rp;
  let large = maxExact + Math.trunc(f(f(f(Math.log(f(rp / maxExact))) / f(Math.log(maxDistance / maxExact))) * (nb - maxExact)));
  large = Math.min(large, nb - 1);
  return buckets + large;
}

// DeBERTa make_log_bucket_position(relative_pos = i − j, bucket_size, max_position)
export function debertaBucket(rel, bucketSize = 256, maxPosition = 512) {
  if (bucketSize <= 0) return rel;
  const sign = Math.sign(rel);
  const mid = Math.floor(bucketSize / 2);
  const absPos = rel < mid && rel > -mid ? mid - 1 : Math.abs(rel);
  if (absPos <= mid) return rel;
  const logPos = Math.ceil(f(f(f(Math.log(f(absPos / mid))) / f(Math.log(f((maxPosition - 1) / mid)))) * (mid - 1))) + mid;
  return logPos * sign;
}

export function table2d(S, fn) {
  const out = new Array(S * S);
  for (let i = 0; i < S; ++i) for (let j = 0; j < S; ++j) out[i * S + j] = fn(i, j);
  return out;
}
