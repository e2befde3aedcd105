//! Double-double numbers (about 32 digits) that carry a rigorous bound on their own error.
//!
//! A [`Dd`] is an unevaluated sum hi + lo plus `err`, a bound on |hi + lo - x| for the exact real x
//! it stands for. Each operation is built from error-free transformations (TwoSum, and Dekker's
//! TwoProd) and adds to `err` the input errors it propagates and the rounding of the few
//! floating-point operations that are not error-free, each at most u of its computed result
//! (round to nearest; `TINY` covers underflow). Division and square root bound their error a
//! posteriori, from the residual a - q b or a - y^2 computed in the same arithmetic, so their
//! bounds need no algorithm-specific lemma.
//!
//! Used where double precision cannot resolve a constant: the finite part's terms from the typed
//! inputs (docs/MATH.md §4.8, Lemma F4), where C can be what remains of parts 10^4 times larger.

use crate::sum::U;

/// Covers the absolute error of one operation whose result underflows (at most 2^-1075).
const TINY: f64 = f64::MIN_POSITIVE;

/// hi + lo = a + b exactly (Knuth's TwoSum; no overflow assumed).
pub(crate) fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// hi + lo = a b exactly: Dekker's product with Veltkamp's splits into 26-bit halves (Dekker
/// 1971), exact while |a|, |b| < 2^995 and a b does not underflow; beyond, the results are not
/// finite or the callers' guards decline. Not the fused multiply-add: wasm32 has none in hardware,
/// and its software one made each product cost about 20 times more.
pub(crate) fn two_prod(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    let split = |x: f64| {
        let c = 134_217_729.0 * x; // 2^27 + 1
        let hi = c - (c - x);
        (hi, x - hi)
    };
    let (ah, al) = split(a);
    let (bh, bl) = split(b);
    (p, ((ah * bh - p) + ah * bl + al * bh) + al * bl)
}

/// hi + lo with |hi + lo - exact| <= err.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Dd {
    pub hi: f64,
    pub lo: f64,
    pub err: f64,
}

impl Dd {
    /// A double, exactly.
    pub(crate) fn exact(x: f64) -> Dd {
        Dd {
            hi: x,
            lo: 0.0,
            err: 0.0,
        }
    }

    /// a b, exactly.
    pub(crate) fn product(a: f64, b: f64) -> Dd {
        let (hi, lo) = two_prod(a, b);
        Dd { hi, lo, err: TINY }
    }

    /// hi + lo rounded to a double (within u of it).
    pub(crate) fn value(self) -> f64 {
        self.hi + self.lo
    }

    /// An upper bound of |hi + lo|.
    pub(crate) fn abs(self) -> f64 {
        (self.hi.abs() + self.lo.abs()) * (1.0 + U)
    }

    /// A lower bound of |x| for the exact x (0 if the enclosure reaches 0).
    pub(crate) fn abs_lower(self) -> f64 {
        ((self.hi.abs() - self.lo.abs()) * (1.0 - U) - self.err).max(0.0)
    }

    pub(crate) fn neg(self) -> Dd {
        Dd {
            hi: -self.hi,
            lo: -self.lo,
            err: self.err,
        }
    }

    /// The sum: hi's TwoSum is exact; the two roundings of lo + lo' + e are each within u of their
    /// results; the renormalizing TwoSum is exact.
    // one copy in the wasm module: these are called a few hundred times per plan, never per point
    #[inline(never)]
    pub(crate) fn add(self, o: Dd) -> Dd {
        let (s, e) = two_sum(self.hi, o.hi);
        let t1 = self.lo + o.lo;
        let t = t1 + e;
        let (hi, lo) = two_sum(s, t);
        let err = (self.err + o.err + U * (t1.abs() + t.abs()) + 2.0 * TINY) * (1.0 + 4.0 * U);
        Dd { hi, lo, err }
    }

    pub(crate) fn sub(self, o: Dd) -> Dd {
        self.add(o.neg())
    }

