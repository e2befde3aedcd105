//! Parameters of a product: which family, the constants A and B, and the variance model.
//! Validation lives here so that every entry point (CLI, wasm, tests) refuses the same inputs
//! with the same messages.

use crate::exact::{Exact, Number};
use crate::ranges::{self, Inputs};
use crate::Error;
use std::str::FromStr;

/// Supported range of A and B (inclusive; decided on the exact value by [`crate::ranges`]).
pub const AB_RANGE: (f64, f64) = (0.0, 100.0);
/// Smallest nonzero A or B accepted. Below it terms of the products underflow past the
/// relative error model (see ARCHITECTURE.md, "Tiny A and B"); 0 itself is exact and accepted.
pub const AB_FLOOR: f64 = 1e-100;
/// The range of c at which the effective coefficients' range was set: A, B ∈ [0, 100] with c in
/// here give exactly A/√c ∈ [0, √10⁷] and B/c ∈ [0, 10⁵]. Any c > 0 whose A/√c and B/c lie in
/// those ranges is accepted ([`crate::ranges`], docs/MATH.md §5.5a).
pub const C_RANGE: (f64, f64) = (1e-3, 1e3);
/// Supported range of the power q.
pub const Q_RANGE: (f64, f64) = (0.05, 8.0);
/// Supported range of the exponential rate lambda.
pub const LAMBDA_RANGE: (f64, f64) = (1e-3, 10.0);
/// Largest supported finite depth N.
pub const MAX_DEPTH: u64 = 1_000_000_000_000_000_000;
/// Longest measured variance list accepted: 10^6 layers. The list itself is 8 MB of doubles; a
/// plan adds a checkpoint every 64 layers (about 0.63 MB, `plan/direct.rs`) and reads the list
/// from its `Params`, so the page's few cached plans stay small.
pub const MAX_LIST_LEN: usize = 1_000_000;

/// Which of the paper's products (docs/MATH.md, section 2). Each is prod_{l<=N} (1 + A a_l + B a_l^2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
pub enum Family {
    /// a_l = 1/sigma_l (Eq. 9, Pre-LN).
    Unscaled,
    /// a_l = 1/(l sigma_l) (Eqs. 15 and 62, LayerNorm Scaling).
    Scaled,
    /// a_l = 1/l (App. A.2's substitution); independent of the variance model.
    Harmonic,
    /// a_l = 1/(sqrt(l) sigma_l) (the LNS factor applied once).
    SqrtScaled,
}

impl Family {
    /// All families, in display order.
    pub const ALL: [Family; 4] = [
        Family::Unscaled,
        Family::Scaled,
        Family::Harmonic,
        Family::SqrtScaled,
    ];

    /// The name used on the command line, in URLs and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Family::Unscaled => "unscaled",
            Family::Scaled => "scaled",
            Family::Harmonic => "harmonic",
            Family::SqrtScaled => "sqrt-scaled",
        }
    }

    /// The extra power of l in a_l beyond 1/sigma_l: a_l = l^(-extra) / sigma_l.
    /// `None` for the harmonic family, whose a_l = 1/l ignores sigma.
    pub(crate) fn extra_power(self) -> Option<f64> {
        match self {
            Family::Unscaled => Some(0.0),
            Family::Scaled => Some(1.0),
            Family::SqrtScaled => Some(0.5),
            Family::Harmonic => None,
        }
    }
}

impl FromStr for Family {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        match s.trim() {
            "unscaled" => Ok(Family::Unscaled),
            "scaled" => Ok(Family::Scaled),
            "harmonic" => Ok(Family::Harmonic),
            "sqrt-scaled" | "sqrt_scaled" | "sqrtscaled" => Ok(Family::SqrtScaled),
            other => Err(Error::UnknownName {
                what: "family",
                text: other.to_string(),
                allowed: "unscaled, scaled, harmonic, sqrt-scaled",
            }),
        }
    }
}

/// The residual-stream variance sigma_l^2 (docs/MATH.md, section 2).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "kebab-case"))]
pub enum Variance {
    /// sigma_l^2 = c l^q.
    Power { c: f64, q: f64 },
    /// sigma_l^2 = c e^(lambda l).
    Exponential { c: f64, lambda: f64 },
    /// sigma_1^2, ..., sigma_L^2 as measured (finite depth only).
    Measured { values: Vec<f64> },
}

