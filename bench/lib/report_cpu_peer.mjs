// relpos against Transformers.js on the CPU in Chromium, real all-MiniLM-L6-v2, one query at a time (issue #41):
// bench/cpu_chromium_peer.mjs writes a run; `BENCH_SECTIONS=cpupeer npm run bench` (or the script with --out) and a
// commit put it in bench/results/cpu-peer/<date>-<label>.json. The section shows every committed run, oldest first
// (a before/after pair reads as two tables), each naming its CPU, load average and relpos commit.
//   cpuPeerResults(resultsDir) → [run…]      cpuPeerMarkdown(runs, L)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const TARGET = 1.5;
const f = (x, d = 1) => (x == null || Number.isNaN(x) ? '–' : x.toFixed(d));
const ROWS = [['batch64', '64 texts in one call'], ['singles', '16 single sentences, one call each'], ['long', 'one ~300-token text']];

export function cpuPeerResults(resultsDir) {
  const dir = path.join(resultsDir, 'cpu-peer');
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).filter((f) => f.endsWith('.json') && !f.startsWith('profile')).sort()
    .map((f) => ({ file: path.join('bench/results/cpu-peer', f), ...JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) }))
    .filter((r) => !r.unavailable && r.rows);
}

/** The committed per-call profiles of single queries (lib/profile_singles.mjs → cpu-peer/profile-*.json), oldest first. */
export function singlesProfiles(resultsDir) {
  const dir = path.join(resultsDir, 'cpu-peer');
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).filter((f) => f.startsWith('profile') && f.endsWith('.json')).sort()
    .map((f) => ({ file: path.join('bench/results/cpu-peer', f), ...JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) }))
    .filter((r) => r.rows);
}

const PART_NAMES = { tokenizer: 'tokenizer', js_copies: 'JS ↔ heap copies', embeddings: 'embeddings', gemm: 'GEMMs', attention: 'attention',
  norms_activations: 'norms + activations', pooling: 'pooler (C++)', js_pooling: 'pooling (JS)', thread_wakeups: 'wake-ups + joins', other: 'other C++' };

function profileMarkdown(p, L) {
  L.push(`Where one call's time goes (per-call profile, lib/profile_singles.mjs over the profiled package build; relpos ${p.relpos_commit}${p.relpos_worktree_dirty ? ' + uncommitted changes' : ''},`,
    `${String(p.date).slice(0, 16)}Z, ${p.cpu} (${p.cores} cores), Node ${p.node}, 1-min load average ${p.loadavg.map((x) => x[0]).join(' → ')}, ${p.reps} calls averaged, wall clock; \`${p.file}\`).`,
    `GEMM GFLOP/s = the linear layers' flops (2 · tokens · 6 · (4·384² + 2·384·1536)) over their time; regions = parallel regions per call.${p.note ? ' Note: ' + p.note + '.' : ''}`, '');
  L.push(`| threads | tokens | ms / call | GEMM GFLOP/s | regions | ${Object.values(PART_NAMES).join(' | ')} |`, `| ---: | ---: | ---: | ---: | ---: | ${Object.keys(PART_NAMES).map(() => '---:').join(' | ')} |`);
  for (const r of p.rows) {
    const pc = (k) => (r.total_ms ? `${f((100 * (r.parts_ms[k] ?? 0)) / r.total_ms, 0)} %` : '–');
    L.push(`| ${r.threads} | ${r.tokens} | ${f(r.total_ms, 2)} | ${f(r.gemm_gflops, 1)} | ${r.threads > 1 ? f(r.regions_per_call, 0) : '–'} | ${Object.keys(PART_NAMES).map(pc).join(' | ')} |`);
  }
  L.push('');
}

