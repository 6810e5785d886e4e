// Device 'webgpu' loads of GGUF files and the streaming families (bert, qwen3, llama, gemma3_text, roberta, xlm-roberta,
// deberta-v2, mpnet, …):
// the linear layers and the embedding tables (but EmbeddingGemma's, which the load scales) go from the safetensors
// stream straight into GPU buffers (web/webgpu/weight-sink.js; cpp StreamLoad.setWeightSink), so the WebAssembly heap
// never holds them:
//   - a fresh module's heap after a WebGPU fp32 load stays below the size of the linear layers (the heap only grows:
//     its size after the load is the load's peak), while a WASM load of the same file needs more than them;
//   - the streamed model's outputs equal those of the same checkpoint on WASM (fp32), for a decoder (qwen3) and an
//     encoder (xlm-roberta, deberta-v2 — whose relative embeddings are projected through its query/key projections on
//     the GPU, which holds those, so the heap keeps only the relative embeddings —, mpnet), and fp16 stays within
//     cosine 0.999 of them;
//   - weightValues hands the executor { gpuBuffer } for those layers, and nothing of them is left to release;
//   - a 41 MB embedding table does not enter the heap either, and the GPU gathers the rows WASM gathers.
// No adapter: the suite fails under CI (process.env.CI), else skips (webgpu-adapter.mjs).
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';

import { checkpointTensors, writeRandomCheckpoint } from '../support/random-checkpoint.mjs';
import { shaderRecordingGpu, webgpuAdapter } from './webgpu-adapter.mjs';

const { skip } = await webgpuAdapter();
const { init } = await import('../../web/index.js');

const ROOT = mkdtempSync(join(tmpdir(), 'relpos-gpu-stream-'));
after(() => rmSync(ROOT, { recursive: true, force: true }));

// Linear layers of 94 MB (qwen3) and 75 MB (xlm-roberta) in fp32 next to 2 MB embedding tables; a module's heap starts
// at 16 MB.
const QWEN3 = {
  architectures: ['Qwen3Model'], model_type: 'qwen3', hidden_size: 512, num_hidden_layers: 6, num_attention_heads: 8,
  num_key_value_heads: 4, head_dim: 64, intermediate_size: 2048, vocab_size: 1000, rope_theta: 1e6, rms_norm_eps: 1e-6,
  hidden_act: 'silu', max_position_embeddings: 512, tie_word_embeddings: false, attention_bias: false,
};
// DeBERTa-v3-like (its relative embeddings, 2·64 × 512 floats, are projected through its query/key projections on the GPU:
// before, those 12.6 MB of its 100 MB stayed in the heap for the projection on the CPU, and the 1.6 MB of tables it made)
// and MPNet.
const DEBERTA = {
  architectures: ['DebertaV2Model'], model_type: 'deberta-v2', hidden_size: 512, num_hidden_layers: 6, num_attention_heads: 8,
  intermediate_size: 3072, vocab_size: 1000, max_position_embeddings: 512, type_vocab_size: 0, relative_attention: true,
  pos_att_type: ['p2c', 'c2p'], position_buckets: 64, max_relative_positions: -1, share_att_key: true, norm_rel_ebd: 'layer_norm',
  position_biased_input: false, layer_norm_eps: 1e-7, hidden_act: 'gelu', pad_token_id: 0,
};
const MPNET = {
  architectures: ['MPNetModel'], model_type: 'mpnet', hidden_size: 512, num_hidden_layers: 6, num_attention_heads: 8,
  intermediate_size: 2048, vocab_size: 1000, max_position_embeddings: 130, relative_attention_num_buckets: 32,
  layer_norm_eps: 1e-5, hidden_act: 'gelu', pad_token_id: 1,
};
const XLMR = {
  architectures: ['XLMRobertaModel'], model_type: 'xlm-roberta', hidden_size: 512, num_hidden_layers: 6, num_attention_heads: 8,
  intermediate_size: 2048, vocab_size: 1000, max_position_embeddings: 130, type_vocab_size: 1, pad_token_id: 1,
  layer_norm_eps: 1e-5, hidden_act: 'gelu',
};

