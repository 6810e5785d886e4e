// Qwen3 (Qwen3-Embedding / Qwen3-Reranker) and bidirectional Gemma3 (EmbeddingGemma) through the package's JS API,
// against shared/fixtures/hf-llm-embedders (unmodified transformers at 948bc0fa; sentence-transformers v5.1.1 for the
// sentence embedding), on the SIMD128, scalar and 2-thread builds:
//   - forward: hidden states (hidden_states.n = the final-norm output) and last_hidden_state ≤ 1e-4, attention
//     probabilities ≤ 1e-5, on the real tokens of each row — the last n columns under left padding, the first n
//     under right padding (one comparison by the attention mask);
//   - Qwen3ForCausalLM: model.head.task 'text-generation', forward(…, { logits: true, logitsAt }) gives the
//     vocabulary logits at the last token ≤ 1e-4 and the model card's yes/no score ≤ 1e-5;
//   - pipeline('feature-extraction') with no options reproduces the folder's own recipe: gemma3-st-embed's
//     sentence_embedding (mean → Dense 32→128 → Dense 128→32 → Normalize) and Qwen3-Embedding's normalised
//     last-token embedding (a lasttoken Pooling + Normalize recipe written beside qwen3-embed-left/right);
//   - pipeline('text-classification') on (query, document) pairs runs a causal-LM checkpoint as a yes/no reranker:
//     the model card's prompt (prefix, middle, suffix tokenized apart), score softmax(no, yes)[yes] at the last token;
//   - q8 stays close to fp32; a Dense module that does not chain, or names an unknown activation, is refused / reported.
// The fixtures carry token ids only: a WordPiece tokenizer.json whose words are 't0' … 't99' (id = number) turns
// 't90 t93 …' back into the fixture's ids.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { test } from 'node:test';

import { init, pipeline } from '../../web/index.js';
import { ROOT } from './helpers.mjs';
import { readSafetensors } from './safetensors.mjs';
import { textOf, wordTokenizer } from './llm-tokenizer.mjs';
import { RERANKER_PREFIX, RERANKER_SUFFIX, RERANKER_INSTRUCTION, rerankerMiddle } from '../../web/pipelines/reranking.js';

const SET = process.env.RELPOS_HF_LLM_FIXTURES ?? resolve(ROOT, '..', 'shared', 'fixtures', 'hf-llm-embedders');
const CASES = ['qwen3-embed-right', 'qwen3-embed-left', 'qwen3-reranker', 'gemma3-bidir-a', 'gemma3-bidir-b', 'gemma3-st-embed'];
const have = CASES.every((c) => existsSync(join(SET, c, 'expected.safetensors')));
const skip = have ? false : `no fixtures at ${SET}`;
const HIDDEN_TOL = 1e-4;
const PROB_TOL = 1e-5;

const runtimes = have
  ? { SIMD: await init({ simd: true }), scalar: await init({ simd: false }), 'SIMD, 2 threads': await init({ threads: 2 }) }
  : {};
const rp = runtimes.SIMD;

const read = (name) => {
  const dir = join(SET, name);
  return {
    dir,
    config: JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')),
    input: JSON.parse(readFileSync(join(dir, 'input.json'), 'utf8')),
    expected: readSafetensors(new Uint8Array(readFileSync(join(dir, 'expected.safetensors')))),
  };
};

/** Every file of a case folder as a file map (sub-folders as 'a/b'). */
function files(dir) {
  const out = {};
  const walk = (d) => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else out[relative(dir, p)] = new Uint8Array(readFileSync(p));
    }
  };
  walk(dir);
  return out;
}



/** Max |a − e| over rows/columns whose mask entry is 1 ([B, L, H]), or over query and key both real ([B, h, L, L]). */
function maskedError(actual, expected, mask) {
  assert.deepEqual(actual.dims, expected.dims, 'shape');
  const d = expected.dims;
  const real = (b, l) => mask[b][l] === 1;
  let worst = 0;
  const at = (i) => {
    const e = Math.abs(actual.data[i] - expected.data[i]);
    worst = Number.isNaN(e) ? Infinity : Math.max(worst, e);
  };
  if (d.length === 3) {
    const [B, L, H] = d;
    for (let b = 0; b < B; ++b) for (let l = 0; l < L; ++l) if (real(b, l)) for (let h = 0; h < H; ++h) at((b * L + l) * H + h);
  } else {
    const [B, heads, L] = d;
    for (let b = 0; b < B; ++b)
      for (let h = 0; h < heads; ++h)
        for (let i = 0; i < L; ++i) if (real(b, i)) for (let j = 0; j < L; ++j) if (real(b, j)) at(((b * heads + h) * L + i) * L + j);
  }
  return worst;
}

