// ONNX graphs of attention written the way torch.onnx.export emits them for the Hugging Face
// models (checked against the op lists of ../shared/bench-models/*/model.onnx):
//   plain    MatMul(q, Transpose(k)) · scale → Softmax → MatMul(v)
//   bias     + Unsqueeze(Transpose(Gather(biasTable[buckets, H], buckets[S,S])))      (T5 compute_bias)
//   alibi    + slopes[1,H,1,1] · positions[1,1,1,S]                                    (BLOOM build_alibi_tensor)
//   gathered + Einsum('bhld,lrd->bhlr', q, Gather(table, index[S,S]))  → [S, S, d] embeddings (BERT relative_key)
//   deberta  + GatherElements(q Kr^T, c2pIndex) + Transpose(GatherElements(k Qr^T, p2cIndex))  (DebertaV2 c2p + p2c)
// Tables are graph inputs (not initializers) so onnxruntime cannot fold the gathers away at session
// creation — as in an exported model, where the index maps follow the run-time sequence length;
// integer index maps are initializers (the exported graph computes them from Shape/Range each run).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { onnx } = require('onnx-proto');
const T = onnx.TensorProto.DataType;
const A = onnx.AttributeProto.AttributeType;

class Graph {
  constructor() {
    this.nodes = [];
    this.inputs = [];
    this.outputs = [];
    this.inits = [];
    this.n = 0;
  }
  input(name, dims, type = T.FLOAT) {
    this.inputs.push(valueInfo(name, dims, type));
    return name;
  }
  output(name, dims) {
    this.outputs.push(valueInfo(name, dims, T.FLOAT));
  }
  initF(name, dims, values) {
    this.inits.push({ name, dims, dataType: T.FLOAT, floatData: Array.from(values) });
    return name;
  }
  initI64(name, dims, values) {
    // raw little-endian int64 bytes: compact and fast for large index maps
    const raw = new Uint8Array(new BigInt64Array(Array.from(values, (x) => BigInt(x))).buffer);
    this.inits.push({ name, dims, dataType: T.INT64, rawData: raw });
    return name;
  }
  op(type, inputs, attrs = {}, outName) {
    const out = outName ?? `${type.toLowerCase()}_${this.n++}`;
    const attribute = Object.entries(attrs).map(([name, v]) => {
      if (Array.isArray(v)) return { name, type: A.INTS, ints: v };
      if (typeof v === 'string') return { name, type: A.STRING, s: new TextEncoder().encode(v) };
      if (Number.isInteger(v)) return { name, type: A.INT, i: v };
      return { name, type: A.FLOAT, f: v };
    });
    this.nodes.push({ opType: type, input: inputs, output: [out], attribute, name: out });
    return out;
  }
  encode() {
    const model = onnx.ModelProto.create({
      irVersion: 7,
      producerName: 'relpos-bench',
      opsetImport: [{ domain: '', version: 14 }],
      graph: { name: 'attention', node: this.nodes, input: this.inputs, output: this.outputs, initializer: this.inits },
    });
    return onnx.ModelProto.encode(model).finish();
  }
}

function valueInfo(name, dims, elemType) {
  return { name, type: { tensorType: { elemType, shape: { dim: dims.map((d) => ({ dimValue: d })) } } } };
}

// Builds the graph for one case. `c`: { kind, H, S, D, scale, ...kind-specific index maps }.
// Inputs: q, k, v [1, H, S, D] plus the kind's tables; output 'out' [1, H, S, D].
export function attentionGraph(c) {
  const { H, S, D } = c;
  const g = new Graph();
  const q = g.input('q', [1, H, S, D]);
  const k = g.input('k', [1, H, S, D]);
  const v = g.input('v', [1, H, S, D]);
  const kt = g.op('Transpose', [k], { perm: [0, 1, 3, 2] });
  let scores = g.op('MatMul', [q, kt]); // [1, H, S, S]
  const scale = (x) => (c.scale === 1 ? x : g.op('Mul', [x, g.initF('scale', [], [c.scale])]));

  if (c.kind === 'plain') {
    scores = scale(scores);
  } else if (c.kind === 'bias') {
    const table = g.input('bias_table', [c.numBuckets, H]);
    const idx = g.initI64('buckets', [S, S], c.buckets);
    const gathered = g.op('Gather', [table, idx], { axis: 0 }); // [S, S, H]
    const bias = g.op('Unsqueeze', [g.op('Transpose', [gathered], { perm: [2, 0, 1] }), g.initI64('axes0', [1], [0])]);
    scores = g.op('Add', [scale(scores), bias]);
  } else if (c.kind === 'alibi') {
    const slopes = g.input('slopes', [1, H, 1, 1]);
    const pos = g.initF('positions', [1, 1, 1, S], Array.from({ length: S }, (_, j) => j));
    scores = g.op('Add', [scale(scores), g.op('Mul', [slopes, pos])]);
  } else if (c.kind === 'gathered') {
    const table = g.input('rel_table', [c.tableRows, D]);
    const idx = g.initI64('rel_index', [S, S], c.index);
    const emb = g.op('Gather', [table, idx], { axis: 0 }); // [S, S, D]
    const rel = g.op('Einsum', [q, emb], { equation: 'bhld,lrd->bhlr' });
    scores = scale(g.op('Add', [scores, rel]));
  } else if (c.kind === 'deberta') {
    const span2 = c.span2;
    const posK = g.input('pos_key', [H, span2, D]);
    const posQ = g.input('pos_query', [H, span2, D]);
    const shape3 = g.initI64('shape3', [3], [H, S, D]);
    const q3 = g.op('Reshape', [q, shape3]);
    const k3 = g.op('Reshape', [k, shape3]);
    const expandTo = g.initI64('expand_shape', [3], [H, S, S]);
    const c2pIdx = g.op('Expand', [g.initI64('c2p_index', [1, S, S], c.c2pIndex), expandTo]);
    const p2cIdx = g.op('Expand', [g.initI64('p2c_index', [1, S, S], c.p2cIndex), expandTo]);
    const c2pAtt = g.op('MatMul', [q3, g.op('Transpose', [posK], { perm: [0, 2, 1] })]); // [H, S, 2span]
    const c2p = g.op('GatherElements', [c2pAtt, c2pIdx], { axis: -1 });
    const p2cAtt = g.op('MatMul', [k3, g.op('Transpose', [posQ], { perm: [0, 2, 1] })]);
    const p2c = g.op('Transpose', [g.op('GatherElements', [p2cAtt, p2cIdx], { axis: -1 })], { perm: [0, 2, 1] });
    const shape4 = g.initI64('shape4', [4], [1, H, S, S]);
    const rel = g.op('Reshape', [g.op('Add', [c2p, p2c]), shape4]);
    scores = scale(g.op('Add', [scores, rel]));
  } else {
    throw new Error(`unknown graph kind ${c.kind}`);
  }
  const p = g.op('Softmax', [scores], { axis: -1 });
  g.op('MatMul', [p, v], {}, 'out');
  g.output('out', [1, H, S, D]);
  return g.encode();
}
