// RoBERTa, XLM-RoBERTa, CamemBERT, ELECTRA and BGE-M3 (shared/fixtures/hf-families-d: Transformers 4.34.1 and
// FlagEmbedding v1.4.0) through the package's JS API:
//   - rp.loadModel(folder).forward: hidden states ≤ 1e-4 and attention probabilities ≤ 1e-5 on valid positions, every
//     case (ELECTRA with its token_type_ids), on the SIMD build and (xlm-roberta-a) the 2-thread build; q8 close;
//   - the heads' logits (forward { logits }) ≤ 1e-4 (masked LM: 1e-4 or 5e-6 relative);
//   - sentencepiece.bpe.model with XLM-R's fairseq ids: model.encode gives the fixture's ids; <mask> is one token;
//   - pipelines on those heads with the fixture tokenizer: text-classification on (query, passage) pairs is a
//     sigmoid reranker score, zero-shot (NLI labels), token classification, fill-mask, feature-extraction with the
//     multilingual-e5 recipe ('query: ' prompt, mean pooling, normalize);
//   - rp.loadBgeM3(folder): dense / lexical weights / ColBERT vectors and compute_score (default and the card's
//     weights), lexical matching and ColBERT scores of the model card, ≤ 1e-4 of FlagEmbedding's;
//   - errors: too many tokens for max_position_embeddings, .pt heads with the wrong shapes or missing.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { init, pipeline } from '../../web/index.js';
import { FAMILIES_D } from './families-roberta-fixtures.mjs';
import { readSafetensors } from './safetensors.mjs';
import { parseSentencePieceModel, sentencePieceTokenizerJson } from '../../web/sentencepiece.js';
import { SPECIAL_LAYOUTS, sentencePieceSpecials } from '../../web/tokenizer.js';
import { hiddenError, probError } from './fixture-errors.mjs';

const BASE = ['roberta-a', 'xlm-roberta-a', 'camembert', 'electra-a'];
const HEADS = ['xlm-roberta-reranker', 'xlm-roberta-seq-cls-3', 'electra-seq-cls', 'roberta-mlm', 'xlm-roberta-token-cls'];
const have = existsSync(join(FAMILIES_D, 'bge-m3', 'expected.json'));
const skip = have ? false : `no fixtures at ${FAMILIES_D}`;
const TOL = 1e-4;

const rp = have ? await init({ simd: true }) : null;
const read = (c, f) => readFileSync(join(FAMILIES_D, c, f));
const json = (c, f) => JSON.parse(read(c, f).toString('utf8'));
const expectedOf = (c) => readSafetensors(new Uint8Array(read(c, 'expected.safetensors')));
const inputsOf = (input) => ({
  inputIds: input.input_ids,
  attentionMask: input.attention_mask,
  ...(input.token_type_ids_passed_to_model ? { tokenTypeIds: input.token_type_ids } : {}),
});
const maxAbs = (a, b) => Array.from(a).reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);

/** The fixture's files plus BGE-M3's SentencePiece tokenizer (every RoBERTa-family case has the same 100 ids). */
function withTokenizer(c, extra = {}) {
  const files = { 'config.json': read(c, 'config.json').toString('utf8'), 'model.safetensors': new Uint8Array(read(c, 'model.safetensors')) };
  for (const f of ['sentencepiece.bpe.model', 'tokenizer_config.json', 'special_tokens_map.json']) files[f] = new Uint8Array(read('bge-m3', f));
  return { ...files, ...extra };
}

/** The bge-m3 SentencePiece model as a tokenizer.json (XLM-R ids): what a RoBERTa-family repository ships instead. */
function tokenizerJson() {
  const file = 'sentencepiece.bpe.model';
  const m = SPECIAL_LAYOUTS['xlm-roberta'].pieces(parseSentencePieceModel(new Uint8Array(read('bge-m3', file)), file), file);
  const { tokens, template } = sentencePieceSpecials(m, 'xlm-roberta', {}, file);
  return JSON.stringify(sentencePieceTokenizerJson(m, { name: file, specialTokens: tokens, template }));
}

test('the hf-families-d fixtures are present', { skip }, () => assert.ok(have));

