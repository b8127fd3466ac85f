//! Prefill/decode disaggregation: prompts run on a prefill pool (chip A), generation on
//! a decode pool (chip B), and each request's KV cache crosses the link between them
//! once (`audit/MODEL.md` section 6.3).
//!
//! Each pool has a request rate it can sustain:
//! - decode: `batch / (TPOT * OSL)`, with TPOT the decode step alone (no prefill
//!   steals its time);
//! - prefill: `replicas * prompts_per_step * stages / t_prefill_step`;
//! - link: `lanes * bandwidth * link_eff / kv_bytes_per_request`.
//!
//! The deployment runs at the smallest of the three, which names the limiter; output
//! tok/s is that rate times OSL and per-chip figures divide by both pools. TTFT is one
//! prefill step, plus on average half a step of waiting scaled by the prefill pool's
//! utilisation, plus the exposed KV transfer, plus the first decode step; or, when a
//! pool other than decode caps the rate, the closed-loop queue of Little's law
//! (`batch / rate - OSL * TPOT`) if that is longer. With
//! layer-wise streaming a layer's KV leaves while later layers still compute, so only
//! the last layer's share (or what outlasts the prefill) is exposed.
//!
//! With `Setup::speculative_decode` the decode pool speculates as on the speculative
//! axis, its draft colocated on the decode chips: a cycle of `K` draft steps and one
//! verify step of `K + 1` tokens per sequence yields `E` tokens, so the pool's time per
//! token (its TPOT) is `cycle / E`.

use super::explain::AxisChains;
use super::round::Round;
use super::ttft::{Ttft, TtftParts, Wait};
use super::{
    inter_pool_link, layout_error, link_time, place, pool_label, speculative, Core,
    DeploymentPoint, Figures, Limiter, Placed, PoolConfig, PoolReport, PoolRole, Reject, Setup,
    StepCosts,
};
use crate::error::Result;
use crate::explain::{diff, max, min, num, product, quotient, sum, var, Chain, Source};
use crate::kernel::{operator_table, step_chain, step_cost, Bottleneck, StepCost, TimeBreakdown};
use crate::units::{Bytes, RequestsPerSecond, Seconds, TokensPerSecond};

/// The decode pool at a batch.
#[derive(Clone, Copy, Debug)]
pub struct DecodeSide<'a> {
    pub(crate) placed: Placed<'a>,
    /// Time per generated token of a sequence: the decode step, or a speculation
    /// cycle divided by the tokens it yields.
    pub step: Seconds,
    /// The decode (or verify) step's cost.
    pub cost: StepCost,
    /// Requests per second the pool can finish.
    pub request_rate: RequestsPerSecond,
    pub time: TimeBreakdown,
    pub bottleneck: Bottleneck,
}

/// The prefill pool.
#[derive(Clone, Copy, Debug)]
pub struct PrefillSide<'a> {
    pub(crate) placed: Placed<'a>,
    pub step: Seconds,
    pub cost: StepCost,
    pub prompts_per_step: f64,
    /// Requests per second one replica finishes (its stages work on different prompt
    /// batches at once).
    pub replica_rate: RequestsPerSecond,
    /// Replicas in the pool.
    pub replicas: u32,
    /// Requests per second the pool finishes: `replica_rate x replicas`, computed the
    /// same way for a pool and for a sweep's replicated unit, so both agree exactly.
    pub request_rate: RequestsPerSecond,
    pub time: TimeBreakdown,
    pub bottleneck: Bottleneck,
}

/// One request's KV cache on the inter-pool link.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KvTransfer {
    pub bytes: Bytes,
    pub time: Seconds,
    /// The part TTFT waits for.
    pub exposed: Seconds,
    /// Requests per second the link can carry.
    pub request_rate: RequestsPerSecond,
}

impl PrefillSide<'_> {
    /// The same prefill unit, `r` times.
    pub fn replicated(&self, r: u32) -> Self {
        let replicas = self.replicas.saturating_mul(r);
        PrefillSide {
            replicas,
            request_rate: self.replica_rate * replicas as f64,
            ..*self
        }
    }
}

