//! How much memory a run needs, estimated from its configuration before anything large is
//! allocated.
//!
//! Why: a failed allocation does not return an error in Rust, it aborts the process (the CLI died
//! with "memory allocation of 68719476736 bytes failed", exit 134 and a backtrace, for a 1M x 8192
//! embedding) and traps a wasm module. Every dimension can be in range while their product is not
//! (d = 4096, d_ff = 11008, L = 32 is about 52 GB of f64 weights), so the run is refused up front
//! with [`LabError::TooLarge`], which names the sizes and the limit. The budget is the caller's:
//! [`DEFAULT_MEMORY_BUDGET`] natively, less in wasm32 (a 4 GiB address space), passed in
//! [`crate::LabSpec::memory_budget`] and to [`crate::load()`].
//!
//! What is counted, in bytes of f64 data (n = T d, f = T d_ff, k = T kv_heads d_head, P = heads T^2):
//! - **weights**: every tensor's element count times 8, exactly the vectors [`crate::Weights`] holds
//!   (checkpoints are widened to f64 whatever their dtype; a tied unembedding is not a copy), and
//!   for a run the copies of each layer's matrices that the model packs once for its products
//!   (two per matrix, one per layout, [`crate::ops::AttnPacked`], exactly their lengths). The load
//!   alone ([`crate::load()`]) counts the first part.
//! - **file**: a checkpoint's bytes, held while its tensors are widened. The file is dropped before
//!   the measurements start, so the peak is weights + max(file, activations).
//! - **activations**: what the forward pass keeps for the derivatives, x_1..x_(L+1) and every
//!   layer's caches (per layer about 7 n + 2 k + P + 4 f words: the normalised inputs, attention's
//!   q, k, v, softmax probabilities and output, the MLP's intermediates; Sandwich 2 n more), plus
//!   the largest working set of the stages that follow: the per-layer norms (each concurrent
//!   Lanczos run's basis and the basis vectors' two products, 3 min(max_iter, n) vectors of n in
//!   the worst case, a run that never converges), the end-to-end norms (every search direction
//!   keeps one vector per level still to come: at most (40 + 16) (L + 1) vectors of n, the
//!   subspace's cap and the directions a restart forms beside it), the gradients (one layer's
//!   parameter gradient and the 2 T vocab logits and their gradient) and the angular map.
//! - **packing**: each thread's matrix product packs panels of its operands, at most
//!   (64 + 512) x 256 words (about 1.2 MB; `linalg::gemm`).
//!
//! Accuracy (stated, and checked against the peak resident size of CLI runs on this machine, two
//! threads): the weights term is exact, and the whole estimate is an upper bound of the f64 data
//! held at the peak. Where weights and caches dominate it is within a factor 1.5 of the peak
//! resident size (default case: 239 MB estimated, 228 MB peak; d = 1024, d_ff = 4096, L = 4,
//! vocab 32000: 2.7 GB and 2.33 GB; T = 128, d = 256, L = 6, max_iter 40: 0.2 GB and 0.19 GB).
//! Where the Lanczos bases dominate it can be above the peak by up to max_iter / (iterations
//! used) on that term, because a run that does not converge would reach it (a smaller max_iter
//! runs such a case on a small budget). Not counted: the program itself, the allocator's slack,
//! and vectors of length O(T + d + L).

use crate::end_to_end::{BLOCK, KEEP_COLUMNS, MAX_COLUMNS};
use crate::lanczos::LanczosOptions;
use crate::model::{Config, Placement};
use crate::ops::{AttnPacked, MlpKind, MlpPacked};
use crate::parallel::worker_threads;
use crate::spec::Selection;

pub use crate::error::{MemoryEstimate, GB};

/// The native budget: 8 GB, a constant rather than a fraction of the machine's memory (which the
/// standard library cannot read portably). A laptop runs a run this large; the CLI's
/// `--memory-limit` raises it on a bigger machine.
pub const DEFAULT_MEMORY_BUDGET: u64 = 8 * GB;

/// u128 products clamped to u64: the estimate must not overflow whatever the dimensions.
fn clamp(x: u128) -> u64 {
    u64::try_from(x).unwrap_or(u64::MAX)
}

const F64: u128 = 8;

/// Elements of one layer's parameters (q, k, v, o, gate, up, down and four norm gains).
fn layer_elements(cfg: &Config) -> u128 {
    let (d, f) = (cfg.d as u128, cfg.d_ff as u128);
    let dkv = cfg.kv_heads as u128 * cfg.d_head() as u128;
    2 * d * d + 2 * dkv * d + 3 * f * d + 4 * d
}

