//! The whole coverage grid of `cargo run --release -p depthprod --example coverage`, run in the wasm32
//! build (node): the counts (certified within 1e-12 / honestly wider / not resolvable) and the
//! name of every point that is not certified must equal the native build's,
//! `tests/reference/native_coverage.txt`. So the coverage figures in the README hold for the
//! page's build, not only the native one.
//! `cargo test -p depthprod-wasm --target wasm32-unknown-unknown --test coverage`
#![cfg(target_arch = "wasm32")]

#[path = "../../depthprod/examples/shared/coverage_grid.rs"]
mod coverage_grid;

use wasm_bindgen_test::{console_log, wasm_bindgen_test};

#[wasm_bindgen_test]
fn coverage_counts_equal_the_native_ones() {
    let report = coverage_grid::run(&coverage_grid::FULL);
    console_log!(
        "wasm32 coverage ({} grid): {} points, {} certified within 1e-12, {} honestly wider, {} not resolvable",
        coverage_grid::FULL.name,
        report.total,
        report.certified,
        report.wider.len(),
        report.not_resolvable.len()
    );
    let native = include_str!("../../../tests/reference/native_coverage.txt");
    assert_eq!(report.summary(), native);
}
