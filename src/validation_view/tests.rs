use super::scatter::{square_range, Scatter, BAND, MIN_SPAN};
use super::sort::{sorted, Column, Sort};
use super::*;
use crate::scenario::{link_query, Scenario};
use disagg_engine::validation::{run, BenchmarkTable};
use disagg_engine::Assumptions;
use std::sync::OnceLock;

/// The report the page's worker computes: `validation::run` on the builtin table.
fn report() -> &'static ValidationReport {
    static REPORT: OnceLock<ValidationReport> = OnceLock::new();
    REPORT.get_or_init(|| {
        run(
            Catalogue::builtin(),
            &BenchmarkTable::builtin().unwrap(),
            &Assumptions::default(),
        )
    })
}

fn cat() -> &'static Catalogue {
    Catalogue::builtin()
}

#[test]
fn without_filters_every_mapped_point_is_a_row() {
    let table = BenchmarkTable::builtin().unwrap();
    let rows = kept(report(), &Filters::default(), cat());
    assert_eq!(rows.len(), table.point.len());
    for (row, point) in rows.iter().zip(&table.point) {
        let t = TableRow::of(row, cat());
        assert_eq!(t.id, point.id);
        assert_eq!(t.framework, point.framework.id());
        assert_eq!(t.role, role_label(point.role));
        // The signed error as `disagg validate` prints it.
        let cli = row.error.map(|e| format!("{:+.1}%", e * 100.0));
        assert_eq!(
            Some(t.error.clone()),
            cli.or(Some(MISSING.into())),
            "{}",
            t.id
        );
        assert!(
            !t.chips.is_empty() && t.chips.contains(" × "),
            "{}",
            t.chips
        );
    }
}

#[test]
fn each_filter_keeps_exactly_its_rows() {
    let r = report();
    for key in FilterKey::ALL {
        let options = options(r, key, cat());
        assert!(options.len() >= 2, "{key:?}: {options:?}");
        let mut total = 0;
        for (value, _) in &options {
            let mut f = Filters::default();
            f.set(key, value, cat()).unwrap();
            assert_eq!(f.value(key).as_deref(), Some(value.as_str()));
            let rows = kept(r, &f, cat());
            // Counted independently of `keeps`: by the point's own field.
            let expected = r
                .rows
                .iter()
                .filter(|x| {
                    let p = &x.point;
                    match key {
                        FilterKey::Vendor => vendor_of(p, cat()) == *value,
                        FilterKey::Axis => p.axis.unwrap_or(Axis::Aggregated).id() == value,
                        FilterKey::Metric => p.metric.id() == *value,
                        FilterKey::Framework => p.framework.id() == value,
                        FilterKey::Role => p.role.id() == value,
                    }
                })
                .count();
            assert_eq!(rows.len(), expected, "{key:?}={value}");
            assert!(expected > 0);
            total += expected;
        }
        // The options partition the table.
        assert_eq!(total, r.rows.len(), "{key:?}");
    }
    // Two filters: their intersection.
    let mut f = Filters::default();
    f.set(FilterKey::Role, "holdout", cat()).unwrap();
    f.set(FilterKey::Vendor, "nvidia", cat()).unwrap();
    assert_eq!(f.vendor.as_deref(), Some("NVIDIA"));
    let both = kept(report(), &f, cat());
    assert!(both
        .iter()
        .all(|x| x.point.role == Role::Holdout && vendor_of(&x.point, cat()) == "NVIDIA"));
    assert!(!both.is_empty());
    // Emptying a filter turns it off.
    f.set(FilterKey::Role, "", cat()).unwrap();
    assert_eq!(f.role, None);
}

#[test]
fn a_value_outside_a_filter_is_refused_and_says_why() {
    let mut f = Filters::default();
    for (key, bad, why) in [
        (FilterKey::Vendor, "Acme", "vendor"),
        (FilterKey::Axis, "sideways", "axis"),
        (FilterKey::Metric, "joy", "metric"),
        (FilterKey::Framework, "tgi", "framework"),
        (FilterKey::Role, "both", "role"),
    ] {
        let e = f.set(key, bad, cat()).unwrap_err();
        assert!(e.contains(why), "{key:?}: {e}");
    }
    assert_eq!(f, Filters::default());
}

