//! Reported, never a test: this machine's f64 GEMM rate (faer with FMA, the peak reference, and
//! the lab's own FMA-free product, which gives the same bits natively and in wasm32), and the lab's run times for
//! the default case and GPT-2-small-like dimensions (every measurement). Best of a few
//! runs (the machine is shared, timings are noisy).
//!
//!   cargo run --release -p depthlab --features parallel --example bench [-- --gpt2]
//!
//! `-- --end-to-end-once` (`-- --layer-norms-once`) times only the end-to-end (per-layer) norms of
//! the default case, once, with its layer passes (a quick check while tuning); `-- --passes` the
//! layer passes of every placement in the default case, by measurement; `-- --gemm` the lab's product with the
//! right operand as stored (packed on every call) against packed once (as the layers use it);
//! `-- --profile [--gpt2]` one run's time, layer passes and products by stage;
//! `-- --layer-ops` the GEMM rates by layout
//! and the per-tangent cost of one layer's batched JVP and VJP (`LAYER_OPS_K1=1`: single passes
//! only, for a profiler). The product rates and `--layer-ops` run on one thread; the runs use every
//! core (`RAYON_NUM_THREADS=1` gives their single-threaded figures).

use depthlab::{Config, InputSpec, LabSpec, LanczosOptions, Placement, Selection};
use std::time::Instant;

/// `f` on one thread: the lab splits its larger products over two threads when it has them, and
/// the rates here are per core.
fn one_thread<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("a one-thread pool")
        .install(f)
}

/// GFLOP/s of the lab's own product (`depthlab::bench::gemm_repeat`: c = x W^T, the layer
/// layout), one thread; best of 3 batches of about `budget` flops each.
fn lab_gemm_rate(m: usize, k: usize, n: usize, budget: f64) -> f64 {
    one_thread(|| lab_gemm_rate_here(m, k, n, budget))
}

fn lab_gemm_rate_here(m: usize, k: usize, n: usize, budget: f64) -> f64 {
    let flops = 2.0 * (m * k * n) as f64;
    let reps = (budget / flops).max(2.0) as usize;
    let mut best = f64::MAX;
    for _ in 0..3 {
        let t = Instant::now();
        std::hint::black_box(depthlab::bench::gemm_repeat(m, k, n, reps));
        best = best.min(t.elapsed().as_secs_f64() / reps as f64);
    }
    flops / best / 1e9
}

/// GFLOP/s of faer's product (FMA and AVX2 where the CPU has them: this machine's f64 peak, the
/// reference the lab's product is measured against) of c (m x n) = a (m x k) op(b), b stored
/// n x k (`tb`, the layer JVP's x W^T) or k x n (the VJP's g W), all row-major, one thread; best
/// of 3 batches of about `budget` flops each.
fn gemm_layout_rate(m: usize, k: usize, n: usize, tb: bool, budget: f64) -> f64 {
    let a: Vec<f64> = (0..m * k).map(|i| (i as f64 * 0.37).sin()).collect();
    let b: Vec<f64> = (0..k * n).map(|i| (i as f64 * 0.11).cos()).collect();
    let mut c = vec![0.0; m * n];
    let flops = 2.0 * (m * k * n) as f64;
    let reps = (budget / flops).max(2.0) as usize;
    let mut best = f64::MAX;
    for _ in 0..3 {
        let t = Instant::now();
        for _ in 0..reps {
            let am = faer::MatRef::from_row_major_slice(&a, m, k);
            let bm = if tb {
                faer::MatRef::from_row_major_slice(&b, n, k).transpose()
            } else {
                faer::MatRef::from_row_major_slice(&b, k, n)
            };
            let cm = faer::MatMut::from_row_major_slice_mut(&mut c, m, n);
            faer::linalg::matmul::matmul(cm, faer::Accum::Replace, am, bm, 1.0, faer::Par::Seq);
        }
        best = best.min(t.elapsed().as_secs_f64() / reps as f64);
    }
    flops / best / 1e9
}

