//! Serving frameworks: the software that batches and schedules requests on a pool's
//! chips. Each one ships its own default batch limit and per-step token budget, and
//! these decide how far a deployment's throughput climbs before memory does. A
//! framework is chosen per scenario (`auto` chooses by each pool's chip, see
//! [`FrameworkChoice::for_chip`]); a limit the user states (a pinned assumption, see
//! [`Pinned`]) wins over the framework's default. The defaults and their sources are
//! in `audit/AUDIT.md` ("Serving frameworks").

use crate::catalogue::Chip;
use crate::limits::MAX_BATCH;
use crate::units::{Bytes, Seconds};
use serde::{Deserialize, Serialize};
use std::fmt;

mod choice;
pub use choice::{FrameworkChoice, Pinned, Scheduling};

/// A serving framework with published defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Framework {
    TrtLlm,
    Vllm,
    Sglang,
    LlamaCpp,
    Mlx,
}

impl Framework {
    pub const ALL: [Framework; 5] = [
        Framework::TrtLlm,
        Framework::Vllm,
        Framework::Sglang,
        Framework::LlamaCpp,
        Framework::Mlx,
    ];

    /// Whether a pipelined replica pays a step's host work once per micro-batch: the
    /// PyTorch executor of TensorRT-LLM runs, on every pipeline rank, one loop
    /// iteration per micro-batch (`_executor_loop_pp` in
    /// `tensorrt_llm/_torch/pyexecutor/py_executor.py`: fetch and schedule one
    /// micro-batch, launch its stage, then handle the sampled tokens and responses of
    /// an earlier one), with `pp` micro-batches in flight (its scheduler's capacity is
    /// `max_batch_size * pp_size`), so while one micro-batch crosses the `pp` stages
    /// each rank does the host work of all of them. The other frameworks' pipeline
    /// loops were not read: once per step (`audit/AUDIT.md`, "The perf-overview rows
    /// read against the page's own runs").
    pub fn host_work_per_micro_batch(self) -> bool {
        matches!(self, Framework::TrtLlm)
    }

