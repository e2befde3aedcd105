//! Property tests: enclosures are ordered, products are monotone in N, limits and bounds lie
//! above partial values, and random invalid input gives errors, never panics or NaN.

use depthprod::{parse_list, zeta_bound, Depth, Family, Limit, Params, Plan, Variance};
use proptest::prelude::*;

fn family() -> impl Strategy<Value = Family> {
    prop_oneof![
        Just(Family::Unscaled),
        Just(Family::Scaled),
        Just(Family::Harmonic),
        Just(Family::SqrtScaled)
    ]
}

fn log_uniform(lo: f64, hi: f64) -> impl Strategy<Value = f64> {
    (lo.ln()..hi.ln()).prop_map(f64::exp)
}

/// Values that land inside [min, max], just outside it, far outside, below the A/B floor, and
/// non-finite, in comparable proportions (`any::<f64>()` almost never lands in range).
fn near(min: f64, max: f64) -> impl Strategy<Value = f64> {
    prop_oneof![
        min..=max,
        Just(min),
        Just(max),
        (1u64..1000).prop_map(move |k| min - k as f64 * 1e-3 * (1.0 + min.abs())),
        (1u64..1000).prop_map(move |k| max * (1.0 + k as f64 * 1e-3)),
        0.0f64..1e-100,
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(-f64::INFINITY),
        any::<f64>(),
    ]
}

fn depth() -> impl Strategy<Value = u64> {
    (0.0f64..18.0).prop_map(|e| 10f64.powf(e).round().clamp(1.0, 1e18) as u64)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn enclosures_are_ordered_and_monotone(fam in family(), a in 0.0f64..100.0, b in 0.0f64..100.0,
                                           c in log_uniform(1e-3, 1e3), q in log_uniform(0.05, 8.0),
                                           n1 in depth(), n2 in depth()) {
        let plan = Plan::new(&Params::power(fam, a, b, c, q)).unwrap();
        let (lo_n, hi_n) = (n1.min(n2), n1.max(n2));
        let x = plan.log_product(lo_n).unwrap();
        let y = plan.log_product(hi_n).unwrap();
        for e in [x, y] {
            prop_assert!(e.value.is_finite() && e.lo <= e.value && e.value <= e.hi, "{e:?}");
            // every g(l) > 0 (A or B > 0), so log P_N >= log P_1 > 0; and the width goal
            let first = plan.log_product(1).unwrap();
            prop_assert!(e.hi >= first.lo && e.lo <= e.hi, "{e:?} below log P_1 {first:?}");
            prop_assert!(e.width() <= 1e-12 * e.value.abs().max(1.0), "{e:?} wider than 1e-12");
        }
        // exact values are nondecreasing in N, so the enclosures cannot contradict that
        prop_assert!(y.hi >= x.lo, "N={lo_n}: {x:?}, N={hi_n}: {y:?}");
        match plan.limit().unwrap() {
            Limit::Finite { log_limit } => {
                prop_assert!(log_limit.hi >= y.lo, "limit {log_limit:?} below {y:?}");
                let tail = plan.tail(hi_n).unwrap().unwrap();
                prop_assert!(tail.lo <= tail.hi && tail.lo >= 0.0);
                if fam == Family::Scaled {
                    let zb = zeta_bound(a, b, c, q).unwrap();
                    prop_assert!(zb.hi >= log_limit.lo, "zeta bound {zb:?} below limit {log_limit:?}");
                }
            }
            Limit::Divergent { divergence } => {
                prop_assert!(!divergence.terms.is_empty());
                prop_assert!(plan.tail(hi_n).unwrap().is_none());
            }
        }
    }

    #[test]
    fn random_parameters_never_panic(a in near(0.0, 100.0), b in near(0.0, 100.0), c in near(1e-3, 1e3), q in near(0.05, 8.0),
                                     n in any::<u64>(), fam in family()) {
        let params = Params::power(fam, a, b, c, q);
        match Plan::new(&params) {
            Ok(plan) => {
                if let Ok(e) = plan.log_product(n) {
                    prop_assert!(!e.value.is_nan() && !e.lo.is_nan() && !e.hi.is_nan());
                }
            }
            Err(e) => {
                // the message names the offending parameter, which is one of the inputs
                let msg = e.to_string();
                let named = ["A", "B", "c", "q", "A/√c", "B/c"].iter().any(|p| msg.starts_with(&format!("{p} ")));
                prop_assert!(named, "{msg}");
                // the ranges (c through A/√c and B/c, docs/MATH.md §5.5a), with a margin where a
                // double's comparison could go either way
                let out_of = |x: f64, (lo, hi): (f64, f64)| !(lo * (1.0 - 1e-9)..=hi * (1.0 + 1e-9)).contains(&x);
                let floor = |x: f64, f: f64| x > 0.0 && x < f * (1.0 + 1e-9);
                prop_assert!(out_of(a, (0.0, 100.0)) || out_of(b, (0.0, 100.0)) || out_of(c, (1e-300, 1e300))
                    || out_of(q, (0.05, 8.0)) || floor(a, 1e-100) || floor(b, 1e-100)
                    || a * a / c > 1e7 * (1.0 - 1e-9) || b / c > 1e5 * (1.0 - 1e-9)
                    || floor(a * a / c, 1e-220) || floor(b / c, 1e-110),
                    "refused valid parameters: {msg}");
            }
        }
        let exp = Params { family: fam, a, b, variance: Variance::Exponential { c, lambda: q } };
        if let Ok(plan) = Plan::new(&exp) {
            prop_assert!(plan.log_product(n.clamp(1, 1_000_000)).is_ok());
        }
    }

    #[test]
    fn random_text_never_panics(s in ".{0,40}") {
        let _ = s.parse::<Depth>();
        let _ = s.parse::<Family>();
        if let Ok(values) = parse_list(&s) {
            prop_assert!(values.iter().all(|v| v.is_finite() && *v > 0.0));
        }
    }

    #[test]
    fn out_of_range_messages_name_the_parameter(a in -1e6f64..-1e-9) {
        let msg = Plan::new(&Params::power(Family::Scaled, a, 1.0, 1.0, 1.0)).unwrap_err().to_string();
        prop_assert!(msg.starts_with("A = ") && msg.contains("[0, 100]"), "{}", msg);
    }
}
