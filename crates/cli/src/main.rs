//! `disagg`: the engine from the command line, for scripting and validation.
//!
//! All modelling lives in `disagg-engine`; this file only parses arguments, reads a
//! config file when given a path, and formats results.

#![forbid(unsafe_code)]
#![deny(unused_must_use)]
#![warn(clippy::dbg_macro, clippy::todo)]

/// Prints a line to stdout. A closed pipe (`disagg list models | head`) ends the
/// program quietly, as Unix tools do, instead of panicking as `println!` would.
macro_rules! out {
    () => {
        $crate::emit(format_args!(""))
    };
    ($($arg:tt)*) => {
        $crate::emit(format_args!($($arg)*))
    };
}

mod axes;
mod axis_flags;
mod bundle;
mod cost;
mod deploy;
mod explain;
mod lengths;
mod pipeline;
mod recommend;
mod sweep;
mod validate;
mod validate_by;
mod validate_point;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use disagg_engine::{Assumptions, Catalogue};
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "disagg",
    version,
    about = "Disagg Explorer's performance model on the command line"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List catalogue entries with their key numbers.
    List {
        #[arg(value_enum)]
        what: ListWhat,
        /// With `assumptions`: the values a pool of this catalogue chip runs with, its
        /// serving framework's defaults and its own file's step costs in place.
        #[arg(long, value_name = "ID")]
        chip: Option<String>,
        /// With `assumptions --chip`: the serving framework (auto, generic, trtllm, vllm,
        /// sglang, llamacpp or mlx); default auto.
        #[arg(long, value_name = "NAME")]
        framework: Option<String>,
    },
    /// Predict one deployment: aggregated (default) or split along an axis.
    // Negative numbers are values, so that `--isl -1` is refused by its own flag.
    #[command(allow_negative_numbers = true)]
    Predict(Box<PredictArgs>),
    /// Print the launch commands (vLLM, SGLang, TensorRT-LLM or NVIDIA Dynamo) of the
    /// deployment `predict` evaluates; --framework names the framework.
    #[command(allow_negative_numbers = true)]
    Deploy(Box<deploy::DeployArgs>),
    /// Sweep homogeneous and heterogeneous splits and print the frontiers.
    #[command(allow_negative_numbers = true)]
    Sweep(Box<sweep::SweepArgs>),
    /// Deployments across the catalogue that meet TTFT and TPOT limits at a demand,
    /// ranked by $/Mtok, the fewest chips that do, and why the other chips fail.
    #[command(allow_negative_numbers = true)]
    Recommend(Box<recommend::RecommendArgs>),
    /// Run the validation table against published measurements.
    Validate {
        /// Print one JSON object instead of a table (with --point, the row).
        #[arg(long)]
        json: bool,
        /// One row of the table by its id (IMXA06c, MLP51-01): its source, mapping,
        /// measurement, prediction and error.
        #[arg(long, value_name = "ID")]
        point: Option<String>,
        /// With --point: the prediction opened into formulas, inputs and operator
        /// tables, as `predict --explain` prints it.
        #[arg(long)]
        explain: bool,
        /// With --point: write the bundle that reproduces the row's prediction; `disagg
        /// predict --bundle FILE` runs it and the page opens it.
        #[arg(long, value_name = "FILE")]
        save_bundle: Option<std::path::PathBuf>,
        /// The errors broken down by what the rows state, in place of the table: any of
        /// framework, chip, metric, axis, model, block (the table's id prefix),
        /// comma-separated (`--by framework,chip`); each group's calibration and hold-out
        /// median and p90 |error|, its hold-out bias and rows within the 12% target.
        #[arg(long, value_name = "KEYS")]
        by: Option<String>,
        /// Only the rows whose keys read these values, comma-separated pairs
        /// (`--only framework=sglang,role=holdout`; keys as --by's, and role): the table,
        /// its summaries and --by's groups count these rows alone.
        #[arg(long, value_name = "KEY=VALUE,...")]
        only: Option<String>,
        #[command(flatten)]
        assumptions: Box<AssumptionArgs>,
    },
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ListWhat {
    Chips,
    Models,
    /// The catalogued links between machines (Thunderbolt, Ethernet, RDMA): bandwidth
    /// per direction and latency, for --link.
    Links,
    /// The default modelling assumptions as JSON (times in seconds), a starting point
    /// for --assumptions; with --chip (and --framework), those a pool of that chip runs
    /// with.
    Assumptions,
    /// The public API prices per model (input and output USD per million tokens), each
    /// with the date it was read and its source, for --api.
    Apis,
}

