"""transformers' LlamaForCausalLM run in float64 throughout (shared by the lab's reference scripts).

A LlamaForCausalLM loaded with dtype=torch.float64 still computes three things in float32: the
RMSNorm (LlamaRMSNorm.forward casts to float32), the rotary inverse frequencies (the
modeling_rope_utils functions build them with dtype=torch.float) and the rotary angles
(LlamaRotaryEmbedding.forward casts to float), and its loss upcasts logits with .float(). Each
costs up to ~1e-7 relative, far above the 1e-12 the lab is compared at. `float64_model` removes
exactly those casts and nothing else:

- the inverse frequencies are recomputed by transformers' own function for the config's
  rope_type (ROPE_INIT_FUNCTIONS, or LlamaRotaryEmbedding.compute_default_rope_parameters), with
  torch.float pointing at torch.float64 while it runs: the same code, in float64;
- LlamaRMSNorm.forward and LlamaRotaryEmbedding.forward are replaced by the same formulas
  without the casts;
- `loss` is the mean next-token cross-entropy of the float64 logits (what ForCausalLMLoss
  computes, without its .float()).

Attention uses transformers' "sdpa" path, which runs torch's scaled_dot_product_attention in the
query's dtype (float64). Tested with torch 2.15.0, transformers 5.25.0 (see the scripts).
"""
import contextlib

import torch
import torch.nn.functional as F
from transformers import LlamaForCausalLM
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
from transformers.models.llama import modeling_llama as ml


@contextlib.contextmanager
def torch_float_is_float64():
    """While inside, `torch.float` (which transformers' rope functions pass as dtype) is float64."""
    saved = torch.float
    torch.float = torch.float64
    try:
        yield
    finally:
        torch.float = saved


def inv_freq_of(config, float64=True):
    """transformers' inverse frequencies and attention scaling for `config`, in float64 or (as
    transformers runs them) float32."""
    rope_type = config.rope_parameters["rope_type"]
    fn = (
        ml.LlamaRotaryEmbedding.compute_default_rope_parameters
        if rope_type == "default"
        else ROPE_INIT_FUNCTIONS[rope_type]
    )
    if not float64:
        return fn(config)
    with torch_float_is_float64():
        inv, scale = fn(config)
    assert inv.dtype == torch.float64, inv.dtype
    return inv, scale


def _rmsnorm_forward64(self, hidden_states):
    variance = hidden_states.pow(2).mean(-1, keepdim=True)
    return self.weight * (hidden_states * torch.rsqrt(variance + self.variance_epsilon))


def _rotary_forward64(self, x, position_ids):
    freqs = position_ids[..., None].to(torch.float64) * self.inv_freq.to(torch.float64)
    emb = torch.cat((freqs, freqs), dim=-1)
    return (emb.cos() * self.attention_scaling).to(x.dtype), (emb.sin() * self.attention_scaling).to(x.dtype)


def float64_model(path):
    """LlamaForCausalLM.from_pretrained(path) in float64, with the three float32 casts removed."""
    ml.LlamaRMSNorm.forward = _rmsnorm_forward64
    ml.LlamaRotaryEmbedding.forward = _rotary_forward64
    model = LlamaForCausalLM.from_pretrained(path, dtype=torch.float64, attn_implementation="sdpa")
    model.eval()
    rotary = model.model.rotary_emb
    inv, scale = inv_freq_of(model.config)
    rotary.inv_freq = inv
    rotary.original_inv_freq = inv.clone()
    rotary.attention_scaling = scale
    return model


def run(model, ids):
    """Hidden states x_1 .. x_(L+1) (embedding output, each decoder layer's output before the
    final norm: T x d each), the float64 logits (T x vocab) and the loss."""
    captured = []
    hooks = [layer.register_forward_hook(lambda m, i, o: captured.append(o[0] if isinstance(o, tuple) else o))
             for layer in model.model.layers]
    try:
        input_ids = torch.tensor([ids])
        x1 = model.model.embed_tokens(input_ids)[0]
        out = model(input_ids=input_ids)
    finally:
        for h in hooks:
            h.remove()
    xs = [x1] + [c[0] for c in captured]
    logits = out.logits[0]
    assert logits.dtype == torch.float64
    loss = F.cross_entropy(logits[:-1], torch.tensor(ids[1:]))
    return xs, logits, loss


def layer_grad_norms(model, ids):
    """The loss and, per decoder layer, the Frobenius norm of d loss / d (all its parameters)."""
    model.zero_grad()
    _, _, loss = run(model, ids)
    loss.backward()
    norms = []
    for layer in model.model.layers:
        sq = sum((p.grad ** 2).sum().item() for p in layer.parameters() if p.grad is not None)
        norms.append(sq ** 0.5)
    return loss.item(), norms
