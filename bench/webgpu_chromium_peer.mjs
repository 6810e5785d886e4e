#!/usr/bin/env node
// relpos WebGPU vs Transformers.js WebGPU in one Chromium page (issue #27's peer comparison), on the same
// inputs: ../shared/bench-models/bert-minilm-layer (a MiniLM-L6-shaped BERT layer: hidden 384, 12 heads × 32,
// intermediate 1536, vocabulary 512; model.safetensors and model.onnx hold the same random weights).
//
//   relpos           rp.loadModel(folder, { device: 'webgpu' }) (config.json + model.safetensors), forward()
//   Transformers.js  @huggingface/transformers (bench/ devDependency) AutoModel.from_pretrained(folder,
//                    { device: 'webgpu', dtype: 'fp32' }) on onnx/model.onnx — the same ONNX export with its
//                    external weights (ONNX external data pointing into model.safetensors) inlined, because
//                    Transformers.js reads onnx/<name>.onnx (+ <name>.onnx_data), not a safetensors file
//   both also on WebAssembly (relpos device 'wasm', Transformers.js device 'wasm'), the CPU baseline of the same page.
//
// The folder Transformers.js needs (config.json, onnx/model.onnx; no tokenizer: the inputs are token ids, the
// vocabulary is random) is built under bench/results/tmp/ (git-ignored) and served with relpos's web/ and both
// packages by the peer benches' static server, bench/lib/chromium_page.mjs (COOP/COEP: cross-origin isolated, so ORT may use threads).
// Correctness: max |Δ| of each runtime's last hidden state to transformers' (PyTorch) expected.safetensors at
// the fixture's 128 tokens, and relpos vs Transformers.js at every length. Cost: ms per forward (batch 1,
// the output read back to the CPU), median of `reps` calls after 2 warm-ups, the runtimes interleaved per rep.
//
//   node bench/webgpu_chromium_peer.mjs [--reps N] [--seqs 32,128] [--out file.json]
// Chromium: /usr/bin/chromium (CHROMIUM_PATH) with --enable-unsafe-webgpu --use-webgpu-adapter=swiftshader by
// default (SwiftShader: WebGPU on the CPU); RELPOS_CHROMIUM_GPU=1 drops the SwiftShader flag and adds
// --enable-features=Vulkan --ignore-gpu-blocklist so Chromium picks the machine's GPU (needs a GPU driver with a
// Vulkan ICD that Chromium's Dawn can open; see the gpupeer section of bench/results/latest.md).
// The last stdout line is the JSON result; a runtime that fails is recorded with its exact error.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { arg, chromiumArgs, cliResult, inFreshPage, peerDists, playwrightChromium, serve } from './lib/chromium_page.mjs';
import { inlineOnnx } from './lib/onnx_inline.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..');
const MODEL = path.resolve(ROOT, '../shared/bench-models/bert-minilm-layer');
const TMP = path.join(HERE, 'results/tmp/webgpu-chromium-peer');

function buildFolder() {
  const dir = path.join(TMP, 'minilm-layer');
  fs.mkdirSync(path.join(dir, 'onnx'), { recursive: true });
  fs.copyFileSync(path.join(MODEL, 'config.json'), path.join(dir, 'config.json'));
  fs.copyFileSync(path.join(MODEL, 'model.safetensors'), path.join(dir, 'model.safetensors'));
  const { bytes, inlined } = inlineOnnx(path.join(MODEL, 'model.onnx'), path.join(MODEL, 'model.safetensors'));
  fs.writeFileSync(path.join(dir, 'onnx', 'model.onnx'), bytes);
  return { dir, inlined, onnxBytes: bytes.length };
}

