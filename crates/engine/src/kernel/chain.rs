//! A step's time as an explain chain: its operators' roofline times, the communication
//! overlap leaves exposed, and the fixed overheads (`audit/MODEL.md` section 3). The
//! operators' own rows are the operator table ([`super::operator_table`]).

use super::step::host_passes;
use super::{OpKind, Placement, StepCost};
use crate::dtype::WeightFormat;
use crate::explain::{diff, host_work, max, min, num, product, sum, var, Chain, Expr, Source};
use crate::serving::Framework;

/// The symbol of an operator kind's time in a step's formula.
fn symbol(kind: OpKind) -> &'static str {
    match kind {
        OpKind::AttnProj => "t_attn_proj",
        OpKind::AttnCore => "t_attn_core",
        OpKind::DenseFfn => "t_ffn",
        OpKind::SharedExperts => "t_shared",
        OpKind::RoutedExperts => "t_routed",
        OpKind::LmHead => "t_head",
        OpKind::TpComm => "t_tp",
        OpKind::EpComm => "t_ep",
        OpKind::PpComm => "t_pp",
    }
}

const ROOFLINE: &str = "both roofline bounds over its layers, sqrt(compute^2 + memory^2) each with compute FLOPs x waves / (peak x MFU) and memory bytes / (bandwidth x bw_eff) (MODEL.md 3), waves the dense matmuls' partial last wave of tiles on a chip with an SM count (MODEL.md 3.4), else 1: the operator table";

/// `cost`, a step of `p`, as the chain of `symbol` ("t_dec") named `quantity`.
pub fn step_chain(p: &Placement, cost: &StepCost, symbol_of_step: &str, quantity: &str) -> Chain {
    let busy_ops: Vec<OpKind> = OpKind::ALL
        .into_iter()
        .filter(|k| !k.is_communication() && cost.op(*k).time.value() > 0.0)
        .collect();
    let comm: f64 = OpKind::ALL
        .into_iter()
        .filter(|k| k.is_communication())
        .map(|k| cost.op(k).time.value())
        .sum();
    let mut terms: Vec<_> = busy_ops.iter().map(|k| var(symbol(*k))).collect();
    if comm > 0.0 {
        terms.push(var("t_comm"));
    }
    // The host work in series with the device's, or beside it (MODEL.md 3.5); an eager
    // prompt step's device waits for its Python launches where they are longer (3.6).
    let overlapped = p.assumptions.overlaps_host();
    let eager = cost.eager_launches.value() > 0.0;
    let work = if overlapped || eager {
        terms.push(var("t_launch"));
        let device = if eager {
            max([sum(terms), var("t_eager")])
        } else {
            sum(terms)
        };
        if overlapped {
            max([device, var("t_host")])
        } else {
            sum([device, var("t_host")])
        }
    } else {
        terms.push(var("t_ovh"));
        sum(terms)
    };
    // Then any wait for weights streamed in from the cold tier.
    let stalls = cost.prefetch_stall.value() > 0.0;
    let formula = if stalls {
        sum([work, var("t_wait")])
    } else {
        work
    };
    let mut chain = Chain::new(
        quantity,
        symbol_of_step,
        "s",
        "3",
        formula,
        cost.total.value(),
    );
    let factors = kernel_factors(p);
    let in_format = |w: WeightFormat| {
        format!(
            "{} ({} bits each)",
            w.dtype.name(),
            crate::explain::significant(w.bytes_per_weight() * 8.0)
        )
    };
    for k in &busy_ops {
        // Name the format whose bytes and rate the operator's roofline takes.
        let rule = match p.weight_format(*k) {
            // The output projection in its own format: both parts named.
            Some(w) if *k == OpKind::AttnProj && p.weights.attn_out != w => format!(
                "{ROOFLINE}; weights in {}, the output projection's in {}{factors}",
                in_format(w),
                in_format(p.weights.attn_out)
            ),
            Some(w) => format!("{ROOFLINE}; weights in {}{factors}", in_format(w)),
            None => format!("{ROOFLINE}{factors}"),
        };
        let rule = match *k {
            OpKind::RoutedExperts => format!("{rule}{}", pick_time(p)),
            _ => rule,
        };
        chain = chain.input(
            symbol(*k),
            k.name(),
            cost.op(*k).time.value(),
            "s",
            Source::rule(rule),
        );
    }
    if comm > 0.0 {
        let exposed = match cost.two_batch {
            Some(tbo) => two_batch_chain(cost, comm, &tbo),
            None => exposed_chain(p, cost, comm),
        };
        chain = chain.derived("communication left exposed after overlap", exposed);
    }
    if overlapped || eager {
        chain = chain.derived("kernel launches", launch_chain(p, cost));
    }
    if eager {
        chain = chain.derived(
            "kernel launches from Python in a prompt step run without CUDA graphs",
            eager_chain(p, cost),
        );
    }
    chain = if overlapped {
        chain.derived(
            "host work, beside the device's: the engine prepares the next step while this one runs",
            host_chain(p, cost),
        )
    } else if eager {
        chain.derived(
            "host work, in series with the device's",
            host_chain(p, cost),
        )
    } else {
        chain.derived("kernel launches and host work", overhead_chain(p, cost))
    };
    if stalls {
        let work = cost.total - cost.prefetch_stall;
        chain = chain.derived(
            "wait for offloaded weights",
            Chain::new(
                "wait for offloaded weights",
                "t_wait",
                "s",
                "3",
                max([num(0.0), diff(var("t_pf"), var("T_work"))]),
                cost.prefetch_stall.value(),
            )
            .input(
                "t_pf",
                "stream of the offloaded weights from the cold tier",
                cost.prefetch.value(),
                "s",
                Source::rule("the offloaded share (weight_offload, or what does not fit if more) of the weights the step reads, at the cold tier's bandwidth x bw_eff, copied ahead beside the whole step"),
            )
            .input(
                "T_work",
                "the step without the wait",
                work.value(),
                "s",
                Source::rule("operators, exposed communication and overheads above"),
            ),
        );
    }
    chain
}

