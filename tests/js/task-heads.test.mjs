// The task heads through the package (model.head, forward(…, { logits, logitsAt })) on the SIMD128,
// scalar and 2-thread builds: every raw head output of ../shared/fixtures/hf-tasks (Transformers
// 4.34.1, expected.json "logits") within 1e-4, with the segment ids HF fed; and the bad heads and
// bad head options are clear Errors that leave the runtime usable.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';

import { init } from '../../web/index.js';
import { ROOT } from './helpers.mjs';
import { joinSafetensors, splitSafetensors } from './safetensors.mjs';

const TASKS = resolve(ROOT, '..', 'shared', 'fixtures', 'hf-tasks');
const skip = !existsSync(join(TASKS, 'manifest.json')) && 'no hf-tasks fixtures';
const CASES = [
  'bert-token-classification', 'deberta-v2-token-classification', 'bert-question-answering', 'deberta-v2-question-answering',
  'bert-fill-mask', 'deberta-v2-fill-mask', 'roformer-fill-mask', 'distilbert-fill-mask',
  'bert-text-pair-classification', 'deberta-v2-text-pair-classification',
];
const runtimes = skip ? {} : { SIMD: await init({ simd: true }), scalar: await init({ simd: false }), 'SIMD, 2 threads': await init({ threads: 2 }) };

const files = (name) => {
  const dir = join(TASKS, name);
  const out = {};
  for (const f of ['config.json', 'model.safetensors']) out[f] = readFileSync(join(dir, f));
  out['config.json'] = out['config.json'].toString('utf8');
  return out;
};
const maxAbs = (a, b) => b.reduce((m, v, i) => Math.max(m, Math.abs(a[i] - v)), 0);

for (const [build, rp] of Object.entries(runtimes)) {
  test(`${build}: every hf-tasks head gives Hugging Face's logits within 1e-4, one padded batch per case`, { skip }, async () => {
    for (const name of CASES) {
      const { logits: entries, task } = JSON.parse(readFileSync(join(TASKS, name, 'expected.json'), 'utf8'));
      const model = await rp.loadModel(join(TASKS, name));
      assert.equal(model.head.task, task, name);
      const inputIds = entries.map((e) => e.input_ids);
      const tokenTypeIds = entries.map((e) => e.token_type_ids ?? e.input_ids.map(() => 0));
      const logitsAt = task === 'fill-mask' ? entries.map((e, b) => [b, e.mask_index]) : undefined;
      const r = model.forward({ inputIds, tokenTypeIds }, { logits: true, logitsAt });
      const L = r.inputIds.dims[1];
      entries.forEach((e, b) => {
        let err;
        if (task === 'question-answering') {
          const at = (t) => Array.from(t.data.subarray(b * L, b * L + e.input_ids.length));
          err = Math.max(maxAbs(at(r.startLogits), e.start_logits), maxAbs(at(r.endLogits), e.end_logits));
        } else if (task === 'fill-mask') {
          const V = model.head.outputs;
          assert.deepEqual(r.logits.dims, [entries.length, V]);
          err = maxAbs(r.logits.data.subarray(b * V, (b + 1) * V), e.mask_logits);
        } else if (task === 'token-classification') {
          const n = model.head.labels.length;
          err = maxAbs(r.logits.data.subarray(b * L * n, (b * L + e.input_ids.length) * n), e.logits.flat());
        } else {
          const n = model.head.outputs;
          err = maxAbs(r.logits.data.subarray(b * n, (b + 1) * n), e.logits);
        }
        assert.ok(err <= 1e-4, `${name}[${b}]: max abs error ${err}`);
      });
      model.dispose();
    }
  });
}

test('fill-mask logits without logitsAt cover every token ([B, L, vocab]) and agree with logitsAt rows', { skip }, async () => {
  const rp = runtimes.SIMD;
  const model = await rp.loadModel(join(TASKS, 'deberta-v2-fill-mask'));
  const ids = [1, 394, 97, 20, 5, 2000, 14, 1003, 4, 2];
  const all = model.forward({ inputIds: [ids] }, { logits: true });
  const V = model.head.outputs;
  assert.deepEqual(all.logits.dims, [1, ids.length, V]);
  const few = model.forward({ inputIds: [ids] }, { logits: true, logitsAt: [[0, 5], [0, 2]] });
  assert.ok(maxAbs(few.logits.data.subarray(0, V), all.logits.data.subarray(5 * V, 6 * V)) < 1e-5);
  assert.ok(maxAbs(few.logits.data.subarray(V, 2 * V), all.logits.data.subarray(2 * V, 3 * V)) < 1e-5);
  model.dispose();
});

