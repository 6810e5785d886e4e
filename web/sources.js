// Where a model's files come from: one reader { where(name), text(name), bytes(name, sink) } over
// every kind of source. text() resolves to null and bytes() to false when a file is absent (a 404, a
// missing path or map entry), so callers can try optional files and alternative layouts; any other
// failure is an Error naming the file and where it was looked for (for HTTP: the URL and the status).
//   - a Hugging Face Hub id ('owner/name', 'hf:name'; the rule is in hub.js), read from
//     {host}/{id}/resolve/{revision}/{file}
//   - a URL prefix (http(s); relative URLs resolve against the page)
//   - under Node, a folder path or file: URL
//   - a map { 'config.json': File | Blob | ArrayBuffer | Uint8Array | string | object, … }
// bytes(name, sink) streams: sink.start(totalBytesOrNull), then sink.write(chunk) per chunk.
// Folders and maps also have list() → the file names they hold (for "no weights found" messages);
// HTTP sources cannot list.
// HTTP redirects are followed (the Hub answers 302 for large files, to its CDN). In browsers, Hub
// files (and URL-prefix files with { cache: true }) go through the Cache API (cache.js).
import { describe } from './validation.js';
import { forcesHub, hasHubPrefix, hubHint, hubRepo, isHubIdShape } from './hub.js';
import { openFileCache } from './cache.js';

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

