//! Euler-Maclaurin applied to g itself, for the middle range [L0, M) where the power series of
//! log(1 + A x + B x^2) does not converge yet (small p or large A kappa: docs/MATH.md, section 4.3's hard
//! corner).
//!
//! For integers a < b (half-open):
//!
//! ```text
//! sum_{l=a}^{b-1} g(l) = int_a^b g + (g(a) - g(b))/2 + E(b) - E(a) + R,
//! E(t) = sum_{j=1}^{m} B_2j/(2j)! g^(2j-1)(t),   |R| <= (2 zeta(2m)/(2 pi)^2m) int_a^b |g^(2m)|.
//! ```
//!
//! Derivatives come from Taylor jets of g (power-series arithmetic). The remainder and the
//! quadrature error are bounded with Cauchy estimates: on the sector |arg z| <= alpha with
//! p alpha <= pi/4, w(z) = 1 + A kappa z^-p + B kappa^2 z^-2p has Re w >= 1, so
//! |g(z)| <= log(1 + v) + pi/2 with v = A kappa |z|^-p + B kappa^2 |z|^-2p, and |g(z)| <= -log(1 - v)
//! whenever v < 1. A disk of radius t sin(alpha) around t stays in the sector, giving
//! |g^(2m)(t)| <= (2m)! G / (t sin alpha)^2m. The integral is taken in s = log l, where the
//! sector is a strip |Im s| <= pi/(4p) of constant width: panels keep a Bernstein ellipse inside it,
//! giving the Gauss-Legendre bound of [`crate::gauss`] ([`PowerTerm::log_integral`]).

use crate::bernoulli::BERNOULLI_2J;
use crate::gauss;
use crate::sum::{Accumulator, LIBM_REL, U};
use std::cell::RefCell;
use std::f64::consts::PI;

/// Largest half-length, in log l, of a whole panel (see [`PowerTerm::panel_half`]).
const MAX_PANEL_HALF: f64 = 8.0;
/// Number of Euler-Maclaurin correction terms.
const EM_TERMS: usize = 12;
/// log((2 EM_TERMS)!) = log(24!) = 54.784729398112319...; the double is within one ulp (a test
/// checks it against the sum of logs), far inside the 1e-10 slack of [`PowerTerm::remainder_bound`].
const LOG_FACTORIAL_2M: f64 = 54.784_729_398_112_32;

/// g(l) = log(1 + A kappa l^-p + B kappa^2 l^-2p) for a power-law family.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PowerTerm {
    pub(crate) a: f64,
    pub(crate) b: f64,
    pub(crate) kappa: f64,
    /// Relative error bound of `kappa` as computed from c.
    pub(crate) kappa_rel: f64,
    pub(crate) p: f64,
    /// |p as stored - exact p| (p = 1 + q/2 may round).
    pub(crate) p_err: f64,
}

impl PowerTerm {
    /// x(l) = kappa l^-p.
    #[inline]
    pub(crate) fn x(&self, l: f64) -> f64 {
        self.kappa * l.powf(-self.p)
    }

    /// Relative error bound of `x(l)`: powf's, the product's and kappa's, and l^(p - p_exact) - 1,
    /// at most |p_err log l| to first order (the finite-part integral takes l down to 1e-20, where
    /// log l < 0: its size counts, not its sign).
    #[inline]
    fn x_rel(&self, l: f64) -> f64 {
        let exponent = if self.p_err == 0.0 {
            0.0
        } else {
            self.p_err * l.ln().abs()
        };
        3.0 * U + self.kappa_rel + exponent
    }

    /// g(l) as computed, without its error bound.
    #[inline]
    fn g_value(&self, l: f64) -> f64 {
        let x = self.x(l);
        (x * (self.a + self.b * x)).ln_1p()
    }

    /// g's relative error bound at l: log1p(t) with t relatively perturbed by d has
    /// |error| <= d t/(1+t) <= d g.
    #[inline]
    fn g_rel(&self, l: f64) -> f64 {
        2.0 * self.x_rel(l) + 7.0 * U
    }

    /// g(l) with a bound on its error (exact-arithmetic g at the exact parameters).
    #[inline]
    pub(crate) fn g(&self, l: f64) -> (f64, f64) {
        let g = self.g_value(l);
        (g, self.g_rel(l) * g)
    }

