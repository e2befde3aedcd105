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
//! Direct compensated summation, kept as a checkpoint every 64 terms (`direct.rs`). For
//! sigma_l^2 = c e^(lambda l) the sum stops where the certified geometric tail bound is
//! negligible; a measured list is finite, and read from `params` (never copied). For
//! lambda <= 1/8, where the direct sum would take O(1/lambda) terms, `exponential.rs` sums a
//! short head directly and the rest by Euler-Maclaurin (docs/MATH.md, section 4.7), in O(1) of
//! lambda; it falls back to the direct sum if its remainder cannot reach the tolerance.
//!
//! # Files
//!
//! `mod.rs` is the facade ([`Plan`]); `kinds.rs` holds the public request/result types
//! ([`CurveKind`], [`Evaluation`], [`RouteOptions`]); `power.rs` the power-law engine;
//! `direct.rs` the direct engine (exponential variance, measured lists); `exponential.rs`
//! exponential variance at small lambda by Euler-Maclaurin; `grid.rs` [`depth_grid`].

mod direct;
mod exponential;
mod finite_part;
mod grid;
mod kinds;
mod power;

pub use grid::depth_grid;
pub use kinds::{CurveKind, Evaluation, RouteOptions};

use crate::double_double::Dd;
use crate::euler_maclaurin::PowerTerm;
use crate::exact::{Dyadic, Exact};
use crate::params::ExactInputs;
use crate::sum::U;
use crate::{
    closed_forms, Bounds, Depth, Enclosure, Error, Family, Growth, GrowthClass, Params,
    ParamsInput, Unresolved, Variance,
};
use direct::DirectPlan;
use exponential::ExpPlan;
use power::PowerPlan;

/// Target for the series truncation and the Euler-Maclaurin remainder (absolute).
const TOL: f64 = 1.0 / (1u64 << 60) as f64;
/// theta at the series start M.
const THETA: f64 = 1.0 / 4.0;
/// Below this M the head is summed directly instead of by Euler-Maclaurin.
const DIRECT_MAX: f64 = 128.0;
/// A series start beyond this (2^64) is never reached by a finite depth.
const BEYOND_DEPTHS: f64 = 18_446_744_073_709_551_616.0;
/// Most series terms.
const K_MAX: usize = 400;
/// Stop an exponential-variance sum after this many terms at the latest.
const EXP_MAX_TERMS: usize = 4_000_000;

/// A prepared product; see the module docs.
#[derive(Debug, Clone)]
pub struct Plan {
    params: Params,
    engine: Engine,
    /// What the exact inputs add to the doubles of `params`.
    inputs: ExactInputs,
}

#[derive(Debug, Clone)]
enum Engine {
    Power(Box<PowerPlan>),
    Direct(Box<DirectPlan>),
    /// Exponential variance at small lambda: head + Euler-Maclaurin + geometric tail.
    Exponential(Box<ExpPlan>),
}

impl Plan {
    /// Validates `params` and prepares the evaluation.
    pub fn new(params: &Params) -> Result<Plan, Error> {
        Plan::with_route(params, RouteOptions::default())
    }

    /// Validates and prepares a product given as typed numbers or decimals (see
    /// [`crate::exact`]): every enclosure then contains the value for the exact inputs, and
    /// convergence, divergence and resonance are decided on them.
    pub fn from_input(input: &ParamsInput) -> Result<Plan, Error> {
        let (params, inputs) = input.resolve()?;
        Plan::build(&params, inputs, RouteOptions::default())
    }

    /// [`Plan::from_input`] on a chosen route, for tests.
    #[doc(hidden)]
    pub fn from_input_with_route(input: &ParamsInput, route: RouteOptions) -> Result<Plan, Error> {
        let (params, inputs) = input.resolve()?;
        Plan::build(&params, inputs, route)
    }

    #[doc(hidden)]
    pub fn with_route(params: &Params, route: RouteOptions) -> Result<Plan, Error> {
        params.validate()?;
        Plan::build(params, ExactInputs::of_doubles(params), route)
    }

