// The `webgpu` bench section (issue #27). This machine has no GPU, so the section reads the newest run of
// bench/gpu/run.sh that a session with a GPU machine committed under bench/results/gpu/<device>-<date>/
// (gpu-bench-run*.json from bench/gpu/bench.mjs, wasm-peer.json from bench/gpu/wasm_peer.mjs — relpos's
// WebAssembly package on the same machine's CPU) and reports it with the device named; nothing is re-measured.
// Targets: GEMM ≥ 20 TFLOP/s fp32 at 4096²; relpos WebGPU ≥ 20× relpos WASM at 2 threads on the same machine
// (here per encoder layer: the GPU layer recorded as one command buffer of the WGSL kernels vs the WASM package's
// layer, T(2-layer model) − T(1-layer model)).
import fs from 'node:fs';
import path from 'node:path';

const fmt = (x, d = 2) => (x === null || x === undefined || Number.isNaN(x) ? '–' : typeof x === 'number' ? x.toFixed(d) : String(x));

export function webgpuResults(resultsDir) {
  const root = path.join(resultsDir, 'gpu');
  if (!fs.existsSync(root)) return { unavailable: `no committed GPU run under ${root}` };
  const dirs = fs.readdirSync(root).filter((d) => fs.existsSync(path.join(root, d, 'wasm-peer.json'))).sort();
  if (!dirs.length) return { unavailable: `no committed GPU run with wasm-peer.json under ${root}` };
  const dir = path.join(root, dirs[dirs.length - 1]);
  const runs = fs.readdirSync(dir).filter((f) => /^gpu-bench-run\d+\.json$/.test(f)).sort()
    .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')));
  const peer = JSON.parse(fs.readFileSync(path.join(dir, 'wasm-peer.json'), 'utf8'));
  const best = (rows) => rows.reduce((a, b) => (b.tflops > a.tflops ? b : a));
  const gemm4096 = runs.map((r) => best(r.gemm.filter((g) => g.M === 4096 && g.N === 4096 && g.K === 4096 && g.layout === 'A·Wᵀ' && !g.epilogue && g.variant !== 'naive16')));
  const naive4096 = runs.map((r) => r.gemm.find((g) => g.M === 4096 && g.variant === 'naive16'));
  const layerMs = (name) => runs.map((r) => r.layers.find((l) => l.name.startsWith(name))?.layerMs).filter((x) => x != null);
  const layers = [
    { name: 'MiniLM-L6 layer, 64 texts × 128 tokens', gpu: layerMs('MiniLM-L6 layer') },
    { name: 'base-shaped layer, 512 tokens', gpu: layerMs('BERT/DeBERTa-base-shaped layer') },
  ].map((l) => {
    const wasm = (t) => peer.rows.find((r) => r.shape === l.name && r.threads === t)?.layer_ms ?? null;
    const gpu = Math.min(...l.gpu);
    return { ...l, gpu_ms: gpu, wasm_1_ms: wasm(1), wasm_2_ms: wasm(2), wasm_all_ms: wasm(peer.cores), cores: peer.cores,
      gpu_over_wasm_2: wasm(2) ? +(wasm(2) / gpu).toFixed(1) : null, gpu_over_wasm_all: wasm(peer.cores) ? +(wasm(peer.cores) / gpu).toFixed(1) : null };
  });
  const r0 = runs[runs.length - 1];
  // Whole models through rp.loadModel(…, { device: 'webgpu' }) (bench.mjs) against the same model's WASM forward
  // on the same machine (wasm_peer.mjs 'MiniLM-L6-shaped model' rows), where both were measured.
  const models = runs.flatMap((r) => r.models ?? []).filter((m) => m.forwardMs != null);
  const modelRows = [];
  if (models.length) {
    const gpu = Math.min(...models.map((m) => m.forwardMs));
    const wasm = (t) => peer.rows.find((r) => r.shape.startsWith('MiniLM-L6-shaped model') && r.threads === t)?.model_ms ?? null;
    modelRows.push({ name: models[0].name.replace(/, loadModel device webgpu$/, ''), gpu_ms: gpu, wasm_1_ms: wasm(1), wasm_2_ms: wasm(2), wasm_all_ms: wasm(peer.cores),
      cores: peer.cores, gpu_over_wasm_2: wasm(2) ? +(wasm(2) / gpu).toFixed(1) : null, gpu_over_wasm_all: wasm(peer.cores) ? +(wasm(peer.cores) / gpu).toFixed(1) : null });
  }
  return {
    run_dir: path.relative(path.resolve(resultsDir, '..', '..'), dir), device: r0.adapter.device, adapter: r0.adapter, cpu: peer.cpu, cores: peer.cores,
    runs: runs.length, date: r0.startedAt,
    gemm_4096_tflops: gemm4096.map((g) => +g.tflops.toFixed(2)), gemm_4096_variant: gemm4096[0]?.variant,
    naive_4096_tflops: naive4096.map((g) => (g ? +g.tflops.toFixed(2) : null)),
    gemm: r0.gemm.filter((g) => g.M === g.N && g.N === g.K).map((g) => ({ n: g.M, layout: g.layout, variant: g.variant, epilogue: g.epilogue ?? null, tflops: +g.tflops.toFixed(2) })),
    attention: r0.attention.map((a) => ({ seq: a.seqLen, scheme: a.scheme, window: a.window, bq: a.bq, ms: +a.ms.toFixed(3), tflops: +a.tflops.toFixed(2), err: a.maxAbsErrorSampledRows })),
    whole_layers: r0.layers.map((l) => ({ name: l.name, ms: +l.layerMs.toFixed(3), tflops: l.layerTflops != null ? +l.layerTflops.toFixed(2) : null })),
    layers,
    models: modelRows,
  };
}

