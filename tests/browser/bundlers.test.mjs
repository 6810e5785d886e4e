// The packed relpos tarball in production builds of a tiny app (tests/bundlers/app.js) made with Vite
// and with webpack 5 (devDependencies of the repository, builds run with no network when the machine
// allows it), each build served twice to Chromium:
//   - with cross-origin isolation (COOP same-origin, COEP require-corp, CORP on every response): the
//     SIMD threads build runs (rp.threads > 1), its .wasm and worker script come from the build output;
//   - without: the single-thread SIMD build runs (rp.threads === 1) and rp.threadsReason says why.
// Each time the app's attention output matches a float64 recomputation (≤ 1e-5) and its forward of the
// bert-absolute fixture matches transformers' last_hidden_state (≤ 1e-4, valid positions), and its
// 20-step lab.train ran in the lab worker (its script and relpos-lab-simd.wasm from the build output)
// with a falling loss. Files are
// recognised by their bytes (bundlers rename them): every .wasm of the package must be in the output,
// and every file the page fetched must have been served from the output (or /fixtures/).
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, relative, sep } from 'node:path';
import { before, describe, it } from 'node:test';

import { FIXTURES, haveFixtures, loadCase } from '../js/safetensors.mjs';
import { ATTENTION, LAB, MODEL_CASE, attentionInputs } from '../bundlers/inputs.js';
import { ROOT, checkPackage, launch } from './helpers.mjs';

const HIDDEN_TOL = 1e-4;
const ATTENTION_TOL = 1e-5;
const THREADS_WASM = 'relpos-simd-threads.wasm';
const THREADS_WORKER = 'relpos-simd-threads.worker.js';
// Bundlers rebuild the pthread worker script (Emscripten's `new Worker(new URL('….worker.js',
// import.meta.url))` makes it a worker entry of its own), so it is recognised by this string literal
// of the package's worker file instead of by its bytes.
const WORKER_MARKER = 'worker.js received unknown command';
// The lab's worker (web/lab-worker.js, a module Worker bundlers emit as its own chunk), recognised the same way.
const LAB_WORKER_MARKER = 'lab: could not load ';
const LAB_WASM = 'relpos-lab-simd.wasm';

/** Requests allowed to miss: Chromium's favicon, loadModel's optional files (tokenizer.json, else spm.model / spiece.model / sentencepiece.bpe.model; modules.json, sentence-transformers' recipe). */
const OPTIONAL = new RegExp(`^/(favicon\\.ico|fixtures/${MODEL_CASE}/(tokenizer(_config)?\\.json|special_tokens_map\\.json|spm\\.model|spiece\\.model|sentencepiece\\.bpe\\.model|modules\\.json))$`);

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const WORK = join(ROOT, 'build', 'bundlers');
const BUNDLERS = {
  vite: { cli: join(ROOT, 'node_modules/vite/bin/vite.js'), args: ['build'] },
  webpack: { cli: join(ROOT, 'node_modules/webpack-cli/bin/cli.js'), args: ['--config', 'webpack.config.mjs'] },
};
// Builds run in a network namespace of their own (no network at all) where unshare(1) may make one.
const OFFLINE = spawnSync('unshare', ['--net', 'true']).status === 0;

const sha = (bytes) => createHash('sha256').update(bytes).digest('hex');

function walk(dir) {
  return readdirSync(dir, { recursive: true })
    .map((f) => join(dir, f))
    .filter((f) => statSync(f).isFile());
}

/** The installed package's web/dist files by content hash: sha256 → file name. */
function packageFilesByHash(packageDir) {
  const dist = join(packageDir, 'web', 'dist');
  return new Map(readdirSync(dist).map((f) => [sha(readFileSync(join(dist, f))), f]));
}

/** Output files of a build: URL path ('/assets/x.wasm') → package file name it equals, or null. */
function outputFiles(outDir, byHash) {
  const files = new Map();
  for (const f of walk(outDir)) files.set('/' + relative(outDir, f).split(sep).join('/'), byHash.get(sha(readFileSync(f))) ?? null);
  return files;
}

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.json': 'application/json', '.wasm': 'application/wasm' };

