//! The check of a whole set of assumptions: every knob within its range ([`KNOBS`]) and
//! the few other fields' bounds, each refusal naming the field and its range, so that no
//! impossible constant turns into an infinite or negative prediction.

use super::{Assumptions, KNOBS};
use crate::error::{EngineError, Result};
use crate::limits::{MAX_RECV_INTERVAL, MAX_REDUNDANT_EXPERTS};

impl Assumptions {
    /// Rejects values no deployment can have, naming the field and its range: the
    /// constants divide times and capacities, so a zero efficiency or a negative
    /// overhead would turn into infinite or negative predictions.
    pub fn validate(&self) -> Result<()> {
        for k in &KNOBS {
            let v = (k.get)(self);
            let (lo, hi) = k.range;
            // Written so that NaN fails every comparison and so the check.
            if !(v >= lo && v <= hi) {
                return Err(out_of_range(k.name, v, lo, hi));
            }
        }
        if self.redundant_experts > MAX_REDUNDANT_EXPERTS {
            return Err(out_of_range(
                "redundant_experts",
                self.redundant_experts as f64,
                0.0,
                MAX_REDUNDANT_EXPERTS as f64,
            ));
        }
        self.cost.validate()?;
        // Written so that NaN fails: a share of the weights, not all of them.
        if !(self.weight_offload >= 0.0 && self.weight_offload < 1.0) {
            return Err(out_of_range(
                "weight_offload",
                self.weight_offload,
                0.0,
                1.0,
            ));
        }
        if !(1..=MAX_RECV_INTERVAL).contains(&self.scheduler_recv_interval) {
            return Err(out_of_range(
                "scheduler_recv_interval",
                self.scheduler_recv_interval as f64,
                1.0,
                MAX_RECV_INTERVAL as f64,
            ));
        }
        Ok(())
    }
}

/// The message for an assumption outside its range; kept out of line so that the
/// check every prediction runs stays a few comparisons.
#[cold]
#[inline(never)]
fn out_of_range(name: &str, v: f64, lo: f64, hi: f64) -> EngineError {
    EngineError::InvalidInput(format!(
        "assumption {name} = {v:?} must be at least {lo} and at most {hi}"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Seconds;

    #[test]
    fn the_defaults_are_valid_and_each_impossible_value_is_refused_by_name() {
        assert!(Assumptions::default().validate().is_ok());
        type Edit = fn(&mut Assumptions);
        let cases: [(&str, Edit); 14] = [
            ("mfu", |a| a.mfu = 0.0),
            ("mfu", |a| a.mfu = 1.2),
            ("bw_eff", |a| a.bw_eff = f64::NAN),
            ("link_eff", |a| a.link_eff = -0.5),
            ("comm_overlap", |a| a.comm_overlap = 1.0),
            ("runtime_reserve", |a| a.runtime_reserve = 0.95),
            ("kernel_overhead", |a| a.kernel_overhead = Seconds(-1e-6)),
            ("step_overhead", |a| {
                a.step_overhead = Seconds(f64::INFINITY)
            }),
            ("seq_overhead", |a| a.seq_overhead = Seconds(2.0)),
            ("activation_bytes", |a| a.activation_bytes = 0.0),
            ("prefill_chunk_tokens", |a| a.prefill_chunk_tokens = 0.5),
            ("max_seqs_per_replica", |a| a.max_seqs_per_replica = 0.0),
            ("max_seqs_per_replica", |a| a.max_seqs_per_replica = 1e9),
            ("prefill_chunk_tokens", |a| {
                a.prefill_chunk_tokens = f64::NAN
            }),
        ];
        for (name, edit) in cases {
            let mut a = Assumptions::default();
            edit(&mut a);
            let message = a.validate().unwrap_err().to_string();
            assert!(message.contains(name), "{name}: {message}");
        }
        // The edges of each range are themselves allowed.
        let edges = Assumptions {
            mfu: 1.0,
            comm_overlap: 0.0,
            runtime_reserve: 0.9,
            kernel_overhead: Seconds(0.0),
            activation_bytes: 0.5,
            prefill_chunk_tokens: 1.0,
            max_seqs_per_replica: 1.0,
            ..Assumptions::default()
        };
        assert!(edges.validate().is_ok());
    }
}
