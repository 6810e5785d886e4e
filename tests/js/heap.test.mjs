// 10,000 attention calls: after warm-up the WebAssembly heap (HEAP8.buffer.byteLength) never grows —
// inputs are freed in `finally`, the runtime's one Workspace is reused, results are JS-owned copies.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { init } from '../../web/index.js';
import { randomArray } from './helpers.mjs';

for (const simd of [true, false]) {
  test(`${simd ? 'SIMD' : 'scalar'} build: 10,000 calls do not grow the heap after warm-up`, async () => {
    const rp = await init({ simd });
    const dims = { batch: 2, heads: 4, seqLen: 32, headDim: 16 };
    const n = 2 * 4 * 32 * 16;
    const q = randomArray(n, 1), k = randomArray(n, 2), v = randomArray(n, 3);
    const schemes = [{ type: 'none' }];
    if (rp.schemes.includes('t5')) schemes.push({ type: 't5', numBuckets: 8, maxDistance: 16, biasTable: randomArray(8 * 4, 4) });
    if (rp.schemes.includes('rope')) schemes.push({ type: 'rope' });
    if (rp.schemes.includes('alibi')) schemes.push({ type: 'alibi', slopes: 'bloom' });
    const call = (i) =>
      rp.attention({ q, k, v, ...dims, scheme: schemes[i % schemes.length], causal: i % 3 === 0, returnProbs: i % 5 === 0, returnTerms: i % 7 === 0 });

    for (let i = 0; i < 200; ++i) call(i); // warm-up: every scheme × option combination
    const first = call(0).output;
    const heap = rp.heapBytes;
    for (let i = 0; i < 10000; ++i) {
      const r = call(i);
      assert.equal(r.output.length, n);
      if (i % 1000 === 0) assert.equal(rp.heapBytes, heap, `heap grew by call ${i}`);
    }
    assert.equal(rp.heapBytes, heap);
    assert.deepEqual(call(0).output, first); // still deterministic
    rp.dispose();
  });
}
