//! The measurements of a lab run. Definitions (x_l is the T x d residual stream entering layer l,
//! x_1 the embedding output, x_(L+1) the last layer's output before the final norm):
//!
//! - `variance` sigma_l^2: population variance of all T d entries of x_l (mean subtracted, divided
//!   by T d).
//! - `jacobian_norm`: ||J_l||_2, J_l = d x_(l+1) / d x_l as a (T d) x (T d) matrix (all tokens at
//!   once, causal coupling included), by Lanczos on J_l^T J_l ([`crate::lanczos`]).
//! - `jacobian_minus_identity_norm`: ||J_l - I||_2, the same way.
//! - `end_to_end_norm`: ||d x_(L+1) / d x_l||_2 = ||J_L ... J_l||_2, for every l by Rayleigh-Ritz
//!   on one output-space subspace shared by all suffixes, longest first ([`crate::end_to_end`]);
//!   `end_to_end_upper` a probabilistic upper bound on it from Gaussian probes (docs/MATH.md §9.3).
//! - every norm's `interval`: the lower end the reported norm (a Rayleigh quotient, a bound), the
//!   upper end what its residual implies (docs/MATH.md §9.2; a measurement's interval).
//! - `log_product_of_norms`: sum_{k=l}^{L} log ||J_k||_2, what a product of per-layer bounds can at
//!   best bound (submultiplicativity: end_to_end_norm <= exp(log_product_of_norms)).
//! - `grad_norm`: Frobenius norm of d loss / d theta_l over all of layer l's parameters, loss the
//!   mean next-token cross-entropy (positions 0..T-2, target the next token id) of
//!   final_norm(x_(L+1)) U^T; `grad_norms` the same per weight tensor.
//! - `angular_distance[i][j]`: mean over tokens t of arccos(cos(x_i[t], x_j[t])) / pi, the paper's
//!   layer-importance measure (indices 0..L for x_1..x_(L+1)).
//! - fits: least squares of log sigma_l^2 on log l (power, sigma^2 = c l^q) and on l (exponential,
//!   sigma^2 = c e^(lambda l)), l = 1..L, with 95% Student-t confidence intervals of the
//!   coefficients (valid under the usual i.i.d. Gaussian-residual assumption, stated not tested).
//! - bound: A and B of the paper's Eqs. 47-48 for (d, d_ff, d_head, h, s = T, sigma = init_std),
//!   and log prod_{l=1}^{L} (1 + A a_l + B a_l^2) with a_l = 1/sigma_l (Eq. 9, unscaled) and
//!   a_l = 1/(l sigma_l) (Eq. 15, scaled), sigma_l^2 the measured variances, evaluated by the
//!   `depthprod` core as certified enclosures; per layer the suffix from l to L, which bounds
//!   ||d x_(L+1) / d x_l|| in the paper's argument, and the looseness log(bound) - log(measured).

use crate::bound::bound_report;
use crate::end_to_end::{end_to_end_norms, probe_level, Layers, Suffix, PROBES, PROBE_PROBABILITY};
use crate::error::{LabError, MemoryEstimate};
use crate::fits::log_linear_fit;
use crate::lanczos::{lanczos_top, LanczosOptions, NormEstimate, TopSingular};
use crate::linalg::{dot, norm2};
use crate::model::{Gaussian, LayerCache, LayerWeights, Model, Weights};
use crate::parallel::map_indices;
use crate::report::{derive_products_of_norms, interval_sub, looseness};
use crate::stages::{share_layers, with_hooks, Ctx, Event};
use std::sync::Arc;

// The public surface of a run, gathered here from the modules that hold each concern.
pub use crate::bound::{paper_a_b, power_law_product};
pub use crate::fits::student_t_975;
pub use crate::parallel::worker_threads;
pub use crate::report::{
    BoundReport, Digests, Fit, Interval, LayerReport, LayerUpdate, ProbeBound, Report,
};
pub use crate::shares::merge_shares;
pub use crate::spec::{InputSpec, LabSpec, Selection, Share, MAX_ITER};
pub use crate::stages::{
    stages, Hooks, Progress, Stage, STAGE_END_TO_END, STAGE_FORWARD, STAGE_GRADIENTS,
    STAGE_LAYER_JACOBIANS,
};

