//! EAGLE draft heads and redundant experts: closed forms (the cycle from the kernel, the
//! head's bytes, the redundant experts' bytes), the defaults left bit-identical, and
//! the layouts redundant slots open.

use crate::common::*;
use disagg_engine::assumptions::ChipRates;
use disagg_engine::disagg::explain::explain;
use disagg_engine::disagg::layouts::colocated_draft_layout;
use disagg_engine::disagg::speculative::{draft_side, eagle_model};
use disagg_engine::disagg::{expected_tokens, Draft, PoolConfig, DEFAULT_EAGLE_LAYERS};
use disagg_engine::kernel::{step_cost, OpKind, Placement, StepShape};
use disagg_engine::model::Ffn;

fn setup(model: &str, isl: u32, osl: u32) -> Setup<'static> {
    let preset = cat().model(model).unwrap();
    Setup::new(
        &preset.ir,
        Workload::new(isl, osl),
        WeightFormat::new(preset.default_weight_dtype),
    )
}

fn eagle(model: &str, layers: u32) -> Setup<'static> {
    let mut s = setup(model, 1024, 256);
    s.speculation.draft = Draft::Eagle { layers };
    s.speculation.acceptance = 0.7;
    s.speculation.draft_tokens = 3;
    s
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * a.abs().max(b.abs())
}

#[test]
fn the_head_is_one_dense_layer_of_the_targets_width_by_default() {
    let llama = &cat().model("llama-3.1-8b").unwrap().ir;
    let head = eagle_model(llama, DEFAULT_EAGLE_LAYERS).unwrap();
    assert_eq!(head.num_layers, 1);
    assert_eq!(head.groups.len(), 1);
    assert_eq!(head.groups[0].attention, llama.groups[0].attention);
    assert_eq!(head.groups[0].ffn, llama.groups[0].ffn);
    assert_eq!((head.hidden, head.vocab), (llama.hidden, llama.vocab));
    // DeepSeek-V3: its first (dense) layer's shape, not an MoE layer.
    let ds = &cat().model("deepseek-v3").unwrap().ir;
    let head = eagle_model(ds, 2).unwrap();
    assert_eq!(head.groups[0].count, 2);
    assert_eq!(head.groups[0].ffn, ds.groups[0].ffn);
    assert!(!head.groups[0].ffn.is_moe());
    // Every layer with experts (Qwen3-30B-A3B): a dense FFN as wide as the active
    // experts, 8 x 768.
    let qwen = &cat().model("qwen3-30b-a3b").unwrap().ir;
    let head = eagle_model(qwen, 1).unwrap();
    assert_eq!(
        head.groups[0].ffn,
        Ffn::Dense {
            intermediate: 8 * 768
        }
    );
}

/// The cycle is `K` head steps and one verify step of `K + 1` tokens, each from the
/// kernel; the head's memory is its layers' weights and KV, nothing of the shared
/// embedding and head.
#[test]
fn an_eagle_cycle_is_k_head_steps_and_one_verify_step_from_the_kernel() {
    let s = eagle("llama-3.1-8b", 1);
    let chip = cat().chip("h100-sxm").unwrap();
    let pool = PoolConfig {
        chip,
        parallelism: tp(1),
    };
    let batch = 4;
    let d = draft_side(&s, pool, None, batch).unwrap();
    // The head step, costed here from the kernel directly.
    let head = eagle_model(s.model, 1).unwrap();
    let par = colocated_draft_layout(&head, 1, 1);
    let placement = Placement {
        model: &head,
        chip,
        parallelism: par,
        weights: s.precision(),
        kv: s.kv,
        rates: ChipRates::for_chip(chip, &s.assumptions.on_chip(chip)),
        assumptions: s.assumptions.on_chip(chip),
        cold_weight_fraction: 0.0,
    };
    let seqs = batch as f64;
    let ctx = s.workload.mean_decode_context();
    let step = step_cost(&placement, StepShape::decode(seqs, ctx)).without_host_overhead();
    assert_eq!(d.step, step);
    // Bytes: one Llama-3.1-8B layer in BF16, and its FP8 KV at full context.
    let (h, kv_heads, head_dim, inter) = (4096.0, 8.0, 128.0, 14336.0);
    let layer = 2.0 * h * h + 2.0 * h * kv_heads * head_dim + 3.0 * h * inter;
    let kv = 2.0 * kv_heads * head_dim * (1024.0 + 256.0) * seqs;
    assert!(
        close(d.colocated_bytes.value(), layer * 2.0 + kv),
        "{} vs {}",
        d.colocated_bytes.value(),
        layer * 2.0 + kv
    );
    // The explained cycle: K x t_draft + t_verify, and E from a and K.
    let e = explain(
        &s,
        &Deployment::Speculative {
            target: pool,
            draft: None,
            batch,
        },
    )
    .unwrap();
    let cycle = e
        .chains
        .iter()
        .flat_map(|c| c.walk())
        .find(|c| c.symbol == "t_it")
        .unwrap();
    let verify = e.point.pools[0].step.value();
    assert!(close(cycle.value, 3.0 * step.value() + verify));
    // The round reads E = 1 + a + a^2 + a^3 tokens a cycle.
    let tokens = e
        .chains
        .iter()
        .flat_map(|c| c.walk())
        .flat_map(|c| c.inputs.iter())
        .find(|i| i.name == "E")
        .unwrap();
    assert!(close(tokens.value, expected_tokens(0.7, 3)));
    assert!(close(tokens.value, 1.0 + 0.7 + 0.49 + 0.343));
}

