// Whole models on a GPU machine (run by bench/gpu/run.sh after bench.mjs), each through the public API only:
// rp.loadModel(files, { device: 'webgpu', gpu }) against rp.loadModel(files) on the same machine's CPU
// (relpos's WASM package, 2 threads and every core), on the same inputs, in one process:
//   minilm      the real all-MiniLM-L6-v2 (its vocabulary pruned to the batch's rows by minilm_carry.mjs, so
//               it travels; outputs equal the full model's), 64 texts of ≤ 128 tokens (.gpu/minilm/batch.json)
//   deberta     a DeBERTa-v3-base-shaped model (12 layers, hidden 768, c2p + p2c, 256 buckets; random weights,
//               vocabulary 8192: the table's size does not change the time), 1 × 512 tokens
//   modernbert  a ModernBERT-base-shaped model (22 layers, global every 3rd, window 128), one 8192-token
//               document; WebGPU only (relpos WASM takes ~47 s on 2 threads for it: bench section `families`)
// Per row: median ms of `reps` forwards after one warm-up (plans, pipelines), and the GPU output's agreement
// with WASM fp32 (max |Δ| and the lowest per-token cosine of the last hidden state). fp16 and q8 rows on the GPU
// where the adapter allows them; for fp32 also a per-op profile (each op submitted alone: its GPU time plus one
// submit's latency). Writes $OUT/models.json after every row. MODELS=minilm,deberta limits the set.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { captureExecutor, median, openDawn } from './common.mjs';
import { familyCheckpoint, familyIds } from '../lib/family_models.mjs';

const OUT = process.env.OUT || 'bench/results/tmp/gpu';
const SMALL = !!process.env.GPU_BENCH_SMALL;
const WANT = new Set((process.env.MODELS ?? 'minilm,deberta,modernbert').split(','));
const THREADS = (process.env.WASM_THREADS ?? `2,${os.cpus().length}`).split(',').map(Number);
mkdirSync(OUT, { recursive: true });
const started = Date.now();
const log = (...a) => console.log(`[${((Date.now() - started) / 1000).toFixed(1).padStart(6)} s]`, ...a);

const { gpu } = await openDawn();
const rpModule = await import('../../web/index.js');
// The executor a webgpu model builds (the package's own module instance), captured for a per-op profile
// (PlanExecutor.profile: each op submitted alone) of the fp32 GPU forward.
const W = await import('../../web/webgpu/index.js');
const captured = captureExecutor(W);

const out = { startedAt: new Date(started).toISOString(), cpu: os.cpus()[0]?.model, cores: os.cpus().length, node: process.version, small: SMALL, rows: [], errors: [] };
const save = () => {
  out.wallSeconds = (Date.now() - started) / 1000;
  writeFileSync(join(OUT, 'models.json'), JSON.stringify(out, null, 1));
};

function unxz(path) {
  if (!path.endsWith('.xz')) return readFileSync(path);
  // the carried copy is xz-compressed; xz may be missing on the GPU machine, Python's lzma is there
  return new Uint8Array(Buffer.from(execFileSync('python3', ['-c', 'import lzma,sys; sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())', path], { maxBuffer: 1 << 30 })));
}

/** The three models: { name, files(), inputIds, attentionMask, reps, wasm } */
function models() {
  const list = [];
  const carried = process.env.RELPOS_MINILM_CARRY || '.gpu/minilm';
  if (WANT.has('minilm') && existsSync(join(carried, 'batch.json'))) {
    const b = JSON.parse(readFileSync(join(carried, 'batch.json'), 'utf8'));
    const B = SMALL ? 2 : b.batch, rows = (a) => Array.from({ length: B }, (_, i) => a.slice(i * b.seq, (i + 1) * b.seq));
    const weights = existsSync(join(carried, 'model.safetensors.xz')) ? join(carried, 'model.safetensors.xz') : join(carried, 'model.safetensors');
    list.push({ name: `real all-MiniLM-L6-v2, ${B} texts × ${b.seq} tokens`, key: 'minilm', reps: 5,
      files: () => ({ 'config.json': readFileSync(join(carried, 'config.json'), 'utf8'), 'model.safetensors': unxz(weights) }),
      inputIds: rows(b.inputIds), attentionMask: rows(b.attentionMask), wasm: true });
  } else if (WANT.has('minilm')) {
    out.errors.push({ what: 'minilm', message: `no carried MiniLM at ${carried} (scripts/gpu-carry.sh makes it)` });
  }
  if (WANT.has('deberta')) {
    const L = SMALL ? 64 : 512, layers = SMALL ? 2 : 12, vocab = 8192;
    list.push({ name: `DeBERTa-v3-base-shaped (${layers} layers, random weights), 1 × ${L} tokens`, key: 'deberta', reps: 5,
      files: () => familyCheckpoint('deberta-v3-base', { layers, vocab }), inputIds: [familyIds(L, vocab)], wasm: true });
  }
  if (WANT.has('modernbert')) {
    const L = SMALL ? 256 : 8192, layers = SMALL ? 3 : 22, vocab = 8192;
    list.push({ name: `ModernBERT-base-shaped (${layers} layers, random weights), 1 × ${L} tokens`, key: 'modernbert', reps: 3,
      files: () => familyCheckpoint('modernbert-base', { layers, vocab, seq: L }), inputIds: [familyIds(L, vocab)], wasm: SMALL });
  }
  return list;
}

