// Requests that cannot fit the WebAssembly memory (-sMAXIMUM_MEMORY=2GB, cmake/wasm_package.cmake)
// throw a RangeError that names the bytes needed and the limit — never an Emscripten abort — and the
// runtime keeps working: every failing call is followed by a correct one. Both builds.
//   - measured in JS before any allocation: huge seqLen with returnProbs / returnTerms, huge batch,
//     sizes whose products overflow, a model file larger than the limit, a forward pass whose
//     attentions cannot fit
//   - raised in C++: std::bad_alloc (the exact need exceeds the JS lower bound) and positions
//     helpers whose result cannot be allocated, through cpp/bindings/common.h's guarded()
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { init } from '../../web/index.js';
import { randomArray } from './helpers.mjs';
import { haveFixtures, loadCase } from './safetensors.mjs';

const LIMIT = 2147483648;
const dims = { batch: 1, heads: 2, seqLen: 5, headDim: 4 };
const n = 40;
const good = () => ({ q: randomArray(n, 1), k: randomArray(n, 2), v: randomArray(n, 3), ...dims, scheme: { type: 'none' } });

/** fn() throws a RangeError whose message holds `needed` (a number or pattern) and the limit. */
function throwsOutOfMemory(fn, needed) {
  assert.throws(fn, (e) => {
    assert.equal(e.constructor, RangeError, `got ${e.constructor.name}: ${e.message}`);
    assert.match(e.message, new RegExp(String(LIMIT)), `no limit in: ${e.message}`);
    if (needed !== undefined) assert.match(e.message, needed instanceof RegExp ? needed : new RegExp(`\\b${needed}\\b`), e.message);
    return true;
  });
}

