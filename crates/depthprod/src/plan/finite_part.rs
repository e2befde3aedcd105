//! The constant C (or C + c/d, docs/MATH.md §6.6) of a divergent power law where 1/p is close to an
//! integer n and the series split point M is beyond every double depth (docs/MATH.md §4.8).
//!
//! There the route of §4.5 would add partial sums of size >= 10^16 that cancel. Instead, with
//! u = x^-p, s = 1/p and f(u) = log(1 + alpha u + beta u^2) = log(1 + w1 u) + log(1 + w2 u)
//! (alpha = A kappa, beta = B kappa^2, w1, w2 the roots of w^2 - alpha w + beta, here real and >= 0):
//!
//! ```text
//! C = sum_{l<L0} g(l) + [g(L0)/2 - E(L0) + R] - int_0^L0 g(x) dx + Psi,
//! Psi = s FP int_0^inf u^(-s-1) f(u) du = sum_i w_i^s pi / sin(pi s)          (Lemma F1)
//! ```
//!
//! and, for s = n + eps with |1 - np| < 1e-3 (log-like term, or exact resonance eps = 0), the merged constant
//! C' = C + c_n/d_n (d_n = 1 - n p = eps/s) replaces Psi by sum_i psi(w_i),
//! psi(t) = (-1)^n t^n [sigma (t^eps - 1)/eps + (sigma - 1)/eps - 1/n], sigma = pi eps / sin(pi eps)
//! (Lemma F2). Every piece is computed with relative rounding: no cancelling partial sums.
//!
//! With A = 0, f(u) = log(1 + beta u^2) is the same problem in u^2 (p' = 2p, one root w = beta).

use super::power::grow;
use crate::coefficients::{root_radius, LogSeries};
use crate::double_double::{exp_m1_over, ln, sin_cos, Complex, Dd, HALF_PI};
use crate::euler_maclaurin::{PowerTerm, WholePanels};
use crate::sum::{Accumulator, LIBM_REL, U};
use std::f64::consts::PI;

/// What the route needs from the plan.
pub(super) struct Inputs<'a> {
    pub term: &'a PowerTerm,
    /// sum_{l<L0} g(l) with its error, and L0 (>= 8, an Euler-Maclaurin start of `em_start`).
    pub head: (f64, f64),
    pub l0: f64,
    /// g(L0), E(L0) and the Euler-Maclaurin remainder bound over [L0, infinity), each with its
    /// error (the middle region's own, [`crate::euler_maclaurin::EmRegion::start_pieces`]).
    pub start: ((f64, f64), (f64, f64), f64),
    /// n with 1 - n p = d (correctly rounded from the exact p), |d| < 1e-3 or d = 0.
    pub n: usize,
    pub d: f64,
    /// Relative distance of typed A, B from their doubles.
    pub delta: f64,
    /// C' = C + c_n/d_n (a log-like term, or d_n = 0) when true, else C (Lemma F1 at general s).
    pub merged: bool,
    /// A, B and kappa in double-double from the exact inputs, when known.
    pub typed: Option<InputsDd>,
    /// The middle region's whole panels of the same term, when there is one (their nodes are
    /// shared with the integral over [0, L0]).
    pub panels: Option<&'a WholePanels>,
}

/// The typed A, B (their doubles plus the correctly rounded residuals, each within u of itself),
/// kappa = c^(-1/2) from the exact c, and the exact p, in double-double.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct InputsDd {
    pub a: Dd,
    pub b: Dd,
    pub kappa: Dd,
    pub p: Dd,
}

impl InputsDd {
    pub(super) fn new(
        inputs: &crate::params::ExactInputs,
        a: f64,
        b: f64,
        kappa: Dd,
        p: Dd,
    ) -> InputsDd {
        let dd = |hi: f64, lo: f64| Dd {
            hi,
            lo,
            err: U * lo.abs(),
        };
        InputsDd {
            a: dd(a, inputs.lo_a),
            b: dd(b, inputs.lo_b),
            kappa,
            p,
        }
    }
}

/// Why the route declines (the caller keeps its "not resolvable" reason then).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Declined {
    /// The roots' powers overflow (or another guard of Lemma F4 fails).
    OutOfRange,
}

