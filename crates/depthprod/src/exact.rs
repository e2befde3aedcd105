//! Exact input semantics: a parameter is the exact number the user wrote.
//!
//! A typed `0.4` means 2/5, not the double nearest to it. The core evaluates with doubles, so it
//! needs two things from the exact value: (1) how far the double it computes with is from it (an
//! error the enclosures then cover), and (2) the sign and size of the distance to a critical
//! exponent, such as p - 1 or k p - 1, decided on the exact rational and never on a rounded
//! intermediate. [`Exact`] is that rational: a sign, an arbitrary-length integer mantissa and a
//! power of ten. A double is also an exact rational (m 2^e = m 5^-e 10^e), so both kinds of input
//! go through the same arithmetic.

use crate::Error;
use std::cmp::Ordering;

/// Base of the mantissa's limbs.
const LIMB: u64 = 1_000_000_000;
/// 10^0 ..= 10^22, every one an exact double (5^22 < 2^53).
const EXACT_POWERS_OF_TEN: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];
/// A finite double as (sign, m, e) with |x| = m 2^e in its shortest form: m odd when e < 0 (0.5 is
/// 1 2^-1, not 2^52 2^-53), and (sign, 0, 0) for zero, so exact arithmetic on it carries only the
/// binary places actually used.
fn binary_parts(x: f64) -> (bool, u64, i64) {
    let bits = x.to_bits();
    let neg = bits >> 63 == 1;
    let biased = ((bits >> 52) & 0x7ff) as i64;
    let frac = bits & ((1u64 << 52) - 1);
    let (mut m, mut e) = if biased == 0 {
        (frac, -1074)
    } else {
        (frac | (1u64 << 52), biased - 1075)
    };
    if m == 0 {
        return (neg, 0, 0);
    }
    while e < 0 && m % 2 == 0 {
        m /= 2;
        e += 1;
    }
    (neg, m, e)
}

/// 5^k and 10^k = 5^k 2^k as integers for k <= 27 (10^27 < 2^90), from the parser's table.
fn pow5_u128(k: u32) -> u128 {
    binary::POWERS_OF_FIVE[k as usize] as u128
}
fn pow10_u128(k: u32) -> u128 {
    pow5_u128(k) << k
}
/// Largest decimal exponent accepted in typed text (every supported range is far inside it).
pub(crate) const MAX_EXP10: i64 = 4000;

/// An unsigned integer in base 10^9, least significant limb first, no leading zero limbs.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct Big(Vec<u32>);

impl Big {
    /// The value of a mantissa of at most two limbs (below 10^18 < 2^60); callers check the length.
    fn short(&self) -> u64 {
        debug_assert!(self.0.len() <= 2);
        self.0.iter().rev().fold(0u64, |m, &d| m * LIMB + d as u64)
    }

    fn from_u64(mut x: u64) -> Big {
        let mut v = Vec::new();
        while x > 0 {
            v.push((x % LIMB) as u32);
            x /= LIMB;
        }
        Big(v)
    }
    fn is_zero(&self) -> bool {
        self.0.is_empty()
    }
    fn mul_small(&self, k: u64) -> Big {
        debug_assert!(k < (1 << 32));
        let mut out = Vec::with_capacity(self.0.len() + 2);
        let mut carry = 0u64;
        for &d in &self.0 {
            let t = d as u64 * k + carry;
            out.push((t % LIMB) as u32);
            carry = t / LIMB;
        }
        while carry > 0 {
            out.push((carry % LIMB) as u32);
            carry /= LIMB;
        }
        let mut b = Big(out);
        b.trim();
        b
    }
    /// self * other, schoolbook (the mantissas here are at most a few hundred limbs).
    fn mul(&self, other: &Big) -> Big {
        if self.is_zero() || other.is_zero() {
            return Big::default();
        }
        let mut out = vec![0u64; self.0.len() + other.0.len() + 1];
        for (i, &x) in self.0.iter().enumerate() {
            let mut carry = 0u64;
            for (j, &y) in other.0.iter().enumerate() {
                // < 10^18 + 10^18 + 10^9: no overflow of u64
                let t = out[i + j] + x as u64 * y as u64 + carry;
                out[i + j] = t % LIMB;
                carry = t / LIMB;
            }
            let mut k = i + other.0.len();
            while carry > 0 {
                let t = out[k] + carry;
                out[k] = t % LIMB;
                carry = t / LIMB;
                k += 1;
            }
        }
        let mut b = Big(out.into_iter().map(|d| d as u32).collect());
        b.trim();
        b
    }
    fn mul_pow10(&self, mut n: u32) -> Big {
        let mut b = self.clone();
        while n >= 9 {
            if !b.is_zero() {
                b.0.insert(0, 0);
            }
            n -= 9;
        }
        b.mul_small(10u64.pow(n))
    }
    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }
    fn cmp(&self, other: &Big) -> Ordering {
        self.0
            .len()
            .cmp(&other.0.len())
            .then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }
    fn add(&self, other: &Big) -> Big {
        let mut out = Vec::with_capacity(self.0.len().max(other.0.len()) + 1);
        let mut carry = 0u64;
        for i in 0..self.0.len().max(other.0.len()) {
            let t =
                *self.0.get(i).unwrap_or(&0) as u64 + *other.0.get(i).unwrap_or(&0) as u64 + carry;
            out.push((t % LIMB) as u32);
            carry = t / LIMB;
        }
        if carry > 0 {
            out.push(carry as u32);
        }
        Big(out)
    }
    /// self - other, requires self >= other.
    fn sub(&self, other: &Big) -> Big {
        let mut out = Vec::with_capacity(self.0.len());
        let mut borrow = 0i64;
        for i in 0..self.0.len() {
            let mut t = self.0[i] as i64 - *other.0.get(i).unwrap_or(&0) as i64 - borrow;
            borrow = 0;
            if t < 0 {
                t += LIMB as i64;
                borrow = 1;
            }
            out.push(t as u32);
        }
        let mut b = Big(out);
        b.trim();
        b
    }
    /// Decimal digits, most significant first (none for zero).
    fn digits(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(9 * self.0.len());
        for (i, &limb) in self.0.iter().rev().enumerate() {
            let mut d = [0u8; 9];
            let mut v = limb;
            for slot in d.iter_mut().rev() {
                *slot = (v % 10) as u8;
                v /= 10;
            }
            // the top limb without its leading zeros
            let skip = if i == 0 {
                d.iter().take_while(|&&x| x == 0).count()
            } else {
                0
            };
            out.extend_from_slice(&d[skip..]);
        }
        out
    }
    #[cfg(test)]
    fn to_decimal(&self) -> String {
        match self.0.split_last() {
            None => "0".into(),
            Some((top, rest)) => {
                let mut s = top.to_string();
                for d in rest.iter().rev() {
                    s.push_str(&format!("{d:09}"));
                }
                s
            }
        }
    }
}

/// An exact rational (-1)^neg * mant * 10^exp10.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exact {
    neg: bool,
    mant: Big,
    exp10: i64,
}

