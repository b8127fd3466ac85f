//! Service-level objectives a sweep's deployments must meet: limits on TTFT and TPOT,
//! and an open loop's request rate to carry. Points that miss them stay in the cloud,
//! marked, and the frontiers and the callout are drawn from the points that meet them.

use super::callout::{fmt_num, fmt_value, pct};
use super::SweepPoint;
use crate::disagg::Figures;
use crate::error::{EngineError, Result};
use crate::frontier::Objective;
use crate::units::{Seconds, TokensPerSecond};
use serde::{Deserialize, Serialize};

/// Which of a point's TTFT and TPOT the limits bound: the mean over requests, or the
/// request at the 0.9 quantile (`Figures::ttft_p90`, `Figures::tpot_p90`; `audit/MODEL.md`
/// 6.1), as service-level objectives are usually written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SloAt {
    #[default]
    Mean,
    P90,
}

impl SloAt {
    pub const ALL: [SloAt; 2] = [SloAt::Mean, SloAt::P90];

    pub fn id(self) -> &'static str {
        match self {
            SloAt::Mean => "mean",
            SloAt::P90 => "p90",
        }
    }

    pub fn is_mean(&self) -> bool {
        *self == SloAt::Mean
    }

    /// "TTFT" or "p90 TTFT": a figure's name as the limit bounds it.
    pub fn name(self, figure: &str) -> String {
        match self {
            SloAt::Mean => figure.to_string(),
            SloAt::P90 => format!("p90 {figure}"),
        }
    }
}

impl std::str::FromStr for SloAt {
    type Err = EngineError;
    fn from_str(s: &str) -> Result<SloAt> {
        SloAt::ALL
            .into_iter()
            .find(|a| a.id() == s.trim())
            .ok_or_else(|| {
                EngineError::InvalidInput(format!(
                    "the limits bound the mean or the p90 (\"mean\" or \"p90\"), not {s:?}"
                ))
            })
    }
}

/// Limits on time to first token and time per output token; `None` is no limit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Slo {
    #[serde(rename = "ttft_s")]
    pub ttft: Option<Seconds>,
    #[serde(rename = "tpot_s")]
    pub tpot: Option<Seconds>,
    /// Whether the limits bound the mean or the 90th percentile.
    #[serde(default, skip_serializing_if = "SloAt::is_mean")]
    pub at: SloAt,
    /// An open loop's demand (`Workload::rate` requests per second times OSL): a point
    /// carries the rate when its own closed-loop output rate reaches it, so the same
    /// deployment keeps up with those arrivals at that concurrency or a smaller one.
    #[serde(
        default,
        rename = "rate_output_tok_s",
        skip_serializing_if = "Option::is_none"
    )]
    pub rate: Option<TokensPerSecond>,
}

/// Why a feasible point misses the SLO, counted over a sweep.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SloMisses {
    /// Points whose TTFT is over the limit.
    pub ttft: u64,
    /// Points whose TPOT is over the limit.
    pub tpot: u64,
    /// Points whose output rate falls short of the open loop's demand.
    #[serde(default)]
    pub rate: u64,
    /// Points that meet every limit.
    pub met: u64,
}

impl Slo {
    /// Whether any limit is set.
    pub fn is_set(&self) -> bool {
        self.ttft.is_some() || self.tpot.is_some() || self.rate.is_some()
    }

    /// Refuses a limit that is not a positive, finite time.
    pub fn validate(&self) -> Result<()> {
        for (name, limit) in [("TTFT", self.ttft), ("TPOT", self.tpot)] {
            if let Some(t) = limit {
                if !(t.is_finite() && t.value() > 0.0) {
                    return Err(EngineError::InvalidInput(format!(
                        "the {name} limit must be a positive time, not {:?} s",
                        t.value()
                    )));
                }
            }
        }
        if let Some(r) = self.rate.filter(|r| !(r.0.is_finite() && r.0 > 0.0)) {
            return Err(EngineError::InvalidInput(format!(
                "the request rate's output demand must be a positive token rate, not {:?} tok/s",
                r.0
            )));
        }
        Ok(())
    }

    pub fn rate_met(&self, f: &Figures) -> bool {
        self.rate.is_none_or(|r| f.output_tok_s >= r)
    }

    /// The TTFT the limit bounds: the mean, or the p90.
    pub fn ttft_of(&self, f: &Figures) -> Seconds {
        match self.at {
            SloAt::Mean => f.ttft,
            SloAt::P90 => f.ttft_p90,
        }
    }

    /// The TPOT the limit bounds: the mean, or the p90.
    pub fn tpot_of(&self, f: &Figures) -> Seconds {
        match self.at {
            SloAt::Mean => f.tpot,
            SloAt::P90 => f.tpot_p90,
        }
    }

    pub fn ttft_met(&self, f: &Figures) -> bool {
        self.ttft.is_none_or(|t| self.ttft_of(f) <= t)
    }

