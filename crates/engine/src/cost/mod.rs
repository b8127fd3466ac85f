//! What a deployment costs to run: its power from how busy its chips are, and its
//! money either rented by the hour (the catalogue's `price`) or owned (purchase price
//! amortised over the years in use, plus electricity through the facility's PUE).
//! The equations are `audit/MODEL.md` section 6.6; the defaults and their sources are in
//! `audit/AUDIT.md`, "Cost of ownership".
//!
//! `api.rs` holds the public API prices and the break-even volume against them.

pub mod api;
pub mod explain;
#[cfg(test)]
mod tests;

use crate::catalogue::Chip;
use crate::error::{EngineError, Result};
use crate::kernel::TimeBreakdown;
use crate::limits::{
    CAPEX_USD_PER_CHIP, DUTY_CYCLE, ELECTRICITY_USD_KWH, IDLE_SHARE, OWNERSHIP_YEARS, PUE,
};
use crate::units::{TokensPerSecond, UsdPerHour, UsdPerMtok, Watts};
use serde::{Deserialize, Serialize};

/// Hours in a (non-leap) year: the amortisation's clock.
pub const HOURS_PER_YEAR: f64 = 8760.0;

/// Which dollars a sweep's $/Mtok frontier ranks by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CostBasis {
    /// The catalogue's hourly rental prices (the default: every catalogue chip with a
    /// price has one, while a purchase price is the user's to give).
    #[default]
    Rental,
    /// Purchase price amortised plus electricity (`--capex-usd-per-chip` or the
    /// catalogue's `purchase_price`).
    Ownership,
}

impl CostBasis {
    pub fn name(self) -> &'static str {
        match self {
            CostBasis::Rental => "rental",
            CostBasis::Ownership => "ownership",
        }
    }

    pub fn parse(s: &str) -> Option<CostBasis> {
        match s {
            "rental" | "rent" => Some(CostBasis::Rental),
            "ownership" | "own" => Some(CostBasis::Ownership),
            _ => None,
        }
    }
}

/// The settings of owning chips rather than renting them, and the one power setting
/// (idle share) a chip without a catalogued idle power falls back to. Read from JSON
/// (a bundle), a field left out keeps its default.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CostSettings {
    /// Electricity price, USD per kWh.
    pub electricity_usd_kwh: f64,
    /// Power usage effectiveness: facility power over IT power (>= 1).
    pub pue: f64,
    /// Purchase price of one chip, USD, for every chip of the deployment; `None`: the
    /// catalogue's `purchase_price` where a chip has one.
    pub capex_usd_per_chip: Option<f64>,
    /// Years the purchase is spread over (straight-line amortisation).
    pub years: f64,
    /// Share of the hours the deployment is in use (serving at the modelled load).
    pub duty_cycle: f64,
    /// Idle power as a share of TDP, for a chip whose catalogue file gives no idle power.
    pub idle_share: f64,
    /// Which dollars the $/Mtok frontier ranks by.
    pub basis: CostBasis,
}

impl Default for CostSettings {
    fn default() -> CostSettings {
        CostSettings {
            // EIA Electric Power Monthly, table 5.6.A: U.S. average commercial price
            // (AUDIT.md, "Cost of ownership").
            electricity_usd_kwh: 0.146,
            // Uptime Institute's industry average for 2023.
            pue: 1.58,
            capex_usd_per_chip: None,
            years: 5.0,
            duty_cycle: 1.0,
            idle_share: 0.15,
            basis: CostBasis::Rental,
        }
    }
}

impl CostSettings {
    pub fn is_default(&self) -> bool {
        *self == CostSettings::default()
    }

    /// Rejects values outside `limits`, naming the CLI flag.
    pub fn validate(&self) -> Result<()> {
        let check = |flag: &str, v: f64, r: &std::ops::RangeInclusive<f64>| {
            if r.contains(&v) {
                Ok(())
            } else {
                Err(EngineError::InvalidInput(format!(
                    "--{flag} {} must lie between {} and {}",
                    crate::error::echoed(v),
                    r.start(),
                    r.end()
                )))
            }
        };
        check(
            "electricity-usd-kwh",
            self.electricity_usd_kwh,
            &ELECTRICITY_USD_KWH,
        )?;
        check("pue", self.pue, &PUE)?;
        check("years", self.years, &OWNERSHIP_YEARS)?;
        check("duty-cycle", self.duty_cycle, &DUTY_CYCLE)?;
        check("idle-share", self.idle_share, &IDLE_SHARE)?;
        if let Some(c) = self.capex_usd_per_chip {
            check("capex-usd-per-chip", c, &CAPEX_USD_PER_CHIP)?;
        }
        Ok(())
    }

    /// A chip's purchase price: the user's, else the catalogue's.
    pub fn capex(&self, chip: &Chip) -> Option<f64> {
        self.capex_usd_per_chip.or(chip.purchase_price.map(|u| u.0))
    }
}

