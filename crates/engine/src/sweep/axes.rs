//! The axes side by side: the best deployment each axis reaches at one target
//! interactivity, so that "does disaggregation help here, and which kind?" is one
//! table rather than four sweeps read by hand.

use super::callout::read;
use super::{sweep, SweepPoint, SweepRequest};
use crate::disagg::Axis;
use crate::error::Result;
use crate::frontier::Objective;
use crate::units::TokensPerSecond;
use serde::{Deserialize, Serialize};

/// One axis' best deployments at the target, under the request's SLO.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AxisBest {
    pub axis: Axis,
    /// The highest tok/s per chip among points fast enough for the target.
    pub throughput: Option<SweepPoint>,
    /// The lowest $/Mtok among points fast enough for the target.
    pub cost: Option<SweepPoint>,
    /// Why the axis cannot be swept for this setup (a dense model has no experts to
    /// split off; a model without MTP heads needs a draft), when it cannot.
    pub unavailable: Option<String>,
}

impl AxisBest {
    /// The best deployment on `objective`.
    pub fn best(&self, objective: Objective) -> Option<&SweepPoint> {
        match objective {
            Objective::ThroughputPerChip => self.throughput.as_ref(),
            Objective::CostPerMtok => self.cost.as_ref(),
        }
    }
}

/// Sweeps every axis at `target` and reads each one's best deployments. An error
/// that every axis shares (a bad setup, an empty chip list) is returned as such; one
/// that only an axis has is that axis' `unavailable`.
pub fn compare_axes(req: &SweepRequest, target: TokensPerSecond) -> Result<Vec<AxisBest>> {
    let at = |axis: Axis| {
        sweep(&SweepRequest {
            axis,
            target_tok_s_user: Some(target),
            ..req.clone()
        })
    };
    // The aggregated axis needs nothing axis-specific: its error is everyone's. Its
    // result is kept for its own row rather than swept twice.
    let mut aggregated = Some(at(Axis::Aggregated)?);
    Ok(Axis::ALL
        .into_iter()
        .map(|axis| {
            let swept = match axis {
                Axis::Aggregated => aggregated.take().map_or_else(|| at(axis), Ok),
                _ => at(axis),
            };
            (axis, swept)
        })
        .map(|(axis, swept)| match swept {
            Ok(r) => {
                let best = |o: Objective| read(&r.cloud, &r.frontiers_of(o).all, o, target).0;
                AxisBest {
                    axis,
                    throughput: best(Objective::ThroughputPerChip),
                    cost: best(Objective::CostPerMtok),
                    unavailable: None,
                }
            }
            Err(e) => AxisBest {
                axis,
                throughput: None,
                cost: None,
                unavailable: Some(e.to_string()),
            },
        })
        .collect())
}
