//! Rotary layouts and scalings against transformers' own forward in float64
//! (tests/reference/lab/rope/, written by make_rope_reference.py with `save_pretrained`): a
//! checkpoint with transformers 4's top-level rope_theta, transformers 5's rope_parameters, llama3
//! scaling in both layouts, and linear scaling, each loaded as the CLI and the page load it
//! (`FileConfig::parse` of its config.json, then `load`) and measured through `run`.
//!
//! Tolerance: 1e-12 relative for every compared column. The two sides compute the same float64
//! network from the same float32 weights, in different summation orders; each column is a few
//! hundred roundings deep (sums of at most d_ff = 48 products per entry, L = 2 layers), so they
//! agree to a few hundred u ~ 1e-14 (the measured worst is printed); 1e-12 leaves two orders of
//! magnitude for error growth through the softmax and norms while every wrong reading of the rotary
//! configuration moves some variance by more than 1e-4 (tested below, and in the script).

use depthlab::{
    rope_inv_freq, Config, FileConfig, InputSpec, LabError, LabSpec, LanczosOptions, Overrides,
    Placement, Report, RopeScaling, Selection, DEFAULT_MEMORY_BUDGET,
};
use serde_json::Value;
use std::sync::Arc;

const DIR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/reference/lab/rope"
);
const CASES: [&str; 5] = [
    "rope_theta",
    "rope_parameters",
    "llama3",
    "llama3_rope_scaling",
    "linear",
];
const TOL: f64 = 1e-12;

fn expected() -> Value {
    serde_json::from_str(&std::fs::read_to_string(format!("{DIR}/expected.json")).unwrap()).unwrap()
}

