//! The operator table of one step: the kernel's roofline rows (each operator of each
//! layer group) with their FLOPs, bytes by kind, arithmetic intensity, what bounds them
//! and their share of the step, so a person can see which operator sets a TPOT and why.
//!
//! The table is the step costed again with a sink that keeps the rows, from the shape
//! and side the [`StepCost`] records: the same arithmetic as the totals, never a second
//! formula. Its times add up to the step's: every compute and memory row at its time
//! from both bounds (`operator_time`), named by the larger; each communication row at its
//! exposed part (the step's exposed communication shared in proportion to the rows' link
//! times); and one row for kernel launches and the host work the device does not hide
//! (all of it, in series).

use super::row::{Row, RowSink};
use super::step::traced_step_cost;
use super::{OpKind, Placement, StepCost};
use crate::model::{Attention, Ffn, LayerGroup};
use crate::units::{Bytes, Flops, Seconds};
use serde::Serialize;

/// What bounds an operator's time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Bound {
    Compute,
    Memory,
    Communication,
    Overhead,
}

impl Bound {
    pub fn name(self) -> &'static str {
        match self {
            Bound::Compute => "compute",
            Bound::Memory => "memory",
            Bound::Communication => "communication",
            Bound::Overhead => "overhead",
        }
    }
}

/// One operator of one layer group, over all the group's layers.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OperatorRow {
    /// The layer group ("58 layers: MLA, MoE 256 experts top-8"), or what the row
    /// belongs to when it is not a layer's ("LM head", "pipeline", "step").
    pub layers: String,
    pub op: &'static str,
    pub flops: Flops,
    pub weight_bytes: Bytes,
    pub kv_bytes: Bytes,
    /// Activations read and written (for routed experts, the router's weights too).
    pub activation_bytes: Bytes,
    /// Bytes sent over a link.
    pub link_bytes: Bytes,
    /// FLOPs per byte of memory traffic; `None` when the row moves no memory bytes.
    pub intensity: Option<f64>,
    pub bound: Bound,
    /// The row's part of the step time.
    #[serde(rename = "time_s")]
    pub time: Seconds,
    /// `time` over the step's time.
    pub share: f64,
}

/// A step's operator rows; their times add up to `step`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OperatorTable {
    /// What step this is ("decode step", "prefill step").
    pub phase: &'static str,
    #[serde(rename = "step_s")]
    pub step: Seconds,
    pub rows: Vec<OperatorRow>,
}

impl RowSink for Vec<(Option<usize>, Row)> {
    fn row(&mut self, group: Option<usize>, row: &Row) {
        self.push((group, *row));
    }
}

/// `cost` (a step of `p`) operator by operator.
pub fn operator_table(p: &Placement, cost: &StepCost, phase: &'static str) -> OperatorTable {
    let mut raw: Vec<(Option<usize>, Row)> = Vec::new();
    traced_step_cost(p, cost.shape, cost.side, &mut raw);
    let comm: Seconds = raw
        .iter()
        .filter(|(_, r)| r.kind.is_communication())
        .map(|(_, r)| r.memory * r.count)
        .sum();
    // Each communication row keeps its share of what overlap leaves exposed.
    let exposed = if comm.value() > 0.0 {
        cost.exposed_comm / comm
    } else {
        0.0
    };
    let share = |t: Seconds| {
        if cost.total.value() > 0.0 {
            t / cost.total
        } else {
            0.0
        }
    };
    let mut rows: Vec<OperatorRow> = raw
        .iter()
        .map(|(group, r)| {
            let memory_bytes = r.bytes.weights + r.bytes.kv + r.bytes.activations;
            let (bound, time) = if r.kind.is_communication() {
                (Bound::Communication, r.memory * r.count * exposed)
            } else {
                // Named by the larger bound; timed by both.
                let bound = if r.compute >= r.memory {
                    Bound::Compute
                } else {
                    Bound::Memory
                };
                (bound, r.time() * r.count)
            };
            OperatorRow {
                layers: match group {
                    Some(g) => group_label(&p.model.groups[*g]),
                    None if r.kind == OpKind::PpComm => "pipeline".into(),
                    None => "LM head".into(),
                },
                op: r.kind.name(),
                flops: r.flops * r.count,
                weight_bytes: r.bytes.weights * r.count,
                kv_bytes: r.bytes.kv * r.count,
                activation_bytes: r.bytes.activations * r.count,
                link_bytes: r.bytes.link * r.count,
                intensity: (memory_bytes.value() > 0.0)
                    .then(|| r.flops.value() / memory_bytes.value()),
                bound,
                time,
                share: share(time),
            }
        })
        .collect();
    rows.push(OperatorRow {
        layers: "step".into(),
        op: "kernel launches and host work",
        flops: Flops::ZERO,
        weight_bytes: Bytes::ZERO,
        kv_bytes: Bytes::ZERO,
        activation_bytes: Bytes::ZERO,
        link_bytes: Bytes::ZERO,
        intensity: None,
        bound: Bound::Overhead,
        time: cost.exposed_overhead(),
        share: share(cost.exposed_overhead()),
    });
    OperatorTable {
        phase,
        step: cost.total,
        rows,
    }
}

