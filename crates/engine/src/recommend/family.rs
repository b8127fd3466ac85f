//! Why a chip kind has no deployment that meets the SLO at the demand: memory, TTFT,
//! TPOT, the link between pools, no price, or more chips than the bound allows. Read
//! from the outcomes of the kind's own (single-kind) layouts.

use super::replicas::{link_share, Outcome};
use super::{Entry, RecommendRequest};
use crate::catalogue::Chip;
use crate::cost::CostBasis;
use crate::disagg::{DeploymentPoint, DeploymentSpec, Limiter, Setup};
use crate::sweep::{closest_miss, Slo};
use serde::{Deserialize, Serialize};

/// The kind of failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FailKind {
    /// The model does not fit within one replica's chips.
    Memory,
    /// Every deployment that carries the demand misses the TTFT limit.
    Ttft,
    /// Every deployment that carries the demand misses the TPOT limit.
    Tpot,
    /// The limit missed is spent on the link between pools.
    Link,
    /// It meets the SLO, but the chip has no public price to rank it by.
    NoPrice,
    /// Carrying the demand takes more chips than the bound.
    TooManyChips,
    /// Nothing could be evaluated on this chip (the engine's message says why).
    Unavailable,
}

impl FailKind {
    pub fn name(self) -> &'static str {
        match self {
            FailKind::Memory => "memory",
            FailKind::Ttft => "TTFT",
            FailKind::Tpot => "TPOT",
            FailKind::Link => "link",
            FailKind::NoPrice => "no price",
            FailKind::TooManyChips => "too many chips",
            FailKind::Unavailable => "unavailable",
        }
    }
}

/// One chip kind left out, and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FamilyReject {
    pub chip: String,
    pub chip_name: String,
    pub kind: FailKind,
    pub reason: String,
}

fn on_chip(spec: &DeploymentSpec, id: &str) -> bool {
    spec.pools.iter().all(|p| p.chip == id)
}

/// The TTFT (or TPOT) the limits bound, mean or p90, in milliseconds.
fn ms(slo: &Slo, point: &DeploymentPoint, ttft: bool) -> f64 {
    if ttft {
        slo.ttft_of(&point.figures).ms()
    } else {
        slo.tpot_of(&point.figures).ms()
    }
}

/// The reasons of every chip kind with no ranked deployment.
pub(super) fn reasons(
    setup: &Setup,
    req: &RecommendRequest,
    chips: &[&Chip],
    budget: u32,
    outcomes: &[(DeploymentSpec, Outcome)],
    best: &[Entry],
) -> Vec<FamilyReject> {
    chips
        .iter()
        .filter_map(|chip| {
            let (kind, reason) = reason(setup, req, chip, budget, outcomes, best)?;
            Some(FamilyReject {
                chip: chip.id.clone(),
                chip_name: chip.name.clone(),
                kind,
                reason,
            })
        })
        .collect()
}

