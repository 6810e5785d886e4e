// relpos alone on WebGPU at the real sizes of the 2026 embedders (issue #37): EmbeddingGemma-300m and
// Qwen3-Embedding-0.6B shapes (bench/lib/big_models.mjs BIG_CONFIGS 'gemma3-300m' / 'qwen3-0.6b', random BF16
// checkpoints from tests/support/random-checkpoint.mjs, written once to $REAL_SIZE_WORK), per dtype (q8, fp16, fp32):
// load seconds, then per input length (128 / 512 / 2048 tokens, one sequence) the median ms of repeated forwards
// after a warm-up (the last hidden state back on the CPU); cpuMs: that time less its wait in mapAsync (the CPU part:
// ids in, the forward recorded and submitted, the output copied out; the rest is GPU work and the read-back); and the
// rate in TFLOP/s (forwardFlops); oneBufferMs{L}: the forward in one command buffer (PlanExecutor.firstSubmit = 0)
// instead of submitted in chunks as it is encoded, alternating with the default's calls. A row that fails
// (on the H200 of 2026-11-28, fp32 Qwen3, whose weights then passed through the 2 GB WASM heap; every dtype streams to
// the GPU since) records its error; the others still run.
//   OUT=dir node bench/gpu/real_size.mjs   → $OUT/real-size.json (rewritten after every row)
// env: REAL_SIZE_DTYPES (default q8,fp16,fp32), REAL_SIZE_MODELS (default gemma3-300m,qwen3-0.6b),
// REAL_SIZE_LENGTHS (default 128,512,2048), REAL_SIZE_WORK (default /tmp/relpos-real-size), RELPOS_DAWN_FLAGS
// (bench/gpu/common.mjs), GPU_BENCH_SMALL=1: two layers, vocabulary 1024, 8 and 16 tokens, one timed call (the plumbing on SwiftShader, not speed).
// After the GPU rows, the same checkpoints on WebAssembly, q8, on the machine's cores (REAL_SIZE_WASM_THREADS, default
// os.availableParallelism() up to 16; 0 skips them), at REAL_SIZE_WASM_LENGTHS (default 128): rows `device: 'wasm'`
// with threads — the CPU beside the GPU (2026-11-28 H200 host, 16 threads, 128 tokens: EmbeddingGemma 426 ms, Qwen3
// 1538 ms, when a q8 layer at 128 tokens was 4 pieces whatever the thread count).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { BIG_CONFIGS, forwardFlops } from '../lib/big_models.mjs';
import { writeRandomCheckpoint } from '../../tests/support/random-checkpoint.mjs';
import { clockedGpu, median, oneBufferMs, openDawn } from './common.mjs';

const SMALL = process.env.GPU_BENCH_SMALL === '1';
const OUT = process.env.OUT ?? 'bench/results/tmp/gpu-peer';
const WORK = process.env.REAL_SIZE_WORK ?? '/tmp/relpos-real-size';
const DTYPES = (process.env.REAL_SIZE_DTYPES ?? 'q8,fp16,fp32').split(',');
const MODELS = (process.env.REAL_SIZE_MODELS ?? 'gemma3-300m,qwen3-0.6b').split(',');
const LENGTHS = SMALL ? [8, 16] : (process.env.REAL_SIZE_LENGTHS ?? '128,512,2048').split(',').map(Number);
const REPS = SMALL ? 1 : 5;
const FLAGS = (process.env.RELPOS_DAWN_FLAGS ?? '').split(/\s+/).filter(Boolean);
const log = (...a) => console.error('[real-size]', ...a);

const { gpu: rawGpu } = await openDawn(FLAGS);
const { gpu, clock } = clockedGpu(rawGpu); // a call's CPU part: its time less its wait in mapAsync (cpuMs{L})
const { init } = await import('../../web/index.js');
const W = await import('../../web/webgpu/index.js'); // PlanExecutor.firstSubmit (oneBufferMs)
const rp = await init({ simd: true });
const result = { small: SMALL, node: process.version, dawnFlags: FLAGS, date: new Date().toISOString(), device: null, rows: [] };
fs.mkdirSync(OUT, { recursive: true });
const save = () => fs.writeFileSync(path.join(OUT, 'real-size.json'), JSON.stringify(result, null, 1) + '\n');

/** Seeded ids in [3, vocab). */
const ids = (L, seed, V) => {
  let s = seed >>> 0;
  return Array.from({ length: L }, () => 3 + ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) % (V - 3)));
};

