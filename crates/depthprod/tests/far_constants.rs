//! The constant C where the series start M is beyond every double depth (unscaled family, small q,
//! large A/sqrt c): the finite-part route of docs/MATH.md §4.8. Every enclosure must contain its
//! mpmath reference (tests/reference/far_constants.json, two independent routes each, see
//! make_far_constants.py) AND be at most 1e-12 wide; the route must agree with the series route of
//! §4.5 where both apply.

mod common;

use common::{contains_exactly, reference_json, Rng};
use depthprod::{
    Enclosure, Family, Limit, Number, Params, ParamsInput, Plan, RouteOptions, VarianceInput,
};
use proptest::prelude::*;
use serde_json::Value;

/// The constant the divergence shows (C + c/d with a log-like term, else C).
fn shown_constant(plan: &Plan) -> Option<Enclosure> {
    match plan.limit().unwrap() {
        Limit::Divergent { divergence } => divergence.constant,
        Limit::Finite { .. } => panic!("should diverge"),
    }
}

#[test]
fn far_constants_contain_their_references_and_meet_the_width_goal() {
    let data: Value = reference_json("far_constants.json");
    let cases = data["cases"].as_array().unwrap();
    assert!(
        cases.len() >= 12,
        "expected the full set, got {}",
        cases.len()
    );
    let mut worst: (f64, String) = (0.0, String::new());
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let num = |k: &str| Number::Double(case[k].as_f64().unwrap());
        let q = match case["q_decimal"].as_str() {
            Some(text) => Number::Text(text.into()),
            None => num("q"),
        };
        let plan = Plan::from_input(&ParamsInput {
            family: Family::Unscaled,
            a: num("A"),
            b: num("B"),
            variance: VarianceInput::Power {
                c: num("c"),
                q: Some(q),
                eps: None,
            },
        })
        .unwrap();
        assert!(
            plan.unresolved().is_empty(),
            "{name}: {:?}",
            plan.unresolved()
        );
        let shown = shown_constant(&plan).unwrap_or_else(|| panic!("{name}: no constant"));
        let merged = case["merged"].as_str().unwrap();
        assert!(
            contains_exactly(&shown, merged),
            "{name}: {shown:?} misses {merged}"
        );
        assert!(
            shown.relative_width() <= 1e-12,
            "{name}: width {:e}",
            shown.relative_width()
        );
        // The classic C of the growth class is C' - c_n/d_n: at a double q near 2/n it is ~c_n/d_n
        // (d_n ~ 1e-17), and its width is c_n's certified error over |d_n|, which is why the page
        // shows C' instead. It must contain its reference; the width goal is C''s, and C''s = C's
        // at exact resonance (a typed q = 2/n, or the double 0.5).
        let classic = plan.growth().constant.expect("classic C");
        let c = case["C"].as_str().unwrap();
        assert!(
            contains_exactly(&classic, c),
            "{name}: {classic:?} misses {c}"
        );
        if case["q_decimal"].is_string() || case["q"].as_f64() == Some(0.5) {
            assert!(classic.relative_width() <= 1e-12, "{name}: {classic:?}");
        }
        if shown.relative_width() > worst.0 {
            worst = (shown.relative_width(), name.to_string());
        }
    }
    eprintln!("widest far constant: {:e} at {}", worst.0, worst.1);
}

/// Where M is a double depth, the series route and the finite-part route both give C (or C + c/d,
/// when 1/p is near an integer): narrow enclosures that overlap.
#[test]
fn finite_part_route_agrees_with_the_series_route() {
    let forced = RouteOptions {
        finite_part: true,
        direct_max: 0.0,
        ..RouteOptions::default()
    };
    let mut checked = 0;
    for (a, b, c, q) in [
        (1.0, 0.1, 1.0, 0.5),
        (1.0, 0.0, 1.0, 0.5),
        (3.0, 1.0, 1.0, 0.5),
        (1.0, 0.1, 1.0, 2.0 / 3.0),
        (2.0, 0.5, 4.0, 0.25),
        (0.0, 1.0, 1.0, 0.25),
        (0.0, 2.0, 1.0, 1.0 / 3.0),
        // 1/p far from an integer: Lemma F1 at general s
        (1.0, 0.1, 1.0, 0.3),
        (2.0, 0.5, 1.0, 0.45),
        (1.0, 2.0, 1.0, 0.35),
        (0.0, 1.0, 1.0, 0.3),
    ] {
        let params = Params::power(Family::Unscaled, a, b, c, q);
        let series = shown_constant(&Plan::new(&params).unwrap()).expect("series route C");
        let finite = shown_constant(&Plan::with_route(&params, forced).unwrap())
            .unwrap_or_else(|| panic!("A={a} B={b} c={c} q={q}: finite-part route declined"));
        let what = format!("A={a} B={b} c={c} q={q}: series {series:?}, finite part {finite:?}");
        assert!(series.relative_width() <= 1e-12, "{what}");
        assert!(finite.relative_width() <= 1e-12, "{what}");
        assert!(
            series.lo <= finite.hi && finite.lo <= series.hi,
            "{what}: disjoint"
        );
        checked += 1;
    }
    assert_eq!(checked, 11);
}

