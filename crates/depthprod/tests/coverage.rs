//! The coverage grid (`coverage_grid::FULL`, the example's) natively: every point's enclosure
//! must contain its independent reference (a direct double-double sum, or mpmath values made two
//! ways), and the counts (containing the reference / narrower than 1e-12 / wider / not resolvable)
//! and the names of every point outside a class must equal
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
        "native coverage: {} points, {} contain the reference, {} narrower than 1e-12 (widest {:?}), {} not resolvable",
        report.total,
        report.contain,
        report.narrow,
        report.wider.first(),
        report.not_resolvable.len()
    );
    if std::env::var_os("DEPTHPROD_WRITE_FIXTURE").is_some() {
        std::fs::write(FIXTURE, &summary).unwrap();
    }
    // containment is a hard assertion, whatever the fixture says
    assert!(
        report.missing.is_empty(),
        "enclosures missing their references: {:#?}",
        report.missing
    );
    let recorded = std::fs::read_to_string(FIXTURE).expect("native_coverage.txt");
    assert_eq!(summary, recorded);
    // and the whole grid is there
    assert_eq!(report.total, 4 * 5 * 5 * 3 * 7 * 7);
}
