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
        // Each norm's interval starts at the norm and is at most tol (1e-6) wide on the square;
        // the end-to-end norm has a probabilistic upper bound above its interval.
        for k in ["jacobian", "jacobian_minus_identity", "end_to_end"] {
            let (norm, iv) = (l[k]["norm"].as_f64().unwrap(), &l[k]["interval"]);
            let (lo, hi) = (iv[0].as_f64().unwrap(), iv[1].as_f64().unwrap());
            assert!(
                lo == norm && norm <= hi && hi * hi - lo * lo <= 1e-6 * lo * lo,
                "{k}"
            );
            assert_eq!(l[k]["converged"], true, "layer {} {k}", i + 1);
        }
        let upper = l["end_to_end_upper"].as_f64().unwrap();
        assert!(
            upper >= l["end_to_end"]["interval"][1].as_f64().unwrap(),
            "layer {}",
            i + 1
        );
    }
    assert_eq!(v["upper_bound"]["probes"], 8);
    assert!(v["upper_bound"]["probability"].as_f64().unwrap() >= 0.999);
    assert_eq!(v["upper_bound"]["simultaneous"], false);
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
        same_as_reference(&v, want, norm);
    }
    // The reference's Mix-LN has k = 1 of L = 3 layers: the default k = max(1, floor(L/4)), so
    // "mix" is reproduced without --mix-post-layers (floor(L/4) = 0 measured Pre-LN).
    assert_eq!(expected["mix_post_layers"].as_u64(), Some(1));
    let v = json(&[
        "--norm",
        "mix",
        "--weights",
        &weights,
        "--input-ids",
        "3,7,1",
        "--tol",
        "1e-12",
        "--json",
    ]);
    assert_eq!(v["config"]["mix_post_layers"].as_u64(), Some(1));
    same_as_reference(&v, &expected["placements"]["mix"], "mix (default k)");
}