/// A framework that drafts from the host (vLLM) pays an engine step's host work in every
/// draft step; one that replays the drafting loop as a graph (SGLang, TensorRT-LLM)
/// pays only the head's kernels. Exactly `step_overhead + seq_overhead x seqs` apart,
/// and the cycle takes `K` of them.
#[test]
fn vllm_pays_an_engine_steps_host_work_per_draft_step_sglang_and_trtllm_do_not() {
    use disagg_engine::disagg::speculative::drafts_from_host;
    use disagg_engine::serving::{Framework, FrameworkChoice};
    let chip = cat().chip("h100-sxm").unwrap();
    let pool = PoolConfig {
        chip,
        parallelism: tp(1),
    };
    let batch = 4;
    let seqs = batch as f64;
    let head = eagle_model(&cat().model("llama-3.1-8b").unwrap().ir, 1).unwrap();
    for (framework, from_host) in [
        (Framework::Vllm, true),
        (Framework::Sglang, false),
        (Framework::TrtLlm, false),
    ] {
        let mut s = eagle("llama-3.1-8b", 1);
        s.assumptions.framework = FrameworkChoice::Given(framework);
        assert_eq!(drafts_from_host(&s, chip), from_host);
        let a = s.assumptions.on_chip(chip);
        let placement = Placement {
            model: &head,
            chip,
            parallelism: colocated_draft_layout(&head, 1, 1),
            weights: s.precision(),
            kv: s.kv,
            rates: ChipRates::for_chip(chip, &a),
            assumptions: a,
            cold_weight_fraction: 0.0,
        };
        let cost = step_cost(
            &placement,
            StepShape::decode(seqs, s.workload.mean_decode_context()),
        );
        let d = draft_side(&s, pool, None, batch).unwrap();
        assert_eq!(d.host_per_step, from_host);
        let host = d.step - cost.without_host_overhead();
        let expect = if from_host {
            a.step_overhead.value() + a.seq_overhead.value() * seqs
        } else {
            0.0
        };
        assert!(close(host.value(), expect), "{framework:?}: {host:?}");
        // The cycle: K such steps and the verify step.
        let e = explain(
            &s,
            &Deployment::Speculative {
                target: pool,
                draft: None,
                batch,
            },
        )
        .unwrap();
        let cycle = e
            .chains
            .iter()
            .flat_map(|c| c.walk())
            .find(|c| c.symbol == "t_it")
            .unwrap();
        let verify = e.point.pools[0].step.value();
        assert!(close(cycle.value, 3.0 * d.step.value() + verify));
        let t_draft = cycle.inputs.iter().find(|i| i.name == "t_draft").unwrap();
        assert!(t_draft.meaning.contains("host work:"));
        assert_eq!(t_draft.meaning.contains("with an engine step"), from_host);
    }
}

