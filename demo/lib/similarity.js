// Cosine similarity between sentence embeddings (rows of a row-major [n, dim] Float32Array), for the
// Real model section. The embeddings come L2-normalised from pipeline('feature-extraction') with
// { normalize: true }; these functions divide by the norms anyway, so they are cosines for any rows.

function norms(data, n, dim) {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let d = 0; d < dim; d++) s += data[i * dim + d] ** 2;
    out[i] = Math.sqrt(s);
  }
  return out;
}

/** [n, n] cosines of every pair of rows (Float32Array, row-major; the diagonal is 1 up to rounding). */
export function cosineMatrix(data, n, dim) {
  const nr = norms(data, n, dim);
  const out = new Float32Array(n * n);
  for (let i = 0; i < n; i++)
    for (let j = i; j < n; j++) {
      let s = 0;
      for (let d = 0; d < dim; d++) s += data[i * dim + d] * data[j * dim + d];
      out[i * n + j] = out[j * n + i] = s / Math.max(nr[i] * nr[j], 1e-12);
    }
  return out;
}

/** The k rows of corpus [n, dim] nearest to query [dim] by cosine, best first: [{ index, cosine }]. */
export function nearest(query, corpus, n, dim, k) {
  const [qn] = norms(query, 1, dim);
  const cn = norms(corpus, n, dim);
  const scored = [];
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let d = 0; d < dim; d++) s += query[d] * corpus[i * dim + d];
    scored.push({ index: i, cosine: s / Math.max(qn * cn[i], 1e-12) });
  }
  return scored.sort((a, b) => b.cosine - a.cosine || a.index - b.index).slice(0, k);
}
