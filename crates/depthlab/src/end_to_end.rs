//! The end-to-end norms ||E_l||_2, E_l = d x_(L+1) / d x_l = J_L ... J_l, for every suffix
//! l = 1, 2, ..., L, longest first, by Rayleigh-Ritz on one output-space subspace that every suffix
//! shares; and, from the same sweeps, a probabilistic upper bound on each (docs/MATH.md §9).
//!
//! Why the numbers are valid. Let Q (n x m, n = T d) have orthonormal columns in the output space
//! of the stack, W_l = E_l^T Q and G_l = W_l^T W_l = Q^T (E_l E_l^T) Q, the compression of
//! E_l E_l^T to span(Q). For an eigenpair (theta, s) of G_l the unit Ritz vector y = Q s has
//! ||E_l^T y||^2 = theta, and ||E_l^T y|| <= ||E_l||_2 for every unit y (Rayleigh-Ritz), so the
//! reported `norm` = ||z||, z = W_l s = E_l^T y, is a lower bound whatever Q is. Its `residual`
//! ||E_l E_l^T y - norm^2 y|| = ||E_l z - norm^2 y|| is computed explicitly (a forward sweep of z
//! through layers l..L), and so is the next Ritz pair's; [`crate::ritz`] turns them into the
//! interval and the stopping rule.
//!
//! Why it is cheap. A new output direction q is swept backward once from the output, J_L^T q,
//! J_(L-1)^T J_L^T q, ..., and every level it passes is kept: E_l'^T q for every suffix l' still
//! to come. The suffixes are taken longest first (l = 1, the whole network's norm, before the
//! others), so each later suffix finds its W already computed for every direction the earlier
//! ones added, and only checks its own Ritz vectors (one forward sweep each through its layers)
//! and adds the residuals where it needs more. The first directions are the k Gaussian probes of
//! the upper bound, swept once for both jobs. When the subspace reaches [`MAX_COLUMNS`] it is
//! thick-restarted to the current suffix's top [`KEEP_COLUMNS`] Ritz vectors, the kept levels
//! combined the same way (no layer pass). Memory: every direction keeps one vector per level
//! still to come, at most [`MAX_COLUMNS`] + [`KEEP_COLUMNS`] directions of L vectors of n
//! (counted by the memory estimate).
//!
//! The upper bound. For Gaussian g_1..g_k (entries N(0, 1)), est_l = (1/k) sum_i ||E_l^T g_i||^2
//! estimates ||E_l||_F^2 >= ||E_l||_2^2, and P(est_l <= t ||E_l||_F^2) <= (t e^(1 - t))^(k/2) for
//! every spectrum ([`probe_level`]), so ||E_l||_2 <= sqrt(est_l / t) with probability at least
//! [`PROBE_PROBABILITY`] for each suffix.
//!
//! Every step is a fixed sequence of operations on fixed data (threads only take whole sweeps of
//! separate vectors, and a batched sweep gives each vector's single-sweep bits), so the parallel
//! build computes the same bits as the single-threaded one.

use crate::lanczos::{LanczosOptions, NormEstimate};
use crate::linalg::{axpy, dot, norm2};
use crate::model::{Gaussian, LayerCache, Model};
use crate::parallel::{map_indices, MaybeSync};
use crate::ritz::{clustered, combine, gram, jacobi_eigen, judge, orthonormal_additions};

/// The subspace is thick-restarted when it would exceed this many directions...
pub const MAX_COLUMNS: usize = 40;
/// ... to this many (the current suffix's top Ritz vectors).
pub const KEEP_COLUMNS: usize = 16;
/// Ritz vectors checked together, and residuals added per expansion: two, so that the second
/// Ritz pair's residual gives the gap of the interval and a norm does not stop on the second of
/// two close singular values ([`crate::ritz`]).
pub const BLOCK: usize = 2;
/// Gaussian probes of the upper bound (also the first search directions).
pub const PROBES: usize = 8;
/// The probability with which each suffix's upper bound holds (per suffix, not simultaneously).
pub const PROBE_PROBABILITY: f64 = 0.999;