impl Exact {
    /// The integer `k`.
    pub fn int(k: i64) -> Exact {
        Exact {
            neg: k < 0,
            mant: Big::from_u64(k.unsigned_abs()),
            exp10: 0,
        }
    }

    /// The exact value of a finite double (m 2^e written as m 5^-e 10^e when e < 0).
    pub fn from_f64(x: f64) -> Exact {
        debug_assert!(x.is_finite());
        let (neg, m, e) = binary_parts(x);
        if m == 0 {
            return Exact::int(0);
        }
        let mut mant = Big::from_u64(m);
        // by 5^13 and 2^31 at a time (both below 2^32, as mul_small needs)
        let (base, chunk, count) = if e < 0 { (5u64, 13, -e) } else { (2, 31, e) };
        for _ in 0..count / chunk {
            mant = mant.mul_small(base.pow(chunk as u32));
        }
        mant = mant.mul_small(base.pow((count % chunk) as u32));
        let exp10 = e.min(0);
        Exact { neg, mant, exp10 }
    }

    /// |self| as decimal digits (most significant first, none for zero) and the power of ten
    /// of the last one: |self| = digits × 10^exp10.
    pub(crate) fn decimal_digits(&self) -> (Vec<u8>, i64) {
        (self.mant.digits(), self.exp10)
    }

    /// Whether `text` has the syntax [`Exact::parse`] reads, whatever its length: tells "no
    /// number at all" from "a number with more digits or a larger exponent than is read".
    pub fn is_decimal_syntax(text: &str) -> bool {
        let t = text.trim();
        let t = t.strip_prefix(['+', '-']).unwrap_or(t);
        let (body, exp) = match t.find(['e', 'E']) {
            Some(i) => (&t[..i], Some(&t[i + 1..])),
            None => (t, None),
        };
        let (int, frac) = body.split_once('.').unwrap_or((body, ""));
        let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        !(int.is_empty() && frac.is_empty())
            && digits(int)
            && digits(frac)
            && exp.is_none_or(|e| {
                let e = e.strip_prefix(['+', '-']).unwrap_or(e);
                !e.is_empty() && digits(e)
            })
    }

    /// Parses decimal text: `[+-]digits[.digits][(e|E)[+-]digits]` (also `.5`, `5.`).
    /// `None` when it is not such a number, or has more than 2000 significant digits or a
    /// decimal exponent beyond `MAX_EXP10` (far outside every parameter's range).
    pub fn parse(text: &str) -> Option<Exact> {
        let t = text.trim();
        let (neg, t) = match t.as_bytes().first()? {
            b'-' => (true, &t[1..]),
            b'+' => (false, &t[1..]),
            _ => (false, t),
        };
        let (body, exp) = match t.find(['e', 'E']) {
            Some(i) => (&t[..i], Some(&t[i + 1..])),
            None => (t, None),
        };
        let (int, frac) = body.split_once('.').unwrap_or((body, ""));
        if int.is_empty() && frac.is_empty()
            || !int.bytes().all(|b| b.is_ascii_digit())
            || !frac.bytes().all(|b| b.is_ascii_digit())
        {
            return None;
        }
        let mut exp10: i64 = match exp {
            None => 0,
            Some(e) => {
                let digits = e.strip_prefix(['+', '-']).unwrap_or(e);
                if digits.is_empty()
                    || digits.len() > 6
                    || !digits.bytes().all(|b| b.is_ascii_digit())
                {
                    return None;
                }
                let v: i64 = digits.parse().ok()?;
                if e.starts_with('-') {
                    -v
                } else {
                    v
                }
            }
        };
        exp10 -= frac.len() as i64;
        let int = int.trim_start_matches('0');
        let (digits, mant) = if int.len() + frac.len() <= 18 {
            // a typed parameter: its significant digits fit a u64, no allocation but the limbs
            let frac = if int.is_empty() {
                frac.trim_start_matches('0')
            } else {
                frac
            };
            let m = (int.bytes().chain(frac.bytes())).fold(0u64, |m, b| m * 10 + (b - b'0') as u64);
            (int.len() + frac.len(), Big::from_u64(m))
        } else {
            let digits = format!("{int}{frac}");
            let digits = digits.trim_start_matches('0');
            if digits.len() > 2000 {
                return None;
            }
            let mut mant = Big::default();
            for chunk in digits.as_bytes().chunks(9) {
                let s = std::str::from_utf8(chunk).ok()?;
                mant = mant
                    .mul_pow10(chunk.len() as u32)
                    .add(&Big::from_u64(s.parse().ok()?));
            }
            (digits.len(), mant)
        };
        if !mant.is_zero() && !(-MAX_EXP10..=MAX_EXP10).contains(&(exp10 + digits as i64)) {
            return None;
        }
        Some(Exact {
            neg: neg && !mant.is_zero(),
            mant,
            exp10: if digits == 0 { 0 } else { exp10 },
        })
    }

    /// -1, 0 or 1.
    pub fn signum(&self) -> i32 {
        if self.mant.is_zero() {
            0
        } else if self.neg {
            -1
        } else {
            1
        }
    }

    /// The sign of self - other.
    pub fn cmp_exact(&self, other: &Exact) -> Ordering {
        self.sub(other).signum().cmp(&0)
    }

    /// self * k for a small integer k.
    pub fn mul_int(&self, k: i64) -> Exact {
        Exact {
            neg: (self.neg != (k < 0)) && k != 0 && !self.mant.is_zero(),
            mant: self.mant.mul_small(k.unsigned_abs()),
            exp10: self.exp10,
        }
    }

    /// self * other, exactly.
    pub fn mul(&self, other: &Exact) -> Exact {
        let mant = self.mant.mul(&other.mant);
        Exact {
            neg: self.neg != other.neg && !mant.is_zero(),
            exp10: if mant.is_zero() {
                0
            } else {
                self.exp10 + other.exp10
            },
            mant,
        }
    }

    /// |self|.
    pub fn abs(&self) -> Exact {
        Exact {
            neg: false,
            ..self.clone()
        }
    }

    /// self / 2, exactly (x/2 = 5x/10).
    pub fn half(&self) -> Exact {
        Exact {
            neg: self.neg,
            mant: self.mant.mul_small(5),
            exp10: self.exp10 - 1,
        }
    }

    /// self + other, exactly.
    pub fn add(&self, other: &Exact) -> Exact {
        if other.mant.is_zero() {
            return self.clone();
        }
        if self.mant.is_zero() {
            return other.clone();
        }
        let e = self.exp10.min(other.exp10);
        let a = self.mant.mul_pow10((self.exp10 - e) as u32);
        let b = other.mant.mul_pow10((other.exp10 - e) as u32);
        let (neg, mant) = if self.neg == other.neg {
            (self.neg, a.add(&b))
        } else {
            match a.cmp(&b) {
                Ordering::Less => (other.neg, b.sub(&a)),
                _ => (self.neg, a.sub(&b)),
            }
        };
        Exact {
            neg: neg && !mant.is_zero(),
            mant,
            exp10: e,
        }
    }

