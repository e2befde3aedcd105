//! Timing report (not a test): `cargo bench -p depthprod --bench speed`.
//! Prints time per value at several N and for the limit (plan creation included, as a caller
//! with one question pays it), a 1000-point curve, and direct summation for comparison; then a
//! measured list of 10^6 layers (plan preparation, one value, a 1000-point curve).

use depthprod::{depth_grid, CurveKind, Family, Params, Plan, RouteOptions, Variance};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Median over repeated batches of the time per call.
fn time_per_call(mut f: impl FnMut()) -> Duration {
    let mut reps = 1u32;
    loop {
        let t = Instant::now();
        for _ in 0..reps {
            f();
        }
        if t.elapsed() > Duration::from_millis(20) || reps > 1 << 24 {
            break;
        }
        reps *= 2;
    }
    let mut samples: Vec<Duration> = (0..11)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..reps {
                f();
            }
            t.elapsed() / reps
        })
        .collect();
    samples.sort();
    samples[samples.len() / 2]
}

fn direct(a: f64, b: f64, kappa: f64, p: f64, n: u64) -> f64 {
    let (mut s, mut c) = (0.0f64, 0.0f64);
    for l in 1..=n {
        let x = kappa * (l as f64).powf(-p);
        let g = (x * (a + b * x)).ln_1p();
        let t = s + g;
        c += if s.abs() >= g.abs() {
            (s - t) + g
        } else {
            (g - t) + s
        };
        s = t;
    }
    s + c
}

fn main() {
    let cases = [
        (
            "seed unscaled (A=B=1, c=1, q=1)",
            Params::power(Family::Unscaled, 1.0, 1.0, 1.0, 1.0),
            0.5,
        ),
        (
            "seed scaled   (A=B=1, c=1, q=1)",
            Params::power(Family::Scaled, 1.0, 1.0, 1.0, 1.0),
            1.5,
        ),
        (
            "hard corner   (unscaled A=B=100, c=1e-3, q=0.05)",
            Params::power(Family::Unscaled, 100.0, 100.0, 1e-3, 0.05),
            0.025,
        ),
    ];
    println!("depthprod speed report (median of 11 batches; plan creation included per value)\n");
    for (name, params, p) in &cases {
        println!("{name}");
        let plan = Plan::new(params).unwrap();
        println!(
            "  route (L0, M, K, Euler-Maclaurin middle): {:?}",
            plan.route_summary().unwrap()
        );
        let t = time_per_call(|| {
            black_box(Plan::new(black_box(params)).unwrap());
        });
        println!("  plan creation            {:>10.2?}", t);
        for (label, n) in [
            ("N = 1e3", 1_000u64),
            ("N = 1e6", 1_000_000),
            ("N = 1e9", 1_000_000_000),
            ("N = 1e18", 1_000_000_000_000_000_000),
        ] {
            let t = time_per_call(|| {
                black_box(
                    Plan::new(black_box(params))
                        .unwrap()
                        .log_product(n)
                        .unwrap(),
                );
            });
            let t_prepared = time_per_call(|| {
                black_box(plan.log_product(black_box(n)).unwrap());
            });
            println!(
                "  value {label:<10}        {:>10.2?}   (with a prepared plan {:>9.2?})",
                t, t_prepared
            );
        }
        let t = time_per_call(|| {
            black_box(Plan::new(black_box(params)).unwrap().limit().unwrap());
        });
        println!("  limit / constant C       {:>10.2?}", t);
        if let Ok(depthprod::Limit::Divergent { divergence }) = plan.limit() {
            // beyond every double depth this is the finite-part route (docs/MATH.md §4.8)
            if let Some(c) = divergence.constant {
                println!(
                    "  the constant shown: {:.15e} (relative width {:.1e})",
                    c.value,
                    c.relative_width()
                );
            }
        }
        let ns = depth_grid(1_000_000_000_000_000_000, 1000).unwrap();
        let mut out = vec![0.0; ns.len()];
        let t = time_per_call(|| {
            Plan::new(black_box(params))
                .unwrap()
                .curve(CurveKind::LogProduct, &ns, &mut out)
                .unwrap();
            black_box(&out);
        });
        println!("  1000-point curve to 1e18 {:>10.2?}", t);
        let kappa = 1.0;
        let (a, b) = (params.a, params.b);
        let kappa = if *p == 0.025 {
            1.0 / 1e-3f64.sqrt()
        } else {
            kappa
        };
        for n in [1_000_000u64, 10_000_000] {
            let t0 = Instant::now();
            let d = black_box(direct(a, b, kappa, *p, n));
            let td = t0.elapsed();
            let t = time_per_call(|| {
                black_box(
                    Plan::new(black_box(params))
                        .unwrap()
                        .log_product(n)
                        .unwrap(),
                );
            });
            let e = plan.log_product(n).unwrap();
            println!(
                "  direct sum N = {n:<9}   {:>10.2?}   ratio {:>8.0}x   |direct - certified| = {:.1e}, certified width {:.1e}",
                td,
                td.as_secs_f64() / t.as_secs_f64(),
                (d - e.value).abs(),
                e.width()
            );
        }
        println!();
    }
    measured_list_rows();
    exponential_variance();
    every_family();
}

