//! The step-cost kernel on placed models: collectives across domains, expert-group
//! prefills, MLA verify steps, layers without attention.

use super::common::*;

#[test]
fn all_reduce_across_nodes_goes_in_two_levels() {
    use disagg_engine::kernel::{group_all_reduce, ring_all_reduce};
    use disagg_engine::units::Bytes;
    let chip = cat().chip("h100-sxm").unwrap();
    let eff = 0.75;
    let msg = Bytes::new(7168.0 * 2.0 * 64.0);
    let up = chip.link_for_group(8);
    let out = chip.network_link();
    // Inside one 8-GPU node: the flat ring over NVLink.
    let flat8 = ring_all_reduce(msg, 8, up.bandwidth * eff, up.latency);
    assert_eq!(group_all_reduce(chip, msg, 8, eff, None), flat8);
    // TP16 over two nodes: the NVLink ring inside each node plus a two-node ring of the
    // eighth-size shards over the network, by hand.
    let inter = ring_all_reduce(msg / 8.0, 2, out.bandwidth * eff, out.latency);
    let (moved, time) = group_all_reduce(chip, msg, 16, eff, None);
    assert!((time.value() - (flat8.1.value() + inter.1.value())).abs() < 1e-15);
    assert!((moved.value() - (flat8.0.value() + inter.0.value())).abs() < 1e-6);
    // Cheaper than a flat ring of 16 over the network, which pays 30 network hops.
    let flat16 = ring_all_reduce(msg, 16, out.bandwidth * eff, out.latency);
    assert!(time.value() < flat16.1.value());
}

#[test]
fn a_custom_all_reduce_runs_inside_one_peer_to_peer_domain_only() {
    use disagg_engine::kernel::{custom_all_reduce, group_all_reduce, ring_all_reduce};
    use disagg_engine::units::Bytes;
    let eff = 0.75;
    let limit = Bytes::from_mib(8.0);
    let max = Some(limit);
    let msg = Bytes::new(7168.0 * 2.0 * 16.0);
    // Eight H100s on NVLink: the custom kernel, far below the ring's 14 hops.
    let h100 = cat().chip("h100-sxm").unwrap();
    let up = h100.link_for_group(8);
    let custom = custom_all_reduce(msg, 8, up.bandwidth * eff, up.latency, limit);
    assert_eq!(Some(group_all_reduce(h100, msg, 8, eff, max)), custom);
    let ring = ring_all_reduce(msg, 8, up.bandwidth * eff, up.latency);
    assert!(custom.unwrap().1 < ring.1);
    // Across two nodes SGLang's custom all-reduce is off: NCCL's two levels, as without.
    assert_eq!(
        group_all_reduce(h100, msg, 16, eff, max),
        group_all_reduce(h100, msg, 16, eff, None)
    );
    // Four L40S on PCIe: no peer-to-peer mesh, so the ring; two of them take the kernel.
    let l40s = cat().chip("l40s").unwrap();
    let pcie = l40s.link_for_group(4);
    assert_eq!(
        group_all_reduce(l40s, msg, 4, eff, max),
        ring_all_reduce(msg, 4, pcie.bandwidth * eff, pcie.latency)
    );
    assert_eq!(
        Some(group_all_reduce(l40s, msg, 2, eff, max)),
        custom_all_reduce(msg, 2, pcie.bandwidth * eff, pcie.latency, limit)
    );
}

#[test]
fn sglang_and_vllm_pools_carry_their_custom_all_reduce_and_others_none() {
    use disagg_engine::assumptions::{Assumptions, ChipRates};
    use disagg_engine::serving::{Framework, FrameworkChoice};
    use disagg_engine::units::Bytes;
    let run = |f: Framework, chip: &str| {
        let a = Assumptions {
            framework: FrameworkChoice::Given(f),
            ..Assumptions::default()
        };
        ChipRates::for_chip(cat().chip(chip).unwrap(), &a).custom_all_reduce
    };
    assert_eq!(run(Framework::Sglang, "b200"), Some(Bytes::from_mib(8.0)));
    assert_eq!(
        run(Framework::Sglang, "mi355x"),
        Some(Bytes::from_mib(16.0))
    );
    assert_eq!(run(Framework::Vllm, "h100-sxm"), Some(Bytes::from_mib(8.0)));
    assert_eq!(run(Framework::Vllm, "mi300x"), Some(Bytes::from_mib(8.0)));
    // No such kernels off NVIDIA's and AMD's GPUs, nor in TensorRT-LLM's profile.
    assert_eq!(run(Framework::Vllm, "tpu-v6e"), None);
    assert_eq!(run(Framework::TrtLlm, "b200"), None);
    assert_eq!(run(Framework::LlamaCpp, "rtx-4090"), None);
}

