//! Launch commands of real `plan` results against the frameworks' own flag lists
//! (`deploy_flags.rs`): every flag one its program defines, every value one it
//! accepts, and the numbers the deployment's.

use crate::common::*;
use crate::deploy_flags::{check_flags, yaml_keys};
use disagg_engine::assumptions::ExpertExchange;
use disagg_engine::deploy::{launch, Command, Launch, LaunchFramework, LaunchModel, Tool};
use disagg_engine::disagg::{Deployment, Draft};
use std::collections::BTreeSet;

fn num(c: &Command, flag: &str) -> u32 {
    c.value(flag)
        .unwrap_or_else(|| panic!("{:?} sets no {flag}", c.tool))
        .parse()
        .unwrap()
}

/// The servers of the pools, in pool order (every command that loads the model).
fn servers(l: &Launch) -> Vec<&Command> {
    l.commands
        .iter()
        .filter(|c| {
            matches!(
                c.tool,
                Tool::VllmServe | Tool::SglangServer | Tool::TrtllmServe | Tool::DynamoVllm
            )
        })
        .collect()
}

fn model_of(id: &str) -> (&'static disagg_engine::ModelPreset, LaunchModel) {
    let m = cat().model(id).unwrap();
    (
        m,
        LaunchModel {
            repo: m.hf_repo.clone(),
            default_weights: m.default_weight_dtype,
            draft_repo: None,
        },
    )
}

fn choice(chip: &str, chips: u32, parallelism: Option<Parallelism>) -> PoolChoice<'static> {
    PoolChoice {
        chip: cat().chip(chip).unwrap(),
        chips,
        parallelism,
    }
}

/// Llama-3.3-70B at 1000/1000 on 8 H100s, aggregated, as the planner lays it out.
fn aggregated() -> (
    Setup<'static>,
    Deployment<'static>,
    DeploymentPoint,
    LaunchModel,
) {
    let (m, lm) = model_of("llama-3.3-70b");
    let setup = Setup::new(
        &m.ir,
        Workload::new(1000, 1000),
        WeightFormat::new(DType::Fp8),
    );
    let (d, p) = plan(
        &setup,
        Axis::Aggregated,
        &[(PoolRole::Colocated, choice("h100-sxm", 8, None))],
        Some(64),
        1,
    )
    .unwrap();
    (setup, d, p, lm)
}

/// The same model split: 4 H100s prefill, 8 H200s decode.
fn prefill_decode() -> (
    Setup<'static>,
    Deployment<'static>,
    DeploymentPoint,
    LaunchModel,
) {
    let (m, lm) = model_of("llama-3.3-70b");
    let setup = Setup::new(
        &m.ir,
        Workload::new(1000, 1000),
        WeightFormat::new(DType::Fp8),
    );
    let pools = [
        (PoolRole::Prefill, choice("h100-sxm", 4, None)),
        (PoolRole::Decode, choice("h200", 8, None)),
    ];
    let (d, p) = plan(&setup, Axis::PrefillDecode, &pools, Some(64), 1).unwrap();
    (setup, d, p, lm)
}

/// DeepSeek-V3 split over two nodes of H200 a pool, decode with attention data
/// parallelism over experts on all 16 chips, drafting with its MTP layers.
fn wide_ep() -> (
    Setup<'static>,
    Deployment<'static>,
    DeploymentPoint,
    LaunchModel,
) {
    let (m, lm) = model_of("deepseek-v3");
    let mut setup = Setup::new(
        &m.ir,
        Workload::new(1000, 1000),
        WeightFormat::new(DType::Fp8),
    );
    setup.speculative_decode = true;
    setup.speculation.draft = Draft::Mtp;
    setup.speculation.draft_tokens = 2;
    let wide = Parallelism {
        tp: 1,
        pp: 1,
        dp: 16,
        ep: 16,
    };
    let pools = [
        (PoolRole::Prefill, choice("h200", 16, Some(wide))),
        (PoolRole::Decode, choice("h200", 16, Some(wide))),
    ];
    let (d, p) = plan(&setup, Axis::PrefillDecode, &pools, Some(512), 1).unwrap();
    (setup, d, p, lm)
}

