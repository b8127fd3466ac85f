//! How many independent replicas of one deployment carry the demand within the SLO
//! (`audit/MODEL.md` section 8.1): the fewest, since each one more costs as much again
//! for the same tokens.
//!
//! `n_min` is the fewest that can carry it at all: for a rate, `ceil(R / X_max)` with
//! `X_max` the replica's most requests per second (`open_loop::capacity`); for users,
//! `ceil(U / b_max)` with `b_max` the most sequences one replica holds. `n_max` is the
//! most the chip bound allows, `floor(N / k)` for `k` chips a replica. Fewer requests
//! per replica mean a smaller batch and a less busy prefill queue, so TTFT and TPOT do
//! not rise with `n`: the search evaluates `n_max` (the best latencies the bound
//! allows; if it misses, nothing within the bound meets the SLO), then `n_min`, then
//! bisects between them. At most `2 + ceil(log2(n_max - n_min))` evaluations.

use super::demand::{Demand, Load};
use crate::disagg::open_loop::capacity;
use crate::disagg::{Deployment, DeploymentPoint, Setup};
use crate::sweep::Slo;
use crate::units::Seconds;

/// One replica count tried: the replica's point at its share of the demand.
#[derive(Clone, Debug)]
pub(super) struct Trial {
    pub replicas: u32,
    pub load: Load,
    pub point: DeploymentPoint,
    pub meets: bool,
}

/// What the search found for one deployment.
#[derive(Clone, Debug)]
pub(super) enum Outcome {
    /// The fewest replicas that meet the SLO, and every count tried.
    Meets { best: Trial, tried: Vec<Trial> },
    /// Even `n_max` replicas miss a limit: the trial at `n_max` (the best latencies).
    Misses { at_most: Trial, tried: Vec<Trial> },
    /// The demand needs more than `n_max` replicas: the fewest chips it would take.
    TooManyChips { needs_chips: u64 },
    /// The deployment could not be evaluated (a message of the engine's).
    Failed(String),
}

/// Whether a point meets both latency limits.
pub(super) fn meets(slo: &Slo, point: &DeploymentPoint) -> bool {
    point.fits && slo.ttft_met(&point.figures) && slo.tpot_met(&point.figures)
}

/// The fewest replicas of `deployment` (of `chips` chips each) meeting `slo` under
/// `demand`, within `max_chips` chips in all.
pub(super) fn search(
    setup: &Setup,
    deployment: &Deployment,
    chips: u32,
    demand: &Demand,
    slo: &Slo,
    max_chips: u32,
) -> Outcome {
    let (capacity, most) = match capacity(setup, deployment) {
        Ok(c) => c,
        Err(e) => return Outcome::Failed(e.to_string()),
    };
    let n_min = match demand {
        Demand::Users(u) => u.div_ceil(most.max(1)) as u64,
        _ => {
            let r = demand.rate(&setup.workload).map_or(0.0, |r| r.0);
            if capacity.0 > 0.0 {
                // A hair under one keeps `ceil` exact where R / X is a whole number.
                ((r / capacity.0) * (1.0 - 1e-12)).ceil().max(1.0) as u64
            } else {
                u64::MAX
            }
        }
    };
    let n_max = (max_chips / chips.max(1)) as u64;
    if n_min > n_max {
        return Outcome::TooManyChips {
            needs_chips: n_min.saturating_mul(chips as u64),
        };
    }
    let (n_min, n_max) = (n_min as u32, n_max as u32);
    let mut tried = Vec::new();
    let trial = |n: u32, tried: &mut Vec<Trial>| -> Option<bool> {
        let load = demand.per_replica(&setup.workload, n);
        match load.evaluate(setup, deployment) {
            Ok(point) => {
                let ok = meets(slo, &point);
                tried.push(Trial {
                    replicas: n,
                    load,
                    point,
                    meets: ok,
                });
                Some(ok)
            }
            Err(_) => None,
        }
    };
    match trial(n_max, &mut tried) {
        Some(true) => {}
        Some(false) => {
            let at_most = tried[0].clone();
            return Outcome::Misses { at_most, tried };
        }
        None => return Outcome::Failed("cannot carry its share of the demand".into()),
    }
    // The smallest count that meets lies in (lo, hi]; `hi` meets, and `best` is its trial.
    let mut best = 0;
    let mut hi = n_max;
    if n_min < n_max {
        let mut lo = n_min;
        if trial(n_min, &mut tried) == Some(true) {
            hi = n_min;
            best = tried.len() - 1;
        }
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if trial(mid, &mut tried) == Some(true) {
                hi = mid;
                best = tried.len() - 1;
            } else {
                lo = mid;
            }
        }
    }
    let best = tried[best].clone();
    Outcome::Meets { best, tried }
}

/// The TTFT part spent on the link between pools, as a share of the TTFT.
pub(super) fn link_share(point: &DeploymentPoint) -> f64 {
    let t = point.figures.ttft;
    if t > Seconds::ZERO {
        point.ttft.parts.transfer / t
    } else {
        0.0
    }
}
