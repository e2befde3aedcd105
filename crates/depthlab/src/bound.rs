//! The paper's bound beside the measurement: A and B of Eqs. 47-48, and the Eq. 9 / Eq. 15
//! products with the measured variances (and with the fitted power law), certified by the
//! `depthprod` core (docs/MATH.md §9).

use crate::model::Config;
use crate::report::{BoundReport, Fit, Interval};
use depthprod::{Family, Params, Plan, Variance};

/// Eqs. 47-48 (docs/MATH.md, section 9): A, B, and the factored reading of B.
pub fn paper_a_b(cfg: &Config) -> (f64, f64, f64) {
    let d = cfg.d as f64;
    let dff = cfg.d_ff as f64;
    let dh = cfg.d_head() as f64;
    let h = cfg.heads as f64;
    let s = cfg.tokens as f64;
    let sig2 = cfg.init_std * cfg.init_std;
    let ffn = sig2 * (d.sqrt() + dff.sqrt()).powi(2);
    let att_pref = 2.0 * d * h * (s.sqrt() + 2.0 + 1.0 / s.sqrt());
    let attn = att_pref * sig2 * (sig2 * d * dh.sqrt() + 1.0 + (dh / d).sqrt());
    let a = ffn + attn;
    let b = att_pref * sig2 * sig2 * d * dh.sqrt();
    (a, b, ffn * attn)
}

pub(crate) struct BoundParts {
    pub(crate) report: BoundReport,
    pub(crate) prefix_unscaled: Option<Vec<Interval>>,
    pub(crate) prefix_scaled: Option<Vec<Interval>>,
}

/// log P_n for n = 1..len with the measured list, each a certified enclosure from the core.
fn prefixes(family: Family, a: f64, b: f64, values: &[f64]) -> Result<Vec<Interval>, String> {
    let params = Params {
        family,
        a,
        b,
        variance: Variance::Measured {
            values: values.to_vec(),
        },
    };
    let plan = Plan::new(&params).map_err(|e| e.to_string())?;
    (1..=values.len() as u64)
        .map(|n| {
            plan.log_product(n)
                .map(Interval::from)
                .map_err(|e| e.to_string())
        })
        .collect()
}

/// log P_n of `family` with sigma_l^2 = c l^q, a certified enclosure for any c > 0 whose
/// effective coefficients A/sqrt(c) and B/c are in the core's range (the lab's fit at the paper's
/// sigma = 0.02 gives c of about 4e-4). The core itself moves c into [`depthprod::C_RANGE`] by an
/// exact power of 4 (docs/MATH.md §5.5a), so this is one call.
pub fn power_law_product(
    family: Family,
    a: f64,
    b: f64,
    c: f64,
    q: f64,
    n: u64,
) -> Result<Interval, depthprod::Error> {
    Plan::new(&Params::power(family, a, b, c, q))
        .and_then(|p| p.log_product(n))
        .map(Interval::from)
}

pub(crate) fn bound_report(cfg: &Config, variances: &[f64], fit: Option<&Fit>) -> BoundParts {
    let (a, b, b_factored) = paper_a_b(cfg);
    let mut errors = Vec::new();
    let mut take = |family: Family| match prefixes(family, a, b, variances) {
        Ok(p) => Some(p),
        Err(e) => {
            errors.push(format!(
                "{} product with the measured variances: {e}",
                family.name()
            ));
            None
        }
    };
    let prefix_unscaled = take(Family::Unscaled);
    let prefix_scaled = take(Family::Scaled);
    let n = variances.len() as u64;
    let mut power = |family: Family| -> Option<Interval> {
        let f = fit?;
        match power_law_product(family, a, b, f.c, f.rate, n) {
            Ok(e) => Some(e),
            Err(e) => {
                errors.push(format!(
                    "{} product with the fitted power law c = {:.6e}, q = {:.6}: {e}",
                    family.name(),
                    f.c,
                    f.rate
                ));
                None
            }
        }
    };
    let unscaled_power_fit = power(Family::Unscaled);
    let scaled_power_fit = power(Family::Scaled);
    BoundParts {
        report: BoundReport {
            a,
            b,
            b_factored,
            sigma: cfg.init_std,
            unscaled: prefix_unscaled.as_ref().map(|p| p[p.len() - 1]),
            scaled: prefix_scaled.as_ref().map(|p| p[p.len() - 1]),
            unscaled_power_fit,
            scaled_power_fit,
            errors,
        },
        prefix_unscaled,
        prefix_scaled,
    }
}
