// Timing every figure the demo shows: a median of repeated runs, with its min, max and run count.
// Used in the worker by the encoder, real-model and benchmark sections (works in any JS realm that has
// performance.now()). A browser's timer is coarse (0.1 ms in workers without cross-origin
// isolation), so a call far shorter than that is batched: one run = `calls` calls, and the per-call
// time of that run is its duration / calls.
//
//   const t = measure(() => model.forward(...));            // { median, min, max, runs, calls }
//   const t = measure(() => enc.forward(ids), { parts: (r) => ({ attention: r.attentionMs }) });
//   t.parts.attention                                        // same statistics for a part of each call
//   const t = await measureAsync(() => embed(texts));        // the same for a promise-returning call
//
// Contract: fn is called `warmup` times untimed (first calls pay for tier-up and allocations), then
// calibrated, then timed in runs until at least `minRuns` runs AND `minMs` of timed work, or
// `maxRuns` runs, whichever comes first. Times are ms per call.

export const DEFAULTS = Object.freeze({ warmup: 1, minRuns: 5, maxRuns: 30, minMs: 150, runMs: 2, maxCalls: 1000 });

/** median, min, max and count of an array of numbers (not modified). */
export function stats(samples) {
  const s = Float64Array.from(samples).sort();
  const n = s.length;
  if (!n) return { median: NaN, min: NaN, max: NaN, runs: 0 };
  const median = n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  return { median, min: s[0], max: s[n - 1], runs: n };
}

/**
 * How many calls of fn make one run of at least runMs (≥ 1, ≤ maxCalls): batches of growing size are
 * timed until one lasts runMs; a single call that does is timed twice (the first may still pay for
 * compilation). Returns { calls, last } where last is fn's last result.
 */
export function calibrate(fn, { runMs = DEFAULTS.runMs, maxCalls = DEFAULTS.maxCalls } = {}) {
  let n = 1, last, confirmed = false;
  for (;;) {
    const t = performance.now();
    for (let c = 0; c < n; c++) last = fn();
    const elapsed = performance.now() - t;
    if (elapsed >= runMs) {
      if (n > 1 || confirmed) break;
      confirmed = true;
      continue;
    }
    if (n >= maxCalls) break;
    // jump towards the estimate (with 20 % to spare), at least doubling
    n = Math.min(maxCalls, Math.max(2 * n, Math.ceil((1.2 * runMs * n) / Math.max(elapsed, 1e-3))));
  }
  return { calls: n, last };
}

/**
 * Times fn (see the contract above). options: DEFAULTS' fields, plus `parts(result)` → { name: ms }
 * for durations fn measured inside itself (summed over a run's calls, then per call).
 * Returns { median, min, max, runs, calls, last, parts? } — `last` is fn's last result.
 */
export function measure(fn, options = {}) {
  const o = { ...DEFAULTS, ...options };
  let last;
  for (let i = 0; i < o.warmup; i++) last = fn();
  const cal = calibrate(fn, o);
  last = cal.last ?? last;
  const calls = cal.calls;
  const totals = [];
  const partSamples = {};
  const start = performance.now();
  while (totals.length < o.maxRuns && (totals.length < o.minRuns || performance.now() - start < o.minMs)) {
    const sums = {};
    const t = performance.now();
    for (let c = 0; c < calls; c++) {
      last = fn();
      if (o.parts) for (const [k, v] of Object.entries(o.parts(last))) sums[k] = (sums[k] ?? 0) + v;
    }
    totals.push((performance.now() - t) / calls);
    for (const [k, v] of Object.entries(sums)) (partSamples[k] ??= []).push(v / calls);
  }
  const out = { ...stats(totals), calls, last };
  if (o.parts) out.parts = Object.fromEntries(Object.entries(partSamples).map(([k, v]) => [k, { ...stats(v), calls }]));
  return out;
}

/**
 * measure() for a function that returns a promise (relpos pipelines: `await embed(texts)`): the same
 * contract and result, each call awaited before the next. Meant for calls of a millisecond or more
 * (a model's forward pass), where awaiting adds nothing measurable.
 */
export async function measureAsync(fn, options = {}) {
  const o = { ...DEFAULTS, ...options };
  let last;
  for (let i = 0; i < o.warmup; i++) last = await fn();
  // calibrate: calls per run of at least runMs (as calibrate() above)
  let calls = 1, confirmed = false;
  for (;;) {
    const t = performance.now();
    for (let c = 0; c < calls; c++) last = await fn();
    const elapsed = performance.now() - t;
    if (elapsed >= o.runMs) {
      if (calls > 1 || confirmed) break;
      confirmed = true;
      continue;
    }
    if (calls >= o.maxCalls) break;
    calls = Math.min(o.maxCalls, Math.max(2 * calls, Math.ceil((1.2 * o.runMs * calls) / Math.max(elapsed, 1e-3))));
  }
  const totals = [];
  const start = performance.now();
  while (totals.length < o.maxRuns && (totals.length < o.minRuns || performance.now() - start < o.minMs)) {
    const t = performance.now();
    for (let c = 0; c < calls; c++) last = await fn();
    totals.push((performance.now() - t) / calls);
  }
  return { ...stats(totals), calls, last };
}

/** "1.23 ms" style number with sensible precision for ms values from µs to seconds. */
export function formatMs(ms) {
  if (!Number.isFinite(ms)) return '—';
  return ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms >= 1 ? ms.toFixed(2) : ms.toFixed(3);
}

/** "median 1.23 ms (1.20–1.31, 15 runs)" pieces for display: { median, range, runs }. */
export function describeTiming(t) {
  return {
    median: formatMs(t.median),
    range: `${formatMs(t.min)}–${formatMs(t.max)}`,
    runs: t.calls > 1 ? `${t.runs} runs × ${t.calls} calls` : `${t.runs} runs`,
  };
}
