//! The aggregated deployment: closed forms, anchors, fit and error messages, workload
//! features and invariants over the catalogue.

use super::common::*;

/// A dense model at batch 1 on one chip reads its weights once per token.
#[test]
fn dense_batch_one_decode_matches_bandwidth_over_weights() {
    let chip = cat().chip("h100-sxm").unwrap();
    let mut s = scenario(
        "llama-3.1-8b",
        chip,
        tp(1),
        DType::Bf16,
        128,
        128,
        Batch::Fixed(1),
    );
    // Pinned, so that no framework's default replaces them.
    s.assumptions = s
        .assumptions
        .pin("kernel_overhead", 0.0)
        .pin("step_overhead", 0.0);
    let p = predict(&s).unwrap();
    // Weights read per token: everything but the input embedding, of which a token
    // reads one row.
    let ir = &cat().model("llama-3.1-8b").unwrap().ir;
    let weights = (ir.params().total - ir.vocab as f64 * ir.hidden as f64) * 2.0;
    let closed = s.assumptions.bw_eff * chip.fast.bandwidth.value() / weights;
    let got = 1.0 / p.decode_step.value();
    assert!((got / closed - 1.0).abs() < 0.03, "{got} vs {closed}");
    // With the fixed overheads it stays within a quarter of the closed form.
    let with_overheads = predict(&scenario(
        "llama-3.1-8b",
        chip,
        tp(1),
        DType::Bf16,
        128,
        128,
        Batch::Fixed(1),
    ))
    .unwrap();
    assert!((1.0 / with_overheads.decode_step.value()) / closed > 0.75);
}

#[test]
fn long_prompt_prefill_is_compute_bound() {
    let chip = cat().chip("h100-sxm").unwrap();
    let p = predict(&scenario(
        "llama-3.3-70b",
        chip,
        tp(4),
        DType::Fp8,
        8192,
        64,
        Batch::Fixed(1),
    ))
    .unwrap();
    let work = disagg_engine::kernel::OpKind::ALL
        .into_iter()
        .filter(|k| !k.is_communication());
    let ops: Vec<_> = work.map(|k| *p.prefill_cost.op(k)).collect();
    let compute: f64 = ops.iter().map(|o| o.compute_bound_time.value()).sum();
    let total: f64 = ops.iter().map(|o| o.time.value()).sum();
    assert!(compute / total > 0.8, "{compute} of {total}");
}

/// The seed's anchor: DeepSeek-V3 at batch 1 on one 8-GPU Hopper node decodes at tens
/// of tokens per second, not the ~770 an MoE-blind bandwidth model gives.
#[test]
fn deepseek_v3_batch_one_on_an_hgx_h200_is_tens_not_hundreds() {
    let chip = cat().chip("h200").unwrap();
    let par = Parallelism {
        tp: 8,
        pp: 1,
        dp: 1,
        ep: 8,
    };
    let p = predict(&scenario(
        "deepseek-v3",
        chip,
        par,
        DType::Fp8,
        1024,
        1024,
        Batch::Fixed(1),
    ))
    .unwrap();
    assert!(p.fits);
    // Tens, not the hundreds of the bound below: TensorRT-LLM on this node (FP8 R1, TP8
    // EP8) measured 72 tok/s per user at four users (IMXA31b), a little under batch one.
    assert!(
        p.tok_s_user > 30.0 && p.tok_s_user < 125.0,
        "{}",
        p.tok_s_user
    );
    // An MoE-blind bound: active weights once per token at the full bandwidth.
    let ir = &cat().model("deepseek-v3").unwrap().ir;
    let blind = chip.fast.bandwidth.value() * 0.75 / (ir.params().active / 8.0);
    assert!(blind > 600.0 && blind / p.tok_s_user > 6.0, "blind {blind}");
}

#[test]
fn moe_at_batch_one_reads_only_what_it_touches() {
    let chip = cat().chip("h200").unwrap();
    let par = Parallelism {
        tp: 8,
        pp: 1,
        dp: 1,
        ep: 1,
    };
    let one = predict(&scenario(
        "deepseek-v3",
        chip,
        par,
        DType::Fp8,
        1024,
        1024,
        Batch::Fixed(1),
    ))
    .unwrap();
    let many = predict(&scenario(
        "deepseek-v3",
        chip,
        par,
        DType::Fp8,
        1024,
        1024,
        Batch::Fixed(512),
    ))
    .unwrap();
    let bytes = |p: &Prediction| {
        p.decode_cost
            .op(disagg_engine::kernel::OpKind::RoutedExperts)
            .bytes
            .value()
    };
    assert!(bytes(&many) / bytes(&one) > 10.0);
}

