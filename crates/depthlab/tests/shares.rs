//! A run split into shares (`Selection::share`, what the lab page's workers run side by side) and
//! joined by `merge_shares` gives the whole run's report bit for bit; each share measures only
//! its part (share 0 the end-to-end norms, the others the per-layer norms in turn, the last the
//! gradients) and announces its own step counts; reports that do not make one run are refused.

mod common;

use common::*;
use depthlab::measure::{run_streaming, stages, Hooks, STAGE_END_TO_END, STAGE_LAYER_JACOBIANS};
use depthlab::{
    merge_shares, Config, InputSpec, LabError, LabSpec, LanczosOptions, Placement, Report,
    Selection, Share,
};
use std::cell::RefCell;

fn spec(placement: Placement, layers: usize, share: Share) -> LabSpec {
    LabSpec {
        cfg: Config {
            d: 16,
            heads: 2,
            kv_heads: 2,
            d_ff: 24,
            tokens: 6,
            layers,
            vocab: 32,
            init_std: 0.2,
            ..tiny(placement)
        },
        seed: 4,
        weights: None,
        input: InputSpec::Tokens(None),
        lanczos: LanczosOptions::default(),
        select: Selection {
            share,
            ..Selection::default()
        },
        memory_budget: depthlab::DEFAULT_MEMORY_BUDGET,
    }
}

fn run(spec: &LabSpec) -> Report {
    depthlab::run(spec, &|_, _, _| {}).unwrap()
}

/// The report as the CLI prints its numbers: every double by its bits (serde_json's shortest
/// round trip), so equal strings mean equal bits.
fn bits(r: &Report) -> String {
    serde_json::to_string(r).unwrap()
}

fn shares(count: usize) -> Vec<Share> {
    (0..count).map(|index| Share { index, count }).collect()
}

#[test]
fn merged_shares_equal_the_whole_run_bit_for_bit() {
    for placement in [Placement::Pre, Placement::Lns, Placement::Mix] {
        for layers in [1, 2, 5, 7] {
            let whole = run(&spec(placement, layers, Share::WHOLE));
            assert!(whole.loss.is_some() && whole.angular_distance.is_some());
            for count in [2, 3] {
                let mut parts: Vec<Report> = shares(count)
                    .into_iter()
                    .map(|s| run(&spec(placement, layers, s)))
                    .collect();
                // Share 0 measured the end-to-end norms, the others the layers' norms in turn.
                for (i, part) in parts.iter().enumerate() {
                    assert_eq!(part.upper_bound.is_some(), i == 0);
                    for row in &part.layers {
                        let mine = i >= 1 && 1 + (row.layer - 1) % (count - 1) == i;
                        assert_eq!(row.jacobian.is_some(), mine, "{placement:?} L {layers}");
                        assert_eq!(row.jacobian_norm.is_some(), mine);
                        assert_eq!(row.end_to_end.is_some(), i == 0);
                        assert_eq!(row.end_to_end_upper.is_some(), i == 0);
                        // The suffix sums need every layer's norm: only a share holding them all
                        // (L = 1) has them.
                        let all = part.layers.iter().all(|r| r.jacobian.is_some());
                        assert_eq!(row.log_product_of_norms.is_some(), all);
                        assert_eq!(row.grad_norms.is_some(), i + 1 == count);
                    }
                    assert_eq!(part.loss.is_some(), i + 1 == count);
                }
                // Any order of the reports.
                parts.reverse();
                let merged = merge_shares(parts).unwrap();
                assert_eq!(
                    bits(&merged),
                    bits(&whole),
                    "{placement:?}, L = {layers}, {count} shares"
                );
            }
        }
    }
}

#[test]
fn each_share_announces_and_reports_its_own_steps() {
    let layers = 7;
    for count in [1, 2, 3] {
        let (mut jac, mut e2e) = (0, 0);
        for share in shares(count) {
            let s = spec(Placement::Pre, layers, share);
            let announced = stages(&s);
            let ticks = RefCell::new(Vec::new());
            let progress = |phase: &str, done: usize, total: usize| {
                ticks.borrow_mut().push((phase.to_string(), done, total))
            };
            let hooks = Hooks {
                progress: &progress,
                on_layer: &|_| {},
                should_stop: &|| false,
            };
            run_streaming(&s, &hooks).unwrap();
            for stage in &announced {
                let seen: Vec<(usize, usize)> = ticks
                    .borrow()
                    .iter()
                    .filter(|(p, _, _)| p == stage.name)
                    .map(|&(_, d, t)| (d, t))
                    .collect();
                let last = seen.last().copied();
                assert!(
                    seen.iter().all(|&(_, t)| t == stage.total),
                    "{count} shares, {}: {seen:?}",
                    stage.name
                );
                if stage.name == STAGE_LAYER_JACOBIANS || stage.name == STAGE_END_TO_END {
                    assert_eq!(last, Some((stage.total, stage.total)), "{}", stage.name);
                }
            }
            let total = |name| announced.iter().find(|s| s.name == name).map(|s| s.total);
            jac += total(STAGE_LAYER_JACOBIANS).unwrap_or(0);
            e2e += total(STAGE_END_TO_END).unwrap_or(0);
            // A stage with no step of this share's is not announced, and sends nothing.
            for name in [STAGE_LAYER_JACOBIANS, STAGE_END_TO_END] {
                if total(name).is_none() {
                    assert!(ticks.borrow().iter().all(|(p, _, _)| p != name), "{name}");
                }
            }
        }
        // Between them the shares measure every layer and every suffix once.
        assert_eq!((jac, e2e), (layers, layers), "{count} shares");
    }
}

#[test]
fn reports_that_are_not_one_run_are_refused() {
    let two = |seed: u64| -> Vec<Report> {
        shares(2)
            .into_iter()
            .map(|s| {
                run(&LabSpec {
                    seed,
                    ..spec(Placement::Pre, 3, s)
                })
            })
            .collect()
    };
    let a = two(4);
    let b = two(5);
    let message = |parts: Vec<Report>| match merge_shares(parts) {
        Err(e @ LabError::OutOfRange { .. }) => e.to_string(),
        other => panic!("expected a refusal, got {other:?}"),
    };
    assert!(message(vec![]).contains("none given"));
    assert!(message(vec![a[0].clone()]).contains("one report for each share"));
    assert!(message(vec![a[0].clone(), a[0].clone()]).contains("one report for each share"));
    assert!(message(vec![a[0].clone(), b[1].clone()]).contains("different runs"));
    assert!(merge_shares(a).is_ok());
    // A share outside its count is refused before anything runs.
    let bad = spec(Placement::Pre, 3, Share { index: 2, count: 2 });
    let err = depthlab::run(&bad, &|_, _, _| {}).unwrap_err().to_string();
    assert!(err.contains("share") && err.contains("2 of 2"), "{err}");
}
