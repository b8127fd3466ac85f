//! Placing a model (or its part) on a pool: layout checks, memory sized for a batch,
//! the kernel's placement, and the link between two pools.

use super::{PoolConfig, PoolRole, Reject, Setup};
use crate::assumptions::Assumptions;
use crate::catalogue::chip::Link;
use crate::catalogue::Chip;
use crate::error::{EngineError, Result};
use crate::kernel::Placement;
use crate::limits::MAX_CHIPS;
use crate::memory::{MemoryPlan, MemoryUsage, Part};
use crate::model::ModelIr;
use crate::serving::StepWork;
use crate::units::{Bytes, Seconds};

/// A pool holds between 1 and `MAX_CHIPS` chips.
pub fn check_pool_chips(role: PoolRole, n: u32) -> Result<()> {
    if n == 0 || n > MAX_CHIPS {
        return Err(EngineError::InvalidInput(format!(
            "{} pool: chip count {n} must be between 1 and {}",
            role.name(),
            MAX_CHIPS
        )));
    }
    Ok(())
}

/// Per-chip bandwidth and latency of the link between two pools: scale-up when both
/// are the same chip and fit one scale-up domain together, else the slower of the
/// two scale-out links (or the user's override).
pub fn inter_pool_link(setup: &Setup, a: &Chip, a_chips: u32, b: &Chip, b_chips: u32) -> Link {
    let same_domain = one_domain(a, a_chips, b, b_chips);
    let (la, lb) = if same_domain {
        (a.link_for_group(a_chips + b_chips), b.link_for_group(1))
    } else {
        (a.network_link(), b.network_link())
    };
    let latency = setup
        .inter_pool_latency
        .unwrap_or(la.latency.max(lb.latency));
    let bandwidth = match setup.inter_pool_link {
        Some(bw) => bw,
        None if same_domain => la.bandwidth,
        None => la.bandwidth.min(lb.bandwidth),
    };
    Link { bandwidth, latency }
}

/// Whether two pools are one chip kind and fit one scale-up domain together, so that
/// the link between them is the scale-up link.
pub fn one_domain(a: &Chip, a_chips: u32, b: &Chip, b_chips: u32) -> bool {
    a.id == b.id && a_chips.saturating_add(b_chips) <= a.scale_up_domain
}

/// Time to move `bytes` between pools whose sending side has `senders` chips and
/// receiving side `receivers`, each driving its own link.
pub fn link_time(
    setup: &Setup<'_>,
    link: Link,
    bytes: Bytes,
    senders: u32,
    receivers: u32,
) -> Seconds {
    let lanes = senders.min(receivers).max(1) as f64;
    bytes / (link.bandwidth * setup.assumptions.link_eff * lanes) + link.latency
}

/// A model (or part of one) placed on a pool, its memory sized for a batch.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Placed<'a> {
    pub placement: Placement<'a>,
    pub plan: MemoryPlan,
    pub usage: MemoryUsage,
    /// Sequences per replica the memory was sized for.
    pub seqs: f64,
    pub fit: Option<Reject>,
}

impl Placed<'_> {
    /// Why it does not fit, in numbers; `None` when it fits.
    pub fn reason(&self, role: PoolRole) -> Option<String> {
        let why = match self.fit? {
            Reject::WeightsDoNotFit => self.plan.shortfall_reason(),
            _ => format!(
                "does not fit: {:.0} sequences per replica need {:.1} GB of KV per chip; at most {} fit",
                self.seqs.ceil(),
                self.usage.kv.gb(),
                self.plan.max_seqs()
            ),
        };
        Some(format!("{}{why}", role.pool_prefix()))
    }
}

/// `model` on `pool` with the setup's dtypes and rates, `cold` of its weights in the
/// cold memory tier.
pub(crate) fn placement<'a>(
    setup: &Setup<'a>,
    model: &'a ModelIr,
    pool: PoolConfig<'a>,
    cold: f64,
) -> Placement<'a> {
    placed_with(
        setup,
        model,
        pool,
        cold,
        pool_assumptions(setup, pool, Part::Whole),
    )
}

