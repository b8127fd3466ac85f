//! The launch command of the point the detail panel shows: the scenario's bundle, its
//! deployment evaluated as the panel evaluates it, written for one framework by the
//! engine's `deploy` module (the same path as `disagg deploy --bundle`). Plain logic,
//! tested natively.

use crate::bundle::bundle;
use crate::scenario::Scenario;
use disagg_engine::deploy::{launch, Launch, LaunchFramework, LaunchModel};
use disagg_engine::disagg::open_loop::at_rate;
use disagg_engine::disagg::{evaluate, DeploymentSpec};
use disagg_engine::units::RequestsPerSecond;
use disagg_engine::Catalogue;

/// The framework the panel opens with: the scenario's, where it names vLLM, SGLang or
/// TensorRT-LLM; vLLM otherwise.
pub fn default_framework(s: &Scenario) -> LaunchFramework {
    LaunchFramework::for_choice(s.framework)
}

/// The launch of deployment `spec` of scenario `s` with `framework`; an error is a
/// sentence the page shows.
pub fn launch_of(
    s: &Scenario,
    spec: &DeploymentSpec,
    catalogue: &Catalogue,
    framework: LaunchFramework,
) -> Result<Launch, String> {
    let b = bundle(s, catalogue, None)?;
    let i = b.inputs(catalogue).map_err(|e| e.to_string())?;
    let deployment = i.resolve(spec).map_err(|e| e.to_string())?;
    let setup = i.setup();
    let point = match s.rate {
        Some(r) => at_rate(&setup, &deployment, RequestsPerSecond::new(r)),
        None => evaluate(&setup, &deployment),
    }
    .map_err(|e| e.to_string())?;
    launch(
        framework,
        &setup,
        &deployment,
        &point,
        &LaunchModel::of(&i),
        None,
    )
    .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::explore;
    use disagg_engine::disagg::Axis;
    use disagg_engine::serving::{Framework, FrameworkChoice};

    #[test]
    fn every_framework_writes_each_swept_pools_layout() {
        let s = Scenario {
            chips: vec!["h100-sxm".into()],
            axis: Axis::PrefillDecode,
            max_chips: 16,
            ..Scenario::default()
        };
        let cat = Catalogue::builtin();
        let r = explore(&s, cat).unwrap();
        let p = &r.cloud[r.cloud.len() / 2];
        for f in LaunchFramework::ALL {
            let l = launch_of(&s, &p.spec, cat, f).unwrap();
            assert_eq!(l.framework, f);
            let script = l.script();
            assert!(script.contains(&l.model), "{script}");
            // Each pool is launched whole, on as many chips as the sweep placed.
            for (pool, spec) in l.pools.iter().zip(&p.spec.pools) {
                assert_eq!(pool.role, spec.role);
                assert_eq!(
                    pool.servers * pool.chips_per_server,
                    spec.parallelism.chips()
                );
            }
        }
    }

    #[test]
    fn the_scenarios_framework_is_the_default_launch() {
        let mut s = Scenario::default();
        assert_eq!(default_framework(&s), LaunchFramework::Vllm);
        s.framework = FrameworkChoice::Given(Framework::Sglang);
        assert_eq!(default_framework(&s), LaunchFramework::Sglang);
        s.framework = FrameworkChoice::Given(Framework::LlamaCpp);
        assert_eq!(default_framework(&s), LaunchFramework::Vllm);
    }
}
