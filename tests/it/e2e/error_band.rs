//! Error bands in the detail panel: each headline figure of a clicked prefill/decode
//! point shows the engine's band of its metric class below it (one of the bands the
//! engine gives the scenario's chips on that axis), the pool figures of a split
//! deployment among them; a chip with too few published points for a band of its own
//! names them, and a click opens one in the validation view.

use super::driver::Driver;
use disagg_explorer::engine::disagg::Axis;
use disagg_explorer::engine::validation::{
    error_band, run, BandQuery, BenchmarkTable, MetricClass, PointError, Regime,
};
use disagg_explorer::engine::{Assumptions, Catalogue};
use disagg_explorer::format::sig3;

pub(super) fn each_figure_shows_its_band(driver: &Driver, base: &str) {
    let page = driver.session();
    super::explain::open_a_split_point(&page, base);
    // The bands come with the page's validation job, which may answer after the sweep.
    page.wait_for(
        "the detail panel's error bands",
        "return document.querySelector('#detail dd.error-band') ? true : null;",
    );
    let shown = page.js("const out = {};
         for (const f of document.querySelectorAll('#detail .figure')) {
           const b = f.querySelector('dd.error-band');
           if (b) out[f.querySelector('dt').textContent] = b.textContent;
         }
         return out;");
    let shown = shown.as_object().expect("an object of bands");
    // TTFT's spread and its parts, as the engine states them for the point.
    let ttft = page.js("const out = {};
         for (const f of document.querySelectorAll('#detail .figure')) {
           out[f.querySelector('dt').textContent] = f.querySelector('dd').textContent;
         }
         return [out['TTFT p50 / p90'] || null, out['TTFT, where it goes'] || null];");
    let spread = ttft[0].as_str().expect("TTFT p50 / p90 shown");
    let parts = ttft[1].as_str().expect("TTFT's parts shown");
    assert!(spread.contains(" / ") && spread.contains("ms"), "{spread}");
    assert!(
        parts.contains("own prefill") && parts.contains("first step"),
        "{parts}"
    );
    // Every band the engine could give this scenario's points: either chip or both, on
    // the prefill/decode axis, each class, either regime.
    let cat = Catalogue::builtin();
    let report = run(
        cat,
        &BenchmarkTable::builtin().unwrap(),
        &Assumptions::default(),
    );
    let candidates = |class: MetricClass| -> Vec<String> {
        let mut out = Vec::new();
        for chips in [vec!["h200"], vec!["mi300x"], vec!["h200", "mi300x"]] {
            for regime in [Regime::Low, Regime::High] {
                let q = BandQuery {
                    chips: chips.iter().map(|c| c.to_string()).collect(),
                    axis: Axis::PrefillDecode,
                    class: Some(class),
                    regime: Some(regime),
                };
                out.extend(error_band(&report, cat, &q).map(|b| b.line()));
            }
        }
        out
    };
    for (label, class) in [
        ("TTFT", MetricClass::Ttft),
        ("TPOT", MetricClass::Interactivity),
        ("tok/s per user", MetricClass::Interactivity),
        ("output tok/s per chip", MetricClass::Throughput),
        ("input tok/s per chip", MetricClass::Throughput),
        ("output tok/s per decode chip", MetricClass::Throughput),
        ("input tok/s per prefill chip", MetricClass::Throughput),
    ] {
        let text = shown
            .get(label)
            .and_then(|v| v.as_str())
            .unwrap_or_else(|| panic!("no band below {label}: {shown:?}"));
        assert!(
            candidates(class).iter().any(|c| c == text),
            "{label}: {text} is none of the engine's bands"
        );
        assert!(!text.contains("NaN"), "{label}: {text}");
    }
    // Figures of one class share one band; figures without a class have none.
    assert_eq!(shown["TPOT"], shown["tok/s per user"]);
    assert!(!shown.contains_key("$/Mtok output"), "{shown:?}");
    eprintln!(
        "error bands: {} figures, e.g. TTFT {}",
        shown.len(),
        shown["TTFT"]
    );
    page.close();
}

/// A one-wafer Cerebras deployment: the chip's two published points are too few for a
/// band, so the panel names them after the wider one, and each opens its row.
pub(super) fn a_chips_few_points_open_in_the_table(driver: &Driver, base: &str) {
    let cat = Catalogue::builtin();
    let report = run(
        cat,
        &BenchmarkTable::builtin().unwrap(),
        &Assumptions::default(),
    );
    let q = BandQuery {
        chips: vec!["cerebras-wse3".into()],
        axis: Axis::Aggregated,
        class: None,
        regime: None,
    };
    let points: Vec<PointError> = error_band(&report, cat, &q)
        .and_then(|b| b.nearest)
        .expect("the wafer's points are named")
        .points;
    let page = driver.session();
    page.open(&format!(
        "{base}/?v=1&model=llama-3.1-8b&axis=agg&chips=cerebras-wse3&budget=1&isl=1024&osl=1024"
    ));
    page.wait_ready();
    page.click("#frontier-table button");
    page.wait_for(
        "the points the panel names",
        "return document.querySelector('#nearest-points button') ? true : null;",
    );
    let shown = page.js(
        "return [...document.querySelectorAll('#nearest-points button')].map(b => b.textContent);",
    );
    let labels: Vec<String> = points.iter().map(PointError::label).collect();
    assert_eq!(shown, serde_json::json!(labels));
    let sentence = page.text("#measured-error");
    assert!(sentence.contains(&labels.join(", ")), "{sentence}");
    // A click opens the first in the validation view, with its prediction.
    let first = &points[0];
    let row = report.rows.iter().find(|r| r.point.id == first.id).unwrap();
    page.click("#nearest-points button");
    page.wait_for(
        "the named point opened",
        &format!(
            "const e = document.getElementById('vp-predicted'); return e && e.innerText === {:?} ? true : null;",
            sig3(row.predicted.unwrap())
        ),
    );
    assert!(
        page.href().contains(&format!("vv.point={}", first.id)),
        "{}",
        page.href()
    );
    eprintln!("nearest points: {labels:?}");
    page.close();
}
