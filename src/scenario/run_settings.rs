//! Settings a published run states that the page's main controls leave at their
//! defaults: a prompt count fixed across batches, a mean bits per weight (a GGUF
//! file's), and four settings of the serving engine (host work beside device work,
//! the scheduler's poll interval, the prefill's two-batch overlap, weights offloaded on
//! purpose). Each is a field of the engine's bundle; with them the page holds every
//! bundle a validation row writes. Link keys: [`RUN_KEYS`].

use super::apply::{parse_optional_in, switch};
use super::Scenario;
use disagg_engine::limits::{BITS_PER_WEIGHT, MAX_PROMPTS, MAX_RECV_INTERVAL};
use disagg_engine::{Assumptions, Workload};

/// The link keys, in the link's order: `np` prompts, `bpw` bits per weight, `hov` host
/// overlap, `rcv` the scheduler's poll interval, `tbo` two-batch prefill overlap,
/// `offload` the share of weights offloaded.
pub const RUN_KEYS: [&str; 6] = ["np", "bpw", "hov", "rcv", "tbo", "offload"];

/// The run settings of a scenario; every default is the engine's.
#[derive(Clone, Debug, PartialEq)]
pub struct RunSettings {
    /// Prompts the benchmark sends in all, whatever the batch (`None`: as prompts per
    /// user say, or the steady loop); exclusive with prompts per user.
    pub prompts: Option<u32>,
    /// Bits per weight of every weight, in place of its dtype's (`None`: the dtypes').
    pub bits_per_weight: Option<f64>,
    /// Host work beside device work: stated, or `None` for each pool's framework's.
    pub host_overlap: Option<bool>,
    /// Decode steps between the scheduler's polls for new requests (1: every step).
    pub scheduler_recv_interval: u32,
    /// A prefill step with expert parallelism runs as two overlapped micro-batches.
    pub prefill_two_batch_overlap: bool,
    /// Share of each chip's weights kept in its cold tier on purpose (0 to below 1).
    pub weight_offload: f64,
}

impl Default for RunSettings {
    fn default() -> RunSettings {
        RunSettings::of(None, &Workload::new(1, 1), &Assumptions::default())
    }
}

impl RunSettings {
    /// The run settings a bundle states: its weights' bits, its workload's prompts and
    /// its serving assumptions (what [`RunSettings::onto_assumptions`] and
    /// [`RunSettings::onto_workload`] write back).
    pub fn of(bits_per_weight: Option<f64>, w: &Workload, a: &Assumptions) -> RunSettings {
        RunSettings {
            prompts: w.prompts,
            bits_per_weight,
            host_overlap: a.host_overlap,
            scheduler_recv_interval: a.scheduler_recv_interval,
            prefill_two_batch_overlap: a.prefill_two_batch_overlap,
            weight_offload: a.weight_offload,
        }
    }

    /// The settings as the engine's assumptions hold them, over `a`.
    pub fn onto_assumptions(&self, a: Assumptions) -> Assumptions {
        Assumptions {
            host_overlap: self.host_overlap,
            scheduler_recv_interval: self.scheduler_recv_interval,
            prefill_two_batch_overlap: self.prefill_two_batch_overlap,
            weight_offload: self.weight_offload,
            ..a
        }
    }

    /// The settings as the engine's workload holds them, over `w`.
    pub fn onto_workload(&self, w: Workload) -> Workload {
        Workload {
            prompts: self.prompts,
            ..w
        }
    }

    /// The value key `key` of [`RUN_KEYS`] holds, as the link writes it; `None` at its
    /// default (not written).
    pub fn value(&self, key: &str) -> Option<String> {
        let d = RunSettings::default();
        match key {
            "np" => self.prompts.map(|n| n.to_string()),
            "bpw" => self.bits_per_weight.map(|b| b.to_string()),
            "hov" => self
                .host_overlap
                .map(|on| if on { "on" } else { "off" }.to_string()),
            "rcv" => (self.scheduler_recv_interval != d.scheduler_recv_interval)
                .then(|| self.scheduler_recv_interval.to_string()),
            "tbo" => self.prefill_two_batch_overlap.then(|| "1".to_string()),
            "offload" => {
                (self.weight_offload != d.weight_offload).then(|| self.weight_offload.to_string())
            }
            _ => None,
        }
    }

    /// Sets the value of key `key` of [`RUN_KEYS`] from its text; empty returns it to
    /// its default. A refusal names the setting and its range.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), String> {
        let d = RunSettings::default();
        match key {
            "np" => {
                self.prompts = parse_optional_in(
                    value,
                    1..=MAX_PROMPTS,
                    format!("prompts are a whole number from 1 to {MAX_PROMPTS} (or empty: as prompts per user say)"),
                )?
            }
            "bpw" => {
                self.bits_per_weight = parse_optional_in(
                    value,
                    BITS_PER_WEIGHT,
                    format!(
                        "bits per weight are a number from {} to {} (or empty: each weight's dtype's)",
                        BITS_PER_WEIGHT.start(),
                        BITS_PER_WEIGHT.end()
                    ),
                )?
            }
            "hov" => {
                self.host_overlap = match value {
                    "" | "auto" => None,
                    "on" | "1" => Some(true),
                    "off" | "0" => Some(false),
                    _ => return Err("hov is on, off or auto (the framework's)".into()),
                }
            }
            "rcv" => {
                self.scheduler_recv_interval = parse_optional_in(
                    value,
                    1..=MAX_RECV_INTERVAL,
                    format!("the scheduler polls every 1 to {MAX_RECV_INTERVAL} decode steps"),
                )?
                .unwrap_or(d.scheduler_recv_interval)
            }
            "tbo" => {
                self.prefill_two_batch_overlap = switch(value)
                    .ok_or("tbo is 1 (two overlapped prefill micro-batches) or 0")?
            }
            "offload" => {
                self.weight_offload = parse_optional_in(
                    value,
                    0.0..=0.999,
                    "the share of weights offloaded is a number from 0 to 0.999",
                )?
                .unwrap_or(d.weight_offload)
            }
            _ => return Err("unknown setting".into()),
        }
        Ok(())
    }
}

impl Scenario {
    /// The link's pairs of the run settings away from their defaults.
    pub(super) fn run_query(&self) -> Vec<String> {
        RUN_KEYS
            .iter()
            .filter_map(|k| Some(format!("{k}={}", self.run.value(k)?)))
            .collect()
    }
}
