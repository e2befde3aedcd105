//! The primitive operations of a decoder block, each with a forward pass that records what its
//! derivatives need, a JVP (tangent in, tangent out) and a VJP (cotangent in, cotangent out, plus
//! the parameter cotangents). Tensors are row-major T x n slices, one row per token.
//!
//! Batches: every JVP and VJP also takes k tangents (cotangents) at once, stacked as a (k T) x n
//! matrix (tangent b in rows b T .. (b + 1) T), and returns the k results stacked the same way.
//! The weight products then are one (k T)-row GEMM instead of k T-row ones; the row-wise parts
//! read the forward cache at row `r % T`, and attention's token mixing runs per tangent.
//! Parameter cotangents are only taken with k = 1.
//!
//! Transcendental functions come from `libm` so that native and wasm32 builds compute the same
//! bits for the same inputs (the platform libm differs between the two).

use crate::error::LabError;
use crate::linalg::{
    axpy, dot, dot_lanes, linear, linear_grad_w, linear_packed, packed_len, PackedB,
};

/// Which normalisation: RMSNorm (LLaMA) or LayerNorm without bias.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NormKind {
    /// y = x / sqrt(mean(x^2) + eps) * g.
    Rms,
    /// y = (x - mean x) / sqrt(mean((x - mean x)^2) + eps) * g.
    Layer,
}

/// A row-wise norm applied to T x d, with what its derivatives need: the normalised rows n_hat and
/// the per-row scale r (the RMS, or the standard deviation for LayerNorm).
#[derive(Debug, Clone)]
pub struct NormCache {
    pub n_hat: Vec<f64>,
    pub r: Vec<f64>,
}

pub fn norm_forward(
    kind: NormKind,
    x: &[f64],
    g: &[f64],
    d: usize,
    eps: f64,
) -> (Vec<f64>, NormCache) {
    let rows = x.len() / d;
    let mut n_hat = vec![0.0; x.len()];
    let mut r = vec![0.0; rows];
    let mut y = vec![0.0; x.len()];
    for t in 0..rows {
        let row = &x[t * d..(t + 1) * d];
        let mean = match kind {
            NormKind::Rms => 0.0,
            NormKind::Layer => row.iter().sum::<f64>() / d as f64,
        };
        let ms = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / d as f64;
        let rt = (ms + eps).sqrt();
        r[t] = rt;
        for i in 0..d {
            let nh = (row[i] - mean) / rt;
            n_hat[t * d + i] = nh;
            y[t * d + i] = nh * g[i];
        }
    }
    (y, NormCache { n_hat, r })
}

/// The symmetric per-row projection P v = (v' - n_hat mean(n_hat v')) / r, v' = v (RMS) or
/// v - mean v (Layer). Both the JVP and (being symmetric) the VJP of the normalisation.
fn norm_project(kind: NormKind, c: &NormCache, v: &[f64], d: usize) -> Vec<f64> {
    let rows = v.len() / d;
    let tokens = c.r.len();
    let mut out = vec![0.0; v.len()];
    for row in 0..rows {
        let t = row % tokens;
        let vr = &v[row * d..(row + 1) * d];
        let nh = &c.n_hat[t * d..(t + 1) * d];
        let vmean = match kind {
            NormKind::Rms => 0.0,
            NormKind::Layer => vr.iter().sum::<f64>() / d as f64,
        };
        let proj = match kind {
            NormKind::Rms => dot(nh, vr),
            NormKind::Layer => nh.iter().zip(vr).map(|(a, b)| a * (b - vmean)).sum::<f64>(),
        } / d as f64;
        let o = &mut out[row * d..(row + 1) * d];
        for i in 0..d {
            o[i] = (vr[i] - vmean - nh[i] * proj) / c.r[t];
        }
        if kind == NormKind::Layer {
            // Projection onto zero-mean rows: P = C (I - n n^T/d) C / r with C the centring.
            let m = o.iter().sum::<f64>() / d as f64;
            for oi in o.iter_mut() {
                *oi -= m;
            }
        }
    }
    out
}

/// Tangent of the norm's output for an input tangent dx (gain held fixed).
pub fn norm_jvp(kind: NormKind, c: &NormCache, g: &[f64], dx: &[f64], d: usize) -> Vec<f64> {
    let mut out = norm_project(kind, c, dx, d);
    for (i, o) in out.iter_mut().enumerate() {
        *o *= g[i % d];
    }
    out
}