#[test]
fn expert_all_to_all_sends_a_token_once_per_remote_node() {
    use disagg_engine::kernel::{expert_all_to_all, AllToAllWidths, ExpertTraffic};
    let chip = cat().chip("h100-sxm").unwrap();
    let eff = 0.75;
    let (tokens, k, h) = (4096.0, 8.0, 7168.0);
    // FP8 dispatch, BF16 combine: three bytes per element for the round trip.
    let widths = AllToAllWidths {
        dispatch: 1.0,
        combine: 2.0,
    };
    let traffic = |tokens| ExpertTraffic {
        tokens,
        top_k: k,
        hidden: h,
        widths,
    };
    let up = chip.link_for_group(8);
    let out = chip.network_link();
    // EP8 inside one node: 7/8 of the picks cross NVLink, by hand.
    let bytes8 = tokens * k * 7.0 / 8.0 * h * 3.0;
    let (moved, time) = expert_all_to_all(chip, 8, traffic(tokens), eff, None);
    assert!((moved.value() - bytes8).abs() < 1e-3);
    let t8 = bytes8 / (up.bandwidth.value() * eff) + 2.0 * up.latency.value();
    assert!((time.value() - t8).abs() < 1e-12);
    // EP32 over four nodes: a token crosses the network once per remote node it picks
    // experts in, 3 * (1 - (3/4)^8) = 2.70 nodes rather than 8 * 24/32 = 6 picks; the
    // NVLink forwarding (7/8 of the picks) runs alongside.
    let remote = 3.0 * (1.0 - 0.75f64.powi(8));
    assert!((remote - 2.6997).abs() < 1e-4);
    let out_bytes = tokens * remote * h * 3.0;
    let up_bytes = tokens * k * 7.0 / 8.0 * h * 3.0;
    let (moved, time) = expert_all_to_all(chip, 32, traffic(tokens), eff, None);
    assert!((moved.value() - (out_bytes + up_bytes)).abs() < 1e-3);
    let t32 = (out_bytes / (out.bandwidth.value() * eff))
        .max(up_bytes / (up.bandwidth.value() * eff))
        + 2.0 * (out.latency.value() + up.latency.value());
    assert!((time.value() - t32).abs() < 1e-12);
    // Far cheaper than every remote pick on its own over the network.
    let naive = tokens * k * 24.0 / 32.0 * h * 3.0 / (out.bandwidth.value() * eff);
    assert!(time.value() < naive / 2.0, "{} vs {}", time.value(), naive);
    // One chip, or no tokens, moves nothing.
    assert_eq!(
        expert_all_to_all(chip, 1, traffic(tokens), eff, None)
            .0
            .value(),
        0.0
    );
    assert_eq!(
        expert_all_to_all(chip, 32, traffic(0.0), eff, None)
            .1
            .value(),
        0.0
    );
}
/// DeepSeek-R1 in FP4 on eight B200s with attention data-parallel and EP8.
fn deepseek_on_b200_dp8_ep8() -> disagg_engine::kernel::Placement<'static> {
    let b200 = cat().chip("b200").unwrap();
    let a = Assumptions::default();
    placed("deepseek-r1", b200, dp_ep(8, 8), DType::Fp4, DType::Fp8, a)
}

#[test]
fn a_prefill_from_one_replica_sends_fewer_tokens_to_the_experts() {
    use disagg_engine::kernel::{step_cost, OpKind, StepShape};
    let placement = deepseek_on_b200_dp8_ep8();
    let shape = StepShape::prefill(4.0, 1024.0, 0.0);
    let flops = |s: StepShape| {
        step_cost(&placement, s)
            .op(OpKind::RoutedExperts)
            .flops
            .value()
    };
    let all = flops(shape);
    let one = flops(shape.from_replicas(1.0));
    assert!(one < all / 4.0, "one replica {one:e}, all {all:e}");
    // Out-of-range counts are clamped to the group: at least one, at most all.
    assert_eq!(flops(shape.from_replicas(0.0)), one);
    assert_eq!(flops(shape.from_replicas(100.0)), all);
    assert_eq!(flops(shape.from_replicas(f64::NAN)), all);
    // The attention side is one replica's own work either way.
    let attention = |s: StepShape| step_cost(&placement, s).op(OpKind::AttnProj).flops.value();
    assert_eq!(attention(shape), attention(shape.from_replicas(1.0)));
}

