//! A fused MoE's device time per routed pick of FP4 or block-scaled FP8 experts beyond
//! the pick's matmul (`audit/MODEL.md` 3.2.1): its closed form on the routed-experts
//! operator, which expert formats pay it, and which frameworks and chips set it.

use crate::common::*;
use disagg_engine::kernel::{step_cost, OpKind, Placement, StepShape};
use disagg_engine::model::Ffn;
use disagg_engine::serving::{Framework, FrameworkChoice};

/// Qwen3-30B-A3B on one B200, every weight in `dtype`, `ns` a pick.
fn qwen_a3b(dtype: DType, ns: f64) -> Placement<'static> {
    let a = Assumptions::default().pin("fp4_routed_pick_time", ns * 1e-9);
    let b200 = cat().chip("b200").unwrap();
    placed(
        "qwen3-30b-a3b",
        b200,
        Parallelism::single(),
        dtype,
        DType::Fp8,
        a,
    )
}

/// The default assumptions under framework `f`, resolved on `chip`.
fn under(f: Framework, chip: &str) -> Assumptions {
    Assumptions {
        framework: FrameworkChoice::Given(f),
        ..Assumptions::default()
    }
    .on_chip(cat().chip(chip).unwrap())
}

/// The model's routed picks per token over all its MoE layers: top-k times the layers.
fn picks_per_token(model: &str) -> f64 {
    cat()
        .model(model)
        .unwrap()
        .ir
        .groups
        .iter()
        .map(|g| match g.ffn {
            Ffn::Moe { top_k, .. } => g.count as f64 * top_k as f64,
            _ => 0.0,
        })
        .sum()
}

#[test]
fn each_fp4_pick_adds_its_time_to_the_routed_experts_compute() {
    // A prompt step of 8,192 tokens on one chip: no expert parallelism, so the chip
    // takes every pick, 8 in each of the 48 MoE layers.
    let shape = StepShape::prefill(1.0, 8192.0, 0.0);
    assert_eq!(picks_per_token("qwen3-30b-a3b"), 48.0 * 8.0);
    let without = step_cost(&qwen_a3b(DType::Nvfp4, 0.0), shape);
    let with = step_cost(&qwen_a3b(DType::Nvfp4, 19.2), shape);
    let routed = |s: &StepCost| *s.op(OpKind::RoutedExperts);
    let added = routed(&with).compute_time - routed(&without).compute_time;
    let by_hand = 8192.0 * picks_per_token("qwen3-30b-a3b") * 19.2e-9;
    assert!(
        (added.value() - by_hand).abs() <= 1e-9 * by_hand,
        "{added:?} against {by_hand} s"
    );
    // Device time on the compute side: FLOPs, bytes and the other operators stay.
    assert_eq!(routed(&with).flops, routed(&without).flops);
    assert_eq!(routed(&with).memory_time, routed(&without).memory_time);
    for kind in OpKind::ALL
        .into_iter()
        .filter(|k| *k != OpKind::RoutedExperts)
    {
        assert_eq!(with.op(kind), without.op(kind), "{kind:?}");
    }
    assert!(with.total > without.total);
    // FP8 and BF16 experts pay none: their matmul rate already holds (AUDIT).
    for dtype in [DType::Fp8, DType::Bf16] {
        assert_eq!(
            step_cost(&qwen_a3b(dtype, 19.2), shape),
            step_cost(&qwen_a3b(dtype, 0.0), shape),
            "{dtype:?}"
        );
    }
}

#[test]
fn tensorrt_llm_sets_its_cutlass_time_on_the_chips_it_was_timed_on() {
    let on = |f: Framework, chip: &str| under(f, chip).fp4_routed_pick_time;
    for (chip, ns) in [
        ("b200", 19.2),
        ("b300", 22.5),
        ("gb200", 19.9),
        ("gb300", 21.5),
        ("rtx-pro-6000", 8.7),
    ] {
        let t = on(Framework::TrtLlm, chip);
        assert!((t.value() - ns * 1e-9).abs() < 1e-15, "{chip}: {t:?}");
    }
    // Hopper has no FP4 timing; other frameworks' MoE kernels are not TensorRT-LLM's.
    assert_eq!(on(Framework::TrtLlm, "h200"), Seconds::ZERO);
    for f in [Framework::Sglang, Framework::Vllm] {
        assert_eq!(on(f, "b200"), Seconds::ZERO, "{f}");
    }
    assert_eq!(Assumptions::default().fp4_routed_pick_time, Seconds::ZERO);
    // A stated value wins over the framework's: the TRTLLM backend's 1.3 ns.
    let stated = Assumptions {
        framework: FrameworkChoice::Given(Framework::TrtLlm),
        ..Assumptions::default()
    }
    .pin("fp4_routed_pick_time", 1.3e-9)
    .on_chip(cat().chip("b200").unwrap());
    assert!((stated.fp4_routed_pick_time.value() - 1.3e-9).abs() < 1e-18);
}

