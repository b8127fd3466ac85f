//! From a [`Scenario`] to the engine: the sweep the chart draws and the full
//! evaluation of one point the detail panel opens. Plain logic, tested natively.

use crate::scenario::Scenario;
use disagg_engine::disagg::{evaluate, DeploymentPoint, DeploymentSpec, Draft, Setup, Speculation};
use disagg_engine::sweep::{sweep, SweepRequest, SweepResult};
use disagg_engine::{Catalogue, ModelPreset, WeightFormat, Workload};

/// What the page needs from the catalogue to build a [`Setup`].
struct Models<'a> {
    target: &'a ModelPreset,
    draft: Option<&'a ModelPreset>,
}

fn models<'a>(s: &Scenario, catalogue: &'a Catalogue) -> Result<Models<'a>, String> {
    let target = catalogue.model(&s.model).map_err(|e| e.to_string())?;
    let draft = match &s.draft_model {
        Some(id) => Some(catalogue.model(id).map_err(|e| e.to_string())?),
        None => None,
    };
    Ok(Models { target, draft })
}

fn setup<'a>(s: &Scenario, m: &Models<'a>) -> Setup<'a> {
    let weights = WeightFormat {
        dtype: s.weight_dtype.unwrap_or(m.target.default_weight_dtype),
        bits_override: None,
    };
    Setup {
        kv: s.kv_dtype,
        speculation: Speculation {
            draft: match m.draft {
                Some(d) => Draft::Model {
                    id: &d.id,
                    ir: &d.ir,
                },
                None => Draft::Mtp,
            },
            acceptance: s.acceptance,
            draft_tokens: s.draft_tokens,
        },
        ..Setup::new(
            &m.target.ir,
            Workload {
                isl: s.isl,
                osl: s.osl,
            },
            weights,
        )
    }
}

/// Sweeps the scenario; an error is a sentence the page shows as it is.
pub fn explore(s: &Scenario, catalogue: &Catalogue) -> Result<SweepResult, String> {
    let m = models(s, catalogue)?;
    let chips = s
        .chips
        .iter()
        .map(|id| catalogue.chip(id).map_err(|e| e.to_string()))
        .collect::<Result<Vec<_>, _>>()?;
    sweep(&SweepRequest {
        setup: setup(s, &m),
        axis: s.axis,
        chips,
        max_chips: s.max_chips,
        target_tok_s_user: s.target_tok_s_user,
    })
    .map_err(|e| e.to_string())
}

/// Everything about one deployment of the scenario: pools, memory, time split.
pub fn detail(
    s: &Scenario,
    spec: &DeploymentSpec,
    catalogue: &Catalogue,
) -> Result<DeploymentPoint, String> {
    let m = models(s, catalogue)?;
    let deployment = spec.resolve(catalogue).map_err(|e| e.to_string())?;
    evaluate(&setup(s, &m), &deployment).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use disagg_engine::disagg::Axis;
    use disagg_engine::sweep::Class;

    #[test]
    fn the_default_scenario_draws_both_kinds_of_deployment() {
        let cat = Catalogue::builtin();
        let r = explore(&Scenario::default(), cat).unwrap();
        assert!(r.feasible > 1000, "{}", r.feasible);
        for class in [Class::Baseline, Class::Homogeneous, Class::Heterogeneous] {
            assert!(r.cloud.iter().any(|p| p.class == class), "{class:?}");
        }
        assert_eq!(r.callouts.len(), 2);
    }

    #[test]
    fn a_point_of_the_sweep_opens_to_the_same_figures() {
        let cat = Catalogue::builtin();
        let s = Scenario::default();
        let r = explore(&s, cat).unwrap();
        for p in r.throughput.all.iter().take(5) {
            let d = detail(&s, &p.spec, cat).unwrap();
            assert_eq!(d.figures, p.figures, "{}", p.label);
            assert!(d.fits);
        }
    }

    #[test]
    fn impossible_axes_are_sentences_not_panics() {
        let cat = Catalogue::builtin();
        let dense_af = Scenario {
            axis: Axis::AttentionExpert,
            ..Scenario::default()
        };
        assert!(explore(&dense_af, cat)
            .unwrap_err()
            .contains("mixture-of-experts"));
        let no_mtp = Scenario {
            axis: Axis::Speculative,
            draft_model: None,
            ..Scenario::default()
        };
        assert!(explore(&no_mtp, cat)
            .unwrap_err()
            .contains("multi-token-prediction"));
    }
}
