//! Cross-check against independent high-precision reference values (tests/reference/, made with
//! mpmath by two or more independent methods each; see its README). Every enclosure must contain
//! the reference value, and be at most 1e-12 wide (relative; absolute below 1).

mod common;

use common::{contains_exactly, reference_json};
use depthprod::{Depth, Family, Limit, Number, ParamsInput, Plan, VarianceInput};
use serde_json::Value;

/// A JSON number or decimal string as the core's input type: a string is the exact decimal.
fn input(v: &Value) -> Number {
    match v {
        Value::Number(n) => Number::Double(n.as_f64().unwrap()),
        Value::String(s) => Number::Text(s.clone()),
        other => panic!("not a number: {other}"),
    }
}

#[test]
fn reference_values_lie_in_the_enclosures() {
    let data: Value = reference_json("reference.json");
    let cases = data["cases"].as_array().unwrap();
    assert!(cases.len() >= 40, "expected the full reference set");
    let mut worst: f64 = 0.0;
    let mut too_wide = Vec::new();
    for case in cases {
        let id = case["id"].as_str().unwrap();
        let family: Family = case["family"].as_str().unwrap().parse().unwrap();
        let params = ParamsInput {
            family,
            a: input(&case["a"]),
            b: input(&case["b"]),
            variance: VarianceInput::Power {
                c: input(&case["c"]),
                q: Some(input(&case["q"])),
                eps: None,
            },
        };
        let plan = Plan::from_input(&params).unwrap();
        let depth: Depth = case["n"].as_str().unwrap().parse().unwrap();
        let (reference, e) = if case["kind"] == "asymptotic-constant" {
            let Limit::Divergent { divergence } = plan.limit().unwrap() else {
                panic!("{id}: should diverge")
            };
            let classic = case["constant_c"].as_str().unwrap();
            match case.get("constant_log_like") {
                // near-resonant k p: the divergence's terms are log-like, c (N^d - 1)/d, and its
                // constant is C + sum c/d (docs/MATH.md 6.6); the growth keeps the classic C
                Some(merged) => {
                    let listed = case["log_like_terms"].as_array().unwrap();
                    let shown: Vec<_> = divergence.terms.iter().filter(|t| t.log_like).collect();
                    assert_eq!(
                        shown.len(),
                        listed.len(),
                        "{id}: log-like terms {divergence:?}"
                    );
                    for (t, r) in shown.iter().zip(listed) {
                        let d: f64 = r["exponent"].as_str().unwrap().parse().unwrap();
                        let c: f64 = r["coefficient"].as_str().unwrap().parse().unwrap();
                        assert!(
                            (t.exponent - d).abs() <= 1e-15 * d.abs(),
                            "{id}: {t:?} vs {r}"
                        );
                        assert!(
                            (t.coefficient - c).abs() <= 1e-14 * c.abs(),
                            "{id}: {t:?} vs {r}"
                        );
                    }
                    let growth_c = plan.growth().constant.expect("classic C resolved");
                    assert!(
                        contains_exactly(&growth_c, classic),
                        "{id}: classic C {growth_c:?} does not contain {classic}"
                    );
                    assert!(growth_c.relative_width() <= 1e-12, "{id}: {growth_c:?}");
                    (
                        merged.as_str().unwrap(),
                        divergence
                            .constant
                            .unwrap_or_else(|| panic!("{id}: C not resolved")),
                    )
                }
                None => {
                    assert!(
                        divergence.terms.iter().all(|t| !t.log_like),
                        "{id}: {divergence:?}"
                    );
                    (
                        classic,
                        divergence
                            .constant
                            .unwrap_or_else(|| panic!("{id}: C not resolved")),
                    )
                }
            }
        } else {
            let e = match depth {
                Depth::Finite(n) => plan.log_product(n).unwrap(),
                Depth::Infinite => match plan.limit().unwrap() {
                    Limit::Finite { log_limit } => log_limit,
                    Limit::Divergent { .. } => panic!("{id}: should converge"),
                },
            };
            (case["log_product"].as_str().unwrap(), e)
        };
        assert!(
            contains_exactly(&e, reference),
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

/// Exponential variance (N -> infinity, and every N >= 2^32, where the remaining tail is below
/// e^(-2e8)) and measured lists, against tests/reference/direct_models.json (two routes each).
#[test]
fn direct_model_reference_values_lie_in_the_enclosures() {
    let data: Value = reference_json("direct_models.json");
    let cases = data["cases"].as_array().unwrap();
    assert!(cases.len() >= 7);
    for case in cases {
        let id = case["id"].as_str().unwrap();
        let family: Family = case["family"].as_str().unwrap().parse().unwrap();
        let reference = case["log_product"].as_str().unwrap();
        let variance = match case.get("lambda") {
            Some(lambda) => VarianceInput::Exponential {
                c: input(&case["c"]),
                lambda: input(lambda),
            },
            None => VarianceInput::Measured {
                values: case["values"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v.as_f64().unwrap())
                    .collect(),
            },
        };
        let plan = Plan::from_input(&ParamsInput {
            family,
            a: input(&case["a"]),
            b: input(&case["b"]),
            variance,
        })
        .unwrap();
        let mut enclosures = Vec::new();
        if let Some(lambda) = case.get("lambda") {
            // at small lambda these are the Euler-Maclaurin route's values (docs/MATH.md 4.7)
            if lambda.as_f64().is_some_and(|l| l <= 0.1) {
                assert!(
                    plan.exponential_route().is_some(),
                    "{id}: expected Euler-Maclaurin"
                );
            }
            let Limit::Finite { log_limit } = plan.limit().unwrap() else {
                panic!("{id}: exponential variance converges")
            };
            enclosures.push(("limit".to_string(), log_limit));
            for n in [
                (1u64 << 32) - 1,
                1 << 32,
                (1 << 32) + 1,
                (1 << 53) - 1,
                (1 << 53) + 2,
                1_000_000_000_000_000_000,
            ] {
                enclosures.push((format!("N = {n}"), plan.log_product(n).unwrap()));
            }
        } else {
            let n: u64 = case["n"].as_str().unwrap().parse().unwrap();
            enclosures.push((format!("N = {n}"), plan.log_product(n).unwrap()));
        }
        for (what, e) in enclosures {
            assert!(
                contains_exactly(&e, reference),
                "{id} {what}: {e:?} does not contain {reference}"
            );
            assert!(
                e.relative_width() <= 1e-12,
                "{id} {what}: {e:?} is wider than 1e-12 relative"
            );
        }
    }
}