/// C' = C + c_n/d_n (or C at exact resonance) with an error bound, and the size of the closed
/// form's part, sum_i |w_i|^s (rounded up): C is what remains of parts of that size, so near a sign
/// change of C (complex roots) its width relative to |C| grows like that size over |C|; the
/// rounding of kappa = c^(-1/2) and of the roots (Lemma F3) alone is a few u s times it.
pub(super) fn merged_constant(inp: &Inputs) -> Result<(f64, f64, f64), Declined> {
    let t = inp.term;
    // The reduced problem: with A = 0, f = log(1 + beta u^2) is one root beta in v = u^2, with
    // p' = 2p and n' = n/2.
    let (p_r, n_r) = if t.a == 0.0 {
        if inp.n % 2 != 0 {
            return Err(Declined::OutOfRange);
        }
        (2.0 * t.p, inp.n / 2)
    } else {
        (t.p, inp.n)
    };
    if n_r == 0 {
        return Err(Declined::OutOfRange);
    }
    // eps = s - n = d / p (s = 1/p exact): d correctly rounded (u), p within p_err of the exact
    // one, the division u.
    let eps = inp.d / p_r;
    let eps_rel = 2.0 * U + t.p_err / t.p * (1.0 + 1e-6) + U;
    let eps_abs = eps.abs() * eps_rel * (1.0 + 1e-6);
    if eps.abs() > 0.5 {
        return Err(Declined::OutOfRange);
    }
    let (_, sigma_m1_eps) = sigma_parts(eps, eps_abs);
    let n = n_r;
    let sign = if n % 2 == 0 { 1.0 } else { -1.0 };
    // psi = (-1)^n t^n [sigma E(t) + kappa0]: kappa0 = (sigma - 1)/eps - 1/n for C' (Lemma F2), or
    // sigma/eps = pi/sin(pi eps) for C itself (Lemma F1: t^s pi/sin(pi s) = (-1)^n t^n sigma t^eps/eps
    // and t^eps = 1 + eps E); sigma/eps = 1/eps + (sigma - 1)/eps, 1/eps with eps's error and u
    let kappa0 = if inp.merged {
        (
            sigma_m1_eps.0 - 1.0 / n as f64,
            sigma_m1_eps.1 + 2.0 * U / n as f64,
        )
    } else {
        let inv = 1.0 / eps;
        let v = inv + sigma_m1_eps.0;
        (
            v,
            (inv.abs() * (eps_abs / eps.abs() + U) + sigma_m1_eps.1 + U * v.abs()) * (1.0 + 1e-6),
        )
    };

    // Psi = sum psi(w_i) from the typed inputs in double-double (Lemma F4), with every rounding
    // and the inputs' own errors bounded
    let (psi_v, psi_e, abs_ws) =
        from_inputs(inp, n, (eps, eps_abs), kappa0).ok_or(Declined::OutOfRange)?;
    let psi_v = sign * psi_v;

    // The Euler-Maclaurin pieces and the integral of g over (0, L0]. The integral needs no more
    // accuracy than a small fraction of the error Psi already carries (at most 2^-5 of it, so the
    // width grows by under 3.2%), nor than 2^-60 of its own size (the head's rounding is already
    // about u of its size), and never more than 2^-66 absolute: in the corner (roots ~1e3, s = 40)
    // Psi's rounding dwarfs the whole integral, which is then enclosed by its bound alone.
    let (int_v, int_e) = integral_to(
        t,
        inp.l0,
        (psi_e * 2f64.powi(-5)).max(2f64.powi(-66)),
        inp.panels,
    );
    let ((g0, g0e), (e0, e0e), rem) = inp.start;
    let mut acc = Accumulator::new();
    acc.add(inp.head.0, inp.head.1);
    acc.add(0.5 * g0, 0.5 * g0e);
    acc.add(-e0, e0e);
    acc.add(-int_v, int_e);
    acc.add(psi_v, psi_e);
    // typed A, B (Lemma F3 (iii)): head and integral have positive integrands that move by at most
    // (1+delta)^2 - 1 times themselves (each at most its value plus its error: the integral may be
    // enclosed by its bound alone, I/2 +- I/2); the Euler-Maclaurin difference by 4 delta'' g(L0)
    let moved = if inp.delta > 0.0 {
        let g2 = grow(2, inp.delta);
        (g2 * (inp.head.0.abs() + inp.head.1 + int_v.abs() + int_e)
            + 4.0 * g2 * (1.0 + g2) * (g0 + g0e))
            * (1.0 + 4.0 * U)
    } else {
        0.0
    };
    let value = acc.value();
    if !value.is_finite() {
        return Err(Declined::OutOfRange);
    }
    Ok((value, acc.error() + rem + moved, abs_ws))
}

/// sigma = pi eps / sin(pi eps) and (sigma - 1)/eps by the series
/// x / sin x = sum_k a_k x^2k, a_k = (2^2k - 2) |B_2k| / (2k)! (positive), x = pi eps, |eps| <= 1/2;
/// a_k = 2 (1 - 2^(1-2k)) zeta(2k) / pi^2k <= 3.3 / pi^2k bounds the tail after K = 30 terms (the
/// tabulated B_2k) by 3.3/pi |x/pi|^(2K+1) / (1 - (x/pi)^2) <= 2.6e-19 for (sigma - 1)/eps. Errors: each a_k from the stored B_2k (u) and 2k roundings of
/// the factorial and one division ((2k+2) u relative); x = pi eps carries eps's error, the double pi's
/// 0.4u and the product's u; the Horner sum u per step on its running magnitude.
fn sigma_parts(eps: f64, eps_abs: f64) -> (f64, (f64, f64)) {
    use crate::bernoulli::BERNOULLI_2J;
    if eps == 0.0 {
        return (1.0, (0.0, 0.0));
    }
    const K: usize = 30;
    let x = PI * eps;
    let x2 = x * x;
    // (sigma - 1)/eps = pi sum_{k>=1} a_k x^(2k-1)
    let mut fact = 1.0;
    let mut sum = 0.0;
    let mut abs_sum = 0.0;
    let mut coef_err = 0.0;
    let mut weighted = 0.0; // sum (2k - 1) |term|
    let mut xp = x; // x^(2k-1)
    for k in 1..=K {
        fact *= (2 * k - 1) as f64 * (2 * k) as f64;
        let a_k = ((4f64).powi(k as i32) - 2.0) * BERNOULLI_2J[k].abs() / fact;
        let term = a_k * xp;
        sum += term;
        abs_sum += term.abs();
        // a_k: (4k + 3) u; x^(2k-1) by 2k - 1 products: (2k - 1) u; the product: u
        coef_err += term.abs() * (6 * k + 3) as f64 * U;
        weighted += term.abs() * (2 * k - 1) as f64;
        xp *= x2;
    }
    let r = (x / PI).powi(2) * (1.0 + 4.0 * U);
    let tail = 3.3 / PI * (x / PI).abs().powi(2 * K as i32 + 1) / (1.0 - r) * (1.0 + 1e-10);
    let v = PI * sum;
    // x's relative error (eps's, the double pi's 0.4u, the product's u) moves each x^(2k-1) by
    // (2k - 1) times it (first order; 1.01 for the rest, x_rel < 1e-14); the naive sum of K terms:
    // K u of the absolute sum
    let x_rel = eps_abs / eps.abs() + 2.0 * U;
    let err = (PI * (coef_err + K as f64 * U * abs_sum + tail + 1.01 * x_rel * weighted)
        + U * v.abs())
        * (1.0 + 1e-6);
    let sigma = 1.0 + eps * v;
    (sigma, (v, err))
}

