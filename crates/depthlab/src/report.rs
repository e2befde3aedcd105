//! The report of a run: per-layer rows ([`LayerReport`]), the streamed partial rows
//! ([`LayerUpdate`]), the fits, the bound beside the measurement ([`BoundReport`]) and the run's
//! identity ([`Digests`], [`Share`]); and the columns derived from the measured ones, computed by
//! one function for a whole run and for merged shares, so both give the same bits.

use crate::lanczos::NormEstimate;
use crate::model::Config;
use crate::spec::Share;
use depthprod::Enclosure;
use serde::{Deserialize, Serialize};

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
pub(crate) fn interval_sub(a: Interval, b: Interval) -> Interval {
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
    /// A probabilistic upper bound on ||d x_(L+1) / d x_l||_2 from the Gaussian probes: it holds
    /// with probability at least [`Report::upper_bound`]'s `probability` (docs/MATH.md §9).
    pub end_to_end_upper: Option<f64>,
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
    pub(crate) fn derive_own_columns(&mut self) {
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
        let e = self.end_to_end.map(|x| x.norm);
        self.looseness_unscaled_log = looseness(self.bound_unscaled_log, e);
        self.looseness_scaled_log = looseness(self.bound_scaled_log, e);
    }
}

/// log(bound) - log(measured end-to-end norm), the looseness columns; one function for the
/// streamed update and the report, so both give the same bits.
pub(crate) fn looseness(bound: Option<Interval>, end_to_end_norm: Option<f64>) -> Option<f64> {
    Some(bound?.value - libm::log(end_to_end_norm?))
}

/// log_product_of_norms of every layer, sum_{k=l}^{L} log ||J_k||_2 (summed from l = L down), when
/// every layer's ||J_k||_2 is known; otherwise none.
pub(crate) fn derive_products_of_norms(layers: &mut [LayerReport]) {
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    /// The same two with the fitted power law c l^q in place of the list ([`power_law_product`]).
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
    /// What the end-to-end upper bounds ([`LayerReport::end_to_end_upper`]) rest on; `None` when
    /// the end-to-end norms were not measured.
    pub upper_bound: Option<ProbeBound>,
}

/// The probes behind the end-to-end upper bounds: each `end_to_end_upper` holds with probability
/// at least `probability` (for all suffixes at once when `simultaneous`, else for each suffix
/// on its own), whatever the network's singular values (docs/MATH.md §9).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ProbeBound {
    pub probes: usize,
    pub probability: f64,
    pub simultaneous: bool,
}

/// See [`Report::digest`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Digests {
    pub weights: String,
    pub input: String,
}

/// Some of layer `layer`'s measurements, sent as soon as they are finished: only the fields just
/// measured are set (the JSON omits the others), so a consumer merges updates into its row. Field
/// names and meanings are those of [`LayerReport`], except `bound` and `upper_bound`, which are
/// [`Report`]'s; the final report repeats every value. What comes when: right after the forward
/// pass each layer's `variance` with its certified `bound_unscaled_log` / `bound_scaled_log`
/// (they need only the variances), layer 1's also with the run's `bound` (A, B, the whole
/// products and why one could not be evaluated); with each end-to-end norm its `end_to_end`,
/// `end_to_end_upper`, `upper_bound` (the probability the upper bound holds with) and the
/// `looseness_*` columns; so a page can state the measured norm against its bound, with both
/// ends, as soon as layer 1's end-to-end norm arrives.
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
    pub end_to_end_upper: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grad_norms: Option<Vec<(String, f64)>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bound_unscaled_log: Option<Interval>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bound_scaled_log: Option<Interval>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub looseness_unscaled_log: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub looseness_scaled_log: Option<f64>,
    /// [`Report::bound`], with layer 1's update after the forward pass.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bound: Option<BoundReport>,
    /// [`Report::upper_bound`], with each end-to-end update.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upper_bound: Option<ProbeBound>,
}
