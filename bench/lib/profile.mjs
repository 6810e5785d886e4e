// Per-call profile (issue #19): where one forward's time goes at batch 1 × 8–64 tokens, on the real
// MiniLM and the four bench layers, on 1 and 2 threads. Runs a profiled copy of the npm package
// (build/g-wasm-prof/web, built by bench/run.sh with cmake -DRELPOS_PROFILE=ON: cpp/src/profile/profile.h
// timers in the model layers; the shipped package has none). Parts:
//   tokenizer          model.encode(text) (MiniLM: the only one with a tokenizer.json)      — JS
//   js_copies          model.forward's JS side: ids into the heap, the call, outputs out     — JS wall − C++
//   embeddings, gemm, attention, norms_activations, pooling (the C++ pooler), thread_wakeups, other
//                      exclusive C++ time (profile.h), other = the rest of ModelBase::forward
//   js_pooling         mean pooling + L2 norm in JS (web/pipelines.js pool), MiniLM only
// Averages over `reps` calls after warm-up, wall clock; the profiled build's timers add ~2 clock reads per
// hook (tens of hooks per layer), so its totals run slightly above the shipped build's.
import fs from 'node:fs';
import path from 'node:path';
import { E2E_MODELS, tokenIds } from './e2e_models.mjs';
import { makeTexts } from './batching.mjs';

export const PROFILE_PARTS = ['tokenizer', 'js_copies', 'embeddings', 'gemm', 'attention', 'norms_activations', 'pooling', 'js_pooling', 'thread_wakeups', 'other'];
const CPP = ['embeddings', 'gemm', 'attention', 'norms_activations', 'pooling', 'thread_wakeups', 'other'];
const r4 = (x) => +x.toFixed(4);

export async function perCallProfile({ profWeb, modelsDir, minilm, quick, log, seqs = [8, 16, 32, 64], models = E2E_MODELS }) {
  const index = path.join(profWeb, 'index.js');
  if (!fs.existsSync(index) || !fs.existsSync(path.join(profWeb, 'dist/relpos-simd.wasm')))
    return { unavailable: `profiled package not built (${profWeb}; bench/run.sh builds it when the profile section runs)` };
  const rpModule = await import(index);
  const { pool } = await import(path.join(profWeb, 'pipelines.js'));
  globalThis.__relposProfiledModules = [];
  const rts = {}, mods = {};
  rts[1] = await rpModule.init({ simd: true });
  mods[1] = globalThis.__relposProfiledModules.at(-1);
  rts[2] = await rpModule.init({ threads: 2 });
  mods[2] = globalThis.__relposProfiledModules.at(-1);
  if (!mods[1]?.profileRead || !mods[2]?.profileRead || mods[1] === mods[2]) return { unavailable: 'profiled modules did not register (cpp/bindings/profile.cpp)' };
  const out = { rows: [], reps: quick ? 20 : 60 };
  const words = minilm ? makeTexts(minilm.files['tokenizer.json'], 12, 7).join(' ').split(' ') : [];  // hundreds of words
  try {
    for (const t of [1, 2]) {
      const rp = rts[t], mod = mods[t];
      const entries = models.map((m) => [m, path.join(modelsDir, m)]);
      if (minilm) entries.push(['all-MiniLM-L6-v2', null]);
      for (const [name, dir] of entries) {
        const src = dir ?? Object.fromEntries(Object.entries(minilm.files).map(([k, f]) => [k, k.endsWith('.json') ? fs.readFileSync(f, 'utf8') : new Uint8Array(fs.readFileSync(f))]));
        const m = await rp.loadModel(src);
        for (const S of seqs) {
          let text = null, ids;
          if (m.tokenizer) {
            // the longest prefix of the word list whose encoding has ≤ S tokens ([CLS] … [SEP])
            let k = 1;
            while (k < words.length && m.encode(words.slice(0, k + 1).join(' ')).inputIds[0].length <= S) ++k;
            text = words.slice(0, k).join(' ');
            ids = m.encode(text).inputIds[0];
          } else {
            ids = tokenIds(dir, Math.max(S, 129)).slice(0, S);
          }
          const acc = Object.fromEntries(PROFILE_PARTS.map((p) => [p, 0]));
          let total = 0;
          const once = (timed) => {
            const t0 = performance.now();
            const inputIds = text !== null ? m.encode(text).inputIds : [ids];
            const t1 = performance.now();
            const r = m.forward({ inputIds });
            const t2 = performance.now();
            if (text !== null) pool(r.lastHiddenState, r.attentionMask, { pooling: 'mean', normalize: true });
            const t3 = performance.now();
            if (!timed) return;
            acc.tokenizer += t1 - t0;
            acc.js_copies += t2 - t1;  // minus the C++ parts below
            acc.js_pooling += t3 - t2;
            total += t3 - t0;
          };
          for (let w = 0; w < 5; ++w) once(false);
          mod.profileReset();
          for (let i = 0; i < out.reps; ++i) once(true);
          const p = mod.profileRead();
          for (const k of CPP) acc[k] = p[k];
          acc.js_copies -= CPP.reduce((a, k) => a + p[k], 0);
          const row = { threads: t, model: name, batch: 1, seq: S, tokens: ids.length, total_ms: r4(total / out.reps), parts_ms: {}, regions_per_call: +(p.calls.thread_wakeups / 2 / out.reps).toFixed(1) };
          for (const k of PROFILE_PARTS) row.parts_ms[k] = r4(acc[k] / out.reps);
          // each encoder layer's own split (C++ parts inside layer i: GEMMs, attention, norms + activations, wake-ups)
          row.layers_ms = (p.layers ?? []).map((l) => Object.fromEntries(CPP.filter((k) => l[k] > 0).map((k) => [k, r4(l[k] / out.reps)])));
          // the encoder's linear layers: per layer q, k, v, o (H → H) and the feed-forward (H → I → H), per token
          const { hiddenSize: h, intermediateSize: ff, numLayers: nl } = m.info;
          if (h && ff && nl) row.gemm_gflops = +((2 * ids.length * nl * (4 * h * h + 2 * h * ff)) / (row.parts_ms.gemm * 1e6)).toFixed(1);
          out.rows.push(row);
          log(`profile ${t}t ${name} 1×${ids.length}: ${row.total_ms} ms = ` + PROFILE_PARTS.filter((k) => row.parts_ms[k] > 0.0005).map((k) => `${k} ${row.parts_ms[k].toFixed(3)}`).join(' + ') + `; GEMMs ${row.gemm_gflops} GFLOP/s` + (t > 1 ? ` (${row.regions_per_call} parallel regions/call)` : ''));
        }
        m.dispose();
      }
    }
  } finally {
    rts[1].dispose();
    rts[2].dispose();
  }
  return out;
}
