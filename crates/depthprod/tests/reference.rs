//! Cross-check against independent high-precision reference values (tests/reference/, made with
//! mpmath by two or more independent methods each; see its README). Every enclosure must contain
//! the reference value, and be at most 1e-12 wide (relative; absolute below 1).

use depthprod::{Depth, Family, Limit, Params, Plan};
use serde_json::Value;

fn num(v: &Value) -> f64 {
    match v {
        Value::Number(n) => n.as_f64().unwrap(),
        Value::String(s) => s.parse().unwrap(),
        other => panic!("not a number: {other}"),
    }
}

#[test]
fn reference_values_lie_in_the_enclosures() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/reference/reference.json"
    );
    let data: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("reference.json")).unwrap();
    let cases = data["cases"].as_array().unwrap();
    assert!(cases.len() >= 40, "expected the full reference set");
    let mut worst: f64 = 0.0;
    let mut too_wide = Vec::new();
    for case in cases {
        let id = case["id"].as_str().unwrap();
        let family: Family = case["family"].as_str().unwrap().parse().unwrap();
        let params = Params::power(
            family,
            num(&case["a"]),
            num(&case["b"]),
            num(&case["c"]),
            num(&case["q"]),
        );
        let plan = Plan::new(&params).unwrap();
        let depth: Depth = case["n"].as_str().unwrap().parse().unwrap();
        let (reference, e) = if case["kind"] == "asymptotic-constant" {
            let Limit::Divergent { divergence } = plan.limit().unwrap() else {
                panic!("{id}: should diverge")
            };
            (
                num(&case["constant_c"]),
                divergence
                    .constant
                    .unwrap_or_else(|| panic!("{id}: C not resolved")),
            )
        } else {
            let e = match depth {
                Depth::Finite(n) => plan.log_product(n).unwrap(),
                Depth::Infinite => match plan.limit().unwrap() {
                    Limit::Finite { log_limit } => log_limit,
                    Limit::Divergent { .. } => panic!("{id}: should converge"),
                },
            };
            (num(&case["log_product"]), e)
        };
        // the f64 nearest the reference may sit half an ulp outside a tight enclosure
        let slack = reference.abs() * f64::EPSILON;
        assert!(
            e.lo - slack <= reference && reference <= e.hi + slack,
            "{id}: {e:?} does not contain {reference}"
        );
        worst = worst.max(e.relative_width());
        if e.relative_width() > 1e-12 {
            too_wide.push(format!("{id}: {e:?}"));
        }
    }
    assert!(
        too_wide.is_empty(),
        "enclosures wider than 1e-12 relative:\n{}",
        too_wide.join("\n")
    );
    eprintln!(
        "worst relative width over {} reference cases: {worst:.2e}",
        cases.len()
    );
}
