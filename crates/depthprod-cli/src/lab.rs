//! `depthprod lab`: the network lab in the terminal. Parses flags, resolves the configuration
//! (flags over the checkpoint's config.json over its tensor shapes over the defaults), calls
//! `depthlab::run` and prints a table or the JSON of the CLI contract. No mathematics here.

use clap::{Args, ValueEnum};
use depthlab::measure::MAX_ITER;
use depthlab::{
    Config, FileConfig, InputSpec, LabError, LabSpec, LanczosOptions, MlpKind, NormEstimate,
    NormKind, Overrides, Placement, Report, Selection,
};
use serde_json::{json, Value};
use std::io::{IsTerminal, Read, Write};
use std::sync::Arc;

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum NormArg {
    Pre,
    Lns,
    Post,
    Deepnorm,
    Sandwich,
    Mix,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum NormKindArg {
    Rms,
    Layer,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum MlpArg {
    Swiglu,
    Gelu,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum InputArg {
    Tokens,
    Gaussian,
}

/// Measure a LLaMA-style decoder stack: per-layer variance, ||J_l||_2, ||J_l - I||_2, end-to-end
/// norms ||d x_(L+1)/d x_l||_2, parameter-gradient norms, angular distances, and the paper's
/// certified bound (Eqs. 9 and 15 with A, B of Eqs. 47-48 and the measured variances) beside them.
#[derive(Debug, Args)]
pub struct LabArgs {
    /// Norm placement: pre, lns (norm output times 1/sqrt(l)), post, deepnorm, sandwich, mix.
    #[arg(long, value_enum, default_value = "pre")]
    norm: NormArg,
    /// Model width d (default 128; from the file with --weights).
    #[arg(long, allow_negative_numbers = true)]
    d: Option<i64>,
    /// Attention heads h (default 4).
    #[arg(long, allow_negative_numbers = true)]
    heads: Option<i64>,
    /// Key/value heads (grouped-query attention; default = heads).
    #[arg(long = "kv-heads", allow_negative_numbers = true)]
    kv_heads: Option<i64>,
    /// MLP width d_ff (default 344).
    #[arg(long = "d-ff", allow_negative_numbers = true)]
    d_ff: Option<i64>,
    /// Sequence length T (default 32).
    #[arg(long, allow_negative_numbers = true)]
    tokens: Option<i64>,
    /// Number of layers L (default 32; with --weights at most the file's count).
    #[arg(long, allow_negative_numbers = true)]
    layers: Option<i64>,
    /// Vocabulary size of seeded networks (default 256).
    #[arg(long, allow_negative_numbers = true)]
    vocab: Option<i64>,
    /// Init std sigma of every matrix (0.02 as in the paper's configs); also the sigma of A and B.
    #[arg(
        long = "init-std",
        default_value_t = 0.02,
        allow_negative_numbers = true
    )]
    init_std: f64,
    /// Seed of the weights, the token ids and the Gaussian inputs.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// A Hugging Face LlamaForCausalLM .safetensors file (config.json beside it is read).
    #[arg(long)]
    weights: Option<String>,
    /// Token ids, comma separated (else drawn from the seed); their count sets T.
    #[arg(long = "input-ids")]
    input_ids: Option<String>,
    /// Inputs: token ids through the embedding, or Gaussian residual inputs x_1.
    #[arg(long, value_enum, default_value = "tokens")]
    input: InputArg,
    /// Std of the Gaussian inputs.
    #[arg(
        long = "input-std",
        default_value_t = 1.0,
        allow_negative_numbers = true
    )]
    input_std: f64,
    /// RMSNorm (LLaMA) or LayerNorm without bias.
    #[arg(long = "norm-kind", value_enum, default_value = "rms")]
    norm_kind: NormKindArg,
    /// SwiGLU (LLaMA) or GELU (tanh form) MLP.
    #[arg(long, value_enum, default_value = "swiglu")]
    mlp: MlpArg,
    /// Norm epsilon (default 1e-6, or rms_norm_eps from config.json).
    #[arg(long, allow_negative_numbers = true)]
    eps: Option<f64>,
    /// Rotary base (default 10000; with --weights, config.json's rope_theta, top level or in rope_parameters).
    #[arg(long = "rope-theta", allow_negative_numbers = true)]
    rope_theta: Option<f64>,
    /// Scale the output projections' init std by 1/sqrt(2 L).
    #[arg(long = "scaled-init")]
    scaled_init: bool,
    /// Mix-LN: number k of leading Post-LN layers (default max(1, floor(L/4)): Mix-LN's quarter,
    /// at least one layer, so "mix" is never Pre-LN).
    #[arg(long = "mix-post-layers", allow_negative_numbers = true)]
    mix_post_layers: Option<i64>,
    /// DeepNorm residual multiplier alpha (default (2 L)^(1/4)).
    #[arg(long = "deepnorm-alpha", allow_negative_numbers = true)]
    deepnorm_alpha: Option<f64>,
    /// Seeded networks: unembedding tied to the embedding.
    #[arg(long = "tie-embeddings")]
    tie_embeddings: bool,
    /// Relative tolerance of the Lanczos iterations (residual / Rayleigh quotient).
    #[arg(long, default_value_t = 1e-6, allow_negative_numbers = true)]
    tol: f64,
    /// Iteration cap of each Lanczos run (a norm that reaches it unconverged is marked * in the
    /// table, with a warning on stderr).
    #[arg(
        long = "max-iter",
        default_value_t = 300,
        allow_negative_numbers = true
    )]
    max_iter: i64,
    /// Skip the end-to-end norms (the costliest measurement: L(L+1)/2 layer passes per step).
    #[arg(long = "no-end-to-end")]
    no_end_to_end: bool,
    /// Memory the run may use, in GB (10^9 bytes): a run estimated above it is refused before
    /// anything is allocated, instead of aborting when an allocation fails.
    #[arg(
        long = "memory-limit",
        value_name = "GB",
        default_value_t = depthlab::DEFAULT_MEMORY_BUDGET as f64 / 1e9,
        allow_negative_numbers = true
    )]
    memory_limit: f64,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    json: bool,
}

