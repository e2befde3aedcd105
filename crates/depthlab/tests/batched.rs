//! The batched layer passes (`Model::layer_jvp_batch`, `Model::layer_vjp_batch`: k tangents
//! stacked as (k T) x d) against the single-vector ones, column by column, for every placement,
//! both norm kinds and MLPs, and grouped-query attention.

mod common;

use common::{dot, model, norm, tiny};
use depthlab::model::LayerCache;
use depthlab::{Gaussian, MlpKind, NormKind, Placement};

/// Largest |a_i - b_i| / max(||b||, tiny).
fn rel_diff(a: &[f64], b: &[f64]) -> f64 {
    let diff = a
        .iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max);
    diff / norm(b).max(1e-300)
}

// Column by column, bit for bit: every tangent of a batch goes through the same scalar operations
// as alone (the row-wise norms, rotary, MLP gates and the per-tangent attention are the same code
// on the same cache), and the lab's product computes each entry of a product as one sum in one
// order, however many rows the product has (`linalg::gemm`: equal to the naive loop's bits).
#[test]
fn batched_layer_passes_equal_the_single_ones_column_by_column() {
    let k = 5;
    let mut total = 0usize;
    for placement in Placement::ALL {
        for (norm_kind, mlp, kv_heads) in [
            (NormKind::Rms, MlpKind::SwiGlu, 2),
            (NormKind::Layer, MlpKind::Gelu, 2),
            (NormKind::Rms, MlpKind::SwiGlu, 1),
        ] {
            let mut cfg = tiny(placement);
            cfg.norm_kind = norm_kind;
            cfg.mlp = mlp;
            cfg.kv_heads = kv_heads;
            let n = cfg.tokens * cfg.d;
            let m = model(cfg, 23);
            let mut rng = Gaussian::new(29);
            let x = rng.normals(n, 1.0);
            for l in 1..=3 {
                let what = format!("{placement:?} {norm_kind:?} {mlp:?} kv {kv_heads} layer {l}");
                let (_, c) = m.layer_forward(l, &x);
                let vs = rng.normals(k * n, 1.0);
                let us = rng.normals(k * n, 1.0);
                let jvs = m.layer_jvp_batch(l, &c, &vs);
                let jtus = m.layer_vjp_batch(l, &c, &us);
                assert_eq!((jvs.len(), jtus.len()), (k * n, k * n), "{what}");
                for b in 0..k {
                    let (v, u) = (&vs[b * n..(b + 1) * n], &us[b * n..(b + 1) * n]);
                    let (jv, jtu) = (&jvs[b * n..(b + 1) * n], &jtus[b * n..(b + 1) * n]);
                    let single_jv = m.layer_jvp(l, &c, v);
                    let single_jtu = m.layer_vjp(l, &c, u, None);
                    assert!(norm(&single_jv) >= norm(v) / 5.0, "{what}: tiny output");
                    for (got, want, name) in [(jv, &single_jv, "JVP"), (jtu, &single_jtu, "VJP")] {
                        let r = rel_diff(got, want);
                        assert!(
                            got == want.as_slice(),
                            "{what}, tangent {b}: batched {name} off by {r:e}"
                        );
                        total += 1;
                    }
                    // And the batch is still the transpose of itself: <J v, u> = <v, J^T u>.
                    let (lhs, rhs) = (dot(jv, u), dot(v, jtu));
                    let scale = norm(jv) * norm(u) + norm(v) * norm(jtu);
                    assert!(
                        (lhs - rhs).abs() <= 1e-12 * scale,
                        "{what}, tangent {b}: adjoint {lhs} vs {rhs}"
                    );
                }
            }
        }
    }
    assert_eq!(total, 2 * k * 3 * 3 * Placement::ALL.len());
}

/// A batch of one is the single pass, and the batch does not mix its tangents: a tangent's
/// result does not depend on its neighbours (zero neighbours, or other random ones).
#[test]
fn batched_tangents_do_not_interact() {
    let cfg = tiny(Placement::Pre);
    let n = cfg.tokens * cfg.d;
    let m = model(cfg, 31);
    let mut rng = Gaussian::new(37);
    let x = rng.normals(n, 1.0);
    let (_, c) = m.layer_forward(2, &x);
    let v = rng.normals(n, 1.0);
    assert_eq!(m.layer_jvp_batch(2, &c, &v), m.layer_jvp(2, &c, &v));
    assert_eq!(m.layer_vjp_batch(2, &c, &v), m.layer_vjp(2, &c, &v, None));
    let mut with_zeros = vec![0.0; 3 * n];
    with_zeros[n..2 * n].copy_from_slice(&v);
    let mut with_others = rng.normals(3 * n, 1.0);
    with_others[n..2 * n].copy_from_slice(&v);
    type Pass = fn(&depthlab::Model, &LayerCache, &[f64]) -> Vec<f64>;
    let passes: [Pass; 2] = [
        |m, c, s| m.layer_jvp_batch(2, c, s),
        |m, c, s| m.layer_vjp_batch(2, c, s),
    ];
    for f in passes {
        let a = f(&m, &c, &with_zeros);
        let b = f(&m, &c, &with_others);
        let r = rel_diff(&a[n..2 * n], &b[n..2 * n]);
        assert!(
            a[n..2 * n] == b[n..2 * n],
            "neighbours moved a tangent by {r:e}"
        );
        assert!(
            a[..n].iter().chain(&a[2 * n..]).all(|&e| e == 0.0),
            "zero tangents stay zero"
        );
    }
}
