//! Loading a Hugging Face `LlamaForCausalLM` checkpoint from `.safetensors` (f32, f16, bf16 or
//! f64), with its `config.json` when present.
//!
//! Tensor names: `model.embed_tokens.weight`, `model.layers.{i}.self_attn.{q,k,v,o}_proj.weight`,
//! `model.layers.{i}.mlp.{gate,up,down}_proj.weight`, `model.layers.{i}.input_layernorm.weight`,
//! `model.layers.{i}.post_attention_layernorm.weight`, `model.norm.weight`, `lm_head.weight`
//! (absent when the embeddings are tied). For the Sandwich placement two optional per-layer
//! gains are read when present, `attn_output_layernorm.weight` and `mlp_output_layernorm.weight`
//! (ones otherwise). Semantics follow Hugging Face (no biases, RMSNorm with `rms_norm_eps`, default
//! 1e-6, rotary with `rope_theta`, default 10000, SwiGLU, tied embeddings when
//! `tie_word_embeddings`).

use crate::error::LabError;
use crate::model::{Config, LayerWeights, Weights};
use crate::ops::{AttnWeights, MlpWeights};
use safetensors::{Dtype, SafeTensors};

/// Values from `config.json` (each optional).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FileConfig {
    pub hidden_size: Option<usize>,
    pub num_attention_heads: Option<usize>,
    pub num_key_value_heads: Option<usize>,
    pub intermediate_size: Option<usize>,
    pub num_hidden_layers: Option<usize>,
    pub vocab_size: Option<usize>,
    pub rms_norm_eps: Option<f64>,
    pub rope_theta: Option<f64>,
    pub tie_word_embeddings: Option<bool>,
    pub hidden_act: Option<String>,
}

impl FileConfig {
    pub fn parse(text: &str) -> Result<FileConfig, LabError> {
        let v: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| LabError::Weights(format!("config.json is not valid JSON: {e}")))?;
        let uint = |k: &str| v.get(k).and_then(|x| x.as_u64()).map(|x| x as usize);
        let num = |k: &str| v.get(k).and_then(|x| x.as_f64());
        Ok(FileConfig {
            hidden_size: uint("hidden_size"),
            num_attention_heads: uint("num_attention_heads"),
            num_key_value_heads: uint("num_key_value_heads"),
            intermediate_size: uint("intermediate_size"),
            num_hidden_layers: uint("num_hidden_layers"),
            vocab_size: uint("vocab_size"),
            rms_norm_eps: num("rms_norm_eps"),
            rope_theta: num("rope_theta"),
            tie_word_embeddings: v.get("tie_word_embeddings").and_then(|x| x.as_bool()),
            hidden_act: v
                .get("hidden_act")
                .and_then(|x| x.as_str())
                .map(String::from),
        })
    }
}

/// Command-line values that override the file (None = not given).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Overrides {
    pub d: Option<usize>,
    pub heads: Option<usize>,
    pub kv_heads: Option<usize>,
    pub d_ff: Option<usize>,
    pub layers: Option<usize>,
    pub vocab: Option<usize>,
    pub eps: Option<f64>,
    pub rope_theta: Option<f64>,
}

fn parse(bytes: &[u8]) -> Result<SafeTensors<'_>, LabError> {
    SafeTensors::deserialize(bytes)
        .map_err(|e| LabError::Weights(format!("the file is not a valid safetensors file ({e})")))
}

fn shape_of(st: &SafeTensors<'_>, name: &str) -> Result<Vec<usize>, LabError> {
    st.tensor(name)
        .map(|t| t.shape().to_vec())
        .map_err(|_| LabError::Weights(format!("missing tensor {name}")))
}

fn f16_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = ((h >> 10) & 0x1f) as i32;
    let frac = (h & 0x3ff) as f64;
    match exp {
        0 => sign * frac * libm::pow(2.0, -24.0),
        31 => {
            if frac == 0.0 {
                sign * f64::INFINITY
            } else {
                f64::NAN
            }
        }
        e => sign * (1.0 + frac / 1024.0) * libm::pow(2.0, (e - 15) as f64),
    }
}

/// A tensor as f64, checked for shape and finiteness.
fn tensor(st: &SafeTensors<'_>, name: &str, shape: &[usize]) -> Result<Vec<f64>, LabError> {
    let t = st
        .tensor(name)
        .map_err(|_| LabError::Weights(format!("missing tensor {name}")))?;
    if t.shape() != shape {
        return Err(LabError::Weights(format!(
            "tensor {name} has shape {:?}, expected {:?}",
            t.shape(),
            shape
        )));
    }
    let data = t.data();
    let values: Vec<f64> = match t.dtype() {
        Dtype::F64 => data
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
            .collect(),
        Dtype::F32 => data
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64)
            .collect(),
        Dtype::F16 => data
            .chunks_exact(2)
            .map(|c| f16_to_f64(u16::from_le_bytes([c[0], c[1]])))
            .collect(),
        Dtype::BF16 => data
            .chunks_exact(2)
            .map(|c| f32::from_bits((u16::from_le_bytes([c[0], c[1]]) as u32) << 16) as f64)
            .collect(),
        other => {
            return Err(LabError::Weights(format!(
                "tensor {name} has dtype {other:?}; supported: F64, F32, F16, BF16"
            )))
        }
    };
    if let Some(i) = values.iter().position(|v| !v.is_finite()) {
        return Err(LabError::Weights(format!(
            "tensor {name} has a non-finite value ({}) at flat index {i}",
            values[i]
        )));
    }
    Ok(values)
}

