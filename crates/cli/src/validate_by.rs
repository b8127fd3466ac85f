//! `disagg validate --by KEYS`: the report's errors broken down by what the rows state
//! (`validation::breakdown`), as a table or, with `--json`, one JSON object.

use disagg_engine::validation::{breakdown, GroupBy, ValidationReport, HOLDOUT_TARGET};

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
    let width = groups
        .iter()
        .map(|g| g.name().len())
        .max()
        .unwrap_or(0)
        .max(5);
    let heading = keys.iter().map(|k| k.id()).collect::<Vec<_>>().join(" / ");
    let within = format!("<={:.0}%", HOLDOUT_TARGET * 100.0);
    // The heading and every group share one row layout: a name, then seven cells.
    let line = |name: &str, cells: &[&str; 7]| {
        let [cn, cm, hn, hm, hp, bias, within] = cells;
        out!("{name:width$}  {cn:>5} {cm:>8}  {hn:>5} {hm:>8} {hp:>8} {bias:>8} {within:>9}");
    };
    line(
        &heading,
        &["calib", "median", "hold", "median", "p90", "bias", &within],
    );
    for g in &groups {
        let cells = g.cells();
        line(&g.name(), &cells.each_ref().map(String::as_str));
    }
    out!();
    out!(
        "each run's mean rows, as the headline counts them; median and p90 of |error|; bias: the hold-out rows' median signed error (above 0: predicted high); <={:.0}%: hold-out rows within the headline's target",
        HOLDOUT_TARGET * 100.0
    );
    Ok(())
}
