#!/usr/bin/env node
// relpos against Transformers.js 4.3.1 on the CPU (WebAssembly) in headless Chromium, the XLM-RoBERTa-base geometry of
// bge-reranker-base / multilingual-e5-base (12 layers, hidden 768, vocabulary 250,002, 514 positions; issue #40,
// section `xlmrpeer`). Rows, token ids in (seeded, bench/gpu/peer_ids.mjs, the ids of bench/gpu/peer.mjs's rows),
// last hidden state out, one call each:
//   pairs16   16 query–passage pairs × 128 tokens, a reranker's batch (peer.mjs's `xlmr-pairs` ids)
//   texts64   64 texts with the token counts of the cpupeer bench's 64 MiniLM texts (bench/data/cpu_peer_texts.json),
//             seeded ids, right-padded with the pad id 1 (peer.mjs's `xlmr` rule)
//   relpos           rp = init({ threads }); model = await rp.loadModel('/models/xlmr/'); model.forward({ inputIds, attentionMask })
//   Transformers.js  env.backends.onnx.wasm.numThreads = threads; AutoModel.from_pretrained('xlmr', { device: 'wasm',
//                    dtype: 'fp32' }) on ../shared/gpu-peer-models/xlm-roberta-base/model.onnx, whose weights are
//                    external data in model.safetensors; model({ input_ids, attention_mask }).last_hidden_state
// The weights: ../shared/gpu-peer-models/make-weights.mjs (seed 0) writes one model.safetensors; relpos reads it as a
// Hugging Face checkpoint and onnxruntime reads the same file as the graph's external data (session_options.externalData
// names it), so both libraries run the same bytes. fp32 on both sides. Agreement: cosine of the mean-pooled hidden
// states of every row and of sampled token vectors (first, second, middle, last valid token of 3 rows per batch).
// Fairness as bench/cpu_chromium_peer.mjs (server and browser helpers: bench/lib/chromium_page.mjs): each (library, threads) in a
// fresh browser, a small warm-up forward (2 × 16 tokens), then `reps` timed calls per row; the order of the runtimes
// flips every round; medians over rounds; the 1-min load average is recorded after every runtime.
//
//   node bench/xlmr_chromium_peer.mjs [--rounds 3] [--reps 1] [--threads 1,2] [--libs relpos,tjs] [--out file.json]
// The last stdout line is the JSON result. The weights file (1.1 GB) is generated once into bench/results/tmp/xlmr-peer/.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { batchOf, sameLengths, seededIds } from './gpu/peer_ids.mjs';
import { arg, chromiumArgs, cliResult, cosine, envChromiumArgs, freshPageRounds, median, pageMeta, peerDists, serve } from './lib/chromium_page.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..');
const GRAPH = path.resolve(ROOT, '../shared/gpu-peer-models/xlm-roberta-base');
const MAKE_WEIGHTS = path.resolve(ROOT, '../shared/gpu-peer-models/make-weights.mjs');
const TMP = path.join(HERE, 'results/tmp/xlmr-peer');
const TEXTS = path.join(HERE, 'data/cpu_peer_texts.json');  // the cpupeer bench's inputs: texts64 takes their token counts

/** The model folder both libraries read: config.json, model.safetensors (generated, seed 0), onnx/model.onnx. */
function buildFolder() {
  const dir = path.join(TMP, 'xlmr');
  const stamp = path.join(dir, '.complete');
  if (fs.existsSync(stamp)) return dir;
  fs.mkdirSync(path.join(dir, 'onnx'), { recursive: true });
  fs.copyFileSync(path.join(GRAPH, 'config.json'), path.join(dir, 'config.json'));
  fs.copyFileSync(path.join(GRAPH, 'safetensors-header.json'), path.join(dir, 'safetensors-header.json'));
  fs.copyFileSync(path.join(GRAPH, 'model.onnx'), path.join(dir, 'onnx', 'model.onnx'));
  execFileSync(process.execPath, [MAKE_WEIGHTS, dir], { stdio: 'inherit' });
  fs.writeFileSync(stamp, '');
  return dir;
}