    /// self - other, exactly.
    pub fn sub(&self, other: &Exact) -> Exact {
        let mut minus = other.clone();
        minus.neg = !minus.neg && !minus.mant.is_zero();
        self.add(&minus)
    }

    /// The double nearest to the exact value (ties to even), with overflow to +-infinity and
    /// underflow to +-0: the double Rust's float parser gives for the same decimal (tested bit for
    /// bit). Done here, in integers, because the parser's tables cost the explorer's wasm module
    /// 14 KB gzipped (ARCHITECTURE.md, "Size decisions").
    pub fn to_f64(&self) -> f64 {
        // Clinger's fast path: an integer below 2^53 and a power of ten up to 10^22 are both
        // exact doubles, so one multiplication or division rounds once, to nearest, the same
        // double as the parser gives.
        if self.mant.0.len() <= 2 && self.exp10.unsigned_abs() <= 22 {
            let m = self.mant.short();
            if m < 1 << 53 {
                let scale = EXACT_POWERS_OF_TEN[self.exp10.unsigned_abs() as usize];
                let x = if self.exp10 >= 0 {
                    m as f64 * scale
                } else {
                    m as f64 / scale
                };
                return if self.neg { -x } else { x };
            }
        }
        let (q, sticky, e) = binary::quotient(&self.mant.0, self.exp10);
        let x = binary::round_to_f64(q, sticky, e);
        if self.neg {
            -x
        } else {
            x
        }
    }

    /// The sign of 1 - i self and the double nearest to it, in integers, for a short positive
    /// decimal self = M 10^E (M < 2^53, -18 <= E <= 0) and i < 2^10: (1 - i self) 10^-E =
    /// v = 10^-E - i M is an integer below 2^63 in size. Below 2^53 one division by the exact
    /// double 10^-E rounds it correctly (Clinger's fast path); above, |v| 2^s / 5^-E with
    /// |v| 2^s in [2^126, 2^127) is a quotient of over 84 bits and a sticky bit, rounded as
    /// [`Exact::to_f64`] rounds. `None` otherwise (the caller takes the general route).
    pub fn one_minus_multiple(&self, i: u64) -> Option<(i32, f64)> {
        if self.neg || self.mant.0.len() > 2 || !(-27..=0).contains(&self.exp10) || i >= 1 << 10 {
            return None;
        }
        let mut m = self.mant.short();
        let mut k = self.exp10.unsigned_abs() as u32;
        // q/2 = 5 q 10^-1 keeps q's trailing zero: 0.25018313285814680 is 0.2501831328581468
        while k > 0 && m % 10 == 0 && m != 0 {
            m /= 10;
            k -= 1;
        }
        if m >= 1 << 53 || k > 18 {
            return None;
        }
        let v = 10i64.pow(k) - (i * m) as i64;
        let x = if v.unsigned_abs() < 1 << 53 {
            v as f64 / EXACT_POWERS_OF_TEN[k as usize]
        } else if let Some(x) = checked_quotient(v, k) {
            x
        } else {
            let mag = v.unsigned_abs() as u128;
            let s = mag.leading_zeros() - 1;
            let num = mag << s;
            let five_k = pow5_u128(k);
            let r = binary::round_to_f64(num / five_k, num % five_k != 0, -(k as i64) - s as i64);
            if v < 0 {
                -r
            } else {
                r
            }
        };
        Some((v.signum() as i32, x))
    }

    /// |self - x| for a double x, rounded up to a double (0 exactly when x is the exact value).
    pub fn distance_to(&self, x: f64) -> f64 {
        let (sign, d) = self.minus_f64(x);
        if sign == 0 {
            0.0
        } else {
            // correctly rounded, so at most a factor (1 + u) below the truth; next_up covers it
            crate::enclosure::next_up(d.abs())
        }
    }

    /// The sign of self - x and its correctly rounded double, for a finite double x.
    ///
    /// A typed input's residual (exact - its double): done in integers without allocating when
    /// self is a short decimal, else by the general route (x's ~60-digit decimal, a subtraction
    /// and a long division: 1.6 µs per typed input, most of a typed plan's parsing).
    pub fn minus_f64(&self, x: f64) -> (i32, f64) {
        if let Some(short) = self.short_minus_f64(x) {
            return short;
        }
        let d = self.sub(&Exact::from_f64(x));
        (d.signum(), d.to_f64())
    }

    /// [`Exact::minus_f64`] for self = ±m 10^-k (m < 10^18, 0 <= k <= 27) and x = ±M 2^E
    /// (M < 2^53, E <= 0): (self - x) 10^k 2^-E = D = ±m 2^-E ∓ M 10^k is an integer, exact in an
    /// i128 while both products are below 2^126; then self - x = D 2^(E-k) / 5^k, and
    /// |D| 2^s / 5^k with |D| 2^s in [2^126, 2^127) and 5^k < 2^63 is a quotient of at least 64
    /// bits plus a sticky bit, which [`binary::round_to_f64`] rounds correctly (as in
    /// [`Exact::to_f64`]). `None` outside that range.
    fn short_minus_f64(&self, x: f64) -> Option<(i32, f64)> {
        if self.mant.0.len() > 2 || !(-27..=0).contains(&self.exp10) || !x.is_finite() {
            return None;
        }
        let m = self.mant.short();
        let k = self.exp10.unsigned_abs() as u32;
        let (x_neg, big_m, e) = binary_parts(x);
        let pow10 = pow10_u128(k);
        let bit_len = |v: u128| 128 - v.leading_zeros() as i64;
        if e > 0 || bit_len(m as u128) - e > 125 || bit_len(big_m as u128) + bit_len(pow10) > 126 {
            return None;
        }
        let signed = |neg: bool, v: i128| if neg { -v } else { v };
        let lhs = signed(self.neg, ((m as u128) << -e) as i128);
        let rhs = signed(x_neg, (big_m as u128 * pow10) as i128);
        let d = lhs - rhs;
        if d == 0 {
            return Some((0, 0.0));
        }
        let mag = d.unsigned_abs();
        let s = mag.leading_zeros() as i64 - 1;
        let num = mag << s;
        let five_k = pow5_u128(k);
        let r = binary::round_to_f64(num / five_k, num % five_k != 0, e - k as i64 - s);
        Some(if d < 0 { (-1, -r) } else { (1, r) })
    }
}

