//! `--save-bundle` and `--bundle`: a run from flags and a run of the bundle those flags
//! saved print the same bytes, for `sweep` and `predict`; `recommend --bundle` refuses
//! the flags a bundle holds.

use super::{disagg, refused, stderr, stdout};
use std::path::PathBuf;

/// A fresh directory for one test's files.
fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("disagg-bundle-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs `args`, which must succeed; its stdout.
fn ok(args: &[&str]) -> String {
    let o = disagg(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    stdout(&o)
}

/// `flags` run with `--save-bundle`, then the bundle run alone: the same bytes, and
/// a bundle saved again from the bundle is the same file.
fn round_trip(command: &str, flags: &[&str], d: &std::path::Path) -> String {
    let file = d.join(format!("{command}.json"));
    let again = d.join(format!("{command}-again.json"));
    let (file_s, again_s) = (file.to_str().unwrap(), again.to_str().unwrap());
    let mut first = vec![command];
    first.extend_from_slice(flags);
    first.extend(["--json", "--save-bundle", file_s]);
    let from_flags = ok(&first);
    let from_bundle = ok(&[
        command,
        "--bundle",
        file_s,
        "--json",
        "--save-bundle",
        again_s,
    ]);
    assert_eq!(from_flags, from_bundle, "{command} {flags:?}");
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        std::fs::read_to_string(&again).unwrap()
    );
    from_bundle
}

#[test]
fn a_sweep_from_its_bundle_prints_the_same_bytes() {
    let d = dir("sweep");
    let assumptions = d.join("a.json");
    std::fs::write(&assumptions, r#"{"mfu": 0.5, "step_overhead": 0.0003}"#).unwrap();
    let out = round_trip(
        "sweep",
        &[
            "--model",
            "llama-3.1-8b",
            "--axis",
            "pd",
            "--chips",
            "h100-sxm,mi300x",
            "--isl",
            "2048",
            "--osl",
            "256",
            "--cached",
            "512",
            "--output-cv",
            "0.4",
            "--max-chips",
            "8",
            "--ttft-ms",
            "900",
            "--slo-at",
            "p90",
            "--link-gbps",
            "400",
            "--assumptions",
            assumptions.to_str().unwrap(),
        ],
        &d,
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(!v["frontier_throughput"].as_array().unwrap().is_empty());
    // The bundle holds what the flags said.
    let b: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("sweep.json")).unwrap()).unwrap();
    assert_eq!(b["model"], serde_json::json!({"catalogue": "llama-3.1-8b"}));
    assert_eq!(b["assumptions"]["mfu"], 0.5);
    assert_eq!(b["chips"][1]["id"], "mi300x");
    assert_eq!(b["sweep"]["ttft_ms"], 900.0);
    assert_eq!(b["sweep"]["slo_at"], "p90");
    assert!(b.get("deployment").is_none());
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn a_prediction_from_its_bundle_prints_the_same_bytes_on_every_kind_of_input() {
    let d = dir("predict");
    let config = d.join("config.json");
    std::fs::write(
        &config,
        r#"{"architectures": ["LlamaForCausalLM"], "hidden_size": 4096,
            "intermediate_size": 14336, "num_hidden_layers": 32, "num_attention_heads": 32,
            "num_key_value_heads": 8, "vocab_size": 128256, "max_position_embeddings": 131072}"#,
    )
    .unwrap();
    let config = config.to_str().unwrap();
    // A user's config at the largest batch that fits, the planner choosing the layout.
    let out = round_trip(
        "predict",
        &[
            "--model",
            config,
            "--chip",
            "h200",
            "--chips",
            "2",
            "--isl",
            "4096",
            "--osl",
            "512",
            "--max-throughput",
            "--weight-bits",
            "4.5",
        ],
        &d,
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["model"], serde_json::json!(config));
    // A prefill/decode split with a speculating decode pool.
    round_trip(
        "predict",
        &[
            "--model",
            "deepseek-v3",
            "--axis",
            "pd",
            "--prefill-chip",
            "h200",
            "--prefill-chips",
            "8",
            "--decode-chip",
            "b200",
            "--decode-chips",
            "8",
            "--isl",
            "2048",
            "--osl",
            "512",
            "--batch",
            "64",
            "--speculative-decode",
            "--acceptance",
            "0.85",
            "--draft-tokens",
            "1",
        ],
        &d,
    );
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn a_bundle_without_a_deployment_and_a_bad_bundle_are_refused_by_name() {
    let d = dir("refusals");
    let file = d.join("sweep.json");
    let file_s = file.to_str().unwrap();
    ok(&[
        "sweep",
        "--model",
        "llama-3.1-8b",
        "--chips",
        "h100-sxm",
        "--isl",
        "512",
        "--osl",
        "64",
        "--max-chips",
        "2",
        "--axis",
        "agg",
        "--save-bundle",
        file_s,
    ]);
    let o = disagg(&["predict", "--bundle", file_s]);
    refused(&o, &["selects no deployment"], "");
    // The flags a bundle holds cannot come with it.
    let o = disagg(&["sweep", "--bundle", file_s, "--isl", "100"]);
    refused(&o, &["cannot be used with"], "");
    // A bad field is named.
    let text = std::fs::read_to_string(&file)
        .unwrap()
        .replace("\"osl\": 64", "\"osl\": 0");
    std::fs::write(&file, text).unwrap();
    let o = disagg(&["sweep", "--bundle", file_s]);
    refused(&o, &["workload.osl"], "");
    let o = disagg(&["sweep", "--bundle", d.join("none.json").to_str().unwrap()]);
    assert!(stderr(&o).contains("cannot read bundle"), "{}", stderr(&o));
    std::fs::remove_dir_all(&d).ok();
}

/// `recommend --bundle` searches the bundle's chips under its settings, and refuses, by
/// name, every flag the bundle already holds: the cost assumptions, the scheduling, the
/// EAGLE head and the link among them, which it used to ignore.
#[test]
fn recommend_runs_a_bundle_and_refuses_the_flags_it_holds() {
    let d = dir("recommend");
    let file = d.join("predict.json");
    let file_s = file.to_str().unwrap();
    let mut save = super::cli::llama_8b_at_batch_64("1000", "200").to_vec();
    save.extend(["--save-bundle", file_s]);
    ok(&save);
    let limits = ["--ttft-ms", "2000", "--tpot-ms", "50", "--users", "100"];
    let mut args = vec!["recommend", "--bundle", file_s];
    args.extend_from_slice(&limits);
    assert!(ok(&args).contains("recommend for TTFT 2000 ms, TPOT 50 ms"));
    for held in [
        &["--pue", "3"][..],
        &["--years", "1"],
        &["--cost-basis", "ownership"],
        &["--capex-usd-per-chip", "30000"],
        &["--scheduling", "static"],
        &["--eagle-layers", "2"],
        &["--link", "10gbe"],
    ] {
        let mut with_held = args.clone();
        with_held.extend_from_slice(held);
        let o = disagg(&with_held);
        let case = format!("{held:?} beside --bundle");
        refused(&o, &["cannot be used with", held[0]], &case);
    }
    std::fs::remove_dir_all(&d).ok();
}
