// Node only: a Web Worker on top of node:worker_threads, for the threads build's Emscripten glue,
// which is built for the web (ENVIRONMENT=web,worker) and starts its pthreads with
// `new Worker(new URL('relpos-simd-threads.worker.js', import.meta.url))`. loader.js installs it as
// globalThis.Worker, only under Node and only when there is none. Each worker gets the browser
// globals the worker file uses (self, location, postMessage, onmessage, importScripts), then runs
// the file as a classic script; the glue's own dynamic import() of relpos-simd-threads.js works as is.
// Workers keep the process alive only while they load: loader.js calls releaseNodeWorkers() once the
// module is ready (pthreads only run inside a synchronous call, so they never need the event loop).

const BOOTSTRAP = `
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const url = require('node:url');
globalThis.self = globalThis;
globalThis.location = { href: workerData.href };
globalThis.postMessage = (message) => parentPort.postMessage(message);
globalThis.importScripts = () => { throw new Error('importScripts is not supported here'); };
// The worker file imports its glue by a path relative to itself ('./x.js' beside 'x.worker.js'),
// which an eval'd worker would resolve against the working directory: name it absolutely.
const glue = workerData.href.replace(/\.worker\.js$/, '.js');
parentPort.on('message', (data) => {
  if (data && data.cmd === 'load' && !data.urlOrBlob) data.urlOrBlob = glue;
  if (globalThis.onmessage) globalThis.onmessage({ data });
});
(0, eval)(fs.readFileSync(url.fileURLToPath(workerData.href), 'utf8'));
`;

const started = new Set();

/** unref()s every Worker started so far, so that they never keep the process alive. */
export function releaseNodeWorkers() {
  for (const w of started) w.unref();
  started.clear();
}

export async function nodeWorkerClass() {
  const name = 'node:worker_threads'; // non-literal: bundlers targeting the web must not resolve it
  const { Worker: NodeWorker } = await import(/* webpackIgnore: true */ /* @vite-ignore */ name);
  return class Worker {
    constructor(href) {
      this.onmessage = null;
      this.onerror = null;
      // The bootstrap is CommonJS: without --input-type (which workers inherit from the process's
      // execArgv: `node --input-type=module -e …` would make it an ES module, where require is undefined).
      const execArgv = process.execArgv.filter((a) => !a.startsWith('--input-type'));
      this.worker = new NodeWorker(BOOTSTRAP, { eval: true, execArgv, workerData: { href: String(href) } });
      this.worker.on('message', (data) => this.onmessage && this.onmessage({ data }));
      this.worker.on('error', (error) => this.onerror && this.onerror(error));
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
