// One line showing a timing the way every time on the page is shown: the median, the fastest–slowest
// run and the run count (lib/timing.js), with the build and thread count of the relpos that ran it.
// The spans carry the classes median / range / runs (the browser tests read them).
import { h } from './dom.js';
import { describeTiming } from './timing.js';

/** r: a worker result with { timing, simd, threads }. */
export function timingLine(what, r, cls = 'real-timing') {
  const d = describeTiming(r.timing);
  const threads = r.threads ?? 1;
  return h('p', { class: `note ${cls}` }, `${what}: median `, h('span', { class: 'median' }, d.median), ' ms (', h('span', { class: 'range' }, d.range), ' ms, ',
    h('span', { class: 'runs' }, d.runs), `) on the ${r.simd ? 'SIMD128' : 'scalar'} build, ${threads} thread${threads > 1 ? 's' : ''}.`);
}
