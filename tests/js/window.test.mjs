// rp.attention({ window }): sliding-window attention through the JS API, both builds.
//   - A windowed call equals masked full attention: the full call's own terms (summed), masked to
//     |i − j| ≤ window (plus causal, plus the key mask) and softmaxed in float64, give the windowed
//     call's probabilities, and those probabilities times v its output — for none, alibi, rope, t5.
//   - Probabilities outside the window are exactly 0; window ≥ seqLen is full attention.
//   - Bad windows are refused before any work: a RangeError for a negative or fractional number, a
//     TypeError for a non-number, each naming `window`.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { init } from '../../web/index.js';
import { maxError, randomArray } from './helpers.mjs';

const batch = 2, heads = 2, seq = 37, d = 8, n = batch * heads * seq * d;
const q = randomArray(n, 31), k = randomArray(n, 32), v = randomArray(n, 33);
const mask = new Uint8Array(batch * seq).map((_, t) => (t < seq || t % seq < 25 ? 1 : 0)); // second row padded
const schemes = {
  none: { type: 'none' },
  alibi: { type: 'alibi' },
  rope: { type: 'rope', layout: 'half' },
  t5: { type: 't5', numBuckets: 8, maxDistance: 16, biasTable: randomArray(8 * heads, 34) },
};

/** Masked softmax of the full call's summed terms and its product with v, in float64. */
function maskedReference(full, window, causal) {
  const S = seq, probs = new Float64Array(batch * heads * S * S), out = new Float64Array(n);
  const names = Object.keys(full.terms);
  for (let bh = 0; bh < batch * heads; ++bh) {
    const b = Math.floor(bh / heads);
    for (let i = 0; i < S; ++i) {
      const row = bh * S * S + i * S;
      const ok = (j) => Math.abs(i - j) <= window && !(causal && j > i) && mask[b * S + j] !== 0;
      let m = -Infinity;
      const logit = (j) => names.reduce((s, t) => s + full.terms[t][row + j], 0);
      for (let j = 0; j < S; ++j) if (ok(j)) m = Math.max(m, logit(j));
      let z = 0;
      for (let j = 0; j < S; ++j) if (ok(j)) z += (probs[row + j] = Math.exp(logit(j) - m));
      for (let j = 0; j < S; ++j) {
        probs[row + j] = z > 0 ? probs[row + j] / z : 0;
        for (let c = 0; c < d; ++c) out[(bh * S + i) * d + c] += probs[row + j] * v[(bh * S + j) * d + c];
      }
    }
  }
  return { probs, out };
}

for (const simd of [true, false]) {
  const build = simd ? 'SIMD' : 'scalar';
  const runtime = init({ simd });
  const base = { q, k, v, batch, heads, seqLen: seq, headDim: d, mask };

  for (const [name, scheme] of Object.entries(schemes))
    for (const causal of [false, true])
      test(`${build} build: ${name}${causal ? ', causal' : ''}: a windowed call equals masked full attention (windows 0, 3, 10)`, async () => {
        const rp = await runtime;
        const full = rp.attention({ ...base, causal, scheme, returnTerms: true });
        for (const window of [0, 3, 10]) {
          const expected = maskedReference(full, window, causal);
          const got = rp.attention({ ...base, causal, scheme, window, returnProbs: true });
          const streamed = rp.attention({ ...base, causal, scheme, window });
          assert.ok(maxError(got.probs, expected.probs) < 2e-5, `window ${window}: probs`);
          assert.ok(maxError(got.output, expected.out) < 2e-5, `window ${window}: output`);
          assert.ok(maxError(streamed.output, expected.out) < 2e-5, `window ${window}: streamed output`);
          for (let bh = 0; bh < batch * heads; ++bh)
            for (let i = 0; i < seq; ++i)
              for (let j = 0; j < seq; ++j)
                if (Math.abs(i - j) > window) assert.equal(got.probs[bh * seq * seq + i * seq + j], 0, `p(${i}, ${j}) outside window ${window}`);
        }
      });

  test(`${build} build: a window ≥ seqLen is full attention; null is no window`, async () => {
    const rp = await runtime;
    const scheme = schemes.alibi;
    const full = rp.attention({ ...base, scheme }).output;
    assert.ok(maxError(rp.attention({ ...base, scheme, window: seq }).output, full) < 1e-6);
    assert.ok(maxError(rp.attention({ ...base, scheme, window: 10 * seq }).output, full) < 1e-6);
    assert.deepEqual(rp.attention({ ...base, scheme, window: null }).output, full);
  });

  test(`${build} build: bad windows throw a clear error naming window, and the runtime keeps working`, async () => {
    const rp = await runtime;
    const scheme = schemes.none;
    assert.throws(() => rp.attention({ ...base, scheme, window: -1 }), (e) => e instanceof RangeError && /window/.test(e.message) && /≥ 0/.test(e.message));
    assert.throws(() => rp.attention({ ...base, scheme, window: 2.5 }), (e) => e instanceof RangeError && /window/.test(e.message));
    assert.throws(() => rp.attention({ ...base, scheme, window: '8' }), (e) => e instanceof TypeError && /window/.test(e.message));
    assert.throws(() => rp.attention({ ...base, scheme, window: NaN }), (e) => e instanceof RangeError && /window/.test(e.message));
    assert.equal(rp.attention({ ...base, scheme, window: 4 }).output.length, n);
  });
}