    /// v(r) = A kappa r^-p + B kappa^2 r^-2p, an upper bound of |w(z) - 1| for |z| >= r.
    fn v(&self, r: f64) -> f64 {
        // (1 + 1e-12): powf's one ulp (LIBM_REL), the product's u and kappa's rounding are below
        // 1e-15 relative; 1e-12 covers them with room, and only loosens a bound
        let x = self.kappa * r.powf(-self.p) * (1.0 + 1e-12);
        self.a * x + self.b * x * x
    }

    /// Bound on |g(z)| over |z| >= r, |arg z| <= alpha with p alpha <= pi/4.
    pub(crate) fn complex_bound(&self, r: f64) -> f64 {
        let v = self.v(r);
        let crude = v.ln_1p() + PI / 2.0;
        let fine = if v < 0.9 {
            -(-v).ln_1p()
        } else {
            f64::INFINITY
        };
        // (1 + 1e-12): ln_1p's one ulp plus the sum's u (both < 1e-15 relative)
        crude.min(fine) * (1.0 + 1e-12)
    }

    /// Half-angle of the sector in which the Cauchy bounds hold.
    pub(crate) fn sector(&self) -> f64 {
        (PI / 3.0).min(PI / (4.0 * self.p))
    }

    /// E(t) = sum_{j=1}^{m} B_2j/(2j)! g^(2j-1)(t), with an error bound; from the Taylor jet of
    /// eta -> g(t (1 + eta)), whose coefficients are g^(k)(t) t^k / k!.
    ///
    /// Far from the origin the high terms are negligible: by the Cauchy estimate
    /// |B_2j/(2j)! g^(2j-1)(t)| <= |B_2j|/(2j) G / (t sin alpha)^(2j-1), and once t sin alpha >= 6
    /// successive bounds at least halve, so the terms beyond j' cost at most twice the first
    /// omitted bound. Only j <= j' are computed.
    pub(crate) fn endpoint_correction(&self, t: f64) -> (f64, f64) {
        const MAX_ORDER: usize = 2 * EM_TERMS; // coefficients 0..MAX_ORDER-1
        let sin_alpha = self.sector().sin();
        let r = t * sin_alpha;
        let (terms, skipped) = if r >= 6.0 {
            let g_t = self.complex_bound(t * (1.0 - sin_alpha));
            let mut j = 1;
            loop {
                let next = BERNOULLI_2J[j + 1].abs() / (2 * (j + 1)) as f64
                    * g_t
                    * r.powi(-(2 * j as i32 + 1));
                if j == EM_TERMS || next <= 2f64.powi(-64) {
                    break (j, if j == EM_TERMS { 0.0 } else { 2.0 * next });
                }
                j += 1;
            }
        } else {
            (EM_TERMS, 0.0)
        };
        let order = 2 * terms; // coefficients 0..order-1
        let p = self.p;
        // u_j = binom(-p, j): (1 + eta)^-p
        let mut u = [0.0; MAX_ORDER];
        u[0] = 1.0;
        for j in 1..order {
            u[j] = u[j - 1] * (-p - (j as f64) + 1.0) / j as f64;
        }
        let x0 = self.x(t);
        // w = 1 + A x0 u + B x0^2 (u*u)
        let mut w = [0.0; MAX_ORDER];
        for j in 0..order {
            let mut uu = 0.0;
            for i in 0..=j {
                uu += u[i] * u[j - i];
            }
            w[j] = self.a * x0 * u[j] + self.b * x0 * x0 * uu;
        }
        let w0 = 1.0 + w[0];
        // L = log w: L_j = (w_j - (1/j) sum_{i=1}^{j-1} i L_i w_{j-i}) / w0
        let mut l = [0.0; MAX_ORDER];
        let mut mag = [0.0; MAX_ORDER]; // running magnitudes for the rounding bound
        for j in 1..order {
            let mut acc = w[j];
            let mut acc_mag = w[j].abs();
            for i in 1..j {
                let t = (i as f64) * l[i] * w[j - i] / j as f64;
                acc -= t;
                acc_mag += (i as f64) * mag[i] * w[j - i].abs() / j as f64;
            }
            l[j] = acc / w0;
            mag[j] = acc_mag / w0;
        }
        let inv_t = 1.0 / t;
        let mut scale = inv_t; // t^-(2j-1)
        let mut value = 0.0;
        let mut bound = 0.0;
        for j in 1..=terms {
            let k = 2 * j - 1;
            let coef = BERNOULLI_2J[j] / (2 * j) as f64;
            let term = coef * l[k] * scale;
            value += term;
            bound += (coef * mag[k] * scale).abs();
            scale *= inv_t * inv_t;
        }
        // Rounding in the jet recurrences grows at most linearly in the order; 4 order^2 u of the
        // magnitudes is a generous cover, plus the relative error of x0 itself (times the order).
        let err = bound
            * ((4 * MAX_ORDER * MAX_ORDER) as f64 * U + MAX_ORDER as f64 * self.x_rel(t))
            + skipped
            + f64::MIN_POSITIVE;
        (value, err)
    }

