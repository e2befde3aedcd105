//! Issue 7's holes: each test here failed before its fix (see the commit messages) and checks
//! containment AND width, never one without the other.

use depthprod::{
    Error, Family, GrowthClass, Limit, Number, Params, ParamsInput, Plan, Variance, VarianceInput,
};

fn typed(family: Family, a: &str, b: &str, c: &str, q: &str) -> Plan {
    Plan::from_input(&ParamsInput {
        family,
        a: Number::from(a),
        b: Number::from(b),
        variance: VarianceInput::Power {
            c: Number::from(c),
            q: Some(Number::from(q)),
            eps: None,
        },
    })
    .unwrap()
}

fn exponential(a: f64, b: f64, c: f64, lambda: f64) -> Plan {
    Plan::new(&Params {
        family: Family::Unscaled,
        a,
        b,
        variance: Variance::Exponential { c, lambda },
    })
    .unwrap()
}

/// Item 2: the exponential tail underflowed to {0, 0} although the true tail is positive.
/// Now its upper bound is never below the truth: at N = 10^6, lambda = 0.1 the truth is about
/// e^(-50000) < 2^-1074, so the smallest positive double is the smallest provable bound; at
/// lambda = 10, N = 70 the truth (~e^(-355), a normal double) is bounded below by its first term
/// g(71) >= x (1 - x/2), x = e^(-355).
#[test]
fn exponential_tail_is_never_below_the_truth() {
    let t = exponential(1.0, 1.0, 1.0, 0.1)
        .tail(1_000_000)
        .unwrap()
        .unwrap();
    assert_eq!(t.lo, 0.0);
    assert!(t.hi > 0.0 && t.hi < 1e-322, "{t:?}");
    let plan = exponential(1.0, 1.0, 1.0, 10.0);
    let t = plan.tail(70).unwrap().unwrap();
    let x = (-5.0f64 * 71.0).exp();
    assert!(
        x > 0.0 && t.hi >= x * (1.0 - x / 2.0),
        "{t:?} vs first term {x:e}"
    );
    // and it is a tight bound: the geometric series exceeds the first term by 1/(1 - e^-5)
    assert!(t.hi <= x * 1.01, "{t:?}");
}

/// Item 3: A = 5e-324 gave [2.77e-322, 2.77e-322] (truth 3.06e-322), A = 1e-315 missed too.
/// Nonzero A or B below 1e-100 is refused with a message naming it; 1e-100 itself is certified.
#[test]
fn tiny_a_and_b_are_refused_or_certified() {
    for (a, b, name) in [(5e-324, 1.0, "A"), (1e-315, 1.0, "A"), (1.0, 1e-310, "B")] {
        let err = Plan::new(&Params::power(Family::Unscaled, a, b, 1.0, 1.0)).unwrap_err();
        assert!(
            matches!(err, Error::BelowFloor { name: n, .. } if n == name),
            "{err:?}"
        );
        let msg = err.to_string();
        assert!(
            msg.starts_with(&format!("{name} = ")) && msg.contains("1e-100"),
            "{msg}"
        );
        assert!(msg.len() < 200, "{msg}");
    }
    // A = 1e-100, B = 0, scaled, c = q = 1: log P_N = 1e-100 H_N(3/2) (1 - O(1e-100)),
    // H_(10^6)(3/2) = zeta(3/2) - zeta(3/2, 10^6 + 1) = 2.61037534918548821834856756794
    // (mpmath at 30 digits; the same digits from a direct mp sum over the 10^6 terms)
    let plan = Plan::new(&Params::power(Family::Scaled, 1e-100, 0.0, 1.0, 1.0)).unwrap();
    let e = plan.log_product(1_000_000).unwrap();
    let truth = 2.610_375_349_185_488_2e-100;
    assert!(e.lo <= truth && truth <= e.hi, "{e:?}");
    assert!(e.width() <= 1e-12 * truth, "{e:?}");
}