for (const c of [...BASE, ...HEADS, 'bge-m3']) {
  test(`${c}: hidden states and attention probabilities match transformers`, { skip }, async () => {
    const input = json(c, 'input.json');
    const expected = expectedOf(c);
    const runtimes = c === 'xlm-roberta-a' ? [rp, await init({ threads: 2 })] : [rp];
    for (const runtime of runtimes) {
      const model = await runtime.loadModel(join(FAMILIES_D, c));
      try {
        const out = model.forward(inputsOf(input), { outputHiddenStates: true, outputAttentions: true });
        const layers = model.info.numLayers;
        for (let i = 0; i <= layers; ++i) {
          const e = hiddenError(out.hiddenStates[i], expected[`hidden_states.${i}`], input.lengths);
          assert.ok(e <= TOL, `${c} hidden_states.${i}: ${e}`);
        }
        assert.ok(hiddenError(out.lastHiddenState, expected.last_hidden_state, input.lengths) <= TOL);
        for (let i = 0; i < layers; ++i) assert.ok(probError(out.attentions[i], expected[`attentions.${i}`], input.lengths) <= 1e-5, `${c} attentions.${i}`);
        if (expected.pooler_output) assert.ok(hiddenError(out.poolerOutput, expected.pooler_output, null) <= TOL);
      } finally {
        model.dispose();
      }
    }
  });
}

test('xlm-roberta and electra loaded as q8 stay close to fp32', { skip }, async () => {
  for (const c of ['xlm-roberta-a', 'electra-a']) {
    const input = json(c, 'input.json');
    const [a, b] = [await rp.loadModel(join(FAMILIES_D, c)), await rp.loadModel(join(FAMILIES_D, c), { dtype: 'q8' })];
    const [x, y] = [a.forward(inputsOf(input)), b.forward(inputsOf(input))];
    assert.equal(b.info.dtype, 'q8');
    const scale = Math.max(...Array.from(x.lastHiddenState.data, Math.abs));
    const e = hiddenError(y.lastHiddenState, x.lastHiddenState, input.lengths);
    assert.ok(e > 0 && e <= 0.15 * scale, `${c}: q8 max |Δ| ${e} of ${scale}`);
    a.dispose();
    b.dispose();
  }
});

test('the heads give transformers\' logits', { skip }, async () => {
  for (const c of HEADS) {
    const input = json(c, 'input.json');
    const want = expectedOf(c).logits;
    const model = await rp.loadModel(join(FAMILIES_D, c));
    try {
      const out = model.forward(inputsOf(input), { logits: true });
      assert.deepEqual(out.logits.dims, want.dims);
      const perToken = want.dims.length === 3;
      const [B, L] = want.dims;
      const n = want.dims[want.dims.length - 1];
      let worst = 0;
      for (let b = 0; b < B; ++b)
        for (let l = 0; l < (perToken ? input.lengths[b] : 1); ++l)
          for (let k = 0; k < n; ++k) {
            const i = (perToken ? b * L + l : b) * n + k;
            const allowed = c === 'roberta-mlm' ? Math.max(TOL, 5e-6 * Math.abs(want.data[i])) : TOL;
            worst = Math.max(worst, (Math.abs(out.logits.data[i] - want.data[i]) / allowed) * TOL);
          }
      assert.ok(worst <= TOL, `${c}: logits error ${worst} (scaled to ${TOL})`);
    } finally {
      model.dispose();
    }
  }
});

test('sentencepiece.bpe.model: XLM-R fairseq ids equal the fixture\'s', { skip }, async () => {
  const model = await rp.loadModel(join(FAMILIES_D, 'bge-m3'));
  try {
    const input = json('bge-m3', 'input.json');
    for (const [texts, ids, lengths] of [[input.texts, input.input_ids, input.lengths], [input.passages.texts, input.passages.input_ids, input.passages.lengths]])
      assert.deepEqual(model.encode(texts).inputIds, ids.map((r, b) => r.slice(0, lengths[b])));
    const masked = model.encode('Paris is the <mask> of France.');
    assert.equal(masked.inputIds[0].filter((id) => id === 99).length, 1);
    assert.deepEqual(model.encode('a', { textPair: 'b' }).inputIds[0].filter((id) => id < 4), [0, 2, 2, 2]);
    assert.equal(model.encode('a', { textPair: 'b' }).tokenTypeIds, undefined, 'type_vocab_size 1: no segment ids');
  } finally {
    model.dispose();
  }
});

