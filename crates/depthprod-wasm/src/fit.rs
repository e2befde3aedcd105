//! `fitPowerLaw(values)`: argument translation for the core's least-squares power-law fit.

use crate::to_js;
use serde::Serialize;
use wasm_bindgen::prelude::*;

#[derive(Serialize)]
struct FitOut {
    #[serde(flatten)]
    fit: depthprod::PowerFit,
    /// c l^q at l = 1..L, for drawing the fit beside the data.
    fitted: Vec<f64>,
}

/// `fitPowerLaw(Float64Array | number[])` → `{c, q, rms_log_residual, count, fitted}`: the power
/// law sigma_l^2 = c l^q that best fits a measured list (a statistic, not an enclosure).
#[wasm_bindgen(js_name = fitPowerLaw)]
pub fn fit_power_law(values: &[f64]) -> Result<JsValue, JsError> {
    let fit = depthprod::fit_power_law(values)?;
    to_js(&FitOut {
        fitted: fit.fitted(),
        fit,
    })
}