/// Input cotangent of the norm for an output cotangent gy; adds the gain's cotangent to `gg`.
pub fn norm_vjp(
    kind: NormKind,
    c: &NormCache,
    g: &[f64],
    gy: &[f64],
    d: usize,
    gg: Option<&mut [f64]>,
) -> Vec<f64> {
    if let Some(gg) = gg {
        debug_assert_eq!(
            gy.len(),
            c.n_hat.len(),
            "gain cotangents of one cotangent only"
        );
        for (i, (a, b)) in gy.iter().zip(&c.n_hat).enumerate() {
            gg[i % d] += a * b;
        }
    }
    let scaled: Vec<f64> = gy.iter().enumerate().map(|(i, v)| v * g[i % d]).collect();
    norm_project(kind, c, &scaled, d)
}

/// How the rotary frequencies are scaled: Hugging Face's `rope_type` with the parameters its
/// `modeling_rope_utils` reads for that type (docs/MATH.md, section 9, "Rotary frequencies"). The
/// types not listed here (`dynamic`, `yarn`, `longrope`, ...) are refused when a checkpoint is
/// loaded ([`crate::load`]), never run as one of these.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize, serde::Deserialize)]
#[serde(tag = "rope_type", rename_all = "lowercase")]
pub enum RopeScaling {
    /// omega_i = theta^(-2i/d_head).
    #[default]
    Default,
    /// omega_i = theta^(-2i/d_head) / factor (`_compute_linear_scaling_rope_parameters`).
    Linear { factor: f64 },
    /// Llama 3.1's banded scaling (`_compute_llama3_parameters`): with wavelength
    /// lambda_i = 2 pi / omega_i, frequencies whose wavelength exceeds
    /// original_max_position_embeddings / low_freq_factor are divided by `factor`, those below
    /// original_max_position_embeddings / high_freq_factor are kept, and those between are
    /// interpolated: (1 - s) omega_i / factor + s omega_i with
    /// s = (original_max_position_embeddings / lambda_i - low_freq_factor) /
    /// (high_freq_factor - low_freq_factor).
    Llama3 {
        factor: f64,
        low_freq_factor: f64,
        high_freq_factor: f64,
        original_max_position_embeddings: f64,
    },
}

impl RopeScaling {
    /// Hugging Face's name of the type (`rope_type`).
    pub fn name(&self) -> &'static str {
        match self {
            RopeScaling::Default => "default",
            RopeScaling::Linear { .. } => "linear",
            RopeScaling::Llama3 { .. } => "llama3",
        }
    }

    /// Checks the parameters the formulas divide by: `factor` and `low_freq_factor` finite and
    /// positive, `high_freq_factor` finite and above `low_freq_factor` (the interpolation divides
    /// by their difference), `original_max_position_embeddings` finite and positive. (Hugging Face
    /// only warns about these and computes infinities or NaN; the lab refuses them.)
    pub fn validate(&self) -> Result<(), LabError> {
        let positive = |name: &'static str, v: f64| {
            if v.is_finite() && v > 0.0 {
                Ok(())
            } else {
                Err(LabError::OutOfRange {
                    name,
                    value: format!("{v}"),
                    range: "a finite number above 0".into(),
                })
            }
        };
        match *self {
            RopeScaling::Default => Ok(()),
            RopeScaling::Linear { factor } => positive("rope_parameters.factor", factor),
            RopeScaling::Llama3 {
                factor,
                low_freq_factor,
                high_freq_factor,
                original_max_position_embeddings,
            } => {
                positive("rope_parameters.factor", factor)?;
                positive("rope_parameters.low_freq_factor", low_freq_factor)?;
                positive(
                    "rope_parameters.original_max_position_embeddings",
                    original_max_position_embeddings,
                )?;
                if high_freq_factor.is_finite() && high_freq_factor > low_freq_factor {
                    Ok(())
                } else {
                    Err(LabError::OutOfRange {
                        name: "rope_parameters.high_freq_factor",
                        value: format!("{high_freq_factor}"),
                        range: format!("a finite number above low_freq_factor = {low_freq_factor}"),
                    })
                }
            }
        }
    }
}

