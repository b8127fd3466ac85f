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
//! In the closed loop benchmarks run, a request spends its prefill, its wait for it
//! and the KV transfer away from the decode pool, so the decode pool's rate is its
//! batch over the whole cycle, and the deployment runs at the fixed point of that and
//! the other two ([`ClosedLoop`]), which names the limiter; output tok/s is that rate
//! times OSL and per-chip figures divide by both pools. TTFT is the wait for the
//! prefill steps ahead (an M/D/1 queue at the utilisation a request finds), one
//! prefill step, the exposed KV transfer and the first decode step; when the prefill
//! pool or the link caps the rate, the rest of Little's law's `B / X - (OSL - 1) TPOT`
//! queues in front of them, so latency, TTFT and TPOT agree with the rate exactly. With
//! layer-wise streaming a layer's KV leaves while later layers still compute, so only
//! the last layer's share (or what outlasts the prefill) is exposed.
//!
//! With `Setup::speculative_decode` the decode pool speculates as on the speculative
//! axis, its draft colocated on the decode chips: a cycle of `K` draft steps and one
//! verify step of `K + 1` tokens per sequence yields `E` tokens, so the pool's time per
//! token (its TPOT) is `cycle / E`.

use super::explain::AxisChains;
use super::round::Round;
use super::ttft::{cohort_wait, prefill_queue, seen_on_arrival, Ttft, TtftParts, Wait};
use super::{
    inter_pool_link, layout_error, link_time, place, pool_label, speculative, Core,
    DeploymentPoint, Figures, Limiter, Placed, PoolConfig, PoolReport, PoolRole, Reject, Setup,
    StepCosts,
};
use crate::cost::{self, PoolLoad};
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
    /// Time between the starts of one replica's prefill steps: its step over its
    /// pipeline stages, which work on different prompt batches at once.
    pub fn step_interval(&self) -> Seconds {
        Seconds(self.prompts_per_step / self.replica_rate.0.max(f64::MIN_POSITIVE))
    }

    /// The mean wait of a prompt of the benchmark's first wave (MODEL.md 6.1.2,
    /// 6.3): `running` prompts arrive together, spread over the pool's replicas,
    /// each prefilling `prompts_per_step` to a step that starts every
    /// [`PrefillSide::step_interval`], so a replica's `running / replicas` form a
    /// [`cohort_wait`].
    pub fn wave_wait(&self, running: u32) -> Seconds {
        cohort_wait(
            self.step_interval(),
            self.prompts_per_step,
            self.wave_seqs(running),
        )
    }

    /// First-wave prompts per replica.
    fn wave_seqs(&self, running: u32) -> f64 {
        running as f64 / self.replicas.max(1) as f64
    }

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
        first_wave: 0.0,
        admission: Seconds::ZERO,
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
        iteration: speculative::cycle_time(
            &placed.placement.assumptions,
            draft.step * setup.speculation.draft_tokens as f64,
            &verify,
        ),
        tokens_per_iteration: setup.speculation.expected_tokens(),
        seqs: placed.seqs,
        osl: setup.workload.osl as f64,
        prefill: None,
        // No prefill in this pool's round: static and continuous batches agree.
        scheduling: Default::default(),
        first_wave: 0.0,
        admission: Seconds::ZERO,
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
        setup.assumptions.prefill_chunk_per_replica(pool.chip, par),
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
/// with experts spread over replicas (an all-to-all to hide). The launch writes SGLang's
/// flag by the same rule (`deploy::sglang`).
pub(crate) fn overlaps(setup: &Setup, par: crate::parallel::Parallelism) -> bool {
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
    let osl = setup.workload.osl as f64;
    let flow = ClosedLoop::of(p, d, t, batch, osl);
    let (rate, limiter) = (flow.rate, flow.limiter);
    let ttft = flow.ttft(p, d, t, batch, osl, setup.workload.first_wave(batch));
    Figures::new(
        Core {
            batch,
            running: batch,
            ttft: ttft.mean(),
            tpot: d.step,
            ttft_p90: ttft.quantile(0.9),
            // The decode pool never prefills: every request's TPOT is its step.
            tpot_p90: d.step,
            output_tok_s: rate.tokens(osl),
            input_tok_s: rate.tokens(setup.workload.isl as f64),
            transfer: t.exposed,
            bottleneck: d.bottleneck,
            limiter,
            prefill_share: 0.0,
        },
        &[
            PoolLoad {
                chip: prefill.chip,
                chips: prefill.chips(),
                // Each pool is busy the share of its capacity the loop's rate uses,
                // as its report states.
                utilisation: cost::utilisation(rate.0 / p.request_rate.0, &p.time),
            },
            PoolLoad {
                chip: decode.chip,
                chips: decode.chips(),
                utilisation: cost::utilisation(rate.0 / d.request_rate.0, &d.time),
            },
        ],
        &setup.assumptions.cost,
    )
}

