//! Sweeps: every homogeneous and heterogeneous split of a chip list along one axis,
//! the frontiers they draw, and the callout (`audit/MODEL.md`, "Sweeps").
//!
//! A sweep costs each *side* of a deployment once (a decode pool at a batch, a prefill
//! unit, an attention pool, an expert pool, a draft) and then combines sides pair by
//! pair with the same `combine` functions the single-point path uses, so that a point
//! of a sweep and the same deployment predicted alone agree to the last digit. Within
//! each chip pairing only the points on that pairing's frontiers are kept; the global
//! frontiers are drawn from those.
//!
//! What is enumerated (see `audit/AUDIT.md`, "Sweep space"):
//! - pool sizes: powers of two up to the chip budget ([`space`]);
//! - layouts: the sweep's search of `disagg::layouts` (TP within one scale-up
//!   domain, pipeline stages only once TP fills the domain or the pool, EP either off
//!   or across the whole pool for MoE models);
//! - batches: powers of two up to the largest that fits (and the serving engine's
//!   per-replica limit), plus that largest batch; or only the batch the request fixes,
//!   where it fits;
//! - prefill/decode: prefill units of one replica, replicated to balance the decode
//!   pool's request rate (half, balanced, one more, double);
//! - attention/expert: 1, 2 or 3 micro-batches, expert pools whose size divides the
//!   expert count;
//! - speculative: the draft on the target's chips, or on a separate pool of 1-8 chips.
//!
//! The files: [`space`] (sizes and batches), `collect` (keeping each pairing's
//! frontier), one file per axis' enumeration, `frontiers` (the result),
//! [`callout`] (the verdict in words) and [`axes`] (every axis at one target).

mod aggregated;
mod attention_expert;
pub mod axes;
pub mod callout;
mod collect;
mod frontiers;
mod prefill_decode;
mod shown;
pub mod slo;
pub mod space;
mod speculative;

pub use axes::{compare_axes, AxisBest};
pub use callout::{distinct_whys, explain_point, fmt_num, Callout, Verdict};
pub use slo::{Slo, SloAnswer, SloAt, SloMisses, SloPick};

use crate::catalogue::Chip;
use crate::disagg::plan::{plan, PoolChoice};
use crate::disagg::{Axis, DeploymentSpec, Draft, Figures, PoolRole, Reject, Setup};
use crate::error::{EngineError, Result};
use crate::frontier::Objective;
use crate::limits::{MAX_BATCH, MAX_SWEEP_CHIPS, MAX_SWEEP_CHIP_KINDS};
use crate::units::TokensPerSecond;
use collect::Collector;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug)]
pub struct SweepRequest<'a> {
    pub setup: Setup<'a>,
    pub axis: Axis,
    pub chips: Vec<&'a Chip>,
    /// Most chips of all pools together.
    pub max_chips: u32,
    /// Interactivity the callout compares at; `None` picks the middle of the range
    /// both kinds of deployment reach.
    pub target_tok_s_user: Option<TokensPerSecond>,
    /// Limits the frontiers' points must meet (none by default).
    pub slo: Slo,
    /// Concurrent requests every point runs at; `None` sweeps batches.
    pub batch: Option<u32>,
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
    /// The class in the words the verdict uses: "mixed" for different chip kinds in the
    /// pools, "single-kind" for one (the JSON keeps the enum's own names).
    pub fn name(self) -> &'static str {
        match self {
            Class::Baseline => "aggregated baseline",
            Class::Homogeneous => "single-kind",
            Class::Heterogeneous => "mixed",
        }
    }
}

/// A point of a sweep: its configuration (with chip ids), a label and its figures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepPoint {
    #[serde(rename = "config")]
    pub spec: DeploymentSpec,
    pub label: String,
    /// "prefill on H100 SXM, decode on MI300X" or "all H200".
    pub phrase: String,
    pub class: Class,
    /// Whether the point meets the request's SLO (every point does without one).
    pub meets_slo: bool,
    #[serde(flatten)]
    pub figures: Figures,
}

/// Frontiers of one objective, overall and per class, as indices into the sweep's
/// cloud ([`SweepResult::points`]); each ordered by tok/s/user.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Frontiers {
    pub all: Vec<usize>,
    pub baseline: Vec<usize>,
    /// Single-kind deployments, the aggregated baseline included.
    pub homogeneous: Vec<usize>,
    pub heterogeneous: Vec<usize>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RejectCount {
    pub reason: Reject,
    pub name: String,
    pub count: u64,
}

