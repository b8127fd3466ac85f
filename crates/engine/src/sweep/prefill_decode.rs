//! Prefill/decode pairings: decode pools at every batch, prefill units replicated to
//! balance them, every pair of chips.

use super::collect::Collector;
use super::space::{pool_batches, pool_sizes};
use crate::catalogue::Chip;
use crate::disagg::layouts::{pool_layouts_with, Search};
use crate::disagg::prefill_decode::{self as pd, PrefillSide};
use crate::disagg::{Deployment, PoolConfig, PoolRole, Reject, Setup};
use crate::parallel::Parallelism;

/// Decode pools of one chip at every batch that fits.
fn decode_entries<'a>(
    setup: &Setup<'a>,
    chip: &'a Chip,
    max: u32,
    col: &mut Collector<'a>,
) -> Vec<(PoolConfig<'a>, u32, pd::DecodeSide<'a>)> {
    let mut out = Vec::new();
    for n in pool_sizes(max.saturating_sub(1)) {
        for par in pool_layouts_with(
            setup.model,
            PoolRole::Decode,
            chip,
            n,
            Search::Sweep,
            setup.assumptions.redundant_experts,
        ) {
            let pool = PoolConfig {
                chip,
                parallelism: par,
            };
            let probe = pd::decode_side(setup, pool, 1);
            let batches = match pool_batches(setup, col.batch, probe, |d| &d.placed, par.dp) {
                Ok(b) => b,
                Err(r) => {
                    col.reject(r);
                    continue;
                }
            };
            for b in batches {
                match pd::decode_side(setup, pool, b) {
                    Ok(d) if d.placed.fit.is_none() => {
                        col.costed();
                        out.push((pool, b, d));
                    }
                    Ok(d) => col.reject(d.placed.fit.unwrap_or(Reject::BatchDoesNotFit)),
                    Err(r) => col.reject(r),
                }
            }
        }
    }
    out
}

/// Prefill units (one replica) of one chip: the best layout of each size.
fn prefill_units<'a>(
    setup: &Setup<'a>,
    chip: &'a Chip,
    max: u32,
    col: &mut Collector<'a>,
) -> Vec<(PoolConfig<'a>, PrefillSide<'a>)> {
    let mut out = Vec::new();
    for n in pool_sizes(max.saturating_sub(1)) {
        let mut best: Option<(PoolConfig<'a>, PrefillSide<'a>)> = None;
        // A unit is one replica; the pool replicates it.
        for par in pool_layouts_with(
            setup.model,
            PoolRole::Prefill,
            chip,
            n,
            Search::Sweep,
            setup.assumptions.redundant_experts,
        ) {
            let pool = PoolConfig {
                chip,
                parallelism: par,
            };
            match pd::prefill_side(setup, pool) {
                Ok(p) if p.placed.fit.is_none() => {
                    col.costed();
                    if best
                        .as_ref()
                        .is_none_or(|(_, b)| p.request_rate > b.request_rate)
                    {
                        best = Some((pool, p));
                    }
                }
                Ok(p) => col.reject(p.placed.fit.unwrap_or(Reject::WeightsDoNotFit)),
                Err(r) => col.reject(r),
            }
        }
        out.extend(best);
    }
    out
}

pub(super) fn sweep<'a>(setup: &Setup<'a>, chips: &[&'a Chip], max: u32, col: &mut Collector<'a>) {
    let decodes: Vec<_> = chips
        .iter()
        .map(|c| decode_entries(setup, c, max, col))
        .collect();
    let units: Vec<_> = chips
        .iter()
        .map(|c| prefill_units(setup, c, max, col))
        .collect();
    for prefill_units in &units {
        for decode_entries in &decodes {
            for (decode, batch, d) in decode_entries {
                let room = max - decode.chips();
                for (unit, u) in prefill_units {
                    let unit_chips = unit.chips();
                    if unit_chips > room {
                        continue;
                    }
                    let balanced = (d.request_rate / u.request_rate).ceil().max(1.0) as u32;
                    let mut replicas = [
                        balanced.div_ceil(2),
                        balanced,
                        balanced.saturating_add(1),
                        balanced.saturating_mul(2),
                    ];
                    replicas.sort_unstable();
                    let mut last = 0;
                    for r in replicas {
                        if r == last || r.saturating_mul(unit_chips) > room {
                            continue;
                        }
                        last = r;
                        let prefill = PoolConfig {
                            chip: unit.chip,
                            parallelism: Parallelism {
                                dp: unit.parallelism.dp * r,
                                ..unit.parallelism
                            },
                        };
                        let p = u.replicated(r);
                        let t = pd::kv_transfer(setup, prefill, *decode, p.step);
                        let f = pd::combine(setup, prefill, *decode, *batch, &p, d, &t);
                        col.push(
                            Deployment::PrefillDecode {
                                prefill,
                                decode: *decode,
                                batch: *batch,
                            },
                            f,
                        );
                    }
                }
            }
            col.flush();
        }
    }
}
