//! The attention/expert deployment opened into its chains (`audit/MODEL.md` section
//! 6.4): one pass through both pools as a chain, and the round over them with each
//! pool's operator tables.

use super::{
    exchange_time, experts_step, moe_attention_step, moe_layers, require_moe, sides, timings,
    AttentionSide, ExpertSide,
};
use crate::disagg::explain::AxisChains;
use crate::disagg::{PoolConfig, PoolRole, Setup};
use crate::error::Result;
use crate::explain::{host_work, max, num, product, sum, var, Chain, Source};
use crate::kernel::{operator_table, StepShape};
use crate::units::Seconds;

/// One pass through the split model as a chain ([`pass`] plus the step's host work):
/// `L × max(t_a + t_f + 2 t_c, m × max(t_a, t_f, t_c)) + t_dense + t_step + s × t_seq`,
/// or the longer of the pass and the host work where the engine overlaps them
/// (`audit/MODEL.md` 3.5).
#[allow(clippy::too_many_arguments)]
fn pass_chain(
    setup: &Setup,
    symbol: &str,
    quantity: &str,
    micro_batches: u32,
    attention: &AttentionSide,
    experts: &ExpertSide,
    exchange: Seconds,
    seqs: f64,
    value: Seconds,
) -> Chain {
    // The host costs the pass paid: the attention pool's, as its placement resolved them.
    let a = &attention.placement.assumptions;
    let (ta, tf, tc) = (var("t_a"), var("t_f"), var("t_c"));
    let device = [
        product([
            max([
                sum([ta.clone(), tf.clone(), product([num(2.0), tc.clone()])]),
                product([var("m"), max([ta, tf, tc])]),
            ]),
            var("L"),
        ]),
        var("t_dense"),
    ];
    // The engine step's host work in series with the pass, or beside it (MODEL.md 3.5).
    let formula = if a.overlaps_host() {
        max([sum(device), sum(host_work())])
    } else {
        let [step, per_seq] = host_work();
        let [pass, dense] = device;
        sum([pass, dense, step, per_seq])
    };
    Chain::new(quantity, symbol, "s", "6.4", formula, value.value())
    .input("L", "MoE layers", moe_layers(setup.model), "layers", Source::model("layers with routed experts"))
    .input("m", "micro-batches in flight", micro_batches.max(1) as f64, "micro-batches", Source::deployment("micro-batches"))
    .input("t_a", "one MoE layer's attention for one micro-batch on the attention pool", attention.per_layer.value(), "s", Source::rule("the attention pool's step over its MoE layers / layers: see its operator table"))
    .input("t_f", "one MoE layer's experts for one micro-batch on the expert pool", experts.per_layer.value(), "s", Source::rule("the expert pool's step / layers: see its operator table"))
    .input("t_c", "one direction of one MoE layer's exchange", exchange.value(), "s", Source::rule("tokens x chips each token reaches x hidden x activation bytes / (bw x link_eff x lanes) + latency"))
    .input("t_dense", "dense layers and the LM head on the attention pool", attention.dense.value(), "s", Source::rule("the attention pool's dense part: see its operator table"))
    .with_host_work(a, attention.placement.chip, seqs)
}

/// The deployment's figures opened: the attention pool's round over decode passes
/// and prefill passes through both pools.
pub(crate) fn explain(
    setup: &Setup,
    attention: PoolConfig,
    experts: PoolConfig,
    micro_batches: u32,
    batch: u32,
) -> Result<AxisChains> {
    require_moe(setup.model)?;
    let s = sides(setup, attention, experts, micro_batches, batch).map_err(|_| {
        crate::disagg::layout_error(setup, setup.model, PoolRole::Attention, attention)
    })?;
    let t = timings(setup, attention, experts, micro_batches, batch, &s);
    let prefill = t.round.prefill.map(|p| {
        let prompt_tokens = s.prompts_per_prefill * setup.workload.computed_prompt();
        pass_chain(
            setup,
            "t_pf",
            "one prefill pass through both pools (one micro-batch)",
            1,
            &s.prefill_attention,
            &s.prefill_experts,
            exchange_time(setup, attention, experts, prompt_tokens),
            s.prompts_per_prefill,
            p.step,
        )
    });
    let iteration = pass_chain(
        setup,
        "t_it",
        "one decode pass through both pools",
        micro_batches,
        &s.attention,
        &s.experts,
        t.exchange,
        s.attention.seqs_per_replica,
        t.round.iteration,
    );
    let ctx = setup.workload.mean_decode_context();
    let decode = |n: f64| StepShape::decode(n, ctx);
    let prefill_shape = |n: f64| setup.workload.prefill_shape(n);
    let chains = t.round.explain(
        batch,
        setup.workload.isl,
        attention.parallelism.pp,
        iteration,
        prefill,
    );
    let tables = |side_a: &AttentionSide,
                  side_e: &ExpertSide,
                  n: u32,
                  m: u32,
                  shape: &dyn Fn(f64) -> StepShape,
                  phase| {
        let a_cost = moe_attention_step(&side_a.placement, side_a.seqs_per_replica, m, shape);
        let e_cost = experts_step(&side_e.placement, n, m, shape);
        (
            operator_table(&side_a.placement, &a_cost, phase),
            operator_table(&side_e.placement, &e_cost, phase),
        )
    };
    let (a_dec, e_dec) = tables(
        &s.attention,
        &s.experts,
        batch,
        micro_batches,
        &decode,
        "decode step, one micro-batch",
    );
    let (a_pf, e_pf) = tables(
        &s.prefill_attention,
        &s.prefill_experts,
        s.prompts_per_prefill.ceil() as u32,
        1,
        &prefill_shape,
        "prefill pass",
    );
    Ok(AxisChains::of_round(
        chains,
        vec![
            (PoolRole::Attention, vec![a_dec, a_pf]),
            (PoolRole::Experts, vec![e_dec, e_pf]),
        ],
    ))
}