    fn build(params: &Params, inputs: ExactInputs, route: RouteOptions) -> Result<Plan, Error> {
        // c inside [1e-3, 1e3] (every measured list too): the engine takes the product as it is
        let engine = match turns_into_range(params) {
            0 => Plan::engine(params, &inputs, route),
            j => Plan::engine(&normalized(params, j), &inputs.normalized(j), route),
        };
        Ok(Plan {
            params: params.clone(),
            engine,
            inputs,
        })
    }

    /// The engine of a product whose c lies in [`crate::C_RANGE`] (see [`normalized`]).
    fn engine(params: &Params, inputs: &ExactInputs, route: RouteOptions) -> Engine {
        let (a, b) = (params.a, params.b);
        match (&params.variance, params.family) {
            (_, Family::Harmonic) => {
                let term = PowerTerm {
                    a,
                    b,
                    kappa: 1.0,
                    kappa_rel: 0.0,
                    p: 1.0,
                    p_err: 0.0,
                };
                let plan = PowerPlan::new(
                    term,
                    &Exact::int(1),
                    None,
                    Some(finite_part::InputsDd::new(
                        inputs,
                        a,
                        b,
                        Dd::exact(1.0),
                        Dd::exact(1.0),
                    )),
                    route,
                    inputs.rel_a.max(inputs.rel_b),
                    inputs.zeros,
                );
                Engine::Power(Box::new(plan))
            }
            (Variance::Power { c, q }, family) => {
                let extra = family.extra_power().unwrap_or(0.0);
                // p = extra + q/2 exactly, from the exact q (never from a rounded 1 + q/2):
                // p is the nearest double, p_err its distance to the exact p.
                let q_exact = inputs.q.clone().unwrap_or_else(|| Exact::from_f64(*q));
                let p_exact = Exact::from_f64(extra).add(&q_exact.half());
                // the same p in binary when q is a double: p, its distance and 1 - k p for every
                // k then come from integers instead of long decimals
                let p_dyadic = if inputs.q_is_double {
                    Dyadic::from_f64(extra)
                        .zip(Dyadic::from_f64(*q))
                        .and_then(|(e, q)| e.add(q.half()))
                } else {
                    None
                };
                let p = p_dyadic
                    .and_then(Dyadic::to_f64)
                    .unwrap_or_else(|| p_exact.to_f64());
                // p_exact - p: by TwoSum when q is a double (extra + q/2 with q/2 exact; the sum's
                // rounding is exactly the residual), else from the exact p, correctly rounded
                let half_q = 0.5 * *q;
                let (sum, low) = {
                    let s = extra + half_q;
                    let bb = s - extra;
                    (s, (extra - (s - bb)) + (half_q - bb))
                };
                let (p_err, p_dd) = match p_dyadic.and_then(|d| d.distance_to(p)) {
                    Some(err) if sum == p => (
                        err,
                        Dd {
                            hi: p,
                            lo: low,
                            err: 0.0,
                        },
                    ),
                    _ => {
                        let (sign, r) = p_exact.minus_f64(p);
                        if sign == 0 {
                            (0.0, Dd::exact(p))
                        } else {
                            let err = crate::enclosure::next_up(r.abs());
                            (
                                err,
                                Dd {
                                    hi: p,
                                    lo: r,
                                    err: U * r.abs(),
                                },
                            )
                        }
                    }
                };
                let kappa = 1.0 / c.sqrt();
                // 1/sqrt(c) rounds twice (2u) unless c = 1; a typed c that is not a double adds
                // rel_c/2 (kappa = c^(-1/2)), plus second order.
                let kappa_rel =
                    if *c == 1.0 { 0.0 } else { 2.0 * U } + inputs.rel_c * (0.5 + inputs.rel_c);
                let term = PowerTerm {
                    a,
                    b,
                    kappa,
                    kappa_rel,
                    p,
                    p_err,
                };
                // kappa = c^(-1/2) in double-double from the exact c (its double and residual)
                let typed = Dd {
                    hi: *c,
                    lo: inputs.lo_c,
                    err: U * inputs.lo_c.abs(),
                }
                .sqrt()
                .and_then(|r| Dd::exact(1.0).div(r))
                .map(|kappa| finite_part::InputsDd::new(inputs, a, b, kappa, p_dd));
                let plan = PowerPlan::new(
                    term,
                    &p_exact,
                    p_dyadic,
                    typed,
                    route,
                    inputs.rel_a.max(inputs.rel_b),
                    inputs.zeros,
                );
                Engine::Power(Box::new(plan))
            }
            (Variance::Exponential { c, lambda }, family) => {
                let extra = family.extra_power().unwrap_or(0.0);
                let t_c = inputs.rel_c * (0.5 + inputs.rel_c);
                let up_ab = (1.0 + inputs.rel_a.max(inputs.rel_b)) * (1.0 + t_c) - 1.0;
                let typed = (up_ab * 1.01, inputs.rel_lambda * 1.01);
                // O(1) in lambda where the Euler-Maclaurin route applies, else direct summation
                let em = if route.exponential_direct {
                    None
                } else {
                    ExpPlan::new(a, b, *c, *lambda, extra, typed)
                };
                match em {
                    Some(plan) => Engine::Exponential(Box::new(plan)),
                    None => Engine::Direct(Box::new(DirectPlan::exponential(
                        a, b, *c, *lambda, extra, typed,
                    ))),
                }
            }
            (Variance::Measured { values }, family) => {
                let extra = family.extra_power().unwrap_or(0.0);
                Engine::Direct(Box::new(DirectPlan::measured(a, b, values, extra)))
            }
        }
    }