    /// The id flags, links and files spell.
    pub fn id(self) -> &'static str {
        match self {
            Framework::TrtLlm => "trtllm",
            Framework::Vllm => "vllm",
            Framework::Sglang => "sglang",
            Framework::LlamaCpp => "llamacpp",
            Framework::Mlx => "mlx",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Framework::TrtLlm => "TensorRT-LLM",
            Framework::Vllm => "vLLM",
            Framework::Sglang => "SGLang",
            Framework::LlamaCpp => "llama.cpp",
            Framework::Mlx => "MLX",
        }
    }

    /// The framework's own defaults on `chip`, where it publishes one: the most
    /// sequences a replica batches and the most prompt tokens one step takes.
    /// `None` leaves the global assumption.
    pub fn defaults(self, chip: &Chip) -> Defaults {
        let memory = chip.fast.capacity;
        let gib = |g: f64| Bytes(g * 1024.0 * 1024.0 * 1024.0);
        match self {
            // BuildConfig: max_batch_size 2048, max_num_tokens 8192.
            Framework::TrtLlm => Defaults {
                max_seqs_per_replica: Some(2048.0),
                prefill_chunk_tokens: Some(8192.0),
                // Fitted on TensorRT-LLM's 11 calibration points (MLP51-01, TRT-03,
                // TRT-09, IMXA05a-b, IMXA11a-b, IMXD01a-b, TRTB01, MLB09) with the step
                // and per-sequence costs, those two staying at the global values: 4 us
                // (mean |ln error| 0.119 -> 0.052), refitted to 3 us once the DeepSeek-R1
                // FP4 rows read their v2 checkpoint's BF16 attention (0.067 -> 0.026;
                // AUDIT, "NVIDIA's v2 DeepSeek-R1 FP4 checkpoint").
                kernel_overhead: Some(Seconds::from_us(3.0)),
                // The PyTorch flow replays CUDA graphs for generation-only steps; context
                // and mixed steps run eagerly unless piecewise CUDA graphs are on
                // (docs: "Torch Compile & Piecewise CUDA Graph").
                eager_kernel_overhead: Some(EAGER_PYTHON_KERNEL),
                // The PyTorch executor overlaps host and device work by default
                // (`_executor_loop_overlap`, `disable_overlap_scheduler` false), but
                // its calibration points fit far better with the host work in series
                // (mean |ln error| 0.036 against 0.110 at best overlapped): AUDIT, "Host
                // work overlapped with device work".
                host_overlap: HostOverlap::NONE,
                // NVLinkOneSided dispatch and combine on GB200 NVL72 (TensorRT-LLM tech
                // blog 18): the median kernel time at 1 to 16 tokens per rank over EP 8,
                // 16 and 32 (AUDIT, "The MoE all-to-all's fixed time").
                all_to_all_floor: Some(AllToAllFloor::TRTLLM_NVLINK),
                // Its default MoE backend's (CUTLASS) time per FP4 pick beyond the
                // matmul, as NVIDIA's collector timed it on each chip.
                fp4_routed_pick_time: trtllm_cutlass_fp4_pick_time(chip),
                // The same backend's time per pick of block-scaled FP8 experts on
                // Hopper, timed the same way.
                fp8_block_routed_pick_time: trtllm_cutlass_fp8_block_pick_time(chip),
                ..Defaults::default()
            },
            // get_batch_defaults, OpenAI server: 1024 sequences and 8192 tokens on
            // devices of 70 GiB or more (A100 excepted), 256 and 2048 below.
            Framework::Vllm => {
                let large = memory >= gib(70.0) && !chip.name.contains("A100");
                Defaults {
                    max_seqs_per_replica: Some(if large { 1024.0 } else { 256.0 }),
                    prefill_chunk_tokens: Some(if large { 8192.0 } else { 2048.0 }),
                    // gpu_memory_utilization 0.9: a tenth of the device stays free.
                    runtime_reserve: Some(0.10),
                    // `CustomAllreduce` (`custom_all_reduce.py`, the kernels SGLang's
                    // adapts): messages below 8 MiB on CUDA and ROCm alike.
                    custom_all_reduce: gpu_all_reduce(chip, 8.0, 8.0),
                    ..Defaults::default()
                }
            }
            // No fixed sequence cap (max_running_requests follows the KV pool, so
            // memory decides); chunked_prefill_size by memory: 2048 below 35 GB, 8192
            // below 160 GB, 16384 above.
            Framework::Sglang => Defaults {
                max_seqs_per_replica: Some(MAX_BATCH as f64),
                prefill_chunk_tokens: Some(if memory < gib(35.0) {
                    2048.0
                } else if memory < gib(160.0) {
                    8192.0
                } else {
                    16384.0
                }),
                // Fitted on SGLang's 11 calibration points (IMX01a-c, IMXA01a-b,
                // IMXA04a-b, IMXD02a-b, IMXD17a-b) with its overlap scheduler below:
                // mean |ln error| 0.066 (100 us and 40 us, in series) -> 0.057. Below
                // 120 us per sequence the host work hides on every point (0.115); 160 us
                // makes the largest batches (IMXD17, 128 a rank) host-bound (AUDIT,
                // "Host work overlapped with device work").
                step_overhead: Some(Seconds::from_us(800.0)),
                seq_overhead: Some(Seconds::from_us(160.0)),
                runtime_reserve: None,
                kernel_overhead: None,
                // CUDA graphs for decode only; prefill runs eagerly unless
                // `--enable-piecewise-cuda-graph` (off by default in the versions the
                // table's SGLang rows ran).
                eager_kernel_overhead: Some(EAGER_PYTHON_KERNEL),
                // The overlap scheduler (`event_loop_overlap`, on unless
                // `--disable-overlap-schedule`), which the server turns off for EAGLE
                // and MTP speculation.
                host_overlap: HostOverlap {
                    generating: true,
                    speculating: false,
                },
                // `CustomAllreduce` (`custom_all_reduce.py`): on for tensor-parallel
                // groups inside one node, messages below 8 MiB (16 MiB on ROCm, where
                // its crossover with RCCL is higher); NCCL beyond.
                custom_all_reduce: gpu_all_reduce(chip, 8.0, 16.0),
                // Kernel factors fitted on the same points do not earn a place: bandwidth
                // x1.10 alone lowers the score 0.0717 -> 0.0652 (9.1%), compute x0.80
                // beside it only to 0.0644 (AUDIT, "Serving frameworks").
                kernels: KernelFactors::CHIPS,
                // Its DeepEP and MoRI kernels' fixed times are not measured here.
                all_to_all_floor: None,
                // Its MoE kernels are not TensorRT-LLM's, and no timing of them is read.
                fp4_routed_pick_time: None,
                fp8_block_routed_pick_time: None,
            },
            // n_ubatch 512: the physical batch one step computes. It allocates the
            // weights, its context's KV cache and compute buffers sized by n_ubatch (the
            // workspace's activation term) and holds no share of memory back.
            Framework::LlamaCpp => Defaults {
                prefill_chunk_tokens: Some(512.0),
                runtime_reserve: Some(0.0),
                // Fitted on llama.cpp's 8 calibration points (CON-01/04/07/08, CONB01/02/
                // 14/15) once the LLaMA 2 rows were read as the ./main runs they are: mean
                // |ln error| 0.077 -> 0.069, the per-sequence cost staying global.
                step_overhead: Some(Seconds::from_us(400.0)),
                kernel_overhead: Some(Seconds::from_us(4.0)),
                ..Defaults::default()
            },
            // mlx_lm.server: --decode-concurrency 32 sequences decoded together and
            // --prefill-step-size 2048 prompt tokens per step. It wires memory up to
            // Metal's recommended working set (the catalogue's Apple memory figure) and
            // holds no share of it back.
            Framework::Mlx => Defaults {
                max_seqs_per_replica: Some(32.0),
                prefill_chunk_tokens: Some(2048.0),
                runtime_reserve: Some(0.0),
                // generate_step and BatchGenerator queue the next token's graph
                // (mx.async_eval) before reading the current one; a speculative cycle
                // waits for its verification (mx.eval) before drafting again.
                host_overlap: HostOverlap {
                    generating: true,
                    speculating: false,
                },
                ..Defaults::default()
            },
        }
    }
}

