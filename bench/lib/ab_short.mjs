// Before/after A/B of the short-sequence rows (issue #19), interleaved in one run: each contestant — relpos
// from this checkout and from another copy of the package (BEFORE: its web/index.js), on 1 and 2 threads, and
// onnxruntime-web on 1 and 2 — in its own child process (lib/proc_child.mjs), children rotated per round
// (lib/proc_peers.mjs runRounds). Prints per case the median wall ms, CPU ÷ wall and the threads' demand
// (on-CPU + runnable ÷ wall) of the 2-thread children, and writes the JSON to OUT.
//   node --no-experimental-fetch bench/lib/ab_short.mjs <before web/index.js> [rounds=3] [out.json]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { modelCases, runRounds } from './proc_peers.mjs';
import { E2E_MODELS } from './e2e_models.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const [before, roundsArg, out] = process.argv.slice(2);
const rounds = +(roundsArg ?? 3);
const shapes = (process.env.AB_SHAPES ?? '1x8,1x16,1x32,1x64,8x32').split(',').map((s) => s.split('x').map(Number));
const models = (process.env.AB_MODELS ?? E2E_MODELS.join(',')).split(',');
const cases = modelCases(models, null, shapes, { modelsDir: path.resolve(ROOT, '../shared/bench-models'), q8Dir: path.resolve(ROOT, 'build/g-wasm/bench/data'), warm: 5, warmMs: 200, reps: 9 });
const base = { warm: 3, reps: 7, dtype: process.env.AB_DTYPE ?? 'fp32', cases };  // AB_DTYPE=q8: relpos q8, ORT on the dynamically quantized ONNX
const after = path.join(ROOT, 'web/index.js');
const contestants = {
  before_1: { ...base, runtime: 'relpos', threads: 1, webIndex: path.resolve(before) },
  after_1: { ...base, runtime: 'relpos', threads: 1, webIndex: after },
  before_2: { ...base, runtime: 'relpos', threads: 2, webIndex: path.resolve(before) },
  after_2: { ...base, runtime: 'relpos', threads: 2, webIndex: after },
  ort_1: { ...base, runtime: 'ort', threads: 1, webIndex: after },
  ort_2: { ...base, runtime: 'ort', threads: 2, webIndex: after },
};
const per = runRounds({ contestants, rounds, log: (s) => console.error(s), what: 'ab_short' });
const f = (x, d = 2) => (x == null ? '–' : x.toFixed(d));
const fr = per.__foreign.filter((x) => x != null);
console.log(`rounds ${rounds}; 1-min load average before the children ${Math.min(...per.__load)}–${Math.max(...per.__load)}` +
  (fr.length ? `; other sessions' runnable threads ${Math.min(...fr)}–${Math.max(...fr)} (≥ 1: a 2-thread child gets about one core)` : ''));
console.log('| case | 1t relpos before / after / ORT ms | ORT ÷ relpos 1t before / after | 2t relpos before / after / ORT ms | ORT ÷ relpos 2t before / after | 2t CPU ÷ wall before / after / ORT | 2t demand before / after / ORT |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
const rows = [];
for (const c of cases) {
  const g = (n) => per[n]?.[c.id] ?? {};
  const ms = (n) => g(n).median_ms ?? null, cw = (n) => (g(n).cpu_median_ms && g(n).median_ms ? g(n).cpu_median_ms / g(n).median_ms : null);
  const row = { id: c.id, ...Object.fromEntries(Object.keys(contestants).flatMap((n) => [[`${n}_ms`, ms(n)], [`${n}_cpu_ms`, g(n).cpu_median_ms ?? null], [`${n}_demand`, g(n).demand_median ?? null], [`${n}_error`, g(n).error ?? null]])) };
  rows.push(row);
  const r = (a, b) => (ms(a) && ms(b) ? ms(a) / ms(b) : null);
  console.log(`| ${c.id} | ${f(ms('before_1'))} / ${f(ms('after_1'))} / ${f(ms('ort_1'))} | ${f(r('ort_1', 'before_1'))}× / ${f(r('ort_1', 'after_1'))}× | ${f(ms('before_2'))} / ${f(ms('after_2'))} / ${f(ms('ort_2'))} | ${f(r('ort_2', 'before_2'))}× / ${f(r('ort_2', 'after_2'))}× | ${f(cw('before_2'))} / ${f(cw('after_2'))} / ${f(cw('ort_2'))} | ${f(g('before_2').demand_median)} / ${f(g('after_2').demand_median)} / ${f(g('ort_2').demand_median)} |`);
}
if (out) fs.writeFileSync(out, JSON.stringify({ rounds, load: per.__load, foreign_runnable: per.__foreign, rows }, null, 1));