/// A dimension flag as given. Clap parses an i64, so that "-5" is a value (not clap's "unexpected
/// argument"); a negative one is left out of the configuration here and reported by
/// [`negative_flag`] with the range `Config::validate` would give.
fn size(v: Option<i64>) -> Option<usize> {
    v.and_then(|x| usize::try_from(x).ok())
}

/// The first negative dimension flag, in `Config::validate`'s order, as its range error with the
/// run's other values (`heads` is at most the d the run would use, ...).
fn negative_flag(args: &LabArgs, cfg: &Config) -> Result<(), String> {
    let given = [
        ("d", args.d),
        ("heads", args.heads),
        ("kv_heads", args.kv_heads),
        ("d_ff", args.d_ff),
        ("tokens", args.tokens),
        ("layers", args.layers),
        ("vocab", args.vocab),
        ("mix_post_layers", args.mix_post_layers),
    ];
    let out_of_range = |name, value: i64, lo: usize, hi: usize| {
        Err(LabError::OutOfRange {
            name,
            value: value.to_string(),
            range: format!("an integer in [{lo}, {hi}]"),
        }
        .to_string())
    };
    for (name, _, lo, hi) in cfg.integer_params() {
        if let Some((_, Some(v))) = given.iter().find(|(n, _)| *n == name) {
            if *v < 0 {
                return out_of_range(name, *v, lo, hi);
            }
        }
    }
    if args.max_iter < 0 {
        return out_of_range("max_iter", args.max_iter, 1, MAX_ITER);
    }
    Ok(())
}

/// `--memory-limit` in bytes.
fn memory_budget(args: &LabArgs) -> Result<u64, String> {
    let gb = args.memory_limit;
    if gb.is_finite() && gb > 0.0 {
        // A float-to-int `as` saturates: a huge limit is u64::MAX bytes, i.e. no limit.
        Ok((gb * 1e9) as u64)
    } else {
        Err(format!(
            "memory-limit = {gb} is out of range: expected a positive number of GB"
        ))
    }
}

/// A lab error as the CLI's one line; a memory refusal also names the flag that raises the limit.
fn lab_error(e: LabError) -> String {
    match e {
        LabError::TooLarge { .. } => format!("{e}, or raise --memory-limit (in GB)"),
        e => e.to_string(),
    }
}

