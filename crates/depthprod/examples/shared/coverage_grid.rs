//! The coverage grid, shared by `examples/coverage.rs` (the report), `tests/coverage.rs` (native:
//! the counts must equal `tests/reference/native_coverage.txt`) and the wasm crate's
//! `tests/coverage.rs` (wasm32 in node: the same counts and the same points, so the report holds
//! for both builds).
//!
//! Every point is judged twice, separately: does its enclosure contain an independent reference,
//! and is it narrower than 1e-12 (relative; absolute below 1)? A narrow enclosure that misses its
//! reference counts as narrow and as missing, never as "certified". The references:
//! - N = 10 and 10^3: a direct sum in double-double written here (its own TwoSum/TwoProd,
//!   exp and log by series and Newton steps; nothing of the core's evaluation), about 1e-30
//!   relative per term, compared with a margin of 1e-25 relative;
//! - N = 10^6 ... 10^18 and N = infinity: tests/reference/coverage_reference.txt, made with mpmath
//!   by tests/reference/make_coverage.py (two independent routes per value, agreeing to 1e-20),
//!   compared with its own error bound.
//!
//! The comparisons are exact (the core's exact rationals, not its evaluation).

#![allow(dead_code)]

use depthprod::exact::Exact;
use depthprod::{Enclosure, Family, Limit, Params, Plan};
use std::collections::HashMap;

/// A grid of the supported range: every family at every A, B, c, q and depth listed.
#[derive(Debug, Clone, Copy)]
pub struct Grid {
    pub name: &'static str,
    pub abs: &'static [f64],
    pub cs: &'static [f64],
    pub qs: &'static [f64],
    /// depths; `None` is N = infinity (the limit, or the constant C of a divergent product)
    pub ns: &'static [Option<u64>],
}

const DEPTHS: &[Option<u64>] = &[
    Some(10),
    Some(1_000),
    Some(1_000_000),
    Some(1_000_000_000),
    Some(1_000_000_000_000),
    Some(1_000_000_000_000_000_000),
    None,
];

/// The whole grid of the README's figures: 4 families x 5 A x 5 B x 3 c x 7 q x 7 depths.
pub const FULL: Grid = Grid {
    name: "full",
    abs: &[0.0, 0.01, 1.0, 10.0, 100.0],
    cs: &[1e-3, 1.0, 1e3],
    qs: &[0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 8.0],
    ns: DEPTHS,
};

/// Depths up to which the double-double direct sum is the reference.
const DIRECT_MAX: u64 = 1_000;

/// The mpmath references, one line per point: family A B c q N value abs_err.
const REFERENCE: &str = include_str!("../../../../tests/reference/coverage_reference.txt");

/// One grid point's outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    pub what: String,
    /// relative width (absolute below 1); infinity when not resolvable
    pub width: f64,
    /// whether the enclosure contains the point's reference (with the reference's error)
    pub contains: bool,
}

/// The counts, and every point that misses its reference, is wider than 1e-12 or is not
/// resolvable.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub total: usize,
    /// enclosures that contain their reference
    pub contain: usize,
    /// enclosures narrower than 1e-12
    pub narrow: usize,
    pub missing: Vec<Point>,
    pub wider: Vec<Point>,
    pub not_resolvable: Vec<Point>,
    /// every point, in grid order
    pub points: Vec<Point>,
}

/// A reference value with its error bound, exactly.
#[derive(Debug, Clone)]
struct Reference {
    value: Exact,
    err: Exact,
}

fn references() -> HashMap<String, Reference> {
    let mut out = HashMap::new();
    for line in REFERENCE.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(f.len(), 8, "reference line {line:?}");
        let key = f[..6].join(" ");
        let value = Exact::parse(f[6]).unwrap_or_else(|| panic!("{line}"));
        let err = Exact::parse(f[7]).unwrap_or_else(|| panic!("{line}"));
        out.insert(key, Reference { value, err });
    }
    out
}

/// Whether [value - err, value + err] lies inside the enclosure, decided exactly.
fn contains(e: &Enclosure, r: &Reference) -> bool {
    let lo = r.value.sub(&r.err);
    let hi = r.value.add(&r.err);
    e.lo.is_finite()
        && e.hi.is_finite()
        && lo.cmp_exact(&Exact::from_f64(e.lo)).is_ge()
        && hi.cmp_exact(&Exact::from_f64(e.hi)).is_le()
}

