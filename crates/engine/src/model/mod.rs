//! The model IR: what the cost kernel needs to know about a transformer, read from a
//! HuggingFace `config.json` (see [`hf`]).
//!
//! Layers that share a shape are grouped (`LayerGroup { count, .. }`) so that the cost
//! kernel visits a handful of groups instead of a hundred layers: DeepSeek-V3 is two
//! groups (3 dense, 58 MoE), Gemma-3 two (52 local, 10 global).

pub mod hf;

use crate::parallel::Parallelism;
use serde::{Deserialize, Serialize};

/// Attention of one layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Attention {
    /// Grouped-query attention; MHA when `kv_heads == heads`, MQA when `kv_heads == 1`.
    /// With `q_rank` the query is factorised through a low-rank bottleneck
    /// (`h -> q_rank -> heads * head_dim`), as Step-3's multi-matrix factorisation
    /// attention (MFA) does; the KV cache is that of plain GQA.
    Gqa {
        heads: u32,
        kv_heads: u32,
        head_dim: u32,
        #[serde(default)]
        q_rank: Option<u32>,
    },
    /// Multi-head latent attention (DeepSeek-V2/V3, Kimi K2): the KV cache holds a
    /// compressed latent of `kv_rank + qk_rope` values per token, shared by all heads.
    Mla {
        heads: u32,
        q_rank: Option<u32>,
        kv_rank: u32,
        qk_nope: u32,
        qk_rope: u32,
        v_head: u32,
    },
    /// One `hidden x hidden` projection in place of attention (DeciLM's
    /// `replace_with_linear`): no heads, no KV cache.
    Linear,
    /// No attention in this layer (DeciLM's `no_op`): the residual stream passes through.
    Skipped,
}

/// The feed-forward block of one layer (SwiGLU: three matrices per expert).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Ffn {
    Dense {
        intermediate: u32,
    },
    Moe {
        experts: u32,
        top_k: u32,
        expert_intermediate: u32,
        /// Summed width of the always-active shared experts (0 when there are none).
        shared_intermediate: u32,
    },
    /// One `hidden x hidden` projection in place of the FFN (DeciLM's `replace_with_linear`).
    Linear,
    /// No FFN in this layer (DeciLM's `no_op`).
    Skipped,
}

/// A run of layers with one shape.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct LayerGroup {
    pub count: u32,
    pub attention: Attention,
    /// Sliding-window size; `None` for full attention.
    pub window: Option<u32>,
    pub ffn: Ffn,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelIr {
    pub architecture: String,
    pub hidden: u32,
    pub vocab: u32,
    pub tied_embeddings: bool,
    pub num_layers: u32,
    pub max_context: u32,
    /// Multi-token-prediction layers shipped with the model; not counted in totals.
    pub mtp_layers: u32,
    pub groups: Vec<LayerGroup>,
}

/// Parameter counts, split the way vendors disagree about.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ParamCounts {
    pub total: f64,
    /// Parameters a single token touches: attention, dense FFN, top-k routed and shared
    /// experts, routers, plus embeddings and the output head.
    pub active: f64,
    /// Input embedding plus (untied) output head.
    pub embedding: f64,
}

impl Attention {
    pub fn heads(&self) -> u32 {
        match *self {
            Attention::Gqa { heads, .. } | Attention::Mla { heads, .. } => heads,
            Attention::Linear | Attention::Skipped => 0,
        }
    }

    /// Weights of the projections: `h*(n_h*d) + 2*h*(n_kv*d) + (n_h*d)*h` for GQA, with
    /// `h*r + r*(n_h*d)` in place of `h*(n_h*d)` when the query is factorised at rank
    /// `r`; the low-rank factors of `audit/MODEL.md` section 2 for MLA.
    pub fn params(&self, hidden: u32) -> f64 {
        let h = hidden as f64;
        match *self {
            Attention::Gqa {
                heads,
                kv_heads,
                head_dim,
                q_rank,
            } => {
                let q = heads as f64 * head_dim as f64;
                let kv = kv_heads as f64 * head_dim as f64;
                let q_path = match q_rank {
                    Some(r) => h * r as f64 + r as f64 * q,
                    None => h * q,
                };
                q_path + 2.0 * h * kv + q * h
            }
            Attention::Mla {
                heads,
                q_rank,
                kv_rank,
                qk_nope,
                qk_rope,
                v_head,
            } => {
                let n = heads as f64;
                let qk = (qk_nope + qk_rope) as f64;
                let q_path = match q_rank {
                    Some(r) => h * r as f64 + r as f64 * n * qk,
                    None => h * n * qk,
                };
                q_path
                    + h * (kv_rank + qk_rope) as f64
                    + kv_rank as f64 * n * (qk_nope + v_head) as f64
                    + n * v_head as f64 * h
            }
            Attention::Linear => h * h,
            Attention::Skipped => 0.0,
        }
    }

