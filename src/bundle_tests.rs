//! The bundle's tests: the page's bundle against the CLI's figures, imports that give
//! back the scenario, and the fields the page cannot hold refused by name.

use super::*;
use crate::explore::{detail, explore};
use disagg_engine::disagg::{evaluate, Axis, DeploymentSpec};
use disagg_engine::sweep::{sweep, SweepResult};

/// Llama-3.1-8B on up to `max_chips` H100s, aggregated: the small scenario the tests of
/// one setting's journey start from.
fn llama_8b_on_h100s(max_chips: u32) -> Scenario {
    Scenario {
        model: "llama-3.1-8b".into(),
        axis: Axis::Aggregated,
        chips: vec!["h100-sxm".into()],
        max_chips,
        ..Scenario::default()
    }
}

/// The page's sweep of `s`, its best-throughput point, and the bundle the page
/// downloads with that point selected (its JSON).
fn best_point_bundle(s: &Scenario, cat: &Catalogue) -> (SweepResult, DeploymentSpec, String) {
    let page = explore(s, cat).unwrap();
    let point = page.cloud[page.throughput.all[0]].spec.clone();
    let text = bundle(s, cat, Some(point.clone())).unwrap().to_json();
    (page, point, text)
}

/// A scenario away from the defaults: the user's own config, a chip's price and
/// bandwidth, two modelling constants, a prefix cache, spread outputs and limits.
fn unusual() -> Scenario {
    let cat = Catalogue::builtin();
    let mut s = Scenario {
        axis: Axis::PrefillDecode,
        chips: vec!["h200".into(), "mi300x".into()],
        max_chips: 16,
        isl: 4096,
        osl: 300,
        ..Scenario::default()
    };
    for (k, v) in [
        ("cfg", crate::scenario::tests::QWEN25_72B),
        ("model", "custom"),
        ("chip.h200.price", "1.9"),
        ("chip.h200.memory_bandwidth", "5.1"),
        ("a.mfu", "0.52"),
        ("a.step_overhead", "0.00031"),
        ("hit", "30"),
        ("ocv", "0.35"),
        ("ppu", "10"),
        ("ttft", "2000"),
        ("kv", "fp8"),
        ("adp", "1"),
        // A run's own settings.
        ("bpw", "4.85"),
        ("hov", "off"),
        ("rcv", "4"),
        ("tbo", "1"),
        ("offload", "0.2"),
    ] {
        s.apply(k, v, cat).unwrap();
    }
    s
}

#[test]
fn the_downloaded_bundle_sweeps_to_the_pages_own_figures_to_the_last_bit() {
    let cat = Catalogue::builtin();
    let s = unusual();
    let (page, point, text) = best_point_bundle(&s, cat);
    assert!(page.cloud.len() > 20, "{}", page.cloud.len());
    // What the CLI does with the file: read it, sweep it, predict its point.
    let read = Bundle::read(&text).unwrap();
    let i = read.inputs(cat).unwrap();
    assert_eq!(sweep(&i.request()).unwrap(), page);
    let alone = evaluate(&i.setup(), &i.deployment().unwrap()).unwrap();
    assert_eq!(
        alone.figures,
        detail(&s, &point, cat).unwrap().point.figures
    );
    assert_eq!(alone.figures, page.cloud[page.throughput.all[0]].figures);
    // The user's numbers travel, graded `user`; the model as its text.
    assert_eq!(read.chips[0].price.unwrap().value(), 1.9);
    assert!(matches!(read.model, ModelSource::Config { .. }));
    assert_eq!(read.assumptions.mfu, 0.52);
    assert!(read.assumptions.aligned_group_prefill);
}