    /// The product: hi hi' by TwoProd (exact), the cross terms and sums within u of their results
    /// each, lo lo' dropped (bounded by itself), and the inputs' errors propagated:
    /// x y - v w = v (y - w) + w (x - v) + (x - v)(y - w).
    // one copy in the wasm module: these are called a few hundred times per plan, never per point
    #[inline(never)]
    pub(crate) fn mul(self, o: Dd) -> Dd {
        let (p, e) = two_prod(self.hi, o.hi);
        let m1 = self.hi * o.lo;
        let m2 = self.lo * o.hi;
        let t1 = m1 + m2;
        let t = t1 + e;
        let (hi, lo) = two_sum(p, t);
        let rounding = U * (m1.abs() + m2.abs() + t1.abs() + t.abs())
            + (self.lo * o.lo).abs() * (1.0 + U)
            + 6.0 * TINY;
        let propagated = self.abs() * o.err + o.abs() * self.err + self.err * o.err;
        Dd {
            hi,
            lo,
            err: (rounding + propagated) * (1.0 + 8.0 * U),
        }
    }

    /// The quotient q = self/o by two correction steps; |x/y - q| = |x - q y|/|y| is bounded from
    /// the residual x - q y computed with its own error bound and a lower bound of |y|. `None`
    /// when the enclosure of the divisor reaches 0.
    pub(crate) fn div(self, o: Dd) -> Option<Dd> {
        let y_lo = o.abs_lower();
        if y_lo <= 0.0 {
            return None;
        }
        let q0 = self.hi / o.hi;
        let r = self.sub(o.mul(Dd::exact(q0)));
        let q1 = r.value() / o.hi;
        let (hi, lo) = two_sum(q0, q1);
        let q = Dd { hi, lo, err: 0.0 };
        let res = self.sub(o.mul(q));
        let err = (res.abs() + res.err) / y_lo * (1.0 + 4.0 * U);
        err.is_finite().then_some(Dd { hi, lo, err })
    }

    /// The quotient by a nonzero double d (exact): q0 = fl(hi/d), the remainder
    /// R = hi + lo - q0 d = ((hi - p) - e) + lo with q0 d = p + e by TwoProd (hi - p is exact by
    /// Sterbenz's lemma; the two other operations are within u of their results), q1 = fl(r/d),
    /// and q0 + q1 by TwoSum: |x/d - q| <= (err + |R - r|)/|d| + u |q1|. Cheaper than [`Dd::div`]
    /// for the series' integer divisors.
    #[inline(never)]
    pub(crate) fn div_f64(self, d: f64) -> Dd {
        debug_assert!(d != 0.0 && d.is_finite());
        let q0 = self.hi / d;
        let (p, e) = two_prod(q0, d);
        let r1 = (self.hi - p) - e;
        let r = r1 + self.lo;
        let q1 = r / d;
        let (hi, lo) = two_sum(q0, q1);
        let err = ((self.err + U * (r1.abs() + r.abs()) + 3.0 * TINY) / d.abs() + U * q1.abs())
            * (1.0 + 4.0 * U);
        Dd { hi, lo, err }
    }

    /// self^n by binary powering (about 2 log2 n products instead of n - 1; each product carries
    /// its own bound). n >= 1.
    pub(crate) fn powi(self, n: usize) -> Dd {
        debug_assert!(n >= 1);
        let mut result: Option<Dd> = None;
        let mut base = self;
        let mut k = n;
        loop {
            if k & 1 == 1 {
                result = Some(match result {
                    Some(r) => r.mul(base),
                    None => base,
                });
            }
            k >>= 1;
            if k == 0 {
                break;
            }
            base = base.mul(base);
        }
        result.expect("n >= 1")
    }

    /// The square root of a positive enclosure by one Newton step from the double root;
    /// |sqrt(x) - y| = |x - y^2| / (sqrt(x) + y) <= |x - y^2| / y, the residual computed with its
    /// own error bound. `None` unless the enclosure is positive.
    pub(crate) fn sqrt(self) -> Option<Dd> {
        if self.abs_lower() <= 0.0 || self.hi <= 0.0 {
            return None;
        }
        let y0 = self.hi.sqrt();
        let r = self.sub(Dd::product(y0, y0));
        let y1 = r.value() / (2.0 * y0);
        let (hi, lo) = two_sum(y0, y1);
        let y = Dd { hi, lo, err: 0.0 };
        let res = self.sub(y.mul(y));
        let y_lo = y.abs_lower();
        let err = (res.abs() + res.err) / y_lo * (1.0 + 4.0 * U);
        err.is_finite().then_some(Dd { hi, lo, err })
    }
}

