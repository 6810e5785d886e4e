// Shared set-up for the browser tests: the demo server on a free port and Debian's Chromium driven
// by playwright-core (no browser download), with a fresh profile directory.
// RELPOS_DEMO_WEB=<dir> serves another directory as /web/ (e.g. tests/browser/stand-in, the JS
// stand-in of the planned API); by default the real package in web/ is used.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));
export const SHOTS = join(ROOT, 'tests/browser/screenshots');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync', '--disable-quic'];

export function webDir() {
  return process.env.RELPOS_DEMO_WEB ? resolve(ROOT, process.env.RELPOS_DEMO_WEB) : join(ROOT, 'web');
}

export function checkPackage() {
  const dir = webDir();
  const missing = ['index.js'].filter((f) => !existsSync(join(dir, f)));
  if (dir === join(ROOT, 'web')) for (const f of ['dist/relpos-simd.wasm', 'dist/relpos-scalar.wasm']) if (!existsSync(join(dir, f))) missing.push(f);
  return missing.length ? `the package is not built: missing ${missing.map((f) => join(dir, f)).join(', ')} (run bash scripts/build.sh)` : null;
}

/** isolated: false serves without COOP/COEP (the page is then not cross-origin isolated). */
export function startServer({ isolated = true } = {}) {
  const args = [join(ROOT, 'scripts/serve.mjs'), '--port', '0'];
  if (!isolated) args.push('--no-isolation');
  if (process.env.RELPOS_DEMO_WEB) args.push('--web', webDir());
  const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolveUrl, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error('server did not start in 10 s')), 10000);
    proc.stdout.on('data', (d) => {
      buf += d;
      const m = buf.match(/relpos demo: (http:\/\/\S+)/);
      if (m) {
        clearTimeout(timer);
        resolveUrl({ url: m[1], close: () => proc.kill('SIGTERM') });
      }
    });
    proc.on('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
}

// WebGPU on the CPU: SwiftShader's Vulkan behind navigator.gpu (needs an http://127.0.0.1 page, a secure context).
const WEBGPU_ARGS = ['--enable-unsafe-webgpu', '--use-webgpu-adapter=swiftshader'];

/** webgpu: true launches with WEBGPU_ARGS instead of --disable-gpu (navigator.gpu on SwiftShader). */
export async function launch(viewport = { width: 1280, height: 800 }, { webgpu = false } = {}) {
  mkdirSync(SHOTS, { recursive: true });
  const profile = mkdtempSync(join(tmpdir(), 'relpos-chromium-'));
  const args = webgpu ? [...ARGS.filter((a) => a !== '--disable-gpu'), ...WEBGPU_ARGS] : ARGS;
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args, headless: true, viewport });
  const page = context.pages()[0] ?? (await context.newPage());
  const errors = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  const close = async () => {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  };
  return { context, page, errors, close };
}

export async function openDemo(page, url) {
  await page.goto(url);
  await page.waitForFunction(() => globalThis.relposDemo?.ready || globalThis.relposDemo?.error, null, { timeout: 60000 });
  const err = await page.evaluate(() => globalThis.relposDemo.error);
  if (err) throw new Error(`demo did not load: ${err}`);
}

export async function shot(page, name, selector) {
  const path = join(SHOTS, `${name}.png`);
  if (selector) await page.locator(selector).screenshot({ path });
  else await page.screenshot({ path, fullPage: true });
  return path;
}
