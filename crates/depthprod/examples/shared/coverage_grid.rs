//! The coverage grid, shared by `examples/coverage.rs` (the report), `tests/coverage.rs` (native:
//! the counts must equal `tests/reference/native_coverage.txt`) and the wasm crate's
//! `tests/coverage.rs` (wasm32 in node: the same counts and the same points, so the report holds
//! for both builds).

#![allow(dead_code)]

use depthprod::{Enclosure, Family, Limit, Params, Plan};

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

/// One grid point's outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    pub what: String,
    /// relative width (absolute below 1); infinity when not resolvable
    pub width: f64,
}

/// The three counts the issue asks for, and every point that is not certified within 1e-12.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub total: usize,
    pub certified: usize,
    pub wider: Vec<Point>,
    pub not_resolvable: Vec<Point>,
    /// every point, in grid order
    pub points: Vec<Point>,
}

pub fn run(grid: &Grid) -> Report {
    let mut points = Vec::new();
    for family in Family::ALL {
        for &a in grid.abs {
            for &b in grid.abs {
                for &c in grid.cs {
                    for &q in grid.qs {
                        let plan = Plan::new(&Params::power(family, a, b, c, q)).unwrap();
                        for &n in grid.ns {
                            let e: Option<Enclosure> = match n {
                                Some(n) => Some(plan.log_product(n).unwrap()),
                                None => match plan.limit().unwrap() {
                                    Limit::Finite { log_limit } => Some(log_limit),
                                    Limit::Divergent { divergence } => divergence.constant,
                                },
                            };
                            points.push(Point {
                                what: format!(
                                    "{family:?} A={a} B={b} c={c} q={q} N={}",
                                    n.map_or("inf/C".into(), |n| format!("{n:e}"))
                                ),
                                width: e.map_or(f64::INFINITY, |e| e.relative_width()),
                            });
                        }
                    }
                }
            }
        }
    }
    let certified = points.iter().filter(|p| p.width <= 1e-12).count();
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
    Report {
        total: points.len(),
        certified,
        wider,
        not_resolvable,
        points,
    }
}

impl Report {
    /// The fixture form: the counts, then each point that is not certified within 1e-12, by name
    /// (widths are left out: they may differ in the last digits between targets, the classes not).
    pub fn summary(&self) -> String {
        let mut out = format!(
            "total {}\ncertified {}\nwider {}\nnot-resolvable {}\n",
            self.total,
            self.certified,
            self.wider.len(),
            self.not_resolvable.len()
        );
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
