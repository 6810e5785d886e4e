#!/usr/bin/env python3
"""Reference losses and gradients for the training core (cpp/train/model.h), from PyTorch autograd
in float64, written to build/train-reference/reference.json (not committed).

    /usr/bin/python3 scripts/make-train-reference.py [out_dir]

The model below is a line-by-line transcription of the contract in cpp/train/model.h: the flat
parameter vector has the same tensor order as make_layout(); weights are seeded normals (std 0.3,
LayerNorm gains 1 + N(0, 0.3²)) rounded to float32, so C++ and PyTorch start from identical values.
cpp/train/tests/gradients_match_pytorch_test.cpp compares every gradient within 1e-4 relative
(to the tensor's largest |gradient|).
"""
import json
import math
import os
import sys

import torch

torch.set_default_dtype(torch.float64)

SCHEMES = ["none", "sinusoidal", "learned", "alibi", "t5", "rope", "shaw", "deberta"]
V, C, D, H, LAYERS, FF, MAXLEN, SHAW_K, T5_BUCKETS, T5_MAXDIST = 5, 4, 8, 2, 2, 2, 7, 2, 6, 8
DEB_BUCKETS, DEB_MAXREL = 4, 8
B, L = 2, 7
DH = D // H


def layout(scheme, pre_ln):
    t = [("embed", V * D)]
    if scheme == "learned":
        t.append(("pos_table", MAXLEN * D))
    for l in range(LAYERS):
        p = f"layer{l}."
        t += [(p + "ln1_g", D), (p + "ln1_b", D), (p + "wq", D * D), (p + "bq", D), (p + "wk", D * D), (p + "bk", D),
              (p + "wv", D * D), (p + "bv", D), (p + "wo", D * D), (p + "bo", D), (p + "ln2_g", D), (p + "ln2_b", D),
              (p + "w1", FF * D * D), (p + "b1", FF * D), (p + "w2", D * FF * D), (p + "b2", D)]
        if scheme == "t5":
            t.append((p + "t5_table", T5_BUCKETS * H))
        if scheme == "shaw":
            t += [(p + "shaw_k", (2 * SHAW_K + 1) * DH), (p + "shaw_v", (2 * SHAW_K + 1) * DH)]
        if scheme == "deberta":
            t.append((p + "deberta_rel", 2 * DEB_BUCKETS * D))
    if pre_ln:
        t += [("lnf_g", D), ("lnf_b", D)]
    t += [("head_w", C * D), ("head_b", C)]
    return t


def t5_bucket(rel, bidirectional, num_buckets, max_distance):
    # Hugging Face T5Attention._relative_position_bucket, relative_position = key − query, float32 log.
    rel = torch.tensor(rel, dtype=torch.long)
    buckets = torch.zeros_like(rel)
    if bidirectional:
        num_buckets //= 2
        buckets += (rel > 0).long() * num_buckets
        rel = rel.abs()
    else:
        rel = -torch.min(rel, torch.zeros_like(rel))
    max_exact = num_buckets // 2
    is_small = rel < max_exact
    large = max_exact + (torch.log(rel.float() / max_exact) / math.log(max_distance / max_exact)
                         * (num_buckets - max_exact)).long()
    large = torch.min(large, torch.full_like(large, num_buckets - 1))
    return buckets + torch.where(is_small, rel, large)


def deberta_bucket(rel, bucket_size, max_position):
    # Hugging Face DebertaV2 make_log_bucket_position (4.34), r = query − key, float32 as torch does.
    rel = torch.tensor(rel, dtype=torch.long)
    sign = torch.sign(rel)
    mid = bucket_size // 2
    abs_pos = torch.where((rel < mid) & (rel > -mid), torch.tensor(mid - 1).type_as(rel), torch.abs(rel))
    log_pos = torch.ceil(torch.log(abs_pos.float() / mid) / torch.log(torch.tensor((max_position - 1) / mid, dtype=torch.float32))
                         * (mid - 1)) + mid
    return torch.where(abs_pos <= mid, rel, (log_pos * sign).long())


