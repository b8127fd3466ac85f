//! The config's fields, read by name, with the defaults and checks each needs.

use super::{missing, MoeLayout};
use crate::error::{EngineError, Result};
use crate::limits::{MAX_CONFIG_VALUE, MAX_LAYERS};
use crate::model::{Attention, Ffn};
use serde_json::{Map, Value};
use std::collections::BTreeSet;
use std::sync::OnceLock;

/// The config's fields, looking into `text_config` first for multimodal models, and
/// last into the defaults of the family's configuration class for the fields its
/// published configs leave out.
pub(super) struct Fields<'a> {
    text: Option<&'a Map<String, Value>>,
    top: &'a Map<String, Value>,
    defaults: Option<&'static Map<String, Value>>,
}

/// transformers' `Gemma3TextConfig` defaults (configuration_gemma3.py) for the fields
/// Gemma-3's published configs omit: the vocabulary, the 5:1 pattern of local and
/// global layers, the local window, tied embeddings, the head width and the positions.
fn gemma3_defaults() -> &'static Map<String, Value> {
    static DEFAULTS: OnceLock<Map<String, Value>> = OnceLock::new();
    DEFAULTS.get_or_init(|| {
        let pairs = [
            ("vocab_size", Value::from(262_208u32)),
            ("sliding_window_pattern", Value::from(6u32)),
            ("sliding_window", Value::from(4096u32)),
            ("tie_word_embeddings", Value::from(true)),
            ("head_dim", Value::from(256u32)),
            ("max_position_embeddings", Value::from(131_072u32)),
        ];
        pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
    })
}

/// Names each field goes by, first match wins: shared by the reading and by the
/// account of where each number came from ([`super::explain`]).
pub(super) const KV_HEADS: [&str; 2] = ["num_key_value_heads", "num_attention_groups"];
pub(super) const EXPERTS: [&str; 4] = [
    "n_routed_experts",
    "num_local_experts",
    "num_experts",
    "moe_num_experts",
];
pub(super) const TOP_K: [&str; 3] = ["num_experts_per_tok", "experts_per_token", "moe_top_k"];
pub(super) const EXPERT_WIDTH: [&str; 2] = ["moe_intermediate_size", "intermediate_size"];
pub(super) const SHARED_WIDTH: [&str; 2] = ["shared_expert_intermediate_size", "share_expert_dim"];
/// Llama 4 names its dense layers' width `intermediate_size_mlp`; there
/// `intermediate_size` is the experts'.
pub(super) const DENSE_WIDTH: [&str; 2] = ["intermediate_size_mlp", "intermediate_size"];
/// Step-3 spells it in the singular.
pub(super) const CONTEXT: [&str; 2] = ["max_position_embeddings", "max_position_embedding"];
/// The context window when the config states none.
pub(super) const DEFAULT_CONTEXT: u32 = 4096;

/// Where a field's value was found.
pub(super) enum Found {
    /// In the config, under this path (`text_config.hidden_size` or `hidden_size`).
    Config(String),
    /// Not in the config: the default of the family's configuration class.
    FamilyDefault(&'static str),
}

impl<'a> Fields<'a> {
    /// Where `key` was found, if anywhere (the same lookup order as [`Fields::get`]).
    pub(super) fn found(&self, key: &str) -> Option<Found> {
        let present = |m: &Map<String, Value>| m.get(key).is_some_and(|v| !v.is_null());
        if self.text.is_some_and(present) {
            return Some(Found::Config(format!("text_config.{key}")));
        }
        if present(self.top) {
            return Some(Found::Config(key.to_string()));
        }
        self.defaults
            .filter(|d| d.contains_key(key))
            .map(|_| Found::FamilyDefault("transformers' Gemma3TextConfig"))
    }

    /// The first of `keys` found, and where.
    pub(super) fn found_first(&self, keys: &[&str]) -> Option<Found> {
        keys.iter().find_map(|k| self.found(k))
    }

