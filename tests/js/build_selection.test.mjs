// Which build init() loads. The SIMD build needs SIMD128 and native WebAssembly exceptions (it is
// compiled with -fwasm-exceptions); engines with only SIMD128 (Chrome 91–94, Firefox 89–99) must get
// the scalar build, which uses Emscripten's JS exceptions. Node 20 has both features.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { init, simdSupported } from '../../web/index.js';

test('Node 20 supports the SIMD build (SIMD128 and wasm exceptions), so simd: auto loads it', async () => {
  assert.equal(simdSupported(), true);
  const rp = await init({ simd: 'auto' });
  assert.equal(rp.simd, true);
  rp.dispose();
});

test('simdSupported() is false when the engine cannot validate exception-handling code', () => {
  const validate = WebAssembly.validate;
  // an engine with SIMD128 but no exception handling: any module holding a try block fails to validate
  WebAssembly.validate = (bytes) => !Array.from(bytes).some((b, i) => b === 6 && bytes[i + 1] === 64 && bytes[i + 2] === 25) && validate(bytes);
  try {
    assert.equal(simdSupported(), false);
  } finally {
    WebAssembly.validate = validate;
  }
  assert.equal(simdSupported(), true);
});

test('every build throws C++ errors as typed JavaScript errors and stays usable (SIMD: wasm exceptions; scalar and threads: JS exceptions)', async () => {
  for (const options of [{ simd: true }, { simd: false }, { threads: 2 }]) {
    const rp = await init(options);
    if (options.threads) assert.equal(rp.threads, 2);
    const x = new Float32Array(2 * 4 * 4);
    // bidirectional T5 with 3 buckets passes the JS checks and is rejected by relpos::Error in C++
    const t5 = { type: 't5', numBuckets: 3, maxDistance: 8, bidirectional: true, biasTable: new Float32Array(3 * 2) };
    assert.throws(() => rp.attention({ q: x, k: x, v: x, batch: 1, heads: 2, seqLen: 4, headDim: 4, scheme: t5 }),
      (e) => e instanceof RangeError && /num_buckets must be ≥ 4/.test(e.message));
    const { output } = rp.attention({ q: x, k: x, v: x, batch: 1, heads: 2, seqLen: 4, headDim: 4, scheme: { type: 'none' } });
    assert.equal(output.length, x.length);
    rp.dispose();
  }
});
