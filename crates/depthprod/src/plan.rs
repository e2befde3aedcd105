//! A `Plan` prepares everything that does not depend on N (coefficients, split points, the head
//! sums, Euler-Maclaurin panels, the value at infinity), so each N, each curve point and the
//! limit are cheap.
//!
//! # Route for a power law a_l = kappa l^-p (every family under sigma_l^2 = c l^q, and harmonic)
//!
//! ```text
//! S(N) = sum_{l < L0} g(l)                       direct, compensated        (head)
//!      + sum_{L0 <= l < M} g(l)                  Euler-Maclaurin on g       (middle, only if M > L0)
//!      + sum_k c_k kappa^k [Z(kp, M) - Z(kp, N+1)]  + truncation             (series tail)
//! ```
//!
//! M is where theta = rho kappa M^-p <= 1/4, so the k-series converges geometrically; the
//! series is cut at K terms with the bound (2/(K+1)) (1 + M/((K+1)p - 1)) theta^(K+1)/(1 - theta)
//! (docs/MATH.md, section 4.4, Lemma 4). Z is the Hurwitz zeta of [`crate::zeta`]. Letting N -> infinity gives
//! V = head + middle + sum_k c_k kappa^k Z(kp, M): the limit when the product converges, and
//! the constant C when it diverges, with leading terms c_k kappa^k N^(1-kp)/(1-kp) (kp < 1) and
//! c_k kappa^k log N (kp = 1).
//!
//! # Exponential variance and measured lists
//!
//! Direct compensated summation (prefix sums). For sigma_l^2 = c e^(lambda l) the sum stops where
//! the certified geometric tail bound is negligible; a measured list is finite.

use crate::coefficients::{root_radius, LogSeries};
use crate::euler_maclaurin::{em_start, EmRegion, PowerTerm};
use crate::sum::{Accumulator, U};
use crate::zeta::{em_corrections, em_main, em_min_start};
use crate::{
    closed_forms, AsymptoticTerm, Bounds, Depth, Divergence, Enclosure, Error, Family, Params,
    Variance,
};

/// Target for the series truncation and the Euler-Maclaurin remainder (absolute).
const TOL: f64 = 1.0 / (1u64 << 60) as f64;
/// theta at the series start M.
const THETA: f64 = 1.0 / 4.0;
/// Below this M the head is summed directly instead of by Euler-Maclaurin.
const DIRECT_MAX: f64 = 512.0;
/// A series start beyond this (2^64) is never reached by a finite depth.
const BEYOND_DEPTHS: f64 = 18_446_744_073_709_551_616.0;
/// Most series terms.
const K_MAX: usize = 400;
/// Stop an exponential-variance sum after this many terms at the latest.
const EXP_MAX_TERMS: usize = 4_000_000;

/// What a curve plots against N.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
pub enum CurveKind {
    /// log P_N.
    LogProduct,
    /// log P_N minus its leading asymptotic terms (tends to C); divergent products only.
    Remainder,
    /// Certified upper bound of the tail sum_{l>N} g(l); convergent products only.
    Tail,
    /// The sum of the leading asymptotic terms at N (without C); divergent products only.
    Leading,
    /// Leading terms plus C: the asymptote the correction derives (for the unscaled seed case
    /// 2A sqrt N + (B - A^2/2) log N + C; for the harmonic family A log N + C, i.e. Theta(N^A)).
    /// Falls back to the leading terms alone where C is not resolvable. Divergent products only.
    Asymptote,
    /// Eq. 65's exponent A (N^(eps/2-1) - 1)/(eps/2 - 1) + B (N^(eps-3) - 1)/(eps - 3) with
    /// eps = 2 - q (power-law variance with 0 < q < 2).
    Eq65Exponent,
    /// The paper's Theta(L) claim (Eq. 11) drawn as log N + log P_1: a line of slope 1 in
    /// log-log terms through the first factor, for comparison.
    LinearClaim,
}

impl std::str::FromStr for CurveKind {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Error> {
        match s {
            "log-product" => Ok(CurveKind::LogProduct),
            "remainder" => Ok(CurveKind::Remainder),
            "tail" => Ok(CurveKind::Tail),
            "leading" => Ok(CurveKind::Leading),
            "asymptote" => Ok(CurveKind::Asymptote),
            "eq65-exponent" => Ok(CurveKind::Eq65Exponent),
            "linear-claim" => Ok(CurveKind::LinearClaim),
            other => Err(Error::UnknownName {
                what: "curve kind",
                text: other.to_string(),
                allowed:
                    "log-product, remainder, tail, leading, asymptote, eq65-exponent, linear-claim",
            }),
        }
    }
}