function checkpoint(name, config, prefix) {
  const dir = join(ROOT, name);
  writeRandomCheckpoint(dir, config, { seed: 3, dtype: 'F32', prefix });
  return dir;
}

function linearBytes(tensors) {
  // the tensors StreamedCheckpoint takes as linear layers: `*_proj.weight` (decoders), `encoder.layer.N.*` matrices (BERT,
  // DeBERTa, MPNet)
  const linear = (t) => t.shape.length === 2 && (/_proj\.weight$/.test(t.name) || /^encoder\.layer\./.test(t.name));
  return tensors.filter(linear).reduce((s, t) => s + 4 * t.shape[0] * t.shape[1], 0);
}

function ids(batch, seq, pad) {
  const inputIds = [], attentionMask = [];
  for (let b = 0; b < batch; ++b) {
    const real = seq - 2 * b;
    inputIds.push(Array.from({ length: seq }, (_, i) => (i < real ? 3 + ((b * 131 + i * 17) % 990) : pad)));
    attentionMask.push(Array.from({ length: seq }, (_, i) => (i < real ? 1 : 0)));
  }
  return { inputIds, attentionMask };
}

function compare(gpu, cpu, mask, what) {
  const [B, L, H] = cpu.dims;
  let worst = 0, scale = 0, dot = 0, ng = 0, nc = 0;
  for (let b = 0; b < B; ++b)
    for (let l = 0; l < L; ++l) {
      if (!mask[b][l]) continue;
      for (let h = 0; h < H; ++h) {
        const i = (b * L + l) * H + h, g = gpu.data[i], c = cpu.data[i];
        worst = Math.max(worst, Math.abs(g - c));
        scale = Math.max(scale, Math.abs(c));
        dot += g * c;
        ng += g * g;
        nc += c * c;
      }
    }
  return { worst, scale, cosine: dot / Math.sqrt(ng * nc), what };
}

for (const [name, config, prefix, pad] of [['qwen3', QWEN3, '', 0], ['xlm-roberta', XLMR, '', 1], ['deberta-v2', DEBERTA, '', 0], ['mpnet', MPNET, '', 1]]) {
  test(`webgpu: a streamed ${name} load sends its linear layers to the GPU, not the heap, and computes what WASM does`, { skip }, async (t) => {
    const dir = checkpoint(name, config, prefix);
    const tensors = checkpointTensors(config, prefix);
    const linears = linearBytes(tensors);
    const batch = ids(2, 12, pad);

    // two fresh modules: WebAssembly memory only grows, so heapBytes after a load is that load's peak
    const rpGpu = await init({ simd: true, threads: 1 });
    const shaders = shaderRecordingGpu((await (await import('../../web/webgpu/index.js')).findGpu({})).gpu);
    const gpu = await rpGpu.loadModel(dir, { device: 'webgpu', dtype: 'fp32', gpu: shaders });
    const gpuPeak = rpGpu.heapBytes;
    const rpCpu = await init({ simd: true, threads: 1 });
    const cpu = await rpCpu.loadModel(dir, { dtype: 'fp32' });
    const cpuPeak = rpCpu.heapBytes;
    try {
      assert.equal(gpu.info.device, 'webgpu');
      assert.ok(cpuPeak >= linears, `the WASM load holds the linear layers (${linears} bytes): its heap is ${cpuPeak}`);
      assert.ok(gpuPeak < linears / 2, `the heap reached ${gpuPeak} bytes during the WebGPU load; the linear layers are ${linears}`);
      // left: biases, norms and, for DeBERTa, its relative embeddings once (the per-layer tables are the GPU's)
      const relative = name === 'deberta-v2' ? 2 * config.position_buckets * config.hidden_size * 4 : 0;
      assert.ok(gpu.info.wasmWeightBytes < (1 << 20) + relative, `the WASM copies left after the upload: ${gpu.info.wasmWeightBytes} bytes`);
      const g = await gpu.forward(batch), c = cpu.forward(batch);
      // 24 rows through the 2048 → 512 down projection: 8 tiles, so K is split (kernels/gemm.js defaultGemmSplit)
      if (name === 'qwen3') assert.ok(shaders.codes.some((code) => code.includes('relpos gemm split reduce')), 'the down projection ran split');
      if (name === 'deberta-v2') {
        // no query/key copy in the heap (12.6 MB here; the peak was 24.2 MB when they stayed for the CPU projection):
        // the heap grows at most half of them past its initial 16 MiB
        const qk = 2 * config.num_hidden_layers * config.hidden_size * config.hidden_size * 4;
        assert.ok(gpuPeak < (16 << 20) + qk / 2, `the heap reached ${gpuPeak} bytes: the query/key projections (${qk}) stayed in it`);
        // the relative tables were derived on the GPU (the CPU forward of such a model is an Error: streamed_linear_sink_test.cpp)
        assert.ok(shaders.codes.some((code) => code.includes('relpos split_heads')), 'the projected relative embeddings were laid out per head on the GPU');
      }
      const r = compare(g.lastHiddenState, c.lastHiddenState, batch.attentionMask, 'fp32');
      t.diagnostic(`linear layers ${linears} B; heap peak: WebGPU load ${gpuPeak} B, WASM load ${cpuPeak} B; fp32 max abs diff ${r.worst}`);
      assert.ok(r.worst <= 1e-4 * Math.max(1, r.scale), `fp32: max abs difference ${r.worst} (largest value ${r.scale})`);

      const f16 = await rpGpu.loadModel(dir, { device: 'webgpu', dtype: 'fp16' }).catch((e) => e);
      if (!(f16 instanceof Error)) {
        try {
          const h = compare((await f16.forward(batch)).lastHiddenState, c.lastHiddenState, batch.attentionMask, 'fp16');
          t.diagnostic(`fp16 cosine to WASM fp32 ${h.cosine}`);
          assert.ok(h.cosine >= 0.999, `fp16 cosine to fp32 ${h.cosine}`);
        } finally {
          f16.dispose();
        }
      } else {
        assert.match(f16.message, /shader-f16/, 'fp16 refused only for the adapter feature');
      }
    } finally {
      gpu.dispose();
      cpu.dispose();
    }
  });
}

