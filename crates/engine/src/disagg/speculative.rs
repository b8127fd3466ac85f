//! Speculative decoding: a draft (a small model, the target's own MTP layers, or an
//! EAGLE head on the target's chips, `MODEL.md` 6.7)
//! proposes `K` tokens per sequence, the target verifies them in one step of `K + 1`
//! new tokens per sequence (`audit/MODEL.md` section 6.5).
//!
//! With per-token acceptance `a`, a verify cycle yields `E = (1 - a^(K+1)) / (1 - a)`
//! tokens on average and takes `K * t_draft + t_verify` (+ two link crossings when the
//! draft runs on other chips). Drafting is sequential with verification, as in vLLM
//! and SGLang. The target's [`Round`] is the aggregated one with the decode step
//! replaced by the cycle, which yields `E` tokens: `OSL / E` cycles plus the prefill
//! chunks of the new prompts (the draft's prefill of each prompt included), with the
//! same expert-group prefill waits as the aggregated pool. At batch 1 the verify step costs about a
//! plain decode step (weight-bound), so the gain approaches `E`; as the batch grows
//! verification turns compute-bound and the gain shrinks.
//!
//! A draft step's host work depends on how the serving framework drafts
//! ([`drafts_from_host`], `MODEL.md` 6.5): SGLang and TensorRT-LLM replay the whole
//! drafting loop as one CUDA graph, so a draft step adds only its kernels and the
//! cycle pays the host work once, in its verify step; vLLM's proposer runs each draft
//! step from Python (its own forward pass, attention metadata and argmax), so each
//! draft step pays an engine step's host work as well.

pub use super::draft_model::{draft_model, eagle_model, mtp_model};
use super::explain::AxisChains;
use super::layouts::{colocated_draft_layout, mtp_layout};
use super::round::{GroupPrefill, Round, RoundPrefill};
use super::ttft::admission_wait;
use super::{
    inter_pool_link, link_time, place, pool_label, Core, DeploymentPoint, Draft, Figures, Limiter,
    Placed, PoolConfig, PoolReport, PoolRole, Reject, Setup, StepCosts,
};
use crate::catalogue::Chip;
use crate::cost::PoolLoad;
use crate::error::{EngineError, Result};
use crate::explain::{diff, max, num, power, product, quotient, sum, var, Chain, Source};
use crate::kernel::{
    operator_table, step_chain, step_cost, Bottleneck, Placement, StepCost, StepShape,
    TimeBreakdown,
};
use crate::model::ModelIr;
use crate::parallel::Parallelism;
use crate::serving::{Framework, StepWork};
use crate::units::{Bytes, Seconds, TokensPerSecond};
use crate::Assumptions;

/// Whether the framework serving `chip` runs each draft step from the host, paying an
/// engine step's host work ([`crate::Assumptions::host_overhead`]) per drafted token.
/// vLLM's `EagleProposer.propose` (`vllm/v1/spec_decode/eagle.py`, which also drafts
/// for MTP) loops over the `K` tokens in Python: per token it rebuilds the attention
/// metadata (`build_for_drafting`), updates positions and slot mappings with eager
/// tensor ops, runs the head under piecewise CUDA graphs (attention outside them) and
/// computes logits and their argmax. SGLang captures the whole `draft_forward` loop in
/// one CUDA graph (`EAGLEDraftCudaGraphRunner`), and TensorRT-LLM's one-model MTP and
/// EAGLE-3 launch the drafting loop as a single CUDA graph (its speculative-decoding
/// guide): there a draft step adds only its kernels. Other frameworks and none (the
/// global assumptions) are taken as the graph case, the engine's behaviour before.
pub fn drafts_from_host(setup: &Setup, chip: &Chip) -> bool {
    setup.assumptions.framework.for_chip(chip) == Some(Framework::Vllm)
}

/// One draft token for the whole batch.
#[derive(Clone, Copy, Debug)]
pub struct DraftSide {
    pub step: Seconds,
    /// Whether `step` includes an engine step's host work ([`drafts_from_host`]).
    pub host_per_step: bool,
    /// Bytes per chip the draft adds to the target's chips (colocated drafts only).
    pub colocated_bytes: Bytes,
    /// Prefill of the draft per request, where it delays the target.
    pub prefill_per_request: Seconds,
    pub fit: Option<Reject>,
    pub usage: Option<crate::memory::MemoryUsage>,
    /// Most sequences one replica of a separate draft pool holds.
    pub max_seqs: u64,
    pub parallelism: Parallelism,
}

