// Bad inputs for the #26 families (MPNet, ModernBERT, NomicBERT), built in memory from the fixture
// folders ../shared/fixtures/hf-families/<case> (config.json + model.safetensors, no tokenizer):
// a config.json with fields changed or removed, a model.safetensors with a tensor removed, and the
// files of a NomicBERT sentence-transformers folder (tokenizer.json, modules.json, mean pooling,
// nomic-embed's prompts). Shared by tests/js/families-errors.test.mjs and scripts/robustness-table.mjs.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { nomicFiles } from './family-tokenizer-files.mjs';
import { ROOT } from './helpers.mjs';
import { joinSafetensors, readSafetensors, splitSafetensors } from './safetensors.mjs';

export const FAMILIES = process.env.RELPOS_HF_FAMILY_FIXTURES ?? resolve(ROOT, '..', 'shared', 'fixtures', 'hf-families');
export const FAMILY_CASES = ['mpnet-a', 'modernbert-a', 'modernbert-b', 'nomic-bert-a', 'nomic-bert-b'];
export const haveFamilies = FAMILY_CASES.every((c) => existsSync(join(FAMILIES, c, 'model.safetensors')));

const cache = new Map();
/** { config (parsed config.json), modelBytes, input (input.json), expected (expected.safetensors, read lazily) } of a case. */
export function family(name) {
  if (!cache.has(name)) {
    const dir = join(FAMILIES, name);
    const entry = {
      dir,
      config: JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')),
      modelBytes: new Uint8Array(readFileSync(join(dir, 'model.safetensors'))),
      input: JSON.parse(readFileSync(join(dir, 'input.json'), 'utf8')),
    };
    Object.defineProperty(entry, 'expected', {
      get() {
        return (this._expected ??= readSafetensors(new Uint8Array(readFileSync(join(dir, 'expected.safetensors')))));
      },
    });
    cache.set(name, entry);
  }
  return cache.get(name);
}

/**
 * The files of a fixture case for rp.loadModel({ … }): config.json with `config` merged in (a key
 * set to undefined is removed), model.safetensors without the tensors named in `drop`, and `extra`
 * files (objects become JSON text).
 */
export function familyFiles(name, { config = {}, drop = [], extra = {} } = {}) {
  const f = family(name);
  let modelBytes = f.modelBytes;
  if (drop.length) {
    const { header, data } = splitSafetensors(f.modelBytes);
    const h = structuredClone(header);
    for (const tensor of drop) {
      if (!(tensor in h)) throw new Error(`family-bad-inputs: ${name} has no tensor '${tensor}'`);
      delete h[tensor];
    }
    modelBytes = joinSafetensors(h, data);
  }
  const files = { 'config.json': JSON.stringify({ ...f.config, ...config }), 'model.safetensors': modelBytes };
  for (const [file, v] of Object.entries(extra)) files[file] = typeof v === 'string' ? v : JSON.stringify(v);
  return files;
}

/** The case's own input (input.json) as forward() arguments. */
export const familyInputs = (name) => {
  const { input } = family(name);
  return { inputIds: input.input_ids, attentionMask: input.attention_mask };
};

// nomic-embed-text's task prompts (config_sentence_transformers.json of nomic-ai/nomic-embed-text-v1.5).
export const NOMIC_PROMPTS = {
  search_query: 'search_query: ',
  search_document: 'search_document: ',
  classification: 'classification: ',
  clustering: 'clustering: ',
};

/**
 * nomic-bert-a as a sentence-transformers folder: a BERT-uncased tokenizer.json over a few words (ids
 * below the fixture's vocabulary of 100), modules.json [Transformer, Pooling], mean pooling, and
 * nomic-embed's prompts.
 */
export function nomicSentenceTransformersFiles() {
  const tok = nomicFiles(['search', '_', 'query', 'document', 'classification', 'clustering', ':', 'a', 'text', 'about', 'art']);
  const { config } = family('nomic-bert-a');
  return familyFiles('nomic-bert-a', {
    extra: {
      'tokenizer.json': tok['tokenizer.json'],
      'tokenizer_config.json': tok['tokenizer_config.json'],
      'modules.json': [
        { idx: 0, name: '0', path: '', type: 'sentence_transformers.models.Transformer' },
        { idx: 1, name: '1', path: '1_Pooling', type: 'sentence_transformers.models.Pooling' },
      ],
      '1_Pooling/config.json': { word_embedding_dimension: config.n_embd, pooling_mode_mean_tokens: true },
      'config_sentence_transformers.json': { prompts: NOMIC_PROMPTS, default_prompt_name: null },
    },
  });
}
