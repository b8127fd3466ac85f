//! The aggregated baseline: prefill and decode colocated on one pool under continuous
//! batching, the deployment every split is measured against. Its one side is the
//! colocated pool at a batch; its figures are the pool's [`Round`].

use super::explain::AxisChains;
use super::finite_run;
use super::round::{GroupPrefill, Round, RoundPrefill};
use super::ttft::admission_wait;
use super::{
    place, pool_label, Core, DeploymentPoint, Figures, Limiter, Placed, PoolConfig, PoolReport,
    PoolRole, Reject, Setup, StepCosts,
};
use crate::cost::{self, PoolLoad};
use crate::error::Result;
use crate::kernel::{operator_table, step_chain, step_cost, StepCost};
use crate::units::{Bytes, Seconds};
use crate::workload::Workload;

/// The colocated pool running `running` sequences.
#[derive(Clone, Copy, Debug)]
pub struct ColocatedSide<'a> {
    pub(crate) placed: Placed<'a>,
    pub decode: StepCost,
    pub prefill: StepCost,
    pub round: Round,
    /// The decode step with one sequence, which a finite run's drain approaches at its
    /// end ([`super::finite_run`]; zero where the workload states no run).
    pub lone_step: Seconds,
}

impl ColocatedSide<'_> {
    /// Time a finite run loses while a replica's batch drains at its end, `running`
    /// sequences over the deployment (zero where the workload states no run).
    fn drain(&self, w: &Workload, running: u32) -> Seconds {
        finite_run::replica_drain(
            w,
            self.lone_step,
            self.decode.total,
            self.round.seqs,
            running as f64,
        )
    }
}

/// Places the model on `pool` for `running` sequences and costs its round.
pub fn side<'a>(
    setup: &Setup<'a>,
    pool: PoolConfig<'a>,
    running: u32,
) -> std::result::Result<ColocatedSide<'a>, Reject> {
    let w = setup.workload;
    let a = &setup.assumptions.on_chip(pool.chip);
    let par = pool.parallelism;
    let seqs = par.seqs_per_replica(running);
    let placed = place(setup, setup.model, pool, w.max_context(), seqs, Bytes::ZERO)?;
    let decode = step_cost(&placed.placement, w.decode_shape(par, seqs));
    let prompts = w.prompts_per_chunk(
        setup.assumptions.prefill_chunk_per_replica(pool.chip, par),
        seqs,
    );
    let group = GroupPrefill::of_round(
        seqs / prompts,
        w.osl as f64,
        par.replicas_per_expert_group(),
        a.aligned_group_prefill,
    );
    let prefill = step_cost(
        &placed.placement,
        w.prefill_shape(prompts).from_replicas(group.replicas),
    );
    let round = Round {
        iteration: decode.total,
        tokens_per_iteration: 1.0,
        seqs,
        osl: w.osl as f64,
        prefill: Some(RoundPrefill::of(prefill.total, prompts, seqs, par, &group)),
        scheduling: a.scheduling,
        first_wave: w.first_wave(running),
        admission: admission_wait(a.scheduler_recv_interval, decode.total, seqs),
    };
    // A finite run's batch drains at its end; its last steps run nearly alone.
    let lone_step = match w.finite_run {
        Some(_) => step_cost(&placed.placement, w.decode_shape(par, 1.0)).total,
        None => Seconds::ZERO,
    };
    Ok(ColocatedSide {
        placed,
        decode,
        prefill,
        round,
        lone_step,
    })
}

/// The deployment's figures from its one side.
pub fn combine(setup: &Setup, pool: PoolConfig, running: u32, s: &ColocatedSide) -> Figures {
    let steady = s.round.output_tok_s(running);
    let output_tok_s =
        finite_run::run_rate(&setup.workload, steady, s.drain(&setup.workload, running));
    // The drain stretches the run for input and output alike.
    let stretch = output_tok_s / steady;
    let (ttft_p90, tpot_p90) = s.round.p90s();
    Figures::new(
        Core {
            batch: running,
            running,
            ttft: s.round.ttft(),
            tpot: s.round.tpot(),
            ttft_p90,
            tpot_p90,
            output_tok_s,
            input_tok_s: s.round.input_tok_s(running, setup.workload.isl) * stretch,
            transfer: Seconds::ZERO,
            bottleneck: s.decode.time_breakdown().bottleneck(),
            limiter: Limiter::Colocated,
            prefill_share: s.round.prefill_share(),
        },
        &[PoolLoad {
            chip: pool.chip,
            chips: pool.chips(),
            // The colocated pool steps without pause.
            utilisation: cost::utilisation(1.0, &s.decode.time_breakdown()),
        }],
        &setup.assumptions.cost,
    )
}

