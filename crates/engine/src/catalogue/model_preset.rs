//! Model presets: a HuggingFace `config.json` (kept as its fields, parsed by the same
//! code that parses a pasted config) plus the official parameter counts to check it by.

use super::provenance::{resolve, Dimension, Grade, Provenance, RawValue};
use crate::dtype::DType;
use crate::error::EngineError;
use crate::limits::MAX_CONFIG_BYTES;
use crate::model::{hf, ModelIr};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelPreset {
    pub id: String,
    pub name: String,
    pub hf_repo: String,
    /// The dtype the model is usually served in (FP8 for DeepSeek, MXFP4 for gpt-oss).
    pub default_weight_dtype: DType,
    pub ir: ModelIr,
    pub official_total_params: f64,
    pub official_active_params: Option<f64>,
    /// Why the computed count differs from the official one, where it does.
    pub param_note: Option<String>,
    /// Where the config fields came from, and how far they are trusted.
    pub config_provenance: Provenance,
    /// The `config.json` fields the model was parsed from: a user's own model can start
    /// from a preset's and edit them.
    pub config: serde_json::Value,
    /// Config fields trusted less than the file as a whole.
    pub field_grades: BTreeMap<String, Grade>,
    pub provenance: BTreeMap<String, Provenance>,
    /// Where each of the model's numbers came from in its config, and the parser's
    /// warnings.
    #[serde(default)]
    pub parse_report: hf::ParseReport,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ModelFile {
    id: String,
    name: String,
    hf_repo: String,
    default_weight_dtype: DType,
    sources: BTreeMap<String, String>,
    config_source: String,
    config_grade: Grade,
    #[serde(default)]
    config_note: Option<String>,
    official_total_params: RawValue,
    official_active_params: Option<RawValue>,
    #[serde(default)]
    param_note: Option<String>,
    #[serde(default)]
    field_grades: BTreeMap<String, Grade>,
    config: serde_json::Value,
}

/// The id a user's own model goes by.
pub const USER_MODEL_ID: &str = "custom";

impl ModelPreset {
    /// A model from a user's `config.json` text: parsed by the same code as the
    /// catalogue's configs, its parameter counts computed (there is no official count to
    /// check them by), graded `user`. Its name is the config's `_name_or_path`, else its
    /// architecture; its weights are served in the FP8 format its `quantization_config`
    /// names ([`hf::checkpoint_weight_dtype`]), else in its `torch_dtype` when that is
    /// FP16, else BF16. Text over [`MAX_CONFIG_BYTES`] is refused before parsing.
    pub fn from_user_config(text: &str) -> Result<ModelPreset, EngineError> {
        if text.len() > MAX_CONFIG_BYTES {
            return Err(EngineError::Config(format!(
                "the config is {} bytes; the most the engine reads is {MAX_CONFIG_BYTES}",
                text.len()
            )));
        }
        let value: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| EngineError::Config(format!("not valid JSON: {e}")))?;
        let hf::Parsed { ir, report } = hf::parse_config_explained(&value)?;
        let text_field = |key: &str| value.get(key).and_then(|v| v.as_str());
        let architecture = value
            .get("architectures")
            .and_then(|a| a.get(0))
            .and_then(|a| a.as_str());
        let name = text_field("_name_or_path")
            .or(architecture)
            .filter(|n| !n.trim().is_empty())
            .map_or("your model".to_string(), |n| {
                n.chars().take(80).collect::<String>()
            });
        let default_weight_dtype =
            hf::checkpoint_weight_dtype(&value).unwrap_or(match text_field("torch_dtype") {
                Some("float16") => DType::Fp16,
                _ => DType::Bf16,
            });
        let counts = ir.params();
        Ok(ModelPreset {
            id: USER_MODEL_ID.to_string(),
            name,
            hf_repo: String::new(),
            default_weight_dtype,
            official_total_params: counts.total,
            official_active_params: Some(counts.active),
            param_note: Some("computed from the config; no official count to compare".into()),
            config_provenance: Provenance {
                value: counts.total,
                unit: "parameters".into(),
                grade: Grade::User,
                sources: Vec::new(),
                note: Some("the user's own config.json".into()),
                formula: None,
            },
            field_grades: BTreeMap::new(),
            provenance: BTreeMap::new(),
            ir,
            config: value,
            parse_report: report,
        })
    }
}

/// How far a computed total may sit from the official one without a recorded reason.
pub const PARAM_TOLERANCE: f64 = 0.02;

impl ModelFile {
    pub(super) fn into_preset(self, file: &str) -> Result<ModelPreset, EngineError> {
        let bad = |problem: String| EngineError::Catalogue {
            file: file.to_string(),
            problem,
        };
        let hf::Parsed { ir, report } =
            hf::parse_config_explained(&self.config).map_err(|e| bad(e.to_string()))?;
        let mut provenance = BTreeMap::new();
        let (total, prov) = resolve(
            file,
            "official_total_params",
            &self.official_total_params,
            Dimension::Params,
            &self.sources,
        )?;
        provenance.insert("official_total_params".to_string(), prov);
        let active = match &self.official_active_params {
            Some(raw) => {
                let (v, prov) = resolve(
                    file,
                    "official_active_params",
                    raw,
                    Dimension::Params,
                    &self.sources,
                )?;
                provenance.insert("official_active_params".to_string(), prov);
                Some(v)
            }
            None => None,
        };
        let config_raw = RawValue {
            value: 0.0,
            unit: "B".into(),
            grade: self.config_grade,
            source: self.config_source.clone(),
            note: self.config_note.clone(),
            formula: None,
        };
        let (_, config_provenance) = resolve(
            file,
            "config",
            &config_raw,
            Dimension::Params,
            &self.sources,
        )?;
        let object = self
            .config
            .as_object()
            .ok_or_else(|| bad("config must be a table".into()))?;
        for field in self.field_grades.keys() {
            let in_text_config = object
                .get("text_config")
                .and_then(|t| t.as_object())
                .is_some_and(|t| t.contains_key(field));
            if !object.contains_key(field) && !in_text_config {
                return Err(bad(format!(
                    "field_grades names '{field}', which the config lacks"
                )));
            }
        }
        let computed = ir.params().total;
        let gap = (computed - total).abs() / total;
        if gap > PARAM_TOLERANCE && self.param_note.is_none() {
            return Err(bad(format!(
                "computed {:.2}B parameters is {:.1}% from the official {:.2}B and no param_note says why",
                computed / 1e9,
                gap * 100.0,
                total / 1e9
            )));
        }
        Ok(ModelPreset {
            id: self.id,
            name: self.name,
            hf_repo: self.hf_repo,
            default_weight_dtype: self.default_weight_dtype,
            ir,
            official_total_params: total,
            official_active_params: active,
            param_note: self.param_note,
            config_provenance,
            config: self.config,
            field_grades: self.field_grades,
            provenance,
            parse_report: report,
        })
    }
}
