// Bad input for the #26 families (MPNet, ModernBERT, NomicBERT) on the SIMD128 and scalar builds: every case
// is a clear JavaScript Error naming what was wrong and what was expected, and a correct load + forward on
// the same runtime afterwards still reproduces the family's Hugging Face reference (the fixture's
// expected.safetensors). The inputs are built in memory from ../shared/fixtures/hf-families/<case>
// (tests/js/family-bad-inputs.mjs). Two ModernBERT settings that look wrong are accepted, as Transformers
// accepts them, and tested as behaviour: an odd local_attention (the window is local_attention // 2 keys on
// each side, so 9 is 8) and a local_attention whose window reaches every key (the local layers are then
// global attention). The rows of docs/robustness.md's "Bad input" table for these cases name these tests.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { init, pipeline } from '../../web/index.js';
import { FAMILIES, family, familyFiles, familyInputs, haveFamilies, NOMIC_PROMPTS, nomicSentenceTransformersFiles } from './family-bad-inputs.mjs';

const skip = haveFamilies ? false : `no family fixtures at ${FAMILIES}`;
const runtimes = haveFamilies ? { SIMD: await init({ simd: true }), scalar: await init({ simd: false }) } : {};
const TOL = 1e-4; // the family tests' tolerance on hidden states against Hugging Face

/** Max |a − e| of last_hidden_state over the valid (unpadded) positions of the case's input. */
function hiddenError(name, actual) {
  const { expected, input } = family(name);
  const want = expected.last_hidden_state;
  assert.deepEqual(actual.dims, want.dims, `${name}: shape`);
  const [B, L, H] = want.dims;
  let worst = 0;
  for (let b = 0; b < B; ++b)
    for (let l = 0; l < input.lengths[b]; ++l)
      for (let h = 0; h < H; ++h) {
        const e = Math.abs(actual.data[(b * L + l) * H + h] - want.data[(b * L + l) * H + h]);
        worst = Number.isNaN(e) ? Infinity : Math.max(worst, e);
      }
  return worst;
}

/** The runtime is still usable: the unmodified case loads and its forward matches Hugging Face. */
async function stillWorks(rp, name) {
  const model = await rp.loadModel(familyFiles(name));
  try {
    const e = hiddenError(name, model.forward(familyInputs(name)).lastHiddenState);
    assert.ok(e <= TOL, `${name} after the bad input: max abs error ${e} > ${TOL}`);
  } finally {
    model.dispose();
  }
}

/** Each [label, case, files options, expected { name, message }]: loadModel rejects, then the case still works. */
async function expectLoadErrors(t, rows) {
  for (const [build, rp] of Object.entries(runtimes))
    await t.test(`${build} build`, async () => {
      for (const [label, name, options, expected] of rows) {
        await assert.rejects(rp.loadModel(familyFiles(name, options)), (e) => {
          assert.equal(e.constructor.name, expected.name, `${label}: error class (${e.message})`);
          assert.match(e.message, expected.message, label);
          return true;
        });
        await stillWorks(rp, name);
      }
    });
}

