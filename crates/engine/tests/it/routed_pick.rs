//! A fused MoE's device time per routed pick of FP4 experts beyond the pick's matmul
//! (`audit/MODEL.md` 3.2.1): its closed form on the routed-experts operator, which
//! expert formats pay it, and which frameworks and chips set it.

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
    let on = |f: Framework, chip: &str| {
        Assumptions {
            framework: FrameworkChoice::Given(f),
            ..Assumptions::default()
        }
        .on_chip(cat().chip(chip).unwrap())
        .fp4_routed_pick_time
    };
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
        let a = Assumptions {
            framework: FrameworkChoice::Given(f),
            ..Assumptions::default()
        }
        .on_chip(b200);
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