/// The comparison at the target interactivity.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepResult {
    pub axis: Axis,
    /// Sides costed plus pairings combined.
    pub evaluated: u64,
    /// Pairings that fit and gave finite figures.
    pub feasible: u64,
    pub rejected: Vec<RejectCount>,
    /// The SLO the frontiers were drawn under, and how the feasible points fared.
    pub slo: Slo,
    pub slo_misses: SloMisses,
    /// The deployments that meet the SLO best, when one is set.
    pub slo_answer: Option<SloAnswer>,
    /// Frontiers of the points that meet the SLO (all points without one).
    pub throughput: Frontiers,
    pub cost: Frontiers,
    /// The points on each chip pairing's own frontiers: what a scatter shows.
    pub cloud: Vec<SweepPoint>,
    pub target_tok_s_user: TokensPerSecond,
    pub callouts: Vec<Callout>,
    pub notes: Vec<String>,
    /// The cloud's point that was added after the sweep ([`SweepResult::show`]), not
    /// kept by it: on no frontier and in no callout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shown: Option<usize>,
}

impl SweepResult {
    /// The frontiers of one objective.
    pub fn frontiers_of(&self, objective: Objective) -> &Frontiers {
        match objective {
            Objective::ThroughputPerChip => &self.throughput,
            Objective::CostPerMtok => &self.cost,
        }
    }

    /// The cloud's points at `indices` (a frontier, or a callout's pick).
    pub fn points<'a>(&'a self, indices: &'a [usize]) -> impl Iterator<Item = &'a SweepPoint> {
        indices.iter().filter_map(|&i| self.cloud.get(i))
    }
}

/// By how much the largest aggregated pool of `chip` within the budget misses, with
/// its best layout (the planner's closest miss), when even one sequence does not fit.
pub(crate) fn closest_miss(setup: &Setup<'_>, chip: &Chip, max_chips: u32) -> Option<String> {
    let chips = *space::pool_sizes(max_chips).last()?;
    let choice = PoolChoice {
        chip,
        chips,
        parallelism: None,
    };
    let (_, point) = plan(
        setup,
        Axis::Aggregated,
        &[(PoolRole::Colocated, choice)],
        Some(1),
        1,
    )
    .ok()?;
    if point.fits {
        return None;
    }
    Some(format!("{chips}x {}: {}", chip.name, point.reason?))
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
    if setup.workload.finite_run.is_some() && req.axis != Axis::Aggregated {
        return Err(crate::disagg::finite_run::not_on_this_axis());
    }
    if let Some(batch) = req.batch {
        crate::disagg::finite_run::check_batch(&setup.workload, batch)?;
    }
    if req.max_chips == 0 || req.max_chips > MAX_SWEEP_CHIPS {
        return Err(EngineError::InvalidInput(format!(
            "the chip budget must lie between 1 and {MAX_SWEEP_CHIPS}"
        )));
    }
    if let Some(t) = req.target_tok_s_user {
        if !(t.is_finite() && t.value() > 0.0) {
            return Err(EngineError::InvalidInput(
                "the target interactivity must be a positive number of tok/s/user".into(),
            ));
        }
    }
    if req.axis == Axis::AttentionExpert {
        crate::disagg::attention_expert::require_moe(setup.model)?;
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
    if chips.len() > MAX_SWEEP_CHIP_KINDS {
        return Err(EngineError::InvalidInput(format!(
            "a sweep pairs at most {MAX_SWEEP_CHIP_KINDS} chip kinds; {} were given",
            chips.len()
        )));
    }

    req.slo.validate()?;
    if let Some(b) = req.batch {
        if b == 0 || b > MAX_BATCH {
            return Err(EngineError::InvalidInput(format!(
                "the batch must lie between 1 and {MAX_BATCH}, not {b}"
            )));
        }
    }
    let mut col = Collector::new(req.slo, space::BatchChoice(req.batch));
    let mut notes: Vec<String> = setup.context_warning().into_iter().collect();
    // The aggregated baseline of every chip, on every axis.
    for chip in &chips {
        aggregated::sweep(setup, chip, req.max_chips, &mut col);
        col.flush();
    }
    match req.axis {
        Axis::Aggregated => {}
        Axis::PrefillDecode => prefill_decode::sweep(setup, &chips, req.max_chips, &mut col),
        Axis::AttentionExpert => attention_expert::sweep(setup, &chips, req.max_chips, &mut col),
        Axis::Speculative => speculative::sweep(setup, &chips, req.max_chips, &mut col),
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
        notes.extend(
            chips
                .iter()
                .filter_map(|c| closest_miss(setup, c, req.max_chips)),
        );
    } else if req.slo.is_set() && col.misses.met == 0 {
        notes.push(format!(
            "no deployment meets the SLO: of {} that fit, {} miss the {} limit and {} the {} limit{}",
            col.feasible,
            col.misses.ttft,
            req.slo.at.name("TTFT"),
            col.misses.tpot,
            req.slo.at.name("TPOT"),
            match col.misses.rate {
                0 => String::new(),
                n => format!(", {n} cannot carry the request rate"),
            }
        ));
    }
    Ok(frontiers::finish(req, col, notes))
}
