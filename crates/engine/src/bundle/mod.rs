//! A reproducible bundle: one JSON document that holds everything a sweep or one
//! deployment's prediction depends on, so that the page, the CLI, or a colleague's copy
//! of either reproduces the same numbers to the last digit.
//!
//! It carries the model (a catalogue id, or the text of the user's own `config.json`),
//! the chips the sweep pairs as full records after the user's edits (so edited numbers
//! travel with their `user` grade, and the reader needs neither the page's edit map nor
//! the same catalogue), the workload, dtypes, speculation, link and sweep settings, the
//! full set of modelling assumptions and, optionally, one selected deployment.
//!
//! [`Bundle::read`] is bounded ([`MAX_BUNDLE_BYTES`]) and refuses every bad field by its
//! path (`workload.isl`, `chips[1].price`); [`Bundle::inputs`] turns a bundle into the
//! engine's inputs ([`Inputs::setup`], [`Inputs::request`], [`Inputs::deployment`]).
//! That is the one path both the page's sweeps and the CLI's `--bundle` and flag runs
//! take, so a bundle written by one and run by the other gives the same figures.

mod check;
pub mod chips;
mod run;
#[cfg(test)]
mod tests;

pub use run::{evaluate_bundle, explain_bundle};

use crate::assumptions::Assumptions;
use crate::catalogue::{Catalogue, Chip, Links, ModelPreset};
use crate::disagg::{Axis, Deployment, DeploymentSpec, Draft, Setup, Speculation};
use crate::dtype::{DType, WeightFormat};
use crate::error::{EngineError, Result};
use crate::limits::MAX_BUNDLE_BYTES;
use crate::sweep::{Slo, SloAt, SweepRequest};
use crate::units::{BytesPerSecond, Seconds, TokensPerSecond};
use crate::workload::Workload;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;

/// The bundle format this engine writes. A change that an older reader would misread
/// gets a new number. 2 adds the cost settings (`assumptions.cost`: electricity, PUE,
/// purchase and amortisation, the $ the frontier ranks by), which a format-1 reader
/// would refuse as an unknown field.
pub const FORMAT: u32 = 2;
/// The oldest format this engine reads: format 1 carries no cost settings, which then
/// keep their defaults.
pub const OLDEST_FORMAT: u32 = 1;
/// The engine that writes a bundle; a bundle from a newer engine is refused, since
/// its catalogue or formulas may differ.
pub const ENGINE_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Where the model comes from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum ModelSource {
    /// A catalogue model, by id.
    Catalogue(String),
    /// The user's own `config.json` text, and the name reports give it (the CLI's path,
    /// the page's model name).
    Config { name: String, text: String },
}

/// Weight format: the dtype of attention and the other non-expert weights (`None`: the
/// model's usual one), an optional bits-per-weight override (GGUF-like formats), and
/// the experts', the attention output projections' and the LM head's own dtypes where
/// they differ (`None`: `dtype`). Those three are left out of the JSON when unset, so a bundle without them reads as it
/// always did, and one that sets them is refused by name by an engine that predates
/// them rather than misread.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Weights {
    pub dtype: Option<DType>,
    pub bits: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expert_dtype: Option<DType>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attn_out_dtype: Option<DType>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lm_head_dtype: Option<DType>,
}

/// Speculative-decoding settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpeculationSettings {
    /// The draft model; `None`: the target's own MTP layers, or an EAGLE head when
    /// `eagle_layers` is set.
    pub draft: Option<ModelSource>,
    /// Draft with an EAGLE head of this many decoder layers (`draft` must be `None`).
    /// Absent in bundles that draft otherwise, so they read and write as before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eagle_layers: Option<u32>,
    pub acceptance: f64,
    pub draft_tokens: u32,
    /// The prefill/decode axis' decode pool speculates.
    pub speculative_decode: bool,
}

/// The link between pools.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSettings {
    /// Per-chip bandwidth in gigabits per second; `None`: the catalogue's links.
    pub gbps: Option<f64>,
    /// A catalogued link (`catalogue/links`, e.g. `tb5-rdma`, `10gbe`): its bandwidth
    /// where `gbps` states none, and its latency; `None`: the chips' own links.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// KV shipped layer by layer while prefill runs.
    pub kv_streaming: bool,
}

