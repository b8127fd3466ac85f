//! The project's validation table: published measurements, each mapped to a scenario,
//! and the error of the model against them.
//!
//! Every point is tagged `calibration` (the efficiencies in the catalogue may have been
//! fitted to it) or `holdout` (never used to fit anything). Errors are reported for the
//! two sets separately, so that the held-out error is an honest estimate of how far a
//! new prediction can be off.
//!
//! The table's rows and their mapping are in [`table`]; this file runs them.

mod band;
mod breakdown;
mod reproduce;
mod table;

pub use band::*;
pub use breakdown::{breakdown, Group, GroupBy, Only, HOLDOUT_TARGET};
pub use reproduce::{explain_point, point_bundle};
pub use table::*;

use crate::assumptions::Assumptions;
use crate::bundle::evaluate_bundle;
use crate::catalogue::Catalogue;
use crate::disagg::DeploymentPoint;
use crate::error::{EngineError, Result};
use crate::parallel::Parallelism;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ValidationRow {
    pub point: BenchmarkPoint,
    pub predicted: Option<f64>,
    /// `(predicted - measured) / measured`.
    pub error: Option<f64>,
    pub parallelism: Option<Parallelism>,
    pub problem: Option<String>,
    /// For a point read at an interactivity: the (interpolated) batch it was read at.
    pub read_at_batch: Option<f64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorSummary {
    pub points: usize,
    /// Median absolute percentage error.
    pub median_ape: f64,
    /// 90th-percentile absolute percentage error.
    pub p90_ape: f64,
}

impl ErrorSummary {
    /// "18 points: median |error| 3.6%, p90 |error| 51.2%": the one wording of a
    /// summary, which `disagg validate` prints and the page shows.
    pub fn line(&self) -> String {
        format!(
            "{} points: median |error| {:.1}%, p90 |error| {:.1}%",
            self.points,
            self.median_ape * 100.0,
            self.p90_ape * 100.0
        )
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ValidationReport {
    pub rows: Vec<ValidationRow>,
    pub calibration: Option<ErrorSummary>,
    pub holdout: Option<ErrorSummary>,
    /// The hold-out subsets issue 22 sets targets for: its mean TTFT rows, and its
    /// disaggregated rows ([`BenchmarkPoint::disaggregated`]). These sets, like the two
    /// above, count each run's mean rows only ([`Metric::is_median`]).
    #[serde(default)]
    pub holdout_ttft: Option<ErrorSummary>,
    #[serde(default)]
    pub holdout_disaggregated: Option<ErrorSummary>,
    /// The hold-out rows that score a run's published median TTFT against the engine's
    /// p50, on their own (the median TPOT rows are left out: the engine's p50 TPOT is its
    /// mean, so they repeat their mean rows).
    #[serde(default)]
    pub holdout_median_ttft: Option<ErrorSummary>,
}

/// The report error bands read: the built-in table at the default assumptions (a band
/// measures the model as `disagg validate` runs it, `band.rs`).
pub fn band_report(catalogue: &Catalogue) -> Result<ValidationReport> {
    Ok(run(
        catalogue,
        &BenchmarkTable::builtin()?,
        &Assumptions::default(),
    ))
}

/// Runs every point of `table`.
pub fn run(
    catalogue: &Catalogue,
    table: &BenchmarkTable,
    assumptions: &Assumptions,
) -> ValidationReport {
    let rows: Vec<ValidationRow> = table
        .point
        .iter()
        .map(|point| match point.at {
            Some(target) => targeted_row(catalogue, point, target, assumptions),
            None => match evaluate_point(catalogue, point, assumptions) {
                Ok(e) => row(point, read(&e, point), parallelism(&e), problem(&e), None),
                Err(e) => row(point, None, None, Some(e.to_string()), None),
            },
        })
        .collect();
    ValidationReport::of_rows(rows)
}

impl ValidationReport {
    /// The report of `rows`: the headline sets summarised over them (the one place the
    /// sets are counted, for the whole table and for any part of it).
    pub fn of_rows(rows: Vec<ValidationRow>) -> ValidationReport {
        // The median TTFT rows are a set of their own, outside the mean rows' sets.
        let holdout_median_ttft = summarize(
            rows.iter()
                .filter(|r| r.point.role == Role::Holdout && r.point.metric == Metric::TtftP50Ms)
                .filter_map(|r| r.error),
        );
        ValidationReport {
            calibration: mean_set(&rows, Role::Calibration, |_| true),
            holdout: mean_set(&rows, Role::Holdout, |_| true),
            holdout_ttft: mean_set(&rows, Role::Holdout, |p| p.metric.is_ttft()),
            holdout_disaggregated: mean_set(&rows, Role::Holdout, BenchmarkPoint::disaggregated),
            holdout_median_ttft,
            rows,
        }
    }

    /// The report of the rows that every filter keeps (`GroupBy::only`).
    pub fn only(self, filters: &[Only]) -> ValidationReport {
        ValidationReport::of_rows(
            self.rows
                .into_iter()
                .filter(|r| filters.iter().all(|f| f.keeps(&r.point)))
                .collect(),
        )
    }
}

/// The `role` rows of `rows` that count towards a set: each run's mean rows only, since
/// a run's median row is its mean row's sibling and would count that run twice
/// ([`Metric::is_median`]).
pub fn mean_rows<'a>(
    rows: impl IntoIterator<Item = &'a ValidationRow>,
    role: Role,
) -> impl Iterator<Item = &'a ValidationRow> {
    rows.into_iter()
        .filter(move |r| r.point.role == role && !r.point.metric.is_median())
}

/// The errors of the [`mean_rows`] of `rows` in `role` that `keep` names: how the
/// report's sets count, and the page's sets of the rows it shows.
pub fn mean_set<'a>(
    rows: impl IntoIterator<Item = &'a ValidationRow>,
    role: Role,
    keep: impl Fn(&BenchmarkPoint) -> bool,
) -> Option<ErrorSummary> {
    summarize(
        mean_rows(rows, role)
            .filter(|r| keep(&r.point))
            .filter_map(|r| r.error),
    )
}

