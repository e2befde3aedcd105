//! The accuracy the core assumes of its elementary functions, measured.
//!
//! The core states one assumption about `ln`, `exp`, `exp_m1`, `ln_1p`, `powf` and `sin`
//! (`depthprod::LIBM_REL`, defined in `src/sum.rs`): each returns a result within one ulp of the
//! exact value, a relative error of at most 2u = 2^-52. Every slack factor of the core's error
//! bounds that covers an elementary function rests on it. This module measures the worst error of
//! each function over the arguments the core gives it, against a double-double reference
//! (about 2^-100 relative) written here from error-free transformations (TwoSum, TwoProd with FMA)
//! and series only: the reference never calls the library under test (which only picks the
//! random arguments).
//!
//! It is shared, through `#[path]`, by `tests/libm_accuracy.rs` (native: the platform's libm) and
//! the wasm crate's `tests/libm_accuracy.rs` (wasm32: Rust's port of musl's libm, in node).

#![allow(dead_code)]

/// A double-double number hi + lo with |lo| <= ulp(hi)/2.
#[derive(Debug, Clone, Copy)]
pub struct Dd {
    pub hi: f64,
    pub lo: f64,
}

fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

fn quick_two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    (s, b - (s - a))
}

fn two_prod(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    (p, a.mul_add(b, -p))
}

impl Dd {
    pub fn from(x: f64) -> Dd {
        Dd { hi: x, lo: 0.0 }
    }
    pub fn add(self, o: Dd) -> Dd {
        let (s, e) = two_sum(self.hi, o.hi);
        let (t, f) = two_sum(self.lo, o.lo);
        let (s, e) = quick_two_sum(s, e + t);
        let (hi, lo) = quick_two_sum(s, e + f);
        Dd { hi, lo }
    }
    pub fn neg(self) -> Dd {
        Dd {
            hi: -self.hi,
            lo: -self.lo,
        }
    }
    pub fn sub(self, o: Dd) -> Dd {
        self.add(o.neg())
    }
    pub fn mul(self, o: Dd) -> Dd {
        let (p, e) = two_prod(self.hi, o.hi);
        let e = e + (self.hi * o.lo + self.lo * o.hi);
        let (hi, lo) = quick_two_sum(p, e);
        Dd { hi, lo }
    }
    pub fn div(self, o: Dd) -> Dd {
        // two correction steps of the quotient's remainder
        let q1 = self.hi / o.hi;
        let r = self.sub(o.mul(Dd::from(q1)));
        let q2 = r.hi / o.hi;
        let r = r.sub(o.mul(Dd::from(q2)));
        let q3 = r.hi / o.hi;
        let (hi, lo) = quick_two_sum(q1, q2);
        Dd { hi, lo }.add(Dd::from(q3))
    }
    /// Multiplication by 2^k (exact while the result is normal).
    pub fn scale2(self, k: i32) -> Dd {
        let f = pow2(k);
        Dd {
            hi: self.hi * f,
            lo: self.lo * f,
        }
    }
    pub fn to_f64(self) -> f64 {
        self.hi + self.lo
    }
}