impl Default for LinkSettings {
    fn default() -> LinkSettings {
        LinkSettings {
            gbps: None,
            id: None,
            kv_streaming: true,
        }
    }
}

/// What the sweep enumerates and how it reads its result. The chips it pairs are the
/// bundle's `chips`, in their order.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepSettings {
    pub axis: Axis,
    /// Most chips of all pools together.
    pub max_chips: u32,
    /// Concurrent requests every point runs at; `None`: batches are swept.
    pub batch: Option<u32>,
    /// Interactivity the verdict compares at; `None`: the middle of the shared range.
    pub target_tok_s_user: Option<f64>,
    /// Latency limits in milliseconds, as the page and the CLI state them.
    pub ttft_ms: Option<f64>,
    pub tpot_ms: Option<f64>,
    /// Whether they bound the mean or the 90th percentile (`"mean"`, the default, or
    /// `"p90"`).
    #[serde(default, skip_serializing_if = "SloAt::is_mean")]
    pub slo_at: SloAt,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bundle {
    /// [`FORMAT`].
    pub format: u32,
    /// The engine that wrote it ([`ENGINE_VERSION`]).
    pub engine_version: String,
    pub model: ModelSource,
    pub workload: Workload,
    pub weights: Weights,
    pub kv_dtype: DType,
    pub speculation: SpeculationSettings,
    pub link: LinkSettings,
    pub sweep: SweepSettings,
    /// The chips the sweep pairs, in order, as full records (edited fields graded
    /// `user`); a selected deployment's pools name chips among them.
    pub chips: Vec<Chip>,
    /// Every modelling constant, defaults included, so that a later change of a
    /// default does not silently change a bundle's numbers.
    pub assumptions: Assumptions,
    /// One deployment to predict (the page's selected point, or what
    /// `disagg predict` planned).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deployment: Option<DeploymentSpec>,
}

/// A refusal naming the bundle field at fault.
pub(crate) fn refuse(field: impl Into<String>, problem: impl Into<String>) -> EngineError {
    EngineError::Bundle {
        field: field.into(),
        problem: problem.into(),
    }
}

/// `major.minor.patch` as numbers (a pre-release tail ignored); `None` when not so.
fn version(v: &str) -> Option<[u64; 3]> {
    let core = v.split(['-', '+']).next()?;
    let mut parts = core.split('.').map(|p| p.parse::<u64>().ok());
    let out = [parts.next()??, parts.next()??, parts.next()??];
    parts.next().is_none().then_some(out)
}

impl Bundle {
    /// A bundle of this engine's format and version with the CLI's and the page's
    /// starting settings (the model's usual weight dtype, FP8 KV, MTP drafting of 4
    /// tokens at acceptance 0.8, the catalogue's links with KV streaming, no latency
    /// limits, the default assumptions), for a caller to set the rest on.
    pub fn new(model: ModelSource, workload: Workload, chips: Vec<Chip>, axis: Axis) -> Bundle {
        Bundle {
            format: FORMAT,
            engine_version: ENGINE_VERSION.to_string(),
            model,
            workload,
            weights: Weights::default(),
            kv_dtype: DType::Fp8,
            speculation: SpeculationSettings {
                draft: None,
                eagle_layers: None,
                acceptance: 0.8,
                draft_tokens: 4,
                speculative_decode: false,
            },
            link: LinkSettings::default(),
            sweep: SweepSettings {
                axis,
                max_chips: crate::limits::DEFAULT_SWEEP_CHIPS,
                batch: None,
                target_tok_s_user: None,
                ttft_ms: None,
                tpot_ms: None,
                slo_at: SloAt::Mean,
            },
            chips,
            assumptions: Assumptions::default(),
            deployment: None,
        }
    }

