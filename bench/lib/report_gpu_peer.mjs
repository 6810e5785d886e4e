// relpos WebGPU against Transformers.js WebGPU (onnxruntime-node's WebGPU execution provider) on a GPU machine
// (issue #33): bench/gpu/peer.sh writes peer.json; a session with a GPU machine commits it as
// bench/results/gpu/<device>-<date>-peer/peer.json beside its run.log. This machine has no GPU, so the section
// reads the newest committed run (by its `date`) and reports it with the adapter named; nothing is re-measured.
//   gpuPeerResults(resultsDir) → { dir, ...peer.json } | { unavailable }      gpuPeerMarkdown(p, L, root)
import fs from 'node:fs';
import path from 'node:path';

const TARGET = 1.5;
const f = (x, d = 2) => (x == null || Number.isNaN(x) ? '–' : x.toFixed(d));

export function gpuPeerResults(resultsDir) {
  const root = path.join(resultsDir, 'gpu');
  const runs = fs.existsSync(root)
    ? fs.readdirSync(root).filter((d) => fs.existsSync(path.join(root, d, 'peer.json')))
      .map((d) => ({ dir: path.join(root, d), ...JSON.parse(fs.readFileSync(path.join(root, d, 'peer.json'), 'utf8')) }))
      .filter((p) => !p.small)
      .sort((a, b) => String(a.date).localeCompare(String(b.date)))
    : [];
  return runs.length ? runs[runs.length - 1] : { unavailable: `no committed bench/results/gpu/<device>-<date>-peer/peer.json` };
}

export function gpuPeerMarkdown(p, L, root = process.cwd()) {
  L.push('## relpos WebGPU vs Transformers.js WebGPU on a GPU, same weights (bench/gpu/peer.sh)', '');
  if (!p || p.unavailable) {
    L.push(`Not measured on a GPU yet (${p?.unavailable ?? 'no results'}). A session with a GPU machine runs \`bash scripts/gpu-peer-carry.sh\` here, then`,
      "`run(command='bash bench/gpu/peer.sh', carry=['.gpu-peer', 'web/dist'], timeout_s=540)` and commits the results.", '');
    return;
  }
  const a = p.device ?? {};
  const fp32 = p.rows.filter((r) => r.dtype === 'fp32');
  const met = fp32.filter((r) => r.speedup >= TARGET).length; // a row the peer failed on is not counted as met
  L.push(`${p.relpos} against ${p.peer}, one Node ${p.node} process, adapter ${[a.vendor, a.architecture, a.description].filter(Boolean).join(' / ') || 'unnamed'}`,
    `(Dawn flags: ${p.dawnFlags?.length ? p.dawnFlags.join(' ') : 'none'}), run ${String(p.date).slice(0, 10)} (\`${path.relative(root, p.dir)}\`). Both libraries read the same`,
    'model.safetensors (the graphs of ../shared/gpu-peer-models at their published shapes, weights from seed 0); ms per call with the',
    'last hidden state back on the CPU, median of alternating calls after a warm-up. cosine: smallest cosine of masked mean-pooled',
    `rows between relpos and the peer (fp32 rows are checked ≥ 0.9999). Target: relpos ≥ ${TARGET}× faster on every fp32 row — met on ${met} of ${fp32.length}.`, '');
  L.push('| model | input | relpos dtype | relpos ms | Transformers.js fp32 ms | Transformers.js ÷ relpos | cosine to peer | fp16 cosine to relpos fp32 |',
    '| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |');
  for (const r of p.rows) {
    if (r.error) {
      L.push(`| ${r.model} | ${r.shape} | ${r.dtype} | failed: \`${r.error.replace(/\|/g, '\\|')}\` | | | | |`);
      continue;
    }
    if (r.peerError) {
      L.push(`| ${r.model} | ${r.shape} | ${r.dtype} | ${f(r.relposMs, 1)} | failed: \`${r.peerError.replace(/\|/g, '\\|').slice(0, 200)}\` | – | – | ${r.cosineFp32 != null ? f(r.cosineFp32, 6) : '–'} |`);
      continue;
    }
    L.push(`| ${r.model} | ${r.shape} | ${r.dtype} | ${f(r.relposMs, 1)} | ${f(r.peerMs, 1)} | ${f(r.speedup)}×${r.dtype === 'fp32' && r.speedup < TARGET ? ' (below target)' : ''} | ${f(r.cosine, 6)} | ${r.cosineFp32 != null ? f(r.cosineFp32, 6) : '–'} |`);
  }
  L.push('');
  const notes = [...(p.notes ?? [])];
  if (p.fp16) notes.push(`fp16 ${p.fp16}`);
  if (notes.length) L.push(notes.join(' '), '');
}
