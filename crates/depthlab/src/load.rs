//! Loading a Hugging Face `LlamaForCausalLM` checkpoint from `.safetensors` (f32, f16, bf16 or
//! f64), with its `config.json` when present.
//!
//! Tensor names: `model.embed_tokens.weight`, `model.layers.{i}.self_attn.{q,k,v,o}_proj.weight`,
//! `model.layers.{i}.mlp.{gate,up,down}_proj.weight`, `model.layers.{i}.input_layernorm.weight`,
//! `model.layers.{i}.post_attention_layernorm.weight`, `model.norm.weight`, `lm_head.weight`
//! (absent when the embeddings are tied). For the Sandwich placement two optional per-layer
//! gains are read when present, `attn_output_layernorm.weight` and `mlp_output_layernorm.weight`
//! (ones otherwise). Semantics follow Hugging Face (no biases, RMSNorm with `rms_norm_eps`, default
//! 1e-6, SwiGLU, tied embeddings when `tie_word_embeddings`, rotary embeddings with the base
//! `rope_theta`, default 10000, and the frequency scaling `rope_type` default, linear or llama3,
//! read from transformers 5's `rope_parameters` or transformers 4's top-level `rope_theta` and
//! `rope_scaling`: [`read_rope`]).
//!
//! What the lab does not model is refused with [`LabError::Unsupported`], never ignored, because
//! ignoring it would measure a different network than the checkpoint's under its name: in
//! `config.json` another `rope_type` (dynamic, yarn, longrope, ...), a `partial_rotary_factor`
//! other than 1, rotary keys that disagree with each other, `attention_bias` / `mlp_bias` true,
//! or a `head_dim` other than hidden_size / num_attention_heads ([`FileConfig::parse`]); in the
//! file, any `*.bias` tensor; one shard of a sharded checkpoint ([`check_not_a_shard`] with the
//! index beside it, and a missing tensor in a file that holds others of the model says that it
//! may be a shard).
//!
//! Memory: [`header_len`] and [`resolve_header`] give the configuration from the header alone,
//! so a shell checks what the load will need before reading the file; [`load`] checks it again
//! (file bytes plus f64 weights) before widening anything.

use crate::error::LabError;
use crate::memory::{weight_bytes, MemoryEstimate};
use crate::model::{Config, LayerWeights, Weights};
use crate::ops::{AttnWeights, MlpWeights, RopeScaling};
use safetensors::{Dtype, SafeTensors};
use std::collections::{BTreeSet, HashMap};

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
    /// From `rope_parameters.rope_theta`, `rope_scaling.rope_theta` or the top-level
    /// `rope_theta`, which must agree where more than one is given ([`read_rope`]).
    pub rope_theta: Option<f64>,
    /// From `rope_parameters` (transformers 5) or `rope_scaling` (transformers 4), which must
    /// agree when both are given ([`read_rope`]).
    pub rope_scaling: RopeScaling,
    pub tie_word_embeddings: Option<bool>,
    pub hidden_act: Option<String>,
    /// Must equal d / heads: checked against the resolved d and heads in [`load`].
    pub head_dim: Option<usize>,
}

/// The refusal for a `config.json` key whose value changes the network in a way the lab does not
/// model: measuring without it would silently give other numbers than the checkpoint's own.
fn unmodelled(key: &str, value: &serde_json::Value, what: &str) -> LabError {
    LabError::Unsupported(format!(
        "config.json {key} = {value}: the lab does not model {what}, so its numbers would differ \
         from Hugging Face's for this checkpoint"
    ))
}

/// The message when config.json's head_dim is not d / heads.
fn head_dim_error(head_dim: usize, d: usize, heads: usize) -> LabError {
    unmodelled(
        "head_dim",
        &serde_json::json!(head_dim),
        &format!(
            "a head width other than hidden_size / num_attention_heads = {d} / {heads} = {} \
             (its q_proj and o_proj are d x d)",
            d / heads.max(1)
        ),
    )
}

/// The value of `key` in `obj` when present and not null.
fn present<'a>(obj: &'a serde_json::Value, key: &str) -> Option<&'a serde_json::Value> {
    obj.get(key).filter(|x| !x.is_null())
}

/// The number at `obj[key]` (None when absent or null); `path` names it in the message when it is
/// something else, which would otherwise be silently replaced by a default.
fn number_at(obj: &serde_json::Value, key: &str, path: &str) -> Result<Option<f64>, LabError> {
    match present(obj, key) {
        None => Ok(None),
        Some(x) => x
            .as_f64()
            .map(Some)
            .ok_or_else(|| LabError::Weights(format!("config.json {path} = {x} is not a number"))),
    }
}

/// The message when two keys of config.json give different values for one thing: the lab does not
/// guess which one the checkpoint means.
fn disagree(a: &str, va: impl std::fmt::Display, b: &str, vb: impl std::fmt::Display) -> LabError {
    LabError::Unsupported(format!(
        "config.json {a} = {va} and {b} = {vb} disagree: the lab does not guess which one the \
         checkpoint's network uses (transformers reads one and ignores the other); make them equal \
         or remove one"
    ))
}

