// RoBERTa-family and ELECTRA models on WebGPU (SwiftShader), the same plan as WASM (cpp/src/plan,
// web/webgpu/executor.js): positions counted from the ids (add_rows source 2, computed on the GPU, inner pad ids
// included), ELECTRA's embedding projection and token types, and the heads (tanh and GELU classification heads,
// token classification, the tied masked LM). Each gives Hugging Face's recorded outputs (≤ 1e-4, valid positions)
// and the WASM forward's (≤ 1e-4); loaded as q8 (int8 weights on the GPU), within q8's bound of the fp32 forward
// (max |Δ| ≤ 0.15 · max |fp32|, as q8_models_stay_close_to_fp32_test: the CPU's q8 also rounds activations, so the two
// q8 forwards are not compared with each other).
// No adapter: the suite fails under CI (process.env.CI), else skips, as webgpu-ops.test.mjs does.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { FAMILIES_D } from './families-roberta-fixtures.mjs';
import { hiddenError } from './fixture-errors.mjs';
import { readSafetensors } from './safetensors.mjs';
import { webgpuAdapter } from './webgpu-adapter.mjs';

const adapter = await webgpuAdapter();
const have = existsSync(join(FAMILIES_D, 'bge-m3', 'expected.json'));
const skip = adapter.skip || (!have && `no fixtures at ${FAMILIES_D}`);
const TOL = 1e-4;
const { init } = await import('../../web/index.js');
const rp = skip ? null : await init({ simd: true });
const json = (c, f) => JSON.parse(readFileSync(join(FAMILIES_D, c, f), 'utf8'));
const maxAbs = (a, b) => Array.from(a).reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);
const inputsOf = (input) => ({
  inputIds: input.input_ids,
  attentionMask: input.attention_mask,
  ...(input.token_type_ids_passed_to_model ? { tokenTypeIds: input.token_type_ids } : {}),
});

for (const c of ['xlm-roberta-a', 'electra-a', 'xlm-roberta-reranker', 'electra-seq-cls', 'roberta-mlm', 'xlm-roberta-token-cls']) {
  test(`webgpu: ${c} gives transformers' and WASM's outputs`, { skip }, async (t) => {
    const input = json(c, 'input.json');
    const expected = readSafetensors(new Uint8Array(readFileSync(join(FAMILIES_D, c, 'expected.safetensors'))));
    for (const dtype of ['fp32', 'q8']) {
      const gpu = await rp.loadModel(join(FAMILIES_D, c), { device: 'webgpu', dtype });
      const wasm = await rp.loadModel(join(FAMILIES_D, c));
      try {
        assert.equal(gpu.info.device, 'webgpu');
        const logits = gpu.head !== null;
        const [g, w] = [await gpu.forward(inputsOf(input), { logits }), wasm.forward(inputsOf(input), { logits })];
        const bound = (x) => (dtype === 'q8' ? 0.15 * Math.max(...Array.from(x.data, Math.abs)) : TOL);
        assert.equal(gpu.info.dtype, dtype);
        const e = hiddenError(g.lastHiddenState, w.lastHiddenState, input.lengths);
        assert.ok(e <= bound(w.lastHiddenState), `${c} ${dtype}: GPU vs WASM hidden ${e}`);
        t.diagnostic(`${c} ${dtype}: last hidden state GPU vs WASM fp32 max |Δ| ${e.toExponential(2)}`);
        if (dtype === 'fp32') assert.ok(hiddenError(g.lastHiddenState, expected.last_hidden_state, input.lengths) <= TOL, `${c}: GPU vs transformers`);
        if (logits) {
          assert.deepEqual(g.logits.dims, w.logits.dims);
          const perToken = g.logits.dims.length === 3;
          const n = g.logits.dims.at(-1), L = input.input_ids[0].length;
          let worst = 0;
          input.lengths.forEach((len, b) => {
            for (let l = 0; l < (perToken ? len : 1); ++l)
              for (let k = 0; k < n; ++k) {
                const i = (perToken ? b * L + l : b) * n + k;
                worst = Math.max(worst, Math.abs(g.logits.data[i] - w.logits.data[i]) / (dtype === 'q8' ? 1 : Math.max(1, Math.abs(w.logits.data[i]))));
              }
          });
          assert.ok(worst <= bound(w.logits), `${c} ${dtype}: GPU vs WASM logits ${worst}`);
          t.diagnostic(`${c} ${dtype}: logits GPU vs WASM fp32 max |Δ| ${worst.toExponential(2)}${dtype === 'fp32' ? ' (relative above 1)' : ''}`);
        }
      } finally {
        gpu.dispose();
        wasm.dispose();
      }
    }
  });
}

test('webgpu: RoBERTa positions follow the ids on the GPU (inner pad id, left padding) as on WASM', { skip }, async () => {
  const gpu = await rp.loadModel(join(FAMILIES_D, 'roberta-a'), { device: 'webgpu' });
  const wasm = await rp.loadModel(join(FAMILIES_D, 'roberta-a'));
  try {
    const inputs = { inputIds: [[0, 5, 1, 9, 2, 1, 1], [1, 1, 0, 7, 8, 9, 2]], attentionMask: [[1, 1, 1, 1, 1, 0, 0], [0, 0, 1, 1, 1, 1, 1]] };
    const [g, w] = [await gpu.forward(inputs), wasm.forward(inputs)];
    assert.ok(maxAbs(g.lastHiddenState.data, w.lastHiddenState.data) <= TOL);
  } finally {
    gpu.dispose();
    wasm.dispose();
  }
});