/// Population variance of all entries.
pub fn variance(x: &[f64]) -> f64 {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    x.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n
}

/// The paper's angular distance between two streams: mean over tokens of arccos(cos) / pi.
pub fn angular_distance(a: &[f64], b: &[f64], d: usize) -> f64 {
    let rows = a.len() / d;
    let mut total = 0.0;
    for t in 0..rows {
        let (x, y) = (&a[t * d..(t + 1) * d], &b[t * d..(t + 1) * d]);
        let denom = norm2(x) * norm2(y);
        let c = if denom > 0.0 { dot(x, y) / denom } else { 1.0 };
        total += libm::acos(c.clamp(-1.0, 1.0)) / std::f64::consts::PI;
    }
    total / rows as f64
}

/// The seed stream of the inputs, separate from the weights' so that loaded and seeded networks
/// see the same token ids for the same seed.
fn input_seed(seed: u64) -> u64 {
    seed ^ 0x9e37_79b9_7f4a_7c15
}

/// Validates a spec without allocating anything large: the configuration, the Lanczos options
/// and the memory the run needs against `spec.memory_budget` ([`crate::memory`]). [`build`] (so
/// every run) calls it first; shells may call it earlier to report bad input before they start.
pub fn validate(spec: &LabSpec) -> Result<MemoryEstimate, LabError> {
    spec.cfg.validate()?;
    float_ok("lanczos tol", spec.lanczos.tol, 1e-14, 1e-1)?;
    if spec.lanczos.max_iter == 0 || spec.lanczos.max_iter > MAX_ITER {
        return Err(LabError::OutOfRange {
            name: "max_iter",
            value: spec.lanczos.max_iter.to_string(),
            range: format!("an integer in [1, {MAX_ITER}]"),
        });
    }
    let share = spec.select.share;
    if share.count == 0 || share.count > Share::MAX_COUNT || share.index >= share.count {
        return Err(LabError::OutOfRange {
            name: "share",
            value: format!("{} of {}", share.index, share.count),
            range: format!(
                "an index below a count in [1, {}] (index 0 of count 1: the whole run)",
                Share::MAX_COUNT
            ),
        });
    }
    let estimate = crate::memory::estimate(&spec.cfg, 0, &spec.lanczos, &spec.select);
    estimate.check(spec.memory_budget)?;
    Ok(estimate)
}

/// Builds the model and x_1 for a spec (validating everything first, [`validate`]).
pub fn build(spec: &LabSpec) -> Result<(Model, Vec<f64>, Vec<u32>), LabError> {
    validate(spec)?;
    let cfg = spec.cfg.clone();
    let weights = match &spec.weights {
        Some(w) => Arc::clone(w),
        None => Arc::new(Weights::seeded(&cfg, &mut Gaussian::new(spec.seed))),
    };
    let mut rng = Gaussian::new(input_seed(spec.seed));
    let drawn: Vec<u32> = (0..cfg.tokens).map(|_| rng.token(cfg.vocab)).collect();
    let ids = match &spec.input {
        InputSpec::Tokens(Some(ids)) => {
            if ids.len() != cfg.tokens {
                return Err(LabError::Inconsistent(format!(
                    "input ids: {} ids given but tokens = {}",
                    ids.len(),
                    cfg.tokens
                )));
            }
            if let Some(bad) = ids.iter().find(|&&i| i as usize >= cfg.vocab) {
                return Err(LabError::OutOfRange {
                    name: "input id",
                    value: bad.to_string(),
                    range: format!(
                        "an integer in [0, {}] (vocab = {})",
                        cfg.vocab - 1,
                        cfg.vocab
                    ),
                });
            }
            ids.clone()
        }
        _ => drawn,
    };
    let model = Model::new(cfg.clone(), weights)?;
    let x1 = match spec.input {
        InputSpec::Gaussian { std } => {
            float_ok("input std", std, 1e-6, 1e6)?;
            rng.normals(cfg.tokens * cfg.d, std)
        }
        InputSpec::Tokens(_) => model.embed(&ids),
    };
    Ok((model, x1, ids))
}

