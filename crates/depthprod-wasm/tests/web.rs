//! The translation layer, checked in a real JavaScript engine (node, through
//! wasm-bindgen-test-runner): `cargo test -p depthprod-wasm --target wasm32-unknown-unknown`.
//! The numbers themselves are the core's business; these tests check that requests arrive intact,
//! that results come back as plain objects with the documented shape, and that core errors become
//! JavaScript `Error`s carrying the core's message.
#![cfg(target_arch = "wasm32")]

use depthprod::{Family, Params, Variance};
use depthprod_wasm as api;
use js_sys::{Array, Float64Array, Reflect, JSON};
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::wasm_bindgen_test;

fn js(json: &str) -> JsValue {
    JSON::parse(json).unwrap_or_else(|e| panic!("bad JSON in test {json}: {e:?}"))
}

/// `value.a.b.c`.
fn get(value: &JsValue, path: &str) -> JsValue {
    path.split('.').fold(value.clone(), |v, key| {
        assert!(v.is_object(), "{path}: {key} of a non-object {v:?}");
        Reflect::get(&v, &JsValue::from_str(key)).unwrap()
    })
}

fn num(value: &JsValue, path: &str) -> f64 {
    get(value, path)
        .as_f64()
        .unwrap_or_else(|| panic!("{path} is not a number: {value:?}"))
}

/// The JS value wasm-bindgen throws for an `Err`, and its message.
fn thrown_message(err: JsError) -> String {
    let thrown = JsValue::from(err);
    let error = thrown
        .dyn_ref::<js_sys::Error>()
        .unwrap_or_else(|| panic!("thrown value is not an Error: {thrown:?}"));
    String::from(error.message())
}

const SCALED: &str = r#"{"family":"scaled","a":1,"b":1,"variance":{"kind":"power","c":1,"q":1}"#;

