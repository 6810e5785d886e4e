// Where each figure of README.md and docs/ comes from (tests/js/docs-figures.test.mjs).
//
// A figure is a number with a unit of time, speed, ratio or size in the prose (FIGURE below); the
// test finds every one and needs it to be one of:
//   - inside a generated block (<!-- headline:start -->, <!-- bench:start -->, …) that the test
//     re-renders from its results file and compares;
//   - inside a sentence of MEASURED: the sentence is written here by a function of a committed results
//     file, so a changed file or a changed sentence fails the test;
//   - inside a phrase of NOT_MEASURED: a setting, a limit or a target, with the reason;
//   - in UNSOURCED: figures measured once without a committed results file (listed in the test's
//     output; a new one fails, so this list only shrinks).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { peaks128 } from '../../../bench/lib/report_big_models.mjs';

/** Numbers with a unit: times (ms, µs, s, minutes), speeds (GFLOP/s, TFLOP/s), ratios (×) and sizes with decimals. */
export const FIGURE = /(?<![\w.\-])\d+(?:[.,]\d+)*(?:\s?(?:ms|µs|s|minutes|GFLOP\/s|TFLOP\/s)(?![\w/])|\s?×(?!\s*\d)|\.\d+\s?(?:GiB|MiB|KiB|GB|MB|KB)\b)/g;

const GIB = 2 ** 30;
const range = (xs, d) => {
  const lo = Math.min(...xs).toFixed(d), hi = Math.max(...xs).toFixed(d);
  return lo === hi ? lo : `${lo}–${hi}`;
};

