// JinaBERT v2 (jina-embeddings-v2: config.json model_type "bert" + position_embedding_type "alibi" → family
// jina_bert_v2) through the package's JS API on the SIMD128, scalar and 2-thread builds, against llama.cpp's outputs
// on the F32 GGUF converted from the same checkpoint (shared/fixtures/gguf/jina-bert-v2-a; no Hugging Face run
// exists for JinaBERT, llama.cpp is the reference). relpos computes JinaBERT's own exact-erf GELU, llama.cpp the
// tanh approximation through an fp16 table: measured 1.5e-3 on hidden states (tests/cpp/
// jina_bert_v2_matches_llamacpp_test.cpp), so hidden states within 3e-3, the embedding LayerNorm (before any GELU)
// within 1e-5, the L2-normalised mean-pooled embedding within 3e-4.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';

import { init } from '../../web/index.js';
import { ROOT } from './helpers.mjs';
import { hiddenError } from './fixture-errors.mjs';
import { meanNormalized, readLlamacppExpected } from './llamacpp-expected.mjs';

const CASE = resolve(process.env.RELPOS_GGUF_FIXTURES ?? resolve(ROOT, '..', 'shared', 'fixtures', 'gguf'), 'jina-bert-v2-a');
const DIR = join(CASE, 'hf-checkpoint');
const have = existsSync(join(DIR, 'config.json'));
const skip = have ? false : `no fixture at ${DIR}`;
const HIDDEN_TOL = 3e-3, EMBEDDING_TOL = 1e-5, POOLED_TOL = 3e-4;

const runtimes = have ? { SIMD: await init({ simd: true }), scalar: await init({ simd: false }), 'SIMD, 2 threads': await init({ threads: 2 }) } : {};

test('jina-bert-v2-a matches llama.cpp (F32 GGUF of the same weights)', { skip }, async (t) => {
  const input = JSON.parse(readFileSync(join(DIR, 'input.json'), 'utf8'));
  const expected = readLlamacppExpected(join(CASE, 'expected-llamacpp-f32.json'), input.lengths, input.input_ids[0].length);
  for (const [build, rp] of Object.entries(runtimes)) {
    await t.test(`${build} build`, async () => {
      const model = await rp.loadModel(DIR);
      try {
        assert.equal(model.info.modelType, 'jina_bert_v2');
        assert.equal(model.info.maxSequence, 0); // ALiBi: no position table
        const out = model.forward({ inputIds: input.input_ids, attentionMask: input.attention_mask }, { outputHiddenStates: true });
        assert.equal(out.hiddenStates.length, expected.hiddenStates.length);
        const e0 = hiddenError(out.hiddenStates[0], expected.hiddenStates[0], input.lengths);
        assert.ok(e0 <= EMBEDDING_TOL, `embedding LayerNorm: max abs error ${e0}`);
        for (let i = 1; i < expected.hiddenStates.length; ++i) {
          const e = hiddenError(out.hiddenStates[i], expected.hiddenStates[i], input.lengths);
          assert.ok(e <= HIDDEN_TOL, `layer ${i - 1} output: max abs error ${e}`);
        }
        const e = hiddenError(out.lastHiddenState, expected.lastHiddenState, input.lengths);
        assert.ok(e <= HIDDEN_TOL, `last hidden state: max abs error ${e}`);
        input.lengths.forEach((n, b) => {
          const mine = meanNormalized(out.lastHiddenState, b, n), ref = expected.pooledMeanNormalized[b];
          const worst = Math.max(...mine.map((v, c) => Math.abs(v - ref[c])));
          assert.ok(worst <= POOLED_TOL, `sequence ${b}: mean-pooled normalised max abs error ${worst}`);
        });
      } finally {
        model.dispose();
      }
    });
  }
});

test('jina_bert_v2: a JinaBertConfig without feed_forward_type (its default "original" MLP) is refused naming the field; the module stays usable', { skip }, async () => {
  const rp = runtimes.SIMD;
  const config = JSON.parse(readFileSync(join(DIR, 'config.json'), 'utf8'));
  const weights = new Uint8Array(readFileSync(join(DIR, 'model.safetensors')));
  const { feed_forward_type: _, ...original } = config;
  await assert.rejects(rp.loadModel({ 'config.json': JSON.stringify(original), 'model.safetensors': weights }),
    /field 'feed_forward_type' 'original' is not supported for JinaBERT v2 \(supported: geglu, reglu/);
  const m = await rp.loadModel({ 'config.json': JSON.stringify(config), 'model.safetensors': weights });
  m.dispose(); // the module stays usable after the refusal
});
