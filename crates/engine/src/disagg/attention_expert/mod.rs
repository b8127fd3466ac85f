//! Attention/expert disaggregation of an MoE model (MegaScale-Infer, Step-3 AFD): an
//! attention pool holds attention weights, dense layers, the LM head and the KV cache;
//! an expert pool holds the experts, one shard per chip (EP = expert chips). Every MoE
//! layer ships hidden states to the experts (dispatch) and back (combine) over the
//! inter-pool link (`audit/MODEL.md` section 6.4).
//!
//! With `m` micro-batches in ping-pong, one MoE layer of a decode step takes
//! `max(S, m * max(t_attn, t_ffn, t_comm))` where `S = t_attn + t_ffn + 2 t_comm` is one
//! micro-batch's trip (all per micro-batch of `batch / m` sequences): with one
//! micro-batch nothing overlaps, with enough of them the busiest stage sets the pace.
//! Dense layers and the LM head run on the attention pool for the whole batch. Prompts
//! are prefilled through the same pipeline (one micro-batch), and steal decode time
//! through the same continuous-batching [`Round`] as the aggregated pool.

mod explain;

pub(crate) use explain::explain;

use super::layouts::expert_layout;
use super::round::{GroupPrefill, Round, RoundPrefill};
use super::ttft::admission_wait;
use super::StepCosts;
use super::{
    inter_pool_link, link_time, pool_label, Core, DeploymentPoint, Figures, Limiter, PoolConfig,
    PoolReport, PoolRole, Reject, Setup,
};
use crate::cost::{self, PoolLoad};
use crate::error::{EngineError, Result};
use crate::kernel::{step_cost_of, Placement, Side, StepShape};
use crate::kernel::{Bottleneck, StepCost, TimeBreakdown};
use crate::limits::MAX_MICRO_BATCHES;
use crate::memory::{MemoryPlan, MemoryUsage, Part};
use crate::model::{Ffn, ModelIr};
use crate::units::{Bytes, Seconds, TokensPerSecond};
use crate::Chip;

pub(crate) fn moe_layers(model: &ModelIr) -> f64 {
    model
        .groups
        .iter()
        .filter(|g| g.ffn.is_moe())
        .map(|g| g.count as f64)
        .sum()
}

/// The attention pool at a batch, per micro-batch.
#[derive(Clone, Copy, Debug)]
pub struct AttentionSide<'a> {
    pub placement: Placement<'a>,
    pub usage: MemoryUsage,
    pub max_seqs: f64,
    pub fit: Option<Reject>,
    /// One MoE layer's attention for one micro-batch.
    pub per_layer: Seconds,
    /// Dense layers and LM head for the whole batch.
    pub dense: Seconds,
    pub time: TimeBreakdown,
    pub seqs_per_replica: f64,
}

/// The expert pool for one micro-batch.
#[derive(Clone, Copy, Debug)]
pub struct ExpertSide<'a> {
    pub placement: Placement<'a>,
    pub usage: MemoryUsage,
    pub fit: Option<Reject>,
    pub per_layer: Seconds,
    pub time: TimeBreakdown,
    pub max_seqs: u64,
}

/// Checks the model is MoE; the error names the model's FFN.
pub fn require_moe(model: &ModelIr) -> Result<()> {
    if model.is_moe() {
        Ok(())
    } else {
        Err(EngineError::InvalidInput(format!(
            "attention/expert disaggregation needs a mixture-of-experts model; this {} model has dense FFN layers only",
            model.architecture
        )))
    }
}

pub fn attention_side<'a>(
    setup: &Setup<'a>,
    pool: PoolConfig<'a>,
    batch: u32,
    micro_batches: u32,
    shape_of: impl Fn(f64) -> StepShape,
) -> std::result::Result<AttentionSide<'a>, Reject> {
    let m = setup.model;
    let par = pool.parallelism;
    if par.pp != 1 || par.ep != 1 || par.validate(m, par.chips()).is_err() {
        return Err(Reject::InvalidLayout);
    }
    let seqs = par.seqs_per_replica(batch);
    let plan = MemoryPlan::for_part(
        m,
        Part::AttentionAndDense,
        pool.chip,
        par,
        setup.precision(),
        setup.kv,
        setup.workload.max_context(),
        &setup.assumptions.on_chip(pool.chip),
    );
    let max_seqs = plan.max_seqs() as f64;
    let use_ = plan.usage(seqs.ceil());
    let fit = if max_seqs < 1.0 {
        Some(Reject::WeightsDoNotFit)
    } else if !use_.fits || seqs.ceil() > max_seqs {
        Some(Reject::BatchDoesNotFit)
    } else {
        None
    };
    let p = super::placement(setup, setup.model, pool, use_.cold_fraction());
    let attn = moe_attention_step(&p, seqs, micro_batches, &shape_of);
    let dense = step_cost_of(&p, shape_of(seqs), Side::DenseAndHead);
    let mut time = TimeBreakdown::of(&attn);
    let dense_time = TimeBreakdown::of(&dense);
    time.compute += dense_time.compute;
    time.weight_memory += dense_time.weight_memory;
    time.kv_memory += dense_time.kv_memory;
    time.communication += dense_time.communication;
    Ok(AttentionSide {
        placement: p,
        usage: use_,
        max_seqs,
        fit,
        per_layer: attn.without_host_overhead() / moe_layers(m).max(1.0),
        dense: dense.without_host_overhead(),
        time,
        seqs_per_replica: seqs,
    })
}

