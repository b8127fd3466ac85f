//! The frameworks' flag lists, each with its source (repository, commit and file,
//! read for this project), and the check every generated launch passes: each flag is
//! in its program's list, each value with documented choices is one of them.
//!
//! The lists hold the flags of the groups the launches draw from (parallelism,
//! scheduling, KV cache, quantisation, speculation, disaggregation, multi-node,
//! serving address), not every flag the programs take.

use disagg_engine::deploy::{Launch, Tool};

/// `vllm serve`: `EngineArgs.add_cli_args` in
/// https://github.com/vllm-project/vllm/blob/99d7eb5d6a512cfcc5a2b104f24ebf2d6cda772b/vllm/engine/arg_utils.py
/// and `make_arg_parser` / `FrontendArgs` in
/// https://github.com/vllm-project/vllm/blob/789340fbad95a900ca3c467c9cee33b3d905fd61/vllm/entrypoints/openai/cli_args.py
pub(crate) const VLLM_FLAGS: &[&str] = &[
    "--model",
    "--tokenizer",
    "--trust-remote-code",
    "--dtype",
    "--seed",
    "--revision",
    "--max-model-len",
    "--quantization",
    "--enforce-eager",
    "--served-model-name",
    "--load-format",
    "--download-dir",
    "--distributed-executor-backend",
    "--pipeline-parallel-size",
    "--tensor-parallel-size",
    "--decode-context-parallel-size",
    "--data-parallel-size",
    "--data-parallel-rank",
    "--data-parallel-start-rank",
    "--data-parallel-size-local",
    "--data-parallel-address",
    "--data-parallel-rpc-port",
    "--data-parallel-backend",
    "--data-parallel-hybrid-lb",
    "--enable-expert-parallel",
    "--all2all-backend",
    "--enable-dbo",
    "--enable-eplb",
    "--eplb-config",
    "--block-size",
    "--gpu-memory-utilization",
    "--kv-cache-memory-bytes",
    "--swap-space",
    "--kv-cache-dtype",
    "--enable-prefix-caching",
    "--cpu-offload-gb",
    "--max-num-batched-tokens",
    "--max-num-seqs",
    "--max-num-partial-prefills",
    "--enable-chunked-prefill",
    "--async-scheduling",
    "--speculative-config",
    "--kv-transfer-config",
    "--kv-events-config",
    "--compilation-config",
    "--disable-log-stats",
    "--host",
    "--port",
    "--headless",
    "--api-server-count",
    "--config",
];
/// `CacheDType` in
/// https://github.com/vllm-project/vllm/blob/c1d86421174a87056edc90a41dc9942391509e84/vllm/config/cache.py
pub(crate) const VLLM_KV: &[&str] = &[
    "auto",
    "bfloat16",
    "fp8",
    "fp8_e4m3",
    "fp8_e5m2",
    "fp8_inc",
    "fp8_ds_mla",
];
/// `SpeculativeMethod` in
/// https://github.com/vllm-project/vllm/blob/f19b16d95e4395790661f4835e4436bc3dd5d9c7/vllm/config/speculative.py
pub(crate) const VLLM_SPEC_METHODS: &[&str] = &[
    "ngram",
    "medusa",
    "mlp_speculator",
    "draft_model",
    "suffix",
    "eagle",
    "eagle3",
    "mtp",
];
/// The same file's `SpeculativeConfig` fields the launches set.
pub(crate) const VLLM_SPEC_KEYS: &[&str] = &["method", "model", "num_speculative_tokens"];

/// `python -m sglang.launch_server`: the tables of
/// https://github.com/sgl-project/sglang/blob/b36e8e198b71553316b55bce53de6ecf9b3a9a47/docs/advanced_features/server_arguments.md
pub(crate) const SGLANG_FLAGS: &[&str] = &[
    "--model-path",
    "--model",
    "--tokenizer-path",
    "--trust-remote-code",
    "--context-length",
    "--host",
    "--port",
    "--dtype",
    "--quantization",
    "--kv-cache-dtype",
    "--mem-fraction-static",
    "--max-running-requests",
    "--max-total-tokens",
    "--chunked-prefill-size",
    "--max-prefill-tokens",
    "--tensor-parallel-size",
    "--tp-size",
    "--pipeline-parallel-size",
    "--pp-size",
    "--data-parallel-size",
    "--dp-size",
    "--dist-init-addr",
    "--nnodes",
    "--node-rank",
    "--speculative-algorithm",
    "--speculative-draft-model-path",
    "--speculative-num-steps",
    "--speculative-eagle-topk",
    "--speculative-num-draft-tokens",
    "--expert-parallel-size",
    "--ep-size",
    "--moe-a2a-backend",
    "--enable-dp-attention",
    "--enable-two-batch-overlap",
    "--disable-overlap-schedule",
    "--scheduler-recv-interval",
    "--offload-group-size",
    "--offload-num-in-group",
    "--disaggregation-mode",
    "--disaggregation-transfer-backend",
    "--disaggregation-bootstrap-port",
    "--disaggregation-ib-device",
];
/// The same page's choices.
pub(crate) const SGLANG_KV: &[&str] = &["auto", "fp8_e5m2", "fp8_e4m3"];
pub(crate) const SGLANG_SPEC: &[&str] = &["EAGLE", "EAGLE3", "NEXTN", "STANDALONE", "NGRAM"];
pub(crate) const SGLANG_DISAGG_MODE: &[&str] = &["null", "prefill", "decode"];
pub(crate) const SGLANG_TRANSFER: &[&str] = &["mooncake", "nixl", "ascend", "fake"];
/// `python -m sglang_router.launch_router` in prefill/decode mode:
/// https://github.com/sgl-project/sglang/blob/cccb65463e6cd3fcb1af70f8c536e7b61c4eb68c/docs/advanced_features/pd_disaggregation.md
pub(crate) const SGLANG_ROUTER_FLAGS: &[&str] = &[
    "--pd-disaggregation",
    "--prefill",
    "--decode",
    "--host",
    "--port",
];

