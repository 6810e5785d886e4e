// Peers at equal thread counts: relpos against onnxruntime-web with both on 1 thread and both on 2,
// in this one process. relpos: init({ simd: true }) and init({ threads: 2 }); onnxruntime-web: two
// independent copies with env.wasm.numThreads 1 and 2 (lib/ort_instances.mjs). Cases: the `ort`
// section's attention graphs (lib/peer_cases.mjs: plain, T5 bias, ALiBi, Shaw keys, DeBERTa) at the
// given seqs where ORT's graph fits, and the four end-to-end layers (lib/e2e_models.mjs) at seq 128
// and 512. Same inputs for all four contestants, interleaved rounds, wall-clock medians (process CPU
// time would add the second thread's time). Outputs are checked against the 1-thread ORT first.
// Each run starts 30 ms after the previous one ends (untimed, interleave's gapMs): onnxruntime-web's
// numThreads-2 pool keeps its pthread spinning for ~10 ms after a run (seen in /proc/self/task: ORT's
// pthread used ~8 ms CPU during the next contestant's run, none after a 30 ms pause), which would
// take the second core from whichever contestant runs next.
//
// Thread check: on the largest plain-attention case each contestant runs alone for ≥ 0.4 s while the
// CPU time of every OS thread of this process is read from /proc/self/task/*/stat (Linux); a thread
// that did ≥ 15 % of that contestant's CPU time counts as working. The 2-thread onnxruntime-web copy
// passes when two threads work for it (its main thread and its pthread) and its wall time beats its
// 1-thread copy's on that case.
import fs from 'node:fs';
import path from 'node:path';
import { interleave, maxAbsDiff, median } from './util.mjs';
import { makeBenchData } from './data.mjs';
import { ortAttentionFeeds, ortAttentionSession, ortGraphSkip, packageArgs, peerCases } from './peer_cases.mjs';
import { E2E_MODELS, ortModelSession, ortTokenFeeds, tokenIds } from './e2e_models.mjs';
import { loadOrtInstance } from './ort_instances.mjs';

export const PEER_THREAD_SCHEMES = ['none', 't5', 'alibi', 'shaw_keys', 'deberta'];
const GAP_MS = 30;
const ms = (x) => (x == null ? null : +x.toFixed(3));

// CPU milliseconds of every OS thread of this process, { tid: ms }; null where /proc is missing.
function threadCpu() {
  try {
    const out = {};
    for (const t of fs.readdirSync('/proc/self/task')) {
      const s = fs.readFileSync(`/proc/self/task/${t}/stat`, 'utf8');
      const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
      out[t] = (Number(f[11]) + Number(f[12])) * 10; // utime + stime in clock ticks of 10 ms
    }
    return out;
  } catch {
    return null;
  }
}

async function threadsAtWork(run) {
  await run();
  await new Promise((r) => setTimeout(r, GAP_MS)); // the previous contestant's pool has stopped spinning
  const a = threadCpu();
  if (!a) return null;
  const walls = [];
  const t0 = performance.now();
  while (performance.now() - t0 < 400 || walls.length < 2) {
    const t = performance.now();
    await run();
    walls.push(performance.now() - t);
  }
  const b = threadCpu();
  const per = Object.keys(b).map((t) => b[t] - (a[t] ?? 0)).filter((x) => x > 0).sort((x, y) => y - x);
  const total = per.reduce((x, y) => x + y, 0);
  const working = per.filter((x) => x >= 0.15 * total);
  return { runs: walls.length, wall_ms: ms(median(walls)), cpu_ms: total, working_threads: working.length, working_thread_cpu_ms: working };
}

function speedRow(row, r) {
  for (const k of ['relpos_1', 'relpos_2', 'ort_1', 'ort_2']) {
    row[`${k}_ms`] = ms(r[k]?.wall_median);
    if (r[k]?.error) row[`${k}_error`] = r[k].error;
  }
  row.ort_over_relpos_1 = row.relpos_1_ms && row.ort_1_ms ? +(row.ort_1_ms / row.relpos_1_ms).toFixed(3) : null;
  row.ort_over_relpos_2 = row.relpos_2_ms && row.ort_2_ms ? +(row.ort_2_ms / row.relpos_2_ms).toFixed(3) : null;
  row.relpos_scaling = row.relpos_1_ms && row.relpos_2_ms ? +(row.relpos_1_ms / row.relpos_2_ms).toFixed(3) : null;
  row.ort_scaling = row.ort_1_ms && row.ort_2_ms ? +(row.ort_1_ms / row.ort_2_ms).toFixed(3) : null;
  return row;
}

const line = (what, row) =>
  `peers at equal threads: ${what.padEnd(34)} 1 thread: relpos ${String(row.relpos_1_ms).padStart(8)} ms, ORT ${String(row.ort_1_ms).padStart(8)} ms, ORT÷relpos ${String(row.ort_over_relpos_1).padStart(6)}× | ` +
  `2 threads: relpos ${String(row.relpos_2_ms).padStart(8)} ms, ORT ${String(row.ort_2_ms).padStart(8)} ms, ORT÷relpos ${String(row.ort_over_relpos_2).padStart(6)}× | ORT 1÷2 ${row.ort_scaling}×, max |Δ| ${row.max_abs_diff?.toExponential(1)}`;

