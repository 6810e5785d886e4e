// The WebGPU peer bench's small mode on SwiftShader (bench/gpu/peer.mjs, GPU_BENCH_SMALL=1): relpos on WebGPU and
// Transformers.js 4.3.1 on onnxruntime-node's WebGPU execution provider in one process, on the peer MiniLM-L6 of
// ../shared/gpu-peer-models with weights written from seed 0 (the same model.safetensors read by both), 2 texts and
// 1 single sentence. Checks the plumbing a GPU machine's run needs (the folder's weights, Transformers.js's onnx/
// naming, the rows of peer.json) and the agreement: fp32 cosine ≥ 0.9999 (peer.mjs exits 1 below it), q8 ≥ 0.99.
// Not a speed test: SwiftShader is a CPU, and its forwards take seconds (the run took 195 s alone on a 2-core AMD
// EPYC; the limit leaves room for a slower machine and another test file beside it). Needs bench/node_modules
// (scripts/bootstrap.sh installs it) and web/dist; without them, or without an adapter, the test skips — and fails
// under CI.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { ROOT } from './helpers.mjs';
import { webgpuAdapter } from './webgpu-adapter.mjs';

const { skip: noAdapter } = await webgpuAdapter();
const need = [
  [join(ROOT, 'web/dist/relpos-simd.wasm'), 'web/dist is not built'],
  [join(ROOT, 'bench/node_modules/@huggingface/transformers/dist/transformers.node.mjs'), 'bench/node_modules lacks Transformers.js (ONNXRUNTIME_NODE_INSTALL=skip npm ci --prefix bench)'],
  [join(ROOT, 'bench/node_modules/onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime.so.1'), 'bench/node_modules lacks onnxruntime-node linux-x64'],
  [join(ROOT, '..', 'shared', 'gpu-peer-models', 'minilm-l6', 'model.onnx'), 'no ../shared/gpu-peer-models'],
];
const missing = need.find(([path]) => !existsSync(path))?.[1];
if (missing && process.env.CI) test('the WebGPU peer bench can run (CI)', () => assert.fail(missing));
const skip = noAdapter || missing || false;

test('webgpu peer bench (small, SwiftShader): relpos and Transformers.js read the same weights and agree (fp32 cosine ≥ 0.9999, q8 ≥ 0.99), peer.json has every row', { skip, timeout: 560000 }, () => {
  const work = mkdtempSync(join(tmpdir(), 'relpos-peer-'));
  try {
    const env = { ...process.env, GPU_BENCH_SMALL: '1', OUT: join(work, 'out'), PEER_WORK: join(work, 'models'), PEER_DTYPES: 'fp32,q8' };
    env.VK_ICD_FILENAMES ??= '/usr/lib/chromium/vk_swiftshader_icd.json';
    delete env.PEER_MODELS;
    env.PEER_MODELS = join(ROOT, '..', 'shared', 'gpu-peer-models');
    const r = spawnSync(process.execPath, ['bench/gpu/peer.mjs'], { cwd: ROOT, env, encoding: 'utf8', timeout: 540000 });
    assert.equal(r.status, 0, `peer.mjs exited ${r.status} (${r.signal ?? ''}):\n${r.stderr.slice(-3000)}`);
    const result = JSON.parse(readFileSync(join(work, 'out', 'peer.json'), 'utf8'));
    assert.ok(result.device && typeof result.device.description === 'string', 'peer.json names the adapter');
    assert.match(result.peer, /^Transformers\.js 4\.3\.1 .*onnxruntime-node 1\.30\.0's WebGPU execution provider/);
    const key = (row) => `${row.row}/${row.dtype}`;
    assert.deepEqual(result.rows.map(key).sort(), ['minilm-1by1/fp32', 'minilm-1by1/q8', 'minilm/fp32', 'minilm/q8',
      'pipeline-1by1/fp32', 'pipeline-1by1/q8', 'pipeline/fp32', 'pipeline/q8']);
    for (const row of result.rows) {
      for (const f of ['model', 'shape', 'dtype', 'relposMs', 'peerMs', 'cosine']) assert.ok(row[f] !== undefined, `${key(row)}: ${f} missing`);
      assert.ok(row.relposMs > 0 && row.peerMs > 0, `${key(row)}: times`);
      const min = row.dtype === 'fp32' ? 0.9999 : 0.99;
      assert.ok(row.cosine >= min, `${key(row)}: cosine ${row.cosine} < ${min}`);
      assert.equal(row.failed, undefined);
      // like-for-like timings: the first dtype alone too, the peer alone, and the CPU part of relpos's calls
      assert.ok(row.peerAloneMs > 0 && row.relposCpuMs > 0 && row.relposCpuMs <= row.relposMs * 1.5, `${key(row)}: peerAloneMs ${row.peerAloneMs}, relposCpuMs ${row.relposCpuMs}`);
      if (row.dtype === 'fp32') assert.ok(row.relposAloneMs > 0, `${key(row)}: relposAloneMs`);
      else assert.equal(row.speedupAgainst, 'peerAloneMs', `${key(row)}: a later dtype's speedup is against the peer alone`);
    }
    // Both read one file: the weights were written once, into the folder Transformers.js opened through onnx/.
    assert.ok(existsSync(join(work, 'models', 'minilm-l6', 'onnx', 'model.onnx')));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
