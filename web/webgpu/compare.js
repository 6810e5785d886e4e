// How a GPU storage dtype changes a model's output, for bench scripts on a real GPU (bench/gpu/bench.mjs)
// and for anyone choosing a dtype: the same checkpoint loaded once per dtype on WebGPU, the same batch run
// through each, compared with the first dtype (the reference, 'fp32' by default) on valid tokens:
//   cosine   smallest cosine of the mean-pooled embeddings over the sequences (as scripts/q8-accuracy.mjs)
//   maxAbs   max |x − reference| of the last hidden state;  rel  maxAbs / max |reference|
//   forwardMs  median of `reps` timed forwards (after one warm-up that builds the plan and compiles)
//
//   const rows = await compareGpuDtypes(rp, () => files, { inputIds, attentionMask }, { dtypes: ['fp32', 'fp16'], gpu });
//   → [{ dtype: 'fp32', forwardMs, loadMs, … }, { dtype: 'fp16', forwardMs, loadMs, cosine, maxAbs, rel }]
// `source` is called once per load (a folder path, a map of files, …: whatever rp.loadModel takes). A dtype
// the adapter cannot run rejects (loadModel with device 'webgpu' gives the reason, e.g. no 'shader-f16').

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Cosine of masked mean-pooled rows, max |a − b| and max |a| over valid tokens of two [B, L, H] tensors. */
export function compareHidden(a, b, mask) {
  const [B, L, H] = a.dims;
  let maxAbs = 0, refMax = 0, cosine = 1;
  for (let s = 0; s < B; ++s) {
    const ma = new Float64Array(H), mb = new Float64Array(H);
    for (let l = 0; l < L; ++l) {
      if (mask && !mask[s][l]) continue;
      for (let h = 0; h < H; ++h) {
        const i = (s * L + l) * H + h;
        const d = Math.abs(a.data[i] - b.data[i]);
        maxAbs = Number.isNaN(d) ? Infinity : Math.max(maxAbs, d);
        refMax = Math.max(refMax, Math.abs(a.data[i]));
        ma[h] += a.data[i];
        mb[h] += b.data[i];
      }
    }
    let dot = 0, na = 0, nb = 0;
    for (let h = 0; h < H; ++h) {
      dot += ma[h] * mb[h];
      na += ma[h] * ma[h];
      nb += mb[h] * mb[h];
    }
    const c = dot / Math.sqrt(na * nb);
    cosine = Number.isNaN(c) ? -1 : Math.min(cosine, c);
  }
  return { cosine, maxAbs, rel: maxAbs / refMax };
}

/**
 * rp: an initialised runtime (init()); source(): what rp.loadModel takes; inputs: { inputIds, attentionMask? }
 * (arrays of rows); options: { dtypes = ['fp32', 'fp16'], gpu, reps = 5 }. Rows in the order of dtypes.
 */
export async function compareGpuDtypes(rp, source, inputs, options = {}) {
  const dtypes = options.dtypes ?? ['fp32', 'fp16'];
  const reps = options.reps ?? 5;
  if (!Array.isArray(dtypes) || dtypes.length < 1) throw new TypeError('compareGpuDtypes: dtypes: expected a non-empty array of dtypes');
  const mask = inputs.attentionMask ?? null;
  let reference = null;
  const rows = [];
  for (const dtype of dtypes) {
    const t0 = performance.now();
    const model = await rp.loadModel(source(), { device: 'webgpu', dtype, gpu: options.gpu });
    const loadMs = performance.now() - t0;
    try {
      let out = (await model.forward(inputs)).lastHiddenState;
      const times = [];
      for (let r = 0; r < reps; ++r) {
        const t = performance.now();
        out = (await model.forward(inputs)).lastHiddenState;
        times.push(performance.now() - t);
      }
      const row = { dtype, forwardMs: +median(times).toFixed(3), timesMs: times.map((t) => +t.toFixed(3)), loadMs: +loadMs.toFixed(1), adapter: model.info.adapter };
      if (reference) Object.assign(row, compareHidden(reference, out, mask));
      else reference = out;
      rows.push(row);
    } finally {
      model.dispose();
    }
  }
  return rows;
}
