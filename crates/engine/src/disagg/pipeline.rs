//! Pipeline stages on unlike chips (`audit/MODEL.md` 6.10): a model's layers split over
//! machines of different kinds (two Mac Studios, an RTX 5090 and a DGX Spark), one chip
//! per stage, the hidden states handed from stage to stage over the link between them.
//!
//! Nothing here is a second step model: a stage holding `L_i` layers is the kernel's
//! step over the model cut to those layers (`ModelIr::layer_runs`, `Side::Layers`, the
//! last stage with the LM head), its memory the one plan over its part (`Part::Stage`),
//! each hop `link_time` over `inter_pool_link` between the two chips. The stages make
//! one pool that prefills and decodes: the aggregated axis' round gives TTFT and TPOT.
//! Sweeps and the page do not enumerate pipelines; `predict --pipeline` evaluates one.

use super::round::{queue_wait, queue_warning, GroupPrefill, Round, RoundPrefill};
use super::ttft::admission_wait;
use super::{
    inter_pool_link, link_time, place_part, Axis, Core, DeploymentPoint, Figures, Limiter, Placed,
    PoolConfig, PoolReport, PoolRole, Setup, StepCosts,
};
use crate::catalogue::chip::Link;
use crate::catalogue::Chip;
use crate::cost::{self, PoolLoad};
use crate::error::{EngineError, Result};
use crate::kernel::StepShape;
use crate::kernel::{step_cost_of, Side, StepCost};
use crate::limits::{MAX_BATCH, MAX_PIPELINE_STAGES};
use crate::memory::{MemoryUsage, Part};
use crate::model::ModelIr;
use crate::parallel::Parallelism;
use crate::units::{Bytes, BytesPerSecond, Seconds};
use serde::Serialize;

/// One stage: a chip and how many of the model's layers it holds.
#[derive(Clone, Copy, Debug)]
pub struct Stage<'a> {
    pub chip: &'a Chip,
    pub layers: u32,
}

/// The default split: layers in proportion to each chip's usable memory,
/// `L_i = L * M_i / sum M`, rounded by largest remainder (each stage takes the whole
/// part of its share, and the layers left over go one each to the largest remainders,
/// the earlier stage first on a tie), so the layers add up to `L`; a stage whose share
/// rounds to none takes one layer from the largest stage. This is EXO's placement
/// (`allocate_layers_proportionally`); fewer layers than stages are refused.
pub fn memory_split(layers: u32, chips: &[&Chip]) -> Result<Vec<u32>> {
    check_stage_count(chips.len())?;
    if (layers as usize) < chips.len() {
        return Err(EngineError::InvalidInput(format!(
            "a pipeline of {} stages needs at least as many layers, not {layers}",
            chips.len()
        )));
    }
    let total: f64 = chips.iter().map(|c| c.fast.capacity.0).sum();
    if !(total.is_finite() && total > 0.0) {
        return Err(EngineError::InvalidInput(
            "pipeline: the chips' usable memory must be positive".into(),
        ));
    }
    let shares: Vec<f64> = chips
        .iter()
        .map(|c| layers as f64 * c.fast.capacity.0 / total)
        .collect();
    let mut split: Vec<u32> = shares.iter().map(|s| s.floor() as u32).collect();
    let mut order: Vec<usize> = (0..chips.len()).collect();
    // Largest remainder first; a stable sort keeps the earlier stage first on a tie.
    order.sort_by(|&a, &b| {
        let r = |i: usize| shares[i] - shares[i].floor();
        r(b).total_cmp(&r(a))
    });
    let left = layers.saturating_sub(split.iter().sum());
    for &i in order.iter().cycle().take(left as usize) {
        split[i] += 1;
    }
    // Every stage holds a layer: one taken from the largest stage (the first of equals).
    for i in 0..split.len() {
        if split[i] == 0 {
            let largest = (0..split.len())
                .rev()
                .max_by_key(|&j| split[j])
                .unwrap_or(0);
            split[largest] -= 1;
            split[i] = 1;
        }
    }
    Ok(split)
}