/// The lab's spec for `cfg` with seed 1, token inputs and default options: what every timing runs.
fn default_spec(cfg: Config, select: Selection) -> LabSpec {
    LabSpec {
        cfg,
        seed: 1,
        weights: None,
        input: InputSpec::Tokens(None),
        lanczos: LanczosOptions::default(),
        select,
        memory_budget: depthlab::DEFAULT_MEMORY_BUDGET,
    }
}

fn time_run(cfg: Config, runs: usize) -> (f64, usize) {
    time_selected(cfg, runs, Selection::default())
}

fn time_selected(cfg: Config, runs: usize, select: Selection) -> (f64, usize) {
    let spec = default_spec(cfg, select);
    let mut best = f64::MAX;
    let mut iters = 0;
    for _ in 0..runs {
        let t = Instant::now();
        let r = depthlab::run(&spec, &|_, _, _| {}).expect("run");
        best = best.min(t.elapsed().as_secs_f64());
        iters = r
            .layers
            .iter()
            .map(|l| {
                l.jacobian.map_or(0, |e| e.iterations)
                    + l.jacobian_minus_identity.map_or(0, |e| e.iterations)
                    + l.end_to_end.map_or(0, |e| e.iterations)
            })
            .sum();
    }
    (best, iters)
}

/// Time per tangent of one layer's JVP and VJP of the default case, for k tangents at once.
fn layer_ops() {
    let spec = default_spec(Config::default_case(), Selection::default());
    let (model, x1, _) = depthlab::measure::build(&spec).expect("build");
    let (_, caches) = model.forward(&x1);
    let n = x1.len();
    let only_one = std::env::var("LAYER_OPS_K1").is_ok();
    for rows in [32usize, 128, 512].into_iter().filter(|_| !only_one) {
        for (k, out) in [(128usize, 344usize), (344, 128), (128, 128)] {
            println!(
                "GEMM {rows}x{k}x{out}: x W^T {:.1} GFLOP/s, g W {:.1} GFLOP/s",
                gemm_layout_rate(rows, k, out, true, 3e8),
                gemm_layout_rate(rows, k, out, false, 3e8)
            );
        }
    }
    let ks: &[usize] = if only_one {
        &[1]
    } else {
        &[1, 2, 4, 8, 16, 32]
    };
    for &k in ks {
        let v: Vec<f64> = (0..k * n).map(|i| (i as f64 * 0.37).sin()).collect();
        let reps = if only_one { 3000 } else { (200 / k).max(4) };
        let (mut bj, mut bv) = (f64::MAX, f64::MAX);
        for _ in 0..3 {
            let t = Instant::now();
            for _ in 0..reps {
                std::hint::black_box(model.layer_jvp_batch(5, &caches[4], &v));
            }
            bj = bj.min(t.elapsed().as_secs_f64() / (reps * k) as f64);
            let t = Instant::now();
            for _ in 0..reps {
                std::hint::black_box(model.layer_vjp_batch(5, &caches[4], &v));
            }
            bv = bv.min(t.elapsed().as_secs_f64() / (reps * k) as f64);
        }
        println!(
            "k = {k:2}: layer JVP {:.3} ms, VJP {:.3} ms per tangent",
            bj * 1e3,
            bv * 1e3
        );
    }
}

/// Layer passes (one layer JVP or VJP of one vector) per placement in the default case, split by
/// measurement: the machine-independent measure of a run's work.
fn passes() {
    for placement in Placement::ALL {
        let mut row = Vec::new();
        for (name, select) in [
            ("end-to-end", only(false, true)),
            ("layer norms", only(true, false)),
            ("every measurement", Selection::default()),
        ] {
            let before = depthlab::bench::layer_passes();
            let t = Instant::now();
            let spec = default_spec(
                Config {
                    placement,
                    ..Config::default_case()
                },
                select,
            );
            depthlab::run(&spec, &|_, _, _| {}).expect("run");
            let secs = t.elapsed().as_secs_f64();
            let n = depthlab::bench::layer_passes() - before;
            row.push(format!("{name} {n} ({secs:.2} s)"));
        }
        println!("{}: layer passes {}", placement.name(), row.join(", "));
    }
}

