// Qwen3 and bidirectional Gemma3 (shared/fixtures/hf-llm-embedders) on WebGPU (SwiftShader in CI): the families' plan
// with grouped-query attention (k/v heads shared by heads / kv_heads query heads, their own row strides), per-head
// q/k RMS norms, Gemma's (1 + w) norms, sandwich norms, query_pre_attn_scalar, two RoPE thetas and the sliding window,
// run by the WGSL executor:
//   - every hidden state and last_hidden_state within 1e-4 of transformers on the real tokens (left padding too);
//   - the Qwen3ForCausalLM head's last-token logits (logitsAt) within 1e-4 and the reranker score within 1e-5;
//   - q8 weights on the GPU give WASM q8's outputs within 1e-4.
// No adapter: the suite fails under CI (process.env.CI), else skips (webgpu-adapter.mjs).
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';

import { ROOT } from './helpers.mjs';
import { readSafetensors } from './safetensors.mjs';
import { webgpuAdapter } from './webgpu-adapter.mjs';

const SET = process.env.RELPOS_HF_LLM_FIXTURES ?? resolve(ROOT, '..', 'shared', 'fixtures', 'hf-llm-embedders');
const CASES = ['qwen3-embed-right', 'qwen3-embed-left', 'qwen3-reranker', 'gemma3-bidir-a', 'gemma3-bidir-b', 'gemma3-st-embed'];
const TOL = 1e-4;

const { skip: noAdapter } = await webgpuAdapter();
const skip = noAdapter || (!CASES.every((c) => existsSync(join(SET, c, 'expected.safetensors'))) && `no fixtures at ${SET}`);
const { init } = await import('../../web/index.js');
const rp = await init({ simd: true });

function maskedError(actual, expected, mask) {
  assert.deepEqual(actual.dims, expected.dims, 'shape');
  const [B, L, H] = expected.dims;
  let worst = 0;
  for (let b = 0; b < B; ++b)
    for (let l = 0; l < L; ++l)
      if (mask[b][l] === 1)
        for (let h = 0; h < H; ++h) {
          const i = (b * L + l) * H + h;
          const e = Math.abs(actual.data[i] - expected.data[i]);
          worst = Number.isNaN(e) ? Infinity : Math.max(worst, e);
        }
  return worst;
}

for (const name of CASES) {
  test(`webgpu: ${name} matches transformers (every hidden state within ${TOL})`, { skip }, async () => {
    const dir = join(SET, name);
    const input = JSON.parse(readFileSync(join(dir, 'input.json'), 'utf8'));
    const expected = readSafetensors(new Uint8Array(readFileSync(join(dir, 'expected.safetensors'))));
    const model = await rp.loadModel(dir, { device: 'webgpu' });
    try {
      assert.equal(model.info.device, 'webgpu');
      const batch = { inputIds: input.input_ids, attentionMask: input.attention_mask };
      const out = await model.forward(batch, { outputHiddenStates: true });
      const errors = { last_hidden_state: maskedError(out.lastHiddenState, expected.last_hidden_state, input.attention_mask) };
      out.hiddenStates.forEach((h, i) => (errors[`hidden_states.${i}`] = maskedError(h, expected[`hidden_states.${i}`], input.attention_mask)));
      for (const [key, e] of Object.entries(errors)) assert.ok(e <= TOL, `${key}: max abs error ${e} > ${TOL}`);
      if (name === 'qwen3-reranker') {
        const at = input.attention_mask.map((m, b) => [b, m.lastIndexOf(1)]);
        const r = await model.forward(batch, { logits: true, logitsAt: at });
        let worst = 0;
        expected.logits_last.data.forEach((x, i) => (worst = Math.max(worst, Math.abs(r.logits.data[i] - x))));
        assert.ok(worst <= TOL, `logits at the last token: max abs error ${worst}`);
        at.forEach((_, b) => {
          const ly = r.logits.data[b * 100 + input.reranker_yes_token_id], ln = r.logits.data[b * 100 + input.reranker_no_token_id];
          const s = 1 / (1 + Math.exp(ln - ly));
          assert.ok(Math.abs(s - expected['aux.reranker_score'].data[b]) <= 1e-5, `row ${b}: score ${s}`);
        });
      }
    } finally {
      model.dispose();
    }
  });
}

