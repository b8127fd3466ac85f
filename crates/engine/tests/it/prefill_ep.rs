//! Prefill pools with expert parallelism across attention data-parallel replicas: the
//! all-to-all of every prompt token, the busiest rank's load, and two-batch overlap
//! (`audit/MODEL.md` 3.1 and 6.3.1).

use super::common::*;
use disagg_engine::kernel::{expert_load_imbalance, step_cost, OpKind, Placement, StepShape};

/// DeepSeek-V3 in FP8 on one node of eight H100s, attention data-parallel with EP8.
fn deepseek_on_h100_dp8_ep8(a: Assumptions) -> Placement<'static> {
    let h100 = cat().chip("h100-sxm").unwrap();
    placed("deepseek-v3", h100, dp_ep(8, 8), DType::Fp8, DType::Fp8, a)
}

#[test]
fn a_prefill_steps_all_to_all_moves_each_remote_pick_once_at_the_busiest_ranks_load() {
    let a = Assumptions::default();
    let p = deepseek_on_h100_dp8_ep8(a);
    // Four prompts of 1,024 tokens per replica, every replica of the group at once.
    let tokens = 4.0 * 1024.0;
    let cost = step_cost(&p, StepShape::prefill(4.0, 1024.0, 0.0));
    let (k, h, moe_layers) = (8.0, 7168.0, 58.0);
    // By hand: tokens x top-k x hidden x (1 byte FP8 dispatch + 2 bytes BF16 combine)
    // x (1 - 1/8, the picks on the chip's own experts stay), at the busiest rank's load:
    // 8 replicas' 32,768 tokens pick 262,144 times, a mean of 32,768 per rank, so the
    // sampling spread adds sqrt(2 ln 8 x 7/8 / 32,768) = 1.054%, times the skew 1.18.
    let mean = tokens * 8.0 * k / 8.0;
    let imbalance = 1.18 * (1.0 + (2.0 * 8f64.ln() * 7.0 / 8.0 / mean).sqrt());
    assert!((imbalance - 1.192_44).abs() < 1e-4, "{imbalance}");
    let f = expert_load_imbalance(tokens * 8.0 * k, 8, a.expert_skew);
    assert!((f / imbalance - 1.0).abs() < 1e-14, "{f} vs {imbalance}");
    let by_hand = moe_layers * tokens * k * h * 3.0 * (1.0 - 1.0 / 8.0) * imbalance;
    let bytes = cost.op(OpKind::EpComm).bytes.value();
    assert!(
        (bytes / by_hand - 1.0).abs() < 1e-12,
        "{bytes:e} vs {by_hand:e}"
    );
    // Fully exposed by default: the step is its computation plus the all-to-all.
    assert_eq!(a.comm_overlap, 0.0);
    let comm = cost.op(OpKind::EpComm).time;
    assert!(comm.value() > 0.0);
    assert_eq!(cost.exposed_comm, comm);
    assert_eq!(cost.total, cost.busy + comm + cost.overhead);
}

#[test]
fn the_busiest_ranks_load_scales_the_routed_matmuls_and_nothing_without_experts_spread() {
    let skewed = |skew: f64| Assumptions {
        expert_skew: skew,
        ..Assumptions::default()
    };
    let shape = StepShape::prefill(4.0, 1024.0, 0.0);
    let routed =
        |a: Assumptions| *step_cost(&deepseek_on_h100_dp8_ep8(a), shape).op(OpKind::RoutedExperts);
    let (even, skew) = (routed(skewed(1.0)), routed(skewed(1.5)));
    // The router's own FLOPs (2 x tokens x hidden x experts per layer) do not scale.
    let router = 58.0 * 2.0 * 4096.0 * 7168.0 * 256.0;
    let ratio = (skew.flops.value() - router) / (even.flops.value() - router);
    assert!((ratio - 1.5).abs() < 1e-12, "{ratio}");
    // One expert rank: the skew and the overlap change nothing, to the last bit, in a
    // dense model's aggregated point and in an MoE model held by tensor parallelism.
    let h100 = cat().chip("h100-sxm").unwrap();
    for (model, par) in [("llama-3.1-8b", tp(1)), ("deepseek-v3", tp(8))] {
        let s = scenario(model, h100, par, DType::Fp8, 2048, 256, Batch::Fixed(64));
        let base = predict(&s).unwrap();
        let changed = predict(&Scenario {
            assumptions: Assumptions {
                expert_skew: 3.0,
                prefill_two_batch_overlap: true,
                ..Assumptions::default()
            },
            ..s
        })
        .unwrap();
        assert_eq!(format!("{base:?}"), format!("{changed:?}"), "{model}");
    }
    // A prefill/decode point whose pools are tensor-parallel only (IMX15: TP16 prefill,
    // 2 x TP16 decode with MTP): every figure and pool report the same.
    let p = published_point("IMX15a");
    let changed = Assumptions {
        expert_skew: 3.0,
        prefill_two_batch_overlap: true,
        ..Assumptions::default()
    };
    let run = |a: &Assumptions| validation::evaluate_point(cat(), &p, a).unwrap();
    let (base, other) = (run(&Assumptions::default()), run(&changed));
    assert_eq!(base.figures, other.figures);
    assert_eq!(format!("{:?}", base.pools), format!("{:?}", other.pools));
}

