//! The end-to-end norms ||E_l||_2, E_l = d x_(L+1) / d x_l = J_L ... J_l, for a chain of suffixes
//! l = from, from - 1, ..., to, by Rayleigh-Ritz on one output-space subspace carried down the
//! chain (a Davidson iteration whose search space every suffix inherits from the ones before).
//!
//! Why the numbers are valid. Let U (n x k, n = T d) have orthonormal columns in the output space
//! of the stack, W_l = E_l^T U and G_l = W_l^T W_l = U^T (E_l E_l^T) U, the compression of
//! E_l E_l^T to span(U). For the top eigenpair (theta, s) of G_l, the unit Ritz vector y = U s has
//! ||E_l^T y||^2 = s^T G_l s = theta, and ||E_l^T y|| <= ||E_l^T||_2 = ||E_l||_2 for every unit y
//! (Rayleigh-Ritz / Courant-Fischer: the top eigenvalue of a compression never exceeds the
//! operator's). So `norm` = ||z||, z = W_l s = E_l^T y, is a lower bound on ||E_l||_2 whatever U
//! is. The `residual` ||E_l E_l^T y - norm^2 y|| = ||E_l z - norm^2 y|| is computed explicitly (one
//! JVP of z through layers l..L); some eigenvalue of E_l E_l^T lies within it of norm^2
//! (Bauer-Fike for symmetric matrices), and a suffix is converged when it is at most
//! tol * norm^2: the meaning and the stopping rule of the per-suffix Lanczos
//! ([`crate::lanczos`]) this replaces.
//!
//! Why it is cheap. E_l = E_(l+1) J_l, so W_l = J_l^T W_(l+1): moving the whole subspace from one
//! suffix to the next costs one layer VJP per column, not L - l + 1. The subspace built for the
//! suffixes before (their Krylov directions) already holds most of E_l's top left singular
//! vector, so the Ritz vector on it is an excellent start, and only a few expansion steps
//! (residual r = E_l z - theta y, orthogonal to span(U) by the Galerkin condition, a new Krylov
//! direction; its W column costs one backward pass through the suffix) reach the tolerance, where
//! a Lanczos run restarted from the previous Ritz vector alone needed about 16. (Measured in the
//! default case, d = 128, T = 32, L = 32: the inherited subspace gives a first relative residual
//! of about 0.1, each expansion gains about a factor 10, so 5-8 checks per long suffix; 293 in
//! all against about 509 Lanczos steps, and 1.7 times less time.) When the subspace
//! reaches [`MAX_COLUMNS`] it is thick-restarted to the top [`KEEP_COLUMNS`] Ritz vectors of the
//! current suffix.
//!
//! Every step is a fixed sequence of operations on fixed data (threads only take independent
//! groups of columns, fixed by the column count), so the parallel build computes the same bits
//! as the single-threaded one.

use crate::lanczos::{top_eigenpair, NormEstimate};
use crate::linalg::{axpy, dot, norm2};
use crate::model::{Gaussian, LayerCache, Model};
use crate::parallel::{map_indices, MaybeSync};

/// The subspace is thick-restarted when it reaches this many columns...
pub const MAX_COLUMNS: usize = 48;
/// ... to this many (the current suffix's top Ritz vectors).
pub const KEEP_COLUMNS: usize = 24;
/// Columns moved by one batched layer VJP ([`Model::layer_vjp_batch`]) in the transport. Measured
/// in the default case (one thread, a shared machine): per column, a batch of 2-4 cost 0.85-1.0
/// times a single VJP, 16-32 cost 1.3-2 times (the (k T) x d_ff intermediates leave the cache),
/// so the batches stay small.
pub const TRANSPORT_BATCH: usize = 4;