/** Serves outDir at / and the HF fixtures at /fixtures/, logging every request; isolated adds COOP/COEP/CORP. */
function serve(outDir, isolated) {
  const log = [];
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const [base, rest] = path.startsWith('/fixtures/') ? [FIXTURES, path.slice('/fixtures/'.length)] : [outDir, path === '/' ? 'index.html' : path.slice(1)];
    const file = normalize(join(base, rest));
    let body = null;
    if (file.startsWith(base + sep) && existsSync(file) && statSync(file).isFile()) body = readFileSync(file);
    log.push({ path, status: body ? 200 : 404 });
    const headers = { 'content-type': body ? (TYPES[extname(file)] ?? 'application/octet-stream') : 'text/plain', 'cache-control': 'no-store' };
    if (isolated)
      Object.assign(headers, {
        'cross-origin-opener-policy': 'same-origin',
        'cross-origin-embedder-policy': 'require-corp',
        'cross-origin-resource-policy': 'same-origin',
      });
    res.writeHead(body ? 200 : 404, headers);
    res.end(body ?? `not found: ${path}\n`);
  });
  return new Promise((resolveServer) =>
    server.listen(0, '127.0.0.1', () => resolveServer({ url: `http://127.0.0.1:${server.address().port}`, log, close: () => server.close() })),
  );
}

/** Float64 softmax(q·kᵀ/√d)·v per (batch, head). */
function referenceAttention({ q, k, v }, { batch, heads, seqLen, headDim }) {
  const out = new Float64Array(q.length);
  for (let s = 0; s < batch * heads; ++s) {
    const at = s * seqLen * headDim;
    for (let i = 0; i < seqLen; ++i) {
      const logits = [];
      for (let j = 0; j < seqLen; ++j) {
        let dot = 0;
        for (let d = 0; d < headDim; ++d) dot += q[at + i * headDim + d] * k[at + j * headDim + d];
        logits.push(dot / Math.sqrt(headDim));
      }
      const max = Math.max(...logits);
      const w = logits.map((l) => Math.exp(l - max));
      const sum = w.reduce((a, b) => a + b, 0);
      for (let j = 0; j < seqLen; ++j)
        for (let d = 0; d < headDim; ++d) out[at + i * headDim + d] += (w[j] / sum) * v[at + j * headDim + d];
    }
  }
  return out;
}

function maxAbsError(actual, expected) {
  assert.equal(actual.length, expected.length, 'length');
  let worst = 0;
  for (let i = 0; i < expected.length; ++i) {
    const e = Math.abs(actual[i] - expected[i]);
    worst = Number.isNaN(e) ? Infinity : Math.max(worst, e);
  }
  return worst;
}

/** Max |a − e| of [B, L, H] hidden states over valid positions [b, :lengths[b], :]. */
function hiddenError(actual, expected, lengths) {
  assert.deepEqual(actual.dims, expected.dims, 'lastHiddenState dims');
  const [, L, H] = expected.dims;
  let worst = 0;
  lengths.forEach((n, b) => {
    const from = b * L * H;
    worst = Math.max(worst, maxAbsError(actual.data.slice(from, from + n * H), expected.data.subarray(from, from + n * H)));
  });
  return worst;
}

/** Opens the build in a fresh Chromium, waits for the app; results, worker URLs and every request URL. */
async function runApp(outDir, isolated) {
  const server = await serve(outDir, isolated);
  try {
    return { ...(await openApp(server.url)), log: server.log };
  } finally {
    server.close();
  }
}

/**
 * Opens the app at origin in a fresh Chromium; with routeFixtures the page gets /fixtures/ from
 * Playwright (for servers that do not serve them) and log is what the page received.
 */
async function openApp(origin, { routeFixtures = false } = {}) {
  const browser = await launch();
  try {
    const requests = [];
    const workers = [];
    const log = [];
    browser.context.on('request', (r) => requests.push(r.url()));
    browser.context.on('response', (r) => log.push({ path: new URL(r.url()).pathname, status: r.status() }));
    browser.page.on('worker', (w) => workers.push(w.url()));
    if (routeFixtures)
      await browser.page.route(`${origin}/fixtures/**`, (route) => {
        const file = normalize(join(FIXTURES, decodeURIComponent(new URL(route.request().url()).pathname).slice('/fixtures/'.length)));
        if (file.startsWith(FIXTURES + sep) && existsSync(file)) return route.fulfill({ status: 200, body: readFileSync(file), contentType: TYPES[extname(file)] ?? 'application/octet-stream' });
        return route.fulfill({ status: 404, body: 'not found' });
      });
    await browser.page.goto(`${origin}/`);
    await browser.page.waitForFunction(() => globalThis.relposApp?.done, null, { timeout: 120000 });
    const result = await browser.page.evaluate(() => globalThis.relposApp);
    const shown = await browser.page.textContent('#out');
    return { result, shown, workers, requests, log, origin, errors: browser.errors };
  } finally {
    await browser.close();
  }
}

