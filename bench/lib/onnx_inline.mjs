// Transformers.js reads onnx/<name>.onnx (+ <name>.onnx_data), but the bench models' ONNX graphs keep their weights
// as external data inside model.safetensors: this copies those bytes into the graph (onnx-proto), for the Chromium
// peer benches' model folders (bench/cpu_chromium_peer.mjs, bench/webgpu_chromium_peer.mjs).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * The ONNX model `graphFile` with every external initializer's bytes read from `weightsFile` and stored in the graph
 * (rawData). Every external location must name `weightsFile`'s file name. Returns { bytes, inlined } (the encoded
 * model, how many initializers were copied in).
 */
export function inlineOnnx(graphFile, weightsFile) {
  const { onnx } = require('onnx-proto');
  const model = onnx.ModelProto.decode(fs.readFileSync(graphFile));
  const weights = fs.readFileSync(weightsFile);
  const location = path.basename(weightsFile);
  let inlined = 0;
  for (const t of model.graph.initializer) {
    if (t.dataLocation !== onnx.TensorProto.DataLocation.EXTERNAL) continue;
    const kv = Object.fromEntries(t.externalData.map((e) => [e.key, e.value]));
    if (kv.location !== location) throw new Error(`${t.name}: external data in ${kv.location}, expected ${location}`);
    const offset = Number(kv.offset ?? 0), length = Number(kv.length);
    t.rawData = weights.subarray(offset, offset + length);
    t.externalData = [];
    t.dataLocation = onnx.TensorProto.DataLocation.DEFAULT;
    inlined++;
  }
  return { bytes: onnx.ModelProto.encode(model).finish(), inlined };
}
