//! docs/MATH.md, section 3.5: bounded product norms do not imply convergence. The product of
//! rotations by theta/l^r, l = 1..N, is the rotation by theta sum_{l<=N} l^-r: norm 1 for every N,
//! factors tending to the identity when r > 0, yet for r <= 1 the angle never settles.
//!
//! Every number is for the exact theta given (a typed decimal is the rational it denotes) and is
//! an enclosure (docs/MATH.md §5.9, Lemma R). The angle phi = theta H, H = sum_{l<=N} l^-r, is
//! reduced modulo 2 pi before the sine and cosine: for r = 0 the angle theta N is rational and
//! is reduced exactly against 2 pi written to 80 decimals (`TWO_PI`, off by less than 1e-80, so
//! the reduction errs by less than k 1e-80 < 2e-60 for the k <= 1.6e19 turns of N <= 10^18,
//! |theta| <= 100); for r >= 1 the angle is at most 100 (log 10^18 + 1) < 4300, H carries the
//! error bound of its Euler-Maclaurin sum, and the reduction is in double-double against
//! 4 (pi/2 in double-double), off by less than k 8e-33.

use crate::double_double::{sin_cos, two_prod, Dd, HALF_PI};
use crate::exact::{Exact, Number};
use crate::ranges::{self, Inputs};
use crate::sum::U;
use crate::zeta::power_sum;
use crate::{Enclosure, Error};

/// 2 pi to 80 decimals, truncated: 0 < 2 pi - TWO_PI < 1e-80 (a test checks the digits against
/// the double-double 4 (pi/2)).
const TWO_PI: &str =
    "6.28318530717958647692528676655900576839433879875021164194988918461563281257241799";
/// Bound on 2 pi - TWO_PI.
const TWO_PI_CUT: f64 = 1e-80;

/// A product of rotations, every number an enclosure for the exact theta.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Rotation {
    /// The total angle theta * sum_{l<=N} l^-r (not reduced).
    pub angle: Enclosure,
    /// The angle reduced modulo 2 pi into [-pi - 1e-15, pi + 1e-15] (the matrix's angle).
    pub reduced: Enclosure,
    /// Row-major [cos, -sin, sin, cos] of the reduced angle.
    pub matrix: [Enclosure; 4],
    /// Spectral norm of the exact product: exactly 1, because a product of rotations is a
    /// rotation, an orthogonal matrix (the point of docs/MATH.md section 3.5).
    pub norm: f64,
}

/// theta * sum_{l=1}^{n} l^-r, for the exact theta: an enclosure.
pub fn rotation_angle(theta: &Number, r: u32, n: u64) -> Result<Enclosure, Error> {
    Ok(angle(theta, r, n)?.0)
}

/// The checked theta (exact) and the angle as an enclosure and as a double-double reduced
/// modulo 2 pi (docs/MATH.md §5.9).
fn angle(theta: &Number, r: u32, n: u64) -> Result<(Enclosure, Dd), Error> {
    let checked = ranges::check(&Inputs {
        theta: Some(theta),
        r: Some(r),
        ..Inputs::default()
    })?;
    crate::Depth::finite(n)?;
    let theta = checked.theta.ok_or(Error::NotFinite { name: "theta" })?;
    if r == 0 {
        // theta n is rational: its enclosure and its reduction are exact up to TWO_PI's cut
        // n <= 10^18 < 2^63
        let total = theta.exact.mul(&Exact::int(n as i64));
        let value = total.to_f64();
        let total_enc = Enclosure::with_radius(value, total.distance_to(value));
        let reduced = reduce_exact(&total);
        return Ok((
            if total.minus_f64(value).0 == 0 {
                Enclosure::exact(value)
            } else {
                total_enc
            },
            reduced,
        ));
    }
    // H = sum l^-r with its error; theta H from theta's double and its distance
    let (h, h_err) = power_sum(r as f64, Some(n));
    let (p, e) = two_prod(theta.value, h);
    let err = theta.value.abs() * h_err + theta.rounding * (h.abs() + h_err);
    let total = Dd {
        hi: p,
        lo: e,
        err: err * (1.0 + 4.0 * U),
    };
    let value = total.value();
    let radius = total.err + (total.hi - value + total.lo).abs() + U * value.abs();
    let two_pi = Dd {
        hi: 4.0 * HALF_PI.hi,
        lo: 4.0 * HALF_PI.lo,
        err: 4.0 * HALF_PI.err,
    };
    let k = (value / two_pi.hi).round();
    let reduced = total.sub(Dd::exact(k).mul(two_pi));
    Ok((Enclosure::with_radius(value, radius), reduced))
}

/// x - k 2 pi for the exact rational x, with k the number of turns that brings it within
/// [-pi, pi] (up to rounding), as a double-double with its error bound: the subtraction is done
/// exactly against TWO_PI, whose cut adds k 1e-80, and the double-double's lo within u of itself.
fn reduce_exact(x: &Exact) -> Dd {
    let two_pi = Exact::parse(TWO_PI).unwrap_or_else(|| Exact::int(6));
    let tau = std::f64::consts::TAU;
    // two passes: the first k from x's double (off by up to |x| u / 2 pi turns), the second from
    // the remainder's (below 1e4 in size, so exact to the nearest turn up to rounding)
    let mut rest = x.clone();
    let mut turns = 0.0f64;
    for _ in 0..2 {
        let k = (rest.to_f64() / tau).round();
        if k != 0.0 {
            rest = rest.sub(&two_pi.mul(&Exact::from_f64(k)));
            turns += k.abs();
        }
    }
    let hi = rest.to_f64();
    let residual = rest.sub(&Exact::from_f64(hi));
    let lo = residual.to_f64();
    Dd {
        hi,
        lo,
        err: U * lo.abs() + (turns + 1.0) * TWO_PI_CUT,
    }
}

