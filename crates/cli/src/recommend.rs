//! `disagg recommend`: argument handling and output only; the search is
//! `disagg_engine::recommend`, and the JSON is the engine's own serialisation of its
//! answer with, for each deployment, the `predict` flags that evaluate one replica.

use crate::axes::{limit_ms, slo_at, to_json, LinkArgs, SpecArgs};
use crate::bundle::{self, Flags};
use crate::lengths::LengthArgs;
use crate::AssumptionArgs;
use disagg_engine::bundle::Bundle;
use disagg_engine::cost::CostBasis;
use disagg_engine::disagg::{Axis, DeploymentSpec, PoolRole};
use disagg_engine::limits::{DEFAULT_RECOMMEND_CHIPS, MAX_BATCH, MAX_SWEEP_CHIPS};
use disagg_engine::recommend::{
    recommend, usd_per_mtok, Demand, Entry, Load, RecommendRequest, Recommendation,
};
use disagg_engine::sweep::Slo;
use disagg_engine::units::RequestsPerSecond;
use disagg_engine::validation::{self, LatencyBands, ValidationReport};
use disagg_engine::{Catalogue, Chip};
use serde::Serialize;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
#[command(group(clap::ArgGroup::new("demand").required(true).args(["rate", "tokens_per_day", "users"])))]
pub struct RecommendArgs {
    /// A bundle file (the page's "Download bundle") holding the model, workload,
    /// settings, assumptions and the chips to search; the flags it holds cannot be
    /// given with it.
    #[arg(long, value_name = "FILE", conflicts_with_all = RECOMMEND_BUNDLED)]
    bundle: Option<PathBuf>,
    /// Catalogue model id, or a path to a HuggingFace config.json.
    #[arg(long, required_unless_present = "bundle")]
    model: Option<String>,
    #[command(flatten)]
    lengths: LengthArgs,
    /// Time-to-first-token limit in milliseconds (the mean at the demand).
    #[arg(long)]
    ttft_ms: f64,
    /// Time-per-output-token limit in milliseconds.
    #[arg(long)]
    tpot_ms: f64,
    /// What --ttft-ms and --tpot-ms bound: the mean over requests (the default) or the
    /// request at the 90th percentile (p90).
    #[arg(long, value_name = "mean|p90")]
    slo_at: Option<String>,
    /// Demand: requests per second arriving at random (Poisson).
    #[arg(long, value_name = "R")]
    rate: Option<f64>,
    /// Demand: tokens per day, prompt and output together (a request carries
    /// --isl + --osl of them), arriving at random.
    #[arg(long, value_name = "T")]
    tokens_per_day: Option<f64>,
    /// Demand: concurrent users, each sending its next request when the last ends.
    #[arg(long, value_name = "U")]
    users: Option<u32>,
    /// Chips to search, comma-separated catalogue ids (default: the whole catalogue).
    #[arg(long, value_delimiter = ',')]
    chips: Vec<String>,
    /// Axes to search, comma-separated: agg, pd, af, spec (default: every axis that
    /// applies to the model and draft).
    #[arg(long, value_delimiter = ',')]
    axis: Vec<String>,
    /// Most chips of all replicas together.
    #[arg(long, default_value_t = DEFAULT_RECOMMEND_CHIPS)]
    max_chips: u32,
    #[command(flatten)]
    precision: crate::axes::PrecisionArgs,
    #[command(flatten)]
    spec: SpecArgs,
    #[command(flatten)]
    link: LinkArgs,
    /// One JSON object.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    assumptions: AssumptionArgs,
    /// The ids of the flags given on the command line (`main::given_flags`): what the
    /// axis check reads.
    #[arg(skip)]
    pub(crate) given: Vec<String>,
}

/// The flags a bundle holds (clap ids), refused alongside `recommend --bundle`: a bundle
/// carries its model, workload, precision, speculation, link and assumptions, so a flag
/// for any of them beside it would be ignored.
pub(crate) const RECOMMEND_BUNDLED: [&str; 40] = crate::joined(RECOMMEND_HELD, crate::COST_FLAGS);

