//! Sweeps: every homogeneous and heterogeneous split of a chip list along one axis,
//! the frontiers they draw, and the callout (model-spec section 7).
//!
//! A sweep costs each *side* of a deployment once (a decode pool at a batch, a prefill
//! unit, an attention pool, an expert pool, a draft) and then combines sides pair by
//! pair with the same `combine` functions the single-point path uses, so that a point
//! of a sweep and the same deployment predicted alone agree to the last digit. Within
//! each chip pairing only the points on that pairing's frontiers are kept; the global
//! frontiers are drawn from those.
//!
//! What is enumerated (see `audit/AUDIT.md`, "Sweep space"):
//! - pool sizes: powers of two up to the chip budget;
//! - layouts: TP within one scale-up domain, pipeline stages only once TP fills the
//!   domain (or the pool), EP either off or across the whole pool for MoE models;
//! - batches: powers of two up to the largest that fits (and the serving engine's
//!   per-replica limit), plus that largest batch;
//! - prefill/decode: prefill units of one replica, replicated to balance the decode
//!   pool's request rate (half, balanced, one more, double);
//! - attention/expert: 1, 2 or 3 micro-batches, expert pools whose size divides the
//!   expert count;
//! - speculative: the draft on the target's chips, or on a separate pool of 1-8 chips.

use crate::catalogue::Chip;
use crate::disagg::attention_expert::{
    self as af, attention_layout, expert_layout, prefill_prompts, AttentionSide, ExpertSide,
};
use crate::disagg::prefill_decode::{self as pd, PrefillSide};
use crate::disagg::speculative::{self as spec, DraftSide};
use crate::disagg::{
    aggregated, Axis, Deployment, DeploymentSpec, Draft, Figures, Limiter, PoolConfig, Reject,
    Setup,
};
use crate::error::{EngineError, Result};
use crate::frontier::{pareto, point_at, value_at, Objective};
use crate::kernel::StepShape;
use crate::model::ModelIr;
use crate::parallel::{divisors, Parallelism};
use crate::serving::{predict, Batch, Bottleneck, MAX_BATCH};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};

/// Largest chip budget a sweep accepts.
pub const MAX_SWEEP_CHIPS: u32 = 4096;
pub const DEFAULT_MAX_CHIPS: u32 = 64;
/// Micro-batch depths tried on the attention/expert axis.
const MICRO_BATCHES: [u32; 3] = [1, 2, 3];
/// Separate draft pools tried on the speculative axis.
const DRAFT_POOL_SIZES: [u32; 4] = [1, 2, 4, 8];

#[derive(Clone, Debug)]
pub struct SweepRequest<'a> {
    pub setup: Setup<'a>,
    pub axis: Axis,
    pub chips: Vec<&'a Chip>,
    /// Most chips of all pools together.
    pub max_chips: u32,
    /// Interactivity the callout compares at; `None` picks the middle of the range
    /// both kinds of deployment reach.
    pub target_tok_s_user: Option<f64>,
}

/// Where a point comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Class {
    /// Aggregated, one chip kind: the engine-core baseline.
    Baseline,
    /// Split along the axis, one chip kind.
    Homogeneous,
    /// Split along the axis, different chips in the pools.
    Heterogeneous,
}

impl Class {
    pub fn name(self) -> &'static str {
        match self {
            Class::Baseline => "aggregated baseline",
            Class::Homogeneous => "homogeneous",
            Class::Heterogeneous => "heterogeneous",
        }
    }
}

/// A point of a sweep: its configuration (with chip ids), a label and its figures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepPoint {
    pub spec: DeploymentSpec,
    pub label: String,
    /// "prefill on H100 SXM, decode on MI300X" or "all H200".
    pub phrase: String,
    pub class: Class,
    pub figures: Figures,
}

/// Frontiers of one objective, overall and per class; each ordered by tok/s/user.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Frontiers {
    pub all: Vec<SweepPoint>,
    pub baseline: Vec<SweepPoint>,
    /// Single-chip-kind deployments, the aggregated baseline included.
    pub homogeneous: Vec<SweepPoint>,
    pub heterogeneous: Vec<SweepPoint>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RejectCount {
    pub reason: Reject,
    pub name: String,
    pub count: u64,
}