/// A fully specified product: family, constants and variance model.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Params {
    pub family: Family,
    pub a: f64,
    pub b: f64,
    pub variance: Variance,
}

impl Params {
    /// A power-law product: the common case.
    pub fn power(family: Family, a: f64, b: f64, c: f64, q: f64) -> Params {
        Params {
            family,
            a,
            b,
            variance: Variance::Power { c, q },
        }
    }

    /// Checks every parameter against the supported ranges ([`crate::ranges::check`], the doubles
    /// as their exact values).
    pub fn validate(&self) -> Result<(), Error> {
        let (a, b) = (Number::Double(self.a), Number::Double(self.b));
        let mut inputs = Inputs {
            a: Some(&a),
            b: Some(&b),
            ..Inputs::default()
        };
        let (c, q, lambda);
        match &self.variance {
            Variance::Power { c: cv, q: qv } => {
                c = Number::Double(*cv);
                q = Number::Double(*qv);
                inputs.c = Some(&c);
                inputs.q = Some(&q);
            }
            Variance::Exponential { c: cv, lambda: l } => {
                c = Number::Double(*cv);
                lambda = Number::Double(*l);
                inputs.c = Some(&c);
                inputs.lambda = Some(&lambda);
            }
            Variance::Measured { values } => validate_list(values)?,
        }
        ranges::check(&inputs)?;
        Ok(())
    }
}

/// A product as a person or the page gives it: every numeric parameter a [`Number`] (a double or
/// the decimal text typed), and power-law variance by q or by eps = 2 - q. See [`crate::exact`]
/// for what the text means: the exact rational it denotes.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ParamsInput {
    pub family: Family,
    pub a: Number,
    pub b: Number,
    pub variance: VarianceInput,
}

/// The variance model of a [`ParamsInput`].
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "kebab-case"))]
pub enum VarianceInput {
    /// sigma_l^2 = c l^q, with exactly one of q and eps (q = 2 - eps exactly).
    Power {
        c: Number,
        #[cfg_attr(feature = "serde", serde(default))]
        q: Option<Number>,
        #[cfg_attr(feature = "serde", serde(default))]
        eps: Option<Number>,
    },
    /// sigma_l^2 = c e^(lambda l).
    Exponential { c: Number, lambda: Number },
    /// Measured variances (doubles, as [`parse_list`] reads them).
    Measured { values: Vec<f64> },
}

/// What the exact inputs add to the doubles of [`Params`]: how far each double is from the
/// exact value (relative, 0 when exact) and the exact q of a power law.
#[derive(Debug, Clone)]
pub(crate) struct ExactInputs {
    /// |A_exact - A| / A (0 when exact or A = 0), and the same for B, c, lambda.
    pub(crate) rel_a: f64,
    pub(crate) rel_b: f64,
    pub(crate) rel_c: f64,
    pub(crate) rel_lambda: f64,
    /// The exact q of a power-law variance.
    pub(crate) q: Option<Exact>,
    /// Whether that exact q is the double `Variance::Power::q` itself (a double given, or typed
    /// text whose decimal is a double).
    pub(crate) q_is_double: bool,
    /// |q_exact - q|, rounded up (0 when q is the double itself).
    pub(crate) abs_q: f64,
    /// The series coefficients that vanish exactly for the exact A and B.
    pub(crate) zeros: crate::coefficients::ExactZeros,
    /// A_exact - A, B_exact - B and c_exact - c, correctly rounded (0 when exact): each input in
    /// double-double, for the finite part's terms (docs/MATH.md §4.8, Lemma F4).
    pub(crate) lo_a: f64,
    pub(crate) lo_b: f64,
    pub(crate) lo_c: f64,
}

impl ExactInputs {
    /// The same inputs for the product with c moved into range (`plan::normalized`): A by 2^j,
    /// B and c by 4^j, so each residual scales exactly as its double and the relative distances
    /// stay.
    pub(crate) fn normalized(&self, j: i32) -> ExactInputs {
        let (two_j, four_j) = (2f64.powi(j), 4f64.powi(j));
        ExactInputs {
            lo_a: self.lo_a * two_j,
            lo_b: self.lo_b * four_j,
            lo_c: self.lo_c * four_j,
            ..self.clone()
        }
    }