fn float_ok(name: &'static str, v: f64, lo: f64, hi: f64) -> Result<(), LabError> {
    if v.is_finite() && (lo..=hi).contains(&v) {
        Ok(())
    } else {
        Err(LabError::OutOfRange {
            name,
            value: format!("{v}"),
            range: format!("a number in [{lo}, {hi}]"),
        })
    }
}

/// ||J_l||_2 (minus_identity = false) or ||J_l - I||_2.
pub fn layer_norm_estimate(
    model: &Model,
    l: usize,
    cache: &LayerCache,
    minus_identity: bool,
    opts: LanczosOptions,
) -> NormEstimate {
    match layer_norm_until(model, l, cache, minus_identity, opts, &|| false) {
        Some(e) => e,
        None => unreachable!("never stopped"),
    }
}

/// [`layer_norm_estimate`], `None` once `stop()` is true (checked before every JVP/VJP pair).
fn layer_norm_until(
    model: &Model,
    l: usize,
    cache: &LayerCache,
    minus_identity: bool,
    opts: LanczosOptions,
    stop: &dyn Fn() -> bool,
) -> Option<NormEstimate> {
    layer_norm_from(model, l, cache, minus_identity, opts, None, stop).map(|t| t.estimate)
}

/// ||J_l - I||_2, then ||J_l||_2 (docs/MATH.md §9.1): the first a Lanczos run from the Gaussian
/// start g of `opts.seed`, the second from g / ||g|| + y, y the first run's unit top Ritz vector.
/// The start keeps the Gaussian's component along every direction (so no direction is missed
/// with positive probability, as from g alone) and adds a vector along which J_l - I is large,
/// where J_l is large too in the measured placements: fewer Lanczos steps for ||J_l||
/// (`bench -- --passes`). `None` once `stop()` is true.
fn layer_norm_pair(
    model: &Model,
    l: usize,
    cache: &LayerCache,
    opts: LanczosOptions,
    stop: &dyn Fn() -> bool,
) -> Option<(NormEstimate, NormEstimate)> {
    let minus_identity = layer_norm_from(model, l, cache, true, opts, None, stop)?;
    let n = model.cfg.tokens * model.cfg.d;
    let g = Gaussian::new(opts.seed).normals(n, 1.0);
    let gn = norm2(&g);
    let start: Vec<f64> = g
        .iter()
        .zip(&minus_identity.ritz_vector)
        .map(|(a, y)| a / gn + y)
        .collect();
    let jacobian = layer_norm_from(model, l, cache, false, opts, Some(&start), stop)?;
    Some((jacobian.estimate, minus_identity.estimate))
}

/// One Lanczos run on M^T M, M = J_l or J_l - I, from `start` (a Gaussian one when `None`).
fn layer_norm_from(
    model: &Model,
    l: usize,
    cache: &LayerCache,
    minus_identity: bool,
    opts: LanczosOptions,
    start: Option<&[f64]>,
    stop: &dyn Fn() -> bool,
) -> Option<TopSingular> {
    let n = model.cfg.tokens * model.cfg.d;
    let top = lanczos_top(n, opts, start, |v| {
        if stop() {
            return None;
        }
        let mut jv = model.layer_jvp(l, cache, v);
        if minus_identity {
            jv.iter_mut().zip(v).for_each(|(a, b)| *a -= b);
        }
        let mut back = model.layer_vjp(l, cache, &jv, None);
        if minus_identity {
            back.iter_mut().zip(&jv).for_each(|(a, b)| *a -= b);
        }
        Some((jv, back))
    })?;
    Some(top)
}

/// ||J_L ... J_l||_2.
pub fn end_to_end_estimate(
    model: &Model,
    l: usize,
    caches: &[LayerCache],
    opts: LanczosOptions,
) -> NormEstimate {
    match end_to_end_until(model, l, caches, opts, &|| false) {
        Some(e) => e,
        None => unreachable!("never stopped"),
    }
}

