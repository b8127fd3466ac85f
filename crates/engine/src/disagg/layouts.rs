//! Which layouts are tried for each pool role: the one statement of the layout space,
//! used by the planner ("auto" on the command line, the validation table) and by the
//! sweep (the page's frontier).
//!
//! The two searches differ on purpose, and only as written here:
//! - [`Search::Exhaustive`] (the planner): every `tp x pp x dp` factorisation of the
//!   pool's chips and, for MoE models, every expert-parallel width that divides
//!   `tp * dp`. One deployment is planned at a time, so it can afford them all.
//! - [`Search::Sweep`] (the frontier): a sweep plans tens of thousands of pools, so it
//!   keeps the layouts a serving engine would deploy: tensor parallelism inside one
//!   scale-up domain, pipeline stages (1, 2, 4 or 8; on an SRAM chip any depth up to
//!   one layer per stage) only once tensor parallelism fills the domain or the pool, and expert parallelism either off or across the
//!   whole pool. A prefill pool is enumerated as one replica, which the sweep
//!   replicates to balance the decode pool; a separate draft pool takes the widest
//!   tensor parallelism its heads allow inside one domain.
//!
//! Every sweep layout is a planner layout (tested), so the frontier never shows a
//! deployment the planner could not have chosen.

use super::PoolRole;
use crate::catalogue::{Chip, MemoryKind};
use crate::model::ModelIr;
use crate::parallel::{divisors, Parallelism};

/// How widely to search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Search {
    /// Every factorisation (the planner).
    Exhaustive,
    /// The layouts a serving engine deploys (the sweep).
    Sweep,
}

/// The layouts tried for a pool of `chips` chips of `chip` in `role`. `model` is what
/// the pool runs: the target, or the draft model for a draft pool. Sweep layouts are
/// all valid for `model`; exhaustive ones may not be, and the planner reports why.
pub fn pool_layouts(
    model: &ModelIr,
    role: PoolRole,
    chip: &Chip,
    chips: u32,
    search: Search,
) -> Vec<Parallelism> {
    pool_layouts_with(model, role, chip, chips, search, 0)
}

/// [`pool_layouts`] with `redundant` expert slots: the sweep's expert-parallel widths
/// are those that divide the slots ([`Parallelism::validate_with`]).
pub fn pool_layouts_with(
    model: &ModelIr,
    role: PoolRole,
    chip: &Chip,
    chips: u32,
    search: Search,
    redundant: u32,
) -> Vec<Parallelism> {
    match (role, search) {
        (PoolRole::Experts, _) => vec![expert_layout(chips)],
        (PoolRole::Attention, Search::Exhaustive) => divisors(chips)
            .into_iter()
            .map(|tp| attention_layout(tp, chips))
            .collect(),
        (PoolRole::Attention, Search::Sweep) => divisors(chips)
            .into_iter()
            .filter(|&tp| tp <= chip.scale_up_domain.max(1))
            .map(|tp| attention_layout(tp, chips))
            .collect(),
        (PoolRole::Draft, Search::Exhaustive) => every_layout(model, chips)
            .into_iter()
            .filter(|p| p.ep == 1)
            .collect(),
        (PoolRole::Draft, Search::Sweep) => {
            draft_pool_layout(model, chip, chips).into_iter().collect()
        }
        (PoolRole::Prefill, Search::Sweep) => served_layouts(model, chip, chips, redundant)
            .into_iter()
            .filter(|p| p.dp == 1)
            .collect(),
        (_, Search::Exhaustive) => every_layout(model, chips),
        (_, Search::Sweep) => served_layouts(model, chip, chips, redundant),
    }
}

/// Every layout of `chips` chips, valid or not.
fn every_layout(model: &ModelIr, chips: u32) -> Vec<Parallelism> {
    let mut out = Vec::new();
    for tp in divisors(chips) {
        for pp in divisors(chips / tp) {
            let dp = chips / (tp * pp);
            let eps: Vec<u32> = if model.is_moe() {
                divisors(tp * dp)
            } else {
                vec![1]
            };
            for ep in eps {
                out.push(Parallelism { tp, pp, dp, ep });
            }
        }
    }
    out
}

/// The valid layouts a serving engine deploys on `n` chips (see the module notes).
fn served_layouts(model: &ModelIr, chip: &Chip, n: u32, redundant: u32) -> Vec<Parallelism> {
    let domain = chip.scale_up_domain.max(1);
    let mut out = Vec::new();
    for tp in divisors(n).into_iter().filter(|&t| t <= domain) {
        for pp in pipeline_depths(model, chip, n / tp) {
            if n % (tp * pp) != 0 || (pp > 1 && tp < n.min(domain)) {
                continue;
            }
            let dp = n / (tp * pp);
            let mut eps = vec![1];
            if model.is_moe() && tp * dp > 1 {
                eps.push(tp * dp);
            }
            for ep in eps {
                let par = Parallelism { tp, pp, dp, ep };
                if par.validate_with(model, n, redundant).is_ok() {
                    out.push(par);
                }
            }
        }
    }
    out
}