const lastReal = (mask, b) => mask[b].lastIndexOf(1);

test('the hf-llm-embedders fixtures are present', { skip }, () => assert.ok(have));

for (const name of CASES) {
  test(`${name}: every hidden state and attention map matches transformers`, { skip }, async (t) => {
    const { dir, config, input, expected } = read(name);
    const n = config.num_hidden_layers;
    for (const [build, runtime] of Object.entries(runtimes)) {
      await t.test(`${build} build`, async () => {
        const model = await runtime.loadModel(dir);
        try {
          assert.equal(model.info.modelType, config.model_type);
          assert.equal(model.info.causal, config.model_type === 'qwen3');
          const out = model.forward({ inputIds: input.input_ids, attentionMask: input.attention_mask }, { outputHiddenStates: true, outputAttentions: true });
          assert.equal(out.hiddenStates.length, n + 1);
          const errors = { last_hidden_state: maskedError(out.lastHiddenState, expected.last_hidden_state, input.attention_mask) };
          for (let i = 0; i <= n; ++i) errors[`hidden_states.${i}`] = maskedError(out.hiddenStates[i], expected[`hidden_states.${i}`], input.attention_mask);
          for (const [key, e] of Object.entries(errors)) assert.ok(e <= HIDDEN_TOL, `${key}: max abs error ${e} > ${HIDDEN_TOL}`);
          for (let i = 0; i < n; ++i) {
            const e = maskedError(out.attentions[i], expected[`attentions.${i}`], input.attention_mask);
            assert.ok(e <= PROB_TOL, `attentions.${i}: max abs error ${e} > ${PROB_TOL}`);
          }
        } finally {
          model.dispose();
        }
      });
    }
  });
}

test('qwen3-reranker: the causal-LM head gives the last-token logits and the yes/no score of transformers', { skip }, async () => {
  const { dir, input, expected } = read('qwen3-reranker');
  for (const dtype of ['fp32', 'q8']) {
    const model = await rp.loadModel(dir, { dtype });
    try {
      assert.deepEqual({ ...model.head }, { task: 'text-generation', labels: null, outputs: 100 });
      const B = input.input_ids.length;
      const at = input.attention_mask.map((_, b) => [b, lastReal(input.attention_mask, b)]);
      const out = model.forward({ inputIds: input.input_ids, attentionMask: input.attention_mask }, { logits: true, logitsAt: at });
      assert.deepEqual(out.logits.dims, [B, 100]);
      const ref = expected.logits_last.data;
      let worst = 0, scale = 1;
      for (let i = 0; i < ref.length; ++i) {
        worst = Math.max(worst, Math.abs(out.logits.data[i] - ref[i]));
        scale = Math.max(scale, Math.abs(ref[i]));
      }
      const tol = dtype === 'fp32' ? 1e-4 : 0.05 * scale;
      assert.ok(worst <= tol, `${dtype} logits: max abs error ${worst} > ${tol}`);
      for (let b = 0; b < B; ++b) {
        const ly = out.logits.data[b * 100 + input.reranker_yes_token_id], ln = out.logits.data[b * 100 + input.reranker_no_token_id];
        const score = 1 / (1 + Math.exp(ln - ly));
        const e = Math.abs(score - expected['aux.reranker_score'].data[b]);
        assert.ok(e <= (dtype === 'fp32' ? 1e-5 : 0.03), `${dtype} row ${b}: score ${score} vs ${expected['aux.reranker_score'].data[b]}`);
      }
      // every token's logits: [B, L, V]
      const all = model.forward({ inputIds: input.input_ids, attentionMask: input.attention_mask }, { logits: true });
      assert.deepEqual(all.logits.dims, [B, input.input_ids[0].length, 100]);
      assert.throws(() => model.forward({ inputIds: input.input_ids }, { logits: true, logitsAt: [[B, 0]] }), /outside the batch/);
    } finally {
      model.dispose();
    }
  }
});

