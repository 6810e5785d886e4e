// What a WebGPU forward costs the CPU before and around its GPU work (issue #37: the CPU part of a call, 4.7–6.1 ms
// of the 20–24 ms real-size and XLM-R pairs calls on the H200). The peer bench's models (MiniLM-L6, XLM-R-base,
// Qwen3-Embedding-0.6B, EmbeddingGemma-300m) at their real depth, heads and family structure — so the same plan ops,
// dispatches, passes and copies per forward — but narrow (head_dim 8, vocabulary 512; random BF16 weights written
// to $ENCODE_WORK), so that any adapter, SwiftShader included, runs a forward of 1 × 8 tokens in milliseconds.
// Per replayed forward (after warm-up), medians:
//   ops (the plan's), dispatches, passes (compute passes begun), copies (buffer copies), submits (command buffers);
//   replayMs: the time re-encoding the recorded forward (DispatchTape.replay; in chunks, their submits included),
//   firstSubmitMs: call start → first submit (the GPU can start then), lastSubmitMs: → the last one (all encoded),
//   callMs: the whole call. On a software adapter (SwiftShader) the GPU work shares the CPU with the encoding, so
//   the times there are rough (±0.5 ms between runs on 2 cores); the counts are exact. With --expose-gc a collection
//   runs before each timed call: Dawn for Node polls with setImmediate while a read-back is pending, and the garbage
//   of a long SwiftShader wait otherwise makes the next call's first allocations collect it (20 ms stalls).
// Each model runs with PlanExecutor.firstSubmit as set (the default: submitted as encoded) and 0 (one command
// buffer), alternating. The counts are the same on every machine; the times are this CPU's (name it).
//   OUT=dir ENCODE_LABEL=name node --expose-gc bench/gpu/encode_cost.mjs   → $OUT/encode-cost.json, runs[name] (other runs kept:
//   run it in a checkout of an older commit with the same OUT for a before / after; default name: the commit)
// env: ENCODE_MODELS (default minilm-l6,xlm-roberta-base,qwen3-0.6b,gemma3-300m), ENCODE_REPS (default 20),
// ENCODE_AB_FUSE=1 (a model loaded with fusion and one without, PlanExecutor.fuse, calls alternating — the A / B of
// web/webgpu/fusion.js; rows say `fuse`),
// ENCODE_WORK (default /tmp/relpos-encode-cost), RELPOS_WEBGPU / RELPOS_DAWN_FLAGS (bench/gpu/common.mjs).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { BIG_CONFIGS } from '../lib/big_models.mjs';
import { writeRandomCheckpoint } from '../../tests/support/random-checkpoint.mjs';
import { median, openDawn } from './common.mjs';

const OUT = process.env.OUT ?? 'bench/results/tmp/encode-cost';
const WORK = process.env.ENCODE_WORK ?? '/tmp/relpos-encode-cost';
const REPS = Number(process.env.ENCODE_REPS || 20);
const MODELS = (process.env.ENCODE_MODELS ?? 'minilm-l6,xlm-roberta-base,qwen3-0.6b,gemma3-300m').split(',');
const FLAGS = (process.env.RELPOS_DAWN_FLAGS ?? '').split(/\s+/).filter(Boolean);
if (!process.env.VK_ICD_FILENAMES && fs.existsSync('/usr/lib/chromium/vk_swiftshader_icd.json') && !process.env.RELPOS_WEBGPU)
  process.env.VK_ICD_FILENAMES = '/usr/lib/chromium/vk_swiftshader_icd.json';

// the peer bench's models, narrowed: heads, kv heads and layers as published, head_dim 8
const D = 8;
const encoder = (model_type, layers, heads) => ({
  architectures: [model_type === 'bert' ? 'BertModel' : 'XLMRobertaModel'], model_type, hidden_size: D * heads, num_hidden_layers: layers,
  num_attention_heads: heads, intermediate_size: 4 * D * heads, vocab_size: 512, max_position_embeddings: 514,
  type_vocab_size: model_type === 'bert' ? 2 : 1, pad_token_id: model_type === 'bert' ? 0 : 1, layer_norm_eps: 1e-12, hidden_act: 'gelu',
});
const narrow = (name) => {
  const c = { ...BIG_CONFIGS[name], vocab_size: 512 };
  return { ...c, head_dim: D, hidden_size: D * c.num_attention_heads, intermediate_size: 4 * D * c.num_attention_heads, ...(c.query_pre_attn_scalar ? { query_pre_attn_scalar: D } : {}) };
};
const CONFIGS = {
  'minilm-l6': encoder('bert', 6, 12),
  'xlm-roberta-base': encoder('xlm-roberta', 12, 12),
  'qwen3-0.6b': narrow('qwen3-0.6b'),
  'gemma3-300m': narrow('gemma3-300m'),
};
const PREFIX = { 'qwen3-0.6b': '', 'gemma3-300m': '' };

