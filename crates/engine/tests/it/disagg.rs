//! Disaggregation axes, sweeps and frontiers: literature sanity bands, invariants and
//! property tests. The bands' sources are in `audit/AUDIT.md` ("Disaggregation bands").

use disagg_engine::disagg::{
    evaluate, without_speculation, Axis, Deployment, Draft, PoolConfig, Setup,
};
use disagg_engine::frontier::{pareto, value_at, Objective};
use disagg_engine::serving::FrameworkChoice;
use disagg_engine::sweep::{sweep, Class, SweepRequest, SweepResult};
use disagg_engine::units::{BytesPerSecond, TokensPerSecond};
use disagg_engine::{Catalogue, Chip, Parallelism, WeightFormat, Workload};
use proptest::prelude::*;

fn cat() -> &'static Catalogue {
    Catalogue::builtin()
}

fn chip(id: &str) -> &'static Chip {
    cat().chip(id).unwrap()
}

fn setup(model: &str, isl: u32, osl: u32) -> Setup<'static> {
    let preset = cat().model(model).unwrap();
    Setup::new(
        &preset.ir,
        Workload::new(isl, osl),
        WeightFormat::new(preset.default_weight_dtype),
    )
}

fn with_draft(mut s: Setup<'static>, id: &'static str) -> Setup<'static> {
    s.speculation.draft = Draft::Model {
        id,
        ir: &cat().model(id).unwrap().ir,
    };
    s
}

