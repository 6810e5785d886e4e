// Interleaved A/B of two lab WebAssembly builds (issue #18) in one process, lab defaults per scheme:
//   node bench/lab_ab.mjs <old.js|.mjs> <old.wasm> <new.js> <new.wasm> [steps=300] [chunk=25] [schemes]
// Both sessions train the same run in alternating chunks of `chunk` steps (the order flips every chunk);
// then evaluate(16, 64 batches) is timed the same way; accuracy at L 16 and 64 (8 batches) is printed. Prints seconds, GFLOP/s (3 × forward
// multiply–add FLOPs per step, lab_native's count), forward GFLOP/s and the training ÷ forward ratio.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [oldJs, oldWasm, newJs, newWasm] = process.argv.slice(2, 6).map((p) => resolve(p));
const steps = Number(process.argv[6] ?? 300);
const chunk = Number(process.argv[7] ?? 25);
const schemes = (process.argv[8] ?? 'none,sinusoidal,learned,alibi,t5,rope,shaw,deberta').split(',');

async function load(js, wasm) {
  const create = (await import(pathToFileURL(js).href)).default;
  const bytes = readFileSync(wasm);
  return create({
    instantiateWasm(imports, receive) {
      WebAssembly.instantiate(bytes, imports).then(({ instance, module }) => receive(instance, module));
      return {};
    },
  });
}

const mods = { old: await load(oldJs, oldWasm), new: await load(newJs, newWasm) };
const now = () => performance.now() / 1000;
console.log('scheme      old s   new s  speedup  old GF/s new GF/s | fwd old GF/s new GF/s | ratio old new | loss old new');
for (const scheme of schemes) {
  const s = {}, t = { old: 0, new: 0 }, fe = { old: 0, new: 0 }, last = {}, all = { old: [], new: [] };
  for (const k of ['old', 'new']) s[k] = mods[k].LabSession.create({ task: 'shift-k', k: 3, symbols: 8, scheme, trainLength: 16, steps, batch: 32, dim: 64, layers: 2, heads: 4, lr: 3e-3, seed: 1, maxLength: 64 });
  let flip = false;
  for (let done = 0; done < steps; done += chunk, flip = !flip) {
    for (const k of flip ? ['new', 'old'] : ['old', 'new']) {
      const t0 = now();
      const losses = s[k].step(chunk);
      t[k] += now() - t0;
      last[k] = losses[losses.length - 1];
      all[k].push(...losses);
    }
  }
  for (let r = 0; r < 2; ++r)
    for (const k of r ? ['new', 'old'] : ['old', 'new']) {
      const t0 = now();
      s[k].evaluate(16, 64);
      fe[k] += (now() - t0) / 2;
    }
  const acc = {};
  for (const k of ['old', 'new']) acc[k] = [16, 64].map((L) => s[k].evaluate(L, 8).accuracy.toFixed(3)).join('/');
  const fps = s.old.flopsPerStep();
  const gf = (k) => (fps * steps) / t[k] / 1e9;
  const fwd = (k) => ((64 * fps) / 3 / fe[k]) / 1e9;
  console.log(
    `${scheme.padEnd(10)} ${t.old.toFixed(2).padStart(6)} ${t.new.toFixed(2).padStart(7)} ${(t.old / t.new).toFixed(2).padStart(7)}x ` +
      `${gf('old').toFixed(2).padStart(8)} ${gf('new').toFixed(2).padStart(8)} | ${fwd('old').toFixed(2).padStart(12)} ${fwd('new').toFixed(2).padStart(8)} | ` +
      `${(gf('old') / fwd('old')).toFixed(2).padStart(9)} ${(gf('new') / fwd('new')).toFixed(2).padStart(4)} | ${last.old.toFixed(4)} ${last.new.toFixed(4)} ${all.old.every((x, i) => Object.is(x, all.new[i])) ? 'losses bitwise equal' : 'losses differ'} | acc@16/64 ${acc.old} ${acc.new}`,
  );
  s.old.delete();
  s.new.delete();
}
