// Before/after A/B of one-query-at-a-time MiniLM forwards under Node (issue #41), for machines without a
// browser (the device machine) or to check a kernel change quickly: two copies of the npm package, each in
// its own child process per (copy, threads), children alternating over rounds. The rows of
// bench/cpu_chromium_peer.mjs as token ids (bench/data/cpu_peer_texts.json's token counts; ids do not change
// the cost): 16 single sentences one call each (ms = all 16), one ~300-token text, 64 texts in one call.
// Times model.forward (ids in, last hidden state out), the C++ forward and its JS copies; no tokenizer, no pooling.
//   node --no-experimental-fetch bench/lib/ab_minilm.mjs <model folder> <web A> <web B> [rounds=3] [threads=1,2]
//   AB_DTYPE=q8 (or fp16 …): loadModel's dtype for both copies; AB_QUICK=1: one rep per row
// child mode (internal): ... --child <web> <threads> <model folder>
// Prints JSON: per contestant and row the median ms over rounds; the 1-min load average per round.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const TEXTS = path.join(HERE, '../data/cpu_peer_texts.json');
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const n = s.length; return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2; };

/** Ids of `n` tokens: [CLS] … [SEP] with seeded ids below `vocab` (the model's vocabulary). */
function ids(n, seed, vocab) {
  const out = [101];
  let s = seed >>> 0;
  while (out.length < n - 1) { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; out.push(1000 + (s % (vocab - 1000))); }
  out.push(102);
  return out;
}

async function child(web, threads, folder) {
  const { init } = await import(path.resolve(web, 'index.js'));
  const rp = await init(threads > 1 ? { threads } : { simd: true });
  const files = { 'config.json': fs.readFileSync(path.join(folder, 'config.json'), 'utf8'), 'model.safetensors': new Uint8Array(fs.readFileSync(path.join(folder, 'model.safetensors'))) };
  const vocab = JSON.parse(files['config.json']).vocab_size;
  const m = await rp.loadModel(files, process.env.AB_DTYPE ? { dtype: process.env.AB_DTYPE } : {});
  const tok = JSON.parse(fs.readFileSync(TEXTS, 'utf8')).tokens;
  const singles = tok.sentences.map((n, i) => [ids(n, 7 + i, vocab)]);
  const long = [ids(tok.long, 3, vocab)];
  const L = Math.max(...tok.texts);
  const batch = tok.texts.map((n, i) => [...ids(n, 100 + i, vocab), ...new Array(L - n).fill(0)]);
  const mask = tok.texts.map((n) => [...new Array(n).fill(1), ...new Array(L - n).fill(0)]);
  const rows = {
    singles: () => { for (const s of singles) m.forward({ inputIds: s }); },
    long: () => m.forward({ inputIds: long }),
    batch64: () => m.forward({ inputIds: batch, attentionMask: mask }),
  };
  const reps = process.env.AB_QUICK ? { singles: 1, long: 1, batch64: 1 } : { singles: 9, long: 9, batch64: 3 };
  const out = { threads: rp.threads ?? 1 };
  for (const [name, fn] of Object.entries(rows)) {
    fn(); fn();
    const t = [];
    for (let i = 0; i < reps[name]; ++i) { const a = performance.now(); fn(); t.push(performance.now() - a); }
    out[name] = median(t);
  }
  process.stdout.write(JSON.stringify(out));
  process.exit(0);
}

const argv = process.argv.slice(2);
if (argv[0] === '--child') {
  await child(argv[1], Number(argv[2]), argv[3]);
} else {
  const [folder, webA, webB, roundsArg, threadsArg] = argv;
  const rounds = Number(roundsArg ?? 3), threadList = (threadsArg ?? '1,2').split(',').map(Number);
  const contestants = threadList.flatMap((t) => [['A', webA, t], ['B', webB, t]]);
  const acc = {}, load = [];
  for (let r = 0; r < rounds; ++r) {
    load.push(+os.loadavg()[0].toFixed(2));
    for (const [name, web, t] of r % 2 ? [...contestants].reverse() : contestants) {
      const key = `${name} ×${t}`;
      const res = JSON.parse(execFileSync(process.execPath, ['--no-experimental-fetch', fileURLToPath(import.meta.url), '--child', web, String(t), folder], { encoding: 'utf8', maxBuffer: 1 << 24 }));
      acc[key] ??= { threads: res.threads, singles: [], long: [], batch64: [] };
      for (const k of ['singles', 'long', 'batch64']) acc[key][k].push(res[k]);
      console.error(`round ${r + 1} ${key}: singles ${res.singles.toFixed(2)} long ${res.long.toFixed(2)} batch64 ${res.batch64.toFixed(1)} ms`);
    }
  }
  const summary = Object.fromEntries(Object.entries(acc).map(([k, v]) => [k, { threads: v.threads, ...Object.fromEntries(['singles', 'long', 'batch64'].map((x) => [x, +median(v[x]).toFixed(2)])), all: v }]));
  console.log(JSON.stringify({ cpu: os.cpus()[0]?.model, cores: os.cpus().length, node: process.version, rounds, loadavg: load, webA, webB, summary }));
}
