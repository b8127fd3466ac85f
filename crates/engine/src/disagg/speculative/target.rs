//! The target's side of speculation: its verify step of `K + 1` tokens per sequence,
//! with a colocated draft's memory set aside, and the prefill its round carries.

use crate::disagg::round::{GroupPrefill, RoundPrefill};
use crate::disagg::{place, Placed, PoolConfig, Reject, Setup};
use crate::kernel::{step_cost, Bottleneck, StepCost, StepShape, TimeBreakdown};
use crate::serving::StepWork;
use crate::units::Bytes;

/// The target pool at a batch, with the colocated draft's memory set aside.
#[derive(Clone, Copy, Debug)]
pub struct TargetSide<'a> {
    pub(crate) placed: Placed<'a>,
    pub verify: StepCost,
    pub prefill: StepCost,
    /// The target's prefill in its round, before the draft's share is added.
    pub round_prefill: RoundPrefill,
    pub time: TimeBreakdown,
    pub bottleneck: Bottleneck,
}

/// The target's verify step at a batch: `K + 1` new tokens per sequence, each with its
/// logits (rejection sampling compares the target's distribution at every drafted
/// position and samples the bonus token), with `colocated_bytes` per chip set aside for
/// a draft on the same chips.
pub(crate) fn verify_step<'a>(
    setup: &Setup<'a>,
    target: PoolConfig<'a>,
    batch: u32,
    colocated_bytes: Bytes,
) -> std::result::Result<(Placed<'a>, StepCost), Reject> {
    let w = setup.workload;
    let par = target.parallelism;
    let seqs = par.seqs_per_replica(batch);
    let k = setup.speculation.draft_tokens as f64;
    // A speculating engine's host work: overlapped only where its framework keeps its
    // overlap loop while it speculates (`serving::HostOverlap`, MODEL.md 3.5).
    let mut speculating = *setup;
    speculating.assumptions = setup
        .assumptions
        .for_steps(target.chip, StepWork::Speculating);
    let setup = &speculating;
    let placed = place(
        setup,
        setup.model,
        target,
        w.max_context() + k,
        seqs,
        colocated_bytes,
    )?;
    let verify = step_cost(
        &placed.placement,
        StepShape {
            new_tokens: k + 1.0,
            logits_every_token: true,
            ..w.decode_shape(par, seqs)
        },
    );
    Ok((placed, verify))
}

pub fn target_side<'a>(
    setup: &Setup<'a>,
    target: PoolConfig<'a>,
    batch: u32,
    colocated_bytes: Bytes,
) -> std::result::Result<TargetSide<'a>, Reject> {
    let (placed, verify) = verify_step(setup, target, batch, colocated_bytes)?;
    let w = setup.workload;
    let a = &setup.assumptions.on_chip(target.chip);
    let par = target.parallelism;
    let seqs = placed.seqs;
    let prompts = w.prompts_per_chunk(
        setup
            .assumptions
            .prefill_chunk_per_replica(target.chip, par),
        seqs,
    );
    // Replicas of one expert group wait for each other's prefills, as in the
    // aggregated round, over the round's `OSL / E` cycles.
    let group = GroupPrefill::of_round(
        seqs / prompts,
        w.osl as f64 / setup.speculation.expected_tokens(),
        par.replicas_per_expert_group(),
        a.aligned_group_prefill,
    );
    let prefill = step_cost(
        &placed.placement,
        w.prefill_shape(prompts).from_replicas(group.replicas),
    );
    let time = TimeBreakdown::of(&verify);
    Ok(TargetSide {
        placed,
        verify,
        prefill,
        round_prefill: RoundPrefill::of(prefill.total, prompts, seqs, par, &group),
        time,
        bottleneck: time.bottleneck(),
    })
}