/// The length of the file at `path` and its safetensors header (the first
/// `depthlab::load::header_len` bytes), read without reading the tensors.
fn read_header(path: &str) -> Result<(u64, Vec<u8>), String> {
    let cannot = |e: std::io::Error| format!("--weights: cannot read {path}: {e}");
    let mut file = std::fs::File::open(path).map_err(cannot)?;
    let len = file.metadata().map_err(cannot)?.len();
    let mut header = Vec::with_capacity(8);
    (&mut file)
        .take(8)
        .read_to_end(&mut header)
        .map_err(cannot)?;
    let n = depthlab::load::header_len(&header, len).map_err(lab_error)?;
    header.resize(n, 0);
    file.read_exact(&mut header[8..]).map_err(cannot)?;
    Ok((len, header))
}

fn parse_ids(text: &str) -> Result<Vec<u32>, String> {
    text.split(',')
        .map(|t| t.trim())
        .filter(|t| !t.is_empty())
        .enumerate()
        .map(|(i, t)| {
            t.parse::<u32>().map_err(|_| {
                format!(
                    "--input-ids: entry {} ({t:?}) is not a non-negative integer",
                    i + 1
                )
            })
        })
        .collect()
}

fn spec(args: &LabArgs) -> Result<LabSpec, String> {
    let placement = match args.norm {
        NormArg::Pre => Placement::Pre,
        NormArg::Lns => Placement::Lns,
        NormArg::Post => Placement::Post,
        NormArg::Deepnorm => Placement::DeepNorm,
        NormArg::Sandwich => Placement::Sandwich,
        NormArg::Mix => Placement::Mix,
    };
    let budget = memory_budget(args)?;
    let ids = args.input_ids.as_deref().map(parse_ids).transpose()?;
    if let (Some(ids), Some(t)) = (&ids, size(args.tokens)) {
        if ids.len() != t {
            return Err(format!(
                "--input-ids has {} ids but --tokens is {t}",
                ids.len()
            ));
        }
    }
    let tokens = size(args.tokens)
        .or(ids.as_ref().map(|v| v.len()))
        .unwrap_or(32);
    let defaults = Config::default_case();
    let mut base = Config {
        placement,
        norm_kind: match args.norm_kind {
            NormKindArg::Rms => NormKind::Rms,
            NormKindArg::Layer => NormKind::Layer,
        },
        mlp: match args.mlp {
            MlpArg::Swiglu => MlpKind::SwiGlu,
            MlpArg::Gelu => MlpKind::Gelu,
        },
        tokens,
        init_std: args.init_std,
        scaled_init: args.scaled_init,
        deepnorm_alpha: args.deepnorm_alpha,
        tie_embeddings: args.tie_embeddings,
        ..defaults.clone()
    };
    let lanczos = LanczosOptions {
        tol: args.tol,
        max_iter: usize::try_from(args.max_iter).unwrap_or(0),
        ..LanczosOptions::default()
    };
    let select = Selection {
        end_to_end: !args.no_end_to_end,
        ..Selection::default()
    };
    let mix = |layers: usize| {
        size(args.mix_post_layers).unwrap_or(Config::default_mix_post_layers(layers))
    };
    let (cfg, weights) = match &args.weights {
        Some(path) => {
            let beside = |name: &str| std::path::Path::new(path).with_file_name(name);
            let file_cfg = match std::fs::read_to_string(beside("config.json")) {
                Ok(text) => Some(FileConfig::parse(&text).map_err(lab_error)?),
                Err(_) => None,
            };
            if let Ok(index) = std::fs::read_to_string(beside("model.safetensors.index.json")) {
                let name = std::path::Path::new(path)
                    .file_name()
                    .and_then(|n| n.to_str())
                    .unwrap_or_default();
                depthlab::load::check_not_a_shard(&index, name).map_err(lab_error)?;
            }
            let ov = Overrides {
                d: size(args.d),
                heads: size(args.heads),
                kv_heads: size(args.kv_heads),
                d_ff: size(args.d_ff),
                layers: size(args.layers),
                vocab: size(args.vocab),
                eps: args.eps,
                rope_theta: args.rope_theta,
            };
            base.mix_post_layers = 0;
            // The configuration and the memory the load and the run need, from the header alone:
            // the file is read (and widened to f64) only once it is known to fit.
            let (file_len, header) = read_header(path)?;
            let planned =
                depthlab::load::resolve_header(&header, file_len, file_cfg.as_ref(), &base, &ov)
                    .map_err(lab_error)?;
            let planned = Config {
                mix_post_layers: mix(planned.layers),
                ..planned
            };
            negative_flag(args, &planned)?;
            depthlab::memory::estimate(&planned, file_len, &lanczos, &select)
                .check(budget)
                .map_err(lab_error)?;
            let bytes =
                std::fs::read(path).map_err(|e| format!("--weights: cannot read {path}: {e}"))?;
            let (mut cfg, w) =
                depthlab::load(&bytes, file_cfg.as_ref(), &base, &ov, budget).map_err(lab_error)?;
            cfg.mix_post_layers = mix(cfg.layers);
            (cfg, Some(Arc::new(w)))
        }
        None => {
            let heads = size(args.heads).unwrap_or(defaults.heads);
            let layers = size(args.layers).unwrap_or(defaults.layers);
            let cfg = Config {
                d: size(args.d).unwrap_or(defaults.d),
                heads,
                kv_heads: size(args.kv_heads).unwrap_or(heads),
                d_ff: size(args.d_ff).unwrap_or(defaults.d_ff),
                layers,
                vocab: size(args.vocab).unwrap_or(defaults.vocab),
                eps: args.eps.unwrap_or(defaults.eps),
                rope_theta: args.rope_theta.unwrap_or(defaults.rope_theta),
                mix_post_layers: mix(layers),
                ..base
            };
            negative_flag(args, &cfg)?;
            (cfg, None)
        }
    };
    let input = match args.input {
        InputArg::Tokens => InputSpec::Tokens(ids),
        InputArg::Gaussian => InputSpec::Gaussian {
            std: args.input_std,
        },
    };
    let spec = LabSpec {
        cfg,
        seed: args.seed,
        weights,
        input,
        lanczos,
        select,
        memory_budget: budget,
    };
    // Every range, the Lanczos options and the memory estimate, before the run allocates.
    depthlab::measure::validate(&spec).map_err(lab_error)?;
    Ok(spec)
}

