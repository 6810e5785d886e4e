// qwen3 / gemma3_text inputs relpos cannot run are clear Errors naming the field, the tensor or the file, on the SIMD and
// scalar builds, and the runtime stays usable (the unmodified fixture loads and runs afterwards): layer_types of the
// wrong length or with an unknown kind, rope_scaling set (YaRN and friends are refused, not approximated), head_dim
// that does not match the weights, heads that kv heads do not divide, missing q/k norms, a sentence-transformers Dense
// module whose shapes do not chain, and a Dense activation relpos does not know (the recipe loads; the pipeline says
// why it cannot embed without an explicit pooling). Rows of docs/robustness.md (scripts/robustness-table.mjs).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { init, pipeline } from '../../web/index.js';
import { dense3, haveLlm, llmFiles } from './llm-bad-inputs.mjs';

const skip = haveLlm ? false : 'no hf-llm-embedders fixtures';
const runtimes = haveLlm ? { SIMD: await init({ simd: true }), scalar: await init({ simd: false }) } : {};

const CASES = [
  ['gemma3-bidir-a', { config: { layer_types: ['sliding_attention', 'full_attention'] } }, Error, /layer_types.*one entry per layer \(3\), got 2 entries/],
  ['gemma3-bidir-a', { config: { layer_types: ['sliding_attention', 'chunked_attention', 'sliding_attention'] } }, Error, /layer_types.*entry 1 is "chunked_attention" \(expected 'full_attention' or 'sliding_attention'\)/],
  ['qwen3-embed-right', { config: { rope_scaling: { rope_type: 'yarn', factor: 4 } } }, Error, /rope_scaling.*rope_type 'yarn'.*YaRN/],
  ['qwen3-embed-right', { config: { head_dim: 8 } }, Error, /q_proj\.weight' has shape \[64, 32\], expected \[32, 32\]/],
  ['gemma3-bidir-a', { config: { num_key_value_heads: 3 } }, RangeError, /num_attention_heads 2 is not a multiple of num_key_value_heads 3/],
  ['qwen3-embed-right', { drop: ['layers.1.self_attn.k_norm.weight'] }, Error, /layers\.1\.self_attn\.k_norm\.weight/],
  ['gemma3-st-embed', { extra: { '3_Dense/config.json': dense3({ in_features: 64 }) } }, Error, /3_Dense\/config\.json: in_features 64 does not match the 128 features/],
];

test('qwen3 / gemma3_text configs and checkpoints relpos cannot run are Errors naming the cause; the runtime stays usable', { skip }, async (t) => {
  for (const [build, rp] of Object.entries(runtimes)) {
    await t.test(`${build} build`, async () => {
      for (const [name, change, cls, message] of CASES) {
        await assert.rejects(rp.loadModel(llmFiles(name, change)), (e) => e instanceof cls && message.test(e.message), `${name} ${JSON.stringify(change).slice(0, 120)}`);
        const m = await rp.loadModel(llmFiles(name));
        const out = m.forward({ inputIds: [[5, 6, 7, 8]] });
        assert.ok(out.lastHiddenState.data.every(Number.isFinite));
        m.dispose();
      }
    });
  }
});

test('a Dense activation relpos does not know: the recipe loads, feature-extraction names it and runs with an explicit pooling', { skip }, async () => {
  const rp = runtimes.SIMD;
  const m = await rp.loadModel(llmFiles('gemma3-st-embed', { extra: { '3_Dense/config.json': dense3({ activation_function: 'torch.nn.modules.activation.Hardswish' }) } }));
  try {
    const pipe = await pipeline('feature-extraction', m);
    await assert.rejects(pipe('t5 t6'), /3_Dense\/config\.json: activation_function 'torch\.nn\.modules\.activation\.Hardswish' is not run by relpos/);
  } finally {
    m.dispose();
  }
});
