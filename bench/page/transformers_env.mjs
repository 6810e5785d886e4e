// Page side of the Chromium peer benches (served at /page/ by bench/lib/chromium_page.mjs's server; the harnesses'
// page functions `await import('/page/transformers_env.mjs')`): Transformers.js from /tjs/, set up to read models
// only from the server's /models/ (no Hugging Face Hub, no browser cache) and to start onnxruntime-web's
// SIMD-threaded asyncify wasm from /ort/ (its default is jsDelivr).

/** Transformers.js's module, its env set; `threads` (when given) is onnxruntime-web's wasm thread count. */
export async function loadTransformers({ threads } = {}) {
  const T = await import('/tjs/transformers.js');
  T.env.allowRemoteModels = false;
  T.env.allowLocalModels = true;
  T.env.localModelPath = '/models/';
  T.env.useBrowserCache = false;
  T.env.backends.onnx.wasm.wasmPaths = { mjs: new URL('/ort/ort-wasm-simd-threaded.asyncify.mjs', location.href).href, wasm: new URL('/ort/ort-wasm-simd-threaded.asyncify.wasm', location.href).href };
  if (threads !== undefined) T.env.backends.onnx.wasm.numThreads = threads;
  return T;
}
