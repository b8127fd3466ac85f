//! Where each of a parsed model's numbers came from (a config key, a formula over
//! other fields, or a default and why), and what in the config the engine could not
//! use: so that a pasted config can be checked field by field.

use super::fields::{self, Fields, Found};
use crate::model::{Attention, Ffn, ModelIr};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Where one number came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Origin {
    /// Read from the config under this key (`text_config.hidden_size` when nested).
    Config { key: String },
    /// Computed from other fields, as written.
    Derived { from: String },
    /// Not in the config: a default, and why that one.
    Default { why: String },
}

/// One of the model's numbers and its origin.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldSource {
    /// What the number is ("KV heads").
    pub field: String,
    pub value: String,
    pub origin: Origin,
}

/// The account of one parse: every number's origin, and the warnings.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParseReport {
    pub fields: Vec<FieldSource>,
    /// Assumptions the parser made and config fields it read but could not use.
    pub warnings: Vec<String>,
}

impl ParseReport {
    fn add(&mut self, field: &str, value: impl ToString, origin: Origin) {
        self.fields.push(FieldSource {
            field: field.to_string(),
            value: value.to_string(),
            origin,
        });
    }

    /// The origin of `field`, for tests and callers that look one up.
    pub fn origin(&self, field: &str) -> Option<&Origin> {
        self.fields
            .iter()
            .find(|f| f.field == field)
            .map(|f| &f.origin)
    }
}

/// A parsed model with its account.
#[derive(Clone, Debug, PartialEq)]
pub struct Parsed {
    pub ir: ModelIr,
    pub report: ParseReport,
}

/// The dtypes a config's `torch_dtype` may name that the engine reads.
const KNOWN_TORCH_DTYPES: [&str; 3] = ["float16", "bfloat16", "float32"];

fn origin_of(cfg: &Fields, keys: &[&str]) -> Option<Origin> {
    cfg.found_first(keys).map(|f| match f {
        Found::Config(key) => Origin::Config { key },
        Found::FamilyDefault(class) => Origin::Default {
            why: format!(
                "the config omits {}; {class}'s default, as transformers reads it",
                keys[0]
            ),
        },
    })
}

/// The account of `ir`, parsed from `cfg`.
pub(super) fn explain(cfg: &Fields, ir: &ModelIr) -> ParseReport {
    let mut r = ParseReport::default();
    let or = |o: Option<Origin>, otherwise: Origin| o.unwrap_or(otherwise);
    let config = |key: &str| origin_of(cfg, &[key]);
    let unknown = || Origin::Default {
        why: "not stated".into(),
    };
    r.add(
        "hidden size",
        ir.hidden,
        or(config("hidden_size"), unknown()),
    );
    r.add(
        "layers",
        ir.num_layers,
        or(config("num_hidden_layers"), unknown()),
    );
    r.add("vocabulary", ir.vocab, or(config("vocab_size"), unknown()));
    let per_block = cfg.get("block_configs").is_some();
    let first = ir
        .groups
        .iter()
        .map(|g| g.attention)
        .find(|a| !matches!(a, Attention::Skipped | Attention::Linear));
    match first {
        Some(Attention::Gqa {
            heads,
            kv_heads,
            head_dim,
            ..
        }) => {
            r.add(
                "attention heads",
                heads,
                or(config("num_attention_heads"), unknown()),
            );
            let kv = if per_block {
                Origin::Derived {
                    from:
                        "each layer's block_configs entry (num_attention_heads / n_heads_in_group)"
                            .into(),
                }
            } else {
                match origin_of(cfg, &fields::KV_HEADS) {
                    Some(o) => o,
                    None => {
                        r.warnings.push(format!(
                            "num_key_value_heads is missing: taken equal to num_attention_heads ({heads}), i.e. multi-head attention; if the model shares KV heads, its KV cache is smaller than modelled"
                        ));
                        Origin::Default {
                            why: "the config has no num_key_value_heads: one KV head per query head (transformers' default)".into(),
                        }
                    }
                }
            };
            r.add("KV heads", kv_heads, kv);
            r.add(
                "head size",
                head_dim,
                or(
                    config("head_dim"),
                    Origin::Derived {
                        from: "hidden_size / num_attention_heads".into(),
                    },
                ),
            );
        }
        Some(Attention::Mla {
            heads,
            kv_rank,
            qk_rope,
            ..
        }) => {
            r.add(
                "attention heads",
                heads,
                or(config("num_attention_heads"), unknown()),
            );
            r.add(
                "KV latent rank",
                kv_rank,
                or(config("kv_lora_rank"), unknown()),
            );
            r.add(
                "rotary head size",
                qk_rope,
                or(config("qk_rope_head_dim"), unknown()),
            );
        }
        _ => {}
    }
    explain_ffn(cfg, ir, per_block, &mut r);
    match origin_of(cfg, &["tie_word_embeddings"]) {
        Some(o) => r.add("tied embeddings", ir.tied_embeddings, o),
        None => r.add(
            "tied embeddings",
            ir.tied_embeddings,
            Origin::Default {
                why: "the config omits tie_word_embeddings: a separate output matrix (transformers' default)".into(),
            },
        ),
    }
    match origin_of(cfg, &fields::CONTEXT) {
        Some(o) => r.add("context window", ir.max_context, o),
        None => {
            r.warnings.push(format!(
                "max_position_embeddings is missing: a context window of {} tokens is assumed",
                fields::DEFAULT_CONTEXT
            ));
            r.add(
                "context window",
                ir.max_context,
                Origin::Default {
                    why: "the config states no max_position_embeddings".into(),
                },
            );
        }
    }
    if let Some(o) = config("num_nextn_predict_layers") {
        r.add("MTP layers", ir.mtp_layers, o);
    }
    explain_windows(cfg, ir, &mut r);
    warn_unused(cfg, &mut r);
    r
}

