//! `--scheduling static`: a fixed batch that prefills every prompt first and then
//! generates without refill (MODEL.md 6.1.1), against continuous refill.

use super::{disagg, refused, stderr, stdout};

fn predict(extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "predict",
        "--model",
        "llama-3.1-8b",
        "--chip",
        "h100-sxm",
        "--isl",
        "1000",
        "--osl",
        "200",
        "--batch",
        "32",
        "--json",
    ];
    args.extend_from_slice(extra);
    disagg(&args)
}

fn json(extra: &[&str]) -> serde_json::Value {
    let o = predict(extra);
    assert!(o.status.success(), "{extra:?}: {}", stderr(&o));
    serde_json::from_str(&stdout(&o)).unwrap()
}

#[test]
fn a_static_batch_waits_for_every_prompt_and_then_runs_uninterrupted() {
    let cont = json(&[]);
    let stat = json(&["--scheduling", "static"]);
    let f = |v: &serde_json::Value, k: &str| v[k].as_f64().unwrap();
    // The same tokens per second (fixed lengths), a later first token, a faster one
    // after it: TPOT the bare decode step.
    assert!((f(&stat, "output_tok_s") - f(&cont, "output_tok_s")).abs() < 1e-9);
    assert!(f(&stat, "ttft_s") > f(&cont, "ttft_s"));
    assert!(f(&stat, "tpot_s") < f(&cont, "tpot_s"));
    assert!((f(&stat, "tpot_s") - f(&stat, "decode_step_s")).abs() < 1e-12);
    // Everyone waits the same: p50 = p90 = mean.
    assert_eq!(stat["ttft"]["wait"]["kind"], "fixed");
    assert_eq!(stat["ttft"]["p50_s"], stat["ttft"]["p90_s"]);
    // The explain chain says so.
    let ttft = stat["explain"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["quantity"] == "TTFT")
        .unwrap();
    assert_eq!(ttft["formula"], "t_it + t_pf × n_pf / o");
    // The bundle keeps it.
    let dir = std::env::temp_dir().join(format!("disagg-sched-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("b.json");
    let o = predict(&[
        "--scheduling",
        "static",
        "--save-bundle",
        file.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("\"scheduling\": \"static\""), "{text}");
    let again = disagg(&["predict", "--bundle", file.to_str().unwrap(), "--json"]);
    let again: serde_json::Value = serde_json::from_str(&stdout(&again)).unwrap();
    assert_eq!(again["ttft_s"], stat["ttft_s"]);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_bad_scheduling_or_a_static_batch_with_spread_outputs_is_refused_by_name() {
    let o = predict(&["--scheduling", "dynamic"]);
    refused(&o, &["--scheduling", "continuous, static"], "");
    let o = predict(&["--scheduling", "static", "--output-cv", "0.5"]);
    refused(&o, &["scheduling static"], "");
}