/// sin x and cos x for |x| <= 2 by their Taylor series in double-double (x's own error propagates
/// through the products). The terms x^k / k! decrease from k = 2 on (|x| <= 2) and alternate, so
/// after the last term kept (below 1e-34 of the sum) the remainder is at most the next term, so
/// the last one.
pub(crate) fn sin_cos(x: Dd) -> (Dd, Dd) {
    debug_assert!(x.abs() <= 2.0 + 1e-10);
    let x2 = x.mul(x);
    let series = |first: Dd, start: u32| {
        let mut term = first;
        let mut sum = first;
        let mut k = start; // the term's power
        loop {
            term = term.mul(x2).div_f64(-(((k + 1) * (k + 2)) as f64));
            sum = sum.add(term);
            k += 2;
            if term.abs() + term.err < 1e-34 * sum.abs() || k > 80 {
                break;
            }
        }
        Dd {
            err: (sum.err + term.abs() + term.err) * (1.0 + 4.0 * U),
            ..sum
        }
    };
    (series(x, 1), series(Dd::exact(1.0), 0))
}

/// log 2 as hi + lo (the doubles nearest log 2 and log 2 - hi), within 6e-34 of it (5.7e-34;
/// `tests` checks the digits).
const LN_2: Dd = Dd {
    hi: std::f64::consts::LN_2,
    lo: 2.319_046_813_846_299_6e-17,
    err: 6e-34,
};

/// log x for an enclosure of x > 0: x = 2^k f with f in [1/sqrt 2, sqrt 2) (scaling by 2^-k is
/// exact, hi, lo and err alike), log f = 2 atanh t = 2 sum_j t^(2j+1)/(2j+1) with
/// t = (f - 1)/(f + 1), |t| <= 0.1716: after the last term kept (below 1e-34 of the sum) the rest is
/// at most that term times t^2/(1 - t^2), less than the term. `None` unless the enclosure is positive and normal.
pub(crate) fn ln(x: Dd) -> Option<Dd> {
    if !(x.abs_lower() > 0.0 && x.hi.is_normal() && x.hi > 0.0) {
        return None;
    }
    // k = floor(log2 hi) from the exponent bits (hi normal, positive): f = hi 2^-k is in [1, 2),
    // and in [1/sqrt 2, sqrt 2) after one more halving where needed
    let mut k = ((x.hi.to_bits() >> 52) & 0x7ff) as i32 - 1023;
    let pow = |e: i32| f64::from_bits(((e + 1023) as u64) << 52);
    if !(-1000..=1000).contains(&k) {
        return None;
    }
    let f = x.hi * pow(-k);
    if f >= std::f64::consts::SQRT_2 {
        k += 1;
    }
    let scale = pow(-k);
    let f = Dd {
        hi: x.hi * scale,
        lo: x.lo * scale,
        err: x.err * scale,
    };
    let one = Dd::exact(1.0);
    let t = f.sub(one).div(f.add(one))?;
    let t2 = t.mul(t);
    let mut power = t; // t^(2j+1)
    let mut sum = t;
    let mut j = 0u32;
    let last = loop {
        j += 1;
        power = power.mul(t2);
        let term = power.div_f64((2 * j + 1) as f64);
        sum = sum.add(term);
        if term.abs() + term.err < 1e-34 * sum.abs() || j > 40 {
            break term;
        }
    };
    let atanh = Dd {
        err: (sum.err + last.abs() + last.err) * (1.0 + 4.0 * U),
        ..sum
    };
    let two_atanh = Dd {
        hi: 2.0 * atanh.hi,
        lo: 2.0 * atanh.lo,
        err: 2.0 * atanh.err,
    };
    Some(LN_2.mul(Dd::exact(k as f64)).add(two_atanh))
}

/// A complex number with double-double parts, each with its own error bound.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Complex {
    pub re: Dd,
    pub im: Dd,
}