/// The draft's step time. `pool` is the draft's own pool, or `None` to run it on the
/// target's chips.
pub fn draft_side(
    setup: &Setup,
    target: PoolConfig,
    pool: Option<PoolConfig>,
    batch: u32,
) -> std::result::Result<DraftSide, Reject> {
    let w = setup.workload;
    let ctx = w.mean_decode_context();
    let draft = setup.speculation.draft;
    let draft_ir = draft_model(setup).ok_or(Reject::InvalidLayout)?;
    let draft_ir: &ModelIr = &draft_ir;
    let par = match (pool, draft) {
        (Some(p), _) => p.parallelism,
        (None, Draft::Mtp) => mtp_layout(target.parallelism),
        (None, Draft::Model { .. } | Draft::Eagle { .. }) => {
            colocated_draft_layout(draft_ir, target.parallelism.tp, target.chips())
        }
    };
    let pool_cfg = PoolConfig {
        chip: pool.unwrap_or(target).chip,
        parallelism: par,
    };
    let seqs = par.seqs_per_replica(batch);
    let placed = place(
        setup,
        draft_ir,
        pool_cfg,
        w.max_context(),
        seqs,
        Bytes::ZERO,
    )?;
    let (memory, memory_fit) = if draft.on_target_chips() {
        // MTP layers and an EAGLE head share the target's embedding and head: no
        // table of their own.
        let layers_only = ModelIr {
            vocab: 0,
            ..draft_ir.clone()
        };
        let m = place(
            setup,
            &layers_only,
            pool_cfg,
            w.max_context(),
            seqs,
            Bytes::ZERO,
        )?;
        (m.usage, m.fit)
    } else {
        (placed.usage, placed.fit)
    };
    let cost = step_cost(&placed.placement, StepShape::decode(seqs, ctx));
    // The framework serving the chips the draft runs on: the target's for a colocated
    // draft, the draft pool's own for a separate one (so a draft side depends on its
    // pool alone, as the sweep caches it).
    let host_per_step = drafts_from_host(setup, pool_cfg.chip);
    let step = if host_per_step {
        cost.total
    } else {
        cost.without_host_overhead()
    };
    let colocated = pool.is_none();
    Ok(if colocated {
        let prefill = step_cost(&placed.placement, w.prefill_shape(1.0));
        DraftSide {
            step,
            host_per_step,
            colocated_bytes: memory.weights + memory.kv,
            prefill_per_request: prefill.busy + prefill.exposed_comm,
            fit: None,
            usage: None,
            max_seqs: 0,
            parallelism: par,
        }
    } else {
        DraftSide {
            step,
            host_per_step,
            colocated_bytes: Bytes::ZERO,
            prefill_per_request: Seconds::ZERO,
            fit: memory_fit.map(|_| Reject::DraftDoesNotFit),
            usage: Some(memory),
            max_seqs: placed.plan.max_seqs(),
            parallelism: par,
        }
    })
}

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