/// `t_comm = C - min(C x overlap, T_busy)`: communication hidden as `comm_overlap` says.
fn exposed_chain(p: &Placement, cost: &StepCost, comm: f64) -> Chain {
    let comm_ops = OpKind::ALL.into_iter().filter(|k| k.is_communication());
    Chain::new(
        "communication left exposed after overlap",
        "t_comm",
        "s",
        "3",
        diff(var("C"), min([product([var("C"), var("overlap")]), var("T_busy")])),
        cost.exposed_comm.value(),
    )
    .input(
        "C",
        &comm_ops.map(|k| k.name()).collect::<Vec<_>>().join(", "),
        comm,
        "s",
        Source::rule("message bytes / (link bandwidth x link_eff) + hop latencies, an all-to-all phase at least its framework's kernel time (MODEL.md 3.7), or an all-gather and reduce-scatter by ring where expert_exchange says so (MODEL.md 3.7.1): see the operator table"),
    )
    .input(
        "overlap",
        "share of communication hidden under compute",
        p.assumptions.comm_overlap,
        "1",
        // The user's knob stops below 1; a whole overlap is a prefill pool's two
        // micro-batches (`disagg::prefill_decode`), its compute on 108 of 132 SMs.
        if super::two_batch_overlaps(&p.assumptions) {
            Source::rule("two-batch overlap (prefill_two_batch_overlap): one micro-batch's all-to-all under the other's computation, which runs on 108 of 132 SMs")
        } else {
            Source::assumption("comm_overlap")
        },
    )
    .input(
        "T_busy",
        "time of the compute and memory operators",
        cost.busy.value(),
        "s",
        Source::rule("sum of the operators above"),
    )
}