    /// The inputs of a [`Params`] given as doubles: every double is its own exact value.
    pub(crate) fn of_doubles(params: &Params) -> ExactInputs {
        ExactInputs {
            rel_a: 0.0,
            rel_b: 0.0,
            rel_c: 0.0,
            rel_lambda: 0.0,
            q: match params.variance {
                Variance::Power { q, .. } if q.is_finite() => Some(Exact::from_f64(q)),
                _ => None,
            },
            q_is_double: true,
            abs_q: 0.0,
            zeros: crate::coefficients::ExactZeros::of(params.a, params.b, || {
                (Exact::from_f64(params.a), Exact::from_f64(params.b))
            }),
            lo_a: 0.0,
            lo_b: 0.0,
            lo_c: 0.0,
        }
    }
}

fn relative(r: &crate::exact::Resolved) -> f64 {
    if r.rounding == 0.0 {
        0.0
    } else {
        // rounding <= u |value| for a normal double; rounded up by the division's own rounding
        crate::enclosure::next_up(r.rounding / r.value.abs())
    }
}

impl ParamsInput {
    /// The doubles the core computes with and what the exact inputs add to them; every range is
    /// decided on the exact values by [`ranges::check`] (so a decimal just outside a range is
    /// refused even when its double rounds inside).
    pub(crate) fn resolve(&self) -> Result<(Params, ExactInputs), Error> {
        let mut inputs = Inputs {
            a: Some(&self.a),
            b: Some(&self.b),
            ..Inputs::default()
        };
        match &self.variance {
            VarianceInput::Power { c, q, eps } => {
                if q.is_none() && eps.is_none() {
                    return Err(Error::QOrEps);
                }
                inputs.c = Some(c);
                inputs.q = q.as_ref();
                inputs.eps = eps.as_ref();
            }
            VarianceInput::Exponential { c, lambda } => {
                inputs.c = Some(c);
                inputs.lambda = Some(lambda);
            }
            VarianceInput::Measured { values } => validate_list(values)?,
        }
        let checked = ranges::check(&inputs)?;
        // (always present: A and B were given to the check)
        let missing = |name| Error::NotFinite { name };
        let a = checked.a.ok_or(missing("A"))?;
        let b = checked.b.ok_or(missing("B"))?;
        let mut inputs = ExactInputs {
            rel_a: relative(&a),
            rel_b: relative(&b),
            rel_c: 0.0,
            rel_lambda: 0.0,
            q: None,
            q_is_double: false,
            abs_q: 0.0,
            zeros: crate::coefficients::ExactZeros::of(a.value, b.value, || {
                (a.exact.clone(), b.exact.clone())
            }),
            lo_a: a.residual,
            lo_b: b.residual,
            lo_c: 0.0,
        };
        if let Some(c) = &checked.c {
            inputs.rel_c = relative(c);
            inputs.lo_c = c.residual;
        }
        let checked_c = checked.c.clone();
        let variance = match &self.variance {
            VarianceInput::Power { .. } => {
                let c = checked_c.ok_or(missing("c"))?;
                let q = checked.q.ok_or(missing("q"))?;
                inputs.q_is_double = q.rounding == 0.0;
                inputs.abs_q = q.rounding;
                inputs.q = Some(q.exact);
                Variance::Power {
                    c: c.value,
                    q: q.value,
                }
            }
            VarianceInput::Exponential { .. } => {
                let c = checked_c.ok_or(missing("c"))?;
                let lambda = checked.lambda.ok_or(missing("lambda"))?;
                inputs.rel_lambda = relative(&lambda);
                Variance::Exponential {
                    c: c.value,
                    lambda: lambda.value,
                }
            }
            VarianceInput::Measured { values } => Variance::Measured {
                values: values.clone(),
            },
        };
        let params = Params {
            family: self.family,
            a: a.value,
            b: b.value,
            variance,
        };
        Ok((params, inputs))
    }
}

