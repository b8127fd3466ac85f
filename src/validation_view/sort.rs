//! The validation table's order: a column and a direction, chosen by clicking the
//! column's heading (ascending, then descending, then the table's own order again) and
//! carried in the link as `vv.sort=<column>` or `vv.sort=-<column>` (descending).

use super::TableRow;
use disagg_engine::validation::ValidationRow;
use disagg_engine::Catalogue;
use std::cmp::Ordering;

/// The link key of the order (after [`super::FILTER_PREFIX`]).
pub const SORT_KEY: &str = "sort";

/// A column of the table, in the order the table shows them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Column {
    Id,
    Model,
    Chips,
    Axis,
    Metric,
    Framework,
    Measured,
    Predicted,
    Error,
    Role,
    Source,
}

impl Column {
    pub const ALL: [Column; 11] = [
        Column::Id,
        Column::Model,
        Column::Chips,
        Column::Axis,
        Column::Metric,
        Column::Framework,
        Column::Measured,
        Column::Predicted,
        Column::Error,
        Column::Role,
        Column::Source,
    ];

    /// The column's name in a link, and its heading's id suffix.
    pub fn id(self) -> &'static str {
        match self {
            Column::Id => "id",
            Column::Model => "model",
            Column::Chips => "chips",
            Column::Axis => "axis",
            Column::Metric => "metric",
            Column::Framework => "framework",
            Column::Measured => "measured",
            Column::Predicted => "predicted",
            Column::Error => "error",
            Column::Role => "role",
            Column::Source => "source",
        }
    }

    pub fn heading(self) -> &'static str {
        match self {
            Column::Id => "Id",
            Column::Model => "Model",
            Column::Chips => "Chips and layout",
            Column::Axis => "Axis",
            Column::Metric => "Metric",
            Column::Framework => "Framework",
            Column::Measured => "Measured",
            Column::Predicted => "Predicted",
            Column::Error => "Error",
            Column::Role => "Role",
            Column::Source => "Source",
        }
    }
}

/// The table's order: a column and whether it runs from the largest down.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sort {
    pub column: Column,
    pub descending: bool,
}

impl Sort {
    /// `error`, or `-error` for descending.
    pub fn to_link(self) -> String {
        format!(
            "{}{}",
            if self.descending { "-" } else { "" },
            self.column.id()
        )
    }

    /// Reads a link's value; the reason for one it does not know.
    pub fn parse(value: &str) -> Result<Sort, String> {
        let value = value.trim();
        let (descending, id) = match value.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, value),
        };
        Column::ALL
            .into_iter()
            .find(|c| c.id() == id)
            .map(|column| Sort { column, descending })
            .ok_or_else(|| {
                let ids: Vec<&str> = Column::ALL.iter().map(|c| c.id()).collect();
                format!(
                    "a sort is a column ({}), with '-' before it for descending",
                    ids.join(", ")
                )
            })
    }

    /// The order after a click on `column`'s heading: ascending first, then
    /// descending, then none (the table's own order).
    pub fn after_click(current: Option<Sort>, column: Column) -> Option<Sort> {
        match current {
            Some(s) if s.column == column && !s.descending => Some(Sort {
                column,
                descending: true,
            }),
            Some(s) if s.column == column => None,
            _ => Some(Sort {
                column,
                descending: false,
            }),
        }
    }

    /// The heading's `aria-sort`.
    pub fn aria(current: Option<Sort>, column: Column) -> &'static str {
        match current {
            Some(s) if s.column == column && s.descending => "descending",
            Some(s) if s.column == column => "ascending",
            _ => "none",
        }
    }
}

/// What a row sorts by in one column: a number where the column is one (the measured
/// and predicted values, the signed error), else the cell's text.
enum Key {
    Number(Option<f64>),
    Text(String),
}

fn key(row: &ValidationRow, cells: &TableRow, column: Column) -> Key {
    let text = |s: &str| Key::Text(s.to_lowercase());
    match column {
        Column::Measured => Key::Number(Some(row.point.measured)),
        Column::Predicted => Key::Number(row.predicted),
        Column::Error => Key::Number(row.error),
        Column::Id => text(&cells.id),
        Column::Model => text(&cells.model),
        Column::Chips => text(&cells.chips),
        Column::Axis => text(cells.axis),
        Column::Metric => text(cells.metric),
        Column::Framework => text(cells.framework),
        Column::Role => text(cells.role),
        Column::Source => text(&cells.source),
    }
}

/// `rows` with their cells, in `sort`'s order (the table's own order without one).
/// Ties keep the table's order; a row without a number (no prediction) goes last
/// whichever the direction, as does a number that is not finite.
pub fn sorted<'a>(
    rows: Vec<&'a ValidationRow>,
    sort: Option<Sort>,
    catalogue: &Catalogue,
) -> Vec<(&'a ValidationRow, TableRow)> {
    let out: Vec<(&ValidationRow, TableRow)> = rows
        .into_iter()
        .map(|r| (r, TableRow::of(r, catalogue)))
        .collect();
    let Some(sort) = sort else {
        return out;
    };
    let directed = |o: Ordering| if sort.descending { o.reverse() } else { o };
    let mut keyed: Vec<(Key, (&ValidationRow, TableRow))> = out
        .into_iter()
        .map(|(r, c)| (key(r, &c, sort.column), (r, c)))
        .collect();
    // A stable sort: ties keep the table's order.
    keyed.sort_by(|(a, _), (b, _)| match (a, b) {
        (Key::Number(x), Key::Number(y)) => {
            match (x.filter(|v| v.is_finite()), y.filter(|v| v.is_finite())) {
                (Some(x), Some(y)) => directed(x.total_cmp(&y)),
                (Some(_), None) => Ordering::Less,
                (None, Some(_)) => Ordering::Greater,
                (None, None) => Ordering::Equal,
            }
        }
        (Key::Text(x), Key::Text(y)) => directed(x.cmp(y)),
        // One column gives every row the same kind of key.
        _ => Ordering::Equal,
    });
    keyed.into_iter().map(|(_, row)| row).collect()
}