pub fn expert_side<'a>(
    setup: &Setup<'a>,
    pool: PoolConfig<'a>,
    batch: u32,
    micro_batches: u32,
    shape_of: impl Fn(f64) -> StepShape,
) -> std::result::Result<ExpertSide<'a>, Reject> {
    let m = setup.model;
    let n = pool.chips();
    let Some(experts) = m.routed_experts() else {
        return Err(Reject::InvalidLayout);
    };
    if experts % n != 0 {
        return Err(Reject::ExpertsDoNotDivide);
    }
    let pool = PoolConfig {
        parallelism: expert_layout(n),
        ..pool
    };
    // The expert pool holds no KV cache: its plan sizes weights and workspace only.
    let use_ = MemoryPlan::for_part(
        m,
        Part::Experts,
        pool.chip,
        pool.parallelism,
        setup.precision(),
        setup.kv,
        0.0,
        &setup.assumptions.on_chip(pool.chip),
    )
    .usage(0.0);
    let fit = (!use_.fits).then_some(Reject::WeightsDoNotFit);
    let p = super::placement(setup, setup.model, pool, use_.cold_fraction());
    let cost = experts_step(&p, batch, micro_batches, shape_of);
    Ok(ExpertSide {
        placement: p,
        usage: use_,
        fit,
        per_layer: cost.without_host_overhead() / moe_layers(m).max(1.0),
        time: TimeBreakdown::of(&cost),
        max_seqs: 0,
    })
}

/// Bytes of one direction of one MoE layer's hidden-state exchange for `tokens`
/// tokens: each token goes once to every distinct expert chip among its top-k picks.
pub fn exchange_bytes(setup: &Setup, experts: PoolConfig, tokens: f64) -> Bytes {
    let m = setup.model;
    let k = m
        .groups
        .iter()
        .find_map(|g| match g.ffn {
            Ffn::Moe { top_k, .. } => Some(top_k as f64),
            Ffn::Dense { .. } | Ffn::Linear | Ffn::Skipped => None,
        })
        .unwrap_or(1.0);
    let n = experts.chips() as f64;
    let chips_per_token = n * (1.0 - (1.0 - 1.0 / n).powf(k));
    Bytes(tokens * chips_per_token * m.hidden as f64 * setup.assumptions.activation_bytes)
}

/// Time of one direction of one MoE layer's exchange for `tokens` tokens
/// ([`exchange_bytes`] over the link between the pools).
pub fn exchange_time(
    setup: &Setup,
    attention: PoolConfig,
    experts: PoolConfig,
    tokens: f64,
) -> Seconds {
    let link = inter_pool_link(
        setup,
        attention.chip,
        attention.chips(),
        experts.chip,
        experts.chips(),
    );
    link_time(
        setup,
        link,
        exchange_bytes(setup, experts, tokens),
        attention.chips(),
        experts.chips(),
    )
}

/// One pass of the model through the two pools: `(time, limiter)`.
fn pass(
    layers: f64,
    micro_batches: u32,
    t_attn: Seconds,
    t_ffn: Seconds,
    t_comm: Seconds,
    dense: Seconds,
) -> (Seconds, Limiter) {
    let m = micro_batches.max(1) as f64;
    let trip = t_attn + t_ffn + t_comm * 2.0;
    let (stage, limiter) = [
        (t_attn, Limiter::AttentionPool),
        (t_ffn, Limiter::ExpertPool),
        (t_comm, Limiter::InterPoolLink),
    ]
    .into_iter()
    .fold((Seconds(-1.0), Limiter::AttentionPool), |best, (t, l)| {
        if t > best.0 {
            (t, l)
        } else {
            best
        }
    });
    ((trip.max(stage * m)) * layers + dense, limiter)
}

