//! The modelling constants that are not facts about a chip or a model: global
//! efficiency defaults and serving-engine behaviour. Each is a starting point that
//! calibration may override per chip (see `audit/AUDIT.md` for the evidence).

use crate::catalogue::Chip;
use crate::cost::CostSettings;
use crate::dtype::ComputeRate;
use crate::error::{EngineError, Result};
use crate::limits::{MAX_RECV_INTERVAL, MAX_REDUNDANT_EXPERTS, MIN_EFFICIENCY};
use crate::serving::{
    Defaults, Framework, FrameworkChoice, KernelFactors, Pinned, Scheduling, StepWork,
};
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
    /// The serving framework whose default batch limit and token budget apply where
    /// the user states none (`serving.rs`); `auto` chooses by each pool's chip.
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
            comm_overlap: 0.0,
            link_eff: 0.75,
            runtime_reserve: 0.08,
            prefill_chunk_tokens: 8192.0,
            activation_bytes: 2.0,
            max_seqs_per_replica: 256.0,
            seq_overhead: Seconds::from_us(20.0),
            aligned_group_prefill: false,
            expert_skew: 1.18,
            prefill_two_batch_overlap: false,
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

    /// The assumptions a pool of `chip` runs with: these, with its serving
    /// framework's defaults and the chip's own step overhead where its file states one,
    /// wherever the user stated none ([`Assumptions::origin`]).
    pub fn on_chip(&self, chip: &Chip) -> Assumptions {
        let mut a = *self;
        // Resolved once: this runs for every pool a sweep places.
        let framework = self.framework_on(chip);
        for (index, set) in POOL_KNOBS {
            let value = match self.origin_given(chip, index, framework) {
                Origin::Stated => None,
                Origin::Framework(_) => framework.and_then(|(_, d)| d.get(index)),
                Origin::Chip if index == KERNEL => chip.efficiency.kernel_overhead.map(|s| s.0),
                Origin::Chip => chip.efficiency.step_overhead.map(|s| s.0),
            };
            if let Some(v) = value {
                set(&mut a, v);
            }
        }
        if a.host_overlap.is_none() {
            a.host_overlap = framework.map(|(_, d)| d.host_overlap.of(StepWork::Generating));
        }
        a
    }

    /// These assumptions for a pool of `chip` whose steps are `work`: where no
    /// `host_overlap` is stated, the pool's serving framework's for such steps
    /// (`serving::HostOverlap`), which [`Assumptions::on_chip`] then keeps.
    pub fn for_steps(&self, chip: &Chip, work: StepWork) -> Assumptions {
        let mut a = *self;
        if a.host_overlap.is_none() {
            a.host_overlap = self
                .framework_on(chip)
                .map(|(_, d)| d.host_overlap.of(work));
        }
        a
    }

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

    /// The prefill token budget one replica of layout `par` on `chip` takes per step.
    /// SGLang's `--chunked-prefill-size` is the server's: with DP attention (replicas
    /// sharing an expert group, `ep > tp`) it divides it by the attention-DP size
    /// (`server_args.py`, `_handle_data_parallelism`: "The chunked prefill size is
    /// adjusted ... to avoid MoE kernel issues"), so each replica takes its share. A
    /// budget the user states is taken as per replica, as the knob says.
    pub fn prefill_chunk_per_replica(&self, chip: &Chip, par: crate::parallel::Parallelism) -> f64 {
        let a = self.on_chip(chip);
        let group = par.replicas_per_expert_group();
        match self.origin(chip, CHUNK) {
            Origin::Framework(Framework::Sglang) if group > 1 => {
                (a.prefill_chunk_tokens / group as f64).max(1.0)
            }
            _ => a.prefill_chunk_tokens,
        }
    }

    /// Where a pool of `chip` takes the knob at `index` of [`KNOBS`] from: what the user
    /// stated (or the global default) wins; then a chip whose runtime is not a GPU
    /// serving engine and states its own step cost; then the pool's serving framework's
    /// default, where it has one.
    pub fn origin(&self, chip: &Chip, index: usize) -> Origin {
        self.origin_given(chip, index, self.framework_on(chip))
    }

    /// The serving framework a pool of `chip` runs and its defaults there.
    fn framework_on(&self, chip: &Chip) -> Option<(Framework, Defaults)> {
        self.framework.for_chip(chip).map(|f| (f, f.defaults(chip)))
    }

    fn origin_given(
        &self,
        chip: &Chip,
        index: usize,
        framework: Option<(Framework, Defaults)>,
    ) -> Origin {
        if self.pinned.has(index) {
            return Origin::Stated;
        }
        if index == STEP && chip.efficiency.step_overhead.is_some() {
            return Origin::Chip;
        }
        if index == KERNEL && chip.efficiency.kernel_overhead.is_some() {
            return Origin::Chip;
        }
        match framework {
            Some((f, d)) if d.get(index).is_some() || d.factor(index).is_some() => {
                Origin::Framework(f)
            }
            _ => Origin::Stated,
        }
    }

    /// The factor a pool of `chip` puts on the chip's `mfu` or `bw_eff` (`index` of
    /// [`KNOBS`]) and the framework it comes from: its serving framework's kernel
    /// factor, unless the user stated that knob.
    pub fn kernel_factor(&self, chip: &Chip, index: usize) -> Option<(Framework, f64)> {
        self.kernel_factor_under(chip, index, self.framework_on(chip))
    }

    /// [`Assumptions::kernel_factor`] with the pool's framework and its defaults given:
    /// what a profile would do before `serving.rs` holds it.
    pub fn kernel_factor_under(
        &self,
        chip: &Chip,
        index: usize,
        framework: Option<(Framework, Defaults)>,
    ) -> Option<(Framework, f64)> {
        match self.origin_given(chip, index, framework) {
            Origin::Framework(f) => framework.and_then(|(_, d)| d.factor(index)).map(|m| (f, m)),
            _ => None,
        }
    }

    /// These assumptions with `name` set to `v` and pinned, so that no framework
    /// default replaces it.
    pub fn pin(mut self, name: &str, v: f64) -> Assumptions {
        if let Some(k) = knob(name) {
            k.set(&mut self, v);
            self.pinned = self.pinned.with(name);
        }
        self
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

/// The message for an assumption outside its range; kept out of line so that the
/// check every prediction runs stays a few comparisons.
#[cold]
#[inline(never)]
fn out_of_range(name: &str, v: f64, lo: f64, hi: f64) -> EngineError {
    EngineError::InvalidInput(format!(
        "assumption {name} = {v:?} must be at least {lo} and at most {hi}"
    ))
}

/// One numeric assumption as a user sets it: its name (that of the `--assumptions`
/// file), what it means, its unit (the file's), the range it must lie in, and how to
/// read and write it. [`Assumptions::validate`] checks these ranges.
#[derive(Clone, Copy, Debug)]
pub struct Knob {
    pub name: &'static str,
    pub meaning: &'static str,
    pub unit: &'static str,
    /// Both ends allowed.
    pub range: (f64, f64),
    get: fn(&Assumptions) -> f64,
    set: fn(&mut Assumptions, f64),
}

impl Knob {
    pub fn get(&self, a: &Assumptions) -> f64 {
        (self.get)(a)
    }

    /// Sets the value, unchecked: [`Assumptions::validate`] checks the whole.
    pub fn set(&self, a: &mut Assumptions, v: f64) {
        (self.set)(a, v)
    }
}

/// Every numeric assumption. Efficiencies are at least 1%, below which a rate is not a
/// rate (a subnormal one made TTFT infinite); fully hidden communication would make
/// links free; at least a tenth of the memory must remain for weights and the KV cache;
/// host costs run from zero to a second; element widths from FP4 to FP64.
pub const KNOBS: [Knob; 12] = [
    Knob {
        name: "mfu",
        meaning: "sustained fraction of the dense peak a matmul reaches",
        unit: "fraction",
        range: (MIN_EFFICIENCY, 1.0),
        get: |a| a.mfu,
        set: |a, v| a.mfu = v,
    },
    Knob {
        name: "bw_eff",
        meaning: "sustained fraction of peak memory bandwidth",
        unit: "fraction",
        range: (MIN_EFFICIENCY, 1.0),
        get: |a| a.bw_eff,
        set: |a, v| a.bw_eff = v,
    },
    Knob {
        name: "link_eff",
        meaning: "sustained fraction of link bandwidth collectives reach",
        unit: "fraction",
        range: (MIN_EFFICIENCY, 1.0),
        get: |a| a.link_eff,
        set: |a, v| a.link_eff = v,
    },
    Knob {
        name: "comm_overlap",
        meaning: "fraction of communication hidden under compute (0: fully exposed)",
        unit: "fraction",
        range: (0.0, 0.99),
        get: |a| a.comm_overlap,
        set: |a, v| a.comm_overlap = v,
    },
    Knob {
        name: "expert_skew",
        meaning: "busiest expert-parallel rank's routed load over the mean from routing skew (1: uniform routing)",
        unit: "ratio",
        range: (1.0, 4.0),
        get: |a| a.expert_skew,
        set: |a, v| a.expert_skew = v,
    },
    Knob {
        name: "runtime_reserve",
        meaning: "memory the runtime holds back (context, buffers, fragmentation)",
        unit: "fraction",
        range: (0.0, 0.9),
        get: |a| a.runtime_reserve,
        set: |a, v| a.runtime_reserve = v,
    },
    Knob {
        name: "kernel_overhead",
        meaning: "fixed cost of one kernel (launch, ramp, tail)",
        unit: "s",
        range: (0.0, 1.0),
        get: |a| a.kernel_overhead.0,
        set: |a, v| a.kernel_overhead = Seconds(v),
    },
    Knob {
        name: "step_overhead",
        meaning: "fixed cost of one engine step (scheduling, sampling, host work)",
        unit: "s",
        range: (0.0, 1.0),
        get: |a| a.step_overhead.0,
        set: |a, v| a.step_overhead = Seconds(v),
    },
    Knob {
        name: "seq_overhead",
        meaning: "host work per sequence per engine step",
        unit: "s",
        range: (0.0, 1.0),
        get: |a| a.seq_overhead.0,
        set: |a, v| a.seq_overhead = Seconds(v),
    },
    Knob {
        name: "activation_bytes",
        meaning: "bytes per activation element",
        unit: "bytes",
        range: (0.5, 8.0),
        get: |a| a.activation_bytes,
        set: |a, v| a.activation_bytes = v,
    },
    Knob {
        name: "prefill_chunk_tokens",
        meaning: "most tokens one prefill step takes (chunked-prefill budget)",
        unit: "tokens",
        range: (1.0, 1e7),
        get: |a| a.prefill_chunk_tokens,
        set: |a, v| a.prefill_chunk_tokens = v,
    },
    Knob {
        name: "max_seqs_per_replica",
        meaning: "most sequences a serving engine batches per replica",
        unit: "sequences",
        range: (1.0, 1e7),
        get: |a| a.max_seqs_per_replica,
        set: |a, v| a.max_seqs_per_replica = v,
    },
];

/// Where the knob `name` sits in [`KNOBS`], found at compile time (a name that is
/// not there fails the build).
pub const fn knob_index(name: &str) -> usize {
    let mut i = 0;
    while i < KNOBS.len() {
        if str_eq(KNOBS[i].name, name) {
            return i;
        }
        i += 1;
    }
    panic!("no such knob")
}

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The knobs a serving framework or a chip may set for a pool ([`Assumptions::on_chip`]).
pub const MAX_SEQS: usize = knob_index("max_seqs_per_replica");
pub const CHUNK: usize = knob_index("prefill_chunk_tokens");
pub const STEP: usize = knob_index("step_overhead");
pub const SEQ: usize = knob_index("seq_overhead");
pub const RESERVE: usize = knob_index("runtime_reserve");
pub const KERNEL: usize = knob_index("kernel_overhead");
/// The knobs a serving framework scales by a factor rather than sets
/// ([`crate::serving::KernelFactors`]).
pub const MFU: usize = knob_index("mfu");
pub const BW_EFF: usize = knob_index("bw_eff");

/// How a pool's knob is written.
type Setter = fn(&mut Assumptions, f64);

/// Those knobs with how each is written.
const POOL_KNOBS: [(usize, Setter); 6] = [
    (MAX_SEQS, |a, v| a.max_seqs_per_replica = v),
    (CHUNK, |a, v| a.prefill_chunk_tokens = v),
    (STEP, |a, v| a.step_overhead = Seconds(v)),
    (SEQ, |a, v| a.seq_overhead = Seconds(v)),
    (RESERVE, |a, v| a.runtime_reserve = v),
    (KERNEL, |a, v| a.kernel_overhead = Seconds(v)),
];

/// Where a pool's value of a knob comes from ([`Assumptions::origin`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The user's value, or the global default.
    Stated,
    /// The pool's serving framework's default.
    Framework(Framework),
    /// The chip's own (a step cost in its catalogue file).
    Chip,
}