/// Everything known about one product at one depth: what the CLI's `--json` and the page show.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Evaluation {
    pub family: Family,
    /// The depth, `None` for N = infinity.
    pub n: Option<u64>,
    /// log P_N (the limit when N = infinity); `None` when N = infinity and the product diverges.
    pub log_product: Option<Enclosure>,
    /// log of the limit N -> infinity when the product converges (power law or exponential variance).
    pub limit: Option<Enclosure>,
    /// The remaining tail sum_{l>N} g(l) when the product converges.
    pub tail: Option<Bounds>,
    /// How the product diverges (leading terms and C), when it does.
    pub divergent: Option<Divergence>,
    /// (A/sqrt c) zeta(1+q/2) + (B/c) zeta(2+q): the correction's bound on log Q_inf (scaled family, power law).
    pub zeta_bound: Option<Enclosure>,
}

/// Knobs that select the evaluation route; the defaults are what [`Plan::new`] uses. Tests use
/// other values to check that independent routes agree.
#[doc(hidden)]
#[derive(Debug, Clone, Copy)]
pub struct RouteOptions {
    /// theta = rho kappa M^-p at the series start.
    pub theta: f64,
    /// Heads up to this length are summed directly; beyond, Euler-Maclaurin on g.
    pub direct_max: f64,
}

impl Default for RouteOptions {
    fn default() -> Self {
        RouteOptions {
            theta: THETA,
            direct_max: DIRECT_MAX,
        }
    }
}

/// A prepared product; see the module docs.
#[derive(Debug, Clone)]
pub struct Plan {
    params: Params,
    engine: Engine,
}

#[derive(Debug, Clone)]
enum Engine {
    Power(Box<PowerPlan>),
    Direct(DirectPlan),
}

impl Plan {
    /// Validates `params` and prepares the evaluation.
    pub fn new(params: &Params) -> Result<Plan, Error> {
        Plan::with_route(params, RouteOptions::default())
    }

    #[doc(hidden)]
    pub fn with_route(params: &Params, route: RouteOptions) -> Result<Plan, Error> {
        params.validate()?;
        let (a, b) = (params.a, params.b);
        let engine = match (&params.variance, params.family) {
            (_, Family::Harmonic) => {
                let term = PowerTerm {
                    a,
                    b,
                    kappa: 1.0,
                    kappa_rel: 0.0,
                    p: 1.0,
                    p_err: 0.0,
                };
                Engine::Power(Box::new(PowerPlan::new(term, route)))
            }
            (Variance::Power { c, q }, family) => {
                let extra = family.extra_power().unwrap_or(0.0);
                // p = q/2 is exact; 1 + q/2 and (1 + q)/2 may round: TwoSum gives the exact error.
                let (p, p_err) = match family {
                    Family::SqrtScaled => {
                        let (t, e) = two_sum(1.0, *q);
                        (0.5 * t, 0.5 * e.abs())
                    }
                    _ => {
                        let (t, e) = two_sum(extra, 0.5 * q);
                        (t, e.abs())
                    }
                };
                let kappa = 1.0 / c.sqrt();
                let kappa_rel = if *c == 1.0 { 0.0 } else { 2.0 * U };
                let term = PowerTerm {
                    a,
                    b,
                    kappa,
                    kappa_rel,
                    p,
                    p_err,
                };
                Engine::Power(Box::new(PowerPlan::new(term, route)))
            }
            (Variance::Exponential { c, lambda }, family) => {
                let extra = family.extra_power().unwrap_or(0.0);
                Engine::Direct(DirectPlan::exponential(a, b, *c, *lambda, extra))
            }
            (Variance::Measured { values }, family) => {
                let extra = family.extra_power().unwrap_or(0.0);
                Engine::Direct(DirectPlan::measured(a, b, values, extra))
            }
        };
        Ok(Plan {
            params: params.clone(),
            engine,
        })
    }