test('pipelines on the RoBERTa-family heads: reranker, zero-shot, token classification, fill-mask, e5 embeddings', { skip }, async () => {
  const sigmoid = (x) => 1 / (1 + Math.exp(-x));
  const rerank = await pipeline('text-classification', await rp.loadModel(withTokenizer('xlm-roberta-reranker')));
  const pairs = [{ text: 'what is BM25?', textPair: 'BM25 scores rank documents.' }, { text: 'what is BM25?', textPair: 'Paris is in France.' }];
  const scores = await rerank(pairs);
  for (const [i, p] of pairs.entries()) {
    const logit = rerank.model.forward({ text: p.text, textPair: p.textPair }, { logits: true }).logits.data[0];
    assert.equal(scores[i].label, 'LABEL_0');
    assert.ok(Math.abs(scores[i].score - sigmoid(logit)) < 1e-6, 'one label → sigmoid(logit)');
  }
  rerank.model.dispose();

  const nli = await rp.loadModel(withTokenizer('xlm-roberta-seq-cls-3'));
  const zs = await pipeline('zero-shot-classification', nli)('BGE M3 returns dense vectors.', ['search', 'cooking'], { hypothesisTemplate: 'This text is about {}.' });
  assert.deepEqual([...zs.labels].sort(), ['cooking', 'search']);
  assert.ok(Math.abs(zs.scores[0] + zs.scores[1] - 1) < 1e-6);
  nli.dispose();

  const tc = await rp.loadModel(withTokenizer('xlm-roberta-token-cls'));
  const entities = await pipeline('token-classification', tc)('Anna lives in Paris', { ignoreLabels: [] });
  assert.ok(entities.length > 0 && entities.every((e) => ['O', 'B-PER', 'I-PER', 'B-LOC', 'I-LOC'].includes(e.entity)));
  tc.dispose();

  const mlm = await rp.loadModel(withTokenizer('roberta-mlm', { 'tokenizer.json': tokenizerJson() })); // model_type roberta: tokenizer.json
  const filled = await pipeline('fill-mask', mlm)('Paris is the <mask> of France.', { topK: 3 });
  assert.equal(filled.length, 3);
  const at = mlm.encode('Paris is the <mask> of France.').inputIds[0].indexOf(99);
  const logits = mlm.forward({ text: 'Paris is the <mask> of France.' }, { logits: true, logitsAt: [[0, at]] }).logits.data;
  assert.equal(filled[0].token, logits.indexOf(Math.max(...logits)));
  mlm.dispose();

  // multilingual-e5: sentence-transformers folder (mean pooling, Normalize), texts prefixed with 'query: '
  const e5 = await rp.loadModel(withTokenizer('xlm-roberta-a', {
    'modules.json': JSON.stringify([
      { idx: 0, name: '0', path: '', type: 'sentence_transformers.models.Transformer' },
      { idx: 1, name: '1', path: '1_Pooling', type: 'sentence_transformers.models.Pooling' },
      { idx: 2, name: '2', path: '2_Normalize', type: 'sentence_transformers.models.Normalize' },
    ]),
    '1_Pooling/config.json': JSON.stringify({ word_embedding_dimension: 32, pooling_mode_mean_tokens: true }),
  }));
  const embed = await pipeline('feature-extraction', e5);
  const { data, dims } = await embed(['how much protein should a female eat'], { prompt: 'query: ' });
  assert.deepEqual(dims, [1, 32]);
  const h = e5.forward({ text: 'query: how much protein should a female eat' }).lastHiddenState;
  const n = h.dims[1];
  const mean = Array.from({ length: 32 }, (_, k) => Array.from({ length: n }, (_, l) => h.data[l * 32 + k]).reduce((s, x) => s + x, 0) / n);
  const norm = Math.hypot(...mean);
  assert.ok(maxAbs(data, mean.map((x) => x / norm)) < 1e-6);
  e5.dispose();
});

