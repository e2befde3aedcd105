//! Independent evaluation routes must agree at large N, where no direct sum can check them:
//! the default split, a different series start (theta) with Euler-Maclaurin on g forced over the
//! middle, and a long direct head. Enclosures from different routes must overlap.

mod common;
use common::Rng;
use depthprod::{Enclosure, Family, Limit, Params, Plan, RouteOptions};

fn overlap(x: &Enclosure, y: &Enclosure) -> bool {
    x.lo <= y.hi && y.lo <= x.hi
}

fn routes(params: &Params) -> Vec<Plan> {
    vec![
        Plan::new(params).unwrap(),
        Plan::with_route(
            params,
            RouteOptions {
                theta: 1.0 / 256.0,
                direct_max: 0.0,
            },
        )
        .unwrap(),
        Plan::with_route(
            params,
            RouteOptions {
                theta: 1.0 / 4.0,
                direct_max: 200_000.0,
            },
        )
        .unwrap(),
    ]
}

fn check(params: &Params) {
    let plans = routes(params);
    for n in [
        1_000u64,
        1_000_000_000,
        1_000_000_000_000,
        1_000_000_000_000_000_000,
    ] {
        let values: Vec<Enclosure> = plans.iter().map(|p| p.log_product(n).unwrap()).collect();
        for v in &values[1..] {
            assert!(
                overlap(&values[0], v),
                "{params:?} N={n}: {:?} vs {v:?}",
                values[0]
            );
        }
    }
    let limits: Vec<Limit> = plans.iter().map(|p| p.limit().unwrap()).collect();
    for l in &limits[1..] {
        match (&limits[0], l) {
            (Limit::Finite { log_limit: x }, Limit::Finite { log_limit: y }) => {
                assert!(overlap(x, y), "{params:?}: {x:?} vs {y:?}")
            }
            (Limit::Divergent { divergence: x }, Limit::Divergent { divergence: y }) => {
                assert_eq!(x.terms.len(), y.terms.len());
                if let (Some(cx), Some(cy)) = (x.constant, y.constant) {
                    assert!(overlap(&cx, &cy), "{params:?}: C {cx:?} vs {cy:?}");
                }
            }
            _ => panic!("routes disagree on convergence for {params:?}"),
        }
    }
}

#[test]
fn routes_agree_on_named_cases() {
    for family in Family::ALL {
        check(&Params::power(family, 1.0, 1.0, 1.0, 1.0));
        check(&Params::power(family, 1.0, 1.0, 1.0, 1.5));
        check(&Params::power(family, 3.0, 2.0, 0.5, 0.4));
    }
}

#[test]
fn routes_agree_on_random_parameters() {
    let mut rng = Rng(0xfeed_0000_0000_0003);
    for _ in 0..60 {
        let family = rng.family();
        let a = rng.log_range(1e-3, 100.0);
        let b = rng.log_range(1e-3, 100.0);
        let c = rng.log_range(1e-3, 1e3);
        let q = rng.log_range(0.3, 8.0);
        check(&Params::power(family, a, b, c, q));
    }
}
