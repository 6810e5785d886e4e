// web/webgpu/weight-sink.js on a recording stand-in for the GPU context (no adapter needed, so the fp16 sink runs here
// too, which SwiftShader cannot: it has no shader-f16): each layer is put in the model's dtype by one submit the moment
// its last byte arrives — BF16 / F16 bytes widened from a staging buffer, float32 narrowed in an fp16 sink — and the
// buffer it came from is destroyed then; float32 layers of an fp32 sink need no GPU work; q8 layers' words go to their
// q words and scale words buffers at their rows' offsets; finish() names a layer that did not arrive whole. The GPU results of these kernels are tested against the CPU in webgpu-dtypes and
// webgpu-streamed-load.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { GpuWeightSink } from '../../web/webgpu/weight-sink.js';

globalThis.GPUBufferUsage ??= { STORAGE: 128, COPY_SRC: 4, COPY_DST: 8, UNIFORM: 64 };

/** A context that records buffers, writes, dispatches (the pipeline key and the buffers bound) and submits. */
function recordingContext() {
  const log = [];
  const buffers = [];
  const ctx = {
    shaderF16: true,
    limits: {},
    empty(bytes, label) {
      const b = { size: bytes, label, destroyed: false, destroy() { this.destroyed = true; } };
      buffers.push(b);
      return b;
    },
    write(buffer, offset, view) { log.push({ op: 'write', buffer, offset, bytes: view.byteLength }); },
    pipeline(key, make) {
      const code = make();
      return { key, code, getBindGroupLayout: () => ({}) };
    },
    uniforms: (words) => ({ uniform: words }),
    device: {
      createBindGroup: (d) => d,
      createCommandEncoder: () => ({
        beginComputePass: () => {
          const pass = { setPipeline: (p) => (pass.pipeline = p), setBindGroup: (_, g) => (pass.group = g), end() {},
            dispatchWorkgroups: () => log.push({ op: 'dispatch', key: pass.pipeline.key, code: pass.pipeline.code, bound: pass.group.entries.map((e) => e.resource.buffer) }) };
          return pass;
        },
        finish: () => 'commands',
      }),
      queue: { submit: () => log.push({ op: 'submit' }) },
    },
  };
  return { ctx, log, buffers };
}

const ops = (log) => log.map((e) => e.op).join(' ');

test('an fp16 sink narrows a float32 layer on the GPU when its last row arrives, and lets the float32 buffer go', () => {
  const { ctx, log } = recordingContext();
  const sink = new GpuWeightSink(ctx, 'f16');
  const id = sink.begin('w', 4, 8, 'rows');
  const wide = sink.buffer(id);
  assert.equal(wide.size, 4 * 32);
  sink.rows(id, 0, 3, new Float32Array(24));
  assert.equal(ops(log), 'write', 'nothing before the layer is whole');
  sink.rows(id, 3, 1, new Float32Array(8));
  assert.equal(ops(log), 'write write dispatch submit');
  const d = log[2];
  assert.equal(d.key, 'convert:f32>f16');
  assert.equal(d.bound[1], wide);
  assert.equal(d.bound[2], sink.buffer(id));
  assert.equal(sink.buffer(id).size, 2 * 32, 'the layer is f16 now');
  assert.ok(wide.destroyed, 'its float32 buffer is let go (after the submit)');
  sink.finish();
  assert.equal(sink.bytes, 2 * 32);
});

test('BF16 and F16 bytes go to a staging buffer and are widened into the layer when whole: f16 in an fp16 sink, float32 in an fp32 one', () => {
  for (const [dtype, arrives, key, size] of [['f16', 'BF16', 'widen:bf16>f16', 2], ['f32', 'BF16', 'widen:bf16>f32', 4], ['f32', 'F16', 'widen:f16>f32', 4], ['f16', 'F16', 'widen:f16>f16', 2]]) {
    const { ctx, log } = recordingContext();
    const sink = new GpuWeightSink(ctx, dtype);
    assert.deepEqual(sink.takesBytes, ['F32', 'F16', 'BF16']);
    const id = sink.begin('w', 6, 10, arrives);
    const layer = sink.buffer(id);
    assert.equal(layer.size, size * 60, `${dtype} sink, ${arrives}: the layer's buffer in the model's dtype`);
    sink.writeBytes(id, 0, new Uint8Array(40));
    sink.writeBytes(id, 40, new Uint8Array(80));
    assert.equal(ops(log), 'write write dispatch submit', `${dtype} sink, ${arrives}`);
    const staging = log[0].buffer;
    assert.equal(staging.size, 120, 'the file\'s 2-byte values, as they are');
    assert.equal(log[2].key, key);
    assert.equal(log[2].bound[1], staging);
    assert.equal(log[2].bound[2], layer);
    assert.equal(log[2].code.startsWith('enable f16;'), dtype === 'f16');
    assert.ok(staging.destroyed && !layer.destroyed);
    assert.equal(sink.buffer(id), layer);
    sink.finish();
  }
});

test('float32 bytes in an fp32 sink need no GPU work; finish() names a layer that did not arrive whole', () => {
  const { ctx, log } = recordingContext();
  const sink = new GpuWeightSink(ctx, 'f32');
  const a = sink.begin('a', 2, 4, 'F32');
  sink.writeBytes(a, 0, new Uint8Array(32));
  const b = sink.begin('b', 2, 4, 'BF16');
  sink.writeBytes(b, 0, new Uint8Array(12));
  assert.equal(ops(log), 'write write');
  assert.throws(() => sink.finish(), /webgpu: streamed weight b: 12 of its 16 bytes arrived/);
  sink.destroy();
  assert.ok(log[1].buffer.destroyed, 'destroy() lets a staging buffer go too');
});

test('a failure while writing is kept, not thrown into the stream, and finish() throws it', () => {
  const { ctx } = recordingContext();
  ctx.write = () => { throw new Error('out of memory'); };
  const sink = new GpuWeightSink(ctx, 'f32');
  const id = sink.begin('w', 2, 2, 'BF16');
  assert.doesNotThrow(() => sink.writeBytes(id, 0, new Uint8Array(8)));
  assert.throws(() => sink.finish(), /webgpu: writing the streamed weights to the GPU: out of memory/);
});

test("a q8 layer's q words and scale words go to two buffers at their rows' offsets; finish() counts both", () => {
  const { ctx, log } = recordingContext();
  const sink = new GpuWeightSink(ctx, 'f32');
  const id = sink.beginQ8('w', 10, 70); // 18 q words and 1 + 1 scale words a row (3 groups of 32)
  const q = sink.buffer(id), scales = sink.scales(id);
  assert.equal(q.size, 4 * 10 * 18);
  assert.equal(scales.size, 4 * 10 * 2);
  sink.q8Rows(id, 0, 4, new Uint32Array(4 * 18), new Uint32Array(4 * 2));
  assert.throws(() => sink.finish(), /webgpu: streamed weight w: 320 of its 800 bytes arrived/);
  sink.q8Rows(id, 4, 6, new Uint32Array(6 * 18), new Uint32Array(6 * 2));
  assert.deepEqual(log.map((e) => [e.buffer === q ? 'q' : 's', e.offset, e.bytes]), [['q', 0, 288], ['s', 0, 32], ['q', 288, 432], ['s', 32, 48]]);
  sink.finish();
  assert.equal(sink.bytes, 800);
  assert.equal(sink.scales(sink.begin('f', 2, 2, 'rows')), undefined, 'a float layer has no scale words');
  assert.throws(() => sink.scales(9), /the plan names streamed weight 9, but the load sent 2/);
});