impl fmt::Display for Framework {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Host cost of one kernel launched from a Python serving framework's model code in a
/// prompt step run without CUDA graphs (`audit/MODEL.md` 3.6): SGLang's DeepSeek-V3
/// forward of a one-token prompt step took 82.6 ms eager against 23.1 ms replayed as a
/// graph (sgl-project/sglang pull request 12160), and the engine counts 1,204 kernels
/// in that step at TP8 (`tests/it/eager.rs`): 82.6 ms / 1,204 = 68.6 us.
pub const EAGER_PYTHON_KERNEL: Seconds = Seconds(68.6e-6);

/// The largest message a GPU serving framework's own all-reduce takes on `chip`
/// ([`crate::kernel::custom_all_reduce`]): `cuda_mib` MiB on NVIDIA's GPUs, `rocm_mib` on
/// AMD's; none on other chips, where its kernels do not run.
fn gpu_all_reduce(chip: &Chip, cuda_mib: f64, rocm_mib: f64) -> Option<Bytes> {
    match chip.vendor.as_str() {
        "NVIDIA" => Some(Bytes::from_mib(cuda_mib)),
        "AMD" => Some(Bytes::from_mib(rocm_mib)),
        _ => None,
    }
}

/// TensorRT-LLM's fused MoE on its default CUTLASS backend: the device time per routed
/// pick of NVFP4 experts beyond the pick's `6 h i` FLOPs at the chip's FP4 rate in this
/// engine, as NVIDIA's AIConfigurator collector timed the operator on each chip
/// (github.com/ai-dynamo/aiconfigurator at 095f58a5, `aic-core/src/aiconfigurator_core/
/// systems/data/<chip>/moe/trtllm/1.3.0rc10/moe_perf.parquet`, `moe_torch_flow_cutlass`,
/// balanced routing): the time from 8,192 to 16,384 tokens over the picks added, less
/// their FLOPs at the rate, the median over every expert shape held at EP 1 to 8 (AUDIT,
/// "TensorRT-LLM's MoE kernels timed op by op"). Chips the collector did not time take
/// none.
fn trtllm_cutlass_fp4_pick_time(chip: &Chip) -> Option<Seconds> {
    let ns = match chip.id.as_str() {
        "b200" => 19.2,
        "b300" => 22.5,
        "gb200" => 19.9,
        "gb300" => 21.5,
        "rtx-pro-6000" => 8.7,
        _ => return None,
    };
    Some(Seconds::from_ns(ns))
}

/// TensorRT-LLM's fused MoE on its CUTLASS backend with block-scaled FP8 experts
/// (`DType::Fp8Block`, DeepSeek-V3's format) on Hopper: the device time per routed pick
/// beyond the pick's `6 h i` FLOPs at the chip's FP8 rate in this engine, read from the
/// same collector tables as [`trtllm_cutlass_fp4_pick_time`] (`fp8_block`, at 1.3.0rc10)
/// the same way: the median over the 9-10 expert shapes held at EP 1 to 8. Per-tensor
/// FP8 pays about 6 ns a pick there and BF16 none, so they take none; Blackwell runs
/// block-scaled FP8 on DeepGEMM, which the collector timed only with skewed routing, so
/// it takes none either (AUDIT, "Block-scaled FP8 experts on Hopper").
fn trtllm_cutlass_fp8_block_pick_time(chip: &Chip) -> Option<Seconds> {
    let ns = match chip.id.as_str() {
        "h100-sxm" => 100.1,
        "h200" => 81.1,
        _ => return None,
    };
    Some(Seconds::from_ns(ns))
}

/// A framework's defaults on one chip; `None` keeps the global assumption.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Defaults {
    pub max_seqs_per_replica: Option<f64>,
    pub prefill_chunk_tokens: Option<f64>,
    /// Host work of one engine step, and per sequence per step, fitted on the
    /// framework's own calibration points (`examples/calibrate_frameworks.rs`).
    pub step_overhead: Option<Seconds>,
    pub seq_overhead: Option<Seconds>,
    /// Fixed cost of one kernel of a step, fitted the same way (launch, ramp and tail
    /// under the framework's CUDA graphs and fusions).
    pub kernel_overhead: Option<Seconds>,
    /// Host cost of one kernel its Python model code launches in a step that carries
    /// prompt tokens, where such steps run without CUDA graphs (`audit/MODEL.md` 3.6).
    pub eager_kernel_overhead: Option<Seconds>,
    /// Share of memory the framework holds back from weights, KV cache and workspace.
    pub runtime_reserve: Option<f64>,
    /// How its kernels run against the chip's efficiencies.
    pub kernels: KernelFactors,
    /// Which of its steps run their host work beside the device's
    /// ([`crate::Assumptions::step_time`]); none by default.
    pub host_overlap: HostOverlap,
    /// The least time its MoE all-to-all kernels take per phase inside one scale-up
    /// domain, whatever they carry; `None`: the link's latency alone.
    pub all_to_all_floor: Option<AllToAllFloor>,
    /// The largest message its own tensor-parallel all-reduce takes inside one node
    /// ([`crate::kernel::custom_all_reduce`]); `None`: NCCL's ring for every message.
    pub custom_all_reduce: Option<Bytes>,
    /// Device time its fused MoE spends per routed pick of FP4 experts beyond the
    /// matmul (`audit/MODEL.md` 3.2.1); `None`: the global assumption.
    pub fp4_routed_pick_time: Option<Seconds>,
    /// The same for block-scaled FP8 experts beyond the matmul at the FP8 rate.
    pub fp8_block_routed_pick_time: Option<Seconds>,
}

