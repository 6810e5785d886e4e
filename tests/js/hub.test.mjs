// Hub ids through rp.loadModel against a local imitation of the Hub (tests/support/hub-server.mjs,
// with a 302 to another origin for weight files):
//   - an id (and a revision) loads the same model as the folder on disk, byte-identical outputs;
//   - a missing repository, revision or file is an Error naming the URL; 500 / 403 / 401 name the URL
//     and the status; progress reaches every file;
//   - the id-vs-path rule (web/hub.js), including "an existing folder wins" under Node;
//   - the cache logic of web/cache.js over an in-memory Cache API (Node has none; the real one is
//     proven in Chromium by tests/browser/hub-cache.test.mjs): a second load needs no network and
//     says { cached: true }, cache: false never touches it, a download cut midway stores nothing.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { init, clearCache, CACHE_NAME } from '../../web/index.js';
import { isHubIdShape, hubRepo } from '../../web/hub.js';
import { sourceKind } from '../../web/sources.js';
import { startHubServer } from '../support/hub-server.mjs';
import { shardSafetensors } from '../support/shard.mjs';
import { ROOT } from './helpers.mjs';
import { FIXTURES, haveFixtures } from './safetensors.mjs';

const skip = haveFixtures ? false : `no fixtures at ${FIXTURES}`;
const rp = await init({ simd: 'auto' });
const fixture = (name) => join(FIXTURES, name);
const input = (name) => JSON.parse(readFileSync(join(fixture(name), 'input.json'), 'utf8'));
const run = (model, name) => {
  const { input_ids: inputIds, attention_mask: attentionMask } = input(name);
  return model.forward({ inputIds, attentionMask }, { outputHiddenStates: true }).lastHiddenState.data;
};

let hub;
const work = mkdtempSync(join(tmpdir(), 'relpos-hub-'));
before(async () => {
  if (skip) return;
  // a sharded copy of bert-absolute (model.safetensors.index.json + 2 shards), for the source layer
  const sharded = join(work, 'sharded');
  mkdirSync(sharded);
  writeFileSync(join(sharded, 'config.json'), readFileSync(join(fixture('bert-absolute'), 'config.json')));
  const { files } = shardSafetensors(new Uint8Array(readFileSync(join(fixture('bert-absolute'), 'model.safetensors'))));
  for (const [name, content] of Object.entries(files)) writeFileSync(join(sharded, name), content);
  hub = await startHubServer({
    repos: {
      'relpos-test/bert-absolute': fixture('bert-absolute'),
      'relpos-test/bert-absolute@v1': fixture('bert-relative-key'),
      'relpos-test/sharded': sharded,
      't5-a-classic': fixture('t5-a-classic'),
    },
  });
});
after(async () => {
  await hub?.close();
  rmSync(work, { recursive: true, force: true });
});

test('a Hub id loads through {host}/{id}/resolve/{revision}/{file} like the folder on disk, following the 302 of weight files', { skip }, async () => {
  const events = [];
  hub.requests.length = 0;
  const model = await rp.loadModel('relpos-test/bert-absolute', { host: hub.url, onProgress: (p) => events.push(p) });
  const local = await rp.loadModel(fixture('bert-absolute'));
  assert.deepEqual(run(model, 'bert-absolute'), run(local, 'bert-absolute'));
  const asked = hub.requests.map((r) => `${r.server} ${r.status} ${r.path}`);
  assert.ok(asked.includes('hub 302 /relpos-test/bert-absolute/resolve/main/model.safetensors'), asked.join('\n'));
  assert.ok(asked.includes('cdn 200 /lfs/relpos-test%2Fbert-absolute/main/model.safetensors'), asked.join('\n'));
  assert.ok(asked.includes('hub 200 /relpos-test/bert-absolute/resolve/main/config.json'), asked.join('\n'));
  // progress: every file that exists ends at its full size; nothing came from a cache under Node
  const size = readFileSync(join(fixture('bert-absolute'), 'model.safetensors')).length;
  // (BERT's safetensors stream: 'convert' events follow the file's bytes; the download's own events are the others)
  const last = (file) => events.filter((e) => e.file === file && e.stage !== 'convert').at(-1);
  assert.deepEqual(last('model.safetensors'), { file: 'model.safetensors', loaded: size, total: size, cached: false });
  assert.equal(last('config.json').loaded, last('config.json').total);
  assert.ok(events.every((e) => e.cached === false));
  model.dispose();
  local.dispose();
});

