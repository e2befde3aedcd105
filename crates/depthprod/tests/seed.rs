//! The correction's illustration values (A = B = 1, c = 1, q = 1, N = 10^6).

use depthprod::{zeta_bound, Depth, Family, Limit, Params, Plan};

fn plan(family: Family) -> Plan {
    Plan::new(&Params::power(family, 1.0, 1.0, 1.0, 1.0)).unwrap()
}

#[test]
fn unscaled_log_product_at_one_million() {
    let e = plan(Family::Unscaled).log_product(1_000_000).unwrap();
    // "the unscaled log-product is 2004.44407"
    assert!((e.value - 2004.44407).abs() < 5e-6, "{e:?}");
    assert!(e.relative_width() < 1e-12, "{e:?}");
}

#[test]
fn scaled_log_product_tail_and_limit() {
    let p = plan(Family::Scaled);
    let q = p.log_product(1_000_000).unwrap();
    // "For scaled q=1 the log-product is 2.7784912"
    assert!((q.value - 2.7784912).abs() < 5e-8, "{q:?}");
    let tail = p.tail(1_000_000).unwrap().unwrap();
    // "remaining positive log-tail bounded by .002000000001" (= 2/sqrt(N) + 1/(2 N^2))
    assert!(tail.lo > 0.0 && tail.hi <= 0.002000000001, "{tail:?}");
    let Limit::Finite { log_limit } = p.limit().unwrap() else {
        panic!("scaled product must converge")
    };
    // The limit lies within [log Q_N, log Q_N + tail bound] and equals 2.78049120...
    assert!(
        log_limit.lo >= q.lo && log_limit.hi <= q.hi + 0.002000000001,
        "{log_limit:?}"
    );
    assert!(log_limit.lo >= 2.7784912 && log_limit.hi <= 2.7784912 + 0.002000000001 + 1e-7);
    assert!((log_limit.value - 2.780_491_20).abs() < 1e-8);
    assert!(log_limit.width() < 1e-13);
    // the zeta bound lies above
    let zb = zeta_bound(1.0, 1.0, 1.0, 1.0).unwrap();
    assert!(zb.lo > log_limit.hi);
}

#[test]
fn unscaled_asymptotics_match_the_correction() {
    // log P_N = 2A sqrt N + (B - A^2/2) log N + C + o(1)
    let Limit::Divergent { divergence } = plan(Family::Unscaled).limit().unwrap() else {
        panic!("unscaled diverges")
    };
    assert_eq!(divergence.terms.len(), 2);
    let (t0, t1) = (divergence.terms[0], divergence.terms[1]);
    assert!(!t0.log && t0.exponent == 0.5 && (t0.coefficient - 2.0).abs() < 1e-15);
    assert!(t1.log && (t1.coefficient - 0.5).abs() < 1e-15);
    let c = divergence.constant.unwrap();
    assert!(c.width() < 1e-12, "{c:?}");
    // The remainder log P_N - leading terms converges to C.
    let p = plan(Family::Unscaled);
    let n = 1_000_000_000_000_000_000u64;
    let s = p.log_product(n).unwrap();
    let remainder = s.value - divergence.leading(n as f64);
    assert!((remainder - c.value).abs() < 1e-6, "{remainder} vs {c:?}");
    // And through the Evaluation used by the CLI and the page.
    let ev = p.evaluate(Depth::Infinite).unwrap();
    assert!(ev.log_product.is_none() && ev.divergent.is_some() && ev.tail.is_none());
}
