// A small GGUF v3 writer for the wllama peer bench (bench/lib/wllama_peer.mjs): the published shapes of
// EmbeddingGemma-300m (llama.cpp arch `gemma-embedding`, with its two sentence-transformers Dense layers) and
// Qwen3-Embedding-0.6B (`qwen3`, last-token pooling) as Q8_0 files with random weights, the metadata keys
// llama.cpp's converter writes for them (the same key sets as ../shared/fixtures/gguf/gemma3-st-embed/
// gguf-meta-dense-q8_0.json and qwen3-embed-right/gguf-meta-q8_0.json) and a tokenizer section of the real
// vocabulary size (SentencePiece `llama` model with byte tokens for Gemma, byte-level BPE `gpt2` / pre `qwen2`
// with merges for Qwen3; the token strings are synthetic: the bench feeds token ids). llama.cpp (wllama)
// loading and running a file is the check that it is valid.
//
// Format (ggml docs/gguf.md): "GGUF", u32 version 3, u64 tensor count, u64 metadata count; metadata as
// (string key, u32 type, value); tensor infos (string name, u32 n_dims, u64 ne[0..n) with ne[0] the row
// length, u32 ggml type, u64 offset from the data start); the data section aligned to general.alignment (32).
// Q8_0: blocks of 32 weights = fp16 scale d + 32 int8 q (34 bytes), w = d·q. Weights here: q uniform in
// [−127, 127], d chosen so w has standard deviation ~`std` (0.02 for matrices); norm gains F32 1 + N(0, 0.05²).
import crypto from 'node:crypto';
import fs from 'node:fs';

const T = { UINT32: 4, INT32: 5, FLOAT32: 6, BOOL: 7, STRING: 8, ARRAY: 9, UINT64: 10 };
export const GGML = { F32: 0, F16: 1, Q8_0: 8 };

/** float → IEEE half bits (round to nearest; normal range only, which is all this writer needs). */
function f16bits(x) {
  const f = new Float32Array([x]), u = new Uint32Array(f.buffer)[0];
  const sign = (u >>> 16) & 0x8000, exp = ((u >>> 23) & 0xff) - 127 + 15, mant = u & 0x7fffff;
  if (exp <= 0 || exp >= 31) throw new RangeError(`f16bits: ${x} is outside the normal half range`);
  return sign | (exp << 10) | ((mant + 0x1000) >>> 13);
}

class Out {
  constructor(fd) { this.fd = fd; this.pos = 0; this.buf = Buffer.alloc(1 << 20); this.n = 0; }
  flush() { if (this.n) fs.writeSync(this.fd, this.buf, 0, this.n); this.n = 0; }
  bytes(b) {
    if (b.length > this.buf.length - this.n) { this.flush(); if (b.length > this.buf.length) { fs.writeSync(this.fd, b); this.pos += b.length; return; } }
    b.copy ? b.copy(this.buf, this.n) : this.buf.set(b, this.n);
    this.n += b.length; this.pos += b.length;
  }
  u32(v) { const b = Buffer.alloc(4); b.writeUInt32LE(v); this.bytes(b); }
  i32(v) { const b = Buffer.alloc(4); b.writeInt32LE(v); this.bytes(b); }
  u64(v) { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); this.bytes(b); }
  f32(v) { const b = Buffer.alloc(4); b.writeFloatLE(v); this.bytes(b); }
  str(s) { const b = Buffer.from(s, 'utf8'); this.u64(b.length); this.bytes(b); }
  pad(align) { const r = this.pos % align; if (r) this.bytes(Buffer.alloc(align - r)); }
}

function writeValue(o, type, v) {
  switch (type) {
    case T.UINT32: return o.u32(v);
    case T.INT32: return o.i32(v);
    case T.FLOAT32: return o.f32(v);
    case T.BOOL: return o.bytes(Buffer.from([v ? 1 : 0]));
    case T.STRING: return o.str(v);
    case T.UINT64: return o.u64(v);
    default: throw new Error(`gguf_writer: metadata type ${type}`);
  }
}

