//! `disagg predict` (every axis) and `disagg sweep`: argument handling and output
//! only; the modelling is `disagg_engine::disagg` and `disagg_engine::sweep`, and the
//! JSON is the engine's own serialisation of its results.

use crate::{load_model, parse_dtype, print_problems, AssumptionArgs, PredictArgs};
use disagg_engine::disagg::explain::explain;
use disagg_engine::disagg::plan::{plan, PoolChoice};
use disagg_engine::disagg::report::PointReport;
use disagg_engine::disagg::{Axis, DeploymentPoint, Draft, PoolRole, Setup, Speculation};
use disagg_engine::frontier::Objective;
use disagg_engine::limits::{
    BITS_PER_WEIGHT, DEFAULT_SWEEP_CHIPS, LINK_BYTES_PER_S, MAX_BATCH, MAX_DRAFT_TOKENS,
    MAX_LENGTH, MAX_MICRO_BATCHES, MAX_OUTPUT_CV,
};
use disagg_engine::sweep::{
    compare_axes, distinct_whys, sweep, AxisBest, Callout, RejectCount, Slo, SloMisses, SweepPoint,
    SweepRequest, SweepResult,
};
use disagg_engine::units::{BytesPerSecond, Seconds, TokensPerSecond};
use disagg_engine::{Catalogue, DType, ModelIr, Parallelism, WeightFormat, Workload};
use serde::Serialize;

/// Pools and axis inputs shared by `predict --axis` and `sweep`.
#[derive(clap::Args, Debug)]
pub struct PoolArgs {
    #[arg(long)]
    prefill_chip: Option<String>,
    #[arg(long)]
    prefill_chips: Option<u32>,
    #[arg(long)]
    prefill_tp: Option<u32>,
    #[arg(long)]
    decode_chip: Option<String>,
    #[arg(long)]
    decode_chips: Option<u32>,
    #[arg(long)]
    decode_tp: Option<u32>,
    #[arg(long)]
    decode_ep: Option<u32>,
    #[arg(long)]
    attn_chip: Option<String>,
    #[arg(long)]
    attn_chips: Option<u32>,
    #[arg(long)]
    attn_tp: Option<u32>,
    #[arg(long)]
    expert_chip: Option<String>,
    #[arg(long)]
    expert_chips: Option<u32>,
    /// Attention/expert ping-pong depth.
    #[arg(long, default_value_t = 2)]
    micro_batches: u32,
    #[command(flatten)]
    spec: SpecArgs,
    #[command(flatten)]
    link: LinkArgs,
}

/// The link between pools.
#[derive(clap::Args, Debug)]
pub struct LinkArgs {
    /// Per-chip bandwidth of the link between pools, in gigabits per second
    /// (400 = one 400G NIC per chip); default: the catalogue's links.
    #[arg(long)]
    link_gbps: Option<f64>,
    /// Ship the KV cache only after prefill ends (default: layer by layer).
    #[arg(long)]
    no_kv_streaming: bool,
}

#[derive(clap::Args, Debug)]
pub struct SpecArgs {
    /// Draft: a catalogue model id, or `mtp` for the target's own MTP layers.
    #[arg(long, default_value = "mtp")]
    draft_model: String,
    /// Chip of a separate draft pool (default: the draft runs on the target's chips).
    #[arg(long)]
    draft_chip: Option<String>,
    #[arg(long)]
    draft_chips: Option<u32>,
    /// Per-token acceptance rate of drafted tokens.
    #[arg(long, default_value_t = 0.8)]
    acceptance: f64,
    /// Tokens drafted per verify cycle.
    #[arg(long, default_value_t = 4)]
    draft_tokens: u32,
    /// With --axis pd: the decode pool speculates (draft on the decode chips) with
    /// --draft-model, --acceptance and --draft-tokens.
    #[arg(long)]
    speculative_decode: bool,
}

#[derive(clap::Args, Debug)]
pub struct SweepArgs {
    /// Catalogue model id, or a path to a HuggingFace config.json.
    #[arg(long)]
    model: String,
    /// agg, pd, af or spec.
    #[arg(long, default_value = "pd")]
    axis: String,
    /// Chips to pair, comma-separated catalogue ids.
    #[arg(long, value_delimiter = ',', required = true)]
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
    /// Concurrent requests every point runs at (default: batches are swept). A pool
    /// that cannot hold that many at once is rejected.
    #[arg(long)]
    batch: Option<u32>,
    #[arg(long)]
    weight_dtype: Option<String>,
    #[arg(long)]
    weight_bits: Option<f64>,
    #[arg(long, default_value = "fp8")]
    kv_dtype: String,
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
    #[command(flatten)]
    assumptions: AssumptionArgs,
}

