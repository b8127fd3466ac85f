//! `disagg validate --by KEYS`: the report's errors broken down by what the rows state
//! (`validation::breakdown`), as a table or, with `--json`, one JSON object.

use disagg_engine::validation::{
    breakdown, ErrorSummary, GroupBy, ValidationReport, HOLDOUT_TARGET,
};

/// A percentage with one decimal, `-` for none.
fn pct(v: Option<f64>, signed: bool) -> String {
    match (v, signed) {
        (Some(v), true) => format!("{:+.1}%", v * 100.0),
        (Some(v), false) => format!("{:.1}%", v * 100.0),
        (None, _) => "-".into(),
    }
}

/// Prints the breakdown of `report` by `keys`.
pub fn print(report: &ValidationReport, keys: &[GroupBy], as_json: bool) -> Result<(), String> {
    let groups = breakdown(&report.rows, keys);
    if as_json {
        let by: Vec<&str> = keys.iter().map(|k| k.id()).collect();
        out!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "by": by,
                "holdout_target": HOLDOUT_TARGET,
                "groups": groups,
            }))
            .map_err(|e| e.to_string())?
        );
        return Ok(());
    }
    let name = |g: &disagg_engine::validation::Group| g.key.join(" / ");
    let width = groups
        .iter()
        .map(|g| name(g).len())
        .max()
        .unwrap_or(0)
        .max(5);
    let heading = keys.iter().map(|k| k.id()).collect::<Vec<_>>().join(" / ");
    out!(
        "{:width$}  {:>5} {:>8}  {:>5} {:>8} {:>8} {:>8} {:>9}",
        heading,
        "calib",
        "median",
        "hold",
        "median",
        "p90",
        "bias",
        format!("<={:.0}%", HOLDOUT_TARGET * 100.0),
    );
    let n = |s: Option<ErrorSummary>| s.map_or(0, |s| s.points);
    for g in &groups {
        out!(
            "{:width$}  {:>5} {:>8}  {:>5} {:>8} {:>8} {:>8} {:>9}",
            name(g),
            n(g.calibration),
            pct(g.calibration.map(|s| s.median_ape), false),
            n(g.holdout),
            pct(g.holdout.map(|s| s.median_ape), false),
            pct(g.holdout.map(|s| s.p90_ape), false),
            pct(g.holdout_bias, true),
            g.holdout_within_target,
        );
    }
    out!();
    out!(
        "each run's mean rows, as the headline counts them; median and p90 of |error|; bias: the hold-out rows' median signed error (above 0: predicted high); <={:.0}%: hold-out rows within the headline's target",
        HOLDOUT_TARGET * 100.0
    );
    Ok(())
}
