// MPNet (model_type "mpnet") through the package's JS API on the SIMD128, scalar and threaded builds:
// rp.loadModel(folder) on shared/fixtures/hf-families/mpnet-{a,b} agrees with MPNetModel of transformers
// 4.34.1 on valid positions — hidden states and pooler output within 1e-4, attention probabilities within
// 1e-5 — and reports maxSequence = max_position_embeddings − 2 (positions start at padding_idx + 1 = 2);
// one token more is an Error naming both numbers.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';

import { init } from '../../web/index.js';
import { ROOT } from './helpers.mjs';
import { readSafetensors } from './safetensors.mjs';

const FAMILIES = process.env.RELPOS_HF_FAMILY_FIXTURES ?? resolve(ROOT, '..', 'shared', 'fixtures', 'hf-families');
const have = existsSync(join(FAMILIES, 'mpnet-a', 'config.json'));
const runtimes = have
  ? { SIMD: await init({ simd: true }), scalar: await init({ simd: false }), 'SIMD, 2 threads': await init({ threads: 2 }) }
  : {};

/** Max |a − e| over valid rows of [B, L, H] (all of [B, H]) or over [b, :, :n_b, :n_b] of [B, heads, L, L]. */
function maxError(actual, expected, lengths, probs) {
  assert.deepEqual(actual.dims, expected.dims, 'shape');
  const d = expected.dims;
  let worst = 0;
  const at = (i) => {
    const e = Math.abs(actual.data[i] - expected.data[i]);
    worst = Number.isNaN(e) ? Infinity : Math.max(worst, e);
  };
  if (d.length === 2) for (let i = 0; i < expected.data.length; ++i) at(i);
  else if (!probs) for (let b = 0; b < d[0]; ++b) for (let l = 0; l < lengths[b]; ++l) for (let h = 0; h < d[2]; ++h) at((b * d[1] + l) * d[2] + h);
  else
    for (let b = 0; b < d[0]; ++b)
      for (let h = 0; h < d[1]; ++h)
        for (let i = 0; i < lengths[b]; ++i) for (let j = 0; j < lengths[b]; ++j) at(((b * d[1] + h) * d[2] + i) * d[3] + j);
  return worst;
}

for (const name of ['mpnet-a', 'mpnet-b']) {
  test(`hf-families ${name}`, { skip: have ? false : `no fixtures at ${FAMILIES}` }, async (t) => {
    const dir = join(FAMILIES, name);
    const input = JSON.parse(readFileSync(join(dir, 'input.json'), 'utf8'));
    const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    const expected = readSafetensors(new Uint8Array(readFileSync(join(dir, 'expected.safetensors'))));
    const layers = config.num_hidden_layers;
    for (const [build, rp] of Object.entries(runtimes)) {
      await t.test(`${build} build`, async () => {
        const model = await rp.loadModel(dir);
        try {
          assert.equal(model.info.modelType, 'mpnet');
          assert.equal(model.info.maxSequence, config.max_position_embeddings - 2);
          const out = model.forward(
            { inputIds: input.input_ids, attentionMask: input.attention_mask },
            { outputHiddenStates: true, outputAttentions: true },
          );
          const lengths = input.lengths;
          assert.equal(out.hiddenStates.length, layers + 1);
          assert.equal(out.attentions.length, layers);
          const hidden = { last_hidden_state: maxError(out.lastHiddenState, expected.last_hidden_state, lengths, false) };
          for (let i = 0; i <= layers; ++i) hidden[`hidden_states.${i}`] = maxError(out.hiddenStates[i], expected[`hidden_states.${i}`], lengths, false);
          assert.ok(out.poolerOutput, 'poolerOutput is missing');
          hidden.pooler_output = maxError(out.poolerOutput, expected.pooler_output, null, false);
          for (const [key, e] of Object.entries(hidden)) assert.ok(e <= 1e-4, `${key}: max abs error ${e} > 1e-4`);
          for (let i = 0; i < layers; ++i) {
            const e = maxError(out.attentions[i], expected[`attentions.${i}`], lengths, true);
            assert.ok(e <= 1e-5, `attentions.${i}: max abs error ${e} > 1e-5`);
          }
          const tooLong = new Array(config.max_position_embeddings - 1).fill(5);
          assert.throws(() => model.forward({ inputIds: tooLong }), new RegExp(`${tooLong.length}.*${tooLong.length - 1}.*mpnet`));
        } finally {
          model.dispose();
        }
      });
    }
  });
}
