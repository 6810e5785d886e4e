// The `wllama` bench section (issue #39): relpos vs wllama (llama.cpp in WebAssembly) on GGUF files in headless
// Chromium — bench/lib/wllama_peer.mjs, run in a child process (playwright-core does not load inside the bench
// process, as for `gpupeer`), its committed results (bench/results/wllama_peer.json) and their report.
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SCRIPT = path.join(HERE, 'wllama_peer.mjs');
export const WLLAMA_RESULTS = path.resolve(HERE, '..', 'results', 'wllama_peer.json');
const MiB = 2 ** 20;
const fmt = (x, d = 1) => (x === null || x === undefined || Number.isNaN(x) ? '–' : x.toFixed(d));

/** Runs the peer bench (args: --quick, --smoke) and writes WLLAMA_RESULTS unless smoke. */
export function wllamaPeerSection({ quick = false, smoke = false, log } = {}) {
  const args = [SCRIPT, ...(quick ? ['--quick'] : []), ...(smoke ? ['--smoke'] : []), ...(smoke ? [] : ['--out', WLLAMA_RESULTS])];
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 26, timeout: 90 * 60 * 1000 });
  for (const line of (r.stderr ?? '').split('\n')) if (line.startsWith('wllama-peer')) log?.(line);
  if (!smoke && fs.existsSync(WLLAMA_RESULTS)) return JSON.parse(fs.readFileSync(WLLAMA_RESULTS, 'utf8'));
  try {
    return JSON.parse((r.stdout ?? '').trim().split('\n').pop());
  } catch {
    return { unavailable: `bench/lib/wllama_peer.mjs exited with ${r.status}: ${(r.stderr || r.stdout || '').slice(-800)}` };
  }
}

/** The committed results (bench/results/wllama_peer.json, written by the section), or undefined. */
export function wllamaPeerResults(resultsDir) {
  const file = path.join(resultsDir, 'wllama_peer.json');
  return fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : undefined;
}

export function wllamaPeerMarkdown(r, L) {
  const p = r.wllama_peer;
  if (!p) return;
  L.push('## relpos vs wllama on GGUF files (`wllama`: bench/lib/wllama_peer.mjs)', '');
  if (p.unavailable) {
    L.push(`Not measured: ${p.unavailable}`, '');
    return;
  }
  L.push(`wllama ${p.wllama} (llama.cpp in WebAssembly, \`n_gpu_layers: 0\`) and relpos in headless ${p.chromium ?? 'Chromium'} (cross-origin isolated ${p.cross_origin_isolated}), each runtime × thread count in a fresh browser; ${p.cpu}, ${p.cores} cores, load average ${p.loadavg_at_start?.[0]} → ${p.loadavg_at_end?.[0]} (a machine shared with other work). ms as each row says (wllama's createEmbedding returns one row per call, so a list is one call per text), median of ${p.reps} passes after a warm-up; peak = VmHWM of the tab's renderer process (page, workers, WebAssembly memory).`, '');
  L.push('| row | runtime | threads | ms | load ms | renderer peak MiB | file MiB | relpos ÷ wllama speed | min cosine to wllama |', '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const row of p.rows) {
    const what = `${row.id} (${row.what})`;
    if (row.unavailable || row.error) {
      L.push(`| ${what} | ${row.runtime} | ${row.threads} | ${row.unavailable ? 'not available' : 'failed'} | | | ${fmt(row.file_bytes / MiB, 0)} | | |`);
      continue;
    }
    L.push(`| ${what} | ${row.runtime} | ${row.threads} | ${fmt(row.ms)} | ${fmt(row.load_ms, 0)} | ${fmt(row.renderer_peak_bytes / MiB, 0)} | ${fmt(row.file_bytes / MiB, 0)} | ${row.speedup_vs_wllama ? `${row.speedup_vs_wllama}×` : '–'} | ${row.min_cosine_to_wllama ?? '–'} |`);
  }
  const missing = p.rows.find((x) => x.unavailable);
  if (missing)
    L.push('', `relpos rows: ${missing.unavailable.replace(/ \(.*$/s, '')} — this package's \`rp.loadModel('<file>.gguf')\` takes the path for a model folder (\`${/config\.json: not found/.test(missing.unavailable) ? 'config.json: not found at …/model.gguf/config.json' : missing.unavailable}\`); the rows fill in when the GGUF loader (issue #39) is in the package.`);
  for (const n of p.notes ?? []) L.push('', `Note: ${n}`);
  L.push('');
}
