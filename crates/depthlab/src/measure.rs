//! The measurements of a lab run. Definitions (x_l is the T x d residual stream entering layer l,
//! x_1 the embedding output, x_(L+1) the last layer's output before the final norm):
//!
//! - `variance` sigma_l^2: population variance of all T d entries of x_l (mean subtracted, divided
//!   by T d).
//! - `jacobian_norm`: ||J_l||_2, J_l = d x_(l+1) / d x_l as a (T d) x (T d) matrix (all tokens at
//!   once, causal coupling included), by Lanczos on J_l^T J_l ([`crate::lanczos`]).
//! - `jacobian_minus_identity_norm`: ||J_l - I||_2, the same way.
//! - `end_to_end_norm`: ||d x_(L+1) / d x_l||_2 = ||J_L ... J_l||_2, for every l at once by
//!   Rayleigh-Ritz on one output-space subspace shared by all suffixes, finished where needed by
//!   per-suffix Lanczos ([`crate::end_to_end`]); the same lower bound and residual as Lanczos.
//! - `log_product_of_norms`: sum_{k=l}^{L} log ||J_k||_2, what a product of per-layer bounds can at
//!   best bound (submultiplicativity: end_to_end_norm <= exp(log_product_of_norms)).
//! - `grad_norm`: Frobenius norm of d loss / d theta_l over all of layer l's parameters, loss the
//!   mean next-token cross-entropy (positions 0..T-2, target the next token id) of
//!   final_norm(x_(L+1)) U^T; `grad_norms` the same per weight tensor.
//! - `angular_distance[i][j]`: mean over tokens t of arccos(cos(x_i[t], x_j[t])) / pi, the paper's
//!   layer-importance measure (indices 0..L for x_1..x_(L+1)).
//! - fits: least squares of log sigma_l^2 on log l (power, sigma^2 = c l^q) and on l (exponential,
//!   sigma^2 = c e^(lambda l)), l = 1..L, with 95% Student-t confidence intervals of the
//!   coefficients (valid under the usual i.i.d. Gaussian-residual assumption, stated not tested).
//! - bound: A and B of the paper's Eqs. 47-48 for (d, d_ff, d_head, h, s = T, sigma = init_std),
//!   and log prod_{l=1}^{L} (1 + A a_l + B a_l^2) with a_l = 1/sigma_l (Eq. 9, unscaled) and
//!   a_l = 1/(l sigma_l) (Eq. 15, scaled), sigma_l^2 the measured variances, evaluated by the
//!   `depthprod` core as certified enclosures; per layer the suffix from l to L, which bounds
//!   ||d x_(L+1) / d x_l|| in the paper's argument, and the looseness log(bound) - log(measured).

use crate::error::LabError;
use crate::lanczos::{lanczos_top, LanczosOptions, NormEstimate};
use crate::linalg::{dot, norm2};
use crate::model::{Config, Gaussian, LayerCache, LayerWeights, Model, Weights};
use depthprod::{Enclosure, Family, Params, Plan, Variance, C_RANGE};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Where x_1 comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum InputSpec {
    /// Token ids through the embedding; `None` draws them from the seed.
    Tokens(Option<Vec<u32>>),
    /// x_1 ~ N(0, std^2) entrywise, drawn from the seed (token ids still drawn, for the loss).
    Gaussian { std: f64 },
}

/// Which measurements to run (all by default).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Selection {
    pub layer_norms: bool,
    pub end_to_end: bool,
    pub gradients: bool,
    pub angular: bool,
    /// Which part of the selected work this run does ([`Share::WHOLE`]: all of it).
    pub share: Share,
}

/// One of `count` parts of a run's measurements, so that `count` processes (the lab page's
/// workers) can measure one network side by side; [`merge_shares`] joins their reports into the
/// report of the whole run, bit for bit. Every share builds the model and runs the forward pass
/// (cheap beside the norms). Share `index` measures the per-layer norms of the layers l with
/// (l - 1) mod count = index and the end-to-end chains i ([`end_to_end_chains`]) with
/// i mod count = index; the last share also the gradients and the angular distances. Each norm
/// is computed by the same code on the same data as in a whole run (the chains are fixed by L
/// alone), which is why the merged numbers equal the whole run's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Share {
    pub index: usize,
    pub count: usize,
}

impl Share {
    /// The whole run.
    pub const WHOLE: Share = Share { index: 0, count: 1 };
    /// The most shares a run may be split into.
    pub const MAX_COUNT: usize = 64;

    fn has_layer(self, l: usize) -> bool {
        (l - 1) % self.count == self.index
    }

    fn has_chain(self, i: usize) -> bool {
        i % self.count == self.index
    }

    fn has_extras(self) -> bool {
        self.index + 1 == self.count
    }
}

impl Default for Selection {
    fn default() -> Self {
        Selection {
            layer_norms: true,
            end_to_end: true,
            gradients: true,
            angular: true,
            share: Share::WHOLE,
        }
    }
}

/// A fully specified lab run.
#[derive(Debug, Clone)]
pub struct LabSpec {
    pub cfg: Config,
    pub seed: u64,
    /// Loaded weights; `None` draws them from the seed. Shared with the model the run builds
    /// (an `Arc`, not a copy: a checkpoint's f64 weights can be most of the memory a run has).
    pub weights: Option<Arc<Weights>>,
    pub input: InputSpec,
    pub lanczos: LanczosOptions,
    pub select: Selection,
    /// Bytes the run may use ([`crate::memory`]; [`crate::memory::DEFAULT_MEMORY_BUDGET`]
    /// natively, less in wasm32): a larger estimate is refused before anything is allocated.
    pub memory_budget: u64,
}

/// The largest `max_iter` accepted (each Lanczos iteration keeps one more T x d vector).
pub const MAX_ITER: usize = 10_000;

/// Threads the measurements run on at once: rayon's pool with `parallel`, else one. The memory
/// estimate counts one Lanczos basis per thread.
pub fn worker_threads() -> usize {
    #[cfg(feature = "parallel")]
    {
        rayon::current_num_threads().max(1)
    }
    #[cfg(not(feature = "parallel"))]
    {
        1
    }
}

