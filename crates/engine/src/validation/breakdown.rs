//! The report's errors broken down by what a row states (its serving framework, chip,
//! metric, axis, model or block of the table): where the model is close and where it is
//! not, each group's calibration and hold-out rows summarised as the headline sets are
//! (each run's mean rows, median and p90 of |error| at nearest rank), with the hold-out
//! bias (the median signed error) and how many hold-out rows lie within the headline's
//! 12% target. `disagg validate --by` prints it.

use super::{mean_rows, median, summarize, BenchmarkPoint, ErrorSummary, Role, ValidationRow};
use crate::error::{EngineError, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The hold-out median |error| issue 22 sets as the headline target: a group's rows
/// within it are counted.
pub const HOLDOUT_TARGET: f64 = 0.12;

/// What a breakdown groups the rows by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GroupBy {
    Framework,
    Chip,
    Metric,
    Axis,
    Model,
    /// Calibration or hold-out.
    Role,
    /// The table's block: the id before its `-` (MLP41-01: MLP41), else its leading
    /// capitals (IMXA05b: IMXA).
    Block,
}

impl GroupBy {
    pub const ALL: [GroupBy; 7] = [
        GroupBy::Framework,
        GroupBy::Chip,
        GroupBy::Metric,
        GroupBy::Axis,
        GroupBy::Model,
        GroupBy::Role,
        GroupBy::Block,
    ];

    pub fn id(self) -> &'static str {
        match self {
            GroupBy::Framework => "framework",
            GroupBy::Chip => "chip",
            GroupBy::Metric => "metric",
            GroupBy::Axis => "axis",
            GroupBy::Model => "model",
            GroupBy::Role => "role",
            GroupBy::Block => "block",
        }
    }

    /// Reads a comma-separated list (`framework,chip`), each key once; an unknown or
    /// repeated key is an error naming the keys.
    pub fn parse_list(text: &str) -> Result<Vec<GroupBy>> {
        let mut keys = Vec::new();
        for word in text.split(',').map(str::trim) {
            let key = GroupBy::ALL
                .into_iter()
                .find(|k| k.id() == word)
                .ok_or_else(|| {
                    EngineError::InvalidInput(format!(
                        "the keys are {}; not {word:?}",
                        GroupBy::ALL.map(GroupBy::id).join(", ")
                    ))
                })?;
            if keys.contains(&key) {
                return Err(EngineError::InvalidInput(format!("{word} is named twice")));
            }
            keys.push(key);
        }
        Ok(keys)
    }

    /// What row `p` states for this key.
    pub fn of(self, p: &BenchmarkPoint) -> String {
        match self {
            GroupBy::Framework => p.framework.id().to_string(),
            GroupBy::Chip => p.chip.clone(),
            GroupBy::Metric => p.metric.id(),
            GroupBy::Axis => p.axis.map_or("agg", |a| a.id()).to_string(),
            GroupBy::Model => p.model.clone(),
            GroupBy::Role => p.role.id().to_string(),
            GroupBy::Block => block(&p.id).to_string(),
        }
    }
}

/// A filter of the table's rows: those whose `key` reads `value` (`framework=sglang`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Only {
    pub key: GroupBy,
    pub value: String,
}

impl Only {
    /// Whether row `p` passes.
    pub fn keeps(&self, p: &BenchmarkPoint) -> bool {
        self.key.of(p) == self.value
    }

    /// Reads a comma-separated list (`framework=sglang,chip=b200`) against the rows
    /// `points`: an unknown key, a pair without `=`, a key given twice, or a value no
    /// row has is an error naming it (and, for a value, the ones the rows have).
    pub fn parse_list<'a>(
        text: &str,
        points: impl IntoIterator<Item = &'a BenchmarkPoint> + Clone,
    ) -> Result<Vec<Only>> {
        let mut out: Vec<Only> = Vec::new();
        for pair in text.split(',').map(str::trim) {
            let (name, value) = pair.split_once('=').ok_or_else(|| {
                EngineError::InvalidInput(format!(
                    "--only takes key=value pairs, comma-separated; not {pair:?}"
                ))
            })?;
            let key = GroupBy::parse_list(name.trim())?[0];
            if out.iter().any(|o| o.key == key) {
                return Err(EngineError::InvalidInput(format!(
                    "--only names {} twice",
                    key.id()
                )));
            }
            let value = value.trim().to_string();
            let mut known: Vec<String> = points.clone().into_iter().map(|p| key.of(p)).collect();
            known.sort();
            known.dedup();
            if !known.contains(&value) {
                return Err(EngineError::InvalidInput(format!(
                    "no row has {}={value:?}; the rows have {}",
                    key.id(),
                    known.join(", ")
                )));
            }
            out.push(Only { key, value });
        }
        Ok(out)
    }
}