/// The two chains of suffixes the end-to-end stage runs (concurrently with `parallel`), each with
/// its own carried subspace ([`crate::end_to_end`]): suffixes L down to L - j + 1 and L - j down
/// to 1, j the least with j (j + 1) / 2 >= L (L + 1) / 4, so both hold about half the layer
/// operations. Fixed by L alone (not by the thread count), so the parallel and the
/// single-threaded build compute the same numbers.
pub fn end_to_end_chains(layers: usize) -> Vec<(usize, usize)> {
    let total = layers * (layers + 1) / 2;
    let mut j = 1;
    while j * (j + 1) / 2 * 2 < total {
        j += 1;
    }
    let mut v = vec![(layers, layers + 1 - j)];
    if layers > j {
        v.push((layers - j, 1));
    }
    v
}

/// Top eigenpair of the dense symmetric k x k matrix `a` (row-major, overwritten): Householder
/// reduction to tridiagonal form, then [`top_eigenpair`] (Sturm bisection and inverse iteration)
/// and the back-transformation. Returns (theta, unit eigenvector).
pub(crate) fn dense_top_eigenpair(a: &mut [f64], k: usize) -> (f64, Vec<f64>) {
    debug_assert_eq!(a.len(), k * k);
    if k == 1 {
        return (a[0], vec![1.0]);
    }
    let mut reflectors: Vec<Vec<f64>> = Vec::with_capacity(k.saturating_sub(2));
    for j in 0..k.saturating_sub(2) {
        let x: Vec<f64> = (j + 1..k).map(|i| a[i * k + j]).collect();
        let xn = norm2(&x);
        let tail = norm2(&x[1..]);
        if tail == 0.0 {
            // Already tridiagonal in this column.
            reflectors.push(Vec::new());
            continue;
        }
        let alpha = if x[0] > 0.0 { -xn } else { xn };
        let mut v = x;
        v[0] -= alpha;
        let vn = norm2(&v);
        v.iter_mut().for_each(|e| *e /= vn);
        // Trailing block A22 <- H A22 H, H = I - 2 v v^T: with p = A22 v, K = v^T p and
        // q = p - K v, H A22 H = A22 - 2 (v q^T + q v^T).
        let m = k - j - 1;
        let off = j + 1;
        let p: Vec<f64> = (0..m)
            .map(|r| (0..m).map(|c| a[(off + r) * k + off + c] * v[c]).sum())
            .collect();
        let kk = dot(&v, &p);
        let q: Vec<f64> = p.iter().zip(&v).map(|(pi, vi)| pi - kk * vi).collect();
        for r in 0..m {
            for c in 0..m {
                a[(off + r) * k + off + c] -= 2.0 * (v[r] * q[c] + q[r] * v[c]);
            }
        }
        a[off * k + j] = alpha;
        a[j * k + off] = alpha;
        for i in off + 1..k {
            a[i * k + j] = 0.0;
            a[j * k + i] = 0.0;
        }
        reflectors.push(v);
    }
    let diag: Vec<f64> = (0..k).map(|i| a[i * k + i]).collect();
    let off: Vec<f64> = (0..k - 1).map(|i| a[(i + 1) * k + i]).collect();
    let (theta, mut s) = top_eigenpair(&diag, &off);
    // A = Q T Q^T with Q = H_0 H_1 ... H_(k-3): the eigenvector is Q s.
    for (j, v) in reflectors.iter().enumerate().rev() {
        if v.is_empty() {
            continue;
        }
        let c = dot(v, &s[j + 1..]);
        axpy(&mut s[j + 1..], -2.0 * c, v);
    }
    let sn = norm2(&s);
    s.iter_mut().for_each(|e| *e /= sn);
    (theta, s)
}

/// All eigenpairs of the dense symmetric k x k matrix `a` (row-major) by cyclic Jacobi rotations,
/// sorted by decreasing eigenvalue: (values, vectors), vectors[i] the i-th unit eigenvector. Used
/// only for the thick restart, where its O(k^3) per sweep is negligible beside the layer passes.
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
fn combine(cols: &[Vec<f64>], c: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; cols[0].len()];
    for (col, &cj) in cols.iter().zip(c) {
        axpy(&mut out, cj, col);
    }
    out
}

