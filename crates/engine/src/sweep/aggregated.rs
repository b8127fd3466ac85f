//! The aggregated baseline of one chip: every pool size, layout and batch.

use super::collect::Collector;
use super::space::{pool_batches, pool_sizes};
use crate::catalogue::Chip;
use crate::disagg::aggregated::{combine, side};
use crate::disagg::layouts::{pool_layouts_with, Search};
use crate::disagg::{Deployment, PoolConfig, PoolRole, Reject, Setup};

pub(super) fn sweep<'a>(setup: &Setup<'a>, chip: &'a Chip, max: u32, col: &mut Collector<'a>) {
    for n in pool_sizes(max) {
        for par in pool_layouts_with(
            setup.model,
            PoolRole::Colocated,
            chip,
            n,
            Search::Sweep,
            setup.assumptions.redundant_experts,
        ) {
            let pool = PoolConfig {
                chip,
                parallelism: par,
            };
            let probe = side(setup, pool, 1);
            let batches = match pool_batches(setup, col.batch, probe, |s| &s.placed, par.dp) {
                Ok(b) => b,
                Err(r) => {
                    col.reject(r);
                    continue;
                }
            };
            for b in batches {
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
