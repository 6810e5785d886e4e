// Plain-words text for how many threads the worker's relpos runs (rp.threads, rp.threadsReason: what
// init({ threads: 'auto' }) got in demo/worker.js) and whether comparing 1 thread with them means
// anything. Pure: takes the worker's info object { threads, threadsReason, simd, standIn }.

/** Why a "1 thread vs N threads" timing would be meaningless for this worker, or null when it is not. */
export function noThreadComparison(info) {
  const n = info?.threads ?? 1;
  if (n > 1) return null;
  if (info?.threadsReason) return `the worker runs 1 thread: ${plainReason(info.threadsReason)}`;
  return 'the worker runs 1 thread: this browser reports a single core (navigator.hardwareConcurrency), so there is nothing to compare';
}

/** rp.threadsReason in words a visitor can act on. */
export function plainReason(reason) {
  if (/cross-origin isolated/.test(reason))
    return `this page is not cross-origin isolated, so the browser gives it no SharedArrayBuffer and relpos cannot share memory between threads (the server must send Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp; npm start does) — relpos said: ${reason}`;
  if (/no SIMD/.test(reason)) return `the threads build is a SIMD build and this build is scalar — relpos said: ${reason}`;
  return `relpos said: ${reason}`;
}

/** One sentence for the page: "… computes with 4 threads …" or "… with 1 thread, fewer than asked: <why>." */
export function describeThreads(info) {
  const n = info?.threads ?? 1;
  const what = info?.standIn ? 'The JS stand-in' : "The worker's relpos";
  if (n > 1) return `${what} computes with ${n} threads (Web Workers sharing one WebAssembly memory).`;
  if (info?.threadsReason) return `${what} computes with 1 thread, fewer than asked: ${plainReason(info.threadsReason)}.`;
  return `${what} computes with 1 thread: this browser reports a single core (navigator.hardwareConcurrency).`;
}
