//! The power series log(1 + A x + B x^2) = sum_{k>=1} c_k x^k.
//!
//! With 1 + A x + B x^2 = (1 - r1 x)(1 - r2 x), i.e. r1, r2 the roots of z^2 + A z + B,
//! c_k = -(r1^k + r2^k)/k, and the power sums s_k = r1^k + r2^k obey Newton's recurrence
//! s_k = -A s_{k-1} - B s_{k-2}, s_0 = 2, s_1 = -A. The series converges for |x| < 1/rho,
//! rho = max |r_i|, and |c_k| <= 2 rho^k / k.

use crate::exact::Exact;
use crate::sum::U;

/// Coefficients c_1..c_K with rigorous bounds on their floating-point errors.
#[derive(Debug, Clone)]
pub(crate) struct LogSeries {
    /// `c[k]` for k = 0..=K (`c[0]` = 0).
    pub(crate) c: Vec<f64>,
    /// `err[k]` bounds |computed c[k] - exact c_k|.
    pub(crate) err: Vec<f64>,
}

/// A proven upper bound on rho = max |roots of z^2 + A z + B| for A, B >= 0.
///
/// Both root moduli are at most max(sqrt(B), (A + sqrt(max(A^2 - 4B, 0)))/2): complex roots have
/// modulus sqrt(B); real roots have product B, so the larger is >= sqrt(B) and equals
/// (A + sqrt(A^2 - 4B))/2. The discriminant is bounded above (a*a rounded up by a factor 1 + 2u;
/// 4B is exact) so that a double root (A^2 = 4B, where rounding can make the computed
/// discriminant negative and the old estimate 1e-8 low) never loses its sqrt(disc) part; sqrt,
/// the sum and the halving then round by at most u each, covered by (1 + 4u).
pub(crate) fn root_radius(a: f64, b: f64) -> f64 {
    let disc_up = (a * a * (1.0 + 2.0 * U) - 4.0 * b) * (1.0 + U);
    let real = 0.5 * (a + disc_up.max(0.0).sqrt());
    let complex = b.sqrt();
    real.max(complex) * (1.0 + 4.0 * U) + 1e-300
}

/// Which coefficients c_k vanish exactly for the exact inputs (docs/MATH.md §4.4a, Lemma Z).
///
/// c_k = -(r1^k + r2^k)/k is 0 exactly when (r1/r2)^k = -1. For A, B > 0 with A^2 = 2B the roots
/// are (A/2)(-1 +- i), r1/r2 = -i, so c_k = 0 for k = 2 mod 4 (c_2 = B - A^2/2); with A^2 = 3B they
/// are (A/2)(-1 +- i/sqrt 3), r1/r2 = e^(-i pi/3), so c_k = 0 for k = 3 mod 6 (c_3 = A(A^2/3 - B)).
/// (With A = 0 every odd c_k is 0, and the recurrence gives those as exact zeros already.)
/// Computed in doubles, such a c_k is a rounding-sized number with a rounding-sized error bound;
/// beside a pole (k p near 1) that bound over |1 - k p| would swamp the constant C, while the exact
/// term contributes exactly 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum ExactZeros {
    #[default]
    None,
    /// A^2 = 2B: c_k = 0 for k = 2 mod 4.
    TwoModFour,
    /// A^2 = 3B: c_k = 0 for k = 3 mod 6.
    ThreeModSix,
}

impl ExactZeros {
    /// Decided on the exact A and B (their doubles only say when the exact test is worth making).
    /// `exact` gives the exact A and B; it is called only when the doubles are within 1e-12 of
    /// one of the two relations.
    pub(crate) fn of(a: f64, b: f64, exact: impl FnOnce() -> (Exact, Exact)) -> ExactZeros {
        if !(a > 0.0 && b > 0.0) {
            return ExactZeros::None;
        }
        let a2 = a * a;
        let near = |k: f64| (a2 - k * b).abs() <= 1e-12 * a2;
        let k = if near(2.0) {
            2
        } else if near(3.0) {
            3
        } else {
            return ExactZeros::None;
        };
        let (ea, eb) = exact();
        match (k, ea.mul(&ea).cmp_exact(&eb.mul_int(k)).is_eq()) {
            (2, true) => ExactZeros::TwoModFour,
            (3, true) => ExactZeros::ThreeModSix,
            _ => ExactZeros::None,
        }
    }

    /// Whether c_k is exactly 0.
    pub(crate) fn vanishes(self, k: usize) -> bool {
        match self {
            ExactZeros::None => false,
            ExactZeros::TwoModFour => k % 4 == 2,
            ExactZeros::ThreeModSix => k % 6 == 3,
        }
    }
}