pub fn decode_side<'a>(
    setup: &Setup<'a>,
    pool: PoolConfig<'a>,
    batch: u32,
) -> std::result::Result<DecodeSide<'a>, Reject> {
    if setup.speculative_decode {
        return speculative_decode_side(setup, pool, batch);
    }
    let par = pool.parallelism;
    let seqs = par.seqs_per_replica(batch);
    let placed = place(
        setup,
        setup.model,
        pool,
        setup.workload.max_context(),
        seqs,
        Bytes::ZERO,
    )?;
    let cost = step_cost(&placed.placement, setup.workload.decode_shape(par, seqs));
    let round = Round {
        iteration: cost.total,
        tokens_per_iteration: 1.0,
        seqs,
        osl: setup.workload.osl as f64,
        prefill: None,
        // No prefill in this pool's round: static and continuous batches agree.
        scheduling: Default::default(),
    };
    let time = TimeBreakdown::of(&cost);
    Ok(DecodeSide {
        placed,
        step: round.tpot(),
        cost,
        request_rate: round.request_rate(batch),
        time,
        bottleneck: time.bottleneck(),
    })
}

/// The decode pool speculating: the speculative axis' draft side and verify step on the
/// decode chips, without the target's prefill, which the decode pool does not run.
fn speculative_decode_side<'a>(
    setup: &Setup<'a>,
    pool: PoolConfig<'a>,
    batch: u32,
) -> std::result::Result<DecodeSide<'a>, Reject> {
    // A draft on the pool's own chips always "fits": its memory is charged to the
    // verify step's placement through `colocated_bytes`.
    let draft = speculative::draft_side(setup, pool, None, batch)?;
    let (placed, verify) = speculative::verify_step(setup, pool, batch, draft.colocated_bytes)?;
    let round = Round {
        iteration: draft.step * setup.speculation.draft_tokens as f64 + verify.total,
        tokens_per_iteration: setup.speculation.expected_tokens(),
        seqs: placed.seqs,
        osl: setup.workload.osl as f64,
        prefill: None,
        // No prefill in this pool's round: static and continuous batches agree.
        scheduling: Default::default(),
    };
    let time = TimeBreakdown::of(&verify);
    Ok(DecodeSide {
        placed,
        step: round.tpot(),
        cost: verify,
        request_rate: round.request_rate(batch),
        time,
        bottleneck: time.bottleneck(),
    })
}

pub fn prefill_side<'a>(
    setup: &Setup<'a>,
    pool: PoolConfig<'a>,
) -> std::result::Result<PrefillSide<'a>, Reject> {
    let par = pool.parallelism;
    let overlapped = two_batch_overlap(setup, par);
    let setup = &overlapped;
    let isl = setup.workload.isl as f64;
    let wanted = setup.workload.prompts_per_chunk(
        setup.assumptions.on_chip(pool.chip).prefill_chunk_tokens,
        f64::INFINITY,
    );
    // Size memory for the prompts of one step; fewer if that is all that fits.
    let probe = place(setup, setup.model, pool, isl, 1.0, Bytes::ZERO)?;
    let prompts = wanted.min(probe.plan.max_seqs().max(1) as f64);
    let mut placed = place(setup, setup.model, pool, isl, prompts, Bytes::ZERO)?;
    if overlaps(setup, par) {
        // The communication kernels hold some of the chip's SMs all step long.
        let r = &mut placed.placement.rates;
        r.mfu_bf16 *= OVERLAP_COMPUTE_SHARE;
        r.mfu_fp8 *= OVERLAP_COMPUTE_SHARE;
        r.mfu_fp4 *= OVERLAP_COMPUTE_SHARE;
    }
    let cost = step_cost(&placed.placement, setup.workload.prefill_shape(prompts));
    let time = TimeBreakdown::of(&cost);
    // Stages work on different prompt batches at once.
    let replica_rate = RequestsPerSecond(prompts * par.pp as f64 / cost.total.value());
    Ok(PrefillSide {
        placed,
        step: cost.total,
        cost,
        prompts_per_step: prompts,
        replica_rate,
        replicas: par.dp,
        request_rate: replica_rate * par.dp as f64,
        time,
        bottleneck: time.bottleneck(),
    })
}

/// The prefill pool's setup: with `prefill_two_batch_overlap` and experts spread over
/// replicas, the step runs as two micro-batches alternating on the compute and the
/// communication streams, so one's dispatch and combine hide under the other's
/// computation and only what outlasts the computation stays exposed:
/// `exposed = max(0, C - T_busy)`, the kernel's overlap at 1 (`audit/MODEL.md` 6.3.1).
/// The computation meanwhile runs on the SMs the communication kernels leave it:
/// 108 of a Hopper GPU's 132 in DeepSeek's day-6 overview (its overlap figure),
/// [`OVERLAP_COMPUTE_SHARE`] of the compute rate.
fn two_batch_overlap<'a>(setup: &Setup<'a>, par: crate::parallel::Parallelism) -> Setup<'a> {
    let mut s = *setup;
    if overlaps(setup, par) {
        s.assumptions.comm_overlap = 1.0;
    }
    s
}

