//! # depthlab-wasm: the lab page's door to `depthlab`
//!
//! A thin translation layer and nothing else, built into its own wasm module
//! (`www/pkg/depthlab_wasm*`) so the explorer's module and first paint do not change: a spec in
//! (a plain JavaScript object, read field by field), [`depthlab::run`], the report out as a plain
//! object. No mathematics lives here. Every [`depthlab::LabError`] (and every malformed spec
//! field) becomes a thrown JavaScript `Error` whose message names the parameter and its range;
//! the panic hook is installed at start so a bug shows its message instead of a bare trap.
//!
//! The exported API (JavaScript names):
//!
//! | export | arguments | returns |
//! |---|---|---|
//! | `runLab(spec, weights, configJson, onProgress, onLayer, shouldStop)` | below; `weights` a `Uint8Array` of a `.safetensors` file or `undefined`; `configJson` the text of its `config.json` or `undefined`; the three callbacks functions or `undefined` | the report (below) |
//! | `mergeLabShares(reports)` | the reports of one spec's shares (`shareIndex` 0 .. `shareCount` - 1), any order | the whole run's report, bit for bit |
//! | `defaults()` | | the seeded defaults, `{d, heads, dff, tokens, layers, vocab, std, seed, tol, maxIter}` |
//! | `version()` | | the crate version |
//! | `gemmRepeat(m, k, n, reps)`, `gemmFlops()`, `layerPasses()` | | for `scripts/bench-lab.mjs`: `reps` products in the lab's layer layout (a checksum back), the floating-point operations of the lab's products so far, and the layer passes (one layer JVP or VJP of one vector) so far |
//!
//! **Spec** (every field optional; the defaults are the CLI's, so the same spec and seed give
//! the numbers of `depthprod lab --json` with the same flags): `norm` (`'pre'`, `'lns'`,
//! `'post'`, `'deepnorm'`, `'sandwich'`, `'mix'`), `d`, `heads`, `kvHeads`, `dff`, `tokens`,
//! `layers`, `vocab`, `std` (init std sigma), `seed`, `input` (`'tokens'` or `'gaussian'`),
//! `inputStd`, `normKind` (`'rms'`, `'layer'`), `mlp` (`'swiglu'`, `'gelu'`), `scaledInit`,
//! `tieEmbeddings`, `mixPostLayers` (default max(1, floor(L/4))), `deepnormAlpha`, `tol`,
//! `maxIter`, `endToEnd` (default `true`), `shareIndex` and `shareCount` (default 0 and 1, the
//! whole run: share `shareIndex` of `shareCount` measures only its part, `depthlab::Share`, and
//! `mergeLabShares` joins the parts). With `weights` the dimensions come from the file (and
//! `configJson`); `layers` may take a prefix of the file's layers and `tokens` sets T.
//!
//! **Memory**: a run whose estimated peak ([`depthlab::memory`]) exceeds [`MEMORY_BUDGET`]
//! (2 GB, of wasm32's 4 GiB) throws the lab's message naming the size and what to shrink,
//! instead of trapping when an allocation fails.
//!
//! **Report**: `depthlab::Report` through serde (absent values `null`): `config`, `seed`,
//! `token_ids`, `loss`, `final_variance`, `layers: [{layer, variance, jacobian_norm,
//! jacobian_minus_identity_norm, end_to_end_norm, grad_norm, log_product_of_norms,
//! grad_to_jacobian_minus_identity, jacobian, jacobian_minus_identity, end_to_end,
//! end_to_end_upper, grad_norms, bound_unscaled_log, bound_scaled_log, looseness_unscaled_log,
//! looseness_scaled_log}]` (the three norm estimates `{norm, residual, relative_residual,
//! iterations, converged, interval: [lo, hi]}`, `end_to_end_upper` the probabilistic upper bound
//! on the end-to-end norm),
//! `fit_power` / `fit_exponential` (`{c, rate, c_ci, rate_ci, r2}`), `bound: {a, b, b_factored,
//! sigma, unscaled, scaled, unscaled_power_fit, scaled_power_fit, errors}`, `angular_distance`,
//! `lanczos_tol`, `digest` (`{weights, input}`), `share` (`{index, count}`), `upper_bound`
//! (`{probes, probability, simultaneous}`: what each `end_to_end_upper` rests on; `null` without
//! the end-to-end norms). The per-layer names are the CLI contract's. Numbers are the doubles themselves
//! (no decimal round trip).
//!
//! **Streaming**: `onProgress(stage, done, total)` (stages in order `forward`, `end-to-end
//! Jacobians`, `layer Jacobians`, `gradients`) and `onLayer(update)` (one layer's measurements as
//! they finish: `{layer, ...}` with only the fields just measured, the per-layer names above, plus
//! the report's `bound` and `upper_bound` where said here; right after the forward pass each
//! layer's `variance` with its certified `bound_unscaled_log` and `bound_scaled_log`, layer 1's
//! also with `bound` (A, B, the products); then the end-to-end norms, longest suffix first, layer
//! 1's, the whole network's, before any other norm, each with `end_to_end`, `end_to_end_upper`,
//! `upper_bound` (`{probes, probability, simultaneous}`) and the `looseness_*` columns) are
//! called synchronously from inside the run, on the worker's thread. `shouldStop()` is polled
//! between layer operations; once it returns a truthy value the run ends with the error
//! `cancelled`. (The lab page cancels by terminating its worker instead: a worker busy in wasm
//! receives no messages, so nothing could flip the flag without cross-origin isolation.)

