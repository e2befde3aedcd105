//! The power-law engine: a_l = kappa l^-p (every family under sigma_l^2 = c l^q, and harmonic).
//! See the module docs of [`super`] for the route.

use super::finite_part::{self, Declined, InputsDd};
use super::{down, enclosure, up, RouteOptions, BEYOND_DEPTHS, K_MAX, TOL};
use crate::coefficients::{root_radius, ExactZeros, LogSeries};
use crate::decimal;
use crate::euler_maclaurin::{em_start, EmRegion, PowerTerm};
use crate::exact::{Dyadic, Exact};
use crate::sum::{small_product_error, Accumulator, LIBM_REL, U};
use crate::zeta::{em_corrections, em_main, em_min_start};
use crate::{AsymptoticTerm, Bounds, Divergence, Enclosure, Growth, GrowthClass};

/// The power-law engine (see the module docs).
#[derive(Debug, Clone)]
pub(super) struct PowerPlan {
    pub(super) term: PowerTerm,
    /// prefix[n] = sum_{l=1}^{n} g(l), n < l0: (value, error).
    pub(super) prefix: Vec<(f64, f64)>,
    pub(super) l0: u64,
    pub(super) em: Option<EmRegion>,
    /// Series start (integer-valued, may exceed 10^18).
    pub(super) m: f64,
    pub(super) k: usize,
    /// coef[k] = c_k kappa^k, with errors; s[k] = k p as computed, ds[k] its error bound.
    pub(super) coef: Vec<(f64, f64)>,
    pub(super) s: Vec<f64>,
    pub(super) ds: Vec<f64>,
    /// side[k] = sign of 1 - k p for the exact p (1: below the pole, 0: resonant, -1: above);
    /// gap[k] = 1 - k p correctly rounded from the exact value.
    pub(super) side: Vec<i32>,
    pub(super) gap: Vec<f64>,
    /// Upper bounds on the coefficients of -log(1 - A kappa x - B kappa^2 x^2) (see
    /// [`Self::input_error`]).
    pub(super) abs_coef: Vec<f64>,
    /// Relative distance of typed A, B from their doubles (0 when exact).
    pub(super) delta: f64,
    /// Z(s_k, M) with errors.
    pub(super) z_m: Vec<(f64, f64)>,
    /// [`s_error`] of each Z(s_k, M): the error from evaluating it at the computed s_k (0 when
    /// p is exact), computed once with the plan (it needs log M and M^-s_k, known there).
    pub(super) z_m_shift: Vec<f64>,
    /// suffix[k] = sum_{j>k} c_j kappa^j Z(s_j, M): (value, rounding error, sum |c_j kappa^j| ds_j |Z(s_j, M)|).
    pub(super) suffix: Vec<(f64, f64, f64)>,
    pub(super) rho_kappa: f64,
    /// Truncation bound of the k-series from M on.
    pub(super) trunc_m: f64,
    /// V = limit or C, with error.
    pub(super) infinity: (f64, f64),
    pub(super) divergent: bool,
    /// Leading terms and C, computed once (curves evaluate them at every point).
    pub(super) divergence: Option<Divergence>,
    /// head + middle over [1, M), computed once.
    pub(super) below_m: (f64, f64),
    /// Convergent products only (else empty): direct_tail[n] = sum_{l=n+1}^{l0-1} g(l), n < l0,
    /// summed from the far end so that a tail is never a difference of two sums that nearly
    /// cancel (see [`Self::tail`]).
    pub(super) direct_tail: Vec<(f64, f64)>,
    /// sum_{l>=l0} g(l) as the middle over [l0, M) plus the series from M on (convergent only).
    pub(super) beyond_l0: (f64, f64),
    pub(super) zero: bool,
    /// Beyond every double depth (M > 2^64, divergent): the merged constant C' = C + c_n/d_n and
    /// the classic C from the finite-part route ([`finite_part`], docs/MATH.md §4.8), or why that
    /// route declines.
    pub(super) far: Option<Result<FarConstant, Declined>>,
    /// [`RouteOptions::finite_part`].
    pub(super) force_finite_part: bool,
    /// [`RouteOptions::series_only`].
    pub(super) series_only: bool,
    /// A, B and kappa in double-double (see [`PowerPlan::new`]).
    pub(super) typed: Option<InputsDd>,
    /// The coefficients that vanish exactly for the exact inputs (see [`Self::v_coef`]).
    pub(super) zeros: ExactZeros,
}

/// The finite-part route's constants: `merged` is C + c_n/d_n (C itself when d_n = 0), `classic`
/// is C.
#[derive(Debug, Clone, Copy)]
pub(super) struct FarConstant {
    pub(super) n: usize,
    pub(super) merged: (f64, f64),
    pub(super) classic: (f64, f64),
    /// sum_i |w_i|^s, the size of the closed form's part (see [`finite_part::merged_constant`]).
    pub(super) scale: f64,
}

