//! What a step costs: the operators the kernel costs ([`OpKind`]), each one's totals
//! over the step ([`OpCost`]), and the step's own ([`StepCost`]): the kernel's result,
//! apart from how it is computed (`step.rs`) so that its readers need not see the walk.

use super::{Side, StepShape, TwoBatchOverlap};
use crate::units::{Bytes, Flops, Seconds};
use serde::{Deserialize, Serialize};

/// The operators the kernel costs; each result carries one entry per kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OpKind {
    /// QKV and output projections.
    AttnProj,
    /// Scores, softmax and the weighted sum over the KV cache.
    AttnCore,
    /// Dense SwiGLU FFN layers.
    DenseFfn,
    /// Always-active shared experts of MoE layers.
    SharedExperts,
    /// Router and the routed experts the step's tokens touch.
    RoutedExperts,
    /// The output projection to the vocabulary.
    LmHead,
    /// Tensor-parallel all-reduces.
    TpComm,
    /// Expert-parallel all-to-all (dispatch and combine).
    EpComm,
    /// Pipeline-stage hand-offs.
    PpComm,
}

impl OpKind {
    pub const COUNT: usize = 9;
    pub const ALL: [OpKind; OpKind::COUNT] = [
        OpKind::AttnProj,
        OpKind::AttnCore,
        OpKind::DenseFfn,
        OpKind::SharedExperts,
        OpKind::RoutedExperts,
        OpKind::LmHead,
        OpKind::TpComm,
        OpKind::EpComm,
        OpKind::PpComm,
    ];

    pub fn name(self) -> &'static str {
        match self {
            OpKind::AttnProj => "attention projections",
            OpKind::AttnCore => "attention core",
            OpKind::DenseFfn => "dense FFN",
            OpKind::SharedExperts => "shared experts",
            OpKind::RoutedExperts => "routed experts",
            OpKind::LmHead => "LM head",
            OpKind::TpComm => "TP all-reduce",
            OpKind::EpComm => "EP exchange",
            OpKind::PpComm => "PP hand-off",
        }
    }

    pub fn is_communication(self) -> bool {
        matches!(self, OpKind::TpComm | OpKind::EpComm | OpKind::PpComm)
    }
}

/// One operator kind's totals over the step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OpCost {
    pub flops: Flops,
    /// Bytes moved through memory (or over the link, for communication).
    pub bytes: Bytes,
    /// Sum over layers of `FLOPs / effective compute`.
    pub compute_time: Seconds,
    /// Sum over layers of `bytes / effective bandwidth` (or link time).
    pub memory_time: Seconds,
    /// Sum over layers of the per-layer roofline maximum.
    pub time: Seconds,
    /// Part of `time` in layers where compute was the larger term.
    pub compute_bound_time: Seconds,
    pub kernels: f64,
}

/// What a step costs on one chip.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepCost {
    pub ops: [OpCost; OpKind::COUNT],
    /// Kernels launched.
    pub kernels: f64,
    /// Time of the non-communication operators.
    pub busy: Seconds,
    /// Kernel launches and the step's host work. In an eager prompt step whose Python
    /// launches outlast its device work, the launch part is what they add beyond it.
    pub overhead: Seconds,
    /// The host-work part of `overhead` ([`crate::Assumptions::host_overhead`]).
    pub host: Seconds,
    /// An eager prompt step's Python launches, `n_k x t_ek`
    /// ([`super::step::eager_launches`]); zero in a step that replays CUDA graphs or
    /// launches natively.
    pub eager_launches: Seconds,
    /// Communication time left exposed after overlap.
    pub exposed_comm: Seconds,
    pub total: Seconds,
    /// A prefill step whose two micro-batches overlap their expert all-to-all: its MoE
    /// layers' times, which set the exposed communication window by window
    /// (`audit/MODEL.md` 6.3.1); `None` otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub two_batch: Option<TwoBatchOverlap>,
    /// Weights the serving engine offloads on purpose and prefetches
    /// (`Assumptions::weight_offload`): their stream from the cold tier, which runs
    /// beside the whole step (`audit/MODEL.md` section 3); zero otherwise.
    #[serde(default)]
    pub prefetch: Seconds,
    /// What of `prefetch` outlasts the rest of the step, added to `total`.
    #[serde(default)]
    pub prefetch_stall: Seconds,
    /// The step this costs, and which part of the model: enough, with the placement,
    /// to cost it again operator by operator ([`operator_table`](super::operator_table)).
    pub shape: StepShape,
    pub side: Side,
}

impl StepCost {
    pub fn op(&self, kind: OpKind) -> &OpCost {
        &self.ops[kind as usize]
    }

    /// The step's time without its host work, its device part: operators, exposed
    /// communication and kernel launches. What one stage of a larger engine step (a
    /// draft token, one side of a split model) adds.
    pub fn without_host_overhead(&self) -> Seconds {
        self.busy + self.exposed_comm + (self.overhead - self.host)
    }

    /// The overheads as the step pays them: its kernel launches and the host work the
    /// device does not hide, all of it in series, what outlasts the device's part where
    /// the engine overlaps the two (MODEL.md 3.5). With the operators' times and the
    /// exposed communication it adds up to the step.
    pub fn exposed_overhead(&self) -> Seconds {
        self.total - self.busy - self.exposed_comm - self.prefetch_stall
    }

    pub fn flops(&self) -> Flops {
        self.ops.iter().map(|o| o.flops).sum()
    }
}
