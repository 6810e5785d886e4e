// Task heads and the pipelines on WebGPU (SwiftShader): a checkpoint with a head loaded with device
// 'webgpu' runs the head in the same plan as the model (cpp/src/plan, web/webgpu/executor.js):
//   - forward(…, { logits }) gives Hugging Face's recorded head logits (../shared/fixtures/hf-tasks) within
//     1e-4, and the WASM forward's shapes and values (≤ 1e-4) on a ragged batch, masked LM at chosen
//     positions ([P, vocab], read back alone) and at every token ([B, L, vocab]);
//   - every pipeline call of the hf-tasks cases (BERT, RoFormer, DistilBERT, DeBERTa-v2) gives HF's
//     labels / answers / tokens and scores within 1e-4 (task-fixtures.mjs compareCall, as the WASM tests);
//   - zero-shot-classification and feature-extraction on the GPU equal WASM's (≤ 1e-4);
//   - MPNet (positions that follow the padding, computed on the GPU) matches WASM on a left-padded batch;
//   - every head of MPNet and ModernBERT (sequence classification incl. ModernBERT's mean pooling, token
//     classification, QA, masked LM tied and untied), built on the hf-families fixtures with small
//     deterministic head weights, gives WASM's logits (≤ 1e-4) on a padded batch.
// No adapter: the suite fails under CI (process.env.CI), else skips, as webgpu-ops.test.mjs does.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';

import { encodeInput } from '../../web/pipelines/encoding.js';
import { randomArray, ROOT } from './helpers.mjs';
import { readSafetensors, writeSafetensors } from './safetensors.mjs';
import { compareCall, haveTaskFixtures, isSingleWindow, loadTaskCase, runCall, TASK_FIXTURES } from './task-fixtures.mjs';
import { webgpuAdapter } from './webgpu-adapter.mjs';

const adapter = await webgpuAdapter();
const skip = adapter.skip || (!haveTaskFixtures && 'no HF task fixtures');

const { init, pipeline } = await import('../../web/index.js');
const rp = await init({ simd: true });

const TOL = 1e-4;
const maxAbs = (a, b) => Array.from(a).reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);

/** The hf-tasks cases whose families the GPU plan covers. */
const GPU_CASES = ['bert-token-classification', 'bert-question-answering', 'bert-fill-mask', 'roformer-fill-mask', 'distilbert-fill-mask', 'bert-text-pair-classification',
  'deberta-v2-token-classification', 'deberta-v2-question-answering', 'deberta-v2-fill-mask', 'deberta-v2-text-pair-classification'];

/** HF's recorded head logits, one sequence at a time, on the GPU. Returns the worst difference. */
async function hfLogitsError(model, c) {
  let worst = 0;
  for (const l of c.logits) {
    const inputs = { inputIds: [l.input_ids] };
    if (c.config.type_vocab_size > 1) inputs.tokenTypeIds = [l.token_type_ids];
    if (c.task === 'fill-mask') {
      const r = await model.forward(inputs, { logits: true, logitsAt: [[0, l.mask_index]] });
      assert.deepEqual(r.logits.dims, [1, model.head.outputs]);
      worst = Math.max(worst, maxAbs(r.logits.data, l.mask_logits));
    } else if (c.task === 'question-answering') {
      const r = await model.forward(inputs, { logits: true });
      worst = Math.max(worst, maxAbs(r.startLogits.data, l.start_logits), maxAbs(r.endLogits.data, l.end_logits));
    } else {
      const r = await model.forward(inputs, { logits: true });
      worst = Math.max(worst, maxAbs(r.logits.data, c.task === 'token-classification' ? l.logits.flat() : l.logits));
    }
  }
  return worst;
}

/** Every head output of a ragged batch: same keys, dims and values (≤ TOL) as WASM. */
async function compareWithWasm(gpu, wasm, c) {
  const rows = c.logits.slice(0, 3);
  const inputs = { inputIds: rows.map((l) => l.input_ids) };
  if (c.config.type_vocab_size > 1) inputs.tokenTypeIds = rows.map((l) => l.token_type_ids);
  const options = [{ logits: true }];
  if (c.task === 'fill-mask') options.push({ logits: true, logitsAt: rows.map((l, b) => [b, l.mask_index]).reverse() });
  let worst = 0;
  for (const o of options) {
    const [g, w] = [await gpu.forward(inputs, o), wasm.forward(inputs, o)];
    const keys = ['logits', 'startLogits', 'endLogits'].filter((k) => w[k]);
    assert.deepEqual(keys.filter((k) => g[k]), keys, `${c.name}: the same head outputs as WASM`);
    for (const k of keys) {
      assert.deepEqual(g[k].dims, w[k].dims, `${c.name} ${k} dims${o.logitsAt ? ' at positions' : ''}`);
      worst = Math.max(worst, maxAbs(g[k].data, w[k].data));
    }
    assert.deepEqual(g.lastHiddenState.dims, w.lastHiddenState.dims);
  }
  return worst;
}

