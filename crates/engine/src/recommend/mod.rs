//! Recommending hardware: given a model, a workload, latency limits and a demand,
//! the deployments across the catalogue that meet the limits at that demand, ranked by
//! $/Mtok, the fewest chips that do, and why each chip kind that cannot fails
//! (`audit/MODEL.md` section 8.1).
//!
//! Nothing here is a second serving model. The candidates are the layouts on each chip
//! pairing's closed-loop frontiers (`sweep::sweep`, one chip kind at a time on every
//! axis that applies, then mixed pairings of the cheapest kinds); each is replicated
//! until its replicas, each at its share of the demand, meet the limits
//! ([`replicas`], through `open_loop::at_rate` for a rate and `evaluate` for users,
//! the paths `disagg predict --rate` and `--batch` take).
//!
//! The work is bounded before it starts: at most [`MAX_RECOMMEND_CHIP_KINDS`] chip
//! kinds, the four axes, a replica of at most [`RECOMMEND_REPLICA_CHIPS`] chips (one
//! sweep each), and per candidate at most `2 + log2(replicas)` evaluations.

pub mod demand;
mod family;
mod replicas;

pub use demand::{Demand, Load, SECONDS_PER_DAY};
pub use family::{FailKind, FamilyReject};

use crate::catalogue::{Catalogue, Chip};
use crate::disagg::{Axis, Deployment, DeploymentSpec, Draft, Figures, Setup};
use crate::error::{EngineError, Result};
use crate::limits::{MAX_RECOMMEND_CHIP_KINDS, MAX_SWEEP_CHIPS, RECOMMEND_REPLICA_CHIPS};
use crate::sweep::{sweep, Class, Slo, SweepRequest};
use crate::units::RequestsPerSecond;
use crate::validation::{bands_of, LatencyBands, ValidationReport};
use replicas::{search, Outcome, Trial};
use serde::{Deserialize, Serialize};

/// How many deployments the ranking keeps (the best of each axis and chip pairing).
pub const RANKED: usize = 20;
/// How many the fewest-chips list keeps.
pub const FEWEST: usize = 5;
/// How many chip kinds, the cheapest single-kind ones that meet the SLO, the search
/// then pairs with each other on the disaggregated axes.
pub const MIXED_KINDS: usize = 4;

/// What to recommend for.
#[derive(Clone, Debug)]
pub struct RecommendRequest<'a> {
    /// Model, workload (its `rate` is ignored: the demand says it), dtypes, assumptions.
    pub setup: Setup<'a>,
    /// The chips to search (the whole catalogue, or a user's choice).
    pub chips: Vec<&'a Chip>,
    /// The axes to search; empty: every axis that applies to the setup.
    pub axes: Vec<Axis>,
    /// TTFT and TPOT limits (its `rate` must be unset: the demand says it).
    pub slo: Slo,
    pub demand: Demand,
    /// Most chips of all replicas together.
    pub max_chips: u32,
}

/// One deployment at the demand: `replicas` independent copies of a replica, each at
/// its share of the demand.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// One replica, its batch the concurrency its share of the demand holds.
    #[serde(rename = "config")]
    pub spec: DeploymentSpec,
    /// "4x H100 SXM TP4" (one replica).
    pub label: String,
    /// "all H100 SXM", "prefill on H100 SXM, decode on MI300X".
    pub phrase: String,
    pub class: Class,
    pub replicas: u32,
    pub chips_per_replica: u32,
    pub total_chips: u32,
    /// What one replica carries.
    pub load: Load,
    /// Whether the replica meets both latency limits at that load.
    pub meets_slo: bool,
    /// One replica at its load. Latencies hold for every replica; $/Mtok and J/token
    /// for the whole deployment (the same chips per token); token rates are one
    /// replica's, `replicas` times that for all.
    #[serde(flatten)]
    pub figures: Figures,
}

impl Entry {
    /// How far off this replica's TTFT and TPOT may be: the measured error of published
    /// hold-out points like it (its chips, axis and concurrency; `validation::bands_of`).
    pub fn latency_bands(&self, report: &ValidationReport, catalogue: &Catalogue) -> LatencyBands {
        let chips = self.spec.pools.iter().map(|p| p.chip.as_str());
        LatencyBands::from_classes(bands_of(
            report,
            catalogue,
            chips,
            self.spec.axis,
            self.figures.batch,
        ))
    }
}

