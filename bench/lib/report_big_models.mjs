// Real-size models (issue #34) in the performance section: bench/lib/big_models.mjs appends each run to
// bench/results/big-models.json ({ runs: [{ cpu, date, note, rows: [{ model, dtype, threads, fileBytes, loadMs,
// vmHwmAfterLoad, vmHwm, weightBytes, wholeFile?, error?, inputs: [{ tokens, ms, runs, gflops, gemmGflops, ofGemm }] }] }] }).
// The section shows, per (model, dtype, threads, whole file or streamed), the newest row that measured it, with its
// CPU and date; nothing is re-measured here.
//   bigModelsResults(resultsDir) → runs | null          bigModelsMarkdown(runs, L)
import fs from 'node:fs';
import path from 'node:path';

const GIB = 2 ** 30;
const g = (b) => (b == null ? '–' : (b / GIB).toFixed(2));
const s = (ms) => (ms == null ? '–' : (ms / 1000).toFixed(1));
// The issue's peak-memory targets: q8, a fresh process, load + one 128-token input at 2 threads.
const TARGETS = { 'gemma3-300m': 0.8, 'qwen3-0.6b': 1.0 };

export function bigModelsResults(resultsDir) {
  const file = path.join(resultsDir, 'big-models.json');
  return fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')).runs ?? null : null;
}

const only128 = (row) => (row.inputs ?? []).length === 1 && row.inputs[0].tokens === 128;

/**
 * Rows of one 128-token input measure the issue's peak (load + that input, nothing else in the process): the newest
 * such row per 'model|dtype|threads' → { run, row } (also quoted by the README and docs/, tests/js/docs/figures.mjs).
 */
export function peaks128(runs) {
  const peak128 = new Map();
  for (const run of runs ?? [])
    for (const row of run.rows) {
      const key = `${row.model}|${row.dtype}|${row.threads}`;
      if (only128(row) && !row.error) {
        const p = peak128.get(key);
        if (!p || String(run.date) >= String(p.run.date)) peak128.set(key, { run, row });
      }
    }
  return peak128;
}

