//! Requests from JavaScript, read field by field with `Reflect`.
//!
//! Why not serde: the derived deserializers of the core's internally tagged variance enums were
//! the two largest functions of the module (about 30 KB of 230 KB of code, issue 11); plain reads
//! of a handful of fields do the same job in a few hundred bytes. Each refusal names the part of
//! the request and the field (`invalid parameters: missing field \`a\``), as serde's did.

use crate::js_to_error;
use depthprod::{ClosedFormsInput, Error, Family, Number, Variance, VarianceInput};
use js_sys::{Array, Float64Array, Reflect};
use wasm_bindgen::prelude::*;

/// `object[name]`, or `None` when it is `undefined` or `null` (serde's `Option` reading).
fn get(object: &JsValue, name: &str) -> Result<Option<JsValue>, JsError> {
    let value = Reflect::get(object, &JsValue::from_str(name)).map_err(js_to_error)?;
    Ok((!value.is_undefined() && !value.is_null()).then_some(value))
}

fn refuse(what: &str, detail: &str) -> JsError {
    JsError::new(&format!("invalid {what}: {detail}"))
}

fn required(object: &JsValue, name: &str, what: &str) -> Result<JsValue, JsError> {
    get(object, name)?.ok_or_else(|| refuse(what, &format!("missing field `{name}`")))
}

/// A JS number (its exact double) or a decimal string (the exact rational it denotes).
fn number_of(value: JsValue, name: &str, what: &str) -> Result<Number, JsError> {
    if let Some(x) = value.as_f64() {
        return Ok(Number::Double(x));
    }
    if let Some(s) = value.as_string() {
        return Ok(Number::Text(s));
    }
    Err(refuse(
        what,
        &format!("`{name}` must be a number or a decimal string"),
    ))
}

/// A number argument given on its own (`rotation`'s theta).
pub(crate) fn number_value(value: JsValue, name: &str, what: &str) -> Result<Number, JsError> {
    number_of(value, name, what)
}

fn number(object: &JsValue, name: &str, what: &str) -> Result<Number, JsError> {
    number_of(required(object, name, what)?, name, what)
}

fn optional_number(object: &JsValue, name: &str, what: &str) -> Result<Option<Number>, JsError> {
    get(object, name)?
        .map(|v| number_of(v, name, what))
        .transpose()
}

/// A JS number only (the double-valued `Params` of [`crate::params_from_js`]).
fn double(object: &JsValue, name: &str, what: &str) -> Result<f64, JsError> {
    required(object, name, what)?
        .as_f64()
        .ok_or_else(|| refuse(what, &format!("`{name}` must be a number")))
}

/// `family`: one of the core's names (its `FromStr` error lists them).
pub(crate) fn family(object: &JsValue) -> Result<Family, JsError> {
    let value = required(object, "family", "parameters")?;
    let text = value.as_string().ok_or_else(|| {
        refuse(
            "parameters",
            "`family` must be a string: unscaled, scaled, harmonic or sqrt-scaled",
        )
    })?;
    Ok(text.parse::<Family>()?)
}

/// `{family, a, b}` of a request (numbers or decimal strings).
pub(crate) fn shell(object: &JsValue) -> Result<(Family, Number, Number), JsError> {
    Ok((
        family(object)?,
        number(object, "a", "parameters")?,
        number(object, "b", "parameters")?,
    ))
}

/// `{family, a, b}` as doubles.
pub(crate) fn double_shell(object: &JsValue) -> Result<(Family, f64, f64), JsError> {
    Ok((
        family(object)?,
        double(object, "a", "parameters")?,
        double(object, "b", "parameters")?,
    ))
}

const MODEL: &str = "variance model";

/// The variance model's `kind`, refusing non-objects and unknown kinds by name.
fn kind(value: &JsValue) -> Result<String, JsError> {
    if !value.is_object() {
        return Err(refuse(
            MODEL,
            "expected an object such as {kind: 'power', c, q}",
        ));
    }
    let kind = required(value, "kind", MODEL)?;
    let kind = kind
        .as_string()
        .ok_or_else(|| refuse(MODEL, "`kind` must be a string"))?;
    match kind.as_str() {
        "power" | "exponential" | "measured" => Ok(kind),
        other => Err(refuse(
            MODEL,
            &format!("unknown kind {other:?}: use one of power, exponential, measured"),
        )),
    }
}

/// `values` of a measured model: a `Float64Array` (what `parseList` returns, copied in one go)
/// or an array of numbers.
fn measured_values(value: &JsValue) -> Result<Vec<f64>, JsError> {
    let values = required(value, "values", MODEL)?;
    if let Some(array) = values.dyn_ref::<Float64Array>() {
        return Ok(array.to_vec());
    }
    if !Array::is_array(&values) {
        return Err(Error::InvalidList {
            reason: "`values` must be an array or a Float64Array of numbers".into(),
        }
        .into());
    }
    Array::from(&values)
        .iter()
        .enumerate()
        .map(|(i, v)| {
            v.as_f64().ok_or_else(|| {
                Error::InvalidList {
                    reason: format!("entry {} of `values` is not a number", i + 1),
                }
                .into()
            })
        })
        .collect()
}

/// `{kind: 'power', c, q | eps}`, `{kind: 'exponential', c, lambda}` or `{kind: 'measured',
/// values}`, numbers or decimal strings.
pub(crate) fn variance_input(value: &JsValue) -> Result<VarianceInput, JsError> {
    Ok(match kind(value)?.as_str() {
        "power" => VarianceInput::Power {
            c: number(value, "c", MODEL)?,
            q: optional_number(value, "q", MODEL)?,
            eps: optional_number(value, "eps", MODEL)?,
        },
        "exponential" => VarianceInput::Exponential {
            c: number(value, "c", MODEL)?,
            lambda: number(value, "lambda", MODEL)?,
        },
        _ => VarianceInput::Measured {
            values: measured_values(value)?,
        },
    })
}

/// The same with doubles only (`q` required): the core's `Variance`.
pub(crate) fn variance(value: &JsValue) -> Result<Variance, JsError> {
    Ok(match kind(value)?.as_str() {
        "power" => Variance::Power {
            c: double(value, "c", MODEL)?,
            q: double(value, "q", MODEL)?,
        },
        "exponential" => Variance::Exponential {
            c: double(value, "c", MODEL)?,
            lambda: double(value, "lambda", MODEL)?,
        },
        _ => Variance::Measured {
            values: measured_values(value)?,
        },
    })
}

/// `{a, b, c?, q?, eps?, lambda?}` of `closedForms` (its `n` is read by the caller).
pub(crate) fn closed_forms_input(value: &JsValue) -> Result<ClosedFormsInput, JsError> {
    const WHAT: &str = "closed-form request";
    if !value.is_object() {
        return Err(refuse(WHAT, "expected an object such as {a, b, c, q, n}"));
    }
    Ok(ClosedFormsInput {
        a: number(value, "a", WHAT)?,
        b: number(value, "b", WHAT)?,
        c: optional_number(value, "c", WHAT)?,
        q: optional_number(value, "q", WHAT)?,
        eps: optional_number(value, "eps", WHAT)?,
        lambda: optional_number(value, "lambda", WHAT)?,
        n: None,
    })
}
