//! Exponential variance in O(1) of lambda: a short direct head, Euler-Maclaurin on the smooth
//! summand over [m, len], and the certified geometric tail beyond len (docs/MATH.md, section 4.7).
//!
//! ```text
//! g(t) = log(1 + A x(t) + B x(t)^2),   x(t) = kappa e^(-mu t) t^(-extra),   mu = lambda/2
//! S(N) = sum_{l < m} g(l)                                           direct, compensated
//!      + int_m^N g + (g(m) + g(N))/2 + E(N) - E(m) + R               Euler-Maclaurin (m < N <= len)
//! S(N) in [S(len), S(len) + T(len)]                                  N > len, T the geometric bound
//! E(t) = sum_{j=1}^{J} B_2j/(2j)! g^(2j-1)(t),   |R| <= 2 zeta(2J)/(2 pi)^2J int_m^len |g^(2J)|
//! ```
//!
//! **Analyticity (Lemma E1).** Let z = s + iy with s >= s0 and |y| <= Y, where mu Y <= pi/8 and
//! extra atan(Y/s0) <= pi/8 (s0 > 0), or, for extra = 0, mu Y <= pi/4 and any s0. Then
//! |arg x(z)| = |mu y + extra arg z| <= pi/4, so Re(A x) >= 0 and Re(B x^2) >= 0 (A, B >= 0):
//! w = 1 + A x + B x^2 has Re w >= 1, g = log w is analytic there, and with
//! v = A X + B X^2, X = kappa e^(-mu s0) s0^(-extra) >= |x(z)| (|z| >= Re z >= s0),
//! |g(z)| <= log(1 + v) + pi/2 (|log w| <= log|w| + |arg w|), and |g(z)| <= -log(1 - v) when
//! v < 1 (the series of log(1 + (w - 1))). [`ExpTerm::complex_bound`] is this G(s0).
//!
//! **Far out (Lemma E2).** If v(s0) < 1, |w - 1| <= v holds on all of Re z >= s0 whatever Im z,
//! so g is analytic there with |g| <= -log(1 - v); for v <= 1/2 that is the smaller of the two
//! bounds above, so G(s0) serves both lemmas.
//!
//! **Cauchy estimates.** The disk of radius r(t) around a real t >= m, with
//! r(t) = pi/(4 mu) (extra = 0) or min(pi/(8 mu), t sin(pi/8)) (extra > 0), lies in such a region
//! with s0 = t - r(t) (|arg z| <= asin(r/t) <= pi/8), so |g^(k)(t)| <= k! G(t - r(t)) / r(t)^k.
//! Both r(t) and t - r(t) are nondecreasing in t, so on a step [t_i, t_(i+1)]
//! |g^(2J)(t)| <= (2J)! G(t_i - r(t_i)) / r(t_i)^(2J): summing steps bounds the remainder's
//! integral from above ([`remainder_bound`]).
//!
//! **Quadrature.** A Gauss-Legendre panel [a, a + 2h] has its rho = 3 Bernstein ellipse (semi-axes
//! 5h/3 and 4h/3) inside Lemma E1's region with s0 = a - 2h/3 and Y = 4h/3; the panel length is
//! the largest satisfying both conditions ([`ExpTerm::panel_half`]), i.e. O(1/lambda) long. Once
//! v(s0) <= 1/2, Lemma E2 drops the condition on Y and the panels double ([`ExpTerm::panel`]), so
//! their number is small whatever lambda is. Trefethen's bound ([`crate::gauss`]) then gives the
//! quadrature error.

use super::direct;
use super::TOL;
use crate::bernoulli::BERNOULLI_2J;
use crate::double_double::{two_prod, two_sum};
use crate::gauss;
use crate::sum::{Accumulator, U};
use crate::Bounds;
use std::f64::consts::PI;

/// The head summed directly: l = 1..HEAD-1. (For extra > 0 the Cauchy radius near l is
/// 0.38 l, so Euler-Maclaurin needs l large enough; 64 leaves 2 pi r ~ 150.)
const HEAD: u64 = 64;
/// Most Euler-Maclaurin terms J (Bernoulli numbers are tabulated to B_60).
const J_MAX: usize = 30;
/// tan(pi/8) rounded down (a smaller value only shrinks the certified region).
const TAN_PI_8: f64 = 0.414_213_56;
/// sin(pi/8) rounded down.
const SIN_PI_8: f64 = 0.382_683_43;
/// Try the Euler-Maclaurin route below this lambda; above it the direct sum is short anyway
/// (at most a few hundred terms) and Cauchy radii pi/(4 lambda) are too small for J <= 30.
pub(super) const LAMBDA_EM_MAX: f64 = 0.125;

/// g(t) for exponential variance, with the parameters' rounding.
#[derive(Debug, Clone, Copy)]
pub(super) struct ExpTerm {
    a: f64,
    b: f64,
    kappa: f64,
    /// Relative error bound of `kappa` as computed from c.
    kappa_rel: f64,
    /// lambda / 2 (exact: halving a double).
    mu: f64,
    extra: f64,
    /// The tails' accuracy (docs/MATH.md §4.7a): mu t formed exactly and the Gauss nodes exactly
    /// as t + t_lo, so that no error grows with mu t. Sums, whose goal is relative to the whole
    /// sum, keep the cheaper double-precision forms.
    exact_nodes: bool,
}

