//! Collecting a sweep's candidates one chip pairing at a time, keeping only the points
//! on that pairing's own frontiers.

use super::slo::{Slo, SloMisses};
use super::space::BatchChoice;
use crate::disagg::{Deployment, Figures, Reject};
use crate::frontier::{by_x, pareto_in, Objective, Staircase};
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
    /// The pairing's frontiers so far, one per [`Self::frontiers`].
    stairs: [Staircase; 4],
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
            stairs: Default::default(),
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
            if self.may_be_kept(&f) {
                self.group.push((d, f));
            }
        }
    }

    /// Whether a point can be on one of the pairing's frontiers that [`Self::flush`]
    /// keeps: offered to each frontier's staircase (every one, so each stays whole),
    /// it is held only if one takes it. A point no staircase takes is dominated by
    /// one already held, so flushing without it keeps exactly the same points, for a
    /// fraction of the memory and sorting.
    fn may_be_kept(&mut self, f: &Figures) -> bool {
        let met = self.slo.met_by(f);
        let mut taken = false;
        for (k, (meeting_only, objective)) in self.frontiers().enumerate() {
            if meeting_only && !met {
                continue;
            }
            if let Some(y) = objective.score(f) {
                taken |= self.stairs[k].offer(f.tok_s_user.0, y);
            }
        }
        taken
    }

    /// The frontiers a pairing keeps: each objective over all points, and with an SLO
    /// over the points that meet it too.
    fn frontiers(&self) -> impl Iterator<Item = (bool, Objective)> {
        let subsets: &'static [bool] = if self.slo.is_set() {
            &[false, true]
        } else {
            &[false]
        };
        subsets
            .iter()
            .flat_map(|&m| Objective::ALL.into_iter().map(move |o| (m, o)))
    }

    /// Ends a pairing: keeps the points on its throughput or cost frontier, and, with
    /// an SLO, those on the frontiers of the points that meet it (a point that meets
    /// the SLO may be dominated only by points that miss it).
    pub(super) fn flush(&mut self) {
        let mut keep = vec![false; self.group.len()];
        let slo = self.slo;
        let xs: Vec<f64> = self.group.iter().map(|(_, f)| f.tok_s_user.0).collect();
        let order = by_x(&xs);
        for (meeting_only, objective) in self.frontiers() {
            let y = |i: usize| {
                let f = &self.group[i].1;
                match objective.score(f) {
                    Some(y) if !meeting_only || slo.met_by(f) => y,
                    _ => f64::NAN,
                }
            };
            for i in pareto_in(&order, &xs, y) {
                keep[i] = true;
            }
        }
        for (i, item) in self.group.drain(..).enumerate() {
            if keep[i] {
                self.kept.push(item);
            }
        }
        self.stairs.iter_mut().for_each(Staircase::clear);
    }
}
