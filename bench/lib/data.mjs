// The benchmark's inputs, seeded, for one sequence length: q, k, v and every scheme's tables, at the
// settings bench/src/harness.cpp uses (Shaw k = 128 and 16, Huang m = 128, MLP 16 → 64, TUPE
// pos_dim 128, Transformer-XL d_model = heads·head_dim, T5 32 buckets, DeBERTa 256 buckets / 512).
// packageSchemes() gives the npm package's scheme object for each harness scheme name, over the
// same arrays, so the package, the harness and onnxruntime all see identical numbers.
import { randomArray } from './util.mjs';

export const SHAW_K = 128;

export function makeBenchData(S, H, D) {
  const n = H * S * D;
  return {
    q: randomArray(n, 1), k: randomArray(n, 2), v: randomArray(n, 3),
    absTable: randomArray(S * D, 4, 0.1),
    mlpW1: randomArray(64 * 16, 5, 0.3), mlpB1: randomArray(64, 6, 0.1), mlpW2: randomArray(D * 64, 7, 0.1), mlpB2: randomArray(D, 8, 0.1),
    shawK: randomArray((2 * SHAW_K + 1) * D, 9, 0.3), shawV: randomArray((2 * SHAW_K + 1) * D, 10, 0.3),
    bertTable: randomArray((2 * S - 1) * D, 11, 0.3),
    huangTable: randomArray((2 * 128 + 1) * D, 12, 0.3),
    txlU: randomArray(H * D, 13, 0.1), txlV: randomArray(H * D, 14, 0.1), txlW: randomArray(H * D * H * D, 15, 0.02),
    t5Bias: randomArray(32 * H, 16, 1),
    tupePos: randomArray(S * 128, 17, 0.3), tupeUq: randomArray(H * D * 128, 18, 0.05), tupeUk: randomArray(H * D * 128, 19, 0.05),
    debPosK: randomArray(H * 512 * D, 20, 0.3), debPosQ: randomArray(H * 512 * D, 21, 0.3),
  };
}

/** { harness scheme name: npm package scheme object } for data = makeBenchData(S, H, D). */
export function packageSchemes(S, H, D, data) {
  const shaw16 = (t) => t.subarray((SHAW_K - 16) * D, (SHAW_K + 17) * D);  // the middle 33 rows, as the harness reads them
  return {
    none: { type: 'none' },
    sinusoidal: { type: 'sinusoidal' },
    learned_absolute: { type: 'learned-absolute', table: data.absTable },
    mlp: { type: 'mlp', featureDim: 16, hidden: 64, w1: data.mlpW1, b1: data.mlpB1, w2: data.mlpW2, b2: data.mlpB2 },
    shaw: { type: 'shaw', maxDistance: 16, keyTable: shaw16(data.shawK), valueTable: shaw16(data.shawV) },
    shaw_k128: { type: 'shaw', maxDistance: SHAW_K, keyTable: data.shawK, valueTable: data.shawV },
    shaw_keys: { type: 'shaw', maxDistance: SHAW_K, keyTable: data.shawK },
    bert_relative_key: { type: 'bert-relative', maxPositions: S, table: data.bertTable },
    huang: { type: 'huang', maxDistance: 128, table: data.huangTable },
    transformer_xl: { type: 'transformer-xl', dModel: H * D, u: data.txlU, v: data.txlV, wKR: data.txlW },
    t5: { type: 't5', numBuckets: 32, maxDistance: 128, bidirectional: true, biasTable: data.t5Bias },
    tupe: { type: 'tupe', posDim: 128, positions: data.tupePos, uQ: data.tupeUq, uK: data.tupeUk },
    deberta: { type: 'deberta', buckets: 256, maxRelative: 512, terms: ['c2p', 'p2c'], posKey: data.debPosK, posQuery: data.debPosQ },
    rope: { type: 'rope' },
    alibi: { type: 'alibi', slopes: 'bloom' },
  };
}
