#!/usr/bin/env python3
"""Dense float64 references for the lab's norms at n = T d around 1000 (NOT run at test time;
outputs committed). Made with torch 2.15.0, transformers 5.25.0, numpy 2.4.6 (CPU): 8 minutes of
CPU time (35 minutes on the shared 2-core machine it was run on):

  /tmp/labref/venv/bin/python tests/reference/lab/make_dense_reference.py

Why: the lab's spectral norms come from Lanczos / Rayleigh-Ritz, which can stop on a singular
value other than the largest with a small residual. At n = 24 (tests/reference/lab/expected.json)
200 Lanczos steps span the whole space and that cannot happen; here n = 1024 and 768, far
beyond the steps a norm takes, and sigma_2 / sigma_1 reaches 0.994.

Cases (dense/<case>/config.json; the weights are NOT stored, see "Weights"):

  tied_std002  d = 64, 4 heads, d_ff = 172, T = 16, L = 8, vocab 128, every matrix std 0.02, norm
               gains 1 (the paper's initialisation), tied embeddings, top-level rope_theta 10000
  gqa_std02    d = 48, 6 heads sharing 2 key/value heads (grouped-query attention), d_ff = 128,
               T = 16, L = 12, vocab 96, every matrix std 0.2, norm gains 1 + 0.1 z (near 1, not
               all ones), untied, rope_parameters with rope_theta 500000

each measured in Pre-LN and LNS (each norm's output times 1/sqrt(l)). For every placement
dense/expected.json holds: the population variances of x_1 .. x_(L+1); the loss (mean next-token
cross-entropy) and each layer's parameter-gradient Frobenius norm (autograd); and for every layer l
the two largest singular values of J_l = d x_(l+1) / d x_l, of J_l - I, and of the suffix
E_l = d x_(L+1) / d x_l, from the dense n x n Jacobians (torch.func.jacrev of the layer map and of
the suffix map) by torch.linalg.svdvals (LAPACK, float64).

Weights. Stored as a checkpoint they would be 3.2 MB (tied_std002) and 4.4 MB (gqa_std02) of
float64, so both sides generate them instead, by integer arithmetic and one correctly rounded
multiplication each, which gives the same doubles in Python and in Rust:

  splitmix64: s += 0x9E3779B97F4A7C15; z = s; z = (z ^ z >> 30) * 0xBF58476D1CE4E5B9;
              z = (z ^ z >> 27) * 0x94D049BB133111EB; return z ^ z >> 31      (mod 2^64)
  centred():  the four 16-bit fields of one output summed, minus 131070: an integer k in
              [-131070, 131070], mean 0, variance (65536^2 - 1) / 3 (Irwin-Hall of 4, near Gaussian)
  matrix entry: float(k) * (std * sqrt(3) / 65536); gain: 1 + float(k) * (0.1 * sqrt(3) / 65536)

in the order embed_tokens, then per layer q, k, v, o, gate, up, down (row-major, Hugging Face
shapes), input_layernorm, post_attention_layernorm, then model.norm, then lm_head when untied;
gains of 1 draw nothing. The token ids are the next T draws, splitmix64() mod vocab. The lab loads
the generated tensors as a safetensors checkpoint with the config.json (crates/depthlab/tests/
dense.rs), and the FNV-1a digest of the doubles in the lab's order (depthlab's Weights::digest),
stored here as weights_digest, must match: both sides measure the very same network.

Checks made here: the reference forward (plain PyTorch, below) agrees with transformers'
LlamaForCausalLM in float64 (hf64.py) on the same checkpoint, Pre-LN, hidden states and logits
to 1e-13 (LNS is not in transformers; it differs from Pre-LN only by the 1/sqrt(l) factors), and
torch.func's JVP and VJP agree with the dense Jacobian.
"""
import json
import math
import os
import struct
import sys
import tempfile
import time

import torch
from safetensors.torch import save_file
from torch.func import jacrev, jvp, vjp

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
OUT = os.path.join(HERE, "dense")
torch.set_default_dtype(torch.float64)
MASK = (1 << 64) - 1

