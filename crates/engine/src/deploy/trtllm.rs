//! TensorRT-LLM: `trtllm-serve` with its flags (`tensorrt_llm/commands/serve.py`) and,
//! for what only the LLM API takes, the YAML of `--extra_llm_api_options`; prefill/
//! decode as context and generation servers behind `trtllm-serve disaggregated`.

use super::command::{Command, Tool};
use super::{
    online_fp8, pool_title, times, Builder, LaunchModel, PoolPlan, Side, SpecDraft, SpecPlan,
    EAGLE_PLACEHOLDER,
};
use crate::disagg::{PoolRole, Setup};
use crate::dtype::DType;

/// Ports of the context and generation servers, as TensorRT-LLM's example.
const CONTEXT_PORT: u32 = 8001;
const GENERATION_PORT: u32 = 8002;

/// TensorRT-LLM's `kv_cache_config.dtype`: `auto` (the checkpoint's) or `fp8`.
pub(super) fn kv_dtype(kv: DType) -> Option<&'static str> {
    match kv {
        DType::Bf16 | DType::Fp16 => Some("auto"),
        DType::Fp8 => Some("fp8"),
        _ => None,
    }
}

pub(super) fn build(b: &mut Builder, setup: &Setup, model: &LaunchModel, plans: &[PoolPlan]) {
    let mut urls: Vec<(Side, u32)> = Vec::new();
    for plan in plans.iter().filter(|p| p.role != PoolRole::Draft) {
        if let Some(servers) = server(b, setup, model, plan) {
            if let Some(side) = plan.side {
                urls.push((side, servers));
            }
        }
    }
    if urls.len() == 2 {
        let list = |side: Side, port: u32, var: &str| {
            let n = urls.iter().find(|u| u.0 == side).map_or(0, |u| u.1);
            let mut t = format!("  num_instances: {n}\n  urls:\n");
            for i in 0..n {
                t.push_str(&format!("    - \"${var}_{i}:{port}\"\n"));
            }
            t
        };
        let text = format!(
            "hostname: 0.0.0.0\nport: 8000\nbackend: pytorch\ncontext_servers:\n{}generation_servers:\n{}",
            list(Side::Prefill, CONTEXT_PORT, "CTX_HOST"),
            list(Side::Decode, GENERATION_PORT, "GEN_HOST")
        );
        b.file("disagg_config.yaml", text);
        let mut c = Command::new(
            "the disaggregated server in front of both pools",
            Tool::TrtllmDisaggregated,
            None,
        );
        c.arg("-c", "disagg_config.yaml");
        b.command(c);
        for (side, n) in &urls {
            let (var, what) = match side {
                Side::Prefill => ("CTX_HOST", "context (prefill)"),
                Side::Decode => ("GEN_HOST", "generation (decode)"),
            };
            for i in 0..*n {
                b.placeholder(
                    &format!("{var}_{i}"),
                    &format!("the address of {what} server {i}"),
                );
            }
        }
    }
}

