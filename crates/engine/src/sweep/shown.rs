//! One deployment drawn beside a sweep's own points: an imported bundle's or an
//! opened validation row's, which the sweep may not keep (its layout or batch is not
//! among those searched, or it lies under its chip pairing's frontier).

use super::frontiers::to_point;
use super::{SweepRequest, SweepResult};
use crate::disagg::{evaluate, Axis, Deployment};
use crate::error::{EngineError, Result};

impl SweepResult {
    /// The index in the cloud of deployment `d` of the swept request `req`: where the
    /// sweep kept it, that point; otherwise `d` evaluated as the sweep evaluates its
    /// points (the closed loop at `d`'s batch, the SLO checked) and added after them,
    /// recorded in [`SweepResult::shown`]. An added point joins no frontier and no
    /// callout: those answer for the space the sweep searched, which it may lie
    /// outside. At most one point is added; showing another replaces it.
    pub fn show(&mut self, req: &SweepRequest<'_>, d: &Deployment<'_>) -> Result<usize> {
        let spec = d.spec();
        if spec.axis != self.axis && spec.axis != Axis::Aggregated {
            return Err(EngineError::InvalidInput(format!(
                "it is a deployment of the {} axis, and the sweep's axis is {}",
                spec.axis.name(),
                self.axis.name()
            )));
        }
        if let Some(i) = self.kept().position(|p| p.spec == spec) {
            return Ok(i);
        }
        let point = evaluate(&req.setup, d)?;
        if !point.fits {
            return Err(EngineError::InvalidInput(
                point.reason.unwrap_or_else(|| "does not fit".into()),
            ));
        }
        let added = to_point(d, &point.figures, req.slo.met_by(&point.figures));
        if let Some(i) = self.shown {
            self.cloud.truncate(i);
        }
        self.cloud.push(added);
        self.shown = Some(self.cloud.len() - 1);
        Ok(self.cloud.len() - 1)
    }

    /// The points the sweep itself kept (the cloud without an added one).
    fn kept(&self) -> impl Iterator<Item = &super::SweepPoint> {
        self.cloud.iter().take(self.shown.unwrap_or(usize::MAX))
    }
}