    /// Weights one of `tp` tensor-parallel ranks holds. Q and O split by heads; GQA's
    /// K and V split by KV heads and replicate once `tp` exceeds them; the down
    /// projections of a factorised query (`h -> q_rank`, and MLA's `h -> kv_rank + rope`)
    /// are replicated on every rank.
    pub fn params_per_rank(&self, hidden: u32, tp: u32) -> f64 {
        let h = hidden as f64;
        let tp_f = tp as f64;
        match *self {
            Attention::Gqa {
                heads,
                kv_heads,
                head_dim,
                q_rank,
            } => {
                let q = heads as f64 * head_dim as f64;
                let kv = kv_heads as f64 * head_dim as f64;
                let q_path = match q_rank {
                    Some(r) => h * r as f64 + r as f64 * q / tp_f,
                    None => h * q / tp_f,
                };
                q_path
                    + self.out_params_per_rank(hidden, tp)
                    + 2.0 * h * kv / tp_f.min(kv_heads as f64)
            }
            Attention::Mla {
                q_rank,
                kv_rank,
                qk_rope,
                ..
            } => {
                let replicated =
                    q_rank.map_or(0.0, |r| h * r as f64) + h * (kv_rank + qk_rope) as f64;
                replicated + (self.params(hidden) - replicated) / tp_f
            }
            // Split like the output projection it stands in for.
            Attention::Linear => h * h / tp_f,
            Attention::Skipped => 0.0,
        }
    }

    /// Weights of the output projection on one of `tp` ranks (heads times value width
    /// into the hidden size, split by heads): the part of [`Attention::params_per_rank`]
    /// a checkpoint may quantise on its own (`Precision::attn_out`). A linear map
    /// standing in for attention has none.
    pub fn out_params_per_rank(&self, hidden: u32, tp: u32) -> f64 {
        let h = hidden as f64;
        match *self {
            Attention::Gqa {
                heads, head_dim, ..
            } => heads as f64 * head_dim as f64 * h / tp as f64,
            Attention::Mla { heads, v_head, .. } => heads as f64 * v_head as f64 * h / tp as f64,
            Attention::Linear | Attention::Skipped => 0.0,
        }
    }

    /// Values stored in the KV cache per token and layer (multiply by the KV bytes).
    pub fn kv_values_per_token(&self) -> f64 {
        match *self {
            Attention::Gqa {
                kv_heads, head_dim, ..
            } => 2.0 * kv_heads as f64 * head_dim as f64,
            Attention::Mla {
                kv_rank, qk_rope, ..
            } => (kv_rank + qk_rope) as f64,
            Attention::Linear | Attention::Skipped => 0.0,
        }
    }

    /// KV heads that tensor parallelism can split the cache across. MLA's latent is
    /// shared by all heads, so every TP rank keeps all of it. Layers without a cache
    /// answer 1, so that dividing their (zero) cache by it stays finite.
    pub fn kv_shardable_heads(&self) -> u32 {
        match *self {
            Attention::Gqa { kv_heads, .. } => kv_heads,
            Attention::Mla { .. } | Attention::Linear | Attention::Skipped => 1,
        }
    }

    /// Whether the layer has attention weights (and so a tensor-parallel all-reduce).
    pub fn has_weights(&self) -> bool {
        !matches!(self, Attention::Skipped)
    }
}

