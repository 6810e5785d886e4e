// Without returnProbs/returnTerms, rp.attention streams q, k, v and output through the WebAssembly
// heap a few (batch, head) slices at a time (web/index.js STREAM_BYTES = 8 MiB). Proven here, both builds:
//   - a call that needs several chunks (chunks starting mid-batch) equals the same inputs run one
//     batch row at a time (one chunk each), for every scheme with per-head or per-call state;
//   - the heap stays far below the inputs' size: 64 MiB of q, k, v and output grow it by < 40 MiB.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { init } from '../../web/index.js';
import { maxError, randomArray } from './helpers.mjs';

const H = 6, S = 512, D = 64;  // one slice = 128 KiB per array: 16 slices per 8 MiB chunk
const tables = {
  t5: () => ({ type: 't5', biasTable: randomArray(32 * H, 5) }),
  alibi: () => ({ type: 'alibi' }),
  rope: () => ({ type: 'rope' }),
  'transformer-xl': () => ({
    type: 'transformer-xl', dModel: 128, u: randomArray(H * D, 6), v: randomArray(H * D, 7),
    wKR: randomArray(H * D * 128, 8).map((x) => 0.1 * x),
  }),
  tupe: () => ({ type: 'tupe', posDim: 32, positions: randomArray(S * 32, 9), uQ: randomArray(H * D * 32, 10), uK: randomArray(H * D * 32, 11) }),
  deberta: () => ({ type: 'deberta', posKey: randomArray(H * 512 * D, 12), posQuery: randomArray(H * 512 * D, 13) }),
  shaw: () => ({ type: 'shaw', maxDistance: 16, keyTable: randomArray(33 * D, 14), valueTable: randomArray(33 * D, 15) }),
};

/** Batch row b of a [batch, H, S, D] array. */
const row = (x, b) => x.subarray(b * H * S * D, (b + 1) * H * S * D);

for (const simd of [true, false]) {
  const build = simd ? 'SIMD' : 'scalar';
  const runtime = init({ simd });

  test(`${build} build: a call streamed in chunks that start mid-batch equals one chunk per batch row, for schemes with per-head state`, async () => {
    const rp = await runtime;
    const batch = 3;  // 18 slices: chunks [0, 16) and [16, 18), the first ending inside batch row 2
    const n = batch * H * S * D;
    const q = randomArray(n, 1), k = randomArray(n, 2), v = randomArray(n, 3);
    const mask = new Uint8Array(batch * S).fill(1);
    mask.fill(0, S + 300, 2 * S);  // batch row 1 padded
    for (const [type, make] of Object.entries(tables)) {
      if (!rp.schemes.includes(type)) continue;
      for (const causal of [false, true]) {
        const scheme = make();
        const whole = rp.attention({ q, k, v, batch, heads: H, seqLen: S, headDim: D, mask, causal, scheme }).output;
        for (let b = 0; b < batch; ++b) {
          const one = rp.attention({
            q: row(q, b), k: row(k, b), v: row(v, b), batch: 1, heads: H, seqLen: S, headDim: D,
            mask: mask.subarray(b * S, (b + 1) * S), causal, scheme,
          }).output;
          const err = maxError(row(whole, b), one);
          assert.ok(err <= 1e-6, `${type}${causal ? ' causal' : ''}, batch row ${b}: max error ${err}`);
        }
      }
    }
  });

  test(`${build} build: 64 MiB of q, k, v and output cross a heap that grows by less than 40 MiB`, async () => {
    const rp = await init({ simd });  // fresh: its heap starts at the initial 16 MiB
    const batch = 4, heads = 8, seqLen = 2048, headDim = 64;  // 16 MiB per array
    const n = batch * heads * seqLen * headDim;
    const x = randomArray(n, 4);
    const before = rp.heapBytes;
    const { output } = rp.attention({ q: x, k: x, v: x, batch, heads, seqLen, headDim, scheme: { type: 'none' } });
    assert.equal(output.length, n);
    assert.ok(output.every(Number.isFinite));
    assert.ok(rp.heapBytes - before < 40 * 2 ** 20, `heap grew from ${before} to ${rp.heapBytes} bytes`);
    rp.dispose();
  });
}
