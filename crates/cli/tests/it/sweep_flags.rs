//! `sweep`'s own flags: latency limits, the axes side by side, a fixed batch.

use super::{disagg, refused, stderr, stdout};

/// Llama-3.3-70B at 8,192 / 512 tokens over H100 and H200 on the prefill/decode axis,
/// 16 chips at most, then `extra` (the limits and the output form).
fn llama_pd_sweep(extra: &[&'static str]) -> Vec<&'static str> {
    let mut a = vec![
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
    ];
    a.extend_from_slice(extra);
    a
}

#[test]
fn sweep_slo_flags_keep_the_frontiers_to_points_that_meet_them() {
    let o = disagg(&llama_pd_sweep(&[
        "--ttft-ms",
        "500",
        "--tpot-ms",
        "30",
        "--json",
    ]));
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
    let err = refused(&run("0"), &[], "--batch 0");
    assert!(
        err.starts_with("error: --batch 0 must lie between 1 and"),
        "{err}"
    );
}

/// `--slo-at p90`: the frontiers hold the points whose p90 TTFT and TPOT meet the
/// limits, and the summary names the p90.
#[test]
fn sweep_limits_at_the_p90_hold_the_p90_figures() {
    let args = |extra: &[&'static str]| {
        let mut a = vec!["--ttft-ms", "1500", "--tpot-ms", "40", "--slo-at", "p90"];
        a.extend_from_slice(extra);
        llama_pd_sweep(&a)
    };
    let o = disagg(&args(&["--json"]));
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["slo"]["at"], "p90");
    let frontier = v["frontier_throughput"].as_array().unwrap();
    assert!(!frontier.is_empty());
    for p in frontier {
        assert!(p["ttft_p90_s"].as_f64().unwrap() <= 1.5, "{p}");
        assert!(p["tpot_p90_s"].as_f64().unwrap() <= 0.04, "{p}");
    }
    let text = stdout(&disagg(&args(&[])));
    assert!(
        text.contains("SLO (p90 TTFT 1500 ms, p90 TPOT 40 ms)") && text.contains("miss p90 TTFT"),
        "{text}"
    );
    // Without a limit the statistic bounds nothing: refused, where it used to be ignored.
    let o = disagg(&llama_pd_sweep(&["--slo-at", "p90"]));
    refused(
        &o,
        &["--slo-at says what --ttft-ms and --tpot-ms bound"],
        "",
    );
}

/// A sweep of one axis refuses the flags of the others by name, where it used to ignore
/// them; with --compare-axes every axis runs, so each flag has one that reads it.
#[test]
fn a_sweep_of_one_axis_refuses_the_flags_of_the_others() {
    let sweep = |extra: &[&str]| {
        let mut a = vec![
            "sweep",
            "--model",
            "llama-3.1-8b",
            "--chips",
            "h100-sxm",
            "--isl",
            "500",
            "--osl",
            "100",
            "--max-chips",
            "2",
            "--axis",
            "agg",
        ];
        a.extend_from_slice(extra);
        disagg(&a)
    };
    for (extra, says) in [
        (
            &["--link", "10gbe"][..],
            "--link sets the link between pools",
        ),
        (
            &["--no-kv-streaming"],
            "--no-kv-streaming applies to --axis pd",
        ),
        (
            &["--acceptance", "0.5"],
            "--acceptance applies to --axis spec",
        ),
        (
            &["--draft-chip", "h100-sxm"],
            "--draft-chip applies to --axis spec",
        ),
    ] {
        let o = sweep(extra);
        refused(&o, &[says, "--compare-axes"], &format!("{extra:?}"));
    }
    let o = sweep(&["--link", "10gbe", "--compare-axes"]);
    assert!(o.status.success(), "{}", stderr(&o));
}