/// The assumption called `name`.
pub fn knob(name: &str) -> Option<&'static Knob> {
    KNOBS.iter().find(|k| k.name == name)
}

/// The measured matmul share of peak at which a chip sustains the global `mfu` unchanged
/// (`audit/MODEL.md` section 1.1): a chip whose best matmul reaches a share `s` of its
/// peak sustains `mfu * s / MATMUL_REFERENCE`. Fitted on calibration points only
/// (`examples/calibrate_matmul.rs`).
pub const MATMUL_REFERENCE: f64 = 0.67;

/// The efficiencies in force for one chip: its calibrated overrides where it has them,
/// the global defaults scaled by its measured matmul share where it has one, the global
/// defaults where neither.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChipRates {
    pub mfu_bf16: f64,
    pub mfu_fp8: f64,
    pub mfu_fp4: f64,
    pub bw_eff: f64,
    pub kernel_overhead: Seconds,
}

impl ChipRates {
    /// The one place a pool's efficiencies are resolved: the chip's own, else the
    /// global ones, times its serving framework's kernel factors where it has them and
    /// the user pinned neither `mfu` nor `bw_eff` ([`Assumptions::kernel_factor`]).
    pub fn for_chip(chip: &Chip, a: &Assumptions) -> ChipRates {
        ChipRates::under(chip, a, a.framework_on(chip))
    }