/// The share of a chip's time its compute units or memory are streaming: the pool's
/// busy share of the wall clock times the roofline-bound share of its step (the step's
/// compute and memory time over its whole time; communication waits and fixed host
/// and launch overheads count as idle). A pool whose step keeps no time split (a
/// separate draft pool) counts its busy time as roofline-bound. `audit/MODEL.md`
/// section 6.6.1.
pub fn utilisation(busy: f64, step: &TimeBreakdown) -> f64 {
    let busy = if busy.is_finite() {
        busy.clamp(0.0, 1.0)
    } else {
        0.0
    };
    (busy * roofline_share(step)).clamp(0.0, 1.0)
}

/// The share of a step its compute and memory take (1 for a step with no time split).
pub fn roofline_share(step: &TimeBreakdown) -> f64 {
    let roofline = step.compute.0 + step.weight_memory.0 + step.kv_memory.0;
    let total = roofline + step.communication.0 + step.overhead.0;
    if total > 0.0 {
        roofline / total
    } else {
        1.0
    }
}

/// A chip's idle power: its catalogue figure, else `idle_share` of its TDP.
pub fn idle_power(chip: &Chip, idle_share: f64) -> Option<Watts> {
    chip.idle_power.or(chip.tdp.map(|t| t * idle_share))
}

/// One chip's power at utilisation `u`: `P = P_idle + u (TDP - P_idle)`; `None` without
/// a TDP.
pub fn chip_power(chip: &Chip, u: f64, idle_share: f64) -> Option<Watts> {
    let tdp = chip.tdp?;
    let idle = idle_power(chip, idle_share)?.min(tdp);
    Some(idle + (tdp - idle) * u.clamp(0.0, 1.0))
}

/// One pool as costing sees it: its chip, how many, and their utilisation.
#[derive(Clone, Copy, Debug)]
pub struct PoolLoad<'a> {
    pub chip: &'a Chip,
    pub chips: u32,
    pub utilisation: f64,
}

impl<'a> PoolLoad<'a> {
    /// A pool busy a share `busy` of the time on steps split as `step` ([`utilisation`]).
    pub fn new(chip: &'a Chip, chips: u32, busy: f64, step: &TimeBreakdown) -> PoolLoad<'a> {
        PoolLoad {
            chip,
            chips,
            utilisation: utilisation(busy, step),
        }
    }
}

/// A deployment's power and what owning it costs per hour in use.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Power {
    /// All chips at their utilisation.
    pub busy: Watts,
    /// All chips idle (the hours out of use).
    pub idle: Watts,
}

impl Power {
    /// Sums over pools; `None` when a chip has no TDP.
    pub fn of(pools: &[PoolLoad], idle_share: f64) -> Option<Power> {
        let mut busy = 0.0;
        let mut idle = 0.0;
        for p in pools {
            let n = p.chips as f64;
            busy += chip_power(p.chip, p.utilisation, idle_share)?.0 * n;
            idle += idle_power(p.chip, idle_share)?.min(p.chip.tdp?).0 * n;
        }
        Some(Power {
            busy: Watts(busy),
            idle: Watts(idle),
        })
    }
}

/// Owning the deployment, per hour in use (`audit/MODEL.md` section 6.6.2):
///
/// ```text
/// C_own = K / (Y x 8760 h x d) + [P_busy + P_idle (1 - d) / d] x PUE x price
/// ```
///
/// `K` the purchase of all chips, `Y` the years, `d` the duty cycle. The duty cycle
/// spreads the purchase over the hours in use only, and charges the idle power of the
/// hours out of use to the hours in use; at `d = 1` both reduce to the plain sum.
pub fn ownership_usd_per_hour(
    capex_usd: f64,
    power: Option<Power>,
    s: &CostSettings,
) -> Option<UsdPerHour> {
    let power = power?;
    let d = s.duty_cycle;
    if !(d > 0.0 && s.years > 0.0) {
        return None;
    }
    let amortised = capex_usd / (s.years * HOURS_PER_YEAR * d);
    let kw = (power.busy.0 + power.idle.0 * (1.0 - d) / d) / 1e3;
    Some(UsdPerHour(amortised + kw * s.pue * s.electricity_usd_kwh))
}

/// A deployment's purchase price: the sum over pools, `None` if any chip has none.
pub fn capex(pools: &[PoolLoad], s: &CostSettings) -> Option<f64> {
    pools
        .iter()
        .map(|p| s.capex(p.chip).map(|c| c * p.chips as f64))
        .sum()
}

/// Dollars per hour turned into dollars per million tokens: the one home of the split
/// between input and output tokens. Each kind carries the whole hour (as benchmarks
/// quote $/Mtok output for a deployment serving both), and the blended figure divides
/// it over both kinds together.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Money {
    pub usd_per_hour: UsdPerHour,
    pub per_mtok_output: Option<UsdPerMtok>,
    pub per_mtok_input: Option<UsdPerMtok>,
    pub per_mtok_blended: Option<UsdPerMtok>,
}

impl Money {
    pub fn of(usd_per_hour: UsdPerHour, input: TokensPerSecond, output: TokensPerSecond) -> Money {
        Money {
            usd_per_hour,
            per_mtok_output: usd_per_hour.per_mtok(output),
            per_mtok_input: usd_per_hour.per_mtok(input),
            per_mtok_blended: usd_per_hour.per_mtok(input + output),
        }
    }
}
