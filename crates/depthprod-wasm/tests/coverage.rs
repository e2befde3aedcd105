//! The whole coverage grid of `cargo run --release -p depthprod --example coverage`, run in the wasm32
//! build (node): every enclosure must contain its independent reference, and the counts
//! (containing the reference / narrower than 1e-12 / wider / not resolvable) and the name of every
//! point outside a class must equal the native build's, `tests/reference/native_coverage.txt`. So
//! the coverage figures hold for the page's build, not only the native one.
//! `cargo test -p depthprod-wasm --target wasm32-unknown-unknown --test coverage`
#![cfg(target_arch = "wasm32")]

#[path = "../../depthprod/examples/shared/coverage_grid.rs"]
mod coverage_grid;

use wasm_bindgen_test::{console_log, wasm_bindgen_test};

#[wasm_bindgen_test]
fn coverage_counts_equal_the_native_ones() {
    let report = coverage_grid::run(&coverage_grid::FULL);
    console_log!(
        "wasm32 coverage ({} grid): {} points, {} contain the reference, {} narrower than 1e-12, {} not resolvable",
        coverage_grid::FULL.name,
        report.total,
        report.contain,
        report.narrow,
        report.not_resolvable.len()
    );
    assert!(report.missing.is_empty(), "{:?}", report.missing);
    let native = include_str!("../../../tests/reference/native_coverage.txt");
    assert_eq!(report.summary(), native);
}
