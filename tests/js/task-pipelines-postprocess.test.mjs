// The task pipelines' JavaScript against Hugging Face's recorded results, without WebAssembly: a
// recorded model (tests/js/task-fixtures.mjs) answers forward() with the logits HF computed for the
// same ids, so tokenization, special tokens, token types, batching and post-processing must all
// agree with HF for the outputs to match (tolerances of ../shared/fixtures/hf-tasks/README.md).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { pipeline } from '../../web/index.js';
import { encodeInput } from '../../web/pipelines/encoding.js';
import { CASES, caseTokenizer, compareCall, haveTaskFixtures, isSingleWindow, loadTaskCase, recordedModel, runCall } from './task-fixtures.mjs';

const skip = haveTaskFixtures ? false : 'no HF task fixtures';

test('tokenization: every single-window fixture call gets HF\'s input ids and token types', { skip }, async () => {
  let checked = 0;
  for (const name of CASES) {
    const c = loadTaskCase(name);
    const tok = await caseTokenizer(c);
    const maxLength = c.config.model_type === 'deberta-v2' ? null : c.config.max_position_embeddings;
    for (const [i, call] of c.calls.entries()) {
      if (!isSingleWindow(call) && c.task === 'question-answering') continue;
      const items = Array.isArray(call.input) ? call.input : [call.input];
      items.forEach((it, j) => {
        const mi = call.modelInputs[j];
        if (!mi) return; // QA lists: windows of several examples
        let enc;
        if (typeof it === 'string') enc = encodeInput(tok, it, null, { maxLength });
        else if ('question' in it) enc = encodeInput(tok, it.question, it.context);
        else enc = encodeInput(tok, it.text, it.text_pair, { maxLength });
        if (c.task === 'question-answering' && Array.isArray(call.input)) return;
        assert.deepEqual(enc.ids, mi.input_ids, `${name} call ${i} item ${j}: ids`);
        if (c.config.type_vocab_size > 1) assert.deepEqual(enc.typeIds, mi.token_type_ids, `${name} call ${i} item ${j}: token types`);
        checked++;
      });
    }
  }
  assert.ok(checked > 150, `only ${checked} inputs checked`);
});

for (const name of CASES) {
  test(`${name}: the pipeline over HF's recorded logits returns HF's outputs`, { skip }, async () => {
    const c = loadTaskCase(name);
    const model = await recordedModel(c);
    const pipe = pipeline(c.task, model);
    let compared = 0;
    for (const [i, call] of c.calls.entries()) {
      if (c.task === 'question-answering') {
        // HF recorded the logits of one example only; multi-window calls differ by design (README)
        const ex = Array.isArray(call.input) ? null : call.input;
        if (!ex || !isSingleWindow(call) || JSON.stringify(call.modelInputs[0].input_ids) !== JSON.stringify(c.logits[0].input_ids)) continue;
      }
      const got = await runCall(pipe, c.task, call);
      compareCall(c.task, got, call, `${name} call ${i}`);
      compared++;
    }
    assert.equal(model.stats.typeMismatches, 0, 'token type ids as HF');
    assert.ok(compared >= (c.task === 'question-answering' ? 3 : c.calls.length), `${compared} calls compared`);
  });
}

test('batchSize: texts run shortest first in batches of batchSize; results come back in input order', { skip }, async () => {
  const c = loadTaskCase('bert-token-classification');
  const model = await recordedModel(c);
  const ner = pipeline('ner', model);
  const texts = c.calls[11].input; // three texts of 12, 14 and 9 tokens
  const together = await ner(texts, { batchSize: 2 });
  assert.deepEqual(model.stats.batchSizes, [2, 1]);
  const alone = [];
  for (const t of texts) alone.push(await ner(t));
  assert.deepEqual(together, alone);
  compareCall('token-classification', together, c.calls[11], 'batched');
  await assert.rejects(ner(texts, { batchSize: 0 }), { name: 'RangeError', message: /batchSize: expected a positive integer, got 0/ });
});
