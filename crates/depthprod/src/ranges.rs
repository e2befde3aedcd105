//! The supported ranges, and [`check`], the one function that decides them.
//!
//! Every entry point hands its numeric inputs to [`check`] as they were given: the CLI's `eval`,
//! `curve`, `closed-forms` and `rotation`, every function of the wasm API, and
//! [`crate::Plan::new`] for a product given as doubles. [`check`] decides every range on the
//! exact value: typed text is the rational it denotes (`100.00000000000000001` is above 100 although
//! its double is 100), a double is its own exact value, and each end of a range is the decimal it is
//! written as (the double nearest 0.001 is above 1/1000; the decimal 0.001 is the end). A refusal
//! names the parameter and shows the value as it was typed (shortened past 40 characters). (The
//! depth N is an integer: [`crate::Depth`] reads it exactly, digits and exponent, and its
//! constructors are where 1 <= N <= 10^18 is decided; a measured list holds doubles, checked
//! entry by entry as it is read.)
//!
//! **Effective coefficients.** Under σ_l² = c l^q or c e^(λ l) every a_l is c^(-1/2) times its value
//! at c = 1, so each factor 1 + A a_l + B a_l² depends on A/√c and B/c only (docs/MATH.md §5.5a).
//! The engines are certified on the effective coefficients A/√c ∈ [0, √10⁷] and B/c ∈ [0, 10⁵]
//! (what A, B ∈ [0, 100] with c ∈ [10⁻³, 10³] gives) with, when nonzero, A/√c and B/c at least
//! 10⁻¹¹⁰ (the smallest nonzero A or B is 10⁻¹⁰⁰: see [`AB_FLOOR`]). So any c > 0 (in
//! [`C`], a double's comfortable range) is accepted whose A/√c and B/c lie there; decided exactly
//! as A² ≤ 10⁷ c, B ≤ 10⁵ c, A² ≥ 10⁻²²⁰ c and B ≥ 10⁻¹¹⁰ c.

use crate::decimal;
use crate::double_double::two_prod;
#[cfg(test)]
use crate::exact::parse_f64;
use crate::exact::{Exact, Number, Resolved};
use crate::Error;
use std::cmp::Ordering;

/// A closed range [min, max] whose ends are the decimals written here, compared exactly; the
/// doubles nearest them, and on which side of its decimal each of those doubles lies (the double
/// 0.05 is above 5/100), so a double given at an end is decided without long decimals (a test
/// checks each against the exact route).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Range {
    pub min: &'static str,
    pub max: &'static str,
    pub min_f64: f64,
    pub max_f64: f64,
    pub min_side: Ordering,
    pub max_side: Ordering,
}

impl Range {
    /// The range as messages write it: `[min, max]`.
    pub fn text(&self) -> String {
        format!("[{}, {}]", self.min, self.max)
    }
}