    /// The parameters this plan evaluates.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// The largest N this plan accepts (10^18, or the length of a measured list).
    pub fn max_depth(&self) -> u64 {
        match &self.engine {
            Engine::Direct(d) if d.tail.is_none() => d.len as u64,
            _ => crate::MAX_DEPTH,
        }
    }

    fn check_depth(&self, n: u64) -> Result<(), Error> {
        Depth::finite(n)?;
        let max = self.max_depth();
        if n > max {
            return Err(Error::DepthBeyondList {
                n,
                len: max as usize,
            });
        }
        Ok(())
    }

    /// log P_N with a certified enclosure, 1 <= n <= 10^18 (or the list length).
    pub fn log_product(&self, n: u64) -> Result<Enclosure, Error> {
        self.check_depth(n)?;
        let (v, e) = match &self.engine {
            Engine::Power(p) => p.sum(n),
            Engine::Direct(d) => d.sum(n),
        };
        Ok(enclosure(v, e))
    }

    /// The limit N -> infinity: finite (with enclosure) or divergent (leading terms and C).
    pub fn limit(&self) -> Result<crate::Limit, Error> {
        match &self.engine {
            Engine::Power(p) => Ok(match p.divergence() {
                Some(divergence) => crate::Limit::Divergent { divergence },
                None => crate::Limit::Finite {
                    log_limit: enclosure(p.infinity.0, p.infinity.1),
                },
            }),
            Engine::Direct(d) => match d.tail {
                Some(t) => {
                    let (v, e) = d.sum(d.len as u64);
                    Ok(crate::Limit::Finite {
                        log_limit: Enclosure {
                            value: v + 0.5 * t,
                            lo: down(v - e),
                            hi: up(v + e + t),
                        },
                    })
                }
                None => Err(Error::NoLimitForList),
            },
        }
    }

    /// Certified bounds on the tail sum_{l>n} g(l); `None` when the product diverges or the
    /// variance is a finite measured list.
    pub fn tail(&self, n: u64) -> Result<Option<Bounds>, Error> {
        self.check_depth(n)?;
        Ok(match &self.engine {
            Engine::Power(p) => p.tail(n),
            Engine::Direct(d) => d.tail(n),
        })
    }

    /// Everything at one depth.
    pub fn evaluate(&self, depth: Depth) -> Result<Evaluation, Error> {
        let family = self.params.family;
        let zeta_bound = match (&self.params.variance, family) {
            (Variance::Power { c, q }, Family::Scaled) => Some(closed_forms::zeta_bound(
                self.params.a,
                self.params.b,
                *c,
                *q,
            )?),
            _ => None,
        };
        let limit = match &self.engine {
            Engine::Direct(d) if d.tail.is_none() => None,
            _ => Some(self.limit()?),
        };
        let (limit_value, divergent) = match limit {
            Some(crate::Limit::Finite { log_limit }) => (Some(log_limit), None),
            Some(crate::Limit::Divergent { divergence }) => (None, Some(divergence)),
            None => (None, None),
        };
        match depth {
            Depth::Finite(n) => Ok(Evaluation {
                family,
                n: Some(n),
                log_product: Some(self.log_product(n)?),
                limit: limit_value,
                tail: self.tail(n)?,
                divergent,
                zeta_bound,
            }),
            Depth::Infinite => {
                if let Engine::Direct(d) = &self.engine {
                    if d.tail.is_none() {
                        return Err(Error::NoLimitForList);
                    }
                }
                Ok(Evaluation {
                    family,
                    n: None,
                    log_product: limit_value,
                    limit: limit_value,
                    tail: limit_value.map(|_| Bounds { lo: 0.0, hi: 0.0 }),
                    divergent,
                    zeta_bound,
                })
            }
        }
    }

