//! The `disagg` binary as a user runs it.

use super::{disagg, stderr, stdout};

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
    assert!(!o.status.success());
    assert!(stderr(&o).contains("llama-3.1-8b"), "{}", stderr(&o));
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
    assert!(!o.status.success() && stderr(&o).contains("h100-sxm"));
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
    assert!(!o.status.success() && stderr(&o).contains("--isl 0 must be"));
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
    assert!(!o.status.success() && stderr(&o).contains("bf16, fp16, fp8"));
    // A prefix cache holding the whole prompt leaves nothing to prefill: refused, on the
    // aggregated and the split axes alike.
    for axis in [
        &["--chip", "h100-sxm"][..],
        &[
            "--axis",
            "pd",
            "--prefill-chip",
            "h100-sxm",
            "--prefill-chips",
            "1",
            "--decode-chip",
            "h100-sxm",
            "--decode-chips",
            "1",
        ][..],
    ] {
        let mut args = vec!["predict", "--model", "llama-3.1-8b"];
        args.extend_from_slice(axis);
        args.extend_from_slice(&[
            "--isl", "64", "--osl", "1", "--batch", "1", "--cached", "64",
        ]);
        let o = disagg(&args);
        assert!(
            !o.status.success() && stderr(&o).contains("--cached 64 must be fewer than --isl 64"),
            "{}",
            stderr(&o)
        );
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
    assert!(
        !o.status.success() && stderr(&o).contains("num_attention_heads"),
        "{}",
        stderr(&o)
    );
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
    ] {
        let line = format!("{set:12} {}", summary.unwrap().line());
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

const AGG_KEYS: [&str; 13] = [
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

fn json_of(args: &[&str]) -> serde_json::Value {
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
    assert!(!o.status.success());
    assert!(stderr(&o).contains("mixture-of-experts"), "{}", stderr(&o));
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
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("agg") && stderr(&o).contains("spec"),
        "{}",
        stderr(&o)
    );
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
    assert!(!o.status.success());
    assert!(stderr(&o).contains("warp-drive"));
}

/// `output_tok_s` of DeepSeek-R1 on 8 B200 at the given layout, with extra arguments.
fn r1_output(layout: &[&str], extra: &[&str]) -> f64 {
    let mut args = vec![
        "predict",
        "--model",
        "deepseek-r1",
        "--chip",
        "b200",
        "--chips",
        "8",
        "--isl",
        "1024",
        "--osl",
        "2048",
        "--batch",
        "2048",
        "--json",
    ];
    args.extend_from_slice(layout);
    args.extend_from_slice(extra);
    json_of(&args)["output_tok_s"].as_f64().unwrap()
}

#[test]
fn assumptions_come_from_a_file_or_a_flag_and_bad_ones_are_named() {
    let dir = std::env::temp_dir().join(format!("disagg-assume-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();

    // The printed defaults, read back, predict exactly what no file predicts.
    let o = disagg(&["list", "assumptions"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let defaults = dir.join("defaults.json");
    std::fs::write(&defaults, stdout(&o)).unwrap();
    let attention_dp = ["--tp", "1", "--ep", "8"];
    let plain = r1_output(&attention_dp, &[]);
    let from_file = r1_output(
        &attention_dp,
        &["--assumptions", defaults.to_str().unwrap()],
    );
    assert_eq!(plain, from_file);

    // Aligning the replicas' prefills helps only where replicas share an expert group,
    // and the flag and the file field are the same switch.
    let aligned = r1_output(&attention_dp, &["--aligned-group-prefill"]);
    assert!(aligned > plain * 1.05, "{aligned} vs {plain}");
    let aligned_file = dir.join("aligned.json");
    std::fs::write(&aligned_file, r#"{"aligned_group_prefill": true}"#).unwrap();
    let aligned_by_file = r1_output(
        &attention_dp,
        &["--assumptions", aligned_file.to_str().unwrap()],
    );
    assert_eq!(aligned, aligned_by_file);
    let tensor_parallel = ["--tp", "8", "--ep", "8"];
    assert_eq!(
        r1_output(&tensor_parallel, &[]),
        r1_output(&tensor_parallel, &["--aligned-group-prefill"])
    );

    // A partial file overrides only what it names: a lower efficiency is slower.
    let slow = dir.join("slow.json");
    std::fs::write(&slow, r#"{"mfu": 0.3, "bw_eff": 0.4}"#).unwrap();
    assert!(
        r1_output(&tensor_parallel, &["--assumptions", slow.to_str().unwrap()])
            < r1_output(&tensor_parallel, &[])
    );

    // Misspelt names, impossible values and missing files fail with the reason, on
    // predict, sweep and validate alike.
    for (body, expected) in [
        (r#"{"mfuu": 0.5}"#, "unknown field `mfuu`"),
        (r#"{"bw_eff": 0}"#, "bw_eff = 0.0 must be at least 0.01"),
        (r#"{"mfu": 5e-324}"#, "mfu = 5e-324 must be at least 0.01"),
        (r#"{"runtime_reserve": 0.95}"#, "runtime_reserve"),
        (r#"{"max_seqs_per_replica": 0}"#, "max_seqs_per_replica"),
        ("not json", "expected"),
    ] {
        let bad = dir.join("bad.json");
        std::fs::write(&bad, body).unwrap();
        let path = bad.to_str().unwrap();
        for command in [
            "predict --model llama-3.1-8b --chip h100-sxm --isl 128 --osl 128 --batch 1",
            "sweep --model llama-3.1-8b --axis pd --chips h100-sxm --isl 128 --osl 128",
            "validate",
        ] {
            let mut args: Vec<&str> = command.split_whitespace().collect();
            args.extend(["--assumptions", path]);
            let o = disagg(&args);
            assert!(
                !o.status.success() && stderr(&o).contains(expected),
                "{body} on {}: {}",
                args[0],
                stderr(&o)
            );
        }
    }
    let o = disagg(&[
        "validate",
        "--assumptions",
        dir.join("missing.json").to_str().unwrap(),
    ]);
    assert!(!o.status.success() && stderr(&o).contains("cannot read assumptions file"));
}

#[test]
fn an_output_spread_slows_decode_and_a_bad_one_is_named() {
    // The spread goes as one `--output-cv=X` argument, so that a negative one is a value.
    let predict = |cv: &str, extra: &[&str]| {
        let spread = format!("--output-cv={cv}");
        let mut args = vec![
            "predict",
            "--model",
            "llama-3.1-8b",
            "--chip",
            "h100-sxm",
            "--isl",
            "2000",
            "--osl",
            "1000",
            "--batch",
            "64",
            &spread,
        ];
        args.extend_from_slice(extra);
        disagg(&args)
    };
    let run = |cv: &str| {
        let o = predict(cv, &["--json"]);
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_str::<serde_json::Value>(&stdout(&o)).unwrap()
    };
    let (fixed, spread) = (run("0"), run("1"));
    let tpot = |v: &serde_json::Value| v["tpot_s"].as_f64().unwrap();
    let kv = |v: &serde_json::Value| v["mem_kv_bytes"].as_f64().unwrap();
    assert!(tpot(&spread) > tpot(&fixed));
    assert!(kv(&spread) > kv(&fixed));
    // A bad spread, length or cached prefix is refused by the flag that set it.
    let o = predict("-1", &[]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("--output-cv -1.0 must be"),
        "{}",
        stderr(&o)
    );
    for (extra, flag) in [
        (["--cached", "100000"], "--cached"),
        (["--osl", "2000000"], "--osl"),
    ] {
        let mut args: Vec<&str> = vec![
            "predict",
            "--model",
            "llama-3.1-8b",
            "--chip",
            "h100-sxm",
            "--isl",
            "512",
            "--batch",
            "1",
            "--output-cv",
            "0",
        ];
        if extra[0] != "--osl" {
            args.extend(["--osl", "64"]);
        }
        args.extend(extra);
        let o = disagg(&args);
        assert!(
            stderr(&o).contains(&format!("error: {flag} ")),
            "{}",
            stderr(&o)
        );
    }
}

#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    use std::process::{Command, Stdio};
    // `disagg validate | head -1`: the reader goes away before the table is written.
    let mut child = Command::new(env!("CARGO_BIN_EXE_disagg"))
        .arg("validate")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{:?}: {err}", out.status);
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn a_link_slower_than_a_kilobit_is_refused_with_its_flag() {
    // --link-gbps 1e-320 used to pass as "positive" and print an infinite TTFT.
    for gbps in ["1e-320", "0", "-4", "1e9"] {
        let o = disagg(&[
            "predict",
            "--model",
            "llama-3.1-8b",
            "--axis",
            "pd",
            "--prefill-chip",
            "h100-sxm",
            "--prefill-chips",
            "1",
            "--decode-chip",
            "h100-sxm",
            "--decode-chips",
            "1",
            "--isl",
            "512",
            "--osl",
            "64",
            "--batch",
            "4",
            &format!("--link-gbps={gbps}"),
        ]);
        let err = stderr(&o);
        assert!(
            !o.status.success() && err.contains("--link-gbps"),
            "{gbps}: {err}"
        );
        assert!(!stdout(&o).contains("inf"), "{gbps}");
    }
}

#[test]
fn messages_name_their_flag_and_axis_ids_ignore_case() {
    // Axis ids read in any case, like chip and model ids.
    let o = disagg(&[
        "sweep",
        "--model",
        "llama-3.1-8b",
        "--axis",
        "PD",
        "--chips",
        "h100-sxm",
        "--isl",
        "256",
        "--osl",
        "32",
        "--max-chips",
        "2",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // An unknown one lists the valid axes, in the plural.
    let o = disagg(&[
        "sweep",
        "--model",
        "llama-3.1-8b",
        "--axis",
        "xy",
        "--chips",
        "h100-sxm",
        "--isl",
        "256",
        "--osl",
        "32",
    ]);
    assert!(
        stderr(&o).contains("valid axes: agg, pd, af, spec"),
        "{}",
        stderr(&o)
    );
    // A negative value is refused by its own flag, not as an unknown argument.
    let o = disagg(&[
        "predict",
        "--model",
        "llama-3.1-8b",
        "--chip",
        "h100-sxm",
        "--isl",
        "-1",
        "--osl",
        "8",
        "--batch",
        "1",
    ]);
    assert!(stderr(&o).contains("'--isl <ISL>'"), "{}", stderr(&o));
    // The target's tensor parallelism is --tp (it read "---tp").
    let o = disagg(&[
        "predict",
        "--model",
        "llama-3.1-8b",
        "--axis",
        "spec",
        "--chip",
        "h100-sxm",
        "--chips",
        "4",
        "--tp",
        "3",
        "--isl",
        "64",
        "--osl",
        "8",
        "--batch",
        "1",
        "--draft-model",
        "llama-3.2-1b",
    ]);
    let err = stderr(&o);
    assert!(
        err.contains("--tp 3 must divide") && !err.contains("---"),
        "{err}"
    );
}

#[test]
fn every_refused_value_names_its_flag() {
    let base = [
        "predict",
        "--model",
        "llama-3.1-8b",
        "--axis",
        "spec",
        "--chip",
        "h100-sxm",
        "--isl",
        "512",
        "--osl",
        "64",
        "--draft-model",
        "llama-3.2-1b",
    ];
    for (bad, flag) in [
        (&["--batch", "1", "--acceptance", "1.5"][..], "--acceptance"),
        (
            &["--batch", "1", "--draft-tokens", "20"][..],
            "--draft-tokens",
        ),
        (
            &["--batch", "1", "--weight-bits", "0.5"][..],
            "--weight-bits",
        ),
        (&["--batch", "0"][..], "--batch"),
    ] {
        let args: Vec<&str> = base.iter().chain(bad).copied().collect();
        let o = disagg(&args);
        let err = stderr(&o);
        assert!(
            err.starts_with(&format!("error: {flag} ")),
            "{bad:?}: {err}"
        );
    }
    let o = disagg(&[
        "predict",
        "--model",
        "deepseek-v3",
        "--axis",
        "af",
        "--attn-chip",
        "h200",
        "--attn-chips",
        "8",
        "--expert-chip",
        "b200",
        "--expert-chips",
        "8",
        "--isl",
        "100",
        "--osl",
        "10",
        "--batch",
        "4",
        "--micro-batches",
        "9",
    ]);
    assert!(
        stderr(&o).starts_with("error: --micro-batches 9"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn sweep_slo_flags_keep_the_frontiers_to_points_that_meet_them() {
    let o = disagg(&[
        "sweep",
        "--model",
        "llama-3.3-70b",
        "--axis",
        "pd",
        "--chips",
        "h100-sxm,h200",
        "--isl",
        "8192",
        "--osl",
        "512",
        "--max-chips",
        "16",
        "--ttft-ms",
        "500",
        "--tpot-ms",
        "30",
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["slo"]["ttft_s"], 0.5);
    assert!(v["slo_misses"]["met"].as_u64().unwrap() > 0);
    let frontier = v["frontier_throughput"].as_array().unwrap();
    assert!(!frontier.is_empty());
    for p in frontier {
        assert_eq!(p["meets_slo"], true);
        assert!(p["ttft_s"].as_f64().unwrap() <= 0.5 && p["tpot_s"].as_f64().unwrap() <= 0.03);
    }
    // The answer: the best compliant deployment per objective, in full, best first;
    // the throughput pick is the frontier's highest-throughput point.
    let picks = v["slo_picks"].as_array().unwrap();
    assert_eq!(picks.len(), 2);
    assert_eq!(picks[0]["objective"], "throughput-per-chip");
    let best = &picks[0]["points"][0];
    let top = frontier
        .iter()
        .map(|p| p["output_tok_s_per_chip"].as_f64().unwrap())
        .fold(0.0, f64::max);
    assert_eq!(best["output_tok_s_per_chip"].as_f64().unwrap(), top);
    assert!(picks[0]["sentence"]
        .as_str()
        .unwrap()
        .starts_with("Highest throughput meeting the SLO"));
    assert!(v["slo_why_others_fail"]
        .as_str()
        .unwrap()
        .contains("miss the TTFT limit"));
    let o = disagg(&[
        "sweep",
        "--model",
        "llama-3.3-70b",
        "--chips",
        "h100-sxm",
        "--isl",
        "64",
        "--osl",
        "8",
        "--tpot-ms",
        "0",
    ]);
    assert!(
        stderr(&o).starts_with("error: --tpot-ms 0.0 must be"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn sweep_compare_axes_reads_every_axis_at_the_same_target() {
    let args = |extra: &[&'static str]| {
        let mut a = vec![
            "sweep",
            "--model",
            "llama-3.3-70b",
            "--chips",
            "h100-sxm,h200",
            "--isl",
            "4096",
            "--osl",
            "512",
            "--max-chips",
            "16",
        ];
        a.extend_from_slice(extra);
        a
    };
    let o = disagg(&args(&["--compare-axes", "--json"]));
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let axes = v["axes"].as_array().unwrap();
    let names: Vec<&str> = axes.iter().map(|a| a["axis"].as_str().unwrap()).collect();
    assert_eq!(names.len(), 4, "{names:?}");
    let target = v["target_tok_s_user"].as_f64().unwrap();
    for a in axes {
        match a["unavailable"].as_str() {
            Some(why) => assert!(a["throughput"].is_null(), "{why}"),
            None => {
                let p = &a["throughput"];
                assert!(p["tok_s_user"].as_f64().unwrap() >= target);
            }
        }
    }
    // The sweep's own axis reads as its frontier does.
    let pd = axes
        .iter()
        .find(|a| {
            a["unavailable"].is_null()
                && a["throughput"]["config"]["pools"]
                    .as_array()
                    .is_some_and(|p| p.len() == 2)
        })
        .unwrap();
    let best = v["frontier_throughput"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["tok_s_user"].as_f64().unwrap() >= target)
        .unwrap();
    assert_eq!(&pd["throughput"], best);
    // Without the flag the key is absent; the text names each axis.
    let o = disagg(&args(&["--json"]));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert!(v.get("axes").is_none());
    let text = stdout(&disagg(&args(&["--compare-axes"])));
    assert!(text.contains("every axis at "), "{text}");
    assert!(
        text.contains("attention/expert       does not apply"),
        "{text}"
    );
}

#[test]
fn sweep_batch_fixes_every_points_batch_and_refuses_zero() {
    let run = |batch: &'static str| {
        disagg(&[
            "sweep",
            "--model",
            "llama-3.3-70b",
            "--chips",
            "h100-sxm,h200",
            "--isl",
            "2048",
            "--osl",
            "256",
            "--max-chips",
            "16",
            "--batch",
            batch,
            "--json",
        ])
    };
    let o = run("24");
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let frontier = v["frontier_throughput"].as_array().unwrap();
    assert!(!frontier.is_empty());
    assert!(frontier.iter().all(|p| p["batch"] == 24));
    let o = run("0");
    assert!(!o.status.success());
    assert!(
        stderr(&o).starts_with("error: --batch 0 must lie between 1 and"),
        "{}",
        stderr(&o)
    );
}
