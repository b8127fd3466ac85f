//! How the calibration examples score a setting: the mean absolute log error
//! `|ln(predicted / measured)|` over a table's points (symmetric: 2x too fast costs as
//! much as 2x too slow, and unlike the median it moves when any point moves).

use disagg_engine::assumptions::Assumptions;
use disagg_engine::validation::{run, BenchmarkTable};
use disagg_engine::Catalogue;

pub fn mean_log_error(catalogue: &Catalogue, table: &BenchmarkTable, a: &Assumptions) -> f64 {
    let report = run(catalogue, table, a);
    let errors: Vec<f64> = report
        .rows
        .iter()
        .map(|r| match r.predicted {
            Some(p) if p > 0.0 => (p / r.point.measured).ln().abs(),
            // A point the model cannot predict counts as badly as a 10x miss.
            _ => 10f64.ln(),
        })
        .collect();
    if errors.is_empty() {
        return 0.0;
    }
    errors.iter().sum::<f64>() / errors.len() as f64
}
