//! Rayleigh-Ritz on a subspace, and the interval a Ritz pair and its residual imply for the
//! largest eigenvalue (docs/MATH.md §9): the tools the per-layer and the end-to-end iterations
//! share.
//!
//! The interval. For a symmetric positive semi-definite operator A (M^T M or M M^T, so that
//! sqrt(lambda_1) = ||M||_2), a unit Ritz vector y_1 with Rayleigh quotient theta_1 = y_1^T A y_1
//! and residual r_1 = ||A y_1 - theta_1 y_1||, and the next Ritz pair (theta_2, r_2):
//! - theta_1 <= lambda_1 always (a Rayleigh quotient never exceeds the largest eigenvalue): the
//!   lower end, which holds whatever the subspace;
//! - some eigenvalue lies within r_1 of theta_1 (Bauer-Fike for symmetric matrices), and when
//!   alpha = theta_2 + r_2 < theta_1 and no eigenvalue but lambda_1 exceeds alpha, Kato-Temple
//!   gives lambda_1 <= theta_1 + r_1^2 / (theta_1 - alpha). The upper end is
//!   theta_1 + min(r_1, r_1^2 / (theta_1 - alpha)) (the second term only when alpha < theta_1).
//!
//! The upper end rests on a condition no finite computation can check: that the subspace has not
//! missed an eigenvalue above the ones its Ritz values approximate (the eigenvalue within r_1 of
//! theta_1 is lambda_1, and lambda_2 <= theta_2 + r_2). A random start makes a missed direction a
//! probability-zero event and the iterations amplify the top directions first; where the top
//! singular values cluster the second Ritz pair is checked too, so a norm does not stop on the
//! second of two close singular values. So the interval is a measurement's interval, not a
//! certified enclosure; its lower end is a bound.

use crate::linalg::{axpy, dot, norm2};

/// One iterated spectral norm.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct NormEstimate {
    /// ||M y||_2 for the final unit Ritz vector y: a lower bound on ||M||_2.
    pub norm: f64,
    /// ||M^T M y - norm^2 y||_2, computed explicitly.
    pub residual: f64,
    /// residual / norm^2: the relative accuracy of norm^2 as an eigenvalue of M^T M.
    pub relative_residual: f64,
    pub iterations: usize,
    pub converged: bool,
    /// [norm, upper]: the interval the stopping rule implies for ||M||_2 (docs/MATH.md §9,
    /// [`crate::ritz`]): the lower end a bound, the upper end valid when the iteration has not
    /// missed an eigenvalue (a measurement's interval, not a certified enclosure).
    pub interval: Option<[f64; 2]>,
}

/// The upper end theta_1 + delta of the interval for lambda_1 (module documentation) from the top
/// Ritz value and its residual, and the next pair's when known.
pub(crate) fn top_eigenvalue_upper(theta1: f64, r1: f64, next: Option<(f64, f64)>) -> f64 {
    let mut delta = r1;
    if let Some((theta2, r2)) = next {
        let gap = theta1 - (theta2 + r2);
        if gap > 0.0 {
            delta = delta.min(r1 * r1 / gap);
        }
    }
    theta1 + delta
}

/// Top Ritz values closer than this fraction of the top one are a cluster: no gap is used
/// ([`gap_pair`]), since many eigenvalues may lie within it.
pub const CLUSTER_GAP: f64 = 0.01;
/// The gap is used only once the subspace has at least this many dimensions ([`gap_pair`]).
pub const MIN_GAP_DIMENSION: usize = 8;
/// ... and the second Ritz pair's residual is at most this fraction of theta_1 - theta_2.
pub const SECOND_RESOLVED: f64 = 0.1;