/** The MEASURED sentences: [{ file, from, text }] computed from the results files under root. */
export function measured(root) {
  const json = (file) => JSON.parse(readFileSync(join(root, file), 'utf8'));
  const latest = json('bench/results/latest.json');
  const big = json('bench/results/big-models.json').runs;
  const dtypesDir = 'bench/results/gpu/nvidia-h200-2026-11-26-dtypes/gpu-dtypes.json';
  const dtypes = json(dtypesDir);
  const modelsFile = 'bench/results/gpu/nvidia-h200-2026-11-26-models/models.json';
  const gpuModels = json(modelsFile);
  const out = [];
  const add = (file, from, text) => out.push({ file, from, text });

  // real-size models: peak memory, file and weight sizes (bench/lib/big_models.mjs)
  const peak = peaks128(big);
  const gib = (model, dtype, threads) => (peak.get(`${model}|${dtype}|${threads}`).row.vmHwm / GIB).toFixed(2);
  add('README.md', 'bench/results/big-models.json',
    `EmbeddingGemma-300m peaks at ${gib('gemma3-300m', 'q8', 2)} GiB, Qwen3-Embedding-0.6B at ${gib('qwen3-0.6b', 'q8', 2)} GiB`);
  const row = (model, dtype, threads = 2) => peak.get(`${model}|${dtype}|${threads}`).row;
  const gb = (bytes) => (bytes / 1e9).toFixed(2);
  add('docs/embedders.md', 'bench/results/big-models.json',
    `| EmbeddingGemma-300m | 303 M (201 M in the 262,144 × 768 embedding table) | ${gb(row('gemma3-300m', 'q8').fileBytes)} GB | ≈ ${gb(row('gemma3-300m', 'q8').weightBytes)} GB |`);
  const qwenQ8 = big.flatMap((r) => r.rows).find((r) => r.model === 'qwen3-0.6b' && r.dtype === 'q8' && !r.error);
  add('docs/embedders.md', 'bench/results/big-models.json',
    `| Qwen3-Embedding-0.6B | 596 M (155 M in the tied embedding table) | ${gb(qwenQ8.fileBytes)} GB | ≈ ${gb(qwenQ8.weightBytes)} GB |`);
  const gemmaFp32 = big.flatMap((r) => r.rows).find((r) => r.model === 'gemma3-300m' && r.dtype === 'fp32' && !r.error);
  add('docs/embedders.md', 'bench/results/big-models.json', `EmbeddingGemma also loads as fp32 (${gb(gemmaFp32.weightBytes)} GB of float32 weights)`);
  add('docs/models.md', 'bench/results/big-models.json', `(EmbeddingGemma-300m: ${gb(gemmaFp32.weightBytes)} GB of float32 weights)`);
  // BGE-M3 at real size (issue #40): the model-alone row (--no-reference), one 2048-token input
  const m3 = big.flatMap((r) => r.rows).filter((r) => r.model === 'bge-m3-shape' && r.dtype === 'q8' && !r.error && (r.inputs ?? []).every((i) => i.tokens === 2048));
  add('docs/multilingual.md', 'bench/results/big-models.json',
    `a 2048-token input at 2 threads peaks at ${(Math.min(...m3.map((r) => r.vmHwm)) / GIB).toFixed(2)} GiB of process memory`);
  // streamed against whole-file loads, the llama-family shapes (one 128-token input)
  const all = big.flatMap((r) => r.rows).filter((r) => (r.inputs ?? []).length === 1 || r.error);
  const cell = (model, dtype, threads) => {
    const rows = all.filter((x) => x.model === model && x.dtype === dtype && x.threads === threads);
    const r = rows.filter((x) => !x.error).at(-1) ?? rows.at(-1);
    return r.error ? 'out of memory' : `${(r.vmHwm / GIB).toFixed(2)} GiB`;
  };
  for (const [label, shape, params] of [
    ["EmbeddingGemma-300m's tensors (hidden 768, 24 layers, vocab 262,144)", 'llama-gemma-shape', '303 M'],
    ["Qwen3-0.6B's widths, head_dim = hidden / heads", 'llama-0.6b', '508 M'],
  ]) {
    const file = (all.find((x) => x.model === shape).fileBytes / GIB).toFixed(2);
    add('docs/models.md', 'bench/results/big-models.json',
      `| ${label} | ${params} | ${file} GiB | **${cell(shape, 'q8', 2)}** | ${cell(`${shape} (whole file)`, 'q8', 1)} | ${cell(shape, 'fp32', 2)} | ${cell(`${shape} (whole file)`, 'fp32', 1)} |`);
  }

  // WebGPU on the H200 (latest.json's webgpu section, read from bench/results/gpu/ by bench/lib/webgpu.mjs)
  const wm = (key) => latest.webgpu.whole_models.find((x) => x.key === key);
  const s = (ms) => (ms / 1000).toFixed(ms < 1000 ? 2 : 1);
  const [minilm, deberta, modern] = ['minilm', 'deberta', 'modernbert'].map(wm);
  add('docs/webgpu.md', 'bench/results/latest.json (webgpu)',
    `all-MiniLM-L6-v2 on 64 texts × 128 tokens ${minilm.gpu_ms.toFixed(1)} ms (WASM ${s(minilm.wasm_2_ms)} s on 2 threads: ` +
    `${minilm.gpu_over_wasm_2.toFixed(0)}×; ${s(minilm.wasm_all_ms)} s on ${minilm.cores}: ${minilm.gpu_over_wasm_all.toFixed(0)}×);`);
  add('docs/webgpu.md', 'bench/results/latest.json (webgpu)',
    `a DeBERTa-v3-base-shaped model at 512 tokens ${deberta.gpu_ms.toFixed(1)} ms (WASM ${s(deberta.wasm_2_ms)} s on 2 threads: ` +
    `${deberta.gpu_over_wasm_2.toFixed(0)}×; ${s(deberta.wasm_all_ms)} s on ${deberta.cores}: ${deberta.gpu_over_wasm_all.toFixed(0)}×);`);
  add('docs/webgpu.md', 'bench/results/latest.json (webgpu)',
    `one 8192-token document through a ModernBERT-base-shaped model (22 layers) ${modern.gpu_ms.toFixed(0)} ms. \`dtype: 'q8'\`: ` +
    `${minilm.q8_ms.toFixed(1)},\n  ${deberta.q8_ms.toFixed(1)} and ${modern.q8_ms.toFixed(0)} ms.`);
  const gemm = (dtype) => dtypes.gemm.filter((g) => g.dtype === dtype && g.tflops).sort((a, b) => b.tflops - a.tflops)[0];
  const dm = (dtype) => dtypes.models.find((m) => m.dtype === dtype);
  const mib = (b) => (b / 2 ** 20).toFixed(1);
  add('docs/webgpu.md', dtypesDir,
    `GEMM 4096³ A·Wᵀ f32 ${gemm('fp32').tflops.toFixed(1)} TFLOP/s, q8 ${gemm('q8').tflops.toFixed(1)} TFLOP/s (${gemm('fp32').variant} both);`);
  add('docs/webgpu.md', dtypesDir,
    `64 × 128 tokens: fp32 ${dm('fp32').forwardMs.toFixed(1)} ms, q8 ${dm('q8').forwardMs.toFixed(1)} ms (median of ${dm('fp32').timesMs.length}, ` +
    `from ${range(dm('fp32').timesMs, 1)} ms) with ${mib(dm('q8').gpuWeightBytes)} MiB of\nGPU weights instead of ${mib(dm('fp32').gpuWeightBytes)} (cosine ${dm('q8').cosine.toFixed(6)} to fp32)`);
  // why the dtypes run's fp32 time is not the whole-model row's (the contradiction a reader would see)
  const beforeFusion = gpuModels.rows.find((r) => r.key === 'minilm' && r.device === 'webgpu' && r.dtype === 'fp32').ms;
  add('docs/webgpu.md', `${dtypesDir}, ${modelsFile}, bench/results/latest.json (webgpu)`,
    `against each other and not against the ${minilm.gpu_ms.toFixed(1)} ms above for the same shapes: that run came before the executor fused\n` +
    `GEMM activation epilogues (which took the real all-MiniLM-L6-v2 from ${beforeFusion.toFixed(1)} ms to ${minilm.gpu_ms.toFixed(1)} ms,\n` +
    `\`bench/results/gpu/nvidia-h200-2026-11-26-fixtures/README.md\`), timed only ${dm('fp32').timesMs.length} forwards (\`compareGpuDtypes\`,\n` +
    `\`web/webgpu/compare.js\`, with each call's upload and read-back), and spread over ${range(dm('fp32').timesMs, 1)} ms.`);
  add('docs/webgpu.md', dtypesDir, `\`info.gpuWeightBytes\` ${(dm('q8').gpuWeightBytes / dm('fp32').gpuWeightBytes).toFixed(2)}× the fp32 load's`);
  // ModernBERT's global attention at 8192 tokens: its share of the GPU time, ms per layer and rate (the op profile)
  const mb = gpuModels.rows.find((r) => r.key === 'modernbert' && r.device === 'webgpu' && r.dtype === 'fp32');
  const global = mb.profile.slowest.find((o) => o.op === 'attention' && o.kind === 'rope');
  const [, heads, L, d] = global.shape.split('×').map(Number);
  const share = mb.profile.byOp['attention rope'].ms / mb.profile.totalMs;
  add('docs/architecture.md', modelsFile,
    `is ${share > 0.45 && share < 0.55 ? 'half' : `${(share * 100).toFixed(0)} %`} of a ModernBERT-base document's GPU time (${global.ms.toFixed(0)} ms per layer,\n   ${((4 * L * L * d * heads) / (global.ms * 1e9)).toFixed(0)} TFLOP/s on the H200)`);

  // the lab's training speed (latest.json's training section: Node, and Chromium's browser rows)
  const tr = latest.training;
  add('docs/lab.md', 'bench/results/latest.json (training)',
    `train in ${range(tr.rows.map((r) => r.train_s), 1)} s per scheme on the SIMD build under Node and ${range(tr.browser.rows.map((r) => r.train_s), 1)} s in\n  Chromium (${range([...tr.rows.map((r) => r.train_gflops), ...tr.browser.rows.map((r) => r.gflops)], 0)} GFLOP/s`);
  // the lab module's download size (latest.json's sizes)
  const kib = (...files) => (files.reduce((a, f) => a + latest.sizes.find((x) => x.file === `web/dist/${f}`).gzip_bytes, 0) / 1024).toFixed(0);
  add('docs/lab.md', 'bench/results/latest.json (sizes)',
    `\`relpos-lab-simd.wasm\` + glue is ${kib('relpos-lab-simd.wasm', 'relpos-lab-simd.js')} KiB gzip (scalar ${kib('relpos-lab-scalar.wasm', 'relpos-lab-scalar.js')} KiB)`);
  // the soak run (scripts/soak.mjs --out): leaks over 100,000 calls and 1,000 model cycles per build
  const soak = json('bench/results/soak.json');
  const n = (x) => x.toLocaleString('en-US');
  add('docs/robustness.md', 'bench/results/soak.json', [
    `Run of ${soak.date.slice(0, 10)} (commit ${soak.commit}, Node ${soak.node}, ${soak.cores} shared cores, load average ${soak.loadavg_at_start.toFixed(0)};`,
    '`node scripts/soak.mjs --out bench/results/soak.json`; times are CPU time, which the load does not inflate):',
    '',
    '| build | attention calls | CPU time | model cycles | CPU time | heap after warm-up | heap at end | result |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ...soak.rows.map((r) => `| ${r.build} | ${n(r.calls)} | ${r.calls_cpu_s.toFixed(1)} s | ${n(r.models)} | ${r.models_cpu_s.toFixed(1)} s | ${r.heap_after_warmup} | ${r.heap_end} | ${r.grew ? 'GREW' : 'no growth'} |`),
    '',
    `Exit status ${soak.exit}; the whole run ${soak.cpu_s.toFixed(1)} s of CPU (${soak.wall_s.toFixed(0)} s wall clock on the shared machine), peak RSS ${(soak.max_rss_bytes / 1e6).toFixed(0)} MB.`,
  ].join('\n'));
  // WebGPU loads on the H200 after the load fixes (bench/gpu/load_check.mjs)
  const loadsDir = 'bench/results/gpu/h200-2026-11-28-loads';
  const loads = [...json(`${loadsDir}/loads-run1.json`).rows, ...json(`${loadsDir}/loads-run2.json`).rows].filter((r) => r.s);
  const load = (m) => loads.filter((r) => r.model === m).at(-1);
  const mibOf = (b) => (b / 2 ** 20).toFixed(0), gibOf = (b) => (b / GIB).toFixed(2);
  add('docs/webgpu.md', `${loadsDir}/loads-run*.json`,
    `On an NVIDIA H200 (\`bench/gpu/load_check.sh\`), Qwen3-Embedding-0.6B's shape in fp32 loaded in ${load('qwen3-0.6b').s.toFixed(2)} s with\n` +
    `the heap at ${mibOf(load('qwen3-0.6b').heapPeakBytes)} MiB and ${gibOf(load('qwen3-0.6b').gpuWeightBytes)} GiB of weights on the GPU; DeBERTa-v3-base ${load('deberta-v3-base').s.toFixed(2)} s,\n` +
    `XLM-R-base ${load('xlm-roberta-base').s.toFixed(2)} s and MPNet-base ${load('mpnet-base').s.toFixed(2)} s — DeBERTa and MPNet then still read whole files; since they stream, the CPU\n` +
    `part of their WebGPU loads has halved (on SwiftShader here: DeBERTa-v3-base ${ab('deberta-v3-base').text};\n` +
    `MPNet-base ${ab('mpnet-base').text}; \`bench/results/loads/\`), not yet measured on a GPU.`);
  // the embedding tables streamed to the GPU too, on SwiftShader (bench/lib/load_ab.mjs --webgpu)
  const [xlmrTables, debertaTables] = ['xlm-roberta-base', 'deberta-v3-base'].map((model) => ab(model, 'd7c76d4-vs-tables-streamed'));
  add('docs/webgpu.md', 'bench/results/loads/webgpu-swiftshader-*-d7c76d4-vs-tables-streamed.json',
    `Since the tables stream\ntoo (same method, SwiftShader): XLM-R-base ${xlmrTables.s} s with the heap's peak ${xlmrTables.mib} MiB (its 250,002 × 768 table\n` +
    `is 768 MB of float32), DeBERTa-v3-base ${debertaTables.s} s, ${debertaTables.mib} MiB;`);
  // DeBERTa's relative embeddings projected on the GPU (derived plan weights), on SwiftShader (bench/lib/load_ab.mjs --webgpu)
  const projection = ab('deberta-v3-base', 'd021236-vs-gpu-projection');
  add('docs/webgpu.md', 'bench/results/loads/webgpu-swiftshader-deberta-v3-base-d021236-vs-gpu-projection.json',
    `same method, SwiftShader, its CPU build went\n${projection.build} ms and the heap's peak ${projection.mib} MiB, but SwiftShader runs those 24 products (14.5 GFLOP) on the CPU, so its\n` +
    `whole load went ${projection.s} s;`);
  // float32 tensors from the chunk read to the GPU without the heap, and the next chunk read meanwhile (direct bytes),
  // on SwiftShader and WASM (bench/lib/load_ab.mjs)
  const direct = (model, device = 'webgpu-swiftshader') => abOf(`bench/results/loads/${device}-${model}-ddd9aa8-vs-direct-bytes.json`);
  const [xlmrDirect, mpnetDirect, mpnetWasm] = [direct('xlm-roberta-base'), direct('mpnet-base'), direct('mpnet-base', 'wasm')];
  add('docs/webgpu.md', 'bench/results/loads/*-ddd9aa8-vs-direct-bytes.json',
    `Same method (SwiftShader, ${json('bench/results/loads/webgpu-swiftshader-xlm-roberta-base-ddd9aa8-vs-direct-bytes.json').cpu}, 2 cores):\n` +
    `XLM-R-base ${xlmrDirect.s} s (its \`weights\` part ${xlmrDirect.weights} ms), MPNet-base ${mpnetDirect.s} s; a WASM load of\n` +
    `MPNet-base, which gains the read-ahead and a plain copy for float32, ${mpnetWasm.s} s.`);
  // q8 loads before / after the vector quantization (bench/lib/load_ab.mjs --dtype q8)
  const q8Load = (device, model) => abOf(`bench/results/loads/${device}-${model}-q8-ddd9aa8-vs-vector-quantization.json`).s;
  add('docs/q8.md', 'bench/results/loads/*-q8-ddd9aa8-vs-vector-quantization.json',
    `MPNet-base q8 ${q8Load('wasm', 'mpnet-base')} s, XLM-R-base q8 (its 250,002 × 768 table quantized too) ${q8Load('wasm', 'xlm-roberta-base')} s; on WebGPU\n` +
    `(SwiftShader), where the int8 rows are then laid out for the GPU, MPNet-base q8 ${q8Load('webgpu-swiftshader', 'mpnet-base')} s.`);
  // BF16 tensors widened on the GPU against decoded in the heap, on SwiftShader (bench/lib/load_ab.mjs --webgpu, '#f32-bytes-only')
  const widenFile = 'bench/results/loads/webgpu-swiftshader-qwen3-0.6b-6-layers-bf16-868c4e4-rows-vs-widened.json';
  const widened = abOf(widenFile), [rowsRun, widenRun] = Object.values(json(widenFile).runs).map((runs) => runs[0]);
  add('docs/webgpu.md', widenFile,
    `(a 6-layer Qwen3-0.6B shape:\n${(widenRun.gpuBytes / 1e6).toFixed(0)} MB written to the GPU instead of ${(rowsRun.gpuBytes / 1e6).toFixed(0)} MB; \`webgpu-streamed-load\` checks the model equals the rows path's bit for\n` +
    `bit). On SwiftShader that widening is CPU work again, done by its shader emulation beside the load, so there such a\n` +
    `load takes longer (${widened.s} s, \`bench/results/loads/\`); on a GPU it is not measured yet.`);
  // q8 layers streamed to the GPU as int8 rows against quantized into the heap (bench/lib/load_ab.mjs --webgpu --dtype q8, '#q8-in-heap')
  const q8Streamed = (model) => abOf(`bench/results/loads/webgpu-swiftshader-${model}-q8-heap-vs-streamed.json`);
  const [qwenQ8Streamed, mpnetQ8Streamed] = [q8Streamed('qwen3-0.6b-6-layers'), q8Streamed('mpnet-base')];
  add('docs/webgpu.md', 'bench/results/loads/webgpu-swiftshader-*-q8-heap-vs-streamed.json',
    `On SwiftShader (\`bench/results/loads/\`): the 6-layer Qwen3-0.6B shape in q8 ${qwenQ8Streamed.s} s with the heap's peak ${qwenQ8Streamed.mib} MiB, MPNet-base\n` +
    `q8 ${mpnetQ8Streamed.s} s, ${mpnetQ8Streamed.mib} MiB.`);
  const replayLoads = json('bench/results/gpu/h200-2026-11-28-replay/peer.json').loads.filter((l) => l.model === 'xlm-roberta-base' && l.dtype === 'fp32' && !l.what);
  const loadS = (library) => replayLoads.find((l) => l.library === library).s.toFixed(2);
  add('docs/webgpu.md', 'bench/results/gpu/h200-2026-11-28-replay/peer.json',
    `where the H200's XLM-R-base load\nwas ${loadS('relpos')} s against Transformers.js's ${loadS('Transformers.js')} s before this change.`);
  // WebGPU loads before / after DeBERTa and MPNet streamed, on SwiftShader (bench/lib/load_ab.mjs --webgpu)
  function ab(model, change = 'c40b9a3-vs-streamed') {
    return abOf(`bench/results/loads/webgpu-swiftshader-${model}-${change}.json`, model);
  }
  function abOf(file, model = '') {
    const [before, after] = Object.values(json(file).runs);
    const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const s = (rows) => (med(rows.map((r) => r.ms)) / 1000).toFixed(2), mib = (rows) => mibOf(med(rows.map((r) => r.heap)));
    const build = (rows) => med(rows.map((r) => r.build)).toFixed(0), weights = (rows) => med(rows.map((r) => r.weights)).toFixed(0);
    return { text: `${s(before)} → ${s(after)} s, ${model === 'mpnet-base' ? '' : 'heap '}${mib(before)} → ${mib(after)} MiB`,
             s: `${s(before)} → ${s(after)}`, mib: `${mib(before)} → ${mib(after)}`, build: `${build(before)} → ${build(after)}`,
             weights: `${weights(before)} → ${weights(after)}` };
  }
  // split K on the H200: wall time per dispatch of bench/gpu/bench.mjs's shaped rows (GPU_BENCH_PARTS=shaped)
  const streamedDir = 'bench/results/gpu/h200-2026-11-28-streamed';
  const shaped = json(`${streamedDir}/gpu-bench.json`).gemm.filter((r) => r.split);
  const split = (shape, dtype, parts) => shaped.find((r) => r.shape === shape && (r.dtype ?? 'f32') === dtype && r.split === parts).ms.toFixed(3);
  const smallMs = shaped.filter((r) => /sentence|128/.test(r.shape)).map((r) => r.ms);
  add('docs/webgpu.md', `${streamedDir}/gpu-bench.json`,
    `Qwen3's 128 × 3072 → 1024 product took ${split('qwen3-0.6b down 128', 'f32', 1)} ms whole and ${split('qwen3-0.6b down 128', 'f32', 4)} ms in 4 parts (f16: ${split('qwen3-0.6b down 128', 'f16', 1)} → ${split('qwen3-0.6b down 128', 'f16', 8)} ms in 8),\n` +
    `MiniLM's one-sentence FFN down ${split('minilm ffn down 1 sentence', 'f32', 1)} → ${split('minilm ffn down 1 sentence', 'f32', 4)} ms: every small product took ${range(smallMs, 2)} ms whatever its split`);
  // a forward's CPU part to its submit, recorded against replayed (bench/lib/record_cost.mjs), and the H200's one-sentence call
  const rc = json('bench/results/record-cost.json').rows;
  const [same, cycling] = [rc.find((r) => /one length/.test(r.case)), rc.find((r) => /cycling/.test(r.case))];
  const oneByOne = json(`${streamedDir}/peer.json`).rows.find((r) => r.row === 'minilm-1by1' && r.dtype === 'fp32');
  add('docs/webgpu.md', `bench/results/record-cost.json, ${streamedDir}/peer.json`,
    `MiniLM's plan (63 dispatches) took ${same.recordMs.toFixed(1)} ms from the\n` +
    `call to its submit on this project's 2-core Xeon, where a whole one-sentence call takes ${(oneByOne.relposMs / 16).toFixed(1)} ms on the H200`);
  add('docs/webgpu.md', 'bench/results/record-cost.json',
    `one length repeated ${same.recordMs.toFixed(2)} → ${same.replayMs.toFixed(2)} ms to\n` +
    `the submit (${same.ratio.toFixed(1)}×), 16 lengths cycling ${cycling.recordMs.toFixed(2)} → ${cycling.replayMs.toFixed(2)} ms (${cycling.ratio.toFixed(1)}×`);
  // a forward submitted as encoded, nothing copied inside it (bench/gpu/encode_cost.mjs), and the H200's CPU parts
  const encodeCost = json('bench/results/encode-cost/encode-cost.json');
  for (const line of [...encodeCostRows(encodeCost), ...fusionRows(encodeCost)])
    add('docs/webgpu.md', 'bench/results/encode-cost/encode-cost.json', line);
  const replayRun = 'bench/results/gpu/h200-2026-11-28-replay';
  const pairs = json(`${replayRun}/peer.json`).rows.find((r) => r.row === 'xlmr-pairs' && r.dtype === 'fp32');
  const qwenGpuQ8 = json(`${replayRun}/real-size.json`).rows.find((r) => r.model === 'qwen3-0.6b' && r.dtype === 'q8');
  add('docs/webgpu.md', `${replayRun}/peer.json, ${replayRun}/real-size.json`,
    `CPU part was ${pairs.relposCpuMs.toFixed(1)} ms of the XLM-R pairs call and ${qwenGpuQ8.cpuMs128.toFixed(1)} ms of Qwen3's at 128 tokens`);
  // how long the whole benchmark ran
  add('docs/development.md', 'bench/results/latest.json (meta)', `the benchmarks (bench/; about ${Math.round(latest.meta.duration_s / 60)} minutes)`);
  return out;
}