/// Everything `Setup` borrows, owned here.
struct Inputs {
    model_name: String,
    model: ModelIr,
    weights: WeightFormat,
    kv: DType,
    draft: Option<(String, ModelIr)>,
}

fn inputs(
    model: &str,
    weight_dtype: &Option<String>,
    weight_bits: Option<f64>,
    kv_dtype: &str,
    spec: &SpecArgs,
) -> Result<Inputs, String> {
    let (model_name, ir, default_dtype) = load_model(model)?;
    if let Some(bits) = weight_bits {
        if !BITS_PER_WEIGHT.contains(&bits) {
            return Err(format!(
                "--weight-bits {bits:?} must lie between {} and {}",
                BITS_PER_WEIGHT.start(),
                BITS_PER_WEIGHT.end()
            ));
        }
    }
    let dtype = match weight_dtype {
        Some(s) => parse_dtype(s, "weight-dtype")?,
        None => default_dtype,
    };
    let draft = if spec.draft_model == "mtp" {
        None
    } else {
        let (id, ir, _) = load_model(&spec.draft_model)?;
        Some((id, ir))
    };
    Ok(Inputs {
        model_name,
        model: ir,
        weights: WeightFormat {
            dtype,
            bits_override: weight_bits,
        },
        kv: parse_dtype(kv_dtype, "kv-dtype")?,
        draft,
    })
}

/// `--link-gbps`, inside the engine's physical bounds.
fn link(gbps: Option<f64>) -> Result<Option<BytesPerSecond>, String> {
    let Some(g) = gbps else {
        return Ok(None);
    };
    let rate = BytesPerSecond::from_gbit_per_s(g);
    if !LINK_BYTES_PER_S.contains(&rate.value()) {
        return Err(format!(
            "--link-gbps {g:?} must lie between {} and {} (gigabits per second)",
            LINK_BYTES_PER_S.start() * 8.0 / 1e9,
            LINK_BYTES_PER_S.end() * 8.0 / 1e9
        ));
    }
    Ok(Some(rate))
}

/// The request lengths, shared by `predict` and `sweep`.
#[derive(clap::Args, Debug)]
pub(crate) struct LengthArgs {
    /// Prompt length in tokens.
    #[arg(long)]
    isl: u32,
    /// Output length in tokens (the mean, where lengths vary).
    #[arg(long)]
    osl: u32,
    /// Leading prompt tokens served from a prefix cache (their KV is already resident);
    /// prefill computes the rest.
    #[arg(long, default_value_t = 0)]
    cached: u32,
    /// Spread of the output lengths: standard deviation over mean (0: every request
    /// generates --osl tokens). Long requests stay in the batch longer, so running
    /// sequences hold more KV and attend over more context than the mean request.
    #[arg(long, default_value_t = 0.0)]
    output_cv: f64,
}

impl LengthArgs {
    /// The workload, each bound checked against the flag that sets it (the engine's
    /// bounds, from `limits`), so that a refusal names the flag.
    pub(crate) fn workload(&self) -> Result<Workload, String> {
        for (flag, length) in [("--isl", self.isl), ("--osl", self.osl)] {
            if !(1..=MAX_LENGTH).contains(&length) {
                return Err(format!(
                    "{flag} {length} must be a whole number of tokens from 1 to {MAX_LENGTH}"
                ));
            }
        }
        if self.cached >= self.isl {
            return Err(format!(
                "--cached {} must be fewer than --isl {}: prefill computes at least one token",
                self.cached, self.isl
            ));
        }
        if !(0.0..=MAX_OUTPUT_CV).contains(&self.output_cv) {
            return Err(format!(
                "--output-cv {:?} must be a spread (standard deviation over mean) from 0 to {MAX_OUTPUT_CV}",
                self.output_cv
            ));
        }
        Ok(Workload {
            isl: self.isl,
            osl: self.osl,
            cached: self.cached,
            output_cv: self.output_cv,
        })
    }
}

