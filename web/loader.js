// Finds, fetches and instantiates one of the three builds (relpos-simd / relpos-scalar /
// relpos-simd-threads, whose glue also starts its Workers from relpos-simd-threads.worker.js).
//
// The Emscripten glue (dist/relpos-*.js) is an ES module factory built for web and worker only; we
// always instantiate the .wasm ourselves through its `instantiateWasm` hook (instantiate.js:
// bytes from disk under Node, instantiateStreaming(fetch(url)) elsewhere).
// Bundlers see the literal `new URL('./dist/relpos-*.wasm', import.meta.url)` and emit the files.

import { instantiate, isNode } from './instantiate.js';

// (module (func (result v128) i32.const 0 i8x16.splat i8x16.popcnt)) — validates only with SIMD128.
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11,
]);

// (module (func try catch_all end)) — validates only with exception handling (the legacy proposal
// Emscripten 3.1.6's -fwasm-exceptions emits: Chrome 95, Firefox 100, Safari 15.2, Node 17).
const EH_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 4, 1, 96, 0, 0, 3, 2, 1, 0, 10, 8, 1, 6, 0, 6, 64, 25, 11, 11,
]);

/**
 * True when this engine can run the SIMD build: WebAssembly SIMD128 and exception handling (the SIMD
 * build uses native wasm exceptions; the scalar build needs neither). Chrome 91–94 and Firefox 89–99
 * have SIMD128 without exceptions and get the scalar build.
 */
export function simdSupported() {
  try {
    return typeof WebAssembly === 'object' && WebAssembly.validate(SIMD_PROBE) && WebAssembly.validate(EH_PROBE);
  } catch {
    return false;
  }
}

/**
 * Error unless this engine has WebAssembly (`node --jitless`, a browser with WebAssembly turned off by policy,
 * iOS Lockdown Mode): said before any glue runs, the same every time, and the caller stays usable.
 */
export function requireWebAssembly(what) {
  if (typeof WebAssembly !== 'object' || WebAssembly === null || typeof WebAssembly.instantiate !== 'function')
    throw new Error(
      `${what}: WebAssembly is unavailable in this JavaScript engine (Node started with --jitless, or a browser with WebAssembly disabled); relpos needs it`,
    );
}

/** The names InitOptions has (index.d.ts): init's, and pipeline(task, source, options)'s runtime options. */
export const INIT_OPTIONS = Object.freeze(['simd', 'wasmPaths', 'threads']);

export const WASM_FILES = Object.freeze({
  simd: 'relpos-simd.wasm',
  scalar: 'relpos-scalar.wasm',
  'simd-threads': 'relpos-simd-threads.wasm',
});

function defaultWasmUrl(variant) {
  // Literal URLs so bundlers (webpack 5, Vite, Rollup, esbuild) pick the assets up.
  if (variant === 'simd-threads') return new URL('./dist/relpos-simd-threads.wasm', import.meta.url);
  return variant === 'simd'
    ? new URL('./dist/relpos-simd.wasm', import.meta.url)
    : new URL('./dist/relpos-scalar.wasm', import.meta.url);
}

function importFactory(variant) {
  // The threads glue itself names its worker file literally: new URL('relpos-simd-threads.worker.js', import.meta.url).
  if (variant === 'simd-threads') return import('./dist/relpos-simd-threads.js');
  return variant === 'simd' ? import('./dist/relpos-simd.js') : import('./dist/relpos-scalar.js');
}

/**
 * Where the .wasm of `variant` lives, honouring wasmPaths like tfjs's setWasmPaths:
 * a prefix string ('https://cdn.example.com/relpos/' or a directory) or a map from file name to URL.
 */
