// Section 5 — benchmark: every scheme's attention at a few sequence lengths, timed in a worker,
// plotted per scheme against length with plain attention as the dashed reference.
// "1 vs N threads" also times every cell on a single-thread instance of the same build in the same
// worker (N = the threads its relpos runs) and shows both medians and the speedup — or, when the worker
// runs one thread (page not cross-origin isolated, one core, scalar build), says why instead.
// The section also names this page's WebGPU adapter (vendor / architecture / description, as relpos's
// web/webgpu createContext reports it), or says "no WebGPU adapter: <reason>".
import { h, field, errorBox } from '../lib/dom.js';
import { SCHEMES, schemeLabel, available, NOT_IN_BUILD } from '../lib/schemes.js';
import { WorkerClient } from '../lib/worker-client.js';
import { lineplot } from '../plots/lineplot.js';
import { lineColor } from '../plots/colors.js';
import { describeTiming, formatMs } from '../lib/timing.js';
import { describeThreads, noThreadComparison } from '../lib/threads.js';

/** This page's WebGPU adapter through relpos's own createContext: { info } or { reason }. */
async function webgpuAdapter(rp) {
  if (rp.standIn) return { reason: 'the JS stand-in package has no WebGPU backend (web/webgpu/)' };
  let W;
  try {
    W = await import(new URL('../../web/webgpu/index.js', import.meta.url).href);
  } catch (err) {
    return { reason: `the package's web/webgpu/index.js did not load (${err.message})` };
  }
  try {
    const ctx = await W.createContext();
    const info = { ...ctx.info };
    ctx.destroy();
    return { info };
  } catch (err) {
    return { reason: err.message };
  }
}