#[test]
fn a_speculative_verify_attends_over_the_latent_and_costs_more_than_one_decode() {
    use disagg_engine::kernel::{mla_core_flops, step_cost, MlaDims, OpKind, StepShape};
    let placement = deepseek_on_b200_dp8_ep8();
    let (seqs, context) = (64.0, 4096.0);
    let core = |new_tokens: f64| {
        let shape = StepShape {
            new_tokens,
            ..StepShape::decode(seqs, context)
        };
        *step_cost(&placement, shape).op(OpKind::AttnCore)
    };
    let (decode, verify) = (core(1.0), core(4.0));
    // The latent path for both: 2 * 128 heads * (2 * 512 + 64) FLOPs per (query, context)
    // pair, over 61 layers. Costing the verify as a prefill (heads expanded, the cache
    // never expanded) would have made it cheaper than one decode step.
    let pairs = |q: f64| seqs * (q * context + q * (q + 1.0) / 2.0);
    let per_pair = 2.0 * 128.0 * 1088.0 * 61.0;
    assert!((decode.flops.value() / (per_pair * pairs(1.0)) - 1.0).abs() < 1e-12);
    assert!((verify.flops.value() / (per_pair * pairs(4.0)) - 1.0).abs() < 1e-12);
    assert!(verify.time >= decode.time);
    // The same cache, read once per step either way.
    assert!(
        (verify.bytes.value() / decode.bytes.value() - (context + 8.0) / (context + 2.0)).abs()
            < 1e-12
    );
    let dims = MlaDims {
        kv_rank: 512,
        qk_nope: 128,
        qk_rope: 64,
        v_head: 128,
    };
    assert_eq!(
        verify.flops.value(),
        61.0 * mla_core_flops(128.0, dims, pairs(4.0), seqs * context)
    );
}

#[test]
fn attention_dp_replicas_that_prefill_on_their_own_schedules_wait_for_each_other() {
    // The alignment alone: prompt steps' Python launches (MODEL.md 3.6) held at zero, as
    // they were when these rows chose it. With them TRTDS-01 is -32% unaligned and +29%
    // aligned (AUDIT, "Prompt steps without CUDA graphs").
    let base = Assumptions::default().pin("eager_kernel_overhead", 0.0);
    let with_alignment = |p: &validation::BenchmarkPoint, aligned: bool| {
        let mut p = p.clone();
        p.aligned_group_prefill = Some(aligned);
        validation::evaluate_point(cat(), &p, &base)
            .unwrap()
            .figures
            .output_tok_s
            .value()
    };
    // TensorRT-LLM's own max-throughput DeepSeek-R1 runs (no ADP balancing): costing the
    // replicas' prefills one at a time lands near the measurement (-12%, -9%, +4%), where
    // costing them aligned over-predicts by 33% to 59%.
    for id in ["TRTDS-01", "TRTDS-02", "TRTDS-03"] {
        let p = published_point(id);
        assert_eq!(p.aligned_group_prefill, None);
        assert!(!base.aligned_group_prefill);
        let stated = with_alignment(&p, false) / p.measured - 1.0;
        let aligned = with_alignment(&p, true) / p.measured - 1.0;
        assert!(stated.abs() < 0.3, "{id} unaligned: {stated:+.2}");
        assert!(
            aligned > 0.3 && aligned > 2.0 * stated.abs(),
            "{id} aligned: {aligned:+.2}"
        );
    }
    // TensorRT-LLM tech blog 10: DeepSeek-V3 on 8 GB200, attention DP8 and EP8, inputs
    // of 803 and outputs of 3,653 tokens on average, gave 25,664 tok/s without ADP
    // balancing and 34,140 with it (0.75). MLP51-15 is that setting (NVIDIA's MLPerf
    // DeepSeek-R1 harness on GB200, balancing on).
    let mlperf = published_point("MLP51-15");
    assert_eq!(mlperf.aligned_group_prefill, Some(true));
    let ratio = with_alignment(&mlperf, false) / with_alignment(&mlperf, true);
    let published = 25_664.0 / 34_140.0;
    assert!(
        (ratio - published).abs() < 0.1,
        "model {ratio:.3}, blog {published:.3}"
    );
}

#[test]
fn layers_without_attention_read_no_cache_and_send_no_all_reduce() {
    // Nemotron Super 49B (DeciLM): 31 of its 80 layers have no attention.
    let ir = &cat().model("nemotron-super-49b").unwrap().ir;
    let skipped: u32 = ir
        .groups
        .iter()
        .filter(|g| g.attention == disagg_engine::model::Attention::Skipped)
        .map(|g| g.count)
        .sum();
    assert_eq!(skipped, 31);
    assert_eq!(ir.kv_values_for_context(1.0), 49.0 * 2.0 * 8.0 * 128.0);
    // The same model with attention in every layer does strictly more of both.
    let mut full = ir.clone();
    let gqa = ir
        .groups
        .iter()
        .map(|g| g.attention)
        .find(|a| a.has_weights())
        .unwrap();
    for g in &mut full.groups {
        g.attention = gqa;
    }
    let chip = cat().chip("h100-sxm").unwrap();
    let run = |model| {
        let mut s = scenario(
            "nemotron-super-49b",
            chip,
            tp(2),
            DType::Fp8,
            8192,
            256,
            Batch::Fixed(8),
        );
        s.model = model;
        predict(&s).unwrap()
    };
    let (pruned, whole) = (run(ir), run(&full));
    assert!(pruned.memory.kv.value() < whole.memory.kv.value() * 49.0 / 80.0 * 1.001);
    assert!(pruned.decode_time.communication.value() < whole.decode_time.communication.value());
    assert!(pruned.decode_time.kv_memory.value() < whole.decode_time.kv_memory.value());
    assert!(pruned.decode_step.value() < whole.decode_step.value());
}

