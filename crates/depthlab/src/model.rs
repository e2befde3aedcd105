//! The decoder stack: configuration, weights (seeded or loaded), and per-layer forward, JVP and
//! VJP built from [`crate::ops`].
//!
//! Indexing (the CLI contract): x_1 is the embedding output (or the Gaussian input), x_(l+1) the
//! output of layer l (before the final norm), l = 1..L.

use crate::error::LabError;
use crate::linalg::axpy;
use crate::ops::{
    attn_forward, attn_jvp_packed, attn_vjp_packed, mlp_forward, mlp_jvp_packed, mlp_vjp_packed,
    norm_forward, norm_jvp, norm_vjp, AttnCache, AttnPacked, AttnShape, AttnWeights, MlpCache,
    MlpKind, MlpPacked, MlpWeights, NormCache, NormKind, Rope, RopeScaling,
};
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Layer passes (one layer's JVP or VJP of one vector; a batch of k counts k) since the process
/// (or wasm instance) started: the benchmarks report a run's count, the measure of its work that
/// does not depend on the machine.
static LAYER_PASSES: AtomicU64 = AtomicU64::new(0);

/// See [`LAYER_PASSES`].
pub fn layer_passes() -> u64 {
    LAYER_PASSES.load(Ordering::Relaxed)
}

/// Where the norms sit in each block (the paper's comparisons; docs/MATH.md, section 9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Placement {
    /// h = x + Attn(N1(x)); y = h + MLP(N2(h)).
    Pre,
    /// LayerNorm Scaling: as Pre with each norm's output times 1/sqrt(l), l the 1-based layer.
    Lns,
    /// h = N1(x + Attn(x)); y = N2(h + MLP(h)).
    Post,
    /// DeepNorm-style post: h = N1(alpha x + Attn(x)); y = N2(alpha h + MLP(h)).
    DeepNorm,
    /// h = x + N1b(Attn(N1(x))); y = h + N2b(MLP(N2(h))).
    Sandwich,
    /// Post for layers 1..=k (`mix_post_layers`), Pre after; the shells' default k is
    /// [`Config::default_mix_post_layers`], max(1, floor(L/4)).
    Mix,
}

impl Placement {
    pub const ALL: [Placement; 6] = [
        Placement::Pre,
        Placement::Lns,
        Placement::Post,
        Placement::DeepNorm,
        Placement::Sandwich,
        Placement::Mix,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Placement::Pre => "pre",
            Placement::Lns => "lns",
            Placement::Post => "post",
            Placement::DeepNorm => "deepnorm",
            Placement::Sandwich => "sandwich",
            Placement::Mix => "mix",
        }
    }

    pub fn parse(s: &str) -> Result<Placement, LabError> {
        Placement::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| LabError::OutOfRange {
                name: "norm",
                value: s.to_string(),
                range: "one of pre, lns, post, deepnorm, sandwich, mix".into(),
            })
    }
}

/// Everything that fixes the network's shape and arithmetic.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Config {
    pub d: usize,
    pub heads: usize,
    /// Key/value heads (grouped-query attention when below `heads`); seeded networks use `heads`.
    pub kv_heads: usize,
    pub d_ff: usize,
    pub tokens: usize,
    pub layers: usize,
    pub vocab: usize,
    pub placement: Placement,
    pub norm_kind: NormKind,
    pub mlp: MlpKind,
    pub eps: f64,
    pub rope_theta: f64,
    /// How the rotary frequencies are scaled (a checkpoint's `rope_type`; seeded networks use
    /// plain rotary embeddings). Absent in reports written before it existed: read as plain.
    #[serde(default)]
    pub rope_scaling: RopeScaling,
    pub init_std: f64,
    /// Output projections (o_proj, down_proj) drawn with std init_std / sqrt(2 L).
    pub scaled_init: bool,
    /// Mix-LN: the number k of leading Post-LN layers (0 makes Mix-LN Pre-LN; the shells default
    /// to [`Config::default_mix_post_layers`]).
    pub mix_post_layers: usize,
    /// DeepNorm's residual multiplier alpha; `None` = (2 L)^(1/4), DeepNet's decoder-only value.
    pub deepnorm_alpha: Option<f64>,
    /// The unembedding is the embedding matrix (no separate lm_head).
    pub tie_embeddings: bool,
}

