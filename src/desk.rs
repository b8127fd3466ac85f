//! The desk-cluster preset: EXO's published run of prefill on a DGX Spark and decode on
//! a Mac Studio M3 Ultra, the KV cache streamed over 10 Gigabit Ethernet. Everything the
//! preset sets is read off that run's row of the validation table (`EXO01a` in
//! `catalogue/benchmarks.toml`), so the page, `disagg validate` and the row cannot
//! disagree: the scenario, which point of the sweep is EXO's deployment, and the
//! predicted request latency beside the measured one.

use crate::format;
use crate::scenario::Scenario;
use disagg_engine::disagg::{Axis, PoolRole};
use disagg_engine::sweep::{SweepPoint, SweepResult};
use disagg_engine::units::Seconds;
use disagg_engine::validation::{BenchmarkPoint, BenchmarkTable, Metric};

/// The validation row the preset reproduces.
pub const ROW: &str = "EXO01a";

/// EXO's row, from the table compiled into the engine.
pub fn row(table: &BenchmarkTable) -> Option<&BenchmarkPoint> {
    table.point.iter().find(|p| p.id == ROW)
}

/// The preset: the row's model, lengths, dtypes, framework, link and batch, its two
/// chips on the prefill/decode axis, and a chip budget of the row's chips (so the sweep
/// is the handful of ways to place those two machines).
pub fn scenario(row: &BenchmarkPoint) -> Scenario {
    let mut chips: Vec<String> = Vec::new();
    for p in &row.pool {
        if !chips.contains(&p.chip) {
            chips.push(p.chip.clone());
        }
    }
    Scenario {
        model: row.model.clone(),
        isl: row.isl,
        osl: row.osl,
        weight_dtype: Some(row.weight_dtype),
        kv_dtype: row.kv_dtype,
        axis: row.axis.unwrap_or(Axis::Aggregated),
        chips,
        max_chips: row.chips,
        batch: row.batch,
        framework: row.framework.serving(),
        link: row.link.clone(),
        ..Scenario::default()
    }
}

/// Whether `s` is the preset (the chart's axis and colours aside).
pub fn is_preset(s: &Scenario, row: &BenchmarkPoint) -> bool {
    let preset = scenario(row);
    Scenario {
        y_axis: preset.y_axis,
        colour_by: preset.colour_by,
        ..s.clone()
    } == preset
}

/// The index of EXO's deployment in a sweep's cloud: each pool on the row's chip with
/// the row's layout.
pub fn pick(result: &SweepResult, row: &BenchmarkPoint) -> Option<usize> {
    result.cloud.iter().position(|p| is_row_deployment(p, row))
}

fn is_row_deployment(p: &SweepPoint, row: &BenchmarkPoint) -> bool {
    Some(p.spec.axis) == row.axis
        && p.spec.pools.len() == row.pool.len()
        && row.pool.iter().all(|want| {
            p.spec.pools.iter().any(|have| {
                have.role == want.role
                    && have.chip == want.chip
                    && have.parallelism.tp == want.tp
                    && have.parallelism.pp == want.pp
                    && have.parallelism.dp == want.dp
            })
        })
}

/// The predicted figure beside the measured one.
#[derive(Clone, Debug, PartialEq)]
pub struct Reading {
    pub predicted: Seconds,
    pub measured: Seconds,
    /// `predicted / measured - 1`.
    pub error: f64,
}

impl Reading {
    /// The row's request latency as the sweep's point predicts it; `None` when the
    /// row measures something else.
    pub fn of(point: &SweepPoint, row: &BenchmarkPoint) -> Option<Reading> {
        if row.metric != Metric::E2eMs || row.measured <= 0.0 {
            return None;
        }
        let predicted = point.figures.request_latency(row.osl as f64);
        let measured = Seconds::from_ms(row.measured);
        let error = predicted.value() / measured.value() - 1.0;
        error.is_finite().then_some(Reading {
            predicted,
            measured,
            error,
        })
    }

