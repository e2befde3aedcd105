//! Exponential variance sigma_l^2 = c e^(lambda l) by the O(1)-in-lambda route (head +
//! Euler-Maclaurin + geometric tail): every enclosure contains an independent direct compensated
//! sum (N up to 10^7, and N = infinity as a direct sum to negligible terms plus a tail bound) and
//! meets the width goal, and agrees with the direct engine wherever both apply.

use depthprod::{
    Family, Limit, Number, Params, ParamsInput, Plan, RouteOptions, Variance, VarianceInput,
};

const DEPTHS: [u64; 15] = [
    1, 2, 63, 64, 65, 100, 777, 1000, 4321, 65_536, 100_000, 999_999, 1_000_000, 3_000_001,
    10_000_000,
];

const U: f64 = f64::EPSILON / 2.0;

fn params(family: Family, a: f64, b: f64, c: f64, lambda: f64) -> Params {
    Params {
        family,
        a,
        b,
        variance: Variance::Exponential { c, lambda },
    }
}

fn extra(family: Family) -> f64 {
    match family {
        Family::Unscaled => 0.0,
        Family::SqrtScaled => 0.5,
        _ => 1.0,
    }
}

/// Upper bound on sum_{l > n} g(l) from g <= A x + B x^2 and two geometric series, written out
/// here independently of the crate (with a factor 1 + 1e-9 for its own roundings).
fn tail_bound(a: f64, b: f64, kappa: f64, mu: f64, extra: f64, n: u64) -> f64 {
    let n1 = n as f64 + 1.0;
    let x = kappa * (-mu * n1).exp() * n1.powf(-extra);
    (a * x / -(-mu).exp_m1() + b * x * x / -(-2.0 * mu).exp_m1()) * (1.0 + 1e-9)
}

/// Direct compensated sums at each of `depths` (ascending), and at infinity (last entry), each
/// as (value, error bound). Terms: x_l = kappa e^(-mu l) l^-extra carries (mu l + 8) u relative
/// error, g = ln_1p(x (A + B x)) twice that plus 7u (times g); the compensated sum adds
/// 2u |S| + n^2 u^2 sum g (Ogita-Rump-Oishi). The sum stops once the tail bound is below
/// 1e-30 |S|; the skipped terms are then within that bound.
fn direct(a: f64, b: f64, c: f64, lambda: f64, extra: f64, depths: &[u64]) -> Vec<(f64, f64)> {
    let kappa = 1.0 / c.sqrt();
    let mu = 0.5 * lambda;
    let (mut sum, mut comp, mut term_err) = (0.0f64, 0.0f64, 0.0f64);
    let mut out = Vec::new();
    let mut next = 0;
    let mut l = 0u64;
    let result = |sum: f64, comp: f64, term_err: f64, l: u64| {
        let v = sum + comp;
        let k = l as f64 * U;
        (v, term_err + 2.0 * U * v.abs() + k * k * v.abs() + 1e-300)
    };
    loop {
        while next < depths.len() && depths[next] == l {
            out.push(result(sum, comp, term_err, l));
            next += 1;
        }
        let s = sum + comp;
        if tail_bound(a, b, kappa, mu, extra, l) <= 1e-30 * s.abs().max(1e-300) {
            break;
        }
        l += 1;
        let lf = l as f64;
        let x = kappa * (-mu * lf).exp() * lf.powf(-extra);
        let g = (x * (a + b * x)).ln_1p();
        term_err += (2.0 * (mu * lf + 8.0) * U + 7.0 * U) * g + 4.0 * U * g;
        let t = sum + g;
        if sum.abs() >= g.abs() {
            comp += (sum - t) + g;
        } else {
            comp += (g - t) + sum;
        }
        sum = t;
    }
    // every remaining depth (and infinity) is the stopped sum plus [0, tail bound]
    let (v, e) = result(sum, comp, term_err, l);
    let t = tail_bound(a, b, kappa, mu, extra, l);
    while out.len() <= depths.len() {
        out.push((v + 0.5 * t, e + 0.5 * t));
    }
    out
}

fn check_contains(what: &str, lo: f64, hi: f64, value: f64, (d, de): (f64, f64)) {
    assert!(
        lo <= d + de && d - de <= hi,
        "{what}: [{lo}, {hi}] misses the direct sum {d} +- {de}"
    );
    assert!(
        hi - lo <= 1e-12 * value.abs().max(1.0),
        "{what}: [{lo}, {hi}] wider than 1e-12"
    );
}

