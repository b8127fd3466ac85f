use super::*;
use crate::validation::{BenchmarkPoint, BenchmarkTable};

/// A published point on `chip` and `axis`, measuring `metric` at `batch`.
fn point(chip: &str, axis: Option<Axis>, metric: Metric, batch: Option<u32>) -> BenchmarkPoint {
    BenchmarkPoint {
        chip: chip.into(),
        axis,
        metric,
        batch,
        role: Role::Holdout,
        at: None,
        pool: Vec::new(),
        ..BenchmarkTable::builtin().unwrap().point.remove(0)
    }
}

fn row(point: BenchmarkPoint, error: f64) -> ValidationRow {
    ValidationRow {
        point,
        predicted: Some(1.0 + error),
        error: Some(error),
        parallelism: None,
        problem: None,
        read_at_batch: None,
    }
}

fn report(rows: Vec<ValidationRow>) -> ValidationReport {
    ValidationReport {
        rows,
        calibration: None,
        holdout: None,
        holdout_ttft: None,
        holdout_disaggregated: None,
        holdout_median_ttft: None,
    }
}

fn query(chip: &str, axis: Axis, class: MetricClass, batch: u32) -> BandQuery {
    BandQuery {
        chips: vec![chip.into()],
        axis,
        class: Some(class),
        regime: Some(Regime::of(Some(batch as f64))),
    }
}

fn cat() -> &'static Catalogue {
    Catalogue::builtin()
}

#[test]
fn a_band_is_the_median_and_p90_of_the_comparable_points() {
    // Five H100/H200 TPOT points at batch 1 and 8: |errors| 0.05 0.1 0.2 0.3 0.4.
    // Median: the third, 20%. p90 by nearest rank: rank ceil(0.9 * 5) = 5, 40%.
    let tpot = |chip, batch, e| row(point(chip, None, Metric::TpotMs, Some(batch)), e);
    let rows = vec![
        tpot("h200", 1, 0.1),
        tpot("h100-sxm", 8, -0.2),
        tpot("h200", 4, 0.3),
        tpot("gh200", 1, -0.4),
        tpot("h800", 16, 0.05),
        // Not comparable: another class, another regime, another family, another axis.
        row(point("h200", None, Metric::OutputTokS, Some(1)), 9.0),
        tpot("h200", 64, 9.0),
        tpot("b200", 1, 9.0),
        row(
            point("h200", Some(Axis::PrefillDecode), Metric::TpotMs, Some(1)),
            9.0,
        ),
    ];
    let b = error_band(
        &report(rows),
        cat(),
        &query("h200", Axis::Aggregated, MetricClass::Interactivity, 1),
    )
    .unwrap();
    assert_eq!(b.points, 5);
    assert!((b.median_pct - 20.0).abs() < 1e-9, "{b:?}");
    assert!((b.p90_pct - 40.0).abs() < 1e-9, "{b:?}");
    assert_eq!(
        b.scope,
        "NVIDIA Hopper · aggregated · TPOT and tok/s per user · batch up to 16"
    );
    assert!(b.widened_from.is_empty());
    assert_eq!(
        b.line(),
        "±20% median, ±40% p90 on 5 hold-out points: NVIDIA Hopper · aggregated · TPOT and tok/s per user · batch up to 16"
    );
}

