//! Gauss-Legendre quadrature on [-1, 1], nodes by Newton's method on P_n (computed once).
//!
//! Error bound used by callers (Trefethen, "Is Gauss quadrature better than Clenshaw-Curtis?",
//! SIAM Review 50 (2008), Thm 4.5): if f is analytic in the Bernstein ellipse E_rho and |f| <= M
//! there, the n-point rule on [-1, 1] errs by at most (64/15) M rho^(-2n) / (rho^2 - 1).

use std::sync::OnceLock;

/// Number of nodes.
pub(crate) const NODES: usize = 24;

/// Bernstein ellipse parameter the callers certify analyticity in.
pub(crate) const RHO: f64 = 3.0;

/// (64/15) rho^(-2n) / (rho^2 - 1): multiply by max|f| on E_rho and by the half-length of the interval.
pub(crate) fn error_factor() -> f64 {
    64.0 / 15.0 * RHO.powi(-2 * NODES as i32) / (RHO * RHO - 1.0)
}

/// (nodes, weights) on [-1, 1].
pub(crate) fn rule() -> &'static ([f64; NODES], [f64; NODES]) {
    static RULE: OnceLock<([f64; NODES], [f64; NODES])> = OnceLock::new();
    RULE.get_or_init(|| {
        let n = NODES;
        let mut x = [0.0; NODES];
        let mut w = [0.0; NODES];
        for i in 0..n.div_ceil(2) {
            // Tricomi's initial guess, then Newton on P_n.
            let mut z = (std::f64::consts::PI * (i as f64 + 0.75) / (n as f64 + 0.5)).cos();
            let mut dp = 0.0;
            for _ in 0..100 {
                let (p, d) = legendre(n, z);
                dp = d;
                let dz = p / d;
                z -= dz;
                if dz.abs() < 1e-17 {
                    break;
                }
            }
            let (_, d) = legendre(n, z);
            dp = if d != 0.0 { d } else { dp };
            let weight = 2.0 / ((1.0 - z * z) * dp * dp);
            x[i] = -z;
            x[n - 1 - i] = z;
            w[i] = weight;
            w[n - 1 - i] = weight;
        }
        (x, w)
    })
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
        let (x, w) = rule();
        let sum_w: f64 = w.iter().sum();
        assert!((sum_w - 2.0).abs() < 1e-14);
        let m46: f64 = x.iter().zip(w).map(|(x, w)| w * x.powi(46)).sum();
        assert!((m46 - 2.0 / 47.0).abs() < 1e-15);
        let e: f64 = x.iter().zip(w).map(|(x, w)| w * x.exp()).sum();
        assert!((e - (1f64.exp() - (-1f64).exp())).abs() < 1e-15);
    }
}
