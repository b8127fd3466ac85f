//! SGLang: `python -m sglang.launch_server` with the server arguments its
//! documentation lists (`docs/advanced_features/server_arguments.md`), prefill/decode
//! with `--disaggregation-mode` behind `sglang_router`.

use super::command::{Command, Tool};
use super::{
    head_var, offload_groups, online_fp8, pool_title, times, Builder, LaunchModel, PoolPlan, Side,
    SpecDraft, SpecPlan, EAGLE_PLACEHOLDER,
};
use crate::disagg::{prefill_decode, PoolRole, Setup};
use crate::dtype::DType;

/// The ports the prefill and decode servers listen on, as SGLang's own example.
const PREFILL_PORT: u32 = 30000;
const DECODE_PORT: u32 = 30001;

/// SGLang's spelling of a KV-cache dtype (`--kv-cache-dtype`: auto, fp8_e5m2,
/// fp8_e4m3); E4M3, the FP8 the engine models.
pub(super) fn kv_dtype(kv: DType) -> Option<&'static str> {
    match kv {
        DType::Bf16 | DType::Fp16 => Some("auto"),
        DType::Fp8 => Some("fp8_e4m3"),
        _ => None,
    }
}

pub(super) fn build(b: &mut Builder, setup: &Setup, model: &LaunchModel, plans: &[PoolPlan]) {
    for plan in plans.iter().filter(|p| p.role != PoolRole::Draft) {
        server(b, setup, model, plan);
    }
    if plans.iter().any(|p| p.side.is_some()) {
        let mut r = Command::new("router in front of both pools", Tool::SglangRouter, None);
        r.switch("--pd-disaggregation")
            .arg("--prefill", format!("http://$PREFILL_HOST:{PREFILL_PORT}"))
            .arg("--decode", format!("http://$DECODE_HOST:{DECODE_PORT}"))
            .arg("--host", "0.0.0.0")
            .arg("--port", 8000);
        b.placeholder(
            "PREFILL_HOST",
            "the address of the prefill server (repeat --prefill for each)",
        );
        b.placeholder(
            "DECODE_HOST",
            "the address of the decode server (repeat --decode for each)",
        );
        b.command(r);
    }
}

