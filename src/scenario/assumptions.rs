//! The modelling constants a scenario sets (link keys `a.<name>`), and the assumptions
//! the engine runs with.

use super::Scenario;
use disagg_engine::assumptions::{knob, KNOBS};
use disagg_engine::Assumptions;

/// Link keys of modelling constants start so: `a.<name>`.
pub const ASSUMPTION_PREFIX: &str = "a.";

impl Scenario {
    /// The modelling constants in force: the defaults, the scenario's own values and
    /// the expert-group prefill setting.
    pub fn assumptions(&self) -> Assumptions {
        let mut a = Assumptions {
            aligned_group_prefill: self.aligned_prefill,
            framework: self.framework,
            redundant_experts: self.redundant_experts,
            scheduling: self.scheduling,
            cost: self.cost,
            ..Assumptions::default()
        };
        for (name, v) in &self.assumptions {
            a = a.pin(name, *v);
        }
        a
    }

    /// Sets (or, with an empty value, returns to its default) one modelling constant,
    /// after checking it against its range.
    pub(super) fn set_assumption(&mut self, key: &str, value: &str) -> Result<(), String> {
        let name = &key[ASSUMPTION_PREFIX.len()..];
        let k = knob(name).ok_or_else(|| {
            format!(
                "not an assumption; they are {}",
                KNOBS.iter().map(|k| k.name).collect::<Vec<_>>().join(", ")
            )
        })?;
        if value.trim().is_empty() {
            self.assumptions.remove(name);
            return Ok(());
        }
        let v: f64 = value
            .trim()
            .parse()
            .map_err(|_| format!("{name} is a number in {}", k.unit))?;
        let mut trial = Assumptions::default();
        k.set(&mut trial, v);
        trial.validate().map_err(|e| e.to_string())?;
        self.assumptions.insert(k.name.to_string(), v);
        Ok(())
    }
}
