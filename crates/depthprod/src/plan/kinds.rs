//! The public request and result types of a plan: what a curve plots, everything at one depth,
//! and the route knobs tests use.

use super::{DIRECT_MAX, THETA};
use crate::{Bounds, Divergence, Enclosure, Error, Family, Unresolved};

/// What a curve plots against N.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
pub enum CurveKind {
    /// log P_N.
    LogProduct,
    /// log P_N minus its leading asymptotic terms (tends to C); divergent products only.
    Remainder,
    /// Certified upper bound of the tail sum_{l>N} g(l); convergent products only.
    Tail,
    /// The sum of the leading asymptotic terms at N (without C); divergent products only.
    Leading,
    /// Leading terms plus C: the asymptote the correction derives (for the unscaled seed case
    /// 2A sqrt N + (B - A^2/2) log N + C; for the harmonic family A log N + C, i.e. Theta(N^A)).
    /// Falls back to the leading terms alone where C is not resolvable. Divergent products only.
    Asymptote,
    /// Eq. 65's exponent A (N^(eps/2-1) - 1)/(eps/2 - 1) + B (N^(eps-3) - 1)/(eps - 3) with
    /// eps = 2 - q (power-law variance with 0 < q < 2).
    Eq65Exponent,
    /// The paper's Theta(L) claim (Eq. 11) drawn as log N + log P_1: a line of slope 1 in
    /// log-log terms through the first factor, for comparison.
    LinearClaim,
}

impl CurveKind {
    /// The name used on the command line, in the wasm API and in messages.
    pub fn name(self) -> &'static str {
        match self {
            CurveKind::LogProduct => "log-product",
            CurveKind::Remainder => "remainder",
            CurveKind::Tail => "tail",
            CurveKind::Leading => "leading",
            CurveKind::Asymptote => "asymptote",
            CurveKind::Eq65Exponent => "eq65-exponent",
            CurveKind::LinearClaim => "linear-claim",
        }
    }
}

impl std::str::FromStr for CurveKind {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        match s {
            "log-product" => Ok(CurveKind::LogProduct),
            "remainder" => Ok(CurveKind::Remainder),
            "tail" => Ok(CurveKind::Tail),
            "leading" => Ok(CurveKind::Leading),
            "asymptote" => Ok(CurveKind::Asymptote),
            "eq65-exponent" => Ok(CurveKind::Eq65Exponent),
            "linear-claim" => Ok(CurveKind::LinearClaim),
            other => Err(Error::UnknownName {
                what: "curve kind",
                text: other.to_string(),
                allowed:
                    "log-product, remainder, tail, leading, asymptote, eq65-exponent, linear-claim",
            }),
        }
    }
}

/// Everything known about one product at one depth: what the CLI's `--json` and the page show.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Evaluation {
    pub family: Family,
    /// The depth, `None` for N = infinity.
    pub n: Option<u64>,
    /// log P_N (the limit when N = infinity); `None` when N = infinity and the product diverges.
    pub log_product: Option<Enclosure>,
    /// log of the limit N -> infinity when the product converges (power law or exponential variance).
    pub limit: Option<Enclosure>,
    /// The remaining tail sum_{l>N} g(l) when the product converges.
    pub tail: Option<Bounds>,
    /// How the product diverges (leading terms and C), when it does.
    pub divergent: Option<Divergence>,
    /// (A/sqrt c) zeta(1+q/2) + (B/c) zeta(2+q): the correction's bound on log Q_inf (scaled family, power law).
    pub zeta_bound: Option<Enclosure>,
    /// Every quantity above that is missing although it exists (the limit, or C), each with the
    /// reason in words the page shows next to the gap.
    pub unresolved: Vec<Unresolved>,
}

/// Knobs that select the evaluation route; the defaults are what [`Plan::new`] uses. Tests use
/// other values to check that independent routes agree.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct RouteOptions {
    /// theta = rho kappa M^-p at the series start.
    pub theta: f64,
    /// Heads up to this length are summed directly; beyond, Euler-Maclaurin on g.
    pub direct_max: f64,
    /// Exponential variance: always sum directly (the engine before the Euler-Maclaurin route),
    /// so tests can compare the two.
    pub exponential_direct: bool,
    /// Power law: take the constant C from the finite-part route (docs/MATH.md §4.8) wherever it
    /// applies, not only beyond every double depth, so tests can compare it with the series route.
    pub finite_part: bool,
    /// Power law: keep the series route's constant wherever a double depth reaches the series,
    /// however wide (the default takes the finite part's where it is narrower), so tests can
    /// compare the two where the page shows the finite part's.
    pub series_only: bool,
}

impl Default for RouteOptions {
    fn default() -> Self {
        RouteOptions {
            theta: THETA,
            direct_max: DIRECT_MAX,
            exponential_direct: false,
            finite_part: false,
            series_only: false,
        }
    }
}
