//! The independent PyTorch float64 reference (tests/reference/lab/, made by make_reference.py and
//! committed): every norm placement must agree to 1e-9 relative. Also: bad weights files.

use depthlab::lanczos::LanczosOptions;
use depthlab::{
    Config, FileConfig, InputSpec, LabSpec, Overrides, Placement, Selection, DEFAULT_MEMORY_BUDGET,
};
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

/// The run options as the shells pass them to `load`: Mix-LN's k is set after the load, from the
/// file's L (`Config::default_mix_post_layers`), so 0 here.
fn base(placement: Placement, tokens: usize) -> Config {
    Config {
        placement,
        tokens,
        mix_post_layers: 0,
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
        let (mut cfg, w) = depthlab::load(
            &bytes,
            Some(&fc),
            &base(placement, ids.len()),
            &Overrides::default(),
            DEFAULT_MEMORY_BUDGET,
        )
        .unwrap();
        // The reference's Mix-LN has k = 1 Post-LN layer of L = 3: the default k, max(1,
        // floor(L/4)), so "mix" is reproduced without passing k (floor(L/4) = 0 was Pre-LN).
        cfg.mix_post_layers = Config::default_mix_post_layers(cfg.layers);
        assert_eq!((cfg.layers, cfg.mix_post_layers), (3, 1));
        let want = &expected["placements"][placement.name()];
        let spec = LabSpec {
            cfg,
            seed: 0,
            weights: Some(std::sync::Arc::new(w)),
            input: InputSpec::Tokens(Some(ids.clone())),
            lanczos: LanczosOptions {
                tol: 1e-12,
                ..LanczosOptions::default()
            },
            select: Selection::default(),
            memory_budget: depthlab::DEFAULT_MEMORY_BUDGET,
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

/// A `.safetensors` file of f64 tensors given as (name, shape, little-endian bytes).
fn serialize_f64(owned: &[(String, Vec<usize>, Vec<u8>)]) -> Vec<u8> {
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
    serialize_f64(&owned)
}

fn load_err(bytes: &[u8], ov: &Overrides) -> String {
    let fc = files().1;
    depthlab::load(
        bytes,
        Some(&fc),
        &base(Placement::Pre, 3),
        ov,
        DEFAULT_MEMORY_BUDGET,
    )
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
            DEFAULT_MEMORY_BUDGET,
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

/// The reference file with the tensors `keep` accepts and `extra` (name, shape) zero tensors.
fn with_tensors(keep: impl Fn(&str) -> bool, extra: &[(&str, Vec<usize>)]) -> Vec<u8> {
    let bytes = std::fs::read(format!("{DIR}/weights.safetensors")).unwrap();
    let st = SafeTensors::deserialize(&bytes).unwrap();
    let mut owned: Vec<(String, Vec<usize>, Vec<u8>)> = st
        .tensors()
        .into_iter()
        .filter(|(n, _)| keep(n))
        .map(|(n, t)| (n, t.shape().to_vec(), t.data().to_vec()))
        .collect();
    for (name, shape) in extra {
        let len = 8 * shape.iter().product::<usize>();
        owned.push((name.to_string(), shape.clone(), vec![0; len]));
    }
    serialize_f64(&owned)
}

/// A bias tensor means a network with biases (Qwen2's q/k/v, or attention_bias without the key
/// in config.json): refused by name, not loaded without it.
#[test]
fn bias_tensors_are_refused() {
    let biased = with_tensors(
        |_| true,
        &[("model.layers.0.self_attn.q_proj.bias", vec![8])],
    );
    let msg = load_err(&biased, &Overrides::default());
    assert!(
        msg.starts_with(
            "tensor model.layers.0.self_attn.q_proj.bias: the lab does not model biases"
        ) && msg.contains("would differ from Hugging Face's"),
        "{msg}"
    );
}

/// One shard of a two-shard checkpoint: the first holds the embedding and layers 0-1, the second
/// layer 2, the final norm and lm_head. Each is refused with the likely reason.
#[test]
fn shards_are_recognised() {
    let first = with_tensors(
        |n| {
            !(n.starts_with("model.layers.2.") || n == "model.norm.weight" || n == "lm_head.weight")
        },
        &[],
    );
    let msg = load_err(&first, &Overrides::default());
    assert!(
        msg.contains("layers = 3 but the file has 2 decoder layers (model.layers.0..1) (config.json's num_hidden_layers): is the file one shard of a sharded checkpoint?"),
        "{msg}"
    );
    // A prefix is still a valid measurement when asked for, but the missing final norm is named
    // with the same reason.
    let msg = load_err(
        &first,
        &Overrides {
            layers: Some(2),
            ..Overrides::default()
        },
    );
    assert!(
        msg.contains("missing tensor model.norm.weight, while the file holds other tensors of the model: is it one shard of a sharded checkpoint"),
        "{msg}"
    );
    let second = with_tensors(
        |n| n.starts_with("model.layers.2.") || n == "model.norm.weight" || n == "lm_head.weight",
        &[],
    );
    let msg = load_err(&second, &Overrides::default());
    assert!(
        msg.contains(
            "missing tensor model.embed_tokens.weight, while the file holds other tensors"
        ),
        "{msg}"
    );
}

/// The configuration from the header alone is the one the load uses; a header that does not
/// describe the whole file is refused before anything is read.
#[test]
fn the_header_alone_resolves_the_configuration() {
    let (bytes, fc, _) = files();
    let len = bytes.len() as u64;
    let n = depthlab::load::header_len(&bytes[..8], len).unwrap();
    let base = base(Placement::Pre, 3);
    let from_header =
        depthlab::load::resolve_header(&bytes[..n], len, Some(&fc), &base, &Overrides::default())
            .unwrap();
    let (loaded, _) = depthlab::load(
        &bytes,
        Some(&fc),
        &base,
        &Overrides::default(),
        DEFAULT_MEMORY_BUDGET,
    )
    .unwrap();
    assert_eq!(from_header, loaded);
    let msg = depthlab::load::resolve_header(
        &bytes[..n],
        len + 8,
        Some(&fc),
        &base,
        &Overrides::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        msg.contains("not a valid safetensors file (its header describes"),
        "{msg}"
    );
}

/// The load checks the file plus its f64 weights against the budget before widening anything.
#[test]
fn the_load_respects_its_memory_budget() {
    let (bytes, fc, _) = files();
    let err = depthlab::load(
        &bytes,
        Some(&fc),
        &base(Placement::Pre, 3),
        &Overrides::default(),
        1000,
    )
    .unwrap_err();
    let msg = err.to_string();
    assert!(
        matches!(err, depthlab::LabError::TooLarge { budget: 1000, .. })
            && msg.starts_with("this network needs about ")
            && msg.contains(" kB as f64, the checkpoint file ")
            && msg.contains("the limit is 1 kB"),
        "{msg}"
    );
}