/** The bert-token-classification files with the config or the weights' header edited. */
function edited({ config, header } = {}) {
  const f = files('bert-token-classification');
  if (config) f['config.json'] = JSON.stringify(config(JSON.parse(f['config.json'])));
  if (header) {
    const { header: h, data } = splitSafetensors(new Uint8Array(f['model.safetensors']));
    const copy = structuredClone(h);
    header(copy);
    f['model.safetensors'] = joinSafetensors(copy, data);
  }
  return f;
}

test('labels missing from config.json id2label are an Error naming the id and the head size; loading works afterwards', { skip }, async () => {
  const rp = runtimes.SIMD;
  const f = edited({ config: (c) => ({ ...c, id2label: { 0: 'O', 1: 'B-PER', 2: 'I-PER' } }) });
  await assert.rejects(rp.loadModel(f), {
    name: 'Error',
    message: "config.json: id2label has no label for id 3: the head has 5 outputs (classifier.weight has 5 rows), so id2label must name 0 … 4",
  });
  const model = await rp.loadModel(files('bert-token-classification'));
  assert.deepEqual(model.head.labels, ['O', 'B-PER', 'I-PER', 'B-LOC', 'I-LOC']);
  model.dispose();
});

test('a head tensor of the wrong shape or missing is an Error naming the tensor (and both shapes)', { skip }, async () => {
  const rp = runtimes.SIMD;
  const wrong = edited({
    config: (c) => ({ ...c, architectures: ['BertForQuestionAnswering'] }),
    header: (h) => {
      h['qa_outputs.weight'] = h['classifier.weight']; // [5, 32] where [2, 32] belongs
      h['qa_outputs.bias'] = h['classifier.bias'];
      delete h['classifier.weight'];
      delete h['classifier.bias'];
    },
  });
  await assert.rejects(rp.loadModel(wrong), (e) => e instanceof Error && /qa_outputs\.weight/.test(e.message) && /\[5, 32\]/.test(e.message) && /\[2, 32\]/.test(e.message));
  const missing = edited({ config: (c) => ({ ...c, architectures: ['BertForMaskedLM'] }) });
  await assert.rejects(rp.loadModel(missing), { name: 'Error', message: /missing masked-LM head tensor 'cls\.predictions\.transform\.dense\.weight'/ });
  const model = await rp.loadModel(files('bert-token-classification'));
  assert.equal(model.head.task, 'token-classification');
  model.dispose();
});

test('bad logits options and token type ids are TypeErrors / RangeErrors naming what was expected', { skip }, async () => {
  const rp = runtimes.SIMD;
  const tok = await rp.loadModel(files('bert-token-classification'));
  assert.throws(() => tok.forward({ inputIds: [[101, 102]] }, { logits: true, logitsAt: [[0, 1]] }), {
    name: 'TypeError', message: "forward: logitsAt is for masked-LM and causal-LM heads; this head is 'token-classification'",
  });
  assert.throws(() => tok.forward({ inputIds: [[101, 102]], tokenTypeIds: [[0]] }), {
    name: 'RangeError', message: 'forward: tokenTypeIds[0]: expected 2 entries like inputIds[0], got 1',
  });
  assert.throws(() => tok.forward({ inputIds: [[101, 102]], tokenTypeIds: [[0, 5]] }), {
    name: 'RangeError', message: /token_type_ids\[0\]\[1\] = 5 is outside \[0, 2\)/,
  });
  tok.dispose();
  const mlm = await rp.loadModel(join(TASKS, 'bert-fill-mask'));
  assert.throws(() => mlm.forward({ inputIds: [[101, 103, 102]] }, { logits: true, logitsAt: [[0, 3]] }), {
    name: 'RangeError', message: 'forward: logitsAt[0] = [0, 3] is outside the batch [1, 3]',
  });
  assert.throws(() => mlm.forward({ inputIds: [[101, 103, 102]] }, { logitsAt: [[0, 1]] }), { name: 'TypeError', message: 'forward: logitsAt needs logits: true' });
  assert.equal(mlm.forward({ inputIds: [[101, 103, 102]] }, { logits: true, logitsAt: [[0, 1]] }).logits.dims[0], 1);
  mlm.dispose();
  const plain = await rp.loadModel(join(ROOT, '..', 'shared', 'fixtures', 'hf', 'bert-absolute'));
  assert.equal(plain.head, null);
  assert.throws(() => plain.forward({ inputIds: [[1, 2]] }, { logits: true }), { name: 'Error', message: /has no task head/ });
  plain.dispose();
});