const tensorBytes = (t) => {
  const n = t.ne.reduce((a, b) => a * b, 1);
  return t.type === GGML.Q8_0 ? (n / 32) * 34 : t.type === GGML.F16 ? n * 2 : n * 4;
};

/** Writes the random data of one tensor in chunks. */
function writeTensorData(o, t, std) {
  const n = t.ne.reduce((a, b) => a * b, 1);
  if (t.type === GGML.F32) {
    const f = new Float32Array(n);
    for (let i = 0; i < n; ++i) f[i] = t.fill === 'gain' ? 1 + 0.05 * (Math.random() * 2 - 1) * 1.7 : std * (Math.random() * 2 - 1) * 1.7;
    return o.bytes(Buffer.from(f.buffer));
  }
  if (t.type !== GGML.Q8_0) throw new Error('gguf_writer: only F32 and Q8_0 tensors are written');
  if (t.ne[0] % 32) throw new Error(`gguf_writer: ${t.name}: row length ${t.ne[0]} is not a multiple of 32`);
  const d = f16bits(std / 73.3); // uniform q in [−127, 127] has standard deviation 73.3
  const blocks = n / 32, per = 1 << 16;
  const chunk = Buffer.alloc(per * 34);
  for (let b0 = 0; b0 < blocks; b0 += per) {
    const m = Math.min(per, blocks - b0), view = chunk.subarray(0, m * 34);
    crypto.randomFillSync(view);
    for (let b = 0; b < m; ++b) {
      view.writeUInt16LE(d, b * 34);
      for (let j = 2; j < 34; ++j) if (view[b * 34 + j] === 0x80) view[b * 34 + j] = 0x81; // q = −128 → −127
    }
    o.bytes(view);
  }
}

/** metadata: [[key, type name, value, (array element type name)]], tensors: [{ name, ne, type, fill }]. */
export function writeGguf(file, { metadata, tensors, std = 0.02 }) {
  const fd = fs.openSync(file, 'w');
  const o = new Out(fd);
  try {
    o.bytes(Buffer.from('GGUF'));
    o.u32(3);
    o.u64(tensors.length);
    o.u64(metadata.length);
    for (const [key, type, value, elem] of metadata) {
      o.str(key);
      o.u32(T[type]);
      if (type === 'ARRAY') {
        o.u32(T[elem]);
        o.u64(value.length);
        for (const v of value) writeValue(o, T[elem], v);
      } else {
        writeValue(o, T[type], value);
      }
    }
    let offset = 0;
    for (const t of tensors) {
      o.str(t.name);
      o.u32(t.ne.length);
      for (const d of t.ne) o.u64(d);
      o.u32(t.type);
      o.u64(offset);
      offset += Math.ceil(tensorBytes(t) / 32) * 32;
    }
    o.pad(32);
    for (const t of tensors) {
      writeTensorData(o, t, std);
      o.pad(32);
    }
    o.flush();
  } finally {
    fs.closeSync(fd);
  }
  return fs.statSync(file).size;
}

/** Published shapes (config.json of each Hub repo). */
export const SHAPES = {
  'embeddinggemma-300m': {
    arch: 'gemma-embedding', vocab: 262144, hidden: 768, layers: 24, heads: 3, kvHeads: 1, headDim: 256, ff: 1152,
    context: 2048, ropeBase: 1e6, ropeBaseSwa: 1e4, slidingWindow: 512, eps: 1e-6, pooling: 1, dense: [3072, 768],
    hub: 'google/embeddinggemma-300m (ggml-org/embeddinggemma-300M-GGUF Q8_0)',
  },
  'qwen3-embedding-0.6b': {
    arch: 'qwen3', vocab: 151669, hidden: 1024, layers: 28, heads: 16, kvHeads: 8, headDim: 128, ff: 3072,
    context: 32768, ropeBase: 1e6, eps: 1e-6, pooling: 3,
    hub: 'Qwen/Qwen3-Embedding-0.6B (Qwen/Qwen3-Embedding-0.6B-GGUF Q8_0)',
  },
};