CASES = {
    "tied_std002": dict(d=64, heads=4, kv_heads=4, d_ff=172, tokens=16, layers=8, vocab=128, std=0.02,
                        gain_std=0.0, tie=True, theta=10000.0, layout="rope_theta", seed=1),
    "gqa_std02": dict(d=48, heads=6, kv_heads=2, d_ff=128, tokens=16, layers=12, vocab=96, std=0.2,
                      gain_std=0.1, tie=False, theta=500000.0, layout="rope_parameters", seed=2),
}
EPS = 1e-6
PLACEMENTS = ["pre", "lns"]


class SplitMix64:
    def __init__(self, seed):
        self.s = seed & MASK

    def next(self):
        self.s = (self.s + 0x9E3779B97F4A7C15) & MASK
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def centred(self):
        u = self.next()
        return (u & 0xFFFF) + ((u >> 16) & 0xFFFF) + ((u >> 32) & 0xFFFF) + (u >> 48) - 131070

    def matrix(self, rows, cols, std):
        scale = std * math.sqrt(3.0) / 65536.0
        return torch.tensor([float(self.centred()) * scale for _ in range(rows * cols)]).reshape(rows, cols)

    def gains(self, n, gain_std):
        if gain_std == 0.0:
            return torch.ones(n)
        scale = gain_std * math.sqrt(3.0) / 65536.0
        return torch.tensor([1.0 + float(self.centred()) * scale for _ in range(n)])


