//! One row of the validation table opened: the prediction the table scored, explained
//! as the explorer explains a point (formulas, inputs, sources, operator tables), the
//! chain behind the row's metric, and the bundle and command that reproduce it. The
//! link carries the open row as `vv.point`. Plain logic; `crate::ui` draws it.

use super::published_table;
use disagg_engine::bundle::{explain_bundle, Bundle};
use disagg_engine::disagg::explain::Explained;
use disagg_engine::validation::{point_bundle, BenchmarkPoint, Metric};
use disagg_engine::{Assumptions, Catalogue};

/// The link key of the open row, after the view's prefix: `vv.point=IMXA06c`.
pub const POINT_KEY: &str = "point";

/// A link's `vv.point` checked against the table: the id, or why it is ignored.
pub fn parse_point(value: &str) -> Result<String, String> {
    let id = value.trim();
    if published_table().is_some_and(|t| t.point.iter().any(|p| p.id == id)) {
        Ok(id.to_string())
    } else {
        Err("no row of the validation table has that id".into())
    }
}

/// The explain chain behind a row's metric, by the quantity the engine gives it (a
/// prefix, as the detail panel matches): the figure itself where the engine opens it,
/// else the one it is read from (a pool's or the whole deployment's rate from the
/// per-chip rate, one sequence's speed from the speed per user).
pub fn metric_chain(m: Metric) -> &'static str {
    match m {
        Metric::TtftMs | Metric::E2eMs => "TTFT",
        Metric::TtftP50Ms => "p90 TTFT",
        Metric::TpotMs | Metric::TpotP50Ms => "TPOT",
        Metric::TokSUser | Metric::DecodeTokS => "tok/s per user",
        Metric::OutputTokS
        | Metric::OutputTokSPerChip
        | Metric::TotalTokSPerChip
        | Metric::OutputTokSPerDecodeChip
        | Metric::DecodePoolOutputTokSPerChip
        | Metric::DecodeStepTokSPerChip => "output tok/s per chip",
        Metric::InputTokSPerChip
        | Metric::InputTokSPerPrefillChip
        | Metric::PrefillPoolInputTokSPerChip
        | Metric::PrefillTokS => "input tok/s per chip",
    }
}

/// The row `id` opened: its point, the prediction explained and the bundle that
/// reproduces it. A row read at an interactivity has neither (no one deployment).
#[derive(Debug, PartialEq)]
pub struct Opened {
    pub point: BenchmarkPoint,
    pub explained: Result<Explained, String>,
    pub bundle: Result<Bundle, String>,
}

/// Opens row `id` of the published table under the default assumptions, as the
/// page's validation job ran it; `None` when the table has no such row.
pub fn open(id: &str, catalogue: &Catalogue) -> Option<Opened> {
    let point = published_table()?
        .point
        .iter()
        .find(|p| p.id == id)?
        .clone();
    let bundle = point_bundle(catalogue, &point, &Assumptions::default());
    let explained = match &bundle {
        Ok(b) => explain_bundle(catalogue, b),
        Err(e) => Err(e.clone()),
    };
    Some(Opened {
        explained: explained.map_err(|e| e.to_string()),
        bundle: bundle.map_err(|e| e.to_string()),
        point,
    })
}

/// The command that prints the same explanation.
pub fn command(id: &str) -> String {
    format!("disagg validate --point {id} --explain")
}

/// The file the row's bundle downloads as.
pub fn bundle_file(id: &str) -> String {
    format!("disagg-{}.json", crate::export::file_part(id))
}

/// The run a row's id names: the id without its trailing letters, so that IMXA05a,
/// IMXA05b, IMXA05c and the medians IMXA05bp and IMXA05cp share `IMXA05` (MLP41-01, one
/// row of its run, is its own).
fn run_of(id: &str) -> &str {
    let stem = id.trim_end_matches(|c: char| c.is_ascii_lowercase());
    if stem.is_empty() {
        id
    } else {
        stem
    }
}

