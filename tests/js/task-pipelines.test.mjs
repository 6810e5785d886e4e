// Every case of ../shared/fixtures/hf-tasks through the public pipelines on the real models, on the
// SIMD and scalar builds and once on the threads build (2 threads): rp.loadModel(folder) →
// pipeline(task, model) → each call of input.json, compared with what Hugging Face Transformers
// 4.34.1 returned (tests/js/task-fixtures.mjs: scores ≤ 1e-4, labels, words, indexes, tokens,
// sequences and order exact). Question answering: the head's logits ≤ 1e-4 against HF's, and the
// calls HF ran in one window (its README: multi-window calls differ by design — HF's slow path used
// doc_stride as the step, relpos follows the fast tokenizers' overlap); answers within HF's
// whole-word answers. Also the head logits of every case against HF's `logits`.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { init, pipeline } from '../../web/index.js';
import { encodeInput } from '../../web/pipelines/encoding.js';
import { CASES, compareCall, haveTaskFixtures, isSingleWindow, loadTaskCase, runCall } from './task-fixtures.mjs';

const skip = haveTaskFixtures ? false : 'no HF task fixtures';
const BUILDS = { SIMD: { simd: true }, scalar: { simd: false }, 'SIMD, 2 threads': { threads: 2 } };
const runtimes = {};
for (const [name, options] of Object.entries(BUILDS)) runtimes[name] = await init(options);

const maxAbs = (a, b) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);

/** The head's logits for the ids HF recorded, against HF's (≤ 1e-4). */
function checkLogits(model, c) {
  let worst = 0;
  for (const l of c.logits) {
    const inputs = { inputIds: [l.input_ids] };
    if (c.config.type_vocab_size > 1) inputs.tokenTypeIds = [l.token_type_ids];
    if (c.task === 'fill-mask') {
      const r = model.forward(inputs, { logits: true, logitsAt: [[0, l.mask_index]] });
      worst = Math.max(worst, maxAbs(Array.from(r.logits.data), l.mask_logits));
    } else if (c.task === 'question-answering') {
      const r = model.forward(inputs, { logits: true });
      worst = Math.max(worst, maxAbs(Array.from(r.startLogits.data), l.start_logits), maxAbs(Array.from(r.endLogits.data), l.end_logits));
    } else if (c.task === 'token-classification') {
      const r = model.forward(inputs, { logits: true });
      worst = Math.max(worst, maxAbs(Array.from(r.logits.data), l.logits.flat()));
    } else {
      const r = model.forward(inputs, { logits: true });
      worst = Math.max(worst, maxAbs(Array.from(r.logits.data), l.logits));
    }
  }
  assert.ok(worst <= 1e-4, `${c.name}: head logits differ from HF's by ${worst}`);
  return worst;
}

/** Calls compared per build, printed at the end (the report quotes them). */
const tally = {};
for (const build of Object.keys(BUILDS)) {
  for (const name of CASES) {
    // the threads build runs once: every case on SIMD and scalar, a few on 2 threads
    if (build === 'SIMD, 2 threads' && !['bert-token-classification', 'deberta-v2-question-answering', 'deberta-v2-fill-mask', 'bert-text-pair-classification'].includes(name)) continue;
    test(`${build}: ${name} through pipeline() returns Hugging Face's outputs`, { skip }, async () => {
      const c = loadTaskCase(name);
      const model = await runtimes[build].loadModel(c.dir);
      try {
        assert.equal(model.head?.task, c.task);
        checkLogits(model, c);
        const pipe = pipeline(c.task, model);
        let compared = 0;
        for (const [i, call] of c.calls.entries()) {
          if (c.task === 'question-answering' && Array.isArray(call.input)) {
            // a list: compare the examples that fit one window (HF's windows are listed together)
            const got = await runCall(pipe, c.task, call);
            const maxSeqLen = call.options.max_seq_len ?? (c.config.model_type === 'bert' ? 64 : 384);
            let fits = 0;
            call.input.forEach((ex, j) => {
              if (encodeInput(model.tokenizer, ex.question, ex.context).ids.length > maxSeqLen) return;
              compareCall(c.task, got[j], { input: ex, expected: call.expected[j] }, `${build} ${name} call ${i}[${j}]`);
              fits++;
            });
            assert.ok(fits >= 1);
            compared++;
            continue;
          }
          if (c.task === 'question-answering' && !isSingleWindow(call)) continue;
          const got = await runCall(pipe, c.task, call);
          compareCall(c.task, got, call, `${build} ${name} call ${i}`);
          compared++;
        }
        (tally[build] ??= {})[name] = `${compared}/${c.calls.length}`;
        assert.ok(compared >= (c.task === 'question-answering' ? 21 : c.calls.length), `${compared} calls compared`);
      } finally {
        model.dispose();
      }
    });
  }
}

