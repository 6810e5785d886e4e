// The WebAssembly builds (SIMD, scalar, SIMD on 2 threads) reproduce the native C++ build's results for every scheme (reference:
// cpp/tools/golden.cpp → build/native/relpos-golden.json), and agree with each other to 1e-5.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { init, SCHEME_TYPES } from '../../web/index.js';
import { attentionArgs, loadGolden, maxError } from './helpers.mjs';

const NATIVE_TOLERANCE = 1e-4; // different instruction sets (AVX2/FMA natively) and exp kernels
const SIMD_SCALAR_TOLERANCE = 1e-5;

const golden = loadGolden();
const runtimes = {};
before(async () => {
  runtimes.simd = await init({ simd: true });
  runtimes.scalar = await init({ simd: false });
  runtimes['simd-threads'] = await init({ threads: 2 });
  assert.equal(runtimes['simd-threads'].threads, 2);
});

test('the native reference covers every scheme the WebAssembly builds offer', () => {
  const covered = new Set(golden.cases.map((c) => c.scheme.type));
  for (const rp of [runtimes.simd, runtimes.scalar]) for (const type of rp.schemes) assert.ok(covered.has(type), `no golden case for ${type}`);
  assert.deepEqual([...runtimes.simd.schemes], [...runtimes.scalar.schemes]);
  for (const type of runtimes.simd.schemes) assert.ok(SCHEME_TYPES.includes(type));
});

for (const c of golden.cases) {
  describe(`scheme ${c.name}`, () => {
    const results = {};
    for (const variant of ['simd', 'scalar', 'simd-threads']) {
      test(`${variant} build matches the native output, probs and terms`, (t) => {
        const rp = runtimes[variant];
        if (!rp.schemes.includes(c.scheme.type)) return t.skip(`${c.scheme.type} not in this build`);
        const r = rp.attention(attentionArgs(c, { returnProbs: true, returnTerms: true }));
        results[variant] = r;
        assert.ok(r.output instanceof Float32Array);
        assert.ok(maxError(r.output, c.output) <= NATIVE_TOLERANCE, `output error ${maxError(r.output, c.output)}`);
        assert.ok(maxError(r.probs, c.probs) <= NATIVE_TOLERANCE, `probs error ${maxError(r.probs, c.probs)}`);
        assert.equal(Object.keys(r.terms)[0], 'content');
        assert.deepEqual(Object.keys(r.terms).sort(), Object.keys(c.terms).sort()); // JSON keys are sorted
        for (const [name, values] of Object.entries(c.terms))
          assert.ok(maxError(r.terms[name], values) <= NATIVE_TOLERANCE, `term ${name} error ${maxError(r.terms[name], values)}`);
        // the streaming path (no probs/terms) gives the same output
        const plain = rp.attention(attentionArgs(c));
        assert.equal(plain.probs, undefined);
        assert.equal(plain.terms, undefined);
        assert.ok(maxError(plain.output, c.output) <= NATIVE_TOLERANCE);
      });
    }
    test('the threads build (2 threads) gives bitwise the SIMD build\'s output, probs and terms', (t) => {
      if (!results.simd || !results['simd-threads']) return t.skip('scheme not in both builds');
      const same = (a, b) => a.length === b.length && Buffer.compare(Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength)) === 0;
      assert.ok(same(results['simd-threads'].output, results.simd.output));
      assert.ok(same(results['simd-threads'].probs, results.simd.probs));
      for (const name of Object.keys(results.simd.terms)) assert.ok(same(results['simd-threads'].terms[name], results.simd.terms[name]), name);
    });
    test('SIMD and scalar builds agree within 1e-5', (t) => {
      if (!results.simd || !results.scalar) return t.skip('scheme not in both builds');
      assert.ok(maxError(results.simd.output, results.scalar.output) <= SIMD_SCALAR_TOLERANCE);
      assert.ok(maxError(results.simd.probs, results.scalar.probs) <= SIMD_SCALAR_TOLERANCE);
      for (const name of Object.keys(results.simd.terms))
        assert.ok(maxError(results.simd.terms[name], results.scalar.terms[name]) <= SIMD_SCALAR_TOLERANCE, name);
    });
  });
}