/** The config a model's checkpoint is written with (small mode: two layers, vocabulary 1024), and its folder. */
function modelOf(name) {
  const config = SMALL ? { ...BIG_CONFIGS[name], num_hidden_layers: 2, vocab_size: 1024 } : BIG_CONFIGS[name];
  if (config.layer_types) config.layer_types = config.layer_types.slice(0, config.num_hidden_layers);
  return { config, dir: path.join(WORK, `${name}${SMALL ? '-small' : ''}`) };
}

for (const name of MODELS) {
  const { config, dir } = modelOf(name);
  const stamp = path.join(dir, 'written.json');
  if (!fs.existsSync(stamp) || fs.readFileSync(stamp, 'utf8') !== JSON.stringify(config)) {
    const t0 = performance.now();
    const info = writeRandomCheckpoint(dir, config, { seed: 1, prefix: '' });
    fs.writeFileSync(stamp, JSON.stringify(config));
    log(`${name}: wrote ${(info.bytes / 2 ** 30).toFixed(2)} GiB (${(info.parameters / 1e6).toFixed(0)} M parameters) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  for (const dtype of DTYPES) {
    const row = { model: name, layers: config.num_hidden_layers, dtype };
    result.rows.push(row);
    let m;
    try {
      const t0 = performance.now();
      m = await rp.loadModel(dir, { device: 'webgpu', dtype, gpu });
      row.loadS = +((performance.now() - t0) / 1000).toFixed(2);
      row.wasmWeightBytes = m.info.wasmWeightBytes;
      result.device ??= m.info.adapter;
      for (const L of LENGTHS) {
        const r = ids(L, 7 + L, config.vocab_size);
        const batch = { inputIds: [r], attentionMask: [r.map(() => 1)] };
        await m.forward(batch);
        // oneBufferMs{L}: the same forward in one command buffer (PlanExecutor.firstSubmit = 0), alternating with
        // the default's calls (submitted in chunks as encoded)
        const one = [], chunked = (await oneBufferMs(W, () => m.forward(batch))) !== null; // records that setting's commands
        const ts = [], cpu = [];
        for (let i = 0; i < REPS; ++i) {
          const t = performance.now(), w = clock.waitMs;
          await m.forward(batch);
          ts.push(performance.now() - t);
          cpu.push(ts[ts.length - 1] - (clock.waitMs - w));
          if (chunked) one.push(await oneBufferMs(W, () => m.forward(batch)));
        }
        const ms = median(ts);
        row[`ms${L}`] = +ms.toFixed(2);
        row[`cpuMs${L}`] = +median(cpu).toFixed(2); // the call less its wait for the GPU: ids in, recording, read-back copy
        if (one.length) row[`oneBufferMs${L}`] = +median(one).toFixed(2);
        row[`tflops${L}`] = +(forwardFlops(config, L) / ms / 1e9).toFixed(2);
      }
    } catch (e) {
      row.error = e.message.slice(0, 400);
    } finally {
      m?.dispose();
    }
    save();
    log(`${name} ${dtype}: ${JSON.stringify(row)}`);
  }
}

// WebAssembly q8 on the CPU's cores, last (the GPU rows come first within the step's time budget)
const WASM_THREADS = Number(process.env.REAL_SIZE_WASM_THREADS ?? (SMALL ? 2 : Math.min(16, os.availableParallelism())));
const WASM_LENGTHS = SMALL ? [16] : (process.env.REAL_SIZE_WASM_LENGTHS ?? '128').split(',').map(Number);
if (WASM_THREADS > 0) {
  const cpu = await init({ threads: WASM_THREADS });
  for (const name of MODELS) {
    const { config, dir } = modelOf(name);
    const row = { model: name, layers: config.num_hidden_layers, dtype: 'q8', device: 'wasm', threads: cpu.threads, threadsReason: cpu.threadsReason ?? null };
    result.rows.push(row);
    let m;
    try {
      const t0 = performance.now();
      m = await cpu.loadModel(dir, { dtype: 'q8' });
      row.loadS = +((performance.now() - t0) / 1000).toFixed(2);
      for (const L of WASM_LENGTHS) {
        const r = ids(L, 7 + L, config.vocab_size);
        const batch = { inputIds: [r], attentionMask: [r.map(() => 1)] };
        m.forward(batch);
        const ts = [];
        for (let i = 0; i < (SMALL ? 1 : 3); ++i) {
          const t = performance.now();
          m.forward(batch);
          ts.push(performance.now() - t);
        }
        row[`ms${L}`] = +median(ts).toFixed(2);
        row[`gflops${L}`] = +(forwardFlops(config, L) / median(ts) / 1e6).toFixed(1);
      }
    } catch (e) {
      row.error = e.message.slice(0, 400);
    } finally {
      m?.dispose();
    }
    save();
    log(`${name} wasm q8: ${JSON.stringify(row)}`);
  }
}
save();
process.exit(0);
