// Synthetic checkpoints of the issue #26 families at their released shapes, made in memory for the
// `families` bench section (lib/families.mjs): random weights (uniform ±0.05, seeded), the tensor names
// and layouts of each family's own code (the same as ../shared/fixtures/hf-families), F32 safetensors.
//   modernbert-base   hidden 768, 12 heads, GeGLU 1152, global every 3rd layer, local_attention 128 (|i − j| ≤ 64),
//                     RoPE θ 160000 (global) / 10000 (local), no biases, vocab 50368, 8192 positions
//   mpnet-base        hidden 768, 12 heads, FFN 3072, T5-style bucket bias shared by the layers, vocab 30527;
//                     the released model has 514 positions: the bench sets max_position_embeddings to
//                     seq + 2 so that the same layer can be timed at 8192 tokens (said in the report)
//   nomic-embed-v1.5  n_embd 768, 12 heads, SwiGLU 3072, rotary base 1000 on all head channels, half-split,
//                     post-LN, no biases, vocab 30528, 8192 positions
//   deberta-v3-base   hidden 768, 12 heads, FFN 3072, disentangled c2p + p2c with keys shared with content
//                     (share_att_key), 256 log buckets over 512 relative positions, LayerNorm'd rel_embeddings,
//                     no absolute positions (position_biased_input false), vocab 128100 (the bench passes less)
// familyCheckpoint(family, { layers, vocab, everyN, seq }) → { 'config.json': Uint8Array, 'model.safetensors': Uint8Array }
import { rng } from './util.mjs';

const H = 768, HEADS = 12;

function randomTensor(n, seed) {
  const r = rng(seed);
  const out = new Float32Array(n);
  for (let i = 0; i < n; ++i) out[i] = (2 * r() - 1) * 0.05;
  return out;
}
const ones = (n) => new Float32Array(n).fill(1);

/** An F32 safetensors file from { name: { shape, data: Float32Array } }, in insertion order. */
export function safetensors(tensors) {
  const header = { __metadata__: { format: 'pt' } };
  let offset = 0;
  for (const [name, { shape, data }] of Object.entries(tensors)) {
    header[name] = { dtype: 'F32', shape, data_offsets: [offset, offset + data.byteLength] };
    offset += data.byteLength;
  }
  let text = JSON.stringify(header);
  while (text.length % 8) text += ' ';
  const h = new TextEncoder().encode(text);
  const out = new Uint8Array(8 + h.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(h.length), true);
  out.set(h, 8);
  let at = 8 + h.length;
  for (const { data } of Object.values(tensors)) {
    out.set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), at);
    at += data.byteLength;
  }
  return out;
}

export const FAMILY_SHAPES = {
  'modernbert-base': { hidden: H, heads: HEADS, intermediate: 1152, vocab: 50368, positions: 8192 },
  'mpnet-base': { hidden: H, heads: HEADS, intermediate: 3072, vocab: 30527, positions: 514 },
  'nomic-embed-v1.5': { hidden: H, heads: HEADS, intermediate: 3072, vocab: 30528, positions: 8192 },
};