// The embedding tables go the same way (XLM-R's 250,002 × 768 float32 table is 768 MB): a 40,000-token vocabulary
// (41 MB next to 6 MB of linear layers) never enters the heap of a WebGPU load, and the rows gathered on the GPU —
// ids across the whole table, positions after the padding offset — are the rows WASM gathers.
test('webgpu: a streamed xlm-roberta load sends its embedding table to the GPU too, not the heap', { skip }, async (t) => {
  const config = { ...XLMR, hidden_size: 256, num_hidden_layers: 2, num_attention_heads: 4, intermediate_size: 1024, vocab_size: 40000 };
  const dir = checkpoint('xlm-roberta-vocab', config, '');
  const table = 4 * config.vocab_size * config.hidden_size;
  const row = (b, i) => 3 + ((b * 15013 + i * 7919) % (config.vocab_size - 3));
  const batch = { inputIds: [Array.from({ length: 12 }, (_, i) => row(0, i)), [...Array.from({ length: 9 }, (_, i) => row(1, i)), 1, 1, 1]],
                  attentionMask: [Array(12).fill(1), [...Array(9).fill(1), 0, 0, 0]] };
  const rpGpu = await init({ simd: true, threads: 1 });
  const gpu = await rpGpu.loadModel(dir, { device: 'webgpu', dtype: 'fp32' });
  const gpuPeak = rpGpu.heapBytes;
  const rpCpu = await init({ simd: true, threads: 1 });
  const cpu = await rpCpu.loadModel(dir, { dtype: 'fp32' });
  try {
    assert.ok(rpCpu.heapBytes >= table, `the WASM load holds the table (${table} bytes): its heap is ${rpCpu.heapBytes}`);
    assert.ok(gpuPeak < table / 2, `the heap reached ${gpuPeak} bytes during the WebGPU load; the table is ${table}`);
    assert.ok(gpu.info.wasmWeightBytes < 1 << 20, `the WASM copies left after the upload: ${gpu.info.wasmWeightBytes} bytes`);
    assert.ok(gpu.info.gpuWeightBytes >= table, `the GPU holds the table: ${gpu.info.gpuWeightBytes} bytes`);
    const r = compare((await gpu.forward(batch)).lastHiddenState, cpu.forward(batch).lastHiddenState, batch.attentionMask, 'fp32');
    t.diagnostic(`table ${table} B; heap peak: WebGPU load ${gpuPeak} B, WASM load ${rpCpu.heapBytes} B; max abs diff ${r.worst}`);
    assert.ok(r.worst <= 1e-4 * Math.max(1, r.scale), `max abs difference ${r.worst} (largest value ${r.scale})`);
  } finally {
    gpu.dispose();
    cpu.dispose();
  }
});