fn ids(e: &Value) -> Vec<u32> {
    e["ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as u32)
        .collect()
}

fn config_text(case: &str) -> String {
    std::fs::read_to_string(format!("{DIR}/{case}/config.json")).unwrap()
}

fn bytes(case: &str) -> Vec<u8> {
    std::fs::read(format!("{DIR}/{case}/model.safetensors")).unwrap()
}

fn base(tokens: usize) -> Config {
    Config {
        placement: Placement::Pre,
        tokens,
        mix_post_layers: 0,
        ..Config::default_case()
    }
}

/// The checkpoint of `case` with `config` as its config.json, loaded as the shells load it.
fn load_with(
    case: &str,
    config: &str,
    tokens: usize,
) -> Result<(Config, depthlab::Weights), LabError> {
    let fc = FileConfig::parse(config)?;
    depthlab::load(
        &bytes(case),
        Some(&fc),
        &base(tokens),
        &Overrides::default(),
        DEFAULT_MEMORY_BUDGET,
    )
}

/// Variances, loss, gradients and angular distances (the norms are not needed here).
fn measure(cfg: Config, w: Arc<depthlab::Weights>, ids: &[u32]) -> Report {
    let spec = LabSpec {
        cfg,
        seed: 0,
        weights: Some(w),
        input: InputSpec::Tokens(Some(ids.to_vec())),
        lanczos: LanczosOptions::default(),
        select: Selection {
            layer_norms: false,
            end_to_end: false,
            ..Selection::default()
        },
        memory_budget: DEFAULT_MEMORY_BUDGET,
    };
    depthlab::run(&spec, &|_, _, _| {}).unwrap()
}

fn rel(a: f64, b: f64) -> f64 {
    (a - b).abs() / b.abs()
}

/// (name, lab, reference) for every compared column of a report.
fn columns(r: &Report, want: &Value) -> Vec<(String, f64, f64)> {
    let num = |v: &Value| v.as_f64().unwrap();
    let var = want["variance"].as_array().unwrap();
    let mut out = Vec::new();
    for (l, lr) in r.layers.iter().enumerate() {
        out.push((format!("variance x_{}", l + 1), lr.variance, num(&var[l])));
        out.push((
            format!("grad_norm layer {}", l + 1),
            lr.grad_norm.unwrap(),
            num(&want["grad_norm"][l]),
        ));
    }
    out.push((
        format!("variance x_{}", r.layers.len() + 1),
        r.final_variance,
        num(&var[r.layers.len()]),
    ));
    out.push(("loss".into(), r.loss.unwrap(), num(&want["loss"])));
    let ang = r.angular_distance.as_ref().unwrap();
    for (i, row) in ang.iter().enumerate() {
        for (j, &a) in row.iter().enumerate() {
            if i != j {
                let b = num(&want["angular_distance"][i][j]);
                out.push((format!("angular distance {i} {j}"), a, b));
            }
        }
    }
    out
}

#[test]
fn every_rope_layout_and_scaling_agrees_with_transformers() {
    let e = expected();
    let ids = ids(&e);
    let mut worst = (0.0f64, String::new());
    for case in CASES {
        let want = &e["cases"][case];
        let (cfg, w) = load_with(case, &config_text(case), ids.len()).unwrap();
        // What was read: the base and scaling transformers itself read from the file.
        let read = &want["rope_parameters_as_read"];
        assert_eq!(
            cfg.rope_theta,
            read["rope_theta"].as_f64().unwrap(),
            "{case}"
        );
        assert_eq!(
            cfg.rope_scaling.name(),
            read["rope_type"].as_str().unwrap(),
            "{case}"
        );
        // The inverse frequencies: transformers' own function run in float64 against the lab's.
        let inv = rope_inv_freq(cfg.d_head(), cfg.rope_theta, &cfg.rope_scaling);
        let hf: Vec<f64> = want["inv_freq"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        assert_eq!(inv.len(), hf.len(), "{case}");
        for (i, (a, b)) in inv.iter().zip(&hf).enumerate() {
            // pow is not correctly rounded in either libm (under 1 ulp each), and the division
            // and the scaling add at most a few roundings: 8 u covers them.
            assert!(
                rel(*a, *b) <= 8.0 * f64::EPSILON / 2.0,
                "{case} inv_freq {i}: {a:e} vs {b:e}"
            );
        }
        // The header alone resolves the same configuration (how the CLI plans the load).
        let file = bytes(case);
        let n = depthlab::load::header_len(&file[..8], file.len() as u64).unwrap();
        let fc = FileConfig::parse(&config_text(case)).unwrap();
        let planned = depthlab::load::resolve_header(
            &file[..n],
            file.len() as u64,
            Some(&fc),
            &base(ids.len()),
            &Overrides::default(),
        )
        .unwrap();
        assert_eq!(planned, cfg, "{case}");
        let r = measure(cfg.clone(), Arc::new(w), &ids);
        assert_eq!(r.config.rope_scaling, cfg.rope_scaling);
        for (what, a, b) in columns(&r, want) {
            let d = rel(a, b);
            assert!(
                d <= TOL,
                "{case} {what}: lab {a:e} vs transformers {b:e} (rel {d:e})"
            );
            if d > worst.0 {
                worst = (d, format!("{case} {what}"));
            }
        }
    }
    println!(
        "worst relative difference from transformers: {:e} ({})",
        worst.0, worst.1
    );
}

/// The comparison can fail: the same weights run with plain rotary embeddings and base 10000
/// (how the lab read all of these configs before it read rope_parameters and the scalings) miss
/// each case's reference by far more than the tolerance.
#[test]
fn plain_rotary_embeddings_would_fail_each_case() {
    let e = expected();
    let ids = ids(&e);
    for case in CASES {
        let (cfg, w) = load_with(case, &config_text(case), ids.len()).unwrap();
        assert!(
            cfg.rope_theta != 10000.0 || cfg.rope_scaling != RopeScaling::Default,
            "{case}"
        );
        let plain = Config {
            rope_theta: 10000.0,
            rope_scaling: RopeScaling::Default,
            ..cfg
        };
        let r = measure(plain, Arc::new(w), &ids);
        let worst = columns(&r, &e["cases"][case])
            .iter()
            .map(|(_, a, b)| rel(*a, *b))
            .fold(0.0, f64::max);
        assert!(
            worst > 1e-4,
            "{case}: plain rotary within {worst:e} of the reference"
        );
    }
    // The two llama3 layouts are one network: the lab reads them to the same configuration.
    let a = load_with("llama3", &config_text("llama3"), ids.len())
        .unwrap()
        .0;
    let b = load_with(
        "llama3_rope_scaling",
        &config_text("llama3_rope_scaling"),
        ids.len(),
    )
    .unwrap()
    .0;
    assert_eq!(a, b);
}

/// The configs transformers wrote, edited to ask for what the lab does not model or to say two
/// things at once, are refused with the key and its value in the message.
#[test]
fn saved_configs_the_lab_does_not_model_are_refused() {
    let edit = |case: &str, f: &dyn Fn(&mut Value)| {
        let mut v: Value = serde_json::from_str(&config_text(case)).unwrap();
        f(&mut v);
        let err = load_with(case, &v.to_string(), 12).unwrap_err();
        (matches!(err, LabError::Unsupported(_)), err.to_string())
    };
    for kind in ["yarn", "dynamic", "longrope", "proportional"] {
        let (unsupported, msg) = edit("llama3", &|v| {
            v["rope_parameters"]["rope_type"] = Value::from(kind);
        });
        assert!(
            unsupported
                && msg.starts_with(&format!(
                    "config.json rope_parameters.rope_type = \"{kind}\": the lab does not model"
                )),
            "{msg}"
        );
        let (unsupported, msg) = edit("llama3_rope_scaling", &|v| {
            v["rope_scaling"]["rope_type"] = Value::from(kind);
        });
        assert!(
            unsupported
                && msg.starts_with(&format!(
                    "config.json rope_scaling.rope_type = \"{kind}\": the lab does not model"
                )),
            "{msg}"
        );
    }
    let (unsupported, msg) = edit("rope_parameters", &|v| {
        v["rope_theta"] = Value::from(10000.0);
    });
    assert!(
        unsupported
            && msg.starts_with(
                "config.json rope_theta = 10000 and rope_parameters.rope_theta = 500000 disagree"
            ),
        "{msg}"
    );
    let (unsupported, msg) = edit("linear", &|v| {
        v["rope_scaling"] = serde_json::json!({"rope_type": "linear", "factor": 2.0});
    });
    assert!(
        unsupported
            && msg
                .contains("and rope_scaling = {\"factor\":2.0,\"rope_type\":\"linear\"} disagree"),
        "{msg}"
    );
    let (unsupported, msg) = edit("rope_parameters", &|v| {
        v["rope_parameters"]["partial_rotary_factor"] = Value::from(0.5);
    });
    assert!(
        unsupported
            && msg.starts_with(
                "config.json rope_parameters.partial_rotary_factor = 0.5: the lab does not model"
            ),
        "{msg}"
    );
}