export function familyCheckpoint(family, { layers, vocab, everyN = 3, seq = 512 }) {
  let seed = 1;
  const t = {};
  const add = (name, shape, data) => { t[name] = { shape, data: data ?? randomTensor(shape.reduce((a, b) => a * b, 1), seed++) }; };
  let config;
  if (family === 'modernbert-base') {
    const I = 1152;
    config = { model_type: 'modernbert', architectures: ['ModernBertModel'], vocab_size: vocab, hidden_size: H, intermediate_size: I,
      num_hidden_layers: layers, num_attention_heads: HEADS, global_attn_every_n_layers: everyN, local_attention: 128,
      global_rope_theta: 160000.0, local_rope_theta: 10000.0, max_position_embeddings: 8192, norm_eps: 1e-5, norm_bias: false,
      attention_bias: false, mlp_bias: false, hidden_activation: 'gelu', pad_token_id: 50283 % vocab };
    add('embeddings.tok_embeddings.weight', [vocab, H]);
    add('embeddings.norm.weight', [H], ones(H));
    for (let i = 0; i < layers; ++i) {
      const p = `layers.${i}.`;
      if (i > 0) add(p + 'attn_norm.weight', [H], ones(H));
      add(p + 'attn.Wqkv.weight', [3 * H, H]);
      add(p + 'attn.Wo.weight', [H, H]);
      add(p + 'mlp_norm.weight', [H], ones(H));
      add(p + 'mlp.Wi.weight', [2 * I, H]);
      add(p + 'mlp.Wo.weight', [H, I]);
    }
    add('final_norm.weight', [H], ones(H));
  } else if (family === 'mpnet-base') {
    const I = 3072, P = Math.max(514, seq + 2);
    config = { model_type: 'mpnet', architectures: ['MPNetModel'], vocab_size: vocab, hidden_size: H, intermediate_size: I,
      num_hidden_layers: layers, num_attention_heads: HEADS, max_position_embeddings: P, layer_norm_eps: 1e-5,
      relative_attention_num_buckets: 32, hidden_act: 'gelu', pad_token_id: 1 };
    add('embeddings.word_embeddings.weight', [vocab, H]);
    add('embeddings.position_embeddings.weight', [P, H]);
    add('embeddings.LayerNorm.weight', [H], ones(H));
    add('embeddings.LayerNorm.bias', [H]);
    for (let i = 0; i < layers; ++i) {
      const p = `encoder.layer.${i}.`;
      for (const x of ['q', 'k', 'v', 'o']) {
        add(p + `attention.attn.${x}.weight`, [H, H]);
        add(p + `attention.attn.${x}.bias`, [H]);
      }
      add(p + 'attention.LayerNorm.weight', [H], ones(H));
      add(p + 'attention.LayerNorm.bias', [H]);
      add(p + 'intermediate.dense.weight', [I, H]);
      add(p + 'intermediate.dense.bias', [I]);
      add(p + 'output.dense.weight', [H, I]);
      add(p + 'output.dense.bias', [H]);
      add(p + 'output.LayerNorm.weight', [H], ones(H));
      add(p + 'output.LayerNorm.bias', [H]);
    }
    add('encoder.relative_attention_bias.weight', [32, HEADS]);
  } else if (family === 'nomic-embed-v1.5') {
    const I = 3072;
    config = { model_type: 'nomic_bert', architectures: ['NomicBertModel'], vocab_size: vocab, n_embd: H, n_head: HEADS, n_layer: layers,
      n_inner: I, n_positions: 8192, activation_function: 'swiglu', layer_norm_epsilon: 1e-12, rotary_emb_base: 1000,
      rotary_emb_fraction: 1.0, rotary_emb_interleaved: false, rotary_scaling_factor: null, prenorm: false, qkv_proj_bias: false,
      mlp_fc1_bias: false, mlp_fc2_bias: false, type_vocab_size: 2, pad_token_id: 0 };
    add('embeddings.word_embeddings.weight', [vocab, H]);
    add('embeddings.token_type_embeddings.weight', [2, H]);
    add('emb_ln.weight', [H], ones(H));
    add('emb_ln.bias', [H]);
    for (let i = 0; i < layers; ++i) {
      const p = `encoder.layers.${i}.`;
      add(p + 'attn.Wqkv.weight', [3 * H, H]);
      add(p + 'attn.out_proj.weight', [H, H]);
      add(p + 'mlp.fc11.weight', [I, H]);
      add(p + 'mlp.fc12.weight', [I, H]);
      add(p + 'mlp.fc2.weight', [H, I]);
      add(p + 'norm1.weight', [H], ones(H));
      add(p + 'norm1.bias', [H]);
      add(p + 'norm2.weight', [H], ones(H));
      add(p + 'norm2.bias', [H]);
    }
  } else if (family === 'deberta-v3-base') {
    const I = 3072;
    config = { model_type: 'deberta-v2', architectures: ['DebertaV2Model'], vocab_size: vocab, hidden_size: H, intermediate_size: I,
      num_hidden_layers: layers, num_attention_heads: HEADS, hidden_act: 'gelu', layer_norm_eps: 1e-7, max_position_embeddings: 512,
      relative_attention: true, max_relative_positions: -1, position_buckets: 256, norm_rel_ebd: 'layer_norm', share_att_key: true,
      pos_att_type: ['p2c', 'c2p'], position_biased_input: false, type_vocab_size: 0, pad_token_id: 0 };
    add('embeddings.word_embeddings.weight', [vocab, H]);
    add('embeddings.LayerNorm.weight', [H], ones(H));
    add('embeddings.LayerNorm.bias', [H]);
    for (let i = 0; i < layers; ++i) {
      const p = `encoder.layer.${i}.`;
      for (const x of ['query_proj', 'key_proj', 'value_proj']) {
        add(p + `attention.self.${x}.weight`, [H, H]);
        add(p + `attention.self.${x}.bias`, [H]);
      }
      add(p + 'attention.output.dense.weight', [H, H]);
      add(p + 'attention.output.dense.bias', [H]);
      add(p + 'attention.output.LayerNorm.weight', [H], ones(H));
      add(p + 'attention.output.LayerNorm.bias', [H]);
      add(p + 'intermediate.dense.weight', [I, H]);
      add(p + 'intermediate.dense.bias', [I]);
      add(p + 'output.dense.weight', [H, I]);
      add(p + 'output.dense.bias', [H]);
      add(p + 'output.LayerNorm.weight', [H], ones(H));
      add(p + 'output.LayerNorm.bias', [H]);
    }
    add('encoder.rel_embeddings.weight', [512, H]);
    add('encoder.LayerNorm.weight', [H], ones(H));
    add('encoder.LayerNorm.bias', [H]);
  } else {
    throw new Error(`familyCheckpoint: unknown family '${family}' (${Object.keys(FAMILY_SHAPES).join(', ')})`);
  }
  return { 'config.json': new TextEncoder().encode(JSON.stringify(config)), 'model.safetensors': safetensors(t) };
}

/** Token ids of length seq for a vocabulary: a fixed pattern that never uses ids 0–4 (pad/special ids). */
export function familyIds(seq, vocab) {
  return Array.from({ length: seq }, (_, i) => 5 + ((i * 7919 + 13) % (vocab - 5)));
}
