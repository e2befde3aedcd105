//! The correction's closed forms (docs/MATH.md, section 3; their evaluation in section 5.6).

use crate::exact::{Exact, Number};
use crate::ranges::{self, Inputs};
use crate::sum::{LIBM_REL, U};
use crate::zeta::riemann_zeta;
use crate::{Enclosure, Error};

/// The ranges of doubles given to the functions below, decided by [`ranges::check`] (the one
/// place every range is decided) on their exact values.
fn check_doubles(
    a: f64,
    b: f64,
    c: Option<f64>,
    q: Option<f64>,
    lambda: Option<f64>,
) -> Result<(), Error> {
    let [a, b] = [a, b].map(Number::Double);
    let (c, q, lambda) = (
        c.map(Number::Double),
        q.map(Number::Double),
        lambda.map(Number::Double),
    );
    ranges::check(&Inputs {
        a: Some(&a),
        b: Some(&b),
        c: c.as_ref(),
        q: q.as_ref(),
        lambda: lambda.as_ref(),
        ..Inputs::default()
    })?;
    Ok(())
}

/// The correction's bound on the scaled product with sigma_l^2 >= c l^q:
/// `log Q_N <= (A/sqrt c) zeta(1 + q/2) + (B/c) zeta(2 + q)` for every N (docs/MATH.md section 3,
/// the zeta-sum lemma). The enclosure is of that closed form's value: zeta by
/// [`riemann_zeta`] (certified), the exponents' rounding by |zeta'(s)| <= zeta(s) (log 2 + 1/(s-1)).
pub fn zeta_bound(a: f64, b: f64, c: f64, q: f64) -> Result<Enclosure, Error> {
    check_doubles(a, b, Some(c), Some(q), None)?;
    zeta_bound_with(a, b, c, q, Rounding::default())
}

/// How far typed inputs are from the doubles computed with: relative for A, B, c, lambda,
/// absolute for q and eps (see [`crate::exact`]).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Rounding {
    pub(crate) rel_a: f64,
    pub(crate) rel_b: f64,
    pub(crate) rel_c: f64,
    pub(crate) rel_lambda: f64,
    pub(crate) abs_q: f64,
}

pub(crate) fn zeta_bound_with(
    a: f64,
    b: f64,
    c: f64,
    q: f64,
    r: Rounding,
) -> Result<Enclosure, Error> {
    let z1 = riemann_zeta(1.0 + 0.5 * q)?;
    let z2 = riemann_zeta(2.0 + q)?;
    let ka = a / c.sqrt();
    let kb = b / c;
    // 1 + q/2 and 2 + q may round, and a typed q may differ from its double by abs_q:
    // |dzeta/ds| <= zeta(s) (log 2 + 1/(s-1)) covers both.
    let s1_err = if (1.0 + 0.5 * q) - 1.0 == 0.5 * q {
        0.0
    } else {
        U * (1.0 + 0.5 * q)
    } + 0.5 * r.abs_q;
    let s2_err = if (2.0 + q) - 2.0 == q {
        0.0
    } else {
        U * (2.0 + q)
    } + r.abs_q;
    // q - abs_q > 0 (q >= 0.05 and abs_q <= u q), so 1/(s1 - 1) <= 2/(q - abs_q)
    let d1 = z1.hi * (2f64.ln() + 2.0 / (q - r.abs_q)) * s1_err;
    let d2 = z2.hi * (2f64.ln() + 1.0) * s2_err;
    let value = ka * z1.value + kb * z2.value;
    // the bound is linear in A and B and goes as c^(-1/2), c^(-1): typed-input rounding
    let input = ka * z1.hi * (r.rel_a + r.rel_c) + kb * z2.hi * (r.rel_b + 2.0 * r.rel_c);
    // 8u covers sqrt, two divisions, two products and the sum (each one rounding, u)
    let err = ka * (z1.radius() + d1) + kb * (z2.radius() + d2) + 8.0 * U * value.abs() + input;
    Ok(Enclosure::with_radius(value, err))
}