test('nomic_bert: rotary_scaling_factor, prenorm true and a rotary_emb_fraction giving an odd rotary dim are Errors naming the field and why; the model loads afterwards', { skip }, async (t) => {
  await expectLoadErrors(t, [
    ['rotary_scaling_factor 2', 'nomic-bert-a', { config: { rotary_scaling_factor: 2 } },
     { name: 'Error', message: /^nomic_bert: rotary_scaling_factor \(dynamic NTK\) is not supported: .*max_trained_positions.*; remove the field \(it is null in nomic-embed-text v1\/v1\.5\)$/ }],
    ['rotary_scaling_factor 4 (nomic-bert-b)', 'nomic-bert-b', { config: { rotary_scaling_factor: 4 } }, { name: 'Error', message: /^nomic_bert: rotary_scaling_factor / }],
    ['prenorm true', 'nomic-bert-a', { config: { prenorm: true } },
     { name: 'Error', message: /^nomic_bert: prenorm = true is not supported \(only post-LN NomicBERT, as nomic-embed-text v1\/v1\.5 ship it, is implemented\)$/ }],
    // nomic-bert-a: head_dim 32 / 4 = 8; 8 × 0.375 = 3 rotary dims (odd), 8 × 0.3 = 2.4 (not whole), 8 × 1.5 = 12 (> head_dim)
    ['rotary_emb_fraction 0.375 (3 of 8)', 'nomic-bert-a', { config: { rotary_emb_fraction: 0.375 } },
     { name: 'Error', message: /^nomic_bert: head_dim 8 × rotary_emb_fraction 0\.375\d* must be an even whole number ≤ head_dim \(the rotary dim\)$/ }],
    ['rotary_emb_fraction 0.3 (2.4 of 8)', 'nomic-bert-a', { config: { rotary_emb_fraction: 0.3 } }, { name: 'Error', message: /^nomic_bert: head_dim 8 × rotary_emb_fraction 0\.3\d* must be an even whole number/ }],
    ['rotary_emb_fraction 1.5 (12 of 8)', 'nomic-bert-a', { config: { rotary_emb_fraction: 1.5 } }, { name: 'Error', message: /^nomic_bert: head_dim 8 × rotary_emb_fraction 1\.5\d* must be an even whole number ≤ head_dim/ }],
    // nomic-bert-b: head_dim 32 / 2 = 16; 16 × 0.5625 = 9
    ['rotary_emb_fraction 0.5625 (9 of 16, nomic-bert-b)', 'nomic-bert-b', { config: { rotary_emb_fraction: 0.5625 } }, { name: 'Error', message: /^nomic_bert: head_dim 16 × rotary_emb_fraction 0\.5625\d* must be an even whole number/ }],
  ]);
});

test('mpnet: relative_attention_num_buckets below 32 is an Error naming the field and the 32 buckets MPNet always uses; the model loads afterwards', { skip }, async (t) => {
  await expectLoadErrors(t, [
    ['relative_attention_num_buckets 16', 'mpnet-a', { config: { relative_attention_num_buckets: 16 } },
     { name: 'Error', message: /^mpnet: relative_attention_num_buckets is 16, expected ≥ 32: .*32 buckets/ }],
    ['relative_attention_num_buckets 0', 'mpnet-a', { config: { relative_attention_num_buckets: 0 } }, { name: 'Error', message: /^mpnet: relative_attention_num_buckets is 0, expected ≥ 32/ }],
  ]);
});

test('modernbert: a negative local_attention is a RangeError naming the field; the model loads afterwards', { skip }, async (t) => {
  await expectLoadErrors(t, [
    ['local_attention -2', 'modernbert-a', { config: { local_attention: -2 } }, { name: 'RangeError', message: /^config\.json: local_attention must be ≥ 0, got -2$/ }],
    ['local_attention -1 (modernbert-b)', 'modernbert-b', { config: { local_attention: -1 } }, { name: 'RangeError', message: /^config\.json: local_attention must be ≥ 0, got -1$/ }],
    ['local_attention 8.5', 'modernbert-a', { config: { local_attention: 8.5 } }, { name: 'Error', message: /^config\.json: field 'local_attention' must be an integer, got 8\.5$/ }],
  ]);
});

test('a tensor the family needs, missing from model.safetensors, is an Error naming the tensor; the model loads afterwards', { skip }, async (t) => {
  await expectLoadErrors(t, [
    ['modernbert layers.1.attn_norm.weight', 'modernbert-a', { drop: ['layers.1.attn_norm.weight'] }, { name: 'Error', message: /'layers\.1\.attn_norm\.weight'/ }],
    ['modernbert final_norm.weight', 'modernbert-b', { drop: ['final_norm.weight'] }, { name: 'Error', message: /'final_norm\.weight'/ }],
    ['modernbert-b layers.0.attn.Wqkv.bias (attention_bias true)', 'modernbert-b', { drop: ['layers.0.attn.Wqkv.bias'] }, { name: 'Error', message: /'layers\.0\.attn\.Wqkv\.bias'/ }],
    ['nomic_bert encoder.layers.0.mlp.fc12.weight', 'nomic-bert-a', { drop: ['encoder.layers.0.mlp.fc12.weight'] }, { name: 'Error', message: /'encoder\.layers\.0\.mlp\.fc12\.weight'/ }],
    ['nomic_bert encoder.layers.1.mlp.fc11.weight', 'nomic-bert-b', { drop: ['encoder.layers.1.mlp.fc11.weight'] }, { name: 'Error', message: /'encoder\.layers\.1\.mlp\.fc11\.weight'/ }],
    ['nomic_bert emb_ln.bias', 'nomic-bert-a', { drop: ['emb_ln.bias'] }, { name: 'Error', message: /'emb_ln\.bias'/ }],
  ]);
});

