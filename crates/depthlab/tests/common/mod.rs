// Shared helpers of the depthlab tests (included with `mod common;`).
#![allow(dead_code)]

use depthlab::{Config, Gaussian, MlpKind, Model, NormKind, Placement, RopeScaling, Weights};

pub fn tiny(placement: Placement) -> Config {
    Config {
        d: 8,
        heads: 2,
        kv_heads: 2,
        d_ff: 12,
        tokens: 3,
        layers: 3,
        vocab: 11,
        placement,
        norm_kind: NormKind::Rms,
        mlp: MlpKind::SwiGlu,
        eps: 1e-6,
        rope_theta: 10000.0,
        rope_scaling: RopeScaling::Default,
        init_std: 0.4,
        scaled_init: false,
        mix_post_layers: 1,
        deepnorm_alpha: None,
        tie_embeddings: false,
    }
}

/// A model with random weights and random (non-unit) norm gains.
pub fn model(cfg: Config, seed: u64) -> Model {
    let mut rng = Gaussian::new(seed);
    let mut w = Weights::seeded(&cfg, &mut rng);
    for lw in &mut w.layers {
        for g in [
            &mut lw.attn_norm,
            &mut lw.mlp_norm,
            &mut lw.attn_out_norm,
            &mut lw.mlp_out_norm,
        ] {
            for v in g.iter_mut() {
                *v = 1.0 + 0.3 * rng.normal();
            }
        }
    }
    Model::new(cfg, w).unwrap()
}

pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

pub fn norm(a: &[f64]) -> f64 {
    dot(a, a).sqrt()
}

/// Checks a JVP against central differences of f at x along v.
///
/// Tolerance, derived rather than tuned: the central difference D(h) has truncation error
/// h^2/6 f''' + O(h^4) and rounding error about eps |f| / h. Richardson's |D(h) - D(h/2)| * 4/3
/// estimates the truncation error of D(h/2); the rounding part is bounded by 4 eps max|f| / h
/// (two evaluations, each off by at most ~eps |f| per entry after the final rounding, times a
/// safety factor 2 for the accumulated rounding of the forward pass). The check also requires the
/// tolerance itself to be small (1e-5 of |J v|), so it cannot pass vacuously.
pub fn check_jvp(f: &dyn Fn(&[f64]) -> Vec<f64>, x: &[f64], v: &[f64], jv: &[f64], what: &str) {
    let scale = norm(x).max(1.0) / norm(v).max(1e-300);
    let h = 1e-4 * scale;
    let cd = |h: f64| -> Vec<f64> {
        let xp: Vec<f64> = x.iter().zip(v).map(|(a, b)| a + h * b).collect();
        let xm: Vec<f64> = x.iter().zip(v).map(|(a, b)| a - h * b).collect();
        let (fp, fm) = (f(&xp), f(&xm));
        fp.iter()
            .zip(&fm)
            .map(|(p, m)| (p - m) / (2.0 * h))
            .collect()
    };
    let d1 = cd(h);
    let d2 = cd(h / 2.0);
    let fmax = f(x).iter().fold(0.0f64, |m, v| m.max(v.abs())).max(1.0);
    let trunc: Vec<f64> = d1
        .iter()
        .zip(&d2)
        .map(|(a, b)| (a - b).abs() * 4.0 / 3.0)
        .collect();
    let round = 4.0 * f64::EPSILON * fmax * norm(v) / (h / 2.0);
    let jn = norm(jv);
    for i in 0..jv.len() {
        let tol = 2.0 * trunc[i] + round;
        assert!(
            tol <= 1e-5 * jn.max(1e-12),
            "{what}: tolerance {tol:e} not small against |Jv| = {jn:e}"
        );
        assert!(
            (jv[i] - d2[i]).abs() <= tol,
            "{what}: entry {i}: jvp {} vs finite difference {} (tol {tol:e})",
            jv[i],
            d2[i]
        );
    }
}

/// <J v, u> = <v, J^T u> to 1e-12 relative (to |J v| |u| + |v| |J^T u|).
pub fn check_adjoint(jv: &[f64], u: &[f64], v: &[f64], jtu: &[f64], what: &str) {
    let a = dot(jv, u);
    let b = dot(v, jtu);
    let scale = norm(jv) * norm(u) + norm(v) * norm(jtu);
    assert!(
        (a - b).abs() <= 1e-12 * scale,
        "{what}: <Jv,u> = {a:e}, <v,J^T u> = {b:e}"
    );
}
