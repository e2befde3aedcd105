//! The fits of the measured variances: least squares of log sigma_l^2 on log l (power law) or on
//! l (exponential), with 95% Student-t intervals of the coefficients.

use crate::report::Fit;

/// Two-sided 95% Student-t quantile t_{0.975, nu}: bisection on the CDF, the density integrated by
/// composite Simpson (4000 panels; the integrand is smooth and bounded, error far below 1e-8).
pub fn student_t_975(nu: f64) -> f64 {
    let lnc = libm::lgamma((nu + 1.0) / 2.0)
        - libm::lgamma(nu / 2.0)
        - 0.5 * libm::log(nu * std::f64::consts::PI);
    let dens = |t: f64| libm::exp(lnc - (nu + 1.0) / 2.0 * libm::log1p(t * t / nu));
    let half_mass = |x: f64| {
        let n = 4000;
        let h = x / n as f64;
        let mut s = dens(0.0) + dens(x);
        for i in 1..n {
            s += dens(i as f64 * h) * if i % 2 == 1 { 4.0 } else { 2.0 };
        }
        s * h / 3.0
    };
    let (mut lo, mut hi) = (0.0, 1000.0);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if half_mass(mid) < 0.475 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Least squares y = a + b x; returns c = e^a, b, their 95% intervals and R^2.
pub(crate) fn log_linear_fit(xs: &[f64], ys: &[f64]) -> Option<Fit> {
    let n = xs.len();
    if n < 2 || ys.iter().any(|y| !y.is_finite()) {
        return None;
    }
    let nf = n as f64;
    let mx = xs.iter().sum::<f64>() / nf;
    let my = ys.iter().sum::<f64>() / nf;
    let sxx: f64 = xs.iter().map(|x| (x - mx) * (x - mx)).sum();
    let sxy: f64 = xs.iter().zip(ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let syy: f64 = ys.iter().map(|y| (y - my) * (y - my)).sum();
    if sxx <= 0.0 {
        return None;
    }
    let b = sxy / sxx;
    let a = my - b * mx;
    let ssr: f64 = xs
        .iter()
        .zip(ys)
        .map(|(x, y)| (y - a - b * x).powi(2))
        .sum();
    let r2 = if syy > 0.0 { 1.0 - ssr / syy } else { 1.0 };
    let (c_ci, rate_ci) = if n >= 3 {
        let s2 = ssr / (nf - 2.0);
        let t = student_t_975(nf - 2.0);
        let se_b = (s2 / sxx).sqrt();
        let se_a = (s2 * (1.0 / nf + mx * mx / sxx)).sqrt();
        (
            Some([libm::exp(a - t * se_a), libm::exp(a + t * se_a)]),
            Some([b - t * se_b, b + t * se_b]),
        )
    } else {
        (None, None)
    };
    Some(Fit {
        c: libm::exp(a),
        rate: b,
        c_ci,
        rate_ci,
        r2,
    })
}
