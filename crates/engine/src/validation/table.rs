//! The validation table as written: published measurements (`catalogue/benchmarks.toml`),
//! each with its source, serving framework, role and the scenario it maps to.

use crate::assumptions::{Assumptions, ExpertExchange};
use crate::catalogue::embedded_benchmarks;
use crate::disagg::{Axis, DeploymentPoint, PoolRole};
use crate::dtype::DType;
use crate::error::{EngineError, Result};
use crate::serving::{Framework as Serving, FrameworkChoice};
use crate::workload::{FiniteRun, Workload};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Calibration,
    Holdout,
}

impl Role {
    /// The name the table and the page's link give the role.
    pub fn id(self) -> &'static str {
        match self {
            Role::Calibration => "calibration",
            Role::Holdout => "holdout",
        }
    }
}

/// The serving software a published point ran, as its source or note names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "&'static str")]
pub enum Framework {
    TrtLlm,
    Vllm,
    Sglang,
    DynamoTrtLlm,
    DynamoSglang,
    LlamaCpp,
    Mlx,
    /// The publisher's own serving system.
    Other,
    /// Neither the source nor the note says.
    Unknown,
}

impl Framework {
    pub const ALL: [Framework; 9] = [
        Framework::TrtLlm,
        Framework::Vllm,
        Framework::Sglang,
        Framework::DynamoTrtLlm,
        Framework::DynamoSglang,
        Framework::LlamaCpp,
        Framework::Mlx,
        Framework::Other,
        Framework::Unknown,
    ];

    /// The id the table and the JSON spell.
    pub fn id(self) -> &'static str {
        match self {
            Framework::TrtLlm => "trtllm",
            Framework::Vllm => "vllm",
            Framework::Sglang => "sglang",
            Framework::DynamoTrtLlm => "dynamo-trtllm",
            Framework::DynamoSglang => "dynamo-sglang",
            Framework::LlamaCpp => "llamacpp",
            Framework::Mlx => "mlx",
            Framework::Other => "other",
            Framework::Unknown => "unknown",
        }
    }
}

impl Framework {
    /// The serving framework whose defaults the point runs with: a Dynamo deployment
    /// runs its backend engine's; a point whose framework nobody states, or an
    /// in-house one, takes `auto`.
    pub fn serving(self) -> FrameworkChoice {
        let given = |f| FrameworkChoice::Given(f);
        match self {
            Framework::TrtLlm | Framework::DynamoTrtLlm => given(Serving::TrtLlm),
            Framework::Vllm => given(Serving::Vllm),
            Framework::Sglang | Framework::DynamoSglang => given(Serving::Sglang),
            Framework::LlamaCpp => given(Serving::LlamaCpp),
            Framework::Mlx => given(Serving::Mlx),
            Framework::Other | Framework::Unknown => FrameworkChoice::Auto,
        }
    }
}

impl TryFrom<String> for Framework {
    type Error = String;
    fn try_from(id: String) -> std::result::Result<Framework, String> {
        Framework::ALL
            .into_iter()
            .find(|f| f.id() == id)
            .ok_or_else(|| {
                let ids: Vec<&str> = Framework::ALL.iter().map(|f| f.id()).collect();
                format!("framework {id:?} is not one of {}", ids.join(", "))
            })
    }
}

impl From<Framework> for &'static str {
    fn from(f: Framework) -> &'static str {
        f.id()
    }
}

