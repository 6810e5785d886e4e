// The attention call the bundled app makes (shared with tests/browser/bundlers.test.mjs, which
// recomputes its output in float64): deterministic q, k, v of shape [batch, heads, seqLen, headDim].
export const ATTENTION = { batch: 1, heads: 2, seqLen: 7, headDim: 8 };

export function attentionInputs({ batch, heads, seqLen, headDim }) {
  const n = batch * heads * seqLen * headDim;
  const make = (a, b) => Float32Array.from({ length: n }, (_, i) => Math.sin(a * i + b));
  return { q: make(0.37, 0.1), k: make(0.53, 0.7), v: make(0.29, 1.3) };
}

/** The fixture folder (shared/fixtures/hf) the app runs, served by the test at /fixtures/. */
export const MODEL_CASE = 'bert-absolute';

/** The lab run the app makes: 20 steps of shift-k on a tiny model (tests/browser/bundlers.test.mjs checks the loss falls). */
export const LAB = { task: 'shift-k', scheme: 'rope', trainLength: 8, steps: 20, batch: 16, k: 2, model: { dim: 16, layers: 1, heads: 2 }, progressEvery: 10 };
