// llama.cpp's outputs on a GGUF (shared/fixtures/gguf/<case>/expected-llamacpp-<type>.json, fixtures README
// "Files in a case folder"), laid out as relpos's forward() returns them for the case's padded input.json batch:
// each sequence ran alone in llama.cpp, here it is row `index` of [B, L, W] tensors (padding rows stay 0 and are
// never compared: fixture-errors.mjs compares the first lengths[b] rows).
import { readFileSync } from 'node:fs';

/**
 * { lengths, lastHiddenState, hiddenStates (embedding LayerNorm, then every layer output), pooledMeanNormalized [B][W] }
 * for `file`, with B = lengths.length rows of L positions.
 */
export function readLlamacppExpected(file, lengths, L) {
  const e = JSON.parse(readFileSync(file, 'utf8'));
  const B = lengths.length, W = e.n_embd_out;
  const tensor = () => ({ dims: [B, L, W], data: new Float32Array(B * L * W) });
  const put = (t, b, rows) => rows.forEach((row, l) => t.data.set(row, (b * L + l) * W));
  const out = { lengths, lastHiddenState: tensor(), hiddenStates: [], pooledMeanNormalized: [] };
  const layers = e.sequences[0].layer_outputs.length;
  for (let i = 0; i <= layers; ++i) out.hiddenStates.push(tensor());
  for (const s of e.sequences) {
    if (s.n_tokens !== lengths[s.index]) throw new Error(`${file}: sequence ${s.index} has ${s.n_tokens} tokens, input.json ${lengths[s.index]}`);
    put(out.lastHiddenState, s.index, s.hidden);
    if (s.embeddings_norm) put(out.hiddenStates[0], s.index, s.embeddings_norm);
    s.layer_outputs.forEach((rows, i) => put(out.hiddenStates[i + 1], s.index, rows));
    out.pooledMeanNormalized[s.index] = s.pooled_mean_normalized;
  }
  return out;
}

/** L2-normalised mean of the first n rows of row b of a [B, L, W] tensor (double accumulation). */
export function meanNormalized(t, b, n) {
  const [, L, W] = t.dims;
  const m = new Float64Array(W);
  for (let l = 0; l < n; ++l) for (let c = 0; c < W; ++c) m[c] += t.data[(b * L + l) * W + c];
  const norm = Math.hypot(...m);
  return Array.from(m, (v) => v / norm);
}
