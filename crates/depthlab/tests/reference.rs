//! The independent PyTorch float64 reference (tests/reference/lab/, made by make_reference.py and
//! committed): every norm placement must agree to 1e-9 relative. Also: bad weights files.

use depthlab::lanczos::LanczosOptions;
use depthlab::{Config, FileConfig, InputSpec, LabSpec, Overrides, Placement, Selection};
use safetensors::tensor::TensorView;
use safetensors::{Dtype, SafeTensors};
use serde_json::Value;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/reference/lab");

fn files() -> (Vec<u8>, FileConfig, Value) {
    let bytes = std::fs::read(format!("{DIR}/weights.safetensors")).unwrap();
    let cfg =
        FileConfig::parse(&std::fs::read_to_string(format!("{DIR}/config.json")).unwrap()).unwrap();
    let expected: Value =
        serde_json::from_str(&std::fs::read_to_string(format!("{DIR}/expected.json")).unwrap())
            .unwrap();
    (bytes, cfg, expected)
}

fn base(placement: Placement, tokens: usize) -> Config {
    Config {
        placement,
        tokens,
        mix_post_layers: 1,
        ..Config::default_case()
    }
}

fn close(a: f64, b: f64, what: &str) {
    assert!(
        (a - b).abs() <= 1e-9 * b.abs().max(1e-300),
        "{what}: lab {a:e} vs reference {b:e} (rel {:e})",
        (a - b).abs() / b.abs()
    );
}