/// Two micro-batches overlapping their all-to-all (MODEL.md 6.3.1): each MoE layer takes
/// four windows, one micro-batch's computation beside the other's communication,
/// `L x (max(a + s, c) + max(a, d) + max(m, d) + max(m + s, c))`, and what the layers'
/// computation does not cover is exposed; other communication hides under the rest.
fn two_batch_chain(cost: &StepCost, comm: f64, tbo: &super::TwoBatchOverlap) -> Chain {
    let l = tbo.micro_batch_layer();
    let other = comm - tbo.communication().value();
    let rest = cost.busy.value() - tbo.busy().value();
    let windows = sum([
        max([sum([var("a"), var("s")]), var("c")]),
        max([var("a"), var("d")]),
        max([var("m"), var("d")]),
        max([sum([var("m"), var("s")]), var("c")]),
    ]);
    let rule = "the step's MoE layers' operator times over 2 x L (two alike micro-batches per layer): see the operator table";
    Chain::new(
        "communication left exposed after overlap",
        "t_comm",
        "s",
        "6.3.1",
        sum([
            diff(product([var("L"), windows]), var("T_moe")),
            diff(var("C_other"), min([var("C_other"), var("T_rest")])),
        ]),
        cost.exposed_comm.value(),
    )
    .input(
        "L",
        "MoE layers whose all-to-all the two micro-batches overlap",
        tbo.layers,
        "layers",
        Source::rule("two-batch overlap (prefill_two_batch_overlap), computation on 108 of 132 SMs; DeepSeek's day-6 prefill figure: attention of one micro-batch beside the other's combine, then dispatch, MLP beside dispatch, MLP beside combine"),
    )
    .input("a", "one micro-batch's attention in a layer", l.attention.value(), "s", Source::rule(rule))
    .input("s", "one micro-batch's shared experts in a layer", l.shared.value(), "s", Source::rule(rule))
    .input("m", "one micro-batch's routed experts in a layer", l.routed.value(), "s", Source::rule(rule))
    .input(
        "d",
        "one micro-batch's dispatch in a layer",
        l.dispatch.value(),
        "s",
        Source::rule("the layer's all-to-all split by bytes per element, dispatch (1 in FP8) to combine (the activation width)"),
    )
    .input(
        "c",
        "one micro-batch's combine in a layer",
        l.combine.value(),
        "s",
        Source::rule("the layer's all-to-all split by bytes per element, dispatch (1 in FP8) to combine (the activation width)"),
    )
    .input(
        "T_moe",
        "computation of the MoE layers (attention, shared and routed experts)",
        tbo.busy().value(),
        "s",
        Source::rule("sum of those operators over the MoE layers"),
    )
    .input(
        "C_other",
        "communication besides the MoE layers' all-to-all",
        other,
        "s",
        Source::rule("TP all-reduce and PP hand-off: see the operator table"),
    )
    .input(
        "T_rest",
        "computation outside the MoE layers",
        rest,
        "s",
        Source::rule("the step's operators less the MoE layers'"),
    )
}

/// The serving framework's kernel factors the roofline's rates carry, named with the
/// framework they come from (MODEL.md section 3.3); empty where there are none.
fn kernel_factors(p: &Placement) -> String {
    use crate::assumptions::{BW_EFF, MFU};
    let a = &p.assumptions;
    name_factors([
        ("MFU", a.kernel_factor(p.chip, MFU)),
        ("bw_eff", a.kernel_factor(p.chip, BW_EFF)),
    ])
}

/// The words for the routed experts' time per pick (MODEL.md 3.2.1), where their format
/// pays one: its value and where it comes from.
fn pick_time(p: &Placement) -> String {
    let Some(knob) = super::step::pick_time_knob(p.weights.experts.dtype) else {
        return String::new();
    };
    let t = super::step::routed_pick_time(p, 1.0);
    if t.value() == 0.0 {
        return String::new();
    }
    let whose = match p.assumptions.origin(p.chip, knob) {
        crate::assumptions::Origin::Framework(f) => format!("{f}'s on {}", p.chip.id),
        _ => "stated".to_string(),
    };
    format!(
        "; compute plus each pick x {}, {:.1} ns ({whose}; MODEL.md 3.2.1)",
        crate::assumptions::KNOBS[knob].name,
        t.value() * 1e9
    )
}

/// The words for [`kernel_factors`]: each rate's factor and its framework, if any.
fn name_factors(factors: [(&str, Option<(Framework, f64)>); 2]) -> String {
    let named: Vec<String> = factors
        .into_iter()
        .filter_map(|(what, factor)| {
            let (f, m) = factor?;
            Some(format!("{what} x {m} for {}'s kernels", f.name()))
        })
        .collect();
    if named.is_empty() {
        return String::new();
    }
    format!(
        "; the chip's {} (AUDIT, \"Serving frameworks\")",
        named.join(", ")
    )
}

/// `t_ovh = n_k x t_k + t_step + s x t_seq`, the host work `m` times over where a
/// pipelined step pays every micro-batch's (MODEL.md 3.5).
fn overhead_chain(p: &Placement, cost: &StepCost) -> Chain {
    let m = host_passes(p, cost.shape, cost.side);
    let launches = product([var("n_k"), var("t_k")]);
    let formula = sum(std::iter::once(launches).chain(host_terms(m)));
    let chain = with_launches(
        p,
        cost,
        Chain::new(
            "kernel launches and host work",
            "t_ovh",
            "s",
            "3",
            formula,
            cost.overhead.value(),
        ),
    )
    .with_host_work(&p.assumptions, p.chip, cost.shape.seqs);
    with_micro_batches(chain, m)
}

