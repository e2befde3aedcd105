//! Errors: each names what is wrong and, for numbers, the accepted range.

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
            LabError::NonFinite(m) => write!(f, "non-finite value: {m}"),
            LabError::Cancelled => write!(f, "cancelled"),
        }
    }
}

impl std::error::Error for LabError {}
