// Node only: a Web Worker on top of node:worker_threads, for the threads build's Emscripten glue,
// which is built for the web (ENVIRONMENT=web,worker) and starts its pthreads with
// `new Worker(new URL('relpos-simd-threads.worker.js', import.meta.url))`. loader.js installs it as
// globalThis.Worker while the module loads. Each worker gets the browser globals the worker file uses
// (self, location, postMessage, onmessage, importScripts), then runs the file as a classic script; the
// glue's own dynamic import() of relpos-simd-threads.js works as is.
// Workers keep the process alive only while they load: loader.js calls releaseNodeWorkers() once the
// module is ready (pthreads only run inside a synchronous call, so they never need the event loop).
//
// Workers inherit the process's Node options (no execArgv is passed: Node refuses V8 flags such as
// --max-old-space-size or --stack-size given that way, and accepts them inherited). The bootstrap below
// therefore runs as CommonJS or as an ES module alike (`node --input-type=module` makes eval'd workers
// ES modules): it reaches Node's modules through import(), never require.

const BOOTSTRAP = `
(async () => {
  const [{ parentPort, workerData }, fs, url] = await Promise.all(['node:worker_threads', 'node:fs', 'node:url'].map((m) => import(m)));
  globalThis.self = globalThis;
  globalThis.location = { href: workerData.href };
  globalThis.postMessage = (message) => parentPort.postMessage(message);
  globalThis.importScripts = () => { throw new Error('importScripts is not supported here'); };
  // The worker file imports its glue by a path relative to itself ('./x.js' beside 'x.worker.js'),
  // which an eval'd worker would resolve against the working directory: name it absolutely.
  const glue = workerData.href.replace(/\\.worker\\.js$/, '.js');
  parentPort.on('message', (data) => {
    if (data && data.cmd === 'load' && !data.urlOrBlob) data.urlOrBlob = glue;
    if (globalThis.onmessage) globalThis.onmessage({ data });
  });
  // a classic script at global scope (indirect eval keeps the file's own dynamic import() of its glue working)
  (0, eval)(fs.readFileSync(url.fileURLToPath(workerData.href), 'utf8'));
})();
`;

const started = new Set();

/** unref()s every Worker started so far, so that they never keep the process alive. */
export function releaseNodeWorkers() {
  for (const w of started) w.unref();
  started.clear();
}

/** Terminates every Worker started since the last release (a threads build that could not start). */
export function terminateNodeWorkers() {
  for (const w of started) w.terminate();
  started.clear();
}

/**
 * The Worker class. onFail(error) is told when a Worker cannot be created, fails or exits (the glue
 * would otherwise wait for it forever, or rethrow its error as an uncaught exception).
 */
export async function nodeWorkerClass(onFail = () => {}) {
  const name = 'node:worker_threads'; // non-literal: bundlers targeting the web must not resolve it
  const { Worker: NodeWorker } = await import(/* webpackIgnore: true */ /* @vite-ignore */ name);
  return class Worker {
    constructor(href) {
      this.onmessage = null;
      this.onerror = null;
      try {
        this.worker = new NodeWorker(BOOTSTRAP, { eval: true, workerData: { href: String(href) } });
      } catch (e) {
        onFail(e);
        throw e;
      }
      this.worker.on('message', (data) => this.onmessage && this.onmessage({ data }));
      this.worker.on('error', (error) => {
        onFail(error);
        try {
          if (this.onerror) this.onerror(error); // Emscripten's handler logs, then rethrows
        } catch {
          // reported through onFail
        }
      });
      this.worker.on('exit', (code) => onFail(new Error(`a Worker exited with code ${code}`)));
      started.add(this.worker);
    }
    postMessage(message, transfer) {
      this.worker.postMessage(message, transfer);
    }
    addEventListener(type, listener) {
      this.worker.on(type === 'message' ? 'message' : type, (data) => listener(type === 'message' ? { data } : data));
    }
    terminate() {
      this.worker.terminate();
    }
  };
}