/// A and B.
pub const AB: Range = Range {
    min: "0",
    max: "100",
    min_f64: 0.0,
    max_f64: 100.0,
    min_side: Ordering::Equal,
    max_side: Ordering::Equal,
};
/// A nonzero A or B below this is refused (ARCHITECTURE.md, "Tiny A and B").
pub const AB_FLOOR: &str = "1e-100";
/// c itself (power law and exponential variance): a double's comfortable range. The effective
/// coefficients A/√c and B/c restrict it further whenever A or B is nonzero.
pub const C: Range = Range {
    min: "1e-300",
    max: "1e300",
    min_f64: 1e-300,
    max_f64: 1e300,
    min_side: Ordering::Greater,
    max_side: Ordering::Greater,
};
/// The power q of σ_l² = c l^q.
pub const Q: Range = Range {
    min: "0.05",
    max: "8",
    min_f64: 0.05,
    max_f64: 8.0,
    min_side: Ordering::Greater,
    max_side: Ordering::Equal,
};
/// eps = 2 - q, when eps is given instead of q: exactly q ∈ [`Q`].
pub const EPS: Range = Range {
    min: "-6",
    max: "1.95",
    min_f64: -6.0,
    max_f64: 1.95,
    min_side: Ordering::Equal,
    max_side: Ordering::Less,
};
/// The rate λ of σ_l² = c e^(λ l).
pub const LAMBDA: Range = Range {
    min: "0.001",
    max: "10",
    min_f64: 1e-3,
    max_f64: 10.0,
    min_side: Ordering::Greater,
    max_side: Ordering::Equal,
};
/// The rotation angle θ.
pub const THETA: Range = Range {
    min: "-100",
    max: "100",
    min_f64: -100.0,
    max_f64: 100.0,
    min_side: Ordering::Equal,
    max_side: Ordering::Equal,
};
/// The rotation exponent r (an integer).
pub const R: Range = Range {
    min: "0",
    max: "8",
    min_f64: 0.0,
    max_f64: 8.0,
    min_side: Ordering::Equal,
    max_side: Ordering::Equal,
};
/// (A/√c)² = A²/c at most this: A/√c ≤ √10⁷ = 3162.27…
pub const ALPHA_SQUARED_MAX: &str = "1e7";
/// B/c at most this.
pub const BETA_MAX: &str = "1e5";
/// A nonzero A/√c or B/c below this is refused (A²/c below its square).
pub const EFFECTIVE_FLOOR: &str = "1e-110";
const ALPHA_SQUARED_FLOOR: &str = "1e-220";

/// The numeric inputs of one request, as given; `None` for those it does not have.
#[derive(Debug, Clone, Copy, Default)]
pub struct Inputs<'a> {
    pub a: Option<&'a Number>,
    pub b: Option<&'a Number>,
    /// c of σ_l² = c l^q or c e^(λ l): with A and B, the effective coefficients are checked too.
    pub c: Option<&'a Number>,
    pub q: Option<&'a Number>,
    /// eps = 2 - q (at most one of q and eps).
    pub eps: Option<&'a Number>,
    pub lambda: Option<&'a Number>,
    pub theta: Option<&'a Number>,
    pub r: Option<u32>,
}

/// The inputs resolved (each the double computed with, its exact value and their distance), all
/// inside their ranges.
#[derive(Debug, Clone, Default)]
pub struct Checked {
    pub a: Option<Resolved>,
    pub b: Option<Resolved>,
    pub c: Option<Resolved>,
    /// q as given, or exactly 2 - eps.
    pub q: Option<Resolved>,
    /// eps, when given.
    pub eps: Option<Resolved>,
    pub lambda: Option<Resolved>,
    pub theta: Option<Resolved>,
}

/// Resolves every input and decides every range on the exact values (module docs). The order of
/// the checks is the order of the fields; the first refusal is returned.
pub fn check(inputs: &Inputs) -> Result<Checked, Error> {
    let mut out = Checked::default();
    for (name, given, slot) in [("A", inputs.a, &mut out.a), ("B", inputs.b, &mut out.b)] {
        if let Some(given) = given {
            let r = in_range(name, given, &AB)?;
            // as in in_range: the double decides unless it is the floor's own double
            let below = match r.value.partial_cmp(&1e-100) {
                Some(Ordering::Greater) => false,
                Some(Ordering::Less) => r.exact.signum() != 0,
                _ => r.exact.cmp_exact(&decimal_of(AB_FLOOR)).is_lt(),
            };
            if below {
                return Err(Error::BelowFloor {
                    name,
                    value: shown(given),
                });
            }
            *slot = Some(r);
        }
    }
    if let Some(c) = inputs.c {
        out.c = Some(in_range("c", c, &C)?);
    }
    match (inputs.q, inputs.eps) {
        (Some(_), Some(_)) => return Err(Error::QOrEps),
        (Some(q), None) => out.q = Some(in_range("q", q, &Q)?),
        (None, Some(eps)) => {
            let eps = in_range("eps", eps, &EPS)?;
            out.q = Some(two_minus(&eps));
            out.eps = Some(eps);
        }
        (None, None) => {}
    }
    if let Some(lambda) = inputs.lambda {
        out.lambda = Some(in_range("lambda", lambda, &LAMBDA)?);
    }
    if let (Some(c), Some(c_given)) = (&out.c, inputs.c) {
        effective(inputs, &out, c, c_given)?;
    }
    if let Some(theta) = inputs.theta {
        out.theta = Some(in_range("theta", theta, &THETA)?);
    }
    if let Some(r) = inputs.r {
        in_range("r", &Number::Double(r as f64), &R)?;
    }
    Ok(out)
}

