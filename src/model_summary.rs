//! A model in a few lines, under the model control: its size, layers, attention, KV
//! cache and context, for a catalogue model and the user's own config alike, so a
//! pasted config can be checked at a glance against what its authors publish.

use crate::format::{bytes, count, sig3};
use disagg_engine::catalogue::Grade;
use disagg_engine::memory::{LayerShare, Part};
use disagg_engine::model::hf::Origin;
use disagg_engine::model::{Attention, Ffn};
use disagg_engine::units::Bytes;
use disagg_engine::{DType, ModelPreset, Parallelism, Precision, WeightFormat};

/// Each component's weight format as the scenario's choices leave it: the chosen weight
/// dtype or the model's usual one, and `[experts, attention output, LM head]` apart
/// where chosen.
pub fn precision(
    m: &ModelPreset,
    weights: Option<DType>,
    [experts, attn_out, lm_head]: [Option<DType>; 3],
) -> Precision {
    let dense = WeightFormat::new(weights.unwrap_or(m.default_weight_dtype));
    Precision::with(dense, experts, lm_head).with_attn_out(attn_out)
}

/// `(what, value)` lines; `weights` the formats the weights are served in.
pub fn summary(m: &ModelPreset, kv: DType, weights: Precision) -> Vec<(&'static str, String)> {
    let ir = &m.ir;
    let p = ir.params();
    let billions = |v: f64| format!("{}B", sig3(v / 1e9));
    let mut params = format!("{} total", billions(p.total));
    if ir.is_moe() {
        params.push_str(&format!(", {} active per token", billions(p.active)));
    }
    let mut out = vec![
        ("parameters", params),
        ("layers", layers(m)),
        ("attention", attention(m)),
        (
            "KV cache",
            format!(
                "{} per token at {}",
                bytes(Bytes::new(ir.kv_values_for_context(1.0) * kv.bytes())),
                kv.name()
            ),
        ),
        (
            "context window",
            format!("{} tokens", count(ir.max_context as u64)),
        ),
        ("weights", weight_line(m, weights)),
    ];
    if m.config_provenance.grade == Grade::User {
        out.push((
            "source",
            "your config.json (grade: user; checked for sense, not against a source)".into(),
        ));
    }
    out
}

/// "fp4, experts mxfp4: 65.2 GB in all (served in fp4 unless chosen)": the formats and
/// the whole model's weight bytes in them, the one sum memory sizes chips with
/// ([`LayerShare`] on one chip, [`Precision::bytes`]).
fn weight_line(m: &ModelPreset, weights: Precision) -> String {
    let ir = &m.ir;
    let whole = Parallelism {
        tp: 1,
        pp: 1,
        dp: 1,
        ep: 1,
    };
    let share = LayerShare::of(ir, whole, Part::Whole, 0.0, 0);
    let tables = ir.params().embedding;
    let total = weights.bytes(share.components(1.0, tables));
    format!(
        "{}: {} in all (served in {} unless chosen)",
        weights.describe(),
        bytes(Bytes::new(total)),
        m.default_weight_dtype.name()
    )
}

/// Where each of the model's numbers came from in its config, one line each:
/// "KV heads 8: config num_key_value_heads", "head size 128: derived from hidden_size /
/// num_attention_heads", "context window 4,096: default (...)".
pub fn provenance(m: &ModelPreset) -> Vec<String> {
    m.parse_report
        .fields
        .iter()
        .map(|f| {
            let origin = match &f.origin {
                Origin::Config { key } => format!("config {key}"),
                Origin::Derived { from } => format!("derived from {from}"),
                Origin::Default { why } => format!("default ({why})"),
            };
            format!("{} {}: {origin}", f.field, f.value)
        })
        .collect()
}

/// The parser's warnings on the model's config.
pub fn warnings(m: &ModelPreset) -> &[String] {
    &m.parse_report.warnings
}

/// "80: 80 dense" or "61: 3 dense, 58 MoE (256 experts, top 8)".
fn layers(m: &ModelPreset) -> String {
    let ir = &m.ir;
    let (mut dense, mut moe, mut other, mut windowed) = (0, 0, 0, 0);
    let mut experts = None;
    for g in &ir.groups {
        match g.ffn {
            Ffn::Dense { .. } => dense += g.count,
            Ffn::Moe {
                experts: e, top_k, ..
            } => {
                moe += g.count;
                experts = Some((e, top_k));
            }
            Ffn::Linear | Ffn::Skipped => other += g.count,
        }
        if g.window.is_some() {
            windowed += g.count;
        }
    }
    let mut parts = Vec::new();
    if dense > 0 {
        parts.push(format!("{dense} dense"));
    }
    if moe > 0 {
        let (e, k) = experts.unwrap_or_default();
        parts.push(format!("{moe} MoE ({e} experts, top {k})"));
    }
    if other > 0 {
        parts.push(format!("{other} with a linear or no FFN"));
    }
    if windowed > 0 {
        parts.push(format!("{windowed} with sliding-window attention"));
    }
    format!("{}: {}", ir.num_layers, parts.join(", "))
}