/// What a point measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// Output tokens per second over the whole deployment.
    OutputTokS,
    OutputTokSPerChip,
    InputTokSPerChip,
    /// Input plus output tokens per second per chip.
    TotalTokSPerChip,
    TokSUser,
    TpotMs,
    TtftMs,
    /// The median request's TTFT, ms: the engine's p50 (`Ttft::quantile(0.5)`,
    /// `audit/MODEL.md` 6.1), what a serving benchmark prints as "Median TTFT".
    TtftP50Ms,
    /// The median request's TPOT, ms: the engine's p50 (`Tpot::quantile(0.5)`), what a
    /// serving benchmark prints as "Median TPOT".
    TpotP50Ms,
    /// Decode tokens per second of one sequence, prefill excluded (llama-bench `tg`).
    DecodeTokS,
    /// Prompt tokens per second of one prefill (llama-bench `pp`).
    PrefillTokS,
    /// Prefill pool at full use: input tokens per second per prefill chip.
    PrefillPoolInputTokSPerChip,
    /// Decode pool at its batch: output tokens per second per decode chip.
    DecodePoolOutputTokSPerChip,
    /// Output tokens per second over the decode pool's chips only, as delivered.
    OutputTokSPerDecodeChip,
    /// Input tokens per second over the prefill pool's chips only, as delivered.
    InputTokSPerPrefillChip,
    /// Output tokens per second per chip of every pool counting decode steps alone
    /// (prefill excluded): what a decode-only benchmark measures.
    DecodeStepTokSPerChip,
    /// One request from arrival to its last token, ms: `TTFT + (OSL - 1) * TPOT`
    /// (`audit/MODEL.md` 6.3.2), what a single-request run's "total time" measures.
    E2eMs,
}

impl Metric {
    /// The metric's id as the table file, the JSON and the links spell it
    /// (`output_tok_s_per_chip`).
    pub fn id(self) -> String {
        serde_json::to_value(self)
            .ok()
            .and_then(|v| v.as_str().map(String::from))
            .unwrap_or_default()
    }

