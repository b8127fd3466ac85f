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
            Objective::CostPerMtok => f.ranked_usd_per_mtok_output().map(|u| u.0),
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
    let xs: Vec<f64> = xy.iter().map(|p| p.0).collect();
    let mut keep = pareto_in(&by_x(&xs), &xs, |i| xy[i].1);
    keep.reverse();
    keep
}

/// The indices of the finite `xs`, best first: `x` falling, the lower index first
/// among equal `x`. One order serves the frontiers of every `y` over the same `x`
/// (as every objective shares tok/s/user), so a sweep sorts once, not once per
/// objective.
pub fn by_x(xs: &[f64]) -> Vec<usize> {
    let mut order: Vec<(f64, usize)> = xs
        .iter()
        .enumerate()
        .filter(|(_, x)| x.is_finite())
        .map(|(i, &x)| (x, i))
        .collect();
    order.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    order.into_iter().map(|(_, i)| i).collect()
}

/// The non-dominated points among `order` (from [`by_x`] over `xs`) when `x` and
/// `y(i)` are maximised, `x` falling. Of the points that share an `x`, only the best
/// `y` (the lowest index among equals) can be on the frontier: it is kept when it
/// beats every `y` of a larger `x`. Points with a non-finite `y` are skipped.
pub fn pareto_in(order: &[usize], xs: &[f64], y: impl Fn(usize) -> f64) -> Vec<usize> {
    let mut keep = Vec::new();
    let mut best_y = f64::NEG_INFINITY;
    let mut at = 0;
    while at < order.len() {
        let x = xs[order[at]];
        let mut end = at;
        let mut group_best: Option<(f64, usize)> = None;
        while end < order.len() && xs[order[end]].total_cmp(&x).is_eq() {
            let i = order[end];
            let v = y(i);
            if v.is_finite() && group_best.is_none_or(|(b, _)| v > b) {
                group_best = Some((v, i));
            }
            end += 1;
        }
        if let Some((v, i)) = group_best {
            if v > best_y {
                best_y = v;
                keep.push(i);
            }
        }
        at = end;
    }
    keep
}

/// The frontier of the points offered so far, kept as they come (both coordinates
/// maximised): the steps run `x` falling, `y` rising. A sweep offers each point as it
/// is costed and keeps only those that join: a point turned away is dominated by one
/// offered earlier, so it is on no frontier of all the points (dominance is
/// transitive, and an earlier identical point wins, as [`pareto`] keeps the first).
#[derive(Clone, Debug, Default)]
pub struct Staircase {
    steps: Vec<(f64, f64)>,
}

impl Staircase {
    /// Offers a point: `false` when an earlier point is at least as good on both
    /// coordinates (or the point is not finite); otherwise it joins, pushing out the
    /// steps it beats, and `true`.
    pub fn offer(&mut self, x: f64, y: f64) -> bool {
        if !(x.is_finite() && y.is_finite()) {
            return false;
        }
        // Steps at least as interactive: a prefix; the last has the best y of them.
        let k = self.steps.partition_point(|s| s.0 >= x);
        if k > 0 && self.steps[k - 1].1 >= y {
            return false;
        }
        // Steps the point beats: one at the same x, then those below it in y.
        let start = if k > 0 && self.steps[k - 1].0 == x {
            k - 1
        } else {
            k
        };
        let end = k + self.steps[k..].partition_point(|s| s.1 <= y);
        self.steps.splice(start..end, [(x, y)]);
        true
    }

    pub fn clear(&mut self) {
        self.steps.clear();
    }
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
    fn the_staircase_turns_away_exactly_what_no_frontier_keeps() {
        // Random clouds with ties: a point the staircase turns away is never on the
        // frontier of the whole cloud, and every frontier point joined it.
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % 20) as f64
        };
        for _ in 0..500 {
            let pts: Vec<(f64, f64)> = (0..40).map(|_| (next(), next())).collect();
            let mut stairs = Staircase::default();
            let joined: Vec<bool> = pts.iter().map(|p| stairs.offer(p.0, p.1)).collect();
            let front = pareto(&pts);
            for &i in &front {
                assert!(joined[i], "frontier point {i} {:?} turned away", pts[i]);
            }
            // Frontier of the joined points alone equals the whole cloud's.
            let kept: Vec<usize> = (0..pts.len()).filter(|&i| joined[i]).collect();
            let sub: Vec<(f64, f64)> = kept.iter().map(|&i| pts[i]).collect();
            let again: Vec<usize> = pareto(&sub).into_iter().map(|k| kept[k]).collect();
            assert_eq!(again, front);
        }
        let mut s = Staircase::default();
        assert!(!s.offer(f64::NAN, 1.0));
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
