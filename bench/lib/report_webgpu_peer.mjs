// The `gpupeer` bench section (issue #27): relpos WebGPU vs Transformers.js WebGPU in one Chromium page on the
// MiniLM-shaped bench layer — bench/webgpu_chromium_peer.mjs, run in a child process (playwright-core does not
// load inside the bench process, whose earlier sections install browser-like globals), and its report.
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SCRIPT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'webgpu_chromium_peer.mjs');
const fmt = (x, d = 1) => (x === null || x === undefined || Number.isNaN(x) ? '–' : x.toFixed(d));
const exp = (x) => (x === null || x === undefined ? '–' : x.toExponential(1));
const RUNTIMES = ['relpos webgpu', 'Transformers.js webgpu', 'relpos wasm', 'Transformers.js wasm'];

/** What a GPU machine with a browser needs for this comparison on a real GPU (the report prints it). */
export const REAL_GPU_NEEDS = [
  'Chromium or Chrome with WebGPU (≥ 113; Debian\'s chromium 156 here) and its shared libraries — the Debian package is 348 MB with about 100 libraries (NSS, GTK/ATK, X11/xcb, …); the GPU machines lent to this project take at most 64 MiB from this checkout and reach no network, so it has not been run there',
  'a GPU driver whose Vulkan ICD Chromium\'s Dawn can open (NVIDIA: the driver\'s libGLX_nvidia plus GLVND — libglvnd0, libglx0, libegl1 — and libvulkan1, as scripts/gpu-carry.sh gathers them for the Node bench); no display is needed with headless Chromium',
  'Node 20, `npm ci --prefix tests/browser` (playwright-core) and `npm ci --prefix bench` (Transformers.js 4.3.1 with its onnxruntime-web), web/dist built, ../shared/bench-models/bert-minilm-layer',
  'then `RELPOS_CHROMIUM_GPU=1 node bench/webgpu_chromium_peer.mjs` (no --use-webgpu-adapter=swiftshader; adds --enable-features=Vulkan --ignore-gpu-blocklist, which Chromium on Linux needs for WebGPU on most GPUs); the row\'s adapter names the GPU. Longer inputs (--seqs 128,512) and more layers say more on a real GPU than one layer at 32–128 tokens',
];

export function webgpuChromiumPeer({ reps = 7, seqs = [32, 128], log }) {
  const r = spawnSync(process.execPath, [SCRIPT, '--reps', String(reps), '--seqs', seqs.join(',')], { encoding: 'utf8', maxBuffer: 1 << 26, timeout: 30 * 60 * 1000 });
  const line = (r.stdout ?? '').trim().split('\n').pop();
  let out;
  try {
    out = JSON.parse(line);
  } catch {
    return { unavailable: `bench/webgpu_chromium_peer.mjs exited with ${r.status}: ${(r.stderr || r.stdout || '').slice(-800)}` };
  }
  for (const row of out.rows ?? []) log?.(`gpupeer seq ${row.seq}: ${Object.entries(row.ms).map(([n, ms]) => `${n} ${ms} ms`).join(', ')}`);
  return out;
}

export function webgpuPeerTargets(r, add) {
  const p = r.webgpu_chromium_peer;
  if (!p || p.unavailable) return;
  const at = p.rows.find((x) => x.err_vs_pytorch['relpos webgpu'] !== undefined);
  const e = at?.err_vs_pytorch['relpos webgpu'];
  add(`relpos WebGPU in Chromium matches transformers (PyTorch) within 1e-4, as Transformers.js WebGPU does (${p.webgpu_adapter ? `${p.webgpu_adapter.vendor}/${p.webgpu_adapter.architecture}` : 'no adapter'})`,
    e !== undefined ? e <= 1e-4 : null,
    at ? `max |Δ| at ${at.seq} tokens: relpos ${exp(e)}, Transformers.js ${exp(at.err_vs_pytorch['Transformers.js webgpu'])}; relpos vs Transformers.js ${exp(at.err_vs_relpos_webgpu['Transformers.js webgpu'])}` : 'no row with the PyTorch reference');
}