/// A chain of L linear maps J_1 .. J_L on R^n, given by their products with k stacked vectors
/// (k n values; each vector's result is the one it would have alone, bit for bit).
pub(crate) trait Chain: MaybeSync {
    fn layers(&self) -> usize;
    fn dim(&self) -> usize;
    /// J_l applied to each stacked vector.
    fn forward(&self, l: usize, xs: &[f64]) -> Vec<f64>;
    /// J_l^T applied to each stacked vector.
    fn backward(&self, l: usize, gs: &[f64]) -> Vec<f64>;
}

/// The network's layers at a forward pass: J_l = d x_(l+1) / d x_l.
#[derive(Debug)]
pub(crate) struct Layers<'a> {
    pub model: &'a Model,
    pub caches: &'a [LayerCache],
}

impl Chain for Layers<'_> {
    fn layers(&self) -> usize {
        self.model.cfg.layers
    }
    fn dim(&self) -> usize {
        self.model.cfg.tokens * self.model.cfg.d
    }
    fn forward(&self, l: usize, xs: &[f64]) -> Vec<f64> {
        self.model.layer_jvp_batch(l, &self.caches[l - 1], xs)
    }
    fn backward(&self, l: usize, gs: &[f64]) -> Vec<f64> {
        self.model.layer_vjp_batch(l, &self.caches[l - 1], gs)
    }
}

/// t and the probability 1 - (t e^(1 - t))^(k/2) of the upper bound sqrt(est / t) with k probes
/// (docs/MATH.md §9): the largest t in (0, 1) whose failure probability is at most
/// 1 - `probability`, by bisection on the increasing t e^(1 - t) (to 2^-60 relative; the returned
/// probability is the one t actually gives, at least the one asked for).
pub fn probe_level(k: usize, probability: f64) -> (f64, f64) {
    let fail = |t: f64| libm::pow(t * libm::exp(1.0 - t), k as f64 / 2.0);
    let target = 1.0 - probability;
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if fail(mid) <= target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo, 1.0 - fail(lo))
}

/// One output direction q and E_l'^T q for the levels l' = low..=L still needed (`levels[i]` is
/// level low + i; levels below the current suffix are freed).
struct Direction {
    q: Vec<f64>,
    low: usize,
    levels: Vec<Vec<f64>>,
}

impl Direction {
    fn at(&self, l: usize) -> &[f64] {
        &self.levels[l - self.low]
    }

    /// The levels of `dirs` combined with the coefficients `c` (a direction of the span).
    fn combination(dirs: &[Direction], c: &[f64], from: usize, top: usize) -> Direction {
        let qs: Vec<&[f64]> = dirs.iter().map(|d| &d.q[..]).collect();
        let levels = (from..=top)
            .map(|l| {
                let cols: Vec<&[f64]> = dirs.iter().map(|d| d.at(l)).collect();
                combine(&cols, c)
            })
            .collect();
        Direction {
            q: combine(&qs, c),
            low: from,
            levels,
        }
    }
}

/// Backward sweeps of each of `qs` from the output down to level `low`: for each, E_l^T q for
/// l = low..=L (index l - low). `None` once `stop()`.
fn sweep_back<C: Chain, S: Fn() -> bool + MaybeSync>(
    chain: &C,
    qs: &[Vec<f64>],
    low: usize,
    stop: &S,
) -> Option<Vec<Vec<Vec<f64>>>> {
    let top = chain.layers();
    let one = |q: &[f64]| -> Option<Vec<Vec<f64>>> {
        let mut levels = vec![Vec::new(); top + 1 - low];
        let mut g = q.to_vec();
        for l in (low..=top).rev() {
            if stop() {
                return None;
            }
            g = chain.backward(l, &g);
            levels[l - low] = g.clone();
        }
        Some(levels)
    };
    map_indices(qs.len(), |i| one(&qs[i])).into_iter().collect()
}

