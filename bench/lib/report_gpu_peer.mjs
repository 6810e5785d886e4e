// relpos WebGPU against Transformers.js WebGPU (onnxruntime-node's WebGPU execution provider) on a GPU machine
// (issue #33): bench/gpu/peer.sh writes peer.json; a session with a GPU machine commits it as
// bench/results/gpu/<device>-<date>-peer/peer.json beside its run.log. This machine has no GPU, so the section
// reads the newest committed run (by its `date`) and reports it with the adapter named; nothing is re-measured.
//   gpuPeerResults(resultsDir) → { dir, ...peer.json } | { unavailable }      gpuPeerMarkdown(p, L, root)
import fs from 'node:fs';
import path from 'node:path';

const TARGET = 1.5;
// 8192 tokens: the peer's output is wrong there (issue #37), out of the speed target (rows of runs before the flag too)
const outOfTarget = (r) => r.outOfTarget || r.row === 'modernbert-8192';
const f = (x, d = 2) => (x == null || Number.isNaN(x) ? '–' : x.toFixed(d));

export function gpuPeerResults(resultsDir) {
  const root = path.join(resultsDir, 'gpu');
  const runs = fs.existsSync(root)
    ? fs.readdirSync(root).filter((d) => fs.existsSync(path.join(root, d, 'peer.json')))
      .map((d) => {
        const realSize = path.join(root, d, 'real-size.json');
        return { dir: path.join(root, d), ...JSON.parse(fs.readFileSync(path.join(root, d, 'peer.json'), 'utf8')), realSize: fs.existsSync(realSize) ? JSON.parse(fs.readFileSync(realSize, 'utf8')) : null };
      })
      .filter((p) => !p.small)
      .sort((a, b) => String(a.date).localeCompare(String(b.date)))
    : [];
  if (!runs.length) return { unavailable: `no committed bench/results/gpu/<device>-<date>-peer/peer.json` };
  // A run may time only some rows (PEER_ROWS / PEER_DTYPES): each row (and each load) is taken from the newest run on
  // the same adapter that has it, and says which run that was.
  const newest = runs[runs.length - 1];
  const same = runs.filter((r) => r.device?.description === newest.device?.description).reverse();
  const rows = [], loads = [], seenRow = new Set(), seenLoad = new Set();
  for (const run of same) {
    const from = path.basename(run.dir);
    for (const r of run.rows ?? []) {
      const key = `${r.model}|${r.row}|${r.dtype}`;
      if (!seenRow.has(key)) seenRow.add(key), rows.push({ ...r, from });
    }
    for (const l of run.loads ?? []) {
      const key = `${l.model}|${l.library}|${l.what ?? ''}|${l.dtype}`;
      if (!seenLoad.has(key)) seenLoad.add(key), loads.push({ ...l, from });
    }
  }
  // relpos-only load checks (bench/gpu/load_check.sh: loads*.json beside a README naming the adapter), newest first:
  // one more column per model, so the peer runs' load times do not stand for loads made since
  const checks = fs.existsSync(root)
    ? fs.readdirSync(root).flatMap((d) => fs.readdirSync(path.join(root, d)).filter((n) => /^loads.*\.json$/.test(n))
      .map((n) => ({ from: `${d}/${n}`, ...JSON.parse(fs.readFileSync(path.join(root, d, n), 'utf8')) })))
      .sort((a, b) => String(b.date).localeCompare(String(a.date)))
    : [];
  for (const c of checks)
    for (const r of c.rows ?? []) {
      const key = `${r.model}|relpos|load check|${r.dtype}`;
      if (r.s != null && !seenLoad.has(key)) seenLoad.add(key), loads.push({ model: r.model, library: 'relpos', what: 'load check', dtype: r.dtype, s: r.s, from: c.from });
    }
  const models = [...new Set(same.slice().reverse().flatMap((run) => (run.rows ?? []).map((r) => r.model)))];
  rows.sort((a, b) => models.indexOf(a.model) - models.indexOf(b.model));
  return { ...newest, rows, loads, realSize: same.find((run) => run.realSize)?.realSize ?? null,
    realSizeFrom: path.basename(same.find((run) => run.realSize)?.dir ?? '') };
}

