//! The table of every drawn point: its columns and their order. Each column sorts
//! both ways; a missing value (no price) sorts last either way, and ties keep the
//! chart's order, so a sort is the same on every machine.

use crate::chart::ChartModel;
use disagg_engine::sweep::{SweepPoint, SweepResult};
use std::cmp::Ordering;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Column {
    TokSUser,
    TokSPerChip,
    UsdPerMtok,
    Ttft,
    Tpot,
    Kind,
    Deployment,
}

impl Column {
    pub const ALL: [Column; 7] = [
        Column::TokSUser,
        Column::TokSPerChip,
        Column::UsdPerMtok,
        Column::Ttft,
        Column::Tpot,
        Column::Kind,
        Column::Deployment,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Column::TokSUser => "tok/s/user",
            Column::TokSPerChip => "tok/s per chip",
            Column::UsdPerMtok => "$/Mtok out",
            Column::Ttft => "TTFT",
            Column::Tpot => "TPOT",
            Column::Kind => "kind",
            Column::Deployment => "deployment",
        }
    }

    /// The direction a first click sorts in: best first (fast, cheap, quick), names A-Z.
    pub fn best_first_descends(self) -> bool {
        matches!(self, Column::TokSUser | Column::TokSPerChip)
    }

    fn key(self, p: &SweepPoint) -> Key<'_> {
        let f = &p.figures;
        match self {
            Column::TokSUser => Key::Number(Some(f.tok_s_user.value())),
            Column::TokSPerChip => Key::Number(Some(f.output_tok_s_per_chip.value())),
            Column::UsdPerMtok => Key::Number(f.usd_per_mtok_output.map(|v| v.value())),
            Column::Ttft => Key::Number(Some(f.ttft.value())),
            Column::Tpot => Key::Number(Some(f.tpot.value())),
            Column::Kind => Key::Text(p.class.name()),
            Column::Deployment => Key::Text(&p.label),
        }
    }
}

enum Key<'a> {
    Number(Option<f64>),
    Text(&'a str),
}

/// How the table is sorted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sort {
    pub column: Column,
    pub descending: bool,
}

impl Default for Sort {
    fn default() -> Sort {
        Sort {
            column: Column::TokSUser,
            descending: true,
        }
    }
}

impl Sort {
    /// After a click on `column`'s heading: the other way round on the same column,
    /// best first on a new one.
    pub fn clicked(self, column: Column) -> Sort {
        if column == self.column {
            Sort {
                column,
                descending: !self.descending,
            }
        } else {
            Sort {
                column,
                descending: column.best_first_descends(),
            }
        }
    }

    /// `aria-sort` of `column`'s heading.
    pub fn aria(self, column: Column) -> &'static str {
        match (column == self.column, self.descending) {
            (false, _) => "none",
            (true, true) => "descending",
            (true, false) => "ascending",
        }
    }
}

/// The drawn points as cloud indices, in `sort`'s order.
pub fn sorted(model: &ChartModel, result: &SweepResult, sort: Sort) -> Vec<usize> {
    let mut rows: Vec<(usize, &SweepPoint)> = model
        .points
        .iter()
        .filter_map(|p| Some((p.cloud_index, result.cloud.get(p.cloud_index)?)))
        .collect();
    rows.sort_by(|(_, a), (_, b)| {
        let (a, b) = (sort.column.key(a), sort.column.key(b));
        match (a, b) {
            (Key::Number(Some(x)), Key::Number(Some(y))) => {
                let o = x.total_cmp(&y);
                if sort.descending {
                    o.reverse()
                } else {
                    o
                }
            }
            (Key::Number(None), Key::Number(Some(_))) => Ordering::Greater,
            (Key::Number(Some(_)), Key::Number(None)) => Ordering::Less,
            (Key::Text(x), Key::Text(y)) => {
                let o = x.cmp(y);
                if sort.descending {
                    o.reverse()
                } else {
                    o
                }
            }
            _ => Ordering::Equal,
        }
    });
    rows.into_iter().map(|(i, _)| i).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::explore;
    use crate::scenario::{Scenario, YAxis};
    use disagg_engine::Catalogue;

    #[test]
    fn every_drawn_point_is_a_row_in_the_order_asked() {
        let s = Scenario {
            y_axis: YAxis::TokSPerUsdHour,
            ..Scenario::default()
        };
        let r = explore(&s, Catalogue::builtin()).unwrap();
        let m = ChartModel::new(&r, &s, true, Catalogue::builtin());
        for column in Column::ALL {
            for descending in [true, false] {
                let sort = Sort { column, descending };
                let rows = sorted(&m, &r, sort);
                let mut drawn: Vec<usize> = m.points.iter().map(|p| p.cloud_index).collect();
                let mut got = rows.clone();
                drawn.sort_unstable();
                got.sort_unstable();
                assert_eq!(got, drawn, "{column:?}");
                let keys: Vec<Option<f64>> = rows
                    .iter()
                    .map(|&i| match column.key(&r.cloud[i]) {
                        Key::Number(v) => v,
                        Key::Text(_) => None,
                    })
                    .collect();
                let known: Vec<f64> = keys.iter().flatten().copied().collect();
                assert!(known.windows(2).all(|w| if descending {
                    w[0] >= w[1]
                } else {
                    w[0] <= w[1]
                }));
                // Missing values come last.
                let first_missing = keys.iter().position(Option::is_none).unwrap_or(keys.len());
                assert!(
                    keys[first_missing..].iter().all(Option::is_none)
                        || matches!(column, Column::Kind | Column::Deployment)
                );
            }
        }
    }

    #[test]
    fn a_click_flips_the_same_column_and_starts_a_new_one_best_first() {
        let s = Sort::default();
        assert_eq!(s.aria(Column::TokSUser), "descending");
        let flipped = s.clicked(Column::TokSUser);
        assert!(!flipped.descending);
        assert_eq!(flipped.aria(Column::TokSUser), "ascending");
        let cost = flipped.clicked(Column::UsdPerMtok);
        assert_eq!((cost.column, cost.descending), (Column::UsdPerMtok, false));
        assert_eq!(cost.aria(Column::TokSUser), "none");
        assert!(s.clicked(Column::TokSPerChip).descending);
    }
}
