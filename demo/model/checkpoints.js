// Small random-weight Hugging Face model folders, one per model family relpos runs, generated
// deterministically (seeded) in the browser: config.json (Hugging Face field names),
// model.safetensors (Hugging Face weight names and [out, in] Linear layout) and tokenizer.json
// (tokenizer-json.js). The encoder section loads them with rp.loadModel(files) — the C++ model
// layer a web app uses — so each position scheme with a Hugging Face family runs as that family.
//
//   const files = makeCheckpoint('bloom', { layers: 2 });   // { 'config.json', 'model.safetensors', 'tokenizer.json' }
//   const model = await rp.loadModel(files, { tokenizers });
//
// Sizes: hidden 64, 4 heads of 16, feed-forward 128 (BLOOM and MPT: 4 × hidden), 512 positions,
// the tokenizer's vocabulary. Weights: Linear N(0, 1/fan_in), embeddings N(0, 1), norms 1 and 0,
// position tables as noted per family; random, so the models show position mechanics only.
import { rng, hashString } from '../lib/rng.js';
import { writeSafetensors } from './safetensors.js';
import { makeTokenizerJson, VOCAB_SIZE, PAD_ID } from './tokenizer-json.js';

export const DIMS = Object.freeze({ hidden: 64, heads: 4, headDim: 16, ffn: 128, positions: 512, vocab: VOCAB_SIZE });
export const SEED = 2024;

// Families: id → { label, modelType, schemes it implements, causal, config(dims, layers), tensors(dims, layers) }.
// tensors() lists [name, shape, init]; init is 'ones' | 'zeros' | { std } | (n) => Float32Array.
const linear = (name, out, inp, bias = true) => [
  [`${name}.weight`, [out, inp], { std: 1 / Math.sqrt(inp) }],
  ...(bias ? [[`${name}.bias`, [out], 'zeros']] : []),
];
const layerNorm = (name, n, bias = true) => [[`${name}.weight`, [n], 'ones'], ...(bias ? [[`${name}.bias`, [n], 'zeros']] : [])];
const range = (n) => Array.from({ length: n }, (_, i) => i);

// BERT-style post-LN encoder layers (BERT, RoFormer, DeBERTa-v2 name their projections alike).
function bertLayers(prefix, d, layers, { q = 'query', k = 'key', v = 'value', extra = () => [] } = {}) {
  return range(layers).flatMap((i) => {
    const p = `${prefix}.${i}.`;
    return [
      ...linear(`${p}attention.self.${q}`, d.hidden, d.hidden),
      ...linear(`${p}attention.self.${k}`, d.hidden, d.hidden),
      ...linear(`${p}attention.self.${v}`, d.hidden, d.hidden),
      ...extra(p),
      ...linear(`${p}attention.output.dense`, d.hidden, d.hidden),
      ...layerNorm(`${p}attention.output.LayerNorm`, d.hidden),
      ...linear(`${p}intermediate.dense`, d.ffn, d.hidden),
      ...linear(`${p}output.dense`, d.hidden, d.ffn),
      ...layerNorm(`${p}output.LayerNorm`, d.hidden),
    ];
  });
}

// Sinusoid tables as Hugging Face stores them.
function sinusoidInterleaved(rows, dim) {
  // DistilBERT: PE[p, 2i] = sin(p / 10000^(2i/dim)), PE[p, 2i+1] = cos(…)
  const t = new Float32Array(rows * dim);
  for (let p = 0; p < rows; p++)
    for (let i = 0; i < dim; i += 2) {
      const a = p / 10000 ** (i / dim);
      t[p * dim + i] = Math.sin(a);
      if (i + 1 < dim) t[p * dim + i + 1] = Math.cos(a);
    }
  return t;
}
function sinusoidHalves(rows, dim) {
  // RoFormer's embed_positions: [sin of every even frequency | cos of them]
  const t = new Float32Array(rows * dim), half = dim >> 1;
  for (let p = 0; p < rows; p++)
    for (let i = 0; i < half; i++) {
      const a = p / 10000 ** ((2 * i) / dim);
      t[p * dim + i] = Math.sin(a);
      t[p * dim + half + i] = Math.cos(a);
    }
  return t;
}