/// `recommend`'s bundled flags other than the cost ones.
const RECOMMEND_HELD: [&str; 33] = [
    "model",
    "chips",
    "isl",
    "osl",
    "cached",
    "output_cv",
    "prompts",
    "prompts_per_user",
    "run_requests",
    "longest_output",
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

/// The flags `recommend` reads beside a bundle: the demand, the limits and the search,
/// which no bundle holds (the bundle-conflict test's list of what it may leave out).
#[cfg(test)]
pub(crate) const RECOMMEND_OWN: [&str; 8] = [
    "ttft_ms",
    "tpot_ms",
    "slo_at",
    "rate",
    "tokens_per_day",
    "users",
    "axis",
    "max_chips",
];

/// The catalogue chips `--chips` names (the whole catalogue without it), each once.
fn search_chips(args: &RecommendArgs) -> Result<Vec<Chip>, String> {
    if args.chips.is_empty() {
        Ok(Catalogue::builtin().chips.clone())
    } else {
        bundle::chips(args.chips.iter().map(String::as_str))
    }
}

/// The bundle the flags describe (its chips are a bundle's few; the search's are
/// [`search_chips`]).
fn recommend_bundle(args: &RecommendArgs, chips: &[Chip]) -> Result<Bundle, String> {
    let flags = Flags {
        model: args.model.as_deref(),
        lengths: &args.lengths,
        precision: &args.precision,
        spec: &args.spec,
        link: &args.link,
        assumptions: &args.assumptions,
    };
    bundle::from_flags(
        &flags,
        chips.iter().take(1).cloned().collect(),
        Axis::Aggregated,
    )
}

/// The demand the flags state, each bound checked under its flag's name.
fn demand(args: &RecommendArgs) -> Result<Demand, String> {
    if let Some(r) = args.rate {
        crate::axes::rate_flag(r)?;
        return Ok(Demand::Rate(RequestsPerSecond::new(r)));
    }
    if let Some(t) = args.tokens_per_day {
        if !(t.is_finite() && t > 0.0) {
            return Err(format!(
                "--tokens-per-day {t:?} must be a positive number of tokens"
            ));
        }
        return Ok(Demand::TokensPerDay(t));
    }
    match args.users {
        Some(u) if (1..=MAX_BATCH).contains(&u) => Ok(Demand::Users(u)),
        Some(u) => Err(format!("--users {u} must lie between 1 and {MAX_BATCH}")),
        None => Err("give one of --rate, --tokens-per-day or --users".into()),
    }
}

/// `recommend`: the search over the flags' (or the bundle's) chips.
pub fn run_recommend(args: &RecommendArgs) -> Result<(), String> {
    let slo = Slo {
        ttft: limit_ms(Some(args.ttft_ms), "--ttft-ms")?,
        tpot: limit_ms(Some(args.tpot_ms), "--tpot-ms")?,
        rate: None,
        at: slo_at(args.slo_at.as_deref())?,
    };
    if !(1..=MAX_SWEEP_CHIPS).contains(&args.max_chips) {
        return Err(format!(
            "--max-chips {} must lie between 1 and {MAX_SWEEP_CHIPS}",
            args.max_chips
        ));
    }
    let axes = args
        .axis
        .iter()
        .map(|a| Axis::parse(a).map_err(|e| format!("--axis: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    // A flag none of the axes `--axis` names reads is refused, as `predict` refuses one
    // its axis does not read; without `--axis` every axis that applies is searched.
    if let Some(why) =
        crate::axis_flags::unread_by_every(&axes, args.spec.speculative_decode, &args.given)
    {
        return Err(format!("{why} (none of the axes searched reads it)"));
    }
    let demand = demand(args)?;
    let (b, chips) = match &args.bundle {
        Some(path) => {
            let b = bundle::read(path)?;
            let chips = b.chips.clone();
            (b, chips)
        }
        None => {
            let chips = search_chips(args)?;
            (recommend_bundle(args, &chips)?, chips)
        }
    };
    let inputs = b.inputs(Catalogue::builtin()).map_err(|e| e.to_string())?;
    let req = RecommendRequest {
        setup: inputs.setup(),
        chips: chips.iter().collect(),
        axes,
        slo,
        demand,
        max_chips: args.max_chips,
    };
    let r = recommend(&req).map_err(|e| e.to_string())?;
    // How far off each ranked replica's latencies may be: the model's measured error on
    // published hold-out points, run once as `predict` runs it.
    let validated = validation::band_report(Catalogue::builtin()).map_err(|e| e.to_string())?;
    if args.json {
        out!("{}", to_json(&Report::new(&r, &validated))?);
    } else {
        print(inputs.model_name(), &r, &validated);
    }
    Ok(())
}

/// The answer as `--json` prints it: the engine's, each deployment with the `predict`
/// flags of one replica.
#[derive(Serialize)]
struct Report<'a> {
    #[serde(flatten)]
    recommendation: &'a Recommendation,
    /// `disagg predict` flags evaluating one replica of each ranked deployment at its
    /// share of the demand (add the model and workload flags given here).
    predict_flags: Vec<String>,
    minimum_predict_flags: Option<String>,
    /// Each ranked deployment's error bands of TTFT and TPOT (as `predict` gives them).
    error_bands: Vec<LatencyBands>,
    minimum_error_bands: Option<LatencyBands>,
}

impl<'a> Report<'a> {
    fn new(r: &'a Recommendation, validated: &ValidationReport) -> Self {
        Report {
            recommendation: r,
            predict_flags: r.ranked.iter().map(predict_flags).collect(),
            minimum_predict_flags: r.minimum().map(predict_flags),
            error_bands: r
                .ranked
                .iter()
                .map(|e| e.latency_bands(validated, Catalogue::builtin()))
                .collect(),
            minimum_error_bands: r
                .minimum()
                .map(|e| e.latency_bands(validated, Catalogue::builtin())),
        }
    }
}

/// The `disagg predict` flags for one replica of `e` at its load.
pub(crate) fn predict_flags(e: &Entry) -> String {
    let s: &DeploymentSpec = &e.spec;
    let mut f = vec![format!("--axis {}", s.axis.id())];
    for p in &s.pools {
        let l = p.parallelism;
        let n = l.chips();
        let pool = match p.role {
            PoolRole::Colocated => format!(
                "--chip {} --chips {n} --tp {} --pp {} --ep {}",
                p.chip, l.tp, l.pp, l.ep
            ),
            // A speculating target takes no pipeline stages (`--pp` is the aggregated
            // pool's).
            PoolRole::Target => {
                format!("--chip {} --chips {n} --tp {} --ep {}", p.chip, l.tp, l.ep)
            }
            PoolRole::Prefill | PoolRole::Decode => {
                let r = p.role.name();
                format!(
                    "--{r}-chip {} --{r}-chips {n} --{r}-tp {} --{r}-pp {} --{r}-dp {} --{r}-ep {}",
                    p.chip, l.tp, l.pp, l.dp, l.ep
                )
            }
            PoolRole::Attention => {
                format!("--attn-chip {} --attn-chips {n} --attn-tp {}", p.chip, l.tp)
            }
            PoolRole::Experts => format!("--expert-chip {} --expert-chips {n}", p.chip),
            PoolRole::Draft => format!("--draft-chip {} --draft-chips {n}", p.chip),
        };
        f.push(pool);
    }
    if s.axis == Axis::AttentionExpert {
        f.push(format!("--micro-batches {}", s.micro_batches));
    }
    f.push(match e.load {
        Load::Rate(r) => format!("--rate {}", r.value()),
        Load::Concurrency(b) => format!("--batch {b}"),
    });
    f.join(" ")
}

fn money(e: &Entry) -> String {
    usd_per_mtok(e).map_or("-".into(), |v| format!("{v:.3}"))
}

fn print(model: &str, r: &Recommendation, validated: &ValidationReport) {
    let limit = |t: Option<disagg_engine::units::Seconds>| {
        t.map_or("none".into(), |t| format!("{} ms", t.ms()))
    };
    let (ttft, tpot) = (r.slo.at.name("TTFT"), r.slo.at.name("TPOT"));
    // The latency columns as wide as their headings ("p90 TTFT ms" is wider than 8).
    let w = 8.max(ttft.len() + 3);
    out!(
        "{model}: recommend for {ttft} {}, {tpot} {}; demand: {}",
        limit(r.slo.ttft),
        limit(r.slo.tpot),
        r.demand_read
    );
    out!(
        "  searched {} axes over {} layouts, {} replica counts evaluated; at most {} chips in all",
        r.axes.iter().map(|a| a.id()).collect::<Vec<_>>().join(","),
        r.candidates,
        r.evaluations,
        r.max_chips
    );
    for n in &r.notes {
        out!("  note: {n}");
    }
    let dollars = match r.tried.first().map(|e| e.figures.cost_basis) {
        Some(CostBasis::Ownership) => "ownership",
        _ => "rental",
    };
    out!("\nranked by $/Mtok (output, {dollars}), then chips:");
    out!(
        "  {:>4} {:5} {:>8} {:>6} {:>8} {:>w$} {:>6} {:>w$} {:>6}  one replica",
        "rank",
        "axis",
        "replicas",
        "chips",
        "$/Mtok",
        format!("{ttft} ms"),
        "±",
        format!("{tpot} ms"),
        "±"
    );
    if r.ranked.is_empty() {
        out!("  (no priced deployment meets the SLO at this demand)");
    }
    for (i, e) in r.ranked.iter().enumerate() {
        let bands = e.latency_bands(validated, Catalogue::builtin());
        out!(
            "  {:>4} {:5} {:>8} {:>6} {:>8} {:>w$.0} {:>6} {:>w$.1} {:>6}  {}",
            i + 1,
            e.spec.axis.id(),
            e.replicas,
            e.total_chips,
            money(e),
            r.slo.ttft_of(&e.figures).ms(),
            validation::band_median(bands.ttft.as_ref()),
            r.slo.tpot_of(&e.figures).ms(),
            validation::band_median(bands.tpot.as_ref()),
            e.label
        );
    }
    if !r.ranked.is_empty() {
        out!(
            "  ±: the median |error| of comparable published hold-out points (chip family, axis, \
             metric, concurrency), as `predict` prints the band"
        );
    }
    match r.minimum() {
        Some(m) => {
            out!(
                "\nminimum hardware: {} chips, {} x {} ({} axis): $/Mtok {}, {ttft} {:.0} ms, {tpot} {:.1} ms",
                m.total_chips,
                m.replicas,
                m.label,
                m.spec.axis.id(),
                money(m),
                r.slo.ttft_of(&m.figures).ms(),
                r.slo.tpot_of(&m.figures).ms()
            );
            let bands = m.latency_bands(validated, Catalogue::builtin());
            for (name, band) in [("TTFT", bands.ttft), ("TPOT", bands.tpot)] {
                out!("  error, {name}  {}", validation::band_line(band.as_ref()));
            }
        }
        None => out!("\nminimum hardware: none meets the SLO at this demand within the bound"),
    }
    if let Some(first) = r.ranked.first() {
        out!(
            "  check the first: disagg predict <the model and workload flags above> {}",
            predict_flags(first)
        );
    }
    if !r.rejected.is_empty() {
        out!("\nchip kinds with no deployment that meets the SLO at this demand:");
        for f in &r.rejected {
            out!("  {:18} {:14} {}", f.chip, f.kind.name(), f.reason);
        }
    }
}