impl Complex {
    pub(crate) fn add(self, o: Complex) -> Complex {
        Complex {
            re: self.re.add(o.re),
            im: self.im.add(o.im),
        }
    }

    /// (a + ib)(c + id) = (ac - bd) + i(ad + bc), each part by the double-double operations.
    pub(crate) fn mul(self, o: Complex) -> Complex {
        Complex {
            re: self.re.mul(o.re).sub(self.im.mul(o.im)),
            im: self.re.mul(o.im).add(self.im.mul(o.re)),
        }
    }

    pub(crate) fn scale(self, k: Dd) -> Complex {
        Complex {
            re: self.re.mul(k),
            im: self.im.mul(k),
        }
    }

    /// An upper bound of |z| (|re| + |im| with the errors).
    pub(crate) fn abs_bound(self) -> f64 {
        (self.re.abs() + self.re.err + self.im.abs() + self.im.err) * (1.0 + U)
    }
}

/// (e^x - 1)/x = sum_{j>=0} x^j/(j+1)! for a complex |x| <= 4: the terms decrease from j = 3 on
/// and the rest after the last term kept (below 1e-34 of the sum in modulus, j >= 7) is at most
/// |term| |x|/(j+2) / (1 - |x|/(j+3)) < |term|, added to both parts.
pub(crate) fn exp_m1_over(x: Complex) -> Complex {
    debug_assert!(x.abs_bound() <= 4.0 + 1e-10);
    let mut term = Complex {
        re: Dd::exact(1.0),
        im: Dd::exact(0.0),
    };
    let mut sum = term;
    let mut j = 0u32;
    loop {
        j += 1;
        let step = (j + 1) as f64;
        let t = term.mul(x);
        term = Complex {
            re: t.re.div_f64(step),
            im: t.im.div_f64(step),
        };
        sum = sum.add(term);
        if (j >= 7 && term.abs_bound() < 1e-34 * sum.abs_bound()) || j > 80 {
            break;
        }
    }
    let rest = term.abs_bound();
    Complex {
        re: Dd {
            err: sum.re.err + rest,
            ..sum.re
        },
        im: Dd {
            err: sum.im.err + rest,
            ..sum.im
        },
    }
}

/// pi/2 as hi + lo: hi the double nearest pi/2, lo the double nearest pi/2 - hi; their sum is
/// within 2e-33 of pi/2 (1.5e-33; `tests` checks the digits).
pub(crate) const HALF_PI: Dd = Dd {
    hi: std::f64::consts::FRAC_PI_2,
    lo: 6.123_233_995_736_766e-17,
    err: 2e-33,
};

#[cfg(test)]
mod tests {
    use super::*;

    /// hi, lo (the doubles nearest x and x - hi) and x - hi - lo, from mpmath at 60 digits.
    fn within(d: Dd, (hi, lo, rest): (f64, f64, f64), what: &str) {
        let gap = (d.hi - hi) + (d.lo - lo) - rest;
        assert!(gap.abs() <= d.err, "{what}: {d:?} misses by {gap:e}");
        // about 2^-100 of values of size 1 to 2 (the phase needs 1e-29: docs/MATH.md §4.8)
        assert!(d.err < 1e-30, "{what}: {d:?} is too wide");
    }

    #[test]
    fn half_pi_is_within_its_bound() {
        // pi/2 - hi - lo = -1.4974e-33
        within(
            HALF_PI,
            (
                std::f64::consts::FRAC_PI_2,
                6.123233995736766e-17,
                -1.4974e-33,
            ),
            "pi/2",
        );
    }