/// A certified interval from the core.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    pub value: f64,
    pub lo: f64,
    pub hi: f64,
}

impl From<Enclosure> for Interval {
    fn from(e: Enclosure) -> Self {
        Interval {
            value: e.value,
            lo: e.lo,
            hi: e.hi,
        }
    }
}

fn next_up(x: f64) -> f64 {
    if x.is_nan() || x == f64::INFINITY {
        return x;
    }
    if x == 0.0 {
        return f64::from_bits(1);
    }
    let b = x.to_bits();
    f64::from_bits(if x > 0.0 { b + 1 } else { b - 1 })
}

fn next_down(x: f64) -> f64 {
    -next_up(-x)
}

/// [a] - [b] with outward rounding: an interval containing every difference of members.
fn interval_sub(a: Interval, b: Interval) -> Interval {
    Interval {
        value: a.value - b.value,
        lo: next_down(a.lo - b.hi),
        hi: next_up(a.hi - b.lo),
    }
}

/// Per-layer results (see the module documentation for the definitions).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LayerReport {
    pub layer: usize,
    pub variance: f64,
    pub jacobian_norm: Option<f64>,
    pub jacobian_minus_identity_norm: Option<f64>,
    pub end_to_end_norm: Option<f64>,
    pub grad_norm: Option<f64>,
    pub log_product_of_norms: Option<f64>,
    /// grad_norm / jacobian_minus_identity_norm.
    pub grad_to_jacobian_minus_identity: Option<f64>,
    pub jacobian: Option<NormEstimate>,
    pub jacobian_minus_identity: Option<NormEstimate>,
    pub end_to_end: Option<NormEstimate>,
    pub grad_norms: Option<Vec<(String, f64)>>,
    /// log prod_{k=l}^{L} of the Eq. 9 factor with the measured variances (certified).
    pub bound_unscaled_log: Option<Interval>,
    /// The same for Eq. 15.
    pub bound_scaled_log: Option<Interval>,
    /// bound_unscaled_log.value - log end_to_end_norm: how loose the bound is (log of the ratio).
    pub looseness_unscaled_log: Option<f64>,
    pub looseness_scaled_log: Option<f64>,
}

impl LayerReport {
    /// The columns that follow from this layer's own measurements and bounds: the norms (from
    /// their estimates), grad_norm (the Frobenius norm of the per-tensor norms), its ratio to
    /// ||J_l - I||, and the looseness of each bound (log of bound over measured). A whole run and
    /// [`merge_shares`] both call it, so their numbers agree bit for bit.
    fn derive_own_columns(&mut self) {
        self.jacobian_norm = self.jacobian.map(|x| x.norm);
        self.jacobian_minus_identity_norm = self.jacobian_minus_identity.map(|x| x.norm);
        self.end_to_end_norm = self.end_to_end.map(|x| x.norm);
        self.grad_norm = self
            .grad_norms
            .as_ref()
            .map(|g| g.iter().map(|(_, v)| v * v).sum::<f64>().sqrt());
        self.grad_to_jacobian_minus_identity = match (self.grad_norm, self.jacobian_minus_identity)
        {
            (Some(g), Some(m)) if m.norm > 0.0 => Some(g / m.norm),
            _ => None,
        };
        let e = self.end_to_end;
        let loose = |b: Option<Interval>| Some(b?.value - libm::log(e?.norm));
        self.looseness_unscaled_log = loose(self.bound_unscaled_log);
        self.looseness_scaled_log = loose(self.bound_scaled_log);
    }
}

/// log_product_of_norms of every layer, sum_{k=l}^{L} log ||J_k||_2 (summed from l = L down), when
/// every layer's ||J_k||_2 is known; otherwise none.
fn derive_products_of_norms(layers: &mut [LayerReport]) {
    if layers.iter().any(|r| r.jacobian_norm.is_none()) {
        layers
            .iter_mut()
            .for_each(|r| r.log_product_of_norms = None);
        return;
    }
    let mut log_suffix = 0.0;
    for r in layers.iter_mut().rev() {
        log_suffix += libm::log(r.jacobian_norm.unwrap_or(f64::NAN));
        r.log_product_of_norms = Some(log_suffix);
    }
}

/// The report of a whole run from the reports of its shares ([`Share`]), one per share in any
/// order: each layer's norms and gradients from the share that measured them, the loss and the
/// angular distances from the last share, and the derived columns computed afresh by the code a
/// whole run uses. Equal, bit for bit, to the report of the same spec run whole (tested).
/// Reports of different runs (configuration, seed, tolerance, digests or layer count differ), or
/// a count of reports that is not the shares' count, are an error.
pub fn merge_shares(parts: Vec<Report>) -> Result<Report, LabError> {
    let bad = |why: &str| LabError::OutOfRange {
        name: "shares",
        value: format!("{} reports", parts.len()),
        range: format!("the reports of every share of one run ({why})"),
    };
    let Some(first) = parts.first() else {
        return Err(bad("none given"));
    };
    let same_run = |r: &Report| {
        r.config == first.config
            && r.seed == first.seed
            && r.lanczos_tol.to_bits() == first.lanczos_tol.to_bits()
            && r.digest == first.digest
            && r.layers.len() == first.layers.len()
    };
    if !parts.iter().all(same_run) {
        return Err(bad("they are of different runs"));
    }
    let mut shares: Vec<Share> = parts.iter().map(|r| r.share).collect();
    shares.sort_by_key(|s| s.index);
    let count = parts.len();
    if !shares
        .iter()
        .enumerate()
        .all(|(i, s)| s.count == count && s.index == i)
    {
        return Err(bad(
            "one report for each share index, all of the same count",
        ));
    }
    let mut merged = first.clone();
    merged.share = Share::WHOLE;
    for part in &parts {
        if part.share.has_extras() {
            merged.loss = part.loss;
            merged.angular_distance = part.angular_distance.clone();
        }
        for (m, p) in merged.layers.iter_mut().zip(&part.layers) {
            if part.share.has_extras() {
                m.grad_norms = p.grad_norms.clone();
            }
            m.jacobian = m.jacobian.or(p.jacobian);
            m.jacobian_minus_identity = m.jacobian_minus_identity.or(p.jacobian_minus_identity);
            m.end_to_end = m.end_to_end.or(p.end_to_end);
        }
    }
    merged
        .layers
        .iter_mut()
        .for_each(LayerReport::derive_own_columns);
    derive_products_of_norms(&mut merged.layers);
    Ok(merged)
}