/// The deployment's own limits: sequences and prompt tokens per replica.
fn limits(setup: &Setup, d: &Deployment, p: &DeploymentPoint, role: PoolRole) -> (u32, u32) {
    let pool = d.pools().into_iter().find(|x| x.0 == role).unwrap().1;
    let report = p.pool(role).unwrap();
    (
        report.seqs_per_replica.ceil() as u32,
        setup
            .assumptions
            .prefill_chunk_per_replica(pool.chip, pool.parallelism)
            .ceil() as u32,
    )
}

fn run(
    f: LaunchFramework,
    (setup, d, p, lm): &(Setup, Deployment, DeploymentPoint, LaunchModel),
) -> Launch {
    let l = launch(f, setup, d, p, lm, None).unwrap();
    check_flags(&l);
    // Every pool is launched whole: servers x chips each = the pool's chips.
    let pools = d.pools();
    assert_eq!(l.pools.len(), pools.len(), "{:?}", l.notes);
    for (pl, (role, pool)) in l.pools.iter().zip(&pools) {
        assert_eq!(pl.role, *role);
        assert_eq!(pl.servers * pl.chips_per_server, pool.chips(), "{role:?}");
    }
    // Every variable the script reads is a placeholder it declares.
    let script = l.script();
    let declared: BTreeSet<&str> = l.placeholders.iter().map(|p| p.name.as_str()).collect();
    for word in script.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$')) {
        if let Some(var) = word.strip_prefix('$').filter(|v| !v.is_empty()) {
            assert!(declared.contains(var), "${var} undeclared in\n{script}");
        }
    }
    l
}

#[test]
fn vllm_commands_carry_the_deployments_numbers() {
    for point in [aggregated(), prefill_decode()] {
        let l = run(LaunchFramework::Vllm, &point);
        let (setup, d, p, lm) = &point;
        let servers = servers(&l);
        for (c, (role, pool)) in servers.iter().zip(d.pools()) {
            assert_eq!(c.model.as_deref(), Some(lm.repo.as_str()));
            let par = pool.parallelism;
            assert_eq!(
                num(c, "--tensor-parallel-size")
                    * num(c, "--pipeline-parallel-size")
                    * num(c, "--data-parallel-size"),
                pool.chips()
            );
            assert_eq!(num(c, "--tensor-parallel-size"), par.tp);
            assert_eq!(num(c, "--data-parallel-size"), par.dp);
            let (seqs, tokens) = limits(setup, d, p, role);
            assert_eq!(num(c, "--max-num-seqs"), seqs);
            assert_eq!(num(c, "--max-num-batched-tokens"), tokens);
            assert_eq!(c.value("--kv-cache-dtype"), Some("fp8"));
            // Llama ships BF16: FP8 weights are quantised on load.
            assert_eq!(c.value("--quantization"), Some("fp8"));
            assert_eq!(
                c.has("--kv-transfer-config"),
                d.axis() == Axis::PrefillDecode
            );
        }
    }
}

#[test]
fn sglang_commands_carry_the_deployments_numbers() {
    for point in [aggregated(), prefill_decode()] {
        let l = run(LaunchFramework::Sglang, &point);
        let (setup, d, p, lm) = &point;
        for (c, (role, pool)) in servers(&l).iter().zip(d.pools()) {
            assert_eq!(c.value("--model-path"), Some(lm.repo.as_str()));
            assert_eq!(num(c, "--tp-size"), pool.parallelism.tp);
            assert_eq!(
                num(c, "--tp-size") * num(c, "--pp-size") * num(c, "--dp-size") * c.copies,
                pool.chips()
            );
            let (seqs, tokens) = limits(setup, d, p, role);
            assert_eq!(num(c, "--max-running-requests"), seqs);
            assert_eq!(num(c, "--chunked-prefill-size"), tokens);
            assert_eq!(c.value("--kv-cache-dtype"), Some("fp8_e4m3"));
            let mode = c.value("--disaggregation-mode");
            assert_eq!(
                mode,
                match role {
                    PoolRole::Prefill => Some("prefill"),
                    PoolRole::Decode => Some("decode"),
                    _ => None,
                }
            );
        }
        let router = l.commands.iter().any(|c| c.tool == Tool::SglangRouter);
        assert_eq!(router, point.1.axis() == Axis::PrefillDecode);
    }
}