/// G = W^T W for the columns `w` (row-major).
fn gram(w: &[Vec<f64>]) -> Vec<f64> {
    let k = w.len();
    let mut g = vec![0.0; k * k];
    for r in 0..k {
        for c in r..k {
            let v = dot(&w[r], &w[c]);
            g[r * k + c] = v;
            g[c * k + r] = v;
        }
    }
    g
}

/// The end-to-end norms of the suffixes l = `from` down to `to` (from >= to), in that order, each
/// with its Rayleigh-quotient lower bound and explicit residual (module documentation). The
/// subspace starts as one random vector (seed `opts.seed + 1000 + from`). `iterations` counts the
/// suffix's residual checks (each one JVP pass through layers l..L, and, unless it converged, one
/// VJP pass for the new direction: the cost of one Lanczos step). `done(l, estimate)` hears each
/// norm as it finishes; `None` once `stop()`.
pub(crate) fn end_to_end_chain<S, D>(
    model: &Model,
    caches: &[LayerCache],
    from: usize,
    to: usize,
    opts: crate::lanczos::LanczosOptions,
    stop: &S,
    done: &D,
) -> Option<Vec<(usize, NormEstimate)>>
where
    S: Fn() -> bool + MaybeSync,
    D: Fn(usize, NormEstimate) + MaybeSync,
{
    let limits = (MAX_COLUMNS, KEEP_COLUMNS);
    chain_with_limits(model, caches, (from, to), opts, limits, stop, done)
}

