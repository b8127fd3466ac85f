//! A published measurement on the chart: the measured speed per user and output per
//! chip of the run a scenario reproduces, drawn as a cross beside the prediction
//! (`draw::backdrop`), named in the key and the description.

use super::ChartModel;
use crate::scenario::YAxis;

/// A published run's measured interactivity and output per chip, on the chart.
#[derive(Clone, Debug, PartialEq)]
pub struct MeasuredMark {
    /// tok/s per user: 1 / the measured TPOT, or the published speed per user.
    pub x: f64,
    /// Output tok/s per chip.
    pub y: f64,
    /// The rows it comes from ("IMXA05a, IMXA05b").
    pub rows: String,
}

impl ChartModel {
    /// This chart with `mark` drawn where the y axis is output per chip (a measured
    /// output has no dollars of its own), the axes widened to hold it.
    pub fn with_measured(mut self, mark: Option<MeasuredMark>, y: YAxis) -> ChartModel {
        let Some(mark) = mark.filter(|m| {
            y == YAxis::TokSPerChip && m.x.is_finite() && m.x > 0.0 && m.y.is_finite() && m.y > 0.0
        }) else {
            return self;
        };
        self.measured = Some(mark);
        self.fit_overlays();
        self
    }
}
