// Child process of the separate-process peers (lib/proc_peers.mjs): ONE runtime — relpos (the npm
// package) or onnxruntime-web — at ONE thread count and dtype, alone in this process, times a list of
// cases and prints one JSON line { cases: [{ id, runs_ms, median_ms, sample } | { id, skipped | error }] }.
//   node proc_child.mjs '<spec JSON>'
// spec: { runtime: 'relpos' | 'ort', threads: 1 | 2, dtype: 'fp32' | 'q8', webIndex, reps, warm, warmMs,
//         cases: [{ id, kind: 'model', dir, onnx?, q8Onnx?, files?, batch, seq }
//                 | { id, kind: 'attention', scheme, seq }] }
// Model cases feed token ids (lib/e2e_models.mjs tokenIds, row b shifted by b) with an all-ones mask;
// attention cases the peer section's graphs (lib/peer_cases.mjs), batch 1, 8 heads, head_dim 64.
// Times are wall clock (one runtime in the process: its threads are the only ones of this process).
// `sample`: 64 output values from the start and the end, for the parent's agreement check.
import fs from 'node:fs';
import path from 'node:path';
import { median } from './util.mjs';
import { makeBenchData } from './data.mjs';
import { ortAttentionFeeds, ortAttentionSession, packageArgs, peerCases } from './peer_cases.mjs';
import { tokenIds } from './e2e_models.mjs';

const spec = JSON.parse(process.argv[2]);
const H = 8, D = 64;

const idsFor = (dir, batch, seq) => {
  const rows = [];
  for (let b = 0; b < batch; ++b) {
    const base = tokenIds(dir, Math.max(seq, 129)).slice(0, seq);  // the fixed pattern (input.json only at exactly 128)
    rows.push(seq === 128 && batch === 1 ? tokenIds(dir, 128) : base.map((x, i) => (x + 31 * b) % 512));
  }
  return rows;
};
const sample = (a) => Array.from(a.length <= 128 ? a : [...a.subarray(0, 64), ...a.subarray(a.length - 64)]);

// Per-thread scheduler accounting (Linux /proc/self/task/*/schedstat): ms on a CPU and ms runnable but
// waiting for one. demand = Σ threads (on-CPU + runnable) ÷ wall: how many cores this process's threads
// wanted, whatever the shared machine granted (CPU ÷ wall). null where there is no /proc.
function sched() {
  try {
    const out = {};
    for (const t of fs.readdirSync('/proc/self/task')) {
      const [on, wait] = fs.readFileSync(`/proc/self/task/${t}/schedstat`, 'utf8').split(' ').map(Number);
      out[t] = (on + wait) / 1e6;
    }
    return out;
  } catch {
    return null;
  }
}
const demandMs = (s0, s1) => (s0 && s1 ? Object.keys(s1).reduce((a, t) => a + (s0[t] === undefined ? 0 : s1[t] - s0[t]), 0) : null);

async function timeIt(fn, c) {
  const t0 = performance.now();
  const warm = c.warm ?? spec.warm, warmMs = c.warmMs ?? spec.warmMs ?? 0, reps = c.reps ?? spec.reps;
  for (let w = 0; w < warm || performance.now() - t0 < warmMs; ++w) {
    await fn();
    if (w > 200) break;
  }
  const runs = [], cpu = [];
  // demand over the whole timed loop (reading /proc per run would count the reads themselves)
  const s0 = sched(), loop0 = performance.now();
  for (let r = 0; r < reps; ++r) {
    const c = process.cpuUsage();
    const t = performance.now();
    await fn();
    runs.push(performance.now() - t);
    const u = process.cpuUsage(c);
    cpu.push((u.user + u.system) / 1000);
  }
  const d = demandMs(s0, sched()), loopMs = performance.now() - loop0;
  // cpu: process CPU time (all threads) — on 1 thread the same work without the time other processes held the core
  // demand: cores wanted (on-CPU + runnable, all threads) ÷ wall over the timed runs — near 2 on 2 threads even when
  // the machine granted one (a spinning pool such as onnxruntime-web's also counts its spin between runs)
  return { runs_ms: runs.map((x) => +x.toFixed(3)), median_ms: +median(runs).toFixed(3), cpu_median_ms: +median(cpu).toFixed(3),
    demand_median: d === null ? null : +(d / loopMs).toFixed(3) };
}