/// `auto` drafts as each chip family's framework does: TensorRT-LLM on an H100 (one
/// graph), vLLM on an MI300X (from the host); a draft pool of its own follows its own
/// chips' framework, so a draft on H100s beside an MI300X target pays no host work.
#[test]
fn auto_drafts_as_the_chips_framework_does() {
    use disagg_engine::disagg::speculative::drafts_from_host;
    let s = eagle("llama-3.1-8b", 1);
    let (h100, mi300x) = (
        cat().chip("h100-sxm").unwrap(),
        cat().chip("mi300x").unwrap(),
    );
    assert!(!drafts_from_host(&s, h100));
    assert!(drafts_from_host(&s, mi300x));
    let pool = |chip| PoolConfig {
        chip,
        parallelism: tp(1),
    };
    assert!(draft_side(&s, pool(mi300x), None, 2).unwrap().host_per_step);
    let mut m = setup("llama-3.3-70b", 1024, 256);
    m.speculation.draft = Draft::Model {
        id: "llama-3.2-1b",
        ir: &cat().model("llama-3.2-1b").unwrap().ir,
    };
    let beside = draft_side(&m, pool(mi300x), Some(pool(h100)), 2).unwrap();
    assert!(!beside.host_per_step);
}

/// The verify step computes the logits of all `K + 1` tokens of each sequence (rejection
/// sampling reads each drafted position's distribution): its LM head does `K + 1` times
/// a decode step's FLOPs over the same weight bytes, and a prefill still only the last
/// position's.
#[test]
fn a_verify_step_computes_the_logits_of_every_drafted_position() {
    use disagg_engine::disagg::speculative::target_side;
    use disagg_engine::units::Bytes;
    let s = eagle("llama-3.1-8b", 1);
    let chip = cat().chip("h100-sxm").unwrap();
    let pool = PoolConfig {
        chip,
        parallelism: tp(1),
    };
    let batch = 64;
    let t = target_side(&s, pool, batch, Bytes::ZERO).unwrap();
    let (seqs, vocab, h) = (batch as f64, 128256.0, 4096.0);
    let head = t.verify.op(OpKind::LmHead);
    assert!(close(head.flops.value(), 2.0 * seqs * 4.0 * vocab * h));
    assert!(close(head.bytes.value(), 2.0 * vocab * h));
    let prefill = t.prefill.op(OpKind::LmHead);
    let prompts = t.round_prefill.prompts_per_step;
    assert!(close(prefill.flops.value(), 2.0 * prompts * vocab * h));
}

/// The bytes one head step reads: the shared LM head in full (128,256 x 4,096 BF16
/// weights, about 1 GB, the logits of one position per sequence), the head's one
/// layer, and that layer's KV at the mean context.
#[test]
fn a_head_step_reads_the_whole_shared_lm_head_and_one_layer() {
    let s = eagle("llama-3.1-8b", 1);
    let chip = cat().chip("h100-sxm").unwrap();
    let head = eagle_model(s.model, 1).unwrap();
    let a = s.assumptions.on_chip(chip);
    let placement = Placement {
        model: &head,
        chip,
        parallelism: colocated_draft_layout(&head, 1, 1),
        weights: s.precision(),
        kv: s.kv,
        rates: ChipRates::for_chip(chip, &a),
        assumptions: a,
        cold_weight_fraction: 0.0,
    };
    let seqs = 2.0;
    let ctx = s.workload.mean_decode_context();
    let cost = step_cost(&placement, StepShape::decode(seqs, ctx));
    let (h, vocab, kv_heads, head_dim, inter) = (4096.0, 128256.0, 8.0, 128.0, 14336.0);
    let lm_head = cost.op(OpKind::LmHead);
    assert!(close(lm_head.bytes.value(), 2.0 * vocab * h));
    assert!(close(lm_head.flops.value(), 2.0 * seqs * vocab * h));
    // The layer's weights in BF16, and activations in and out of each matmul (a few
    // tokens' worth: under a thousandth).
    let layer = 2.0 * (2.0 * h * h + 2.0 * h * kv_heads * head_dim + 3.0 * h * inter);
    let read = cost.op(OpKind::AttnProj).bytes.value() + cost.op(OpKind::DenseFfn).bytes.value();
    assert!(read >= layer && read < layer * 1.001, "{read} vs {layer}");
    // One layer's KV (FP8, K and V) over the context, for each sequence.
    let kv = cost.op(OpKind::AttnCore).bytes.value();
    let context = 2.0 * kv_heads * head_dim * ctx * seqs;
    assert!(kv >= context && kv < context * 1.01, "{kv} vs {context}");
}