export function webgpuPeerMarkdown(r, L) {
  const p = r.webgpu_chromium_peer;
  if (!p) return;
  L.push('## relpos WebGPU vs Transformers.js WebGPU in Chromium (`gpupeer`: bench/webgpu_chromium_peer.mjs)', '');
  if (p.unavailable) {
    L.push(`Not measured: ${p.unavailable}`, '');
    return;
  }
  const a = p.webgpu_adapter;
  const swift = a?.architecture === 'swiftshader';
  L.push(`One page of headless ${p.chromium} (${p.adapter_flag}; adapter ${a ? `${a.vendor} / ${a.architecture}${a.description ? ` / ${a.description}` : ''}` : 'none'}; ${p.cores} cores, cross-origin isolated ${p.cross_origin_isolated}) runs ${p.model} through relpos (\`rp.loadModel(folder, { device })\`, model.safetensors) and Transformers.js ${p.transformers_js} (\`AutoModel.from_pretrained(folder, { device, dtype: 'fp32' })\`, onnxruntime-web ${p.ort_web}, the same weights as onnx/model.onnx), batch 1, the same token ids; ms per forward with the last hidden state read back to JavaScript, median of ${p.reps} calls after 2 warm-ups (min–max in brackets), runtimes interleaved per call${p.loadavg_at_start ? `; load average ${p.loadavg_at_start[0]} → ${p.loadavg_at_end[0]} on a machine shared with other work, hence the wide ranges` : ''}. Max |Δ| is to transformers' PyTorch output (expected.safetensors, 128 tokens) and to relpos WebGPU's output.`, '');
  L.push('| tokens | ' + RUNTIMES.map((n) => `${n} ms`).join(' | ') + ' | Transformers.js ÷ relpos (WebGPU) | max \\|Δ\\| to PyTorch: relpos / Transformers.js WebGPU | relpos vs Transformers.js WebGPU |',
    '| ---: | ' + RUNTIMES.map(() => '---:').join(' | ') + ' | ---: | ---: | ---: |');
  for (const row of p.rows) {
    const g = row.ms['relpos webgpu'], t = row.ms['Transformers.js webgpu'];
    L.push(`| ${row.seq} | ` + RUNTIMES.map((n) => (row.errors[n] ? 'failed' : `${fmt(row.ms[n])} (${fmt(row.min_ms?.[n])}–${fmt(row.max_ms?.[n])})`)).join(' | ') +
      ` | ${g && t ? `${(t / g).toFixed(2)}×` : '–'} | ${exp(row.err_vs_pytorch['relpos webgpu'])} / ${exp(row.err_vs_pytorch['Transformers.js webgpu'])} | ${exp(row.err_vs_relpos_webgpu['Transformers.js webgpu'])} |`);
  }
  L.push('');
  const failed = Object.entries(p.runtimes).filter(([, v]) => v.error).concat(p.rows.flatMap((row) => Object.entries(row.errors).map(([n, e]) => [`${n} at ${row.seq} tokens`, { error: e }])));
  if (failed.length) L.push('Failures, as thrown: ' + failed.map(([n, v]) => `${n}: \`${v.error}\``).join('; ') + '.', '');
  const wasm = `WebAssembly columns: relpos on ${p.runtimes['relpos wasm']?.threads ?? '?'} thread(s), onnxruntime-web with numThreads ${p.ort_wasm_threads ?? '(not reported)'}.`;
  if (swift)
    L.push(`SwiftShader is Vulkan in software on the CPU: these times show that both WebGPU paths run and agree in a browser, and their relative dispatch cost on a software GPU, not GPU speed (WebAssembly is faster than either here). ${wasm}`, '');
  else L.push(wasm, '');
  L.push('To run it on a real GPU, a GPU machine with a browser needs:', '', ...REAL_GPU_NEEDS.map((x) => `- ${x}`), '');
}
