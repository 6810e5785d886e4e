// The lab's Worker body (web/lab.js starts it: a module Worker in browsers, a node:worker_threads
// Worker under Node). It loads relpos-lab-simd or relpos-lab-scalar (the build the main thread chose),
// instantiating the .wasm itself as web/loader.js does, and runs one LabSession
// (cpp/train/bindings/lab.cpp). Messages, main → worker:
//   { type: 'start', config, progressEvery }   once: load, create the session, train every step
//   { type: 'evaluate', id, lengths, batches } / { type: 'attention', id, length, seed }
// worker → main:
//   { type: 'ready' } once the listener is installed; { type: 'progress', step, loss, learningRate, seconds };
//   { type: 'trained', losses: Float32Array, seconds, flops, causal, maxLength };
//   { type: 'result', id, value }; { type: 'error', id?, name, message } (TypeError / RangeError / Error)
// Training is one synchronous loop: the main thread stops it by terminating the worker.
import createLabSimd from './dist/relpos-lab-simd.js';
import createLabScalar from './dist/relpos-lab-scalar.js';
import { instantiate, isNode } from './instantiate.js';

let session = null;

function wasmLocation(build) {
  // Literal URLs so bundlers pick the assets up.
  return build === 'simd'
    ? new URL('./dist/relpos-lab-simd.wasm', import.meta.url)
    : new URL('./dist/relpos-lab-scalar.wasm', import.meta.url);
}

async function loadLab(build) {
  const location = wasmLocation(build);
  const create = build === 'simd' ? createLabSimd : createLabScalar;
  let fail;
  const failed = new Promise((_, reject) => {
    fail = reject;
  });
  const ready = create({
    instantiateWasm(imports, receiveInstance) {
      instantiate(location, imports).then(
        ({ instance, module }) => receiveInstance(instance, module),
        (e) => fail(new Error(`lab: could not load ${build} WebAssembly from ${location}: ${e.message}`)),
      );
      return {};
    },
    print: (text) => console.log(text),
    printErr: (text) => console.warn(text),
  });
  return Promise.race([ready, failed]);
}

/** Throws the Error object the bindings returned, or passes the value through. */
function unwrap(value) {
  if (value instanceof Error) throw value;
  return value;
}

const now = () => (typeof performance === 'object' ? performance.now() : Date.now());

async function start(post, { config, progressEvery }) {
  const mod = await loadLab(config.build);
  session = unwrap(
    mod.LabSession.create({
      task: config.task,
      scheme: config.scheme,
      k: config.k,
      symbols: config.symbols,
      trainLength: config.trainLength,
      steps: config.steps,
      batch: config.batch,
      dim: config.model.dim,
      layers: config.model.layers,
      heads: config.model.heads,
      lr: config.lr,
      seed: config.seed,
      maxLength: config.maxLength,
    }),
  );
  const resolved = session.resolved();
  const losses = new Float32Array(config.steps);
  const t0 = now();
  let done = 0;
  while (done < config.steps) {
    const chunk = unwrap(session.step(Math.min(progressEvery, config.steps - done)));
    losses.set(chunk, done);
    done += chunk.length;
    post({ type: 'progress', step: done, loss: losses[done - 1], learningRate: session.learningRate(done - 1), seconds: (now() - t0) / 1000 });
  }
  const seconds = (now() - t0) / 1000;
  post({ type: 'trained', losses, seconds, flops: session.flopsPerStep() * config.steps, causal: resolved.causal, maxLength: resolved.maxLength }, [losses.buffer]);
}

function evaluate({ lengths, batches }) {
  return lengths.map((length) => unwrap(session.evaluate(length, batches)));
}

function attention({ length, seed }) {
  const a = unwrap(session.attention(length, seed));
  const per = a.length * a.length;
  const maps = [];
  for (let m = 0; m < a.layers * a.heads; ++m) maps.push(a.maps.slice(m * per, (m + 1) * per));
  return { length: a.length, tokens: a.tokens, labels: a.labels, predictions: a.predictions, layers: a.layers, heads: a.heads, maps };
}

function errorMessage(e, id) {
  const name = e instanceof TypeError ? 'TypeError' : e instanceof RangeError ? 'RangeError' : 'Error';
  return { type: 'error', id, name, message: String(e?.message ?? e) };
}

async function handle(post, data) {
  try {
    if (data.type === 'start') await start(post, data);
    else if (data.type === 'evaluate') post({ type: 'result', id: data.id, value: evaluate(data) });
    else if (data.type === 'attention') post({ type: 'result', id: data.id, value: attention(data) });
  } catch (e) {
    post(errorMessage(e, data.id));
  }
}

function listen(post, on) {
  on((data) => handle(post, data));
  post({ type: 'ready' });
}

if (isNode && typeof self === 'undefined') {
  const name = 'node:worker_threads'; // non-literal: bundlers targeting the web must not resolve it
  import(/* webpackIgnore: true */ /* @vite-ignore */ name).then(({ parentPort }) =>
    listen((m, transfer) => parentPort.postMessage(m, transfer), (fn) => parentPort.on('message', fn)),
  );
} else {
  listen((m, transfer) => self.postMessage(m, transfer), (fn) => self.addEventListener('message', (e) => fn(e.data)));
}