    /// Bound on |R| for Euler-Maclaurin over [a, infinity) with EM_TERMS terms.
    pub(crate) fn remainder_bound(&self, a: f64) -> f64 {
        let sin_alpha = self.sector().sin();
        let g_star = self.complex_bound(a * (1.0 - sin_alpha));
        let m = EM_TERMS as i32;
        // 2 zeta(2m) (2m)! G a^(1-2m) / ((2m - 1) (2 pi sin alpha)^2m), computed in logs
        let log_fact = LOG_FACTORIAL_2M;
        // zeta(2m) = 1 + 2^-2m + 3^-2m + ... <= 1 + 2^-2m (1 + (2/3)^2m 3) < 1 + 1.01 2^-2m
        // for m >= 10 (EM_TERMS), since 3 (2/3)^20 < 0.001
        let zeta_2m = 1.0 + 2f64.powi(-2 * m) * 1.01;
        let log_r = (2.0 * zeta_2m).ln() + log_fact + g_star.ln() + (1 - 2 * m) as f64 * a.ln()
            - ((2 * m - 1) as f64).ln()
            - (2 * m) as f64 * (2.0 * PI * sin_alpha).ln();
        // (1 + 1e-10): the log-sum has |log_r| < 1e4 with absolute error < 1e-11 (each ln one
        // ulp, LIBM_REL, and a dozen additions), so exp is off by < 1e-11 relative, plus one ulp
        log_r.exp() * (1.0 + 1e-10)
    }

    /// Half-width of the strip |Im s| <= pi/(4p) in which f(s) = a e^s g(a e^s), the integrand
    /// of [`Self::log_integral`], is analytic with |g| bounded by [`Self::complex_bound`]: z = a e^s
    /// has arg z = Im s, so p |arg z| <= pi/4 (the sector of the module docs).
    fn strip(&self) -> f64 {
        PI / (4.0 * self.p)
    }

    /// Half-length, in s = log l, of a whole panel: the largest whose rho = 3 Bernstein ellipse
    /// (semi-minor axis h (3 - 1/3)/2 = 4h/3) stays inside 98% of the strip, and at most
    /// [`MAX_PANEL_HALF`] (the ellipse reaches h (R - 1) past the panel's end in Re s, where
    /// e^s grows: the bound of a longer panel pays e^(2h/3)).
    fn panel_half(&self) -> f64 {
        (0.98 * self.strip() * 0.75).min(MAX_PANEL_HALF)
    }

    /// b/a of a whole panel [a, b] (see [`Self::panel_integral`]): e^(2h).
    pub(crate) fn panel_ratio(&self) -> f64 {
        (2.0 * self.panel_half()).exp()
    }

    /// int_a^b g over a whole panel, b <= a [`Self::panel_ratio`]: (value, error bound), with the
    /// fewest Gauss points whose bound is at most 2^-46 (1.4e-14) of a lower bound of the panel's
    /// own integral, (b - a) g(b) (g is positive and decreasing): every sum of panels, a value or
    /// a tail, then carries at most 2^-46 of itself from quadrature, far inside the 1e-12 goal.
    pub(crate) fn panel_integral(&self, a: f64, b: f64) -> (f64, f64) {
        let (gb, gbe) = self.g(b);
        // (1 - 4u): the product's and subtraction's roundings, so this stays a lower bound
        let floor = ((b - a) * (gb - gbe)).max(0.0) * (1.0 - 4.0 * U);
        // rho = 3 fits a whole panel's ellipse by construction (the largest rho that fits is
        // tried too when rounding left it a hair below 3)
        self.log_integral_with(a, b, 2f64.powi(-46) * floor, &[3.0])
    }

