//! The aggregated baseline of one chip: every pool size, layout and batch.

use super::collect::Collector;
use super::space::{batch_limit, batches, pool_sizes};
use crate::catalogue::Chip;
use crate::disagg::aggregated::{combine, side};
use crate::disagg::layouts::{pool_layouts, Search};
use crate::disagg::{Deployment, PoolConfig, PoolRole, Reject, Setup};

pub(super) fn sweep<'a>(setup: &Setup<'a>, chip: &'a Chip, max: u32, col: &mut Collector<'a>) {
    for n in pool_sizes(max) {
        for par in pool_layouts(setup.model, PoolRole::Colocated, chip, n, Search::Sweep) {
            let pool = PoolConfig {
                chip,
                parallelism: par,
            };
            let Ok(probe) = side(setup, pool, 1) else {
                col.reject(Reject::InvalidLayout);
                continue;
            };
            let per_replica = probe.placed.plan.max_seqs();
            if per_replica == 0 {
                col.reject(Reject::WeightsDoNotFit);
                continue;
            }
            for b in batches(batch_limit(setup, per_replica, par.dp)) {
                match side(setup, pool, b) {
                    Ok(s) if s.placed.fit.is_none() => col.push(
                        Deployment::Aggregated { pool, batch: b },
                        combine(setup, pool, b, &s),
                    ),
                    Ok(_) => col.reject(Reject::BatchDoesNotFit),
                    Err(r) => col.reject(r),
                }
            }
        }
    }
}
