// relpos's WebAssembly package on the GPU machine's own CPU, for the WebGPU target "relpos WebGPU ≥ 20× relpos
// WASM at 2 threads on the same machine" (issue #27): the same layer shapes bench/gpu/bench.mjs times on the GPU,
// here as one-layer BERT-shaped checkpoints with random weights through rp.loadModel + model.forward:
//   MiniLM layer (hidden 384, 12 heads, FFN 1536), 64 texts × 128 tokens
//   base-shaped layer (hidden 768, 12 heads, FFN 3072), 1 × 512 tokens
// One layer = T(2-layer model) − T(1-layer model) (medians of `reps` forwards), so embeddings and copies cancel,
// as the GPU rows time the layer alone. Threads: 1, 2 and the machine's core count (SIMD build; threads build).
// Prints one JSON object. Run with the carried node: node --no-experimental-fetch bench/gpu/wasm_peer.mjs
import os from 'node:os';
import { rng } from '../lib/util.mjs';
import { safetensors } from '../lib/family_models.mjs';

const rpModule = await import('../../web/index.js');
const SHAPES = [
  { name: 'MiniLM-L6 layer, 64 texts × 128 tokens', hidden: 384, heads: 12, ffn: 1536, batch: 64, seq: 128 },
  { name: 'base-shaped layer, 512 tokens', hidden: 768, heads: 12, ffn: 3072, batch: 1, seq: 512 },
];
const reps = Number(process.env.REPS ?? 3);

function checkpoint({ hidden: H, heads, ffn: I }, layers) {
  const V = 1024, P = 512, r = rng(7);
  const t = {};
  const add = (name, shape, fill) => {
    const n = shape.reduce((a, b) => a * b, 1);
    const d = new Float32Array(n);
    for (let i = 0; i < n; ++i) d[i] = fill ?? (2 * r() - 1) * 0.05;
    t[name] = { shape, data: d };
  };
  add('embeddings.word_embeddings.weight', [V, H]);
  add('embeddings.position_embeddings.weight', [P, H]);
  add('embeddings.token_type_embeddings.weight', [2, H]);
  add('embeddings.LayerNorm.weight', [H], 1);
  add('embeddings.LayerNorm.bias', [H], 0);
  for (let l = 0; l < layers; ++l) {
    const p = `encoder.layer.${l}.`;
    for (const x of ['attention.self.query', 'attention.self.key', 'attention.self.value', 'attention.output.dense']) {
      add(p + x + '.weight', [H, H]);
      add(p + x + '.bias', [H]);
    }
    add(p + 'attention.output.LayerNorm.weight', [H], 1);
    add(p + 'attention.output.LayerNorm.bias', [H], 0);
    add(p + 'intermediate.dense.weight', [I, H]);
    add(p + 'intermediate.dense.bias', [I]);
    add(p + 'output.dense.weight', [H, I]);
    add(p + 'output.dense.bias', [H]);
    add(p + 'output.LayerNorm.weight', [H], 1);
    add(p + 'output.LayerNorm.bias', [H], 0);
  }
  const bytes = safetensors(t);
  const config = { model_type: 'bert', architectures: ['BertModel'], vocab_size: V, hidden_size: H, num_hidden_layers: layers,
    num_attention_heads: heads, intermediate_size: I, hidden_act: 'gelu', max_position_embeddings: P, type_vocab_size: 2, layer_norm_eps: 1e-12 };
  return { 'config.json': JSON.stringify(config), 'model.safetensors': bytes };
}
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

const out = { cpu: os.cpus()[0]?.model, cores: os.cpus().length, node: process.version, rows: [] };
for (const threads of [1, 2, os.cpus().length]) {
  const rp = await rpModule.init(threads > 1 ? { threads } : {});
  for (const s of SHAPES) {
    const row = { shape: s.name, threads_asked: threads, threads: rp.threads ?? 1 };
    try {
      const ids = Array.from({ length: s.batch }, (_, b) => Array.from({ length: s.seq }, (_, i) => 5 + ((i * 31 + b * 7) % 1000)));
      const t = {};
      for (const layers of [1, 2]) {
        const m = await rp.loadModel(checkpoint(s, layers));
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
  rp.dispose?.();
}
console.log(JSON.stringify(out, null, 1));