impl PowerPlan {
    /// `p_exact` is the exact p that `term.p` rounds: it decides, for every k, whether
    /// k p < 1, = 1 or > 1, and gives 1 - k p correctly rounded.
    /// `p_dyadic`, when given, is the same exact p in binary (q a double), which decides those
    /// faster ([`Dyadic::one_minus_multiple`]). `typed` is A, B and kappa in double-double from
    /// the exact inputs (for the finite part's terms, Lemma F4; `None`: not available).
    pub(super) fn new(
        term: PowerTerm,
        p_exact: &Exact,
        p_dyadic: Option<Dyadic>,
        typed: Option<InputsDd>,
        route: RouteOptions,
        delta: f64,
        zeros: ExactZeros,
    ) -> PowerPlan {
        let p = term.p;
        let zero = term.a == 0.0 && term.b == 0.0;
        let rho_kappa = root_radius(term.a, term.b) * term.kappa * (1.0 + 4.0 * U + term.kappa_rel);
        // Series start and length.
        let k_min = ((1.0 / p).floor() as usize + 1).max(2);
        let m_raw = if zero {
            1.0
        } else {
            (rho_kappa / route.theta).powf(1.0 / p).ceil()
        };
        // A convergent product's tails can be far below 1 (1e-17 at N = 32 for B = 0.01, q = 8),
        // and the tail plot holds them to the goal relative to themselves: there the cut at M is
        // taken below TOL g(M) (the tail from M is at least g(M)), not TOL. Convergent iff no
        // nonzero c_k has kp <= 1: c_1 = A, and with A = 0 only even k, c_2 = B (§4.5). The
        // choice only sets K: every cut's bound is added to the enclosures whatever K is.
        let convergent = if term.a != 0.0 {
            p > 1.0
        } else {
            2.0 * p > 1.0
        };
        let target = |m: f64| {
            if convergent && !zero {
                TOL * term.g(m).0.min(1.0)
            } else {
                TOL
            }
        };
        let mut k = k_min;
        let mut m = m_raw.max(em_min_start(k as f64 * p));
        loop {
            if m > BEYOND_DEPTHS {
                // No double depth reaches the series: it only gives the divergence's terms
                // (k p <= 1) and the finite-part route's n (the k nearest 1/p, or 1/(2p) among
                // even k when A = 0: at most k_min + 1), never a sum at M, so no truncation
                // bound has to be met (at q = 0.05 it would take k ~ 300 terms).
                k = k_min + 1;
                break;
            }
            // The smallest k' >= k whose truncation bound meets the target (K_MAX at most), by
            // bisection: the bound decreases in k (each of its log terms does once (k+1) p > 1 and
            // theta < 1; before that it is infinite). Small q needs k in the hundreds, and a scan
            // cost a bound (a powf, three logs and an exp) per k. Any k' found meets the target,
            // and the bound actually used is computed below for it.
            let meets = |k: usize| series_truncation(rho_kappa, p, m, k) <= target(m);
            if k < K_MAX && !meets(k) {
                let (mut lo, mut hi) = (k, K_MAX); // !meets(lo); hi meets or is K_MAX
                while hi - lo > 1 {
                    let mid = lo + (hi - lo) / 2;
                    if meets(mid) {
                        hi = mid;
                    } else {
                        lo = mid;
                    }
                }
                k = hi;
            }
            let m_needed = m_raw.max(em_min_start(k as f64 * p));
            if m_needed > m {
                m = m_needed;
                continue;
            }
            break;
        }
        let trunc_m = series_truncation(rho_kappa, p, m, k);
        // Head and middle.
        let (l0, em) = if m <= route.direct_max {
            (m as u64, None)
        } else {
            let start = em_start(&term, 8.0, TOL).min(m);
            // Beyond every finite depth the middle is only needed for the value at infinity,
            // which [`Self::value_at_infinity`] declares unresolvable there.
            let region = EmRegion::new(term, start, m.min(BEYOND_DEPTHS));
            (start as u64, Some(region))
        };
        // g(l) for l < l0, each with its bound: the prefix sums and (convergent products) the
        // direct tail are both made of them
        let head: Vec<(f64, f64)> = (1..l0).map(|l| term.g(l as f64)).collect();
        let mut prefix = Vec::with_capacity(l0 as usize);
        let mut acc = Accumulator::new();
        prefix.push((0.0, 0.0));
        for &(g, ge) in &head {
            acc.add_inlined(g, ge);
            prefix.push((acc.value(), acc.error()));
        }
        // Series coefficients c_k kappa^k and exponents.
        let series = LogSeries::new(term.a, term.b, k);
        let mut coef = vec![(0.0, 0.0); k + 1];
        let mut s = vec![0.0; k + 1];
        let mut ds = vec![0.0; k + 1];
        let mut side = vec![0i32; k + 1];
        let mut gap = vec![0.0; k + 1];
        let mut kappa_k = 1.0;
        // 1 - i p is decided in integers when p_exact is the double p itself (inputs given as
        // doubles) or a short decimal (typed text); otherwise by the exact decimal route.
        // (term.p_err is p_exact's distance to p)
        let p_is_double = term.p_err == 0.0;
        for i in 1..=k {
            kappa_k *= term.kappa;
            let kr = (i as f64) * (term.kappa_rel + U);
            let c = series.c[i] * kappa_k;
            coef[i] = (c, series.err[i] * kappa_k * (1.0 + kr) + c.abs() * (kr + U));
            let fi = i as f64;
            let fast = if p_is_double {
                one_minus_multiple(p, i as u64)
            } else if let Some(d) = p_dyadic {
                d.one_minus_multiple(i as u64)
            } else {
                p_exact.one_minus_multiple(i as u64)
            };
            (side[i], gap[i]) = match fast {
                Some(exact) => exact,
                None => {
                    let gap_exact = Exact::int(1).sub(&p_exact.mul_int(i as i64));
                    (gap_exact.signum(), gap_exact.to_f64())
                }
            };
            if side[i] == 0 {
                // exact resonance k p = 1 (e.g. a typed q = 0.4 at k = 5): s is exactly 1
                s[i] = 1.0;
                ds[i] = 0.0;
            } else {
                s[i] = fi * p;
                ds[i] = small_product_error(fi, p).abs() + fi * term.p_err;
            }
        }
        // ~c_k kappa^k, upper bounds on the coefficients of -log(1 - A kappa x - B kappa^2 x^2)
        let abs_series = LogSeries::new(-term.a, -term.b, k);
        let mut abs_coef = vec![0.0; k + 1];
        let mut kappa_k_up = 1.0;
        for i in 1..=k {
            kappa_k_up *= term.kappa * (1.0 + term.kappa_rel + 2.0 * U);
            abs_coef[i] = (-abs_series.c[i] + abs_series.err[i]) * kappa_k_up * (1.0 + 2.0 * U);
        }
        let mut z_m = vec![(0.0, 0.0); k + 1];
        let mut z_m_shift = vec![0.0; k + 1];
        let ln_m = m.ln();
        // M^-s_k as (M^-p)^k: one powf instead of k. (M^-p)^k is within LIBM_REL + u per factor,
        // 3 k u, of M^-(k p) for the real product k p, which is |s_k - k p| from s_k = fl(k p):
        // a relative M^(|s_k - k p|) - 1 <= 1.01 |s_k - k p| log M more. Far below 1 (where a
        // subnormal would lose the relative bound) powf itself is used.
        let m_pow_p = m.powf(-p);
        let mut m_pow_kp = 1.0;
        for i in 1..=k {
            m_pow_kp *= m_pow_p;
            if (coef[i].0 != 0.0 || coef[i].1 != 0.0) && m <= BEYOND_DEPTHS {
                let (x, x_rel) = if m_pow_kp >= 1e-280 {
                    // |s_k - k p| <= |fl(k p) - s_k| + |k p - fl(k p)|: the first is 0, or exact
                    // by Sterbenz at an exact resonance (s_k = 1, fl(k p) within [1/2, 2])
                    let fi = i as f64;
                    let off = (fi * p - s[i]).abs() + small_product_error(fi, p).abs();
                    let shift = off * ln_m * 1.01;
                    (m_pow_kp, 3.0 * i as f64 * U + shift)
                } else {
                    (m.powf(-s[i]), 3.0 * U)
                };
                z_m[i] = z_at(s[i], -gap[i], m, x, x_rel);
                z_m_shift[i] = s_error_at(s[i], -gap[i], ds[i], m, ln_m, x, z_m[i].0);
            }
        }
        // decided on the exact exponents: k p <= 1 for a nonzero c_k
        let divergent =
            !zero && (1..=k).any(|i| side[i] >= 0 && coef[i].0 != 0.0 && !zeros.vanishes(i));
        let suffix = suffix_sums(&coef, &z_m, &ds);
        let mut plan = PowerPlan {
            term,
            prefix,
            l0,
            em,
            m,
            k,
            coef,
            s,
            ds,
            side,
            gap,
            abs_coef,
            delta,
            suffix,
            z_m,
            z_m_shift,
            rho_kappa,
            trunc_m,
            infinity: (0.0, 0.0),
            divergent,
            divergence: None,
            below_m: (0.0, 0.0),
            direct_tail: Vec::new(),
            beyond_l0: (0.0, 0.0),
            zero,
            far: None,
            force_finite_part: route.finite_part,
            series_only: route.series_only,
            typed,
            zeros,
        };
        plan.below_m = plan.compute_below_m();
        // the finite-part route bounds the typed inputs' effect itself (finite_part, Lemma F3);
        // the series route's V moves by at most `input_error`
        plan.far = plan.far_constant();
        plan.infinity = plan.value_at_infinity();
        if plan.far.is_none() && delta > 0.0 {
            plan.infinity.1 += plan.input_error(delta);
        }
        if !plan.divergent && !plan.zero && plan.m <= BEYOND_DEPTHS {
            plan.direct_tail = direct_tail(&head, plan.l0 as usize);
            plan.beyond_l0 = plan.compute_beyond_l0();
        }
        plan.prefer_finite_part();
        plan.divergence = plan.compute_divergence();
        plan
    }