for (const simd of [true, false]) {
  const build = simd ? 'SIMD' : 'scalar';
  const runtime = init({ simd });

  test(`${build} build: huge seqLen with returnProbs → RangeError naming the bytes and the limit (heap untouched), then a correct call`, async () => {
    const rp = await runtime;
    const reference = rp.attention(good()).output;
    const heap = rp.heapBytes;
    const seq = 30000;
    const x = new Float32Array(seq);
    const big = { q: x, k: x, v: x, batch: 1, heads: 1, seqLen: seq, headDim: 1, scheme: { type: 'none' } };
    // probs alone: 30000² floats = 3.6e9 bytes
    throwsOutOfMemory(() => rp.attention({ ...big, returnProbs: true }), /needs 36\d{8} bytes .*probs 3600000000/);
    throwsOutOfMemory(() => rp.attention({ ...big, returnTerms: true }), /needs 36\d{8} bytes/);
    assert.equal(rp.heapBytes, heap);
    assert.deepEqual(rp.attention(good()).output, reference);
  });

  // Without probs/terms the same call streams a few heads at a time (streaming.test.mjs); with them,
  // q, k, v and output cross the heap whole.
  test(`${build} build: huge batch with returnProbs (q, k, v, output alone exceed the limit) → RangeError, then a correct call`, async () => {
    const rp = await runtime;
    const reference = rp.attention(good()).output;
    const heap = rp.heapBytes;
    const shape = { batch: 8192, heads: 16, seqLen: 32, headDim: 32, returnProbs: true }; // 2^27 floats = 512 MiB per array
    const x = new Float32Array(8192 * 16 * 32 * 32);
    throwsOutOfMemory(() => rp.attention({ q: x, k: x, v: x, ...shape, scheme: { type: 'none' } }), /needs 2\d{9} bytes .*q, k, v, output 2147483648/);
    assert.equal(rp.heapBytes, heap);
    assert.deepEqual(rp.attention(good()).output, reference);
  });

  test(`${build} build: sizes whose products overflow or exceed the limit (2^124 floats; 2^32 scores) → RangeError naming the product and the limit, then a correct call`, async () => {
    const rp = await runtime;
    const reference = rp.attention(good()).output;
    const max = 2 ** 31 - 1;
    throwsOutOfMemory(() => rp.attention({ ...good(), batch: max, heads: max, seqLen: max, headDim: max }), /do not fit the 2 GB WebAssembly heap/);
    // batch·heads·seqLen·seqLen = 2^32 scores (16 GiB of probs) while q, k, v are small
    const x = new Float32Array(65536);
    throwsOutOfMemory(
      () => rp.attention({ q: x, k: x, v: x, batch: 1, heads: 1, seqLen: 65536, headDim: 1, returnProbs: true, scheme: { type: 'none' } }),
      /needs 17181442048 bytes .*probs 17179869184/,
    );
    assert.deepEqual(rp.attention(good()).output, reference);
  });

  test(`${build} build: std::bad_alloc inside C++ (the exact workspace exceeds the JS lower bound) → RangeError with the bytes and the limit, then a correct call`, async (t) => {
    // A fresh runtime: this call grows its heap to ≈ 1.1 GB, which never shrinks.
    const rp = await init({ simd });
    if (!rp.schemes.includes('rope')) return t.skip('rope not in this build');
    const reference = rp.attention(good()).output;
    // RoPE rewrites q and k into the workspace (3 extra [seq, headDim] copies the JS bound omits):
    // JS counts 16·N + 8·N bytes = 1.68e9 < 2^31, C++ needs ≈ 1.12e9 in buffers + ≈ 1.4e9 of workspace.
    const seq = 1 << 20, headDim = 70; // N = 7.3e7 floats
    const x = new Float32Array(seq * headDim);
    throwsOutOfMemory(
      () => rp.attention({ q: x, k: x, v: x, batch: 1, heads: 1, seqLen: seq, headDim, scheme: { type: 'rope' } }),
      /out of WebAssembly memory: (could not allocate \d+ bytes|an allocation failed) with the heap at \d+ bytes, limit/,
    );
    assert.deepEqual(rp.attention(good()).output, reference);
    const r = rp.attention({ ...good(), scheme: { type: 'rope' } });
    assert.ok(r.output.every(Number.isFinite));
    rp.dispose();
  });

  test(`${build} build: a positions helper whose result cannot be allocated in C++ → RangeError with the bytes and the limit, then a correct call`, async (t) => {
    const rp = await init({ simd });
    if (typeof rp.positions.t5BucketTable !== 'function') return t.skip('t5BucketTable not in this build');
    // 23170² int32 = 2147395600 bytes: passes the JS size check (≤ 2^31) but cannot fit next to the
    // module's own memory → std::bad_alloc in C++.
    throwsOutOfMemory(() => rp.positions.t5BucketTable(23170), /could not allocate 2147395600 bytes with the heap at \d+ bytes/);
    assert.equal(rp.positions.t5BucketTable(4).length, 16);
    assert.deepEqual(rp.attention(good()).output, (await runtime).attention(good()).output);
    rp.dispose();
  });

  test(`${build} build: a model.safetensors larger than the limit → RangeError before anything is read, then a model loads`, { skip: !haveFixtures && 'no HF fixtures' }, async () => {
    const rp = await runtime;
    // a family that reads whole files (BERT's, DeBERTa's, MPNet's and the decoders' safetensors stream, converted as they arrive)
    const fx = loadCase('roformer-rotary');
    // A Blob that reports 3 GiB without holding it: only its size is looked at before the error.
    const huge = { size: 3 * 2 ** 30, stream() { throw new Error('must not be read'); } };
    Object.setPrototypeOf(huge, Blob.prototype);
    await assert.rejects(rp.loadModel({ 'config.json': fx.configText, 'model.safetensors': huge }), (e) => {
      assert.equal(e.constructor, RangeError, e.message);
      assert.match(e.message, /model\.safetensors: the file has 3221225472 bytes, more than the WebAssembly memory limit of 2147483648 bytes/);
      return true;
    });
    const model = await rp.loadModel({ 'config.json': fx.configText, 'model.safetensors': fx.modelBytes });
    assert.deepEqual(model.forward({ inputIds: [3, 4, 5] }).lastHiddenState.dims, [1, 3, 32]);
    model.dispose();
  });

  test(`${build} build: a forward pass whose attentions cannot fit → RangeError naming the bytes and the limit, then a correct forward`, { skip: !haveFixtures && 'no HF fixtures' }, async () => {
    const rp = await runtime;
    const fx = loadCase('bert-absolute');
    const model = await rp.loadModel({ 'config.json': fx.configText, 'model.safetensors': fx.modelBytes });
    const heap = rp.heapBytes;
    const { numLayers, numHeads } = model.info;
    const seq = Math.min(model.info.maxPositionEmbeddings, 512);
    const batch = Math.ceil(LIMIT / (4 * numLayers * numHeads * seq * seq)) + 1; // attentions alone > limit
    const rows = Array.from({ length: batch }, () => new Int32Array(seq).fill(3));
    throwsOutOfMemory(() => model.forward({ inputIds: rows }, { outputAttentions: true }), /forward: needs \d+ bytes .*attentions \d+/);
    assert.equal(rp.heapBytes, heap);
    assert.deepEqual(model.forward({ inputIds: [3, 4, 5] }).lastHiddenState.dims, [1, 3, 32]);
    model.dispose();
  });
}