    /// The measured list the direct engine reads its terms from (empty for every other
    /// variance model): the plan keeps no copy of its own.
    fn list(&self) -> &[f64] {
        match &self.params.variance {
            Variance::Measured { values } => values,
            _ => &[],
        }
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

    /// Relative bound on how much a sum of g(l) over l <= n (or over l > n: every term moves
    /// alike) moves between the doubles computed with and the exact typed inputs. With
    /// y = A x + B x^2: A dg/dA, B dg/dB <= y/(1+y) <= g and x dg/dx <= 2g, so S(A(1+a)) lies
    /// within |a| S of S(A) (S/A is nonincreasing, S increasing), and the same for B; a factor
    /// (1 + t) on every x moves S by at most (1+t)^2 - 1 relative. c enters x as c^(-1/2) (power
    /// law: already in kappa_rel); lambda as e^(-lambda l/2), a factor at most
    /// e^(rel_lambda lambda l/2) on x_l for the largest l summed (the prefix stops at `len`).
    fn sum_input_rel(&self, n: u64) -> f64 {
        let len = match &self.engine {
            Engine::Exponential(e) => e.len,
            Engine::Direct(d) => d.len as u64,
            Engine::Power(_) => 0,
        };
        self.sum_input_rel_to(n.min(len))
    }

    /// [`Self::sum_input_rel`] for sums whose deepest term is at l = `deepest` (exponential
    /// variance; the power law's widening does not depend on it).
    fn sum_input_rel_to(&self, deepest: u64) -> f64 {
        let inputs = &self.inputs;
        let ab = inputs.rel_a + inputs.rel_b * (1.0 + inputs.rel_a);
        let x_factor = match (&self.engine, &self.params.variance) {
            (Engine::Direct(_) | Engine::Exponential(_), Variance::Exponential { lambda, .. }) => {
                let l = deepest as f64;
                let t_lambda = (inputs.rel_lambda * lambda * l * 0.5 * (1.0 + 4.0 * U)).exp_m1();
                let t_c = inputs.rel_c * (0.5 + inputs.rel_c);
                (1.0 + t_lambda) * (1.0 + t_c) - 1.0
            }
            _ => 0.0,
        };
        if ab == 0.0 && x_factor == 0.0 {
            return 0.0;
        }
        let x_rel = (1.0 + x_factor) * (1.0 + x_factor) - 1.0;
        // 1.01: a relative 1% on bounds of size ~1e-15 covers the rounding of these few products
        ((1.0 + ab) * (1.0 + x_rel) - 1.0) * 1.01
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
            Engine::Direct(d) => d.sum(n, self.list()),
            Engine::Exponential(x) => x.sum(n),
        };
        Ok(enclosure(v, e + self.sum_input_rel(n) * (v.abs() + e)))
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
                Some(t) => self.summed_limit(d.sum(d.len as u64, self.list()), d.len as u64, t),
                None => Err(Error::NoLimitForList),
            },
            Engine::Exponential(x) => self.summed_limit(x.sum(x.len), x.len, x.tail),
        }
    }

    /// The limit of a summed exponential-variance product: the sum to `len` (value, error) plus
    /// [0, tail], widened for the typed inputs.
    fn summed_limit(&self, (v, e): (f64, f64), len: u64, t: f64) -> Result<crate::Limit, Error> {
        let e = e + self.sum_input_rel(len) * (v.abs() + e);
        Ok(crate::Limit::Finite {
            log_limit: Enclosure {
                value: v + 0.5 * t,
                lo: down(v - e),
                hi: up(v + e + t),
            },
        })
    }

    /// Certified bounds on the tail sum_{l>n} g(l); `None` when the product diverges or the
    /// variance is a finite measured list.
    pub fn tail(&self, n: u64) -> Result<Option<Bounds>, Error> {
        self.check_depth(n)?;
        Ok(self.tail_at(n, None))
    }

    /// Everything at one depth.
    pub fn evaluate(&self, depth: Depth) -> Result<Evaluation, Error> {
        let family = self.params.family;
        let zeta_bound = match (&self.params.variance, family) {
            // for the exact inputs: their distances to the doubles widen the bound
            (Variance::Power { c, q }, Family::Scaled) => Some(closed_forms::zeta_bound_with(
                self.params.a,
                self.params.b,
                *c,
                *q,
                closed_forms::Rounding {
                    rel_a: self.inputs.rel_a,
                    rel_b: self.inputs.rel_b,
                    rel_c: self.inputs.rel_c,
                    rel_lambda: 0.0,
                    abs_q: self.inputs.abs_q,
                },
            )?),
            _ => None,
        };
        let limit = match &self.engine {
            Engine::Direct(d) if d.tail.is_none() => None,
            _ => Some(self.limit()?),
        };
        let (limit_value, divergent) = match limit {
            Some(crate::Limit::Finite { log_limit }) if log_limit.width().is_finite() => {
                (Some(log_limit), None)
            }
            Some(crate::Limit::Finite { .. }) => (None, None),
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
                unresolved: self.unresolved(),
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
                    unresolved: self.unresolved(),
                })
            }
        }
    }

    /// How the product grows as N -> infinity (see [`Growth`]), decided on the exact inputs.
    pub fn growth(&self) -> Growth {
        match &self.engine {
            Engine::Power(p) => p.growth(),
            Engine::Direct(d) if d.tail.is_none() => Growth {
                class: GrowthClass::FiniteList,
                exponent: None,
                coefficient: None,
                log_coefficient: None,
                constant: None,
                reason: None,
            },
            Engine::Direct(_) | Engine::Exponential(_) => Growth {
                class: GrowthClass::Convergent,
                exponent: None,
                coefficient: None,
                log_coefficient: None,
                constant: match self.limit() {
                    Ok(crate::Limit::Finite { log_limit }) => Some(log_limit),
                    _ => None,
                },
                reason: None,
            },
        }
    }

    /// What this plan cannot certify, each with the reason (empty when everything is certified).
    pub fn unresolved(&self) -> Vec<Unresolved> {
        match &self.engine {
            Engine::Power(p) => p
                .infinity_reason()
                .map(|reason| Unresolved {
                    quantity: if p.divergent { "constant" } else { "limit" }.into(),
                    reason,
                })
                .into_iter()
                .collect(),
            Engine::Direct(_) | Engine::Exponential(_) => Vec::new(),
        }
    }

    /// Fills `out[i]` with the curve's central value at depth `ns[i]` (integers in 1..=10^18, as
    /// f64). A kind that does not apply (remainder of a convergent product, tail of a divergent
    /// one) is an error.
    ///
    /// For the two certified kinds, log-product and tail, returns the widest enclosure among the
    /// points ([`CurveWidth`]): the same enclosures [`Self::log_product`] and [`Self::tail`] give,
    /// so a curve point that misses the 1e-12 goal is reported, never drawn as if it met it. The
    /// tail curve's values are those enclosures' upper ends (it is drawn as an upper bound). The
    /// other kinds are reference formulas evaluated in floating point, not enclosures: `None`.
    pub fn curve(
        &self,
        kind: CurveKind,
        ns: &[f64],
        out: &mut [f64],
    ) -> Result<Option<CurveWidth>, Error> {
        if ns.len() != out.len() {
            return Err(Error::LengthMismatch {
                depths: ns.len(),
                outputs: out.len(),
            });
        }
        let divergent = match &self.engine {
            Engine::Power(p) => p.divergent,
            Engine::Direct(_) | Engine::Exponential(_) => false,
        };
        let eps = match &self.params.variance {
            Variance::Power { q, .. } if *q < 2.0 => Some(2.0 - q),
            _ => None,
        };
        let first = self.log_product(1)?.value;
        let mut cursor = direct::Cursor::default();
        match kind {
            CurveKind::Eq65Exponent if eps.is_none() => {
                return Err(Error::CurveDoesNotApply {
                    curve: kind.name(),
                    reason: "Eq. 65 needs a power-law variance with q < 2 (eps = 2 - q > 0)",
                })
            }
            CurveKind::Remainder | CurveKind::Leading | CurveKind::Asymptote if !divergent => {
                return Err(Error::CurveDoesNotApply {
                    curve: kind.name(),
                    reason: "this product does not diverge (use log-product or tail)",
                })
            }
            CurveKind::Tail
                if divergent || matches!(&self.engine, Engine::Direct(d) if d.tail.is_none()) =>
            {
                return Err(Error::CurveDoesNotApply {
                    curve: kind.name(),
                    reason: "a divergent product or a finite measured list has no tail to infinity (use log-product, remainder or leading)",
                })
            }
            _ => {}
        }
        let certified = matches!(kind, CurveKind::LogProduct | CurveKind::Tail);
        let mut widest: Option<CurveWidth> = None;
        for (x, o) in ns.iter().zip(out.iter_mut()) {
            let n = match Depth::from_f64(*x)? {
                Depth::Finite(n) => n,
                Depth::Infinite => return Err(Error::InvalidDepth { text: "inf".into() }),
            };
            self.check_depth(n)?;
            let (value, width) = match (&self.engine, kind) {
                (_, CurveKind::LogProduct) => {
                    let (v, e) = match &self.engine {
                        Engine::Power(p) => p.sum(n),
                        Engine::Direct(d) => d.sum_from(n, self.list(), Some(&mut cursor)),
                        Engine::Exponential(x) => x.sum(n),
                    };
                    // as in `log_product`: the enclosure widened for typed inputs
                    let enc = enclosure(v, e + self.sum_input_rel(n) * (v.abs() + e));
                    (v, enc.relative_width())
                }
                (_, CurveKind::Tail) => {
                    // convergent here (checked above), so the tail exists
                    let t = self
                        .tail_at(n, Some(&mut cursor))
                        .unwrap_or(Bounds { lo: 0.0, hi: 0.0 });
                    (t.hi, tail_width(t))
                }
                (Engine::Power(p), CurveKind::Remainder) => (p.remainder(n), 0.0),
                (Engine::Power(p), CurveKind::Leading) => (p.leading(n as f64), 0.0),
                (Engine::Power(p), CurveKind::Asymptote) => (p.asymptote(n as f64), 0.0),
                (_, CurveKind::Eq65Exponent) => (
                    // A and B were checked with the plan: the unchecked form (one range
                    // check fewer in the explorer's module)
                    closed_forms::eq65_exponent_with(
                        self.params.a,
                        self.params.b,
                        eps.unwrap_or(1.0),
                        n as f64,
                        closed_forms::Rounding::default(),
                    )?
                    .value,
                    0.0,
                ),
                (_, CurveKind::LinearClaim) => ((n as f64).ln() + first, 0.0),
                // refused above: only power-law products diverge
                (Engine::Direct(_) | Engine::Exponential(_), _) => (0.0, 0.0),
            };
            *o = value;
            // NaN or infinite widths count as the widest (a point with no finite enclosure)
            let wider = widest.is_none_or(|w| width.is_nan() || width > w.worst);
            if certified && wider {
                widest = Some(CurveWidth {
                    worst: width,
                    at: n as f64,
                });
            }
        }
        Ok(widest)
    }

    /// The enclosures of a certified curve (log-product or tail) at every depth of `ns`:
    /// `lo[i] <= exact value <= hi[i]`, exactly those of [`Self::log_product`] and [`Self::tail`].
    /// The page asks for them to draw a band where [`Self::curve`] reports a point wider than the
    /// goal. Reference curves have no enclosure: an error.
    pub fn curve_bounds(
        &self,
        kind: CurveKind,
        ns: &[f64],
        lo: &mut [f64],
        hi: &mut [f64],
    ) -> Result<(), Error> {
        if ns.len() != lo.len() || ns.len() != hi.len() {
            return Err(Error::LengthMismatch {
                depths: ns.len(),
                outputs: lo.len().min(hi.len()),
            });
        }
        for (i, x) in ns.iter().enumerate() {
            let n = match Depth::from_f64(*x)? {
                Depth::Finite(n) => n,
                Depth::Infinite => return Err(Error::InvalidDepth { text: "inf".into() }),
            };
            (lo[i], hi[i]) = match kind {
                CurveKind::LogProduct => {
                    let e = self.log_product(n)?;
                    (e.lo, e.hi)
                }
                CurveKind::Tail => match self.tail(n)? {
                    Some(t) => (t.lo, t.hi),
                    None => {
                        return Err(Error::CurveDoesNotApply {
                            curve: kind.name(),
                            reason: "a divergent product or a finite measured list has no tail to infinity (use log-product, remainder or leading)",
                        })
                    }
                },
                _ => {
                    return Err(Error::CurveDoesNotApply {
                        curve: kind.name(),
                        reason: "only the log-product and tail curves are enclosures; the others are reference formulas",
                    })
                }
            };
        }
        Ok(())
    }

    /// Input widening of every tail (typed decimals that are not doubles), as in [`Self::tail`]:
    /// for exponential variance, from the last term a tail sums (beyond the sums' own end: a
    /// typed lambda moves x_l by e^(rel lambda l/2), largest at the deepest l summed).
    fn tail_input_rel(&self) -> f64 {
        let i = &self.inputs;
        if i.rel_a == 0.0 && i.rel_b == 0.0 && i.rel_c == 0.0 && i.rel_lambda == 0.0 {
            // doubles: nothing to widen (and no suffix table to make just to learn its end)
            return 0.0;
        }
        match &self.engine {
            Engine::Power(_) => self.sum_input_rel(u64::MAX),
            Engine::Direct(d) => self.sum_input_rel_to(d.tail_end()),
            Engine::Exponential(x) => self.sum_input_rel_to(x.tail_end()),
        }
    }

    /// [`Self::tail`] without the depth check, reusing a measured list's cursor along a curve.
    fn tail_at(&self, n: u64, cursor: Option<&mut direct::Cursor>) -> Option<Bounds> {
        let bounds = match &self.engine {
            Engine::Power(p) => p.tail(n),
            Engine::Direct(d) => d.tail_from(n, cursor),
            Engine::Exponential(x) => Some(x.tail(n)),
        };
        let rel = self.tail_input_rel();
        bounds.map(|t| {
            if rel == 0.0 {
                t
            } else {
                Bounds {
                    lo: down(t.lo * (1.0 - rel)).max(0.0),
                    hi: up(t.hi * (1.0 + rel)),
                }
            }
        })
    }

    /// Exponential variance by Euler-Maclaurin: (the last depth it sums before the geometric tail
    /// bound, its number of correction terms J); `None` on any other route. For tests.
    #[doc(hidden)]
    pub fn exponential_route(&self) -> Option<(u64, usize)> {
        match &self.engine {
            Engine::Exponential(x) => Some((x.len, x.terms)),
            _ => None,
        }
    }

    /// Where the constant C of a divergent power law comes from the finite-part route: the size
    /// sum_i |w_i|^s of the closed form's part it is what remains of (docs/MATH.md §4.8); its
    /// width is a few u s times that, so relative to |C| it grows near a sign change of C.
    /// `None` on every other route. For tests.
    #[doc(hidden)]
    pub fn constant_scale(&self) -> Option<f64> {
        match &self.engine {
            Engine::Power(p) => p.far.as_ref()?.as_ref().ok().map(|f| f.scale),
            Engine::Direct(_) | Engine::Exponential(_) => None,
        }
    }

    /// Internal shape of the route, for tests and the benchmark: (L0, M, K, uses Euler-Maclaurin).
    #[doc(hidden)]
    pub fn route_summary(&self) -> Option<(f64, f64, usize, bool)> {
        match &self.engine {
            Engine::Power(p) => Some((p.l0 as f64, p.m, p.k, p.em.is_some())),
            Engine::Direct(_) | Engine::Exponential(_) => None,
        }
    }
}

