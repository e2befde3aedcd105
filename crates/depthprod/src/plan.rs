//! A `Plan` prepares everything that does not depend on N (coefficients, split points, the head
//! sums, Euler-Maclaurin panels), so that each N, each curve point and the limit are cheap.
//! TEMPORARY: direct summation only, while the certified route is written.

use crate::{Bounds, Depth, Divergence, Enclosure, Error, Family, Params};

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
}

/// A prepared product; see the module docs.
#[derive(Debug, Clone)]
pub struct Plan {
    params: Params,
}

impl Plan {
    /// Validates `params` and prepares the evaluation.
    pub fn new(params: &Params) -> Result<Plan, Error> {
        params.validate()?;
        Ok(Plan { params: params.clone() })
    }

    /// The parameters this plan evaluates.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// log P_N with a certified enclosure, 1 <= n <= 10^18.
    pub fn log_product(&self, n: u64) -> Result<Enclosure, Error> {
        let _ = Depth::finite(n)?;
        Err(Error::InvalidDepth { text: "not implemented yet".into() })
    }

    /// Everything at one depth.
    pub fn evaluate(&self, depth: Depth) -> Result<Evaluation, Error> {
        let _ = depth;
        Err(Error::InvalidDepth { text: "not implemented yet".into() })
    }

    /// Fills `out[i]` with the curve's central value at depth `ns[i]` (integers in 1..=10^18, as f64).
    pub fn curve(&self, kind: CurveKind, ns: &[f64], out: &mut [f64]) -> Result<(), Error> {
        let _ = (kind, ns, out);
        Err(Error::InvalidDepth { text: "not implemented yet".into() })
    }
}

/// `count` integer depths from 1 to `n_max`, log-spaced, strictly increasing (so fewer than
/// `count` when n_max is small). `n_max` must be a valid depth.
pub fn depth_grid(n_max: u64, count: usize) -> Result<Vec<f64>, Error> {
    let _ = Depth::finite(n_max)?;
    let count = count.clamp(2, 100_000);
    let top = (n_max as f64).ln();
    let mut out: Vec<f64> = Vec::with_capacity(count);
    for i in 0..count {
        let n = (top * i as f64 / (count - 1) as f64).exp().round().clamp(1.0, n_max as f64);
        if out.last().is_none_or(|&last| n > last) {
            out.push(n);
        }
    }
    if out.last() != Some(&(n_max as f64)) {
        out.push(n_max as f64);
    }
    Ok(out)
}
