// Misuse that the other suites do not cover: init() options, calls made before init() has
// resolved, objects used after dispose(), and safetensors offsets / header lengths beyond 2^53.
// Each is a documented error (docs/robustness.md), and the runtime keeps working afterwards.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { init, pipeline } from '../../web/index.js';
import { randomArray } from './helpers.mjs';
import { haveFixtures, joinSafetensors, loadCase, splitSafetensors } from './safetensors.mjs';

const good = () => ({ q: randomArray(40, 1), k: randomArray(40, 2), v: randomArray(40, 3), batch: 1, heads: 2, seqLen: 5, headDim: 4, scheme: { type: 'none' } });

test('init: options that are not an object, a bad simd value or bad wasmPaths are TypeErrors', async () => {
  await assert.rejects(init('simd'), { name: 'TypeError', message: 'init: options: expected an object, got "simd"' });
  await assert.rejects(init({ simd: 'yes' }), { name: 'TypeError', message: `init: simd: expected true, false or 'auto', got "yes"` });
  await assert.rejects(init({ wasmPaths: 42 }), { name: 'TypeError', message: /^init: wasmPaths: expected a prefix string or an object/ });
  await assert.rejects(init({ wasmPaths: { 'relpos-simd.wasm': 1, 'relpos-scalar.wasm': 1 } }), { name: 'TypeError', message: /^init: wasmPaths\['relpos-(simd|scalar)\.wasm'\]: expected a URL string, got number/ });
});

test('init: a wasmPaths prefix where no .wasm exists is an Error naming the build and the location; init works afterwards', async () => {
  await assert.rejects(init({ simd: false, wasmPaths: '/nonexistent/relpos/' }), { name: 'Error', message: /^relpos: could not load scalar WebAssembly from \/nonexistent\/relpos\/relpos-scalar\.wasm: / });
  const rp = await init({ simd: false });
  assert.equal(rp.attention(good()).output.length, 40);
});

test('calls before init() resolved: the pending promise has no attention(), pipeline() without a model is a TypeError', async () => {
  const pending = init();
  assert.throws(() => pending.attention(good()), TypeError);
  assert.throws(() => pipeline('feature-extraction', undefined), { name: 'TypeError', message: 'pipeline: model: expected a model from rp.loadModel() or a model source (Hub id, URL, folder, files), got undefined' });
  const rp = await pending;
  assert.equal(rp.attention(good()).output.length, 40);
});

test('a disposed runtime refuses attention() and loadModel() with an Error; other runtimes are unaffected', async () => {
  const rp = await init({ simd: false });
  const other = await init({ simd: false });
  rp.dispose();
  assert.throws(() => rp.attention(good()), { name: 'Error', message: 'attention: this relpos runtime has been disposed' });
  await assert.rejects(rp.loadModel({}), { name: 'Error', message: 'loadModel: this relpos runtime has been disposed' });
  assert.equal(other.attention(good()).output.length, 40);
});

test('a disposed model refuses forward() and encode() with an Error; dispose() twice is harmless', { skip: !haveFixtures && 'no HF fixtures' }, async () => {
  const rp = await init();
  const fx = loadCase('bert-absolute');
  const model = await rp.loadModel({ 'config.json': fx.configText, 'model.safetensors': fx.modelBytes });
  model.dispose();
  model.dispose();
  assert.throws(() => model.forward({ inputIds: [1, 2] }), { name: 'Error', message: 'forward: this model has been disposed' });
  assert.throws(() => model.encode('hi'), { name: 'Error', message: 'encode: this model has been disposed' });
  const again = await rp.loadModel({ 'config.json': fx.configText, 'model.safetensors': fx.modelBytes });
  assert.deepEqual(again.forward({ inputIds: [3, 4] }).lastHiddenState.dims, [1, 2, 32]);
  again.dispose();
});

test('safetensors offsets and header lengths near 2^64 are Errors naming the file, never wrap around', { skip: !haveFixtures && 'no HF fixtures' }, async () => {
  const rp = await init();
  const fx = loadCase('bert-absolute');
  const W = 'encoder.layer.0.attention.self.query.weight';
  const { header, data } = splitSafetensors(fx.modelBytes);
  const load = (weights) => rp.loadModel({ 'config.json': fx.configText, 'model.safetensors': weights });
  // data_offsets whose difference is right but which lie near 2^64 (u64 overflow if added)
  const text = JSON.stringify(header).replace(
    `"${W}":{"dtype":"F32","shape":${JSON.stringify(header[W].shape)},"data_offsets":${JSON.stringify(header[W].data_offsets)}}`,
    `"${W}":{"dtype":"F32","shape":${JSON.stringify(header[W].shape)},"data_offsets":[18446744073709549568,18446744073709551615]}`,
  );
  assert.notEqual(text, JSON.stringify(header));
  await assert.rejects(load(joinSafetensors(text, data)), (e) => e instanceof Error && /model\.safetensors/.test(e.message));
  // header length 2^63 + 8
  const bad = fx.modelBytes.slice();
  new DataView(bad.buffer).setBigUint64(0, 2n ** 63n + 8n, true);
  await assert.rejects(load(bad), (e) => e instanceof Error && /model\.safetensors.*header/is.test(e.message));
  const model = await load(fx.modelBytes);
  assert.deepEqual(model.forward({ inputIds: [3, 4] }).lastHiddenState.dims, [1, 2, 32]);
  model.dispose();
});
