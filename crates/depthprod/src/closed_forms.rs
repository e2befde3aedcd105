//! The correction's closed forms (MATH.md section 3).

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
    fn exponential_bound_values() {
        let v = exponential_bound(1.0, 1.0, 1.0, 1.0).unwrap();
        let want = 1.0 / (0.5f64.exp() - 1.0) + 1.0 / (1f64.exp() - 1.0);
        assert!((v - want).abs() < 1e-14);
        assert!(exponential_bound(1.0, 1.0, 1.0, 0.0).is_err());
    }
}
