//! `depthprod lab`: the CLI contract's JSON fields, the PyTorch reference through the binary, and
//! bad input (exit status 2, one line on stderr, `{"error": ...}` with --json).

use serde_json::Value;
use std::process::{Command, Output};

const REF: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/reference/lab");

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_depthprod"))
        .arg("lab")
        .args(args)
        .output()
        .expect("run depthprod lab")
}

fn json(args: &[&str]) -> Value {
    let out = run(args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

#[test]
fn contract_fields() {
    let v = json(&[
        "--norm",
        "lns",
        "--d",
        "16",
        "--heads",
        "2",
        "--d-ff",
        "24",
        "--tokens",
        "4",
        "--layers",
        "4",
        "--init-std",
        "0.02",
        "--seed",
        "5",
        "--json",
    ]);
    let layers = v["layers"].as_array().unwrap();
    assert_eq!(layers.len(), 4);
    for (i, l) in layers.iter().enumerate() {
        assert_eq!(l["layer"].as_u64().unwrap() as usize, i + 1);
        for k in [
            "variance",
            "jacobian_norm",
            "jacobian_minus_identity_norm",
            "end_to_end_norm",
            "grad_norm",
        ] {
            assert!(l[k].as_f64().unwrap() >= 0.0, "layer {} {k}", i + 1);
        }
        // Submultiplicativity: the end-to-end norm never exceeds the product of layer norms.
        let e2e = l["end_to_end_norm"].as_f64().unwrap();
        let prod = l["log_product_of_norms"].as_f64().unwrap().exp();
        assert!(
            e2e <= prod * (1.0 + 1e-6),
            "layer {}: {e2e} > {prod}",
            i + 1
        );
    }
    assert!(v["fit"]["power"]["c"].is_f64() && v["fit"]["power"]["q"].is_f64());
    assert!(v["fit"]["exponential"]["c"].is_f64() && v["fit"]["exponential"]["lambda"].is_f64());
    let b = &v["bound"];
    assert!(b["A"].as_f64().unwrap() > 0.0 && b["B"].as_f64().unwrap() > 0.0);
    for fam in ["unscaled", "scaled"] {
        let (val, lo, hi) = (
            b[fam]["value"].as_f64().unwrap(),
            b[fam]["lo"].as_f64().unwrap(),
            b[fam]["hi"].as_f64().unwrap(),
        );
        assert!(
            lo <= val && val <= hi && hi - lo <= 1e-9 * val.abs().max(1.0),
            "{fam}"
        );
    }
}

#[test]
fn reproduces_the_pytorch_reference() {
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(format!("{REF}/expected.json")).unwrap())
            .unwrap();
    let weights = format!("{REF}/weights.safetensors");
    for norm in ["pre", "lns", "post", "deepnorm", "sandwich", "mix"] {
        let v = json(&[
            "--norm",
            norm,
            "--weights",
            &weights,
            "--input-ids",
            "3,7,1",
            "--mix-post-layers",
            "1",
            "--tol",
            "1e-12",
            "--json",
        ]);
        let want = &expected["placements"][norm];
        for (i, l) in v["layers"].as_array().unwrap().iter().enumerate() {
            for k in [
                "jacobian_norm",
                "jacobian_minus_identity_norm",
                "end_to_end_norm",
                "grad_norm",
                "variance",
            ] {
                let (a, b) = (l[k].as_f64().unwrap(), want[k][i].as_f64().unwrap());
                assert!(
                    (a - b).abs() <= 1e-9 * b.abs(),
                    "{norm} layer {} {k}: {a} vs {b}",
                    i + 1
                );
            }
        }
    }
}

fn bad(args: &[&str], want: &str) {
    let out = run(args);
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: {stderr}");
    assert!(
        stderr.contains(want),
        "{args:?}: {stderr:?} should contain {want:?}"
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("error JSON");
    assert!(v["error"].as_str().unwrap().contains(want));
}

#[test]
fn bad_input_is_named() {
    bad(&["--d", "0", "--json"], "d = 0 is out of range");
    bad(&["--d", "100000", "--json"], "d = 100000 is out of range");
    bad(&["--heads", "3", "--json"], "heads = 3 must divide d = 128");
    bad(&["--layers", "0", "--json"], "layers = 0");
    bad(&["--norm", "middle", "--json"], "middle");
    bad(&["--input-ids", "1,x", "--json"], "--input-ids: entry 2");
    bad(
        &["--weights", "/nonexistent/w.safetensors", "--json"],
        "cannot read",
    );
    let not_st = format!("{REF}/config.json");
    bad(
        &["--weights", &not_st, "--json"],
        "not a valid safetensors file",
    );
    let w = format!("{REF}/weights.safetensors");
    bad(
        &["--weights", &w, "--layers", "7", "--json"],
        "layers = 7 but the file has 3",
    );
    bad(
        &["--weights", &w, "--input-ids", "3,99", "--json"],
        "input id = 99",
    );
}
