//! Pareto frontiers over interactivity and an objective, reading a frontier at a
//! target interactivity, and the callout that compares mixed and single-kind
//! deployments there (`audit/MODEL.md` section 8).

use crate::disagg::Figures;
use serde::{Deserialize, Serialize};

/// What the frontier trades interactivity (tok/s/user, up) against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Objective {
    /// Output tok/s per chip, up.
    ThroughputPerChip,
    /// Output $/Mtok, down (equivalently tok/s per $/hour, up).
    CostPerMtok,
}

impl Objective {
    pub const ALL: [Objective; 2] = [Objective::ThroughputPerChip, Objective::CostPerMtok];

    /// The objective's value as the user reads it; `None` when the point has no
    /// price (cost) or is not finite.
    pub fn value(self, f: &Figures) -> Option<f64> {
        let v = match self {
            Objective::ThroughputPerChip => Some(f.output_tok_s_per_chip.0),
            Objective::CostPerMtok => f.usd_per_mtok_output.map(|u| u.0),
        }?;
        (v.is_finite() && v > 0.0).then_some(v)
    }

    /// The value turned so that larger is better.
    pub fn score(self, f: &Figures) -> Option<f64> {
        let v = self.value(f)?;
        Some(match self {
            Objective::ThroughputPerChip => v,
            Objective::CostPerMtok => -v,
        })
    }

    /// How much better value `a` is than value `b`, as a fraction of `b`: 0.38 is 38%
    /// more tok/s per chip, or 38% lower $/Mtok; negative when `a` is worse.
    pub fn advantage(self, a: f64, b: f64) -> f64 {
        if self.higher_is_better() {
            a / b - 1.0
        } else {
            1.0 - a / b
        }
    }

    pub fn higher_is_better(self) -> bool {
        matches!(self, Objective::ThroughputPerChip)
    }

    pub fn name(self) -> &'static str {
        match self {
            Objective::ThroughputPerChip => "tok/s per chip",
            Objective::CostPerMtok => "$/Mtok",
        }
    }
}

/// Indices of the non-dominated points of `xy` when both coordinates are maximised,
/// ordered by `x` ascending. A point is dominated when another is at least as good on
/// both and better on one; of identical points one is kept. Non-finite points are
/// never on the frontier.
pub fn pareto(xy: &[(f64, f64)]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..xy.len())
        .filter(|&i| xy[i].0.is_finite() && xy[i].1.is_finite())
        .collect();
    order.sort_by(|&a, &b| {
        xy[b]
            .0
            .total_cmp(&xy[a].0)
            .then(xy[b].1.total_cmp(&xy[a].1))
    });
    let mut best_y = f64::NEG_INFINITY;
    let mut keep = Vec::new();
    for i in order {
        if xy[i].1 > best_y {
            best_y = xy[i].1;
            keep.push(i);
        }
    }
    keep.reverse();
    keep
}

/// Reads a frontier (`(x, y)` ordered by `x` ascending, `y` falling) at `x = target`
/// by linear interpolation between its neighbours, which keeps it monotone. Left of
/// the frontier the first point's value holds (it is reachable at any lower
/// interactivity); right of it the target is out of reach (`None`).
pub fn value_at(frontier: &[(f64, f64)], target: f64) -> Option<f64> {
    let first = frontier.first()?;
    if !target.is_finite() {
        return None;
    }
    if target <= first.0 {
        return Some(first.1);
    }
    let idx = frontier.iter().position(|p| p.0 >= target)?;
    let (x0, y0) = frontier[idx - 1];
    let (x1, y1) = frontier[idx];
    if x1 <= x0 {
        return Some(y1);
    }
    Some(y0 + (y1 - y0) * (target - x0) / (x1 - x0))
}

/// The index of the frontier point that serves `target` best: the first point at or
/// above it (the frontier's best objective among points fast enough).
pub fn point_at(frontier_x: &[f64], target: f64) -> Option<usize> {
    frontier_x.iter().position(|&x| x >= target)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dominated_points_are_dropped() {
        let pts = [
            (1.0, 10.0),
            (2.0, 8.0),
            (1.5, 7.0),
            (3.0, 1.0),
            (2.0, 8.0),
            (0.5, 10.0),
        ];
        let f = pareto(&pts);
        let xs: Vec<(f64, f64)> = f.iter().map(|&i| pts[i]).collect();
        assert_eq!(xs, vec![(1.0, 10.0), (2.0, 8.0), (3.0, 1.0)]);
    }

    #[test]
    fn nan_never_on_frontier() {
        let pts = [(f64::NAN, 100.0), (1.0, 1.0)];
        assert_eq!(pareto(&pts), vec![1]);
    }

    #[test]
    fn interpolation_is_linear_between_neighbours() {
        let f = [(10.0, 100.0), (20.0, 50.0), (40.0, 10.0)];
        assert_eq!(value_at(&f, 5.0), Some(100.0));
        assert_eq!(value_at(&f, 15.0), Some(75.0));
        assert_eq!(value_at(&f, 30.0), Some(30.0));
        assert_eq!(value_at(&f, 40.0), Some(10.0));
        assert_eq!(value_at(&f, 41.0), None);
        assert_eq!(value_at(&[], 1.0), None);
    }
}