/// Sides of one deployment at one batch.
#[derive(Clone, Copy, Debug)]
pub struct Sides<'a> {
    pub attention: AttentionSide<'a>,
    pub experts: ExpertSide<'a>,
    pub prefill_attention: AttentionSide<'a>,
    pub prefill_experts: ExpertSide<'a>,
    pub prompts_per_prefill: f64,
}

/// Prompts one prefill pass takes: the chunk budget's worth, at least one, at most the
/// replica's sequences.
pub fn prefill_prompts(setup: &Setup, chip: &Chip, seqs_per_replica: f64) -> f64 {
    setup.workload.prompts_per_chunk(
        setup.assumptions.on_chip(chip).prefill_chunk_tokens,
        seqs_per_replica,
    )
}

pub fn sides<'a>(
    setup: &Setup<'a>,
    attention: PoolConfig<'a>,
    experts: PoolConfig<'a>,
    micro_batches: u32,
    batch: u32,
) -> std::result::Result<Sides<'a>, Reject> {
    let w = setup.workload;
    let ctx = w.mean_decode_context();
    let decode = |s: f64| StepShape::decode(s, ctx);
    let a = attention_side(setup, attention, batch, micro_batches, decode)?;
    let e = expert_side(setup, experts, batch, micro_batches, decode)?;
    let prompts = prefill_prompts(setup, attention.chip, a.seqs_per_replica);
    let prefill = |s: f64| w.prefill_shape(s);
    let pa = attention_side(setup, attention, prompts.ceil() as u32, 1, prefill)?;
    let pe = expert_side(setup, experts, prompts.ceil() as u32, 1, prefill)?;
    Ok(Sides {
        attention: a,
        experts: e,
        prefill_attention: pa,
        prefill_experts: pe,
        prompts_per_prefill: prompts,
    })
}

/// The step times of a deployment.
struct Timings {
    /// The attention pool's round: decode steps (fixed overhead included) and the
    /// prefill passes of the new prompts.
    round: Round,
    /// One direction of one MoE layer's exchange for one decode micro-batch.
    exchange: Seconds,
    limiter: Limiter,
}

fn timings(
    setup: &Setup,
    attention: PoolConfig,
    experts: PoolConfig,
    micro_batches: u32,
    batch: u32,
    s: &Sides,
) -> Timings {
    let layers = moe_layers(setup.model);
    let mb = micro_batches.max(1);
    // The attention pool's own assumptions, as its placement resolved them: a pass and
    // the host work of its engine step, in series or overlapped (MODEL.md 3.5).
    let a = &s.attention.placement.assumptions;
    let step = |pass: Seconds, seqs: f64| a.step_time(pass, a.host_overhead(seqs));
    let t_comm = exchange_time(setup, attention, experts, batch as f64 / mb as f64);
    let (decode, limiter) = pass(
        layers,
        mb,
        s.attention.per_layer,
        s.experts.per_layer,
        t_comm,
        s.attention.dense,
    );
    // Only computed tokens cross to the experts; the cached prefix never enters the FFN.
    let prompt_tokens = s.prompts_per_prefill * setup.workload.computed_prompt();
    let (prefill, _) = pass(
        layers,
        1,
        s.prefill_attention.per_layer,
        s.prefill_experts.per_layer,
        exchange_time(setup, attention, experts, prompt_tokens),
        s.prefill_attention.dense,
    );
    let seqs = s.attention.seqs_per_replica;
    let par = attention.parallelism;
    let group = GroupPrefill::of_round(
        seqs / s.prompts_per_prefill,
        setup.workload.osl as f64,
        par.replicas_per_expert_group(),
        setup.assumptions.aligned_group_prefill,
    );
    let prefill_pass = step(prefill, s.prompts_per_prefill);
    let iteration = step(decode, seqs);
    Timings {
        round: Round {
            iteration,
            tokens_per_iteration: 1.0,
            seqs,
            osl: setup.workload.osl as f64,
            prefill: Some(RoundPrefill::of(
                prefill_pass,
                s.prompts_per_prefill,
                seqs,
                par,
                &group,
            )),
            scheduling: setup.assumptions.scheduling,
            first_wave: setup.workload.first_wave(batch),
            admission: admission_wait(
                s.attention.placement.assumptions.scheduler_recv_interval,
                iteration,
                seqs,
            ),
        },
        exchange: t_comm,
        limiter,
    }
}

