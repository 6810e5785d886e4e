// What the Chromium peer benches share on the Node side (bench/cpu_chromium_peer.mjs, bench/xlmr_chromium_peer.mjs,
// bench/webgpu_chromium_peer.mjs, bench/lib/wllama_peer.mjs): the static server their pages load from
// (cross-origin isolated, so WebAssembly threads work), headless Chromium through tests/browser's playwright-core,
// where Transformers.js and onnxruntime-web sit in bench/node_modules, the argv reader and the two statistics.
// Page-side code cannot import this file (page.evaluate sends a function's source); what the pages share is in
// bench/page/, which `serve` mounts at /page/.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const BENCH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ROOT = path.resolve(BENCH, '..');
/** The folder of the page-side modules (bench/page/), served at /page/. */
export const PAGE_DIR = path.join(BENCH, 'page');

/** `--name value` from process.argv, else `fallback`. */
export const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
};

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.json': 'application/json', '.wasm': 'application/wasm' };
const HEADERS = { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp', 'cross-origin-resource-policy': 'same-origin', 'cache-control': 'no-store' };

/**
 * A static server on 127.0.0.1 (a free port): `/` is a blank page titled `title` (with `text` in it), `/<name>/…`
 * the files under `mounts[name]` (bench/page/ is mounted at /page/ unless `mounts.page` says otherwise). Every
 * answer is COOP/COEP (cross-origin isolated) and not cached. Resolves to { server, url }.
 */
export function serve(mounts, { title = 'relpos peer bench', text = 'peer bench' } = {}) {
  const all = { page: PAGE_DIR, ...mounts };
  const server = http.createServer((req, res) => {
    const url = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (url === '/') {
      res.writeHead(200, { ...HEADERS, 'content-type': 'text/html' });
      return res.end(`<!doctype html><meta charset="utf-8"><title>${title}</title><p>${text}</p>`);
    }
    const [, top, ...rest] = url.split('/');
    const base = all[top];
    const file = base && path.normalize(path.join(base, ...rest));
    if (!file || !file.startsWith(base) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404, HEADERS);
      return res.end();
    }
    res.writeHead(200, { ...HEADERS, 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream', 'content-length': fs.statSync(file).size });
    fs.createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${server.address().port}/` })));
}

/** Where Transformers.js's dist and its onnxruntime-web wasm files are in bench/node_modules, or { unavailable }. */
export function peerDists() {
  const tjs = path.join(BENCH, 'node_modules/@huggingface/transformers/dist');
  if (!fs.existsSync(path.join(tjs, 'transformers.js'))) return { unavailable: 'bench/node_modules/@huggingface/transformers is missing: bench/run.sh installs it (npm ci --prefix bench)' };
  const ort = [path.join(BENCH, 'node_modules/@huggingface/transformers/node_modules/onnxruntime-web/dist'), path.join(BENCH, 'node_modules/onnxruntime-web/dist')]
    .find((d) => fs.existsSync(path.join(d, 'ort-wasm-simd-threaded.asyncify.wasm')));
  if (!fs.existsSync(path.join(ROOT, 'tests/browser/node_modules/playwright-core'))) return { unavailable: 'tests/browser dependencies not installed (npm ci --prefix tests/browser)' };
  return { tjs, ort };
}

/** playwright-core's `chromium` (tests/browser's dependency). */
export const playwrightChromium = async () => (await import(path.join(ROOT, 'tests/browser/node_modules/playwright-core/index.mjs'))).chromium;

/** Chromium's switches for the peer benches: the common ones, then `extra`. */
export const chromiumArgs = (extra = []) => ['--headless', '--no-sandbox', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync', ...extra];

/** CPUPEER_CHROMIUM_ARGS as switches (the CPU peer benches append them, e.g. --js-flags=--no-liftoff for an experiment). */
export const envChromiumArgs = () => (process.env.CPUPEER_CHROMIUM_ARGS ?? '').split(/\s+/).filter(Boolean);

/**
 * One fresh browser (its own profile folder under `tmp`, its own process) on `url`: `before(page)` (listeners),
 * the page opens, `fn(page)`; the browser is closed and its profile removed after.
 */
export async function inFreshPage(chromium, args, tmp, url, fn, { before } = {}) {
  const profile = fs.mkdtempSync(path.join(tmp, 'profile-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args, headless: true });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    before?.(page);
    page.setDefaultTimeout(20 * 60 * 1000);
    await page.goto(url);
    return await fn(page);
  } finally {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

/**
 * `rounds` rounds over `runtimes`, each runtime in a fresh browser (inFreshPage) on `url`, every other round in
 * reverse order so that slow spells of a shared machine fall on all of them: `visit(page, runtime, round)` for each,
 * `afterRound(round)` after each round; `server` is closed at the end.
 */
export async function freshPageRounds({ server, url, args, tmp, runtimes, rounds }, visit, { afterRound } = {}) {
  const chromium = await playwrightChromium();
  try {
    for (let round = 0; round < rounds; ++round) {
      for (const rt of round % 2 ? [...runtimes].reverse() : runtimes) await inFreshPage(chromium, args, tmp, url, (page) => visit(page, rt, round));
      afterRound?.(round);
    }
  } finally {
    server.close();
  }
}

/**
 * What a peer page reports of its browser (`r.ua`, `r.cores`, `r.crossOriginIsolated`, `r.version`: Transformers.js's,
 * when the page loaded it; else `prev`'s) as the result's { chromium, cores, cross_origin_isolated, transformers_js }.
 */
export const pageMeta = (r, prev = {}) => ({ chromium: r.ua.match(/Chrome\/[\d.]+/)?.[0] ?? r.ua, cores: r.cores, cross_origin_isolated: r.crossOriginIsolated, transformers_js: r.version ?? prev.transformers_js });

/**
 * A harness's command-line end: `run()`'s result (or { unavailable: its error }) written to --out when given
 * (JSON.stringify(res, null, indent), then `end`), and as stdout's last line; exits 0.
 */
export async function cliResult(run, { indent = 2, end = '' } = {}) {
  const res = await run().catch((e) => ({ unavailable: e.stack ?? e.message }));
  const out = arg('out', null);
  if (out) fs.writeFileSync(out, JSON.stringify(res, null, indent) + end);
  console.log(JSON.stringify(res));
  process.exit(0);
}

/** The median of `xs` (null when empty). */
export const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const n = s.length; return n ? (n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2) : null; };
/** The cosine of two vectors. */
export const cosine = (a, b) => { let d = 0, x = 0, y = 0; for (let i = 0; i < a.length; ++i) { d += a[i] * b[i]; x += a[i] * a[i]; y += b[i] * b[i]; } return d / Math.sqrt(x * y); };