/// The rotary inverse frequencies omega_i, i < d_head / 2, of `theta` under `scaling`
/// ([`RopeScaling`]), computed by the same double operations in the same order as Hugging Face's
/// functions compute them (there in float32: its tensors are float32 whatever the model's dtype):
/// omega_i = 1 / theta^((2i) / d_head), then the scaling's formula.
pub fn rope_inv_freq(d_head: usize, theta: f64, scaling: &RopeScaling) -> Vec<f64> {
    let plain = (0..d_head / 2).map(|i| 1.0 / libm::pow(theta, (2 * i) as f64 / d_head as f64));
    match *scaling {
        RopeScaling::Default => plain.collect(),
        RopeScaling::Linear { factor } => plain.map(|w| w / factor).collect(),
        RopeScaling::Llama3 {
            factor,
            low_freq_factor,
            high_freq_factor,
            original_max_position_embeddings: old,
        } => {
            let low_freq_wavelen = old / low_freq_factor;
            let high_freq_wavelen = old / high_freq_factor;
            plain
                .map(|w| {
                    let wavelen = 2.0 * std::f64::consts::PI / w;
                    if wavelen > low_freq_wavelen {
                        w / factor
                    } else if wavelen < high_freq_wavelen {
                        w
                    } else {
                        let smooth = (old / wavelen - low_freq_factor)
                            / (high_freq_factor - low_freq_factor);
                        (1.0 - smooth) * w / factor + smooth * w
                    }
                })
                .collect()
        }
    }
}

/// Rotary angles cos/sin for positions 0..T and the inverse frequencies of [`rope_inv_freq`]
/// (Hugging Face's rotate_half convention: pairs (i, i + d_head/2)).
#[derive(Debug, Clone)]
pub struct Rope {
    pub cos: Vec<f64>,
    pub sin: Vec<f64>,
    pub half: usize,
}

impl Rope {
    /// Plain rotary embeddings, omega_i = theta^(-2i/d_head).
    pub fn new(tokens: usize, d_head: usize, theta: f64) -> Rope {
        Rope::scaled(tokens, d_head, theta, &RopeScaling::Default)
    }

    /// Rotary embeddings with the frequencies of [`rope_inv_freq`]: angle t omega_i at position t.
    pub fn scaled(tokens: usize, d_head: usize, theta: f64, scaling: &RopeScaling) -> Rope {
        let half = d_head / 2;
        let inv_freq = rope_inv_freq(d_head, theta, scaling);
        let mut cos = vec![0.0; tokens * half];
        let mut sin = vec![0.0; tokens * half];
        for (i, &w) in inv_freq.iter().enumerate() {
            for t in 0..tokens {
                let angle = t as f64 * w;
                cos[t * half + i] = libm::cos(angle);
                sin[t * half + i] = libm::sin(angle);
            }
        }
        Rope { cos, sin, half }
    }

    /// Rotates every head of x (T x heads*d_head, or k such stacked: row r is token r % T) in
    /// place; `inverse` rotates by minus the angle (the transpose, used by the VJP).
    pub fn apply(&self, x: &mut [f64], heads: usize, inverse: bool) {
        let half = self.half;
        let dh = 2 * half;
        let width = heads * dh;
        let rows = x.len() / width;
        let tokens = self.cos.len() / half.max(1);
        let sign = if inverse { -1.0 } else { 1.0 };
        for r in 0..rows {
            let t = r % tokens;
            for h in 0..heads {
                let base = r * width + h * dh;
                for i in 0..half {
                    let (c, s) = (self.cos[t * half + i], sign * self.sin[t * half + i]);
                    let a = x[base + i];
                    let b = x[base + half + i];
                    x[base + i] = a * c - b * s;
                    x[base + half + i] = b * c + a * s;
                }
            }
        }
    }
}

/// Attention weights: q_proj, k_proj, v_proj (kv_heads*d_head x d for k and v), o_proj.
#[derive(Debug, Clone)]
pub struct AttnWeights {
    pub q: Vec<f64>,
    pub k: Vec<f64>,
    pub v: Vec<f64>,
    pub o: Vec<f64>,
}

/// Shapes of the attention: tokens, width d, heads, key/value heads, head width.
#[derive(Debug, Clone, Copy)]
pub struct AttnShape {
    pub tokens: usize,
    pub d: usize,
    pub heads: usize,
    pub kv_heads: usize,
    pub d_head: usize,
}