impl ExpTerm {
    /// x(t) = kappa e^(-mu t) t^(-extra).
    fn x(&self, t: f64) -> f64 {
        self.x_at(t, 0.0)
    }

    /// x at the point t + t_lo (t_lo tiny beside t, the rounding of a quadrature node): mu t is
    /// formed exactly by TwoProd, mu t = m + e, and e^(-(m + e + mu t_lo)) = e^(-m) (1 - d) with
    /// d = e + mu t_lo (|d| <= 2u mu t < 2e-13: the dropped d^2/2 is below u^2); (t + t_lo)^-extra =
    /// t^-extra (1 - extra t_lo/t) likewise (t_lo/t <= 2u). So no error grows with mu t (a
    /// rounded product mu t would err by u mu t in the exponent, 1.4e-13 relative at mu t = 625).
    fn x_at(&self, t: f64, t_lo: f64) -> f64 {
        if !self.exact_nodes {
            return self.kappa * (-self.mu * t).exp() * self.power(t);
        }
        let (m, e) = two_prod(self.mu, t);
        let d = e + self.mu * t_lo;
        let mut x = self.kappa * (-m).exp() * (1.0 - d) * self.power(t);
        if t_lo != 0.0 && self.extra != 0.0 {
            x *= 1.0 - self.extra * t_lo / t;
        }
        x
    }

    /// t^(-extra) within 2u relative (one ulp, like powf): 1/t and 1/sqrt(t) (correctly
    /// rounded operations, u and 2u) for the families' extra = 1 and 1/2, which are also faster.
    fn power(&self, t: f64) -> f64 {
        if self.extra == 0.0 {
            1.0
        } else if self.extra == 1.0 {
            1.0 / t
        } else if self.extra == 0.5 {
            1.0 / t.sqrt()
        } else {
            t.powf(-self.extra)
        }
    }

    /// Relative error bound of [`Self::x_at`] (t + t_lo exact): exp and the power one ulp each (2u
    /// each, [`crate::sum::LIBM_REL`]), 1 - d, its product and the three other products u each,
    /// d's own rounding and the dropped d^2/2 and (extra t_lo/t)^2 far below u: 12u covers them,
    /// plus kappa's.
    ///
    /// Without `exact_nodes` x(t) is formed in doubles: the product mu t rounds (u mu t absolute in
    /// the exponent, hence mu t u relative after exp), exp and powf one ulp each, two products u
    /// each: (mu t + 8) u covers them, plus kappa's.
    fn x_rel(&self, t: f64) -> f64 {
        if self.exact_nodes {
            12.0 * U + self.kappa_rel
        } else {
            (self.mu * t + 8.0) * U + self.kappa_rel
        }
    }

    /// g(t) and a bound on its error, t exact.
    fn g(&self, t: f64, _node: bool) -> (f64, f64) {
        self.g_at(t, 0.0, 0.0)
    }

    /// g at t + t_lo, where t + t_lo is within `off` of the point meant (a quadrature node c + h x
    /// formed by TwoProd and TwoSum: t + t_lo is that node up to the rounding of t_lo, u |t_lo|):
    /// |dg/dt| <= 2 g (mu + extra/t) (x dg/dx <= 2g) turns `off` into 2 g (mu + extra/t) off.
    // not inlined: it is called from four places, and each copy costs wasm bytes
    #[inline(never)]
    fn g_at(&self, t: f64, t_lo: f64, off: f64) -> (f64, f64) {
        let x = self.x_at(t, t_lo);
        let g = (x * (self.a + self.b * x)).ln_1p();
        // log1p(y) with y relatively perturbed by d errs by at most d y/(1+y) <= d g
        let mut rel = 2.0 * self.x_rel(t) + 7.0 * U;
        if off != 0.0 {
            rel += 2.0 * (self.mu + self.extra / t) * off * (1.0 + 1e-10);
        }
        (g, rel * g)
    }

    /// Lemma E1's bound G(s0) on |g(z)|. X is computed as an upper bound (1 + 1e-12 covers
    /// exp/powf's ulp and the products' roundings, and kappa's few u).
    #[inline(never)]
    fn complex_bound(&self, s0: f64) -> f64 {
        let v = self.v(s0);
        let crude = v.ln_1p() + PI / 2.0;
        let fine = if v < 0.9 {
            -(-v).ln_1p()
        } else {
            f64::INFINITY
        };
        crude.min(fine) * (1.0 + 1e-12)
    }

    /// v(s0) = A X + B X^2 >= |w(z) - 1| for Re z >= s0 (Lemma E1), computed as an upper bound.
    #[inline(never)]
    fn v(&self, s0: f64) -> f64 {
        let mut x = self.kappa * (-self.mu * s0).exp() * (1.0 + 1e-12 + 4.0 * self.kappa_rel);
        x *= self.power(s0);
        // mu s0 rounds by u mu s0 absolute: at most a relative mu s0 u on exp's result
        x *= 1.0 + 2.0 * U * self.mu * s0.abs();
        (self.a * x + self.b * x * x) * (1.0 + 4.0 * U)
    }

