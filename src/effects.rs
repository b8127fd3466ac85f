//! What each non-default modelling assumption does to the headline figures: "mfu 0.45
//! (default 0.6): best tok/s per chip at the target -12%, $/Mtok +9%".
//!
//! The deployments the verdict names (per measure, the better of the best mixed and
//! the best single-kind deployment at the target) are evaluated again with that one
//! assumption back at its default, everything else as the user set it: the same
//! deployments (chips, layouts, batch), so the figure is the assumption's own effect on
//! them, not a new sweep's answer (which might pick other deployments). No sweep runs:
//! at most two deployments under at most `KNOBS.len()` variants, each one evaluation of
//! a fixed deployment, so the page computes it on its main thread.

use crate::explore::evaluate_under;
use crate::scenario::Scenario;
use disagg_engine::assumptions::knob;
use disagg_engine::disagg::DeploymentSpec;
use disagg_engine::frontier::Objective;
use disagg_engine::sweep::SweepResult;
use disagg_engine::{Assumptions, Catalogue};

/// One measure's figure on the deployment the verdict names, with the user's
/// assumption and with it back at its default.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    pub objective: Objective,
    pub with: f64,
    pub without: f64,
}

impl Change {
    /// The assumption's effect as a fraction of the default's figure: -0.12 is 12%
    /// fewer tok/s per chip (or a 12% lower $/Mtok).
    pub fn relative(&self) -> f64 {
        self.with / self.without - 1.0
    }
}

/// One non-default assumption and its effect on each headline figure.
#[derive(Clone, Debug, PartialEq)]
pub struct Effect {
    pub name: String,
    pub value: f64,
    pub default: f64,
    pub changes: Vec<Change>,
    /// Why a measure has no figure (a deployment that does not run at the default).
    pub problems: Vec<String>,
}

/// The deployments the verdict names: per measure, the better of its two named points.
pub fn headline(r: &SweepResult) -> Vec<(Objective, &DeploymentSpec, f64)> {
    r.callouts
        .iter()
        .filter_map(|c| {
            let named = [
                (c.heterogeneous.as_ref(), c.heterogeneous_value),
                (c.homogeneous.as_ref(), c.homogeneous_value),
            ];
            let (point, value) = named
                .into_iter()
                .filter_map(|(p, v)| Some((p?, v?)))
                .max_by(|a, b| {
                    c.objective
                        .advantage(a.1, b.1)
                        .partial_cmp(&0.0)
                        .unwrap_or(std::cmp::Ordering::Equal)
                })?;
            Some((c.objective, &point.spec, value))
        })
        .collect()
}

/// The effect of each of the scenario's non-default assumptions on the figures of the
/// deployments `r`'s verdict names (`r` being the sweep of `s`).
pub fn effects(
    s: &Scenario,
    r: &SweepResult,
    catalogue: &Catalogue,
) -> Result<Vec<Effect>, String> {
    let named = headline(r);
    let specs: Vec<&DeploymentSpec> = named.iter().map(|(_, spec, _)| *spec).collect();
    let defaults = Assumptions::default();
    let set: Vec<(&String, f64, f64)> = s
        .assumptions
        .iter()
        .filter_map(|(name, v)| Some((name, *v, knob(name)?.get(&defaults))))
        .collect();
    let mut variants: Vec<Scenario> = vec![s.clone()];
    variants.extend(set.iter().map(|(name, _, _)| {
        let mut v = s.clone();
        v.assumptions.remove(*name);
        v
    }));
    let figures = evaluate_under(s, &variants, &specs, catalogue)?;
    let (mine, reverted) = figures.split_first().ok_or("nothing evaluated")?;
    Ok(set
        .iter()
        .zip(reverted)
        .map(|((name, value, default), back)| {
            let mut changes = Vec::new();
            let mut problems = Vec::new();
            for (d, (objective, _, _)) in named.iter().enumerate() {
                let read = |f: &Result<_, String>| f.as_ref().ok().and_then(|f| objective.value(f));
                match (read(&mine[d]), read(&back[d])) {
                    (Some(with), Some(without)) => changes.push(Change {
                        objective: *objective,
                        with,
                        without,
                    }),
                    _ => problems.push(format!(
                        "{}: {}",
                        objective.name(),
                        back[d].as_ref().err().map_or("no figure", |e| e.as_str())
                    )),
                }
            }
            Effect {
                name: name.to_string(),
                value: *value,
                default: *default,
                changes,
                problems,
            }
        })
        .collect())
}