fn reason(
    setup: &Setup,
    req: &RecommendRequest,
    chip: &Chip,
    budget: u32,
    outcomes: &[(DeploymentSpec, Outcome)],
    best: &[Entry],
) -> Option<(FailKind, String)> {
    let uses = |e: &&Entry| e.spec.pools.iter().any(|p| p.chip == chip.id);
    if best
        .iter()
        .filter(uses)
        .any(|e| super::usd_per_mtok(e).is_some())
    {
        return None;
    }
    if let Some(e) = best.iter().filter(uses).min_by_key(|e| e.total_chips) {
        let missing = match e.figures.cost_basis {
            CostBasis::Rental => "no public price per hour",
            CostBasis::Ownership => "no purchase price (give one per chip)",
        };
        return Some((
            FailKind::NoPrice,
            format!(
                "meets the SLO with {} chips ({} x {}), but has {missing} to rank by $/Mtok",
                e.total_chips, e.replicas, e.label
            ),
        ));
    }
    let own: Vec<&Outcome> = outcomes
        .iter()
        .filter(|(spec, _)| on_chip(spec, &chip.id))
        .map(|(_, o)| o)
        .collect();
    if own.is_empty() {
        let miss = closest_miss(setup, chip, budget).unwrap_or_else(|| {
            format!("does not fit: no layout of up to {budget} chips holds the model")
        });
        return Some((FailKind::Memory, miss));
    }
    let misses: Vec<&DeploymentPoint> = own
        .iter()
        .filter_map(|o| match o {
            Outcome::Misses { at_most, .. } => Some(&at_most.point),
            _ => None,
        })
        .collect();
    if misses.is_empty() {
        let needs = own
            .iter()
            .filter_map(|o| match o {
                Outcome::TooManyChips { needs_chips } => Some(*needs_chips),
                _ => None,
            })
            .min();
        return Some(match needs {
            Some(n) => (
                FailKind::TooManyChips,
                format!(
                    "carrying the demand takes at least {n} chips; the bound is {}",
                    req.max_chips
                ),
            ),
            None => (
                FailKind::Unavailable,
                own.iter()
                    .find_map(|o| match o {
                        Outcome::Failed(m) => Some(m.clone()),
                        _ => None,
                    })
                    .unwrap_or_else(|| "no deployment could be evaluated".into()),
            ),
        });
    }
    let lowest = |ttft: bool| {
        misses
            .iter()
            .copied()
            .min_by(|a, b| ms(&req.slo, a, ttft).total_cmp(&ms(&req.slo, b, ttft)))
    };
    let limit = |t: Option<crate::units::Seconds>| t.map_or(f64::INFINITY, |t| t.ms());
    let (ttft_limit, tpot_limit) = (limit(req.slo.ttft), limit(req.slo.tpot));
    let best_tpot = lowest(false)?;
    if ms(&req.slo, best_tpot, false) > tpot_limit {
        let link = best_tpot.figures.limiter == Limiter::InterPoolLink;
        return Some((
            if link { FailKind::Link } else { FailKind::Tpot },
            format!(
                "{} at best {:.1} ms ({}{}) over the {} ms limit{}",
                req.slo.at.name("TPOT"),
                ms(&req.slo, best_tpot, false),
                best_tpot.label,
                replicas_note(best_tpot),
                fmt_limit(tpot_limit),
                if link {
                    ", held back by the link between pools"
                } else {
                    ""
                }
            ),
        ));
    }
    let best_ttft = lowest(true)?;
    if ms(&req.slo, best_ttft, true) > ttft_limit {
        let link = link_share(best_ttft) > 0.5;
        return Some((
            if link { FailKind::Link } else { FailKind::Ttft },
            format!(
                "{} at best {:.0} ms ({}{}) over the {} ms limit{}",
                req.slo.at.name("TTFT"),
                ms(&req.slo, best_ttft, true),
                best_ttft.label,
                replicas_note(best_ttft),
                fmt_limit(ttft_limit),
                if link {
                    format!(
                        ", {:.0} ms of it waiting for the KV cache on the link between pools",
                        best_ttft.ttft.parts.transfer.ms()
                    )
                } else {
                    String::new()
                }
            ),
        ));
    }
    // Some meet one limit and some the other, none both.
    let within_tpot = misses
        .iter()
        .filter(|p| ms(&req.slo, p, false) <= tpot_limit)
        .map(|p| ms(&req.slo, p, true))
        .fold(f64::INFINITY, f64::min);
    Some((
        FailKind::Ttft,
        format!(
            "no deployment meets both limits: those within the TPOT limit take at least {within_tpot:.0} ms to the first token (limit {} ms)",
            fmt_limit(ttft_limit)
        ),
    ))
}

fn replicas_note(p: &DeploymentPoint) -> String {
    format!(", {} concurrent requests a replica", p.figures.running)
}

fn fmt_limit(ms: f64) -> String {
    crate::sweep::fmt_num(ms)
}
