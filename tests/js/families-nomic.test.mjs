// NomicBERT (model_type "nomic_bert", the authors' remote code modeling_hf_nomic_bert.py) through the
// package's JS API on the SIMD128, scalar and 2-thread builds: rp.loadModel(folder) on
// shared/fixtures/hf-families/nomic-bert-{a,b} → forward agrees with the remote code on valid positions —
// hidden states within 1e-4 max abs error, attention probabilities within 1e-5 (README "NomicBERT").
// Also: rotary_scaling_factor (dynamic NTK) is refused with an error naming the field.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';

import { init } from '../../web/index.js';
import { ROOT } from './helpers.mjs';
import { readSafetensors } from './safetensors.mjs';
import { hiddenError, probError } from './fixture-errors.mjs';

const FAMILIES = process.env.RELPOS_HF_FAMILY_FIXTURES ?? resolve(ROOT, '..', 'shared', 'fixtures', 'hf-families');
const CASES = ['nomic-bert-a', 'nomic-bert-b'];
const haveFixtures = CASES.every((c) => existsSync(join(FAMILIES, c, 'config.json')));
const HIDDEN_TOL = 1e-4;
const PROB_TOL = 1e-5;
const LAYERS = 2;

const runtimes = haveFixtures
  ? { SIMD: await init({ simd: true }), scalar: await init({ simd: false }), 'SIMD, 2 threads': await init({ threads: 2 }) }
  : {};

for (const name of CASES) {
  test(`${name} matches the remote code`, { skip: haveFixtures ? false : `no fixtures at ${FAMILIES}` }, async (t) => {
    const dir = join(FAMILIES, name);
    const input = JSON.parse(readFileSync(join(dir, 'input.json'), 'utf8'));
    const expected = readSafetensors(new Uint8Array(readFileSync(join(dir, 'expected.safetensors'))));
    for (const [build, rp] of Object.entries(runtimes)) {
      await t.test(`${build} build`, async () => {
        const model = await rp.loadModel(dir);
        try {
          const out = model.forward(
            { inputIds: input.input_ids, attentionMask: input.attention_mask },
            { outputHiddenStates: true, outputAttentions: true },
          );
          const lengths = input.lengths;
          assert.equal(model.info.modelType, 'nomic_bert');
          assert.equal(out.hiddenStates.length, LAYERS + 1);
          assert.equal(out.attentions.length, LAYERS);
          const errors = { last_hidden_state: hiddenError(out.lastHiddenState, expected.last_hidden_state, lengths) };
          for (let i = 0; i <= LAYERS; ++i)
            errors[`hidden_states.${i}`] = hiddenError(out.hiddenStates[i], expected[`hidden_states.${i}`], lengths);
          for (const [key, e] of Object.entries(errors)) assert.ok(e <= HIDDEN_TOL, `${key}: max abs error ${e} > ${HIDDEN_TOL}`);
          for (let i = 0; i < LAYERS; ++i) {
            const e = probError(out.attentions[i], expected[`attentions.${i}`], lengths);
            assert.ok(e <= PROB_TOL, `attentions.${i}: max abs error ${e} > ${PROB_TOL}`);
          }
        } finally {
          model.dispose();
        }
      });
    }
  });
}

test('rotary_scaling_factor (dynamic NTK) is refused, naming the field', { skip: !haveFixtures }, async () => {
  const dir = join(FAMILIES, 'nomic-bert-a');
  const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
  config.rotary_scaling_factor = 2;
  const files = { 'config.json': JSON.stringify(config), 'model.safetensors': new Uint8Array(readFileSync(join(dir, 'model.safetensors'))) };
  await assert.rejects(runtimes.SIMD.loadModel(files), /rotary_scaling_factor/);
});