    /// Where the series route leaves the constant of a divergent product wider than the 1e-12
    /// goal (or unresolved), takes the finite-part route's instead when it applies and is
    /// narrower (near-resonant 1/p: the series route's W_k and Z(kp, M) carry the rounding of
    /// partial sums up to M, which grow like M^(1-kp)).
    /// Called before the divergence is built: the series route's constant is judged by
    /// [`Self::shown_infinity`], which is what the divergence would show.
    fn prefer_finite_part(&mut self) {
        if self.far.is_some() || !self.divergent || self.series_only {
            return;
        }
        let width =
            |ve: (f64, f64)| shown_constant(ve).map_or(f64::INFINITY, |c| c.relative_width());
        let series = width(self.shown_infinity());
        if series <= 1e-12 {
            return;
        }
        self.force_finite_part = true;
        let far = self.far_constant();
        if let Some(Ok(f)) = far {
            if width(f.merged) < series {
                self.far = far;
                self.infinity = self.value_at_infinity();
                return;
            }
        }
        self.force_finite_part = false;
    }

    /// head + middle over [1, M).
    fn compute_below_m(&self) -> (f64, f64) {
        if self.m > BEYOND_DEPTHS {
            // never needed: no finite depth reaches the series, and V is unresolvable there
            return (0.0, f64::INFINITY);
        }
        let (h, he) = self.prefix[self.l0 as usize - 1];
        match &self.em {
            Some(em) => {
                let (v, e) = em.sum_to(self.m);
                (h + v, he + e + U * (h + v).abs())
            }
            None => (h, he),
        }
    }

    fn value_at_infinity(&self) -> (f64, f64) {
        if self.zero {
            return (0.0, 0.0);
        }
        if self.m > BEYOND_DEPTHS || self.far.is_some() {
            // The partial sums up to M exceed 1e16 in size here, so their rounding alone
            // (>= 1 in absolute terms) would swamp any constant C: the finite-part route gives
            // it, or it is reported as unresolvable.
            return match self.far {
                Some(Ok(f)) => f.classic,
                _ => (0.0, f64::INFINITY),
            };
        }
        let mut acc = Accumulator::new();
        let (v, e) = self.below_m;
        acc.add(v, e);
        self.add_series_at_m(&mut acc, true);
        (acc.value(), acc.error() + self.trunc_m)
    }

    /// c_k kappa^k as the value at infinity (the limit or C) and the divergence's terms take it:
    /// exactly 0 where the exact coefficient vanishes (Lemma Z, [`ExactZeros`]). The doubles'
    /// coefficient there is a rounding-sized number whose error bound, over |1 - k p| beside a
    /// pole, would swamp C; the value for the exact inputs has no such term, and
    /// [`Self::input_error`] leaves it out accordingly (the other terms' distances to the exact
    /// ones are what it bounds). The sums at finite N keep the doubles' coefficients: there each
    /// term is a difference Z(kp, M) - Z(kp, N+1) formed without the pole, and the typed inputs'
    /// effect is bounded as a whole (`Plan::sum_input_rel`).
    pub(super) fn v_coef(&self, i: usize) -> (f64, f64) {
        if self.zeros.vanishes(i) {
            (0.0, 0.0)
        } else {
            self.coef[i]
        }
    }

    /// Adds sum_k c_k kappa^k Z(kp, M), each term with its error (Lemma 6 and the exponent
    /// error of [`s_error`]); the caller adds the k-series truncation `trunc_m`. `at_infinity`:
    /// the value at infinity's coefficients ([`Self::v_coef`]); else the doubles' (a tail).
    fn add_series_at_m(&self, acc: &mut Accumulator, at_infinity: bool) {
        for i in 1..=self.k {
            let (c, ce) = if at_infinity {
                self.v_coef(i)
            } else {
                self.coef[i]
            };
            let (z, ze) = self.z_m[i];
            let ze = ze + self.z_m_shift[i];
            let t = c * z;
            acc.add(t, ce * z.abs() + c.abs() * ze + U * t.abs());
        }
    }

    /// sum_{l>=l0} g(l) = middle over [l0, M) (Euler-Maclaurin, when there is one) + the series
    /// from M on + its truncation bound: all parts of one convergent sum of positive terms.
    fn compute_beyond_l0(&self) -> (f64, f64) {
        let mut acc = Accumulator::new();
        if let Some(em) = &self.em {
            let (v, e) = em.sum_to(self.m);
            acc.add(v, e);
        }
        self.add_series_at_m(&mut acc, false);
        (acc.value(), acc.error() + self.trunc_m)
    }

    /// The finite-part route for a divergent product whose series start M is beyond every double
    /// depth (or forced): n is the integer nearest 1/p (1/(2p) when A = 0; a log-like term
    /// c_n (N^d - 1)/d when d = 1 - np is within 1e-3 of 0): see [`finite_part`].
    fn far_constant(&self) -> Option<Result<FarConstant, Declined>> {
        if (self.m <= BEYOND_DEPTHS && !self.force_finite_part) || !self.divergent || self.zero {
            return None;
        }
        // L0 is the Euler-Maclaurin start of the middle region (M > direct_max), or, where the
        // head is summed directly up to M (forced: a series constant wider than the goal), the
        // same start within it, whose three pieces are all the route needs
        let (l0, start) = match &self.em {
            Some(em) => (self.l0, em.start_pieces()),
            None => {
                let l0 = em_start(&self.term, 8.0, TOL).min(self.m);
                let pieces = (
                    self.term.g(l0),
                    self.term.endpoint_correction(l0),
                    self.term.remainder_bound(l0),
                );
                (l0 as u64, pieces)
            }
        };
        // the series term nearest the pole: |1 - n p| smallest among nonzero coefficients
        let n = (1..=self.k)
            .filter(|&i| self.v_coef(i).0 != 0.0)
            .min_by(|&i, &j| self.gap[i].abs().total_cmp(&self.gap[j].abs()))?;
        let d = if self.side[n] == 0 { 0.0 } else { self.gap[n] };
        // the constant shown with a log-like term is C + c_n/d_n; otherwise C (= C' at d = 0)
        let merged = d.abs() < NEAR_POLE;
        let inputs = finite_part::Inputs {
            term: &self.term,
            head: self.prefix[l0 as usize - 1],
            l0: l0 as f64,
            start,
            n,
            d,
            delta: self.delta,
            merged,
            typed: self.typed,
            panels: self.em.as_ref().map(EmRegion::whole_panels),
        };
        Some(finite_part::merged_constant(&inputs).map(|(v, e, scale)| {
            let value = (v, e);
            // C = C' - c_n/d_n: c_n carries its error ce, d_n is correctly rounded (u), the
            // division u, the difference u
            let classic = if d == 0.0 || !merged {
                value
            } else {
                let (c, ce) = self.v_coef(n);
                let moved = grow(n, self.delta) * self.abs_coef[n];
                let q = c / d;
                let qe = ((ce + moved) / d.abs() + 2.0 * U * q.abs()) * (1.0 + 4.0 * U);
                let v = value.0 - q;
                (v, value.1 + qe + U * v.abs())
            };
            FarConstant {
                n,
                merged: value,
                classic,
                scale,
            }
        }))
    }

