//! Errors: each names what is wrong and, for numbers, the accepted range. A refusal for memory
//! carries the estimate it was refused on ([`MemoryEstimate`], computed by [`crate::memory`]),
//! whose wording is here with the other messages.

use std::fmt;

/// 10^9 bytes: the unit of the messages.
pub const GB: u64 = 1_000_000_000;

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

/// The bytes a run needs at its peak, by kind (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct MemoryEstimate {
    /// One f64 copy of every weight tensor.
    pub weights: u64,
    /// The checkpoint file, while its tensors are widened (0 for seeded weights).
    pub file: u64,
    /// The forward caches and the largest stage's working set.
    pub activations: u64,
}

impl MemoryEstimate {
    /// The peak: the weights live throughout; the file is gone before the activations exist.
    pub fn total(&self) -> u64 {
        self.weights.saturating_add(self.file.max(self.activations))
    }

    /// `Err(LabError::TooLarge)` when the total exceeds `budget` bytes.
    pub fn check(&self, budget: u64) -> Result<(), LabError> {
        if self.total() > budget {
            Err(LabError::TooLarge {
                estimate: *self,
                budget,
            })
        } else {
            Ok(())
        }
    }

    /// The message of [`LabError::TooLarge`]: the total, its parts, the limit and what to shrink
    /// (the dimensions behind the largest part).
    pub(crate) fn describe(&self, f: &mut fmt::Formatter<'_>, budget: u64) -> fmt::Result {
        write!(
            f,
            "this network needs about {} of memory (weights {} as f64",
            human(self.total()),
            human(self.weights)
        )?;
        if self.file > 0 {
            write!(
                f,
                ", the checkpoint file {} while it is read",
                human(self.file)
            )?;
        }
        write!(
            f,
            ", activations {}); the limit is {} — ",
            human(self.activations),
            human(budget)
        )?;
        let advice = if self.activations > self.weights && self.activations >= self.file {
            "use smaller tokens, d, heads, d_ff or layers, or fewer Lanczos iterations (max_iter)"
        } else if self.file > 0 {
            "use a smaller checkpoint, or fewer of its layers (layers; the whole file is still read)"
        } else {
            "use smaller d, d_ff, layers or vocab"
        };
        f.write_str(advice)
    }
}

/// Bytes with one decimal in GB from 0.1 GB up ("52.3 GB", "8 GB", "0.4 GB"), else in MB or kB.
pub(crate) fn human(bytes: u64) -> String {
    let trim = |s: String| s.strip_suffix(".0").map(str::to_string).unwrap_or(s);
    let (unit, name) = if bytes >= GB / 10 {
        (GB, "GB")
    } else if bytes >= GB / 10_000 {
        (GB / 1000, "MB")
    } else {
        (GB / 1_000_000, "kB")
    };
    format!(
        "{} {name}",
        trim(format!("{:.1}", bytes as f64 / unit as f64))
    )
}