export function bigModelsMarkdown(runs, L) {
  L.push('## Real-size models', '');
  if (!runs?.length) {
    L.push('Not measured yet: `node bench/lib/big_models.mjs gemma3-300m,qwen3-0.6b` writes bench/results/big-models.json.', '');
    return;
  }
  // the table shows, per key, the newest row that measured more lengths (else the newest row)
  const newest = new Map(), peak128 = peaks128(runs);
  for (const run of runs)
    for (const row of run.rows) {
      const key = `${row.model}|${row.dtype}|${row.threads}`;
      const prev = newest.get(key);
      const better = !prev || (only128(prev.row) && !only128(row)) || (only128(prev.row) === only128(row) && String(run.date) >= String(prev.run.date));
      if (better) newest.set(key, { run, row });
    }
  const order = (m) => (m.startsWith('gemma3') ? 0 : m.startsWith('qwen3') ? 1 : m.startsWith('bge-m3') ? 2 : 3);
  const entries = [...newest.values()].sort((a, b) => order(a.row.model) - order(b.row.model) || a.row.model.localeCompare(b.row.model) ||
    a.row.dtype.localeCompare(b.row.dtype) || a.row.threads - b.row.threads);
  const lengths = [...new Set(entries.flatMap((e) => (e.row.inputs ?? []).map((i) => i.tokens)))].sort((a, b) => a - b);
  L.push('Random BF16 checkpoints of the published shapes (`gemma3-300m`: EmbeddingGemma-300m, `qwen3-0.6b`: Qwen3-Embedding-0.6B;',
    '`llama-*`: the same tensor shapes in the llama family), loaded with `loadModel(folder, { dtype })` in a fresh Node process per',
    'row (the weights converted as the file streams in; "(whole file)": the file read whole into the heap first, the path every',
    'load took before), then one sequence per length. Peak = VmHWM of that process (Node included, ~0.05 GiB); ms: median of',
    'the runs after a warm-up (one run where a forward takes over 20 s); GFLOP/s against relpos\'s own rate on a one-layer',
    'model of the same widths at the same length ("of ref."). Times come from a shared 2-core machine: see each row\'s load note.', '');
  const targets = Object.entries(TARGETS).map(([m, t]) => {
    const e = peak128.get(`${m}|q8|2`);
    return e ? `${m} q8 at 2 threads **${g(e.row.vmHwm)} GiB** (target ≤ ${t} GiB; ${e.run.cpu}, ${String(e.run.date).slice(0, 10)})` : null;
  }).filter(Boolean);
  if (targets.length)
    L.push(`Peak memory of a fresh process that loads the checkpoint and embeds one 128-token input (VmHWM, the issue's measure): ${targets.join('; ')}.`,
      'The "peak at end" column below also holds the 512- and 2048-token inputs and the one-layer reference model.', '');
  // BGE-M3's shape (#40): load + one 2048-token input at 2 threads, the model alone (--no-reference), target ≤ 0.9 GiB
  let m3 = null;
  for (const run of runs)
    for (const row of run.rows)
      if (row.model === 'bge-m3-shape' && row.dtype === 'q8' && row.threads === 2 && !row.error && String(run.note ?? '').includes('--no-reference') &&
          (row.inputs ?? []).some((i) => i.tokens === 2048 && !i.error) && (!m3 || String(run.date) >= String(m3.run.date))) m3 = { run, row };
  if (m3) {
    const i = m3.row.inputs.find((x) => x.tokens === 2048);
    L.push(`BGE-M3's shape (XLM-RoBERTa-large: hidden 1024, 24 layers, vocabulary 250,002, 8,194 positions; 568 M parameters) as q8: a fresh process`,
      `that loads it and runs one 2048-token input at 2 threads peaks at **${g(m3.row.vmHwm)} GiB** (target ≤ 0.9 GiB; ${g(m3.row.vmHwmAfterLoad)} GiB after the load;`,
      `the forward ${s(i.ms)} s; ${m3.run.cpu}, ${String(m3.run.date).slice(0, 10)}, ${m3.run.note}).`, '');
  }
  L.push(`| model | dtype | threads | file GiB | load s | peak after load GiB | peak at end GiB | ${lengths.map((n) => `${n} tok ms (GFLOP/s, of ref.)`).join(' | ')} | CPU, date |`,
    `| --- | --- | ---: | ---: | ---: | ---: | ---: | ${lengths.map(() => '---:').join(' | ')} | --- |`);
  for (const { run, row } of entries) {
    const cell = (n) => {
      const i = (row.inputs ?? []).find((x) => x.tokens === n);
      if (!i) return '–';
      if (i.error) return `error: ${String(i.error).slice(0, 80)}`;
      return `${Math.round(i.ms)}${i.runs === 1 ? '¹' : ''} (${i.gflops ? i.gflops.toFixed(1) : '–'}, ${i.ofGemm ? `${Math.round(100 * i.ofGemm)} %` : '–'})`;
    };
    const tail = row.error ? [`refused: ${String(row.error).replace(/\|/g, '\\|').slice(0, 240)}`, ...lengths.slice(1).map(() => '')] : lengths.map(cell);
    L.push(`| ${row.model} | ${row.dtype} | ${row.threads} | ${g(row.fileBytes)} | ${s(row.loadMs)} | ${g(row.vmHwmAfterLoad)} | ${g(row.vmHwm)} | ${tail.join(' | ')} | ${run.cpu}, ${String(run.date).slice(0, 10)} |`);
  }
  L.push('', '¹ one run. Notes of the runs: ' + [...new Set(entries.map((e) => e.run.note).filter(Boolean))].join('; ') + '.', '');
}
