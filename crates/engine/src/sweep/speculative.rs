//! Speculative deployments: every target pool and batch, with the draft on the
//! target's chips or on a separate pool of any chip.

use super::collect::Collector;
use super::space::{pool_batches, pool_sizes, DRAFT_POOL_SIZES};
use crate::catalogue::Chip;
use crate::disagg::layouts::{pool_layouts, pool_layouts_with, Search};
use crate::disagg::speculative::{self as spec, DraftSide};
use crate::disagg::{Deployment, Draft, PoolConfig, PoolRole, Reject, Setup};
use crate::units::Bytes;
use std::collections::HashMap;

pub(super) fn sweep<'a>(setup: &Setup<'a>, chips: &[&'a Chip], max: u32, col: &mut Collector<'a>) {
    let mtp = setup.speculation.draft.on_target_chips();
    // Draft pools, cached by (chip, chips, batch).
    let mut drafts: HashMap<(usize, u32, u32), Option<(PoolConfig<'a>, DraftSide)>> =
        HashMap::new();
    let draft_ir = match setup.speculation.draft {
        Draft::Model { ir, .. } => Some(ir),
        Draft::Mtp | Draft::Eagle { .. } => None,
    };
    for target_chip in chips {
        for n in pool_sizes(max) {
            for par in pool_layouts_with(
                setup.model,
                PoolRole::Target,
                target_chip,
                n,
                Search::Sweep,
                setup.assumptions.redundant_experts,
            ) {
                let target = PoolConfig {
                    chip: target_chip,
                    parallelism: par,
                };
                let probe = spec::target_side(setup, target, 1, Bytes::ZERO);
                let batches = match pool_batches(setup, col.batch, probe, |t| &t.placed, par.dp) {
                    Ok(b) => b,
                    Err(r) => {
                        col.reject(r);
                        continue;
                    }
                };
                for b in batches {
                    // The draft on the target's own chips.
                    if let Ok(d) = spec::draft_side(setup, target, None, b) {
                        match spec::target_side(setup, target, b, d.colocated_bytes) {
                            Ok(t) if t.placed.fit.is_none() => {
                                let f = spec::combine(setup, target, None, b, &t, &d);
                                col.push(
                                    Deployment::Speculative {
                                        target,
                                        draft: None,
                                        batch: b,
                                    },
                                    f,
                                );
                            }
                            _ => col.reject(Reject::DraftDoesNotFit),
                        }
                    }
                    if mtp {
                        continue;
                    }
                    let Ok(t) = spec::target_side(setup, target, b, Bytes::ZERO) else {
                        continue;
                    };
                    if t.placed.fit.is_some() {
                        col.reject(Reject::BatchDoesNotFit);
                        continue;
                    }
                    // The draft on a pool of its own, of any chip.
                    for (ai, draft_chip) in chips.iter().enumerate() {
                        for dn in DRAFT_POOL_SIZES.into_iter().filter(|&dn| dn + n <= max) {
                            let entry = drafts.entry((ai, dn, b)).or_insert_with(|| {
                                let ir = draft_ir?;
                                let parallelism = *pool_layouts(
                                    ir,
                                    PoolRole::Draft,
                                    draft_chip,
                                    dn,
                                    Search::Sweep,
                                )
                                .first()?;
                                let pool = PoolConfig {
                                    chip: draft_chip,
                                    parallelism,
                                };
                                let d = spec::draft_side(setup, target, Some(pool), b).ok()?;
                                d.fit.is_none().then_some((pool, d))
                            });
                            let Some((pool, d)) = *entry else {
                                col.reject(Reject::DraftDoesNotFit);
                                continue;
                            };
                            let f = spec::combine(setup, target, Some(pool), b, &t, &d);
                            col.push(
                                Deployment::Speculative {
                                    target,
                                    draft: Some(pool),
                                    batch: b,
                                },
                                f,
                            );
                        }
                    }
                }
            }
        }
        col.flush();
    }
}