/// Supported ranges: large enough for GPT-2-small-like runs, small enough that memory stays sane.
pub const MAX_D: usize = 8192;
pub const MAX_D_FF: usize = 32768;
pub const MAX_TOKENS: usize = 4096;
pub const MAX_LAYERS: usize = 1024;
pub const MAX_VOCAB: usize = 1 << 20;
/// Largest T x d stream accepted (the Lanczos basis holds up to ~100 of these).
pub const MAX_STREAM: usize = 1 << 20;

fn range_check(name: &'static str, v: usize, lo: usize, hi: usize) -> Result<(), LabError> {
    if (lo..=hi).contains(&v) {
        Ok(())
    } else {
        Err(LabError::OutOfRange {
            name,
            value: v.to_string(),
            range: format!("an integer in [{lo}, {hi}]"),
        })
    }
}

fn float_check(name: &'static str, v: f64, lo: f64, hi: f64) -> Result<(), LabError> {
    if v.is_finite() && (lo..=hi).contains(&v) {
        Ok(())
    } else {
        Err(LabError::OutOfRange {
            name,
            value: format!("{v}"),
            range: format!("a number in [{lo}, {hi}]"),
        })
    }
}

impl Config {
    /// The default case: d = 128, h = 4, d_ff = 344, T = 32, L = 32, Pre-LN, sigma = 0.02.
    pub fn default_case() -> Config {
        Config {
            d: 128,
            heads: 4,
            kv_heads: 4,
            d_ff: 344,
            tokens: 32,
            layers: 32,
            vocab: 256,
            placement: Placement::Pre,
            norm_kind: NormKind::Rms,
            mlp: MlpKind::SwiGlu,
            eps: 1e-6,
            rope_theta: 10000.0,
            rope_scaling: RopeScaling::Default,
            init_std: 0.02,
            scaled_init: false,
            mix_post_layers: 8,
            deepnorm_alpha: None,
            tie_embeddings: false,
        }
    }

    /// Mix-LN's default k for L layers: max(1, floor(L/4)). Mix-LN puts Post-LN in the first
    /// quarter of the layers (its alpha = 0.25); for L < 4 the quarter rounds down to none, which
    /// would silently measure Pre-LN under the name "mix", so at least one layer is Post-LN.
    pub fn default_mix_post_layers(layers: usize) -> usize {
        (layers / 4).max(1)
    }