/// Integral-test bound on what the correction's zeta sums still have to add after depth N:
/// `(A/sqrt c) N^(-q/2)/(q/2) + (B/c) N^(-1-q)/(1+q)`, for N >= 1.
///
/// Why it bounds the scaled tail (docs/MATH.md, Lemma 2 and Proposition 2): x^-s is decreasing,
/// so sum_{l>N} l^-s <= int_N^inf x^-s dx = N^(1-s)/(s-1) for s > 1 (integral test), and with
/// log(1 + x) <= x every term of the scaled product under sigma_l^2 >= c l^q obeys
/// g(l) <= (A/sqrt c) l^(-1-q/2) + (B/c) l^(-2-q). For A = B = c = q = 1 this is the correction's
/// 2/sqrt N + 1/(2 N^2). The result is rounded upward: every operation below is a correctly rounded
/// one except `powf`, whose error we take as at most 2 ulp, so the total relative rounding is below
/// 16u and the factor (1 + 32u) keeps the returned number an upper bound.
pub fn zeta_tail_bound(a: f64, b: f64, c: f64, q: f64, depth: f64) -> Result<f64, Error> {
    check_doubles(a, b, Some(c), Some(q), None)?;
    zeta_tail_bound_checked(a, b, c, q, depth)
}

/// [`zeta_tail_bound`] of inputs already checked.
fn zeta_tail_bound_checked(a: f64, b: f64, c: f64, q: f64, depth: f64) -> Result<f64, Error> {
    if !depth.is_finite() || depth < 1.0 {
        return Err(Error::InvalidDepth {
            text: crate::decimal::plain(depth),
        });
    }
    let half_q = 0.5 * q;
    let first = a / c.sqrt() * depth.powf(-half_q) / half_q;
    let one_plus_q = 1.0 + q;
    let second = b / c * depth.powf(-one_plus_q) / one_plus_q;
    // If 1 + q rounded, the exact exponent differs by at most u (1 + q): N^-(1+q) moves by at most
    // the relative amount u (1 + q) log N (to first order, hence the 1.01), the divisor by u.
    let widen = if one_plus_q - 1.0 == q {
        1.0
    } else {
        1.0 + 1.01 * U * one_plus_q * depth.ln() + 2.0 * U
    };
    Ok((first + second * widen) * (1.0 + 32.0 * U))
}

/// Eq. 65 applies for 0 < eps < 2 (an applicability condition, not a supported range).
fn check_eps(eps: f64) -> Result<(), Error> {
    if !eps.is_finite() {
        return Err(Error::NotFinite { name: "eps" });
    }
    if !(eps > 0.0 && eps < 2.0) {
        return Err(Error::OutOfRange {
            name: "eps",
            value: crate::decimal::short(eps),
            range: "(0, 2) of Eq. 65".into(),
        });
    }
    Ok(())
}

/// Eq. 65's exponent at depth L for sigma_l^2 ~ l^(2 - eps):
/// `A (L^(eps/2 - 1) - 1)/(eps/2 - 1) + B (L^(eps - 3) - 1)/(eps - 3)`, certified.
/// (The paper calls the resulting bound omega(1); it increases to [`eq65_limit`].)
///
/// Error: each term is (L^e - 1)/e = integral_0^{log L} e^(e t) dt > 0 with e < 0, evaluated as
/// expm1(e log L)/e; relative errors: log L and expm1 one ulp each (the assumed libm accuracy,
/// [`crate::sum::LIBM_REL`]), e log L, the division, the product with A and e's own rounding one
/// u each, and expm1's condition number t e^t/expm1(t) <= 1 for t < 0 passes the argument's
/// error through unamplified: 2 LIBM_REL + 4u per term, plus u for the sum. A typed eps off its
/// double by abs_eps adds |d/de| <= (log L)^2 / 2 per unit of e.
pub fn eq65_exponent(a: f64, b: f64, eps: f64, depth: f64) -> Result<Enclosure, Error> {
    check_doubles(a, b, None, None, None)?;
    eq65_exponent_with(a, b, eps, depth, Rounding::default())
}

