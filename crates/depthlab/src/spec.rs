//! What a run is asked to do: the network's configuration and weights, the input, the Lanczos
//! options, which measurements ([`Selection`]) and which part of them ([`Share`]), and the memory
//! budget. Types only; [`crate::measure::validate`] checks them.

use crate::lanczos::LanczosOptions;
use crate::model::{Config, Weights};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Where x_1 comes from.
#[derive(Debug, Clone, PartialEq)]
pub enum InputSpec {
    /// Token ids through the embedding; `None` draws them from the seed.
    Tokens(Option<Vec<u32>>),
    /// x_1 ~ N(0, std^2) entrywise, drawn from the seed (token ids still drawn, for the loss).
    Gaussian { std: f64 },
}

/// Which measurements to run (all by default).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Selection {
    pub layer_norms: bool,
    pub end_to_end: bool,
    pub gradients: bool,
    pub angular: bool,
    /// Which part of the selected work this run does ([`Share::WHOLE`]: all of it).
    pub share: Share,
}

/// One of `count` parts of a run's measurements, so that `count` processes (the lab page's
/// workers) can measure one network side by side; [`crate::measure::merge_shares`] joins their
/// reports into the report of the whole run, bit for bit. Every share builds the model and runs
/// the forward pass (cheap beside the norms). Share 0 measures the end-to-end norms (one
/// iteration over all suffixes, longest first: it cannot be split without losing what each
/// suffix reuses from the ones before); the per-layer norms of layer l go to share
/// 1 + (l - 1) mod (count - 1) (to share 0 when count = 1); the last share also measures the
/// gradients and the angular distances. Each norm is computed by the same code on the same data
/// as in a whole run, which is why the merged numbers equal the whole run's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Share {
    pub index: usize,
    pub count: usize,
}

impl Share {
    /// The whole run.
    pub const WHOLE: Share = Share { index: 0, count: 1 };
    /// The most shares a run may be split into.
    pub const MAX_COUNT: usize = 64;

    pub(crate) fn has_layer(self, l: usize) -> bool {
        if self.count == 1 {
            true
        } else {
            1 + (l - 1) % (self.count - 1) == self.index
        }
    }

    pub(crate) fn has_end_to_end(self) -> bool {
        self.index == 0
    }

    pub(crate) fn has_extras(self) -> bool {
        self.index + 1 == self.count
    }
}

impl Default for Selection {
    fn default() -> Self {
        Selection {
            layer_norms: true,
            end_to_end: true,
            gradients: true,
            angular: true,
            share: Share::WHOLE,
        }
    }
}

/// A fully specified lab run.
#[derive(Debug, Clone)]
pub struct LabSpec {
    pub cfg: Config,
    pub seed: u64,
    /// Loaded weights; `None` draws them from the seed. Shared with the model the run builds
    /// (an `Arc`, not a copy: a checkpoint's f64 weights can be most of the memory a run has).
    pub weights: Option<Arc<Weights>>,
    pub input: InputSpec,
    pub lanczos: LanczosOptions,
    pub select: Selection,
    /// Bytes the run may use ([`crate::memory`]; [`crate::memory::DEFAULT_MEMORY_BUDGET`]
    /// natively, less in wasm32): a larger estimate is refused before anything is allocated.
    pub memory_budget: u64,
}

/// The largest `max_iter` accepted (each Lanczos iteration keeps one more T x d vector).
pub const MAX_ITER: usize = 10_000;
