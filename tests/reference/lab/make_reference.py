#!/usr/bin/env python3
"""Independent reference for crates/depthlab (NOT run at test time; its outputs are committed).

Builds small LLaMA-style decoder stacks in PyTorch, entirely in float64 (RMSNorm, softmax and the
rotary angles included: the transformers library computes those three in float32 even in a
float64 model, up to 3.7e-7 off, so it is not used), for every norm placement the lab supports,
and writes

  weights.safetensors   the weights, Hugging Face LlamaForCausalLM names, float64
  config.json           the Hugging Face config of those weights
  expected.json         per placement: variances of x_1..x_(L+1), ||J_l||_2, ||J_l - I||_2,
                        ||d x_(L+1)/d x_l||_2 (torch.linalg.matrix_norm(ord=2) of the dense
                        Jacobian from torch.func.jacrev), per-layer parameter-gradient Frobenius
                        norms of the mean next-token cross-entropy (torch.autograd), the loss,
                        and the angular-distance map.

It also checks torch.func.jvp / vjp against the dense Jacobian. Run:
  python3 -m venv /tmp/lab/venv && /tmp/lab/venv/bin/pip install torch safetensors numpy
  /tmp/lab/venv/bin/python tests/reference/lab/make_reference.py
The Rust test crates/depthlab/tests/reference.rs loads these files and must agree to 1e-9.
"""
import json
import math
import os

import torch
from safetensors.torch import save_file
from torch.func import jacrev, jvp, vjp

torch.set_default_dtype(torch.float64)
HERE = os.path.dirname(os.path.abspath(__file__))

D, HEADS, DFF, T, L, VOCAB = 8, 2, 12, 3, 3, 11
DH = D // HEADS
EPS, THETA = 1e-6, 10000.0
MIX_POST = 1
ALPHA = (2 * L) ** 0.25
IDS = [3, 7, 1]

gen = torch.Generator().manual_seed(20260212)


def randn(*shape, std=0.3):
    return torch.randn(*shape, generator=gen) * std


def gain():
    return 1.0 + 0.2 * torch.randn(D, generator=gen)


W = {"model.embed_tokens.weight": randn(VOCAB, D, std=1.0)}
for i in range(L):
    p = f"model.layers.{i}."
    W[p + "self_attn.q_proj.weight"] = randn(D, D, std=0.6)
    W[p + "self_attn.k_proj.weight"] = randn(D, D, std=0.6)
    W[p + "self_attn.v_proj.weight"] = randn(D, D)
    W[p + "self_attn.o_proj.weight"] = randn(D, D)
    W[p + "mlp.gate_proj.weight"] = randn(DFF, D)
    W[p + "mlp.up_proj.weight"] = randn(DFF, D)
    W[p + "mlp.down_proj.weight"] = randn(D, DFF)
    W[p + "input_layernorm.weight"] = gain()
    W[p + "post_attention_layernorm.weight"] = gain()
    W[p + "attn_output_layernorm.weight"] = gain()
    W[p + "mlp_output_layernorm.weight"] = gain()
W["model.norm.weight"] = gain()
W["lm_head.weight"] = randn(VOCAB, D, std=1.0)


def rms(x, g):
    return x / torch.sqrt((x * x).mean(-1, keepdim=True) + EPS) * g


inv_freq = 1.0 / (THETA ** (torch.arange(0, DH, 2, dtype=torch.float64) / DH))
ang = torch.arange(T, dtype=torch.float64)[:, None] * inv_freq[None, :]
COS = torch.cat([torch.cos(ang), torch.cos(ang)], -1)
SIN = torch.cat([torch.sin(ang), torch.sin(ang)], -1)


