//! The project's validation table: published measurements, each mapped to a scenario,
//! and the error of the model against them.
//!
//! Every point is tagged `calibration` (the efficiencies in the catalogue may have been
//! fitted to it) or `holdout` (never used to fit anything). Errors are reported for the
//! two sets separately, so that the held-out error is an honest estimate of how far a
//! new prediction can be off.

use crate::assumptions::Assumptions;
use crate::catalogue::{embedded_benchmarks, Catalogue};
use crate::disagg::plan::{plan, PoolChoice};
use crate::disagg::{Axis, DeploymentPoint, Draft, PoolRole, Setup, Speculation};
use crate::dtype::{DType, WeightFormat};
use crate::error::{EngineError, Result};
use crate::parallel::Parallelism;
use crate::workload::Workload;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Calibration,
    Holdout,
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
}

impl Metric {
    /// Reads this metric off an evaluated deployment of a prompt of `isl` tokens;
    /// `None` where it has no meaning on the deployment's axis.
    pub fn read(self, p: &DeploymentPoint, isl: f64) -> Option<f64> {
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
            Metric::OutputTokSPerDecodeChip => {
                Some(pool(PoolRole::Decode)?.output_tok_s_per_chip.0)
            }
            Metric::InputTokSPerPrefillChip => {
                Some(pool(PoolRole::Prefill)?.input_tok_s_per_chip.0)
            }
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
    /// (MLPerf harness `gpu_batch_size`); absent means the global assumption.
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
        Workload::new(mean(self.isl), mean(self.osl))
            .with_cached_share(share)
            .with_output_cv(self.output_cv.unwrap_or(range_cv))
    }

    /// The assumptions in force for this point: `base`, with the engine settings the
    /// submission states.
    pub fn assumptions(&self, base: &Assumptions) -> Assumptions {
        Assumptions {
            max_seqs_per_replica: self
                .max_seqs_per_replica
                .unwrap_or(base.max_seqs_per_replica),
            prefill_chunk_tokens: self
                .max_tokens_per_step
                .unwrap_or(base.prefill_chunk_tokens),
            aligned_group_prefill: self
                .aligned_group_prefill
                .unwrap_or(base.aligned_group_prefill),
            ..*base
        }
    }
}

