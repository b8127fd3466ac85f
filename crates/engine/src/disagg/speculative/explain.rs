//! The speculative deployment's figures opened into chains: the tokens a cycle yields,
//! one cycle (draft steps, verify step, link crossings), the time per token of a
//! speculating pool, and the prefill step with the draft's share of each prompt.

use super::cycle::{crossing, cycle_time, round};
use super::{draft_side, target_side, DraftSide};
use crate::disagg::explain::AxisChains;
use crate::disagg::{layout_error, PoolConfig, PoolRole, Setup};
use crate::error::Result;
use crate::explain::{diff, max, num, power, product, quotient, sum, var, Chain, Source};
use crate::kernel::{operator_table, step_chain, Placement, StepCost};
use crate::units::Seconds;

/// Expected tokens per cycle as a chain: `E = (1 - a^(K+1)) / (1 - a)`, or `K + 1`
/// when every drafted token is accepted.
fn expected_tokens_chain(setup: &Setup) -> Chain {
    let s = &setup.speculation;
    let formula = if (1.0 - s.acceptance).abs() < 1e-12 {
        sum([var("K"), num(1.0)])
    } else {
        quotient(
            diff(num(1.0), power(var("a"), sum([var("K"), num(1.0)]))),
            diff(num(1.0), var("a")),
        )
    };
    Chain::new(
        "tokens one cycle yields per sequence",
        "E",
        "tokens",
        "6.5",
        formula,
        s.expected_tokens(),
    )
    .input(
        "a",
        "acceptance rate per drafted token",
        s.acceptance,
        "1",
        Source::workload("acceptance"),
    )
    .input(
        "K",
        "tokens drafted per cycle",
        s.draft_tokens as f64,
        "tokens",
        Source::workload("draft tokens"),
    )
}

/// One speculation cycle as a chain: `t_it = K × t_draft + t_verify (+ t_cross)`, or,
/// where the target's engine overlaps its host work with the device's (MODEL.md 3.5),
/// `t_it = max(K × t_draft + t_dev, t_host) (+ t_cross)`; `p` and `verify` the target's
/// placement and verify step ([`cycle_time`]).
fn cycle_chain(
    setup: &Setup,
    draft: &DraftSide,
    p: &Placement,
    verify: &StepCost,
    crossing: Seconds,
) -> Chain {
    let draft_step = draft.step;
    let k = setup.speculation.draft_tokens as f64;
    let crosses = crossing.value() > 0.0;
    let overlapped = p.assumptions.overlaps_host();
    let drafts = product([var("K"), var("t_draft")]);
    let mut terms = if overlapped {
        vec![max([sum([drafts, var("t_dev")]), var("t_host")])]
    } else {
        vec![drafts, var("t_verify")]
    };
    if crosses {
        terms.push(var("t_cross"));
    }
    let value = cycle_time(&p.assumptions, draft_step * k, verify) + crossing;
    let chain = Chain::new(
        "one speculation cycle: K draft steps, then one verify step of K + 1 tokens",
        "t_it",
        "s",
        "6.5",
        sum(terms),
        value.value(),
    )
    .input(
        "K",
        "tokens drafted per cycle",
        k,
        "tokens",
        Source::workload("draft tokens"),
    )
    .input(
        "t_draft",
        if draft.host_per_step {
            "one draft step (with an engine step's host work: the framework drafts each token from the host)"
        } else {
            "one draft step (without host work: the framework replays the drafting loop as one graph)"
        },
        draft_step.value(),
        "s",
        Source::rule("the draft model's decode step on its chips, see its own prediction"),
    );
    let chain = if overlapped {
        chain
            .input(
                "t_dev",
                "the verify step on the device: operators, exposed communication, launches",
                verify.without_host_overhead().value(),
                "s",
                Source::rule("the verify step's operator table"),
            )
            .input(
                "t_host",
                "the cycle's host work, its one engine step's, beside the device's",
                verify.host.value(),
                "s",
                Source::rule("t_step + s x t_seq of the verify step (MODEL.md 3.5)"),
            )
    } else {
        chain.derived(
            "verify step",
            step_chain(p, verify, "t_verify", "verify step"),
        )
    };
    if crosses {
        chain.input(
            "t_cross",
            "token ids to the target and back over the link",
            crossing.value(),
            "s",
            Source::rule("2 x (batch x (K + 1) x 4 B / (bw x link_eff x lanes) + latency)"),
        )
    } else {
        chain
    }
}

/// Time per token of a speculating pool that runs no prefill: `t_it / E`, its value
/// `value` as the pool computed it.
pub(crate) fn per_token_chain(
    setup: &Setup,
    draft: &DraftSide,
    p: &Placement,
    verify: &StepCost,
    value: Seconds,
) -> Chain {
    Chain::new(
        "TPOT",
        "TPOT",
        "s",
        "6.5",
        quotient(var("t_it"), var("E")),
        value.value(),
    )
    .derived(
        "one speculation cycle",
        cycle_chain(setup, draft, p, verify, Seconds::ZERO),
    )
    .derived("tokens one cycle yields", expected_tokens_chain(setup))
}

/// The target's figures opened: its round over speculation cycles, and the prefill
/// steps with the draft's share of each prompt.
pub(crate) fn explain(
    setup: &Setup,
    target: PoolConfig,
    draft: Option<PoolConfig>,
    batch: u32,
) -> Result<AxisChains> {
    let bad = || layout_error(setup, setup.model, PoolRole::Target, target);
    let d = draft_side(setup, target, draft, batch).map_err(|_| bad())?;
    let t = target_side(setup, target, batch, d.colocated_bytes).map_err(|_| bad())?;
    let r = round(setup, target, draft, batch, &t, &d);
    let p = &t.placed.placement;
    let iteration = cycle_chain(
        setup,
        &d,
        p,
        &t.verify,
        crossing(setup, target, draft, batch),
    );
    let prompts = t.round_prefill.prompts_per_step;
    let prefill = Chain::new(
        "one prefill step: the target's chunk and the draft's prefill of its prompts",
        "t_pf",
        "s",
        "6.5",
        sum([var("t_pf_target"), product([var("t_draft_pf"), var("p")])]),
        r.prefill.map_or(0.0, |x| x.step.value()),
    )
    .derived(
        "the target's prefill step",
        step_chain(p, &t.prefill, "t_pf_target", "target prefill step"),
    )
    .input(
        "t_draft_pf",
        "the colocated draft's prefill of one prompt (0 for a draft pool of its own)",
        d.prefill_per_request.value(),
        "s",
        Source::rule("the draft's prefill step of one prompt without host work"),
    )
    .input(
        "p",
        "prompts per prefill step",
        prompts,
        "prompts",
        Source::rule("chunk budget / uncached prompt tokens, at most s"),
    );
    let chains = r.explain(
        batch,
        setup.workload.isl,
        target.parallelism.pp,
        iteration,
        Some(prefill),
    );
    Ok(AxisChains {
        colocated_draft: draft
            .is_none()
            .then_some((PoolRole::Target, d.colocated_bytes)),
        ..AxisChains::of_round(
            chains,
            vec![(
                PoolRole::Target,
                vec![
                    operator_table(p, &t.verify, "verify step"),
                    operator_table(p, &t.prefill, "prefill step"),
                ],
            )],
        )
    })
}
