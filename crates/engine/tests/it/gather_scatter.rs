//! The expert exchange as an all-gather of every replica's tokens and a reduce-scatter of
//! the experts' outputs (`audit/MODEL.md` 3.7.1): its closed form inside one node and
//! across nodes, how it compares with the all-to-all, and where a step pays it.

use super::common::*;
use disagg_engine::assumptions::ExpertExchange;
use disagg_engine::kernel::{
    expert_all_to_all, expert_gather_scatter, expert_load_imbalance, step_cost, AllToAllWidths,
    ExpertTraffic, OpKind, Placement, StepShape,
};

const WIDTHS: AllToAllWidths = AllToAllWidths {
    dispatch: 1.0,
    combine: 2.0,
};
const EFF: f64 = 0.75;

fn traffic(tokens: f64, top_k: f64, hidden: f64) -> ExpertTraffic {
    ExpertTraffic {
        tokens,
        top_k,
        hidden,
        widths: WIDTHS,
    }
}

#[test]
fn inside_one_node_each_chip_receives_every_other_replicas_tokens_by_ring() {
    let h200 = cat().chip("h200").unwrap();
    let link = h200.link_for_group(8);
    let (tokens, h) = (4096.0, 4096.0);
    let (bytes, time) = expert_gather_scatter(h200, 8, traffic(tokens, 8.0, h), EFF);
    // By hand: 7 other replicas' tokens at 1 byte in, their 7 partial outputs at 2 bytes
    // summed back; 7 ring hops per phase.
    let by_hand = tokens * 7.0 * h * 3.0;
    assert_eq!(bytes.value(), by_hand);
    let t = by_hand / (link.bandwidth.value() * EFF) + 14.0 * link.latency.value();
    assert!((time.value() - t).abs() < 1e-15, "{} vs {t}", time.value());
    // One chip, or no tokens, exchanges nothing.
    for (group, tokens) in [(1, 4096.0), (8, 0.0)] {
        let (b, t) = expert_gather_scatter(h200, group, traffic(tokens, 8.0, h), EFF);
        assert_eq!((b.value(), t.value()), (0.0, 0.0));
    }
}

#[test]
fn the_gather_ignores_the_picks_and_equals_the_all_to_all_at_one_pick_per_chip() {
    let h200 = cat().chip("h200").unwrap();
    let (tokens, h) = (512.0, 7168.0);
    let gather = |k: f64| expert_gather_scatter(h200, 8, traffic(tokens, k, h), EFF).0;
    let all_to_all = |k: f64| expert_all_to_all(h200, 8, traffic(tokens, k, h), EFF, None).0;
    // However many experts a token picks, every chip sees every token.
    assert_eq!(gather(1.0), gather(8.0));
    // At k = g the all-to-all's k (g - 1) / g picks out equal the gather's g - 1 tokens
    // in; below it the gather moves g / k times more, above it less.
    assert!((gather(8.0).value() / all_to_all(8.0).value() - 1.0).abs() < 1e-12);
    assert!((gather(1.0).value() / all_to_all(1.0).value() - 8.0).abs() < 1e-12);
    let g2 = |k: f64| {
        expert_gather_scatter(h200, 2, traffic(tokens, k, h), EFF)
            .0
            .value()
            / expert_all_to_all(h200, 2, traffic(tokens, k, h), EFF, None)
                .0
                .value()
    };
    assert!((g2(8.0) - 0.25).abs() < 1e-12, "{}", g2(8.0));
}

#[test]
fn across_nodes_the_remote_tokens_cross_the_network_and_the_slower_link_sets_the_time() {
    let h100 = cat().chip("h100-sxm").unwrap();
    assert_eq!(h100.whole_domains(16), Some(2));
    let (up, out) = (h100.link_for_group(8), h100.network_link());
    let (tokens, h) = (1024.0, 7168.0);
    let (bytes, time) = expert_gather_scatter(h100, 16, traffic(tokens, 8.0, h), EFF);
    // 7 tokens per own token over NVLink, 8 over the network, at 3 bytes an element.
    let (up_bytes, out_bytes) = (tokens * 7.0 * h * 3.0, tokens * 8.0 * h * 3.0);
    assert_eq!(bytes.value(), up_bytes + out_bytes);
    let t = (up_bytes / (up.bandwidth.value() * EFF))
        .max(out_bytes / (out.bandwidth.value() * EFF))
        + 30.0 * up.latency.value().max(out.latency.value());
    assert!((time.value() - t).abs() < 1e-15, "{} vs {t}", time.value());
}