pub fn run(grid: &Grid) -> Report {
    let refs = references();
    let ln = direct::logs(DIRECT_MAX);
    let mut points = Vec::new();
    for family in Family::ALL {
        for &a in grid.abs {
            for &b in grid.abs {
                for &c in grid.cs {
                    for &q in grid.qs {
                        let plan = Plan::new(&Params::power(family, a, b, c, q)).unwrap();
                        let sums = direct::sums(family, a, b, c, q, &ln, &[10, DIRECT_MAX]);
                        for &n in grid.ns {
                            let e: Option<Enclosure> = match n {
                                Some(n) => Some(plan.log_product(n).unwrap()),
                                None => match plan.limit().unwrap() {
                                    Limit::Finite { log_limit } => Some(log_limit),
                                    Limit::Divergent { divergence } => divergence.constant,
                                },
                            };
                            let n_text = n.map_or("inf".to_string(), |n| n.to_string());
                            let key = format!("{} {a} {b} {c} {q} {n_text}", family.name());
                            let reference = match n {
                                Some(n) if n <= DIRECT_MAX => {
                                    let s = sums.iter().find(|(m, _)| *m == n).unwrap().1;
                                    direct::reference(s)
                                }
                                _ => refs
                                    .get(&key)
                                    .unwrap_or_else(|| panic!("no reference for {key}"))
                                    .clone(),
                            };
                            points.push(Point {
                                what: format!(
                                    "{family:?} A={a} B={b} c={c} q={q} N={}",
                                    n.map_or("inf/C".into(), |n| format!("{n:e}"))
                                ),
                                width: e.map_or(f64::INFINITY, |e| e.relative_width()),
                                contains: e.is_some_and(|e| contains(&e, &reference)),
                            });
                        }
                    }
                }
            }
        }
    }
    let narrow = points.iter().filter(|p| p.width <= 1e-12).count();
    let contain = points.iter().filter(|p| p.contains).count();
    let mut wider: Vec<Point> = points
        .iter()
        .filter(|p| p.width.is_finite() && p.width > 1e-12)
        .cloned()
        .collect();
    wider.sort_by(|x, y| y.width.total_cmp(&x.width));
    let not_resolvable = points
        .iter()
        .filter(|p| !p.width.is_finite())
        .cloned()
        .collect();
    let missing = points.iter().filter(|p| !p.contains).cloned().collect();
    Report {
        total: points.len(),
        contain,
        narrow,
        missing,
        wider,
        not_resolvable,
        points,
    }
}

impl Report {
    /// The fixture form: the counts, then each point that misses its reference, is wider than
    /// 1e-12 or is not resolvable, by name (widths are left out: they may differ in the last
    /// digits between targets, the classes not).
    pub fn summary(&self) -> String {
        let mut out = format!(
            "total {}\ncontain {}\nnarrower-than-1e-12 {}\nmissing {}\nwider {}\nnot-resolvable {}\n",
            self.total,
            self.contain,
            self.narrow,
            self.missing.len(),
            self.wider.len(),
            self.not_resolvable.len()
        );
        for p in &self.missing {
            out += &format!("missing {}\n", p.what);
        }
        let mut wider: Vec<&str> = self.wider.iter().map(|p| p.what.as_str()).collect();
        wider.sort_unstable();
        for w in wider {
            out += &format!("wider {w}\n");
        }
        for p in &self.not_resolvable {
            out += &format!("not-resolvable {}\n", p.what);
        }
        out
    }
}

/// The direct double-double sum that is the reference for N <= 10^3 (module docs).
mod direct {
    use super::Reference;
    use depthprod::exact::Exact;
    use depthprod::Family;

    /// hi + lo, |lo| <= ulp(hi)/2.
    #[derive(Debug, Clone, Copy)]
    pub struct Dd(f64, f64);

    fn two_sum(a: f64, b: f64) -> Dd {
        let s = a + b;
        let bb = s - a;
        Dd(s, (a - (s - bb)) + (b - bb))
    }

    fn split(x: f64) -> (f64, f64) {
        let c = 134_217_729.0 * x;
        let hi = c - (c - x);
        (hi, x - hi)
    }

    fn two_prod(a: f64, b: f64) -> Dd {
        let p = a * b;
        let ((ah, al), (bh, bl)) = (split(a), split(b));
        Dd(p, ((ah * bh - p) + ah * bl + al * bh) + al * bl)
    }

    impl Dd {
        fn of(x: f64) -> Dd {
            Dd(x, 0.0)
        }
        fn add(self, o: Dd) -> Dd {
            let s = two_sum(self.0, o.0);
            let t = two_sum(self.1, o.1);
            let v = two_sum(s.0, s.1 + t.0);
            two_sum(v.0, v.1 + t.1)
        }
        fn neg(self) -> Dd {
            Dd(-self.0, -self.1)
        }
        fn mul(self, o: Dd) -> Dd {
            let p = two_prod(self.0, o.0);
            two_sum(p.0, p.1 + (self.0 * o.1 + self.1 * o.0))
        }
        fn scale(self, k: f64) -> Dd {
            Dd(self.0 * k, self.1 * k)
        }
        /// self / o: the quotient's double, then one correction from the remainder.
        fn div(self, o: Dd) -> Dd {
            let q1 = self.0 / o.0;
            let r = self.add(o.mul(Dd::of(q1)).neg());
            let q2 = r.0 / o.0;
            let r = r.add(o.mul(Dd::of(q2)).neg());
            Dd::of(q1).add(Dd::of(q2)).add(Dd::of(r.0 / o.0))
        }
        fn sqrt(self) -> Dd {
            let s = self.0.sqrt();
            let r = self.add(two_prod(s, s).neg());
            Dd::of(s).add(Dd::of(r.0 / (2.0 * s)))
        }
        pub fn value(self) -> (f64, f64) {
            (self.0, self.1)
        }
    }

