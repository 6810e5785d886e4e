// The demo at a 390-px phone viewport: every section renders without horizontal page overflow.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkPackage, launch, openDemo, shot, startServer } from './helpers.mjs';

describe('demo page at a 390-px phone viewport', () => {
  let server, browser, page;
  before(async () => {
    const missing = checkPackage();
    if (missing) throw new Error(missing);
    server = await startServer();
    browser = await launch({ width: 390, height: 844 });
    page = browser.page;
    await openDemo(page, server.url);
    await page.waitForFunction(() => globalThis.relposDemo.encoder.runs >= 1, null, { timeout: 60000 });
  });
  after(async () => {
    await browser?.close();
    server?.close();
  });

  it('fits the width and renders every section', async () => {
    const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, view: window.innerWidth }));
    assert.ok(widths.page <= widths.view + 1, `page is ${widths.page}px wide in a ${widths.view}px viewport`);
    for (const id of ['explorer', 'why', 'inside', 'encoder']) {
      assert.ok((await page.locator(`#${id} canvas, #${id} svg`).count()) >= 1, id);
      await shot(page, `phone-${id}`, `#${id}`);
    }
    assert.deepEqual(browser.errors, []);
    await shot(page, 'phone-full-page');
  });
});
