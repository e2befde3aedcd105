//! # depthprod-wasm: the browser's door to the `depthprod` core
//!
//! A thin translation layer and nothing else: JavaScript values in (read field by field, see
//! `input.rs`),
//! core calls, plain JavaScript objects or `Float64Array`s out. No mathematics lives here. Every
//! core [`depthprod::Error`] becomes a thrown JavaScript `Error` whose message is the core's
//! `Display` string, so the page can show it verbatim next to the control that caused it.
//!
//! The exported API (JavaScript names):
//!
//! | export | arguments | returns |
//! |---|---|---|
//! | `evaluate(request)` | `{family, a, b, variance, n}` | the core `Evaluation` as a plain object `{family, n, log_product, limit, tail, divergent, zeta_bound, unresolved}` |
//! | `curve(params, kind, ns)` | params without `n`; a core curve kind (`'log-product'`, `'remainder'`, `'tail'`, ...); `Float64Array` | `Float64Array`, same length as `ns` |
//! | `depthGrid(nMax, count)` | numbers | `Float64Array` of log-spaced integer depths |
//! | `parseList(text)` | string | `Float64Array` of variances |
//! | `closedForms({a, b, c, q or eps, lambda, n})` | numbers or decimal strings (all but `a`, `b` optional) | `{zeta_bound, eq65: {eps, exponent_at_n, limit}, exponential_bound, unresolved}`, every number an enclosure `{value, lo, hi}`, `null` where it does not apply |
//! | `rotation(theta, r, n)` | `theta` a number or a decimal string, `r` and `n` numbers | `{angle, matrix: [m00, m01, m10, m11], norm, enclosures: {angle, reduced, matrix}}`: central values and their enclosures `{value, lo, hi}`, for the exact theta |
//! | `new Plan(params)` | params without `n` | a prepared product: `.evaluate(n)`, `.logProduct(n)` (`Float64Array [value, lo, hi]`), `.curve(kind, ns)`, `.curveChecked(kind, ns)`, `.curveBand(kind, ns)`, `.growth()`, `.maxDepth()`, `.free()` |
//! | `product.growth()` | | `{class, exponent, coefficient, log_coefficient, constant, reason}` (below) |
//! | `version()` | | the crate version |
//!
//! (wasm-bindgen adds `default` and `initSync`, the loaders, and `start`, the panic hook that
//! `init` runs.)
//!
//! **Numbers.** Every numeric parameter (`a`, `b`, `c`, `q`, `lambda`, `eps`, `theta`) is a JS number or a
//! decimal string, the text the user typed (`'0.4'`, `'-2.5'`, `'1e-3'`). A string means the
//! exact rational it denotes: every enclosure contains the value for that exact input, and
//! convergence, divergence and resonance (p - 1, k p - 1) are decided on it. A number means its
//! own exact double value.
//!
//! `variance` is `{kind: 'power', c, q}`, `{kind: 'power', c, eps}` (q = 2 - eps exactly),
//! `{kind: 'exponential', c, lambda}` or
//! `{kind: 'measured', values}` where `values` is an array or a `Float64Array` (copied once).
//! `n` is a number (an integer in 1..=1e18, or `Infinity`) or a string the core parses
//! (`'1e6'`, `'10^6'`, `'inf'`, ...).
//!
//! **Growth** (`product.growth()`), decided by the core on the exact inputs; an enclosure is
//! `{value, lo, hi}`, absent fields are `null`:
//!
//! | `class` | meaning | `exponent` | `coefficient` | `log_coefficient` | `constant` |
//! |---|---|---|---|---|---|
//! | `'convergent'` | P_N has a finite limit | `null` | `null` | `null` | log of the limit |
//! | `'power'` | P_N ~ e^C N^a | a | `null` | a (the log N coefficient) | C |
//! | `'stretched-exponential'` | log P_N ~ coefficient N^(1-p) | 1 - p | c_1 kappa/(1 - p) (the leading k) | the log N coefficient when some k p = 1, else `null` | C |
//! | `'exponential'` | log P_N ~ coefficient N (no supported parameters reach it) | 1 | | | |
//! | `'finite-list'` | a measured list: no N -> infinity | `null` | `null` | `null` | `null` |
//!
//! `reason` is `null`, or a sentence saying why a number of that row is missing (e.g. C not
//! resolvable in double precision). `evaluate` likewise lists every missing quantity in
//! `unresolved: [{quantity, reason}]` (`quantity` names the `null` field: `'constant'`, `'limit'`).

