//! The modelling constants that are not facts about a chip or a model: global
//! efficiency defaults and serving-engine behaviour. Each is a starting point that
//! calibration may override per chip (see `audit/AUDIT.md` for the evidence).
//!
//! This file holds the constants themselves (`Assumptions`, its defaults and the few
//! rules of a step's time and batch that read them alone); `knobs.rs` is the table of
//! the numeric ones as a user sets them, `validate.rs` their check, `pool.rs` how a pool
//! of a chip resolves them against its serving framework and the chip's file, and
//! `rates.rs` the efficiencies in force on one chip.

mod knobs;
mod pool;
mod rates;
mod validate;

pub use knobs::{
    knob, knob_index, Knob, BW_EFF, CHUNK, EAGER, FP4_PICK, FP8_BLOCK_PICK, KERNEL, KNOBS,
    MAX_SEQS, MFU, RESERVE, SEQ, STEP,
};
pub use pool::Origin;
pub use rates::{ChipRates, MATMUL_REFERENCE};

use crate::cost::CostSettings;
use crate::serving::{FrameworkChoice, Pinned, Scheduling};
use crate::units::Seconds;
use serde::{Deserialize, Serialize};

/// Read from JSON, a field left out keeps its default and an unknown field is an
/// error, so a file that overrides two constants says only those two and a misspelt
/// name cannot pass unnoticed.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Assumptions {
    /// Sustained fraction of the dense peak a matmul reaches.
    pub mfu: f64,
    /// Sustained fraction of peak memory bandwidth.
    pub bw_eff: f64,
    /// Fixed cost of one kernel (launch, ramp, tail), added per kernel.
    pub kernel_overhead: Seconds,
    /// Fixed cost of one engine step (scheduling, sampling, host work).
    pub step_overhead: Seconds,
    /// Host cost of launching one kernel from the serving framework's Python model
    /// code, in a step that carries prompt tokens and runs without CUDA graphs
    /// (`audit/MODEL.md` 3.6); 0, the global default: prompt steps replay graphs or
    /// launch natively, and the device never waits for its launches.
    pub eager_kernel_overhead: Seconds,
    /// Fraction of communication hidden under compute (0 = fully exposed).
    pub comm_overlap: f64,
    /// Sustained fraction of link bandwidth collectives reach.
    pub link_eff: f64,
    /// Memory held back by the runtime (context, collectives' buffers, fragmentation).
    pub runtime_reserve: f64,
    /// Tokens one prefill step takes at most (chunked-prefill budget).
    pub prefill_chunk_tokens: f64,
    /// Bytes per activation element (BF16).
    pub activation_bytes: f64,
    /// Most sequences a serving engine batches per replica, whatever memory allows
    /// (vLLM `max_num_seqs`, TensorRT-LLM `max_batch_size`, SGLang's graph limit).
    pub max_seqs_per_replica: f64,
    /// Host work per sequence per engine step (scheduling, input preparation,
    /// sampling, detokenising), on the critical path of every step.
    pub seq_overhead: Seconds,
    /// Device time a fused MoE operator spends on each routed pick of FP4 experts
    /// beyond the pick's matmul FLOPs at the chip's FP4 rate (`audit/MODEL.md` 3.2.1);
    /// 0, the global default: none. TensorRT-LLM's CUTLASS MoE sets its own per chip.
    pub fp4_routed_pick_time: Seconds,
    /// The same for block-scaled FP8 experts (`DType::Fp8Block`) beyond the matmul at
    /// the chip's FP8 rate; 0 by default. TensorRT-LLM's CUTLASS MoE on Hopper sets its
    /// own per chip.
    pub fp8_block_routed_pick_time: Seconds,
    /// Whether the replicas that share one expert group (attention data parallelism
    /// with expert parallelism) run their prefill chunks in the same step, as
    /// TensorRT-LLM's ADP balancing schedules them. When not, each replica prefills
    /// on its own schedule and the whole group, in lockstep at every MoE layer, waits
    /// for whichever replica is prefilling (TensorRT-LLM tech blog 10).
    pub aligned_group_prefill: bool,
    /// Busiest expert-parallel rank's routed load over the mean that routing skew
    /// leaves after expert load balancing, on top of the sampling spread of uniform
    /// routing ([`crate::kernel::expert_load_imbalance`]). 1.18: SGLang's measured
    /// prefill of DeepSeek-V3 on 4 x 8 H100 at EP32, 59,337 tokens/s per node with
    /// routing made uniform against 50,302 with its real routing after EPLB
    /// (lm-sys blog 2025-05-05-large-scale-ep, "Overall Throughput").
    pub expert_skew: f64,
    /// Whether a prefill step with expert parallelism across replicas runs as two
    /// micro-batches, one's dispatch and combine under the other's computation
    /// (DeepSeek's day-6 inference overview; SGLang's two-batch overlap). Off: the
    /// all-to-all is exposed as `comm_overlap` leaves it.
    pub prefill_two_batch_overlap: bool,
    /// How the chips of an expert group exchange tokens where attention runs data
    /// parallel: an all-to-all of each token's picks (the default), or an all-gather of
    /// every replica's tokens before the experts and a reduce-scatter of their outputs
    /// after, as TensorRT-LLM's CUTLASS MoE does where its all-to-all is not enabled
    /// ([`ExpertExchange`], `audit/MODEL.md` 3.7.1).
    #[serde(skip_serializing_if = "ExpertExchange::is_all_to_all")]
    pub expert_exchange: ExpertExchange,
    /// The serving framework whose default batch limit and token budget apply where
    /// the user states none (`serving/mod.rs`); `auto` chooses by each pool's chip.
    pub framework: FrameworkChoice,
    /// How a pool that prefills and generates schedules its batch: continuous refill
    /// (the default) or a static batch (`serving::Scheduling`, MODEL.md 6.1.1).
    #[serde(default, skip_serializing_if = "Scheduling::is_continuous")]
    pub scheduling: Scheduling,
    /// The assumptions the user stated: a framework's defaults never replace them.
    #[serde(skip_serializing_if = "Pinned::is_empty")]
    pub pinned: Pinned,
    /// Redundant expert slots beyond the model's routed experts, holding copies of the
    /// most-loaded experts (DeepSeek's EPLB, SGLang `--ep-num-redundant-experts`), spread
    /// over the expert group of every layout with expert parallelism (`ep > 1`).
    #[serde(skip_serializing_if = "is_zero")]
    pub redundant_experts: u32,
    /// Decode steps between the scheduler's polls for new requests (SGLang
    /// `--scheduler-recv-interval`, or its `--num-continuous-decode-steps`, which runs
    /// that many decode steps before scheduling again; 1, every step, is every
    /// framework's default): a request waits for the next poll before it is scheduled
    /// (MODEL.md 6.1.3).
    #[serde(skip_serializing_if = "is_one")]
    pub scheduler_recv_interval: u32,
    /// Share of each chip's weights the serving engine keeps in the cold tier on purpose
    /// and prefetches layer by layer ahead of use, where the chip has a cold tier
    /// (SGLang `--offload-mode cpu --offload-group-size G --offload-num-in-group n`:
    /// `n` of every `G` layers, `n / G`); 0, the default: only weights that do not fit
    /// spill (MODEL.md section 4).
    #[serde(skip_serializing_if = "is_zero_share")]
    pub weight_offload: f64,
    /// Whether a step's host work runs beside its device work, so that the step takes
    /// the longer of the two (`audit/MODEL.md` 3.5): stated, or `None` for the pool's
    /// serving framework's (`serving::HostOverlap`; none, in series, without one).
    /// [`Assumptions::on_chip`] resolves it for a pool.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_overlap: Option<bool>,
    /// Power and money: electricity, PUE, purchase and amortisation, and which dollars
    /// the frontier ranks by (`cost`, MODEL.md section 6.6). No prediction of time reads it.
    #[serde(skip_serializing_if = "CostSettings::is_default")]
    pub cost: CostSettings,
}

