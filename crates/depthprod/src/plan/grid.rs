//! Log-spaced depth grids for the plots.

use crate::{Depth, Error};

/// `count` integer depths from 1 to `n_max`, log-spaced, strictly increasing (so fewer than
/// `count` when n_max is small). `n_max` must be a valid depth.
pub fn depth_grid(n_max: u64, count: usize) -> Result<Vec<f64>, Error> {
    let _ = Depth::finite(n_max)?;
    let count = count.clamp(2, 100_000);
    let top = (n_max as f64).ln();
    let mut out: Vec<f64> = Vec::with_capacity(count);
    for i in 0..count {
        let n = (top * i as f64 / (count - 1) as f64)
            .exp()
            .round()
            // max/min, not f64::clamp: clamp's NaN check formats floats, which the wasm
            // module otherwise does without (see `crate::decimal`)
            .max(1.0)
            .min(n_max as f64);
        if out.last().is_none_or(|&last| n > last) {
            out.push(n);
        }
    }
    if out.last() != Some(&(n_max as f64)) {
        out.push(n_max as f64);
    }
    Ok(out)
}
