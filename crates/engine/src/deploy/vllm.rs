//! vLLM: `vllm serve` with its engine arguments (`vllm/engine/arg_utils.py`), and
//! for prefill/decode two servers joined by its NIXL KV connector.

use super::command::{Command, Tool};
use super::{
    head_var, online_fp8, pool_title, Builder, LaunchModel, PoolPlan, SpecDraft, SpecPlan,
};
use crate::disagg::Setup;
use crate::dtype::DType;

/// The port data-parallel ranks on other nodes reach the head on (any free port).
const DP_RPC_PORT: u32 = 13345;

pub(super) fn build(b: &mut Builder, setup: &Setup, model: &LaunchModel, plans: &[PoolPlan]) {
    let split = plans.iter().any(|p| p.side.is_some());
    for plan in plans
        .iter()
        .filter(|p| !matches!(p.role, crate::disagg::PoolRole::Draft))
    {
        let mut c = Command::new(pool_title(plan), Tool::VllmServe, Some(&model.repo));
        engine_args(b, &mut c, setup, model, plan);
        if split {
            // Both sides load the NIXL connector and play either role; the router in
            // front decides which instance prefills and which decodes.
            c.arg(
                "--kv-transfer-config",
                r#"{"kv_connector":"NixlConnector","kv_role":"kv_both"}"#,
            );
        }
        place(b, c, plan);
    }
    if split {
        b.note("vLLM starts the prefill and the decode pool as two servers sharing KV over NIXL; a router in front must send each request to a prefill server, then to a decode server (NVIDIA Dynamo does: `--framework dynamo`); vLLM's repository ships only an example proxy".into());
    }
}

/// vLLM's spelling of a KV-cache dtype (`CacheDType` in `vllm/config/cache.py`):
/// `auto` keeps the model's 16-bit type; `None` where it has none.
pub(super) fn kv_dtype(kv: DType) -> Option<&'static str> {
    match kv {
        DType::Bf16 | DType::Fp16 => Some("auto"),
        DType::Fp8 => Some("fp8"),
        _ => None,
    }
}

/// The engine arguments one pool's servers take: layout, limits, KV dtype,
/// quantisation and speculation. Shared with Dynamo's vLLM workers.
pub(super) fn engine_args(
    b: &mut Builder,
    c: &mut Command,
    setup: &Setup,
    model: &LaunchModel,
    plan: &PoolPlan,
) {
    let p = plan.par;
    c.arg("--tensor-parallel-size", p.tp)
        .arg("--pipeline-parallel-size", p.pp)
        .arg("--data-parallel-size", p.dp);
    if p.ep > 1 {
        c.switch("--enable-expert-parallel");
        // vLLM derives the expert-parallel size; it is not a flag of its own.
        let derived = p.tp.saturating_mul(p.dp);
        if derived != p.ep {
            b.note(format!(
                "{}: vLLM's expert-parallel size is tensor x data parallel = {derived}; the deployment's EP{} cannot be set on its own",
                pool_title(plan),
                p.ep
            ));
        }
    }
    c.arg("--max-num-seqs", plan.seqs)
        .arg("--max-num-batched-tokens", plan.tokens);
    match kv_dtype(setup.kv) {
        Some(v) => {
            c.arg("--kv-cache-dtype", v);
        }
        None => b.note(format!(
            "vLLM has no {} KV cache (its --kv-cache-dtype takes auto, bfloat16 or an fp8 variant); the command keeps the model's 16-bit KV",
            setup.kv
        )),
    }
    if online_fp8(setup, model) {
        c.arg("--quantization", "fp8");
    }
    // Host work beside the device's, where stated: vLLM's asynchronous scheduling.
    if setup.assumptions.host_overlap == Some(true) {
        c.switch("--async-scheduling");
    }
    if let Some(s) = plan.speculation {
        c.arg("--speculative-config", speculative_config(&s));
    }
}

/// `--speculative-config` as JSON (`SpeculativeConfig` in `vllm/config/speculative.py`):
/// `method` mtp, eagle3 or draft_model, the draft's `model`, `num_speculative_tokens`.
fn speculative_config(s: &SpecPlan) -> String {
    match s.draft {
        SpecDraft::Mtp => format!(
            r#"{{"method":"mtp","num_speculative_tokens":{}}}"#,
            s.tokens
        ),
        SpecDraft::Eagle => format!(
            r#"{{"method":"eagle3","model":"{}","num_speculative_tokens":{}}}"#,
            super::EAGLE_PLACEHOLDER,
            s.tokens
        ),
        SpecDraft::Model(repo) => format!(
            r#"{{"method":"draft_model","model":"{repo}","num_speculative_tokens":{}}}"#,
            s.tokens
        ),
    }
}

/// Places a pool's one vLLM server on its nodes: one node as it is; a replica wider
/// than a node over a Ray cluster; data-parallel replicas over several nodes with the
/// head's address and each other node's first rank.
pub(super) fn place(b: &mut Builder, mut c: Command, plan: &PoolPlan) {
    let p = plan.par;
    let g = plan.gpus_per_node.max(1);
    let replica = p.tp.saturating_mul(p.pp);
    let chips = plan.chips();
    if replica > g {
        let nodes = plan.nodes_for(chips);
        c.arg("--distributed-executor-backend", "ray");
        c.title = format!(
            "{}: on the head node of a Ray cluster of {nodes} nodes",
            c.title
        );
        b.note(format!(
            "{}: one replica spans {replica} chips, more than a node's {g}: start a Ray cluster on its {nodes} nodes first (`ray start --head` on one, `ray start --address=<that node's address>:6379` on each other), then run the command on the head node",
            pool_title(plan)
        ));
        b.pool(plan, 1, chips, nodes);
        b.command(c);
    } else if chips > g {
        let local = (g / replica.max(1)).max(1);
        let nodes = p.dp.div_ceil(local);
        c.arg("--data-parallel-size-local", local)
            .arg("--data-parallel-address", format!("${}", head_var(plan)))
            .arg("--data-parallel-rpc-port", DP_RPC_PORT);
        let mut other = c.clone();
        c.title = format!("{}: head node (NODE_RANK 0 of {nodes})", c.title);
        other.title = format!(
            "{}: each other node, NODE_RANK 1 to {}",
            other.title,
            nodes - 1
        );
        other.switch("--headless").arg(
            "--data-parallel-start-rank",
            format!("$((NODE_RANK * {local}))"),
        );
        other.copies = nodes - 1;
        b.placeholder(
            head_var(plan),
            &format!(
                "the address of the {} pool's first node, reachable from its others",
                plan.role.name()
            ),
        );
        b.placeholder("NODE_RANK", "this node's rank, 0 on the head node");
        if p.dp % local != 0 {
            b.note(format!(
                "{}: the last node runs {} data-parallel ranks, not {local}: set its --data-parallel-size-local so",
                pool_title(plan),
                p.dp % local
            ));
        }
        b.pool(plan, 1, chips, nodes);
        b.command(c);
        b.command(other);
    } else {
        b.pool(plan, 1, chips, 1);
        b.command(c);
    }
}