/// The first attention layer's kind and shape.
fn attention(m: &ModelPreset) -> String {
    let first =
        m.ir.groups
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
            let kind = if kv_heads == heads {
                "multi-head (MHA)"
            } else if kv_heads == 1 {
                "multi-query (MQA)"
            } else {
                "grouped-query (GQA)"
            };
            format!("{kind}: {heads} heads, {kv_heads} KV heads, head size {head_dim}")
        }
        Some(Attention::Mla {
            heads,
            kv_rank,
            qk_rope,
            ..
        }) => format!(
            "multi-head latent (MLA): {heads} heads, KV latent {kv_rank} + {qk_rope} rotary"
        ),
        _ => "none".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use disagg_engine::Catalogue;

    #[test]
    fn a_users_config_reads_as_its_published_shape() {
        let m = ModelPreset::from_user_config(crate::scenario::tests::QWEN25_72B).unwrap();
        let lines = summary(&m, DType::Fp8, precision(&m, None, [None; 3]));
        let text = |what: &str| {
            lines
                .iter()
                .find(|(w, _)| *w == what)
                .map(|(_, v)| v.clone())
                .unwrap_or_default()
        };
        assert_eq!(text("parameters"), "72.7B total");
        assert_eq!(text("layers"), "80: 80 dense");
        assert_eq!(
            text("attention"),
            "grouped-query (GQA): 64 heads, 8 KV heads, head size 128"
        );
        // 80 layers x 2 (K and V) x 8 heads x 128 values x 1 byte.
        assert_eq!(
            text("KV cache"),
            format!("{} per token at fp8", bytes(Bytes::new(163_840.0)))
        );
        assert_eq!(text("context window"), "32,768 tokens");
        assert!(text("source").contains("grade: user"));
    }

    #[test]
    fn each_number_of_a_users_config_says_where_it_came_from() {
        let m = ModelPreset::from_user_config(crate::scenario::tests::QWEN25_72B).unwrap();
        let lines = provenance(&m);
        let line = |start: &str| {
            lines
                .iter()
                .find(|l| l.starts_with(start))
                .cloned()
                .unwrap_or_else(|| panic!("no {start} in {lines:?}"))
        };
        assert_eq!(line("KV heads"), "KV heads 8: config num_key_value_heads");
        assert_eq!(
            line("head size"),
            "head size 128: derived from hidden_size / num_attention_heads"
        );
        assert_eq!(
            line("context window"),
            "context window 32768: config max_position_embeddings"
        );
        assert!(warnings(&m).is_empty(), "{:?}", warnings(&m));
        // Qwen2.5's published config also ships a sliding window it does not use.
        let with_window = crate::scenario::tests::QWEN25_72B.replace(
            "\"torch_dtype\"",
            "\"sliding_window\":131072,\"use_sliding_window\":false,\"torch_dtype\"",
        );
        let m = ModelPreset::from_user_config(&with_window).unwrap();
        assert!(
            warnings(&m)
                .iter()
                .any(|w| w.contains("use_sliding_window is false")),
            "{:?}",
            warnings(&m)
        );
    }

    #[test]
    fn a_moe_preset_names_its_experts_and_active_parameters() {
        let m = Catalogue::builtin().model("deepseek-v3").unwrap();
        let lines = summary(m, DType::Fp8, precision(m, None, [None; 3]));
        let all: String = lines.iter().map(|(w, v)| format!("{w}: {v}\n")).collect();
        assert!(all.contains("active per token"), "{all}");
        assert!(all.contains("MoE (256 experts, top 8)"), "{all}");
        assert!(all.contains("multi-head latent (MLA)"), "{all}");
        assert!(!all.contains("grade: user"), "{all}");
    }

    #[test]
    fn the_weights_line_names_each_format_and_sums_the_bytes_in_them() {
        let m = Catalogue::builtin().model("gpt-oss-120b").unwrap();
        let line = |p: Precision| {
            summary(m, DType::Fp8, p)
                .into_iter()
                .find(|(w, _)| *w == "weights")
                .unwrap()
                .1
        };
        let bf16 = line(precision(m, Some(DType::Bf16), [None; 3]));
        let mixed = line(precision(
            m,
            Some(DType::Bf16),
            [Some(DType::Mxfp4), None, None],
        ));
        assert!(bf16.starts_with("bf16: "), "{bf16}");
        assert!(mixed.starts_with("bf16, experts mxfp4: "), "{mixed}");
        assert!(mixed.ends_with("(served in fp4 unless chosen)"), "{mixed}");
        // The weights memory places on one chip that holds the whole model: about
        // 65 GB for gpt-oss as published.
        let published = disagg_engine::memory::MemoryPlan::for_part(
            &m.ir,
            Part::Whole,
            Catalogue::builtin().chip("b200").unwrap(),
            Parallelism {
                tp: 1,
                pp: 1,
                dp: 1,
                ep: 1,
            },
            precision(m, Some(DType::Bf16), [Some(DType::Mxfp4), None, None]),
            DType::Fp8,
            1.0,
            &disagg_engine::Assumptions::default(),
        )
        .weights
        .value();
        assert!((60e9..70e9).contains(&published), "{published}");
        assert!(mixed.contains(&bytes(Bytes::new(published))), "{mixed}");
    }
}
