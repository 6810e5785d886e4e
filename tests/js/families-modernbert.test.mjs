// ModernBERT (shared/fixtures/hf-families/modernbert-{a,b}, Transformers v4.48.0) through the package's JS API on
// the SIMD128, scalar and 2-thread builds: rp.loadModel(folder) → model.forward({ inputIds, attentionMask },
// { outputHiddenStates, outputAttentions }) agrees with Hugging Face on valid positions — hidden states
// (hidden_states.i = residual stream before final_norm, last = after it) within 1e-4, attention probabilities
// within 1e-5 and exactly 0 outside the sliding window of the local layers.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';

import { init } from '../../web/index.js';
import { ROOT } from './helpers.mjs';
import { readSafetensors } from './safetensors.mjs';
import { hiddenError } from './fixture-errors.mjs';

const FAMILIES = process.env.RELPOS_HF_FAMILY_FIXTURES ?? resolve(ROOT, '..', 'shared', 'fixtures', 'hf-families');
const CASES = ['modernbert-a', 'modernbert-b'];
const have = CASES.every((c) => existsSync(join(FAMILIES, c, 'expected.safetensors')));
const HIDDEN_TOL = 1e-4;
const PROB_TOL = 1e-5;

const runtimes = have
  ? { SIMD: await init({ simd: true }), scalar: await init({ simd: false }), 'SIMD, 2 threads': await init({ threads: 2 }) }
  : {};

/** Max |a − e| over [b, :, :n_b, :n_b], and how many probabilities outside the window / on padded keys are not 0. */
function probCheck(actual, expected, lengths, window) {
  assert.deepEqual(actual.dims, expected.dims, 'shape');
  const [B, heads, L] = expected.dims;
  let worst = 0;
  let leaks = 0;
  for (let b = 0; b < B; ++b)
    for (let h = 0; h < heads; ++h)
      for (let i = 0; i < lengths[b]; ++i)
        for (let j = 0; j < L; ++j) {
          const k = ((b * heads + h) * L + i) * L + j;
          const allowed = j < lengths[b] && (window < 0 || Math.abs(i - j) <= window);
          if (!allowed && actual.data[k] !== 0) ++leaks;
          if (j < lengths[b]) {
            const e = Math.abs(actual.data[k] - expected.data[k]);
            worst = Number.isNaN(e) ? Infinity : Math.max(worst, e);
          }
        }
  return { worst, leaks };
}

test('the ModernBERT family fixtures are present', { skip: have ? false : `no fixtures at ${FAMILIES}` }, () => {
  assert.ok(have);
});

for (const name of CASES) {
  test(name, { skip: !have }, async (t) => {
    const dir = join(FAMILIES, name);
    const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    const input = JSON.parse(readFileSync(join(dir, 'input.json'), 'utf8'));
    const expected = readSafetensors(new Uint8Array(readFileSync(join(dir, 'expected.safetensors'))));
    const nLayers = config.num_hidden_layers;
    for (const [build, rp] of Object.entries(runtimes)) {
      await t.test(`${build} build`, async () => {
        const model = await rp.loadModel(dir);
        try {
          assert.equal(model.info.modelType, 'modernbert');
          assert.equal(model.info.maxSequence, 0);
          const out = model.forward(
            { inputIds: input.input_ids, attentionMask: input.attention_mask },
            { outputHiddenStates: true, outputAttentions: true },
          );
          const lengths = input.lengths;
          assert.equal(out.hiddenStates.length, nLayers + 1);
          assert.equal(out.attentions.length, nLayers);
          const errors = { last_hidden_state: hiddenError(out.lastHiddenState, expected.last_hidden_state, lengths) };
          for (let i = 0; i <= nLayers; ++i)
            errors[`hidden_states.${i}`] = hiddenError(out.hiddenStates[i], expected[`hidden_states.${i}`], lengths);
          for (const [key, e] of Object.entries(errors)) assert.ok(e <= HIDDEN_TOL, `${key}: max abs error ${e} > ${HIDDEN_TOL}`);
          for (let i = 0; i < nLayers; ++i) {
            const global = i % config.global_attn_every_n_layers === 0;
            const window = global ? -1 : Math.floor(config.local_attention / 2);
            const { worst, leaks } = probCheck(out.attentions[i], expected[`attentions.${i}`], lengths, window);
            assert.ok(worst <= PROB_TOL, `attentions.${i}: max abs error ${worst} > ${PROB_TOL}`);
            assert.equal(leaks, 0, `attentions.${i}: probabilities outside the window or on padded keys`);
          }
        } finally {
          model.dispose();
        }
      });
    }
  });
}