test('a single-part id and a revision resolve to their own files', { skip }, async () => {
  const t5 = await rp.loadModel('hf:t5-a-classic', { host: hub.url });
  const t5Local = await rp.loadModel(fixture('t5-a-classic'));
  assert.deepEqual(run(t5, 't5-a-classic'), run(t5Local, 't5-a-classic'));
  const v1 = await rp.loadModel('relpos-test/bert-absolute', { host: hub.url, revision: 'v1' });
  const v1Local = await rp.loadModel(fixture('bert-relative-key'));
  assert.deepEqual(run(v1, 'bert-relative-key'), run(v1Local, 'bert-relative-key'));
  assert.equal(v1.config.position_embedding_type, 'relative_key');
  for (const m of [t5, t5Local, v1, v1Local]) m.dispose();
});

test('a missing repository, revision or weights file is an Error naming the URL', { skip }, async () => {
  await assert.rejects(rp.loadModel('relpos-test/nothing-here', { host: hub.url }), {
    message: `config.json: not found at ${hub.url}/relpos-test/nothing-here/resolve/main/config.json (a model folder needs config.json and its weights)`,
  });
  await assert.rejects(rp.loadModel('relpos-test/bert-absolute', { host: hub.url, revision: 'refs/pr/7' }), {
    message: new RegExp(`^config\\.json: not found at ${hub.url}/relpos-test/bert-absolute/resolve/refs%2Fpr%2F7/config\\.json`),
  });
  const noWeights = hub.fail({ path: '/model.safetensors', status: 404, server: 'cdn' });
  try {
    await assert.rejects(rp.loadModel('relpos-test/bert-absolute', { host: hub.url }), /no weights found: tried, in order, model\.safetensors \(http:\/\/127\.0\.0\.1:\d+\/relpos-test\/bert-absolute\/resolve\/main\/model\.safetensors\), .*pytorch_model\.bin\.index\.json \+ shards/);
  } finally {
    noWeights();
  }
});