/// Bytes of one f64 copy of the weights `cfg` describes (exact: the lengths of the vectors in
/// [`crate::Weights`]).
pub fn weight_bytes(cfg: &Config) -> u64 {
    let (d, v) = (cfg.d as u128, cfg.vocab as u128);
    let unembed = if cfg.tie_embeddings { 0 } else { v * d };
    clamp(F64 * (v * d + unembed + cfg.layers as u128 * layer_elements(cfg) + d))
}

/// Bytes of the copies of the layer matrices a [`crate::Model`] packs for its products (exact).
pub fn packed_bytes(cfg: &Config) -> u64 {
    let per_layer = AttnPacked::elements(cfg.attn_shape()) as u128
        + MlpPacked::elements(cfg.mlp, cfg.d, cfg.d_ff) as u128;
    clamp(F64 * cfg.layers as u128 * per_layer)
}

/// Bytes of everything but the weights at the run's peak (module documentation).
pub fn activation_bytes(cfg: &Config, lanczos: &LanczosOptions, select: &Selection) -> u64 {
    let t = cfg.tokens as u128;
    let n = t * cfg.d as u128;
    let f = t * cfg.d_ff as u128;
    let kw = t * cfg.kv_heads as u128 * cfg.d_head() as u128;
    let probs = cfg.heads as u128 * t * t;
    let layers = cfg.layers as u128;
    let workers = worker_threads() as u128;

    // One layer's forward cache and its input stream x_l.
    let norm = n + t;
    let attn = norm + 3 * n + 2 * kw + probs;
    let mlp_words = match cfg.mlp {
        MlpKind::SwiGlu => 4,
        MlpKind::Gelu => 3,
    };
    let mlp = norm + n + mlp_words * f;
    let sandwich = if cfg.placement == Placement::Sandwich {
        2 * norm
    } else {
        0
    };
    let kept = layers * (attn + mlp + sandwich + n) + 2 * n;

    // One layer JVP or VJP on b tangents: its intermediates (the sublayers' outputs and the
    // normalised tangents, the MLP's three d_ff-wide vectors, attention's q, k, v tangents).
    let op = |b: u128| b * (8 * n + 2 * kw + 4 * f + t);
    let mut stage = 0u128;
    if select.layer_norms {
        // Each Lanczos step keeps its basis vector and that vector's two products.
        let basis = 3 * (lanczos.max_iter as u128).min(n) + 6;
        stage = stage.max(workers.min(layers) * (basis * n + op(1)));
    }
    if select.end_to_end {
        // Every search direction keeps one vector per level (at most the cap, and the kept ones
        // while a restart forms them), plus the Ritz vectors checked and their images.
        let cols = (MAX_COLUMNS + KEEP_COLUMNS) as u128;
        let block = BLOCK as u128;
        stage = stage.max(cols * (layers + 1) * n + 6 * block * n + workers * op(1));
    }
    if select.gradients {
        stage = stage.max(layer_elements(cfg) + 2 * t * cfg.vocab as u128 + op(1) + 4 * n);
    }
    if select.angular {
        stage = stage.max((layers + 1) * (layers + 1));
    }
    // Each thread's product packs panels of its operands (`linalg::gemm`, about 1.2 MB).
    let packing = workers * crate::linalg::PACK_ELEMENTS as u128;
    clamp(F64 * (kept + stage + packing))
}