/// The answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Recommendation {
    pub demand: Demand,
    /// The demand in words, with how it was read.
    pub demand_read: String,
    /// The request rate it amounts to (none for users: a closed loop).
    pub rate: Option<RequestsPerSecond>,
    pub slo: Slo,
    pub max_chips: u32,
    /// The axes searched.
    pub axes: Vec<Axis>,
    /// Deployments that meet the SLO with a price, cheapest $/Mtok first (ties: fewer
    /// chips), the best of each axis and chip pairing, at most [`RANKED`].
    pub ranked: Vec<Entry>,
    /// Deployments that meet the SLO, fewest chips first (ties: cheaper), the best of
    /// each axis and chip pairing, at most [`FEWEST`]: the first is the minimum hardware.
    pub fewest_chips: Vec<Entry>,
    /// Chip kinds none of whose deployments meets the SLO at the demand, with why.
    pub rejected: Vec<FamilyReject>,
    /// Distinct deployments (layouts) tried.
    pub candidates: u64,
    /// Replica counts evaluated at their share of the demand.
    pub evaluations: u64,
    pub notes: Vec<String>,
    /// Every replica count evaluated, for checking the ranking (not serialised).
    #[serde(skip)]
    pub tried: Vec<Entry>,
}

impl Recommendation {
    /// The fewest chips that meet the SLO at the demand.
    pub fn minimum(&self) -> Option<&Entry> {
        self.fewest_chips.first()
    }
}

/// The axes that apply to a setup: aggregated and prefill/decode always,
/// attention/expert for a mixture of experts, speculative where there is a draft.
pub fn applicable_axes(setup: &Setup) -> Vec<Axis> {
    Axis::ALL
        .into_iter()
        .filter(|a| match a {
            Axis::AttentionExpert => {
                crate::disagg::attention_expert::require_moe(setup.model).is_ok()
            }
            Axis::Speculative => {
                !matches!(setup.speculation.draft, Draft::Mtp) || setup.model.mtp_layers > 0
            }
            _ => true,
        })
        .collect()
}

/// Checks the request and settles what will be searched, before any work.
fn plan<'a>(req: &RecommendRequest<'a>) -> Result<(Vec<&'a Chip>, Vec<Axis>)> {
    req.setup.validate()?;
    req.demand.validate(&req.setup.workload)?;
    req.slo.validate()?;
    if req.slo.rate.is_some() {
        return Err(EngineError::InvalidInput(
            "the SLO's rate is the demand's to say: state it as the demand".into(),
        ));
    }
    if req.max_chips == 0 || req.max_chips > MAX_SWEEP_CHIPS {
        return Err(EngineError::InvalidInput(format!(
            "the chip bound must lie between 1 and {MAX_SWEEP_CHIPS}, not {}",
            req.max_chips
        )));
    }
    let mut chips: Vec<&Chip> = Vec::new();
    for c in &req.chips {
        if !chips.iter().any(|k| k.id == c.id) {
            chips.push(c);
        }
    }
    if chips.is_empty() {
        return Err(EngineError::InvalidInput(
            "choose at least one chip to search".into(),
        ));
    }
    if chips.len() > MAX_RECOMMEND_CHIP_KINDS {
        return Err(EngineError::InvalidInput(format!(
            "a recommendation searches at most {MAX_RECOMMEND_CHIP_KINDS} chip kinds (one sweep per kind and axis); {} were given",
            chips.len()
        )));
    }
    let applicable = applicable_axes(&req.setup);
    let axes = if req.axes.is_empty() {
        applicable
    } else {
        let mut axes = Vec::new();
        for a in &req.axes {
            if !applicable.contains(a) {
                return Err(EngineError::InvalidInput(format!(
                    "the {} axis does not apply to this model and draft",
                    a.name()
                )));
            }
            if !axes.contains(a) {
                axes.push(*a);
            }
        }
        axes
    };
    Ok((chips, axes))
}