export function gpuPeerMarkdown(p, L, root = process.cwd()) {
  L.push('## relpos WebGPU vs Transformers.js WebGPU on a GPU, same weights (bench/gpu/peer.sh)', '');
  if (!p || p.unavailable) {
    L.push(`Not measured on a GPU yet (${p?.unavailable ?? 'no results'}). A session with a GPU machine runs \`bash scripts/gpu-peer-carry.sh\` here, then`,
      "`run(command='bash bench/gpu/peer.sh', carry=['.gpu-peer', 'web/dist'], timeout_s=540)` and commits the results.", '');
    return;
  }
  const a = p.device ?? {};
  const fp32 = p.rows.filter((r) => r.dtype === 'fp32' && !outOfTarget(r));
  const met = fp32.filter((r) => r.speedup >= TARGET).length; // a row the peer failed on is not counted as met
  L.push(`${p.relpos} against ${p.peer}, one Node ${p.node} process, adapter ${[a.vendor, a.architecture, a.description].filter(Boolean).join(' / ') || 'unnamed'}`,
    `(Dawn flags: ${p.dawnFlags?.length ? p.dawnFlags.join(' ') : 'none'}), runs of ${String(p.date).slice(0, 10)} in \`${path.relative(root, path.dirname(p.dir))}/\`: each row from the newest run that timed it (column run). Both libraries read the same`,
    'model.safetensors (the graphs of ../shared/gpu-peer-models at their published shapes, weights from seed 0); ms per call with the',
    'last hidden state back on the CPU, median of alternating calls after a warm-up. cosine: smallest cosine of masked mean-pooled',
    `rows between relpos and the peer (fp32 rows are checked ≥ 0.9999). Target: relpos ≥ ${TARGET}× faster on every fp32 row — met on ${met} of ${fp32.length}.`, '');
  const timedAlone = p.rows.some((r) => r.relposAloneMs != null);
  if (timedAlone)
    L.push('The peer is timed alternating with relpos fp32; q8 and fp16 calls run back to back. Alternating two WebGPU runtimes on one',
      'GPU slows both, so fp32 is also timed alone: "alone" is relpos with nothing between its calls (the q8 / fp16 ms themselves),',
      '"peer alone" likewise, "÷ fp32 alone" a dtype against fp32 under the same conditions, "CPU" the part of a call that is not',
      'waiting for the GPU (recording, submits, copies); "(both alone)": a q8 / fp16 row against the peer alone.', '');
  L.push('| model | input | relpos dtype | relpos ms | Transformers.js fp32 ms | Transformers.js ÷ relpos | relpos alone ms | peer alone ms | ÷ fp32 alone | relpos CPU ms | cosine to peer | fp16 cosine to relpos fp32 | run |',
    '| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |');
  const fp32Alone = (r) => p.rows.find((x) => x.model === r.model && x.row === r.row && x.dtype === 'fp32' && x.from === r.from)?.relposAloneMs;
  const aloneCols = (r) => {
    const alone = r.dtype === 'fp32' ? r.relposAloneMs : r.relposMs, base = fp32Alone(r);
    return [alone != null ? f(alone, 1) : '–', r.peerAloneMs != null ? f(r.peerAloneMs, 1) : '–',
      r.dtype !== 'fp32' && base != null ? `${f(base / r.relposMs)}×` : '–', r.relposCpuMs != null ? f(r.relposCpuMs, 1) : '–'].join(' | ');
  };
  for (const r of p.rows) {
    if (r.error) {
      L.push(`| ${r.model} | ${r.shape} | ${r.dtype} | failed: \`${r.error.replace(/\|/g, '\\|')}\` | | | | | | | | | ${r.from ?? ''} |`);
      continue;
    }
    if (r.peerError) {
      L.push(`| ${r.model} | ${r.shape} | ${r.dtype} | ${f(r.relposMs, 1)} | failed: \`${r.peerError.replace(/\|/g, '\\|').slice(0, 200)}\` | – | ${aloneCols(r)} | – | ${r.cosineFp32 != null ? f(r.cosineFp32, 6) : '–'} | ${r.from ?? ''} |`);
      continue;
    }
    const cosine = r.peerWrong ? `peer wrong: ${f(r.peerWrong.cosine, 3)}` : f(r.cosine, 6);
    const below = r.dtype === 'fp32' && !outOfTarget(r) && r.speedup < TARGET ? ' (below target)' : outOfTarget(r) ? ' (out of target)' : '';
    const against = r.speedupAgainst === 'peerAloneMs' ? ' (both alone)' : '';
    L.push(`| ${r.model} | ${r.shape} | ${r.dtype} | ${f(r.relposMs, 1)} | ${f(r.peerMs, 1)} | ${f(r.speedup)}×${against}${below} | ${aloneCols(r)} | ${cosine} | ${r.cosineFp32 != null ? f(r.cosineFp32, 6) : '–'} | ${r.from ?? ''} |`);
  }
  L.push('');
  if (p.loads?.length) {
    // seconds from the files to a model ready on the GPU, per library and dtype
    const by = new Map();
    for (const l of p.loads) {
      const key = `${l.model}`;
      if (!by.has(key)) by.set(key, {});
      by.get(key)[`${l.library}${l.what ? ` ${l.what}` : ''} ${l.dtype}`] = l.s;
    }
    const cols = [...new Set(p.loads.map((l) => `${l.library}${l.what ? ` ${l.what}` : ''} ${l.dtype}`))];
    const checked = [...new Set(p.loads.filter((l) => l.what === 'load check').map((l) => l.from))];
    L.push(`Load on the GPU, seconds (the same files)${checked.length ? `; "load check": relpos alone, after the peer runs (\`bench/gpu/load_check.sh\`: ${checked.join(', ')}; fp32 XLM-R-base and the Qwen3-0.6B shape did not load before)` : ''}:`,
      '', `| model | ${cols.join(' | ')} |`, `| --- |${cols.map(() => ' ---: |').join('')}`);
    for (const [model, v] of by) L.push(`| ${model} | ${cols.map((c) => f(v[c], 2)).join(' | ')} |`);
    L.push('');
  }
  const rs = p.realSize;
  if (rs?.rows?.length && !rs.small) {
    const lengths = [...new Set(rs.rows.flatMap((r) => Object.keys(r).filter((k) => /^ms\d+$/.test(k)).map((k) => +k.slice(2))))].sort((x, y) => x - y);
    const cpu = rs.rows.some((r) => Object.keys(r).some((k) => /^cpuMs\d+$/.test(k)));
    L.push(`relpos alone at the real sizes of the 2026 embedders (\`bench/gpu/real_size.mjs\`, run \`${p.realSizeFrom}\`, random BF16 checkpoints of the published shapes, one sequence, ms per call with the last hidden state back; TFLOP/s in brackets${cpu ? '; then the CPU part of the call, ms: its time less its wait for the GPU' : ''}):`, '',
      `| model | dtype | load s | ${lengths.map((l) => `${l} tokens`).join(' | ')} |`, `| --- | --- | ---: |${lengths.map(() => ' ---: |').join('')}`);
    for (const r of rs.rows) {
      // rows on WebAssembly (device 'wasm': the CPU beside the GPU, on its cores) say so, with GFLOP/s
      const dtype = r.device === 'wasm' ? `${r.dtype}, WebAssembly on ${r.threads} threads` : r.dtype;
      const rate = (l) => (r.device === 'wasm' ? `${f(r[`gflops${l}`], 0)} GFLOP/s` : f(r[`tflops${l}`], 1));
      if (r.error) L.push(`| ${r.model} | ${dtype} | failed: \`${r.error.replace(/\|/g, '\\|').slice(0, 160)}\` |${lengths.map(() => ' |').join('')}`);
      else L.push(`| ${r.model} | ${dtype} | ${f(r.loadS, 1)} | ${lengths.map((l) => (r[`ms${l}`] == null ? '–' : `${f(r[`ms${l}`], 1)} (${rate(l)})${r[`cpuMs${l}`] != null ? `, CPU ${f(r[`cpuMs${l}`], 1)}` : ''}`)).join(' | ')} |`);
    }
    L.push('');
  }
  const notes = [...(p.notes ?? [])];
  if (p.fp16) notes.push(`fp16 ${p.fp16}`);
  if (notes.length) L.push(notes.join(' '), '');
}