/// The comparison at the target interactivity.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Callout {
    pub objective: Objective,
    pub target_tok_s_user: f64,
    /// The best mixed point fast enough for the target.
    pub heterogeneous: Option<SweepPoint>,
    /// The best single-chip-kind point fast enough for the target.
    pub homogeneous: Option<SweepPoint>,
    /// Each frontier read at the target by interpolation.
    pub heterogeneous_value: Option<f64>,
    pub homogeneous_value: Option<f64>,
    /// How much better the mixed frontier is at the target (0.38 = 38% more tok/s per
    /// chip, or 38% lower $/Mtok); negative when it is worse.
    pub advantage: Option<f64>,
    pub headline: String,
    pub why: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepResult {
    pub axis: Axis,
    /// Sides costed plus pairings combined.
    pub evaluated: u64,
    /// Pairings that fit and gave finite figures.
    pub feasible: u64,
    pub rejected: Vec<RejectCount>,
    pub throughput: Frontiers,
    pub cost: Frontiers,
    /// The points on each chip pairing's own frontiers: what a scatter shows.
    pub cloud: Vec<SweepPoint>,
    pub target_tok_s_user: f64,
    pub callouts: Vec<Callout>,
    pub notes: Vec<String>,
}

impl SweepResult {
    /// The frontiers of one objective.
    pub fn frontiers_of(&self, objective: Objective) -> &Frontiers {
        match objective {
            Objective::ThroughputPerChip => &self.throughput,
            Objective::CostPerMtok => &self.cost,
        }
    }
}

/// Collects candidates one chip pairing at a time, keeping each pairing's frontier.
struct Collector<'a> {
    group: Vec<(Deployment<'a>, Figures)>,
    kept: Vec<(Deployment<'a>, Figures)>,
    evaluated: u64,
    feasible: u64,
    rejected: BTreeMap<Reject, u64>,
}

impl<'a> Collector<'a> {
    fn new() -> Self {
        Collector {
            group: Vec::new(),
            kept: Vec::new(),
            evaluated: 0,
            feasible: 0,
            rejected: BTreeMap::new(),
        }
    }

    fn reject(&mut self, r: Reject) {
        self.evaluated += 1;
        *self.rejected.entry(r).or_default() += 1;
    }

    /// Counts a side that was costed and fits.
    fn costed(&mut self) {
        self.evaluated += 1;
    }

    fn push(&mut self, d: Deployment<'a>, f: Figures) {
        self.evaluated += 1;
        if f.is_finite() && f.output_tok_s > 0.0 {
            self.feasible += 1;
            self.group.push((d, f));
        }
    }

    /// Ends a pairing: keeps the points on its throughput or cost frontier.
    fn flush(&mut self) {
        let mut keep = vec![false; self.group.len()];
        for objective in Objective::ALL {
            let xy: Vec<(f64, f64)> = self
                .group
                .iter()
                .map(|(_, f)| (f.tok_s_user, objective.score(f).unwrap_or(f64::NAN)))
                .collect();
            for i in pareto(&xy) {
                keep[i] = true;
            }
        }
        for (i, item) in self.group.drain(..).enumerate() {
            if keep[i] {
                self.kept.push(item);
            }
        }
    }
}

fn pool_sizes(max: u32) -> Vec<u32> {
    std::iter::successors(Some(1u32), |n| n.checked_mul(2))
        .take_while(|&n| n <= max)
        .collect()
}

/// The layouts a sweep tries for `n` chips of `chip` (see the module notes).
fn layouts(model: &ModelIr, chip: &Chip, n: u32) -> Vec<Parallelism> {
    let domain = chip.scale_up_domain.max(1);
    let mut out = Vec::new();
    for tp in divisors(n).into_iter().filter(|&t| t <= domain) {
        for pp in [1u32, 2, 4, 8] {
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
                if par.validate(model, n).is_ok() {
                    out.push(par);
                }
            }
        }
    }
    out
}

/// Powers of two up to `max`, and `max` itself.
fn batches(max: u64) -> Vec<u32> {
    let max = max.min(MAX_BATCH as u64) as u32;
    let mut out: Vec<u32> = pool_sizes(max);
    if out.last() != Some(&max) && max > 0 {
        out.push(max);
    }
    out
}