    /// "predicted 2,695 ms, EXO measured 2,320 ms (+16%)".
    pub fn line(&self) -> String {
        format!(
            "predicted {}, EXO measured {} ({}{})",
            format::duration(self.predicted),
            format::duration(self.measured),
            if self.error >= 0.0 { "+" } else { "" },
            format::percent(self.error)
        )
    }
}

/// The preset's deployment in words, from the row: "prefill on dgx-spark, decode on
/// m3-ultra over 10gbe".
pub fn describe(row: &BenchmarkPoint) -> String {
    let chip = |role| {
        row.pool
            .iter()
            .find(|p| p.role == role)
            .map_or("?", |p| p.chip.as_str())
    };
    format!(
        "{} prefill on {}, decode on {}{}; {} prompt tokens, {} output tokens, one request",
        row.model,
        chip(PoolRole::Prefill),
        chip(PoolRole::Decode),
        row.link
            .as_deref()
            .map_or(String::new(), |l| format!(", KV streamed over {l}")),
        row.isl,
        row.osl
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use disagg_engine::validation::{evaluate_point, Metric};
    use disagg_engine::{Assumptions, Catalogue};

    fn exo() -> BenchmarkPoint {
        row(&BenchmarkTable::builtin().unwrap()).unwrap().clone()
    }

    #[test]
    fn the_preset_is_the_rows_scenario_and_survives_the_link() {
        let row = exo();
        let s = scenario(&row);
        assert_eq!(s.axis, Axis::PrefillDecode);
        assert_eq!(s.chips, ["dgx-spark", "m3-ultra"]);
        assert_eq!((s.isl, s.osl, s.batch), (8192, 32, Some(1)));
        assert_eq!(s.link.as_deref(), Some("10gbe"));
        let (back, notices) = Scenario::from_query(&s.to_query(), Catalogue::builtin());
        assert!(notices.is_empty(), "{notices:?}");
        assert!(is_preset(&back, &row));
        let other = Scenario { osl: 64, ..back };
        assert!(!is_preset(&other, &row));
    }

    /// The page's sweep of the preset holds EXO's deployment, and its request latency
    /// is the validation row's prediction to the last bit: the page shows the error
    /// `disagg validate` reports.
    #[test]
    fn the_sweep_reproduces_the_validation_rows_prediction() {
        let row = exo();
        let cat = Catalogue::builtin();
        let result = crate::explore::explore(&scenario(&row), cat).unwrap();
        let i = pick(&result, &row).expect("EXO's deployment is in the sweep");
        let reading = Reading::of(&result.cloud[i], &row).unwrap();
        let alone = evaluate_point(cat, &row, &Assumptions::default()).unwrap();
        let validated = Metric::E2eMs
            .read(&alone, row.isl as f64, row.osl as f64)
            .unwrap();
        assert_eq!(reading.predicted.ms(), validated);
        assert_eq!(reading.measured.ms(), row.measured);
        assert!((reading.error - (validated / row.measured - 1.0)).abs() < 1e-12);
        assert!(
            reading.line().starts_with("predicted "),
            "{}",
            reading.line()
        );
    }

    #[test]
    fn a_reading_is_the_request_latency_over_the_measured_time() {
        let row = exo();
        let result = crate::explore::explore(&scenario(&row), Catalogue::builtin()).unwrap();
        let p = &result.cloud[pick(&result, &row).unwrap()];
        let r = Reading::of(p, &row).unwrap();
        // TTFT + 31 TPOT, by hand.
        let by_hand = p.figures.ttft.value() + 31.0 * p.figures.tpot.value();
        assert!((r.predicted.value() - by_hand).abs() < 1e-12);
        let ttft_row = BenchmarkPoint {
            metric: Metric::TtftMs,
            ..row.clone()
        };
        assert_eq!(
            Reading::of(p, &ttft_row),
            None,
            "only a request latency reads"
        );
        assert!(describe(&row).contains("prefill on dgx-spark, decode on m3-ultra"));
    }
}