#[test]
fn trtllm_commands_carry_the_deployments_numbers() {
    for point in [aggregated(), prefill_decode()] {
        let l = run(LaunchFramework::Trtllm, &point);
        let (setup, d, p, lm) = &point;
        for (c, (role, pool)) in servers(&l).iter().zip(d.pools()) {
            assert_eq!(c.model.as_deref(), Some(lm.repo.as_str()));
            // One server a replica: tp x pp chips, dp of them.
            assert_eq!(
                num(c, "--tp_size") * num(c, "--pp_size") * c.copies,
                pool.chips()
            );
            assert_eq!(c.copies, pool.parallelism.dp);
            let (seqs, tokens) = limits(setup, d, p, role);
            assert_eq!(num(c, "--max_batch_size"), seqs);
            assert_eq!(num(c, "--max_num_tokens"), tokens);
            let file = c.value("--extra_llm_api_options").unwrap();
            let yaml = &l.files.iter().find(|f| f.name == file).unwrap().text;
            assert!(
                yaml_keys(yaml).contains(&("kv_cache_config.dtype".into(), "fp8".into())),
                "{yaml}"
            );
        }
        let proxy = l.files.iter().find(|f| f.name == "disagg_config.yaml");
        assert_eq!(proxy.is_some(), point.1.axis() == Axis::PrefillDecode);
        if let Some(f) = proxy {
            // As many URLs as servers on each side.
            let keys = yaml_keys(&f.text);
            let n = |k: &str| {
                keys.iter()
                    .find(|x| x.0 == k)
                    .unwrap()
                    .1
                    .parse::<u32>()
                    .unwrap()
            };
            assert_eq!(n("context_servers.num_instances"), l.pools[0].servers);
            assert_eq!(n("generation_servers.num_instances"), l.pools[1].servers);
            assert_eq!(
                f.text.matches("CTX_HOST_").count() as u32,
                l.pools[0].servers
            );
        }
    }
}

#[test]
fn dynamo_runs_a_frontend_and_a_worker_per_pool() {
    let point = prefill_decode();
    let l = run(LaunchFramework::Dynamo, &point);
    assert_eq!(l.commands[0].tool, Tool::DynamoFrontend);
    let workers = servers(&l);
    assert_eq!(workers.len(), 2);
    for (c, (role, pool)) in workers.iter().zip(point.1.pools()) {
        assert_eq!(c.value("--model"), Some(point.3.repo.as_str()));
        assert_eq!(
            num(c, "--tensor-parallel-size")
                * num(c, "--pipeline-parallel-size")
                * num(c, "--data-parallel-size"),
            pool.chips()
        );
        assert_eq!(c.value("--disaggregation-mode"), Some(role.name()));
    }
    // Aggregated: one worker, no mode.
    let agg = run(LaunchFramework::Dynamo, &aggregated());
    assert!(servers(&agg)
        .iter()
        .all(|c| !c.has("--disaggregation-mode")));
}