/// The fixed time of one expert all-to-all's two phases inside one scale-up domain:
/// launch, the flag barrier across the expert group and the first bytes' latency,
/// which a kernel pays however few tokens it moves (`audit/MODEL.md` 3.7). Each phase
/// takes `sqrt(floor^2 + transfer^2)` ([`crate::kernel::expert_all_to_all`]).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct AllToAllFloor {
    pub dispatch: Seconds,
    pub combine: Seconds,
}

impl AllToAllFloor {
    /// TensorRT-LLM's NVLinkOneSided kernels on GB200 NVL72 with DeepSeek-V3's shapes
    /// (hidden 7,168, top-8, BF16 both ways): the median of the dispatch and of the
    /// combine times measured at 1, 2, 4, 8 and 16 tokens per rank at EP 8, 16 and 32,
    /// 15 runs each (tech blog 18, "Optimizing MoE Communication with One-Sided AlltoAll
    /// Over NVLink", tables "Scaling With Batch Size and EP Size").
    pub const TRTLLM_NVLINK: AllToAllFloor = AllToAllFloor {
        dispatch: Seconds(18.9e-6),
        combine: Seconds(31.4e-6),
    };
}

/// Where a framework's engine loop runs a step's host work (scheduling, input
/// preparation, output handling: [`crate::Assumptions::host_overhead`]) while the device
/// runs the step before, so that a step takes `max(device, host)` rather than their sum
/// (`audit/MODEL.md` section 3.5, AUDIT "Host work overlapped with device work").
/// `generating`: the steps of a pool that prefills and generates, or only one of the
/// two; `speculating`: those of a pool whose generation step is a speculation cycle. A
/// pipelined pool runs its host work in series whatever its framework: SGLang turns its
/// overlap scheduler off under pipeline parallelism (`_handle_pipeline_parallelism` in
/// `server_args.py`), and MLX's overlap is its one-device generation loop.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HostOverlap {
    pub generating: bool,
    pub speculating: bool,
}

