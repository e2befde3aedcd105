//! Closed forms (RMSNorm, softmax, RoPE), J = I for zero weights, the dense Jacobian's SVD
//! against the iterated norms, the paper's variance direction over seeds, and bad input.

mod common;

use common::*;
use depthlab::lanczos::LanczosOptions;
use depthlab::measure::{end_to_end_estimate, layer_norm_estimate};
use depthlab::testing::{attn_forward, norm_forward, AttnShape, Rope};
use depthlab::{
    Config, Gaussian, InputSpec, LabSpec, Model, NormKind, Placement, Selection, Weights,
};

#[test]
fn rmsnorm_closed_form() {
    // x = (3, 4): mean square 12.5, so y = x / sqrt(12.5 + eps) * g.
    let eps = 1e-6;
    let (y, _) = norm_forward(NormKind::Rms, &[3.0, 4.0], &[2.0, 0.5], 2, eps);
    let r = (12.5f64 + eps).sqrt();
    assert_eq!(y, vec![3.0 / r * 2.0, 4.0 / r * 0.5]);
}

#[test]
fn rope_closed_form() {
    // d_head = 2: one frequency theta^0 = 1, so position t rotates (1, 0) to (cos t, sin t).
    let rope = Rope::new(3, 2, 10000.0);
    let mut x = vec![1.0, 0.0, 1.0, 0.0, 1.0, 0.0];
    rope.apply(&mut x, 1, false);
    for t in 0..3 {
        assert!((x[2 * t] - (t as f64).cos()).abs() <= 1e-16);
        assert!((x[2 * t + 1] - (t as f64).sin()).abs() <= 1e-16);
    }
    rope.apply(&mut x, 1, true);
    for t in 0..3 {
        assert!((x[2 * t] - 1.0).abs() <= 1e-15 && x[2 * t + 1].abs() <= 1e-15);
    }
}

#[test]
fn softmax_attention_closed_form() {
    // One head, d = 2, all projections the identity, T = 2. Token 1 attends to tokens 0 and 1 with
    // p = softmax(q1.k0 / sqrt 2, q1.k1 / sqrt 2), q, k rotated by position (angles 0 and 1).
    let s = AttnShape {
        tokens: 2,
        d: 2,
        heads: 1,
        kv_heads: 1,
        d_head: 2,
    };
    let id = vec![1.0, 0.0, 0.0, 1.0];
    let w = depthlab::ops::AttnWeights {
        q: id.clone(),
        k: id.clone(),
        v: id.clone(),
        o: id,
    };
    let rope = Rope::new(2, 2, 10000.0);
    let u = [0.3, -0.7, 1.1, 0.4];
    let (out, _) = attn_forward(s, &w, &rope, &u);
    // Token 0 attends only to itself: out_0 = v_0 = u_0.
    assert_eq!(&out[..2], &u[..2]);
    let (c, sn) = (1f64.cos(), 1f64.sin());
    let q1 = [u[2] * c - u[3] * sn, u[3] * c + u[2] * sn];
    let k0 = [u[0], u[1]];
    let s0 = (q1[0] * k0[0] + q1[1] * k0[1]) / 2f64.sqrt();
    let s1 = (u[2] * u[2] + u[3] * u[3]) / 2f64.sqrt();
    let p0 = 1.0 / (1.0 + (s1 - s0).exp());
    let p1 = 1.0 - p0;
    let expect = [p0 * u[0] + p1 * u[2], p0 * u[1] + p1 * u[3]];
    for i in 0..2 {
        assert!(
            (out[2 + i] - expect[i]).abs() <= 1e-15,
            "{} vs {}",
            out[2 + i],
            expect[i]
        );
    }
}

