// Section 5 — benchmark: every scheme's attention at a few sequence lengths, timed in a worker,
// plotted per scheme against length with plain attention as the dashed reference.
import { h, field, errorBox } from '../lib/dom.js';
import { SCHEMES, schemeLabel, available, NOT_IN_BUILD } from '../lib/schemes.js';
import { WorkerClient } from '../lib/worker-client.js';
import { lineplot } from '../plots/lineplot.js';
import { lineColor } from '../plots/colors.js';
import { describeTiming } from '../lib/timing.js';

export function mount(root, { rp }) {
  const state = { result: null, running: false };
  const lengths = field({ label: 'Sequence lengths', kind: 'text', value: '64, 128, 256, 512', name: 'bench-lengths', help: 'comma-separated, 2 – 2048', size: 18 });
  const heads = field({ label: 'Heads', value: 4, min: 1, max: 16, name: 'bench-heads' });
  const headDim = field({ label: 'Head dim', value: 64, min: 8, max: 256, step: 8, name: 'bench-hd' });
  const build = field({ label: 'Build', kind: 'select', value: 'simd', options: [['simd', 'SIMD128'], ['scalar', 'scalar']], name: 'bench-build' });
  const go = h('button', { type: 'button' }, 'Run benchmark');
  const stop = h('button', { type: 'button', class: 'secondary', disabled: true }, 'Stop');
  const prog = h('progress', { max: 1, value: 0, 'aria-label': 'Benchmark progress' });
  const status = h('p', { role: 'status', 'aria-live': 'polite', class: 'note' }, 'Not run yet.');
  const out = h('div');
  root.append(h('div', { class: 'controls', role: 'group', 'aria-label': 'Benchmark settings' }, lengths.root, heads.root, headDim.root, build.root, go, stop), prog, status, out);
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
      const r = await w.request('bench', { schemes: SCHEMES.filter((s) => available(rp, s.type)).map((s) => s.type), lengths: ls, heads: heads.value, headDim: headDim.value }, (p) => {
        prog.value = p.done / p.total;
        status.textContent = `${p.done} / ${p.total}: ${schemeLabel(p.type)} at length ${p.seqLen}`;
      });
      state.result = r;
      status.textContent = `Done on the ${r.standIn ? 'JS stand-in' : r.simd ? 'SIMD128' : 'scalar'} build: batch 1, ${r.heads} heads, head dim ${r.headDim}; median of repeated runs (min–max and run count in the table).`;
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
  }
  return state;
}