/// The per-value goal (< 20 us native, preparation included) over every family and
/// variance model: one value at N = 10^6 and the view at infinity's ingredient (`limit`), each
/// with a fresh plan.
fn every_family() {
    use depthprod::Variance;
    println!("\nevery family and variance model: one value at N = 1e6 / the limit, each with its preparation");
    let models: [(&str, f64, f64, Variance); 6] = [
        (
            "power c=1 q=1",
            1.0,
            1.0,
            Variance::Power { c: 1.0, q: 1.0 },
        ),
        (
            "power corner A=B=100 c=1e-3 q=0.05",
            100.0,
            100.0,
            Variance::Power { c: 1e-3, q: 0.05 },
        ),
        (
            "exponential lambda=1e-3",
            1.0,
            1.0,
            Variance::Exponential {
                c: 1.0,
                lambda: 1e-3,
            },
        ),
        (
            "exponential lambda=1e-2",
            1.0,
            1.0,
            Variance::Exponential {
                c: 1.0,
                lambda: 1e-2,
            },
        ),
        (
            "exponential lambda=1",
            1.0,
            1.0,
            Variance::Exponential {
                c: 1.0,
                lambda: 1.0,
            },
        ),
        (
            "exponential lambda=10",
            1.0,
            1.0,
            Variance::Exponential {
                c: 1.0,
                lambda: 10.0,
            },
        ),
    ];
    for family in Family::ALL {
        for (name, a, b, variance) in &models {
            let params = Params {
                family,
                a: *a,
                b: *b,
                variance: variance.clone(),
            };
            let value = time_per_call(|| {
                black_box(
                    Plan::new(black_box(&params))
                        .unwrap()
                        .log_product(1_000_000)
                        .unwrap(),
                );
            });
            let limit = time_per_call(|| {
                black_box(Plan::new(black_box(&params)).unwrap().limit().unwrap());
            });
            println!(
                "  {:<12} {name:<36} {:>10.2?} / {:>10.2?}",
                family.name(),
                value,
                limit
            );
        }
    }
    finite_part_rows();
}

/// The constant C of the finite-part route (docs/MATH.md §4.8, Lemma F4: the roots' terms from the
/// inputs in double-double) where it is hardest: near a sign change of C (complex roots, C 10^4
/// times smaller than its parts), at a double root, and typed as decimals (residuals included).
fn finite_part_rows() {
    use depthprod::{Limit, Number, ParamsInput, VarianceInput};
    println!("\nthe finite part's constant C in double-double: the limit with its preparation");
    let rows: [(&str, [&str; 4]); 4] = [
        (
            "near a sign change, complex roots",
            [
                "2.07943300129112",
                "6.611850894554456",
                "0.4140923243357501",
                "0.07",
            ],
        ),
        (
            "near a sign change, C' (q near 2/n)",
            [
                "1.069315548294458",
                "1.3700413964730669",
                "0.0012994811002209016",
                "0.5003662657162936",
            ],
        ),
        ("a double root (A^2 = 4B)", ["2", "1", "0.001", "0.05"]),
        (
            "typed decimals, complex roots",
            ["2.0794", "6.6119", "0.4141", "0.07"],
        ),
    ];
    for (name, [a, b, c, q]) in rows {
        let input = ParamsInput {
            family: Family::Unscaled,
            a: Number::Text(a.into()),
            b: Number::Text(b.into()),
            variance: VarianceInput::Power {
                c: Number::Text(c.into()),
                q: Some(Number::Text(q.into())),
                eps: None,
            },
        };
        let t = time_per_call(|| {
            black_box(
                Plan::from_input(black_box(&input))
                    .unwrap()
                    .limit()
                    .unwrap(),
            );
        });
        let width = match Plan::from_input(&input).unwrap().limit().unwrap() {
            Limit::Divergent { divergence } => divergence.constant.map(|k| k.relative_width()),
            Limit::Finite { .. } => None,
        };
        let width = width.map_or("none".to_string(), |w| format!("{w:.1e}"));
        println!("  {name:<38} {t:>10.2?}   relative width {width}");
    }
}