def rope(x):  # x: heads x T x DH
    x1, x2 = x[..., : DH // 2], x[..., DH // 2:]
    return x * COS + torch.cat([-x2, x1], -1) * SIN


def attn(u, w):
    q = (u @ w["q"].T).reshape(T, HEADS, DH).transpose(0, 1)
    k = (u @ w["k"].T).reshape(T, HEADS, DH).transpose(0, 1)
    v = (u @ w["v"].T).reshape(T, HEADS, DH).transpose(0, 1)
    q, k = rope(q), rope(k)
    s = q @ k.transpose(-1, -2) / math.sqrt(DH)
    mask = torch.triu(torch.ones(T, T, dtype=torch.bool), 1)
    s = s.masked_fill(mask, float("-inf"))
    p = torch.softmax(s, -1)
    o = (p @ v).transpose(0, 1).reshape(T, D)
    return o @ w["o"].T


def mlp(u, w):
    return (torch.nn.functional.silu(u @ w["gate"].T) * (u @ w["up"].T)) @ w["down"].T


def layer_w(i, params):
    p = f"model.layers.{i}."
    g = lambda n: params[p + n + ".weight"]
    return {
        "q": g("self_attn.q_proj"), "k": g("self_attn.k_proj"), "v": g("self_attn.v_proj"),
        "o": g("self_attn.o_proj"), "gate": g("mlp.gate_proj"), "up": g("mlp.up_proj"),
        "down": g("mlp.down_proj"), "n1": g("input_layernorm"), "n2": g("post_attention_layernorm"),
        "n1b": g("attn_output_layernorm"), "n2b": g("mlp_output_layernorm"),
    }


def layer(placement, l, x, w):
    """Layer l (1-based) of the given placement."""
    kind = placement
    if placement == "mix":
        kind = "post" if l <= MIX_POST else "pre"
    if kind in ("pre", "lns", "sandwich"):
        s = 1.0 / math.sqrt(l) if kind == "lns" else 1.0
        a = attn(s * rms(x, w["n1"]), w)
        h = x + (rms(a, w["n1b"]) if kind == "sandwich" else a)
        m = mlp(s * rms(h, w["n2"]), w)
        return h + (rms(m, w["n2b"]) if kind == "sandwich" else m)
    alpha = ALPHA if kind == "deepnorm" else 1.0
    h = rms(alpha * x + attn(x, w), w["n1"])
    return rms(alpha * h + mlp(h, w), w["n2"])


def forward(placement, params):
    x = params["model.embed_tokens.weight"][torch.tensor(IDS)]
    xs = [x]
    for i in range(L):
        x = layer(placement, i + 1, x, layer_w(i, params))
        xs.append(x)
    return xs


def loss_of(placement, params):
    xs = forward(placement, params)
    h = rms(xs[-1], params["model.norm.weight"])
    logits = h @ params["lm_head.weight"].T
    return torch.nn.functional.cross_entropy(logits[:-1], torch.tensor(IDS[1:]))


def spectral(j):
    return torch.linalg.matrix_norm(j.reshape(T * D, T * D), ord=2).item()


def angular(a, b):
    c = torch.nn.functional.cosine_similarity(a, b, dim=-1).clamp(-1, 1)
    return (torch.arccos(c) / math.pi).mean().item()


out = {"tokens": T, "ids": IDS, "mix_post_layers": MIX_POST, "deepnorm_alpha": ALPHA, "placements": {}}
for placement in ["pre", "lns", "post", "deepnorm", "sandwich", "mix"]:
    xs = [x.detach() for x in forward(placement, W)]
    rec = {"variance": [x.var(unbiased=False).item() for x in xs], "jacobian_norm": [],
           "jacobian_minus_identity_norm": [], "end_to_end_norm": [], "grad_norm": []}
    eye = torch.eye(T * D).reshape(T, D, T, D)
    for l in range(1, L + 1):
        w = layer_w(l - 1, W)
        f = lambda x: layer(placement, l, x, w)
        jac = jacrev(f)(xs[l - 1])
        # The JVP / VJP of torch.func agree with the dense Jacobian (a self-check of the reference).
        v = torch.randn(T, D, generator=gen)
        _, jv = jvp(f, (xs[l - 1],), (v,))
        assert torch.allclose(jv, torch.einsum("tdse,se->td", jac, v), rtol=1e-12, atol=1e-12)
        _, back = vjp(f, xs[l - 1])
        assert torch.allclose(back(v)[0], torch.einsum("tdse,td->se", jac, v), rtol=1e-12, atol=1e-12)
        rec["jacobian_norm"].append(spectral(jac))
        rec["jacobian_minus_identity_norm"].append(spectral(jac - eye))

        def tail(x, l=l):
            for k in range(l, L + 1):
                x = layer(placement, k, x, layer_w(k - 1, W))
            return x
        rec["end_to_end_norm"].append(spectral(jacrev(tail)(xs[l - 1])))
    params = {k: v.clone().requires_grad_(True) for k, v in W.items()}
    loss = loss_of(placement, params)
    loss.backward()
    rec["loss"] = loss.item()
    for i in range(L):
        pre = f"model.layers.{i}."
        sq = 0.0
        for k, v in params.items():
            if k.startswith(pre):
                name = k[len(pre):]
                used = placement == "sandwich" or "output_layernorm" not in name
                if used:
                    sq += (v.grad ** 2).sum().item()
        rec["grad_norm"].append(math.sqrt(sq))
    rec["angular_distance"] = [[angular(a, b) for b in xs] for a in xs]
    out["placements"][placement] = rec

save_file({k: v.contiguous() for k, v in W.items()}, os.path.join(HERE, "weights.safetensors"))
config = {
    "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": D,
    "num_attention_heads": HEADS, "num_key_value_heads": HEADS, "intermediate_size": DFF,
    "num_hidden_layers": L, "vocab_size": VOCAB, "rms_norm_eps": EPS, "rope_theta": THETA,
    "tie_word_embeddings": False, "hidden_act": "silu", "torch_dtype": "float64",
}
with open(os.path.join(HERE, "config.json"), "w") as f:
    json.dump(config, f, indent=1)
with open(os.path.join(HERE, "expected.json"), "w") as f:
    json.dump(out, f, indent=1)
print("wrote", HERE)
