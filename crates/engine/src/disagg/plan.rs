//! The planner: what the user left open for one deployment on any axis, each pool's
//! layout ("auto") and, for `--max-throughput`, the batch.
//!
//! Every combination of the pools' layouts ([`pool_layouts`], exhaustive search) is
//! evaluated. With the batch open, each combination takes the largest batch that
//! fits, found by doubling then bisection, capped by the engine's batch limit. Of the
//! combinations that fit, the winner is the one with
//! 1. the highest output tok/s, then
//! 2. the highest tok/s per user, then
//! 3. the lowest TTFT, then
//! 4. the fewest pipeline stages, then the narrowest expert parallelism, summed over
//!    the pools (the simpler deployment of two that perform alike),
//!
//! and the first enumerated of exact ties. When nothing fits, the combination that
//! misses by the least memory (on its most overfull chip; the first of ties) is
//! returned at batch 1, with the reason it does not fit.

use super::layouts::{pool_layouts, pool_layouts_with, Search};
use super::{evaluate, Axis, Deployment, DeploymentPoint, PoolConfig, PoolRole, Setup};
use crate::catalogue::Chip;
use crate::error::{EngineError, Result};
use crate::limits::MAX_BATCH;
use crate::model::ModelIr;
use crate::parallel::Parallelism;
use std::cmp::Ordering;

/// Most combinations of pool layouts the planner evaluates (each at its largest batch
/// when the batch is open). Past it the planner searches the deployable layouts only,
/// and past that again it asks for a stated layout.
pub const MAX_PLAN_COMBINATIONS: usize = 1024;

/// A pool as the user gave it: the layout may be left to the planner.
#[derive(Clone, Copy, Debug)]
pub struct PoolChoice<'a> {
    pub chip: &'a Chip,
    pub chips: u32,
    pub parallelism: Option<Parallelism>,
}

fn candidates(
    model: &ModelIr,
    draft: Option<&ModelIr>,
    role: PoolRole,
    c: &PoolChoice,
) -> Vec<Parallelism> {
    if let Some(p) = c.parallelism {
        return vec![p];
    }
    let runs = match role {
        PoolRole::Draft => draft.unwrap_or(model),
        _ => model,
    };
    pool_layouts(runs, role, c.chip, c.chips, Search::Exhaustive)
}

/// The planner's order: better first (see the module notes).
fn rank(a: &DeploymentPoint, b: &DeploymentPoint) -> Ordering {
    let (fa, fb) = (&a.figures, &b.figures);
    let simplicity = |p: &DeploymentPoint| {
        p.pools
            .iter()
            .map(|x| (x.parallelism.pp, x.parallelism.ep))
            .fold((0, 0), |(pp, ep), (p, e)| (pp + p, ep + e))
    };
    fb.output_tok_s
        .total_cmp(&fa.output_tok_s)
        .then(fb.tok_s_user.total_cmp(&fa.tok_s_user))
        .then(fa.ttft.0.total_cmp(&fb.ttft.0))
        .then(simplicity(a).cmp(&simplicity(b)))
}

fn build<'a>(
    axis: Axis,
    pools: &[(PoolRole, PoolConfig<'a>)],
    batch: u32,
    micro_batches: u32,
) -> Deployment<'a> {
    let get = |role: PoolRole| pools.iter().find(|(r, _)| *r == role).map(|(_, p)| *p);
    match axis {
        Axis::Aggregated => Deployment::Aggregated {
            pool: get(PoolRole::Colocated).unwrap_or(pools[0].1),
            batch,
        },
        Axis::PrefillDecode => Deployment::PrefillDecode {
            prefill: get(PoolRole::Prefill).unwrap_or(pools[0].1),
            decode: get(PoolRole::Decode).unwrap_or(pools[0].1),
            batch,
        },
        Axis::AttentionExpert => Deployment::AttentionExpert {
            attention: get(PoolRole::Attention).unwrap_or(pools[0].1),
            experts: get(PoolRole::Experts).unwrap_or(pools[0].1),
            micro_batches,
            batch,
        },
        Axis::Speculative => Deployment::Speculative {
            target: get(PoolRole::Target).unwrap_or(pools[0].1),
            draft: get(PoolRole::Draft),
            batch,
        },
    }
}

/// How far a point's most overfull chip is over its memory (0 when every pool fits).
fn shortfall(p: &DeploymentPoint) -> f64 {
    p.pools
        .iter()
        .map(|r| r.memory.total.0 - (r.memory.fast_capacity.0 + r.memory.cold_capacity.0))
        .fold(0.0, f64::max)
}