/// A 10^6-entry measured list: the plan sums every layer once and keeps a checkpoint every 64;
/// a value then re-adds at most 63 terms (N = 999,999 is the worst case, N = 10^6 the stored
/// total).
fn measured_list_rows() {
    let values: Vec<f64> = (1..=1_000_000u32)
        .map(|l| {
            let lf = f64::from(l);
            lf.powf(0.4) * (1.0 + 0.9 * lf.sin()) + 1e-3
        })
        .collect();
    for family in [Family::Unscaled, Family::Scaled] {
        println!("measured list of 10^6 layers, {family:?} (A=B=1)");
        let params = Params {
            family,
            a: 1.0,
            b: 1.0,
            variance: Variance::Measured {
                values: values.clone(),
            },
        };
        let plan = Plan::new(&params).unwrap();
        let t = time_per_call(|| {
            black_box(Plan::new(black_box(&params)).unwrap());
        });
        println!("  plan preparation         {:>10.2?}", t);
        for (label, n) in [
            ("N = 1e6", 1_000_000u64),
            ("N = 999999", 999_999),
            ("N = 1000", 1000),
        ] {
            let t = time_per_call(|| {
                black_box(plan.log_product(black_box(n)).unwrap());
            });
            println!("  value {label:<10} (prepared) {:>9.2?}", t);
        }
        let ns = depth_grid(1_000_000, 1000).unwrap();
        let mut out = vec![0.0; ns.len()];
        let t = time_per_call(|| {
            plan.curve(CurveKind::LogProduct, black_box(&ns), &mut out)
                .unwrap();
            black_box(&out);
        });
        println!("  1000-point curve (prepared) {:>7.2?}", t);
        println!();
    }
}

/// Exponential variance sigma_l^2 = c e^(lambda l) (unscaled and scaled, A = B = 1, c = 1):
/// one value with preparation, one value prepared, a 1000-point curve to 1e18; and the same
/// single value by the direct engine (the route before Euler-Maclaurin) in the same run.
fn exponential_variance() {
    println!("exponential variance (A=B=1, c=1)");
    let direct_engine = RouteOptions {
        exponential_direct: true,
        ..RouteOptions::default()
    };
    for family in [Family::Unscaled, Family::Scaled] {
        for lambda in [1e-3, 1e-2, 1.0, 10.0] {
            let params = Params {
                family,
                a: 1.0,
                b: 1.0,
                variance: depthprod::Variance::Exponential { c: 1.0, lambda },
            };
            let plan = Plan::new(&params).unwrap();
            let n = 1_000_000u64;
            let t = time_per_call(|| {
                black_box(
                    Plan::new(black_box(&params))
                        .unwrap()
                        .log_product(n)
                        .unwrap(),
                );
            });
            let t_before = time_per_call(|| {
                black_box(
                    Plan::with_route(black_box(&params), direct_engine)
                        .unwrap()
                        .log_product(n)
                        .unwrap(),
                );
            });
            let t_prepared = time_per_call(|| {
                black_box(plan.log_product(black_box(n)).unwrap());
            });
            let t_mid = time_per_call(|| {
                black_box(plan.log_product(black_box(777)).unwrap());
            });
            let ns = depth_grid(1_000_000_000_000_000_000, 1000).unwrap();
            let mut out = vec![0.0; ns.len()];
            let t_curve = time_per_call(|| {
                Plan::new(black_box(&params))
                    .unwrap()
                    .curve(CurveKind::LogProduct, &ns, &mut out)
                    .unwrap();
                black_box(&out);
            });
            let route = match plan.exponential_route() {
                Some((len, j)) => format!("Euler-Maclaurin to {len}, J = {j}"),
                None => "direct".into(),
            };
            println!(
                "  {:<9} lambda = {lambda:<6} value N = 1e6 {:>9.2?} (direct engine {:>9.2?})   prepared {:>8.2?} (N = 777: {:>8.2?})   1000-point curve {:>9.2?}   [{route}]",
                family.name(),
                t,
                t_before,
                t_prepared,
                t_mid,
                t_curve
            );
        }
    }
}