impl Ffn {
    /// Weights of one routed expert (SwiGLU: gate, up and down): `3 * h * i_e`; 0 for
    /// an FFN without experts.
    pub fn expert_params(&self, hidden: u32) -> f64 {
        match *self {
            Ffn::Moe {
                expert_intermediate,
                ..
            } => 3.0 * hidden as f64 * expert_intermediate as f64,
            _ => 0.0,
        }
    }

    /// Weights of the always-active shared experts, `3 * h * i_s`, and of the router,
    /// `h * E`; 0 for an FFN without experts.
    pub fn shared_and_router_params(&self, hidden: u32) -> (f64, f64) {
        let h = hidden as f64;
        match *self {
            Ffn::Moe {
                experts,
                shared_intermediate,
                ..
            } => (3.0 * h * shared_intermediate as f64, h * experts as f64),
            _ => (0.0, 0.0),
        }
    }

    pub fn total_params(&self, hidden: u32) -> f64 {
        match *self {
            Ffn::Moe { experts, .. } => {
                let (shared, router) = self.shared_and_router_params(hidden);
                experts as f64 * self.expert_params(hidden) + shared + router
            }
            _ => self.dense_params_per_rank(hidden, 1).unwrap_or(0.0),
        }
    }

    pub fn active_params(&self, hidden: u32) -> f64 {
        match *self {
            Ffn::Moe { top_k, .. } => {
                let (shared, router) = self.shared_and_router_params(hidden);
                top_k as f64 * self.expert_params(hidden) + shared + router
            }
            _ => self.dense_params_per_rank(hidden, 1).unwrap_or(0.0),
        }
    }

    /// Weights one chip holds under `par` with `redundant` extra expert slots: an FFN
    /// without experts splits over TP; an MoE layer's routed expert slots
    /// ([`Parallelism::expert_slots`]) split over the expert group, its shared experts
    /// over TP, and every chip keeps the router.
    pub fn params_per_chip(&self, hidden: u32, par: Parallelism, redundant: u32) -> f64 {
        match *self {
            Ffn::Moe { .. } => {
                let (_, router) = self.shared_and_router_params(hidden);
                self.expert_params_per_chip(hidden, par, redundant) + router
            }
            _ => self.dense_params_per_rank(hidden, par.tp).unwrap_or(0.0),
        }
    }

    /// The experts' part of [`Ffn::params_per_chip`]: routed expert slots (`redundant`
    /// copies included) over the expert group plus shared experts over TP (the weights
    /// an expert format applies to); 0 for an FFN without experts.
    pub fn expert_params_per_chip(&self, hidden: u32, par: Parallelism, redundant: u32) -> f64 {
        match *self {
            Ffn::Moe { experts, .. } => {
                let (shared, _) = self.shared_and_router_params(hidden);
                par.expert_slots(experts, redundant) as f64 * self.expert_params(hidden)
                    / par.expert_group() as f64
                    + shared / par.tp as f64
            }
            _ => 0.0,
        }
    }

    /// The widest intermediate activation of one token on one chip: the FFN's
    /// intermediate over TP, or one whole expert's.
    pub fn widest_activation(&self, hidden: u32, tp: u32) -> f64 {
        let tp = tp as f64;
        match *self {
            Ffn::Dense { intermediate } => intermediate as f64 / tp,
            Ffn::Linear => hidden as f64 / tp,
            Ffn::Skipped => 0.0,
            Ffn::Moe {
                expert_intermediate,
                ..
            } => expert_intermediate as f64,
        }
    }

    /// Weights one of `tp` tensor-parallel ranks holds of an FFN without experts (dense,
    /// linear or skipped); `None` for MoE, whose experts split over the expert group.
    pub fn dense_params_per_rank(&self, hidden: u32, tp: u32) -> Option<f64> {
        let h = hidden as f64;
        let tp = tp as f64;
        match *self {
            Ffn::Dense { intermediate } => Some(3.0 * h * intermediate as f64 / tp),
            Ffn::Linear => Some(h * h / tp),
            Ffn::Skipped => Some(0.0),
            Ffn::Moe { .. } => None,
        }
    }

    pub fn is_moe(&self) -> bool {
        matches!(self, Ffn::Moe { .. })
    }

