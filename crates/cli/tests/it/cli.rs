//! The `disagg` binary as a user runs it.

use super::{disagg, refused, stderr, stdout};

#[test]
fn predict_json_has_the_documented_keys() {
    let o = disagg(&[
        "predict",
        "--model",
        "llama-3.1-8b",
        "--chip",
        "h100-sxm",
        "--chips",
        "1",
        "--isl",
        "1024",
        "--osl",
        "256",
        "--batch",
        "16",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    for key in AGG_KEYS {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    assert_eq!(v["batch"], 16);
    assert_eq!(v["fits"], true);
    assert!(v["tok_s_user"].as_f64().unwrap() > 10.0);
}

#[test]
fn max_throughput_and_explicit_parallelism() {
    let o = disagg(&[
        "predict",
        "--model",
        "deepseek-v3",
        "--chip",
        "h200",
        "--chips",
        "8",
        "--tp",
        "8",
        "--ep",
        "8",
        "--isl",
        "1024",
        "--osl",
        "1024",
        "--max-throughput",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!((v["tp"].as_u64(), v["ep"].as_u64()), (Some(8), Some(8)));
    assert!(v["batch"].as_u64().unwrap() > 1);
}

#[test]
fn unknown_ids_and_bad_values_fail_with_the_valid_choices() {
    let o = disagg(&[
        "predict", "--model", "llama-9", "--chip", "h100-sxm", "--isl", "1", "--osl", "1",
        "--batch", "1",
    ]);
    refused(&o, &["llama-3.1-8b"], "");
    let o = disagg(&[
        "predict",
        "--model",
        "llama-3.1-8b",
        "--chip",
        "h1000",
        "--isl",
        "1",
        "--osl",
        "1",
        "--batch",
        "1",
    ]);
    refused(&o, &["h100-sxm"], "");
    let o = disagg(&[
        "predict",
        "--model",
        "llama-3.1-8b",
        "--chip",
        "h100-sxm",
        "--isl",
        "0",
        "--osl",
        "1",
        "--batch",
        "1",
    ]);
    refused(&o, &["--isl 0 must be"], "");
    let o = disagg(&[
        "predict",
        "--model",
        "llama-3.1-8b",
        "--chip",
        "h100-sxm",
        "--isl",
        "1",
        "--osl",
        "1",
        "--batch",
        "1",
        "--weight-dtype",
        "fp6",
    ]);
    refused(&o, &["bf16, fp16, fp8"], "");
    // A prefix cache holding the whole prompt leaves nothing to prefill: refused, on the
    // aggregated and the split axes alike.
    for axis in [&["--chip", "h100-sxm"][..], &super::ONE_H100_EACH_POOL[..]] {
        let mut args = vec!["predict", "--model", "llama-3.1-8b"];
        args.extend_from_slice(axis);
        args.extend_from_slice(&[
            "--isl", "64", "--osl", "1", "--batch", "1", "--cached", "64",
        ]);
        let o = disagg(&args);
        refused(&o, &["--cached 64 must be fewer than --isl 64"], "");
    }
}

#[test]
fn a_config_json_path_works_and_a_broken_one_is_explained() {
    let dir = std::env::temp_dir().join(format!("disagg-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("config.json");
    std::fs::write(&good, r#"{"architectures":["LlamaForCausalLM"],"hidden_size":4096,"num_hidden_layers":32,
        "num_attention_heads":32,"num_key_value_heads":8,"intermediate_size":14336,"vocab_size":128256}"#).unwrap();
    let o = disagg(&[
        "predict",
        "--model",
        good.to_str().unwrap(),
        "--chip",
        "l40s",
        "--isl",
        "512",
        "--osl",
        "128",
        "--batch",
        "4",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // The config states no context window: the parser's warning says what it assumed,
    // on stderr, leaving the output alone.
    let warned = stderr(&o);
    assert!(
        warned.contains("warning: ")
            && warned.contains("max_position_embeddings is missing: a context window of 4096"),
        "{warned}"
    );
    assert!(!stdout(&o).contains("max_position_embeddings"));
    let bad = dir.join("bad.json");
    std::fs::write(
        &bad,
        r#"{"hidden_size":4096,"num_hidden_layers":32,"vocab_size":100}"#,
    )
    .unwrap();
    let o = disagg(&[
        "predict",
        "--model",
        bad.to_str().unwrap(),
        "--chip",
        "l40s",
        "--isl",
        "512",
        "--osl",
        "128",
        "--batch",
        "4",
    ]);
    refused(&o, &["num_attention_heads"], "");
}

#[test]
fn list_and_validate_run() {
    let o = disagg(&["list", "chips"]);
    assert!(o.status.success() && stdout(&o).contains("mi355x"));
    let o = disagg(&["list", "models"]);
    assert!(o.status.success() && stdout(&o).contains("deepseek-v3"));
    let o = disagg(&["validate"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("calibration") && out.contains("holdout") && out.contains("median |error|")
    );
    // The summary lines are the engine's report in its one wording (the page prints
    // the same).
    let table = disagg_engine::validation::BenchmarkTable::builtin().unwrap();
    let report = disagg_engine::validation::run(
        disagg_engine::Catalogue::builtin(),
        &table,
        &disagg_engine::Assumptions::default(),
    );
    for (set, summary) in [
        ("calibration", report.calibration),
        ("holdout", report.holdout),
        ("holdout, TTFT rows", report.holdout_ttft),
        ("holdout, disaggregated", report.holdout_disaggregated),
        ("holdout, median TTFT", report.holdout_median_ttft),
    ] {
        let line = format!("{set:22} {}", summary.unwrap().line());
        assert!(out.lines().any(|l| l == line), "{line} not in {out}");
    }
    // Every point's row names its framework, in the table and in the JSON.
    assert!(out.lines().next().unwrap().contains(" framework "), "{out}");
    for p in &table.point {
        let row = out
            .lines()
            .find(|l| l.split_whitespace().next() == Some(p.id.as_str()))
            .unwrap_or_else(|| panic!("no row for {}", p.id));
        assert!(
            row.split_whitespace().any(|w| w == p.framework.id()),
            "{row}"
        );
    }
    let o = disagg(&["validate", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), table.point.len());
    for (row, p) in rows.iter().zip(&table.point) {
        assert_eq!(row["point"]["framework"], p.framework.id(), "{}", p.id);
    }
}

pub(crate) const AGG_KEYS: [&str; 13] = [
    "ttft_s",
    "tpot_s",
    "tok_s_user",
    "output_tok_s",
    "output_tok_s_per_chip",
    "input_tok_s",
    "batch",
    "fits",
    "reason",
    "mem_per_chip_bytes",
    "bottleneck",
    "usd_per_mtok_output",
    "joules_per_output_token",
];

/// `predict` of Llama-3.1-8B on one H100 at batch 64 with `isl` and `osl`, the flags
/// each test adds after it.
pub(crate) fn llama_8b_at_batch_64(isl: &'static str, osl: &'static str) -> [&'static str; 11] {
    [
        "predict",
        "--model",
        "llama-3.1-8b",
        "--chip",
        "h100-sxm",
        "--isl",
        isl,
        "--osl",
        osl,
        "--batch",
        "64",
    ]
}

pub(crate) fn json_of(args: &[&str]) -> serde_json::Value {
    let o = disagg(args);
    assert!(o.status.success(), "{:?}: {}", args, stderr(&o));
    serde_json::from_str(&stdout(&o)).unwrap()
}

#[test]
fn predict_along_each_axis_has_the_aggregated_keys_and_pools() {
    let common = ["--isl", "2048", "--osl", "256", "--batch", "32", "--json"];
    let cases: [&[&str]; 3] = [
        &[
            "predict",
            "--model",
            "llama-3.3-70b",
            "--axis",
            "pd",
            "--prefill-chip",
            "h100-sxm",
            "--prefill-chips",
            "4",
            "--decode-chip",
            "mi300x",
            "--decode-chips",
            "2",
        ],
        &[
            "predict",
            "--model",
            "qwen3-30b-a3b",
            "--axis",
            "af",
            "--attn-chip",
            "h200",
            "--attn-chips",
            "2",
            "--expert-chip",
            "mi300x",
            "--expert-chips",
            "4",
            "--micro-batches",
            "2",
            "--link-gbps",
            "800",
        ],
        &[
            "predict",
            "--model",
            "llama-3.3-70b",
            "--axis",
            "spec",
            "--chip",
            "h200",
            "--chips",
            "4",
            "--draft-model",
            "llama-3.2-1b",
            "--draft-chip",
            "l40s",
            "--draft-chips",
            "1",
            "--acceptance",
            "0.7",
            "--draft-tokens",
            "3",
        ],
    ];
    for case in cases {
        let args: Vec<&str> = case.iter().chain(common.iter()).copied().collect();
        let v = json_of(&args);
        for key in AGG_KEYS {
            assert!(v.get(key).is_some(), "{key} missing for {args:?}");
        }
        let pools = v["pools"].as_array().unwrap();
        assert_eq!(pools.len(), 2, "{args:?}");
        for pool in pools {
            assert!(pool["utilisation"].as_f64().is_some());
            assert!(pool.get("input_tok_s_per_chip").is_some());
            assert!(pool.get("output_tok_s_per_chip").is_some());
        }
        assert!(v["transfer_time_s"].as_f64().is_some());
        assert_eq!(v["heterogeneous"], true);
    }
}

#[test]
fn sweep_prints_frontiers_callout_and_counts() {
    let v = json_of(&[
        "sweep",
        "--model",
        "llama-3.1-8b",
        "--axis",
        "pd",
        "--chips",
        "h100-sxm,l40s,mi300x",
        "--isl",
        "4096",
        "--osl",
        "256",
        "--max-chips",
        "16",
        "--target-tok-s-user",
        "50",
        "--json",
    ]);
    assert!(v["evaluated"].as_u64().unwrap() > 1000);
    assert!(!v["frontier_throughput"].as_array().unwrap().is_empty());
    assert!(!v["frontier_cost"].as_array().unwrap().is_empty());
    let callouts = v["callouts"].as_array().unwrap();
    assert_eq!(callouts.len(), 2);
    assert!(callouts[0]["headline"]
        .as_str()
        .unwrap()
        .contains("50.0 tok/s/user"));
    let csv = disagg(&[
        "sweep",
        "--model",
        "llama-3.1-8b",
        "--axis",
        "agg",
        "--chips",
        "h100-sxm",
        "--isl",
        "1024",
        "--osl",
        "256",
        "--csv",
    ]);
    assert!(csv.status.success());
    assert!(stdout(&csv).starts_with("frontier,class,label"));
}

#[test]
fn axis_errors_name_the_problem() {
    let o = disagg(&[
        "predict",
        "--model",
        "llama-3.1-8b",
        "--axis",
        "af",
        "--attn-chip",
        "h100-sxm",
        "--attn-chips",
        "1",
        "--expert-chip",
        "h100-sxm",
        "--expert-chips",
        "1",
        "--isl",
        "128",
        "--osl",
        "128",
        "--batch",
        "1",
    ]);
    refused(&o, &["mixture-of-experts"], "");
    let o = disagg(&[
        "sweep",
        "--model",
        "llama-3.1-8b",
        "--axis",
        "diagonal",
        "--chips",
        "h100-sxm",
        "--isl",
        "128",
        "--osl",
        "128",
    ]);
    refused(&o, &["agg", "spec"], "");
    let o = disagg(&[
        "sweep",
        "--model",
        "llama-3.1-8b",
        "--chips",
        "h100-sxm,warp-drive",
        "--isl",
        "128",
        "--osl",
        "128",
    ]);
    refused(&o, &["warp-drive"], "");
}

/// `--run-requests` with `--longest-output` reads the rates over a finite run (MLPerf
/// Offline): lower than the steady loop's, with the drain opened by `--explain`; each
/// flag needs the other, and bad values and unmodelled axes are refused by name.
#[test]
fn a_finite_run_lowers_the_rates_and_is_refused_where_it_does_not_apply() {
    let base = llama_8b_at_batch_64("500", "200");
    let rate = |extra: &[&str]| -> f64 {
        json_of(&[&base[..], &["--json"], extra].concat())["output_tok_s"]
            .as_f64()
            .unwrap()
    };
    let steady = rate(&[]);
    let finite = rate(&["--run-requests", "2000", "--longest-output", "1000"]);
    assert!(finite < steady, "{finite} vs {steady}");
    let longer = rate(&["--run-requests", "200000", "--longest-output", "1000"]);
    assert!(finite < longer && longer < steady);
    let o = disagg(
        &[
            &base[..],
            &[
                "--run-requests",
                "2000",
                "--longest-output",
                "1000",
                "--explain",
            ],
        ]
        .concat(),
    );
    assert!(
        stdout(&o).contains("time the run loses while its batch drains")
            && stdout(&o)
                .contains("! a finite run of 2000 requests, read to its last request's end"),
        "{}",
        stdout(&o)
    );
    for (extra, says) in [
        (&["--run-requests", "2000"][..], "--longest-output"),
        (&["--longest-output", "1000"][..], "--run-requests"),
        (
            &["--run-requests", "2000", "--longest-output", "100"][..],
            "--longest-output 100",
        ),
        (
            &["--run-requests", "0", "--longest-output", "1000"][..],
            "--run-requests 0",
        ),
        // Two requests of mean output 200 hold at most 399 tokens in one of them.
        (
            &["--run-requests", "2", "--longest-output", "400"][..],
            "--longest-output 400 must lie between --osl 200 and 399",
        ),
    ] {
        let o = disagg(&[&base[..], extra].concat());
        refused(&o, &[says], &format!("{extra:?}"));
    }
    let o = disagg(
        &[
            &["predict", "--model", "llama-3.1-8b"][..],
            &super::ONE_H100_EACH_POOL,
            &[
                "--isl",
                "500",
                "--osl",
                "200",
                "--batch",
                "64",
                "--run-requests",
                "2000",
                "--longest-output",
                "1000",
            ],
        ]
        .concat(),
    );
    refused(&o, &["aggregated deployments only"], "");
}

/// `--prompts-per-user M` sends `ceil(M x batch)` prompts at every batch: `predict`
/// agrees with `--prompts` stated for its batch, a sweep's first wave scales with each
/// point's batch, and the two flags, a value under one and a non-number are refused by
/// name.
#[test]
fn prompts_per_user_scale_the_first_wave_with_the_batch() {
    let base = llama_8b_at_batch_64("2000", "200");
    let ttft = |extra: &[&str]| -> f64 {
        json_of(&[&base[..], &["--json"], extra].concat())["ttft_s"]
            .as_f64()
            .unwrap()
    };
    let steady = ttft(&[]);
    let per_user = ttft(&["--prompts-per-user", "10"]);
    assert_eq!(per_user, ttft(&["--prompts", "640"]));
    assert_ne!(per_user, steady);
    assert_eq!(
        ttft(&["--prompts-per-user", "2.5"]),
        ttft(&["--prompts", "160"])
    );
    for (extra, says) in [
        (
            &["--prompts-per-user", "10", "--prompts", "640"][..],
            "--prompts",
        ),
        (&["--prompts-per-user", "0.5"][..], "--prompts-per-user 0.5"),
        (&["--prompts-per-user", "NaN"][..], "--prompts-per-user NaN"),
        (&["--prompts-per-user", "ten"][..], "--prompts-per-user"),
    ] {
        let o = disagg(&[&base[..], &["--json"], extra].concat());
        refused(&o, &[says], &format!("{extra:?}"));
    }
}
