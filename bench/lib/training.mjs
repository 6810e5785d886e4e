// Issue #18: training throughput of the lab module (web/lab.js → relpos-lab-simd.wasm), one worker,
// one thread, the demo's default settings (lab.DEFAULTS: shift-k k = 3, L = 16, batch 32, d 64,
// 2 layers, 4 heads, 300 steps).
//   node       every scheme trained with the defaults in Node: training seconds (the demo's 60 s budget is
//              per scheme), forward + backward tokens/s (steps × batch × L ÷ seconds) and training GFLOP/s
//              (run.flops = 3 × forward multiply–add FLOPs × steps, ÷ seconds); then the same model's
//              forward pass alone (run.evaluate at L on `fwdBatches` batches, timed from outside — a worker
//              round trip of < 1 ms on ≥ 0.3 s) as forward GFLOP/s: training ÷ forward is the fraction
//              the issue targets (≥ 0.5). Forward FLOPs per batch = run.flops ÷ (3 × steps).
//   chromium   the demo page's "Train short, test long" section with its defaults (every scheme, one run at a
//              time) in headless Chromium: per-scheme training seconds as the page reports them.
import path from 'node:path';
import fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const r3 = (x) => (x == null || !Number.isFinite(x) ? null : +x.toFixed(3));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

export async function trainingThroughput({ webDir, quick, log, fwdBatches = 64, fwdReps = 3 }) {
  const { lab } = await import(path.join(webDir, 'lab.js'));
  const d = lab.DEFAULTS;
  const steps = quick ? 60 : d.steps;
  const out = { settings: { ...d, steps, build: 'simd', threads: 1 }, rows: [] };
  for (const scheme of lab.SCHEMES) {
    const run = await lab.train({ ...d, model: { ...d.model }, scheme, steps, build: 'simd' });
    try {
      const tokens = steps * d.batch * d.trainLength;
      const fwdFlopsPerBatch = run.flops / (3 * steps);
      const fwd = [];
      for (let i = 0; i < fwdReps; i++) {
        const t0 = performance.now();
        await run.evaluate([d.trainLength], { batches: fwdBatches });
        fwd.push((performance.now() - t0) / 1000);
      }
      const fwdS = median(fwd);
      const trainGflops = run.flops / run.seconds / 1e9;
      const fwdGflops = (fwdFlopsPerBatch * fwdBatches) / fwdS / 1e9;
      const row = {
        scheme, steps, train_s: r3(run.seconds), tokens_per_s: Math.round(tokens / run.seconds),
        train_gflops: r3(trainGflops), forward_gflops: r3(fwdGflops), train_over_forward: r3(trainGflops / fwdGflops),
        final_loss: r3(run.losses[run.losses.length - 1]),
      };
      out.rows.push(row);
      log?.(`training ${scheme}: ${row.train_s} s for ${steps} steps, ${row.tokens_per_s} tokens/s, ${row.train_gflops} GFLOP/s (forward alone ${row.forward_gflops}, ratio ${row.train_over_forward})`);
    } finally {
      run.dispose();
    }
  }
  return out;
}

/**
 * The demo's default run in Chromium, in a child process (`node bench/lib/training.mjs --chromium`):
 * playwright-core does not load inside the bench process, whose earlier sections install browser-like
 * globals (the threads build's Worker shim).
 */
export function trainingInChromium({ root, log }) {
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--chromium', root], { encoding: 'utf8', maxBuffer: 1 << 24, timeout: 25 * 60 * 1000 });
  const line = r.stdout.trim().split('\n').pop();
  let out;
  try {
    out = JSON.parse(line);
  } catch {
    return { unavailable: `child exited with ${r.status}: ${(r.stderr || r.stdout).slice(-600)}` };
  }
  for (const x of out.rows ?? []) log?.(`training in Chromium ${x.scheme}: ${x.train_s} s (${x.gflops} GFLOP/s, ${x.build})`);
  return out;
}

async function chromiumRun({ root, timeoutMs = 20 * 60 * 1000 }) {
  const helpers = path.join(root, 'tests/browser/helpers.mjs');
  if (!fs.existsSync(path.join(root, 'tests/browser/node_modules/playwright-core'))) return { unavailable: 'tests/browser dependencies not installed (npm ci --prefix tests/browser)' };
  const { startServer, launch, openDemo } = await import(helpers);
  const server = await startServer();
  const browser = await launch({ width: 1280, height: 800 });
  try {
    const page = browser.page;
    await openDemo(page, server.url);
    const env = await page.evaluate(() => ({ cores: navigator.hardwareConcurrency, ua: navigator.userAgent }));
    await page.locator('#lab select[name=lab-parallel]').selectOption('1');
    const t0 = performance.now();
    await page.evaluate(() => globalThis.relposDemo.lab.train());
    await page.waitForFunction(() => globalThis.relposDemo.lab.runs === 1 && !globalThis.relposDemo.lab.running, null, { timeout: timeoutMs, polling: 1000 });
    const wall = (performance.now() - t0) / 1000;
    const s = await page.evaluate(() => {
      const st = globalThis.relposDemo.lab;
      return { error: st.error, config: st.config, rows: Object.entries(st.results).map(([scheme, r]) => ({ scheme, train_s: r.seconds, gflops: r.flops / r.seconds / 1e9, build: r.build, acc: r.accuracy.map((a) => [a.length, a.accuracy]) })) };
    });
    if (s.error) return { unavailable: s.error };
    const rows = s.rows.map((r) => ({ scheme: r.scheme, train_s: r3(r.train_s), gflops: r3(r.gflops), build: r.build, accuracy: r.acc.map(([n, a]) => [n, r3(a)]) }));
    return { chromium: env.ua.match(/Chrome\/[\d.]+/)?.[0], cores: env.cores, settings: s.config, wall_s: r3(wall), max_train_s: r3(Math.max(...rows.map((r) => r.train_s))), rows };
  } finally {
    await browser.close();
    server.close();
  }
}

if (process.argv[2] === '--chromium') {
  const out = await chromiumRun({ root: process.argv[3] }).catch((e) => ({ unavailable: e.stack ?? e.message }));
  console.log(JSON.stringify(out));
  process.exit(0);
}