fn row(
    point: &BenchmarkPoint,
    predicted: Option<f64>,
    parallelism: Option<Parallelism>,
    problem: Option<String>,
    read_at_batch: Option<f64>,
) -> ValidationRow {
    let usable = predicted.filter(|v| v.is_finite() && point.measured > 0.0);
    ValidationRow {
        point: point.clone(),
        predicted: usable,
        error: usable.map(|v| (v - point.measured) / point.measured),
        parallelism,
        problem,
        read_at_batch,
    }
}

/// Evaluates one benchmark point on its axis, with the layouts it states (the
/// planner's best where an aggregated point leaves them open) and its batch (the
/// largest that fits where it gives none), through the bundle that reproduces it
/// ([`point_bundle`]): the same inputs `disagg predict --bundle` and the page run.
pub fn evaluate_point(
    catalogue: &Catalogue,
    point: &BenchmarkPoint,
    assumptions: &Assumptions,
) -> Result<DeploymentPoint> {
    let (bundle, planned) = reproduce::planned(catalogue, point, assumptions)?;
    match bundle.workload.rate {
        // An open loop: the layout planned as for the largest batch, the rate picks
        // the concurrency.
        Some(_) => evaluate_bundle(catalogue, &bundle),
        None => Ok(planned),
    }
}

/// The point's metric read off its evaluation; `None` when it is not finite.
fn value(e: &DeploymentPoint, metric: Metric, point: &BenchmarkPoint) -> Option<f64> {
    metric
        .read(e, point.workload().isl as f64, point.workload().osl as f64)
        .filter(|v| v.is_finite())
}

fn read(e: &DeploymentPoint, point: &BenchmarkPoint) -> Option<f64> {
    value(e, point.metric, point)
}

/// The first pool's layout, for the report.
fn parallelism(e: &DeploymentPoint) -> Option<Parallelism> {
    e.pools.first().map(|x| x.parallelism)
}

/// Why the evaluated deployment does not fit, if it does not.
fn problem(e: &DeploymentPoint) -> Option<String> {
    if e.fits {
        None
    } else {
        e.reason.clone()
    }
}

/// Reads `point` at the batch where the model's per-user speed meets `target`:
/// bisection over whole batches (the speed falls as the batch grows), then linear
/// interpolation of the metric between the two batches around the target.
fn targeted_row(
    catalogue: &Catalogue,
    point: &BenchmarkPoint,
    target: InteractivityTarget,
    assumptions: &Assumptions,
) -> ValidationRow {
    let fail = |problem: String| row(point, None, None, Some(problem), None);
    if point.batch.is_some() {
        return fail("a point read at an interactivity cannot also fix its batch".into());
    }
    if !matches!(target.metric, Metric::TokSUser | Metric::DecodeTokS) {
        return fail(format!(
            "an interactivity target is a speed per user (tok_s_user or decode_tok_s), not {:?}",
            target.metric
        ));
    }
    if !(target.value.is_finite() && target.value > 0.0) {
        return fail(format!(
            "interactivity target {} is not positive",
            target.value
        ));
    }
    let at = |batch: u32| -> Result<(f64, f64, DeploymentPoint)> {
        let fixed = BenchmarkPoint {
            batch: Some(batch),
            ..point.clone()
        };
        let e = evaluate_point(catalogue, &fixed, assumptions)?;
        match (value(&e, target.metric, &fixed), read(&e, &fixed)) {
            (Some(speed), Some(value)) => Ok((speed, value, e)),
            _ => Err(EngineError::InvalidInput(format!(
                "{:?} or {:?} has no value on this axis",
                target.metric, point.metric
            ))),
        }
    };
    let largest = match evaluate_point(catalogue, point, assumptions) {
        Ok(e) => e.figures.batch.max(1),
        Err(e) => return fail(e.to_string()),
    };
    let (mut lo, mut hi) = (1u32, largest);
    let mut low = match at(lo) {
        Ok(r) => r,
        Err(e) => return fail(e.to_string()),
    };
    if low.0 < target.value {
        return fail(format!(
            "the model reaches only {:.1} at batch 1, short of the target {}",
            low.0, target.value
        ));
    }
    let mut high = match at(hi) {
        Ok(r) => r,
        Err(e) => return fail(e.to_string()),
    };
    if high.0 >= target.value {
        // Even the largest batch that fits is faster than the target: read it there.
        let (_, value, e) = high;
        return row(
            point,
            Some(value),
            parallelism(&e),
            problem(&e),
            Some(hi as f64),
        );
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        match at(mid) {
            Ok(r) if r.0 >= target.value => (lo, low) = (mid, r),
            Ok(r) => (hi, high) = (mid, r),
            Err(e) => return fail(e.to_string()),
        }
    }
    let share = (low.0 - target.value) / (low.0 - high.0);
    let value = low.1 + (high.1 - low.1) * share;
    let batch = lo as f64 + (hi - lo) as f64 * share;
    row(
        point,
        Some(value),
        parallelism(&low.2),
        problem(&low.2),
        Some(batch),
    )
}

