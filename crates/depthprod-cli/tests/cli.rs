//! The CLI contract: `eval --json` fields and 17-digit numbers, `seed`, and bad input handling.

use serde_json::Value;
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_depthprod"))
        .args(args)
        .output()
        .expect("run depthprod")
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
fn eval_json_scaled_seed() {
    let v = json(&[
        "eval", "--family", "scaled", "--a", "1", "--b", "1", "--c", "1", "--q", "1", "--n",
        "1000000", "--json",
    ]);
    let lp = &v["log_product"];
    let (value, lo, hi) = (
        lp["value"].as_f64().unwrap(),
        lp["lo"].as_f64().unwrap(),
        lp["hi"].as_f64().unwrap(),
    );
    assert!(lo <= value && value <= hi && (value - 2.7784912).abs() < 5e-8);
    let tail = &v["tail"];
    assert!(tail["hi"].as_f64().unwrap() <= 0.002000000001 && tail["lo"].as_f64().unwrap() > 0.0);
    assert!(v["zeta_bound"]["value"].as_f64().unwrap() > value);
    assert!(v["asymptotic"].is_null() && v["divergent"].is_null());
    // numbers are printed with 17 significant digits
    let text =
        String::from_utf8(run(&["eval", "--family", "scaled", "--n", "1e6", "--json"]).stdout)
            .unwrap();
    assert!(text.contains("\"value\": 2.7784912041774"), "{text}");
    let digits = text
        .split("\"value\": ")
        .nth(1)
        .unwrap()
        .split(',')
        .next()
        .unwrap()
        .replace(['.', '-'], "");
    assert_eq!(digits.trim_start_matches('0').len(), 17, "{text}");
}

#[test]
fn eval_json_unscaled_divergent() {
    let v = json(&["eval", "--family", "unscaled", "--n", "1e6", "--json"]);
    assert!((v["log_product"]["value"].as_f64().unwrap() - 2004.44407).abs() < 5e-6);
    assert!(v["tail"].is_null() && v["zeta_bound"].is_null());
    let terms = v["asymptotic"]["terms"].as_array().unwrap();
    assert_eq!(terms[0]["coefficient"].as_f64(), Some(2.0));
    assert_eq!(terms[0]["exponent"].as_f64(), Some(0.5));
    assert_eq!(terms[1]["log"].as_bool(), Some(true));
    assert!(v["asymptotic"]["constant"]["value"].as_f64().is_some());
    let inf = json(&["eval", "--family", "unscaled", "--n", "inf", "--json"]);
    assert!(inf["log_product"].is_null() && inf["divergent"].is_object() && inf["n"] == "inf");
    let lim = json(&["eval", "--family", "scaled", "--n", "inf", "--json"]);
    assert!((lim["log_product"]["value"].as_f64().unwrap() - 2.78049120367774).abs() < 1e-13);
}

