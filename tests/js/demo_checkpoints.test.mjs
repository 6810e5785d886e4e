// The demo's random-weight checkpoints (demo/model/checkpoints.js): every family's generated folder
// loads with rp.loadModel (the files map source, tokenizer.json included) and model.forward({ text })
// gives finite hidden states and attention probabilities of the right shapes (causal families mask
// the future); weight names, shapes and config field names are those of the Hugging Face fixtures of
// the same family; the same arguments give the same bytes.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { init } from '../../web/index.js';
import { DIMS, FAMILIES, familiesFor, makeCheckpoint } from '../../demo/model/checkpoints.js';
import { VOCAB_SIZE } from '../../demo/model/tokenizer-json.js';
import { FIXTURES, haveFixtures, splitSafetensors } from './safetensors.mjs';

const rp = await init({ simd: true });
const TEXT = 'The cat sat on the mat because it was tired.';

// The HF fixture (transformers 4.34.1) of each family, for names and config fields.
const FIXTURE = {
  'bert-absolute': 'bert-absolute', 'bert-relative-key': 'bert-relative-key', 'bert-relative-key-query': 'bert-relative-key-query',
  t5: 't5-a-classic', 'deberta-v2': 'deberta-v2-b-v3like', roformer: 'roformer-rotary', llama: 'llama-rope', bloom: 'bloom-alibi',
  mpt: 'mpt-alibi', 'transfo-xl': 'transfo-xl', 'distilbert-sinusoidal': 'distilbert-sinusoidal',
  // ../shared/fixtures/hf-families (each family's own code)
  mpnet: '../hf-families/mpnet-a', modernbert: '../hf-families/modernbert-a', 'nomic-bert': '../hf-families/nomic-bert-a',
  // ../shared/fixtures/hf-llm-embedders (transformers 948bc0fa)
  qwen3: '../hf-llm-embedders/qwen3-embed-right', gemma3: '../hf-llm-embedders/gemma3-bidir-a',
};

test('every family of the demo has a fixture to compare with, and the schemes map to them', () => {
  assert.deepEqual(Object.keys(FIXTURE).sort(), Object.keys(FAMILIES).sort());
  assert.deepEqual(familiesFor('alibi'), ['bloom', 'mpt']);
  assert.deepEqual(familiesFor('rope'), ['roformer', 'llama', 'modernbert', 'qwen3', 'gemma3', 'nomic-bert']);
  assert.deepEqual(familiesFor('t5'), ['t5', 'mpnet']);
  assert.deepEqual(familiesFor('huang'), []);
});

for (const family of Object.keys(FAMILIES)) {
  test(`${family}: the generated folder loads with rp.loadModel and forward({ text }) is finite and well shaped`, async () => {
    for (const layers of [1, 3]) {
      const files = makeCheckpoint(family, { layers });
      const model = await rp.loadModel(files);
      try {
        assert.equal(model.info.modelType, FAMILIES[family].modelType);
        assert.equal(model.info.numLayers, layers);
        const out = model.forward({ text: TEXT }, { outputAttentions: true });
        const S = out.tokens[0].length;
        assert.deepEqual(out.tokens[0].slice(0, 4), ['[CLS]', 'the', 'cat', 'sat']);
        assert.equal(S, 13);
        assert.deepEqual(out.lastHiddenState.dims, [1, S, DIMS.hidden]);
        assert.ok(out.lastHiddenState.data.every(Number.isFinite), 'hidden states finite');
        assert.equal(out.attentions.length, layers);
        for (const a of out.attentions) {
          assert.deepEqual(a.dims, [1, DIMS.heads, S, S]);
          for (let r = 0; r < DIMS.heads * S; r++) {
            const row = a.data.subarray(r * S, (r + 1) * S);
            const sum = row.reduce((x, y) => x + y, 0);
            assert.ok(Math.abs(sum - 1) < 1e-4, `row ${r} sums to ${sum}`);
            if (FAMILIES[family].causal) assert.ok(row.subarray((r % S) + 1).every((p) => p === 0), `row ${r} attends to the future`);
          }
        }
        // 256 tokens (the section's long input) fit the model's positions
        const long = model.forward({ inputIds: [Array.from({ length: 256 }, (_, i) => 5 + (i % (VOCAB_SIZE - 5)))] });
        assert.deepEqual(long.lastHiddenState.dims, [1, 256, DIMS.hidden]);
        assert.ok(long.lastHiddenState.data.every(Number.isFinite));
      } finally {
        model.dispose();
      }
    }
  });

  test(`${family}: weight names, shapes and config fields are Hugging Face's`, { skip: haveFixtures ? false : 'no HF fixtures' }, () => {
    const dir = join(FIXTURES, FIXTURE[family]);
    const ref = splitSafetensors(new Uint8Array(readFileSync(join(dir, 'model.safetensors')))).header;
    const refConfig = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    const files = makeCheckpoint(family, { layers: refConfig.num_hidden_layers ?? refConfig.num_layers ?? refConfig.n_layer ?? refConfig.n_layers ?? 2 });
    const ours = splitSafetensors(files['model.safetensors']).header;
    const names = (h) => Object.keys(h).filter((k) => k !== '__metadata__').sort();
    assert.deepEqual(names(ours), names(ref));
    for (const k of names(ref)) assert.equal(ours[k].shape.length, ref[k].shape.length, `${k}: rank`);
    const config = JSON.parse(files['config.json']);
    for (const k of Object.keys(config)) assert.ok(k in refConfig, `config.json field '${k}' is not a ${refConfig.model_type} field`);
    assert.equal(config.model_type, refConfig.model_type);
  });
}

test('the same arguments give the same bytes; another seed other weights', () => {
  const a = makeCheckpoint('t5', { layers: 2 }), b = makeCheckpoint('t5', { layers: 2 }), c = makeCheckpoint('t5', { layers: 2, seed: 7 });
  assert.deepEqual(a, b);
  assert.equal(a['config.json'], c['config.json']);
  assert.notDeepEqual(a['model.safetensors'], c['model.safetensors']);
  assert.throws(() => makeCheckpoint('gpt2'), TypeError);
});
