// A GPU device lost mid-call (driver reset, device.destroy(), a browser reclaiming it), on SwiftShader:
//   - GpuContext.guard: work racing a loss ends in an Error naming the loss (never a hang, never stale results);
//   - a model on WebGPU whose device is destroyed during a forward: that forward rejects with an Error saying
//     the device was lost, model.info.deviceLost shows it, later forwards reject at once, dispose still works;
//     the model loads again on WebGPU and matches transformers, and 'auto' without an adapter falls back to WASM
//     with the reason.
// The device is reached through a GPU object that records the devices it hands out (options.gpu), as an
// application holding navigator.gpu could; no test-only API. No adapter: fails under CI, else skips.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { FIXTURES, haveFixtures, readSafetensors } from './safetensors.mjs';
import { hiddenError } from './fixture-errors.mjs';
import { recordingGpu, webgpuAdapter, within } from './webgpu-adapter.mjs';

const { skip, gpu: flagged } = await webgpuAdapter();
const W = await import('../../web/webgpu/index.js');
const haveDist = existsSync(new URL('../../web/dist/relpos-simd.wasm', import.meta.url));

const LOST = /the GPU device was lost \(reason 'destroyed'.*load the model again \(device 'auto' falls back to WebAssembly/;

test('webgpu guard: work that never settles ends in an Error naming the loss when the device is destroyed; work after the loss is refused at once', { skip }, async () => {
  const ctx = await W.createContext({ gpu: flagged });
  assert.equal(ctx.lostInfo, null);
  const pending = ctx.guard('forward', () => new Promise(() => {}));
  ctx.device.destroy();
  const e = await within(pending.then(() => null, (err) => err), 20000, 'guard');
  assert.ok(e instanceof Error, 'the guarded work must reject');
  assert.match(e.message, /^forward: the GPU device was lost \(reason 'destroyed'/);
  assert.equal(e.deviceLost.reason, 'destroyed');
  assert.deepEqual(ctx.lostInfo, e.deviceLost);
  let ran = false;
  await assert.rejects(ctx.guard('read', async () => { ran = true; }), /^Error: read: the GPU device was lost/);
  assert.equal(ran, false, 'guard must not start work on a lost device');
});

test('webgpu guard: a read-back (mapAsync) that meets a destroyed device ends in the loss, not a bare AbortError; other failures pass through unchanged', { skip }, async () => {
  const ctx = await W.createContext({ gpu: flagged });
  await assert.rejects(ctx.guard('forward', async () => { throw new RangeError('not a loss'); }), (e) => e instanceof RangeError && e.message === 'not a loss');
  const staging = ctx.device.createBuffer({ size: 16, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const pending = ctx.guard('forward', () => {
    const map = staging.mapAsync(GPUMapMode.READ);
    ctx.device.destroy();
    return map;
  });
  const e = await within(pending.then(() => null, (err) => err), 20000, 'guard');
  assert.ok(e?.deviceLost, `expected the loss, got ${e}`);
  assert.match(e.message, /^forward: the GPU device was lost/);
});

const CASE = join(FIXTURES, 'bert-absolute');
const needModel = skip || (!haveDist && 'web/dist is not built') || ((!haveFixtures || !existsSync(CASE)) && `no fixture ${CASE}`);

test("webgpu model: a device destroyed during a forward rejects that forward with the loss (no hang), info.deviceLost shows it, later forwards reject at once; the model loads again (webgpu, or 'auto' → WASM without an adapter)", { skip: needModel }, async () => {
  const { init } = await import('../../web/index.js');
  const rp = await init({ simd: true });
  const input = JSON.parse(readFileSync(join(CASE, 'input.json'), 'utf8'));
  const expected = readSafetensors(new Uint8Array(readFileSync(join(CASE, 'expected.safetensors'))));
  const inputs = { inputIds: input.input_ids, attentionMask: input.attention_mask };
  const real = (await W.findGpu({ gpu: flagged })).gpu;
  const gpu = recordingGpu(real);
  const model = await rp.loadModel(CASE, { device: 'webgpu', gpu });
  try {
    assert.equal(model.info.device, 'webgpu');
    assert.equal(model.info.deviceLost, null);
    const first = await model.forward(inputs);
    assert.ok(hiddenError(first.lastHiddenState, expected.last_hidden_state, input.lengths) <= 1e-4);
    assert.equal(gpu.devices.length, 1);

    // The forward has recorded and submitted its commands when forward() returns its promise.
    const pending = model.forward(inputs);
    gpu.devices[0].destroy();
    const e = await within(pending.then(() => null, (err) => err), 30000, 'forward on a destroyed device');
    assert.ok(e instanceof Error, 'the forward must reject, not return outputs');
    assert.match(e.message, /^forward: /);
    assert.match(e.message, LOST);
    assert.equal(e.deviceLost.reason, 'destroyed');
    assert.equal(model.info.device, 'webgpu');
    assert.deepEqual({ ...model.info.deviceLost }, e.deviceLost);

    const t0 = performance.now();
    await assert.rejects(model.forward(inputs), LOST);
    assert.ok(performance.now() - t0 < 1000, 'a forward after the loss is refused at once');
  } finally {
    model.dispose();
  }

  const again = await rp.loadModel(CASE, { device: 'webgpu', gpu });
  try {
    assert.equal(again.info.deviceLost, null);
    const out = await again.forward(inputs);
    const err = hiddenError(out.lastHiddenState, expected.last_hidden_state, input.lengths);
    assert.ok(err <= 1e-4, `reloaded model: max abs error ${err}`);
  } finally {
    again.dispose();
  }

  const auto = await rp.loadModel(CASE, { device: 'auto', gpu: { requestAdapter: async () => null } });
  try {
    assert.equal(auto.info.device, 'wasm');
    assert.match(auto.info.deviceReason, /no GPU adapter/);
    const out = auto.forward(inputs);
    assert.ok(hiddenError(out.lastHiddenState, expected.last_hidden_state, input.lengths) <= 1e-4);
  } finally {
    auto.dispose();
  }
});

test('webgpu model: a device lost while idle shows in model.info.deviceLost and the next forward is an Error saying so', { skip: needModel }, async () => {
  const { init } = await import('../../web/index.js');
  const rp = await init({ simd: true });
  const input = JSON.parse(readFileSync(join(CASE, 'input.json'), 'utf8'));
  const gpu = recordingGpu((await W.findGpu({ gpu: flagged })).gpu);
  const model = await rp.loadModel(CASE, { device: 'webgpu', gpu });
  try {
    gpu.devices[0].destroy();
    const deadline = performance.now() + 20000;
    while (!model.info.deviceLost && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal(model.info.deviceLost?.reason, 'destroyed', 'info.deviceLost after an idle loss');
    await assert.rejects(model.forward({ inputIds: input.input_ids }), LOST);
  } finally {
    model.dispose();
  }
});
