// Builds SentencePiece ModelProto bytes field by field, for malformed-file tests
// (tests/js/sentencepiece.test.mjs) and the bad-input table (scripts/robustness-table.mjs).
export const varint = (n) => {
  const out = [];
  do {
    let b = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) b |= 0x80;
    out.push(b);
  } while (n > 0);
  return out;
};
export const field = (num, wire, payload) => [...varint(num * 8 + wire), ...payload];
export const bytesField = (num, bytes) => field(num, 2, [...varint(bytes.length), ...bytes]);
export const str = (s) => [...new TextEncoder().encode(s)];
export const f32 = (x) => [...new Uint8Array(new Float32Array([x]).buffer)];
export const piece = (p, score, type) => bytesField(1, [...bytesField(1, str(p)), ...field(2, 5, f32(score)), ...field(3, 0, varint(type))]);
export const proto = (...parts) => Uint8Array.from(parts.flat());
/** The smallest valid model: <unk>, ▁a, a (Unigram, no normalizer spec: nmt_nfkc defaults, empty charsmap). */
export const goodPieces = [piece('<unk>', 0, 2), piece('\u2581a', -1, 1), piece('a', -2, 1)];
