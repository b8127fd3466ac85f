//! The validation view's breakdown (link key `vv.by`): the rows the filters keep,
//! grouped by one thing they state (`validation::breakdown`), each group's cells as the
//! table under the summary shows them, the very figures `disagg validate --by` prints.

use super::FILTER_PREFIX;
use disagg_engine::validation::{breakdown, ErrorSummary, GroupBy, ValidationRow};

/// The link key, after the view's prefix: `vv.by=framework`.
pub const BY_KEY: &str = "by";

/// What the breakdown's control offers, in its order, with each key's label.
pub fn choices() -> [(GroupBy, &'static str); 6] {
    [
        (GroupBy::Framework, "serving framework"),
        (GroupBy::Chip, "chip"),
        (GroupBy::Metric, "metric"),
        (GroupBy::Axis, "axis"),
        (GroupBy::Model, "model"),
        (GroupBy::Block, "block of the table (id prefix)"),
    ]
}

/// A link's `vv.by` read: one key of [`choices`], or why it is ignored.
pub fn parse(value: &str) -> Result<GroupBy, String> {
    choices()
        .into_iter()
        .map(|(k, _)| k)
        .find(|k| k.id() == value)
        .ok_or_else(|| {
            format!(
                "{FILTER_PREFIX}{BY_KEY} is one of {}",
                choices().map(|(k, _)| k.id()).join(", ")
            )
        })
}

/// One group's cells: its name, calibration count and median, hold-out count, median,
/// p90, bias and rows within the target.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupRow {
    pub name: String,
    pub cells: [String; 7],
}

/// A share in percent, one decimal (`-` for none), signed where asked.
fn pct(v: Option<f64>, signed: bool) -> String {
    match v {
        Some(v) if signed => format!("{:+.1}%", v * 100.0),
        Some(v) => format!("{:.1}%", v * 100.0),
        None => crate::format::MISSING.to_string(),
    }
}

/// The rows `kept` grouped by `by`, as the table shows them.
pub fn rows<'a>(kept: impl IntoIterator<Item = &'a ValidationRow>, by: GroupBy) -> Vec<GroupRow> {
    let n = |s: Option<ErrorSummary>| s.map_or(0, |s| s.points).to_string();
    breakdown(kept, &[by])
        .into_iter()
        .map(|g| GroupRow {
            name: g.key.join(" / "),
            cells: [
                n(g.calibration),
                pct(g.calibration.map(|s| s.median_ape), false),
                n(g.holdout),
                pct(g.holdout.map(|s| s.median_ape), false),
                pct(g.holdout.map(|s| s.p90_ape), false),
                pct(g.holdout_bias, true),
                g.holdout_within_target.to_string(),
            ],
        })
        .collect()
}
