//! `depthprod`: the core's certified log-products in the terminal. A thin shell: parse
//! arguments, call `depthprod`, print a table or JSON. No mathematics lives here.

mod json;
mod lab;

use clap::{Args, Parser, Subcommand, ValueEnum};
use depthprod::{
    depth_grid, eq65_limit, parse_list, rotation_product, ClosedFormsInput, CurveKind, Depth,
    Enclosure, Error, Evaluation, Family, Number, Params, ParamsInput, Plan, Variance,
    VarianceInput,
};
use json::Json;
use std::process::ExitCode;

/// Certified log-products of the Jacobian depth bounds in "The Curse of Depth in Large Language
/// Models" (Sun et al., arXiv 2502.05795) and the published correction.
///
/// log P_N = sum_{l=1}^{N} log(1 + A a_l + B a_l^2), with a_l = 1/sigma_l (unscaled, Eq. 9),
/// 1/(l sigma_l) (scaled, Eqs. 15/62), 1/l (harmonic, App. A.2) or 1/(sqrt(l) sigma_l)
/// (sqrt-scaled), and sigma_l^2 = c l^q (power), c e^(lambda l) (exp) or a measured list.
/// Every number comes with an enclosure [lo, hi] proven to contain the exact value.
#[derive(Debug, Parser)]
#[command(name = "depthprod", version, about, long_about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Evaluate one product at depth N (or its limit with --n inf).
    ///
    /// With --json prints one object: family, n, log_product {value, lo, hi} (the limit when
    /// --n inf; null when that limit is infinite), limit, tail {lo, hi} (the remaining tail from N
    /// to infinity; null when divergent), divergent and asymptotic ({terms: [{coefficient,
    /// exponent, log, log_like}], constant {value, lo, hi}}: log P_N = sum of coefficient
    /// N^exponent (or coefficient log N, or with log_like coefficient (N^exponent - 1)/exponent
    /// near a resonance) + constant + o(1); null when convergent), zeta_bound (scaled family,
    /// power law; else null). Numbers have 17 significant digits.
    Eval(EvalArgs),
    /// Print the correction's illustration: A = B = 1, c = 1, q = 1, N = 10^6.
    Seed,
    /// Print a curve as CSV: N and the chosen quantity at log-spaced depths.
    Curve {
        #[command(flatten)]
        product: ProductArgs,
        /// Largest depth.
        #[arg(long = "n-max", default_value = "1e18")]
        n_max: String,
        /// Number of log-spaced points.
        #[arg(long, default_value_t = 200)]
        points: usize,
        /// log-product, remainder (log P_N minus leading terms), tail (upper bound), leading,
        /// asymptote (leading terms + C), eq65-exponent, linear-claim (log N + log P_1).
        #[arg(long, default_value = "log-product")]
        kind: String,
    },
    /// The correction's closed forms: zeta-sum bound, Eq. 65's exponent and limit, exponential bound.
    ClosedForms {
        #[arg(long, default_value = "1", allow_hyphen_values = true)]
        a: String,
        #[arg(long, default_value = "1", allow_hyphen_values = true)]
        b: String,
        /// Variance scale c > 0 (A/sqrt(c) at most sqrt(10^7), B/c at most 10^5).
        #[arg(long, default_value = "1", allow_hyphen_values = true)]
        c: String,
        #[arg(long, allow_hyphen_values = true, conflicts_with = "eps")]
        q: Option<String>,
        /// Instead of q: eps = 2 - q exactly.
        #[arg(long, allow_hyphen_values = true)]
        eps: Option<String>,
        /// Depth L at which to evaluate Eq. 65's exponent (eps = 2 - q).
        #[arg(long, default_value = "1e6")]
        n: String,
        /// Rate of the exponential variance model.
        #[arg(long, default_value = "1", allow_hyphen_values = true)]
        lambda: String,
    },
    /// The network lab: measure a LLaMA-style stack's Jacobians beside the bound (see README).
    Lab(Box<lab::LabArgs>),
    /// Product of rotations by theta/l^r, l = 1..N: norm 1, yet the angle need not converge.
    Rotation {
        /// Angle theta (-100..100), read as the exact decimal typed; negative values may be written
        /// plainly: --theta -0.75.
        #[arg(long, default_value = "0.5", allow_hyphen_values = true)]
        theta: String,
        #[arg(long, default_value_t = 1)]
        r: u32,
        #[arg(long, default_value = "1e6")]
        n: String,
    },
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum FamilyArg {
    Unscaled,
    Scaled,
    Harmonic,
    SqrtScaled,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum VarianceArg {
    Power,
    Exp,
    List,
}

#[derive(Debug, Args)]
struct ProductArgs {
    /// Which product.
    #[arg(long, value_enum, default_value = "unscaled")]
    family: FamilyArg,
    /// Constant A (0 or 1e-100..100), read as the exact decimal typed.
    #[arg(long, default_value = "1", allow_hyphen_values = true)]
    a: String,
    /// Constant B (0 or 1e-100..100), read as the exact decimal typed.
    #[arg(long, default_value = "1", allow_hyphen_values = true)]
    b: String,
    /// Variance scale c > 0: the products depend on A/sqrt(c) (at most sqrt(10^7) = 3162.27...) and
    /// B/c (at most 10^5), decided exactly on the decimals typed.
    #[arg(long, default_value = "1", allow_hyphen_values = true)]
    c: String,
    /// Variance power q (0.05..8): sigma_l^2 = c l^q. A typed 0.4 means 2/5 exactly.
    #[arg(long, allow_hyphen_values = true, conflicts_with = "eps")]
    q: Option<String>,
    /// Instead of q: eps with q = 2 - eps exactly (Eq. 65's parameter).
    #[arg(long, allow_hyphen_values = true)]
    eps: Option<String>,
    /// Variance model: power (c l^q), exp (c e^(lambda l)) or list (--list).
    #[arg(long, value_enum, default_value = "power")]
    variance: VarianceArg,
    /// Rate lambda of the exponential model (1e-3..10).
    #[arg(long, default_value = "1", allow_hyphen_values = true)]
    lambda: String,
    /// Measured variances sigma_1^2, ..., sigma_L^2: comma/space/newline separated, or @FILE.
    #[arg(long)]
    list: Option<String>,
}

#[derive(Debug, Args)]
struct EvalArgs {
    #[command(flatten)]
    product: ProductArgs,
    /// Depth: an integer (1000000), 1e6 style, or inf.
    #[arg(long, default_value = "1e6")]
    n: String,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    json: bool,
}

impl ProductArgs {
    /// The product as typed: every number goes to the core as the user's text, which the core
    /// reads as the exact decimal it denotes.
    fn input(&self) -> Result<ParamsInput, String> {
        let family = match self.family {
            FamilyArg::Unscaled => Family::Unscaled,
            FamilyArg::Scaled => Family::Scaled,
            FamilyArg::Harmonic => Family::Harmonic,
            FamilyArg::SqrtScaled => Family::SqrtScaled,
        };
        let text = |s: &String| Number::Text(s.clone());
        let variance = match self.variance {
            VarianceArg::Power => VarianceInput::Power {
                c: text(&self.c),
                q: match (&self.q, &self.eps) {
                    (None, None) => Some(Number::Text("1".into())),
                    (q, _) => q.as_ref().map(text),
                },
                eps: self.eps.as_ref().map(text),
            },
            VarianceArg::Exp => VarianceInput::Exponential {
                c: text(&self.c),
                lambda: text(&self.lambda),
            },
            VarianceArg::List => {
                let text = self
                    .list
                    .as_deref()
                    .ok_or("--variance list needs --list VALUES or --list @FILE")?;
                let text = match text.strip_prefix('@') {
                    Some(path) => std::fs::read_to_string(path)
                        .map_err(|e| format!("cannot read {path}: {e}"))?,
                    None => text.to_string(),
                };
                VarianceInput::Measured {
                    values: parse_list(&text).map_err(|e| e.to_string())?,
                }
            }
        };
        Ok(ParamsInput {
            family,
            a: text(&self.a),
            b: text(&self.b),
            variance,
        })
    }

    /// The plan and the doubles it computes with.
    fn plan(&self) -> Result<(Plan, Params), String> {
        let plan = Plan::from_input(&self.input()?).map_err(err)?;
        let params = plan.params().clone();
        Ok((plan, params))
    }
}

fn main() -> ExitCode {
    let wants_json = std::env::args().any(|a| a == "--json");
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e)
            if matches!(
                e.kind(),
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion
            ) =>
        {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            let rendered = e.to_string();
            let line = rendered
                .lines()
                .next()
                .unwrap_or("invalid arguments")
                .trim_start_matches("error: ");
            return fail(&format!("{line} (see depthprod --help)"), wants_json);
        }
    };
    let result = match cli.command {
        Command::Eval(args) => eval(&args),
        Command::Seed => seed(),
        Command::Curve {
            product,
            n_max,
            points,
            kind,
        } => curve(&product, &n_max, points, &kind),
        Command::ClosedForms {
            a,
            b,
            c,
            q,
            eps,
            n,
            lambda,
        } => {
            let text = |s: String| Number::Text(s);
            let q = match (&q, &eps) {
                (None, None) => Some("1".to_string()),
                _ => q,
            };
            closed_forms(
                ClosedFormsInput {
                    a: text(a),
                    b: text(b),
                    c: Some(text(c)),
                    q: q.map(text),
                    eps: eps.map(text),
                    lambda: Some(text(lambda)),
                    n: None,
                },
                &n,
            )
        }
        Command::Rotation { theta, r, n } => rotation(&theta, r, &n),
        Command::Lab(args) => lab::run(&args),
    };
    match result {
        Ok(text) => {
            println!("{text}");
            ExitCode::SUCCESS
        }
        Err(message) => fail(&message, wants_json),
    }
}

