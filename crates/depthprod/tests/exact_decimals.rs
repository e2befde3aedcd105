//! Inputs typed as exact decimals, against tests/reference/exact_decimals.json (mpmath, two
//! independent routes each, agreeing to 1e-30; made by make_exact_decimals.py): every enclosure
//! contains its reference, decided exactly, and is within its width goal.
//!
//! - the rotation for the typed theta (docs/MATH.md §5.9), including theta = 0.1, N = 10^18, whose
//!   double would turn by 10^17 + 5.55 instead of 10^17;
//! - exponential-variance tails summed from the far end (§4.7a), over a sweep of depths up to
//!   where the tail falls below 2^-960;
//! - a coefficient that vanishes exactly beside a pole (§4.4a, Lemma Z);
//! - c outside [1e-3, 1e3] with A/√c and B/c inside their ranges (§5.5a).

mod common;

use common::{contains_exactly, reference_json};
use depthprod::{
    depth_grid, rotation_product, tail_width, CurveKind, Enclosure, Family, Limit, Number,
    ParamsInput, Plan, VarianceInput, TAIL_WIDTH_FLOOR,
};
use serde_json::Value;

fn text(case: &Value, key: &str) -> Number {
    Number::Text(case[key].as_str().unwrap().to_string())
}

fn family(case: &Value) -> Family {
    case["family"].as_str().unwrap().parse().unwrap()
}

/// The rotation's angle and every matrix entry contain their references; the matrix entries are
/// at most 2 ulp of 1 wide (r = 0: an exact reduction) or 32 ulp of the angle (r >= 1, where the
/// power sum's own certified error, a few ulp of an angle up to 4300, carries into them).
#[test]
fn rotations_are_for_the_typed_theta() {
    let data = reference_json("exact_decimals.json");
    let cases = data["rotation"].as_array().unwrap();
    assert_eq!(cases.len(), 224, "the full set");
    let mut widest = [0.0f64; 2];
    for case in cases {
        let theta = case["theta"].as_str().unwrap();
        let r = case["r"].as_u64().unwrap() as u32;
        let n: u64 = case["n"].as_str().unwrap().parse().unwrap();
        let what = format!("theta = {theta}, r = {r}, N = {n}");
        let rot = rotation_product(&Number::Text(theta.into()), r, n).unwrap();
        let angle = case["angle"].as_str().unwrap();
        assert!(
            contains_exactly(&rot.angle, angle),
            "{what}: angle {:?} misses {angle}",
            rot.angle
        );
        let cos = case["cos"].as_str().unwrap();
        let sin = case["sin"].as_str().unwrap();
        let [m00, m01, m10, m11] = rot.matrix;
        assert!(
            contains_exactly(&m00, cos),
            "{what}: {m00:?} misses cos {cos}"
        );
        assert!(
            contains_exactly(&m11, cos),
            "{what}: {m11:?} misses cos {cos}"
        );
        assert!(
            contains_exactly(&m10, sin),
            "{what}: {m10:?} misses sin {sin}"
        );
        let minus_sin = Enclosure {
            value: -m01.value,
            lo: -m01.hi,
            hi: -m01.lo,
        };
        assert!(
            contains_exactly(&minus_sin, sin),
            "{what}: {m01:?} misses -sin {sin}"
        );
        // r = 0: the reduction is exact up to 1e-60 and sine and cosine are double-double, so
        // only the final rounding to doubles is left; r >= 1: the power sum's certified error, a
        // few u of the angle (up to 4300), moves every entry by as much
        let goal = if r == 0 {
            2.0 * f64::EPSILON
        } else {
            32.0 * f64::EPSILON * rot.angle.value.abs().max(1.0)
        };
        for e in rot.matrix {
            assert!(e.width() <= goal, "{what}: {e:?} wider than {goal:e}");
            widest[(r > 0) as usize] = widest[(r > 0) as usize].max(e.width() / goal);
        }
        assert!(
            rot.angle.width() <= 4.0 * f64::EPSILON * rot.angle.value.abs().max(1.0)
                || (r > 0 && rot.angle.relative_width() <= 1e-14),
            "{what}: angle {:?}",
            rot.angle
        );
        assert_eq!(rot.norm, 1.0);
    }
    eprintln!(
        "widest matrix entry, as a share of its goal: {:.2} (r = 0), {:.2} (r >= 1)",
        widest[0], widest[1]
    );
    // the audit's case: the double 0.1 would give [[-0.969168, -0.246402], ...]
    let rot = rotation_product(&Number::Text("0.1".into()), 0, 1_000_000_000_000_000_000).unwrap();
    assert_eq!(rot.angle, Enclosure::exact(1e17));
    assert!(rot.matrix[0].hi < -0.885_557 && rot.matrix[0].lo > -0.885_558);
    assert!(rot.matrix[1].lo > 0.464_530 && rot.matrix[1].hi < 0.464_531);
}

