//! How a model is laid out on chips: tensor (`tp`), pipeline (`pp`), data (`dp`) and
//! expert (`ep`) parallelism.
//!
//! `chips = tp * pp * dp`. A replica is `tp * pp` chips holding one copy of the
//! attention and dense weights. Routed experts are spread over an *expert group* of
//! `g = max(tp, ep)` chips in each pipeline stage: with `ep <= tp` the group is the TP
//! group and each expert is further split `tp / ep` ways; with `ep > tp` the group spans
//! `ep / tp` replicas (DP-attention with wide EP, as DeepSeek and SGLang serve), and
//! tokens reach their experts by all-to-all.

use crate::error::{EngineError, Result};
use crate::limits::MAX_CHIPS;
use crate::model::{Attention, ModelIr};
use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Parallelism {
    pub tp: u32,
    pub pp: u32,
    pub dp: u32,
    pub ep: u32,
}

impl Parallelism {
    pub fn single() -> Parallelism {
        Parallelism {
            tp: 1,
            pp: 1,
            dp: 1,
            ep: 1,
        }
    }

    /// `tp x pp x dp`, saturating: a layout beyond [`MAX_CHIPS`] is refused by
    /// [`Parallelism::validate`], never wrapped around.
    pub fn chips(&self) -> u32 {
        self.tp.saturating_mul(self.pp).saturating_mul(self.dp)
    }

    /// Chips an expert group spans.
    pub fn expert_group(&self) -> u32 {
        self.tp.max(self.ep)
    }

    /// Ways each expert's matrices are split inside the group.
    pub fn expert_tp(&self) -> u32 {
        (self.tp / self.ep.max(1)).max(1)
    }

    /// Sequences each replica holds when `batch` spreads over the replicas; replicas
    /// beyond the batch stay idle rather than holding a fraction of a sequence.
    pub fn seqs_per_replica(&self, batch: u32) -> f64 {
        batch as f64 / self.dp.min(batch).max(1) as f64
    }

    /// Replicas whose tokens meet in one expert group.
    pub fn replicas_per_expert_group(&self) -> u32 {
        (self.ep / self.tp.max(1)).max(1)
    }

    /// Expert slots of one MoE layer: the model's `experts`, plus `redundant` copies
    /// of hot experts when the experts spread over chips (`ep > 1`); without expert
    /// parallelism every chip holds every expert and a copy would change nothing.
    pub fn expert_slots(&self, experts: u32, redundant: u32) -> u32 {
        if self.ep > 1 {
            experts.saturating_add(redundant)
        } else {
            experts
        }
    }

    /// Checks this layout against a model; the error says which rule breaks and how.
    pub fn validate(&self, model: &ModelIr, chips: u32) -> Result<()> {
        self.validate_with(model, chips, 0)
    }