#[test]
fn a_deeper_head_costs_more_and_an_eagle_head_refuses_a_pool_of_its_own() {
    let chip = cat().chip("h100-sxm").unwrap();
    let pool = PoolConfig {
        chip,
        parallelism: tp(1),
    };
    let one = draft_side(&eagle("llama-3.1-8b", 1), pool, None, 8).unwrap();
    let two = draft_side(&eagle("llama-3.1-8b", 2), pool, None, 8).unwrap();
    assert!(two.step > one.step);
    // Two layers hold twice one layer's bytes.
    assert!(close(
        two.colocated_bytes.value(),
        2.0 * one.colocated_bytes.value()
    ));
    let s = eagle("llama-3.1-8b", 1);
    let separate = evaluate(
        &s,
        &Deployment::Speculative {
            target: pool,
            draft: Some(pool),
            batch: 1,
        },
    )
    .unwrap_err()
    .to_string();
    assert!(separate.contains("EAGLE"), "{separate}");
    let mut bad = s;
    bad.speculation.draft = Draft::Eagle { layers: 0 };
    let why = bad.validate().unwrap_err().to_string();
    assert!(why.contains("EAGLE head layers"), "{why}");
}

#[test]
fn a_decode_pool_speculates_with_an_eagle_head() {
    let mut s = eagle("llama-3.3-70b", 1);
    s.speculative_decode = true;
    let h100 = cat().chip("h100-sxm").unwrap();
    let pool = |n| PoolConfig {
        chip: h100,
        parallelism: tp(n),
    };
    let plain = Setup {
        speculative_decode: false,
        ..s
    };
    let d = Deployment::PrefillDecode {
        prefill: pool(4),
        decode: pool(4),
        batch: 1,
    };
    let fast = evaluate(&s, &d).unwrap();
    let slow = evaluate(&plain, &d).unwrap();
    // At batch 1 the verify step costs about a decode step: E = 2.19 tokens for a
    // little more than one step.
    let gain = slow.figures.tpot / fast.figures.tpot;
    assert!(gain > 1.5 && gain < expected_tokens(0.7, 3), "{gain}");
}

fn ds_pd(redundant: u32, decode_ep: u32) -> (Setup<'static>, Deployment<'static>) {
    let mut s = setup("deepseek-v3", 4383, 1211);
    s.assumptions.redundant_experts = redundant;
    let h800 = cat().chip("h800").unwrap();
    let wide = |n: u32| PoolConfig {
        chip: h800,
        parallelism: Parallelism {
            tp: 1,
            pp: 1,
            dp: n,
            ep: n,
        },
    };
    (
        s,
        Deployment::PrefillDecode {
            prefill: wide(32),
            decode: wide(decode_ep),
            batch: 2048,
        },
    )
}

/// 32 redundant slots add 32 experts' weights in every one of the 58 MoE layers,
/// spread over the expert group: one expert per chip per layer over EP32, two over
/// EP16, exactly.
#[test]
fn redundant_experts_add_exactly_their_copies_bytes_spread_over_the_chips() {
    let (s0, d0) = ds_pd(0, 16);
    let (s32, d32) = ds_pd(32, 16);
    let (a, b) = (evaluate(&s0, &d0).unwrap(), evaluate(&s32, &d32).unwrap());
    let (h, i_e, layers) = (7168.0, 2048.0, 58.0);
    // The checkpoint's block-scaled FP8: a byte a weight and an FP32 scale per 16,384.
    assert_eq!(s0.weights.dtype, DType::Fp8Block);
    let expert_bytes = 3.0 * h * i_e * (1.0 + 4.0 / 16384.0);
    for (pool, chips) in [(0, 32.0), (1, 16.0)] {
        let added = b.pools[pool].memory.weights - a.pools[pool].memory.weights;
        let expect = layers * 32.0 * expert_bytes / chips;
        assert!(
            close(added.value(), expect),
            "{pool}: {added:?} vs {expect}"
        );
    }
}