/// Share of a chip's compute left to the matmuls while two-batch overlap's
/// communication kernels run: 108 of 132 SMs (DeepSeek's day-6 inference overview).
pub const OVERLAP_COMPUTE_SHARE: f64 = 108.0 / 132.0;

/// Whether a prefill pool of layout `par` overlaps two micro-batches: asked for, and
/// with experts spread over replicas (an all-to-all to hide).
fn overlaps(setup: &Setup, par: crate::parallel::Parallelism) -> bool {
    setup.assumptions.prefill_two_batch_overlap && par.replicas_per_expert_group() > 1
}

pub fn kv_transfer(
    setup: &Setup,
    prefill: PoolConfig,
    decode: PoolConfig,
    prefill_step: Seconds,
) -> KvTransfer {
    let bytes = setup.model.kv_values_for_context(setup.workload.isl as f64) * setup.kv.bytes();
    let link = inter_pool_link(
        setup,
        prefill.chip,
        prefill.chips(),
        decode.chip,
        decode.chips(),
    );
    let pp = prefill.parallelism;
    let dp = decode.parallelism;
    // One replica sends to one replica, each chip over its own link.
    let time = link_time(setup, link, Bytes(bytes), pp.tp * pp.pp, dp.tp * dp.pp);
    let layers = setup.model.num_layers.max(1) as f64;
    let exposed = if setup.kv_streaming {
        (time / layers).max(time - prefill_step * ((layers - 1.0) / layers))
    } else {
        time
    };
    let lanes = prefill.chips().min(decode.chips()).max(1) as f64;
    KvTransfer {
        bytes: Bytes(bytes),
        time,
        exposed,
        request_rate: RequestsPerSecond(
            lanes * link.bandwidth.0 * setup.assumptions.link_eff / bytes.max(1.0),
        ),
    }
}

/// The deployment's figures from its three sides.
pub fn combine(
    setup: &Setup,
    prefill: PoolConfig,
    decode: PoolConfig,
    batch: u32,
    p: &PrefillSide,
    d: &DecodeSide,
    t: &KvTransfer,
) -> Figures {
    let (rate, limiter) = request_rate(p, d, t);
    let osl = setup.workload.osl as f64;
    Figures::new(
        Core {
            batch,
            running: batch,
            ttft: ttft(p, d, t, rate, batch, osl).mean(),
            tpot: d.step,
            output_tok_s: rate.tokens(osl),
            input_tok_s: rate.tokens(setup.workload.isl as f64),
            transfer: t.exposed,
            bottleneck: d.bottleneck,
            limiter,
            prefill_share: 0.0,
        },
        &[
            (prefill.chip, prefill.chips()),
            (decode.chip, decode.chips()),
        ],
    )
}

/// The request rate the deployment runs at, the smallest of its three, and which it is.
fn request_rate(p: &PrefillSide, d: &DecodeSide, t: &KvTransfer) -> (RequestsPerSecond, Limiter) {
    [
        (d.request_rate, Limiter::DecodePool),
        (p.request_rate, Limiter::PrefillPool),
        (t.request_rate, Limiter::InterPoolLink),
    ]
    .into_iter()
    .fold(
        (RequestsPerSecond(f64::MAX), Limiter::DecodePool),
        |best, (r, l)| {
            if r < best.0 {
                (r, l)
            } else {
                best
            }
        },
    )
}