/**
 * The rows of docs/webgpu.md's encode-cost table: the run before the change (its label ends in "(before)", one command
 * buffer) against the run after (one command buffer, and in chunks for its first submit and command buffers).
 */
export const ENCODE_RUNS = { before: '224a97e (before)', inPlace: 'in place + chunked submits', fusion: 'fusion A/B (ENCODE_AB_FUSE=1)' };

export function encodeCostRows({ runs }) {
  const [beforeLabel, afterLabel] = [ENCODE_RUNS.before, ENCODE_RUNS.inPlace];
  const before = runs[beforeLabel].rows, after = runs[afterLabel].rows;
  const lines = ['| model (layers) | plan ops | dispatches | compute passes | copies | command buffers | re-encoding, one command buffer | call → first submit |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |'];
  for (const b of before) {
    const one = after.find((r) => r.model === b.model && r.firstSubmit === 0), chunks = after.find((r) => r.model === b.model && r.firstSubmit > 0);
    lines.push(`| ${b.model} (${b.layers}) | ${b.ops} | ${b.dispatches} → ${one.dispatches} | ${b.passes} → ${one.passes} | ${b.copies} → ${one.copies} | 1 → ${chunks.submits} | ${b.replayMs.toFixed(2)} → ${one.replayMs.toFixed(2)} ms | ${b.firstSubmitMs.toFixed(2)} → ${chunks.firstSubmitMs.toFixed(2)} ms |`);
  }
  return lines;
}