/// Largest batch a pool of `dp` replicas takes: memory, then the engine's limit.
fn batch_limit(setup: &Setup, max_seqs_per_replica: u64, dp: u32) -> u64 {
    max_seqs_per_replica
        .saturating_mul(dp as u64)
        .min(setup.assumptions.engine_batch_limit(dp))
}

/// Runs a sweep.
pub fn sweep(req: &SweepRequest) -> Result<SweepResult> {
    let setup = &req.setup;
    setup.validate()?;
    if req.chips.is_empty() {
        return Err(EngineError::InvalidInput(
            "choose at least one chip to sweep".into(),
        ));
    }
    if req.max_chips == 0 || req.max_chips > MAX_SWEEP_CHIPS {
        return Err(EngineError::InvalidInput(format!(
            "the chip budget must lie between 1 and {MAX_SWEEP_CHIPS}"
        )));
    }
    if let Some(t) = req.target_tok_s_user {
        if !(t.is_finite() && t > 0.0) {
            return Err(EngineError::InvalidInput(
                "the target interactivity must be a positive number of tok/s/user".into(),
            ));
        }
    }
    if req.axis == Axis::AttentionExpert {
        af::require_moe(setup.model)?;
    }
    if req.axis == Axis::Speculative {
        if let Draft::Mtp = setup.speculation.draft {
            if setup.model.mtp_layers == 0 {
                return Err(EngineError::InvalidInput(
                    "this model ships no multi-token-prediction layers; choose a draft model"
                        .into(),
                ));
            }
        }
    }
    let mut chips: Vec<&Chip> = Vec::new();
    for c in &req.chips {
        if !chips.iter().any(|k| k.id == c.id) {
            chips.push(c);
        }
    }

    let mut col = Collector::new();
    let mut notes = Vec::new();
    // The aggregated baseline of every chip, on every axis.
    for chip in &chips {
        sweep_aggregated(setup, chip, req.max_chips, &mut col);
        col.flush();
    }
    match req.axis {
        Axis::Aggregated => {}
        Axis::PrefillDecode => sweep_prefill_decode(setup, &chips, req.max_chips, &mut col),
        Axis::AttentionExpert => sweep_attention_expert(setup, &chips, req.max_chips, &mut col),
        Axis::Speculative => sweep_speculative(setup, &chips, req.max_chips, &mut col),
    }
    if chips.iter().all(|c| c.price.is_none()) {
        notes.push(
            "no chip in the pool has a public price: the $/Mtok frontier is empty".to_string(),
        );
    }
    if col.feasible == 0 {
        notes.push(format!(
            "nothing fits within {} chips: raise the chip budget or choose a narrower weight dtype",
            req.max_chips
        ));
    }
    Ok(finish(req, col, notes))
}

fn sweep_aggregated<'a>(setup: &Setup<'a>, chip: &'a Chip, max: u32, col: &mut Collector<'a>) {
    for n in pool_sizes(max) {
        for par in layouts(setup.model, chip, n) {
            let pool = PoolConfig {
                chip,
                parallelism: par,
            };
            let probe = match predict(&aggregated::scenario(setup, pool, Batch::Fixed(1))) {
                Ok(p) => p,
                Err(_) => {
                    col.reject(Reject::InvalidLayout);
                    continue;
                }
            };
            if probe.max_batch == 0 {
                col.reject(Reject::WeightsDoNotFit);
                continue;
            }
            let per_replica = probe.max_batch / par.dp as u64;
            for b in batches(batch_limit(setup, per_replica, par.dp)) {
                match predict(&aggregated::scenario(setup, pool, Batch::Fixed(b))) {
                    Ok(p) if p.fits => col.push(
                        Deployment::Aggregated { pool, batch: b },
                        aggregated::figures(&p, pool),
                    ),
                    Ok(_) => col.reject(Reject::BatchDoesNotFit),
                    Err(_) => col.reject(Reject::InvalidLayout),
                }
            }
        }
    }
}

