//! The coverage grid's width question at random points instead of grid points: is every value, limit
//! and constant narrower than 1e-12 (relative, absolute below 1)? A width measure only: whether the
//! enclosures contain the exact values is checked where independent references exist (the coverage
//! grid, `tests/`). Reported, never a test.
//!
//!   cargo run --release -p depthprod --example random_coverage [-- SEED [PLANS]]
//!
//! Each plan draws a family, A and B (log-uniform on [1e-3, 100], with 0 and 100 often), c
//! (log-uniform on [1e-3, 1e3]) and q (log-uniform on [0.05, 8], or near 0.05, 0.5, 1, 2, 8), then
//! asks for four values at log-uniform depths in [1, 1e18] and its limit or constant C. Prints
//! each point wider than 1e-12 and the counts.

use depthprod::{Enclosure, Family, Limit, Params, Plan};

fn main() {
    let mut args = std::env::args().skip(1);
    let mut y: u64 = args
        .next()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x1234_5678_9abc_def1);
    let plans: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(40_000);
    let mut r = move || {
        y ^= y << 13;
        y ^= y >> 7;
        y ^= y << 17;
        (y >> 11) as f64 / (1u64 << 53) as f64
    };
    let log_uniform = |u: f64, lo: f64, hi: f64| (u * (hi.ln() - lo.ln()) + lo.ln()).exp();
    let (
        mut values,
        mut wide_values,
        mut limits,
        mut wide_limits,
        mut constants,
        mut wide_constants,
    ) = (0, 0, 0, 0, 0, 0);
    let mut worst = (0.0f64, String::new());
    let report = |what: String, e: Option<Enclosure>, worst: &mut (f64, String)| -> bool {
        let w = e.map_or(f64::INFINITY, |e| e.relative_width());
        if w > worst.0 {
            *worst = (w, what.clone());
        }
        let ok = w <= 1e-12;
        if !ok {
            println!("{what}: relative width {w:.2e}");
        }
        ok
    };
    for _ in 0..plans {
        let family = Family::ALL[(r() * 4.0) as usize % 4];
        let ab = |u: f64, v: f64| {
            if u < 0.08 {
                0.0
            } else if u < 0.12 {
                100.0
            } else {
                log_uniform(v, 1e-3, 100.0)
            }
        };
        let (a, b) = (ab(r(), r()), ab(r(), r()));
        let c = log_uniform(r(), 1e-3, 1e3);
        let q = if r() < 0.3 {
            [0.05, 0.5, 1.0, 2.0, 8.0][(r() * 5.0) as usize % 5] * (1.0 + (r() - 0.5) * 0.02)
        } else {
            log_uniform(r(), 0.05, 8.0)
        }
        .clamp(0.05, 8.0);
        let plan = Plan::new(&Params::power(family, a, b, c, q)).expect("in range");
        let name = format!("{family:?} A={a} B={b} c={c} q={q}");
        for _ in 0..4 {
            let n = 10f64.powf(r() * 18.0).round().clamp(1.0, 1e18) as u64;
            values += 1;
            let e = plan.log_product(n).ok();
            wide_values += usize::from(!report(format!("{name} N={n}"), e, &mut worst));
        }
        match plan.limit().expect("a limit or a divergence") {
            Limit::Finite { log_limit } => {
                limits += 1;
                wide_limits += usize::from(!report(
                    format!("{name} limit"),
                    Some(log_limit),
                    &mut worst,
                ));
            }
            Limit::Divergent { divergence } => {
                constants += 1;
                wide_constants += usize::from(!report(
                    format!("{name} C"),
                    divergence.constant,
                    &mut worst,
                ));
            }
        }
    }
    println!(
        "values: {} of {values} within 1e-12; limits: {} of {limits}; constants C: {} of {constants}",
        values - wide_values,
        limits - wide_limits,
        constants - wide_constants
    );
    println!("widest: {:.2e} at {}", worst.0, worst.1);
}