/// Bad input: exit status 2, one line on stderr, and `{"error": ...}` on stdout with --json.
fn fail(message: &str, json: bool) -> ExitCode {
    let one_line = message.replace('\n', " ");
    eprintln!("depthprod: {one_line}");
    if json {
        println!(
            "{}",
            Json::Object(vec![("error", Json::Text(one_line))]).render()
        );
    }
    ExitCode::from(2)
}

fn err(e: Error) -> String {
    e.to_string()
}

fn eval(args: &EvalArgs) -> Result<String, String> {
    let depth: Depth = args.n.parse().map_err(err)?;
    let (plan, params) = args.product.plan()?;
    let ev = plan.evaluate(depth).map_err(err)?;
    Ok(if args.json {
        eval_json(&params, &ev).render()
    } else {
        eval_table(&params, &ev)
    })
}

fn eval_json(params: &Params, ev: &Evaluation) -> Json {
    let variance = match &params.variance {
        Variance::Power { c, q } => Json::Object(vec![
            ("kind", Json::Text("power".into())),
            ("c", Json::Number(*c)),
            ("q", Json::Number(*q)),
        ]),
        Variance::Exponential { c, lambda } => Json::Object(vec![
            ("kind", Json::Text("exp".into())),
            ("c", Json::Number(*c)),
            ("lambda", Json::Number(*lambda)),
        ]),
        Variance::Measured { values } => Json::Object(vec![
            ("kind", Json::Text("list".into())),
            ("length", Json::Integer(values.len() as u64)),
        ]),
    };
    let divergent = ev.divergent.as_ref().map(json::divergence);
    Json::Object(vec![
        ("family", Json::Text(ev.family.name().into())),
        ("a", Json::Number(params.a)),
        ("b", Json::Number(params.b)),
        ("variance", variance),
        ("n", ev.n.map_or(Json::Text("inf".into()), Json::Integer)),
        (
            "log_product",
            json::optional(ev.log_product.as_ref(), json::enclosure),
        ),
        (
            "certified_digits",
            ev.log_product
                .map_or(Json::Null, |e| Json::Integer(e.certified_digits() as u64)),
        ),
        ("limit", json::optional(ev.limit.as_ref(), json::enclosure)),
        ("tail", json::optional(ev.tail.as_ref(), json::bounds)),
        (
            "zeta_bound",
            json::optional(ev.zeta_bound.as_ref(), json::enclosure),
        ),
        ("divergent", divergent.clone().unwrap_or(Json::Null)),
        ("asymptotic", divergent.unwrap_or(Json::Null)),
    ])
}