    /// int_lo^hi g for 0 < lo < hi by whole panels [lo r^j, lo r^(j+1)] (r =
    /// [`Self::panel_ratio`]) and a last shorter one up to hi, each with the fewest Gauss points
    /// whose bound is at most `target` (24 at most, with its bound): (value, error bound), the
    /// panels' roundings, quadrature bounds and end terms summed (see [`Self::log_integral`]).
    /// The whole panels share their nodes' e^s and e^(-p s) ([`WholePanels`]): one `ln_1p` per
    /// node.
    /// `shared`: a region's [`WholePanels`] of this same term, whose node factors are then
    /// reused (and extended).
    pub(crate) fn integral_by_panels(
        &self,
        lo: f64,
        hi: f64,
        target: f64,
        shared: Option<&WholePanels>,
    ) -> (f64, f64) {
        let own;
        let whole = match shared {
            Some(w) => w,
            None => {
                own = WholePanels::new(self);
                &own
            }
        };
        let mut acc = Accumulator::new();
        let mut err = 0.0;
        let mut a = lo;
        while a < hi {
            let b = a * whole.ratio;
            let (v, e) = if b <= hi {
                whole.integral_to_target(self, a, b, target)
            } else {
                self.log_integral(a, hi, target)
            };
            acc.add(v, 0.0);
            err += e;
            a = b;
        }
        (acc.value(), acc.error() + err * (1.0 + 1e-10))
    }

    /// int_lo^hi g for 0 < lo < hi, in the variable s = log(l / lo):
    /// int_lo^hi g(l) dl = int_0^S f(s) ds, f(s) = lo e^s g(lo e^s), S = log(hi / lo),
    /// by the Gauss-Legendre rule with the fewest points whose error bound is below `target`
    /// (or 24 points with its bound): (value, error bound).
    ///
    /// Why log l: g is analytic in the sector p |arg z| <= pi/4, so f is analytic in the strip
    /// |Im s| <= pi/(4p), whose width does not shrink with l. A panel may be as long in s as the
    /// strip allows: where p is small (the hard corner, p = 0.025) one panel spans a factor e^16 in
    /// l, where the disks of l-space (radius ~ l sin alpha) gave a factor 3.2. The error bound
    /// (Trefethen, [`gauss::error_factor`]) on [0, S] = centre h +- h uses an ellipse E_rho
    /// (semi-axes h R, h I with R, I = (rho +- 1/rho)/2) inside the strip, h I <= 0.98 pi/(4p), on
    /// which |f| <= lo e^(h(1 + R)) G(lo e^(h(1 - R))), G = [`Self::complex_bound`] over |z| >= r;
    /// several rho are tried and the one needing the fewest points wins.
    ///
    /// The upper end: S is computed (a quotient and a log, each within about u S + u), so the rule
    /// integrates up to lo e^S~ instead of hi; the difference is at most 1.01 hi |S~ - S| g(lo)
    /// (g <= g(lo) on the panel, being decreasing) and is part of the bound.
    pub(crate) fn log_integral(&self, lo: f64, hi: f64, target: f64) -> (f64, f64) {
        self.log_integral_with(lo, hi, target, &[f64::INFINITY, 8.0, 3.0, 1.5])
    }

