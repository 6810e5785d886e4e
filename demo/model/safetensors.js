// Writes a safetensors file in memory: 8-byte little-endian header length N, N bytes of JSON header
// (padded with spaces to a multiple of 8) mapping each tensor name to { dtype: 'F32', shape,
// data_offsets: [begin, end) within the data buffer }, then the data buffer (little-endian float32,
// row-major, in the order given).

/** tensors: Array of [name, shape, Float32Array] → Uint8Array of the whole file. */
export function writeSafetensors(tensors, metadata = { format: 'pt' }) {
  const header = { __metadata__: metadata };
  let offset = 0;
  for (const [name, shape, data] of tensors) {
    const count = shape.reduce((a, b) => a * b, 1);
    if (data.length !== count) throw new RangeError(`${name}: ${data.length} values for shape [${shape}] (${count})`);
    header[name] = { dtype: 'F32', shape, data_offsets: [offset, offset + 4 * count] };
    offset += 4 * count;
  }
  let text = JSON.stringify(header);
  const enc = new TextEncoder();
  while (enc.encode(text).length % 8) text += ' ';
  const head = enc.encode(text);
  const out = new Uint8Array(8 + head.length + offset);
  const view = new DataView(out.buffer);
  view.setBigUint64(0, BigInt(head.length), true);
  out.set(head, 8);
  let at = 8 + head.length;
  for (const [, , data] of tensors) {
    for (let i = 0; i < data.length; i++, at += 4) view.setFloat32(at, data[i], true);
  }
  return out;
}
