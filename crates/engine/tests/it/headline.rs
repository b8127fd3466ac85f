//! The headline accuracy figures, guarded: `disagg validate`'s calibration and
//! hold-out errors must equal the values recorded here. A change that moves them,
//! better or worse, updates these numbers deliberately (with the reason in the commit),
//! and so do the README and `audit/AUDIT.md`, which quote them.

use disagg_engine::validation::{run, BenchmarkTable, ErrorSummary};
use disagg_engine::{Assumptions, Catalogue};

/// `(points, median |error|, p90 |error|)` as `disagg validate` prints them.
const CALIBRATION: (usize, f64, f64) = (55, 0.051, 0.439);
const HOLDOUT: (usize, f64, f64) = (422, 0.153, 0.715);
/// Half a unit of the last printed digit (a tenth of a percent).
const PRINTED: f64 = 0.0005;

fn check(set: &str, measured: Option<ErrorSummary>, recorded: (usize, f64, f64)) {
    let m = measured.unwrap_or_else(|| panic!("{set}: no points were predicted"));
    let (points, median, p90) = recorded;
    assert_eq!(m.points, points, "{set}: points with a prediction");
    assert!(
        (m.median_ape - median).abs() < PRINTED,
        "{set}: median |error| {:.2}% against the recorded {:.1}%",
        m.median_ape * 100.0,
        median * 100.0
    );
    assert!(
        (m.p90_ape - p90).abs() < PRINTED,
        "{set}: p90 |error| {:.2}% against the recorded {:.1}%",
        m.p90_ape * 100.0,
        p90 * 100.0
    );
}

#[test]
fn the_validation_errors_are_the_recorded_ones() {
    let table = BenchmarkTable::builtin().unwrap();
    let report = run(Catalogue::builtin(), &table, &Assumptions::default());
    check("calibration", report.calibration, CALIBRATION);
    check("hold-out", report.holdout, HOLDOUT);
}