    /// The fields of one object only, without a `text_config` (a DeciLM block part).
    pub(super) fn of_object(top: &'a Map<String, Value>) -> Fields<'a> {
        Fields {
            text: None,
            top,
            defaults: None,
        }
    }

    pub(super) fn new(top: &'a Map<String, Value>) -> Fields<'a> {
        let text = top.get("text_config").and_then(Value::as_object);
        let model_type = text
            .and_then(|t| t.get("model_type"))
            .or_else(|| top.get("model_type"))
            .and_then(Value::as_str);
        Fields {
            text,
            top,
            defaults: match model_type {
                Some("gemma3_text" | "gemma3") => Some(gemma3_defaults()),
                _ => None,
            },
        }
    }

    pub(super) fn get(&self, key: &str) -> Option<&'a Value> {
        self.text
            .and_then(|t| t.get(key))
            .or_else(|| self.top.get(key))
            .filter(|v| !v.is_null())
            .or_else(|| self.defaults.and_then(|d| d.get(key)))
    }

    pub(super) fn architecture(&self) -> String {
        self.top
            .get("architectures")
            .and_then(Value::as_array)
            .and_then(|a| a.first())
            .and_then(Value::as_str)
            .or_else(|| self.get("model_type").and_then(Value::as_str))
            .unwrap_or("unknown")
            .to_string()
    }

    pub(super) fn reject_unsupported(&self, architecture: &str) -> Result<()> {
        let lower = architecture.to_ascii_lowercase();
        for family in ["mamba", "rwkv", "jamba", "bert", "t5", "whisper", "clip"] {
            if lower.contains(family) {
                return Err(EngineError::Config(format!(
                    "architecture '{architecture}' is not a decoder-only transformer the engine models"
                )));
            }
        }
        Ok(())
    }

    pub(super) fn opt_u32(&self, key: &str) -> Result<Option<u32>> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => {
                let n = match v.as_u64() {
                    Some(n) => Some(n as f64),
                    None => v.as_f64().filter(|f| *f >= 0.0 && f.fract() == 0.0),
                };
                match n {
                    Some(n) if n <= MAX_CONFIG_VALUE as f64 => Ok(Some(n as u32)),
                    Some(_) => Err(EngineError::Config(format!(
                        "field '{key}' = {v} exceeds {MAX_CONFIG_VALUE}, the largest size the engine reads"
                    ))),
                    None => Err(EngineError::Config(format!(
                        "field '{key}' must be a non-negative integer, found {v}"
                    ))),
                }
            }
        }
    }

    pub(super) fn req_u32(&self, key: &str) -> Result<u32> {
        self.opt_u32(key)?.ok_or_else(|| missing(key))
    }

    pub(super) fn first_u32(&self, keys: &[&str]) -> Result<Option<u32>> {
        for key in keys {
            if let Some(v) = self.opt_u32(key)? {
                return Ok(Some(v));
            }
        }
        Ok(None)
    }

