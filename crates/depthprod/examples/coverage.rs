//! Accuracy coverage over the supported parameter range: how many (family, A, B, c, q, N) grid
//! points have an enclosure within the 1e-12 goal (relative; absolute below 1), how many are
//! honestly wider, how many are not resolvable in double precision, and the worst.
//! Run: cargo run --release -p depthprod --example coverage
//! The same grid runs in the wasm32 build (`cargo test -p depthprod-wasm --target
//! wasm32-unknown-unknown --test coverage`), which must give the same counts and points;
//! `tests/reference/native_coverage.txt` holds them.

#[path = "shared/coverage_grid.rs"]
mod coverage_grid;

fn main() {
    let start = std::time::Instant::now();
    let report = coverage_grid::run(&coverage_grid::FULL);
    let elapsed = start.elapsed();
    let total = report.total;
    println!(
        "grid points: {total}, meeting 1e-12: {} ({:.1}%), time {elapsed:.2?}",
        report.certified,
        100.0 * report.certified as f64 / total as f64,
    );
    let finite: Vec<_> = report
        .points
        .iter()
        .filter(|p| !p.what.ends_with("inf/C"))
        .collect();
    println!(
        "finite N only: {}/{} meet 1e-12",
        finite.iter().filter(|p| p.width <= 1e-12).count(),
        finite.len()
    );
    let limits: Vec<_> = report
        .points
        .iter()
        .filter(|p| p.what.ends_with("inf/C"))
        .collect();
    println!(
        "limits and constants C: {}/{} meet 1e-12, {} C not resolvable in f64",
        limits.iter().filter(|p| p.width <= 1e-12).count(),
        limits.len(),
        report.not_resolvable.len()
    );
    println!(
        "certified within 1e-12: {}; honestly wider: {}; not resolvable in double precision: {} (of {total})",
        report.certified,
        report.wider.len(),
        report.not_resolvable.len()
    );
    if let Some(p) = report.wider.first() {
        println!(
            "widest certified value: {:.2e} relative at {}",
            p.width, p.what
        );
    }
    if let Some(p) = report.not_resolvable.first() {
        println!("e.g. not resolvable: {}", p.what);
    }
    let mut finite_sorted = finite.clone();
    finite_sorted.sort_by(|x, y| y.width.total_cmp(&x.width));
    println!("widest at finite N:");
    for p in finite_sorted.iter().take(12) {
        println!("  {:.2e}  {}", p.width, p.what);
    }
}