/// The product R(theta/N^r) ... R(theta/1^r) = R(theta sum_{l<=N} l^-r) for the exact theta:
/// every entry an enclosure (docs/MATH.md §5.9, Lemma R).
pub fn rotation_product(theta: &Number, r: u32, n: u64) -> Result<Rotation, Error> {
    let (angle, phi) = angle(theta, r, n)?;
    // a quarter turn j brings phi within pi/4 (+ rounding) of 0, where the series apply
    let j = (phi.value() / HALF_PI.hi).round();
    let psi = phi.sub(Dd::exact(j).mul(HALF_PI));
    let (s, c) = sin_cos(psi);
    let (sin, cos) = match (j as i64).rem_euclid(4) {
        0 => (s, c),
        1 => (c, s.neg()),
        2 => (s.neg(), c.neg()),
        _ => (c.neg(), s),
    };
    let enclose = |x: Dd| {
        let v = x.value();
        Enclosure::with_radius(v, x.err + (x.hi - v + x.lo).abs() + U * v.abs())
    };
    let (sin, cos) = (enclose(sin), enclose(cos));
    let minus_sin = Enclosure {
        value: -sin.value,
        lo: -sin.hi,
        hi: -sin.lo,
    };
    Ok(Rotation {
        angle,
        reduced: enclose(phi),
        matrix: [cos, minus_sin, sin, cos],
        norm: 1.0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(x: f64) -> Number {
        Number::Double(x)
    }

    #[test]
    fn norm_one_and_angles() {
        for r in 0..=2 {
            for n in [1u64, 10, 1000, 100_000, 10_000_000, 1_000_000_000_000] {
                let rot = rotation_product(&d(0.3), r, n).unwrap();
                assert_eq!(rot.norm, 1.0, "r={r} n={n}");
                let [a, b, c, dd] = rot.matrix.map(|e| e.value);
                let det = a * dd - b * c;
                assert!((det - 1.0).abs() < 1e-15, "r={r} n={n} det {det}");
                for e in rot.matrix {
                    assert!(e.width() < 1e-13, "r={r} n={n} {e:?}");
                }
            }
        }
        // r = 2 converges to theta * pi^2/6
        let a = rotation_angle(&d(0.3), 2, 1_000_000_000_000_000_000).unwrap();
        assert!(a.contains(0.3 * std::f64::consts::PI.powi(2) / 6.0) || a.width() < 1e-15);
        // r = 1 grows like theta log N
        let a1 = rotation_angle(&d(0.3), 1, 1_000_000).unwrap();
        assert!((a1.value - 0.3 * (1e6f64.ln() + 0.577_215_664_901_532_9 + 0.5e-6)).abs() < 1e-12);
    }

    /// The matrix multiplied out factor by factor (rounding a few ulps per factor) lies within
    /// that rounding of the certified one.
    #[test]
    fn factor_by_factor_agrees() {
        for r in 0..=2u32 {
            let n = 20_000u64;
            let theta = 0.7;
            let mut m = [1.0, 0.0, 0.0, 1.0];
            for l in 1..=n {
                let phi = theta * (l as f64).powi(-(r as i32));
                let (s, c) = phi.sin_cos();
                m = [
                    c * m[0] - s * m[2],
                    c * m[1] - s * m[3],
                    s * m[0] + c * m[2],
                    s * m[1] + c * m[3],
                ];
            }
            let rot = rotation_product(&d(theta), r, n).unwrap();
            for (x, e) in m.iter().zip(rot.matrix) {
                assert!((x - e.value).abs() < 1e-9, "r = {r}: {x} vs {e:?}");
            }
        }
    }

    /// The 80 digits of 2 pi agree with 4 (pi/2 in double-double) to its 8e-33, and lie below it.
    #[test]
    fn two_pi_digits() {
        let digits = Exact::parse(TWO_PI).unwrap();
        let hi = Exact::from_f64(4.0 * HALF_PI.hi);
        let lo = Exact::from_f64(4.0 * HALF_PI.lo);
        let diff = digits.sub(&hi).sub(&lo).to_f64();
        assert!(diff.abs() <= 4.0 * HALF_PI.err, "{diff:e}");
    }

    #[test]
    fn bad_input() {
        assert!(rotation_product(&d(f64::NAN), 1, 10).is_err());
        assert!(rotation_product(&d(1.0), 9, 10).is_err());
        assert!(rotation_product(&d(1.0), 1, 0).is_err());
        let msg = rotation_product(&Number::Text("100.00000000000000001".into()), 1, 10)
            .unwrap_err()
            .to_string();
        assert!(
            msg.starts_with("theta = 100.00000000000000001 is outside"),
            "{msg}"
        );
    }
}