fn setup<'a>(
    i: &'a Inputs,
    workload: Workload,
    spec: &SpecArgs,
    l: &LinkArgs,
    assumptions: &AssumptionArgs,
) -> Result<Setup<'a>, String> {
    if !(0.0..=1.0).contains(&spec.acceptance) {
        return Err(format!(
            "--acceptance {:?} must be a probability from 0 to 1",
            spec.acceptance
        ));
    }
    if !(1..=MAX_DRAFT_TOKENS).contains(&spec.draft_tokens) {
        return Err(format!(
            "--draft-tokens {} must lie between 1 and {MAX_DRAFT_TOKENS}",
            spec.draft_tokens
        ));
    }
    Ok(Setup {
        kv: i.kv,
        assumptions: assumptions.resolve()?,
        inter_pool_link: link(l.link_gbps)?,
        kv_streaming: !l.no_kv_streaming,
        speculation: Speculation {
            draft: match &i.draft {
                Some((id, ir)) => Draft::Model { id, ir },
                None => Draft::Mtp,
            },
            acceptance: spec.acceptance,
            draft_tokens: spec.draft_tokens,
        },
        speculative_decode: spec.speculative_decode,
        ..Setup::new(&i.model, workload, i.weights)
    })
}

fn required<T: Copy>(v: Option<T>, flag: &str, axis: &str) -> Result<T, String> {
    v.ok_or_else(|| format!("--axis {axis} needs --{flag}"))
}

fn layout(
    tp: Option<u32>,
    ep: Option<u32>,
    chips: u32,
    // The flag that set `tp`, named in the message.
    flag: &str,
) -> Result<Option<Parallelism>, String> {
    match tp {
        None if ep.is_none() => Ok(None),
        _ => {
            let tp = tp.unwrap_or(1);
            if tp == 0 || chips % tp != 0 {
                return Err(format!(
                    "--{flag} {tp} must divide the pool's {chips} chips"
                ));
            }
            Ok(Some(Parallelism {
                tp,
                pp: 1,
                dp: chips / tp,
                ep: ep.unwrap_or(1),
            }))
        }
    }
}

pub fn run_predict(args: &PredictArgs) -> Result<(), String> {
    let cat = Catalogue::builtin();
    let axis = Axis::parse(&args.axis).map_err(|e| e.to_string())?;
    let p = &args.pools;
    let i = inputs(
        &args.model,
        &args.weight_dtype,
        args.weight_bits,
        &args.kv_dtype,
        &p.spec,
    )?;
    let s = setup(
        &i,
        args.lengths.workload()?,
        &p.spec,
        &p.link,
        &args.assumptions,
    )?;
    let chip = |id: &str| cat.chip(id).map_err(|e| e.to_string());
    let a = axis.id();
    let pools: Vec<(PoolRole, PoolChoice)> = match axis {
        Axis::Aggregated => vec![(
            PoolRole::Colocated,
            PoolChoice {
                chip: chip(
                    args.chip
                        .as_deref()
                        .ok_or("--chip is required for an aggregated prediction")?,
                )?,
                chips: args.chips,
                parallelism: colocated_layout(args)?,
            },
        )],
        Axis::PrefillDecode => {
            let pn = required(p.prefill_chips, "prefill-chips", a)?;
            let dn = required(p.decode_chips, "decode-chips", a)?;
            vec![
                (
                    PoolRole::Prefill,
                    PoolChoice {
                        chip: chip(required(p.prefill_chip.as_deref(), "prefill-chip", a)?)?,
                        chips: pn,
                        parallelism: layout(p.prefill_tp, None, pn, "prefill-tp")?,
                    },
                ),
                (
                    PoolRole::Decode,
                    PoolChoice {
                        chip: chip(required(p.decode_chip.as_deref(), "decode-chip", a)?)?,
                        chips: dn,
                        parallelism: layout(p.decode_tp, p.decode_ep, dn, "decode-tp")?,
                    },
                ),
            ]
        }
        Axis::AttentionExpert => {
            let an = required(p.attn_chips, "attn-chips", a)?;
            let en = required(p.expert_chips, "expert-chips", a)?;
            vec![
                (
                    PoolRole::Attention,
                    PoolChoice {
                        chip: chip(required(p.attn_chip.as_deref(), "attn-chip", a)?)?,
                        chips: an,
                        parallelism: layout(p.attn_tp, None, an, "attn-tp")?,
                    },
                ),
                (
                    PoolRole::Experts,
                    PoolChoice {
                        chip: chip(required(p.expert_chip.as_deref(), "expert-chip", a)?)?,
                        chips: en,
                        parallelism: None,
                    },
                ),
            ]
        }
        Axis::Speculative => {
            let target_parallelism = if args.tp.is_some() || args.ep.is_some() {
                layout(args.tp, args.ep, args.chips, "tp")?
            } else {
                None
            };
            let mut pools = vec![(
                PoolRole::Target,
                PoolChoice {
                    chip: chip(
                        args.chip
                            .as_deref()
                            .ok_or("--axis spec needs --chip (the target's chip)")?,
                    )?,
                    chips: args.chips,
                    parallelism: target_parallelism,
                },
            )];
            if let Some(id) = &p.spec.draft_chip {
                pools.push((
                    PoolRole::Draft,
                    PoolChoice {
                        chip: chip(id)?,
                        chips: p.spec.draft_chips.unwrap_or(1),
                        parallelism: None,
                    },
                ));
            }
            pools
        }
    };
    let batch = match (args.batch, args.max_throughput) {
        (Some(b), false) if !(1..=MAX_BATCH).contains(&b) => {
            return Err(format!("--batch {b} must lie between 1 and {MAX_BATCH}"))
        }
        (Some(b), false) => Some(b),
        _ => None,
    };
    if axis == Axis::AttentionExpert && !(1..=MAX_MICRO_BATCHES).contains(&p.micro_batches) {
        return Err(format!(
            "--micro-batches {} must lie between 1 and {MAX_MICRO_BATCHES}",
            p.micro_batches
        ));
    }
    let (deployment, point) =
        plan(&s, axis, &pools, batch, p.micro_batches).map_err(|e| e.to_string())?;
    if args.json {
        let e = explain(&s, &deployment).map_err(|e| e.to_string())?;
        let report = PointReport::new(&i.model_name, i.weights, i.kv, &e.point, &e.chains)
            .ok_or("the evaluated deployment has no generating pool")?;
        out!("{}", to_json(&report)?);
    } else if args.explain {
        let e = explain(&s, &deployment).map_err(|e| e.to_string())?;
        print_point(&i.model_name, &e.point);
        crate::explain::print(&e);
    } else {
        print_point(&i.model_name, &point);
    }
    Ok(())
}