export async function peersAtEqualThreads({ rpModule, models, seqs, reps, e2eReps, log, H = 8, D = 64 }) {
  const out = { attention: [], end_to_end: [] };
  const rp = { 1: await rpModule.init({ simd: true }), 2: await rpModule.init({ threads: 2 }) };
  try {
    if (rp[2].threads !== 2) {
      out.unavailable = `relpos threads build: ${rp[2].threadsReason}`;
      return out;
    }
    const ort = { 1: await loadOrtInstance(1), 2: await loadOrtInstance(2) };
    out.ort_threads = { 1: ort[1].env.wasm.numThreads, 2: ort[2].env.wasm.numThreads };

    let check = null; // the largest plain case: where the thread check runs
    for (const S of seqs) {
      const data = makeBenchData(S, H, D);
      for (const c of peerCases(S, data, H, D).filter((x) => PEER_THREAD_SCHEMES.includes(x.name))) {
        const row = { scheme: c.name, seq: S };
        out.attention.push(row);
        const skip = ortGraphSkip(c, S);
        if (skip) { row.skipped = skip; continue; }
        const sessions = {}, feeds = {};
        try {
          for (const n of [1, 2]) {
            sessions[n] = await ortAttentionSession(ort[n], c, H, S, D);
            feeds[n] = ortAttentionFeeds(ort[n], c, data, H, S, D);
          }
        } catch (e) {
          row.error = `ORT session: ${e.message}`;
          for (const s of Object.values(sessions)) await s.release();
          continue;
        }
        const args = packageArgs(c, data, H, S, D);
        const contestants = {
          relpos_1: () => rp[1].attention(args), relpos_2: () => rp[2].attention(args),
          ort_1: () => sessions[1].run(feeds[1]), ort_2: () => sessions[2].run(feeds[2]),
        };
        const ref = (await sessions[1].run(feeds[1])).out.data;
        row.max_abs_diff = Math.max(maxAbsDiff(rp[1].attention(args).output, ref), maxAbsDiff(rp[2].attention(args).output, ref),
          maxAbsDiff((await sessions[2].run(feeds[2])).out.data, ref));
        const r = await interleave(contestants, { reps: reps[S], warm: 2, gapMs: GAP_MS });
        speedRow(row, r);
        log(line(`${c.name} attention seq ${S}`, row));
        if (c.name === 'none' && (!check || S > check.seq)) {
          check = { seq: S };
          for (const [k, f] of Object.entries(contestants)) check[k] = await threadsAtWork(f);
        }
        for (const s of Object.values(sessions)) await s.release();
      }
    }

    for (const m of E2E_MODELS) {
      const dir = path.join(models, m);
      if (!fs.existsSync(dir)) continue;
      const lm = { 1: await rp[1].loadModel(dir), 2: await rp[2].loadModel(dir) };
      const sessions = { 1: await ortModelSession(ort[1], dir), 2: await ortModelSession(ort[2], dir) };
      for (const S of [128, 512]) {
        const ids = tokenIds(dir, S);
        const feeds = { 1: ortTokenFeeds(ort[1], ids), 2: ortTokenFeeds(ort[2], ids) };
        const row = { model: m, seq: S };
        const ref = (await sessions[1].run(feeds[1])).last_hidden_state.data;
        row.max_abs_diff = Math.max(...[1, 2].map((n) => maxAbsDiff(lm[n].forward({ inputIds: ids }).lastHiddenState.data, ref)),
          maxAbsDiff((await sessions[2].run(feeds[2])).last_hidden_state.data, ref));
        const r = await interleave({
          relpos_1: () => lm[1].forward({ inputIds: ids }), relpos_2: () => lm[2].forward({ inputIds: ids }),
          ort_1: () => sessions[1].run(feeds[1]), ort_2: () => sessions[2].run(feeds[2]),
        }, { reps: e2eReps, warm: 2, gapMs: GAP_MS });
        out.end_to_end.push(speedRow(row, r));
        log(line(`e2e ${m} seq ${S}`, row));
      }
      lm[1].dispose();
      lm[2].dispose();
      await sessions[1].release();
      await sessions[2].release();
    }

    if (check) {
      const o1 = check.ort_1, o2 = check.ort_2;
      const big = out.attention.find((x) => x.scheme === 'none' && x.seq === check.seq);
      out.thread_check = {
        case: `plain attention seq ${check.seq}`, ...Object.fromEntries(['relpos_1', 'relpos_2', 'ort_1', 'ort_2'].map((k) => [k, check[k]])),
        ort_2_uses_2_threads: o2 ? o2.working_threads >= 2 && o1.working_threads === 1 : null,
        ort_2_faster_than_ort_1: big?.ort_scaling != null ? big.ort_scaling > 1 : null,
      };
      log(`peers at equal threads: thread check on ${out.thread_check.case}: ` + ['relpos_1', 'relpos_2', 'ort_1', 'ort_2'].map((k) => check[k]
        ? `${k} ${check[k].working_threads} working thread(s) (CPU ms ${check[k].working_thread_cpu_ms.join(' + ')} of ${check[k].cpu_ms}, wall ${check[k].wall_ms} ms/run)` : `${k} n/a`).join('; ') +
        `; ORT 1 thread ÷ 2 threads (interleaved medians) ${big?.ort_scaling}×`);
    }
    return out;
  } finally {
    rp[1].dispose();
    rp[2].dispose();
  }
}