    /// Fills `out[i]` with the curve's central value at depth `ns[i]` (integers in 1..=10^18, as
    /// f64). A kind that does not apply (remainder of a convergent product, tail of a divergent
    /// one) is an error.
    pub fn curve(&self, kind: CurveKind, ns: &[f64], out: &mut [f64]) -> Result<(), Error> {
        if ns.len() != out.len() {
            return Err(Error::InvalidDepth {
                text: format!("{} depths but {} outputs", ns.len(), out.len()),
            });
        }
        let divergent = match &self.engine {
            Engine::Power(p) => p.divergent,
            Engine::Direct(_) => false,
        };
        let eps = match &self.params.variance {
            Variance::Power { q, .. } if *q < 2.0 => Some(2.0 - q),
            _ => None,
        };
        let first = self.log_product(1)?.value;
        match kind {
            CurveKind::Eq65Exponent if eps.is_none() => {
                return Err(Error::UnknownName {
                    what: "curve for this variance model",
                    text: "eq65-exponent".into(),
                    allowed: "log-product and the others; Eq. 65 needs a power law with q < 2 (eps = 2 - q > 0)",
                })
            }
            CurveKind::Remainder | CurveKind::Leading | CurveKind::Asymptote if !divergent => {
                return Err(Error::UnknownName {
                    what: "curve for a convergent product",
                    text: format!("{kind:?}"),
                    allowed: "log-product, tail",
                })
            }
            CurveKind::Tail
                if divergent || matches!(&self.engine, Engine::Direct(d) if d.tail.is_none()) =>
            {
                return Err(Error::UnknownName {
                    what: "curve for a divergent or finite product",
                    text: "tail".into(),
                    allowed: "log-product, remainder, leading",
                })
            }
            _ => {}
        }
        for (x, o) in ns.iter().zip(out.iter_mut()) {
            let n = match Depth::from_f64(*x)? {
                Depth::Finite(n) => n,
                Depth::Infinite => return Err(Error::InvalidDepth { text: "inf".into() }),
            };
            self.check_depth(n)?;
            *o = match (&self.engine, kind) {
                (Engine::Power(p), CurveKind::LogProduct) => p.sum(n).0,
                (Engine::Power(p), CurveKind::Remainder) => p.remainder(n),
                (Engine::Power(p), CurveKind::Leading) => p.leading(n as f64),
                (Engine::Power(p), CurveKind::Tail) => p.tail(n).map_or(0.0, |t| t.hi),
                (Engine::Power(p), CurveKind::Asymptote) => p.asymptote(n as f64),
                (_, CurveKind::Eq65Exponent) => closed_forms::eq65_exponent(
                    self.params.a,
                    self.params.b,
                    eps.unwrap_or(1.0),
                    n as f64,
                )?,
                (_, CurveKind::LinearClaim) => (n as f64).ln() + first,
                (Engine::Direct(d), CurveKind::LogProduct) => d.sum(n).0,
                (Engine::Direct(d), _) => d.tail(n).map_or(0.0, |t| t.hi),
            };
        }
        Ok(())
    }

    /// Internal shape of the route, for tests and the benchmark: (L0, M, K, uses Euler-Maclaurin).
    #[doc(hidden)]
    pub fn route_summary(&self) -> Option<(f64, f64, usize, bool)> {
        match &self.engine {
            Engine::Power(p) => Some((p.l0 as f64, p.m, p.k, p.em.is_some())),
            Engine::Direct(_) => None,
        }
    }
}

/// Knuth's TwoSum: a + b = s + e exactly.
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

fn up(x: f64) -> f64 {
    crate::enclosure::next_up(x)
}
fn down(x: f64) -> f64 {
    crate::enclosure::next_down(x)
}

fn enclosure(v: f64, e: f64) -> Enclosure {
    if e == 0.0 {
        // only exact computations (the empty or all-zero product) carry no error at all
        Enclosure::exact(v)
    } else if e.is_finite() {
        Enclosure::with_radius(v, e)
    } else {
        Enclosure {
            value: v,
            lo: f64::NEG_INFINITY,
            hi: f64::INFINITY,
        }
    }
}

/// The power-law engine (see the module docs).
#[derive(Debug, Clone)]
struct PowerPlan {
    term: PowerTerm,
    /// prefix[n] = sum_{l=1}^{n} g(l), n < l0: (value, error).
    prefix: Vec<(f64, f64)>,
    l0: u64,
    em: Option<EmRegion>,
    /// Series start (integer-valued, may exceed 10^18).
    m: f64,
    k: usize,
    /// coef[k] = c_k kappa^k, with errors; s[k] = k p as computed, ds[k] its error bound.
    coef: Vec<(f64, f64)>,
    s: Vec<f64>,
    ds: Vec<f64>,
    /// Z(s_k, M) with errors.
    z_m: Vec<(f64, f64)>,
    /// suffix[k] = sum_{j>k} c_j kappa^j Z(s_j, M): (value, rounding error, sum |c_j kappa^j| ds_j |Z(s_j, M)|).
    suffix: Vec<(f64, f64, f64)>,
    rho_kappa: f64,
    /// Truncation bound of the k-series from M on.
    trunc_m: f64,
    /// V = limit or C, with error.
    infinity: (f64, f64),
    divergent: bool,
    /// Leading terms and C, computed once (curves evaluate them at every point).
    divergence: Option<Divergence>,
    /// head + middle over [1, M), computed once.
    below_m: (f64, f64),
    zero: bool,
}

