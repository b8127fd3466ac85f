//! The step-cost kernel: FLOPs, bytes and time of one engine step on one chip.
//!
//! A step processes `new_tokens` new tokens for each of `seqs` sequences whose context
//! already holds `context_before` tokens (decode: `new_tokens = 1`; prefill: the
//! uncached prompt after a cached prefix of `context_before` tokens, 0 without one).
//! Each operator of each layer group is costed from its two roofline bounds separately,
//! `sqrt(compute^2 + memory^2)` with compute `FLOPs / effective compute` and memory
//! `bytes / effective bandwidth` ([`operator_time`]), and the times are summed
//! (`audit/MODEL.md` section 3); communication and fixed overheads are added on top. Everything is per chip, after sharding, for the whole model traversal (all
//! pipeline stages), which is what one token of one sequence experiences.

mod attention;
mod breakdown;
mod chain;
mod collectives;
mod experts;
mod gemm;
mod operators;
mod ops;
mod overlap;
mod placement;
mod roofline;
mod row;
mod shape;
mod step;

pub use attention::{attended_context, mla_core_flops, MlaDims};
pub use breakdown::{Bottleneck, TimeBreakdown};
pub use chain::step_chain;
pub use collectives::{
    custom_all_reduce, expert_all_to_all, expert_gather_scatter, group_all_reduce, on_peer_fabric,
    ring_all_reduce, AllToAllWidths, ExpertTraffic, PCIE5_X16,
};
pub use experts::{
    busiest_shard_experts, expert_load_imbalance, experts_touched, routed_picks_per_chip,
};
pub use gemm::{wave_efficiency, wave_slowdown, GEMM_TILE};
pub use operators::{operator_table, Bound, OperatorRow, OperatorTable};
pub use ops::{OpCost, OpKind, StepCost};
pub use overlap::{two_batch_overlaps, MicroBatchLayer, TwoBatchOverlap};
pub use placement::{Placement, Side};
pub use roofline::operator_time;
pub use shape::StepShape;
pub use step::{eager_launches, step_cost, step_cost_of};