/// The attention's matrices packed once for its JVP and VJP ([`crate::linalg::PackedB`]; the
/// model builds one per layer). The input products u W_q^T, u W_k^T, u W_v^T are one product
/// with the three matrices stacked: each entry is the same dot product, summed in the same order,
/// so the results are those of the three products bit for bit. The VJP's input products stay
/// three (their sum is formed as before, so its rounding is unchanged).
#[derive(Debug, Clone)]
pub struct AttnPacked {
    /// [W_q; W_k; W_v] for u [W_q; W_k; W_v]^T.
    qkv_t: PackedB,
    /// W_o for o W_o^T.
    o_t: PackedB,
    /// W_q, W_k, W_v and W_o for g W (the VJP).
    q: PackedB,
    k: PackedB,
    v: PackedB,
    o: PackedB,
}

impl AttnPacked {
    pub fn new(s: AttnShape, w: &AttnWeights) -> AttnPacked {
        let (d, qw, kw) = (s.d, s.heads * s.d_head, s.kv_heads * s.d_head);
        let stacked = [&w.q[..], &w.k, &w.v].concat();
        AttnPacked {
            qkv_t: PackedB::new(&stacked, d, qw + 2 * kw, true),
            o_t: PackedB::new(&w.o, qw, d, true),
            q: PackedB::new(&w.q, qw, d, false),
            k: PackedB::new(&w.k, kw, d, false),
            v: PackedB::new(&w.v, kw, d, false),
            o: PackedB::new(&w.o, d, qw, false),
        }
    }

    #[cfg(test)]
    pub(crate) fn packed_elements(&self) -> usize {
        [&self.qkv_t, &self.o_t, &self.q, &self.k, &self.v, &self.o]
            .iter()
            .map(|p| p.len())
            .sum()
    }

    /// The f64s [`AttnPacked::new`] allocates for a layer of shape `s` (the memory estimate).
    pub(crate) fn elements(s: AttnShape) -> usize {
        let (d, qw, kw) = (s.d, s.heads * s.d_head, s.kv_heads * s.d_head);
        packed_len(d, qw + 2 * kw)
            + packed_len(qw, d)
            + packed_len(qw, d)
            + 2 * packed_len(kw, d)
            + packed_len(d, qw)
    }
}

/// The columns `at..at + width` of a row-major matrix `width_all` wide, as their own matrix.
fn columns(m: &[f64], width_all: usize, at: usize, width: usize) -> Vec<f64> {
    let mut out = Vec::with_capacity(m.len() / width_all * width);
    for row in m.chunks_exact(width_all) {
        out.extend_from_slice(&row[at..at + width]);
    }
    out
}

#[derive(Debug, Clone)]
pub struct AttnCache {
    u: Vec<f64>,
    /// Rotated queries and keys, values, softmax probabilities (heads x T x T), concatenated heads.
    q: Vec<f64>,
    k: Vec<f64>,
    v: Vec<f64>,
    p: Vec<f64>,
    o: Vec<f64>,
}

/// Per-head slice helpers: element (t, j) of head h in a T x (heads*d_head) matrix.
#[inline]
fn at(t: usize, h: usize, j: usize, heads: usize, dh: usize) -> usize {
    t * heads * dh + h * dh + j
}

/// Causal multi-head attention: out = concat_h(softmax(Q_h K_h^T / sqrt(d_head) + mask) V_h) W_o^T,
/// with Q = rope(u W_q^T), K = rope(u W_k^T), V = u W_v^T.
pub fn attn_forward(
    s: AttnShape,
    w: &AttnWeights,
    rope: &Rope,
    u: &[f64],
) -> (Vec<f64>, AttnCache) {
    let (t_n, d, hn, kvn, dh) = (s.tokens, s.d, s.heads, s.kv_heads, s.d_head);
    let mut q = linear(u, &w.q, t_n, d, hn * dh);
    let mut k = linear(u, &w.k, t_n, d, kvn * dh);
    let v = linear(u, &w.v, t_n, d, kvn * dh);
    rope.apply(&mut q, hn, false);
    rope.apply(&mut k, kvn, false);
    let scale = 1.0 / (dh as f64).sqrt();
    let group = hn / kvn;
    let mut p = vec![0.0; hn * t_n * t_n];
    let mut o = vec![0.0; t_n * hn * dh];
    for h in 0..hn {
        let kh = h / group;
        for i in 0..t_n {
            let row = &mut p[(h * t_n + i) * t_n..(h * t_n + i + 1) * t_n];
            let mut mx = f64::NEG_INFINITY;
            for j in 0..=i {
                let mut sc = 0.0;
                for e in 0..dh {
                    sc += q[at(i, h, e, hn, dh)] * k[at(j, kh, e, kvn, dh)];
                }
                row[j] = sc * scale;
                mx = mx.max(row[j]);
            }
            let mut z = 0.0;
            for pj in row.iter_mut().take(i + 1) {
                *pj = libm::exp(*pj - mx);
                z += *pj;
            }
            for pj in row.iter_mut().take(i + 1) {
                *pj /= z;
            }
            for j in 0..=i {
                let pij = row[j];
                for e in 0..dh {
                    o[at(i, h, e, hn, dh)] += pij * v[at(j, kh, e, kvn, dh)];
                }
            }
        }
    }
    let out = linear(&o, &w.o, t_n, hn * dh, d);
    (
        out,
        AttnCache {
            u: u.to_vec(),
            q,
            k,
            v,
            p,
            o,
        },
    )
}