pub(crate) fn eq65_exponent_with(
    a: f64,
    b: f64,
    eps: f64,
    depth: f64,
    r: Rounding,
) -> Result<Enclosure, Error> {
    check_eps(eps)?;
    if !depth.is_finite() || depth < 1.0 {
        return Err(Error::InvalidDepth {
            text: crate::decimal::plain(depth),
        });
    }
    let ln_l = depth.ln();
    let e1 = 0.5 * eps - 1.0;
    let e2 = eps - 3.0;
    // (L^e - 1)/e without cancellation
    let t1 = a * (e1 * ln_l).exp_m1() / e1;
    let t2 = b * (e2 * ln_l).exp_m1() / e2;
    let value = t1 + t2;
    let rel = 2.0 * LIBM_REL + 4.0 * U;
    let abs_eps = r.abs_q;
    let input = t1 * r.rel_a + t2 * r.rel_b + abs_eps * (0.5 * a + b) * 0.5 * ln_l * ln_l;
    let err = rel * (t1 + t2) * (1.0 + 4.0 * U) + U * value + input;
    Ok(Enclosure::with_radius(value, err))
}

/// The finite limit of Eq. 65's exponent as L -> infinity: `A/(1 - eps/2) + B/(3 - eps)`,
/// certified (each term: one subtraction, one division, one product, u each; plus u for the sum;
/// a typed eps adds its rounding times the derivative A/(2(1 - eps/2)^2) + B/(3 - eps)^2).
/// It is an integral approximation that drops the l = 1 term, so it can lie below log Q_inf.
pub fn eq65_limit(a: f64, b: f64, eps: f64) -> Result<Enclosure, Error> {
    check_doubles(a, b, None, None, None)?;
    eq65_limit_with(a, b, eps, Rounding::default())
}

pub(crate) fn eq65_limit_with(a: f64, b: f64, eps: f64, r: Rounding) -> Result<Enclosure, Error> {
    check_eps(eps)?;
    let d1 = 1.0 - 0.5 * eps;
    let d2 = 3.0 - eps;
    let (t1, t2) = (a / d1, b / d2);
    let value = t1 + t2;
    let slope = (0.5 * t1 / d1 + t2 / d2) * (1.0 + 8.0 * U);
    let err = 4.0 * U * value * (1.0 + 4.0 * U)
        + t1 * r.rel_a
        + t2 * r.rel_b
        + r.abs_q * slope * (1.0 + r.abs_q / d1.min(d2)).powi(2);
    Ok(Enclosure::with_radius(value, err))
}

/// Closed-form bound on the unscaled log-product under exponential variance sigma_l^2 = c e^(lambda l)
/// (Eq. 10/49's regime, whose limit the paper calls M), certified:
/// `log M <= A c^(-1/2) / (e^(lambda/2) - 1) + (B/c) / (e^lambda - 1)`, from log(1 + x) <= x and
/// the geometric series. Error: sqrt, the divisions and products u each, expm1 one libm ulp
/// (LIBM_REL) per term; typed inputs: linear in A, B; c^(-1/2), c^(-1); and lambda through
/// x/expm1(x), whose relative sensitivity x e^x / expm1(x) <= 1 + x.
pub fn exponential_bound(a: f64, b: f64, c: f64, lambda: f64) -> Result<Enclosure, Error> {
    check_doubles(a, b, Some(c), None, Some(lambda))?;
    exponential_bound_with(a, b, c, lambda, Rounding::default())
}

pub(crate) fn exponential_bound_with(
    a: f64,
    b: f64,
    c: f64,
    lambda: f64,
    r: Rounding,
) -> Result<Enclosure, Error> {
    let t1 = a / c.sqrt() / (0.5 * lambda).exp_m1();
    let t2 = b / c / lambda.exp_m1();
    let value = t1 + t2;
    let rounding = (LIBM_REL + 5.0 * U) * value * (1.0 + 4.0 * U) + U * value;
    let input = t1 * (r.rel_a + r.rel_c + (1.0 + 0.5 * lambda) * r.rel_lambda)
        + t2 * (r.rel_b + 2.0 * r.rel_c + (1.0 + lambda) * r.rel_lambda);
    Ok(Enclosure::with_radius(value, rounding + 2.0 * input))
}

/// What `closedForms` is asked: A and B, and optionally c, q (or eps = 2 - q), lambda and a depth.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ClosedFormsInput {
    pub a: Number,
    pub b: Number,
    #[cfg_attr(feature = "serde", serde(default))]
    pub c: Option<Number>,
    #[cfg_attr(feature = "serde", serde(default))]
    pub q: Option<Number>,
    #[cfg_attr(feature = "serde", serde(default))]
    pub eps: Option<Number>,
    #[cfg_attr(feature = "serde", serde(default))]
    pub lambda: Option<Number>,
    /// Depth at which Eq. 65's exponent is evaluated (`None` or infinity: only its limit).
    #[cfg_attr(feature = "serde", serde(skip))]
    pub n: Option<crate::Depth>,
}

