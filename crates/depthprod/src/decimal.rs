//! Doubles as decimal text for messages, without the standard library's float formatter.
//!
//! `format!("{x}")` links core's Grisu and Dragon4 routines and their tables (about 20 KB of the
//! explorer's wasm module) for the few messages that name a number. The core already has what
//! they do: the exact decimal value of a double ([`Exact::from_f64`]) and a correctly rounded
//! parser ([`parse_f64`]). The shortest decimal that reads back as the same double is found by
//! rounding the exact digits to 1, 2, ... 17 significant digits and parsing each back; the text
//! is the same as Rust's `{}` / `{:e}` (a unit test compares them on 60,000 random doubles and every power of two).

use crate::exact::{parse_f64, Exact};

/// Significant digits and decimal point of |x| for a finite nonzero double:
/// |x| = 0.d1 d2 ... dk × 10^point, digits without trailing zeros.
fn exact_digits(x: f64) -> (Vec<u8>, i64) {
    let (mut digits, exp10) = Exact::from_f64(x.abs()).decimal_digits();
    let point = digits.len() as i64 + exp10;
    while digits.last() == Some(&0) {
        digits.pop();
    }
    (digits, point)
}

/// The first `k` of `digits` (k < digits.len()) rounded half up (the exact expansion is finite,
/// so a tie is exact); a carry out of the first digit moves the point.
fn round_to(digits: &[u8], point: i64, k: usize) -> (Vec<u8>, i64) {
    let out = digits[..k].to_vec();
    if digits[k] >= 5 {
        up_one(out, point)
    } else {
        (out, point)
    }
}

/// `digits` plus one unit in its last place.
fn up_one(mut digits: Vec<u8>, point: i64) -> (Vec<u8>, i64) {
    for d in digits.iter_mut().rev() {
        if *d == 9 {
            *d = 0;
        } else {
            *d += 1;
            return (digits, point);
        }
    }
    digits.insert(0, 1);
    digits.pop();
    (digits, point + 1)
}

/// Whether 0.digits × 10^point reads back as `target`.
fn reads_back(digits: &[u8], point: i64, target: f64) -> bool {
    let mut text: String = digits.iter().map(|&d| char::from(b'0' + d)).collect();
    text.push('e');
    text.push_str(&(point - digits.len() as i64).to_string());
    parse_f64(&text) == Some(target)
}

/// The shortest digits that read back as |x| (finite, nonzero), and among them the nearest to
/// it. The nearest k-digit decimal reads back whenever any k-digit decimal does, except at a
/// power of two, whose interval of doubles is narrower below: there the one above is tried too.
fn shortest_digits(x: f64) -> (Vec<u8>, i64) {
    let target = x.abs();
    let (exact, point) = exact_digits(x);
    for k in 1..exact.len() {
        let (near, p) = round_to(&exact, point, k);
        if reads_back(&near, p, target) {
            return trimmed(near, p);
        }
        // cut off, so below |x| (the digits after k are not all zero)
        if exact[k] < 5 {
            let (up, p) = up_one(near, p);
            if reads_back(&up, p, target) {
                return trimmed(up, p);
            }
        }
    }
    (exact, point)
}

fn trimmed(mut digits: Vec<u8>, point: i64) -> (Vec<u8>, i64) {
    while digits.len() > 1 && digits.last() == Some(&0) {
        digits.pop();
    }
    (digits, point)
}

fn push_digits(out: &mut String, digits: &[u8]) {
    out.extend(digits.iter().map(|&d| char::from(b'0' + d)));
}

/// Scientific text d.ddd…e±E of 0.digits × 10^point, as Rust's `{:e}` writes it.
fn scientific_text(out: &mut String, digits: &[u8], point: i64) {
    push_digits(out, &digits[..1]);
    if digits.len() > 1 {
        out.push('.');
        push_digits(out, &digits[1..]);
    }
    out.push('e');
    out.push_str(&(point - 1).to_string());
}

/// `None` for the values that have no digits: zero, infinities and NaN (as Rust writes them).
fn special(x: f64) -> Option<String> {
    if x.is_nan() {
        Some("NaN".into())
    } else if x.is_infinite() {
        Some(if x > 0.0 { "inf" } else { "-inf" }.into())
    } else if x == 0.0 {
        Some(if x.is_sign_negative() { "-0" } else { "0" }.into())
    } else {
        None
    }
}

/// `x` in plain decimal notation with the fewest digits that read back as `x`: Rust's `{x}`.
pub fn plain(x: f64) -> String {
    if let Some(s) = special(x) {
        return s;
    }
    let (digits, point) = shortest_digits(x);
    plain_text(x < 0.0, &digits, point)
}

/// 0.digits × 10^point (negated when `neg`) in plain decimal notation.
fn plain_text(neg: bool, digits: &[u8], point: i64) -> String {
    let mut out = String::from(if neg { "-" } else { "" });
    let k = digits.len() as i64;
    if point <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-point) as usize));
        push_digits(&mut out, digits);
    } else if point >= k {
        push_digits(&mut out, digits);
        out.extend(std::iter::repeat_n('0', (point - k) as usize));
    } else {
        push_digits(&mut out, &digits[..point as usize]);
        out.push('.');
        push_digits(&mut out, &digits[point as usize..]);
    }
    out
}

