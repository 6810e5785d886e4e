// Random-weight checkpoints of a published shape, written without holding them in memory: a folder
// with config.json and model.safetensors (BF16 by default), its data written tensor by tensor in
// chunks from a seeded generator. Used by tests/js/streamed-load.test.mjs (small shapes) and
// bench/lib/big_models.mjs (EmbeddingGemma-300m / Qwen3-0.6B shapes).
//
//   writeRandomCheckpoint(dir, config, { seed, dtype: 'BF16' | 'F32', prefix: 'model.' })
//     → { file, bytes, parameters, tensors: [{ name, shape }] }
//   decoderTensors(config, prefix) → [{ name, shape }]   the tensors a llama / qwen3 / gemma3_text checkpoint holds
//   encoderTensors(config) → [{ name, shape }]   the tensors of a BERT-description checkpoint (xlm-roberta, roberta, …)
//   debertaTensors(config), mpnetTensors(config)  DebertaV2Model's (relative attention, share_att_key) and MPNetModel's
//   checkpointTensors(config, prefix)             the tensors writeRandomCheckpoint writes for config.model_type
//   writeHeaderOnlyCheckpoint(dir, config) → file   config.json + a BF16 model.safetensors whose header is real and whose
//     data is a sparse file (never read when a load is refused at the header: the cannot-fit checks)
//
// Values: weights of matrices ±[2^-9, 2^-5) with random sign and mantissa (scaled like trained
// projections, so activations stay finite through dozens of layers); 1-D (norm) weights in [1, 2)
// for llama/qwen3 and in [2^-4, 2^-3) for gemma3_text (whose norms scale by 1 + w).
import fs from 'node:fs';
import path from 'node:path';

export function decoderTensors(c, prefix = 'model.') {
  const H = c.hidden_size, I = c.intermediate_size, heads = c.num_attention_heads, kv = c.num_key_value_heads ?? heads;
  const d = c.head_dim ?? H / heads;
  const t = [{ name: `${prefix}embed_tokens.weight`, shape: [c.vocab_size, H] }];
  const gemma = c.model_type === 'gemma3_text', qwen = c.model_type === 'qwen3';
  for (let i = 0; i < c.num_hidden_layers; ++i) {
    const b = `${prefix}layers.${i}.`;
    t.push({ name: `${b}input_layernorm.weight`, shape: [H] });
    t.push({ name: `${b}post_attention_layernorm.weight`, shape: [H] });
    if (gemma) {
      t.push({ name: `${b}pre_feedforward_layernorm.weight`, shape: [H] });
      t.push({ name: `${b}post_feedforward_layernorm.weight`, shape: [H] });
    }
    t.push({ name: `${b}self_attn.q_proj.weight`, shape: [heads * d, H] });
    t.push({ name: `${b}self_attn.k_proj.weight`, shape: [kv * d, H] });
    t.push({ name: `${b}self_attn.v_proj.weight`, shape: [kv * d, H] });
    t.push({ name: `${b}self_attn.o_proj.weight`, shape: [H, heads * d] });
    if (gemma || qwen) {
      t.push({ name: `${b}self_attn.q_norm.weight`, shape: [d] });
      t.push({ name: `${b}self_attn.k_norm.weight`, shape: [d] });
    }
    t.push({ name: `${b}mlp.gate_proj.weight`, shape: [I, H] });
    t.push({ name: `${b}mlp.up_proj.weight`, shape: [I, H] });
    t.push({ name: `${b}mlp.down_proj.weight`, shape: [H, I] });
  }
  t.push({ name: `${prefix}norm.weight`, shape: [H] });
  return t;
}

/** XLMRobertaModel / RobertaModel / BertModel's state dict (no prefix): embeddings, post-LN layers, pooler. */
export function encoderTensors(c) {
  const H = c.hidden_size, I = c.intermediate_size;
  const t = [
    { name: 'embeddings.word_embeddings.weight', shape: [c.vocab_size, H] },
    { name: 'embeddings.position_embeddings.weight', shape: [c.max_position_embeddings, H] },
    { name: 'embeddings.token_type_embeddings.weight', shape: [c.type_vocab_size ?? 2, H] },
    { name: 'embeddings.LayerNorm.weight', shape: [H] },
    { name: 'embeddings.LayerNorm.bias', shape: [H] },
  ];
  const linear = (name, out, inp) => t.push({ name: `${name}.weight`, shape: [out, inp] }, { name: `${name}.bias`, shape: [out] });
  for (let i = 0; i < c.num_hidden_layers; ++i) {
    const b = `encoder.layer.${i}.`;
    for (const n of ['query', 'key', 'value']) linear(`${b}attention.self.${n}`, H, H);
    linear(`${b}attention.output.dense`, H, H);
    t.push({ name: `${b}attention.output.LayerNorm.weight`, shape: [H] }, { name: `${b}attention.output.LayerNorm.bias`, shape: [H] });
    linear(`${b}intermediate.dense`, I, H);
    linear(`${b}output.dense`, H, I);
    t.push({ name: `${b}output.LayerNorm.weight`, shape: [H] }, { name: `${b}output.LayerNorm.bias`, shape: [H] });
  }
  linear('pooler.dense', H, H);
  return t;
}

/** A post-LN encoder layer `encoder.layer.N.` with the attention projections `qkvo` (names under the layer). */
function postLnLayers(c, t, qkvo, attentionNorm) {
  const H = c.hidden_size, I = c.intermediate_size;
  const linear = (name, out, inp) => t.push({ name: `${name}.weight`, shape: [out, inp] }, { name: `${name}.bias`, shape: [out] });
  const norm = (name) => t.push({ name: `${name}.weight`, shape: [H] }, { name: `${name}.bias`, shape: [H] });
  for (let i = 0; i < c.num_hidden_layers; ++i) {
    const b = `encoder.layer.${i}.`;
    for (const n of qkvo) linear(`${b}${n}`, H, H);
    norm(`${b}${attentionNorm}`);
    linear(`${b}intermediate.dense`, I, H);
    linear(`${b}output.dense`, H, I);
    norm(`${b}output.LayerNorm`);
  }
}