test('config.json without a field the family needs: the family default applies, and the weights that disagree with it are named with both shapes', { skip }, async (t) => {
  await expectLoadErrors(t, [
    // NomicBertConfig is a GPT2Config: without n_embd the hidden size is GPT-2's 768
    ['nomic_bert without n_embd', 'nomic-bert-a', { config: { n_embd: undefined } }, { name: 'Error', message: /tensor 'embeddings\.word_embeddings\.weight' has shape \[100, 32\], expected \[100, 768\]/ }],
    // ModernBertConfig: intermediate_size 1152 (mlp.Wi holds 2 × intermediate rows)
    ['modernbert without intermediate_size', 'modernbert-a', { config: { intermediate_size: undefined } }, { name: 'Error', message: /tensor 'layers\.0\.mlp\.Wi\.weight' has shape \[96, 32\], expected \[2304, 32\]/ }],
    ['modernbert without hidden_size', 'modernbert-b', { config: { hidden_size: undefined } }, { name: 'Error', message: /tensor 'embeddings\.tok_embeddings\.weight' has shape \[100, 32\], expected \[100, 768\]/ }],
  ]);
});

test('a hidden size that is not a multiple of the attention heads is a RangeError naming both, for every family; a ModernBERT head size RoPE cannot rotate (odd) is an Error', { skip }, async (t) => {
  await expectLoadErrors(t, [
    ['mpnet num_attention_heads 3', 'mpnet-a', { config: { num_attention_heads: 3 } }, { name: 'RangeError', message: /^config\.json: hidden size 32 is not a multiple of the 3 attention heads$/ }],
    ['modernbert num_attention_heads 3', 'modernbert-a', { config: { num_attention_heads: 3 } }, { name: 'RangeError', message: /^config\.json: hidden size 32 is not a multiple of the 3 attention heads$/ }],
    ['nomic_bert n_head 5', 'nomic-bert-a', { config: { n_head: 5 } }, { name: 'RangeError', message: /^config\.json: hidden size 32 is not a multiple of the 5 attention heads$/ }],
    ['nomic_bert num_attention_heads 6 (the alias wins over n_head)', 'nomic-bert-b', { config: { num_attention_heads: 6 } }, { name: 'RangeError', message: /^config\.json: hidden size 32 is not a multiple of the 6 attention heads$/ }],
    // ModernBERT's RoPE needs an even head size: 32 / 32 heads = 1
    ['modernbert 32 heads (head size 1, odd)', 'modernbert-b', { config: { num_attention_heads: 32 } }, { name: 'Error', message: /^modernbert: RoPE needs an even head size, got 1 \(hidden_size 32 \/ 32 heads\)$/ }],
  ]);
});

test('forward({ text }) and encode() without tokenizer.json are Errors saying to pass inputIds, for every family; forward with ids works afterwards', { skip }, async (t) => {
  const names = ['mpnet-a', 'modernbert-a', 'nomic-bert-a'];
  for (const [build, rp] of Object.entries(runtimes))
    await t.test(`${build} build`, async () => {
      for (const name of names) {
        const model = await rp.loadModel(familyFiles(name));
        try {
          const message = /^encode: this model was loaded without tokenizer\.json \(or spm\.model \/ spiece\.model\), so it cannot take text; pass inputIds instead$/;
          await assert.rejects(async () => model.forward({ text: 'hello world' }), { name: 'Error', message }, name);
          await assert.rejects(async () => model.encode(['a', 'b']), { name: 'Error', message }, name);
          const e = hiddenError(name, model.forward(familyInputs(name)).lastHiddenState);
          assert.ok(e <= TOL, `${name}: max abs error ${e} > ${TOL}`);
        } finally {
          model.dispose();
        }
      }
    });
});