    /// [`Self::log_integral`] with the ellipses rho of `rhos` that fit the strip (infinity: the
    /// largest that fits; when none of them fits, the largest that fits).
    fn log_integral_with(&self, lo: f64, hi: f64, target: f64, rhos: &[f64]) -> (f64, f64) {
        if hi <= lo {
            return (0.0, 0.0);
        }
        let s_len = (hi / lo).ln();
        let h = 0.5 * s_len;
        // |S~ - S|: hi/lo's rounding (u, absolute in the log) and log's (LIBM_REL of S)
        let s_err = 2.0 * U + LIBM_REL * s_len;
        let i_max = 0.98 * self.strip() / h;
        let rho_max = i_max + (i_max * i_max + 1.0).sqrt();
        let mut best: Option<(usize, f64)> = None;
        let fits = |r: f64| r > 1.0 && r <= rho_max;
        let wanted = rhos
            .iter()
            .map(|&r| if r.is_infinite() { rho_max } else { r });
        let fallback = (!wanted.clone().any(fits)).then_some(rho_max);
        for rho in wanted.filter(|&r| fits(r)).chain(fallback) {
            let r_axis = 0.5 * (rho + 1.0 / rho);
            // (1 +- 1e-12): exp's one ulp and the products' roundings (< 1e-15 relative); a
            // smaller radius and a larger exponential only loosen the bound
            let near = lo * (h * (1.0 - r_axis)).exp() * (1.0 - 1e-12);
            let m = lo * (h * (1.0 + r_axis)).exp() * self.complex_bound(near) * (1.0 + 1e-12);
            if let Some((n, e)) = gauss::ORDERS
                .iter()
                .map(|&n| (n, gauss::error_factor(n, rho) * m * h))
                .find(|&(n, e)| e <= target || n == 24)
            {
                if best.is_none_or(|(bn, be)| n < bn || (n == bn && e < be)) {
                    best = Some((n, e));
                }
            }
        }
        let (n, quad) = best.unwrap_or((24, f64::INFINITY));
        let (value, rounding) = self.gauss_log(n, lo, s_len);
        let (g_lo, g_lo_err) = self.g(lo);
        let end = 1.01 * hi * s_err * (g_lo + g_lo_err);
        (value, rounding + quad + end)
    }

    /// The n-point rule for int_0^S lo e^s g(lo e^s) ds: (value, rounding error bound).
    ///
    /// At a node s, l = lo e^s and x(l) = x(lo) e^(-p s): two `exp`s and one `ln_1p`, no `powf`.
    /// Relative errors (u = 2^-53, each libm call within LIBM_REL):
    /// - the node s = h + h t is off by <= 2u S; f = l g(l) moves by at most (1 + 2p) times the
    ///   relative move of l (|l g'(l)| <= 2p g), so f by (1 + 2p) 2u S;
    /// - l = lo exp(s): LIBM_REL + u;
    /// - x = x(lo) exp(-p s): x(lo)'s own bound (`x_rel(lo)`), the exact p's e^((p - p_exact) s)
    ///   (p_err S), -p s's rounding (u p S, absolute in the exponent), exp's LIBM_REL and the
    ///   product's u; g = log1p(x (A + B x)) then errs by at most 2 that + 7u, as in [`Self::g`];
    /// - the product l g: u.
    fn gauss_log(&self, n: usize, lo: f64, s_len: f64) -> (f64, f64) {
        let (nodes, weights) = gauss::rule(n);
        let h = 0.5 * s_len;
        let p = self.p;
        let factors = nodes.iter().zip(weights).map(|(t, &w)| {
            let s = h + h * t;
            (w, s.exp(), (-p * s).exp())
        });
        self.gauss_log_with(lo, s_len, factors)
    }

    /// [`Self::gauss_log`] with each node given as (weight, e^s, e^(-p s)) for s = h + h t,
    /// computed as there (a whole panel's are the same for every whole panel of a region:
    /// [`WholePanels`]).
    fn gauss_log_with(
        &self,
        lo: f64,
        s_len: f64,
        factors: impl Iterator<Item = (f64, f64, f64)>,
    ) -> (f64, f64) {
        let h = 0.5 * s_len;
        let x_lo = self.x(lo);
        let x_err = self.x_rel(lo) + self.p_err * s_len + 2.0 * U * self.p * s_len + LIBM_REL + U;
        let rel = 2.0 * x_err
            + 7.0 * U
            + (1.0 + 2.0 * self.p) * 2.0 * U * s_len * 1.01
            + LIBM_REL
            + 2.0 * U;
        let mut acc = Accumulator::new();
        for (w, e_s, e_ps) in factors {
            let l = lo * e_s;
            let x = x_lo * e_ps;
            let f = l * (x * (self.a + self.b * x)).ln_1p();
            acc.add_inlined(w * f, w * f * rel);
        }
        let value = h * acc.value();
        (value, h * acc.error() + 2.0 * U * value.abs())
    }
}

