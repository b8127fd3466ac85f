//! The machine-readable report of one evaluated deployment, the same shape on every
//! axis: the deployment's figures and pools, plus headline keys read off the pool that
//! generates tokens (its chip and layout, its decode step and where that step's time
//! goes, operator by operator) and the memory of the fullest chip. The CLI's `--json`
//! prints exactly this.

use super::topology::Topology;
use super::DeploymentPoint;
use crate::dtype::Precision;
use crate::explain::Chain;
use crate::kernel::{OpKind, TimeBreakdown};
use crate::validation::ErrorBand;
use crate::DType;
use serde::Serialize;
use std::collections::BTreeMap;

/// One operator's share of the decode step.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OpRow {
    pub op: &'static str,
    pub time_s: f64,
    pub flops: f64,
    pub bytes: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct PointReport<'a> {
    pub model: &'a str,
    /// Attention and the other non-expert weights.
    pub weight_dtype: &'static str,
    /// The experts' weights (`weight_dtype` unless set apart).
    pub expert_dtype: &'static str,
    /// The attention output projections (`weight_dtype` unless set apart).
    pub attn_out_dtype: &'static str,
    /// The LM head and embedding tables (`weight_dtype` unless set apart).
    pub lm_head_dtype: &'static str,
    pub kv_dtype: &'static str,
    #[serde(flatten)]
    pub point: &'a DeploymentPoint,
    /// The generating pool's chip id and layout.
    pub chip: &'a str,
    pub tp: u32,
    pub pp: u32,
    pub dp: u32,
    pub ep: u32,
    /// The largest concurrency the generating pool's memory holds.
    pub max_batch: u64,
    /// The generating pool's step: a decode step, or the time per token of a
    /// speculating or split decode.
    pub decode_step_s: f64,
    /// The colocated pool's prefill step (a chunk of prompts), where it has one.
    pub prefill_step_s: Option<f64>,
    /// The fullest chip of any pool.
    pub mem_per_chip_bytes: f64,
    /// The generating pool's memory split.
    pub mem_weights_bytes: f64,
    pub mem_kv_bytes: f64,
    pub mem_workspace_bytes: f64,
    pub mem_capacity_bytes: f64,
    pub decode_time_s: TimeBreakdown,
    pub decode_ops: Vec<OpRow>,
    /// The decode pool's output tokens per second per decode chip, as delivered: a
    /// headline figure of a prefill/decode deployment (null on other axes).
    pub output_tok_s_per_decode_chip: Option<f64>,
    /// The prefill pool's input tokens per second per prefill chip, as delivered.
    pub input_tok_s_per_prefill_chip: Option<f64>,
    /// How far off each headline figure may be: the measured error of comparable
    /// hold-out points ([`crate::validation::headline_bands`]), keyed by the figure's
    /// key; empty until [`PointReport::with_error_bands`] sets it.
    pub error_band: BTreeMap<&'static str, Option<ErrorBand>>,
    /// Every headline figure opened into its formula and inputs
    /// ([`super::explain::explain`]).
    pub explain: &'a [Chain],
    /// The pools and links with how busy each is ([`super::topology::topology`]);
    /// absent until [`PointReport::with_topology`] sets it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub topology: Option<&'a Topology>,
}

impl<'a> PointReport<'a> {
    pub fn new(
        model: &'a str,
        weights: Precision,
        kv: DType,
        point: &'a DeploymentPoint,
        explain: &'a [Chain],
    ) -> Option<PointReport<'a>> {
        let g = point.generating_pool()?;
        let ops = g
            .costs
            .generation
            .map(|cost| {
                OpKind::ALL
                    .iter()
                    .map(|&k| {
                        let op = cost.op(k);
                        OpRow {
                            op: k.name(),
                            time_s: op.time.0,
                            flops: op.flops.0,
                            bytes: op.bytes.0,
                        }
                    })
                    .collect()
            })
            .unwrap_or_default();
        let prefill_step_s = match point.axis {
            super::Axis::Aggregated => g.costs.prefill.map(|c| c.total.0),
            _ => None,
        };
        Some(PointReport {
            model,
            weight_dtype: weights.dense.dtype.name(),
            expert_dtype: weights.experts.dtype.name(),
            attn_out_dtype: weights.attn_out.dtype.name(),
            lm_head_dtype: weights.lm_head.dtype.name(),
            kv_dtype: kv.name(),
            point,
            chip: &g.chip,
            tp: g.parallelism.tp,
            pp: g.parallelism.pp,
            dp: g.parallelism.dp,
            ep: g.parallelism.ep,
            max_batch: point.max_batch(),
            decode_step_s: g.step.0,
            prefill_step_s,
            mem_per_chip_bytes: point
                .pools
                .iter()
                .map(|x| x.memory.total.0)
                .fold(0.0, f64::max),
            mem_weights_bytes: g.memory.weights.0,
            mem_kv_bytes: g.memory.kv.0,
            mem_workspace_bytes: g.memory.workspace.0,
            mem_capacity_bytes: (g.memory.fast_capacity + g.memory.cold_capacity).0,
            decode_time_s: g.time,
            decode_ops: ops,
            output_tok_s_per_decode_chip: point.output_tok_s_per_decode_chip().map(|v| v.0),
            input_tok_s_per_prefill_chip: point.input_tok_s_per_prefill_chip().map(|v| v.0),
            error_band: BTreeMap::new(),
            explain,
            topology: None,
        })
    }

    /// The report with the deployment's topology.
    pub fn with_topology(self, topology: &'a Topology) -> Self {
        PointReport {
            topology: Some(topology),
            ..self
        }
    }

    /// The report with the error bands of its headline figures.
    pub fn with_error_bands(self, error_band: BTreeMap<&'static str, Option<ErrorBand>>) -> Self {
        PointReport { error_band, ..self }
    }
}