/** The two rows' padded batches (ids as numbers), from the config. */
export function xlmrRows(cfg) {
  const tokens = JSON.parse(fs.readFileSync(TEXTS, 'utf8')).tokens.texts;
  const like = tokens.map((n) => new Array(n));
  const one128 = (seed) => seededIds(128, 3, cfg.vocab_size, cfg.pad_token_id, seed);
  return {
    pairs16: batchOf(Array.from({ length: 16 }, (_, i) => one128(61 + i)), cfg.pad_token_id),
    texts64: batchOf(sameLengths(like, cfg, 51), cfg.pad_token_id),
  };
}

/** Runs inside a fresh page: loads one runtime, a warm-up forward, `reps` timed calls per row. */
async function inPage({ lib, web, threads, rows, warm, reps }) {
  const { errorText: err, browserFacts } = await import('/page/peer_page.mjs');  // bench/page/
  const out = { lib, threads, ms: {}, check: {} };
  try {
    let forward;  // (batch) → { data: Float32Array, dims: [b, n, h] }
    const t0 = performance.now();
    if (lib === 'relpos') {
      const { init } = await import(`/${web}/index.js`);
      const rp = await init(threads > 1 ? { threads, wasmPaths: `/${web}/dist/` } : { simd: true, wasmPaths: `/${web}/dist/` });
      out.threads_got = rp.threads ?? 1;
      const model = await rp.loadModel('/models/xlmr/');
      forward = async (b) => model.forward({ inputIds: b.inputIds, attentionMask: b.attentionMask }).lastHiddenState;
    } else {
      const { loadTransformers } = await import('/page/transformers_env.mjs');  // bench/page/: the env every peer page sets
      const T = await loadTransformers({ threads });
      out.version = T.env.version;
      // the graph's initializers point at byte ranges of model.safetensors (its external data location)
      const model = await T.AutoModel.from_pretrained('xlmr', { device: 'wasm', dtype: 'fp32',
        session_options: { externalData: [{ path: 'model.safetensors', data: 'model.safetensors' }] } });
      const int64 = (rowsOf) => new T.Tensor('int64', BigInt64Array.from(rowsOf.flat(), BigInt), [rowsOf.length, rowsOf[0].length]);
      forward = async (b) => {
        const r = await model({ input_ids: int64(b.inputIds), attention_mask: int64(b.attentionMask) });
        return { data: r.last_hidden_state.data, dims: r.last_hidden_state.dims };
      };
      out.threads_got = T.env.backends.onnx.wasm.numThreads;
    }
    await forward(warm);
    out.load_ms = +(performance.now() - t0).toFixed(1);
    for (const [name, b] of Object.entries(rows)) {
      out.ms[name] = [];
      for (let i = 0; i < reps; ++i) {
        const a = performance.now();
        const h = await forward(b);
        out.ms[name].push(+(performance.now() - a).toFixed(1));
        if (i) continue;
        // kept for the agreement check: every row's mean over its valid tokens, and 4 token vectors of 3 rows
        const [B, N, H] = h.dims;
        const mean = [], tokens = [];
        for (let r = 0; r < B; ++r) {
          const valid = b.attentionMask[r].reduce((s, x) => s + x, 0);
          const m = new Float64Array(H);
          for (let t = 0; t < valid; ++t) for (let j = 0; j < H; ++j) m[j] += h.data[(r * N + t) * H + j];
          mean.push(Array.from(m, (x) => x / valid));
          if (r === 0 || r === B >> 1 || r === B - 1)
            for (const t of [0, 1, valid >> 1, valid - 1]) tokens.push(Array.from(h.data.subarray((r * N + t) * H, (r * N + t + 1) * H)));
        }
        out.check[name] = { mean, tokens };
      }
    }
  } catch (e) {
    out.error = err(e);
  }
  return Object.assign(out, browserFacts());
}