#[test]
fn the_summary_lines_are_those_of_disagg_validate() {
    let r = report();
    let all = kept(r, &Filters::default(), cat());
    // The page's own count over the rows agrees with the engine's report...
    assert_eq!(by_role(&all), (r.calibration, r.holdout));
    // ...and the lines quote the report in the engine's one wording, which the CLI
    // prints after the set's name.
    let lines = summary_lines(r, &all, false);
    assert_eq!(lines.len(), 5);
    assert!(
        lines[0].ends_with(&r.calibration.unwrap().line()),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].ends_with(&r.holdout.unwrap().line()),
        "{}",
        lines[1]
    );
    assert!(lines[2].ends_with(&r.holdout_ttft.unwrap().line()));
    assert!(lines[3].ends_with(&r.holdout_disaggregated.unwrap().line()));
    assert!(lines[4].ends_with(&r.holdout_median_ttft.unwrap().line()));
    // With a filter, a sixth line summarises the rows shown.
    let f = Filters {
        role: Some(Role::Holdout),
        ..Filters::default()
    };
    let shown = kept(r, &f, cat());
    let lines = summary_lines(r, &shown, true);
    assert!(
        lines[5].contains(&format!("Rows shown ({})", shown.len()))
            && lines[5].contains("calibration: no points")
            && lines[5].contains(&format!("hold-out: {}", r.holdout.unwrap().line()))
            && lines[5].ends_with(&format!(
                "median TTFT rows: {}",
                r.holdout_median_ttft.unwrap().line()
            )),
        "{}",
        lines[5]
    );
}

#[test]
fn the_view_and_its_filters_survive_the_link() {
    let mut filters = Filters::default();
    filters.set(FilterKey::Vendor, "d-Matrix", cat()).unwrap();
    filters.set(FilterKey::Axis, "pd", cat()).unwrap();
    filters.set(FilterKey::Metric, "tpot_ms", cat()).unwrap();
    filters
        .set(FilterKey::Framework, "dynamo-trtllm", cat())
        .unwrap();
    filters.set(FilterKey::Role, "calibration", cat()).unwrap();
    let state = ViewState {
        view: View::Validation,
        filters,
        sort: Some(Sort {
            column: Column::Error,
            descending: true,
        }),
        ..ViewState::default()
    };
    let scenario = Scenario::default();
    let link = format!("{}&{}", link_query(&scenario, Some(3)), state.to_query());
    let (back, rest, notices) = split_query(&format!("?{link}"), cat());
    assert_eq!(back, state);
    assert!(notices.is_empty(), "{notices:?}");
    assert_eq!(rest, link_query(&scenario, Some(3)));
    let (s, scenario_notices) = Scenario::from_query(&rest, cat());
    assert_eq!((s, scenario_notices), (scenario, Vec::new()));
    // The default view adds nothing to a link.
    assert_eq!(ViewState::default().to_query(), "");
    assert_eq!(
        split_query("view=validation", cat()),
        (
            ViewState {
                view: View::Validation,
                filters: Filters::default(),
                sort: None,
                ..ViewState::default()
            },
            String::new(),
            Vec::new()
        )
    );
}

#[test]
fn a_bad_view_link_is_ignored_with_notices() {
    let (state, rest, notices) = split_query(
        "v=1&view=charts&vv.role=everyone&vv.colour=red&isl=100",
        cat(),
    );
    assert_eq!(state, ViewState::default());
    assert_eq!(rest, "v=1&isl=100");
    assert_eq!(notices.len(), 3, "{notices:?}");
    assert!(notices[0].contains("view=\"charts\""), "{notices:?}");
    assert!(notices[1].contains("a role is calibration or holdout"));
    assert!(notices[2].contains("vv.colour"));
}

#[test]
fn a_source_links_where_it_names_an_address() {
    assert_eq!(
        source_url("SemiAnalysis InferenceMAX snapshot (github.com/SemiAnalysisAI/InferenceX-app test fixture)").as_deref(),
        Some("https://github.com/SemiAnalysisAI/InferenceX-app")
    );
    assert_eq!(
        source_url("Vultr cookbook (docs.vultr.com/inference-cookbook/cuda/x)").as_deref(),
        Some("https://docs.vultr.com/inference-cookbook/cuda/x")
    );
    assert_eq!(
        source_url("see https://example.org/a;").as_deref(),
        Some("https://example.org/a")
    );
    for text in [
        "lm-sys/lm-sys.github.io blog/2025-07-17-mtp.md",
        "Step-3 system report, arXiv 2507.19427 (abstract)",
        "closed/NVIDIA/results/B200_TRT/run_1/summary.txt",
        "Oracle Cloud blog (vLLM benchmark_throughput.py)",
    ] {
        assert_eq!(source_url(text), None, "{text}");
    }
    // Most of the table's sources name one.
    let rows = kept(report(), &Filters::default(), cat());
    let linked = rows
        .iter()
        .filter(|r| TableRow::of(r, cat()).source_url.is_some())
        .count();
    assert!(linked * 2 > rows.len(), "{linked} of {}", rows.len());
}