/// Median and 90th percentile of absolute errors (nearest-rank percentiles).
pub fn summarize(errors: impl Iterator<Item = f64>) -> Option<ErrorSummary> {
    let mut abs: Vec<f64> = errors.map(f64::abs).collect();
    if abs.is_empty() {
        return None;
    }
    abs.sort_by(f64::total_cmp);
    let rank = |q: f64| abs[((q * abs.len() as f64).ceil() as usize).clamp(1, abs.len()) - 1];
    Some(ErrorSummary {
        points: abs.len(),
        median_ape: median(&abs)?,
        p90_ape: rank(0.9),
    })
}

/// The median of `values` (the mean of the middle two for an even count); `None` for
/// none.
pub(crate) fn median(values: &[f64]) -> Option<f64> {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(v[n / 2]),
        _ => Some((v[n / 2 - 1] + v[n / 2]) / 2.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::Workload;

    #[test]
    fn drawn_lengths_cost_their_mean() {
        let mut point = BenchmarkTable::builtin().unwrap().point.remove(0);
        point.isl = 1024;
        point.osl = 8192;
        point.length_range_ratio = None;
        // The harness' number of prompts passes through as stated, in all or per user.
        point.prompts = Some(40);
        assert_eq!(point.workload().prompts, Some(40));
        point.prompts = None;
        point.prompts_per_user = Some(10.0);
        assert_eq!(point.workload().prompts_at(4), Some(40));
        point.prompts_per_user = None;
        assert_eq!(point.workload(), Workload::new(1024, 8192));
        // Uniform integers on [819, 1024] and [6553, 8192]: means 921.5 and 7372.5, and
        // outputs spread by (8192 - 6553) / (sqrt(12) * 7372.5) = 0.0642.
        point.length_range_ratio = Some(0.8);
        let w = point.workload();
        assert_eq!((w.isl, w.osl, w.cached), (922, 7373, 0));
        assert!((w.output_cv - 1639.0 / (12f64.sqrt() * 7372.5)).abs() < 1e-12);
        // A published spread replaces the range's.
        point.output_cv = Some(1.114);
        assert_eq!(point.workload().output_cv, 1.114);
        // Every ratio in the table is a fraction, every spread a valid one.
        for p in BenchmarkTable::builtin().unwrap().point {
            if let Some(r) = p.length_range_ratio {
                assert!((0.0..=1.0).contains(&r), "{}: ratio {r}", p.id);
            }
            assert!(p.workload().validate().is_ok(), "{}", p.id);
        }
    }

    #[test]
    fn a_framework_is_stated_and_one_of_the_list() {
        let table = BenchmarkTable::builtin().unwrap();
        let mut json = serde_json::to_value(&table).unwrap();
        assert_eq!(json["point"][0]["framework"], table.point[0].framework.id());
        assert_eq!(
            serde_json::from_value::<BenchmarkTable>(json.clone()).unwrap(),
            table
        );
        json["point"][0]["framework"] = "tgi".into();
        let refused = serde_json::from_value::<BenchmarkTable>(json.clone())
            .unwrap_err()
            .to_string();
        assert!(
            refused.contains("framework \"tgi\" is not one of trtllm, vllm"),
            "{refused}"
        );
        json["point"][0]
            .as_object_mut()
            .unwrap()
            .remove("framework");
        let refused = serde_json::from_value::<BenchmarkTable>(json)
            .unwrap_err()
            .to_string();
        assert!(refused.contains("missing field `framework`"), "{refused}");
        for f in Framework::ALL {
            assert_eq!(Framework::try_from(f.id().to_string()), Ok(f));
        }
    }

    #[test]
    fn summary_of_known_errors() {
        let s = summarize([0.1, -0.2, 0.3, -0.4].into_iter()).unwrap();
        assert_eq!(s.points, 4);
        assert!((s.median_ape - 0.25).abs() < 1e-12);
        assert!((s.p90_ape - 0.4).abs() < 1e-12);
        assert_eq!(
            s.line(),
            "4 points: median |error| 25.0%, p90 |error| 40.0%"
        );
        assert!(summarize(std::iter::empty()).is_none());
    }
}