function gemmaVocab(n) {
  const tokens = ['<pad>', '<eos>', '<bos>', '<unk>'], types = [3, 3, 3, 2];
  for (let b = 0; b < 256; ++b) { tokens.push(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`); types.push(6); }
  while (tokens.length < n) { tokens.push(`\u2581t${tokens.length}`); types.push(1); }
  return { tokens, types, scores: tokens.map((_, i) => (types[i] === 1 ? -i : 0)) };
}

// GPT-2's byte → unicode symbol table (the byte-level BPE alphabet).
function byteSymbols() {
  const keep = [];
  for (let b = 33; b <= 126; ++b) keep.push(b);
  for (let b = 161; b <= 172; ++b) keep.push(b);
  for (let b = 174; b <= 255; ++b) keep.push(b);
  const out = new Array(256);
  let extra = 0;
  for (let b = 0; b < 256; ++b) out[b] = keep.includes(b) ? String.fromCodePoint(b) : String.fromCodePoint(256 + extra++);
  return out;
}

function qwenVocab(n) {
  const tokens = byteSymbols(), types = tokens.map(() => 1);
  const specials = ['<|endoftext|>', '<|im_start|>', '<|im_end|>'];
  while (tokens.length < n - specials.length) { tokens.push(`t${tokens.length}`); types.push(1); }
  for (const s of specials) { tokens.push(s); types.push(3); }
  return { tokens, types, eos: n - specials.length };
}

/** Writes `name` (a SHAPES key) as a random-weight Q8_0 GGUF at `file`; returns { bytes, params }. */
export function writePublishedShape(name, file) {
  const s = SHAPES[name];
  const a = s.arch, H = s.hidden, q = s.heads * s.headDim, kv = s.kvHeads * s.headDim;
  const md = [
    ['general.architecture', 'STRING', a], ['general.type', 'STRING', 'model'], ['general.name', 'STRING', `${name} shape, random weights (relpos bench)`],
    ['general.alignment', 'UINT32', 32],
    [`${a}.block_count`, 'UINT32', s.layers], [`${a}.context_length`, 'UINT32', s.context], [`${a}.embedding_length`, 'UINT32', H],
    [`${a}.feed_forward_length`, 'UINT32', s.ff], [`${a}.attention.head_count`, 'UINT32', s.heads], [`${a}.attention.head_count_kv`, 'UINT32', s.kvHeads],
    [`${a}.rope.freq_base`, 'FLOAT32', s.ropeBase],
  ];
  if (s.ropeBaseSwa) md.push([`${a}.rope.freq_base_swa`, 'FLOAT32', s.ropeBaseSwa]);
  md.push([`${a}.attention.layer_norm_rms_epsilon`, 'FLOAT32', s.eps], [`${a}.attention.key_length`, 'UINT32', s.headDim], [`${a}.attention.value_length`, 'UINT32', s.headDim]);
  if (s.slidingWindow) md.push([`${a}.attention.sliding_window`, 'UINT32', s.slidingWindow]);
  if (s.dense) md.push([`${a}.dense_2_feat_in`, 'UINT32', H], [`${a}.dense_2_feat_out`, 'UINT32', s.dense[0]], [`${a}.dense_3_feat_in`, 'UINT32', s.dense[0]], [`${a}.dense_3_feat_out`, 'UINT32', s.dense[1]]);
  md.push([`${a}.pooling_type`, 'UINT32', s.pooling]);
  if (a === 'gemma-embedding') {
    const v = gemmaVocab(s.vocab);
    md.push(['tokenizer.ggml.model', 'STRING', 'llama'], ['tokenizer.ggml.pre', 'STRING', 'default'],
      ['tokenizer.ggml.tokens', 'ARRAY', v.tokens, 'STRING'], ['tokenizer.ggml.scores', 'ARRAY', v.scores, 'FLOAT32'],
      ['tokenizer.ggml.token_type', 'ARRAY', v.types, 'INT32'], ['tokenizer.ggml.bos_token_id', 'UINT32', 2],
      ['tokenizer.ggml.eos_token_id', 'UINT32', 1], ['tokenizer.ggml.unknown_token_id', 'UINT32', 3], ['tokenizer.ggml.padding_token_id', 'UINT32', 0],
      ['tokenizer.ggml.add_bos_token', 'BOOL', true], ['tokenizer.ggml.add_eos_token', 'BOOL', true], ['tokenizer.ggml.add_space_prefix', 'BOOL', false]);
  } else {
    const v = qwenVocab(s.vocab);
    md.push(['tokenizer.ggml.model', 'STRING', 'gpt2'], ['tokenizer.ggml.pre', 'STRING', 'qwen2'],
      ['tokenizer.ggml.tokens', 'ARRAY', v.tokens, 'STRING'], ['tokenizer.ggml.token_type', 'ARRAY', v.types, 'INT32'],
      ['tokenizer.ggml.merges', 'ARRAY', ['\u0120 t', 'h e'], 'STRING'], ['tokenizer.ggml.eos_token_id', 'UINT32', v.eos],
      ['tokenizer.ggml.padding_token_id', 'UINT32', v.eos], ['tokenizer.ggml.bos_token_id', 'UINT32', v.eos],
      ['tokenizer.ggml.add_bos_token', 'BOOL', false], ['tokenizer.ggml.add_eos_token', 'BOOL', true]);
  }
  md.push(['general.quantization_version', 'UINT32', 2], ['general.file_type', 'UINT32', 7]);

  const Q = GGML.Q8_0, F = GGML.F32;
  const tensors = [];
  if (s.dense) tensors.push({ name: 'dense_2.weight', ne: [H, s.dense[0]], type: Q }, { name: 'dense_3.weight', ne: [s.dense[0], s.dense[1]], type: Q });
  tensors.push({ name: 'output_norm.weight', ne: [H], type: F, fill: 'gain' }, { name: 'token_embd.weight', ne: [H, s.vocab], type: Q });
  for (let i = 0; i < s.layers; ++i) {
    const b = `blk.${i}.`;
    tensors.push(
      { name: `${b}attn_k.weight`, ne: [H, kv], type: Q }, { name: `${b}attn_k_norm.weight`, ne: [s.headDim], type: F, fill: 'gain' },
      { name: `${b}attn_norm.weight`, ne: [H], type: F, fill: 'gain' }, { name: `${b}attn_output.weight`, ne: [q, H], type: Q },
      { name: `${b}attn_q.weight`, ne: [H, q], type: Q }, { name: `${b}attn_q_norm.weight`, ne: [s.headDim], type: F, fill: 'gain' },
      { name: `${b}attn_v.weight`, ne: [H, kv], type: Q }, { name: `${b}ffn_down.weight`, ne: [s.ff, H], type: Q },
      { name: `${b}ffn_gate.weight`, ne: [H, s.ff], type: Q }, { name: `${b}ffn_norm.weight`, ne: [H], type: F, fill: 'gain' },
      { name: `${b}ffn_up.weight`, ne: [H, s.ff], type: Q });
    if (a === 'gemma-embedding')
      tensors.push({ name: `${b}post_attention_norm.weight`, ne: [H], type: F, fill: 'gain' }, { name: `${b}post_ffw_norm.weight`, ne: [H], type: F, fill: 'gain' });
  }
  const params = tensors.reduce((acc, t) => acc + t.ne.reduce((x, y) => x * y, 1), 0);
  return { bytes: writeGguf(file, { metadata: md, tensors }), params };
}
