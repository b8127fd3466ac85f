//! The validation view's breakdown (link key `vv.by`): the rows the filters keep,
//! grouped by one thing they state (`validation::breakdown`), each group's cells as the
//! table under the summary shows them, the very figures `disagg validate --by` prints.

use super::FILTER_PREFIX;
use disagg_engine::validation::{breakdown, GroupBy, ValidationRow};

/// The link key, after the view's prefix: `vv.by=framework`.
pub const BY_KEY: &str = "by";

/// What the breakdown's control offers, in its order, with each key's label.
pub fn choices() -> [(GroupBy, &'static str); 7] {
    [
        (GroupBy::Framework, "serving framework"),
        (GroupBy::Chip, "chip"),
        (GroupBy::Metric, "metric"),
        (GroupBy::Axis, "axis"),
        (GroupBy::Model, "model"),
        (GroupBy::Role, "role (calibration or hold-out)"),
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

/// One group's name and cells (`Group::cells`: calibration count and median, hold-out
/// count, median, p90, bias and rows within the target).
#[derive(Clone, Debug, PartialEq)]
pub struct GroupRow {
    pub name: String,
    pub cells: [String; 7],
}

/// The rows `kept` grouped by `by`, as the table shows them.
pub fn rows<'a>(kept: impl IntoIterator<Item = &'a ValidationRow>, by: GroupBy) -> Vec<GroupRow> {
    breakdown(kept, &[by])
        .into_iter()
        .map(|g| GroupRow {
            name: g.name(),
            cells: g.cells(),
        })
        .collect()
}