/** Runs inside the page: loads every runtime, checks and times them. */
async function inPage({ ids, seqs, reps, expected }) {
  const out = { adapter: null, runtimes: {}, rows: [] };
  const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const n = s.length; return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2; };
  const maxAbs = (a, b, n) => { let m = 0; for (let i = 0; i < n; i++) m = Math.max(m, Math.abs(a[i] - b[i])); return m; };
  const idsAt = (S) => (S <= ids.length ? ids.slice(0, S) : Array.from({ length: S }, (_, i) => (i * 7919 + 13) % 512));
  const { errorText: err, browserFacts } = await import('/page/peer_page.mjs');  // bench/page/
  if (navigator.gpu) {
    const a = await navigator.gpu.requestAdapter();
    out.adapter = a ? { vendor: a.info?.vendor, architecture: a.info?.architecture, description: a.info?.description, device: a.info?.device } : null;
  }
  const runners = {};
  // relpos, both devices
  try {
    const { init } = await import('/web/index.js');
    const rp = await init({ simd: true, wasmPaths: '/web/dist/' });
    for (const device of ['webgpu', 'wasm']) {
      const name = `relpos ${device}`;
      try {
        const model = await rp.loadModel('/models/minilm-layer/', { device });
        out.runtimes[name] = { device: model.info.device, threads: rp.threads ?? 1 };
        runners[name] = async (S) => (await model.forwardAsync({ inputIds: [idsAt(S)] })).lastHiddenState.data;
      } catch (e) {
        out.runtimes[name] = { error: err(e) };
      }
    }
  } catch (e) {
    out.runtimes['relpos webgpu'] = out.runtimes['relpos wasm'] = { error: `relpos did not load: ${err(e)}` };
  }
  // Transformers.js, both devices
  try {
    const { loadTransformers } = await import('/page/transformers_env.mjs');  // bench/page/: the env every peer page sets
    const T = await loadTransformers();  // ORT's default wasm thread count
    out.tjsVersion = T.env.version;
    out.ortVersion = T.env.backends.onnx.versions?.web ?? null;
    for (const device of ['webgpu', 'wasm']) {
      const name = `Transformers.js ${device}`;
      try {
        const model = await T.AutoModel.from_pretrained('minilm-layer', { device, dtype: 'fp32' });
        out.runtimes[name] = { device };
        runners[name] = async (S) => {
          const x = idsAt(S);
          const r = await model({
            input_ids: new T.Tensor('int64', BigInt64Array.from(x, BigInt), [1, S]),
            attention_mask: new T.Tensor('int64', new BigInt64Array(S).fill(1n), [1, S]),
          });
          const t = r.last_hidden_state;
          return t.location && t.location !== 'cpu' ? (await t.getData?.(true)) ?? t.data : t.data;
        };
      } catch (e) {
        out.runtimes[name] = { error: err(e) };
      }
    }
    out.ortWasmThreads = T.env.backends.onnx.wasm.numThreads ?? null; // ORT fills it in when its wasm starts
  } catch (e) {
    out.runtimes['Transformers.js webgpu'] = out.runtimes['Transformers.js wasm'] = { error: `Transformers.js did not load: ${err(e)}` };
  }
  for (const S of seqs) {
    const row = { seq: S, ms: {}, min_ms: {}, max_ms: {}, runs: {}, err_vs_pytorch: {}, err_vs_relpos_webgpu: {}, errors: {} };
    const outputs = {};
    const live = Object.keys(runners);
    for (const name of live) {
      try {
        outputs[name] = Float32Array.from(await runners[name](S)); // first call: warm-up 1
        await runners[name](S); // warm-up 2
      } catch (e) {
        row.errors[name] = err(e);
      }
    }
    const times = Object.fromEntries(live.map((n) => [n, []]));
    for (let r = 0; r < reps; r++)
      for (const name of live) {
        if (row.errors[name]) continue;
        try {
          const t = performance.now();
          await runners[name](S);
          times[name].push(performance.now() - t);
        } catch (e) {
          row.errors[name] = err(e);
        }
      }
    const n = S * 384;
    for (const name of live) {
      if (row.errors[name]) continue;
      row.ms[name] = +median(times[name]).toFixed(3);
      row.min_ms[name] = +Math.min(...times[name]).toFixed(3);
      row.max_ms[name] = +Math.max(...times[name]).toFixed(3);
      row.runs[name] = times[name].length;
      if (S === expected.seq) row.err_vs_pytorch[name] = maxAbs(outputs[name], expected.data, n);
      if (outputs['relpos webgpu'] && name !== 'relpos webgpu') row.err_vs_relpos_webgpu[name] = maxAbs(outputs[name], outputs['relpos webgpu'], n);
    }
    out.rows.push(row);
  }
  return Object.assign(out, browserFacts());
}

