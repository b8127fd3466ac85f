//! `disagg predict` (every axis) and the arguments it shares with `disagg sweep`
//! (`sweep.rs`): argument handling and output only; the modelling is
//! `disagg_engine::disagg`, and the JSON is the engine's own serialisation of its results.

use crate::axis_flags;
use crate::bundle::{self, Flags};
use crate::{print_problems, PredictArgs};
use disagg_engine::bundle::Bundle;
use disagg_engine::disagg::plan::{plan, PoolChoice};
use disagg_engine::disagg::report::PointReport;
use disagg_engine::disagg::ttft::TtftParts;
use disagg_engine::disagg::{Axis, DeploymentPoint, Figures, PoolRole};
use disagg_engine::limits::REQUEST_RATE;
use disagg_engine::limits::{MAX_BATCH, MAX_MICRO_BATCHES};
use disagg_engine::units::Seconds;
use disagg_engine::validation::{self, ValidationReport};
use disagg_engine::{Catalogue, Parallelism};
use serde::Serialize;

/// Pools and axis inputs shared by `predict --axis` and `sweep`.
#[derive(clap::Args, Debug)]
pub struct PoolArgs {
    /// With --axis pd: the prefill pool's catalogue chip id (required).
    #[arg(long)]
    prefill_chip: Option<String>,
    /// With --axis pd: chips in the prefill pool (required).
    #[arg(long)]
    prefill_chips: Option<u32>,
    /// Prefill pool's tensor parallelism (1 with --prefill-dp: attention data
    /// parallelism, one replica per chip).
    #[arg(long)]
    prefill_tp: Option<u32>,
    /// Prefill pool's pipeline stages.
    #[arg(long)]
    prefill_pp: Option<u32>,
    /// Prefill pool's replicas (attention data parallelism); default: the chips left
    /// after --prefill-tp x --prefill-pp.
    #[arg(long)]
    prefill_dp: Option<u32>,
    /// Prefill pool's expert-parallel width (beyond --prefill-tp it spans replicas,
    /// whose tokens meet their experts by all-to-all).
    #[arg(long)]
    prefill_ep: Option<u32>,
    /// With --axis pd: the decode pool's catalogue chip id (required).
    #[arg(long)]
    decode_chip: Option<String>,
    /// With --axis pd: chips in the decode pool (required).
    #[arg(long)]
    decode_chips: Option<u32>,
    /// Decode pool's tensor parallelism.
    #[arg(long)]
    decode_tp: Option<u32>,
    /// Decode pool's pipeline stages.
    #[arg(long)]
    decode_pp: Option<u32>,
    /// Decode pool's replicas (attention data parallelism); default: the chips left
    /// after --decode-tp x --decode-pp.
    #[arg(long)]
    decode_dp: Option<u32>,
    /// Decode pool's expert-parallel width.
    #[arg(long)]
    decode_ep: Option<u32>,
    /// With --axis af: the attention pool's catalogue chip id (required).
    #[arg(long)]
    attn_chip: Option<String>,
    /// With --axis af: chips in the attention pool (required).
    #[arg(long)]
    attn_chips: Option<u32>,
    /// Attention pool's tensor parallelism, dividing --attn-chips into replicas;
    /// default: the planner's layout.
    #[arg(long)]
    attn_tp: Option<u32>,
    /// With --axis af: the expert pool's catalogue chip id (required).
    #[arg(long)]
    expert_chip: Option<String>,
    /// With --axis af: chips in the expert pool (required); its experts spread over
    /// all of them.
    #[arg(long)]
    expert_chips: Option<u32>,
    /// Attention/expert ping-pong depth.
    #[arg(long, default_value_t = 2)]
    micro_batches: u32,
    #[command(flatten)]
    pub(crate) spec: SpecArgs,
    #[command(flatten)]
    pub(crate) link: LinkArgs,
}

/// The link between pools.
#[derive(clap::Args, Debug)]
pub struct LinkArgs {
    /// Per-chip bandwidth of the link between pools, in gigabits per second
    /// (400 = one 400G NIC per chip); default: the catalogue's links.
    #[arg(long)]
    pub(crate) link_gbps: Option<f64>,
    /// A catalogued link between pools (`disagg list links`: tb5, tb5-rdma, 10gbe, ...):
    /// its bandwidth per direction and latency; --link-gbps still sets the bandwidth.
    #[arg(long, value_name = "ID")]
    pub(crate) link: Option<String>,
    /// Ship the KV cache only after prefill ends (default: layer by layer).
    #[arg(long)]
    pub(crate) no_kv_streaming: bool,
}

