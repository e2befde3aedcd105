//! # depthlab: the network the depth bounds are about, measured
//!
//! A LLaMA-style decoder stack (RMSNorm or LayerNorm, causal multi-head attention with rotary
//! embeddings, SwiGLU or GELU MLP, no biases) with the norm placements the paper compares
//! ([`Placement`]), seeded or loaded from a Hugging Face `.safetensors` checkpoint ([`load`]), and
//! hand-written JVP and VJP of every operation ([`ops`]). [`run`] measures, per layer, the
//! residual-stream variance, ||J_l||_2 and ||J_l - I||_2 of the layer Jacobian over the whole
//! T x d stream, the end-to-end norms ||d x_(L+1) / d x_l||_2, parameter-gradient norms, the
//! angular-distance map, and sets the paper's bound (A, B of Eqs. 47-48 and the Eq. 9 / Eq. 15
//! products with the measured variances, certified by the `depthprod` core) beside them.
//! Definitions are in [`measure`]. Every run's memory is estimated before anything large is
//! allocated and refused above the caller's budget ([`memory`]); a checkpoint that asks for
//! something the lab does not model is refused by name ([`mod@load`]).
//!
//! Pure Rust, native and wasm32; `parallel` (rayon) is for native builds only.

// The modules import one way, never in a circle (tests/module_graph.rs checks): `parallel`,
// `linalg` and `error` import no other module; then the network (`ops`, `model`, `load`), the
// iterations (`ritz`, `lanczos`, `end_to_end`), what a run is asked (`spec`) and what it needs
// (`memory`, from the configuration alone), what it reports (`report`, `fits`, `bound`), how
// it is heard (`stages`) and joined (`shares`), and `measure`, which runs it.
mod bound;
mod end_to_end;
mod error;
mod fits;
pub mod lanczos;
mod linalg;
pub mod load;
pub mod measure;
pub mod memory;
pub mod model;
pub mod ops;
mod parallel;
mod report;
mod ritz;
mod shares;
mod spec;
mod stages;

pub use error::LabError;
pub use lanczos::{spectral_norm, LanczosOptions, NormEstimate};
pub use load::{load, FileConfig, Overrides};
pub use measure::{merge_shares, run, InputSpec, LabSpec, Report, Selection, Share};
pub use memory::{MemoryEstimate, DEFAULT_MEMORY_BUDGET};
pub use model::{Config, Gaussian, Model, Placement, Weights};
pub use ops::{rope_inv_freq, MlpKind, NormKind, RopeScaling};

/// Internals exposed for the tests (finite-difference checks of each operation); not a stable API.
#[doc(hidden)]
/// For the benchmarks (reported, never timed in tests): this build's GEMM rate and the floating-point
/// operations the lab's products have done, so a run's fraction of the GEMM peak can be reported.
pub mod bench {
    pub use crate::linalg::{gemm_flops, gemm_repeat, gemm_repeat_packed};
    pub use crate::model::layer_passes;
}

pub mod testing {
    pub use crate::linalg::{dot, norm2};
    pub use crate::ops::{
        attn_forward, attn_jvp, attn_vjp, gelu_and_derivative, mlp_forward, mlp_jvp, mlp_vjp,
        norm_forward, norm_jvp, norm_vjp, silu_and_derivative, AttnShape, Rope,
    };
}