use depthprod::{CurveKind, Depth, Error, Params, ParamsInput};
use js_sys::Reflect;
use serde::Serialize;
use wasm_bindgen::prelude::*;

mod closed;
mod fit;
mod input;

pub use closed::{closed_forms, rotation};
pub use fit::fit_power_law;

/// Installs the panic hook so that a Rust panic shows its message in the browser console
/// instead of a bare `unreachable` trap. `init()` runs it; wasm-bindgen also exports it as
/// `start`, which is harmless to call again.
#[wasm_bindgen(start)]
fn start() {
    console_error_panic_hook::set_once();
}

/// The crate version (the workspace version), e.g. `"0.1.0"`.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

/// Everything at one depth: `evaluate({family, a, b, variance, n})`.
///
/// Returns the core `Evaluation` as a plain object
/// `{family, n, log_product, limit, tail, divergent, zeta_bound}`; absent parts are `null`, and
/// `n` is a number (`null` for N = infinity).
#[wasm_bindgen]
pub fn evaluate(request: JsValue) -> Result<JsValue, JsError> {
    Plan::new(&request)?.evaluate(&field(&request, "n")?)
}

/// `curve(params, kind, ns)`: the curve's central value at each depth of `ns` (integers in
/// 1..=1e18), as a `Float64Array` of the same length. `kind` is any curve kind the core parses.
#[wasm_bindgen]
pub fn curve(params: JsValue, kind: &str, ns: &[f64]) -> Result<Vec<f64>, JsError> {
    Plan::new(&params)?.curve(kind, ns)
}

/// A prepared product, the wasm face of the core's [`depthprod::Plan`] and named like it, for
/// callers that ask several questions of one parameter set (the page, once per animation frame):
/// `new Plan(params)` validates and prepares once, then
/// `evaluate(n)` and `curve(kind, ns)` reuse that preparation. Call `free()` when done.
#[wasm_bindgen]
#[derive(Debug)]
pub struct Plan {
    plan: depthprod::Plan,
}

#[wasm_bindgen]
impl Plan {
    /// `new Plan({family, a, b, variance})`; throws the core's message on bad parameters.
    #[wasm_bindgen(constructor)]
    pub fn new(params: &JsValue) -> Result<Plan, JsError> {
        let input = input_from_js(params)?;
        Ok(Plan {
            plan: depthprod::Plan::from_input(&input)?,
        })
    }

    /// The growth class of the product as N -> infinity, decided by the core:
    /// `{class, exponent, coefficient, log_coefficient, constant, reason}` (see the crate docs).
    pub fn growth(&self) -> Result<JsValue, JsError> {
        to_js(&self.plan.growth())
    }

    /// Everything at depth `n` (a number, `Infinity`, or a string such as `'1e6'` or `'inf'`).
    pub fn evaluate(&self, n: &JsValue) -> Result<JsValue, JsError> {
        let depth = depth_from_js(n)?;
        let mut evaluation = self.plan.evaluate(depth)?;
        // serde-wasm-bindgen refuses u64 values above 2^53; a JS number is what the page wants, so
        // `n` is set by hand (exact for every n the page can type, nearest double otherwise).
        let n = evaluation.n.take();
        let out = to_js(&evaluation)?;
        let n = n.map_or(JsValue::NULL, |n| JsValue::from_f64(n as f64));
        Reflect::set(&out, &JsValue::from_str("n"), &n).map_err(js_to_error)?;
        Ok(out)
    }

