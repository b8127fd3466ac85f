//! Disaggregation axes: literature sanity bands and invariants of each axis, and the
//! helpers the sweep tests share (`sweeps.rs`, `answers.rs`). The bands' sources are in `audit/AUDIT.md` ("Disaggregation bands").

use disagg_engine::disagg::{
    evaluate, without_speculation, Axis, Deployment, Draft, Limiter, PoolConfig, Setup,
};
use disagg_engine::frontier::{pareto, value_at};
use disagg_engine::serving::FrameworkChoice;
use disagg_engine::sweep::{sweep, Class, SweepRequest, SweepResult};
use disagg_engine::units::BytesPerSecond;
use disagg_engine::{Catalogue, Chip, Parallelism, WeightFormat, Workload};

pub(crate) fn cat() -> &'static Catalogue {
    Catalogue::builtin()
}

pub(crate) fn chip(id: &str) -> &'static Chip {
    cat().chip(id).unwrap()
}

pub(crate) fn setup(model: &str, isl: u32, osl: u32) -> Setup<'static> {
    let preset = cat().model(model).unwrap();
    Setup::new(
        &preset.ir,
        Workload::new(isl, osl),
        WeightFormat::new(preset.default_weight_dtype),
    )
}

pub(crate) fn with_draft(mut s: Setup<'static>, id: &'static str) -> Setup<'static> {
    s.speculation.draft = Draft::Model {
        id,
        ir: &cat().model(id).unwrap().ir,
    };
    s
}