fn on_h200(model: &str, par: Parallelism, exchange: ExpertExchange) -> Placement<'static> {
    let a = Assumptions {
        expert_exchange: exchange,
        ..Assumptions::default()
    };
    placed(
        model,
        cat().chip("h200").unwrap(),
        par,
        DType::Fp8,
        DType::Fp8,
        a,
    )
}

#[test]
fn a_step_pays_the_gather_only_where_replicas_share_an_expert_group() {
    let shape = StepShape::decode(64.0, 2048.0);
    let exchange = |model: &str, par: Parallelism, e: ExpertExchange| {
        *step_cost(&on_h200(model, par, e), shape).op(OpKind::EpComm)
    };
    let (a2a, gs) = (ExpertExchange::AllToAll, ExpertExchange::GatherScatter);
    // Llama 4 Maverick picks one expert: the gather brings eight times the bytes of
    // its all-to-all's picks, which carry the busiest rank's load besides (512 picks
    // over 8 ranks) where every chip gathers every token whatever the routing.
    let maverick = |e| exchange("llama-4-maverick", dp_ep(8, 8), e);
    let busiest = expert_load_imbalance(64.0 * 8.0, 8, Assumptions::default().expert_skew);
    let ratio = maverick(gs).bytes.value() / maverick(a2a).bytes.value();
    assert!(
        (ratio - 8.0 / busiest).abs() < 1e-12,
        "{ratio} vs 8 / {busiest}"
    );
    // Its time is the NCCL ring's, without the all-to-all kernels' measured floor
    // (TensorRT-LLM's framework default on this chip): transfer plus 14 hops a layer.
    let moe_layers = |model: &str| -> u32 {
        let ir = &cat().model(model).unwrap().ir;
        ir.groups
            .iter()
            .filter(|g| g.ffn.is_moe())
            .map(|g| g.count)
            .sum()
    };
    let link = cat().chip("h200").unwrap().link_for_group(8);
    let ring = maverick(gs).bytes.value() / (link.bandwidth.value() * 0.75)
        + moe_layers("llama-4-maverick") as f64 * 14.0 * link.latency.value();
    assert!((maverick(gs).time.value() / ring - 1.0).abs() < 1e-12);
    // Qwen3-30B-A3B picks eight over two chips: the gather moves a quarter as much.
    let qwen = |e| exchange("qwen3-30b-a3b", dp_ep(2, 2), e);
    assert!(qwen(gs).bytes.value() < 0.3 * qwen(a2a).bytes.value());
    // Its bytes by hand: per MoE layer, 64 tokens x 1 other replica x hidden 2,048 x 3.
    let layers = moe_layers("qwen3-30b-a3b");
    assert_eq!(
        (layers, cat().model("qwen3-30b-a3b").unwrap().ir.hidden),
        (48, 2048)
    );
    let by_hand = layers as f64 * 64.0 * 2048.0 * 3.0;
    assert!(
        (qwen(gs).bytes.value() / by_hand - 1.0).abs() < 1e-12,
        "{:e} vs {by_hand:e}",
        qwen(gs).bytes.value()
    );
    // Tensor-parallel experts (one replica) exchange nothing either way, to the bit.
    let tp_step = |e| step_cost(&on_h200("llama-4-maverick", tp(8), e), shape).total;
    assert_eq!(tp_step(a2a), tp_step(gs));
}

#[test]
fn the_perf_overview_rows_without_an_all_to_all_state_the_gather() {
    // TensorRT-LLM 1.0's CUTLASS MoE turned its all-to-all on only where the expert
    // group outnumbers a token's picks on a multi-node NVLink system; the Qwen3 rows (8
    // picks, at most 8 ranks) and the PCIe RTX PRO 6000 rows never had it.
    for id in ["TRT-10", "TRTB18", "TRTB20", "TRTB32", "TRTB36", "TRTB43"] {
        let p = published_point(id);
        assert_eq!(
            p.expert_exchange,
            Some(ExpertExchange::GatherScatter),
            "{id}"
        );
        let a = p.assumptions(&Assumptions::default());
        assert_eq!(a.expert_exchange, ExpertExchange::GatherScatter, "{id}");
    }
    // The Maverick rows on NVLink machines are left to the default: whether that
    // version's all-to-all ran there is not settled (AUDIT).
    for id in ["TRT-12", "TRTB37", "TRTB40"] {
        assert_eq!(published_point(id).expert_exchange, None, "{id}");
    }
}