const missing = checkPackage();
const fixture = haveFixtures ? loadCase(MODEL_CASE) : null;
const expectedAttention = referenceAttention(attentionInputs(ATTENTION), ATTENTION);

/** The app ran, its numbers match the references, nothing failed or came from elsewhere. */
function checkResults(run) {
  const { result } = run;
  assert.equal(result.error, undefined, `the app failed: ${result.error}`);
  // 404s show up as console errors too; the server log below says which paths they were.
  assert.deepEqual(run.errors.filter((e) => !/Failed to load resource: .* 404/.test(e)), [], 'console errors');
  assert.equal(result.simd, true, 'rp.simd');
  assert.match(run.shown, /"simd": true/, 'the page shows the results');
  const { lab } = result;
  console.log(`lab.train in the page: ${lab.build} build, loss ${lab.firstLoss.toFixed(4)} → ${lab.loss.toFixed(4)} in ${lab.steps} steps`);
  assert.equal(lab.build, 'simd', 'lab build');
  assert.equal(lab.steps, LAB.steps);
  assert.deepEqual(lab.progress, [10, 20], 'lab onProgress steps');
  assert.ok(Number.isFinite(lab.loss) && lab.loss < lab.firstLoss, `lab loss ${lab.firstLoss} → ${lab.loss}`);
  const attentionError = maxAbsError(result.attention, expectedAttention);
  assert.ok(attentionError <= ATTENTION_TOL, `attention: max abs error ${attentionError} > ${ATTENTION_TOL}`);
  const hidden = hiddenError(result.lastHiddenState, fixture.expected.last_hidden_state, fixture.input.lengths);
  assert.ok(hidden <= HIDDEN_TOL, `${MODEL_CASE} last_hidden_state: max abs error ${hidden} > ${HIDDEN_TOL}`);
  for (const url of run.requests) assert.ok(url.startsWith(run.origin + '/') || url.startsWith('blob:') || url.startsWith('data:'), `request outside the test server: ${url}`);
  const failed = run.log.filter((r) => r.status !== 200 && !OPTIONAL.test(r.path));
  assert.deepEqual(failed, [], 'every request was served from the build output or /fixtures/');
}

/** The package files the page fetched, recognised by the content of what was served. */
function fetchedPackageFiles(run, files) {
  return new Set(run.log.filter((r) => r.status === 200 && files.get(r.path)).map((r) => files.get(r.path)));
}