/// v / 10^k correctly rounded for |v| < 2^63 and k <= 18, when the quick candidate (v rounded to
/// a double, then divided by the exact double 10^k: two roundings) is proven to be it: with the
/// candidate Q 2^E (2^52 < Q < 2^53, E <= 0), R = |v| 2^-E - Q 10^k is exact in an i128 (both
/// below 2^117) and |v|/10^k - Q 2^E = R 2^E / 10^k, so the candidate is the nearest double iff
/// 2|R| < 10^k (a tie, Q = 2^52 and E > 0 give `None`: the caller divides exactly). No division
/// of 128-bit integers.
fn checked_quotient(v: i64, k: u32) -> Option<f64> {
    let c = (v.unsigned_abs() as f64) / EXACT_POWERS_OF_TEN[k as usize];
    let bits = c.to_bits();
    let q = (bits & ((1u64 << 52) - 1)) | (1u64 << 52);
    let e = ((bits >> 52) & 0x7ff) as i64 - 1075;
    if q == 1 << 52 || e > 0 || !c.is_normal() || -e > 64 {
        return None;
    }
    let ten_k = pow10_u128(k);
    let r = ((v.unsigned_abs() as u128) << -e) as i128 - (q as u128 * ten_k) as i128;
    (2 * r.unsigned_abs() < ten_k).then_some(if v < 0 { -c } else { c })
}

/// A nonnegative dyadic rational m 2^e held in an i128: the exact p = extra + q/2 of a power law
/// whose q is a double (a sum of two doubles, so dyadic). Its only job is
/// [`Dyadic::one_minus_multiple`], which the general [`Exact`] route does by formatting a
/// ~60-digit decimal and parsing it back for every k of the series (half of a plan's time at
/// q = 0.05 in the scaled family, where p = 1.025 is not a double).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Dyadic {
    m: i128,
    e: i32,
}

impl Dyadic {
    /// A finite double >= 0 exactly; `None` otherwise.
    pub(crate) fn from_f64(x: f64) -> Option<Dyadic> {
        if !(x.is_finite() && x >= 0.0) {
            return None;
        }
        let bits = x.to_bits();
        let biased = ((bits >> 52) & 0x7ff) as i32;
        let frac = (bits & ((1u64 << 52) - 1)) as i128;
        Some(if biased == 0 {
            Dyadic { m: frac, e: -1074 }
        } else {
            Dyadic {
                m: frac | (1 << 52),
                e: biased - 1075,
            }
        })
    }

    /// self / 2, exactly.
    pub(crate) fn half(self) -> Dyadic {
        Dyadic {
            m: self.m,
            e: self.e - 1,
        }
    }

    /// self + other, exactly, when the sum's mantissa stays below 2^120 (`None` otherwise).
    pub(crate) fn add(self, other: Dyadic) -> Option<Dyadic> {
        // zero's exponent means nothing: it must not drag the sum's exponent down
        if other.m == 0 {
            return Some(self);
        }
        if self.m == 0 {
            return Some(other);
        }
        let e = self.e.min(other.e);
        let shift = |d: Dyadic| -> Option<i128> {
            let s = u32::try_from(d.e - e).ok()?;
            (d.m == 0 || (s < 120 && d.m < (1i128 << (120 - s)))).then(|| d.m << s.min(127))
        };
        let m = shift(self)?.checked_add(shift(other)?)?;
        (m < 1 << 120).then_some(Dyadic { m, e })
    }

    /// The double nearest to self (an i128 converts to the nearest double, and scaling by 2^e is
    /// exact for a normal result); `None` when the result would be subnormal or overflow.
    pub(crate) fn to_f64(self) -> Option<f64> {
        let x = (self.m as f64) * 2f64.powi(self.e.max(-1022)) * 2f64.powi((self.e + 1022).min(0));
        (x.is_finite() && (x == 0.0 || x >= f64::MIN_POSITIVE)).then_some(x)
    }

    /// |self - x| for a double x >= 0, rounded up to a double (0 exactly when x is self), as
    /// [`Exact::distance_to`] gives it; `None` when the difference does not fit.
    pub(crate) fn distance_to(self, x: f64) -> Option<f64> {
        let d = Dyadic::from_f64(x)?;
        let e = self.e.min(d.e);
        let (sa, sb) = (
            u32::try_from(self.e - e).ok()?,
            u32::try_from(d.e - e).ok()?,
        );
        let fits = |m: i128, s: u32| m == 0 || (s < 120 && m < (1i128 << (120 - s)));
        if !fits(self.m, sa) || !fits(d.m, sb) {
            return None;
        }
        let diff = ((self.m << sa.min(127)) - (d.m << sb.min(127))).abs();
        if diff == 0 {
            return Some(0.0);
        }
        let y = Dyadic { m: diff, e }.to_f64()?;
        // correctly rounded, so at most a factor (1 + u) below the truth; next_up covers it
        Some(crate::enclosure::next_up(y))
    }

    /// The sign of 1 - i self and the double nearest to it, in integers: with self = m 2^e,
    /// (1 - i self) 2^-e = 2^-e - i m is an integer, held in an i128 while -e <= 125 and
    /// i m < 2^126 (i < 2^10 and m < 2^116). Converting an i128 to f64
    /// rounds to nearest (ties to even), and scaling by 2^e is exact for normal results, so the
    /// double is the correctly rounded value, as [`Exact::to_f64`] gives it. `None` outside that
    /// range (the caller takes the general route).
    pub(crate) fn one_minus_multiple(self, i: u64) -> Option<(i32, f64)> {
        if i >= 1 << 10 || self.m >= 1 << 116 || !(-125..=0).contains(&self.e) {
            return None;
        }
        let v = (1i128 << -self.e) - i as i128 * self.m;
        let x = v as f64;
        let two_to_e = 2f64.powi(self.e); // exact: -125 <= e <= 0
        let y = x * two_to_e;
        // a result below the normal range would round twice: leave it to the general route
        (y == 0.0 || y.abs() >= f64::MIN_POSITIVE).then_some((v.signum() as i32, y))
    }
}

/// A parameter as given: a double (from a JavaScript number or a program) or the decimal text a
/// person typed, which denotes an exact rational (see the module docs).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(untagged))]
pub enum Number {
    Double(f64),
    Text(String),
}

impl From<f64> for Number {
    fn from(x: f64) -> Number {
        Number::Double(x)
    }
}

impl From<&str> for Number {
    fn from(s: &str) -> Number {
        Number::Text(s.to_string())
    }
}

/// A parameter resolved: the double the core computes with, the exact value it stands for,
/// |exact - double| rounded up (0 when the double is the exact value), and exact - double
/// correctly rounded (the double-double residual; within u of itself).
#[derive(Debug, Clone)]
pub struct Resolved {
    pub value: f64,
    pub exact: Exact,
    pub rounding: f64,
    pub residual: f64,
}

impl Resolved {
    /// `value` standing for `exact`, with the distance and residual computed once.
    pub fn of(value: f64, exact: Exact) -> Resolved {
        let (sign, r) = exact.minus_f64(value);
        let (rounding, residual) = if sign == 0 {
            (0.0, 0.0)
        } else {
            // correctly rounded, so at most a factor (1 + u) below the truth; next_up covers it
            (crate::enclosure::next_up(r.abs()), r)
        };
        Resolved {
            value,
            exact,
            rounding,
            residual,
        }
    }
}

