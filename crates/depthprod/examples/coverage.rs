//! Accuracy coverage over the supported parameter range: at every (family, A, B, c, q, N) grid
//! point, whether the enclosure contains an independent reference (a direct double-double sum for
//! N <= 10^3, mpmath values made two ways beyond: see `shared/coverage_grid.rs`), and, separately,
//! whether it is narrower than 1e-12 (relative; absolute below 1); how many are not resolvable,
//! and the widest.
//! Run: cargo run --release -p depthprod --example coverage
//! The same grid runs in the wasm32 build (`cargo test -p depthprod-wasm --target
//! wasm32-unknown-unknown --test coverage`), which must give the same classes point by point;
//! `tests/reference/native_coverage.txt` holds them.

#[path = "shared/coverage_grid.rs"]
mod coverage_grid;

fn main() {
    let start = std::time::Instant::now();
    let report = coverage_grid::run(&coverage_grid::FULL);
    let elapsed = start.elapsed();
    let total = report.total;
    println!("grid points: {total}, time {elapsed:.2?}");
    println!(
        "{} of {total} contain the reference; {} of {total} narrower than 1e-12; {} not resolvable",
        report.contain,
        report.narrow,
        report.not_resolvable.len()
    );
    let split = |inf: bool| -> Vec<&coverage_grid::Point> {
        report
            .points
            .iter()
            .filter(|p| p.what.ends_with("inf/C") == inf)
            .collect()
    };
    for (name, points) in [
        ("finite N", split(false)),
        ("limits and constants C", split(true)),
    ] {
        println!(
            "{name}: {} of {} contain the reference; {} of {} narrower than 1e-12",
            points.iter().filter(|p| p.contains).count(),
            points.len(),
            points.iter().filter(|p| p.width <= 1e-12).count(),
            points.len()
        );
    }
    for p in &report.missing {
        println!("MISSES its reference: {} (width {:.2e})", p.what, p.width);
    }
    if let Some(p) = report.wider.first() {
        println!("widest: {:.2e} relative at {}", p.width, p.what);
    }
    let mut sorted: Vec<_> = report.points.iter().collect();
    sorted.sort_by(|x, y| y.width.total_cmp(&x.width));
    println!("widest points:");
    for p in sorted.iter().take(12) {
        println!("  {:.2e}  {}", p.width, p.what);
    }
}