/// How an expert group's chips exchange tokens under attention data parallelism
/// (`audit/MODEL.md` 3.7.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExpertExchange {
    /// Each token goes to the chips holding the experts it picked, and comes back
    /// (DeepEP, NVLink all-to-all kernels): `k (g - 1) / g` picks out per token.
    #[default]
    AllToAll,
    /// Every chip gathers every replica's tokens, runs its own experts over all of
    /// them, and the partial outputs are summed back by a reduce-scatter (NCCL): `g - 1`
    /// tokens in per token of its own, whatever the picks.
    GatherScatter,
}

impl ExpertExchange {
    pub const ALL: [ExpertExchange; 2] = [ExpertExchange::AllToAll, ExpertExchange::GatherScatter];

    pub fn is_all_to_all(&self) -> bool {
        *self == ExpertExchange::AllToAll
    }

    /// The name a link, a flag or a table row gives it.
    pub fn id(self) -> &'static str {
        match self {
            ExpertExchange::AllToAll => "all_to_all",
            ExpertExchange::GatherScatter => "gather_scatter",
        }
    }
}

impl std::str::FromStr for ExpertExchange {
    type Err = String;
    fn from_str(id: &str) -> Result<ExpertExchange, String> {
        ExpertExchange::ALL
            .into_iter()
            .find(|e| e.id() == id.trim())
            .ok_or_else(|| {
                format!("expert exchange {id:?} is not one of all_to_all, gather_scatter")
            })
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn is_one(n: &u32) -> bool {
    *n == 1
}

fn is_zero_share(v: &f64) -> bool {
    *v == 0.0
}

impl Default for Assumptions {
    fn default() -> Assumptions {
        Assumptions {
            mfu: 0.60,
            bw_eff: 0.75,
            kernel_overhead: Seconds::from_us(6.0),
            step_overhead: Seconds::from_us(200.0),
            eager_kernel_overhead: Seconds::ZERO,
            comm_overlap: 0.0,
            link_eff: 0.75,
            runtime_reserve: 0.08,
            prefill_chunk_tokens: 8192.0,
            activation_bytes: 2.0,
            max_seqs_per_replica: 256.0,
            seq_overhead: Seconds::from_us(20.0),
            fp4_routed_pick_time: Seconds::ZERO,
            fp8_block_routed_pick_time: Seconds::ZERO,
            aligned_group_prefill: false,
            expert_skew: 1.18,
            prefill_two_batch_overlap: false,
            expert_exchange: ExpertExchange::AllToAll,
            framework: FrameworkChoice::Auto,
            scheduling: Scheduling::Continuous,
            pinned: Pinned::NONE,
            redundant_experts: 0,
            scheduler_recv_interval: 1,
            weight_offload: 0.0,
            host_overlap: None,
            cost: CostSettings::default(),
        }
    }
}

impl Assumptions {
    /// Whether a step's host work runs beside its device work (`audit/MODEL.md` 3.5).
    pub fn overlaps_host(&self) -> bool {
        self.host_overlap == Some(true)
    }

    /// A step's time from its device part (operators, exposed communication, kernel
    /// launches) and its host work: their sum, or where the engine loop prepares the
    /// next step while the device runs this one, the longer of the two
    /// (`audit/MODEL.md` 3.5). The one place the two meet.
    pub fn step_time(&self, device: Seconds, host: Seconds) -> Seconds {
        if self.overlaps_host() {
            device.max(host)
        } else {
            device + host
        }
    }
    /// Host work of one engine step over `seqs` sequences: the fixed part plus the
    /// per-sequence part. Counted once per step, however many sides the model is split into.
    pub fn host_overhead(&self, seqs: f64) -> Seconds {
        self.step_overhead + self.seq_overhead * seqs
    }

    /// Most sequences `replicas` engine replicas run at once.
    pub fn engine_batch_limit(&self, replicas: u32) -> u64 {
        (self.max_seqs_per_replica.max(1.0) as u64).saturating_mul(replicas.max(1) as u64)
    }

    /// How many of `concurrency` requests `replicas` engine replicas run at once: all
    /// of them, or the batch limit, the rest waiting (`serving::queue_wait`).
    pub fn engine_runs(&self, concurrency: u32, replicas: u32) -> u32 {
        (concurrency as u64).min(self.engine_batch_limit(replicas)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_overrides_only_the_fields_it_names_and_refuses_unknown_ones() {
        let a: Assumptions =
            serde_json::from_str(r#"{"mfu": 0.45, "aligned_group_prefill": true}"#).unwrap();
        assert_eq!(
            a,
            Assumptions {
                mfu: 0.45,
                aligned_group_prefill: true,
                ..Assumptions::default()
            }
        );
        let empty: Assumptions = serde_json::from_str("{}").unwrap();
        assert_eq!(empty, Assumptions::default());
        let round_trip: Assumptions =
            serde_json::from_str(&serde_json::to_string(&Assumptions::default()).unwrap()).unwrap();
        assert_eq!(round_trip, Assumptions::default());
        let typo = serde_json::from_str::<Assumptions>(r#"{"bw_efficiency": 0.7}"#);
        assert!(typo.unwrap_err().to_string().contains("bw_efficiency"));
    }
}
