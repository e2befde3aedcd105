//! Hurwitz zeta at large argument by Euler-Maclaurin, with rigorous error bounds.
//!
//! For s > 0 define Z(s, a) = zeta(s, a) (the analytic continuation when 0 < s < 1) and
//! Z(1, a) = -psi(a). Then for every s > 0 and integers a <= b,
//! `sum_{l=a}^{b-1} l^-s = Z(s, a) - Z(s, b)`, which is the only way the crate uses it.
//!
//! Euler-Maclaurin at a (no direct terms; callers guarantee a >= [`em_min_start`]):
//!
//! ```text
//! Z(s, a) = main(s, a) + a^-s / 2 + sum_{j=1}^{m} B_2j/(2j)! (s)_{2j-1} a^(-s-2j+1) + R_m,
//! main(s, a) = a^(1-s)/(s-1)  (s != 1),   main(1, a) = -log a.
//! ```
//!
//! Because x^-s is completely monotone for s > 0, |R_m| is at most the first omitted term
//! (Olver, *Asymptotics and Special Functions*, 8.3). With a >= 0.637 (s + 40) + 1 successive terms
//! shrink by a factor of at least 16, so 20 terms give a relative truncation error below 1e-24.

use crate::bernoulli::BERNOULLI_2J_OVER_FACT;
use crate::sum::{Accumulator, U};
use crate::{Enclosure, Error};

/// Most Euler-Maclaurin correction terms used.
const MAX_TERMS: usize = 20;

/// Smallest a at which [`z_large`] may be used for exponents up to `s_max`.
pub(crate) fn em_min_start(s_max: f64) -> f64 {
    (0.637 * (s_max + 40.0)).ceil() + 1.0
}

/// The Euler-Maclaurin corrections beyond the main term:
/// a^-s/2 + sum_j B_2j/(2j)! (s)_{2j-1} a^(-s-2j+1).
/// `x` = a^-s, computed by the caller with relative error at most `x_rel`.
/// Returns (value, error bound) where the bound covers truncation and rounding.
pub(crate) fn em_corrections(s: f64, a: f64, x: f64, x_rel: f64) -> (f64, f64) {
    debug_assert!(s > 0.0 && a >= em_min_start(s) - 1.0);
    let half = 0.5 * x;
    let mut value = half;
    let mut rounding = half.abs() * (x_rel + U);
    let inv_a = 1.0 / a;
    let inv_a2 = inv_a * inv_a;
    // (s)_{2j-1} a^(-2j+1), updated incrementally.
    let mut poch_pow = s * inv_a;
    let mut truncation = 0.0;
    for j in 1..=MAX_TERMS + 1 {
        let term = BERNOULLI_2J_OVER_FACT[j] * poch_pow * x;
        if j == MAX_TERMS + 1 || term.abs() <= 1e-22 * value.abs() || term == 0.0 {
            truncation = term.abs();
            break;
        }
        value += term;
        rounding += term.abs() * ((4 * j + 6) as f64 * U + x_rel);
        let jf = j as f64;
        poch_pow *= (s + 2.0 * jf - 1.0) * (s + 2.0 * jf) * inv_a2;
    }
    // summation rounding of at most MAX_TERMS + 1 terms
    rounding += (MAX_TERMS as f64 + 2.0) * U * (value.abs() + half.abs());
    (value, truncation + rounding + f64::MIN_POSITIVE)
}

/// main(s, a) = a^(1-s)/(s-1) for s != 1, -log a for s = 1; `x` = a^-s with relative error
/// `x_rel`, and `d` = s - 1 with relative error at most u (callers pass the exact distance to the
/// pole correctly rounded, never a difference of rounded numbers: s = 1 + 1e-17 has d = 1e-17
/// although s rounds to 1). `d == 0` means s = 1 exactly.
pub(crate) fn em_main(d: f64, a: f64, x: f64, x_rel: f64) -> (f64, f64) {
    if d == 0.0 {
        let v = -a.ln();
        (v, 2.0 * U * v.abs())
    } else {
        let v = a * x / d;
        // d's own u, the product and the division (u each), plus one u of slack for x_rel's rounding
        (v, v.abs() * (x_rel + 4.0 * U))
    }
}

/// Z(s, a) with error bound, for a >= em_min_start(s) (a an integer-valued f64).
pub(crate) fn z_large(s: f64, a: f64) -> (f64, f64) {
    let x = (-s * a.ln()).exp();
    // exp of an argument with absolute error u|s log a| (+ log's own error): relative error of x
    let x_rel = 2.0 * U * (s * a.ln()).abs() + 2.0 * U;
    // s - 1 is exact (Sterbenz) for s in [1/2, 2]; beyond, its rounding (u) is the u that
    // em_main's bound allows for d
    let (m, me) = em_main(s - 1.0, a, x, x_rel);
    let (c, ce) = em_corrections(s, a, x, x_rel);
    (m + c, me + ce + U * (m + c).abs())
}

