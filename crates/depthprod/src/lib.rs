//! # depthprod: certified log-products of the depth bounds
//!
//! Sun et al., "The Curse of Depth in Large Language Models" (arXiv 2502.05795), bound a
//! Transformer's Jacobian with products over depth. This crate evaluates
//!
//! ```text
//! log P_N = sum_{l=1}^{N} g(l),   g(l) = log(1 + A a_l + B a_l^2)
//! ```
//!
//! for the families of [`Family`] and the variance models of [`Variance`], for every N from 1 to
//! 10^18 and for N -> infinity, each result an [`Enclosure`] proven to contain the exact value.
//! See `ARCHITECTURE.md` at the repository root for the evaluation route; in short, for a power law
//! a_l = kappa l^-p the sum is split at two points: a short direct head, an Euler-Maclaurin middle
//! applied to g itself (only when the power series converges late), and a tail where
//! log(1 + A x + B x^2) = sum_k c_k x^k turns the sum into Hurwitz zeta differences.
//!
//! The crate is pure Rust and knows nothing of browsers: the wasm and CLI crates are thin shells.

mod bernoulli;
mod closed_forms;
mod coefficients;
pub mod decimal;
mod double_double;
mod enclosure;
mod error;
mod euler_maclaurin;
pub mod exact;
mod fit;
mod gauss;
mod params;
mod plan;
pub mod ranges;
mod rotation;
mod sum;
mod zeta;

pub use closed_forms::{
    closed_forms, eq65_exponent, eq65_limit, exponential_bound, zeta_bound, zeta_tail_bound,
    ClosedForms, ClosedFormsInput, Eq65,
};
pub use enclosure::{
    AsymptoticTerm, Bounds, Divergence, Enclosure, Growth, GrowthClass, Limit, Unresolved,
};
pub use error::Error;
pub use exact::Number;
pub use fit::{fit_power_law, PowerFit};
pub use params::{
    parse_list, Depth, Family, Params, ParamsInput, Variance, VarianceInput, AB_FLOOR, AB_RANGE,
    C_RANGE, LAMBDA_RANGE, MAX_DEPTH, MAX_LIST_LEN, Q_RANGE,
};
pub use plan::{
    depth_grid, tail_width, CurveKind, CurveWidth, Evaluation, Plan, RouteOptions, TAIL_WIDTH_FLOOR,
};
pub use rotation::{rotation_angle, rotation_product, Rotation};
pub use sum::LIBM_REL;
pub use zeta::riemann_zeta;