pub(crate) fn tp(chip: &'static Chip, n: u32) -> PoolConfig<'static> {
    PoolConfig {
        chip,
        parallelism: Parallelism {
            tp: n,
            pp: 1,
            dp: 1,
            ep: 1,
        },
    }
}

/// `n` attention-DP replicas of one chip each (`tp 1`): one rank per chip.
pub(crate) fn dp(chip: &'static Chip, n: u32) -> PoolConfig<'static> {
    PoolConfig {
        chip,
        parallelism: Parallelism {
            tp: 1,
            pp: 1,
            dp: n,
            ep: 1,
        },
    }
}

pub(crate) fn run(s: Setup<'static>, axis: Axis, chips: &[&str], max: u32) -> SweepResult {
    sweep(&SweepRequest {
        setup: s,
        axis,
        chips: chips.iter().map(|c| chip(c)).collect(),
        max_chips: max,
        target_tok_s_user: None,
        slo: Default::default(),
        batch: None,
    })
    .unwrap()
}

/// The best tok/s per chip of `classes` at `target` tok/s/user, read off their frontier.
pub(crate) fn at(r: &SweepResult, classes: &[Class], target: f64) -> Option<f64> {
    let xy: Vec<(f64, f64)> = r
        .cloud
        .iter()
        .filter(|p| classes.contains(&p.class))
        .map(|p| {
            (
                p.figures.tok_s_user.value(),
                p.figures.output_tok_s_per_chip.value(),
            )
        })
        .collect();
    let f: Vec<(f64, f64)> = pareto(&xy).into_iter().map(|i| xy[i]).collect();
    value_at(&f, target)
}

pub(crate) fn speedup(s: Setup<'static>, target: PoolConfig<'static>, batch: u32) -> f64 {
    let d = Deployment::Speculative {
        target,
        draft: None,
        batch,
    };
    let spec = evaluate(&s, &d).unwrap();
    let (plain_setup, plain) = without_speculation(&s, &d).unwrap();
    let base = evaluate(&plain_setup, &plain).unwrap();
    assert!(
        spec.fits && base.fits,
        "{:?} {:?}",
        spec.reason,
        base.reason
    );
    spec.figures.tok_s_user / base.figures.tok_s_user
}

#[test]
fn the_twin_without_speculation_is_the_same_pools_at_the_same_batch() {
    let s = with_draft(setup("llama-3.3-70b", 2048, 256), "llama-3.2-1b");
    let target = tp(chip("h200"), 8);
    // Speculative axis: the target's pool alone, aggregated, at the same batch.
    let d = Deployment::Speculative {
        target,
        draft: None,
        batch: 32,
    };
    let (same, twin) = without_speculation(&s, &d).unwrap();
    assert_eq!(
        twin.spec(),
        Deployment::Aggregated {
            pool: target,
            batch: 32
        }
        .spec()
    );
    assert!(!same.speculative_decode);
    // Prefill/decode with a drafting decode pool: the same pools, the draft off.
    let pd = Deployment::PrefillDecode {
        prefill: tp(chip("h200"), 8),
        decode: target,
        batch: 32,
    };
    let drafting = Setup {
        speculative_decode: true,
        ..s
    };
    let (plain, same_pd) = without_speculation(&drafting, &pd).unwrap();
    assert_eq!(same_pd.spec(), pd.spec());
    assert!(!plain.speculative_decode);
    let with = evaluate(&drafting, &pd).unwrap().figures;
    let without = evaluate(&plain, &pd).unwrap().figures;
    assert_eq!(without, evaluate(&s, &pd).unwrap().figures);
    assert_ne!(with.tok_s_user, without.tok_s_user);
    assert_eq!((with.batch, with.chips), (without.batch, without.chips));
    // Nothing speculates: no twin.
    assert!(without_speculation(&s, &pd).is_none());
    assert!(without_speculation(
        &s,
        &Deployment::Aggregated {
            pool: target,
            batch: 32
        }
    )
    .is_none());
}

#[test]
fn expected_accepted_tokens_closed_form() {
    let mut s = setup("llama-3.1-8b", 128, 128).speculation;
    // a = 0.8, K = 4: (1 - 0.8^5) / 0.2 = 3.3616.
    assert!((s.expected_tokens() - 3.3616).abs() < 1e-9);
    s.acceptance = 0.0;
    assert_eq!(s.expected_tokens(), 1.0);
    s.acceptance = 1.0;
    assert_eq!(s.expected_tokens(), 5.0);
}

#[test]
fn speculation_at_batch_one_gives_two_to_three_times() {
    // A cheap draft (MTP layers; a 1B draft for a 70B target), a = 0.8, K = 4.
    let mtp = speedup(setup("deepseek-v3", 1024, 1024), tp(chip("h200"), 8), 1);
    assert!(
        (2.0..=3.0).contains(&mtp),
        "DeepSeek-V3 MTP speedup {mtp:.2}"
    );
    let llama = speedup(
        with_draft(setup("llama-3.3-70b", 1024, 1024), "llama-3.2-1b"),
        tp(chip("h100-sxm"), 4),
        1,
    );
    assert!(
        (2.0..=3.0).contains(&llama),
        "70B with 1B draft: {llama:.2}"
    );
}

#[test]
fn speculation_gain_shrinks_with_batch() {
    let s = with_draft(setup("llama-3.3-70b", 1024, 1024), "llama-3.2-1b");
    let pool = tp(chip("h100-sxm"), 4);
    let gains: Vec<f64> = [1, 16, 64, 256]
        .iter()
        .map(|&b| speedup(s, pool, b))
        .collect();
    for w in gains.windows(2) {
        assert!(w[1] < w[0], "gains by batch: {gains:?}");
    }
    assert!(gains[3] < 0.6 * gains[0], "gains by batch: {gains:?}");
}

#[test]
fn prefill_decode_lifts_long_prompts_under_tight_tpot_only() {
    // The global assumptions' limits, whatever framework a chip would take.
    let generic = |mut s: Setup<'static>| {
        s.assumptions.framework = FrameworkChoice::Generic;
        s
    };
    for (model, c) in [("llama-3.3-70b", "h100-sxm"), ("qwen3-30b-a3b", "mi300x")] {
        let long = run(
            generic(setup(model, 8192, 256)),
            Axis::PrefillDecode,
            &[c],
            32,
        );
        let short = run(
            generic(setup(model, 128, 2048)),
            Axis::PrefillDecode,
            &[c],
            32,
        );
        for target in [20.0, 40.0] {
            let lift = at(&long, &[Class::Homogeneous], target).unwrap()
                / at(&long, &[Class::Baseline], target).unwrap();
            assert!(lift > 1.3, "{model} long prompts at {target}: {lift:.2}");
            // Short prompts leave prefill a sliver of the time. The split still gains up
            // to about 5% where the best colocated layout is attention-data-parallel
            // over shared experts, whose replicas wait for each other's prefills.
            let flat = at(&short, &[Class::Homogeneous], target).unwrap()
                / at(&short, &[Class::Baseline], target).unwrap();
            assert!(flat < 1.06, "{model} short prompts at {target}: {flat:.3}");
        }
    }
}

#[test]
fn attention_expert_needs_a_fast_link() {
    let target = 20.0;
    let ratio = |gbps: f64, aligned: bool| {
        let mut s = setup("deepseek-v3", 2048, 1024);
        s.inter_pool_link = Some(BytesPerSecond::from_gbit_per_s(gbps));
        s.assumptions.aligned_group_prefill = aligned;
        let r = run(s, Axis::AttentionExpert, &["h200"], 64);
        at(&r, &[Class::Homogeneous], target).unwrap_or(0.0)
            / at(&r, &[Class::Baseline], target).unwrap()
    };
    for aligned in [false, true] {
        let slow = ratio(25.0, aligned);
        let fast = ratio(1600.0, aligned);
        assert!(slow < 0.5, "25 Gb/s, aligned {aligned}: {slow:.2}");
        assert!(fast > 1.0, "1600 Gb/s, aligned {aligned}: {fast:.2}");
    }
    // The crossovers stated in the audit. Against a colocated baseline whose
    // attention-DP replicas prefill on their own schedules (the engines' default) the
    // split wins from about 100 Gb/s per chip; against one that aligns them (ADP
    // balancing), from about 400.
    assert!(ratio(50.0, false) < 1.0 && ratio(200.0, false) > 1.0);
    assert!(ratio(200.0, true) < 1.0 && ratio(800.0, true) > 1.0);
}

#[test]
fn attention_expert_rejects_dense_models() {
    let s = setup("llama-3.1-8b", 1024, 1024);
    let err = evaluate(
        &s,
        &Deployment::AttentionExpert {
            attention: tp(chip("h100-sxm"), 1),
            experts: tp(chip("h100-sxm"), 1),
            micro_batches: 2,
            batch: 8,
        },
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("mixture-of-experts"), "{err}");
    let swept = sweep(&SweepRequest {
        setup: s,
        axis: Axis::AttentionExpert,
        chips: vec![chip("h100-sxm")],
        max_chips: 8,
        target_tok_s_user: None,
        slo: Default::default(),
        batch: None,
    });
    assert!(swept.is_err());
}

#[test]
fn mtp_needs_mtp_layers() {
    let err = evaluate(
        &setup("llama-3.1-8b", 128, 128),
        &Deployment::Speculative {
            target: tp(chip("h100-sxm"), 1),
            draft: None,
            batch: 1,
        },
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("multi-token-prediction"), "{err}");
}

/// TPOT of a DeepSeek-V3 prefill/decode split on H200s at `batch`, with the decode pool
/// speculating (MTP, `k` drafted tokens at acceptance `a`) or not.
fn pd_tpot(batch: u32, speculate: Option<(u32, f64)>) -> f64 {
    let mut s = setup("deepseek-v3", 1024, 1024);
    if let Some((k, a)) = speculate {
        s.speculative_decode = true;
        s.speculation.draft_tokens = k;
        s.speculation.acceptance = a;
    }
    let d = Deployment::PrefillDecode {
        prefill: tp(chip("h200"), 8),
        decode: tp(chip("h200"), 8),
        batch,
    };
    evaluate(&s, &d).unwrap().figures.tpot.value()
}

#[test]
fn speculation_inside_the_decode_pool() {
    // Batch 1 is weight-bound: verifying 2 tokens costs about one step, so one MTP token
    // at acceptance 0.85 (E = 1.85) gains between 1.3x and E.
    let plain = pd_tpot(1, None);
    let gain = plain / pd_tpot(1, Some((1, 0.85)));
    assert!((1.3..1.85).contains(&gain), "gain {gain}");
    // The gain shrinks as verification turns compute-bound.
    let gain_large = pd_tpot(256, None) / pd_tpot(256, Some((1, 0.85)));
    assert!(gain_large < gain, "{gain_large} vs {gain}");
    // Drafts that are never accepted only cost time.
    assert!(pd_tpot(1, Some((1, 0.0))) > plain);
    // A model without MTP layers cannot speculate with them.
    let mut s = setup("llama-3.3-70b", 1024, 1024);
    s.speculative_decode = true;
    let err = evaluate(
        &s,
        &Deployment::PrefillDecode {
            prefill: tp(chip("h200"), 4),
            decode: tp(chip("h200"), 4),
            batch: 8,
        },
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("multi-token-prediction"), "{err}");
}

#[test]
fn per_chip_figures_divide_by_both_pools() {
    let s = with_draft(setup("llama-3.3-70b", 2048, 512), "llama-3.2-1b");
    let deployments = [
        Deployment::PrefillDecode {
            prefill: tp(chip("h100-sxm"), 4),
            decode: tp(chip("mi300x"), 2),
            batch: 64,
        },
        Deployment::Speculative {
            target: tp(chip("h200"), 4),
            draft: Some(tp(chip("l40s"), 1)),
            batch: 8,
        },
    ];
    for d in deployments {
        let p = evaluate(&s, &d).unwrap();
        let f = p.figures;
        assert_eq!(f.chips, d.chips());
        assert!(
            (f.output_tok_s_per_chip * f.chips as f64 - f.output_tok_s)
                .value()
                .abs()
                < 1e-6
        );
        assert!(
            (f.input_tok_s_per_chip * f.chips as f64 - f.input_tok_s)
                .value()
                .abs()
                < 1e-6
        );
        let total: u32 = p.pools.iter().map(|pool| pool.chips).sum();
        assert_eq!(total, f.chips);
        // Dollars per hour add up over both pools.
        let price: f64 = d
            .pools()
            .iter()
            .map(|(_, pool)| pool.chip.price.unwrap().value() * pool.chips() as f64)
            .sum();
        assert!((f.usd_per_hour.unwrap().value() - price).abs() < 1e-9);
    }
    let af = evaluate(
        &setup("deepseek-v3", 1024, 1024),
        &Deployment::AttentionExpert {
            attention: dp(chip("h200"), 8),
            experts: tp(chip("mi300x"), 16),
            micro_batches: 2,
            batch: 256,
        },
    )
    .unwrap();
    assert_eq!(af.figures.chips, 24);
    assert!(
        (af.figures.output_tok_s_per_chip * 24.0 - af.figures.output_tok_s)
            .value()
            .abs()
            < 1e-6
    );
}

/// The mean wait of a cohort of `s` prompts prefilled `p` to a step started every
/// `t`, summed prompt by prompt: the `k`-th waits `t / p * max(k, p) - t`.
fn cohort_by_hand(t: f64, p: f64, s: u32) -> f64 {
    (1..=s)
        .map(|k| (t / p * (k as f64).max(p) - t).max(0.0))
        .sum::<f64>()
        / s as f64
}

#[test]
fn a_first_wave_on_prefill_decode_waits_for_its_cohorts_prefills() {
    // 10 prompts per user (InferenceMAX's rule): a tenth of the requests arrive
    // together at the prefill pool and wait for each other's prefills there, in place
    // of the steady loop's wait in front of it (its M/D/1 wait and any queue Little's
    // law leaves). TPOT and the rates stay the steady loop's (MODEL.md 6.1.2, 6.3).
    let h100 = chip("h100-sxm");
    let mut s = setup("llama-3.3-70b", 4000, 500);
    s.assumptions = s.assumptions.pin("max_seqs_per_replica", 1024.0);
    let replicated = |dp| PoolConfig {
        chip: h100,
        parallelism: Parallelism {
            dp,
            ..tp(h100, 2).parallelism
        },
    };
    for (prefill, decode, batch) in [
        // The decode pool sets the rate: no queue in the steady loop.
        (tp(h100, 4), tp(h100, 4), 32),
        // Two prefill replicas, each taking half of the first wave.
        (replicated(2), tp(h100, 4), 48),
        // A small prefill pool caps the rate: the steady loop queues in front of it.
        (tp(h100, 2), replicated(4), 512),
    ] {
        let d = Deployment::PrefillDecode {
            prefill,
            decode,
            batch,
        };
        s.workload.prompts = None;
        let steady = evaluate(&s, &d).unwrap();
        s.workload.prompts = Some(10 * batch);
        let mixed = evaluate(&s, &d).unwrap();
        let (fs, fm) = (steady.figures, mixed.figures);
        assert_eq!((fm.tpot, fm.output_tok_s), (fs.tpot, fs.output_tok_s));
        assert_eq!(fm.ttft, mixed.ttft.mean());
        let pool = &steady.pools[0];
        let replicas = prefill.parallelism.dp;
        let w_1 = cohort_by_hand(pool.step.value(), pool.seqs_per_replica, batch / replicas);
        let parts = steady.ttft.parts;
        let w_ss = parts.prefill_wait + parts.queue;
        let expect = fs.ttft.value() + 0.1 * (w_1 - w_ss.value());
        assert!(
            (fm.ttft.value() - expect).abs() < 1e-9 * expect,
            "{d:?}: {} against {expect}",
            fm.ttft.value()
        );
        if batch == 512 {
            assert_eq!(fs.limiter, Limiter::PrefillPool);
        }
        // The spread mixes the cohort's waits with the steady loop's.
        let r = mixed.ttft.report();
        assert!(r.p50_s <= r.p90_s && r.p90_s.is_finite());
    }
}

/// TPOT's spread over requests on every axis: its mean is the figures' TPOT, p50 and
/// p90 bracket it the way the interruptions allow (none in a decode pool that never
/// prefills, nor for one sequence alone), and random arrivals spread it more than the
/// closed loop at the same mean (MODEL.md 6.1, "TPOT's spread").
#[test]
fn tpots_spread_follows_the_prefills_that_interrupt_generation() {
    use disagg_engine::disagg::open_loop::at_rate;
    use disagg_engine::disagg::tpot::Interruptions;
    use disagg_engine::units::RequestsPerSecond;
    let llama = with_draft(setup("llama-3.3-70b", 2048, 256), "llama-3.2-1b");
    let deepseek = setup("deepseek-v3", 2048, 256);
    let af = Deployment::AttentionExpert {
        attention: dp(chip("h200"), 8),
        experts: tp(chip("h200"), 8),
        micro_batches: 2,
        batch: 64,
    };
    let cases = [
        (
            &llama,
            Deployment::Aggregated {
                pool: tp(chip("h200"), 4),
                batch: 64,
            },
            true,
        ),
        (
            &llama,
            Deployment::Speculative {
                target: tp(chip("h200"), 4),
                draft: None,
                batch: 16,
            },
            true,
        ),
        (&deepseek, af, true),
        (
            &llama,
            Deployment::PrefillDecode {
                prefill: tp(chip("h200"), 4),
                decode: tp(chip("h200"), 4),
                batch: 64,
            },
            false,
        ),
        (
            &llama,
            Deployment::Aggregated {
                pool: tp(chip("h200"), 4),
                batch: 1,
            },
            false,
        ),
    ];
    for (s, d, interrupted) in cases {
        let p = evaluate(s, &d).unwrap();
        let t = p.tpot;
        assert_eq!(t.mean, p.figures.tpot, "{d:?}");
        let (p50, p90) = (t.quantile(0.5), t.quantile(0.9));
        assert!(p50 <= p90, "{d:?}: {p50:?} > {p90:?}");
        if interrupted {
            assert!(
                matches!(t.interruptions, Interruptions::Binomial { .. }),
                "{d:?}"
            );
            assert!(p90 > t.mean, "{d:?}: p90 {p90:?} mean {:?}", t.mean);
        } else {
            assert_eq!(t.interruptions, Interruptions::None, "{d:?}");
            assert_eq!((p50, p90), (t.mean, t.mean), "{d:?}");
        }
        // The report states what the quantiles say, and so do the figures a sweep's
        // limits on the p90 read.
        let r = t.report();
        assert_eq!((r.p50_s, r.p90_s), (p50.value(), p90.value()));
        assert_eq!(p.figures.tpot_p90, p90, "{d:?}");
        assert_eq!(p.figures.ttft_p90, p.ttft.quantile(0.9), "{d:?}");
    }
    // Above the engine's batch limit the queue adds to every request's TTFT alike.
    let mut capped = llama;
    capped.assumptions = capped.assumptions.pin("max_seqs_per_replica", 16.0);
    let queued = evaluate(
        &capped,
        &Deployment::Aggregated {
            pool: tp(chip("h200"), 4),
            batch: 64,
        },
    )
    .unwrap();
    assert!(queued.ttft.parts.queue.value() > 0.0);
    assert_eq!(queued.figures.ttft_p90, queued.ttft.quantile(0.9));
    // Random arrivals at a rate: the held concurrency's mean, a Poisson count, a wider
    // p90 than the closed loop at that concurrency.
    let d = Deployment::Aggregated {
        pool: tp(chip("h200"), 4),
        batch: 1,
    };
    let open = at_rate(&llama, &d, RequestsPerSecond::new(2.0)).unwrap();
    let closed = evaluate(&llama, &d.with_batch(open.figures.batch)).unwrap();
    assert_eq!(open.tpot.mean, closed.tpot.mean);
    assert!(matches!(
        open.tpot.interruptions,
        Interruptions::Poisson { .. }
    ));
    assert!(open.tpot.quantile(0.9) > closed.tpot.quantile(0.9));
    assert_eq!(open.figures.tpot_p90, open.tpot.quantile(0.9));
    assert_eq!(open.figures.ttft_p90, open.ttft.quantile(0.9));
}