/// A finite run travels in the link and the bundle on the aggregated axis, lowers the
/// swept rates there, and is refused by name with one setting alone or on a split
/// axis.
#[test]
fn a_finite_run_travels_in_the_link_and_the_bundle() {
    let cat = Catalogue::builtin();
    let mut s = Scenario {
        axis: Axis::Aggregated,
        osl: 300,
        ..Scenario::default()
    };
    let steady = explore(&s, cat).unwrap();
    s.apply("runn", "2000", cat).unwrap();
    let why = explore(&s, cat).unwrap_err();
    assert!(
        why.contains("both its requests and its longest output"),
        "{why}"
    );
    s.apply("runk", "1000", cat).unwrap();
    assert!(s.to_query().contains("runn=2000") && s.to_query().contains("runk=1000"));
    let run = explore(&s, cat).unwrap();
    let best = |r: &SweepResult| {
        r.cloud
            .iter()
            .map(|p| p.figures.output_tok_s_per_chip.value())
            .fold(0.0, f64::max)
    };
    assert!(
        best(&run) < best(&steady),
        "{} vs {}",
        best(&run),
        best(&steady)
    );
    let point = run.cloud[0].spec.clone();
    let text = bundle(&s, cat, Some(point.clone())).unwrap().to_json();
    let (back, selected) = import(&text, &Scenario::default(), cat).unwrap();
    assert_eq!(back.workload(), s.workload());
    assert_eq!(
        (back.run_requests, back.run_longest_output),
        (Some(2000), Some(1000))
    );
    assert_eq!(selected, Some(point));
    // A longest output under the mean, and a split axis, are refused by name.
    s.apply("runk", "200", cat).unwrap();
    let why = explore(&s, cat).unwrap_err();
    assert!(why.contains("longest output"), "{why}");
    s.apply("runk", "1000", cat).unwrap();
    s.apply("axis", "pd", cat).unwrap();
    let why = explore(&s, cat).unwrap_err();
    assert!(why.contains("aggregated"), "{why}");
    for (k, bad) in [
        ("runn", "0"),
        ("runn", "-3"),
        ("runn", "1.5"),
        ("runk", "0"),
        ("runk", "x"),
    ] {
        let why = s.clone().apply(k, bad, cat).unwrap_err();
        assert!(why.contains("finite run"), "{k}={bad}: {why}");
    }
}

/// A request rate travels in the link and the bundle, and the panel's answer at that
/// rate is the one the CLI gives for the downloaded bundle (`predict --bundle`).
#[test]
fn a_request_rate_travels_in_the_link_and_the_bundle() {
    use disagg_engine::disagg::open_loop::at_rate;
    use disagg_engine::units::RequestsPerSecond;
    let cat = Catalogue::builtin();
    let mut s = Scenario {
        isl: 2000,
        osl: 200,
        ..llama_8b_on_h100s(4)
    };
    s.apply("rate", "2.5", cat).unwrap();
    let (link, notices) = Scenario::from_query(&s.to_query(), cat);
    assert!(notices.is_empty(), "{notices:?}");
    assert_eq!(link, s);
    assert!(s.to_query().contains("rate=2.5"));
    let (_, point, text) = best_point_bundle(&s, cat);
    let read = Bundle::read(&text).unwrap();
    assert_eq!(read.workload.rate, Some(2.5));
    let (back, selected) = import(&text, &Scenario::default(), cat).unwrap();
    assert_eq!((back.rate, selected), (Some(2.5), Some(point.clone())));
    let inputs = read.inputs(cat).unwrap();
    let cli = at_rate(
        &inputs.setup(),
        &inputs.deployment().unwrap(),
        RequestsPerSecond::new(2.5),
    )
    .unwrap();
    let page = detail(&s, &point, cat).unwrap().point;
    assert_eq!(page.figures, cli.figures);
    assert_eq!(page.ttft, cli.ttft);
    // Delivered: 2.5 requests of 200 tokens a second.
    assert!((page.figures.output_tok_s.value() - 500.0).abs() < 1e-9);
    // Out of bounds, or not a number: refused, naming the field; empty clears it.
    for bad in ["0", "-1", "nan", "inf", "1e8", "fast"] {
        let why = s.clone().apply("rate", bad, cat).unwrap_err();
        assert!(why.contains("request rate"), "{bad}: {why}");
    }
    s.apply("rate", "", cat).unwrap();
    assert_eq!(s.rate, None);
    assert!(!s.to_query().contains("rate="));
}