/// Llama-2-70B in FP4 on one B200 (TP1), as MLPerf's B200 submissions run it, on `chip`.
fn llama70b_fp4_tp1(chip: &'static Chip) -> disagg_engine::kernel::Placement<'static> {
    let a = Assumptions::default();
    placed(
        "llama-2-70b",
        chip,
        Parallelism::single(),
        DType::Fp4,
        DType::Fp8,
        a,
    )
}

#[test]
fn dense_matmuls_pay_for_a_partial_last_wave_of_tiles() {
    use disagg_engine::kernel::{operator_time, step_cost, OpKind, StepShape};
    let b200 = cat().chip("b200").unwrap();
    assert_eq!(b200.sm_count, Some(148));
    let without: &'static Chip = Box::leak(Box::new(Chip {
        sm_count: None,
        ..b200.clone()
    }));
    let ffn_compute = |chip, shape| {
        step_cost(&llama70b_fp4_tp1(chip), shape)
            .op(OpKind::DenseFfn)
            .compute_time
            .value()
    };
    // 254 sequences decoding: two rows of 128-token tiles. Gate-and-up (57,344 wide, two
    // thirds of the FFN's weights) makes 2 * 448 = 896 tiles, 7 waves of 148 SMs with
    // 1,036 slots; the down projection (8,192 wide) 128 tiles, within one wave.
    let decode = StepShape::decode(254.0, 512.0);
    let by_hand = 2.0 / 3.0 * 1036.0 / 896.0 + 1.0 / 3.0;
    let ratio = ffn_compute(b200, decode) / ffn_compute(without, decode);
    assert!((ratio - by_hand).abs() < 1e-9, "{ratio} vs {by_hand}");
    let slowdown = |seqs: f64| {
        let shape = StepShape::decode(seqs, 512.0);
        ffn_compute(b200, shape) / ffn_compute(without, shape)
    };
    // 256 sequences fill the same two tile rows: the same waves. One more starts a third
    // row: 1,344 tiles in 10 waves (1,480 slots), and the down projection's 192 tiles
    // spill into a second wave (296 slots).
    assert!((slowdown(256.0) - by_hand).abs() < 1e-9);
    let third_row = 2.0 / 3.0 * 1480.0 / 1344.0 + 1.0 / 3.0 * 296.0 / 192.0;
    assert!((slowdown(257.0) - third_row).abs() < 1e-9);
    // A 3,584-token prefill (28 tile rows): gate-and-up's 12,544 tiles fill 85 waves
    // but for 36 slots, the down projection's 1,792 tiles 13 waves: 2.6% in all.
    let prefill = StepShape::prefill(1.0, 3584.0, 0.0);
    let ratio = ffn_compute(b200, prefill) / ffn_compute(without, prefill);
    let by_hand = 2.0 / 3.0 * 12580.0 / 12544.0 + 1.0 / 3.0 * 1924.0 / 1792.0;
    assert!((ratio - by_hand).abs() < 1e-9, "{ratio} vs {by_hand}");
    // Eight sequences: one tile row. The down projection's 64 tiles sit within one
    // wave (split-K fills it), gate-and-up's 448 need 4 waves (592 slots); the step
    // stays bound by reading the weights, whose time never changes.
    let small = StepShape::decode(8.0, 512.0);
    let by_hand = 2.0 / 3.0 * 592.0 / 448.0 + 1.0 / 3.0;
    let ratio = ffn_compute(b200, small) / ffn_compute(without, small);
    assert!((ratio - by_hand).abs() < 1e-9, "{ratio} vs {by_hand}");
    let ffn = |chip, shape| *step_cost(&llama70b_fp4_tp1(chip), shape).op(OpKind::DenseFfn);
    for shape in [small, decode, prefill] {
        assert_eq!(
            ffn(b200, shape).memory_time,
            ffn(without, shape).memory_time
        );
    }
    // Bound by reading the weights many times over, the operator's time barely sees the
    // waves: both bounds combined, the memory bound the same.
    let (waved, flat) = (ffn(b200, small), ffn(without, small));
    for op in [waved, flat] {
        let combined = operator_time(op.compute_time, op.memory_time);
        assert!((op.time / combined - 1.0).abs() < 1e-12);
    }
    assert!(waved.time > flat.time && waved.time / flat.time < 1.01);
}