export function resolveWasmLocation(variant, wasmPaths) {
  const file = WASM_FILES[variant];
  if (wasmPaths === undefined || wasmPaths === null) return defaultWasmUrl(variant);
  if (typeof wasmPaths === 'string' || wasmPaths instanceof URL) {
    const prefix = String(wasmPaths);
    return prefix + (prefix === '' || prefix.endsWith('/') ? '' : '/') + file;
  }
  if (typeof wasmPaths === 'object') {
    const entry = wasmPaths[file];
    if (entry === undefined) return defaultWasmUrl(variant);
    if (typeof entry !== 'string' && !(entry instanceof URL))
      throw new TypeError(`init: wasmPaths['${file}']: expected a URL string, got ${typeof entry}`);
    return entry;
  }
  throw new TypeError(`init: wasmPaths: expected a prefix string or an object mapping file names to URLs, got ${typeof wasmPaths}`);
}

/**
 * Loads and instantiates one build; resolves to the Emscripten module object. `workers`: for the
 * threads build, how many Workers its glue creates at start-up (threads − 1).
 */
export async function loadModule(variant, wasmPaths, workers = 0) {
  const location = resolveWasmLocation(variant, wasmPaths);
  let fail;
  const failed = new Promise((_, reject) => {
    fail = reject;
  });
  failed.catch(() => {}); // raced below; a failure after the load (a Worker exiting with the process) goes nowhere
  let loaded = false;
  let releaseWorkers = () => {};
  let restoreWorker = () => {};
  let cleanUp = () => {};
  // A Worker that cannot start ends the load with an Error marked workerStart (init then falls back to
  // one thread, docs/runtime.md); its Emscripten log line is not printed.
  let workerFailure = null;
  const workerFailed = (e) => {
    if (workerFailure || loaded) return;
    workerFailure = Object.assign(new Error(`a Worker could not start: ${e?.message ?? e}`, { cause: e }), { workerStart: true });
    fail(workerFailure);
  };
  if (variant === 'simd-threads' && isNode) {
    // The glue starts all its Workers while the module loads. For that time it gets relpos's adapter,
    // even when another library has put a Node Worker on globalThis (onnxruntime-web's threaded glue
    // installs worker_threads.Worker, which lacks the browser globals the worker file needs); the
    // previous value is put back once the module is ready.
    const nodeWorkers = await import('./node-worker.js');
    const had = Object.prototype.hasOwnProperty.call(globalThis, 'Worker');
    const previous = globalThis.Worker;
    globalThis.Worker = await nodeWorkers.nodeWorkerClass(workerFailed);
    restoreWorker = () => {
      if (had) globalThis.Worker = previous;
      else delete globalThis.Worker;
    };
    releaseWorkers = nodeWorkers.releaseNodeWorkers;
    cleanUp = nodeWorkers.terminateNodeWorkers;
  }
  const { default: createRelposModule } = await importFactory(variant);
  let mod;
  try {
    let ready;
    try {
      ready = createRelposModule({
        instantiateWasm(imports, receiveInstance) {
          instantiate(location, imports).then(
            ({ instance, module }) => receiveInstance(instance, module),
            (e) => fail(new Error(`relpos: could not load ${variant} WebAssembly from ${location}: ${e.message}`, { cause: e })),
          );
          return {}; // asynchronous instantiation
        },
        print: (text) => console.log(text),
        // Node's main thread may block (Atomics.wait): Emscripten's warning about blocking on a browser's
        // main thread does not apply there (docs/runtime.md: Threads). A Worker's failure is reported by
        // init's threadsReason instead.
        printErr: (text) =>
          (isNode && /^Blocking on the main thread/.test(text)) || (workerFailure && /sent an error!/.test(text)) ? undefined : console.warn(text),
        relposWorkers: workers, // -sPTHREAD_POOL_SIZE=Module.relposWorkers (threads build only)
      });
    } catch (e) {
      // the glue creates its Workers synchronously: a Worker constructor that throws (a page's CSP, Node's
      // --permission without --allow-worker) ends here
      throw variant === 'simd-threads' ? workerFailure ?? Object.assign(new Error(`a Worker could not start: ${e.message}`, { cause: e }), { workerStart: true }) : e;
    }
    mod = await Promise.race([ready, failed]);
    loaded = true;
  } catch (e) {
    cleanUp();
    throw e;
  } finally {
    restoreWorker();
  }
  releaseWorkers();
  return mod;
}
