// Test helpers: read and write safetensors files in memory (the format of the HF fixtures), and the
// fixture folders themselves (/work/shared/fixtures/hf or $RELPOS_HF_FIXTURES).
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { ROOT } from './helpers.mjs';

export const FIXTURES = process.env.RELPOS_HF_FIXTURES ?? resolve(ROOT, '..', 'shared', 'fixtures', 'hf');
export const haveFixtures = existsSync(join(FIXTURES, 'manifest.json'));
export const manifest = haveFixtures ? JSON.parse(readFileSync(join(FIXTURES, 'manifest.json'), 'utf8')) : { cases: [] };

/** Splits a safetensors file: { header (parsed JSON), data (Uint8Array of the data buffer) }. */
export function splitSafetensors(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = Number(view.getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n)));
  return { header, data: bytes.subarray(8 + n) };
}

/** Joins a header (object or raw string) and a data buffer into a safetensors file. */
export function joinSafetensors(header, data) {
  let text = typeof header === 'string' ? header : JSON.stringify(header);
  while (new TextEncoder().encode(text).length % 8) text += ' ';
  const h = new TextEncoder().encode(text);
  const out = new Uint8Array(8 + h.length + data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(h.length), true);
  out.set(h, 8);
  out.set(data, 8 + h.length);
  return out;
}

/** A safetensors file from { name: { shape, data: Float32Array } } (F32, in insertion order). */
export function writeSafetensors(tensors) {
  const header = { __metadata__: { format: 'pt' } };
  let offset = 0;
  const parts = [];
  for (const [name, { shape, data }] of Object.entries(tensors)) {
    const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    header[name] = { dtype: 'F32', shape, data_offsets: [offset, offset + bytes.length] };
    parts.push(bytes);
    offset += bytes.length;
  }
  const data = new Uint8Array(offset);
  let at = 0;
  for (const p of parts) {
    data.set(p, at);
    at += p.length;
  }
  return joinSafetensors(header, data);
}

/** Every F32 / I64 tensor of a file as { name: { dims, data: Float32Array | BigInt64Array } }. */
export function readSafetensors(bytes) {
  const { header, data } = splitSafetensors(bytes);
  const out = {};
  for (const [name, t] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const [begin, end] = t.data_offsets;
    const copy = data.slice(begin, end);
    const array = t.dtype === 'F32' ? new Float32Array(copy.buffer) : t.dtype === 'I64' ? new BigInt64Array(copy.buffer) : null;
    if (!array) throw new Error(`readSafetensors: dtype ${t.dtype} of ${name} not handled by the test helper`);
    out[name] = { dims: t.shape, data: array };
  }
  return out;
}

/** A fixture case: config text, model bytes, input, expected tensors. */
export function loadCase(name) {
  const dir = join(FIXTURES, name);
  return {
    dir,
    configText: readFileSync(join(dir, 'config.json'), 'utf8'),
    modelBytes: new Uint8Array(readFileSync(join(dir, 'model.safetensors'))),
    input: JSON.parse(readFileSync(join(dir, 'input.json'), 'utf8')),
    expected: readSafetensors(new Uint8Array(readFileSync(join(dir, 'expected.safetensors')))),
  };
}