#[wasm_bindgen_test]
fn request_round_trips_into_core_params() {
    let p = api::params_from_js(&js(r#"{"family":"sqrt-scaled","a":1.5,"b":0.25,"variance":{"kind":"power","c":2,"q":1},"n":10}"#)).unwrap();
    assert_eq!(p, Params::power(Family::SqrtScaled, 1.5, 0.25, 2.0, 1.0));

    let p = api::params_from_js(&js(r#"{"family":"unscaled","a":1,"b":2,"variance":{"kind":"exponential","c":0.5,"lambda":0.1}}"#)).unwrap();
    assert_eq!(
        p.variance,
        Variance::Exponential {
            c: 0.5,
            lambda: 0.1
        }
    );

    let p = api::params_from_js(&js(
        r#"{"family":"harmonic","a":1,"b":1,"variance":{"kind":"measured","values":[1,2.5,4]}}"#,
    ))
    .unwrap();
    assert_eq!(
        p.variance,
        Variance::Measured {
            values: vec![1.0, 2.5, 4.0]
        }
    );

    // What parseList returns can be passed straight back as the measured list.
    let request = js(r#"{"family":"scaled","a":1,"b":1,"variance":{"kind":"measured"}}"#);
    let values = Float64Array::from(&[3.0, 1e-3, 7.25][..]);
    Reflect::set(&get(&request, "variance"), &"values".into(), &values).unwrap();
    let p = api::params_from_js(&request).unwrap();
    assert_eq!(
        p,
        Params {
            family: Family::Scaled,
            a: 1.0,
            b: 1.0,
            variance: Variance::Measured {
                values: vec![3.0, 1e-3, 7.25]
            }
        }
    );
}

#[wasm_bindgen_test]
fn malformed_requests_are_refused_with_a_message() {
    let msg = thrown_message(
        api::params_from_js(&js(
            r#"{"family":"pre-ln","a":1,"b":1,"variance":{"kind":"power","c":1,"q":1}}"#,
        ))
        .unwrap_err(),
    );
    assert!(msg.contains("pre-ln") && msg.contains("unscaled"), "{msg}");
    let msg = thrown_message(
        api::params_from_js(&js(
            r#"{"family":"scaled","b":1,"variance":{"kind":"power","c":1,"q":1}}"#,
        ))
        .unwrap_err(),
    );
    assert!(msg.contains("`a`"), "{msg}");
    let msg = thrown_message(
        api::params_from_js(&js(
            r#"{"family":"scaled","a":1,"b":1,"variance":{"kind":"cubic","c":1}}"#,
        ))
        .unwrap_err(),
    );
    assert!(msg.contains("cubic"), "{msg}");
    let msg = thrown_message(api::evaluate(JsValue::from_str("scaled")).unwrap_err());
    assert!(msg.contains("expected an object"), "{msg}");
}

/// The field-by-field reading (no serde, issue 11) names the part of the request and the field,
/// for both the number-or-string requests (`Plan`, `closedForms`) and the double-only one.
#[wasm_bindgen_test]
fn field_reads_name_the_part_and_the_field() {
    let refused = |json: &str| match api::input_from_js(&js(json)) {
        Ok(input) => panic!("{json} was accepted as {input:?}"),
        Err(e) => thrown_message(e),
    };
    let msg = refused(r#"{"family":"scaled","a":1,"b":1,"variance":{"kind":"power","q":1}}"#);
    assert_eq!(msg, "invalid variance model: missing field `c`");
    let msg =
        refused(r#"{"family":"scaled","a":true,"b":1,"variance":{"kind":"power","c":1,"q":1}}"#);
    assert_eq!(
        msg,
        "invalid parameters: `a` must be a number or a decimal string"
    );
    let msg = refused(r#"{"family":"scaled","a":1,"b":1,"variance":{"kind":"cubic","c":1}}"#);
    assert!(
        msg.starts_with("invalid variance model: unknown kind \"cubic\""),
        "{msg}"
    );
    let msg = refused(r#"{"family":"scaled","a":1,"b":1,"variance":"power"}"#);
    assert!(
        msg.starts_with("invalid variance model: expected an object"),
        "{msg}"
    );
    let msg = refused(r#"{"family":3,"a":1,"b":1,"variance":{"kind":"power","c":1,"q":1}}"#);
    assert!(msg.contains("`family` must be a string"), "{msg}");
    let msg = refused(
        r#"{"family":"harmonic","a":1,"b":1,"variance":{"kind":"measured","values":[1,"x"]}}"#,
    );
    assert!(msg.contains("entry 2 of `values` is not a number"), "{msg}");
    // Decimal strings arrive as text, numbers as doubles, null as absent.
    let input = api::input_from_js(&js(
        r#"{"family":"scaled","a":"0.4","b":1,"variance":{"kind":"power","c":"1e-3","q":null,"eps":"0.5"}}"#,
    ))
    .unwrap();
    assert_eq!(input.a, depthprod::Number::Text("0.4".into()));
    assert_eq!(input.b, depthprod::Number::Double(1.0));
    assert_eq!(
        input.variance,
        depthprod::VarianceInput::Power {
            c: depthprod::Number::Text("1e-3".into()),
            q: None,
            eps: Some(depthprod::Number::Text("0.5".into())),
        }
    );
    // The double-only reading refuses text where serde refused it.
    let msg = thrown_message(
        api::params_from_js(&js(
            r#"{"family":"scaled","a":"1","b":1,"variance":{"kind":"power","c":1,"q":1}}"#,
        ))
        .unwrap_err(),
    );
    assert_eq!(msg, "invalid parameters: `a` must be a number");
    let msg = thrown_message(api::closed_forms(js(r#"{"a":1}"#)).unwrap_err());
    assert_eq!(msg, "invalid closed-form request: missing field `b`");
}

#[wasm_bindgen_test]
fn core_errors_become_js_errors_with_the_core_message() {
    let expected = Params::power(Family::Scaled, -1.0, 1.0, 1.0, 1.0)
        .validate()
        .unwrap_err()
        .to_string();
    let request =
        js(r#"{"family":"scaled","a":-1,"b":1,"variance":{"kind":"power","c":1,"q":1},"n":10}"#);
    assert_eq!(
        thrown_message(api::evaluate(request).unwrap_err()),
        expected
    );

    let expected = "0.5".parse::<depthprod::Depth>().unwrap_err().to_string();
    assert_eq!(
        thrown_message(api::evaluate(js(&format!(r#"{SCALED},"n":"0.5"}}"#))).unwrap_err()),
        expected
    );
    let expected = depthprod::Depth::from_f64(0.0).unwrap_err().to_string();
    assert_eq!(
        thrown_message(api::evaluate(js(&format!(r#"{SCALED},"n":0}}"#))).unwrap_err()),
        expected
    );
    let msg = thrown_message(api::evaluate(js(&format!("{SCALED}}}"))).unwrap_err());
    assert!(
        msg.contains("missing") && msg.contains("not a valid depth"),
        "{msg}"
    );

    let expected = depthprod::parse_list("1, x").unwrap_err().to_string();
    assert_eq!(
        thrown_message(api::parse_list("1, x").unwrap_err()),
        expected
    );

    let msg = thrown_message(api::curve(js(&format!("{SCALED}}}")), "slope", &[1.0]).unwrap_err());
    assert!(
        msg.contains("slope") && msg.contains("log-product, remainder, tail"),
        "{msg}"
    );
}

#[wasm_bindgen_test]
fn evaluate_returns_a_plain_object_of_the_documented_shape() {
    // Unscaled, A = 0, B = 1, sigma_l^2 = l: P_N = N + 1 exactly (docs/MATH.md, section 7).
    let out = api::evaluate(js(
        r#"{"family":"unscaled","a":0,"b":1,"variance":{"kind":"power","c":1,"q":1},"n":1000}"#,
    ))
    .unwrap();
    assert_eq!(
        Reflect::get_prototype_of(&out).unwrap(),
        Reflect::get_prototype_of(&js("{}")).unwrap(),
        "not a plain object"
    );
    assert_eq!(get(&out, "family").as_string().as_deref(), Some("unscaled"));
    assert_eq!(num(&out, "n"), 1000.0);
    let (lo, hi) = (num(&out, "log_product.lo"), num(&out, "log_product.hi"));
    assert!(lo <= 1001f64.ln() && 1001f64.ln() <= hi, "[{lo}, {hi}]");
    assert!((num(&out, "log_product.value") - 1001f64.ln()).abs() < 1e-12);
    // Divergent: no limit and no tail, but the growth terms as an array of plain objects.
    assert!(
        get(&out, "limit").is_null() && get(&out, "tail").is_null(),
        "{out:?}"
    );
    let terms = get(&out, "divergent.terms");
    assert!(Array::is_array(&terms), "{terms:?}");
    let terms = Array::from(&terms);
    for term in terms.iter() {
        assert!(
            num(&term, "coefficient").is_finite() && num(&term, "exponent").is_finite(),
            "{term:?}"
        );
        assert!(get(&term, "log").as_bool().is_some(), "{term:?}");
    }
    // log(N + 1) = log N + o(1): the one growth term is 1 * log N.
    let log_terms: Vec<JsValue> = terms
        .iter()
        .filter(|t| get(t, "log").as_bool() == Some(true))
        .collect();
    assert_eq!(log_terms.len(), 1, "{terms:?}");
    assert!(
        (num(&log_terms[0], "coefficient") - 1.0).abs() < 1e-12,
        "{terms:?}"
    );
}

#[wasm_bindgen_test]
fn n_accepts_inf_numbers_and_strings() {
    // Scaled, A = B = 1, c = 1, q = 1: log Q_inf = 2.78049120... (docs/MATH.md, section 7).
    for n in [r#""inf""#, r#""infinity""#] {
        let out = api::evaluate(js(&format!(r#"{SCALED},"n":{n}}}"#))).unwrap();
        assert!(
            get(&out, "n").is_null(),
            "n should be null at infinity: {out:?}"
        );
        assert!(
            (num(&out, "log_product.value") - 2.780_491_20).abs() < 1e-8,
            "{out:?}"
        );
        assert_eq!(num(&out, "limit.value"), num(&out, "log_product.value"));
        assert!(get(&out, "divergent").is_null());
    }
    // The correction's illustration, N = 10^6, given three ways.
    for n in ["1000000", r#""1e6""#, r#""10^6""#] {
        let out = api::evaluate(js(&format!(r#"{SCALED},"n":{n}}}"#))).unwrap();
        assert_eq!(num(&out, "n"), 1e6);
        assert!(
            (num(&out, "log_product.value") - 2.778_491_2).abs() < 1e-6,
            "{out:?}"
        );
        assert!(
            num(&out, "tail.hi") <= 0.002000000001 && num(&out, "tail.lo") >= 0.0,
            "{out:?}"
        );
    }
    // n above 2^53 still comes back as a number.
    let out = api::evaluate(js(&format!(r#"{SCALED},"n":"1e18"}}"#))).unwrap();
    assert_eq!(num(&out, "n"), 1e18);
}

#[wasm_bindgen_test]
fn curve_has_the_length_of_its_input() {
    let params = js(&format!("{SCALED}}}"));
    let ns = [1.0, 2.0, 10.0, 1e3, 1e6, 1e12];
    let out = api::curve(params.clone(), "log-product", &ns).unwrap();
    assert_eq!(out.len(), ns.len());
    assert!(
        (out[0] - 3f64.ln()).abs() < 1e-14,
        "l = 1 term is log(1 + 1 + 1): {out:?}"
    );
    assert!(
        out.windows(2).all(|w| w[0] < w[1]),
        "log Q_N increases: {out:?}"
    );
    assert_eq!(
        api::curve(params.clone(), "tail", &ns).unwrap().len(),
        ns.len()
    );
    assert!(api::curve(params, "log-product", &[]).unwrap().is_empty());
    // Every kind the core parses passes through, overlays included.
    let unscaled =
        js(r#"{"family":"unscaled","a":1,"b":1,"variance":{"kind":"power","c":1,"q":1}}"#);
    for kind in ["remainder", "leading", "asymptote", "linear-claim"] {
        let out = api::curve(unscaled.clone(), kind, &ns).unwrap();
        assert_eq!(out.len(), ns.len(), "{kind}");
    }
}

#[wasm_bindgen_test]
fn grid_and_list_helpers() {
    let grid = api::depth_grid(1e6, 50.0).unwrap();
    assert_eq!(grid, depthprod::depth_grid(1_000_000, 50).unwrap());
    assert_eq!((grid[0], *grid.last().unwrap()), (1.0, 1e6));
    assert!(api::depth_grid(f64::INFINITY, 50.0).is_err());
    assert!(api::depth_grid(10.0, f64::NAN).is_err());
    assert_eq!(
        api::parse_list("1, 2\n3;4").unwrap(),
        vec![1.0, 2.0, 3.0, 4.0]
    );
    assert_eq!(api::version(), env!("CARGO_PKG_VERSION"));
}

#[wasm_bindgen_test]
fn closed_forms_pass_through_the_core_values() {
    let out = api::closed_forms(js(r#"{"a":1,"b":1,"c":1,"q":1,"n":1000000}"#)).unwrap();
    let zeta = depthprod::zeta_bound(1.0, 1.0, 1.0, 1.0).unwrap();
    assert_eq!(
        (
            num(&out, "zeta_bound.value"),
            num(&out, "zeta_bound.lo"),
            num(&out, "zeta_bound.hi")
        ),
        (zeta.value, zeta.lo, zeta.hi)
    );
    assert_eq!(num(&out, "eq65.eps.value"), 1.0);
    assert_eq!(num(&out, "eq65.eps.lo"), 1.0);
    assert_eq!(
        num(&out, "eq65.exponent_at_n.hi"),
        depthprod::eq65_exponent(1.0, 1.0, 1.0, 1e6).unwrap().hi
    );
    assert_eq!(
        num(&out, "eq65.limit.lo"),
        depthprod::eq65_limit(1.0, 1.0, 1.0).unwrap().lo
    );
    assert!(
        get(&out, "exponential_bound").is_null(),
        "no lambda given: {out:?}"
    );
    assert_eq!(
        num(&out, "zeta_tail_bound"),
        depthprod::zeta_tail_bound(1.0, 1.0, 1.0, 1.0, 1e6).unwrap()
    );

    // N = infinity (or no N): Eq. 65 at N is left to its limit.
    for n in [r#","n":"inf""#, ""] {
        let out = api::closed_forms(js(&format!(r#"{{"a":1,"b":1,"c":1,"q":1.5{n}}}"#))).unwrap();
        assert!(get(&out, "eq65.exponent_at_n").is_null(), "{out:?}");
        assert!(get(&out, "zeta_tail_bound").is_null(), "{out:?}");
        assert_eq!(
            num(&out, "eq65.limit.value"),
            depthprod::eq65_limit(1.0, 1.0, 0.5).unwrap().value
        );
    }

    // Exponential variance only; q outside (0, 2) has no Eq. 65.
    let out = api::closed_forms(js(r#"{"a":2,"b":0.5,"c":3,"lambda":0.25}"#)).unwrap();
    let bound = depthprod::exponential_bound(2.0, 0.5, 3.0, 0.25).unwrap();
    assert_eq!(
        (
            num(&out, "exponential_bound.lo"),
            num(&out, "exponential_bound.hi")
        ),
        (bound.lo, bound.hi)
    );
    assert!(
        get(&out, "zeta_bound").is_null() && get(&out, "eq65").is_null(),
        "{out:?}"
    );
    let out = api::closed_forms(js(r#"{"a":1,"b":1,"c":1,"q":2.5}"#)).unwrap();
    assert!(
        get(&out, "eq65").is_null() && !get(&out, "zeta_bound").is_null(),
        "{out:?}"
    );

    let expected = depthprod::zeta_bound(1.0, 1.0, 0.0, 1.0)
        .unwrap_err()
        .to_string();
    assert_eq!(
        thrown_message(api::closed_forms(js(r#"{"a":1,"b":1,"c":0,"q":1}"#)).unwrap_err()),
        expected
    );
}

#[wasm_bindgen_test]
fn rotation_passes_through_the_core_values() {
    let half = depthprod::Number::Double(0.5);
    let core = depthprod::rotation_product(&half, 1, 1000).unwrap();
    let out = api::rotation(JsValue::from_f64(0.5), 1.0, 1000.0).unwrap();
    assert_eq!(num(&out, "angle"), core.angle.value);
    assert_eq!(num(&out, "norm"), core.norm);
    let matrix = get(&out, "matrix");
    assert!(Array::is_array(&matrix), "{matrix:?}");
    let matrix: Vec<f64> = Array::from(&matrix)
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    assert_eq!(matrix, core.matrix.map(|e| e.value));
    for (i, e) in core.matrix.iter().enumerate() {
        assert_eq!(num(&out, &format!("enclosures.matrix.{i}.lo")), e.lo);
        assert_eq!(num(&out, &format!("enclosures.matrix.{i}.hi")), e.hi);
    }
    assert_eq!(num(&out, "enclosures.angle.hi"), core.angle.hi);
    assert_eq!(num(&out, "enclosures.reduced.lo"), core.reduced.lo);

    let expected = depthprod::rotation_product(&half, 9, 10)
        .unwrap_err()
        .to_string();
    assert_eq!(
        thrown_message(api::rotation(JsValue::from_f64(0.5), 9.0, 10.0).unwrap_err()),
        expected
    );
    assert!(
        thrown_message(api::rotation(JsValue::from_f64(0.5), 1.5, 10.0).unwrap_err())
            .contains("whole number")
    );
    assert!(
        thrown_message(api::rotation(JsValue::from_f64(0.5), 1.0, 2.5).unwrap_err())
            .contains("not a valid depth")
    );
    // theta as typed text: the exact decimal 0.1 turns by 10^17 at N = 10^18
    let typed = api::rotation(JsValue::from_str("0.1"), 0.0, 1e18).unwrap();
    assert_eq!(num(&typed, "angle"), 1e17);
    let m00 = (
        num(&typed, "enclosures.matrix.0.lo"),
        num(&typed, "enclosures.matrix.0.hi"),
    );
    // cos(10^17) = -0.885557328297630685049... (mpmath, tests/reference/exact_decimals.json)
    assert!(
        m00.0 <= -0.885_557_328_297_630_7 && -0.885_557_328_297_630_6 <= m00.1,
        "{m00:?}"
    );
    assert!(m00.1 - m00.0 < 1e-15, "{m00:?}");
    assert_eq!(
        thrown_message(
            api::rotation(JsValue::from_str("100.00000000000000001"), 1.0, 10.0).unwrap_err()
        ),
        "theta = 100.00000000000000001 is outside the supported range [-100, 100]"
    );
}

/// Every entry point decides every range on the exact decimal given, and its message shows the
/// value as typed (the issue's examples).
#[wasm_bindgen_test]
fn every_entry_point_decides_ranges_on_the_typed_decimal() {
    let cases = [
        (r#""a":"1","b":"1","c":"1","q":"8.0000000000000000001""#, "q = 8.0000000000000000001 is outside the supported range [0.05, 8]"),
        (r#""a":"100.00000000000000001","b":"1","c":"1","q":"1""#, "A = 100.00000000000000001 is outside the supported range [0, 100]"),
        (r#""a":"100","b":"100","c":"0.00099999999999999999999","q":"1""#, "A/√c ≈ 3162.28 (A = 100, c = 0.00099999999999999999999) is outside the supported range [0, 3162.27…]"),
        (r#""a":"9.9999999999999999999e-101","b":"1","c":"1","q":"1""#, "A = 9.9999999999999999999e-101 is nonzero but below 1e-100"),
    ];
    for (fields, want) in cases {
        let (ab, rest) = fields.split_at(fields.find(r#","c""#).unwrap());
        let request =
            format!(r#"{{"family":"scaled",{ab},"variance":{{"kind":"power"{rest}}},"n":10}}"#);
        let message = thrown_message(api::evaluate(js(&request)).unwrap_err());
        assert!(message.starts_with(want), "evaluate {request}: {message}");
        let message = thrown_message(api::Plan::new(&js(&request)).unwrap_err());
        assert!(message.starts_with(want), "Plan {request}: {message}");
        let message = thrown_message(api::curve(js(&request), "log-product", &[1.0]).unwrap_err());
        assert!(message.starts_with(want), "curve {request}: {message}");
        let closed = format!("{{{fields}}}");
        let message = thrown_message(api::closed_forms(js(&closed)).unwrap_err());
        assert!(message.starts_with(want), "closedForms {closed}: {message}");
    }
    let lambda = r#"{"family":"unscaled","a":"1","b":"1","variance":{"kind":"exponential","c":"1","lambda":"10.0000000000000000001"},"n":10}"#;
    let want = "lambda = 10.0000000000000000001 is outside the supported range [0.001, 10]";
    assert!(thrown_message(api::evaluate(js(lambda)).unwrap_err()).starts_with(want));
    let closed = r#"{"a":"1","b":"1","c":"1","lambda":"10.0000000000000000001"}"#;
    assert!(thrown_message(api::closed_forms(js(closed)).unwrap_err()).starts_with(want));
}

#[wasm_bindgen_test]
fn a_prepared_product_answers_like_the_free_functions() {
    let params = js(&format!("{SCALED}}}"));
    let product = api::Plan::new(&params).unwrap();
    let ns = [1.0, 10.0, 1e6, 1e18];
    assert_eq!(
        product.curve("log-product", &ns).unwrap(),
        api::curve(params.clone(), "log-product", &ns).unwrap()
    );
    let ev = product.evaluate(&JsValue::from_f64(1e6)).unwrap();
    let free = api::evaluate(js(&format!("{SCALED},\"n\":1000000}}"))).unwrap();
    assert_eq!(
        num(&ev, "log_product.value"),
        num(&free, "log_product.value")
    );
    assert_eq!(num(&ev, "n"), 1e6);
    assert_eq!(product.max_depth(), 1e18);
    let message = thrown_message(product.curve("bogus", &ns).unwrap_err());
    assert!(message.contains("unknown curve kind"), "{message}");
    let bad = api::Plan::new(&js(
        r#"{"family":"scaled","a":-1,"b":1,"variance":{"kind":"power","c":1,"q":1}}"#,
    ));
    assert!(thrown_message(bad.unwrap_err()).starts_with("A = -1"));
    let list = api::Plan::new(&js(
        r#"{"family":"unscaled","a":1,"b":1,"variance":{"kind":"measured","values":[1,2,3]}}"#,
    ))
    .unwrap();
    assert_eq!(list.max_depth(), 3.0);
}

/// N = 2^32 - 1, 2^32, 2^32 + 1, 2^53 - 1, 2^53 + 2 and 10^18 for every family and variance
/// model: wasm32 once truncated N to 32 bits (`n as usize`) and returned log P = 0 "exact" at
/// N = 2^32 under exponential variance. Each wasm enclosure must be at most 1e-12 wide, overlap the
/// native build's (tests/reference/native_big_depths.json, written by the core's big_depths test),
/// and contain the mpmath reference where tests/reference has one (decided exactly).
#[wasm_bindgen_test]
fn big_depths_agree_with_native_and_reference_values() {
    use depthprod::exact::Exact;
    let native = js(include_str!(
        "../../../tests/reference/native_big_depths.json"
    ));
    let reference = js(include_str!("../../../tests/reference/reference.json"));
    let direct = js(include_str!("../../../tests/reference/direct_models.json"));
    // (family, model, n) -> reference decimal, for A = B = c = 1, q = 1 / lambda = 0.1
    let mut refs: Vec<(String, String, String, String)> = Vec::new();
    for case in Array::from(&get(&reference, "cases")).iter() {
        let one = |k: &str| get(&case, k).as_f64() == Some(1.0);
        if one("a")
            && one("b")
            && one("c")
            && one("q")
            && get(&case, "n").as_string() != Some("inf".into())
        {
            refs.push((
                get(&case, "family").as_string().unwrap(),
                "power".into(),
                get(&case, "n").as_string().unwrap(),
                get(&case, "log_product").as_string().unwrap(),
            ));
        }
    }
    for case in Array::from(&get(&direct, "cases")).iter() {
        let lambda = Reflect::get(&case, &JsValue::from_str("lambda")).unwrap();
        let one = |k: &str| get(&case, k).as_f64() == Some(1.0);
        if lambda.as_f64() == Some(0.1) && one("a") && one("b") && one("c") {
            let family = get(&case, "family").as_string().unwrap();
            let value = get(&case, "log_product").as_string().unwrap();
            for n in [
                "4294967295",
                "4294967296",
                "4294967297",
                "9007199254740991",
                "9007199254740994",
                "1000000000000000000",
            ] {
                refs.push((
                    family.clone(),
                    "exponential".into(),
                    n.into(),
                    value.clone(),
                ));
            }
        }
    }
    let mut checked_against_reference = 0;
    let rows = Array::from(&native);
    assert_eq!(rows.length(), 72);
    for row in rows.iter() {
        let text = |k: &str| get(&row, k).as_string().unwrap();
        let (family, model, n) = (text("family"), text("model"), text("n"));
        let variance = match model.as_str() {
            "power" => r#"{"kind":"power","c":1,"q":1}"#,
            "exponential" => r#"{"kind":"exponential","c":1,"lambda":0.1}"#,
            _ => r#"{"kind":"measured","values":[1,2,3]}"#,
        };
        let request = js(&format!(
            r#"{{"family":"{family}","a":1,"b":1,"variance":{variance},"n":{n}}}"#
        ));
        let result = api::evaluate(request);
        if Reflect::has(&row, &JsValue::from_str("error")).unwrap() {
            assert_eq!(
                thrown_message(result.unwrap_err()),
                text("error"),
                "{family} {model} {n}"
            );
            continue;
        }
        let out = result.unwrap_or_else(|e| panic!("{family} {model} {n}: {}", thrown_message(e)));
        let (lo, value, hi) = (
            num(&out, "log_product.lo"),
            num(&out, "log_product.value"),
            num(&out, "log_product.hi"),
        );
        let parse = |k: &str| text(k).parse::<f64>().unwrap();
        let where_ = format!("{family} {model} N = {n}: wasm [{lo}, {hi}]");
        assert!(hi - lo <= 1e-12 * value.abs().max(1.0), "{where_} too wide");
        assert!(
            lo <= parse("hi") && parse("lo") <= hi,
            "{where_} misses native [{}, {}]",
            parse("lo"),
            parse("hi")
        );
        if let Some((_, _, _, r)) = refs
            .iter()
            .find(|(f, m, rn, _)| *f == family && *m == model && *rn == n)
        {
            let r = Exact::parse(r).unwrap();
            assert!(
                r.cmp_exact(&Exact::from_f64(lo)).is_ge()
                    && r.cmp_exact(&Exact::from_f64(hi)).is_le(),
                "{where_} misses the reference"
            );
            checked_against_reference += 1;
        }
    }
    // every exponential row of the unscaled and scaled families, and the power rows with a reference
    assert!(
        checked_against_reference >= 12 + 4,
        "{checked_against_reference}"
    );
}

/// A measured list of 10^6 layers (the longest accepted), through the page's path: the pasted
/// text goes through `parseList`, its `Float64Array` into `new Plan`, then `evaluate` and
/// `curve`. Each enclosure must contain an independent double-double sum of the terms (made here,
/// not by the core) and be at most 1e-12 wide; one entry more is refused with the limit.
#[wasm_bindgen_test]
fn a_million_layer_list_evaluates_in_wasm() {
    let values: Vec<f64> = (1..=1_000_000u32)
        .map(|l| {
            let lf = f64::from(l);
            lf.powf(0.4) * (1.0 + 0.9 * lf.sin()) + 1e-3
        })
        .collect();
    let text = values
        .iter()
        .map(|v| v.to_string())
        .collect::<Vec<_>>()
        .join("\n");
    let parsed = api::parse_list(&text).unwrap();
    assert_eq!(
        parsed, values,
        "shortest decimals read back to the same doubles"
    );
    let request = js(r#"{"family":"sqrt-scaled","a":20,"b":3,"variance":{"kind":"measured"}}"#);
    Reflect::set(
        &get(&request, "variance"),
        &"values".into(),
        &Float64Array::from(&parsed[..]),
    )
    .unwrap();
    let product = api::Plan::new(&request).unwrap();
    assert_eq!(product.max_depth(), 1e6);
    // independent: sum of ln(1 + A x + B x^2), x = l^-1/2 / sigma_l, in double-double
    let (mut hi, mut lo) = (0.0f64, 0.0f64);
    let mut sums = Vec::new();
    for (i, v) in values.iter().enumerate() {
        let x = ((i + 1) as f64).powf(-0.5) / v.sqrt();
        let g = (20.0 * x + 3.0 * x * x).ln_1p();
        let s = hi + g;
        let bb = s - hi;
        lo += (hi - (s - bb)) + (g - bb);
        hi = s;
        sums.push(hi + lo);
    }
    for n in [1usize, 64, 99_999, 999_999, 1_000_000] {
        let ev = product.evaluate(&JsValue::from_f64(n as f64)).unwrap();
        let (value, lo, hi) = (
            num(&ev, "log_product.value"),
            num(&ev, "log_product.lo"),
            num(&ev, "log_product.hi"),
        );
        // the independent sum's own rounding: a few ulps per term, all terms positive
        let d = sums[n - 1];
        let de = 8.0 * f64::EPSILON * d;
        assert!(lo <= d + de && d - de <= hi, "N = {n}: [{lo}, {hi}] vs {d}");
        assert!(
            hi - lo <= 1e-12 * value,
            "N = {n}: width {} of {value}",
            hi - lo
        );
    }
    let ns = api::depth_grid(1e6, 1000.0).unwrap();
    let curve = product.curve("log-product", &ns).unwrap();
    for (n, v) in ns.iter().zip(&curve) {
        let d = sums[*n as usize - 1];
        assert!((v - d).abs() <= 1e-12 * d, "curve at N = {n}: {v} vs {d}");
    }
    let longer = format!("{text}\n1");
    let msg = thrown_message(api::parse_list(&longer).unwrap_err());
    assert!(msg.contains("at most 1000000"), "{msg}");
}
