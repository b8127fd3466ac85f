//! Service-level objectives a sweep's deployments must meet: limits on TTFT and TPOT.
//! Points that miss them stay in the cloud, marked, and the frontiers and the callout
//! are drawn from the points that meet them.

use crate::disagg::Figures;
use crate::error::{EngineError, Result};
use crate::units::Seconds;
use serde::{Deserialize, Serialize};

/// Limits on time to first token and time per output token; `None` is no limit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Slo {
    #[serde(rename = "ttft_s")]
    pub ttft: Option<Seconds>,
    #[serde(rename = "tpot_s")]
    pub tpot: Option<Seconds>,
}

/// Why a feasible point misses the SLO, counted over a sweep.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SloMisses {
    /// Points whose TTFT is over the limit.
    pub ttft: u64,
    /// Points whose TPOT is over the limit.
    pub tpot: u64,
    /// Points that meet both.
    pub met: u64,
}

impl Slo {
    /// Whether any limit is set.
    pub fn is_set(&self) -> bool {
        self.ttft.is_some() || self.tpot.is_some()
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
        Ok(())
    }

    pub fn ttft_met(&self, f: &Figures) -> bool {
        self.ttft.is_none_or(|t| f.ttft <= t)
    }

    pub fn tpot_met(&self, f: &Figures) -> bool {
        self.tpot.is_none_or(|t| f.tpot <= t)
    }

    pub fn met_by(&self, f: &Figures) -> bool {
        self.ttft_met(f) && self.tpot_met(f)
    }
}

impl SloMisses {
    /// Counts one feasible point.
    pub fn count(&mut self, slo: &Slo, f: &Figures) {
        self.ttft += !slo.ttft_met(f) as u64;
        self.tpot += !slo.tpot_met(f) as u64;
        self.met += slo.met_by(f) as u64;
    }
}
