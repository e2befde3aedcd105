//! Compensated (Neumaier) summation that carries a rigorous bound on its own error.

/// Unit roundoff of f64: every correctly rounded operation has relative error at most `U`.
pub(crate) const U: f64 = f64::EPSILON / 2.0;

/// The one assumption the crate makes about its elementary functions: `ln`, `exp`, `exp_m1`,
/// `ln_1p`, `powf`, `sqrt`, `sin`, `cos` return a result within one ulp of the exact value
/// (relative error at most 2u) on every platform it runs on (the platform's libm natively, Rust's
/// `libm` port of musl on wasm32). `tests/libm_accuracy.rs` and the wasm tests measure the worst
/// error over the arguments the core uses against a double-double reference.
pub(crate) const LIBM_REL: f64 = 2.0 * U;

/// A running sum of terms, each given with a bound on its own error.
///
/// Error bound of the result (Neumaier's algorithm, Higham, *Accuracy and Stability*, 4.3):
/// |computed - exact| <= sum(term errors) + 2u |sum| + 2 n u^2 sum|x_i|, which `error()` returns
/// with a factor 2 of slack on the second-order part.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Accumulator {
    sum: f64,
    compensation: f64,
    abs_sum: f64,
    term_error: f64,
    count: u64,
}

impl Accumulator {
    pub(crate) fn new() -> Accumulator {
        Accumulator::default()
    }

    /// Adds `x`, whose own error is at most `err`.
    #[inline]
    pub(crate) fn add(&mut self, x: f64, err: f64) {
        let t = self.sum + x;
        if self.sum.abs() >= x.abs() {
            self.compensation += (self.sum - t) + x;
        } else {
            self.compensation += (x - t) + self.sum;
        }
        self.sum = t;
        self.abs_sum += x.abs();
        self.term_error += err;
        self.count += 1;
    }

    /// The compensated sum.
    #[inline]
    pub(crate) fn value(&self) -> f64 {
        self.sum + self.compensation
    }

    /// A rigorous bound on |value() - exact sum of the exact terms|.
    pub(crate) fn error(&self) -> f64 {
        let n = self.count as f64;
        (self.term_error + 2.0 * U * self.value().abs() + 4.0 * n * U * U * self.abs_sum)
            * (1.0 + 4.0 * U)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compensated_sum_is_accurate() {
        let mut acc = Accumulator::new();
        for _ in 0..10 {
            acc.add(1.0, 0.0);
            acc.add(1e-16, 0.0);
        }
        assert!((acc.value() - (10.0 + 1e-15)).abs() <= 1e-15 * 1e-3 + acc.error());
        let mut acc = Accumulator::new();
        acc.add(1e100, 0.0);
        acc.add(1.0, 0.0);
        acc.add(-1e100, 0.0);
        assert_eq!(acc.value(), 1.0);
    }
}