/// The step's host work as terms of a sum: `t_step + s x t_seq`, or `m x (t_step + s x
/// t_seq)` where a pipelined step pays `m` micro-batches' (`t_ovh` and `t_host` share it).
fn host_terms(m: f64) -> Vec<Expr> {
    if m > 1.0 {
        vec![product([var("m"), sum(host_work())])]
    } else {
        host_work().to_vec()
    }
}

/// `chain` with the input `m`, the micro-batches whose host work a pipelined step
/// pays, where it is more than one.
fn with_micro_batches(chain: Chain, m: f64) -> Chain {
    if m > 1.0 {
        chain.input(
            "m",
            "micro-batches in flight, each a loop iteration's host work on every rank",
            m,
            "micro-batches",
            Source::rule("pipeline stages, where the framework's loop runs one iteration per micro-batch (MODEL.md 3.5)"),
        )
    } else {
        chain
    }
}

/// `t_launch = n_k x t_k`, the device's part of the overheads.
fn launch_chain(p: &Placement, cost: &StepCost) -> Chain {
    with_launches(
        p,
        cost,
        Chain::new(
            "kernel launches",
            "t_launch",
            "s",
            "3",
            product([var("n_k"), var("t_k")]),
            (p.rates.kernel_overhead * cost.kernels).value(),
        ),
    )
}

/// `t_eager = n_k x t_ek`, an eager prompt step's launches from Python (MODEL.md 3.6).
fn eager_chain(p: &Placement, cost: &StepCost) -> Chain {
    with_kernel_count(
        cost,
        Chain::new(
            "kernel launches from Python in a prompt step run without CUDA graphs",
            "t_eager",
            "s",
            "3.6",
            product([var("n_k"), var("t_ek")]),
            cost.eager_launches.value(),
        ),
    )
    .input(
        "t_ek",
        "host cost of one kernel launched from Python",
        p.assumptions.eager_kernel_overhead.value(),
        "s",
        Source::pool_knob(&p.assumptions, p.chip, "eager_kernel_overhead"),
    )
}

/// `chain` with the input `n_k`, the kernels the step launches.
fn with_kernel_count(cost: &StepCost, chain: Chain) -> Chain {
    chain.input(
        "n_k",
        "kernels the step launches",
        cost.kernels,
        "kernels",
        Source::rule("kernels per layer and operator of a fused implementation, times the layers"),
    )
}

/// `t_host = t_step + s x t_seq`, the step's host work (`m` times over where a
/// pipelined step pays every micro-batch's).
fn host_chain(p: &Placement, cost: &StepCost) -> Chain {
    let m = host_passes(p, cost.shape, cost.side);
    let chain = Chain::new(
        "host work of the step",
        "t_host",
        "s",
        "3.5",
        sum(host_terms(m)),
        cost.host.value(),
    )
    .with_host_work(&p.assumptions, p.chip, cost.shape.seqs);
    with_micro_batches(chain, m)
}

/// The inputs `n_k` and `t_k` of a chain that counts the step's kernel launches.
fn with_launches(p: &Placement, cost: &StepCost, chain: Chain) -> Chain {
    with_kernel_count(cost, chain).input(
        "t_k",
        "fixed cost of one kernel",
        p.rates.kernel_overhead.value(),
        "s",
        Source::pool_knob(&p.assumptions, p.chip, "kernel_overhead"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kernel_factor_is_named_with_its_framework_and_none_says_nothing() {
        let both = name_factors([
            ("MFU", Some((Framework::LlamaCpp, 0.85))),
            ("bw_eff", Some((Framework::Vllm, 1.1))),
        ]);
        assert!(
            both.contains("MFU x 0.85 for llama.cpp's kernels")
                && both.contains("bw_eff x 1.1 for vLLM's kernels")
                && both.contains("Serving frameworks"),
            "{both}"
        );
        let one = name_factors([("MFU", None), ("bw_eff", Some((Framework::Sglang, 1.1)))]);
        assert!(!one.contains("MFU") && one.contains("SGLang"), "{one}");
        assert_eq!(name_factors([("MFU", None), ("bw_eff", None)]), "");
    }
}