fn check_stage_count(n: usize) -> Result<()> {
    if !(2..=MAX_PIPELINE_STAGES).contains(&n) {
        return Err(EngineError::InvalidInput(format!(
            "a pipeline needs between 2 and {MAX_PIPELINE_STAGES} stages, not {n}"
        )));
    }
    Ok(())
}

/// The stages of `chips` holding `layers` each (in order), or the memory split when
/// `layers` is `None`. Given layers must be one positive count per chip adding up to
/// the model's layers.
pub fn stages<'a>(
    model: &ModelIr,
    chips: &[&'a Chip],
    layers: Option<&[u32]>,
) -> Result<Vec<Stage<'a>>> {
    check_stage_count(chips.len())?;
    let total = model.layer_count();
    let split = match layers {
        None => memory_split(total, chips)?,
        Some(given) => {
            if given.len() != chips.len() {
                return Err(EngineError::InvalidInput(format!(
                    "pipeline layers: {} counts for {} stages; give one per stage",
                    given.len(),
                    chips.len()
                )));
            }
            if let Some(i) = given.iter().position(|&n| n == 0) {
                return Err(EngineError::InvalidInput(format!(
                    "pipeline layers: stage {} holds no layer; every stage holds at least one",
                    i + 1
                )));
            }
            let sum = given.iter().map(|&n| n as u64).sum::<u64>();
            if sum != total as u64 {
                return Err(EngineError::InvalidInput(format!(
                    "pipeline layers add up to {sum}, but the model has {total} layers"
                )));
            }
            given.to_vec()
        }
    };
    Ok(chips
        .iter()
        .zip(split)
        .map(|(&chip, layers)| Stage { chip, layers })
        .collect())
}

/// The link from one stage to the next, as the report shows it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct HopReport {
    #[serde(rename = "bandwidth_bytes_per_s")]
    pub bandwidth: BytesPerSecond,
    #[serde(rename = "latency_s")]
    pub latency: Seconds,
    /// One decode micro-batch's hidden states to the next stage.
    #[serde(rename = "decode_s")]
    pub decode: Seconds,
    /// One prefill chunk's hidden states to the next stage.
    #[serde(rename = "prefill_s")]
    pub prefill: Seconds,
}

/// One stage of an evaluated pipeline.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StageReport {
    pub chip: String,
    pub chip_name: String,
    pub layers: u32,
    /// Its first layer, counted from 0.
    pub first_layer: u32,
    pub memory: MemoryUsage,
    /// Its part of one decode micro-batch's traversal (the step's host work on the
    /// first stage).
    #[serde(rename = "decode_s")]
    pub decode: Seconds,
    /// Its part of one prefill chunk's traversal.
    #[serde(rename = "prefill_s")]
    pub prefill: Seconds,
    /// The hop to the next stage; `None` on the last.
    pub hop: Option<HopReport>,
}

/// A pipeline's point (its pools are its stages, each a colocated pool of one chip)
/// with the stages' layers, times and hops.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PipelinePoint {
    #[serde(flatten)]
    pub point: DeploymentPoint,
    pub stages: Vec<StageReport>,
    /// Micro-batches in flight in decode: 1 (the whole batch through the stages in
    /// turn), or `m = min(stages, running)` where that gives the shorter iteration.
    pub micro_batches: f64,
    /// One decode micro-batch through every stage and hop, `T`.
    #[serde(rename = "decode_traversal_s")]
    pub decode_traversal: Seconds,
    /// The decode iteration, `max(T, m * slowest stage)` (`T` itself with one
    /// micro-batch).
    #[serde(rename = "decode_step_s")]
    pub decode_step: Seconds,
    /// One prefill chunk through every stage and hop.
    #[serde(rename = "prefill_step_s")]
    pub prefill_step: Seconds,
    /// Prefill chunks in flight at once, `min(stages, chunks, T_pf / slowest stage)`.
    pub prefill_overlap: f64,
}

/// One step shape through every stage: each stage's cost and part of the traversal, the
/// hops between them, and the traversal `T`.
struct Schedule {
    costs: Vec<StepCost>,
    times: Vec<Seconds>,
    hops: Vec<Seconds>,
    traversal: Seconds,
}