/// The value with only the digits its enclosure certifies, and the enclosure.
fn certified(e: &Enclosure) -> String {
    let digits = e.certified_digits().max(1) as usize;
    format!(
        "{:.*e}  in [{:.17e}, {:.17e}]",
        digits - 1,
        e.value,
        e.lo,
        e.hi
    )
}

/// A double in shortest round-trip form, scientific when plain digits would be long (so 1e-100
/// prints as 1e-100, not as a hundred zeros).
fn shortest(x: f64) -> String {
    let a = x.abs();
    if a == 0.0 || (1e-5..1e16).contains(&a) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

fn describe_family(f: Family) -> &'static str {
    match f {
        Family::Unscaled => "unscaled: a_l = 1/sigma_l (Eq. 9, Pre-LN)",
        Family::Scaled => "scaled: a_l = 1/(l sigma_l) (Eqs. 15/62, LNS)",
        Family::Harmonic => "harmonic: a_l = 1/l (App. A.2's substitution)",
        Family::SqrtScaled => "sqrt-scaled: a_l = 1/(sqrt(l) sigma_l)",
    }
}

fn growth(d: &depthprod::Divergence) -> String {
    let mut parts: Vec<String> = d
        .terms
        .iter()
        .take(4)
        .map(|t| {
            if t.log {
                format!("{:+.6} log N", t.coefficient)
            } else if t.log_like {
                // a near-resonant exponent: c (N^d - 1)/d, close to c log N
                format!("{:+.6} (N^d - 1)/d [d = {:e}]", t.coefficient, t.exponent)
            } else {
                format!("{:+.6} N^{:.6}", t.coefficient, t.exponent)
            }
        })
        .collect();
    if d.terms.len() > 4 {
        parts.push(format!("... ({} terms)", d.terms.len()));
    }
    parts.push("+ C + o(1)".into());
    parts.join(" ")
}