fn tp(chip: &'static Chip, n: u32) -> PoolConfig<'static> {
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

fn run(s: Setup<'static>, axis: Axis, chips: &[&str], max: u32) -> SweepResult {
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
fn at(r: &SweepResult, classes: &[Class], target: f64) -> Option<f64> {
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

fn speedup(s: Setup<'static>, target: PoolConfig<'static>, batch: u32) -> f64 {
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
            // Short prompts leave prefill a sliver of the time. The split still gains a
            // few per cent where the best colocated layout is attention-data-parallel
            // over shared experts, whose replicas wait for each other's prefills.
            let flat = at(&short, &[Class::Homogeneous], target).unwrap()
                / at(&short, &[Class::Baseline], target).unwrap();
            assert!(flat < 1.05, "{model} short prompts at {target}: {flat:.3}");
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
            attention: PoolConfig {
                chip: chip("h200"),
                parallelism: Parallelism {
                    tp: 1,
                    pp: 1,
                    dp: 8,
                    ep: 1,
                },
            },
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

#[test]
fn same_chip_splits_never_beat_aggregated_by_an_impossible_margin() {
    // Splitting one chip kind removes prefill interference and lets each phase pick its
    // own layout; it cannot create throughput out of nothing. Peak tok/s per chip of a
    // same-chip split stays within 1.3x of the aggregated peak.
    for (model, c, axis) in [
        ("llama-3.1-8b", "h100-sxm", Axis::PrefillDecode),
        ("llama-3.3-70b", "mi300x", Axis::PrefillDecode),
        ("qwen3-30b-a3b", "h200", Axis::PrefillDecode),
        ("qwen3-30b-a3b", "h200", Axis::AttentionExpert),
    ] {
        for (isl, osl) in [(1024, 1024), (8192, 256)] {
            let r = run(setup(model, isl, osl), axis, &[c], 32);
            let peak = |class: Class| {
                r.cloud
                    .iter()
                    .filter(|p| p.class == class)
                    .map(|p| p.figures.output_tok_s_per_chip.value())
                    .fold(0.0, f64::max)
            };
            let ratio = peak(Class::Homogeneous) / peak(Class::Baseline);
            assert!(ratio < 1.3, "{model} {c} {axis} {isl}/{osl}: {ratio:.2}");
        }
    }
}

#[test]
fn sweep_points_match_single_point_evaluation() {
    let dense = with_draft(setup("llama-3.3-70b", 4096, 512), "llama-3.2-1b");
    let moe = setup("qwen3-30b-a3b", 2048, 256);
    for (s, axis) in [
        (dense, Axis::Aggregated),
        (dense, Axis::PrefillDecode),
        (dense, Axis::Speculative),
        (moe, Axis::AttentionExpert),
    ] {
        let r = run(s, axis, &["h100-sxm", "mi300x"], 16);
        assert!(!r.throughput.all.is_empty());
        // Every point the chart can draw, not only the frontiers', to the last bit.
        for p in &r.cloud {
            let d = p.spec.resolve(cat()).unwrap();
            let alone = evaluate(&s, &d).unwrap();
            assert!(alone.fits, "{}", p.label);
            assert_eq!(alone.figures, p.figures, "{}", p.label);
        }
    }
}

#[test]
fn default_heterogeneous_sweep_is_large_and_keeps_its_counts() {
    let chips = [
        "h100-sxm", "h200", "b200", "gb200", "mi300x", "mi325x", "mi355x", "a100-80g", "l40s",
        "gaudi3",
    ];
    let r = run(
        setup("llama-3.3-70b", 8192, 512),
        Axis::PrefillDecode,
        &chips,
        64,
    );
    assert!(r.evaluated >= 100_000, "{} points", r.evaluated);
    assert!(r.feasible <= r.evaluated);
    let rejected: u64 = r.rejected.iter().map(|c| c.count).sum();
    assert!(rejected > 0, "small chips cannot hold a 70B model alone");
    assert!(r.feasible + rejected <= r.evaluated);
    // Every class shows up, and the callout speaks in numbers.
    assert!(!r.throughput.heterogeneous.is_empty());
    assert!(!r.throughput.homogeneous.is_empty());
    let c = &r.callouts[0];
    assert!(
        c.headline.contains('%') && c.headline.contains("tok/s/user"),
        "{}",
        c.headline
    );
    assert!(!c.why.is_empty());
}

#[test]
fn sweep_rejects_bad_requests() {
    let s = setup("llama-3.1-8b", 128, 128);
    let mut req = SweepRequest {
        setup: s,
        axis: Axis::PrefillDecode,
        chips: vec![],
        max_chips: 8,
        target_tok_s_user: None,
        slo: Default::default(),
        batch: None,
    };
    assert!(sweep(&req).is_err());
    req.chips = vec![chip("h100-sxm")];
    req.max_chips = 0;
    assert!(sweep(&req).is_err());
    req.max_chips = 8;
    req.target_tok_s_user = Some(TokensPerSecond::new(f64::NAN));
    assert!(sweep(&req).is_err());
    req.target_tok_s_user = None;
    req.setup.speculation.acceptance = 1.5;
    assert!(sweep(&req).is_err());
    req.setup.speculation.acceptance = 0.8;
    req.setup.assumptions.max_seqs_per_replica = 0.0;
    assert!(sweep(&req)
        .unwrap_err()
        .to_string()
        .contains("max_seqs_per_replica"));
    // Work is bounded before it starts: more chip kinds than a sweep pairs is refused.
    req.setup.assumptions = Default::default();
    req.chips = cat().chips.iter().take(13).collect();
    let why = sweep(&req).unwrap_err().to_string();
    assert!(why.contains("at most 12 chip kinds"), "{why}");
}

#[test]
fn objectives_agree_on_cost_ordering() {
    let r = run(
        setup("llama-3.1-8b", 1024, 256),
        Axis::PrefillDecode,
        &["h100-sxm", "l40s"],
        8,
    );
    let frontier: Vec<_> = r.points(&r.cost.all).collect();
    for w in frontier.windows(2) {
        // Along the cost frontier, faster points cost more.
        let (a, b) = (&w[0].figures, &w[1].figures);
        assert!(b.tok_s_user >= a.tok_s_user);
        assert!(
            Objective::CostPerMtok.value(b).unwrap() >= Objective::CostPerMtok.value(a).unwrap()
        );
    }
}

proptest! {
    #[test]
    fn frontier_is_exactly_the_non_dominated_set(
        pts in proptest::collection::vec((0.0f64..100.0, 0.0f64..100.0), 1..60)
    ) {
        let f = pareto(&pts);
        let dominates = |q: (f64, f64), p: (f64, f64)| {
            q.0 >= p.0 && q.1 >= p.1 && (q.0 > p.0 || q.1 > p.1)
        };
        for &i in &f {
            prop_assert!(!pts.iter().any(|&q| dominates(q, pts[i])));
        }
        for (j, &p) in pts.iter().enumerate() {
            if !f.contains(&j) {
                // Off the frontier: dominated, or a duplicate of a frontier point.
                prop_assert!(
                    pts.iter().any(|&q| dominates(q, p)) || f.iter().any(|&i| pts[i] == p)
                );
            }
        }
        for w in f.windows(2) {
            prop_assert!(pts[w[0]].0 < pts[w[1]].0 && pts[w[0]].1 > pts[w[1]].1);
        }
    }

    #[test]
    fn interpolation_stays_between_neighbours(t in 0.0f64..120.0) {
        let f = [(10.0, 90.0), (30.0, 60.0), (70.0, 20.0), (100.0, 5.0)];
        match value_at(&f, t) {
            Some(v) => {
                prop_assert!(t <= 100.0);
                prop_assert!((5.0..=90.0).contains(&v));
            }
            None => prop_assert!(t > 100.0),
        }
    }
}

#[test]
fn planning_a_pool_of_no_chips_is_an_error_not_a_panic() {
    use disagg_engine::disagg::plan::{plan, PoolChoice};
    use disagg_engine::disagg::PoolRole;
    let s = with_draft(setup("llama-3.1-8b", 128, 128), "llama-3.2-1b");
    for (axis, roles) in [
        (Axis::PrefillDecode, [PoolRole::Prefill, PoolRole::Decode]),
        (Axis::Speculative, [PoolRole::Target, PoolRole::Draft]),
    ] {
        for empty in 0..2 {
            let pools: Vec<_> = roles
                .iter()
                .enumerate()
                .map(|(i, &role)| {
                    let chips = if i == empty { 0 } else { 1 };
                    (
                        role,
                        PoolChoice {
                            chip: chip("h100-sxm"),
                            chips,
                            parallelism: None,
                        },
                    )
                })
                .collect();
            let err = plan(&s, axis, &pools, Some(1), 1).unwrap_err().to_string();
            assert!(err.contains("chip count 0"), "{err}");
        }
    }
}

#[test]
fn planning_two_large_pools_is_bounded_and_checks_its_inputs_first() {
    use disagg_engine::disagg::plan::{plan, PoolChoice};
    use disagg_engine::disagg::PoolRole;
    // 720 + 720 chips took 12 s walking every pair of layouts; 5,040 + 5,040 did not
    // finish. Past the bound the planner searches the deployable layouts and says so.
    let pools = |n: u32| {
        [PoolRole::Prefill, PoolRole::Decode].map(|role| {
            (
                role,
                PoolChoice {
                    chip: chip("h100-sxm"),
                    chips: n,
                    parallelism: None,
                },
            )
        })
    };
    let s = setup("llama-3.3-70b", 2000, 200);
    for n in [720, 5040] {
        let start = std::time::Instant::now();
        let (_, point) = plan(&s, Axis::PrefillDecode, &pools(n), None, 1).unwrap();
        assert!(
            start.elapsed().as_secs_f64() < 1.0,
            "{n}: {:?}",
            start.elapsed()
        );
        assert!(point
            .warnings
            .iter()
            .any(|w| w.contains("combinations") && w.contains("deployable")));
    }
    // A bad input is reported before any of that work.
    let mut bad = s;
    bad.weights.bits_override = Some(0.5);
    let start = std::time::Instant::now();
    let err = plan(&bad, Axis::PrefillDecode, &pools(720), None, 1)
        .unwrap_err()
        .to_string();
    assert!(err.contains("bits per weight"), "{err}");
    assert!(start.elapsed().as_secs_f64() < 0.1, "{:?}", start.elapsed());
}

#[test]
fn concurrency_beyond_the_engine_limit_waits_in_the_queue() {
    // Llama-3.1-8B decodes on one H200 replica; the engine runs at most
    // `max_seqs_per_replica` (256, pinned over the framework's default) sequences, so
    // 4x that concurrency leaves 768 requests queued. Throughput stays at the limit's;
    // TTFT gains Little's wait.
    let mut s = setup("llama-3.1-8b", 1024, 1024);
    s.assumptions = s.assumptions.pin("max_seqs_per_replica", 256.0);
    let limit = s.assumptions.max_seqs_per_replica as u32;
    for axis in [Axis::Aggregated, Axis::PrefillDecode] {
        let at = |batch: u32| {
            let d = match axis {
                Axis::Aggregated => Deployment::Aggregated {
                    pool: tp(chip("h200"), 1),
                    batch,
                },
                _ => Deployment::PrefillDecode {
                    prefill: tp(chip("h200"), 1),
                    decode: tp(chip("h200"), 1),
                    batch,
                },
            };
            evaluate(&s, &d).unwrap()
        };
        let full = at(limit);
        let over = at(4 * limit);
        let (f, g) = (full.figures, over.figures);
        assert_eq!(g.batch, 4 * limit);
        assert!((g.output_tok_s - f.output_tok_s).value().abs() < 1e-9 * f.output_tok_s.value());
        assert!((g.tpot.value() - f.tpot.value()).abs() < 1e-12);
        let rate = f.output_tok_s.value() / 1024.0;
        let wait = (3 * limit) as f64 / rate;
        assert!(
            (g.ttft.value() - (f.ttft.value() + wait)).abs() < 1e-9 * g.ttft.value(),
            "{axis:?}: {} vs {} + {wait}",
            g.ttft.value(),
            f.ttft.value()
        );
        assert!(over
            .warnings
            .iter()
            .any(|w| w.contains("wait in the queue")));
        assert!(!full
            .warnings
            .iter()
            .any(|w| w.contains("wait in the queue")));
    }
}

#[test]
fn an_slo_keeps_the_frontiers_to_the_points_that_meet_it() {
    use disagg_engine::sweep::Slo;
    use disagg_engine::units::Seconds;
    let s = setup("llama-3.3-70b", 8192, 512);
    let request = |slo: Slo| SweepRequest {
        setup: s,
        axis: Axis::PrefillDecode,
        chips: vec![chip("h100-sxm"), chip("h200")],
        max_chips: 16,
        target_tok_s_user: None,
        slo,
        batch: None,
    };
    let free = sweep(&request(Slo::default())).unwrap();
    let slo = Slo {
        ttft: Some(Seconds::from_ms(500.0)),
        tpot: Some(Seconds::from_ms(30.0)),
    };
    let bound = sweep(&request(slo)).unwrap();
    // Without an SLO every point meets it.
    assert!(free.cloud.iter().all(|p| p.meets_slo));
    // With one, every frontier point meets both limits, and the marks are right.
    for f in [&bound.throughput, &bound.cost] {
        for p in bound.points(&f.all) {
            assert!(p.meets_slo, "{}", p.label);
            assert!(p.figures.ttft <= Seconds::from_ms(500.0), "{}", p.label);
            assert!(p.figures.tpot <= Seconds::from_ms(30.0), "{}", p.label);
        }
    }
    assert!(!bound.throughput.all.is_empty());
    for p in &bound.cloud {
        assert_eq!(p.meets_slo, slo.met_by(&p.figures), "{}", p.label);
    }
    // The counts add up: every feasible point meets the SLO or misses a limit.
    let m = bound.slo_misses;
    assert!(m.met > 0 && m.met + m.ttft.max(m.tpot) <= bound.feasible);
    assert!(m.met + m.ttft + m.tpot >= bound.feasible);
    // A point that meets the SLO but was dominated only by points that miss it is
    // kept: the SLO frontier is at least as good as the free frontier's compliant part.
    let compliant_best = free
        .cloud
        .iter()
        .filter(|p| slo.met_by(&p.figures))
        .map(|p| p.figures.output_tok_s_per_chip.value())
        .fold(0.0, f64::max);
    let bound_best = bound
        .points(&bound.throughput.all)
        .map(|p| p.figures.output_tok_s_per_chip.value())
        .fold(0.0, f64::max);
    assert!(bound_best >= compliant_best);
    // A loose SLO changes nothing; an impossible one empties the frontiers, says why.
    let loose = sweep(&request(Slo {
        ttft: Some(Seconds::new(1e6)),
        tpot: Some(Seconds::new(1e6)),
    }))
    .unwrap();
    assert_eq!(loose.throughput, free.throughput);
    let impossible = sweep(&request(Slo {
        ttft: None,
        tpot: Some(Seconds::from_us(1.0)),
    }))
    .unwrap();
    assert!(impossible.throughput.all.is_empty());
    assert!(impossible
        .notes
        .iter()
        .any(|n| n.contains("no deployment meets the SLO")));
    // A limit that is not a positive time is refused.
    assert!(sweep(&request(Slo {
        ttft: Some(Seconds::new(-1.0)),
        tpot: None,
    }))
    .is_err());
}

#[test]
fn an_slo_answer_names_the_best_compliant_deployments_and_runners_up() {
    use disagg_engine::frontier::Objective;
    use disagg_engine::sweep::Slo;
    use disagg_engine::units::Seconds;
    let s = setup("llama-3.3-70b", 8192, 512);
    let request = |slo: Slo| SweepRequest {
        setup: s,
        axis: Axis::PrefillDecode,
        chips: vec![chip("h100-sxm"), chip("h200"), chip("b200")],
        max_chips: 16,
        target_tok_s_user: None,
        slo,
        batch: None,
    };
    assert!(sweep(&request(Slo::default()))
        .unwrap()
        .slo_answer
        .is_none());
    let slo = Slo {
        ttft: Some(Seconds::from_ms(500.0)),
        tpot: Some(Seconds::from_ms(30.0)),
    };
    let r = sweep(&request(slo)).unwrap();
    let answer = r.slo_answer.as_ref().expect("an SLO gives an answer");
    assert_eq!(answer.picks.len(), 2, "all three chips have prices");
    for pick in &answer.picks {
        let o = pick.objective;
        let value = |i: usize| o.value(&r.cloud[i].figures).unwrap();
        // The best is the best compliant point anywhere in the cloud...
        let best = r
            .cloud
            .iter()
            .filter(|p| p.meets_slo)
            .filter_map(|p| o.score(&p.figures))
            .fold(f64::NEG_INFINITY, f64::max);
        assert_eq!(o.score(&r.cloud[pick.points[0]].figures), Some(best));
        // ...and on the frontier of that objective.
        assert!(r.frontiers_of(o).all.contains(&pick.points[0]));
        // Runners-up: compliant, no better than the best, ordered, one per pairing.
        assert!(pick.points.len() >= 2 && pick.points.len() <= 3);
        for w in pick.points.windows(2) {
            let (a, b) = (value(w[0]), value(w[1]));
            assert!(if o.higher_is_better() { a >= b } else { a <= b });
        }
        for (k, &i) in pick.points.iter().enumerate() {
            assert!(r.cloud[i].meets_slo);
            for &j in &pick.points[..k] {
                assert_ne!(r.cloud[i].phrase, r.cloud[j].phrase);
            }
        }
        // The sentence names the best deployment and the runners-up.
        assert!(pick.sentence.contains(&r.cloud[pick.points[0]].label));
        assert!(pick.sentence.contains(&r.cloud[pick.points[1]].phrase));
        assert!(pick.sentence.starts_with(match o {
            Objective::ThroughputPerChip => "Highest throughput",
            Objective::CostPerMtok => "Cheapest",
        }));
        assert!(!pick.sentence.contains("NaN") && !pick.sentence.contains("-0.0"));
    }
    let m = r.slo_misses;
    assert!(answer.why_others_fail.contains(&format!(
        "Of {} deployments that fit, {} meet the SLO, {} miss the TTFT limit and {} the TPOT limit",
        r.feasible, m.met, m.ttft, m.tpot
    )));
    // An impossible SLO names nothing and still says why.
    let none = sweep(&request(Slo {
        ttft: Some(Seconds::from_us(1.0)),
        tpot: None,
    }))
    .unwrap();
    let answer = none.slo_answer.unwrap();
    assert!(answer.picks.is_empty());
    assert!(answer.why_others_fail.contains(" 0 meet the SLO"));
}

#[test]
fn a_context_past_the_models_positions_is_warned_of_by_sweeps_and_points() {
    let max = cat().model("llama-3.3-70b").unwrap().ir.max_context;
    let long = setup("llama-3.3-70b", max, 1000);
    let fits = setup("llama-3.3-70b", max - 1000, 1000);
    let says = |w: &[String]| w.iter().any(|w| w.contains("exceeds the model's"));
    // The sweep says so once, among its notes.
    assert!(says(&run(long, Axis::PrefillDecode, &["h200"], 16).notes));
    assert!(!says(&run(fits, Axis::PrefillDecode, &["h200"], 16).notes));
    // A single point says so on each axis that serves a dense model.
    for d in [
        Deployment::Aggregated {
            pool: tp(chip("h200"), 8),
            batch: 1,
        },
        Deployment::PrefillDecode {
            prefill: tp(chip("h200"), 8),
            decode: tp(chip("h200"), 8),
            batch: 1,
        },
    ] {
        let warned = evaluate(&long, &d).unwrap().warnings;
        assert_eq!(
            warned
                .iter()
                .filter(|w| w.contains("exceeds the model's"))
                .count(),
            1,
            "{warned:?}"
        );
        assert!(!says(&evaluate(&fits, &d).unwrap().warnings));
    }
}

#[test]
fn the_callout_compares_the_deployments_it_names() {
    use disagg_engine::sweep::Verdict;
    // Three pools: one where mixed loses on both measures, one with a tie on tok/s per
    // chip (the CLI snapshot's scenario), one on another axis.
    let runs = [
        run(
            setup("llama-3.3-70b", 8192, 512),
            Axis::PrefillDecode,
            &["h100-sxm", "h200", "b200", "mi300x"],
            64,
        ),
        run(
            setup("llama-3.3-70b", 8192, 512),
            Axis::PrefillDecode,
            &["h100-sxm", "h200", "mi300x"],
            16,
        ),
        run(
            setup("deepseek-v3", 2048, 512),
            Axis::AttentionExpert,
            &["h200", "b200"],
            32,
        ),
    ];
    let mut compared = 0;
    let mut verdicts = Vec::new();
    for c in runs.iter().flat_map(|r| &r.callouts) {
        verdicts.push(c.verdict);
        let o = c.objective;
        let (Some(het), Some(hom)) = (&c.heterogeneous, &c.homogeneous) else {
            continue;
        };
        // Both named points reach the target, and their own values are compared.
        for p in [het, hom] {
            assert!(p.figures.tok_s_user >= c.target_tok_s_user, "{}", p.label);
        }
        let (a, b) = (
            o.value(&het.figures).unwrap(),
            o.value(&hom.figures).unwrap(),
        );
        assert_eq!(c.heterogeneous_value, Some(a));
        assert_eq!(c.homogeneous_value, Some(b));
        let advantage = if o.higher_is_better() {
            a / b - 1.0
        } else {
            1.0 - a / b
        };
        assert_eq!(c.advantage, Some(advantage));
        assert_eq!(c.verdict, Verdict::of(Some(advantage)));
        if c.verdict == Verdict::OnPar {
            assert!(c.headline.contains("on par"), "{}", c.headline);
        }
        // The sentence: the measure first, the named deployments with the very numbers
        // compared, and one vocabulary.
        assert!(c.headline.starts_with(match o {
            Objective::ThroughputPerChip => "Tok/s per chip at ",
            Objective::CostPerMtok => "$/Mtok at ",
        }));
        for (p, v) in [(het, a), (hom, b)] {
            assert!(c.headline.contains(&p.phrase), "{}", c.headline);
            let shown = match o {
                Objective::ThroughputPerChip => disagg_engine::sweep::fmt_num(v),
                Objective::CostPerMtok => format!("${v:.3}/Mtok"),
            };
            assert!(c.headline.contains(&shown), "{shown} in {}", c.headline);
        }
        for word in ["homogeneous", "heterogeneous", "-0.0", "NaN"] {
            assert!(
                !c.headline.contains(word) && !c.why.contains(word),
                "{word}"
            );
        }
        compared += 1;
    }
    assert_eq!(
        compared, 6,
        "both objectives compare a mixed and a single-kind point"
    );
    // A tie states both numbers as well, and the sentence says so.
    assert!(verdicts.contains(&Verdict::OnPar), "{verdicts:?}");
    assert!(verdicts.contains(&Verdict::MixedLoses), "{verdicts:?}");
}

#[test]
fn the_axes_side_by_side_each_name_their_best_at_one_target() {
    use disagg_engine::sweep::compare_axes;
    use disagg_engine::units::TokensPerSecond;
    let request = |s: Setup<'static>| SweepRequest {
        setup: s,
        axis: Axis::PrefillDecode,
        chips: vec![chip("h100-sxm"), chip("h200")],
        max_chips: 16,
        target_tok_s_user: None,
        slo: Default::default(),
        batch: None,
    };
    let target = TokensPerSecond::new(30.0);
    let dense = compare_axes(&request(setup("llama-3.3-70b", 4096, 512)), target).unwrap();
    assert_eq!(
        dense.iter().map(|a| a.axis).collect::<Vec<_>>(),
        Axis::ALL.to_vec()
    );
    let of = |axis: Axis| dense.iter().find(|a| a.axis == axis).unwrap();
    // A dense model without MTP heads: no expert split, no MTP draft; each says why.
    assert!(of(Axis::AttentionExpert)
        .unavailable
        .as_deref()
        .is_some_and(|e| e.contains("mixture-of-experts")));
    assert!(of(Axis::Speculative)
        .unavailable
        .as_deref()
        .is_some_and(|e| e.contains("multi-token-prediction")));
    // Every axis sweeps the aggregated baseline too, so none does worse than it.
    let agg = of(Axis::Aggregated);
    let pd = of(Axis::PrefillDecode);
    assert!(pd.unavailable.is_none());
    for o in Objective::ALL {
        let (a, p) = (agg.best(o).unwrap(), pd.best(o).unwrap());
        assert!(
            o.score(&p.figures).unwrap() >= o.score(&a.figures).unwrap(),
            "{o:?}"
        );
        for q in [a, p] {
            assert!(q.figures.tok_s_user >= target);
        }
    }
    // The same as the axis' own sweep at that target reads.
    let own = sweep(&SweepRequest {
        target_tok_s_user: Some(target),
        ..request(setup("llama-3.3-70b", 4096, 512))
    })
    .unwrap();
    let best = own
        .points(&own.throughput.all)
        .find(|p| p.figures.tok_s_user >= target)
        .cloned();
    assert_eq!(pd.throughput, best);
    // A mixture-of-experts model can split its experts off.
    let moe = compare_axes(&request(setup("deepseek-v3", 4096, 512)), target).unwrap();
    assert!(moe.iter().all(|a| a.unavailable.is_none()), "{moe:?}");
    // An error every axis shares is an error.
    let mut none = request(setup("llama-3.3-70b", 4096, 512));
    none.chips.clear();
    assert!(compare_axes(&none, target).is_err());
}

#[test]
fn a_fixed_batch_sweeps_every_axis_at_that_batch_only() {
    use disagg_engine::disagg::Reject;
    let runs = [
        (setup("llama-3.3-70b", 2048, 256), Axis::Aggregated),
        (setup("llama-3.3-70b", 2048, 256), Axis::PrefillDecode),
        (
            with_draft(setup("llama-3.3-70b", 2048, 256), "llama-3.2-1b"),
            Axis::Speculative,
        ),
        (setup("deepseek-v3", 2048, 256), Axis::AttentionExpert),
    ];
    for (s, axis) in runs {
        let request = |batch: Option<u32>| SweepRequest {
            setup: s,
            axis,
            chips: vec![chip("h200"), chip("b200")],
            max_chips: 32,
            target_tok_s_user: None,
            slo: Default::default(),
            batch,
        };
        // 48 is no power of two: the sweep tries the batch asked for, not its own list.
        let fixed = sweep(&request(Some(48))).unwrap();
        assert!(!fixed.cloud.is_empty(), "{axis:?}");
        assert!(
            fixed.cloud.iter().all(|p| p.figures.batch == 48),
            "{axis:?}"
        );
        let free = sweep(&request(None)).unwrap();
        assert!(free.cloud.iter().any(|p| p.figures.batch != 48), "{axis:?}");
        // A batch no pool holds at once leaves nothing, counted as not fitting.
        let huge = sweep(&request(Some(disagg_engine::limits::MAX_BATCH))).unwrap();
        assert!(huge.cloud.is_empty(), "{axis:?}");
        assert!(huge
            .rejected
            .iter()
            .any(|r| r.reason == Reject::BatchDoesNotFit && r.count > 0));
        assert!(sweep(&request(Some(0))).is_err());
    }
}

#[test]
fn an_unreachable_target_names_the_fastest_reachable_interactivity() {
    let r = sweep(&SweepRequest {
        setup: setup("llama-3.3-70b", 2048, 256),
        axis: Axis::PrefillDecode,
        chips: vec![chip("h200"), chip("b200")],
        max_chips: 16,
        target_tok_s_user: Some(TokensPerSecond::new(1e5)),
        slo: Default::default(),
        batch: None,
    })
    .unwrap();
    for c in &r.callouts {
        let fastest = r
            .points(&r.frontiers_of(c.objective).all)
            .map(|p| p.figures.tok_s_user.value())
            .fold(0.0, f64::max);
        let said = format!(
            "no deployment reaches the target; the fastest reaches {} tok/s/user",
            disagg_engine::sweep::fmt_num(fastest)
        );
        assert!(c.headline.contains(&said), "{}", c.headline);
    }
}

#[test]
fn when_nothing_fits_the_closest_miss_is_named_per_chip() {
    use disagg_engine::disagg::plan::{plan, PoolChoice};
    use disagg_engine::disagg::PoolRole;
    let s = setup("llama-3.1-405b", 1024, 128);
    // The planner's answer when nothing fits is the layout that misses by the least:
    // the weights spread over all four chips, not one chip holding them all.
    let (_, p) = plan(
        &s,
        Axis::Aggregated,
        &[(
            PoolRole::Colocated,
            PoolChoice {
                chip: chip("h100-sxm"),
                chips: 4,
                parallelism: None,
            },
        )],
        Some(1),
        1,
    )
    .unwrap();
    assert!(!p.fits);
    let par = p.pools[0].parallelism;
    assert_eq!(par.tp * par.pp, 4, "{par:?}");
    // A sweep with nothing feasible says, per chip, by how much its largest pool misses.
    let r = run(s, Axis::PrefillDecode, &["h100-sxm", "mi300x"], 4);
    assert_eq!(r.feasible, 0);
    for name in [
        "4x NVIDIA H100 SXM5 80GB: does not fit",
        "4x AMD Instinct MI300X: does not fit",
    ] {
        assert!(
            r.notes
                .iter()
                .any(|n| n.starts_with(name) && n.contains("short by")),
            "{name}: {:?}",
            r.notes
        );
    }
    // With room to fit, no such note.
    let fits = run(s, Axis::PrefillDecode, &["h100-sxm", "mi300x"], 32);
    assert!(fits.notes.iter().all(|n| !n.contains("does not fit")));
}