#[test]
fn a_point_that_does_not_fit_says_why() {
    let chip = cat().chip("rtx-4090").unwrap();
    let p = predict(&scenario(
        "llama-3.1-405b",
        chip,
        tp(1),
        DType::Bf16,
        1024,
        1024,
        Batch::Fixed(1),
    ))
    .unwrap();
    assert!(!p.fits);
    let reason = p.reason.unwrap();
    assert!(
        reason.contains("short by") && reason.contains("GB"),
        "{reason}"
    );
    // When no layout fits, the planner still answers with one, and says why.
    let planned = best(
        &scenario(
            "llama-3.1-405b",
            chip,
            tp(1),
            DType::Bf16,
            1024,
            1024,
            Batch::Fixed(1),
        ),
        2,
    )
    .unwrap();
    assert!(!planned.fits);
    let reason = planned.reason.unwrap();
    assert!(reason.contains("does not fit"), "{reason}");
}

#[test]
fn invalid_parallelism_is_explained() {
    let chip = cat().chip("h100-sxm").unwrap();
    let bad = Parallelism {
        tp: 3,
        pp: 1,
        dp: 1,
        ep: 1,
    };
    let err = predict(&scenario(
        "llama-3.1-8b",
        chip,
        bad,
        DType::Bf16,
        128,
        128,
        Batch::Fixed(1),
    ))
    .unwrap_err();
    assert!(err.to_string().contains("not divisible by tp 3"), "{err}");
    let bad_ep = Parallelism {
        tp: 8,
        pp: 1,
        dp: 1,
        ep: 3,
    };
    let err = predict(&scenario(
        "mixtral-8x7b",
        chip,
        bad_ep,
        DType::Bf16,
        128,
        128,
        Batch::Fixed(1),
    ))
    .unwrap_err();
    assert!(
        err.to_string()
            .contains("experts are not divisible by ep 3"),
        "{err}"
    );
}

#[test]
fn bad_values_are_errors_not_panics() {
    let chip = cat().chip("h100-sxm").unwrap();
    for (isl, osl, batch) in [
        (0, 10, 1),
        (10, 0, 1),
        (10, 10, 0),
        (u32::MAX, u32::MAX, 1),
        (10, 10, u32::MAX),
    ] {
        assert!(predict(&scenario(
            "llama-3.1-8b",
            chip,
            tp(1),
            DType::Bf16,
            isl,
            osl,
            Batch::Fixed(batch)
        ))
        .is_err());
    }
    let mut s = scenario(
        "llama-3.1-8b",
        chip,
        tp(1),
        DType::Int4,
        128,
        128,
        Batch::Fixed(1),
    );
    s.weights.bits_override = Some(f64::NAN);
    assert!(predict(&s).is_err());
    // Impossible assumptions are refused before they divide anything, by the planner too.
    s.weights.bits_override = None;
    s.assumptions.bw_eff = 0.0;
    assert!(predict(&s).unwrap_err().to_string().contains("bw_eff"));
    assert!(best(&s, 8).is_err());
    assert!(cat()
        .chip("h100-sxx")
        .unwrap_err()
        .to_string()
        .contains("h100-sxm"));
}

#[test]
fn cold_tier_holds_weights_that_do_not_fit_the_fast_one() {
    let chip = cat().chip("d-matrix-corsair").unwrap();
    let p = predict(&scenario(
        "llama-3.1-8b",
        chip,
        tp(1),
        DType::Fp8,
        512,
        128,
        Batch::Fixed(1),
    ))
    .unwrap();
    assert!(p.fits);
    assert!(p.memory.cold_weights.value() > 0.0);
    assert!(p.warnings.iter().any(|w| w.contains("cold memory tier")));
}