    /// The metric in words, with its unit: how the page's table and `disagg validate
    /// --point` name it.
    pub fn label(self) -> &'static str {
        match self {
            Metric::OutputTokS => "output tok/s",
            Metric::OutputTokSPerChip => "output tok/s per chip",
            Metric::InputTokSPerChip => "input tok/s per chip",
            Metric::TotalTokSPerChip => "input+output tok/s per chip",
            Metric::TokSUser => "tok/s per user",
            Metric::TpotMs => "TPOT, ms",
            Metric::TtftMs => "TTFT, ms",
            Metric::TtftP50Ms => "median TTFT, ms",
            Metric::TpotP50Ms => "median TPOT, ms",
            Metric::DecodeTokS => "decode tok/s, one sequence",
            Metric::PrefillTokS => "prompt tok/s, one prefill",
            Metric::PrefillPoolInputTokSPerChip => "input tok/s per prefill chip, pool at capacity",
            Metric::DecodePoolOutputTokSPerChip => "output tok/s per decode chip, pool at capacity",
            Metric::OutputTokSPerDecodeChip => "output tok/s per decode chip",
            Metric::InputTokSPerPrefillChip => "input tok/s per prefill chip",
            Metric::DecodeStepTokSPerChip => "decode-step tok/s per chip",
            Metric::E2eMs => "request latency, ms",
        }
    }

    /// A request's time to first token, its mean or its median.
    pub fn is_ttft(self) -> bool {
        matches!(self, Metric::TtftMs | Metric::TtftP50Ms)
    }

    /// A median over requests, published beside its run's mean: each such row is a
    /// sibling of a mean row of the same run, so the headline sets leave it out (it
    /// would count that run twice) and the report scores the medians as a set of their
    /// own ([`super::ValidationReport::holdout_median_ttft`]).
    pub fn is_median(self) -> bool {
        matches!(self, Metric::TtftP50Ms | Metric::TpotP50Ms)
    }

    /// Reads this metric off an evaluated deployment of requests of `isl` prompt and
    /// `osl` output tokens; `None` where it has no meaning on the deployment's axis.
    pub fn read(self, p: &DeploymentPoint, isl: f64, osl: f64) -> Option<f64> {
        let f = &p.figures;
        // The colocated pool is both the prefill and the decode pool.
        let pool = |role: PoolRole| {
            p.pool(role)
                .or_else(|| (p.axis == Axis::Aggregated).then(|| p.pool(PoolRole::Colocated))?)
        };
        // A pool's capacity: what it delivers divided by how busy it is.
        let capacity = |v: f64, u: f64| (u > 0.0).then(|| v / u);
        // The colocated pool and the attention/expert pools run one decode step that
        // every sequence sees; elsewhere a pool's step is not what one sequence sees
        // (speculation, prefill on other chips).
        let shared_decode_step = || match p.axis {
            Axis::Aggregated | Axis::AttentionExpert => p.generating_pool().map(|x| x.step.0),
            Axis::PrefillDecode | Axis::Speculative => None,
        };
        let colocated_prefill = || {
            let x = p.pool(PoolRole::Colocated)?;
            let step = x.costs.prefill?.total.0;
            Some(x.costs.prompts_per_prefill * isl / step)
        };
        match self {
            Metric::OutputTokS => Some(f.output_tok_s.0),
            Metric::OutputTokSPerChip => Some(f.output_tok_s_per_chip.0),
            Metric::InputTokSPerChip => Some(f.input_tok_s_per_chip.0),
            Metric::TotalTokSPerChip => Some((f.output_tok_s_per_chip + f.input_tok_s_per_chip).0),
            Metric::TokSUser => Some(f.tok_s_user.0),
            Metric::TpotMs => Some(f.tpot.ms()),
            Metric::TtftMs => Some(f.ttft.ms()),
            Metric::TtftP50Ms => Some(p.ttft.quantile(0.5).ms()),
            Metric::TpotP50Ms => Some(p.tpot.quantile(0.5).ms()),
            Metric::E2eMs => Some(f.request_latency(osl).ms()),
            Metric::DecodeTokS => shared_decode_step().map(|step| 1.0 / step),
            Metric::DecodeStepTokSPerChip => {
                shared_decode_step().map(|step| f.running as f64 / step / f.chips as f64)
            }
            Metric::PrefillTokS => colocated_prefill(),
            Metric::PrefillPoolInputTokSPerChip => {
                let x = pool(PoolRole::Prefill)?;
                capacity(x.input_tok_s_per_chip.0, x.utilisation)
            }
            Metric::DecodePoolOutputTokSPerChip => {
                let x = pool(PoolRole::Decode)?;
                capacity(x.output_tok_s_per_chip.0, x.utilisation)
            }
            // The headline figures of a split deployment (one home, `DeploymentPoint`);
            // the colocated pool is both pools of an aggregated one.
            Metric::OutputTokSPerDecodeChip => p
                .output_tok_s_per_decode_chip()
                .map(|v| v.0)
                .or_else(|| Some(pool(PoolRole::Decode)?.output_tok_s_per_chip.0)),
            Metric::InputTokSPerPrefillChip => p
                .input_tok_s_per_prefill_chip()
                .map(|v| v.0)
                .or_else(|| Some(pool(PoolRole::Prefill)?.input_tok_s_per_chip.0)),
        }
    }
}

/// One pool of a disaggregated benchmark point.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BenchmarkPool {
    pub role: PoolRole,
    pub chip: String,
    pub tp: u32,
    #[serde(default = "one")]
    pub pp: u32,
    #[serde(default = "one")]
    pub dp: u32,
    #[serde(default = "one")]
    pub ep: u32,
}

