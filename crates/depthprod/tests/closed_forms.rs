//! Exact identities and closed forms (docs/MATH.md, section 7).

use depthprod::{eq65_limit, exponential_bound, Depth, Family, Limit, Params, Plan, Variance};

const DEPTHS: [u64; 7] = [
    1,
    2,
    10,
    12_345,
    1_000_000,
    1_000_000_000_000,
    1_000_000_000_000_000_000,
];

fn assert_contains(plan: &Plan, n: u64, exact: f64, tol: f64) {
    let e = plan.log_product(n).unwrap();
    assert!(
        e.lo - tol <= exact && exact <= e.hi + tol,
        "N={n}: {e:?} should contain {exact}"
    );
    assert!(e.relative_width() < 1e-12, "N={n}: {e:?} too wide");
}

#[test]
fn unscaled_a0_b1_q1_is_n_plus_one() {
    let plan = Plan::new(&Params::power(Family::Unscaled, 0.0, 1.0, 1.0, 1.0)).unwrap();
    for n in DEPTHS {
        // ln(N+1) rounded: allow one ulp of the reference itself
        let exact = ((n as f64) + 1.0).ln();
        assert_contains(&plan, n, exact, 2.0 * f64::EPSILON * exact);
    }
}

#[test]
fn unscaled_a2_b1_q2_is_square() {
    let plan = Plan::new(&Params::power(Family::Unscaled, 2.0, 1.0, 1.0, 2.0)).unwrap();
    for n in DEPTHS {
        let exact = 2.0 * ((n as f64) + 1.0).ln();
        assert_contains(&plan, n, exact, 4.0 * f64::EPSILON * exact);
    }
    // Theta(N^A) with A = 2: leading term 2 log N, C = 0
    let Limit::Divergent { divergence } = plan.limit().unwrap() else {
        panic!()
    };
    assert_eq!(divergence.terms.len(), 1);
    assert!(divergence.terms[0].log && divergence.terms[0].coefficient == 2.0);
    assert!(divergence.constant.unwrap().contains(0.0));
}

#[test]
fn harmonic_with_integer_roots() {
    // 1 + 3/l + 2/l^2 = (1 + 1/l)(1 + 2/l): P_N = (N+1)^2 (N+2)/2, so log P_N = 3 log N - log 2 + o(1)
    let plan = Plan::new(&Params::power(Family::Harmonic, 3.0, 2.0, 1.0, 1.0)).unwrap();
    for n in DEPTHS {
        let nf = n as f64;
        let exact = 2.0 * (nf + 1.0).ln() + (nf + 2.0).ln() - 2f64.ln();
        assert_contains(&plan, n, exact, 4.0 * f64::EPSILON * exact);
    }
    let Limit::Divergent { divergence } = plan.limit().unwrap() else {
        panic!()
    };
    assert!(divergence.terms[0].log && divergence.terms[0].coefficient == 3.0);
    let c = divergence.constant.unwrap();
    assert!(c.contains(-(2f64.ln())) && c.width() < 1e-13, "{c:?}");
}

#[test]
fn harmonic_constant_is_a_gamma_product() {
    // C = -log Gamma(1 - r1) - log Gamma(1 - r2), r roots of z^2 + z + 1 (mpmath, 30 digits)
    let plan = Plan::new(&Params::power(Family::Harmonic, 1.0, 1.0, 1.0, 1.0)).unwrap();
    let Limit::Divergent { divergence } = plan.limit().unwrap() else {
        panic!()
    };
    let c = divergence.constant.unwrap();
    assert!(
        c.contains(0.887_146_038_222_546_250_877) && c.width() < 1e-13,
        "{c:?}"
    );
}

#[test]
fn scaled_q2_limit_is_euler_sine_product() {
    // Q_inf = prod_i sinh(pi sqrt r_i)/(pi sqrt r_i), r = 1, 2 for A = 3, B = 2, c = 1
    let plan = Plan::new(&Params::power(Family::Scaled, 3.0, 2.0, 1.0, 2.0)).unwrap();
    let Limit::Finite { log_limit } = plan.limit().unwrap() else {
        panic!()
    };
    let exact = 3.560_140_326_316_300_420_289;
    assert!(
        log_limit.contains(exact) && log_limit.width() < 1e-13,
        "{log_limit:?}"
    );
}

#[test]
fn unscaled_with_q_plus_2_equals_scaled_with_q() {
    for (a, b, c, q) in [
        (1.0, 1.0, 1.0, 1.0),
        (7.0, 0.3, 0.02, 0.5),
        (0.5, 40.0, 300.0, 3.0),
    ] {
        let scaled = Plan::new(&Params::power(Family::Scaled, a, b, c, q)).unwrap();
        let unscaled = Plan::new(&Params::power(Family::Unscaled, a, b, c, q + 2.0)).unwrap();
        for n in DEPTHS {
            let (x, y) = (
                scaled.log_product(n).unwrap(),
                unscaled.log_product(n).unwrap(),
            );
            assert!(x.lo <= y.hi && y.lo <= x.hi, "N={n}: {x:?} vs {y:?}");
        }
    }
}

#[test]
fn first_factor_and_trivial_product() {
    let (a, b, c) = (2.5, 0.75, 4.0);
    for family in Family::ALL {
        let plan = Plan::new(&Params::power(family, a, b, c, 1.3)).unwrap();
        let x = if family == Family::Harmonic { 1.0 } else { 0.5 };
        let exact = (a * x + b * x * x).ln_1p();
        assert_contains(&plan, 1, exact, 2.0 * f64::EPSILON * exact);
        let zero = Plan::new(&Params::power(family, 0.0, 0.0, c, 1.3)).unwrap();
        assert_eq!(zero.log_product(1_000_000_000).unwrap().value, 0.0);
        assert_eq!(
            zero.limit().unwrap(),
            Limit::Finite {
                log_limit: depthprod::Enclosure::exact(0.0)
            }
        );
    }
}