/// `x` rounded half up to `k >= 1` significant digits (trailing zeros dropped), laid out as
/// [`short`] lays out a double: for messages that name a derived value, such as A/√c, whose
/// digits beyond a few say nothing.
pub fn approx(x: f64, k: usize) -> String {
    if let Some(s) = special(x) {
        return s;
    }
    let (exact, point) = exact_digits(x);
    let (digits, point) = if exact.len() > k {
        round_to(&exact, point, k.max(1))
    } else {
        (exact, point)
    };
    let (digits, point) = trimmed(digits, point);
    let a = x.abs();
    if (1e-5..1e16).contains(&a) {
        plain_text(x < 0.0, &digits, point)
    } else {
        let mut out = String::from(if x < 0.0 { "-" } else { "" });
        scientific_text(&mut out, &digits, point);
        out
    }
}

/// `x` in scientific notation with the fewest digits that read back as `x`: Rust's `{x:e}`.
pub fn scientific(x: f64) -> String {
    if let Some(s) = special(x) {
        return if s.ends_with('0') {
            format!("{s}e0")
        } else {
            s
        };
    }
    let (digits, point) = shortest_digits(x);
    let mut out = String::from(if x < 0.0 { "-" } else { "" });
    scientific_text(&mut out, &digits, point);
    out
}

/// `x` in scientific notation with `after` digits after the point, rounded half up from the
/// exact value (Rust's `{x:.1e}` for `after = 1`, up to how an exact tie is rounded).
pub fn scientific_to(x: f64, after: usize) -> String {
    if let Some(s) = special(x) {
        return if x == 0.0 {
            let zeros = "0".repeat(after);
            format!("{s}{}{zeros}e0", if after > 0 { "." } else { "" })
        } else {
            s
        };
    }
    let (mut exact, point) = exact_digits(x);
    let (digits, point) = if exact.len() > after + 1 {
        round_to(&exact, point, after + 1)
    } else {
        exact.resize(after + 1, 0);
        (exact, point)
    };
    let mut out = String::from(if x < 0.0 { "-" } else { "" });
    scientific_text(&mut out, &digits, point);
    out
}

/// A double as messages show it: plain digits between 1e-5 and 1e16, scientific outside (a
/// message must never print 5e-324 as a 330-character decimal).
pub fn short(x: f64) -> String {
    let a = x.abs();
    if a == 0.0 || (1e-5..1e16).contains(&a) {
        plain(x)
    } else {
        scientific(x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn samples() -> Vec<f64> {
        let mut out = vec![
            0.0,
            -0.0,
            1.0,
            0.1,
            0.3,
            -2.5,
            100.0,
            1e-3,
            1e-5,
            9.999999999999999e-6,
            1e16,
            123456789012345680.0,
            5e-324,
            f64::MIN_POSITIVE,
            f64::MAX,
            f64::EPSILON,
            1e23,
            9.5,
            0.95,
            99.5,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        // every power of two (the narrower interval below) and its neighbours
        for e in -1074..1024 {
            let x = 2f64.powi(e);
            if x > 0.0 && x.is_finite() {
                out.extend([x, f64::from_bits(x.to_bits() + 1), -x]);
            }
        }
        let mut y = 0x2545_f491_4f6c_dd1du64;
        for i in 0..60_000 {
            let r = crate::exact::tests::next(&mut y);
            // random bit patterns, and short decimals (the digits messages mostly show)
            let x = if i % 2 == 0 {
                f64::from_bits(r)
            } else {
                (r % 1_000_000) as f64 * 10f64.powi((r >> 40) as i32 % 40 - 20)
            };
            if !x.is_nan() {
                out.push(x);
            }
        }
        out
    }

    #[test]
    fn plain_and_scientific_are_rusts_text() {
        for x in samples() {
            assert_eq!(plain(x), format!("{x}"), "{:016x}", x.to_bits());
            assert_eq!(scientific(x), format!("{x:e}"), "{:016x}", x.to_bits());
        }
        assert_eq!(plain(f64::NAN), "NaN");
    }

    #[test]
    fn scientific_to_rounds_the_exact_value() {
        for x in samples() {
            let ours = scientific_to(x, 1);
            let rust = format!("{x:.1e}");
            if ours != rust {
                // only an exact tie may round the other way (Rust rounds ties to even)
                let (exact, _) = exact_digits(x);
                assert!(exact.len() == 3 && exact[2] == 5, "{x:e}: {ours} vs {rust}");
            }
        }
        assert_eq!(scientific_to(0.000123456, 1), "1.2e-4");
        assert_eq!(scientific_to(9.96, 1), "1.0e1");
    }

    #[test]
    fn short_switches_to_scientific_outside_the_plain_range() {
        assert_eq!(short(150.0), "150");
        assert_eq!(short(1e-3), "0.001");
        assert_eq!(short(1e-7), "1e-7");
        assert_eq!(short(5e-324), "5e-324");
        assert_eq!(short(-2e20), "-2e20");
        assert_eq!(short(0.0), "0");
    }
}