    /// Why the shown V (the limit, or the divergence's constant: C' = C + c/d beside a log-like
    /// term, C otherwise) is not certified, in words; `None` when it is. This is what
    /// [`crate::Plan::unresolved`] reports: the quantity a reader sees, not the classic C that
    /// [`Self::growth`] also gives (near a pole, C = C' - c/d is dominated by c/d, and c's rounding
    /// divided by a tiny d can swamp it while C' is certified to every digit).
    pub(super) fn infinity_reason(&self) -> Option<String> {
        self.reason_for(self.shown_infinity())
    }

    /// The constant the divergence shows (see [`Self::compute_divergence`]), or the limit.
    fn shown_infinity(&self) -> (f64, f64) {
        if self.divergent && (1..=self.k).any(|i| self.log_like(i)) {
            self.merged_constant()
        } else {
            self.infinity
        }
    }

    /// Why `(v, e)`, V or a constant with its error bound, is not certified; `None` when it is.
    fn reason_for(&self, (v, e): (f64, f64)) -> Option<String> {
        let what = if self.divergent {
            "the constant C"
        } else {
            "the limit"
        };
        if let Some(Err(why)) = self.far {
            let detail = match why {
                Declined::OutOfRange => "the finite-part route that replaces them cannot take these parameters (the roots' powers w^(1/p) overflow)",
            };
            return Some(format!(
                "{what} is not resolvable in double precision: the partial sums that must cancel in it exceed 10^16, and {detail}"
            ));
        }
        if self.m > BEYOND_DEPTHS && self.far.is_none() {
            return Some(format!(
                "{what} is not resolvable in double precision: the partial sums that must cancel in it exceed 10^16, so their rounding alone is larger than {what}"
            ));
        }
        if !e.is_finite() {
            let k = (1..=self.k)
                .find(|&i| self.side[i] != 0 && self.s[i] == 1.0)
                .unwrap_or(1);
            return Some(format!(
                "{what} is not resolvable in double precision: 1 - {k}p = {} is closer to 0 than double precision resolves near the pole of the zeta function",
                decimal::scientific(self.gap[k])
            ));
        }
        if self.divergent && (!v.is_finite() || e > v.abs().max(1.0)) {
            return Some(format!(
                "{what} is not resolvable in double precision: its rounding error bound {} exceeds its size",
                decimal::scientific_to(e, 1)
            ));
        }
        None
    }

    /// Bound on how much V (the limit or C) moves when A and B move by relative amounts at most
    /// `delta` (typed decimals that are not doubles; kappa's are already in `term.kappa_rel`).
    ///
    /// V = below_m + sum_k c_k kappa^k Z(kp, M). below_m is a sum of g(l) > 0 and
    /// A dg/dA, B dg/dB <= g (y/(1+y) <= log(1+y)), so it moves by at most
    /// ((1+delta)^2 - 1) below_m. c_k is a sum of monomials A^(k-2j) B^j with coefficients whose
    /// absolute values sum to ~c_k, the coefficient of x^k in -log(1 - A x - B x^2) (log(1+w)
    /// and -log(1-w) have the same coefficients up to sign, and w = A x + B x^2 has positive
    /// ones); each monomial moves by at most (1+delta)^k - 1.
    pub(super) fn input_error(&self, delta: f64) -> f64 {
        if delta == 0.0 || self.zero {
            return 0.0;
        }
        let mut err = grow(2, delta) * self.below_m.0.abs();
        for i in 1..=self.k {
            if self.zeros.vanishes(i) {
                // 0 for the exact inputs and 0 as computed (Self::v_coef)
                continue;
            }
            let (z, ze) = self.z_m[i];
            err += grow(i, delta) * self.abs_coef[i] * (z.abs() + ze);
        }
        err * (1.0 + 4.0 * U)
    }

    /// The growth class with its certified numbers (see [`crate::Growth`]).
    pub(super) fn growth(&self) -> Growth {
        // The classic C (V itself), judged on its own: beside a log-like term it can be
        // unresolvable while the shown C' is certified, and the reason then says so.
        let reason = self.reason_for(self.infinity).map(|why| {
            match (1..=self.k).find(|&i| self.log_like(i)) {
                Some(i) if self.infinity_reason().is_none() => format!(
                    "{why} (C = C' - c/d with d = 1 - {i}p = {}; C', the constant that goes with the log-like term, is certified)",
                    decimal::scientific(self.gap[i])
                ),
                _ => why,
            }
        });
        if !self.divergent {
            let (v, e) = self.infinity;
            return Growth {
                class: GrowthClass::Convergent,
                exponent: None,
                coefficient: None,
                log_coefficient: None,
                constant: reason.is_none().then(|| enclosure(v, e)),
                reason,
            };
        }
        // The classic C of sum c_k N^(1-kp)/(1-kp) + C (the coefficient below is c/d), not the
        // constant of the log-like form the divergence's terms use.
        let constant = {
            let (v, e) = self.infinity;
            (v.is_finite() && e.is_finite() && e <= v.abs().max(1.0)).then(|| enclosure(v, e))
        };
        // Leading term: the first nonzero c_k with k p < 1 (1 - k p decreases with k).
        let leading = (1..=self.k).find(|&i| self.v_coef(i).0 != 0.0 && self.side[i] > 0);
        let log_term = (1..=self.k).find(|&i| self.v_coef(i).0 != 0.0 && self.side[i] == 0);
        let log_coefficient = log_term.map(|i| {
            let (c, ce) = self.v_coef(i);
            enclosure(c, ce + grow(i, self.delta) * self.abs_coef[i])
        });
        match leading {
            Some(i) => {
                let (c, ce) = self.v_coef(i);
                let g = self.gap[i];
                // g is 1 - k p correctly rounded (relative error <= u); c / g rounds once more.
                let value = c / g;
                let moved = grow(i, self.delta) * self.abs_coef[i];
                let radius = (ce + moved + 3.0 * U * c.abs()) / (g.abs() * (1.0 - U));
                Growth {
                    class: GrowthClass::StretchedExponential,
                    exponent: Some(Enclosure::with_radius(g, U * g.abs())),
                    coefficient: Some(enclosure(value, radius)),
                    log_coefficient,
                    constant,
                    reason,
                }
            }
            None => Growth {
                class: GrowthClass::Power,
                exponent: log_coefficient,
                coefficient: None,
                log_coefficient,
                constant,
                reason,
            },
        }
    }

