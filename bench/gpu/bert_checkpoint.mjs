// A BERT-shaped checkpoint with random weights (uniform ±0.05, seeded), made in memory: config.json + F32
// model.safetensors with Hugging Face's BertModel names. Used by the GPU machine's runs (bench/gpu/bench.mjs,
// bench/gpu/wasm_peer.mjs) to time MiniLM-shaped models where the real checkpoint is too large to carry.
//   bertCheckpoint({ hidden, heads, ffn }, layers, { vocab = 1024, positions = 512 }) → { 'config.json', 'model.safetensors' }
import { rng } from '../lib/util.mjs';
import { safetensors } from '../lib/family_models.mjs';

export function bertCheckpoint({ hidden: H, heads, ffn: I }, layers, { vocab: V = 1024, positions: P = 512 } = {}) {
  const r = rng(7);
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
