//! `disagg sweep`: argument handling and output only; the modelling is
//! `disagg_engine::sweep`, and the JSON is the engine's own serialisation of its result.

use crate::axes::{limit_ms, slo_at, to_json, LinkArgs, SpecArgs};
use crate::bundle::{self, Flags};
use crate::lengths::LengthArgs;
use crate::AssumptionArgs;
use disagg_engine::bundle::Bundle;
use disagg_engine::disagg::Axis;
use disagg_engine::frontier::Objective;
use disagg_engine::limits::{
    DEFAULT_SWEEP_CHIPS, MAX_BATCH, MAX_SWEEP_CHIPS, MAX_TARGET_TOK_S_USER,
};
use disagg_engine::sweep::{
    compare_axes, distinct_whys, sweep, AxisBest, Callout, RejectCount, Slo, SloMisses, SweepPoint,
    SweepResult,
};
use disagg_engine::units::{Seconds, TokensPerSecond};
use disagg_engine::validation::{self, band_line, ErrorBand, HowSure, NearestPoints};
use disagg_engine::Catalogue;
use serde::Serialize;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct SweepArgs {
    /// A bundle file (the page's "Download bundle", or --save-bundle) holding the model,
    /// chips, workload, settings and assumptions; the flags it holds cannot be given
    /// with it.
    #[arg(long, value_name = "FILE", conflicts_with_all = SWEEP_BUNDLED)]
    bundle: Option<PathBuf>,
    /// Write the bundle this run uses (the flags', or --bundle's) to FILE.
    #[arg(long, value_name = "FILE")]
    save_bundle: Option<PathBuf>,
    /// Catalogue model id, or a path to a HuggingFace config.json.
    #[arg(long, required_unless_present = "bundle")]
    model: Option<String>,
    /// agg, pd, af or spec.
    #[arg(long, default_value = "pd")]
    axis: String,
    /// Chips to pair, comma-separated catalogue ids.
    #[arg(long, value_delimiter = ',', required_unless_present = "bundle")]
    chips: Vec<String>,
    #[command(flatten)]
    lengths: LengthArgs,
    /// Most chips of all pools together.
    #[arg(long, default_value_t = DEFAULT_SWEEP_CHIPS)]
    max_chips: u32,
    /// Interactivity the callout compares at (default: the middle of the shared range).
    #[arg(long)]
    target_tok_s_user: Option<f64>,
    /// Time-to-first-token limit in milliseconds: the frontiers keep only the points
    /// that meet it (and the TPOT limit).
    #[arg(long)]
    ttft_ms: Option<f64>,
    /// Time-per-output-token limit in milliseconds.
    #[arg(long)]
    tpot_ms: Option<f64>,
    /// What --ttft-ms and --tpot-ms bound: the mean over requests (the default) or the
    /// request at the 90th percentile (p90).
    #[arg(long, value_name = "mean|p90")]
    slo_at: Option<String>,
    /// Concurrent requests every point runs at (default: batches are swept). A pool
    /// that cannot hold that many at once is rejected.
    #[arg(long)]
    batch: Option<u32>,
    #[command(flatten)]
    precision: crate::axes::PrecisionArgs,
    #[command(flatten)]
    spec: SpecArgs,
    #[command(flatten)]
    link: LinkArgs,
    /// One JSON object.
    #[arg(long, conflicts_with = "csv")]
    json: bool,
    /// The frontier points as CSV.
    #[arg(long)]
    csv: bool,
    /// Also sweep every axis at the same target and print each one's best deployments
    /// (costs about one sweep per axis).
    #[arg(long, conflicts_with = "csv")]
    compare_axes: bool,
    /// The ids of the flags given on the command line (`main::given_flags`): what the
    /// axis check reads.
    #[arg(skip)]
    pub(crate) given: Vec<String>,
    #[command(flatten)]
    assumptions: AssumptionArgs,
}

/// The flags a bundle holds (clap ids), refused alongside `sweep --bundle`.
pub(crate) const SWEEP_BUNDLED: [&str; 47] = crate::joined(SWEEP_HELD, crate::COST_FLAGS);