/// The attention's JVP for k tangents `du` ((k T) x d, see the module doc).
pub fn attn_jvp(s: AttnShape, w: &AttnWeights, rope: &Rope, c: &AttnCache, du: &[f64]) -> Vec<f64> {
    attn_jvp_packed(s, &AttnPacked::new(s, w), rope, c, du)
}

/// [`attn_jvp`] with the matrices packed beforehand: the same bits.
pub(crate) fn attn_jvp_packed(
    s: AttnShape,
    w: &AttnPacked,
    rope: &Rope,
    c: &AttnCache,
    du: &[f64],
) -> Vec<f64> {
    let (t_n, d, hn, kvn, dh) = (s.tokens, s.d, s.heads, s.kv_heads, s.d_head);
    let rows = du.len() / d;
    let qkv = linear_packed(du, &w.qkv_t, rows);
    let all = w.qkv_t.cols();
    let mut dq = columns(&qkv, all, 0, hn * dh);
    let mut dk = columns(&qkv, all, hn * dh, kvn * dh);
    let dv = columns(&qkv, all, hn * dh + kvn * dh, kvn * dh);
    rope.apply(&mut dq, hn, false);
    rope.apply(&mut dk, kvn, false);
    let scale = 1.0 / (dh as f64).sqrt();
    let group = hn / kvn;
    let (qw, kw) = (hn * dh, kvn * dh);
    let mut d_o = vec![0.0; rows * qw];
    let mut ds = vec![0.0; t_n];
    for b in 0..rows / t_n {
        let (dq, dk, dv) = (
            &dq[b * t_n * qw..(b + 1) * t_n * qw],
            &dk[b * t_n * kw..(b + 1) * t_n * kw],
            &dv[b * t_n * kw..(b + 1) * t_n * kw],
        );
        let d_o = &mut d_o[b * t_n * qw..(b + 1) * t_n * qw];
        for h in 0..hn {
            let kh = h / group;
            for i in 0..t_n {
                let prow = &c.p[(h * t_n + i) * t_n..(h * t_n + i + 1) * t_n];
                let qi = &c.q[i * qw + h * dh..i * qw + (h + 1) * dh];
                let dqi = &dq[i * qw + h * dh..i * qw + (h + 1) * dh];
                let mut mean = 0.0;
                for j in 0..=i {
                    let kj = &c.k[j * kw + kh * dh..j * kw + (kh + 1) * dh];
                    let dkj = &dk[j * kw + kh * dh..j * kw + (kh + 1) * dh];
                    ds[j] = (dot_lanes::<4>(dqi, kj) + dot_lanes::<4>(qi, dkj)) * scale;
                    mean += prow[j] * ds[j];
                }
                let doi = &mut d_o[i * qw + h * dh..i * qw + (h + 1) * dh];
                for j in 0..=i {
                    // dP = P (dS - sum_j P dS); dO = dP V + P dV.
                    let dp = prow[j] * (ds[j] - mean);
                    axpy(doi, dp, &c.v[j * kw + kh * dh..j * kw + (kh + 1) * dh]);
                    axpy(doi, prow[j], &dv[j * kw + kh * dh..j * kw + (kh + 1) * dh]);
                }
            }
        }
    }
    linear_packed(&d_o, &w.o_t, rows)
}

/// The attention's VJP for k cotangents `gout` ((k T) x d); with `gw` (k = 1 only) adds the
/// parameter cotangents (same layout as [`AttnWeights`]).
pub fn attn_vjp(
    s: AttnShape,
    w: &AttnWeights,
    rope: &Rope,
    c: &AttnCache,
    gout: &[f64],
    gw: Option<&mut AttnWeights>,
) -> Vec<f64> {
    attn_vjp_packed(s, &AttnPacked::new(s, w), rope, c, gout, gw)
}