/// "+9%", "-12%", "±0%" (to the nearest tenth of a percent below 1%).
fn percent(x: f64) -> String {
    let p = x * 100.0;
    if p.abs() < 0.05 {
        "±0%".into()
    } else if p.abs() < 1.0 {
        format!("{p:+.1}%")
    } else {
        format!("{p:+.0}%")
    }
}

/// The effect in one line.
pub fn describe(e: &Effect) -> String {
    let mut parts: Vec<String> = e
        .changes
        .iter()
        .map(|c| {
            let what = match c.objective {
                Objective::ThroughputPerChip => "best tok/s per chip at the target",
                Objective::CostPerMtok => "$/Mtok",
            };
            format!("{what} {}", percent(c.relative()))
        })
        .collect();
    parts.extend(e.problems.iter().map(|p| format!("at the default, {p}")));
    if parts.is_empty() {
        parts.push("no headline figure to compare".into());
    }
    // The numbers as the user typed them and the --assumptions file writes them.
    format!(
        "{} {} (default {}): {}",
        e.name,
        e.value,
        e.default,
        parts.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::explore;
    use disagg_engine::disagg::Axis;

    fn cat() -> &'static Catalogue {
        Catalogue::builtin()
    }

    /// A prompt-heavy aggregated scenario on H100s (whose matmul rate is the global mfu
    /// scaled by their measured share, so proportional to it).
    fn prefill_heavy() -> Scenario {
        Scenario {
            chips: vec!["h100-sxm".into()],
            axis: Axis::Aggregated,
            isl: 16_384,
            osl: 64,
            max_chips: 16,
            ..Scenario::default()
        }
    }

    fn one_effect(s: &Scenario) -> Effect {
        let r = explore(s, cat()).unwrap();
        let mut all = effects(s, &r, cat()).unwrap();
        assert_eq!(all.len(), 1);
        all.remove(0)
    }

    #[test]
    fn halving_mfu_slows_a_compute_bound_prefill() {
        // A 16k-token prompt's prefill is compute-bound: half the sustained FLOPS
        // makes each prefill step take longer, and nothing else gets faster, so the
        // same deployment serves fewer tokens per chip and each costs more.
        let mut s = prefill_heavy();
        let half = Assumptions::default().mfu / 2.0;
        s.apply("a.mfu", &half.to_string(), cat()).unwrap();
        let e = one_effect(&s);
        assert_eq!(e.default, Assumptions::default().mfu);
        let by = |o: Objective| e.changes.iter().find(|c| c.objective == o).unwrap();
        let tput = by(Objective::ThroughputPerChip);
        let cost = by(Objective::CostPerMtok);
        assert!(tput.relative() < -0.1, "{tput:?}");
        // Cost per token is price over throughput: the two move by reciprocal factors.
        let recip = 1.0 / (1.0 + tput.relative()) - 1.0;
        assert!((cost.relative() - recip).abs() < 1e-9, "{cost:?} {recip}");
        let line = describe(&e);
        assert!(
            line.starts_with("mfu 0.3 (default 0.6): best tok/s per chip at the target -"),
            "{line}"
        );
        assert!(line.contains("$/Mtok +"), "{line}");
        // The figure with the user's assumption is the sweep's own.
        let r = explore(&s, cat()).unwrap();
        let named = headline(&r);
        let (_, _, value) = named
            .iter()
            .find(|(o, _, _)| *o == Objective::ThroughputPerChip)
            .unwrap();
        assert_eq!(tput.with, *value);
    }

    #[test]
    fn an_override_at_the_default_value_changes_nothing() {
        let mut s = prefill_heavy();
        let d = Assumptions::default().bw_eff;
        s.apply("a.bw_eff", &d.to_string(), cat()).unwrap();
        let e = one_effect(&s);
        assert!(!e.changes.is_empty());
        for c in &e.changes {
            assert_eq!(c.relative(), 0.0, "{c:?}");
        }
        assert!(describe(&e).contains("±0%"), "{}", describe(&e));
    }

    #[test]
    fn more_step_overhead_never_speeds_a_deployment() {
        // A fixed cost added to every step can only lengthen the round.
        let mut s = prefill_heavy();
        s.apply("a.step_overhead", "0.01", cat()).unwrap();
        let e = one_effect(&s);
        let tput = e
            .changes
            .iter()
            .find(|c| c.objective == Objective::ThroughputPerChip)
            .unwrap();
        assert!(tput.relative() < 0.0, "{tput:?}");
    }

    #[test]
    fn no_override_no_effect_line() {
        let s = prefill_heavy();
        let r = explore(&s, cat()).unwrap();
        assert!(effects(&s, &r, cat()).unwrap().is_empty());
    }
}