/// `trtllm-serve` (the `serve` command's click options) in
/// https://github.com/NVIDIA/TensorRT-LLM/blob/4c05a74891e4df8066f08ed4ce14b0972abe4e25/tensorrt_llm/commands/serve.py
pub(crate) const TRTLLM_FLAGS: &[&str] = &[
    "--tokenizer",
    "--host",
    "--port",
    "--backend",
    "--log_level",
    "--max_beam_width",
    "--max_batch_size",
    "--max_num_tokens",
    "--max_seq_len",
    "--tp_size",
    "--pp_size",
    "--ep_size",
    "--cluster_size",
    "--gpus_per_node",
    "--kv_cache_free_gpu_memory_fraction",
    "--num_postprocess_workers",
    "--trust_remote_code",
    "--extra_llm_api_options",
    "--reasoning_parser",
    "--metadata_server_config_file",
    "--server_role",
    "--fail_fast_on_attention_window_too_large",
    "--disagg_cluster_uri",
    "--enable_chunked_prefill",
    "--media_io_kwargs",
];
/// `trtllm-serve disaggregated`, the same file.
pub(crate) const TRTLLM_DISAGG_FLAGS: &[&str] = &[
    "-c",
    "--config_file",
    "-m",
    "--metadata_server_config_file",
    "-t",
    "--server_start_timeout",
    "-r",
    "--request_timeout",
    "-l",
    "--log_level",
    "--metrics-log-interval",
];
/// Keys of the `--extra_llm_api_options` YAML, as "parent.child": `enable_attention_dp`
/// and `kv_cache_config` in `BaseLlmArgs`,
/// https://github.com/NVIDIA/TensorRT-LLM/blob/fcd3f31682808ae56118ae43c1d7864a3a945e6f/tensorrt_llm/llmapi/llm_args.py ;
/// `kv_cache_config.dtype` in
/// https://github.com/NVIDIA/TensorRT-LLM/blob/a98a9061d72f6fd39f5d055ebdd2c6878a100e2c/docs/source/deployment-guide/quick-start-recipe-for-deepseek-r1-on-trtllm.md ;
/// `speculative_config` in
/// https://github.com/NVIDIA/TensorRT-LLM/blob/35dac55716a6f044ac2f4f31022378138a8aa1ca/docs/source/features/speculative-decoding.md ;
/// `cache_transceiver_config`, `disable_overlap_scheduler` and the disaggregated
/// server's config in
/// https://github.com/NVIDIA/TensorRT-LLM/blob/c3c3d76e28c57ee23adc3458fc6aca87300c8c21/examples/disaggregated/README.md
pub(crate) const TRTLLM_YAML_KEYS: &[&str] = &[
    "enable_attention_dp",
    "kv_cache_config",
    "kv_cache_config.dtype",
    "speculative_config",
    "speculative_config.decoding_type",
    "speculative_config.num_nextn_predict_layers",
    "speculative_config.max_draft_len",
    "speculative_config.speculative_model",
    "disable_overlap_scheduler",
    "cache_transceiver_config",
    "cache_transceiver_config.backend",
    "hostname",
    "port",
    "backend",
    "context_servers",
    "context_servers.num_instances",
    "context_servers.urls",
    "generation_servers",
    "generation_servers.num_instances",
    "generation_servers.urls",
];
pub(crate) const TRTLLM_KV: &[&str] = &["auto", "fp8"];
pub(crate) const TRTLLM_DECODING: &[&str] = &["MTP", "Eagle", "NGram", "DraftTarget"];
pub(crate) const TRTLLM_TRANSCEIVER: &[&str] = &["DEFAULT", "UCX", "NIXL"];