/// The estimate for a run of `cfg` (validated) with `file` bytes of checkpoint to read (0 when
/// seeded or already loaded).
pub fn estimate(
    cfg: &Config,
    file: u64,
    lanczos: &LanczosOptions,
    select: &Selection,
) -> MemoryEstimate {
    MemoryEstimate {
        weights: weight_bytes(cfg).saturating_add(packed_bytes(cfg)),
        file,
        activations: activation_bytes(cfg, lanczos, select),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::human;

    fn message(e: MemoryEstimate, budget: u64) -> String {
        e.check(budget).unwrap_err().to_string()
    }

    /// The audit's example: LLaMA-7B-like dimensions, about 52 GB of f64 weights.
    #[test]
    fn seven_billion_parameters_are_refused_with_their_size() {
        let cfg = Config {
            d: 4096,
            heads: 32,
            kv_heads: 32,
            d_ff: 11008,
            layers: 32,
            tokens: 256,
            ..Config::default_case()
        };
        cfg.validate().unwrap();
        let e = estimate(&cfg, 0, &LanczosOptions::default(), &Selection::default());
        // 32 layers of 4 d^2 + 3 d d_ff, two 256 x d embeddings, the gains.
        let params = 32 * (4 * 4096 * 4096 + 3 * 4096 * 11008 + 4 * 4096) + 2 * 256 * 4096 + 4096;
        assert_eq!(weight_bytes(&cfg), 8 * params);
        // The packed copies: two of each layer matrix (4096 and 11008 are whole panels: no
        // padding).
        let matrices = 32 * (4 * 4096 * 4096 + 3 * 4096 * 11008);
        assert_eq!(packed_bytes(&cfg), 2 * 8 * matrices);
        assert_eq!(e.weights, 8 * params + 2 * 8 * matrices);
        assert_eq!(e.total(), e.weights + e.activations);
        let msg = message(e, DEFAULT_MEMORY_BUDGET);
        let want = format!(
            "this network needs about {} of memory (weights 155.4 GB as f64, activations {}); \
             the limit is 8 GB — use smaller d, d_ff, layers or vocab",
            human(e.total()),
            human(e.activations)
        );
        assert_eq!(msg, want);
    }

    /// The default case fits any budget a browser tab has (the wasm crate's is 2 GB).
    #[test]
    fn the_default_case_is_small() {
        let e = estimate(
            &Config::default_case(),
            0,
            &LanczosOptions {
                max_iter: 300,
                ..LanczosOptions::default()
            },
            &Selection::default(),
        );
        assert!(e.total() < GB / 2, "{e:?}");
        assert!(e.check(2 * GB).is_ok());
    }

    /// Long sequences: the attention probabilities (heads T^2 per layer) dominate, and the advice
    /// names tokens first.
    #[test]
    fn activations_are_counted_and_named() {
        let cfg = Config {
            d: 256,
            heads: 128,
            kv_heads: 128,
            d_ff: 256,
            tokens: 4096,
            layers: 8,
            vocab: 256,
            ..Config::default_case()
        };
        cfg.validate().unwrap();
        let e = estimate(&cfg, 0, &LanczosOptions::default(), &Selection::default());
        // 8 layers x 128 heads x 4096^2 probabilities x 8 bytes = 137 GB at least.
        assert!(e.activations >= 8 * 8 * 128 * 4096 * 4096, "{e:?}");
        let msg = message(e, DEFAULT_MEMORY_BUDGET);
        assert!(msg.contains("use smaller tokens, d, heads"), "{msg}");
    }

    /// A checkpoint's own bytes count while it is read; the advice is about the checkpoint.
    #[test]
    fn the_file_counts_while_it_is_read() {
        let e = MemoryEstimate {
            weights: 6 * GB,
            file: 3 * GB,
            activations: GB / 2,
        };
        assert_eq!(e.total(), 9 * GB);
        let msg = message(e, DEFAULT_MEMORY_BUDGET);
        assert_eq!(
            msg,
            "this network needs about 9 GB of memory (weights 6 GB as f64, the checkpoint file \
             3 GB while it is read, activations 0.5 GB); the limit is 8 GB — use a smaller \
             checkpoint, or fewer of its layers (layers; the whole file is still read)"
        );
        assert!(e.check(9 * GB).is_ok());
    }

    /// The packed copies' estimate is the lengths the model allocates, padding included (d_ff =
    /// 300 and kv_heads < heads: panels that end part-way).
    #[test]
    fn packed_copies_are_counted_exactly() {
        for mlp in [MlpKind::SwiGlu, MlpKind::Gelu] {
            let cfg = Config {
                d: 64,
                heads: 4,
                kv_heads: 2,
                d_ff: 300,
                tokens: 4,
                layers: 2,
                vocab: 16,
                mlp,
                mix_post_layers: 1,
                ..Config::default_case()
            };
            let w = crate::Weights::seeded(&cfg, &mut crate::Gaussian::new(1));
            let model = crate::Model::new(cfg.clone(), w).unwrap();
            assert_eq!(
                packed_bytes(&cfg),
                8 * model.packed_elements() as u64,
                "{mlp:?}"
            );
        }
    }

    #[test]
    fn sizes_print_in_gb_or_mb() {
        assert_eq!(human(52_300_000_000), "52.3 GB");
        assert_eq!(human(8 * GB), "8 GB");
        assert_eq!(human(412_000_000), "0.4 GB");
        assert_eq!(human(12_340_000), "12.3 MB");
        assert_eq!(human(15_300), "15.3 kB");
        assert_eq!(human(u64::MAX), "18446744073.7 GB");
    }
}