/// One pool as SGLang servers. With experts spread over more chips than a replica's
/// tensor-parallel group (`ep > tp`), one server is one expert group: data-parallel
/// attention over `ep / tp` replicas of `tp` chips each (`--enable-dp-attention`,
/// attention TP = tp-size / dp-size); otherwise one server holds every replica.
fn server(b: &mut Builder, setup: &Setup, model: &LaunchModel, plan: &PoolPlan) {
    let p = plan.par;
    let mut c = Command::new(pool_title(plan), Tool::SglangServer, None);
    c.arg("--model-path", &model.repo);
    // (tp-size, dp-size, servers, attention-DP replicas per server)
    let (tp_size, dp_size, servers, group) = if p.ep > p.tp {
        let group = p.ep / p.tp.max(1);
        if p.ep % p.tp.max(1) != 0 || p.dp % group != 0 {
            b.note(format!(
                "{}: SGLang's data-parallel attention needs the expert group (EP{}) to be whole replicas of TP{} and the replicas to fill whole groups; this layout cannot be launched with it",
                pool_title(plan),
                p.ep,
                p.tp
            ));
            return;
        }
        (p.ep, group, p.dp / group, group)
    } else {
        (p.tp, p.dp, 1, 1)
    };
    c.arg("--tp-size", tp_size)
        .arg("--pp-size", p.pp)
        .arg("--dp-size", dp_size)
        .arg("--ep-size", p.ep);
    if group > 1 {
        c.switch("--enable-dp-attention");
    }
    // With DP attention both limits are the server's, shared by its attention
    // replicas (the engine divides the budget the same way, `prefill_chunk_per_replica`).
    c.arg("--max-running-requests", plan.seqs.saturating_mul(group))
        .arg("--chunked-prefill-size", plan.tokens.saturating_mul(group));
    match kv_dtype(setup.kv) {
        Some(v) => {
            c.arg("--kv-cache-dtype", v);
        }
        None => b.note(format!(
            "SGLang has no {} KV cache (--kv-cache-dtype takes auto, fp8_e5m2 or fp8_e4m3); the command keeps the model's 16-bit KV",
            setup.kv
        )),
    }
    if online_fp8(setup, model) {
        c.arg("--quantization", "fp8");
    }
    serving_settings(&mut c, setup, plan);
    if let Some(s) = plan.speculation {
        speculation(&mut c, &s);
    }
    let port = match plan.side {
        Some(Side::Prefill) => Some(PREFILL_PORT),
        Some(Side::Decode) => Some(DECODE_PORT),
        None => None,
    };
    if let Some(side) = plan.side {
        c.arg(
            "--disaggregation-mode",
            if side == Side::Prefill {
                "prefill"
            } else {
                "decode"
            },
        )
        .arg("--disaggregation-transfer-backend", "nixl")
        .arg("--host", "0.0.0.0");
    }
    if let Some(port) = port {
        c.arg("--port", port);
    }
    let chips = tp_size
        .saturating_mul(p.pp)
        .saturating_mul(if group > 1 { 1 } else { p.dp });
    let nodes = plan.nodes_for(chips);
    if nodes > 1 {
        c.arg("--nnodes", nodes)
            .arg("--node-rank", "$NODE_RANK")
            .arg("--dist-init-addr", format!("${}:5000", head_var(plan)));
        b.placeholder(
            head_var(plan),
            &format!(
                "the address of the {} server's first node, reachable from the others",
                plan.role.name()
            ),
        );
        b.placeholder(
            "NODE_RANK",
            "this node's rank within the server, 0 on its first node",
        );
        c.title = format!("{}: on each of the {nodes} nodes of a server", c.title);
    }
    c.copies = servers;
    if servers > 1 {
        c.title = format!("{}, {}", c.title, times(servers, "server"));
        if plan.side.is_none() {
            b.note(format!(
                "{}: {servers} SGLang servers, one per expert group; put `python -m sglang_router.launch_router` (or any load balancer) in front",
                pool_title(plan)
            ));
        }
    }
    b.pool(plan, servers, chips, servers.saturating_mul(nodes));
    b.command(c);
}

/// The serving settings the model runs the pool with, as SGLang's flags: the
/// scheduler's poll interval, host work in series (the overlap scheduler off), the
/// prefill's two overlapped micro-batches where the model overlaps them (a prefill
/// pool whose experts span replicas), and weights offloaded by layer groups.
fn serving_settings(c: &mut Command, setup: &Setup, plan: &PoolPlan) {
    let a = &setup.assumptions;
    if a.scheduler_recv_interval > 1 {
        c.arg("--scheduler-recv-interval", a.scheduler_recv_interval);
    }
    if a.host_overlap == Some(false) {
        c.switch("--disable-overlap-schedule");
    }
    if plan.side == Some(Side::Prefill) && prefill_decode::overlaps(setup, plan.par) {
        c.switch("--enable-two-batch-overlap");
    }
    if let Some((group, offloaded)) = offload_groups(a.weight_offload) {
        c.arg("--offload-group-size", group)
            .arg("--offload-num-in-group", offloaded);
    }
}

/// SGLang's speculative flags: NEXTN (the model's MTP layers), EAGLE3 with a head, or
/// STANDALONE with a draft model; `K` drafted tokens as K steps of top-1, so K + 1
/// tokens a verify.
fn speculation(c: &mut Command, s: &SpecPlan) {
    let (algorithm, path) = match s.draft {
        SpecDraft::Mtp => ("NEXTN", None),
        SpecDraft::Eagle => ("EAGLE3", Some(EAGLE_PLACEHOLDER)),
        SpecDraft::Model(repo) => ("STANDALONE", Some(repo)),
    };
    c.arg("--speculative-algorithm", algorithm);
    if let Some(path) = path {
        c.arg("--speculative-draft-model-path", path);
    }
    c.arg("--speculative-num-steps", s.tokens)
        .arg("--speculative-eagle-topk", 1)
        .arg("--speculative-num-draft-tokens", s.tokens.saturating_add(1));
}