/// The GPT-2-small-like dimensions: d = 768, 12 heads, d_ff = 3072, T = 64, L = 12.
fn gpt2_case() -> Config {
    Config {
        d: 768,
        heads: 12,
        kv_heads: 12,
        d_ff: 3072,
        tokens: 64,
        layers: 12,
        ..Config::default_case()
    }
}

/// Where one run's time goes: each stage's span (its first progress event to its last), the
/// layer passes and the products' floating-point operations the run did in that span, and the
/// time per layer pass. With threads the end-to-end and the per-layer norms run side by side, so
/// their spans overlap and share the counts; `RAYON_NUM_THREADS=1` runs them one after the other.
fn profile(cfg: Config) {
    use std::cell::RefCell;
    let spec = default_spec(cfg, Selection::default());
    let start = Instant::now();
    let counters = || {
        (
            start.elapsed().as_secs_f64(),
            depthlab::bench::layer_passes(),
            depthlab::bench::gemm_flops(),
        )
    };
    // stage -> (first event, last event), each (seconds, passes, flops).
    type Mark = (f64, u64, u64);
    let spans: RefCell<Vec<(String, Mark, Mark)>> = RefCell::new(Vec::new());
    let progress = |stage: &str, _: usize, _: usize| {
        let now = counters();
        let mut spans = spans.borrow_mut();
        match spans.iter_mut().find(|s| s.0 == stage) {
            Some(s) => s.2 = now,
            None => spans.push((stage.to_string(), now, now)),
        }
    };
    let hooks = depthlab::measure::Hooks {
        progress: &progress,
        on_layer: &|_| {},
        should_stop: &|| false,
    };
    let (_, passes0, flops0) = counters();
    depthlab::measure::run_streaming(&spec, &hooks).expect("run");
    let (total, passes1, flops1) = counters();
    println!(
        "d={} T={} L={}, every measurement, {} thread(s): {total:.2} s, {} layer passes, {:.1} GFLOP of products",
        spec.cfg.d,
        spec.cfg.tokens,
        spec.cfg.layers,
        depthlab::measure::worker_threads(),
        passes1 - passes0,
        (flops1 - flops0) as f64 / 1e9
    );
    for (stage, first, last) in spans.borrow().iter() {
        let (secs, passes) = (last.0 - first.0, last.1 - first.1);
        let per = if passes > 0 {
            format!(", {:.2} ms per pass", 1e3 * secs / passes as f64)
        } else {
            String::new()
        };
        println!(
            "  {stage}: {:.2} s to {:.2} s ({:.0} %), {passes} layer passes, {:.1} GFLOP{per}",
            first.0,
            last.0,
            100.0 * secs / total,
            (last.2 - first.2) as f64 / 1e9
        );
    }
}

fn only(layer_norms: bool, end_to_end: bool) -> Selection {
    Selection {
        layer_norms,
        end_to_end,
        gradients: false,
        angular: false,
        ..Selection::default()
    }
}