/// What a pool's steps are, for [`HostOverlap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StepWork {
    Generating,
    Speculating,
    /// A pool with pipeline stages (`pp > 1`), or one stage of a pipeline across
    /// machines.
    Pipelined,
}

impl HostOverlap {
    /// Every step's host work in series with its device work.
    pub const NONE: HostOverlap = HostOverlap {
        generating: false,
        speculating: false,
    };

    /// Whether steps of `work` overlap.
    pub fn of(self, work: StepWork) -> bool {
        match work {
            StepWork::Generating => self.generating,
            StepWork::Speculating => self.speculating,
            StepWork::Pipelined => false,
        }
    }
}

/// A framework's kernel efficiency by operator class and regime, as factors on the
/// efficiencies the chip's calibration gives (`audit/MODEL.md` section 3.3): `compute`
/// on the MFU of every matmul and the attention core, which a step feels where it is
/// compute bound (prefill, large batches); `bandwidth` on the bandwidth efficiency of
/// weight, KV and activation streaming, felt where it is memory bound (decode). `None`
/// keeps the chip's: a factor is set only where the framework's own calibration points
/// earn it (`examples/calibrate_frameworks.rs`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct KernelFactors {
    pub compute: Option<f64>,
    pub bandwidth: Option<f64>,
}

impl KernelFactors {
    /// The chip's efficiencies as they stand.
    pub const CHIPS: KernelFactors = KernelFactors {
        compute: None,
        bandwidth: None,
    };
}

impl Defaults {
    /// The default for the knob at `index` of [`crate::assumptions::KNOBS`], in the
    /// knob's unit; `None` where the framework keeps the global assumption.
    pub fn get(&self, index: usize) -> Option<f64> {
        use crate::assumptions::{
            CHUNK, EAGER, FP4_PICK, FP8_BLOCK_PICK, KERNEL, MAX_SEQS, RESERVE, SEQ, STEP,
        };
        match index {
            MAX_SEQS => self.max_seqs_per_replica,
            CHUNK => self.prefill_chunk_tokens,
            STEP => self.step_overhead.map(|s| s.0),
            SEQ => self.seq_overhead.map(|s| s.0),
            RESERVE => self.runtime_reserve,
            KERNEL => self.kernel_overhead.map(|s| s.0),
            EAGER => self.eager_kernel_overhead.map(|s| s.0),
            FP4_PICK => self.fp4_routed_pick_time.map(|s| s.0),
            FP8_BLOCK_PICK => self.fp8_block_routed_pick_time.map(|s| s.0),
            _ => None,
        }
    }

