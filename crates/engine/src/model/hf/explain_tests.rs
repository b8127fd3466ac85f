//! Where each number of a parsed config came from, and the parser's warnings.

use super::*;

fn report(json: &str) -> ParseReport {
    let value: Value = serde_json::from_str(json).unwrap();
    parse_config_explained(&value).unwrap().report
}

fn config(key: &str) -> Origin {
    Origin::Config { key: key.into() }
}

/// meta-llama/Llama-3.3-70B-Instruct's config.json, its modelled fields as published.
const LLAMA_33_70B: &str = r#"{
    "architectures": ["LlamaForCausalLM"], "model_type": "llama",
    "hidden_size": 8192, "intermediate_size": 28672, "num_hidden_layers": 80,
    "num_attention_heads": 64, "num_key_value_heads": 8, "vocab_size": 128256,
    "max_position_embeddings": 131072, "tie_word_embeddings": false,
    "rope_scaling": {"factor": 8.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
        "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    "torch_dtype": "bfloat16"
}"#;

#[test]
fn a_llama_config_names_the_key_of_each_number() {
    let r = report(LLAMA_33_70B);
    assert_eq!(r.origin("hidden size"), Some(&config("hidden_size")));
    assert_eq!(r.origin("layers"), Some(&config("num_hidden_layers")));
    assert_eq!(r.origin("vocabulary"), Some(&config("vocab_size")));
    assert_eq!(r.origin("KV heads"), Some(&config("num_key_value_heads")));
    assert_eq!(
        r.origin("FFN width (dense layers)"),
        Some(&config("intermediate_size"))
    );
    assert_eq!(
        r.origin("context window"),
        Some(&config("max_position_embeddings"))
    );
    // No head_dim in the file: computed, and said to be.
    assert_eq!(
        r.origin("head size"),
        Some(&Origin::Derived {
            from: "hidden_size / num_attention_heads".into()
        })
    );
    let head = r.fields.iter().find(|f| f.field == "head size").unwrap();
    assert_eq!(head.value, (8192 / 64).to_string());
    // Its rope scaling is read by nobody, and said so; nothing else is warned about.
    assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
    assert!(r.warnings[0].contains("rope_scaling (llama3, factor 8)"));
}

#[test]
fn defaults_are_named_with_the_value_used_and_why() {
    let bare = r#"{"hidden_size": 64, "num_hidden_layers": 2, "vocab_size": 10,
        "num_attention_heads": 4, "intermediate_size": 128, "torch_dtype": "float8_e9"}"#;
    let r = report(bare);
    let kv = r.fields.iter().find(|f| f.field == "KV heads").unwrap();
    assert_eq!(kv.value, "4");
    assert!(
        matches!(&kv.origin, Origin::Default { why } if why.contains("no num_key_value_heads"))
    );
    let ctx = r
        .fields
        .iter()
        .find(|f| f.field == "context window")
        .unwrap();
    assert_eq!(ctx.value, "4096");
    assert!(matches!(ctx.origin, Origin::Default { .. }));
    assert!(matches!(
        r.origin("tied embeddings"),
        Some(Origin::Default { .. })
    ));
    let all = r.warnings.join("\n");
    assert!(
        all.contains("num_key_value_heads is missing: taken equal to num_attention_heads (4)"),
        "{all}"
    );
    assert!(
        all.contains("a context window of 4096 tokens is assumed"),
        "{all}"
    );
    assert!(
        all.contains("torch_dtype \"float8_e9\" is not a dtype the engine reads"),
        "{all}"
    );
    assert_eq!(r.warnings.len(), 3, "{all}");
}

#[test]
fn a_nested_config_and_family_defaults_say_so() {
    // Gemma 3's published layout: the text tower in text_config, the vocabulary left
    // to transformers' class default.
    let r = report(
        r#"{"model_type": "gemma3", "text_config": {"model_type": "gemma3_text",
        "head_dim": 128, "hidden_size": 5376, "intermediate_size": 21504,
        "num_attention_heads": 32, "num_hidden_layers": 62, "num_key_value_heads": 16,
        "sliding_window": 1024}}"#,
    );
    assert_eq!(
        r.origin("hidden size"),
        Some(&config("text_config.hidden_size"))
    );
    assert_eq!(r.origin("head size"), Some(&config("text_config.head_dim")));
    assert!(matches!(r.origin("vocabulary"),
        Some(Origin::Default { why }) if why.contains("Gemma3TextConfig")));
    assert_eq!(
        r.origin("attention window"),
        Some(&config("text_config.sliding_window"))
    );
    let windowed = r
        .fields
        .iter()
        .find(|f| f.field == "layers with a window")
        .unwrap();
    assert_eq!(windowed.value, "52");
}

#[test]
fn a_moe_config_says_how_its_shared_expert_was_found() {
    let deepseek = crate::Catalogue::builtin().model("deepseek-v3").unwrap();
    let r = &deepseek.parse_report;
    assert_eq!(r.origin("experts"), Some(&config("n_routed_experts")));
    assert_eq!(
        r.origin("experts per token"),
        Some(&config("num_experts_per_tok"))
    );
    assert_eq!(r.origin("KV latent rank"), Some(&config("kv_lora_rank")));
    assert_eq!(
        r.origin("shared expert width"),
        Some(&Origin::Derived {
            from: "n_shared_experts x moe_intermediate_size".into()
        })
    );
    assert_eq!(
        r.origin("MTP layers"),
        Some(&config("num_nextn_predict_layers"))
    );
}

#[test]
fn unused_window_fields_are_warned_about() {
    let qwen2 = |extra: &str| {
        format!(
            r#"{{"hidden_size": 64, "num_hidden_layers": 2, "vocab_size": 10,
            "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 128,
            "max_position_embeddings": 4096, {extra}}}"#
        )
    };
    let off = report(&qwen2(
        r#""sliding_window": 512, "use_sliding_window": false"#,
    ));
    assert!(off
        .warnings
        .iter()
        .any(|w| w.contains("sliding_window (512) is not used")));
    let on = report(&qwen2(
        r#""sliding_window": 512, "use_sliding_window": true, "max_window_layers": 1"#,
    ));
    assert!(on
        .warnings
        .iter()
        .any(|w| w.contains("max_window_layers (1) is not read")));
    assert!(on.origin("attention window").is_some());
    // A bad config still names its field, the account or not.
    let bad: Value = serde_json::from_str(&qwen2(r#""sliding_window": 0"#)).unwrap();
    let e = parse_config_explained(&bad).unwrap_err().to_string();
    assert!(e.contains("sliding_window"), "{e}");
}