// Float32 tensors skip the heap altogether (web/weights.js: stream.writeDirect; the sink's writeBytes): every byte of
// the linear layers and tables goes from the source's own buffer (here the ArrayBuffer given as the file) to the GPU,
// none through the heap, and the model equals, bit for bit, one loaded by the rows path (a sink without writeBytes).
// BF16 tensors (Qwen3's and Gemma's checkpoints) the same way: their 2-byte values cross as the file holds them and the
// GPU widens them (weight-sink.js, kernels/convert.js widen) to the float32 the CPU would have decoded.
for (const dtype of ['F32', 'BF16'])
  test(`webgpu: ${dtype} tensors go from the file's bytes to the GPU without a copy in the heap, as the rows path would put them`, { skip }, async () => {
    const config = { ...XLMR, num_hidden_layers: 2, vocab_size: 3000 };
    const dir = join(ROOT, `xlm-roberta-direct-${dtype}`);
    writeRandomCheckpoint(dir, config, { seed: 3, dtype, prefix: '' });
    const buf = readFileSync(join(dir, 'model.safetensors')).buffer.slice(0);
    const files = { 'config.json': readFileSync(join(dir, 'config.json'), 'utf8'), 'model.safetensors': buf };
    const size = dtype === 'F32' ? 4 : 2;
    const sunk = checkpointTensors(config, '').filter((t) => t.shape.length === 2 && /^encoder\.layer\.|(word|position)_embeddings/.test(t.name))
      .reduce((n, t) => n + size * t.shape[0] * t.shape[1], 0);
    const { GpuWeightSink } = await import('../../web/webgpu/weight-sink.js');
    const { writeBytes, rows } = GpuWeightSink.prototype;
    let direct = 0, heap = 0, rowCalls = 0;
    GpuWeightSink.prototype.writeBytes = function (id, offset, view) {
      if (view.buffer === buf) direct += view.length;
      else heap += view.length;
      return writeBytes.call(this, id, offset, view);
    };
    GpuWeightSink.prototype.rows = function (...args) {
      ++rowCalls;
      return rows.apply(this, args);
    };
    const rp = await init({ simd: true, threads: 1 });
    const batch = ids(2, 12, 1);
    let byRows;
    try {
      const model = await rp.loadModel(files, { device: 'webgpu', dtype: 'fp32' });
      const out = (await model.forward(batch)).lastHiddenState.data;
      model.dispose();
      assert.equal(rowCalls, 0, 'no rows were converted to float32 on the CPU');
      assert.equal(heap, 0, `${heap} bytes went to the GPU through the heap`);
      assert.ok(direct >= sunk, `${direct} bytes from the file's buffer straight to the GPU; the linear layers and tables are ${sunk}`);
      GpuWeightSink.prototype.writeBytes = undefined; // a sink without writeBytes: rows, through the heap
      const plain = await rp.loadModel(files, { device: 'webgpu', dtype: 'fp32' });
      byRows = (await plain.forward(batch)).lastHiddenState.data;
      plain.dispose();
      assert.ok(rowCalls > 0, 'the rows path ran');
      assert.deepEqual(out, byRows, 'the same GPU weights either way');
    } finally {
      GpuWeightSink.prototype.writeBytes = writeBytes;
      GpuWeightSink.prototype.rows = rows;
    }
  });

