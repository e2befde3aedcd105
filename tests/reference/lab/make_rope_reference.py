#!/usr/bin/env python3
"""Rotary layouts and scalings against transformers' own forward (NOT run at test time; outputs
committed). Made with torch 2.15.0, transformers 5.25.0, numpy 2.4.6, safetensors 0.8.0 (CPU):

  python3 -m venv /tmp/labref/venv && /tmp/labref/venv/bin/pip install torch transformers safetensors numpy
  /tmp/labref/venv/bin/python tests/reference/lab/make_rope_reference.py

One small LlamaForCausalLM (d = 32, 2 heads of 16 sharing 1 key/value head, d_ff = 48, L = 2,
vocab 16; weights float32, so the lab and transformers widen the very same numbers to float64)
is written by `save_pretrained` once per case below, into rope/<case>/{config.json,
model.safetensors} (the weights are the same in every case, so git stores them once):

  rope_theta           transformers 4's layout: top-level "rope_theta": 250000, no rope_parameters
                       (config.json rewritten after save_pretrained, which writes only the new layout)
  rope_parameters      transformers 5's layout: "rope_parameters": {"rope_theta": 500000, "rope_type": "default"}
  llama3               "rope_parameters": {"rope_type": "llama3", "rope_theta": 500000, "factor": 8,
                       "low_freq_factor": 1, "high_freq_factor": 4, "original_max_position_embeddings": 2048}
                       (head_dim 16: wavelengths 6.3 ... 5.9e5, so every band of the scaling is used:
                       kept below 512, interpolated between 512 and 2048, divided by 8 above)
  llama3_rope_scaling  the same network in transformers 4's layout: top-level "rope_theta" and
                       "rope_scaling": {"rope_type": "llama3", ...} (rewritten after save_pretrained)
  linear               "rope_parameters": {"rope_type": "linear", "rope_theta": 20000, "factor": 4}

Each case is read back with LlamaForCausalLM.from_pretrained (so transformers itself interprets
the config.json as written) and run in float64 (hf64.py removes transformers' three float32
casts). rope/expected.json holds per case: the token ids, transformers' inverse frequencies (its
own rope function run in float64), the population variances of x_1 .. x_(L+1) (embedding output,
each decoder layer's output before the final norm), the loss (mean next-token cross-entropy of the
float64 logits), each layer's parameter-gradient Frobenius norm (autograd), and the angular
distances mean_t arccos(cos(x_i[t], x_j[t])) / pi. crates/depthlab/tests/rope.rs compares the
lab's report with them.

Checks made here: transformers' float32 inverse frequencies agree with its float64 ones to float32
rounding (the widening changed nothing else); the two llama3 layouts give bit-identical results;
every case differs from plain rotary embeddings with base 10000 (what the lab ran before it read
these layouts) by more than 1e-4 in some variance, so the comparison can fail.
"""
import json
import math
import os
import shutil
import sys

import torch
from transformers import LlamaConfig, LlamaForCausalLM

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import hf64  # noqa: E402

OUT = os.path.join(HERE, "rope")
D, HEADS, KV, DFF, L, VOCAB, T = 32, 2, 1, 48, 2, 16, 12
LLAMA3 = {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 2048}
CASES = {
    "rope_theta": {"v4": {"rope_theta": 250000.0}},
    "rope_parameters": {"rope_parameters": {"rope_type": "default", "rope_theta": 500000.0}},
    "llama3": {"rope_parameters": {"rope_type": "llama3", "rope_theta": 500000.0, **LLAMA3}},
    "llama3_rope_scaling": {"v4": {"rope_theta": 500000.0, "rope_scaling": {"rope_type": "llama3", **LLAMA3}}},
    "linear": {"rope_parameters": {"rope_type": "linear", "rope_theta": 20000.0, "factor": 4.0}},
}


