//! Closed forms and the rotation example: argument translation only.

use crate::{depth_from_js, input, js_to_error, to_js};
use depthprod::Error;
use js_sys::{Object, Reflect};
use wasm_bindgen::prelude::*;

/// `closedForms({a, b, c, q | eps, lambda, n})` → `{zeta_bound, eq65: {eps, exponent_at_n,
/// limit} | null, exponential_bound, unresolved: [{quantity, reason}]}`, every number an
/// enclosure `{value, lo, hi}` (see the core's `closed_forms`). Numbers may be JS numbers or
/// decimal strings; `n` a number or a string as for `evaluate` (`exponent_at_n` is `null` when
/// `n` is absent or infinite).
#[wasm_bindgen(js_name = closedForms)]
pub fn closed_forms(request: JsValue) -> Result<JsValue, JsError> {
    let n = if request.is_object() {
        Reflect::get(&request, &JsValue::from_str("n")).map_err(js_to_error)?
    } else {
        JsValue::UNDEFINED
    };
    let mut input = input::closed_forms_input(&request)?;
    input.n = if n.is_undefined() || n.is_null() {
        None
    } else {
        Some(depth_from_js(&n)?)
    };
    to_js(&depthprod::closed_forms(&input)?)
}

/// `rotation(theta, r, n)` → `{angle, matrix: [m00, m01, m10, m11], norm, enclosures: {angle,
/// reduced, matrix: [4]}}`: the product of the rotations by theta/l^r for l = 1..n (docs/MATH.md,
/// section 3.5). `theta` is a JS number (its exact double) or a decimal string (the exact
/// rational it denotes); `angle` and `matrix` are the central values of the enclosures
/// `{value, lo, hi}` in `enclosures`, each for that exact theta (`reduced` is the angle modulo
/// 2 pi). `norm` is exactly 1.
#[wasm_bindgen]
pub fn rotation(theta: JsValue, r: f64, n: f64) -> Result<JsValue, JsError> {
    // Only the conversion to the core's types is done here; the core checks ranges.
    let theta = input::number_value(theta, "theta", "rotation")?;
    let r = whole(r, u32::MAX as f64).ok_or_else(|| {
        JsError::new(&format!(
            "r = {} must be a whole number",
            depthprod::decimal::plain(r)
        ))
    })?;
    let n = whole(n, u64::MAX as f64).ok_or(Error::InvalidDepth {
        text: depthprod::decimal::plain(n),
    })?;
    let rotation = depthprod::rotation_product(&theta, r as u32, n)?;
    let out = Object::new();
    let set = |object: &Object, key: &str, value: JsValue| {
        Reflect::set(object, &JsValue::from_str(key), &value).map_err(js_to_error)
    };
    set(&out, "angle", JsValue::from_f64(rotation.angle.value))?;
    set(&out, "matrix", to_js(&rotation.matrix.map(|e| e.value))?)?;
    set(&out, "norm", JsValue::from_f64(rotation.norm))?;
    let enclosures = Object::new();
    set(&enclosures, "angle", to_js(&rotation.angle)?)?;
    set(&enclosures, "reduced", to_js(&rotation.reduced)?)?;
    set(&enclosures, "matrix", to_js(&rotation.matrix)?)?;
    set(&out, "enclosures", enclosures.into())?;
    Ok(out.into())
}

/// `x` as a whole number in 0..=max, if it is one.
fn whole(x: f64, max: f64) -> Option<u64> {
    (x.is_finite() && x >= 0.0 && x <= max && x.fract() == 0.0).then_some(x as u64)
}