const { gpu } = await openDawn(FLAGS);
// counts and times of what the library encodes, by the GPU classes' prototypes (nothing in the library touched)
const tally = { dispatches: 0, passes: 0, copies: 0, submits: 0, firstSubmit: 0, lastSubmit: 0, replayMs: 0 };
const count = (proto, name, key, after) => {
  const f = proto[name];
  proto[name] = function (...a) {
    tally[key]++;
    const r = f.apply(this, a);
    after?.();
    return r;
  };
};
count(globalThis.GPUComputePassEncoder.prototype, 'dispatchWorkgroups', 'dispatches');
count(globalThis.GPUCommandEncoder.prototype, 'beginComputePass', 'passes');
count(globalThis.GPUCommandEncoder.prototype, 'copyBufferToBuffer', 'copies');
{
  const submit = globalThis.GPUQueue.prototype.submit;
  globalThis.GPUQueue.prototype.submit = function (buffers) {
    const t = performance.now();
    if (!tally.firstSubmit) tally.firstSubmit = t;
    tally.lastSubmit = t;
    tally.submits += buffers.length;
    return submit.call(this, buffers);
  };
}
{
  // replayMs: the time in DispatchTape.replay (re-encoding a recorded forward; with chunks, their submits too)
  const { DispatchTape } = await import('../../web/webgpu/device.js');
  const replay = DispatchTape.prototype.replay;
  DispatchTape.prototype.replay = function (...a) {
    const t = performance.now();
    try {
      return replay.apply(this, a);
    } finally {
      tally.replayMs += performance.now() - t;
    }
  };
}
const { init } = await import('../../web/index.js');
const W = await import('../../web/webgpu/index.js');
const { captureExecutor } = await import('./common.mjs');
const captured = captureExecutor(W);
const AB_FUSE = process.env.ENCODE_AB_FUSE === '1' && W.PlanExecutor.fuse !== undefined;
const rp = await init({ simd: true });
const label = process.env.ENCODE_LABEL ?? execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
const file = path.join(OUT, 'encode-cost.json');
const all = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : { runs: {} };
const adapter = await (await gpu.requestAdapter())?.info;
const result = { cpu: os.cpus()[0]?.model ?? 'unknown', cores: os.cpus().length, gcBeforeCalls: typeof globalThis.gc === 'function', adapter: adapter ? `${adapter.vendor} ${adapter.architecture} ${adapter.description}`.trim() : null, node: process.version, date: new Date().toISOString(), reps: REPS, firstSubmit: W.PlanExecutor.firstSubmit ?? null, fuse: W.PlanExecutor.fuse ?? null, rows: [] };
all.runs[label] = result;
fs.mkdirSync(OUT, { recursive: true });

for (const name of MODELS) {
  const config = CONFIGS[name];
  if (!config) throw new Error(`encode_cost: unknown model '${name}' (expected ${Object.keys(CONFIGS).join(', ')})`);
  const dir = path.join(WORK, name);
  const stamp = path.join(dir, 'written.json'); // the config its checkpoint was written for
  if (!fs.existsSync(stamp) || fs.readFileSync(stamp, 'utf8') !== JSON.stringify(config)) {
    writeRandomCheckpoint(dir, config, { seed: 3, prefix: PREFIX[name] ?? 'model.' });
    fs.writeFileSync(stamp, JSON.stringify(config));
  }
  // with ENCODE_AB_FUSE=1 a second model of the same files, loaded and run with PlanExecutor.fuse off: alternating calls
  const fuses = AB_FUSE ? [true, false] : [W.PlanExecutor.fuse ?? null];
  const models = new Map();
  const setFuse = (f) => { if (f !== null) W.PlanExecutor.fuse = f; };
  const fuse0 = W.PlanExecutor.fuse, submit0 = W.PlanExecutor.firstSubmit;
  try {
    for (const f of fuses) {
      setFuse(f);
      const model = await rp.loadModel(dir, { device: 'webgpu', gpu });
      models.set(f, { model, ex: captured.get() });
    }
    const ids = [Array.from({ length: 8 }, (_, i) => 3 + ((i * 37) % 500))];
    const submits = W.PlanExecutor.firstSubmit ? [W.PlanExecutor.firstSubmit, 0] : [0]; // (an older executor: one command buffer)
    const settings = fuses.flatMap((f) => submits.map((s) => ({ f, s })));
    const runs = new Map(settings.map((x) => [x, []]));
    for (const { f, s } of settings) { // warm-up: each setting records its tape
      setFuse(f);
      W.PlanExecutor.firstSubmit = s;
      for (let i = 0; i < 3; ++i) await models.get(f).model.forward({ inputIds: ids });
    }
    for (let r = 0; r < REPS; ++r)
      for (const x of settings) {
        const { model, ex } = models.get(x.f);
        setFuse(x.f);
        W.PlanExecutor.firstSubmit = x.s;
        for (const k of Object.keys(tally)) tally[k] = 0;
        const replays = ex.replays;
        globalThis.gc?.(); // the read-back poll's garbage collected outside the timed call (node --expose-gc)
        const t0 = performance.now();
        await model.forward({ inputIds: ids });
        const t1 = performance.now();
        if (ex.replays !== replays + 1) throw new Error(`encode_cost: ${name}: a forward was not replayed`);
        runs.get(x).push({ ...tally, firstSubmitMs: tally.firstSubmit - t0, lastSubmitMs: tally.lastSubmit - t0, callMs: t1 - t0 });
      }
    const ops = [...models.get(fuses[0]).ex.prepared.values()].at(-1).plan.ops.length;
    for (const [{ f, s }, list] of runs) {
      const m = (k) => +median(list.map((x) => x[k])).toFixed(3);
      const row = { model: name, layers: config.num_hidden_layers, firstSubmit: s, ...(f === null ? {} : { fuse: f }), ops, dispatches: m('dispatches'), passes: m('passes'), copies: m('copies'), submits: m('submits'), replayMs: m('replayMs'), firstSubmitMs: m('firstSubmitMs'), lastSubmitMs: m('lastSubmitMs'), callMs: m('callMs') };
      result.rows.push(row);
      console.error('[encode]', JSON.stringify(row));
    }
  } finally {
    W.PlanExecutor.firstSubmit = submit0;
    if (fuse0 !== undefined) W.PlanExecutor.fuse = fuse0;
    for (const { model } of models.values()) model.dispose();
  }
  fs.writeFileSync(file, JSON.stringify(all, null, 1) + '\n');
}
process.exit(0);