#[test]
fn zero_weights_give_identity_exactly() {
    // Residual placements with every matrix zero: each sublayer adds exactly 0, so J = I bit for
    // bit. (Post, DeepNorm and Mix's post layers normalise the stream, so their J is not I.)
    for placement in [Placement::Pre, Placement::Lns, Placement::Sandwich] {
        let mut cfg = tiny(placement);
        cfg.init_std = 0.0;
        let m = Model::new(cfg.clone(), Weights::seeded(&cfg, &mut Gaussian::new(1))).unwrap();
        let mut rng = Gaussian::new(2);
        let x = rng.normals(24, 1.0);
        let v = rng.normals(24, 1.0);
        for l in 1..=3 {
            let (y, c) = m.layer_forward(l, &x);
            assert_eq!(y, x, "{placement:?}: forward is the identity");
            assert_eq!(m.layer_jvp(l, &c, &v), v, "{placement:?}: J v = v");
            assert_eq!(m.layer_vjp(l, &c, &v, None), v, "{placement:?}: J^T v = v");
            let j = layer_norm_estimate(&m, l, &c, false, LanczosOptions::default());
            assert_eq!(j.norm, 1.0);
            let jmi = layer_norm_estimate(&m, l, &c, true, LanczosOptions::default());
            assert_eq!(jmi.norm, 0.0);
        }
    }
}

fn dense(n: usize, f: impl Fn(&[f64]) -> Vec<f64>) -> nalgebra::DMatrix<f64> {
    let mut m = nalgebra::DMatrix::zeros(n, n);
    for j in 0..n {
        let mut e = vec![0.0; n];
        e[j] = 1.0;
        let col = f(&e);
        for i in 0..n {
            m[(i, j)] = col[i];
        }
    }
    m
}

#[test]
fn dense_svd_matches_iterated_norms() {
    // d = 8, T = 3: the 24 x 24 Jacobian from 24 JVPs, its largest singular value by nalgebra's SVD.
    // Lanczos with tol 1e-10 must agree to 1e-9 relative (a converged Krylov space of dimension
    // <= 24 makes the Ritz value exact up to rounding).
    let opts = LanczosOptions {
        tol: 1e-10,
        ..LanczosOptions::default()
    };
    for placement in Placement::ALL {
        let m = model(tiny(placement), 23);
        let x1 = m.embed(&[3, 7, 1]);
        let (xs, caches) = m.forward(&x1);
        for l in 1..=3 {
            let j = dense(24, |v| m.layer_jvp(l, &caches[l - 1], v));
            let s_j = j.clone().svd(false, false).singular_values.max();
            let s_jmi = (j - nalgebra::DMatrix::identity(24, 24))
                .svd(false, false)
                .singular_values
                .max();
            let e = layer_norm_estimate(&m, l, &caches[l - 1], false, opts);
            let emi = layer_norm_estimate(&m, l, &caches[l - 1], true, opts);
            assert!(e.converged && emi.converged);
            assert!(
                (e.norm - s_j).abs() <= 1e-9 * s_j,
                "{placement:?} {l}: {} vs {s_j}",
                e.norm
            );
            assert!(
                (emi.norm - s_jmi).abs() <= 1e-9 * s_jmi,
                "{placement:?} {l}: {} vs {s_jmi}",
                emi.norm
            );
            // The lower bound is one: the iterate never exceeds the true norm beyond rounding.
            assert!(e.norm <= s_j * (1.0 + 1e-12));
            let chain = dense(24, |v| {
                let mut t = v.to_vec();
                for k in l..=3 {
                    t = m.layer_jvp(k, &caches[k - 1], &t);
                }
                t
            });
            let s_e = chain.svd(false, false).singular_values.max();
            let ee = end_to_end_estimate(&m, l, &caches, opts);
            assert!(
                (ee.norm - s_e).abs() <= 1e-9 * s_e,
                "{placement:?} e2e {l}: {} vs {s_e}",
                ee.norm
            );
        }
        let _ = xs;
    }
}