    pub(super) fn divergence(&self) -> Option<Divergence> {
        self.divergence.clone()
    }

    /// Whether series term `i` is shown as a log-like term `c (N^d - 1)/d` (d = 1 - k p, docs/MATH.md
    /// §6.6): a divergent product, a nonzero coefficient, and k p near 1 but not equal to it.
    pub(super) fn log_like(&self, i: usize) -> bool {
        self.divergent
            && self.v_coef(i).0 != 0.0
            && self.side[i] != 0
            && self.gap[i].abs() < NEAR_POLE
            && (self.m <= BEYOND_DEPTHS || matches!(self.far, Some(Ok(f)) if f.n == i))
    }

    fn compute_divergence(&self) -> Option<Divergence> {
        if !self.divergent {
            return None;
        }
        let mut terms = Vec::new();
        for i in 1..=self.k {
            let (c, _) = self.v_coef(i);
            if self.log_like(i) {
                terms.push(AsymptoticTerm {
                    coefficient: c,
                    exponent: self.gap[i],
                    log: false,
                    log_like: true,
                });
                continue;
            }
            if c == 0.0 || self.side[i] < 0 {
                continue;
            }
            if self.side[i] == 0 {
                terms.push(AsymptoticTerm {
                    coefficient: c,
                    exponent: 0.0,
                    log: true,
                    log_like: false,
                });
            } else {
                let e = self.gap[i];
                terms.push(AsymptoticTerm {
                    coefficient: c / e,
                    exponent: e,
                    log: false,
                    log_like: false,
                });
            }
        }
        Some(Divergence {
            terms,
            constant: shown_constant(self.shown_infinity()),
        })
    }

    /// The constant that goes with the log-like terms: C + sum c_k / d_k over the log-like k
    /// (docs/MATH.md §6.6), i.e. V with each log-like Z(kp, M) replaced by
    /// W_k = Z(kp, M) + 1/d_k (see [`pole_free_z`]); error as in [`Self::value_at_infinity`]
    /// plus [`Self::input_error`] with W in place of Z.
    fn merged_constant(&self) -> (f64, f64) {
        if let Some(Ok(f)) = self.far {
            return f.merged;
        }
        let mut acc = Accumulator::new();
        let (v, e) = self.below_m;
        acc.add(v, e);
        let mut moved = grow(2, self.delta) * v.abs();
        for i in 1..=self.k {
            let (c, ce) = self.v_coef(i);
            let (z, ze) = if self.log_like(i) {
                pole_free_z(self.s[i], self.gap[i], self.ds[i], self.m)
            } else {
                let (z, ze) = self.z_m[i];
                (z, ze + self.z_m_shift[i])
            };
            let t = c * z;
            acc.add(t, ce * z.abs() + c.abs() * ze + U * t.abs());
            if self.delta != 0.0 && !self.zeros.vanishes(i) {
                moved += grow(i, self.delta) * self.abs_coef[i] * (z.abs() + ze);
            }
        }
        (
            acc.value(),
            acc.error() + self.trunc_m + moved * (1.0 + 4.0 * U),
        )
    }

    /// sum_{l=1}^{n} g(l) with error bound.
    pub(super) fn sum(&self, n: u64) -> (f64, f64) {
        if self.zero {
            return (0.0, 0.0);
        }
        if n < self.l0 {
            return self.prefix[n as usize];
        }
        // b = n + 1 as f64; the computed value is sum_{l=1}^{b-1} g(l).
        let b = (n + 1) as f64;
        let (value, err) = if b <= self.m {
            let (h, he) = self.prefix[self.l0 as usize - 1];
            let em = self.em.as_ref().expect("l0 < m implies a middle region");
            let (v, e) = em.sum_to(b);
            (h + v, he + e + U * (h + v).abs())
        } else {
            let mut acc = Accumulator::new();
            let (v, e) = self.below_m;
            acc.add(v, e);
            let ln_b = b.ln();
            // Only the first k_b terms need Z(kp, b); beyond, Z(kp, b) is bounded by the
            // truncation formula at b and the Z(kp, M) parts come precomputed (suffix sums).
            let (k_b, cut_b) = self.each_term_at(b, |i, xk, rel| {
                let (c, ce) = self.coef[i];
                let (zm, zme) = self.z_m[i];
                let (d, de) = if self.gap[i].abs() < DIFFERENCE_NEAR_POLE {
                    // near k p = 1 both Z's are ~1/|1 - kp|: difference them analytically
                    self.z_difference(i, b, ln_b, xk, rel)
                } else {
                    let (zb, zbe) = z_at(self.s[i], -self.gap[i], b, xk, rel);
                    (zm - zb, zme + zbe + U * (zm - zb).abs())
                };
                // 1.01: a relative 1% over the first-order bound ds |d/ds (Z(s,M) - Z(s,b))|
                // <= ds log b |difference| covers its second-order terms (ds log b < 1e-10)
                let de = de + self.ds[i] * ln_b * d.abs() * 1.01;
                let t = c * d;
                acc.add(t, ce * d.abs() + c.abs() * de + U * t.abs());
            });
            let (rest, rest_err, rest_ds) = self.suffix[k_b];
            // 1.01: as above, second-order terms of ds log b (< 1e-10) on the suffix sums
            acc.add(rest, rest_err + rest_ds * ln_b * 1.01);
            let trunc_b = if k_b < self.k { cut_b } else { 0.0 };
            (acc.value(), acc.error() + self.trunc_m + trunc_b)
        };
        (value, err + self.depth_rounding(n, b))
    }