impl PowerPlan {
    fn new(term: PowerTerm, route: RouteOptions) -> PowerPlan {
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
        let mut k = k_min;
        let mut m = m_raw.max(em_min_start(k as f64 * p));
        loop {
            let bound = series_truncation(rho_kappa, p, m, k);
            if bound <= TOL || k >= K_MAX {
                let m_needed = m_raw.max(em_min_start(k as f64 * p));
                if m_needed > m {
                    m = m_needed;
                    continue;
                }
                break;
            }
            k += 1;
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
        let mut prefix = Vec::with_capacity(l0 as usize);
        let mut acc = Accumulator::new();
        prefix.push((0.0, 0.0));
        for l in 1..l0 {
            let (g, ge) = term.g(l as f64);
            acc.add(g, ge);
            prefix.push((acc.value(), acc.error()));
        }
        // Series coefficients c_k kappa^k and exponents.
        let series = LogSeries::new(term.a, term.b, k);
        let mut coef = vec![(0.0, 0.0); k + 1];
        let mut s = vec![0.0; k + 1];
        let mut ds = vec![0.0; k + 1];
        let mut kappa_k = 1.0;
        for i in 1..=k {
            kappa_k *= term.kappa;
            let kr = (i as f64) * (term.kappa_rel + U);
            let c = series.c[i] * kappa_k;
            coef[i] = (c, series.err[i] * kappa_k * (1.0 + kr) + c.abs() * (kr + U));
            let fi = i as f64;
            s[i] = fi * p;
            ds[i] = fi.mul_add(p, -s[i]).abs() + fi * term.p_err;
        }
        let mut z_m = vec![(0.0, 0.0); k + 1];
        for i in 1..=k {
            if (coef[i].0 != 0.0 || coef[i].1 != 0.0) && m <= BEYOND_DEPTHS {
                z_m[i] = z_at(s[i], m, m.powf(-s[i]), 3.0 * U);
            }
        }
        let divergent = !zero && (1..=k).any(|i| s[i] <= 1.0 && coef[i].0 != 0.0);
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
            suffix,
            z_m,
            rho_kappa,
            trunc_m,
            infinity: (0.0, 0.0),
            divergent,
            divergence: None,
            below_m: (0.0, 0.0),
            zero,
        };
        plan.below_m = plan.compute_below_m();
        plan.infinity = plan.value_at_infinity();
        plan.divergence = plan.compute_divergence();
        plan
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
        if self.m > BEYOND_DEPTHS {
            // The partial sums up to M exceed 1e16 in size here, so their rounding alone
            // (>= 1 in absolute terms) swamps any constant C: report it as unresolvable.
            return (0.0, f64::INFINITY);
        }
        let mut acc = Accumulator::new();
        let (v, e) = self.below_m;
        acc.add(v, e);
        for i in 1..=self.k {
            let (c, ce) = self.coef[i];
            let (z, ze) = self.z_m[i];
            let ze = ze + s_error(self.s[i], self.ds[i], self.m, z);
            let t = c * z;
            acc.add(t, ce * z.abs() + c.abs() * ze + U * t.abs());
        }
        (acc.value(), acc.error() + self.trunc_m)
    }

    fn divergence(&self) -> Option<Divergence> {
        self.divergence.clone()
    }

