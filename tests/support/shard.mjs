// Splits a safetensors file into shards + model.safetensors.index.json, the layout the Hub uses for
// large checkpoints (transformers' save_pretrained with max_shard_size), for tests.
const encoder = new TextEncoder();

function join(header, data) {
  let text = JSON.stringify(header);
  while (encoder.encode(text).length % 8) text += ' ';
  const h = encoder.encode(text);
  const out = new Uint8Array(8 + h.length + data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(h.length), true);
  out.set(h, 8);
  out.set(data, 8 + h.length);
  return out;
}

/**
 * { files: { 'model-00001-of-0000N.safetensors': Uint8Array, …, 'model.safetensors.index.json': string } }
 * with the tensors (in file order) split into `count` runs of about equal size.
 */
export function shardSafetensors(bytes, count = 2) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = Number(view.getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
  const data = bytes.subarray(8 + n);
  const tensors = Object.entries(header).filter(([k]) => k !== '__metadata__').sort((a, b) => a[1].data_offsets[0] - b[1].data_offsets[0]);
  if (tensors.length < count) throw new Error(`shardSafetensors: ${tensors.length} tensors cannot make ${count} shards`);
  const per = Math.ceil(tensors.length / count);
  const name = (i) => `model-${String(i + 1).padStart(5, '0')}-of-${String(count).padStart(5, '0')}.safetensors`;
  const files = {};
  const weightMap = {};
  for (let i = 0; i < count; ++i) {
    const run = tensors.slice(i * per, (i + 1) * per);
    const h = { __metadata__: header.__metadata__ ?? { format: 'pt' } };
    const parts = [];
    let at = 0;
    for (const [key, t] of run) {
      const [b, e] = t.data_offsets;
      h[key] = { ...t, data_offsets: [at, at + e - b] };
      parts.push(data.subarray(b, e));
      at += e - b;
      weightMap[key] = name(i);
    }
    const body = new Uint8Array(at);
    let o = 0;
    for (const p of parts) {
      body.set(p, o);
      o += p.length;
    }
    files[name(i)] = join(h, body);
  }
  files['model.safetensors.index.json'] = JSON.stringify({ metadata: { total_size: data.length }, weight_map: weightMap }, null, 2);
  return { files };
}
