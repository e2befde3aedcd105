//! Accuracy coverage over the supported parameter range: the fraction of (family, A, B, c, q, N)
//! grid points whose enclosure meets the 1e-12 goal (relative; absolute below 1), and the worst.
//! Run: cargo run --release -p depthprod --example coverage

use depthprod::{Enclosure, Family, Limit, Params, Plan};

fn main() {
    let abs = [0.0, 0.01, 1.0, 10.0, 100.0];
    let cs = [1e-3, 1.0, 1e3];
    let qs = [0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 8.0];
    let ns: [Option<u64>; 7] = [
        Some(10),
        Some(1_000),
        Some(1_000_000),
        Some(1_000_000_000),
        Some(1_000_000_000_000),
        Some(1_000_000_000_000_000_000),
        None,
    ];
    let (mut total, mut good) = (0usize, 0usize);
    let mut worst: Vec<(f64, String)> = Vec::new();
    let mut by_q = std::collections::BTreeMap::<String, (usize, usize)>::new();
    let start = std::time::Instant::now();
    for family in Family::ALL {
        for &a in &abs {
            for &b in &abs {
                for &c in &cs {
                    for &q in &qs {
                        let plan = Plan::new(&Params::power(family, a, b, c, q)).unwrap();
                        for n in ns {
                            let e: Option<Enclosure> = match n {
                                Some(n) => Some(plan.log_product(n).unwrap()),
                                None => match plan.limit().unwrap() {
                                    Limit::Finite { log_limit } => Some(log_limit),
                                    Limit::Divergent { divergence } => divergence.constant,
                                },
                            };
                            let w = e.map_or(f64::INFINITY, |e| e.relative_width());
                            total += 1;
                            let entry = by_q.entry(format!("{family:?} q={q}")).or_default();
                            entry.0 += 1;
                            if w <= 1e-12 {
                                good += 1;
                                entry.1 += 1;
                            }
                            worst.push((
                                w,
                                format!(
                                    "{family:?} A={a} B={b} c={c} q={q} N={}",
                                    n.map_or("inf/C".into(), |n| format!("{n:e}"))
                                ),
                            ));
                        }
                    }
                }
            }
        }
    }
    worst.sort_by(|x, y| y.0.total_cmp(&x.0));
    println!(
        "grid points: {total}, meeting 1e-12: {good} ({:.1}%), time {:.2?}",
        100.0 * good as f64 / total as f64,
        start.elapsed()
    );
    for (k, (n, g)) in &by_q {
        if g < n {
            println!("  {k}: {g}/{n}");
        }
    }
    let finite_total = worst.iter().filter(|(_, s)| !s.ends_with("inf/C")).count();
    let finite_good = worst
        .iter()
        .filter(|(w, s)| !s.ends_with("inf/C") && *w <= 1e-12)
        .count();
    println!("finite N only: {finite_good}/{finite_total} meet 1e-12");
    let limits: Vec<_> = worst.iter().filter(|(_, s)| s.ends_with("inf/C")).collect();
    let unresolved = limits.iter().filter(|(w, _)| !w.is_finite()).count();
    println!(
        "limits and constants C: {}/{} meet 1e-12, {unresolved} C not resolvable in f64",
        limits.iter().filter(|(w, _)| *w <= 1e-12).count(),
        limits.len()
    );
    // the three figures the issue asks for, over the whole grid
    let certified = worst.iter().filter(|(w, _)| *w <= 1e-12).count();
    let wider: Vec<_> = worst
        .iter()
        .filter(|(w, _)| w.is_finite() && *w > 1e-12)
        .collect();
    let not_resolvable = worst.iter().filter(|(w, _)| !w.is_finite()).count();
    println!(
        "certified within 1e-12: {certified}; honestly wider: {}; not resolvable in double precision: {not_resolvable} (of {total})",
        wider.len()
    );
    if let Some((w, what)) = wider.first() {
        println!("widest certified value: {w:.2e} relative at {what}");
    }
    if let Some((_, what)) = worst.iter().find(|(w, _)| !w.is_finite()) {
        println!("e.g. not resolvable: {what}");
    }
    println!("widest at finite N:");
    for (w, what) in worst.iter().filter(|(_, s)| !s.ends_with("inf/C")).take(12) {
        println!("  {w:.2e}  {what}");
    }
}