export function cpuPeerMarkdown(runs, L, profiles = []) {
  L.push('## One query at a time on the CPU: relpos vs Transformers.js in Chromium (`cpupeer`: bench/cpu_chromium_peer.mjs)', '');
  for (const p of profiles) profileMarkdown(p, L);
  if (!runs.length) {
    L.push('No committed run (bench/results/cpu-peer/).', '');
    return;
  }
  L.push('Real all-MiniLM-L6-v2 (trained weights, fp32 on both sides) embedding text in headless Chromium: texts in, mean-pooled',
    'L2-normalised embeddings out (`pipeline(\'feature-extraction\', …)` in both libraries). Each (library, threads) runs in a fresh',
    'browser, a warm-up pass over the singles and the long text, then the runtimes alternate over rounds (order flipped every round);',
    'medians over rounds. relpos q8',
    `(8-bit linear layers) beside them. Target (issue #41): relpos fp32 ≥ ${TARGET}× faster on every row at 1 and 2 threads.`, '');
  // the spread of each ratio over the committed runs (one line per relpos label), before the runs themselves
  const spread = {};
  for (const run of runs)
    for (const th of [1, 2]) {
      const tj = run.rows.find((r) => r.lib === 'tjs' && r.threads === th && !r.error);
      for (const r of run.rows.filter((x) => x.lib === 'relpos' && x.threads === th && !x.error))
        for (const [k] of ROWS) {
          if (!tj?.ms?.[k] || !r.ms?.[k]) continue;
          const key = `${r.label ?? 'relpos'} ${r.dtype}`;
          ((spread[key] ??= {})[`${th}/${k}`] ??= []).push(tj.ms[k] / r.ms[k]);
        }
    }
  const peerRuns = runs.filter((run) => run.rows.some((r) => r.lib === 'tjs')).length;
  if (peerRuns > 1)
    L.push(`Transformers.js ÷ relpos over the ${peerRuns} runs with the peer below (lowest–highest median of a run): ` + Object.entries(spread).map(([key, v]) =>
      `${key}: ` + [1, 2].flatMap((th) => ROWS.filter(([k]) => v[`${th}/${k}`]).map(([k]) => `${k} ×${th} ${f(Math.min(...v[`${th}/${k}`]), 2)}–${f(Math.max(...v[`${th}/${k}`]), 2)}`)).join(', ')).join('; ') + '.', '');
  for (const run of runs) {
    const t = run.tokens ?? {};
    const sl = t.sentences ?? [];
    L.push(`**${run.label ?? path.basename(run.file, '.json')}** — relpos ${run.relpos_commit ?? '?'}, ${String(run.date ?? '').slice(0, 16)}Z, ${run.cpu ?? 'CPU ?'} (${run.cores ?? '?'} cores),`,
      `${run.chromium ?? 'Chromium'}, Transformers.js ${run.transformers_js ?? 'not in this run'}, ${run.rounds} rounds; 1-min load average ${(run.loadavg ?? []).map((x) => x[0]).join(' → ')}`,
      `(\`${run.file}\`). Sentences ${Math.min(...sl)}–${Math.max(...sl)} tokens (${sl.reduce((a, b) => a + b, 0)} in all), long text ${t.long ?? '?'} tokens,`,
      `64 texts ${t.texts ? `${Math.min(...t.texts)}–${Math.max(...t.texts)}` : '?'} tokens.${run.note ? ' ' + run.note : ''}`, '');
    const labels = [...new Set(run.rows.filter((r) => r.lib === 'relpos').map((r) => r.label ?? 'relpos'))];
    const q8Label = run.rows.find((r) => r.lib === 'relpos' && r.dtype === 'q8')?.label ?? 'relpos';
    L.push(`| threads | row | ${labels.map((l) => `${l} fp32 ms`).join(' | ')} | Transformers.js ms | ${labels.map((l) => `Transformers.js ÷ ${l}`).join(' | ')} | ${q8Label} q8 ms | Transformers.js ÷ q8 |`,
      `| ---: | --- | ${labels.map(() => '---:').join(' | ')} | ---: | ${labels.map(() => '---:').join(' | ')} | ---: | ---: |`);
    const threads = [...new Set(run.rows.map((r) => r.threads))].sort();
    for (const th of threads) {
      const get = (lib, dtype, label) => run.rows.find((r) => r.threads === th && r.lib === lib && r.dtype === dtype && (label == null || (r.label ?? 'relpos') === label));
      const tj = get('tjs', 'fp32'), q8 = get('relpos', 'q8', q8Label);
      const rps = labels.map((l) => get('relpos', 'fp32', l));
      const ratio = (a, b) => (a && b ? `**${f(b / a, 2)}×**${b / a < TARGET ? ' (below target)' : ''}` : '–');
      for (const [k, name] of ROWS) {
        const b = tj?.ms?.[k], q = q8?.ms?.[k];
        L.push(`| ${th} | ${name} | ${rps.map((r) => f(r?.ms?.[k])).join(' | ')} | ${f(b)} | ${rps.map((r) => ratio(r?.ms?.[k], b)).join(' | ')} | ${f(q)} | ${q && b ? `${f(b / q, 2)}×` : '–'} |`);
      }
      L.push(`| ${th} | model load + first embedding | ${rps.map((r) => f(r?.load_ms, 0)).join(' | ')} | ${f(tj?.load_ms, 0)} | ${rps.map((r) => (r?.load_ms && tj?.load_ms ? `${f(tj.load_ms / r.load_ms, 2)}×` : '–')).join(' | ')} | ${f(q8?.load_ms, 0)} | |`);
    }
    L.push('');
    const parts = run.rows.filter((r) => r.lib === 'relpos' && r.singles_parts);
    if (parts.length)
      L.push('relpos\'s 16 single sentences split at the JavaScript level (model.encode, model.forward, pool; ms for all 16): ' +
        parts.map((r) => `${r.label ?? 'relpos'} ${r.dtype} ×${r.threads}: tokenizer ${f(r.singles_parts.tokenizer, 2)}, forward ${f(r.singles_parts.forward, 1)}, pooling ${f(r.singles_parts.pooling, 2)}`).join('; ') + '.', '');
    const cos = run.rows.filter((r) => r.min_cosine_vs_transformers_js != null);
    if (cos.length) L.push('Smallest cosine of relpos\'s embeddings to Transformers.js\'s (every text of every row): ' + cos.map((r) => `${r.runtime} ${r.min_cosine_vs_transformers_js}`).join(', ') + '.', '');
  }
}

