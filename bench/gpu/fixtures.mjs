// Every public fixture (../shared/fixtures/hf and hf-families, as tests/js/webgpu-models.test.mjs runs them on
// SwiftShader) through rp.loadModel(files, { device: 'webgpu' }) on whatever adapter Dawn finds — on a GPU
// machine, the real GPU: each hidden state and the pooler output against transformers' recorded values on
// valid positions (fixture-errors.mjs), within 1e-4; a case the GPU plan does not cover is listed with the
// reason 'webgpu' gives. The folders travel in .gpu/fixtures/ (scripts/gpu-carry.sh copies them there; the
// device tool carries ignored paths only), else ../shared/fixtures/, or RELPOS_HF_FIXTURES /
// RELPOS_HF_FAMILY_FIXTURES. bench/gpu/run.sh runs it when .gpu/fixtures exists.
// Writes $OUT/fixtures.json; exit 1 when a covered case is off by more than 1e-4.
// GPU_FIXTURES_DTYPE=fp16 loads every case with dtype 'fp16' (the adapter needs 'shader-f16': on NVIDIA's Vulkan
// driver Dawn offers it only with RELPOS_DAWN_FLAGS=enable-dawn-features=vulkan_enable_f16_on_nvidia) against a
// tolerance of 2e-2 (fixture hidden states are O(1); f16 storage rounds each stored activation and weight at 2^-11
// relative, ≈ 4.9e-4, over a few layers) and writes $OUT/fixtures-fp16.json; exit 2 when the adapter has no f16.
import { existsSync, readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { openDawn } from './common.mjs';
import { readSafetensors } from '../../tests/js/safetensors.mjs';
import { hiddenError } from '../../tests/js/fixture-errors.mjs';

const OUT = process.env.OUT || 'bench/results/tmp/gpu';
const DTYPE = process.env.GPU_FIXTURES_DTYPE ?? 'fp32';
const TOL = DTYPE === 'fp16' ? 2e-2 : 1e-4;
const FILE = DTYPE === 'fp32' ? 'fixtures.json' : `fixtures-${DTYPE}.json`;
mkdirSync(OUT, { recursive: true });
const base = ['.gpu/fixtures', '.gpu-peer/fixtures'].find((d) => existsSync(d)) ?? resolve('..', 'shared', 'fixtures');
const sets = [process.env.RELPOS_HF_FIXTURES ?? join(base, 'hf'), process.env.RELPOS_HF_FAMILY_FIXTURES ?? join(base, 'hf-families')];
const { gpu } = await openDawn((process.env.RELPOS_DAWN_FLAGS ?? '').split(/\s+/).filter(Boolean));
const rp = await (await import('../../web/index.js')).init();

const out = { startedAt: new Date().toISOString(), dtype: DTYPE, tolerance: TOL, cases: [] };
if (DTYPE === 'fp16') {
  const { createContext } = await import('../../web/webgpu/index.js');
  const ctx = await createContext({ gpu });
  out.adapter = ctx.info;
  out.shaderF16 = ctx.shaderF16;
  ctx.destroy();
  if (!out.shaderF16) {
    writeFileSync(join(OUT, FILE), JSON.stringify(out, null, 1));
    console.log(`fixtures fp16: the adapter (${out.adapter.description || out.adapter.vendor}) has no 'shader-f16' (Dawn flags: ${process.env.RELPOS_DAWN_FLAGS || 'none'})`);
    process.exit(2);
  }
}
let failed = 0;
for (const set of sets) {
  if (!existsSync(set)) {
    out.cases.push({ set, error: 'folder not found' });
    ++failed;
    continue;
  }
  for (const name of readdirSync(set).sort()) {
    const dir = join(set, name);
    if (!existsSync(join(dir, 'config.json'))) continue;
    const row = { case: name };
    try {
      // weights and config only: no tokenizer (ids come from input.json)
      const files = { 'config.json': readFileSync(join(dir, 'config.json'), 'utf8'), 'model.safetensors': new Uint8Array(readFileSync(join(dir, 'model.safetensors'))) };
      let model;
      try {
        model = await rp.loadModel(files, { device: 'webgpu', gpu, dtype: DTYPE });
      } catch (e) {
        row.device = 'wasm';
        row.reason = e.message;
        out.cases.push(row);
        console.log(`${name.padEnd(26)} stays on WASM: ${e.message}`);
        continue;
      }
      row.adapter = model.info.adapter.description;
      const input = JSON.parse(readFileSync(join(dir, 'input.json'), 'utf8'));
      const expected = readSafetensors(new Uint8Array(readFileSync(join(dir, 'expected.safetensors'))));
      const passMask = input.attention_mask_passed_to_model ?? true;
      const r = await model.forward({ inputIds: input.input_ids, ...(passMask ? { attentionMask: input.attention_mask } : {}) }, { outputHiddenStates: true });
      const errors = { last_hidden_state: hiddenError(r.lastHiddenState, expected.last_hidden_state, input.lengths) };
      for (let i = 0; expected[`hidden_states.${i}`]; ++i) errors[`hidden_states.${i}`] = hiddenError(r.hiddenStates[i], expected[`hidden_states.${i}`], input.lengths);
      if (expected.pooler_output) errors.pooler_output = hiddenError(r.poolerOutput, expected.pooler_output, null);
      row.device = 'webgpu';
      row.maxAbsError = Math.max(...Object.values(errors));
      row.ok = row.maxAbsError <= TOL;
      if (!row.ok) ++failed;
      model.dispose();
      console.log(`${name.padEnd(26)} webgpu  max |Δ| ${row.maxAbsError.toExponential(2)} over ${Object.keys(errors).length} tensors ${row.ok ? 'ok' : 'FAIL'}`);
    } catch (e) {
      row.error = e.message;
      ++failed;
      console.log(`${name.padEnd(26)} ERROR ${e.message}`);
    }
    out.cases.push(row);
    writeFileSync(join(OUT, FILE), JSON.stringify(out, null, 1));
  }
}
out.failed = failed;
writeFileSync(join(OUT, FILE), JSON.stringify(out, null, 1));
console.log(`fixtures ${DTYPE}: ${out.cases.filter((c) => c.ok).length} within ${TOL} on the GPU, ${out.cases.filter((c) => c.device === 'wasm').length} on WASM, ${failed} failed`);
process.exit(failed ? 1 : 0);