/// `python3 -m dynamo.frontend` and `python3 -m dynamo.vllm` in
/// https://github.com/ai-dynamo/dynamo/blob/8401366d94c1150040e49510e1a295aa1c010f7b/examples/backends/vllm/launch/disagg.sh ;
/// the worker takes vLLM's own engine arguments besides ("We use the same argument
/// parser as vLLM",
/// https://github.com/ai-dynamo/dynamo/blob/bfd3a4e209114aa4520b8b102b469d8d868a015d/docs/backends/vllm/README.md).
pub(crate) const DYNAMO_FRONTEND_FLAGS: &[&str] = &["--http-port"];
pub(crate) const DYNAMO_WORKER_FLAGS: &[&str] = &["--model", "--disaggregation-mode"];

pub(crate) fn flags_of(tool: Tool) -> Vec<&'static str> {
    match tool {
        Tool::VllmServe => VLLM_FLAGS.to_vec(),
        Tool::SglangServer => SGLANG_FLAGS.to_vec(),
        Tool::SglangRouter => SGLANG_ROUTER_FLAGS.to_vec(),
        Tool::TrtllmServe => TRTLLM_FLAGS.to_vec(),
        Tool::TrtllmDisaggregated => TRTLLM_DISAGG_FLAGS.to_vec(),
        Tool::DynamoFrontend => DYNAMO_FRONTEND_FLAGS.to_vec(),
        Tool::DynamoVllm => [DYNAMO_WORKER_FLAGS, VLLM_FLAGS].concat(),
    }
}

/// Every flag of every command is in its program's list, and every value with a
/// documented set of choices is one of them.
pub(crate) fn check_flags(l: &Launch) {
    for c in &l.commands {
        let known = flags_of(c.tool);
        for a in &c.args {
            assert!(
                known.contains(&a.flag.as_str()),
                "{:?} has no flag {}",
                c.tool,
                a.flag
            );
        }
        let choice = |flag: &str, allowed: &[&str]| {
            if let Some(v) = c.value(flag) {
                assert!(
                    allowed.contains(&v),
                    "{:?} {flag} {v} not in {allowed:?}",
                    c.tool
                );
            }
        };
        match c.tool {
            Tool::VllmServe | Tool::DynamoVllm => {
                choice("--kv-cache-dtype", VLLM_KV);
                choice("--quantization", &["fp8"]);
                choice("--disaggregation-mode", &["prefill", "decode"]);
                if let Some(json) = c.value("--speculative-config") {
                    let v: serde_json::Value = serde_json::from_str(json).unwrap();
                    let o = v.as_object().unwrap();
                    assert!(
                        o.keys().all(|k| VLLM_SPEC_KEYS.contains(&k.as_str())),
                        "{json}"
                    );
                    assert!(
                        VLLM_SPEC_METHODS.contains(&o["method"].as_str().unwrap()),
                        "{json}"
                    );
                }
                if let Some(json) = c.value("--kv-transfer-config") {
                    let v: serde_json::Value = serde_json::from_str(json).unwrap();
                    assert_eq!(v["kv_connector"], "NixlConnector");
                    assert_eq!(v["kv_role"], "kv_both");
                }
            }
            Tool::SglangServer => {
                choice("--kv-cache-dtype", SGLANG_KV);
                choice("--speculative-algorithm", SGLANG_SPEC);
                choice("--disaggregation-mode", SGLANG_DISAGG_MODE);
                choice("--disaggregation-transfer-backend", SGLANG_TRANSFER);
                choice("--quantization", &["fp8"]);
            }
            _ => {}
        }
    }
    for f in &l.files {
        for (key, value) in yaml_keys(&f.text) {
            assert!(
                TRTLLM_YAML_KEYS.contains(&key.as_str()),
                "{}: key {key}",
                f.name
            );
            let choice = |allowed: &[&str]| {
                assert!(
                    allowed.contains(&value.as_str()),
                    "{key}: {value} not in {allowed:?}"
                )
            };
            match key.as_str() {
                "kv_cache_config.dtype" => choice(TRTLLM_KV),
                "speculative_config.decoding_type" => choice(TRTLLM_DECODING),
                "cache_transceiver_config.backend" => choice(TRTLLM_TRANSCEIVER),
                _ => {}
            }
        }
    }
}

/// The keys of a two-level YAML map as "parent.child", with their scalar values.
pub(crate) fn yaml_keys(text: &str) -> Vec<(String, String)> {
    let mut parent = String::new();
    let mut keys = Vec::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('-') {
            continue;
        }
        let (key, value) = trimmed.split_once(':').unwrap();
        let value = value.trim().to_string();
        if line.starts_with(' ') {
            keys.push((format!("{parent}.{key}"), value));
        } else {
            parent = key.to_string();
            keys.push((key.to_string(), value));
        }
    }
    keys
}