/// [`end_to_end_estimate`], `None` once `stop()` is true (checked before every layer operation).
fn end_to_end_until(
    model: &Model,
    l: usize,
    caches: &[LayerCache],
    opts: LanczosOptions,
    stop: &dyn Fn() -> bool,
) -> Option<NormEstimate> {
    let n = model.cfg.tokens * model.cfg.d;
    let big_l = model.cfg.layers;
    let top = lanczos_top(n, opts, None, |v| {
        let mut t = v.to_vec();
        for k in l..=big_l {
            if stop() {
                return None;
            }
            t = model.layer_jvp(k, &caches[k - 1], &t);
        }
        let mut g = t.clone();
        for k in (l..=big_l).rev() {
            if stop() {
                return None;
            }
            g = model.layer_vjp(k, &caches[k - 1], &g, None);
        }
        Some((t, g))
    })?;
    Some(top.estimate)
}

/// The loss and d loss / d theta_l for every layer (backpropagation through the layers' VJPs).
pub fn layer_gradients(
    model: &Model,
    xs: &[Vec<f64>],
    caches: &[LayerCache],
    ids: &[u32],
) -> (f64, Vec<LayerWeights>) {
    let mut out: Vec<LayerWeights> = Vec::with_capacity(model.cfg.layers);
    let loss = backpropagate(model, xs, caches, ids, |_, gw| out.push(gw));
    out.reverse();
    (loss, out)
}

/// The loss; hands each layer's parameter gradient to `each` (layer L first) as soon as it is
/// computed, so a caller that keeps only norms never holds a second copy of the weights.
fn backpropagate(
    model: &Model,
    xs: &[Vec<f64>],
    caches: &[LayerCache],
    ids: &[u32],
    mut each: impl FnMut(usize, LayerWeights),
) -> f64 {
    let big_l = model.cfg.layers;
    let (loss, mut g) = model.loss_and_grad(&xs[big_l], ids);
    for l in (1..=big_l).rev() {
        let mut gw = model.weights.layers[l - 1].zeros_like();
        g = model.layer_vjp(l, &caches[l - 1], &g, Some(&mut gw));
        each(l, gw);
    }
    loss
}

fn check_finite(what: &str, x: &[f64]) -> Result<(), LabError> {
    if x.iter().all(|v| v.is_finite()) {
        Ok(())
    } else {
        Err(LabError::NonFinite(format!(
            "{what} (weights or scale too large?)"
        )))
    }
}

/// Runs every selected measurement.
pub fn run(spec: &LabSpec, progress: Progress) -> Result<Report, LabError> {
    run_streaming(
        spec,
        &Hooks {
            progress,
            on_layer: &|_| {},
            should_stop: &|| false,
        },
    )
}

/// [`run`], reporting each layer's measurements as they finish and stopping with
/// [`LabError::Cancelled`] once `hooks.should_stop` returns true. The report is the same as
/// [`run`]'s, bit for bit.
pub fn run_streaming(spec: &LabSpec, hooks: &Hooks) -> Result<Report, LabError> {
    with_hooks(hooks, |ctx| compute(spec, ctx))
}

