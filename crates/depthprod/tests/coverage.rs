//! The coverage grid (`coverage_grid::FULL`, the example's) natively: the counts (certified
//! within 1e-12 / honestly wider / not resolvable) and the names of every point not certified must equal
//! `tests/reference/native_coverage.txt`, which the wasm build is held to as well
//! (`crates/depthprod-wasm/tests/coverage.rs`). A change that moves a point between classes shows
//! here; rewrite the file with `DEPTHPROD_WRITE_FIXTURE=1 cargo test -p depthprod --test coverage`
//! and say why in the commit.

#[path = "../examples/shared/coverage_grid.rs"]
mod coverage_grid;

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../tests/reference/native_coverage.txt"
);

#[test]
fn coverage_counts_are_the_recorded_ones() {
    let report = coverage_grid::run(&coverage_grid::FULL);
    let summary = report.summary();
    eprintln!(
        "native coverage: {} points, {} certified within 1e-12, {} honestly wider (widest {:?}), {} not resolvable",
        report.total,
        report.certified,
        report.wider.len(),
        report.wider.first(),
        report.not_resolvable.len()
    );
    if std::env::var_os("DEPTHPROD_WRITE_FIXTURE").is_some() {
        std::fs::write(FIXTURE, &summary).unwrap();
    }
    let recorded = std::fs::read_to_string(FIXTURE).expect("native_coverage.txt");
    assert_eq!(summary, recorded);
    // and the whole grid is there
    assert_eq!(report.total, 4 * 5 * 5 * 3 * 7 * 7);
}
