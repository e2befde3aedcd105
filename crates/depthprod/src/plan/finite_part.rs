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
use crate::double_double::{exp_m1_over, ln, sin_cos, two_prod, Complex, Dd, HALF_PI};
use crate::euler_maclaurin::PowerTerm;
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
    /// The exact p minus `term.p`, correctly rounded (0 when p is a double).
    pub p_lo: f64,
    /// A, B and kappa in double-double from the exact inputs, when known.
    pub typed: Option<InputsDd>,
}

/// The typed A, B (their doubles plus the correctly rounded residuals, each within u of itself)
/// and kappa = c^(-1/2) from the exact c, in double-double.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct InputsDd {
    pub a: Dd,
    pub b: Dd,
    pub kappa: Dd,
}

impl InputsDd {
    pub(super) fn new(inputs: &crate::params::ExactInputs, a: f64, b: f64, kappa: Dd) -> InputsDd {
        let dd = |hi: f64, lo: f64| Dd {
            hi,
            lo,
            err: U * lo.abs(),
        };
        InputsDd {
            a: dd(a, inputs.lo_a),
            b: dd(b, inputs.lo_b),
            kappa,
        }
    }
}

/// The roots w_i of w^2 - alpha w + beta (1 + alpha u + beta u^2 = prod (1 + w_i u)): real (one or
/// two), or the pair x +- i y.
enum Roots {
    Real(Vec<f64>),
    Complex(f64, f64),
}

/// Why the route declines (the caller keeps its "not resolvable" reason then).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Declined {
    /// t^s overflows, or the exponent is too small for this route (s < 3).
    OutOfRange,
}