fn validate_list(values: &[f64]) -> Result<(), Error> {
    if values.is_empty() {
        return Err(Error::InvalidList {
            reason: "it is empty: paste at least one positive variance".into(),
        });
    }
    if values.len() > MAX_LIST_LEN {
        return Err(Error::InvalidList {
            reason: format!(
                "it has {} entries; at most {MAX_LIST_LEN} are supported",
                values.len()
            ),
        });
    }
    for (i, &v) in values.iter().enumerate() {
        if !v.is_finite() || !(1e-300..=1e300).contains(&v) {
            return Err(Error::InvalidList {
                reason: format!(
                    "entry {} (layer {}) is {}; every variance must be a positive finite number",
                    i + 1,
                    i + 1,
                    crate::decimal::short(v)
                ),
            });
        }
    }
    Ok(())
}

/// Parses a measured list: numbers separated by commas, semicolons, whitespace or newlines.
pub fn parse_list(text: &str) -> Result<Vec<f64>, Error> {
    let mut values = Vec::new();
    for (i, tok) in text
        .split(|ch: char| ch == ',' || ch == ';' || ch.is_whitespace())
        .filter(|t| !t.is_empty())
        .enumerate()
    {
        let v = crate::exact::parse_f64(tok).ok_or_else(|| Error::InvalidList {
            reason: if crate::exact::Exact::is_decimal_syntax(tok) {
                format!(
                    "entry {} ({:?}) has more digits or a larger exponent than a variance can \
                     have; every variance must lie in [1e-300, 1e300]",
                    i + 1,
                    truncate(tok, 24)
                )
            } else {
                format!("entry {} ({:?}) is not a number", i + 1, truncate(tok, 24))
            },
        })?;
        values.push(v);
        if values.len() > MAX_LIST_LEN {
            break;
        }
    }
    validate_list(&values)?;
    Ok(values)
}

fn truncate(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

/// How deep: a finite N in 1..=10^18, or the limit N -> infinity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Depth {
    Finite(u64),
    Infinite,
}

impl Depth {
    /// Checks 1 <= n <= 10^18.
    pub fn finite(n: u64) -> Result<Depth, Error> {
        if (1..=MAX_DEPTH).contains(&n) {
            Ok(Depth::Finite(n))
        } else {
            Err(Error::InvalidDepth {
                text: n.to_string(),
            })
        }
    }

    /// Accepts a float that is an exact integer in 1..=10^18 (JavaScript numbers), or +infinity.
    pub fn from_f64(x: f64) -> Result<Depth, Error> {
        if x == f64::INFINITY {
            return Ok(Depth::Infinite);
        }
        if x.is_finite() && x >= 1.0 && x <= MAX_DEPTH as f64 && x.fract() == 0.0 {
            return Ok(Depth::Finite((x as u64).min(MAX_DEPTH)));
        }
        Err(Error::InvalidDepth {
            text: crate::decimal::plain(x),
        })
    }
}