#[test]
fn agrees_with_pytorch_for_every_placement() {
    let (bytes, fc, expected) = files();
    let ids: Vec<u32> = expected["ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap() as u32)
        .collect();
    for placement in Placement::ALL {
        let (cfg, w) = depthlab::load(
            &bytes,
            Some(&fc),
            &base(placement, ids.len()),
            &Overrides::default(),
        )
        .unwrap();
        let want = &expected["placements"][placement.name()];
        let spec = LabSpec {
            cfg,
            seed: 0,
            weights: Some(w),
            input: InputSpec::Tokens(Some(ids.clone())),
            lanczos: LanczosOptions {
                tol: 1e-12,
                ..LanczosOptions::default()
            },
            select: Selection::default(),
        };
        let r = depthlab::run(&spec, &|_, _, _| {}).unwrap();
        let name = placement.name();
        close(
            r.loss.unwrap(),
            want["loss"].as_f64().unwrap(),
            &format!("{name} loss"),
        );
        let var = want["variance"].as_array().unwrap();
        for (l, lr) in r.layers.iter().enumerate() {
            let at = |k: &str| want[k][l].as_f64().unwrap();
            let w = |k: &str| format!("{name} layer {} {k}", l + 1);
            close(lr.variance, var[l].as_f64().unwrap(), &w("variance"));
            close(
                lr.jacobian_norm.unwrap(),
                at("jacobian_norm"),
                &w("jacobian_norm"),
            );
            close(
                lr.jacobian_minus_identity_norm.unwrap(),
                at("jacobian_minus_identity_norm"),
                &w("jacobian_minus_identity_norm"),
            );
            close(
                lr.end_to_end_norm.unwrap(),
                at("end_to_end_norm"),
                &w("end_to_end_norm"),
            );
            close(lr.grad_norm.unwrap(), at("grad_norm"), &w("grad_norm"));
        }
        close(
            r.final_variance,
            var[3].as_f64().unwrap(),
            &format!("{name} final variance"),
        );
        let ang = r.angular_distance.unwrap();
        for i in 0..4 {
            for j in 0..4 {
                let b = want["angular_distance"][i][j].as_f64().unwrap();
                if i == j {
                    assert!(ang[i][j] == 0.0 && b.abs() < 1e-7);
                } else {
                    close(ang[i][j], b, &format!("{name} angular {i} {j}"));
                }
            }
        }
    }
}

/// Rewrites the reference file with one change.
fn rewrite(edit: impl Fn(&str, &mut Vec<usize>, &mut Vec<u8>) -> bool) -> Vec<u8> {
    let bytes = std::fs::read(format!("{DIR}/weights.safetensors")).unwrap();
    let st = SafeTensors::deserialize(&bytes).unwrap();
    let mut owned: Vec<(String, Vec<usize>, Vec<u8>)> = Vec::new();
    for (name, t) in st.tensors() {
        let mut shape = t.shape().to_vec();
        let mut data = t.data().to_vec();
        if edit(&name, &mut shape, &mut data) {
            owned.push((name, shape, data));
        }
    }
    let views: Vec<(String, TensorView<'_>)> = owned
        .iter()
        .map(|(n, s, d)| {
            (
                n.clone(),
                TensorView::new(Dtype::F64, s.clone(), d).unwrap(),
            )
        })
        .collect();
    safetensors::serialize(views, None).unwrap()
}

fn load_err(bytes: &[u8], ov: &Overrides) -> String {
    let fc = files().1;
    depthlab::load(bytes, Some(&fc), &base(Placement::Pre, 3), ov)
        .unwrap_err()
        .to_string()
}

#[test]
fn bad_weights_files_are_named() {
    let msg = load_err(b"this is not a safetensors file", &Overrides::default());
    assert!(msg.contains("not a valid safetensors file"), "{msg}");

    let missing = rewrite(|n, _, _| n != "model.layers.1.mlp.up_proj.weight");
    let msg = load_err(&missing, &Overrides::default());
    assert!(
        msg.contains("missing tensor model.layers.1.mlp.up_proj.weight"),
        "{msg}"
    );

    let reshaped = rewrite(|n, s, d| {
        if n == "model.layers.0.self_attn.o_proj.weight" {
            *s = vec![4, 8];
            d.truncate(4 * 8 * 8);
        }
        true
    });
    let msg = load_err(&reshaped, &Overrides::default());
    assert!(
        msg.contains("model.layers.0.self_attn.o_proj.weight has shape [4, 8], expected [8, 8]"),
        "{msg}"
    );

    let nan = rewrite(|n, _, d| {
        if n == "model.layers.2.mlp.down_proj.weight" {
            d[40..48].copy_from_slice(&f64::NAN.to_le_bytes());
        }
        true
    });
    let msg = load_err(&nan, &Overrides::default());
    assert!(
        msg.contains(
            "model.layers.2.mlp.down_proj.weight has a non-finite value (NaN) at flat index 5"
        ),
        "{msg}"
    );

    let bytes = std::fs::read(format!("{DIR}/weights.safetensors")).unwrap();
    let msg = load_err(
        &bytes,
        &Overrides {
            layers: Some(5),
            ..Overrides::default()
        },
    );
    assert!(
        msg.contains("layers = 5 but the file has 3 decoder layers"),
        "{msg}"
    );
}

#[test]
fn f32_f16_bf16_files_load() {
    // The same weights stored as f32, f16 and bf16 load to the nearest representable values.
    let bytes = std::fs::read(format!("{DIR}/weights.safetensors")).unwrap();
    let st = SafeTensors::deserialize(&bytes).unwrap();
    let emb: Vec<f64> = st
        .tensor("model.embed_tokens.weight")
        .unwrap()
        .data()
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    for (dtype, width) in [(Dtype::F32, 4usize), (Dtype::F16, 2), (Dtype::BF16, 2)] {
        let mut owned = Vec::new();
        for (name, t) in st.tensors() {
            let vals: Vec<f64> = t
                .data()
                .chunks_exact(8)
                .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
                .collect();
            let data: Vec<u8> = vals
                .iter()
                .flat_map(|&v| match dtype {
                    Dtype::F32 => (v as f32).to_le_bytes().to_vec(),
                    Dtype::BF16 => (((v as f32).to_bits() >> 16) as u16).to_le_bytes().to_vec(),
                    _ => f16_bits(v).to_le_bytes().to_vec(),
                })
                .collect();
            owned.push((name, t.shape().to_vec(), data));
        }
        let views: Vec<(String, TensorView<'_>)> = owned
            .iter()
            .map(|(n, s, d)| (n.clone(), TensorView::new(dtype, s.clone(), d).unwrap()))
            .collect();
        let file = safetensors::serialize(views, None).unwrap();
        let fc = files().1;
        let (_, w) = depthlab::load(
            &file,
            Some(&fc),
            &base(Placement::Pre, 3),
            &Overrides::default(),
        )
        .unwrap();
        // Relative error of each conversion: 2^-24 (f32, nearest), 2^-11 (f16, nearest), 2^-7 (bf16 by
        // truncation to 7 stored bits).
        let rel = match dtype {
            Dtype::F32 => 2f64.powi(-24),
            Dtype::F16 => 2f64.powi(-11),
            _ => 2f64.powi(-7),
        };
        for (a, b) in w.embed.iter().zip(&emb) {
            assert!(
                (a - b).abs() <= rel * b.abs() + 1e-7,
                "{dtype:?}: {a} vs {b}"
            );
        }
        let _ = width;
    }
}

/// f64 -> IEEE half, round to nearest (normal range only; the reference weights are O(1)).
fn f16_bits(v: f64) -> u16 {
    let sign = if v < 0.0 { 0x8000u16 } else { 0 };
    let a = v.abs();
    if a < 2f64.powi(-14) {
        // Subnormal halves: multiples of 2^-24 (absolute error <= 2^-25 < the test's 1e-7).
        return sign | (a / 2f64.powi(-24)).round() as u16;
    }
    let e = a.log2().floor() as i32;
    let m = (a / 2f64.powi(e) - 1.0) * 1024.0;
    let mut mi = m.round() as u32;
    let mut ei = e + 15;
    if mi == 1024 {
        mi = 0;
        ei += 1;
    }
    sign | ((ei as u16) << 10) | mi as u16
}