/// SGL-02 (SGLang's prefill on 4 x 8 H100 at EP32) with two-batch overlap on or off.
fn sgl02(overlap: bool) -> (StepCost, f64) {
    let mut p = published_point("SGL-02");
    p.prefill_two_batch_overlap = Some(overlap);
    let point = validation::evaluate_point(cat(), &p, &Assumptions::default()).unwrap();
    let pool = point.pool(PoolRole::Prefill).unwrap();
    (
        pool.costs.prefill.unwrap(),
        pool.input_tok_s_per_chip.value() / pool.utilisation,
    )
}

#[test]
fn two_batch_overlap_hides_the_all_to_all_under_the_other_micro_batchs_computation() {
    let (off, rate_off) = sgl02(false);
    let (on, rate_on) = sgl02(true);
    let comm = |c: &StepCost| c.op(OpKind::EpComm).time;
    // Off: computation plus the whole all-to-all.
    assert_eq!(off.exposed_comm, comm(&off));
    // On: each MoE layer takes four windows, one micro-batch's computation beside the
    // other's communication (DeepSeek's day-6 prefill figure), and the computation runs
    // on 108 of 132 SMs: every compute-bound operator takes 132/108 of its time.
    let tbo = on.two_batch.expect("the MoE layers' windows");
    assert!(off.two_batch.is_none());
    assert_eq!(tbo.layers, 58.0);
    let l = tbo.micro_batch_layer();
    let by_hand = (l.attention + l.shared).max(l.combine)
        + l.attention.max(l.dispatch)
        + l.routed.max(l.dispatch)
        + (l.routed + l.shared).max(l.combine);
    assert!((tbo.time().value() / (by_hand * 58.0).value() - 1.0).abs() < 1e-12);
    // The all-to-all is the MoE layers' only communication here, FP8 dispatch beside a
    // BF16 combine: a third and two thirds of it.
    assert!((tbo.communication() / comm(&on) - 1.0).abs() < 1e-12);
    assert!((tbo.combine / tbo.dispatch - 2.0).abs() < 1e-12);
    let exposed = tbo.time() - tbo.busy();
    assert!((on.exposed_comm / exposed - 1.0).abs() < 1e-12);
    // Never less than a perfect overlap would leave, never more than no overlap.
    assert!(on.exposed_comm >= (comm(&on) - on.busy).max(Seconds::ZERO));
    assert!(on.exposed_comm <= comm(&on));
    // SGLang runs a step's host work beside its device work (MODEL.md 3.5).
    let device = on.busy + on.exposed_comm + (on.overhead - on.host);
    assert!((on.total - device.max(on.host)).value().abs() < 1e-15);
    let attention = |c: &StepCost| c.op(OpKind::AttnProj).compute_time.value();
    assert!((attention(&on) / attention(&off) - 132.0 / 108.0).abs() < 1e-9);
    assert_eq!(comm(&on), comm(&off));
    assert!(on.total < off.total && rate_on > rate_off);
    // The point states the overlap its source reports.
    assert_eq!(
        published_point("SGL-02").prefill_two_batch_overlap,
        Some(true)
    );
}

/// DeepSeek-R1 in FP8 on one GB200 at EP4 (one of SGL-10's four prefill ranks, 288 expert
/// slots), its weights `offload` in the cold tier on purpose.
fn deepseek_on_gb200_ep4(offload: f64, cold: f64) -> Placement<'static> {
    use disagg_engine::assumptions::ChipRates;
    let chip = cat().chip("gb200").unwrap();
    let a = Assumptions {
        weight_offload: offload,
        redundant_experts: 32,
        ..Assumptions::default()
    };
    Placement {
        model: &cat().model("deepseek-r1").unwrap().ir,
        chip,
        parallelism: Parallelism {
            tp: 1,
            pp: 1,
            dp: 4,
            ep: 4,
        },
        weights: disagg_engine::dtype::Precision::uniform(WeightFormat::new(DType::Fp8)),
        kv: DType::Bf16,
        rates: ChipRates::for_chip(chip, &a),
        assumptions: a,
        cold_weight_fraction: cold,
    }
}