/// The paper's direction, over seeds: at init (sigma = 0.02) the Pre-LN variance grows with depth,
/// and LNS (same weights and inputs) grows more slowly. Sign test: under the null hypothesis that
/// either outcome is a fair coin per seed, all 8 seeds agreeing has probability 2^-8 < 0.004.
#[test]
fn variance_grows_under_pre_ln_and_more_slowly_under_lns() {
    for seed in 0..8u64 {
        let growth = |placement: Placement| {
            let cfg = Config {
                d: 32,
                heads: 2,
                kv_heads: 2,
                d_ff: 64,
                tokens: 8,
                layers: 12,
                vocab: 64,
                placement,
                ..Config::default_case()
            };
            let spec = LabSpec {
                cfg,
                seed,
                weights: None,
                input: InputSpec::Tokens(None),
                lanczos: LanczosOptions::default(),
                select: Selection {
                    layer_norms: false,
                    end_to_end: false,
                    gradients: false,
                    angular: false,
                    ..Selection::default()
                },
                memory_budget: depthlab::DEFAULT_MEMORY_BUDGET,
            };
            let r = depthlab::run(&spec, &|_, _, _| {}).unwrap();
            r.final_variance / r.layers[0].variance
        };
        let pre = growth(Placement::Pre);
        let lns = growth(Placement::Lns);
        assert!(
            pre > 1.0,
            "seed {seed}: Pre-LN variance did not grow ({pre})"
        );
        assert!(lns < pre, "seed {seed}: LNS grew as fast ({lns} vs {pre})");
    }
}

#[test]
fn same_seed_same_weights_for_every_placement() {
    let a = Weights::seeded(&tiny(Placement::Pre), &mut Gaussian::new(9));
    for p in Placement::ALL {
        let b = Weights::seeded(&tiny(p), &mut Gaussian::new(9));
        assert_eq!(a.embed, b.embed);
        assert_eq!(a.layers[2].mlp.down, b.layers[2].mlp.down);
        assert_eq!(a.lm_head, b.lm_head);
        // placements with their own gains (Sandwich's output norms are ones) differ only there
        let mut c = b.clone();
        for l in &mut c.layers {
            l.attn_out_norm = a.layers[0].attn_out_norm.clone();
            l.mlp_out_norm = a.layers[0].mlp_out_norm.clone();
        }
        assert_eq!(a.digest(), c.digest(), "{p:?}");
    }
}

/// The digest the CLI and the page report (`Report::digest`) tells weights apart by their bits:
/// another seed, or one weight moved by one ulp, changes it; the same doubles keep it.
#[test]
fn the_weights_digest_sees_every_bit() {
    let a = Weights::seeded(&tiny(Placement::Pre), &mut Gaussian::new(9));
    assert_eq!(a.digest(), a.clone().digest());
    let other = Weights::seeded(&tiny(Placement::Pre), &mut Gaussian::new(10));
    assert_ne!(a.digest(), other.digest());
    let mut moved = a.clone();
    let w = &mut moved.layers[1].attn.v[3];
    *w = f64::from_bits(w.to_bits() + 1);
    assert_ne!(a.digest(), moved.digest());
    let mut last = a.clone();
    let n = last.final_norm.len();
    last.final_norm[n - 1] = -last.final_norm[n - 1];
    assert_ne!(a.digest(), last.digest());
}

#[test]
fn bad_dimensions_are_named() {
    let base = tiny(Placement::Pre);
    let cases: Vec<(Config, &str)> = vec![
        (
            Config {
                d: 0,
                ..base.clone()
            },
            "d = 0",
        ),
        (
            Config {
                d: 1 << 20,
                ..base.clone()
            },
            "d = 1048576",
        ),
        (
            Config {
                heads: 3,
                ..base.clone()
            },
            "heads = 3 must divide d = 8",
        ),
        (
            Config {
                layers: 0,
                ..base.clone()
            },
            "layers = 0",
        ),
        (
            Config {
                tokens: 1,
                ..base.clone()
            },
            "tokens = 1",
        ),
        (
            Config {
                d_ff: 0,
                ..base.clone()
            },
            "d_ff = 0",
        ),
        (
            Config {
                init_std: f64::NAN,
                ..base.clone()
            },
            "init_std = NaN",
        ),
        (
            Config {
                heads: 8,
                ..base.clone()
            },
            "must be even",
        ),
    ];
    for (cfg, want) in cases {
        let msg = cfg.validate().unwrap_err().to_string();
        assert!(msg.contains(want), "{msg:?} should contain {want:?}");
    }
}