pub fn combine(
    setup: &Setup,
    attention: PoolConfig,
    experts: PoolConfig,
    micro_batches: u32,
    batch: u32,
    s: &Sides,
) -> Figures {
    let t = timings(setup, attention, experts, micro_batches, batch, s);
    figures(setup, attention, experts, micro_batches, batch, s, &t)
}

fn figures(
    setup: &Setup,
    attention: PoolConfig,
    experts: PoolConfig,
    micro_batches: u32,
    batch: u32,
    s: &Sides,
    t: &Timings,
) -> Figures {
    let layers = moe_layers(setup.model);
    // Each pool's busy share of the round, as its pool report states it.
    let busy = |x: Seconds| x.0 * micro_batches as f64 / t.round.iteration.0;
    let (round, limiter) = (&t.round, t.limiter);
    let bottleneck = match limiter {
        Limiter::InterPoolLink => Bottleneck::Communication,
        Limiter::ExpertPool => s.experts.time.bottleneck(),
        _ => s.attention.time.bottleneck(),
    };
    let (ttft_p90, tpot_p90) = round.p90s();
    Figures::new(
        Core {
            batch,
            running: batch,
            ttft: round.ttft(),
            tpot: round.tpot(),
            ttft_p90,
            tpot_p90,
            output_tok_s: round.output_tok_s(batch),
            input_tok_s: round.input_tok_s(batch, setup.workload.isl),
            transfer: t.exchange * 2.0 * moe_layers(setup.model),
            bottleneck,
            limiter,
            prefill_share: round.prefill_share(),
        },
        &[
            PoolLoad {
                chip: attention.chip,
                chips: attention.chips(),
                utilisation: cost::utilisation(
                    busy(s.attention.per_layer * layers + s.attention.dense),
                    &s.attention.time,
                ),
            },
            PoolLoad {
                chip: experts.chip,
                chips: experts.chips(),
                utilisation: cost::utilisation(busy(s.experts.per_layer * layers), &s.experts.time),
            },
        ],
        &setup.assumptions.cost,
    )
}

/// The attention pool's MoE-layer attention for one of `micro_batches` micro-batches
/// of a replica's `seqs` sequences.
fn moe_attention_step(
    p: &Placement<'_>,
    seqs: f64,
    micro_batches: u32,
    shape_of: impl Fn(f64) -> StepShape,
) -> StepCost {
    let mb = micro_batches.max(1) as f64;
    step_cost_of(p, shape_of(seqs / mb), Side::MoeAttention)
}

/// The expert pool's step for one of `micro_batches` micro-batches of `batch`
/// sequences. Each expert chip stands for one replica's share of the micro-batch, so
/// that the kernel sees the whole micro-batch meet in the expert group.
fn experts_step(
    p: &Placement<'_>,
    batch: u32,
    micro_batches: u32,
    shape_of: impl Fn(f64) -> StepShape,
) -> StepCost {
    let chips = p.parallelism.chips().max(1) as f64;
    let per_chip = batch as f64 / micro_batches.max(1) as f64 / chips;
    step_cost_of(p, shape_of(per_chip), Side::MoeExperts)
}