fn one() -> u32 {
    1
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BenchmarkPoint {
    pub id: String,
    pub source: String,
    /// Required: a point whose framework nobody stated says `unknown`.
    pub framework: Framework,
    pub model: String,
    pub chip: String,
    pub chips: u32,
    #[serde(default)]
    pub tp: Option<u32>,
    #[serde(default)]
    pub pp: Option<u32>,
    #[serde(default)]
    pub ep: Option<u32>,
    pub isl: u32,
    pub osl: u32,
    /// Concurrent sequences; absent means the largest batch that fits.
    #[serde(default)]
    pub batch: Option<u32>,
    pub weight_dtype: DType,
    #[serde(default)]
    pub weight_bits: Option<f64>,
    /// The experts' own weight dtype where the checkpoint quantises them apart from
    /// `weight_dtype` (NVFP4 experts beside FP8 attention); absent: `weight_dtype`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expert_dtype: Option<DType>,
    /// The attention output projections' own dtype (NVIDIA's "v2" DeepSeek-R1 FP4
    /// checkpoints quantise `wo` and leave the rest of attention in BF16); absent:
    /// `weight_dtype`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attn_out_dtype: Option<DType>,
    /// The LM head's and embedding's own dtype; absent: `weight_dtype`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lm_head_dtype: Option<DType>,
    pub kv_dtype: DType,
    pub metric: Metric,
    pub measured: f64,
    pub role: Role,
    #[serde(default)]
    pub note: Option<String>,
    /// A disaggregation axis; absent means aggregated.
    #[serde(default)]
    pub axis: Option<Axis>,
    /// The pools of a disaggregated point.
    #[serde(default)]
    pub pool: Vec<BenchmarkPool>,
    /// Prefill/decode points whose decode pool speculates with the model's MTP layers.
    #[serde(default)]
    pub mtp: Option<MtpDecoding>,
    /// The serving engine's batch limit per replica where the submission publishes it
    /// (MLPerf harness `gpu_batch_size`; on a prefill/decode point the decode pool's,
    /// TensorRT-LLM's decode `max_batch_size`); absent means the global assumption.
    #[serde(default)]
    pub max_seqs_per_replica: Option<f64>,
    /// The serving engine's token budget per step where the harness sets or derives it
    /// (TensorRT-LLM `max_num_tokens`): the most prompt tokens one prefill step takes.
    /// Absent means the global assumption.
    #[serde(default)]
    pub max_tokens_per_step: Option<f64>,
    /// Where the benchmark draws each request's lengths uniformly from
    /// `[floor(r * L), L]` (the `--random-range-ratio` of vLLM-style clients), this `r`;
    /// `isl` and `osl` are then the upper bounds. Absent means fixed lengths.
    #[serde(default)]
    pub length_range_ratio: Option<f64>,
    /// Spread of the dataset's output lengths (standard deviation over mean), where
    /// the dataset publishes them per sample. Absent means the spread of the
    /// `length_range_ratio` range, or fixed lengths.
    #[serde(default)]
    pub output_cv: Option<f64>,
    /// Where the source reports a figure at an interactivity rather than at a batch
    /// ("at 20-22 tok/s per user", "under a 50 ms TPOT"), that interactivity: the
    /// point is read at the batch where the model reaches it. `batch` must be absent.
    #[serde(default)]
    pub at: Option<InteractivityTarget>,
    /// Share of prompt tokens served from a prefix cache, where the source states it.
    #[serde(default)]
    pub cached_prompt_share: Option<f64>,
    /// Whether the harness aligns the prefill chunks of the replicas that share an
    /// expert group (TensorRT-LLM `adp_balancing_enable` / `attention_dp_config.
    /// enable_balance`), where its config says; absent means the global assumption.
    #[serde(default)]
    pub aligned_group_prefill: Option<bool>,
    /// How the run's expert group exchanges tokens under attention data parallelism,
    /// where its framework's code at the run's version says; absent means the global
    /// assumption (`Assumptions::expert_exchange`).
    #[serde(default)]
    pub expert_exchange: Option<ExpertExchange>,
    /// Redundant expert slots the deployment adds (DeepSeek's EPLB: 32 over 256
    /// experts); absent means none.
    #[serde(default)]
    pub redundant_experts: Option<u32>,
    /// Speculation with an EAGLE draft head, as the source states it: on the
    /// speculative axis the target drafts with it, on the prefill/decode axis the decode
    /// pool does.
    #[serde(default)]
    pub eagle: Option<EagleDecoding>,
    /// Whether the prefill pool overlaps two micro-batches' expert all-to-all with
    /// computation, where the source says so; absent means the global assumption.
    #[serde(default)]
    pub prefill_two_batch_overlap: Option<bool>,
    /// Open-loop arrivals, requests per second (MLPerf Server's scheduled rate): the
    /// point is read at the concurrency that rate builds up; `batch` must be absent.
    #[serde(default)]
    pub rate: Option<f64>,
    /// How the harness schedules its batch, where the source says it runs a fixed batch
    /// (`static`: llama.cpp's `llama-bench` and `llama-batched-bench`, MODEL.md 6.1.1);
    /// absent means the global assumption (continuous refill).
    #[serde(default)]
    pub scheduling: Option<crate::serving::Scheduling>,
    /// Prompts the harness sends in all at the point's concurrency (its
    /// `--num-prompts`), where the source states it: the first wave's TTFT is mixed
    /// into the mean (MODEL.md 6.1.2); absent means the steady loop only.
    #[serde(default)]
    pub prompts: Option<u32>,
    /// The same as the harness's rule per user, where it scales `--num-prompts` with
    /// `--max-concurrency` (InferenceMAX's scripts send `CONC * 10`): `ceil(m C)` at the
    /// point's concurrency (`Workload::prompts_per_user`); exclusive with `prompts`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts_per_user: Option<f64>,
    /// Where the point is a run timed to its last completion, its requests and longest
    /// output: MLPerf Offline (LoadGen issues every sample in one query) and
    /// trtllm-bench's throughput run (its dataset queued at once, output tokens over
    /// the first start to the last end), so the batch drains at its end (MODEL.md
    /// 6.1.4); absent means the steady loop only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offline: Option<OfflineRun>,
    /// Decode steps between the scheduler's polls for new requests, where the launch
    /// command sets it (SGLang `--scheduler-recv-interval`, MODEL.md 6.1.3); absent
    /// means the global assumption (every step).
    #[serde(default)]
    pub scheduler_recv_interval: Option<u32>,
    /// A catalogued link between the pools (`catalogue/links`, e.g. `10gbe`) where the
    /// source names the cable or network; absent means the chips' own links.
    #[serde(default)]
    pub link: Option<String>,
    /// Share of each chip's weights the launch command offloads to the cold tier
    /// (SGLang `--offload-mode cpu`, `n / G` of its layers); absent means none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight_offload: Option<f64>,
    /// Whether the engine loop overlaps a step's host work with the device's, where the
    /// source states the runtime or the setting (a TensorRT-engine run, SGLang's
    /// `--disable-overlap-schedule`); absent means the point's framework's
    /// (`serving::HostOverlap`, MODEL.md 3.5).
    #[serde(default)]
    pub host_overlap: Option<bool>,
    /// Host cost of one kernel launched from Python in a prompt step, where the source
    /// states the runtime or the setting: 0 for a TensorRT-engine run (a C++ runtime)
    /// or one with piecewise CUDA graphs on; absent means the point's framework's
    /// (MODEL.md 3.6).
    #[serde(default)]
    pub eager_kernel_overhead: Option<f64>,
    /// Device time per routed pick of FP4 experts beyond the matmul, where the source
    /// names a MoE backend other than the framework's default (TensorRT-LLM's TRTLLM
    /// backend in place of CUTLASS); absent means the point's framework's (MODEL.md
    /// 3.2.1).
    #[serde(default)]
    pub fp4_routed_pick_time: Option<f64>,
}

/// A run timed to its last completion, as its benchmark sets it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OfflineRun {
    /// Requests the run holds: an MLPerf Offline query's `samples_per_query` in the
    /// result's `mlperf_log_summary.txt` (LoadGen's `generated_samples_per_query`), or
    /// the request count of a trtllm-bench dataset.
    pub samples: u32,
    /// The longest output among the dataset's samples (the model's own outputs where
    /// they are published, capped at the benchmark's output limit; a fixed-length
    /// dataset's one output length).
    pub longest_output: u32,
}

