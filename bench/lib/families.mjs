// The `families` bench section (issue #26): MPNet, ModernBERT and NomicBERT at their released shapes
// (lib/family_models.mjs), each measurement in a fresh child process (lib/families_child.mjs) so that the
// WebAssembly heap it reports is that run's alone. Batch 1. Per-layer rows (1 thread): process CPU time (wall in
// *_wall_ms); the long document: wall clock (2 threads: CPU time would add both threads).
//   per_layer: one layer's forward time at 128, 512 and 8192 tokens, 1 thread, fp32 = T(2 layers) − T(1 layer),
//              medians of `reps` forwards each (the embeddings and output copies cancel). ModernBERT: the
//              global layer from [global] vs [global, global], the local layer (|i − j| ≤ 64) from [global] vs
//              [global, local]; local ÷ global at 8192 (target ≤ 0.3; the FLOP ratio is ~0.27).
//   long_document: one 8192-token document through the full ModernBERT-base shape (22 layers, every 3rd global),
//              fp32 and q8 weights, 1 and 2 threads: time per document and the peak WebAssembly heap.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FAMILY_SHAPES } from './family_models.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));

function child(spec, log) {
  const r = spawnSync(process.execPath, ['--no-experimental-fetch', path.join(HERE, 'families_child.mjs'), JSON.stringify(spec)],
    { encoding: 'utf8', maxBuffer: 1 << 24, timeout: 1800e3 });
  const line = (r.stdout || '').trim().split('\n').pop();
  try {
    return JSON.parse(line);
  } catch {
    const error = `child exited ${r.status}${r.signal ? ' (' + r.signal + ')' : ''}: ${(r.stderr || '').trim().split('\n').slice(-3).join(' | ')}`;
    log(`families: ${spec.family} ${JSON.stringify({ layers: spec.layers, seq: spec.seq })}: ${error}`);
    return { error };
  }
}

export function families({ webIndex, quick, log }) {
  const seqs = quick ? [128, 512] : [128, 512, 8192];
  const reps = (S) => (S >= 8192 ? 3 : S >= 512 ? 5 : 9);
  const out = { per_layer: [], long_document: [], notes: [] };
  const small = 2048;  // per-layer rows: a small vocabulary (the embedding table's size does not change a layer's time)
  for (const family of Object.keys(FAMILY_SHAPES)) {
    for (const seq of seqs) {
      const base = { webIndex, threads: 1, dtype: 'fp32', family, vocab: small, seq, reps: reps(seq), warm: seq >= 8192 ? 0 : 1 };
      const kinds = family === 'modernbert-base' ? [['global', 1], ['local', 2]] : [['layer', 3]];
      const one = child({ ...base, layers: 1, everyN: 1 }, log);
      for (const [kind, everyN] of kinds) {
        const two = child({ ...base, layers: 2, everyN }, log);
        // 1 thread: process CPU time (the machine is shared; CPU time leaves out the time other processes hold the core)
        const row = { family, kind, seq, one_layer_ms: one.cpu_median_ms ?? null, two_layers_ms: two.cpu_median_ms ?? null,
          one_layer_wall_ms: one.median_ms ?? null, two_layers_wall_ms: two.median_ms ?? null };
        row.layer_ms = row.one_layer_ms != null && row.two_layers_ms != null ? +(row.two_layers_ms - row.one_layer_ms).toFixed(2) : null;
        row.heap_bytes = two.heap_bytes ?? null;
        if (one.error || two.error) row.error = one.error ?? two.error;
        out.per_layer.push(row);
        log(`families: ${family} ${kind} layer at ${seq} tokens: ${row.layer_ms ?? row.error} ms (1 layer ${row.one_layer_ms} ms, 2 layers ${row.two_layers_ms} ms)`);
      }
    }
  }
  const g = out.per_layer.find((x) => x.family === 'modernbert-base' && x.kind === 'global' && x.seq === 8192);
  const l = out.per_layer.find((x) => x.family === 'modernbert-base' && x.kind === 'local' && x.seq === 8192);
  if (g?.layer_ms && l?.layer_ms) out.local_over_global_8192 = +(l.layer_ms / g.layer_ms).toFixed(3);
  out.notes.push('mpnet-base is timed with max_position_embeddings = seq + 2 (the released model has 514 positions) so that its layer can be compared at 8192 tokens');
  if (!quick) {
    for (const dtype of ['fp32', 'q8']) {
      for (const threads of [1, 2]) {
        const r = child({ webIndex, threads, dtype, family: 'modernbert-base', layers: 22, everyN: 3, vocab: FAMILY_SHAPES['modernbert-base'].vocab,
          seq: 8192, reps: 1, warm: 0 }, log);
        const row = { model: 'modernbert-base (22 layers)', seq: 8192, dtype, threads, document_ms: r.median_ms ?? null, load_ms: r.load_ms ?? null,
          heap_after_load_bytes: r.heap_after_load_bytes ?? null, peak_heap_bytes: r.heap_bytes ?? null, threads_run: r.threads ?? null,
          threads_reason: r.threads_reason ?? null };
        if (r.error) row.error = r.error;
        out.long_document.push(row);
        log(`families: long document 8192 tokens ${dtype} ${threads} thread(s): ${row.document_ms ?? row.error} ms, peak heap ${row.peak_heap_bytes} B`);
      }
    }
  }
  return out;
}
