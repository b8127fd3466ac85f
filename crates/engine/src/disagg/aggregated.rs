//! The aggregated baseline: prefill and decode colocated on one pool, exactly the
//! engine core's [`predict`], seen through the common point shape.

use super::{
    pool_label, Core, DeploymentPoint, Figures, Limiter, PoolConfig, PoolReport, PoolRole, Setup,
};
use crate::error::Result;
use crate::serving::{predict, Batch, Prediction, Scenario};

/// The scenario of an aggregated pool.
pub fn scenario<'a>(setup: &Setup<'a>, pool: PoolConfig<'a>, batch: Batch) -> Scenario<'a> {
    Scenario {
        model: setup.model,
        chip: pool.chip,
        parallelism: pool.parallelism,
        weights: setup.weights,
        kv: setup.kv,
        workload: setup.workload,
        batch,
        assumptions: setup.assumptions,
    }
}

/// The common figures of an aggregated prediction.
pub fn figures(p: &Prediction, pool: PoolConfig) -> Figures {
    let prefill_share = if p.tpot.0 > 0.0 {
        (1.0 - p.decode_step.0 / p.tpot.0).clamp(0.0, 1.0)
    } else {
        0.0
    };
    Figures::new(
        Core {
            batch: p.batch,
            ttft: p.ttft,
            tpot: p.tpot,
            output_tok_s: p.output_tok_s,
            input_tok_s: p.input_tok_s,
            transfer: crate::units::Seconds::ZERO,
            bottleneck: p.bottleneck,
            limiter: Limiter::Colocated,
            prefill_share,
        },
        &[(pool.chip, pool.chips())],
    )
}

pub fn evaluate(setup: &Setup, pool: PoolConfig, batch: u32) -> Result<DeploymentPoint> {
    let p = predict(&scenario(setup, pool, Batch::Fixed(batch)))?;
    let figures = figures(&p, pool);
    Ok(DeploymentPoint {
        axis: super::Axis::Aggregated,
        heterogeneous: false,
        label: pool_label(PoolRole::Colocated, pool.chip, pool.parallelism),
        figures,
        pools: vec![PoolReport {
            role: PoolRole::Colocated,
            chip: pool.chip.id.clone(),
            chip_name: pool.chip.name.clone(),
            chips: p.chips,
            parallelism: p.parallelism,
            seqs_per_replica: p.parallelism.seqs_per_replica(p.running),
            step: p.decode_step,
            utilisation: 1.0,
            input_tok_s_per_chip: p.input_tok_s_per_chip,
            output_tok_s_per_chip: p.output_tok_s_per_chip,
            memory: p.memory,
            time: p.decode_time,
            bottleneck: p.bottleneck,
        }],
        transfer_time: crate::units::Seconds::ZERO,
        fits: p.fits,
        reason: p.reason,
        warnings: p.warnings,
    })
}
