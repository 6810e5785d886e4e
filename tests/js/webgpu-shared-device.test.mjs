// Models loaded on WebGPU through one GPU object (and the same GPU options) share one GPUDevice (device.js
// acquireContext): the second model compiles no shader, both give the first model's outputs bit for bit, a disposed
// model leaves the others running, the last dispose destroys the device, and a later load gets a new one; other
// options (subgroups: false) get a device of their own; a loss reaches every model on the device and the next load
// gets a new device. Devices and shader modules are counted through GPU objects that record them (options.gpu), on
// SwiftShader. No adapter: fails under CI, else skips.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { FIXTURES, haveFixtures, readSafetensors } from './safetensors.mjs';
import { hiddenError } from './fixture-errors.mjs';
import { recordingGpu, shaderRecordingGpu, webgpuAdapter, within } from './webgpu-adapter.mjs';

const { skip, gpu: flagged } = await webgpuAdapter();
const W = await import('../../web/webgpu/index.js');
const haveDist = existsSync(new URL('../../web/dist/relpos-simd.wasm', import.meta.url));
const CASE = join(FIXTURES, 'bert-absolute');
const needModel = skip || (!haveDist && 'web/dist is not built') || ((!haveFixtures || !existsSync(CASE)) && `no fixture ${CASE}`);

async function setup() {
  const { init } = await import('../../web/index.js');
  const rp = await init({ simd: true });
  const input = JSON.parse(readFileSync(join(CASE, 'input.json'), 'utf8'));
  const expected = readSafetensors(new Uint8Array(readFileSync(join(CASE, 'expected.safetensors'))));
  const inputs = { inputIds: input.input_ids, attentionMask: input.attention_mask };
  const shaders = shaderRecordingGpu((await W.findGpu({ gpu: flagged })).gpu);
  const gpu = recordingGpu(shaders);
  const right = (out, what) => {
    const err = hiddenError(out.lastHiddenState, expected.last_hidden_state, input.lengths);
    assert.ok(err <= 1e-4, `${what}: max abs error ${err} against transformers`);
  };
  return { rp, inputs, shaders, gpu, right };
}

test('webgpu: models on one GPU object share its device — the second compiles no shader and equals the first bit for bit, a dispose leaves the others running, the last destroys the device, later loads and other options get new ones', { skip: needModel }, async () => {
  const { rp, inputs, shaders, gpu, right } = await setup();
  const a = await rp.loadModel(CASE, { device: 'webgpu', gpu });
  let b = null, c = null, d = null;
  try {
    const outA = await a.forward(inputs);
    right(outA, 'first model');
    const compiled = shaders.codes.length;
    assert.ok(compiled > 0, 'the first forward compiles its kernels');

    b = await rp.loadModel(CASE, { device: 'webgpu', gpu });
    assert.equal(gpu.devices.length, 1, 'the second model runs on the first one\'s device');
    const outB = await b.forward(inputs);
    assert.equal(shaders.codes.length, compiled, 'the second model compiled no shader');
    assert.deepEqual(outB.lastHiddenState.data, outA.lastHiddenState.data);

    const device = gpu.devices[0];
    let destroyed = false;
    device.lost.then(() => { destroyed = true; });
    a.dispose();
    const again = await b.forward(inputs);
    assert.deepEqual(again.lastHiddenState.data, outA.lastHiddenState.data, 'a disposed model leaves the device to the others');
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(destroyed, false, 'the device stays while a model holds it');
    b.dispose();
    b = null;
    assert.equal((await within(device.lost, 20000, 'the last dispose')).reason, 'destroyed');

    // after the last dispose a load gets a new device; two loads at once get one
    [c, d] = await Promise.all([rp.loadModel(CASE, { device: 'webgpu', gpu }), rp.loadModel(CASE, { device: 'webgpu', gpu })]);
    assert.equal(gpu.devices.length, 2, 'one new device for two loads at once');
    right(await c.forward(inputs), 'a model loaded after the last dispose');
    assert.deepEqual((await d.forward(inputs)).lastHiddenState.data, outA.lastHiddenState.data);

    // other GPU options are another device: its kernels are the plain reductions
    const plain = await rp.loadModel(CASE, { device: 'webgpu', gpu, subgroups: false });
    try {
      assert.equal(gpu.devices.length, 3, 'subgroups: false gets a device of its own');
      assert.equal(plain.info.adapter.subgroups, false);
      right(await plain.forward(inputs), 'subgroups: false');
    } finally {
      plain.dispose();
    }
  } finally {
    for (const m of [a, b, c, d]) m?.dispose();
  }
});

test('webgpu: a loss of a shared device reaches every model on it, and the next load gets a new device', { skip: needModel }, async () => {
  const { rp, inputs, gpu, right } = await setup();
  const a = await rp.loadModel(CASE, { device: 'webgpu', gpu });
  const b = await rp.loadModel(CASE, { device: 'webgpu', gpu });
  let c = null;
  try {
    await a.forward(inputs);
    assert.equal(gpu.devices.length, 1);
    gpu.devices[0].destroy();
    for (const m of [a, b]) await assert.rejects(within(m.forward(inputs), 30000, 'a forward on a lost device'), /the GPU device was lost \(reason 'destroyed'/);
    assert.equal(a.info.deviceLost?.reason, 'destroyed');
    assert.equal(b.info.deviceLost?.reason, 'destroyed');
    c = await rp.loadModel(CASE, { device: 'webgpu', gpu });
    assert.equal(gpu.devices.length, 2, 'the next load gets a new device');
    assert.equal(c.info.deviceLost, null);
    right(await c.forward(inputs), 'a model loaded after the loss');
  } finally {
    for (const m of [a, b, c]) m?.dispose();
  }
});