    /// The factor the framework puts on the chip's value of the knob at `index` of
    /// [`crate::assumptions::KNOBS`] (`mfu`, `bw_eff`); `None` keeps the chip's.
    pub fn factor(&self, index: usize) -> Option<f64> {
        use crate::assumptions::{BW_EFF, MFU};
        match index {
            MFU => self.kernels.compute,
            BW_EFF => self.kernels.bandwidth,
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Catalogue;

    fn chip(id: &str) -> &'static Chip {
        Catalogue::builtin().chip(id).unwrap()
    }

    #[test]
    fn defaults_follow_each_frameworks_memory_tiers() {
        let vllm = Framework::Vllm;
        assert_eq!(
            vllm.defaults(chip("h100-sxm")).max_seqs_per_replica,
            Some(1024.0)
        );
        assert_eq!(
            vllm.defaults(chip("a100-80g")).max_seqs_per_replica,
            Some(256.0)
        );
        assert_eq!(
            vllm.defaults(chip("rtx-4090")).prefill_chunk_tokens,
            Some(2048.0)
        );
        let sglang = Framework::Sglang;
        assert_eq!(
            sglang.defaults(chip("rtx-4090")).prefill_chunk_tokens,
            Some(2048.0)
        );
        assert_eq!(
            sglang.defaults(chip("h200")).prefill_chunk_tokens,
            Some(8192.0)
        );
        assert_eq!(
            sglang.defaults(chip("mi300x")).prefill_chunk_tokens,
            Some(16384.0)
        );
        assert_eq!(
            sglang.defaults(chip("h200")).max_seqs_per_replica,
            Some(MAX_BATCH as f64)
        );
        assert_eq!(
            Framework::LlamaCpp
                .defaults(chip("rtx-4090"))
                .max_seqs_per_replica,
            None
        );
        let mlx = Framework::Mlx.defaults(chip("m4-max"));
        assert_eq!(
            (mlx.max_seqs_per_replica, mlx.prefill_chunk_tokens),
            (Some(32.0), Some(2048.0))
        );
        assert_eq!(mlx.runtime_reserve, Some(0.0));
    }

    #[test]
    fn a_pools_assumptions_take_its_frameworks_defaults_unless_pinned() {
        use crate::Assumptions;
        let h200 = chip("h200");
        let sglang = Assumptions {
            framework: FrameworkChoice::Given(Framework::Sglang),
            ..Assumptions::default()
        };
        let a = sglang.on_chip(h200);
        assert_eq!(a.step_overhead, Seconds::from_us(800.0));
        assert_eq!(a.seq_overhead, Seconds::from_us(160.0));
        assert_eq!(a.prefill_chunk_tokens, 8192.0);
        assert_eq!(a.max_seqs_per_replica, MAX_BATCH as f64);
        // What the user states stays.
        let pinned = sglang
            .pin("seq_overhead", 1e-6)
            .pin("prefill_chunk_tokens", 4096.0);
        let b = pinned.on_chip(h200);
        assert_eq!(
            (b.seq_overhead, b.prefill_chunk_tokens),
            (Seconds::from_us(1.0), 4096.0)
        );
        assert_eq!(b.step_overhead, Seconds::from_us(800.0));
        // Generic: the global assumptions untouched.
        let generic = Assumptions {
            framework: FrameworkChoice::Generic,
            ..Assumptions::default()
        };
        assert_eq!(generic.on_chip(h200), generic);
    }

    #[test]
    fn a_frameworks_kernel_cost_sets_the_pools_rate_unless_pinned_or_the_chips_own() {
        use crate::assumptions::{ChipRates, Origin, KERNEL};
        use crate::Assumptions;
        let b200 = chip("b200");
        let trt = Assumptions {
            framework: FrameworkChoice::Given(Framework::TrtLlm),
            ..Assumptions::default()
        };
        let a = trt.on_chip(b200);
        assert_eq!(a.kernel_overhead, Seconds::from_us(3.0));
        assert_eq!(
            ChipRates::for_chip(b200, &a).kernel_overhead,
            a.kernel_overhead
        );
        assert_eq!(
            trt.origin(b200, KERNEL),
            Origin::Framework(Framework::TrtLlm)
        );
        // The step and per-sequence costs stay the global ones.
        assert_eq!(a.step_overhead, Assumptions::default().step_overhead);
        assert_eq!(a.seq_overhead, Assumptions::default().seq_overhead);
        // A stated value wins.
        let pinned = trt.pin("kernel_overhead", 9e-6).on_chip(b200);
        assert_eq!(pinned.kernel_overhead, Seconds::from_us(9.0));
        // A chip whose file states its own kernel cost keeps it.
        let groq = chip("groq-lpu");
        let own = groq.efficiency.kernel_overhead.unwrap();
        assert_eq!(trt.origin(groq, KERNEL), Origin::Chip);
        assert_eq!(trt.on_chip(groq).kernel_overhead, own);
        // Other frameworks keep the global cost.
        let sglang = Assumptions {
            framework: FrameworkChoice::Given(Framework::Sglang),
            ..Assumptions::default()
        };
        assert_eq!(
            sglang.on_chip(b200).kernel_overhead,
            Assumptions::default().kernel_overhead
        );
    }
}
