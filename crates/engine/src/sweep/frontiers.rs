//! A sweep's result: the cloud of kept points, its frontiers (indices into the
//! cloud) overall and per class, and the callouts.

use super::callout::{callout, default_target};
use super::collect::Collector;
use super::{Class, Frontiers, RejectCount, SweepPoint, SweepRequest, SweepResult};
use crate::disagg::{pool_label, Deployment, Figures};
use crate::frontier::{pareto, Objective};

/// Indices into `points` of the frontier of `objective` over the points of `class`
/// (all points when `None`).
fn frontier_of(points: &[SweepPoint], objective: Objective, class: Option<&[Class]>) -> Vec<usize> {
    let chosen: Vec<usize> = (0..points.len())
        .filter(|&i| points[i].meets_slo && class.is_none_or(|c| c.contains(&points[i].class)))
        .collect();
    let xy: Vec<(f64, f64)> = chosen
        .iter()
        .map(|&i| {
            let f = &points[i].figures;
            (f.tok_s_user.0, objective.score(f).unwrap_or(f64::NAN))
        })
        .collect();
    pareto(&xy).into_iter().map(|k| chosen[k]).collect()
}

fn frontiers(points: &[SweepPoint], objective: Objective) -> Frontiers {
    Frontiers {
        all: frontier_of(points, objective, None),
        baseline: frontier_of(points, objective, Some(&[Class::Baseline])),
        homogeneous: frontier_of(
            points,
            objective,
            Some(&[Class::Baseline, Class::Homogeneous]),
        ),
        heterogeneous: frontier_of(points, objective, Some(&[Class::Heterogeneous])),
    }
}

pub(super) fn finish(
    req: &SweepRequest<'_>,
    col: Collector<'_>,
    notes: Vec<String>,
) -> SweepResult {
    let cloud: Vec<SweepPoint> = col
        .kept
        .iter()
        .map(|(d, f)| to_point(d, f, req.slo.met_by(f)))
        .collect();
    let throughput = frontiers(&cloud, Objective::ThroughputPerChip);
    let cost = frontiers(&cloud, Objective::CostPerMtok);
    let target = req
        .target_tok_s_user
        .unwrap_or_else(|| default_target(&cloud, &throughput));
    let callouts = vec![
        callout(
            req.axis,
            &cloud,
            &throughput,
            Objective::ThroughputPerChip,
            target,
        ),
        callout(req.axis, &cloud, &cost, Objective::CostPerMtok, target),
    ];
    let out_of_memory = col
        .rejected
        .iter()
        .filter(|(r, _)| r.is_memory())
        .map(|(_, n)| n)
        .sum();
    let slo_answer = super::slo::answer(&req.slo, &cloud, &col.misses, col.feasible, out_of_memory);
    SweepResult {
        axis: req.axis,
        slo_answer,
        evaluated: col.evaluated,
        feasible: col.feasible,
        slo: req.slo,
        slo_misses: col.misses,
        rejected: col
            .rejected
            .iter()
            .map(|(r, n)| RejectCount {
                reason: *r,
                name: r.name().to_string(),
                count: *n,
            })
            .collect(),
        throughput,
        cost,
        cloud,
        target_tok_s_user: target,
        callouts,
        notes,
        shown: None,
    }
}

fn class_of(d: &Deployment) -> Class {
    match d {
        Deployment::Aggregated { .. } => Class::Baseline,
        d if d.heterogeneous() => Class::Heterogeneous,
        _ => Class::Homogeneous,
    }
}

pub(super) fn to_point(d: &Deployment<'_>, f: &Figures, meets_slo: bool) -> SweepPoint {
    SweepPoint {
        meets_slo,
        spec: d.spec(),
        label: describe(d),
        phrase: d.roles_phrase(),
        class: class_of(d),
        figures: *f,
    }
}

/// A label for a deployment: its pools.
fn describe(d: &Deployment<'_>) -> String {
    let pools: Vec<String> = d
        .pools()
        .iter()
        .map(|(role, p)| pool_label(*role, p.chip, p.parallelism))
        .collect();
    let mut label = pools.join(" + ");
    if let Deployment::AttentionExpert { micro_batches, .. } = d {
        label.push_str(&format!(", {micro_batches} micro-batches"));
    }
    if let Deployment::Speculative { draft: None, .. } = d {
        label.push_str(" (draft colocated)");
    }
    format!("{label}, batch {}", d.batch())
}