use depthlab::measure::{run_streaming, Hooks, LayerUpdate};
use depthlab::{
    Config, FileConfig, InputSpec, LabSpec, LanczosOptions, MlpKind, NormKind, Overrides,
    Placement, Report, Selection, Share,
};
use js_sys::{Function, Reflect};
use serde::Serialize;
use std::sync::Arc;
use wasm_bindgen::prelude::*;

/// The memory a run may use here: 2 GB of the 4 GiB a wasm32 module can address, the rest left
/// for what the estimate does not count (the allocator's slack and fragmentation, the module,
/// a checkpoint's bytes copied in from JavaScript). A larger run is refused with the lab's
/// message ("this network needs about ... the limit is 2 GB — use smaller ...") before anything
/// is allocated, instead of trapping with "unreachable" half-way.
pub const MEMORY_BUDGET: u64 = 2 * depthlab::memory::GB;

/// Installs the panic hook so a Rust panic shows its message in the console instead of a bare
/// `unreachable` trap.
#[wasm_bindgen(start)]
fn start() {
    console_error_panic_hook::set_once();
}

/// The crate version (the workspace version).
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

/// The defaults a seeded run uses for every field not given (the CLI's defaults).
#[wasm_bindgen]
pub fn defaults() -> Result<JsValue, JsError> {
    let c = Config::default_case();
    let o = cli_lanczos();
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Defaults {
        d: usize,
        heads: usize,
        dff: usize,
        tokens: usize,
        layers: usize,
        vocab: usize,
        std: f64,
        seed: u64,
        tol: f64,
        max_iter: usize,
    }
    to_js(&Defaults {
        d: c.d,
        heads: c.heads,
        dff: c.d_ff,
        tokens: c.tokens,
        layers: c.layers,
        vocab: c.vocab,
        std: c.init_std,
        seed: 1,
        tol: o.tol,
        max_iter: o.max_iter,
    })
}

/// The CLI's Lanczos options (`--tol 1e-6 --max-iter 300`), so page and CLI agree by default.
fn cli_lanczos() -> LanczosOptions {
    LanczosOptions {
        tol: 1e-6,
        max_iter: 300,
        ..LanczosOptions::default()
    }
}