/// [`attn_vjp`] with the matrices packed beforehand: the same bits.
pub(crate) fn attn_vjp_packed(
    s: AttnShape,
    w: &AttnPacked,
    rope: &Rope,
    c: &AttnCache,
    gout: &[f64],
    gw: Option<&mut AttnWeights>,
) -> Vec<f64> {
    let (t_n, d, hn, kvn, dh) = (s.tokens, s.d, s.heads, s.kv_heads, s.d_head);
    let rows = gout.len() / d;
    let g_o = linear_packed(gout, &w.o, rows);
    let scale = 1.0 / (dh as f64).sqrt();
    let group = hn / kvn;
    let (qw, kw) = (hn * dh, kvn * dh);
    let mut gq = vec![0.0; rows * qw];
    let mut gk = vec![0.0; rows * kw];
    let mut gv = vec![0.0; rows * kw];
    let mut gp = vec![0.0; t_n];
    for b in 0..rows / t_n {
        let g_o = &g_o[b * t_n * qw..(b + 1) * t_n * qw];
        let gq = &mut gq[b * t_n * qw..(b + 1) * t_n * qw];
        let gk = &mut gk[b * t_n * kw..(b + 1) * t_n * kw];
        let gv = &mut gv[b * t_n * kw..(b + 1) * t_n * kw];
        for h in 0..hn {
            let kh = h / group;
            for i in 0..t_n {
                let prow = &c.p[(h * t_n + i) * t_n..(h * t_n + i + 1) * t_n];
                let goi = &g_o[i * qw + h * dh..i * qw + (h + 1) * dh];
                let mut mean = 0.0;
                for j in 0..=i {
                    let hj = j * kw + kh * dh..j * kw + (kh + 1) * dh;
                    let sc = dot_lanes::<4>(goi, &c.v[hj.clone()]);
                    gp[j] = sc;
                    mean += prow[j] * sc;
                    axpy(&mut gv[hj], prow[j], goi);
                }
                let qi = &c.q[i * qw + h * dh..i * qw + (h + 1) * dh];
                for j in 0..=i {
                    let hj = j * kw + kh * dh..j * kw + (kh + 1) * dh;
                    let gs = prow[j] * (gp[j] - mean) * scale;
                    axpy(
                        &mut gq[i * qw + h * dh..i * qw + (h + 1) * dh],
                        gs,
                        &c.k[hj.clone()],
                    );
                    axpy(&mut gk[hj], gs, qi);
                }
            }
        }
    }
    rope.apply(&mut gq, hn, true);
    rope.apply(&mut gk, kvn, true);
    let mut gu = linear_packed(&gq, &w.q, rows);
    let gu_k = linear_packed(&gk, &w.k, rows);
    let gu_v = linear_packed(&gv, &w.v, rows);
    for i in 0..gu.len() {
        gu[i] += gu_k[i] + gu_v[i];
    }
    if let Some(gw) = gw {
        assert_eq!(rows, t_n, "parameter cotangents of one cotangent only");
        linear_grad_w(&mut gw.q, &gq, &c.u, t_n, d, hn * dh);
        linear_grad_w(&mut gw.k, &gk, &c.u, t_n, d, kvn * dh);
        linear_grad_w(&mut gw.v, &gv, &c.u, t_n, d, kvn * dh);
        linear_grad_w(&mut gw.o, gout, &c.o, t_n, hn * dh, d);
    }
    gu
}

/// Which MLP: SwiGLU down(silu(gate u) * up u) (LLaMA), or GELU down(gelu(up u)) (tanh form).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MlpKind {
    SwiGlu,
    Gelu,
}

/// MLP weights: gate_proj and up_proj (d_ff x d), down_proj (d x d_ff). GELU ignores `gate`.
#[derive(Debug, Clone)]
pub struct MlpWeights {
    pub gate: Vec<f64>,
    pub up: Vec<f64>,
    pub down: Vec<f64>,
}

/// The MLP's matrices packed once for its JVP and VJP (see [`AttnPacked`]): the input products
/// u W_gate^T and u W_up^T as one product with the two matrices stacked (GELU: u W_up^T alone),
/// the same bits as two.
#[derive(Debug, Clone)]
pub struct MlpPacked {
    /// [W_gate; W_up] (SwiGLU) or W_up (GELU) for u W^T.
    gate_up_t: PackedB,
    /// W_down for m W_down^T.
    down_t: PackedB,
    /// W_up, W_gate (SwiGLU only) and W_down for g W (the VJP).
    up: PackedB,
    gate: Option<PackedB>,
    down: PackedB,
}