/// sum_i psi(w_i)/(-1)^n from the typed inputs in double-double (docs/MATH.md §4.8, Lemma F4),
/// with its error bound and sum_i |w_i|^s rounded up. The roots of w^2 - A kappa w + B kappa^2
/// are w = (kappa/2)(A +- sqrt(A^2 - 4B)), decided by the sign of A^2 - 4B in double-double:
/// one root (A = 0: B kappa^2 in u^2, with s/2; B = 0: A kappa), two real roots, a complex pair
/// ([`polar_pair`]), or, where the enclosure of A^2 - 4B contains 0, the double root
/// w0 = kappa A/2 counted twice: the roots are w0 +- h with |h| <= h_max = (kappa/2)
/// sqrt(|A^2 - 4B|) (h real or imaginary), and F(w0 + h) + F(w0 - h) - 2 F(w0) =
/// h^2 int_0^1 (1 - t)(F''(w0 + t h) + F''(w0 - t h)) dt is at most h_max^2 sup |F''| over the disk
/// |z - w0| <= h_max; by Cauchy's estimate on the circle |z - w0| = rho = w0/2 (inside Re z > 0,
/// where F is analytic), sup |F''| <= 2 M / (rho - h_max)^2 with M = max |F| on the circle:
/// |z| <= 1.5 w0 there, |F| = |K| |z|^s for C, and |F| = |z|^n |sigma E(z) + kappa0| with
/// |E(z)| <= |log z| e^(|eps log z|), |log z| <= max|log|z|| + pi/6, for C'. `None` without the
/// inputs in double-double or when a guard fails (the route then declines).
fn from_inputs(
    inp: &Inputs,
    n: usize,
    eps: (f64, f64),
    kappa0: (f64, f64),
) -> Option<(f64, f64, f64)> {
    let typed = inp.typed?;
    let InputsDd {
        a: a_dd,
        b: b_dd,
        kappa,
        ..
    } = typed;
    let (a, b) = (inp.term.a, inp.term.b);
    let half = |d: Dd| Dd {
        hi: 0.5 * d.hi,
        lo: 0.5 * d.lo,
        err: 0.5 * d.err,
    };
    let s = exact_s(inp)?;
    if a == 0.0 {
        return real_roots(inp, n, eps, kappa0, &[b_dd.mul(kappa).mul(kappa)], half(s));
    }
    if b == 0.0 {
        return real_roots(inp, n, eps, kappa0, &[a_dd.mul(kappa)], s);
    }
    let disc = a_dd.mul(a_dd).sub(b_dd.mul(Dd::exact(4.0)));
    if disc.abs_lower() > 0.0 {
        if disc.hi < 0.0 {
            let y = disc.neg().sqrt()?;
            return polar_pair(inp, n, eps, kappa0, typed, y);
        }
        let y = disc.sqrt()?;
        let sum = a_dd.add(y);
        let w2 = b_dd.mul(Dd::exact(2.0)).div(sum)?.mul(kappa);
        return real_roots(inp, n, eps, kappa0, &[half(sum.mul(kappa)), w2], s);
    }
    // the double root, and the bound on the pair's departure from it
    let w0 = half(a_dd.mul(kappa));
    // (one root's terms doubled: exact in binary)
    let (v, e, scale) = real_roots(inp, n, eps, kappa0, &[w0], s)?;
    let (v, e, scale) = (2.0 * v, 2.0 * e, 2.0 * scale);
    let w0_lo = w0.abs_lower();
    let w0_hi = w0.abs() + w0.err;
    let h_max = 0.5 * (kappa.abs() + kappa.err) * (disc.abs() + disc.err).sqrt() * (1.0 + 4.0 * U);
    let rho = 0.5 * w0_lo;
    if h_max.is_nan() || h_max >= 0.5 * rho {
        return None;
    }
    let z = 1.5 * w0_hi * (1.0 + 2.0 * U);
    let nf = n as f64;
    let k0 = kappa0.0.abs() + kappa0.1;
    let m = if inp.merged {
        // |eps| <= 0.05 and sigma <= 1.01 on this route ([`MergedParts::new`])
        let log_z = (0.5 * w0_lo).ln().abs().max(z.ln().abs()) * 1.01 + PI / 6.0 + 1e-10;
        z.powf(nf) * (1.01 * log_z * (0.05 * log_z).exp() + k0)
    } else {
        // |s - n| <= 1/2
        k0 * z.powf(nf - 0.5).max(z.powf(nf + 0.5))
    } * (1.0 + 8.0 * LIBM_REL);
    let departure = h_max * h_max * 2.0 * m / ((rho - h_max) * (rho - h_max)) * 1.01;
    let err = e + departure;
    err.is_finite().then_some((v, err, scale))
}

