//! The deployment a scenario draws beside its sweep (link key `show`): written as its
//! JSON, as a bundle's `deployment` field holds it, and read back the same way. Its chips
//! and layout are checked when the sweep resolves it, which names what is wrong.

use super::Scenario;
use disagg_engine::disagg::DeploymentSpec;

/// The link key of the deployment drawn beside the sweep.
pub const SHOW_KEY: &str = "show";

/// Longest `show` value read, in bytes: a deployment of a few pools is a few hundred.
const MAX_SHOW_BYTES: usize = 4096;

/// The deployment as the link writes it.
pub(super) fn show_value(spec: &DeploymentSpec) -> String {
    serde_json::to_string(spec).unwrap_or_default()
}

impl Scenario {
    /// Sets (or, with an empty value, clears) the deployment drawn beside the sweep.
    pub(super) fn set_show(&mut self, value: &str) -> Result<(), String> {
        if value.is_empty() {
            self.show = None;
            return Ok(());
        }
        if value.len() > MAX_SHOW_BYTES {
            return Err(format!(
                "a deployment to show is at most {MAX_SHOW_BYTES} bytes of JSON"
            ));
        }
        let spec: DeploymentSpec = serde_json::from_str(value)
            .map_err(|e| format!("not a deployment as a bundle writes it: {e}"))?;
        self.show = Some(spec);
        Ok(())
    }
}
