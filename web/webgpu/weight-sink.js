// Linear layers and embedding tables from the checkpoint stream straight into GPU buffers (device 'webgpu', fp32 and
// fp16 loads of the families whose safetensors stream: cpp StreamLoad.setWeightSink, models/layers/streamed_checkpoint.h
// WeightSink). Each layer's float32 rows ([out, in], or a table's [rows, dim]) arrive a block (~1 MiB of file bytes)
// at a time and are written at their offset in the layer's buffer, so the WASM heap never holds them: its peak during
// the load is the norms and biases and one block — not the model (Qwen3-Embedding-0.6B in fp32 is 2.4 GB, past the
// 2 GB heap; XLM-R's table alone is 768 MB). EmbeddingGemma's table, which the load scales, is the exception. fp16: a
// layer's float32 rows fill a float32 buffer that the GPU narrows (kernels/convert.js) once the layer is complete, as
// the executor narrows the weights it uploads itself.
//
//   const sink = new GpuWeightSink(ctx, 'f32' | 'f16');
//   stream.setWeightSink(sink);  …stream the files…;  sink.finish();   (finish: every layer arrived whole, or an Error)
// Float32 tensors skip the rows: writeBytes(id, offset, Uint8Array) writes the file's bytes as they are, from the chunk just
// read (web/weights.js streamSafetensors → stream.writeDirect), so they are not copied into the heap either. So do
// F16 and BF16 tensors (takesBytes; begin's 4th argument names the dtype): their bytes go to a staging buffer of the
// layer, which the GPU widens (kernels/convert.js widen) into the layer's f32 — or f16 — buffer once the last byte
// has arrived; the staging buffer goes then. Half the bytes of the float32 rows cross to the GPU, and the CPU decodes
// none (Qwen3 and Gemma checkpoints are BF16).
// q8 loads: beginQ8 / q8Rows take each layer as the GPU's q8 words, quantized by the stream a block at a time, so the
// heap never holds the int8 model either.
//   sink.buffer(id)  → the GPUBuffer of the layer the C++ side named `id` (weightValues(i) → { gpuBuffer: id })
//   sink.scales(id)  → a q8 layer's scale words
//   sink.bytes       → bytes of GPU memory the layers take
import { convert, widen } from './kernels/convert.js';

export class GpuWeightSink {
  constructor(ctx, dtype) {
    this.ctx = ctx;
    this.dtype = dtype;
    this.layers = [];
    this.bytes = 0;
    this.takesBytes = ['F32', 'F16', 'BF16']; // read once by the C++ side (setWeightSink)
  }

  // begin, rows and writeBytes are called from C++ (through Embind) and never throw: an exception must not unwind WebAssembly
  // frames. The first failure is kept and finish() throws it once the stream has returned.
  // arrives: 'rows' (float32 rows), or the dtype of the file's bytes to come: 'F32', 'F16', 'BF16'.
  begin(name, rows, cols, arrives = 'rows') {
    const n = rows * cols, half = arrives === 'F16' || arrives === 'BF16';
    // wide: the buffer holds float32 (narrowed once complete in an fp16 sink); staging: the 2-byte values, widened into it
    const layer = { name, n, cols, buffer: null, wide: !half || this.dtype === 'f32', staging: null, from: half ? arrives.toLowerCase() : null,
                    received: 0, complete: (half ? 2 : 4) * n };
    try {
      if (!this.error) {
        layer.buffer = this.ctx.empty((layer.wide ? 4 : 2) * n, `weight ${name}`);
        if (half) layer.staging = this.ctx.empty(2 * n, `weight ${name} (${arrives} bytes)`);
      }
    } catch (e) {
      this.error = e;
    }
    this.layers.push(layer);
    this.bytes += (this.dtype === 'f16' ? 2 : 4) * n;
    return this.layers.length - 1;
  }

  rows(id, first, count, values) {
    const layer = this.layers[id];
    if (count === 0 || !layer?.buffer || this.error) return;
    try {
      this.ctx.write(layer.buffer, 4 * first * layer.cols, values); // a view of the heap (shared in the threads build)
      this.received(layer, values.byteLength);
    } catch (e) {
      this.error = e;
    }
  }