/// The same product with c moved into [`crate::C_RANGE`] by a power of 4 (docs/MATH.md §5.5a).
///
/// Every a_l is c^(-1/2) times its value at c = 1, so (A, B, c) and (A 2^j, B 4^j, c 4^j) give
/// the same factors 1 + A a_l + B a_l^2 for every integer j. Scaling by a power of two is exact
/// in binary floating point (no result here leaves the normal range: the effective ranges keep
/// A 2^j and B 4^j between 1e-220 and 1e9), so the engines, made for kappa = c^(-1/2) within
/// [10^-1.5, 10^1.5], compute the same exact product from the same typed inputs, whose relative
/// distances to their doubles do not change (their residuals scale by the same powers). A c
/// inside the range is kept as it is (j = 0).
fn normalized(params: &Params, j: i32) -> Params {
    let (two_j, four_j) = (2f64.powi(j), 4f64.powi(j));
    let variance = match params.variance {
        Variance::Power { c, q } => Variance::Power { c: c * four_j, q },
        Variance::Exponential { c, lambda } => Variance::Exponential {
            c: c * four_j,
            lambda,
        },
        Variance::Measured { .. } => return params.clone(),
    };
    Params {
        family: params.family,
        a: params.a * two_j,
        b: params.b * four_j,
        variance,
    }
}