/// Runs `depthprod lab`; the text to print, or a one-line error.
pub fn run(args: &LabArgs) -> Result<String, String> {
    let spec = spec(args)?;
    let mut stderr_tty = std::io::stderr().is_terminal();
    stderr_tty &= std::env::var_os("NO_PROGRESS").is_none();
    let progress = move |phase: &str, done: usize, total: usize| {
        let mut e = std::io::stderr().lock();
        if stderr_tty {
            let width = 30;
            let filled = (done * width).checked_div(total).unwrap_or(0).min(width);
            let _ = write!(
                e,
                "\r{phase:<22} [{}{}] {done}/{total}",
                "#".repeat(filled),
                " ".repeat(width - filled)
            );
            if done == total {
                let _ = writeln!(e);
            }
        } else if done == total && total > 0 {
            let _ = writeln!(e, "lab: {phase} done ({total})");
        }
    };
    let report = depthlab::run(&spec, &progress).map_err(lab_error)?;
    if let Some(line) = convergence_warning(&report) {
        eprintln!("{line}");
    }
    Ok(if args.json {
        contract_json(&report).to_string()
    } else {
        table(&report)
    })
}

/// Every norm whose iteration stopped at --max-iter before reaching the tolerance, as (layer,
/// table column, estimate). Its value is still a lower bound on the norm, but may sit well below.
fn unconverged(r: &Report) -> Vec<(usize, &'static str, NormEstimate)> {
    let mut out = Vec::new();
    for l in &r.layers {
        for (column, e) in [
            ("||J||", l.jacobian),
            ("||J-I||", l.jacobian_minus_identity),
            ("||dxL/dxl||", l.end_to_end),
        ] {
            if let Some(e) = e.filter(|e| !e.converged) {
                out.push((l.layer, column, e));
            }
        }
    }
    out
}

