// WebGPU load times and heap peaks on a GPU machine (issue #37: loads as fast as the file read, models larger than the
// heap), relpos alone, in one short call (bench/gpu/load_check.sh):
//   - the peer models' files (make-weights.mjs, seed 0; the files bench/gpu/peer.sh times the peer on):
//     DeBERTa-v3-base, XLM-R-base, MPNet-base as fp32 on WebGPU — loadModel's seconds and info.loadMs;
//   - Qwen3-Embedding-0.6B's shape (random BF16, tests/support/random-checkpoint.mjs) as fp32 on WebGPU: 2.4 GB of
//     float32 weights through the GPU weight sink, the heap's peak, and a 128-token forward.
// Each row: a fresh runtime (init), so heapBytes after the load is that load's peak. One JSON file, rewritten after
// every row: $OUT/loads.json.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { openDawn } from './common.mjs';
import { BIG_CONFIGS } from '../lib/big_models.mjs';
import { writeRandomCheckpoint } from '../../tests/support/random-checkpoint.mjs';

const OUT = process.env.OUT ?? 'bench/results/tmp/gpu-load';
const WORK = process.env.LOAD_WORK ?? '/tmp/relpos-gpu-load';
const MODELS = process.env.PEER_MODELS ?? '../shared/gpu-peer-models';
const ROWS = (process.env.LOAD_ROWS ?? 'xlm-roberta-base,deberta-v3-base,qwen3-0.6b,mpnet-base').split(',');
const FLAGS = (process.env.RELPOS_DAWN_FLAGS ?? '').split(/\s+/).filter(Boolean);
fs.mkdirSync(OUT, { recursive: true });
const { init } = await import('../../web/index.js');
const { gpu } = await openDawn(FLAGS);
const result = { date: new Date().toISOString(), node: process.version, rows: [] };
const save = () => fs.writeFileSync(path.join(OUT, 'loads.json'), JSON.stringify(result, null, 1));

function files(name) {
  const dir = path.join(WORK, name);
  fs.mkdirSync(dir, { recursive: true });
  if (fs.existsSync(path.join(dir, 'model.safetensors'))) return dir;
  const t = performance.now();
  if (name === 'qwen3-0.6b') {
    writeRandomCheckpoint(dir, BIG_CONFIGS[name], { seed: 1, dtype: 'BF16', prefix: '' });
  } else {
    fs.copyFileSync(path.join(MODELS, name, 'config.json'), path.join(dir, 'config.json'));
    execFileSync(process.execPath, ['make-weights.mjs', name, '--out', path.resolve(dir, 'model.safetensors')], { cwd: MODELS });
  }
  console.log(`== ${name}: files written in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  return dir;
}

for (const name of ROWS) {
  const dir = files(name);
  const rp = await init({ threads: 1 });
  const row = { model: name, dtype: 'fp32', device: 'webgpu', fileBytes: fs.statSync(path.join(dir, 'model.safetensors')).size };
  try {
    const t = performance.now();
    const model = await rp.loadModel(dir, { device: 'webgpu', dtype: 'fp32', gpu });
    row.s = +((performance.now() - t) / 1000).toFixed(2);
    row.loadMs = model.info.loadMs;
    row.heapPeakBytes = rp.heapBytes;
    row.gpuWeightBytes = model.info.gpuWeightBytes;
    const seq = 128, inputIds = [Array.from({ length: seq }, (_, i) => 5 + ((i * 37) % 900))];
    const batch = { inputIds, attentionMask: [inputIds[0].map(() => 1)] };
    await model.forward(batch); // warm-up
    const ms = [];
    for (let i = 0; i < 3; ++i) {
      const t0 = performance.now();
      const out = await model.forward(batch);
      ms.push(performance.now() - t0);
      row.finite = out.lastHiddenState.data.every(Number.isFinite);
    }
    row.forward128Ms = ms.sort((a, b) => a - b)[1];
    model.dispose();
  } catch (e) {
    row.error = e.message;
  }
  console.log(JSON.stringify(row));
  result.rows.push(row);
  save();
}