    /// Whether the layer has FFN weights (and so a tensor-parallel all-reduce).
    pub fn has_weights(&self) -> bool {
        !matches!(self, Ffn::Skipped)
    }
}

impl ModelIr {
    pub fn params(&self) -> ParamCounts {
        let embedding =
            self.vocab as f64 * self.hidden as f64 * if self.tied_embeddings { 1.0 } else { 2.0 };
        let mut total = embedding;
        let mut active = embedding;
        for g in &self.groups {
            let attn = g.attention.params(self.hidden);
            total += g.count as f64 * (attn + g.ffn.total_params(self.hidden));
            active += g.count as f64 * (attn + g.ffn.active_params(self.hidden));
        }
        ParamCounts {
            total,
            active,
            embedding,
        }
    }

    pub fn is_moe(&self) -> bool {
        self.groups.iter().any(|g| g.ffn.is_moe())
    }

    /// Routed experts per MoE layer (the largest, should layers differ).
    pub fn routed_experts(&self) -> Option<u32> {
        self.groups
            .iter()
            .filter_map(|g| match g.ffn {
                Ffn::Moe { experts, .. } => Some(experts),
                Ffn::Dense { .. } | Ffn::Linear | Ffn::Skipped => None,
            })
            .max()
    }

    pub fn attention_heads(&self) -> u32 {
        self.groups
            .iter()
            .map(|g| g.attention.heads())
            .max()
            .unwrap_or(0)
    }

    /// KV heads that bound tensor parallelism of the cache (smallest over layers).
    pub fn kv_heads(&self) -> u32 {
        self.groups
            .iter()
            .filter_map(|g| match g.attention {
                Attention::Gqa { kv_heads, .. } => Some(kv_heads),
                Attention::Mla { heads, .. } => Some(heads),
                Attention::Linear | Attention::Skipped => None,
            })
            .min()
            .unwrap_or(0)
    }

    /// KV-cache values for one sequence of `context` tokens over all layers, with
    /// sliding-window layers capped at their window.
    pub fn kv_values_for_context(&self, context: f64) -> f64 {
        self.groups
            .iter()
            .map(|g| {
                let kept = g.window.map_or(context, |w| context.min(w as f64));
                g.count as f64 * g.attention.kv_values_per_token() * kept
            })
            .sum()
    }

    /// The model's depth cut into consecutive runs of `counts` layers, each a model of its
    /// own (pipeline stages, `audit/MODEL.md` 6.10) with the same width, vocabulary and
    /// context. The IR keeps each layer kind's count, not where the layers sit, so the
    /// depth is laid out with every group spread evenly along it (at each position the
    /// group furthest behind its even share, `count * (position + 1) / layers`, comes next;
    /// ties to the earlier group) and each run takes what falls in it: a run of `n` layers
    /// holds each group's share of `n` to within a layer, and the runs add up to the whole.
    /// Positions past the model's layers are dropped. One walk over the depth, one step
    /// per layer and group, both bounded by `limits::MAX_LAYERS`.
    pub fn layer_runs(&self, counts: &[u32]) -> Vec<ModelIr> {
        let layers = self.layer_count();
        let groups = self.groups.len();
        let mut taken = vec![0u32; groups];
        let mut runs = vec![vec![0u32; groups]; counts.len()];
        let (mut run, mut left) = (0, counts.first().copied().unwrap_or(0));
        for position in 0..layers {
            while left == 0 && run + 1 < counts.len() {
                run += 1;
                left = counts[run];
            }
            if left == 0 {
                break;
            }
            let behind = |i: usize| {
                let g = &self.groups[i];
                g.count as f64 * (position + 1) as f64 / layers as f64 - taken[i] as f64
            };
            let next = (0..groups)
                .filter(|&i| taken[i] < self.groups[i].count)
                .fold(None, |best: Option<usize>, i| match best {
                    Some(b) if behind(b) >= behind(i) => Some(b),
                    _ => Some(i),
                });
            let Some(i) = next else { break };
            taken[i] += 1;
            runs[run][i] += 1;
            left -= 1;
        }
        runs.into_iter()
            .map(|here| ModelIr {
                num_layers: here.iter().sum(),
                mtp_layers: 0,
                groups: self
                    .groups
                    .iter()
                    .zip(here)
                    .filter(|(_, n)| *n > 0)
                    .map(|(g, count)| LayerGroup { count, ..*g })
                    .collect(),
                ..self.clone()
            })
            .collect()
    }