#[test]
fn host_work_grows_with_the_sequences_in_a_step() {
    // Two replicas of 32 sequences each: every decode step pays the fixed host cost
    // once plus the per-sequence cost for each of its 32 sequences.
    let chip = cat().chip("h100-sxm").unwrap();
    let s = scenario(
        "llama-3.1-8b",
        chip,
        Parallelism { dp: 2, ..tp(1) },
        DType::Fp8,
        1024,
        256,
        Batch::Fixed(64),
    );
    let with = predict(&s).unwrap();
    let without = predict(&Scenario {
        assumptions: Assumptions {
            seq_overhead: Seconds::ZERO,
            ..s.assumptions
        },
        ..s
    })
    .unwrap();
    let expected = s.assumptions.seq_overhead.value() * 32.0;
    assert!(expected > 0.0);
    let gap = with.decode_step.value() - without.decode_step.value();
    assert!((gap - expected).abs() < 1e-12, "{gap} vs {expected}");
    assert!(
        (with.decode_cost.host.value() - s.assumptions.host_overhead(32.0).value()).abs() < 1e-12
    );
}

#[test]
fn a_large_batch_never_pushes_weights_into_the_cold_tier() {
    // GB200: 186 GB of HBM beside Grace's LPDDR. Llama-3.3-70B in FP4 (about 35 GB)
    // fits the HBM, so the largest batch is what the HBM has left for KV, and every
    // weight byte is still read at HBM speed.
    let chip = cat().chip("gb200").unwrap();
    let s = scenario(
        "llama-3.3-70b",
        chip,
        tp(1),
        DType::Fp4,
        20_000,
        2_000,
        Batch::MaxThroughput,
    );
    let p = predict(&s).unwrap();
    assert!(p.fits);
    assert_eq!(p.memory.cold_weights.value(), 0.0);
    assert!(
        p.memory.weights.value() + p.memory.kv.value() + p.memory.workspace.value()
            <= chip.fast.capacity.value()
    );
    // One more sequence than the maximum does not fit (it would have to spill).
    let over = predict(&Scenario {
        batch: Batch::Fixed(p.batch + 1),
        ..s
    })
    .unwrap();
    assert!(!over.fits, "{:?}", over.reason);
}

#[test]
fn every_prediction_number_is_finite_over_the_catalogue() {
    // Every chip and model plans to a point, fitting or with its reason, and every
    // number it reports is finite; most of them fit.
    let mut fitting = 0;
    let mut planned = 0;
    for chip in &cat().chips {
        for model in ["llama-3.1-8b", "deepseek-v3", "gpt-oss-120b", "gemma-3-27b"] {
            let s = scenario(model, chip, tp(1), DType::Fp8, 1024, 256, Batch::Fixed(8));
            let p = best(&s, 8).unwrap_or_else(|e| panic!("{model} on {}: {e}", chip.id));
            planned += 1;
            fitting += p.fits as usize;
            assert!(p.fits || p.reason.is_some(), "{model} on {}", chip.id);
            for v in [
                p.ttft.value(),
                p.tpot.value(),
                p.tok_s_user,
                p.output_tok_s,
                p.input_tok_s,
                p.memory.total.value(),
            ] {
                assert!(v.is_finite() && v >= 0.0, "{model} on {}: {v}", chip.id);
            }
        }
    }
    assert!(fitting * 2 > planned, "{fitting} of {planned} fit");
}

#[test]
fn a_cached_prefix_is_attended_but_not_recomputed() {
    use disagg_engine::kernel::OpKind;
    let chip = cat().chip("h100-sxm").unwrap();
    let (isl, cached) = (4096u32, 3072u32);
    let mut s = scenario(
        "llama-3.1-8b",
        chip,
        tp(1),
        DType::Fp8,
        isl,
        256,
        Batch::Fixed(1),
    );
    let fresh = predict(&s).unwrap();
    s.workload.cached = cached;
    let hit = predict(&s).unwrap();
    assert_eq!((fresh.prefill_batch, hit.prefill_batch), (1.0, 1.0));
    // Matrix work scales with the tokens computed: 1024 of 4096.
    let flops = |p: &Prediction, k: OpKind| p.prefill_cost.op(k).flops.value();
    let ffn = flops(&hit, OpKind::DenseFfn) / flops(&fresh, OpKind::DenseFfn);
    assert!((ffn - 0.25).abs() < 1e-12, "{ffn}");
    // Attention: the new tokens attend over the cached prefix, sum_{t=3073}^{4096} t
    // against sum_{t=1}^{4096} t.
    let s_n = |n: f64| n * (n + 1.0) / 2.0;
    let expected = (s_n(4096.0) - s_n(3072.0)) / s_n(4096.0);
    let core = flops(&hit, OpKind::AttnCore) / flops(&fresh, OpKind::AttnCore);
    assert!((core - expected).abs() < 1e-12, "{core} vs {expected}");
    // Cached tokens are still input served: input/output stays isl/osl.
    assert!((hit.input_tok_s / hit.output_tok_s - 4096.0 / 256.0).abs() < 1e-9);
    assert!(hit.ttft < fresh.ttft && hit.output_tok_s > fresh.output_tok_s);
    // Decode and memory do not change: the whole prompt's KV is held either way.
    assert_eq!(hit.decode_step, fresh.decode_step);
    assert_eq!(hit.memory, fresh.memory);
    // Caching the whole prompt leaves nothing to compute: refused with a reason.
    s.workload.cached = isl;
    assert!(predict(&s)
        .unwrap_err()
        .to_string()
        .contains("fewer than the prompt"));
}