/// Mix-LN's default k is max(1, floor(L/4)): the quarter of the layers, but at least one, so a
/// shallow "mix" is not Pre-LN under another name.
#[test]
fn mix_ln_defaults_to_at_least_one_post_ln_layer() {
    let ks = [1, 2, 3, 4, 7, 8, 32].map(Config::default_mix_post_layers);
    assert_eq!(ks, [1, 1, 1, 1, 1, 2, 8]);
    let pre = tiny(Placement::Pre);
    let mix = Config {
        placement: Placement::Mix,
        mix_post_layers: Config::default_mix_post_layers(pre.layers),
        ..pre.clone()
    };
    let w = Weights::seeded(&pre, &mut Gaussian::new(3));
    let x1 = Gaussian::new(4).normals(pre.tokens * pre.d, 1.0);
    let out = |cfg: &Config| {
        let m = Model::new(cfg.clone(), w.clone()).unwrap();
        m.forward(&x1).0
    };
    let (a, b) = (out(&pre), out(&mix));
    assert_ne!(a[1], b[1], "layer 1 of mix at L = 3 must be Post-LN");
    // Layer 1 is Post-LN: its output rows are RMS-normalised (unit gains).
    for row in b[1].chunks(pre.d) {
        let ms = row.iter().map(|v| v * v).sum::<f64>() / pre.d as f64;
        assert!((ms - 1.0).abs() < 1e-5, "mean square {ms}");
    }
}

/// A tied network skips the unembedding's draws without storing them: the same embedding and
/// layers as the untied network of the same seed, and the generator left in the same state.
#[test]
fn tied_seeded_weights_draw_the_same_stream() {
    let untied = tiny(Placement::Pre);
    let tied = Config {
        tie_embeddings: true,
        ..untied.clone()
    };
    let (mut ra, mut rb) = (Gaussian::new(8), Gaussian::new(8));
    let (a, b) = (
        Weights::seeded(&untied, &mut ra),
        Weights::seeded(&tied, &mut rb),
    );
    assert!(a.lm_head.is_some() && b.lm_head.is_none());
    assert_eq!(a.embed, b.embed);
    assert_eq!(a.layers[2].mlp.down, b.layers[2].mlp.down);
    assert_eq!(ra.normal(), rb.normal());
}

/// Every run's memory is estimated before anything is allocated: a spec over its budget is
/// refused by `validate` (so by `run`, before the weights are drawn) with the estimate in the
/// message. The audit's example: a 2^20 x 8192 embedding and unembedding.
#[test]
fn runs_over_the_memory_budget_are_refused_before_allocating() {
    let spec = LabSpec {
        cfg: Config {
            vocab: 1 << 20,
            d: 8192,
            heads: 64,
            kv_heads: 64,
            layers: 1,
            tokens: 2,
            mix_post_layers: 0,
            ..Config::default_case()
        },
        seed: 1,
        weights: None,
        input: InputSpec::Tokens(None),
        lanczos: LanczosOptions::default(),
        select: Selection::default(),
        memory_budget: depthlab::DEFAULT_MEMORY_BUDGET,
    };
    let msg = depthlab::run(&spec, &|_, _, _| {}).unwrap_err().to_string();
    // 2 x 2^20 x 8192 + one layer (4 d^2 + 3 d d_ff + 4 d, d_ff = 344) + the final gain.
    let params: u64 = 2 * (1 << 20) * 8192 + 4 * 8192 * 8192 + 3 * 344 * 8192 + 5 * 8192;
    // And the products' packed copies: two of each layer matrix (8192 and 344 are whole panels).
    let packed: u64 = 2 * 8 * (4 * 8192 * 8192 + 3 * 344 * 8192);
    assert_eq!(depthlab::memory::packed_bytes(&spec.cfg), packed);
    let e = depthlab::measure::validate(&LabSpec {
        memory_budget: u64::MAX,
        ..spec
    })
    .unwrap();
    assert_eq!(e.weights, 8 * params + packed);
    // The activations' largest stage is the gradient of the one layer (2.2 GB of 2.3).
    assert_eq!(e.total(), e.weights + e.activations);
    assert!(
        msg.starts_with("this network needs about 146.3 GB of memory (weights 144.1 GB as f64, activations 2.3 GB)")
            && msg.ends_with("the limit is 8 GB — use smaller d, d_ff, layers or vocab"),
        "{msg}"
    );
}