fn optional_gain(st: &SafeTensors<'_>, name: &str, d: usize) -> Result<Vec<f64>, LabError> {
    if st.tensor(name).is_ok() {
        tensor(st, name, &[d])
    } else {
        Ok(vec![1.0; d])
    }
}

/// Number of `model.layers.{i}` blocks in the file (contiguous from 0).
fn file_layers(st: &SafeTensors<'_>) -> usize {
    let mut n = 0;
    while st
        .tensor(&format!("model.layers.{n}.self_attn.q_proj.weight"))
        .is_ok()
    {
        n += 1;
    }
    n
}

/// Resolves the configuration (flags over config.json over the tensors' shapes; `base` gives the
/// placement, norm, MLP, T and the other run options) and reads the weights.
pub fn load(
    bytes: &[u8],
    file_cfg: Option<&FileConfig>,
    base: &Config,
    ov: &Overrides,
) -> Result<(Config, Weights), LabError> {
    let st = parse(bytes)?;
    let fc = file_cfg.cloned().unwrap_or_default();
    let embed_shape = shape_of(&st, "model.embed_tokens.weight")?;
    if embed_shape.len() != 2 {
        return Err(LabError::Weights(format!(
            "tensor model.embed_tokens.weight has shape {embed_shape:?}, expected [vocab, d]"
        )));
    }
    let have = file_layers(&st);
    if have == 0 {
        return Err(LabError::Weights(
            "no decoder layers: missing tensor model.layers.0.self_attn.q_proj.weight".into(),
        ));
    }
    let d = ov.d.or(fc.hidden_size).unwrap_or(embed_shape[1]);
    let vocab = ov.vocab.or(fc.vocab_size).unwrap_or(embed_shape[0]);
    let d_ff = match ov.d_ff.or(fc.intermediate_size) {
        Some(f) => f,
        None => shape_of(&st, "model.layers.0.mlp.up_proj.weight")?[0],
    };
    let heads = ov.heads.or(fc.num_attention_heads).ok_or_else(|| {
        LabError::Inconsistent(
            "heads: the checkpoint has no config.json with num_attention_heads; pass --heads"
                .into(),
        )
    })?;
    let kv_heads = ov.kv_heads.or(fc.num_key_value_heads).unwrap_or(heads);
    let layers = ov.layers.or(fc.num_hidden_layers).unwrap_or(have);
    if layers > have {
        return Err(LabError::Inconsistent(format!(
            "layers = {layers} but the file has {have} decoder layers (model.layers.0..{})",
            have - 1
        )));
    }
    if let Some(act) = &fc.hidden_act {
        if act != "silu" && base.mlp == crate::MlpKind::SwiGlu {
            return Err(LabError::Weights(format!(
                "config.json hidden_act = {act:?}; only \"silu\" (SwiGLU) is supported for LLaMA checkpoints"
            )));
        }
    }
    let tie = fc
        .tie_word_embeddings
        .unwrap_or_else(|| st.tensor("lm_head.weight").is_err());
    let cfg = Config {
        d,
        heads,
        kv_heads,
        d_ff,
        layers,
        vocab,
        eps: ov.eps.or(fc.rms_norm_eps).unwrap_or(1e-6),
        rope_theta: ov.rope_theta.or(fc.rope_theta).unwrap_or(10000.0),
        tie_embeddings: tie,
        ..base.clone()
    };
    cfg.validate()?;
    let dkv = kv_heads * cfg.d_head();
    let embed = tensor(&st, "model.embed_tokens.weight", &[vocab, d])?;
    let mut lw = Vec::with_capacity(layers);
    for i in 0..layers {
        let p = |s: &str| format!("model.layers.{i}.{s}.weight");
        lw.push(LayerWeights {
            attn: AttnWeights {
                q: tensor(&st, &p("self_attn.q_proj"), &[d, d])?,
                k: tensor(&st, &p("self_attn.k_proj"), &[dkv, d])?,
                v: tensor(&st, &p("self_attn.v_proj"), &[dkv, d])?,
                o: tensor(&st, &p("self_attn.o_proj"), &[d, d])?,
            },
            mlp: MlpWeights {
                gate: if base.mlp == crate::MlpKind::SwiGlu {
                    tensor(&st, &p("mlp.gate_proj"), &[d_ff, d])?
                } else {
                    vec![0.0; d_ff * d]
                },
                up: tensor(&st, &p("mlp.up_proj"), &[d_ff, d])?,
                down: tensor(&st, &p("mlp.down_proj"), &[d, d_ff])?,
            },
            attn_norm: tensor(&st, &p("input_layernorm"), &[d])?,
            mlp_norm: tensor(&st, &p("post_attention_layernorm"), &[d])?,
            attn_out_norm: optional_gain(&st, &p("attn_output_layernorm"), d)?,
            mlp_out_norm: optional_gain(&st, &p("mlp_output_layernorm"), d)?,
        });
    }
    let final_norm = tensor(&st, "model.norm.weight", &[d])?;
    let lm_head = if tie {
        None
    } else {
        Some(tensor(&st, "lm_head.weight", &[vocab, d])?)
    };
    Ok((
        cfg,
        Weights {
            embed,
            layers: lw,
            final_norm,
            lm_head,
        },
    ))
}
