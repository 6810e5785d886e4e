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
//
// Streaming conversion (issue #34): given a StreamLoad (cpp/bindings/models.cpp openStream, for the
// families whose tensors follow models/layers/streamed_checkpoint.h's naming rule), the safetensors
// layouts never reach the heap whole: each chunk is copied into one 4 MiB staging buffer and
// converted there into the weights the model keeps, a block of rows at a time. readCheckpoint then
// returns [] (the StreamLoad holds the weights) and reports the conversion as
// onProgress({ stage: 'convert', file, loaded, total, convertedBytes }) after each chunk. pytorch_model.bin layouts keep
// the whole-file path.
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

export function reporter(onProgress, file) {
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
      mod.HEAPU8.set(chunk, (buffer.address() >>> 0) + used); // HEAPU8 re-read: the heap may have grown
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

export function converting(onProgress, file, stream) {
  if (onProgress === undefined || onProgress === null) return () => {};
  return (loaded, total) => onProgress({ stage: 'convert', file, loaded, total, convertedBytes: stream.convertedBytes() });
}

/**
 * A sink (sources.js) that feeds one safetensors (or GGUF, web/io/gguf.js) file through `stream` (a StreamLoad): each chunk goes
 * through the heap buffer `staging` and is converted before the next one is read — but the float32 tensors bound for
 * a GPU weight sink (webgpu/weight-sink.js, WebGPU fp32 / fp16 loads), which go from the chunk to the GPU as they are
 * (stream.writeDirect): XLM-R's 1.1 GB never enters the heap nor is copied there on the way.
 */
export function streamSafetensors(mod, stream, staging, name, report, reportConvert) {
  let used = 0;
  let total = null;
  const room = staging.size();
  return {
    start(size) {
      total = size ?? null;
      unwrap(stream.beginFile(name, total ?? -1));
      report(0, total);
    },
    write(chunk) {
      for (let at = 0; at < chunk.length; ) {
        const direct = Math.min(stream.directBytes(), chunk.length - at) & ~3; // whole floats; < 4 left: the heap's
        if (direct > 0) {
          unwrap(stream.writeDirect(chunk.subarray(at, at + direct)));
          at += direct;
          continue;
        }
        const before = stream.bytesBeforeDirect(); // through the heap up to the next direct byte (0: a split float)
        const n = Math.min(room, chunk.length - at, before > 0 ? before : chunk.length - at);
        const address = staging.address() >>> 0;
        mod.HEAPU8.set(chunk.subarray(at, at + n), address); // HEAPU8 re-read: conversion may have grown the heap
        unwrap(stream.write(address, n));
        at += n;
      }
      used += chunk.length;
      report(used, total);
      reportConvert(used, total);
    },
  };
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
export async function readCheckpoint(mod, src, onProgress, variant = null, stream = null) {
  const files = [];
  const free = () => files.forEach((f) => f.buffer.delete());
  let staging = null;
  const converter = (name) => {
    staging ??= unwrap(mod.allocateBytes(CHUNK_BYTES));
    return streamSafetensors(mod, stream, staging, name, reporter(onProgress, name), converting(onProgress, name, stream));
  };
  try {
    for (const layout of WEIGHT_LAYOUTS) {
      const streams = stream !== null && (layout.file ?? layout.index).startsWith('model.safetensors');
      if (layout.file && streams) {
        const file = withVariant(layout.file, variant);
        if (!(await src.bytes(file, converter(file)))) continue;
        unwrap(stream.endFile());
        return files;
      }
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
      if (streams) {
        const shards = shardNames(src, index, text);
        unwrap(stream.setIndex(layout.index, text));
        for (const shard of shards) {
          if (!(await src.bytes(shard, converter(shard)))) throw new Error(`${shard}: not found at ${src.where(shard)} (a shard named by ${index})`);
          unwrap(stream.endFile());
        }
        return files;
      }
      const bytes = new TextEncoder().encode(text);
      const indexBuffer = unwrap(mod.allocateBytes(bytes.length));
      mod.HEAPU8.set(bytes, indexBuffer.address() >>> 0);
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
  } finally {
    staging?.delete();
  }
  const tried = WEIGHT_LAYOUTS.map((l) => {
    const name = withVariant(l.file ?? l.index, variant);
    return `${l.file ? name : `${name} + shards`} (${src.where(name)})`;
  });
  const present = typeof src.list === 'function' ? await weightFilesIn(src) : '';
  throw new Error(`no weights found${variant ? ` for variant '${variant}'` : ''}: tried, in order, ${tried.join(', ')}${present}`);
}

/**
 * For the "no weights found" Error of a folder or a map of files: the weight-like files it does hold
 * (*.safetensors, *.bin, *.index.json and their variants) and, when one is a layout under another
 * variant, the option that loads it — e.g. "; it holds model.fp16.safetensors (load it with
 * { variant: 'fp16' })". '' when it holds none.
 */
async function weightFilesIn(src) {
  const names = (await src.list()).filter((n) => /\.(safetensors|bin)$|\.index(\.[A-Za-z0-9_-]+)?\.json$/.test(n)).sort();
  if (names.length === 0) return '';
  const hint = (name) => {
    for (const l of WEIGHT_LAYOUTS) {
      const plain = l.file ?? l.index;
      if (name === plain) return ' (load it without variant)';
      const cut = plain.lastIndexOf('.');
      const base = plain.slice(0, cut), ext = plain.slice(cut + 1);
      if (name.startsWith(base + '.') && name.endsWith('.' + ext)) {
        const v = name.slice(base.length + 1, name.length - ext.length - 1);
        if (/^[A-Za-z0-9_-]+$/.test(v)) return ` (load it with { variant: '${v}' })`;
      }
    }
    return '';
  };
  const shown = names.slice(0, 12).map((n) => n + hint(n));
  return `; it holds ${shown.join(', ')}${names.length > 12 ? ` and ${names.length - 12} more` : ''}`;
}