    #[test]
    fn operations_are_enclosures_of_32_digit_width() {
        let r2 = Dd::exact(2.0).sqrt().unwrap();
        within(
            r2,
            (std::f64::consts::SQRT_2, -9.667293313452913e-17, 4.1387e-33),
            "sqrt 2",
        );
        let third = Dd::exact(1.0).div(Dd::exact(3.0)).unwrap();
        within(third.mul(Dd::exact(3.0)), (1.0, 0.0, 0.0), "(1/3) 3");
        let third = Dd::exact(1.0).div_f64(3.0);
        within(
            third.mul(Dd::exact(3.0)),
            (1.0, 0.0, 0.0),
            "(1/3) 3 by div_f64",
        );
        let seventh = r2.div_f64(-7.0).mul(Dd::exact(-7.0));
        within(
            seventh,
            (std::f64::consts::SQRT_2, -9.667293313452913e-17, 4.1387e-33),
            "sqrt(2)/-7 * -7",
        );
        // 1.1^40 = 45.25925556817596...: hi, lo and rest from mpmath
        within(
            Dd::exact(1.1).powi(40).div_f64(45.0),
            POW_1_1_40_OVER_45,
            "1.1^40 / 45",
        );
        within(r2.mul(r2), (2.0, 0.0, 0.0), "sqrt(2)^2");
        let tiny = Dd::exact(1.0)
            .add(Dd::exact(2f64.powi(-60)))
            .sub(Dd::exact(1.0));
        assert_eq!(tiny.value(), 2f64.powi(-60));
        assert!(Dd::exact(1.0).div(Dd::exact(0.0)).is_none());
        assert!(Dd::exact(-1.0).sqrt().is_none());
    }

    #[test]
    fn logarithms_match_their_digits() {
        within(
            LN_2,
            (std::f64::consts::LN_2, 2.3190468138462996e-17, 5.7077e-34),
            "log 2",
        );
        let three = ln(Dd::exact(3.0)).unwrap();
        within(
            three,
            (1.0986122886681098, -9.07129723500153e-17, -8.6914e-34),
            "log 3",
        );
        let x = ln(Dd::exact(2.5)).unwrap();
        within(
            x,
            (0.9162907318741551, -4.141195369011963e-17, 1.2001e-33),
            "log 2.5",
        );
        // the double nearest 0.001: |log| ~ 7, so 2^-100 of it is 5e-30
        let x = ln(Dd::exact(0.001)).unwrap();
        let gap = (x.hi - -6.907755278982137) + (x.lo - -2.1613487097372872e-16) - 5.0842e-33;
        assert!(gap.abs() <= x.err && x.err < 6e-30, "{x:?} {gap:e}");
        assert!(ln(Dd::exact(0.0)).is_none());
        assert!(ln(Dd::exact(-2.0)).is_none());
    }

    /// (double 1.1)^40 / 45 (mpmath, 60 digits)
    const POW_1_1_40_OVER_45: (f64, f64, f64) =
        (1.0057612348483578, -4.3960860503956963e-17, -1.0068e-33);
    const RE_PHI1: (f64, f64, f64) = (0.9284551774366341, 1.364081295040655e-17, -7.0025e-34);
    const IM_PHI1: (f64, f64, f64) = (-0.6056780305839641, 1.1690020494074498e-17, -4.2454e-34);

    #[test]
    fn complex_exp_m1_over_x_matches_its_digits() {
        // (e^x - 1)/x at x = 0.3 - 1.1i (mpmath, 60 digits)
        let x = Complex {
            re: Dd::exact(0.3),
            im: Dd::exact(-1.1),
        };
        let e = exp_m1_over(x);
        within(e.re, RE_PHI1, "Re phi1");
        within(e.im, IM_PHI1, "Im phi1");
        // at 0 it is 1 exactly, with no error
        let zero = Dd::exact(0.0);
        let one = exp_m1_over(Complex { re: zero, im: zero });
        within(one.re, (1.0, 0.0, 0.0), "phi1(0)");
    }

    #[test]
    fn sine_and_cosine_match_their_digits() {
        let (s, c) = sin_cos(Dd::exact(1.0));
        within(
            s,
            (0.8414709848078965, 1.776845092935536e-18, -1.4731e-34),
            "sin 1",
        );
        within(
            c,
            (0.5403023058681398, -4.760954612604417e-17, -2.7466e-33),
            "cos 1",
        );
        // sin^2 + cos^2 = 1 at the largest argument used (pi/2)
        let (s, c) = sin_cos(Dd::exact(HALF_PI.hi));
        within(s.mul(s).add(c.mul(c)), (1.0, 0.0, 0.0), "sin^2 + cos^2");
    }
}
