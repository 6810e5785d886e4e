// rp.loadModel(source, { dtype: 'q8' }) through the package, on the SIMD128 and the scalar build:
// every shared fixture and bench model stays close to its fp32 load (scripts/q8-accuracy.mjs
// measures): mean-pooled embeddings' cosine ≥ 0.999, last hidden state max error ≤ 0.15 × max |fp32|
// on the tiny fixtures (hidden 32) and ≤ 0.01 × on the bench models; model.info reports dtype and
// weightBytes, q8 ≤ 0.27× fp32 on the bench models (DeBERTa ≤ 0.40: its projected relative tables stay fp32),
// and the WebAssembly heap holding four q8 copies stays well under the one holding four fp32 copies.
// A dtype other than 'fp32' / 'q8' / 'fp16' is a TypeError / RangeError naming the allowed values.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';

import { init } from '../../web/index.js';
import { BENCH_NAMES, FIXTURE_NAMES, caseDir, measureQ8 } from '../../scripts/q8-accuracy.mjs';

const have = fs.existsSync(caseDir(FIXTURE_NAMES[0])) && fs.existsSync(caseDir(BENCH_NAMES[0]));
const skip = have ? false : 'no ../shared fixtures';

for (const simd of [true, false]) {
  const build = simd ? 'SIMD' : 'scalar';
  test(`${build}: q8 fixtures and bench models stay within the accuracy bounds of their fp32 loads`, { skip }, async () => {
    const rp = await init({ simd });
    for (const name of [...FIXTURE_NAMES, ...BENCH_NAMES]) {
      const r = await measureQ8(rp, name);
      const bench = BENCH_NAMES.includes(name);
      const msg = `${name}: ${JSON.stringify(r)}`;
      assert.deepEqual(r.dtypes, ['fp32', 'q8'], msg);
      assert.ok(r.cosine >= 0.999, msg);
      assert.ok(r.rel <= (bench ? 0.01 : 0.15), msg);
      assert.ok(r.bytesRatio < (bench ? (name.startsWith('deberta') ? 0.40 : 0.27) : 0.5), msg);
    }
    rp.dispose();
  });
}

test('four q8 copies of a bench model take far less WebAssembly heap than four fp32 copies', { skip }, async () => {
  const heapAfter = async (dtype) => {
    const rp = await init({ simd: true });
    const models = [];
    for (let i = 0; i < 4; ++i) models.push(await rp.loadModel(caseDir('t5-small-encoder-layer'), { dtype }));
    const heap = rp.heapBytes, bytes = models[0].info.weightBytes;
    models.forEach((m) => m.dispose());
    rp.dispose();
    return { heap, bytes };
  };
  const fp32 = await heapAfter('fp32');
  const q8 = await heapAfter('q8');
  // the checkpoint file (14 MiB) passes through the heap once per load in both cases
  assert.ok(q8.heap < fp32.heap - 2.5 * (fp32.bytes - q8.bytes), JSON.stringify({ fp32, q8 }));
});

test('loadModel rejects a dtype other than fp32 or q8, naming the allowed values', { skip }, async () => {
  const rp = await init({ simd: true });
  const dir = caseDir('bert-absolute');
  await assert.rejects(rp.loadModel(dir, { dtype: 'int4' }), (e) => e instanceof RangeError && /'fp32', 'q8'/.test(e.message));
  await assert.rejects(rp.loadModel(dir, { dtype: 8 }), (e) => e instanceof TypeError && /'fp32', 'q8'/.test(e.message));
  const m = await rp.loadModel(dir, { dtype: 'fp32' });
  assert.equal(m.info.dtype, 'fp32');
  assert.ok(m.info.weightBytes > 0);
  m.dispose();
  rp.dispose();
});
