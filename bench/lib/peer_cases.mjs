// The attention cases relpos is compared on against onnxruntime-web, and how ORT runs them: each
// case pairs the npm package's scheme object (lib/data.mjs packageSchemes, over the seeded arrays of
// makeBenchData) with the ONNX graph an exported model computes (lib/onnx.mjs) and that graph's
// table inputs. Used by the `ort` section (bench.mjs peer, 1 thread) and by the threads section's
// peers at equal thread counts (lib/peer_threads.mjs).
import { attentionGraph } from './onnx.mjs';
import { debertaBucket, t5Bucket, table2d } from './positions.mjs';
import { packageSchemes, SHAW_K } from './data.mjs';

function bloomSlopes(heads) {
  const p = 2 ** Math.floor(Math.log2(heads));
  const base = 2 ** (-(2 ** -(Math.log2(p) - 3)));
  const s = Array.from({ length: p }, (_, i) => base ** (i + 1));
  if (p !== heads) {
    const eb = 2 ** (-(2 ** -(Math.log2(2 * p) - 3)));
    for (let i = 0; i < heads - p; ++i) s.push(eb ** (2 * i + 1));
  }
  return s;
}

/** [{ name, harness, scheme, graph, feeds }] for data = makeBenchData(S, H, D). */
export function peerCases(S, data, H, D) {
  const span = 256;
  const pkg = packageSchemes(S, H, D, data);  // the same scheme objects as every other package run
  return [
    { name: 'none', harness: 'none', scheme: pkg.none, graph: { kind: 'plain', scale: 1 / Math.sqrt(D) }, feeds: {} },
    { name: 't5', harness: 't5', scheme: pkg.t5,
      graph: { kind: 'bias', scale: 1, numBuckets: 32, buckets: table2d(S, (i, j) => t5Bucket(j - i)) }, feeds: { bias_table: [data.t5Bias, [32, H]] } },
    { name: 'alibi', harness: 'alibi', scheme: pkg.alibi,
      graph: { kind: 'alibi', scale: 1 / Math.sqrt(D) }, feeds: { slopes: [Float32Array.from(bloomSlopes(H)), [1, H, 1, 1]] } },
    { name: 'shaw_keys', harness: 'shaw_keys', scheme: pkg.shaw_keys,
      graph: { kind: 'gathered', scale: 1 / Math.sqrt(D), tableRows: 2 * SHAW_K + 1, index: table2d(S, (i, j) => Math.max(-SHAW_K, Math.min(SHAW_K, j - i)) + SHAW_K) },
      feeds: { rel_table: [data.shawK, [2 * SHAW_K + 1, D]] } },
    { name: 'bert_relative_key', harness: 'bert_relative_key', scheme: pkg.bert_relative_key,
      graph: { kind: 'gathered', scale: 1 / Math.sqrt(D), tableRows: 2 * S - 1, index: table2d(S, (i, j) => i - j + S - 1) },
      feeds: { rel_table: [data.bertTable, [2 * S - 1, D]] } },
    { name: 'deberta', harness: 'deberta', scheme: pkg.deberta,
      graph: { kind: 'deberta', scale: 1 / Math.sqrt(3 * D), span2: 2 * span,
        c2pIndex: table2d(S, (i, j) => Math.max(0, Math.min(2 * span - 1, debertaBucket(i - j) + span))),
        p2cIndex: table2d(S, (a, b) => Math.max(0, Math.min(2 * span - 1, -debertaBucket(a - b) + span))) },
      feeds: { pos_key: [data.debPosK, [H, 2 * span, D]], pos_query: [data.debPosQ, [H, 2 * span, D]] } },
  ];
}

/** Why ORT's graph for case c is not run at seq S (its index maps materialise too much), or null. */
export function ortGraphSkip(c, S) {
  if (S < 2048 || (c.graph.kind !== 'gathered' && c.graph.kind !== 'deberta')) return null;
  return `ORT graph materialises [${c.graph.kind === 'gathered' ? 'seq, seq, head_dim' : 'heads, seq, seq'} int64/float] tensors (${c.graph.kind === 'gathered' ? '1 GiB' : '256 MiB'} at seq ${S}); not run`;
}

/** An onnxruntime-web session (wasm EP, all graph optimisations) for case c at H × S × D. */
export function ortAttentionSession(ort, c, H, S, D) {
  return ort.InferenceSession.create(attentionGraph({ ...c.graph, H, S, D }), { executionProviders: ['wasm'], graphOptimizationLevel: 'all' });
}

/** The feeds of case c's graph in this ORT instance's Tensor type: q, k, v [1, H, S, D] and the case's tables. */
export function ortAttentionFeeds(ort, c, data, H, S, D) {
  const feeds = {
    q: new ort.Tensor('float32', data.q, [1, H, S, D]),
    k: new ort.Tensor('float32', data.k, [1, H, S, D]),
    v: new ort.Tensor('float32', data.v, [1, H, S, D]),
  };
  for (const [name, [arr, dims]] of Object.entries(c.feeds)) feeds[name] = new ort.Tensor('float32', arr, dims);
  return feeds;
}

/** The rp.attention arguments for case c (batch 1). */
export const packageArgs = (c, data, H, S, D) => ({ q: data.q, k: data.k, v: data.v, batch: 1, heads: H, seqLen: S, headDim: D, scheme: c.scheme });