#[test]
fn too_few_points_widen_in_the_documented_order() {
    let q = query("h200", Axis::Aggregated, MetricClass::Ttft, 1);
    let ttft = |chip, axis, batch| point(chip, axis, Metric::TtftMs, batch);
    let pd = Some(Axis::PrefillDecode);
    // Group k: three points inside level k and outside level k - 1.
    let groups: [[BenchmarkPoint; 3]; 6] = [
        // Family, axis, class, regime.
        [
            ttft("h200", None, Some(1)),
            ttft("h100-sxm", None, Some(2)),
            ttft("h800", None, Some(16)),
        ],
        // Family, axis, class: the other regime.
        [
            ttft("h200", None, None),
            ttft("h100-sxm", None, Some(64)),
            ttft("gh200", None, Some(17)),
        ],
        // Vendor, axis, class: other NVIDIA families.
        [
            ttft("b200", None, Some(1)),
            ttft("a100-80g", None, Some(1)),
            ttft("l40s", None, Some(1)),
        ],
        // Vendor, class: other axes.
        [
            ttft("h200", pd, Some(1)),
            ttft("gb200", pd, Some(1)),
            ttft("h200", Some(Axis::Speculative), Some(1)),
        ],
        // Class: other vendors.
        [
            ttft("mi355x", None, Some(1)),
            ttft("mi300x", None, Some(1)),
            ttft("gaudi3", None, Some(1)),
        ],
        // Everything: other classes.
        [
            point("h200", None, Metric::OutputTokS, Some(1)),
            point("h200", None, Metric::TpotMs, Some(1)),
            point("b200", None, Metric::TokSUser, None),
        ],
    ];
    let scopes = [
        "NVIDIA Hopper · aggregated · TTFT · batch up to 16",
        "NVIDIA Hopper · aggregated · TTFT",
        "NVIDIA chips · aggregated · TTFT",
        "NVIDIA chips · any axis · TTFT",
        "all chips · any axis · TTFT",
        "all chips · any axis · any metric",
    ];
    for (k, group) in groups.iter().enumerate() {
        // Level k's own group, and one point of the first group (inside every level):
        // every narrower level holds at most that one point plus none of group k.
        let mut rows: Vec<ValidationRow> = group
            .iter()
            .enumerate()
            .map(|(i, p)| row(p.clone(), 0.1 * (i + 1) as f64))
            .collect();
        if k > 0 {
            rows.truncate(2);
            rows.push(row(groups[0][0].clone(), 0.3));
        }
        let b = error_band(&report(rows), cat(), &q).unwrap();
        assert_eq!(b.scope, scopes[k], "level {k}: {b:?}");
        assert_eq!(b.widened_from, scopes[..k], "level {k}");
        // The one point of the first group, inside the narrowest scope, is named.
        let nearest = b
            .nearest
            .as_ref()
            .map(|n| (n.scope.as_str(), n.points.len()));
        assert_eq!(nearest, (k > 0).then_some((scopes[0], 1)), "level {k}");
        assert_eq!(b.points, MIN_POINTS, "level {k}");
        // |errors| 0.1, 0.2, 0.3 either way: median 20%, p90 30%.
        assert!((b.median_pct - 20.0).abs() < 1e-9 && (b.p90_pct - 30.0).abs() < 1e-9);
    }
    // Fewer points than the minimum altogether: no band.
    let rows = vec![
        row(groups[0][0].clone(), 0.1),
        row(groups[5][0].clone(), 0.1),
    ];
    assert_eq!(error_band(&report(rows), cat(), &q), None);
}

#[test]
fn a_widened_band_names_the_few_points_it_passed_over() {
    let named = |chip, metric, batch, id: &str, e| {
        let mut p = point(chip, None, metric, batch);
        p.id = id.into();
        row(p, e)
    };
    let tpot = Metric::TpotMs;
    let q = query("groq-lpu", Axis::Aggregated, MetricClass::Interactivity, 1);
    let mut rows = vec![
        // The chip's own two points, one each way, and a calibration point that matches.
        named("groq-lpu", tpot, Some(1), "LPU-1", 1.51),
        named("groq-lpu", tpot, Some(8), "LPU-2", -0.04),
        named("groq-lpu", tpot, Some(1), "LPU-C", 7.0),
        // Three points of other vendors: the band widens to them.
        named("h200", tpot, Some(1), "H-1", 0.1),
        named("mi300x", tpot, Some(1), "M-1", -0.2),
        named("b200", tpot, Some(64), "B-1", 0.3),
    ];
    rows[2].point.role = Role::Calibration;
    let b = error_band(&report(rows.clone()), cat(), &q).unwrap();
    assert_eq!(b.points, 5);
    let n = b.nearest.clone().unwrap();
    // The narrowest scope that had any: the chip's own, with both of its hold-out points.
    assert_eq!(n.scope, b.widened_from[0]);
    let ids: Vec<&str> = n.points.iter().map(|p| p.id.as_str()).collect();
    assert_eq!(ids, ["LPU-1", "LPU-2"]);
    assert!((n.points[0].error_pct - 151.0).abs() < 1e-9);
    assert!((n.points[1].error_pct + 4.0).abs() < 1e-9);
    assert_eq!(
        n.line(),
        format!(
            "on {} alone, 2 points: +151% (LPU-1), -4.0% (LPU-2)",
            n.scope
        )
    );
    assert_eq!(
        b.line(),
        format!(
            "±20% median, ±151% p90 on 5 hold-out points: {}; {}",
            b.scope,
            n.line()
        )
    );
    // One point alone is one point.
    rows.remove(1);
    let b = error_band(&report(rows.clone()), cat(), &q).unwrap();
    assert!(b
        .nearest
        .unwrap()
        .line()
        .contains("alone, 1 point: +151% (LPU-1)"));
    // A band that did not widen, or widened past empty scopes only, names none.
    rows.retain(|r| !r.point.chip.starts_with("groq"));
    let b = error_band(&report(rows), cat(), &q).unwrap();
    assert!(!b.widened_from.is_empty());
    assert_eq!(b.nearest, None);
}