/// sigma^2 = c l^q or c e^(lambda l), with 95% intervals.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Fit {
    pub c: f64,
    /// q (power) or lambda (exponential).
    pub rate: f64,
    pub c_ci: Option<[f64; 2]>,
    pub rate_ci: Option<[f64; 2]>,
    /// Coefficient of determination of the log-linear regression.
    pub r2: f64,
}

/// The paper's bound beside the measurement.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BoundReport {
    /// Eq. 47.
    pub a: f64,
    /// Eq. 48 (the printed B, used for the products).
    pub b: f64,
    /// The other reading (docs/MATH.md, section 9): the product of Eq. 36's two 1/sigma coefficients.
    /// Reported only; not used.
    pub b_factored: f64,
    pub sigma: f64,
    /// log prod_{l=1}^{L} (1 + A/sigma_l + B/sigma_l^2), measured sigma_l (Eq. 9).
    pub unscaled: Option<Interval>,
    /// log prod_{l=1}^{L} (1 + A/(l sigma_l) + B/(l sigma_l)^2) (Eq. 15).
    pub scaled: Option<Interval>,
    /// The same two with the fitted power law c l^q in place of the list (also for a fitted c
    /// outside the core's range: [`power_law_product`]).
    pub unscaled_power_fit: Option<Interval>,
    pub scaled_power_fit: Option<Interval>,
    /// Why a product could not be evaluated (e.g. A or B beyond the core's [0, 100]).
    pub errors: Vec<String>,
}

/// Everything a run measures.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Report {
    pub config: Config,
    pub seed: u64,
    pub token_ids: Vec<u32>,
    pub loss: Option<f64>,
    /// Variance of x_(L+1).
    pub final_variance: f64,
    pub layers: Vec<LayerReport>,
    pub fit_power: Option<Fit>,
    pub fit_exponential: Option<Fit>,
    pub bound: BoundReport,
    pub angular_distance: Option<Vec<Vec<f64>>>,
    pub lanczos_tol: f64,
    /// Digests of the doubles the run started from ([`crate::model::digest`], 16 hex digits): the
    /// weights, and the input stream x_1 (T x d). Equal digests from the CLI and the page mean the
    /// two builds measured the very same network on the very same input.
    pub digest: Digests,
    /// The part of the run this report holds ([`Share::WHOLE`] for a whole run).
    pub share: Share,
}

/// See [`Report::digest`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Digests {
    pub weights: String,
    pub input: String,
}

/// Progress: (phase, done, total).
pub type Progress<'a> = &'a (dyn Fn(&str, usize, usize) + Sync);

/// Stage names, as passed to the progress callback, in the order a run goes through them.
pub const STAGE_FORWARD: &str = "forward";
pub const STAGE_LAYER_JACOBIANS: &str = "layer Jacobians";
pub const STAGE_END_TO_END: &str = "end-to-end Jacobians";
pub const STAGE_GRADIENTS: &str = "gradients";

/// One stage of a run: its name (the progress callback's `phase`) and its step count (`total`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Stage {
    pub name: &'static str,
    pub total: usize,
}

/// The stages `spec` will go through, in order (unselected measurements, and those with no step
/// in the spec's share, have none).
pub fn stages(spec: &LabSpec) -> Vec<Stage> {
    let big_l = spec.cfg.layers;
    let mut v = vec![Stage {
        name: STAGE_FORWARD,
        total: 1,
    }];
    let share = spec.select.share;
    // A share may have no layer or no suffix of its own (more shares than layers or chains).
    if spec.select.layer_norms && share_layers(share, big_l) > 0 {
        v.push(Stage {
            name: STAGE_LAYER_JACOBIANS,
            total: share_layers(share, big_l),
        });
    }
    if spec.select.end_to_end && share_suffixes(share, big_l) > 0 {
        v.push(Stage {
            name: STAGE_END_TO_END,
            total: share_suffixes(share, big_l),
        });
    }
    if spec.select.gradients && share.has_extras() {
        v.push(Stage {
            name: STAGE_GRADIENTS,
            total: 1,
        });
    }
    v
}

/// How many layers' per-layer norms `share` measures.
fn share_layers(share: Share, layers: usize) -> usize {
    (1..=layers).filter(|&l| share.has_layer(l)).count()
}

/// How many suffixes' end-to-end norms `share` measures.
fn share_suffixes(share: Share, layers: usize) -> usize {
    end_to_end_chains(layers)
        .iter()
        .enumerate()
        .filter(|(i, _)| share.has_chain(*i))
        .map(|(_, (from, to))| from + 1 - to)
        .sum()
}

/// Some of layer `layer`'s measurements, sent as soon as they are finished: only the fields just
/// measured are set (the JSON omits the others), so a consumer merges updates into its row. Field
/// names and meanings are those of [`LayerReport`]; the final report repeats every value.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct LayerUpdate {
    pub layer: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variance: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jacobian_norm: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jacobian_minus_identity_norm: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_to_end_norm: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grad_norm: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jacobian: Option<NormEstimate>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub jacobian_minus_identity: Option<NormEstimate>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_to_end: Option<NormEstimate>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grad_norms: Option<Vec<(String, f64)>>,
}