/** Once per run: a fresh consumer project for both apps with the packed tarball installed as users get it. */
let consumer = null;
async function installConsumer() {
  rmSync(WORK, { recursive: true, force: true });
  mkdirSync(WORK, { recursive: true });
  const [info] = JSON.parse(execFileSync(npm, ['pack', '--json', '--pack-destination', WORK], { cwd: ROOT, encoding: 'utf8' }));
  writeFileSync(join(WORK, 'package.json'), JSON.stringify({ name: 'relpos-bundler-apps', version: '1.0.0', private: true, type: 'module' }));
  execFileSync(npm, ['install', join(WORK, info.filename), '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: WORK, encoding: 'utf8' });
  cpSync(join(ROOT, 'tests', 'bundlers'), WORK, { recursive: true });
}

for (const [name, bundler] of Object.entries(BUNDLERS)) {
  describe(`${name} production build of an app using the packed tarball`, () => {
    const appDir = join(WORK, `${name}-app`);
    const outDir = join(appDir, 'dist');
    let files, workerScripts, labWorkerScripts;

    before(async () => {
      if (missing) throw new Error(missing);
      if (!fixture) throw new Error(`no HF fixtures at ${FIXTURES}`);
      if (!existsSync(bundler.cli)) throw new Error(`${bundler.cli} is missing: run npm ci`);
      await (consumer ??= installConsumer());
      const started = Date.now();
      const command = OFFLINE ? ['unshare', ['--net', process.execPath, bundler.cli, ...bundler.args]] : [process.execPath, [bundler.cli, ...bundler.args]];
      const built = spawnSync(command[0], command[1], { cwd: appDir, encoding: 'utf8' });
      if (built.status !== 0) throw new Error(`${name} build failed (${built.status}):\n${built.stdout}\n${built.stderr}`);
      console.log(`${name} production build: ${Date.now() - started} ms${OFFLINE ? ', no network' : ''}`);
      const warnings = `${built.stdout}\n${built.stderr}`.trim();
      if (warnings) console.log(`${name} build output:\n${warnings}`);
      files = outputFiles(outDir, packageFilesByHash(join(WORK, 'node_modules', 'relpos')));
      workerScripts = new Set([...files.keys()].filter((f) => f.endsWith('.js') && readFileSync(join(outDir, f), 'utf8').includes(WORKER_MARKER)));
      labWorkerScripts = new Set([...files.keys()].filter((f) => f.endsWith('.js') && readFileSync(join(outDir, f), 'utf8').includes(LAB_WORKER_MARKER)));
    });

    it('ran with no network (its namespace has only the loopback interface)', { skip: OFFLINE ? false : 'unshare --net is not permitted here: the build ran with the network' }, () => {
      const dev = spawnSync('unshare', ['--net', 'cat', '/proc/net/dev'], { encoding: 'utf8' }).stdout;
      const interfaces = dev.split('\n').slice(2).map((line) => line.split(':')[0].trim()).filter(Boolean);
      assert.deepEqual(interfaces, ['lo']);
    });

    it('emits the SIMD and scalar .wasm into the output', () => {
      const emitted = new Set(files.values());
      for (const wasm of ['relpos-simd.wasm', 'relpos-scalar.wasm']) assert.ok(emitted.has(wasm), `${wasm} is not in ${outDir} (files: ${[...files.keys()].join(', ')})`);
    });

    it('emits the lab worker script and both lab .wasm into the output', () => {
      const emitted = new Set(files.values());
      for (const wasm of [LAB_WASM, 'relpos-lab-scalar.wasm']) assert.ok(emitted.has(wasm), `${wasm} is not in ${outDir} (files: ${[...files.keys()].join(', ')})`);
      assert.ok(labWorkerScripts.size >= 1, `no script with the lab worker's code in ${outDir} (files: ${[...files.keys()].join(', ')})`);
    });

    it('emits the threads build (.wasm and worker script) into the output', () => {
      const emitted = new Set(files.values());
      assert.ok(emitted.has(THREADS_WASM), `${THREADS_WASM} is not in ${outDir} (files: ${[...files.keys()].join(', ')})`);
      const worker = join(WORK, 'node_modules', 'relpos', 'web', 'dist', THREADS_WORKER);
      assert.ok(existsSync(worker) && readFileSync(worker, 'utf8').includes(WORKER_MARKER), `the package has no ${THREADS_WORKER} with "${WORKER_MARKER}"`);
      assert.ok(workerScripts.size >= 1, `no script with the threads worker's code in ${outDir} (files: ${[...files.keys()].join(', ')})`);
    });

    describe('served with cross-origin isolation (COOP, COEP, CORP)', () => {
      let run;
      before(async () => {
        run = await runApp(outDir, true);
      });

      it('attention and the bert-absolute forward match the references; every request served from the output or /fixtures/', () => {
        checkResults(run);
        assert.equal(run.result.crossOriginIsolated, true, 'crossOriginIsolated');
      });

      it('the SIMD threads build runs on several threads; its .wasm and worker script were fetched from the output (and the lab\'s)', () => {
        assert.ok(run.result.threads > 1, `rp.threads = ${run.result.threads} (rp.threadsReason: ${run.result.threadsReason})`);
        const fetched = fetchedPackageFiles(run, files);
        assert.deepEqual([...fetched].filter((f) => f.endsWith('.wasm')).sort(), [LAB_WASM, THREADS_WASM], 'the .wasm fetched');
        assert.ok(run.workers.length >= 2, 'no worker started');
        const lab = run.workers.filter((w) => labWorkerScripts.has(new URL(w).pathname));
        assert.equal(lab.length, 1, `one lab worker from the build output (${[...labWorkerScripts].join(', ')}) among ${run.workers.join(', ')}`);
        for (const w of run.workers.filter((x) => !lab.includes(x))) {
          const { origin, pathname } = new URL(w);
          assert.ok(origin === run.origin && workerScripts.has(pathname), `worker script ${w} is not the threads worker in the build output (${[...workerScripts].join(', ')})`);
        }
      });
    });

    describe('served without cross-origin isolation', () => {
      let run;
      before(async () => {
        run = await runApp(outDir, false);
      });

      it('attention and the bert-absolute forward match the references; every request served from the output or /fixtures/', () => {
        checkResults(run);
        assert.equal(run.result.crossOriginIsolated, false, 'crossOriginIsolated');
      });

      it('the single-thread SIMD build runs (relpos-simd.wasm fetched from the output, no worker but the lab\'s) and rp.threadsReason says why', () => {
        const fetched = fetchedPackageFiles(run, files);
        assert.deepEqual([...fetched].filter((f) => f.endsWith('.wasm')).sort(), [LAB_WASM, 'relpos-simd.wasm'], 'the .wasm fetched');
        assert.deepEqual(run.workers.map((w) => labWorkerScripts.has(new URL(w).pathname)), [true], `workers started: only the lab's (${run.workers.join(', ')})`);
        assert.equal(run.result.threads, 1, 'rp.threads');
        assert.equal(typeof run.result.threadsReason, 'string', 'rp.threadsReason');
        assert.match(run.result.threadsReason, /cross-?origin ?isolat/i);
      });
    });
  });
}

/** A free TCP port on 127.0.0.1. */
function freePort() {
  return new Promise((resolvePort) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolvePort(port));
    });
  });
}

