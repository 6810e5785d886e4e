// Comparison of model outputs with a fixture's expected tensors on valid positions only (the fixtures' rule:
// right-padded rows, positions ≥ a row's length are unspecified). Shared by the model tests of every family.
import assert from 'node:assert/strict';

/** Max |a − b| over [b, :n_b, :] of two [B, L, H] tensors (or [B, H] when lengths is null). */
export function hiddenError(actual, expected, lengths) {
  assert.deepEqual(actual.dims, expected.dims, 'shape');
  const [B, L, H] = expected.dims;
  let worst = 0;
  if (expected.dims.length === 2) {
    for (let i = 0; i < expected.data.length; ++i) worst = Math.max(worst, Math.abs(actual.data[i] - expected.data[i]));
    return worst;
  }
  for (let b = 0; b < B; ++b)
    for (let l = 0; l < lengths[b]; ++l)
      for (let h = 0; h < H; ++h) {
        const i = (b * L + l) * H + h;
        const e = Math.abs(actual.data[i] - expected.data[i]);
        worst = Number.isNaN(e) ? Infinity : Math.max(worst, e);
      }
  return worst;
}

/** Max |a − b| over [b, :, :n_b, :n_b] of two [B, heads, L, L] tensors. */
export function probError(actual, expected, lengths) {
  assert.deepEqual(actual.dims, expected.dims, 'shape');
  const [B, heads, L] = expected.dims;
  let worst = 0;
  for (let b = 0; b < B; ++b)
    for (let h = 0; h < heads; ++h)
      for (let i = 0; i < lengths[b]; ++i)
        for (let j = 0; j < lengths[b]; ++j) {
          const k = ((b * heads + h) * L + i) * L + j;
          const e = Math.abs(actual.data[k] - expected.data[k]);
          worst = Number.isNaN(e) ? Infinity : Math.max(worst, e);
        }
  return worst;
}
