//! Closed forms and the rotation example: argument translation only.

use crate::{depth_from_js, from_js, js_to_error, to_js};
use depthprod::{Depth, Enclosure, Error};
use js_sys::{Object, Reflect};
use serde::{Deserialize, Serialize};
use wasm_bindgen::prelude::*;

/// `closedForms({a, b, c, q, lambda, n})`'s argument; everything but A and B is optional.
#[derive(Deserialize)]
struct ClosedFormsIn {
    a: f64,
    b: f64,
    #[serde(default)]
    c: Option<f64>,
    #[serde(default)]
    q: Option<f64>,
    #[serde(default)]
    lambda: Option<f64>,
    #[serde(default, with = "serde_wasm_bindgen::preserve")]
    n: JsValue,
}

/// Eq. 65's exponent at depth N and its limit, for eps = 2 - q.
#[derive(Serialize)]
struct Eq65 {
    eps: f64,
    /// `null` when no depth was given or N = infinity (where the exponent is `limit`).
    exponent_at_n: Option<f64>,
    limit: f64,
}

#[derive(Serialize)]
struct ClosedForms {
    /// (A/sqrt c) zeta(1 + q/2) + (B/c) zeta(2 + q); `null` without c and q.
    zeta_bound: Option<Enclosure>,
    /// `null` unless 0 < eps = 2 - q < 2.
    eq65: Option<Eq65>,
    /// `null` without c and lambda.
    exponential_bound: Option<f64>,
    /// Upper bound on the scaled tail after depth n from the integral test,
    /// (A/sqrt c) n^(-q/2)/(q/2) + (B/c) n^(-1-q)/(1+q); `null` without c, q or a finite n.
    zeta_tail_bound: Option<f64>,
}

/// `closedForms({a, b, c, q, lambda, n})` →
/// `{zeta_bound: {value, lo, hi} | null, eq65: {eps, exponent_at_n, limit} | null,
/// exponential_bound: number | null, zeta_tail_bound: number | null}`.
///
/// `n` is a number or a string as for `evaluate`; `exponent_at_n` is `null` when `n` is absent
/// or infinite (the core defines Eq. 65's exponent for finite depths; its limit is `limit`).
#[wasm_bindgen(js_name = closedForms)]
pub fn closed_forms(request: JsValue) -> Result<JsValue, JsError> {
    let ClosedFormsIn {
        a,
        b,
        c,
        q,
        lambda,
        n,
    } = from_js(request, "closed-form request")?;
    let zeta_bound = match (c, q) {
        (Some(c), Some(q)) => Some(depthprod::zeta_bound(a, b, c, q)?),
        _ => None,
    };
    let finite_n = if n.is_undefined() || n.is_null() {
        None
    } else {
        match depth_from_js(&n)? {
            Depth::Finite(n) => Some(n as f64),
            Depth::Infinite => None,
        }
    };
    let zeta_tail_bound = match (c, q, finite_n) {
        (Some(c), Some(q), Some(n)) => Some(depthprod::zeta_tail_bound(a, b, c, q, n)?),
        _ => None,
    };
    let eq65 = match q.map(|q| 2.0 - q) {
        Some(eps) if eps > 0.0 && eps < 2.0 => {
            let depth = if n.is_undefined() || n.is_null() {
                Depth::Infinite
            } else {
                depth_from_js(&n)?
            };
            let exponent_at_n = match depth {
                Depth::Finite(n) => Some(depthprod::eq65_exponent(a, b, eps, n as f64)?),
                Depth::Infinite => None,
            };
            Some(Eq65 {
                eps,
                exponent_at_n,
                limit: depthprod::eq65_limit(a, b, eps)?,
            })
        }
        _ => None,
    };
    let exponential_bound = match (c, lambda) {
        (Some(c), Some(lambda)) => Some(depthprod::exponential_bound(a, b, c, lambda)?),
        _ => None,
    };
    to_js(&ClosedForms {
        zeta_bound,
        eq65,
        exponential_bound,
        zeta_tail_bound,
    })
}

/// `rotation(theta, r, n)` → `{angle, matrix: [m00, m01, m10, m11], norm}`: the product of the
/// rotations by theta/l^r for l = 1..n (docs/MATH.md, section 3.5).
#[wasm_bindgen]
pub fn rotation(theta: f64, r: f64, n: f64) -> Result<JsValue, JsError> {
    // Only the conversion to the core's integer types is checked here; the core checks ranges.
    let r = whole(r, u32::MAX as f64)
        .ok_or_else(|| JsError::new(&format!("r = {r} must be a whole number")))?;
    let n = whole(n, u64::MAX as f64).ok_or(Error::InvalidDepth {
        text: format!("{n}"),
    })?;
    let rotation = depthprod::rotation_product(theta, r as u32, n)?;
    let out = Object::new();
    let set = |key: &str, value: JsValue| {
        Reflect::set(&out, &JsValue::from_str(key), &value).map_err(js_to_error)
    };
    set("angle", JsValue::from_f64(rotation.angle))?;
    set("matrix", to_js(&rotation.matrix)?)?;
    set("norm", JsValue::from_f64(rotation.norm))?;
    Ok(out.into())
}

/// `x` as a whole number in 0..=max, if it is one.
fn whole(x: f64, max: f64) -> Option<u64> {
    (x.is_finite() && x >= 0.0 && x <= max && x.fract() == 0.0).then_some(x as u64)
}