export async function xlmrChromiumPeer({ rounds = 3, reps = 1, threadList = [1, 2], libs = ['relpos', 'tjs'], log = () => {} } = {}) {
  const dists = peerDists();
  if (dists.unavailable) return dists;
  if (!fs.existsSync(path.join(GRAPH, 'model.onnx'))) return { unavailable: `${GRAPH} is missing` };
  if (libs.includes('relpos') && !fs.existsSync(path.join(ROOT, 'web/dist/relpos-simd-threads.wasm'))) return { unavailable: 'web/dist is not built (bash scripts/build.sh --package)' };
  const dir = buildFolder();
  const cfg = JSON.parse(fs.readFileSync(path.join(dir, 'config.json'), 'utf8'));
  const rows = xlmrRows(cfg);
  const warm = batchOf([seededIds(16, 3, cfg.vocab_size, cfg.pad_token_id, 5), seededIds(9, 3, cfg.vocab_size, cfg.pad_token_id, 6)], cfg.pad_token_id);
  const { server, url } = await serve({ tjs: dists.tjs, ort: dists.ort, models: TMP, web0: path.join(ROOT, 'web') }, { title: 'relpos vs Transformers.js, CPU', text: 'cpu peer bench' });
  const runtimes = threadList.flatMap((threads) => [
    { key: `relpos fp32 ×${threads}`, lib: 'relpos', web: 'web0', threads },
    { key: `Transformers.js fp32 ×${threads}`, lib: 'tjs', threads },
  ].filter((r) => libs.includes(r.lib)));
  const loadavg = [];
  const results = Object.fromEntries(runtimes.map((r) => [r.key, { ...r, ms: Object.fromEntries(Object.keys(rows).map((k) => [k, []])), load_ms: [] }]));
  let meta = {};
  await freshPageRounds({ server, url, args: chromiumArgs(envChromiumArgs()), tmp: TMP, runtimes, rounds }, async (page, rt, round) => {
    const r = await page.evaluate(inPage, { lib: rt.lib, web: rt.web, threads: rt.threads, rows, warm, reps });
    const acc = results[rt.key];
    const load = os.loadavg().map((x) => +x.toFixed(2));
    loadavg.push({ round: round + 1, runtime: rt.key, loadavg: load });
    if (r.error) { acc.error = r.error; log(`xlmrpeer ${rt.key}: ${r.error}`); return; }
    for (const k of Object.keys(acc.ms)) acc.ms[k].push(...r.ms[k]);
    acc.load_ms.push(r.load_ms);
    acc.threads_got = r.threads_got;
    if (!acc.check) acc.check = r.check;
    meta = pageMeta(r, meta);
    log(`xlmrpeer round ${round + 1} ${rt.key}: ${Object.entries(r.ms).map(([k, v]) => `${k} ${v}`).join(' ')} load ${r.load_ms} (load avg ${load.join(' ')})`);
  });
  const out = [];
  for (const r of Object.values(results)) {
    const row = { runtime: r.key, lib: r.lib, threads: r.threads, threads_got: r.threads_got, dtype: 'fp32', error: r.error };
    if (!r.error && r.load_ms.length) {
      row.ms = Object.fromEntries(Object.entries(r.ms).map(([k, v]) => [k, +median(v).toFixed(1)]));
      row.ms_all = r.ms;
      row.load_ms = +median(r.load_ms).toFixed(1);
    }
    out.push(row);
  }
  // agreement: the smallest cosine of relpos's vectors to Transformers.js's at the same thread count
  for (const row of out) {
    const mine = results[row.runtime].check, peer = results[`Transformers.js fp32 ×${row.threads}`]?.check;
    if (row.lib !== 'relpos' || !mine || !peer) continue;
    row.min_cosine_vs_transformers_js = {};
    for (const [k, v] of Object.entries(mine))
      for (const kind of ['mean', 'tokens'])
        row.min_cosine_vs_transformers_js[`${k}_${kind}`] = +Math.min(...v[kind].map((e, i) => cosine(e, peer[k][kind][i]))).toFixed(7);
  }
  const tokens = Object.fromEntries(Object.entries(rows).map(([k, b]) => [k, b.attentionMask.map((m) => m.reduce((s, x) => s + x, 0))]));
  return { model: 'XLM-RoBERTa-base geometry (bge-reranker-base / multilingual-e5-base; random weights, make-weights.mjs seed 0)', ...meta, rounds, reps, tokens,
    date: new Date().toISOString(), cores: os.cpus().length, cpu: os.cpus()[0]?.model, loadavg, rows: out };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await cliResult(() => xlmrChromiumPeer({ rounds: Number(arg('rounds', 3)), reps: Number(arg('reps', 1)), threadList: arg('threads', '1,2').split(',').map(Number),
    libs: arg('libs', 'relpos,tjs').split(','), log: (...a) => console.error(...a) }), { indent: 1, end: '\n' });
}
