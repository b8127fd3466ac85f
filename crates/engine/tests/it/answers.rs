//! What a sweep answers: the engine's queue, latency limits (SLOs) and the answer naming
//! the best deployments that meet them, the callout, the axes side by side, fixed
//! batches, unreachable targets and the closest miss.

use super::disagg::{cat, chip, run, setup, tp, with_draft};
use disagg_engine::disagg::{evaluate, Axis, Deployment, Setup};
use disagg_engine::frontier::Objective;
use disagg_engine::sweep::{sweep, SweepRequest, SweepResult};
use disagg_engine::units::TokensPerSecond;

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

/// Llama-3.3-70B at 8,192 / 512 tokens over H100 and H200 on the prefill/decode axis, 16
/// chips at most, under `slo`.
fn llama_pd(slo: disagg_engine::sweep::Slo) -> SweepRequest<'static> {
    SweepRequest {
        setup: setup("llama-3.3-70b", 8192, 512),
        axis: Axis::PrefillDecode,
        chips: vec![chip("h100-sxm"), chip("h200")],
        max_chips: 16,
        target_tok_s_user: None,
        slo,
        batch: None,
    }
}

#[test]
fn an_slo_keeps_the_frontiers_to_the_points_that_meet_it() {
    use disagg_engine::sweep::Slo;
    use disagg_engine::units::Seconds;
    let request = llama_pd;
    let free = sweep(&request(Slo::default())).unwrap();
    let slo = Slo {
        ttft: Some(Seconds::from_ms(500.0)),
        tpot: Some(Seconds::from_ms(30.0)),
        rate: None,
        ..Slo::default()
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
        rate: None,
        ..Slo::default()
    }))
    .unwrap();
    assert_eq!(loose.throughput, free.throughput);
    let impossible = sweep(&request(Slo {
        ttft: None,
        tpot: Some(Seconds::from_us(1.0)),
        rate: None,
        ..Slo::default()
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
        rate: None,
        ..Slo::default()
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
        rate: None,
        ..Slo::default()
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
        rate: None,
        ..Slo::default()
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

/// A request rate is part of the SLO: the frontiers and the verdict keep to points whose
/// own output rate carries `rate × OSL`, and the others are counted apart.
#[test]
fn a_request_rate_keeps_the_frontiers_to_the_points_that_carry_it() {
    use disagg_engine::sweep::Slo;
    use disagg_engine::units::TokensPerSecond;
    let s = setup("llama-3.1-8b", 2000, 200);
    let request = |slo: Slo| SweepRequest {
        setup: s,
        axis: Axis::Aggregated,
        chips: vec![chip("h100-sxm")],
        max_chips: 8,
        target_tok_s_user: None,
        slo,
        batch: None,
    };
    let free = sweep(&request(Slo::default())).unwrap();
    // A demand half the best point's output rate: some carry it, some do not.
    let best = free
        .cloud
        .iter()
        .map(|p| p.figures.output_tok_s.value())
        .fold(0.0, f64::max);
    let slo = Slo {
        rate: Some(TokensPerSecond::new(best / 2.0)),
        ..Slo::default()
    };
    let bound = sweep(&request(slo)).unwrap();
    assert!(bound.cloud.iter().any(|p| !p.meets_slo));
    for p in &bound.cloud {
        assert_eq!(
            p.meets_slo,
            p.figures.output_tok_s.value() >= best / 2.0,
            "{}",
            p.label
        );
    }
    for p in bound.points(&bound.throughput.all) {
        assert!(p.meets_slo, "{}", p.label);
    }
    let m = bound.slo_misses;
    assert!(m.rate > 0 && m.met > 0 && m.ttft == 0 && m.tpot == 0);
    assert_eq!(m.rate + m.met, bound.feasible);
    let answer = bound.slo_answer.unwrap();
    assert!(
        answer
            .why_others_fail
            .contains("cannot carry the request rate"),
        "{}",
        answer.why_others_fail
    );
    // More than any deployment within the budget serves: nothing carries it, and the
    // note says so.
    let none = sweep(&request(Slo {
        rate: Some(TokensPerSecond::new(1e12)),
        ..Slo::default()
    }))
    .unwrap();
    assert!(none.throughput.all.is_empty());
    assert!(none
        .notes
        .iter()
        .any(|n| n.contains("cannot carry the request rate")));
}

/// Limits on the 90th percentile bind the p90 figures every point carries: the points
/// that meet them are those whose p90 TTFT and TPOT are under the limits, a subset of
/// those that meet the same limits on the mean, and the answer names the p90.
#[test]
fn an_slo_at_the_p90_bounds_the_p90_figures() {
    use disagg_engine::sweep::{Slo, SloAt};
    use disagg_engine::units::Seconds;
    let request = llama_pd;
    let mean = Slo {
        ttft: Some(Seconds::from_ms(1500.0)),
        tpot: Some(Seconds::from_ms(40.0)),
        ..Slo::default()
    };
    let p90 = Slo {
        at: SloAt::P90,
        ..mean
    };
    let (on_mean, on_p90) = (
        sweep(&request(mean)).unwrap(),
        sweep(&request(p90)).unwrap(),
    );
    for b in &on_p90.cloud {
        let f = &b.figures;
        // TPOT's p90 is never below its mean; TTFT's may be, where fewer than a tenth
        // of the requests wait for another prompt. The marks follow the p90.
        assert!(f.tpot_p90 >= f.tpot, "{}", b.label);
        assert_eq!(
            b.meets_slo,
            f.ttft_p90 <= Seconds::from_ms(1500.0) && f.tpot_p90 <= Seconds::from_ms(40.0),
            "{}",
            b.label
        );
    }
    // The two readings part on some deployment both clouds hold.
    let parted = on_p90.cloud.iter().any(|b| {
        on_mean
            .cloud
            .iter()
            .any(|a| a.spec == b.spec && a.meets_slo != b.meets_slo)
    });
    assert!(parted, "the p90 limits bind differently from the mean's");
    let met = |r: &SweepResult| r.cloud.iter().filter(|p| p.meets_slo).count();
    assert!(met(&on_p90) > 0);
    let answer = on_p90.slo_answer.as_ref().unwrap();
    assert!(answer.why_others_fail.contains("miss the p90 TTFT limit"));
    assert!(answer.picks[0].sentence.contains("p90 TTFT"));
    // The choice is refused by name when it is neither.
    assert_eq!("p90".parse::<SloAt>().unwrap(), SloAt::P90);
    assert!("p99"
        .parse::<SloAt>()
        .unwrap_err()
        .to_string()
        .contains("mean or the p90"));
}