/// 2 - x exactly, resolved.
fn two_minus(x: &Resolved) -> Resolved {
    let exact = Exact::int(2).sub(&x.exact);
    Resolved::of(exact.to_f64(), exact)
}

/// The value as given, for messages: typed text trimmed and cut to 40 characters (39 and an
/// ellipsis, as the page cuts text), a double in its shortest round-trip form.
pub fn shown(given: &Number) -> String {
    match given {
        Number::Double(x) => decimal::short(*x),
        Number::Text(text) => cut(text.trim()),
    }
}

/// `text` cut to 40 characters: the first 39 and an ellipsis.
pub(crate) fn cut(text: &str) -> String {
    if text.chars().count() > 40 {
        text.chars().take(39).chain(['…']).collect()
    } else {
        text.to_string()
    }
}

fn decimal_of(text: &str) -> Exact {
    Exact::parse(text).unwrap_or_else(|| Exact::int(0))
}

/// Resolves `given` and decides `range` on its exact value.
///
/// Only a value whose double equals a bound's double needs the exact comparison: rounding to
/// nearest is monotone and the bound's decimal rounds to the bound's double b, so when the
/// value's double differs from b, the exact value lies on the same side of the decimal as the
/// double does of b (x <= decimal would give round(x) <= b).
fn in_range(name: &'static str, given: &Number, range: &Range) -> Result<Resolved, Error> {
    let r = match given.resolve(name) {
        // typed text beyond a double (1e400) is a number outside every range
        Err(Error::NotFinite { .. }) if matches!(given, Number::Text(_)) => {
            return Err(Error::OutOfRange {
                name,
                value: shown(given),
                range: range.text(),
            })
        }
        other => other?,
    };
    // a double at an end's double is that double: its side of the end's decimal is the table's
    let double = matches!(given, Number::Double(_));
    let side = |bound: &str, b: f64, table: Ordering| match r.value.partial_cmp(&b) {
        Some(Ordering::Equal) if double => table,
        Some(Ordering::Equal) | None => r.exact.cmp_exact(&decimal_of(bound)),
        Some(other) => other,
    };
    if side(range.min, range.min_f64, range.min_side).is_lt()
        || side(range.max, range.max_f64, range.max_side).is_gt()
    {
        return Err(Error::OutOfRange {
            name,
            value: shown(given),
            range: range.text(),
        });
    }
    Ok(r)
}

/// x compared with bound · c (x, c exact, c > 0), from the doubles when they decide it: `ratio`
/// is the double x/c with relative error below 1e-13 (a few roundings of inputs within u of
/// their exact values), so a ratio beyond 1e-13 of the bound is on the exact side. `dd`, when the
/// inputs are doubles and the bound is a double (10^7, 10^5), is x and bound · c each as an exact
/// double-double (TwoProd): see [`compare_dd`].
fn compare_ratio(
    ratio: f64,
    x: impl FnOnce() -> Exact,
    (bound, b): (&str, f64),
    c: &Exact,
    dd: Option<((f64, f64), (f64, f64))>,
) -> Ordering {
    if ratio > b * (1.0 + 1e-13) {
        Ordering::Greater
    } else if ratio < b * (1.0 - 1e-13) {
        Ordering::Less
    } else if let Some(order) = dd.and_then(|(l, r)| compare_dd(l, r)) {
        order
    } else {
        x().cmp_exact(&decimal_of(bound).mul(c))
    }
}