fn eval_table(params: &Params, ev: &Evaluation) -> String {
    let mut rows: Vec<(String, String)> =
        vec![("family".into(), describe_family(ev.family).into())];
    let variance = match &params.variance {
        Variance::Power { c, q } => format!("sigma_l^2 = {} l^{}", shortest(*c), shortest(*q)),
        Variance::Exponential { c, lambda } => {
            format!("sigma_l^2 = {} e^({} l)", shortest(*c), shortest(*lambda))
        }
        Variance::Measured { values } => format!("measured list of {} layers", values.len()),
    };
    rows.push((
        "parameters".into(),
        format!(
            "A = {}, B = {}, {variance}",
            shortest(params.a),
            shortest(params.b)
        ),
    ));
    let n = ev.n.map_or("inf".to_string(), |n| n.to_string());
    rows.push(("N".into(), n.clone()));
    match &ev.log_product {
        Some(e) => rows.push((
            if ev.n.is_some() {
                "log P_N".to_string()
            } else {
                "log P_inf".into()
            },
            certified(e),
        )),
        None if ev.divergent.is_some() => rows.push((
            "log P_inf".into(),
            "+infinity (the product diverges)".into(),
        )),
        None => rows.push(("log P_inf".into(), "not resolvable (see below)".into())),
    }
    if let (Some(l), Some(_)) = (&ev.limit, ev.n) {
        rows.push(("limit log P_inf".into(), certified(l)));
    }
    if let Some(t) = &ev.tail {
        rows.push((
            "tail N..inf".into(),
            format!("in [{:.17e}, {:.17e}]", t.lo, t.hi),
        ));
    }
    if let Some(d) = &ev.divergent {
        rows.push(("growth".into(), format!("log P_N = {}", growth(d))));
        rows.push((
            "C".into(),
            d.constant
                .as_ref()
                .map_or("not resolvable (see below)".into(), certified),
        ));
    }
    if let Some(z) = &ev.zeta_bound {
        rows.push(("zeta bound".into(), certified(z)));
    }
    for u in &ev.unresolved {
        rows.push((format!("{} (missing)", u.quantity), u.reason.clone()));
    }
    table(&rows)
}

