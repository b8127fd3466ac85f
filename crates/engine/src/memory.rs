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
use crate::dtype::{ComponentWeights, DType, Precision};
use crate::model::ModelIr;
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
    /// Weights the serving engine keeps in the cold tier on purpose
    /// (`Assumptions::weight_offload` of `weights`, where the chip has a cold tier).
    #[serde(default)]
    pub offloaded: Bytes,
}

/// One chip's memory at a given batch.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MemoryUsage {
    pub weights: Bytes,
    /// Part of `weights` in the cold tier.
    pub cold_weights: Bytes,
    pub kv: Bytes,
    /// KV cache of one sequence at full context ([`MemoryPlan::kv_per_seq`]).
    pub kv_per_seq: Bytes,
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

/// Which part of the model a pool holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// Every layer, the embedding and the head (a colocated, prefill, decode or target
    /// pool).
    Whole,
    /// Attention and its KV cache in every layer, the layers without experts, the
    /// embedding and the head (an attention/expert split's attention pool).
    AttentionAndDense,
    /// The MoE layers' experts and routers only (the expert pool).
    Experts,
    /// Every layer of a pipeline stage's model (`ModelIr::layer_runs`), with the
    /// input embedding on the first stage and the LM head on the last (`audit/MODEL.md`
    /// 6.10).
    Stage { first: bool, last: bool },
}

/// What one chip holds of `part` of a model under `par`: the one walk over the model's
/// layers that sizes weights, KV cache and activations for every pool.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LayerShare {
    /// Weights of the layers (all pipeline stages) on one chip, embedding excluded.
    pub layer_params: f64,
    /// The experts' part of `layer_params` (routed and shared, not routers).
    pub expert_params: f64,
    /// The attention output projections' part of `layer_params`.
    pub attn_out_params: f64,
    /// KV-cache values of one sequence of `context` tokens on one chip (all stages).
    pub kv_values: f64,
    /// The widest intermediate activation per token on one chip.
    pub widest_ffn: f64,
}

impl LayerShare {
    /// The weights of one of `stages` pipeline stages with `tables` vocabulary-table
    /// weights, by component ([`Precision::bytes`] sizes them).
    pub fn components(&self, stages: f64, tables: f64) -> ComponentWeights {
        ComponentWeights {
            all: self.layer_params / stages + tables,
            experts: self.expert_params / stages,
            attn_out: self.attn_out_params / stages,
            lm_head: tables,
        }
    }

    /// `redundant`: expert slots beyond the model's experts ([`Parallelism::expert_slots`]).
    pub fn of(
        model: &ModelIr,
        par: Parallelism,
        part: Part,
        context: f64,
        redundant: u32,
    ) -> LayerShare {
        let tp = par.tp as f64;
        let mut share = LayerShare {
            layer_params: 0.0,
            expert_params: 0.0,
            attn_out_params: 0.0,
            kv_values: 0.0,
            widest_ffn: 0.0,
        };
        for g in &model.groups {
            let count = g.count as f64;
            let attention_here = part != Part::Experts;
            let ffn_here = match part {
                Part::Whole | Part::Stage { .. } => true,
                Part::AttentionAndDense => !g.ffn.is_moe(),
                Part::Experts => g.ffn.is_moe(),
            };
            let mut params = 0.0;
            if attention_here {
                params += g.attention.params_per_rank(model.hidden, par.tp);
                share.attn_out_params +=
                    count * g.attention.out_params_per_rank(model.hidden, par.tp);
                let kept = g.window.map_or(context, |w| context.min(w as f64));
                let shard = (g.attention.kv_shardable_heads() as f64).min(tp);
                share.kv_values += count * g.attention.kv_values_per_token() * kept / shard;
            }
            if ffn_here {
                params += g.ffn.params_per_chip(model.hidden, par, redundant);
                share.expert_params +=
                    count * g.ffn.expert_params_per_chip(model.hidden, par, redundant);
                share.widest_ffn = share
                    .widest_ffn
                    .max(g.ffn.widest_activation(model.hidden, par.tp));
            }
            share.layer_params += count * params;
        }
        share
    }
}

impl MemoryPlan {
    /// `part` of the model on one chip of `par`, sequences of `context` tokens. The
    /// embedding and head are vocab-split over TP; with pipeline stages they sit on the
    /// first and last stage, so one stage holds at most one of them. The workspace is
    /// the runtime's reserve plus the activations of one prefill chunk,
    /// `chunk * (4h + 2 * widest FFN) * activation bytes`; on an SRAM chip no reserve
    /// and one token's activations ([`crate::catalogue::MemoryKind::workspace_rule`]).
    /// Each component's weights take its own format ([`Precision::bytes`]).
    #[allow(clippy::too_many_arguments)]
    pub fn for_part(
        model: &ModelIr,
        part: Part,
        chip: &Chip,
        par: Parallelism,
        weights: Precision,
        kv: DType,
        context: f64,
        a: &Assumptions,
    ) -> MemoryPlan {
        let share = LayerShare::of(model, par, part, context, a.redundant_experts);
        let h = model.hidden as f64;
        let pp = par.pp as f64;
        let table = model.vocab as f64 * h / par.tp as f64;
        let embedding = match part {
            Part::Experts => 0.0,
            // A stage keeps a table for each end it holds; one alone keeps the tied one.
            Part::Stage { first, last } if first && last => {
                if model.tied_embeddings {
                    table
                } else {
                    2.0 * table
                }
            }
            Part::Stage { first, last } => table * (first as u8 + last as u8) as f64,
            _ if par.pp == 1 && !model.tied_embeddings => 2.0 * table,
            _ => table,
        };
        let weights = Bytes(weights.bytes(share.components(pp, embedding)));
        let kv_per_seq = Bytes(share.kv_values / pp * kv.bytes());
        // An SRAM chip's compiled schedule keeps no reserve and one token's activations.
        let (reserve, tokens) = chip.memory_kind.workspace_rule(a);
        let activations = tokens * (4.0 * h + 2.0 * share.widest_ffn) * a.activation_bytes;
        let workspace = Bytes(chip.fast.capacity.0 * reserve + activations);
        let offloaded = match chip.cold {
            Some(_) => weights * a.weight_offload,
            None => Bytes::ZERO,
        };
        MemoryPlan {
            offloaded,
            ..MemoryPlan::of_parts(chip, weights, kv_per_seq, workspace)
        }
    }

