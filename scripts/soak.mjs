#!/usr/bin/env node
// Soak test for leaks: many attention calls mixing schemes and options, and many model
// load/forward/dispose cycles, in one runtime per build. Prints the WebAssembly heap high-water
// mark (HEAP8.buffer.byteLength: the heap only ever grows, so its size is the high-water mark)
// after warm-up and at the end, and exits 1 if it grew.
//
//   node scripts/soak.mjs [--calls 100000] [--models 1000] [--build simd|scalar|both] [--out bench/results/soak.json]
//
// --out writes the run as JSON (docs/robustness.md quotes bench/results/soak.json; tests/js/docs/figures.mjs
// checks the sentence against it).
// Models come from the HF fixtures (../shared/fixtures/hf or $RELPOS_HF_FIXTURES); without them
// the model cycles are skipped (reported). npm test runs the same loops with smaller counts:
// tests/js/heap.test.mjs (10,000 calls per build) and tests/js/models.test.mjs (50 cycles per build).
import { execSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';

import { init } from '../web/index.js';
import { randomArray } from '../tests/js/helpers.mjs';
import { FIXTURES, haveFixtures } from '../tests/js/safetensors.mjs';

const args = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const CALLS = Number(arg('calls', 100000));
const MODELS = Number(arg('models', 1000));
const BUILDS = { simd: [true], scalar: [false], both: [true, false] }[arg('build', 'both')];
const OUT = arg('out', null);
if (!Number.isInteger(CALLS) || !Number.isInteger(MODELS) || !BUILDS) {
  console.error('usage: node scripts/soak.mjs [--calls N] [--models N] [--build simd|scalar|both]');
  process.exit(2);
}
const WARM_CALLS = 500, WARM_MODELS = 12;
const MODEL_NAMES = ['bert-absolute', 'deberta-v2-b-v3like', 't5-a-classic', 'llama-rope'];

function schemesFor(rp, heads, headDim) {
  const all = [
    { type: 'none' },
    { type: 'sinusoidal' },
    { type: 'rope' },
    { type: 'alibi', slopes: 'bloom' },
    { type: 't5', numBuckets: 8, maxDistance: 16, biasTable: randomArray(8 * heads, 4) },
    { type: 'shaw', maxDistance: 4, keyTable: randomArray(9 * headDim, 5), valueTable: randomArray(9 * headDim, 6) },
    { type: 'huang', maxDistance: 4, table: randomArray(9 * headDim, 7) },
    { type: 'deberta', buckets: 8, maxRelative: 16, posKey: randomArray(heads * 16 * headDim, 8), posQuery: randomArray(heads * 16 * headDim, 9) },
  ];
  return all.filter((s) => rp.schemes.includes(s.type));
}

async function soak(simd) {
  const label = simd ? 'SIMD' : 'scalar';
  const rp = await init({ simd });
  const started = performance.now();
  // Sizes vary with the call index so the workspace sees several shapes.
  const shapes = [
    { batch: 1, heads: 4, seqLen: 16, headDim: 16 },
    { batch: 2, heads: 4, seqLen: 32, headDim: 16 },
    { batch: 1, heads: 4, seqLen: 67, headDim: 16 },
  ];
  const inputs = shapes.map((s, i) => {
    const n = s.batch * s.heads * s.seqLen * s.headDim;
    return { q: randomArray(n, 3 * i + 1), k: randomArray(n, 3 * i + 2), v: randomArray(n, 3 * i + 3), mask: new Uint8Array(s.batch * s.seqLen).fill(1) };
  });
  const schemes = schemesFor(rp, 4, 16);
  const call = (i) => {
    const s = i % shapes.length;
    const r = rp.attention({
      q: inputs[s].q, k: inputs[s].k, v: inputs[s].v, ...shapes[s],
      scheme: schemes[i % schemes.length],
      causal: i % 3 === 0,
      mask: i % 4 === 0 ? inputs[s].mask : undefined,
      returnProbs: i % 5 === 0,
      returnTerms: i % 7 === 0,
    });
    if (r.output.length !== inputs[s].q.length) throw new Error(`call ${i}: wrong output length`);
  };

  const files = haveFixtures
    ? MODEL_NAMES.map((n) => ({
        config: readFileSync(join(FIXTURES, n, 'config.json'), 'utf8'),
        weights: new Uint8Array(readFileSync(join(FIXTURES, n, 'model.safetensors'))),
        ids: JSON.parse(readFileSync(join(FIXTURES, n, 'input.json'), 'utf8')).input_ids,
      }))
    : [];
  const cycle = async (i) => {
    const f = files[i % files.length];
    const model = await rp.loadModel({ 'config.json': f.config, 'model.safetensors': f.weights });
    model.forward({ inputIds: f.ids }, { outputHiddenStates: i % 2 === 0, outputAttentions: i % 3 === 0 });
    model.dispose();
  };
  const models = files.length ? MODELS : 0;

  for (let i = 0; i < WARM_CALLS; ++i) call(i);
  for (let i = 0; i < (files.length ? WARM_MODELS : 0); ++i) await cycle(i);
  const afterWarmUp = rp.heapBytes;
  // times: CPU time of this (single-threaded) process, which a shared machine's load does not inflate
  const cpuMs = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const t0 = cpuMs();
  for (let i = 0; i < CALLS; ++i) call(i);
  const tCalls = cpuMs() - t0;
  const afterCalls = rp.heapBytes;
  const t1 = cpuMs();
  for (let i = 0; i < models; ++i) await cycle(i);
  const tModels = cpuMs() - t1;
  const end = rp.heapBytes;
  rp.dispose();
  const grew = end > afterWarmUp;
  rows.push({ build: label, calls: CALLS, calls_cpu_s: tCalls / 1000, models, models_cpu_s: tModels / 1000, heap_after_warmup: afterWarmUp, heap_after_calls: afterCalls, heap_end: end, grew });
  console.log(
    `${label}: ${CALLS} attention calls (${schemes.length} schemes: ${schemes.map((s) => s.type).join(', ')}) in ${(tCalls / 1000).toFixed(1)} s CPU, ` +
      `${models} model load/forward/dispose cycles${files.length ? '' : ' (no HF fixtures: skipped)'} in ${(tModels / 1000).toFixed(1)} s CPU\n` +
      `  heap high-water mark: after warm-up ${afterWarmUp} bytes, after the calls ${afterCalls}, at the end ${end} ` +
      `→ ${grew ? `GREW by ${end - afterWarmUp} bytes` : 'no growth'} (total ${((performance.now() - started) / 1000).toFixed(1)} s)`,
  );
  return !grew;
}

const rows = [];
const t0 = performance.now(), load0 = loadavg()[0];
let ok = true;
for (const simd of BUILDS) ok = (await soak(simd)) && ok;
if (OUT) {
  let commit = null;
  try {
    commit = execSync('git rev-parse --short HEAD', { encoding: 'utf8' }).trim();
    if (execSync('git status --porcelain --untracked-files=no', { encoding: 'utf8' }).trim()) commit += ' + uncommitted changes';
  } catch {
    // not a checkout
  }
  const run = { date: new Date().toISOString(), commit, node: process.version, cpu: cpus()[0]?.model, cores: cpus().length,
    loadavg_at_start: load0, loadavg_at_end: loadavg()[0], wall_s: (performance.now() - t0) / 1000,
    cpu_s: (process.cpuUsage().user + process.cpuUsage().system) / 1e6,
    max_rss_bytes: process.resourceUsage().maxRSS * 1024, exit: ok ? 0 : 1, rows };
  writeFileSync(OUT, JSON.stringify(run, null, 1) + '\n');
}
process.exit(ok ? 0 : 1);
