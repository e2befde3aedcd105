//! docs/MATH.md, section 3.5: bounded product norms do not imply convergence. The product of
//! rotations by theta/l^r, l = 1..N, is the rotation by theta sum_{l<=N} l^-r: norm 1 for every N,
//! factors tending to the identity when r > 0, yet for r <= 1 the angle never settles.

use crate::double_double::two_prod;
use crate::zeta::power_sum;
use crate::Error;
use std::f64::consts::PI;

/// Largest N for which the product is also multiplied out factor by factor.
const DIRECT_MAX: u64 = 100_000;

/// A product of rotations.
#[derive(Debug, Clone, Copy, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Rotation {
    /// Total angle theta * sum_{l<=N} l^-r (not reduced).
    pub angle: f64,
    /// Row-major [m00, m01, m10, m11] of the product.
    pub matrix: [f64; 4],
    /// Spectral norm of the exact product: exactly 1, because a product of rotations is a
    /// rotation, an orthogonal matrix (the point of docs/MATH.md section 3.5). It is not measured on
    /// the rounded `matrix`, whose entries carry rounding (c^2 + s^2 = 1 within a few ulps).
    pub norm: f64,
}

fn check(theta: f64, r: u32, n: u64) -> Result<(), Error> {
    if !theta.is_finite() {
        return Err(Error::NotFinite { name: "theta" });
    }
    if theta.abs() > 100.0 {
        return Err(Error::OutOfRange {
            name: "theta",
            value: theta,
            min: -100.0,
            max: 100.0,
        });
    }
    if r > 8 {
        return Err(Error::OutOfRange {
            name: "r",
            value: r as f64,
            min: 0.0,
            max: 8.0,
        });
    }
    crate::Depth::finite(n)?;
    Ok(())
}

/// theta * sum_{l=1}^{n} l^-r.
pub fn rotation_angle(theta: f64, r: u32, n: u64) -> Result<f64, Error> {
    check(theta, r, n)?;
    Ok(if r == 0 {
        theta * n as f64
    } else {
        theta * power_sum(r as f64, Some(n)).0
    })
}

/// The angle reduced to (-pi, pi]; for r = 0 the product theta * n is reduced in double-double
/// arithmetic so that large n still give the right matrix.
fn reduced_angle(theta: f64, r: u32, n: u64) -> f64 {
    const TWO_PI_HI: f64 = std::f64::consts::TAU;
    const TWO_PI_LO: f64 = 2.449_293_598_294_706_4e-16;
    let (hi, lo) = if r == 0 {
        // n = n1 * 2^32 + n0 exactly; theta * n as an unevaluated sum.
        let (n1, n0) = ((n >> 32) as f64 * 4_294_967_296.0, (n & 0xffff_ffff) as f64);
        let (h1, l1) = two_prod(theta, n1);
        let (h0, l0) = two_prod(theta, n0);
        let s = h1 + h0;
        (s, (h1 - s) + h0 + l1 + l0)
    } else {
        (rotation_angle(theta, r, n).unwrap_or(0.0), 0.0)
    };
    let k = (hi / TWO_PI_HI).round();
    let (p, e) = two_prod(k, TWO_PI_HI);
    let reduced = ((hi - p) - e) - k * TWO_PI_LO + lo;
    if reduced > PI {
        reduced - TWO_PI_HI
    } else if reduced <= -PI {
        reduced + TWO_PI_HI
    } else {
        reduced
    }
}

/// The product R(theta/N^r) ... R(theta/1^r): multiplied out factor by factor for n <= 10^5
/// (so the norm shows the rounding of a real product), from the reduced total angle beyond.
pub fn rotation_product(theta: f64, r: u32, n: u64) -> Result<Rotation, Error> {
    check(theta, r, n)?;
    let angle = rotation_angle(theta, r, n)?;
    let matrix = if n <= DIRECT_MAX {
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
        m
    } else {
        let (s, c) = reduced_angle(theta, r, n).sin_cos();
        [c, -s, s, c]
    };
    Ok(Rotation {
        angle,
        matrix,
        norm: 1.0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn norm_one_and_angles() {
        for r in 0..=2 {
            for n in [1u64, 10, 1000, 100_000, 10_000_000, 1_000_000_000_000] {
                let rot = rotation_product(0.3, r, n).unwrap();
                assert_eq!(rot.norm, 1.0, "r={r} n={n}");
                // the rounded matrix itself is orthogonal to within a few ulps per factor
                let [a, b, c, d] = rot.matrix;
                let det = a * d - b * c;
                assert!((det - 1.0).abs() < 1e-10, "r={r} n={n} det {det}");
            }
        }
        // r = 2 converges to theta * pi^2/6
        let a = rotation_angle(0.3, 2, 1_000_000_000_000_000_000).unwrap();
        assert!((a - 0.3 * PI * PI / 6.0).abs() < 1e-15);
        // r = 1 grows like theta log N
        let a1 = rotation_angle(0.3, 1, 1_000_000).unwrap();
        assert!((a1 - 0.3 * (1e6f64.ln() + 0.577_215_664_901_532_9 + 0.5e-6)).abs() < 1e-12);
    }

    /// issue 14 item 8: `rotation --theta 1 --r 2 --n 1000` printed a norm 1.00000000745058
    /// (an eigenvalue formula that cancels); the norm of a product of rotations is exactly 1.
    #[test]
    fn the_norm_is_exactly_one() {
        assert_eq!(rotation_product(1.0, 2, 1000).unwrap().norm, 1.0);
        assert_eq!(rotation_product(-0.75, 1, 1_000_000).unwrap().norm, 1.0);
    }

    #[test]
    fn direct_and_reduced_agree() {
        for r in 0..=2 {
            let n = 100_000;
            let direct = rotation_product(0.7, r, n).unwrap().matrix;
            let (s, c) = reduced_angle(0.7, r, n).sin_cos();
            assert!(
                (direct[0] - c).abs() < 1e-9 && (direct[2] - s).abs() < 1e-9,
                "r = {r}"
            );
        }
    }

    #[test]
    fn bad_input() {
        assert!(rotation_product(f64::NAN, 1, 10).is_err());
        assert!(rotation_product(1.0, 9, 10).is_err());
        assert!(rotation_product(1.0, 1, 0).is_err());
    }
}