impl MlpPacked {
    pub fn new(kind: MlpKind, w: &MlpWeights, d: usize, d_ff: usize) -> MlpPacked {
        let swiglu = kind == MlpKind::SwiGlu;
        let gate_up_t = if swiglu {
            PackedB::new(&[&w.gate[..], &w.up].concat(), d, 2 * d_ff, true)
        } else {
            PackedB::new(&w.up, d, d_ff, true)
        };
        MlpPacked {
            gate_up_t,
            down_t: PackedB::new(&w.down, d_ff, d, true),
            up: PackedB::new(&w.up, d_ff, d, false),
            gate: swiglu.then(|| PackedB::new(&w.gate, d_ff, d, false)),
            down: PackedB::new(&w.down, d, d_ff, false),
        }
    }

    #[cfg(test)]
    pub(crate) fn packed_elements(&self) -> usize {
        [&self.gate_up_t, &self.down_t, &self.up, &self.down]
            .iter()
            .map(|p| p.len())
            .sum::<usize>()
            + self.gate.as_ref().map_or(0, |g| g.len())
    }

    /// The f64s [`MlpPacked::new`] allocates (the memory estimate).
    pub(crate) fn elements(kind: MlpKind, d: usize, d_ff: usize) -> usize {
        let swiglu = kind == MlpKind::SwiGlu;
        packed_len(d, if swiglu { 2 * d_ff } else { d_ff })
            + packed_len(d_ff, d)
            + packed_len(d_ff, d) * if swiglu { 2 } else { 1 }
            + packed_len(d, d_ff)
    }
}

#[derive(Debug, Clone)]
pub struct MlpCache {
    u: Vec<f64>,
    b: Vec<f64>,
    m: Vec<f64>,
    /// SwiGLU: silu(a) (a = gate u); GELU: empty.
    act: Vec<f64>,
    /// SwiGLU: silu'(a); GELU: gelu'(b). Kept so that the JVP and VJP, applied dozens of times
    /// per layer by the Lanczos iterations, do not recompute the exponentials.
    act_d: Vec<f64>,
}

/// sigmoid via libm for portable bits.
#[inline]
pub fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + libm::exp(-x))
}

/// silu(a) = a sigmoid(a) and its derivative sigmoid(a) (1 + a (1 - sigmoid(a))).
#[inline]
pub fn silu_and_derivative(a: f64) -> (f64, f64) {
    let s = sigmoid(a);
    (a * s, s * (1.0 + a * (1.0 - s)))
}

const GELU_K: f64 = 0.797_884_560_802_865_4; // sqrt(2/pi)
const GELU_C: f64 = 0.044_715;

/// gelu(a) = a/2 (1 + tanh(k (a + 0.044715 a^3))), k = sqrt(2/pi), and its derivative.
#[inline]
pub fn gelu_and_derivative(a: f64) -> (f64, f64) {
    let th = libm::tanh(GELU_K * (a + GELU_C * a * a * a));
    let value = 0.5 * a * (1.0 + th);
    let deriv =
        0.5 * (1.0 + th) + 0.5 * a * (1.0 - th * th) * GELU_K * (1.0 + 3.0 * GELU_C * a * a);
    (value, deriv)
}

pub fn mlp_forward(
    kind: MlpKind,
    w: &MlpWeights,
    u: &[f64],
    tokens: usize,
    d: usize,
    d_ff: usize,
) -> (Vec<f64>, MlpCache) {
    let b = linear(u, &w.up, tokens, d, d_ff);
    let (m, act, act_d): (Vec<f64>, Vec<f64>, Vec<f64>) = match kind {
        MlpKind::SwiGlu => {
            let a = linear(u, &w.gate, tokens, d, d_ff);
            let (act, act_d): (Vec<f64>, Vec<f64>) =
                a.iter().map(|&ai| silu_and_derivative(ai)).unzip();
            let m = act.iter().zip(&b).map(|(&s, &bi)| s * bi).collect();
            (m, act, act_d)
        }
        MlpKind::Gelu => {
            let (m, act_d): (Vec<f64>, Vec<f64>) =
                b.iter().map(|&bi| gelu_and_derivative(bi)).unzip();
            (m, Vec::new(), act_d)
        }
    };
    let out = linear(&m, &w.down, tokens, d_ff, d);
    (
        out,
        MlpCache {
            u: u.to_vec(),
            b,
            m,
            act,
            act_d,
        },
    )
}