    pub fn tpot_met(&self, f: &Figures) -> bool {
        self.tpot.is_none_or(|t| self.tpot_of(f) <= t)
    }

    pub fn met_by(&self, f: &Figures) -> bool {
        self.ttft_met(f) && self.tpot_met(f) && self.rate_met(f)
    }
}

impl SloMisses {
    /// Counts one feasible point.
    pub fn count(&mut self, slo: &Slo, f: &Figures) {
        self.ttft += !slo.ttft_met(f) as u64;
        self.tpot += !slo.tpot_met(f) as u64;
        self.rate += !slo.rate_met(f) as u64;
        self.met += slo.met_by(f) as u64;
    }
}

/// How many deployments an SLO answer names per objective: the best and its runners-up.
pub const PICKS: usize = 3;

/// The deployments that meet the SLO best on one objective.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SloPick {
    pub objective: Objective,
    /// Indices into the sweep's cloud: the best point, then the runners-up, each the
    /// best of another chip pairing.
    pub points: Vec<usize>,
    pub sentence: String,
}

/// The answer to "which deployment meets the SLO": the cheapest and the
/// highest-throughput ones, and why the others fail.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SloAnswer {
    /// Highest tok/s per chip first, then lowest $/Mtok (absent without prices).
    pub picks: Vec<SloPick>,
    /// What keeps the other deployments out: the TTFT limit, the TPOT limit, memory.
    pub why_others_fail: String,
}

/// The answer for a sweep's cloud; `None` when no limit is set.
pub(super) fn answer(
    slo: &Slo,
    cloud: &[SweepPoint],
    misses: &SloMisses,
    feasible: u64,
    out_of_memory: u64,
) -> Option<SloAnswer> {
    if !slo.is_set() {
        return None;
    }
    let picks = Objective::ALL
        .into_iter()
        .filter_map(|o| pick(slo, cloud, o))
        .collect();
    Some(SloAnswer {
        picks,
        why_others_fail: why_others_fail(slo, misses, feasible, out_of_memory),
    })
}

/// The best compliant point of `objective` and the best of up to `PICKS - 1` other
/// chip pairings; ties go to the earlier point of the cloud.
fn pick(slo: &Slo, cloud: &[SweepPoint], objective: Objective) -> Option<SloPick> {
    let mut ranked: Vec<(usize, f64)> = cloud
        .iter()
        .enumerate()
        .filter(|(_, p)| p.meets_slo)
        .filter_map(|(i, p)| Some((i, objective.score(&p.figures)?)))
        .collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut points: Vec<usize> = Vec::new();
    for (i, _) in ranked {
        if points.len() == PICKS {
            break;
        }
        if points.iter().all(|&k| cloud[k].phrase != cloud[i].phrase) {
            points.push(i);
        }
    }
    let best = cloud.get(*points.first()?)?;
    let best_value = objective.value(&best.figures)?;
    let f = &best.figures;
    let mut sentence = format!(
        "{} meeting the SLO: {}: {} at {} tok/s/user ({} {} ms, {} {} ms).",
        match objective {
            Objective::ThroughputPerChip => "Highest throughput",
            Objective::CostPerMtok => "Cheapest",
        },
        best.label,
        fmt_value(objective, best_value),
        fmt_num(f.tok_s_user.value()),
        slo.at.name("TTFT"),
        fmt_num(slo.ttft_of(f).ms()),
        slo.at.name("TPOT"),
        fmt_num(slo.tpot_of(f).ms()),
    );
    let runners: Vec<String> = points[1..]
        .iter()
        .filter_map(|&i| {
            let p = &cloud[i];
            let v = objective.value(&p.figures)?;
            // A runner-up is never better than the best, so its shortfall is not
            // negative (`0 - x`, not `-x`: a tie reads 0.0%, never -0.0%).
            let short = pct(0.0 - objective.advantage(v, best_value));
            let gap = if objective.higher_is_better() {
                format!("{short} less")
            } else {
                format!("{short} more")
            };
            Some(format!("{}, {} ({gap})", p.phrase, fmt_value(objective, v)))
        })
        .collect();
    if !runners.is_empty() {
        sentence.push_str(&format!(" Runners-up: {}.", runners.join("; ")));
    }
    Some(SloPick {
        objective,
        points,
        sentence,
    })
}

fn why_others_fail(slo: &Slo, misses: &SloMisses, feasible: u64, out_of_memory: u64) -> String {
    let memory = if out_of_memory > 0 {
        format!("; {out_of_memory} configurations do not fit in memory")
    } else {
        String::new()
    };
    let rate = if misses.rate > 0 {
        format!(", {} cannot carry the request rate", misses.rate)
    } else {
        String::new()
    };
    format!(
        "Of {feasible} deployments that fit, {} meet the SLO, {} miss the {} limit and {} the {} limit{rate}{memory}.",
        misses.met,
        misses.ttft,
        slo.at.name("TTFT"),
        misses.tpot,
        slo.at.name("TPOT")
    )
}
