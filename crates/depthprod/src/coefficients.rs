//! The power series log(1 + A x + B x^2) = sum_{k>=1} c_k x^k.
//!
//! With 1 + A x + B x^2 = (1 - r1 x)(1 - r2 x), i.e. r1, r2 the roots of z^2 + A z + B,
//! c_k = -(r1^k + r2^k)/k, and the power sums s_k = r1^k + r2^k obey Newton's recurrence
//! s_k = -A s_{k-1} - B s_{k-2}, s_0 = 2, s_1 = -A. The series converges for |x| < 1/rho,
//! rho = max |r_i|, and |c_k| <= 2 rho^k / k.

use crate::sum::U;

/// Coefficients c_1..c_K with rigorous bounds on their floating-point errors.
#[derive(Debug, Clone)]
pub(crate) struct LogSeries {
    /// `c[k]` for k = 0..=K (`c[0]` = 0).
    pub(crate) c: Vec<f64>,
    /// `err[k]` bounds |computed c[k] - exact c_k|.
    pub(crate) err: Vec<f64>,
}

/// An upper bound on rho = max |roots of z^2 + A z + B| (inflated to cover rounding).
pub(crate) fn root_radius(a: f64, b: f64) -> f64 {
    let disc = a * a - 4.0 * b;
    let rho = if disc >= 0.0 {
        0.5 * (a + disc.sqrt())
    } else {
        b.sqrt()
    };
    // disc has relative error <= 3u in each part; a generous inflation keeps this an upper bound
    // (rho enters only truncation bounds, never values).
    rho * (1.0 + 1e-12) + 1e-300
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