test('BGE-M3: dense, lexical weights and ColBERT vectors from one forward, and the authors\' scores', { skip }, async () => {
  const m3 = await rp.loadBgeM3(join(FAMILIES_D, 'bge-m3'));
  try {
    const input = json('bge-m3', 'input.json');
    const expected = expectedOf('bge-m3');
    const ref = json('bge-m3', 'expected.json');
    const all = { dense: true, sparse: true, colbert: true };
    const out = { queries: await m3.encode(input.texts, all), passages: await m3.encode(input.passages.texts, all) };
    for (const side of ['queries', 'passages']) {
      const o = out[side];
      assert.ok(maxAbs(o.dense.data, expected[`m3.${side}.dense_vecs`].data) <= TOL, `${side} dense`);
      o.lexicalWeights.forEach((w, b) => {
        // token ids in FlagEmbedding's dict order (expected.safetensors; JSON objects would sort integer keys)
        const ids = Array.from(expected[`m3.${side}.lexical_weights.${b}.token_ids`].data, String);
        const weights = expected[`m3.${side}.lexical_weights.${b}.weights`].data;
        assert.deepEqual([...w.keys()], ids, `${side} ${b}: ids in dict order`);
        assert.ok(maxAbs([...w.values()], weights) <= TOL, `${side} ${b}: weights`);
      });
      o.colbertVecs.forEach((v, b) => {
        const want = expected[`m3.${side}.colbert_vecs.${b}`];
        assert.deepEqual(v.dims, want.dims);
        assert.ok(maxAbs(v.data, want.data) <= TOL, `${side} ${b} colbert`);
      });
    }
    // the model card's matrices
    for (let i = 0; i < 2; ++i)
      for (let j = 0; j < 2; ++j) {
        assert.ok(Math.abs(m3.lexicalMatchingScore(out.queries.lexicalWeights[i], out.passages.lexicalWeights[j]) - ref.model_card.lexical_matching[i][j]) <= TOL);
        assert.ok(Math.abs(m3.colbertScore(out.queries.colbertVecs[i], out.passages.colbertVecs[j]) - ref.model_card.colbert[i][j]) <= TOL);
      }
    // compute_score, default weights and the card's [0.4, 0.2, 0.4]
    const pairs = input.texts.map((q, i) => [q, input.passages.texts[i]]);
    for (const [key, weights] of [['compute_score', undefined], ['compute_score_weighted', [0.4, 0.2, 0.4]]]) {
      const got = await m3.computeScore(pairs, { weights });
      for (const mode of ['dense', 'sparse', 'colbert', 'sparse+dense', 'colbert+sparse+dense'])
        assert.ok(maxAbs(got[mode], ref[key][mode] ?? expected[`m3.${key}.${mode.replaceAll('+', '_')}`].data) <= TOL, `${key} ${mode}`);
    }
    // token strings of the lexical weights
    const tokens = m3.tokens(out.queries.lexicalWeights[1]);
    assert.equal(tokens.size, out.queries.lexicalWeights[1].size);
    assert.ok([...tokens.keys()].every((t) => typeof t === 'string'));
    // each output optional: dense only has no lexicalWeights / colbertVecs
    const dense = await m3.encode('Define BM25 scores.');
    assert.deepEqual(Object.keys(dense).sort(), ['dense', 'tokens']);
  } finally {
    m3.dispose();
  }
});

test('errors: too many tokens for the position table, BGE-M3 heads of the wrong shape or missing', { skip }, async () => {
  const model = await rp.loadModel(join(FAMILIES_D, 'roberta-a')); // max_position_embeddings 47, pad 1 → 45 tokens
  assert.equal(model.info.maxSequence, 45);
  assert.throws(() => model.forward({ inputIds: [new Array(46).fill(5)] }), /sequence length 46 exceeds the model's 45 positions \(roberta\)/);
  assert.equal(model.forward({ inputIds: [new Array(45).fill(5)] }).lastHiddenState.dims[1], 45, 'still usable');
  model.dispose();
  const folder = {};
  for (const f of ['config.json', 'model.safetensors', 'sentencepiece.bpe.model', 'tokenizer_config.json', 'special_tokens_map.json', 'colbert_linear.pt', 'sparse_linear.pt'])
    folder[f] = new Uint8Array(read('bge-m3', f));
  await assert.rejects(rp.loadBgeM3({ ...folder, 'colbert_linear.pt': folder['sparse_linear.pt'] }),
    /colbert_linear\.pt: expected weight \[32, 32\] and bias \[32\] \(hidden size 32 from config.json\), got weight \[1, 32\] and bias \[1\]/);
  await assert.rejects(rp.loadBgeM3({ ...folder, 'sparse_linear.pt': folder['colbert_linear.pt'] }),
    /sparse_linear\.pt: expected weight \[1, 32\] and bias \[1\] \(hidden size 32 from config.json\), got weight \[32, 32\] and bias \[32\]/);
  const { 'sparse_linear.pt': _, ...noSparse } = folder;
  await assert.rejects(rp.loadBgeM3(noSparse), /sparse_linear\.pt: not found/);
  await assert.rejects(rp.loadBgeM3({ ...folder, 'colbert_linear.pt': new Uint8Array([1, 2, 3]) }), /colbert_linear\.pt/);
});