    /// A plan from its parts, for pools that size their weights and KV themselves.
    pub fn of_parts(chip: &Chip, weights: Bytes, kv_per_seq: Bytes, workspace: Bytes) -> Self {
        MemoryPlan {
            weights,
            kv_per_seq,
            workspace,
            fast_capacity: chip.fast.capacity,
            cold_capacity: chip.cold.map_or(Bytes::ZERO, |c| c.capacity),
            offloaded: Bytes::ZERO,
        }
    }

    /// Weights in the cold tier: what does not fit beside the workspace and one
    /// sequence's KV, whatever the batch, or the share the serving engine offloads on
    /// purpose where that is more.
    pub fn cold_weights(&self) -> Bytes {
        let room = (self.fast_capacity - self.workspace - self.kv_per_seq).max(Bytes::ZERO);
        (self.weights - room).max(self.offloaded).max(Bytes::ZERO)
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
            kv_per_seq: self.kv_per_seq,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalogue::Catalogue;

    #[test]
    fn the_parts_of_a_model_add_up_to_the_whole() {
        let m = &Catalogue::builtin().model("deepseek-v3").unwrap().ir;
        let one = Parallelism::single();
        // On one chip the layers hold every parameter but the embedding and head.
        let whole = LayerShare::of(m, one, Part::Whole, 4096.0, 0);
        let p = m.params();
        assert!((whole.layer_params - (p.total - p.embedding)).abs() < 1.0);
        // Attention with the dense layers, and the experts, split the whole between them.
        let par = Parallelism {
            tp: 8,
            pp: 1,
            dp: 1,
            ep: 8,
        };
        let whole = LayerShare::of(m, par, Part::Whole, 4096.0, 0);
        let attention = LayerShare::of(m, par, Part::AttentionAndDense, 4096.0, 0);
        let experts = LayerShare::of(m, par, Part::Experts, 4096.0, 0);
        let sum = attention.layer_params + experts.layer_params;
        assert!((whole.layer_params - sum).abs() < 1e-6 * sum);
        assert_eq!(whole.kv_values, attention.kv_values);
        assert_eq!(experts.kv_values, 0.0);
        // DeepSeek-V3's MLA caches 576 values per token and layer, shared by the heads.
        assert_eq!(whole.kv_values, 61.0 * 576.0 * 4096.0);
        assert_eq!(experts.widest_ffn, 2048.0);
    }

    /// A pipeline's stages hold the whole model's weights and KV between them: the layers
    /// once, the input embedding on the first stage and the LM head on the last
    /// (DeepSeek-V3: untied, dense and MoE layers spread over the stages).
    #[test]
    fn pipeline_stages_add_up_to_the_whole_model() {
        let cat = Catalogue::builtin();
        let m = &cat.model("deepseek-v3").unwrap().ir;
        assert!(!m.tied_embeddings);
        let chip = cat.chip("h200").unwrap();
        let a = Assumptions::default();
        let one = Parallelism::single();
        let bf16 = Precision::uniform(crate::dtype::WeightFormat::new(DType::Bf16));
        let plan = |model: &ModelIr, part: Part| {
            MemoryPlan::for_part(model, part, chip, one, bf16, DType::Fp8, 4096.0, &a)
        };
        let whole = plan(m, Part::Whole);
        let runs = m.layer_runs(&[20, 25, 16]);
        let stages: Vec<MemoryPlan> = runs
            .iter()
            .enumerate()
            .map(|(i, r)| {
                plan(
                    r,
                    Part::Stage {
                        first: i == 0,
                        last: i == 2,
                    },
                )
            })
            .collect();
        let sum = |f: fn(&MemoryPlan) -> f64| stages.iter().map(f).sum::<f64>();
        let close = |x: f64, y: f64| (x / y - 1.0).abs() < 1e-12;
        assert!(close(sum(|p| p.weights.0), whole.weights.0));
        assert!(close(sum(|p| p.kv_per_seq.0), whole.kv_per_seq.0));
        // A middle stage holds no vocabulary table.
        let table = m.vocab as f64 * m.hidden as f64 * 2.0;
        let middle = LayerShare::of(&runs[1], one, Part::Whole, 4096.0, 0);
        assert!(close(stages[1].weights.0, middle.layer_params * 2.0));
        assert!(close(
            stages[0].weights.0,
            LayerShare::of(&runs[0], one, Part::Whole, 4096.0, 0).layer_params * 2.0 + table
        ));
    }
}