fn pow2(k: i32) -> f64 {
    assert!((-1022..=1023).contains(&k), "2^{k} is not a normal double");
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// log 2 to about 2^-107.
const LN2: Dd = Dd {
    hi: std::f64::consts::LN_2,
    lo: 2.319_046_813_846_299_6e-17,
};

/// sum_{k>=1} x^k / k! in double-double (for |x| <= 1/2: no cancellation, relative accuracy).
fn expm1_series(x: Dd) -> Dd {
    let mut term = x;
    let mut sum = x;
    for k in 2..40 {
        term = term.mul(x).div(Dd::from(k as f64));
        sum = sum.add(term);
        if term.hi.abs() < 1e-40 * sum.hi.abs() {
            break;
        }
    }
    sum
}

/// exp(x) in double-double for results in the normal range.
pub fn exp(x: Dd) -> Dd {
    let k = (x.hi / LN2.hi).round();
    let r = x.sub(LN2.mul(Dd::from(k))); // |r| <= 0.35
                                         // exp(r) = (1 + expm1(r / 2^8))^(2^8): the series converges fast, the squarings keep ~2^-98
    let small = expm1_series(r.scale2(-8));
    let mut e = Dd::from(1.0).add(small);
    for _ in 0..8 {
        e = e.mul(e);
    }
    // split the power of two so neither factor overflows
    let k = k as i32;
    let half = k / 2;
    e.scale2(half).scale2(k - half)
}

/// exp(x) - 1 in double-double, relatively accurate near 0.
pub fn exp_m1(x: Dd) -> Dd {
    if x.hi.abs() <= 0.5 {
        expm1_series(x)
    } else {
        exp(x).sub(Dd::from(1.0))
    }
}

/// log(x) for x > 0 in double-double: x = 2^e m with m in [1/sqrt2, sqrt2), and
/// log m = 2 atanh t, t = (m - 1)/(m + 1), |t| <= 0.172, whose series has no cancellation.
pub fn ln(x: Dd) -> Dd {
    assert!(x.hi > 0.0 && x.hi.is_normal(), "ln of {x:?}");
    let mut e = ((x.hi.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    let mut m = x.scale2(-e);
    if m.hi > std::f64::consts::SQRT_2 {
        m = m.scale2(-1);
        e += 1;
    }
    let t = m.sub(Dd::from(1.0)).div(m.add(Dd::from(1.0)));
    let t2 = t.mul(t);
    let mut power = t;
    let mut sum = t;
    for j in 1..60 {
        power = power.mul(t2);
        let term = power.div(Dd::from((2 * j + 1) as f64));
        sum = sum.add(term);
        if term.hi.abs() < 1e-40 * sum.hi.abs() {
            break;
        }
    }
    LN2.mul(Dd::from(e as f64)).add(sum.scale2(1))
}

/// log(1 + x): 1 + x is exact as a double-double.
pub fn ln_1p(x: f64) -> Dd {
    let (hi, lo) = two_sum(1.0, x);
    ln(Dd { hi, lo })
}

/// x^y = exp(y log x) for x > 0.
pub fn powf(x: f64, y: f64) -> Dd {
    exp(ln(Dd::from(x)).mul(Dd::from(y)))
}

/// sin x for |x| <= 1.1 (the core takes sin of a sector angle in (0, pi/3]): the alternating
/// Taylor series, whose terms after the first are below x^2/6 of it, so there is no cancellation.
pub fn sin(x: f64) -> Dd {
    assert!(x.abs() <= 1.1);
    let x = Dd::from(x);
    let x2 = x.mul(x);
    let mut term = x;
    let mut sum = x;
    for k in 1..40 {
        term = term
            .mul(x2)
            .div(Dd::from(((2 * k) * (2 * k + 1)) as f64))
            .neg();
        sum = sum.add(term);
        if term.hi.abs() < 1e-40 * sum.hi.abs() {
            break;
        }
    }
    sum
}

/// The worst error of one function over a set of arguments.
#[derive(Debug, Clone, Copy)]
pub struct Worst {
    /// the largest |computed - exact| / |exact|
    pub relative: f64,
    /// the same error in ulps of the exact value
    pub ulps: f64,
    /// the argument(s) where it occurred
    pub at: (f64, f64),
    pub samples: usize,
}

impl Worst {
    fn new() -> Worst {
        Worst {
            relative: 0.0,
            ulps: 0.0,
            at: (f64::NAN, f64::NAN),
            samples: 0,
        }
    }
    fn record(&mut self, computed: f64, exact: Dd, at: (f64, f64)) {
        assert!(
            computed.is_finite() && exact.hi.is_normal(),
            "argument {at:?} leaves the normal range: computed {computed}, exact {exact:?}"
        );
        let relative = relative_error(computed, exact);
        let err = relative * exact.hi.abs();
        // ulp of the exact value: 2^(exponent - 52)
        let e = ((exact.hi.abs().to_bits() >> 52) & 0x7ff) as i32 - 1023;
        let ulps = err / pow2(e) / f64::EPSILON;
        if relative > self.relative {
            self.relative = relative;
            self.ulps = ulps;
            self.at = at;
        }
        self.samples += 1;
    }
}

/// |computed - exact| / |exact|, the measure `Worst` keeps.
pub fn relative_error(computed: f64, exact: Dd) -> f64 {
    Dd::from(computed).sub(exact).to_f64().abs() / exact.hi.abs()
}

/// xorshift64*: the same argument sequence on every target.
pub struct Rng(pub u64);

impl Rng {
    pub fn unit(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
    }
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
    /// log-uniform in [lo, hi], lo > 0
    pub fn log_uniform(&mut self, lo: f64, hi: f64) -> f64 {
        (lo.ln() + (hi.ln() - lo.ln()) * self.unit()).exp()
    }
}

/// The worst errors of ln, exp, exp_m1, ln_1p, powf and sin over the arguments the core uses,
/// `n` random samples per range plus the fixed points each range lists.
///
/// The ranges (from every call site in `crates/depthprod/src`):
/// - `ln`: depths and split points l in [1, 2^63] (integers and reals), c and lambda-scaled
///   quantities in [1e-3, 1e3], theta and coefficient bounds in [1e-300, 1], and x in [0.5, 2]
///   where log x is smallest relative to x;
/// - `exp`: exponents of bounds and of Z(s, a)'s terms, [-700, 700] (results normal) and [-1, 1];
/// - `exp_m1`: (e log(b/M)), (e log L), lambda/2 and lambda: [-50, 50] and tiny |t| in
///   [1e-20, 1];
/// - `ln_1p`: the summand log(1 + A x + B x^2) and log(1 + 1/N): x in [1e-300, 1e4], and
///   (-0.5, 0) for completeness;
/// - `powf`: l^-p and M^-kp with l in [1, 1e19], exponent in [-10, 0] (results normal), and c^y
///   with c in [1e-3, 1e3], y in [-2, 2];
/// - `sin`: the sector angle alpha in (0, pi/3].
pub fn measure(n: usize) -> Vec<(&'static str, Worst)> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);

    let mut w_ln = Worst::new();
    let mut ln_args: Vec<f64> = vec![1.0, 2.0, 3.0, 10.0, 1e18, 1e18 + 1.0, 9007199254740993.0];
    for i in 1..200u64 {
        ln_args.push(i as f64);
        ln_args.push((1u64 << (i % 63)) as f64 + 1.0);
    }
    for _ in 0..n {
        ln_args.push(rng.log_uniform(1.0, 9.2e18).floor());
        ln_args.push(rng.log_uniform(1.0, 1e19));
        ln_args.push(rng.log_uniform(1e-3, 1e3));
        ln_args.push(rng.log_uniform(1e-300, 1.0));
        ln_args.push(rng.uniform(0.5, 2.0));
        // next to 1, where log x is tiny
        ln_args.push(1.0 + rng.uniform(-1e-6, 1e-6));
    }
    for &x in &ln_args {
        if x != 1.0 {
            w_ln.record(x.ln(), ln(Dd::from(x)), (x, f64::NAN));
        }
    }

    let mut w_exp = Worst::new();
    for _ in 0..n {
        for x in [rng.uniform(-700.0, 700.0), rng.uniform(-1.0, 1.0)] {
            w_exp.record(x.exp(), exp(Dd::from(x)), (x, f64::NAN));
        }
    }

    let mut w_expm1 = Worst::new();
    for _ in 0..n {
        let tiny = rng.log_uniform(1e-20, 1.0);
        for x in [rng.uniform(-50.0, 50.0), tiny, -tiny] {
            w_expm1.record(x.exp_m1(), exp_m1(Dd::from(x)), (x, f64::NAN));
        }
    }

    let mut w_ln1p = Worst::new();
    for _ in 0..n {
        for x in [
            rng.log_uniform(1e-300, 1e4),
            rng.log_uniform(1e-8, 1.0),
            -rng.uniform(0.0, 0.5),
        ] {
            if x != 0.0 {
                w_ln1p.record(x.ln_1p(), ln_1p(x), (x, f64::NAN));
            }
        }
    }

    let mut w_pow = Worst::new();
    for _ in 0..n {
        let l = rng.log_uniform(1.0, 1e19);
        let l_int = l.floor();
        // keep the result normal: y log l >= -700
        let y = rng.uniform(-10.0, 0.0).max(-700.0 / l.ln().max(1e-300));
        let c = rng.log_uniform(1e-3, 1e3);
        let yc = rng.uniform(-2.0, 2.0);
        for (x, y) in [(l, y), (l_int, y), (c, yc)] {
            if x != 1.0 && y != 0.0 {
                w_pow.record(x.powf(y), powf(x, y), (x, y));
            }
        }
    }

    let mut w_sin = Worst::new();
    for _ in 0..n {
        let x = rng.uniform(1e-3, std::f64::consts::FRAC_PI_3);
        w_sin.record(x.sin(), sin(x), (x, f64::NAN));
    }
    for p in [0.025, 0.5, 0.75, 1.0, 1.5, 2.0, 4.0, 5.0] {
        let alpha: f64 = (std::f64::consts::PI / 3.0).min(std::f64::consts::PI / (4.0 * p));
        w_sin.record(alpha.sin(), sin(alpha), (alpha, f64::NAN));
    }

    vec![
        ("ln", w_ln),
        ("exp", w_exp),
        ("exp_m1", w_expm1),
        ("ln_1p", w_ln1p),
        ("powf", w_pow),
        ("sin", w_sin),
    ]
}

/// The reference itself, checked on exactly known values before it judges anything.
pub fn check_reference() {
    let close = |got: Dd, want_hi: f64, want_lo: f64, what: &str| {
        let err = got.sub(Dd {
            hi: want_hi,
            lo: want_lo,
        });
        assert!(
            // the reference carries ~2^-100 relative, amplified by |y log x| <= ~1e3 in exp; 1e-28
            // is still 10^12 times finer than the ulp it judges
            err.to_f64().abs() <= 1e-28 * want_hi.abs(),
            "{what}: {got:?} vs {want_hi:e} + {want_lo:e}"
        );
    };
    // log 2, e and sin 1 as double-doubles (hi + lo from mpmath at 50 digits)
    close(ln(Dd::from(2.0)), LN2.hi, LN2.lo, "ln 2");
    close(
        exp(Dd::from(1.0)),
        std::f64::consts::E,
        1.445_646_891_729_250_2e-16,
        "e",
    );
    // exp(ln x) = x and ln(exp x) = x to the reference's accuracy
    for x in [1e-300, 0.3, 1.7, 12345.678, 1e18, 3e300] {
        let back = exp(ln(Dd::from(x)));
        assert!(
            back.sub(Dd::from(x)).to_f64().abs() <= 1e-29 * x,
            "exp(ln {x}) = {back:?}"
        );
    }
    // the measure catches an error just over the assumption: two ulps off near the top of a
    // binade (relative 2^-52 (1 - 2^-53) per ulp there) exceeds LIBM_REL
    let x: f64 = 1.9;
    let two_ulps = f64::from_bits(x.to_bits() + 2);
    assert!(relative_error(two_ulps, Dd::from(x)) > 2f64.powi(-52));
    let one_ulp = f64::from_bits(x.to_bits() + 1);
    assert!(relative_error(one_ulp, Dd::from(x)) <= 2f64.powi(-52));
    // exact powers
    close(powf(2.0, 10.0), 1024.0, 0.0, "2^10");
    close(powf(0.25, -0.5), 2.0, 0.0, "0.25^-0.5");
    close(powf(1e18, 0.5), 1e9, 0.0, "1e18^0.5");
    close(
        sin(1.0),
        0.841_470_984_807_896_5,
        1.776_845_092_935_536e-18,
        "sin 1",
    );
    // expm1 of the double nearest 1e-10, from mpmath at 50 digits
    close(
        exp_m1(Dd::from(1e-10)),
        1.00000000005e-10,
        3.390_013_322_121_773_4e-27,
        "expm1 1e-10",
    );
}