// The CPU's q8 GEMM also quantizes activations per row; the GPU's dequantizes the int8 weights into f32 arithmetic.
// So both are compared with fp32: the GPU's q8 error must be of the size of the CPU's (≤ 2× it, and ≤ 15 % of the
// largest value, as the q8 model tests ask).
test('webgpu: q8 qwen3 and gemma3_text on the GPU stay as close to fp32 as WASM q8 does', { skip }, async () => {
  for (const name of ['qwen3-embed-left', 'gemma3-bidir-b']) {
    const dir = join(SET, name);
    const input = JSON.parse(readFileSync(join(dir, 'input.json'), 'utf8'));
    const batch = { inputIds: input.input_ids, attentionMask: input.attention_mask };
    const f32 = await rp.loadModel(dir);
    const cpu = await rp.loadModel(dir, { dtype: 'q8' });
    const gpu = await rp.loadModel(dir, { dtype: 'q8', device: 'webgpu' });
    try {
      const ref = f32.forward(batch).lastHiddenState;
      let top = 0;
      for (const x of ref.data) top = Math.max(top, Math.abs(x));
      const eCpu = maskedError(cpu.forward(batch).lastHiddenState, ref, input.attention_mask);
      const eGpu = maskedError((await gpu.forward(batch)).lastHiddenState, ref, input.attention_mask);
      assert.ok(eGpu <= 2 * eCpu && eGpu <= 0.15 * top, `${name}: q8 vs fp32 max abs error GPU ${eGpu}, WASM ${eCpu} (largest value ${top})`);
      assert.ok(gpu.info.gpuWeightBytes < 0.5 * f32.info.weightBytes, `int8 weights on the GPU: ${gpu.info.gpuWeightBytes} bytes, fp32 ${f32.info.weightBytes}`);
    } finally {
      f32.dispose();
      cpu.dispose();
      gpu.dispose();
    }
  }
});

// GGUF files (../shared/fixtures/gguf, llama.cpp's converter) on WebGPU: the same family plans, so the GPU gives the
// WASM outputs of the same file; the reranker's 2-row RANK head too.
const GGUF = resolve(ROOT, '..', 'shared', 'fixtures', 'gguf');
test('webgpu: GGUF files (Q8_0 EmbeddingGemma with Dense layers, Q4_K_M Qwen3, the Q8_0 reranker) match WASM on the same file', { skip: skip || (!existsSync(join(GGUF, 'MD5SUMS')) && `no fixtures at ${GGUF}`) }, async () => {
  for (const [c, file] of [['gemma3-st-embed', 'model-dense-q8_0.gguf'], ['qwen3-kquant', 'model-q4_k_m.gguf'], ['qwen3-reranker', 'model-q8_0.gguf']]) {
    const path = join(GGUF, c, file);
    const ids = [[5, 17, 33, 2, 9, 41, 60, 7]];
    const cpu = await rp.loadModel(path);
    const gpu = await rp.loadModel(path, { device: 'webgpu' });
    try {
      assert.equal(gpu.info.device, 'webgpu');
      const logits = cpu.head ? { logits: true, logitsAt: [[0, 7]] } : {};
      const a = cpu.forward({ inputIds: ids }, logits), b = await gpu.forward({ inputIds: ids }, logits);
      const e = maskedError(b.lastHiddenState, a.lastHiddenState, [Array(8).fill(1)]);
      assert.ok(e <= TOL * 10, `${c} ${file}: GPU vs WASM max abs ${e}`);
      if (cpu.head) assert.ok(Math.max(...a.logits.data.map((x, i) => Math.abs(x - b.logits.data[i]))) <= 1e-3, `${c}: RANK logits`);
    } finally {
      cpu.dispose();
      gpu.dispose();
    }
  }
});
