// Where a model's files come from: one reader { where(name), text(name), bytes(name, sink) } over
// every kind of source. text() resolves to null and bytes() to false when a file is absent (a 404, a
// missing path or map entry), so callers can try optional files and alternative layouts; any other
// failure is an Error naming the file and where it was looked for.
//   - a URL prefix (http(s); relative URLs resolve against the page)
//   - under Node, a folder path or file: URL
//   - a map { 'config.json': File | Blob | ArrayBuffer | Uint8Array | string | object, … }
// bytes(name, sink) streams: sink.start(totalBytesOrNull), then sink.write(chunk) per chunk.
import { describe } from './validation.js';

const isNode = typeof process === 'object' && process !== null && typeof process.versions?.node === 'string';
export const CHUNK_BYTES = 4 << 20;

async function nodeModules() {
  // Non-literal specifiers keep bundlers targeting the web from resolving Node built-ins.
  const fsName = 'node:fs/promises';
  const urlName = 'node:url';
  const pathName = 'node:path';
  const fs = await import(/* webpackIgnore: true */ /* @vite-ignore */ fsName);
  const { fileURLToPath } = await import(/* webpackIgnore: true */ /* @vite-ignore */ urlName);
  const path = await import(/* webpackIgnore: true */ /* @vite-ignore */ pathName);
  return { fs, fileURLToPath, path };
}

function isBlob(v) {
  return typeof Blob !== 'undefined' && v instanceof Blob;
}

/** A uniform reader over the three kinds of source: { describe, text(name), bytes(name, sink) }. */
export async function openSource(source) {
  if (source instanceof URL) source = source.href;
  if (typeof source === 'string') {
    if (source === '') throw new TypeError('loadModel: source: expected a URL prefix, a folder path or a map of files, got ""');
    const remote = /^(https?|data|blob):/i.test(source);
    if (isNode && !remote) return fileSource(source, await nodeModules());
    return urlSource(source);
  }
  if (source && typeof source === 'object' && !Array.isArray(source) && !ArrayBuffer.isView(source)) {
    const files = source.files && typeof source.files === 'object' && !isBlob(source.files) ? source.files : source;
    return mapSource(files);
  }
  throw new TypeError(`loadModel: source: expected a URL prefix, a folder path or a map { 'config.json': File, … }, got ${describe(source)}`);
}

function fileSource(folder, { fs, fileURLToPath, path }) {
  const dir = folder.startsWith('file:') ? fileURLToPath(folder) : folder;
  const where = (name) => path.join(dir, name);
  const missing = (e) => e && (e.code === 'ENOENT' || e.code === 'ENOTDIR');
  return {
    where,
    async text(name) {
      try {
        return await fs.readFile(where(name), 'utf8');
      } catch (e) {
        if (missing(e)) return null;
        throw new Error(`${name}: could not read ${where(name)}: ${e.message}`, { cause: e });
      }
    },
    async bytes(name, sink) {
      let fh;
      try {
        fh = await fs.open(where(name), 'r');
      } catch (e) {
        if (missing(e)) return false;
        throw new Error(`${name}: could not open ${where(name)}: ${e.message}`, { cause: e });
      }
      try {
        const { size } = await fh.stat();
        sink.start(size);
        const chunk = new Uint8Array(Math.min(CHUNK_BYTES, Math.max(size, 1)));
        for (let at = 0; ; ) {
          const { bytesRead } = await fh.read(chunk, 0, chunk.length, at);
          if (bytesRead === 0) break;
          sink.write(chunk.subarray(0, bytesRead));
          at += bytesRead;
        }
      } finally {
        await fh.close();
      }
      return true;
    },
  };
}

function urlSource(prefix) {
  const base = prefix.endsWith('/') ? prefix : prefix + '/';
  const here = typeof location === 'object' && location ? location.href : undefined;
  const where = (name) => new URL(base + name, here).href;
  async function get(name) {
    let response;
    try {
      response = await fetch(where(name), { credentials: 'same-origin' });
    } catch (e) {
      throw new Error(`${name}: could not fetch ${where(name)}: ${e.message}`, { cause: e });
    }
    if (response.status === 404) return null;
    if (!response.ok) throw new Error(`${name}: could not fetch ${where(name)}: HTTP ${response.status}`);
    return response;
  }
  return {
    where,
    async text(name) {
      const r = await get(name);
      return r ? r.text() : null;
    },
    async bytes(name, sink) {
      const r = await get(name);
      if (!r) return false;
      // Content-Length is the encoded size when the server compresses: only trust it without one.
      const encoding = r.headers.get('content-encoding');
      const length = Number(r.headers.get('content-length'));
      sink.start(!encoding || encoding === 'identity' ? (Number.isFinite(length) && length > 0 ? length : null) : null);
      if (!r.body || typeof r.body.getReader !== 'function') {
        sink.write(new Uint8Array(await r.arrayBuffer()));
        return true;
      }
      const reader = r.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        sink.write(value);
      }
      return true;
    },
  };
}

function mapSource(files) {
  const entry = (name) => (Object.prototype.hasOwnProperty.call(files, name) ? files[name] : undefined);
  const bad = (name, v) =>
    new TypeError(`loadModel: files['${name}']: expected a File, Blob, ArrayBuffer or Uint8Array, got ${describe(v)}`);
  return {
    where: (name) => name,
    async text(name) {
      const v = entry(name);
      if (v === undefined || v === null) return null;
      if (typeof v === 'string') return v;
      if (isBlob(v)) return v.text();
      if (v instanceof ArrayBuffer) return new TextDecoder().decode(v);
      if (ArrayBuffer.isView(v)) return new TextDecoder().decode(new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
      if (typeof v === 'object') return JSON.stringify(v); // an already-parsed JSON file
      throw bad(name, v);
    },
    async bytes(name, sink) {
      const v = entry(name);
      if (v === undefined || v === null) return false;
      if (isBlob(v)) {
        sink.start(v.size);
        if (typeof v.stream === 'function') {
          const reader = v.stream().getReader();
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            sink.write(value);
          }
        } else {
          sink.write(new Uint8Array(await v.arrayBuffer()));
        }
        return true;
      }
      let bytes;
      if (v instanceof ArrayBuffer) bytes = new Uint8Array(v);
      else if (ArrayBuffer.isView(v)) bytes = new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
      else throw bad(name, v);
      sink.start(bytes.length);
      for (let at = 0; at < bytes.length; at += CHUNK_BYTES) sink.write(bytes.subarray(at, at + CHUNK_BYTES));
      if (bytes.length === 0) sink.write(bytes);
      return true;
    },
  };
}