impl Schedule {
    fn of(setup: &Setup, placed: &[Placed], links: &[Link], shape: StepShape) -> Schedule {
        let n = placed.len();
        let side = |i: usize| {
            if i + 1 == n {
                Side::Whole
            } else {
                Side::Layers
            }
        };
        let costs: Vec<StepCost> = placed
            .iter()
            .enumerate()
            .map(|(i, p)| step_cost_of(&p.placement, shape, side(i)))
            .collect();
        let times: Vec<Seconds> = costs
            .iter()
            .enumerate()
            .map(|(i, c)| stage_time(i, c))
            .collect();
        // The hidden states of the step's tokens, tokens x hidden x activation bytes.
        let bytes = Bytes(
            shape.seqs
                * shape.new_tokens
                * setup.model.hidden as f64
                * setup.assumptions.activation_bytes,
        );
        let hops: Vec<Seconds> = links
            .iter()
            .map(|&l| link_time(setup, l, bytes, 1, 1))
            .collect();
        let traversal = times.iter().copied().sum::<Seconds>() + hops.iter().copied().sum();
        Schedule {
            costs,
            times,
            hops,
            traversal,
        }
    }

    /// The slowest stage's part.
    fn slowest(&self) -> Seconds {
        self.times.iter().copied().fold(Seconds::ZERO, Seconds::max)
    }
}

/// One stage's part of a traversal: the step's host work is paid once, by the first
/// stage (where requests enter and the scheduler runs).
fn stage_time(index: usize, cost: &StepCost) -> Seconds {
    if index == 0 {
        cost.total
    } else {
        cost.without_host_overhead()
    }
}