/// `sweep`'s bundled flags other than the cost ones.
const SWEEP_HELD: [&str; 40] = [
    "model",
    "axis",
    "chips",
    "isl",
    "osl",
    "cached",
    "output_cv",
    "prompts",
    "prompts_per_user",
    "run_requests",
    "longest_output",
    "max_chips",
    "target_tok_s_user",
    "ttft_ms",
    "tpot_ms",
    "slo_at",
    "batch",
    "weight_dtype",
    "weight_bits",
    "kv_dtype",
    "draft_model",
    "draft_chip",
    "draft_chips",
    "acceptance",
    "draft_tokens",
    "speculative_decode",
    "link_gbps",
    "link",
    "no_kv_streaming",
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

/// The bundle `sweep`'s flags describe.
fn sweep_bundle(args: &SweepArgs) -> Result<Bundle, String> {
    let axis = Axis::parse(&args.axis).map_err(|e| e.to_string())?;
    // A sweep of one axis ignores the flags of the others (a link on the aggregated
    // axis, a draft off the spec axis); with --compare-axes every axis runs, so each
    // flag has one that reads it.
    if !args.compare_axes {
        if let Some(why) =
            crate::axis_flags::unread_by_every(&[axis], args.spec.speculative_decode, &args.given)
        {
            return Err(format!("{why} (or sweep every axis with --compare-axes)"));
        }
    }
    let flags = Flags {
        model: args.model.as_deref(),
        lengths: &args.lengths,
        precision: &args.precision,
        spec: &args.spec,
        link: &args.link,
        assumptions: &args.assumptions,
    };
    let chips = bundle::chips(args.chips.iter().map(String::as_str))?;
    let mut b = bundle::from_flags(&flags, chips, axis)?;
    limit_ms(args.ttft_ms, "--ttft-ms")?;
    limit_ms(args.tpot_ms, "--tpot-ms")?;
    if let Some(n) = args.batch.filter(|n| !(1..=MAX_BATCH).contains(n)) {
        return Err(format!("--batch {n} must lie between 1 and {MAX_BATCH}"));
    }
    if !(1..=MAX_SWEEP_CHIPS).contains(&args.max_chips) {
        return Err(format!(
            "--max-chips {} must lie between 1 and {MAX_SWEEP_CHIPS}",
            args.max_chips
        ));
    }
    if let Some(t) = args
        .target_tok_s_user
        .filter(|t| !(f64::MIN_POSITIVE..=MAX_TARGET_TOK_S_USER).contains(t))
    {
        return Err(format!(
            "--target-tok-s-user {t:?} must be a positive rate, at most {MAX_TARGET_TOK_S_USER}"
        ));
    }
    b.sweep.max_chips = args.max_chips;
    b.sweep.batch = args.batch;
    b.sweep.target_tok_s_user = args.target_tok_s_user;
    b.sweep.ttft_ms = args.ttft_ms;
    b.sweep.tpot_ms = args.tpot_ms;
    if args.slo_at.is_some() && args.ttft_ms.is_none() && args.tpot_ms.is_none() {
        // Without a limit the statistic bounds nothing, and would be ignored.
        return Err("--slo-at says what --ttft-ms and --tpot-ms bound: give one of them".into());
    }
    b.sweep.slo_at = slo_at(args.slo_at.as_deref())?;
    Ok(b)
}

/// `sweep`: the bundle's (`--bundle`) or the flags' sweep.
pub fn run_sweep(args: &SweepArgs) -> Result<(), String> {
    let b = match &args.bundle {
        Some(path) => bundle::read(path)?,
        None => sweep_bundle(args)?,
    };
    bundle::save_if(&args.save_bundle, &b)?;
    let inputs = b.inputs(Catalogue::builtin()).map_err(|e| e.to_string())?;
    let request = inputs.request();
    let result = sweep(&request).map_err(|e| e.to_string())?;
    let sure = how_sure(&b, result.axis)?;
    let axes = if args.compare_axes {
        Some(compare_axes(&request, result.target_tok_s_user).map_err(|e| e.to_string())?)
    } else {
        None
    };
    if args.json {
        let report = SweepReport {
            axes: axes.as_deref(),
            error_band: sure.band.as_ref(),
            few_points: &sure.few,
            ..SweepReport::new(&result)
        };
        out!("{}", to_json(&report)?);
    } else if args.csv {
        print_csv(&result);
    } else {
        print_sweep(inputs.model_name(), &result);
        out!("  how sure: {}", band_line(sure.band.as_ref()));
        for n in &sure.few {
            out!("  how sure: {}", n.line());
        }
        if let Some(axes) = &axes {
            print_axes(result.target_tok_s_user, axes);
        }
    }
    Ok(())
}

/// How sure the sweep's figures are, as the page's "How sure" says it: the model's
/// measured error on published hold-out points of its chips on its axis.
fn how_sure(b: &Bundle, axis: Axis) -> Result<HowSure, String> {
    let cat = Catalogue::builtin();
    let validated = validation::band_report(cat).map_err(|e| e.to_string())?;
    let chips: Vec<String> = b.chips.iter().map(|c| c.id.clone()).collect();
    Ok(HowSure::of(&validated, cat, &chips, axis))
}

/// The sweep as `--json` prints it: counts, the frontiers' points in full, the
/// callouts and notes.
#[derive(Serialize)]
struct SweepReport<'a> {
    axis: Axis,
    evaluated: u64,
    feasible: u64,
    rejected: &'a [RejectCount],
    target_tok_s_user: TokensPerSecond,
    slo: Slo,
    slo_misses: SloMisses,
    /// With an SLO: the best compliant deployments per objective, in full.
    slo_picks: Vec<SloPickReport<'a>>,
    slo_why_others_fail: Option<&'a str>,
    frontier_throughput: Vec<&'a SweepPoint>,
    frontier_cost: Vec<&'a SweepPoint>,
    frontier_throughput_homogeneous: Vec<&'a SweepPoint>,
    frontier_throughput_heterogeneous: Vec<&'a SweepPoint>,
    callouts: &'a [Callout],
    notes: &'a [String],
    /// With `--compare-axes`: each axis' best deployments at the same target.
    #[serde(skip_serializing_if = "Option::is_none")]
    axes: Option<&'a [AxisBest]>,
    /// The band of the sweep's chips on its axis (any metric, any concurrency).
    error_band: Option<&'a ErrorBand>,
    /// Each chip family's own one or two points, where its band widened past them.
    few_points: &'a [NearestPoints],
}