    /// The integer parameters [`Config::validate`] range-checks, in its order, as (name, value,
    /// lowest, highest) given the rest of the configuration (heads <= d, kv_heads <= heads,
    /// mix_post_layers <= layers). Shells use the ranges to word a value they could not even put
    /// in a `usize` (a negative number on the command line) as `validate` words the others.
    pub fn integer_params(&self) -> [(&'static str, usize, usize, usize); 8] {
        [
            ("d", self.d, 2, MAX_D),
            ("heads", self.heads, 1, self.d),
            ("kv_heads", self.kv_heads, 1, self.heads),
            ("d_ff", self.d_ff, 1, MAX_D_FF),
            ("tokens", self.tokens, 2, MAX_TOKENS),
            ("layers", self.layers, 1, MAX_LAYERS),
            ("vocab", self.vocab, 2, MAX_VOCAB),
            ("mix_post_layers", self.mix_post_layers, 0, self.layers),
        ]
    }

    /// DeepNorm's alpha in use.
    pub fn deepnorm_alpha(&self) -> f64 {
        self.deepnorm_alpha
            .unwrap_or_else(|| libm::pow(2.0 * self.layers as f64, 0.25))
    }

    pub fn d_head(&self) -> usize {
        self.d / self.heads.max(1)
    }

    /// Checks every dimension and option; the message names the parameter and its range. Memory
    /// is checked separately, against a budget the caller gives ([`crate::memory`],
    /// [`crate::measure::validate`]).
    pub fn validate(&self) -> Result<(), LabError> {
        for (name, value, lo, hi) in self.integer_params() {
            range_check(name, value, lo, hi)?;
        }
        float_check("eps", self.eps, 1e-12, 1e-1)?;
        float_check("rope_theta", self.rope_theta, 1.0, 1e9)?;
        self.rope_scaling.validate()?;
        float_check("init_std", self.init_std, 0.0, 10.0)?;
        if let Some(a) = self.deepnorm_alpha {
            float_check("deepnorm_alpha", a, 1e-3, 1e3)?;
        }
        if self.d % self.heads != 0 {
            return Err(LabError::Inconsistent(format!(
                "heads = {} must divide d = {}",
                self.heads, self.d
            )));
        }
        if self.d_head() % 2 != 0 {
            return Err(LabError::Inconsistent(format!(
                "d / heads = {} must be even (rotary embeddings rotate pairs)",
                self.d_head()
            )));
        }
        if self.heads % self.kv_heads != 0 {
            return Err(LabError::Inconsistent(format!(
                "kv_heads = {} must divide heads = {}",
                self.kv_heads, self.heads
            )));
        }
        if self.tokens * self.d > MAX_STREAM {
            return Err(LabError::OutOfRange {
                name: "tokens x d",
                value: (self.tokens * self.d).to_string(),
                range: format!("at most {MAX_STREAM}"),
            });
        }
        if self.tokens * self.d_ff > 4 * MAX_STREAM {
            return Err(LabError::OutOfRange {
                name: "tokens x d_ff",
                value: (self.tokens * self.d_ff).to_string(),
                range: format!("at most {}", 4 * MAX_STREAM),
            });
        }
        Ok(())
    }

    pub(crate) fn attn_shape(&self) -> AttnShape {
        AttnShape {
            tokens: self.tokens,
            d: self.d,
            heads: self.heads,
            kv_heads: self.kv_heads,
            d_head: self.d_head(),
        }
    }

    /// The block shape of layer l (1-based).
    pub(crate) fn sub_kind(&self, l: usize) -> SubKind {
        match self.placement {
            Placement::Pre => SubKind::Residual {
                scale: 1.0,
                sandwich: false,
            },
            Placement::Lns => SubKind::Residual {
                scale: 1.0 / (l as f64).sqrt(),
                sandwich: false,
            },
            Placement::Sandwich => SubKind::Residual {
                scale: 1.0,
                sandwich: true,
            },
            Placement::Post => SubKind::Post { alpha: 1.0 },
            Placement::DeepNorm => SubKind::Post {
                alpha: self.deepnorm_alpha(),
            },
            Placement::Mix if l <= self.mix_post_layers => SubKind::Post { alpha: 1.0 },
            Placement::Mix => SubKind::Residual {
                scale: 1.0,
                sandwich: false,
            },
        }
    }
}

/// One sublayer's wiring.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum SubKind {
    /// h = x + Nb(F(scale Na(x))) (Nb only for Sandwich).
    Residual { scale: f64, sandwich: bool },
    /// h = Na(alpha x + F(x)).
    Post { alpha: f64 },
}

/// One decoder layer's parameters (Hugging Face names in the doc of each field).
#[derive(Debug, Clone)]
pub struct LayerWeights {
    pub attn: AttnWeights,
    pub mlp: MlpWeights,
    /// `input_layernorm`: the norm of the attention sublayer.
    pub attn_norm: Vec<f64>,
    /// `post_attention_layernorm`: the norm of the MLP sublayer.
    pub mlp_norm: Vec<f64>,
    /// Sandwich only: the norm after attention (`attn_output_layernorm`, ones when absent).
    pub attn_out_norm: Vec<f64>,
    /// Sandwich only: the norm after the MLP (`mlp_output_layernorm`, ones when absent).
    pub mlp_out_norm: Vec<f64>,
}

impl LayerWeights {
    pub fn zeros_like(&self) -> LayerWeights {
        let z = |v: &Vec<f64>| vec![0.0; v.len()];
        LayerWeights {
            attn: AttnWeights {
                q: z(&self.attn.q),
                k: z(&self.attn.k),
                v: z(&self.attn.v),
                o: z(&self.attn.o),
            },
            mlp: MlpWeights {
                gate: z(&self.mlp.gate),
                up: z(&self.mlp.up),
                down: z(&self.mlp.down),
            },
            attn_norm: z(&self.attn_norm),
            mlp_norm: z(&self.mlp_norm),
            attn_out_norm: z(&self.attn_out_norm),
            mlp_out_norm: z(&self.mlp_out_norm),
        }
    }