    /// Reads a bundle: at most [`MAX_BUNDLE_BYTES`], a format this engine knows, from
    /// this engine or an older one, and every field within its bounds. Each refusal
    /// names the field.
    pub fn read(text: &str) -> Result<Bundle> {
        if text.len() > MAX_BUNDLE_BYTES {
            return Err(refuse(
                "(the file)",
                format!(
                    "it is {} bytes; a bundle is at most {MAX_BUNDLE_BYTES}",
                    text.len()
                ),
            ));
        }
        let value: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| refuse("(the file)", format!("not JSON: {e}")))?;
        let Some(object) = value.as_object() else {
            return Err(refuse("(the file)", "a bundle is a JSON object"));
        };
        match object.get("format").map(|f| f.as_u64()) {
            None => {
                return Err(refuse(
                    "format",
                    "missing: this is not a Disagg Explorer bundle",
                ))
            }
            Some(Some(f)) if (OLDEST_FORMAT as u64..=FORMAT as u64).contains(&f) => {}
            Some(Some(f)) => {
                return Err(refuse(
                    "format",
                    format!("{f} is not a format this engine reads (it reads {OLDEST_FORMAT} to {FORMAT}); use the engine that wrote it"),
                ))
            }
            Some(None) => return Err(refuse("format", "must be a whole number")),
        }
        let theirs = object
            .get("engine_version")
            .and_then(|v| v.as_str())
            .ok_or_else(|| refuse("engine_version", "missing, or not a string"))?;
        let (Some(theirs_n), Some(ours)) = (version(theirs), version(ENGINE_VERSION)) else {
            return Err(refuse(
                "engine_version",
                format!("{theirs:?} is not a version such as {ENGINE_VERSION}"),
            ));
        };
        if theirs_n > ours {
            return Err(refuse(
                "engine_version",
                format!("the bundle comes from engine {theirs}, newer than this one ({ENGINE_VERSION}); update the CLI or reload the page to reproduce its numbers"),
            ));
        }
        let given = value.clone();
        let bundle: Bundle = serde_path_to_error::deserialize(value).map_err(|e| {
            let path = e.path().to_string();
            refuse(path, e.into_inner().to_string())
        })?;
        let written = serde_json::to_value(&bundle).unwrap_or_default();
        if let Some(path) = crate::json_shape::list_for_record(&given, &written) {
            return Err(refuse(
                path,
                "a list where a record of named fields belongs (the values are not read by position)",
            ));
        }
        bundle.check()?;
        Ok(bundle)
    }

    /// The bundle as pretty JSON (what [`Bundle::read`] reads back to an equal bundle).
    pub fn to_json(&self) -> String {
        // Every field serialises (finite numbers, string keys), so this cannot fail;
        // an empty string would be refused by the reader, never misread.
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Notes for the reader: a bundle from an older engine may give other numbers.
    pub fn notes(&self) -> Vec<String> {
        if self.engine_version == ENGINE_VERSION {
            return Vec::new();
        }
        vec![format!(
            "the bundle comes from engine {}; this is {ENGINE_VERSION}: catalogue models and formulas may have changed since",
            self.engine_version
        )]
    }

    /// The bundle's models read (catalogue ids looked up in `catalogue`, configs
    /// parsed) and its chips gathered: what [`Setup`] and the sweep borrow.
    pub fn inputs<'a>(&'a self, catalogue: &'a Catalogue) -> Result<Inputs<'a>> {
        self.check()?;
        let model = load(&self.model, catalogue, "model")?;
        let draft = match &self.speculation.draft {
            Some(source) => Some(load(source, catalogue, "speculation.draft")?),
            None => None,
        };
        Ok(Inputs {
            bundle: self,
            model,
            draft,
            chips: Catalogue {
                chips: self.chips.clone(),
                ..Catalogue::default()
            },
        })
    }
}

/// A model read from its source, with the name reports give it.
struct Loaded<'a> {
    name: &'a str,
    preset: Cow<'a, ModelPreset>,
}

fn load<'a>(source: &'a ModelSource, catalogue: &'a Catalogue, field: &str) -> Result<Loaded<'a>> {
    match source {
        ModelSource::Catalogue(id) => {
            let preset = catalogue
                .model(id)
                .map_err(|e| refuse(format!("{field}.catalogue"), e.to_string()))?;
            Ok(Loaded {
                name: &preset.id,
                preset: Cow::Borrowed(preset),
            })
        }
        ModelSource::Config { name, text } => Ok(Loaded {
            name,
            preset: Cow::Owned(
                ModelPreset::from_user_config(text)
                    .map_err(|e| refuse(format!("{field}.config.text"), e.to_string()))?,
            ),
        }),
    }
}

/// A bundle with its models read: the engine's inputs, borrowed from here.
#[derive(Debug)]
pub struct Inputs<'a> {
    bundle: &'a Bundle,
    model: Loaded<'a>,
    draft: Option<Loaded<'a>>,
    /// The bundle's chips as a catalogue, for [`DeploymentSpec::resolve`].
    chips: Catalogue,
}