    /// [`Parallelism::validate`] with `redundant` expert slots (see
    /// [`Parallelism::expert_slots`]): the slots, not the experts, must divide over `ep`.
    pub fn validate_with(&self, model: &ModelIr, chips: u32, redundant: u32) -> Result<()> {
        let bad = |msg: String| Err(EngineError::InvalidParallelism(msg));
        if self.tp == 0 || self.pp == 0 || self.dp == 0 || self.ep == 0 {
            return bad("tp, pp, dp and ep must all be at least 1".into());
        }
        if self.chips() > MAX_CHIPS || self.ep > MAX_CHIPS {
            return bad(format!(
                "tp {} x pp {} x dp {} (ep {}) exceeds {MAX_CHIPS} chips",
                self.tp, self.pp, self.dp, self.ep
            ));
        }
        if self.chips() != chips {
            return bad(format!(
                "tp {} x pp {} x dp {} = {} chips, but the deployment has {chips}",
                self.tp,
                self.pp,
                self.dp,
                self.chips()
            ));
        }
        let heads = model.attention_heads();
        if heads % self.tp != 0 {
            return bad(format!(
                "{heads} attention heads are not divisible by tp {}",
                self.tp
            ));
        }
        for g in &model.groups {
            if let Attention::Gqa { kv_heads, .. } = g.attention {
                if kv_heads % self.tp != 0 && self.tp % kv_heads != 0 {
                    return bad(format!(
                        "{kv_heads} KV heads neither divide nor are divided by tp {}",
                        self.tp
                    ));
                }
            }
        }
        if self.pp > model.num_layers {
            return bad(format!(
                "pp {} exceeds the model's {} layers",
                self.pp, model.num_layers
            ));
        }
        match model.routed_experts() {
            None if self.ep != 1 => bad(format!(
                "ep {} given for a dense model (no experts to spread)",
                self.ep
            )),
            None => Ok(()),
            Some(experts) => {
                let slots = self.expert_slots(experts, redundant);
                if slots % self.ep != 0 {
                    return bad(if slots == experts {
                        format!("{experts} experts are not divisible by ep {}", self.ep)
                    } else {
                        format!(
                            "{experts} experts and {redundant} redundant slots ({slots}) are not divisible by ep {}",
                            self.ep
                        )
                    });
                }
                if self.ep <= self.tp {
                    if self.tp % self.ep != 0 {
                        return bad(format!(
                            "ep {} must divide tp {} (or be a multiple of it)",
                            self.ep, self.tp
                        ));
                    }
                } else if self.ep % self.tp != 0 || self.dp % (self.ep / self.tp) != 0 {
                    return bad(format!(
                        "ep {} beyond tp {} must be tp times a divisor of dp {}",
                        self.ep, self.tp, self.dp
                    ));
                }
                Ok(())
            }
        }
    }
}

impl fmt::Display for Parallelism {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TP{} PP{} DP{} EP{}", self.tp, self.pp, self.dp, self.ep)
    }
}

/// Every divisor of `n`, ascending.
pub fn divisors(n: u32) -> Vec<u32> {
    let mut small = Vec::new();
    let mut large = Vec::new();
    let mut d = 1;
    while d * d <= n {
        if n % d == 0 {
            small.push(d);
            if d * d != n {
                large.push(n / d);
            }
        }
        d += 1;
    }
    small.extend(large.into_iter().rev());
    small
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn divisors_are_complete_and_sorted() {
        assert_eq!(divisors(12), vec![1, 2, 3, 4, 6, 12]);
        assert_eq!(divisors(1), vec![1]);
        assert_eq!(divisors(49), vec![1, 7, 49]);
    }

    #[test]
    fn expert_group_geometry() {
        let wide = Parallelism {
            tp: 1,
            pp: 1,
            dp: 32,
            ep: 32,
        };
        assert_eq!(
            (
                wide.expert_group(),
                wide.expert_tp(),
                wide.replicas_per_expert_group()
            ),
            (32, 1, 32)
        );
        let tp_ep = Parallelism {
            tp: 8,
            pp: 1,
            dp: 1,
            ep: 2,
        };
        assert_eq!(
            (
                tp_ep.expert_group(),
                tp_ep.expert_tp(),
                tp_ep.replicas_per_expert_group()
            ),
            (8, 4, 1)
        );
    }

    #[test]
    fn a_layout_beyond_the_chip_bound_is_refused_not_wrapped() {
        // 65,536 x 65,536 wrapped to 0 chips in release builds and panicked in debug.
        let huge = Parallelism {
            tp: 65_536,
            pp: 65_536,
            dp: 1,
            ep: 1,
        };
        assert_eq!(huge.chips(), u32::MAX);
        let model = &crate::Catalogue::builtin()
            .model("llama-3.1-8b")
            .unwrap()
            .ir;
        let err = huge.validate(model, 8).unwrap_err().to_string();
        assert!(err.contains("exceeds"), "{err}");
        // Degenerate divisors never divide by zero.
        let zero = Parallelism {
            tp: 0,
            pp: 1,
            dp: 1,
            ep: 0,
        };
        assert_eq!((zero.expert_tp(), zero.replicas_per_expert_group()), (1, 1));
        assert!(zero.validate(model, 0).is_err());
    }
}
