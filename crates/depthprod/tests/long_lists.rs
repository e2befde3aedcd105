//! Measured lists of 10^6 layers: they are accepted, evaluate at every depth,
//! and each enclosure contains an independent compensated sum and meets the width goal.

use depthprod::{CurveKind, Error, Family, Params, Plan, Variance, MAX_LIST_LEN};

/// A list of n variances that wander over three orders of magnitude (never a power law the plan
/// could shortcut): sigma_l^2 = l^0.4 (1 + 0.9 sin(l)) + 1e-3.
fn wandering_list(n: usize) -> Vec<f64> {
    (1..=n)
        .map(|l| {
            let lf = l as f64;
            lf.powf(0.4) * (1.0 + 0.9 * lf.sin()) + 1e-3
        })
        .collect()
}

/// sum_{l <= n} ln(1 + A x_l + B x_l^2), x_l = l^-extra / sigma_l, made independently of the
/// core: double-double (TwoSum) accumulation of the terms, so its own rounding is that of the
/// terms (a few ulps each, all positive): within 8 eps of the exact sum.
fn independent_sum(a: f64, b: f64, values: &[f64], extra: f64, n: usize) -> (f64, f64) {
    let (mut hi, mut lo) = (0.0f64, 0.0f64);
    for (i, v) in values[..n].iter().enumerate() {
        let x = ((i + 1) as f64).powf(-extra) / v.sqrt();
        let g = (a * x + b * x * x).ln_1p();
        let s = hi + g;
        let bb = s - hi;
        let err = (hi - (s - bb)) + (g - bb);
        hi = s;
        lo += err;
    }
    let v = hi + lo;
    (v, 8.0 * f64::EPSILON * v.abs())
}

#[test]
fn a_million_layer_list_is_certified_at_every_checked_depth() {
    assert_eq!(MAX_LIST_LEN, 1_000_000);
    let values = wandering_list(MAX_LIST_LEN);
    for (family, extra, a, b) in [
        (Family::Unscaled, 0.0, 1.0, 1.0),
        (Family::SqrtScaled, 0.5, 20.0, 3.0),
        (Family::Scaled, 1.0, 100.0, 100.0),
    ] {
        let params = Params {
            family,
            a,
            b,
            variance: Variance::Measured {
                values: values.clone(),
            },
        };
        let plan = Plan::new(&params).unwrap();
        assert_eq!(plan.max_depth(), 1_000_000);
        for n in [1usize, 63, 64, 65, 1000, 123_457, 999_999, 1_000_000] {
            let e = plan.log_product(n as u64).unwrap();
            let (d, de) = independent_sum(a, b, &values, extra, n);
            assert!(
                e.lo <= d + de && d - de <= e.hi,
                "{family:?} N = {n}: {e:?} misses the independent sum {d}"
            );
            assert!(e.lo <= e.value && e.value <= e.hi);
            assert!(
                e.width() <= 1e-12 * e.value.abs(),
                "{family:?} N = {n}: width {} of {}",
                e.width(),
                e.value
            );
        }
        // a curve over the whole list gives the values of log_product, point by point
        let ns = depthprod::depth_grid(1_000_000, 1000).unwrap();
        let mut out = vec![0.0; ns.len()];
        plan.curve(CurveKind::LogProduct, &ns, &mut out).unwrap();
        for (n, v) in ns.iter().zip(&out) {
            assert_eq!(*v, plan.log_product(*n as u64).unwrap().value, "N = {n}");
        }
        // one layer past the list is refused with the list's length
        assert!(matches!(
            plan.log_product(1_000_001),
            Err(Error::DepthBeyondList { len: 1_000_000, .. })
        ));
    }
}

#[test]
fn a_list_one_entry_too_long_is_refused_by_name() {
    let params = Params {
        family: Family::Unscaled,
        a: 1.0,
        b: 1.0,
        variance: Variance::Measured {
            values: vec![1.0; MAX_LIST_LEN + 1],
        },
    };
    let err = Plan::new(&params).unwrap_err().to_string();
    assert!(
        err.contains("1000001 entries") && err.contains("at most 1000000"),
        "{err}"
    );
}