/// The largest batch for which `eval` fits (0 when not even batch 1 fits).
fn largest_fitting(eval: impl Fn(u32) -> Option<bool>) -> u32 {
    if eval(1) != Some(true) {
        return 0;
    }
    let mut lo = 1u32;
    let mut hi = 2u32;
    while hi <= MAX_BATCH && eval(hi) == Some(true) {
        lo = hi;
        hi = hi.saturating_mul(2);
    }
    let mut hi = hi.min(MAX_BATCH + 1);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if eval(mid) == Some(true) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Plans the open layouts (and the batch when `batch` is `None`) and evaluates the
/// winner. The error lists why nothing works when nothing does.
pub fn plan<'a>(
    setup: &Setup<'a>,
    axis: Axis,
    pools: &[(PoolRole, PoolChoice<'a>)],
    batch: Option<u32>,
    micro_batches: u32,
) -> Result<(Deployment<'a>, DeploymentPoint)> {
    if pools.is_empty() {
        return Err(EngineError::InvalidInput(
            "a deployment needs a pool".into(),
        ));
    }
    // Checked before enumerating: a pool of no chips has no layouts to try.
    for (role, c) in pools {
        super::check_pool_chips(*role, c.chips)?;
    }
    // Every input is checked before the search, which may be long.
    setup.validate()?;
    let draft_ir = match setup.speculation.draft {
        super::Draft::Model { ir, .. } => Some(ir),
        super::Draft::Mtp | super::Draft::Eagle { .. } => None,
    };
    let mut first_invalid: Option<EngineError> = None;
    let mut options_of = |search: Search| -> Vec<Vec<Parallelism>> {
        pools
            .iter()
            .map(|(role, c)| {
                let runs = match role {
                    PoolRole::Draft => draft_ir.unwrap_or(setup.model),
                    _ => setup.model,
                };
                let all = match (c.parallelism, search) {
                    (Some(p), _) => return vec![p],
                    (None, Search::Exhaustive) => candidates(setup.model, draft_ir, *role, c),
                    // The sweep enumerates a prefill pool as one replica it then
                    // replicates; the planner places the whole pool, as a decode pool's.
                    (None, Search::Sweep) => {
                        let as_role = match role {
                            PoolRole::Prefill => PoolRole::Decode,
                            r => *r,
                        };
                        pool_layouts_with(
                            runs,
                            as_role,
                            c.chip,
                            c.chips,
                            search,
                            setup.assumptions.redundant_experts,
                        )
                    }
                };
                // Layouts the model cannot take never win; the first one's reason is
                // kept for when nothing works.
                all.into_iter()
                    .filter(|p| {
                        *role == PoolRole::Experts
                            || match p.validate_with(
                                runs,
                                c.chips,
                                setup.assumptions.redundant_experts,
                            ) {
                                Ok(()) => true,
                                Err(e) => {
                                    first_invalid.get_or_insert(e);
                                    false
                                }
                            }
                    })
                    .collect()
            })
            .collect()
    };
    let combinations = |options: &[Vec<Parallelism>]| {
        options
            .iter()
            .fold(1usize, |n, o| n.saturating_mul(o.len()))
    };
    let mut options = options_of(Search::Exhaustive);
    let mut note = None;
    if combinations(&options) > MAX_PLAN_COMBINATIONS {
        let every = combinations(&options);
        options = options_of(Search::Sweep);
        note = Some(format!(
            "the pools' layouts make {every} combinations: the planner tried the {} deployable ones (tensor parallelism inside one scale-up domain; state a pool's layout to choose another)",
            combinations(&options)
        ));
        if combinations(&options) > MAX_PLAN_COMBINATIONS {
            return Err(EngineError::InvalidInput(format!(
                "the pools' layouts make {} combinations even among the deployable ones, more than the {MAX_PLAN_COMBINATIONS} the planner tries; state a pool's layout (--prefill-tp, --decode-tp, --attn-tp, --tp)",
                combinations(&options)
            )));
        }
    }
    if let Some(e) = first_invalid.take() {
        if options.iter().any(Vec::is_empty) {
            return Err(e);
        }
    }
    let mut best: Option<(Deployment<'a>, DeploymentPoint)> = None;
    let mut last_error: Option<EngineError> = None;
    let mut unfit: Option<(Deployment<'a>, DeploymentPoint)> = None;
    let mut index = vec![0usize; pools.len()];
    'combos: loop {
        let chosen: Vec<(PoolRole, PoolConfig<'a>)> = pools
            .iter()
            .zip(&index)
            .enumerate()
            .map(|(k, ((role, c), &i))| {
                (
                    *role,
                    PoolConfig {
                        chip: c.chip,
                        parallelism: options[k][i],
                    },
                )
            })
            .collect();
        let valid_counts = chosen
            .iter()
            .zip(pools)
            .all(|((_, p), (_, c))| p.chips() == c.chips);
        if valid_counts {
            let b = match batch {
                Some(b) => b,
                None => {
                    // The pool that holds the sequences bounds the batch.
                    let generating = build(axis, &chosen, 1, micro_batches).generating_pool();
                    let engine_limit = setup
                        .assumptions
                        .on_chip(generating.chip)
                        .engine_batch_limit(generating.parallelism.dp);
                    let fit = |b: u32| {
                        evaluate(setup, &build(axis, &chosen, b, micro_batches))
                            .ok()
                            .map(|p| p.fits)
                    };
                    // Nothing fits: batch 1 still says why.
                    (largest_fitting(fit) as u64).clamp(1, engine_limit) as u32
                }
            };
            {
                let d = build(axis, &chosen, b, micro_batches);
                match evaluate(setup, &d) {
                    Ok(p) if p.fits => {
                        let better = best
                            .as_ref()
                            .is_none_or(|(_, q)| rank(&p, q) == Ordering::Less);
                        if better {
                            best = Some((d, p));
                        }
                    }
                    Ok(p) => {
                        let closer = unfit
                            .as_ref()
                            .is_none_or(|(_, q)| shortfall(&p) < shortfall(q));
                        if closer {
                            unfit = Some((d, p));
                        }
                    }
                    Err(e) => last_error = Some(e),
                }
            }
        }
        // Next combination, odometer style.
        for k in 0..index.len() {
            index[k] += 1;
            if index[k] < options[k].len() {
                continue 'combos;
            }
            index[k] = 0;
        }
        break;
    }
    if let (Some(note), Some((_, point))) = (note, best.as_mut().or(unfit.as_mut())) {
        point.warnings.push(note);
    }
    best.or(unfit).ok_or_else(|| {
        last_error.unwrap_or_else(|| {
            EngineError::InvalidParallelism(
                "no layout of these pools fits even one sequence; add chips or use a narrower weight dtype".into(),
            )
        })
    })
}
