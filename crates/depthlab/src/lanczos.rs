//! The spectral norm ||M||_2 of an operator given only by M v (JVP) and M^T u (VJP): Lanczos on the
//! symmetric positive semi-definite M^T M with full reorthogonalisation.
//!
//! What is reported, and what it means:
//! - `norm` = ||M y||_2 for the final unit Ritz vector y. This is a Rayleigh-quotient *lower
//!   bound*: ||M y|| <= ||M||_2 for every unit y, exactly (up to the rounding of one JVP).
//! - `residual` = ||M^T M y - theta y||_2 with theta = ||M y||^2, computed explicitly (from the
//!   stored products M q and M^T M q of the basis vectors, not the Lanczos recurrence's
//!   estimate). Some eigenvalue of M^T M lies within `residual` of theta (Bauer-Fike for symmetric
//!   matrices); Lanczos from a random start converges to the largest first.
//! - `interval`: the top Ritz pair's residual, and the second pair's in Kato-Temple's gap, give
//!   [norm, upper] ([`crate::ritz`]); the iteration stops when it is narrower than `tol`
//!   relative, or after `max_iter` steps (`converged` = false).

use crate::linalg::{axpy, dot, norm2};
use crate::model::Gaussian;
use crate::ritz::judge;
pub use crate::ritz::NormEstimate;

/// Options of the iteration.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LanczosOptions {
    pub tol: f64,
    pub max_iter: usize,
    pub seed: u64,
}

impl Default for LanczosOptions {
    fn default() -> Self {
        LanczosOptions {
            tol: 1e-6,
            max_iter: 200,
            seed: 0x6c61_6e63,
        }
    }
}