    /// log P_N alone at depth `n` (as in `evaluate`), as a `Float64Array` `[value, lo, hi]`: the
    /// certified enclosure without the rest of the view, for callers that want one number. At
    /// N = infinity it is the limit; a divergent product has none and throws.
    #[wasm_bindgen(js_name = logProduct)]
    pub fn log_product(&self, n: &JsValue) -> Result<Vec<f64>, JsError> {
        let e = match depth_from_js(n)? {
            Depth::Finite(n) => self.plan.log_product(n)?,
            Depth::Infinite => match self.plan.limit()? {
                depthprod::Limit::Finite { log_limit } => log_limit,
                depthprod::Limit::Divergent { .. } => {
                    return Err(JsError::new(
                        "this product diverges: log P_N has no value at N = infinity (evaluate('inf') gives its leading terms and constant)",
                    ))
                }
            },
        };
        Ok(vec![e.value, e.lo, e.hi])
    }

    /// The curve `kind` at each depth of `ns`, as a `Float64Array` of the same length.
    pub fn curve(&self, kind: &str, ns: &[f64]) -> Result<Vec<f64>, JsError> {
        let kind: CurveKind = kind.parse()?;
        let mut out = vec![0.0; ns.len()];
        self.plan.curve(kind, ns, &mut out)?;
        Ok(out)
    }

    /// The curve `kind` at each depth of `ns` with the widest enclosure among its points:
    /// `{values: Float64Array, worst_width, worst_at}`. For the certified kinds (log-product,
    /// tail) `worst_width` is the core's `CurveWidth` (relative width, the 1e-12 goal's measure)
    /// and `worst_at` its depth; for reference curves both are `null`.
    #[wasm_bindgen(js_name = curveChecked)]
    pub fn curve_checked(&self, kind: &str, ns: &[f64]) -> Result<JsValue, JsError> {
        let kind: CurveKind = kind.parse()?;
        let mut out = vec![0.0; ns.len()];
        let width = self.plan.curve(kind, ns, &mut out)?;
        let object = js_sys::Object::new();
        let set = |name: &str, value: JsValue| {
            Reflect::set(&object, &JsValue::from_str(name), &value).map_err(js_to_error)
        };
        set("values", js_sys::Float64Array::from(out.as_slice()).into())?;
        let (worst, at) = width.map_or((JsValue::NULL, JsValue::NULL), |w| {
            (JsValue::from_f64(w.worst), JsValue::from_f64(w.at))
        });
        set("worst_width", worst)?;
        set("worst_at", at)?;
        Ok(object.into())
    }

    /// The enclosures of a certified curve (`log-product` or `tail`) at each depth of `ns`, as one
    /// `Float64Array` of 2 n numbers: the n lower ends, then the n upper ends.
    #[wasm_bindgen(js_name = curveBand)]
    pub fn curve_band(&self, kind: &str, ns: &[f64]) -> Result<Vec<f64>, JsError> {
        let kind: CurveKind = kind.parse()?;
        let mut out = vec![0.0; 2 * ns.len()];
        let (lo, hi) = out.split_at_mut(ns.len());
        self.plan.curve_bounds(kind, ns, lo, hi)?;
        Ok(out)
    }

    /// The largest depth this product accepts (1e18, or a measured list's length).
    #[wasm_bindgen(js_name = maxDepth)]
    pub fn max_depth(&self) -> f64 {
        self.plan.max_depth() as f64
    }
}