test('gemma3-st-embed: feature-extraction with no options gives sentence-transformers\' embedding (mean → Dense → Dense → Normalize)', { skip }, async () => {
  const { dir, input, expected } = read('gemma3-st-embed');
  const model = await rp.loadModel({ ...files(dir), 'tokenizer.json': wordTokenizer(100) });
  try {
    const st = model.sentenceTransformers;
    assert.deepEqual(st.dense.map((d) => [d.inFeatures, d.outFeatures, d.bias, d.activation, d.weight.length]), [
      [32, 128, null, 'torch.nn.modules.linear.Identity', 128 * 32],
      [128, 32, null, 'torch.nn.modules.linear.Identity', 32 * 128],
    ]);
    assert.equal(st.embeddingDimension, 32);
    assert.equal(st.pooling, 'mean');
    assert.equal(st.normalize, true);
    assert.equal(st.unsupported, null);
    const texts = input.input_ids.map((ids, b) => textOf(ids.slice(0, input.lengths[b])));
    const pipe = await pipeline('feature-extraction', model);
    const out = await pipe(texts);
    assert.deepEqual(out.dims, [2, 32]);
    const e = maskedError({ data: out.data, dims: [2, 1, 32] }, { data: expected.sentence_embedding.data, dims: [2, 1, 32] }, [[1], [1]]);
    assert.ok(e <= HIDDEN_TOL, `sentence_embedding: max abs error ${e}`);
    // the steps on the way: mean pooling alone (dense: false skips the recipe's Dense modules)
    const mean = await pipe(texts, { dense: false, normalize: false });
    const em = maskedError({ data: mean.data, dims: [2, 1, 32] }, { data: expected['aux.st_mean_pooled'].data, dims: [2, 1, 32] }, [[1], [1]]);
    assert.ok(em <= HIDDEN_TOL, `mean pooled: max abs error ${em}`);
    // Matryoshka truncation applies to the Dense output
    const cut = await pipe(texts, { dimensions: 16 });
    assert.deepEqual(cut.dims, [2, 16]);
    // the first Dense module's output: dense: false and the product by hand equal the pipeline's steps
    const d1 = expected['aux.st_dense_1'].data;
    const W = st.dense[0].weight;
    for (let b = 0; b < 2; ++b)
      for (let o = 0; o < 128; o += 17) {
        let s = 0;
        for (let i = 0; i < 32; ++i) s += W[o * 32 + i] * mean.data[b * 32 + i];
        assert.ok(Math.abs(s - d1[b * 128 + o]) < 1e-4, `2_Dense row ${b} feature ${o}: ${s} vs ${d1[b * 128 + o]}`);
      }
    await assert.rejects(pipe(texts, { dimensions: 33 }), /dimensions: expected an integer in \[1, 32\]/);
  } finally {
    model.dispose();
  }
});

test('a Dense module that does not chain is an Error naming its file; an unknown activation leaves the recipe unsupported', { skip }, async () => {
  const { dir } = read('gemma3-st-embed');
  const base = { ...files(dir), 'tokenizer.json': wordTokenizer(100) };
  const cfg = JSON.parse(new TextDecoder().decode(base['3_Dense/config.json']));
  await assert.rejects(rp.loadModel({ ...base, '3_Dense/config.json': JSON.stringify({ ...cfg, in_features: 64 }) }), /3_Dense\/config\.json: in_features 64 does not match the 128 features/);
  await assert.rejects(rp.loadModel({ ...base, '2_Dense/config.json': JSON.stringify({ ...cfg, in_features: 32, out_features: 128, bias: 'yes' }) }), /2_Dense\/config\.json: bias: expected true or false/);
  const odd = await rp.loadModel({ ...base, '2_Dense/config.json': JSON.stringify({ in_features: 32, out_features: 128, bias: false, activation_function: 'torch.nn.modules.activation.Softsign' }) });
  try {
    assert.match(odd.sentenceTransformers.unsupported, /2_Dense\/config\.json: activation_function 'torch\.nn\.modules\.activation\.Softsign' is not run by relpos/);
    const pipe = await pipeline('feature-extraction', odd);
    await assert.rejects(pipe('t5 t6'), /Softsign.*pass pooling/);
    assert.deepEqual((await pipe('t5 t6', { pooling: 'mean' })).dims, [1, 32]);
  } finally {
    odd.dispose();
  }
  // a weights file whose tensor has the wrong shape
  const t = { ...base, '3_Dense/model.safetensors': base['2_Dense/model.safetensors'] };
  await assert.rejects(rp.loadModel(t), /3_Dense\/model\.safetensors: tensor 'linear\.weight' has shape \[128, 32\], expected \[32, 128\]/);
  // the runtime stays usable
  const ok = await rp.loadModel(base);
  ok.dispose();
});