/// sum_i psi(w_i)/(-1)^n over real roots (Lemma F4; `roots` in double-double from the typed
/// inputs, `s` = 1/p of the reduced problem). For C (Lemma F1) each K w^s = K w^n e^(eps log w)
/// has the same sign, so their relative errors hold for the sum, and log w is needed in double
/// precision only; for C' (Lemma F2) each w^n Q(w) is a double-double product
/// ([`MergedParts::q`]) and so is the sum (the two can cancel). `None` when a guard fails.
fn real_roots(
    inp: &Inputs,
    n: usize,
    (eps, eps_abs): (f64, f64),
    kappa0: (f64, f64),
    roots: &[Dd],
    s: Dd,
) -> Option<(f64, f64, f64)> {
    let mut scale = 0.0;
    if !inp.merged {
        let (mut mags, mut mag_err) = (0.0, 0.0);
        for &w in roots {
            let (mag, rel) = power_s(w, n, (eps, eps_abs))?;
            mags += mag;
            mag_err += mag * rel;
        }
        let (k0, k0_err) = kappa0;
        let v = k0 * mags;
        let err =
            (k0.abs() * mag_err + k0_err * (mags + mag_err) + 2.0 * U * v.abs()) * (1.0 + 1e-6);
        scale = (mags + mag_err) * (1.0 + 2.0 * U);
        return err.is_finite().then_some((v, err, scale));
    }
    let parts = MergedParts::new(n, s, inp)?;
    let mut acc = Dd::exact(0.0);
    let mut moved = 0.0;
    for &w in roots {
        let wn = power(w, n)?;
        let lw = ln(w)?;
        let z = Complex {
            re: lw,
            im: Dd::exact(0.0),
        };
        let MergedQ { q, d_q, eps } = parts.q(z)?;
        let wn_hi = wn.abs() + wn.err;
        acc = acc.add(wn.mul(q.re));
        moved += wn_hi * d_q;
        scale +=
            wn_hi * (eps * (lw.abs() + lw.err) * (1.0 + 4.0 * U)).exp() * (1.0 + 4.0 * LIBM_REL);
    }
    let v = acc.value();
    let err = (acc.err + moved + U * v.abs()) * (1.0 + 1e-6);
    err.is_finite().then_some((v, err, scale))
}

/// cos and sin of a phase (|phase| < 100) in double-double: reduced by k pi/2 (k the nearest
/// integer, pi/2 in double-double), cos(k pi/2 + r) and sin(k pi/2 + r) are +-cos r or +-sin r of
/// the small r ([`sin_cos`], |r| <= 0.8 with room for the rounding of k).
fn cos_sin(phase: Dd) -> Option<(Dd, Dd)> {
    let k = (phase.hi / HALF_PI.hi).round();
    let r = phase.sub(Dd::exact(k).mul(HALF_PI));
    if !(r.abs() <= 0.8 && r.err.is_finite()) {
        return None;
    }
    let (sr, cr) = sin_cos(r);
    Some(match (k as i64).rem_euclid(4) {
        0 => (cr, sr),
        1 => (sr.neg(), cr),
        2 => (cr.neg(), sr.neg()),
        _ => (sr, cr.neg()),
    })
}

/// s = 1/p_exact in double-double (p from [`InputsDd`]).
fn exact_s(inp: &Inputs) -> Option<Dd> {
    Dd::exact(1.0).div(inp.typed?.p)
}

/// |w|^s = |w|^n e^(eps log|w|) for s = n + eps (eps within eps_abs) as a double with its relative
/// error: |w|^n in double-double, log|w| within LIBM_REL and w's own relative error (first order;
/// 1.01), e^a within LIBM_REL and its argument's move. `None` past |eps log|w|| = 30.
fn power_s(w: Dd, n: usize, (eps, eps_abs): (f64, f64)) -> Option<(f64, f64)> {
    let wn = power(w, n)?;
    let l = w.value().ln();
    let l_err = LIBM_REL * l.abs() + (w.err / w.abs_lower() + U) * 1.01;
    let a_exp = eps * l;
    if a_exp.abs() > 30.0 {
        return None;
    }
    let a_err = U * a_exp.abs() + eps.abs() * l_err + eps_abs * (l.abs() + l_err);
    let rel = (wn.err / wn.abs_lower() + U) + LIBM_REL + 1.01 * a_err + 2.0 * U;
    Some((wn.value() * a_exp.exp(), rel))
}

/// m^n in double-double; `None` unless finite and clearly positive.
fn power(m: Dd, n: usize) -> Option<Dd> {
    let wn = m.powi(n);
    (wn.hi.is_finite() && wn.err.is_finite() && wn.abs_lower() > 0.0).then_some(wn)
}

/// Lemma F2's bracket Q = sigma E + kappa0 at z = log w, in double-double (see [`polar_pair`]).
struct MergedQ {
    q: Complex,
    /// Bound on Q's move from eps's distance to the eps used.
    d_q: f64,
    /// Upper bound of |eps|.
    eps: f64,
}

/// What Lemma F2's bracket needs besides z, computed once per constant: eps = s - n at the double
/// nearest it (0 at exact resonance, d = 0), its distance from the exact eps, and sigma and kappa0
/// there ([`sigma_parts`]) in double-double.
struct MergedParts {
    eps_used: f64,
    d_eps: f64,
    sigma: Dd,
    kappa0: Dd,
}

