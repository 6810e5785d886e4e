// Hostile GGUF files made from a fixture (bert-absolute's Q8_0 file of ../shared/fixtures/gguf), for
// gguf.test.mjs and the robustness table (scripts/robustness-table.mjs): each edits the real file in one place.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { ROOT } from './helpers.mjs';

export const GGUF_DIR = join(ROOT, '..', 'shared', 'fixtures', 'gguf');
export const haveGguf = existsSync(join(GGUF_DIR, 'bert-absolute', 'model-q8_0.gguf'));
export const ggufBytes = (c = 'bert-absolute', type = 'q8_0') => new Uint8Array(readFileSync(join(GGUF_DIR, c, `model-${type}.gguf`)));

const text = new TextEncoder();
/** Byte offset just after the GGUF string `s` (its u64 length and bytes) in `b`. */
function after(b, s) {
  const want = text.encode(s);
  outer: for (let i = 8; i + want.length <= b.length; ++i) {
    for (let k = 0; k < want.length; ++k) if (b[i + k] !== want[k]) continue outer;
    if (new DataView(b.buffer, b.byteOffset).getBigUint64(i - 8, true) === BigInt(want.length)) return i + want.length;
  }
  throw new Error(`gguf-bad-inputs: '${s}' not found`);
}

/** The file's first `n` bytes. */
export const truncated = (n) => ggufBytes().slice(0, n);
/** The header and the first 4096 bytes of data: the later tensors run past the end. */
export function dataCut() {
  const b = ggufBytes();
  return b.slice(0, after(b, 'blk.1.ffn_down.weight') + 4096);
}
/** token_embd.weight's ggml type set to 99. */
export function unknownType() {
  const b = ggufBytes();
  const at = after(b, 'token_embd.weight');
  const dims = new DataView(b.buffer).getUint32(at, true);
  new DataView(b.buffer).setUint32(at + 4 + 8 * dims, 99, true);
  return b;
}
/** general.architecture 'bert' → 'gptj'. */
export function otherArchitecture() {
  const b = ggufBytes();
  const at = after(b, 'general.architecture') + 4 + 8; // value type, string length
  b.set(text.encode('gptj'), at);
  return b;
}
/** token_embd.weight with 99 rows while tokenizer.ggml.tokens lists 100. */
export function vocabMismatch() {
  const b = ggufBytes();
  const at = after(b, 'token_embd.weight');
  new DataView(b.buffer).setBigUint64(at + 4 + 8, 99n, true);
  return b;
}
/** The metadata count set to 2^40. */
export function hugeMetadataCount() {
  const b = ggufBytes();
  new DataView(b.buffer).setBigUint64(16, 2n ** 40n, true);
  return b;
}
/** bert.block_count set to 2^31 − 1 (the file has 2 blocks): found by fuzz_gguf, which built a 40 GB per-layer list from it. */
export function hugeBlockCount() {
  const b = ggufBytes();
  const at = after(b, 'bert.block_count');
  const view = new DataView(b.buffer);
  if (view.getUint32(at, true) !== 4) throw new Error('gguf-bad-inputs: bert.block_count is not a u32');
  view.setUint32(at + 4, 2 ** 31 - 1, true);
  return b;
}
