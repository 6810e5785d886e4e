// relpos's WebAssembly package on the GPU machine's own CPU, for the WebGPU target "relpos WebGPU ≥ 20× relpos
// WASM at 2 threads on the same machine" (issue #27): the same layer shapes bench/gpu/bench.mjs times on the GPU,
// here as one-layer BERT-shaped checkpoints with random weights through rp.loadModel + model.forward:
//   MiniLM layer (hidden 384, 12 heads, FFN 1536), 64 texts × 128 tokens
//   base-shaped layer (hidden 768, 12 heads, FFN 3072), 1 × 512 tokens
// One layer = T(2-layer model) − T(1-layer model) (medians of `reps` forwards), so embeddings and copies cancel,
// as the GPU rows time the layer alone. Threads: 1, 2 and the machine's core count (SIMD build; threads build).
// Prints one JSON object. Run with the carried node: node --no-experimental-fetch bench/gpu/wasm_peer.mjs
import os from 'node:os';
import { bertCheckpoint } from './bert_checkpoint.mjs';
import { median } from './common.mjs';

const rpModule = await import('../../web/index.js');
const SHAPES = [
  { name: 'MiniLM-L6 layer, 64 texts × 128 tokens', hidden: 384, heads: 12, ffn: 1536, batch: 64, seq: 128 },
  { name: 'base-shaped layer, 512 tokens', hidden: 768, heads: 12, ffn: 3072, batch: 1, seq: 512 },
];
const reps = Number(process.env.REPS ?? 3);


const out = { cpu: os.cpus()[0]?.model, cores: os.cpus().length, node: process.version, rows: [] };
for (const threads of [1, 2, os.cpus().length]) {
  const rp = await rpModule.init(threads > 1 ? { threads } : {});
  for (const s of SHAPES) {
    const row = { shape: s.name, threads_asked: threads, threads: rp.threads ?? 1 };
    try {
      const ids = Array.from({ length: s.batch }, (_, b) => Array.from({ length: s.seq }, (_, i) => 5 + ((i * 31 + b * 7) % 1000)));
      const t = {};
      for (const layers of [1, 2]) {
        const m = await rp.loadModel(bertCheckpoint(s, layers));
        m.forward({ inputIds: ids });
        const runs = [];
        for (let k = 0; k < reps; ++k) {
          const t0 = performance.now();
          m.forward({ inputIds: ids });
          runs.push(performance.now() - t0);
        }
        t[layers] = median(runs);
        m.dispose();
      }
      row.one_layer_model_ms = +t[1].toFixed(2);
      row.two_layer_model_ms = +t[2].toFixed(2);
      row.layer_ms = +(t[2] - t[1]).toFixed(2);
    } catch (e) {
      row.error = String(e?.message ?? e);
    }
    out.rows.push(row);
    console.error(JSON.stringify(row));
  }
  // the whole MiniLM-L6 shape (6 layers, vocabulary 30522), 64 texts × 128 tokens: what bench.mjs times on the GPU
  {
    const row = { shape: 'MiniLM-L6-shaped model (6 layers), 64 texts × 128 tokens', threads_asked: threads, threads: rp.threads ?? 1 };
    try {
      const m = await rp.loadModel(bertCheckpoint({ hidden: 384, heads: 12, ffn: 1536 }, 6, { vocab: 30522 }));
      const ids = Array.from({ length: 64 }, (_, b) => Array.from({ length: 128 }, (_, l) => (l === 0 ? 101 : l === 127 ? 102 : 1000 + ((b * 7919 + l * 104729) % 20000))));
      m.forward({ inputIds: ids });
      const runs = [];
      for (let k = 0; k < reps; ++k) {
        const t0 = performance.now();
        m.forward({ inputIds: ids });
        runs.push(performance.now() - t0);
      }
      row.model_ms = +median(runs).toFixed(2);
      m.dispose();
    } catch (e) {
      row.error = String(e?.message ?? e);
    }
    out.rows.push(row);
    console.error(JSON.stringify(row));
  }
  rp.dispose?.();
}
console.log(JSON.stringify(out, null, 1));