pub fn evaluate(
    setup: &Setup,
    attention: PoolConfig,
    experts: PoolConfig,
    micro_batches: u32,
    batch: u32,
) -> Result<DeploymentPoint> {
    require_moe(setup.model)?;
    if !(1..=MAX_MICRO_BATCHES).contains(&micro_batches) {
        return Err(EngineError::InvalidInput(format!(
            "micro-batches {micro_batches} must lie between 1 and {MAX_MICRO_BATCHES}"
        )));
    }
    let experts = PoolConfig {
        parallelism: expert_layout(experts.chips()),
        ..experts
    };
    let s = sides(setup, attention, experts, micro_batches, batch).map_err(|r| match r {
        Reject::ExpertsDoNotDivide => EngineError::InvalidParallelism(format!(
            "expert pool: {} routed experts do not divide over {} chips",
            setup.model.routed_experts().unwrap_or(0),
            experts.chips()
        )),
        _ => super::layout_error(setup, setup.model, PoolRole::Attention, attention),
    })?;
    let t = timings(setup, attention, experts, micro_batches, batch, &s);
    let figures = figures(setup, attention, experts, micro_batches, batch, &s, &t);
    let step = t.round.iteration;
    let mut reasons = Vec::new();
    match s.attention.fit {
        Some(Reject::WeightsDoNotFit) => reasons.push(format!(
            "attention pool does not fit: attention weights and one sequence need {:.1} GB per chip of {:.1} GB",
            (s.attention.usage.weights.0 + s.attention.usage.workspace.0) / 1e9,
            attention.chip.fast.capacity.gb()
        )),
        Some(_) => reasons.push(format!(
            "attention pool does not fit: {:.0} sequences per replica need {:.1} GB of KV per chip; at most {:.0} fit",
            s.attention.seqs_per_replica.ceil(),
            s.attention.usage.kv.gb(),
            s.attention.max_seqs
        )),
        None => {}
    }
    if s.experts.fit.is_some() {
        reasons.push(format!(
            "expert pool does not fit: its expert shard needs {:.1} GB per chip of {:.1} GB; use more expert chips",
            (s.experts.usage.weights.0 + s.experts.usage.workspace.0) / 1e9,
            experts.chip.memory_capacity().gb()
        ));
    }
    let rate_share = |t: Seconds| (t.0 * micro_batches as f64 / step.0).min(1.0);
    // The step costs behind the pools' reports, costed again here so that the sides a
    // sweep copies thousands of times stay small.
    let w = setup.workload;
    let context = w.mean_decode_context();
    let decode = |seqs: f64| StepShape::decode(seqs, context);
    let prefill = |seqs: f64| w.prefill_shape(seqs);
    let layers = moe_layers(setup.model);
    let pools = vec![
        PoolReport {
            role: PoolRole::Attention,
            chip: attention.chip.id.clone(),
            chip_name: attention.chip.name.clone(),
            chips: attention.chips(),
            parallelism: attention.parallelism,
            seqs_per_replica: s.attention.seqs_per_replica,
            max_seqs_per_replica: s.attention.max_seqs as u64,
            step,
            utilisation: rate_share(s.attention.per_layer * layers + s.attention.dense),
            input_tok_s_per_chip: figures.input_tok_s / attention.chips() as f64,
            output_tok_s_per_chip: figures.output_tok_s / attention.chips() as f64,
            memory: s.attention.usage,
            time: s.attention.time,
            bottleneck: s.attention.time.bottleneck(),
            operators: Vec::new(),
            costs: StepCosts {
                generation: Some(moe_attention_step(
                    &s.attention.placement,
                    s.attention.seqs_per_replica,
                    micro_batches,
                    decode,
                )),
                prefill: Some(moe_attention_step(
                    &s.prefill_attention.placement,
                    s.prefill_attention.seqs_per_replica,
                    1,
                    prefill,
                )),
                prompts_per_prefill: s.prompts_per_prefill,
            },
        },
        PoolReport {
            role: PoolRole::Experts,
            chip: experts.chip.id.clone(),
            chip_name: experts.chip.name.clone(),
            chips: experts.chips(),
            parallelism: experts.parallelism,
            seqs_per_replica: batch as f64 / experts.chips() as f64,
            max_seqs_per_replica: s.experts.max_seqs,
            step,
            utilisation: rate_share(s.experts.per_layer * layers),
            input_tok_s_per_chip: TokensPerSecond::ZERO,
            output_tok_s_per_chip: figures.output_tok_s / experts.chips() as f64,
            memory: s.experts.usage,
            time: s.experts.time,
            bottleneck: s.experts.time.bottleneck(),
            operators: Vec::new(),
            costs: StepCosts {
                generation: Some(experts_step(
                    &s.experts.placement,
                    batch,
                    micro_batches,
                    decode,
                )),
                prefill: Some(experts_step(
                    &s.prefill_experts.placement,
                    s.prompts_per_prefill.ceil() as u32,
                    1,
                    prefill,
                )),
                prompts_per_prefill: s.prompts_per_prefill,
            },
        },
    ];
    Ok(DeploymentPoint {
        axis: super::Axis::AttentionExpert,
        heterogeneous: attention.chip.id != experts.chip.id,
        label: format!(
            "{} + {} ({micro_batches} micro-batches)",
            pool_label(PoolRole::Attention, attention.chip, attention.parallelism),
            pool_label(PoolRole::Experts, experts.chip, experts.parallelism)
        ),
        transfer_time: figures.transfer,
        ttft: t.round.ttft_model(),
        tpot: t.round.tpot_model(),
        figures,
        pools,
        fits: reasons.is_empty(),
        reason: (!reasons.is_empty()).then(|| reasons.join("; ")),
        warnings: Vec::new(),
    })
}
