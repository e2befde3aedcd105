//! Errors: each names what is wrong and, for numbers, the accepted range.

use crate::memory::MemoryEstimate;
use std::fmt;

/// Why a lab run could not start or finish.
#[derive(Debug, Clone, PartialEq)]
pub enum LabError {
    /// A dimension or option outside its supported range.
    OutOfRange {
        name: &'static str,
        value: String,
        range: String,
    },
    /// Options that do not fit together (e.g. heads not dividing d).
    Inconsistent(String),
    /// A weights file that cannot be used (not safetensors, missing tensor, wrong shape, NaN...).
    Weights(String),
    /// A checkpoint that asks for something the lab does not model (rotary scaling, biases, a
    /// sharded file...): refused, because measuring the network without it would give numbers
    /// that silently differ from the checkpoint's own (Hugging Face's) network.
    Unsupported(String),
    /// The run would need more memory than the caller's budget ([`crate::memory`]). Checked before
    /// anything large is allocated: a failed allocation aborts the process (natively) or traps
    /// (wasm) instead of returning an error.
    TooLarge {
        estimate: MemoryEstimate,
        budget: u64,
    },
    /// A number became non-finite during the computation.
    NonFinite(String),
    /// The caller's `should_stop` returned true ([`crate::measure::run_streaming`]).
    Cancelled,
}

impl fmt::Display for LabError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LabError::OutOfRange { name, value, range } => {
                write!(f, "{name} = {value} is out of range: expected {range}")
            }
            LabError::Inconsistent(m) => write!(f, "{m}"),
            LabError::Weights(m) => write!(f, "weights: {m}"),
            LabError::Unsupported(m) => write!(f, "{m}"),
            LabError::TooLarge { estimate, budget } => estimate.describe(f, *budget),
            LabError::NonFinite(m) => write!(f, "non-finite value: {m}"),
            LabError::Cancelled => write!(f, "cancelled"),
        }
    }
}

impl std::error::Error for LabError {}