for (const name of GPU_CASES) {
  test(`webgpu: ${name}: head logits and pipeline() give Hugging Face's outputs`, { skip }, async () => {
    const c = loadTaskCase(name);
    const gpu = await rp.loadModel(c.dir, { device: 'webgpu' });
    const wasm = await rp.loadModel(c.dir);
    try {
      assert.equal(gpu.info.device, 'webgpu');
      assert.equal(gpu.head.task, c.task);
      const hf = await hfLogitsError(gpu, c);
      assert.ok(hf <= TOL, `${name}: GPU head logits differ from HF's by ${hf}`);
      const vsWasm = await compareWithWasm(gpu, wasm, c);
      assert.ok(vsWasm <= TOL, `${name}: GPU head logits differ from WASM's by ${vsWasm}`);
      const pipe = pipeline(c.task, gpu);
      let compared = 0;
      for (const [i, call] of c.calls.entries()) {
        if (c.task === 'question-answering' && Array.isArray(call.input)) {
          const got = await runCall(pipe, c.task, call);
          const maxSeqLen = call.options.max_seq_len ?? 64;
          call.input.forEach((ex, j) => {
            if (encodeInput(gpu.tokenizer, ex.question, ex.context).ids.length > maxSeqLen) return;
            compareCall(c.task, got[j], { input: ex, expected: call.expected[j] }, `${name} call ${i}[${j}]`);
          });
          compared++;
          continue;
        }
        if (c.task === 'question-answering' && !isSingleWindow(call)) continue;
        compareCall(c.task, await runCall(pipe, c.task, call), call, `${name} call ${i}`);
        compared++;
      }
      assert.ok(compared >= (c.task === 'question-answering' ? 21 : c.calls.length), `${compared} calls compared`);
      console.log(`# ${name}: HF logits ${hf.toExponential(2)}, WASM ${vsWasm.toExponential(2)}, ${compared}/${c.calls.length} pipeline calls`);
    } finally {
      gpu.dispose();
      wasm.dispose();
    }
  });
}


/** The files of a hf-tasks folder as a map, config.json changed by `edit`. */
function folderFiles(name, edit) {
  const dir = join(TASK_FIXTURES, name);
  const files = {};
  for (const f of readdirSync(dir)) {
    if (f === 'input.json' || f === 'expected.json') continue;
    files[f] = f.endsWith('.json') || f.endsWith('.txt') ? readFileSync(join(dir, f), 'utf8') : new Uint8Array(readFileSync(join(dir, f)));
  }
  const config = JSON.parse(files['config.json']);
  edit(config);
  files['config.json'] = JSON.stringify(config);
  return files;
}

test('webgpu: zero-shot-classification and feature-extraction equal WASM on the GPU', { skip }, async () => {
  // the text-pair classifier with its one label named 'entailment': an NLI head for zero-shot
  const nli = (c) => {
    c.id2label = { 0: 'entailment' };
    c.label2id = { entailment: 0 };
  };
  const gpu = await rp.loadModel(folderFiles('bert-text-pair-classification', nli), { device: 'webgpu' });
  const wasm = await rp.loadModel(folderFiles('bert-text-pair-classification', nli));
  try {
    assert.equal(gpu.info.device, 'webgpu');
    const texts = ['the cat sat on the mat', 'stocks fell sharply in early trading today', 'a short one'];
    const labels = ['animals', 'finance', 'sports', 'weather'];
    const [zg, zw] = [await pipeline('zero-shot-classification', gpu)(texts, labels), await pipeline('zero-shot-classification', wasm)(texts, labels)];
    assert.equal(zg.length, texts.length);
    zg.forEach((r, i) => {
      assert.equal(r.sequence, zw[i].sequence);
      assert.deepEqual(r.labels, zw[i].labels, `text ${i}: label order`);
      assert.ok(maxAbs(r.scores, zw[i].scores) <= TOL, `text ${i}: scores ${r.scores} vs ${zw[i].scores}`);
    });
    for (const options of [{ pooling: 'mean', normalize: true }, { pooling: 'cls' }]) {
      const [fg, fw] = [await pipeline('feature-extraction', gpu)(texts, options), await pipeline('feature-extraction', wasm)(texts, options)];
      assert.deepEqual(fg.dims, fw.dims);
      assert.ok(maxAbs(fg.data, fw.data) <= TOL, `feature-extraction ${options.pooling}: ${maxAbs(fg.data, fw.data)}`);
    }
  } finally {
    gpu.dispose();
    wasm.dispose();
  }
});

