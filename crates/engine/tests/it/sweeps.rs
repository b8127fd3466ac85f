//! Sweeps and frontiers: a sweep point agrees with its single evaluation, the frontier is
//! exactly the non-dominated set, bad requests and plans are refused within bounds.

use super::disagg::{cat, chip, run, setup, with_draft};
use disagg_engine::disagg::{evaluate, Axis};
use disagg_engine::frontier::{pareto, value_at, Objective};
use disagg_engine::sweep::{sweep, Class, SweepRequest};
use disagg_engine::units::TokensPerSecond;
use proptest::prelude::*;

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
fn a_sweep_sends_its_prompts_per_user_at_every_batch() {
    // Ten prompts per user: every swept point's first wave is a tenth of its requests,
    // as `prompts = 10 x batch` stated for that point alone gives.
    let mut s = setup("llama-3.3-70b", 4096, 512);
    s.workload.prompts_per_user = Some(10.0);
    for axis in [Axis::Aggregated, Axis::PrefillDecode] {
        let r = run(s, axis, &["h100-sxm"], 16);
        let steady = run(setup("llama-3.3-70b", 4096, 512), axis, &["h100-sxm"], 16);
        assert_eq!(r.cloud.len(), steady.cloud.len());
        let mut moved = 0;
        for (p, q) in r.cloud.iter().zip(&steady.cloud) {
            let d = p.spec.resolve(cat()).unwrap();
            let mut stated = setup("llama-3.3-70b", 4096, 512);
            stated.workload.prompts = Some(10 * d.batch());
            assert_eq!(
                evaluate(&stated, &d).unwrap().figures,
                p.figures,
                "{}",
                p.label
            );
            // Only the mean TTFT moves: the rates and TPOT are the steady loop's.
            assert_eq!(
                p.figures.output_tok_s, q.figures.output_tok_s,
                "{}",
                p.label
            );
            assert_eq!(p.figures.tpot, q.figures.tpot, "{}", p.label);
            // (A small cohort's prompts share one step, so its wait can be shorter.)
            moved += usize::from(p.figures.ttft != q.figures.ttft);
        }
        assert!(moved > 0, "{axis}: no point's TTFT saw a first wave");
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
    use disagg_engine::disagg::plan::{plan, PoolChoice, MAX_PLAN_COMBINATIONS};
    use disagg_engine::disagg::PoolRole;
    use disagg_engine::Parallelism;
    // 720 + 720 chips took 12 s walking every pair of layouts; 5,040 + 5,040 did not
    // finish. Past the bound the planner searches the deployable layouts and says so,
    // with the combinations it found and those it tried. This test checks that path and
    // those counts; how long the plans take is measured by the bench `bounds`
    // (`plan/pd/h100-sxm/720+720`, `plan/pd/h100-sxm/5040+5040`, compared by ratio), not
    // by a wall-clock limit, which a busy machine can exceed.
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
        let (_, point) = plan(&s, Axis::PrefillDecode, &pools(n), None, 1).unwrap();
        let note = point
            .warnings
            .iter()
            .find(|w| w.contains("combinations") && w.contains("deployable"))
            .unwrap_or_else(|| panic!("{n}: {:?}", point.warnings));
        // "the pools' layouts make {every} combinations: the planner tried the {tried}
        // deployable ones (...)"
        let numbers: Vec<usize> = note
            .split(|c: char| !c.is_ascii_digit())
            .filter_map(|w| w.parse().ok())
            .collect();
        let [every, tried] = numbers[..] else {
            panic!("{n}: {note}")
        };
        assert!(every > MAX_PLAN_COMBINATIONS, "{n}: {note}");
        assert!((1..=MAX_PLAN_COMBINATIONS).contains(&tried), "{n}: {note}");
    }
    // A bad input is reported before any of that work: the setup's refusal comes first
    // even where the search has an answer of its own. Pools stated at a layout of the
    // wrong size leave the search nothing to evaluate, which it says; with a bad setup
    // the setup's refusal is what comes back. (Its time beside the search's is
    // `plan/refused/bits-per-weight/5040+5040` in the bench `bounds`.)
    let one_chip = Parallelism {
        tp: 1,
        pp: 1,
        dp: 1,
        ep: 1,
    };
    let misstated = pools(720).map(|(role, c)| {
        (
            role,
            PoolChoice {
                parallelism: Some(one_chip),
                ..c
            },
        )
    });
    let search = plan(&s, Axis::PrefillDecode, &misstated, None, 1)
        .unwrap_err()
        .to_string();
    assert!(search.contains("no layout of these pools fits"), "{search}");
    let mut bad = s;
    bad.weights.bits_override = Some(0.5);
    for pools in [pools(720), misstated] {
        let err = plan(&bad, Axis::PrefillDecode, &pools, None, 1)
            .unwrap_err()
            .to_string();
        assert!(err.contains("bits per weight"), "{err}");
    }
}

/// A deployment the sweep did not keep (a batch it does not try) is drawn beside its
/// points: evaluated as the sweep evaluates them, on no frontier, in no callout; one
/// it kept is found where it is; a second added one replaces the first; one that does
/// not fit is refused.
#[test]
fn a_deployment_the_sweep_did_not_keep_is_shown_beside_its_points() {
    use disagg_engine::disagg::{Deployment, PoolConfig};
    use disagg_engine::Parallelism;
    let req = SweepRequest {
        setup: setup("llama-3.1-8b", 1024, 256),
        axis: Axis::Aggregated,
        chips: vec![chip("h100-sxm")],
        max_chips: 2,
        target_tok_s_user: None,
        slo: Default::default(),
        batch: None,
    };
    let swept = sweep(&req).unwrap();
    assert_eq!(swept.shown, None);
    let pool = PoolConfig {
        chip: chip("h100-sxm"),
        parallelism: Parallelism {
            tp: 1,
            pp: 1,
            dp: 1,
            ep: 1,
        },
    };
    let at = |batch| Deployment::Aggregated { pool, batch };
    let mut r = swept.clone();
    // 37 is no batch the sweep tries.
    assert!(r.cloud.iter().all(|p| p.spec != at(37).spec()));
    let i = r.show(&req, &at(37)).unwrap();
    assert_eq!((i, r.shown), (swept.cloud.len(), Some(i)));
    assert_eq!(
        r.cloud[i].figures,
        evaluate(&req.setup, &at(37)).unwrap().figures
    );
    assert_eq!(r.cloud[i].spec, at(37).spec());
    assert_eq!(
        (&r.throughput, &r.cost, &r.callouts),
        (&swept.throughput, &swept.cost, &swept.callouts)
    );
    // A kept point is found where it is, and the added one stays.
    let kept = swept.cloud[3].spec.resolve(cat()).unwrap();
    assert_eq!(r.show(&req, &kept).unwrap(), 3);
    assert_eq!(r.shown, Some(i));
    // A second added point replaces the first.
    let j = r.show(&req, &at(39)).unwrap();
    assert_eq!((j, r.cloud.len()), (i, swept.cloud.len() + 1));
    assert_eq!(r.cloud[j].spec, at(39).spec());
    // More sequences than one H100 holds.
    let why = r.show(&req, &at(5_000)).unwrap_err().to_string();
    assert!(why.contains("does not fit: 2048 sequences"), "{why}");
    assert_eq!(r.cloud.len(), swept.cloud.len() + 1);
}