/// The default assumptions, or those a pool of `chip` runs with under `framework` (auto
/// when not named): what `Assumptions::on_chip` resolves, the one rule every pool uses.
fn assumptions_on(
    cat: &Catalogue,
    chip: Option<&str>,
    framework: Option<&str>,
) -> Result<Assumptions, String> {
    let mut a = Assumptions::default();
    if let Some(f) = framework {
        a.framework = f.parse().map_err(|e| format!("--framework: {e}"))?;
    }
    match chip {
        Some(id) => Ok(a.on_chip(cat.chip(id).map_err(|e| format!("--chip: {e}"))?)),
        None if framework.is_some() => {
            Err("--framework needs --chip: a framework's defaults are per chip".into())
        }
        None => Ok(a),
    }
}

/// The modelling assumptions a command runs with: the defaults, a JSON file that
/// overrides some of them, and flags that override single ones.
#[derive(clap::Args, Debug)]
pub(crate) struct AssumptionArgs {
    /// JSON file overriding some modelling assumptions (times in seconds); fields left
    /// out keep their defaults (`disagg list assumptions` prints them all).
    #[arg(long, value_name = "PATH")]
    assumptions: Option<std::path::PathBuf>,
    /// Replicas sharing an expert group prefill in the same step (TensorRT-LLM's
    /// attention-DP balancing); default: each on its own schedule.
    #[arg(long)]
    aligned_group_prefill: bool,
    /// How an expert group exchanges tokens under attention data parallelism:
    /// all_to_all (each token to the experts it picked, the default) or gather_scatter
    /// (every chip gathers every replica's tokens, then a reduce-scatter of the
    /// outputs, as TensorRT-LLM's CUTLASS MoE does without its all-to-all).
    #[arg(long, value_name = "all_to_all|gather_scatter")]
    expert_exchange: Option<String>,
    /// A prefill pool with experts across replicas runs two micro-batches, one's
    /// all-to-all under the other's computation (DeepSeek's and SGLang's prefill).
    #[arg(long)]
    prefill_two_batch_overlap: bool,
    /// Serving framework whose default batch limit and token budget apply where no
    /// assumption states them: auto (each chip family's usual one), generic (the
    /// global assumptions), trtllm, vllm, sglang, llamacpp or mlx. With `deploy`: the
    /// launch's framework, vllm, sglang, trtllm or dynamo (whose workers run vLLM).
    #[arg(long, value_name = "NAME")]
    framework: Option<String>,
    /// Redundant expert slots (copies of hot experts) spread over the expert group of
    /// every layout with ep > 1, as DeepSeek's EPLB adds 32 to 256 experts.
    #[arg(long, value_name = "N")]
    redundant_experts: Option<u32>,
    /// How a pool that prefills and generates schedules its batch: continuous (refill
    /// as sequences finish, the default) or static (prefill every prompt, then decode
    /// until the batch ends, no refill: llama-batched-bench, HF generate).
    #[arg(long, value_name = "continuous|static")]
    scheduling: Option<String>,
    #[command(flatten)]
    cost: cost::CostArgs,
}