    /// Z(s_k, M) - Z(s_k, b) for b >= M when k p is near 1, without the cancellation of two
    /// terms of size 1/|1 - kp|: with e = 1 - kp (correctly rounded from the exact p) the main
    /// parts differ by (b^e - M^e)/e = M^e expm1(e log(b/M))/e (log(b/M) at e = 0), and the
    /// Euler-Maclaurin corrections are differenced directly (they are O(M^-kp), small).
    ///
    /// Error of the main part (relative): M^e = exp(e log M) with |e log M| <= 1e-2 * 44.4 < 1
    /// here (|e| < [`DIFFERENCE_NEAR_POLE`], M <= 2^64), so the argument's relative 3u (log's
    /// LIBM_REL, the product's u) is at most 3u absolute, plus LIBM_REL for exp;
    /// log(b/M) = ln_1p((b - M)/M): 2u for the quotient and LIBM_REL; t = e log(b/M) one u more
    /// and e's own u; expm1 passes t's relative error through with condition number
    /// t e^t / expm1(t) <= 1 + |t| <= 2 (|t| <= 1e-2 * 42: b <= 10^18 + 1), and adds LIBM_REL; the
    /// division and product 2u.
    fn z_difference(&self, i: usize, b: f64, ln_b: f64, xk: f64, rel: f64) -> (f64, f64) {
        let e = self.gap[i];
        let m = self.m;
        let ln_ratio = ((b - m) / m).ln_1p();
        let main = if e == 0.0 {
            ln_ratio
        } else {
            (e * m.ln()).exp() * (e * ln_ratio).exp_m1() / e
        };
        let t_rel = 5.0 * U + LIBM_REL;
        let main_err =
            main.abs() * ((LIBM_REL + 3.0 * U) + 2.0 * t_rel + LIBM_REL + 2.0 * U) * (1.0 + 1e-6);
        let s = self.s[i];
        let x_m = m.powf(-s);
        let (corr_m, corr_m_err) = em_corrections(s, m, x_m, 3.0 * U);
        let (corr_b, corr_b_err) = em_corrections(s, b, xk, rel);
        let _ = ln_b;
        let v = main + corr_m - corr_b;
        (v, main_err + corr_m_err + corr_b_err + 2.0 * U * v.abs())
    }

    /// Calls `f(k, b^-kp, its relative error)` for every series term that needs Z(kp, b) at
    /// b >= M (see [`Self::series_cut`]) and has a nonzero coefficient. Returns (k_b, the bound on
    /// the omitted sum_{k>k_b} |c_k kappa^k| Z(kp, b)). Once b^-kp underflows, Z(kp, b) is 0 to
    /// within 1e-300, which `z_at` returns with that error.
    fn each_term_at(&self, b: f64, f: impl FnMut(usize, f64, f64)) -> (usize, f64) {
        self.each_term_to(b, TOL, f)
    }

    /// [`Self::each_term_at`] with the truncation cut at `target` instead of the absolute `TOL`
    /// (the tail, which can be far below 1, asks for a target relative to its own size).
    fn each_term_to(
        &self,
        b: f64,
        target: f64,
        mut f: impl FnMut(usize, f64, f64),
    ) -> (usize, f64) {
        let (x_b, ln_b) = (b.powf(-self.term.p), b.ln());
        let x_rel = 3.0 * U + self.term.p_err * ln_b;
        let (k_b, cut) = self.series_cut(x_b, ln_b, target);
        let mut xk = 1.0;
        for i in 1..=k_b {
            xk *= x_b;
            let (c, ce) = self.coef[i];
            if c != 0.0 || ce != 0.0 {
                f(i, xk, i as f64 * (x_rel + U));
            }
        }
        (k_b, cut)
    }

    /// How many series terms need Z(kp, b) at b >= M, given x_b = b^-p and ln_b = log b: all with
    /// kp <= 1, then until the bound on sum_{k>k_b} |c_k kappa^k| Z(kp, b) is below the target.
    /// Returns (k_b, that bound).
    ///
    /// For k >= k0 = floor(1/p) the bound of [`series_truncation`] at b is at most
    /// exp(c0 + log b + (k+1) log theta_b) with c0 = log(2/(k0+1)) + log(1 + 1/((k0+1)p - 1)),
    /// using 1 + b/x <= b (1 + 1/x) for b >= 1 and -log(1 - theta) <= 2 theta for theta <= 1/2;
    /// solving for k costs no transcendental call beyond those the caller already made.
    fn series_cut(&self, x_b: f64, ln_b: f64, target: f64) -> (usize, f64) {
        let p = self.term.p;
        let k0 = ((1.0 / p).floor() as usize).clamp(1, self.k);
        let k0p = (k0 + 1) as f64 * p - 1.0;
        // (1 + 1e-12): x_b's error (powf one ulp plus p_err log b < 1e-13) and the product's u
        let theta = self.rho_kappa * x_b * (1.0 + 1e-12);
        if theta > 0.5 || k0p <= 0.0 || theta == 0.0 {
            let b = ln_b.exp();
            return (self.k, series_truncation(self.rho_kappa, p, b, self.k));
        }
        let ln_theta = self.rho_kappa.ln() - p * ln_b + 1e-12;
        let c0 = (2.0 / (k0 + 1) as f64).ln() + (1.0 / k0p).ln_1p() + ln_b + 2.0 * theta;
        let needed = ((target.ln() - c0) / ln_theta).ceil() - 1.0;
        let k_b = (needed.max(k0 as f64) as usize).min(self.k);
        (
            k_b,
            // (1 + 1e-10): the exponent (|.| < 1e4) carries < 1e-11 absolute error (ln, ln_1p one
            // ulp each, the +1e-12 in ln_theta already covers theta's), exp one ulp more
            (c0 + (k_b + 1) as f64 * ln_theta).exp() * (1.0 + 1e-10),
        )
    }

    /// Error from evaluating at b = fl(n + 1) instead of n + 1 (only for n > 2^53).
    fn depth_rounding(&self, n: u64, b: f64) -> f64 {
        let bi = b as u64;
        let count = bi.abs_diff(n + 1);
        if count == 0 {
            return 0.0;
        }
        let low = (n.min(bi) - count) as f64;
        // each of the `count` (< 2^11, the spacing of doubles near 10^18) misplaced terms is at most
        // g(low) (g decreases); 1.01 covers g's own evaluation error (a few ulps) with room
        count as f64 * self.term.g(low).0 * 1.01
    }

    /// Bounds on sum_{l>n} g(l) (convergent products only).
    pub(super) fn tail(&self, n: u64) -> Option<Bounds> {
        if self.divergent {
            return None;
        }
        if self.zero {
            return Some(Bounds { lo: 0.0, hi: 0.0 });
        }
        let b = (n + 1) as f64;
        let (v, e) = if b >= self.m {
            let mut acc = Accumulator::new();
            // The tail is at least its first term g(n + 1) > 0, so a truncation below TOL g(n + 1)
            // is below 2^-60 of the tail, however small the tail (an absolute TOL alone left the
            // tail of a q = 8 product at N = 400 with a relative width of 3e-10). Any target
            // keeps the enclosure valid: the cut is bounded, whatever its size.
            let target = TOL * self.term.g(b).0.min(1.0);
            let (_, cut_b) = self.each_term_to(b, target, |i, xk, rel| {
                let (c, ce) = self.coef[i];
                let (z, ze) = z_at(self.s[i], -self.gap[i], b, xk, rel);
                let ze = ze + self.ds[i] * s_derivative_bound(self.s[i], -self.gap[i], b, z);
                let t = c * z;
                acc.add(t, ce * z.abs() + c.abs() * ze + U * t.abs());
            });
            let trunc = cut_b;
            (acc.value(), acc.error() + trunc + self.depth_rounding(n, b))
        } else if (n as usize) < self.direct_tail.len() {
            // sum_{l=n+1}^{l0-1} g(l) + sum_{l>=l0} g(l): no difference of the limit and a sum
            // that nearly cancels it (the tail at N = 10 of a q = 8 product is 1e-4 of them)
            let (d, de) = self.direct_tail[n as usize];
            let (r, re) = self.beyond_l0;
            (d + r, de + re + U * (d + r))
        } else {
            let (s, se) = self.sum(n);
            let (l, le) = self.infinity;
            (l - s, se + le + U * (l - s).abs())
        };
        Some(Bounds {
            lo: down(v - e).max(0.0),
            hi: up(v + e),
        })
    }

