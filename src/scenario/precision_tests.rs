//! The weight formats per component (`wd`, `ed`, `ao`, `hd`) and the other settings only a
//! model with routed experts reads, as the link carries them.

use super::tests::cat;
use super::*;

#[test]
fn component_dtypes_reach_the_setup_through_the_bundle() {
    // The link keys `ed`, `ao` and `hd` become the setup's expert, attention-output
    // and LM-head formats; a link without them leaves all three following the weight
    // dtype.
    let (s, notices) = Scenario::from_query(
        "v=1&model=gpt-oss-120b&wd=bf16&ed=mxfp4&ao=nvfp4&hd=bf16",
        cat(),
    );
    assert!(notices.is_empty(), "{notices:?}");
    let b = crate::bundle::bundle(&s, cat(), None).unwrap();
    let inputs = b.inputs(cat()).unwrap();
    let p = inputs.setup().precision();
    assert_eq!(
        (
            p.dense.dtype,
            p.experts.dtype,
            p.attn_out.dtype,
            p.lm_head.dtype
        ),
        (DType::Bf16, DType::Mxfp4, DType::Nvfp4, DType::Bf16)
    );
    // The page's "Import bundle" reads them back into the same scenario.
    let (back, _) = crate::bundle::import(&b.to_json(), &s, cat()).unwrap();
    assert_eq!(back, s);
    let (plain, _) = Scenario::from_query("v=1&model=gpt-oss-120b&wd=fp8", cat());
    let b = crate::bundle::bundle(&plain, cat(), None).unwrap();
    let p = b.inputs(cat()).unwrap().setup().precision();
    assert!(!p.is_mixed());
    assert!(!plain.to_query().contains("ed="), "{}", plain.to_query());
    assert!(!plain.to_query().contains("ao="), "{}", plain.to_query());
}

#[test]
fn expert_settings_on_a_dense_model_are_reset_with_a_notice() {
    // Either order of model and settings: the link is read whole first.
    for query in [
        "v=1&model=llama-3.1-8b&ed=nvfp4&re=32&adp=1&xchg=gather_scatter",
        "v=1&ed=nvfp4&re=32&adp=1&xchg=gather_scatter&model=llama-3.1-8b",
    ] {
        let (s, notices) = Scenario::from_query(query, cat());
        assert_eq!(
            (s.expert_dtype, s.redundant_experts, s.aligned_prefill),
            (None, 0, false),
            "{query}"
        );
        assert!(s.expert_exchange.is_all_to_all(), "{query}");
        assert_eq!(
            notices,
            [
                "ignored ed=nvfp4: the model has no routed experts",
                "ignored re=32: the model has no routed experts",
                "ignored adp=1: the model has no routed experts",
                "ignored xchg=gather_scatter: the model has no routed experts",
            ],
            "{query}"
        );
    }
    // A model with routed experts keeps them, without a word.
    let (s, notices) = Scenario::from_query(
        "v=1&model=deepseek-r1&ed=nvfp4&re=32&adp=1&xchg=gather_scatter",
        cat(),
    );
    assert!(notices.is_empty(), "{notices:?}");
    assert_eq!(
        (s.expert_dtype, s.redundant_experts, s.aligned_prefill),
        (Some(DType::Nvfp4), 32, true)
    );
    assert_eq!(s.expert_exchange.id(), "gather_scatter");
    // Picking a dense model on the page puts them back, and says which it reset.
    let mut s = s;
    s.apply("model", "llama-3.1-8b", cat()).unwrap();
    let reset = s.reset_expert_settings_of_a_dense_model(cat());
    assert_eq!(
        reset,
        [
            ("ed", "nvfp4".to_string()),
            ("re", "32".to_string()),
            ("adp", "1".to_string()),
            ("xchg", "gather_scatter".to_string())
        ]
    );
    assert_eq!(s.reset_expert_settings_of_a_dense_model(cat()), []);
    // An unknown model is ignored, so the settings are read against the model kept
    // (the default, dense): two notices, each naming its key.
    let (s, notices) = Scenario::from_query("v=1&model=no-such-model&ed=nvfp4", cat());
    assert_eq!(s.expert_dtype, None);
    assert_eq!(notices.len(), 2, "{notices:?}");
    assert!(notices[0].starts_with("ignored model="), "{notices:?}");
}

#[test]
fn block_scaled_fp8_is_a_weight_format_the_link_refuses_for_the_kv_cache() {
    // As the weights' format it reaches the setup, DeepSeek's checkpoint as shipped.
    let (s, notices) = Scenario::from_query("v=1&model=deepseek-r1&wd=fp8-block", cat());
    assert!(notices.is_empty(), "{notices:?}");
    let b = crate::bundle::bundle(&s, cat(), None).unwrap();
    let inputs = b.inputs(cat()).unwrap();
    assert_eq!(inputs.setup().precision().dense.dtype, DType::Fp8Block);
    assert!(s.to_query().contains("wd=fp8-block"), "{}", s.to_query());
    // As the KV cache's it is refused by name, and the cache keeps its FP8.
    let (s, notices) = Scenario::from_query("v=1&model=deepseek-r1&kv=fp8-block", cat());
    assert_eq!(s.kv_dtype, DType::Fp8);
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert!(
        notices[0].starts_with("ignored kv=\"fp8-block\": fp8-block is a weight format"),
        "{notices:?}"
    );
}