test('a 500, a 403 behind the redirect and a 401 are Errors with the URL and the status', { skip }, async () => {
  const base = `${hub.url}/relpos-test/bert-absolute/resolve/main`;
  let undo = hub.fail({ path: '/config.json', status: 500 });
  await assert.rejects(rp.loadModel('relpos-test/bert-absolute', { host: hub.url }), { message: `config.json: could not fetch ${base}/config.json: HTTP 500` });
  undo();
  undo = hub.fail({ path: '/model.safetensors', status: 403, server: 'cdn' });
  await assert.rejects(rp.loadModel('relpos-test/bert-absolute', { host: hub.url }), {
    message: `model.safetensors: could not fetch ${base}/model.safetensors: HTTP 403 (redirected to ${hub.cdnUrl}/lfs/relpos-test%2Fbert-absolute/main/model.safetensors)`,
  });
  undo();
  undo = hub.fail({ path: '/config.json', status: 401 });
  await assert.rejects(rp.loadModel('relpos-test/bert-absolute', { host: hub.url }), /HTTP 401 \(the Hub answers 401 when the repository does not exist, is private or is gated/);
  undo();
  // a host nobody listens on: the URL and the network error
  await assert.rejects(rp.loadModel('relpos-test/bert-absolute', { host: 'http://127.0.0.1:1' }), /^Error: config\.json: could not fetch http:\/\/127\.0\.0\.1:1\/relpos-test\/bert-absolute\/resolve\/main\/config\.json: fetch failed/);
});

test('the sharded layout is served file by file (index + shards through the redirect)', { skip }, async () => {
  const { openSource } = await import('../../web/sources.js');
  const src = await openSource('relpos-test/sharded', { host: hub.url });
  const index = JSON.parse(await src.text('model.safetensors.index.json'));
  const shards = [...new Set(Object.values(index.weight_map))];
  assert.deepEqual(shards, ['model-00001-of-00002.safetensors', 'model-00002-of-00002.safetensors']);
  for (const name of shards) {
    const parts = [];
    let total;
    assert.equal(await src.bytes(name, { start: (t) => (total = t), write: (c) => parts.push(Buffer.from(c)) }), true);
    const expected = readFileSync(join(work, 'sharded', name));
    assert.equal(total, expected.length);
    assert.ok(Buffer.concat(parts).equals(expected), name);
  }
  assert.equal(await src.bytes('model.safetensors', { start() {}, write() {} }), false, 'absent → false');
  assert.equal(await src.text('pytorch_model.bin.index.json'), null, 'absent → null');
});

// Every weight layout by id: the 404s of the layouts before it move loading on, the shards come
// through the CDN redirect, progress ends at every file's size, and the outputs are the folder's.
const VARIANTS = join(ROOT, 'build', 'checkpoint-variants', 'bert-absolute');
const ID_LAYOUTS = { 'safetensors-sharded': ['model.safetensors'], 'bin-f32': ['model.safetensors', 'model.safetensors.index.json'],
  'bin-sharded': ['model.safetensors', 'model.safetensors.index.json', 'pytorch_model.bin'] };
const noVariants = existsSync(VARIANTS) ? skip : 'run /usr/bin/python3 scripts/make-checkpoint-variants.py first';
test('sharded safetensors, pytorch_model.bin and sharded .bin load by id after the 404s of the layouts before them', { skip: noVariants }, async () => {
  const local = await rp.loadModel(fixture('bert-absolute'));
  const expected = run(local, 'bert-absolute');
  local.dispose();
  const layoutHub = await startHubServer({
    repos: Object.fromEntries(Object.keys(ID_LAYOUTS).map((l) => [`relpos-test/${l}`, join(VARIANTS, l)])),
  });
  try {
    for (const [layout, absent] of Object.entries(ID_LAYOUTS)) {
      layoutHub.requests.length = 0;
      const events = [];
      const model = await rp.loadModel(`relpos-test/${layout}`, { host: layoutHub.url, onProgress: (p) => events.push(p) });
      assert.deepEqual(run(model, 'bert-absolute'), expected, layout);
      model.dispose();
      const asked = layoutHub.requests.map((r) => `${r.server} ${r.status} ${r.path}`);
      for (const file of absent)
        assert.ok(asked.includes(`hub 404 /relpos-test/${layout}/resolve/main/${file}`), `${layout}: ${file} asked first\n${asked.join('\n')}`);
      const weightFiles = readdirSync(join(VARIANTS, layout)).filter((f) => /\.(bin|safetensors)$/.test(f));
      for (const file of weightFiles) {
        assert.ok(asked.includes(`cdn 200 /lfs/relpos-test%2F${layout}/main/${file}`), `${layout}: ${file} via the redirect\n${asked.join('\n')}`);
        const last = events.filter((e) => e.file === file && e.stage !== 'convert').at(-1);
        const size = statSync(join(VARIANTS, layout, file)).size;
        assert.deepEqual(last, { file, loaded: size, total: size, cached: false }, `${layout}: progress of ${file}`);
      }
    }
  } finally {
    await layoutHub.close();
  }
});

test('which strings are Hub ids: the shape, hf:, host/revision, and an existing folder under Node', async () => {
  for (const id of ['bert-base-uncased', 'microsoft/deberta-v3-xsmall', 'a/b', 'Org_1/model.v2', '_x/y_'])
    assert.equal(isHubIdShape(id), true, id);
  for (const notId of ['./m', '/m', 'm/', 'a/b/c', '../m', 'a//b', 'C:\\m', 'http://x/m', '-m', 'm.', 'a--b', 'a..b', 'a b', 'é/x', '', 'x'.repeat(97)])
    assert.equal(isHubIdShape(notId), false, notId);
  const browser = (s, o) => sourceKind(s, o, null);
  assert.equal(await browser('owner/name'), 'hub');
  assert.equal(await browser('models/bert/'), 'url');
  assert.equal(await browser('./models/bert'), 'url');
  assert.equal(await browser('/models/bert'), 'url');
  assert.equal(await browser('https://example.com/m'), 'url');
  assert.equal(await browser('./x', { host: 'https://h' }), 'hub'); // forced: then rejected as not an id
  const node = { fs: await import('node:fs/promises') };
  const cwd = process.cwd();
  const dir = mkdtempSync(join(tmpdir(), 'relpos-cwd-'));
  try {
    process.chdir(dir);
    mkdirSync('owner/name', { recursive: true });
    assert.equal(await sourceKind('owner/name', {}, node), 'folder', 'an existing folder wins');
    assert.equal(await sourceKind('owner/other', {}, node), 'hub');
    assert.equal(await sourceKind('hf:owner/name', {}, node), 'hub');
    assert.equal(await sourceKind('owner/name', { revision: 'main' }, node), 'hub');
    assert.equal(await sourceKind('a/b/c', {}, node), 'folder');
  } finally {
    process.chdir(cwd);
    rmSync(dir, { recursive: true, force: true });
  }
  assert.equal(hubRepo('owner/name').url('config.json'), 'https://huggingface.co/owner/name/resolve/main/config.json');
  assert.equal(hubRepo('hf:n', { host: 'https://mirror.example/hub/', revision: 'v 1' }).url('sub/f.json'), 'https://mirror.example/hub/n/resolve/v%201/sub/f.json');
  await assert.rejects(rp.loadModel('./m', { host: 'https://h' }), { name: 'TypeError', message: /"\.\/m" is not a Hub id.*host and revision apply only to Hub ids/ });
  await assert.rejects(rp.loadModel('hf:a/b/c'), { name: 'TypeError', message: /is not a Hub id/ });
  await assert.rejects(rp.loadModel({ 'config.json': '{}' }, { revision: 'main' }), { name: 'TypeError', message: /host and revision apply only to Hub ids/ });
  await assert.rejects(rp.loadModel('a/b', { host: 'ftp://x' }), { name: 'TypeError', message: /host: expected an http\(s\) URL/ });
  await assert.rejects(rp.loadModel('a/b', { revision: '' }), { name: 'TypeError', message: /revision: expected a branch/ });
  await assert.rejects(rp.loadModel('a/b', { cache: 'yes' }), { name: 'TypeError', message: /cache: expected true or false/ });
});

test('an existing folder named like an id still loads from disk', { skip }, async () => {
  const cwd = process.cwd();
  const dir = mkdtempSync(join(tmpdir(), 'relpos-cwd-'));
  try {
    process.chdir(dir);
    mkdirSync('relpos-test/bert-absolute', { recursive: true });
    for (const f of ['config.json', 'model.safetensors']) writeFileSync(join('relpos-test/bert-absolute', f), readFileSync(join(fixture('bert-absolute'), f)));
    hub.requests.length = 0;
    const model = await rp.loadModel('relpos-test/bert-absolute');
    assert.equal(hub.requests.length, 0);
    model.dispose();
  } finally {
    process.chdir(cwd);
    rmSync(dir, { recursive: true, force: true });
  }
});

// ---- the cache logic, over an in-memory stand-in of the Cache API --------------------------------

/** A minimal CacheStorage: put() reads the whole body and rejects (storing nothing) if it errors. */
function memoryCaches() {
  const stores = new Map();
  const calls = [];
  const key = (u) => (typeof u === 'object' && u.url ? u.url : String(u));
  const makeCache = (entries) => ({
    async match(url) {
      calls.push(['match', url]);
      const e = entries.get(key(url));
      return e ? new Response(e.body.slice(), { status: e.status, headers: e.headers }) : undefined;
    },
    async put(url, response) {
      calls.push(['put', url]);
      const body = response.body ? new Uint8Array(await response.arrayBuffer()) : new Uint8Array(0);
      entries.set(key(url), { body, status: response.status, headers: [...response.headers] });
    },
    async delete(url) {
      return entries.delete(key(url));
    },
    async keys() {
      return [...entries.keys()].map((u) => new Request(u));
    },
  });
  return {
    calls,
    stores,
    async open(name) {
      calls.push(['open', name]);
      if (!stores.has(name)) stores.set(name, new Map());
      return makeCache(stores.get(name));
    },
    async has(name) {
      return stores.has(name);
    },
    async delete(name) {
      return stores.delete(name);
    },
  };
}

test('with a Cache API: the second load reads every file from it (no request), events say cached, clearCache empties it', { skip }, async () => {
  const caches = memoryCaches();
  globalThis.caches = caches;
  try {
    const first = await rp.loadModel('relpos-test/bert-absolute', { host: hub.url });
    const entries = caches.stores.get(CACHE_NAME);
    const base = `${hub.url}/relpos-test/bert-absolute/resolve/main`;
    assert.ok(entries.has(`${base}/config.json`) && entries.has(`${base}/model.safetensors`), [...entries.keys()].join('\n'));
    assert.equal(entries.get(`${base}/tokenizer.json`)?.status, 404, 'a 404 is recorded as absent');
    hub.requests.length = 0;
    const events = [];
    const second = await rp.loadModel('relpos-test/bert-absolute', { host: hub.url, onProgress: (p) => events.push(p) });
    assert.deepEqual(hub.requests, [], 'no network');
    assert.deepEqual(run(second, 'bert-absolute'), run(first, 'bert-absolute'));
    const size = readFileSync(join(fixture('bert-absolute'), 'model.safetensors')).length;
    assert.deepEqual(events.filter((e) => e.file === 'model.safetensors' && e.stage !== 'convert').at(-1), { file: 'model.safetensors', loaded: size, total: size, cached: true });
    assert.ok(events.length > 0 && events.every((e) => e.cached === true));
    assert.equal(await rp.clearCache(), 2, 'config.json and model.safetensors (absent records are not files)');
    assert.equal(caches.stores.has(CACHE_NAME), false);
    assert.equal(await clearCache(), 0);
    first.dispose();
    second.dispose();
  } finally {
    delete globalThis.caches;
  }
});

test('cache: false never opens the cache; URL prefixes are cached only with cache: true; errors are not stored', { skip }, async () => {
  const caches = memoryCaches();
  globalThis.caches = caches;
  try {
    (await rp.loadModel('relpos-test/bert-absolute', { host: hub.url, cache: false })).dispose();
    assert.deepEqual(caches.calls, []);
    const prefix = `${hub.url}/relpos-test/bert-absolute/resolve/main/`;
    (await rp.loadModel(prefix)).dispose();
    assert.deepEqual(caches.calls, [], 'a URL prefix is not cached by default');
    (await rp.loadModel(prefix, { cache: true })).dispose();
    assert.ok(caches.stores.get(CACHE_NAME).has(`${prefix}model.safetensors`));
    await clearCache();
    const undo = hub.fail({ path: '/model.safetensors', status: 500, server: 'cdn' });
    await assert.rejects(rp.loadModel('relpos-test/bert-absolute', { host: hub.url }), /HTTP 500/);
    undo();
    assert.equal(caches.stores.get(CACHE_NAME).has(`${prefix}model.safetensors`), false);
  } finally {
    delete globalThis.caches;
  }
});

test('a download cut midway fails with the URL and leaves no cache entry', { skip }, async () => {
  const caches = memoryCaches();
  globalThis.caches = caches;
  const undo = hub.fail({ path: '/model.safetensors', cut: true, server: 'cdn' });
  try {
    await assert.rejects(rp.loadModel('relpos-test/bert-absolute', { host: hub.url }), /model\.safetensors: the download of http:\/\/127\.0\.0\.1:\d+\/relpos-test\/bert-absolute\/resolve\/main\/model\.safetensors failed after \d+ bytes/);
    const entries = caches.stores.get(CACHE_NAME);
    assert.ok(entries.has(`${hub.url}/relpos-test/bert-absolute/resolve/main/config.json`));
    assert.equal(entries.has(`${hub.url}/relpos-test/bert-absolute/resolve/main/model.safetensors`), false);
  } finally {
    undo();
    delete globalThis.caches;
  }
  assert.ok(existsSync(join(ROOT, 'web/cache.js')));
});

test('a missing repository is not remembered as absent; a load abandoned by the caller stops the download and stores nothing', { skip }, async () => {
  const caches = memoryCaches();
  globalThis.caches = caches;
  try {
    await assert.rejects(rp.loadModel('relpos-test/not-yet', { host: hub.url }), /config\.json: not found/);
    assert.equal(caches.stores.get(CACHE_NAME)?.size ?? 0, 0);
    const { openSource } = await import('../../web/sources.js');
    const src = await openSource('relpos-test/bert-absolute', { host: hub.url });
    const refused = new RangeError('too big for this test');
    await assert.rejects(src.bytes('model.safetensors', { start() {}, write() { throw refused; } }), (e) => e === refused);
    await new Promise((r) => setTimeout(r, 100)); // give a (wrongly) continuing download time to land
    assert.equal(caches.stores.get(CACHE_NAME).has(`${hub.url}/relpos-test/bert-absolute/resolve/main/model.safetensors`), false);
  } finally {
    delete globalThis.caches;
  }
});