#[test]
fn the_range_is_square_padded_and_at_least_a_decade() {
    // A quarter's room at each end: 2..50 -> 1.6..62.5.
    let r = square_range([2.0, 50.0, f64::NAN, -1.0]);
    assert!(
        (r.lo - 1.6).abs() < 1e-12 && (r.hi - 62.5).abs() < 1e-12,
        "{r:?}"
    );
    // Too narrow: widened about the geometric middle to one decade exactly.
    let r = square_range([10.0, 20.0]);
    let middle = (8.0f64 * 25.0).sqrt();
    assert!((r.lo - middle / 10f64.sqrt()).abs() < 1e-9, "{r:?}");
    assert!((r.hi / r.lo - MIN_SPAN).abs() < 1e-9, "{r:?}");
    assert_eq!(square_range([]).lo, 1.0);
}

/// Twice the signed area of a polygon (shoelace).
fn area(points: &[(f64, f64)]) -> f64 {
    let n = points.len();
    (0..n)
        .map(|i| {
            let (a, b) = (points[i], points[(i + 1) % n]);
            a.0 * b.1 - b.0 * a.1
        })
        .sum::<f64>()
        / 2.0
}

#[test]
fn the_band_is_the_twenty_percent_hexagon_of_the_square() {
    let rows = kept(report(), &Filters::default(), cat());
    let s = Scatter::new(&rows);
    let (lo, hi) = (s.range.lo, s.range.hi);
    // Every drawn value inside the range, the range a decade or more.
    assert!(s
        .points
        .iter()
        .all(|p| s.range.contains(p.measured) && s.range.contains(p.predicted)));
    assert!(hi / lo >= MIN_SPAN - 1e-9);
    // Every vertex on the square's edge and on y = x or a band edge.
    let band = s.band();
    for (x, y) in band {
        let on_edge = [x, y]
            .iter()
            .any(|v| (v / lo - 1.0).abs() < 1e-12 || (v / hi - 1.0).abs() < 1e-12);
        let ratio = y / x;
        let on_line = [1.0 - BAND, 1.0, 1.0 + BAND]
            .iter()
            .any(|k| (ratio - k).abs() < 1e-12);
        assert!(on_edge && on_line, "({x}, {y})");
        assert!(s.range.contains(x * (1.0 - 1e-12)) || s.range.contains(x));
    }
    // In log space: the square of side L less the two corner triangles the band
    // leaves, of legs L + log(1 - b) and L - log(1 + b); counter-clockwise.
    let log: Vec<(f64, f64)> = band.iter().map(|&(x, y)| (x.log10(), y.log10())).collect();
    let side = (hi / lo).log10();
    let (c1, c2) = ((1.0 - BAND).log10(), (1.0 + BAND).log10());
    let expected = side * side - (side + c1).powi(2) / 2.0 - (side - c2).powi(2) / 2.0;
    assert!(
        (area(&log) - expected).abs() < 1e-9,
        "{} vs {expected}",
        area(&log)
    );
    assert_eq!(s.diagonal(), [(lo, lo), (hi, hi)]);
    // The points inside the band are those the engine puts within 20%.
    let within = rows
        .iter()
        .filter(|r| {
            r.predicted.is_some_and(|v| v > 0.0) && r.error.is_some_and(|e| e.abs() <= BAND)
        })
        .count();
    assert_eq!(s.in_band(), within);
}

#[test]
fn the_scatter_in_words_counts_its_points() {
    let f = Filters {
        role: Some(Role::Holdout),
        ..Filters::default()
    };
    let rows = kept(report(), &f, cat());
    let s = Scatter::new(&rows);
    let text = s.describe();
    let n = rows.iter().filter(|r| r.predicted.is_some()).count();
    assert!(
        text.contains(&format!("for {n} published points (0 calibration")),
        "{text}"
    );
    assert!(
        text.contains(&format!("holds {} of the {n} points", s.in_band())),
        "{text}"
    );
    assert!(text.contains("Furthest off: "), "{text}");
    assert!(Scatter::new(&[]).describe().contains("no point"));
}