    /// The Cauchy radius r(t) of the module docs.
    fn radius(&self, t: f64) -> f64 {
        // (1 - 1e-12): mu Y <= pi/8 (pi/4) must hold despite the division's rounding
        if self.extra == 0.0 {
            PI / (4.0 * self.mu) * (1.0 - 1e-12)
        } else {
            (PI / (8.0 * self.mu) * (1.0 - 1e-12)).min(t * SIN_PI_8)
        }
    }

    /// Half-length h of the panel starting at a under Lemma E1: 4h/3 = Y with mu Y <= pi/8 and
    /// Y <= tan(pi/8) (a - 2h/3) (extra > 0), or mu Y <= pi/4 (extra = 0).
    fn panel_half(&self, a: f64) -> f64 {
        if self.extra == 0.0 {
            0.75 * PI / (4.0 * self.mu) * (1.0 - 1e-12)
        } else {
            let by_mu = 0.75 * PI / (8.0 * self.mu);
            let by_arg = TAN_PI_8 * a / (4.0 / 3.0 + 2.0 * TAN_PI_8 / 3.0);
            by_mu.min(by_arg) * (1.0 - 1e-12)
        }
    }

    /// The panel starting at a, ending at most at `end`: (end of panel, certified region
    /// (s0, y_max)). Under Lemma E1 the rho = 3 ellipse of [a, a + 2h] has s0 = a - 2h/3 and
    /// y_max = 4h/3. Far out, where v(s0) <= 1/2, Lemma E2 needs no bound on Im z, so the panel
    /// doubles while v(a - 2h/3) <= 1/2 (and s0 > 0 when extra > 0) and the 24-point error
    /// (64/15) 3^-46/8 G(s0) h stays below `target`: g decays like e^(-mu t) there, so the
    /// panels grow and their number is logarithmic in the parameters.
    #[inline(never)]
    fn panel(&self, a: f64, end: f64, target: f64) -> (f64, (f64, f64)) {
        let h = self.panel_half(a);
        let mut far: Option<f64> = None;
        let mut h2 = h;
        loop {
            let s0 = a - 2.0 * h2 / 3.0;
            if (self.extra > 0.0 && s0 <= 1.0) || self.v(s0) > 0.5 {
                break;
            }
            let err = gauss::error_factor(24, gauss::RHO) * self.complex_bound(s0) * h2;
            if err > target {
                break;
            }
            far = Some(h2);
            if a + 2.0 * h2 >= end {
                break;
            }
            h2 *= 2.0;
        }
        match far {
            Some(hf) if hf > h => ((a + 2.0 * hf).min(end), (a - 2.0 * hf / 3.0, f64::INFINITY)),
            _ => ((a + 2.0 * h).min(end), (a - 2.0 * h / 3.0, 4.0 * h / 3.0)),
        }
    }

    /// The n-point rule on [lo, hi]: (value, rounding error bound).
    #[inline(never)]
    fn gauss(&self, n: usize, lo: f64, hi: f64) -> (f64, f64) {
        let (nodes, weights) = gauss::rule(n);
        if !self.exact_nodes {
            // a node t (off by at most 2u t, c and h included) moves g by at most
            // |dg/dt| 2u t <= 4u g (mu t + extra) (x dg/dx <= 2g)
            let h = 0.5 * (hi - lo);
            let c = 0.5 * (lo + hi);
            let mut acc = Accumulator::new();
            for (x, w) in nodes.iter().zip(weights) {
                let t = c + h * x;
                let (g, ge) = self.g_at(t, 0.0, 0.0);
                let ge = ge + 4.0 * U * (self.mu * t + self.extra) * (1.0 + 1e-10) * g;
                acc.add_inlined(w * g, w * ge + 2.0 * U * w * g);
            }
            let value = h * acc.value();
            return (
                value,
                h * acc.error() * (1.0 + 4.0 * U) + 2.0 * U * value.abs(),
            );
        }
        // c = (lo + hi)/2 and h = (hi - lo)/2 each as a double and its exact residual (TwoSum;
        // halving is exact), and every node c + h x as t + t_lo (TwoProd, TwoSum): the rule is
        // evaluated at the nodes of [lo, hi] itself up to the rounding of the small parts (a few
        // u of t_lo), not at nodes off by u t, which would cost a relative 2 u (mu t + extra) of
        // g, 1e-12 of a tail at mu t = 700
        let (sum, sum_lo) = two_sum(lo, hi);
        let (diff, diff_lo) = two_sum(hi, -lo);
        let (c, c_lo) = (0.5 * sum, 0.5 * sum_lo);
        let (h, h_lo) = (0.5 * diff, 0.5 * diff_lo);
        let mut acc = Accumulator::new();
        for (x, w) in nodes.iter().zip(weights) {
            let (p, e1) = two_prod(h, *x);
            let (t, e2) = two_sum(c, p);
            let t_lo = e1 + e2 + c_lo + h_lo * x;
            // t_lo's three sums and one product: 4u of the parts' sizes
            let off = 4.0 * U * (e1.abs() + e2.abs() + c_lo.abs() + h_lo.abs());
            let (g, ge) = self.g_at(t, t_lo, off);
            acc.add_inlined(w * g, w * ge + 2.0 * U * w * g);
        }
        // (h + h_lo) times the weighted sum
        let value = h * acc.value() + h_lo * acc.value();
        (
            value,
            (h + h_lo.abs()) * acc.error() * (1.0 + 4.0 * U) + 3.0 * U * value.abs(),
        )
    }