/// The MLP's JVP for k tangents `du` ((k T) x d, see the module doc).
pub fn mlp_jvp(
    kind: MlpKind,
    w: &MlpWeights,
    c: &MlpCache,
    du: &[f64],
    tokens: usize,
    d: usize,
    d_ff: usize,
) -> Vec<f64> {
    mlp_jvp_packed(
        kind,
        &MlpPacked::new(kind, w, d, d_ff),
        c,
        du,
        tokens,
        d,
        d_ff,
    )
}

/// [`mlp_jvp`] with the matrices packed beforehand: the same bits.
pub(crate) fn mlp_jvp_packed(
    kind: MlpKind,
    w: &MlpPacked,
    c: &MlpCache,
    du: &[f64],
    tokens: usize,
    d: usize,
    d_ff: usize,
) -> Vec<f64> {
    let rows = du.len() / d;
    let per = tokens * d_ff;
    let both = linear_packed(du, &w.gate_up_t, rows);
    let all = w.gate_up_t.cols();
    let db = columns(&both, all, all - d_ff, d_ff);
    let dm: Vec<f64> = match kind {
        MlpKind::SwiGlu => {
            let da = columns(&both, all, 0, d_ff);
            let mut dm = vec![0.0; db.len()];
            for ((o, da), db) in dm.chunks_mut(per).zip(da.chunks(per)).zip(db.chunks(per)) {
                for i in 0..per {
                    o[i] = c.act_d[i] * da[i] * c.b[i] + c.act[i] * db[i];
                }
            }
            dm
        }
        MlpKind::Gelu => (0..db.len()).map(|i| c.act_d[i % per] * db[i]).collect(),
    };
    linear_packed(&dm, &w.down_t, rows)
}

/// The MLP's VJP for k cotangents `gout` ((k T) x d); with `gw` (k = 1 only) adds the parameter
/// cotangents.
#[allow(clippy::too_many_arguments)]
pub fn mlp_vjp(
    kind: MlpKind,
    w: &MlpWeights,
    c: &MlpCache,
    gout: &[f64],
    tokens: usize,
    d: usize,
    d_ff: usize,
    gw: Option<&mut MlpWeights>,
) -> Vec<f64> {
    let packed = MlpPacked::new(kind, w, d, d_ff);
    mlp_vjp_packed(kind, &packed, c, gout, tokens, d, d_ff, gw)
}

/// [`mlp_vjp`] with the matrices packed beforehand: the same bits.
#[allow(clippy::too_many_arguments)]
pub(crate) fn mlp_vjp_packed(
    kind: MlpKind,
    w: &MlpPacked,
    c: &MlpCache,
    gout: &[f64],
    tokens: usize,
    d: usize,
    d_ff: usize,
    gw: Option<&mut MlpWeights>,
) -> Vec<f64> {
    let rows = gout.len() / d;
    let per = tokens * d_ff;
    let gm = linear_packed(gout, &w.down, rows);
    let (ga, gb): (Vec<f64>, Vec<f64>) = match kind {
        MlpKind::SwiGlu => (0..gm.len())
            .map(|i| {
                let r = i % per;
                (gm[i] * c.b[r] * c.act_d[r], gm[i] * c.act[r])
            })
            .unzip(),
        MlpKind::Gelu => (
            Vec::new(),
            (0..gm.len()).map(|i| gm[i] * c.act_d[i % per]).collect(),
        ),
    };
    let mut gu = linear_packed(&gb, &w.up, rows);
    if let Some(gate) = &w.gate {
        let gu_a = linear_packed(&ga, gate, rows);
        for (x, y) in gu.iter_mut().zip(&gu_a) {
            *x += y;
        }
    }
    if let Some(gw) = gw {
        assert_eq!(rows, tokens, "parameter cotangents of one cotangent only");
        linear_grad_w(&mut gw.up, &gb, &c.u, tokens, d, d_ff);
        if kind == MlpKind::SwiGlu {
            linear_grad_w(&mut gw.gate, &ga, &c.u, tokens, d, d_ff);
        }
        linear_grad_w(&mut gw.down, gout, &c.m, tokens, d_ff, d);
    }
    gu
}