#[test]
fn a_column_sorts_the_rows_and_keeps_ties_and_missing_values_in_place() {
    let r = report();
    let all = kept(r, &Filters::default(), cat());
    let by = |column, descending| {
        sorted(all.clone(), Some(Sort { column, descending }), cat())
            .into_iter()
            .map(|(row, cells)| (row.clone(), cells))
            .collect::<Vec<_>>()
    };
    // The error column: signed errors rising, then falling; rows without one last
    // either way.
    for descending in [false, true] {
        let rows = by(Column::Error, descending);
        assert_eq!(rows.len(), all.len());
        let errors: Vec<Option<f64>> = rows.iter().map(|(r, _)| r.error).collect();
        let known = errors.iter().take_while(|e| e.is_some()).count();
        assert!(errors[known..].iter().all(Option::is_none), "missing last");
        for w in errors[..known].windows(2) {
            let (a, b) = (w[0].unwrap(), w[1].unwrap());
            assert!(if descending { a >= b } else { a <= b }, "{a} then {b}");
        }
        // The cells are the rows' own.
        for (row, cells) in &rows {
            assert_eq!(cells, &TableRow::of(row, cat()));
        }
    }
    // The measured value, as numbers (not as text: "9.5" after "10" would be text).
    let measured: Vec<f64> = by(Column::Measured, false)
        .iter()
        .map(|(r, _)| r.point.measured)
        .collect();
    assert!(measured.windows(2).all(|w| w[0] <= w[1]));
    // A text column, ignoring case; ties (one role) keep the table's order.
    let rows = by(Column::Role, false);
    let roles: Vec<&str> = rows.iter().map(|(_, c)| c.role).collect();
    assert!(roles.windows(2).all(|w| w[0] <= w[1]), "{roles:?}");
    let calibration: Vec<&str> = all
        .iter()
        .filter(|x| x.point.role == Role::Calibration)
        .map(|x| x.point.id.as_str())
        .collect();
    let first: Vec<&str> = rows
        .iter()
        .take(calibration.len())
        .map(|(r, _)| r.point.id.as_str())
        .collect();
    assert_eq!(first, calibration);
    // Without an order, the table's own.
    let ids: Vec<&str> = sorted(all.clone(), None, cat())
        .into_iter()
        .map(|(r, _)| r.point.id.as_str())
        .collect();
    let table: Vec<&str> = all.iter().map(|x| x.point.id.as_str()).collect();
    assert_eq!(ids, table);
}

#[test]
fn a_heading_click_cycles_the_order_and_the_link_carries_it() {
    let asc = Some(Sort {
        column: Column::Model,
        descending: false,
    });
    let desc = Some(Sort {
        column: Column::Model,
        descending: true,
    });
    assert_eq!(Sort::after_click(None, Column::Model), asc);
    assert_eq!(Sort::after_click(asc, Column::Model), desc);
    assert_eq!(Sort::after_click(desc, Column::Model), None);
    // Another column starts again from ascending.
    assert_eq!(
        Sort::after_click(desc, Column::Error),
        Some(Sort {
            column: Column::Error,
            descending: false
        })
    );
    assert_eq!(Sort::aria(asc, Column::Model), "ascending");
    assert_eq!(Sort::aria(desc, Column::Model), "descending");
    assert_eq!(Sort::aria(desc, Column::Id), "none");
    // Every column round-trips through the link, either way.
    for column in Column::ALL {
        for descending in [false, true] {
            let s = Sort { column, descending };
            assert_eq!(Sort::parse(&s.to_link()), Ok(s));
            let state = ViewState {
                view: View::Validation,
                sort: Some(s),
                ..ViewState::default()
            };
            let (back, _, notices) = split_query(&state.to_query(), cat());
            assert_eq!((back, notices), (state, Vec::new()));
        }
    }
    assert_eq!(
        split_query("vv.sort=-error", cat()).0.to_query(),
        "vv.sort=-error"
    );
    // An unknown column is ignored with a notice naming the columns.
    let (state, _, notices) = split_query("view=validation&vv.sort=colour", cat());
    assert_eq!(state.sort, None);
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert!(
        notices[0].contains("vv.sort") && notices[0].contains("measured, predicted, error"),
        "{notices:?}"
    );
}

