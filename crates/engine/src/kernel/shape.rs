//! The shape of one engine step: how many sequences, how many new tokens each, over how
//! much context, and which of an expert group's replicas bring tokens to it.

use crate::parallel::Parallelism;
use serde::{Deserialize, Serialize};

/// The shape of one step, per model replica.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepShape {
    pub seqs: f64,
    pub new_tokens: f64,
    pub context_before: f64,
    /// How many of the replicas that share one expert group bring this shape's tokens
    /// to the step; `None` means all of them (the group runs in lockstep, every
    /// replica with the same shape). Fewer means the others bring nothing to this
    /// step's experts: one replica's prefill chunk while the rest wait.
    #[serde(default)]
    pub replicas_with_tokens: Option<f64>,
    /// Whether every new token needs its logits (a speculative verify step: rejection
    /// sampling reads the target's distribution at each drafted position), not only
    /// each sequence's last.
    #[serde(default)]
    pub logits_every_token: bool,
    /// Whether the step carries prompt tokens (a prefill chunk), which serving
    /// frameworks that replay CUDA graphs only for generation run eagerly
    /// (`audit/MODEL.md` 3.6).
    #[serde(default)]
    pub prompt: bool,
}

impl StepShape {
    pub fn decode(seqs: f64, context: f64) -> StepShape {
        StepShape {
            seqs,
            new_tokens: 1.0,
            context_before: context,
            replicas_with_tokens: None,
            logits_every_token: false,
            prompt: false,
        }
    }

    /// Prefill of `computed` prompt tokens per sequence after `cached` tokens whose KV
    /// is already held (a prefix-cache hit; 0 without one).
    pub fn prefill(seqs: f64, computed: f64, cached: f64) -> StepShape {
        StepShape {
            seqs,
            new_tokens: computed,
            context_before: cached,
            replicas_with_tokens: None,
            logits_every_token: false,
            prompt: true,
        }
    }

    /// This shape brought to the step by `replicas` of the expert group's replicas
    /// (clamped to at least one and at most the group's).
    pub fn from_replicas(self, replicas: f64) -> StepShape {
        StepShape {
            replicas_with_tokens: Some(replicas),
            ..self
        }
    }

    /// Replicas of `par`'s expert group whose tokens reach the experts this step.
    pub fn expert_group_replicas(&self, par: Parallelism) -> f64 {
        let all = par.replicas_per_expert_group() as f64;
        match self.replicas_with_tokens {
            Some(r) if r.is_finite() => r.clamp(1.0, all),
            _ => all,
        }
    }
}