/// The second Ritz pair admitted into Kato-Temple's gap ([`top_eigenvalue_upper`]), from
/// theta_1, the second pair's (norm, residual) (norm^2 = theta_2) and the subspace's dimension:
/// none where the top two Ritz values are within [`CLUSTER_GAP`], where the subspace has fewer
/// than [`MIN_GAP_DIMENSION`] dimensions, or where the second pair's residual exceeds
/// [`SECOND_RESOLVED`] times the distance between the two Ritz values (Kato-Temple needs
/// lambda_2 <= theta_2 + r_2, which a second pair still far from its eigenvalue does not make
/// likely: the whole network's norm of LNS stopped at 75.06449 with theta_2 + r_2 = 3940 from
/// r_2 = 428, where the norm is at least 75.06459). Why the dimension: a small Krylov space can hold one
/// vector of each of two clusters of eigenvalues and nothing else, both Ritz pairs then with tiny
/// residuals, while the top eigenvalue, inside the upper cluster, is not yet resolved (||J - I||
/// of Post-LN and DeepNorm, whose J is close to a projection so that (J - I)^T (J - I) has its
/// eigenvalues near 0 and near 1: two Lanczos steps gave theta_1 = 1.000023 with residual
/// 3e-4 and theta_2 = 1e-5 with residual 3e-5, the norm being 1.0000855; with the gap the
/// interval would have excluded it).
pub(crate) fn gap_pair(theta1: f64, second: Option<(f64, f64)>, dim: usize) -> Option<(f64, f64)> {
    let (norm2, r2) = second?;
    let theta2 = norm2 * norm2;
    let gap = theta1 - theta2;
    if dim < MIN_GAP_DIMENSION || gap < CLUSTER_GAP * theta1 || r2 > SECOND_RESOLVED * gap {
        None
    } else {
        Some((theta2, r2))
    }
}

/// Whether the top two Ritz values (`values`, decreasing) are within [`CLUSTER_GAP`] of each
/// other: then a norm stops only once the second Ritz pair has converged too ([`judge`]).
pub(crate) fn clustered(values: &[f64]) -> bool {
    values.len() >= 2 && values[0] - values[1] < CLUSTER_GAP * values[0]
}

/// The estimate of sqrt(lambda_1) = ||M||_2 from the top Ritz pair of A = M^T M or M M^T:
/// `first` = (||M y_1||, residual), `second` the same for the second Ritz vector when checked,
/// `values` the Ritz values (decreasing), `dim` the subspace's dimension. `interval` is
/// [norm, sqrt(upper end)] ([`top_eigenvalue_upper`] with the [`gap_pair`]), and `converged`
/// (the stopping rule of both iterations) says that the interval for lambda_1 = ||M||^2 is at
/// most `tol` wide relative to theta_1, the norm's at most about tol / 2 (without a gap:
/// residual <= tol theta_1, the rule of the iterations before the gap entered); where the top
/// Ritz values cluster ([`clustered`]), also that the second pair was checked and is converged
/// by that rule, so that a norm does not stop on the second of two close singular values while
/// the first is missing from the subspace.
pub(crate) fn judge(
    first: (f64, f64),
    second: Option<(f64, f64)>,
    values: &[f64],
    dim: usize,
    iterations: usize,
    tol: f64,
) -> NormEstimate {
    let (norm, residual) = first;
    let theta = norm * norm;
    let mut est = estimate(
        norm,
        residual,
        gap_pair(theta, second, dim),
        iterations,
        tol,
    );
    if clustered(values) {
        est.converged &= second.is_some_and(|(n2, r2)| r2 <= tol * n2 * n2);
    }
    est
}

/// [`judge`] without the cluster rule: the interval and the stopping rule from the top pair and
/// the second pair admitted into the gap.
pub(crate) fn estimate(
    norm: f64,
    residual: f64,
    next: Option<(f64, f64)>,
    iterations: usize,
    tol: f64,
) -> NormEstimate {
    let theta = norm * norm;
    let upper = top_eigenvalue_upper(theta, residual, next).sqrt();
    NormEstimate {
        norm,
        residual,
        relative_residual: if theta > 0.0 { residual / theta } else { 0.0 },
        iterations,
        converged: upper * upper - theta <= tol * theta,
        interval: Some([norm, upper]),
    }
}