#[test]
fn bad_input_exits_2_with_one_line() {
    for args in [
        vec!["eval", "--a", "-1", "--json"],
        vec!["eval", "--q", "0", "--json"],
        vec!["eval", "--c", "nan", "--json"],
        vec!["eval", "--n", "0", "--json"],
        vec!["eval", "--n", "1e19", "--json"],
        vec!["eval", "--a", "abc", "--json"],
        vec!["eval", "--family", "bogus", "--json"],
        vec!["eval", "--variance", "list", "--list", "1,-2", "--json"],
    ] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: {stderr}");
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert!(v["error"].as_str().unwrap().len() > 10, "{args:?}");
    }
    let out = run(&["eval", "--a", "-1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8(out.stderr).unwrap().contains("A = -1"));
}

#[test]
fn seed_reproduces_the_correction() {
    let out = run(&["seed"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for needle in [
        "2.0044440725825",
        "2.7784912041775",
        "2.7804912036777",
        "-2.465516029286",
    ] {
        assert!(text.contains(needle), "missing {needle} in\n{text}");
    }
}

#[test]
fn help_documents_the_commands() {
    let out = run(&["--help"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for cmd in ["eval", "seed", "curve", "closed-forms", "rotation"] {
        assert!(text.contains(cmd), "{cmd}");
    }
    let eval = String::from_utf8(run(&["eval", "--help"]).stdout).unwrap();
    for flag in [
        "--family",
        "--a",
        "--b",
        "--c",
        "--q",
        "--n",
        "--json",
        "--variance",
        "--lambda",
        "--list",
    ] {
        assert!(eval.contains(flag), "{flag}");
    }
}

#[test]
fn curve_and_list_and_rotation() {
    let out = run(&[
        "curve", "--family", "scaled", "--n-max", "1e6", "--points", "20",
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(rows[0], "N,log_product");
    assert!(rows.last().unwrap().starts_with("1000000,2.77849120417749"));
    let v = json(&[
        "eval",
        "--variance",
        "list",
        "--list",
        "1, 2, 3, 4",
        "--n",
        "4",
        "--json",
    ]);
    assert!(v["log_product"]["value"].as_f64().unwrap() > 0.0);
    let out = run(&["rotation", "--theta", "0.5", "--r", "1", "--n", "1000"]);
    assert!(String::from_utf8(out.stdout).unwrap().contains("norm"));
}

/// Issue 7 item 9: negative numbers written plainly, messages naming the parameter and its
/// range, values in shortest round-trip form, and the user's decimals as exact inputs.
#[test]
fn numbers_as_typed() {
    let out = run(&["rotation", "--theta", "-0.75", "--r", "1", "--n", "10"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = run(&["rotation", "--theta", "1", "--r", "2", "--n", "1000"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("norm     1.00000000000000000"), "{text}");
    for (args, want) in [
        (
            vec!["eval", "--a", "-5e-324"],
            "A = -5e-324 is outside the supported range [0, 100]",
        ),
        (
            vec!["eval", "--a=-5e-324"],
            "A = -5e-324 is outside the supported range [0, 100]",
        ),
        (
            vec!["eval", "--b", "-1e-300"],
            "B = -1e-300 is outside the supported range [0, 100]",
        ),
        (
            vec!["eval", "--a", "5e-324"],
            "A = 5e-324 is nonzero but below 1e-100",
        ),
        (vec!["eval", "--q", "abc"], "q = \"abc\" is not a number"),
    ] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(err.len() < 300, "{err}");
    }
    // typed decimals are exact: sqrt-scaled q = 1.0000000000000002 converges (p - 1 = 1e-16)
    let v = json(&[
        "eval",
        "--family",
        "sqrt-scaled",
        "--q",
        "1.0000000000000002",
        "--n",
        "inf",
        "--json",
    ]);
    assert!(v["divergent"].is_null(), "{v}");
    let lp = &v["log_product"];
    assert!(
        lp["lo"].as_f64().unwrap() <= 1e16 + 0.887 && 1e16 + 0.887 <= lp["hi"].as_f64().unwrap(),
        "{v}"
    );
    // eps instead of q: q = 2 - eps exactly
    let by_eps = json(&[
        "eval", "--family", "scaled", "--eps", "1", "--n", "1e6", "--json",
    ]);
    let by_q = json(&[
        "eval", "--family", "scaled", "--q", "1", "--n", "1e6", "--json",
    ]);
    assert_eq!(by_eps["log_product"], by_q["log_product"]);
}

/// Every range is decided on the exact decimal typed, by every command, and the message shows the
/// value as typed (issue: `closed-forms` and `rotation` decided on the doubles, and `A =
/// 100.00000000000000001` was reported as "A = 100 is outside [0, 100]").
#[test]
fn every_command_decides_ranges_on_the_typed_decimal() {
    // (the flags of the product, the message); c is judged by A/√c and B/c, so at the corner
    // A = B = 100 a c a hair below 0.001 is outside
    let cases: [(&[&str], &str); 6] = [
        (
            &["--q", "8.0000000000000000001"],
            "q = 8.0000000000000000001 is outside the supported range [0.05, 8]",
        ),
        (
            &["--a", "100.00000000000000001"],
            "A = 100.00000000000000001 is outside the supported range [0, 100]",
        ),
        (
            &["--a", "100", "--b", "100", "--c", "0.00099999999999999999999"],
            "A/√c ≈ 3162.28 (A = 100, c = 0.00099999999999999999999) is outside the supported range [0, 3162.27…]",
        ),
        (
            &["--a", "9.9999999999999999999e-101"],
            "A = 9.9999999999999999999e-101 is nonzero but below 1e-100",
        ),
        (
            &["--eps", "1.9500000000000000001"],
            "eps = 1.9500000000000000001 is outside the supported range [-6, 1.95]",
        ),
        (
            &["--b", "1e400"],
            "B = 1e400 is outside the supported range [0, 100]",
        ),
    ];
    let lambda: (&[&str], &str) = (
        &["--lambda", "10.0000000000000000001"],
        "lambda = 10.0000000000000000001 is outside the supported range [0.001, 10]",
    );
    let refused = |args: Vec<&str>, want: &str| {
        let out = run(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    };
    for (flags, want) in cases.iter().chain([&lambda]) {
        let exp: &[&str] = if flags[0] == "--lambda" {
            &["--variance", "exp"]
        } else {
            &[]
        };
        for command in [
            &["eval"][..],
            &["curve", "--points", "3"],
            &["closed-forms"],
        ] {
            let mut args = command.to_vec();
            if command[0] != "closed-forms" {
                args.extend_from_slice(exp);
            }
            args.extend_from_slice(flags);
            refused(args, want);
        }
    }
    refused(
        vec!["rotation", "--theta", "100.00000000000000001"],
        "theta = 100.00000000000000001 is outside the supported range [-100, 100]",
    );
    refused(
        vec!["rotation", "--theta", "-100.00000000000000001"],
        "theta = -100.00000000000000001 is outside the supported range [-100, 100]",
    );
    // the ends themselves, typed, are inside
    for args in [
        vec![
            "eval", "--a", "100", "--b", "100", "--c", "0.001", "--q", "0.05",
        ],
        vec![
            "closed-forms",
            "--a",
            "100",
            "--b",
            "100",
            "--c",
            "0.001",
            "--q",
            "8",
            "--lambda",
            "10",
        ],
        vec!["rotation", "--theta", "-100", "--r", "0", "--n", "1e18"],
    ] {
        let out = run(&args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // a long value is shown cut at 40 characters
    let long = format!("100.{}1", "0".repeat(60));
    let out = run(&["eval", "--a", &long]);
    let err = String::from_utf8_lossy(&out.stderr);
    // the first 39 characters and an ellipsis
    let shown = format!("A = 100.{}… is outside", "0".repeat(35));
    assert!(err.contains(&shown), "{err}");
}

/// The rotation is for the typed theta, not its double: theta = 0.1, N = 10^18 turns by exactly
/// 10^17 (the double 0.1 would turn by 10^17 + 5.55 and give [[-0.969168, -0.246402], ...]).
#[test]
fn rotation_is_for_the_typed_theta() {
    let out = run(&["rotation", "--theta", "0.1", "--r", "0", "--n", "1e18"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("angle    100000000000000000.00000000000000000  (exact)"),
        "{text}"
    );
    assert!(
        text.contains("[[-0.885557328298, +0.464530104835], [-0.464530104835, -0.885557328298]]"),
        "{text}"
    );
    assert!(text.contains("norm     1.00000000000000000"), "{text}");
}
