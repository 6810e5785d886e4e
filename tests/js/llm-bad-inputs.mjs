// Bad inputs for the #34 families (qwen3, gemma3_text), built in memory from ../shared/fixtures/hf-llm-embedders/<case>:
// a config.json with fields changed, a model.safetensors with a tensor removed, a sentence-transformers Dense module
// changed. Shared by tests/js/llm-embedders-errors.test.mjs and scripts/robustness-table.mjs.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

import { ROOT } from './helpers.mjs';
import { joinSafetensors, splitSafetensors } from './safetensors.mjs';

export const LLM_SET = process.env.RELPOS_HF_LLM_FIXTURES ?? resolve(ROOT, '..', 'shared', 'fixtures', 'hf-llm-embedders');
export const haveLlm = ['qwen3-embed-right', 'gemma3-bidir-a', 'gemma3-st-embed'].every((c) => existsSync(join(LLM_SET, c, 'model.safetensors')));

/** Every file of a case folder as a file map ('2_Dense/config.json' for sub-folders). */
export function caseFiles(name) {
  const dir = join(LLM_SET, name);
  const out = {};
  const walk = (d) => {
    for (const e of readdirSync(d)) {
      const p = join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else if (!/^(expected\.safetensors|input\.json)$/.test(e)) out[relative(dir, p)] = new Uint8Array(readFileSync(p));
    }
  };
  walk(dir);
  return out;
}

/**
 * A case's files with `config` merged into config.json (undefined removes a key), the tensors in `drop` removed from
 * model.safetensors, and `extra` files (objects become JSON text; a Uint8Array stays bytes).
 */
export function llmFiles(name, { config = {}, drop = [], extra = {} } = {}) {
  const files = caseFiles(name);
  const c = JSON.parse(new TextDecoder().decode(files['config.json']));
  files['config.json'] = JSON.stringify({ ...c, ...config });
  if (drop.length) {
    const { header, data } = splitSafetensors(files['model.safetensors']);
    const h = structuredClone(header);
    for (const t of drop) {
      if (!(t in h)) throw new Error(`llm-bad-inputs: ${name} has no tensor '${t}'`);
      delete h[t];
    }
    files['model.safetensors'] = joinSafetensors(h, data);
  }
  for (const [f, v] of Object.entries(extra)) files[f] = typeof v === 'string' || v instanceof Uint8Array ? v : JSON.stringify(v);
  return files;
}

/** The Dense module config of gemma3-st-embed's 3_Dense (128 → 32), to change one field. */
export const dense3 = (changes) => ({ in_features: 128, out_features: 32, bias: false, activation_function: 'torch.nn.modules.linear.Identity', ...changes });
