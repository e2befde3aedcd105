//! The power law c · l^q that best describes a measured variance list, for the page's "use the fitted
//! power law" button. This is a statistic of the data (ordinary least squares of ln sigma_l^2 on
//! ln l), not a certified quantity: the page labels it a fit, and the products it leads to are then
//! evaluated (and certified) for the rounded c and q the reader accepts.

use crate::error::Error;

/// `ln sigma_l^2 ~ ln c + q ln l`, fitted over l = 1..L.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct PowerFit {
    /// The scale c > 0 of sigma_l^2 = c l^q.
    pub c: f64,
    /// The exponent q.
    pub q: f64,
    /// Root-mean-square residual of ln sigma_l^2 about the fitted line (0 for an exact power law).
    pub rms_log_residual: f64,
    /// How many values were fitted (L).
    pub count: usize,
}

impl PowerFit {
    /// The fitted sigma_l^2 = c l^q at l = 1..=count, for drawing the fit beside the data.
    pub fn fitted(&self) -> Vec<f64> {
        (1..=self.count)
            .map(|l| self.c * (l as f64).powf(self.q))
            .collect()
    }
}

/// Least-squares fit of `ln values[l-1]` against `ln l`, l = 1..L (mean-centred two-pass sums, so a
/// long list of nearly equal values does not cancel catastrophically).
///
/// Errors: fewer than two values, or a value that is not finite and positive (the message names
/// the entry, as `parse_list` does).
pub fn fit_power_law(values: &[f64]) -> Result<PowerFit, Error> {
    if values.len() < 2 {
        return Err(Error::InvalidList {
            reason: format!(
                "a power law needs at least 2 values to fit, the list has {}",
                values.len()
            ),
        });
    }
    if let Some((i, v)) = values
        .iter()
        .enumerate()
        .find(|(_, v)| !(v.is_finite() && **v > 0.0))
    {
        return Err(Error::InvalidList {
            reason: format!(
                "value {} (sigma_{}^2 = {}) must be a positive finite number",
                i + 1,
                i + 1,
                crate::decimal::short(*v)
            ),
        });
    }
    let n = values.len() as f64;
    let xs = (1..=values.len()).map(|l| (l as f64).ln());
    let x_mean = xs.clone().sum::<f64>() / n;
    let y_mean = values.iter().map(|v| v.ln()).sum::<f64>() / n;
    let (mut sxx, mut sxy) = (0.0, 0.0);
    for (x, v) in xs.clone().zip(values) {
        let dx = x - x_mean;
        sxx += dx * dx;
        sxy += dx * (v.ln() - y_mean);
    }
    let q = sxy / sxx;
    let ln_c = y_mean - q * x_mean;
    let ss: f64 = xs
        .zip(values)
        .map(|(x, v)| (v.ln() - (ln_c + q * x)).powi(2))
        .sum();
    Ok(PowerFit {
        c: ln_c.exp(),
        q,
        rms_log_residual: (ss / n).sqrt(),
        count: values.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exact_power_law_is_recovered() {
        let values: Vec<f64> = (1..=24).map(|l| 2.0 * (l as f64).powf(1.5)).collect();
        let f = fit_power_law(&values).unwrap();
        assert!((f.q - 1.5).abs() < 1e-12, "{f:?}");
        assert!((f.c - 2.0).abs() < 1e-12, "{f:?}");
        assert!(f.rms_log_residual < 1e-12, "{f:?}");
        assert_eq!(f.count, 24);
        let fitted = f.fitted();
        assert_eq!(fitted.len(), 24);
        for (a, b) in fitted.iter().zip(&values) {
            assert!((a - b).abs() <= 1e-12 * b, "{a} vs {b}");
        }
    }

    #[test]
    fn the_correction_case_sigma_squared_equals_l() {
        let values: Vec<f64> = (1..=8).map(|l| l as f64).collect();
        let f = fit_power_law(&values).unwrap();
        assert!(
            (f.q - 1.0).abs() < 1e-13 && (f.c - 1.0).abs() < 1e-13,
            "{f:?}"
        );
    }

    #[test]
    fn scatter_shows_in_the_residual_and_the_slope_stays_close() {
        // sigma_l^2 = l, every other value doubled: the slope moves little, the residual is ln(2)/2.
        let values: Vec<f64> = (1..=200)
            .map(|l| if l % 2 == 0 { 2.0 * l as f64 } else { l as f64 })
            .collect();
        let f = fit_power_law(&values).unwrap();
        assert!((f.q - 1.0).abs() < 0.01, "{f:?}");
        assert!(
            (f.rms_log_residual - std::f64::consts::LN_2 / 2.0).abs() < 0.01,
            "{f:?}"
        );
    }

    #[test]
    fn too_short_or_bad_lists_are_refused_with_a_message() {
        let e = fit_power_law(&[3.0]).unwrap_err().to_string();
        assert!(e.contains("at least 2 values"), "{e}");
        let e = fit_power_law(&[1.0, 0.0, 3.0]).unwrap_err().to_string();
        assert!(e.contains("value 2"), "{e}");
        let e = fit_power_law(&[1.0, f64::NAN]).unwrap_err().to_string();
        assert!(e.contains("value 2"), "{e}");
    }
}