impl Number {
    /// Resolves the number for parameter `name`; text that is not a decimal number, NaN and
    /// infinities are errors naming the parameter.
    pub fn resolve(&self, name: &'static str) -> Result<Resolved, Error> {
        match self {
            Number::Double(x) => {
                if !x.is_finite() {
                    return Err(Error::NotFinite { name });
                }
                Ok(Resolved {
                    value: *x,
                    exact: Exact::from_f64(*x),
                    rounding: 0.0,
                    residual: 0.0,
                })
            }
            Number::Text(text) => {
                let exact = Exact::parse(text).ok_or_else(|| Error::NotANumber {
                    name,
                    oversized: Exact::is_decimal_syntax(text),
                    // Echo enough to recognise, never a whole hostile or pasted payload.
                    text: if text.chars().count() > 40 {
                        text.chars().take(39).chain(['…']).collect()
                    } else {
                        text.clone()
                    },
                })?;
                let value = exact.to_f64();
                if !value.is_finite() {
                    return Err(Error::NotFinite { name });
                }
                Ok(Resolved::of(value, exact))
            }
        }
    }
}

/// The correctly rounded double of a decimal, in integers: [`Exact::to_f64`] and [`parse_f64`].
///
/// A decimal M 10^E is M 5^E 2^E. It is written as (q + f) 2^e with an integer q of at least 64
/// bits (or q exact, f = 0) and 0 <= f < 1 known only by whether it is 0 (`sticky`); q keeps at
/// least 11 bits below the 53 a double holds (or fewer when q is exact), so the rounding bit and
/// the sticky bit decide round-to-nearest-even exactly (the "round, guard, sticky" argument of
/// IEEE 754 rounding).
mod binary {
    /// 5^0 ..= 5^27, every one below 2^63.
    pub(super) const POWERS_OF_FIVE: [u64; 28] = {
        let mut t = [1u64; 28];
        let mut i = 1;
        while i < 28 {
            t[i] = t[i - 1] * 5;
            i += 1;
        }
        t
    };

    /// Base-2^32 limbs, least significant first, no leading zero limbs.
    fn mul_small_add(v: &mut Vec<u32>, k: u32, add: u32) {
        let mut carry = add as u64;
        for d in v.iter_mut() {
            let t = *d as u64 * k as u64 + carry;
            *d = t as u32;
            carry = t >> 32;
        }
        if carry > 0 {
            v.push(carry as u32);
        }
    }
    fn bit_length(v: &[u32]) -> u64 {
        v.last().map_or(0, |top| {
            32 * (v.len() as u64 - 1) + 32 - top.leading_zeros() as u64
        })
    }
    fn shift_left(v: &[u32], s: u64) -> Vec<u32> {
        let (words, bits) = ((s / 32) as usize, (s % 32) as u32);
        let mut out = vec![0u32; words];
        let mut carry = 0u32;
        for &d in v {
            out.push(if bits == 0 { d } else { (d << bits) | carry });
            carry = if bits == 0 { 0 } else { d >> (32 - bits) };
        }
        if carry > 0 {
            out.push(carry);
        }
        out
    }
    fn shift_right_one(v: &mut Vec<u32>) {
        let mut carry = 0u32;
        for d in v.iter_mut().rev() {
            let next = *d & 1;
            *d = (*d >> 1) | (carry << 31);
            carry = next;
        }
        trim(v);
    }
    fn trim(v: &mut Vec<u32>) {
        while v.last() == Some(&0) {
            v.pop();
        }
    }
    fn at_least(a: &[u32], b: &[u32]) -> bool {
        a.len()
            .cmp(&b.len())
            .then_with(|| a.iter().rev().cmp(b.iter().rev()))
            .is_ge()
    }
    /// a -= b, for a >= b.
    fn subtract(a: &mut Vec<u32>, b: &[u32]) {
        let mut borrow = 0u64;
        for (i, d) in a.iter_mut().enumerate() {
            let t = (*d as u64).wrapping_sub(*b.get(i).unwrap_or(&0) as u64 + borrow);
            *d = t as u32;
            borrow = t >> 63;
        }
        trim(a);
    }
    fn pow5(k: u64) -> Vec<u32> {
        let mut v = vec![1u32];
        for _ in 0..k / 13 {
            mul_small_add(&mut v, 1_220_703_125, 0); // 5^13 < 2^32
        }
        mul_small_add(&mut v, 5u32.pow((k % 13) as u32), 0);
        v
    }

    /// (q, sticky, e) with (mant 10^exp10) = (q + f) 2^e, 0 <= f < 1, sticky = (f > 0); `mant` in
    /// base-10^9 limbs, least significant first. q >= 2^63 whenever f could be nonzero.
    pub(super) fn quotient(mant: &[u32], exp10: i64) -> (u128, bool, i64) {
        if mant.is_empty() {
            return (0, false, 0);
        }
        if mant.len() <= 2 {
            let m = mant
                .iter()
                .rev()
                .fold(0u64, |m, &d| m * super::LIMB + d as u64); // < 10^18 < 2^60
            if let Some(q) = short_quotient(m, exp10) {
                return q;
            }
        }
        let mut a = Vec::with_capacity(mant.len() + 1);
        for &d in mant.iter().rev() {
            mul_small_add(&mut a, 1_000_000_000, d);
        }
        trim(&mut a);
        let k = exp10.unsigned_abs();
        let (mut a, b) = if exp10 >= 0 {
            let f = pow5(k);
            let mut prod = vec![0u32; a.len() + f.len()];
            for (i, &x) in a.iter().enumerate() {
                let mut carry = 0u64;
                for (j, &y) in f.iter().enumerate() {
                    let t = prod[i + j] as u64 + x as u64 * y as u64 + carry;
                    prod[i + j] = t as u32;
                    carry = t >> 32;
                }
                prod[i + f.len()] = carry as u32;
            }
            trim(&mut prod);
            (prod, vec![1u32])
        } else {
            (a, pow5(k))
        };
        // Scale so that a / b lies in [2^66, 2^68): a quotient of 67-68 bits.
        let shift = 67 - (bit_length(&a) as i64 - bit_length(&b) as i64);
        let e = exp10 - shift;
        let mut b = if shift >= 0 {
            a = shift_left(&a, shift as u64);
            shift_left(&b, 67)
        } else {
            shift_left(&b, (67 - shift) as u64)
        };
        let mut q = 0u128;
        for j in (0..=67).rev() {
            if at_least(&a, &b) {
                subtract(&mut a, &b);
                q |= 1 << j;
            }
            shift_right_one(&mut b);
        }
        (q, !a.is_empty(), e)
    }

