use depthprod::{Family, Params, Plan};
use std::hint::black_box;
fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .map(|s| s.parse().unwrap())
        .unwrap_or(1_000_000_000_000_000_000);
    let fam = match std::env::args().nth(2).as_deref() {
        Some("scaled") => Family::Scaled,
        Some("harmonic") => Family::Harmonic,
        Some("sqrt") => Family::SqrtScaled,
        _ => Family::Unscaled,
    };
    let ev = |k: &str, d: f64| std::env::var(k).ok().and_then(|s| s.parse().ok()).unwrap_or(d);
    let params = Params::power(fam, ev("A", 100.0), ev("B", 100.0), ev("C", 1e-3), ev("Q", 0.05));
    if std::env::var("ROUTE").is_ok() {
        println!("{:?}", Plan::new(&params).unwrap().route_summary());
    }
    let t = std::time::Instant::now();
    let reps: usize = std::env::var("REPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    for i in 0..reps {
        let mut p = params.clone();
        p.a *= 1.0 - i as f64 * 1e-15;
        if n == 0 {
            black_box(Plan::new(black_box(&p)).unwrap().limit().unwrap());
        } else {
            black_box(Plan::new(black_box(&p)).unwrap().log_product(n).unwrap());
        }
    }
    println!("{:.2} us", t.elapsed().as_secs_f64() / reps as f64 * 1e6);
}
#[allow(dead_code)]
fn route() {}