impl<'a> SweepReport<'a> {
    fn new(r: &'a SweepResult) -> Self {
        let list = |idx: &'a [usize]| r.points(idx).collect::<Vec<_>>();
        SweepReport {
            axis: r.axis,
            evaluated: r.evaluated,
            feasible: r.feasible,
            rejected: &r.rejected,
            target_tok_s_user: r.target_tok_s_user,
            slo: r.slo,
            slo_misses: r.slo_misses,
            slo_picks: r
                .slo_answer
                .iter()
                .flat_map(|a| &a.picks)
                .map(|p| SloPickReport {
                    objective: p.objective,
                    sentence: &p.sentence,
                    points: list(&p.points),
                })
                .collect(),
            slo_why_others_fail: r.slo_answer.as_ref().map(|a| a.why_others_fail.as_str()),
            frontier_throughput: list(&r.throughput.all),
            frontier_cost: list(&r.cost.all),
            frontier_throughput_homogeneous: list(&r.throughput.homogeneous),
            frontier_throughput_heterogeneous: list(&r.throughput.heterogeneous),
            callouts: &r.callouts,
            notes: &r.notes,
            axes: None,
            error_band: None,
            few_points: &[],
        }
    }
}

/// One objective's SLO picks with the points written out.
#[derive(Serialize)]
struct SloPickReport<'a> {
    objective: Objective,
    sentence: &'a str,
    points: Vec<&'a SweepPoint>,
}