impl AssumptionArgs {
    pub(crate) fn resolve(&self) -> Result<Assumptions, String> {
        let mut a = match &self.assumptions {
            Some(path) => {
                let text = std::fs::read_to_string(path).map_err(|e| {
                    format!("cannot read assumptions file '{}': {e}", path.display())
                })?;
                let mut a = serde_json::from_str::<Assumptions>(&text)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                // The file read once more as plain JSON (it parsed above, so this does):
                // for its shape, and for the names it states.
                let given: serde_json::Value =
                    serde_json::from_str(&text).unwrap_or(serde_json::Value::Null);
                let written = serde_json::to_value(a).unwrap_or_default();
                if let Some(at) = disagg_engine::json_shape::list_for_record(&given, &written) {
                    return Err(format!(
                        "{}: {at}: a list where named assumptions belong (`disagg list assumptions` prints them as a JSON object)",
                        path.display()
                    ));
                }
                // What the file states, no framework's default replaces.
                if let serde_json::Value::Object(fields) = &given {
                    for name in fields.keys() {
                        a.pinned = a.pinned.with(name);
                    }
                }
                a
            }
            None => Assumptions::default(),
        };
        if self.aligned_group_prefill {
            a.aligned_group_prefill = true;
        }
        if self.prefill_two_batch_overlap {
            a.prefill_two_batch_overlap = true;
        }
        if let Some(e) = &self.expert_exchange {
            a.expert_exchange = e.parse().map_err(|e| format!("--expert-exchange: {e}"))?;
        }
        if let Some(f) = &self.framework {
            a.framework = f.parse().map_err(|e| format!("--framework: {e}"))?;
        }
        if let Some(s) = &self.scheduling {
            a.scheduling = s.parse().map_err(|e| format!("--scheduling: {e}"))?;
        }
        if let Some(n) = self.redundant_experts {
            if n > disagg_engine::limits::MAX_REDUNDANT_EXPERTS {
                return Err(format!(
                    "--redundant-experts {n} must lie between 0 and {}",
                    disagg_engine::limits::MAX_REDUNDANT_EXPERTS
                ));
            }
            a.redundant_experts = n;
        }
        a.cost = self.cost.apply(a.cost)?;
        a.validate().map_err(|e| e.to_string())?;
        Ok(a)
    }
}