async function isFolder(fs, path) {
  try {
    return (await fs.stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * What a string source is: 'hub', 'url' or 'folder' (the rule in hub.js). `node` is null in
 * browsers, else the Node modules (to look for an existing folder).
 */
export async function sourceKind(source, options = {}, node = null) {
  if (hasHubPrefix(source) || forcesHub(options)) return 'hub';
  if (/^(https?|data|blob):/i.test(source)) return 'url';
  if (isHubIdShape(source) && !(node && (await isFolder(node.fs, source)))) return 'hub';
  return node ? 'folder' : 'url';
}

/**
 * A uniform reader over every kind of source: { where, text(name), bytes(name, sink), progress }.
 * options: { host, revision, cache } (LoadModelOptions). `progress(onProgress)` wraps a progress
 * callback so that each event says whether its file came from the cache ({ cached }).
 */
export async function openSource(source, options = {}) {
  const { cache } = options;
  if (cache !== undefined && typeof cache !== 'boolean') throw new TypeError(`loadModel: cache: expected true or false, got ${describe(cache)}`);
  if (source instanceof URL) source = source.href;
  if (typeof source === 'string') {
    if (source === '') throw new TypeError('loadModel: source: expected a Hub id, a URL prefix, a folder path or a map of files, got ""');
    const node = isNode && !/^(https?|data|blob):/i.test(source) ? await nodeModules() : null;
    const kind = await sourceKind(source, options, node);
    if (kind === 'hub') {
      const repo = hubRepo(source, options);
      return httpSource({ where: repo.url, hint: hubHint, cache: cache ?? true });
    }
    if (kind === 'folder') return withProgress(fileSource(source, node));
    return httpSource({ where: prefixUrl(source), hint: () => '', cache: cache ?? false });
  }
  if (forcesHub(options))
    throw new TypeError(`loadModel: host and revision apply only to Hub ids (a string such as 'owner/name'), got ${describe(source)}`);
  if (source && typeof source === 'object' && !Array.isArray(source) && !ArrayBuffer.isView(source)) {
    const files = source.files && typeof source.files === 'object' && !isBlob(source.files) ? source.files : source;
    return withProgress(mapSource(files));
  }
  throw new TypeError(`loadModel: source: expected a Hub id, a URL prefix, a folder path or a map { 'config.json': File, … }, got ${describe(source)}`);
}

/** Adds progress(onProgress): events of this reader's files carry { cached } (true for cache hits). */
function withProgress(reader, cachedFiles = new Set()) {
  reader.progress = (onProgress) =>
    onProgress === undefined || onProgress === null ? onProgress : (p) => onProgress({ ...p, cached: cachedFiles.has(p.file) });
  return reader;
}

function fileSource(folder, { fs, fileURLToPath, path }) {
  const dir = folder.startsWith('file:') ? fileURLToPath(folder) : folder;
  const where = (name) => path.join(dir, name);
  const missing = (e) => e && (e.code === 'ENOENT' || e.code === 'ENOTDIR');
  return {
    where,
    async list() {
      try {
        return await fs.readdir(dir);
      } catch {
        return [];
      }
    },
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
        // Two chunks: the next is read (on libuv's threads) while the sink takes the current one. With the float32
        // tensors of a WebGPU load going from the chunk straight to the GPU, waiting for the read had become a quarter
        // of the load (bench/results/loads/README.md, direct bytes).
        const chunks = [0, 1].map(() => new Uint8Array(Math.min(CHUNK_BYTES, Math.max(size, 1))));
        let i = 0;
        let at = 0;
        let next = fh.read(chunks[0], 0, chunks[0].length, 0);
        try {
          for (;;) {
            const { bytesRead } = await next;
            if (bytesRead === 0) break;
            const chunk = chunks[i];
            at += bytesRead;
            i ^= 1;
            next = fh.read(chunks[i], 0, chunks[i].length, at);
            sink.write(chunk.subarray(0, bytesRead));
          }
        } finally {
          next.catch(() => {}); // a read still in flight when the sink threw: close() waits for it
        }
      } finally {
        await fh.close();
      }
      return true;
    },
  };
}

function prefixUrl(prefix) {
  const base = prefix.endsWith('/') ? prefix : prefix + '/';
  const here = typeof location === 'object' && location ? location.href : undefined;
  return (name) => new URL(base + name, here).href;
}

/** Files over HTTP(S): a URL prefix or a Hub repository. `where(name)` is the file's URL. */
function httpSource({ where, hint, cache }) {
  const cachedFiles = new Set();
  let store = null;
  // A 404 is remembered only once another file of this source was found (so the folder or repository
  // exists): a missing repository or a typo is not recorded, only an absent file of a real one.
  let found = false;
  const fileCache = () => (store ??= cache ? openFileCache() : Promise.resolve(null));

  /** → null (absent) or { response, done(bytesSeen), abort() } */
  async function get(name) {
    const url = where(name);
    const files = await fileCache();
    const hit = files ? await files.match(url) : null;
    if (hit?.absent) return null;
    if (hit) {
      found = true;
      cachedFiles.add(name);
      return { response: hit.response, done: async () => {}, abort: () => {} };
    }
    const controller = typeof AbortController === 'function' ? new AbortController() : null;
    let response;
    try {
      response = await fetch(url, { credentials: 'same-origin', redirect: 'follow', signal: controller?.signal });
    } catch (e) {
      const cause = e?.cause?.message ?? e?.cause?.code;
      throw new Error(`${name}: could not fetch ${url}: ${e.message}${cause ? ` (${cause})` : ''}`, { cause: e });
    }
    const via = response.redirected && response.url && response.url !== url ? ` (redirected to ${response.url})` : '';
    if (response.status === 404) {
      if (files && found) await files.putAbsent(url);
      return null;
    }
    if (!response.ok) throw new Error(`${name}: could not fetch ${url}: HTTP ${response.status}${via}${hint(response.status)}`);
    found = true;
    const stored = files ? files.store(url, response) : { response, settled: async () => {} };
    return { response: stored.response, done: stored.settled, abort: () => controller?.abort() };
  }

  /**
   * Reads the whole body, chunk by chunk, into write(chunk). On any error the download is aborted
   * (so the cache's branch fails too and no entry is committed); a body shorter or longer than its
   * Content-Length is an Error.
   */
  async function drain(name, got, write) {
    const r = got.response;
    const encoding = r.headers.get('content-encoding');
    const declared = !encoding || encoding === 'identity' ? r.headers.get('content-length') : null;
    let seen = 0;
    const reader = r.body && typeof r.body.getReader === 'function' ? r.body.getReader() : null;
    try {
      if (!reader) {
        const all = new Uint8Array(await readOrFail(name, seen, () => r.arrayBuffer()));
        seen = all.length;
        write(all);
      } else {
        for (;;) {
          const { done, value } = await readOrFail(name, seen, () => reader.read());
          if (done) break;
          seen += value.length;
          write(value);
        }
      }
    } catch (e) {
      reader?.cancel().catch(() => {});
      got.abort();
      throw e;
    }
    await got.done(seen);
    if (declared !== null && declared !== '' && Number(declared) !== seen)
      throw new Error(`${name}: the download of ${where(name)} ended after ${seen} bytes, but the server announced ${declared}`);
    return seen;
  }

  async function readOrFail(name, seen, read) {
    try {
      return await read();
    } catch (e) {
      throw new Error(`${name}: the download of ${where(name)} failed after ${seen} bytes: ${e.message}`, { cause: e });
    }
  }

  return withProgress(
    {
      where,
      async text(name) {
        const got = await get(name);
        if (!got) return null;
        const parts = [];
        await drain(name, got, (chunk) => parts.push(chunk.slice()));
        return new TextDecoder().decode(concat(parts));
      },
      async bytes(name, sink) {
        const got = await get(name);
        if (!got) return false;
        const r = got.response;
        // Content-Length is the encoded size when the server compresses: only trust it without one.
        const encoding = r.headers.get('content-encoding');
        const length = Number(r.headers.get('content-length'));
        try {
          sink.start(!encoding || encoding === 'identity' ? (Number.isFinite(length) && length > 0 ? length : null) : null);
        } catch (e) {
          got.abort();
          throw e;
        }
        await drain(name, got, (chunk) => sink.write(chunk));
        return true;
      },
    },
    cachedFiles,
  );
}

function concat(parts) {
  if (parts.length === 1) return parts[0];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function mapSource(files) {
  const entry = (name) => (Object.prototype.hasOwnProperty.call(files, name) ? files[name] : undefined);
  const bad = (name, v) =>
    new TypeError(`loadModel: files['${name}']: expected a File, Blob, ArrayBuffer or Uint8Array, got ${describe(v)}`);
  return {
    where: (name) => name,
    async list() {
      return Object.keys(files).filter((name) => files[name] !== undefined && files[name] !== null);
    },
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