    /// Sum of the leading terms at n.
    pub(super) fn leading(&self, n: f64) -> f64 {
        self.divergence.as_ref().map_or(0.0, |d| d.leading(n))
    }

    /// Leading terms plus C (or the leading terms alone when C is not resolvable).
    pub(super) fn asymptote(&self, n: f64) -> f64 {
        self.leading(n)
            + self
                .divergence
                .as_ref()
                .and_then(|d| d.constant)
                .map_or(0.0, |c| c.value)
    }

    /// log P_n minus its leading terms (central value; divergent products).
    pub(super) fn remainder(&self, n: u64) -> f64 {
        let b = (n + 1) as f64;
        if b < self.m {
            return self.sum(n).0 - self.leading(n as f64);
        }
        // V - sum_k coef_k E_k(n), E_k = Z(s_k, n+1) + leading part, computed without cancellation.
        // With log-like terms the constant is C + sum c_k/d_k and each log-like E_k takes the
        // kp < 1 form whatever the side of the pole (docs/MATH.md §6.6).
        let nf = n as f64;
        let mut acc = Accumulator::new();
        let start = self
            .divergence
            .as_ref()
            .and_then(|d| d.constant)
            .map_or(self.infinity.0, |c| c.value);
        acc.add(start, 0.0);
        self.each_term_at(b, |i, xk, _| {
            let (c, s) = (self.v_coef(i).0, self.s[i]);
            let (corr, _) = em_corrections(s, b, xk, 0.0);
            let one_minus_s = self.gap[i];
            let gap = if self.side[i] == 0 {
                -(1.0 / nf).ln_1p()
            } else if self.side[i] > 0 || self.log_like(i) {
                // [n^(1-s) - (n+1)^(1-s)]/(1-s)
                -nf.powf(one_minus_s) * (one_minus_s * (1.0 / nf).ln_1p()).exp_m1() / one_minus_s
            } else {
                em_main(-self.gap[i], b, xk, 0.0).0
            };
            acc.add(-c * (gap + corr), 0.0);
        });
        acc.value()
    }
}

/// |1 - kp| below which a divergent product shows term k as log-like (see
/// [`PowerPlan::log_like`]) and the finite-part route merges it.
const NEAR_POLE: f64 = 1e-3;

/// |1 - kp| below which [`PowerPlan::z_difference`] replaces Z(s, M) - Z(s, b): there the two
/// Z's are >= 1/|1 - kp| >= 100 and their difference loses two digits or more. (At 1e-3 a
/// sqrt-scaled product with q = 1.002, 1 - p = -0.0010006, lost three: relative width 1.4e-12 at
/// N = 47, found by the property test at 2,000 cases.) z_difference's bound holds for
/// |1 - kp| log M <= 1 and |1 - kp| log(b/M) <= 1, so up to 1/44.4 for every M <= 2^64.
const DIFFERENCE_NEAR_POLE: f64 = 1e-2;

/// A divergence's constant as shown: its enclosure, unless it is not finite or wider than its
/// own size (or 1).
fn shown_constant((v, e): (f64, f64)) -> Option<Enclosure> {
    (v.is_finite() && e.is_finite() && e <= v.abs().max(1.0)).then(|| enclosure(v, e))
}

/// (1 + delta)^k - 1 <= k delta (1 + k delta) for k delta <= 1, rounded up (x (1+x) >= e^x - 1).
pub(super) fn grow(k: usize, delta: f64) -> f64 {
    let x = k as f64 * delta * (1.0 + 2.0 * U);
    if x > 1.0 {
        f64::INFINITY
    } else {
        x * (1.0 + x) * (1.0 + 2.0 * U)
    }
}

/// direct_tail[n] = sum_{l=n+1}^{l0-1} g(l) for n < l0, accumulated from l = l0 - 1 down:
/// every partial sum is a sum of the same positive terms g(l) > 0 (A, B >= 0), so each
/// entry's error bound (the accumulator's running bound plus the terms' own) is relative to
/// the entry itself, however small the tail. `head[l - 1]` = (g(l), its bound) for l < l0.
fn direct_tail(head: &[(f64, f64)], l0: usize) -> Vec<(f64, f64)> {
    let mut out = vec![(0.0, 0.0); l0];
    let mut acc = Accumulator::new();
    for n in (0..l0.saturating_sub(1)).rev() {
        let (g, ge) = head[n];
        acc.add(g, ge);
        out[n] = (acc.value(), acc.error());
    }
    out
}

/// suffix[k] = sum_{j>k} coef_j Z_j(M) with its rounding error and exponent-error weight.
fn suffix_sums(coef: &[(f64, f64)], z_m: &[(f64, f64)], ds: &[f64]) -> Vec<(f64, f64, f64)> {
    let k = coef.len() - 1;
    let mut out = vec![(0.0, 0.0, 0.0); k + 1];
    let mut acc = Accumulator::new();
    let mut ds_weight = 0.0;
    for j in (1..=k).rev() {
        out[j] = (acc.value(), acc.error(), ds_weight);
        let ((c, ce), (z, ze)) = (coef[j], z_m[j]);
        let t = c * z;
        acc.add(t, ce * z.abs() + c.abs() * ze + U * t.abs());
        ds_weight += c.abs() * ds[j] * z.abs();
    }
    out[0] = (acc.value(), acc.error(), ds_weight);
    out
}

/// Z(s, a) at a large a with a^-s = `x` known (relative error `x_rel`) and d = s - 1 correctly
/// rounded from the exact exponent.
fn z_at(s: f64, d: f64, a: f64, x: f64, x_rel: f64) -> (f64, f64) {
    let (m, me) = em_main(d, a, x, x_rel);
    let (c, ce) = em_corrections(s, a, x, x_rel);
    (m + c, me + ce + U * (m + c).abs())
}