impl MergedParts {
    fn new(n: usize, s: Dd, inp: &Inputs) -> Option<MergedParts> {
        let (eps_used, d_eps) = if inp.d == 0.0 {
            (0.0, 0.0)
        } else {
            let e = s.sub(Dd::exact(n as f64));
            (e.hi, e.lo.abs() + e.err)
        };
        if eps_used.abs() > 0.05 {
            return None;
        }
        let (_, (v, v_err)) = sigma_parts(eps_used, 0.0);
        let sigma = Dd::exact(1.0).add(Dd {
            err: eps_used.abs() * v_err,
            ..Dd::product(eps_used, v)
        });
        let kappa0 = Dd {
            hi: v,
            lo: 0.0,
            err: v_err,
        }
        .sub(Dd::exact(1.0).div_f64(n as f64));
        Some(MergedParts {
            eps_used,
            d_eps,
            sigma,
            kappa0,
        })
    }

    /// Q = sigma E + kappa0 with E = z (e^(eps z) - 1)/(eps z) at eps_used, and the distance of
    /// the exact eps from it times |dQ/d eps| <= |z|^2 e^(|eps z|) + |E| + 4 (for |eps| <= 0.05:
    /// |dE/d eps| <= |z|^2 e^(|eps z|)/2, sigma <= 1.01, sigma' <= 1/2,
    /// d((sigma - 1)/eps)/d eps <= 2).
    fn q(&self, z: Complex) -> Option<MergedQ> {
        let eps_used = self.eps_used;
        let e = if eps_used == 0.0 {
            z
        } else {
            let eps_z = z.scale(Dd::exact(eps_used));
            if eps_z.abs_bound() > 4.0 {
                return None;
            }
            z.mul(exp_m1_over(eps_z))
        };
        let q = Complex {
            re: e.re.mul(self.sigma).add(self.kappa0),
            im: e.im.mul(self.sigma),
        };
        let z_hi = z.abs_bound();
        let d_q = self.d_eps
            * (z_hi * z_hi * (eps_used.abs() * z_hi + 1e-10).exp() * 1.01 + e.abs_bound() + 4.0);
        Some(MergedQ {
            q,
            d_q,
            eps: eps_used.abs() + self.d_eps,
        })
    }
}

/// Psi/(-1)^n for the complex pair from the typed inputs themselves, in polar form and
/// double-double (docs/MATH.md §4.8, Lemma F4): with Y = sqrt(4B - A^2) > 0,
///
/// ```text
/// w = (kappa/2)(A + i Y),  |w| = kappa sqrt(B),  theta = arg w = atan(Y/A),
/// C itself (Lemma F1):  Psi = 2 K |w|^s cos(s theta),                K = (-1)^n kappa0 = pi/sin(pi s)
/// C' (Lemma F2):        Psi = 2 (-1)^n |w|^n [cos(n theta) Re Q - sin(n theta) Im Q],
///                       Q = sigma E + kappa0,  E = (w^eps - 1)/eps = z (e^(eps z) - 1)/(eps z),  z = log|w| + i theta
/// ```
///
/// Near a sign change of C the cosine (or the bracket) is far smaller than its parts, and its
/// relative error is that of the phase times tan(phase): the phase goes up to 60, so it is computed
/// to about 1e-29 absolute. theta corrects a double guess theta0: A sin theta0 - Y cos theta0 =
/// 2 sqrt(B) sin(theta0 - theta) exactly, so theta = theta0 - asin(D/(2 sqrt B)) with D in
/// double-double and |asin x - x| <= |x|^3 for |x| <= 1/2. s = 1/p from p in double-double
/// ([`InputsDd`]); the phase is reduced by k pi/2 in
/// double-double, and cos(k pi/2 + r) is +-cos r or +-sin r. For C, cos r and sin r are doubles
/// within LIBM_REL and the move of r, and |w|^s = |w|^n e^(eps log|w|) (errors relative to Psi);
/// for C', log|w|, sin and cos of the reduced n theta, (e^x - 1)/x and the bracket are all
/// double-double, and eps = s - n enters Q only through smooth functions: Q at the double nearest
/// eps, plus |eps - that| times |dQ/d eps| <= |z|^2 e^(|eps z|) + |E| + 4 (|dE/d eps| <=
/// |z|^2 e^(|eps z|)/2, sigma' <= 1/2, d((sigma - 1)/eps)/d eps <= 2 for |eps| <= 0.05).
///
/// A, B and kappa are the exact inputs in double-double (`typed`), so their own errors are in Y,
/// theta and |w|. `None` (the caller evaluates the roots instead) without them, when the pair is
/// not clearly complex, or when a guard fails.
fn polar_pair(
    inp: &Inputs,
    n: usize,
    (eps, eps_abs): (f64, f64),
    kappa0: (f64, f64),
    typed: InputsDd,
    y: Dd,
) -> Option<(f64, f64, f64)> {
    let (a, b) = (inp.term.a, inp.term.b);
    let InputsDd {
        a: a_dd,
        b: b_dd,
        kappa,
        ..
    } = typed;
    // theta: a double guess (the arctangent-free `arg`, within 30u) corrected once
    let theta0 = arg(a, y.value()).0;
    if !(theta0 > 0.0 && theta0 < 1.6) {
        return None;
    }
    let (sin0, cos0) = sin_cos(Dd::exact(theta0));
    let big_d = sin0.mul(a_dd).sub(cos0.mul(y));
    let r_lo = 2.0 * b.sqrt() * (1.0 - 2.0 * U);
    let x = big_d.value() / (2.0 * b.sqrt());
    if x.abs() > 1e-6 {
        return None;
    }
    // |x_exact - x| <= D's error and value rounding over R, plus sqrt, division and B's residual
    // (4u of x);
    // theta = theta0 - asin(x_exact): the pair theta0 - x (exact), x's error, |asin x - x| <= |x|^3
    let x_err = (big_d.err + U * big_d.value().abs()) / r_lo + 4.0 * U * x.abs();
    let x_hi = x.abs() + x_err;
    let theta = Dd::exact(theta0).sub(Dd::exact(x));
    let theta = Dd {
        err: theta.err + x_err + x_hi * x_hi * x_hi,
        ..theta
    };
    let s = exact_s(inp)?;
    // |w| = kappa sqrt(B) and |w|^n, in double-double
    let m = b_dd.sqrt()?.mul(kappa);
    if !inp.merged {
        let (cos_dd, _) = cos_sin(s.mul(theta))?;
        // the double nearest hi + lo: within u of it
        let (cos_phase, cos_err) = (cos_dd.value(), cos_dd.err + U * cos_dd.value().abs());
        let (mag, mag_rel) = power_s(m, n, (eps, eps_abs))?;
        let (k0, k0_err) = kappa0;
        let v = 2.0 * k0 * mag * cos_phase;
        let k_hi = k0.abs() + k0_err;
        let mag_hi = mag * (1.0 + mag_rel);
        let err = v.abs() * (k0_err / k0.abs() + mag_rel + 3.0 * U) + 2.0 * k_hi * mag_hi * cos_err;
        let err = err * (1.0 + 1e-6);
        return err
            .is_finite()
            .then_some((v, err, 2.0 * mag_hi * (1.0 + 2.0 * U)));
    }
    let wn = power(m, n)?;
    let wn_hi = wn.abs() + wn.err;
    let l = ln(m)?;
    let MergedQ { q, d_q, eps } = MergedParts::new(n, s, inp)?.q(Complex { re: l, im: theta })?;
    let (cos_n, sin_n) = cos_sin(Dd::exact(n as f64).mul(theta))?;
    let bracket = cos_n.mul(q.re).sub(sin_n.mul(q.im));
    let br_hi = bracket.abs() + bracket.err + 2.0 * d_q;
    let value = 2.0 * wn.value() * bracket.value();
    // |w|^eps <= e^(|eps| |L|) (eps within d_eps of eps_used)
    let w_eps_hi = (eps * (l.abs() + l.err) * (1.0 + 4.0 * U)).exp() * (1.0 + 4.0 * LIBM_REL);
    let err = 2.0 * (wn_hi * (bracket.err + 2.0 * d_q) + br_hi * wn.err) + 3.0 * U * value.abs();
    let err = err * (1.0 + 1e-6);
    err.is_finite()
        .then_some((value, err, 2.0 * wn_hi * w_eps_hi))
}