/// A metric and the value it must reach; the model's batch is searched for it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InteractivityTarget {
    /// A per-user speed: `tok_s_user` or `decode_tok_s`.
    pub metric: Metric,
    pub value: f64,
}

impl BenchmarkPoint {
    /// Whether the point measures a disaggregated deployment: it names an axis or
    /// states its pools.
    pub fn disaggregated(&self) -> bool {
        self.axis.is_some() || !self.pool.is_empty()
    }

    /// The workload the model sees: the mean prompt and output lengths, and the
    /// spread of the output lengths. A range `[a, b]` drawn uniformly has spread
    /// `(b - a) / (sqrt(12) * (a + b) / 2)`.
    pub fn workload(&self) -> Workload {
        let range = |l: u32| match self.length_range_ratio {
            Some(r) if (0.0..=1.0).contains(&r) => ((r * l as f64).floor(), l as f64),
            _ => (l as f64, l as f64),
        };
        let mean = |l: u32| {
            let (a, b) = range(l);
            (((a + b) / 2.0).round() as u32).max(1)
        };
        let (a, b) = range(self.osl);
        let range_cv = if a + b > 0.0 {
            (b - a) / (12f64.sqrt() * (a + b) / 2.0)
        } else {
            0.0
        };
        let share = self
            .cached_prompt_share
            .filter(|s| (0.0..1.0).contains(s))
            .unwrap_or(0.0);
        Workload {
            rate: self.rate,
            prompts: self.prompts,
            prompts_per_user: self.prompts_per_user,
            finite_run: self.offline.map(|o| FiniteRun {
                requests: o.samples,
                longest_output: o.longest_output,
            }),
            ..Workload::new(mean(self.isl), mean(self.osl))
                .with_cached_share(share)
                .with_output_cv(self.output_cv.unwrap_or(range_cv))
        }
    }