/// The rows of row `id`'s run whose bundles read into scenario `s` (the same deployment
/// under the same settings), as `report`, the page's validation run, scored them.
fn run_rows<'a>(
    id: &str,
    s: &crate::scenario::Scenario,
    report: &'a disagg_engine::validation::ValidationReport,
    catalogue: &Catalogue,
) -> Vec<&'a disagg_engine::validation::ValidationRow> {
    let run = run_of(id);
    report
        .rows
        .iter()
        .filter(|r| run_of(&r.point.id) == run)
        .filter(|r| {
            point_bundle(catalogue, &r.point, &Assumptions::default())
                .ok()
                .and_then(|b| crate::bundle::import(&b.to_json(), s, catalogue).ok())
                .is_some_and(|(opened, _)| opened == *s)
        })
        .collect()
}

/// A scored row in one line: "TPOT, ms: measured 7.95, predicted 7.9 (-0.6%), row IMXA05b
/// (calibration)".
fn measurement_line(r: &disagg_engine::validation::ValidationRow) -> String {
    format!(
        "{}: measured {}, predicted {} ({}), row {} ({})",
        r.point.metric.label(),
        crate::format::sig3(r.point.measured),
        r.predicted.map_or("none".into(), crate::format::sig3),
        super::signed_percent(r.error),
        r.point.id,
        super::role_label(r.point.role)
    )
}

/// The published measurements the explorer's scenario reproduces, opened from a
/// validation row: that row and the other rows of its run whose bundles read into the
/// same scenario, as the page's validation run scored them. Found once per sweep of the
/// scenario (`Page::explored_run`); the detail panel lists them and the chart marks them.
#[derive(Clone, Debug, PartialEq)]
pub struct ExploredRun(Vec<disagg_engine::validation::ValidationRow>);

impl ExploredRun {
    /// The run of row `id` as scenario `s` reproduces it (empty once the scenario is
    /// edited away from the row's).
    pub fn of(
        id: &str,
        s: &crate::scenario::Scenario,
        report: &disagg_engine::validation::ValidationReport,
        catalogue: &Catalogue,
    ) -> ExploredRun {
        ExploredRun(
            run_rows(id, s, report, catalogue)
                .into_iter()
                .cloned()
                .collect(),
        )
    }

    /// Each row as [`measurement_line`] writes it.
    pub fn lines(&self) -> Vec<String> {
        self.0.iter().map(measurement_line).collect()
    }

    /// The point the chart can mark: the run's measured speed per user (from a TPOT
    /// row, 1 / TPOT, or a tok/s-per-user row) and output per chip (from a per-chip row,
    /// or a whole deployment's output over its chips), where the run gives both.
    pub fn mark(&self) -> Option<crate::chart::MeasuredMark> {
        let speed = self.0.iter().find_map(|r| match r.point.metric {
            Metric::TpotMs if r.point.measured > 0.0 => Some((1000.0 / r.point.measured, r)),
            Metric::TokSUser => Some((r.point.measured, r)),
            _ => None,
        })?;
        let output = self.0.iter().find_map(|r| match r.point.metric {
            Metric::OutputTokSPerChip => Some((r.point.measured, r)),
            Metric::OutputTokS if r.point.chips > 0 => {
                Some((r.point.measured / r.point.chips as f64, r))
            }
            _ => None,
        })?;
        Some(crate::chart::MeasuredMark {
            x: speed.0,
            y: output.0,
            rows: format!("{}, {}", output.1.point.id, speed.1.point.id),
        })
    }
}

/// The other rows of an opened row's run with the same deployment and settings (a
/// run's throughput, TPOT and TTFT rows, its medians), for the row's panel.
pub fn siblings(
    o: &Opened,
    report: &disagg_engine::validation::ValidationReport,
    catalogue: &Catalogue,
) -> Vec<String> {
    let Ok(b) = &o.bundle else {
        return Vec::new();
    };
    let Ok((s, _)) = crate::bundle::import(
        &b.to_json(),
        &crate::scenario::Scenario::default(),
        catalogue,
    ) else {
        return Vec::new();
    };
    run_rows(&o.point.id, &s, report, catalogue)
        .into_iter()
        .filter(|r| r.point.id != o.point.id)
        .map(measurement_line)
        .collect()
}