/// The aggregated pool's layout from `--tp`, `--pp` and `--ep`; `None` (the planner's
/// best) when none is given.
fn colocated_layout(args: &PredictArgs) -> Result<Option<Parallelism>, String> {
    if args.tp.is_none() && args.pp.is_none() && args.ep.is_none() {
        return Ok(None);
    }
    let tp = args.tp.unwrap_or(1);
    let pp = args.pp.unwrap_or(1);
    let replica = tp.checked_mul(pp).filter(|&r| r > 0);
    match replica {
        Some(r) if args.chips % r == 0 => Ok(Some(Parallelism {
            tp,
            pp,
            dp: args.chips / r,
            ep: args.ep.unwrap_or(1),
        })),
        _ => Err(format!(
            "--tp {tp} x --pp {pp} must divide --chips {}",
            args.chips
        )),
    }
}

/// A latency limit given in milliseconds, as the engine's time; it must be positive.
fn limit_ms(ms: Option<f64>, flag: &str) -> Result<Option<Seconds>, String> {
    match ms {
        Some(v) if !(v.is_finite() && v > 0.0) => Err(format!(
            "{flag} {v:?} must be a positive number of milliseconds"
        )),
        Some(v) => Ok(Some(Seconds::from_ms(v))),
        None => Ok(None),
    }
}

/// Pretty JSON of an engine result.
fn to_json(v: &impl Serialize) -> Result<String, String> {
    serde_json::to_string_pretty(v).map_err(|e| e.to_string())
}