fn compute(spec: &LabSpec, ctx: &Ctx) -> Result<Report, LabError> {
    let (model, x1, ids) = build(spec)?;
    let digests = Digests {
        weights: format!("{:016x}", model.weights.digest()),
        input: format!("{:016x}", crate::model::digest(&[&x1])),
    };
    let cfg = &model.cfg;
    let big_l = cfg.layers;
    let opts = spec.lanczos;
    let stop = || ctx.stopped();
    let cancelled = || {
        if ctx.stopped() {
            Err(LabError::Cancelled)
        } else {
            Ok(())
        }
    };
    ctx.emit(Event::Progress(STAGE_FORWARD, 0, 1));
    let (xs, caches) = model.forward(&x1);
    for (i, x) in xs.iter().enumerate() {
        check_finite(&format!("x_{} in the forward pass", i + 1), x)?;
    }
    let variances: Vec<f64> = xs.iter().map(|x| variance(x)).collect();
    // The fits and the certified bound need only the variances: they are streamed with them, so
    // the bound is known before the first norm is.
    let ls: Vec<f64> = (1..=big_l).map(|l| l as f64).collect();
    let logv: Vec<f64> = variances[..big_l].iter().map(|v| libm::log(*v)).collect();
    let log_l: Vec<f64> = ls.iter().map(|l| libm::log(*l)).collect();
    let fit_power = log_linear_fit(&log_l, &logv);
    let fit_exponential = log_linear_fit(&ls, &logv);
    let bound = bound_report(cfg, &variances[..big_l], fit_power.as_ref());
    // The certified log of the Eq. 9 / Eq. 15 product over layers l..L.
    let suffix_of = |p: &Option<Vec<Interval>>, l: usize| -> Option<Interval> {
        let p = p.as_ref()?;
        Some(if l == 1 {
            p[big_l - 1]
        } else {
            interval_sub(p[big_l - 1], p[l - 2])
        })
    };
    let bounds_of = |l: usize| {
        (
            suffix_of(&bound.prefix_unscaled, l),
            suffix_of(&bound.prefix_scaled, l),
        )
    };
    ctx.emit(Event::Progress(STAGE_FORWARD, 1, 1));
    for l in 1..=big_l {
        let (unscaled, scaled) = bounds_of(l);
        ctx.emit(Event::Layer(Box::new(LayerUpdate {
            layer: l,
            variance: Some(variances[l - 1]),
            bound_unscaled_log: unscaled,
            bound_scaled_log: scaled,
            bound: (l == 1).then(|| bound.report.clone()),
            ..LayerUpdate::default()
        })));
    }
    cancelled()?;

    let share = spec.select.share;
    // The end-to-end norms first, longest suffix first: the whole network's norm is the first
    // number after the variances.
    let (level, probability) = probe_level(PROBES, PROBE_PROBABILITY);
    let upper_of = |s: &Suffix| libm::sqrt(s.frobenius_squared / level);
    let probe_bound = ProbeBound {
        probes: PROBES,
        probability,
        simultaneous: false,
    };
    let end_to_end = || -> Vec<Option<Suffix>> {
        if !(spec.select.end_to_end && share.has_end_to_end()) {
            return vec![None; big_l];
        }
        ctx.emit(Event::Progress(STAGE_END_TO_END, 0, big_l));
        let emit = |l: usize, s: Suffix| {
            let (unscaled, scaled) = bounds_of(l);
            let norm = Some(s.estimate.norm);
            ctx.emit(Event::Layer(Box::new(LayerUpdate {
                layer: l,
                end_to_end_norm: norm,
                end_to_end: Some(s.estimate),
                end_to_end_upper: Some(upper_of(&s)),
                looseness_unscaled_log: looseness(unscaled, norm),
                looseness_scaled_log: looseness(scaled, norm),
                upper_bound: Some(probe_bound),
                ..LayerUpdate::default()
            })));
            ctx.emit(Event::Progress(STAGE_END_TO_END, l, big_l));
        };
        let chain = Layers {
            model: &model,
            caches: &caches,
        };
        match end_to_end_norms(&chain, opts, &stop, &emit) {
            Some(v) => v.into_iter().map(Some).collect(),
            None => vec![None; big_l],
        }
    };
    let my_layers = share_layers(share, big_l);
    let layer_norms = || -> Vec<Option<(NormEstimate, NormEstimate)>> {
        if !spec.select.layer_norms || my_layers == 0 {
            return vec![None; big_l];
        }
        ctx.emit(Event::Progress(STAGE_LAYER_JACOBIANS, 0, my_layers));
        let done = std::sync::atomic::AtomicUsize::new(0);
        map_indices(big_l, |i| {
            let l = i + 1;
            if !share.has_layer(l) {
                return None;
            }
            let o = LanczosOptions {
                seed: opts.seed.wrapping_add(l as u64),
                ..opts
            };
            let (j, jmi) = layer_norm_pair(&model, l, &caches[i], o, &stop)?;
            ctx.emit(Event::Layer(Box::new(LayerUpdate {
                layer: l,
                jacobian_norm: Some(j.norm),
                jacobian_minus_identity_norm: Some(jmi.norm),
                jacobian: Some(j),
                jacobian_minus_identity: Some(jmi),
                ..LayerUpdate::default()
            })));
            let k = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            ctx.emit(Event::Progress(STAGE_LAYER_JACOBIANS, k, my_layers));
            Some((j, jmi))
        })
    };
    // Natively the per-layer norms run beside the end-to-end ones (whose sweeps are mostly of one
    // vector at a time, so they keep one core busy); in one thread (the wasm module) the
    // end-to-end norms come first. Either way each norm is computed by the same operations on
    // the same data, so the numbers are the same.
    #[cfg(feature = "parallel")]
    let (e2e, per_layer) = rayon::join(end_to_end, layer_norms);
    #[cfg(not(feature = "parallel"))]
    let (e2e, per_layer) = (end_to_end(), layer_norms());
    cancelled()?;
    let upper_bound = e2e.first().copied().flatten().map(|_| probe_bound);

    let (loss, grads) = if spec.select.gradients && share.has_extras() {
        ctx.emit(Event::Progress(STAGE_GRADIENTS, 0, 1));
        let mut grads: Vec<Vec<(String, f64)>> = vec![Vec::new(); big_l];
        let loss = backpropagate(&model, &xs, &caches, &ids, |l, gw| {
            grads[l - 1] = gw
                .named()
                .into_iter()
                .map(|(name, t)| (name.to_string(), norm2(t)))
                .collect();
        });
        for (i, g) in grads.iter().enumerate() {
            ctx.emit(Event::Layer(Box::new(LayerUpdate {
                layer: i + 1,
                grad_norm: Some(g.iter().map(|(_, v)| v * v).sum::<f64>().sqrt()),
                grad_norms: Some(g.clone()),
                ..LayerUpdate::default()
            })));
        }
        ctx.emit(Event::Progress(STAGE_GRADIENTS, 1, 1));
        (Some(loss), Some(grads))
    } else {
        (None, None)
    };
    cancelled()?;

    let angular = if spec.select.angular && share.has_extras() {
        let n = xs.len();
        let mut m = vec![vec![0.0; n]; n];
        for i in 0..n {
            for j in i + 1..n {
                let a = angular_distance(&xs[i], &xs[j], cfg.d);
                m[i][j] = a;
                m[j][i] = a;
            }
        }
        Some(m)
    } else {
        None
    };

    let mut layers = Vec::with_capacity(big_l);
    for l in 1..=big_l {
        let (j, jmi) = match per_layer[l - 1] {
            Some((a, b)) => (Some(a), Some(b)),
            None => (None, None),
        };
        let (unscaled, scaled) = bounds_of(l);
        let mut layer = LayerReport {
            layer: l,
            variance: variances[l - 1],
            jacobian_norm: None,
            jacobian_minus_identity_norm: None,
            end_to_end_norm: None,
            grad_norm: None,
            log_product_of_norms: None,
            grad_to_jacobian_minus_identity: None,
            jacobian: j,
            jacobian_minus_identity: jmi,
            end_to_end: e2e[l - 1].map(|s| s.estimate),
            end_to_end_upper: e2e[l - 1].as_ref().map(upper_of),
            grad_norms: grads.as_ref().map(|g| g[l - 1].clone()),
            bound_unscaled_log: unscaled,
            bound_scaled_log: scaled,
            looseness_unscaled_log: None,
            looseness_scaled_log: None,
        };
        layer.derive_own_columns();
        layers.push(layer);
    }
    derive_products_of_norms(&mut layers);

    Ok(Report {
        config: cfg.clone(),
        seed: spec.seed,
        token_ids: ids,
        loss,
        final_variance: variances[big_l],
        layers,
        fit_power,
        fit_exponential,
        bound: bound.report,
        angular_distance: angular,
        lanczos_tol: opts.tol,
        digest: digests,
        share,
        upper_bound,
    })
}