    /// (Hugging Face name, tensor) for every parameter of the layer.
    pub fn named(&self) -> Vec<(&'static str, &[f64])> {
        vec![
            ("self_attn.q_proj", &self.attn.q),
            ("self_attn.k_proj", &self.attn.k),
            ("self_attn.v_proj", &self.attn.v),
            ("self_attn.o_proj", &self.attn.o),
            ("mlp.gate_proj", &self.mlp.gate),
            ("mlp.up_proj", &self.mlp.up),
            ("mlp.down_proj", &self.mlp.down),
            ("input_layernorm", &self.attn_norm),
            ("post_attention_layernorm", &self.mlp_norm),
            ("attn_output_layernorm", &self.attn_out_norm),
            ("mlp_output_layernorm", &self.mlp_out_norm),
        ]
    }

    #[doc(hidden)]
    pub fn named_mut_for_tests(&mut self) -> Vec<&mut Vec<f64>> {
        vec![
            &mut self.attn.q,
            &mut self.attn.k,
            &mut self.attn.v,
            &mut self.attn.o,
            &mut self.mlp.gate,
            &mut self.mlp.up,
            &mut self.mlp.down,
            &mut self.attn_norm,
            &mut self.mlp_norm,
            &mut self.attn_out_norm,
            &mut self.mlp_out_norm,
        ]
    }
}

/// All parameters of the network.
#[derive(Debug, Clone)]
pub struct Weights {
    /// `model.embed_tokens.weight`, vocab x d.
    pub embed: Vec<f64>,
    pub layers: Vec<LayerWeights>,
    /// `model.norm.weight`.
    pub final_norm: Vec<f64>,
    /// `lm_head.weight`, vocab x d; `None` when tied to the embedding.
    pub lm_head: Option<Vec<f64>>,
}

impl Weights {
    /// Every weight's bits in a fixed order (embedding; per layer q, k, v, o, gate, up, down and
    /// the norms' gains; the final norm; the unembedding when untied), through [`digest`]: equal
    /// digests mean the same doubles, which is how the native and the wasm builds are checked to
    /// draw (or load) identical weights for a seed.
    pub fn digest(&self) -> u64 {
        let mut parts: Vec<&[f64]> = vec![&self.embed];
        for l in &self.layers {
            parts.extend([
                &l.attn.q[..],
                &l.attn.k,
                &l.attn.v,
                &l.attn.o,
                &l.mlp.gate,
                &l.mlp.up,
                &l.mlp.down,
                &l.attn_norm,
                &l.mlp_norm,
                &l.attn_out_norm,
                &l.mlp_out_norm,
            ]);
        }
        parts.push(&self.final_norm);
        if let Some(h) = &self.lm_head {
            parts.push(h);
        }
        digest(&parts)
    }
}

/// FNV-1a (64-bit) over the bit patterns of the doubles, in order, with each slice's length
/// mixed in first (so [a][b, c] and [a, b][c] differ). Not cryptographic: it identifies the
/// same data, it does not authenticate it.
pub fn digest(parts: &[&[f64]]) -> u64 {
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |word: u64| {
        for byte in word.to_le_bytes() {
            h ^= u64::from(byte);
            h = h.wrapping_mul(PRIME);
        }
    };
    for part in parts {
        eat(part.len() as u64);
        for x in part.iter() {
            eat(x.to_bits());
        }
    }
    h
}

/// Standard normal draws from ChaCha20 by Box-Muller with `libm`, so the same seed gives the same
/// bits natively and in wasm32.
#[derive(Debug)]
pub struct Gaussian {
    rng: ChaCha20Rng,
    spare: Option<f64>,
}

impl Gaussian {
    pub fn new(seed: u64) -> Gaussian {
        Gaussian {
            rng: ChaCha20Rng::seed_from_u64(seed),
            spare: None,
        }
    }