test('question answering over several windows: each window is HF fast-tokenizer layout and answers stay inside the context', { skip }, async () => {
  for (const name of ['bert-question-answering', 'deberta-v2-question-answering']) {
    const c = loadTaskCase(name);
    const model = await runtimes.SIMD.loadModel(c.dir);
    const qa = pipeline('question-answering', model);
    for (const call of c.calls.filter((x) => !isSingleWindow(x) && !Array.isArray(x.input))) {
      const { question, context } = call.input;
      const got = await qa(call.input, { ...Object.fromEntries(Object.entries(call.options).map(([k, v]) => [k.replace(/_([a-z])/g, (_, ch) => ch.toUpperCase()), v])) });
      const list = Array.isArray(got) ? got : [got];
      assert.equal(list.length, Math.min(call.options.top_k ?? 1, list.length));
      list.forEach((a, k) => {
        assert.equal(a.answer, context.slice(a.start, a.end));
        assert.ok(a.score >= 0 && a.score <= 1);
        if (a.answer !== '') assert.equal(a.answer.trim(), a.answer);
        if (k) assert.ok(a.score <= list[k - 1].score, 'sorted by score');
      });
      assert.ok(encodeInput(model.tokenizer, question, context).ids.length > (call.options.max_seq_len ?? (c.config.model_type === 'bert' ? 64 : 384)), 'the context needs several windows');
    }
    model.dispose();
  }
});

test('tally of fixture calls compared per build', { skip }, () => {
  console.log(JSON.stringify(tally, null, 1));
  assert.ok(Object.keys(tally).length >= 2);
});

test('pipeline(task, source) loads the model (default runtime or options.runtime) and its dispose() frees it', { skip }, async () => {
  const c = loadTaskCase('deberta-v2-text-pair-classification');
  const call = c.calls[1];
  const a = await pipeline('text-classification', c.dir); // a runtime made once by init()
  compareCall(c.task, await runCall(a, c.task, call), call, 'default runtime');
  const b = await pipeline('sentiment-analysis', c.dir, { runtime: runtimes.scalar, dtype: 'fp32' });
  assert.equal(b.task, 'text-classification');
  compareCall(c.task, await runCall(b, c.task, call), call, 'scalar runtime');
  a.dispose();
  b.dispose();
  assert.throws(() => b.model.forward({ inputIds: [[1, 2]] }), { message: 'forward: this model has been disposed' });
  // a Model passed in stays the caller's
  const model = await runtimes.SIMD.loadModel(c.dir);
  pipeline('text-classification', model).dispose();
  assert.equal(model.forward({ inputIds: [[1, 5, 2]] }).lastHiddenState.dims[1], 3);
  model.dispose();
  await assert.rejects(pipeline('fill-mask', c.dir), { name: 'Error', message: /^fill-mask: the checkpoint has (a text-classification head|no task head); this task needs a masked-LM head/ });
  await assert.rejects(pipeline('fill-mask', c.dir, { runtime: 42 }), { name: 'TypeError', message: 'pipeline: options.runtime: expected a runtime from init(), got 42' });
});

test('token-classification on the real models: start/end (null in HF\'s slow-tokenizer reference) slice each entity out of the text', { skip }, async () => {
  for (const name of ['bert-token-classification', 'deberta-v2-token-classification']) {
    const c = loadTaskCase(name);
    const model = await runtimes.SIMD.loadModel(c.dir);
    const ner = pipeline('ner', model);
    let checked = 0;
    for (const call of c.calls) {
      const texts = Array.isArray(call.input) ? call.input : [call.input];
      const strategy = call.options.aggregation_strategy;
      const got = await ner(texts, { aggregationStrategy: strategy, ignoreLabels: [] });
      texts.forEach((text, t) => {
        for (const e of got[t]) {
          const x = text.slice(e.start, e.end);
          const word = strategy === 'none' ? e.word.replace(/^##/, '').replaceAll('\u2581', '') : e.word;
          const norm = model.config.model_type === 'bert' ? x.toLowerCase().normalize('NFD').replace(/\p{Mn}/gu, '') : x;
          if (strategy === 'none') assert.equal(norm, word, `${name}: ${JSON.stringify(text)} token ${e.index}`);
          // groups: HF joins WordPiece tokens with spaces ('children .'), so compare without whitespace
          else assert.equal(norm.replace(/\s+/g, ''), word.replace(/(^| )##/g, '').replace(/\s+/g, ''), `${name}: ${JSON.stringify(text)} group ${JSON.stringify(e.word)}`);
          checked++;
        }
      });
    }
    assert.ok(checked > 300, `${checked} entities`);
    model.dispose();
  }
});
