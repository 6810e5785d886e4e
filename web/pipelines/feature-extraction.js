// pipeline('feature-extraction', model): last hidden states pooled per text ('mean' over the
// attention mask, 'cls', or 'none'), optionally L2-normalised.
import { checkBool, checkObject, describe } from '../validation.js';
import { batchSizeOption, checkLength, forwardBatched, lengthOptions } from './batching.js';
import { requireTokenizer, textList } from './common.js';
import { encodeInput } from './encoding.js';

/** Mean over the attention mask (or the first token, or none) of last_hidden_state; optional L2 norm. */
export function pool(lastHiddenState, attentionMask, { pooling = 'mean', normalize = false } = {}) {
  const [B, L, H] = lastHiddenState.dims;
  if (pooling === 'none') return lastHiddenState;
  const out = new Float32Array(B * H);
  for (let b = 0; b < B; ++b) {
    const o = out.subarray(b * H, (b + 1) * H);
    if (pooling === 'cls') {
      o.set(lastHiddenState.data.subarray(b * L * H, b * L * H + H));
    } else {
      const acc = new Float64Array(H);
      let n = 0;
      for (let l = 0; l < L; ++l) {
        if (!attentionMask.data[b * L + l]) continue;
        ++n;
        const row = lastHiddenState.data.subarray((b * L + l) * H, (b * L + l + 1) * H);
        for (let h = 0; h < H; ++h) acc[h] += row[h];
      }
      for (let h = 0; h < H; ++h) o[h] = n ? acc[h] / n : 0;
    }
    if (normalize) {
      let ss = 0;
      for (let h = 0; h < H; ++h) ss += o[h] * o[h];
      const inv = 1 / Math.max(Math.sqrt(ss), 1e-12);
      for (let h = 0; h < H; ++h) o[h] *= inv;
    }
  }
  return { data: out, dims: [B, H] };
}

export function featureExtraction(model, task = 'feature-extraction') {
  return async function extract(input, options = {}) {
    checkObject(options, `${task}: options`);
    const pooling = options.pooling ?? 'mean';
    if (!['mean', 'cls', 'none'].includes(pooling))
      throw new Error(`${task}: pooling: expected 'mean', 'cls' or 'none', got ${describe(pooling)}`);
    const normalize = checkBool(options.normalize ?? false, `${task}: normalize`);
    if (normalize && pooling === 'none') throw new Error(`${task}: normalize needs pooling 'mean' or 'cls'`);
    requireTokenizer(model, task);
    const { truncation, maxLength, limit } = lengthOptions(model, options, task);
    const batchSize = batchSizeOption(options, task);
    const { list, single } = textList(input, task);
    const encodings = list.map((text, i) => {
      const enc = encodeInput(model.tokenizer, text, null, { maxLength, truncation });
      if (!truncation) checkLength(enc, limit, task, single ? 'the input' : `input[${i}]`);
      return enc;
    });
    const pooled = new Array(list.length);
    forwardBatched(model, encodings, batchSize, {}, (r, row, i) => {
      const [, L, H] = r.lastHiddenState.dims;
      const one = { data: r.lastHiddenState.data.subarray(row * L * H, (row + 1) * L * H), dims: [1, L, H] };
      const mask = { data: r.attentionMask.data.subarray(row * L, (row + 1) * L), dims: [1, L] };
      pooled[i] = pooling === 'none' ? { ...one, len: encodings[i].ids.length } : pool(one, mask, { pooling, normalize });
    });
    if (pooling === 'none') {
      // [batch, seq, hidden] right-padded to the longest input (values at padding unspecified: zeros)
      const H = pooled[0].dims[2];
      const L = Math.max(...pooled.map((p) => p.len));
      const data = new Float32Array(list.length * L * H);
      pooled.forEach((p, b) => data.set(p.data.subarray(0, p.len * H), b * L * H));
      return { data, dims: [list.length, L, H] };
    }
    const H = pooled[0].dims[1];
    const data = new Float32Array(list.length * H);
    pooled.forEach((p, b) => data.set(p.data, b * H));
    return { data, dims: [list.length, H] };
  };
}