/// arg(x + i y) for x > 0, y >= 0 without atan: theta = 2 atan(z), z = y/(|w| + x) < 1, then two
/// half-angle steps z -> z/(1 + sqrt(1 + z^2)) (atan z = 2 atan of that) bring z below 0.2, and
/// atan z = z - z^3/3 + ... (alternating, decreasing: the first omitted term bounds the rest).
/// Errors (relative): z carries <= 5u (hypot by sqrt of a sum of squares 2.5u, the sum u, the
/// quotient u); each step passes z's relative error with factor 1/sqrt(1 + z^2) <= 1 and adds
/// <= 5u (sqrt, sums, quotient); the series adds <= 3u of its value (terms below z with relative
/// errors of a few u, alternating); atan's condition number z/((1 + z^2) atan z) is <= 1; the
/// factors 2 are exact. Total <= 25u; 30u is returned.
fn arg(x: f64, y: f64) -> (f64, f64) {
    let r = (x * x + y * y).sqrt();
    let mut z = y / (r + x);
    for _ in 0..2 {
        z /= 1.0 + (z * z + 1.0).sqrt();
    }
    let z2 = z * z;
    let mut term = z;
    let mut sum = 0.0;
    let mut k = 0;
    while k < 40 {
        let t = term / (2 * k + 1) as f64;
        if t.abs() < 1e-30 * z {
            break;
        }
        sum += if k % 2 == 0 { t } else { -t };
        term *= z2;
        k += 1;
    }
    let theta = 8.0 * sum;
    (theta, 30.0 * U * theta + 8.0 * 1e-30 * z)
}

