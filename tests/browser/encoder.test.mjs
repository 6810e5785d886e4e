// The encoder section in Chromium: schemes with a Hugging Face model family run a generated
// random-weight checkpoint through rp.loadModel + model.forward (the C++ model layer), every family
// offered for every such scheme; a scheme without one runs the JavaScript-assembled encoder and says
// so; every timing shown is a median with its min–max and run count; tiny inputs carry the
// fixed-overhead note and the 256-token input runs.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkPackage, launch, openDemo, shot, startServer } from './helpers.mjs';

const RUNS = /^\d+ runs( × \d+ calls)?$/;
const NUMBER = String.raw`\d+(\.\d+)?`;
const RANGE = new RegExp(`^${NUMBER}–${NUMBER}$`);

describe('encoder section (1280×800)', () => {
  let server, browser, page;
  before(async () => {
    const missing = checkPackage();
    if (missing) throw new Error(missing);
    server = await startServer();
    browser = await launch({ width: 1280, height: 800 });
    page = browser.page;
    await openDemo(page, server.url);
    await page.waitForFunction(() => globalThis.relposDemo.encoder.runs >= 1, null, { timeout: 90000 });
  });
  after(async () => {
    await browser?.close();
    server?.close();
  });

  const runs = () => page.evaluate(() => globalThis.relposDemo.encoder.runs);
  async function runEncoder() {
    const before = await runs();
    await page.locator('#encoder button', { hasText: 'Run encoder' }).click();
    await page.waitForFunction((n) => globalThis.relposDemo.encoder.runs > n, before, { timeout: 90000 });
    const err = await page.locator('#encoder .encoder-out .error').allTextContents();
    assert.deepEqual(err, []);
  }
  /** Every row of the timing table: { variant, cells: [{ median, range, runs }] }. */
  const timingRows = () =>
    page.locator('#encoder table.timing-table tbody tr').evaluateAll((trs) =>
      trs.map((tr) => ({
        variant: tr.dataset.variant,
        cells: [...tr.querySelectorAll('td.median')].map((m) => {
          const part = [...m.classList].find((c) => c !== 'median');
          const td = (k) => tr.querySelector(`td.${k}.${part}`).textContent;
          return { part, median: m.textContent, range: td('range'), runs: td('runs') };
        }),
      })),
    );
  function assertTimings(rows, parts) {
    for (const row of rows) {
      assert.deepEqual(row.cells.map((c) => c.part), parts, row.variant);
      for (const c of row.cells) {
        assert.match(c.median, new RegExp(`^${NUMBER}$`), `${row.variant} ${c.part} median`);
        assert.match(c.range, RANGE, `${row.variant} ${c.part} min–max`);
        assert.match(c.runs, RUNS, `${row.variant} ${c.part} run count`);
        const [lo, hi] = c.range.split('–').map(Number);
        assert.ok(lo <= Number(c.median) && Number(c.median) <= hi, `${row.variant} ${c.part}: median ${c.median} outside ${c.range}`);
        assert.ok(Number(c.runs.split(' ')[0]) >= 5, `${row.variant} ${c.part}: ${c.runs}`);
      }
    }
  }

  it('the default run (ALiBi) is a BLOOM checkpoint through rp.loadModel, timed on both builds with min–max and runs', async () => {
    const r = await page.evaluate(() => {
      const l = globalThis.relposDemo.encoder.last;
      const p = l.layers[0].probs, S = l.shape[0];
      return { path: l.path, family: l.family, modelType: l.modelType, shape: l.shape, tokens: l.tokens, finite: Array.from(l.hidden).every(Number.isFinite), layers: l.layers.length, probsLen: p.length, rowSum: Array.from(p.slice(S, 2 * S)).reduce((a, b) => a + b, 0), future: p[1] };
    });
    assert.equal(r.path, 'model');
    assert.equal(r.family, 'bloom');
    assert.equal(r.modelType, 'bloom');
    assert.deepEqual(r.tokens.slice(0, 4), ['[CLS]', 'the', 'cat', 'sat']);
    assert.deepEqual(r.shape, [13, 64]);
    assert.ok(r.finite);
    assert.equal(r.layers, 2);
    assert.equal(r.probsLen, 4 * 13 * 13);
    assert.ok(Math.abs(r.rowSum - 1) < 1e-4, `attention row sums to ${r.rowSum}`);
    assert.equal(r.future, 0, 'BLOOM is causal: token 0 does not see token 1');
    const path = page.locator('#encoder .encoder-out .path');
    assert.equal(await path.getAttribute('data-path'), 'model');
    assert.match(await path.textContent(), /Ran: rp\.loadModel \+ model\.forward \(C\+\+ model layer, bloom\)/);
    const rows = await timingRows();
    assert.deepEqual(rows.map((x) => x.variant), ['simd', 'scalar']);
    assertTimings(rows, ['forward']);
    assert.match(await page.locator('#encoder .note.tiny').textContent(), /Only 13 tokens: at this size fixed per-call costs/);
    assert.match(await page.textContent('#encoder .honest'), /Random weights\./);
    await shot(page, '4-encoder-bloom', '#encoder');
  });

  it('every scheme with a Hugging Face family runs each of its families through rp.loadModel', async () => {
    await page.locator('#encoder input[name=enc-both]').uncheck(); // one build: this test is about the path
    const schemes = await page.locator('#encoder select[name=enc-scheme] option').evaluateAll((os) => os.map((o) => o.value));
    const seen = [];
    for (const scheme of schemes) {
      await page.locator('#encoder select[name=enc-scheme]').selectOption(scheme);
      const families = await page.locator('#encoder select[name=enc-family] option').evaluateAll((os) => os.map((o) => o.value));
      for (const family of families.filter((f) => f !== 'js')) {
        if (families.length > 1) await page.locator('#encoder select[name=enc-family]').selectOption(family);
        else assert.ok(await page.locator('#encoder select[name=enc-family]').isDisabled(), `${scheme}: a single family is shown, not chosen`);
        await runEncoder();
        const path = page.locator('#encoder .encoder-out .path');
        assert.equal(await path.getAttribute('data-path'), 'model', `${scheme}/${family}`);
        assert.equal(await path.getAttribute('data-family'), family);
        const type = await path.getAttribute('data-model-type');
        assert.match(await path.textContent(), new RegExp(`rp\\.loadModel \\+ model\\.forward \\(C\\+\\+ model layer, ${type}\\)`));
        const last = await page.evaluate(() => {
          const l = globalThis.relposDemo.encoder.last;
          return { finite: Array.from(l.hidden).every(Number.isFinite), S: l.shape[0], probs: l.layers[0].probs.length };
        });
        assert.ok(last.finite, family);
        assert.equal(last.probs, 4 * last.S * last.S, family);
        assertTimings(await timingRows(), ['forward']);
        seen.push(`${scheme}:${type}`);
      }
    }
    assert.deepEqual(seen.sort(), [
      'alibi:bloom', 'alibi:mpt', 'bert-relative:bert', 'deberta:deberta-v2', 'learned-absolute:bert', 'rope:llama', 'rope:modernbert',
      'rope:gemma3_text', 'rope:nomic_bert', 'rope:qwen3', 'rope:roformer', 'shaw:bert', 'sinusoidal:distilbert', 't5:mpnet', 't5:t5', 'transformer-xl:transfo-xl',
    ].filter((s) => schemes.includes(s.split(':')[0])).sort());
  });

  it('a scheme without a family (Huang) runs the JavaScript encoder and is labelled so', async () => {
    await page.locator('#encoder select[name=enc-scheme]').selectOption('huang');
    assert.equal(await page.locator('#encoder select[name=enc-family]').inputValue(), 'js');
    assert.ok(await page.locator('#encoder select[name=enc-family]').isDisabled());
    await page.locator('#encoder input[name=enc-both]').check();
    await runEncoder();
    const path = page.locator('#encoder .encoder-out .path');
    assert.equal(await path.getAttribute('data-path'), 'js');
    assert.match(await path.textContent(), /Ran: assembled in JavaScript from rp\.attention\. Huang relative has no Hugging Face model family/);
    assertTimings(await timingRows(), ['forward', 'attention']);
    await shot(page, '4-encoder-js', '#encoder');
  });

  it('the 256-token input runs through the model layer and the tiny-input note goes away', async () => {
    await page.locator('#encoder select[name=enc-scheme]').selectOption('t5');
    await page.locator('#encoder select[name=enc-length]').selectOption('long');
    await runEncoder();
    const r = await page.evaluate(() => ({ S: globalThis.relposDemo.encoder.last.shape[0], path: globalThis.relposDemo.encoder.last.path }));
    assert.deepEqual(r, { S: 256, path: 'model' });
    assert.equal(await page.locator('#encoder .note.tiny').count(), 0);
    const rows = await timingRows();
    assert.deepEqual(rows.map((x) => x.variant), ['simd', 'scalar']);
    assertTimings(rows, ['forward']);
    assert.match(await page.textContent('#encoder .comparison'), /takes [\d.]+× as long as|ranges overlap/);
    await shot(page, '4-encoder-t5-256', '#encoder');
  });

  it('fp32 and q8 side by side: both timed, q8 holds fewer weight bytes, pooled cosine with fp32 ≥ 0.99', async () => {
    await page.locator('#encoder select[name=enc-length]').selectOption('text');
    await page.locator('#encoder select[name=enc-scheme]').selectOption('huang');
    assert.ok(await page.locator('#encoder input[name=enc-q8]').isDisabled(), 'q8 is a rp.loadModel option: not offered for the JavaScript encoder');
    const cases = [['alibi', 'bloom', true], ['learned-absolute', 'bert', false], ['deberta', 'deberta-v2', false]];
    for (const [scheme, type, both] of cases) {
      await page.locator('#encoder select[name=enc-scheme]').selectOption(scheme);
      await page.locator('#encoder input[name=enc-q8]').check();
      await page.locator('#encoder input[name=enc-both]').setChecked(both);
      await runEncoder();
      assert.equal(await page.locator('#encoder .encoder-out .path').getAttribute('data-model-type'), type);
      const rows = await timingRows();
      const builds = both ? ['simd', 'scalar'] : ['auto'];
      assert.deepEqual(rows.map((x) => x.variant), builds.flatMap((b) => [`${b}/fp32`, `${b}/q8`]), scheme);
      assertTimings(rows, ['forward']);
      const shown = await page.locator('#encoder table.timing-table tbody tr').evaluateAll((trs) => trs.map((tr) => ({
        variant: tr.dataset.variant, dtype: tr.querySelector('td.dtype').textContent,
        bytes: Number(tr.querySelector('td.weight-bytes').dataset.bytes), bytesText: tr.querySelector('td.weight-bytes').textContent,
        cosine: tr.querySelector('td.cosine').dataset.cosine, cosineText: tr.querySelector('td.cosine').textContent,
      })));
      for (const b of builds) {
        const fp32 = shown.find((x) => x.variant === `${b}/fp32`), q8 = shown.find((x) => x.variant === `${b}/q8`);
        assert.deepEqual([fp32.dtype, q8.dtype], ['fp32', 'q8 (8-bit)']);
        assert.equal(fp32.cosineText, 'reference');
        assert.match(q8.cosineText, /^(0\.99\d{4}|1\.000000)$/, `${scheme}/${b}: cosine shown ${q8.cosineText}`);
        assert.ok(Number(q8.cosine) >= 0.99 && Number(q8.cosine) < 1, `${scheme}/${b}: pooled cosine ${q8.cosine} (1 would mean q8 did not run)`);
        assert.ok(q8.bytes > 0 && q8.bytes < 0.8 * fp32.bytes, `${scheme}/${b}: q8 ${q8.bytes} vs fp32 ${fp32.bytes} weight bytes`);
        assert.match(fp32.bytesText, /^\d+\.\d KiB$/);
        assert.match(q8.bytesText, /^\d+\.\d KiB \(0\.\d\d×\)$/);
      }
      // the same model on both builds holds the same bytes
      if (both) assert.equal(shown[1].bytes, shown[3].bytes);
      assert.match(await page.textContent('#encoder .q8-summary'), /8-bit weights: the same checkpoint loaded with dtype 'q8' holds [\d.]+ KiB of weights instead of [\d.]+ KiB \(0\.\d\d×; .*cosine (0\.99\d{4}|1\.000000) with fp32's/);
      await shot(page, `4-encoder-q8-${type}`, '#encoder');
    }
    await page.locator('#encoder input[name=enc-q8]').uncheck();
  });

  it('logs no console errors', () => {
    assert.deepEqual(browser.errors, []);
  });
});