/// `runLab(spec, weights, configJson, onProgress, onLayer, shouldStop)`: one lab run (see the
/// crate docs), through `depthlab::measure::run_streaming`.
/// `gemmRepeat(m, k, n, reps)`: `reps` products of the lab's layer layout in this module, for
/// `scripts/bench-lab.mjs`'s GEMM rate (returns a checksum).
#[wasm_bindgen(js_name = gemmRepeat)]
pub fn gemm_repeat(m: usize, k: usize, n: usize, reps: usize) -> f64 {
    depthlab::bench::gemm_repeat(m, k, n, reps)
}

/// `layerPasses()`: layer passes (one layer's JVP or VJP of one vector) since the module started,
/// for `scripts/bench-lab.mjs`'s count of a run's work.
#[wasm_bindgen(js_name = layerPasses)]
pub fn layer_passes() -> f64 {
    depthlab::bench::layer_passes() as f64
}

/// `gemmFlops()`: floating-point operations of the lab's products since the module started.
#[wasm_bindgen(js_name = gemmFlops)]
pub fn gemm_flops() -> f64 {
    depthlab::bench::gemm_flops() as f64
}

#[wasm_bindgen(js_name = runLab)]
pub fn run_lab(
    spec: JsValue,
    weights: Option<Vec<u8>>,
    config_json: Option<String>,
    on_progress: Option<Function>,
    on_layer: Option<Function>,
    should_stop: Option<Function>,
) -> Result<JsValue, JsError> {
    let spec = read_spec(&spec, weights.as_deref(), config_json.as_deref())?;
    // The checkpoint's bytes are widened into `spec` by now: free them before the run's
    // activations are allocated (the memory estimate counts the file only during the load).
    drop(weights);
    // A throwing callback must not abort the measurement: its error is the page's bug and shows
    // in the worker's console, so the results of the calls are dropped.
    let progress = |stage: &str, done: usize, total: usize| {
        if let Some(f) = &on_progress {
            let _ = f.call3(
                &JsValue::NULL,
                &JsValue::from_str(stage),
                &JsValue::from_f64(done as f64),
                &JsValue::from_f64(total as f64),
            );
        }
    };
    let layer = |update: &LayerUpdate| {
        if let Some(f) = &on_layer {
            if let Ok(v) = to_js(update) {
                let _ = f.call1(&JsValue::NULL, &v);
            }
        }
    };
    let stop = || match &should_stop {
        Some(f) => f
            .call0(&JsValue::NULL)
            .map(|v| v.is_truthy())
            .unwrap_or(false),
        None => false,
    };
    let hooks = Hooks {
        progress: &progress,
        on_layer: &layer,
        should_stop: &stop,
    };
    let report = run_streaming(&spec, &hooks).map_err(|e| JsError::new(&e.to_string()))?;
    to_js(&report)
}

/// `mergeLabShares(reports)`: the report of a whole run from the reports of its shares (an array,
/// one per share, any order), through `depthlab::merge_shares`: bit for bit the whole run's.
#[wasm_bindgen(js_name = mergeLabShares)]
pub fn merge_lab_shares(reports: JsValue) -> Result<JsValue, JsError> {
    let parts: Vec<Report> = serde_wasm_bindgen::from_value(reports).map_err(|e| {
        JsError::new(&format!(
            "internal error: the shares' reports could not be read: {e}"
        ))
    })?;
    let merged = depthlab::merge_shares(parts).map_err(|e| JsError::new(&e.to_string()))?;
    to_js(&merged)
}

/// Plain objects out, `null` for absent values.
fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsError> {
    let serializer = serde_wasm_bindgen::Serializer::new()
        .serialize_maps_as_objects(true)
        .serialize_missing_as_null(true);
    value.serialize(&serializer).map_err(|e| {
        JsError::new(&format!(
            "internal error: could not convert the report to JavaScript: {e}"
        ))
    })
}

/// `spec[name]`, `None` when absent, `null` or `undefined`.
fn get(spec: &JsValue, name: &str) -> Result<Option<JsValue>, JsError> {
    let v = Reflect::get(spec, &JsValue::from_str(name))
        .map_err(|_| JsError::new(&format!("spec.{name}: cannot be read")))?;
    Ok(if v.is_undefined() || v.is_null() {
        None
    } else {
        Some(v)
    })
}