/// One rotary block of config.json (`rope_parameters` or `rope_scaling`, named by `block`) as
/// transformers' `modeling_rope_utils` reads it: its `rope_theta` when given, and its scaling.
/// `root` is the whole config (llama3 falls back to its top-level `original_max_position_embeddings`,
/// then `max_position_embeddings`, then LlamaConfig's default 2048, as transformers does).
fn read_rope_block(
    block: &str,
    p: &serde_json::Value,
    root: &serde_json::Value,
) -> Result<(Option<f64>, RopeScaling), LabError> {
    if !p.is_object() {
        return Err(LabError::Weights(format!(
            "config.json {block} = {p} is not an object"
        )));
    }
    let name = |key: &str| format!("{block}.{key}");
    let kind_at = |key: &str| -> Result<Option<&str>, LabError> {
        match present(p, key) {
            None => Ok(None),
            Some(x) => x.as_str().map(Some).ok_or_else(|| {
                LabError::Weights(format!("config.json {} = {x} is not a string", name(key)))
            }),
        }
    };
    let (kind, kind_key) = match (kind_at("rope_type")?, kind_at("type")?) {
        (Some(a), Some(b)) if a != b => {
            return Err(disagree(
                &name("rope_type"),
                format!("{a:?}"),
                &name("type"),
                format!("{b:?}"),
            ))
        }
        (Some(a), _) => (a, "rope_type"),
        (None, Some(b)) => (b, "type"),
        (None, None) => ("default", "rope_type"),
    };
    if let Some(f) = number_at(p, "partial_rotary_factor", &name("partial_rotary_factor"))? {
        if f != 1.0 {
            return Err(unmodelled(
                &name("partial_rotary_factor"),
                &serde_json::json!(f),
                "rotary embeddings on part of each head",
            ));
        }
    }
    let theta = number_at(p, "rope_theta", &name("rope_theta"))?;
    let required = |key: &str| -> Result<f64, LabError> {
        number_at(p, key, &name(key))?.ok_or_else(|| {
            LabError::Weights(format!(
                "config.json {block} has rope_type {kind:?} but no {key} (transformers requires it)"
            ))
        })
    };
    let scaling =
        match kind {
            "default" => RopeScaling::Default,
            "linear" => RopeScaling::Linear {
                factor: required("factor")?,
            },
            "llama3" => {
                let inner = number_at(
                    p,
                    "original_max_position_embeddings",
                    &name("original_max_position_embeddings"),
                )?;
                let top = number_at(
                    root,
                    "original_max_position_embeddings",
                    "original_max_position_embeddings",
                )?;
                let original_max_position_embeddings = match (inner, top) {
                    (Some(a), Some(b)) if a != b => {
                        return Err(disagree(
                            &name("original_max_position_embeddings"),
                            a,
                            "original_max_position_embeddings",
                            b,
                        ))
                    }
                    (Some(a), _) | (None, Some(a)) => a,
                    (None, None) => {
                        number_at(root, "max_position_embeddings", "max_position_embeddings")?
                            .unwrap_or(2048.0)
                    }
                };
                RopeScaling::Llama3 {
                    factor: required("factor")?,
                    low_freq_factor: required("low_freq_factor")?,
                    high_freq_factor: required("high_freq_factor")?,
                    original_max_position_embeddings,
                }
            }
            other => return Err(unmodelled(
                &name(kind_key),
                &serde_json::json!(other),
                "this rotary-embedding scaling (it models rope_type default, linear and llama3)",
            )),
        };
    scaling.validate()?;
    Ok((theta, scaling))
}

/// The rotary base and scaling of a config.json, from whichever layout it uses: transformers 5's
/// `rope_parameters` {rope_theta, rope_type, ...} (no top-level rope_theta), transformers 4's
/// top-level `rope_theta` with an optional `rope_scaling` {rope_type or type, ...}, or both.
/// Where two keys give the same quantity they must agree, or the checkpoint is refused by name
/// ([`disagree`]): the top-level `rope_theta` against each block's `rope_theta`, and, when both
/// blocks are given, their scalings and the base each implies (its own, else the top-level one,
/// else 10000: transformers then reads `rope_scaling` alone). A top-level
/// `partial_rotary_factor` other than 1 is refused like one inside a block.
pub fn read_rope(v: &serde_json::Value) -> Result<(Option<f64>, RopeScaling), LabError> {
    if let Some(f) = number_at(v, "partial_rotary_factor", "partial_rotary_factor")? {
        if f != 1.0 {
            return Err(unmodelled(
                "partial_rotary_factor",
                &serde_json::json!(f),
                "rotary embeddings on part of each head",
            ));
        }
    }
    let top = number_at(v, "rope_theta", "rope_theta")?;
    // An empty object is transformers' "nothing given" (it treats {} like null).
    let block = |key: &str| {
        present(v, key)
            .filter(|p| p.as_object().is_none_or(|o| !o.is_empty()))
            .map(|p| read_rope_block(key, p, v))
            .transpose()
    };
    let params = block("rope_parameters")?;
    let legacy = block("rope_scaling")?;
    for (key, b) in [("rope_parameters", &params), ("rope_scaling", &legacy)] {
        if let (Some(t), Some((Some(inner), _))) = (top, b) {
            if *inner != t {
                return Err(disagree(
                    "rope_theta",
                    t,
                    &format!("{key}.rope_theta"),
                    inner,
                ));
            }
        }
    }
    match (params, legacy) {
        (Some((pt, ps)), Some((lt, ls))) => {
            let implied = |t: Option<f64>| t.or(top).unwrap_or(10000.0);
            if ps != ls || implied(pt) != implied(lt) {
                let show = |k: &str| v.get(k).map(|x| x.to_string()).unwrap_or_default();
                return Err(disagree(
                    "rope_parameters",
                    show("rope_parameters"),
                    "rope_scaling",
                    show("rope_scaling"),
                ));
            }
            Ok((pt.or(lt).or(top), ps))
        }
        (Some((t, s)), None) | (None, Some((t, s))) => Ok((t.or(top), s)),
        (None, None) => Ok((top, RopeScaling::Default)),
    }
}