#[test]
fn each_familys_few_points_are_named_once() {
    let named = |chip, axis, id: &str, e| {
        let mut p = point(chip, axis, Metric::TpotMs, Some(1));
        p.id = id.into();
        row(p, e)
    };
    let pd = Some(Axis::PrefillDecode);
    let mut rows = vec![
        // Hopper has a band of its own on the axis; the LPU has two points.
        named("h200", None, "H-1", 0.1),
        named("h100-sxm", None, "H-2", 0.2),
        named("h800", None, "H-3", 0.3),
        named("groq-lpu", None, "L-1", 1.5),
        named("groq-lpu", None, "L-2", 2.5),
        // Elsewhere: enough points for every wider scope.
        named("mi300x", pd, "M-1", 0.1),
        named("mi300x", pd, "M-2", 0.1),
        named("mi300x", pd, "M-3", 0.1),
    ];
    let chips: Vec<String> = vec!["h200".into(), "groq-lpu".into(), "h100-sxm".into()];
    let ids = |few: &[NearestPoints]| -> Vec<Vec<String>> {
        few.iter()
            .map(|n| n.points.iter().map(|p| p.id.clone()).collect())
            .collect()
    };
    // Together the two families make a band of five; the LPU's own two are named, once
    // though two Hopper chips are given.
    let r = report(rows.clone());
    let sure = HowSure::of(&r, cat(), &chips, Axis::Aggregated);
    let b = sure.band.as_ref().unwrap();
    assert_eq!((b.points, b.nearest.is_none()), (5, true));
    assert_eq!(ids(&sure.few), [["L-1", "L-2"]]);
    // Where the deployment's band itself names them, no family repeats them.
    rows.retain(|x| !["H-2", "H-3", "L-2"].contains(&x.point.id.as_str()));
    let r = report(rows);
    let sure = HowSure::of(&r, cat(), &chips, Axis::Aggregated);
    let own: Vec<&str> = sure
        .band
        .as_ref()
        .unwrap()
        .nearest
        .as_ref()
        .unwrap()
        .points
        .iter()
        .map(|p| p.id.as_str())
        .collect();
    assert_eq!(own, ["H-1", "L-1"]);
    assert!(sure.few.is_empty());
    assert_eq!(sure.named().count(), 1);
}

#[test]
fn no_calibration_point_enters_a_band() {
    let tput = |chip, e| row(point(chip, None, Metric::OutputTokS, None), e);
    let holdout = vec![tput("h200", 0.1), tput("h100-sxm", 0.2), tput("gh200", 0.3)];
    let q = query("h200", Axis::Aggregated, MetricClass::Throughput, 512);
    let alone = error_band(&report(holdout.clone()), cat(), &q).unwrap();
    // Calibration points matching the query in every way, with huge errors.
    let mut rows = holdout;
    for chip in ["h200", "h100-sxm", "h800", "b200", "mi300x"] {
        let mut r = tput(chip, 5.0);
        r.point.role = Role::Calibration;
        rows.push(r);
    }
    assert_eq!(error_band(&report(rows.clone()), cat(), &q), Some(alone));
    // Only calibration points: no band at all.
    rows.retain(|r| r.point.role == Role::Calibration);
    assert_eq!(error_band(&report(rows), cat(), &q), None);
    // Nor a row without a finite error.
    let mut r = tput("h200", 0.1);
    r.error = Some(f64::NAN);
    let rows = vec![r, tput("h200", 0.1), tput("h200", 0.2)];
    assert_eq!(error_band(&report(rows), cat(), &q).map(|b| b.points), None);
}

