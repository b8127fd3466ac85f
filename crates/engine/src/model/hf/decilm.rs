//! DeciLM / Nemotron-NAS `block_configs`: per-layer attention and FFN.

use super::fields::Fields;
use super::missing;
use crate::error::{EngineError, Result};
use crate::limits::MAX_CONFIG_VALUE;
use crate::model::{Attention, Ffn, LayerGroup};
use serde_json::Value;

/// DeciLM / Nemotron-NAS (`block_configs`, one entry per layer, from NVIDIA's Puzzle
/// architecture search): each layer has its own attention (GQA with `n_heads_in_group`
/// query heads per KV head, one linear map, or none) and its own FFN (SwiGLU whose width
/// follows `ffn_mult`, one linear map, or none). Heads and head size are the config's.
pub(super) fn decilm_layers(
    blocks: &Value,
    num_layers: u32,
    hidden: u32,
    global: Attention,
) -> Result<Vec<LayerGroup>> {
    let Attention::Gqa {
        heads, head_dim, ..
    } = global
    else {
        return Err(EngineError::Config(
            "block_configs is read with plain grouped-query attention only".into(),
        ));
    };
    let blocks = blocks
        .as_array()
        .ok_or_else(|| EngineError::Config("block_configs must be a list".into()))?;
    if blocks.len() < num_layers as usize {
        return Err(EngineError::Config(format!(
            "block_configs describes {} layers but num_hidden_layers is {num_layers}",
            blocks.len()
        )));
    }
    blocks[..num_layers as usize]
        .iter()
        .enumerate()
        .map(|(i, block)| {
            let attention = decilm_attention(&block_part(block, i, "attention")?, heads, head_dim)
                .map_err(|e| in_block(e, i, "attention"));
            let (attention, window) = attention?;
            let ffn = decilm_ffn(&block_part(block, i, "ffn")?, hidden)
                .map_err(|e| in_block(e, i, "ffn"))?;
            Ok(LayerGroup {
                count: 1,
                attention,
                window,
                ffn,
            })
        })
        .collect()
}

/// The `attention` or `ffn` object of block `i`.
fn block_part<'a>(block: &'a Value, i: usize, name: &str) -> Result<Fields<'a>> {
    block
        .get(name)
        .and_then(Value::as_object)
        .map(Fields::of_object)
        .ok_or_else(|| missing(&format!("block_configs[{i}].{name}")))
}

/// Says which block and part a configuration error is about.
fn in_block(e: EngineError, i: usize, name: &str) -> EngineError {
    match e {
        EngineError::Config(m) => EngineError::Config(format!("block_configs[{i}].{name}: {m}")),
        other => other,
    }
}

fn decilm_attention(a: &Fields, heads: u32, head_dim: u32) -> Result<(Attention, Option<u32>)> {
    if a.get("sparsify").is_some() {
        return Err(EngineError::Config("sparsify is not modelled".into()));
    }
    if a.opt_bool("no_op")? == Some(true) {
        return Ok((Attention::Skipped, None));
    }
    if a.opt_bool("replace_with_linear")? == Some(true) {
        return Ok((Attention::Linear, None));
    }
    let kv_heads = match a.opt_u32("num_key_value_heads")? {
        Some(kv) => kv,
        None => {
            let group = a.req_u32("n_heads_in_group")?;
            if group == 0 || heads % group != 0 {
                return Err(EngineError::Config(format!(
                    "n_heads_in_group ({group}) must divide num_attention_heads ({heads})"
                )));
            }
            heads / group
        }
    };
    if kv_heads == 0 || heads % kv_heads != 0 {
        return Err(EngineError::Config(format!(
            "num_attention_heads ({heads}) must be a positive multiple of the layer's KV heads ({kv_heads})"
        )));
    }
    let attention = Attention::Gqa {
        heads,
        kv_heads,
        head_dim,
        q_rank: None,
    };
    Ok((attention, a.opt_u32("window_length")?.filter(|&w| w > 0)))
}

fn decilm_ffn(f: &Fields, hidden: u32) -> Result<Ffn> {
    if f.get("sparsify").is_some() || f.get("moe").is_some() {
        return Err(EngineError::Config(
            "sparse and mixture-of-experts blocks are not modelled".into(),
        ));
    }
    if f.opt_bool("no_op")? == Some(true) {
        return Ok(Ffn::Skipped);
    }
    if f.opt_bool("replace_with_linear")? == Some(true) {
        return Ok(Ffn::Linear);
    }
    let intermediate = match f.opt_u32("intermediate_size")? {
        Some(width) => width,
        None => {
            let mult = f
                .get("ffn_mult")
                .and_then(Value::as_f64)
                .filter(|m| m.is_finite() && *m > 0.0 && *m < 1e3)
                .ok_or_else(|| missing("ffn_mult"))?;
            // DeciLM's `_ffn_mult_to_intermediate_size`: two thirds of mult x hidden
            // (SwiGLU's convention), truncated, then rounded up to a multiple of 256.
            let width = (2.0 * mult * hidden as f64 / 3.0).floor();
            let rounded = (width / 256.0).ceil() * 256.0;
            if rounded > MAX_CONFIG_VALUE as f64 {
                return Err(EngineError::Config(format!(
                    "ffn_mult {mult} gives an FFN width above {MAX_CONFIG_VALUE}"
                )));
            }
            rounded as u32
        }
    };
    Ok(Ffn::Dense { intermediate })
}