/// Pipeline depths a sweep tries on `rest` chips per tensor-parallel group. A GPU
/// serving engine deploys 1, 2, 4 or 8 stages; an SRAM chip holds a model only
/// across tens to hundreds of chips, layers pipelined from chip to chip (Groq's
/// GroqRack systems, Cerebras' multi-wafer inference), so it tries every depth that
/// divides `rest` up to one layer per stage: at most the divisors of `rest`.
fn pipeline_depths(model: &ModelIr, chip: &Chip, rest: u32) -> Vec<u32> {
    match chip.memory_kind {
        MemoryKind::Sram => divisors(rest)
            .into_iter()
            .filter(|&pp| pp <= model.num_layers)
            .collect(),
        MemoryKind::Dram => vec![1, 2, 4, 8],
    }
}

/// The attention pool's layout: TP inside each replica, no pipeline or expert split.
pub fn attention_layout(tp: u32, chips: u32) -> Parallelism {
    Parallelism {
        tp,
        pp: 1,
        dp: (chips / tp.max(1)).max(1),
        ep: 1,
    }
}

/// The expert pool's layout: one expert shard per chip.
pub fn expert_layout(chips: u32) -> Parallelism {
    Parallelism {
        tp: 1,
        pp: 1,
        dp: chips,
        ep: chips,
    }
}

/// A separate draft pool's layout in a sweep: the widest TP inside one domain that
/// the draft's heads allow.
fn draft_pool_layout(draft: &ModelIr, chip: &Chip, n: u32) -> Option<Parallelism> {
    divisors(n)
        .into_iter()
        .rev()
        .filter(|&t| t <= chip.scale_up_domain.max(1))
        .map(|tp| Parallelism {
            tp,
            pp: 1,
            dp: n / tp,
            ep: 1,
        })
        .find(|p| p.validate(draft, n).is_ok())
}

/// A draft model on the target's own chips: the widest TP of the target's `tp` or
/// below that the draft's heads divide into, replicated over the target's chips.
pub fn colocated_draft_layout(draft: &ModelIr, tp: u32, chips: u32) -> Parallelism {
    divisors(tp)
        .into_iter()
        .rev()
        .map(|t| Parallelism {
            tp: t,
            pp: 1,
            dp: (chips / t).max(1),
            ep: 1,
        })
        .find(|p| p.validate(draft, p.chips()).is_ok())
        .unwrap_or(Parallelism {
            tp: 1,
            pp: 1,
            dp: chips,
            ep: 1,
        })
}

/// The target's MTP layers on its own chips: its tensor parallelism, and every
/// pipeline stage's chips as replicas (the MTP layers sit after the last stage).
pub fn mtp_layout(target: Parallelism) -> Parallelism {
    Parallelism {
        pp: 1,
        dp: target.dp * target.pp,
        ..target
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogue::Catalogue;

    #[test]
    fn every_sweep_layout_is_one_the_planner_could_choose() {
        let cat = Catalogue::builtin();
        let roles = [
            PoolRole::Colocated,
            PoolRole::Prefill,
            PoolRole::Decode,
            PoolRole::Target,
            PoolRole::Attention,
            PoolRole::Experts,
            PoolRole::Draft,
        ];
        let mut compared = 0;
        for model in [
            "llama-3.3-70b",
            "deepseek-v3",
            "qwen3-30b-a3b",
            "llama-3.2-1b",
        ] {
            let ir = &cat.model(model).unwrap().ir;
            for chip in ["h100-sxm", "mi300x", "gb200", "l40s"] {
                let chip = cat.chip(chip).unwrap();
                for n in [1, 2, 4, 8, 16, 64, 256] {
                    for role in roles {
                        let all = pool_layouts(ir, role, chip, n, Search::Exhaustive);
                        for par in pool_layouts(ir, role, chip, n, Search::Sweep) {
                            assert!(all.contains(&par), "{model} {role:?} {n}: {par}");
                            compared += 1;
                        }
                    }
                }
            }
        }
        assert!(compared > 500, "{compared}");
    }

    #[test]
    fn the_sweep_searches_less_and_says_how() {
        let cat = Catalogue::builtin();
        let ir = &cat.model("deepseek-v3").unwrap().ir;
        let chip = cat.chip("h200").unwrap();
        let all = pool_layouts(ir, PoolRole::Colocated, chip, 16, Search::Exhaustive);
        let swept = pool_layouts(ir, PoolRole::Colocated, chip, 16, Search::Sweep);
        assert!(swept.len() < all.len());
        // Tensor parallelism stays inside one 8-chip domain; pipelines only at full TP;
        // experts off or across the pool.
        for p in &swept {
            assert!(p.tp <= 8);
            assert!(p.pp == 1 || p.tp == 8);
            assert!(p.ep == 1 || p.ep == p.tp * p.dp);
        }
        // A prefill unit is one replica.
        for p in pool_layouts(ir, PoolRole::Prefill, chip, 16, Search::Sweep) {
            assert_eq!(p.dp, 1);
        }
    }
}