/// What every whole panel [a, b = fl(a r)] of a region shares, r = [`PowerTerm::panel_ratio`]:
/// its length S = 2h in s = log(l/a) (the same double for all), the ellipse factors of its
/// rho = 3 bound, and, per Gauss order once used, each node's (weight, e^s, e^(-p s)), so a
/// panel costs one `ln_1p` per node instead of two `exp`s more (the same numbers as
/// [`PowerTerm::gauss_log`] computes: the bits do not depend on which panel asked first).
///
/// The rule integrates over [a, a e^S]; b = fl(a fl(e^S)) is within (u + LIBM_REL) 1.01 of it in
/// log (the product's rounding and exp's), which the end term of the bound covers as in
/// [`PowerTerm::log_integral`].
/// A node of a whole panel's rule: (weight, e^s, e^(-p s)).
type NodeFactors = (f64, f64, f64);

#[derive(Debug, Clone)]
pub(crate) struct WholePanels {
    s_len: f64,
    ratio: f64,
    /// e^(h (1 + R)) and e^(h (1 - R)) for rho = 3 (R = 5/3), rounded outward.
    far: f64,
    near: f64,
    rules: RefCell<[Option<Vec<NodeFactors>>; gauss::ORDERS.len()]>,
}

impl WholePanels {
    fn new(term: &PowerTerm) -> WholePanels {
        let h = term.panel_half();
        let s_len = 2.0 * h;
        let r_axis = 5.0 / 3.0;
        WholePanels {
            s_len,
            ratio: s_len.exp(),
            far: (h * (1.0 + r_axis)).exp() * (1.0 + 1e-12),
            near: (h * (1.0 - r_axis)).exp() * (1.0 - 1e-12),
            rules: RefCell::new(Default::default()),
        }
    }

    /// Whether [a, b] is a whole panel of this region.
    fn is_whole(&self, a: f64, b: f64) -> bool {
        b == a * self.ratio
    }

    /// int_a^b g over a whole panel (see [`PowerTerm::panel_integral`] for the target).
    fn integral(&self, term: &PowerTerm, a: f64, b: f64) -> (f64, f64) {
        let (gb, gbe) = term.g(b);
        // (1 - 4u): the product's and subtraction's roundings, so this stays a lower bound
        let floor = ((b - a) * (gb - gbe)).max(0.0) * (1.0 - 4.0 * U);
        self.integral_to_target(term, a, b, 2f64.powi(-46) * floor)
    }

    /// int_a^b g over a whole panel with the fewest Gauss points (24 at most) whose rho = 3
    /// bound is at most `target`: (value, error bound).
    fn integral_to_target(&self, term: &PowerTerm, a: f64, b: f64, target: f64) -> (f64, f64) {
        debug_assert!(self.is_whole(a, b));
        let h = 0.5 * self.s_len;
        // the rho = 3 ellipse fits the strip: h (4/3) <= 0.98 pi/(4p) by `panel_half`
        let m = a * self.far * term.complex_bound(a * self.near) * (1.0 + 1e-12);
        let (slot, n, quad) = gauss::ORDERS
            .iter()
            .enumerate()
            .map(|(i, &n)| (i, n, gauss::error_factor(n, 3.0) * m * h))
            .find(|&(_, n, e)| e <= target || n == 24)
            .expect("24 is among the orders");
        let mut rules = self.rules.borrow_mut();
        let factors = rules[slot].get_or_insert_with(|| {
            let (nodes, weights) = gauss::rule(n);
            nodes
                .iter()
                .zip(weights)
                .map(|(t, &w)| {
                    let s = h + h * t;
                    (w, s.exp(), (-term.p * s).exp())
                })
                .collect()
        });
        let (value, rounding) = term.gauss_log_with(a, self.s_len, factors.iter().copied());
        let s_err = 1.01 * (U + LIBM_REL);
        let (ga, gae) = term.g(a);
        let end = 1.01 * b * s_err * (ga + gae);
        (value, rounding + quad + end)
    }
}