def weights(model):
    """Seeded float32 weights: projections N(0, 0.3^2) (q and k 0.5, so attention is sharp and the
    rotation matters), embedding and unembedding N(0, 1), norm gains 1 + N(0, 0.2^2)."""
    gen = torch.Generator().manual_seed(20260301)
    sd = {}
    for name, p in model.state_dict().items():
        if name.endswith("norm.weight"):
            sd[name] = 1.0 + 0.2 * torch.randn(p.shape, generator=gen)
        else:
            std = 1.0 if ("embed" in name or "lm_head" in name) else 0.5 if ("q_proj" in name or "k_proj" in name) else 0.3
            sd[name] = std * torch.randn(p.shape, generator=gen)
    return {k: v.to(torch.float32) for k, v in sd.items()}


def angular(xs):
    out = []
    for a in xs:
        row = []
        for b in xs:
            c = torch.nn.functional.cosine_similarity(a, b, dim=-1).clamp(-1, 1)
            row.append((torch.arccos(c) / math.pi).mean().item())
        out.append(row)
    return out


def measure(path, ids):
    model = hf64.float64_model(path)
    xs, _, _ = hf64.run(model, ids)
    loss, grads = hf64.layer_grad_norms(model, ids)
    inv64, scale = hf64.inv_freq_of(model.config)
    inv32, _ = hf64.inv_freq_of(model.config, float64=False)
    assert scale == 1.0
    rel = ((inv32.double() - inv64) / inv64).abs().max().item()
    assert rel < 2e-7, f"float32 and float64 inverse frequencies differ by {rel:e}"
    xs = [x.detach() for x in xs]
    return {
        "rope_parameters_as_read": model.config.rope_parameters,
        "inv_freq": inv64.tolist(),
        "variance": [x.var(unbiased=False).item() for x in xs],
        "loss": loss,
        "grad_norm": grads,
        "angular_distance": angular(xs),
    }


def main():
    torch.set_default_dtype(torch.float32)
    gen = torch.Generator().manual_seed(7)
    ids = torch.randint(0, VOCAB, (T,), generator=gen).tolist()
    base = dict(hidden_size=D, num_attention_heads=HEADS, num_key_value_heads=KV, intermediate_size=DFF,
                num_hidden_layers=L, vocab_size=VOCAB, max_position_embeddings=131072, rms_norm_eps=1e-6,
                tie_word_embeddings=False)
    shutil.rmtree(OUT, ignore_errors=True)
    expected = {"tokens": T, "ids": ids, "cases": {}}
    w = None
    for name, spec in CASES.items():
        path = os.path.join(OUT, name)
        rp = spec.get("rope_parameters", {"rope_type": "default", "rope_theta": 10000.0})
        model = LlamaForCausalLM(LlamaConfig(**base, rope_parameters=dict(rp)))
        w = w or weights(model)
        model.load_state_dict(w)
        model.save_pretrained(path)
        os.remove(os.path.join(path, "generation_config.json"))
        if "v4" in spec:
            cfg_path = os.path.join(path, "config.json")
            cfg = json.load(open(cfg_path))
            del cfg["rope_parameters"]
            cfg.update(spec["v4"])
            with open(cfg_path, "w") as f:
                json.dump(cfg, f, indent=2, sort_keys=True)
                f.write("\n")
        expected["cases"][name] = measure(path, ids)
        print(name, expected["cases"][name]["rope_parameters_as_read"], expected["cases"][name]["variance"])
    a, b = expected["cases"]["llama3"], expected["cases"]["llama3_rope_scaling"]
    assert all(a[k] == b[k] for k in ("inv_freq", "variance", "loss", "grad_norm")), "the llama3 layouts differ"
    # Plain rotary embeddings with base 10000: what the lab measured for all of these before.
    plain = os.path.join(OUT, "plain")
    model = LlamaForCausalLM(LlamaConfig(**base))
    model.load_state_dict(w)
    model.save_pretrained(plain)
    plain_var = measure(plain, ids)["variance"]
    shutil.rmtree(plain)
    for name, case in expected["cases"].items():
        gap = max(abs(x - y) / y for x, y in zip(case["variance"], plain_var))
        print(f"{name}: largest relative variance change against plain base-10000 rotary: {gap:.3e}")
        assert gap > 1e-4, name
    with open(os.path.join(OUT, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1)
        f.write("\n")
    print("wrote", OUT)


if __name__ == "__main__":
    main()