fn explain_ffn(cfg: &Fields, ir: &ModelIr, per_block: bool, r: &mut ParseReport) {
    let dense = ir.groups.iter().find_map(|g| match g.ffn {
        Ffn::Dense { intermediate } => Some(intermediate),
        _ => None,
    });
    if let Some(width) = dense {
        let origin = match (per_block, origin_of(cfg, &fields::DENSE_WIDTH)) {
            (true, _) => Origin::Derived {
                from: "each layer's block_configs entry (intermediate_size, or ffn_mult x hidden_size x 2/3 rounded up to 256)".into(),
            },
            (false, Some(o)) => o,
            (false, None) => Origin::Default {
                why: "not stated".into(),
            },
        };
        // The first dense layer's width; block_configs may vary it by layer.
        r.add("FFN width (dense layers)", width, origin);
    }
    let moe = ir.groups.iter().find_map(|g| match g.ffn {
        Ffn::Moe {
            experts,
            top_k,
            expert_intermediate,
            shared_intermediate,
        } => Some((experts, top_k, expert_intermediate, shared_intermediate)),
        _ => None,
    });
    let Some((experts, top_k, width, shared)) = moe else {
        return;
    };
    let stated = |keys: &[&str]| {
        origin_of(cfg, keys).unwrap_or(Origin::Default {
            why: "not stated".into(),
        })
    };
    r.add("experts", experts, stated(&fields::EXPERTS));
    r.add("experts per token", top_k, stated(&fields::TOP_K));
    r.add("expert width", width, stated(&fields::EXPERT_WIDTH));
    let shared_origin = match origin_of(cfg, &fields::SHARED_WIDTH) {
        Some(o) => o,
        None if cfg.is_llama4() => Origin::Derived {
            from: "Llama 4's one shared expert of the experts' width (transformers Llama4TextMoe)"
                .into(),
        },
        None if cfg.get("n_shared_experts").is_some() => Origin::Derived {
            from: "n_shared_experts x moe_intermediate_size".into(),
        },
        None => Origin::Default {
            why: "the config names no shared expert: none".into(),
        },
    };
    r.add("shared expert width", shared, shared_origin);
}

fn explain_windows(cfg: &Fields, ir: &ModelIr, r: &mut ParseReport) {
    let windowed: u32 = ir
        .groups
        .iter()
        .filter(|g| g.window.is_some())
        .map(|g| g.count)
        .sum();
    let window = ir.groups.iter().find_map(|g| g.window);
    if let Some(w) = window {
        let key = if cfg.get("attention_chunk_size").is_some() {
            "attention_chunk_size"
        } else if cfg.get("block_configs").is_some() {
            "block_configs[].attention.window_length"
        } else {
            "sliding_window"
        };
        let origin = match origin_of(cfg, &[key]) {
            Some(o) => o,
            None => Origin::Config { key: key.into() },
        };
        r.add("attention window", w, origin);
        let rule = if cfg.get("layer_types").is_some() {
            "layer_types".to_string()
        } else if cfg.get("attention_chunk_size").is_some() {
            "no_rope_layers (or every no_rope_layer_interval-th layer global)".to_string()
        } else if cfg.get("sliding_window_pattern").is_some() {
            "sliding_window_pattern (every n-th layer global)".to_string()
        } else {
            "every layer".to_string()
        };
        r.add(
            "layers with a window",
            windowed,
            Origin::Derived { from: rule },
        );
    }
}

/// Fields the config sets that change serving and that the engine does not read.
fn warn_unused(cfg: &Fields, r: &mut ParseReport) {
    let dtype = cfg
        .get("torch_dtype")
        .or_else(|| cfg.get("dtype"))
        .and_then(Value::as_str);
    if let Some(d) = dtype.filter(|d| !KNOWN_TORCH_DTYPES.contains(d)) {
        r.warnings.push(format!(
            "torch_dtype {:?} is not a dtype the engine reads ({}): the weights are served in the dtype you choose, BF16 unless you do",
            d.chars().take(40).collect::<String>(),
            KNOWN_TORCH_DTYPES.join(", ")
        ));
    }
    if let Some(Value::Object(rope)) = cfg.get("rope_scaling") {
        let kind = rope
            .get("rope_type")
            .or_else(|| rope.get("type"))
            .and_then(Value::as_str)
            .unwrap_or("unnamed");
        let factor = rope
            .get("factor")
            .and_then(Value::as_f64)
            .map_or(String::new(), |f| format!(", factor {f}"));
        r.warnings.push(format!(
            "rope_scaling ({}{factor}) is not read: the context window is max_position_embeddings as the config states, and scaling changes no cost the engine computes",
            kind.chars().take(40).collect::<String>()
        ));
    }
    let sliding = cfg.get("sliding_window").and_then(Value::as_u64);
    if let (Some(w), Some(Value::Bool(false))) = (sliding, cfg.get("use_sliding_window")) {
        r.warnings.push(format!(
            "sliding_window ({w}) is not used: use_sliding_window is false, so every layer attends over the whole context"
        ));
    }
    if let (Some(Value::Bool(true)), Some(n)) = (
        cfg.get("use_sliding_window"),
        cfg.get("max_window_layers").and_then(Value::as_u64),
    ) {
        r.warnings.push(format!(
            "max_window_layers ({n}) is not read: every layer is given the sliding window"
        ));
    }
    if let Some(q) = cfg.get("quantization_config") {
        r.warnings.push(match super::quantized_dtype(q) {
            Some(d) => format!(
                "quantization_config is read for the weights' default dtype, {d}; the rest of it is not read"
            ),
            None => "quantization_config is not read: the weights are served in the dtype you choose".into(),
        });
    }
}