/// Static batches travel in the link and the bundle, and the panel's point is the
/// CLI's for the downloaded bundle.
#[test]
fn static_batching_travels_in_the_link_and_the_bundle() {
    use disagg_engine::serving::Scheduling;
    let cat = Catalogue::builtin();
    let mut s = llama_8b_on_h100s(2);
    s.apply("sched", "static", cat).unwrap();
    assert!(s.to_query().contains("sched=static"));
    let (link, _) = Scenario::from_query(&s.to_query(), cat);
    assert_eq!(link.scheduling, Scheduling::Static);
    let (_, point, text) = best_point_bundle(&s, cat);
    let read = Bundle::read(&text).unwrap();
    assert_eq!(read.assumptions.scheduling, Scheduling::Static);
    let i = read.inputs(cat).unwrap();
    let cli = evaluate(&i.setup(), &i.deployment().unwrap()).unwrap();
    let page = detail(&s, &point, cat).unwrap().point;
    assert_eq!(page.figures, cli.figures);
    // Static: the bare decode step between tokens.
    let step = page.pools[0].step;
    assert_eq!(page.figures.tpot, step);
    let (back, _) = import(&text, &Scenario::default(), cat).unwrap();
    assert_eq!(back.scheduling, Scheduling::Static);
    let why = s.apply("sched", "dynamic", cat).unwrap_err();
    assert!(why.contains("scheduling"), "{why}");
}

/// Limits on the 90th percentile travel in the bundle: the CLI's sweep of the
/// downloaded bundle marks the same points, and importing it restores the choice.
#[test]
fn limits_at_the_p90_travel_in_the_bundle() {
    use disagg_engine::sweep::SloAt;
    let cat = Catalogue::builtin();
    let mut s = Scenario {
        ttft_ms: Some(400.0),
        tpot_ms: Some(20.0),
        ..llama_8b_on_h100s(2)
    };
    s.apply("sloat", "p90", cat).unwrap();
    let text = bundle(&s, cat, None).unwrap().to_json();
    let read = Bundle::read(&text).unwrap();
    assert_eq!(read.sweep.slo_at, SloAt::P90);
    let i = read.inputs(cat).unwrap();
    let cli = sweep(&i.request()).unwrap();
    let page = explore(&s, cat).unwrap();
    let marks = |r: &SweepResult| r.cloud.iter().map(|p| p.meets_slo).collect::<Vec<_>>();
    assert_eq!(marks(&cli), marks(&page));
    let (back, _) = import(&text, &Scenario::default(), cat).unwrap();
    assert_eq!(back.slo_at, SloAt::P90);
}

#[test]
fn an_eagle_head_and_redundant_experts_travel_in_the_link_and_the_bundle() {
    let cat = Catalogue::builtin();
    // Redundant experts need a model with routed experts: a dense one's link drops them.
    let mut s = Scenario {
        model: "qwen3-30b-a3b".into(),
        axis: Axis::Speculative,
        chips: vec!["h200".into()],
        max_chips: 8,
        ..Scenario::default()
    };
    s.apply("draft", "eagle:2", cat).unwrap();
    s.apply("re", "32", cat).unwrap();
    let (link, notices) = Scenario::from_query(&s.to_query(), cat);
    assert!(notices.is_empty(), "{notices:?}");
    assert_eq!(
        (link.draft_value(), link.redundant_experts),
        ("eagle:2".into(), 32)
    );
    let b = bundle(&s, cat, None).unwrap();
    assert_eq!(b.speculation.eagle_layers, Some(2));
    assert!(b.speculation.draft.is_none());
    assert_eq!(b.assumptions.redundant_experts, 32);
    let (back, _) = import(&b.to_json(), &Scenario::default(), cat).unwrap();
    assert_eq!(
        (back.draft_value(), back.redundant_experts),
        ("eagle:2".into(), 32)
    );
    assert_eq!(back.draft_name(), "an EAGLE head (2 layers)");
    // One layer is the plain `eagle`; bad values are refused and say why.
    s.apply("draft", "eagle:1", cat).unwrap();
    assert_eq!(s.draft_value(), "eagle");
    let why = s.apply("draft", "eagle:0", cat).unwrap_err();
    assert!(why.contains("EAGLE head"), "{why}");
    assert!(s.apply("re", "-1", cat).is_err());
    assert_eq!(s.draft_value(), "eagle");
    s.apply("draft", "mtp", cat).unwrap();
    assert_eq!((s.draft_model.clone(), s.eagle_layers), (None, None));
}

