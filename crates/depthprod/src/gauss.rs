//! Gauss-Legendre quadrature on [-1, 1], nodes by Newton's method on P_n (computed once per order).
//!
//! Error bound used by callers (Trefethen, "Is Gauss quadrature better than Clenshaw-Curtis?",
//! SIAM Review 50 (2008), Thm 4.5): if f is analytic in the Bernstein ellipse E_rho and |f| <= M
//! there, the (n+1)-point rule on [-1, 1] errs by at most (64/15) M rho^(-2n) / (rho^2 - 1); so
//! the n-point rule used here errs by at most (64/15) M rho^(-2(n-1)) / (rho^2 - 1).

use std::sync::OnceLock;

/// Bernstein ellipse parameter that whole panels certify analyticity in.
pub(crate) const RHO: f64 = 3.0;

/// The orders available, smallest first.
pub(crate) const ORDERS: [usize; 7] = [4, 6, 8, 12, 16, 20, 24];

/// (64/15) rho^(-2(n-1)) / (rho^2 - 1) for the n-point rule (Trefethen's theorem is stated for
/// n+1 points): multiply by max|f| on E_rho and by the half-length of the interval.
pub(crate) fn error_factor(n: usize, rho: f64) -> f64 {
    64.0 / 15.0 * rho.powi(-2 * (n as i32 - 1)) / (rho * rho - 1.0)
}

/// (nodes, weights) of the n-point rule on [-1, 1]; `n` must be one of [`ORDERS`].
pub(crate) fn rule(n: usize) -> &'static (Vec<f64>, Vec<f64>) {
    static RULES: [OnceLock<(Vec<f64>, Vec<f64>)>; ORDERS.len()] =
        [const { OnceLock::new() }; ORDERS.len()];
    let slot = ORDERS
        .iter()
        .position(|&o| o == n)
        .expect("a supported Gauss-Legendre order");
    RULES[slot].get_or_init(|| compute(n))
}

fn compute(n: usize) -> (Vec<f64>, Vec<f64>) {
    let mut x = vec![0.0; n];
    let mut w = vec![0.0; n];
    for i in 0..n.div_ceil(2) {
        // Tricomi's initial guess, then Newton on P_n.
        let mut z = (std::f64::consts::PI * (i as f64 + 0.75) / (n as f64 + 0.5)).cos();
        for _ in 0..100 {
            let (p, d) = legendre(n, z);
            let dz = p / d;
            z -= dz;
            if dz.abs() < 1e-17 {
                break;
            }
        }
        let (_, d) = legendre(n, z);
        let weight = 2.0 / ((1.0 - z * z) * d * d);
        x[i] = -z;
        x[n - 1 - i] = z;
        w[i] = weight;
        w[n - 1 - i] = weight;
    }
    (x, w)
}

/// (P_n(z), P_n'(z)) by the three-term recurrence.
fn legendre(n: usize, z: f64) -> (f64, f64) {
    let (mut p0, mut p1) = (1.0, z);
    for k in 2..=n {
        let kf = k as f64;
        let p2 = ((2.0 * kf - 1.0) * z * p1 - (kf - 1.0) * p0) / kf;
        p0 = p1;
        p1 = p2;
    }
    let d = n as f64 * (z * p1 - p0) / (z * z - 1.0);
    (p1, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integrates_polynomials_and_exp() {
        for n in ORDERS {
            let (x, w) = rule(n);
            let sum_w: f64 = w.iter().sum();
            assert!((sum_w - 2.0).abs() < 1e-14, "n = {n}");
            let deg = 2 * n - 2;
            let m: f64 = x.iter().zip(w).map(|(x, w)| w * x.powi(deg as i32)).sum();
            assert!((m - 2.0 / (deg + 1) as f64).abs() < 1e-15, "n = {n}");
        }
        let (x, w) = rule(24);
        let e: f64 = x.iter().zip(w).map(|(x, w)| w * x.exp()).sum();
        assert!((e - (1f64.exp() - (-1f64).exp())).abs() < 1e-15);
    }
}