/// The measured norms and variances of a `--json` run within 1e-9 (relative) of the reference's.
fn same_as_reference(v: &Value, want: &Value, norm: &str) {
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

/// Checks the bad-input contract for one run's output.
fn check_bad(args: &[&str], out: &Output, want: &str) {
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

fn bad(args: &[&str], want: &str) {
    check_bad(args, &run(args), want);
}

/// `bad` for inputs that would need tens of GB: run under `ulimit -v` (2 GB of address space),
/// so a refusal that came only after a large allocation fails the test (exit 134, not 2) instead
/// of exhausting the machine.
fn bad_huge(args: &[&str], want: &str) {
    let out = if cfg!(unix) {
        Command::new("sh")
            .arg("-c")
            .arg("ulimit -v 2000000 && exec \"$0\" lab \"$@\"")
            .arg(env!("CARGO_BIN_EXE_depthprod"))
            .args(args)
            .output()
            .expect("run depthprod lab under ulimit")
    } else {
        run(args)
    };
    check_bad(args, &out, want);
}

/// A fresh directory for files a test writes (removed by the test when it passes).
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("depthprod-lab-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A safetensors file of the given (name, shape) BF16 tensors whose data is a hole: the header is
/// written and the file extended to its full length (sparse, so no disk is used).
fn sparse_checkpoint(path: &std::path::Path, tensors: &[(&str, Vec<u64>)]) {
    let mut header = serde_json::Map::new();
    let mut offset = 0u64;
    for (name, shape) in tensors {
        let len = 2 * shape.iter().product::<u64>();
        header.insert(
            name.to_string(),
            serde_json::json!({"dtype": "BF16", "shape": shape, "data_offsets": [offset, offset + len]}),
        );
        offset += len;
    }
    let header = Value::Object(header).to_string();
    let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
    bytes.extend_from_slice(header.as_bytes());
    std::fs::write(path, &bytes).unwrap();
    let file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    file.set_len(bytes.len() as u64 + offset).unwrap();
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
    // Negative dimensions reach the lab's range message (not clap's "unexpected argument"), with
    // the range the run's other values give.
    bad(
        &["--d", "-5", "--json"],
        "d = -5 is out of range: expected an integer in [2, 8192]",
    );
    bad(
        &["--heads", "-2", "--d", "64", "--json"],
        "heads = -2 is out of range: expected an integer in [1, 64]",
    );
    bad(
        &["--weights", &w, "--heads", "-1", "--json"],
        "heads = -1 is out of range: expected an integer in [1, 8]",
    );
    for (flag, name, range) in [
        ("--kv-heads", "kv_heads", "[1, 4]"),
        ("--d-ff", "d_ff", "[1, 32768]"),
        ("--tokens", "tokens", "[2, 4096]"),
        ("--layers", "layers", "[1, 1024]"),
        ("--vocab", "vocab", "[2, 1048576]"),
        ("--mix-post-layers", "mix_post_layers", "[0, 32]"),
        ("--max-iter", "max_iter", "[1, 10000]"),
    ] {
        bad(
            &[flag, "-3", "--json"],
            &format!("{name} = -3 is out of range: expected an integer in {range}"),
        );
    }
    bad(
        &["--memory-limit", "0", "--json"],
        "memory-limit = 0 is out of range: expected a positive number of GB",
    );
}

/// In-range dimensions whose product does not fit: refused with the estimate, before anything is
/// allocated (the audit's examples aborted with "memory allocation of 68719476736 bytes failed").
#[test]
fn huge_networks_are_refused_before_allocating() {
    bad_huge(
        &[
            "--vocab", "1048576", "--d", "8192", "--heads", "64", "--layers", "1", "--tokens", "2",
            "--json",
        ],
        "this network needs about 146.3 GB of memory (weights 144.1 GB as f64, activations ",
    );
    bad_huge(
        &[
            "--d", "4096", "--heads", "32", "--d-ff", "11008", "--layers", "32", "--tokens", "256",
            "--json",
        ],
        "(weights 155.4 GB as f64, activations ",
    );
    bad_huge(
        &[
            "--d", "4096", "--heads", "32", "--d-ff", "11008", "--layers", "32", "--tokens", "256",
            "--json",
        ],
        "the limit is 8 GB — use smaller d, d_ff, layers or vocab, or raise --memory-limit",
    );
    // The limit is the flag's.
    bad_huge(
        &["--layers", "8", "--memory-limit", "0.001", "--json"],
        "the limit is 1 MB",
    );
    // A checkpoint is checked from its header, before the file is read: a 17.7 GB bf16 file (a hole
    // on disk) with a 2^20 x 8192 embedding is about 71 GB as f64.
    let dir = scratch("huge-checkpoint");
    let (d, f, v) = (8192u64, 344u64, 1u64 << 20);
    let layer = |s: &str| format!("model.layers.0.{s}.weight");
    let names: Vec<(String, Vec<u64>)> = vec![
        ("model.embed_tokens.weight".into(), vec![v, d]),
        (layer("self_attn.q_proj"), vec![d, d]),
        (layer("self_attn.k_proj"), vec![d, d]),
        (layer("self_attn.v_proj"), vec![d, d]),
        (layer("self_attn.o_proj"), vec![d, d]),
        (layer("mlp.gate_proj"), vec![f, d]),
        (layer("mlp.up_proj"), vec![f, d]),
        (layer("mlp.down_proj"), vec![d, f]),
        (layer("input_layernorm"), vec![d]),
        (layer("post_attention_layernorm"), vec![d]),
        ("model.norm.weight".into(), vec![d]),
    ];
    let tensors: Vec<(&str, Vec<u64>)> =
        names.iter().map(|(n, s)| (n.as_str(), s.clone())).collect();
    let file = dir.join("model.safetensors");
    sparse_checkpoint(&file, &tensors);
    std::fs::write(
        dir.join("config.json"),
        r#"{"hidden_size": 8192, "num_attention_heads": 64, "num_hidden_layers": 1,
            "intermediate_size": 344, "vocab_size": 1048576, "tie_word_embeddings": true}"#,
    )
    .unwrap();
    let path = file.to_str().unwrap();
    bad_huge(
        &["--weights", path, "--tokens", "2", "--json"],
        "GB as f64, the checkpoint file 17.7 GB while it is read",
    );
    bad_huge(
        &["--weights", path, "--tokens", "2", "--json"],
        "use a smaller checkpoint",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// config.json keys that change the network, and a shard of a sharded checkpoint, are refused by
/// name rather than measured as another network.
#[test]
fn unmodelled_checkpoints_are_refused() {
    let weights = std::fs::read(format!("{REF}/weights.safetensors")).unwrap();
    let config = std::fs::read_to_string(format!("{REF}/config.json")).unwrap();
    let with_key =
        |key: &str, value: &str| config.replacen('{', &format!("{{\"{key}\": {value},"), 1);
    for (key, value, want) in [
        (
            "rope_scaling",
            r#"{"rope_type": "yarn", "factor": 2.0}"#,
            r#"config.json rope_scaling.rope_type = "yarn""#,
        ),
        (
            "attention_bias",
            "true",
            "config.json attention_bias = true",
        ),
        ("mlp_bias", "true", "config.json mlp_bias = true"),
        ("head_dim", "8", "config.json head_dim = 8"),
    ] {
        let dir = scratch(key);
        std::fs::write(dir.join("model.safetensors"), &weights).unwrap();
        std::fs::write(dir.join("config.json"), with_key(key, value)).unwrap();
        let path = dir.join("model.safetensors");
        bad(&["--weights", path.to_str().unwrap(), "--json"], want);
        bad(
            &["--weights", path.to_str().unwrap(), "--json"],
            "would differ from Hugging Face's",
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
    let dir = scratch("shard");
    let shard = dir.join("model-00001-of-00002.safetensors");
    std::fs::write(&shard, &weights).unwrap();
    std::fs::write(dir.join("config.json"), &config).unwrap();
    std::fs::write(
        dir.join("model.safetensors.index.json"),
        r#"{"weight_map": {"model.embed_tokens.weight": "model-00001-of-00002.safetensors",
            "lm_head.weight": "model-00002-of-00002.safetensors"}}"#,
    )
    .unwrap();
    bad(
        &["--weights", shard.to_str().unwrap(), "--json"],
        "model-00001-of-00002.safetensors is one shard of a sharded checkpoint",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A norm that stops at --max-iter unconverged is marked in the table (with a footnote) and
/// named once on stderr, not only as `converged: false` in the JSON.
#[test]
fn unconverged_norms_are_marked() {
    let small = [
        "--d",
        "16",
        "--heads",
        "2",
        "--d-ff",
        "24",
        "--tokens",
        "4",
        "--layers",
        "3",
        "--max-iter",
        "1",
    ];
    let out = Command::new(env!("CARGO_BIN_EXE_depthprod"))
        .arg("lab")
        .args(small)
        .env("NO_PROGRESS", "1")
        .output()
        .unwrap();
    assert!(out.status.success());
    let table = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let rows: Vec<&str> = table
        .lines()
        .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()))
        .collect();
    assert_eq!(rows.len(), 3, "{table}");
    assert!(
        rows.iter().any(|r| r.contains("e") && r.contains('*')),
        "{table}"
    );
    let note: Vec<&str> = table
        .lines()
        .filter(|l| l.starts_with("* not converged"))
        .collect();
    assert_eq!(note.len(), 1, "{table}");
    assert!(
        note[0].contains("tol = 1e-6") && note[0].contains("layer "),
        "{}",
        note[0]
    );
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("depthprod lab: warning: "))
        .collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(
        warnings[0].contains("norms did not converge to tol = 1e-6 within --max-iter"),
        "{}",
        warnings[0]
    );
    // The JSON says which: every marked norm has converged: false, and the warning is the same.
    let out = Command::new(env!("CARGO_BIN_EXE_depthprod"))
        .arg("lab")
        .args(small)
        .arg("--json")
        .env("NO_PROGRESS", "1")
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let unconverged = v["layers"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|l| ["jacobian", "jacobian_minus_identity", "end_to_end"].map(|k| &l[k]))
        .filter(|e| e["converged"] == Value::Bool(false))
        .count();
    assert!(unconverged > 0);
    assert!(String::from_utf8_lossy(&out.stderr).contains(&format!(
        "depthprod lab: warning: {unconverged} of 9 norms did not converge"
    )));
    // Converged runs print neither.
    let out = Command::new(env!("CARGO_BIN_EXE_depthprod"))
        .arg("lab")
        .args(&small[..10])
        .env("NO_PROGRESS", "1")
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stdout).contains('*'));
    assert!(!String::from_utf8_lossy(&out.stderr).contains("warning"));
}

/// Mix-LN with L < 4 still has one Post-LN layer by default (floor(L/4) = 0 was Pre-LN).
#[test]
fn shallow_mix_ln_is_not_pre_ln() {
    let small = [
        "--d", "16", "--heads", "2", "--d-ff", "24", "--tokens", "4", "--layers", "3", "--json",
    ];
    let mix = json(&[&["--norm", "mix"], &small[..]].concat());
    let pre = json(&[&["--norm", "pre"], &small[..]].concat());
    assert_eq!(mix["config"]["mix_post_layers"].as_u64(), Some(1));
    assert_ne!(mix["layers"][1]["variance"], pre["layers"][1]["variance"]);
}
