//! The correction's closed forms (docs/MATH.md, section 3; their evaluation in section 5.6).

use crate::params::{AB_RANGE, C_RANGE, LAMBDA_RANGE, Q_RANGE};
use crate::sum::U;
use crate::zeta::riemann_zeta;
use crate::{Enclosure, Error};

fn check(name: &'static str, v: f64, (min, max): (f64, f64)) -> Result<(), Error> {
    if !v.is_finite() {
        return Err(Error::NotFinite { name });
    }
    if !(min..=max).contains(&v) {
        return Err(Error::OutOfRange {
            name,
            value: v,
            min,
            max,
        });
    }
    Ok(())
}

/// The correction's bound on the scaled product with sigma_l^2 >= c l^q:
/// `log Q_N <= (A/sqrt c) zeta(1 + q/2) + (B/c) zeta(2 + q)` for every N.
pub fn zeta_bound(a: f64, b: f64, c: f64, q: f64) -> Result<Enclosure, Error> {
    check("A", a, AB_RANGE)?;
    check("B", b, AB_RANGE)?;
    check("c", c, C_RANGE)?;
    check("q", q, Q_RANGE)?;
    let z1 = riemann_zeta(1.0 + 0.5 * q)?;
    let z2 = riemann_zeta(2.0 + q)?;
    let ka = a / c.sqrt();
    let kb = b / c;
    // 1 + q/2 and 2 + q may round: |dzeta/ds| <= zeta(s) (log 2 + 1/(s-1)) covers it.
    let s1_err = if (1.0 + 0.5 * q) - 1.0 == 0.5 * q {
        0.0
    } else {
        U * (1.0 + 0.5 * q)
    };
    let s2_err = if (2.0 + q) - 2.0 == q {
        0.0
    } else {
        U * (2.0 + q)
    };
    let d1 = z1.value * (2f64.ln() + 2.0 / q) * s1_err;
    let d2 = z2.value * (2f64.ln() + 1.0) * s2_err;
    let value = ka * z1.value + kb * z2.value;
    let err = ka * (z1.radius() + d1) + kb * (z2.radius() + d2) + 8.0 * U * value.abs();
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
    check("A", a, AB_RANGE)?;
    check("B", b, AB_RANGE)?;
    check("c", c, C_RANGE)?;
    check("q", q, Q_RANGE)?;
    if !depth.is_finite() || depth < 1.0 {
        return Err(Error::InvalidDepth {
            text: format!("{depth}"),
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

fn check_eps(eps: f64) -> Result<(), Error> {
    if !eps.is_finite() {
        return Err(Error::NotFinite { name: "eps" });
    }
    if !(eps > 0.0 && eps < 2.0) {
        return Err(Error::OutOfRange {
            name: "eps",
            value: eps,
            min: f64::MIN_POSITIVE,
            max: 2.0 - f64::EPSILON,
        });
    }
    Ok(())
}

/// Eq. 65's exponent at depth L for sigma_l^2 ~ l^(2 - eps):
/// `A (L^(eps/2 - 1) - 1)/(eps/2 - 1) + B (L^(eps - 3) - 1)/(eps - 3)`.
/// (The paper calls the resulting bound omega(1); it increases to [`eq65_limit`].)
pub fn eq65_exponent(a: f64, b: f64, eps: f64, depth: f64) -> Result<f64, Error> {
    check("A", a, AB_RANGE)?;
    check("B", b, AB_RANGE)?;
    check_eps(eps)?;
    if !depth.is_finite() || depth < 1.0 {
        return Err(Error::InvalidDepth {
            text: format!("{depth}"),
        });
    }
    let ln_l = depth.ln();
    let e1 = 0.5 * eps - 1.0;
    let e2 = eps - 3.0;
    // (L^e - 1)/e without cancellation
    Ok(a * (e1 * ln_l).exp_m1() / e1 + b * (e2 * ln_l).exp_m1() / e2)
}

/// The finite limit of Eq. 65's exponent as L -> infinity: `A/(1 - eps/2) + B/(3 - eps)`.
/// It is an integral approximation that drops the l = 1 term, so it can lie below log Q_inf.
pub fn eq65_limit(a: f64, b: f64, eps: f64) -> Result<f64, Error> {
    check("A", a, AB_RANGE)?;
    check("B", b, AB_RANGE)?;
    check_eps(eps)?;
    Ok(a / (1.0 - 0.5 * eps) + b / (3.0 - eps))
}

/// Closed-form bound on the unscaled log-product under exponential variance sigma_l^2 = c e^(lambda l)
/// (Eq. 10's regime, whose limit the paper calls M):
/// `log M <= A c^(-1/2) / (e^(lambda/2) - 1) + (B/c) / (e^lambda - 1)`, from log(1 + x) <= x.
pub fn exponential_bound(a: f64, b: f64, c: f64, lambda: f64) -> Result<f64, Error> {
    check("A", a, AB_RANGE)?;
    check("B", b, AB_RANGE)?;
    check("c", c, C_RANGE)?;
    check("lambda", lambda, LAMBDA_RANGE)?;
    Ok(a / c.sqrt() / (0.5 * lambda).exp_m1() + b / c / lambda.exp_m1())
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
        let lim = eq65_limit(a, b, eps).unwrap();
        assert!((lim - (1.0 / 0.75 + 1.0 / 2.5)).abs() < 1e-15);
        assert_eq!(eq65_exponent(a, b, eps, 1.0).unwrap(), 0.0);
        let mut prev = 0.0;
        for l in [10.0, 1e3, 1e6, 1e12, 1e18] {
            let e = eq65_exponent(a, b, eps, l).unwrap();
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
        assert!((v - want).abs() < 1e-14);
        assert!(exponential_bound(1.0, 1.0, 1.0, 0.0).is_err());
    }
}
