//! Depths at and beyond 2^32 and 2^53 for every family and variance model. The table these tests
//! compute is checked in as `tests/reference/native_big_depths.json`, which the wasm tests
//! (`crates/depthprod-wasm/tests/web.rs`) compare the wasm32 build against: wasm32 once truncated
//! N to 32 bits (`n as usize`). Regenerate after a deliberate change of the numbers with
//! `DEPTHPROD_WRITE_FIXTURE=1 cargo test -p depthprod --test big_depths`.

use depthprod::{Family, Params, Plan, Variance};
use serde_json::{json, Value};

const DEPTHS: [u64; 6] = [
    (1 << 32) - 1,
    1 << 32,
    (1 << 32) + 1,
    (1 << 53) - 1,
    (1 << 53) + 2,
    1_000_000_000_000_000_000,
];

fn models() -> Vec<(&'static str, Variance)> {
    vec![
        ("power", Variance::Power { c: 1.0, q: 1.0 }),
        (
            "exponential",
            Variance::Exponential {
                c: 1.0,
                lambda: 0.1,
            },
        ),
        (
            "measured",
            Variance::Measured {
                values: vec![1.0, 2.0, 3.0],
            },
        ),
    ]
}

/// {family, model, n, value, lo, hi} or {family, model, n, error} for every combination.
fn table() -> Vec<Value> {
    let mut rows = Vec::new();
    for family in Family::ALL {
        for (model, variance) in models() {
            let plan = Plan::new(&Params {
                family,
                a: 1.0,
                b: 1.0,
                variance,
            })
            .unwrap();
            for n in DEPTHS {
                rows.push(match plan.log_product(n) {
                    // numbers as shortest round-trip strings: exact through any JSON parser
                    Ok(e) => json!({"family": family.name(), "model": model, "n": n.to_string(),
                        "value": format!("{:?}", e.value), "lo": format!("{:?}", e.lo),
                        "hi": format!("{:?}", e.hi)}),
                    Err(err) => json!({"family": family.name(), "model": model, "n": n.to_string(),
                        "error": err.to_string()}),
                });
            }
        }
    }
    rows
}

#[test]
fn big_depths_match_the_checked_in_table() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/reference/native_big_depths.json"
    );
    let rows = table();
    if std::env::var_os("DEPTHPROD_WRITE_FIXTURE").is_some() {
        std::fs::write(path, serde_json::to_string_pretty(&rows).unwrap()).unwrap();
    }
    let stored: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(path).expect("fixture")).unwrap();
    assert_eq!(rows.len(), 4 * 3 * DEPTHS.len());
    assert_eq!(
        rows, stored,
        "regenerate the fixture if the change is deliberate"
    );
    for row in &rows {
        let num = |key: &str| row[key].as_str().unwrap().parse::<f64>().unwrap();
        if row.get("lo").is_some() {
            let (lo, v, hi) = (num("lo"), num("value"), num("hi"));
            assert!(
                lo <= v && v <= hi && (hi - lo) <= 1e-12 * v.abs().max(1.0),
                "{row}"
            );
        } else {
            // only a measured list refuses these depths, saying why
            assert_eq!(row["model"], "measured", "{row}");
            assert!(row["error"]
                .as_str()
                .unwrap()
                .contains("exceeds the measured list"));
        }
    }
}