#[test]
fn offloaded_weights_stream_beside_the_whole_step_and_the_step_waits_only_for_what_outlasts_it() {
    let gb200 = cat().chip("gb200").unwrap();
    let cold = gb200.cold.unwrap();
    for prompts in [1.0, 16.0] {
        let shape = StepShape::prefill(prompts, 2000.0, 0.0);
        let on = step_cost(&deepseek_on_gb200_ep4(0.5, 0.5), shape);
        let off = step_cost(&deepseek_on_gb200_ep4(0.0, 0.0), shape);
        // The matmuls read every weight from the fast tier either way.
        for kind in OpKind::ALL {
            assert_eq!(on.op(kind).time, off.op(kind).time, "{kind:?}");
        }
        // The stream: half of the weights the step reads, at the cold tier's bandwidth x
        // bw_eff. A prefill's thousands of tokens touch every expert, so it reads every
        // weight on the chip but the embedding table (the memory plan's, within 1%).
        let weights = disagg_engine::memory::MemoryPlan::for_part(
            &cat().model("deepseek-r1").unwrap().ir,
            disagg_engine::memory::Part::Whole,
            gb200,
            Parallelism {
                tp: 1,
                pp: 1,
                dp: 4,
                ep: 4,
            },
            disagg_engine::dtype::Precision::uniform(WeightFormat::new(DType::Fp8)),
            DType::Bf16,
            2100.0,
            &Assumptions {
                redundant_experts: 32,
                ..Assumptions::default()
            },
        )
        .weights
        .value();
        assert!(on.prefetch.value() > 0.0 && off.prefetch.value() == 0.0);
        let stream = on.prefetch.value() * cold.bandwidth.value() * 0.75 / 0.5;
        assert!(
            (stream / weights - 1.0).abs() < 0.01,
            "{stream:e} of {weights:e}"
        );
        let work = off.total;
        assert_eq!(on.prefetch_stall, (on.prefetch - work).max(Seconds::ZERO));
        assert_eq!(on.total, work + on.prefetch_stall);
    }
    // One prompt cannot hide a half-offloaded model's stream; sixteen can.
    let one = step_cost(
        &deepseek_on_gb200_ep4(0.5, 0.5),
        StepShape::prefill(1.0, 2000.0, 0.0),
    );
    let many = step_cost(
        &deepseek_on_gb200_ep4(0.5, 0.5),
        StepShape::prefill(16.0, 2000.0, 0.0),
    );
    assert!(one.prefetch_stall.value() > 0.0);
    assert_eq!(many.prefetch_stall, Seconds::ZERO);
}

#[test]
fn a_stated_offload_moves_its_share_to_the_cold_tier_and_frees_the_fast_one_for_the_budget() {
    use disagg_engine::memory::{MemoryPlan, Part};
    let gb200 = cat().chip("gb200").unwrap();
    let model = &cat().model("deepseek-r1").unwrap().ir;
    let par = Parallelism {
        tp: 1,
        pp: 1,
        dp: 4,
        ep: 4,
    };
    let plan = |offload: f64| {
        let a = Assumptions {
            weight_offload: offload,
            redundant_experts: 32,
            prefill_chunk_tokens: 32768.0,
            ..Assumptions::default()
        };
        MemoryPlan::for_part(
            model,
            Part::Whole,
            gb200,
            par,
            disagg_engine::dtype::Precision::uniform(WeightFormat::new(DType::Fp8)),
            DType::Bf16,
            2100.0,
            &a,
        )
    };
    let (none, third) = (plan(0.0), plan(1.0 / 3.0));
    // Without it the weights fill the fast tier up to one sequence and spill the rest.
    assert_eq!(none.max_seqs(), 1);
    assert!(none.cold_weights().value() > 0.0);
    // With it a third of the weights sit in the cold tier, and the fast tier holds the
    // recipe's sixteen 2,000-token prompts and more.
    assert!((third.cold_weights() / third.weights - 1.0 / 3.0).abs() < 1e-12);
    assert!(third.max_seqs() >= 16, "{}", third.max_seqs());
    // A chip without a cold tier keeps every weight in its memory.
    let h100 = cat().chip("h100-sxm").unwrap();
    let a = Assumptions {
        weight_offload: 0.5,
        ..Assumptions::default()
    };
    let p = MemoryPlan::for_part(
        &cat().model("deepseek-v3").unwrap().ir,
        Part::Whole,
        h100,
        Parallelism {
            tp: 1,
            pp: 1,
            dp: 32,
            ep: 32,
        },
        disagg_engine::dtype::Precision::uniform(WeightFormat::new(DType::Fp8)),
        DType::Fp8,
        2100.0,
        &a,
    );
    assert_eq!(p.cold_weights(), disagg_engine::units::Bytes::ZERO);
    // The share is a share: all of the weights, or a negative one, is refused.
    for bad in [1.0, -0.1, f64::NAN] {
        let a = Assumptions {
            weight_offload: bad,
            ..Assumptions::default()
        };
        assert!(a.validate().is_err(), "{bad}");
    }
    // The published rows state the recipes' offload.
    assert_eq!(published_point("SGL-08").weight_offload, Some(0.5));
    assert!((published_point("SGL-10").weight_offload.unwrap() - 1.0 / 3.0).abs() < 1e-9);
}