/**
 * A Chromium peer bench's section of npm run bench: `bench/<script>` in a child process (`--rounds`), its run written to
 * `<resultsDir>/<dir>/<date>-<label>.json` (commit it: the docs render every committed run).
 */
export function peerScriptSection({ script, dir, name, resultsDir, rounds = 3, label = 'bench', commit, log, timeoutMin = 60 }) {
  const file0 = path.join(path.dirname(new URL(import.meta.url).pathname), '..', script);
  const r = spawnSync(process.execPath, [file0, '--rounds', String(rounds)], { encoding: 'utf8', maxBuffer: 1 << 26, timeout: timeoutMin * 60 * 1000 });
  let out;
  try {
    out = JSON.parse((r.stdout ?? '').trim().split('\n').pop());
  } catch {
    return { unavailable: `bench/${script} exited with ${r.status}: ${(r.stderr || r.stdout || '').slice(-800)}` };
  }
  if (out.unavailable) return out;
  out.label = label;
  out.relpos_commit = commit;
  const file = path.join(resultsDir, dir, `${out.date.slice(0, 16).replace(':', '')}-${label}.json`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(out, null, 1) + '\n');
  for (const row of out.rows) log?.(`${name} ${row.runtime}: ${row.error ?? Object.entries(row.ms).map(([k, v]) => `${k} ${v} ms`).join(', ')}`);
  return { file: path.relative(path.join(resultsDir, '..', '..'), file) };
}

/** The `cpupeer` section of npm run bench (bench/cpu_chromium_peer.mjs → <resultsDir>/cpu-peer/). */
export const cpuChromiumPeerSection = (o) => peerScriptSection({ ...o, script: 'cpu_chromium_peer.mjs', dir: 'cpu-peer', name: 'cpupeer' });