#[test]
fn a_row_opens_by_its_link_key_and_a_wrong_id_is_named() {
    let (state, rest, notices) =
        split_query("view=validation&vv.point=IMXA06c&model=llama-3.1-8b", cat());
    assert_eq!(state.point.as_deref(), Some("IMXA06c"));
    assert_eq!(rest, "model=llama-3.1-8b");
    assert!(notices.is_empty(), "{notices:?}");
    // The link the page writes opens the same row.
    let (back, _, _) = split_query(&state.to_query(), cat());
    assert_eq!(back, state);
    let (state, _, notices) = split_query("view=validation&vv.point=NOPE-1", cat());
    assert_eq!(state.point, None);
    assert!(
        notices.len() == 1 && notices[0].contains("vv.point") && notices[0].contains("NOPE-1"),
        "{notices:?}"
    );
}

#[test]
fn every_opened_row_explains_the_prediction_the_table_scores() {
    use super::opened::{metric_chain, open};
    let mut opened = 0;
    for row in &report().rows {
        let p = &row.point;
        let o = open(&p.id, cat()).unwrap();
        assert_eq!(o.point, *p);
        match (&o.explained, row.predicted, p.at) {
            // A row read at an interactivity has no one deployment to open.
            (Err(why), _, Some(_)) => assert!(why.contains("interactivity"), "{}: {why}", p.id),
            (Ok(e), Some(predicted), None) => {
                let w = p.workload();
                let value = p.metric.read(&e.point, w.isl as f64, w.osl as f64).unwrap();
                assert_eq!(value.to_bits(), predicted.to_bits(), "{}", p.id);
                // The chain the panel opens first exists for every metric.
                let q = metric_chain(p.metric);
                assert!(
                    crate::chains::by_quantity(&e.chains, q).is_some(),
                    "{}: no chain {q:?}",
                    p.id
                );
                assert!(o.bundle.is_ok(), "{}", p.id);
                opened += 1;
            }
            (Err(why), None, None) => assert!(row.problem.is_some(), "{}: {why}", p.id),
            (got, predicted, at) => panic!(
                "{}: opened {:?} against predicted {predicted:?}, at {at:?}",
                p.id,
                got.as_ref().err()
            ),
        }
    }
    assert!(opened > 400, "{opened}");
    assert!(open("NOPE-1", cat()).is_none());
}

#[test]
fn a_rows_bundle_file_and_command_name_it() {
    use super::opened::{bundle_file, command};
    assert_eq!(bundle_file("MLP41-01a"), "disagg-MLP41-01a.json");
    assert_eq!(bundle_file("a/b c"), "disagg-a-b-c.json");
    assert_eq!(
        command("IMXA06c"),
        "disagg validate --point IMXA06c --explain"
    );
}

/// A row explored in the explorer names its run's measurements beside the point: the
/// rows of its run whose bundles open to the same scenario, with measured, predicted
/// and error as the table scores them; none once the scenario is edited.
#[test]
fn an_explored_row_names_its_runs_measurements() {
    use super::opened::{open, ExploredRun};
    let measurements = |id: &str, s: &Scenario, report: &ValidationReport, cat: &Catalogue| {
        ExploredRun::of(id, s, report, cat).lines()
    };
    let cat = Catalogue::builtin();
    let report = report();
    let scenario_of = |id: &str| {
        let b = open(id, cat).unwrap().bundle.unwrap();
        crate::bundle::import(&b.to_json(), &crate::scenario::Scenario::default(), cat)
            .unwrap()
            .0
    };
    let s = scenario_of("IMXA05b");
    let lines = measurements("IMXA05b", &s, report, cat);
    let row = report
        .rows
        .iter()
        .find(|r| r.point.id == "IMXA05b")
        .unwrap();
    let tpot = format!(
        "TPOT, ms: measured {}, predicted {} ({}), row IMXA05b (calibration)",
        crate::format::sig3(row.point.measured),
        crate::format::sig3(row.predicted.unwrap()),
        super::signed_percent(row.error)
    );
    assert!(lines.contains(&tpot), "{lines:?}");
    // The run's throughput and TTFT rows share the deployment and settings.
    for id in ["IMXA05a", "IMXA05c"] {
        assert!(
            lines.iter().any(|l| l.contains(&format!("row {id} "))),
            "{id}: {lines:?}"
        );
    }
    assert!(lines.iter().all(|l| l.contains("row IMXA05")), "{lines:?}");
    // One row of its run.
    let s = scenario_of("MLP41-01");
    assert_eq!(measurements("MLP41-01", &s, report, cat).len(), 1);
    // Edited away from the row's scenario.
    let mut edited = s.clone();
    edited.apply("isl", "4096", cat).unwrap();
    assert!(measurements("MLP41-01", &edited, report, cat).is_empty());
}