    /// [`quotient`] for a mantissa m < 2^64 and |exp10| <= 27, in u128 arithmetic.
    fn short_quotient(m: u64, exp10: i64) -> Option<(u128, bool, i64)> {
        if m == 0 {
            return Some((0, false, 0));
        }
        let k = *POWERS_OF_FIVE.get(exp10.unsigned_abs() as usize)? as u128;
        Some(if exp10 >= 0 {
            // m 5^E < 2^64 2^63: exact
            (m as u128 * k, false, exp10)
        } else {
            // (m 2^s) / 5^k with m 2^s in [2^126, 2^127) and 5^k < 2^63: q >= 2^63
            let s = 63 + m.leading_zeros() as i64;
            let x = (m as u128) << s;
            (x / k, x % k != 0, exp10 - s)
        })
    }

    /// The double nearest to (q + f) 2^e (ties to even), f as in [`quotient`].
    pub(super) fn round_to_f64(q: u128, sticky: bool, e: i64) -> f64 {
        if q == 0 {
            return 0.0;
        }
        let bits = 128 - q.leading_zeros() as i64;
        let lead = bits - 1 + e; // q 2^e lies in [2^lead, 2^(lead+1))
        if lead > 1023 {
            return f64::INFINITY;
        }
        // bits the result keeps: 53, fewer below the normal range (the last place is 2^-1074)
        let keep = if lead >= -1022 { 53 } else { 1075 + lead };
        if keep < 0 {
            return 0.0; // below 2^-1075, half the smallest subnormal: rounds to 0
        }
        let drop = bits - keep;
        let (mut m, mut ex) = if drop <= 0 {
            debug_assert!(!sticky, "an inexact quotient carries extra bits");
            (q << -drop, e + drop)
        } else {
            let m = q >> drop;
            let rest = q & ((1u128 << drop) - 1);
            let half = 1u128 << (drop - 1);
            let up = rest > half || (rest == half && (sticky || m & 1 == 1));
            (m + up as u128, e + drop)
        };
        // m <= 2^keep: a carry out of the top gives 2^53, one bit too many
        if m == 1 << 53 {
            m >>= 1;
            ex += 1;
        }
        let m = m as u64;
        if m <= 1 << 52 && ex == -1074 {
            // subnormal, or 2^52 2^-1074 = 2^-1022: the bit pattern is m itself
            return f64::from_bits(m);
        }
        let lead = 52 + ex; // m lies in [2^52, 2^53)
        if lead > 1023 {
            return f64::INFINITY;
        }
        f64::from_bits((((lead + 1023) as u64) << 52) | (m & ((1 << 52) - 1)))
    }

    /// The correctly rounded double of decimal text of [`super::Exact::parse`]'s syntax with at
    /// most 19 significant digits and |exponent| <= 27 after moving the point, without
    /// allocating (a measured list of 10^6 entries); `None` for anything else.
    pub(super) fn parse_short(text: &[u8]) -> Option<f64> {
        let (neg, t) = match text.first()? {
            b'-' => (true, &text[1..]),
            b'+' => (false, &text[1..]),
            _ => (false, text),
        };
        let mut m = 0u64;
        let mut digits = 0u32; // significant digits taken into m
        let mut exp10 = 0i64;
        let mut seen_digit = false;
        let mut seen_point = false;
        let mut dropped_zero = false;
        let mut i = 0;
        while i < t.len() {
            match t[i] {
                c @ b'0'..=b'9' => {
                    seen_digit = true;
                    if m == 0 && c == b'0' {
                        // a leading zero is not significant
                    } else if digits < 19 && !dropped_zero {
                        m = m * 10 + (c - b'0') as u64;
                        digits += 1;
                    } else if c == b'0' {
                        // a trailing zero beyond 19 digits: m 10^exp10 is unchanged if every
                        // digit after it is a zero too
                        dropped_zero = true;
                        if !seen_point {
                            exp10 += 1;
                        }
                        i += 1;
                        continue;
                    } else {
                        return None;
                    }
                    if seen_point {
                        exp10 -= 1;
                    }
                }
                b'.' if !seen_point => seen_point = true,
                b'e' | b'E' => break,
                _ => return None,
            }
            i += 1;
        }
        if !seen_digit {
            return None;
        }
        if i < t.len() {
            let e = &t[i + 1..];
            let (eneg, e) = match e.first()? {
                b'-' => (true, &e[1..]),
                b'+' => (false, &e[1..]),
                _ => (false, e),
            };
            if e.is_empty() || e.len() > 6 || !e.iter().all(u8::is_ascii_digit) {
                return None;
            }
            let v = e.iter().fold(0i64, |v, &c| v * 10 + (c - b'0') as i64);
            exp10 += if eneg { -v } else { v };
        }
        let (q, sticky, e) = short_quotient(m, exp10)?;
        let x = round_to_f64(q, sticky, e);
        Some(if neg { -x } else { x })
    }
}