    /// int_lo^hi g with the fewest nodes whose Bernstein bound is below `target`, for
    /// [lo, hi] inside a panel whose certified region is Re z >= s0, |Im z| <= y_max (Lemma E1,
    /// or E2 with y_max infinite): the sub-interval's ellipse E_rho' (centre c', half-length h')
    /// must stay in it, i.e. h'(rho' + 1/rho')/2 <= c' - s0 and h'(rho' - 1/rho')/2 <= y_max.
    #[inline(never)]
    fn sub_integral(&self, (s0, y_max): (f64, f64), lo: f64, hi: f64, target: f64) -> (f64, f64) {
        let h_sub = 0.5 * (hi - lo);
        if h_sub <= 0.0 {
            return (0.0, 0.0);
        }
        let x = (0.5 * (lo + hi) - s0) / h_sub;
        let y = y_max / h_sub;
        // (1 - 1e-12): a smaller rho only weakens (keeps valid) the bound
        let rho = (x + (x * x - 1.0).sqrt()).min(y + (y * y + 1.0).sqrt()) * (1.0 - 1e-12);
        let g_bound = self.complex_bound(s0);
        let mut chosen = (24, f64::INFINITY);
        for order in gauss::ORDERS {
            let e = gauss::error_factor(order, rho) * g_bound * h_sub;
            if e <= target || order == 24 {
                chosen = (order, e);
                break;
            }
        }
        let (value, rounding) = self.gauss(chosen.0, lo, hi);
        (value, rounding + chosen.1)
    }

    /// E(t) = sum_{j=1}^{J} B_2j/(2j)! g^(2j-1)(t) with an error bound, from the Taylor jet of
    /// zeta -> g(t + r zeta) (coefficients L_k = g^(k)(t) r^k / k!, |L_k| <= G by Cauchy), so
    /// B_2j/(2j)! g^(2j-1)(t) = B_2j/(2j) L_(2j-1) r^-(2j-1).
    /// x(t + r zeta) = x(t) e^(-mu r zeta) (1 + (r/t) zeta)^(-extra), w = 1 + A x + B x^2 and
    /// L = log w by k L_k w_0 = k w_k - sum_{i<k} i L_i w_(k-i). The rounding bound is the
    /// power-law route's ([`crate::euler_maclaurin`]): 4 order^2 u of the running magnitudes
    /// plus order times x(t)'s relative error. The magnitudes may start from |w_k| because w_k
    /// is computed without cancellation: the jet coefficients of e^(-mu r zeta) and of
    /// (1 + (r/t) zeta)^(-extra) both have sign (-1)^k, so every product in the convolutions
    /// for u, u*u and w_k = A x u_k + B x^2 (u*u)_k has the sign (-1)^k, and each w_k is
    /// within (2k + 6) u relative of its exact value.
    #[inline(never)]
    fn endpoint_correction(&self, t: f64, terms: usize) -> (f64, f64) {
        const MAX_ORDER: usize = 2 * J_MAX;
        let order = 2 * terms;
        let r = self.radius(t);
        let mut e = [0.0; MAX_ORDER];
        let mut p = [0.0; MAX_ORDER];
        e[0] = 1.0;
        p[0] = 1.0;
        let mr = -self.mu * r;
        let rt = r / t;
        for j in 1..order {
            e[j] = e[j - 1] * mr / j as f64;
            p[j] = p[j - 1] * (-self.extra - (j as f64) + 1.0) / j as f64 * rt;
        }
        let mut u = [0.0; MAX_ORDER];
        for j in 0..order {
            u[j] = (0..=j).map(|i| e[i] * p[j - i]).sum();
        }
        let x0 = self.x(t);
        let mut w = [0.0; MAX_ORDER];
        for j in 0..order {
            let uu: f64 = (0..=j).map(|i| u[i] * u[j - i]).sum();
            w[j] = self.a * x0 * u[j] + self.b * x0 * x0 * uu;
        }
        let w0 = 1.0 + w[0];
        let mut l = [0.0; MAX_ORDER];
        let mut mag = [0.0; MAX_ORDER];
        for j in 1..order {
            let mut acc = w[j];
            let mut acc_mag = w[j].abs();
            for i in 1..j {
                acc -= (i as f64) * l[i] * w[j - i] / j as f64;
                acc_mag += (i as f64) * mag[i] * w[j - i].abs() / j as f64;
            }
            l[j] = acc / w0;
            mag[j] = acc_mag / w0;
        }
        let inv_r = 1.0 / r;
        let mut scale = inv_r;
        let mut value = 0.0;
        let mut bound = 0.0;
        for j in 1..=terms {
            let k = 2 * j - 1;
            let coef = BERNOULLI_2J[j] / (2 * j) as f64;
            value += coef * l[k] * scale;
            bound += (coef * mag[k] * scale).abs();
            scale *= inv_r * inv_r;
        }
        let err = bound
            * ((4 * MAX_ORDER * MAX_ORDER) as f64 * U + MAX_ORDER as f64 * self.x_rel(t))
            + f64::MIN_POSITIVE;
        (value, err)
    }
}

