//! Reading a HuggingFace `config.json` into the [`ModelIr`].
//!
//! The parser goes by fields, not by architecture names, so that a new model in a known
//! family works without a code change: MLA when `kv_lora_rank` is set, MoE when any
//! expert count is set, sliding windows from `layer_types`, `sliding_window_pattern` or
//! `sliding_window`, Llama 4's chunked attention from `attention_chunk_size`, per-layer
//! attention and FFN from DeciLM's `block_configs` (Nemotron Super/Ultra). Multimodal
//! configs are read through their `text_config`. The one name the parser reads is Llama 4's
//! `model_type`: its MoE layers carry a shared expert no field states.
//! A field the IR needs and the config lacks is an error that names the field.

use super::{Attention, Ffn, LayerGroup, ModelIr};
use crate::error::{EngineError, Result};
use crate::limits::MAX_LAYERS;
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};

mod decilm;
mod explain;
#[cfg(test)]
mod explain_tests;
mod fields;
#[cfg(test)]
mod tests;

use decilm::decilm_layers;
pub use explain::{FieldSource, Origin, ParseReport, Parsed};
use fields::Fields;

/// Parses the text of a `config.json`.
pub fn parse_config_str(text: &str) -> Result<ModelIr> {
    let value: Value = serde_json::from_str(text)
        .map_err(|e| EngineError::Config(format!("not valid JSON: {e}")))?;
    parse_config(&value)
}

/// Parses an already-decoded `config.json` and says where each of the model's numbers
/// came from (a key, a formula, a default and why) and what it could not use.
pub fn parse_config_explained(value: &Value) -> Result<Parsed> {
    let ir = parse_config(value)?;
    // `parse_config` accepted the value, so it is an object.
    let report = match value.as_object() {
        Some(top) => explain::explain(&Fields::new(top), &ir),
        None => ParseReport::default(),
    };
    Ok(Parsed { ir, report })
}

/// The weight format a config's `quantization_config` names, where it is one the engine
/// models: `quant_method` "fp8" with a `weight_block_size` is block-scaled FP8 (DeepSeek-V3's
/// and Qwen's FP8 checkpoints), without one per-tensor FP8. Any other method: `None`.
pub fn checkpoint_weight_dtype(value: &Value) -> Option<crate::dtype::DType> {
    value.get("quantization_config").and_then(quantized_dtype)
}

/// [`checkpoint_weight_dtype`] of the `quantization_config` object itself.
fn quantized_dtype(q: &Value) -> Option<crate::dtype::DType> {
    if q.get("quant_method").and_then(Value::as_str) != Some("fp8") {
        return None;
    }
    Some(match q.get("weight_block_size") {
        Some(Value::Array(_)) => crate::dtype::DType::Fp8Block,
        _ => crate::dtype::DType::Fp8,
    })
}

/// Parses an already-decoded `config.json`.
pub fn parse_config(value: &Value) -> Result<ModelIr> {
    let top = value
        .as_object()
        .ok_or_else(|| EngineError::Config("the config must be a JSON object".into()))?;
    let cfg = Fields::new(top);
    let architecture = cfg.architecture();
    cfg.reject_unsupported(&architecture)?;

    let hidden = cfg.req_u32("hidden_size")?;
    let num_layers = cfg.req_u32("num_hidden_layers")?;
    if num_layers > MAX_LAYERS {
        return Err(EngineError::Config(format!(
            "num_hidden_layers {num_layers} exceeds {MAX_LAYERS}, the most layers the engine reads"
        )));
    }
    let vocab = cfg.req_u32("vocab_size")?;
    let mtp_layers = cfg.opt_u32("num_nextn_predict_layers")?.unwrap_or(0);
    if mtp_layers > MAX_LAYERS {
        return Err(EngineError::Config(format!(
            "num_nextn_predict_layers {mtp_layers} exceeds {MAX_LAYERS}, the most layers the engine reads"
        )));
    }
    let max_context = cfg
        .first_u32(&fields::CONTEXT)?
        .unwrap_or(fields::DEFAULT_CONTEXT);
    if max_context == 0 {
        return Err(EngineError::Config(
            "max_position_embeddings (the context window) must be positive".into(),
        ));
    }
    if hidden == 0 || num_layers == 0 || vocab == 0 {
        return Err(EngineError::Config(
            "hidden_size, num_hidden_layers and vocab_size must be positive".into(),
        ));
    }
    let attention = cfg.attention(hidden)?;
    let moe = cfg.moe()?;
    let dense_intermediate = cfg.first_u32(&fields::DENSE_WIDTH)?;
    let dense_width = || {
        match dense_intermediate {
        None => Err(missing("intermediate_size")),
        Some(0) => Err(EngineError::Config(
            "the dense layers' FFN width (intermediate_size, Llama 4's intermediate_size_mlp) must be positive".into(),
        )),
        Some(w) => Ok(w),
    }
    };

    let per_layer = match cfg.get("block_configs") {
        Some(blocks) => decilm_layers(blocks, num_layers, hidden, attention)?,
        None => {
            let windows = cfg.windows(num_layers)?;
            let mut layers = Vec::with_capacity(num_layers as usize);
            for layer in 0..num_layers {
                let ffn = match moe {
                    Some(ref m) if m.is_moe_layer(layer) => m.ffn,
                    _ => Ffn::Dense {
                        intermediate: dense_width()?,
                    },
                };
                layers.push(LayerGroup {
                    count: 1,
                    attention,
                    window: windows[layer as usize],
                    ffn,
                });
            }
            layers
        }
    };

    Ok(ModelIr {
        architecture,
        hidden,
        vocab,
        tied_embeddings: cfg.opt_bool("tie_word_embeddings")?.unwrap_or(false),
        num_layers,
        max_context,
        mtp_layers,
        groups: group_layers(per_layer),
    })
}

/// Merges layers of equal shape, keeping first-seen order (one lookup per layer).
fn group_layers(layers: Vec<LayerGroup>) -> Vec<LayerGroup> {
    let mut groups: Vec<LayerGroup> = Vec::new();
    let mut index: HashMap<(Attention, Option<u32>, Ffn), usize> = HashMap::new();
    for layer in layers {
        let key = (layer.attention, layer.window, layer.ffn);
        match index.get(&key) {
            Some(&i) => groups[i].count += 1,
            None => {
                index.insert(key, groups.len());
                groups.push(layer);
            }
        }
    }
    groups
}
pub(super) fn missing(field: &str) -> EngineError {
    EngineError::Config(format!(
        "missing field '{field}' (this architecture is not understood without it)"
    ))
}

pub(super) struct MoeLayout {
    /// An explicit list of the MoE layers (Step-3 `moe_layers_enum`), overriding the rest.
    moe_layers: Option<BTreeSet<u32>>,
    ffn: Ffn,
    first_dense: u32,
    every: u32,
    step_offset_one: bool,
    dense_layers: BTreeSet<u32>,
}

impl MoeLayout {
    fn is_moe_layer(&self, layer: u32) -> bool {
        if let Some(list) = &self.moe_layers {
            return list.contains(&layer);
        }
        if layer < self.first_dense || self.dense_layers.contains(&layer) {
            return false;
        }
        if self.step_offset_one {
            // Qwen-MoE `decoder_sparse_step`: layer i is sparse when (i+1) % step == 0.
            (layer + 1) % self.every == 0
        } else {
            // DeepSeek `moe_layer_freq`: layer i is sparse when i % freq == 0.
            layer % self.every == 0
        }
    }
}
