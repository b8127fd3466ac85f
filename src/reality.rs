//! How sure a figure is, in words: the engine's error band
//! ([`disagg_engine::validation::error_band`]: the measured error on comparable
//! hold-out points of `disagg validate`, never used to fit a constant) said beside the
//! verdict and in the details. Which points are comparable, and how the scope widens
//! when too few are, is the engine's; this file only words it, and names a chip that no
//! published point runs on at all ("no published point for this chip").

use crate::format::percent;
use disagg_engine::disagg::{Axis, DeploymentPoint};
use disagg_engine::validation::{
    headline_bands, listed, unmeasured, HowSure, PointError, ValidationReport,
};
use disagg_engine::Catalogue;
use std::collections::BTreeMap;

/// The detail panel's headline figures that carry a band: their labels there, and
/// the keys of their bands (the keys of `disagg predict --json`).
pub const FIGURE_BANDS: [(&str, &str); 7] = [
    ("TTFT", "ttft_s"),
    ("TPOT", "tpot_s"),
    ("tok/s per user", "tok_s_user"),
    ("output tok/s per chip", "output_tok_s_per_chip"),
    ("input tok/s per chip", "input_tok_s_per_chip"),
    (
        "output tok/s per decode chip",
        "output_tok_s_per_decode_chip",
    ),
    (
        "input tok/s per prefill chip",
        "input_tok_s_per_prefill_chip",
    ),
];

/// The band of each headline figure of `point` the panel shows, by the figure's
/// label, in the engine's wording; a figure without a band is left out.
pub fn figure_bands(
    report: &ValidationReport,
    catalogue: &Catalogue,
    point: &DeploymentPoint,
) -> BTreeMap<&'static str, String> {
    let bands = headline_bands(report, catalogue, point);
    FIGURE_BANDS
        .iter()
        .filter_map(|(label, key)| Some((*label, bands.get(key)?.as_ref()?.line())))
        .collect()
}

/// One sentence: the measured error on hold-out points comparable to a deployment of
/// these `chips` on `axis` (any metric, any concurrency), median and p90 of |error|
/// with the count, after the scopes that had too few points.
pub fn measured_error(
    report: &ValidationReport,
    chips: &[String],
    axis: Axis,
    catalogue: &Catalogue,
) -> String {
    let sure = HowSure::of(report, catalogue, chips, axis);
    sentence(report, chips, &sure, catalogue)
}

/// [`measured_error`]'s sentence of `sure`, the [`HowSure`] of these `chips`.
pub fn sentence(
    report: &ValidationReport,
    chips: &[String],
    sure: &HowSure,
    catalogue: &Catalogue,
) -> String {
    let Some(band) = &sure.band else {
        return "No published measurement has been compared with these predictions yet."
            .to_string();
    };
    let name = |id: &str| {
        catalogue
            .chip(id)
            .map_or(id.to_string(), |c| c.name.clone())
    };
    let bare: Vec<String> = unmeasured(report, chips).into_iter().map(name).collect();
    let unmeasured = match bare.len() {
        0 => None,
        _ if chips.len() == 1 => Some("no published point for this chip".to_string()),
        _ => Some(format!("no published point for {}", listed(&bare))),
    };
    let too_few = (!band.widened_from.is_empty()).then(|| {
        format!(
            "too few published points for {}",
            band.widened_from.join(", nor for ")
        )
    });
    let lead: Vec<String> = unmeasured.into_iter().chain(too_few).collect();
    let lead = if lead.is_empty() {
        String::new()
    } else {
        format!("{}; ", upper_first(&lead.join("; ")))
    };
    let nearest: String = sure
        .named()
        .map(|n| format!(" {}.", upper_first(&n.line())))
        .collect();
    format!(
        "{lead}measured error on published points for {}: median {}, p90 {} over {} points (hold-out).{nearest}",
        band.scope,
        percent(band.median_pct / 100.0),
        percent(band.p90_pct / 100.0),
        band.points
    )
}

/// The published points [`measured_error`] names after its band, each to open in the
/// validation view.
pub fn nearest_points(sure: &HowSure) -> Vec<PointError> {
    sure.named()
        .flat_map(|n| n.points.iter().cloned())
        .collect()
}