/// The one stderr line for unconverged norms (None when every norm converged): the JSON has
/// `converged: false` per norm, but nobody reading a table would see that.
fn convergence_warning(r: &Report) -> Option<String> {
    let bad = unconverged(r);
    let (layer, column, worst) = bad
        .iter()
        .copied()
        .max_by(|a, b| a.2.relative_residual.total_cmp(&b.2.relative_residual))?;
    let total: usize = r
        .layers
        .iter()
        .map(|l| {
            [l.jacobian, l.jacobian_minus_identity, l.end_to_end]
                .iter()
                .flatten()
                .count()
        })
        .sum();
    Some(format!(
        "depthprod lab: warning: {} of {total} norms did not converge to tol = {:e} within \
         --max-iter (worst: {column} at layer {layer}, relative residual {:.1e}); they are marked \
         * in the table and converged: false in the JSON",
        bad.len(),
        r.lanczos_tol,
        worst.relative_residual
    ))
}

/// A norm's table cell: the value, and a `*` when its iteration did not converge.
fn norm_cell(e: Option<NormEstimate>) -> String {
    match e {
        Some(e) if !e.converged => format!("{}*", opt(Some(e.norm))),
        e => opt(e.map(|e| e.norm)),
    }
}

/// The table's footnote for the `*` cells: at most `SHOWN` of them by name, the rest counted.
fn footnote(r: &Report) -> Option<String> {
    const SHOWN: usize = 6;
    let bad = unconverged(r);
    if bad.is_empty() {
        return None;
    }
    let mut items: Vec<String> = bad
        .iter()
        .take(SHOWN)
        .map(|(layer, column, e)| {
            format!(
                "{column} layer {layer}: residual {:.2e} (relative {:.2e})",
                e.residual, e.relative_residual
            )
        })
        .collect();
    if bad.len() > SHOWN {
        items.push(format!("{} more in the JSON", bad.len() - SHOWN));
    }
    Some(format!(
        "* not converged to the tolerance (tol = {:e}, stopped at --max-iter; the value is a lower \
         bound that may sit well below the norm): {}",
        r.lanczos_tol,
        items.join("; ")
    ))
}

fn interval(i: &Option<depthlab::measure::Interval>) -> Value {
    match i {
        Some(i) => json!({"value": i.value, "lo": i.lo, "hi": i.hi}),
        None => Value::Null,
    }
}

/// The JSON of the CLI contract (ARCHITECTURE.md, "depthprod lab --json"), plus the supporting detail.
pub fn contract_json(r: &Report) -> Value {
    let layers: Vec<Value> = r
        .layers
        .iter()
        .map(|l| {
            json!({
                "layer": l.layer,
                "variance": l.variance,
                "jacobian_norm": l.jacobian_norm,
                "jacobian_minus_identity_norm": l.jacobian_minus_identity_norm,
                "end_to_end_norm": l.end_to_end_norm,
                "grad_norm": l.grad_norm,
                "log_product_of_norms": l.log_product_of_norms,
                "grad_to_jacobian_minus_identity": l.grad_to_jacobian_minus_identity,
                "grad_norms": l.grad_norms.as_ref().map(|g| g.iter().map(|(k, v)| (k.clone(), json!(v))).collect::<serde_json::Map<_, _>>()),
                "jacobian": l.jacobian,
                "jacobian_minus_identity": l.jacobian_minus_identity,
                "end_to_end": l.end_to_end,
                "end_to_end_upper": l.end_to_end_upper,
                "bound_unscaled_log": interval(&l.bound_unscaled_log),
                "bound_scaled_log": interval(&l.bound_scaled_log),
                "looseness_unscaled_log": l.looseness_unscaled_log,
                "looseness_scaled_log": l.looseness_scaled_log,
            })
        })
        .collect();
    let fit = |f: &Option<depthlab::measure::Fit>, rate: &str| match f {
        Some(f) => {
            let mut m = serde_json::Map::new();
            m.insert("c".into(), json!(f.c));
            m.insert(rate.into(), json!(f.rate));
            m.insert("c_ci95".into(), json!(f.c_ci));
            m.insert(format!("{rate}_ci95"), json!(f.rate_ci));
            m.insert("r2".into(), json!(f.r2));
            Value::Object(m)
        }
        None => Value::Null,
    };
    let b = &r.bound;
    json!({
        "config": r.config,
        "seed": r.seed,
        "token_ids": r.token_ids,
        "loss": r.loss,
        "final_variance": r.final_variance,
        "lanczos_tol": r.lanczos_tol,
        "digest": r.digest,
        "layers": layers,
        "fit": {"power": fit(&r.fit_power, "q"), "exponential": fit(&r.fit_exponential, "lambda")},
        "bound": {
            "A": b.a, "B": b.b, "B_factored_reading": b.b_factored, "sigma": b.sigma,
            "unscaled": interval(&b.unscaled), "scaled": interval(&b.scaled),
            "unscaled_power_fit": interval(&b.unscaled_power_fit),
            "scaled_power_fit": interval(&b.scaled_power_fit),
            "errors": b.errors,
        },
        "angular_distance": r.angular_distance,
        "upper_bound": r.upper_bound,
    })
}