const bertConfig = (d, layers, positionType) => ({
  architectures: ['BertModel'], model_type: 'bert', vocab_size: d.vocab, hidden_size: d.hidden, num_hidden_layers: layers,
  num_attention_heads: d.heads, intermediate_size: d.ffn, hidden_act: 'gelu', max_position_embeddings: d.positions,
  type_vocab_size: 2, layer_norm_eps: 1e-12, position_embedding_type: positionType, pad_token_id: PAD_ID,
  hidden_dropout_prob: 0, attention_probs_dropout_prob: 0,
});
const bertTensors = (d, layers, relative) => [
  ['embeddings.word_embeddings.weight', [d.vocab, d.hidden], { std: 1 }],
  // present (as in Hugging Face's BertEmbeddings) but unused by the relative types
  ['embeddings.position_embeddings.weight', [d.positions, d.hidden], { std: relative ? 0.02 : 1 }],
  ['embeddings.token_type_embeddings.weight', [2, d.hidden], { std: 0.1 }],
  ...layerNorm('embeddings.LayerNorm', d.hidden),
  ...bertLayers('encoder.layer', d, layers, {
    extra: (p) => (relative ? [[`${p}attention.self.distance_embedding.weight`, [2 * d.positions - 1, d.headDim], { std: 1 }]] : []),
  }),
  ...linear('pooler.dense', d.hidden, d.hidden),
];