const FAMILIES = process.env.RELPOS_HF_FAMILY_FIXTURES ?? resolve(ROOT, '..', 'shared', 'fixtures', 'hf-families');
const haveMpnet = existsSync(join(FAMILIES, 'mpnet-a', 'config.json'));

test('webgpu: MPNet positions follow the padding on the GPU (left, right and inner pads) as on WASM', { skip: skip || (!haveMpnet && 'no hf-families mpnet fixtures') }, async () => {
  const dir = join(FAMILIES, 'mpnet-a');
  const gpu = await rp.loadModel(dir, { device: 'webgpu' });
  const wasm = await rp.loadModel(dir);
  try {
    assert.equal(gpu.info.device, 'webgpu');
    // padding_idx 1: a pad token keeps position 1 and does not advance the real tokens' positions
    const inputs = {
      inputIds: [[1, 1, 0, 5, 6, 7, 2], [0, 9, 1, 8, 3, 2, 1], [0, 4, 4, 4, 4, 4, 2]],
      attentionMask: [[0, 0, 1, 1, 1, 1, 1], [1, 1, 1, 1, 1, 1, 0], [1, 1, 1, 1, 1, 1, 1]],
    };
    const [g, w] = [await gpu.forward(inputs, { outputHiddenStates: true }), wasm.forward(inputs, { outputHiddenStates: true })];
    assert.deepEqual(g.lastHiddenState.dims, w.lastHiddenState.dims);
    const worst = Math.max(maxAbs(g.lastHiddenState.data, w.lastHiddenState.data), ...g.hiddenStates.map((h, i) => maxAbs(h.data, w.hiddenStates[i].data)));
    assert.ok(worst <= TOL, `MPNet GPU vs WASM: ${worst}`);
  } finally {
    gpu.dispose();
    wasm.dispose();
  }
});

/** A family fixture's model tensors plus `head` ({ name: [shape] }, deterministic values) and a config edit. */
function headCheckpoint(family, head, edit) {
  const dir = join(FAMILIES, family);
  const tensors = {};
  for (const [name, t] of Object.entries(readSafetensors(new Uint8Array(readFileSync(join(dir, 'model.safetensors'))))))
    tensors[name] = { shape: t.dims, data: t.data };
  let seed = 7;
  for (const [name, shape] of Object.entries(head)) {
    const data = randomArray(shape.reduce((a, b) => a * b, 1), seed++);
    if (name.endsWith('norm.weight')) data.forEach((v, i) => (data[i] = 1 + 0.1 * v));
    else data.forEach((v, i) => (data[i] = 0.3 * v));
    tensors[name] = { shape, data };
  }
  const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
  edit(config);
  if (config.model_type === 'modernbert') {
    // the prediction head's optional biases, as the config asks (norm_bias, classifier_bias)
    if (config.norm_bias) tensors['head.norm.bias'] = { shape: [H], data: randomArray(H, 99).map((v) => 0.1 * v) };
    if (config.classifier_bias) tensors['head.dense.bias'] = { shape: [H], data: randomArray(H, 98).map((v) => 0.1 * v) };
  }
  return { 'config.json': JSON.stringify(config), 'model.safetensors': writeSafetensors(tensors) };
}

const LABELS3 = (c) => {
  c.id2label = { 0: 'negative', 1: 'neutral', 2: 'positive' };
  c.label2id = { negative: 0, neutral: 1, positive: 2 };
};