/// Eq. 65 at eps = 2 - q.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Eq65 {
    /// eps = 2 - q (exact when the input was; an enclosure of the exact eps otherwise).
    pub eps: Enclosure,
    /// The exponent at depth N; `None` when no finite depth was asked.
    pub exponent_at_n: Option<Enclosure>,
    pub limit: Enclosure,
}

/// Every closed form of the correction that applies, each certified.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ClosedForms {
    /// [`zeta_bound`]; `None` without c and q.
    pub zeta_bound: Option<Enclosure>,
    /// `None` unless 0 < eps = 2 - q < 2.
    pub eq65: Option<Eq65>,
    /// [`exponential_bound`]; `None` without c and lambda.
    pub exponential_bound: Option<Enclosure>,
    /// [`zeta_tail_bound`] at the finite depth `n`: an upper bound on what the scaled product's
    /// log still adds after depth N, rounded upward; `None` without c, q or a finite n.
    pub zeta_tail_bound: Option<f64>,
    /// Why a closed form that was asked for is missing (each with its reason).
    pub unresolved: Vec<crate::Unresolved>,
}

/// All closed forms of `input` (see [`ClosedForms`]).
pub fn closed_forms(input: &ClosedFormsInput) -> Result<ClosedForms, Error> {
    // every range decided on the exact inputs, in the one place ([`ranges::check`])
    let checked = ranges::check(&Inputs {
        a: Some(&input.a),
        b: Some(&input.b),
        c: input.c.as_ref(),
        q: input.q.as_ref(),
        eps: input.eps.as_ref(),
        lambda: input.lambda.as_ref(),
        ..Inputs::default()
    })?;
    let missing = |name| Error::NotFinite { name };
    let a = checked.a.ok_or(missing("A"))?;
    let b = checked.b.ok_or(missing("B"))?;
    let rel = |r: &crate::exact::Resolved| {
        if r.rounding == 0.0 {
            0.0
        } else {
            crate::enclosure::next_up(r.rounding / r.value.abs())
        }
    };
    let mut rounding = Rounding {
        rel_a: rel(&a),
        rel_b: rel(&b),
        ..Rounding::default()
    };
    let c = checked.c;
    if let Some(c) = &c {
        rounding.rel_c = rel(c);
    }
    let lambda = checked.lambda;
    if let Some(l) = &lambda {
        rounding.rel_lambda = rel(l);
    }
    // q and eps = 2 - q, each exact
    let q = checked.q.map(|r| r.exact);
    let eps = match checked.eps {
        Some(eps) => Some(eps.exact),
        None => q.as_ref().map(|q| Exact::int(2).sub(q)),
    };
    let mut unresolved = Vec::new();
    let zeta_bound = match (&c, &q) {
        (Some(c), Some(q)) => {
            let qv = q.to_f64();
            let r = Rounding {
                abs_q: q.distance_to(qv),
                ..rounding
            };
            Some(zeta_bound_with(a.value, b.value, c.value, qv, r)?)
        }
        _ => None,
    };
    let eq65 = match &eps {
        Some(eps) if eps.signum() > 0 && eps.cmp_exact(&Exact::int(2)).is_lt() => {
            let ev = eps.to_f64();
            let abs_eps = eps.distance_to(ev);
            if !(ev > 0.0 && ev < 2.0) {
                unresolved.push(crate::Unresolved {
                    quantity: "eq65".into(),
                    reason: "eps = 2 - q is too close to 0 or 2 for double precision".into(),
                });
                None
            } else {
                let r = Rounding {
                    abs_q: abs_eps,
                    ..rounding
                };
                let exponent_at_n = match input.n {
                    Some(crate::Depth::Finite(n)) => {
                        Some(eq65_exponent_with(a.value, b.value, ev, n as f64, r)?)
                    }
                    _ => None,
                };
                Some(Eq65 {
                    eps: if abs_eps == 0.0 {
                        Enclosure::exact(ev)
                    } else {
                        Enclosure::with_radius(ev, abs_eps)
                    },
                    exponent_at_n,
                    limit: eq65_limit_with(a.value, b.value, ev, r)?,
                })
            }
        }
        _ => None,
    };
    let exponential_bound = match (&c, &lambda) {
        (Some(c), Some(l)) => Some(exponential_bound_with(
            a.value, b.value, c.value, l.value, rounding,
        )?),
        _ => None,
    };
    // The decimal inputs enter as their nearest doubles: a relative change of a few u in A, B, c
    // and in the exponents, which the bound's factor (1 + 32u) over its own 16u rounding covers.
    let zeta_tail_bound = match (&c, &q, input.n) {
        (Some(c), Some(q), Some(crate::Depth::Finite(n))) => Some(zeta_tail_bound_checked(
            a.value,
            b.value,
            c.value,
            q.to_f64(),
            n as f64,
        )?),
        _ => None,
    };
    Ok(ClosedForms {
        zeta_bound,
        eq65,
        exponential_bound,
        zeta_tail_bound,
        unresolved,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zeta_bound_seed_case() {
        // zeta(3/2) + zeta(3)
        let z = zeta_bound(1.0, 1.0, 1.0, 1.0).unwrap();
        let want = 2.612_375_348_685_488_3 + 1.202_056_903_159_594_3;
        assert!((z.value - want).abs() < 1e-14, "{z:?}");
        assert!(z.width() < 1e-13);
    }

    #[test]
    fn eq65_tends_to_its_limit() {
        let (a, b, eps) = (1.0, 1.0, 0.5);
        let lim_enc = eq65_limit(a, b, eps).unwrap();
        let lim = lim_enc.value;
        assert!(lim_enc.contains(1.0 / 0.75 + 1.0 / 2.5) && lim_enc.relative_width() < 1e-14);
        assert_eq!(eq65_exponent(a, b, eps, 1.0).unwrap().value, 0.0);
        let mut prev = 0.0;
        for l in [10.0, 1e3, 1e6, 1e12, 1e18] {
            let enc = eq65_exponent(a, b, eps, l).unwrap();
            assert!(enc.relative_width() < 1e-14, "{enc:?}");
            let e = enc.value;
            assert!(e > prev && e < lim);
            prev = e;
        }
        assert!(lim - prev < 1e-4);
        assert!(eq65_limit(1.0, 1.0, 2.0).is_err());
        assert!(eq65_exponent(1.0, 1.0, 0.5, 0.0).is_err());
    }

    #[test]
    fn zeta_tail_bound_is_the_corrections_bound_at_q1() {
        // 2/sqrt N + 1/(2 N^2) for A = B = c = q = 1, and an upper bound on the exact zeta tails
        for n in [1.0, 10.0, 1e6, 1e12] {
            let t = zeta_tail_bound(1.0, 1.0, 1.0, 1.0, n).unwrap();
            let want = 2.0 / f64::sqrt(n) + 0.5 / (n * n);
            assert!(
                t >= want && t <= want * (1.0 + 1e-14),
                "N = {n}: {t} vs {want}"
            );
        }
        // sum_{l>10} l^-1.5 + l^-3 = (zeta(1.5) - H_10^(1.5)) + (zeta(3) - H_10^(3)) < bound
        let direct: f64 = (1..=10)
            .map(|l| (l as f64).powf(-1.5) + (l as f64).powi(-3))
            .sum();
        let exact = 2.612_375_348_685_488_3 + 1.202_056_903_159_594_3 - direct;
        let bound = zeta_tail_bound(1.0, 1.0, 1.0, 1.0, 10.0).unwrap();
        assert!(exact < bound && bound < 1.2 * exact, "{exact} vs {bound}");
        assert!(zeta_tail_bound(1.0, 1.0, 1.0, 1.0, 0.5).is_err());
        assert!(zeta_tail_bound(1.0, 1.0, 0.0, 1.0, 10.0).is_err());
    }

    #[test]
    fn exponential_bound_values() {
        let v = exponential_bound(1.0, 1.0, 1.0, 1.0).unwrap();
        let want = 1.0 / (0.5f64.exp() - 1.0) + 1.0 / (1f64.exp() - 1.0);
        assert!(
            (v.value - want).abs() < 1e-14 && v.relative_width() < 1e-14,
            "{v:?}"
        );
        assert!(exponential_bound(1.0, 1.0, 1.0, 0.0).is_err());
    }
}