impl LogSeries {
    /// c_1..=c_k_max for the given A, B (any signs: with -A, -B it gives the coefficients of
    /// log(1 - A x - B x^2), whose negatives bound |c_k|'s sensitivity to A and B).
    pub(crate) fn new(a: f64, b: f64, k_max: usize) -> LogSeries {
        let mut c = vec![0.0; k_max + 1];
        let mut err = vec![0.0; k_max + 1];
        // s_{k-2}, s_{k-1} and their error bounds.
        let (mut s2, mut s1) = (2.0_f64, -a);
        let (mut e2, mut e1) = (0.0_f64, 0.0_f64);
        for k in 1..=k_max {
            let (s, e) = if k == 1 {
                (s1, e1)
            } else {
                let t1 = -a * s1;
                let t2 = b * s2;
                let s = t1 - t2;
                // rounding of two products and one subtraction, plus propagated errors
                let e = a.abs() * e1
                    + b.abs() * e2
                    + U * (2.0 * (t1.abs() + t2.abs()) + s.abs()) * (1.0 + 4.0 * U);
                s2 = s1;
                e2 = e1;
                s1 = s;
                e1 = e;
                (s, e)
            };
            let kf = k as f64;
            c[k] = -s / kf;
            err[k] = (e / kf + U * c[k].abs()) * (1.0 + 2.0 * U);
        }
        LogSeries { c, err }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The exact zeros of Lemma Z, against the recurrence in exact-enough doubles (A = 2, B = 2
    /// and A = 3, B = 3 are exact, and so is every s_k here: integers below 2^53).
    #[test]
    fn exact_zeros_are_the_vanishing_coefficients() {
        for (a, b, pattern) in [
            (2.0, 2.0, ExactZeros::TwoModFour),
            (3.0, 3.0, ExactZeros::ThreeModSix),
            (2.0, 1.0, ExactZeros::None),
        ] {
            let exact = || (Exact::from_f64(a), Exact::from_f64(b));
            assert_eq!(ExactZeros::of(a, b, exact), pattern);
            let s = LogSeries::new(a, b, 30);
            for k in 1..=30 {
                assert_eq!(
                    s.c[k] == 0.0,
                    pattern.vanishes(k),
                    "A={a} B={b} k={k}: {}",
                    s.c[k]
                );
            }
        }
        // typed decimals: 0.3^2 = 2 * 0.045 exactly, their doubles do not
        let typed = || (Exact::parse("0.3").unwrap(), Exact::parse("0.045").unwrap());
        assert_eq!(ExactZeros::of(0.3, 0.045, typed), ExactZeros::TwoModFour);
        let doubles = || (Exact::from_f64(0.3), Exact::from_f64(0.045));
        assert_eq!(ExactZeros::of(0.3, 0.045, doubles), ExactZeros::None);
    }

    #[test]
    fn low_order_coefficients() {
        let (a, b) = (1.3, 0.7);
        let s = LogSeries::new(a, b, 4);
        assert!((s.c[1] - a).abs() < 1e-15);
        assert!((s.c[2] - (b - a * a / 2.0)).abs() < 1e-15);
        assert!((s.c[3] - (a * a * a / 3.0 - a * b)).abs() < 1e-15);
    }

    #[test]
    fn series_matches_log() {
        for &(a, b) in &[(1.0, 1.0), (3.0, 2.0), (0.0, 5.0), (2.0, 1.0), (50.0, 0.1)] {
            let rho = root_radius(a, b);
            let x = 0.3 / rho;
            let s = LogSeries::new(a, b, 60);
            let sum: f64 = (1..=60).map(|k| s.c[k] * x.powi(k as i32)).sum();
            let exact = (a * x + b * x * x).ln_1p();
            assert!(
                (sum - exact).abs() < 1e-14 * exact.abs().max(1.0),
                "a={a} b={b}: {sum} vs {exact}"
            );
            for k in 1..=60 {
                assert!(
                    s.c[k].abs() <= 2.0 * rho.powi(k as i32) / k as f64 * (1.0 + 1e-9) + s.err[k]
                );
            }
        }
    }

    /// issue 7 item 5: near a double root (A^2 = 4B) the old estimate was 1e-8 too small.
    #[test]
    fn root_radius_is_an_upper_bound_near_a_double_root() {
        // A = 10, B = 25 (1 - ulp): roots -5 +- sqrt(25 - B), modulus up to 5 + 2.7e-7
        let b = 25.0 * (1.0 - f64::EPSILON);
        let exact_up = 5.0 + (25.0 - b).sqrt();
        assert!(
            root_radius(10.0, b) >= exact_up,
            "{} < {exact_up}",
            root_radius(10.0, b)
        );
        assert!(root_radius(10.0, b) <= exact_up * (1.0 + 1e-7));
        for &(a, b) in &[
            (10.0, 25.0),
            (1.0, 1.0),
            (3.0, 2.0),
            (0.0, 5.0),
            (50.0, 0.1),
        ] {
            let disc: f64 = a * a - 4.0 * b;
            let rho = if disc >= 0.0 {
                0.5 * (a + disc.sqrt())
            } else {
                f64::sqrt(b)
            };
            assert!(root_radius(a, b) >= rho && root_radius(a, b) <= rho * (1.0 + 1e-7) + 1e-7);
        }
    }

    #[test]
    fn a_zero_gives_even_series() {
        let s = LogSeries::new(0.0, 2.0, 9);
        for k in (1..=9).step_by(2) {
            assert_eq!(s.c[k], 0.0);
        }
        assert_eq!(s.c[2], 2.0);
        assert_eq!(s.c[4], -2.0);
    }
}
