//! Tails sum_{l>N} g(l) of convergent products (power law, and exponential variance on the
//! directly summed route, lambda > 1/8) against independent references
//! (tests/reference/tails.json, mpmath at 60 digits by two routes: see make_tails.py). Every tail
//! enclosure contains its reference, decided exactly, and is within 1e-12 relative of it, the
//! measure of the log-log plot that shows tails (before, tails at small N were
//! the limit minus a sum nearly equal to it, up to 3e-8 wide relative).

mod common;

use common::reference_json;
use depthprod::exact::Exact;
use depthprod::{CurveKind, Family, Params, Plan, Variance};
use serde_json::Value;

#[test]
fn tails_contain_their_references_and_meet_the_goal() {
    let data: Value = reference_json("tails.json");
    let cases = data["cases"].as_array().unwrap();
    assert!(
        cases.len() >= 90,
        "expected the full set, got {}",
        cases.len()
    );
    let mut worst = (0.0f64, String::new());
    for case in cases {
        let family: Family = case["family"].as_str().unwrap().parse().unwrap();
        let num = |k: &str| case[k].as_f64().unwrap();
        let n = case["n"].as_u64().unwrap();
        let (variance, model) = match case.get("lambda") {
            Some(lambda) => (
                Variance::Exponential {
                    c: num("c"),
                    lambda: lambda.as_f64().unwrap(),
                },
                format!("lambda={}", lambda),
            ),
            None => (
                Variance::Power {
                    c: num("c"),
                    q: num("q"),
                },
                format!("q={}", num("q")),
            ),
        };
        let what = format!(
            "{family:?} A={} B={} c={} {model} N={n}",
            num("a"),
            num("b"),
            num("c")
        );
        let plan = Plan::new(&Params {
            family,
            a: num("a"),
            b: num("b"),
            variance,
        })
        .unwrap();
        let t = plan.tail(n).unwrap().expect("convergent");
        let reference = Exact::parse(case["tail"].as_str().unwrap()).unwrap();
        assert!(
            reference.cmp_exact(&Exact::from_f64(t.lo)).is_ge()
                && reference.cmp_exact(&Exact::from_f64(t.hi)).is_le(),
            "{what}: [{:e}, {:e}] misses {}",
            t.lo,
            t.hi,
            case["tail"]
        );
        let width = depthprod::tail_width(t);
        assert!(width <= 1e-12, "{what}: relative width {width:e}");
        if width > worst.0 {
            worst = (width, what.clone());
        }
        // the tail curve draws this very upper bound and reports this width
        let mut out = [0.0];
        let reported = plan
            .curve(CurveKind::Tail, &[n as f64], &mut out)
            .unwrap()
            .unwrap();
        assert_eq!(out[0], t.hi, "{what}");
        assert_eq!(reported.worst, width, "{what}");
    }
    println!("worst relative width {:.2e} at {}", worst.0, worst.1);
}