    /// Layers in the groups (the model's depth as the kernel walks it).
    pub fn layer_count(&self) -> u32 {
        self.groups.iter().map(|g| g.count).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layer_runs_split_every_group_evenly_and_add_up() {
        let cat = crate::catalogue::Catalogue::builtin();
        let m = &cat.model("deepseek-v3").unwrap().ir;
        let n = m.layer_count();
        assert_eq!(n, 61);
        // Two runs add up to the whole, group by group.
        let runs = m.layer_runs(&[37, 24]);
        let (a, b) = (&runs[0], &runs[1]);
        assert_eq!((a.layer_count(), b.layer_count()), (37, 24));
        assert_eq!((a.num_layers, b.num_layers), (37, 24));
        for g in &m.groups {
            let count = |x: &ModelIr| {
                x.groups
                    .iter()
                    .filter(|h| h.ffn == g.ffn && h.window == g.window)
                    .map(|h| h.count)
                    .sum::<u32>()
            };
            assert_eq!(count(a) + count(b), g.count);
            // Each run holds the group's share of its layers to within one layer.
            let share = g.count as f64 * 37.0 / n as f64;
            assert!((count(a) as f64 - share).abs() <= 1.0, "{share}");
        }
        // One run of every layer is the model itself; positions past the end are
        // dropped, and an empty run holds nothing.
        assert_eq!(m.layer_runs(&[n])[0].groups, m.groups);
        let over = m.layer_runs(&[0, n + 5, 3]);
        assert_eq!(
            over.iter().map(|r| r.layer_count()).collect::<Vec<_>>(),
            [0, n, 0]
        );
    }

    fn deepseek_mla() -> Attention {
        Attention::Mla {
            heads: 128,
            q_rank: Some(1536),
            kv_rank: 512,
            qk_nope: 128,
            qk_rope: 64,
            v_head: 128,
        }
    }

    #[test]
    fn mla_caches_576_values_per_token_and_layer() {
        assert_eq!(deepseek_mla().kv_values_per_token(), 576.0);
        // 61 layers at BF16: about 68.6 KiB per token (`audit/MODEL.md` section 2).
        let kib: f64 = 61.0 * 576.0 * 2.0 / 1024.0;
        assert!((kib - 68.6).abs() < 0.1, "{kib}");
    }

    #[test]
    fn gqa_projection_formula() {
        let a = Attention::Gqa {
            heads: 32,
            kv_heads: 8,
            head_dim: 128,
            q_rank: None,
        };
        // 4096*4096 + 2*4096*1024 + 4096*4096
        assert_eq!(a.params(4096), 41_943_040.0);
    }

    #[test]
    fn factorised_query_replaces_the_query_matrix() {
        // Step-3 MFA: h=7168, r=2048, 64 heads of 256, one KV head.
        let a = Attention::Gqa {
            heads: 64,
            kv_heads: 1,
            head_dim: 256,
            q_rank: Some(2048),
        };
        let (h, r, q, kv) = (7168.0, 2048.0, 16384.0, 256.0);
        assert_eq!(a.params(7168), h * r + r * q + 2.0 * h * kv + q * h);
        // TP8 splits the up-projection and the output, not the bottleneck nor the KV head.
        assert_eq!(
            a.params_per_rank(7168, 8),
            h * r + (r * q + q * h) / 8.0 + 2.0 * h * kv
        );
        assert_eq!(a.kv_values_per_token(), 512.0);
    }

    #[test]
    fn moe_active_counts_top_k_shared_and_router() {
        let f = Ffn::Moe {
            experts: 8,
            top_k: 2,
            expert_intermediate: 14336,
            shared_intermediate: 0,
        };
        let h = 4096.0;
        assert_eq!(f.total_params(4096), 8.0 * 3.0 * h * 14336.0 + h * 8.0);
        assert_eq!(f.active_params(4096), 2.0 * 3.0 * h * 14336.0 + h * 8.0);
    }
}