/// Decode pools of one chip at every batch that fits.
fn decode_entries<'a>(
    setup: &Setup<'a>,
    chip: &'a Chip,
    max: u32,
    col: &mut Collector<'a>,
) -> Vec<(PoolConfig<'a>, u32, pd::DecodeSide<'a>)> {
    let mut out = Vec::new();
    for n in pool_sizes(max.saturating_sub(1)) {
        for par in layouts(setup.model, chip, n) {
            let pool = PoolConfig {
                chip,
                parallelism: par,
            };
            let Ok(probe) = pd::decode_side(setup, pool, 1) else {
                col.reject(Reject::InvalidLayout);
                continue;
            };
            if probe.placed.fit.is_some() {
                col.reject(Reject::WeightsDoNotFit);
                continue;
            }
            let per_replica = probe.placed.plan.max_seqs();
            for b in batches(batch_limit(setup, per_replica, par.dp)) {
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
        for par in layouts(setup.model, chip, n)
            .into_iter()
            .filter(|p| p.dp == 1)
        {
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

fn sweep_prefill_decode<'a>(
    setup: &Setup<'a>,
    chips: &[&'a Chip],
    max: u32,
    col: &mut Collector<'a>,
) {
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
                        balanced + 1,
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
        for tp in divisors(n)
            .into_iter()
            .filter(|&t| t <= chip.scale_up_domain.max(1))
        {
            let pool = PoolConfig {
                chip,
                parallelism: attention_layout(tp, n),
            };
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
            for b in batches(batch_limit(setup, probe.max_seqs as u64, dp)) {
                for m in MICRO_BATCHES.into_iter().filter(|&m| m <= b) {
                    let Ok(a) = af::attention_side(setup, pool, b, m, decode) else {
                        continue;
                    };
                    if a.fit.is_some() {
                        col.reject(Reject::BatchDoesNotFit);
                        continue;
                    }
                    col.costed();
                    let prompts = prefill_prompts(setup, a.seqs_per_replica);
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

fn sweep_attention_expert<'a>(
    setup: &Setup<'a>,
    chips: &[&'a Chip],
    max: u32,
    col: &mut Collector<'a>,
) {
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

fn sweep_speculative<'a>(setup: &Setup<'a>, chips: &[&'a Chip], max: u32, col: &mut Collector<'a>) {
    let mtp = matches!(setup.speculation.draft, Draft::Mtp);
    // Draft pools, cached by (chip, chips, batch).
    let mut drafts: HashMap<(usize, u32, u32), Option<(PoolConfig<'a>, DraftSide)>> =
        HashMap::new();
    let draft_ir = match setup.speculation.draft {
        Draft::Model { ir, .. } => Some(ir),
        Draft::Mtp => None,
    };
    for target_chip in chips {
        for n in pool_sizes(max) {
            for par in layouts(setup.model, target_chip, n) {
                let target = PoolConfig {
                    chip: target_chip,
                    parallelism: par,
                };
                let Ok(probe) = spec::target_side(setup, target, 1, crate::units::Bytes::ZERO)
                else {
                    col.reject(Reject::InvalidLayout);
                    continue;
                };
                if probe.placed.fit.is_some() {
                    col.reject(Reject::WeightsDoNotFit);
                    continue;
                }
                let per_replica = probe.placed.plan.max_seqs();
                for b in batches(batch_limit(setup, per_replica, par.dp)) {
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
                    let Ok(t) = spec::target_side(setup, target, b, crate::units::Bytes::ZERO)
                    else {
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
                                let parallelism = spec_draft_layout(ir, draft_chip, dn)?;
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

/// A separate draft pool's layout: the widest TP inside one domain that the draft's
/// heads allow.
fn spec_draft_layout(draft: &ModelIr, chip: &Chip, n: u32) -> Option<Parallelism> {
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

fn class_of(d: &Deployment) -> Class {
    match d {
        Deployment::Aggregated { .. } => Class::Baseline,
        d if d.heterogeneous() => Class::Heterogeneous,
        _ => Class::Homogeneous,
    }
}

fn to_point(d: &Deployment, f: &Figures) -> SweepPoint {
    SweepPoint {
        spec: d.spec(),
        label: describe(d),
        phrase: d.roles_phrase(),
        class: class_of(d),
        figures: *f,
    }
}

/// A label for a deployment: its pools.
pub fn describe(d: &Deployment) -> String {
    let pools: Vec<String> = d
        .pools()
        .iter()
        .map(|(role, p)| crate::disagg::pool_label(*role, p.chip, p.parallelism))
        .collect();
    let mut label = pools.join(" + ");
    if let Deployment::AttentionExpert { micro_batches, .. } = d {
        label.push_str(&format!(", {micro_batches} micro-batches"));
    }
    if let Deployment::Speculative { draft: None, .. } = d {
        label.push_str(" (draft colocated)");
    }
    format!("{label}, batch {}", d.batch())
}

fn frontier_of(
    points: &[SweepPoint],
    objective: Objective,
    class: Option<&[Class]>,
) -> Vec<SweepPoint> {
    let chosen: Vec<&SweepPoint> = points
        .iter()
        .filter(|p| class.is_none_or(|c| c.contains(&p.class)))
        .collect();
    let xy: Vec<(f64, f64)> = chosen
        .iter()
        .map(|p| {
            (
                p.figures.tok_s_user,
                objective.score(&p.figures).unwrap_or(f64::NAN),
            )
        })
        .collect();
    pareto(&xy).into_iter().map(|i| chosen[i].clone()).collect()
}

fn frontiers(points: &[SweepPoint], objective: Objective) -> Frontiers {
    Frontiers {
        all: frontier_of(points, objective, None),
        baseline: frontier_of(points, objective, Some(&[Class::Baseline])),
        homogeneous: frontier_of(
            points,
            objective,
            Some(&[Class::Baseline, Class::Homogeneous]),
        ),
        heterogeneous: frontier_of(points, objective, Some(&[Class::Heterogeneous])),
    }
}

fn finish(req: &SweepRequest, col: Collector, notes: Vec<String>) -> SweepResult {
    let cloud: Vec<SweepPoint> = col.kept.iter().map(|(d, f)| to_point(d, f)).collect();
    let throughput = frontiers(&cloud, Objective::ThroughputPerChip);
    let cost = frontiers(&cloud, Objective::CostPerMtok);
    let target = req
        .target_tok_s_user
        .unwrap_or_else(|| default_target(&throughput));
    let callouts = vec![
        callout(req.axis, &throughput, Objective::ThroughputPerChip, target),
        callout(req.axis, &cost, Objective::CostPerMtok, target),
    ];
    SweepResult {
        axis: req.axis,
        evaluated: col.evaluated,
        feasible: col.feasible,
        rejected: col
            .rejected
            .iter()
            .map(|(r, n)| RejectCount {
                reason: *r,
                name: r.name().to_string(),
                count: *n,
            })
            .collect(),
        throughput,
        cost,
        cloud,
        target_tok_s_user: target,
        callouts,
        notes,
    }
}

/// The geometric middle of the interactivity range both the mixed and the
/// single-chip frontiers reach (of the whole frontier when one is empty).
fn default_target(f: &Frontiers) -> f64 {
    let range = |pts: &[SweepPoint]| {
        let lo = pts.first()?.figures.tok_s_user;
        let hi = pts.last()?.figures.tok_s_user;
        Some((lo, hi))
    };
    let both = match (range(&f.heterogeneous), range(&f.homogeneous)) {
        (Some((a0, a1)), Some((b0, b1))) if a0.max(b0) < a1.min(b1) => {
            Some((a0.max(b0), a1.min(b1)))
        }
        _ => None,
    };
    match both.or_else(|| range(&f.all)) {
        Some((lo, hi)) if lo > 0.0 => (lo * hi).sqrt(),
        _ => 10.0,
    }
}

fn read(
    points: &[SweepPoint],
    objective: Objective,
    target: f64,
) -> (Option<SweepPoint>, Option<f64>) {
    let xy: Vec<(f64, f64)> = points
        .iter()
        .filter_map(|p| Some((p.figures.tok_s_user, objective.value(&p.figures)?)))
        .collect();
    let xs: Vec<f64> = xy.iter().map(|p| p.0).collect();
    let best = point_at(&xs, target).map(|i| points[i].clone());
    (best, value_at(&xy, target))
}

fn fmt_value(objective: Objective, v: f64) -> String {
    match objective {
        Objective::ThroughputPerChip => format!("{} tok/s per chip", fmt_num(v)),
        Objective::CostPerMtok => format!("${:.3}/Mtok", v),
    }
}

/// A number with sensible significant digits for prose.
pub fn fmt_num(v: f64) -> String {
    if !v.is_finite() {
        return "n/a".into();
    }
    let a = v.abs();
    if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

fn callout(axis: Axis, f: &Frontiers, objective: Objective, target: f64) -> Callout {
    let (het, het_v) = read(&f.heterogeneous, objective, target);
    let (hom, hom_v) = read(&f.homogeneous, objective, target);
    let advantage = match (het_v, hom_v) {
        (Some(a), Some(b)) if b > 0.0 && a > 0.0 => Some(if objective.higher_is_better() {
            a / b - 1.0
        } else {
            1.0 - a / b
        }),
        _ => None,
    };
    let at = format!("{} tok/s/user", fmt_num(target));
    let (headline, why) = match (&het, &hom, advantage) {
        (_, _, _) if axis == Axis::Aggregated => match &hom {
            Some(h) => (
                format!(
                    "Aggregated axis: the best deployment at {at} is {}: {}.",
                    h.label,
                    fmt_value(objective, objective.value(&h.figures).unwrap_or(0.0))
                ),
                format!(
                    "Mixed deployments need a disaggregation axis. {}",
                    explain_point(h)
                ),
            ),
            None => (
                format!("No deployment reaches {at}."),
                "Lower the target interactivity or add faster chips.".into(),
            ),
        },
        (Some(h), Some(s), Some(adv)) if adv >= 0.005 => (
            format!(
                "{}: {} {} than the best homogeneous deployment ({}) at {at}.",
                capitalise(&h.phrase),
                pct(adv),
                if objective.higher_is_better() {
                    format!("more {}", objective.name())
                } else {
                    format!("lower {}", objective.name())
                },
                s.label
            ),
            format!(
                "Homogeneous: {} Mixed: {}",
                explain_point(s),
                explain_point(h)
            ),
        ),
        (Some(h), Some(s), Some(adv)) => (
            format!(
                "No mixed deployment beats the best homogeneous one at {at}: {} gives {}; the best mixed ({}) is {}.",
                s.label,
                fmt_value(objective, objective.value(&s.figures).unwrap_or(0.0)),
                h.phrase,
                if adv.abs() < 0.005 {
                    format!("on par ({:.1}% behind)", -adv * 100.0)
                } else {
                    format!("{} behind", pct(-adv))
                }
            ),
            format!(
                "Homogeneous: {} Mixed: {}",
                explain_point(s),
                explain_point(h)
            ),
        ),
        (None, Some(s), _) => (
            format!(
                "Only homogeneous deployments (one chip kind) reach {at}; the best is {}: {}.",
                s.label,
                fmt_value(objective, objective.value(&s.figures).unwrap_or(0.0))
            ),
            explain_point(s),
        ),
        (Some(h), None, _) => (
            format!(
                "Only mixed deployments reach {at}; the best is {}: {}.",
                h.label,
                fmt_value(objective, objective.value(&h.figures).unwrap_or(0.0))
            ),
            explain_point(h),
        ),
        _ => (
            if objective == Objective::CostPerMtok && f.all.is_empty() {
                "No priced deployment: $/Mtok needs chips with a public price.".into()
            } else {
                format!("No deployment reaches {at}.")
            },
            "Lower the target interactivity, raise the chip budget or add faster chips.".into(),
        ),
    };
    Callout {
        objective,
        target_tok_s_user: target,
        heterogeneous: het,
        homogeneous: hom,
        heterogeneous_value: het_v,
        homogeneous_value: hom_v,
        advantage,
        headline,
        why,
    }
}

fn pct(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

/// What holds a point back, in one sentence.
pub fn explain_point(p: &SweepPoint) -> String {
    let f = &p.figures;
    let mut s = format!(
        "{} decodes {}-bound",
        p.label,
        match f.bottleneck {
            Bottleneck::Compute => "compute",
            Bottleneck::WeightMemory => "weight-read",
            Bottleneck::KvMemory => "KV-read",
            Bottleneck::Communication => "communication",
            Bottleneck::Overhead => "overhead",
        }
    );
    if f.prefill_share > 0.005 {
        s.push_str(&format!(
            ", with {:.0}% of its time lost to prefill",
            f.prefill_share * 100.0
        ));
    }
    match f.limiter {
        Limiter::Colocated => {}
        l => s.push_str(&format!("; the {l} sets the pace")),
    }
    if f.transfer.0 > 0.0 {
        s.push_str(&format!(
            " ({:.2} ms on the inter-pool link)",
            f.transfer.ms()
        ));
    }
    s.push('.');
    s
}