/// Each axis' best deployments at the target, one line per axis and measure.
fn print_axes(target: TokensPerSecond, axes: &[AxisBest]) {
    out!("\nevery axis at {:.1} tok/s/user:", target);
    for a in axes {
        if let Some(why) = &a.unavailable {
            out!("  {:<22} does not apply: {why}", a.axis.name());
            continue;
        }
        for o in Objective::ALL {
            let shown = match a.best(o).and_then(|p| Some((p, o.value(&p.figures)?))) {
                Some((p, v)) => format!("{v:.3} {} ({})", o.name(), p.label),
                None => format!("no {} point reaches the target", o.name()),
            };
            out!("  {:<22} {shown}", a.axis.name());
        }
    }
}

fn print_csv(r: &SweepResult) {
    out!("frontier,class,label,batch,chips,tok_s_user,output_tok_s_per_chip,usd_per_mtok_output,ttft_s,tpot_s,bottleneck,limiter");
    for (name, pts) in [("throughput", &r.throughput.all), ("cost", &r.cost.all)] {
        for p in r.points(pts) {
            let f = &p.figures;
            out!(
                "{name},{},\"{}\",{},{},{:.4},{:.4},{},{:.6},{:.6},{},{}",
                p.class.name(),
                p.label.replace('"', "'"),
                f.batch,
                f.chips,
                f.tok_s_user,
                f.output_tok_s_per_chip,
                f.usd_per_mtok_output
                    .map_or(String::new(), |v| format!("{v:.6}")),
                f.ttft.value(),
                f.tpot.value(),
                f.bottleneck.name(),
                f.limiter.name()
            );
        }
    }
}

fn print_sweep(model: &str, r: &SweepResult) {
    out!(
        "{model}, {} sweep: {} points evaluated, {} feasible",
        r.axis,
        r.evaluated,
        r.feasible
    );
    for c in &r.rejected {
        out!("  rejected: {:>8}  {}", c.count, c.name);
    }
    if r.slo.is_set() {
        let limit = |t: Option<Seconds>| t.map_or("none".to_string(), |t| format!("{} ms", t.ms()));
        let m = &r.slo_misses;
        let (ttft, tpot) = (r.slo.at.name("TTFT"), r.slo.at.name("TPOT"));
        out!(
            "  SLO ({ttft} {}, {tpot} {}): {} of {} feasible points meet it; {} miss {ttft}, {} miss {tpot}; the frontiers hold those that meet it",
            limit(r.slo.ttft),
            limit(r.slo.tpot),
            m.met,
            r.feasible,
            m.ttft,
            m.tpot
        );
    }
    for n in &r.notes {
        out!("  note: {n}");
    }
    for (objective, pts) in [
        (Objective::ThroughputPerChip, &r.throughput.all),
        (Objective::CostPerMtok, &r.cost.all),
    ] {
        out!("\nfrontier: tok/s/user vs {}", objective.name());
        out!(
            "  {:>10} {:>12} {:>10} {:>9} {:14} label",
            "tok/s/user",
            "tok/s/chip",
            "$/Mtok",
            "TTFT ms",
            "class"
        );
        for p in r.points(pts) {
            let f = &p.figures;
            out!(
                "  {:>10.1} {:>12.1} {:>10} {:>9.0} {:14} {}",
                f.tok_s_user,
                f.output_tok_s_per_chip,
                // The dollars the frontier ranks by (`--cost-basis`).
                f.ranked_usd_per_mtok_output()
                    .map_or("-".into(), |v| format!("{v:.3}")),
                f.ttft.ms(),
                p.class.name(),
                p.label
            );
        }
    }
    if let Some(a) = &r.slo_answer {
        out!("\nwithin the SLO:");
        for p in &a.picks {
            out!("  [{}] {}", p.objective.name(), p.sentence);
        }
        out!("  {}", a.why_others_fail);
    }
    // Each headline starts with its measure and target; the why is printed once when
    // both measures name the same deployments.
    out!("\nverdict:");
    for c in &r.callouts {
        out!("  {}", c.headline);
    }
    for w in distinct_whys(&r.callouts) {
        out!("  why: {w}");
    }
}