// q8 loads stream the same way (weight-sink.js beginQ8 / q8Rows): the stream quantizes each block as the heap path
// does and the GPU's q8 words go to the GPU, so the heap holds neither the float32 rows nor the int8 model, and the
// model equals, bit for bit, the one a load through the heap makes (a sink without beginQ8: the int8 model in the heap,
// laid out for the GPU by weightValues). DeBERTa-v2 keeps its q8 linear layers in the heap (its relative embeddings
// are projected through them at load): the same model either way too.
// (qwen3 and xlm-roberta: 24 MB and 19 MB of int8 linear layers, past the 16 MiB a module's heap starts at)
for (const [name, config, pad] of [['qwen3', QWEN3, 0], ['xlm-roberta', XLMR, 1], ['deberta-v2', { ...DEBERTA, num_hidden_layers: 2 }, 0]])
  test(`webgpu q8: a streamed ${name} load sends int8 rows to the GPU, not the heap, and equals the heap path's model bit for bit`, { skip }, async () => {
    const dir = checkpoint(`${name}-q8`, config, '');
    const int8 = linearBytes(checkpointTensors(config, '')) / 4; // the linear layers' int8 bytes
    const batch = ids(2, 12, pad);
    const { GpuWeightSink } = await import('../../web/webgpu/weight-sink.js');
    const { beginQ8 } = GpuWeightSink.prototype;
    let q8Layers = 0;
    GpuWeightSink.prototype.beginQ8 = function (...args) {
      ++q8Layers;
      return beginQ8.apply(this, args);
    };
    try {
      const rpSunk = await init({ simd: true, threads: 1 });
      const sunk = await rpSunk.loadModel(dir, { device: 'webgpu', dtype: 'q8' });
      const sunkPeak = rpSunk.heapBytes, sunkLayers = q8Layers;
      const out = (await sunk.forward(batch)).lastHiddenState.data;
      sunk.dispose();
      GpuWeightSink.prototype.beginQ8 = undefined; // the heap path
      const rpHeap = await init({ simd: true, threads: 1 });
      const heap = await rpHeap.loadModel(dir, { device: 'webgpu', dtype: 'q8' });
      const heapPeak = rpHeap.heapBytes;
      const byHeap = (await heap.forward(batch)).lastHiddenState.data;
      heap.dispose();
      assert.ok(sunkLayers > 0, 'layers went to the GPU as int8 rows');
      if (name === 'deberta-v2') assert.equal(sunkLayers, 1, 'only its table: its linear layers stay for the projection');
      else {
        assert.ok(heapPeak >= int8, `the heap path holds the int8 linear layers (${int8} bytes): its heap reached ${heapPeak}`);
        assert.ok(sunkPeak < heapPeak - int8 / 2, `the heap reached ${sunkPeak} bytes (the heap path: ${heapPeak}); the int8 linear layers are ${int8}`);
      }
      assert.deepEqual(out, byHeap, 'the same model either way');
    } finally {
      GpuWeightSink.prototype.beginQ8 = beginQ8;
    }
  });

// GGUF files stream the same way (web/io/gguf.js loadGguf's weightSink): Q8_0 / Q4_K blocks decode to float32 rows
// that go to the GPU; EmbeddingGemma's scaled table and Dense modules, a K-quant Qwen3 and the real MiniLM.
const GGUF = new URL('../../../shared/fixtures/gguf/', import.meta.url).pathname;
for (const [dir, file] of [['qwen3-kquant', 'model-q4_k_m.gguf'], ['gemma3-st-embed', 'model-dense-q8_0.gguf'], ['real-minilm', 'model-q8_0.gguf'],
                           ['nomic-bert-a', 'model-q8_0.gguf'], ['modernbert-a', 'model-f16.gguf']]) {
  const path = join(GGUF, dir, file);
  test(`webgpu: GGUF ${dir}/${file} streams its linear layers to the GPU and embeds as WASM does`, { skip: skip || (!existsSync(path) && `no ${path}`) }, async () => {
    const rp = await init({ simd: true, threads: 1 });
    const gpu = await rp.loadModel(path, { device: 'webgpu', dtype: 'fp32' });
    const cpu = await rp.loadModel(path, { dtype: 'fp32' });
    try {
      assert.equal(gpu.info.device, 'webgpu');
      const vocab = Math.min(gpu.config.vocab_size, 90);
      const batch = { inputIds: [Array.from({ length: 9 }, (_, i) => 3 + ((i * 7) % (vocab - 3)))], attentionMask: [Array(9).fill(1)] };
      const r = compare((await gpu.forward(batch)).lastHiddenState, cpu.forward(batch).lastHiddenState, batch.attentionMask, 'fp32');
      assert.ok(r.worst <= 1e-4 * Math.max(1, r.scale), `max abs difference ${r.worst} (largest value ${r.scale})`);
    } finally {
      gpu.dispose();
      cpu.dispose();
    }
  });
}

