// Finding a checkpoint's weight files and streaming them into the WebAssembly heap.
//
//   const files = await readCheckpoint(mod, src, onProgress);   // [{ name, buffer: ByteBuffer }]
//   mod.loadModel(configText, files, options);                   // C++ parses them (checkpoint.h)
//
// Layouts, tried in this order (WEIGHT_LAYOUTS); the first one present is used:
//   1. model.safetensors
//   2. model.safetensors.index.json + the shards its weight_map names
//   3. pytorch_model.bin (torch.save zip format, PyTorch ≥ 1.6)
//   4. pytorch_model.bin.index.json + its shards
// With a variant (Hugging Face's `variant`, e.g. 'fp16') every name gets it before its last
// extension: model.fp16.safetensors, model.safetensors.index.fp16.json, pytorch_model.fp16.bin,
// pytorch_model.bin.index.fp16.json (the shards are whatever the index names).
// A file that is absent (the source returns null / false: a 404, a missing path or map entry) moves
// on to the next layout; any other failure is an Error naming the file and where it was looked for.
// Shards stream one at a time, each straight into its own heap buffer; onProgress({ file, loaded,
// total }) reports every file. On failure every buffer already filled is freed.
import { unwrap } from './positions.js';
import { describe, MAX_HEAP_BYTES } from './validation.js';
import { CHUNK_BYTES } from './sources.js';

export const WEIGHT_LAYOUTS = Object.freeze([
  Object.freeze({ file: 'model.safetensors' }),
  Object.freeze({ index: 'model.safetensors.index.json' }),
  Object.freeze({ file: 'pytorch_model.bin' }),
  Object.freeze({ index: 'pytorch_model.bin.index.json' }),
]);

/** Hugging Face's _add_variant: 'model.safetensors' + 'fp16' → 'model.fp16.safetensors'. */
export function withVariant(name, variant) {
  if (!variant) return name;
  const parts = name.split('.');
  parts.splice(parts.length - 1, 0, variant);
  return parts.join('.');
}

/** options.variant: null/undefined, or a plain name such as 'fp16' (letters, digits, '_', '-'). */
export function checkVariant(variant) {
  if (variant === undefined || variant === null) return null;
  if (typeof variant !== 'string') throw new TypeError(`loadModel: variant: expected a string such as 'fp16', got ${describe(variant)}`);
  if (!/^[A-Za-z0-9_-]+$/.test(variant)) throw new RangeError(`loadModel: variant: expected letters, digits, '_' or '-' (such as 'fp16'), got ${describe(variant)}`);
  return variant;
}

function reporter(onProgress, file) {
  if (onProgress === undefined || onProgress === null) return () => {};
  return (loaded, total) => onProgress({ file, loaded, total });
}

/**
 * Streams one file into a C++ ByteBuffer in the heap. Returns the buffer (caller deletes it) or null
 * when the file is absent.
 */
export async function streamFile(mod, src, name, report) {
  let buffer = null;
  let used = 0;
  let total = null;
  const sink = {
    start(size) {
      if (size !== null && size !== undefined && size > MAX_HEAP_BYTES)
        throw new RangeError(`${name}: the file has ${size} bytes, more than the WebAssembly memory limit of ${MAX_HEAP_BYTES} bytes`);
      total = size;
      buffer = unwrap(mod.allocateBytes(size ?? CHUNK_BYTES));
      report(0, total);
    },
    write(chunk) {
      if (used + chunk.length > MAX_HEAP_BYTES)
        throw new RangeError(`${name}: more than ${used} bytes so far, beyond the WebAssembly memory limit of ${MAX_HEAP_BYTES} bytes`);
      if (used + chunk.length > buffer.size()) unwrap(buffer.resize(Math.max(used + chunk.length, 2 * buffer.size())));
      mod.HEAPU8.set(chunk, buffer.address() + used); // HEAPU8 re-read: the heap may have grown
      used += chunk.length;
      report(used, total);
    },
  };
  try {
    if (!(await src.bytes(name, sink))) {
      if (buffer) buffer.delete();
      return null;
    }
    if (used !== buffer.size()) unwrap(buffer.resize(used));
    return buffer;
  } catch (e) {
    if (buffer) buffer.delete();
    throw e;
  }
}

/** The shard file names of an index, in first-use order; Errors name the index and where. */
function shardNames(src, index, text) {
  let value;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new Error(`${index}: not valid JSON (${src.where(index)}): ${e.message}`, { cause: e });
  }
  const map = value && typeof value === 'object' && !Array.isArray(value) ? value.weight_map : undefined;
  if (!map || typeof map !== 'object' || Array.isArray(map))
    throw new Error(`${index}: expected { "weight_map": { tensor: shard file } } (${src.where(index)})`);
  const names = [...new Set(Object.values(map))];
  for (const n of names)
    if (typeof n !== 'string' || n === '' || n === '.' || n.includes('/') || n.includes('\\') || n.includes('..'))
      throw new Error(`${index}: shard ${JSON.stringify(n)} must be a plain file name in the same folder (${src.where(index)})`);
  return names;
}

/**
 * Finds the first layout present and streams its files into the heap: [{ name, buffer }] (the
 * caller deletes every buffer). Throws when none is present, listing the layouts and where.
 */
export async function readCheckpoint(mod, src, onProgress, variant = null) {
  const files = [];
  const free = () => files.forEach((f) => f.buffer.delete());
  try {
    for (const layout of WEIGHT_LAYOUTS) {
      if (layout.file) {
        const file = withVariant(layout.file, variant);
        const buffer = await streamFile(mod, src, file, reporter(onProgress, file));
        if (!buffer) continue;
        files.push({ name: file, buffer });
        return files;
      }
      const index = withVariant(layout.index, variant);
      const text = await src.text(index);
      if (text === null) continue;
      reporter(onProgress, index)(text.length, text.length);
      const bytes = new TextEncoder().encode(text);
      const indexBuffer = unwrap(mod.allocateBytes(bytes.length));
      mod.HEAPU8.set(bytes, indexBuffer.address());
      // C++ recognises an index by its '.index.json' ending: a variant index goes under its plain name
      files.push({ name: layout.index, buffer: indexBuffer });
      for (const shard of shardNames(src, index, text)) {
        const buffer = await streamFile(mod, src, shard, reporter(onProgress, shard));
        if (!buffer) throw new Error(`${shard}: not found at ${src.where(shard)} (a shard named by ${index})`);
        files.push({ name: shard, buffer });
      }
      return files;
    }
  } catch (e) {
    free();
    throw e;
  }
  const tried = WEIGHT_LAYOUTS.map((l) => {
    const name = withVariant(l.file ?? l.index, variant);
    return `${l.file ? name : `${name} + shards`} (${src.where(name)})`;
  });
  throw new Error(`no weights found${variant ? ` for variant '${variant}'` : ''}: tried, in order, ${tried.join(', ')}`);
}