/// The j of [`normalized`]: the fewest factors of 4 that bring c into [`crate::C_RANGE`].
pub(crate) fn turns_into_range(params: &Params) -> i32 {
    let c = match params.variance {
        Variance::Power { c, .. } | Variance::Exponential { c, .. } => c,
        Variance::Measured { .. } => return 0,
    };
    let (min, max) = crate::C_RANGE;
    let (mut scaled, mut j) = (c, 0);
    // c in [1e-300, 1e300] (checked), so at most 500 steps, each exact
    while scaled < min && j < 600 {
        scaled *= 4.0;
        j += 1;
    }
    while scaled > max && j > -600 {
        scaled *= 0.25;
        j -= 1;
    }
    j
}

/// The widest enclosure among a curve's points (see [`Plan::curve`]).
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct CurveWidth {
    /// Log-product: (hi - lo) / max(1, |value|), the measure of the 1e-12 goal (relative, absolute
    /// below 1). Tail: [`tail_width`], relative down to 2^-960, since tails are drawn on a log axis
    /// where a tiny tail's absolute width says nothing. Infinite where a point has no finite
    /// enclosure.
    pub worst: f64,
    /// The depth of that point (the first one, on ties).
    pub at: f64,
}

/// Below this a tail's width is measured absolutely: 2^-960 (about 1e-289), where doubles begin
/// to lose the 53 bits of relative precision a 1e-12 goal needs (subnormals start at 2^-1022), as
/// the log-product's goal is absolute below 1.
pub const TAIL_WIDTH_FLOOR: f64 = f64::from_bits((1023 - 960) << 52);

/// Width of a tail enclosure relative to its upper end, absolute below [`TAIL_WIDTH_FLOOR`].
pub fn tail_width(t: Bounds) -> f64 {
    if t.hi.is_finite() {
        (t.hi - t.lo) / t.hi.max(TAIL_WIDTH_FLOOR)
    } else {
        f64::INFINITY
    }
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