/// All eigenpairs of the dense symmetric k x k matrix `a` (row-major) by cyclic Jacobi rotations,
/// sorted by decreasing eigenvalue: (values, vectors), vectors[i] the i-th unit eigenvector. Its
/// O(k^3) per sweep (k at most a few dozen) is negligible beside one layer pass.
pub(crate) fn jacobi_eigen(a: &[f64], k: usize) -> (Vec<f64>, Vec<Vec<f64>>) {
    let mut m = a.to_vec();
    let mut v = vec![0.0; k * k];
    for i in 0..k {
        v[i * k + i] = 1.0;
    }
    for _ in 0..100 {
        let off: f64 = (0..k)
            .flat_map(|i| (0..k).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| m[i * k + j] * m[i * k + j])
            .sum();
        let total: f64 = m.iter().map(|x| x * x).sum();
        if off <= 1e-30 * total || off == 0.0 {
            break;
        }
        for p in 0..k {
            for q in p + 1..k {
                let apq = m[p * k + q];
                if apq == 0.0 {
                    continue;
                }
                let tau = (m[q * k + q] - m[p * k + p]) / (2.0 * apq);
                let t = tau.signum() / (tau.abs() + (1.0 + tau * tau).sqrt());
                let t = if tau == 0.0 { 1.0 } else { t };
                let c = 1.0 / (1.0 + t * t).sqrt();
                let s = t * c;
                for r in 0..k {
                    let (mrp, mrq) = (m[r * k + p], m[r * k + q]);
                    m[r * k + p] = c * mrp - s * mrq;
                    m[r * k + q] = s * mrp + c * mrq;
                }
                for r in 0..k {
                    let (mpr, mqr) = (m[p * k + r], m[q * k + r]);
                    m[p * k + r] = c * mpr - s * mqr;
                    m[q * k + r] = s * mpr + c * mqr;
                }
                for r in 0..k {
                    let (vrp, vrq) = (v[r * k + p], v[r * k + q]);
                    v[r * k + p] = c * vrp - s * vrq;
                    v[r * k + q] = s * vrp + c * vrq;
                }
            }
        }
    }
    let mut order: Vec<usize> = (0..k).collect();
    order.sort_by(|&i, &j| m[j * k + j].total_cmp(&m[i * k + i]));
    let values = order.iter().map(|&i| m[i * k + i]).collect();
    let vectors = order
        .iter()
        .map(|&i| (0..k).map(|r| v[r * k + i]).collect())
        .collect();
    (values, vectors)
}

/// sum_j c_j cols_j.
pub(crate) fn combine(cols: &[&[f64]], c: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; cols[0].len()];
    for (col, &cj) in cols.iter().zip(c) {
        axpy(&mut out, cj, col);
    }
    out
}

/// The Gram matrix G = C^T C of the columns `cols` (row-major, m x m), reusing `known`, the Gram
/// matrix of the first `known.len()`^(1/2) columns, where the subspace has only grown since it
/// was computed. Each entry is one [`dot`], and dot(x, y) and dot(y, x) are the same bits (the
/// products commute and the sum's order is fixed), so the result is the matrix computed afresh,
/// bit for bit, at the cost of the new columns' dots only.
pub(crate) fn gram(cols: &[&[f64]], known: &[f64]) -> Vec<f64> {
    let m = cols.len();
    let k = (0..=m).find(|k| k * k == known.len()).unwrap_or(0);
    let mut g = vec![0.0; m * m];
    for i in 0..m {
        for j in 0..=i {
            let v = if i < k {
                known[i * k + j]
            } else {
                dot(cols[i], cols[j])
            };
            g[i * m + j] = v;
            g[j * m + i] = v;
        }
    }
    g
}

