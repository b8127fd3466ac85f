//! One speculation cycle (`K` draft steps, one verify step, the link crossings of a
//! separate draft pool) and what the axis makes of it: the target's round over `OSL / E`
//! cycles and the deployment's figures ([`combine`], `audit/MODEL.md` 6.5).

use super::{DraftSide, TargetSide};
use crate::cost::PoolLoad;
use crate::disagg::round::{Round, RoundPrefill};
use crate::disagg::ttft::admission_wait;
use crate::disagg::{inter_pool_link, link_time, Core, Figures, Limiter, PoolConfig, Setup};
use crate::kernel::{StepCost, TimeBreakdown};
use crate::units::{Bytes, Seconds};
use crate::Assumptions;

/// Seconds one cycle spends on the link between a separate draft pool and the target.
pub(super) fn crossing(
    setup: &Setup,
    target: PoolConfig,
    draft: Option<PoolConfig>,
    batch: u32,
) -> Seconds {
    let Some(d) = draft else {
        return Seconds::ZERO;
    };
    let link = inter_pool_link(setup, d.chip, d.chips(), target.chip, target.chips());
    link_time(
        setup,
        link,
        crossing_bytes(setup, batch),
        d.chips(),
        target.chips(),
    ) * 2.0
}

/// Bytes one cycle sends each way between a separate draft pool and the target:
/// drafted token ids one way, the accepted prefix back, 4 bytes per token.
pub fn crossing_bytes(setup: &Setup, batch: u32) -> Bytes {
    Bytes(batch as f64 * (setup.speculation.draft_tokens as f64 + 1.0) * 4.0)
}

pub fn combine(
    setup: &Setup,
    target: PoolConfig,
    draft: Option<PoolConfig>,
    batch: u32,
    t: &TargetSide,
    d: &DraftSide,
) -> Figures {
    let transfer = crossing(setup, target, draft, batch);
    let round = round(setup, target, draft, batch, t, d);
    // Busy shares as the pools' reports state them; a draft pool keeps no time split.
    let busy = |x: Seconds| (x / round.iteration).min(1.0);
    let (tb, none) = (
        draft.map_or(1.0, |_| busy(t.verify.total)),
        TimeBreakdown::default(),
    );
    let mut pools = vec![PoolLoad::new(target.chip, target.chips(), tb, &t.time)];
    pools.extend(draft.map(|p| PoolLoad::new(p.chip, p.chips(), busy(drafting(setup, d)), &none)));
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
            transfer,
            bottleneck: t.bottleneck,
            limiter: if drafting(setup, d) > t.verify.total {
                Limiter::Drafting
            } else {
                Limiter::Verification
            },
            prefill_share: round.prefill_share(),
        },
        &pools,
        &setup.assumptions.cost,
    )
}

/// The `K` draft steps of one cycle.
pub(super) fn drafting(setup: &Setup, d: &DraftSide) -> Seconds {
    d.step * setup.speculation.draft_tokens as f64
}

/// One cycle on the target's chips: the `K` draft steps and the verify step's device
/// part, with the verify step's host work, the cycle's one engine step, in series or
/// beside them as the target's placement resolved it (`a`, MODEL.md 3.5 and 6.5).
pub(crate) fn cycle_time(a: &Assumptions, drafting: Seconds, verify: &StepCost) -> Seconds {
    a.step_time(drafting + verify.without_host_overhead(), verify.host)
}

/// The target's round: `OSL / E` cycles of drafting, verification and link crossings,
/// and the prefill chunks of the new prompts, each prompt also prefilled by a draft
/// that shares the target's chips.
pub(super) fn round(
    setup: &Setup,
    target: PoolConfig,
    draft: Option<PoolConfig>,
    batch: u32,
    t: &TargetSide,
    d: &DraftSide,
) -> Round {
    let cycle = cycle_time(
        &t.placed.placement.assumptions,
        drafting(setup, d),
        &t.verify,
    ) + crossing(setup, target, draft, batch);
    let prefill = t.round_prefill;
    Round {
        iteration: cycle,
        tokens_per_iteration: setup.speculation.expected_tokens(),
        seqs: t.placed.seqs,
        osl: setup.workload.osl as f64,
        prefill: Some(RoundPrefill {
            step: prefill.step + d.prefill_per_request * prefill.prompts_per_step,
            ..prefill
        }),
        scheduling: setup.assumptions.scheduling,
        first_wave: setup.workload.first_wave(batch),
        admission: admission_wait(
            setup
                .assumptions
                .on_chip(target.chip)
                .scheduler_recv_interval,
            cycle,
            t.placed.seqs,
        ),
    }
}