#[test]
fn a_zero_converges_iff_q_above_one() {
    // A = 0: only even powers, log P_inf < inf iff 2p > 1, i.e. q > 1 for the unscaled family
    let conv = Plan::new(&Params::power(Family::Unscaled, 0.0, 2.0, 1.0, 1.5)).unwrap();
    assert!(matches!(conv.limit().unwrap(), Limit::Finite { .. }));
    let div = Plan::new(&Params::power(Family::Unscaled, 0.0, 2.0, 1.0, 0.8)).unwrap();
    assert!(matches!(div.limit().unwrap(), Limit::Divergent { .. }));
}

#[test]
fn exponential_variance() {
    let (a, b, c, lambda) = (1.0, 1.0, 1.0, 0.5);
    let params = Params {
        family: Family::Unscaled,
        a,
        b,
        variance: Variance::Exponential { c, lambda },
    };
    let plan = Plan::new(&params).unwrap();
    let mut direct = 0.0;
    for l in 1..=200u64 {
        let x = (-0.5 * lambda * l as f64).exp();
        direct += (x * (a + b * x)).ln_1p();
        if [1, 7, 200].contains(&l) {
            let e = plan.log_product(l).unwrap();
            assert!(
                (e.value - direct).abs() <= 1e-14 * direct + e.radius(),
                "N={l}"
            );
        }
    }
    let Limit::Finite { log_limit } = plan.limit().unwrap() else {
        panic!()
    };
    assert!((log_limit.value - direct).abs() < 1e-13);
    assert!(log_limit.hi < exponential_bound(a, b, c, lambda).unwrap().lo);
    // beyond the stopping point the value is the limit
    let far = plan.log_product(1_000_000_000_000).unwrap();
    assert!(far.lo <= log_limit.hi && log_limit.lo <= far.hi);
    // slow decay still terminates with a tight enclosure
    let slow = Params {
        family: Family::Scaled,
        a: 100.0,
        b: 100.0,
        variance: Variance::Exponential {
            c: 1e-3,
            lambda: 1e-3,
        },
    };
    let Limit::Finite { log_limit } = Plan::new(&slow).unwrap().limit().unwrap() else {
        panic!()
    };
    assert!(log_limit.relative_width() < 1e-12, "{log_limit:?}");
}

#[test]
fn measured_list() {
    let values = vec![1.0, 2.0, 3.0, 4.0];
    let params = Params {
        family: Family::Unscaled,
        a: 1.0,
        b: 1.0,
        variance: Variance::Measured {
            values: values.clone(),
        },
    };
    let plan = Plan::new(&params).unwrap();
    let direct: f64 = values
        .iter()
        .map(|v| (1.0 / v.sqrt() + 1.0 / v).ln_1p())
        .sum();
    assert!((plan.log_product(4).unwrap().value - direct).abs() < 1e-14);
    assert!(plan
        .log_product(5)
        .unwrap_err()
        .to_string()
        .contains("exceeds the measured list"));
    assert!(plan.evaluate(Depth::Infinite).is_err());
    assert!(plan.evaluate(Depth::Finite(4)).unwrap().tail.is_none());
}

#[test]
fn eq65_limit_is_not_the_true_limit() {
    // docs/MATH.md, section 3.2: Eq. 65's limit drops the l = 1 term, so it sits below log Q_inf (seed, eps = 1).
    let plan = Plan::new(&Params::power(Family::Scaled, 1.0, 1.0, 1.0, 1.0)).unwrap();
    let Limit::Finite { log_limit } = plan.limit().unwrap() else {
        panic!()
    };
    let eq65 = eq65_limit(1.0, 1.0, 1.0).unwrap();
    assert!(eq65.contains(2.5) && eq65.width() < 1e-14, "{eq65:?}");
    assert!(eq65.hi < log_limit.lo);
}

#[test]
fn zeta_tail_bound_covers_the_certified_tail() {
    // docs/MATH.md, Proposition 2: sum_{l>N} g(l) <= (A/sqrt c) N^(-q/2)/(q/2) + (B/c) N^(-1-q)/(1+q),
    // and for large N the bound is tight to first order (the tail is ~ the A term's integral).
    for (a, b, c, q) in [
        (1.0, 1.0, 1.0, 1.0),
        (2.0, 0.5, 1.0, 1.5),
        (7.0, 0.3, 0.02, 0.5),
        (0.5, 40.0, 300.0, 3.0),
        (100.0, 100.0, 1e-3, 0.05),
    ] {
        let plan = Plan::new(&Params::power(Family::Scaled, a, b, c, q)).unwrap();
        for n in [1u64, 10, 1000, 1_000_000, 1_000_000_000_000] {
            let tail = plan.tail(n).unwrap().unwrap();
            let bound = depthprod::zeta_tail_bound(a, b, c, q, n as f64).unwrap();
            assert!(
                tail.hi <= bound,
                "A={a} B={b} c={c} q={q} N={n}: tail {tail:?} above {bound}"
            );
        }
        let n = 1e12;
        let tail = plan.tail(n as u64).unwrap().unwrap();
        let bound = depthprod::zeta_tail_bound(a, b, c, q, n).unwrap();
        assert!(
            bound <= tail.lo * 1.01,
            "A={a} B={b} c={c} q={q}: bound {bound} not tight against {tail:?} at N = 1e12"
        );
    }
}
