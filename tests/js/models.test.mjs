// Every Hugging Face fixture case (shared/fixtures/hf) through the package's JS API, on the SIMD128
// and the scalar build: rp.loadModel(folder) → model.forward({ inputIds, attentionMask },
// { outputHiddenStates, outputAttentions }) agrees with transformers 4.34.1 on valid positions —
// every hidden state (and the BERT pooler output) within 1e-4 max abs error, attention probabilities
// within 1e-5. Plus: load/dispose cycles keep the heap's high-water mark stable.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';

import { init } from '../../web/index.js';
import { FIXTURES, haveFixtures, loadCase, manifest } from './safetensors.mjs';
import { hiddenError, probError } from './fixture-errors.mjs';

const HIDDEN_TOL = 1e-4;
const PROB_TOL = 1e-5;

const runtimes = { SIMD: await init({ simd: true }), scalar: await init({ simd: false }), 'SIMD, 2 threads': await init({ threads: 2 }) };

test('the HF fixtures are present', { skip: haveFixtures ? false : `no fixtures at ${FIXTURES}` }, () => {
  assert.ok(manifest.cases.length >= 14);
});

for (const c of manifest.cases) {
  test(c.name, async (t) => {
    const fx = loadCase(c.dir);
    const { input, expected } = fx;
    const nLayers = c.num_layers;
    for (const [build, rp] of Object.entries(runtimes)) {
      await t.test(`${build} build`, async () => {
        const model = await rp.loadModel(fx.dir);
        try {
          const out = model.forward(
            { inputIds: input.input_ids, ...(input.attention_mask_passed_to_model ? { attentionMask: input.attention_mask } : {}) },
            { outputHiddenStates: true, outputAttentions: true },
          );
          const lengths = input.lengths;
          const errors = {};
          errors.last_hidden_state = hiddenError(out.lastHiddenState, expected.last_hidden_state, lengths);
          assert.equal(out.hiddenStates.length, nLayers + 1);
          assert.equal(out.attentions.length, nLayers);
          for (let i = 0; i <= nLayers; ++i)
            errors[`hidden_states.${i}`] = hiddenError(out.hiddenStates[i], expected[`hidden_states.${i}`], lengths);
          if (expected.pooler_output) {
            assert.ok(out.poolerOutput, 'poolerOutput is missing');
            errors.pooler_output = hiddenError(out.poolerOutput, expected.pooler_output, null);
          }
          for (let i = 0; i < nLayers; ++i) {
            const e = probError(out.attentions[i], expected[`attentions.${i}`], lengths);
            assert.ok(e <= PROB_TOL, `attentions.${i}: max abs error ${e} > ${PROB_TOL}`);
          }
          for (const [key, e] of Object.entries(errors)) assert.ok(e <= HIDDEN_TOL, `${key}: max abs error ${e} > ${HIDDEN_TOL}`);
          // Results are fresh arrays the caller owns (not views of the WebAssembly heap).
          assert.ok(out.lastHiddenState.data.buffer instanceof ArrayBuffer);
          assert.notEqual(out.lastHiddenState.data.buffer, out.hiddenStates[nLayers].data.buffer);
          assert.equal(model.info.modelType, c.model_type);
          assert.equal(model.info.numLayers, nLayers);
        } finally {
          model.dispose();
        }
      });
    }
  });
}

test('one sequence without padding equals its batched valid rows (bert-relative-key)', { skip: !haveFixtures }, async () => {
  const fx = loadCase('bert-relative-key');
  const rp = runtimes.SIMD;
  const model = await rp.loadModel(pathToFileURL(fx.dir + '/').href);
  const n = fx.input.lengths[1];
  const alone = model.forward({ inputIds: fx.input.input_ids[1].slice(0, n) });
  assert.deepEqual(alone.lastHiddenState.dims, [1, n, 32]);
  // a ragged batch is right-padded with a mask automatically
  const ragged = model.forward({ inputIds: [fx.input.input_ids[0], fx.input.input_ids[1].slice(0, n)] });
  const L = fx.input.lengths[0];
  assert.deepEqual(Array.from(ragged.attentionMask.data.subarray(L, 2 * L)), [...Array(n).fill(1), ...Array(L - n).fill(0)]);
  let worst = 0;
  for (let i = 0; i < n * 32; ++i) worst = Math.max(worst, Math.abs(alone.lastHiddenState.data[i] - ragged.lastHiddenState.data[L * 32 + i]));
  assert.ok(worst < 1e-5, `padding changed valid rows by ${worst}`);
  model.dispose();
  assert.throws(() => model.forward({ inputIds: [1, 2] }), /disposed/);
});

for (const [build, rp] of Object.entries(runtimes)) {
  test(`${build} build: 50 load/forward/dispose cycles keep the heap's high-water mark stable`, { skip: !haveFixtures }, async () => {
    const names = ['bert-absolute', 'deberta-v2-b-v3like', 't5-a-classic', 'llama-rope'];
    const files = names.map((n) => ({
      'config.json': readFileSync(join(FIXTURES, n, 'config.json')),
      'model.safetensors': new Uint8Array(readFileSync(join(FIXTURES, n, 'model.safetensors'))),
      ids: JSON.parse(readFileSync(join(FIXTURES, n, 'input.json'), 'utf8')).input_ids,
    }));
    const cycle = async (i) => {
      const f = files[i % files.length];
      const model = await rp.loadModel({ 'config.json': f['config.json'], 'model.safetensors': f['model.safetensors'] });
      model.forward({ inputIds: f.ids }, { outputHiddenStates: true, outputAttentions: true });
      model.dispose();
    };
    for (let i = 0; i < 8; ++i) await cycle(i); // warm-up: every model once, twice
    const heap = rp.heapBytes;
    for (let i = 0; i < 50; ++i) {
      await cycle(i);
      assert.equal(rp.heapBytes, heap, `heap grew at cycle ${i}`);
    }
  });
}