#[test]
fn an_imported_bundle_is_the_scenario_that_wrote_it() {
    let cat = Catalogue::builtin();
    for s in [unusual(), Scenario::default()] {
        let point = explore(&s, cat).unwrap().cloud[3].spec.clone();
        let text = bundle(&s, cat, Some(point.clone())).unwrap().to_json();
        let (back, selected) = import(&text, &Scenario::default(), cat).unwrap();
        // The prefix cache comes back as the share that gives the same tokens.
        assert_eq!(back.workload(), s.workload());
        let back = Scenario {
            prefix_hit_pct: s.prefix_hit_pct,
            ..back
        };
        // It shows the bundle's deployment beside its sweep.
        let shown = Scenario {
            show: Some(point.clone()),
            ..s.clone()
        };
        assert_eq!(back, shown);
        assert_eq!(selected, Some(point));
    }
}

#[test]
fn a_bundle_with_chips_of_your_own_imports_them_again() {
    let cat = Catalogue::builtin();
    let mut s = Scenario {
        axis: Axis::Aggregated,
        ..Scenario::default()
    };
    for (key, value) in [
        ("chip.cheap-h200.from", "h200"),
        ("chip.cheap-h200.price", "1.25"),
        ("chip.mine.from", "template"),
        ("chip.mine.bf16_tflops", "500"),
        ("chip.mine.memory", "96"),
        ("chip.mine.memory_bandwidth", "3.2"),
        ("chip.mine.price", "2"),
        ("chips", "h100-sxm,cheap-h200,mine"),
    ] {
        let warnings = s.apply(key, value, cat).unwrap();
        assert!(warnings.is_empty(), "{key}: {warnings:?}");
    }
    let point = explore(&s, cat).unwrap().cloud[0].spec.clone();
    let text = bundle(&s, cat, Some(point.clone())).unwrap().to_json();
    let (back, selected) = import(&text, &Scenario::default(), cat).unwrap();
    assert_eq!(back.user_chips, s.user_chips);
    assert_eq!(back.chip_edits, s.chip_edits);
    assert_eq!(back.chips, s.chips);
    assert_eq!(selected, Some(point));
    // The imported scenario sweeps to the same figures.
    let (a, b) = (explore(&s, cat).unwrap(), explore(&back, cat).unwrap());
    assert_eq!(a.cloud.len(), b.cloud.len());
    assert!(a
        .cloud
        .iter()
        .zip(&b.cloud)
        .all(|(x, y)| x.figures == y.figures));
}

#[test]
fn what_the_page_cannot_hold_is_refused_by_field() {
    let cat = Catalogue::builtin();
    let b = bundle(&Scenario::default(), cat, None).unwrap();
    let cases = [
        (
            Bundle {
                link: disagg_engine::bundle::LinkSettings {
                    gbps: Some(400.0),
                    id: None,
                    kv_streaming: true,
                },
                ..b.clone()
            },
            "link",
        ),
        (
            Bundle {
                weights: disagg_engine::bundle::Weights {
                    bits: Some(40.0),
                    ..Default::default()
                },
                ..b.clone()
            },
            "weights.bits",
        ),
        (
            Bundle {
                sweep: SweepSettings {
                    target_tok_s_user: Some(5e7),
                    ..b.sweep
                },
                ..b.clone()
            },
            "sweep.target_tok_s_user",
        ),
        (
            {
                let mut c = b.clone();
                c.assumptions.weight_offload = 1.5;
                c
            },
            "weight_offload = 1.5",
        ),
        (
            {
                let mut c = b.clone();
                c.workload.prompts = Some(0);
                c
            },
            "workload.prompts",
        ),
        (
            {
                let mut c = b.clone();
                c.chips[0].id = "my-chip".into();
                c
            },
            "chips[0].id",
        ),
        (
            {
                let mut c = b.clone();
                c.chips[1].scale_out = None;
                c
            },
            "chips[1].scale_out",
        ),
    ];
    for (bad, field) in cases {
        let why = import(&bad.to_json(), &Scenario::default(), cat).unwrap_err();
        assert!(why.contains(field), "{field}: {why}");
    }
    let why = import("{}", &Scenario::default(), cat).unwrap_err();
    assert!(why.contains("format"), "{why}");
}

