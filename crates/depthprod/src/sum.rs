//! Compensated (Neumaier) summation that carries a rigorous bound on its own error.

/// Unit roundoff of f64: every correctly rounded operation has relative error at most `U`.
pub(crate) const U: f64 = f64::EPSILON / 2.0;

/// The one assumption the crate makes about its elementary functions: `ln`, `exp`, `exp_m1`,
/// `ln_1p`, `powf` and `sin` return a result within one ulp of the exact value (relative error at
/// most 2u = 2^-52) on every platform it runs on (the platform's libm natively, Rust's `libm` port
/// of musl on wasm32); `sqrt` is correctly rounded by IEEE 754 (the core uses no fused
/// multiply-add). Every slack factor of the core's bounds that covers an elementary function is a
/// multiple of this (docs/MATH.md
/// §5.7). `crates/depthprod/tests/libm_accuracy.rs` (native) and
/// `crates/depthprod-wasm/tests/libm_accuracy.rs` (wasm32, in node) measure the worst error of
/// each over the arguments the core uses against a double-double reference and fail if it exceeds
/// this. (The rotation matrix's `sin_cos` is a plain floating-point value, not an enclosure, and
/// relies on nothing here.)
pub const LIBM_REL: f64 = 2.0 * U;

/// a b - fl(a b), exactly, for a small integer `k` (|k| < 2^26) and a finite double `b` whose
/// product is normal: Dekker's product with Veltkamp's split of b into 26-bit halves (k times a
/// half is exact, and so is every step: Dekker 1971), without a fused multiply-add, which wasm32
/// lacks in hardware (the software `fma` cost the power plan one call per series term).
pub(crate) fn small_product_error(k: f64, b: f64) -> f64 {
    debug_assert!(k.fract() == 0.0 && k.abs() < (1u64 << 26) as f64);
    let p = k * b;
    let c = 134_217_729.0 * b; // 2^27 + 1
    let hi = c - (c - b);
    let lo = b - hi;
    (k * hi - p) + k * lo
}

/// A running sum of terms, each given with a bound on its own error.
///
/// Error bound of the result: the terms' own errors plus Ogita-Rump-Oishi's bound for compensated
/// summation, u |sum| + gamma_{n-1}^2 sum |x_i| (see `error()`).
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

    /// Adds `x`, whose own error is at most `err`. (Not inlined in wasm: its many call sites
    /// cost the explorer's module about a kilobyte gzipped there; natively it is inlined. The
    /// per-term loops call [`Self::add_inlined`].)
    #[cfg_attr(target_arch = "wasm32", inline(never))]
    #[cfg_attr(not(target_arch = "wasm32"), inline)]
    pub(crate) fn add(&mut self, x: f64, err: f64) {
        self.add_inlined(x, err);
    }

    /// [`Self::add`], always inlined: for the loops that add one term per layer or quadrature
    /// node.
    #[inline(always)]
    pub(crate) fn add_inlined(&mut self, x: f64, err: f64) {
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
        // Ogita, Rump and Oishi, "Accurate sum and dot product", SIAM J. Sci. Comput. 26 (2005),
        // Prop. 4.5 (Sum2; Neumaier's branch is the same error-free TwoSum):
        // |res - s| <= u |s| + gamma_{n-1}^2 sum |x_i|, gamma_k = k u / (1 - k u).
        // 2u |value| covers u |s| (|s| <= |value| (1 + u) + the second-order term).
        let k = self.count.saturating_sub(1) as f64 * U;
        let gamma = k / (1.0 - k);
        (self.term_error + 2.0 * U * self.value().abs() + gamma * gamma * self.abs_sum)
            * (1.0 + 4.0 * U)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_product_error_is_the_fused_one() {
        let mut y = 0x2545_f491_4f6c_dd1du64;
        for i in 0..100_000u64 {
            y ^= y << 13;
            y ^= y >> 7;
            y ^= y << 17;
            let b = f64::from_bits((y >> 2) | 0x3000_0000_0000_0000)
                * if y & 1 == 1 { -1.0 } else { 1.0 };
            let k = (i % 1000 + 1) as f64;
            assert_eq!(
                small_product_error(k, b),
                k.mul_add(b, -(k * b)),
                "{k} {b:e}"
            );
        }
    }

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