#[test]
fn spread_output_lengths_hold_longer_sequences_in_the_batch() {
    use disagg_engine::kernel::OpKind;
    let chip = cat().chip("h100-sxm").unwrap();
    let mut s = scenario(
        "llama-3.1-8b",
        chip,
        tp(1),
        DType::Fp8,
        2000,
        1000,
        Batch::Fixed(64),
    );
    let fixed = predict(&s).unwrap();
    // A spread of 1 (exponential-like lengths): a running sequence's whole output
    // averages osl * (1 + 1^2) = 2000 tokens, so it sits at 2000 + 1000 = 3000 tokens
    // on average (against 2500) and reaches 4000 (against 3000).
    s.workload = s.workload.with_output_cv(1.0);
    assert_eq!(s.workload.mean_decode_context(), 3000.0);
    assert_eq!(s.workload.max_context(), 4000.0);
    assert_eq!(s.workload.request_context(), 3000.0);
    let spread = predict(&s).unwrap();
    // Attention reads the KV of the longer running sequences (the context and the new
    // token) and writes the new token's: (3000 + 2) / (2500 + 2) of the bytes.
    let kv = |p: &Prediction| p.decode_cost.op(OpKind::AttnCore).bytes.value();
    let ratio = kv(&spread) / kv(&fixed);
    assert!((ratio - 3002.0 / 2502.0).abs() < 1e-12, "{ratio}");
    // Weights and prefill do not change; each step is slower and fewer sequences fit.
    assert_eq!(
        spread.decode_cost.op(OpKind::DenseFfn),
        fixed.decode_cost.op(OpKind::DenseFfn)
    );
    assert_eq!(spread.prefill_step, fixed.prefill_step);
    assert!(spread.decode_step > fixed.decode_step);
    assert!(spread.max_batch < fixed.max_batch);
    assert!(spread.memory.kv > fixed.memory.kv);
    // No spread is the fixed-length workload.
    s.workload = s.workload.with_output_cv(0.0);
    assert_eq!(predict(&s).unwrap(), fixed);
    // An impossible spread is refused with the reason.
    for bad in [-0.5, f64::NAN, f64::INFINITY, 10.5] {
        s.workload = s.workload.with_output_cv(bad);
        let why = predict(&s).unwrap_err().to_string();
        assert!(why.contains("output-length spread"), "{bad}: {why}");
    }
}

