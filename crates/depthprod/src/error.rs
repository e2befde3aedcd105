//! The one error type of the core. Every message names the parameter and what is allowed,
//! because the page shows it verbatim next to the control that caused it.

use std::fmt;

/// Why a computation was refused. Nothing in the core panics on bad input; it returns one of these.
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// A parameter is NaN or infinite.
    NotFinite { name: &'static str },
    /// A or B is nonzero but below [`crate::AB_FLOOR`] (see ARCHITECTURE.md, "Tiny A and B");
    /// `value` as typed.
    BelowFloor { name: &'static str, value: String },
    /// A parameter's text is not a decimal number, or (`oversized`) is one with more digits or a
    /// larger exponent than the core reads (see [`crate::exact::Exact::parse`]).
    NotANumber {
        name: &'static str,
        text: String,
        oversized: bool,
    },
    /// Power variance was given both q and eps (q = 2 - eps), or neither.
    QOrEps,
    /// A parameter lies outside the supported range: `value` as typed (cut to 40 characters),
    /// `range` as written, e.g. `[0, 100]` (see [`crate::ranges`]).
    OutOfRange {
        name: &'static str,
        value: String,
        range: String,
    },
    /// A/√c or B/c (`name`) lies outside its supported range (see [`crate::ranges`]): `approx`
    /// is the ratio to six digits, `from` the typed values it comes from.
    EffectiveOutOfRange {
        name: &'static str,
        approx: String,
        from: String,
        range: &'static str,
    },
    /// A/√c or B/c is nonzero but below [`crate::ranges::EFFECTIVE_FLOOR`].
    EffectiveBelowFloor {
        name: &'static str,
        approx: String,
        from: String,
    },
    /// The depth N is not an integer in 1..=10^18 (or `inf` where a limit is allowed).
    InvalidDepth { text: String },
    /// A measured variance list is empty, too long, or has a non-positive / non-finite entry.
    InvalidList { reason: String },
    /// N exceeds the length of a measured variance list.
    DepthBeyondList { n: u64, len: usize },
    /// The limit N -> infinity was asked of a finite measured list.
    NoLimitForList,
    /// A curve was asked of a product it does not describe (a remainder of a convergent product,
    /// a tail of a divergent one, Eq. 65 without a power law with q < 2).
    CurveDoesNotApply {
        curve: &'static str,
        reason: &'static str,
    },
    /// A caller passed an output slice whose length differs from the depths' (a programming
    /// error of a shell, reported instead of a panic).
    LengthMismatch { depths: usize, outputs: usize },
    /// An unknown family / variance-model name.
    UnknownName {
        what: &'static str,
        text: String,
        allowed: &'static str,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NotFinite { name } => write!(f, "{name} must be a finite number"),
            Error::NotANumber { name, text, .. } if text.trim().is_empty() => write!(
                f,
                "{name} is empty: write a decimal such as 0.4, -2.5 or 1e-3"
            ),
            Error::NotANumber {
                name,
                text,
                oversized: false,
            } => write!(
                f,
                "{name} = {text:?} is not a number: write a decimal such as 0.4, -2.5 or 1e-3"
            ),
            Error::NotANumber { name, text, .. } => write!(
                f,
                "{name} = {text:?} has more than 2000 significant digits or an exponent beyond ±{}: write a decimal inside the parameter's range",
                crate::exact::MAX_EXP10
            ),
            Error::QOrEps => write!(
                f,
                "power-law variance needs exactly one of q or eps (q = 2 - eps), not both and not neither"
            ),
            Error::OutOfRange { name, value, range } => {
                write!(f, "{name} = {value} is outside the supported range {range}")
            }
            Error::EffectiveOutOfRange {
                name,
                approx,
                from,
                range,
            } => write!(
                f,
                "{name} ≈ {approx} ({from}) is outside the supported range {range}: under a variance c l^q or c e^(lambda l) the products depend on A/√c and B/c only"
            ),
            Error::EffectiveBelowFloor { name, approx, from } => write!(
                f,
                "{name} ≈ {approx} ({from}) is nonzero but below {}: use {} = 0 or a smaller c (smaller values would underflow double precision inside the products)",
                crate::ranges::EFFECTIVE_FLOOR,
                &name[..1]
            ),
            Error::BelowFloor { name, value } => write!(
                f,
                "{name} = {value} is nonzero but below {}: use 0 or a value from {} to 100 (smaller values would underflow double precision inside the products)",
                crate::ranges::AB_FLOOR,
                crate::ranges::AB_FLOOR
            ),
            Error::InvalidDepth { text } => write!(
                f,
                "N = {text:?} is not a valid depth: use an integer from 1 to 1e18 (e.g. 1000000 or 1e6), or inf"
            ),
            Error::InvalidList { reason } => write!(f, "measured variance list: {reason}"),
            Error::DepthBeyondList { n, len } => write!(
                f,
                "N = {n} exceeds the measured list, which has {len} layers: N must be in [1, {len}]"
            ),
            Error::NoLimitForList => {
                write!(f, "a measured list is finite, so N = inf is not defined for it: N must be in [1, list length]")
            }
            Error::CurveDoesNotApply { curve, reason } => {
                write!(f, "the {curve} curve does not apply here: {reason}")
            }
            Error::LengthMismatch { depths, outputs } => write!(
                f,
                "{depths} depths were given but room for {outputs} values: the two lists must have the same length"
            ),
            Error::UnknownName { what, text, allowed } => {
                write!(f, "unknown {what} {text:?}: use one of {allowed}")
            }
        }
    }
}

impl std::error::Error for Error {}
