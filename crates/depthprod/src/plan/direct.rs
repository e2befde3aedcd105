//! The direct engine: prefix sums for exponential variance (with a certified geometric tail)
//! and for measured lists.

use super::{down, up, EXP_MAX_TERMS, TOL};
use crate::sum::{Accumulator, U};
use crate::Bounds;

/// Direct summation for exponential variance (with a certified geometric tail) and measured lists.
#[derive(Debug, Clone)]
pub(super) struct DirectPlan {
    /// prefix[n] = sum_{l=1}^{n} g(l): (value, error).
    pub(super) prefix: Vec<(f64, f64)>,
    pub(super) len: usize,
    /// Upper bound on sum_{l > len} g(l) (exponential variance), `None` for a finite list.
    pub(super) tail: Option<f64>,
    /// For tail bounds at n < len under exponential variance: (A kappa, B kappa^2, lambda, extra power).
    pub(super) exp_shape: Option<(f64, f64, f64, f64)>,
}

impl DirectPlan {
    /// `typed` = (relative distance of the typed A, B and kappa = c^(-1/2) from their doubles
    /// combined, the same for lambda): the tail bounds then hold for every parameter in that box
    /// (larger A kappa, B kappa^2 and a smaller lambda give a larger geometric bound).
    pub(super) fn exponential(
        a: f64,
        b: f64,
        c: f64,
        lambda: f64,
        extra: f64,
        typed: (f64, f64),
    ) -> DirectPlan {
        let kappa = 1.0 / c.sqrt();
        let mut prefix = vec![(0.0, 0.0)];
        let mut acc = Accumulator::new();
        let (up_ab, rel_lambda) = typed;
        // kappa and the products round (a few u): 8u covers them in the bound's arguments
        let grow = 1.0 + up_ab + 8.0 * U;
        let shape = (
            a * kappa * grow,
            b * kappa * kappa * grow * grow,
            lambda * (1.0 - rel_lambda),
            extra,
        );
        let mut tail = f64::INFINITY;
        for l in 1..=EXP_MAX_TERMS {
            let lf = l as f64;
            let x = kappa * (-0.5 * lambda * lf).exp() * lf.powf(-extra);
            let x_rel = (0.5 * lambda * lf + 8.0) * U;
            let g = (x * (a + b * x)).ln_1p();
            acc.add(g, (2.0 * x_rel + 7.0 * U) * g);
            prefix.push((acc.value(), acc.error()));
            if l % 16 == 0 || g == 0.0 {
                tail = exp_tail_bound(shape, l as u64);
                if tail <= TOL * acc.value().max(1.0) {
                    break;
                }
            }
        }
        let len = prefix.len() - 1;
        DirectPlan {
            prefix,
            len,
            tail: Some(exp_tail_bound(shape, len as u64).min(tail)),
            exp_shape: Some(shape),
        }
    }

    pub(super) fn measured(a: f64, b: f64, values: &[f64], extra: f64) -> DirectPlan {
        let mut prefix = Vec::with_capacity(values.len() + 1);
        prefix.push((0.0, 0.0));
        let mut acc = Accumulator::new();
        for (i, v) in values.iter().enumerate() {
            let lf = (i + 1) as f64;
            let x = lf.powf(-extra) / v.sqrt();
            let g = (x * (a + b * x)).ln_1p();
            acc.add(g, 20.0 * U * g);
            prefix.push((acc.value(), acc.error()));
        }
        DirectPlan {
            prefix,
            len: values.len(),
            tail: None,
            exp_shape: None,
        }
    }

    /// The number of prefix sums as a depth (depths are u64 everywhere: `n as usize` would
    /// truncate N >= 2^32 on wasm32).
    fn len_u64(&self) -> u64 {
        self.len as u64
    }

    pub(super) fn sum(&self, n: u64) -> (f64, f64) {
        if n <= self.len_u64() {
            // n <= len < 2^32 here, so the index is exact on every target
            self.prefix[n as usize]
        } else {
            // Beyond the stopping point: sum_{l <= len} plus at most the tail bound.
            let (v, e) = self.prefix[self.len];
            let t = self.tail.unwrap_or(0.0);
            (v + 0.5 * t, e + 0.5 * t)
        }
    }

    pub(super) fn tail(&self, n: u64) -> Option<Bounds> {
        let t = self.tail?;
        let shape = self.exp_shape?;
        if n < self.len_u64() {
            let (total, te) = self.prefix[self.len];
            let (part, pe) = self.prefix[n as usize];
            let d = total - part;
            let e = te + pe + U * d;
            Some(Bounds {
                lo: down(d - e).max(0.0),
                hi: up(d + e + t),
            })
        } else {
            Some(Bounds {
                lo: 0.0,
                hi: exp_tail_bound(shape, n),
            })
        }
    }
}

/// Upper bound on sum_{l > n} g(l) for exponential variance, from g <= A x + B x^2 and
/// x_l <= kappa (n+1)^-extra e^(-lambda l / 2): two geometric series,
/// A kappa e^(-lambda (n+1)/2) (n+1)^-extra / (1 - e^(-lambda/2)) + B kappa^2 (...)^2 / (1 - e^(-lambda)).
///
/// Each term is evaluated as exp(log of it), so that it never underflows to 0 while the truth is
/// positive: the log is computed with an absolute error below 1e-9 (a few roundings of numbers
/// below 1e7 in size, and ln/ln_1p/exp_m1 within one ulp, [`crate::sum::LIBM_REL`]), which
/// `+ 1e-9` covers; exp then rounds within one ulp (relative) when the result is normal, and
/// within one subnormal step (2^-1074 absolute) otherwise, which the final `next_up` covers. The
/// smallest bound returned while A or B is positive is therefore 2^-1074 (the smallest positive
/// double), never 0.
pub(super) fn exp_tail_bound((ak, bk2, lambda, extra): (f64, f64, f64, f64), n: u64) -> f64 {
    let n1 = n as f64 + 1.0;
    // log of (n+1)^-extra e^(-lambda (n+1)/2); n1 may round (n > 2^53): rounding down n1 only
    // raises the bound, and (n as f64) + 1 rounds to nearest, so use it minus one ulp
    let n1 = crate::enclosure::next_down(n1).max(1.0);
    let log_first = -0.5 * lambda * n1 - extra * n1.ln();
    let term = |coef: f64, log_x: f64, rate: f64| -> f64 {
        if coef == 0.0 {
            return 0.0;
        }
        // 1 - e^(-rate) = -expm1(-rate) > 0
        let log_t = coef.ln() + log_x - (-(-rate).exp_m1()).ln() + 1e-9;
        let t = log_t.exp();
        if t >= f64::MIN_POSITIVE {
            t * (1.0 + 2.0 * crate::sum::LIBM_REL)
        } else {
            crate::enclosure::next_up(t)
        }
    };
    let t1 = term(ak, log_first, 0.5 * lambda);
    let t2 = term(bk2, 2.0 * log_first, lambda);
    let sum = t1 + t2;
    // the sum rounds once (relative u when normal, absolute 2^-1075 when not)
    crate::enclosure::next_up(sum * (1.0 + U))
}