/// Bound on 2 zeta(2J)/(2 pi)^2J int_m^len |g^(2J)| (module docs): with
/// `weighted` >= int_m^len G(t - r(t)) dt and r(t) >= r_min,
/// 2 zeta(2J) (2J)! weighted / (2 pi r_min)^2J, evaluated in logs. zeta(2J) <= 1 + 3 2^-2J
/// for J >= 1 (zeta(s) <= 1 + 2^-s + int_2^inf t^-s dt = 1 + 2^-s (1 + 2/(s-1))).
fn remainder_bound(weighted: f64, r_min: f64, terms: usize) -> f64 {
    let two_j = 2 * terms;
    let log_fact: f64 = (1..=two_j).map(|i| (i as f64).ln()).sum();
    let zeta = 1.0 + 2f64.powi(-(two_j as i32)) * 3.0;
    // |log| < 1e4 with absolute error < 1e-11 (each ln one ulp, a few dozen additions), so
    // (1 + 1e-10) covers exp's argument error and exp's ulp
    let log_r =
        (2.0 * zeta).ln() + log_fact + weighted.ln() - two_j as f64 * (2.0 * PI * r_min).ln();
    log_r.exp() * (1.0 + 1e-10)
}

/// The direct engine's certified geometric tail bound, called through one copy (wasm bytes).
#[inline(never)]
fn tail_bound(shape: (f64, f64, f64, f64), n: u64) -> f64 {
    direct::exp_tail_bound(shape, n)
}

/// Exponential variance by head + Euler-Maclaurin + geometric tail (module docs).
#[derive(Debug, Clone)]
pub(super) struct ExpPlan {
    term: ExpTerm,
    /// prefix[n] = sum_{l=1}^{n} g(l) for n < HEAD: (value, error).
    prefix: Vec<(f64, f64)>,
    /// The last depth summed (Euler-Maclaurin reaches it); beyond it, the tail bound.
    pub(super) len: u64,
    /// Upper bound on sum_{l > len} g(l).
    pub(super) tail: f64,
    /// (A kappa, B kappa^2, lambda, extra) grown to cover the typed inputs, for tail bounds.
    shape: (f64, f64, f64, f64),
    /// Panel boundaries b_0 = HEAD < b_1 < ... < b_last = len, and their half-lengths.
    bounds: Vec<f64>,
    /// Each panel's certified region (s0, y_max), see [`ExpTerm::panel`].
    regions: Vec<(f64, f64)>,
    /// cum[i] = int_HEAD^{b_i} g: (value, error).
    cum: Vec<(f64, f64)>,
    pub(super) terms: usize,
    /// g(HEAD)/2 - E(HEAD) plus the head sum to HEAD - 1: (value, error), and |R|.
    base: (f64, f64),
    remainder: f64,
    /// S(len): (value, error).
    total: (f64, f64),
    /// The tails' own panels, made on the first tail asked for ([`TailPanels`]).
    tails: std::sync::OnceLock<TailPanels>,
}

/// What the tails sum_{l>n} g(l) are made of (docs/MATH.md §4.7a): Euler-Maclaurin over
/// [n + 1, end] with every piece summed from the far end and relative to itself, never the limit
/// minus a partial sum (which left a tail of 8.6 next to sums of 860 about 2e-12 wide relative).
/// `end` is where the geometric bound on what follows is below 2^-1015, far below the 2^-960 from
/// which tails are measured relatively ([`super::TAIL_WIDTH_FLOOR`]).
#[derive(Debug, Clone)]
struct TailPanels {
    end: f64,
    /// The geometric bound on sum_{l>end} g(l).
    beyond: f64,
    /// Panel boundaries HEAD = b_0 < ... < b_last = end, each panel's certified region, and
    /// from[i] = int_{b_i}^{end} g summed from the far end: (value, error).
    bounds: Vec<f64>,
    regions: Vec<(f64, f64)>,
    from: Vec<(f64, f64)>,
    /// The remainder's steps t_0 = HEAD < t_1 < ... (the last at end) and, for each, the bound on
    /// int_{t_i}^{end} |g^(2J)| (2 zeta(2J)/(2 pi)^2J included) summed from the far end, and the
    /// step's own density bound (2J)! G(t_i - r(t_i)) / r(t_i)^(2J) with the same factor.
    steps: Vec<f64>,
    step_from: Vec<f64>,
    step_density: Vec<f64>,
    /// g(end)/2 + E(end): (value, error).
    at_end: (f64, f64),
    /// back[n] = sum_{l=n+1}^{HEAD-1} g(l) for n < HEAD, summed from the far end.
    back: Vec<(f64, f64)>,
}

