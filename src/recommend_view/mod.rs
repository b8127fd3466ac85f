//! The recommend view: which deployments across the catalogue meet the scenario's TTFT
//! and TPOT limits at a demand, ranked by $/Mtok, the fewest chips that do, and why the
//! other chip kinds fail. Plain logic: the view's link keys, the search's inputs from
//! the scenario, and what each row and line reads. The search itself is the engine's
//! `recommend`, run in the page's worker (`crate::jobs`).
//!
//! Link keys: the limits are the scenario's own `ttft` and `tpot`, and a request rate is
//! its `rate`; tokens per day (`rec.tpd`) or concurrent users (`rec.users`) replace the
//! rate, and `rec.chips` narrows the chips searched (default: the whole catalogue).
//! `validation_view::split_query` reads them with the view's other keys.

mod table;

pub use table::{minimum_bands, minimum_line, rejected_lines, rows, summary_line, Row};

use crate::bundle::{bundle, effective};
use crate::scenario::{encode, Scenario};
use disagg_engine::limits::{DEFAULT_RECOMMEND_CHIPS, MAX_BATCH, REQUEST_RATE};
use disagg_engine::recommend::{recommend, Demand, RecommendRequest, Recommendation};
use disagg_engine::sweep::Slo;
use disagg_engine::units::{RequestsPerSecond, Seconds};
use disagg_engine::Catalogue;
use serde::{Deserialize, Serialize};

/// The view's value of the `view` link key.
pub const RECOMMEND: &str = "recommend";
/// Link key of the demand in tokens per day (prompt and output together).
pub const TPD_KEY: &str = "rec.tpd";
/// Link key of the demand in concurrent users.
pub const USERS_KEY: &str = "rec.users";
/// Link key of the chips searched, comma-separated ids.
pub const CHIPS_KEY: &str = "rec.chips";
/// Every link key of the view's own.
pub const KEYS: [&str; 3] = [TPD_KEY, USERS_KEY, CHIPS_KEY];

/// The view's own inputs (besides the scenario's limits and rate).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RecommendInputs {
    /// Tokens per day; replaces the scenario's rate when set.
    pub tokens_per_day: Option<f64>,
    /// Concurrent users; replaces both when set.
    pub users: Option<u32>,
    /// Chip ids to search; empty: every chip of the catalogue (the user's own too).
    pub chips: Vec<String>,
}

impl RecommendInputs {
    /// Sets one of [`KEYS`] from its text (empty clears it); the refusal says why.
    pub fn set(&mut self, key: &str, value: &str, catalogue: &Catalogue) -> Result<(), String> {
        let value = value.trim();
        match key {
            TPD_KEY if value.is_empty() => self.tokens_per_day = None,
            TPD_KEY => match value.parse::<f64>() {
                Ok(t) if t.is_finite() && t > 0.0 => {
                    self.tokens_per_day = Some(t);
                    self.users = None;
                }
                _ => return Err("tokens per day is a positive number (or empty)".into()),
            },
            USERS_KEY if value.is_empty() => self.users = None,
            USERS_KEY => match value.parse::<u32>() {
                Ok(u) if (1..=MAX_BATCH).contains(&u) => {
                    self.users = Some(u);
                    self.tokens_per_day = None;
                }
                _ => return Err(format!("users is a whole number from 1 to {MAX_BATCH}")),
            },
            CHIPS_KEY => {
                let mut ids: Vec<String> = Vec::new();
                for id in value.split(',').map(str::trim).filter(|s| !s.is_empty()) {
                    let chip = catalogue.chip(id).map_err(|e| e.to_string())?;
                    if !ids.contains(&chip.id) {
                        ids.push(chip.id.clone());
                    }
                }
                self.chips = ids;
            }
            _ => return Err(format!("{key} is not a key of the recommend view")),
        }
        Ok(())
    }

    /// The link's part for these inputs (empty when all are defaults).
    pub fn to_query(&self) -> String {
        let mut q = Vec::new();
        if let Some(t) = self.tokens_per_day {
            q.push(format!("{TPD_KEY}={t}"));
        }
        if let Some(u) = self.users {
            q.push(format!("{USERS_KEY}={u}"));
        }
        if !self.chips.is_empty() {
            q.push(format!("{CHIPS_KEY}={}", encode(&self.chips.join(","))));
        }
        q.join("&")
    }

    /// The demand: users, or tokens per day, or the scenario's request rate.
    pub fn demand(&self, s: &Scenario) -> Result<Demand, String> {
        match (self.users, self.tokens_per_day, s.rate) {
            (Some(u), _, _) => Ok(Demand::Users(u)),
            (None, Some(t), _) => Ok(Demand::TokensPerDay(t)),
            (None, None, Some(r)) if REQUEST_RATE.contains(&r) => {
                Ok(Demand::Rate(RequestsPerSecond::new(r)))
            }
            _ => Err("state a demand: a request rate, tokens per day or concurrent users".into()),
        }
    }

    /// Which demand is stated: "rate", "tpd", "users" (the page's selector).
    pub fn demand_kind(&self) -> &'static str {
        match (self.users, self.tokens_per_day) {
            (Some(_), _) => "users",
            (None, Some(_)) => "tpd",
            _ => "rate",
        }
    }
}

/// The scenario's limits as the search's SLO; both are needed.
pub fn slo(s: &Scenario) -> Result<Slo, String> {
    match (s.ttft_ms, s.tpot_ms) {
        (Some(ttft), Some(tpot)) => Ok(Slo {
            ttft: Some(Seconds::from_ms(ttft)),
            tpot: Some(Seconds::from_ms(tpot)),
            rate: None,
            at: s.slo_at,
        }),
        _ => {
            Err("set both a TTFT and a TPOT limit to search for deployments that meet them".into())
        }
    }
}

/// The recommendation for the scenario's model, workload, dtypes and assumptions at
/// `inputs`' demand, over its chips (or every chip, the user's own included); an error
/// is a sentence the page shows as it is.
pub fn run(
    s: &Scenario,
    inputs: &RecommendInputs,
    catalogue: &Catalogue,
) -> Result<Recommendation, String> {
    let slo = slo(s)?;
    let demand = inputs.demand(s)?;
    let b = bundle(s, catalogue, None)?;
    let i = b.inputs(catalogue).map_err(|e| e.to_string())?;
    let setup = i.setup();
    if let Some((context, window)) = setup.context_overrun() {
        return Err(format!(
            "{context} tokens of prompt and output exceed the model's context window of {window} tokens"
        ));
    }
    let all = effective(s, catalogue)?;
    let chips = if inputs.chips.is_empty() {
        all.chips.iter().collect()
    } else {
        inputs
            .chips
            .iter()
            .map(|id| all.chip(id).map_err(|e| e.to_string()))
            .collect::<Result<Vec<_>, _>>()?
    };
    recommend(&RecommendRequest {
        setup,
        chips,
        axes: Vec::new(),
        slo,
        demand,
        max_chips: DEFAULT_RECOMMEND_CHIPS,
    })
    .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests;