/// Evaluates `stages` at `batch` concurrent requests.
pub fn evaluate(setup: &Setup, stages: &[Stage], batch: u32) -> Result<PipelinePoint> {
    setup.validate()?;
    check_stage_count(stages.len())?;
    if batch == 0 || batch > MAX_BATCH {
        return Err(EngineError::InvalidInput(format!(
            "batch {batch} must lie between 1 and {MAX_BATCH}"
        )));
    }
    let chips: Vec<&Chip> = stages.iter().map(|s| s.chip).collect();
    let layers: Vec<u32> = stages.iter().map(|s| s.layers).collect();
    // Checks the counts against the model (one per stage, none empty, the sum).
    stages_check(setup.model, &chips, &layers)?;
    // Prompts per user count every user, the queued ones too.
    let w = setup.workload.at_concurrency(batch);
    let single = Parallelism::single();
    // The engine runs what every stage's batch limit allows; the rest queue.
    let running = chips
        .iter()
        .map(|c| setup.assumptions.on_chip(c).engine_runs(batch, 1))
        .min()
        .unwrap_or(batch);
    let seqs = running as f64;
    let n = stages.len();
    // The models of the stages, owned here for the placements to borrow, each with its
    // first layer.
    let starts = stages.iter().scan(0, |next, s| {
        let start = *next;
        *next += s.layers;
        Some(start)
    });
    let parts: Vec<(u32, ModelIr)> = starts.zip(setup.model.layer_runs(&layers)).collect();
    let mut placed = Vec::with_capacity(n);
    for (i, (stage, (start, model))) in stages.iter().zip(&parts).enumerate() {
        let pool = PoolConfig {
            chip: stage.chip,
            parallelism: single,
        };
        let part = Part::Stage {
            first: i == 0,
            last: i + 1 == n,
        };
        let p = place_part(setup, model, part, pool, w.max_context(), seqs, Bytes::ZERO)
            .map_err(|_| EngineError::InvalidInput("pipeline stage: invalid layout".into()))?;
        if p.fit.is_some() {
            return Err(EngineError::InvalidInput(stage_shortfall(
                i,
                stage,
                *start,
                &p.usage,
                p.plan.max_seqs(),
                running,
            )));
        }
        placed.push(p);
    }
    let prompts = chips
        .iter()
        .map(|c| w.prompts_per_chunk(setup.assumptions.prefill_chunk_per_replica(c, single), seqs))
        .fold(seqs.max(1.0), f64::min);
    let links: Vec<_> = chips
        .windows(2)
        .map(|pair| inter_pool_link(setup, pair[0], 1, pair[1], 1))
        .collect();
    let run = |shape: StepShape| Schedule::of(setup, &placed, &links, shape);
    // Decode: the whole batch through the stages in turn, or `m = min(stages, running)`
    // micro-batches of `running / m` sequences in flight together (Workload::decode_shape
    // with the stages as pipeline stages), whichever gives each sequence its next
    // token sooner. Prefill: the smallest chunk any stage's budget allows.
    let whole = run(w.decode_shape(single, seqs));
    let micro_batches = (n as f64).min(seqs).max(1.0);
    let split = (micro_batches > 1.0).then(|| {
        run(w.decode_shape(
            Parallelism {
                pp: n as u32,
                ..single
            },
            seqs,
        ))
    });
    let (dec, micro_batches) = match split {
        Some(s) if s.traversal.max(s.slowest() * micro_batches) < whole.traversal => {
            (s, micro_batches)
        }
        _ => (whole, 1.0),
    };
    let iteration = dec.traversal.max(dec.slowest() * micro_batches);
    let pf = run(w.prefill_shape(prompts));
    let (decode, decode_t, traversal) = (&dec.costs, &dec.times, dec.traversal);
    let (prefill, prefill_t, prefill_step) = (&pf.costs, &pf.times, pf.traversal);
    let hops: Vec<HopReport> = links
        .iter()
        .zip(dec.hops.iter().zip(&pf.hops))
        .map(|(link, (&decode, &prefill))| HopReport {
            bandwidth: link.bandwidth,
            latency: link.latency,
            decode,
            prefill,
        })
        .collect();
    let a = setup.assumptions.on_chip(chips[0]);
    let group = GroupPrefill::of_round(seqs / prompts, w.osl as f64, 1, a.aligned_group_prefill);
    let chunks = seqs / prompts;
    let slowest_pf = pf.slowest();
    let prefill_overlap = (n as f64)
        .min(chunks)
        .min(if slowest_pf.0 > 0.0 {
            prefill_step / slowest_pf
        } else {
            1.0
        })
        .max(1.0);
    let round = Round {
        iteration,
        tokens_per_iteration: 1.0,
        seqs,
        osl: w.osl as f64,
        prefill: Some(RoundPrefill {
            step: prefill_step,
            prompts_per_step: prompts,
            steps: group.steps,
            overlap: prefill_overlap,
        }),
        scheduling: a.scheduling,
        first_wave: w.first_wave(running),
        admission: admission_wait(a.scheduler_recv_interval, iteration, seqs),
    };
    // Each stage works `m` micro-batches' share of every iteration.
    let busy = |i: usize| (decode_t[i] * micro_batches / iteration).clamp(0.0, 1.0);
    let loads: Vec<PoolLoad> = (0..n)
        .map(|i| PoolLoad {
            chip: chips[i],
            chips: 1,
            utilisation: cost::utilisation(busy(i), &decode[i].time_breakdown()),
        })
        .collect();
    let slowest_stage = (0..n)
        .max_by(|&x, &y| decode_t[x].0.total_cmp(&decode_t[y].0))
        .unwrap_or(0);
    let hop_time: Seconds = hops.iter().map(|h| h.decode).sum();
    let output_tok_s = round.output_tok_s(running);
    let (ttft_p90, tpot_p90) = round.p90s();
    let mut figures = Figures::new(
        Core {
            batch: running,
            running,
            ttft: round.ttft(),
            tpot: round.tpot(),
            ttft_p90,
            tpot_p90,
            output_tok_s,
            input_tok_s: round.input_tok_s(running, w.isl),
            transfer: hop_time,
            bottleneck: decode[slowest_stage].time_breakdown().bottleneck(),
            limiter: Limiter::Colocated,
            prefill_share: round.prefill_share(),
        },
        &loads,
        &setup.assumptions.cost,
    );
    let mut ttft = round.ttft_model();
    let mut warnings: Vec<String> = placed
        .iter()
        .enumerate()
        .filter(|(_, p)| p.placement.cold_weight_fraction > 0.0)
        .map(|(i, p)| {
            format!(
                "stage {}: {:.0}% of its weights spill to the cold memory tier",
                i + 1,
                p.placement.cold_weight_fraction * 100.0
            )
        })
        .collect();
    warnings.extend(setup.context_warning());
    if running < batch {
        let rate = figures.output_tok_s.per_request(w.osl as f64);
        let wait = queue_wait(batch, running, rate);
        figures.ttft += wait;
        figures.batch = batch;
        ttft = ttft.queued(wait);
        figures.ttft_p90 = ttft.quantile(0.9);
        warnings.insert(0, queue_warning(batch, running, seqs));
    }
    let pools = (0..n)
        .map(|i| {
            let time = decode[i].time_breakdown();
            PoolReport {
                role: PoolRole::Colocated,
                chip: chips[i].id.clone(),
                chip_name: chips[i].name.clone(),
                chips: 1,
                parallelism: single,
                seqs_per_replica: seqs,
                max_seqs_per_replica: placed[i].plan.max_seqs(),
                step: decode_t[i],
                utilisation: busy(i),
                input_tok_s_per_chip: figures.input_tok_s,
                output_tok_s_per_chip: figures.output_tok_s,
                memory: placed[i].usage,
                time,
                bottleneck: time.bottleneck(),
                operators: Vec::new(),
                costs: StepCosts {
                    generation: Some(decode[i]),
                    prefill: Some(prefill[i]),
                    prompts_per_prefill: prompts,
                },
            }
        })
        .collect();
    let stage_reports = (0..n)
        .map(|i| StageReport {
            chip: chips[i].id.clone(),
            chip_name: chips[i].name.clone(),
            layers: stages[i].layers,
            first_layer: parts[i].0,
            memory: placed[i].usage,
            decode: decode_t[i],
            prefill: prefill_t[i],
            hop: hops.get(i).copied(),
        })
        .collect();
    Ok(PipelinePoint {
        point: DeploymentPoint {
            axis: Axis::Aggregated,
            heterogeneous: chips.iter().any(|c| c.id != chips[0].id),
            label: label(stages),
            figures,
            pools,
            transfer_time: hop_time,
            ttft,
            tpot: round.tpot_model(),
            fits: true,
            reason: None,
            warnings,
        },
        stages: stage_reports,
        micro_batches,
        decode_traversal: traversal,
        decode_step: iteration,
        prefill_step,
        prefill_overlap,
    })
}

