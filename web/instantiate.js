// Instantiates a .wasm for an Emscripten glue's `instantiateWasm` hook, the same way everywhere
// (web/loader.js for the inference builds, web/lab-worker.js for the lab module):
//   Node:       the bytes are read from disk (file: URL or path), or fetched for http(s) URLs
//   elsewhere:  WebAssembly.instantiateStreaming(fetch(url)), falling back to bytes when the server
//               sends the wrong MIME type

export const isNode = typeof process === 'object' && process !== null && typeof process.versions?.node === 'string';

async function nodeReadBytes(location) {
  // Non-literal specifiers keep bundlers targeting the web from resolving Node built-ins.
  const fsName = 'node:fs/promises';
  const urlName = 'node:url';
  const fs = await import(/* webpackIgnore: true */ /* @vite-ignore */ fsName);
  const { fileURLToPath } = await import(/* webpackIgnore: true */ /* @vite-ignore */ urlName);
  const text = String(location);
  const path = text.startsWith('file:') ? fileURLToPath(text) : text;
  return fs.readFile(path);
}

/** WebAssembly.instantiate of the .wasm at `location` (URL or path) with `imports`: { instance, module }. */
export async function instantiate(location, imports) {
  const text = String(location);
  const remote = /^(https?|blob|data):/i.test(text);
  if (isNode && !remote) return WebAssembly.instantiate(await nodeReadBytes(location), imports);
  if (typeof WebAssembly.instantiateStreaming === 'function') {
    try {
      return await WebAssembly.instantiateStreaming(fetch(text, { credentials: 'same-origin' }), imports);
    } catch (e) {
      if (!(e instanceof TypeError)) throw e; // a TypeError here is usually a non-application/wasm MIME type
    }
  }
  const response = await fetch(text, { credentials: 'same-origin' });
  if (!response.ok) throw new Error(`relpos: failed to fetch ${text}: HTTP ${response.status}`);
  return WebAssembly.instantiate(await response.arrayBuffer(), imports);
}