/// The Euler-Maclaurin middle range [start, end): cumulative panel integrals for quick
/// evaluation at any integer t in (start, end].
///
/// The panel integrals are computed lazily, in order, up to the panel that holds the deepest t
/// asked for so far: a plan whose middle reaches 10^18 (small q) but whose reader asks for
/// N = 10^6 integrates a third of the panels. The running sum is the same accumulator, fed the
/// same panels in the same order as an eager build, so every cumulative value and bound is the
/// same bits whenever it is computed.
#[derive(Debug, Clone)]
pub(crate) struct EmRegion {
    term: PowerTerm,
    start: f64,
    /// Panel boundaries b_0 = start < b_1 < ... (the last one >= end).
    bounds: Vec<f64>,
    /// cum[i] = int_start^{b_i} g: (value, error), for the panels integrated so far.
    cum: RefCell<Cumulative>,
    whole: WholePanels,
    g_start: (f64, f64),
    e_start: (f64, f64),
    remainder: f64,
}

/// The running panel sum of an [`EmRegion`]: `values[i]` for i < values.len(), and the state
/// that continues it.
#[derive(Debug, Clone)]
struct Cumulative {
    values: Vec<(f64, f64)>,
    total: Accumulator,
    total_err: f64,
}

impl EmRegion {
    /// Prepares [start, end). `start` must satisfy [`em_start`]'s condition.
    pub(crate) fn new(term: PowerTerm, start: f64, end: f64) -> EmRegion {
        let whole = WholePanels::new(&term);
        let ratio = whole.ratio;
        let mut bounds = vec![start];
        let mut a = start;
        while a < end {
            let b = (a * ratio).min(end).max(a + 1.0);
            bounds.push(b);
            a = b;
        }
        let mut values = Vec::with_capacity(bounds.len());
        values.push((0.0, 0.0));
        EmRegion {
            term,
            start,
            bounds,
            cum: RefCell::new(Cumulative {
                values,
                total: Accumulator::new(),
                total_err: 0.0,
            }),
            whole,
            g_start: term.g(start),
            e_start: term.endpoint_correction(start),
            remainder: term.remainder_bound(start),
        }
    }

    /// cum[i] = int_start^{b_i} g, integrating the panels up to b_i first if they are not yet.
    fn cumulative(&self, i: usize) -> (f64, f64) {
        let mut cum = self.cum.borrow_mut();
        while cum.values.len() <= i {
            let j = cum.values.len();
            let (a, b) = (self.bounds[j - 1], self.bounds[j]);
            let (v, e) = if self.whole.is_whole(a, b) {
                self.whole.integral(&self.term, a, b)
            } else {
                self.term.panel_integral(a, b)
            };
            cum.total.add(v, 0.0);
            cum.total_err += e;
            let entry = (cum.total.value(), cum.total_err + cum.total.error());
            cum.values.push(entry);
        }
        cum.values[i]
    }

    /// The pieces at the start that [`Self::sum_to`] uses, each with its error bound:
    /// (g(start), E(start), the remainder bound over [start, infinity)). The finite-part route
    /// needs the same three at the same point.
    pub(crate) fn start_pieces(&self) -> ((f64, f64), (f64, f64), f64) {
        (self.g_start, self.e_start, self.remainder)
    }

    /// The whole panels' shared nodes of this region's term ([`PowerTerm::integral_by_panels`]).
    pub(crate) fn whole_panels(&self) -> &WholePanels {
        &self.whole
    }

    /// sum_{l=start}^{t-1} g(l) for an integer-valued t with start <= t <= end: (value, error).
    pub(crate) fn sum_to(&self, t: f64) -> (f64, f64) {
        if t <= self.start {
            return (0.0, 0.0);
        }
        // last boundary <= t
        let i = match self.bounds.binary_search_by(|b| b.total_cmp(&t)) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let mut acc = Accumulator::new();
        let (ci, ce) = self.cumulative(i);
        let target = 2f64.powi(-62) * ci.abs().max(1.0);
        if t > self.bounds[i] {
            // integrate over the shorter side of t within its panel
            let (a, b) = (self.bounds[i], self.bounds[i + 1]);
            if t - a <= b - t {
                acc.add(ci, ce);
                let (v, e) = self.term.log_integral(a, t, target);
                acc.add(v, e);
            } else {
                let (cn, cne) = self.cumulative(i + 1);
                acc.add(cn, cne);
                let (v, e) = self.term.log_integral(t, b, target);
                acc.add(-v, e);
            }
        } else {
            acc.add(ci, ce);
        }
        let (gt, gte) = self.term.g(t);
        acc.add(0.5 * self.g_start.0, 0.5 * self.g_start.1);
        acc.add(-0.5 * gt, 0.5 * gte);
        let (et, ete) = self.term.endpoint_correction(t);
        acc.add(et, ete);
        acc.add(-self.e_start.0, self.e_start.1);
        (acc.value(), acc.error() + self.remainder)
    }
}