    /// Uniform in [0, 1) with 53 random bits.
    pub fn uniform(&mut self) -> f64 {
        (self.rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    pub fn normal(&mut self) -> f64 {
        if let Some(z) = self.spare.take() {
            return z;
        }
        let u1 = 1.0 - self.uniform(); // (0, 1]
        let u2 = self.uniform();
        let r = libm::sqrt(-2.0 * libm::log(u1));
        let angle = 2.0 * std::f64::consts::PI * u2;
        self.spare = Some(r * libm::sin(angle));
        r * libm::cos(angle)
    }

    pub fn normals(&mut self, n: usize, std: f64) -> Vec<f64> {
        (0..n).map(|_| std * self.normal()).collect()
    }

    /// A token id in 0..vocab.
    pub fn token(&mut self, vocab: usize) -> u32 {
        ((self.uniform() * vocab as f64) as usize).min(vocab - 1) as u32
    }
}

impl Weights {
    /// Seeded initialisation: every matrix N(0, init_std^2) (output projections / sqrt(2L) with
    /// `scaled_init`), norm gains 1. The draws happen in a fixed order that does not depend on the
    /// placement, the norm or the MLP kind, so every placement is measured on the same network.
    pub fn seeded(cfg: &Config, rng: &mut Gaussian) -> Weights {
        let (d, f, v) = (cfg.d, cfg.d_ff, cfg.vocab);
        let dkv = cfg.kv_heads * cfg.d_head();
        let s = cfg.init_std;
        let s_out = if cfg.scaled_init {
            s / (2.0 * cfg.layers as f64).sqrt()
        } else {
            s
        };
        let embed = rng.normals(v * d, s);
        let layers = (0..cfg.layers)
            .map(|_| LayerWeights {
                attn: AttnWeights {
                    q: rng.normals(d * d, s),
                    k: rng.normals(dkv * d, s),
                    v: rng.normals(dkv * d, s),
                    o: rng.normals(d * d, s_out),
                },
                mlp: MlpWeights {
                    gate: rng.normals(f * d, s),
                    up: rng.normals(f * d, s),
                    down: rng.normals(d * f, s_out),
                },
                attn_norm: vec![1.0; d],
                mlp_norm: vec![1.0; d],
                attn_out_norm: vec![1.0; d],
                mlp_out_norm: vec![1.0; d],
            })
            .collect();
        // The unembedding is drawn last, so a tied network skips its draws without storing
        // them (same generator state after, no vocab x d vector allocated for nothing).
        let lm_head = if cfg.tie_embeddings {
            (0..v * d).for_each(|_| {
                rng.normal();
            });
            None
        } else {
            Some(rng.normals(v * d, s))
        };
        Weights {
            embed,
            layers,
            final_norm: vec![1.0; d],
            lm_head,
        }
    }

    /// The unembedding matrix (vocab x d).
    pub fn unembed(&self) -> &[f64] {
        self.lm_head.as_deref().unwrap_or(&self.embed)
    }
}

#[derive(Debug, Clone)]
pub(crate) enum FCache {
    Attn(AttnCache),
    Mlp(MlpCache),
}

#[derive(Debug, Clone)]
pub(crate) struct SubCache {
    na: NormCache,
    f: FCache,
    nb: Option<NormCache>,
}

/// What one layer's forward pass keeps for its JVP and VJP.
#[derive(Debug, Clone)]
pub struct LayerCache {
    attn: SubCache,
    mlp: SubCache,
}

/// A network ready to run: configuration, weights and the rotary tables.
#[derive(Debug, Clone)]
pub struct Model {
    pub cfg: Config,
    /// Shared, not copied, with the [`crate::LabSpec`] that loaded them (`Arc::make_mut` for a
    /// modified copy, which the forward pass and the loss read; the JVPs and VJPs read the copies
    /// packed by [`Model::new`], so a network with modified weights needs a new model).
    pub weights: Arc<Weights>,
    rope: Rope,
    /// Each layer's matrices packed once for the products of its JVP and VJP (two more copies of
    /// every layer matrix, counted by the memory estimate).
    packed: Vec<(AttnPacked, MlpPacked)>,
}

#[derive(Clone, Copy)]
enum Which {
    Attn,
    Mlp,
}

impl Model {
    pub fn new(cfg: Config, weights: impl Into<Arc<Weights>>) -> Result<Model, LabError> {
        let weights = weights.into();
        cfg.validate()?;
        if weights.layers.len() < cfg.layers {
            return Err(LabError::Inconsistent(format!(
                "layers = {} but the weights have {}",
                cfg.layers,
                weights.layers.len()
            )));
        }
        let rope = Rope::scaled(cfg.tokens, cfg.d_head(), cfg.rope_theta, &cfg.rope_scaling);
        let packed = weights.layers[..cfg.layers]
            .iter()
            .map(|w| {
                (
                    AttnPacked::new(cfg.attn_shape(), &w.attn),
                    MlpPacked::new(cfg.mlp, &w.mlp, cfg.d, cfg.d_ff),
                )
            })
            .collect();
        Ok(Model {
            cfg,
            weights,
            rope,
            packed,
        })
    }

    /// The f64s of the packed copies (checked against the memory estimate).
    #[cfg(test)]
    pub(crate) fn packed_elements(&self) -> usize {
        self.packed
            .iter()
            .map(|(a, m)| a.packed_elements() + m.packed_elements())
            .sum()
    }

    fn norms(&self, l: usize, which: Which) -> (&[f64], &[f64]) {
        let w = &self.weights.layers[l - 1];
        match which {
            Which::Attn => (&w.attn_norm, &w.attn_out_norm),
            Which::Mlp => (&w.mlp_norm, &w.mlp_out_norm),
        }
    }

    fn f_forward(&self, l: usize, which: Which, u: &[f64]) -> (Vec<f64>, FCache) {
        let c = &self.cfg;
        let w = &self.weights.layers[l - 1];
        match which {
            Which::Attn => {
                let (y, k) = attn_forward(c.attn_shape(), &w.attn, &self.rope, u);
                (y, FCache::Attn(k))
            }
            Which::Mlp => {
                let (y, k) = mlp_forward(c.mlp, &w.mlp, u, c.tokens, c.d, c.d_ff);
                (y, FCache::Mlp(k))
            }
        }
    }

    fn f_jvp(&self, l: usize, cache: &FCache, du: &[f64]) -> Vec<f64> {
        let c = &self.cfg;
        let (attn, mlp) = &self.packed[l - 1];
        match cache {
            FCache::Attn(k) => attn_jvp_packed(c.attn_shape(), attn, &self.rope, k, du),
            FCache::Mlp(k) => mlp_jvp_packed(c.mlp, mlp, k, du, c.tokens, c.d, c.d_ff),
        }
    }

    fn f_vjp(
        &self,
        l: usize,
        cache: &FCache,
        g: &[f64],
        gw: Option<&mut LayerWeights>,
    ) -> Vec<f64> {
        let c = &self.cfg;
        let (attn, mlp) = &self.packed[l - 1];
        match cache {
            FCache::Attn(k) => attn_vjp_packed(
                c.attn_shape(),
                attn,
                &self.rope,
                k,
                g,
                gw.map(|g| &mut g.attn),
            ),
            FCache::Mlp(k) => mlp_vjp_packed(
                c.mlp,
                mlp,
                k,
                g,
                c.tokens,
                c.d,
                c.d_ff,
                gw.map(|g| &mut g.mlp),
            ),
        }
    }

    fn sub_forward(&self, l: usize, which: Which, x: &[f64]) -> (Vec<f64>, SubCache) {
        let (d, eps, nk) = (self.cfg.d, self.cfg.eps, self.cfg.norm_kind);
        let (ga, gb) = self.norms(l, which);
        match self.cfg.sub_kind(l) {
            SubKind::Residual { scale, sandwich } => {
                let (mut v, na) = norm_forward(nk, x, ga, d, eps);
                if scale != 1.0 {
                    v.iter_mut().for_each(|e| *e *= scale);
                }
                let (f, fc) = self.f_forward(l, which, &v);
                let (w, nb) = if sandwich {
                    let (w, nb) = norm_forward(nk, &f, gb, d, eps);
                    (w, Some(nb))
                } else {
                    (f, None)
                };
                let mut h = x.to_vec();
                axpy(&mut h, 1.0, &w);
                (h, SubCache { na, f: fc, nb })
            }
            SubKind::Post { alpha } => {
                let (f, fc) = self.f_forward(l, which, x);
                let z: Vec<f64> = x.iter().zip(&f).map(|(a, b)| alpha * a + b).collect();
                let (h, na) = norm_forward(nk, &z, ga, d, eps);
                (
                    h,
                    SubCache {
                        na,
                        f: fc,
                        nb: None,
                    },
                )
            }
        }
    }

    fn sub_jvp(&self, l: usize, which: Which, c: &SubCache, dx: &[f64]) -> Vec<f64> {
        let (d, nk) = (self.cfg.d, self.cfg.norm_kind);
        let (ga, gb) = self.norms(l, which);
        match self.cfg.sub_kind(l) {
            SubKind::Residual { scale, .. } => {
                let mut dv = norm_jvp(nk, &c.na, ga, dx, d);
                if scale != 1.0 {
                    dv.iter_mut().for_each(|e| *e *= scale);
                }
                let df = self.f_jvp(l, &c.f, &dv);
                let dw = match &c.nb {
                    Some(nb) => norm_jvp(nk, nb, gb, &df, d),
                    None => df,
                };
                let mut dh = dx.to_vec();
                axpy(&mut dh, 1.0, &dw);
                dh
            }
            SubKind::Post { alpha } => {
                let df = self.f_jvp(l, &c.f, dx);
                let dz: Vec<f64> = dx.iter().zip(&df).map(|(a, b)| alpha * a + b).collect();
                norm_jvp(nk, &c.na, ga, &dz, d)
            }
        }
    }

    fn sub_vjp(
        &self,
        l: usize,
        which: Which,
        c: &SubCache,
        gh: &[f64],
        mut gw: Option<&mut LayerWeights>,
    ) -> Vec<f64> {
        let (d, nk) = (self.cfg.d, self.cfg.norm_kind);
        let (ga, gb) = self.norms(l, which);
        match self.cfg.sub_kind(l) {
            SubKind::Residual { scale, .. } => {
                let gf = match &c.nb {
                    Some(nb) => {
                        let gg = gw.as_deref_mut().map(|g| match which {
                            Which::Attn => g.attn_out_norm.as_mut_slice(),
                            Which::Mlp => g.mlp_out_norm.as_mut_slice(),
                        });
                        norm_vjp(nk, nb, gb, gh, d, gg)
                    }
                    None => gh.to_vec(),
                };
                let mut gv = self.f_vjp(l, &c.f, &gf, gw.as_deref_mut());
                if scale != 1.0 {
                    gv.iter_mut().for_each(|e| *e *= scale);
                }
                let gg = gw.map(|g| match which {
                    Which::Attn => g.attn_norm.as_mut_slice(),
                    Which::Mlp => g.mlp_norm.as_mut_slice(),
                });
                let mut gx = norm_vjp(nk, &c.na, ga, &gv, d, gg);
                axpy(&mut gx, 1.0, gh);
                gx
            }
            SubKind::Post { alpha } => {
                let gg = gw.as_deref_mut().map(|g| match which {
                    Which::Attn => g.attn_norm.as_mut_slice(),
                    Which::Mlp => g.mlp_norm.as_mut_slice(),
                });
                let gz = norm_vjp(nk, &c.na, ga, gh, d, gg);
                let mut gx = self.f_vjp(l, &c.f, &gz, gw);
                axpy(&mut gx, alpha, &gz);
                gx
            }
        }
    }

    /// x_(l+1) from x_l (l 1-based), with what the derivatives need.
    pub fn layer_forward(&self, l: usize, x: &[f64]) -> (Vec<f64>, LayerCache) {
        let (h, attn) = self.sub_forward(l, Which::Attn, x);
        let (y, mlp) = self.sub_forward(l, Which::Mlp, &h);
        (y, LayerCache { attn, mlp })
    }

    /// J_l dx, J_l = d x_(l+1) / d x_l.
    pub fn layer_jvp(&self, l: usize, c: &LayerCache, dx: &[f64]) -> Vec<f64> {
        debug_assert_eq!(dx.len(), self.cfg.tokens * self.cfg.d);
        self.layer_jvp_batch(l, c, dx)
    }

    /// J_l applied to k tangents at once: `dxs` holds them back to back (k T d values, tangent b
    /// at b T d), and so does the result. The weight products are then (k T)-row GEMMs instead of
    /// k T-row ones ([`crate::ops`]), which run a little nearer the product's peak rate. Every
    /// tangent goes through the same operations as in [`Model::layer_jvp`], and the product sums
    /// each entry in one order whatever its row count ([`crate::linalg`]), so the results are
    /// the single pass's bit for bit (tests/batched.rs).
    pub fn layer_jvp_batch(&self, l: usize, c: &LayerCache, dxs: &[f64]) -> Vec<f64> {
        assert_eq!(
            dxs.len() % (self.cfg.tokens * self.cfg.d),
            0,
            "k stacked T x d tangents"
        );
        let count = dxs.len() / (self.cfg.tokens * self.cfg.d);
        LAYER_PASSES.fetch_add(count as u64, Ordering::Relaxed);
        let dh = self.sub_jvp(l, Which::Attn, &c.attn, dxs);
        self.sub_jvp(l, Which::Mlp, &c.mlp, &dh)
    }

    /// J_l^T applied to k cotangents at once, stacked as in [`Model::layer_jvp_batch`].
    pub fn layer_vjp_batch(&self, l: usize, c: &LayerCache, gys: &[f64]) -> Vec<f64> {
        assert_eq!(
            gys.len() % (self.cfg.tokens * self.cfg.d),
            0,
            "k stacked T x d cotangents"
        );
        let count = gys.len() / (self.cfg.tokens * self.cfg.d);
        LAYER_PASSES.fetch_add(count as u64, Ordering::Relaxed);
        let gh = self.sub_vjp(l, Which::Mlp, &c.mlp, gys, None);
        self.sub_vjp(l, Which::Attn, &c.attn, &gh, None)
    }

    /// J_l^T gy; with `gw`, adds the cotangents of layer l's parameters.
    pub fn layer_vjp(
        &self,
        l: usize,
        c: &LayerCache,
        gy: &[f64],
        mut gw: Option<&mut LayerWeights>,
    ) -> Vec<f64> {
        debug_assert_eq!(gy.len(), self.cfg.tokens * self.cfg.d);
        LAYER_PASSES.fetch_add(1, Ordering::Relaxed);
        let gh = self.sub_vjp(l, Which::Mlp, &c.mlp, gy, gw.as_deref_mut());
        self.sub_vjp(l, Which::Attn, &c.attn, &gh, gw)
    }

    /// x_1 for token ids: rows of the embedding.
    pub fn embed(&self, ids: &[u32]) -> Vec<f64> {
        let d = self.cfg.d;
        let mut x = Vec::with_capacity(ids.len() * d);
        for &id in ids {
            let r = id as usize;
            x.extend_from_slice(&self.weights.embed[r * d..(r + 1) * d]);
        }
        x
    }

    /// x_1, ..., x_(L+1) and each layer's cache.
    pub fn forward(&self, x1: &[f64]) -> (Vec<Vec<f64>>, Vec<LayerCache>) {
        let mut xs = vec![x1.to_vec()];
        let mut caches = Vec::with_capacity(self.cfg.layers);
        for l in 1..=self.cfg.layers {
            let (y, c) = self.layer_forward(l, &xs[l - 1]);
            xs.push(y);
            caches.push(c);
        }
        (xs, caches)
    }

    /// Mean next-token cross-entropy over positions 0..T-2 (targets ids[t+1]) of
    /// logits = final_norm(x_(L+1)) U^T, and its gradient with respect to x_(L+1).
    pub fn loss_and_grad(&self, x_last: &[f64], ids: &[u32]) -> (f64, Vec<f64>) {
        let c = &self.cfg;
        let (t_n, d, v) = (c.tokens, c.d, c.vocab);
        let (h, nc) = norm_forward(c.norm_kind, x_last, &self.weights.final_norm, d, c.eps);
        let u = self.weights.unembed();
        let logits = crate::linalg::linear(&h, u, t_n, d, v);
        let count = (t_n - 1) as f64;
        let mut loss = 0.0;
        let mut g_logits = vec![0.0; t_n * v];
        for t in 0..t_n - 1 {
            let row = &logits[t * v..(t + 1) * v];
            let mx = row.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let z: f64 = row.iter().map(|&a| libm::exp(a - mx)).sum();
            let target = ids[t + 1] as usize;
            loss += mx + libm::log(z) - row[target];
            let g = &mut g_logits[t * v..(t + 1) * v];
            for j in 0..v {
                g[j] = libm::exp(row[j] - mx) / z / count;
            }
            g[target] -= 1.0 / count;
        }
        let gh = crate::linalg::linear_t(&g_logits, u, t_n, d, v);
        let gx = norm_vjp(c.norm_kind, &nc, &self.weights.final_norm, &gh, d, None);
        (loss / count, gx)
    }
}
