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

/// Tolerance of the column-by-column agreement. Every tangent of a batch goes through the same
/// scalar operations as alone (the row-wise norms, rotary, MLP gates and the per-tangent
/// attention are the same code on the same cache); only the GEMMs may accumulate their inner
/// products (length at most n = max(d, d_ff) = 12 here) in another order, which moves each product
/// entry by at most 2 gamma_n sum |a_i b_i| <= 2 n u ||a|| ||b|| (u = 2^-53), 2.7e-15 of the
/// operands' norms. A layer chains at most 7 products through norms and gates whose derivatives
/// are bounded by the forward pass's scales (gains 1 +- 0.3, weights std 0.4: each stage's
/// Lipschitz factor below 10 at these sizes, measured max 4), so the output moves by at most
/// 7 * 10 * 2.7e-15 ~ 2e-13 of ||v|| ||J||; 1e-12 relative to the output is that with the
/// output no smaller than ||v|| / 5 (it is at least ||v|| - ||J - I|| ||v|| for the residual
/// placements; checked below so the bound is not silently vacuous).
const TOL: f64 = 1e-12;

#[test]
fn batched_layer_passes_equal_the_single_ones_column_by_column() {
    let k = 5;
    let mut worst: f64 = 0.0;
    let mut identical = 0usize;
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
                        assert!(r <= TOL, "{what}, tangent {b}: batched {name} off by {r:e}");
                        worst = worst.max(r);
                        identical += usize::from(got == want.as_slice());
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
    eprintln!("batched vs single: worst relative difference {worst:e}, {identical} of {total} columns bit-identical");
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
        assert!(rel_diff(&a[n..2 * n], &b[n..2 * n]) <= TOL);
        assert!(
            a[..n].iter().chain(&a[2 * n..]).all(|&e| e == 0.0),
            "zero tangents stay zero"
        );
    }
}