/// Item 4: sqrt-scaled, q = 1.0000000000000002 was called divergent ("+1 log N") because
/// 1 + q rounds to 2. p = (1 + q)/2 > 1: it converges, to 2^53 + 0.887 for the double q
/// (three independent methods agree, issue 7) and to about 10^16 for the typed decimal
/// (p - 1 = 10^-16 exactly; zeta(1 + d) = 1/d + gamma + O(d), and the rest of the series adds
/// sum_k c_k zeta(kp) for k >= 2, a number of size 1).
#[test]
fn convergence_is_decided_on_the_exact_input() {
    let double = Plan::new(&Params::power(
        Family::SqrtScaled,
        1.0,
        1.0,
        1.0,
        1.000_000_000_000_000_2,
    ))
    .unwrap();
    assert_eq!(double.growth().class, GrowthClass::Convergent);
    let Limit::Finite { log_limit } = double.limit().unwrap() else {
        panic!("converges")
    };
    let truth = 9_007_199_254_740_992.887;
    assert!(log_limit.contains(truth), "{log_limit:?}");
    assert!(log_limit.relative_width() <= 1e-12, "{log_limit:?}");

    let decimal = typed(Family::SqrtScaled, "1", "1", "1", "1.0000000000000002");
    assert_eq!(decimal.growth().class, GrowthClass::Convergent);
    let Limit::Finite { log_limit } = decimal.limit().unwrap() else {
        panic!("converges")
    };
    // sum_k c_k zeta(k p) with p = 1 + 1e-16 (mpmath, 40 digits; the same series gives
    // 9007199254740992.887146038 for the double q, matching the three methods)
    assert!(
        log_limit.contains(10_000_000_000_000_000.887),
        "{log_limit:?}"
    );
    assert!(log_limit.relative_width() <= 1e-12, "{log_limit:?}");
    assert!(decimal.unresolved().is_empty());
}

/// Item 6: at q = 1.9999999999999998, N = 10^18 the enclosure was [25.43, 59.43] around a value
/// 0.094 off the truth 42.3336777121 (issue 7, three methods); at q = 2 - 2^-52 the width was 34.
#[test]
fn near_resonant_exponents_are_well_conditioned() {
    for (q, n, truth, tol) in [
        (
            1.999_999_999_999_999_8,
            1_000_000_000_000_000_000u64,
            42.333_677_712_1,
            1e-10,
        ),
        // reference.json: near-resonant-unscaled-q1.99999-1e9 (mpmath, two routes)
        (1.99999, 1_000_000_000, 21.611_488_282_459_35, 1e-13),
    ] {
        let plan = Plan::new(&Params::power(Family::Unscaled, 1.0, 1.0, 1.0, q)).unwrap();
        let e = plan.log_product(n).unwrap();
        assert!(
            e.lo - tol <= truth && truth <= e.hi + tol,
            "q = {q}: {e:?} vs {truth}"
        );
        assert!(e.relative_width() <= 1e-12, "q = {q}: {e:?}");
    }
}

/// Item 7: a typed q = 0.4 is 2/5, k p = 1 at k = 5: a log N term and a certified C (the
/// remainder curve converges to -2.372). Before, C was dropped (rounded 5 p != 1 exactly).
#[test]
fn exact_resonance_keeps_the_constant() {
    let plan = typed(Family::Unscaled, "1", "1", "1", "0.4");
    let growth = plan.growth();
    assert_eq!(growth.class, GrowthClass::StretchedExponential);
    let log = growth
        .log_coefficient
        .expect("k = 5 is resonant: a log N term");
    assert!(log.width() < 1e-14, "{log:?}");
    let c = growth.constant.expect("C is certified at exact resonance");
    // reference.json: resonant-unscaled-q0.4-C = -2.37271789249229089558...
    assert!(c.contains(-2.372_717_892_492_290_9), "{c:?}");
    assert!(c.width() < 1e-11, "{c:?}");
}

/// Item 9 (core side): messages print values in shortest round-trip form.
#[test]
fn messages_print_short_numbers() {
    let msg = Plan::new(&Params::power(Family::Unscaled, -5e-324, 1.0, 1.0, 1.0))
        .unwrap_err()
        .to_string();
    assert_eq!(msg, "A = -5e-324 is outside the supported range [0, 100]");
}

/// The ends of every range, typed as the decimals the messages print, are inside it; a decimal
/// one step past an end is outside, even where its double rounds onto the end.
#[test]
fn typed_range_ends_are_accepted_and_just_outside_refused() {
    for (c, q) in [
        ("0.001", "0.05"),
        ("1000", "8"),
        ("0.001", "8"),
        ("1000", "0.05"),
    ] {
        let plan = typed(Family::Unscaled, "100", "100", c, q);
        let v = plan.log_product(1000).unwrap();
        assert!(v.relative_width() <= 1e-12, "c = {c}, q = {q}: {v:?}");
    }
    let input = |a: &str, b: &str, c: &str, q: &str| ParamsInput {
        family: Family::Scaled,
        a: Number::Text(a.into()),
        b: Number::Text(b.into()),
        variance: VarianceInput::Power {
            c: Number::Text(c.into()),
            q: Some(Number::Text(q.into())),
            eps: None,
        },
    };
    for (a, b, c, q, want) in [
        ("100.00000000000000000001", "1", "1", "1", "A = 100.00000000000000000001 is outside the supported range [0, 100]"),
        // c's own range is the effective coefficients' (docs/MATH.md §5.5a): at the corner
        // A = B = 100 a hair below c = 0.001 puts A/√c a hair above √10^7
        ("100", "100", "0.00099999999999999999999", "1", "A/√c ≈ 3162.28 (A = 100, c = 0.00099999999999999999999) is outside the supported range [0, 3162.27…]"),
        ("1", "100", "0.00099999999999999999999", "1", "B/c ≈ 100000 (B = 100, c = 0.00099999999999999999999) is outside the supported range [0, 100000]"),
        ("1", "1", "1", "0.04999999999999999999999", "q = 0.04999999999999999999999 is outside the supported range [0.05, 8]"),
        ("1", "1", "1", "8.000000000000000000001", "q = 8.000000000000000000001 is outside the supported range [0.05, 8]"),
    ] {
        let err = Plan::from_input(&input(a, b, c, q)).unwrap_err().to_string();
        assert!(err.starts_with(want), "{a} {b} {c} {q}: {err}");
    }
    // beyond the old c range [0.001, 1000], inside the effective one: accepted
    for c in [
        "1000.0000000000000000001",
        "0.00099999999999999999999",
        "1e-5",
    ] {
        Plan::from_input(&input("1", "1", c, "1")).unwrap();
    }
}