/// Up to `room` orthonormal directions from `candidates` that are new to span(`basis`): each is
/// projected against the basis (twice: "twice is enough") and normalised; then, repeatedly, the
/// candidate with the most left after projecting out the chosen ones joins if that is at least
/// `keep_above` (rank-revealing Gram-Schmidt with column pivoting, deterministic: the order of
/// `candidates` breaks ties).
pub(crate) fn orthonormal_additions(
    basis: &[&[f64]],
    candidates: Vec<Vec<f64>>,
    room: usize,
    keep_above: f64,
) -> Vec<Vec<f64>> {
    let mut cands: Vec<Vec<f64>> = Vec::with_capacity(candidates.len());
    for mut c in candidates {
        for _ in 0..2 {
            for b in basis {
                let p = dot(b, &c);
                axpy(&mut c, -p, b);
            }
        }
        let cn = norm2(&c);
        if cn > 0.0 && cn.is_finite() {
            c.iter_mut().for_each(|e| *e /= cn);
            cands.push(c);
        }
    }
    let mut chosen: Vec<Vec<f64>> = Vec::new();
    while chosen.len() < room && !cands.is_empty() {
        let mut best = 0;
        let mut best_norm = -1.0;
        for (i, c) in cands.iter().enumerate() {
            let cn = norm2(c);
            if cn > best_norm {
                best = i;
                best_norm = cn;
            }
        }
        if best_norm < keep_above {
            break;
        }
        let mut q = cands.swap_remove(best);
        // Re-project against the basis and the chosen directions (the candidate lost most of its
        // length to them; a second pass restores orthogonality to rounding).
        for b in basis.iter().copied().chain(chosen.iter().map(|c| &c[..])) {
            let p = dot(b, &q);
            axpy(&mut q, -p, b);
        }
        let qn = norm2(&q);
        q.iter_mut().for_each(|e| *e /= qn);
        for c in cands.iter_mut() {
            let p = dot(&q, c);
            axpy(c, -p, &q);
        }
        chosen.push(q);
    }
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Gaussian;

    /// A symmetric matrix with known spectrum: Q diag(lambda) Q^T, Q from Householder reflections.
    pub(crate) fn known(lambda: &[f64], seed: u64) -> Vec<f64> {
        let k = lambda.len();
        let mut rng = Gaussian::new(seed);
        let mut q: Vec<Vec<f64>> = (0..k)
            .map(|i| (0..k).map(|j| if i == j { 1.0 } else { 0.0 }).collect())
            .collect();
        for _ in 0..3 {
            let mut v = rng.normals(k, 1.0);
            let vn = norm2(&v);
            v.iter_mut().for_each(|e| *e /= vn);
            for row in q.iter_mut() {
                let c = dot(row, &v);
                axpy(row, -2.0 * c, &v);
            }
        }
        let mut a = vec![0.0; k * k];
        for i in 0..k {
            for j in 0..k {
                a[i * k + j] = (0..k).map(|m| q[i][m] * lambda[m] * q[j][m]).sum();
            }
        }
        a
    }

    #[test]
    fn jacobi_recovers_a_known_spectrum() {
        let lambda = [3.5, -1.0, 0.25, 2.0, 3.4999, 0.0, 1e-3];
        let k = lambda.len();
        let a = known(&lambda, 5);
        let (values, vectors) = jacobi_eigen(&a, k);
        let mut sorted = lambda.to_vec();
        sorted.sort_by(|x, y| y.total_cmp(x));
        for (got, want) in values.iter().zip(&sorted) {
            assert!((got - want).abs() < 1e-13, "{got} vs {want}");
        }
        for (i, vi) in vectors.iter().enumerate() {
            for (j, vj) in vectors.iter().enumerate() {
                let want = if i == j { 1.0 } else { 0.0 };
                assert!((dot(vi, vj) - want).abs() < 1e-13);
            }
            // A v = lambda v to rounding.
            let av: Vec<f64> = (0..k).map(|r| dot(&a[r * k..(r + 1) * k], vi)).collect();
            let res: f64 = av
                .iter()
                .zip(vi)
                .map(|(x, y)| (x - values[i] * y).powi(2))
                .sum::<f64>()
                .sqrt();
            assert!(res < 1e-12, "residual {res}");
        }
    }

    /// The Gram matrix grown from a known block is the one computed afresh, bit for bit, and
    /// symmetric.
    #[test]
    fn a_grown_gram_matrix_is_the_fresh_one() {
        let mut rng = Gaussian::new(9);
        let cols: Vec<Vec<f64>> = (0..7).map(|_| rng.normals(37, 1.0)).collect();
        let refs: Vec<&[f64]> = cols.iter().map(|c| &c[..]).collect();
        let fresh: Vec<f64> = refs
            .iter()
            .flat_map(|x| refs.iter().map(move |y| dot(x, y)))
            .collect();
        let bits = |g: &[f64]| g.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&gram(&refs, &[])), bits(&fresh));
        for k in 1..=7 {
            let known = gram(&refs[..k], &[]);
            assert_eq!(bits(&gram(&refs, &known)), bits(&fresh), "k = {k}");
        }
    }

    #[test]
    fn additions_are_orthonormal_and_drop_dependent_candidates() {
        let e = |i: usize| -> Vec<f64> { (0..5).map(|j| if i == j { 1.0 } else { 0.0 }).collect() };
        let e0 = e(0);
        let basis: Vec<&[f64]> = vec![&e0];
        let mixed: Vec<f64> = e(1).iter().zip(&e(2)).map(|(a, b)| a + b).collect();
        // e0 + e1 (new: e1), e1 + e2 (new: e2 after e1), 2 e1 (dependent), e0 (in the basis).
        let cands = vec![
            e(0).iter().zip(&e(1)).map(|(a, b)| a + b).collect(),
            mixed,
            e(1).iter().map(|v| 2.0 * v).collect(),
            e(0),
        ];
        let got = orthonormal_additions(&basis, cands, 4, 1e-10);
        assert_eq!(got.len(), 2);
        for (i, q) in got.iter().enumerate() {
            assert!((norm2(q) - 1.0).abs() < 1e-15);
            assert!(dot(q, &e0).abs() < 1e-15);
            for p in &got[..i] {
                assert!(dot(p, q).abs() < 1e-15);
            }
        }
        assert_eq!(
            orthonormal_additions(&basis, vec![e(1), e(2)], 1, 1e-10).len(),
            1
        );
    }

    /// The interval's upper end: Bauer-Fike's r_1 where the gap is unknown or closed, Kato-Temple's
    /// r_1^2 / gap where that is smaller; on a diagonal matrix with a perturbed top eigenvector
    /// it contains lambda_1 and is quadratic in the residual.
    #[test]
    fn the_interval_contains_the_top_eigenvalue_and_shrinks_quadratically() {
        assert_eq!(top_eigenvalue_upper(4.0, 0.5, None), 4.5);
        // theta_2 + r_2 >= theta_1: no gap, Bauer-Fike.
        assert_eq!(top_eigenvalue_upper(4.0, 0.5, Some((3.9, 0.2))), 4.5);
        // gap 4 - (2 + 0) = 2: r^2 / gap = 0.125.
        assert_eq!(top_eigenvalue_upper(4.0, 0.5, Some((2.0, 0.0))), 4.125);
        // A = diag(4, 2, 1); y = (cos e, sin e / sqrt 2, sin e / sqrt 2): the interval from
        // (theta, r) and the exact second pair (2, 0) holds 4, and its width is of order r^2.
        for e in [1e-1, 1e-2, 1e-3, 1e-4] {
            let (c, s) = (f64::cos(e), f64::sin(e) / 2f64.sqrt());
            let y = [c, s, s];
            let ay = [4.0 * c, 2.0 * s, s];
            let theta = dot(&y, &ay);
            let r = ay
                .iter()
                .zip(&y)
                .map(|(a, b)| (a - theta * b).powi(2))
                .sum::<f64>()
                .sqrt();
            let upper = top_eigenvalue_upper(theta, r, Some((2.0, 0.0)));
            assert!(theta <= 4.0 && 4.0 <= upper, "e = {e}: [{theta}, {upper}]");
            assert!(
                upper - theta <= 2.0 * r * r,
                "e = {e}: width {} for r {r}",
                upper - theta
            );
            assert!(r >= e, "e = {e}: r {r}");
        }
    }
}
