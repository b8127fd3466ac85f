//! `predict`'s error bands: the engine's bands of the point it prints (its chips, axis
//! and batch), in the JSON by figure and in the text one line per metric class.

use super::{disagg, stderr, stdout};
use disagg_engine::disagg::Axis;
use disagg_engine::validation::{
    self, error_band, BandQuery, BenchmarkTable, ErrorBand, MetricClass, Regime,
};
use disagg_engine::{Assumptions, Catalogue};

fn run(args: &[&str]) -> String {
    let o = disagg(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    stdout(&o)
}

/// The model and lengths the recommend and sweep cases run.
const LLAMA_8B: [&str; 6] = ["--model", "llama-3.1-8b", "--isl", "1024", "--osl", "256"];

/// `args` run again with `--json`, parsed.
fn json_of(args: &[&str]) -> serde_json::Value {
    let json: Vec<&str> = args.iter().copied().chain(["--json"]).collect();
    serde_json::from_str(&run(&json)).unwrap()
}

/// The validation report the CLI reads its bands from: the built-in table, default
/// assumptions.
fn table_report() -> validation::ValidationReport {
    validation::run(
        Catalogue::builtin(),
        &BenchmarkTable::builtin().unwrap(),
        &Assumptions::default(),
    )
}

const PD: [&str; 19] = [
    "predict",
    "--model",
    "deepseek-v3",
    "--axis",
    "pd",
    "--prefill-chip",
    "h200",
    "--prefill-chips",
    "8",
    "--decode-chip",
    "b200",
    "--decode-chips",
    "8",
    "--batch",
    "64",
    "--isl",
    "2048",
    "--osl",
    "256",
];

#[test]
fn predict_carries_the_engines_band_for_each_headline_figure() {
    let args: Vec<&str> = PD.iter().copied().chain(["--json"]).collect();
    let v: serde_json::Value = serde_json::from_str(&run(&args)).unwrap();
    let cat = Catalogue::builtin();
    let report = table_report();
    let band = |class| {
        error_band(
            &report,
            cat,
            &BandQuery {
                chips: vec!["b200".into(), "h200".into()],
                axis: Axis::PrefillDecode,
                class: Some(class),
                regime: Some(Regime::of(Some(64.0))),
            },
        )
        .unwrap()
    };
    let bands = v["error_band"].as_object().unwrap();
    let expected = [
        ("output_tok_s", MetricClass::Throughput),
        ("output_tok_s_per_chip", MetricClass::Throughput),
        ("input_tok_s_per_chip", MetricClass::Throughput),
        // A prefill/decode deployment's pool figures have bands of their own key.
        ("output_tok_s_per_decode_chip", MetricClass::Throughput),
        ("input_tok_s_per_prefill_chip", MetricClass::Throughput),
        ("tok_s_user", MetricClass::Interactivity),
        ("tpot_s", MetricClass::Interactivity),
        ("ttft_s", MetricClass::Ttft),
    ];
    assert_eq!(bands.len(), expected.len(), "{bands:?}");
    for (key, class) in expected {
        let got: ErrorBand = serde_json::from_value(bands[key].clone()).unwrap();
        assert_eq!(got, band(class), "{key}");
        assert!(got.p90_pct >= got.median_pct && got.points >= validation::MIN_POINTS);
    }
    // The pool figures are headline keys, read by the validation's own metrics.
    assert!(v["output_tok_s_per_decode_chip"].as_f64().unwrap() > 0.0);
    assert!(v["input_tok_s_per_prefill_chip"].as_f64().unwrap() > 0.0);
    // The text prints each class's band once, in the engine's wording.
    let text = run(&PD);
    for class in MetricClass::ALL {
        let line = format!("error, {}", class.name());
        let printed: Vec<&str> = text.lines().filter(|l| l.contains(&line)).collect();
        assert_eq!(printed.len(), 1, "{line}: {text}");
        assert!(printed[0].ends_with(&band(class).line()), "{}", printed[0]);
    }
}

#[test]
fn an_aggregated_point_has_no_pool_figures_and_a_low_batch_its_own_regime() {
    let v: serde_json::Value = serde_json::from_str(&run(&[
        "predict",
        "--model",
        "llama-3.3-70b",
        "--chip",
        "h100-sxm",
        "--chips",
        "2",
        "--batch",
        "1",
        "--isl",
        "1024",
        "--osl",
        "256",
        "--json",
    ]))
    .unwrap();
    assert!(v["output_tok_s_per_decode_chip"].is_null());
    assert!(v["input_tok_s_per_prefill_chip"].is_null());
    let bands = v["error_band"].as_object().unwrap();
    assert!(!bands.contains_key("output_tok_s_per_decode_chip"));
    // The scope names the regime it kept, or the regime was given up on the way.
    let tpot: ErrorBand = serde_json::from_value(bands["tpot_s"].clone()).unwrap();
    let low = Regime::Low.name();
    assert!(
        tpot.scope.ends_with(low) || tpot.widened_from[0].ends_with(low),
        "{tpot:?}"
    );
    // The explanation prints the bands too.
    let explained = run(&[
        "predict",
        "--model",
        "llama-3.3-70b",
        "--chip",
        "h100-sxm",
        "--chips",
        "2",
        "--batch",
        "1",
        "--isl",
        "1024",
        "--osl",
        "256",
        "--explain",
    ]);
    assert!(explained.contains("error, TTFT"), "{explained}");
}

#[test]
fn recommend_carries_each_deployments_ttft_and_tpot_bands() {
    let args = [
        &["recommend"][..],
        &LLAMA_8B,
        &[
            "--ttft-ms",
            "1000",
            "--tpot-ms",
            "30",
            "--rate",
            "5",
            "--chips",
            "h100-sxm,mi300x,b200",
            "--max-chips",
            "8",
        ],
    ]
    .concat();
    let v = json_of(&args);
    let r: disagg_engine::recommend::Recommendation = serde_json::from_value(v.clone()).unwrap();
    let cat = Catalogue::builtin();
    let report = table_report();
    let bands = v["error_bands"].as_array().unwrap();
    assert!(!r.ranked.is_empty());
    assert_eq!(bands.len(), r.ranked.len());
    // Each is the engine's band of that replica's chips, axis and concurrency.
    let expected = |e: &disagg_engine::recommend::Entry| {
        let chips = e.spec.pools.iter().map(|p| p.chip.as_str());
        validation::bands_of(&report, cat, chips, e.spec.axis, e.figures.batch)
    };
    let parse =
        |x: &serde_json::Value| -> Option<ErrorBand> { serde_json::from_value(x.clone()).ok() };
    for (e, b) in r.ranked.iter().zip(bands) {
        let want = expected(e);
        assert_eq!(
            parse(&b["ttft"]),
            want[&MetricClass::Ttft].clone(),
            "{}",
            e.label
        );
        assert_eq!(
            parse(&b["tpot"]),
            want[&MetricClass::Interactivity].clone(),
            "{}",
            e.label
        );
    }
    // The text: each row's medians, and the cheapest deployment's bands in full.
    let text = run(&args);
    let first = &r.ranked[0];
    let want = expected(first);
    let row = text
        .lines()
        .find(|l| l.trim_start().starts_with("1 "))
        .expect(&text);
    for class in [MetricClass::Ttft, MetricClass::Interactivity] {
        let b = want[&class].as_ref().unwrap();
        assert!(row.contains(&b.median()), "{} in {row}", b.median());
    }
    let minimum = r.minimum().unwrap();
    let want = expected(minimum);
    let ttft = want[&MetricClass::Ttft].as_ref().unwrap().line();
    assert!(text.contains(&format!("  error, TTFT  {ttft}")), "{text}");
}

#[test]
fn sweep_says_how_sure_and_names_a_chips_few_points() {
    let args = [
        &["sweep"][..],
        &LLAMA_8B,
        &[
            "--axis",
            "agg",
            "--chips",
            "cerebras-wse3,h100-sxm",
            "--max-chips",
            "2",
        ],
    ]
    .concat();
    let v = json_of(&args);
    let cat = Catalogue::builtin();
    let report = table_report();
    let chips: Vec<String> = vec!["cerebras-wse3".into(), "h100-sxm".into()];
    // The band of both chips on the axis: Hopper's points and the wafer's together.
    let query = BandQuery {
        chips: chips.clone(),
        axis: Axis::Aggregated,
        class: None,
        regime: None,
    };
    let band = error_band(&report, cat, &query).unwrap();
    let shown: ErrorBand = serde_json::from_value(v["error_band"].clone()).unwrap();
    assert_eq!(shown, band);
    assert!(
        band.scope.contains("Hopper") && band.points >= 3,
        "{band:?}"
    );
    // The wafer's own two points, which that band does not single out.
    let few: Vec<validation::NearestPoints> =
        serde_json::from_value(v["few_points"].clone()).unwrap();
    assert_eq!(few.len(), 1, "{few:?}");
    let ids: Vec<&str> = few[0].points.iter().map(|p| p.id.as_str()).collect();
    let own: Vec<&str> = report
        .rows
        .iter()
        .filter(|r| {
            r.point.role == validation::Role::Holdout
                && validation::runs_on(r, "cerebras-wse3")
                && !r.point.metric.is_median()
        })
        .map(|r| r.point.id.as_str())
        .collect();
    assert_eq!(ids, own);
    // The text says both, after the verdict.
    let text = run(&args);
    assert!(
        text.contains(&format!("  how sure: {}\n", band.line())),
        "{text}"
    );
    assert!(
        text.contains(&format!("  how sure: {}\n", few[0].line())),
        "{text}"
    );
}