#[test]
fn wide_expert_parallelism_spans_nodes_and_speculates_on_decode() {
    let point = wide_ep();
    let (_, d, _, _) = &point;
    // vLLM: EP = tp x dp = 16, two nodes of eight data-parallel ranks a pool.
    let v = run(LaunchFramework::Vllm, &point);
    assert!(
        v.notes.iter().all(|n| !n.contains("expert-parallel size")),
        "{:?}",
        v.notes
    );
    assert_eq!(v.nodes, 4);
    let decode_head = servers(&v)[2];
    assert!(decode_head.has("--enable-expert-parallel"));
    assert_eq!(num(decode_head, "--data-parallel-size-local"), 8);
    let decode_other = servers(&v)[3];
    assert!(decode_other.has("--headless"));
    assert_eq!(
        decode_other.value("--data-parallel-start-rank"),
        Some("$((NODE_RANK * 8))")
    );
    let spec: serde_json::Value =
        serde_json::from_str(decode_head.value("--speculative-config").unwrap()).unwrap();
    assert_eq!(
        spec,
        serde_json::json!({"method": "mtp", "num_speculative_tokens": 2})
    );
    assert!(
        servers(&v)[0].value("--speculative-config").is_none(),
        "prefill drafts nothing"
    );
    // SGLang: one server of DP attention over the expert group, on two nodes.
    let s = run(LaunchFramework::Sglang, &point);
    let decode = servers(&s)[1];
    assert!(decode.has("--enable-dp-attention"));
    assert_eq!(
        (
            num(decode, "--tp-size"),
            num(decode, "--dp-size"),
            num(decode, "--ep-size")
        ),
        (16, 16, 16)
    );
    assert_eq!(num(decode, "--nnodes"), 2);
    assert_eq!(decode.value("--speculative-algorithm"), Some("NEXTN"));
    assert_eq!(num(decode, "--speculative-num-draft-tokens"), 3);
    // The server's limits are its sixteen attention replicas'.
    let (seqs, _) = limits(&point.0, d, &point.2, PoolRole::Decode);
    assert_eq!(num(decode, "--max-running-requests"), seqs * 16);
    // TensorRT-LLM: attention DP at TP1, EP16, under Slurm over two nodes.
    let t = run(LaunchFramework::Trtllm, &point);
    let gen = servers(&t)[1];
    assert_eq!((num(gen, "--tp_size"), num(gen, "--ep_size")), (16, 16));
    assert!(gen.launcher.as_deref().unwrap().contains("-N 2"));
    let yaml = &t
        .files
        .iter()
        .find(|f| f.name.starts_with("gen_"))
        .unwrap()
        .text;
    let keys = yaml_keys(yaml);
    assert!(
        keys.contains(&("enable_attention_dp".into(), "true".into())),
        "{yaml}"
    );
    assert!(
        keys.contains(&("speculative_config.decoding_type".into(), "MTP".into())),
        "{yaml}"
    );
    assert!(
        keys.contains(&(
            "speculative_config.num_nextn_predict_layers".into(),
            "2".into()
        )),
        "{yaml}"
    );
}

#[test]
fn what_a_framework_cannot_express_is_said_not_invented() {
    // Attention/expert disaggregation has no flag in any of them.
    let (m, lm) = model_of("deepseek-v3");
    let setup = Setup::new(
        &m.ir,
        Workload::new(1000, 1000),
        WeightFormat::new(DType::Fp8),
    );
    let pools = [
        (PoolRole::Attention, choice("h200", 8, None)),
        (PoolRole::Experts, choice("h200", 8, None)),
    ];
    let (d, p) = plan(&setup, Axis::AttentionExpert, &pools, Some(64), 2).unwrap();
    for f in LaunchFramework::ALL {
        let l = launch(f, &setup, &d, &p, &lm, None).unwrap();
        assert!(l.commands.is_empty(), "{f}");
        assert!(l
            .script()
            .starts_with(&format!("# {} cannot launch", f.name())));
        assert!(
            l.notes.iter().any(|n| n.contains("attention and experts")),
            "{f}: {:?}",
            l.notes
        );
    }
    // vLLM derives EP from tp x dp: an EP that differs is named, not flagged.
    let layout = Parallelism {
        tp: 8,
        pp: 1,
        dp: 1,
        ep: 4,
    };
    let (d, p) = plan(
        &setup,
        Axis::Aggregated,
        &[(PoolRole::Colocated, choice("h200", 8, Some(layout)))],
        Some(32),
        1,
    )
    .unwrap();
    let l = launch(LaunchFramework::Vllm, &setup, &d, &p, &lm, None).unwrap();
    check_flags(&l);
    assert!(
        l.notes.iter().any(|n| n.contains("EP4 cannot be set")),
        "{:?}",
        l.notes
    );
    // A KV format a framework lacks is named, and no --kv-cache-dtype is written.
    let int8 = Setup {
        kv: DType::Int8,
        ..setup
    };
    let p8 = evaluate(&int8, &d).unwrap();
    let l = launch(LaunchFramework::Sglang, &int8, &d, &p8, &lm, None).unwrap();
    check_flags(&l);
    assert!(servers(&l)[0].value("--kv-cache-dtype").is_none());
    assert!(
        l.notes.iter().any(|n| n.contains("int8 KV")),
        "{:?}",
        l.notes
    );
}