export const FAMILIES = {
  'bert-absolute': {
    label: 'BERT (learned absolute)', modelType: 'bert', scheme: 'learned-absolute', causal: false,
    config: (d, L) => bertConfig(d, L, 'absolute'),
    tensors: (d, L) => bertTensors(d, L, false),
  },
  'bert-relative-key': {
    label: 'BERT relative_key (Shaw keys)', modelType: 'bert', scheme: 'shaw', causal: false,
    config: (d, L) => bertConfig(d, L, 'relative_key'),
    tensors: (d, L) => bertTensors(d, L, true),
  },
  'bert-relative-key-query': {
    label: 'BERT relative_key_query', modelType: 'bert', scheme: 'bert-relative', causal: false,
    config: (d, L) => bertConfig(d, L, 'relative_key_query'),
    tensors: (d, L) => bertTensors(d, L, true),
  },
  t5: {
    label: 'T5 encoder', modelType: 't5', scheme: 't5', causal: false,
    config: (d, L) => ({
      architectures: ['T5EncoderModel'], model_type: 't5', vocab_size: d.vocab, d_model: d.hidden, d_kv: d.headDim, d_ff: d.ffn,
      num_layers: L, num_heads: d.heads, relative_attention_num_buckets: 32, relative_attention_max_distance: 128,
      layer_norm_epsilon: 1e-6, feed_forward_proj: 'relu', is_encoder_decoder: true, pad_token_id: PAD_ID, dropout_rate: 0,
    }),
    tensors: (d, L) => [
      ['shared.weight', [d.vocab, d.hidden], { std: 1, same: 'embed' }],
      ['encoder.embed_tokens.weight', [d.vocab, d.hidden], { std: 1, same: 'embed' }],
      ...range(L).flatMap((i) => {
        const p = `encoder.block.${i}.layer.`;
        const inner = d.heads * d.headDim;
        return [
          [`${p}0.layer_norm.weight`, [d.hidden], 'ones'],
          ...['q', 'k', 'v'].flatMap((n) => linear(`${p}0.SelfAttention.${n}`, inner, d.hidden, false)),
          ...linear(`${p}0.SelfAttention.o`, d.hidden, inner, false),
          ...(i === 0 ? [[`${p}0.SelfAttention.relative_attention_bias.weight`, [32, d.heads], { std: 1.5 }]] : []),
          [`${p}1.layer_norm.weight`, [d.hidden], 'ones'],
          ...linear(`${p}1.DenseReluDense.wi`, d.ffn, d.hidden, false),
          ...linear(`${p}1.DenseReluDense.wo`, d.hidden, d.ffn, false),
        ];
      }),
      ['encoder.final_layer_norm.weight', [d.hidden], 'ones'],
    ],
  },
  'deberta-v2': {
    label: 'DeBERTa-v2/v3', modelType: 'deberta-v2', scheme: 'deberta', causal: false,
    config: (d, L) => ({
      architectures: ['DebertaV2Model'], model_type: 'deberta-v2', vocab_size: d.vocab, hidden_size: d.hidden, num_hidden_layers: L,
      num_attention_heads: d.heads, intermediate_size: d.ffn, hidden_act: 'gelu', max_position_embeddings: d.positions,
      type_vocab_size: 0, layer_norm_eps: 1e-7, relative_attention: true, position_buckets: 256, max_relative_positions: -1,
      pos_att_type: ['p2c', 'c2p'], share_att_key: true, position_biased_input: false, norm_rel_ebd: 'layer_norm', pad_token_id: PAD_ID,
    }),
    tensors: (d, L) => [
      ['embeddings.word_embeddings.weight', [d.vocab, d.hidden], { std: 1 }],
      ...layerNorm('embeddings.LayerNorm', d.hidden),
      ...bertLayers('encoder.layer', d, L, { q: 'query_proj', k: 'key_proj', v: 'value_proj' }),
      ['encoder.rel_embeddings.weight', [2 * 256, d.hidden], { std: 1 }],
      ...layerNorm('encoder.LayerNorm', d.hidden),
    ],
  },
  roformer: {
    label: 'RoFormer (interleaved rotary)', modelType: 'roformer', scheme: 'rope', causal: false,
    config: (d, L) => ({
      architectures: ['RoFormerModel'], model_type: 'roformer', vocab_size: d.vocab, embedding_size: d.hidden, hidden_size: d.hidden,
      num_hidden_layers: L, num_attention_heads: d.heads, intermediate_size: d.ffn, hidden_act: 'gelu',
      max_position_embeddings: d.positions, type_vocab_size: 2, layer_norm_eps: 1e-12, rotary_value: false, pad_token_id: PAD_ID,
    }),
    tensors: (d, L) => [
      ['embeddings.word_embeddings.weight', [d.vocab, d.hidden], { std: 1 }],
      ['embeddings.token_type_embeddings.weight', [2, d.hidden], { std: 0.1 }],
      ...layerNorm('embeddings.LayerNorm', d.hidden),
      ['encoder.embed_positions.weight', [d.positions, d.headDim], () => sinusoidHalves(d.positions, d.headDim)],
      ...bertLayers('encoder.layer', d, L),
    ],
  },
  llama: {
    label: 'LLaMA (rotate_half rotary, causal)', modelType: 'llama', scheme: 'rope', causal: true,
    config: (d, L) => ({
      architectures: ['LlamaModel'], model_type: 'llama', vocab_size: d.vocab, hidden_size: d.hidden, intermediate_size: d.ffn,
      num_hidden_layers: L, num_attention_heads: d.heads, num_key_value_heads: d.heads, hidden_act: 'silu',
      max_position_embeddings: d.positions, rms_norm_eps: 1e-6, rope_theta: 10000, attention_bias: false, rope_scaling: null,
      pad_token_id: PAD_ID,
    }),
    tensors: (d, L) => [
      ['embed_tokens.weight', [d.vocab, d.hidden], { std: 1 }],
      ...range(L).flatMap((i) => {
        const p = `layers.${i}.`;
        return [
          [`${p}input_layernorm.weight`, [d.hidden], 'ones'],
          ...['q_proj', 'k_proj', 'v_proj', 'o_proj'].flatMap((n) => linear(`${p}self_attn.${n}`, d.hidden, d.hidden, false)),
          [`${p}post_attention_layernorm.weight`, [d.hidden], 'ones'],
          ...linear(`${p}mlp.gate_proj`, d.ffn, d.hidden, false),
          ...linear(`${p}mlp.up_proj`, d.ffn, d.hidden, false),
          ...linear(`${p}mlp.down_proj`, d.hidden, d.ffn, false),
        ];
      }),
      ['norm.weight', [d.hidden], 'ones'],
    ],
  },
  bloom: {
    label: 'BLOOM (ALiBi, causal)', modelType: 'bloom', scheme: 'alibi', causal: true,
    config: (d, L) => ({
      architectures: ['BloomModel'], model_type: 'bloom', vocab_size: d.vocab, hidden_size: d.hidden, n_layer: L, n_head: d.heads,
      layer_norm_epsilon: 1e-5, apply_residual_connection_post_layernorm: false, pad_token_id: PAD_ID,
    }),
    tensors: (d, L) => [
      ['word_embeddings.weight', [d.vocab, d.hidden], { std: 1 }],
      ...layerNorm('word_embeddings_layernorm', d.hidden),
      ...range(L).flatMap((i) => {
        const p = `h.${i}.`;
        return [
          ...layerNorm(`${p}input_layernorm`, d.hidden),
          ...linear(`${p}self_attention.query_key_value`, 3 * d.hidden, d.hidden),
          ...linear(`${p}self_attention.dense`, d.hidden, d.hidden),
          ...layerNorm(`${p}post_attention_layernorm`, d.hidden),
          ...linear(`${p}mlp.dense_h_to_4h`, 4 * d.hidden, d.hidden),
          ...linear(`${p}mlp.dense_4h_to_h`, d.hidden, 4 * d.hidden),
        ];
      }),
      ...layerNorm('ln_f', d.hidden),
    ],
  },
  mpt: {
    label: 'MPT (ALiBi, causal)', modelType: 'mpt', scheme: 'alibi', causal: true,
    config: (d, L) => ({
      architectures: ['MptModel'], model_type: 'mpt', vocab_size: d.vocab, d_model: d.hidden, n_heads: d.heads, n_layers: L,
      expansion_ratio: 4, max_seq_len: 2048, no_bias: true, layer_norm_epsilon: 1e-5, pad_token_id: PAD_ID,
      attn_config: { attn_type: 'multihead_attention', alibi: true, alibi_bias_max: 8, qk_ln: false, clip_qkv: null, softmax_scale: null },
    }),
    tensors: (d, L) => [
      ['wte.weight', [d.vocab, d.hidden], { std: 1 }],
      ...range(L).flatMap((i) => {
        const p = `blocks.${i}.`;
        return [
          ...layerNorm(`${p}norm_1`, d.hidden, false),
          ...linear(`${p}attn.Wqkv`, 3 * d.hidden, d.hidden, false),
          ...linear(`${p}attn.out_proj`, d.hidden, d.hidden, false),
          ...layerNorm(`${p}norm_2`, d.hidden, false),
          ...linear(`${p}ffn.up_proj`, 4 * d.hidden, d.hidden, false),
          ...linear(`${p}ffn.down_proj`, d.hidden, 4 * d.hidden, false),
        ];
      }),
      ...layerNorm('norm_f', d.hidden, false),
    ],
  },
  'transfo-xl': {
    label: 'Transformer-XL (causal)', modelType: 'transfo-xl', scheme: 'transformer-xl', causal: true,
    config: (d, L) => ({
      architectures: ['TransfoXLModel'], model_type: 'transfo-xl', vocab_size: d.vocab, d_model: d.hidden, d_embed: d.hidden,
      n_head: d.heads, d_head: d.headDim, d_inner: d.ffn, div_val: 1, pre_lnorm: false, n_layer: L, mem_len: 0, clamp_len: 0,
      same_length: false, attn_type: 0, untie_r: true, adaptive: false, cutoffs: [], layer_norm_epsilon: 1e-5, pad_token_id: PAD_ID,
    }),
    tensors: (d, L) => {
      const inner = d.heads * d.headDim;
      return [
        ['word_emb.emb_layers.0.weight', [d.vocab, d.hidden], { std: 1 / Math.sqrt(d.hidden) }], // × √d_model in the model
        ['pos_emb.inv_freq', [d.hidden / 2], () => Float32Array.from({ length: d.hidden / 2 }, (_, i) => 1 / 10000 ** ((2 * i) / d.hidden))],
        ...range(L).flatMap((i) => {
          const p = `layers.${i}.`;
          return [
            ...linear(`${p}dec_attn.qkv_net`, 3 * inner, d.hidden, false),
            ...linear(`${p}dec_attn.o_net`, d.hidden, inner, false),
            ...layerNorm(`${p}dec_attn.layer_norm`, d.hidden),
            ...linear(`${p}dec_attn.r_net`, inner, d.hidden, false),
            [`${p}dec_attn.r_r_bias`, [d.heads, d.headDim], { std: 0.5 }],
            [`${p}dec_attn.r_w_bias`, [d.heads, d.headDim], { std: 0.5 }],
            ...linear(`${p}pos_ff.CoreNet.0`, d.ffn, d.hidden),
            ...linear(`${p}pos_ff.CoreNet.3`, d.hidden, d.ffn),
            ...layerNorm(`${p}pos_ff.layer_norm`, d.hidden),
          ];
        }),
      ];
    },
  },
  mpnet: {
    label: 'MPNet (T5 buckets shared by the layers)', modelType: 'mpnet', scheme: 't5', causal: false,
    config: (d, L) => ({
      architectures: ['MPNetModel'], model_type: 'mpnet', vocab_size: d.vocab, hidden_size: d.hidden, num_hidden_layers: L,
      num_attention_heads: d.heads, intermediate_size: d.ffn, hidden_act: 'gelu', max_position_embeddings: d.positions + 2,
      layer_norm_eps: 1e-5, relative_attention_num_buckets: 32, pad_token_id: 1,
    }),
    tensors: (d, L) => [
      ['embeddings.word_embeddings.weight', [d.vocab, d.hidden], { std: 1 }],
      // rows 2 … n+1 are used (positions from the token ids, padding_idx 1)
      ['embeddings.position_embeddings.weight', [d.positions + 2, d.hidden], { std: 1 }],
      ...layerNorm('embeddings.LayerNorm', d.hidden),
      ...range(L).flatMap((i) => {
        const p = `encoder.layer.${i}.`;
        return [
          ...['q', 'k', 'v', 'o'].flatMap((n) => linear(`${p}attention.attn.${n}`, d.hidden, d.hidden)),
          ...layerNorm(`${p}attention.LayerNorm`, d.hidden),
          ...linear(`${p}intermediate.dense`, d.ffn, d.hidden),
          ...linear(`${p}output.dense`, d.hidden, d.ffn),
          ...layerNorm(`${p}output.LayerNorm`, d.hidden),
        ];
      }),
      ['encoder.relative_attention_bias.weight', [32, d.heads], { std: 1.5 }],
      ...linear('pooler.dense', d.hidden, d.hidden),
    ],
  },
  modernbert: {
    label: 'ModernBERT (rotary, sliding window on 2 of 3 layers)', modelType: 'modernbert', scheme: 'rope', causal: false,
    config: (d, L) => ({
      architectures: ['ModernBertModel'], model_type: 'modernbert', vocab_size: d.vocab, hidden_size: d.hidden, intermediate_size: d.ffn,
      num_hidden_layers: L, num_attention_heads: d.heads, global_attn_every_n_layers: 3, local_attention: 8,
      global_rope_theta: 160000, local_rope_theta: 10000, max_position_embeddings: d.positions, norm_eps: 1e-5, norm_bias: false,
      attention_bias: false, mlp_bias: false, hidden_activation: 'gelu', pad_token_id: PAD_ID,
    }),
    tensors: (d, L) => [
      ['embeddings.tok_embeddings.weight', [d.vocab, d.hidden], { std: 1 }],
      ...layerNorm('embeddings.norm', d.hidden, false),
      ...range(L).flatMap((i) => {
        const p = `layers.${i}.`;
        return [
          ...(i > 0 ? layerNorm(`${p}attn_norm`, d.hidden, false) : []),  // layer 0 has no attention norm
          ...linear(`${p}attn.Wqkv`, 3 * d.hidden, d.hidden, false),
          ...linear(`${p}attn.Wo`, d.hidden, d.hidden, false),
          ...layerNorm(`${p}mlp_norm`, d.hidden, false),
          ...linear(`${p}mlp.Wi`, 2 * d.ffn, d.hidden, false),
          ...linear(`${p}mlp.Wo`, d.hidden, d.ffn, false),
        ];
      }),
      ...layerNorm('final_norm', d.hidden, false),
    ],
  },
  qwen3: {
    label: 'Qwen3 (Qwen3-Embedding: causal, rotary, grouped-query, q/k norms)', modelType: 'qwen3', scheme: 'rope', causal: true,
    config: (d, L) => ({
      architectures: ['Qwen3Model'], model_type: 'qwen3', vocab_size: d.vocab, hidden_size: d.hidden, intermediate_size: d.ffn,
      num_hidden_layers: L, num_attention_heads: d.heads, num_key_value_heads: d.heads / 2, head_dim: d.headDim,
      hidden_act: 'silu', max_position_embeddings: d.positions, rms_norm_eps: 1e-6, rope_theta: 1000000, tie_word_embeddings: true,
      use_sliding_window: false, pad_token_id: PAD_ID,
    }),
    tensors: (d, L) => [
      ['embed_tokens.weight', [d.vocab, d.hidden], { std: 1 }],
      ...range(L).flatMap((i) => {
        const p = `layers.${i}.`;
        const kv = (d.heads / 2) * d.headDim;
        return [
          ...layerNorm(`${p}input_layernorm`, d.hidden, false),
          ...linear(`${p}self_attn.q_proj`, d.heads * d.headDim, d.hidden, false),
          ...linear(`${p}self_attn.k_proj`, kv, d.hidden, false),
          ...linear(`${p}self_attn.v_proj`, kv, d.hidden, false),
          ...linear(`${p}self_attn.o_proj`, d.hidden, d.heads * d.headDim, false),
          ...layerNorm(`${p}self_attn.q_norm`, d.headDim, false),
          ...layerNorm(`${p}self_attn.k_norm`, d.headDim, false),
          ...layerNorm(`${p}post_attention_layernorm`, d.hidden, false),
          ...linear(`${p}mlp.gate_proj`, d.ffn, d.hidden, false),
          ...linear(`${p}mlp.up_proj`, d.ffn, d.hidden, false),
          ...linear(`${p}mlp.down_proj`, d.hidden, d.ffn, false),
        ];
      }),
      ...layerNorm('norm', d.hidden, false),
    ],
  },
  gemma3: {
    label: 'Gemma3 text (EmbeddingGemma: bidirectional, sliding window ±4 on 5 of 6 layers, two rotary bases)', modelType: 'gemma3_text', scheme: 'rope', causal: false,
    config: (d, L) => ({
      architectures: ['Gemma3TextModel'], model_type: 'gemma3_text', vocab_size: d.vocab, hidden_size: d.hidden, intermediate_size: d.ffn,
      num_hidden_layers: L, num_attention_heads: d.heads, num_key_value_heads: 1, head_dim: d.headDim, query_pre_attn_scalar: d.headDim,
      hidden_activation: 'gelu_pytorch_tanh', max_position_embeddings: d.positions, rms_norm_eps: 1e-6, rope_theta: 1000000,
      rope_local_base_freq: 10000, sliding_window: 8, use_bidirectional_attention: true,
      layer_types: range(L).map((i) => ((i + 1) % 6 ? 'sliding_attention' : 'full_attention')), pad_token_id: PAD_ID,
    }),
    // RMSNorm weights are w in (1 + w): zeros make the gain 1
    tensors: (d, L) => [
      ['embed_tokens.weight', [d.vocab, d.hidden], { std: 1 / Math.sqrt(d.hidden) }], // × √hidden in the model
      ...range(L).flatMap((i) => {
        const p = `layers.${i}.`;
        const zeros = (name, n) => [[`${name}.weight`, [n], 'zeros']];
        return [
          ...zeros(`${p}input_layernorm`, d.hidden),
          ...linear(`${p}self_attn.q_proj`, d.heads * d.headDim, d.hidden, false),
          ...linear(`${p}self_attn.k_proj`, d.headDim, d.hidden, false),
          ...linear(`${p}self_attn.v_proj`, d.headDim, d.hidden, false),
          ...linear(`${p}self_attn.o_proj`, d.hidden, d.heads * d.headDim, false),
          ...zeros(`${p}self_attn.q_norm`, d.headDim),
          ...zeros(`${p}self_attn.k_norm`, d.headDim),
          ...zeros(`${p}post_attention_layernorm`, d.hidden),
          ...zeros(`${p}pre_feedforward_layernorm`, d.hidden),
          ...zeros(`${p}post_feedforward_layernorm`, d.hidden),
          ...linear(`${p}mlp.gate_proj`, d.ffn, d.hidden, false),
          ...linear(`${p}mlp.up_proj`, d.ffn, d.hidden, false),
          ...linear(`${p}mlp.down_proj`, d.hidden, d.ffn, false),
        ];
      }),
      ...[['norm.weight', [d.hidden], 'zeros']],
    ],
  },
  'nomic-bert': {
    label: 'NomicBERT (rotary, SwiGLU)', modelType: 'nomic_bert', scheme: 'rope', causal: false,
    config: (d, L) => ({
      architectures: ['NomicBertModel'], model_type: 'nomic_bert', vocab_size: d.vocab, n_embd: d.hidden, n_head: d.heads, n_layer: L,
      n_inner: 256, n_positions: d.positions, activation_function: 'swiglu', layer_norm_epsilon: 1e-12, rotary_emb_base: 1000,
      rotary_emb_fraction: 1.0, rotary_emb_interleaved: false, rotary_scaling_factor: null, prenorm: false, qkv_proj_bias: false,
      mlp_fc1_bias: false, mlp_fc2_bias: false, type_vocab_size: 2, pad_token_id: PAD_ID,
    }),
    tensors: (d, L) => [
      ['embeddings.word_embeddings.weight', [d.vocab, d.hidden], { std: 1 }],
      ['embeddings.token_type_embeddings.weight', [2, d.hidden], { std: 0.1 }],
      ...layerNorm('emb_ln', d.hidden),
      ...range(L).flatMap((i) => {
        const p = `encoder.layers.${i}.`;
        return [
          ...linear(`${p}attn.Wqkv`, 3 * d.hidden, d.hidden, false),
          ...linear(`${p}attn.out_proj`, d.hidden, d.hidden, false),
          ...linear(`${p}mlp.fc11`, 256, d.hidden, false),
          ...linear(`${p}mlp.fc12`, 256, d.hidden, false),
          ...linear(`${p}mlp.fc2`, d.hidden, 256, false),
          ...layerNorm(`${p}norm1`, d.hidden),
          ...layerNorm(`${p}norm2`, d.hidden),
        ];
      }),
    ],
  },
  'distilbert-sinusoidal': {
    label: 'DistilBERT (sinusoidal)', modelType: 'distilbert', scheme: 'sinusoidal', causal: false,
    config: (d, L) => ({
      architectures: ['DistilBertModel'], model_type: 'distilbert', vocab_size: d.vocab, max_position_embeddings: d.positions,
      sinusoidal_pos_embds: true, n_layers: L, n_heads: d.heads, dim: d.hidden, hidden_dim: d.ffn, activation: 'gelu',
      pad_token_id: PAD_ID, dropout: 0, attention_dropout: 0,
    }),
    tensors: (d, L) => [
      ['embeddings.word_embeddings.weight', [d.vocab, d.hidden], { std: 1 }],
      ['embeddings.position_embeddings.weight', [d.positions, d.hidden], () => sinusoidInterleaved(d.positions, d.hidden)],
      ...layerNorm('embeddings.LayerNorm', d.hidden),
      ...range(L).flatMap((i) => {
        const p = `transformer.layer.${i}.`;
        return [
          ...['q_lin', 'k_lin', 'v_lin', 'out_lin'].flatMap((n) => linear(`${p}attention.${n}`, d.hidden, d.hidden)),
          ...layerNorm(`${p}sa_layer_norm`, d.hidden),
          ...linear(`${p}ffn.lin1`, d.ffn, d.hidden),
          ...linear(`${p}ffn.lin2`, d.hidden, d.ffn),
          ...layerNorm(`${p}output_layer_norm`, d.hidden),
        ];
      }),
    ],
  },
};