/// Smallest start (a power of two times 8, at least `min_start`) where the Euler-Maclaurin
/// remainder over [start, infinity) is at most `tol`.
pub(crate) fn em_start(term: &PowerTerm, min_start: f64, tol: f64) -> f64 {
    let mut start = min_start.max(8.0).ceil();
    while term.remainder_bound(start) > tol && start < 4096.0 {
        start = (start * 1.5).ceil();
    }
    start
}

#[cfg(test)]
mod tests {
    use super::*;

    fn term(a: f64, b: f64, kappa: f64, p: f64) -> PowerTerm {
        PowerTerm {
            a,
            b,
            kappa,
            kappa_rel: 0.0,
            p,
            p_err: 0.0,
        }
    }

    fn direct(t: &PowerTerm, from: u64, to_excl: u64) -> f64 {
        let mut acc = Accumulator::new();
        for l in from..to_excl {
            acc.add(t.g(l as f64).0, 0.0);
        }
        acc.value()
    }

    /// The panels are integrated lazily: the order in which depths are asked for must not change
    /// a single bit of any answer (the running sum sees the same panels in the same order).
    #[test]
    fn log_factorial_constant_is_log_24_factorial() {
        let sum: f64 = (1..=(2 * EM_TERMS)).map(|i| (i as f64).ln()).sum();
        assert!(
            (sum - LOG_FACTORIAL_2M).abs() <= 1e-13,
            "{sum} vs {LOG_FACTORIAL_2M}"
        );
        // 24! = 620448401733239439360000 exactly; its log to 17 digits
        assert!((LOG_FACTORIAL_2M - 620_448_401_733_239_439_360_000f64.ln()).abs() <= 1e-13);
    }

    #[test]
    fn lazy_panels_give_the_same_bits_in_any_order() {
        let t = term(100.0, 100.0, 1e-3f64.powf(-0.5), 0.025);
        let start = em_start(&t, 12.0, 1e-17);
        let depths = [1e18, 13.0, 1e3, 777_777.0, 1e9 + 1.0, 4e12];
        let deep_first = EmRegion::new(t, start, 1e18);
        let shallow_first = EmRegion::new(t, start, 1e18);
        let a: Vec<(f64, f64)> = depths.iter().map(|&d| deep_first.sum_to(d)).collect();
        let mut b: Vec<(f64, f64)> = depths
            .iter()
            .rev()
            .map(|&d| shallow_first.sum_to(d))
            .collect();
        b.reverse();
        for ((x, y), d) in a.iter().zip(&b).zip(depths) {
            assert_eq!(x.0.to_bits(), y.0.to_bits(), "value at {d}");
            assert_eq!(x.1.to_bits(), y.1.to_bits(), "bound at {d}");
        }
    }

    #[test]
    fn em_matches_direct_sums() {
        for &(a, b, kappa, p) in &[
            (1.0, 1.0, 1.0, 0.5),
            (1.0, 1.0, 1.0, 0.05),
            (50.0, 3.0, 10.0, 0.3),
            (2.0, 0.0, 1.0, 1.5),
            (0.0, 4.0, 2.0, 0.025),
        ] {
            let t = term(a, b, kappa, p);
            let start = em_start(&t, 10.0, 1e-17);
            let end = 200_000.0;
            let region = EmRegion::new(t, start, end);
            for &stop in &[start as u64 + 1, start as u64 + 7, 1000, 54_321, 200_000] {
                let (v, e) = region.sum_to(stop as f64);
                let d = direct(&t, start as u64, stop);
                assert!(
                    (v - d).abs() <= e + 1e-13 * d.abs(),
                    "{a} {b} {kappa} {p} to {stop}: em {v} direct {d} bound {e}"
                );
                assert!(
                    e <= 1e-13 * d.abs().max(1.0),
                    "{a} {b} {kappa} {p} to {stop}: bound {e} too wide for {v}"
                );
            }
        }
    }
}