/// The correctly rounded double of decimal text in [`Exact::parse`]'s syntax (ties to even,
/// overflow to +-infinity, underflow to +-0), as Rust's float parser gives it; `None` when the
/// text is not such a number or lies beyond what [`Exact::parse`] reads.
pub fn parse_f64(text: &str) -> Option<f64> {
    let t = text.trim();
    binary::parse_short(t.as_bytes()).or_else(|| {
        // (an exact zero has no sign; the parser's -0 has)
        let x = Exact::parse(t)?.to_f64();
        Some(if t.starts_with('-') { -x.abs() } else { x })
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn text_that_is_no_number_is_named_and_echoed_briefly() {
        let msg = |t: &str| Number::Text(t.into()).resolve("A").unwrap_err().to_string();
        assert_eq!(
            msg(""),
            "A is empty: write a decimal such as 0.4, -2.5 or 1e-3"
        );
        assert_eq!(
            msg("abc"),
            "A = \"abc\" is not a number: write a decimal such as 0.4, -2.5 or 1e-3"
        );
        let long = msg(&"<i>".repeat(1000));
        assert!(
            long.starts_with(&format!("A = \"{}…\" is not a number", "<i>".repeat(13))),
            "{long}"
        );
        assert!(long.len() < 120, "{long}");
        let huge = msg(&"9".repeat(100_000));
        assert!(huge.contains("more than 2000 significant digits"), "{huge}");
        assert!(msg("1e9999999").contains("more than 2000 significant digits"));
    }

    #[test]
    fn parses_and_rounds_like_the_float_parser() {
        for t in [
            "0.4",
            "1.0000000000000002",
            "-5e-324",
            "1e-315",
            "2.5E3",
            ".5",
            "7.",
            "100",
            "0",
        ] {
            let e = Exact::parse(t).unwrap();
            assert_eq!(e.to_f64(), t.parse::<f64>().unwrap(), "{t}");
        }
        for t in [
            "", "-", "1e", "e5", "1.2.3", "0x10", "inf", "NaN", "1,5", "--1",
        ] {
            assert!(Exact::parse(t).is_none(), "{t}");
        }
    }

    /// xorshift64, for the sampled tests here and in `decimal.rs`.
    pub(crate) fn next(y: &mut u64) -> u64 {
        *y ^= *y << 13;
        *y ^= *y >> 7;
        *y ^= *y << 17;
        *y
    }

    /// `len` random decimal digits (a leading zero allowed).
    fn random_digits(y: &mut u64, len: u64) -> String {
        (0..len)
            .map(|_| char::from(b'0' + (next(y) % 10) as u8))
            .collect()
    }

    /// [`checked_quotient`] gives v / 10^k correctly rounded whenever it gives anything, and gives
    /// it for most quotients below 2^53 (those above are left to the exact division).
    #[test]
    fn checked_quotient_is_correctly_rounded() {
        let mut y = 0x0bad_cafe_dead_beefu64;
        let mut given = 0;
        for i in 0..30_000 {
            let v = (next(&mut y) >> (i % 12)) as i64 * if i % 2 == 0 { 1 } else { -1 };
            let k = (next(&mut y) % 19) as u32;
            let want = Exact::parse(&format!("{v}e-{k}")).unwrap().to_f64();
            if let Some(x) = checked_quotient(v, k) {
                assert_eq!(x.to_bits(), want.to_bits(), "{v}e-{k}");
                given += 1;
            }
        }
        assert!(given > 20_000, "{given}");
    }

    /// The short integer route of [`Exact::minus_f64`] gives what the general route gives (the
    /// sign of the exact difference and the same double), bit for bit: random short decimals
    /// against their own double, the doubles either side of it, the other sign, random doubles
    /// near and far, zero and the subnormals; and it is taken for the usual typed inputs.
    #[test]
    fn minus_f64_short_route_is_the_general_route() {
        let general = |e: &Exact, x: f64| {
            let d = e.sub(&Exact::from_f64(x));
            (d.signum(), d.to_f64())
        };
        let mut y = 0x2545_f491_4f6c_dd1du64;
        let mut short = 0;
        for i in 0..40_000 {
            let len = 1 + next(&mut y) % 19;
            let digits = random_digits(&mut y, len);
            let exp = (next(&mut y) % 60) as i64 - 40;
            let sign = if next(&mut y) & 1 == 1 { "-" } else { "" };
            let exact = Exact::parse(&format!("{sign}{digits}e{exp}")).unwrap();
            let v = exact.to_f64();
            let xs = [
                v,
                f64::from_bits(v.to_bits() + 1),
                f64::from_bits(v.to_bits().saturating_sub(1)),
                -v,
                0.0,
                5e-324,
                f64::from_bits(next(&mut y) >> 1),
                v * (1.0 + (i % 7) as f64 * 1e-3),
            ];
            for x in xs.into_iter().filter(|x| x.is_finite()) {
                let (sign, r) = exact.minus_f64(x);
                let (want_sign, want) = general(&exact, x);
                assert_eq!(sign, want_sign, "{exact:?} - {x:e}");
                assert_eq!(r.to_bits(), want.to_bits(), "{exact:?} - {x:e}");
                short += exact.short_minus_f64(x).is_some() as u32;
            }
        }
        assert!(short > 50_000, "the short route was taken {short} times");
        for text in [
            "0.0012994811002209016",
            "0.5003662657162936",
            "2.0794",
            "6.6119",
            "0.4",
        ] {
            let e = Exact::parse(text).unwrap();
            assert!(e.short_minus_f64(e.to_f64()).is_some(), "{text}");
        }
    }

    /// The integer route of [`Exact::to_f64`] and [`parse_f64`] against Rust's float parser, bit for
    /// bit: random decimals of 1 to 60 digits over the whole exponent range (overflow and the
    /// subnormals included), and the hard cases, decimals exactly halfway between two adjacent
    /// doubles and one unit of their last digit either side of it.
    #[test]
    fn rounds_every_decimal_like_the_float_parser() {
        let check = |text: &str| {
            let want = text.parse::<f64>().unwrap();
            let exact = Exact::parse(text).unwrap().to_f64();
            // (an exact zero has no sign in Exact: -0e5 is 0; a nonzero decimal keeps its sign)
            if want == 0.0 {
                assert_eq!(exact, 0.0, "{text}");
            } else {
                assert_eq!(exact.to_bits(), want.to_bits(), "{text}");
            }
            assert_eq!(parse_f64(text).unwrap().to_bits(), want.to_bits(), "{text}");
        };
        let mut y = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..20_000 {
            let len = 1 + next(&mut y) % 60;
            let digits = random_digits(&mut y, len);
            let exp = (next(&mut y) % 700) as i64 - 370;
            let point = (next(&mut y) % (len + 1)) as usize;
            let sign = if next(&mut y) & 1 == 1 { "-" } else { "" };
            check(&format!(
                "{sign}{}.{}e{exp}",
                &digits[..point],
                &digits[point..]
            ));
        }
        let mut halfway = 0;
        for i in 0..6_000 {
            let x = match i {
                0 => f64::MAX,
                1 => f64::MIN_POSITIVE,
                2 => 5e-324,
                3 => f64::MIN_POSITIVE - 5e-324,
                4 => 9007199254740992.0,
                _ => f64::from_bits(next(&mut y) >> 1),
            };
            if !x.is_finite() {
                continue;
            }
            let up = f64::from_bits(x.to_bits() + 1);
            let mid = if up.is_finite() {
                Exact::from_f64(x).add(&Exact::from_f64(up)).half()
            } else {
                // halfway from MAX to 2^1024
                Exact::from_f64(x).add(&Exact::from_f64(2f64.powi(970)).half())
            };
            let text = |m: &Big, e: i64| format!("{}e{e}", m.to_decimal());
            check(&text(&mid.mant, mid.exp10));
            // one unit of the last digit either side, one digit further down
            let finer = mid.mant.mul_small(10);
            check(&text(&finer.add(&Big::from_u64(1)), mid.exp10 - 1));
            check(&text(&finer.sub(&Big::from_u64(1)), mid.exp10 - 1));
            halfway += 1;
        }
        assert!(halfway > 5_000);
        // the short path's own syntax: leading and trailing zeros, signs, points
        for t in [
            "0",
            "-0",
            "+1",
            "007",
            "0.000",
            "1.",
            ".25",
            "1e-27",
            "123e27",
            "1.0000000000000000000000",
            "100000000000000000000000",
            "12345678901234567890",
            "1234567890123456789e-27",
            "0.30000000000000004",
            "-5e-324",
            "2.2250738585072011e-308",
            "1.7976931348623157e308",
            "1.7976931348623159e308",
            "4.9406564584124654e-324",
            "2.4703282292062328e-324",
            "2.4703282292062327e-324",
        ] {
            check(t);
        }
        for t in [
            "",
            "-",
            "e5",
            "1e",
            "1e+",
            ".",
            "1.2.3",
            "0x10",
            "inf",
            "NaN",
            "1,5",
            "--1",
            "1e1234567",
        ] {
            assert_eq!(parse_f64(t), None, "{t}");
        }
    }

    #[test]
    fn decides_on_the_exact_value() {
        // 5 * 0.4 = 2 exactly for the decimal, not for the double 0.4
        let q = Exact::parse("0.4").unwrap();
        assert_eq!(q.mul_int(5).cmp_exact(&Exact::int(2)), Ordering::Equal);
        let qd = Exact::from_f64(0.4);
        assert_eq!(qd.mul_int(5).cmp_exact(&Exact::int(2)), Ordering::Greater);
        // (1 + q)/2 - 1 > 0 for q = 1.0000000000000002, although 1 + q rounds to 2 in double
        let q = Exact::parse("1.0000000000000002").unwrap();
        let p = Exact::int(1).add(&q).half();
        assert_eq!(p.cmp_exact(&Exact::int(1)), Ordering::Greater);
        assert_eq!(p.sub(&Exact::int(1)).to_f64(), 1e-16);
        assert_eq!(Exact::from_f64(0.1).distance_to(0.1), 0.0);
        let r = Number::from("0.1").resolve("q").unwrap();
        assert!(r.rounding > 5e-18 && r.rounding < 6e-18, "{}", r.rounding);
        assert_eq!(Exact::from_f64(-3.0).add(&Exact::int(3)).signum(), 0);
    }

    #[test]
    fn dyadic_one_minus_multiple_is_the_exact_route() {
        // p = extra + q/2 for doubles q, at resonances, next to them and at random
        let mut qs = vec![
            0.05,
            0.1,
            0.2,
            0.4,
            0.5,
            1.0,
            2.0,
            0.3,
            1.0 / 3.0,
            2.0 / 41.0,
            1e-3,
        ];
        let mut s = 0x9e3779b97f4a7c15u64;
        for _ in 0..200 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            qs.push((s >> 11) as f64 / (1u64 << 53) as f64 * 4.0);
        }
        let mut checked = 0;
        for &q in &qs {
            for extra in [0.0, 0.5, 1.0] {
                let exact = Exact::from_f64(extra).add(&Exact::from_f64(q).half());
                let dyadic = Dyadic::from_f64(extra)
                    .unwrap()
                    .add(Dyadic::from_f64(q).unwrap().half())
                    .unwrap();
                // p and its distance to the exact p, as the general route gives them
                let p = dyadic.to_f64().unwrap();
                assert_eq!(p.to_bits(), exact.to_f64().to_bits(), "q={q} extra={extra}");
                let d = dyadic.distance_to(p).unwrap();
                assert_eq!(
                    d.to_bits(),
                    exact.distance_to(p).to_bits(),
                    "q={q} extra={extra}"
                );
                // 1 - i p: its sign and double
                for i in [1u64, 2, 3, 5, 20, 40, 41, 80, 297, 400, 1023] {
                    let Some((sign, x)) = dyadic.one_minus_multiple(i) else {
                        continue;
                    };
                    let want = Exact::int(1).sub(&exact.mul_int(i as i64));
                    assert_eq!(sign, want.signum(), "q={q} extra={extra} i={i}");
                    assert_eq!(
                        x.to_bits(),
                        want.to_f64().to_bits(),
                        "q={q} extra={extra} i={i}"
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 6000, "{checked}");
    }

    #[test]
    fn doubles_are_exact_in_their_shortest_form() {
        // the shortest form is the same rational, so it rounds back to the same double
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut samples = vec![
            0.5,
            0.025,
            1.0,
            3.0,
            -0.0,
            0.0,
            5e-324,
            f64::MIN_POSITIVE,
            1e300,
        ];
        for _ in 0..2000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let d = f64::from_bits(x);
            if d.is_finite() {
                samples.push(d);
            }
        }
        for d in samples {
            let e = Exact::from_f64(d);
            assert_eq!(e.to_f64(), d, "{d:e}");
            assert_eq!(e.signum(), if d == 0.0 { 0 } else { d.signum() as i32 });
            assert_eq!(e.add(&Exact::int(0)), e);
            assert_eq!(Exact::int(0).add(&e), e);
        }
        // the fast path of to_f64 against the parser, on short decimals either side of it
        let mut y = 0x1234_5678_9abc_def1u64;
        for _ in 0..5000 {
            y ^= y << 13;
            y ^= y >> 7;
            y ^= y << 17;
            let digits = (y >> 8) % (1 << (1 + (y % 56)));
            let exp = (y % 61) as i64 - 30;
            let text = format!("{}{digits}e{exp}", if y & 1 == 1 { "-" } else { "" });
            let e = Exact::parse(&text).unwrap();
            // (an exact zero has no sign: -0e5 is 0)
            let parsed = text.parse::<f64>().unwrap() + 0.0;
            assert_eq!(e.to_f64().to_bits(), parsed.to_bits(), "{text}");
        }
        // 1 - i x for short decimals, as the general route gives it (sign and rounding)
        // (and 16-17 digit ones, whose 10^-E - i M leaves 2^53: the quotient route)
        let mut texts: Vec<String> = [
            "0.025",
            "0.05",
            "0.4",
            "0.2",
            "1.5",
            "7",
            "0.001",
            "0.2501831328581468",
            "0.25018313285814680",
            "0.123456789012345",
            "0.0012994811002209",
        ]
        .map(String::from)
        .to_vec();
        for _ in 0..300 {
            y ^= y << 13;
            y ^= y >> 7;
            y ^= y << 17;
            texts.push(format!("0.{:017}", y % (1 << 53)));
        }
        for text in &texts {
            let x = Exact::parse(text).unwrap();
            for i in [1u64, 2, 3, 5, 8, 40, 41, 297, 1000, 1023] {
                let general = Exact::int(1).sub(&x.mul_int(i as i64));
                let (side, gap) = x.one_minus_multiple(i).expect(text);
                assert_eq!(side, general.signum(), "{text}, {i}");
                assert_eq!(
                    gap.to_bits(),
                    (general.to_f64() + 0.0).to_bits(),
                    "{text}, {i}"
                );
            }
        }
        assert_eq!(
            Exact::parse("0.2").unwrap().one_minus_multiple(5),
            Some((0, 0.0))
        );
        // p = q/2 from a 16-digit typed q: short (q's trailing zero from the halving dropped)
        let p = Exact::parse("0.5003662657162936").unwrap().half();
        assert_eq!(p.one_minus_multiple(40).map(|(side, _)| side), Some(-1));
        // a mantissa of 2^53 or more, or i >= 2^10: left to the general route
        let long = Exact::parse("0.12345678901234567").unwrap();
        assert_eq!(long.one_minus_multiple(1), None);
        assert_eq!(Exact::parse("0.2").unwrap().one_minus_multiple(1024), None);
        assert_eq!(Exact::parse("1e-30").unwrap().one_minus_multiple(5), None);
        assert_eq!(Exact::parse("-0.5").unwrap().one_minus_multiple(5), None);
        // 0.5 is 5e-1 (one digit), not a 1075-digit mantissa: the same as the typed decimal
        assert_eq!(Exact::from_f64(0.5), Exact::parse("0.5").unwrap());
        assert_eq!(Exact::from_f64(0.0), Exact::int(0));
        assert_eq!(Exact::from_f64(-0.0), Exact::int(0));
    }
}
