//! Shared helpers for the integration tests: a direct compensated sum, a tiny PRNG, and the
//! reference values of tests/reference/ with an exact containment check.

#![allow(dead_code)]

/// sum_{l=1}^{n} log(1 + A x_l + B x_l^2), x_l = kappa l^-p, Neumaier-compensated, with error estimate.
pub fn direct_sum(a: f64, b: f64, kappa: f64, p: f64, n: u64) -> (f64, f64) {
    let (mut sum, mut comp) = (0.0f64, 0.0f64);
    for l in 1..=n {
        let x = kappa * (l as f64).powf(-p);
        let g = (x * (a + b * x)).ln_1p();
        let t = sum + g;
        if sum.abs() >= g.abs() {
            comp += (sum - t) + g;
        } else {
            comp += (g - t) + sum;
        }
        sum = t;
    }
    let v = sum + comp;
    // each term carries a few ulps of relative error
    (v, 16.0 * f64::EPSILON * v.abs() + 1e-300)
}

/// (kappa, p) of a power-law family.
pub fn kappa_p(family: depthprod::Family, c: f64, q: f64) -> (f64, f64) {
    use depthprod::Family::*;
    match family {
        Unscaled => (1.0 / c.sqrt(), q / 2.0),
        Scaled => (1.0 / c.sqrt(), 1.0 + q / 2.0),
        SqrtScaled => (1.0 / c.sqrt(), (1.0 + q) / 2.0),
        Harmonic => (1.0, 1.0),
    }
}

/// xorshift64*: deterministic pseudo-random numbers for parameter sweeps.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_f64(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
    }
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next_f64()
    }
    pub fn log_range(&mut self, lo: f64, hi: f64) -> f64 {
        (lo.ln() + (hi.ln() - lo.ln()) * self.next_f64()).exp()
    }
    pub fn family(&mut self) -> depthprod::Family {
        depthprod::Family::ALL[(self.next_f64() * 4.0) as usize % 4]
    }
}

/// A file of the repository's tests/reference/ (independent high-precision values, see its
/// README) as JSON.
pub fn reference_json(name: &str) -> serde_json::Value {
    let path = format!(
        "{}/../../tests/reference/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Whether the enclosure contains the decimal reference value, decided exactly (no rounding of
/// the reference to a double, no slack).
pub fn contains_exactly(e: &depthprod::Enclosure, reference: &str) -> bool {
    use depthprod::exact::Exact;
    let r = Exact::parse(reference).expect("reference is a decimal");
    r.cmp_exact(&Exact::from_f64(e.lo)).is_ge() && r.cmp_exact(&Exact::from_f64(e.hi)).is_le()
}
