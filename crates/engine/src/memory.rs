//! Memory per chip: weight shard, KV cache, workspace, and how many sequences fit
//! (`audit/MODEL.md` section 4). Weights that do not fit the fast tier spill into the cold
//! tier where the chip has one; the KV cache and workspace always stay in the fast tier.
//!
//! Weights are placed first, as a serving engine loads them before it sizes its KV
//! cache: they fill the fast tier up to what the workspace and one sequence leave, and
//! only the rest spills. A larger batch never pushes weights out to the cold tier (that
//! would trade a faster step for a bigger batch behind the user's back).

use crate::assumptions::Assumptions;
use crate::catalogue::Chip;
use crate::dtype::{DType, WeightFormat};
use crate::model::{Ffn, ModelIr};
use crate::parallel::Parallelism;
use crate::units::Bytes;
use serde::{Deserialize, Serialize};

/// The fixed parts of one chip's memory, and the KV one sequence adds: the one
/// placement policy every pool (colocated, prefill, decode, attention, expert) follows.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MemoryPlan {
    pub weights: Bytes,
    /// KV cache of one sequence at full context (ISL + OSL), this chip's shard.
    pub kv_per_seq: Bytes,
    pub workspace: Bytes,
    pub fast_capacity: Bytes,
    pub cold_capacity: Bytes,
}

/// One chip's memory at a given batch.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MemoryUsage {
    pub weights: Bytes,
    /// Part of `weights` in the cold tier.
    pub cold_weights: Bytes,
    pub kv: Bytes,
    pub workspace: Bytes,
    /// Everything on the chip: weights (both tiers), KV and workspace.
    pub total: Bytes,
    pub fast_capacity: Bytes,
    pub cold_capacity: Bytes,
    pub fits: bool,
}

impl MemoryUsage {
    pub fn cold_fraction(&self) -> f64 {
        if self.weights.0 > 0.0 {
            self.cold_weights / self.weights
        } else {
            0.0
        }
    }
}

impl MemoryPlan {
    pub fn new(
        model: &ModelIr,
        chip: &Chip,
        par: Parallelism,
        weights: WeightFormat,
        kv: DType,
        context: f64,
        a: &Assumptions,
    ) -> MemoryPlan {
        let h = model.hidden as f64;
        let tp = par.tp as f64;
        let pp = par.pp as f64;
        let mut layer_params = 0.0;
        let mut kv_values = 0.0;
        let mut widest_ffn: f64 = 0.0;
        for g in &model.groups {
            let count = g.count as f64;
            let ffn = match g.ffn {
                Ffn::Dense { intermediate } => {
                    widest_ffn = widest_ffn.max(intermediate as f64 / tp);
                    3.0 * h * intermediate as f64 / tp
                }
                Ffn::Linear => {
                    widest_ffn = widest_ffn.max(h / tp);
                    h * h / tp
                }
                Ffn::Skipped => 0.0,
                Ffn::Moe {
                    experts,
                    expert_intermediate,
                    shared_intermediate,
                    ..
                } => {
                    widest_ffn = widest_ffn.max(expert_intermediate as f64);
                    let routed = experts as f64 * 3.0 * h * expert_intermediate as f64
                        / par.expert_group() as f64;
                    routed + 3.0 * h * shared_intermediate as f64 / tp + h * experts as f64
                }
            };
            layer_params += count * (g.attention.params_per_rank(model.hidden, par.tp) + ffn);
            let kept = g.window.map_or(context, |w| context.min(w as f64));
            let shard = (g.attention.kv_shardable_heads() as f64).min(tp);
            kv_values += count * g.attention.kv_values_per_token() * kept / shard;
        }
        // Embedding and output head are vocab-split over TP; with pipeline stages they
        // sit on the first and last stage, so one stage holds at most one of them.
        let table = model.vocab as f64 * h / tp;
        let embedding = if par.pp == 1 && !model.tied_embeddings {
            2.0 * table
        } else {
            table
        };
        let weights = Bytes((layer_params / pp + embedding) * weights.bytes_per_weight());
        let kv_per_seq = Bytes(kv_values / pp * kv.bytes());
        let activations =
            a.prefill_chunk_tokens * (4.0 * h + 2.0 * widest_ffn) * a.activation_bytes;
        let workspace = Bytes(chip.fast.capacity.0 * a.runtime_reserve + activations);
        MemoryPlan::of_parts(chip, weights, kv_per_seq, workspace)
    }

    /// A plan from its parts, for pools that size their weights and KV themselves.
    pub fn of_parts(chip: &Chip, weights: Bytes, kv_per_seq: Bytes, workspace: Bytes) -> Self {
        MemoryPlan {
            weights,
            kv_per_seq,
            workspace,
            fast_capacity: chip.fast.capacity,
            cold_capacity: chip.cold.map_or(Bytes::ZERO, |c| c.capacity),
        }
    }

    /// Weights in the cold tier: what does not fit beside the workspace and one
    /// sequence's KV, whatever the batch.
    pub fn cold_weights(&self) -> Bytes {
        let room = (self.fast_capacity - self.workspace - self.kv_per_seq).max(Bytes::ZERO);
        (self.weights - room).max(Bytes::ZERO)
    }

    /// Most sequences one replica can hold beside the weights' fast share (0 when the
    /// weights do not fit both tiers, or not even one sequence fits).
    pub fn max_seqs(&self) -> u64 {
        let cold = self.cold_weights();
        if cold.0 > self.cold_capacity.0 + 1.0 || self.kv_per_seq.0 <= 0.0 {
            return 0;
        }
        let free = self.fast_capacity - self.workspace - (self.weights - cold);
        if free.0 <= 0.0 {
            return 0;
        }
        // A byte of rounding must not lose the last sequence.
        ((free.0 + 1.0) / self.kv_per_seq.0).floor().min(1e9) as u64
    }

    pub fn usage(&self, seqs: f64) -> MemoryUsage {
        let kv = self.kv_per_seq * seqs;
        let cold_weights = self.cold_weights();
        let fast_used = self.weights - cold_weights + kv + self.workspace;
        MemoryUsage {
            weights: self.weights,
            cold_weights,
            kv,
            workspace: self.workspace,
            total: self.weights + kv + self.workspace,
            fast_capacity: self.fast_capacity,
            cold_capacity: self.cold_capacity,
            fits: cold_weights.0 <= self.cold_capacity.0 + 1.0
                && fast_used.0 <= self.fast_capacity.0 + 1.0,
        }
    }

    /// Why one sequence does not fit, in numbers.
    pub fn shortfall_reason(&self) -> String {
        let need = self.weights + self.kv_per_seq + self.workspace;
        let have = self.fast_capacity + self.cold_capacity;
        format!(
            "does not fit: one sequence needs {:.1} GB per chip (weights {:.1} + KV {:.2} + workspace {:.1}) but the chip has {:.1} GB; short by {:.1} GB. Use more chips, a narrower weight dtype or a shorter context",
            need.gb(),
            self.weights.gb(),
            self.kv_per_seq.gb(),
            self.workspace.gb(),
            have.gb(),
            (need - have).max(Bytes::ZERO).gb()
        )
    }
}
