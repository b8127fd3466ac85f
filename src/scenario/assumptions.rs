//! The modelling constants a scenario sets (link keys `a.<name>`), and the assumptions
//! the engine runs with.

use super::Scenario;
use disagg_engine::assumptions::{knob, Knob, Origin, KNOBS};
use disagg_engine::{Assumptions, Catalogue, Chip};

/// Link keys of modelling constants start so: `a.<name>`.
pub const ASSUMPTION_PREFIX: &str = "a.";

impl Scenario {
    /// The modelling constants in force: the defaults, the scenario's own values, the
    /// expert settings and the run's serving settings.
    pub fn assumptions(&self) -> Assumptions {
        let mut a = self.run.onto_assumptions(Assumptions {
            aligned_group_prefill: self.aligned_prefill,
            expert_exchange: self.expert_exchange,
            framework: self.framework,
            redundant_experts: self.redundant_experts,
            scheduling: self.scheduling,
            cost: self.cost,
            ..Assumptions::default()
        });
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

impl Scenario {
    /// For every knob of [`KNOBS`], in order, what it is on the scenario's chips where
    /// their serving framework or their own catalogue file sets it in place of the value
    /// the panel states: `TensorRT-LLM on b200: 0.0000000192 s = 19.2 ns; TensorRT-LLM on
    /// gb200: ...`, each value once with its chips; empty where every chip runs the global
    /// (or the user's) value. A chip the catalogue does not know is left out; the page
    /// names it elsewhere.
    pub fn set_on_chips(&self, catalogue: &Catalogue) -> Vec<String> {
        let Ok(cat) = crate::bundle::effective(self, catalogue) else {
            return vec![String::new(); KNOBS.len()];
        };
        let a = self.assumptions();
        // Each known chip's pool resolved once, for every knob to read.
        let pools: Vec<(&str, &Chip, Assumptions)> = self
            .chips
            .iter()
            .filter_map(|id| cat.chip(id).ok().map(|c| (id.as_str(), c, a.on_chip(c))))
            .collect();
        (0..KNOBS.len())
            .map(|index| set_apart(&a, &pools, index))
            .collect()
    }
}

/// [`Scenario::set_on_chips`] of one knob: `a` the scenario's assumptions, `pools` each
/// chip's id, record and resolved assumptions.
fn set_apart(a: &Assumptions, pools: &[(&str, &Chip, Assumptions)], index: usize) -> String {
    let k: &Knob = &KNOBS[index];
    // (whose, value) with the chips that share them, in the scenario's chip order.
    let mut groups: Vec<(String, f64, Vec<&str>)> = Vec::new();
    for (id, chip, on_chip) in pools {
        let whose = match a.origin(chip, index) {
            Origin::Stated => continue,
            Origin::Framework(f) => f.name().to_string(),
            Origin::Chip => "its catalogue file".to_string(),
        };
        let v = k.get(on_chip);
        match groups.iter_mut().find(|g| g.0 == whose && g.1 == v) {
            Some(g) => g.2.push(id),
            None => groups.push((whose, v, vec![id])),
        }
    }
    groups
        .iter()
        .map(|(whose, v, chips)| format!("{whose} on {}: {}", chips.join(", "), k.shown(*v)))
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::tests::cat;
    use disagg_engine::assumptions::{knob_index, FP4_PICK};

    #[test]
    fn the_panel_names_what_the_framework_sets_on_the_scenarios_chips() {
        let (s, notices) = Scenario::from_query(
            "v=1&model=deepseek-r1&chips=b200,gb200,h200&fw=trtllm",
            cat(),
        );
        assert!(notices.is_empty(), "{notices:?}");
        // TensorRT-LLM's timed FP4 pick on the two Blackwell chips, none on Hopper.
        assert_eq!(
            s.set_on_chips(cat())[FP4_PICK],
            "TensorRT-LLM on b200: 0.0000000192 s = 19.2 ns; TensorRT-LLM on gb200: 0.0000000199 s = 19.9 ns"
        );
        // One value shared by every chip is said once.
        let kernel = knob_index("kernel_overhead");
        assert_eq!(
            s.set_on_chips(cat())[kernel],
            "TensorRT-LLM on b200, gb200, h200: 0.000003 s = 3 us"
        );
        // A value the user states holds everywhere, so nothing is set apart.
        let mut pinned = s.clone();
        pinned
            .apply("a.kernel_overhead", "0.000005", cat())
            .unwrap();
        assert_eq!(pinned.set_on_chips(cat())[kernel], "");
        // A knob no framework sets is empty.
        assert_eq!(s.set_on_chips(cat())[knob_index("link_eff")], "");
        assert_eq!(s.set_on_chips(cat()).len(), KNOBS.len());
    }

    #[test]
    fn the_default_scenario_shows_tensorrt_llms_fp4_pick_on_the_b200() {
        // Its framework is `auto`: TensorRT-LLM on NVIDIA's chips, timed on the B200
        // alone of its three.
        let s = Scenario::default();
        assert_eq!(
            s.set_on_chips(cat())[FP4_PICK],
            "TensorRT-LLM on b200: 0.0000000192 s = 19.2 ns"
        );
    }
}
