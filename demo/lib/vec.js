// Small dense helpers on Float32Array (row-major). Only used on demo-sized data.

export function cosine(a, b) {
  let ab = 0, aa = 0, bb = 0;
  for (let i = 0; i < a.length; i++) {
    ab += a[i] * b[i];
    aa += a[i] * a[i];
    bb += b[i] * b[i];
  }
  return aa === 0 || bb === 0 ? 0 : ab / Math.sqrt(aa * bb);
}

export function norm(a) {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * a[i];
  return Math.sqrt(s);
}

export function maxAbsDiff(a, b) {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

// y[rows, n] = x[rows, k] · W[k, n] (+ bias[n])
export function matmul(x, rows, k, w, n, bias) {
  const y = new Float32Array(rows * n);
  for (let r = 0; r < rows; r++) {
    const yr = r * n;
    if (bias) for (let c = 0; c < n; c++) y[yr + c] = bias[c];
    for (let t = 0; t < k; t++) {
      const xv = x[r * k + t];
      if (xv === 0) continue;
      const wr = t * n;
      for (let c = 0; c < n; c++) y[yr + c] += xv * w[wr + c];
    }
  }
  return y;
}

export function layerNorm(x, rows, n, eps = 1e-5) {
  const y = new Float32Array(x.length);
  for (let r = 0; r < rows; r++) {
    let mean = 0, v = 0;
    for (let c = 0; c < n; c++) mean += x[r * n + c];
    mean /= n;
    for (let c = 0; c < n; c++) v += (x[r * n + c] - mean) ** 2;
    const inv = 1 / Math.sqrt(v / n + eps);
    for (let c = 0; c < n; c++) y[r * n + c] = (x[r * n + c] - mean) * inv;
  }
  return y;
}

export function gelu(x) {
  const y = new Float32Array(x.length);
  for (let i = 0; i < x.length; i++) {
    const v = x[i];
    y[i] = 0.5 * v * (1 + Math.tanh(0.7978845608 * (v + 0.044715 * v * v * v)));
  }
  return y;
}

// Row-wise softmax of a [rows, cols] matrix.
export function softmaxRows(x, rows, cols) {
  const y = new Float32Array(x.length);
  for (let r = 0; r < rows; r++) {
    let m = -Infinity;
    for (let c = 0; c < cols; c++) m = Math.max(m, x[r * cols + c]);
    let s = 0;
    for (let c = 0; c < cols; c++) s += y[r * cols + c] = Math.exp(x[r * cols + c] - m);
    for (let c = 0; c < cols; c++) y[r * cols + c] /= s;
  }
  return y;
}

// [seq, heads·hd] ⇄ [heads, seq, hd]
export function splitHeads(x, seq, heads, hd) {
  const y = new Float32Array(x.length);
  for (let s = 0; s < seq; s++)
    for (let h = 0; h < heads; h++)
      for (let t = 0; t < hd; t++) y[(h * seq + s) * hd + t] = x[s * heads * hd + h * hd + t];
  return y;
}
export function mergeHeads(x, seq, heads, hd) {
  const y = new Float32Array(x.length);
  for (let s = 0; s < seq; s++)
    for (let h = 0; h < heads; h++)
      for (let t = 0; t < hd; t++) y[s * heads * hd + h * hd + t] = x[(h * seq + s) * hd + t];
  return y;
}