fn opt(x: Option<f64>) -> String {
    x.map_or("-".into(), |v| format!("{v:.6e}"))
}

fn table(r: &Report) -> String {
    let mut s = String::new();
    s.push_str(&format!(
        "depthprod lab: {} d={} h={} d_ff={} T={} L={} sigma={} seed={} loss={}\n",
        r.config.placement.name(),
        r.config.d,
        r.config.heads,
        r.config.d_ff,
        r.config.tokens,
        r.config.layers,
        r.config.init_std,
        r.seed,
        opt(r.loss)
    ));
    s.push_str(&format!(
        "{:>5} {:>13} {:>13} {:>13} {:>13} {:>13} {:>13} {:>13} {:>13}\n",
        "layer",
        "variance",
        "||J||",
        "||J-I||",
        "||dxL/dxl||",
        "upper (p)",
        "prod ||J||",
        "grad norm",
        "Eq.9 bound"
    ));
    for l in &r.layers {
        s.push_str(&format!(
            "{:>5} {:>13.6e} {:>13} {:>13} {:>13} {:>13} {:>13} {:>13} {:>13}\n",
            l.layer,
            l.variance,
            norm_cell(l.jacobian),
            norm_cell(l.jacobian_minus_identity),
            norm_cell(l.end_to_end),
            opt(l.end_to_end_upper),
            opt(l.log_product_of_norms.map(f64::exp)),
            opt(l.grad_norm),
            opt(l.bound_unscaled_log.map(|b| b.value.exp())),
        ));
    }
    if let Some(u) = &r.upper_bound {
        s.push_str(&format!(
            "upper (p): an upper bound on ||dxL/dxl|| from {} Gaussian probes, each with \
             probability at least {} (probabilistic, not certified; the measured norms are lower \
             bounds)\n",
            u.probes, u.probability
        ));
    }
    if let Some(note) = footnote(r) {
        s.push_str(&note);
        s.push('\n');
    }
    let b = &r.bound;
    s.push_str(&format!(
        "A = {:.6e}, B = {:.6e} (Eqs. 47-48); log Eq. 9 product = {}; log Eq. 15 product = {}\n",
        b.a,
        b.b,
        b.unscaled.map_or("-".into(), |i| format!(
            "{:.10e} [{:.10e}, {:.10e}]",
            i.value, i.lo, i.hi
        )),
        b.scaled.map_or("-".into(), |i| format!(
            "{:.10e} [{:.10e}, {:.10e}]",
            i.value, i.lo, i.hi
        )),
    ));
    for e in &b.errors {
        s.push_str(&format!("note: {e}\n"));
    }
    if let Some(f) = &r.fit_power {
        s.push_str(&format!(
            "fit sigma^2 = c l^q: c = {:.4e}, q = {:.4}\n",
            f.c, f.rate
        ));
    }
    if let Some(f) = &r.fit_exponential {
        s.push_str(&format!(
            "fit sigma^2 = c e^(lambda l): c = {:.4e}, lambda = {:.4}\n",
            f.c, f.rate
        ));
    }
    s.push_str("These are upper bounds from the paper's argument; a bounded product is neither useful depth nor a non-negligible gradient.");
    s
}