/// "58 layers: MLA, MoE 256 experts top-8".
fn group_label(g: &LayerGroup) -> String {
    let attention = match g.attention {
        Attention::Gqa {
            heads, kv_heads, ..
        } => format!("GQA {heads}/{kv_heads} heads"),
        Attention::Mla { heads, .. } => format!("MLA {heads} heads"),
        Attention::Linear => "linear in place of attention".into(),
        Attention::Skipped => "no attention".into(),
    };
    let window = g.window.map_or(String::new(), |w| format!(" (window {w})"));
    let ffn = match g.ffn {
        Ffn::Dense { .. } => "dense FFN".into(),
        Ffn::Moe { experts, top_k, .. } => format!("MoE {experts} experts top-{top_k}"),
        Ffn::Linear => "linear in place of the FFN".into(),
        Ffn::Skipped => "no FFN".into(),
    };
    let layers = if g.count == 1 { "layer" } else { "layers" };
    format!("{} {layers}: {attention}{window}, {ffn}", g.count)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assumptions::{Assumptions, ChipRates};
    use crate::catalogue::Catalogue;
    use crate::dtype::{DType, Precision, WeightFormat};
    use crate::kernel::{step_cost, StepShape};
    use crate::parallel::Parallelism;

    fn table(
        model: &str,
        par: Parallelism,
        shape: StepShape,
        overlap: f64,
    ) -> (StepCost, OperatorTable) {
        let cat = Catalogue::builtin();
        let model = &cat.model(model).unwrap().ir;
        let chip = cat.chip("h100-sxm").unwrap();
        let assumptions = Assumptions {
            comm_overlap: overlap,
            ..Assumptions::default()
        };
        let p = Placement {
            model,
            chip,
            parallelism: par,
            weights: Precision::uniform(WeightFormat::new(DType::Fp8)),
            kv: DType::Fp8,
            rates: ChipRates::for_chip(chip, &assumptions),
            assumptions,
            cold_weight_fraction: 0.0,
        };
        let cost = step_cost(&p, shape);
        let t = operator_table(&p, &cost, "decode step");
        (cost, t)
    }

    fn sum(t: &OperatorTable) -> f64 {
        t.rows.iter().map(|r| r.time.value()).sum()
    }

    #[test]
    fn the_rows_add_up_to_the_step_and_its_totals() {
        let par = Parallelism {
            tp: 8,
            pp: 2,
            dp: 1,
            ep: 8,
        };
        for overlap in [0.0, 0.5] {
            for shape in [
                StepShape::decode(64.0, 9000.0),
                StepShape::prefill(2.0, 4096.0, 0.0),
            ] {
                let (cost, t) = table("deepseek-v3", par, shape, overlap);
                assert!((sum(&t) - cost.total.value()).abs() < 1e-9 * cost.total.value());
                assert!((t.rows.iter().map(|r| r.share).sum::<f64>() - 1.0).abs() < 1e-9);
                // The rows' FLOPs and bytes are the step's, operator kind by kind.
                for kind in OpKind::ALL {
                    let rows = t.rows.iter().filter(|r| r.op == kind.name());
                    let (flops, bytes) = rows.fold((0.0, 0.0), |(f, b), r| {
                        let moved = r.weight_bytes + r.kv_bytes + r.activation_bytes + r.link_bytes;
                        (f + r.flops.value(), b + moved.value())
                    });
                    let op = cost.op(kind);
                    assert!((flops - op.flops.value()).abs() <= 1e-9 * op.flops.value().max(1.0));
                    assert!((bytes - op.bytes.value()).abs() <= 1e-9 * op.bytes.value().max(1.0));
                }
            }
        }
    }

    #[test]
    fn a_large_batch_decode_reads_weights_and_a_prefill_computes() {
        let one = Parallelism::single();
        let (_, decode) = table("llama-3.1-8b", one, StepShape::decode(1.0, 1000.0), 0.0);
        let ffn = decode.rows.iter().find(|r| r.op == "dense FFN").unwrap();
        assert_eq!(ffn.bound, Bound::Memory);
        assert_eq!(ffn.layers, "32 layers: GQA 32/8 heads, dense FFN");
        // One token per weight read: 2 FLOPs per weight, one byte per FP8 weight, plus
        // the activations: an intensity just under 2.
        let intensity = ffn.intensity.unwrap();
        assert!(intensity > 1.9 && intensity <= 2.0, "{intensity}");
        let (_, prefill) = table(
            "llama-3.1-8b",
            one,
            StepShape::prefill(1.0, 8192.0, 0.0),
            0.0,
        );
        let ffn = prefill.rows.iter().find(|r| r.op == "dense FFN").unwrap();
        assert_eq!(ffn.bound, Bound::Compute);
        assert!(ffn.intensity.unwrap() > 1000.0);
    }
}