fn number(spec: &JsValue, name: &str) -> Result<Option<f64>, JsError> {
    match get(spec, name)? {
        None => Ok(None),
        Some(v) => match v.as_f64() {
            Some(x) => Ok(Some(x)),
            None => Err(JsError::new(&format!(
                "{name}: expected a number, got {}",
                describe(&v)
            ))),
        },
    }
}

/// A non-negative integer field; the ranges themselves are `Config::validate`'s.
fn integer(spec: &JsValue, name: &str) -> Result<Option<u64>, JsError> {
    match number(spec, name)? {
        None => Ok(None),
        // 2^53: every larger double is an integer too, but no longer the one typed.
        Some(x)
            if x.is_finite() && x >= 0.0 && x.fract() == 0.0 && x <= 9_007_199_254_740_992.0 =>
        {
            Ok(Some(x as u64))
        }
        Some(x) => Err(JsError::new(&format!(
            "{name} = {x} is out of range: expected a whole number in [0, 2^53]"
        ))),
    }
}

fn size(spec: &JsValue, name: &str) -> Result<Option<usize>, JsError> {
    integer(spec, name)?
        .map(|n| {
            usize::try_from(n).map_err(|_| {
                JsError::new(&format!(
                    "{name} = {n} is out of range: too large for this build"
                ))
            })
        })
        .transpose()
}

fn text(spec: &JsValue, name: &str) -> Result<Option<String>, JsError> {
    match get(spec, name)? {
        None => Ok(None),
        Some(v) => v.as_string().map(Some).ok_or_else(|| {
            JsError::new(&format!("{name}: expected a string, got {}", describe(&v)))
        }),
    }
}

fn flag(spec: &JsValue, name: &str) -> Result<Option<bool>, JsError> {
    match get(spec, name)? {
        None => Ok(None),
        Some(v) => v.as_bool().map(Some).ok_or_else(|| {
            JsError::new(&format!(
                "{name}: expected true or false, got {}",
                describe(&v)
            ))
        }),
    }
}

fn describe(v: &JsValue) -> String {
    v.as_string()
        .map(|s| format!("{s:?}"))
        .unwrap_or_else(|| format!("{v:?}"))
}

fn choice<T: Copy>(
    spec: &JsValue,
    name: &str,
    options: &[(&str, T)],
    default: T,
) -> Result<T, JsError> {
    match text(spec, name)? {
        None => Ok(default),
        Some(s) => options
            .iter()
            .find(|(k, _)| *k == s)
            .map(|(_, v)| *v)
            .ok_or_else(|| {
                let names: Vec<&str> = options.iter().map(|(k, _)| *k).collect();
                JsError::new(&format!(
                    "{name} = {s:?} is not one of {}",
                    names.join(", ")
                ))
            }),
    }
}

#[derive(Clone, Copy)]
enum Input {
    Tokens,
    Gaussian,
}