export function mount(root, { rp, showThreads }) {
  const state = { result: null, running: false, adapter: null }; // adapter: { info } or { reason } once known
  const lengths = field({ label: 'Sequence lengths', kind: 'text', value: '64, 128, 256, 512', name: 'bench-lengths', help: 'comma-separated, 2 – 2048', size: 18 });
  const heads = field({ label: 'Heads', value: 4, min: 1, max: 16, name: 'bench-heads' });
  const headDim = field({ label: 'Head dim', value: 64, min: 8, max: 256, step: 8, name: 'bench-hd' });
  const build = field({ label: 'Build', kind: 'select', value: 'simd', options: [['simd', 'SIMD128'], ['scalar', 'scalar']], name: 'bench-build' });
  const threads = field({ label: 'Threads', kind: 'select', value: 'worker', options: [['worker', "the worker's threads"], ['compare', 'threads: 1 vs N']], name: 'bench-threads', help: "N = the worker's rp.threads" });
  const go = h('button', { type: 'button' }, 'Run benchmark');
  const stop = h('button', { type: 'button', class: 'secondary', disabled: true }, 'Stop');
  const prog = h('progress', { max: 1, value: 0, 'aria-label': 'Benchmark progress' });
  const status = h('p', { role: 'status', 'aria-live': 'polite', class: 'note' }, 'Not run yet.');
  const out = h('div');
  root.append(h('div', { class: 'controls', role: 'group', 'aria-label': 'Benchmark settings' }, lengths.root, heads.root, headDim.root, build.root, threads.root, go, stop), prog, status, out);
  const adapterLine = h('p', { class: 'note webgpu-adapter', 'data-state': 'pending' }, 'WebGPU adapter: looking…');
  root.append(adapterLine);
  webgpuAdapter(rp).then((a) => {
    state.adapter = a;
    adapterLine.dataset.state = a.info ? 'found' : 'none';
    adapterLine.textContent = a.info
      ? `WebGPU adapter: ${[a.info.vendor, a.info.architecture, a.info.description || a.info.device].filter(Boolean).join(' / ') || 'no description'} (what rp.loadModel(…, { device: 'webgpu' }) runs on in this browser).`
      : `No WebGPU adapter: ${a.reason}`;
  });
  const workers = {};
  const missing = SCHEMES.filter((s) => !available(rp, s.type));
  if (missing.length) root.append(h('p', { class: 'note' }, `Not measured — ${NOT_IN_BUILD}: ${missing.map((s) => s.label).join(', ')}.`));

  go.addEventListener('click', async () => {
    const ls = [...new Set(lengths.value.split(/[\s,]+/).map(Number).filter((n) => Number.isInteger(n) && n >= 2 && n <= 2048))].sort((a, b) => a - b);
    if (!ls.length) {
      status.textContent = 'Enter at least one sequence length between 2 and 2048.';
      return;
    }
    const w = (workers[build.value] ??= new WorkerClient(build.value));
    go.disabled = true;
    stop.disabled = false;
    state.running = true;
    prog.value = 0;
    status.textContent = 'Starting…';
    stop.onclick = () => w.cancel();
    try {
      const compareThreads = threads.value === 'compare';
      const r = await w.request('bench', { schemes: SCHEMES.filter((s) => available(rp, s.type)).map((s) => s.type), lengths: ls, heads: heads.value, headDim: headDim.value, compareThreads }, (p) => {
        prog.value = p.done / p.total;
        status.textContent = `${p.done} / ${p.total}: ${schemeLabel(p.type)} at length ${p.seqLen}`;
      });
      state.result = r;
      status.textContent = `Done on the ${r.standIn ? 'JS stand-in' : r.simd ? 'SIMD128' : 'scalar'} build, ${r.threads} thread${r.threads > 1 ? 's' : ''}: batch 1, ${r.heads} heads, head dim ${r.headDim}; median of repeated runs (min–max and run count in the table).`;
      if (r.simd) showThreads?.(r);
      show(r);
    } catch (err) {
      status.textContent = err.message === 'cancelled' ? 'Stopped.' : '';
      if (err.message !== 'cancelled') out.replaceChildren(errorBox(`Benchmark failed: ${err.message}`));
    } finally {
      go.disabled = false;
      stop.disabled = true;
      state.running = false;
    }
  });

  function show(r) {
    const series = r.results.map((x, i) => ({
      name: schemeLabel(x.type),
      xs: r.lengths,
      ys: x.ms,
      color: x.type === 'none' ? '#000' : lineColor(i + 1),
      dashed: x.type === 'none',
      width: x.type === 'none' ? 2.6 : 1.6,
    }));
    const W = Math.max(320, Math.min(760, root.clientWidth - 4));
    const plot = lineplot({ title: 'Time per attention call vs sequence length', xLabel: 'sequence length', yLabel: 'ms per call', series, xLog: true, yLog: true, width: W, height: Math.round(W * 0.6) });
    const none = r.results.find((x) => x.type === 'none');
    const table = h('table', { class: 'bench-table' },
      h('caption', { class: 'note' }, 'Milliseconds per call: median (× plain attention), then the fastest–slowest run and the number of runs'),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Scheme'), r.lengths.map((L) => h('th', { scope: 'col' }, `L = ${L}`)))),
      h('tbody', {}, r.results.map((x) => h('tr', { 'data-scheme': x.type },
        h('td', {}, schemeLabel(x.type)),
        x.error ? h('td', { colspan: r.lengths.length, class: 'error' }, x.error)
          : x.ms.map((ms, i) => {
            const d = describeTiming(x.timing[i]);
            return h('td', {}, `${ms.toFixed(3)}${x.type !== 'none' && none ? ` (${(ms / none.ms[i]).toFixed(1)}×)` : ''}`,
              h('small', { class: 'spread' }, `${d.range} · ${d.runs}`));
          })))));
    out.replaceChildren(plot, h('div', { class: 'scroll' }, table));
    if (r.compareThreads) out.append(...threadsComparison(r));
  }

  // 1 thread vs N threads: both medians (min–max, runs) and the speedup, per scheme and length.
  function threadsComparison(r) {
    const why = noThreadComparison(r);
    if (why || !r.results.some((x) => x.single)) return [h('p', { class: 'note threads-note', 'data-compared': 'false' }, `No 1 vs N threads comparison: ${why ?? 'the single-thread instance did not run'}.`)];
    const N = r.threads;
    const timed = (t) => {
      const d = describeTiming(t);
      return [h('span', { class: 'median' }, d.median), h('small', { class: 'spread' }, `${d.range} · ${d.runs}`)];
    };
    const table = h('table', { class: 'bench-table threads-table' },
      h('caption', { class: 'note' }, `Milliseconds per call on 1 thread and on ${N} threads (the same build and inputs, one after the other): median, fastest–slowest run and number of runs; speedup = 1-thread median ÷ ${N}-thread median`),
      h('thead', {},
        h('tr', {}, h('th', { scope: 'col', rowspan: 2 }, 'Scheme'), r.lengths.map((L) => h('th', { scope: 'colgroup', colspan: 3 }, `L = ${L}`))),
        h('tr', {}, r.lengths.flatMap(() => [h('th', { scope: 'col' }, '1 thread'), h('th', { scope: 'col' }, `${N} threads`), h('th', { scope: 'col' }, 'speedup')]))),
      h('tbody', {}, r.results.map((x) => h('tr', { 'data-scheme': x.type },
        h('td', {}, schemeLabel(x.type)),
        x.error ? h('td', { colspan: 3 * r.lengths.length, class: 'error' }, x.error)
          : r.lengths.flatMap((_, i) => [
            h('td', { class: 'one' }, timed(x.single.timing[i])),
            h('td', { class: 'many' }, timed(x.timing[i])),
            h('td', { class: 'speedup' }, `${(x.single.ms[i] / x.ms[i]).toFixed(2)}×`),
          ])))));
    const sum = (get) => r.results.filter((x) => !x.error).reduce((a, x) => a + get(x), 0);
    const last = r.lengths.length - 1;
    const overall = sum((x) => x.single.ms[last]) / sum((x) => x.ms[last]);
    return [h('p', { class: 'note threads-note', 'data-compared': 'true' },
      `${describeThreads(r)} At L = ${r.lengths[last]} all schemes together take ${formatMs(sum((x) => x.single.ms[last]))} ms on 1 thread and ${formatMs(sum((x) => x.ms[last]))} ms on ${N} (speedup ${overall.toFixed(2)}×). `,
      'Short calls gain little: waking the threads costs microseconds, and the machine\'s other work shares the same cores.'),
    h('div', { class: 'scroll' }, table)];
  }
  return state;
}