/// Forward sweeps of each of `zs` from level `low` through L: E_low z. `None` once `stop()`.
fn sweep_forward<C: Chain, S: Fn() -> bool + MaybeSync>(
    chain: &C,
    zs: &[Vec<f64>],
    low: usize,
    stop: &S,
) -> Option<Vec<Vec<f64>>> {
    let one = |z: &[f64]| -> Option<Vec<f64>> {
        let mut f = z.to_vec();
        for l in low..=chain.layers() {
            if stop() {
                return None;
            }
            f = chain.forward(l, &f);
        }
        Some(f)
    };
    map_indices(zs.len(), |i| one(&zs[i])).into_iter().collect()
}

/// `count` Gaussian probes g_i (entries N(0, 1), from `seed`), their backward sweeps to level 1
/// (E_l^T g_i for every l) and est_l = (1/k) sum_i ||E_l^T g_i||^2 for l = 1..L (module
/// documentation). `None` once `stop()`.
#[allow(clippy::type_complexity)]
fn probe<C: Chain, S: Fn() -> bool + MaybeSync>(
    chain: &C,
    count: usize,
    seed: u64,
    stop: &S,
) -> Option<(Vec<Vec<f64>>, Vec<Vec<Vec<f64>>>, Vec<f64>)> {
    let mut rng = Gaussian::new(seed.wrapping_add(0x9e37));
    let probes: Vec<Vec<f64>> = (0..count.max(1))
        .map(|_| rng.normals(chain.dim(), 1.0))
        .collect();
    let swept = sweep_back(chain, &probes, 1, stop)?;
    let k = probes.len() as f64;
    let frobenius = (1..=chain.layers())
        .map(|l| {
            swept
                .iter()
                .map(|lv| dot(&lv[l - 1], &lv[l - 1]))
                .sum::<f64>()
                / k
        })
        .collect();
    Some((probes, swept, frobenius))
}

/// A checked Ritz vector: (its norm ||E^T y||, its residual's norm) and the residual vector.
type Checked = ((f64, f64), Vec<f64>);

/// One suffix's results: its norm estimate and the probes' est_l = (1/k) sum ||E_l^T g_i||^2.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Suffix {
    pub estimate: NormEstimate,
    pub frobenius_squared: f64,
}

/// The end-to-end norms of every suffix l = 1, ..., L, in that order (module documentation):
/// `done(l, suffix)` hears each as it finishes; `None` once `stop()`. `iterations` counts a
/// suffix's checks (one forward sweep of its [`BLOCK`] Ritz vectors through layers l..L each).
pub(crate) fn end_to_end_norms<C, S, D>(
    chain: &C,
    opts: LanczosOptions,
    stop: &S,
    done: &D,
) -> Option<Vec<Suffix>>
where
    C: Chain,
    S: Fn() -> bool + MaybeSync,
    D: Fn(usize, Suffix) + MaybeSync,
{
    let limits = Limits {
        max_columns: MAX_COLUMNS,
        keep_columns: KEEP_COLUMNS,
        probes: PROBES,
        cluster_rule: true,
        start: Vec::new(),
    };
    norms_with(chain, opts, &limits, stop, done)
}

/// The iteration's sizes and rules ([`end_to_end_norms`] uses the module's constants).
#[derive(Debug, Clone)]
pub(crate) struct Limits {
    pub max_columns: usize,
    pub keep_columns: usize,
    pub probes: usize,
    /// Check the second Ritz pair where the top Ritz values cluster ([`judge`]); off only in the
    /// test that shows what it prevents.
    pub cluster_rule: bool,
    /// Output directions to start from besides the probes (none but in that test).
    pub start: Vec<Vec<f64>>,
}