fn exponential(case: &Value) -> Plan {
    Plan::from_input(&ParamsInput {
        family: family(case),
        a: text(case, "a"),
        b: text(case, "b"),
        variance: VarianceInput::Exponential {
            c: text(case, "c"),
            lambda: text(case, "lambda"),
        },
    })
    .unwrap()
}

/// Tails of exponential variance contain their references and are within 1e-12 of themselves
/// (relative above 2^-960, [`tail_width`]); N = 0 is the limit. The audit's case (A = 2.5,
/// B = 0.4, c = 0.6, lambda = 0.005, N = 2000) was 1.9e-12 wide: the limit minus a partial sum.
#[test]
fn exponential_tails_contain_their_references_within_the_goal() {
    let data = reference_json("exact_decimals.json");
    let cases = data["exp_tails"].as_array().unwrap();
    assert_eq!(cases.len(), 45, "the full set");
    let (mut tails, mut limits) = (0, 0);
    let mut widest = (0.0f64, String::new());
    for case in cases {
        let plan = exponential(case);
        let n = case["n"].as_u64().unwrap();
        let reference = case["tail"].as_str().unwrap();
        let what = format!(
            "{:?} A={} B={} c={} lambda={} N={n}",
            family(case),
            case["a"],
            case["b"],
            case["c"],
            case["lambda"]
        );
        if n == 0 {
            let Limit::Finite { log_limit } = plan.limit().unwrap() else {
                panic!("{what}: converges")
            };
            assert!(
                contains_exactly(&log_limit, reference),
                "{what}: {log_limit:?} misses {reference}"
            );
            assert!(log_limit.relative_width() <= 1e-12, "{what}: {log_limit:?}");
            limits += 1;
            continue;
        }
        let t = plan
            .tail(n)
            .unwrap()
            .expect("a convergent product has tails");
        let e = Enclosure {
            value: t.hi,
            lo: t.lo,
            hi: t.hi,
        };
        assert!(
            contains_exactly(&e, reference),
            "{what}: [{:e}, {:e}] misses {reference}",
            t.lo,
            t.hi
        );
        let width = tail_width(t);
        assert!(
            t.hi >= TAIL_WIDTH_FLOOR,
            "{what}: the sweep stays above the floor"
        );
        assert!(width <= 1e-12, "{what}: relative width {width:e}");
        if width > widest.0 {
            widest = (width, what);
        }
        tails += 1;
    }
    assert!(tails == 40 && limits == 5, "{tails} tails, {limits} limits");
    eprintln!("widest tail: {:.2e} at {}", widest.0, widest.1);
}

/// Tails over a random sweep of exponential-variance products (every family, lambda from 1e-3 to
/// 10, depths from 1 to where the tail falls below 2^-960): within 1e-12 of themselves, and
/// consistent with the sums (S(N) + tail(N) overlaps the limit).
#[test]
fn exponential_tails_meet_the_goal_over_a_sweep() {
    let mut rng = common::Rng(0x7a11_5eed_0000_0004);
    let mut checked = 0;
    for _ in 0..40 {
        let family = [Family::Unscaled, Family::Scaled, Family::SqrtScaled]
            [(rng.next_f64() * 3.0) as usize % 3];
        let (a, b) = (rng.log_range(1e-2, 100.0), rng.log_range(1e-2, 100.0));
        let c = rng.log_range(1e-3, 1e3);
        let lambda = rng.log_range(1e-3, 10.0);
        let plan = Plan::from_input(&ParamsInput {
            family,
            a: Number::Text(format!("{a:.3}")),
            b: Number::Text(format!("{b:.3}")),
            variance: VarianceInput::Exponential {
                c: Number::Text(format!("{c:.4}")),
                lambda: Number::Text(format!("{lambda:.4}")),
            },
        })
        .unwrap();
        let Limit::Finite { log_limit } = plan.limit().unwrap() else {
            panic!("converges")
        };
        let mut n = 1u64;
        loop {
            let t = plan.tail(n).unwrap().unwrap();
            if t.hi < TAIL_WIDTH_FLOOR {
                break;
            }
            let what = format!("{family:?} A={a:.3} B={b:.3} c={c:.4} lambda={lambda:.4} N={n}");
            assert!(
                tail_width(t) <= 1e-12,
                "{what}: {t:?} width {:e}",
                tail_width(t)
            );
            let s = plan.log_product(n).unwrap();
            assert!(
                s.lo + t.lo <= log_limit.hi * (1.0 + 1e-15)
                    && log_limit.lo <= (s.hi + t.hi) * (1.0 + 1e-15),
                "{what}: S {s:?} + tail {t:?} misses the limit {log_limit:?}"
            );
            checked += 1;
            n = (n as f64 * 1.7).ceil() as u64 + 1;
        }
        // the whole tail curve the page draws, to N = 10^18 (tails below 2^-960 measured
        // absolutely): every point within the goal
        let ns = depth_grid(1_000_000_000_000_000_000, 400).unwrap();
        let mut out = vec![0.0; ns.len()];
        let worst = plan.curve(CurveKind::Tail, &ns, &mut out).unwrap().unwrap();
        assert!(
            worst.worst <= 1e-12,
            "{family:?} A={a:.3} B={b:.3} c={c:.4} lambda={lambda:.4}: {worst:?}"
        );
    }
    assert!(checked >= 400, "{checked}");
}

