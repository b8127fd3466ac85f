//! Collecting a sweep's candidates one chip pairing at a time, keeping only the points
//! on that pairing's own frontiers.

use super::slo::{Slo, SloMisses};
use super::space::BatchChoice;
use crate::disagg::{Deployment, Figures, Reject};
use crate::frontier::{pareto, Objective};
use std::collections::BTreeMap;

/// Collects candidates one chip pairing at a time, keeping each pairing's frontier.
pub(super) struct Collector<'a> {
    pub(super) slo: Slo,
    /// The batches the request allows; the axes read it where they enumerate batches.
    pub(super) batch: BatchChoice,
    pub(super) misses: SloMisses,
    pub(super) group: Vec<(Deployment<'a>, Figures)>,
    pub(super) kept: Vec<(Deployment<'a>, Figures)>,
    pub(super) evaluated: u64,
    pub(super) feasible: u64,
    pub(super) rejected: BTreeMap<Reject, u64>,
}

impl<'a> Collector<'a> {
    pub(super) fn new(slo: Slo, batch: BatchChoice) -> Self {
        Collector {
            slo,
            batch,
            misses: SloMisses::default(),
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
            self.misses.count(&self.slo, &f);
            self.group.push((d, f));
        }
    }

    /// Ends a pairing: keeps the points on its throughput or cost frontier, and, with
    /// an SLO, those on the frontiers of the points that meet it (a point that meets
    /// the SLO may be dominated only by points that miss it).
    pub(super) fn flush(&mut self) {
        let mut keep = vec![false; self.group.len()];
        let slo = self.slo;
        let subsets: &[bool] = if slo.is_set() {
            &[false, true]
        } else {
            &[false]
        };
        for &meeting_only in subsets {
            for objective in Objective::ALL {
                let xy: Vec<(f64, f64)> = self
                    .group
                    .iter()
                    .map(|(_, f)| match objective.score(f) {
                        Some(y) if !meeting_only || slo.met_by(f) => (f.tok_s_user.0, y),
                        _ => (f64::NAN, f64::NAN),
                    })
                    .collect();
                for i in pareto(&xy) {
                    keep[i] = true;
                }
            }
        }
        for (i, item) in self.group.drain(..).enumerate() {
            if keep[i] {
                self.kept.push(item);
            }
        }
    }
}