impl FileConfig {
    /// Reads the keys the lab uses, and refuses the keys that change the forward pass in a way it
    /// does not model: a rotary `rope_type` other than default, linear and llama3, partial rotary
    /// embeddings, rotary keys that disagree ([`read_rope`]), `attention_bias` or `mlp_bias` true,
    /// `head_dim` other than hidden_size / num_attention_heads. Keys that do not change the forward pass (dropout, ids,
    /// `max_position_embeddings`, `torch_dtype`, ...) are ignored.
    pub fn parse(text: &str) -> Result<FileConfig, LabError> {
        let v: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| LabError::Weights(format!("config.json is not valid JSON: {e}")))?;
        let uint = |k: &str| v.get(k).and_then(|x| x.as_u64()).map(|x| x as usize);
        let num = |k: &str| v.get(k).and_then(|x| x.as_f64());
        let (rope_theta, rope_scaling) = read_rope(&v)?;
        for (key, what) in [
            ("attention_bias", "biases in the attention projections"),
            ("mlp_bias", "biases in the MLP projections"),
        ] {
            if let Some(b) = v.get(key).filter(|x| !x.is_null()) {
                if b.as_bool() != Some(false) {
                    return Err(unmodelled(key, b, what));
                }
            }
        }
        let head_dim = match v.get("head_dim").filter(|x| !x.is_null()) {
            None => None,
            Some(h) => Some(h.as_u64().map(|x| x as usize).ok_or_else(|| {
                unmodelled("head_dim", h, "a head width that is not a whole number")
            })?),
        };
        let fc = FileConfig {
            hidden_size: uint("hidden_size"),
            num_attention_heads: uint("num_attention_heads"),
            num_key_value_heads: uint("num_key_value_heads"),
            intermediate_size: uint("intermediate_size"),
            num_hidden_layers: uint("num_hidden_layers"),
            vocab_size: uint("vocab_size"),
            rms_norm_eps: num("rms_norm_eps"),
            rope_theta,
            rope_scaling,
            tie_word_embeddings: v.get("tie_word_embeddings").and_then(|x| x.as_bool()),
            hidden_act: v
                .get("hidden_act")
                .and_then(|x| x.as_str())
                .map(String::from),
            head_dim,
        };
        if let (Some(hd), Some(d), Some(h)) = (fc.head_dim, fc.hidden_size, fc.num_attention_heads)
        {
            if h == 0 || hd * h != d {
                return Err(head_dim_error(hd, d, h));
            }
        }
        Ok(fc)
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

/// Refuses one shard of a sharded checkpoint, given the `model.safetensors.index.json` beside the
/// file and the file's name: when the index's `weight_map` puts tensors in this file and in
/// others. (An index that does not mention the file, e.g. beside a merged file, is no reason to
/// refuse.) A shard alone is part of a network, which the lab does not model.
pub fn check_not_a_shard(index_json: &str, file_name: &str) -> Result<(), LabError> {
    let v: serde_json::Value = serde_json::from_str(index_json).map_err(|e| {
        LabError::Weights(format!(
            "model.safetensors.index.json is not valid JSON: {e}"
        ))
    })?;
    let files: BTreeSet<&str> = v
        .get("weight_map")
        .and_then(|m| m.as_object())
        .map(|m| m.values().filter_map(|f| f.as_str()).collect())
        .unwrap_or_default();
    if files.contains(file_name) && files.len() > 1 {
        let list: Vec<&str> = files.into_iter().collect();
        return Err(LabError::Unsupported(format!(
            "{file_name} is one shard of a sharded checkpoint (model.safetensors.index.json \
             spreads its tensors over {} files: {}); the lab reads every tensor from one file and \
             does not model part of a network — merge the shards into one .safetensors file",
            list.len(),
            list.join(", ")
        )));
    }
    Ok(())
}

/// The largest header the safetensors format allows (its `MAX_HEADER_SIZE`).
const MAX_HEADER: u64 = 100_000_000;

fn not_safetensors(why: impl std::fmt::Display) -> LabError {
    LabError::Weights(format!("the file is not a valid safetensors file ({why})"))
}

/// How many bytes at the start of a safetensors file of `file_len` bytes hold its header: 8 plus
/// the little-endian u64 in `first` (the file's first 8 bytes or more). Lets a shell read the
/// header alone and check the memory a load needs ([`resolve_header`]) before reading the file.
pub fn header_len(first: &[u8], file_len: u64) -> Result<usize, LabError> {
    let Some(&prefix) = first.first_chunk::<8>() else {
        return Err(not_safetensors(
            "shorter than the 8 bytes that give its header's length",
        ));
    };
    let n = u64::from_le_bytes(prefix);
    if n > MAX_HEADER || n > file_len.saturating_sub(8) {
        return Err(not_safetensors(format!(
            "its first 8 bytes announce a header of {n} bytes in a file of {file_len}"
        )));
    }
    Ok(8 + n as usize)
}

/// Names and shapes of a checkpoint's tensors: everything resolving the configuration needs,
/// readable from the header alone.
struct Index {
    shapes: HashMap<String, Vec<usize>>,
}

impl Index {
    fn of(st: &SafeTensors<'_>) -> Index {
        Index {
            shapes: st
                .iter()
                .map(|(name, t)| (name.to_string(), t.shape().to_vec()))
                .collect(),
        }
    }