/// The order of p1 + e1 and p2 + e2, two exact double-doubles from TwoProd (|e| at most half an
/// ulp of p), where the doubles decide it: equal heads leave the order of e1 - e2 (whose rounding
/// keeps its sign), heads further apart than |e1| + |e2| their own order. `None` otherwise.
fn compare_dd((p1, e1): (f64, f64), (p2, e2): (f64, f64)) -> Option<Ordering> {
    if p1 == p2 {
        (e1 - e2).partial_cmp(&0.0)
    } else if (p1 - p2).abs() > 2.0 * (e1.abs() + e2.abs()) {
        p1.partial_cmp(&p2)
    } else {
        None
    }
}

/// A/√c and B/c inside their ranges (module docs), decided exactly.
fn effective(inputs: &Inputs, out: &Checked, c: &Resolved, c_given: &Number) -> Result<(), Error> {
    let zero = Number::Double(0.0);
    let terms = [
        ("A/√c", &out.a, inputs.a, true),
        ("B/c", &out.b, inputs.b, false),
    ];
    for (name, resolved, given, squared) in terms {
        let Some(x) = resolved else { continue };
        if x.exact.signum() == 0 {
            continue;
        }
        // A²/c or B/c, in doubles (A ≥ 1e-100 and c ≤ 1e300: no overflow; an underflow is
        // far below the floor, as the exact value is)
        let ratio = if squared {
            x.value * x.value / c.value
        } else {
            x.value / c.value
        };
        // the exact A^2 or B, made only where the doubles do not decide
        let numerator = || {
            if squared {
                x.exact.mul(&x.exact)
            } else {
                x.exact.clone()
            }
        };
        // A^2 (or B) and 10^7 c (or 10^5 c) exactly as double-doubles, for doubles given
        let exact_doubles = x.rounding == 0.0 && c.rounding == 0.0;
        let dd = |b: f64| {
            exact_doubles.then(|| {
                let lhs = if squared {
                    two_prod(x.value, x.value)
                } else {
                    (x.value, 0.0)
                };
                (lhs, two_prod(b, c.value))
            })
        };
        let (max, floor) = if squared {
            ((ALPHA_SQUARED_MAX, 1e7), (ALPHA_SQUARED_FLOOR, 1e-220))
        } else {
            ((BETA_MAX, 1e5), (EFFECTIVE_FLOOR, 1e-110))
        };
        // the message's parts, made only for a refusal
        let approx = || decimal::approx(if squared { ratio.sqrt() } else { ratio }, 6);
        let from = || {
            format!(
                "{} = {}, c = {}",
                &name[..1],
                shown(given.unwrap_or(&zero)),
                shown(c_given)
            )
        };
        if compare_ratio(ratio, numerator, max, &c.exact, dd(max.1)).is_gt() {
            return Err(Error::EffectiveOutOfRange {
                name,
                approx: approx(),
                from: from(),
                range: if squared {
                    "[0, 3162.27…] (A²/c at most 10^7)"
                } else {
                    "[0, 100000]"
                },
            });
        }
        if compare_ratio(ratio, numerator, floor, &c.exact, None).is_lt() {
            return Err(Error::EffectiveBelowFloor {
                name,
                approx: approx(),
                from: from(),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> Number {
        Number::Text(s.into())
    }

    /// Each example of the audit, refused on the exact decimal, with the value as typed.
    #[test]
    fn hairs_outside_a_range_are_refused_as_typed() {
        let cases: [(Inputs, &str); 7] = [
            (
                Inputs {
                    q: Some(&text("8.0000000000000000001")),
                    ..Inputs::default()
                },
                "q = 8.0000000000000000001 is outside the supported range [0.05, 8]",
            ),
            (
                Inputs {
                    lambda: Some(&text("10.0000000000000000001")),
                    ..Inputs::default()
                },
                "lambda = 10.0000000000000000001 is outside the supported range [0.001, 10]",
            ),
            (
                Inputs {
                    a: Some(&text("100.00000000000000001")),
                    ..Inputs::default()
                },
                "A = 100.00000000000000001 is outside the supported range [0, 100]",
            ),
            (
                Inputs {
                    theta: Some(&text("100.00000000000000001")),
                    ..Inputs::default()
                },
                "theta = 100.00000000000000001 is outside the supported range [-100, 100]",
            ),
            (
                Inputs {
                    a: Some(&text("9.9999999999999999999e-101")),
                    ..Inputs::default()
                },
                "A = 9.9999999999999999999e-101 is nonzero but below 1e-100",
            ),
            (
                Inputs {
                    eps: Some(&text("1.9500000000000000001")),
                    ..Inputs::default()
                },
                "eps = 1.9500000000000000001 is outside the supported range [-6, 1.95]",
            ),
            (
                Inputs {
                    a: Some(&text(&format!("1{}", "0".repeat(60)))),
                    ..Inputs::default()
                },
                "A = 100000000000000000000000000000000000000… is outside",
            ),
        ];
        for (inputs, want) in cases {
            let msg = check(&inputs).unwrap_err().to_string();
            assert!(msg.starts_with(want), "{msg}");
        }
        // and the ends themselves, typed, are inside
        for (q, lambda, a) in [("0.05", "0.001", "0"), ("8", "10", "100")] {
            check(&Inputs {
                q: Some(&text(q)),
                lambda: Some(&text(lambda)),
                a: Some(&text(a)),
                theta: Some(&text("-100")),
                ..Inputs::default()
            })
            .unwrap();
        }
    }

    /// A/√c and B/c decide c: c = 0.001 at A = B = 100 is the old corner, c = 1e-5 with A = 1
    /// is inside, c = 1e-5 with A = 100 is not; the ends decided exactly.
    #[test]
    fn effective_coefficients_decide_c() {
        let ok = |a: &str, b: &str, c: &str| {
            check(&Inputs {
                a: Some(&text(a)),
                b: Some(&text(b)),
                c: Some(&text(c)),
                ..Inputs::default()
            })
        };
        ok("100", "100", "0.001").unwrap();
        ok("1", "1", "0.00001").unwrap();
        ok("0.02", "0.0001", "0.000327206").unwrap();
        ok("0", "0", "1e-300").unwrap();
        // A^2 = 10^7 c exactly, and a hair above
        ok("1", "0", "1e-7").unwrap();
        let msg = ok("1", "0", "0.0000000999999999999999999")
            .unwrap_err()
            .to_string();
        assert!(msg.starts_with("A/√c ≈ 3162.28 (A = 1, c = 0.0000000999999999999999999) is outside the supported range [0, 3162.27…]"), "{msg}");
        let msg = ok("100", "100", "0.00099999999999999999999")
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("A/√c") && msg.contains("c = 0.00099999999999999999999"),
            "{msg}"
        );
        let msg = ok("0", "100", "0.000999999999999999")
            .unwrap_err()
            .to_string();
        assert!(msg.starts_with("B/c ≈ 100000 (B = 100, c = 0.000999999999999999) is outside the supported range [0, 100000]"), "{msg}");
        // floors: B = 1e-100 with c = 1e10 gives B/c = 1e-110, the floor itself
        ok("0", "1e-100", "1e10").unwrap();
        let msg = ok("0", "1e-100", "1.0000000000000000001e10")
            .unwrap_err()
            .to_string();
        assert!(msg.starts_with("B/c ≈ 1e-110 (B = 1e-100, c = 1.0000000000000000001e10) is nonzero but below 1e-110"), "{msg}");
        let msg = ok("1e-100", "0", "1e30").unwrap_err().to_string();
        assert!(msg.starts_with("A/√c ≈ 1e-115"), "{msg}");
        // c itself
        let msg = ok("0", "0", "0").unwrap_err().to_string();
        assert!(
            msg.starts_with("c = 0 is outside the supported range [1e-300, 1e300]"),
            "{msg}"
        );
    }

    /// The double-double comparison decides as the exact one: the corner (A = 100 at the double
    /// 0.001, just inside), the double below it (outside), B against 10^5 c at both.
    #[test]
    fn double_double_comparisons_match_the_exact_ones() {
        let dd_side = |a: f64, b: f64, c: f64| {
            let r = check(&Inputs {
                a: Some(&Number::Double(a)),
                b: Some(&Number::Double(b)),
                c: Some(&Number::Double(c)),
                ..Inputs::default()
            });
            r.is_ok()
        };
        let exact_side = |a: f64, b: f64, c: f64| {
            let (ea, eb, ec) = (Exact::from_f64(a), Exact::from_f64(b), Exact::from_f64(c));
            let seven = Exact::parse("1e7").unwrap().mul(&ec);
            let five = Exact::parse("1e5").unwrap().mul(&ec);
            ea.mul(&ea).cmp_exact(&seven).is_le() && eb.cmp_exact(&five).is_le()
        };
        for c in [1e-3, 1e-3f64.next_down(), 1e-3f64.next_up(), 1e-5, 4e-7] {
            for (a, b) in [(100.0, 0.0), (0.0, 100.0), (100.0, 100.0), (1.0, 1.0)] {
                let (a, b) = (a * (c / 1e-3).sqrt().min(1.0), b * (c / 1e-3).min(1.0));
                assert_eq!(dd_side(a, b, c), exact_side(a, b, c), "A={a} B={b} c={c}");
            }
        }
        assert!(dd_side(100.0, 100.0, 1e-3));
        assert!(!dd_side(100.0, 0.0, 1e-3f64.next_down()));
        assert!(!dd_side(0.0, 100.0, 1e-3f64.next_down()));
    }

    /// Each range's doubles are its decimal ends' nearest doubles.
    #[test]
    fn range_doubles_are_the_decimals_doubles() {
        for r in [AB, C, Q, EPS, LAMBDA, THETA, R] {
            assert_eq!(parse_f64(r.min), Some(r.min_f64), "{r:?}");
            assert_eq!(parse_f64(r.max), Some(r.max_f64), "{r:?}");
            let side =
                |x: f64, text: &str| Exact::from_f64(x).cmp_exact(&Exact::parse(text).unwrap());
            assert_eq!(side(r.min_f64, r.min), r.min_side, "{r:?}");
            assert_eq!(side(r.max_f64, r.max), r.max_side, "{r:?}");
        }
        for (text, x) in [
            (ALPHA_SQUARED_MAX, 1e7),
            (ALPHA_SQUARED_FLOOR, 1e-220),
            (BETA_MAX, 1e5),
            (EFFECTIVE_FLOOR, 1e-110),
        ] {
            assert_eq!(parse_f64(text), Some(x));
        }
    }

    /// Doubles decide as their exact values: the double 0.001 is above 1/1000 (inside), the
    /// double below it is not; -0 is 0.
    #[test]
    fn doubles_are_their_exact_values() {
        let lambda = |x: f64| {
            check(&Inputs {
                lambda: Some(&Number::Double(x)),
                ..Inputs::default()
            })
        };
        lambda(1e-3).unwrap();
        assert!(lambda(1e-3f64.next_down()).is_err());
        lambda(10.0).unwrap();
        assert!(lambda(10f64.next_up()).is_err());
        check(&Inputs {
            a: Some(&Number::Double(-0.0)),
            ..Inputs::default()
        })
        .unwrap();
        let msg = check(&Inputs {
            a: Some(&Number::Text("-1e-400".into())),
            ..Inputs::default()
        })
        .unwrap_err()
        .to_string();
        assert!(msg.starts_with("A = -1e-400 is outside"), "{msg}");
    }
}