    /// log 2 as the double nearest and the double nearest the rest.
    const LN2: Dd = Dd(std::f64::consts::LN_2, 2.319_046_813_846_299_6e-17);

    /// e^x: x = k log 2 + r, |r| <= 0.35, the Taylor series of e^(r/1024) to 1e-40 and ten
    /// squarings.
    fn exp(x: Dd) -> Dd {
        if x.0 < -700.0 {
            return Dd::of(0.0);
        }
        let k = (x.0 / LN2.0).round();
        let r = x.add(LN2.scale(-k)).scale(1.0 / 1024.0);
        let (mut sum, mut term) = (Dd::of(1.0), Dd::of(1.0));
        for j in 1..16 {
            term = term.mul(r).scale(1.0 / j as f64);
            sum = sum.add(term);
        }
        for _ in 0..10 {
            sum = sum.mul(sum);
        }
        sum.scale(2f64.powi(k as i32))
    }

    /// log x for x > 0: one Newton step from the double's log, y + x e^-y - 1.
    fn ln(x: Dd) -> Dd {
        let y = x.0.ln();
        let y = Dd::of(y).add(x.mul(exp(Dd::of(-y)))).add(Dd::of(-1.0));
        y.add(x.mul(exp(y.neg()))).add(Dd::of(-1.0))
    }

    /// log(1 + y) for y >= 0: 2 atanh(y / (2 + y)) by its series for y <= 1/2 (relative accuracy
    /// for tiny y), log of 1 + y beyond.
    fn log1p(y: Dd) -> Dd {
        if y.0 > 0.5 {
            return ln(Dd::of(1.0).add(y));
        }
        let t = y.div(Dd::of(2.0).add(y));
        let t2 = t.mul(t);
        let (mut sum, mut power) = (t, t);
        for j in 1..40 {
            power = power.mul(t2);
            let term = power.scale(1.0 / (2 * j + 1) as f64);
            sum = sum.add(term);
            if term.0.abs() < 1e-36 * sum.0.abs() {
                break;
            }
        }
        sum.scale(2.0)
    }

    /// log l for l = 1..=n.
    pub fn logs(n: u64) -> Vec<Dd> {
        (0..=n)
            .map(|l| {
                if l == 0 {
                    Dd::of(0.0)
                } else {
                    ln(Dd::of(l as f64))
                }
            })
            .collect()
    }

    /// sum_{l=1}^{N} log(1 + A a_l + B a_l^2), a_l = kappa l^-p, at each N of `at` (increasing),
    /// in double-double; kappa = c^-1/2 and p from the exact doubles c and q.
    pub fn sums(
        family: Family,
        a: f64,
        b: f64,
        c: f64,
        q: f64,
        ln: &[Dd],
        at: &[u64],
    ) -> Vec<(u64, Dd)> {
        let (kappa, p) = match family {
            Family::Harmonic => (Dd::of(1.0), Dd::of(1.0)),
            f => {
                let kappa = Dd::of(1.0).div(Dd::of(c).sqrt());
                let extra = match f {
                    Family::Unscaled => 0.0,
                    Family::Scaled => 1.0,
                    _ => 0.5,
                };
                // extra + q/2: q/2 exact, the sum as a double-double
                (kappa, two_sum(extra, 0.5 * q))
            }
        };
        let alpha = kappa.scale(a);
        let beta = kappa.mul(kappa).scale(b);
        let mut out = Vec::new();
        let mut acc = Dd::of(0.0);
        let last = *at.last().unwrap();
        for l in 1..=last {
            let x = exp(p.mul(ln[l as usize]).neg());
            let y = alpha.mul(x).add(beta.mul(x.mul(x)));
            acc = acc.add(log1p(y));
            if at.contains(&l) {
                out.push((l, acc));
            }
        }
        out
    }

    /// A direct sum as a reference: its value with a margin of 1e-25 relative (far above the
    /// double-double sum's own error, far below any enclosure's width).
    pub fn reference(s: Dd) -> Reference {
        let value = Exact::from_f64(s.0).add(&Exact::from_f64(s.1));
        // (an exact 0, the empty product of A = B = 0, has no margin)
        let margin = s.0.abs() * 1e-25;
        Reference {
            value,
            err: Exact::from_f64(margin),
        }
    }
}