fn with_chip(base: &Chip, f: impl FnOnce(&mut Chip)) -> Chip {
    let mut c = base.clone();
    f(&mut c);
    c
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// More bandwidth or more FLOPS never makes a step slower.
    #[test]
    fn faster_hardware_is_never_slower(
        chip_index in 0usize..64,
        batch in 1u32..512,
        isl in 1u32..8192,
        osl in 1u32..2048,
        scale in 1.0f64..4.0,
    ) {
        let chips = &cat().chips;
        let base = &chips[chip_index % chips.len()];
        let model = if chip_index % 2 == 0 { "llama-3.1-8b" } else { "qwen3-30b-a3b" };
        let before = predict(&scenario(model, base, tp(1), DType::Fp8, isl, osl, Batch::Fixed(batch))).unwrap();
        let more_bw = with_chip(base, |c| c.fast.bandwidth = BytesPerSecond::new(c.fast.bandwidth.value() * scale));
        let more_flops = with_chip(base, |c| {
            c.bf16 = FlopsPerSecond::new(c.bf16.value() * scale);
            c.fp8 = c.fp8.map(|f| FlopsPerSecond::new(f.value() * scale));
            c.fp4 = c.fp4.map(|f| FlopsPerSecond::new(f.value() * scale));
        });
        for faster in [more_bw, more_flops] {
            let after = predict(&scenario(model, &faster, tp(1), DType::Fp8, isl, osl, Batch::Fixed(batch))).unwrap();
            prop_assert!(after.decode_step.value() <= before.decode_step.value() * (1.0 + 1e-12));
            prop_assert!(after.prefill_step.value() <= before.prefill_step.value() * (1.0 + 1e-12));
        }
    }

    /// More chips never reduce the sequences that fit.
    #[test]
    fn more_chips_never_reduce_capacity(chip_index in 0usize..64, isl in 1u32..32768, doubling in 0u32..4) {
        let chips = &cat().chips;
        let chip = &chips[chip_index % chips.len()];
        let n = 1u32 << doubling;
        // The most sequences any layout of `n` chips holds.
        let cap = |n: u32| {
            let s = scenario("llama-3.3-70b", chip, tp(1), DType::Fp8, isl, 512, Batch::Fixed(1));
            disagg_engine::disagg::layouts::pool_layouts(
                s.model,
                PoolRole::Colocated,
                chip,
                n,
                disagg_engine::disagg::layouts::Search::Exhaustive,
            )
            .into_iter()
            .filter_map(|parallelism| predict(&Scenario { parallelism, ..s }).ok())
            .map(|p| p.max_batch)
            .max()
            .unwrap_or(0)
        };
        prop_assert!(cap(2 * n) >= cap(n));
    }
}

#[test]
fn a_benchmarks_first_wave_moves_its_mean_ttft_by_its_share() {
    // 32 users of 320 prompts: the first 32 arrive together (a tenth of the requests),
    // the rest live the steady loop. TPOT and throughput are the steady loop's.
    let h100 = cat().chip("h100-sxm").unwrap();
    let mut s = scenario(
        "llama-3.3-70b",
        h100,
        tp(4),
        DType::Fp8,
        4_000,
        500,
        Batch::Fixed(32),
    )
    .setup();
    let d = Deployment::Aggregated {
        pool: PoolConfig {
            chip: h100,
            parallelism: tp(4),
        },
        batch: 32,
    };
    let steady = evaluate(&s, &d).unwrap().figures;
    s.workload.prompts = Some(320);
    let mixed = evaluate(&s, &d).unwrap().figures;
    s.workload.prompts = Some(32);
    let wave = evaluate(&s, &d).unwrap().figures;
    assert_eq!(
        (mixed.tpot, mixed.output_tok_s),
        (steady.tpot, steady.output_tok_s)
    );
    assert!(wave.ttft > mixed.ttft && mixed.ttft > steady.ttft);
    // The mean is linear in the share: steady + 0.1 (wave - steady).
    let expect = steady.ttft.value() + 0.1 * (wave.ttft.value() - steady.ttft.value());
    assert!((mixed.ttft.value() - expect).abs() < 1e-12);
    // Ten prompts per user is 320 prompts at 32 users.
    s.workload.prompts = None;
    s.workload.prompts_per_user = Some(10.0);
    assert_eq!(evaluate(&s, &d).unwrap().figures, mixed);
    // 2.5 per user rounds up to 80 prompts, 32 of them the first wave.
    s.workload.prompts_per_user = Some(2.5);
    let quarter = evaluate(&s, &d).unwrap().figures;
    let expect = steady.ttft.value() + 0.4 * (wave.ttft.value() - steady.ttft.value());
    assert!((quarter.ttft.value() - expect).abs() < 1e-12);
    // Above the batch limit the queued users send theirs too: ten per user at 32 users
    // is 320 prompts, though 16 run.
    let mut capped = s;
    capped.assumptions = capped.assumptions.pin("max_seqs_per_replica", 16.0);
    capped.workload.prompts_per_user = Some(10.0);
    let per_user = evaluate(&capped, &d).unwrap();
    capped.workload.prompts_per_user = None;
    capped.workload.prompts = Some(320);
    let stated = evaluate(&capped, &d).unwrap();
    assert_eq!(per_user.figures, stated.figures);
    assert!(
        per_user.warnings[0].contains("16 of 32"),
        "{:?}",
        per_user.warnings
    );
    // Under one prompt a user, not finite, or beside a stated count: refused by name.
    for (prompts, per_user) in [
        (None, 0.5),
        (None, f64::NAN),
        (None, f64::INFINITY),
        (Some(320), 10.0),
    ] {
        s.workload.prompts = prompts;
        s.workload.prompts_per_user = Some(per_user);
        let why = evaluate(&s, &d).unwrap_err().to_string();
        assert!(why.contains("prompts per user"), "{why}");
    }
    s.workload.prompts_per_user = None;
    // No prompts at all is refused by name.
    s.workload.prompts = Some(0);
    let why = evaluate(&s, &d).unwrap_err().to_string();
    assert!(why.contains("prompts"), "{why}");
    // A scheduler polling every 30 decode steps adds its wait to TTFT and to each
    // user's cycle, not to the time between tokens (TPOT moves only as the prefill
    // queue, busy a smaller share of the longer cycle, shortens); an interval of 0 is
    // refused by name.
    s.workload.prompts = None;
    s.assumptions.scheduler_recv_interval = 30;
    let polled = evaluate(&s, &d).unwrap().figures;
    assert!((polled.tpot.value() / steady.tpot.value() - 1.0).abs() < 1e-3);
    assert!(polled.ttft > steady.ttft && polled.output_tok_s < steady.output_tok_s);
    s.assumptions.scheduler_recv_interval = 0;
    let why = evaluate(&s, &d).unwrap_err().to_string();
    assert!(why.contains("scheduler_recv_interval"), "{why}");
}