export function webgpuTargets(r, add) {
  const w = r.webgpu;
  if (!w || w.unavailable) return;
  add(`WebGPU GEMM ≥ 20 TFLOP/s fp32 at 4096² (${w.device})`, Math.min(...w.gemm_4096_tflops) >= 20,
    `${w.gemm_4096_tflops.map((x) => fmt(x, 1)).join(', ')} TFLOP/s over ${w.runs} runs (${w.gemm_4096_variant}; a naive 16×16 tiled shader: ${w.naive_4096_tflops.map((x) => fmt(x, 1)).join(', ')})`);
  for (const m of w.models ?? [])
    add(`relpos WebGPU ≥ 20× relpos WASM at 2 threads on the same machine: ${m.name} through loadModel (${w.device}; ${w.cpu})`,
      m.gpu_over_wasm_2 != null ? m.gpu_over_wasm_2 >= 20 : null,
      `WebGPU ${fmt(m.gpu_ms, 2)} ms vs WASM ${fmt(m.wasm_2_ms, 0)} ms on 2 threads = ${fmt(m.gpu_over_wasm_2, 0)}× (${fmt(m.wasm_all_ms, 0)} ms on ${m.cores} threads = ${fmt(m.gpu_over_wasm_all, 0)}×)`);
  add('relpos WebGPU ≥ 20× relpos WASM at 2 threads: a DeBERTa-v3-base-shaped model at 512 tokens', null,
    'not run: DeBERTa-v2/v3 runs on the GPU (relative_vectors attention terms for c2p / p2c), but no device run of a DeBERTa-base-shaped model is committed yet (bench/gpu/relative_vectors.mjs times the attention terms); the base-shaped BERT layer row below is the closest measured shape');
  add(`relpos WebGPU ≥ 20× relpos WASM at 2 threads on the same machine, per encoder layer (${w.device}; ${w.cpu})`,
    w.layers.every((l) => l.gpu_over_wasm_2 >= 20),
    w.layers.map((l) => `${l.name}: ${fmt(l.gpu_ms, 2)} ms vs ${fmt(l.wasm_2_ms, 1)} ms = ${fmt(l.gpu_over_wasm_2, 0)}×`).join('; ') +
      ' — the layer\'s kernels recorded as one command buffer');
}