/// The assumptions a pool runs with ([`crate::Assumptions::on_chip`]), its host work
/// overlapped only where its framework overlaps such steps (`audit/MODEL.md` 3.5): a
/// pipelined pool (`pp > 1`, or one stage of a pipeline across machines) runs it in
/// series.
fn pool_assumptions(setup: &Setup, pool: PoolConfig, part: Part) -> Assumptions {
    let work = if pool.parallelism.pp > 1 || matches!(part, Part::Stage { .. }) {
        StepWork::Pipelined
    } else {
        StepWork::Generating
    };
    setup
        .assumptions
        .for_steps(pool.chip, work)
        .on_chip(pool.chip)
}

/// [`placement`] with the pool's assumptions already resolved.
fn placed_with<'a>(
    setup: &Setup<'a>,
    model: &'a ModelIr,
    pool: PoolConfig<'a>,
    cold: f64,
    assumptions: Assumptions,
) -> Placement<'a> {
    Placement {
        model,
        chip: pool.chip,
        parallelism: pool.parallelism,
        weights: setup.precision(),
        kv: setup.kv,
        // The pool's own assumptions: its framework may set the per-kernel cost.
        rates: crate::assumptions::ChipRates::for_chip(pool.chip, &assumptions),
        assumptions,
        cold_weight_fraction: cold,
    }
}

/// Places `model` on `pool` with memory for `seqs` sequences per replica of `context`
/// tokens, `extra` bytes per chip held by something else (a colocated draft). Only an
/// invalid layout is an error; not fitting is recorded in [`Placed::fit`].
pub(crate) fn place<'a>(
    setup: &Setup<'a>,
    model: &'a ModelIr,
    pool: PoolConfig<'a>,
    context: f64,
    seqs: f64,
    extra: Bytes,
) -> std::result::Result<Placed<'a>, Reject> {
    place_part(setup, model, Part::Whole, pool, context, seqs, extra)
}

/// [`place`] for `part` of the model (a pipeline stage's layers, `audit/MODEL.md` 6.10).
pub(crate) fn place_part<'a>(
    setup: &Setup<'a>,
    model: &'a ModelIr,
    part: Part,
    pool: PoolConfig<'a>,
    context: f64,
    seqs: f64,
    extra: Bytes,
) -> std::result::Result<Placed<'a>, Reject> {
    let par = pool.parallelism;
    if par
        .validate_with(model, par.chips(), setup.assumptions.redundant_experts)
        .is_err()
    {
        return Err(Reject::InvalidLayout);
    }
    let assumptions = pool_assumptions(setup, pool, part);
    let mut plan = MemoryPlan::for_part(
        model,
        part,
        pool.chip,
        par,
        setup.precision(),
        setup.kv,
        context,
        &assumptions,
    );
    plan.workspace += extra;
    let usage = plan.usage(seqs.ceil());
    let fit = if plan.max_seqs() == 0 {
        Some(Reject::WeightsDoNotFit)
    } else if !usage.fits {
        Some(Reject::BatchDoesNotFit)
    } else {
        None
    };
    Ok(Placed {
        placement: placed_with(setup, model, pool, usage.cold_fraction(), assumptions),
        plan,
        usage,
        seqs,
        fit,
    })
}

/// The error an invalid layout of `pool` gives, in words.
pub(crate) fn layout_error(
    setup: &Setup,
    model: &ModelIr,
    role: PoolRole,
    pool: PoolConfig,
) -> EngineError {
    let redundant = setup.assumptions.redundant_experts;
    let why = match pool
        .parallelism
        .validate_with(model, pool.chips(), redundant)
    {
        Err(EngineError::InvalidParallelism(why)) => why,
        Err(other) => return other,
        Ok(()) => "invalid layout".to_string(),
    };
    EngineError::InvalidParallelism(match role {
        PoolRole::Colocated => why,
        _ => format!("{} pool: {why}", role.name()),
    })
}