function agreement(a, b, H) {
  let maxAbs = 0, minCos = 1;
  for (let t = 0; t < a.length / H; ++t) {
    let dot = 0, na = 0, nb = 0;
    for (let i = t * H; i < (t + 1) * H; ++i) {
      maxAbs = Math.max(maxAbs, Math.abs(a[i] - b[i]));
      dot += a[i] * b[i];
      na += a[i] * a[i];
      nb += b[i] * b[i];
    }
    minCos = Math.min(minCos, dot / Math.sqrt(na * nb || 1));
  }
  return { maxAbs: +maxAbs.toExponential(2), minTokenCosine: +minCos.toFixed(6) };
}

async function time(model, m) {
  const inputs = { inputIds: m.inputIds, ...(m.attentionMask ? { attentionMask: m.attentionMask } : {}) };
  const first = await model.forwardAsync(inputs);
  const times = [];
  for (let i = 0; i < m.reps; ++i) {
    const t0 = performance.now();
    await model.forwardAsync(inputs);
    times.push(performance.now() - t0);
  }
  return { ms: +median(times).toFixed(2), timesMs: times.map((t) => +t.toFixed(2)), out: first.lastHiddenState.data };
}

for (const m of models()) {
  const files = m.files();
  let reference = null;
  const rowsOf = [];
  // WASM first (its fp32 output is the reference), then the GPU rows.
  if (m.wasm) {
    for (const threads of THREADS) {
      const row = { model: m.name, key: m.key, device: 'wasm', dtype: 'fp32', threads };
      try {
        const rp = await rpModule.init(threads > 1 ? { threads } : {});
        row.threads = rp.threads ?? 1;
        const model = await rp.loadModel(files);
        const r = await time(model, { ...m, reps: Math.min(m.reps, 3) });
        Object.assign(row, { ms: r.ms, timesMs: r.timesMs });
        reference ??= r.out;
        model.dispose();
      } catch (e) {
        row.error = String(e?.message ?? e);
      }
      out.rows.push(row);
      rowsOf.push(row);
      log(JSON.stringify(row));
      save();
    }
  }
  for (const dtype of ['fp32', 'fp16', 'q8']) {
    const row = { model: m.name, key: m.key, device: 'webgpu', dtype };
    try {
      const rp = await rpModule.init();
      const t0 = performance.now();
      const model = await rp.loadModel(files, { device: 'webgpu', gpu, ...(dtype === 'fp32' ? {} : { dtype }) });
      row.loadMs = +(performance.now() - t0).toFixed(1);
      row.adapter = model.info.adapter;
      const r = await time(model, m);
      Object.assign(row, { ms: r.ms, timesMs: r.timesMs });
      const executor = captured.get();
      if (dtype === 'fp32' && executor) {
        const B = m.inputIds.length, L = m.inputIds[0].length;
        const prof = await executor.profile({ batch: B, seq: L, ids: Int32Array.from(m.inputIds.flat()), mask: m.attentionMask ? Int32Array.from(m.attentionMask.flat()) : null, types: null });
        const byOp = {};
        for (const o of prof.ops) {
          const k = o.op === 'attention' ? `attention ${o.kind}${/window/.test(o.shape) ? ' window' : ''}` : o.op;
          byOp[k] ??= { count: 0, ms: 0 };
          byOp[k].count += 1;
          byOp[k].ms = +(byOp[k].ms + o.ms).toFixed(3);
        }
        row.profile = { totalMs: prof.totalMs, ops: prof.ops.length, byOp, slowest: [...prof.ops].sort((a, b) => b.ms - a.ms).slice(0, 6) };
      }
      if (reference) row.vsWasmFp32 = agreement(r.out, reference, r.out.length / (m.inputIds.length * m.inputIds[0].length));
      const wasm2 = rowsOf.find((w) => w.threads === 2 && w.ms);
      if (wasm2) row.wasm2OverGpu = +(wasm2.ms / r.ms).toFixed(1);
      model.dispose();
    } catch (e) {
      row.error = String(e?.message ?? e);
    }
    out.rows.push(row);
    log(JSON.stringify({ ...row, adapter: undefined }));
    save();
  }
}
out.finishedAt = new Date().toISOString();
save();
log(`done: ${out.rows.length} rows → ${join(OUT, 'models.json')}`);
process.exit(0);