#[derive(clap::Args)]
pub(crate) struct PredictArgs {
    /// A bundle file with a selected deployment (the page's "Download bundle" with a
    /// point selected, or --save-bundle); the flags it holds cannot be given with it.
    #[arg(long, value_name = "FILE", conflicts_with_all = PREDICT_BUNDLED)]
    bundle: Option<std::path::PathBuf>,
    /// Write the bundle this run uses (the flags' with the planned deployment, or
    /// --bundle's) to FILE.
    #[arg(long, value_name = "FILE")]
    save_bundle: Option<std::path::PathBuf>,
    /// Catalogue model id, or a path to a HuggingFace config.json.
    #[arg(long, required_unless_present = "bundle")]
    model: Option<String>,
    /// Catalogue chip id (aggregated, and the target chip of --axis spec).
    #[arg(long)]
    pub(crate) chip: Option<String>,
    /// Number of chips in the deployment (target chips with --axis spec).
    #[arg(long, default_value_t = 1)]
    pub(crate) chips: u32,
    /// agg (default), pd, af or spec.
    #[arg(long, default_value = "agg")]
    axis: String,
    #[command(flatten)]
    pools: axes::PoolArgs,
    /// Tensor parallelism of each replica (with --axis spec, the target's); --tp x --pp
    /// must divide --chips, the rest being replicas. Without --tp, --pp and --ep the
    /// planner chooses the layout.
    #[arg(long)]
    tp: Option<u32>,
    /// Pipeline stages of each replica (default 1 once --tp or --ep is given).
    #[arg(long)]
    pp: Option<u32>,
    /// Expert-parallel width of a MoE model (default 1 once --tp or --pp is given;
    /// beyond --tp it spans replicas, whose tokens meet their experts by all-to-all).
    #[arg(long)]
    ep: Option<u32>,
    #[command(flatten)]
    lengths: lengths::LengthArgs,
    /// Concurrent sequences over the deployment.
    #[arg(
        long,
        conflicts_with = "max_throughput",
        required_unless_present_any = ["max_throughput", "rate", "bundle"]
    )]
    batch: Option<u32>,
    /// Use the largest batch that fits.
    #[arg(long)]
    max_throughput: bool,
    /// Open loop: requests per second arriving at random (Poisson), as MLPerf's Server
    /// scenario sends them; the deployment runs at the smallest concurrency that keeps
    /// up, and TTFT queues before the prefill steps (in place of --batch).
    #[arg(
        long,
        value_name = "R",
        conflicts_with_all = ["batch", "max_throughput", "prompts", "prompts_per_user"]
    )]
    rate: Option<f64>,
    #[command(flatten)]
    precision: axes::PrecisionArgs,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
    /// Open every headline figure into its formula and inputs, and print each pool's
    /// steps operator by operator (`--json` always carries both).
    #[arg(long)]
    explain: bool,
    /// Compare the deployment with this provider's API price for the model (the
    /// catalogue's api_prices.toml): the monthly volume at which self-hosting is
    /// cheaper, as a chain. Without it, the model's cheapest row at the workload's mix,
    /// if any (`disagg list apis` prints the table).
    #[arg(long, value_name = "PROVIDER")]
    api: Option<String>,
    #[command(flatten)]
    assumptions: AssumptionArgs,
    /// Pipeline stages across unlike machines, one chip each in stage order (e.g.
    /// m3-ultra,m4-max): the model's layers split over them by usable memory unless
    /// --layers gives the split; the hidden states cross --link between stages.
    #[arg(
        long,
        value_name = "ID,ID[,ID...]",
        value_delimiter = ',',
        conflicts_with_all = [
            "chip", "chips", "axis", "tp", "pp", "ep", "rate", "max_throughput", "explain",
            "api", "save_bundle", "prefill_chip", "prefill_chips", "prefill_tp",
            "prefill_pp", "prefill_dp", "prefill_ep", "decode_chip", "decode_chips",
            "decode_tp", "decode_pp", "decode_dp", "decode_ep", "attn_chip", "attn_chips",
            "attn_tp", "expert_chip", "expert_chips", "micro_batches", "draft_chip",
            "draft_chips", "draft_model", "acceptance", "draft_tokens", "eagle_layers",
            "speculative_decode", "no_kv_streaming",
        ]
    )]
    pipeline: Option<Vec<String>>,
    /// With --pipeline: the layers of each stage, in order, adding up to the model's.
    #[arg(long, value_name = "N,N,...", value_delimiter = ',')]
    layers: Option<Vec<u32>>,
    /// The ids of the flags given on the command line, as opposed to filled in by their
    /// defaults: what the axis check reads (`axis_flags::foreign_flag`).
    #[arg(skip)]
    pub(crate) given: Vec<String>,
}

/// The ownership-cost flags (`AssumptionArgs`), which every bundle holds: one list for
/// the bundle lists of `predict`, `sweep` and `recommend`.
pub(crate) const COST_FLAGS: [&str; 7] = [
    "electricity_usd_kwh",
    "pue",
    "capex_usd_per_chip",
    "years",
    "duty_cycle",
    "idle_share",
    "cost_basis",
];

