// Checkpoint layouts through rp.loadModel(folder) on the SIMD128 and the scalar build, with the
// variants written by scripts/make-checkpoint-variants.py (build/checkpoint-variants; npm test runs
// it first): pytorch_model.bin, sharded .bin and safetensors sets, transposed views, shared storages,
// a custom archive root and ZIP64 give exactly the outputs of the fixture's own model.safetensors
// (which models.test.mjs checks against Transformers); the layout order (model.safetensors before
// pytorch_model.bin); hostile files rejected as JS Errors with the runtime still usable; progress
// reported for every shard.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { init } from '../../web/index.js';
import { ROOT } from './helpers.mjs';
import { FIXTURES, haveFixtures, manifest } from './safetensors.mjs';

const VARIANTS = join(ROOT, 'build', 'checkpoint-variants');
const skip = haveFixtures && existsSync(join(VARIANTS, 'hostile')) ? false : `run /usr/bin/python3 scripts/make-checkpoint-variants.py first`;
const runtimes = skip ? {} : { SIMD: await init({ simd: true }), scalar: await init({ simd: false }) };
const LAYOUTS = ['bin-f32', 'bin-sharded', 'safetensors-sharded', 'bin-noncontiguous', 'bin-shared-storage', 'bin-custom-root', 'bin-zip64'];

function inputs(dir) {
  const input = JSON.parse(readFileSync(join(dir, 'input.json'), 'utf8'));
  return { inputIds: input.input_ids, attentionMask: input.attention_mask_passed_to_model === false ? undefined : input.attention_mask };
}

async function run(rp, source, dir, options) {
  const model = await rp.loadModel(source, options);
  try {
    return model.forward(inputs(dir), { outputHiddenStates: true }).lastHiddenState.data;
  } finally {
    model.dispose();
  }
}

for (const [label, rp] of Object.entries(runtimes)) {
  test(`${label}: every checkpoint layout of every fixture gives the fixture's outputs`, { skip }, async () => {
    for (const c of manifest.cases) {
      const reference = await run(rp, join(FIXTURES, c.dir), join(FIXTURES, c.dir));
      for (const layout of LAYOUTS) {
        const dir = join(VARIANTS, c.dir, layout);
        assert.deepEqual(await run(rp, dir, dir), reference, `${c.name} / ${layout}`);
      }
    }
  });

  test(`${label}: model.safetensors is preferred over pytorch_model.bin in the same folder`, { skip }, async () => {
    const dir = join(VARIANTS, 'bert-absolute', 'both-differ');
    const viaFolder = await run(rp, dir, dir);
    const safetensorsOnly = await run(rp, { 'config.json': readFileSync(join(dir, 'config.json'), 'utf8'), 'model.safetensors': readFileSync(join(dir, 'model.safetensors')) }, dir);
    const binOnly = await run(rp, { 'config.json': readFileSync(join(dir, 'config.json'), 'utf8'), 'pytorch_model.bin': readFileSync(join(dir, 'pytorch_model.bin')) }, dir);
    assert.deepEqual(viaFolder, safetensorsOnly);
    assert.notDeepEqual(binOnly, safetensorsOnly, 'the two files must differ for this test to prove the order');
  });

  test(`${label}: hostile and legacy checkpoints are Errors naming the problem; the runtime stays usable`, { skip }, async () => {
    const dir = join(VARIANTS, 'hostile');
    const config = readFileSync(join(dir, 'config.json'), 'utf8');
    const cases = {
      'os-system.bin': /refused global 'os\.system'/,
      'posix-system.bin': /refused global 'posix\.system'/,
      'builtins-eval.bin': /refused global 'builtins\.eval'/,
      'unknown-global.bin': /refused global 'mylib\.layers\.CustomTensor'/,
      'truncated.bin': /no end-of-central-directory record/,
      'compressed.bin': /is compressed/,
      'bad-persistent-id.bin': /bad persistent id/,
      'storage-too-small.bin': /storage too small for the view/,
      'unsupported-dtype.bin': /torch\.DoubleStorage' is not supported/,
      'legacy.bin': /legacy PyTorch format.*re-save it with PyTorch ≥ 1\.6/,
    };
    for (const [file, pattern] of Object.entries(cases)) {
      await assert.rejects(rp.loadModel({ 'config.json': config, 'pytorch_model.bin': readFileSync(join(dir, file)) }), (e) => {
        assert.ok(e instanceof Error, file);
        assert.match(e.message, /^pytorch_model\.bin: /, file);
        assert.match(e.message, pattern, file);
        return true;
      });
    }
    const good = join(VARIANTS, 'bert-absolute', 'bin-f32');
    assert.ok((await run(rp, good, good)).length > 0);
  });

  test(`${label}: a sharded set reports progress for the index and every shard; a missing shard is named`, { skip }, async () => {
    for (const [layout, index, ext] of [['bin-sharded', 'pytorch_model.bin.index.json', '.bin'], ['safetensors-sharded', 'model.safetensors.index.json', '.safetensors']]) {
      const dir = join(VARIANTS, 'llama-rope', layout);
      const seen = new Map();
      await run(rp, dir, dir, { onProgress: (p) => seen.set(p.file, p) });
      const shards = [1, 2, 3].map((i) => `${ext === '.bin' ? 'pytorch_model' : 'model'}-0000${i}-of-00003${ext}`);
      for (const f of ['config.json', index, ...shards]) {
        assert.ok(seen.has(f), `progress for ${f}`);
        assert.equal(seen.get(f).loaded, seen.get(f).total, `${f} complete`);
      }
      const files = { 'config.json': readFileSync(join(dir, 'config.json'), 'utf8'), [index]: readFileSync(join(dir, index), 'utf8') };
      files[shards[0]] = readFileSync(join(dir, shards[0]));
      await assert.rejects(rp.loadModel({ 'config.json': files['config.json'], [index]: { weight_map: { x: '../x.bin' } } }), /'\.\.\/x\.bin' must be a plain file name|"\.\.\/x\.bin" must be a plain file name/);
      await assert.rejects(rp.loadModel(files), new RegExp(`${shards[1].replace(/\./g, '\\.')}: not found at .*named by ${index.replace(/\./g, '\\.')}`));
    }
  });
}
