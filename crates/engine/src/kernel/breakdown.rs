//! Where a step's time goes: its time split by what limits each operator, and the
//! largest share named as the step's bottleneck.

use super::{OpKind, StepCost};
use crate::units::Seconds;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Where the decode step's time goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Bottleneck {
    Compute,
    WeightMemory,
    KvMemory,
    Communication,
    Overhead,
}

impl Bottleneck {
    pub fn name(self) -> &'static str {
        match self {
            Bottleneck::Compute => "compute",
            Bottleneck::WeightMemory => "memory (weights)",
            Bottleneck::KvMemory => "memory (KV cache)",
            Bottleneck::Communication => "communication",
            Bottleneck::Overhead => "overhead",
        }
    }
}

impl fmt::Display for Bottleneck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A step's time split by what limits it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TimeBreakdown {
    pub compute: Seconds,
    pub weight_memory: Seconds,
    pub kv_memory: Seconds,
    pub communication: Seconds,
    pub overhead: Seconds,
}

impl TimeBreakdown {
    pub fn of(step: &StepCost) -> TimeBreakdown {
        // Waiting for prefetched weights is weight streaming.
        let mut t = TimeBreakdown {
            communication: step.exposed_comm,
            overhead: step.exposed_overhead(),
            weight_memory: step.prefetch_stall,
            ..TimeBreakdown::default()
        };
        for kind in OpKind::ALL {
            if kind.is_communication() {
                continue;
            }
            let op = step.op(kind);
            let memory_bound = op.time - op.compute_bound_time;
            t.compute += op.compute_bound_time;
            if kind == OpKind::AttnCore {
                t.kv_memory += memory_bound;
            } else {
                t.weight_memory += memory_bound;
            }
        }
        t
    }

    pub fn bottleneck(&self) -> Bottleneck {
        [
            (Bottleneck::Compute, self.compute),
            (Bottleneck::WeightMemory, self.weight_memory),
            (Bottleneck::KvMemory, self.kv_memory),
            (Bottleneck::Communication, self.communication),
            (Bottleneck::Overhead, self.overhead),
        ]
        .into_iter()
        .fold((Bottleneck::Compute, Seconds(-1.0)), |best, (b, t)| {
            if t > best.1 {
                (b, t)
            } else {
                best
            }
        })
        .0
    }
}

impl StepCost {
    /// This step's time split by what limits it.
    pub fn time_breakdown(&self) -> TimeBreakdown {
        TimeBreakdown::of(self)
    }
}
