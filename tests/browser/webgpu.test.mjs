// The WebGPU kernels (web/webgpu/) in headless Chromium on SwiftShader (`--enable-unsafe-webgpu
// --use-webgpu-adapter=swiftshader`, an http://127.0.0.1 page: WebGPU needs a secure context): the module
// loads by dynamic import, finds navigator.gpu, reports the adapter, and a GEMM (bias + GELU) and a masked,
// windowed ALiBi attention match float64 recomputations made in the page. No navigator.gpu: the test fails
// under CI (process.env.CI) and skips elsewhere.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { chromium } from 'playwright-core';

import { startServer } from './helpers.mjs';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--enable-unsafe-webgpu', '--use-webgpu-adapter=swiftshader',
  '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-sync'];

let server, context, page, profile;
before(async () => {
  server = await startServer();
  profile = mkdtempSync(join(tmpdir(), 'relpos-chromium-'));
  context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: ARGS, headless: true });
  page = context.pages()[0] ?? (await context.newPage());
  // Any page of the server gives the origin; the module itself is imported inside evaluate().
  await page.goto(server.url.replace(/demo\/$/, 'web/webgpu/index.js'));
});
after(async () => {
  await context?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
  server?.close();
});

test('web/webgpu in Chromium (SwiftShader): adapter, GEMM + GELU and windowed ALiBi attention equal float64', async (t) => {
  const hasGpu = await page.evaluate(() => !!navigator.gpu);
  if (!hasGpu) {
    if (process.env.CI) assert.fail('Chromium exposes no navigator.gpu under CI (--enable-unsafe-webgpu --use-webgpu-adapter=swiftshader)');
    return t.skip('Chromium exposes no navigator.gpu here');
  }
  const r = await page.evaluate(async () => {
    const W = await import('/web/webgpu/index.js');
    const gpu = await W.createContext();
    const rnd = (n, seed) => { let s = seed >>> 0; return Float32Array.from({ length: n }, () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) >>> 8) / 2 ** 23 - 1); };
    const erf = (x) => { const a = Math.abs(x); if (a >= 4) return Math.sign(x); let t = a, s = a; for (let n = 1; n < 80; ++n) { t *= (-a * a) / n; s += t / (2 * n + 1); } return Math.sign(x) * (2 / Math.sqrt(Math.PI)) * s; };
    // GEMM: C = gelu(A·Wᵀ + b), ragged shape.
    const M = 37, N = 20, K = 24;
    const A = rnd(M * K, 1), B = rnd(N * K, 2), bias = rnd(N, 3);
    const c = gpu.empty(M * N * 4);
    await gpu.run((enc) => W.gemm(gpu, enc, { a: gpu.upload(A), b: gpu.upload(B), bias: gpu.upload(bias), c, M, N, K, activation: 'gelu' }));
    const C = await gpu.read(c, M * N);
    let gemmErr = 0;
    for (let i = 0; i < M; ++i) for (let j = 0; j < N; ++j) {
      let s = bias[j];
      for (let k = 0; k < K; ++k) s += A[i * K + k] * B[j * K + k];
      gemmErr = Math.max(gemmErr, Math.abs(0.5 * s * (1 + erf(s / Math.SQRT2)) - C[i * N + j]));
    }
    // Attention: 2 heads, 19 tokens, d 8, ALiBi, key 4 masked, window 3.
    const H = 2, L = 19, D = 8, w = 3, slopes = W.alibiSlopes(H, 'bloom');
    const q = rnd(H * L * D, 4), k = rnd(H * L * D, 5), v = rnd(H * L * D, 6);
    const mask = new Uint32Array(L).fill(1); mask[4] = 0;
    const out = gpu.empty(H * L * D * 4);
    await gpu.run((enc) => W.attention(gpu, enc, { q: gpu.upload(q), k: gpu.upload(k), v: gpu.upload(v), out, batch: 1, heads: H, seqLen: L, headDim: D, mask: gpu.upload(mask), window: w, scheme: { type: 'alibi', slopes: gpu.upload(slopes) } }));
    const O = await gpu.read(out, H * L * D);
    let attErr = 0;
    for (let h = 0; h < H; ++h) for (let i = 0; i < L; ++i) {
      const s = []; let mx = -Infinity;
      for (let j = 0; j < L; ++j) {
        if (!mask[j] || Math.abs(i - j) > w) { s.push(null); continue; }
        let d = 0; for (let c2 = 0; c2 < D; ++c2) d += q[(h * L + i) * D + c2] * k[(h * L + j) * D + c2];
        const x = d / Math.sqrt(D) + slopes[h] * (j - i); s.push(x); mx = Math.max(mx, x);
      }
      const p = s.map((x) => (x === null ? 0 : Math.exp(x - mx))); const sum = p.reduce((a, b) => a + b, 0);
      for (let c2 = 0; c2 < D; ++c2) { let o = 0; for (let j = 0; j < L; ++j) o += p[j] * v[(h * L + j) * D + c2]; attErr = Math.max(attErr, Math.abs(o / sum - O[(h * L + i) * D + c2])); }
    }
    const info = gpu.info;
    gpu.destroy();
    return { info, gemmErr, attErr };
  });
  assert.equal(r.info.source, 'navigator.gpu');
  assert.equal(r.info.backend, 'webgpu');
  assert.ok(r.gemmErr < 2e-5, `gemm error ${r.gemmErr}`);
  assert.ok(r.attErr < 2e-6, `attention error ${r.attErr}`);
  t.diagnostic(`adapter ${JSON.stringify(r.info)}; gemm ${r.gemmErr.toExponential(2)}, attention ${r.attErr.toExponential(2)}`);
});
