// Section 7 — "Train short, test long": one tiny transformer per position scheme, trained live in
// this tab on a synthetic task at length ≤ L, then evaluated at L … 4L.
// Everything runs through the package's lab API (`import { lab } from 'relpos'`): lab.train starts
// its own Worker and loads the trainer's WebAssembly module on first use (the inference module the
// rest of the page uses is untouched). Runs go one scheme at a time by default; "runs at once" starts
// several workers side by side (each trainer is single-threaded, so a second core trains a second
// scheme). Views, per scheme: live loss curves; accuracy against length (a line plot and a table with
// per-sequence accuracy); attention maps of a trained head on a sequence twice as long as any seen
// in training. state (relposDemo.lab) keeps every result for the browser test.
import { h, field, errorBox } from '../lib/dom.js';
import { lineplot } from '../plots/lineplot.js';
import { lineColor } from '../plots/colors.js';
import { heatmap } from '../plots/heatmap.js';

const SCHEME_LABELS = {
  none: 'no positions', sinusoidal: 'sinusoidal (absolute)', learned: 'learned (absolute)', alibi: 'ALiBi',
  t5: 'T5 buckets', rope: 'RoPE', shaw: 'Shaw (relative, clipped)', deberta: 'DeBERTa (c2p + p2c)',
};
const TASK_HELP = {
  'shift-k': 'label at i = the token at i − k (causal)',
  reverse: 'label at i = the token at L − 1 − i (bidirectional)',
  'count-so-far': 'label at i = how many 1s up to i (causal)',
  'bracket-depth': 'label at i = nesting depth of a ( ) prefix (causal)',
};
const schemeLabel = (s) => SCHEME_LABELS[s] ?? s;
const pct = (v) => (Number.isFinite(v) ? `${(100 * v).toFixed(1)} %` : '—');

/** Evaluation lengths from L to 4L: L, 1.5L, 2L, 3L, 4L (integers, distinct). */
export function evaluationLengths(L) {
  return [...new Set([L, Math.round(1.5 * L), 2 * L, 3 * L, 4 * L])];
}

/** The head whose attention is sharpest (largest mean over rows of the row maximum). */
export function sharpestHead(att) {
  let best = 0, bestScore = -1;
  att.maps.forEach((m, idx) => {
    let s = 0;
    for (let i = 0; i < att.length; i++) {
      let mx = 0;
      for (let j = 0; j < att.length; j++) mx = Math.max(mx, m[i * att.length + j]);
      s += mx;
    }
    if (s > bestScore) [best, bestScore] = [idx, s];
  });
  return best;
}

