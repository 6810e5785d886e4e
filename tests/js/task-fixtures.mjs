// Shared by the task-pipeline tests: the Hugging Face reference cases of ../shared/fixtures/hf-tasks
// (see its README), their tokenizers, a "recorded" model whose forward() answers with the logits
// HF recorded (so the pipelines' JavaScript is tested without WebAssembly), and the comparison of a
// pipeline's output with HF's under the fixtures' tolerances.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { openSource } from '../../web/sources.js';
import { loadTokenizer } from '../../web/tokenizer.js';
import { ROOT } from './helpers.mjs';

export const TASK_FIXTURES = process.env.RELPOS_HF_TASK_FIXTURES ?? resolve(ROOT, '..', 'shared', 'fixtures', 'hf-tasks');
export const haveTaskFixtures = existsSync(join(TASK_FIXTURES, 'manifest.json'));

export const CASES = [
  'bert-token-classification',
  'deberta-v2-token-classification',
  'bert-question-answering',
  'deberta-v2-question-answering',
  'bert-fill-mask',
  'deberta-v2-fill-mask',
  'roformer-fill-mask',
  'distilbert-fill-mask',
  'bert-text-pair-classification',
  'deberta-v2-text-pair-classification',
];

const json = (name, file) => JSON.parse(readFileSync(join(TASK_FIXTURES, name, file), 'utf8'));

/** { name, dir, task, config, calls: [{ input, options, expected, modelInputs }], logits } */
export function loadTaskCase(name) {
  const input = json(name, 'input.json');
  const expected = json(name, 'expected.json');
  return {
    name,
    dir: join(TASK_FIXTURES, name),
    task: input.task,
    config: json(name, 'config.json'),
    calls: input.calls.map((c, i) => ({ ...c, expected: expected.calls[i], modelInputs: expected.model_inputs[i] })),
    logits: expected.logits,
  };
}

export async function caseTokenizer(c) {
  const src = await openSource(c.dir, {});
  const readJson = async (f) => {
    const t = await src.text(f);
    return t === null ? null : { value: JSON.parse(t) };
  };
  return loadTokenizer(src, { modelType: c.config.model_type, readJson });
}

/** HF snake_case options → relpos camelCase. */
export function camelOptions(options) {
  const out = {};
  for (const [k, v] of Object.entries(options)) out[k.replace(/_([a-z])/g, (_, ch) => ch.toUpperCase())] = v;
  return out;
}

/** HF input → relpos input ({ text, text_pair } → { text, textPair }). */
export function camelInput(input) {
  const one = (x) => (x && typeof x === 'object' && 'text_pair' in x ? { text: x.text, textPair: x.text_pair } : x);
  return Array.isArray(input) ? input.map(one) : one(input);
}

const HEAD_TASK = {
  'token-classification': 'token-classification',
  'question-answering': 'question-answering',
  'fill-mask': 'fill-mask',
  'text-classification': 'text-classification',
};

/**
 * A model-like object whose forward() returns the logits HF recorded for the same ids (an Error for
 * ids it has none for). forward.calls counts the forward passes, forward.rows the rows.
 */
/** A stand-in model's info: the fields the pipelines read, maxSequence as the C++ model reports it (the position table's rows, 0 for relative positions). */
export function standInInfo(config) {
  const absolute = config.model_type !== 'deberta-v2' || (config.position_biased_input ?? true);
  return { modelType: config.model_type, maxPositionEmbeddings: config.max_position_embeddings, maxSequence: absolute ? config.max_position_embeddings : 0 };
}