fn print_point(model: &str, p: &DeploymentPoint) {
    let f = &p.figures;
    out!("{model}, {}: {}", p.axis, p.label);
    print_problems(p.reason.as_deref(), &p.warnings);
    out!(
        "  batch            {} ({} running; max {})",
        f.batch,
        f.running,
        p.max_batch()
    );
    out!("  TTFT             {:.1} ms", f.ttft.ms());
    match p.generating_pool() {
        Some(g) => out!(
            "  TPOT             {:.2} ms (decode step {:.2} ms)",
            f.tpot.ms(),
            g.step.ms()
        ),
        None => out!("  TPOT             {:.2} ms", f.tpot.ms()),
    }
    out!("  tok/s/user       {:.1}", f.tok_s_user);
    out!(
        "  output tok/s     {:.0} ({:.1} per chip over {} chips)",
        f.output_tok_s,
        f.output_tok_s_per_chip,
        f.chips
    );
    out!(
        "  input tok/s      {:.0} ({:.1} per chip)",
        f.input_tok_s,
        f.input_tok_s_per_chip
    );
    if let Some(g) = p.generating_pool() {
        let m = &g.memory;
        out!(
            "  memory per chip  {:.1} GB: weights {:.1}, KV {:.1}, workspace {:.1} (of {:.1}){}",
            m.total.gb(),
            m.weights.gb(),
            m.kv.gb(),
            m.workspace.gb(),
            (m.fast_capacity + m.cold_capacity).gb(),
            if p.pools.len() > 1 {
                format!(", {} pool", g.role.name())
            } else {
                String::new()
            }
        );
        let t = &g.time;
        out!(
            "  step time        compute {:.2} ms, weights {:.2} ms, KV {:.2} ms, comm {:.2} ms, overhead {:.2} ms -> bottleneck: {}",
            t.compute.ms(),
            t.weight_memory.ms(),
            t.kv_memory.ms(),
            t.communication.ms(),
            t.overhead.ms(),
            g.bottleneck
        );
    }
    if p.pools.len() > 1 {
        out!(
            "  link             {:.3} ms per request or step on the link, {:.3} ms exposed",
            p.transfer_time.ms(),
            f.transfer.ms()
        );
        out!("  limited by       {} (decode {})", f.limiter, f.bottleneck);
    }
    match (
        f.usd_per_mtok_output,
        f.usd_per_mtok_input,
        f.usd_per_mtok_blended,
    ) {
        (Some(o), Some(i), Some(b)) => {
            out!("  $/Mtok           output {o:.3}, input {i:.3}, blended {b:.3}")
        }
        _ => out!("  $/Mtok           n/a (a chip has no public price)"),
    }
    match (f.watts, f.joules_per_output_token) {
        (Some(w), Some(j)) => out!("  power            {w:.0} W at TDP, {j:.3} J per output token"),
        _ => out!("  power            n/a (a chip has no published TDP)"),
    }
    if p.pools.len() > 1 {
        for pool in &p.pools {
            out!(
                "  {:9} {}x {} {}: step {:.2} ms, utilisation {:.0}%, in {:.0} / out {:.0} tok/s per chip, memory {:.1} of {:.1} GB, {}",
                pool.role.name(),
                pool.chips,
                pool.chip_name,
                pool.parallelism,
                pool.step.ms(),
                pool.utilisation * 100.0,
                pool.input_tok_s_per_chip,
                pool.output_tok_s_per_chip,
                pool.memory.total.gb(),
                (pool.memory.fast_capacity + pool.memory.cold_capacity).gb(),
                pool.bottleneck
            );
        }
    }
}

pub fn run_sweep(args: &SweepArgs) -> Result<(), String> {
    let cat = Catalogue::builtin();
    let axis = Axis::parse(&args.axis).map_err(|e| e.to_string())?;
    let i = inputs(
        &args.model,
        &args.weight_dtype,
        args.weight_bits,
        &args.kv_dtype,
        &args.spec,
    )?;
    let s = setup(
        &i,
        args.lengths.workload()?,
        &args.spec,
        &args.link,
        &args.assumptions,
    )?;
    let chips = args
        .chips
        .iter()
        .map(|id| cat.chip(id.trim()).map_err(|e| e.to_string()))
        .collect::<Result<Vec<_>, _>>()?;
    let slo = Slo {
        ttft: limit_ms(args.ttft_ms, "--ttft-ms")?,
        tpot: limit_ms(args.tpot_ms, "--tpot-ms")?,
    };
    let request = SweepRequest {
        setup: s,
        axis,
        chips,
        max_chips: args.max_chips,
        target_tok_s_user: args.target_tok_s_user.map(TokensPerSecond::new),
        slo,
        batch: args.batch,
    };
    if let Some(b) = args.batch.filter(|b| !(1..=MAX_BATCH).contains(b)) {
        return Err(format!("--batch {b} must lie between 1 and {MAX_BATCH}"));
    }
    let result = sweep(&request).map_err(|e| e.to_string())?;
    let axes = if args.compare_axes {
        Some(compare_axes(&request, result.target_tok_s_user).map_err(|e| e.to_string())?)
    } else {
        None
    };
    if args.json {
        let report = SweepReport {
            axes: axes.as_deref(),
            ..SweepReport::new(&result)
        };
        out!("{}", to_json(&report)?);
    } else if args.csv {
        print_csv(&result);
    } else {
        print_sweep(&i.model_name, &result);
        if let Some(axes) = &axes {
            print_axes(result.target_tok_s_user, axes);
        }
    }
    Ok(())
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
        out!(
            "  SLO (TTFT {}, TPOT {}): {} of {} feasible points meet it; {} miss TTFT, {} miss TPOT; the frontiers hold those that meet it",
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
                f.usd_per_mtok_output
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
