//! Snapshots of what the CLI prints: the key set of `predict --json` (one shape on
//! every axis), the text of two predictions and the frontiers and callout prose of two
//! sweeps. A change that alters them fails here; when the change is meant, rerun with
//! `UPDATE_SNAPSHOTS=1` and commit the new files with the reason.

use super::{disagg, stderr, stdout};
use std::collections::BTreeSet;
use std::path::PathBuf;

fn snapshot_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(name)
}

/// Compares `actual` with the stored snapshot `name` (or stores it when asked to).
pub(crate) fn check(name: &str, actual: &str) {
    let path = snapshot_path(name);
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}; run with UPDATE_SNAPSHOTS=1", path.display()));
    if expected != actual {
        let line = expected
            .lines()
            .zip(actual.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| expected.lines().count().min(actual.lines().count()));
        panic!(
            "{name} differs from its snapshot at line {}:\n  stored: {:?}\n  now:    {:?}",
            line + 1,
            expected.lines().nth(line).unwrap_or(""),
            actual.lines().nth(line).unwrap_or("")
        );
    }
}

fn run(args: &[&str]) -> String {
    let o = disagg(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    stdout(&o)
}

const LENGTHS: [&str; 4] = ["--isl", "2048", "--osl", "256"];

/// One deployment on each axis.
fn axis_cases() -> [Vec<&'static str>; 4] {
    [
        vec![
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
            "--batch",
            "64",
        ],
        vec![
            "predict",
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
            "--batch",
            "64",
        ],
        vec![
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
            "--batch",
            "64",
        ],
        vec![
            "predict",
            "--model",
            "deepseek-v3",
            "--axis",
            "spec",
            "--chip",
            "h200",
            "--chips",
            "8",
            "--batch",
            "64",
        ],
    ]
}

/// Every key of a JSON object, nested ones as `parent.child` (array elements share
/// one `parent[]` prefix).
fn keys(v: &serde_json::Value, prefix: &str, out: &mut BTreeSet<String>) {
    match v {
        serde_json::Value::Object(map) => {
            for (k, child) in map {
                let name = format!("{prefix}{k}");
                out.insert(name.clone());
                // A derived input's chain has the shape of the chain it belongs to,
                // however deep it nests.
                if !name.ends_with(".source.chain") {
                    keys(child, &format!("{name}."), out);
                }
            }
        }
        serde_json::Value::Array(items) => {
            for item in items {
                keys(item, &format!("{}[].", prefix.trim_end_matches('.')), out);
            }
        }
        _ => {}
    }
}

#[test]
fn predict_json_is_one_shape_on_every_axis() {
    let mut shapes = Vec::new();
    for case in axis_cases() {
        let args: Vec<&str> = case
            .iter()
            .chain(&LENGTHS)
            .chain(&["--json"])
            .copied()
            .collect();
        let v: serde_json::Value = serde_json::from_str(&run(&args)).unwrap();
        let mut top = BTreeSet::new();
        for k in v.as_object().unwrap().keys() {
            top.insert(k.clone());
        }
        let mut all = BTreeSet::new();
        keys(&v, "", &mut all);
        shapes.push((args[2..].join(" "), top, all));
    }
    // The top-level keys are the same whatever the axis.
    for (args, top, _) in &shapes[1..] {
        assert_eq!(top, &shapes[0].1, "{args}");
    }
    // The whole key set, pools and operators included, as recorded.
    let union: BTreeSet<String> = shapes.iter().flat_map(|s| s.2.iter().cloned()).collect();
    let text: String = union.iter().map(|k| format!("{k}\n")).collect();
    check("predict_json_keys.txt", &text);
}

#[test]
fn predict_text_of_an_aggregated_and_a_prefill_decode_deployment() {
    let cases = axis_cases();
    for (name, case) in [
        ("predict_aggregated.txt", &cases[0]),
        ("predict_prefill_decode.txt", &cases[1]),
    ] {
        let args: Vec<&str> = case.iter().chain(&LENGTHS).copied().collect();
        // The error bands follow the validation table, which grows; `error_band.rs`
        // checks them against the engine instead.
        let text: String = run(&args)
            .lines()
            .filter(|l| !l.starts_with("  error, "))
            .map(|l| format!("{l}\n"))
            .collect();
        check(name, &text);
    }
}

#[test]
fn sweep_frontiers_and_callouts_of_two_scenarios() {
    check(
        "sweep_llama_prefill_decode.txt",
        &run(&[
            "sweep",
            "--model",
            "llama-3.3-70b",
            "--axis",
            "pd",
            "--chips",
            "h100-sxm,h200,mi300x",
            "--isl",
            "8192",
            "--osl",
            "512",
            "--max-chips",
            "16",
        ]),
    );
    check(
        "sweep_deepseek_attention_expert.txt",
        &run(&[
            "sweep",
            "--model",
            "deepseek-v3",
            "--axis",
            "af",
            "--chips",
            "h200,b200",
            "--isl",
            "2048",
            "--osl",
            "512",
            "--max-chips",
            "32",
            "--target-tok-s-user",
            "30",
        ]),
    );
}

#[test]
fn recommend_ranking_minimum_and_rejected_chips() {
    // A fixed chip list, so that chips added to the catalogue do not move it.
    check(
        "recommend_llama.txt",
        &run(&[
            "recommend",
            "--model",
            "llama-3.3-70b",
            "--isl",
            "1000",
            "--osl",
            "1000",
            "--ttft-ms",
            "500",
            "--tpot-ms",
            "30",
            "--rate",
            "10",
            "--chips",
            "h100-sxm,h200,mi300x,b200,gaudi3,groq-lpu,m4-max,l40s",
        ]),
    );
}

#[test]
fn list_apis_prints_the_price_table_with_dates_and_sources() {
    check("list_apis.txt", &run(&["list", "apis"]));
}

/// A pipeline over two unlike machines: the figures and each stage's chip, layers,
/// memory and time, and the hop between them.
#[test]
fn predict_text_of_a_pipeline_across_unlike_devices() {
    let text = run(&[
        "predict",
        "--model",
        "llama-3.3-70b",
        "--weight-dtype",
        "fp8",
        "--isl",
        "2048",
        "--osl",
        "256",
        "--pipeline",
        "m3-ultra,m4-max",
        "--link",
        "tb5",
        "--batch",
        "4",
    ]);
    check("predict_pipeline.txt", &text);
}