fn main() {
    let gpt2 = std::env::args().any(|a| a == "--gpt2");
    if std::env::args().any(|a| a == "--profile") {
        profile(if std::env::args().any(|a| a == "--gpt2") {
            gpt2_case()
        } else {
            Config::default_case()
        });
        return;
    }
    if std::env::args().any(|a| a == "--passes") {
        passes();
        return;
    }
    if std::env::args().any(|a| a == "--gemm") {
        one_thread(|| {
            for (m, k, n) in [(32, 128, 344), (128, 128, 344), (32, 344, 128)] {
                let flops = 2.0 * (m * k * n) as f64;
                let reps = (3e8 / flops) as usize;
                for packed in [false, true] {
                    let t = Instant::now();
                    std::hint::black_box(if packed {
                        depthlab::bench::gemm_repeat_packed(m, k, n, reps)
                    } else {
                        depthlab::bench::gemm_repeat(m, k, n, reps)
                    });
                    let rate = flops * reps as f64 / t.elapsed().as_secs_f64() / 1e9;
                    println!("{m}x{k}x{n} packed={packed}: {rate:.2} GFLOP/s");
                }
            }
        });
        return;
    }
    if std::env::args().any(|a| a == "--layer-ops") {
        one_thread(layer_ops);
        return;
    }
    if std::env::args().any(|a| a == "--layer-norms-once") {
        let before = depthlab::bench::layer_passes();
        let (t, it) = time_selected(Config::default_case(), 1, only(true, false));
        let passes = depthlab::bench::layer_passes() - before;
        println!(
            "default case, layer norms only: {t:.3} s, one run ({it} steps, {passes} layer passes)"
        );
        return;
    }
    if std::env::args().any(|a| a == "--end-to-end-once") {
        let before = depthlab::bench::layer_passes();
        let (t, it) = time_selected(Config::default_case(), 1, only(false, true));
        let passes = depthlab::bench::layer_passes() - before;
        println!("default case, end-to-end norms only: {t:.3} s, one run ({it} steps, {passes} layer passes)");
        return;
    }
    let (mut layer_rate, mut layer_peak) = (0.0, 0.0);
    for (m, k, n) in [(32, 128, 344), (64, 768, 3072), (512, 512, 512)] {
        let peak = gemm_layout_rate(m, k, n, true, 1e9);
        let rate = lab_gemm_rate(m, k, n, 1e9);
        if m == 32 {
            (layer_rate, layer_peak) = (rate, peak);
        }
        println!(
            "f64 GEMM {m}x{k}x{n} (x W^T), one thread: the lab's product {rate:.2} GFLOP/s, faer (FMA, the peak) {peak:.2} GFLOP/s ({:.0} %)",
            100.0 * rate / peak
        );
    }
    // The fraction of the GEMM peak one default run achieves: its products (counted by the lab's
    // gemm) at the layer shape's one-thread rate times the threads the run may use, against its
    // time (`RAYON_NUM_THREADS=1` for the one-thread figure).
    let threads = depthlab::measure::worker_threads() as f64;
    let flops = depthlab::bench::gemm_flops();
    let (t1, _) = time_run(Config::default_case(), 1);
    let gflop = (depthlab::bench::gemm_flops() - flops) as f64 / 1e9;
    println!(
        "default case, one run on {threads} thread(s): {t1:.3} s; its products {gflop:.1} GFLOP: {:.0} % of the run at the lab product's 32x128x344 rate, {:.0} % at faer's",
        100.0 * gflop / (threads * layer_rate) / t1,
        100.0 * gflop / (threads * layer_peak) / t1
    );
    let (t, it) = time_selected(Config::default_case(), 3, only(false, true));
    println!("default case, end-to-end norms only: {t:.3} s best of 3 ({it} steps)");
    let (t, it) = time_selected(Config::default_case(), 3, only(true, false));
    println!("default case, layer norms only: {t:.3} s best of 3 ({it} Lanczos steps)");
    let (t, it) = time_run(Config::default_case(), 3);
    println!("default case d=128 h=4 d_ff=344 T=32 L=32, every measurement: {t:.3} s best of 3 ({it} Lanczos steps)");
    if gpt2 {
        let (t, it) = time_run(gpt2_case(), 1);
        println!("GPT-2-small-like d=768 h=12 d_ff=3072 T=64 L=12, every measurement: {t:.1} s ({it} Lanczos steps)");
    }
}