/// The recommendation for a request.
pub fn recommend(req: &RecommendRequest) -> Result<Recommendation> {
    if req.setup.workload.finite_run.is_some() {
        return Err(EngineError::InvalidInput(
            "a finite run is how a benchmark reads its rate (MLPerf Offline); recommend sizes \
             deployments for a steady demand, so it takes none"
                .into(),
        ));
    }
    let (chips, axes) = plan(req)?;
    let mut setup = req.setup;
    setup.workload.rate = None;
    let budget = req.max_chips.min(RECOMMEND_REPLICA_CHIPS);
    let mut s = Search {
        setup,
        req,
        chips: &chips,
        axes: &axes,
        budget,
        seen: Vec::new(),
        notes: Vec::new(),
        best: Vec::new(),
        outcomes: Vec::new(),
        tried: Vec::new(),
    };
    // Each chip kind alone, on every axis (a sweep holds the aggregated baseline too).
    for chip in &chips {
        s.sweep_and_try(vec![chip], false);
    }
    // Mixed pairings of the cheapest kinds that meet the SLO alone.
    let mut cheapest: Vec<&Chip> = Vec::new();
    for e in ranked(&s.best, usize::MAX) {
        let id = e.spec.pools.first().map(|p| p.chip.as_str());
        if let Some(c) = chips.iter().find(|c| Some(c.id.as_str()) == id) {
            if !cheapest.iter().any(|k| k.id == c.id) {
                cheapest.push(c);
            }
        }
    }
    cheapest.truncate(MIXED_KINDS);
    if cheapest.len() > 1 {
        s.sweep_and_try(cheapest, true);
    }
    let rejected = family::reasons(&s.setup, req, &chips, budget, &s.outcomes, &s.best);
    let (best, tried, seen) = (s.best, s.tried, s.seen.len() as u64);
    let mut notes: Vec<String> = setup.context_warning().into_iter().collect();
    notes.extend(s.notes);
    notes.push(format!(
        "replicas are independent: each serves its share of the demand with its own queue (no queue shared between them); one replica holds at most {budget} chips"
    ));
    Ok(Recommendation {
        demand: req.demand,
        demand_read: req.demand.describe(&setup.workload),
        rate: req.demand.rate(&setup.workload),
        slo: req.slo,
        max_chips: req.max_chips,
        axes,
        ranked: ranked(&best, RANKED),
        fewest_chips: fewest(&best, FEWEST),
        rejected,
        candidates: seen,
        evaluations: tried.len() as u64,
        notes,
        tried,
    })
}

/// The search's state: the layouts seen, each one's outcome and best entry.
struct Search<'r, 'a> {
    setup: Setup<'a>,
    req: &'r RecommendRequest<'a>,
    chips: &'r [&'a Chip],
    axes: &'r [Axis],
    budget: u32,
    /// Layouts already tried (batch zeroed).
    seen: Vec<DeploymentSpec>,
    /// Sweeps that could not run, said once each.
    notes: Vec<String>,
    /// The fewest replicas of each layout that meet the SLO.
    best: Vec<Entry>,
    /// Every layout's outcome, with its chip ids (for the families' reasons).
    outcomes: Vec<(DeploymentSpec, Outcome)>,
    tried: Vec<Entry>,
}