def generate(c):
    """The case's weights (Hugging Face names, float64) and token ids."""
    g = SplitMix64(c["seed"])
    d, dkv, f, v, s = c["d"], c["kv_heads"] * (c["d"] // c["heads"]), c["d_ff"], c["vocab"], c["std"]
    w = {"model.embed_tokens.weight": g.matrix(v, d, s)}
    for i in range(c["layers"]):
        p = f"model.layers.{i}."
        w[p + "self_attn.q_proj.weight"] = g.matrix(d, d, s)
        w[p + "self_attn.k_proj.weight"] = g.matrix(dkv, d, s)
        w[p + "self_attn.v_proj.weight"] = g.matrix(dkv, d, s)
        w[p + "self_attn.o_proj.weight"] = g.matrix(d, d, s)
        w[p + "mlp.gate_proj.weight"] = g.matrix(f, d, s)
        w[p + "mlp.up_proj.weight"] = g.matrix(f, d, s)
        w[p + "mlp.down_proj.weight"] = g.matrix(d, f, s)
        w[p + "input_layernorm.weight"] = g.gains(d, c["gain_std"])
        w[p + "post_attention_layernorm.weight"] = g.gains(d, c["gain_std"])
    w["model.norm.weight"] = g.gains(d, c["gain_std"])
    if not c["tie"]:
        w["lm_head.weight"] = g.matrix(v, d, s)
    ids = [g.next() % v for _ in range(c["tokens"])]
    return w, ids


def digest(c, w):
    """depthlab's Weights::digest: FNV-1a (64-bit) over each part's length then its doubles' bits,
    parts in the lab's order (the Sandwich gains, absent here, are ones)."""
    h = 0xCBF29CE484222325
    prime = 0x100000001B3

    def eat(word):
        nonlocal h
        for byte in struct.pack("<Q", word):
            h = ((h ^ byte) * prime) & MASK

    ones = torch.ones(c["d"])
    parts = [w["model.embed_tokens.weight"]]
    for i in range(c["layers"]):
        p = f"model.layers.{i}."
        parts += [w[p + n + ".weight"] for n in ["self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj",
                                                 "self_attn.o_proj", "mlp.gate_proj", "mlp.up_proj",
                                                 "mlp.down_proj", "input_layernorm", "post_attention_layernorm"]]
        parts += [ones, ones]
    parts.append(w["model.norm.weight"])
    if not c["tie"]:
        parts.append(w["lm_head.weight"])
    for part in parts:
        flat = part.reshape(-1).tolist()
        eat(len(flat))
        for x in flat:
            eat(struct.unpack("<Q", struct.pack("<d", x))[0])
    return f"{h:016x}"


def config_json(c):
    cfg = {
        "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": c["d"],
        "num_attention_heads": c["heads"], "num_key_value_heads": c["kv_heads"],
        "intermediate_size": c["d_ff"], "num_hidden_layers": c["layers"], "vocab_size": c["vocab"],
        "rms_norm_eps": EPS, "tie_word_embeddings": c["tie"], "hidden_act": "silu",
        "max_position_embeddings": 2048, "dtype": "float64",
    }
    if c["layout"] == "rope_theta":
        cfg["rope_theta"] = c["theta"]
    else:
        cfg["rope_parameters"] = {"rope_type": "default", "rope_theta": c["theta"]}
    return cfg


class Net:
    """The lab's network in plain PyTorch float64: Pre-LN or LNS LLaMA blocks, GQA, RMSNorm."""

    def __init__(self, c, w):
        self.c, self.w = c, w
        d, h = c["d"], c["heads"]
        self.dh = d // h
        inv = 1.0 / (c["theta"] ** (torch.arange(0, self.dh, 2, dtype=torch.float64) / self.dh))
        ang = torch.arange(c["tokens"], dtype=torch.float64)[:, None] * inv[None, :]
        self.cos = torch.cat([torch.cos(ang), torch.cos(ang)], -1)
        self.sin = torch.cat([torch.sin(ang), torch.sin(ang)], -1)

    def rms(self, x, g):
        return x / torch.sqrt((x * x).mean(-1, keepdim=True) + EPS) * g

    def rope(self, x):
        half = self.dh // 2
        return x * self.cos + torch.cat([-x[..., half:], x[..., :half]], -1) * self.sin

    def attn(self, u, i, w):
        c, dh, t = self.c, self.dh, self.c["tokens"]
        p = f"model.layers.{i}.self_attn."
        q = (u @ w[p + "q_proj.weight"].T).reshape(t, c["heads"], dh).transpose(0, 1)
        k = (u @ w[p + "k_proj.weight"].T).reshape(t, c["kv_heads"], dh).transpose(0, 1)
        v = (u @ w[p + "v_proj.weight"].T).reshape(t, c["kv_heads"], dh).transpose(0, 1)
        group = c["heads"] // c["kv_heads"]
        k = k.repeat_interleave(group, 0)
        v = v.repeat_interleave(group, 0)
        q, k = self.rope(q), self.rope(k)
        s = q @ k.transpose(-1, -2) / math.sqrt(dh)
        s = s.masked_fill(torch.triu(torch.ones(t, t, dtype=torch.bool), 1), float("-inf"))
        o = (torch.softmax(s, -1) @ v).transpose(0, 1).reshape(t, c["d"])
        return o @ w[p + "o_proj.weight"].T

    def mlp(self, u, i, w):
        p = f"model.layers.{i}.mlp."
        return (torch.nn.functional.silu(u @ w[p + "gate_proj.weight"].T) * (u @ w[p + "up_proj.weight"].T)) @ w[
            p + "down_proj.weight"].T

    def layer(self, placement, l, x, w=None):
        """Layer l (1-based)."""
        w = w or self.w
        i = l - 1
        s = 1.0 / math.sqrt(l) if placement == "lns" else 1.0
        p = f"model.layers.{i}."
        h = x + self.attn(s * self.rms(x, w[p + "input_layernorm.weight"]), i, w)
        return h + self.mlp(s * self.rms(h, w[p + "post_attention_layernorm.weight"]), i, w)

    def forward(self, placement, ids, w=None):
        w = w or self.w
        x = w["model.embed_tokens.weight"][torch.tensor(ids)]
        xs = [x]
        for l in range(1, self.c["layers"] + 1):
            x = self.layer(placement, l, x, w)
            xs.append(x)
        return xs

    def logits(self, x, w=None):
        w = w or self.w
        u = w["model.embed_tokens.weight"] if self.c["tie"] else w["lm_head.weight"]
        return self.rms(x, w["model.norm.weight"]) @ u.T


def check_against_transformers(c, w, ids, net):
    import hf64  # transformers is needed for this check only

    with tempfile.TemporaryDirectory() as tmp:
        save_file({k: v.contiguous() for k, v in w.items()}, os.path.join(tmp, "model.safetensors"),
                  metadata={"format": "pt"})
        with open(os.path.join(tmp, "config.json"), "w") as f:
            json.dump(config_json(c), f)
        model = hf64.float64_model(tmp)
        assert model.config.num_key_value_heads == c["kv_heads"]
        assert model.config.rope_parameters["rope_theta"] == c["theta"]
        with torch.no_grad():
            xs_hf, logits_hf, _ = hf64.run(model, ids)
            xs = net.forward("pre", ids)
            worst = max(((a - b).abs().max() / b.abs().max()).item() for a, b in zip(xs, xs_hf))
            lw = ((net.logits(xs[-1]) - logits_hf).abs().max() / logits_hf.abs().max()).item()
    print(f"  own forward vs transformers float64: hidden states {worst:.2e}, logits {lw:.2e}")
    assert worst < 1e-13 and lw < 1e-13


def top2(j):
    s = torch.linalg.svdvals(j)
    return s[0].item(), s[1].item()


def measure(c, w, ids, net, placement):
    n = c["tokens"] * c["d"]
    shape = (c["tokens"], c["d"])
    big_l = c["layers"]
    xs = [x.detach() for x in net.forward(placement, ids)]
    rec = {"variance": [x.var(unbiased=False).item() for x in xs]}
    for key in ["jacobian", "jacobian_minus_identity", "end_to_end"]:
        rec[key] = {"sigma1": [], "sigma2": []}
    eye = torch.eye(n)
    gen = torch.Generator().manual_seed(5)
    for l in range(1, big_l + 1):
        f = lambda x, l=l: net.layer(placement, l, x)
        jac = jacrev(f)(xs[l - 1]).reshape(n, n)
        if l == 1:
            v = torch.randn(shape, generator=gen)
            _, jv = jvp(f, (xs[0],), (v,))
            assert torch.allclose(jv.reshape(-1), jac @ v.reshape(-1), rtol=1e-12, atol=1e-13)
            _, back = vjp(f, xs[0])
            assert torch.allclose(back(v)[0].reshape(-1), jac.T @ v.reshape(-1), rtol=1e-12, atol=1e-13)
        for key, m in [("jacobian", jac), ("jacobian_minus_identity", jac - eye)]:
            s1, s2 = top2(m)
            rec[key]["sigma1"].append(s1)
            rec[key]["sigma2"].append(s2)

        def suffix(x, l=l):
            for k in range(l, big_l + 1):
                x = net.layer(placement, k, x)
            return x

        s1, s2 = top2(jacrev(suffix)(xs[l - 1]).reshape(n, n))
        rec["end_to_end"]["sigma1"].append(s1)
        rec["end_to_end"]["sigma2"].append(s2)
    params = {k: v.clone().requires_grad_(True) for k, v in w.items()}
    x_last = net.forward(placement, ids, params)[-1]
    loss = torch.nn.functional.cross_entropy(net.logits(x_last, params)[:-1], torch.tensor(ids[1:]))
    loss.backward()
    rec["loss"] = loss.item()
    rec["grad_norm"] = []
    for i in range(big_l):
        p = f"model.layers.{i}."
        rec["grad_norm"].append(math.sqrt(sum((v.grad ** 2).sum().item() for k, v in params.items()
                                              if k.startswith(p))))
    return rec


def main():
    os.makedirs(OUT, exist_ok=True)
    expected = {}
    for name, c in CASES.items():
        t0 = time.time()
        w, ids = generate(c)
        net = Net(c, w)
        print(name, "n =", c["tokens"] * c["d"])
        check_against_transformers(c, w, ids, net)
        os.makedirs(os.path.join(OUT, name), exist_ok=True)
        with open(os.path.join(OUT, name, "config.json"), "w") as f:
            json.dump(config_json(c), f, indent=1)
            f.write("\n")
        case = {"generator": {k: c[k] for k in ("seed", "std", "gain_std")}, "tokens": c["tokens"], "ids": ids,
                "weights_digest": digest(c, w), "placements": {}}
        for placement in PLACEMENTS:
            rec = measure(c, w, ids, net, placement)
            case["placements"][placement] = rec
            ratio = max(s2 / s1 for key in ("jacobian", "jacobian_minus_identity", "end_to_end")
                        for s1, s2 in zip(rec[key]["sigma1"], rec[key]["sigma2"]))
            print(f"  {placement}: largest sigma2/sigma1 {ratio:.6f}, variances {rec['variance'][0]:.3e} .. "
                  f"{rec['variance'][-1]:.3e}")
        expected[name] = case
        print(f"  {time.time() - t0:.0f} s")
    with open(os.path.join(OUT, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1)
        f.write("\n")
    print("wrote", OUT)


if __name__ == "__main__":
    main()