/** `vite` (the dev server) in the Vite app's folder; resolves once it answers. */
async function startViteDev(config) {
  const port = await freePort();
  const proc = spawn(process.execPath, [BUNDLERS.vite.cli, '--config', config, '--host', '127.0.0.1', '--port', String(port), '--strictPort'], {
    cwd: join(WORK, 'vite-app'),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  proc.stderr.on('data', (d) => (stderr += d));
  const origin = `http://127.0.0.1:${port}`;
  for (const deadline = Date.now() + 30000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 200))) {
    if (proc.exitCode !== null) throw new Error(`vite dev server exited with ${proc.exitCode}: ${stderr}`);
    try {
      if ((await fetch(`${origin}/`)).ok) return { origin, close: () => proc.kill('SIGTERM') };
    } catch {
      // not listening yet
    }
  }
  proc.kill('SIGTERM');
  throw new Error(`vite dev server did not answer in 30 s: ${stderr}`);
}

describe('vite dev server (dependency pre-bundling on, nothing configured for relpos)', () => {
  for (const isolated of [true, false]) {
    describe(isolated ? 'with cross-origin isolation headers (server.headers)' : 'without cross-origin isolation', () => {
      let run;
      before(async () => {
        if (missing) throw new Error(missing);
        if (!fixture) throw new Error(`no HF fixtures at ${FIXTURES}`);
        await (consumer ??= installConsumer());
        const dev = await startViteDev(isolated ? 'vite.isolated.config.mjs' : 'vite.config.mjs');
        try {
          run = await openApp(dev.origin, { routeFixtures: true });
        } finally {
          dev.close();
        }
      });

      it('attention and the bert-absolute forward match the references', () => {
        checkResults(run);
        assert.equal(run.result.crossOriginIsolated, isolated, 'crossOriginIsolated');
      });

      const wasm = isolated ? THREADS_WASM : 'relpos-simd.wasm';
      it(isolated ? `runs on several threads (${wasm} and a worker loaded; the lab's worker and .wasm)` : `runs on one thread (${wasm} loaded, no worker but the lab's) and rp.threadsReason says why`, () => {
        const fetched = run.log.filter((r) => r.status === 200 && r.path.endsWith('.wasm')).map((r) => r.path.split('/').pop());
        assert.deepEqual(fetched.sort(), [wasm, LAB_WASM].sort(), 'the .wasm fetched');
        const lab = run.workers.filter((w) => /lab-worker\.js/.test(new URL(w).pathname));
        assert.equal(lab.length, 1, `one lab worker among ${run.workers.join(', ')}`);
        const others = run.workers.filter((w) => !lab.includes(w));
        if (isolated) {
          assert.ok(run.result.threads > 1, `rp.threads = ${run.result.threads} (rp.threadsReason: ${run.result.threadsReason})`);
          assert.ok(others.length >= 1, 'no threads worker started');
          for (const w of others) assert.match(new URL(w).pathname, /relpos-simd-threads\.worker\.js$/, 'worker script');
        } else {
          assert.deepEqual(others, [], 'workers started besides the lab\'s');
          assert.equal(run.result.threads, 1, 'rp.threads');
          assert.match(String(run.result.threadsReason), /cross-?origin ?isolat/i);
        }
      });
    });
  }
});