export async function chromiumPeer({ reps = 7, seqs = [32, 128], log = () => {} } = {}) {
  const dists = peerDists();
  if (dists.unavailable) return dists;
  if (!fs.existsSync(path.join(ROOT, 'web/dist/relpos-simd.wasm'))) return { unavailable: 'web/dist is not built (bash scripts/build.sh --package)' };
  const loadavgAtStart = os.loadavg().map((x) => +x.toFixed(2));
  const folder = buildFolder();
  log(`webgpu-chromium-peer: ${folder.dir} (onnx/model.onnx: ${folder.inlined} initializers inlined, ${(folder.onnxBytes / 1e6).toFixed(1)} MB)`);
  const { readSafetensors } = await import('./lib/e2e_models.mjs');
  const input = JSON.parse(fs.readFileSync(path.join(MODEL, 'input.json'), 'utf8'));
  const exp = readSafetensors(path.join(MODEL, 'expected.safetensors')).last_hidden_state;
  const { server, url } = await serve({ web: path.join(ROOT, 'web'), tjs: dists.tjs, ort: dists.ort, models: TMP }, { title: 'relpos vs Transformers.js, WebGPU' });
  const chromium = await playwrightChromium();
  const realGpu = !!process.env.RELPOS_CHROMIUM_GPU;
  // a real GPU on Linux: Dawn's Vulkan backend, past the GPU blocklist (not tried here: no GPU machine with a browser)
  const gpuArgs = realGpu ? ['--enable-features=Vulkan', '--ignore-gpu-blocklist'] : ['--use-webgpu-adapter=swiftshader'];
  const args = chromiumArgs(['--enable-unsafe-webgpu', ...gpuArgs]);
  const consoleErrors = [];
  const listen = (page) => {
    page.on('console', (m) => { if (m.type() === 'error' || m.type() === 'warning') consoleErrors.push(m.text().slice(0, 400)); });
    page.on('pageerror', (e) => consoleErrors.push(String(e).slice(0, 400)));
  };
  try {
    return await inFreshPage(chromium, args, TMP, url, async (page) => {
      const r = await page.evaluate(inPage, { ids: input.input_ids[0], seqs, reps, expected: { seq: exp.shape[1], data: Array.from(exp.data) } });
      for (const row of r.rows) log(`webgpu-chromium-peer seq ${row.seq}: ${Object.entries(row.ms).map(([n, ms]) => `${n} ${ms} ms`).join(', ')}`);
      return {
        model: 'bert-minilm-layer (MiniLM-L6-shaped BERT, one layer, random weights; ../shared/bench-models)',
        chromium: r.ua.match(/Chrome\/[\d.]+/)?.[0] ?? r.ua, webgpu_adapter: r.adapter, adapter_flag: realGpu ? 'the machine\'s GPU' : '--use-webgpu-adapter=swiftshader',
        cores: r.cores, cross_origin_isolated: r.crossOriginIsolated, transformers_js: r.tjsVersion ?? null, ort_web: r.ortVersion ?? null, ort_wasm_threads: r.ortWasmThreads ?? null,
        reps, batch: 1, loadavg_at_start: loadavgAtStart, loadavg_at_end: os.loadavg().map((x) => +x.toFixed(2)), runtimes: r.runtimes, rows: r.rows, console: [...new Set(consoleErrors)].slice(0, 12),
      };
    }, { before: listen });
  } finally {
    server.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const seqs = arg('seqs', '32,128').split(',').map(Number);
  await cliResult(() => chromiumPeer({ reps: Number(arg('reps', 7)), seqs, log: (...a) => console.error(...a) }));
}