#[test]
fn component_formats_are_named_as_the_checkpoints_not_as_flags() {
    // NVIDIA's v2 DeepSeek-R1 FP4 checkpoint: BF16 attention but its NVFP4 output
    // projection, NVFP4 MLPs. No framework takes a flag per component, so each one set
    // apart is a note, and one equal to the weights' format is not.
    let (m, lm) = model_of("deepseek-r1");
    let setup = Setup {
        expert_dtype: Some(DType::Nvfp4),
        attn_out_dtype: Some(DType::Nvfp4),
        lm_head_dtype: Some(DType::Bf16),
        ..Setup::new(
            &m.ir,
            Workload::new(1024, 1024),
            WeightFormat::new(DType::Bf16),
        )
    };
    let d = Deployment::Aggregated {
        pool: crate::disagg::tp(cat().chip("b200").unwrap(), 8),
        batch: 16,
    };
    let p = evaluate(&setup, &d).unwrap();
    let l = launch(LaunchFramework::Sglang, &setup, &d, &p, &lm, None).unwrap();
    check_flags(&l);
    let named = |part: &str| l.notes.iter().any(|n| n.starts_with(part));
    assert!(named("the experts are modelled as nvfp4"), "{:?}", l.notes);
    assert!(
        named("the attention output projections are modelled as nvfp4"),
        "{:?}",
        l.notes
    );
    assert!(!named("the LM head"), "{:?}", l.notes);
}

#[test]
fn chips_per_node_are_bounded_and_decide_the_nodes() {
    let point = aggregated();
    let (setup, d, p, lm) = &point;
    assert!(launch(LaunchFramework::Vllm, setup, d, p, lm, Some(0)).is_err());
    // Four chips a node: a TP8 replica spans two, over Ray.
    let l = launch(LaunchFramework::Vllm, setup, d, p, lm, Some(4)).unwrap();
    check_flags(&l);
    let tp = d.pools()[0].1.parallelism.tp;
    if tp > 4 {
        assert_eq!(
            servers(&l)[0].value("--distributed-executor-backend"),
            Some("ray")
        );
    }
    assert_eq!(l.nodes, 2);
}