/// `depthGrid(nMax, count)`: up to `count` log-spaced integer depths from 1 to `nMax`.
/// `count` is clamped by the core (to 2..=100000 points).
#[wasm_bindgen(js_name = depthGrid)]
pub fn depth_grid(n_max: f64, count: f64) -> Result<Vec<f64>, JsError> {
    let n_max = match Depth::from_f64(n_max)? {
        Depth::Finite(n) => n,
        Depth::Infinite => return Err(Error::InvalidDepth { text: "inf".into() }.into()),
    };
    if count.is_nan() {
        return Err(Error::NotFinite { name: "count" }.into());
    }
    // Saturating conversion; the core clamps the count to its supported range.
    Ok(depthprod::depth_grid(n_max, count.max(0.0) as usize)?)
}

/// `parseList(text)`: a pasted list of measured variances as a `Float64Array`.
#[wasm_bindgen(js_name = parseList)]
pub fn parse_list(text: &str) -> Result<Vec<f64>, JsError> {
    Ok(depthprod::parse_list(text)?)
}

/// The serde configuration of every object this crate returns: plain objects, `null` for absent.
pub(crate) fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsError> {
    let serializer = serde_wasm_bindgen::Serializer::new()
        .serialize_maps_as_objects(true)
        .serialize_missing_as_null(true);
    value.serialize(&serializer).map_err(|e| {
        JsError::new(&format!(
            "internal error: could not convert a result to JavaScript: {e}"
        ))
    })
}

/// `object[name]`, refusing non-objects with a clear message.
pub(crate) fn field(object: &JsValue, name: &str) -> Result<JsValue, JsError> {
    if !object.is_object() {
        return Err(JsError::new(
            "invalid request: expected an object such as {family, a, b, variance, n}",
        ));
    }
    Reflect::get(object, &JsValue::from_str(name)).map_err(js_to_error)
}

/// Re-throws a JavaScript exception (from `Reflect`) as an `Error` with its message.
pub(crate) fn js_to_error(value: JsValue) -> JsError {
    let message = value
        .dyn_ref::<js_sys::Error>()
        .map(|e| String::from(e.message()))
        .or_else(|| value.as_string())
        .unwrap_or_else(|| format!("{value:?}"));
    JsError::new(&message)
}

/// `{family, a, b, variance}` into the core's `ParamsInput` (numbers or decimal strings; power
/// variance by `q` or by `eps`). Public (not exported to JavaScript) for the tests.
#[doc(hidden)]
pub fn input_from_js(value: &JsValue) -> Result<ParamsInput, JsError> {
    let variance = field(value, "variance")?;
    let (family, a, b) = input::shell(value)?;
    Ok(ParamsInput {
        family,
        a,
        b,
        variance: input::variance_input(&variance)?,
    })
}

/// `{family, a, b, variance}` (other fields, such as `n`, are ignored) into core `Params`.
/// Validation is the core's job (`Plan::new`). Public (but not exported to JavaScript) for the tests.
#[doc(hidden)]
pub fn params_from_js(value: &JsValue) -> Result<Params, JsError> {
    let variance = field(value, "variance")?;
    let (family, a, b) = input::double_shell(value)?;
    Ok(Params {
        family,
        a,
        b,
        variance: input::variance(&variance)?,
    })
}

/// A depth from JavaScript: a number (`Infinity` for the limit) or a string the core parses.
pub(crate) fn depth_from_js(value: &JsValue) -> Result<Depth, JsError> {
    if let Some(x) = value.as_f64() {
        return Ok(Depth::from_f64(x)?);
    }
    if let Some(s) = value.as_string() {
        return Ok(s.parse::<Depth>()?);
    }
    let text = if value.is_undefined() {
        "missing".to_string()
    } else {
        describe(value)
    };
    Err(Error::InvalidDepth { text }.into())
}

/// A short description of a JS value for error messages (its JSON, else its type).
fn describe(value: &JsValue) -> String {
    js_sys::JSON::stringify(value)
        .ok()
        .and_then(|s| s.as_string())
        .unwrap_or_else(|| value.js_typeof().as_string().unwrap_or_default())
}
