// Linear layers and embedding tables from the checkpoint stream straight into GPU buffers (device 'webgpu', fp32 and
// fp16 loads of the families whose safetensors stream: cpp StreamLoad.setWeightSink, models/layers/streamed_checkpoint.h
// WeightSink). Each layer's float32 rows ([out, in], or a table's [rows, dim]) arrive a block (~1 MiB of file bytes)
// at a time and are written at their offset in the layer's buffer, so the WASM heap never holds them: its peak during
// the load is the norms and biases and one block — not the model (Qwen3-Embedding-0.6B in fp32 is 2.4 GB, past the
// 2 GB heap; XLM-R's table alone is 768 MB). EmbeddingGemma's table, which the load scales, is the exception. fp16: the rows fill a float32 buffer that finish() narrows on the GPU
// (kernels/convert.js), as the executor narrows the weights it uploads itself.
//
//   const sink = new GpuWeightSink(ctx, 'f32' | 'f16');
//   stream.setWeightSink(sink);  …stream the files…;  sink.finish();
// Float32 tensors skip the rows: writeBytes(id, offset, Uint8Array) writes the file's bytes as they are, from the chunk just
// read (web/weights.js streamSafetensors → stream.writeDirect), so they are not copied into the heap either.
//   sink.buffer(id)  → the GPUBuffer of the layer the C++ side named `id` (weightValues(i) → { gpuBuffer: id })
//   sink.bytes       → bytes of GPU memory the layers take
import { convert } from './kernels/convert.js';

export class GpuWeightSink {
  constructor(ctx, dtype) {
    this.ctx = ctx;
    this.dtype = dtype;
    this.layers = [];
    this.bytes = 0;
  }

  // begin, rows and writeBytes are called from C++ (through Embind) and never throw: an exception must not unwind WebAssembly
  // frames. The first failure is kept and finish() throws it once the stream has returned.
  begin(name, rows, cols) {
    const n = rows * cols;
    let buffer = null;
    try {
      if (!this.error) buffer = this.ctx.empty(4 * n, `weight ${name}`);
    } catch (e) {
      this.error = e;
    }
    this.layers.push({ name, n, cols, buffer });
    this.bytes += (this.dtype === 'f16' ? 2 : 4) * n;
    return this.layers.length - 1;
  }

  rows(id, first, count, values) {
    const layer = this.layers[id];
    if (count === 0 || !layer?.buffer || this.error) return;
    try {
      this.ctx.write(layer.buffer, 4 * first * layer.cols, values); // a view of the heap (shared in the threads build)
    } catch (e) {
      this.error = e;
    }
  }

  /** Float32 tensors as the checkpoint's bytes (little-endian float32): `view`'s bytes at byte `offset` of the layer (both multiples of 4). */
  writeBytes(id, offset, view) {
    const layer = this.layers[id];
    if (view.length === 0 || !layer?.buffer || this.error) return;
    try {
      this.ctx.write(layer.buffer, offset, view); // the chunk read from the file (stream.writeDirect), or a view of the heap
    } catch (e) {
      this.error = e;
    }
  }

  /** After the last file: the first failure, if any, thrown; fp16 layers narrowed on the GPU (their float32 buffers go once that work is done). */
  finish() {
    if (this.error) throw new Error(`webgpu: writing the streamed weights to the GPU: ${this.error.message}`, { cause: this.error });
    if (this.dtype !== 'f16') return;
    const encoder = this.ctx.device.createCommandEncoder({ label: 'relpos f16 weights (streamed)' });
    const wide = [];
    for (const layer of this.layers) {
      if (layer.n === 0) continue;
      const narrow = this.ctx.empty(2 * layer.n, `weight ${layer.name}`);
      convert(this.ctx, encoder, { x: layer.buffer, y: narrow, n: layer.n, from: 'f32', to: 'f16' });
      wide.push(layer.buffer);
      layer.buffer = narrow;
    }
    this.ctx.device.queue.submit([encoder.finish()]);
    for (const b of wide) b.destroy(); // submitted work keeps them alive until it is done
  }

  buffer(id) {
    const layer = this.layers[id];
    if (!layer) throw new Error(`webgpu: the plan names streamed weight ${id}, but the load sent ${this.layers.length}`);
    return layer.buffer;
  }

  /** The buffers the executor did not take (a failed load). */
  destroy() {
    for (const layer of this.layers) layer.buffer?.destroy();
    this.layers = [];
  }
}