impl<'a> Search<'_, 'a> {
    /// Sweeps `chips` on the searched axes and tries each new layout on the frontiers;
    /// `mixed` keeps only the pairings of unlike chips.
    fn sweep_and_try(&mut self, chips: Vec<&'a Chip>, mixed: bool) {
        // Every sweep holds the aggregated baseline; sweep it alone only when it is
        // the only axis.
        let sweeps: Vec<Axis> = match self.axes {
            [Axis::Aggregated] => vec![Axis::Aggregated],
            axes => axes
                .iter()
                .copied()
                .filter(|a| *a != Axis::Aggregated)
                .filter(|a| !mixed || matches!(a, Axis::PrefillDecode | Axis::AttentionExpert))
                .collect(),
        };
        for axis in sweeps {
            let result = match sweep(&SweepRequest {
                setup: self.setup,
                axis,
                chips: chips.clone(),
                max_chips: self.budget,
                target_tok_s_user: None,
                slo: Slo::default(),
                batch: None,
            }) {
                Ok(r) => r,
                Err(e) => {
                    let note = format!("the {} sweep could not run: {e}", axis.name());
                    if !self.notes.contains(&note) {
                        self.notes.push(note);
                    }
                    continue;
                }
            };
            for p in &result.cloud {
                if !self.axes.contains(&p.spec.axis) || (mixed && p.class != Class::Heterogeneous) {
                    continue;
                }
                let key = DeploymentSpec {
                    batch: 0,
                    ..p.spec.clone()
                };
                if self.seen.contains(&key) {
                    continue;
                }
                self.seen.push(key.clone());
                self.try_layout(key, p.class, &p.phrase);
            }
        }
    }

    fn try_layout(&mut self, key: DeploymentSpec, class: Class, phrase: &str) {
        let lookup = |id: &str| {
            self.chips
                .iter()
                .find(|c| c.id == id)
                .copied()
                .ok_or_else(|| EngineError::InvalidInput(format!("unknown chip '{id}'")))
        };
        let Ok(deployment) = key.resolve_with(lookup) else {
            return;
        };
        let chips = deployment.chips();
        let outcome = search(
            &self.setup,
            &deployment,
            chips,
            &self.req.demand,
            &self.req.slo,
            self.req.max_chips,
        );
        let entry = |t: &Trial| entry(&deployment, t, class, phrase, chips);
        match &outcome {
            Outcome::Meets { best, tried } => {
                self.best.push(entry(best));
                self.tried.extend(tried.iter().map(entry));
            }
            Outcome::Misses { tried, .. } => self.tried.extend(tried.iter().map(entry)),
            _ => {}
        }
        self.outcomes.push((key, outcome));
    }
}

fn entry(d: &Deployment, t: &Trial, class: Class, phrase: &str, chips: u32) -> Entry {
    Entry {
        spec: d.with_batch(t.point.figures.batch).spec(),
        label: t.point.label.clone(),
        phrase: phrase.to_string(),
        class,
        replicas: t.replicas,
        chips_per_replica: chips,
        total_chips: t.replicas.saturating_mul(chips),
        load: t.load,
        meets_slo: t.meets,
        figures: t.point.figures,
    }
}

/// The deployment's $/Mtok (output) in the dollars the cost settings rank by (rental
/// unless they choose ownership, as the sweep's frontiers do), if its chips have them.
pub fn usd_per_mtok(e: &Entry) -> Option<f64> {
    e.figures.ranked_usd_per_mtok_output().map(|v| v.value())
}

/// Keeps the first entry of each axis and chip pairing, at most `n`.
fn distinct(sorted: Vec<&Entry>, n: usize) -> Vec<Entry> {
    let mut out: Vec<Entry> = Vec::new();
    for e in sorted {
        if out.len() == n {
            break;
        }
        if !out
            .iter()
            .any(|k| k.spec.axis == e.spec.axis && k.phrase == e.phrase)
        {
            out.push(e.clone());
        }
    }
    out
}

/// Priced entries meeting the SLO, cheapest first, ties to fewer chips then the label.
fn ranked(best: &[Entry], n: usize) -> Vec<Entry> {
    let mut v: Vec<&Entry> = best
        .iter()
        .filter(|e| e.meets_slo && usd_per_mtok(e).is_some())
        .collect();
    v.sort_by(|a, b| {
        let cost = |e: &Entry| usd_per_mtok(e).unwrap_or(f64::INFINITY);
        cost(a)
            .total_cmp(&cost(b))
            .then(a.total_chips.cmp(&b.total_chips))
            .then(a.label.cmp(&b.label))
    });
    distinct(v, n)
}

/// Entries meeting the SLO, fewest chips first, ties to the cheaper (unpriced last).
fn fewest(best: &[Entry], n: usize) -> Vec<Entry> {
    let mut v: Vec<&Entry> = best.iter().filter(|e| e.meets_slo).collect();
    v.sort_by(|a, b| {
        let cost = |e: &Entry| usd_per_mtok(e).unwrap_or(f64::INFINITY);
        a.total_chips
            .cmp(&b.total_chips)
            .then(cost(a).total_cmp(&cost(b)))
            .then(a.label.cmp(&b.label))
    });
    distinct(v, n)
}