fn table(rows: &[(String, String)]) -> String {
    let width = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    rows.iter()
        .map(|(k, v)| format!("{k:<width$}  {v}"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn seed() -> Result<String, String> {
    let n = 1_000_000;
    let unscaled = Plan::new(&Params::power(Family::Unscaled, 1.0, 1.0, 1.0, 1.0))
        .map_err(err)?
        .evaluate(Depth::Finite(n))
        .map_err(err)?;
    let scaled = Plan::new(&Params::power(Family::Scaled, 1.0, 1.0, 1.0, 1.0))
        .map_err(err)?
        .evaluate(Depth::Finite(n))
        .map_err(err)?;
    let lp = |e: &Evaluation| e.log_product.as_ref().map_or(String::new(), certified);
    let mut rows = vec![
        (
            "case".to_string(),
            "A = B = 1, c = 1, q = 1 (sigma_l^2 = l), N = 10^6".to_string(),
        ),
        (
            "unscaled log P_N".into(),
            format!("{}   (correction: 2004.44407)", lp(&unscaled)),
        ),
        (
            "scaled log Q_N".into(),
            format!("{}   (correction: 2.7784912)", lp(&scaled)),
        ),
    ];
    if let Some(t) = &scaled.tail {
        rows.push((
            "scaled tail N..inf".into(),
            format!(
                "in [{:.10e}, {:.10e}]   (correction: <= 0.002000000001)",
                t.lo, t.hi
            ),
        ));
    }
    if let Some(l) = &scaled.limit {
        rows.push(("scaled log Q_inf".into(), certified(l)));
    }
    if let Some(z) = &scaled.zeta_bound {
        rows.push((
            "zeta bound".into(),
            format!("{}   (zeta(3/2) + zeta(3))", certified(z)),
        ));
    }
    if let Some(d) = &unscaled.divergent {
        rows.push(("unscaled growth".into(), format!("log P_N = {}", growth(d))));
        if let Some(c) = &d.constant {
            rows.push(("unscaled C".into(), certified(c)));
        }
    }
    rows.push((
        "Eq. 65 limit, eps=1".into(),
        format!(
            "{}   (A/(1 - eps/2) + B/(3 - eps); drops l = 1)",
            certified(&eq65_limit(1.0, 1.0, 1.0).map_err(err)?)
        ),
    ));
    Ok(table(&rows))
}

fn curve(product: &ProductArgs, n_max: &str, points: usize, kind: &str) -> Result<String, String> {
    let kind: CurveKind = kind.parse().map_err(err)?;
    let n_max = match n_max.parse::<Depth>().map_err(err)? {
        Depth::Finite(n) => n,
        Depth::Infinite => return Err("--n-max must be finite".into()),
    };
    let (plan, params) = product.plan()?;
    let ns = depth_grid(n_max.min(plan.max_depth()), points).map_err(err)?;
    let mut values = vec![0.0; ns.len()];
    plan.curve(kind, &ns, &mut values).map_err(err)?;
    let mut out = format!(
        "# family={} a={} b={} {:?}\nN,{}\n",
        params.family.name(),
        params.a,
        params.b,
        params.variance,
        kind_name(kind)
    );
    for (n, v) in ns.iter().zip(&values) {
        out.push_str(&format!("{n},{}\n", json::number(*v)));
    }
    out.pop();
    Ok(out)
}

fn kind_name(kind: CurveKind) -> &'static str {
    match kind {
        CurveKind::LogProduct => "log_product",
        CurveKind::Remainder => "remainder",
        CurveKind::Tail => "tail_upper",
        CurveKind::Leading => "leading",
        CurveKind::Asymptote => "asymptote",
        CurveKind::Eq65Exponent => "eq65_exponent",
        CurveKind::LinearClaim => "linear_claim",
    }
}

fn closed_forms(mut input: ClosedFormsInput, n: &str) -> Result<String, String> {
    input.n = Some(n.parse::<Depth>().map_err(err)?);
    let out = depthprod::closed_forms(&input).map_err(err)?;
    let mut rows = Vec::new();
    if let Some(z) = &out.zeta_bound {
        rows.push(("zeta bound".to_string(), certified(z)));
    }
    match &out.eq65 {
        Some(eq65) => {
            if let Some(e) = &eq65.exponent_at_n {
                rows.push((format!("Eq. 65 exponent at L = {n}"), certified(e)));
            }
            rows.push((
                "Eq. 65 limit".into(),
                format!(
                    "{}   (A/(1 - eps/2) + B/(3 - eps); eps = {})",
                    certified(&eq65.limit),
                    json::number(eq65.eps.value)
                ),
            ));
        }
        None => rows.push((
            "Eq. 65".into(),
            "not applicable: eps = 2 - q must lie in (0, 2)".into(),
        )),
    }
    if let Some(e) = &out.exponential_bound {
        rows.push(("exponential bound".into(), certified(e)));
    }
    for u in &out.unresolved {
        rows.push((u.quantity.clone(), format!("not resolvable: {}", u.reason)));
    }
    Ok(table(&rows))
}

fn rotation(theta: &str, r: u32, n: &str) -> Result<String, String> {
    let n = match n.parse::<Depth>().map_err(err)? {
        Depth::Finite(n) => n,
        Depth::Infinite => return Err("--n must be finite for rotations".into()),
    };
    // theta as typed: every number below is for that exact decimal
    let rot = rotation_product(&Number::Text(theta.to_string()), r, n).map_err(err)?;
    let m = rot.matrix.map(|e| e.value);
    let widest = rot.matrix.iter().map(Enclosure::width).fold(0.0, f64::max);
    let angle = if rot.angle.lo == rot.angle.hi {
        format!("{:.17}  (exact)", rot.angle.value)
    } else {
        certified(&rot.angle)
    };
    Ok(table(&[
        ("angle".into(), angle),
        (
            "reduced".into(),
            format!("{}  (the angle modulo 2 pi)", certified(&rot.reduced)),
        ),
        (
            "product".into(),
            format!(
                "[[{:+.12}, {:+.12}], [{:+.12}, {:+.12}]]  (each entry's enclosure at most {:.1e} wide)",
                m[0], m[1], m[2], m[3], widest
            ),
        ),
        ("norm".into(), format!("{:.17}", rot.norm)),
    ]))
}