    /// [`ChipRates::for_chip`] with the pool's framework and its defaults given.
    pub fn under(
        chip: &Chip,
        a: &Assumptions,
        framework: Option<(Framework, Defaults)>,
    ) -> ChipRates {
        let e = chip.efficiency;
        let measured = |share: Option<f64>| share.map(|s| (a.mfu * s / MATMUL_REFERENCE).min(1.0));
        let mfu = e.mfu.or(measured(e.matmul_bf16)).unwrap_or(a.mfu);
        // A dtype with neither an override nor a measurement takes the next wider one's.
        let mfu_fp8 = e.mfu_fp8.or(measured(e.matmul_fp8)).unwrap_or(mfu);
        ChipRates {
            mfu_bf16: mfu,
            mfu_fp8,
            mfu_fp4: e.mfu_fp4.or(measured(e.matmul_fp4)).unwrap_or(mfu_fp8),
            bw_eff: e.bw_eff.unwrap_or(a.bw_eff),
            kernel_overhead: e.kernel_overhead.unwrap_or(a.kernel_overhead),
        }
        .scaled(KernelFactors {
            compute: a.kernel_factor_under(chip, MFU, framework).map(|(_, m)| m),
            bandwidth: a
                .kernel_factor_under(chip, BW_EFF, framework)
                .map(|(_, m)| m),
        })
    }