for (const name of ['qwen3-embed-left', 'qwen3-embed-right']) {
  test(`${name}: feature-extraction with a lasttoken + Normalize recipe gives Qwen3-Embedding's embedding`, { skip }, async () => {
    const { dir, input, expected } = read(name);
    const recipe = {
      'modules.json': JSON.stringify([
        { idx: 0, name: '0', path: '', type: 'sentence_transformers.models.Transformer' },
        { idx: 1, name: '1', path: '1_Pooling', type: 'sentence_transformers.models.Pooling' },
        { idx: 2, name: '2', path: '2_Normalize', type: 'sentence_transformers.models.Normalize' },
      ]),
      '1_Pooling/config.json': JSON.stringify({ word_embedding_dimension: 32, pooling_mode_lasttoken: true, include_prompt: true }),
      'config_sentence_transformers.json': JSON.stringify({ prompts: { query: 't7 t8 ', document: '' }, default_prompt_name: null }),
    };
    const model = await rp.loadModel({ ...files(dir), ...recipe, 'tokenizer.json': wordTokenizer(100) });
    try {
      const texts = input.input_ids.map((ids, b) => textOf(ids.filter((_, l) => input.attention_mask[b][l] === 1)));
      const pipe = await pipeline('feature-extraction', model);
      assert.equal(pipe.defaults.pooling, 'last_token');
      const out = await pipe(texts);
      const e = maskedError({ data: out.data, dims: [2, 1, 32] }, { data: expected['aux.last_token_pooled_normalized'].data, dims: [2, 1, 32] }, [[1], [1]]);
      assert.ok(e <= HIDDEN_TOL, `last-token embedding: max abs error ${e}`);
      // promptName puts the prompt's tokens before the text (Qwen3-Embedding's "Instruct: …\nQuery:")
      const q = await pipe(texts[1], { promptName: 'query' });
      const direct = await pipe(`t7 t8 ${texts[1]}`);
      assert.deepEqual(Array.from(q.data), Array.from(direct.data));
    } finally {
      model.dispose();
    }
  });
}

test('qwen3-reranker: text-classification on (query, document) pairs is the model card\'s yes/no reranker', { skip }, async () => {
  const { dir } = read('qwen3-reranker');
  // the prompt's two fixed parts as added tokens 1 and 2; 'yes' = 10, 'no' = 11 as in the fixture; other words → t3
  const added = { [RERANKER_PREFIX]: 1, [RERANKER_SUFFIX]: 2 };
  const words = { yes: 10, no: 11 };
  const vocab = {};
  for (let i = 12; i < 100; ++i) vocab[`t${i}`] = i;
  const model = await rp.loadModel({ ...files(dir), 'tokenizer.json': wordTokenizer(0, { words: { ...vocab, ...words, t3: 3 }, added }) });
  try {
    const rerank = await pipeline('text-classification', model);
    const pairs = [
      { text: 't20 t21 t22', textPair: 't40 t41 t42 t43 t44' },
      { text: 't20 t21 t22', textPair: 't90 t91' },
    ];
    const got = await rerank(pairs);
    // the same computation by hand: ids of prefix + middle + suffix, the last token's logits, softmax(no, yes)
    const middle = (p, instruction = RERANKER_INSTRUCTION) =>
      rerankerMiddle(instruction, p.text, p.textPair).split(/\s+/).filter(Boolean).map((w) => (/^t\d+$/.test(w) && +w.slice(1) >= 12 ? +w.slice(1) : 3));
    const expectScore = (p, instruction) => {
      const ids = [1, ...middle(p, instruction), 2];
      const out = model.forward({ inputIds: [ids] }, { logits: true, logitsAt: [[0, ids.length - 1]] });
      const [no, yes] = [out.logits.data[11], out.logits.data[10]];
      return 1 / (1 + Math.exp(no - yes));
    };
    assert.equal(got.length, 2);
    for (let i = 0; i < 2; ++i) {
      assert.equal(got[i].label, 'yes');
      assert.ok(Math.abs(got[i].score - expectScore(pairs[i])) < 1e-6, `pair ${i}: ${got[i].score} vs ${expectScore(pairs[i])}`);
    }
    const custom = await rerank(pairs[0], { instruction: 'Find t50 t51' });
    assert.ok(Math.abs(custom[0].score - expectScore(pairs[0], 'Find t50 t51')) < 1e-6);
    const both = await rerank(pairs[1], { topK: null });
    assert.deepEqual(both.map((x) => x.label).sort(), ['no', 'yes']);
    assert.ok(Math.abs(both[0].score + both[1].score - 1) < 1e-6);
    await assert.rejects(rerank('t20 t21'), /a reranker scores \(query, document\) pairs/);
    await assert.rejects(rerank(pairs[0], { yesToken: 'oui' }), /no token "oui"/);
  } finally {
    model.dispose();
  }
});