/// Seconds one cycle spends on the link between a separate draft pool and the target.
fn crossing(setup: &Setup, target: PoolConfig, draft: Option<PoolConfig>, batch: u32) -> Seconds {
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
    Figures::new(
        Core {
            batch,
            running: batch,
            ttft: round.ttft(),
            tpot: round.tpot(),
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
fn drafting(setup: &Setup, d: &DraftSide) -> Seconds {
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
fn round(
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

pub fn evaluate(
    setup: &Setup,
    target: PoolConfig,
    draft: Option<PoolConfig>,
    batch: u32,
) -> Result<DeploymentPoint> {
    let mut warnings = Vec::new();
    match setup.speculation.draft {
        Draft::Mtp if setup.model.mtp_layers == 0 => {
            return Err(EngineError::InvalidInput(
                "this model ships no multi-token-prediction layers (num_nextn_predict_layers); choose a draft model".into(),
            ))
        }
        Draft::Mtp | Draft::Eagle { .. } if draft.is_some() => {
            return Err(EngineError::InvalidInput(format!(
                "{} drafts from the target's hidden states on the target's chips; a separate draft pool needs a draft model",
                setup.speculation.draft.name()
            )))
        }
        Draft::Model { id, ir } if ir.vocab != setup.model.vocab => warnings.push(format!(
            "draft {id} has a vocabulary of {} tokens, the target {}: speculation needs a shared tokenizer",
            ir.vocab, setup.model.vocab
        )),
        _ => {}
    }
    let d = draft_side(setup, target, draft, batch).map_err(|_| match draft {
        Some(p) => super::layout_error(
            setup,
            match setup.speculation.draft {
                Draft::Model { ir, .. } => ir,
                Draft::Mtp | Draft::Eagle { .. } => setup.model,
            },
            PoolRole::Draft,
            p,
        ),
        None => {
            EngineError::InvalidParallelism("draft: no valid layout on the target's chips".into())
        }
    })?;
    let t = target_side(setup, target, batch, d.colocated_bytes)
        .map_err(|_| super::layout_error(setup, setup.model, PoolRole::Target, target))?;
    let figures = combine(setup, target, draft, batch, &t, &d);
    let mut reasons: Vec<String> = t.placed.reason(PoolRole::Target).into_iter().collect();
    if d.fit.is_some() {
        reasons.push(
            "draft pool does not fit: the draft model and its KV exceed its chips' memory".into(),
        );
    }
    let r = round(setup, target, draft, batch, &t, &d);
    let cycle = r.iteration;
    let cycle_share = |x: Seconds| (x / cycle).min(1.0);
    let mut pools = vec![PoolReport {
        role: PoolRole::Target,
        chip: target.chip.id.clone(),
        chip_name: target.chip.name.clone(),
        chips: target.chips(),
        parallelism: target.parallelism,
        seqs_per_replica: t.placed.seqs,
        max_seqs_per_replica: t.placed.plan.max_seqs(),
        step: t.verify.total,
        utilisation: if draft.is_some() {
            cycle_share(t.verify.total)
        } else {
            1.0
        },
        input_tok_s_per_chip: figures.input_tok_s / target.chips() as f64,
        output_tok_s_per_chip: figures.output_tok_s / target.chips() as f64,
        memory: t.placed.usage,
        time: t.time,
        bottleneck: t.bottleneck,
        operators: Vec::new(),
        costs: StepCosts {
            generation: Some(t.verify),
            prefill: Some(t.prefill),
            prompts_per_prefill: t.round_prefill.prompts_per_step,
        },
    }];
    if let (Some(p), Some(usage)) = (draft, d.usage) {
        pools.push(PoolReport {
            role: PoolRole::Draft,
            chip: p.chip.id.clone(),
            chip_name: p.chip.name.clone(),
            chips: p.chips(),
            parallelism: d.parallelism,
            seqs_per_replica: d.parallelism.seqs_per_replica(batch),
            max_seqs_per_replica: d.max_seqs,
            step: d.step,
            utilisation: cycle_share(drafting(setup, &d)),
            input_tok_s_per_chip: TokensPerSecond::ZERO,
            output_tok_s_per_chip: TokensPerSecond::ZERO,
            memory: usage,
            time: TimeBreakdown::default(),
            bottleneck: Bottleneck::WeightMemory,
            operators: Vec::new(),
            costs: StepCosts::default(),
        });
    }
    let draft_name = setup.speculation.draft.name();
    let label = match draft {
        Some(p) => format!(
            "{} + {} draft {draft_name}",
            pool_label(PoolRole::Target, target.chip, target.parallelism),
            pool_label(PoolRole::Colocated, p.chip, p.parallelism)
        ),
        None => format!(
            "{} with {draft_name} draft",
            pool_label(PoolRole::Target, target.chip, target.parallelism)
        ),
    };
    Ok(DeploymentPoint {
        axis: super::Axis::Speculative,
        heterogeneous: draft.is_some_and(|p| p.chip.id != target.chip.id),
        label,
        transfer_time: figures.transfer,
        ttft: r.ttft_model(),
        figures,
        pools,
        fits: reasons.is_empty(),
        reason: (!reasons.is_empty()).then(|| reasons.join("; ")),
        warnings,
    })
}

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
    let bad = || super::layout_error(setup, setup.model, PoolRole::Target, target);
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
