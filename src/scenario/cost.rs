//! The cost settings a scenario carries (link keys `kwh`, `pue`, `capex`, `years`,
//! `duty`, `idle` and `own`), each written only when away from its default, each
//! checked by the engine's bounds (`CostSettings::validate`) before it is taken.

use super::Scenario;
use disagg_engine::cost::{CostBasis, CostSettings};

/// The link keys of the cost settings, in the order the link writes them.
pub const COST_KEYS: [&str; 7] = ["kwh", "pue", "capex", "years", "duty", "idle", "own"];

impl Scenario {
    /// The link's pairs of the settings away from their defaults.
    pub(super) fn cost_query(&self) -> Vec<String> {
        let c = &self.cost;
        let d = CostSettings::default();
        let mut q: Vec<String> = [
            ("kwh", c.electricity_usd_kwh, d.electricity_usd_kwh),
            ("pue", c.pue, d.pue),
            ("capex", c.capex_usd_per_chip.unwrap_or(f64::NAN), f64::NAN),
            ("years", c.years, d.years),
            ("duty", c.duty_cycle, d.duty_cycle),
            ("idle", c.idle_share, d.idle_share),
        ]
        .iter()
        // NaN is never equal: an unset purchase price is left out by `is_nan`.
        .filter(|(_, v, default)| !v.is_nan() && v != default)
        .map(|(key, v, _)| format!("{key}={v}"))
        .collect();
        if c.basis == CostBasis::Ownership {
            q.push("own=1".into());
        }
        q
    }

    /// Sets one cost setting by its link key; an empty value returns it to its
    /// default. Refused values leave the scenario as it was, and the reason names the
    /// CLI's flag of the same setting.
    pub(super) fn set_cost(&mut self, key: &str, value: &str) -> Result<(), String> {
        let d = CostSettings::default();
        let mut c = self.cost;
        let number = |v: &str| {
            v.parse::<f64>()
                .map_err(|_| format!("{key} is a number"))
                .and_then(|x| {
                    if x.is_finite() {
                        Ok(x)
                    } else {
                        Err(format!("{key} is a finite number"))
                    }
                })
        };
        let empty = value.is_empty();
        match key {
            "kwh" if empty => c.electricity_usd_kwh = d.electricity_usd_kwh,
            "kwh" => c.electricity_usd_kwh = number(value)?,
            "pue" if empty => c.pue = d.pue,
            "pue" => c.pue = number(value)?,
            "capex" if empty => c.capex_usd_per_chip = None,
            "capex" => c.capex_usd_per_chip = Some(number(value)?),
            "years" if empty => c.years = d.years,
            "years" => c.years = number(value)?,
            "duty" if empty => c.duty_cycle = d.duty_cycle,
            "duty" => c.duty_cycle = number(value)?,
            "idle" if empty => c.idle_share = d.idle_share,
            "idle" => c.idle_share = number(value)?,
            "own" => {
                c.basis = match value {
                    "1" => CostBasis::Ownership,
                    "0" | "" => CostBasis::Rental,
                    _ => return Err("own is 1 (rank by ownership $) or 0 (rental)".into()),
                }
            }
            _ => return Err("unknown setting".into()),
        }
        c.validate().map_err(|e| e.to_string())?;
        self.cost = c;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::tests::cat;

    #[test]
    fn cost_settings_travel_in_the_link_checked_by_the_engines_bounds() {
        let mut s = Scenario::default();
        assert!(!s.to_query().contains("kwh="), "defaults are not written");
        for (key, value) in [
            ("kwh", "0.31"),
            ("pue", "1.2"),
            ("capex", "30000"),
            ("years", "4"),
            ("duty", "0.6"),
            ("idle", "0.1"),
            ("own", "1"),
        ] {
            s.apply(key, value, cat()).unwrap();
            assert!(s.to_query().contains(&format!("{key}={value}")), "{key}");
        }
        let (back, notices) = Scenario::from_query(&s.to_query(), cat());
        assert!(notices.is_empty(), "{notices:?}");
        assert_eq!(back, s);
        let c = back.assumptions().cost;
        assert_eq!(c.electricity_usd_kwh, 0.31);
        assert_eq!(c.capex_usd_per_chip, Some(30_000.0));
        assert_eq!(c.basis, disagg_engine::cost::CostBasis::Ownership);
        // Each bad value is refused naming the CLI flag of the same setting, and leaves
        // the scenario as it was.
        for (key, value, needle) in [
            ("pue", "0.5", "--pue"),
            ("kwh", "-1", "--electricity-usd-kwh"),
            ("duty", "0", "--duty-cycle"),
            ("years", "NaN", "years"),
            ("capex", "abc", "capex"),
            ("own", "2", "own"),
        ] {
            let mut t = s.clone();
            let why = t.apply(key, value, cat()).unwrap_err();
            assert!(why.contains(needle), "{key}={value}: {why}");
            assert_eq!(t, s);
        }
        // An empty value returns a setting to its default, and the link drops it.
        for key in ["kwh", "pue", "capex", "years", "duty", "idle", "own"] {
            s.apply(key, "", cat()).unwrap();
        }
        assert_eq!(s.cost, disagg_engine::cost::CostSettings::default());
        assert!(!s.to_query().contains("pue="));
    }
}