    fn has(&self, name: &str) -> bool {
        self.shapes.contains_key(name)
    }

    fn shape(&self, name: &str) -> Result<&[usize], LabError> {
        self.shapes
            .get(name)
            .map(Vec::as_slice)
            .ok_or_else(|| self.missing(name))
    }

    /// "missing tensor", with the likely reason when the file holds other tensors of a LLaMA
    /// checkpoint: it is one shard of several.
    fn missing(&self, name: &str) -> LabError {
        let partial = self
            .shapes
            .keys()
            .any(|k| k.starts_with("model.") || k.starts_with("lm_head."));
        LabError::Weights(if partial {
            format!(
                "missing tensor {name}, while the file holds other tensors of the model: is it one \
                 shard of a sharded checkpoint (model-0000k-of-0000n.safetensors)? The lab reads \
                 every tensor from one file and does not model part of a network; merge the \
                 shards into one .safetensors file"
            )
        } else {
            format!("missing tensor {name}")
        })
    }

    /// Number of `model.layers.{i}` blocks in the file (contiguous from 0).
    fn layers(&self) -> usize {
        let mut n = 0;
        while self.has(&format!("model.layers.{n}.self_attn.q_proj.weight")) {
            n += 1;
        }
        n
    }
}

/// The configuration [`load`] would use, from the first [`header_len`] bytes of a safetensors
/// file of `file_len` bytes, without its tensors: so a shell can check the memory the load and
/// the run need ([`crate::memory::estimate`] with `file_len`) before reading a file that may not
/// fit. Checks everything [`load`] checks except the tensors' values.
pub fn resolve_header(
    header: &[u8],
    file_len: u64,
    file_cfg: Option<&FileConfig>,
    base: &Config,
    ov: &Overrides,
) -> Result<Config, LabError> {
    let len = header_len(header, file_len)?;
    let json = header.get(8..len).ok_or_else(|| {
        not_safetensors(format!(
            "the header needs {len} bytes, given {}",
            header.len()
        ))
    })?;
    let text = std::str::from_utf8(json).map_err(not_safetensors)?;
    let meta: safetensors::tensor::Metadata =
        serde_json::from_str(text).map_err(not_safetensors)?;
    let data = file_len - len as u64;
    if meta.data_len() as u64 != data {
        return Err(not_safetensors(format!(
            "its header describes {} bytes of tensors, the file holds {data}",
            meta.data_len()
        )));
    }
    let index = Index {
        shapes: meta
            .tensors()
            .into_iter()
            .map(|(name, info)| (name, info.shape.clone()))
            .collect(),
    };
    resolve(&index, file_cfg, base, ov)
}

/// Flags over config.json over the tensors' shapes; refuses what the lab does not model.
fn resolve(
    index: &Index,
    file_cfg: Option<&FileConfig>,
    base: &Config,
    ov: &Overrides,
) -> Result<Config, LabError> {
    let fc = file_cfg.cloned().unwrap_or_default();
    let mut biases: Vec<&String> = index
        .shapes
        .keys()
        .filter(|k| k.ends_with(".bias"))
        .collect();
    biases.sort();
    if let Some(name) = biases.first() {
        return Err(LabError::Unsupported(format!(
            "tensor {name}: the lab does not model biases (LLaMA's layers have none), so its \
             numbers would differ from Hugging Face's for this checkpoint"
        )));
    }
    let embed_shape = index.shape("model.embed_tokens.weight")?;
    if embed_shape.len() != 2 {
        return Err(LabError::Weights(format!(
            "tensor model.embed_tokens.weight has shape {embed_shape:?}, expected [vocab, d]"
        )));
    }
    let have = index.layers();
    if have == 0 {
        let hint = match index.missing("model.layers.0.self_attn.q_proj.weight") {
            LabError::Weights(m) => m,
            other => other.to_string(),
        };
        return Err(LabError::Weights(format!("no decoder layers: {hint}")));
    }
    let d = ov.d.or(fc.hidden_size).unwrap_or(embed_shape[1]);
    let vocab = ov.vocab.or(fc.vocab_size).unwrap_or(embed_shape[0]);
    let d_ff = match ov.d_ff.or(fc.intermediate_size) {
        Some(f) => f,
        None => index.shape("model.layers.0.mlp.up_proj.weight")?[0],
    };
    let heads = ov.heads.or(fc.num_attention_heads).ok_or_else(|| {
        LabError::Inconsistent(
            "heads: the checkpoint has no config.json with num_attention_heads; pass --heads"
                .into(),
        )
    })?;
    if let Some(hd) = fc.head_dim {
        if heads == 0 || hd * heads != d {
            return Err(head_dim_error(hd, d, heads));
        }
    }
    let kv_heads = ov.kv_heads.or(fc.num_key_value_heads).unwrap_or(heads);
    let layers = ov.layers.or(fc.num_hidden_layers).unwrap_or(have);
    if layers > have {
        let shard = if ov.layers.is_none() && fc.num_hidden_layers.is_some() {
            " (config.json's num_hidden_layers): is the file one shard of a sharded checkpoint? \
             The lab reads every tensor from one file; merge the shards, or pass a smaller layers \
             to measure a prefix"
        } else {
            ""
        };
        return Err(LabError::Inconsistent(format!(
            "layers = {layers} but the file has {have} decoder layers (model.layers.0..{}){shard}",
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
        .unwrap_or_else(|| !index.has("lm_head.weight"));
    let cfg = Config {
        d,
        heads,
        kv_heads,
        d_ff,
        layers,
        vocab,
        eps: ov.eps.or(fc.rms_norm_eps).unwrap_or(1e-6),
        rope_theta: ov.rope_theta.or(fc.rope_theta).unwrap_or(10000.0),
        rope_scaling: fc.rope_scaling,
        tie_embeddings: tie,
        ..base.clone()
    };
    cfg.validate()?;
    Ok(cfg)
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
fn tensor(
    st: &SafeTensors<'_>,
    index: &Index,
    name: &str,
    shape: &[usize],
) -> Result<Vec<f64>, LabError> {
    let t = st.tensor(name).map_err(|_| index.missing(name))?;
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

fn optional_gain(
    st: &SafeTensors<'_>,
    index: &Index,
    name: &str,
    d: usize,
) -> Result<Vec<f64>, LabError> {
    if index.has(name) {
        tensor(st, index, name, &[d])
    } else {
        Ok(vec![1.0; d])
    }
}

/// Resolves the configuration (flags over config.json over the tensors' shapes; `base` gives the
/// placement, norm, MLP, T and the other run options) and reads the weights, widened to f64.
/// Refuses, before widening anything, a load whose f64 weights and the file's `bytes` together
/// exceed `memory_budget` ([`crate::memory`]; the run's own check, with the activations, comes
/// when it starts). Refuses what the lab does not model (biases, a shard, see
/// [`FileConfig::parse`] for config.json) rather than measure another network.
pub fn load(
    bytes: &[u8],
    file_cfg: Option<&FileConfig>,
    base: &Config,
    ov: &Overrides,
    memory_budget: u64,
) -> Result<(Config, Weights), LabError> {
    let st = SafeTensors::deserialize(bytes).map_err(not_safetensors)?;
    let index = Index::of(&st);
    let cfg = resolve(&index, file_cfg, base, ov)?;
    MemoryEstimate {
        weights: weight_bytes(&cfg),
        file: bytes.len() as u64,
        activations: 0,
    }
    .check(memory_budget)?;
    let (d, d_ff, vocab) = (cfg.d, cfg.d_ff, cfg.vocab);
    let dkv = cfg.kv_heads * cfg.d_head();
    let t = |name: &str, shape: &[usize]| tensor(&st, &index, name, shape);
    let embed = t("model.embed_tokens.weight", &[vocab, d])?;
    let mut lw = Vec::with_capacity(cfg.layers);
    for i in 0..cfg.layers {
        let p = |s: &str| format!("model.layers.{i}.{s}.weight");
        lw.push(LayerWeights {
            attn: AttnWeights {
                q: t(&p("self_attn.q_proj"), &[d, d])?,
                k: t(&p("self_attn.k_proj"), &[dkv, d])?,
                v: t(&p("self_attn.v_proj"), &[dkv, d])?,
                o: t(&p("self_attn.o_proj"), &[d, d])?,
            },
            mlp: MlpWeights {
                gate: if base.mlp == crate::MlpKind::SwiGlu {
                    t(&p("mlp.gate_proj"), &[d_ff, d])?
                } else {
                    vec![0.0; d_ff * d]
                },
                up: t(&p("mlp.up_proj"), &[d_ff, d])?,
                down: t(&p("mlp.down_proj"), &[d, d_ff])?,
            },
            attn_norm: t(&p("input_layernorm"), &[d])?,
            mlp_norm: t(&p("post_attention_layernorm"), &[d])?,
            attn_out_norm: optional_gain(&st, &index, &p("attn_output_layernorm"), d)?,
            mlp_out_norm: optional_gain(&st, &index, &p("mlp_output_layernorm"), d)?,
        });
    }
    let final_norm = t("model.norm.weight", &[d])?;
    let lm_head = if cfg.tie_embeddings {
        None
    } else {
        Some(t("lm_head.weight", &[vocab, d])?)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// config.json of a small LLaMA with `extra` keys added.
    fn config(extra: &str) -> String {
        format!(
            r#"{{"hidden_size": 8, "num_attention_heads": 2, "num_hidden_layers": 3,
                "intermediate_size": 12, "vocab_size": 11, "hidden_act": "silu"{extra}}}"#
        )
    }

    fn refused(extra: &str) -> String {
        match FileConfig::parse(&config(extra)) {
            Err(e @ LabError::Unsupported(_)) => e.to_string(),
            other => panic!("{extra}: expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn keys_that_change_the_network_are_refused_by_name() {
        let msg = refused(r#", "attention_bias": true"#);
        assert!(
            msg.starts_with("config.json attention_bias = true: the lab does not model biases"),
            "{msg}"
        );
        let msg = refused(r#", "mlp_bias": true"#);
        assert!(
            msg.starts_with(
                "config.json mlp_bias = true: the lab does not model biases in the MLP"
            ),
            "{msg}"
        );
        let msg = refused(r#", "head_dim": 8"#);
        assert!(
            msg.starts_with("config.json head_dim = 8: the lab does not model a head width")
                && msg.contains("8 / 2 = 4"),
            "{msg}"
        );
    }

    /// The same keys with values that leave the network as the lab models it, and keys that do
    /// not touch the forward pass, are accepted.
    #[test]
    fn harmless_values_and_keys_are_accepted() {
        for extra in [
            r#", "rope_scaling": null"#,
            r#", "rope_scaling": {"rope_type": "default"}"#,
            r#", "attention_bias": false, "mlp_bias": false"#,
            r#", "head_dim": 4"#,
            r#", "head_dim": null"#,
            r#", "attention_dropout": 0.1, "max_position_embeddings": 2048, "torch_dtype": "bfloat16",
                "bos_token_id": 1, "pretraining_tp": 1, "use_cache": true"#,
        ] {
            let fc = FileConfig::parse(&config(extra)).unwrap_or_else(|e| panic!("{extra}: {e}"));
            assert_eq!(fc.hidden_size, Some(8));
        }
        assert_eq!(
            FileConfig::parse(&config(r#", "head_dim": 4"#))
                .unwrap()
                .head_dim,
            Some(4)
        );
    }

    fn rope_of(extra: &str) -> (Option<f64>, RopeScaling) {
        let fc = FileConfig::parse(&config(extra)).unwrap_or_else(|e| panic!("{extra}: {e}"));
        (fc.rope_theta, fc.rope_scaling)
    }

    const LLAMA3: &str = r#""factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0"#;

    /// transformers 5's `rope_parameters`, transformers 4's top-level `rope_theta` and
    /// `rope_scaling`, and both, read to the same base and scaling.
    #[test]
    fn both_rope_layouts_are_read() {
        assert_eq!(rope_of(""), (None, RopeScaling::Default));
        assert_eq!(
            rope_of(r#", "rope_theta": 250000.0"#),
            (Some(250000.0), RopeScaling::Default)
        );
        let v5 = r#", "rope_parameters": {"rope_theta": 500000.0, "rope_type": "default"}"#;
        assert_eq!(rope_of(v5), (Some(500000.0), RopeScaling::Default));
        // A block without a base takes the top-level one; without either, the default (None).
        assert_eq!(
            rope_of(
                r#", "rope_theta": 20000, "rope_parameters": {"rope_type": "linear", "factor": 4}"#
            ),
            (Some(20000.0), RopeScaling::Linear { factor: 4.0 })
        );
        assert_eq!(
            rope_of(r#", "rope_scaling": {"type": "linear", "factor": 2.0}"#),
            (None, RopeScaling::Linear { factor: 2.0 })
        );
        let llama3 = |old: f64| RopeScaling::Llama3 {
            factor: 8.0,
            low_freq_factor: 1.0,
            high_freq_factor: 4.0,
            original_max_position_embeddings: old,
        };
        let v5 = format!(
            r#", "rope_parameters": {{"rope_theta": 500000.0, "rope_type": "llama3", {LLAMA3},
                "original_max_position_embeddings": 8192}}, "max_position_embeddings": 131072"#
        );
        assert_eq!(rope_of(&v5), (Some(500000.0), llama3(8192.0)));
        let v4 = format!(
            r#", "rope_theta": 500000.0, "rope_scaling": {{"rope_type": "llama3", {LLAMA3},
                "original_max_position_embeddings": 8192}}"#
        );
        assert_eq!(rope_of(&v4), (Some(500000.0), llama3(8192.0)));
        // original_max_position_embeddings: the block's, else the top-level key, else
        // max_position_embeddings, else LlamaConfig's default 2048 (transformers' order).
        let partial = format!(r#", "rope_parameters": {{"rope_type": "llama3", {LLAMA3}}}"#);
        assert_eq!(rope_of(&partial).1, llama3(2048.0));
        let with = |k: &str| rope_of(&format!(r#"{partial}, "{k}": 4096"#)).1;
        assert_eq!(with("max_position_embeddings"), llama3(4096.0));
        assert_eq!(with("original_max_position_embeddings"), llama3(4096.0));
        // Both blocks, saying the same; an empty block or null says nothing.
        let both = format!(
            r#", "rope_parameters": {{"rope_theta": 500000.0, "rope_type": "llama3", {LLAMA3}}},
                "rope_scaling": {{"type": "llama3", "rope_theta": 500000.0, {LLAMA3}}}"#
        );
        assert_eq!(rope_of(&both), (Some(500000.0), llama3(2048.0)));
        assert_eq!(
            rope_of(r#", "rope_theta": 30000, "rope_parameters": {}, "rope_scaling": null"#),
            (Some(30000.0), RopeScaling::Default)
        );
        assert_eq!(
            rope_of(
                r#", "partial_rotary_factor": 1.0, "rope_parameters": {"partial_rotary_factor": 1}"#
            ),
            (None, RopeScaling::Default)
        );
    }

    /// Every other rope_type, partial rotary embeddings, and keys that disagree are refused with
    /// a message that names the key and its value; malformed values are named too.
    #[test]
    fn rope_configs_the_lab_does_not_model_are_refused_by_name() {
        for (extra, key, value) in [
            (
                r#", "rope_parameters": {"rope_type": "yarn", "factor": 4.0}"#,
                "rope_parameters.rope_type",
                "\"yarn\"",
            ),
            (
                r#", "rope_parameters": {"rope_type": "dynamic", "factor": 2.0}"#,
                "rope_parameters.rope_type",
                "\"dynamic\"",
            ),
            (
                r#", "rope_parameters": {"rope_type": "longrope", "short_factor": [1], "long_factor": [1]}"#,
                "rope_parameters.rope_type",
                "\"longrope\"",
            ),
            (
                r#", "rope_parameters": {"rope_type": "proportional"}"#,
                "rope_parameters.rope_type",
                "\"proportional\"",
            ),
            (
                r#", "rope_scaling": {"type": "dynamic", "factor": 2.0}"#,
                "rope_scaling.type",
                "\"dynamic\"",
            ),
            (
                r#", "rope_scaling": {"rope_type": "su"}"#,
                "rope_scaling.rope_type",
                "\"su\"",
            ),
            (
                r#", "partial_rotary_factor": 0.5"#,
                "partial_rotary_factor",
                "0.5",
            ),
            (
                r#", "rope_parameters": {"rope_type": "default", "partial_rotary_factor": 0.25}"#,
                "rope_parameters.partial_rotary_factor",
                "0.25",
            ),
        ] {
            let msg = refused(extra);
            assert!(
                msg.starts_with(&format!(
                    "config.json {key} = {value}: the lab does not model "
                )) && msg.contains("would differ from Hugging Face's"),
                "{extra}: {msg}"
            );
        }
        for (extra, a, b) in [
            (
                r#", "rope_theta": 10000.0, "rope_parameters": {"rope_theta": 500000.0}"#,
                "rope_theta = 10000",
                "rope_parameters.rope_theta = 500000",
            ),
            (
                r#", "rope_theta": 10000.0, "rope_scaling": {"type": "linear", "factor": 2, "rope_theta": 20000}"#,
                "rope_theta = 10000",
                "rope_scaling.rope_theta = 20000",
            ),
            (
                r#", "rope_parameters": {"rope_type": "linear", "factor": 2}, "rope_scaling": {"type": "linear", "factor": 4}"#,
                r#"rope_parameters = {"factor":2,"rope_type":"linear"}"#,
                r#"rope_scaling = {"factor":4,"type":"linear"}"#,
            ),
            // transformers reads rope_scaling alone when both are given, and would run this with
            // the default base 10000, not rope_parameters' 500000.
            (
                r#", "rope_parameters": {"rope_theta": 500000}, "rope_scaling": {"rope_type": "default"}"#,
                r#"rope_parameters = {"rope_theta":500000}"#,
                r#"rope_scaling = {"rope_type":"default"}"#,
            ),
            (
                r#", "rope_scaling": {"rope_type": "linear", "type": "dynamic", "factor": 2}"#,
                r#"rope_scaling.rope_type = "linear""#,
                r#"rope_scaling.type = "dynamic""#,
            ),
            (
                r#", "original_max_position_embeddings": 4096, "rope_parameters": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}"#,
                "rope_parameters.original_max_position_embeddings = 8192",
                "original_max_position_embeddings = 4096",
            ),
        ] {
            let msg = refused(extra);
            assert!(
                msg.starts_with(&format!("config.json {a} and {b} disagree: ")),
                "{extra}: {msg}"
            );
        }
        let bad = |extra: &str| match FileConfig::parse(&config(extra)) {
            Err(e) => e.to_string(),
            Ok(fc) => panic!("{extra}: expected an error, got {fc:?}"),
        };
        for (extra, want) in [
            (r#", "rope_theta": "500000""#, r#"config.json rope_theta = "500000" is not a number"#),
            (r#", "rope_parameters": {"rope_theta": [1]}"#, "config.json rope_parameters.rope_theta = [1] is not a number"),
            (r#", "rope_parameters": 500000"#, "config.json rope_parameters = 500000 is not an object"),
            (r#", "rope_parameters": {"rope_type": 3}"#, "config.json rope_parameters.rope_type = 3 is not a string"),
            (r#", "rope_parameters": {"rope_type": "linear"}"#, r#"config.json rope_parameters has rope_type "linear" but no factor"#),
            (r#", "rope_scaling": {"type": "llama3", "factor": 8, "low_freq_factor": 1}"#, r#"config.json rope_scaling has rope_type "llama3" but no high_freq_factor"#),
            (r#", "rope_parameters": {"rope_type": "linear", "factor": 0}"#, "rope_parameters.factor = 0 is out of range: expected a finite number above 0"),
            (
                r#", "rope_parameters": {"rope_type": "llama3", "factor": 8, "low_freq_factor": 4, "high_freq_factor": 4}"#,
                "rope_parameters.high_freq_factor = 4 is out of range: expected a finite number above low_freq_factor = 4",
            ),
        ] {
            let msg = bad(extra);
            assert!(msg.contains(want), "{extra}: {msg}");
        }
    }

    /// head_dim without hidden_size / num_attention_heads in the file is checked against the
    /// values the load resolves (from flags or shapes).
    #[test]
    fn head_dim_is_checked_against_the_resolved_dimensions() {
        let fc = FileConfig::parse(r#"{"head_dim": 16}"#).unwrap();
        let index = Index {
            shapes: [
                ("model.embed_tokens.weight", vec![11, 8]),
                ("model.layers.0.self_attn.q_proj.weight", vec![8, 8]),
                ("model.layers.0.mlp.up_proj.weight", vec![12, 8]),
            ]
            .into_iter()
            .map(|(n, s)| (n.to_string(), s))
            .collect(),
        };
        let ov = Overrides {
            heads: Some(2),
            ..Overrides::default()
        };
        let base = Config {
            mix_post_layers: 0,
            ..Config::default_case()
        };
        let msg = resolve(&index, Some(&fc), &base, &ov)
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("head_dim = 16") && msg.contains("8 / 2 = 4"),
            "{msg}"
        );
        let fc = FileConfig::parse(r#"{"head_dim": 4}"#).unwrap();
        assert_eq!(resolve(&index, Some(&fc), &base, &ov).unwrap().d_head(), 4);
    }

    #[test]
    fn a_shard_named_in_the_index_is_refused() {
        let index = r#"{"metadata": {"total_size": 1000}, "weight_map": {
            "model.embed_tokens.weight": "model-00001-of-00002.safetensors",
            "model.layers.0.self_attn.q_proj.weight": "model-00001-of-00002.safetensors",
            "model.norm.weight": "model-00002-of-00002.safetensors"}}"#;
        let msg = check_not_a_shard(index, "model-00002-of-00002.safetensors")
            .unwrap_err()
            .to_string();
        assert!(
            msg.starts_with(
                "model-00002-of-00002.safetensors is one shard of a sharded checkpoint"
            ) && msg.contains(
                "over 2 files: model-00001-of-00002.safetensors, model-00002-of-00002.safetensors"
            ) && msg.contains("merge the shards"),
            "{msg}"
        );
        // A merged file beside an index that does not list it, or a one-file index: nothing to
        // refuse.
        assert!(check_not_a_shard(index, "model.safetensors").is_ok());
        let one = r#"{"weight_map": {"model.norm.weight": "model.safetensors"}}"#;
        assert!(check_not_a_shard(one, "model.safetensors").is_ok());
        assert!(check_not_a_shard("not json", "model.safetensors").is_err());
    }

    #[test]
    fn header_lengths_are_checked_against_the_file() {
        let mut first = 100u64.to_le_bytes().to_vec();
        assert_eq!(header_len(&first, 1000).unwrap(), 108);
        assert!(header_len(&first, 107)
            .unwrap_err()
            .to_string()
            .contains("announce a header of 100 bytes in a file of 107"));
        first.truncate(5);
        assert!(header_len(&first, 1000)
            .unwrap_err()
            .to_string()
            .contains("not a valid safetensors file (shorter than the 8 bytes"));
        let huge = u64::MAX.to_le_bytes();
        assert!(header_len(&huge, u64::MAX).is_err());
    }
}
