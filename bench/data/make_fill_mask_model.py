#!/usr/bin/python3
"""A DeBERTa-v3-base-shaped masked-LM checkpoint with random weights for the fill-mask bench
(issue #20: logits at the mask positions only vs at every token). Hidden 768, 12 heads, FF 3072,
vocabulary 128100 as microsoft/deberta-v3-base; one encoder layer (the comparison is the head).
DebertaV2ForMaskedLM names: deberta.* and cls.predictions.transform.dense / .LayerNorm, the decoder
tied to deberta.embeddings.word_embeddings (not stored, as transformers saves tied weights) with its
bias cls.predictions.bias. float16 safetensors (half the bytes; relpos converts on load).
    /usr/bin/python3 bench/data/make_fill_mask_model.py OUTDIR  → OUTDIR/{config.json, model.safetensors}
"""
import json
import os
import struct
import sys

import numpy as np

H, HEADS, FF, VOCAB, LAYERS, BUCKETS = 768, 12, 3072, 128100, 1, 256


def main(out):
    os.makedirs(out, exist_ok=True)
    config = {
        'architectures': ['DebertaV2ForMaskedLM'], 'model_type': 'deberta-v2', 'hidden_size': H,
        'num_attention_heads': HEADS, 'intermediate_size': FF, 'num_hidden_layers': LAYERS, 'vocab_size': VOCAB,
        'hidden_act': 'gelu', 'layer_norm_eps': 1e-7, 'max_position_embeddings': 512, 'max_relative_positions': -1,
        'position_buckets': BUCKETS, 'norm_rel_ebd': 'layer_norm', 'pos_att_type': ['p2c', 'c2p'],
        'position_biased_input': False, 'relative_attention': True, 'share_att_key': True, 'type_vocab_size': 0,
        'pad_token_id': 0, 'tie_word_embeddings': True, 'torch_dtype': 'float16',
    }
    rng = np.random.default_rng(20)
    t = {}
    normal = lambda *shape: (rng.standard_normal(shape, dtype=np.float32) * 0.02).astype(np.float16)
    ln = lambda p: t.update({p + '.weight': np.ones(H, np.float16), p + '.bias': np.zeros(H, np.float16)})
    t['deberta.embeddings.word_embeddings.weight'] = normal(VOCAB, H)
    ln('deberta.embeddings.LayerNorm')
    for i in range(LAYERS):
        p = f'deberta.encoder.layer.{i}.'
        for n in ('query_proj', 'key_proj', 'value_proj'):
            t[p + f'attention.self.{n}.weight'] = normal(H, H)
            t[p + f'attention.self.{n}.bias'] = np.zeros(H, np.float16)
        t[p + 'attention.output.dense.weight'] = normal(H, H)
        t[p + 'attention.output.dense.bias'] = np.zeros(H, np.float16)
        ln(p + 'attention.output.LayerNorm')
        t[p + 'intermediate.dense.weight'] = normal(FF, H)
        t[p + 'intermediate.dense.bias'] = np.zeros(FF, np.float16)
        t[p + 'output.dense.weight'] = normal(H, FF)
        t[p + 'output.dense.bias'] = np.zeros(H, np.float16)
        ln(p + 'output.LayerNorm')
    t['deberta.encoder.rel_embeddings.weight'] = normal(2 * BUCKETS, H)
    ln('deberta.encoder.LayerNorm')
    t['cls.predictions.transform.dense.weight'] = normal(H, H)
    t['cls.predictions.transform.dense.bias'] = np.zeros(H, np.float16)
    ln('cls.predictions.transform.LayerNorm')
    t['cls.predictions.bias'] = normal(VOCAB)
    header, off = {}, 0
    for k, v in t.items():
        header[k] = {'dtype': 'F16', 'shape': list(v.shape), 'data_offsets': [off, off + v.nbytes]}
        off += v.nbytes
    header['__metadata__'] = {'format': 'pt'}
    hb = json.dumps(header).encode()
    hb += b' ' * (-len(hb) % 8)
    with open(os.path.join(out, 'model.safetensors'), 'wb') as f:
        f.write(struct.pack('<Q', len(hb)) + hb)
        for v in t.values():
            f.write(v.tobytes())
    with open(os.path.join(out, 'config.json'), 'w') as f:
        json.dump(config, f, indent=1)
    print(f'{out}: DebertaV2ForMaskedLM, hidden {H}, vocab {VOCAB}, {LAYERS} layer(s), {off} bytes of float16 weights')


if __name__ == '__main__':
    main(sys.argv[1])