fn power(case: &Value) -> Plan {
    Plan::from_input(&ParamsInput {
        family: family(case),
        a: text(case, "a"),
        b: text(case, "b"),
        variance: VarianceInput::Power {
            c: text(case, "c"),
            q: Some(text(case, "q")),
            eps: None,
        },
    })
    .unwrap()
}

/// Each power-law case's S(N) or C (the limit when it converges) contains its reference and is
/// within 1e-12 (relative; absolute below 1).
fn check_power_cases(section: &str, min: usize) {
    let data = reference_json("exact_decimals.json");
    let cases: Vec<&Value> = data[section]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c.get("kind").is_none())
        .collect();
    assert!(cases.len() >= min, "{section}: {}", cases.len());
    for case in cases {
        let plan = power(case);
        let n = case["n"].as_str().unwrap();
        let reference = case["value"].as_str().unwrap();
        let what = format!(
            "{section}: {:?} A={} B={} c={} q={} N={n}",
            family(case),
            case["a"],
            case["b"],
            case["c"],
            case["q"]
        );
        let e = if n == "C" {
            match plan.limit().unwrap() {
                Limit::Finite { log_limit } => log_limit,
                Limit::Divergent { divergence } => {
                    // no log-like term here: the shown constant is C itself, and so is growth's
                    assert!(
                        divergence.terms.iter().all(|t| !t.log_like),
                        "{what}: {divergence:?}"
                    );
                    let shown = divergence.constant.expect("certified");
                    let classic = plan.growth().constant.expect("certified");
                    assert_eq!(shown, classic, "{what}");
                    shown
                }
            }
        } else {
            plan.log_product(n.parse().unwrap()).unwrap()
        };
        assert!(
            contains_exactly(&e, reference),
            "{what}: {e:?} misses {reference}"
        );
        assert!(e.relative_width() <= 1e-12, "{what}: {e:?}");
    }
}

/// A coefficient that vanishes exactly beside a pole (A = 0.3, B = 0.045 typed: c_2 = B - A^2/2 = 0
/// and 2p = 1 + 1e-16) contributes exactly 0: C was [-0.7148, -0.1819], the doubles' c_2's error
/// bound divided by |1 - 2p|; now certified to 1e-12 around -0.4483561056977.
#[test]
fn a_vanishing_coefficient_beside_a_pole_contributes_nothing() {
    check_power_cases("zero_coefficient", 24);
}

/// c outside [1e-3, 1e3] with A/√c and B/c inside their ranges: certified like any other point.
#[test]
fn c_outside_the_old_range_is_certified() {
    check_power_cases("effective", 20);
    let data = reference_json("exact_decimals.json");
    let mut limits = 0;
    for case in data["effective"].as_array().unwrap() {
        if case.get("kind").and_then(Value::as_str) != Some("exponential-limit") {
            continue;
        }
        let Limit::Finite { log_limit } = exponential(case).limit().unwrap() else {
            panic!("converges")
        };
        let reference = case["tail"].as_str().unwrap();
        assert!(
            contains_exactly(&log_limit, reference),
            "{case}: {log_limit:?}"
        );
        assert!(log_limit.relative_width() <= 1e-12, "{case}: {log_limit:?}");
        limits += 1;
    }
    assert_eq!(limits, 2);
}

/// The zeta bound `evaluate` shows beside the scaled product is for the exact decimals typed, as
/// `closed_forms` gives it: (A/√c) ζ(1 + q/2) + (B/c) ζ(2 + q) at A = 0.3, B = 0.07, c = 0.7,
/// q = 0.4 is 2.14330007742832266924 (mpmath); the doubles' value, 2.14330007742832258034, lies
/// 9e-17 below it.
#[test]
fn the_zeta_bound_is_for_the_typed_decimals() {
    let reference = "2.1433000774283226692399674635443766";
    let text = |s: &str| Number::Text(s.into());
    let plan = Plan::from_input(&ParamsInput {
        family: Family::Scaled,
        a: text("0.3"),
        b: text("0.07"),
        variance: VarianceInput::Power {
            c: text("0.7"),
            q: Some(text("0.4")),
            eps: None,
        },
    })
    .unwrap();
    let shown = plan
        .evaluate(depthprod::Depth::Finite(10))
        .unwrap()
        .zeta_bound
        .unwrap();
    assert!(contains_exactly(&shown, reference), "{shown:?}");
    assert!(shown.relative_width() <= 1e-14, "{shown:?}");
    let closed = depthprod::closed_forms(&depthprod::ClosedFormsInput {
        a: text("0.3"),
        b: text("0.07"),
        c: Some(text("0.7")),
        q: Some(text("0.4")),
        eps: None,
        lambda: None,
        n: None,
    })
    .unwrap()
    .zeta_bound
    .unwrap();
    assert!(contains_exactly(&closed, reference), "{closed:?}");
}