/// A corner point the proptest below found (its seed is random): 40 p = 1 + 5.6e-17, so the
/// divergence shows a log-like term and C' = C + c/d. C' is certified to 1e-12 of its scale, but
/// the classic C = C' - c/d is not resolvable (c_40's rounding over |d| = 5.6e-17 exceeds it).
/// `unresolved()` used to judge the classic C and so refused the constant the page shows; it now
/// judges C', and `growth()` still leaves out the classic C, saying why.
#[test]
fn near_resonant_corner_certifies_the_shown_constant() {
    let a: f64 = 18.769460608096857;
    let b = (0.919521695967204 * a * a).min(100.0);
    let plan = Plan::new(&Params::power(Family::Unscaled, a, b, 1e-3, 0.05)).unwrap();
    assert!(plan.unresolved().is_empty(), "{:?}", plan.unresolved());
    let k = shown_constant(&plan).unwrap();
    let scale = k.value.abs().max(plan.constant_scale().unwrap()).max(1.0);
    assert!(k.width() / scale <= 1e-11, "{k:?} scale {scale:e}");
    let Limit::Divergent { divergence } = plan.limit().unwrap() else {
        panic!("the unscaled product diverges")
    };
    assert!(
        divergence.terms.iter().any(|t| t.log_like),
        "{:?}",
        divergence.terms
    );
    let growth = plan.growth();
    assert!(growth.constant.is_none(), "{:?}", growth.constant);
    let why = growth.reason.expect("growth says why its C is missing");
    assert!(
        why.contains("C', the constant that goes with the log-like term, is certified"),
        "{why}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// 1/p far from an integer (q = 0.07, 0.13 beyond every double depth): Lemma F1 at general s,
    /// its terms from the inputs in double-double (Lemma F4). Certified within the goal (width on
    /// fresh random points; containment on the fixed sample with references).
    #[test]
    fn general_exponents_are_certified(
        a in 1.0f64..100.0,
        b_frac in 0.0f64..2.0,
        c in 1e-3f64..1.0,
        q in prop::sample::select(vec![0.07, 0.13]),
    ) {
        let b = (b_frac * a * a).min(100.0);
        let plan = Plan::new(&Params::power(Family::Unscaled, a, b, c, q)).unwrap();
        prop_assert!(plan.unresolved().is_empty(), "{:?}", plan.unresolved());
        let k = shown_constant(&plan).unwrap();
        prop_assert!(k.relative_width() <= 1e-12, "{k:?} scale {:?}", plan.constant_scale());
    }

    /// The corner: small q, large A/sqrt c, real or complex roots (B up to 2 A^2), and A = 0. C + c/d
    /// is certified within the goal and nothing is left unresolved on fresh random points; the
    /// containment of the same distribution's constants is
    /// `random_corner_constants_contain_their_references`' (a fixed sample with references). C is what remains of closed-form parts of size S = sum |w_i|^s
    /// (`Plan::constant_scale`); near a sign change of C (complex roots) |C| is far below S, and
    /// the roots' terms in double precision (Lemma F3) left it up to 5e-10 wide relative to |C|
    /// here. From the inputs in double-double (Lemma F4) it meets 1e-12 (measured at most 6e-13
    /// over 80,000 such points).
    #[test]
    fn corner_constants_are_certified(
        a in 1.0f64..100.0,
        b_frac in 0.0f64..2.0,
        c in 1e-3f64..1.0,
        q in prop::sample::select(vec![0.05, 0.1, 0.2]),
    ) {
        let b = (b_frac * a * a).min(100.0);
        let plan = Plan::new(&Params::power(Family::Unscaled, a, b, c, q)).unwrap();
        prop_assert!(plan.unresolved().is_empty(), "{:?}", plan.unresolved());
        let k = shown_constant(&plan).unwrap();
        prop_assert!(k.relative_width() <= 1e-12, "{k:?} scale {:?}", plan.constant_scale());
        let plan = Plan::new(&Params::power(Family::Unscaled, 0.0, b.max(1e-2), c, q)).unwrap();
        prop_assert!(plan.unresolved().is_empty(), "A = 0: {:?}", plan.unresolved());
        let k = shown_constant(&plan).unwrap();
        prop_assert!(k.relative_width() <= 1e-12, "A = 0: {k:?}");
    }

}

/// Where the series start M is a double depth, the series route (§4.5, doubles) and the
/// finite-part route (§4.8, the inputs in double-double) are two evaluations of the same
/// constant: where the page shows the series route's, the forced finite part overlaps it and
/// meets the goal too, at doubles and typed decimals, near resonance and away from it, with
/// real, double and complex roots. Where the page shows the finite part's constant (the series
/// route's is wider than the goal), the series route alone must still overlap it. A draw is
/// compared when the other route resolves a constant at all; the count guard makes sure nearly
/// every draw is.
#[test]
fn finite_part_agrees_with_the_series_route_at_random() {
    let mut rng = Rng(0xc0ff_ee00_0000_0005);
    let qs = [0.2, 0.2004, 0.25, 0.3, 0.33, 0.4, 0.45, 0.5, 0.6];
    let (mut drawn, mut compared) = (0, 0);
    for _ in 0..96 {
        let a = rng.range(0.0, 30.0);
        let b_frac = rng.range(0.0, 3.0);
        let double_root = rng.next_f64() < 0.5;
        let c = rng.range(1e-3, 10.0);
        let q = qs[(rng.next_f64() * qs.len() as f64) as usize % qs.len()];
        let typed = rng.next_f64() < 0.5;
        let b = if double_root {
            a * a / 4.0
        } else {
            b_frac * a * a
        }
        .clamp(0.0, 100.0);
        let input = |x: f64| {
            if typed {
                Number::Text(format!("{x:.4}"))
            } else {
                Number::Double(x)
            }
        };
        let params = ParamsInput {
            family: Family::Unscaled,
            a: input(a),
            b: input(b),
            variance: VarianceInput::Power {
                c: input(c),
                q: Some(input(q)),
                eps: None,
            },
        };
        drawn += 1;
        // A/√c beyond √10^7 (typed a and c rounded to 4 places): refused, as it must be
        let Ok(shown) = Plan::from_input(&params) else {
            continue;
        };
        let what = format!("A={a} B={b} c={c} q={q} typed={typed}");
        let shown_c = shown_constant(&shown).unwrap_or_else(|| panic!("{what}: no constant"));
        assert!(
            shown_c.relative_width() <= 1e-12,
            "{what}: shown {shown_c:?}"
        );
        // the other route: the forced finite part where the page shows the series route's
        // constant, the series route alone where it shows the finite part's (constant_scale)
        let other = RouteOptions {
            finite_part: shown.constant_scale().is_none(),
            series_only: shown.constant_scale().is_some(),
            ..RouteOptions::default()
        };
        let other_c = shown_constant(&Plan::from_input_with_route(&params, other).unwrap());
        let Some(o) = other_c else {
            // the series route cannot resolve this C at all (its partial sums swamp it)
            assert!(other.series_only, "{what}: the finite part declined");
            continue;
        };
        assert!(
            shown_c.lo <= o.hi && o.lo <= shown_c.hi,
            "{what}: disjoint: shown {shown_c:?}, other route {o:?}"
        );
        if other.finite_part {
            assert!(o.relative_width() <= 1e-12, "{what}: finite part {o:?}");
        }
        compared += 1;
    }
    assert_eq!(drawn, 96);
    assert!(compared >= 88, "only {compared} of {drawn} draws compared");
}

/// Random points of the corner (tests/reference/corner_sample.json, drawn by
/// make_corner_sample.py from the distributions of the property tests above, each constant by
/// two routes at 60 digits): the shown constant contains its reference and is within 1e-12.
#[test]
fn random_corner_constants_contain_their_references() {
    let data: Value = reference_json("corner_sample.json");
    let cases = data["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 40, "the full sample");
    for case in cases {
        let num = |k: &str| case[k].as_f64().unwrap();
        let (a, b, c, q) = (num("A"), num("B"), num("c"), num("q"));
        let plan = Plan::new(&Params::power(Family::Unscaled, a, b, c, q)).unwrap();
        let what = format!("A={a} B={b} c={c} q={q}");
        assert!(
            plan.unresolved().is_empty(),
            "{what}: {:?}",
            plan.unresolved()
        );
        let k = shown_constant(&plan).unwrap_or_else(|| panic!("{what}: no constant"));
        let merged = case["merged"].as_str().unwrap();
        assert!(
            contains_exactly(&k, merged),
            "{what}: {k:?} misses {merged}"
        );
        assert!(k.relative_width() <= 1e-12, "{what}: {k:?}");
    }
}
