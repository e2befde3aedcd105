//! Every JVP and VJP against central finite differences and against each other, per operation and
//! per layer for every placement; parameter gradients against finite differences of the loss.

mod common;

use common::*;
use depthlab::testing::{
    attn_forward, attn_jvp, attn_vjp, mlp_forward, mlp_jvp, mlp_vjp, norm_forward, norm_jvp,
    norm_vjp, AttnShape, Rope,
};
use depthlab::{Gaussian, MlpKind, NormKind, Placement};

#[test]
fn norms_jvp_vjp() {
    for kind in [NormKind::Rms, NormKind::Layer] {
        let mut rng = Gaussian::new(3);
        let d = 8;
        let x = rng.normals(3 * d, 1.5);
        let g: Vec<f64> = (0..d).map(|_| 1.0 + 0.3 * rng.normal()).collect();
        let v = rng.normals(3 * d, 1.0);
        let u = rng.normals(3 * d, 1.0);
        let (_, c) = norm_forward(kind, &x, &g, d, 1e-6);
        let jv = norm_jvp(kind, &c, &g, &v, d);
        let f = |x: &[f64]| norm_forward(kind, x, &g, d, 1e-6).0;
        check_jvp(&f, &x, &v, &jv, &format!("{kind:?} norm"));
        let jtu = norm_vjp(kind, &c, &g, &u, d, None);
        check_adjoint(&jv, &u, &v, &jtu, &format!("{kind:?} norm"));
    }
}

#[test]
fn attention_jvp_vjp() {
    for kv_heads in [2, 1] {
        let mut rng = Gaussian::new(5);
        let s = AttnShape {
            tokens: 4,
            d: 8,
            heads: 2,
            kv_heads,
            d_head: 4,
        };
        let dkv = kv_heads * 4;
        let w = depthlab::ops::AttnWeights {
            q: rng.normals(64, 0.5),
            k: rng.normals(dkv * 8, 0.5),
            v: rng.normals(dkv * 8, 0.5),
            o: rng.normals(64, 0.5),
        };
        let rope = Rope::new(4, 4, 10000.0);
        let x = rng.normals(32, 1.0);
        let v = rng.normals(32, 1.0);
        let u = rng.normals(32, 1.0);
        let (_, c) = attn_forward(s, &w, &rope, &x);
        let jv = attn_jvp(s, &w, &rope, &c, &v);
        let f = |x: &[f64]| attn_forward(s, &w, &rope, x).0;
        check_jvp(&f, &x, &v, &jv, "attention");
        let jtu = attn_vjp(s, &w, &rope, &c, &u, None);
        check_adjoint(&jv, &u, &v, &jtu, "attention");
    }
}

#[test]
fn mlp_jvp_vjp() {
    for kind in [MlpKind::SwiGlu, MlpKind::Gelu] {
        let mut rng = Gaussian::new(7);
        let (t, d, f) = (3, 8, 12);
        let w = depthlab::ops::MlpWeights {
            gate: rng.normals(f * d, 0.5),
            up: rng.normals(f * d, 0.5),
            down: rng.normals(d * f, 0.5),
        };
        let x = rng.normals(t * d, 1.0);
        let v = rng.normals(t * d, 1.0);
        let u = rng.normals(t * d, 1.0);
        let (_, c) = mlp_forward(kind, &w, &x, t, d, f);
        let jv = mlp_jvp(kind, &w, &c, &v, t, d, f);
        let fun = |x: &[f64]| mlp_forward(kind, &w, x, t, d, f).0;
        check_jvp(&fun, &x, &v, &jv, &format!("{kind:?}"));
        let jtu = mlp_vjp(kind, &w, &c, &u, t, d, f, None);
        check_adjoint(&jv, &u, &v, &jtu, &format!("{kind:?}"));
    }
}

#[test]
fn every_placement_layer_jvp_vjp() {
    for placement in Placement::ALL {
        for (norm_kind, mlp) in [
            (NormKind::Rms, MlpKind::SwiGlu),
            (NormKind::Layer, MlpKind::Gelu),
        ] {
            let mut cfg = tiny(placement);
            cfg.norm_kind = norm_kind;
            cfg.mlp = mlp;
            let m = model(cfg, 11);
            let mut rng = Gaussian::new(13);
            let x = rng.normals(24, 1.0);
            for l in 1..=3 {
                let (_, c) = m.layer_forward(l, &x);
                let v = rng.normals(24, 1.0);
                let u = rng.normals(24, 1.0);
                let jv = m.layer_jvp(l, &c, &v);
                let f = |x: &[f64]| m.layer_forward(l, x).0;
                let what = format!("{placement:?} {norm_kind:?} {mlp:?} layer {l}");
                check_jvp(&f, &x, &v, &jv, &what);
                let jtu = m.layer_vjp(l, &c, &u, None);
                check_adjoint(&jv, &u, &v, &jtu, &what);
            }
        }
    }
}

/// d loss / d theta along a random direction in each layer's parameters, against central
/// differences of the loss (same derived tolerance as the JVPs).
#[test]
fn parameter_gradients_match_finite_differences() {
    for placement in Placement::ALL {
        let m0 = model(tiny(placement), 17);
        let ids = [3u32, 7, 1];
        let x1 = m0.embed(&ids);
        let (xs, caches) = m0.forward(&x1);
        let (_, grads) = depthlab::measure::layer_gradients(&m0, &xs, &caches, &ids);
        let mut rng = Gaussian::new(19);
        for l in 1..=3 {
            let dir: Vec<Vec<f64>> = grads[l - 1]
                .named()
                .iter()
                .map(|(_, t)| rng.normals(t.len(), 1.0))
                .collect();
            // A unit direction, so the step h moves the weights by h.
            let total: f64 = dir.iter().map(|d| dot(d, d)).sum::<f64>().sqrt();
            let dir: Vec<Vec<f64>> = dir
                .into_iter()
                .map(|d| d.into_iter().map(|v| v / total).collect())
                .collect();
            let analytic: f64 = grads[l - 1]
                .named()
                .iter()
                .zip(&dir)
                .map(|((_, g), d)| dot(g, d))
                .sum();
            let loss_at = |h: f64| {
                let mut m = m0.clone();
                for (t, d) in std::sync::Arc::make_mut(&mut m.weights).layers[l - 1]
                    .named_mut_for_tests()
                    .into_iter()
                    .zip(&dir)
                {
                    for (a, b) in t.iter_mut().zip(d) {
                        *a += h * b;
                    }
                }
                let (xs, _) = m.forward(&x1);
                m.loss_and_grad(&xs[3], &ids).0
            };
            let f = |p: &[f64]| vec![loss_at(p[0])];
            check_jvp(
                &f,
                &[0.0],
                &[1.0],
                &[analytic],
                &format!("{placement:?} grad layer {l}"),
            );
        }
    }
}