/// [`end_to_end_chain`] with the restart limits (max columns, kept columns) as parameters.
fn chain_with_limits<S, D>(
    model: &Model,
    caches: &[LayerCache],
    (from, to): (usize, usize),
    opts: crate::lanczos::LanczosOptions,
    (max_columns, keep_columns): (usize, usize),
    stop: &S,
    done: &D,
) -> Option<Vec<(usize, NormEstimate)>>
where
    S: Fn() -> bool + MaybeSync,
    D: Fn(usize, NormEstimate) + MaybeSync,
{
    let n = model.cfg.tokens * model.cfg.d;
    let big_l = model.cfg.layers;
    let max_cols = max_columns.min(n);
    let backward = |l: usize, v: &[f64]| -> Option<Vec<f64>> {
        let mut g = v.to_vec();
        for k in (l..=big_l).rev() {
            if stop() {
                return None;
            }
            g = model.layer_vjp(k, &caches[k - 1], &g, None);
        }
        Some(g)
    };
    let mut first = Gaussian::new(opts.seed.wrapping_add(1000 + from as u64)).normals(n, 1.0);
    let fnorm = norm2(&first);
    first.iter_mut().for_each(|e| *e /= fnorm);
    // u: orthonormal output-space basis; w[j] = E_(l+1)^T u[j] on entry to suffix l (for l =
    // from: w[j] = u[j], E_(L+1) = I), then E_l^T u[j].
    let mut w: Vec<Vec<f64>> = vec![backward(from + 1, &first)?];
    let mut u: Vec<Vec<f64>> = vec![first];
    let mut out = Vec::with_capacity(from + 1 - to);
    for l in (to..=from).rev() {
        // Transport: W_l = J_l^T W_(l+1), one layer VJP per column, TRANSPORT_BATCH columns per
        // batched VJP (fixed groups, whatever the thread count, so the bits do not depend on it).
        let groups = w.len().div_ceil(TRANSPORT_BATCH);
        let moved: Vec<Option<Vec<f64>>> = map_indices(groups, |b| {
            if stop() {
                return None;
            }
            let cols = &w[b * TRANSPORT_BATCH..((b + 1) * TRANSPORT_BATCH).min(w.len())];
            Some(model.layer_vjp_batch(l, &caches[l - 1], &cols.concat()))
        });
        let moved: Vec<Vec<f64>> = moved.into_iter().collect::<Option<_>>()?;
        w = moved
            .iter()
            .flat_map(|block| block.chunks(n).map(<[f64]>::to_vec))
            .collect();
        let mut g = gram(&w);
        let mut checks = 0usize;
        let estimate = loop {
            let k = u.len();
            let (_, c) = dense_top_eigenpair(&mut g.clone(), k);
            let mut y = combine(&u, &c);
            let mut z = combine(&w, &c);
            let yn = norm2(&y);
            y.iter_mut().for_each(|e| *e /= yn);
            z.iter_mut().for_each(|e| *e /= yn);
            // Explicit residual: one JVP pass of z = E_l^T y through layers l..L.
            let mut f = z.clone();
            for k in l..=big_l {
                if stop() {
                    return None;
                }
                f = model.layer_jvp(k, &caches[k - 1], &f);
            }
            checks += 1;
            let norm = norm2(&z);
            let theta = norm * norm;
            let r: Vec<f64> = f.iter().zip(&y).map(|(a, b)| a - theta * b).collect();
            let residual = norm2(&r);
            let converged = residual <= opts.tol * theta;
            let est = NormEstimate {
                norm,
                residual,
                relative_residual: if theta > 0.0 { residual / theta } else { 0.0 },
                iterations: checks,
                converged,
            };
            if converged || checks >= opts.max_iter {
                break est;
            }
            if u.len() >= max_cols {
                // Thick restart: keep the top Ritz vectors of this suffix.
                let (_, vecs) = jacobi_eigen(&g, u.len());
                let keep = &vecs[..keep_columns.min(vecs.len())];
                u = keep.iter().map(|c| combine(&u, c)).collect();
                w = keep.iter().map(|c| combine(&w, c)).collect();
                g = gram(&w);
            }
            let added = orthonormal_additions(&u, vec![r], 1, 1e-10);
            let Some(q) = added.into_iter().next() else {
                // The residual lies in span(U) to rounding: no new direction exists.
                break est;
            };
            let wq = backward(l, &q)?;
            u.push(q);
            w.push(wq);
            let k = u.len();
            let mut grown = vec![0.0; k * k];
            for r in 0..k - 1 {
                grown[r * k..r * k + k - 1].copy_from_slice(&g[r * (k - 1)..(r + 1) * (k - 1)]);
            }
            for r in 0..k {
                let v = dot(&w[r], &w[k - 1]);
                grown[r * k + k - 1] = v;
                grown[(k - 1) * k + r] = v;
            }
            g = grown;
        };
        done(l, estimate);
        out.push((l, estimate));
    }
    Some(out)
}