/// The block of the table a row id belongs to.
fn block(id: &str) -> &str {
    match id.split_once('-') {
        Some((head, _)) => head,
        None => {
            let end = id
                .find(|c: char| !c.is_ascii_uppercase())
                .unwrap_or(id.len());
            if end == 0 {
                id
            } else {
                &id[..end]
            }
        }
    }
}

/// One group of a breakdown.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Group {
    /// The group's value of each key, in the keys' order.
    pub key: Vec<String>,
    pub calibration: Option<ErrorSummary>,
    pub holdout: Option<ErrorSummary>,
    /// The hold-out rows' median signed error: above 0, the model predicts high.
    pub holdout_bias: Option<f64>,
    /// Hold-out rows within [`HOLDOUT_TARGET`].
    pub holdout_within_target: usize,
}

impl Group {
    /// The group's name: its keys' values joined by " / ".
    pub fn name(&self) -> String {
        self.key.join(" / ")
    }

    /// The group as a table row writes it, after its name: calibration rows and median,
    /// hold-out rows, median, p90 and bias, and hold-out rows within the target;
    /// percentages with one decimal, `-` where a set is empty. `disagg validate --by`
    /// and the page's breakdown print these same cells.
    pub fn cells(&self) -> [String; 7] {
        let n = |s: Option<ErrorSummary>| s.map_or(0, |s| s.points).to_string();
        let pct = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{:.1}%", v * 100.0));
        [
            n(self.calibration),
            pct(self.calibration.map(|s| s.median_ape)),
            n(self.holdout),
            pct(self.holdout.map(|s| s.median_ape)),
            pct(self.holdout.map(|s| s.p90_ape)),
            self.holdout_bias
                .map_or("-".to_string(), |v| format!("{:+.1}%", v * 100.0)),
            self.holdout_within_target.to_string(),
        ]
    }
}

/// A report's rows (all of them, or those a filter keeps) grouped by `keys`, the groups
/// with the most hold-out rows first (ties by key); groups without an error are left out.
pub fn breakdown<'a>(
    rows: impl IntoIterator<Item = &'a ValidationRow>,
    keys: &[GroupBy],
) -> Vec<Group> {
    // Each group's calibration and hold-out errors, gathered in one pass over the
    // rows of each role.
    let rows: Vec<&ValidationRow> = rows.into_iter().collect();
    let mut errors: BTreeMap<Vec<String>, [Vec<f64>; 2]> = BTreeMap::new();
    for (slot, role) in [(0, Role::Calibration), (1, Role::Holdout)] {
        for r in mean_rows(rows.iter().copied(), role) {
            if let Some(e) = r.error {
                let key = keys.iter().map(|k| k.of(&r.point)).collect();
                errors.entry(key).or_default()[slot].push(e);
            }
        }
    }
    let mut groups: Vec<Group> = errors
        .into_iter()
        .map(|(key, [calibration, held])| Group {
            calibration: summarize(calibration.into_iter()),
            holdout: summarize(held.iter().copied()),
            holdout_bias: median(&held),
            holdout_within_target: held.iter().filter(|e| e.abs() <= HOLDOUT_TARGET).count(),
            key,
        })
        .collect();
    groups.sort_by(|a, b| {
        let n = |g: &Group| g.holdout.map_or(0, |s| s.points);
        n(b).cmp(&n(a)).then_with(|| a.key.cmp(&b.key))
    });
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_read_from_ids() {
        for (id, b) in [
            ("MLP41-01", "MLP41"),
            ("CON-01", "CON"),
            ("IMXA05bp", "IMXA"),
            ("TRTB36", "TRTB"),
            ("x1", "x1"),
        ] {
            assert_eq!(block(id), b, "{id}");
        }
    }

    #[test]
    fn medians_of_known_values() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[0.3, -0.1, 0.2]), Some(0.2));
        assert_eq!(median(&[0.4, -0.2, 0.1, 0.0]), Some(0.05));
    }

    #[test]
    fn keys_parse_and_refuse_by_name() {
        assert_eq!(
            GroupBy::parse_list("framework, chip").unwrap(),
            vec![GroupBy::Framework, GroupBy::Chip]
        );
        let why = GroupBy::parse_list("vendor").unwrap_err().to_string();
        assert!(why.contains("\"vendor\"") && why.contains("block"), "{why}");
        let why = GroupBy::parse_list("chip,chip").unwrap_err().to_string();
        assert!(why.contains("twice"), "{why}");
        assert!(GroupBy::parse_list("").is_err());
    }
}