/// A finite run read to its last request's end (MLPerf Offline) loses the drain of its
/// last batch: the closed form over the pool's own decode steps at one sequence and at
/// the full batch, weighed against the run's length (MODEL.md 6.1.4).
#[test]
fn a_finite_run_loses_its_last_batch_draining() {
    use disagg_engine::disagg::finite_run::drain_loss;
    use disagg_engine::FiniteRun;
    let chip = cat().chip("h100-sxm").unwrap();
    let mut s = scenario(
        "llama-3.1-8b",
        chip,
        tp(1),
        DType::Fp8,
        500,
        200,
        Batch::Fixed(64),
    );
    s.workload = s.workload.with_output_cv(0.5);
    let steady = predict(&s).unwrap();
    let one = predict(&Scenario {
        batch: Batch::Fixed(1),
        ..s
    })
    .unwrap();
    let run = FiniteRun {
        requests: 10_000,
        longest_output: 1_000,
    };
    s.workload.finite_run = Some(run);
    let finite = predict(&s).unwrap();
    // The steps, the batch and the latencies are the steady loop's; only the rate over
    // the whole run falls.
    assert_eq!(finite.decode_step, steady.decode_step);
    assert_eq!((finite.ttft, finite.tpot), (steady.ttft, steady.tpot));
    // Mean tokens a running sequence has left: osl (1 + cv^2) / 2 = 125.
    let loss = drain_loss(one.decode_step, steady.decode_step, 64.0, 1000.0, 125.0);
    let t = 10_000.0 * 200.0 / steady.output_tok_s;
    let closed = steady.output_tok_s * t / (t + loss.value());
    assert!((finite.output_tok_s / closed - 1.0).abs() < 1e-12);
    assert!(finite.output_tok_s < steady.output_tok_s);
    // Input and output stretch alike.
    let ratio = finite.output_tok_s / steady.output_tok_s;
    assert!((finite.input_tok_s / steady.input_tok_s - ratio).abs() < 1e-12);
    // A longer run weighs the same drain less.
    s.workload.finite_run = Some(FiniteRun {
        requests: 100_000,
        ..run
    });
    let longer = predict(&s).unwrap();
    assert!(finite.output_tok_s < longer.output_tok_s);
    assert!(longer.output_tok_s < steady.output_tok_s);
    // A longest output shorter than the mean is refused with the reason.
    s.workload.finite_run = Some(FiniteRun {
        longest_output: 100,
        ..run
    });
    let why = predict(&s).unwrap_err().to_string();
    assert!(why.contains("longest output"), "{why}");
}