/// The spec as the CLI's `spec()` builds it from the same flags (`crates/depthprod-cli/src/lab.rs`).
fn read_spec(
    spec: &JsValue,
    weights: Option<&[u8]>,
    config_json: Option<&str>,
) -> Result<LabSpec, JsError> {
    if !spec.is_object() {
        return Err(JsError::new(
            "invalid spec: expected an object such as {norm: 'pre', d: 128, heads: 4, ...}",
        ));
    }
    let placement = choice(
        spec,
        "norm",
        &[
            ("pre", Placement::Pre),
            ("lns", Placement::Lns),
            ("post", Placement::Post),
            ("deepnorm", Placement::DeepNorm),
            ("sandwich", Placement::Sandwich),
            ("mix", Placement::Mix),
        ],
        Placement::Pre,
    )?;
    let norm_kind = choice(
        spec,
        "normKind",
        &[("rms", NormKind::Rms), ("layer", NormKind::Layer)],
        NormKind::Rms,
    )?;
    let mlp = choice(
        spec,
        "mlp",
        &[("swiglu", MlpKind::SwiGlu), ("gelu", MlpKind::Gelu)],
        MlpKind::SwiGlu,
    )?;
    let input = choice(
        spec,
        "input",
        &[("tokens", Input::Tokens), ("gaussian", Input::Gaussian)],
        Input::Tokens,
    )?;
    let defaults = Config::default_case();
    let layers_given = size(spec, "layers")?;
    let mix_given = size(spec, "mixPostLayers")?;
    let base = Config {
        placement,
        norm_kind,
        mlp,
        tokens: size(spec, "tokens")?.unwrap_or(defaults.tokens),
        init_std: number(spec, "std")?.unwrap_or(defaults.init_std),
        scaled_init: flag(spec, "scaledInit")?.unwrap_or(false),
        deepnorm_alpha: number(spec, "deepnormAlpha")?,
        tie_embeddings: flag(spec, "tieEmbeddings")?.unwrap_or(false),
        ..defaults.clone()
    };
    let (cfg, loaded) = match weights {
        Some(bytes) => {
            let file_cfg = config_json
                .map(FileConfig::parse)
                .transpose()
                // The lab's messages name config.json themselves.
                .map_err(|e| JsError::new(&e.to_string()))?;
            // heads only matter without a config.json (a file's tensors do not say how q_proj
            // splits into heads); like the CLI's --heads, a given value overrides the file's.
            let ov = Overrides {
                layers: layers_given,
                heads: size(spec, "heads")?,
                kv_heads: size(spec, "kvHeads")?,
                ..Overrides::default()
            };
            let base = Config {
                mix_post_layers: 0,
                ..base
            };
            let (mut cfg, w) = depthlab::load(bytes, file_cfg.as_ref(), &base, &ov, MEMORY_BUDGET)
                .map_err(|e| JsError::new(&e.to_string()))?;
            cfg.mix_post_layers = mix_given.unwrap_or(Config::default_mix_post_layers(cfg.layers));
            (cfg, Some(Arc::new(w)))
        }
        None => {
            let heads = size(spec, "heads")?.unwrap_or(defaults.heads);
            let layers = layers_given.unwrap_or(defaults.layers);
            let cfg = Config {
                d: size(spec, "d")?.unwrap_or(defaults.d),
                heads,
                kv_heads: size(spec, "kvHeads")?.unwrap_or(heads),
                d_ff: size(spec, "dff")?.unwrap_or(defaults.d_ff),
                layers,
                vocab: size(spec, "vocab")?.unwrap_or(defaults.vocab),
                mix_post_layers: mix_given.unwrap_or(Config::default_mix_post_layers(layers)),
                ..base
            };
            (cfg, None)
        }
    };
    cfg.validate().map_err(|e| JsError::new(&e.to_string()))?;
    let input = match input {
        Input::Tokens => InputSpec::Tokens(None),
        Input::Gaussian => InputSpec::Gaussian {
            std: number(spec, "inputStd")?.unwrap_or(1.0),
        },
    };
    let cli = cli_lanczos();
    let spec = LabSpec {
        cfg,
        seed: integer(spec, "seed")?.unwrap_or(1),
        weights: loaded,
        input,
        lanczos: LanczosOptions {
            tol: number(spec, "tol")?.unwrap_or(cli.tol),
            max_iter: size(spec, "maxIter")?.unwrap_or(cli.max_iter),
            ..cli
        },
        select: Selection {
            end_to_end: flag(spec, "endToEnd")?.unwrap_or(true),
            share: Share {
                index: size(spec, "shareIndex")?.unwrap_or(0),
                count: size(spec, "shareCount")?.unwrap_or(1),
            },
            ..Selection::default()
        },
        memory_budget: MEMORY_BUDGET,
    };
    // Ranges, Lanczos options and memory (within MEMORY_BUDGET), before the run allocates.
    depthlab::measure::validate(&spec).map_err(|e| JsError::new(&e.to_string()))?;
    Ok(spec)
}