/// The closed loop's steady state: `B` requests each alternate between the prefill
/// side (its queue, its step, the KV transfer) and `OSL` decode steps. The decode pool
/// alone would finish `B / (OSL TPOT)` per second, but a request spends `t_pf + t_x +
/// W` of its cycle away from it, so by Little's law the loop runs at
///
/// ```text
/// X = min(B / (OSL TPOT + t_pf + t_x + W(X)), r_pre, r_link)
/// ```
///
/// with `W(X)` the M/D/1 wait in front of the prefill steps at the utilisation a
/// request finds, `u_a = (X / r_pre) (B - 1) / B` ([`prefill_queue`],
/// [`seen_on_arrival`]). The right side falls as `X` grows, so there is one fixed
/// point, in closed form ([`fixed_point`]); when the prefill pool or the link cannot
/// keep up even then,
/// the loop runs at their rate and the requests the decode pool does not hold queue
/// in front of them (`audit/MODEL.md` 6.3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClosedLoop {
    /// Requests per second the loop completes.
    pub rate: RequestsPerSecond,
    /// The pool or link that sets it.
    pub limiter: Limiter,
    /// Mean wait for the prefill steps ahead.
    pub wait: Seconds,
    /// Share of time a request finds the prefill steps busy.
    pub seen_utilisation: f64,
}

impl ClosedLoop {
    pub fn of(p: &PrefillSide, d: &DecodeSide, t: &KvTransfer, batch: u32, osl: f64) -> Self {
        let b = batch as f64;
        let seen = |x: f64| seen_on_arrival(x / p.request_rate.0, b);
        let wait = |x: f64| prefill_queue(seen(x), p.step);
        let away = cycle_away(p, d, t, osl);
        let decode_rate = |x: f64| b / (away + wait(x)).0;
        let (cap, limiter) = if t.request_rate < p.request_rate {
            (t.request_rate.0, Limiter::InterPoolLink)
        } else {
            (p.request_rate.0, Limiter::PrefillPool)
        };
        // The pool that sets the rate: the decode pool if it is slower than the
        // others even with no queue in front of prefill; otherwise the queue forms in
        // front of the prefill pool or the link, which then limits.
        let limiter = if b / away.0 < cap {
            Limiter::DecodePool
        } else {
            limiter
        };
        let rate = if decode_rate(cap) >= cap {
            cap
        } else {
            fixed_point(b, away, p.step, p.request_rate.0)
        };
        ClosedLoop {
            rate: RequestsPerSecond(rate),
            limiter,
            wait: wait(rate),
            seen_utilisation: seen(rate),
        }
    }

    /// The decode pool's rate in the loop: its batch over a request's whole cycle.
    pub fn decode_rate(
        &self,
        p: &PrefillSide,
        d: &DecodeSide,
        t: &KvTransfer,
        batch: u32,
        osl: f64,
    ) -> RequestsPerSecond {
        RequestsPerSecond(batch as f64 / (cycle_away(p, d, t, osl) + self.wait).0)
    }

    /// TTFT at the loop's rate: the wait for the prefill steps ahead, the prefill
    /// step, the exposed transfer and the first decode step, plus, where the prefill
    /// pool or the link sets the rate, the queue Little's law leaves:
    /// `B / X - (OSL - 1) TPOT` is every request's TTFT in the steady loop, exactly.
    /// A share `first_wave` of the benchmark's requests is its first wave
    /// (MODEL.md 6.1.2, 6.3): they arrive together at an empty loop, so in place of
    /// the steady loop's wait in front of the prefill side (`W_q` and that queue) they
    /// wait for the cohort's prefills ([`PrefillSide::wave_wait`]). Only TTFT's mean
    /// moves: the rate and TPOT stay the steady loop's.
    pub fn ttft(
        &self,
        p: &PrefillSide,
        d: &DecodeSide,
        t: &KvTransfer,
        batch: u32,
        osl: f64,
        first_wave: f64,
    ) -> Ttft {
        let engine = Ttft {
            parts: TtftParts {
                prefill_wait: self.wait,
                prefill: p.step,
                transfer: t.exposed,
                first_step: d.step,
                ..TtftParts::default()
            },
            wait: Wait::Poisson {
                mean: self.wait,
                utilisation: self.seen_utilisation,
            },
        };
        let little = Seconds(batch as f64 / self.rate.0) - d.step * (osl - 1.0).max(0.0);
        // Where the decode pool sets the rate the fixed point makes the two equal; what
        // rounding of its closed form leaves (parts in 1e15) is no queue.
        let queue = little - engine.mean();
        let queue = if queue.0 > 1e-9 * little.0 {
            queue
        } else {
            Seconds::ZERO
        };
        let steady = engine.queued(queue);
        let w = first_wave.clamp(0.0, 1.0);
        if w <= 0.0 {
            return steady;
        }
        let stay = 1.0 - w;
        Ttft {
            parts: TtftParts {
                queue: steady.parts.queue * stay,
                prefill_wait: self.wait * stay + p.wave_wait(batch) * w,
                ..steady.parts
            },
            wait: Wait::FirstWave {
                share: w,
                step: p.step_interval(),
                prompts: p.prompts_per_step,
                seqs: p.wave_seqs(batch),
                mean: self.wait,
                utilisation: self.seen_utilisation,
            },
        }
    }
}