def layernorm(x, g, b):
    m = x.mean(-1, keepdim=True)
    v = ((x - m) ** 2).mean(-1, keepdim=True)
    return (x - m) / torch.sqrt(v + 1e-5) * g + b


def forward(P, scheme, pre_ln, causal, tokens, labels):
    x = P["embed"].view(V, D)[tokens]  # [B, L, D]
    pos = torch.arange(L)
    if scheme == "learned":
        x = x + P["pos_table"].view(MAXLEN, D)[:L]
    if scheme == "sinusoidal":
        pe = torch.zeros(L, D)
        for i in range(D // 2):
            w = 10000.0 ** (-2.0 * i / D)
            pe[:, 2 * i] = torch.sin(pos * w)
            pe[:, 2 * i + 1] = torch.cos(pos * w)
        x = x + pe
    delta = pos[None, :] - pos[:, None]  # [i, j] = j − i
    mask = (delta > 0) if causal else torch.zeros(L, L, dtype=torch.bool)
    scale = 1.0 / math.sqrt(DH)

    def lin(x, w, b, n_out, n_in):
        return x @ P[w].view(n_out, n_in).T + P[b]

    def attn(x, p):
        q = lin(x, p + "wq", p + "bq", D, D).view(B, L, H, DH).transpose(1, 2)
        k = lin(x, p + "wk", p + "bk", D, D).view(B, L, H, DH).transpose(1, 2)
        v = lin(x, p + "wv", p + "bv", D, D).view(B, L, H, DH).transpose(1, 2)
        if scheme == "rope":
            w = torch.tensor([10000.0 ** (-2.0 * i / DH) for i in range(DH // 2)])
            ang = pos[:, None] * w[None, :]
            c, s = torch.cos(ang), torch.sin(ang)

            def rot(t):
                x0, x1 = t[..., 0::2], t[..., 1::2]
                out = torch.empty_like(t)
                out[..., 0::2] = x0 * c - x1 * s
                out[..., 1::2] = x1 * c + x0 * s
                return out
            q, k = rot(q), rot(k)
        sc = scale if scheme != "deberta" else 1.0 / math.sqrt(3 * DH)
        S = q @ k.transpose(-1, -2) * sc  # [B, H, L, L]
        if scheme == "deberta":
            # DeBERTa-v3 (share_att_key): Kr = R·Wkᵀ + bk, Qr = R·Wqᵀ + bq; idx = clamp(bucket(i − j) + s, 0, 2s − 1)
            R = P[p + "deberta_rel"].view(2 * DEB_BUCKETS, D)
            Kr = lin(R, p + "wk", p + "bk", D, D).view(2 * DEB_BUCKETS, H, DH)
            Qr = lin(R, p + "wq", p + "bq", D, D).view(2 * DEB_BUCKETS, H, DH)
            r = deberta_bucket((-delta).tolist(), DEB_BUCKETS, DEB_MAXREL)  # [i, j] = bucket(i − j)
            idx = torch.clamp(r + DEB_BUCKETS, 0, 2 * DEB_BUCKETS - 1)
            S = S + torch.einsum("bhid,ijhd->bhij", q, Kr[idx]) * sc  # c2p
            S = S + torch.einsum("bhjd,ijhd->bhij", k, Qr[idx]) * sc  # p2c
        if scheme == "alibi":
            slopes = torch.tensor([2.0 ** (-8.0 * (h + 1) / H) for h in range(H)])
            bias = delta.double() if causal else -delta.abs().double()
            S = S + slopes[:, None, None] * bias
        if scheme == "t5":
            bk = t5_bucket(delta.tolist(), not causal, T5_BUCKETS, T5_MAXDIST)  # [L, L]
            table = P[p + "t5_table"].view(T5_BUCKETS, H)
            S = S + table[bk].permute(2, 0, 1)[None]
        if scheme == "shaw":
            idx = delta.clamp(-SHAW_K, SHAW_K) + SHAW_K
            aK = P[p + "shaw_k"].view(2 * SHAW_K + 1, DH)[idx]  # [L, L, DH]
            S = S + torch.einsum("bhid,ijd->bhij", q, aK) * scale
        S = S.masked_fill(mask, float("-inf"))
        prob = torch.softmax(S, -1)
        out = prob @ v
        if scheme == "shaw":
            aV = P[p + "shaw_v"].view(2 * SHAW_K + 1, DH)[idx]
            out = out + torch.einsum("bhij,ijd->bhid", prob, aV)
        out = out.transpose(1, 2).reshape(B, L, D)
        return lin(out, p + "wo", p + "bo", D, D)

    def mlp(x, p):
        h = lin(x, p + "w1", p + "b1", FF * D, D)
        h = 0.5 * h * (1.0 + torch.erf(h / math.sqrt(2.0)))
        return lin(h, p + "w2", p + "b2", D, FF * D)

    for l in range(LAYERS):
        p = f"layer{l}."
        if pre_ln:
            a = x + attn(layernorm(x, P[p + "ln1_g"], P[p + "ln1_b"]), p)
            x = a + mlp(layernorm(a, P[p + "ln2_g"], P[p + "ln2_b"]), p)
        else:
            a = layernorm(x + attn(x, p), P[p + "ln1_g"], P[p + "ln1_b"])
            x = layernorm(a + mlp(a, p), P[p + "ln2_g"], P[p + "ln2_b"])
    if pre_ln:
        x = layernorm(x, P["lnf_g"], P["lnf_b"])
    logits = lin(x, "head_w", "head_b", C, D).view(B * L, C)
    lab = labels.view(-1)
    keep = lab >= 0
    return torch.nn.functional.cross_entropy(logits[keep], lab[keep])


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "build", "train-reference")
    os.makedirs(out_dir, exist_ok=True)
    gen = torch.Generator().manual_seed(20261124)
    cases = []
    for scheme in SCHEMES:
        for pre_ln in (True, False):
            for causal in (True, False):
                lay = layout(scheme, pre_ln)
                flat = []
                for name, n in lay:
                    w = torch.randn(n, generator=gen) * 0.3
                    if name.endswith("_g"):
                        w = w + 1.0
                    flat.append(w.float().double())
                tokens = torch.randint(0, V, (B, L), generator=gen)
                labels = torch.randint(0, C, (B, L), generator=gen)
                labels[:, 3] = -1
                P = {}
                leaves = []
                for (name, n), w in zip(lay, flat):
                    t = w.clone().requires_grad_(True)
                    leaves.append(t)
                    P[name] = t
                loss = forward(P, scheme, pre_ln, causal, tokens, labels)
                loss.backward()
                cases.append({
                    "scheme": scheme, "pre_ln": pre_ln, "causal": causal,
                    "tokens": tokens.view(-1).tolist(), "labels": labels.view(-1).tolist(),
                    "tensors": [name for name, _ in lay],
                    "params": torch.cat(flat).tolist(),
                    "loss": loss.item(),
                    "grads": torch.cat([t.grad for t in leaves]).tolist(),
                })
    config = {"vocab": V, "classes": C, "d_model": D, "heads": H, "layers": LAYERS, "ff_mult": FF, "max_len": MAXLEN,
              "shaw_k": SHAW_K, "t5_buckets": T5_BUCKETS, "t5_max_distance": T5_MAXDIST,
              "deberta_buckets": DEB_BUCKETS, "deberta_max_rel": DEB_MAXREL, "batch": B, "len": L}
    path = os.path.join(out_dir, "reference.json")
    with open(path, "w") as f:
        json.dump({"torch": torch.__version__, "config": config, "cases": cases}, f)
    print(f"wrote {len(cases)} cases to {path}")


if __name__ == "__main__":
    main()