#[test]
fn points_that_name_the_trtllm_backend_state_its_time() {
    let table = BenchmarkTable::builtin().unwrap();
    let point = |id: &str| table.point.iter().find(|p| p.id == id).unwrap();
    // InferenceMAX's TP4 script without attention DP: the TRTLLM backend.
    let a = point("IMXA05a").assumptions(&Assumptions::default());
    assert!((a.fp4_routed_pick_time.value() - 1.3e-9).abs() < 1e-18);
    assert!(a.pinned.contains("fp4_routed_pick_time"));
    // trtllm-bench's perf-overview runs set no backend: CUTLASS, the framework's.
    let b = point("TRTB26").assumptions(&Assumptions::default());
    assert!(!b.pinned.contains("fp4_routed_pick_time"));
}

#[test]
fn the_routed_experts_explain_names_the_pick_time_and_its_source() {
    use disagg_engine::kernel::step_chain;
    let shape = StepShape::prefill(1.0, 2048.0, 0.0);
    let b200 = cat().chip("b200").unwrap();
    let explain = |f: Framework, dtype: DType| {
        let a = under(f, "b200");
        let p = placed(
            "qwen3-30b-a3b",
            b200,
            Parallelism::single(),
            dtype,
            DType::Fp8,
            a,
        );
        step_chain(&p, &step_cost(&p, shape), "t_pf", "prompt step").render()
    };
    let trtllm = explain(Framework::TrtLlm, DType::Nvfp4);
    assert!(
        trtllm.contains("fp4_routed_pick_time, 19.2 ns (TensorRT-LLM's on b200"),
        "{trtllm}"
    );
    // Only the routed experts' row says it.
    assert_eq!(
        trtllm.matches("fp4_routed_pick_time").count(),
        1,
        "{trtllm}"
    );
    // No time, no words: another framework, or experts in FP8.
    assert!(!explain(Framework::Sglang, DType::Nvfp4).contains("fp4_routed_pick_time"));
    assert!(!explain(Framework::TrtLlm, DType::Fp8).contains("fp4_routed_pick_time"));
}

/// DeepSeek-R1 on eight H200s with expert parallelism across them, every weight in
/// `dtype`, the two pick-time knobs at `fp4_ns` and `fp8_block_ns`.
fn deepseek_on_h200(dtype: DType, fp4_ns: f64, fp8_block_ns: f64) -> Placement<'static> {
    let a = Assumptions::default()
        .pin("fp4_routed_pick_time", fp4_ns * 1e-9)
        .pin("fp8_block_routed_pick_time", fp8_block_ns * 1e-9);
    let h200 = cat().chip("h200").unwrap();
    let mut par = tp(8);
    par.ep = 8;
    placed("deepseek-r1", h200, par, dtype, DType::Fp8, a)
}

