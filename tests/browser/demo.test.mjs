// The demo page in Chromium at 1280×800: what each section computes, no console errors, and a
// screenshot of every section in tests/browser/screenshots/.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkPackage, launch, openDemo, shot, startServer } from './helpers.mjs';
import { makeCheckpoint } from '../../demo/model/checkpoints.js';

const missing = checkPackage();

describe('demo page (1280×800)', { skip: false }, () => {
  let server, browser, page;
  before(async () => {
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

  it('loads the package and says which build runs', async () => {
    const text = await page.textContent('#status');
    assert.match(text, /relpos loaded: (WebAssembly SIMD128 build|WebAssembly scalar build|JS stand-in)/);
    await shot(page, '0-header', 'header');
  });

  it('explorer reproduces Shaw’s table for 10 tokens and k = 3', async () => {
    const t = await page.evaluate(() => {
      const { data, rows, cols } = globalThis.relposDemo.explorer.last;
      return { rows, cols, first: Array.from(data.slice(0, cols)), last: Array.from(data.slice((rows - 1) * cols)) };
    });
    assert.equal(t.rows, 10);
    assert.deepEqual(t.first, [3, 4, 5, 6, 6, 6, 6, 6, 6, 6]);
    assert.deepEqual(t.last, [0, 0, 0, 0, 0, 0, 0, 1, 2, 3]);
    assert.match(await page.textContent('#explorer .summary'), /Row 0: \[3, 4, 5, 6, 6, 6, 6, 6, 6, 6\]/);
    await shot(page, '1-explorer-shaw', '#explorer');
  });

  it('explorer’s sliding window shows rp.attention’s band: probabilities 0 outside |i − j| ≤ w', async () => {
    await page.locator('#explorer input[name=explorer-windowOn]').check();
    await page.locator('#explorer input[name=explorer-window]').fill('2');
    await page.waitForTimeout(300);
    assert.equal(await page.locator('#explorer .error').count(), 0);
    const w = await page.evaluate(() => {
      const { probs, n, window } = globalThis.relposDemo.explorer.window;
      return { probs: Array.from(probs), n, window };
    });
    assert.equal(w.window, 2);
    for (let i = 0; i < w.n; i++) {
      let sum = 0;
      for (let j = 0; j < w.n; j++) {
        const p = w.probs[i * w.n + j];
        if (Math.abs(i - j) > 2) assert.equal(p, 0, `p(${i}, ${j})`);
        sum += p;
      }
      assert.ok(Math.abs(sum - 1) < 1e-5, `row ${i} sums to ${sum}`);
    }
    assert.match(await page.textContent('#explorer .summary'), /Window 2: .* pairs inside \|i − j\| ≤ 2; the banded schedule computes/);
    await shot(page, '1-explorer-window', '#explorer');
    await page.locator('#explorer input[name=explorer-windowOn]').uncheck();
    await page.waitForTimeout(300);
  });

  it('explorer hover and arrow keys read cells', async () => {
    const canvas = page.locator('#explorer canvas').first();
    await canvas.focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    assert.match(await page.textContent('#explorer .readout'), /i = 0, j = 2: 5/);
    const box = await canvas.boundingBox();
    await page.mouse.move(box.x + box.width * 0.95, box.y + box.height * 0.1);
    assert.match(await page.textContent('#explorer .readout'), /i = \d+, j = \d+: \d+/);
  });

  it('explorer draws every scheme without errors', async () => {
    const select = page.locator('#explorer select[name=explorer-scheme]');
    for (const scheme of ['bert-relative', 't5', 'deberta', 'alibi', 'rope', 'sinusoidal']) {
      await select.selectOption(scheme);
      await page.waitForTimeout(50);
      assert.equal(await page.locator('#explorer .error').count(), 0, `${scheme}: ${await page.locator('#explorer .error').allTextContents()}`);
      assert.ok((await page.locator('#explorer canvas, #explorer svg').count()) >= 1, scheme);
      await shot(page, `1-explorer-${scheme}`, '#explorer');
    }
    const alibi = await (async () => {
      await select.selectOption('alibi');
      return page.evaluate(() => Array.from(globalThis.relposDemo.explorer.last.slopes));
    })();
    assert.equal(alibi.length, 8);
    assert.ok(Math.abs(alibi[0] - 0.5) < 1e-6 && Math.abs(alibi[7] - 2 ** -8) < 1e-9, `BLOOM slopes for 8 heads: ${alibi}`);
    await select.selectOption('shaw');
  });

  it('without positions the two “I” outputs are identical; with every scheme they differ', async (t) => {
    const all = await page.evaluate(() => globalThis.relposDemo.why.results);
    const r = all.filter((x) => !x.unavailable);
    const missing = all.filter((x) => x.unavailable).map((x) => x.type);
    if (missing.length) t.diagnostic(`schemes not in this build of the package: ${missing.join(', ')}`);
    const byType = Object.fromEntries(r.map((x) => [x.type, x]));
    assert.equal(byType.none.error, undefined);
    assert.equal(byType.none.maxDiff, 0);
    assert.ok(Math.abs(byType.none.cosine - 1) < 1e-6);
    // ALiBi's m·(j − i) without a causal mask is position-blind for a query row (see the page's note)
    assert.ok(byType['alibi-nonsymmetric'].maxDiff < 1e-6, `alibi m(j − i): ${byType['alibi-nonsymmetric'].maxDiff}`);
    for (const x of r.filter((x) => x.type !== 'none' && x.type !== 'alibi-nonsymmetric')) {
      assert.equal(x.error, undefined, `${x.type}: ${x.error}`);
      assert.ok(x.finite, x.type);
      assert.ok(x.maxDiff > 1e-5, `${x.type}: the two I outputs should differ (max diff ${x.maxDiff})`);
      assert.ok(x.cosine < 1 - 1e-6, `${x.type}: cosine ${x.cosine}`);
    }
    await shot(page, '2-why', '#why');
  });

  it('DeBERTa, Transformer-XL and T5 terms add up to the softmax the kernel used', async (t) => {
    const select = page.locator('#inside select[name=inside-scheme]');
    const offered = await select.locator('option').evaluateAll((os) => os.map((o) => o.value));
    const expect = { deberta: ['content', 'c2p', 'p2c'], 'transformer-xl': null, t5: ['content'] };
    const missing = Object.keys(expect).filter((s) => !offered.includes(s));
    if (missing.length) t.diagnostic(`not in this build of the package: ${missing.join(', ')}`);
    assert.ok(offered.length >= 1, 'at least one scheme with terms');
    for (const [scheme, names] of Object.entries(expect).filter(([s]) => offered.includes(s))) {
      await select.selectOption(scheme);
      await page.waitForFunction(() => true);
      await page.waitForTimeout(300);
      const s = await page.evaluate(() => ({ ...globalThis.relposDemo.inside }));
      assert.equal(s.error, undefined, `${scheme}: ${s.error}`);
      assert.ok(s.terms.length >= 2, `${scheme}: terms ${s.terms}`);
      if (names) for (const n of names) assert.ok(s.terms.includes(n), `${scheme}: missing term ${n} in ${s.terms}`);
      assert.ok(s.softmaxError < 1e-4, `${scheme}: ${s.softmaxError}`);
      await shot(page, `3-inside-${scheme}`, '#inside');
    }
    await select.selectOption(offered[0]);
  });

  it('the encoder section runs its random-weight model in the worker with finite outputs of the right shape', async () => {
    await page.waitForFunction(() => globalThis.relposDemo.encoder.runs >= 1, null, { timeout: 60000 });
    const r = await page.evaluate(() => {
      const l = globalThis.relposDemo.encoder.last;
      return { shape: l.shape, n: l.hidden.length, finite: Array.from(l.hidden).every(Number.isFinite), tokens: l.tokens, layers: l.layers.length, probsLen: l.layers[0].probs.length, rowSum: Array.from(l.layers[0].probs.slice(0, l.shape[0])).reduce((a, b) => a + b, 0) };
    });
    assert.deepEqual(r.tokens.slice(0, 3), ['[CLS]', 'the', 'cat']);
    assert.equal(r.shape[0], r.tokens.length);
    assert.equal(r.shape[1], 64);
    assert.equal(r.n, r.shape[0] * 64);
    assert.ok(r.finite);
    assert.equal(r.layers, 2);
    assert.equal(r.probsLen, 4 * r.shape[0] * r.shape[0]);
    assert.ok(Math.abs(r.rowSum - 1) < 1e-4, `attention row sums to ${r.rowSum}`);
    assert.equal(await page.locator('#encoder .encoder-out tbody tr').count(), 2, 'SIMD and scalar timings');
    // run again with another scheme through the controls (keyboard: select, then Enter on the button)
    await page.locator('#encoder select[name=enc-scheme]').selectOption('t5');
    await page.locator('#encoder button', { hasText: 'Run encoder' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => globalThis.relposDemo.encoder.runs >= 2, null, { timeout: 60000 });
    await shot(page, '4-encoder', '#encoder');
  });

  it('a missing model file gets a clear message', async () => {
    await page.locator('#encoder details summary').click();
    await page.locator('#encoder button', { hasText: 'Load selected files' }).click();
    assert.match(await page.textContent('#encoder details [role=status]'), /Missing config\.json, model\.safetensors, tokenizer\.json/);
    await page.locator('#encoder input[type=url]').fill('http://127.0.0.1:1/nowhere/');
    await page.locator('#encoder button', { hasText: 'Load from URL' }).click();
    await page.waitForFunction(() => document.querySelector('#encoder details [role=status]').textContent.length > 0 && !/^Loading/.test(document.querySelector('#encoder details [role=status]').textContent));
    const msg = await page.textContent('#encoder details [role=status]');
    assert.ok(msg.length > 10, msg);
    await shot(page, '4-encoder-load', '#encoder details');
  });

  it('a model folder picked as local files loads, runs, and its forward time is a median with min–max and run count', async () => {
    // the demo's own generated BERT checkpoint (config.json, model.safetensors, tokenizer.json), as a user would pick it
    const files = Object.entries(makeCheckpoint('bert-absolute', { layers: 2 })).map(([name, body]) => ({
      name, mimeType: name.endsWith('.json') ? 'application/json' : 'application/octet-stream', buffer: Buffer.from(body),
    }));
    await page.locator('#encoder #enc-files').setInputFiles(files);
    await page.locator('#encoder button', { hasText: 'Load selected files' }).click();
    const status = '#encoder details.real-model [role=status]';
    await page.waitForFunction((s) => /^Loaded|error|Error/.test(document.querySelector(s).textContent), status, { timeout: 60000 });
    assert.match(await page.textContent(status), /^Loaded bert: 2 layers, 4 heads, hidden 64\.$/);
    await page.locator('#encoder button', { hasText: 'Run the loaded model on the text above' }).click();
    const timing = page.locator('#encoder details.real-model p.model-timing');
    await timing.waitFor({ timeout: 60000 });
    assert.match(await timing.textContent(), /^Output \[1,13,64\], all finite\. model\.forward: median [\d.]+ ms \([\d.]+–[\d.]+ ms, \d+ runs( × \d+ calls)?\) on the (SIMD128|scalar) build, \d+ threads?\.$/);
    const median = Number(await timing.locator('.median').textContent());
    const [lo, hi] = (await timing.locator('.range').textContent()).split('–').map(Number);
    const runs = Number((await timing.locator('.runs').textContent()).split(' ')[0]);
    assert.ok(lo <= median && median <= hi, `median ${median} outside ${lo}–${hi}`);
    assert.ok(runs >= 5, `${runs} runs`);
    await shot(page, '4-encoder-local-files', '#encoder details');
  });

  it('the benchmark finishes for every scheme and plots it', async () => {
    await page.locator('#bench input[name=bench-lengths]').fill('16, 32, 64');
    await page.locator('#bench button', { hasText: 'Run benchmark' }).click();
    await page.waitForFunction(() => globalThis.relposDemo.bench.result && !globalThis.relposDemo.bench.running, null, { timeout: 120000 });
    const r = await page.evaluate(() => globalThis.relposDemo.bench.result);
    const schemes = await page.evaluate(() => globalThis.relposDemo.rp.schemes ?? null);
    assert.deepEqual(r.lengths, [16, 32, 64]);
    const expected = ['none', 'sinusoidal', 'learned-absolute', 'shaw', 'bert-relative', 'huang', 'transformer-xl', 't5', 'deberta', 'rope', 'alibi'].filter((s) => !schemes || schemes.includes(s));
    assert.deepEqual(r.results.map((x) => x.type), expected);
    for (const x of r.results) {
      assert.equal(x.error, null, `${x.type}: ${x.error}`);
      for (const ms of x.ms) assert.ok(Number.isFinite(ms) && ms >= 0, `${x.type}: ${x.ms}`);
    }
    assert.equal(await page.locator('#bench svg polyline').count(), expected.length);
    // every time shown is a median with its fastest–slowest run and run count beside it
    const spreads = await page.locator('#bench .bench-table td small.spread').allTextContents();
    assert.equal(spreads.length, expected.length * 3);
    for (const s of spreads) assert.match(s, /^\d+(\.\d+)?–\d+(\.\d+)? · \d+ runs( × \d+ calls)?$/);
    for (const x of r.results) for (const t of x.timing) assert.ok(t.runs >= 5 && t.min <= t.median && t.median <= t.max, `${x.type}: ${JSON.stringify(t)}`);
    await shot(page, '5-bench', '#bench');
  });

  it('logs no console errors', async () => {
    // the deliberate failing URL load above logs a network error; anything else is a bug
    const errors = browser.errors.filter((e) => !/127\.0\.0\.1:1\/|ERR_CONNECTION_REFUSED|Failed to load resource/.test(e));
    assert.deepEqual(errors, []);
    await shot(page, 'full-page');
  });
});