    fn compute_divergence(&self) -> Option<Divergence> {
        if !self.divergent {
            return None;
        }
        let mut terms = Vec::new();
        for i in 1..=self.k {
            let (c, _) = self.coef[i];
            if c == 0.0 || self.s[i] > 1.0 {
                continue;
            }
            if self.s[i] == 1.0 {
                terms.push(AsymptoticTerm {
                    coefficient: c,
                    exponent: 0.0,
                    log: true,
                });
            } else {
                let e = 1.0 - self.s[i];
                terms.push(AsymptoticTerm {
                    coefficient: c / e,
                    exponent: e,
                    log: false,
                });
            }
        }
        let (v, e) = self.infinity;
        let constant = if v.is_finite() && e.is_finite() && e <= v.abs().max(1.0) {
            Some(enclosure(v, e))
        } else {
            None
        };
        Some(Divergence { terms, constant })
    }

    /// sum_{l=1}^{n} g(l) with error bound.
    fn sum(&self, n: u64) -> (f64, f64) {
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
                let (zb, zbe) = z_at(self.s[i], b, xk, rel);
                let d = zm - zb;
                let de = zme + zbe + U * d.abs() + self.ds[i] * ln_b * d.abs() * 1.01;
                let t = c * d;
                acc.add(t, ce * d.abs() + c.abs() * de + U * t.abs());
            });
            let (rest, rest_err, rest_ds) = self.suffix[k_b];
            acc.add(rest, rest_err + rest_ds * ln_b * 1.01);
            let trunc_b = if k_b < self.k { cut_b } else { 0.0 };
            (acc.value(), acc.error() + self.trunc_m + trunc_b)
        };
        (value, err + self.depth_rounding(n, b))
    }

    /// Calls `f(k, b^-kp, its relative error)` for every series term that needs Z(kp, b) at
    /// b >= M (see [`Self::series_cut`]) and has a nonzero coefficient. Returns (k_b, the bound on
    /// the omitted sum_{k>k_b} |c_k kappa^k| Z(kp, b)). Once b^-kp underflows, Z(kp, b) is 0 to
    /// within 1e-300, which `z_at` returns with that error.
    fn each_term_at(&self, b: f64, mut f: impl FnMut(usize, f64, f64)) -> (usize, f64) {
        let (x_b, ln_b) = (b.powf(-self.term.p), b.ln());
        let x_rel = 3.0 * U + self.term.p_err * ln_b;
        let (k_b, cut) = self.series_cut(x_b, ln_b);
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
    fn series_cut(&self, x_b: f64, ln_b: f64) -> (usize, f64) {
        let p = self.term.p;
        let k0 = ((1.0 / p).floor() as usize).clamp(1, self.k);
        let k0p = (k0 + 1) as f64 * p - 1.0;
        let theta = self.rho_kappa * x_b * (1.0 + 1e-12);
        if theta > 0.5 || k0p <= 0.0 || theta == 0.0 {
            let b = ln_b.exp();
            return (self.k, series_truncation(self.rho_kappa, p, b, self.k));
        }
        let ln_theta = self.rho_kappa.ln() - p * ln_b + 1e-12;
        let c0 = (2.0 / (k0 + 1) as f64).ln() + (1.0 / k0p).ln_1p() + ln_b + 2.0 * theta;
        let needed = ((TOL.ln() - c0) / ln_theta).ceil() - 1.0;
        let k_b = (needed.max(k0 as f64) as usize).min(self.k);
        (
            k_b,
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
        count as f64 * self.term.g(low).0 * 1.01
    }

    /// Bounds on sum_{l>n} g(l) (convergent products only).
    fn tail(&self, n: u64) -> Option<Bounds> {
        if self.divergent {
            return None;
        }
        if self.zero {
            return Some(Bounds { lo: 0.0, hi: 0.0 });
        }
        let b = (n + 1) as f64;
        let (v, e) = if b >= self.m {
            let mut acc = Accumulator::new();
            let (_, cut_b) = self.each_term_at(b, |i, xk, rel| {
                let (c, ce) = self.coef[i];
                let (z, ze) = z_at(self.s[i], b, xk, rel);
                let ze = ze + self.ds[i] * s_derivative_bound(self.s[i], b, z);
                let t = c * z;
                acc.add(t, ce * z.abs() + c.abs() * ze + U * t.abs());
            });
            let trunc = cut_b;
            (acc.value(), acc.error() + trunc + self.depth_rounding(n, b))
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
    fn leading(&self, n: f64) -> f64 {
        self.divergence.as_ref().map_or(0.0, |d| d.leading(n))
    }

    /// Leading terms plus C (or the leading terms alone when C is not resolvable).
    fn asymptote(&self, n: f64) -> f64 {
        self.leading(n)
            + self
                .divergence
                .as_ref()
                .and_then(|d| d.constant)
                .map_or(0.0, |c| c.value)
    }

    /// log P_n minus its leading terms (central value; divergent products).
    fn remainder(&self, n: u64) -> f64 {
        let b = (n + 1) as f64;
        if b < self.m {
            return self.sum(n).0 - self.leading(n as f64);
        }
        // V - sum_k coef_k E_k(n), E_k = Z(s_k, n+1) + leading part, computed without cancellation.
        let nf = n as f64;
        let mut acc = Accumulator::new();
        acc.add(self.infinity.0, 0.0);
        self.each_term_at(b, |i, xk, _| {
            let (c, s) = (self.coef[i].0, self.s[i]);
            let (corr, _) = em_corrections(s, b, xk, 0.0);
            let gap = if s == 1.0 {
                -(1.0 / nf).ln_1p()
            } else if s < 1.0 {
                // [n^(1-s) - (n+1)^(1-s)]/(1-s)
                -nf.powf(1.0 - s) * ((1.0 - s) * (1.0 / nf).ln_1p()).exp_m1() / (1.0 - s)
            } else {
                em_main(s, b, xk, 0.0).0
            };
            acc.add(-c * (gap + corr), 0.0);
        });
        acc.value()
    }
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

/// Z(s, a) at a large a with a^-s = `x` known (relative error `x_rel`).
fn z_at(s: f64, a: f64, x: f64, x_rel: f64) -> (f64, f64) {
    let (m, me) = em_main(s, a, x, x_rel);
    let (c, ce) = em_corrections(s, a, x, x_rel);
    (m + c, me + ce + U * (m + c).abs())
}

/// Error in Z(s, a) from an exponent known only to within `ds`: ds * |dZ/ds|.
/// A computed s of exactly 1 whose true value differs (ds > 0) makes Z(s, a) unresolvable: the
/// pole at s = 1 is within reach, so the error is infinite (only V = C is affected).
fn s_error(s: f64, ds: f64, a: f64, z: f64) -> f64 {
    if ds == 0.0 {
        0.0
    } else if s == 1.0 {
        f64::INFINITY
    } else {
        ds * s_derivative_bound(s, a, z)
    }
}

/// Bound on |dZ(s, a)/ds| = |sum_{l>=a} log(l) l^-s| (continued analytically for s <= 1).
fn s_derivative_bound(s: f64, a: f64, z: f64) -> f64 {
    let ln_a = a.ln();
    if s == 1.0 {
        return 2.0 * ln_a * (ln_a + z.abs()) + 1.0;
    }
    let main = (a * a.powf(-s) / (s - 1.0)).abs();
    (ln_a * (z.abs() + 2.0 * main) + main / (s - 1.0).abs()) * 1.01
}

/// Bound on the k-series truncation after K terms over [m, infinity):
/// (2/(K+1)) (1 + m/((K+1)p - 1)) theta^(K+1) / (1 - theta), theta = rho kappa m^-p.
fn series_truncation(rho_kappa: f64, p: f64, m: f64, k: usize) -> f64 {
    let theta = rho_kappa * m.powf(-p) * (1.0 + 1e-12);
    let k1 = (k + 1) as f64;
    if theta >= 1.0 || k1 * p <= 1.0 {
        return f64::INFINITY;
    }
    let log_bound =
        (2.0 / k1).ln() + (1.0 + m / (k1 * p - 1.0)).ln() + k1 * theta.ln() - (1.0 - theta).ln();
    log_bound.exp() * (1.0 + 1e-10)
}

/// Direct summation for exponential variance (with a certified geometric tail) and measured lists.
#[derive(Debug, Clone)]
struct DirectPlan {
    /// prefix[n] = sum_{l=1}^{n} g(l): (value, error).
    prefix: Vec<(f64, f64)>,
    len: usize,
    /// Upper bound on sum_{l > len} g(l) (exponential variance), `None` for a finite list.
    tail: Option<f64>,
    /// For tail bounds at n < len under exponential variance: (A kappa, B kappa^2, lambda, extra power).
    exp_shape: Option<(f64, f64, f64, f64)>,
}

impl DirectPlan {
    fn exponential(a: f64, b: f64, c: f64, lambda: f64, extra: f64) -> DirectPlan {
        let kappa = 1.0 / c.sqrt();
        let mut prefix = vec![(0.0, 0.0)];
        let mut acc = Accumulator::new();
        let shape = (a * kappa, b * kappa * kappa, lambda, extra);
        let mut tail = f64::INFINITY;
        for l in 1..=EXP_MAX_TERMS {
            let lf = l as f64;
            let x = kappa * (-0.5 * lambda * lf).exp() * lf.powf(-extra);
            let x_rel = (0.5 * lambda * lf + 8.0) * U;
            let g = (x * (a + b * x)).ln_1p();
            acc.add(g, (2.0 * x_rel + 7.0 * U) * g);
            prefix.push((acc.value(), acc.error()));
            if l % 16 == 0 || g == 0.0 {
                tail = exp_tail_bound(shape, l);
                if tail <= TOL * acc.value().max(1.0) {
                    break;
                }
            }
        }
        let len = prefix.len() - 1;
        DirectPlan {
            prefix,
            len,
            tail: Some(exp_tail_bound(shape, len).min(tail)),
            exp_shape: Some(shape),
        }
    }

    fn measured(a: f64, b: f64, values: &[f64], extra: f64) -> DirectPlan {
        let mut prefix = Vec::with_capacity(values.len() + 1);
        prefix.push((0.0, 0.0));
        let mut acc = Accumulator::new();
        for (i, v) in values.iter().enumerate() {
            let lf = (i + 1) as f64;
            let x = lf.powf(-extra) / v.sqrt();
            let g = (x * (a + b * x)).ln_1p();
            acc.add(g, 20.0 * U * g);
            prefix.push((acc.value(), acc.error()));
        }
        DirectPlan {
            prefix,
            len: values.len(),
            tail: None,
            exp_shape: None,
        }
    }

    fn sum(&self, n: u64) -> (f64, f64) {
        if (n as usize) <= self.len {
            self.prefix[n as usize]
        } else {
            // Beyond the stopping point: sum_{l <= len} plus at most the tail bound.
            let (v, e) = self.prefix[self.len];
            let t = self.tail.unwrap_or(0.0);
            (v + 0.5 * t, e + 0.5 * t)
        }
    }

    fn tail(&self, n: u64) -> Option<Bounds> {
        let t = self.tail?;
        let shape = self.exp_shape?;
        if (n as usize) < self.len {
            let (total, te) = self.prefix[self.len];
            let (part, pe) = self.prefix[n as usize];
            let d = total - part;
            let e = te + pe + U * d;
            Some(Bounds {
                lo: down(d - e).max(0.0),
                hi: up(d + e + t),
            })
        } else {
            Some(Bounds {
                lo: 0.0,
                hi: exp_tail_bound(shape, n as usize),
            })
        }
    }
}

/// Upper bound on sum_{l > n} g(l) for exponential variance, from g <= A x + B x^2 and
/// x_l <= kappa (n+1)^-extra e^(-lambda l / 2): geometric series.
fn exp_tail_bound((ak, bk2, lambda, extra): (f64, f64, f64, f64), n: usize) -> f64 {
    let n1 = (n + 1) as f64;
    let first = (-0.5 * lambda * n1).exp() * n1.powf(-extra);
    let t1 = ak * first / (-(-0.5 * lambda).exp_m1());
    let t2 = bk2 * first * first / (-(-lambda).exp_m1());
    (t1 + t2) * (1.0 + 1e-10)
}

/// `count` integer depths from 1 to `n_max`, log-spaced, strictly increasing (so fewer than
/// `count` when n_max is small). `n_max` must be a valid depth.
pub fn depth_grid(n_max: u64, count: usize) -> Result<Vec<f64>, Error> {
    let _ = Depth::finite(n_max)?;
    let count = count.clamp(2, 100_000);
    let top = (n_max as f64).ln();
    let mut out: Vec<f64> = Vec::with_capacity(count);
    for i in 0..count {
        let n = (top * i as f64 / (count - 1) as f64)
            .exp()
            .round()
            .clamp(1.0, n_max as f64);
        if out.last().is_none_or(|&last| n > last) {
            out.push(n);
        }
    }
    if out.last() != Some(&(n_max as f64)) {
        out.push(n_max as f64);
    }
    Ok(out)
}
