// Independent onnxruntime-web instances in one Node process, one per thread count.
//
// onnxruntime-web fixes env.wasm.numThreads when its WebAssembly first initialises, and its node
// build keeps that state (env, the backend registry) in module instances: `onnxruntime-common`
// (imported by the bare name) and the Emscripten factory `ort-wasm-simd-threaded.mjs` (imported by
// a relative URL). Importing `ort.node.min.mjs?ort-instance=t2` alone gives a second copy of the
// node build that still shares onnxruntime-common, so registering its backend fails ("cannot
// register backend "cpu" using priority 10"). A module resolve hook therefore carries the
// `ort-instance` query from a parent module of the instance to every onnxruntime-web /
// onnxruntime-common file it imports: each tag gets its own env, backend registry, Emscripten
// module, heap and pthread pool. (The self-contained browser bundles do not help: with threads they
// fetch() their own script to start workers, which Node cannot import from a blob: URL.)
import path from 'node:path';
import v8 from 'node:v8';
import { register } from 'node:module';
import { pathToFileURL } from 'node:url';
import { attentionGraph } from './onnx.mjs';

const HERE = path.dirname(new URL(import.meta.url).pathname);
const ORT_NODE = pathToFileURL(path.join(HERE, '../node_modules/onnxruntime-web/dist/ort.node.min.mjs')).href;

// Runs on Node's module-hooks thread: a file of onnxruntime-web or onnxruntime-common imported from a
// module that carries ?ort-instance=TAG gets the same query (so a distinct module instance).
const HOOKS = `
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  const tag = context.parentURL && new URL(context.parentURL).searchParams.get('ort-instance');
  if (!tag || !r.url.startsWith('file:') || !/\\/node_modules\\/onnxruntime-(web|common)\\//.test(r.url)) return r;
  const u = new URL(r.url);
  if (u.searchParams.get('ort-instance') === tag) return r;
  u.searchParams.set('ort-instance', tag);
  return { ...r, url: u.href };
}`;

let hooked = false;
const instances = new Map();

/** The onnxruntime-web module for this thread count: its own copy, with env.wasm.numThreads set and
 *  its WebAssembly started (and its pthreads, if any). Same count → same instance. */
export async function loadOrtInstance(numThreads) {
  if (instances.has(numThreads)) return instances.get(numThreads);
  if (!hooked) {
    register('data:text/javascript,' + encodeURIComponent(HOOKS));
    hooked = true;
  }
  const ort = await import(`${ORT_NODE}?ort-instance=t${numThreads}`);
  ort.env.wasm.numThreads = numThreads;
  ort.env.wasm.simd = true;
  ort.env.wasm.proxy = false;
  ort.env.logLevel = 'error';
  // Start its WebAssembly now (the first session does), compiled without V8's dynamic tiering: with
  // two copies of ORT's module in one process, dynamic tiering kept a V8 background thread compiling
  // for as long as the 1-thread copy ran (seen in /proc/self/task: a second busy thread beside the
  // main one, ~1:1, on every run; gone with --no-wasm-dynamic-tiering). Eager optimised code is what
  // one tiered-up copy runs anyway. The flag is restored so modules compiled later are unaffected.
  v8.setFlagsFromString('--no-wasm-dynamic-tiering');
  try {
    const s = await ort.InferenceSession.create(attentionGraph({ kind: 'plain', scale: 1, H: 1, S: 1, D: 1 }), { executionProviders: ['wasm'] });
    await s.release();
  } finally {
    v8.setFlagsFromString('--wasm-dynamic-tiering');
  }
  if (ort.env.wasm.numThreads !== numThreads) throw new Error(`onnxruntime-web instance t${numThreads} runs ${ort.env.wasm.numThreads} thread(s)`);
  instances.set(numThreads, ort);
  return ort;
}