/// What a caller of [`run_streaming`] hears and how it stops a run. The callbacks are called on
/// the caller's thread only (natively the work runs on other threads and reports back through a
/// channel), so they need not be `Sync` (a wasm-bindgen `js_sys::Function` is fine).
pub struct Hooks<'a> {
    /// (stage name, steps done, stage total); see [`stages`].
    pub progress: &'a dyn Fn(&str, usize, usize),
    /// Each layer's measurements as they finish.
    pub on_layer: &'a dyn Fn(&LayerUpdate),
    /// Polled between units of work of at most one layer JVP or VJP (natively every 5 ms on the
    /// caller's thread, the workers checking a flag between layer operations); once it returns
    /// true the run ends with [`LabError::Cancelled`].
    pub should_stop: &'a dyn Fn() -> bool,
}

impl std::fmt::Debug for Hooks<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Hooks").finish_non_exhaustive()
    }
}

enum Event {
    Progress(&'static str, usize, usize),
    Layer(Box<LayerUpdate>),
}

/// The workers' view of the hooks: events out, a stop flag in.
#[cfg(feature = "parallel")]
struct Ctx<'a> {
    tx: std::sync::mpsc::Sender<Event>,
    stop: &'a std::sync::atomic::AtomicBool,
}

#[cfg(feature = "parallel")]
impl Ctx<'_> {
    fn emit(&self, e: Event) {
        // The receiver lives until the worker returns; a send error cannot happen.
        let _ = self.tx.send(e);
    }
    fn stopped(&self) -> bool {
        self.stop.load(std::sync::atomic::Ordering::Relaxed)
    }
}

#[cfg(not(feature = "parallel"))]
struct Ctx<'a> {
    hooks: &'a Hooks<'a>,
    stop: std::cell::Cell<bool>,
}

#[cfg(not(feature = "parallel"))]
impl Ctx<'_> {
    fn emit(&self, e: Event) {
        match e {
            Event::Progress(p, d, t) => (self.hooks.progress)(p, d, t),
            Event::Layer(u) => (self.hooks.on_layer)(&u),
        }
    }
    fn stopped(&self) -> bool {
        if !self.stop.get() && (self.hooks.should_stop)() {
            self.stop.set(true);
        }
        self.stop.get()
    }
}

/// Population variance of all entries.
pub fn variance(x: &[f64]) -> f64 {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    x.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n
}

/// The paper's angular distance between two streams: mean over tokens of arccos(cos) / pi.
pub fn angular_distance(a: &[f64], b: &[f64], d: usize) -> f64 {
    let rows = a.len() / d;
    let mut total = 0.0;
    for t in 0..rows {
        let (x, y) = (&a[t * d..(t + 1) * d], &b[t * d..(t + 1) * d]);
        let denom = norm2(x) * norm2(y);
        let c = if denom > 0.0 { dot(x, y) / denom } else { 1.0 };
        total += libm::acos(c.clamp(-1.0, 1.0)) / std::f64::consts::PI;
    }
    total / rows as f64
}

/// Eqs. 47-48 (docs/MATH.md, section 9): A, B, and the factored reading of B.
pub fn paper_a_b(cfg: &Config) -> (f64, f64, f64) {
    let d = cfg.d as f64;
    let dff = cfg.d_ff as f64;
    let dh = cfg.d_head() as f64;
    let h = cfg.heads as f64;
    let s = cfg.tokens as f64;
    let sig2 = cfg.init_std * cfg.init_std;
    let ffn = sig2 * (d.sqrt() + dff.sqrt()).powi(2);
    let att_pref = 2.0 * d * h * (s.sqrt() + 2.0 + 1.0 / s.sqrt());
    let attn = att_pref * sig2 * (sig2 * d * dh.sqrt() + 1.0 + (dh / d).sqrt());
    let a = ffn + attn;
    let b = att_pref * sig2 * sig2 * d * dh.sqrt();
    (a, b, ffn * attn)
}