#[test]
fn each_block_scaled_fp8_pick_adds_its_own_time_and_no_other_format_does() {
    // A prompt step of 4,096 tokens: EP8 with balanced routing leaves each chip an eighth
    // of the picks times the busiest rank's factor, which the step's own figures give.
    let shape = StepShape::prefill(1.0, 4096.0, 0.0);
    let routed = |s: &StepCost| *s.op(OpKind::RoutedExperts);
    let base = step_cost(&deepseek_on_h200(DType::Fp8Block, 0.0, 0.0), shape);
    let with = step_cost(&deepseek_on_h200(DType::Fp8Block, 0.0, 81.1), shape);
    let twice = step_cost(&deepseek_on_h200(DType::Fp8Block, 0.0, 162.2), shape);
    let added = routed(&with).compute_time - routed(&base).compute_time;
    // Linear in the time per pick, and nothing else moves.
    let added_twice = routed(&twice).compute_time - routed(&base).compute_time;
    assert!(
        (added_twice.value() - 2.0 * added.value()).abs() <= 1e-9 * added.value(),
        "{added:?} then {added_twice:?}"
    );
    assert_eq!(routed(&with).flops, routed(&base).flops);
    assert_eq!(routed(&with).memory_time, routed(&base).memory_time);
    // At least the balanced share, 4,096 x 8 picks x 58 MoE layers / 8 ranks, each
    // 81.1 ns; at most that times the imbalance a few ranks of skew can add.
    let balanced = 4096.0 * picks_per_token("deepseek-r1") / 8.0 * 81.1e-9;
    assert_eq!(picks_per_token("deepseek-r1"), 58.0 * 8.0);
    assert!(
        added.value() >= balanced * (1.0 - 1e-9) && added.value() <= 2.0 * balanced,
        "{added:?} against {balanced} s balanced"
    );
    // The FP4 knob does not touch block-scaled FP8 experts, nor this knob per-tensor
    // FP8, BF16 or FP4 ones.
    assert_eq!(
        step_cost(&deepseek_on_h200(DType::Fp8Block, 19.2, 0.0), shape),
        base
    );
    for dtype in [DType::Fp8, DType::Bf16, DType::Nvfp4] {
        assert_eq!(
            step_cost(&deepseek_on_h200(dtype, 0.0, 81.1), shape),
            step_cost(&deepseek_on_h200(dtype, 0.0, 0.0), shape),
            "{dtype:?}"
        );
    }
    // Block-scaled FP8 stores one FP32 scale per 16,384 weights and otherwise costs
    // what per-tensor FP8 does: the same matmul FLOPs at the same rate.
    let per_tensor = step_cost(&deepseek_on_h200(DType::Fp8, 0.0, 0.0), shape);
    assert_eq!(routed(&base).flops, routed(&per_tensor).flops);
    assert_eq!(routed(&base).compute_time, routed(&per_tensor).compute_time);
}

#[test]
fn tensorrt_llm_sets_its_block_scaled_fp8_time_on_hopper_only() {
    let on = |f: Framework, chip: &str| under(f, chip).fp8_block_routed_pick_time;
    for (chip, ns) in [("h100-sxm", 100.1), ("h200", 81.1)] {
        let t = on(Framework::TrtLlm, chip);
        assert!((t.value() - ns * 1e-9).abs() < 1e-15, "{chip}: {t:?}");
    }
    // Blackwell's block-scaled FP8 runs on kernels the collector timed only under skewed
    // routing; SGLang's and vLLM's MoE kernels are not TensorRT-LLM's.
    assert_eq!(on(Framework::TrtLlm, "b200"), Seconds::ZERO);
    for f in [Framework::Sglang, Framework::Vllm] {
        assert_eq!(on(f, "h200"), Seconds::ZERO, "{f}");
    }
    assert_eq!(
        Assumptions::default().fp8_block_routed_pick_time,
        Seconds::ZERO
    );
}

#[test]
fn deepseek_fp8_points_read_the_block_scaled_checkpoint() {
    let table = BenchmarkTable::builtin().unwrap();
    let deepseek = table
        .point
        .iter()
        .filter(|p| p.model.starts_with("deepseek-"));
    // No DeepSeek row reads its FP8 weights as per-tensor FP8: deepseek-ai's checkpoints
    // scale 128 x 128 blocks.
    for p in deepseek {
        assert_ne!(p.weight_dtype, DType::Fp8, "{}", p.id);
    }
    // The catalogue's presets ship the same format.
    for id in ["deepseek-r1", "deepseek-v3"] {
        let m = cat().model(id).unwrap();
        assert_eq!(m.default_weight_dtype, DType::Fp8Block, "{id}");
    }
}

#[test]
fn the_explain_names_the_block_scaled_fp8_time_on_the_routed_row() {
    use disagg_engine::kernel::step_chain;
    let shape = StepShape::prefill(1.0, 2048.0, 0.0);
    let h200 = cat().chip("h200").unwrap();
    let a = under(Framework::TrtLlm, "h200");
    let explain = |dtype: DType| {
        let mut par = tp(8);
        par.ep = 8;
        let p = placed("deepseek-r1", h200, par, dtype, DType::Fp8, a);
        step_chain(&p, &step_cost(&p, shape), "t_pf", "prompt step").render()
    };
    let block = explain(DType::Fp8Block);
    assert!(
        block.contains("fp8_block_routed_pick_time, 81.1 ns (TensorRT-LLM's on h200"),
        "{block}"
    );
    assert_eq!(block.matches("routed_pick_time").count(), 1, "{block}");
    assert!(!explain(DType::Fp8).contains("routed_pick_time"));
}