    /// The assumptions in force for this point: `base`, run by the point's framework
    /// (its defaults where the submission states no limit), with the engine settings
    /// the submission states pinned.
    pub fn assumptions(&self, base: &Assumptions) -> Assumptions {
        let mut a = Assumptions {
            framework: self.framework.serving(),
            aligned_group_prefill: self
                .aligned_group_prefill
                .unwrap_or(base.aligned_group_prefill),
            expert_exchange: self.expert_exchange.unwrap_or(base.expert_exchange),
            redundant_experts: self.redundant_experts.unwrap_or(base.redundant_experts),
            prefill_two_batch_overlap: self
                .prefill_two_batch_overlap
                .unwrap_or(base.prefill_two_batch_overlap),
            scheduling: self.scheduling.unwrap_or(base.scheduling),
            scheduler_recv_interval: self
                .scheduler_recv_interval
                .unwrap_or(base.scheduler_recv_interval),
            weight_offload: self.weight_offload.unwrap_or(base.weight_offload),
            host_overlap: self.host_overlap.or(base.host_overlap),
            ..*base
        };
        // The engine settings the submission states, each pinned over the framework's.
        let stated = [
            ("max_seqs_per_replica", self.max_seqs_per_replica),
            ("prefill_chunk_tokens", self.max_tokens_per_step),
            ("eager_kernel_overhead", self.eager_kernel_overhead),
            ("fp4_routed_pick_time", self.fp4_routed_pick_time),
        ];
        for (knob, v) in stated {
            if let Some(v) = v {
                a = a.pin(knob, v);
            }
        }
        a
    }
}

/// MTP speculation in a decode pool, as the source states it or the note assumes it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MtpDecoding {
    pub draft_tokens: u32,
    pub acceptance: f64,
}

/// EAGLE speculation as the source states it: `draft_tokens` drafted per cycle (the
/// chain's depth), per-token `acceptance`, and the head's decoder layers (absent: one).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EagleDecoding {
    pub draft_tokens: u32,
    pub acceptance: f64,
    #[serde(default)]
    pub layers: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnmappedRow {
    pub id: String,
    pub reason: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BenchmarkTable {
    pub point: Vec<BenchmarkPoint>,
    #[serde(default)]
    pub unmapped: Vec<UnmappedRow>,
}

impl BenchmarkTable {
    /// The table compiled into the engine (`catalogue/benchmarks.toml`).
    pub fn builtin() -> Result<BenchmarkTable> {
        serde_json::from_str(embedded_benchmarks()).map_err(|e| EngineError::Catalogue {
            file: "benchmarks.toml".into(),
            problem: e.to_string(),
        })
    }
}