/** Family ids that implement a demo scheme, in the order offered (first = default); [] = none. */
export function familiesFor(scheme) {
  return Object.entries(FAMILIES).filter(([, f]) => f.scheme === scheme).map(([id]) => id);
}

/** Values of one tensor: seeded by the checkpoint seed and the tensor's name (or its `same` group). */
function values(name, shape, init, seed) {
  const n = shape.reduce((a, b) => a * b, 1);
  if (init === 'ones') return new Float32Array(n).fill(1);
  if (init === 'zeros') return new Float32Array(n);
  if (typeof init === 'function') return init(n);
  return rng(seed * 2654435761 + hashString(init.same ?? name)).normals(n, init.std);
}

/**
 * The files of one family's random-weight checkpoint: { 'config.json': string,
 * 'model.safetensors': Uint8Array, 'tokenizer.json': string }. Same arguments → same bytes.
 */
export function makeCheckpoint(family, { layers = 2, seed = SEED, dims = DIMS } = {}) {
  const f = FAMILIES[family];
  if (!f) throw new TypeError(`unknown model family '${family}' (known: ${Object.keys(FAMILIES).join(', ')})`);
  if (!Number.isInteger(layers) || layers < 1) throw new RangeError(`layers: expected an integer ≥ 1, got ${layers}`);
  const tensors = f.tensors(dims, layers).map(([name, shape, init]) => [name, shape, values(name, shape, init, seed)]);
  return {
    'config.json': JSON.stringify(f.config(dims, layers), null, 2),
    'model.safetensors': writeSafetensors(tensors),
    'tokenizer.json': JSON.stringify(makeTokenizerJson()),
  };
}
