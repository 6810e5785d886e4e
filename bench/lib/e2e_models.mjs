// The end-to-end bench models (../shared/bench-models/<name>/: config.json, model.safetensors,
// model.onnx with its weights as external data in model.safetensors, input.json, expected.safetensors)
// and how onnxruntime-web and relpos are fed from them. Used by the e2e section (bench.mjs endToEnd),
// the threads section (lib/threads.mjs) and the peers at equal thread counts (lib/peer_threads.mjs).
import fs from 'node:fs';
import path from 'node:path';

export const E2E_MODELS = ['bert-minilm-layer', 'bert-relative-key-layer', 't5-small-encoder-layer', 'deberta-v3-xsmall-layer'];

export function readSafetensors(file) {
  const buf = fs.readFileSync(file);
  const n = Number(buf.readBigUInt64LE(0));
  const header = JSON.parse(buf.subarray(8, 8 + n).toString('utf8'));
  const out = {};
  for (const [name, info] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const [b, e] = info.data_offsets;
    const bytes = buf.subarray(8 + n + b, 8 + n + e);
    out[name] = { shape: info.shape, data: new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)) };
  }
  return out;
}

/** Token ids of length S: the model's own input.json at 128, a fixed pattern below 512 otherwise. */
export function tokenIds(dir, S) {
  if (S === 128) return JSON.parse(fs.readFileSync(path.join(dir, 'input.json'), 'utf8')).input_ids[0];
  return Array.from({ length: S }, (_, i) => (i * 7919 + 13) % 512);
}

/** An onnxruntime-web session of the model's model.onnx (wasm EP, all graph optimisations). */
export function ortModelSession(ort, dir) {
  return ort.InferenceSession.create(fs.readFileSync(path.join(dir, 'model.onnx')), {
    executionProviders: ['wasm'], graphOptimizationLevel: 'all',
    externalData: [{ path: 'model.safetensors', data: fs.readFileSync(path.join(dir, 'model.safetensors')) }],
  });
}

/** input_ids and an all-ones attention_mask [1, S] (int64) in this ORT instance's Tensor type. */
export function ortTokenFeeds(ort, ids) {
  const S = ids.length;
  return {
    input_ids: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, S]),
    attention_mask: new ort.Tensor('int64', new BigInt64Array(S).fill(1n), [1, S]),
  };
}
