//! Curves (what the page plots) agree with point evaluations and converge where they should.

use depthprod::{depth_grid, eq65_exponent, CurveKind, Error, Family, Limit, Params, Plan};

fn curve(plan: &Plan, kind: CurveKind, ns: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0; ns.len()];
    plan.curve(kind, ns, &mut out).unwrap();
    out
}

#[test]
fn grid_is_integer_increasing_and_complete() {
    let ns = depth_grid(1_000_000_000_000_000_000, 1000).unwrap();
    assert_eq!(ns[0], 1.0);
    assert_eq!(*ns.last().unwrap(), 1e18);
    assert!(ns.len() > 900 && ns.len() <= 1000);
    assert!(ns.windows(2).all(|w| w[0] < w[1]) && ns.iter().all(|n| n.fract() == 0.0));
    assert_eq!(depth_grid(5, 1000).unwrap(), vec![1.0, 2.0, 3.0, 4.0, 5.0]);
    assert!(depth_grid(0, 10).is_err());
}

#[test]
fn curves_match_point_values() {
    for family in Family::ALL {
        let plan = Plan::new(&Params::power(family, 1.0, 1.0, 1.0, 1.0)).unwrap();
        let ns = depth_grid(1_000_000_000_000_000_000, 200).unwrap();
        let values = curve(&plan, CurveKind::LogProduct, &ns);
        for (n, v) in ns.iter().zip(&values) {
            let e = plan.log_product(*n as u64).unwrap();
            assert_eq!(*v, e.value, "{family:?} N={n}");
        }
        let claim = curve(&plan, CurveKind::LinearClaim, &ns);
        assert!(
            (claim[0] - values[0]).abs() < 1e-15 && (claim[1] - claim[0] - 2f64.ln()).abs() < 1e-12
        );
        let eq65 = curve(&plan, CurveKind::Eq65Exponent, &ns);
        assert_eq!(
            eq65[50],
            eq65_exponent(1.0, 1.0, 1.0, ns[50]).unwrap().value
        );
    }
}

#[test]
fn remainder_tends_to_c_and_asymptote_to_the_product() {
    let plan = Plan::new(&Params::power(Family::Unscaled, 1.0, 1.0, 1.0, 1.0)).unwrap();
    let Limit::Divergent { divergence } = plan.limit().unwrap() else {
        panic!()
    };
    let c = divergence.constant.unwrap().value;
    let ns = [1e2, 1e6, 1e12, 1e18];
    let remainder = curve(&plan, CurveKind::Remainder, &ns);
    let errors: Vec<f64> = remainder.iter().map(|r| (r - c).abs()).collect();
    // o(1) term ~ N^-1/2: each step shrinks it
    assert!(errors.windows(2).all(|w| w[1] < w[0]), "{errors:?}");
    assert!(errors[3] < 1e-8, "{errors:?}");
    let asymptote = curve(&plan, CurveKind::Asymptote, &ns);
    let product = curve(&plan, CurveKind::LogProduct, &ns);
    assert!((asymptote[3] - product[3]).abs() / product[3] < 1e-15);
    // the remainder computed without cancellation agrees with product - leading
    let leading = curve(&plan, CurveKind::Leading, &ns);
    assert!((remainder[1] - (product[1] - leading[1])).abs() < 1e-9);
}

#[test]
fn tail_curve_shrinks_like_n_to_the_minus_q_over_2() {
    let plan = Plan::new(&Params::power(Family::Scaled, 1.0, 1.0, 1.0, 1.0)).unwrap();
    let ns = [1e3, 1e6, 1e9, 1e12];
    let tail = curve(&plan, CurveKind::Tail, &ns);
    for w in tail.windows(2) {
        // q = 1: the tail falls by 1000^(1/2) per step, asymptotically
        let ratio = w[0] / w[1];
        assert!((ratio / 1000f64.sqrt() - 1.0).abs() < 0.05, "{tail:?}");
    }
    assert_eq!(tail[1], plan.tail(1_000_000).unwrap().unwrap().hi);
}

#[test]
fn kinds_that_do_not_apply_are_errors() {
    let scaled = Plan::new(&Params::power(Family::Scaled, 1.0, 1.0, 1.0, 1.0)).unwrap();
    let unscaled = Plan::new(&Params::power(Family::Unscaled, 1.0, 1.0, 1.0, 1.0)).unwrap();
    let mut out = [0.0];
    let err = scaled
        .curve(CurveKind::Remainder, &[10.0], &mut out)
        .unwrap_err();
    assert!(
        matches!(
            err,
            Error::CurveDoesNotApply {
                curve: "remainder",
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("does not diverge"), "{err}");
    let err = unscaled
        .curve(CurveKind::Tail, &[10.0], &mut out)
        .unwrap_err();
    assert!(matches!(
        err,
        Error::CurveDoesNotApply { curve: "tail", .. }
    ));
    let err = unscaled
        .curve(CurveKind::LogProduct, &[10.0, 20.0], &mut out)
        .unwrap_err();
    assert_eq!(
        err,
        Error::LengthMismatch {
            depths: 2,
            outputs: 1
        }
    );
    assert!(err.to_string().contains("same length"), "{err}");
    let q3 = Plan::new(&Params::power(Family::Scaled, 1.0, 1.0, 1.0, 3.0)).unwrap();
    assert!(q3
        .curve(CurveKind::Eq65Exponent, &[10.0], &mut out)
        .is_err());
    assert!(scaled
        .curve(CurveKind::LogProduct, &[0.5], &mut out)
        .is_err());
    assert!(scaled
        .curve(CurveKind::LogProduct, &[f64::NAN], &mut out)
        .is_err());
    assert!("bogus".parse::<CurveKind>().is_err());
}