/// Two-sided 95% Student-t quantile t_{0.975, nu}: bisection on the CDF, the density integrated by
/// composite Simpson (4000 panels; the integrand is smooth and bounded, error far below 1e-8).
pub fn student_t_975(nu: f64) -> f64 {
    let lnc = libm::lgamma((nu + 1.0) / 2.0)
        - libm::lgamma(nu / 2.0)
        - 0.5 * libm::log(nu * std::f64::consts::PI);
    let dens = |t: f64| libm::exp(lnc - (nu + 1.0) / 2.0 * libm::log1p(t * t / nu));
    let half_mass = |x: f64| {
        let n = 4000;
        let h = x / n as f64;
        let mut s = dens(0.0) + dens(x);
        for i in 1..n {
            s += dens(i as f64 * h) * if i % 2 == 1 { 4.0 } else { 2.0 };
        }
        s * h / 3.0
    };
    let (mut lo, mut hi) = (0.0, 1000.0);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if half_mass(mid) < 0.475 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Least squares y = a + b x; returns c = e^a, b, their 95% intervals and R^2.
fn log_linear_fit(xs: &[f64], ys: &[f64]) -> Option<Fit> {
    let n = xs.len();
    if n < 2 || ys.iter().any(|y| !y.is_finite()) {
        return None;
    }
    let nf = n as f64;
    let mx = xs.iter().sum::<f64>() / nf;
    let my = ys.iter().sum::<f64>() / nf;
    let sxx: f64 = xs.iter().map(|x| (x - mx) * (x - mx)).sum();
    let sxy: f64 = xs.iter().zip(ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let syy: f64 = ys.iter().map(|y| (y - my) * (y - my)).sum();
    if sxx <= 0.0 {
        return None;
    }
    let b = sxy / sxx;
    let a = my - b * mx;
    let ssr: f64 = xs
        .iter()
        .zip(ys)
        .map(|(x, y)| (y - a - b * x).powi(2))
        .sum();
    let r2 = if syy > 0.0 { 1.0 - ssr / syy } else { 1.0 };
    let (c_ci, rate_ci) = if n >= 3 {
        let s2 = ssr / (nf - 2.0);
        let t = student_t_975(nf - 2.0);
        let se_b = (s2 / sxx).sqrt();
        let se_a = (s2 * (1.0 / nf + mx * mx / sxx)).sqrt();
        (
            Some([libm::exp(a - t * se_a), libm::exp(a + t * se_a)]),
            Some([b - t * se_b, b + t * se_b]),
        )
    } else {
        (None, None)
    };
    Some(Fit {
        c: libm::exp(a),
        rate: b,
        c_ci,
        rate_ci,
        r2,
    })
}

/// `Sync` when the work is spread over threads (feature `parallel`), nothing otherwise (the
/// single-threaded build's hooks hold a `Cell`).
#[cfg(feature = "parallel")]
pub(crate) trait MaybeSync: Sync {}
#[cfg(feature = "parallel")]
impl<T: Sync + ?Sized> MaybeSync for T {}
#[cfg(not(feature = "parallel"))]
pub(crate) trait MaybeSync {}
#[cfg(not(feature = "parallel"))]
impl<T: ?Sized> MaybeSync for T {}

#[cfg(feature = "parallel")]
pub(crate) fn map_indices<T: Send>(n: usize, f: impl Fn(usize) -> T + Sync + Send) -> Vec<T> {
    use rayon::prelude::*;
    (0..n).into_par_iter().map(f).collect()
}

#[cfg(not(feature = "parallel"))]
pub(crate) fn map_indices<T>(n: usize, f: impl Fn(usize) -> T) -> Vec<T> {
    (0..n).map(f).collect()
}

/// The seed stream of the inputs, separate from the weights' so that loaded and seeded networks
/// see the same token ids for the same seed.
fn input_seed(seed: u64) -> u64 {
    seed ^ 0x9e37_79b9_7f4a_7c15
}

/// Validates a spec without allocating anything large: the configuration, the Lanczos options
/// and the memory the run needs against `spec.memory_budget` ([`crate::memory`]). [`build`] (so
/// every run) calls it first; shells may call it earlier to report bad input before they start.
pub fn validate(spec: &LabSpec) -> Result<crate::memory::MemoryEstimate, LabError> {
    spec.cfg.validate()?;
    float_ok("lanczos tol", spec.lanczos.tol, 1e-14, 1e-1)?;
    if spec.lanczos.max_iter == 0 || spec.lanczos.max_iter > MAX_ITER {
        return Err(LabError::OutOfRange {
            name: "max_iter",
            value: spec.lanczos.max_iter.to_string(),
            range: format!("an integer in [1, {MAX_ITER}]"),
        });
    }
    let share = spec.select.share;
    if share.count == 0 || share.count > Share::MAX_COUNT || share.index >= share.count {
        return Err(LabError::OutOfRange {
            name: "share",
            value: format!("{} of {}", share.index, share.count),
            range: format!(
                "an index below a count in [1, {}] (index 0 of count 1: the whole run)",
                Share::MAX_COUNT
            ),
        });
    }
    let estimate = crate::memory::estimate(&spec.cfg, 0, &spec.lanczos, &spec.select);
    estimate.check(spec.memory_budget)?;
    Ok(estimate)
}

/// Builds the model and x_1 for a spec (validating everything first, [`validate`]).
pub fn build(spec: &LabSpec) -> Result<(Model, Vec<f64>, Vec<u32>), LabError> {
    validate(spec)?;
    let cfg = spec.cfg.clone();
    let weights = match &spec.weights {
        Some(w) => Arc::clone(w),
        None => Arc::new(Weights::seeded(&cfg, &mut Gaussian::new(spec.seed))),
    };
    let mut rng = Gaussian::new(input_seed(spec.seed));
    let drawn: Vec<u32> = (0..cfg.tokens).map(|_| rng.token(cfg.vocab)).collect();
    let ids = match &spec.input {
        InputSpec::Tokens(Some(ids)) => {
            if ids.len() != cfg.tokens {
                return Err(LabError::Inconsistent(format!(
                    "input ids: {} ids given but tokens = {}",
                    ids.len(),
                    cfg.tokens
                )));
            }
            if let Some(bad) = ids.iter().find(|&&i| i as usize >= cfg.vocab) {
                return Err(LabError::OutOfRange {
                    name: "input id",
                    value: bad.to_string(),
                    range: format!(
                        "an integer in [0, {}] (vocab = {})",
                        cfg.vocab - 1,
                        cfg.vocab
                    ),
                });
            }
            ids.clone()
        }
        _ => drawn,
    };
    let model = Model::new(cfg.clone(), weights)?;
    let x1 = match spec.input {
        InputSpec::Gaussian { std } => {
            float_ok("input std", std, 1e-6, 1e6)?;
            rng.normals(cfg.tokens * cfg.d, std)
        }
        InputSpec::Tokens(_) => model.embed(&ids),
    };
    Ok((model, x1, ids))
}

fn float_ok(name: &'static str, v: f64, lo: f64, hi: f64) -> Result<(), LabError> {
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

/// ||J_l||_2 (minus_identity = false) or ||J_l - I||_2.
pub fn layer_norm_estimate(
    model: &Model,
    l: usize,
    cache: &LayerCache,
    minus_identity: bool,
    opts: LanczosOptions,
) -> NormEstimate {
    match layer_norm_until(model, l, cache, minus_identity, opts, &|| false) {
        Some(e) => e,
        None => unreachable!("never stopped"),
    }
}

/// [`layer_norm_estimate`], `None` once `stop()` is true (checked before every JVP/VJP pair).
fn layer_norm_until(
    model: &Model,
    l: usize,
    cache: &LayerCache,
    minus_identity: bool,
    opts: LanczosOptions,
    stop: &dyn Fn() -> bool,
) -> Option<NormEstimate> {
    let n = model.cfg.tokens * model.cfg.d;
    let top = lanczos_top(n, opts, None, |v| {
        if stop() {
            return None;
        }
        let mut jv = model.layer_jvp(l, cache, v);
        if minus_identity {
            jv.iter_mut().zip(v).for_each(|(a, b)| *a -= b);
        }
        let mut back = model.layer_vjp(l, cache, &jv, None);
        if minus_identity {
            back.iter_mut().zip(&jv).for_each(|(a, b)| *a -= b);
        }
        Some((jv, back))
    })?;
    Some(top.estimate)
}

/// ||J_L ... J_l||_2.
pub fn end_to_end_estimate(
    model: &Model,
    l: usize,
    caches: &[LayerCache],
    opts: LanczosOptions,
) -> NormEstimate {
    match end_to_end_until(model, l, caches, opts, &|| false) {
        Some(e) => e,
        None => unreachable!("never stopped"),
    }
}

/// [`end_to_end_estimate`], `None` once `stop()` is true (checked before every layer operation).
fn end_to_end_until(
    model: &Model,
    l: usize,
    caches: &[LayerCache],
    opts: LanczosOptions,
    stop: &dyn Fn() -> bool,
) -> Option<NormEstimate> {
    let n = model.cfg.tokens * model.cfg.d;
    let big_l = model.cfg.layers;
    let top = lanczos_top(n, opts, None, |v| {
        let mut t = v.to_vec();
        for k in l..=big_l {
            if stop() {
                return None;
            }
            t = model.layer_jvp(k, &caches[k - 1], &t);
        }
        let mut g = t.clone();
        for k in (l..=big_l).rev() {
            if stop() {
                return None;
            }
            g = model.layer_vjp(k, &caches[k - 1], &g, None);
        }
        Some((t, g))
    })?;
    Some(top.estimate)
}

/// The two chains of suffixes the end-to-end stage runs (concurrently with `parallel`), each with
/// its own carried subspace ([`crate::end_to_end`]): suffixes L down to L - j + 1 and L - j down
/// to 1, j the least with j (j + 1) / 2 >= L (L + 1) / 4, so both hold about half the layer
/// operations. Fixed by L alone (not by the thread count), so the parallel and the
/// single-threaded build compute the same numbers.
pub fn end_to_end_chains(layers: usize) -> Vec<(usize, usize)> {
    let total = layers * (layers + 1) / 2;
    let mut j = 1;
    while j * (j + 1) / 2 * 2 < total {
        j += 1;
    }
    let mut v = vec![(layers, layers + 1 - j)];
    if layers > j {
        v.push((layers - j, 1));
    }
    v
}

/// The loss and d loss / d theta_l for every layer (backpropagation through the layers' VJPs).
pub fn layer_gradients(
    model: &Model,
    xs: &[Vec<f64>],
    caches: &[LayerCache],
    ids: &[u32],
) -> (f64, Vec<LayerWeights>) {
    let mut out: Vec<LayerWeights> = Vec::with_capacity(model.cfg.layers);
    let loss = backpropagate(model, xs, caches, ids, |_, gw| out.push(gw));
    out.reverse();
    (loss, out)
}

/// The loss; hands each layer's parameter gradient to `each` (layer L first) as soon as it is
/// computed, so a caller that keeps only norms never holds a second copy of the weights.
fn backpropagate(
    model: &Model,
    xs: &[Vec<f64>],
    caches: &[LayerCache],
    ids: &[u32],
    mut each: impl FnMut(usize, LayerWeights),
) -> f64 {
    let big_l = model.cfg.layers;
    let (loss, mut g) = model.loss_and_grad(&xs[big_l], ids);
    for l in (1..=big_l).rev() {
        let mut gw = model.weights.layers[l - 1].zeros_like();
        g = model.layer_vjp(l, &caches[l - 1], &g, Some(&mut gw));
        each(l, gw);
    }
    loss
}

fn check_finite(what: &str, x: &[f64]) -> Result<(), LabError> {
    if x.iter().all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err(LabError::NonFinite(format!(
            "{what} (weights or scale too large?)"
        )))
    }
}

/// Runs every selected measurement.
pub fn run(spec: &LabSpec, progress: Progress) -> Result<Report, LabError> {
    run_streaming(
        spec,
        &Hooks {
            progress,
            on_layer: &|_| {},
            should_stop: &|| false,
        },
    )
}

/// [`run`], reporting each layer's measurements as they finish and stopping with
/// [`LabError::Cancelled`] once `hooks.should_stop` returns true. The report is the same as
/// [`run`]'s, bit for bit.
pub fn run_streaming(spec: &LabSpec, hooks: &Hooks) -> Result<Report, LabError> {
    #[cfg(feature = "parallel")]
    {
        use std::sync::atomic::{AtomicBool, Ordering};
        use std::sync::mpsc::{channel, RecvTimeoutError};
        let (tx, rx) = channel();
        let stop = AtomicBool::new(false);
        let stop_ref = &stop;
        std::thread::scope(|s| {
            let worker = s.spawn(move || compute(spec, &Ctx { tx, stop: stop_ref }));
            loop {
                if !stop.load(Ordering::Relaxed) && (hooks.should_stop)() {
                    stop.store(true, Ordering::Relaxed);
                }
                match rx.recv_timeout(std::time::Duration::from_millis(5)) {
                    Ok(Event::Progress(p, d, t)) => (hooks.progress)(p, d, t),
                    Ok(Event::Layer(u)) => (hooks.on_layer)(&u),
                    Err(RecvTimeoutError::Timeout) => {}
                    Err(RecvTimeoutError::Disconnected) => break,
                }
            }
            match worker.join() {
                Ok(r) => r,
                Err(panic) => std::panic::resume_unwind(panic),
            }
        })
    }
    #[cfg(not(feature = "parallel"))]
    {
        compute(
            spec,
            &Ctx {
                hooks,
                stop: std::cell::Cell::new(false),
            },
        )
    }
}

fn compute(spec: &LabSpec, ctx: &Ctx) -> Result<Report, LabError> {
    let (model, x1, ids) = build(spec)?;
    let digests = Digests {
        weights: format!("{:016x}", model.weights.digest()),
        input: format!("{:016x}", crate::model::digest(&[&x1])),
    };
    let cfg = &model.cfg;
    let big_l = cfg.layers;
    let opts = spec.lanczos;
    let stop = || ctx.stopped();
    let cancelled = || {
        if ctx.stopped() {
            Err(LabError::Cancelled)
        } else {
            Ok(())
        }
    };
    ctx.emit(Event::Progress(STAGE_FORWARD, 0, 1));
    let (xs, caches) = model.forward(&x1);
    for (i, x) in xs.iter().enumerate() {
        check_finite(&format!("x_{} in the forward pass", i + 1), x)?;
    }
    let variances: Vec<f64> = xs.iter().map(|x| variance(x)).collect();
    ctx.emit(Event::Progress(STAGE_FORWARD, 1, 1));
    for l in 1..=big_l {
        ctx.emit(Event::Layer(Box::new(LayerUpdate {
            layer: l,
            variance: Some(variances[l - 1]),
            ..LayerUpdate::default()
        })));
    }
    cancelled()?;

    let done = std::sync::atomic::AtomicUsize::new(0);
    let tick = |phase: &'static str, total: usize| {
        let k = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        ctx.emit(Event::Progress(phase, k, total));
    };
    let share = spec.select.share;
    let my_layers = share_layers(share, big_l);
    let my_suffixes = share_suffixes(share, big_l);
    let per_layer: Vec<Option<(NormEstimate, NormEstimate)>> = if spec.select.layer_norms {
        let v = map_indices(big_l, |i| {
            let l = i + 1;
            if !share.has_layer(l) {
                return None;
            }
            let o = LanczosOptions {
                seed: opts.seed.wrapping_add(l as u64),
                ..opts
            };
            let j = layer_norm_until(&model, l, &caches[i], false, o, &stop)?;
            let jmi = layer_norm_until(&model, l, &caches[i], true, o, &stop)?;
            ctx.emit(Event::Layer(Box::new(LayerUpdate {
                layer: l,
                jacobian_norm: Some(j.norm),
                jacobian_minus_identity_norm: Some(jmi.norm),
                jacobian: Some(j),
                jacobian_minus_identity: Some(jmi),
                ..LayerUpdate::default()
            })));
            tick(STAGE_LAYER_JACOBIANS, my_layers);
            Some((j, jmi))
        });
        cancelled()?;
        v
    } else {
        vec![None; big_l]
    };
    done.store(0, std::sync::atomic::Ordering::Relaxed);
    let e2e: Vec<Option<NormEstimate>> = if spec.select.end_to_end {
        let emit = |l: usize, r: NormEstimate| {
            ctx.emit(Event::Layer(Box::new(LayerUpdate {
                layer: l,
                end_to_end_norm: Some(r.norm),
                end_to_end: Some(r),
                ..LayerUpdate::default()
            })));
            tick(STAGE_END_TO_END, my_suffixes);
        };
        let chains: Vec<(usize, usize)> = end_to_end_chains(big_l)
            .into_iter()
            .enumerate()
            .filter(|(i, _)| share.has_chain(*i))
            .map(|(_, c)| c)
            .collect();
        let parts = map_indices(chains.len(), |i| {
            let (from, to) = chains[i];
            crate::end_to_end::end_to_end_chain(&model, &caches, from, to, opts, &stop, &emit)
        });
        cancelled()?;
        let mut v = vec![None; big_l];
        for (l, r) in parts.into_iter().flatten().flatten() {
            v[l - 1] = Some(r);
        }
        v
    } else {
        vec![None; big_l]
    };

    let (loss, grads) = if spec.select.gradients && share.has_extras() {
        ctx.emit(Event::Progress(STAGE_GRADIENTS, 0, 1));
        let mut grads: Vec<Vec<(String, f64)>> = vec![Vec::new(); big_l];
        let loss = backpropagate(&model, &xs, &caches, &ids, |l, gw| {
            grads[l - 1] = gw
                .named()
                .into_iter()
                .map(|(name, t)| (name.to_string(), norm2(t)))
                .collect();
        });
        for (i, g) in grads.iter().enumerate() {
            ctx.emit(Event::Layer(Box::new(LayerUpdate {
                layer: i + 1,
                grad_norm: Some(g.iter().map(|(_, v)| v * v).sum::<f64>().sqrt()),
                grad_norms: Some(g.clone()),
                ..LayerUpdate::default()
            })));
        }
        ctx.emit(Event::Progress(STAGE_GRADIENTS, 1, 1));
        (Some(loss), Some(grads))
    } else {
        (None, None)
    };
    cancelled()?;

    let angular = if spec.select.angular && share.has_extras() {
        let n = xs.len();
        let mut m = vec![vec![0.0; n]; n];
        for i in 0..n {
            for j in i + 1..n {
                let a = angular_distance(&xs[i], &xs[j], cfg.d);
                m[i][j] = a;
                m[j][i] = a;
            }
        }
        Some(m)
    } else {
        None
    };

    let ls: Vec<f64> = (1..=big_l).map(|l| l as f64).collect();
    let logv: Vec<f64> = variances[..big_l].iter().map(|v| libm::log(*v)).collect();
    let log_l: Vec<f64> = ls.iter().map(|l| libm::log(*l)).collect();
    let fit_power = log_linear_fit(&log_l, &logv);
    let fit_exponential = log_linear_fit(&ls, &logv);

    let bound = bound_report(cfg, &variances[..big_l], fit_power.as_ref());

    let mut layers = Vec::with_capacity(big_l);
    for l in 1..=big_l {
        let (j, jmi) = match per_layer[l - 1] {
            Some((a, b)) => (Some(a), Some(b)),
            None => (None, None),
        };
        let suffix_of = |p: &Option<Vec<Interval>>| -> Option<Interval> {
            let p = p.as_ref()?;
            Some(if l == 1 {
                p[big_l - 1]
            } else {
                interval_sub(p[big_l - 1], p[l - 2])
            })
        };
        let mut layer = LayerReport {
            layer: l,
            variance: variances[l - 1],
            jacobian_norm: None,
            jacobian_minus_identity_norm: None,
            end_to_end_norm: None,
            grad_norm: None,
            log_product_of_norms: None,
            grad_to_jacobian_minus_identity: None,
            jacobian: j,
            jacobian_minus_identity: jmi,
            end_to_end: e2e[l - 1],
            grad_norms: grads.as_ref().map(|g| g[l - 1].clone()),
            bound_unscaled_log: suffix_of(&bound.prefix_unscaled),
            bound_scaled_log: suffix_of(&bound.prefix_scaled),
            looseness_unscaled_log: None,
            looseness_scaled_log: None,
        };
        layer.derive_own_columns();
        layers.push(layer);
    }
    derive_products_of_norms(&mut layers);

    Ok(Report {
        config: cfg.clone(),
        seed: spec.seed,
        token_ids: ids,
        loss,
        final_variance: variances[big_l],
        layers,
        fit_power,
        fit_exponential,
        bound: bound.report,
        angular_distance: angular,
        lanczos_tol: opts.tol,
        digest: digests,
        share,
    })
}

struct BoundParts {
    report: BoundReport,
    prefix_unscaled: Option<Vec<Interval>>,
    prefix_scaled: Option<Vec<Interval>>,
}

/// log P_n for n = 1..len with the measured list, each a certified enclosure from the core.
fn prefixes(family: Family, a: f64, b: f64, values: &[f64]) -> Result<Vec<Interval>, String> {
    let params = Params {
        family,
        a,
        b,
        variance: Variance::Measured {
            values: values.to_vec(),
        },
    };
    let plan = Plan::new(&params).map_err(|e| e.to_string())?;
    (1..=values.len() as u64)
        .map(|n| {
            plan.log_product(n)
                .map(Interval::from)
                .map_err(|e| e.to_string())
        })
        .collect()
}

/// log P_n of `family` with sigma_l^2 = c l^q, a certified enclosure, also for c outside the
/// core's range [`C_RANGE`] (the lab's fit at the paper's sigma = 0.02 gives c of about 4e-4).
///
/// Why it is valid. Every factor is 1 + A a_l + B a_l^2 with a_l = 1/s_l (unscaled) or
/// 1/(l s_l) (scaled), s_l = sqrt(c l^q), so a_l = c^(-1/2) a_l(c = 1): the product with (A, B, c)
/// equals the product with (A r^(1/2), B r, c') for r = c'/c and any c' > 0 (docs/MATH.md §9).
/// With c' the nearest end of the range, A' = A sqrt(r) and B' = B r are computed in doubles:
/// fl(c'/c), its square root and the product each round correctly, so A' is within 3u of
/// A sqrt(r) and B' within 2u of B r (u = 2^-53, first order, with room for the second). The
/// product is nondecreasing in A and in B (every factor is, A, B, a_l >= 0), so the exact value
/// lies between the core's lower end at (A', B') shrunk by 8u and its upper end at them grown by
/// 8u, each of those a double at or beyond the true A sqrt(r), B r. Inside the range (r = 1) the
/// core is called with (A, B, c) as they are.
pub fn power_law_product(
    family: Family,
    a: f64,
    b: f64,
    c: f64,
    q: f64,
    n: u64,
) -> Result<Interval, depthprod::Error> {
    let eval = |a: f64, b: f64, c: f64| {
        Plan::new(&Params::power(family, a, b, c, q)).and_then(|p| p.log_product(n))
    };
    let target = if c.is_finite() && c > 0.0 {
        c.clamp(C_RANGE.0, C_RANGE.1)
    } else {
        c
    };
    if target == c {
        return eval(a, b, c).map(Interval::from);
    }
    let r = target / c;
    let (a1, b1) = (a * r.sqrt(), b * r);
    // 8u = 2^-50: 1 - 8u and 1 + 8u are doubles, and each product below rounds by at most u,
    // leaving at least 5u of margin beyond the 3u (2u) of A' (B').
    const DOWN: f64 = 1.0 - 8.0 * f64::EPSILON / 2.0;
    const UP: f64 = 1.0 + 8.0 * f64::EPSILON / 2.0;
    let lo = eval(a1 * DOWN, b1 * DOWN, target)?;
    let hi = eval(a1 * UP, b1 * UP, target)?;
    let mid = eval(a1, b1, target)?;
    Ok(Interval {
        value: mid.value,
        lo: lo.lo,
        hi: hi.hi,
    })
}

fn bound_report(cfg: &Config, variances: &[f64], fit: Option<&Fit>) -> BoundParts {
    let (a, b, b_factored) = paper_a_b(cfg);
    let mut errors = Vec::new();
    let mut take = |family: Family| match prefixes(family, a, b, variances) {
        Ok(p) => Some(p),
        Err(e) => {
            errors.push(format!(
                "{} product with the measured variances: {e}",
                family.name()
            ));
            None
        }
    };
    let prefix_unscaled = take(Family::Unscaled);
    let prefix_scaled = take(Family::Scaled);
    let n = variances.len() as u64;
    let mut power = |family: Family| -> Option<Interval> {
        let f = fit?;
        match power_law_product(family, a, b, f.c, f.rate, n) {
            Ok(e) => Some(e),
            Err(e) => {
                errors.push(format!(
                    "{} product with the fitted power law c = {:.6e}, q = {:.6}: {e}",
                    family.name(),
                    f.c,
                    f.rate
                ));
                None
            }
        }
    };
    let unscaled_power_fit = power(Family::Unscaled);
    let scaled_power_fit = power(Family::Scaled);
    BoundParts {
        report: BoundReport {
            a,
            b,
            b_factored,
            sigma: cfg.init_std,
            unscaled: prefix_unscaled.as_ref().map(|p| p[p.len() - 1]),
            scaled: prefix_scaled.as_ref().map(|p| p[p.len() - 1]),
            unscaled_power_fit,
            scaled_power_fit,
            errors,
        },
        prefix_unscaled,
        prefix_scaled,
    }
}