test('qwen3 and gemma3_text: q8 stays close to fp32 on the real tokens', { skip }, async () => {
  for (const name of ['qwen3-embed-left', 'gemma3-bidir-b']) {
    const { dir, input } = read(name);
    const f = await rp.loadModel(dir), q = await rp.loadModel(dir, { dtype: 'q8' });
    try {
      assert.ok(q.info.weightBytes < f.info.weightBytes);
      const a = f.forward({ inputIds: input.input_ids, attentionMask: input.attention_mask }).lastHiddenState;
      const b = q.forward({ inputIds: input.input_ids, attentionMask: input.attention_mask }).lastHiddenState;
      let ref = 0;
      for (const x of a.data) ref = Math.max(ref, Math.abs(x));
      const e = maskedError(b, a, input.attention_mask);
      assert.ok(e / ref <= 0.15, `${name}: q8 max abs error ${e} (${(e / ref).toFixed(3)} of the largest value)`);
    } finally {
      f.dispose();
      q.dispose();
    }
  }
});

test('qwen3 and gemma3_text as they ship: bf16 safetensors, two shards, variant — the same outputs as the float32 of those bf16 values', { skip }, async () => {
  const { shardSafetensors } = await import('../support/shard.mjs');
  const { splitSafetensors, joinSafetensors, writeSafetensors } = await import('./safetensors.mjs');
  for (const name of ['qwen3-reranker', 'gemma3-st-embed']) {
    const { dir, input } = read(name);
    const { header, data } = splitSafetensors(new Uint8Array(readFileSync(join(dir, 'model.safetensors'))));
    // float32 → bf16 (round to nearest even), and the float32 values of those bf16 numbers
    const bf16Header = { __metadata__: { format: 'pt' } }, rounded = {};
    const parts = [];
    let offset = 0;
    for (const [k, t] of Object.entries(header)) {
      if (k === '__metadata__') continue;
      const f = new Float32Array(data.slice(t.data_offsets[0], t.data_offsets[1]).buffer);
      const u = new Uint32Array(f.buffer);
      const h = new Uint16Array(f.length), back = new Float32Array(f.length), bu = new Uint32Array(back.buffer);
      for (let i = 0; i < f.length; ++i) {
        h[i] = (u[i] + 0x7fff + ((u[i] >>> 16) & 1)) >>> 16;
        bu[i] = h[i] << 16;
      }
      bf16Header[k] = { dtype: 'BF16', shape: t.shape, data_offsets: [offset, offset + 2 * f.length] };
      parts.push(new Uint8Array(h.buffer));
      offset += 2 * f.length;
      rounded[k] = { shape: t.shape, data: back };
    }
    const bytes = new Uint8Array(offset);
    let at = 0;
    for (const p of parts) {
      bytes.set(p, at);
      at += p.length;
    }
    const { files: shards } = shardSafetensors(joinSafetensors(bf16Header, bytes), 2);
    const config = readFileSync(join(dir, 'config.json'), 'utf8');
    const sharded = { 'config.json': config };
    for (const [f, v] of Object.entries(shards)) sharded[f === 'model.safetensors.index.json' ? 'model.safetensors.index.bf16.json' : f] = v;
    const viaBf16 = await rp.loadModel(sharded, { variant: 'bf16' });
    const viaF32 = await rp.loadModel({ 'config.json': config, 'model.safetensors': writeSafetensors(rounded) });
    try {
      const batch = { inputIds: input.input_ids, attentionMask: input.attention_mask };
      assert.deepEqual(Array.from(viaBf16.forward(batch).lastHiddenState.data), Array.from(viaF32.forward(batch).lastHiddenState.data), name);
    } finally {
      viaBf16.dispose();
      viaF32.dispose();
    }
  }
});