impl FromStr for Depth {
    type Err = Error;
    /// Accepts `1000000`, `1_000_000`, `1e6`, `2.5e3`, `10^6`, `inf`, `infinity`.
    fn from_str(s: &str) -> Result<Depth, Error> {
        let bad = || Error::InvalidDepth {
            text: s.to_string(),
        };
        let t = s.trim().replace('_', "");
        let lower = t.to_ascii_lowercase();
        if matches!(lower.as_str(), "inf" | "infinity" | "+inf" | "∞") {
            return Ok(Depth::Infinite);
        }
        if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) {
            let n: u64 = t.parse().map_err(|_| bad())?;
            return Depth::finite(n).map_err(|_| bad());
        }
        let (mantissa, exponent) = if let Some((m, e)) = lower.split_once('e') {
            (m, e)
        } else if let Some((m, e)) = lower.split_once('^') {
            if m != "10" {
                return Err(bad());
            }
            ("1", e)
        } else {
            return Err(bad());
        };
        let exp: u32 = exponent
            .trim_start_matches('+')
            .parse()
            .map_err(|_| bad())?;
        if exp > 18 {
            return Err(bad());
        }
        // Exact decimal arithmetic: mantissa digits times 10^exp must be an integer.
        let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        if int_part.is_empty() && frac_part.is_empty()
            || !int_part.bytes().all(|b| b.is_ascii_digit())
            || !frac_part.bytes().all(|b| b.is_ascii_digit())
        {
            return Err(bad());
        }
        let frac_trim = frac_part.trim_end_matches('0');
        if frac_trim.len() as u32 > exp {
            return Err(bad());
        }
        let digits = format!("{int_part}{frac_trim}");
        let scale = exp - frac_trim.len() as u32;
        let base: u128 = if digits.is_empty() {
            0
        } else {
            digits.parse().map_err(|_| bad())?
        };
        let n = base.checked_mul(10u128.pow(scale)).ok_or_else(bad)?;
        if n == 0 || n > MAX_DEPTH as u128 {
            return Err(bad());
        }
        Ok(Depth::Finite(n as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_parsing() {
        assert_eq!("1000000".parse::<Depth>(), Ok(Depth::Finite(1_000_000)));
        assert_eq!("1e6".parse::<Depth>(), Ok(Depth::Finite(1_000_000)));
        assert_eq!("2.5e3".parse::<Depth>(), Ok(Depth::Finite(2500)));
        assert_eq!("1e18".parse::<Depth>(), Ok(Depth::Finite(MAX_DEPTH)));
        assert_eq!("10^3".parse::<Depth>(), Ok(Depth::Finite(1000)));
        assert_eq!("inf".parse::<Depth>(), Ok(Depth::Infinite));
        for bad in [
            "0",
            "-1",
            "1e19",
            "1.5",
            "2.55e1",
            "abc",
            "",
            "1e",
            "e5",
            "1000000000000000001",
            "NaN",
        ] {
            assert!(bad.parse::<Depth>().is_err(), "{bad} should be rejected");
        }
    }

    #[test]
    fn depth_from_f64() {
        assert_eq!(Depth::from_f64(1e6), Ok(Depth::Finite(1_000_000)));
        assert_eq!(Depth::from_f64(1e18), Ok(Depth::Finite(MAX_DEPTH)));
        assert_eq!(Depth::from_f64(f64::INFINITY), Ok(Depth::Infinite));
        for bad in [0.0, 0.5, -3.0, 1.5, f64::NAN, 2e18, f64::NEG_INFINITY] {
            assert!(Depth::from_f64(bad).is_err());
        }
    }

    #[test]
    fn validation_names_the_parameter() {
        let p = Params::power(Family::Scaled, -1.0, 1.0, 1.0, 1.0);
        let msg = p.validate().unwrap_err().to_string();
        assert!(msg.contains("A = -1") && msg.contains("[0, 100]"), "{msg}");
        let p = Params::power(Family::Scaled, 1.0, 1.0, 1.0, f64::NAN);
        assert_eq!(p.validate().unwrap_err(), Error::NotFinite { name: "q" });
        let p = Params {
            family: Family::Unscaled,
            a: 1.0,
            b: 1.0,
            variance: Variance::Exponential {
                c: 1.0,
                lambda: 0.0,
            },
        };
        assert!(p.validate().unwrap_err().to_string().contains("lambda"));
    }

    #[test]
    fn list_parsing() {
        assert_eq!(
            parse_list("1, 2\n3;4  5").unwrap(),
            vec![1.0, 2.0, 3.0, 4.0, 5.0]
        );
        assert!(parse_list("").unwrap_err().to_string().contains("empty"));
        assert!(parse_list("1, -2")
            .unwrap_err()
            .to_string()
            .contains("entry 2"));
        assert!(parse_list("1, x")
            .unwrap_err()
            .to_string()
            .contains("not a number"));
        assert!(parse_list("1, 0").is_err());
        assert!(parse_list("1, inf").is_err());
        // beyond a double, and beyond what is read: each named
        assert!(parse_list("1, 1e400")
            .unwrap_err()
            .to_string()
            .contains("entry 2 (layer 2) is inf"));
        assert!(parse_list("1, 2.5e1234567")
            .unwrap_err()
            .to_string()
            .contains("larger exponent than a variance can have"));
        // every entry is the double the float parser gives for it
        let text =
            "0.1 2.5e-3 1.2345678901234567e-5 0.30000000000000004 7e22 123456789012345678901e-40";
        let want: Vec<f64> = text.split(' ').map(|t| t.parse().unwrap()).collect();
        assert_eq!(parse_list(text).unwrap(), want);
        let long = vec!["1"; MAX_LIST_LEN + 1].join(",");
        assert!(parse_list(&long)
            .unwrap_err()
            .to_string()
            .contains("at most 1000000 are supported"));
    }
}