/// A validation row's bundle opened in the explorer: its scenario imports and names
/// the row's deployment to show, and the sweep of that scenario draws it: among its
/// own points where it keeps it (IMXA05b, TensorRT-LLM on four B200 at 4 users), beside
/// them, on no frontier, where it does not (TRTB36's 375 sequences per replica, a batch
/// the sweep does not try), with the figures the row's own prediction has.
#[test]
fn a_validation_rows_scenario_opens_with_its_point() {
    use disagg_engine::validation::{evaluate_point, point_bundle, BenchmarkTable};
    let cat = Catalogue::builtin();
    let table = BenchmarkTable::builtin().unwrap();
    let row = |id: &str| table.point.iter().find(|p| p.id == id).unwrap();
    let bundle_of = |id: &str| point_bundle(cat, row(id), &Assumptions::default()).unwrap();
    let b = bundle_of("IMXA05b");
    let (s, spec) = import(&b.to_json(), &Scenario::default(), cat).unwrap();
    let spec = spec.unwrap();
    assert_eq!(s.model, "deepseek-r1");
    assert_eq!(s.show.as_ref(), Some(&spec));
    let page = explore(&s, cat).unwrap();
    let kept = page.cloud.iter().position(|p| p.spec == spec);
    assert!(kept.is_some(), "the sweep does not keep {spec:?}");
    assert_eq!(page.shown, None);

    let b = bundle_of("TRTB36");
    let (s, spec) = import(&b.to_json(), &Scenario::default(), cat).unwrap();
    let spec = spec.unwrap();
    let page = explore(&s, cat).unwrap();
    let at = page.shown.expect("drawn beside the sweep");
    assert_eq!(page.cloud[at].spec, spec);
    for f in [&page.throughput, &page.cost] {
        assert!(!f.all.contains(&at) && !f.homogeneous.contains(&at));
    }
    // The page's figures are the validation row's prediction's.
    let row_prediction = evaluate_point(cat, row("TRTB36"), &Assumptions::default()).unwrap();
    assert_eq!(page.cloud[at].figures, row_prediction.figures);
    // The link carries it, and a sweep read from the link draws it at the same index.
    let (back, notices) = Scenario::from_query(&s.to_query(), cat);
    assert!(notices.is_empty(), "{notices:?}");
    assert_eq!(back.show, s.show);
    assert_eq!(explore(&back, cat).unwrap().shown, Some(at));
    let note = not_drawn(&spec);
    assert!(
        note.contains("8 x rtx-pro-6000") && note.contains(&format!("batch {}", spec.batch)),
        "{note}"
    );
}

/// Every validation row with one deployment opens in the explorer: its bundle imports
/// into a scenario (every setting it states has a link key), and that scenario's sweep
/// draws the row's deployment with the figures the row's prediction has, in a closed
/// loop. The one exception is named: TRTDS-02's 896 sequences per replica do not fit
/// the model's KV memory (the row's own `problem`), so the page refuses to draw it and
/// its sweep's notes say why.
#[test]
fn every_validation_rows_deployment_opens_in_the_explorer() {
    use disagg_engine::validation::{evaluate_point, point_bundle, BenchmarkTable};
    let cat = Catalogue::builtin();
    let table = BenchmarkTable::builtin().unwrap();
    let mut opened = 0;
    for p in &table.point {
        // The rows read at an interactivity have no one deployment.
        let Ok(b) = point_bundle(cat, p, &Assumptions::default()) else {
            continue;
        };
        let (s, spec) = import(&b.to_json(), &Scenario::default(), cat)
            .unwrap_or_else(|why| panic!("{}: {why}", p.id));
        let spec = spec.unwrap();
        let page = explore(&s, cat).unwrap_or_else(|why| panic!("{}: {why}", p.id));
        let Some(at) = page.cloud.iter().position(|q| q.spec == spec) else {
            assert_eq!(p.id, "TRTDS-02");
            assert!(
                page.notes
                    .iter()
                    .any(|n| n.contains("is not drawn: ") && n.contains("do")),
                "{:?}",
                page.notes
            );
            continue;
        };
        if s.rate.is_none() {
            let predicted = evaluate_point(cat, p, &Assumptions::default()).unwrap();
            assert_eq!(page.cloud[at].figures, predicted.figures, "{}", p.id);
        }
        opened += 1;
    }
    assert_eq!(opened, 530);
}