/** DebertaV2Model's state dict for a v3-like config (relative_attention, share_att_key, no absolute positions). */
export function debertaTensors(c) {
  const H = c.hidden_size, span = c.position_buckets > 0 ? c.position_buckets : c.max_relative_positions;
  const t = [{ name: 'embeddings.word_embeddings.weight', shape: [c.vocab_size, H] },
    { name: 'embeddings.LayerNorm.weight', shape: [H] }, { name: 'embeddings.LayerNorm.bias', shape: [H] }];
  postLnLayers(c, t, ['attention.self.query_proj', 'attention.self.key_proj', 'attention.self.value_proj', 'attention.output.dense'],
               'attention.output.LayerNorm');
  t.push({ name: 'encoder.rel_embeddings.weight', shape: [2 * span, H] },
    { name: 'encoder.LayerNorm.weight', shape: [H] }, { name: 'encoder.LayerNorm.bias', shape: [H] });
  return t;
}

/** MPNetModel's state dict (no pooler). */
export function mpnetTensors(c) {
  const H = c.hidden_size;
  const t = [{ name: 'embeddings.word_embeddings.weight', shape: [c.vocab_size, H] },
    { name: 'embeddings.position_embeddings.weight', shape: [c.max_position_embeddings, H] },
    { name: 'embeddings.LayerNorm.weight', shape: [H] }, { name: 'embeddings.LayerNorm.bias', shape: [H] }];
  postLnLayers(c, t, ['attention.attn.q', 'attention.attn.k', 'attention.attn.v', 'attention.attn.o'], 'attention.LayerNorm');
  t.push({ name: 'encoder.relative_attention_bias.weight', shape: [c.relative_attention_num_buckets, c.num_attention_heads] });
  return t;
}

const ENCODERS = new Set(['bert', 'roberta', 'xlm-roberta', 'camembert']);

export function checkpointTensors(config, prefix = 'model.') {
  if (ENCODERS.has(config.model_type)) return encoderTensors(config);
  if (config.model_type === 'deberta-v2') return debertaTensors(config);
  if (config.model_type === 'mpnet') return mpnetTensors(config);
  return decoderTensors(config, prefix);
}
const count = (shape) => shape.reduce((a, b) => a * b, 1);

export function writeRandomCheckpoint(dir, config, { seed = 1, dtype = 'BF16', prefix = 'model.' } = {}) {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config, null, 2));
  const tensors = checkpointTensors(config, prefix).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const size = dtype === 'BF16' ? 2 : 4;
  const header = { __metadata__: { format: 'pt' } };
  let at = 0;
  for (const t of tensors) {
    const bytes = count(t.shape) * size;
    header[t.name] = { dtype, shape: t.shape, data_offsets: [at, at + bytes] };
    at += bytes;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (json.length % 8)) % 8);
  const file = path.join(dir, 'model.safetensors');
  const fd = fs.openSync(file, 'w');
  try {
    const len = Buffer.alloc(8);
    len.writeBigUInt64LE(BigInt(json.length));
    fs.writeSync(fd, len);
    fs.writeSync(fd, json);
    let s = (seed * 2654435761) >>> 0 || 1;
    const CHUNK = 1 << 20; // 32-bit words per write (4 MiB)
    const words = new Uint32Array(CHUNK);
    const gemma = config.model_type === 'gemma3_text';
    for (const t of tensors) {
      const vector = t.shape.length === 1;
      // bf16 bit patterns: sign | exponent | 7-bit mantissa; matrices 2^(e−127) with e in [118, 122)
      const lowExp = vector ? (gemma ? 123 : 127) : 118;
      const expMask = vector ? 0 : 3;
      let left = count(t.shape) * size; // bytes
      while (left > 0) {
        const n = Math.min(CHUNK, Math.ceil(left / 4));
        for (let i = 0; i < n; ++i) {
          s ^= s << 13; s >>>= 0;
          s ^= s >>> 17;
          s ^= s << 5; s >>>= 0;
          const a = ((s & 0x8000) | ((lowExp + (s & expMask)) << 7) | ((s >>> 4) & 0x7f)) & 0xffff;
          const b = (((s >>> 16) & 0x8000) | ((lowExp + ((s >>> 11) & expMask)) << 7) | ((s >>> 20) & 0x7f)) & 0xffff;
          if (size === 2) words[i] = (a | (b << 16)) >>> 0;
          else words[i] = (a << 16) >>> 0; // F32: the same value as bf16 a
        }
        const bytes = Math.min(left, 4 * n);
        fs.writeSync(fd, new Uint8Array(words.buffer, 0, bytes));
        left -= bytes;
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  return { file, bytes: 8 + json.length + at, parameters: tensors.reduce((a, t) => a + count(t.shape), 0), tensors };
}

export function writeHeaderOnlyCheckpoint(dir, config) {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify(config));
  const header = {};
  let at = 0;
  for (const t of decoderTensors(config)) {
    const bytes = 2 * t.shape.reduce((a, b) => a * b, 1);
    header[t.name] = { dtype: 'BF16', shape: t.shape, data_offsets: [at, at + bytes] };
    at += bytes;
  }
  const json = Buffer.from(JSON.stringify(header));
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(json.length));
  const file = path.join(dir, 'model.safetensors');
  fs.writeFileSync(file, Buffer.concat([len, json]));
  fs.truncateSync(file, 8 + json.length + at);
  return file;
}
