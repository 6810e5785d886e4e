// Hub ids and the browser cache in Chromium, against the local Hub imitation
// (tests/support/hub-server.mjs: the hub and its CDN are two more origins than the page's):
//   - the demo's "Load a real Hugging Face model" panel loads by id + host with a row per file, and a
//     second load says every file came from the browser cache, with no request to the hub;
//   - rp.loadModel(id, { host }) in the page gives the same outputs as Node loading the folder; a
//     download cut midway fails and leaves no Cache API entry for that file;
//   - with the hub server stopped and the page reloaded, the model loads again from the Cache API with
//     identical outputs and progress marked cached; rp.clearCache() empties it and the next load fails
//     with an Error naming the URL.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { checkPackage, launch, openDemo, ROOT, shot, startServer } from './helpers.mjs';
import { startHubServer } from '../support/hub-server.mjs';
import { init } from '../../web/index.js';

const FIXTURES = process.env.RELPOS_HF_FIXTURES ?? join(ROOT, '..', 'shared', 'fixtures', 'hf');
const CASE = 'bert-absolute';
const ID = `relpos-test/${CASE}`;
const input = JSON.parse(readFileSync(join(FIXTURES, CASE, 'input.json'), 'utf8'));
const missing = checkPackage();

/** In the page: load `id` from `host` with the package, run the fixture input; outputs and events. */
async function loadInPage(page, args) {
  return page.evaluate(async ({ id, host, input, cache }) => {
    const m = await import('/web/index.js');
    const rp = await m.init({ simd: true });
    const events = [];
    try {
      const model = await rp.loadModel(id, { host, cache, onProgress: (p) => events.push(p) });
      const out = model.forward({ inputIds: input.input_ids, attentionMask: input.attention_mask });
      model.dispose();
      return { data: Array.from(out.lastHiddenState.data), events };
    } catch (e) {
      return { error: `${e.name}: ${e.message}`, events };
    }
  }, args);
}

describe('Hub ids and the browser cache (Chromium)', () => {
  let server, browser, page, hub, reference;
  before(async () => {
    if (missing) throw new Error(missing);
    hub = await startHubServer({ repos: { [ID]: join(FIXTURES, CASE), 'relpos-test/cut': join(FIXTURES, CASE) } });
    server = await startServer();
    browser = await launch({ width: 1280, height: 900 });
    page = browser.page;
    await openDemo(page, server.url);
    const rp = await init({ simd: true });
    const model = await rp.loadModel(join(FIXTURES, CASE));
    reference = Array.from(model.forward({ inputIds: input.input_ids, attentionMask: input.attention_mask }).lastHiddenState.data);
    model.dispose();
  });
  after(async () => {
    await browser?.close();
    server?.close();
    await hub?.close();
  });

  it('the demo panel loads a Hub id with a row per file, then again from the browser cache', async () => {
    await page.locator('#encoder details.real-model summary').click();
    await page.locator('#encoder input[name=enc-hub-id]').fill(ID);
    await page.locator('#encoder input[name=enc-hub-host]').fill(hub.url);
    const status = '#encoder details.real-model [role=status]';
    const loadOnce = async () => {
      await page.locator('#encoder button', { hasText: 'Load from the Hub' }).click();
      await page.waitForFunction((s) => /^Loaded|error|Error|not found/i.test(document.querySelector(s).textContent), status, { timeout: 60000 });
      return page.textContent(status);
    };
    assert.match(await loadOnce(), /^Loaded bert: 2 layers, 2 heads, hidden 32\.$/);
    const rows = () => page.$$eval('#encoder table.load-files tbody tr', (trs) => trs.map((tr) => Array.from(tr.children, (c) => c.textContent)));
    const size = readFileSync(join(FIXTURES, CASE, 'model.safetensors')).length.toLocaleString('en');
    const first = await rows();
    assert.deepEqual(first.map((r) => r[0]), ['config.json', 'model.safetensors']);
    assert.deepEqual(first[1], ['model.safetensors', `${size} / ${size}`, 'network']);
    hub.requests.length = 0;
    assert.match(await loadOnce(), /All files came from the browser cache\.$/);
    assert.deepEqual((await rows()).map((r) => r[2]), ['browser cache', 'browser cache']);
    assert.deepEqual(hub.requests, [], 'no request reached the hub');
    await shot(page, 'hub-cache-panel', '#encoder details.real-model');
    assert.equal(await page.evaluate(async () => (await import('/web/index.js')).clearCache()), 2);
  });

  it('rp.loadModel(id, { host }) in the page matches Node; a download cut midway stores nothing', async () => {
    const first = await loadInPage(page, { id: ID, host: hub.url, input });
    assert.equal(first.error, undefined, first.error);
    assert.deepEqual(first.data, reference);
    assert.ok(first.events.length > 0 && first.events.every((e) => e.cached === false));
    const undo = hub.fail({ path: '/lfs/relpos-test%2Fcut/main/model.safetensors', cut: true, server: 'cdn' });
    const cut = await loadInPage(page, { id: 'relpos-test/cut', host: hub.url, input });
    undo();
    assert.match(cut.error, /^Error: model\.safetensors: the download of http:\/\/127\.0\.0\.1:\d+\/relpos-test\/cut\/resolve\/main\/model\.safetensors failed after \d+ bytes/);
    const stored = await page.evaluate(async (base) => {
      const c = await caches.open('relpos-files-v1');
      return { config: !!(await c.match(`${base}/config.json`)), weights: !!(await c.match(`${base}/model.safetensors`)) };
    }, `${hub.url}/relpos-test/cut/resolve/main`);
    assert.deepEqual(stored, { config: true, weights: false });
  });

  it('with the hub stopped and the page reloaded, the model loads from the Cache API; after clearCache the load fails naming the URL', async () => {
    const host = hub.url;
    await hub.close();
    hub = null;
    await page.reload();
    await page.waitForFunction(() => globalThis.relposDemo?.ready || globalThis.relposDemo?.error, null, { timeout: 60000 });
    const again = await loadInPage(page, { id: ID, host, input });
    assert.equal(again.error, undefined, again.error);
    assert.deepEqual(again.data, reference);
    const size = readFileSync(join(FIXTURES, CASE, 'model.safetensors')).length;
    assert.ok(again.events.every((e) => e.cached === true), JSON.stringify(again.events));
    // (BERT's safetensors stream: 'convert' events follow the file's bytes; the read's own events are the others)
    const read = again.events.filter((e) => e.file === 'model.safetensors' && e.stage !== 'convert');
    assert.deepEqual(read.at(-1), { file: 'model.safetensors', loaded: size, total: size, cached: true });
    // cache: false goes to the network, which is down
    const uncached = await loadInPage(page, { id: ID, host, input, cache: false });
    assert.match(uncached.error, /could not fetch/);
    const removed = await page.evaluate(async () => (await (await import('/web/index.js')).init({ simd: true })).clearCache());
    assert.equal(removed, 3, 'config.json and model.safetensors of bert-absolute, config.json of the cut repo');
    const gone = await loadInPage(page, { id: ID, host, input });
    assert.equal(gone.error, `Error: config.json: could not fetch ${host}/${ID}/resolve/main/config.json: Failed to fetch`);
  });
});
