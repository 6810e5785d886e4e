// Numerics through the JS API, both builds (the contract of cpp/include/relpos/attention.h):
//   - NaN / Inf in the inputs propagate to the rows that read them; nothing is clamped. A row reads
//     q_i, the k_j of its unmasked keys, and every v_j of its (batch, head): P·V is one product over
//     all keys, so a NaN / Inf in v reaches every row of that head, masked keys included
//     (0·NaN = NaN). Rows that do not read a bad value stay finite.
//   - A fully masked row (key mask all zero, or causal with its keys masked) gives probs 0 and
//     output 0, never NaN. So does a row whose logits are all −∞.
//   - Extreme but finite logits (±1e4, ±1e30, from q·k or from a scheme bias) stay finite: probs
//     finite, rows summing to 1, outputs finite.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { init } from '../../web/index.js';
import { randomArray } from './helpers.mjs';

const seq = 6, d = 4, heads = 2, n = heads * seq * d;
const base = { batch: 1, heads, seqLen: seq, headDim: d, scheme: { type: 'none' } };
const q = randomArray(n, 11), k = randomArray(n, 12), v = randomArray(n, 13);
/** Finite-ness of each output row [head][row]. */
const rows = (out) =>
  Array.from({ length: heads }, (_, h) => Array.from({ length: seq }, (_, i) => out.slice((h * seq + i) * d, (h * seq + i + 1) * d).every(Number.isFinite)));
const all = (value) => Array(seq).fill(value);
const at = (h, i) => (h * seq + i) * d; // first float of row i of head h
const withValue = (array, index, value) => {
  const a = array.slice();
  a[index] = value;
  return a;
};

for (const simd of [true, false]) {
  const build = simd ? 'SIMD' : 'scalar';
  const runtime = init({ simd });

  for (const bad of [NaN, Infinity, -Infinity]) {
    test(`${build} build: ${bad} in q row 2 of head 0 → that output row is ${Number.isNaN(bad) ? 'NaN' : 'not finite (or zero when every logit is −∞)'}, every other row finite`, async () => {
      const rp = await runtime;
      const q2 = q.slice();
      q2.fill(bad, at(0, 2), at(0, 2) + d);
      const { output, terms } = rp.attention({ ...base, q: q2, k, v, returnTerms: true });
      const row = Array.from(output.slice(at(0, 2), at(0, 2) + d));
      const logits = Array.from(terms.content.slice(2 * seq, 3 * seq));
      if (logits.every((x) => x === -Infinity)) assert.deepEqual(row, [0, 0, 0, 0]); // like a fully masked row
      else assert.ok(row.every(Number.isNaN), `row 2: ${row} (logits ${logits})`);
      const expected = [all(true), all(true)];
      expected[0][2] = false;
      const finite = rows(output);
      finite[0][2] = false;
      assert.deepEqual(finite, expected);
    });
  }

  test(`${build} build: NaN in k of key 3 → every row that attends key 3 is NaN; with causal, rows 0–2 stay finite; masked, no row reads it`, async () => {
    const rp = await runtime;
    const k3 = withValue(k, at(1, 3), NaN);
    assert.deepEqual(rows(rp.attention({ ...base, q, k: k3, v }).output), [all(true), all(false)]);
    assert.deepEqual(rows(rp.attention({ ...base, q, k: k3, v, causal: true }).output), [all(true), [true, true, true, false, false, false]]);
    const mask = Uint8Array.from([1, 1, 1, 0, 1, 1]);
    assert.deepEqual(rows(rp.attention({ ...base, q, k: k3, v, mask }).output), [all(true), all(true)]);
  });

  test(`${build} build: NaN or Inf in v of key 3 → every row of that head (P·V reads all keys), the other head finite`, async () => {
    const rp = await runtime;
    for (const bad of [NaN, Infinity]) {
      const v3 = withValue(v, at(1, 3), bad);
      assert.deepEqual(rows(rp.attention({ ...base, q, k, v: v3 }).output), [all(true), all(false)]);
      assert.deepEqual(rows(rp.attention({ ...base, q, k, v: v3, causal: true }).output)[0], all(true));
    }
  });

  test(`${build} build: fully masked rows give probs 0 and output 0 (mask all zero; causal with key 0 masked)`, async () => {
    const rp = await runtime;
    const r = rp.attention({ ...base, q, k, v, mask: new Uint8Array(seq), returnProbs: true });
    assert.ok(r.output.every((x) => x === 0));
    assert.ok(r.probs.every((x) => x === 0));
    // causal: row 0 sees only key 0, which is masked → row 0 zero; row 1 sees key 1 → finite, not zero
    const c = rp.attention({ ...base, q, k, v, causal: true, mask: Uint8Array.from([0, 1, 1, 1, 1, 1]), returnProbs: true });
    for (const h of [0, 1]) {
      assert.ok(c.output.slice(at(h, 0), at(h, 0) + d).every((x) => x === 0));
      assert.ok(c.probs.slice((h * seq) * seq, (h * seq + 1) * seq).every((x) => x === 0));
      assert.ok(c.output.slice(at(h, 1), at(h, 1) + d).some((x) => x !== 0));
    }
    assert.ok(c.output.every(Number.isFinite));
  });

  for (const scale of [1e4, 1e30]) {
    test(`${build} build: logits of ±${scale} stay finite (q·k and a T5 bias); probs rows sum to 1`, async (t) => {
      const rp = await runtime;
      const checkFinite = (r) => {
        assert.ok(r.output.every(Number.isFinite), 'output not finite');
        assert.ok(r.probs.every(Number.isFinite), 'probs not finite');
        for (let row = 0; row < heads * seq; ++row) {
          const sum = r.probs.slice(row * seq, (row + 1) * seq).reduce((a, b) => a + b, 0);
          assert.ok(Math.abs(sum - 1) < 1e-5, `row ${row} sums to ${sum}`);
        }
      };
      // q·k: scale q and k by √(scale·√d) so that |logit| reaches ≈ scale after the 1/√d scaling
      const f = Math.sqrt(scale * Math.sqrt(d));
      const qs = q.map((x) => x * f), ks = k.map((x) => x * f);
      checkFinite(rp.attention({ ...base, q: qs, k: ks, v, returnProbs: true }));
      checkFinite(rp.attention({ ...base, q: qs, k: ks, v, returnProbs: true, causal: true }));
      assert.ok(rp.attention({ ...base, q: qs, k: ks, v }).output.every(Number.isFinite)); // streaming path
      if (!rp.schemes.includes('t5')) return t.skip('t5 not in this build');
      const biasTable = Float32Array.from({ length: 8 * heads }, (_, i) => (i % 2 ? scale : -scale));
      const t5 = { type: 't5', numBuckets: 8, maxDistance: 16, biasTable };
      checkFinite(rp.attention({ ...base, q, k, v, scheme: t5, returnProbs: true }));
      assert.ok(rp.attention({ ...base, q, k, v, scheme: t5 }).output.every(Number.isFinite));
    });
  }
}
