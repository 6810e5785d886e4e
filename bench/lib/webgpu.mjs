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
  // bench/gpu/models.mjs (newer runs): whole models, WebGPU (fp32 / fp16 / q8) and WASM on the same machine, same inputs.
  // Later runs may measure only some parts: each file comes from the newest committed run that has it (by the
  // startedAt it records), and whole-model rows per model from the newest run that measured that model.
  const runsWith = (file) => fs.readdirSync(root).filter((x) => fs.existsSync(path.join(root, x, file)))
    .map((x) => ({ dir: path.join(root, x), json: JSON.parse(fs.readFileSync(path.join(root, x, file), 'utf8')) }))
    .sort((a, b) => String(a.json.startedAt ?? a.dir).localeCompare(String(b.json.startedAt ?? b.dir)));
  const newest = (file) => { const r = runsWith(file); return r.length ? path.join(r[r.length - 1].dir, file) : null; };
  const rel = (d) => path.relative(path.resolve(resultsDir, '..', '..'), d);
  let whole = null;
  const modelRuns = runsWith('models.json');
  const modelsDirs = new Set();
  if (modelRuns.length) {
    const latest = new Map(); // key → { run, rows }
    for (const run of modelRuns) for (const key of new Set(run.json.rows.map((x) => x.key))) latest.set(key, { run, rows: run.json.rows.filter((x) => x.key === key) });
    whole = [...latest.entries()].map(([key, { run, rows }]) => {
      const mj = run.json;
      modelsDirs.add(rel(run.dir));
      const wasm = (t) => rows.find((x) => x.device === 'wasm' && x.threads === t)?.ms ?? null;
      const gpu = (d) => rows.find((x) => x.device === 'webgpu' && x.dtype === d) ?? {};
      const g = gpu('fp32');
      return {
        key, name: rows[0].model, dir: rel(run.dir), gpu_ms: g.ms ?? null, gpu_error: g.error ?? null, fp16_ms: gpu('fp16').ms ?? null, fp16_error: gpu('fp16').error ?? null,
        fp16_vs_wasm: gpu('fp16').vsWasmFp32 ?? null, q8_ms: gpu('q8').ms ?? null, q8_error: gpu('q8').error ?? null, q8_vs_wasm: gpu('q8').vsWasmFp32 ?? null,
        vs_wasm: g.vsWasmFp32 ?? null, wasm_2_ms: wasm(2), wasm_all_ms: wasm(mj.cores), cores: mj.cores,
        gpu_over_wasm_2: wasm(2) && g.ms ? +(wasm(2) / g.ms).toFixed(1) : null, gpu_over_wasm_all: wasm(mj.cores) && g.ms ? +(wasm(mj.cores) / g.ms).toFixed(1) : null,
      };
    });
  }
  // bench/gpu/fixtures.mjs: every public fixture on the GPU against transformers.
  let fixtures = null;
  const fxFile = newest('fixtures.json');
  if (fxFile) {
    const fx = JSON.parse(fs.readFileSync(fxFile, 'utf8'));
    const onGpu = fx.cases.filter((c) => c.device === 'webgpu');
    fixtures = { dir: rel(path.dirname(fxFile)), tolerance: fx.tolerance, gpu: onGpu.length, within: onGpu.filter((c) => c.ok).length,
      worst: onGpu.reduce((a, c) => (c.maxAbsError > (a?.maxAbsError ?? -1) ? c : a), null), wasm: fx.cases.filter((c) => c.device === 'wasm').map((c) => c.case),
      adapter: onGpu[0]?.adapter ?? null };
  }
  // bench/gpu/relative_vectors.mjs: the relative_vectors attention terms against plain attention of the same shape.
  let relative = null;
  const rvFile = newest('relative-vectors.json');
  if (rvFile) {
    const rv = JSON.parse(fs.readFileSync(rvFile, 'utf8'));
    relative = rv.attention.map((a) => {
      const none = rv.attention.find((b) => b.seqLen === a.seqLen && /^none/.test(b.scheme));
      return { seq: a.seqLen, scheme: a.scheme, ms: +a.ms.toFixed(3), over_none: none ? +(a.ms / none.ms).toFixed(2) : null, err: a.maxAbsErrorSampledRows };
    });
  }
  // bench/gpu/dtypes.mjs: GEMM 4096³ per storage dtype (fp32, q8; fp16 where the adapter has shader-f16).
  let dtypes = null;
  const dtFile = newest('gpu-dtypes.json');
  if (dtFile) {
    const dt = JSON.parse(fs.readFileSync(dtFile, 'utf8'));
    dtypes = { run_dir: path.relative(path.resolve(resultsDir, '..', '..'), path.dirname(dtFile)), gemm: (dt.gemm ?? []).map((g) => ({ dtype: g.dtype, n: g.M ?? g.n, tflops: g.tflops != null ? +g.tflops.toFixed(2) : null, skipped: g.skipped ?? g.error ?? null })) };
  }
  return {
    whole_models: whole,
    whole_models_dir: [...modelsDirs].join(', ') || null,
    fixtures,
    relative_attention: relative,
    dtypes,
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
  const whole = (key) => w.whole_models?.find((m) => m.key === key);
  for (const [key, what] of [['minilm', 'the real all-MiniLM-L6-v2, 64 texts'], ['deberta', 'a DeBERTa-v3-base-shaped model at 512 tokens']]) {
    const m = whole(key);
    if (!m) add(`relpos WebGPU ≥ 20× relpos WASM at 2 threads: ${what}`, null, 'not in the committed GPU run (bench/gpu/models.mjs did not run there)');
    else add(`relpos WebGPU ≥ 20× relpos WASM at 2 threads on the same machine: ${m.name} (${w.device}; ${w.cpu})`,
      m.gpu_over_wasm_2 != null ? m.gpu_over_wasm_2 >= 20 : null,
      m.gpu_ms != null ? `WebGPU ${fmt(m.gpu_ms, 2)} ms vs WASM ${fmt(m.wasm_2_ms, 0)} ms on 2 threads = ${fmt(m.gpu_over_wasm_2, 0)}× (${fmt(m.wasm_all_ms, 0)} ms on ${m.cores} threads = ${fmt(m.gpu_over_wasm_all, 0)}×); GPU vs WASM max |Δ| ${m.vs_wasm?.maxAbs}, lowest token cosine ${m.vs_wasm?.minTokenCosine}`
        : `WebGPU failed: ${m.gpu_error}`);
  }
  if (w.fixtures) add(`Every public fixture through WebGPU on a real GPU within ${w.fixtures.tolerance} of transformers (${w.device})`, w.fixtures.within === w.fixtures.gpu && w.fixtures.gpu > 0,
    `${w.fixtures.within} of ${w.fixtures.gpu} fixtures on the GPU within ${w.fixtures.tolerance} (worst ${w.fixtures.worst?.case} ${w.fixtures.worst?.maxAbsError?.toExponential(1)}); on WASM with the reason: ${w.fixtures.wasm.join(', ') || 'none'} (${w.fixtures.dir})`);
  const mb = whole('modernbert');
  if (mb) add(`One 8192-token document on a ModernBERT-base-shaped model on WebGPU (${w.device})`, mb.gpu_ms != null,
    mb.gpu_ms != null ? `${fmt(mb.gpu_ms, 1)} ms for ${mb.name}` : `failed: ${mb.gpu_error}`);
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
  if (w.whole_models?.length) {
    L.push(`Whole models through the public API (\`bench/gpu/models.mjs\`, committed in \`${w.whole_models_dir}\`: \`rp.loadModel(files, { device })\`, median of repeated forwards after a warm-up, same inputs; agreement = the GPU's last hidden state against WASM fp32):`, '');
    L.push('| model | WebGPU fp32 ms | WebGPU q8 ms | WASM 2 threads ms | WASM all cores ms | WebGPU ÷ WASM 2 threads | ÷ all cores | fp32 GPU vs WASM: max abs diff, min token cosine | q8 GPU vs WASM fp32: min token cosine |', '| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |');
    for (const m of w.whole_models)
      L.push(`| ${m.name} | ${m.gpu_ms != null ? fmt(m.gpu_ms, 2) : 'failed'} | ${m.q8_ms != null ? fmt(m.q8_ms, 2) : '–'} | ${fmt(m.wasm_2_ms, 0)} | ${m.wasm_all_ms != null ? `${fmt(m.wasm_all_ms, 0)} (${m.cores})` : '–'} | **${fmt(m.gpu_over_wasm_2, 0)}×** | ${fmt(m.gpu_over_wasm_all, 0)}× | ${m.vs_wasm ? `${m.vs_wasm.maxAbs}, ${m.vs_wasm.minTokenCosine}` : '–'} | ${m.q8_vs_wasm ? m.q8_vs_wasm.minTokenCosine : '–'} |`);
    L.push('');
    const errs = w.whole_models.flatMap((m) => [['fp32', m.gpu_error], ['fp16', m.fp16_error], ['q8', m.q8_error]].filter(([, e]) => e).map(([d, e]) => `${m.key} ${d}: ${e}`));
    if (errs.length) L.push('Rows not measured: ' + errs.join('; ') + '.', '');
  }
  if (w.fixtures) L.push(`Every public fixture (../shared/fixtures/hf, hf-families) on the H200 through \`loadModel(…, { device: 'webgpu' })\` (bench/gpu/fixtures.mjs, \`${w.fixtures.dir}\`): ${w.fixtures.within} of ${w.fixtures.gpu} within ${w.fixtures.tolerance} of transformers on every hidden state (worst ${w.fixtures.worst?.case}, ${w.fixtures.worst?.maxAbsError?.toExponential(1)}); ${w.fixtures.wasm.join(', ')} stays on WASM (decoder-only, no GPU description of its scheme).`, '');
  if (w.dtypes?.gemm?.length) {
    const best = (d) => w.dtypes.gemm.filter((g) => g.dtype === d && g.tflops != null).reduce((a, b) => (!a || b.tflops > a.tflops ? b : a), null);
    const cells = ['fp32', 'q8', 'fp16'].map((d) => `${d} ${best(d) ? `${fmt(best(d).tflops, 1)} TFLOP/s` : 'not measured (' + (w.dtypes.gemm.find((g) => g.dtype === d)?.skipped ?? 'no row') + ')'}`);
    L.push(`GEMM 4096³ by storage dtype (bench/gpu/dtypes.mjs, committed in \`${w.dtypes.run_dir}\`): ${cells.join('; ')}.`, '');
  }
  if (w.relative_attention?.length) {
    L.push('Relative-vector attention terms (bench/gpu/relative_vectors.mjs; 1 × 12 heads × L × 64, all keys visible):', '');
    L.push('| tokens | scheme | ms | ÷ plain attention | max abs error |', '| ---: | --- | ---: | ---: | ---: |');
    for (const a of w.relative_attention) L.push(`| ${a.seq} | ${a.scheme} | ${fmt(a.ms, 3)} | ${fmt(a.over_none, 2)}× | ${a.err != null ? a.err.toExponential(1) : '–'} |`);
    L.push('');
  }
  L.push('| attention (12 heads, d 64) | ms | TFLOP/s |', '| --- | ---: | ---: |');
  for (const a of w.attention.filter((x) => x.bq === 64)) L.push(`| ${a.seq} tokens, ${a.scheme}, ${a.window < 0 ? 'global' : 'window ' + a.window} | ${fmt(a.ms, 3)} | ${fmt(a.tflops, 1)} |`);
  L.push('');
  L.push('Whole layers as one command buffer: ' + w.whole_layers.map((l) => `${l.name} ${fmt(l.ms, 2)} ms`).join('; ') + '.', '');
}