impl ExpPlan {
    /// Builds the plan, or `None` where the route does not apply (lambda above
    /// [`LAMBDA_EM_MAX`], or no J <= 30 reaches the tolerance): the caller then sums directly.
    /// `typed` as for [`super::direct::DirectPlan::exponential`]: the tail bounds then hold for
    /// every parameter in the typed inputs' box.
    pub(super) fn new(
        a: f64,
        b: f64,
        c: f64,
        lambda: f64,
        extra: f64,
        typed: (f64, f64),
    ) -> Option<ExpPlan> {
        if lambda > LAMBDA_EM_MAX {
            return None;
        }
        let kappa = 1.0 / c.sqrt();
        // the direct engine's shape: larger A kappa, B kappa^2 and a smaller lambda (8u covers
        // kappa's and the products' roundings)
        let (up_ab, rel_lambda) = typed;
        let grow = 1.0 + up_ab + 8.0 * U;
        let shape = (
            a * kappa * grow,
            b * kappa * kappa * grow * grow,
            lambda * (1.0 - rel_lambda),
            extra,
        );
        let term = ExpTerm {
            a,
            b,
            kappa,
            kappa_rel: if c == 1.0 { 0.0 } else { 2.0 * U },
            mu: 0.5 * lambda,
            extra,
            exact_nodes: false,
        };
        // head
        let mut prefix = vec![(0.0, 0.0)];
        let mut acc = Accumulator::new();
        for l in 1..HEAD {
            let (g, ge) = term.g(l as f64, false);
            acc.add_inlined(g, ge);
            prefix.push((acc.value(), acc.error()));
        }
        let scale = acc.value().max(1.0);
        // len: where the geometric tail bound is at most TOL max(1, head). With
        // K = A kappa/(1 - e^-mu) + B kappa^2/(1 - e^-2mu) the bound is at most
        // K e^(-mu (n+1)) (n+1)^-extra, so n0 = ln(K/target)/mu nearly always passes and
        // n1 = ln(K/(target n0^extra))/mu (smaller for extra > 0) often does; each candidate is
        // checked with the certified bound itself, and the doubling search is the fallback.
        let target = TOL * scale;
        let (ak, bk2, lam, _) = shape;
        let k = ak / -(-0.5 * lam).exp_m1() + bk2 / -(-lam).exp_m1();
        let n0 = ((k / target).ln() / (0.5 * lam)).max(HEAD as f64);
        let n1 = ((k / (target * n0.powf(extra))).ln() / (0.5 * lam)).max(HEAD as f64);
        let round = |n: f64| ((n / 64.0).ceil() as u64 * 64).max(HEAD);
        let mut len = round(n1);
        if n0 > 1e15 || tail_bound(shape, len) > target {
            len = round(n0.min(1e15));
            let mut step = 64;
            while tail_bound(shape, len) > target {
                len += step;
                step *= 2;
            }
        }
        let tail = tail_bound(shape, len);
        let end = len as f64;
        // panels and the remainder's steps
        let mut bounds = vec![HEAD as f64];
        let mut regions = Vec::new();
        let mut cum = vec![(0.0, 0.0)];
        let mut integral = Accumulator::new();
        let mut integral_err = 0.0;
        let mut a0 = HEAD as f64;
        let panel_target = 2f64.powi(-66) * scale;
        while a0 < end {
            let (b0, region) = term.panel(a0, end, panel_target);
            let (v, e) = term.sub_integral(region, a0, b0, panel_target);
            integral.add(v, 0.0);
            integral_err += e;
            bounds.push(b0);
            regions.push(region);
            cum.push((integral.value(), integral_err + integral.error()));
            a0 = b0;
        }
        // int_m^len G(t - r(t)) dt by an upper sum over steps [t_i, t_i + w_i]; r(t) >= r(m)
        let mut weighted = 0.0;
        let mut t = HEAD as f64;
        while t < end {
            let r = term.radius(t);
            let next = (t + r.max(2.0 / term.mu)).min(end);
            weighted += (next - t) * term.complex_bound(t - r);
            t = next;
        }
        let weighted = weighted * (1.0 + 1e-10);
        let r_min = term.radius(HEAD as f64);
        let target = TOL * scale.max(integral.value().abs());
        let terms = (1..=J_MAX).find(|&j| remainder_bound(weighted, r_min, j) <= target)?;
        let remainder = remainder_bound(weighted, r_min, terms);
        let (g_head, g_head_err) = term.g(HEAD as f64, false);
        let (e_head, e_head_err) = term.endpoint_correction(HEAD as f64, terms);
        let mut base = Accumulator::new();
        let (p, pe) = prefix[HEAD as usize - 1];
        base.add(p, pe);
        base.add(0.5 * g_head, 0.5 * g_head_err);
        base.add(-e_head, e_head_err);
        let mut plan = ExpPlan {
            term,
            prefix,
            len,
            tail,
            shape,
            bounds,
            regions,
            cum,
            terms,
            base: (base.value(), base.error()),
            remainder,
            total: (0.0, 0.0),
            tails: std::sync::OnceLock::new(),
        };
        plan.total = plan.em_sum(end);
        Some(plan)
    }