#[test]
fn the_builtin_table_gives_every_class_a_finite_band() {
    let table = BenchmarkTable::builtin().unwrap();
    let r = super::super::run(cat(), &table, &crate::Assumptions::default());
    for chip in ["h200", "b200", "mi355x", "groq-lpu", "a chip of my own"] {
        for axis in [Axis::Aggregated, Axis::PrefillDecode, Axis::Speculative] {
            for class in [
                MetricClass::Throughput,
                MetricClass::Interactivity,
                MetricClass::Ttft,
            ] {
                for batch in [1, 512] {
                    let b = error_band(&r, cat(), &query(chip, axis, class, batch)).unwrap();
                    // A chip the catalogue does not know widens from itself to all.
                    if chip == "a chip of my own" {
                        assert!(b.widened_from[0].starts_with("a chip of my own · "));
                        let vendor = |s: &String| s.contains("chips ·") && !s.starts_with("all");
                        assert!(!b.widened_from.iter().any(vendor), "{b:?}");
                    }
                    assert!(b.points >= MIN_POINTS);
                    assert!(
                        b.median_pct.is_finite() && b.p90_pct >= b.median_pct,
                        "{b:?}"
                    );
                    // The band is that of the hold-out rows it names, recomputed.
                    assert!(b.points <= r.holdout.unwrap().points);
                }
            }
        }
    }
    // The widest scope is exactly the report's hold-out summary.
    let wide = BandQuery {
        chips: vec!["a chip of my own".into()],
        axis: Axis::Speculative,
        class: None,
        regime: None,
    };
    let b = error_band(&r, cat(), &wide).unwrap();
    let all = r.holdout.unwrap();
    assert_eq!(b.scope, "all chips · any axis");
    assert_eq!(b.points, all.points);
    assert_eq!(b.median_pct, all.median_ape * 100.0);
    assert_eq!(b.p90_pct, all.p90_ape * 100.0);
}

#[test]
fn regimes_and_families_are_as_documented() {
    assert_eq!(Regime::of(Some(1.0)), Regime::Low);
    assert_eq!(Regime::of(Some(LOW_CONCURRENCY_MAX)), Regime::Low);
    assert_eq!(Regime::of(Some(LOW_CONCURRENCY_MAX + 1.0)), Regime::High);
    assert_eq!(Regime::of(None), Regime::High);
    assert_eq!(family("H200"), "NVIDIA Hopper");
    assert_eq!(family("groq-lpu"), "groq-lpu");
    // Every chip of a family is in the catalogue, once, and shares its vendor.
    let mut seen = std::collections::BTreeSet::new();
    for (name, ids) in FAMILIES {
        let vendors = set(ids.iter().map(|id| cat().chip(id).unwrap().vendor.clone()));
        assert_eq!(vendors.len(), 1, "{name}: {vendors:?}");
        assert!(name.starts_with(&vendors[0]), "{name}");
        for id in ids {
            assert!(seen.insert(*id), "{id} in two families");
        }
    }
    // Every metric has a class; the per-user speeds are interactivity.
    assert_eq!(Metric::DecodeTokS.class(), MetricClass::Interactivity);
    assert_eq!(Metric::TtftMs.class(), MetricClass::Ttft);
    // A median is in its mean's class.
    assert_eq!(Metric::TtftP50Ms.class(), MetricClass::Ttft);
    assert_eq!(Metric::TpotP50Ms.class(), MetricClass::Interactivity);
    assert_eq!(
        Metric::OutputTokSPerDecodeChip.class(),
        MetricClass::Throughput
    );
}
