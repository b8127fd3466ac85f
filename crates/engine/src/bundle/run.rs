//! Running a bundle's selected deployment: evaluated, or opened into formulas, in a
//! closed loop or at its workload's request rate. The CLI's `predict --bundle`, the
//! validation table (`validation::point_bundle`) and the page's opened rows run here.

use super::Bundle;
use crate::catalogue::Catalogue;
use crate::disagg::explain::{explain, Explained};
use crate::disagg::open_loop::at_rate;
use crate::disagg::open_loop_explain::explain_at_rate;
use crate::disagg::{evaluate, Deployment, DeploymentPoint, Setup};
use crate::error::Result;
use crate::units::RequestsPerSecond;

/// What a bundle with a selected deployment predicts: the deployment evaluated, or at
/// an open loop's rate the concurrency that rate holds. `disagg predict --bundle`
/// takes this path.
pub fn evaluate_bundle(catalogue: &Catalogue, b: &Bundle) -> Result<DeploymentPoint> {
    on_deployment(catalogue, b, evaluate, at_rate)
}

/// A bundle's selected deployment opened into formulas and operator tables, as
/// `disagg predict --bundle --explain` opens it (at an open loop's rate, the
/// concurrency that rate holds).
pub fn explain_bundle(catalogue: &Catalogue, b: &Bundle) -> Result<Explained> {
    on_deployment(catalogue, b, explain, explain_at_rate)
}

/// Runs `closed` on the bundle's selected deployment, or `open` at its workload's
/// request rate where it states one: the one place a bundle's loop is chosen.
fn on_deployment<T>(
    catalogue: &Catalogue,
    b: &Bundle,
    closed: impl FnOnce(&Setup, &Deployment) -> Result<T>,
    open: impl FnOnce(&Setup, &Deployment, RequestsPerSecond) -> Result<T>,
) -> Result<T> {
    let inputs = b.inputs(catalogue)?;
    let setup = inputs.setup();
    let deployment = inputs.deployment()?;
    match setup.workload.rate {
        Some(r) => open(&setup, &deployment, RequestsPerSecond::new(r)),
        None => closed(&setup, &deployment),
    }
}