/**
 * The rows of docs/webgpu.md's fusion table: fusion off against on (fusion.js; two models of the same files, calls
 * alternating in one process), one command buffer for the dispatches and re-encoding, chunks for the first submit.
 */
export function fusionRows({ runs }) {
  const rows = runs[ENCODE_RUNS.fusion].rows, before = rows.filter((r) => !r.fuse), after = rows.filter((r) => r.fuse);
  const lines = ['| model (layers) | dispatches | re-encoding, one command buffer | call → first submit |', '| --- | ---: | ---: | ---: |'];
  for (const b of before.filter((r) => r.firstSubmit === 0)) {
    const one = after.find((r) => r.model === b.model && r.firstSubmit === 0), chunks = after.find((r) => r.model === b.model && r.firstSubmit > 0);
    const bChunks = before.find((r) => r.model === b.model && r.firstSubmit > 0);
    lines.push(`| ${b.model} (${b.layers}) | ${b.dispatches} → ${one.dispatches} | ${b.replayMs.toFixed(2)} → ${one.replayMs.toFixed(2)} ms | ${bChunks.firstSubmitMs.toFixed(2)} → ${chunks.firstSubmitMs.toFixed(2)} ms |`);
  }
  return lines;
}

/** Settings, limits and targets written as numbers: [{ file, text, why }]. */
export const NOT_MEASURED = [
  { file: 'docs/development.md', text: 'targets for 45 s', why: 'the fuzz time per target that npm test sets (scripts/test.sh)' },
  { file: 'docs/development.md', text: 'for 600 s', why: "npm run fuzz's time per target (package.json)" },
  { file: 'docs/robustness.md', text: '45 s', why: 'the fuzz time per target in npm test' },
  { file: 'docs/robustness.md', text: '600 s', why: "npm run fuzz's time per target" },
  { file: 'docs/embedders.md', text: 'Qwen3-0.6B as fp32 (2.4 GB)', why: "596 M parameters × 4 bytes: the refusal's own arithmetic" },
  { file: 'docs/models.md', text: 'Qwen3-0.6B (2.4 GB as float32)', why: '596 M parameters × 4 bytes' },
  { file: 'docs/q8.md', text: 'steps 4× finer', why: 'the q8 format: a 4-bit multiplier per 32 inputs' },
  { file: 'docs/performance.md', text: 'over 1.25×', why: "the target's threshold (bench/lib/report.mjs)" },
  { file: 'docs/performance.md', text: 'be 3×', why: 'a target of issue #10' },
  { file: 'docs/performance.md', text: '1.5×', why: "the target's factor (report_short.mjs)" },
  { file: 'docs/runtime.md', text: 'up to 200 µs', why: 'the spin setting of the thread pool (cpp/src/threads)' },
  { file: 'docs/length-generalisation.md', text: '1s', why: "'number of 1s': tokens, not seconds" },
  { file: 'docs/models.md', text: '404s', why: 'HTTP status codes' },
  { file: 'docs/length-generalisation.md', text: "the issue's 60 s per scheme", why: "the issue's budget" },
  { file: 'docs/length-generalisation.md', text: '(60 s ×', why: 'the budget of a minute' },
];

