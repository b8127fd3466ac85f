//! The draft's side of speculation: one draft token for the whole batch, on the target's
//! chips or on a pool of its own, and whether its framework pays an engine step's host
//! work for it ([`drafts_from_host`], `audit/MODEL.md` 6.5.1).

use super::draft_model;
use crate::catalogue::Chip;
use crate::disagg::layouts::{colocated_draft_layout, mtp_layout};
use crate::disagg::{place, Draft, PoolConfig, Reject, Setup};
use crate::kernel::{step_cost, StepShape};
use crate::model::ModelIr;
use crate::parallel::Parallelism;
use crate::serving::Framework;
use crate::units::{Bytes, Seconds};

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
