//! `deploy`: the launch commands of the deployment `predict` would evaluate, for one
//! framework (`disagg_engine::deploy` writes them; this file picks the framework and
//! prints).

use crate::axes::{predict_bundle, to_json};
use crate::{bundle, PredictArgs};
use disagg_engine::deploy::{launch, LaunchFramework, LaunchModel};
use disagg_engine::disagg::evaluate;
use disagg_engine::disagg::open_loop::at_rate;
use disagg_engine::units::RequestsPerSecond;
use disagg_engine::Catalogue;

#[derive(clap::Args)]
pub(crate) struct DeployArgs {
    #[command(flatten)]
    pub(crate) predict: PredictArgs,
    /// Chips per node the commands assume (default: each chip's scale-up domain, at
    /// most 8).
    #[arg(long, value_name = "N")]
    gpus_per_node: Option<u32>,
}

/// `--framework` names the launch (vllm, sglang, trtllm or dynamo) and, through its
/// serving framework, the defaults the deployment is predicted with, so the command's
/// limits are the ones that framework runs. With `--bundle` the bundle's framework
/// decides (vLLM where it names none of the three).
pub(crate) fn run_deploy(mut args: DeployArgs) -> Result<(), String> {
    // `predict`'s own outputs, which a launch does not print, are refused rather than
    // ignored.
    if let Some(id) = ["explain", "api"]
        .into_iter()
        .find(|id| args.predict.given.iter().any(|g| g == id))
    {
        return Err(format!(
            "--{id} is predict's output; deploy prints the launch commands (run predict with the same flags for it)"
        ));
    }
    let given = match args.predict.assumptions.framework.take() {
        Some(f) => {
            let f: LaunchFramework = f.parse().map_err(|e| format!("--framework: {e}"))?;
            args.predict.assumptions.framework = Some(f.serving().id().to_string());
            Some(f)
        }
        None if args.predict.bundle.is_some() => None,
        None => return Err("deploy needs --framework vllm, sglang, trtllm or dynamo".into()),
    };
    let p = &args.predict;
    let b = match &p.bundle {
        Some(path) => bundle::read(path)?,
        None => predict_bundle(p)?,
    };
    bundle::save_if(&p.save_bundle, &b)?;
    let framework = given.unwrap_or_else(|| LaunchFramework::for_choice(b.assumptions.framework));
    let inputs = b.inputs(Catalogue::builtin()).map_err(|e| e.to_string())?;
    let deployment = inputs.deployment().map_err(|e| e.to_string())?;
    let setup = inputs.setup();
    let point = match setup.workload.rate {
        Some(r) => at_rate(&setup, &deployment, RequestsPerSecond::new(r)),
        None => evaluate(&setup, &deployment),
    }
    .map_err(|e| e.to_string())?;
    let l = launch(
        framework,
        &setup,
        &deployment,
        &point,
        &LaunchModel::of(&inputs),
        args.gpus_per_node,
    )
    .map_err(|e| e.to_string())?;
    if p.json {
        out!("{}", to_json(&l)?);
    } else {
        out!("# {}", point.label);
        out!("{}", l.script().trim_end());
    }
    Ok(())
}