async function relposCases() {
  const rpModule = await import(spec.webIndex);
  const rp = spec.threads > 1 ? await rpModule.init({ threads: spec.threads }) : await rpModule.init({ simd: true });
  if (rp.threads !== spec.threads) throw new Error(`relpos started ${rp.threads} thread(s), not ${spec.threads}: ${rp.threadsReason}`);
  const models = new Map();
  const model = async (c) => {
    const key = c.files ? JSON.stringify(c.files) : c.dir;
    if (!models.has(key)) {
      let src = c.dir;
      if (c.files) src = Object.fromEntries(Object.entries(c.files).map(([k, f]) => [k, k.endsWith('.json') ? fs.readFileSync(f, 'utf8') : new Uint8Array(fs.readFileSync(f))]));
      models.set(key, await rp.loadModel(src, spec.dtype === 'q8' ? { dtype: 'q8' } : {}));
    }
    return models.get(key);
  };
  const out = [];
  for (const c of spec.cases) {
    try {
      if (c.kind === 'model') {
        const m = await model(c);
        if (spec.dtype === 'q8' && m.info.dtype !== 'q8') { out.push({ id: c.id, skipped: 'q8 not available' }); continue; }
        const inputIds = idsFor(c.dir, c.batch, c.seq);
        const s = sample(m.forward({ inputIds }).lastHiddenState.data);
        out.push({ id: c.id, ...(await timeIt(() => m.forward({ inputIds }), c)), sample: s });
      } else {
        const data = makeBenchData(c.seq, H, D);
        const pc = peerCases(c.seq, data, H, D).find((x) => x.name === c.scheme);
        const args = packageArgs(pc, data, H, c.seq, D);
        const s = sample(rp.attention(args).output);
        out.push({ id: c.id, ...(await timeIt(() => rp.attention(args), c)), sample: s });
      }
    } catch (e) {
      out.push({ id: c.id, error: String(e.message ?? e).slice(0, 300) });
    }
  }
  return out;
}

async function ortCases() {
  const ort = await import('onnxruntime-web');
  ort.env.wasm.numThreads = spec.threads;
  ort.env.wasm.simd = true;
  ort.env.wasm.proxy = false;
  ort.env.logLevel = 'error';
  const sessions = new Map();
  const out = [];
  for (const c of spec.cases) {
    try {
      if (c.kind === 'model') {
        const file = spec.dtype === 'q8' ? c.q8Onnx : c.onnx;
        if (!file || !fs.existsSync(file)) { out.push({ id: c.id, skipped: `no ${spec.dtype === 'q8' ? 'dynamically quantized ' : ''}ONNX export` }); continue; }
        if (!sessions.has(file)) {
          const opts = { executionProviders: ['wasm'], graphOptimizationLevel: 'all' };
          const ext = path.join(path.dirname(file), 'model.safetensors');
          if (spec.dtype !== 'q8' && fs.existsSync(ext)) opts.externalData = [{ path: 'model.safetensors', data: fs.readFileSync(ext) }];
          sessions.set(file, await ort.InferenceSession.create(fs.readFileSync(file), opts));
        }
        const session = sessions.get(file);
        const rows = idsFor(c.dir, c.batch, c.seq);
        const n = c.batch * c.seq;
        const feeds = {
          input_ids: new ort.Tensor('int64', BigInt64Array.from(rows.flat(), BigInt), [c.batch, c.seq]),
          attention_mask: new ort.Tensor('int64', new BigInt64Array(n).fill(1n), [c.batch, c.seq]),
        };
        const s = sample((await session.run(feeds)).last_hidden_state.data);
        out.push({ id: c.id, ...(await timeIt(() => session.run(feeds), c)), sample: s });
      } else {
        const data = makeBenchData(c.seq, H, D);
        const pc = peerCases(c.seq, data, H, D).find((x) => x.name === c.scheme);
        const session = await ortAttentionSession(ort, pc, H, c.seq, D);
        const feeds = ortAttentionFeeds(ort, pc, data, H, c.seq, D);
        const s = sample((await session.run(feeds)).out.data);
        out.push({ id: c.id, ...(await timeIt(() => session.run(feeds), c)), sample: s });
        await session.release();
      }
    } catch (e) {
      out.push({ id: c.id, error: String(e.message ?? e).slice(0, 300) });
    }
  }
  return out;
}

const cases = spec.runtime === 'ort' ? await ortCases() : await relposCases();
process.stdout.write(JSON.stringify({ cases }) + '\n');
process.exit(0);  // onnxruntime-web's and relpos's worker threads would keep the process alive
