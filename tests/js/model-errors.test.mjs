// Bad model files through rp.loadModel: each gives an Error naming the file (and the tensor where
// there is one), and the runtime keeps working afterwards (a good model loads and runs).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { init } from '../../web/index.js';
import { haveFixtures, joinSafetensors, loadCase, splitSafetensors } from './safetensors.mjs';

const skip = haveFixtures ? false : 'no HF fixtures';
const rp = await init({ simd: true });
const fx = haveFixtures ? loadCase('bert-absolute') : null;
const goodConfig = fx?.configText;
const goodWeights = fx?.modelBytes;

const load = (files) => rp.loadModel(files);
const withWeights = (weights, config = goodConfig) => load({ 'config.json': config, 'model.safetensors': weights });

/** The fixture with its header edited by fn(header) (data buffer unchanged). */
function editHeader(fn, data) {
  const { header, data: d } = splitSafetensors(goodWeights);
  const h = structuredClone(header);
  fn(h);
  return joinSafetensors(h, data ?? d);
}

async function stillWorks() {
  const model = await withWeights(goodWeights);
  const out = model.forward({ inputIds: fx.input.input_ids, attentionMask: fx.input.attention_mask });
  assert.deepEqual(out.lastHiddenState.dims, [2, 37, 32]);
  assert.ok(out.lastHiddenState.data.every(Number.isFinite));
  model.dispose();
}

async function rejects(promise, pattern) {
  await assert.rejects(promise, (e) => {
    assert.ok(e instanceof Error, `not an Error: ${e}`);
    assert.match(e.message, pattern);
    return true;
  });
  await stillWorks();
}

const W = 'encoder.layer.0.attention.self.query.weight';

test('a truncated model.safetensors names the file', { skip }, async () => {
  await rejects(withWeights(goodWeights.slice(0, goodWeights.length - 100)), /model\.safetensors.*(out of range|truncated|buffer)/is);
  await rejects(withWeights(goodWeights.slice(0, 5)), /model\.safetensors/);
});

test('a header length past the end of the file names the file', { skip }, async () => {
  const bad = goodWeights.slice();
  new DataView(bad.buffer).setBigUint64(0, BigInt(bad.length * 4), true);
  await rejects(withWeights(bad), /model\.safetensors.*header/i);
});

test('a header that is not JSON, or not a JSON object, names the file', { skip }, async () => {
  await rejects(withWeights(joinSafetensors('{"a": nope', new Uint8Array(8))), /model\.safetensors.*JSON/i);
  await rejects(withWeights(joinSafetensors('[1, 2, 3]', new Uint8Array(8))), /model\.safetensors.*object/i);
});

test('data offsets out of range name the file and tensor', { skip }, async () => {
  const bad = editHeader((h) => {
    const [, end] = h[W].data_offsets;
    h[W].data_offsets = [end + 1e6, end + 1e6 + 4096];
  });
  await rejects(withWeights(bad), new RegExp(`model\\.safetensors.*${W.replace(/\./g, '\\.')}.*range`, 's'));
});

test('overlapping tensors name the file and a tensor', { skip }, async () => {
  const bad = editHeader((h) => {
    h['extra.weight'] = { dtype: 'F32', shape: [4], data_offsets: [h[W].data_offsets[0], h[W].data_offsets[0] + 16] };
  });
  await rejects(withWeights(bad), /model\.safetensors.*overlap/is);
});

test('offsets that do not match dtype × shape name the file and tensor', { skip }, async () => {
  const bad = editHeader((h) => {
    h[W].shape = [32, 31];
  });
  await rejects(withWeights(bad), new RegExp(`model\\.safetensors.*${W.replace(/\./g, '\\.')}.*needs`, 's'));
});

test('an unsupported dtype names the file, tensor and dtype', { skip }, async () => {
  const bad = editHeader((h) => {
    h[W].dtype = 'F64';
    h[W].shape = [32, 16];
  });
  await rejects(withWeights(bad), new RegExp(`model\\.safetensors.*${W.replace(/\./g, '\\.')}.*F64`, 's'));
});

test('a missing tensor is named', { skip }, async () => {
  const bad = editHeader((h) => {
    delete h[W];
  });
  await rejects(withWeights(bad), new RegExp(`${W.replace(/\./g, '\\.')}`));
});

test('a tensor of the wrong shape is named with both shapes', { skip }, async () => {
  const bad = editHeader((h) => {
    h[W].shape = [16, 64]; // same byte count, wrong shape
  });
  await rejects(withWeights(bad), new RegExp(`${W.replace(/\./g, '\\.')}.*\\[?16.*64`, 's'));
});

test('config.json: missing model_type, unknown model_type (lists the supported ones), not JSON, wrong field type', { skip }, async () => {
  const cfg = JSON.parse(goodConfig);
  const { model_type: _, ...noType } = cfg;
  await rejects(withWeights(goodWeights, JSON.stringify(noType)), /config\.json.*model_type.*bert.*deberta-v2.*llama/s);
  await rejects(withWeights(goodWeights, JSON.stringify({ ...cfg, model_type: 'gpt-j' })), /config\.json.*'gpt-j'.*supported: .*bert.*t5/s);
  await rejects(withWeights(goodWeights, '{"model_type": "bert",'), /config\.json.*JSON/);
  await rejects(withWeights(goodWeights, JSON.stringify({ ...cfg, hidden_size: 'big' })), /config\.json.*hidden_size/);
  await rejects(withWeights(goodWeights, JSON.stringify({ ...cfg, hidden_size: 64 })), /word_embeddings.*\[100, 64\]|64/);
});

test('missing files are named', { skip }, async () => {
  await rejects(load({ 'model.safetensors': goodWeights }), /config\.json: not found/);
  await rejects(load({ 'config.json': goodConfig }), /no weights found: tried, in order, model\.safetensors.*model\.safetensors\.index\.json.*pytorch_model\.bin \(.*pytorch_model\.bin\.index\.json/);
  await rejects(rp.loadModel('/nonexistent/relpos-model-folder'), /config\.json: not found at \/nonexistent/);
});

test('text without tokenizer.json is a clear Error; ids out of the vocabulary a RangeError', { skip }, async () => {
  const model = await withWeights(goodWeights);
  assert.throws(() => model.forward({ text: 'hello' }), /tokenizer\.json/);
  assert.throws(() => model.forward({ inputIds: [[1, 2, 100]] }), (e) => e instanceof RangeError && /vocabulary/.test(e.message));
  assert.throws(() => model.forward({ inputIds: [[1, 2.5]] }), TypeError);
  assert.throws(() => model.forward({ inputIds: [[1, 2]], attentionMask: [[1]] }), RangeError);
  const out = model.forward({ inputIds: [3, 4, 5] });
  assert.deepEqual(out.lastHiddenState.dims, [1, 3, 32]);
  model.dispose();
});

test('bad loadModel arguments are TypeErrors', async () => {
  await assert.rejects(rp.loadModel(42), TypeError);
  await assert.rejects(rp.loadModel({ 'config.json': '{}', 'model.safetensors': 7 }), /config\.json|model\.safetensors/);
  await assert.rejects(rp.loadModel('/x', { onProgress: 'yes' }), TypeError);
});