export function mount(root) {
  const state = { running: false, results: {}, error: null, config: null, runs: 0 };
  let labApi = null;
  const loadLab = async () => (labApi ??= (await import('relpos')).lab);

  root.append(h('p', { class: 'honest' },
    h('strong', {}, 'Trained here, now. '),
    'Press Train: each ticked scheme trains its own 2-layer model (from random weights, in a Web Worker of this tab) on sequences of length at most L, then is tested on fresh sequences up to 4L. ',
    'A scheme that describes where a token is relative to another (Shaw, T5, DeBERTa) can reuse what it learned at any length; one that names absolute positions meets positions it has never seen.'));

  const task = field({ label: 'Task', kind: 'select', value: 'shift-k', options: ['shift-k', 'reverse', 'count-so-far', 'bracket-depth'], name: 'lab-task' });
  const taskHelp = h('small', { class: 'note lab-task-help' }, TASK_HELP['shift-k']);
  task.input.addEventListener('change', () => (taskHelp.textContent = TASK_HELP[task.value] ?? ''));
  const L = field({ label: 'Train length L', value: 16, min: 4, max: 64, name: 'lab-length', help: '4 – 64; tested up to 4L' });
  const steps = field({ label: 'Steps', value: 300, min: 10, max: 5000, step: 10, name: 'lab-steps', help: 'batches of 32' });
  const seed = field({ label: 'Seed', value: 1, min: 1, max: 1e6, name: 'lab-seed' });
  const cores = Math.max(1, Math.min(4, globalThis.navigator?.hardwareConcurrency ?? 1));
  const parallel = field({ label: 'Runs at once', kind: 'select', value: 1, options: Array.from({ length: cores }, (_, i) => [i + 1, String(i + 1)]), name: 'lab-parallel', help: 'one worker (one core) per run' });
  const schemeBoxes = ['none', 'sinusoidal', 'learned', 'alibi', 't5', 'rope', 'shaw', 'deberta'].map((s) =>
    field({ label: schemeLabel(s), kind: 'checkbox', value: true, name: `lab-scheme-${s}` }));
  schemeBoxes.forEach((f, i) => (f.scheme = ['none', 'sinusoidal', 'learned', 'alibi', 't5', 'rope', 'shaw', 'deberta'][i]));
  const go = h('button', { type: 'button' }, 'Train');
  const stop = h('button', { type: 'button', class: 'secondary', disabled: true }, 'Cancel');
  const prog = h('progress', { max: 1, value: 0, 'aria-label': 'Training progress' });
  const status = h('p', { role: 'status', 'aria-live': 'polite', class: 'note' }, 'Not trained yet. With the defaults each scheme takes seconds to tens of seconds.');
  const lossOut = h('div', { class: 'lab-loss' });
  const accOut = h('div', { class: 'lab-accuracy' });
  const attOut = h('div', { class: 'lab-attention' });
  root.append(
    h('div', { class: 'controls', role: 'group', 'aria-label': 'Training settings' }, h('div', {}, task.root, taskHelp), L.root, steps.root, seed.root, parallel.root),
    h('fieldset', { class: 'controls lab-schemes' }, h('legend', {}, 'Schemes'), schemeBoxes.map((f) => f.root)),
    h('div', { class: 'controls' }, go, stop, prog), status,
    h('h3', {}, 'Loss while training'), lossOut,
    h('h3', {}, 'Accuracy against length'), accOut,
    h('h3', {}, 'Attention beyond the training length'), attOut);

  const W = () => Math.max(320, Math.min(760, root.clientWidth - 4));
  const live = {}; // scheme → { xs, ys }
  let drawPending = false;
  function drawLoss() {
    drawPending = false;
    const names = Object.keys(live);
    if (!names.length) return lossOut.replaceChildren();
    const series = names.map((s) => ({ name: schemeLabel(s), xs: live[s].xs, ys: live[s].ys, color: lineColor(order(s)) }));
    lossOut.replaceChildren(lineplot({ title: `Training loss (${state.config.task}, L = ${state.config.trainLength})`, xLabel: 'step', yLabel: 'cross-entropy', series, yLog: true, width: W(), height: Math.round(W() * 0.5) }));
  }
  const schedule = () => {
    if (!drawPending) {
      drawPending = true;
      requestAnimationFrame(drawLoss);
    }
  };
  const order = (s) => ['none', 'sinusoidal', 'learned', 'alibi', 't5', 'rope', 'shaw', 'deberta'].indexOf(s) + 1;

  function drawAccuracy() {
    const done = Object.entries(state.results).filter(([, r]) => r.accuracy);
    if (!done.length) return accOut.replaceChildren();
    const lengths = done[0][1].accuracy.map((a) => a.length);
    const series = done.map(([s, r]) => ({ name: schemeLabel(s), xs: r.accuracy.map((a) => a.length), ys: r.accuracy.map((a) => a.accuracy), color: lineColor(order(s)) }));
    const cfg = state.config;
    const plot = lineplot({ title: `Accuracy per labelled position (${cfg.task}; trained at L = ${cfg.trainLength})`, xLabel: 'sequence length', yLabel: 'accuracy', series, width: W(), height: Math.round(W() * 0.5) });
    const table = h('table', { class: 'bench-table lab-table' },
      h('caption', { class: 'note' }, 'Accuracy over labelled positions (and the share of sequences with every position right), on fresh sequences; training time on one thread of this browser'),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Scheme'), lengths.map((n) => h('th', { scope: 'col' }, n === cfg.trainLength ? `L = ${n}` : `${n} (${+(n / cfg.trainLength).toFixed(2)}L)`)), h('th', { scope: 'col' }, 'training'))),
      h('tbody', {}, done.map(([s, r]) => h('tr', { 'data-scheme': s },
        h('th', { scope: 'row' }, schemeLabel(s)),
        r.accuracy.map((a) => h('td', { 'data-length': a.length, 'data-accuracy': a.accuracy }, pct(a.accuracy), h('small', { class: 'spread' }, `sequences ${pct(a.perSequence)}`))),
        h('td', { class: 'seconds', 'data-seconds': r.seconds }, `${r.seconds.toFixed(1)} s`, h('small', { class: 'spread' }, `${(r.flops / r.seconds / 1e9).toFixed(1)} GFLOP/s, ${r.build}`))))));
    const notes = [];
    if (state.results.learned?.accuracy)
      notes.push(h('p', { class: 'note lab-learned-note' }, `Learned absolute positions: the table has ${cfg.maxLength} rows, but training only ever reached rows 0–${cfg.trainLength - 1}. Rows ${cfg.trainLength}–${cfg.maxLength - 1} still hold their random initial values, so beyond L the model reads noise as position — that is the point of the experiment.`));
    if (state.results.alibi?.accuracy || state.results.none?.accuracy)
      notes.push(h('p', { class: 'note' }, 'No positions: a causal mask still lets a model count how many tokens precede it, but not which token sat k places back. ALiBi only biases attention towards near tokens; it cannot single out distance k, so it rarely fits shift-k.'));
    accOut.replaceChildren(plot, h('div', { class: 'scroll' }, table), ...notes);
  }

  function drawAttention() {
    const have = Object.entries(state.results).filter(([, r]) => r.attention);
    if (!have.length) return attOut.replaceChildren();
    const pick = field({ label: 'Scheme', kind: 'select', value: state.attentionScheme ?? have[have.length - 1][0], options: have.map(([s]) => [s, schemeLabel(s)]), name: 'lab-att-scheme' });
    const body = h('div', { class: 'figs' });
    const draw = () => {
      state.attentionScheme = pick.value;
      const att = state.results[pick.value].attention;
      const best = sharpestHead(att);
      const w = Math.max(260, Math.min(360, (root.clientWidth - 24) / 2));
      const n = att.length;
      const figs = att.maps.map((m, idx) => {
        const layer = Math.floor(idx / att.heads), head = idx % att.heads;
        const f = heatmap({ data: m, rows: n, cols: n, title: `Layer ${layer}, head ${head}${idx === best ? ' (sharpest)' : ''}`, colormap: 'viridis', vmin: 0, vmax: 1, maxWidth: w, annotate: false, square: true });
        f.dataset.layer = layer;
        f.dataset.head = head;
        return f;
      });
      let right = 0, labelled = 0;
      for (let i = 0; i < n; i++) if (att.labels[i] >= 0) (labelled++, (right += att.predictions[i] === att.labels[i] ? 1 : 0));
      body.replaceChildren(h('p', { class: 'note lab-att-note' },
        `${schemeLabel(pick.value)}: one fresh sequence of length ${n} (${n / state.config.trainLength}× the training length); ${right} of ${labelled} labelled positions predicted right. Rows are queries i, columns keys j.${state.config.task === 'shift-k' ? ` A head that solved shift-k puts its weight on the diagonal j = i − ${state.config.k}.` : ''}`),
      figs[best], ...figs.filter((_, i) => i !== best));
    };
    pick.input.addEventListener('change', draw);
    attOut.replaceChildren(h('div', { class: 'controls' }, pick.root), body);
    draw();
  }

  let controller = null;
  go.addEventListener('click', async () => {
    const schemes = schemeBoxes.filter((f) => f.value).map((f) => f.scheme);
    if (!schemes.length) {
      status.textContent = 'Tick at least one scheme.';
      return;
    }
    let lab;
    try {
      lab = await loadLab();
    } catch (err) {
      root.append(errorBox(`The lab did not load: ${err.message}`));
      return;
    }
    const trainLength = L.value;
    state.config = { ...lab.DEFAULTS, task: task.value, trainLength, steps: steps.value, seed: seed.value, maxLength: 4 * trainLength };
    state.results = {};
    state.error = null;
    state.running = true;
    state.runs++;
    for (const k of Object.keys(live)) delete live[k];
    lossOut.replaceChildren();
    accOut.replaceChildren();
    attOut.replaceChildren();
    controller = new AbortController();
    const { signal } = controller;
    go.disabled = true;
    stop.disabled = false;
    stop.onclick = () => controller.abort();
    prog.value = 0;
    const total = schemes.length * state.config.steps;
    const progress = {};
    const t0 = performance.now();
    const report = () => {
      const done = Object.values(progress).reduce((a, b) => a + b, 0);
      prog.value = done / total;
      const runningNow = Object.keys(progress).filter((s) => progress[s] < state.config.steps && !state.results[s]?.accuracy);
      status.textContent = `Training ${runningNow.map(schemeLabel).join(', ') || '…'}: ${done} of ${total} steps, ${((performance.now() - t0) / 1000).toFixed(0)} s.`;
    };
    const trainOne = async (scheme) => {
      live[scheme] = { xs: [], ys: [] };
      progress[scheme] = 0;
      const cfg = state.config;
      const run = await lab.train({
        task: cfg.task, scheme, trainLength: cfg.trainLength, steps: cfg.steps, seed: cfg.seed, maxLength: cfg.maxLength, signal,
        progressEvery: Math.max(1, Math.round(cfg.steps / 100)),
        onProgress: (p) => {
          live[scheme].xs.push(p.step);
          live[scheme].ys.push(p.loss);
          progress[scheme] = p.step;
          report();
          schedule();
        },
      });
      try {
        // the full curve (onProgress saw every progressEvery-th step)
        live[scheme] = { xs: Array.from(run.losses, (_, i) => i + 1), ys: Array.from(run.losses) };
        schedule();
        const accuracy = await run.evaluate(evaluationLengths(cfg.trainLength), { batches: 8 });
        const attention = await run.attention({ length: 2 * cfg.trainLength, seed: 1 });
        state.results[scheme] = { seconds: run.seconds, flops: run.flops, build: run.config.build, finalLoss: run.losses[run.losses.length - 1], accuracy, attention };
        drawAccuracy();
        drawAttention();
      } finally {
        run.dispose();
      }
    };
    try {
      const queue = schemes.slice();
      const workers = Array.from({ length: Math.min(Number(parallel.value), schemes.length) }, async () => {
        while (queue.length && !signal.aborted) await trainOne(queue.shift());
      });
      await Promise.all(workers);
      const secs = Object.values(state.results).map((r) => r.seconds);
      status.textContent = `Done: ${schemes.length} scheme${schemes.length > 1 ? 's' : ''} in ${((performance.now() - t0) / 1000).toFixed(1)} s (training ${Math.min(...secs).toFixed(1)}–${Math.max(...secs).toFixed(1)} s per scheme).`;
      prog.value = 1;
    } catch (err) {
      if (err.name === 'AbortError') status.textContent = 'Cancelled.';
      else {
        state.error = err.message;
        status.textContent = '';
        accOut.replaceChildren(errorBox(`Training failed: ${err.message}`));
      }
    } finally {
      controller.abort(); // stops any run still going (another worker's, after an error)
      state.running = false;
      go.disabled = false;
      stop.disabled = true;
    }
  });
  state.train = () => go.click();
  return state;
}