impl std::fmt::Debug for Loaded<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Loaded").field("name", &self.name).finish()
    }
}

impl<'a> Inputs<'a> {
    pub fn bundle(&self) -> &'a Bundle {
        self.bundle
    }

    /// The model as read.
    pub fn model(&self) -> &ModelPreset {
        &self.model.preset
    }

    /// The draft model as read, where a draft model speculates.
    pub fn draft(&self) -> Option<&ModelPreset> {
        self.draft.as_ref().map(|d| &*d.preset)
    }

    /// The name reports give the model: its catalogue id, or the config's name.
    pub fn model_name(&self) -> &str {
        self.model.name
    }

    /// The catalogue id of the model, where the bundle names a catalogue model (the
    /// API price table maps to these).
    pub fn model_id(&self) -> Option<&str> {
        match &self.bundle.model {
            ModelSource::Catalogue(id) => Some(id),
            ModelSource::Config { .. } => None,
        }
    }

    /// The bundle's chips, as a catalogue of those chips only.
    pub fn chips(&self) -> &Catalogue {
        &self.chips
    }

    /// The weight format: the bundle's dtype or the model's usual one.
    pub fn weights(&self) -> WeightFormat {
        let w = self.bundle.weights;
        WeightFormat {
            dtype: w.dtype.unwrap_or(self.model.preset.default_weight_dtype),
            bits_override: w.bits,
        }
    }

    pub fn setup(&self) -> Setup<'_> {
        let b = self.bundle;
        let s = &b.speculation;
        // Checked when the inputs were read (`link.id`).
        let named = b
            .link
            .id
            .as_deref()
            .and_then(|id| Links::builtin().get(id).ok());
        Setup {
            kv: b.kv_dtype,
            assumptions: b.assumptions,
            inter_pool_link: b
                .link
                .gbps
                .map(BytesPerSecond::from_gbit_per_s)
                .or(named.map(|l| l.bandwidth)),
            inter_pool_latency: named.map(|l| l.link().latency),
            kv_streaming: b.link.kv_streaming,
            speculation: Speculation {
                draft: match (&self.draft, s.eagle_layers) {
                    (Some(d), _) => Draft::Model {
                        id: d.name,
                        ir: &d.preset.ir,
                    },
                    (None, Some(layers)) => Draft::Eagle { layers },
                    (None, None) => Draft::Mtp,
                },
                acceptance: s.acceptance,
                draft_tokens: s.draft_tokens,
            },
            speculative_decode: s.speculative_decode,
            expert_dtype: b.weights.expert_dtype,
            attn_out_dtype: b.weights.attn_out_dtype,
            lm_head_dtype: b.weights.lm_head_dtype,
            ..Setup::new(&self.model.preset.ir, b.workload, self.weights())
        }
    }

    /// The sweep the bundle describes, over its chips in order.
    pub fn request(&self) -> SweepRequest<'_> {
        let s = self.bundle.sweep;
        SweepRequest {
            setup: self.setup(),
            axis: s.axis,
            chips: self.chips.chips.iter().collect(),
            max_chips: s.max_chips,
            target_tok_s_user: s.target_tok_s_user.map(TokensPerSecond::new),
            slo: Slo {
                ttft: s.ttft_ms.map(Seconds::from_ms),
                tpot: s.tpot_ms.map(Seconds::from_ms),
                at: s.slo_at,
                // An open loop's points must carry its rate (MODEL.md 8).
                rate: self.bundle.workload.demand(),
            },
            batch: s.batch,
        }
    }

    /// A deployment written with chip ids, on the bundle's chips.
    pub fn resolve(&self, spec: &DeploymentSpec) -> Result<Deployment<'_>> {
        spec.resolve(&self.chips)
    }

    /// The bundle's selected deployment; an error saying so when it has none.
    pub fn deployment(&self) -> Result<Deployment<'_>> {
        let spec = self.bundle.deployment.as_ref().ok_or_else(|| {
            refuse(
                "deployment",
                "the bundle selects no deployment (download it from the page with a point selected, or write it with `disagg predict --save-bundle`); `disagg sweep --bundle` runs its sweep",
            )
        })?;
        self.resolve(spec)
            .map_err(|e| refuse("deployment", e.to_string()))
    }
}