/// One pool as `trtllm-serve` servers; `None` when its layout has no trtllm-serve
/// spelling. A server is one replica (`tp x pp` chips); with experts spread over
/// more than a replica (`ep > tp`) it is one expert group with attention data
/// parallelism, which TensorRT-LLM runs at attention TP 1.
fn server(b: &mut Builder, setup: &Setup, model: &LaunchModel, plan: &PoolPlan) -> Option<u32> {
    let p = plan.par;
    let (tp_size, servers, attention_dp) = if p.ep > p.tp {
        let group = p.ep / p.tp.max(1);
        if p.tp != 1 || p.dp % group != 0 {
            b.note(format!(
                "{}: TensorRT-LLM's attention data parallelism runs attention at TP1 over whole expert groups; TP{} attention with EP{} cannot be launched with it",
                pool_title(plan),
                p.tp,
                p.ep
            ));
            return None;
        }
        (p.ep, p.dp / group, true)
    } else {
        (p.tp, p.dp, false)
    };
    let name = match plan.side {
        Some(Side::Prefill) => "ctx_extra-llm-api-config.yml",
        Some(Side::Decode) => "gen_extra-llm-api-config.yml",
        None => "extra-llm-api-config.yml",
    };
    let mut c = Command::new(pool_title(plan), Tool::TrtllmServe, Some(&model.repo));
    c.arg("--tp_size", tp_size)
        .arg("--pp_size", p.pp)
        .arg("--ep_size", p.ep)
        .arg("--max_batch_size", plan.seqs)
        .arg("--max_num_tokens", plan.tokens);
    if let Some(side) = plan.side {
        c.arg("--host", "0.0.0.0").arg(
            "--port",
            if side == Side::Prefill {
                CONTEXT_PORT
            } else {
                GENERATION_PORT
            },
        );
    }
    c.arg("--extra_llm_api_options", name);
    let text = options(b, setup, plan, attention_dp);
    b.file(name, text);
    if online_fp8(setup, model) {
        b.note(format!(
            "TensorRT-LLM takes FP8 weights from a checkpoint quantised to FP8 (NVIDIA ModelOpt); {} ships 16-bit weights, so serve an FP8 checkpoint of it instead",
            model.repo
        ));
    }
    let chips = tp_size.saturating_mul(p.pp);
    let nodes = plan.nodes_for(chips);
    if nodes > 1 {
        let per_node = chips.div_ceil(nodes);
        c.launcher = Some(format!(
            "srun -N {nodes} --ntasks-per-node={per_node} --mpi=pmix trtllm-llmapi-launch"
        ));
        b.note(format!(
            "{}: each server spans {nodes} nodes and starts under Slurm with trtllm-llmapi-launch; add your account, partition and container options to srun",
            pool_title(plan)
        ));
    }
    c.copies = servers;
    if servers > 1 {
        c.title = format!("{}, {}", c.title, times(servers, "server"));
        if plan.side.is_none() {
            b.note(format!(
                "{}: {servers} separate trtllm-serve servers (TensorRT-LLM has no data-parallel flag); put a load balancer in front",
                pool_title(plan)
            ));
        }
    }
    b.pool(plan, servers, chips, servers.saturating_mul(nodes));
    b.command(c);
    Some(servers)
}

/// The `--extra_llm_api_options` YAML: what `trtllm-serve` takes only through the LLM
/// API (`kv_cache_config.dtype`, `enable_attention_dp`, `speculative_config`,
/// `cache_transceiver_config`).
fn options(b: &mut Builder, setup: &Setup, plan: &PoolPlan, attention_dp: bool) -> String {
    let mut t = String::new();
    if attention_dp {
        t.push_str("enable_attention_dp: true\n");
    }
    match kv_dtype(setup.kv) {
        Some(v) => t.push_str(&format!("kv_cache_config:\n  dtype: {v}\n")),
        None => b.note(format!(
            "TensorRT-LLM's kv_cache_config.dtype as documented takes auto or fp8; a {} KV cache is not written, the command keeps the checkpoint's",
            setup.kv
        )),
    }
    if let Some(s) = plan.speculation {
        t.push_str(&speculative_config(&s));
    }
    // TensorRT-LLM's example turns the overlap scheduler off on context servers; a
    // stated host work in series turns it off everywhere.
    if plan.side == Some(Side::Prefill) || setup.assumptions.host_overlap == Some(false) {
        t.push_str("disable_overlap_scheduler: true\n");
    }
    if plan.side.is_some() {
        t.push_str("cache_transceiver_config:\n  backend: DEFAULT\n");
    }
    t
}

/// `speculative_config` (`decoding_type` MTP, Eagle or DraftTarget).
fn speculative_config(s: &SpecPlan) -> String {
    match s.draft {
        SpecDraft::Mtp => format!(
            "speculative_config:\n  decoding_type: MTP\n  num_nextn_predict_layers: {}\n",
            s.tokens
        ),
        SpecDraft::Eagle => format!(
            "speculative_config:\n  decoding_type: Eagle\n  max_draft_len: {}\n  speculative_model: {EAGLE_PLACEHOLDER}\n",
            s.tokens
        ),
        SpecDraft::Model(repo) => format!(
            "speculative_config:\n  decoding_type: DraftTarget\n  max_draft_len: {}\n  speculative_model: {repo}\n",
            s.tokens
        ),
    }
}
