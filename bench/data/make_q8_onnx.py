#!/usr/bin/python3
"""Dynamically quantized ONNX of each bench layer (issue #19's q8 peer), as onnxruntime's
quantize_dynamic writes it (per-tensor, int8 symmetric weights, uint8 activations):

    x ─ DynamicQuantizeLinear ─ x_q, x_scale, x_zp
    MatMulInteger(x_q, W_q, x_zp, 0) ─ Cast(float) ─ Mul(x_scale · W_scale) ─ (the model's bias Add follows)

for every MatMul whose weight is a 2-D initializer, directly or through Transpose(perm 1,0) as
torch.onnx.export writes nn.Linear. Uses Debian's python3-onnx and numpy only (no onnxruntime here).
    /usr/bin/python3 bench/data/make_q8_onnx.py ../shared/bench-models OUTDIR
writes OUTDIR/<model>/model.q8.onnx (weights inside the file) for every model with a model.onnx.
"""
import os
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto


def quantize(model):
    g = model.graph
    inits = {t.name: t for t in g.initializer}
    producer = {o: n for n in g.node for o in n.output}
    new_nodes, dropped, added = [], set(), []
    count = 0
    for n in g.node:
        if n.op_type != 'MatMul':
            new_nodes.append(n)
            continue
        x, wname = n.input
        w = None
        if wname in inits and len(inits[wname].dims) == 2:
            w = numpy_helper.to_array(inits[wname]).astype(np.float32)
        elif wname in producer and producer[wname].op_type == 'Transpose':
            t = producer[wname]
            perm = [a.ints for a in t.attribute if a.name == 'perm']
            src = t.input[0]
            if src in inits and len(inits[src].dims) == 2 and (not perm or list(perm[0]) == [1, 0]):
                w = numpy_helper.to_array(inits[src]).astype(np.float32).T
                dropped.add(t.output[0])
        if w is None:
            new_nodes.append(n)
            continue
        count += 1
        p = f'q8_{count}'
        scale = max(float(np.abs(w).max()) / 127.0, 1e-12)
        wq = np.clip(np.round(w / scale), -127, 127).astype(np.int8)
        added += [numpy_helper.from_array(wq, p + '_W_quantized'),
                  numpy_helper.from_array(np.array(scale, np.float32), p + '_W_scale'),
                  numpy_helper.from_array(np.array(0, np.int8), p + '_W_zero_point')]
        new_nodes += [
            helper.make_node('DynamicQuantizeLinear', [x], [p + '_x_q', p + '_x_scale', p + '_x_zp'], name=p + '_dql'),
            helper.make_node('Mul', [p + '_x_scale', p + '_W_scale'], [p + '_scale'], name=p + '_scale_mul'),
            helper.make_node('MatMulInteger', [p + '_x_q', p + '_W_quantized', p + '_x_zp', p + '_W_zero_point'], [p + '_int32'], name=p + '_mmi'),
            helper.make_node('Cast', [p + '_int32'], [p + '_f32'], to=TensorProto.FLOAT, name=p + '_cast'),
            helper.make_node('Mul', [p + '_f32', p + '_scale'], [n.output[0]], name=p + '_out_mul'),
        ]
    # drop the weight Transposes nothing reads any more (their initializers go with them)
    used = {i for nn in new_nodes for i in nn.input}
    kept = [nn for nn in new_nodes if not (nn.op_type == 'Transpose' and nn.output[0] in dropped and nn.output[0] not in used)]
    used = {i for nn in kept for i in nn.input} | {o.name for o in g.output}
    del g.node[:]
    g.node.extend(kept)
    keep_inits = [t for t in g.initializer if t.name in used]
    del g.initializer[:]
    g.initializer.extend(keep_inits + added)
    return count


def main(src_root, out_root):
    for name in sorted(os.listdir(src_root)):
        path = os.path.join(src_root, name, 'model.onnx')
        if not os.path.isfile(path):
            continue
        model = onnx.load(path, load_external_data=True)
        for t in model.graph.initializer:  # everything inside the file
            if t.data_location == TensorProto.EXTERNAL:
                t.data_location = TensorProto.DEFAULT
                del t.external_data[:]
        n = quantize(model)
        # MatMulInteger / DynamicQuantizeLinear: opset ≥ 11; the layers are opset 14
        os.makedirs(os.path.join(out_root, name), exist_ok=True)
        out = os.path.join(out_root, name, 'model.q8.onnx')
        onnx.save(model, out)
        print(f'{out}: {n} MatMuls quantized dynamically, {os.path.getsize(out)} bytes')


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])
