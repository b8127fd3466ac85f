//! Speculative decoding: a draft (a small model, the target's own MTP layers, or an
//! EAGLE head on the target's chips, `MODEL.md` 6.7)
//! proposes `K` tokens per sequence, the target verifies them in one step of `K + 1`
//! new tokens per sequence (`audit/MODEL.md` section 6.5).
//!
//! With per-token acceptance `a`, a verify cycle yields `E = (1 - a^(K+1)) / (1 - a)`
//! tokens on average and takes `K * t_draft + t_verify` (+ two link crossings when the
//! draft runs on other chips). Drafting is sequential with verification, as in vLLM and
//! SGLang. The target's [`Round`](super::round::Round) is the aggregated one with the
//! decode step replaced by the cycle, which yields `E` tokens: `OSL / E` cycles plus the
//! prefill chunks of the new prompts (the draft's prefill of each prompt included), with
//! the same expert-group prefill waits as the aggregated pool. At batch 1 the verify step
//! costs about a plain decode step (weight-bound), so the gain approaches `E`; as the batch
//! grows verification turns compute-bound and the gain shrinks.
//!
//! A draft step's host work depends on how the serving framework drafts
//! ([`drafts_from_host`], `MODEL.md` 6.5): SGLang and TensorRT-LLM replay the whole
//! drafting loop as one CUDA graph, so a draft step adds only its kernels and the
//! cycle pays the host work once, in its verify step; vLLM's proposer runs each draft
//! step from Python (its own forward pass, attention metadata and argmax), so each
//! draft step pays an engine step's host work as well.
//!
//! The axis in files: the draft's side (`draft.rs`), the target's verify step and side
//! (`target.rs`), one cycle and the round and figures made of it (`cycle.rs`), the point
//! as [`evaluate`] reports it (here), and its chains (`explain.rs`).

mod cycle;
mod draft;
mod explain;
mod target;

pub(crate) use cycle::cycle_time;
pub use cycle::{combine, crossing_bytes};
pub use draft::{draft_side, drafts_from_host, DraftSide};
pub(crate) use explain::{explain, per_token_chain};
pub(crate) use target::verify_step;
pub use target::{target_side, TargetSide};

pub use super::draft_model::{draft_model, eagle_model, mtp_model};
use super::{
    pool_label, DeploymentPoint, Draft, PoolConfig, PoolReport, PoolRole, Setup, StepCosts,
};
use crate::error::{EngineError, Result};
use crate::kernel::{Bottleneck, TimeBreakdown};
use crate::units::{Seconds, TokensPerSecond};
use cycle::{drafting, round};

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
        tpot: r.tpot_model(),
        figures,
        pools,
        fits: reasons.is_empty(),
        reason: (!reasons.is_empty()).then(|| reasons.join("; ")),
        warnings,
    })
}