/// `a` then `b` as one list of `N` flag ids; `N` must be their two lengths together,
/// which the compiler checks where the constant is built.
pub(crate) const fn joined<const A: usize, const B: usize, const N: usize>(
    a: [&'static str; A],
    b: [&'static str; B],
) -> [&'static str; N] {
    assert!(
        A + B == N,
        "a joined flag list's length is its parts' together"
    );
    let mut out = [""; N];
    let mut i = 0;
    while i < A {
        out[i] = a[i];
        i += 1;
    }
    let mut j = 0;
    while j < B {
        out[A + j] = b[j];
        j += 1;
    }
    out
}

/// The flags a bundle holds (clap ids), refused alongside `predict --bundle`.
const PREDICT_BUNDLED: [&str; 68] = joined(PREDICT_HELD, COST_FLAGS);

/// `predict`'s bundled flags other than the cost ones.
const PREDICT_HELD: [&str; 61] = [
    "pipeline",
    "layers",
    "model",
    "chip",
    "chips",
    "axis",
    "prefill_chip",
    "prefill_chips",
    "prefill_tp",
    "prefill_pp",
    "prefill_dp",
    "prefill_ep",
    "decode_chip",
    "decode_chips",
    "decode_tp",
    "decode_pp",
    "decode_dp",
    "decode_ep",
    "attn_chip",
    "attn_chips",
    "attn_tp",
    "expert_chip",
    "expert_chips",
    "micro_batches",
    "draft_model",
    "draft_chip",
    "draft_chips",
    "acceptance",
    "draft_tokens",
    "speculative_decode",
    "link_gbps",
    "link",
    "no_kv_streaming",
    "tp",
    "pp",
    "ep",
    "isl",
    "osl",
    "cached",
    "output_cv",
    "prompts",
    "prompts_per_user",
    "run_requests",
    "longest_output",
    "batch",
    "max_throughput",
    "rate",
    "weight_dtype",
    "weight_bits",
    "kv_dtype",
    "assumptions",
    "aligned_group_prefill",
    "expert_exchange",
    "prefill_two_batch_overlap",
    "framework",
    "expert_dtype",
    "attn_out_dtype",
    "lm_head_dtype",
    "redundant_experts",
    "eagle_layers",
    "scheduling",
];

/// Writes one line of output; see [`out!`].
fn emit(line: std::fmt::Arguments) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    if let Err(e) = writeln!(stdout, "{line}").and_then(|()| stdout.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("error: cannot write the output: {e}");
        std::process::exit(1);
    }
}

/// The ids of the flags `m` holds from the command line, not from their defaults.
fn given_flags(m: Option<&clap::ArgMatches>) -> Vec<String> {
    let Some(m) = m else { return Vec::new() };
    m.ids()
        .map(|id| id.as_str())
        .filter(|id| m.value_source(id) == Some(clap::parser::ValueSource::CommandLine))
        .map(str::to_string)
        .collect()
}

fn main() -> ExitCode {
    let matches = Cli::command().get_matches();
    let mut cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    match &mut cli.command {
        Command::Predict(args) => args.given = given_flags(matches.subcommand_matches("predict")),
        Command::Deploy(args) => {
            args.predict.given = given_flags(matches.subcommand_matches("deploy"))
        }
        Command::Sweep(args) => args.given = given_flags(matches.subcommand_matches("sweep")),
        Command::Recommend(args) => {
            args.given = given_flags(matches.subcommand_matches("recommend"))
        }
        _ => {}
    }
    let result = match cli.command {
        Command::List {
            what,
            chip,
            framework,
        } => list(what, chip.as_deref(), framework.as_deref()),
        Command::Predict(args) => match &args.pipeline {
            Some(ids) => pipeline::run(&args, ids),
            None if args.layers.is_some() => Err("--layers needs --pipeline".into()),
            None => axes::run_predict(&args),
        },
        Command::Sweep(args) => sweep::run_sweep(&args),
        Command::Deploy(args) => deploy::run_deploy(*args),
        Command::Recommend(args) => recommend::run_recommend(&args),
        Command::Validate {
            json,
            point,
            explain,
            save_bundle,
            by,
            only,
            assumptions,
        } => match point {
            Some(_) if by.is_some() || only.is_some() => {
                Err("--by and --only read the table's rows; --point opens one row: use one".into())
            }
            Some(id) => validate::validation_assumptions(&assumptions)
                .and_then(|a| validate_point::run(&id, json, explain, &save_bundle, &a)),
            None if explain || save_bundle.is_some() => {
                Err("--explain and --save-bundle open one row: name it with --point ID".into())
            }
            None => validate::run_validate(json, by.as_deref(), only.as_deref(), &assumptions),
        },
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn list(what: ListWhat, chip: Option<&str>, framework: Option<&str>) -> Result<(), String> {
    let cat = Catalogue::builtin();
    if what != ListWhat::Assumptions && (chip.is_some() || framework.is_some()) {
        return Err("--chip and --framework apply to `list assumptions` only".into());
    }
    match what {
        ListWhat::Assumptions => out!(
            "{}",
            serde_json::to_string_pretty(&assumptions_on(cat, chip, framework)?)
                .map_err(|e| e.to_string())?
        ),
        ListWhat::Chips => {
            out!(
                "{:18} {:44} {:>9} {:>9} {:>9} {:>8} {:>9} {:>7} {:>7}",
                "id",
                "name",
                "BF16 TF",
                "FP8 TF",
                "FP4 TF",
                "mem GB",
                "BW GB/s",
                "TDP W",
                "$/h"
            );
            for c in &cat.chips {
                let opt = |v: Option<f64>, scale: f64, digits: usize| {
                    v.map_or("-".to_string(), |v| format!("{:.*}", digits, v / scale))
                };
                out!(
                    "{:18} {:44} {:>9.0} {:>9} {:>9} {:>8.0} {:>9.0} {:>7} {:>7}",
                    c.id,
                    truncate(&c.name, 44),
                    c.bf16.tflops(),
                    opt(c.fp8.map(|f| f.value()), 1e12, 0),
                    opt(c.fp4.map(|f| f.value()), 1e12, 0),
                    c.fast.capacity.gb(),
                    c.fast.bandwidth.gb_per_s(),
                    opt(c.tdp.map(|w| w.value()), 1.0, 0),
                    opt(c.price.map(|p| p.value()), 1.0, 2),
                );
            }
        }
        ListWhat::Links => {
            out!(
                "{:10} {:38} {:>12} {:>11}",
                "id",
                "name",
                "Gb/s each way",
                "latency us"
            );
            for l in &disagg_engine::catalogue::Links::builtin().links {
                out!(
                    "{:10} {:38} {:>12.0} {:>11}",
                    l.id,
                    truncate(&l.name, 38),
                    l.gbps(),
                    l.latency
                        .map_or("default".to_string(), |s| format!("{:.0}", s.value() * 1e6)),
                );
            }
        }
        ListWhat::Apis => crate::cost::list_apis(),
        ListWhat::Models => {
            out!(
                "{:16} {:22} {:>9} {:>9} {:>7} {:>8} {:>6} {:>7}",
                "id",
                "name",
                "total B",
                "active B",
                "layers",
                "hidden",
                "MoE",
                "dtype"
            );
            for m in &cat.models {
                let p = m.ir.params();
                out!(
                    "{:16} {:22} {:>9.2} {:>9.2} {:>7} {:>8} {:>6} {:>7}",
                    m.id,
                    truncate(&m.name, 22),
                    p.total / 1e9,
                    p.active / 1e9,
                    m.ir.num_layers,
                    m.ir.hidden,
                    m.ir.routed_experts().map_or("-".into(), |e| e.to_string()),
                    m.default_weight_dtype,
                );
            }
        }
    }
    Ok(())
}

fn truncate(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

/// Why a point does not fit, then its warnings, one flagged line each.
fn print_problems(reason: Option<&str>, warnings: &[String]) {
    for line in reason
        .into_iter()
        .chain(warnings.iter().map(String::as_str))
    {
        out!("  ! {line}");
    }
}
