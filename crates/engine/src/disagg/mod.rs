//! Deployments along every axis: the aggregated baseline (prefill and decode on one
//! pool) and the three disaggregations measured against it (`audit/MODEL.md`,
//! "Deployments").
//!
//! Every axis splits a deployment into at most two pools of chips and produces one
//! point shape, [`Figures`] (the numbers a frontier needs) inside a [`DeploymentPoint`]
//! (those numbers plus a report per pool). Each axis is written as a few independent
//! *sides* (the colocated pool, a decode pool at a batch, a prefill pool, ...) and a
//! `combine` step, so that a sweep can cost each side once and combine thousands of
//! pairings cheaply, and the single-point path and the sweep share one formula. A pool
//! that generates and prefills costs its time through the one continuous-batching
//! [`round::Round`].
//!
//! Adding an axis: a variant of [`Axis`] and [`Deployment`] (with its pool roles), a
//! file with its sides, `combine` and `evaluate`, its arm in [`evaluate`], its layouts
//! in [`layouts`], and its enumeration in a file of `sweep/`.

pub mod aggregated;
pub mod attention_expert;
mod axis;
mod deployment;
mod draft_model;
pub mod explain;
pub mod finite_run;
mod group_prefill;
mod round_explain;

pub mod layouts;
pub mod open_loop;
pub mod open_loop_explain;
pub mod pipeline;
mod place;
pub mod plan;
mod point;
pub mod prefill_decode;
pub mod report;
pub mod round;
mod setup;
pub mod speculative;
pub mod topology;
pub mod tpot;
pub mod ttft;

pub use axis::{Axis, Limiter, PoolRole, Reject};
pub use deployment::{Deployment, DeploymentSpec, PoolConfig, PoolSpec};
pub use place::{check_pool_chips, inter_pool_link, link_time};
pub(crate) use place::{layout_error, place, place_part, placement, Placed};
pub(crate) use point::Core;
pub use point::{pool_label, DeploymentPoint, Figures, PoolReport, StepCosts};
pub use setup::{expected_tokens, Draft, Setup, Speculation, DEFAULT_EAGLE_LAYERS};

use crate::error::{EngineError, Result};
use crate::limits::MAX_BATCH;
use round::{queue_wait, queue_warning};

/// The same deployment without speculation, at the same batch, where it speculates:
/// the target's pool alone on the speculative axis, the same pools with a decode pool
/// that does not draft on prefill/decode. `None` when nothing speculates. Evaluating
/// both says what speculation buys at that batch.
pub fn without_speculation<'a>(
    setup: &Setup<'a>,
    deployment: &Deployment<'a>,
) -> Option<(Setup<'a>, Deployment<'a>)> {
    match *deployment {
        Deployment::Speculative { target, batch, .. } => Some((
            *setup,
            Deployment::Aggregated {
                pool: target,
                batch,
            },
        )),
        Deployment::PrefillDecode { .. } if setup.speculative_decode => Some((
            Setup {
                speculative_decode: false,
                ..*setup
            },
            *deployment,
        )),
        _ => None,
    }
}

/// Evaluates one deployment. A concurrency above the engine's batch limit runs at the
/// limit in the pool that holds the sequences, and the rest of the requests wait in
/// the engine's queue, which TTFT includes ([`round::queue_wait`]).
pub fn evaluate(setup: &Setup, deployment: &Deployment) -> Result<DeploymentPoint> {
    setup.validate()?;
    if setup.workload.finite_run.is_some() && !matches!(deployment, Deployment::Aggregated { .. }) {
        return Err(crate::disagg::finite_run::not_on_this_axis());
    }
    let concurrency = deployment.batch();
    if concurrency == 0 || concurrency > MAX_BATCH {
        return Err(EngineError::InvalidInput(format!(
            "batch {concurrency} must lie between 1 and {MAX_BATCH}"
        )));
    }
    finite_run::check_batch(&setup.workload, concurrency)?;
    for (role, pool) in deployment.pools() {
        check_pool_chips(role, pool.chips())?;
    }
    let running = running(setup, deployment);
    // Prompts per user count every user, the queued ones too.
    let mut users = *setup;
    users.workload = setup.workload.at_concurrency(concurrency);
    let setup = &users;
    let mut point = evaluate_running(setup, &deployment.with_batch(running))?;
    point.warnings.extend(setup.context_warning());
    if running < concurrency {
        let request_rate = point
            .figures
            .output_tok_s
            .per_request(setup.workload.osl as f64);
        let wait = queue_wait(concurrency, running, request_rate);
        point.ttft = point.ttft.queued(wait);
        let f = &mut point.figures;
        f.ttft += wait;
        // The queued TTFT's own quantile, so the figure and the distribution agree to
        // the bit.
        f.ttft_p90 = point.ttft.quantile(0.9);
        f.batch = concurrency;
        point.warnings.insert(
            0,
            queue_warning(
                concurrency,
                running,
                setup
                    .assumptions
                    .on_chip(deployment.generating_pool().chip)
                    .max_seqs_per_replica,
            ),
        );
    }
    Ok(point)
}

/// Sequences the engine runs at once of the deployment's concurrency: at most its
/// batch limit per replica of the generating pool; the rest wait in its queue.
pub(crate) fn running(setup: &Setup, deployment: &Deployment) -> u32 {
    let generating = deployment.generating_pool();
    setup
        .assumptions
        .on_chip(generating.chip)
        .engine_runs(deployment.batch(), generating.parallelism.dp)
}

/// Evaluates a deployment whose whole batch runs at once.
fn evaluate_running(setup: &Setup, deployment: &Deployment) -> Result<DeploymentPoint> {
    match *deployment {
        Deployment::Aggregated { pool, batch } => aggregated::evaluate(setup, pool, batch),
        Deployment::PrefillDecode {
            prefill,
            decode,
            batch,
        } => prefill_decode::evaluate(setup, prefill, decode, batch),
        Deployment::AttentionExpert {
            attention,
            experts,
            micro_batches,
            batch,
        } => attention_expert::evaluate(setup, attention, experts, micro_batches, batch),
        Deployment::Speculative {
            target,
            draft,
            batch,
        } => speculative::evaluate(setup, target, draft, batch),
    }
}
