//! The built-in catalogue of chips and models, embedded at compile time from the TOML
//! files under `/catalogue` (see `build.rs`).
//!
//! Loading never fails as a whole: a file that breaks a rule is left out and reported
//! in [`Catalogue::problems`], so one bad edit cannot take the page down. The tests
//! require the list to be empty.

pub mod chip;
pub mod edit;
pub mod link;
pub mod model_preset;
pub mod provenance;
pub mod user_chip;

pub use chip::{Chip, ChipEfficiency, Link, MemoryKind, MemoryTier};
pub use edit::ChipField;
pub use link::{LinkPreset, Links};
pub use model_preset::{ModelPreset, USER_MODEL_ID};
pub use provenance::{Grade, Provenance};
pub use user_chip::{UserChip, TEMPLATE};

use crate::error::{EngineError, Result};
use std::sync::OnceLock;

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/catalogue.rs"));
}

/// The model files' JSON texts (each with its `config` object), for the fuzz tests'
/// seeds.
#[cfg(test)]
pub(crate) fn model_configs() -> impl Iterator<Item = &'static str> {
    embedded::MODEL_FILES.iter().map(|(_, json)| *json)
}

/// The benchmark table's JSON, for [`crate::validation`].
pub(crate) fn embedded_benchmarks() -> &'static str {
    embedded::BENCHMARKS
}

/// The API price table's JSON, for [`crate::cost::api`].
pub(crate) fn embedded_api_prices() -> &'static str {
    embedded::API_PRICES
}

#[derive(Clone, Debug, Default)]
pub struct Catalogue {
    pub chips: Vec<Chip>,
    pub models: Vec<ModelPreset>,
    /// Files that were left out, and why.
    pub problems: Vec<EngineError>,
}

impl Catalogue {
    /// The catalogue compiled into the engine, parsed once.
    pub fn builtin() -> &'static Catalogue {
        static CATALOGUE: OnceLock<Catalogue> = OnceLock::new();
        CATALOGUE
            .get_or_init(|| Catalogue::from_json_files(embedded::CHIP_FILES, embedded::MODEL_FILES))
    }

    /// Builds a catalogue from `(file name, JSON text)` pairs.
    pub fn from_json_files(chips: &[(&str, &str)], models: &[(&str, &str)]) -> Catalogue {
        let mut catalogue = Catalogue::default();
        for (file, json) in chips {
            let parsed = serde_json::from_str::<chip::ChipFile>(json)
                .map_err(|e| EngineError::Catalogue {
                    file: file.to_string(),
                    problem: e.to_string(),
                })
                .and_then(|f| f.into_chip(file));
            match parsed {
                Ok(chip) => catalogue.chips.push(chip),
                Err(e) => catalogue.problems.push(e),
            }
        }
        for (file, json) in models {
            let parsed = serde_json::from_str::<model_preset::ModelFile>(json)
                .map_err(|e| EngineError::Catalogue {
                    file: file.to_string(),
                    problem: e.to_string(),
                })
                .and_then(|f| f.into_preset(file));
            match parsed {
                Ok(model) => catalogue.models.push(model),
                Err(e) => catalogue.problems.push(e),
            }
        }
        catalogue.check_unique_ids();
        catalogue
    }

    fn check_unique_ids(&mut self) {
        let mut seen = std::collections::BTreeSet::new();
        for id in self
            .chips
            .iter()
            .map(|c| &c.id)
            .chain(self.models.iter().map(|m| &m.id))
        {
            if !seen.insert(id.clone()) {
                self.problems.push(EngineError::Catalogue {
                    file: id.clone(),
                    problem: "id used twice".into(),
                });
            }
        }
    }

    pub fn chip(&self, id: &str) -> Result<&Chip> {
        Ok(&self.chips[self.chip_index(id)?])
    }

    /// Where chip `id` sits in [`Catalogue::chips`] (any case, spaces trimmed).
    pub(crate) fn chip_index(&self, id: &str) -> Result<usize> {
        self.chips
            .iter()
            .position(|c| c.id.eq_ignore_ascii_case(id.trim()))
            .ok_or_else(|| EngineError::UnknownId {
                kind: "chip",
                id: id.to_string(),
                valid: self.chips.iter().map(|c| c.id.clone()).collect(),
            })
    }

    pub fn model(&self, id: &str) -> Result<&ModelPreset> {
        self.models
            .iter()
            .find(|m| m.id.eq_ignore_ascii_case(id.trim()))
            .ok_or_else(|| EngineError::UnknownId {
                kind: "model",
                id: id.to_string(),
                valid: self.models.iter().map(|m| m.id.clone()).collect(),
            })
    }
}