/// Item 6, the leading terms: near a resonance the expansion read 9.007e15 N^1.1e-16 with
/// C = -9.007e15 (q = 2 - 2^-52): true, but no reader can use it. The pair is now one log-like
/// term c (N^d - 1)/d with the constant C + c/d, certified (docs/MATH.md 6.6); the growth keeps
/// the classic C. Checked: the form of the terms, the constant against mpmath
/// (reference.json's constant_log_like, containment and width), and that terms + constant
/// describe log P_N at large N (the o(1) is O(N^-1/2) or smaller here).
#[test]
fn near_resonant_leading_terms_are_one_log_like_term() {
    use depthprod::CurveKind;
    // (family, q, N for the o(1) check, |o(1)| bound there, C + c/d from reference.json)
    let cases = [
        (
            Family::Unscaled,
            "1.9999999999999997779553950749686919152736663818359375",
            1e18,
            1e-12,
            0.887_146_038_222_546_311_6,
        ),
        (
            Family::Unscaled,
            "1.9999999",
            1e18,
            1e-12,
            0.887_146_065_580_597_502_3,
        ),
        (
            Family::SqrtScaled,
            "0.9999999",
            1e18,
            1e-12,
            0.887_146_065_580_597_502_3,
        ),
        // 2p = 1 + 1e-7 just above the pole: 2 N^0.5 - ... and a bounded log-like term
        (
            Family::Unscaled,
            "1.0000001",
            1e16,
            1e-7,
            -2.465_515_881_287_564_818,
        ),
    ];
    for (family, q, n, o1, merged) in cases {
        let plan = typed(family, "1", "1", "1", q);
        let Limit::Divergent { divergence } = plan.limit().unwrap() else {
            panic!("q = {q} diverges")
        };
        let near: Vec<_> = divergence.terms.iter().filter(|t| t.log_like).collect();
        assert_eq!(near.len(), 1, "q = {q}: {divergence:?}");
        assert!(near[0].exponent.abs() < 1e-6, "q = {q}: {near:?}");
        assert!(
            divergence.terms.iter().all(|t| t.coefficient.abs() < 10.0),
            "q = {q}: no term of size 1/d is left: {divergence:?}"
        );
        let c = divergence.constant.expect("certified");
        assert!(
            c.lo <= merged + 1e-15 && merged - 1e-15 <= c.hi,
            "q = {q}: {c:?} vs {merged}"
        );
        assert!(c.relative_width() <= 1e-12, "q = {q}: {c:?}");
        // terms + constant describe log P_N (up to o(1) and the curve's own rounding, ~1e-15
        // relative: the curves are central values, not enclosures)
        let depth = n as u64;
        let value = plan.log_product(depth).unwrap();
        let mut asym = [0.0];
        plan.curve(CurveKind::Asymptote, &[n], &mut asym).unwrap();
        assert!(
            (value.value - asym[0]).abs() <= o1 + 1e-14 * value.value.abs(),
            "q = {q}: log P_N = {value:?}, terms + C = {}",
            asym[0]
        );
        // the remainder (log P_N minus the terms) is near the same constant
        let mut rem = [0.0];
        plan.curve(CurveKind::Remainder, &[n], &mut rem).unwrap();
        assert!(
            (rem[0] - c.value).abs() <= o1 + 1e-14 * value.value.abs(),
            "q = {q}: remainder {rem:?} vs {c:?}"
        );
    }
    // far from the pole (d = 0.05) the classic form stays
    let plan = typed(Family::Unscaled, "1", "1", "1", "1.9");
    let Limit::Divergent { divergence } = plan.limit().unwrap() else {
        panic!("diverges")
    };
    assert!(
        divergence.terms.iter().all(|t| !t.log_like),
        "{divergence:?}"
    );
}