#[test]
fn redundant_slots_let_ep_exceed_a_divisor_of_the_experts() {
    // EP144: 256 experts do not divide, 288 slots do (two a chip, as DeepSeek serves).
    let (s0, d0) = ds_pd(0, 144);
    let why = evaluate(&s0, &d0).unwrap_err().to_string();
    assert!(why.contains("not divisible by ep 144"), "{why}");
    let (s32, d32) = ds_pd(32, 144);
    assert!(evaluate(&s32, &d32).unwrap().fits);
    // EP128 with 32 redundant: 288 slots do not divide, and the error says slots.
    let (s, d) = ds_pd(32, 128);
    let (s, _) = (s, d);
    let why = Parallelism {
        tp: 1,
        pp: 1,
        dp: 128,
        ep: 128,
    }
    .validate_with(s.model, 128, 30)
    .unwrap_err()
    .to_string();
    assert!(why.contains("30 redundant slots (286)"), "{why}");
    let mut big = s;
    big.assumptions.redundant_experts = disagg_engine::limits::MAX_REDUNDANT_EXPERTS + 1;
    let why = big.validate().unwrap_err().to_string();
    assert!(why.contains("redundant_experts"), "{why}");
}

#[test]
fn at_a_saturated_batch_the_redundant_slots_weights_are_read_each_step() {
    // At 2,048 sequences every slot is touched: the busiest chip reads 9 experts'
    // weights per MoE layer instead of 8 (EP32), 18 instead of 16 (EP16), so neither
    // step is faster.
    let (s0, d0) = ds_pd(0, 16);
    let (s32, d32) = ds_pd(32, 16);
    let (a, b) = (evaluate(&s0, &d0).unwrap(), evaluate(&s32, &d32).unwrap());
    assert!(b.pools[0].step >= a.pools[0].step);
    assert!(b.pools[1].step >= a.pools[1].step);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// Redundant slots change nothing where experts are not spread (ep 1) or where
    /// there are no experts: the figures are bit-identical to none.
    #[test]
    fn redundant_slots_change_nothing_without_expert_parallelism(
        redundant in 0u32..=512,
        tp_pow in 0u32..=3,
        batch in 1u32..=256,
        moe in any::<bool>(),
    ) {
        let model = if moe { "qwen3-30b-a3b" } else { "llama-3.1-8b" };
        let base = setup(model, 2048, 256);
        let with = Setup {
            assumptions: disagg_engine::Assumptions {
                redundant_experts: redundant,
                ..base.assumptions
            },
            ..base
        };
        let pool = PoolConfig {
            chip: cat().chip("h100-sxm").unwrap(),
            parallelism: tp(1 << tp_pow),
        };
        let d = Deployment::Aggregated { pool, batch };
        let (a, b) = (evaluate(&base, &d), evaluate(&with, &d));
        prop_assert_eq!(a.map(|p| p.figures), b.map(|p| p.figures));
    }
}

#[test]
fn a_sweep_with_redundant_slots_deploys_only_the_widths_that_divide_them() {
    use disagg_engine::disagg::layouts::{pool_layouts_with, Search};
    use disagg_engine::sweep::{sweep, SweepRequest};
    let ds = &cat().model("deepseek-v3").unwrap().ir;
    let h200 = cat().chip("h200").unwrap();
    let eps = |n: u32, redundant: u32| -> Vec<u32> {
        pool_layouts_with(ds, PoolRole::Decode, h200, n, Search::Sweep, redundant)
            .iter()
            .map(|p| p.ep)
            .collect()
    };
    // 256 experts divide over 64 chips, 288 slots do not; both over 32.
    assert!(eps(64, 0).contains(&64));
    assert!(!eps(64, 32).contains(&64) && eps(64, 32).contains(&1));
    assert!(eps(32, 32).contains(&32));
    // A whole sweep deploys no width the slots do not divide.
    let mut s = setup("deepseek-v3", 2048, 256);
    s.assumptions.redundant_experts = 32;
    let r = sweep(&SweepRequest {
        setup: s,
        axis: Axis::PrefillDecode,
        chips: vec![h200],
        max_chips: 128,
        target_tok_s_user: None,
        slo: Default::default(),
        batch: None,
    })
    .unwrap();
    assert!(!r.cloud.is_empty());
    for p in &r.cloud {
        for pool in &p.spec.pools {
            assert_eq!(288 % pool.parallelism.ep, 0, "{:?}", pool.parallelism);
        }
    }
}
