//! The bound beside the measurement: the fitted power law's products for c outside
//! [`C_RANGE`] (measure::power_law_product; the core's effective coefficients, docs/MATH.md
//! §5.5a): the product with (A, B, c) is the one with (A sqrt(r), B r, c r), contained and narrow.

use depthlab::measure::power_law_product;
use depthprod::{Family, Params, Plan, C_RANGE};

/// At c = c_min / 4 the rescaling is exact in doubles (r = 4, sqrt(r) = 2): the product with
/// (A, B, c) is the core's with (2A, 4B, c_min), which the enclosure must contain, and it must stay
/// within the core's 1e-12 relative width goal.
#[test]
fn below_the_core_range_the_product_is_the_rescaled_one() {
    let c = C_RANGE.0 / 4.0;
    for family in [Family::Unscaled, Family::Scaled] {
        for &(a, b, q, n) in &[
            (6.1, 0.93, 0.3, 32u64),
            (0.24, 0.0021, 0.105, 3),
            (1.0, 1.0, 1.0, 1_000_000),
        ] {
            let got = power_law_product(family, a, b, c, q, n).unwrap();
            let want = Plan::new(&Params::power(family, 2.0 * a, 4.0 * b, C_RANGE.0, q))
                .unwrap()
                .log_product(n)
                .unwrap();
            let what = format!("{} A={a} B={b} q={q} N={n}", family.name());
            assert!(
                got.lo <= want.lo && want.hi <= got.hi,
                "{what}: [{}, {}] does not contain [{}, {}]",
                got.lo,
                got.hi,
                want.lo,
                want.hi
            );
            assert!(
                got.lo <= got.value && got.value <= got.hi,
                "{what}: value outside"
            );
            let width = (got.hi - got.lo) / got.value.abs().max(1.0);
            assert!(width <= 1e-12, "{what}: relative width {width:e}");
        }
    }
}

/// Above the range likewise (c = 4 c_max: r = 1/4, sqrt(r) = 1/2), and inside it the core's own
/// answer comes back unchanged.
#[test]
fn above_and_inside_the_range() {
    let (a, b, q, n) = (3.0, 2.0, 0.7, 1000u64);
    for family in [Family::Unscaled, Family::Scaled] {
        let got = power_law_product(family, a, b, 4.0 * C_RANGE.1, q, n).unwrap();
        let want = Plan::new(&Params::power(family, a / 2.0, b / 4.0, C_RANGE.1, q))
            .unwrap()
            .log_product(n)
            .unwrap();
        assert!(
            got.lo <= want.lo
                && want.hi <= got.hi
                && (got.hi - got.lo) <= 1e-12 * got.value.abs().max(1.0)
        );
        let inside = power_law_product(family, a, b, 0.5, q, n).unwrap();
        let core = Plan::new(&Params::power(family, a, b, 0.5, q))
            .unwrap()
            .log_product(n)
            .unwrap();
        assert_eq!(
            (inside.value, inside.lo, inside.hi),
            (core.value, core.lo, core.hi)
        );
    }
}

/// What the rescaling cannot fix is still the core's error: q outside its range, or A pushed past
/// 100 by the rescaling.
#[test]
fn out_of_reach_stays_an_error() {
    assert!(power_law_product(Family::Unscaled, 1.0, 1.0, 4e-4, 0.01, 10).is_err());
    let err = power_law_product(Family::Unscaled, 90.0, 1.0, 1e-5, 1.0, 10).unwrap_err();
    assert!(err.to_string().contains("A"), "{err}");
}