/// The breakdown groups the rows the filters keep by what the control names, with the
/// engine's figures; `vv.by` travels in the link, and a bad one is ignored with a notice.
#[test]
fn the_breakdown_groups_the_kept_rows_and_travels_in_the_link() {
    use super::breakdown::{parse, rows};
    use disagg_engine::validation::{breakdown, GroupBy};
    let report = report();
    let cat = Catalogue::builtin();
    let all = rows(&report.rows, GroupBy::Framework);
    let engine = breakdown(&report.rows, &[GroupBy::Framework]);
    assert_eq!(all.len(), engine.len());
    for (r, g) in all.iter().zip(&engine) {
        assert_eq!(r.name, g.key[0]);
        assert_eq!(r.cells[2], g.holdout.map_or(0, |s| s.points).to_string());
        assert_eq!(r.cells[6], g.holdout_within_target.to_string());
    }
    // Filtered to AMD's chips, grouped by chip: AMD's chips only.
    let (state, _, notices) = split_query("view=validation&vv.vendor=AMD&vv.by=chip", cat);
    assert!(notices.is_empty(), "{notices:?}");
    assert_eq!(state.by, Some(GroupBy::Chip));
    let amd = rows(kept(report, &state.filters, cat), GroupBy::Chip);
    assert!(
        !amd.is_empty() && amd.iter().all(|r| r.name.starts_with("mi")),
        "{amd:?}"
    );
    assert!(state.to_query().contains("vv.by=chip"));
    let (state, _, notices) = split_query("view=validation&vv.by=vendor", cat);
    assert_eq!(state.by, None);
    assert!(
        notices[0].contains("vv.by is one of framework"),
        "{notices:?}"
    );
    assert!(parse("block").is_ok());
}

/// An opened row names the other rows of its run that share its deployment and
/// settings (IMXA06c, a TTFT row: its run's throughput and TPOT rows and medians), and
/// none of another run.
#[test]
fn an_opened_row_names_its_runs_other_rows() {
    use super::opened::{open, siblings};
    let cat = Catalogue::builtin();
    let o = open("IMXA06c", cat).unwrap();
    let lines = siblings(&o, report(), cat);
    assert!(!lines.is_empty());
    assert!(
        lines.iter().any(|l| l.contains("row IMXA06a ")),
        "{lines:?}"
    );
    assert!(
        lines.iter().any(|l| l.contains("row IMXA06b ")),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .all(|l| l.contains("row IMXA06") && !l.contains("row IMXA06c ")),
        "{lines:?}"
    );
    // A run of one row has none.
    assert!(siblings(&open("MLP41-01", cat).unwrap(), report(), cat).is_empty());
}

/// The chart's cross for an explored row: its run's measured speed per user (1 / TPOT)
/// and output per chip, where the run gives both (IMXA05: a per-chip row and a TPOT
/// row); none for a run of one throughput row (MLP41-01), nor once edited away.
#[test]
fn an_explored_rows_run_gives_the_charts_measured_cross() {
    use super::opened::{open, ExploredRun};
    let measured_mark = |id: &str, s: &Scenario, report: &ValidationReport, cat: &Catalogue| {
        ExploredRun::of(id, s, report, cat).mark()
    };
    let cat = Catalogue::builtin();
    let scenario_of = |id: &str| {
        let b = open(id, cat).unwrap().bundle.unwrap();
        crate::bundle::import(&b.to_json(), &Scenario::default(), cat)
            .unwrap()
            .0
    };
    let measured = |id: &str| {
        report()
            .rows
            .iter()
            .find(|r| r.point.id == id)
            .unwrap()
            .point
            .measured
    };
    let s = scenario_of("IMXA05b");
    let mark = measured_mark("IMXA05b", &s, report(), cat).unwrap();
    assert_eq!(mark.x, 1000.0 / measured("IMXA05b"));
    assert_eq!(mark.y, measured("IMXA05a"));
    assert_eq!(mark.rows, "IMXA05a, IMXA05b");
    let s = scenario_of("MLP41-01");
    assert_eq!(measured_mark("MLP41-01", &s, report(), cat), None);
    let mut edited = scenario_of("IMXA05b");
    edited.apply("osl", "2048", cat).unwrap();
    assert_eq!(measured_mark("IMXA05b", &edited, report(), cat), None);
}