/// The serving settings the model runs with reach the launch where the framework has a
/// flag for them, each checked against its program's list: SGLang's poll interval,
/// overlap scheduler off, two-batch prefill overlap (on the wide-EP prefill pool, not
/// the decode one) and layer-group offload; vLLM's asynchronous scheduling; TensorRT-
/// LLM's overlap scheduler off on every server. What a framework lacks is a note.
#[test]
fn serving_settings_become_flags_or_notes() {
    let with = |mut point: (
        Setup<'static>,
        Deployment<'static>,
        DeploymentPoint,
        LaunchModel,
    ),
                host_overlap: Option<bool>| {
        let a = &mut point.0.assumptions;
        a.scheduler_recv_interval = 30;
        a.prefill_two_batch_overlap = true;
        a.weight_offload = 0.25;
        a.host_overlap = host_overlap;
        point
    };
    let point = with(wide_ep(), Some(false));
    let l = run(LaunchFramework::Sglang, &point);
    let s = servers(&l);
    let (prefill, decode) = (s[0], s[1]);
    for c in [prefill, decode] {
        assert_eq!(num(c, "--scheduler-recv-interval"), 30);
        assert!(c.has("--disable-overlap-schedule"));
        assert_eq!(
            (
                num(c, "--offload-group-size"),
                num(c, "--offload-num-in-group")
            ),
            (4, 1)
        );
    }
    assert!(prefill.has("--enable-two-batch-overlap") && !decode.has("--enable-two-batch-overlap"));
    // An aggregated pool with the same wide layout: the engine overlaps only a prefill
    // pool's steps, so the launch does not turn the overlap on either.
    let (mut setup, _, _, lm) = wide_ep();
    setup.assumptions.prefill_two_batch_overlap = true;
    let wide = Parallelism {
        tp: 1,
        pp: 1,
        dp: 16,
        ep: 16,
    };
    let (d, p) = plan(
        &setup,
        Axis::Aggregated,
        &[(PoolRole::Colocated, choice("h200", 16, Some(wide)))],
        Some(512),
        1,
    )
    .unwrap();
    let l = launch(LaunchFramework::Sglang, &setup, &d, &p, &lm, None).unwrap();
    assert!(servers(&l)
        .iter()
        .all(|c| !c.has("--enable-two-batch-overlap")));
    assert!(
        l.notes
            .iter()
            .all(|n| !n.contains("--scheduler-recv-interval")),
        "{:?}",
        l.notes
    );

    let l = run(LaunchFramework::Vllm, &with(aggregated(), Some(true)));
    assert!(servers(&l).iter().all(|c| c.has("--async-scheduling")));
    for says in [
        "every 30 decode steps",
        "two overlapped micro-batches",
        "0.250 of the weights",
    ] {
        assert!(
            l.notes.iter().any(|n| n.contains(says)),
            "{says}: {:?}",
            l.notes
        );
    }

    let l = run(LaunchFramework::Trtllm, &with(aggregated(), Some(false)));
    let options: Vec<&String> = l.files.iter().map(|f| &f.text).collect();
    assert!(
        !options.is_empty()
            && options
                .iter()
                .all(|t| t.contains("disable_overlap_scheduler: true")),
        "{options:?}"
    );

    // The gathered expert exchange is said for every framework, with how each runs it,
    // where experts span replicas; a tensor-parallel pool has no exchange to set.
    let mut gathered = wide_ep();
    gathered.0.assumptions.expert_exchange = ExpertExchange::GatherScatter;
    for (framework, says) in [
        (
            LaunchFramework::Trtllm,
            "TRTLLM_FORCE_COMM_METHOD=ALLGATHER",
        ),
        (LaunchFramework::Vllm, "allgather_reducescatter"),
        (LaunchFramework::Dynamo, "allgather_reducescatter"),
        (LaunchFramework::Sglang, "leave --moe-a2a-backend unset"),
    ] {
        let l = run(framework, &gathered);
        let exchange: Vec<&String> = l
            .notes
            .iter()
            .filter(|n| n.contains("expert exchange"))
            .collect();
        assert!(
            exchange.len() == 1 && exchange[0].contains(says),
            "{framework:?}: {:?}",
            l.notes
        );
        let plain = run(framework, &wide_ep());
        assert!(plain.notes.iter().all(|n| !n.contains("expert exchange")));
    }
    let mut tensor_parallel = with(aggregated(), None);
    tensor_parallel.0.assumptions.expert_exchange = ExpertExchange::GatherScatter;
    let l = run(LaunchFramework::Trtllm, &tensor_parallel);
    assert!(l.notes.iter().all(|n| !n.contains("expert exchange")));

    // A share no group of at most 64 layers gives is said, not rounded.
    let mut odd = with(aggregated(), None);
    odd.0.assumptions.weight_offload = 0.123_456;
    let l = run(LaunchFramework::Sglang, &odd);
    assert!(servers(&l).iter().all(|c| !c.has("--offload-group-size")));
    assert!(
        l.notes.iter().any(|n| n.contains("no SGLang layer group")),
        "{:?}",
        l.notes
    );
}
