// relpos against Transformers.js on the CPU in Chromium, the XLM-RoBERTa-base geometry (issue #40): bench/xlmr_chromium_peer.mjs
// writes a run; `BENCH_SECTIONS=xlmrpeer npm run bench` (or the script with --out) and a commit put it in
// bench/results/xlmr-peer/<date>-<label>.json. The section shows every committed run, oldest first, each naming its
// CPU, the load average after every runtime and the relpos commit.
//   xlmrPeerResults(resultsDir) → [run…]      xlmrPeerMarkdown(runs, L)      xlmrChromiumPeerSection({ … }) (npm run bench)
import fs from 'node:fs';
import path from 'node:path';
import { peerScriptSection } from './report_cpu_peer.mjs';

const TARGET = 1.5;
const f = (x, d = 1) => (x == null || Number.isNaN(x) ? '–' : x.toFixed(d));
const ROWS = [['pairs16', '16 query–passage pairs × 128 tokens (a reranker\'s batch)'], ['texts64', '64 texts (MiniLM\'s token counts)']];

export function xlmrPeerResults(resultsDir) {
  const dir = path.join(resultsDir, 'xlmr-peer');
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).filter((f) => f.endsWith('.json')).sort()
    .map((f) => ({ file: path.join('bench/results/xlmr-peer', f), ...JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) }))
    .filter((r) => !r.unavailable && r.rows);
}

export function xlmrPeerMarkdown(runs, L) {
  L.push('## XLM-RoBERTa-base on the CPU: relpos vs Transformers.js in Chromium (`xlmrpeer`: bench/xlmr_chromium_peer.mjs)', '');
  if (!runs.length) {
    L.push('No committed run (bench/results/xlmr-peer/).', '');
    return;
  }
  L.push('The geometry of bge-reranker-base and multilingual-e5-base (12 layers, hidden 768, vocabulary 250,002, 514 positions) with',
    'random weights (`../shared/gpu-peer-models/make-weights.mjs`, seed 0) in one `model.safetensors` that both libraries read: relpos',
    'as a Hugging Face checkpoint (`loadModel`), Transformers.js (`AutoModel`, `device: \'wasm\'`) through the ONNX graph whose',
    'weights are external data in that file. Token ids in (seeded as the GPU peer bench\'s `xlmr-pairs` and `xlmr` rows), last hidden state',
    'out, fp32 on both sides, one call per row. Each (library, threads) runs in a fresh browser after a small warm-up forward; the',
    `runtimes alternate over rounds (order flipped every round); medians over rounds. Target (issue #40): relpos ≥ ${TARGET}× faster.`, '');
  for (const run of runs) {
    const la = (run.loadavg ?? []).map((x) => x.loadavg[0]);
    const tk = run.tokens?.texts64 ?? [];
    L.push(`**${run.label ?? path.basename(run.file, '.json')}** — relpos ${run.relpos_commit ?? '?'}, ${String(run.date ?? '').slice(0, 16)}Z, ${run.cpu ?? 'CPU ?'} (${run.cores ?? '?'} cores),`,
      `${run.chromium ?? 'Chromium'}, Transformers.js ${run.transformers_js ?? '?'}, ${run.rounds} rounds; 1-min load average after each runtime ${la.length ? `${f(Math.min(...la), 2)}–${f(Math.max(...la), 2)}` : '?'}`,
      `(\`${run.file}\`). The 64 texts: ${tk.length ? `${Math.min(...tk)}–${Math.max(...tk)} tokens, ${tk.reduce((a, b) => a + b, 0)} in all` : '?'}, right-padded to the longest (the same padded batch and mask to both libraries).${run.note ? ' ' + run.note : ''}`, '');
    L.push('| threads | row | relpos fp32 ms | Transformers.js fp32 ms | Transformers.js ÷ relpos | smallest cosine (mean-pooled / token vectors) |', '| ---: | --- | ---: | ---: | ---: | --- |');
    for (const th of [...new Set(run.rows.map((r) => r.threads))].sort()) {
      const rp = run.rows.find((r) => r.threads === th && r.lib === 'relpos'), tj = run.rows.find((r) => r.threads === th && r.lib === 'tjs');
      for (const [k, name] of ROWS) {
        const a = rp?.ms?.[k], b = tj?.ms?.[k], c = rp?.min_cosine_vs_transformers_js;
        L.push(`| ${th} | ${name} | ${f(a)} | ${f(b)} | ${a && b ? `**${f(b / a, 2)}×**${b / a < TARGET ? ' (below target)' : ''}` : '–'} | ${c ? `${f(c[`${k}_mean`], 6)} / ${f(c[`${k}_tokens`], 6)}` : '–'} |`);
      }
      L.push(`| ${th} | model load + warm-up forward | ${f(rp?.load_ms, 0)} | ${f(tj?.load_ms, 0)} | ${rp?.load_ms && tj?.load_ms ? `${f(tj.load_ms / rp.load_ms, 2)}×` : '–'} | |`);
    }
    L.push('');
    const ok = run.rows.filter((r) => r.ms_all);
    if (ok.length) L.push('Every round (ms, in round order): ' + ok.map((r) => `${r.runtime}: ${Object.entries(r.ms_all).map(([k, v]) => `${k} ${v.map((x) => f(x, 0)).join(', ')}`).join('; ')}`).join(' · ') +
      `. Load average (1, 5, 15 min) after each runtime: ${(run.loadavg ?? []).map((x) => `${x.runtime} (round ${x.round}) ${x.loadavg.join(' ')}`).join('; ')}.`, '');
    const errs = run.rows.filter((r) => r.error);
    if (errs.length) L.push('Failed: ' + errs.map((r) => `${r.runtime}: ${r.error}`).join('; ') + '.', '');
  }
}

/** The `xlmrpeer` section of npm run bench (bench/xlmr_chromium_peer.mjs → <resultsDir>/xlmr-peer/). */
export const xlmrChromiumPeerSection = (o) => peerScriptSection({ ...o, script: 'xlmr_chromium_peer.mjs', dir: 'xlmr-peer', name: 'xlmrpeer', timeoutMin: 90 });
