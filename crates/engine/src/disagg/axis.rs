//! The names a deployment is described in: the axis it is split along, the roles of
//! its pools, what limits it, and why a sweep drops a candidate.

use crate::error::{EngineError, Result};
use serde::{Deserialize, Serialize};
use std::fmt;

/// The way a deployment is split.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Axis {
    /// Prefill and decode colocated on one pool (the baseline).
    #[serde(rename = "agg")]
    Aggregated,
    #[serde(rename = "pd")]
    PrefillDecode,
    #[serde(rename = "af")]
    AttentionExpert,
    #[serde(rename = "spec")]
    Speculative,
}

impl Axis {
    pub const ALL: [Axis; 4] = [
        Axis::Aggregated,
        Axis::PrefillDecode,
        Axis::AttentionExpert,
        Axis::Speculative,
    ];

    /// The short id used on the command line and in links.
    pub fn id(self) -> &'static str {
        match self {
            Axis::Aggregated => "agg",
            Axis::PrefillDecode => "pd",
            Axis::AttentionExpert => "af",
            Axis::Speculative => "spec",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Axis::Aggregated => "aggregated",
            Axis::PrefillDecode => "prefill/decode",
            Axis::AttentionExpert => "attention/expert",
            Axis::Speculative => "speculative decoding",
        }
    }

    /// The axis with this id, in any case (`pd`, `PD`).
    pub fn parse(id: &str) -> Result<Axis> {
        Axis::ALL
            .into_iter()
            .find(|a| a.id().eq_ignore_ascii_case(id.trim()))
            .ok_or_else(|| EngineError::UnknownId {
                kind: "axis",
                id: id.to_string(),
                valid: Axis::ALL.iter().map(|a| a.id().to_string()).collect(),
            })
    }
}

impl Axis {
    /// The role of the pool that holds the sequences while they generate.
    pub fn generating_role(self) -> PoolRole {
        match self {
            Axis::Aggregated => PoolRole::Colocated,
            Axis::PrefillDecode => PoolRole::Decode,
            Axis::AttentionExpert => PoolRole::Attention,
            Axis::Speculative => PoolRole::Target,
        }
    }
}

impl fmt::Display for Axis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PoolRole {
    Colocated,
    Prefill,
    Decode,
    Attention,
    Experts,
    Target,
    Draft,
}

impl PoolRole {
    /// "decode pool " before a message about one pool; nothing for the colocated pool,
    /// which is the whole deployment.
    pub fn pool_prefix(self) -> String {
        match self {
            PoolRole::Colocated => String::new(),
            role => format!("{} pool ", role.name()),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            PoolRole::Colocated => "prefill+decode",
            PoolRole::Prefill => "prefill",
            PoolRole::Decode => "decode",
            PoolRole::Attention => "attention",
            PoolRole::Experts => "experts",
            PoolRole::Target => "target",
            PoolRole::Draft => "draft",
        }
    }
}

/// What caps a deployment's request rate or step time: the side the frontier would
/// move if it got faster.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Limiter {
    /// Colocated decode, with prefill stealing time from it.
    Colocated,
    /// The decode pool's request rate.
    DecodePool,
    /// The prefill pool's request rate.
    PrefillPool,
    /// The link between the pools.
    InterPoolLink,
    /// Attention and KV reads on the attention pool.
    AttentionPool,
    /// Expert weights and FFN compute on the expert pool.
    ExpertPool,
    /// Drafting dominates the speculative cycle.
    Drafting,
    /// Verification on the target dominates the speculative cycle.
    Verification,
}

impl Limiter {
    pub fn name(self) -> &'static str {
        match self {
            Limiter::Colocated => "colocated prefill and decode",
            Limiter::DecodePool => "decode pool",
            Limiter::PrefillPool => "prefill pool",
            Limiter::InterPoolLink => "inter-pool link",
            Limiter::AttentionPool => "attention pool",
            Limiter::ExpertPool => "expert pool",
            Limiter::Drafting => "drafting",
            Limiter::Verification => "verification",
        }
    }
}

impl fmt::Display for Limiter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a candidate was dropped, in a sweep's tally.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Reject {
    /// Weights (plus one sequence) exceed the chips' memory.
    WeightsDoNotFit,
    /// The batch's KV cache exceeds the memory left after the weights.
    BatchDoesNotFit,
    /// Heads, experts or KV heads do not divide over the layout.
    InvalidLayout,
    /// The draft model does not fit next to, or on, its chips.
    DraftDoesNotFit,
    /// The expert count does not divide over the expert pool.
    ExpertsDoNotDivide,
}

impl Reject {
    /// Whether the configuration failed for lack of memory.
    pub fn is_memory(self) -> bool {
        matches!(
            self,
            Reject::WeightsDoNotFit | Reject::BatchDoesNotFit | Reject::DraftDoesNotFit
        )
    }

    pub fn name(self) -> &'static str {
        match self {
            Reject::WeightsDoNotFit => "weights do not fit",
            Reject::BatchDoesNotFit => "batch does not fit (KV cache)",
            Reject::InvalidLayout => "invalid parallel layout",
            Reject::DraftDoesNotFit => "draft does not fit",
            Reject::ExpertsDoNotDivide => "experts do not divide over the expert pool",
        }
    }
}
