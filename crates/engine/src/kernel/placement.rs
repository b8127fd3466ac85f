//! A model placed on chips ([`Placement`]) and which of its operators the placement
//! runs ([`Side`]): everything the kernel takes besides the step's shape.

use super::OpKind;
use crate::assumptions::{Assumptions, ChipRates};
use crate::catalogue::Chip;
use crate::dtype::{DType, Precision, WeightFormat};
use crate::model::ModelIr;
use crate::parallel::Parallelism;
use serde::{Deserialize, Serialize};

/// A model placed on chips: everything the kernel needs besides the step's shape.
#[derive(Clone, Copy, Debug)]
pub struct Placement<'a> {
    pub model: &'a ModelIr,
    pub chip: &'a Chip,
    pub parallelism: Parallelism,
    /// Each component's weight format: the bytes its matmuls read and the rate they run
    /// at.
    pub weights: Precision,
    pub kv: DType,
    pub rates: ChipRates,
    pub assumptions: Assumptions,
    /// Share of each chip's weights that sits in the cold tier.
    pub cold_weight_fraction: f64,
}

impl Placement<'_> {
    /// The format of the weights `kind` reads (`audit/MODEL.md` section 4.1): the
    /// experts' for shared and routed experts, the LM head's for the head, the dense
    /// format for attention projections and dense FFNs; `None` for operators that read
    /// no weights (the attention core reads the KV cache).
    pub fn weight_format(&self, kind: OpKind) -> Option<WeightFormat> {
        match kind {
            OpKind::AttnProj | OpKind::DenseFfn => Some(self.weights.dense),
            OpKind::SharedExperts | OpKind::RoutedExperts => Some(self.weights.experts),
            OpKind::LmHead => Some(self.weights.lm_head),
            OpKind::AttnCore | OpKind::TpComm | OpKind::EpComm | OpKind::PpComm => None,
        }
    }
}

/// Which operators of the model a placement runs. A colocated deployment runs the
/// whole model; an attention/expert split runs the two halves on different pools.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Side {
    /// Every layer, the LM head and pipeline hand-offs.
    Whole,
    /// Every layer without the LM head: a pipeline stage before the last, on a model
    /// cut to its layers (`ModelIr::layer_runs`, `audit/MODEL.md` 6.10).
    Layers,
    /// Attention (and its TP all-reduce) of MoE layers only.
    MoeAttention,
    /// Dense layers in full, plus the LM head: what stays with attention when the
    /// experts move away.
    DenseAndHead,
    /// Shared and routed experts of MoE layers, without any all-to-all: the
    /// dispatch crosses the inter-pool link instead, costed by the caller.
    MoeExperts,
}