/**
 * Figures measured once without a committed results file: 'file: text' (each must still be in its file). docs/q8.md's
 * come from its table, which scripts/q8-accuracy.mjs writes straight into the doc (no JSON yet); length-generalisation.md
 * is the lab's research log (native runs of its time).
 */
export const UNSOURCED = [
  'docs/demo.md: 0.48×', 'docs/demo.md: 0.72×',
  'docs/lab.md: 13 s',
  'docs/q8.md: 2×', 'docs/q8.md: 23.19 MB', 'docs/q8.md: 90.85 MB', 'docs/q8.md: 0.38×', 'docs/q8.md: 0.25×',
  'docs/performance.md: 12.6 MB', 'docs/performance.md: 31 GFLOP/s',
  'docs/runtime.md: 30 µs',
  'docs/length-generalisation.md: 60 s', 'docs/length-generalisation.md: 120 s', 'docs/length-generalisation.md: 15 GFLOP/s',
  'docs/length-generalisation.md: 35 GFLOP/s', 'docs/length-generalisation.md: 3 ×', 'docs/length-generalisation.md: 3×',
  'docs/length-generalisation.md: 6 s', 'docs/length-generalisation.md: 1 s', 'docs/length-generalisation.md: 24 GFLOP/s',
  'docs/length-generalisation.md: 5 s', 'docs/length-generalisation.md: 19 s', 'docs/length-generalisation.md: 5.0 s',
  'docs/length-generalisation.md: 41 s', 'docs/length-generalisation.md: 24.1 GFLOP/s', 'docs/length-generalisation.md: 23 GFLOP/s',
];
