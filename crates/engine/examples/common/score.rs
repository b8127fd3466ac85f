//! How the calibration examples score a setting: the mean absolute log error
//! `|ln(predicted / measured)|` over a table's points (symmetric: 2x too fast costs as
//! much as 2x too slow, and unlike the median it moves when any point moves).

use disagg_engine::assumptions::Assumptions;
use disagg_engine::validation::{run, BenchmarkTable};
use disagg_engine::Catalogue;

/// A fitted constant moves only when the new value lowers its calibration score by at
/// least this share of the score in use: a change must buy a clear gain, not noise
/// (`audit/AUDIT.md`, "Host costs per framework" and "trtllm-bench runs read to their
/// last completion").
#[allow(dead_code)]
pub const MIN_GAIN: f64 = 0.10;

// Each example includes this file and uses one of the two scores.
#[allow(dead_code)]
pub fn mean_log_error(catalogue: &Catalogue, table: &BenchmarkTable, a: &Assumptions) -> f64 {
    let errors: Vec<f64> = log_errors(catalogue, table, a).map(|(_, e)| e).collect();
    mean(&errors)
}

/// [`mean_log_error`] with each run weighing once: the mean of each run's mean error,
/// a run being a row id without the letter that tells one metric of a run from another
/// (`VUL05a` and `VUL05c` are run `VUL05`, one measurement read two ways).
#[allow(dead_code)]
pub fn mean_log_error_per_run(
    catalogue: &Catalogue,
    table: &BenchmarkTable,
    a: &Assumptions,
) -> f64 {
    let mut runs: Vec<(String, Vec<f64>)> = Vec::new();
    for (id, e) in log_errors(catalogue, table, a) {
        let run = run_of(&id).to_string();
        match runs.iter_mut().find(|(r, _)| *r == run) {
            Some((_, errors)) => errors.push(e),
            None => runs.push((run, vec![e])),
        }
    }
    let means: Vec<f64> = runs.iter().map(|(_, errors)| mean(errors)).collect();
    mean(&means)
}

/// The run a row measures: its id without the letter that tells one metric of a run
/// from another.
pub fn run_of(id: &str) -> &str {
    match id.char_indices().last() {
        Some((i, c)) if c.is_ascii_lowercase() && i > 0 => &id[..i],
        _ => id,
    }
}

/// Each row's id and `|ln(predicted / measured)|`.
fn log_errors(
    catalogue: &Catalogue,
    table: &BenchmarkTable,
    a: &Assumptions,
) -> impl Iterator<Item = (String, f64)> {
    run(catalogue, table, a).rows.into_iter().map(|r| {
        let e = match r.predicted {
            Some(p) if p > 0.0 => (p / r.point.measured).ln().abs(),
            // A point the model cannot predict counts as badly as a 10x miss.
            _ => 10f64.ln(),
        };
        (r.point.id, e)
    })
}

fn mean(values: &[f64]) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    values.iter().sum::<f64>() / values.len() as f64
}