/// Up to `room` orthonormal directions from `candidates` that are new to span(`basis`): each is
/// projected against the basis (twice: "twice is enough") and normalised; then, repeatedly, the
/// candidate with the most left after projecting out the chosen ones joins if that is at least
/// `keep_above` (rank-revealing Gram-Schmidt with column pivoting, deterministic: the order of
/// `candidates` breaks ties).
fn orthonormal_additions(
    basis: &[Vec<f64>],
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
        for b in basis.iter().chain(&chosen) {
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
    use crate::lanczos::LanczosOptions;
    use crate::measure::build;
    use crate::model::{Config, Placement};
    use crate::spec::{InputSpec, LabSpec, Selection};

    /// A symmetric matrix with known spectrum: Q diag(lambda) Q^T, Q from Householder reflections.
    fn known(lambda: &[f64], seed: u64) -> Vec<f64> {
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
    fn dense_eigen_solvers_recover_a_known_spectrum() {
        let lambda = [3.5, -1.0, 0.25, 2.0, 3.4999, 0.0, 1e-3];
        let k = lambda.len();
        let a = known(&lambda, 5);
        let (theta, v) = dense_top_eigenpair(&mut a.clone(), k);
        // Backward-stable reductions: eigenvalue errors are a few ulps of ||A|| = 3.5.
        assert!((theta - 3.5).abs() < 1e-13, "{theta}");
        let av: Vec<f64> = (0..k).map(|i| dot(&a[i * k..(i + 1) * k], &v)).collect();
        let res: f64 = av
            .iter()
            .zip(&v)
            .map(|(x, y)| (x - theta * y).powi(2))
            .sum::<f64>()
            .sqrt();
        // The gap to the next eigenvalue is 1e-4, so an eigenvector accurate to ~1e-12 has
        // a residual below 1e-12 (residual = sum of (lambda_i - theta) c_i over the others).
        assert!(res < 1e-12, "residual {res}");
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
        }
        // 1 x 1 and 2 x 2 (no reflection needed).
        assert_eq!(dense_top_eigenpair(&mut [4.0], 1), (4.0, vec![1.0]));
        let (t2, _) = dense_top_eigenpair(&mut [2.0, 1.0, 1.0, 2.0], 2);
        assert!((t2 - 3.0).abs() < 1e-15);
    }

    #[test]
    fn additions_are_orthonormal_and_drop_dependent_candidates() {
        let e = |i: usize| -> Vec<f64> { (0..5).map(|j| if i == j { 1.0 } else { 0.0 }).collect() };
        let basis = vec![e(0)];
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
            assert!(dot(q, &basis[0]).abs() < 1e-15);
            for p in &got[..i] {
                assert!(dot(p, q).abs() < 1e-15);
            }
        }
        assert_eq!(
            orthonormal_additions(&basis, vec![e(1), e(2)], 1, 1e-10).len(),
            1
        );
    }

    /// The thick restart (forced here at 6 columns, kept 3) changes the subspace, not the answer:
    /// every suffix still converges, and its norm^2 agrees with the unrestarted chain's within
    /// the two explicit residuals (both are within their residual of the top eigenvalue).
    #[test]
    fn thick_restarts_keep_the_norms() {
        let cfg = Config {
            d: 16,
            heads: 2,
            kv_heads: 2,
            d_ff: 24,
            tokens: 6,
            layers: 5,
            vocab: 32,
            init_std: 0.2,
            mix_post_layers: 1,
            ..Config::default_case()
        };
        for placement in [Placement::Pre, Placement::Lns, Placement::Post] {
            let spec = LabSpec {
                cfg: Config {
                    placement,
                    ..cfg.clone()
                },
                seed: 9,
                weights: None,
                input: InputSpec::Tokens(None),
                lanczos: LanczosOptions::default(),
                select: Selection::default(),
                memory_budget: crate::memory::DEFAULT_MEMORY_BUDGET,
            };
            let (model, x1, _) = build(&spec).unwrap();
            let (_, caches) = model.forward(&x1);
            let run = |limits| {
                chain_with_limits(
                    &model,
                    &caches,
                    (5, 1),
                    LanczosOptions::default(),
                    limits,
                    &|| false,
                    &|_, _| {},
                )
                .unwrap()
            };
            let small = run((6, 3));
            let big = run((96, 48));
            // Each check that does not converge adds a column to the one it started with, so a
            // restart at 6 columns happened once the five suffixes made 5 + 6 checks.
            let checks: usize = small.iter().map(|(_, e)| e.iterations).sum();
            assert!(
                checks >= 11,
                "{placement:?}: only {checks} checks, no restart"
            );
            for ((l, a), (_, b)) in small.iter().zip(&big) {
                assert!(a.converged && b.converged, "{placement:?} l = {l}");
                let (a2, b2) = (a.norm * a.norm, b.norm * b.norm);
                let allowed = a.residual + b.residual + 1e-12 * a2.max(b2);
                assert!(
                    (a2 - b2).abs() <= allowed,
                    "{placement:?} l = {l}: {a:?} vs {b:?}"
                );
            }
        }
    }
}