/** [family, task, head tensors (H = 32, V = 100), config edit] */
const H = 32, V = 100;
const FAMILY_HEADS = [
  ['mpnet-a', 'text-classification', { 'classifier.dense.weight': [H, H], 'classifier.dense.bias': [H], 'classifier.out_proj.weight': [3, H], 'classifier.out_proj.bias': [3] },
    (c) => { c.architectures = ['MPNetForSequenceClassification']; LABELS3(c); }],
  ['mpnet-a', 'token-classification', { 'classifier.weight': [3, H], 'classifier.bias': [3] }, (c) => { c.architectures = ['MPNetForTokenClassification']; LABELS3(c); }],
  ['mpnet-a', 'question-answering', { 'qa_outputs.weight': [2, H], 'qa_outputs.bias': [2] }, (c) => { c.architectures = ['MPNetForQuestionAnswering']; }],
  ['mpnet-a', 'fill-mask', { 'lm_head.dense.weight': [H, H], 'lm_head.dense.bias': [H], 'lm_head.layer_norm.weight': [H], 'lm_head.layer_norm.bias': [H], 'lm_head.bias': [V], 'lm_head.decoder.weight': [V, H] },
    (c) => { c.architectures = ['MPNetForMaskedLM']; c.tie_word_embeddings = false; }],
  ['mpnet-b', 'fill-mask', { 'lm_head.dense.weight': [H, H], 'lm_head.dense.bias': [H], 'lm_head.layer_norm.weight': [H], 'lm_head.layer_norm.bias': [H], 'lm_head.bias': [V] },
    (c) => { c.architectures = ['MPNetForMaskedLM']; }],
  ['modernbert-a', 'text-classification', { 'head.dense.weight': [H, H], 'head.norm.weight': [H], 'classifier.weight': [3, H], 'classifier.bias': [3] },
    (c) => { c.architectures = ['ModernBertForSequenceClassification']; c.classifier_pooling = 'mean'; LABELS3(c); }],
  ['modernbert-b', 'text-classification', { 'head.dense.weight': [H, H], 'head.norm.weight': [H], 'classifier.weight': [3, H], 'classifier.bias': [3] },
    (c) => { c.architectures = ['ModernBertForSequenceClassification']; c.classifier_pooling = 'cls'; LABELS3(c); }],
  ['modernbert-a', 'token-classification', { 'head.dense.weight': [H, H], 'head.norm.weight': [H], 'classifier.weight': [3, H], 'classifier.bias': [3] },
    (c) => { c.architectures = ['ModernBertForTokenClassification']; LABELS3(c); }],
  ['modernbert-a', 'fill-mask', { 'head.dense.weight': [H, H], 'head.norm.weight': [H], 'decoder.bias': [V] }, (c) => { c.architectures = ['ModernBertForMaskedLM']; }],
];

const haveFamilies = existsSync(join(FAMILIES, 'modernbert-a', 'config.json')) && haveMpnet;

test('webgpu: MPNet and ModernBERT heads (mean pooling, untied decoder) give WASM\'s logits on a padded batch', { skip: skip || (!haveFamilies && 'no hf-families fixtures') }, async () => {
  const report = [];
  for (const [family, task, head, edit] of FAMILY_HEADS) {
    const files = headCheckpoint(family, head, edit);
    const gpu = await rp.loadModel(files, { device: 'webgpu' });
    const wasm = await rp.loadModel(files);
    try {
      assert.equal(gpu.info.device, 'webgpu', `${family} ${task}`);
      assert.equal(gpu.head.task, task);
      const inputs = { inputIds: [[0, 5, 6, 7, 8, 9, 2], [0, 11, 12, 2]] };
      const options = [{ logits: true }];
      if (task === 'fill-mask') options.push({ logits: true, logitsAt: [[1, 2], [0, 4], [0, 1]] });
      let worst = 0;
      for (const o of options) {
        const [g, w] = [await gpu.forward(inputs, o), wasm.forward(inputs, o)];
        for (const k of ['logits', 'startLogits', 'endLogits'].filter((x) => w[x])) {
          assert.deepEqual(g[k].dims, w[k].dims, `${family} ${task} ${k}`);
          worst = Math.max(worst, maxAbs(g[k].data, w[k].data));
        }
      }
      assert.ok(worst <= TOL, `${family} ${task}: GPU vs WASM ${worst}`);
      report.push(`${family} ${task} ${worst.toExponential(2)}`);
      if (task === 'text-classification' && family === 'modernbert-a') {
        // mean pooling over a sequence without a real token: the same Error as WASM
        const empty = { inputIds: [[0, 5, 2], [0, 6, 2]], attentionMask: [[1, 1, 1], [0, 0, 0]] };
        assert.throws(() => wasm.forward(empty, { logits: true }), /sequence 1 has no real token to mean-pool/);
        await assert.rejects(gpu.forward(empty, { logits: true }), /sequence 1 has no real token to mean-pool/);
      }
    } finally {
      gpu.dispose();
      wasm.dispose();
    }
  }
  console.log(`# GPU vs WASM logits: ${report.join('; ')}`);
});
