//! Result types: a value with a certified enclosure, one-sided bounds, and the shape of a divergence.

/// A computed value with an interval [lo, hi] that is proven to contain the exact value
/// (truncation errors bounded analytically, floating-point errors bounded by running error analysis).
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Enclosure {
    pub value: f64,
    pub lo: f64,
    pub hi: f64,
}

impl Enclosure {
    /// `value +- radius`, widened outward by one ulp on each side for the final rounding.
    pub fn with_radius(value: f64, radius: f64) -> Enclosure {
        let r = radius.abs();
        Enclosure {
            value,
            lo: next_down(value - r),
            hi: next_up(value + r),
        }
    }

    /// An exact value (zero-width enclosure).
    pub fn exact(value: f64) -> Enclosure {
        Enclosure {
            value,
            lo: value,
            hi: value,
        }
    }

    /// hi - lo.
    pub fn width(&self) -> f64 {
        self.hi - self.lo
    }

    /// Width relative to |value| (absolute when |value| < 1), the measure the accuracy goal uses.
    pub fn relative_width(&self) -> f64 {
        self.width() / self.value.abs().max(1.0)
    }

    /// Whether `x` lies in [lo, hi].
    pub fn contains(&self, x: f64) -> bool {
        self.lo <= x && x <= self.hi
    }

    /// Radius of the enclosure around its value (the larger side).
    pub fn radius(&self) -> f64 {
        (self.value - self.lo).max(self.hi - self.value)
    }

    /// Number of significant decimal digits that the enclosure certifies (0 to 17).
    #[allow(clippy::manual_clamp)] // f64::clamp's NaN check formats floats (see `crate::decimal`)
    pub fn certified_digits(&self) -> u32 {
        let w = self.width();
        let v = self.value.abs();
        if w <= 0.0 {
            return 17;
        }
        if v == 0.0 || !w.is_finite() {
            return 0;
        }
        let d = (v / w).log10().floor();
        d.max(0.0).min(17.0) as u32
    }
}

/// A certified pair of bounds lo <= x <= hi (no preferred central value).
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Bounds {
    pub lo: f64,
    pub hi: f64,
}

/// One leading term of a divergent log-product: `coefficient * N^exponent`, or
/// `coefficient * log N` when `log` is true (then `exponent` is 0), or, when `log_like` is true,
/// `coefficient * (N^exponent - 1) / exponent`.
///
/// The log-like form is a near-resonant exponent (0 < |1 - k p| < 10^-3, docs/MATH.md §6.6): the
/// pair `c N^d / d` and a constant containing `-c / d` (both ~ 1/d, e.g. 9.007e15 N^1.1e-16 and
/// C = -9.007e15) is written as one term that tends to `c log N` as d -> 0, and the constant of
/// the same [`Divergence`] is C + c/d, certified without forming either huge part. With d < 0
/// (k p just above 1) the term stays bounded (it tends to -c/d) but is ~ c log N at every
/// reachable depth, so it is shown among the leading terms.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct AsymptoticTerm {
    pub coefficient: f64,
    pub exponent: f64,
    pub log: bool,
    /// `coefficient * (N^exponent - 1) / exponent` (absent from the serialized form when false).
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "std::ops::Not::not")
    )]
    pub log_like: bool,
}

impl AsymptoticTerm {
    /// The term's value at depth n.
    pub fn at(&self, n: f64) -> f64 {
        if self.log {
            self.coefficient * n.ln()
        } else if self.log_like {
            // (n^d - 1)/d without cancellation
            self.coefficient * (self.exponent * n.ln()).exp_m1() / self.exponent
        } else {
            self.coefficient * n.powf(self.exponent)
        }
    }
}

/// How a divergent log-product grows: log P_N = sum(terms) + C + o(1).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Divergence {
    /// Leading terms, largest growth first.
    pub terms: Vec<AsymptoticTerm>,
    /// The constant C with its enclosure; `None` when double precision cannot resolve it
    /// (the leading terms cancel catastrophically for extreme parameters).
    pub constant: Option<Enclosure>,
}

impl Divergence {
    /// Sum of the leading terms at depth n (without C).
    pub fn leading(&self, n: f64) -> f64 {
        self.terms.iter().map(|t| t.at(n)).sum()
    }
}

/// The limit N -> infinity of a log-product.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "kebab-case"))]
pub enum Limit {
    /// The product converges; log of its limit.
    Finite { log_limit: Enclosure },
    /// The product diverges to infinity, growing as described.
    Divergent { divergence: Divergence },
}

/// How a product grows as N -> infinity, decided by the core on the exact inputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
pub enum GrowthClass {
    /// P_N has a finite positive limit (log P_N -> `limit`).
    Convergent,
    /// P_N ~ e^C N^a: log P_N = a log N + C + o(1) (every divergent term is resonant, k p = 1).
    Power,
    /// log P_N ~ coefficient N^(1 - p) with 0 < 1 - p < 1 (p the decay power of a_l).
    StretchedExponential,
    /// log P_N ~ coefficient N (a_l not decaying); no supported parameter set reaches it today,
    /// named so that the page can render it if a model ever does.
    Exponential,
    /// A measured list: finitely many layers, no N -> infinity.
    FiniteList,
}

/// The growth class of a product with its certified numbers; see [`GrowthClass`].
/// Every field that is `None` for a reason other than "does not apply to this class" has that
/// reason in `reason`.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Growth {
    pub class: GrowthClass,
    /// `power`: a in N^a. `stretched-exponential`: 1 - p, the power of N in log P_N.
    pub exponent: Option<Enclosure>,
    /// `stretched-exponential`: the coefficient of N^(1-p) in log P_N (c_1 kappa / (1 - p)).
    pub coefficient: Option<Enclosure>,
    /// The coefficient of log N in log P_N when there is one (for `power` it equals `exponent`).
    pub log_coefficient: Option<Enclosure>,
    /// `convergent`: log of the limit. `power` / `stretched-exponential`: the constant C.
    pub constant: Option<Enclosure>,
    /// Why a number this class has is missing (`None` when nothing is missing).
    pub reason: Option<String>,
}

/// A quantity the core could not certify, with the reason in words a reader understands.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Unresolved {
    /// The name of the missing field (e.g. `"constant"`, `"limit"`, `"zeta_bound"`).
    pub quantity: String,
    pub reason: String,
}

pub(crate) fn next_up(x: f64) -> f64 {
    if x.is_nan() || x == f64::INFINITY {
        return x;
    }
    if x == 0.0 {
        return f64::from_bits(1);
    }
    let bits = x.to_bits();
    if x > 0.0 {
        f64::from_bits(bits + 1)
    } else {
        f64::from_bits(bits - 1)
    }
}

pub(crate) fn next_down(x: f64) -> f64 {
    -next_up(-x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn radius_widens_outward() {
        let e = Enclosure::with_radius(1.0, 0.0);
        assert!(e.lo < 1.0 && e.hi > 1.0 && e.contains(1.0));
        assert_eq!(Enclosure::with_radius(2.0, 0.5).certified_digits(), 0);
        assert_eq!(Enclosure::with_radius(2.0, 1e-10).certified_digits(), 9);
        assert!(next_up(-0.0) > 0.0 && next_down(0.0) < 0.0);
    }
}
