//! The end-to-end norms of `run` (Rayleigh-Ritz on one output-space subspace shared by every
//! suffix, longest first, `end_to_end.rs`) against the independent cold start of
//! `end_to_end_estimate` (input-space Lanczos from a random vector) for every suffix.

mod common;

use common::*;
use depthlab::measure::{build, end_to_end_estimate};
use depthlab::{Config, InputSpec, LabSpec, LanczosOptions, Placement, Selection};

#[test]
fn shared_subspace_norms_match_cold_starts() {
    for placement in [Placement::Pre, Placement::Post, Placement::Sandwich] {
        let cfg = Config {
            d: 16,
            heads: 2,
            kv_heads: 2,
            d_ff: 24,
            tokens: 6,
            layers: 7,
            vocab: 32,
            init_std: 0.2,
            ..tiny(placement)
        };
        let spec = LabSpec {
            cfg,
            seed: 3,
            weights: None,
            input: InputSpec::Tokens(None),
            lanczos: LanczosOptions::default(),
            select: Selection {
                layer_norms: false,
                end_to_end: true,
                gradients: false,
                angular: false,
                ..Selection::default()
            },
            memory_budget: depthlab::DEFAULT_MEMORY_BUDGET,
        };
        let report = depthlab::run(&spec, &|_, _, _| {}).unwrap();
        let (model, x1, _) = build(&spec).unwrap();
        let (_, caches) = model.forward(&x1);
        for row in &report.layers {
            let warm = row.end_to_end.unwrap();
            let cold = end_to_end_estimate(
                &model,
                row.layer,
                &caches,
                LanczosOptions {
                    seed: 77 + row.layer as u64,
                    ..LanczosOptions::default()
                },
            );
            assert!(warm.converged && cold.converged);
            // Both squares are Rayleigh quotients of the same Gram spectrum (A A^T and A^T A share
            // their nonzero eigenvalues), each within its explicit residual of an eigenvalue
            // (Bauer-Fike). If both found the top one, the squares differ by at most the sum of
            // the residuals, plus the rounding of the products (1e-12 relative is generous for
            // these sizes).
            let (a2, b2) = (warm.norm * warm.norm, cold.norm * cold.norm);
            let allowed = warm.residual + cold.residual + 1e-12 * a2.max(b2);
            // And the cold start's lower bound is within the shared run's interval (the interval's
            // upper end is at least every lower bound).
            let [_, hi] = warm.interval.unwrap();
            assert!(
                cold.norm <= hi * (1.0 + 1e-12),
                "{placement:?} l = {}",
                row.layer
            );
            assert!(
                (a2 - b2).abs() <= allowed,
                "{placement:?} l = {}: warm {} vs cold {} (allowed {allowed:e} on the squares)",
                row.layer,
                warm.norm,
                cold.norm
            );
        }
    }
}
