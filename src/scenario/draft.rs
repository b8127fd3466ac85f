//! The draft control: the target's MTP layers, an EAGLE head of some layers, or a
//! catalogue model, and its one link key `draft` (`mtp`, `eagle`, `eagle:2`, a model id).

use super::{parse_in, Scenario};
use disagg_engine::disagg::DEFAULT_EAGLE_LAYERS;
use disagg_engine::limits::MAX_EAGLE_LAYERS;
use disagg_engine::Catalogue;

impl Scenario {
    /// The draft control's value, as the link writes it.
    pub fn draft_value(&self) -> String {
        match (&self.draft_model, self.eagle_layers) {
            (Some(id), _) => id.clone(),
            (None, Some(DEFAULT_EAGLE_LAYERS)) => "eagle".into(),
            (None, Some(n)) => format!("eagle:{n}"),
            (None, None) => "mtp".into(),
        }
    }

    /// The draft in words: the model's MTP heads, an EAGLE head, or the model's id.
    pub fn draft_name(&self) -> String {
        match (&self.draft_model, self.eagle_layers) {
            (Some(id), _) => id.clone(),
            (None, Some(1)) => "an EAGLE head (one layer)".into(),
            (None, Some(n)) => format!("an EAGLE head ({n} layers)"),
            (None, None) => "the model's MTP heads".into(),
        }
    }

    /// Sets the draft from the link's value; a refusal says what the values are.
    pub(super) fn set_draft(&mut self, value: &str, catalogue: &Catalogue) -> Result<(), String> {
        let (model, eagle) = match value {
            "mtp" => (None, None),
            "eagle" => (None, Some(DEFAULT_EAGLE_LAYERS)),
            v => match v.strip_prefix("eagle:") {
                Some(n) => (
                    None,
                    Some(parse_in(
                        n,
                        1..=MAX_EAGLE_LAYERS,
                        format!("an EAGLE head has 1 to {MAX_EAGLE_LAYERS} layers (eagle:N)"),
                    )?),
                ),
                None => (
                    Some(
                        catalogue
                            .model(v)
                            .map_err(|_| "not a catalogue model, mtp or eagle".to_string())?
                            .id
                            .clone(),
                    ),
                    None,
                ),
            },
        };
        self.draft_model = model;
        self.eagle_layers = eagle;
        Ok(())
    }
}
