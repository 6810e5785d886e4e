// The demo's threads in Chromium. Served with COOP/COEP (scripts/serve.mjs, as `npm start`) the page
// is cross-origin isolated: the header shows the thread count the worker's relpos reports
// (rp.threads = min(8, navigator.hardwareConcurrency) for threads: 'auto'), and the benchmark's
// "threads: 1 vs N" choice times every cell on 1 thread and on N, each a median with min–max and run
// count, with the speedup. Served without those headers (--no-isolation) the page shows 1 thread and
// why (rp.threadsReason, in plain words), and the comparison says why it is not made.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkPackage, launch, openDemo, shot, startServer } from './helpers.mjs';

const SPREAD = /^\d+(\.\d+)?–\d+(\.\d+)? · \d+ runs( × \d+ calls)?$/;

async function page1(isolated) {
  const missing = checkPackage();
  if (missing) throw new Error(missing);
  const server = await startServer({ isolated });
  const browser = await launch({ width: 1280, height: 800 });
  await openDemo(browser.page, server.url);
  // the encoder section's first run reports the worker's rp.threads to the header
  await browser.page.waitForFunction(() => globalThis.relposDemo.encoder.runs >= 1, null, { timeout: 90000 });
  return { server, browser, page: browser.page };
}

async function runBench(page, lengths) {
  await page.locator('#bench input[name=bench-lengths]').fill(lengths);
  await page.locator('#bench select[name=bench-threads]').selectOption('compare');
  await page.locator('#bench button', { hasText: 'Run benchmark' }).click();
  await page.waitForFunction(() => globalThis.relposDemo.bench.result && !globalThis.relposDemo.bench.running, null, { timeout: 180000 });
  assert.deepEqual(await page.locator('#bench .error').allTextContents(), []);
  return page.evaluate(() => globalThis.relposDemo.bench.result);
}

describe('threads, cross-origin isolated page (COOP/COEP)', () => {
  let ctx;
  before(async () => (ctx = await page1(true)));
  after(async () => {
    await ctx?.browser.close();
    ctx?.server.close();
  });

  it('the header shows the thread count the worker’s relpos reports', async () => {
    const { page } = ctx;
    const env = await page.evaluate(() => ({ isolated: globalThis.crossOriginIsolated, cores: navigator.hardwareConcurrency, worker: globalThis.relposDemo.encoder.last.threads }));
    assert.equal(env.isolated, true);
    const line = page.locator('#threads');
    const shown = Number(await line.getAttribute('data-threads'));
    assert.equal(shown, env.worker, 'header = the worker’s rp.threads');
    assert.equal(shown, Math.max(1, Math.min(8, env.cores)), `threads: 'auto' on ${env.cores} cores`);
    assert.ok(shown >= 1);
    assert.match(await line.textContent(), shown > 1
      ? new RegExp(`^The worker's relpos computes with ${shown} threads \\(Web Workers sharing one WebAssembly memory\\)\\.$`)
      : /computes with 1 thread: this browser reports a single core/);
    assert.equal(await line.getAttribute('data-reason'), null);
    // the encoder's SIMD row names the same count
    assert.match(await page.locator('#encoder table.timing-table tbody tr[data-variant=simd] th').textContent(), new RegExp(`SIMD128, ${shown} threads?$`));
    await shot(page, 'threads-header', 'header');
  });

  it('the benchmark compares 1 thread with N threads: both medians with min–max and run counts, and the speedup', async (t) => {
    const { page } = ctx;
    const r = await runBench(page, '32, 128');
    const N = Number(await page.locator('#threads').getAttribute('data-threads'));
    assert.equal(r.threads, N);
    if (N === 1) {
      t.diagnostic('this browser reports one core: the page must say why there is no comparison');
      assert.match(await page.textContent('#bench .threads-note'), /No 1 vs N threads comparison: the worker runs 1 thread/);
      return;
    }
    assert.equal(r.singleThreads, 1);
    const rows = await page.locator('#bench table.threads-table tbody tr').evaluateAll((trs) => trs.map((tr) => ({
      scheme: tr.dataset.scheme,
      one: [...tr.querySelectorAll('td.one small.spread')].map((e) => e.textContent),
      many: [...tr.querySelectorAll('td.many small.spread')].map((e) => e.textContent),
      speedup: [...tr.querySelectorAll('td.speedup')].map((e) => e.textContent),
    })));
    assert.deepEqual(rows.map((x) => x.scheme), r.results.map((x) => x.type));
    for (const row of rows) {
      assert.equal(row.one.length, 2, row.scheme);
      assert.equal(row.many.length, 2, row.scheme);
      for (const s of [...row.one, ...row.many]) assert.match(s, SPREAD, row.scheme);
      for (const s of row.speedup) assert.match(s, /^\d+\.\d\d×$/, row.scheme);
    }
    for (const x of r.results)
      for (const [i] of r.lengths.entries())
        for (const tm of [x.single.timing[i], x.timing[i]]) assert.ok(tm.runs >= 5 && tm.min <= tm.median && tm.median <= tm.max, `${x.type}: ${JSON.stringify(tm)}`);
    assert.match(await page.locator('#bench table.threads-table thead').textContent(), new RegExp(`1 thread${N} threadsspeedup`));
    assert.match(await page.textContent('#bench .threads-note[data-compared=true]'), new RegExp(`computes with ${N} threads.*on 1 thread and [\\d.]+ ms on ${N} \\(speedup [\\d.]+×\\)`));
    await shot(page, 'threads-bench', '#bench');
  });

  it('logs no console errors', () => assert.deepEqual(ctx.browser.errors, []));
});

describe('threads, page served without COOP/COEP', () => {
  let ctx;
  before(async () => (ctx = await page1(false)));
  after(async () => {
    await ctx?.browser.close();
    ctx?.server.close();
  });

  it('the header shows 1 thread and why, in plain words; the benchmark says why it does not compare', async () => {
    const { page } = ctx;
    const env = await page.evaluate(() => ({ isolated: globalThis.crossOriginIsolated, cores: navigator.hardwareConcurrency, worker: globalThis.relposDemo.encoder.last.threads }));
    assert.equal(env.isolated, false);
    assert.equal(env.worker, 1);
    const line = page.locator('#threads');
    assert.equal(await line.getAttribute('data-threads'), '1');
    if (env.cores > 1) {
      assert.match(await line.getAttribute('data-reason'), /not cross-origin isolated/);
      assert.match(await line.textContent(), /^The worker's relpos computes with 1 thread, fewer than asked: this page is not cross-origin isolated, so the browser gives it no SharedArrayBuffer .*Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp.* relpos said: not cross-origin isolated/);
    } else {
      assert.match(await line.textContent(), /1 thread: this browser reports a single core/);
    }
    const r = await runBench(page, '16');
    assert.equal(r.threads, 1);
    assert.ok(r.results.every((x) => x.single === null));
    assert.equal(await page.locator('#bench table.threads-table').count(), 0);
    assert.match(await page.textContent('#bench .threads-note[data-compared=false]'), /^No 1 vs N threads comparison: the worker runs 1 thread: (this page is not cross-origin isolated|this browser reports a single core)/);
    await shot(page, 'threads-not-isolated', 'body');
  });

  it('logs no console errors', () => assert.deepEqual(ctx.browser.errors, []));
});