export function webgpuMarkdown(r, L) {
  const w = r.webgpu;
  if (!w) return;
  L.push('## WebGPU kernels on a GPU (`webgpu`: bench/gpu/, lib/webgpu.mjs)', '');
  if (w.unavailable) { L.push(w.unavailable, ''); return; }
  L.push(`Measured on **${w.device}** (${w.adapter.description}) through Dawn's Node binding (npm \`webgpu\`), ${w.runs} runs of \`bash bench/gpu/run.sh\` on ${w.date.slice(0, 10)}, committed in \`${w.run_dir}\`; the WebAssembly column is relpos's npm package on the same machine's CPU (${w.cpu}, ${w.cores} cores). fp32 throughout. Kernels and layers are web/webgpu/'s WGSL (each tested against its CPU twin on SwiftShader); whole models run the C++ model's plan through \`loadModel(…, { device: 'webgpu' })\` (web/webgpu/executor.js).`, '');
  L.push('| GEMM (A·Wᵀ) | ' + [...new Set(w.gemm.filter((g) => g.layout === 'A·Wᵀ' && !g.epilogue).map((g) => g.n))].map((n) => `${n}³ TFLOP/s`).join(' | ') + ' |');
  const ns = [...new Set(w.gemm.filter((g) => g.layout === 'A·Wᵀ' && !g.epilogue).map((g) => g.n))];
  L.push('| --- | ' + ns.map(() => '---:').join(' | ') + ' |');
  for (const v of [...new Set(w.gemm.map((g) => g.variant))])
    L.push(`| ${v} | ` + ns.map((n) => fmt(w.gemm.find((g) => g.n === n && g.variant === v && g.layout === 'A·Wᵀ' && !g.epilogue)?.tflops, 1)).join(' | ') + ' |');
  L.push('');
  L.push('| encoder layer | WebGPU ms | WASM 1 thread ms | WASM 2 threads ms | WASM all cores ms | WebGPU ÷ WASM 2 threads | ÷ all cores |', '| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const l of w.layers) L.push(`| ${l.name} | ${fmt(l.gpu_ms, 2)} | ${fmt(l.wasm_1_ms, 0)} | ${fmt(l.wasm_2_ms, 0)} | ${fmt(l.wasm_all_ms, 0)} (${l.cores}) | **${fmt(l.gpu_over_wasm_2, 0)}×** | ${fmt(l.gpu_over_wasm_all, 0)}× |`);
  L.push('');
  if (w.models?.length) {
    L.push('| model, through rp.loadModel | WebGPU ms | WASM 1 thread ms | WASM 2 threads ms | WASM all cores ms | WebGPU ÷ WASM 2 threads | ÷ all cores |', '| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
    for (const m of w.models) L.push(`| ${m.name} | ${fmt(m.gpu_ms, 2)} | ${fmt(m.wasm_1_ms, 0)} | ${fmt(m.wasm_2_ms, 0)} | ${fmt(m.wasm_all_ms, 0)} (${m.cores}) | **${fmt(m.gpu_over_wasm_2, 0)}×** | ${fmt(m.gpu_over_wasm_all, 0)}× |`);
    L.push('');
  }
  L.push('| attention (12 heads, d 64) | ms | TFLOP/s |', '| --- | ---: | ---: |');
  for (const a of w.attention.filter((x) => x.bq === 64)) L.push(`| ${a.seq} tokens, ${a.scheme}, ${a.window < 0 ? 'global' : 'window ' + a.window} | ${fmt(a.ms, 3)} | ${fmt(a.tflops, 1)} |`);
  L.push('');
  L.push('Whole layers as one command buffer: ' + w.whole_layers.map((l) => `${l.name} ${fmt(l.ms, 2)} ms`).join('; ') + '.', '');
}
