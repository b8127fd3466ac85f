//! The topology of a deployment: its links' busy shares checked against the
//! closed forms of MODEL.md 6.9, and the busiest link marked.

use crate::common::*;
use crate::disagg::{chip, dp, setup, tp};
use disagg_engine::disagg::explain::explain;
use disagg_engine::disagg::topology::{topology, LinkClass, LinkEnds, Traffic};
use disagg_engine::disagg::Limiter;
use disagg_engine::kernel::OpKind;

#[test]
fn one_chip_has_no_links_and_a_tensor_parallel_pool_its_scale_up_fabric() {
    let s = setup("llama-3.1-8b", 1024, 256);
    let one = Deployment::Aggregated {
        pool: tp(chip("h100-sxm"), 1),
        batch: 8,
    };
    let t = topology(&s, &one, &evaluate(&s, &one).unwrap());
    assert!(t.links.is_empty());
    assert_eq!(t.busiest, None);
    assert_eq!(
        (t.pools.len(), t.pools[0].chips, t.pools[0].domains),
        (1, 1, 1)
    );

    let eight = Deployment::Aggregated {
        pool: tp(chip("h100-sxm"), 8),
        batch: 64,
    };
    let point = evaluate(&s, &eight).unwrap();
    let t = topology(&s, &eight, &point);
    assert_eq!(t.links.len(), 1);
    let l = &t.links[0];
    assert_eq!(l.ends, LinkEnds::Within(PoolRole::Colocated));
    assert_eq!(
        (l.class, l.carries, l.lanes),
        (LinkClass::ScaleUp, Traffic::Collectives, 8)
    );
    assert_eq!(l.bandwidth, chip("h100-sxm").scale_up.unwrap().bandwidth);
    // Busy: the step's collective time over its total (MODEL 6.9).
    let step = point.pools[0].costs.generation.unwrap();
    let comm: f64 = [OpKind::TpComm, OpKind::EpComm, OpKind::PpComm]
        .iter()
        .map(|k| step.op(*k).time.value())
        .sum();
    assert!(comm > 0.0);
    assert!(
        (l.busy - comm / step.total.value()).abs() < 1e-12,
        "{}",
        l.busy
    );
    assert_eq!(t.busiest, Some(0));
}

#[test]
fn a_pool_beyond_one_domain_reduces_in_two_levels() {
    let s = setup("llama-3.1-405b", 1024, 256);
    let d = Deployment::Aggregated {
        pool: tp(chip("h100-sxm"), 16),
        batch: 32,
    };
    let t = topology(&s, &d, &evaluate(&s, &d).unwrap());
    assert_eq!(t.pools[0].domains, 2);
    assert_eq!(t.links[0].class, LinkClass::TwoLevel);
    assert_eq!(
        t.links[0].bandwidth,
        chip("h100-sxm").scale_out.unwrap().bandwidth
    );
}

#[test]
fn the_kv_link_is_busy_for_the_share_of_its_request_rate_the_deployment_uses() {
    let mut s = setup("llama-3.3-70b", 8192, 1024);
    let d = Deployment::PrefillDecode {
        prefill: tp(chip("h200"), 4),
        decode: tp(chip("h200"), 8),
        batch: 256,
    };
    for gbps in [400.0, 25.0, 2.0] {
        s.inter_pool_link = Some(BytesPerSecond::from_gbit_per_s(gbps));
        let point = evaluate(&s, &d).unwrap();
        let t = topology(&s, &d, &point);
        let l = t
            .links
            .iter()
            .find(|l| l.carries == Traffic::KvCache)
            .unwrap();
        assert_eq!(
            l.ends,
            LinkEnds::Between(PoolRole::Prefill, PoolRole::Decode)
        );
        assert_eq!(l.class, LinkClass::Stated);
        // By hand: requests/s x KV bytes of a prompt, over the smaller pool's lanes at
        // the usable bandwidth.
        let requests = point.figures.output_tok_s.value() / 1024.0;
        let kv = s.model.kv_values_for_context(8192.0) * s.kv.bytes();
        let usable = 4.0 * gbps / 8.0 * 1e9 * s.assumptions.link_eff;
        let busy = requests * kv / usable;
        assert_eq!(l.lanes, 4);
        assert!(
            (l.busy - busy).abs() < 1e-9,
            "{gbps} Gb/s: {} vs {busy}",
            l.busy
        );
        if point.figures.limiter == Limiter::InterPoolLink {
            // A link that sets the rate runs full and is the busiest.
            assert!(l.busy > 0.999, "{gbps} Gb/s: {}", l.busy);
            assert_eq!(t.links[t.busiest.unwrap()].carries, Traffic::KvCache);
        }
    }
    // At 2 Gb/s the link is what limits (the test would prove nothing otherwise).
    assert_eq!(
        evaluate(&s, &d).unwrap().figures.limiter,
        Limiter::InterPoolLink
    );
}

#[test]
fn the_expert_link_carries_every_token_through_every_moe_layer_both_ways() {
    let s = setup("deepseek-v3", 1024, 1024);
    let d = Deployment::AttentionExpert {
        attention: dp(chip("h200"), 8),
        experts: tp(chip("h200"), 16),
        micro_batches: 2,
        batch: 256,
    };
    let point = evaluate(&s, &d).unwrap();
    let t = topology(&s, &d, &point);
    let l = t
        .links
        .iter()
        .find(|l| l.carries == Traffic::HiddenStates)
        .unwrap();
    let m = s.model;
    let moe_layers: f64 = m
        .groups
        .iter()
        .filter(|g| g.ffn.is_moe())
        .map(|g| g.count as f64)
        .sum();
    // DeepSeek-V3: 8 of 256 experts per token over 16 expert chips.
    let chips_per_token = 16.0 * (1.0 - (1.0 - 1.0 / 16.0f64).powf(8.0));
    let f = &point.figures;
    let tokens = f.output_tok_s.value() + f.output_tok_s.value() / 1024.0 * 1024.0;
    let bytes = 2.0 * moe_layers * tokens * chips_per_token * m.hidden as f64 * 2.0;
    assert!(
        (l.carried.value() * 8.0 - bytes).abs() < 1e-6 * bytes,
        "{} vs {bytes}",
        l.carried.value() * 8.0
    );
    let usable = l.bandwidth.value() * s.assumptions.link_eff;
    assert!((l.busy - (bytes / 8.0 / usable).min(1.0)).abs() < 1e-9);
}

#[test]
fn an_explained_point_carries_its_topology() {
    let s = setup("llama-3.3-70b", 2048, 512);
    let d = Deployment::PrefillDecode {
        prefill: tp(chip("h100-sxm"), 4),
        decode: tp(chip("h200"), 8),
        batch: 64,
    };
    let e = explain(&s, &d).unwrap();
    assert_eq!(e.topology, topology(&s, &d, &e.point));
    // Two pools of two chip kinds: two fabrics and the scale-out link between them.
    assert_eq!(e.topology.pools.len(), 2);
    assert_eq!(e.topology.links.len(), 3);
    let between = e.topology.links.last().unwrap();
    assert_eq!(between.class, LinkClass::ScaleOut);
    assert!(e.topology.busiest.is_some());
    for l in &e.topology.links {
        assert!((0.0..=1.0).contains(&l.busy) && l.carried.value().is_finite());
    }
}