fn stages_check(model: &ModelIr, chips: &[&Chip], layers: &[u32]) -> Result<()> {
    stages(model, chips, Some(layers)).map(|_| ())
}

/// "pipeline 48 layers on Apple M3 Ultra > 32 layers on Apple M4 Max".
fn label(stages: &[Stage]) -> String {
    let parts: Vec<String> = stages
        .iter()
        .map(|s| format!("{} layers on {}", s.layers, s.chip.name))
        .collect();
    format!("pipeline {}", parts.join(" > "))
}

/// Why stage `index` cannot hold its layers and the batch, with the shortfall.
fn stage_shortfall(
    index: usize,
    stage: &Stage,
    start: u32,
    usage: &MemoryUsage,
    max_seqs: u64,
    running: u32,
) -> String {
    let need = usage.total - usage.cold_weights;
    let short = (need - usage.fast_capacity).max(Bytes::ZERO)
        + (usage.cold_weights - usage.cold_capacity).max(Bytes::ZERO);
    format!(
        "pipeline stage {} ({}, layers {}-{}) does not fit: weights {:.1} GB + KV {:.1} GB for a batch of {running} + workspace {:.1} GB need {:.2} GB of its {:.2} GB; short by {:.2} GB (at most {max_seqs} sequences fit beside its weights). Move layers to another stage or use a narrower weight dtype",
        index + 1,
        stage.chip.name,
        start,
        start + stage.layers - 1,
        usage.weights.gb(),
        usage.kv.gb(),
        usage.workspace.gb(),
        usage.total.gb(),
        (usage.fast_capacity + usage.cold_capacity).gb(),
        short.gb(),
    )
}