/// int_0^L0 g(x) dx by its series in u = x^p (docs/MATH.md §4.8, Lemma F5), when B > 0 and the
/// series converges at least as fast as 2^-j: `None` otherwise (the caller integrates by panels).
///
/// With alpha = A kappa, beta = B kappa^2, a1 = alpha/beta, a2 = 1/beta and u = x^p,
/// 1 + alpha/u + beta/u^2 = beta u^-2 (1 + a1 u + a2 u^2), so
/// g(x) = log beta - 2p log x + sum_j c_j u^j with c_j the coefficients of log(1 + a1 u + a2 u^2)
/// ([`LogSeries`], Lemma 3: |c_j| <= 2 rho^j / j, rho = max|roots of z^2 + a1 z + a2|), and
///
/// ```text
/// int_0^L0 g = L0 (log beta - 2p log L0 + 2p) + L0 sum_{j>=1} c_j U^j / (j p + 1),   U = L0^p,
/// tail after J terms <= L0 (2/(J+1)) tau^(J+1) / (((J+1) p + 1)(1 - tau)),  tau = rho U <= 1/2.
/// ```
///
/// Errors: a1 and a2 are within e1 = (kappa_rel + 3u)(1 + 1e-6) and 2 e1 of the exact ones
/// (kappa's error and two or three roundings, and one more where they are scaled below), so c_j
/// moves by at most ((1 + e1)^j - 1) times the coefficient of -log(1 - |a1| u - |a2| u^2) (every
/// monomial a1^(j-2i) a2^i by at most that);
/// U^j (a `powf` and j - 1 products) and 1/(jp + 1) are within
/// j (LIBM_REL + u + p_err (|log L0| + 1)) 1.01 + 6u of the exact ones (p within p_err);
/// each term's two products u each; log beta within LIBM_REL |log beta| + (2 kappa_rel + 3u) 1.01,
/// log L0 within LIBM_REL, and p's p_err in the first part; the sums by [`Accumulator`].
/// rho is bounded above by [`root_radius`] at (a1 (1 + e1), a2 (1 - 2 e1)) or sqrt(a2 (1 + 2 e1)),
/// whichever is larger (the real roots' modulus grows with a1 and falls with a2, the complex
/// pair's is sqrt(a2)), so the tail bound holds for the exact coefficients.
fn integral_by_series(t: &PowerTerm, l0: f64, tol: f64) -> Option<(f64, f64)> {
    const J_MAX: usize = 80;
    if !(t.b > 0.0 && t.a >= 0.0 && t.p > t.p_err) {
        return None;
    }
    let beta = t.b * t.kappa * t.kappa;
    let a1 = t.a / (t.b * t.kappa);
    let a2 = 1.0 / beta;
    // (3u, not 2u: the roundings of a1 (1 + e1) and a2 (1 - 2 e1) below must not shrink them)
    let e1 = (t.kappa_rel + 3.0 * U) * (1.0 + 1e-6);
    let rho = root_radius(a1 * (1.0 + e1), a2 * (1.0 - 2.0 * e1))
        .max((a2 * (1.0 + 2.0 * e1)).sqrt() * (1.0 + 2.0 * U));
    let ln_l0 = l0.ln();
    // U = L0^p: powf within LIBM_REL, and L0^(p - p_exact) within p_err |log L0| (1.01)
    let u_rel = LIBM_REL + U + t.p_err * ln_l0.abs() * 1.01;
    let big_u = l0.powf(t.p);
    let tau = rho * big_u * (1.0 + u_rel) * (1.0 + 2.0 * U);
    if !(tau <= 0.5 && beta.is_finite() && beta > 0.0) {
        return None;
    }
    let p_lo = t.p - t.p_err;
    let tail = |j: usize| {
        let j1 = (j + 1) as f64;
        l0 * (2.0 / j1) * tau.powi(j1 as i32) / ((j1 * p_lo + 1.0) * (1.0 - tau)) * (1.0 + 1e-10)
    };
    let j_max = (1..=J_MAX).find(|&j| tail(j) <= 0.5 * tol)?;
    let series = LogSeries::new(a1, a2, j_max);
    let abs_series = LogSeries::new(-a1.abs(), -a2.abs(), j_max);
    let mut acc = Accumulator::new();
    // L0 (log beta - 2p log L0 + 2p) as one sum of three parts: each part's own errors, and u of
    // each of the two partial sums
    let ln_beta = beta.ln();
    let first = l0 * ln_beta;
    let second = -2.0 * t.p * l0 * ln_l0;
    let third = 2.0 * t.p * l0;
    let first_two = first + second;
    let head = first_two + third;
    let head_err = l0 * (LIBM_REL * ln_beta.abs() + (2.0 * t.kappa_rel + 3.0 * U) * 1.01)
        + U * first.abs()
        + second.abs() * (LIBM_REL + 3.0 * U)
        + 2.0 * t.p_err * l0 * (ln_l0.abs() + 1.0) * 1.01
        + U * (third.abs() + first_two.abs() + head.abs());
    acc.add(head, head_err * (1.0 + 1e-6));
    let mut u_j = 1.0;
    for j in 1..=j_max {
        u_j *= big_u;
        let fj = j as f64;
        let inv = 1.0 / (fj * t.p + 1.0);
        let rel = fj * (LIBM_REL + U + t.p_err * (ln_l0.abs() + 1.0)) * 1.01 + 6.0 * U;
        let scale = l0 * u_j * inv;
        let c = series.c[j];
        let term = c * scale;
        let c_hat = -abs_series.c[j] + abs_series.err[j];
        let moved = grow(j, e1) * c_hat;
        let err =
            (series.err[j] + moved) * scale * (1.0 + rel + 2.0 * U) + term.abs() * (rel + 3.0 * U);
        acc.add(term, err * (1.0 + 1e-6));
    }
    let (v, e) = (acc.value(), acc.error() + tail(j_max));
    (v.is_finite() && e.is_finite()).then_some((v, e))
}

/// int_0^L0 g(x) dx with an error bound of about `tol` or less.
///
/// g is positive and decreasing; for x <= 1, 1 + alpha y + beta y^2 <= (1 + alpha + beta) y^2 with
/// y = x^-p >= 1, so g(x) <= G + 2p log(1/x) with G = log(1 + alpha + beta), and g(x) <= g(1) <= G
/// on [1, L0]. Hence int_0^X g <= X (G + 2p (log(1/X) + 1)) for X <= 1 and
/// 0 < int_0^L0 g <= L0 G + 2p =: I. When I/2 <= tol the integral is I/2 +- I/2 (no panel is
/// evaluated). Otherwise by the series of Lemma F5 where it converges fast
/// ([`integral_by_series`]), else: the explicit piece over (0, X1], half its bound +- half, with X1 the
/// largest of 10^-20, 10^-19, ..., 1 whose bound is at most tol/2 (10^-20 at the least), and
/// Gauss-Legendre panels over [X1, L0] (Lemmas 8, 9), each with the fewest points whose bound is
/// below max(2^-66, tol / (2 panels)).
fn integral_to(t: &PowerTerm, l0: f64, tol: f64, shared: Option<&WholePanels>) -> (f64, f64) {
    let (big_g, p) = crude_bounds(t);
    let whole = (l0 * big_g + 2.0 * p) * (1.0 + 1e-10);
    let tol = tol.max(2f64.powi(-60) * whole);
    if 0.5 * whole <= tol {
        return (0.5 * whole, 0.5 * whole);
    }
    if let Some(series) = integral_by_series(t, l0, tol) {
        return series;
    }
    integral_by_quadrature(t, l0, tol, shared)
}