/// MTP speculation in a decode pool, as the source states it or the note assumes it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MtpDecoding {
    pub draft_tokens: u32,
    pub acceptance: f64,
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

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ValidationRow {
    pub point: BenchmarkPoint,
    pub predicted: Option<f64>,
    /// `(predicted - measured) / measured`.
    pub error: Option<f64>,
    pub parallelism: Option<Parallelism>,
    pub problem: Option<String>,
    /// For a point read at an interactivity: the (interpolated) batch it was read at.
    pub read_at_batch: Option<f64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorSummary {
    pub points: usize,
    /// Median absolute percentage error.
    pub median_ape: f64,
    /// 90th-percentile absolute percentage error.
    pub p90_ape: f64,
}

impl ErrorSummary {
    /// "18 points: median |error| 3.6%, p90 |error| 51.2%": the one wording of a
    /// summary, which `disagg validate` prints and the page shows.
    pub fn line(&self) -> String {
        format!(
            "{} points: median |error| {:.1}%, p90 |error| {:.1}%",
            self.points,
            self.median_ape * 100.0,
            self.p90_ape * 100.0
        )
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ValidationReport {
    pub rows: Vec<ValidationRow>,
    pub calibration: Option<ErrorSummary>,
    pub holdout: Option<ErrorSummary>,
}

/// Runs every point of `table`.
pub fn run(
    catalogue: &Catalogue,
    table: &BenchmarkTable,
    assumptions: &Assumptions,
) -> ValidationReport {
    let rows: Vec<ValidationRow> = table
        .point
        .iter()
        .map(|point| match point.at {
            Some(target) => targeted_row(catalogue, point, target, assumptions),
            None => match evaluate_point(catalogue, point, assumptions) {
                Ok(e) => row(point, read(&e, point), parallelism(&e), problem(&e), None),
                Err(e) => row(point, None, None, Some(e.to_string()), None),
            },
        })
        .collect();
    let summary = |role: Role| {
        summarize(
            rows.iter()
                .filter(|r| r.point.role == role)
                .filter_map(|r| r.error),
        )
    };
    ValidationReport {
        calibration: summary(Role::Calibration),
        holdout: summary(Role::Holdout),
        rows,
    }
}

fn row(
    point: &BenchmarkPoint,
    predicted: Option<f64>,
    parallelism: Option<Parallelism>,
    problem: Option<String>,
    read_at_batch: Option<f64>,
) -> ValidationRow {
    let usable = predicted.filter(|v| v.is_finite() && point.measured > 0.0);
    ValidationRow {
        point: point.clone(),
        predicted: usable,
        error: usable.map(|v| (v - point.measured) / point.measured),
        parallelism,
        problem,
        read_at_batch,
    }
}

/// Evaluates one benchmark point on its axis, with the layouts it states (the
/// planner's best where an aggregated point leaves them open) and its batch (the
/// largest that fits where it gives none).
pub fn evaluate_point(
    catalogue: &Catalogue,
    point: &BenchmarkPoint,
    assumptions: &Assumptions,
) -> Result<DeploymentPoint> {
    let model = catalogue.model(&point.model)?;
    let defaults = Setup::new(
        &model.ir,
        point.workload(),
        WeightFormat {
            dtype: point.weight_dtype,
            bits_override: point.weight_bits,
        },
    );
    let setup = Setup {
        kv: point.kv_dtype,
        assumptions: point.assumptions(assumptions),
        speculative_decode: point.mtp.is_some(),
        speculation: match point.mtp {
            Some(m) => Speculation {
                draft: Draft::Mtp,
                acceptance: m.acceptance,
                draft_tokens: m.draft_tokens,
            },
            None => defaults.speculation,
        },
        ..defaults
    };
    let axis = point.axis.unwrap_or(Axis::Aggregated);
    let pools = match axis {
        Axis::Aggregated => {
            let parallelism = point.tp.map(|tp| {
                let pp = point.pp.unwrap_or(1);
                Parallelism {
                    tp,
                    pp,
                    dp: point.chips / (tp * pp).max(1),
                    ep: point.ep.unwrap_or(1),
                }
            });
            vec![(
                PoolRole::Colocated,
                PoolChoice {
                    chip: catalogue.chip(&point.chip)?,
                    chips: parallelism.map_or(point.chips, |p| p.chips()),
                    parallelism,
                },
            )]
        }
        _ => point
            .pool
            .iter()
            .map(|p| {
                let parallelism = Parallelism {
                    tp: p.tp,
                    pp: p.pp,
                    dp: p.dp,
                    ep: p.ep,
                };
                Ok((
                    p.role,
                    PoolChoice {
                        chip: catalogue.chip(&p.chip)?,
                        chips: parallelism.chips(),
                        parallelism: Some(parallelism),
                    },
                ))
            })
            .collect::<Result<Vec<_>>>()?,
    };
    plan(&setup, axis, &pools, point.batch, 2).map(|(_, p)| p)
}

/// The point's metric read off its evaluation; `None` when it is not finite.
fn value(e: &DeploymentPoint, metric: Metric, point: &BenchmarkPoint) -> Option<f64> {
    metric
        .read(e, point.workload().isl as f64)
        .filter(|v| v.is_finite())
}

fn read(e: &DeploymentPoint, point: &BenchmarkPoint) -> Option<f64> {
    value(e, point.metric, point)
}

/// The first pool's layout, for the report.
fn parallelism(e: &DeploymentPoint) -> Option<Parallelism> {
    e.pools.first().map(|x| x.parallelism)
}

/// Why the evaluated deployment does not fit, if it does not.
fn problem(e: &DeploymentPoint) -> Option<String> {
    if e.fits {
        None
    } else {
        e.reason.clone()
    }
}

/// Reads `point` at the batch where the model's per-user speed meets `target`:
/// bisection over whole batches (the speed falls as the batch grows), then linear
/// interpolation of the metric between the two batches around the target.
fn targeted_row(
    catalogue: &Catalogue,
    point: &BenchmarkPoint,
    target: InteractivityTarget,
    assumptions: &Assumptions,
) -> ValidationRow {
    let fail = |problem: String| row(point, None, None, Some(problem), None);
    if point.batch.is_some() {
        return fail("a point read at an interactivity cannot also fix its batch".into());
    }
    if !matches!(target.metric, Metric::TokSUser | Metric::DecodeTokS) {
        return fail(format!(
            "an interactivity target is a speed per user (tok_s_user or decode_tok_s), not {:?}",
            target.metric
        ));
    }
    if !(target.value.is_finite() && target.value > 0.0) {
        return fail(format!(
            "interactivity target {} is not positive",
            target.value
        ));
    }
    let at = |batch: u32| -> Result<(f64, f64, DeploymentPoint)> {
        let fixed = BenchmarkPoint {
            batch: Some(batch),
            ..point.clone()
        };
        let e = evaluate_point(catalogue, &fixed, assumptions)?;
        match (value(&e, target.metric, &fixed), read(&e, &fixed)) {
            (Some(speed), Some(value)) => Ok((speed, value, e)),
            _ => Err(EngineError::InvalidInput(format!(
                "{:?} or {:?} has no value on this axis",
                target.metric, point.metric
            ))),
        }
    };
    let largest = match evaluate_point(catalogue, point, assumptions) {
        Ok(e) => e.figures.batch.max(1),
        Err(e) => return fail(e.to_string()),
    };
    let (mut lo, mut hi) = (1u32, largest);
    let mut low = match at(lo) {
        Ok(r) => r,
        Err(e) => return fail(e.to_string()),
    };
    if low.0 < target.value {
        return fail(format!(
            "the model reaches only {:.1} at batch 1, short of the target {}",
            low.0, target.value
        ));
    }
    let mut high = match at(hi) {
        Ok(r) => r,
        Err(e) => return fail(e.to_string()),
    };
    if high.0 >= target.value {
        // Even the largest batch that fits is faster than the target: read it there.
        let (_, value, e) = high;
        return row(
            point,
            Some(value),
            parallelism(&e),
            problem(&e),
            Some(hi as f64),
        );
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        match at(mid) {
            Ok(r) if r.0 >= target.value => (lo, low) = (mid, r),
            Ok(r) => (hi, high) = (mid, r),
            Err(e) => return fail(e.to_string()),
        }
    }
    let share = (low.0 - target.value) / (low.0 - high.0);
    let value = low.1 + (high.1 - low.1) * share;
    let batch = lo as f64 + (hi - lo) as f64 * share;
    row(
        point,
        Some(value),
        parallelism(&low.2),
        problem(&low.2),
        Some(batch),
    )
}

/// Median and 90th percentile of absolute errors (nearest-rank percentiles).
pub fn summarize(errors: impl Iterator<Item = f64>) -> Option<ErrorSummary> {
    let mut abs: Vec<f64> = errors.map(f64::abs).collect();
    if abs.is_empty() {
        return None;
    }
    abs.sort_by(f64::total_cmp);
    let rank = |q: f64| abs[((q * abs.len() as f64).ceil() as usize).clamp(1, abs.len()) - 1];
    Some(ErrorSummary {
        points: abs.len(),
        median_ape: if abs.len() % 2 == 1 {
            abs[abs.len() / 2]
        } else {
            (abs[abs.len() / 2 - 1] + abs[abs.len() / 2]) / 2.0
        },
        p90_ape: rank(0.9),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drawn_lengths_cost_their_mean() {
        let mut point = BenchmarkTable::builtin().unwrap().point.remove(0);
        point.isl = 1024;
        point.osl = 8192;
        point.length_range_ratio = None;
        assert_eq!(point.workload(), Workload::new(1024, 8192));
        // Uniform integers on [819, 1024] and [6553, 8192]: means 921.5 and 7372.5, and
        // outputs spread by (8192 - 6553) / (sqrt(12) * 7372.5) = 0.0642.
        point.length_range_ratio = Some(0.8);
        let w = point.workload();
        assert_eq!((w.isl, w.osl, w.cached), (922, 7373, 0));
        assert!((w.output_cv - 1639.0 / (12f64.sqrt() * 7372.5)).abs() < 1e-12);
        // A published spread replaces the range's.
        point.output_cv = Some(1.114);
        assert_eq!(point.workload().output_cv, 1.114);
        // Every ratio in the table is a fraction, every spread a valid one.
        for p in BenchmarkTable::builtin().unwrap().point {
            if let Some(r) = p.length_range_ratio {
                assert!((0.0..=1.0).contains(&r), "{}: ratio {r}", p.id);
            }
            assert!(p.workload().validate().is_ok(), "{}", p.id);
        }
    }

    #[test]
    fn a_framework_is_stated_and_one_of_the_list() {
        let table = BenchmarkTable::builtin().unwrap();
        let mut json = serde_json::to_value(&table).unwrap();
        assert_eq!(json["point"][0]["framework"], table.point[0].framework.id());
        assert_eq!(
            serde_json::from_value::<BenchmarkTable>(json.clone()).unwrap(),
            table
        );
        json["point"][0]["framework"] = "tgi".into();
        let refused = serde_json::from_value::<BenchmarkTable>(json.clone())
            .unwrap_err()
            .to_string();
        assert!(
            refused.contains("framework \"tgi\" is not one of trtllm, vllm"),
            "{refused}"
        );
        json["point"][0]
            .as_object_mut()
            .unwrap()
            .remove("framework");
        let refused = serde_json::from_value::<BenchmarkTable>(json)
            .unwrap_err()
            .to_string();
        assert!(refused.contains("missing field `framework`"), "{refused}");
        for f in Framework::ALL {
            assert_eq!(Framework::try_from(f.id().to_string()), Ok(f));
        }
    }

    #[test]
    fn summary_of_known_errors() {
        let s = summarize([0.1, -0.2, 0.3, -0.4].into_iter()).unwrap();
        assert_eq!(s.points, 4);
        assert!((s.median_ape - 0.25).abs() < 1e-12);
        assert!((s.p90_ape - 0.4).abs() < 1e-12);
        assert_eq!(
            s.line(),
            "4 points: median |error| 25.0%, p90 |error| 40.0%"
        );
        assert!(summarize(std::iter::empty()).is_none());
    }
}