/// The `index`-th largest eigenvalue (0: the largest) of the symmetric tridiagonal (alpha, beta)
/// by Sturm-sequence bisection, and its eigenvector by inverse iteration.
pub(crate) fn tridiagonal_eigenpair(alpha: &[f64], beta: &[f64], index: usize) -> (f64, Vec<f64>) {
    let k = alpha.len();
    // Gershgorin interval.
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for i in 0..k {
        let r = if i > 0 { beta[i - 1].abs() } else { 0.0 }
            + if i + 1 < k { beta[i].abs() } else { 0.0 };
        lo = lo.min(alpha[i] - r);
        hi = hi.max(alpha[i] + r);
    }
    // Number of eigenvalues below x.
    let count_below = |x: f64| -> usize {
        let mut c = 0;
        let mut q = 1.0;
        for i in 0..k {
            let b2 = if i > 0 {
                beta[i - 1] * beta[i - 1]
            } else {
                0.0
            };
            q = alpha[i] - x - if i > 0 { b2 / q } else { 0.0 };
            if q == 0.0 {
                q = -f64::EPSILON * (x.abs() + f64::MIN_POSITIVE);
            }
            if q < 0.0 {
                c += 1;
            }
        }
        c
    };
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if count_below(mid) < k - index {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let theta = 0.5 * (lo + hi);
    // Inverse iteration on (T - shift I), shift just above theta, with partial pivoting solve.
    let shift = theta + (hi - lo).max(theta.abs() * 1e-14).max(1e-300);
    let mut s = vec![1.0; k];
    for _ in 0..3 {
        s = solve_tridiagonal(alpha, beta, shift, &s);
        // Scale by the largest entry first: the solve can return ~1e300 entries (overflow in the
        // sum of squares).
        let big = s.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        s.iter_mut().for_each(|v| *v /= big);
        let n = norm2(&s);
        s.iter_mut().for_each(|v| *v /= n);
    }
    (theta, s)
}

/// Solves (T - shift I) x = b for symmetric tridiagonal T by Gaussian elimination with partial
/// pivoting (LAPACK's dgtsv scheme).
fn solve_tridiagonal(alpha: &[f64], beta: &[f64], shift: f64, b: &[f64]) -> Vec<f64> {
    let n = alpha.len();
    let mut dl: Vec<f64> = beta.to_vec();
    let mut dg: Vec<f64> = alpha.iter().map(|a| a - shift).collect();
    let mut du: Vec<f64> = beta.to_vec();
    let mut du2 = vec![0.0; n.saturating_sub(2)];
    let mut x = b.to_vec();
    for i in 0..n.saturating_sub(1) {
        if dg[i].abs() >= dl[i].abs() {
            let f = if dg[i] == 0.0 { 0.0 } else { dl[i] / dg[i] };
            dg[i + 1] -= f * du[i];
            x[i + 1] -= f * x[i];
            if i + 2 < n {
                du2[i] = 0.0;
            }
        } else {
            let f = dg[i] / dl[i];
            dg[i] = dl[i];
            let tmp = dg[i + 1];
            dg[i + 1] = du[i] - f * tmp;
            if i + 2 < n {
                du2[i] = du[i + 1];
                du[i + 1] *= -f;
            }
            du[i] = tmp;
            x.swap(i, i + 1);
            x[i + 1] -= f * x[i];
        }
        dl[i] = 0.0;
    }
    let tiny = |v: f64| if v == 0.0 { 1e-300 } else { v };
    for i in (0..n).rev() {
        let mut s = x[i];
        if i + 1 < n {
            s -= du[i] * x[i + 1];
        }
        if i + 2 < n {
            s -= du2[i] * x[i + 2];
        }
        x[i] = s / tiny(dg[i]);
    }
    x
}

/// The result of [`lanczos_top`]: the estimate, the final unit Ritz vector y (an approximate top
/// right singular vector of M) and M y.
#[derive(Debug, Clone, PartialEq)]
pub struct TopSingular {
    pub estimate: NormEstimate,
    pub ritz_vector: Vec<f64>,
    pub image: Vec<f64>,
}

/// ||M||_2 where `apply(v)` returns (M v, M^T M v) for a vector of length n.
pub fn spectral_norm(
    n: usize,
    opts: LanczosOptions,
    mut apply: impl FnMut(&[f64]) -> (Vec<f64>, Vec<f64>),
) -> NormEstimate {
    match lanczos_top(n, opts, None, |v| Some(apply(v))) {
        Some(top) => top.estimate,
        None => unreachable!("apply never returns None here"),
    }
}

/// Lanczos on M^T M as in [`spectral_norm`], from `start` when given (a warm start: any nonzero
/// vector; a random one from `opts.seed` otherwise). `apply` returns `None` to stop the iteration
/// (cancellation), and then so does this function.
///
/// Every step keeps M q and M^T M q beside the basis vector q, so the Ritz vectors' images and
/// explicit residuals are combinations of stored vectors: no pass beyond one `apply` per step.
/// The iteration stops when the interval of [`crate::ritz`] (the top Ritz pair's explicit
/// residual, the second pair's in the gap) is narrower than `opts.tol` relative.
pub fn lanczos_top(
    n: usize,
    opts: LanczosOptions,
    start: Option<&[f64]>,
    mut apply: impl FnMut(&[f64]) -> Option<(Vec<f64>, Vec<f64>)>,
) -> Option<TopSingular> {
    let mut q = match start {
        Some(s) if s.len() == n && norm2(s) > 0.0 && norm2(s).is_finite() => s.to_vec(),
        _ => Gaussian::new(opts.seed).normals(n, 1.0),
    };
    let qn = norm2(&q);
    q.iter_mut().for_each(|v| *v /= qn);
    let mut basis: Vec<Vec<f64>> = Vec::new();
    let mut images: Vec<Vec<f64>> = Vec::new();
    let mut products: Vec<Vec<f64>> = Vec::new();
    let mut alpha = Vec::new();
    let mut beta: Vec<f64> = Vec::new();
    let max_iter = opts.max_iter.min(n).max(1);
    loop {
        let k = alpha.len();
        let (mq, mtmq) = apply(&q)?;
        let mut w = mtmq.clone();
        let a = dot(&q, &w);
        axpy(&mut w, -a, &q);
        if let Some(prev) = basis.last() {
            axpy(&mut w, -beta[k - 1], prev);
        }
        basis.push(q.clone());
        images.push(mq);
        products.push(mtmq);
        // Full reorthogonalisation, twice ("twice is enough").
        for _ in 0..2 {
            for b in &basis {
                let c = dot(b, &w);
                axpy(&mut w, -c, b);
            }
        }
        alpha.push(a);
        let bnext = norm2(&w);
        // The top two Ritz pairs, each with its image and explicit residual.
        let ritz = |index: usize| {
            let (_, s) = tridiagonal_eigenpair(&alpha, &beta, index);
            let cols = |v: &[Vec<f64>]| -> Vec<f64> {
                let mut out = vec![0.0; n];
                for (col, &c) in v.iter().zip(&s) {
                    axpy(&mut out, c, col);
                }
                out
            };
            let (mut y, mut my, mut mtmy) = (cols(&basis), cols(&images), cols(&products));
            let yn = norm2(&y);
            for v in [&mut y, &mut my, &mut mtmy] {
                v.iter_mut().for_each(|e| *e /= yn);
            }
            let norm = norm2(&my);
            let theta = norm * norm;
            let residual = norm2(
                &mtmy
                    .iter()
                    .zip(&y)
                    .map(|(a, b)| a - theta * b)
                    .collect::<Vec<f64>>(),
            );
            (norm, residual, y, my)
        };
        let (norm, residual, y, my) = ritz(0);
        let second = (k >= 1).then(|| ritz(1));
        let values: Vec<f64> = std::iter::once(norm * norm)
            .chain(second.as_ref().map(|s| s.0 * s.0))
            .collect();
        let checked = second.as_ref().map(|s| (s.0, s.1));
        let mut estimate = judge((norm, residual), checked, &values, k + 1, k + 1, opts.tol);
        // An invariant subspace (the next Lanczos vector vanishes): the Ritz values are
        // eigenvalues, to rounding.
        let breakdown = bnext <= 1e-14 * (norm * norm).max(1e-300);
        estimate.converged |= breakdown;
        if estimate.converged || k + 1 == max_iter {
            return Some(TopSingular {
                estimate,
                ritz_vector: y,
                image: my,
            });
        }
        beta.push(bnext);
        q = w.iter().map(|v| v / bnext).collect();
    }
}