/// [`end_to_end_norms`] with the sizes and rules `limits`.
pub(crate) fn norms_with<C, S, D>(
    chain: &C,
    opts: LanczosOptions,
    limits: &Limits,
    stop: &S,
    done: &D,
) -> Option<Vec<Suffix>>
where
    C: Chain,
    S: Fn() -> bool + MaybeSync,
    D: Fn(usize, Suffix) + MaybeSync,
{
    let n = chain.dim();
    let top = chain.layers();
    let max_cols = limits.max_columns.min(n).max(BLOCK + 1);
    let keep = limits.keep_columns.clamp(1, max_cols - BLOCK);

    // The probes, swept to level 1: the upper bound's estimates at every level, then (made
    // orthonormal, the same column operations on every level) the first search directions.
    let (mut probes, mut swept, frobenius) = probe(chain, limits.probes, opts.seed, stop)?;
    if !limits.start.is_empty() {
        swept.extend(sweep_back(chain, &limits.start, 1, stop)?);
        probes.extend(limits.start.iter().cloned());
    }
    let mut dirs: Vec<Direction> = Vec::new();
    for (q, levels) in probes.into_iter().zip(swept) {
        let mut d = Direction { q, low: 1, levels };
        // Modified Gram-Schmidt, twice, with every level following its direction.
        for _ in 0..2 {
            for e in &dirs {
                let c = dot(&e.q, &d.q);
                axpy(&mut d.q, -c, &e.q);
                for (x, y) in d.levels.iter_mut().zip(&e.levels) {
                    axpy(x, -c, y);
                }
            }
        }
        let len = norm2(&d.q);
        if len > 1e-8 * (n as f64).sqrt() {
            d.q.iter_mut().for_each(|e| *e /= len);
            for x in d.levels.iter_mut() {
                x.iter_mut().for_each(|e| *e /= len);
            }
            dirs.push(d);
        }
    }

    let mut out = Vec::with_capacity(top);
    for l in 1..=top {
        // Levels below this suffix are no longer needed.
        if l > 1 {
            for d in dirs.iter_mut() {
                if d.low < l {
                    d.levels[l - 1 - d.low] = Vec::new();
                }
            }
        }
        let mut checks = 0;
        // The Gram matrix of this level's columns so far: within a suffix the subspace only grows
        // until a restart, so each round computes only its new columns' dots.
        let mut known: Vec<f64> = Vec::new();
        let est = loop {
            let m = dirs.len();
            let cols: Vec<&[f64]> = dirs.iter().map(|d| d.at(l)).collect();
            known = gram(&cols, &known);
            let (values, vectors) = jacobi_eigen(&known, m);
            let qs: Vec<&[f64]> = dirs.iter().map(|d| &d.q[..]).collect();
            // The unit Ritz vector y = Q s and z = E_l^T y = W_l s.
            let ritz = |s: &[f64]| {
                let mut y = combine(&qs, s);
                let mut z = combine(&cols, s);
                let len = norm2(&y);
                y.iter_mut().for_each(|e| *e /= len);
                z.iter_mut().for_each(|e| *e /= len);
                (y, z)
            };
            // (norm, residual) and the residual vector of each Ritz vector, by forward sweeps.
            let check = |which: std::ops::Range<usize>| -> Option<Vec<Checked>> {
                let (ys, zs): (Vec<_>, Vec<_>) = vectors[which].iter().map(|s| ritz(s)).unzip();
                let fs = sweep_forward(chain, &zs, l, stop)?;
                Some(
                    ys.iter()
                        .zip(&zs)
                        .zip(fs)
                        .map(|((y, z), f)| {
                            let norm = norm2(z);
                            let theta = norm * norm;
                            let r: Vec<f64> = f.iter().zip(y).map(|(a, b)| a - theta * b).collect();
                            ((norm, norm2(&r)), r)
                        })
                        .collect(),
                )
            };
            // The second Ritz vector too where the top Ritz values cluster ([`judge`]).
            let rule = limits.cluster_rule;
            let p = if rule && clustered(&values) {
                BLOCK.min(m)
            } else {
                1
            };
            let checked = check(0..p)?;
            checks += 1;
            let second = checked.get(1).map(|c| c.0);
            let shown: &[f64] = if rule { &values } else { &values[..1] };
            let est = judge(checked[0].0, second, shown, m, checks, opts.tol);
            if est.converged || checks >= opts.max_iter {
                break est;
            }
            let residuals: Vec<Vec<f64>> = checked.into_iter().map(|(_, r)| r).collect();
            if m + residuals.len() > max_cols {
                // Thick restart: the top Ritz vectors of this suffix, every level combined alike.
                dirs = vectors[..keep]
                    .iter()
                    .map(|c| Direction::combination(&dirs, c, l, top))
                    .collect();
                known.clear();
            }
            let basis: Vec<&[f64]> = dirs.iter().map(|d| &d.q[..]).collect();
            let room = residuals.len();
            let added = orthonormal_additions(&basis, residuals, room, 1e-10);
            if added.is_empty() {
                // The residuals lie in span(Q) to rounding: no new direction exists.
                break est;
            }
            let swept = sweep_back(chain, &added, l, stop)?;
            for (q, levels) in added.into_iter().zip(swept) {
                dirs.push(Direction { q, low: l, levels });
            }
        };
        let suffix = Suffix {
            estimate: est,
            frobenius_squared: frobenius[l - 1],
        };
        done(l, suffix);
        out.push(suffix);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A one-layer chain: the dense n x n matrix `a` (row-major).
    struct Dense {
        n: usize,
        a: Vec<f64>,
    }

    impl Chain for Dense {
        fn layers(&self) -> usize {
            1
        }
        fn dim(&self) -> usize {
            self.n
        }
        fn forward(&self, _: usize, xs: &[f64]) -> Vec<f64> {
            let n = self.n;
            xs.chunks(n)
                .flat_map(|x| (0..n).map(move |i| dot(&self.a[i * n..(i + 1) * n], x)))
                .collect()
        }
        fn backward(&self, _: usize, gs: &[f64]) -> Vec<f64> {
            let n = self.n;
            gs.chunks(n)
                .flat_map(|g| {
                    (0..n).map(move |j| (0..n).map(|i| self.a[i * n + j] * g[i]).sum::<f64>())
                })
                .collect()
        }
    }

    /// A chain of dense n x n matrices (row-major) J_1, ..., J_L.
    struct Matrices {
        n: usize,
        layers: Vec<Vec<f64>>,
    }

    impl Chain for Matrices {
        fn layers(&self) -> usize {
            self.layers.len()
        }
        fn dim(&self) -> usize {
            self.n
        }
        fn forward(&self, l: usize, xs: &[f64]) -> Vec<f64> {
            Dense {
                n: self.n,
                a: self.layers[l - 1].clone(),
            }
            .forward(1, xs)
        }
        fn backward(&self, l: usize, gs: &[f64]) -> Vec<f64> {
            Dense {
                n: self.n,
                a: self.layers[l - 1].clone(),
            }
            .backward(1, gs)
        }
    }

    /// A random n x n orthogonal matrix (row-major): a product of Householder reflections.
    fn orthogonal(n: usize, rng: &mut Gaussian) -> Vec<f64> {
        let mut q = vec![0.0; n * n];
        for i in 0..n {
            q[i * n + i] = 1.0;
        }
        for _ in 0..n.min(12) {
            let mut v = rng.normals(n, 1.0);
            let vn = norm2(&v);
            v.iter_mut().for_each(|e| *e /= vn);
            for row in q.chunks_mut(n) {
                let c = dot(row, &v);
                axpy(row, -2.0 * c, &v);
            }
        }
        q
    }

    /// U diag(sigma) V^T with random orthogonal U and V: a matrix of known singular values.
    fn with_singular_values(sigma: &[f64], seed: u64) -> Vec<f64> {
        let n = sigma.len();
        let mut rng = Gaussian::new(seed);
        let (u, v) = (orthogonal(n, &mut rng), orthogonal(n, &mut rng));
        let mut a = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                a[i * n + j] = (0..n).map(|k| u[i * n + k] * sigma[k] * v[j * n + k]).sum();
            }
        }
        a
    }

    /// The largest singular value of a dense n x n matrix, by the power method on A^T A run to
    /// convergence (the reference for the small chains here; the spectra have gaps).
    fn largest_singular_value(a: &[f64], n: usize) -> f64 {
        let m = Dense { n, a: a.to_vec() };
        let mut x = Gaussian::new(3).normals(n, 1.0);
        let mut s = 0.0;
        for _ in 0..20_000 {
            let y = m.backward(1, &m.forward(1, &x));
            let len = norm2(&y);
            let next = len.sqrt();
            x = y.iter().map(|e| e / len).collect();
            if (next - s).abs() <= 1e-15 * next {
                break;
            }
            s = next;
        }
        s
    }

    fn run(chain: &impl Chain, seed: u64, cluster_rule: bool) -> Vec<Suffix> {
        run_from(chain, seed, cluster_rule, PROBES, Vec::new())
    }

    fn run_from(
        chain: &impl Chain,
        seed: u64,
        cluster_rule: bool,
        probes: usize,
        start: Vec<Vec<f64>>,
    ) -> Vec<Suffix> {
        let opts = LanczosOptions {
            seed,
            ..LanczosOptions::default()
        };
        let limits = Limits {
            max_columns: MAX_COLUMNS,
            keep_columns: KEEP_COLUMNS,
            probes,
            cluster_rule,
            start,
        };
        norms_with(chain, opts, &limits, &|| false, &|_, _| {}).unwrap()
    }

    #[test]
    fn the_probe_level_meets_its_probability() {
        let (t, p) = probe_level(8, 0.999);
        assert!((0.999..0.999 + 1e-9).contains(&p), "{p}");
        // (t e^(1 - t))^4 = 1e-3 at t = 0.0701...
        assert!((t - 0.0701).abs() < 1e-3, "{t}");
        let (t16, _) = probe_level(16, 0.999);
        assert!(t16 > t, "more probes, a tighter bound");
    }

    /// Every suffix of a chain of four dense matrices near the identity: the norm's interval
    /// holds the top singular value of the product (computed densely), is at most tol wide, and
    /// the probes' upper bound lies above it.
    #[test]
    fn every_suffix_of_a_dense_chain() {
        let n = 40;
        let mut rng = Gaussian::new(11);
        let layers: Vec<Vec<f64>> = (0..4)
            .map(|_| {
                let mut a = rng.normals(n * n, 0.4 / (n as f64).sqrt());
                for i in 0..n {
                    a[i * n + i] += 1.0;
                }
                a
            })
            .collect();
        let chain = Matrices { n, layers };
        let (level, _) = probe_level(PROBES, PROBE_PROBABILITY);
        let got = run(&chain, 5, true);
        for (i, s) in got.iter().enumerate() {
            let l = i + 1;
            // E_l = J_L ... J_l as a dense matrix.
            let mut e: Vec<f64> = (0..n * n).map(|k| f64::from(k % (n + 1) == 0)).collect();
            for m in &chain.layers[l - 1..] {
                let cols: Vec<f64> = e.clone();
                // e <- m e, column by column (e's columns are the images of the unit vectors).
                let mut next = vec![0.0; n * n];
                for c in 0..n {
                    let col: Vec<f64> = (0..n).map(|r| cols[r * n + c]).collect();
                    let img = Dense { n, a: m.clone() }.forward(1, &col);
                    for r in 0..n {
                        next[r * n + c] = img[r];
                    }
                }
                e = next;
            }
            let sigma = largest_singular_value(&e, n);
            let [lo, hi] = s.estimate.interval.unwrap();
            assert!(s.estimate.converged, "l = {l}: {s:?}");
            assert!(
                lo <= sigma * (1.0 + 1e-13) && sigma <= hi * (1.0 + 1e-13),
                "l = {l}: {sigma} not in [{lo}, {hi}]"
            );
            assert!(hi - lo <= 1e-6 * lo, "l = {l}: width {}", hi - lo);
            assert!((s.frobenius_squared / level).sqrt() >= sigma, "l = {l}");
        }
    }

    /// The top singular values 1 and 0.998 (sigma_2 / sigma_1 as in Post-LN's short suffixes)
    /// above a tail. From random starts (30 seeds) the interval holds 1 every time. From a start
    /// that holds the second left singular vector u_2 exactly and u_1 only inside a mixture
    /// x = 0.987 u_1 + 0.158 u_3 (Ritz value 0.99, below 0.996 = sigma_2^2: the subspace's
    /// top Ritz vector is u_2, an exact singular vector with no residual), the single-vector rule
    /// stops on 0.998; the cluster rule checks the second Ritz pair (x, within 1% of the top,
    /// with a large residual), waits for it, and finds 1.
    #[test]
    fn a_cluster_does_not_stop_on_the_second_singular_value() {
        let n = 60;
        let sigma: Vec<f64> = (0..n)
            .map(|k| match k {
                0 => 1.0,
                1 => 0.998,
                _ => 0.99 * f64::exp(-(k as f64) / 8.0),
            })
            .collect();
        let mut rng = Gaussian::new(21);
        let (u, v) = (orthogonal(n, &mut rng), orthogonal(n, &mut rng));
        let mut a = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                a[i * n + j] = (0..n).map(|k| u[i * n + k] * sigma[k] * v[j * n + k]).sum();
            }
        }
        let chain = Dense { n, a };
        let holds = |s: &Suffix| {
            let [lo, hi] = s.estimate.interval.unwrap();
            lo <= 1.0 + 1e-13 && 1.0 <= hi * (1.0 + 1e-13)
        };
        for seed in 0..30 {
            let got = run(&chain, seed, true)[0];
            assert!(holds(&got), "seed {seed}: {got:?}");
        }
        let column = |k: usize| -> Vec<f64> { (0..n).map(|i| u[i * n + k]).collect() };
        let (u1, u2, u3) = (column(0), column(1), column(2));
        let (c, s) = (0.987f64, (1.0 - 0.987f64 * 0.987).sqrt());
        let x: Vec<f64> = u1.iter().zip(&u3).map(|(a, b)| c * a + s * b).collect();
        let start = vec![u2, x];
        let plain = run_from(&chain, 1, false, 1, start.clone())[0];
        assert!(
            !holds(&plain) && (plain.estimate.norm - 0.998).abs() < 1e-9,
            "the single-vector rule: {plain:?}"
        );
        let ruled = run_from(&chain, 1, true, 1, start)[0];
        assert!(holds(&ruled), "the cluster rule: {ruled:?}");
    }

    /// The upper bound's coverage on matrices of known spectra, rank one (the worst case of the
    /// derivation), flat and decaying: over N seeds the failures (sqrt(est / t) < sigma_1) must
    /// not exceed N p plus three binomial standard deviations, p = (t e^(1 - t))^(k/2), at the
    /// production level (p = 0.001) and at two levels where failures are frequent enough to count
    /// (p = 0.05, 0.2); on the rank-one matrix the failure rate at p = 0.2 must also reach p / 4,
    /// so the bound is not vacuously loose and the test can fail.
    #[test]
    fn the_upper_bound_covers_as_stated() {
        let n = 24;
        let rank_one: Vec<f64> = (0..n).map(|k| f64::from(k == 0)).collect();
        let flat = vec![1.0; n];
        let decaying: Vec<f64> = (0..n).map(|k| 0.7f64.powi(k as i32)).collect();
        let trials = 1500;
        for (name, sigma) in [
            ("rank one", &rank_one),
            ("flat", &flat),
            ("decaying", &decaying),
        ] {
            let chain = Dense {
                n,
                a: with_singular_values(sigma, 7),
            };
            let ests: Vec<f64> = (0..trials)
                .map(|seed| probe(&chain, PROBES, seed, &|| false).unwrap().2[0])
                .collect();
            for probability in [0.8, 0.95, PROBE_PROBABILITY] {
                let (t, p) = probe_level(PROBES, probability);
                let fail_rate = 1.0 - p;
                let failures = ests.iter().filter(|&&e| (e / t).sqrt() < 1.0).count() as f64;
                let mean = trials as f64 * fail_rate;
                let margin = 3.0 * (mean * (1.0 - fail_rate)).sqrt();
                assert!(
                    failures <= mean + margin,
                    "{name}, p = {fail_rate}: {failures} failures of {trials} (at most {mean} + {margin})"
                );
                if name == "rank one" && probability == 0.8 {
                    assert!(failures >= mean / 4.0, "{name}: only {failures} failures");
                }
            }
        }
    }
}