// A GGUF file loaded as q8 on WebGPU streams its int8 rows the same way (loadGguf's weightSink): Q8_0 and Q4_K blocks
// decode to float32 a block at a time, are quantized as the heap path quantizes them and go to the GPU; the model
// equals, bit for bit, the one whose int8 model passes through the heap (a sink without beginQ8).
test('webgpu q8: a GGUF file (K-quant Qwen3, Q8_0 MiniLM) streams its int8 rows to the GPU and equals the heap path bit for bit', { skip: skip || (!existsSync(join(GGUF, 'qwen3-kquant')) && `no ${GGUF}`) }, async () => {
  const { GpuWeightSink } = await import('../../web/webgpu/weight-sink.js');
  const { beginQ8 } = GpuWeightSink.prototype;
  let q8Layers = 0;
  const rp = await init({ simd: true, threads: 1 });
  try {
    for (const [dir, file] of [['qwen3-kquant', 'model-q4_k_m.gguf'], ['real-minilm', 'model-q8_0.gguf']]) {
      const path = join(GGUF, dir, file);
      const batch = { inputIds: [Array.from({ length: 9 }, (_, i) => 3 + ((i * 7) % 87))], attentionMask: [Array(9).fill(1)] };
      GpuWeightSink.prototype.beginQ8 = function (...args) {
        ++q8Layers;
        return beginQ8.apply(this, args);
      };
      q8Layers = 0;
      const sunk = await rp.loadModel(path, { device: 'webgpu', dtype: 'q8' });
      const out = (await sunk.forward(batch)).lastHiddenState.data;
      sunk.dispose();
      assert.ok(q8Layers > 0, `${dir}: layers went to the GPU as int8 rows`);
      GpuWeightSink.prototype.beginQ8 = undefined;
      const heap = await rp.loadModel(path, { device: 'webgpu', dtype: 'q8' });
      const byHeap = (await heap.forward(batch)).lastHiddenState.data;
      heap.dispose();
      assert.deepEqual(out, byHeap, `${dir}: the same model either way`);
    }
  } finally {
    GpuWeightSink.prototype.beginQ8 = beginQ8;
  }
});

// A bad file on a streamed WebGPU load is the same Error as on WASM (class and message), and the runtime stays usable.
test('webgpu: a truncated or oversized checkpoint streamed toward the GPU fails as it does on WASM', { skip }, async () => {
  const dir = checkpoint('qwen3-bad', { ...QWEN3, num_hidden_layers: 1 }, '');
  const bytes = new Uint8Array(readFileSync(join(dir, 'model.safetensors')));
  const config = readFileSync(join(dir, 'config.json'), 'utf8');
  const rp = await init({ simd: true, threads: 1 });
  const files = { 'config.json': config, 'model.safetensors': bytes.subarray(0, bytes.length - 1000) };
  const onWasm = await rp.loadModel(files).catch((e) => e);
  const onGpu = await rp.loadModel(files, { device: 'webgpu' }).catch((e) => e);
  assert.ok(onWasm instanceof Error, 'WASM refuses the truncated file');
  assert.equal(onGpu.constructor, onWasm.constructor);
  assert.equal(onGpu.message, onWasm.message);
  const good = await rp.loadModel(dir, { device: 'webgpu' });
  assert.equal(good.info.device, 'webgpu');
  good.dispose();
});