/// A request's cycle apart from its wait in front of the prefill steps: its prefill
/// step, the exposed KV transfer and its `OSL` decode steps (`A` of [`fixed_point`]).
fn cycle_away(p: &PrefillSide, d: &DecodeSide, t: &KvTransfer, osl: f64) -> Seconds {
    p.step + t.exposed + d.step * osl
}

/// The rate `x` below the prefill pool's `r` at which `x = B / (A + W(x))`, `A` the
/// cycle away from the prefill queue (`t_pf + t_x + OSL TPOT`) and `W(x) = k x t_pf /
/// (2 (1 - k x))` the M/D/1 wait at the utilisation a request finds, `k = (B - 1) /
/// (B r)` ([`prefill_queue`] of [`seen_on_arrival`]). Clearing `1 - k x` leaves the
/// quadratic `k (t_pf - 2A) x^2 + 2 (A + B k) x - 2B = 0`, negative at 0 and
/// `t_pf / k`, not negative, at `1 / k`; its smaller root, the one below `1 / k`,
/// written without cancellation, is
///
/// ```text
/// x = 2B / ((A + B k) + sqrt((A - B k)^2 + 2 B k t_pf))
/// ```
///
/// (`audit/MODEL.md` 6.3; one sequence, `k = 0`, gives `B / A`). Where the wait's
/// utilisation would pass the 0.999 at which [`prefill_queue`] holds it, the wait is
/// that constant and `x = B / (A + W_max)`.
fn fixed_point(b: f64, away: Seconds, step: Seconds, prefill_rate: f64) -> f64 {
    let (a, t) = (away.0, step.0);
    let k = (b - 1.0).max(0.0) / (b * prefill_rate);
    let x = 2.0 * b / ((a + b * k) + ((a - b * k).powi(2) + 2.0 * b * k * t).sqrt());
    if k * x <= 0.999 {
        x
    } else {
        b / (a + prefill_queue(0.999, step).0)
    }
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
    let osl = setup.workload.osl as f64;
    let flow = ClosedLoop::of(&p, &d, &t, batch, osl);
    let rate = figures.output_tok_s.per_request(osl);
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
        ttft: flow.ttft(&p, &d, &t, batch, osl, setup.workload.first_wave(batch)),
        // The decode pool never prefills: nothing interrupts a request's generation.
        tpot: super::tpot::Tpot::steady(d.step),
        fits: reasons.is_empty(),
        reason: (!reasons.is_empty()).then(|| reasons.join("; ")),
        warnings,
    })
}

mod explain;
pub(crate) use explain::explain;

#[cfg(test)]
mod tests {
    use super::*;

    /// The closed form is the fixed point `x = B / (A + W(x))` it claims, the one below
    /// the prefill pool's rate, and the root a bisection of that equation finds.
    #[test]
    fn the_loops_rate_is_the_fixed_point_of_its_cycle() {
        let mut compared = 0;
        for b in [1.0, 2.0, 9.0, 64.0, 4301.0] {
            for a in [0.02, 0.5, 40.0] {
                for t in [0.001, 0.05, 2.0] {
                    for r in [0.5, 20.0, 900.0] {
                        let (away, step) = (Seconds(a + t), Seconds(t));
                        let w = |x: f64| prefill_queue(seen_on_arrival(x / r, b), step).0;
                        let x = fixed_point(b, away, step, r);
                        let what = format!("B {b}, A {a}, t {t}, r {r}: x {x}");
                        assert!(x > 0.0 && x.is_finite(), "{what}");
                        let cycle = b / (away.0 + w(x));
                        assert!((x - cycle).abs() <= 1e-9 * x, "{what}: {cycle}");
                        // The engine asks only where the root lies below the prefill
                        // pool's rate (the decode pool's rate at that cap falls short).
                        if x >= r {
                            continue;
                        }
                        compared += 1;
                        // Bisection of x - B / (A + W(x)), which rises with x, on (0, r).
                        let (mut lo, mut hi) = (0.0, r);
                        for _ in 0..200 {
                            let mid = 0.5 * (lo + hi);
                            if mid < b / (away.0 + w(mid)) {
                                lo = mid;
                            } else {
                                hi = mid;
                            }
                        }
                        assert!((x - hi).abs() <= 1e-9 * x, "{what}: bisection {hi}");
                    }
                }
            }
        }
        assert!(compared >= 60, "{compared}");
    }
}
