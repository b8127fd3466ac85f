//! `disagg validate`: the published table run against the engine, as a table with the
//! headline sets under it, as JSON, or broken down (`--by`, `validate_by.rs`), over all
//! rows or those `--only` keeps; `--point` opens one row (`validate_point.rs`).

use crate::validate_by;
use crate::AssumptionArgs;
use disagg_engine::validation::{self, BenchmarkTable, ErrorSummary};
use disagg_engine::{Assumptions, Catalogue};

/// The assumptions a validation run takes: settings no row reads are refused rather
/// than ignored, since every row runs the framework its source names (or `auto`) and
/// no row measures a cost.
pub fn validation_assumptions(assumptions: &AssumptionArgs) -> Result<Assumptions, String> {
    let resolved = assumptions.resolve()?;
    if resolved.framework != Assumptions::default().framework {
        return Err(
            "--framework (or an assumptions file's framework): every validation row runs the framework its source names".into(),
        );
    }
    if resolved.cost != disagg_engine::cost::CostSettings::default() {
        return Err(
            "the cost settings (--electricity-usd-kwh, --pue, --capex-usd-per-chip, --years, --duty-cycle, --idle-share, --cost-basis) change no validation row: none measures a cost".into(),
        );
    }
    Ok(resolved)
}

pub fn run_validate(
    as_json: bool,
    by: Option<&str>,
    only: Option<&str>,
    assumptions: &AssumptionArgs,
) -> Result<(), String> {
    let resolved = validation_assumptions(assumptions)?;
    let cat = Catalogue::builtin();
    let table = BenchmarkTable::builtin().map_err(|e| e.to_string())?;
    // The keys and filters are checked before the table runs.
    let keys = by
        .map(validation::GroupBy::parse_list)
        .transpose()
        .map_err(|e| format!("--by: {e}"))?;
    let filters = only
        .map(|text| validation::Only::parse_list(text, &table.point))
        .transpose()
        .map_err(|e| format!("--only: {e}"))?;
    let report = validation::run(cat, &table, &resolved);
    let report = match &filters {
        Some(f) => report.only(f),
        None => report,
    };
    if let Some(keys) = keys {
        return validate_by::print(&report, &keys, as_json);
    }
    if as_json {
        out!(
            "{}",
            serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?
        );
        return Ok(());
    }
    out!(
        "{:10} {:11} {:15} {:16} {:>5} {:13} {:22} {:>12} {:>12} {:>8}",
        "id",
        "role",
        "model",
        "chip",
        "chips",
        "framework",
        "metric",
        "predicted",
        "measured",
        "error"
    );
    for row in &report.rows {
        let p = &row.point;
        let predicted = row.predicted.map_or("-".into(), |v| format!("{v:.2}"));
        let error = row
            .error
            .map_or("-".into(), |e| format!("{:+.1}%", e * 100.0));
        let remarks: Vec<String> = row
            .read_at_batch
            .map(|b| format!("read at batch {b:.0}"))
            .into_iter()
            .chain(row.problem.clone())
            .collect();
        out!(
            "{:10} {:11} {:15} {:16} {:>5} {:13} {:22} {:>12} {:>12.2} {:>8}{}",
            p.id,
            p.role.id(),
            p.model,
            p.chip,
            p.chips,
            p.framework.id(),
            format!("{:?}", p.metric),
            predicted,
            p.measured,
            error,
            if remarks.is_empty() {
                String::new()
            } else {
                format!("  ({})", remarks.join("; "))
            }
        );
    }
    out!();
    for (name, summary) in [
        ("calibration", report.calibration),
        ("holdout", report.holdout),
        ("holdout, TTFT rows", report.holdout_ttft),
        ("holdout, disaggregated", report.holdout_disaggregated),
        ("holdout, median TTFT", report.holdout_median_ttft),
    ] {
        out!("{}", summary_line(name, summary));
    }
    if filters.is_some() {
        out!(
            "rows kept by --only: {} of {}",
            report.rows.len(),
            table.point.len()
        );
    } else {
        out!(
            "unmapped rows of the published table: {}",
            table.unmapped.len()
        );
    }
    Ok(())
}

fn summary_line(name: &str, s: Option<ErrorSummary>) -> String {
    match s {
        Some(s) => format!("{name:22} {}", s.line()),
        None => format!("{name:22} no points"),
    }
}