    /// sum_{l=1}^{n} g(l) for HEAD <= n <= len (n integer-valued): the head, Euler-Maclaurin.
    #[inline(never)]
    fn em_sum(&self, t: f64) -> (f64, f64) {
        let i = match self.bounds.binary_search_by(|b| b.total_cmp(&t)) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let mut acc = Accumulator::new();
        acc.add(self.base.0, self.base.1);
        let (ci, ce) = self.cum[i];
        let target = 2f64.powi(-62) * ci.abs().max(1.0);
        if t > self.bounds[i] {
            let (a, b, region) = (self.bounds[i], self.bounds[i + 1], self.regions[i]);
            if t - a <= b - t {
                acc.add(ci, ce);
                let (v, e) = self.term.sub_integral(region, a, t, target);
                acc.add(v, e);
            } else {
                let (cn, cne) = self.cum[i + 1];
                acc.add(cn, cne);
                let (v, e) = self.term.sub_integral(region, t, b, target);
                acc.add(-v, e);
            }
        } else {
            acc.add(ci, ce);
        }
        let (gt, gte) = self.term.g(t, false);
        acc.add(0.5 * gt, 0.5 * gte);
        let (et, ete) = self.term.endpoint_correction(t, self.terms);
        acc.add(et, ete);
        (acc.value(), acc.error() + self.remainder)
    }

    /// sum_{l=1}^{n} g(l): (value, error), for any n (beyond len: S(len) + half the tail bound).
    pub(super) fn sum(&self, n: u64) -> (f64, f64) {
        if n < HEAD {
            self.prefix[n as usize]
        } else if n <= self.len {
            self.em_sum(n as f64)
        } else {
            let (v, e) = self.total;
            (v + 0.5 * self.tail, e + 0.5 * self.tail)
        }
    }

    /// Bounds on sum_{l > n} g(l), each a sum of parts no larger than itself (docs/MATH.md
    /// §4.7a): for n < end, sum_{l=n+1}^{end} g(l) by Euler-Maclaurin from n + 1 (or the direct
    /// terms below HEAD and Euler-Maclaurin from HEAD), plus [0, the geometric bound beyond end].
    pub(super) fn tail(&self, n: u64) -> Bounds {
        let t = self.tails.get_or_init(|| self.tail_panels());
        if n as f64 >= t.end {
            return Bounds {
                lo: 0.0,
                hi: tail_bound(self.shape, n),
            };
        }
        let (v, e) = if n + 1 >= HEAD {
            self.em_from(t, (n + 1) as f64)
        } else {
            let (d, de) = t.back[n as usize];
            let (v, e) = self.em_from(t, HEAD as f64);
            (d + v, de + e + U * (d + v))
        };
        Bounds {
            lo: super::down(v - e).max(0.0),
            hi: super::up(v + e + t.beyond).min(tail_bound(self.shape, n)),
        }
    }

    /// The summand as tails evaluate it: mu t and the Gauss nodes formed exactly
    /// ([`ExpTerm::exact_nodes`]).
    fn tail_term(&self) -> ExpTerm {
        ExpTerm {
            exact_nodes: true,
            ..self.term
        }
    }

    /// The last depth a tail sums term by term (beyond it, the geometric bound): the typed
    /// inputs' widening of a tail must reach it (`Plan::tail_input_rel`).
    pub(super) fn tail_end(&self) -> u64 {
        self.tails.get_or_init(|| self.tail_panels()).end as u64
    }

    /// sum_{l=s}^{end} g(l) for an integer-valued HEAD <= s <= end, as int_s^end g plus
    /// (g(s) + g(end))/2 plus E(end) - E(s), with the remainder over [s, end] (value, error).
    /// Every part but -E(s) is positive, and E(s) is O(mu g(s)), far below the sum.
    fn em_from(&self, t: &TailPanels, s: f64) -> (f64, f64) {
        let term = self.tail_term();
        let i = match t.bounds.binary_search_by(|b| b.total_cmp(&s)) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let mut acc = Accumulator::new();
        let (rest, rest_err) = t.from[(i + 1).min(t.from.len() - 1)];
        if i + 1 < t.bounds.len() {
            acc.add(rest, rest_err);
            let b = t.bounds[i + 1];
            let target = 2f64.powi(-64) * (b - s) * term.g(b, false).0;
            let (v, e) = term.sub_integral(t.regions[i], s, b, target);
            acc.add(v, e);
        }
        let (gs, gse) = term.g(s, false);
        acc.add(0.5 * gs, 0.5 * gse);
        let (es, ese) = term.endpoint_correction(s, self.terms);
        acc.add(-es, ese);
        acc.add(t.at_end.0, t.at_end.1);
        // the remainder over [s, end]: the step holding s from s on, then the later steps whole
        let j = match t.steps.binary_search_by(|x| x.total_cmp(&s)) {
            Ok(j) => j,
            Err(j) => j - 1,
        };
        let remainder = if j + 1 < t.steps.len() {
            ((t.steps[j + 1] - s) * t.step_density[j] + t.step_from[j + 1]) * (1.0 + 1e-10)
        } else {
            0.0
        };
        // 2^-1040 covers what underflow loses far out, where x and g are subnormal (a relative
        // bound says nothing there): at most 2^-1074 per operation, over fewer than 2^16 node
        // evaluations of a dozen operations, and the remainder densities that underflow to 0 (each
        // below 2^-1074, times steps of total length below 2^24): under 2^-1048 in all. It is
        // 2^-80 of the 2^-960 from which tails are measured absolutely.
        (acc.value(), acc.error() + remainder + 2f64.powi(-1040))
    }