/// C' = C + c_n/d_n (or C at exact resonance) with an error bound, and the size of the closed
/// form's part, sum_i |w_i|^s (rounded up): C is what remains of parts of that size, so near a sign
/// change of C (complex roots) its width relative to |C| grows like that size over |C|; the
/// rounding of kappa = c^(-1/2) and of the roots (Lemma F3) alone is a few u s times it.
pub(super) fn merged_constant(inp: &Inputs) -> Result<(f64, f64, f64), Declined> {
    let t = inp.term;
    let alpha = t.a * t.kappa;
    let beta = t.b * t.kappa * t.kappa;
    // The reduced problem: exponent p_r, index n_r, the roots.
    let (p_r, n_r, roots) = if t.a == 0.0 {
        // f = log(1 + beta u^2): one root beta in v = u^2, p' = 2p, n' = n/2
        if inp.n % 2 != 0 {
            return Err(Declined::OutOfRange);
        }
        (2.0 * t.p, inp.n / 2, Roots::Real(vec![beta]))
    } else if alpha * alpha - 4.0 * beta < 0.0 {
        // w = alpha/2 +- i y, y = sqrt(beta - alpha^2/4) (alpha/2 is exact)
        let x = 0.5 * alpha;
        // (any y will do: the residuals below measure how far the pair's (2x, x^2 + y^2) is)
        let y = (beta - x * x).max(0.0).sqrt();
        (t.p, inp.n, Roots::Complex(x, y))
    } else if beta == 0.0 {
        (t.p, inp.n, Roots::Real(vec![alpha]))
    } else {
        let w1 = 0.5 * (alpha + (alpha * alpha - 4.0 * beta).sqrt());
        (t.p, inp.n, Roots::Real(vec![w1, beta / w1]))
    };
    // relative errors of the computed alpha = fl(a kappa) and beta = fl(fl(b kappa) kappa) from
    // A kappa, B kappa^2 at the computed kappa and the typed A, B
    let (a_rel, b_rel) = (U + inp.delta, 2.0 * U + inp.delta);
    // Lemmas F1, F2 and F4 hold for every n >= 1; Lemma F3's suprema need n >= 3 (t^(n-2) on a
    // disk around 0), so below that only the terms from the inputs (Lemma F4) are taken
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
    let (sigma, sigma_m1_eps) = sigma_parts(eps, eps_abs);
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

    // Psi = sum psi(w_i), each with its rounding error (Lemma F2).
    let mut psi = Accumulator::new();
    let mut abs_ws = 0.0; // sum |w_i|^s (for the kappa scaling below)
                          // Psi from the typed inputs themselves in double-double (Lemma F4), which bounds their effect
                          // and kappa's already; the roots in doubles (Lemma F3) where it declines
    let from_typed = match &roots {
        Roots::Real(_) => real_roots(inp, n, eps, eps_abs, kappa0),
        Roots::Complex(..) => polar_pair(inp, n, eps, eps_abs, kappa0),
    };
    let from_inputs = from_typed.is_some();
    match (&roots, from_typed) {
        (_, Some((v, e, m))) => {
            psi.add(sign * v, e);
            abs_ws += m;
        }
        (Roots::Real(ws), None) => {
            for &w in ws {
                if w == 0.0 {
                    continue;
                }
                // a real root is the pair's formula at y = 0 (one root: half of 2 Re psi)
                let (v, e, m) = psi_at_complex(w, 0.0, n, eps, eps_abs, sigma, kappa0)?;
                psi.add(sign * v, e);
                abs_ws += m;
            }
        }
        (Roots::Complex(x, y), None) => {
            // the pair contributes 2 Re psi(x + i y)
            let (v, e, m) = psi_at_complex(*x, *y, n, eps, eps_abs, sigma, kappa0)?;
            psi.add(2.0 * sign * v, 2.0 * e);
            abs_ws += 2.0 * m;
        }
    }
    if n_r < 3 && !from_inputs {
        return Err(Declined::OutOfRange);
    }
    let (psi_v, mut psi_e) = (psi.value(), psi.error());

    // Parameters off their exact values (Lemma F3).
    // (i) Non-homogeneous: the computed roots are the exact roots of (w1 + w2, w1 w2); these differ
    // from (alpha, beta) by residuals, and alpha, beta from the exact A kappa, B kappa^2 (kappa the
    // computed one) by a_rel, b_rel.
    let (d_alpha, d_beta) = residuals(&roots, alpha, beta, t.a == 0.0, a_rel, b_rel);
    if !from_inputs && (d_alpha > 0.0 || d_beta > 0.0) {
        let r = upper_root(&roots, d_alpha, d_beta);
        let (fa, fb) = derivative_bounds(n, eps, sigma, kappa0, r);
        // always valid: the divided differences are at most the sup of F' on the segment
        let (ca, cb) = second_derivative_bounds(n, eps, sigma, kappa0, r);
        let crude = d_alpha * ca + d_beta * cb;
        let moved = match &roots {
            Roots::Real(ws) if ws.len() == 2 => {
                // lower bound of w1 - w2 = sqrt(alpha^2 - 4 beta) over the box
                let (w1, w2) = (ws[0], ws[1]);
                let alpha_lo = (w1 + w2) * (1.0 - 2.0 * U) - d_alpha;
                let beta_hi = w1 * w2 * (1.0 + 2.0 * U) + d_beta;
                let s2 = alpha_lo * alpha_lo * (1.0 - 2.0 * U) - 4.0 * beta_hi * (1.0 + 2.0 * U);
                if s2 > 0.0 && alpha_lo > 0.0 {
                    // divided differences [F(w1) - F(w2)]/(w1 - w2) <= (|F(w1)| + |F(w2)|)/sep
                    let sep = s2.sqrt() * (1.0 - 2.0 * U);
                    crude.min((d_alpha * 2.0 * fa + d_beta * 2.0 * fb) / sep)
                } else {
                    crude
                }
            }
            // one root w = alpha (or beta in u^2): dPsi = psi'(w) dw, |psi'| <= fb
            Roots::Real(_) => d_alpha.max(d_beta) * fb,
            Roots::Complex(x, y) => {
                // |w1 - w2| = sqrt(4 beta - alpha^2) over the box, bounded below
                let alpha_hi = 2.0 * x * (1.0 + 2.0 * U) + d_alpha;
                // x^2 + y^2 with three roundings: within (1 + u)^2 of the exact sum
                let beta_lo = (x * x + y * y) * (1.0 - 2.0 * U) - d_beta;
                let s2 = 4.0 * beta_lo * (1.0 - 2.0 * U) - alpha_hi * alpha_hi * (1.0 + 2.0 * U);
                if s2 > 0.0 {
                    let sep = s2.sqrt() * (1.0 - 2.0 * U);
                    crude.min((d_alpha * 2.0 * fa + d_beta * 2.0 * fb) / sep)
                } else {
                    crude
                }
            }
        };
        psi_e += moved * (1.0 + 1e-6);
    }
    // (ii) kappa's own error scales every root by lambda = (kappa_true/kappa)^(1 or 2):
    // psi(lambda t) = lambda^n [psi(t) + (-1)^n sigma t^s (lambda^eps - 1)/eps].
    let eta = if t.a == 0.0 {
        2.0 * t.kappa_rel * (1.0 + t.kappa_rel)
    } else {
        t.kappa_rel
    };
    // (Lemma F4 bounded kappa's error itself)
    if eta > 0.0 && !from_inputs {
        let g = grow(n, eta);
        // |lambda^eps - 1|/|eps| <= |log lambda| lambda^|eps| <= 1.01 * 1.01 eta for eta < 1e-10
        psi_e +=
            (g * (psi_v.abs() + psi_e) + (1.0 + g) * sigma * abs_ws * 1.03 * eta) * (1.0 + 1e-6);
    }

    // The Euler-Maclaurin pieces and the integral of g over (0, L0]. The integral needs no more
    // accuracy than a small fraction of the error Psi already carries (at most 2^-10 of it, so the
    // width grows by under 0.1%), and never more than 2^-66 absolute: in the corner (roots ~1e3,
    // s = 40) Psi's rounding dwarfs the whole integral, which is then enclosed by its bound alone.
    let (int_v, int_e) = integral_to(t, inp.l0, (psi_e * 2f64.powi(-10)).max(2f64.powi(-66)));
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

/// Bounds |alpha' - alpha_true|, |beta' - beta_true| where (alpha', beta') = (sum, product) of the
/// computed roots (exact reals) and alpha_true = A kappa, beta_true = B kappa^2 at the computed
/// kappa (and the exact typed A, B): the residuals by TwoSum / FMA (exact up to one rounding each)
/// plus the relative errors `a_rel`, `b_rel` of the computed alpha, beta.
fn residuals(
    roots: &Roots,
    alpha: f64,
    beta: f64,
    a_zero: bool,
    a_rel: f64,
    b_rel: f64,
) -> (f64, f64) {
    let slack = 1.0 + 1e-6;
    match roots {
        Roots::Real(ws) if a_zero => (0.0, ws[0].abs() * b_rel * slack),
        Roots::Real(ws) if ws.len() == 1 => (alpha.abs() * a_rel * slack, 0.0),
        Roots::Real(ws) => {
            let (w1, w2) = (ws[0], ws[1]);
            let sum = w1 + w2;
            // exact w1 + w2 = sum + err, |err| <= u |sum|
            let r_alpha = (sum - alpha).abs() + U * sum.abs();
            // exact w1 w2 - beta = (p - beta) + e with w1 w2 = p + e (TwoProd): two roundings,
            // each within u of its result
            let (p, e) = two_prod(w1, w2);
            let d1 = p - beta;
            let r = d1 + e;
            let r_beta = (r.abs() + U * (d1.abs() + r.abs())) * (1.0 + U) + f64::MIN_POSITIVE;
            (
                (r_alpha + alpha * a_rel) * slack,
                (r_beta + beta * b_rel) * slack,
            )
        }
        Roots::Complex(x, y) => {
            // alpha' = 2x = alpha exactly; beta' = x^2 + y^2: x^2 + y^2 - beta =
            // ((px - beta) + py) + (ex + ey) with TwoProd's exact squares, four roundings, each
            // within u of its result
            let (px, ex) = two_prod(*x, *x);
            let (py, ey) = two_prod(*y, *y);
            let d1 = px - beta;
            let d2 = d1 + py;
            let tail = ex + ey;
            let r = d2 + tail;
            let r_beta = (r.abs() + U * (d1.abs() + d2.abs() + tail.abs() + r.abs())) * (1.0 + U)
                + f64::MIN_POSITIVE;
            (alpha * a_rel * slack, (r_beta + beta * b_rel) * slack)
        }
    }
}

/// An upper bound of |w| for every root over the parameter box (alpha' + d_alpha, beta' + d_beta):
/// |w|^2 <= alpha |w| + beta for any root, so |w| <= (alpha + sqrt(alpha^2 + 4 beta))/2; for two
/// real roots w1 = (alpha + sqrt(alpha^2 - 4 beta))/2 is tighter (valid while they stay real, which
/// the caller's separation check ensures; otherwise the general bound is used); one root: itself.
fn upper_root(roots: &Roots, d_alpha: f64, d_beta: f64) -> f64 {
    let (alpha, beta) = match roots {
        Roots::Real(ws) if ws.len() == 1 => {
            return (ws[0] + d_alpha.max(d_beta)) * (1.0 + 2.0 * U);
        }
        Roots::Real(ws) => (ws[0] + ws[1], ws[0] * ws[1]),
        Roots::Complex(x, y) => (2.0 * x, x * x + y * y),
    };
    let a = (alpha + d_alpha) * (1.0 + 2.0 * U);
    let b_hi = (beta * (1.0 + 2.0 * U) + d_beta) * (1.0 + U);
    let general = 0.5 * (a + (a * a + 4.0 * b_hi).sqrt()) * (1.0 + 8.0 * U);
    if let Roots::Real(_) = roots {
        let b_lo = (beta * (1.0 - 2.0 * U) - d_beta).max(0.0);
        let disc = a * a * (1.0 + 2.0 * U) - 4.0 * b_lo * (1.0 - 2.0 * U);
        if disc > 0.0 {
            // sqrt(beta) <= w1 while real, and bounds |w| where the box turns complex
            let tight =
                (0.5 * (a + disc.sqrt()) * (1.0 + 8.0 * U)).max(b_hi.sqrt() * (1.0 + 2.0 * U));
            return tight.min(general);
        }
    }
    if let Roots::Complex(..) = roots {
        // complex throughout the box: |w|^2 = beta
        if a * a * (1.0 + 2.0 * U) < 4.0 * (beta * (1.0 - 2.0 * U) - d_beta) {
            return (b_hi.sqrt() * (1.0 + 2.0 * U)).min(general);
        }
    }
    general
}

/// sup over 0 < |t| <= r, Re t >= 0 and e between 0 and eps of |t^(m + e)| and of
/// |t^(m + e)| (|log|t|| + pi/2) (which bounds |t^m E(t)|, E(t) = (t^eps - 1)/eps =
/// int_0^1 t^(eps tau) log t d tau, as |log t| <= |log|t|| + pi/2): |t^(m+e)| = |t|^(m+e), r^a is
/// increasing in r, and sup_{0<r<=R} r^a |log r| <= max(R^a |log R|, 1/(e a)) for a > 0.
fn power_bounds(eps: f64, r: f64) -> (impl Fn(f64) -> f64, impl Fn(f64) -> f64) {
    let (lo, hi) = (eps.min(0.0), eps.max(0.0));
    let pw = move |m: f64| r.powf(m + hi).max(r.powf(m + lo)) * (1.0 + 4.0 * LIBM_REL);
    let pl = move |m: f64| {
        pw(m) * (r.ln().abs() * (1.0 + 4.0 * U) + PI / 2.0) + 1.0 / (std::f64::consts::E * (m + lo))
    };
    (pw, pl)
}

/// Bounds on |t psi'(t)| and |psi'(t)| for |t| <= r, Re t >= 0 (Lemma F3):
/// t psi' = (-1)^n t^n [n (sigma E + kappa0) + sigma t^eps], psi' = that / t.
fn derivative_bounds(n: usize, eps: f64, sigma: f64, kappa0: (f64, f64), r: f64) -> (f64, f64) {
    let (pw, pl) = power_bounds(eps, r);
    let nf = n as f64;
    let k0 = kappa0.0.abs() + kappa0.1;
    let fa = nf * (sigma * pl(nf) + k0 * pw(nf)) + sigma * pw(nf);
    let fb = nf * (sigma * pl(nf - 1.0) + k0 * pw(nf - 1.0)) + sigma * pw(nf - 1.0);
    (fa * 1.01, fb * 1.01)
}

/// Bounds on |(t psi')'| and |psi''| for |t| <= r, Re t >= 0 (Lemma F3), from
/// (t psi')' = (-1)^n t^(n-1) [n^2 (sigma E + kappa0) + (2n + eps) sigma t^eps],
/// psi'' = (-1)^n t^(n-2) [n (n-1) (sigma E + kappa0) + (2n - 1 + eps) sigma t^eps].
fn second_derivative_bounds(
    n: usize,
    eps: f64,
    sigma: f64,
    kappa0: (f64, f64),
    r: f64,
) -> (f64, f64) {
    let (pw, pl) = power_bounds(eps, r);
    let nf = n as f64;
    let ae = eps.abs();
    let k0 = kappa0.0.abs() + kappa0.1;
    let ca = nf * nf * (sigma * pl(nf - 1.0) + k0 * pw(nf - 1.0))
        + (2.0 * nf + ae) * sigma * pw(nf - 1.0);
    let cb = nf * (nf - 1.0) * (sigma * pl(nf - 2.0) + k0 * pw(nf - 2.0))
        + (2.0 * nf - 1.0 + ae) * sigma * pw(nf - 2.0);
    (ca * 1.01, cb * 1.01)
}

/// Psi/(-1)^n for real roots from the typed inputs themselves, in double-double (Lemma F4): the
/// roots w1 = (kappa/2)(A + Y), w2 = 2 B kappa/(A + Y), Y = sqrt(A^2 - 4B) (or the one root A kappa
/// when B = 0, or B kappa^2 in u^2 with s/2 when A = 0), log w and w^n in double-double. For C
/// (Lemma F1) each K w^s = K w^n e^(eps log w) has the same sign, so their relative errors hold
/// for the sum; for C' (Lemma F2) each w^n Q(w) is a double-double product ([`MergedParts::q`]) and the
/// sum is double-double too (the two can cancel).
/// A, B and kappa are the exact inputs in double-double (`typed`), so their own errors are in the
/// roots. `None` without them, or when a guard fails (the roots' bounds of Lemma F3 then apply).
fn real_roots(
    inp: &Inputs,
    n: usize,
    eps: f64,
    eps_abs: f64,
    kappa0: (f64, f64),
) -> Option<(f64, f64, f64)> {
    let (a, b) = (inp.term.a, inp.term.b);
    let InputsDd {
        a: a_dd,
        b: b_dd,
        kappa,
    } = inp.typed?;
    let half = |d: Dd| Dd {
        hi: 0.5 * d.hi,
        lo: 0.5 * d.lo,
        err: 0.5 * d.err,
    };
    let s = exact_s(inp)?;
    let (roots, s) = if a == 0.0 {
        (vec![b_dd.mul(kappa).mul(kappa)], half(s))
    } else if b == 0.0 {
        (vec![a_dd.mul(kappa)], s)
    } else {
        let y = a_dd.mul(a_dd).sub(b_dd.mul(Dd::exact(4.0))).sqrt()?;
        let sum = a_dd.add(y);
        let w2 = b_dd.mul(Dd::exact(2.0)).div(sum)?.mul(kappa);
        (vec![half(sum.mul(kappa)), w2], s)
    };
    let mut scale = 0.0;
    if !inp.merged {
        let (mut mags, mut mag_err) = (0.0, 0.0);
        for &w in &roots {
            let wn = power(w, n)?;
            // log w in double: LIBM_REL, and w's own relative error (first order; 1.01)
            let l = w.value().ln();
            let l_err = LIBM_REL * l.abs() + (w.err / w.abs_lower() + U) * 1.01;
            let a_exp = eps * l;
            if a_exp.abs() > 30.0 {
                return None;
            }
            let a_err = U * a_exp.abs() + eps.abs() * l_err + eps_abs * (l.abs() + l_err);
            let rel = (wn.err / wn.abs_lower() + U) + LIBM_REL + 1.01 * a_err + 2.0 * U;
            let mag = wn.value() * a_exp.exp();
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
    for &w in &roots {
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

/// s = 1/p_exact in double-double: p = hi + lo with lo the correctly rounded residual (within
/// u |lo|).
fn exact_s(inp: &Inputs) -> Option<Dd> {
    let p = Dd {
        hi: inp.term.p,
        lo: inp.p_lo,
        err: U * inp.p_lo.abs(),
    };
    Dd::exact(1.0).div(p)
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
/// (`p_lo`, the exact p's residual, within u of itself); the phase is reduced by k pi/2 in
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
    eps: f64,
    eps_abs: f64,
    kappa0: (f64, f64),
) -> Option<(f64, f64, f64)> {
    let (a, b) = (inp.term.a, inp.term.b);
    let InputsDd {
        a: a_dd,
        b: b_dd,
        kappa,
    } = inp.typed?;
    if !(a > 0.0 && b > 0.0) {
        return None;
    }
    // Y^2 = 4B - A^2 and Y in double-double
    let y = b_dd.mul(Dd::exact(4.0)).sub(a_dd.mul(a_dd)).sqrt()?;
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
    let wn = power(m, n)?;
    let wn_lo = wn.abs_lower();
    let wn_hi = wn.abs() + wn.err;
    if !inp.merged {
        let (cos_dd, _) = cos_sin(s.mul(theta))?;
        // the double nearest hi + lo: within u of it
        let (cos_phase, cos_err) = (cos_dd.value(), cos_dd.err + U * cos_dd.value().abs());
        let wn_rel = (wn.err + U * wn.value().abs()) / wn_lo;
        // |w|^eps = e^(eps L), L = log|w| (LIBM_REL, and m's own relative error), eps within eps_abs
        let l = m.value().ln();
        let l_err = LIBM_REL * l.abs() + (m.err / m.abs_lower() + U) * 1.01;
        let a_exp = eps * l;
        if a_exp.abs() > 30.0 {
            return None;
        }
        let a_err = U * a_exp.abs() + eps.abs() * l_err + eps_abs * (l.abs() + l_err);
        let mag_rel = wn_rel + LIBM_REL + 1.01 * a_err + 2.0 * U;
        let mag = wn.value() * a_exp.exp();
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

/// Re psi(w)·(-1)^n = Re (w^n [sigma E(w) + kappa0]) for w = x + i y, x > 0, y >= 0 (y = 0: a real
/// root, E = (w^eps - 1)/eps), with an error
/// bound and |w|^s rounded up. log w = L + i theta, L = log|w| = log(x^2 + y^2)/2 (LIBM_REL and
/// the 1.5u of the sum of squares, halved), theta by [`arg`]; w^eps - 1 =
/// expm1(eps L) cos(eps theta) - 2 sin^2(eps theta/2) + i e^(eps L) sin(eps theta), each factor
/// with sin's and expm1's LIBM_REL and its argument's absolute error times the derivative bound
/// (e^|a| for expm1(a), 1 for sin, |b| for cos b - 1); w^n by n - 1 complex products, each
/// within sqrt(5) u of the exact one in modulus.
///
/// The returned |w|^s is |w|^n e^(eps L) with the exponent's error, rounded up.
#[allow(clippy::too_many_arguments)]
fn psi_at_complex(
    x: f64,
    y: f64,
    n: usize,
    eps: f64,
    eps_abs: f64,
    sigma: f64,
    kappa0: (f64, f64),
) -> Result<(f64, f64, f64), Declined> {
    let m2 = x * x + y * y;
    let l = 0.5 * m2.ln();
    let l_err = LIBM_REL * l.abs() + 1.5 * U * 1.01;
    let (theta, theta_err) = arg(x, y);
    // w^n
    let (mut re, mut im) = (1.0, 0.0);
    for _ in 0..n {
        let (a, b) = (re * x - im * y, re * y + im * x);
        re = a;
        im = b;
    }
    if !(re.is_finite() && im.is_finite()) || (re == 0.0 && im == 0.0) {
        return Err(Declined::OutOfRange);
    }
    // |w|^n from m2 for the bound: (x^2 + y^2)^(n/2) rounded up
    let wn_abs = (0.5 * n as f64 * m2.ln()).exp() * (1.0 + 1e-12);
    let wn_err = wn_abs * (n as f64) * 5f64.sqrt() * U * 1.01;
    // a = eps L and b = eps theta with their errors: eps's own (relative eps_rel), L's and
    // theta's, and one rounding each
    let eps_rel = if eps == 0.0 { 0.0 } else { eps_abs / eps.abs() };
    let (a, b) = (eps * l, eps * theta);
    let a_err = a.abs() * (eps_rel + U) + eps.abs() * l_err;
    let b_err = b.abs() * (eps_rel + U) + eps.abs() * theta_err;
    // |w|^s = |w|^n e^(eps L) <= wn_abs e^(a + a_err), rounded up
    let ws = wn_abs * (a + a_err * 1.01).exp() * (1.0 + 4.0 * LIBM_REL);
    // E = (w^eps - 1)/eps, or log w at eps = 0
    let (e_re, e_im, e_err) = if eps == 0.0 {
        (l, theta, l_err + theta_err)
    } else {
        if a.abs() > 30.0 {
            return Err(Declined::OutOfRange);
        }
        let em = a.exp_m1();
        let sb = b.sin();
        let sh = (0.5 * b).sin();
        let cm1 = -2.0 * sh * sh; // cos b - 1
        let cb = 1.0 + cm1;
        // first-order moves: |d expm1(a)| <= e^|a| |da|, |d sin| <= |db|, |d(cos - 1)| <= |b| |db|
        let em_err = em.abs() * LIBM_REL + a.abs().exp() * 1.01 * a_err;
        let sb_err = sb.abs() * LIBM_REL + b_err;
        let cm1_err = cm1.abs() * (2.0 * LIBM_REL + 4.0 * U) + b.abs() * b_err;
        let re_num = em * cb + cm1;
        let im_num = (1.0 + em) * sb;
        let num_err = em_err * cb.abs()
            + em.abs() * cm1_err
            + cm1_err
            + sb_err * (1.0 + em.abs())
            + sb.abs() * em_err
            + 4.0 * U * (re_num.abs() + im_num.abs());
        let (er, ei) = (re_num / eps, im_num / eps);
        let err = (num_err + (eps_rel + U) * (re_num.abs() + im_num.abs())) / eps.abs();
        (er, ei, err * (1.0 + 1e-6))
    };
    // inner = sigma E + kappa0
    let sigma_err = kappa0.1 * eps.abs();
    let (in_re, in_im) = (sigma * e_re + kappa0.0, sigma * e_im);
    let in_abs = in_re.abs() + in_im.abs();
    let in_err = sigma * e_err
        + sigma_err * (e_re.abs() + e_im.abs())
        + kappa0.1
        + 3.0 * U * (sigma * (e_re.abs() + e_im.abs()) + in_abs);
    // Re (w^n inner)
    let v = re * in_re - im * in_im;
    let err = (wn_abs * in_err
        + wn_err * in_abs
        + 2.0 * U * (re.abs() * in_re.abs() + im.abs() * in_im.abs()))
        * (1.0 + 1e-6);
    Ok((v, err, ws))
}

/// int_0^L0 g(x) dx with an error bound of about `tol` or less.
///
/// g is positive and decreasing; for x <= 1, 1 + alpha y + beta y^2 <= (1 + alpha + beta) y^2 with
/// y = x^-p >= 1, so g(x) <= G + 2p log(1/x) with G = log(1 + alpha + beta), and g(x) <= g(1) <= G
/// on [1, L0]. Hence int_0^X g <= X (G + 2p (log(1/X) + 1)) for X <= 1 and
/// 0 < int_0^L0 g <= L0 G + 2p =: I. When I/2 <= tol the integral is I/2 +- I/2 (no panel is
/// evaluated). Otherwise: the explicit piece over (0, X1], half its bound +- half, with X1 the
/// largest of 10^-20, 10^-19, ..., 1 whose bound is at most tol/2 (10^-20 at the least), and
/// Gauss-Legendre panels over [X1, L0] (Lemmas 8, 9), each with the fewest points whose bound is
/// below max(2^-66, tol / (2 panels)).
fn integral_to(t: &PowerTerm, l0: f64, tol: f64) -> (f64, f64) {
    let alpha = t.a * t.kappa;
    let beta = t.b * t.kappa * t.kappa;
    let p = t.p + t.p_err;
    // (1 + 1e-10): alpha, beta and kappa are within a few u of the exact ones, ln_1p and the
    // products one ulp each; all far below 1e-10 relative
    let big_g = (alpha + beta).ln_1p();
    let whole = (l0 * big_g + 2.0 * p) * (1.0 + 1e-10);
    if 0.5 * whole <= tol {
        return (0.5 * whole, 0.5 * whole);
    }
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
    let mut a = x1;
    let mut quad_err = 0.0;
    while a < l0 {
        let b = (a * ratio).min(l0);
        // the fewest Gauss points (4 to 24) whose Bernstein bound is below the target: the panels
        // near 0 are short, and their bound scales with their length
        let (v, e) = t.log_integral(a, b, target);
        acc.add(v, 0.0);
        quad_err += e;
        a = b;
    }
    (acc.value(), acc.error() + quad_err * (1.0 + 1e-10))
}