test("feature-extraction: a promptName unknown to the model (nomic-embed's prompts) is an Error listing the model's prompts; a known one works afterwards", { skip }, async (t) => {
  const texts = ['a text about art', 'text'];
  for (const [build, rp] of Object.entries(runtimes))
    await t.test(`${build} build`, async () => {
      const model = await rp.loadModel(nomicSentenceTransformersFiles());
      try {
        const embed = pipeline('feature-extraction', model);
        await assert.rejects(embed(texts, { promptName: 'query' }), {
          name: 'Error',
          message: "feature-extraction: promptName: \"query\" is not a prompt of this model: the model's prompts are 'search_query', 'search_document', 'classification', 'clustering' (config_sentence_transformers.json)",
        });
        await assert.rejects(embed(texts, { promptName: 'Search_Query' }), { name: 'Error', message: /^feature-extraction: promptName: "Search_Query" is not a prompt of this model/ });
        // afterwards a known prompt gives the model's vectors of prompt + text
        const got = await embed(texts, { promptName: 'search_query' });
        const want = await embed(texts.map((x) => NOMIC_PROMPTS.search_query + x), { promptName: null });
        assert.deepEqual(got, want);
        assert.equal(got.dims?.[0] ?? got.length, texts.length);
      } finally {
        model.dispose();
      }
    });
});

// ---- accepted edge cases (not errors) --------------------------------------------------------------------

/** forward() of a ModernBERT case with config changes: { lastHiddenState, attentions }. */
async function modernbert(rp, name, config) {
  const model = await rp.loadModel(familyFiles(name, { config }));
  try {
    return model.forward(familyInputs(name), { outputAttentions: true });
  } finally {
    model.dispose();
  }
}

test('local_attention odd: the window is local_attention // 2 keys each side as in Transformers, so 9 gives the model of 8 (and 17 that of 16), matching the reference', { skip }, async (t) => {
  for (const [build, rp] of Object.entries(runtimes))
    await t.test(`${build} build`, async () => {
      for (const [name, even] of [['modernbert-a', 8], ['modernbert-b', 16]]) {
        assert.equal(family(name).config.local_attention, even);
        const odd = await modernbert(rp, name, { local_attention: even + 1 });
        const ref = await modernbert(rp, name, {});
        assert.deepEqual(odd, ref, `${name}: local_attention ${even + 1} and ${even} give the same outputs`);
        const e = hiddenError(name, odd.lastHiddenState);
        assert.ok(e <= TOL, `${name}, local_attention ${even + 1}: max abs error ${e} > ${TOL} against Transformers with ${even}`);
        // and the window really is even / 2 = (even + 1) // 2 on each side: a local layer (1) gives 0 beyond it
        const [, heads, L] = odd.attentions[1].dims;
        const half = even / 2;
        let inside = 0;
        for (let h = 0; h < heads; ++h)
          for (let i = 0; i < L; ++i)
            for (let j = 0; j < L; ++j) {
              const p = odd.attentions[1].data[(h * L + i) * L + j]; // batch 0: no padding
              if (Math.abs(i - j) > half) assert.equal(p, 0, `${name}: key ${j} of query ${i} is outside the window ±${half}`);
              else if (p > 0) ++inside;
            }
        assert.ok(inside > 0);
      }
    });
});

test('local_attention larger than the sequence: once local_attention // 2 reaches every key (≥ seqLen − 1) the local layers are global attention', { skip }, async (t) => {
  const name = 'modernbert-a'; // 40 positions; layer 0 global, layers 1 and 2 local (global_attn_every_n_layers 3)
  const L = family(name).input.input_ids[0].length;
  assert.equal(L, 40);
  const { global_rope_theta } = family(name).config;
  // the same RoPE base on every layer, so that only the window tells local layers from global ones
  const same = { local_rope_theta: global_rope_theta };
  for (const [build, rp] of Object.entries(runtimes))
    await t.test(`${build} build`, async () => {
      const global = await modernbert(rp, name, { ...same, global_attn_every_n_layers: 1 });
      for (const local_attention of [2 * (L - 1), 2 * L, 100000])
        assert.deepEqual(await modernbert(rp, name, { ...same, local_attention }), global, `local_attention ${local_attention}: every layer equals global attention`);
      // larger than the sequence but a window of 20 < 39 keys each side: still local, as in Transformers
      const partial = await modernbert(rp, name, { ...same, local_attention: L + 1 });
      const p = partial.attentions[1];
      assert.equal(p.data[(0 * L + 0) * L + 21], 0, 'query 0, key 21: outside ±20');
      assert.ok(p.data[(0 * L + 0) * L + 20] > 0, 'query 0, key 20: inside ±20');
      assert.notDeepEqual(partial.lastHiddenState, global.lastHiddenState);
    });
});