export async function recordedModel(c) {
  const tokenizer = await caseTokenizer(c);
  const byIds = new Map(c.logits.map((l) => [JSON.stringify(l.input_ids), l]));
  const labels = c.config.id2label ? Object.keys(c.config.id2label).sort((a, b) => a - b).map((k) => c.config.id2label[k]) : null;
  const needsLabels = c.task === 'token-classification' || c.task === 'text-classification';
  const stats = { calls: 0, rows: 0, typeMismatches: 0, batchSizes: [] };
  const model = {
    tokenizer,
    config: c.config,
    info: standInInfo(c.config),
    labels: c.task === 'text-classification' ? labels : null,
    head: { task: HEAD_TASK[c.task], labels: needsLabels ? labels : null },
    stats,
    forward(inputs, options = {}) {
      stats.calls++;
      const rows = inputs.inputIds;
      stats.rows += rows.length;
      stats.batchSizes.push(rows.length);
      const entries = rows.map((ids, b) => {
        const e = byIds.get(JSON.stringify(Array.from(ids)));
        if (!e) throw new Error(`recorded model: no HF logits for input ids ${JSON.stringify(Array.from(ids)).slice(0, 80)}…`);
        const types = inputs.tokenTypeIds?.[b] ?? ids.map(() => 0);
        if (c.config.type_vocab_size > 1 && JSON.stringify(Array.from(types)) !== JSON.stringify(e.token_type_ids)) stats.typeMismatches++;
        return e;
      });
      const B = rows.length;
      const L = Math.max(...rows.map((r) => r.length));
      const out = {};
      if (c.task === 'token-classification') {
        const N = labels.length;
        const data = new Float32Array(B * L * N);
        entries.forEach((e, b) => e.logits.forEach((r, l) => data.set(r, (b * L + l) * N)));
        out.logits = { data, dims: [B, L, N] };
      } else if (c.task === 'text-classification') {
        const N = labels.length;
        const data = new Float32Array(B * N);
        entries.forEach((e, b) => data.set(e.logits, b * N));
        out.logits = { data, dims: [B, N] };
      } else if (c.task === 'question-answering') {
        const s = new Float32Array(B * L);
        const t = new Float32Array(B * L);
        entries.forEach((e, b) => {
          s.set(e.start_logits, b * L);
          t.set(e.end_logits, b * L);
        });
        out.startLogits = { data: s, dims: [B, L] };
        out.endLogits = { data: t, dims: [B, L] };
      } else {
        assert.ok(options.logitsAt, 'fill-mask asks for logits at the mask positions only');
        const V = entries[0].mask_logits.length;
        const data = new Float32Array(options.logitsAt.length * V);
        options.logitsAt.forEach(([b, l], p) => {
          assert.equal(l, entries[b].mask_index, 'logitsAt names the mask position');
          data.set(entries[b].mask_logits, p * V);
        });
        out.logits = { data, dims: [options.logitsAt.length, V] };
      }
      return out;
    },
    dispose() {},
  };
  return model;
}

/** Contexts split by HF's slow path into more than one window (their answers differ by design). */
export const isSingleWindow = (call) => call.modelInputs.length === 1;

const close = (a, b, what) => assert.ok(Math.abs(a - b) <= 1e-4 || Math.abs(a - b) <= 1e-3 * Math.abs(b), `${what}: ${a} vs HF ${b}`);

function compareEntity(got, exp, what) {
  for (const key of ['entity', 'entity_group', 'index', 'word']) if (key in exp) assert.equal(got[key], exp[key], `${what}.${key}`);
  close(got.score, exp.score, `${what}.score`);
  for (const key of ['start', 'end']) {
    if (exp[key] === null) assert.equal(typeof got[key], 'number', `${what}.${key}`);
    else assert.equal(got[key], exp[key], `${what}.${key}`);
  }
  assert.deepEqual(Object.keys(got).sort(), Object.keys(exp).sort(), `${what}: fields`);
}

function compareAnswer(got, exp, context, what) {
  close(got.score, exp.score, `${what}.score`);
  if (exp.answer === '') {
    assert.deepEqual({ ...got, score: 0 }, { ...exp, score: 0 }, `${what}: the null answer`);
    return;
  }
  assert.equal(got.answer, context.slice(got.start, got.end), `${what}: answer is context.slice(start, end)`);
  assert.ok(got.start >= exp.start && got.end <= exp.end + 1 && context.slice(exp.start, exp.end + 1).includes(got.answer), `${what}: ${JSON.stringify(got.answer)} [${got.start}, ${got.end}) within HF's ${JSON.stringify(exp.answer)} [${exp.start}, ${exp.end}]`);
}

function compareFill(got, exp, what) {
  for (const key of ['token', 'token_str', 'sequence']) assert.equal(got[key], exp[key], `${what}.${key}`);
  close(got.score, exp.score, `${what}.score`);
}

function compareLabel(got, exp, what) {
  assert.equal(got.label, exp.label, `${what}.label`);
  close(got.score, exp.score, `${what}.score`);
}

/** Asserts that a pipeline's output matches HF's for one call of a case. */
export function compareCall(task, got, call, what) {
  const each = { 'token-classification': compareEntity, 'fill-mask': compareFill, 'text-classification': compareLabel }[task];
  const walk = (g, e, w, ctx) => {
    if (Array.isArray(e)) {
      assert.ok(Array.isArray(g), `${w}: expected a list, got ${JSON.stringify(g)?.slice(0, 80)}`);
      assert.equal(g.length, e.length, `${w}: length`);
      e.forEach((x, i) => walk(g[i], x, `${w}[${i}]`, Array.isArray(ctx) ? ctx[i] : ctx));
    } else {
      assert.ok(g && typeof g === 'object' && !Array.isArray(g), `${w}: expected an object, got ${JSON.stringify(g)?.slice(0, 80)}`);
      if (task === 'question-answering') compareAnswer(g, e, ctx, w);
      else each(g, e, w);
    }
  };
  const ctx = task === 'question-answering' ? (Array.isArray(call.input) ? call.input.map((x) => x.context) : call.input.context) : null;
  walk(got, call.expected, what, ctx);
}

/** Runs one fixture call through a pipeline function. */
export function runCall(pipe, task, call) {
  const options = camelOptions(call.options);
  if (task === 'question-answering' && !Array.isArray(call.input)) return pipe(call.input, options);
  return pipe(camelInput(call.input), options);
}