/// G = log(1 + alpha + beta) and p + p_err, for [`integral_to`]'s bounds: alpha, beta and kappa
/// are within a few u of the exact ones, ln_1p and the products one ulp each, all far below the
/// 1e-10 relative that the bounds built on them add.
fn crude_bounds(t: &PowerTerm) -> (f64, f64) {
    let alpha = t.a * t.kappa;
    let beta = t.b * t.kappa * t.kappa;
    ((alpha + beta).ln_1p(), t.p + t.p_err)
}

/// [`integral_to`] by its explicit piece over (0, X1] and Gauss-Legendre panels over [X1, L0].
fn integral_by_quadrature(
    t: &PowerTerm,
    l0: f64,
    tol: f64,
    shared: Option<&WholePanels>,
) -> (f64, f64) {
    let (big_g, p) = crude_bounds(t);
    let piece = |x: f64| x * (big_g + 2.0 * p * ((1.0 / x).ln() + 1.0)) * (1.0 + 1e-10);
    let mut x1 = 1e-20;
    for e in (-19..=0).rev() {
        let x = 10f64.powi(e);
        if x <= l0 && piece(x) <= 0.5 * tol {
            x1 = x;
            break;
        }
    }
    let first = piece(x1);
    let mut acc = Accumulator::new();
    acc.add(0.5 * first, 0.5 * first);
    let ratio = t.panel_ratio();
    let panels = ((l0 / x1).ln() / ratio.ln()).ceil().max(1.0) + 1.0;
    let target = (0.5 * tol / panels).max(2f64.powi(-66));
    // the fewest Gauss points (4 to 24) whose Bernstein bound is below the target: the panels
    // near 0 are short, and their bound scales with their length
    let (v, e) = t.integral_by_panels(x1, l0, target, shared);
    acc.add(v, e);
    (acc.value(), acc.error())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lemma F5's series and the panels (two independent computations of int_0^L0 g) give
    /// overlapping enclosures, each within its tolerance, over random terms (doubles and typed:
    /// kappa and p with errors), and the series applies to a good part of them.
    #[test]
    fn integral_by_series_agrees_with_the_panels() {
        let mut y = 0x5851_f42d_4c95_7f2du64;
        let mut r = move || {
            y ^= y << 13;
            y ^= y >> 7;
            y ^= y << 17;
            (y >> 11) as f64 / (1u64 << 53) as f64
        };
        let lu = |u: f64, lo: f64, hi: f64| (u * (hi / lo).ln()).exp() * lo;
        let (mut tried, mut applied) = (0, 0);
        for i in 0..3000 {
            let typed = i % 2 == 1;
            let c = lu(r(), 1e-3, 1e3);
            let t = PowerTerm {
                a: if r() < 0.1 { 0.0 } else { lu(r(), 1e-3, 100.0) },
                b: lu(r(), 1e-3, 100.0),
                kappa: 1.0 / c.sqrt(),
                kappa_rel: if typed { 3e-16 } else { 2.0 * U },
                p: lu(r(), 0.025, 0.35),
                p_err: if typed { 2e-17 } else { 0.0 },
            };
            let l0 = [8.0, 12.0, 18.0, 27.0, 41.0][i % 5];
            let whole = l0 * (t.a * t.kappa + t.b * t.kappa * t.kappa).ln_1p() + 2.0 * t.p;
            let tol = whole * [1e-10, 1e-13, 2f64.powi(-60)][i % 3];
            tried += 1;
            let Some((v, e)) = integral_by_series(&t, l0, tol) else {
                continue;
            };
            applied += 1;
            let (qv, qe) = integral_by_quadrature(&t, l0, tol, None);
            assert!(
                (v - qv).abs() <= e + qe,
                "{t:?} L0 = {l0}: {v} +- {e} vs {qv} +- {qe}"
            );
            // the tail is held to tol/2; where the roundings and the inputs' own errors (kappa's,
            // p's) leave more, never more than the panels leave
            assert!(
                e <= tol.max(qe),
                "{t:?} L0 = {l0}: {e:e} > {tol:e}, v {v}, panels {qv} +- {qe:e}"
            );
        }
        // (B large against c, or L0^p small: a fifth of this sample)
        assert!(
            applied * 5 > tried,
            "the series applied to {applied} of {tried}"
        );
        // and where the finite part is hardest (C' near a sign change, q = 0.50037)
        let c: f64 = 0.0012994811002209016;
        let t = PowerTerm {
            a: 1.069315548294458,
            b: 1.3700413964730669,
            kappa: 1.0 / c.sqrt(),
            kappa_rel: 2.0 * U,
            p: 0.2501831328581468,
            p_err: 0.0,
        };
        assert!(integral_by_series(&t, 12.0, 1e-14).is_some());
    }
}