fn upper_first(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use disagg_engine::validation::{
        family, mean_rows, run, runs_on, summarize, BenchmarkTable, Role, ValidationRow, MIN_POINTS,
    };
    use disagg_engine::Assumptions;

    fn report() -> ValidationReport {
        run(
            Catalogue::builtin(),
            &BenchmarkTable::builtin().unwrap(),
            &Assumptions::default(),
        )
    }

    /// The rows a band counts: hold-out mean rows ([`mean_rows`]) with an error.
    fn holdout(r: &ValidationReport) -> impl Iterator<Item = &ValidationRow> {
        mean_rows(&r.rows, Role::Holdout).filter(|x| x.error.is_some())
    }

    #[test]
    fn each_headline_figure_shows_the_band_of_its_class() {
        use disagg_engine::disagg::plan::{plan, PoolChoice};
        use disagg_engine::disagg::{PoolRole, Setup};
        use disagg_engine::dtype::WeightFormat;
        use disagg_engine::validation::{headline_bands, HEADLINE_FIGURES};
        use disagg_engine::Workload;
        let r = report();
        let cat = Catalogue::builtin();
        let model = cat.model("llama-3.3-70b").unwrap();
        let setup = Setup::new(
            &model.ir,
            Workload::new(2048, 256),
            WeightFormat {
                dtype: model.default_weight_dtype,
                bits_override: None,
            },
        );
        let pool = |id: &str| PoolChoice {
            chip: cat.chip(id).unwrap(),
            chips: 4,
            parallelism: None,
        };
        let split = vec![
            (PoolRole::Prefill, pool("h100-sxm")),
            (PoolRole::Decode, pool("mi300x")),
        ];
        let together = vec![(PoolRole::Colocated, pool("h200"))];
        for (axis, pools) in [(Axis::PrefillDecode, split), (Axis::Aggregated, together)] {
            let (_, p) = plan(&setup, axis, &pools, Some(32), 2).unwrap();
            let shown = figure_bands(&r, cat, &p);
            let bands = headline_bands(&r, cat, &p);
            // Every label names a headline figure of the engine's.
            for (label, key) in FIGURE_BANDS {
                assert!(HEADLINE_FIGURES.iter().any(|(k, _)| *k == key), "{key}");
                match bands.get(key) {
                    Some(Some(b)) => assert_eq!(shown[label], b.line(), "{label}"),
                    _ => assert!(!shown.contains_key(label), "{label}"),
                }
            }
            // The pool figures are a split deployment's only.
            let pooled = shown.contains_key("output tok/s per decode chip");
            assert_eq!(pooled, axis == Axis::PrefillDecode, "{axis:?}");
            assert_eq!(shown.contains_key("input tok/s per prefill chip"), pooled);
            // Figures of one class share one band; TTFT's is its own class's.
            assert_eq!(shown["TPOT"], shown["tok/s per user"]);
            assert!(shown["TTFT"].contains("TTFT"), "{}", shown["TTFT"]);
        }
    }

    #[test]
    fn the_error_is_that_of_the_points_named() {
        let r = report();
        let cat = Catalogue::builtin();
        // H200, aggregated: the figures are those of exactly the hold-out rows of its
        // family (Hopper) on that axis.
        let rows: Vec<f64> = holdout(&r)
            .filter(|x| family(&x.point.chip) == family("h200") && x.point.axis.is_none())
            .filter_map(|x| x.error)
            .collect();
        assert!(rows.len() >= MIN_POINTS, "{} rows", rows.len());
        let s = summarize(rows.iter().copied()).unwrap();
        let text = measured_error(&r, &["h200".into()], Axis::Aggregated, cat);
        assert!(
            text.starts_with("measured error on published points for NVIDIA Hopper · aggregated:"),
            "{text}"
        );
        assert!(
            text.contains(&format!(
                "median {}, p90 {} over {} points",
                percent(s.median_ape),
                percent(s.p90_ape),
                s.points
            )),
            "{text}"
        );
    }

    #[test]
    fn too_few_points_widen_the_scope_and_say_so() {
        let r = report();
        let cat = Catalogue::builtin();
        // The MI300X has published points, but too few speculative hold-out ones of its
        // family or its vendor's: the sentence says so and widens past the axis.
        let amd = |x: &&ValidationRow| cat.chip(&x.point.chip).is_ok_and(|c| c.vendor == "AMD");
        let speculative = holdout(&r)
            .filter(|x| x.point.axis == Some(Axis::Speculative))
            .filter(amd)
            .count();
        assert!(speculative < MIN_POINTS, "{speculative} speculative points");
        let text = measured_error(&r, &["mi300x".into()], Axis::Speculative, cat);
        let spec = Axis::Speculative.name();
        assert!(
            text.starts_with(&format!(
                "Too few published points for AMD CDNA 3 · {spec}, nor for AMD chips · {spec}; "
            )),
            "{text}"
        );
        assert!(!text.contains("no published point"), "{text}");
        // Widened past the axis: every AMD hold-out point.
        let vendor: Vec<f64> = holdout(&r).filter(amd).filter_map(|x| x.error).collect();
        let s = summarize(vendor.into_iter()).unwrap();
        assert!(
            text.contains(&format!(
                "for AMD chips · any axis: median {}, p90 {} over {} points",
                percent(s.median_ape),
                percent(s.p90_ape),
                s.points
            )),
            "{text}"
        );
    }

    #[test]
    fn a_chip_without_any_published_point_says_so() {
        let r = report();
        let cat = Catalogue::builtin();
        // No published point runs on a d-Matrix Corsair, in any role or pool.
        assert!(!r.rows.iter().any(|x| runs_on(x, "d-matrix-corsair")));
        let text = measured_error(&r, &["d-matrix-corsair".into()], Axis::Aggregated, cat);
        assert!(
            text.starts_with("No published point for this chip; too few published points for "),
            "{text}"
        );
        // It then widens: too few for the vendor, so every hold-out point.
        let all = r.holdout.unwrap();
        assert!(
            text.contains("all chips · any axis")
                && text.contains(&format!("over {} points", all.points)),
            "{text}"
        );
        // Of two chips, the one without points is named; the other's points still count.
        let text = measured_error(
            &r,
            &["h200".into(), "d-matrix-corsair".into()],
            Axis::Aggregated,
            cat,
        );
        let corsair = &cat.chip("d-matrix-corsair").unwrap().name;
        assert!(
            text.starts_with(&format!(
                "No published point for {corsair}; measured error on published points for "
            )),
            "{text}"
        );
        // A chip with points gets no such clause.
        let text = measured_error(&r, &["h200".into()], Axis::Aggregated, cat);
        assert!(
            !text.to_lowercase().contains("no published point"),
            "{text}"
        );
    }

    #[test]
    fn a_chip_with_too_few_points_shows_them_by_name() {
        let r = report();
        let cat = Catalogue::builtin();
        // The Cerebras WSE-3's own hold-out points: fewer than a band needs.
        let own: Vec<&ValidationRow> = holdout(&r)
            .filter(|x| runs_on(x, "cerebras-wse3"))
            .collect();
        assert!(
            !own.is_empty() && own.len() < MIN_POINTS,
            "{} points",
            own.len()
        );
        let text = measured_error(&r, &["cerebras-wse3".into()], Axis::Aggregated, cat);
        let name = &cat.chip("cerebras-wse3").unwrap().name;
        assert!(
            text.starts_with(&format!("Too few published points for {name}")),
            "{text}"
        );
        // Each is named with its signed error, after the wider band.
        let (wide, nearest) = text.split_once(" On ").expect(&text);
        assert!(
            wide.contains("measured error on published points for"),
            "{text}"
        );
        for x in own {
            let e = x.error.unwrap() * 100.0;
            let shown = if e.abs() < 10.0 {
                format!("{e:+.1}% ({})", x.point.id)
            } else {
                format!("{e:+.0}% ({})", x.point.id)
            };
            assert!(nearest.contains(&shown), "{shown} in {text}");
        }
        // The buttons the panel offers are those points, in the sentence's order.
        let sure = |chips: &[String]| HowSure::of(&r, cat, chips, Axis::Aggregated);
        let offered = nearest_points(&sure(&["cerebras-wse3".into()]));
        let labels: Vec<String> = offered.iter().map(PointError::label).collect();
        assert!(nearest.contains(&labels.join(", ")), "{labels:?} in {text}");
        // A chip whose own points make a band offers none.
        assert!(nearest_points(&sure(&["h200".into()])).is_empty());
        // Beside a chip with many points, the wafer's few are still named: the
        // deployment's band counts both families' points, the wafer's line its own.
        let both: Vec<String> = vec!["h200".into(), "cerebras-wse3".into(), "h100-sxm".into()];
        let text = measured_error(&r, &both, Axis::Aggregated, cat);
        assert!(!text.starts_with("Too few"), "{text}");
        assert!(text.contains(&labels.join(", ")), "{labels:?} in {text}");
        assert_eq!(
            nearest_points(&sure(&both)),
            offered,
            "one family's points once"
        );
    }
}
