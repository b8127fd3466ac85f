//! Collecting a sweep's candidates one chip pairing at a time, keeping only the points
//! on that pairing's own frontiers.

use crate::disagg::{Deployment, Figures, Reject};
use crate::frontier::{pareto, Objective};
use std::collections::BTreeMap;

/// Collects candidates one chip pairing at a time, keeping each pairing's frontier.
pub(super) struct Collector<'a> {
    pub(super) group: Vec<(Deployment<'a>, Figures)>,
    pub(super) kept: Vec<(Deployment<'a>, Figures)>,
    pub(super) evaluated: u64,
    pub(super) feasible: u64,
    pub(super) rejected: BTreeMap<Reject, u64>,
}

impl<'a> Collector<'a> {
    pub(super) fn new() -> Self {
        Collector {
            group: Vec::new(),
            kept: Vec::new(),
            evaluated: 0,
            feasible: 0,
            rejected: BTreeMap::new(),
        }
    }

    pub(super) fn reject(&mut self, r: Reject) {
        self.evaluated += 1;
        *self.rejected.entry(r).or_default() += 1;
    }

    /// Counts a side that was costed and fits.
    pub(super) fn costed(&mut self) {
        self.evaluated += 1;
    }

    pub(super) fn push(&mut self, d: Deployment<'a>, f: Figures) {
        self.evaluated += 1;
        if f.is_finite() && f.output_tok_s.0 > 0.0 {
            self.feasible += 1;
            self.group.push((d, f));
        }
    }

    /// Ends a pairing: keeps the points on its throughput or cost frontier.
    pub(super) fn flush(&mut self) {
        let mut keep = vec![false; self.group.len()];
        for objective in Objective::ALL {
            let xy: Vec<(f64, f64)> = self
                .group
                .iter()
                .map(|(_, f)| (f.tok_s_user.0, objective.score(f).unwrap_or(f64::NAN)))
                .collect();
            for i in pareto(&xy) {
                keep[i] = true;
            }
        }
        for (i, item) in self.group.drain(..).enumerate() {
            if keep[i] {
                self.kept.push(item);
            }
        }
    }
}