/// sum_{l=1}^{n} l^-s for s > 0 with an error bound; n = None means infinity (needs s > 1).
pub(crate) fn power_sum(s: f64, n: Option<u64>) -> (f64, f64) {
    let start = em_min_start(s);
    let mut acc = Accumulator::new();
    let direct_end = match n {
        Some(n) if (n as f64) < start + 64.0 => n,
        _ => start as u64 - 1,
    };
    for l in 1..=direct_end {
        let t = (-s * (l as f64).ln()).exp();
        acc.add(t, t * (2.0 * U * (s * (l as f64).ln()).abs() + 3.0 * U));
    }
    if direct_end == n.unwrap_or(u64::MAX) {
        return (acc.value(), acc.error());
    }
    let (za, zae) = z_large(s, start);
    acc.add(za, zae);
    if let Some(n) = n {
        let b = n as f64 + 1.0;
        // b is n + 1 rounded to f64; |dZ/da| = a^-s bounds the effect of that rounding.
        let b_err = if n < (1u64 << 53) { 0.0 } else { b * U };
        let (zb, zbe) = z_large(s, b);
        acc.add(-zb, zbe + b_err * (-s * b.ln()).exp() * 2.0);
    }
    (acc.value(), acc.error())
}

/// The Riemann zeta function zeta(s) for s > 1 with a certified enclosure.
pub fn riemann_zeta(s: f64) -> Result<Enclosure, Error> {
    if !s.is_finite() {
        return Err(Error::NotFinite { name: "s" });
    }
    if !(s > 1.0 && s <= 1e6) {
        return Err(Error::OutOfRange {
            name: "s",
            value: crate::decimal::short(s),
            range: "(1, 1e6]".into(),
        });
    }
    let (v, e) = power_sum(s, None);
    Ok(Enclosure::with_radius(v, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn riemann_zeta_known_values() {
        use crate::exact::Exact;
        // mpmath at 30 digits, for the exact double s (1.0001 is 1.00009999999999998899...)
        let cases = [
            (2.0, "1.64493406684822643647241516665"),
            (4.0, "1.08232323371113819151600369654"),
            (1.5, "2.61237534868548834334856756792"),
            (3.0, "1.20205690315959428539973816151"),
            (1.0001, "10000.5772229475389703096449251"),
        ];
        for (s, exact) in cases {
            let z = riemann_zeta(s).unwrap();
            // containment decided exactly on the 30-digit decimal: no "or close" clause
            let e = Exact::parse(exact).unwrap();
            assert!(
                e.cmp_exact(&Exact::from_f64(z.lo)).is_ge()
                    && e.cmp_exact(&Exact::from_f64(z.hi)).is_le(),
                "zeta({s}) = {z:?}, want {exact}"
            );
            assert!(z.relative_width() < 1e-14, "zeta({s}) width {}", z.width());
        }
        assert!(riemann_zeta(1.0).is_err());
        assert!(riemann_zeta(f64::NAN).is_err());
    }

    #[test]
    fn power_sums_match_direct() {
        for &s in &[0.05, 0.5, 1.0, 1.5, 3.0, 40.0] {
            for &n in &[1u64, 10, 100, 1000, 12345] {
                let (v, e) = power_sum(s, Some(n));
                let mut direct = Accumulator::new();
                for l in 1..=n {
                    direct.add((l as f64).powf(-s), 0.0);
                }
                let d = direct.value();
                assert!(
                    (v - d).abs() <= e + 1e-15 * d.abs(),
                    "s={s} n={n}: {v} vs {d} (err {e})"
                );
                assert!(e < 1e-14 * d.abs().max(1.0), "s={s} n={n}: error bound {e}");
            }
        }
    }

    #[test]
    fn harmonic_numbers_large_n() {
        // H_n = ln n + gamma + 1/(2n) - 1/(12 n^2) + ...
        let gamma = 0.577_215_664_901_532_9;
        let n = 1_000_000_000_000u64;
        let (v, e) = power_sum(1.0, Some(n));
        let nf = n as f64;
        let want = nf.ln() + gamma + 0.5 / nf;
        assert!(
            (v - want).abs() < 1e-13 && e < 1e-13,
            "{v} vs {want}, err {e}"
        );
    }
}
