//! A published point as a reproducible bundle: the one mapping from a validation row
//! to the engine's inputs, so that the table, `disagg predict --bundle` and the page's
//! explorer predict a point by the same path and give the same figure to the last
//! digit (`tests/it/reproduce.rs` checks every row).

use super::table::BenchmarkPoint;
use crate::assumptions::Assumptions;
use crate::bundle::explain_bundle;
use crate::bundle::{Bundle, LinkSettings, ModelSource, SpeculationSettings, Weights};
use crate::catalogue::{Catalogue, Chip};
use crate::disagg::explain::Explained;
use crate::disagg::plan::{plan, PoolChoice};
use crate::disagg::{Axis, DeploymentPoint, PoolRole, DEFAULT_EAGLE_LAYERS};
use crate::error::{EngineError, Result};
use crate::parallel::Parallelism;

/// Micro-batches the planner tries on the attention/expert axis, as `disagg predict`
/// does by default.
const MICRO_BATCHES: u32 = 2;

/// The bundle that reproduces `point`'s prediction: its model, workload, precision,
/// speculation, link and assumptions (the framework's and the row's own settings over
/// `base`), its pools' chips, and as its deployment the layout and batch the point
/// states (the planner's best where an aggregated point leaves the layout open, the
/// largest batch that fits where it gives none). A point read at an interactivity
/// (`at`) has no single deployment and is refused.
pub fn point_bundle(
    catalogue: &Catalogue,
    point: &BenchmarkPoint,
    base: &Assumptions,
) -> Result<Bundle> {
    if point.at.is_some() {
        return Err(EngineError::InvalidInput(format!(
            "{} is read at an interactivity, between two batches, so no one deployment reproduces it",
            point.id
        )));
    }
    Ok(planned(catalogue, point, base)?.0)
}

/// The point's bundle and the deployment point its plan evaluated (at the planned
/// batch; an open loop's rate is applied by [`crate::bundle::evaluate_bundle`]). A
/// point read at an interactivity is planned at the batch it states, which its
/// bisection fixes.
pub(super) fn planned(
    catalogue: &Catalogue,
    point: &BenchmarkPoint,
    base: &Assumptions,
) -> Result<(Bundle, DeploymentPoint)> {
    let axis = point.axis.unwrap_or(Axis::Aggregated);
    let pools = pools(catalogue, point, axis)?;
    let mut chips: Vec<Chip> = Vec::new();
    for (_, p) in &pools {
        if !chips.iter().any(|c| c.id == p.chip.id) {
            chips.push(p.chip.clone());
        }
    }
    let mut b = Bundle::new(
        ModelSource::Catalogue(point.model.clone()),
        point.workload(),
        chips,
        axis,
    );
    b.weights = Weights {
        dtype: Some(point.weight_dtype),
        bits: point.weight_bits,
        expert_dtype: point.expert_dtype,
        attn_out_dtype: point.attn_out_dtype,
        lm_head_dtype: point.lm_head_dtype,
    };
    b.kv_dtype = point.kv_dtype;
    b.speculation = speculation(point, &b.speculation);
    b.link = LinkSettings {
        id: point.link.clone(),
        ..LinkSettings::default()
    };
    b.sweep.batch = point.batch;
    b.assumptions = point.assumptions(base);
    let (spec, evaluated) = {
        let inputs = b.inputs(catalogue)?;
        let (deployment, evaluated) =
            plan(&inputs.setup(), axis, &pools, point.batch, MICRO_BATCHES)?;
        (deployment.spec(), evaluated)
    };
    b.deployment = Some(spec);
    Ok((b, evaluated))
}

/// The prediction of `point` opened into formulas and operator tables: its bundle's
/// deployment explained ([`explain_bundle`]).
pub fn explain_point(
    catalogue: &Catalogue,
    point: &BenchmarkPoint,
    base: &Assumptions,
) -> Result<Explained> {
    explain_bundle(catalogue, &point_bundle(catalogue, point, base)?)
}

/// The point's speculation: its MTP layers or EAGLE head as stated, else the bundle's
/// starting settings (which only a speculating deployment reads).
fn speculation(point: &BenchmarkPoint, start: &SpeculationSettings) -> SpeculationSettings {
    match (point.mtp, point.eagle) {
        (Some(m), _) => SpeculationSettings {
            draft: None,
            eagle_layers: None,
            acceptance: m.acceptance,
            draft_tokens: m.draft_tokens,
            speculative_decode: true,
        },
        (None, Some(e)) => SpeculationSettings {
            draft: None,
            eagle_layers: Some(e.layers.unwrap_or(DEFAULT_EAGLE_LAYERS)),
            acceptance: e.acceptance,
            draft_tokens: e.draft_tokens,
            // On the prefill/decode axis the decode pool drafts with the head; on the
            // speculative axis the target does.
            speculative_decode: point.axis == Some(Axis::PrefillDecode),
        },
        (None, None) => start.clone(),
    }
}

/// The point's pools: one colocated pool of its chips (its layout where it states
/// one), or the pools a disaggregated point lists.
fn pools<'a>(
    catalogue: &'a Catalogue,
    point: &BenchmarkPoint,
    axis: Axis,
) -> Result<Vec<(PoolRole, PoolChoice<'a>)>> {
    if axis == Axis::Aggregated {
        let parallelism = point.tp.map(|tp| {
            let pp = point.pp.unwrap_or(1);
            Parallelism {
                tp,
                pp,
                dp: point.chips / (tp * pp).max(1),
                ep: point.ep.unwrap_or(1),
            }
        });
        return Ok(vec![(
            PoolRole::Colocated,
            PoolChoice {
                chip: catalogue.chip(&point.chip)?,
                chips: parallelism.map_or(point.chips, |p| p.chips()),
                parallelism,
            },
        )]);
    }
    point
        .pool
        .iter()
        .map(|p| {
            let parallelism = Parallelism {
                tp: p.tp,
                pp: p.pp,
                dp: p.dp,
                ep: p.ep,
            };
            Ok((
                p.role,
                PoolChoice {
                    chip: catalogue.chip(&p.chip)?,
                    chips: parallelism.chips(),
                    parallelism: Some(parallelism),
                },
            ))
        })
        .collect()
}
