// init({ threads }): how many threads were asked for and which build can give them.
//
//   threads: 'auto' | integer in [1, MAX_THREADS]; default 1 (the single-thread build, as before).
//   'auto':  Node: os.availableParallelism(); browsers and workers: navigator.hardwareConcurrency when
//            crossOriginIsolated, else 1 — both capped at AUTO_CAP.
// More than one thread needs relpos-simd-threads, which needs SIMD128 + exceptions (it is the SIMD
// build) and SharedArrayBuffer (in browsers only on cross-origin isolated pages: COOP same-origin +
// COEP require-corp). Otherwise the single-thread build runs, and the reason is returned.
import { describe } from './validation.js';

export const MAX_THREADS = 64;
// 'auto' stops at 8: attention splits over batch·heads (8–16 heads in common encoders), so more
// threads than that mostly idle in attention; every Worker holds its own instance and JS heap
// (a few MiB); hardwareConcurrency counts SMT siblings and efficiency cores.
export const AUTO_CAP = 8;

const isNode = typeof process === 'object' && process !== null && typeof process.versions?.node === 'string';

/** Validates `threads` and resolves 'auto'; returns the thread count asked for. */
export async function requestedThreads(threads) {
  if (threads === undefined) return 1;
  if (threads === 'auto') {
    if (isNode) {
      const osName = 'node:os'; // non-literal: bundlers targeting the web must not resolve it
      const os = await import(/* webpackIgnore: true */ /* @vite-ignore */ osName);
      const n = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
      return Math.max(1, Math.min(AUTO_CAP, n));
    }
    return Math.max(1, Math.min(AUTO_CAP, globalThis.navigator?.hardwareConcurrency ?? 1));
  }
  if (typeof threads !== 'number') throw new TypeError(`init: threads: expected 'auto' or an integer, got ${describe(threads)}`);
  if (!Number.isInteger(threads) || threads < 1 || threads > MAX_THREADS)
    throw new RangeError(`init: threads: expected 'auto' or an integer in [1, ${MAX_THREADS}], got ${threads}`);
  return threads;
}

/** Which build serves `requested` threads: { variant, reason } (reason: why not the threads build). */
export function planThreads(requested, simd) {
  const single = simd ? 'simd' : 'scalar';
  if (requested <= 1) return { variant: single, reason: null };
  if (!simd) return { variant: single, reason: 'no SIMD (the threads build is a SIMD build; the scalar build runs one thread)' };
  if (typeof SharedArrayBuffer === 'undefined')
    return { variant: single, reason: 'not cross-origin isolated (SharedArrayBuffer unavailable)' };
  if (!isNode && globalThis.crossOriginIsolated === false)
    return { variant: single, reason: 'not cross-origin isolated (crossOriginIsolated is false: send COOP/COEP headers)' };
  if (!isNode && typeof Worker === 'undefined') return { variant: single, reason: 'no Worker in this context' };
  return { variant: 'simd-threads', reason: null };
}