  /** A tensor as the checkpoint's bytes (little-endian, begin's dtype): `view`'s bytes at byte `offset` of the layer (both multiples of 4). */
  writeBytes(id, offset, view) {
    const layer = this.layers[id];
    if (view.length === 0 || !layer?.buffer || this.error) return;
    try {
      this.ctx.write(layer.staging ?? layer.buffer, offset, view); // the chunk read from the file (stream.writeDirect), or a view of the heap
      this.received(layer, view.length);
    } catch (e) {
      this.error = e;
    }
  }

  /**
   * Once a layer's last byte has arrived, the GPU puts it in the model's dtype: 2-byte values widened from the staging
   * buffer (which goes), or, in an fp16 sink, float32 narrowed into an f16 buffer (the float32 one goes) — so at any
   * time the GPU holds the finished layers and at most one layer in transit, not the whole model in float32 too.
   */
  received(layer, bytes) {
    if ((layer.received += bytes) !== layer.complete || !(layer.staging || (layer.wide && this.dtype === 'f16'))) return;
    const encoder = this.ctx.device.createCommandEncoder({ label: `relpos weight ${layer.name}` });
    const from = layer.staging ?? layer.buffer;
    if (layer.staging) {
      widen(this.ctx, encoder, { x: layer.staging, y: layer.buffer, n: layer.n, from: layer.from, to: layer.wide ? 'f32' : 'f16' });
      layer.staging = null;
    } else {
      layer.buffer = this.ctx.empty(2 * layer.n, `weight ${layer.name}`);
      convert(this.ctx, encoder, { x: from, y: layer.buffer, n: layer.n, from: 'f32', to: 'f16' });
      layer.wide = false;
    }
    this.ctx.device.queue.submit([encoder.finish()]); // after the writes above: a queue runs its operations in order
    from.destroy(); // the submitted work keeps it alive until it is done
  }

  /**
   * q8 loads: a layer's int8 rows in the GPU's q8 words (plan.h Q8Values; kernels/gemm.js and embedding.js read them),
   * quantized by the stream as the heap path quantizes them: q words [rows, ceil(cols / 4)] and scale words
   * [rows, 1 + ceil(G / 8)], written at their rows' offsets as the blocks arrive.
   */
  beginQ8(name, rows, cols) {
    const G = Math.ceil(cols / 32), qw = Math.ceil(cols / 4), sw = 1 + Math.ceil(G / 8);
    const layer = { name, n: rows * cols, cols, qw, sw, buffer: null, scales: null, wide: false, received: 0, complete: 4 * rows * (qw + sw) };
    try {
      if (!this.error) {
        layer.buffer = this.ctx.empty(4 * rows * qw, `weight ${name} q8`);
        layer.scales = this.ctx.empty(4 * rows * sw, `weight ${name} q8 scales`);
      }
    } catch (e) {
      this.error = e;
    }
    this.layers.push(layer);
    this.bytes += 4 * rows * (qw + sw);
    return this.layers.length - 1;
  }

  q8Rows(id, first, count, q, scales) {
    const layer = this.layers[id];
    if (count === 0 || !layer?.scales || this.error) return;
    try {
      this.ctx.write(layer.buffer, 4 * first * layer.qw, q); // views of the heap, valid during the call
      this.ctx.write(layer.scales, 4 * first * layer.sw, scales);
      layer.received += q.byteLength + scales.byteLength;
    } catch (e) {
      this.error = e;
    }
  }

  /** After the last file: the first failure, if any, thrown; every layer complete, and in the model's dtype. */
  finish() {
    if (this.error) throw new Error(`webgpu: writing the streamed weights to the GPU: ${this.error.message}`, { cause: this.error });
    const short = this.layers.find((l) => l.n > 0 && l.received !== l.complete);
    if (short) throw new Error(`webgpu: streamed weight ${short.name}: ${short.received} of its ${short.complete} bytes arrived`);
  }

  buffer(id) {
    const layer = this.layers[id];
    if (!layer) throw new Error(`webgpu: the plan names streamed weight ${id}, but the load sent ${this.layers.length}`);
    return layer.buffer;
  }

  /** A q8 layer's scale words (beginQ8); undefined for a float layer. */
  scales(id) {
    this.buffer(id); // an unknown id is an Error
    return this.layers[id].scales;
  }

  /** The buffers the executor did not take (a failed load). */
  destroy() {
    for (const layer of this.layers) {
      layer.buffer?.destroy();
      layer.staging?.destroy();
      layer.scales?.destroy();
    }
    this.layers = [];
  }
}