    pub(super) fn opt_bool(&self, key: &str) -> Result<Option<bool>> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(v) => Err(EngineError::Config(format!(
                "field '{key}' must be true or false, found {v}"
            ))),
        }
    }

    pub(super) fn attention(&self, hidden: u32) -> Result<Attention> {
        let heads = self.req_u32("num_attention_heads")?;
        if heads == 0 {
            return Err(EngineError::Config(
                "num_attention_heads must be positive".into(),
            ));
        }
        if let Some(kv_rank) = self.opt_u32("kv_lora_rank")? {
            return self.mla(heads, kv_rank);
        }
        // Step-1/Step-3 call the KV heads `num_attention_groups`.
        let kv_heads = self.first_u32(&KV_HEADS)?.unwrap_or(heads);
        // head_dim is explicit and differs from hidden/heads in Qwen3, gpt-oss and GLM.
        let head_dim = match self.opt_u32("head_dim")? {
            Some(d) => d,
            None => {
                if hidden % heads != 0 {
                    return Err(missing("head_dim"));
                }
                hidden / heads
            }
        };
        if head_dim == 0 {
            return Err(EngineError::Config("head_dim must be positive".into()));
        }
        if kv_heads == 0 || heads % kv_heads != 0 {
            return Err(EngineError::Config(format!(
                "num_attention_heads ({heads}) must be a positive multiple of num_key_value_heads ({kv_heads})"
            )));
        }
        Ok(Attention::Gqa {
            heads,
            kv_heads,
            head_dim,
            // Step-3 names the rank of its factorised query `share_q_dim`.
            q_rank: self.opt_u32("share_q_dim")?.filter(|&r| r > 0),
        })
    }

    /// Multi-head latent attention (DeepSeek-V2/V3): every width it reads must be
    /// positive; a query rank left null means no query compression.
    fn mla(&self, heads: u32, kv_rank: u32) -> Result<Attention> {
        let q_rank = self.opt_u32("q_lora_rank")?;
        let qk_nope = self.req_u32("qk_nope_head_dim")?;
        let qk_rope = self.req_u32("qk_rope_head_dim")?;
        let v_head = self.req_u32("v_head_dim")?;
        let refuse = |why: &str| Err(EngineError::Config(why.into()));
        if kv_rank == 0 {
            return refuse("kv_lora_rank must be positive");
        }
        if q_rank == Some(0) {
            return refuse("q_lora_rank must be positive, or null for no query compression");
        }
        if qk_nope as u64 + qk_rope as u64 == 0 {
            return refuse("qk_nope_head_dim + qk_rope_head_dim must be positive");
        }
        if v_head == 0 {
            return refuse("v_head_dim must be positive");
        }
        Ok(Attention::Mla {
            heads,
            q_rank,
            kv_rank,
            qk_nope,
            qk_rope,
            v_head,
        })
    }

    pub(super) fn moe(&self) -> Result<Option<MoeLayout>> {
        let experts = self.first_u32(&EXPERTS)?;
        let experts = match experts {
            Some(e) if e > 0 => e,
            _ => return Ok(None),
        };
        let top_k = self
            .first_u32(&TOP_K)?
            .ok_or_else(|| missing("num_experts_per_tok"))?;
        if top_k == 0 || top_k > experts {
            return Err(EngineError::Config(format!(
                "num_experts_per_tok ({top_k}) must be between 1 and the expert count ({experts})"
            )));
        }
        let expert_intermediate = self
            .first_u32(&EXPERT_WIDTH)?
            .ok_or_else(|| missing("moe_intermediate_size"))?;
        if expert_intermediate == 0 {
            return Err(EngineError::Config(
                "the experts' width (moe_intermediate_size, or intermediate_size where the config has none) must be positive".into(),
            ));
        }
        let shared_intermediate = match self.first_u32(&SHARED_WIDTH)? {
            Some(width) => width,
            // Llama 4's MoE layers always add one shared expert of the experts' width
            // (transformers `Llama4TextMoe.shared_expert`).
            None if self.is_llama4() => expert_intermediate,
            None => {
                let shared = self.opt_u32("n_shared_experts")?.unwrap_or(0);
                shared
                        .checked_mul(expert_intermediate)
                        .filter(|&w| w <= MAX_CONFIG_VALUE)
                        .ok_or_else(|| {
                            EngineError::Config(format!(
                                "n_shared_experts ({shared}) x moe_intermediate_size ({expert_intermediate}) exceeds {MAX_CONFIG_VALUE}"
                            ))
                        })?
            }
        };
        // Qwen-MoE `decoder_sparse_step` and Llama 4 `interleave_moe_layer_step` both make
        // layer i sparse when (i + 1) % step == 0.
        let (every, step_offset_one) =
            match self.first_u32(&["decoder_sparse_step", "interleave_moe_layer_step"])? {
                Some(step) => (step.max(1), true),
                None => (self.opt_u32("moe_layer_freq")?.unwrap_or(1).max(1), false),
            };
        let dense_layers = match self.get("mlp_only_layers") {
            Some(Value::Array(items)) => layer_indices(items, "mlp_only_layers")?,
            _ => BTreeSet::new(),
        };
        Ok(Some(MoeLayout {
            moe_layers: self.moe_layer_list()?,
            ffn: Ffn::Moe {
                experts,
                top_k,
                expert_intermediate,
                shared_intermediate,
            },
            first_dense: self.opt_u32("first_k_dense_replace")?.unwrap_or(0),
            every,
            step_offset_one,
            dense_layers,
        }))
    }

    /// Whether this is a Llama 4 config (`llama4`, or `llama4_text` in its text config).
    pub(super) fn is_llama4(&self) -> bool {
        self.get("model_type")
            .and_then(Value::as_str)
            .is_some_and(|t| t.starts_with("llama4"))
    }

    /// The MoE layer indices where the config lists them: Step-3's `moe_layers_enum`, as a
    /// comma-separated string (how the released config writes it) or as an array, or
    /// Llama 4's `moe_layers`.
    pub(super) fn moe_layer_list(&self) -> Result<Option<BTreeSet<u32>>> {
        let key = if self.get("moe_layers_enum").is_some() {
            "moe_layers_enum"
        } else {
            "moe_layers"
        };
        let bad = || {
            EngineError::Config(format!(
                "{key} must list layer indices, as \"4,5,6\" or [4, 5, 6]"
            ))
        };
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(text)) => {
                let items: Vec<&str> = text.split(',').take(MAX_LAYERS as usize + 1).collect();
                check_list_length(key, items.len())?;
                items
                    .iter()
                    .map(|item| item.trim().parse::<u32>().map_err(|_| bad()))
                    .collect::<Result<BTreeSet<u32>>>()
                    .map(Some)
            }
            Some(Value::Array(items)) => layer_indices(items, key).map(Some),
            Some(_) => Err(bad()),
        }
    }

    /// The attention window of every layer (`None` = full attention).
    ///
    /// Llama 4's chunked attention (`attention_chunk_size` C) is taken as a window of C: a
    /// chunk holds at most C tokens of KV and attends over at most C, as a window does.
    /// Past C tokens of context a window attends over C where a chunk attends over the
    /// position inside its chunk, (C + 1) / 2 on average, so for contexts longer than the
    /// chunk this overstates those layers' attention, by up to 2x.
    pub(super) fn windows(&self, num_layers: u32) -> Result<Vec<Option<u32>>> {
        let window = self.opt_u32("sliding_window")?;
        if window == Some(0) {
            return Err(EngineError::Config(
                "sliding_window must be at least 1 token (null means full attention)".into(),
            ));
        }
        let chunk = self.opt_u32("attention_chunk_size")?.filter(|&c| c > 0);
        if let Some(Value::Array(types)) = self.get("layer_types") {
            if types.len() != num_layers as usize {
                return Err(EngineError::Config(format!(
                    "layer_types lists {} layers but num_hidden_layers is {num_layers}",
                    types.len()
                )));
            }
            return types
                .iter()
                .map(|t| match t.as_str() {
                    Some("full_attention") => Ok(None),
                    Some("sliding_attention") => {
                        window.map(Some).ok_or_else(|| missing("sliding_window"))
                    }
                    Some("chunked_attention") => {
                        chunk.map(Some).ok_or_else(|| missing("attention_chunk_size"))
                    }
                    other => Err(EngineError::Config(format!(
                        "unknown layer type {other:?} in layer_types (expected full_attention, sliding_attention or chunked_attention)"
                    ))),
                })
                .collect();
        }
        if let Some(chunk) = chunk {
            return self.chunked_windows(num_layers, chunk);
        }
        let Some(window) = window else {
            return Ok(vec![None; num_layers as usize]);
        };
        if let Some(pattern) = self.opt_u32("sliding_window_pattern")? {
            // Gemma-2/3: every `pattern`-th layer is global, the rest local.
            let pattern = pattern.max(1);
            return Ok((0..num_layers)
                .map(|i| ((i + 1) % pattern != 0).then_some(window))
                .collect());
        }
        // Qwen2 ships a sliding_window value but only applies it when asked to.
        if self.opt_bool("use_sliding_window")? == Some(false) {
            return Ok(vec![None; num_layers as usize]);
        }
        Ok(vec![Some(window); num_layers as usize])
    }

    /// Llama 4 (iRoPE): the RoPE layers attend in chunks, the NoPE layers over the whole
    /// context. `no_rope_layers` marks each layer 1 (RoPE) or 0 (NoPE); without it every
    /// `no_rope_layer_interval`-th layer (default 4) is NoPE, as transformers derives it.
    pub(super) fn chunked_windows(&self, num_layers: u32, chunk: u32) -> Result<Vec<Option<u32>>> {
        let bad = || {
            EngineError::Config(format!(
                "no_rope_layers must list {num_layers} flags, 1 for a RoPE (chunked) layer and 0 for a NoPE (global) one"
            ))
        };
        match self.get("no_rope_layers") {
            Some(Value::Array(flags)) if !flags.is_empty() => {
                if flags.len() != num_layers as usize {
                    return Err(bad());
                }
                flags
                    .iter()
                    .map(|f| match f.as_u64() {
                        Some(1) => Ok(Some(chunk)),
                        Some(0) => Ok(None),
                        _ => Err(bad()),
                    })
                    .collect()
            }
            Some(Value::Array(_)) | None => {
                let interval = self.opt_u32("no_rope_layer_interval")?.unwrap_or(4).max(1);
                Ok((0..num_layers)
                    .map(|i| ((i + 1) % interval != 0).then_some(chunk))
                    .collect())
            }
            Some(_) => Err(bad()),
        }
    }
}

/// A per-layer list may be no longer than the layers the engine reads.
pub(super) fn check_list_length(key: &str, len: usize) -> Result<()> {
    if len > MAX_LAYERS as usize {
        return Err(EngineError::Config(format!(
            "{key} lists more than {MAX_LAYERS} entries, the most layers the engine reads"
        )));
    }
    Ok(())
}

/// A JSON list of layer indices, as a set (looked up once per layer).
fn layer_indices(items: &[Value], key: &str) -> Result<BTreeSet<u32>> {
    check_list_length(key, items.len())?;
    items
        .iter()
        .map(|v| {
            v.as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| EngineError::Config(format!("{key} must list layer indices")))
        })
        .collect()
}