/// TTFT at the deployment's request `rate`: the prefill step, the rest of the step in
/// flight when the request arrives (at the prefill pool's utilisation), the exposed
/// transfer and the first decode step; or the closed loop's, whichever is longer, the
/// difference then waiting in front of the engine.
fn ttft(
    p: &PrefillSide,
    d: &DecodeSide,
    t: &KvTransfer,
    rate: RequestsPerSecond,
    batch: u32,
    osl: f64,
) -> Ttft {
    let prefill_utilisation = (rate / p.request_rate).min(1.0);
    let open_loop = Ttft {
        parts: TtftParts {
            prefill_wait: p.step * (prefill_utilisation / 2.0),
            prefill: p.step,
            transfer: t.exposed,
            first_step: d.step,
            ..TtftParts::default()
        },
        wait: Wait::Busy {
            step: p.step,
            utilisation: prefill_utilisation,
        },
    };
    // Closed loop (Little's law): `batch` requests in flight at `rate` each spend
    // `batch / rate` in the system, of which `OSL * TPOT` decoding; the rest is TTFT.
    // It exceeds the open-loop figure when a pool other than decode limits the rate.
    let closed_loop = Seconds(batch as f64 / rate.0) - d.step * osl;
    open_loop.queued((closed_loop - open_loop.mean()).max(Seconds::ZERO))
}

pub fn evaluate(
    setup: &Setup,
    prefill: PoolConfig,
    decode: PoolConfig,
    batch: u32,
) -> Result<DeploymentPoint> {
    let p = prefill_side(setup, prefill)
        .map_err(|_| layout_error(setup, setup.model, PoolRole::Prefill, prefill))?;
    let d = decode_side(setup, decode, batch)
        .map_err(|_| layout_error(setup, setup.model, PoolRole::Decode, decode))?;
    let t = kv_transfer(setup, prefill, decode, p.step);
    let figures = combine(setup, prefill, decode, batch, &p, &d, &t);
    let rate = figures.output_tok_s.per_request(setup.workload.osl as f64);
    let reasons: Vec<String> = [
        p.placed.reason(PoolRole::Prefill),
        d.placed.reason(PoolRole::Decode),
    ]
    .into_iter()
    .flatten()
    .collect();
    let mut warnings = Vec::new();
    if figures.limiter != Limiter::DecodePool {
        warnings.push(format!(
            "the {} caps the request rate: the decode pool runs at {:.0}% of batch {batch}; a smaller batch or a larger {} balances it",
            figures.limiter,
            100.0 * (rate / d.request_rate),
            figures.limiter
        ));
    }
    let pools = vec![
        PoolReport {
            role: PoolRole::Prefill,
            chip: prefill.chip.id.clone(),
            chip_name: prefill.chip.name.clone(),
            chips: prefill.chips(),
            parallelism: prefill.parallelism,
            seqs_per_replica: p.prompts_per_step,
            max_seqs_per_replica: p.placed.plan.max_seqs(),
            step: p.step,
            utilisation: rate / p.request_rate,
            input_tok_s_per_chip: rate.tokens(setup.workload.isl as f64) / prefill.chips() as f64,
            output_tok_s_per_chip: TokensPerSecond::ZERO,
            memory: p.placed.usage,
            time: p.time,
            bottleneck: p.bottleneck,
            operators: Vec::new(),
            costs: StepCosts {
                generation: None,
                prefill: Some(p.cost),
                prompts_per_prefill: p.prompts_per_step,
            },
        },
        PoolReport {
            role: PoolRole::Decode,
            chip: decode.chip.id.clone(),
            chip_name: decode.chip.name.clone(),
            chips: decode.chips(),
            parallelism: decode.parallelism,
            seqs_per_replica: d.placed.seqs,
            max_seqs_per_replica: d.placed.plan.max_seqs(),
            step: d.step,
            utilisation: rate / d.request_rate,
            input_tok_s_per_chip: TokensPerSecond::ZERO,
            output_tok_s_per_chip: figures.output_tok_s / decode.chips() as f64,
            memory: d.placed.usage,
            time: d.time,
            bottleneck: d.bottleneck,
            operators: Vec::new(),
            costs: StepCosts {
                generation: Some(d.cost),
                prefill: None,
                prompts_per_prefill: 0.0,
            },
        },
    ];
    Ok(DeploymentPoint {
        axis: super::Axis::PrefillDecode,
        heterogeneous: prefill.chip.id != decode.chip.id,
        label: format!(
            "{} + {}",
            pool_label(PoolRole::Prefill, prefill.chip, prefill.parallelism),
            pool_label(PoolRole::Decode, decode.chip, decode.parallelism)
        ),
        figures,
        pools,
        transfer_time: t.time,
        ttft: ttft(
            &p,
            &d,
            &t,
            request_rate(&p, &d, &t).0,
            batch,
            setup.workload.osl as f64,
        ),
        fits: reasons.is_empty(),
        reason: (!reasons.is_empty()).then(|| reasons.join("; ")),
        warnings,
    })
}

mod explain;
pub(crate) use explain::explain;