/// W = Z(s, a) + 1/d for d = 1 - s near 0 (`d` correctly rounded from the exact exponent, `s` the
/// computed exponent within `ds` of it), without the two terms of size 1/|d|:
/// Z(s, a) = -a^d/d + corr(s, a) (Lemma 6's main term), so W = -expm1(d log a)/d + corr(s, a).
///
/// Error of the main part, relative: t = d log a carries log's LIBM_REL, the product's u and d's
/// own u; expm1(t)/d passes t's relative error with condition number t e^t/expm1(t) <= 1 + |t|
/// (|t| <= 1), adds LIBM_REL, and d's u again in the division plus the division's u; (1 + 1e-6)
/// covers the second-order products of these ~1e-16 terms. The corrections: `em_corrections`
/// with a^-s's error (powf's LIBM_REL and u) and the s-shift ds (log a + 40/s) |corr| as in
/// [`s_error`] (the main part does not depend on s: it uses the exact d).
fn pole_free_z(s: f64, d: f64, ds: f64, a: f64) -> (f64, f64) {
    let ln_a = a.ln();
    let t = d * ln_a;
    debug_assert!(t.abs() <= 1.0);
    let main = -t.exp_m1() / d;
    let t_rel = LIBM_REL + 2.0 * U;
    let main_err = main.abs() * ((1.0 + t.abs()) * t_rel + LIBM_REL + 2.0 * U) * (1.0 + 1e-6);
    let x = a.powf(-s);
    let (corr, corr_err) = em_corrections(s, a, x, LIBM_REL + U);
    // (1 + 1e-6): rounding of this bound's own few operations
    let corr_s = ds * (ln_a + 40.0 / s) * (corr.abs() + corr_err) * (1.0 + 1e-6);
    let w = main + corr;
    (w, main_err + corr_err + corr_s + U * w.abs())
}

/// Error in Z(s, a) = main + corrections from evaluating them at a computed s within `ds` of the
/// exact one. The pole factor 1/(s - 1) does not contribute: it is evaluated with d = s - 1
/// correctly rounded from the exact exponent (see [`em_main`]). What remains is
/// a^(-s) in both parts, d/ds = -log a times each, and the Pochhammer factors (s)_{2j-1} of the
/// corrections, whose logarithmic derivative sum_{i<2j-1} 1/(s+i) is below 2 J / s with J = 20
/// terms at most: ds (log a (|main| + |corr|) + (2 J / s) |corr|), with |corr| <= |z| + |main|.
fn s_error(s: f64, d: f64, ds: f64, a: f64, z: f64) -> f64 {
    if ds == 0.0 {
        return 0.0;
    }
    s_error_at(s, d, ds, a, a.ln(), a.powf(-s), z)
}

/// [`s_error`] with log a and a^-s (as `powf` gives them) already at hand.
fn s_error_at(s: f64, d: f64, ds: f64, a: f64, ln_a: f64, a_pow: f64, z: f64) -> f64 {
    if ds == 0.0 {
        return 0.0;
    }
    let main = if d == 0.0 {
        ln_a
    } else {
        (a * a_pow / d).abs()
    };
    let corr = z.abs() + main;
    // (1 + 1e-6): rounding of this bound's own few operations
    ds * (ln_a * (main + corr) + 40.0 / s * corr) * (1.0 + 1e-6)
}

/// Bound on |dZ(s, a)/ds| (continued analytically for s <= 1) for the tail at a: the same
/// terms as [`s_error`] (the tail's Z is evaluated with the exact d as well).
fn s_derivative_bound(s: f64, d: f64, a: f64, z: f64) -> f64 {
    s_error(s, d, 1.0, a, z)
}

/// Bound on the k-series truncation after K terms over [m, infinity):
/// (2/(K+1)) (1 + m/((K+1)p - 1)) theta^(K+1) / (1 - theta), theta = rho kappa m^-p.
fn series_truncation(rho_kappa: f64, p: f64, m: f64, k: usize) -> f64 {
    // (1 + 1e-12): powf one ulp and the product's u, < 1e-15 relative
    let theta = rho_kappa * m.powf(-p) * (1.0 + 1e-12);
    let k1 = (k + 1) as f64;
    if theta >= 1.0 || k1 * p <= 1.0 {
        return f64::INFINITY;
    }
    let log_bound =
        (2.0 / k1).ln() + (1.0 + m / (k1 * p - 1.0)).ln() + k1 * theta.ln() - (1.0 - theta).ln();
    // (1 + 1e-10): |log_bound| < 1e4 computed with < 1e-11 absolute error (three ln at one ulp
    // each and the sum), exp adds one ulp
    log_bound.exp() * (1.0 + 1e-10)
}

/// The sign of 1 - i p and the double nearest to it, exactly, for a double p and i < 2^10, in
/// integers: p = m 2^e with 2^52 <= m < 2^53, so (1 - i p) 2^-e = 2^-e - i m is an integer, held
/// in an i64 while -e <= 62 (p >= 2^-10; i m < 2^63). Converting an i64 to f64 rounds to
/// nearest and scaling by 2^e is exact here, so the double is the correctly rounded value, as
/// `Exact::to_f64` gives it. `None` outside that range (the exact decimal route then decides).
fn one_minus_multiple(p: f64, i: u64) -> Option<(i32, f64)> {
    if !(p.is_normal() && p > 0.0) || i >= 1 << 10 {
        return None;
    }
    let bits = p.to_bits();
    let m = (bits & ((1u64 << 52) - 1)) | (1u64 << 52);
    let e = ((bits >> 52) & 0x7ff) as i32 - 1075;
    if !(-62..0).contains(&e) {
        return None;
    }
    let v = (1i64 << -e) - (i * m) as i64;
    let two_to_e = f64::from_bits(((1023 + e) as u64) << 52);
    Some((v.signum() as i32, v as f64 * two_to_e))
}

#[cfg(test)]
mod tests {
    use super::one_minus_multiple;
    use crate::exact::Exact;

    /// The integer route gives exactly what the exact decimal route gives: the sign of 1 - i p
    /// and its correctly rounded double, at resonances (i p = 1) and next to them.
    #[test]
    fn one_minus_multiple_is_the_exact_route() {
        let mut ps = vec![
            0.5,
            0.025,
            0.05,
            0.1,
            0.2,
            1.0 / 3.0,
            0.4,
            1.5,
            1.0,
            2f64.powi(-10),
        ];
        for p in [0.025f64, 0.05, 0.1, 0.2, 1.0 / 3.0, 0.4] {
            ps.push(f64::from_bits(p.to_bits() + 1));
            ps.push(f64::from_bits(p.to_bits() - 1));
        }
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..300 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ps.push((x >> 11) as f64 / (1u64 << 53) as f64 * 4.0 + 1e-3);
        }
        for p in ps {
            for i in [1u64, 2, 3, 5, 10, 20, 40, 297, 1023] {
                let exact = Exact::int(1).sub(&Exact::from_f64(p).mul_int(i as i64));
                let (side, gap) = one_minus_multiple(p, i).expect("in range");
                assert_eq!(side, exact.signum(), "p = {p:e}, i = {i}");
                assert_eq!(
                    gap.to_bits(),
                    exact.to_f64().to_bits(),
                    "p = {p:e}, i = {i}"
                );
            }
        }
        // the double 0.05 is above 1/20: 1 - 20 p < 0
        assert_eq!(one_minus_multiple(0.05, 20).unwrap().0, -1);
        assert_eq!(one_minus_multiple(0.5, 2), Some((0, 0.0)));
        assert_eq!(one_minus_multiple(5e-4, 3), None);
        assert_eq!(one_minus_multiple(1e16, 3), None);
        assert_eq!(one_minus_multiple(2.0, 3), Some((-1, -5.0)));
        assert_eq!(one_minus_multiple(0.5, 1 << 10), None);
    }
}