    /// The tails' panels (see [`TailPanels`]): panels from HEAD to `end`, each integral with an
    /// error target relative to the panel's own size (2^-64 of g(a) times the first panel's
    /// length, a lower estimate of it); the remainder's steps as in [`ExpPlan::new`], summed from
    /// the far end.
    fn tail_panels(&self) -> TailPanels {
        let term = &self.tail_term();
        // end: the geometric bound beyond it below 2^-1015
        let far = 2f64.powi(-1015);
        let mut end = self.len.max(HEAD);
        let mut step = 64;
        while tail_bound(self.shape, end) > far {
            end += step;
            step *= 2;
        }
        let beyond = tail_bound(self.shape, end);
        let end_f = end as f64;
        let mut bounds = vec![HEAD as f64];
        let mut regions = Vec::new();
        let mut parts = Vec::new();
        let mut a0 = HEAD as f64;
        while a0 < end_f {
            let g0 = term.g(a0, false).0;
            let first = (2.0 * term.panel_half(a0)).min(0.5 / term.mu);
            let target = 2f64.powi(-64) * g0 * first;
            let (b0, region) = term.panel(a0, end_f, target);
            parts.push(term.sub_integral(region, a0, b0, target));
            bounds.push(b0);
            regions.push(region);
            a0 = b0;
        }
        let mut from = vec![(0.0, 0.0); bounds.len()];
        let mut acc = Accumulator::new();
        let mut err = 0.0;
        for i in (0..parts.len()).rev() {
            let (v, e) = parts[i];
            acc.add(v, 0.0);
            err += e;
            from[i] = (acc.value(), err + acc.error());
        }
        // the remainder's steps (as in ExpPlan::new), each with its density bound
        let two_j = 2 * self.terms;
        let log_fact: f64 = (1..=two_j).map(|i| (i as f64).ln()).sum();
        let zeta = 1.0 + 2f64.powi(-(two_j as i32)) * 3.0;
        let density = |t: f64| {
            let r = term.radius(t);
            let g = term.complex_bound(t - r);
            if g == 0.0 {
                return 0.0;
            }
            // as in remainder_bound: |log| < 1e4 with error < 1e-11, so 1 + 1e-10 covers exp
            let log_d = (2.0 * zeta).ln() + log_fact + g.ln() - two_j as f64 * (2.0 * PI * r).ln();
            log_d.exp() * (1.0 + 1e-10)
        };
        let mut steps = Vec::new();
        let mut step_density = Vec::new();
        let mut t0 = HEAD as f64;
        while t0 < end_f {
            steps.push(t0);
            step_density.push(density(t0));
            let r = term.radius(t0);
            t0 = (t0 + r.max(2.0 / term.mu)).min(end_f);
        }
        steps.push(end_f);
        step_density.push(0.0);
        let mut step_from = vec![0.0; steps.len()];
        for j in (0..steps.len() - 1).rev() {
            step_from[j] = step_from[j + 1] + (steps[j + 1] - steps[j]) * step_density[j];
        }
        let (g_end, g_end_err) = term.g(end_f, false);
        let (e_end, e_end_err) = term.endpoint_correction(end_f, self.terms);
        let at_end = (0.5 * g_end + e_end, 0.5 * g_end_err + e_end_err + U * g_end);
        let mut back = vec![(0.0, 0.0); HEAD as usize];
        let mut acc = Accumulator::new();
        for n in (0..HEAD as usize - 1).rev() {
            let (g, ge) = term.g((n + 1) as f64, false);
            acc.add_inlined(g, ge);
            back[n] = (acc.value(), acc.error());
        }
        TailPanels {
            end: end_f,
            beyond,
            bounds,
            regions,
            from,
            steps,
            step_from,
            step_density,
            at_end,
            back,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn direct(term: &ExpTerm, to: u64) -> f64 {
        let mut acc = Accumulator::new();
        for l in 1..=to {
            acc.add(term.g(l as f64, false).0, 0.0);
        }
        acc.value()
    }

    #[test]
    fn em_matches_direct_sums() {
        for &(a, b, c, lambda, extra) in &[
            (1.0, 1.0, 1.0, 1e-3, 0.0),
            (100.0, 100.0, 1e-3, 1e-3, 1.0),
            (2.0, 0.5, 10.0, 1e-2, 0.5),
            (0.0, 4.0, 1.0, 0.1, 0.0),
            (3.0, 0.0, 0.3, 0.05, 1.0),
        ] {
            let plan = ExpPlan::new(a, b, c, lambda, extra, (0.0, 0.0)).expect("route applies");
            for n in [1, 63, 64, 65, 100, 1000, 12_345, plan.len, plan.len + 5] {
                let (v, e) = plan.sum(n);
                let d = direct(&plan.term, n);
                assert!(
                    (v - d).abs() <= e + 1e-14 * d.abs(),
                    "{a} {b} {c} {lambda} {extra} N={n}: {v} vs {d} (err {e})"
                );
                assert!(e <= 1e-13 * d.abs().max(1.0), "N={n}: err {e} for {v}");
            }
        }
    }
}