    /// These rates with every MFU times `k.compute` and the bandwidth efficiency times
    /// `k.bandwidth`, each kept at most 1; a factor left out leaves its rates untouched
    /// to the bit.
    pub fn scaled(self, k: KernelFactors) -> ChipRates {
        let by = |v: f64, m: Option<f64>| m.map_or(v, |m| (v * m).min(1.0));
        ChipRates {
            mfu_bf16: by(self.mfu_bf16, k.compute),
            mfu_fp8: by(self.mfu_fp8, k.compute),
            mfu_fp4: by(self.mfu_fp4, k.compute),
            bw_eff: by(self.bw_eff, k.bandwidth),
            kernel_overhead: self.kernel_overhead,
        }
    }

    pub fn mfu(&self, rate: ComputeRate) -> f64 {
        match rate {
            ComputeRate::Bf16 => self.mfu_bf16,
            ComputeRate::Fp8 => self.mfu_fp8,
            ComputeRate::Fp4 => self.mfu_fp4,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sglang_shares_its_prefill_budget_over_attention_data_parallel_replicas() {
        use crate::parallel::Parallelism;
        let h200 = crate::Catalogue::builtin().chip("h200").unwrap();
        let sglang = Assumptions {
            framework: FrameworkChoice::Given(Framework::Sglang),
            ..Assumptions::default()
        };
        let dp_attention = Parallelism {
            tp: 1,
            pp: 1,
            dp: 8,
            ep: 8,
        };
        let tp8 = Parallelism {
            tp: 8,
            pp: 1,
            dp: 1,
            ep: 8,
        };
        // SGLang's 8,192 on an H200, shared by the eight replicas of one expert group.
        assert_eq!(sglang.prefill_chunk_per_replica(h200, dp_attention), 1024.0);
        assert_eq!(sglang.prefill_chunk_per_replica(h200, tp8), 8192.0);
        // A budget the user states is per replica; other frameworks do not divide.
        let stated = sglang.pin("prefill_chunk_tokens", 4096.0);
        assert_eq!(stated.prefill_chunk_per_replica(h200, dp_attention), 4096.0);
        let trtllm = Assumptions {
            framework: FrameworkChoice::Given(Framework::TrtLlm),
            ..Assumptions::default()
        };
        assert_eq!(trtllm.prefill_chunk_per_replica(h200, dp_attention), 8192.0);
    }

    #[test]
    fn every_numeric_assumption_has_a_knob_that_reads_and_writes_it() {
        let json = serde_json::to_value(Assumptions::default()).unwrap();
        let fields = json.as_object().unwrap();
        for (name, value) in fields {
            if let Some(v) = value.as_f64() {
                let k = knob(name).unwrap_or_else(|| panic!("no knob for {name}"));
                assert_eq!(k.get(&Assumptions::default()), v, "{name}");
                let mut a = Assumptions::default();
                k.set(&mut a, k.range.1);
                assert!(a.validate().is_ok(), "{name} at its upper end");
                k.set(&mut a, k.range.1 * 2.0 + 1.0);
                assert!(a.validate().unwrap_err().to_string().contains(name));
            }
        }
        assert_eq!(KNOBS.len(), fields.values().filter(|v| v.is_f64()).count());
    }

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