#[derive(clap::Args, Debug)]
pub struct SpecArgs {
    /// Draft: a catalogue model id, `mtp` for the target's own MTP layers, or `eagle`
    /// for an EAGLE draft head on the target's chips.
    #[arg(long, default_value = "mtp")]
    pub(crate) draft_model: String,
    /// With --draft-model eagle: the head's decoder layers (default 1).
    #[arg(long)]
    pub(crate) eagle_layers: Option<u32>,
    /// Chip of a separate draft pool (default: the draft runs on the target's chips).
    #[arg(long)]
    draft_chip: Option<String>,
    /// Chips of the separate draft pool (default 1); it needs --draft-chip.
    #[arg(long, requires = "draft_chip")]
    draft_chips: Option<u32>,
    /// Per-token acceptance rate of drafted tokens.
    #[arg(long, default_value_t = 0.8)]
    pub(crate) acceptance: f64,
    /// Tokens drafted per verify cycle.
    #[arg(long, default_value_t = 4)]
    pub(crate) draft_tokens: u32,
    /// With --axis pd: the decode pool speculates (draft on the decode chips) with
    /// --draft-model, --acceptance and --draft-tokens.
    #[arg(long)]
    pub(crate) speculative_decode: bool,
}

/// The weights' and KV cache's formats, shared by `predict`, `sweep` and `recommend`.
#[derive(clap::Args, Debug)]
pub(crate) struct PrecisionArgs {
    /// Weight dtype of attention and the other non-expert weights, and of every
    /// component not set apart: bf16 fp16 fp8 int8 fp4 int4 mxfp4 nvfp4 fp8-block
    /// (default: the model's usual one).
    #[arg(long)]
    pub(crate) weight_dtype: Option<String>,
    /// Bits per weight, overriding the dtype's width (GGUF Q4_0 is about 4.5).
    #[arg(long)]
    pub(crate) weight_bits: Option<f64>,
    /// The experts' weight dtype (routed and shared), e.g. mxfp4 or nvfp4 beside a
    /// bf16 or fp8 --weight-dtype (default: --weight-dtype).
    #[arg(long)]
    pub(crate) expert_dtype: Option<String>,
    /// The attention output projections' weight dtype, e.g. nvfp4 beside a bf16
    /// --weight-dtype as NVIDIA's v2 DeepSeek-R1 FP4 checkpoints hold them (default:
    /// --weight-dtype).
    #[arg(long)]
    pub(crate) attn_out_dtype: Option<String>,
    /// The LM head's and embedding's weight dtype (default: --weight-dtype).
    #[arg(long)]
    pub(crate) lm_head_dtype: Option<String>,
    /// KV-cache dtype.
    #[arg(long, default_value = "fp8")]
    pub(crate) kv_dtype: String,
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

/// A prefill or decode pool's layout from its `--{role}-tp`, `-pp`, `-dp` and `-ep`
/// flags (in that order in `given`); `None` (the planner's best) when none is given.
/// Replicas default to the chips the other two leave; every refusal names its flag.
pub(crate) fn pool_layout(
    role: &str,
    given: [Option<u32>; 4],
    chips: u32,
) -> Result<Option<Parallelism>, String> {
    if given.iter().all(Option::is_none) {
        return Ok(None);
    }
    let names = ["tp", "pp", "dp", "ep"].map(|n| format!("--{role}-{n}"));
    for (name, v) in names.iter().zip(given) {
        if v == Some(0) {
            return Err(format!("{name} 0 must be at least 1"));
        }
    }
    let [tp, pp, dp, ep] = given;
    let (tp, pp) = (tp.unwrap_or(1), pp.unwrap_or(1));
    let replica = tp
        .checked_mul(pp)
        .filter(|&r| chips % r == 0)
        .ok_or_else(|| {
            format!(
                "{} {tp} x {} {pp} must divide the pool's {chips} chips",
                names[0], names[1]
            )
        })?;
    let dp = match dp {
        Some(d) if d.checked_mul(replica) != Some(chips) => {
            return Err(format!(
                "{} {d} x {} {tp} x {} {pp} must equal the pool's {chips} chips",
                names[2], names[0], names[1]
            ))
        }
        Some(d) => d,
        None => chips / replica,
    };
    let ep = ep.unwrap_or(1);
    let tp_dp = tp.saturating_mul(dp);
    if ep > tp_dp || tp_dp % ep != 0 {
        return Err(format!(
            "{} {ep} must divide {} {tp} x {} {dp} = {tp_dp} (experts spread over the chips of one pipeline stage)",
            names[3], names[0], names[2]
        ));
    }
    Ok(Some(Parallelism { tp, pp, dp, ep }))
}

/// `predict`: the bundle's selected deployment (`--bundle`), or the one the planner
/// picks for the flags, evaluated through the bundle either way.
pub fn run_predict(args: &PredictArgs) -> Result<(), String> {
    let b = match &args.bundle {
        Some(path) => bundle::read(path)?,
        None => predict_bundle(args)?,
    };
    bundle::save_if(&args.save_bundle, &b)?;
    show_prediction(&b, args.json, args.explain, args.api.as_deref())
}

/// What `predict` prints for a bundle's selected deployment: its figures with their
/// error bands, as JSON (`json`) or opened into formulas and operator tables
/// (`explain`), and the comparison with an API (`api`) where one is named.
pub(crate) fn show_prediction(
    b: &Bundle,
    json: bool,
    explain_it: bool,
    api: Option<&str>,
) -> Result<(), String> {
    let cat = Catalogue::builtin();
    let inputs = b.inputs(cat).map_err(|e| e.to_string())?;
    let setup = inputs.setup();
    let name = inputs.model_name();
    // How far off: the model's measured error on published hold-out points, run once.
    let validated = validation::band_report(cat).map_err(|e| e.to_string())?;
    if json || explain_it {
        // An open loop opens its own chains: how the concurrency was found and the queue.
        let mut e = disagg_engine::bundle::explain_bundle(cat, b).map_err(|e| e.to_string())?;
        let against = crate::cost::against_api(&inputs, &e.point, api)?;
        if let Some(a) = &against {
            e.chains
                .extend(a.chains(setup.workload.isl as f64, setup.workload.osl as f64));
        }
        if json {
            let report = PointReport::new(name, setup.precision(), b.kv_dtype, &e.point, &e.chains)
                .ok_or("the evaluated deployment has no generating pool")?
                .with_error_bands(validation::headline_bands(&validated, cat, &e.point))
                .with_topology(&e.topology);
            out!("{}", to_json(&report)?);
        } else {
            print_point(name, &e.point);
            crate::cost::print_against(against.as_ref());
            print_bands(&validated, &e.point);
            crate::explain::print(&e);
        }
    } else {
        let point = disagg_engine::bundle::evaluate_bundle(cat, b).map_err(|e| e.to_string())?;
        // An --api the table does not hold is refused before anything is printed.
        let against = crate::cost::against_api(&inputs, &point, api)?;
        print_point(name, &point);
        crate::cost::print_against(against.as_ref());
        print_bands(&validated, &point);
    }
    Ok(())
}

/// One line per metric class: how far off the point's figures of that class may be.
fn print_bands(validated: &ValidationReport, p: &DeploymentPoint) {
    for (class, band) in validation::class_bands(validated, Catalogue::builtin(), p) {
        let name = format!("error, {}", class.name());
        out!("  {name:30} {}", validation::band_line(band.as_ref()));
    }
}

/// The bundle `predict`'s flags describe: the pools' chips, and as its deployment the
/// one the planner picks (open layouts and batch filled in).
pub(crate) fn predict_bundle(args: &PredictArgs) -> Result<Bundle, String> {
    let cat = Catalogue::builtin();
    let axis = Axis::parse(&args.axis).map_err(|e| e.to_string())?;
    if let Some(why) =
        axis_flags::foreign_flag(axis, args.pools.spec.speculative_decode, &args.given)
    {
        return Err(why);
    }
    let p = &args.pools;
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
                        parallelism: pool_layout(
                            "prefill",
                            [p.prefill_tp, p.prefill_pp, p.prefill_dp, p.prefill_ep],
                            pn,
                        )?,
                    },
                ),
                (
                    PoolRole::Decode,
                    PoolChoice {
                        chip: chip(required(p.decode_chip.as_deref(), "decode-chip", a)?)?,
                        chips: dn,
                        parallelism: pool_layout(
                            "decode",
                            [p.decode_tp, p.decode_pp, p.decode_dp, p.decode_ep],
                            dn,
                        )?,
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
    if let Some(r) = args.rate {
        rate_flag(r)?;
    }
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
    let chips = bundle::chips(pools.iter().map(|(_, c)| c.chip.id.as_str()))?;
    let flags = Flags {
        model: args.model.as_deref(),
        lengths: &args.lengths,
        precision: &args.precision,
        spec: &p.spec,
        link: &p.link,
        assumptions: &args.assumptions,
    };
    let mut b = bundle::from_flags(&flags, chips, axis)?;
    // An open loop plans its layout as for the largest batch; the rate picks the batch.
    b.workload.rate = args.rate;
    let spec = {
        let inputs = b.inputs(cat).map_err(|e| e.to_string())?;
        let (deployment, _) = plan(&inputs.setup(), axis, &pools, batch, p.micro_batches)
            .map_err(|e| e.to_string())?;
        deployment.spec()
    };
    b.deployment = Some(spec);
    Ok(b)
}

/// `--rate r` checked by the engine's one request-rate bound, refused under the flag's
/// name (`predict` and `recommend`).
pub(crate) fn rate_flag(r: f64) -> Result<(), String> {
    disagg_engine::workload::check_request_rate(r).map_err(|_| {
        format!(
            "--rate {} must lie between {} and {} requests per second",
            disagg_engine::error::echoed(r),
            REQUEST_RATE.start(),
            REQUEST_RATE.end()
        )
    })
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
pub(crate) fn limit_ms(ms: Option<f64>, flag: &str) -> Result<Option<Seconds>, String> {
    match ms {
        Some(v) if !(v.is_finite() && v > 0.0) => Err(format!(
            "{flag} {v:?} must be a positive number of milliseconds"
        )),
        Some(v) => Ok(Some(Seconds::from_ms(v))),
        None => Ok(None),
    }
}

/// `--slo-at`: whether the latency limits bound the mean (the default) or the p90.
pub(crate) fn slo_at(value: Option<&str>) -> Result<disagg_engine::sweep::SloAt, String> {
    value.map_or(Ok(Default::default()), |v| {
        v.parse().map_err(|e| format!("--slo-at: {e}"))
    })
}

/// Pretty JSON of an engine result.
pub(crate) fn to_json(v: &impl Serialize) -> Result<String, String> {
    serde_json::to_string_pretty(v).map_err(|e| e.to_string())
}

/// A point's first lines, whatever its shape: its name, its problems, the batch and
/// TTFT with its spread and parts.
pub(crate) fn print_head(model: &str, p: &DeploymentPoint) {
    let f = &p.figures;
    out!("{model}, {}: {}", p.axis, p.label);
    print_problems(p.reason.as_deref(), &p.warnings);
    out!(
        "  batch            {} ({} running; max {})",
        f.batch,
        f.running,
        p.max_batch()
    );
    let t = &p.ttft;
    out!(
        "  TTFT             {:.1} ms (p50 {:.1}, p90 {:.1})",
        f.ttft.ms(),
        t.quantile(0.5).ms(),
        t.quantile(0.9).ms()
    );
    out!("    of which       {}", ttft_parts(&t.parts));
}

fn print_point(model: &str, p: &DeploymentPoint) {
    let f = &p.figures;
    print_head(model, p);
    let (p50, p90) = (p.tpot.quantile(0.5).ms(), p.tpot.quantile(0.9).ms());
    match p.generating_pool() {
        Some(g) => out!(
            "  TPOT             {:.2} ms (p50 {p50:.2}, p90 {p90:.2}; decode step {:.2} ms)",
            f.tpot.ms(),
            g.step.ms()
        ),
        None => out!(
            "  TPOT             {:.2} ms (p50 {p50:.2}, p90 {p90:.2})",
            f.tpot.ms()
        ),
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
    print_costs(f);
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

/// TTFT's non-zero parts in milliseconds, in the order a request lives them.
fn ttft_parts(p: &TtftParts) -> String {
    p.named()
        .iter()
        .filter(|(_, t)| t.value() > 0.0)
        .map(|(name, t)| format!("{name} {:.1}", t.ms()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The point's dollars and power: rental and owned $/Mtok, watts and joules per token.
pub(crate) fn print_costs(f: &Figures) {
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
    match (
        f.own_usd_per_hour,
        f.own_usd_per_mtok_output,
        f.own_usd_per_mtok_input,
    ) {
        (Some(h), Some(o), Some(i)) => out!(
            "  owned            {:.3} $/h in use; $/Mtok output {o:.3}, input {i:.3}",
            h.value()
        ),
        _ => out!("  owned            n/a (no purchase price: give --capex-usd-per-chip)"),
    }
    match (f.watts, f.joules_per_output_token, f.joules_per_token) {
        (Some(w), Some(j), Some(t)) => out!(
            "  power            {w:.0} W at its utilisation, {j:.3} J per output token, {t:.3} J per token"
        ),
        _ => out!("  power            n/a (a chip has no published TDP)"),
    }
}