fn check(family: Family, a: f64, b: f64, c: f64, lambda: f64) {
    let p = params(family, a, b, c, lambda);
    let plan = Plan::new(&p).unwrap();
    if lambda <= 0.1 {
        assert!(
            plan.exponential_route().is_some(),
            "{family:?} A={a} B={b} c={c} lambda={lambda}: expected the Euler-Maclaurin route"
        );
    }
    let old = Plan::with_route(
        &p,
        RouteOptions {
            exponential_direct: true,
            ..RouteOptions::default()
        },
    )
    .unwrap();
    assert!(old.exponential_route().is_none());
    let sums = direct(a, b, c, lambda, extra(family), &DEPTHS);
    for (i, &n) in DEPTHS.iter().enumerate() {
        let what = format!("{family:?} A={a} B={b} c={c} lambda={lambda} N={n}");
        let e = plan.log_product(n).unwrap();
        check_contains(&what, e.lo, e.hi, e.value, sums[i]);
        let o = old.log_product(n).unwrap();
        assert!(
            e.lo <= o.hi && o.lo <= e.hi,
            "{what}: {e:?} and the direct engine's {o:?} do not overlap"
        );
        // the tail to infinity: contains (limit - S(N)) and overlaps the direct engine's
        let t = plan.tail(n).unwrap().unwrap();
        let to = old.tail(n).unwrap().unwrap();
        assert!(
            t.lo <= to.hi && to.lo <= t.hi && t.lo >= 0.0,
            "{what}: tail {t:?} vs direct engine's {to:?}"
        );
        let (inf, inf_err) = sums[DEPTHS.len()];
        let (s, s_err) = sums[i];
        let truth = (inf - s, inf_err + s_err);
        assert!(
            t.lo <= truth.0 + truth.1 && truth.0 - truth.1 <= t.hi,
            "{what}: tail {t:?} misses {truth:?}"
        );
    }
    let what = format!("{family:?} A={a} B={b} c={c} lambda={lambda} N=inf");
    match (plan.limit().unwrap(), old.limit().unwrap()) {
        (Limit::Finite { log_limit: e }, Limit::Finite { log_limit: o }) => {
            check_contains(&what, e.lo, e.hi, e.value, sums[DEPTHS.len()]);
            assert!(e.lo <= o.hi && o.lo <= e.hi, "{what}: {e:?} vs {o:?}");
        }
        other => panic!("{what}: exponential variance converges, got {other:?}"),
    }
}

#[test]
fn euler_maclaurin_route_contains_direct_sums() {
    for lambda in [1e-3, 1e-2, 0.1, 1.0, 10.0] {
        for family in [Family::Unscaled, Family::SqrtScaled, Family::Scaled] {
            for &(a, b, c) in &[
                (1.0, 1.0, 1.0),
                (100.0, 100.0, 1e-3),
                (0.01, 50.0, 1e3),
                (3.0, 0.0, 0.5),
                (0.0, 2.0, 20.0),
                (1e-100, 1e-100, 1.0),
                (0.0, 0.0, 1.0),
            ] {
                check(family, a, b, c, lambda);
            }
        }
    }
}

#[test]
fn random_parameters_agree_with_the_direct_engine() {
    // a deterministic sweep over the whole small-lambda range
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        (state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
    };
    for i in 0..40 {
        let log_range = |u: f64, lo: f64, hi: f64| (lo.ln() + u * (hi / lo).ln()).exp();
        let family = [Family::Unscaled, Family::SqrtScaled, Family::Scaled][i % 3];
        let a = log_range(next(), 1e-3, 100.0);
        let b = log_range(next(), 1e-3, 100.0);
        let c = log_range(next(), 1e-3, 1e3);
        let lambda = log_range(next(), 1e-3, 0.125);
        check(family, a, b, c, lambda);
    }
}

/// Typed decimals that are not doubles (lambda = 0.003, c = 0.3, A = 0.1): the enclosure must
/// hold for the exact inputs, so it must overlap the direct engine's (which accounts for them
/// the same way) and stay within the width goal.
#[test]
fn typed_decimals_are_accounted_for() {
    for family in [Family::Unscaled, Family::Scaled] {
        let input = ParamsInput {
            family,
            a: Number::from("0.1"),
            b: Number::from("2"),
            variance: VarianceInput::Exponential {
                c: Number::from("0.3"),
                lambda: Number::from("0.003"),
            },
        };
        let plan = Plan::from_input(&input).unwrap();
        assert!(plan.exponential_route().is_some());
        let params = plan.params().clone();
        let old = Plan::with_route(
            &params,
            RouteOptions {
                exponential_direct: true,
                ..RouteOptions::default()
            },
        )
        .unwrap();
        for n in [10u64, 1000, 100_000, 1_000_000_000_000_000_000] {
            let e = plan.log_product(n).unwrap();
            let o = old.log_product(n).unwrap();
            assert!(
                e.lo <= o.hi && o.lo <= e.hi,
                "{family:?} N={n}: {e:?} vs {o:?}"
            );
            assert!(e.width() <= 1e-12 * e.value.abs().max(1.0), "{e:?}");
            // the typed inputs widen the enclosure beyond the doubles' one
            let doubles = Plan::new(&params).unwrap().log_product(n).unwrap();
            assert!(
                e.lo <= doubles.lo && doubles.hi <= e.hi,
                "{e:?} vs {doubles:?}"
            );
        }
    }
}
