// The CPU part of a WebGPU forward up to its submit (ids in, the forward's commands encoded), with the commands of a
// shape's first forward replayed (DispatchTape, the default) and recorded anew every call (PlanExecutor.replay =
// false), in one process, alternating: all-MiniLM-L6-v2's plan (BERT, 6 layers and its pooler: the same
// 63 dispatches) at 1/6 of its widths (hidden 64, FFN 256, random weights, so that SwiftShader's GPU work between
// calls stays short) on one sentence at a time — one length repeated, and 16 lengths (11–41 tokens) cycling. The
// time to the submit is JavaScript and Dawn's encoding alone, whatever the adapter.
//   node bench/lib/record_cost.mjs   → bench/results/record-cost.json (medians of ms per call, the CPU named)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { clockedGpu, median, openDawn } from '../gpu/common.mjs';
import { writeRandomCheckpoint } from '../../tests/support/random-checkpoint.mjs';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
const { gpu: raw } = await openDawn();
const { gpu, clock } = clockedGpu(raw);
const W = await import('../../web/webgpu/index.js');
const { init } = await import('../../web/index.js');
const rp = await init({ simd: true });
const dir = path.join(ROOT, 'build', 'record-cost-model');
writeRandomCheckpoint(dir, {
  architectures: ['BertModel'], model_type: 'bert', hidden_size: 64, num_hidden_layers: 6, num_attention_heads: 4, intermediate_size: 256,
  vocab_size: 30522, max_position_embeddings: 512, type_vocab_size: 2, hidden_act: 'gelu', layer_norm_eps: 1e-12, position_embedding_type: 'absolute',
}, { seed: 3, dtype: 'F32' });
const model = await rp.loadModel(dir, { device: 'webgpu', gpu });
const ids = (L) => Array.from({ length: L }, (_, i) => (i === 0 ? 101 : i === L - 1 ? 102 : 1000 + ((i * 37) % 20000)));
const cases = { 'one length (24 tokens)': Array(16).fill(24), '16 lengths cycling (11–41 tokens)': Array.from({ length: 16 }, (_, i) => 11 + 2 * i) };
const ROUNDS = +(process.env.RECORD_COST_ROUNDS ?? 6);
const result = { date: new Date().toISOString(), cpu: os.cpus()[0]?.model ?? 'unknown', cores: os.cpus().length, loadavg: os.loadavg(), adapter: null, rows: [] };
for (const [name, lengths] of Object.entries(cases)) {
  for (const L of lengths) await model.forwardAsync({ inputIds: [ids(L)] }); // warm-up: plans, pipelines, tapes
  const times = { replay: [], record: [] };
  for (let r = 0; r < ROUNDS; ++r)
    for (const mode of r % 2 ? ['record', 'replay'] : ['replay', 'record']) {
      W.PlanExecutor.replay = mode === 'replay';
      for (const L of lengths) {
        const t = performance.now();
        await model.forwardAsync({ inputIds: [ids(L)] });
        times[mode].push(clock.lastSubmit - t);
      }
    }
  W.PlanExecutor.replay = true;
  const row = { case: name, calls: times.replay.length, replayMs: +median(times.replay).toFixed(3), recordMs: +median(times.record).toFixed(3) };
  row.ratio = +(row.recordMs / row.replayMs).toFixed(2);
  result.rows.push(row);
  console.log(`${name}: to the submit ${row.recordMs} ms recorded, ${row.replayMs} ms replayed (${row.ratio}×)`);
}
result.adapter = model.info.adapter;
model.dispose();
fs.writeFileSync(path.join(ROOT, 'bench', 'results', 'record-cost.json'), JSON.stringify(result, null, 1) + '\n');
process.exit(0);