pub fn evaluate(setup: &Setup, pool: PoolConfig, running: u32) -> Result<DeploymentPoint> {
    let s = side(setup, pool, running)
        .map_err(|_| super::layout_error(setup, setup.model, PoolRole::Colocated, pool))?;
    let figures = combine(setup, pool, running, &s);
    let mut warnings = Vec::new();
    if s.placed.placement.cold_weight_fraction > 0.0 {
        warnings.push(format!(
            "{:.0}% of the weights spill to the cold memory tier",
            s.placed.placement.cold_weight_fraction * 100.0
        ));
    }
    if let Some(run) = setup.workload.finite_run {
        let steady = s.round.output_tok_s(running);
        warnings.push(format!(
            "a finite run of {} requests, read to its last request's end: its last batch \
             drains for {:.1} s, so its token rates are {:.1}% of the steady loop's",
            run.requests,
            s.drain(&setup.workload, running).value(),
            figures.output_tok_s / steady * 100.0
        ));
    }
    let time = s.decode.time_breakdown();
    Ok(DeploymentPoint {
        axis: super::Axis::Aggregated,
        heterogeneous: false,
        label: pool_label(PoolRole::Colocated, pool.chip, pool.parallelism),
        pools: vec![PoolReport {
            role: PoolRole::Colocated,
            chip: pool.chip.id.clone(),
            chip_name: pool.chip.name.clone(),
            chips: pool.chips(),
            parallelism: pool.parallelism,
            seqs_per_replica: s.round.seqs,
            max_seqs_per_replica: s.placed.plan.max_seqs(),
            step: s.decode.total,
            utilisation: 1.0,
            input_tok_s_per_chip: figures.input_tok_s_per_chip,
            output_tok_s_per_chip: figures.output_tok_s_per_chip,
            memory: s.placed.usage,
            time,
            bottleneck: time.bottleneck(),
            operators: Vec::new(),
            costs: StepCosts {
                generation: Some(s.decode),
                prefill: Some(s.prefill),
                prompts_per_prefill: s.round.prefill.map_or(0.0, |p| p.prompts_per_step),
            },
        }],
        transfer_time: Seconds::ZERO,
        ttft: s.round.ttft_model(),
        tpot: s.round.tpot_model(),
        fits: s.placed.fit.is_none(),
        reason: s.placed.reason(PoolRole::Colocated),
        warnings,
        figures,
    })
}

/// The colocated pool's figures opened: its round over its decode and prefill steps.
pub(crate) fn explain(setup: &Setup, pool: PoolConfig, running: u32) -> Result<AxisChains> {
    let s = side(setup, pool, running)
        .map_err(|_| super::layout_error(setup, setup.model, PoolRole::Colocated, pool))?;
    let p = &s.placed.placement;
    let mut chains = s.round.explain(
        running,
        setup.workload.isl,
        pool.parallelism.pp,
        step_chain(p, &s.decode, "t_it", "decode step"),
        Some(step_chain(p, &s.prefill, "t_pf", "prefill step")),
    );
    // A finite run's rates are its steady loop's stretched by the drain.
    let w = &setup.workload;
    if let Some(drain) =
        finite_run::drain_chain(w, s.lone_step, s.decode.total, s.round.seqs, running as f64)
    {
        let f = combine(setup, pool, running, &s);
        let steady = s.round.output_tok_s(running).value();
        chains.output = finite_run::run_rate_chain(
            w,
            chains.output,
            steady,
            drain.clone(),
            f.output_tok_s.value(),
        );
        chains.input =
            finite_run::run_rate_chain(w, chains.input, steady, drain, f.input_tok_s.value());
    }
    Ok(AxisChains::of_round(
        chains,
        vec![(
            PoolRole::Colocated,
            vec![
                operator_table(p, &s.decode, "decode step"),
                operator_table(p, &s.prefill, "prefill step"),
            ],
        )],
    ))
}
