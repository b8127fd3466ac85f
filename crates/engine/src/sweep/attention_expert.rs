//! Attention/expert pairings: attention pools at every batch and micro-batch depth,
//! expert pools whose size divides the experts, every pair of chips.

use super::collect::Collector;
use super::space::{batch_limit, pool_sizes, MICRO_BATCHES};
use crate::catalogue::Chip;
use crate::disagg::attention_expert::{self as af, prefill_prompts, AttentionSide, ExpertSide};
use crate::disagg::layouts::{expert_layout, pool_layouts, Search};
use crate::disagg::{Deployment, PoolConfig, PoolRole, Reject, Setup};
use crate::kernel::StepShape;
use std::collections::HashMap;

struct AttentionEntry<'a> {
    pool: PoolConfig<'a>,
    batch: u32,
    micro_batches: u32,
    decode: AttentionSide<'a>,
    prefill: AttentionSide<'a>,
    prompts: f64,
}

fn attention_entries<'a>(
    setup: &Setup<'a>,
    chip: &'a Chip,
    max: u32,
    col: &mut Collector<'a>,
) -> Vec<AttentionEntry<'a>> {
    let ctx = setup.workload.mean_decode_context();
    let workload = setup.workload;
    let mut out = Vec::new();
    for n in pool_sizes(max.saturating_sub(1)) {
        for parallelism in pool_layouts(setup.model, PoolRole::Attention, chip, n, Search::Sweep) {
            let pool = PoolConfig { chip, parallelism };
            let decode = |s: f64| StepShape::decode(s, ctx);
            let probe = match af::attention_side(setup, pool, 1, 1, decode) {
                Ok(p) => p,
                Err(r) => {
                    col.reject(r);
                    continue;
                }
            };
            if probe.fit.is_some() {
                col.reject(Reject::WeightsDoNotFit);
                continue;
            }
            let dp = pool.parallelism.dp;
            let mut prefills: HashMap<u32, AttentionSide<'a>> = HashMap::new();
            let batches =
                match col
                    .batch
                    .under(batch_limit(setup, pool.chip, probe.max_seqs as u64, dp))
                {
                    Ok(b) => b,
                    Err(r) => {
                        col.reject(r);
                        continue;
                    }
                };
            for b in batches {
                for m in MICRO_BATCHES.into_iter().filter(|&m| m <= b) {
                    let Ok(a) = af::attention_side(setup, pool, b, m, decode) else {
                        continue;
                    };
                    if a.fit.is_some() {
                        col.reject(Reject::BatchDoesNotFit);
                        continue;
                    }
                    col.costed();
                    let prompts = prefill_prompts(setup, pool.chip, a.seqs_per_replica);
                    let key = prompts.ceil() as u32;
                    let prefill = match prefills.get(&key) {
                        Some(p) => *p,
                        None => {
                            let Ok(p) = af::attention_side(setup, pool, key, 1, |s| {
                                workload.prefill_shape(s)
                            }) else {
                                continue;
                            };
                            prefills.insert(key, p);
                            p
                        }
                    };
                    out.push(AttentionEntry {
                        pool,
                        batch: b,
                        micro_batches: m,
                        decode: a,
                        prefill,
                        prompts,
                    });
                }
            }
        }
    }
    out
}

/// Expert pools of one chip, their sides cached by (chips, batch, micro-batches).
struct ExpertPools<'a> {
    chip: &'a Chip,
    sizes: Vec<u32>,
    decode: HashMap<(u32, u32, u32), Option<ExpertSide<'a>>>,
    prefill: HashMap<(u32, u32), Option<ExpertSide<'a>>>,
}

impl<'a> ExpertPools<'a> {
    fn new(setup: &Setup<'a>, chip: &'a Chip, max: u32, col: &mut Collector<'a>) -> Self {
        let ctx = setup.workload.mean_decode_context();
        let mut sizes = Vec::new();
        for n in pool_sizes(max.saturating_sub(1)) {
            let pool = PoolConfig {
                chip,
                parallelism: expert_layout(n),
            };
            match af::expert_side(setup, pool, 1, 1, |s| StepShape::decode(s, ctx)) {
                Ok(e) if e.fit.is_none() => {
                    col.costed();
                    sizes.push(n);
                }
                Ok(_) => col.reject(Reject::WeightsDoNotFit),
                Err(r) => col.reject(r),
            }
        }
        ExpertPools {
            chip,
            sizes,
            decode: HashMap::new(),
            prefill: HashMap::new(),
        }
    }

    fn pool(&self, n: u32) -> PoolConfig<'a> {
        PoolConfig {
            chip: self.chip,
            parallelism: expert_layout(n),
        }
    }

    fn decode(&mut self, setup: &Setup<'a>, n: u32, b: u32, m: u32) -> Option<ExpertSide<'a>> {
        let pool = self.pool(n);
        let ctx = setup.workload.mean_decode_context();
        *self.decode.entry((n, b, m)).or_insert_with(|| {
            af::expert_side(setup, pool, b, m, |s| StepShape::decode(s, ctx)).ok()
        })
    }

    fn prefill(&mut self, setup: &Setup<'a>, n: u32, prompts: u32) -> Option<ExpertSide<'a>> {
        let pool = self.pool(n);
        let workload = setup.workload;
        *self.prefill.entry((n, prompts)).or_insert_with(|| {
            af::expert_side(setup, pool, prompts, 1, |s| workload.prefill_shape(s)).ok()
        })
    }
}

pub(super) fn sweep<'a>(setup: &Setup<'a>, chips: &[&'a Chip], max: u32, col: &mut Collector<'a>) {
    let attention: Vec<_> = chips
        .iter()
        .map(|c| attention_entries(setup, c, max, col))
        .collect();
    let mut experts: Vec<ExpertPools> = chips
        .iter()
        .map(|c| ExpertPools::new(setup, c, max, col))
        .collect();
    for attention_entries in &attention {
        for pools in experts.iter_mut() {
            let sizes = pools.sizes.clone();
            for a in attention_entries {
                for &n in sizes.iter().filter(|&&n| n + a.pool.chips() <= max) {
                    let Some(e) = pools.decode(setup, n, a.batch, a.micro_batches) else {
                        continue;
                    };
                    let Some(pe) = pools.prefill(setup, n, a.prompts.ceil() as u32) else {
                        continue;
                    };
                    let sides = af::Sides {
                        attention: a.decode,
                        experts: e,
                        prefill_attention: a.prefill,
                        prefill_experts: pe,
                        prompts_per_prefill: a.prompts,
                    };
                    let ep = pools.pool(n);
                    let f = af::combine(setup, a.pool, ep, a.micro_batches, a.batch, &sides);
                    col.push(
                        Deployment::AttentionExpert {
                            attention: a.pool,
                            experts: ep,
                            micro_batches: a.micro_batches,
                            batch: a.batch,
                        },
                        f,
                    );
                }
            }
            col.flush();
        }
    }
}
