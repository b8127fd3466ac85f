//! `disagg recommend`: the case (Llama-3.3-70B at 1000/1000 tokens, TTFT 500 ms,
//! TPOT 30 ms, 10 requests per second), its first deployment checked by `predict`, and
//! refusals by flag name.

use super::{disagg, refused, stderr, stdout};
use serde_json::Value;

const MODEL: [&str; 6] = ["--model", "llama-3.3-70b", "--isl", "1000", "--osl", "1000"];

fn recommend(extra: &[&str]) -> std::process::Output {
    let mut args = vec!["recommend"];
    args.extend_from_slice(&MODEL);
    args.extend_from_slice(&["--ttft-ms", "500", "--tpot-ms", "30"]);
    args.extend_from_slice(extra);
    disagg(&args)
}

fn json(o: &std::process::Output) -> Value {
    assert!(o.status.success(), "{}", stderr(o));
    serde_json::from_str(&stdout(o)).unwrap()
}

/// `predict --json` of one replica from the flags `recommend` printed for it.
fn predict(flags: &str) -> Value {
    let mut args = vec!["predict", "--json"];
    args.extend_from_slice(&MODEL);
    args.extend(flags.split_whitespace());
    json(&disagg(&args))
}

#[test]
fn the_first_deployment_meets_both_limits_when_predicted_at_its_rate() {
    let v = json(&recommend(&["--rate", "10", "--json"]));
    let first = &v["ranked"][0];
    assert!(first.is_object(), "nothing ranked: {v}");
    assert_eq!(first["meets_slo"], true);
    // One replica predicted at its share of the 10 requests/s: both limits hold, and
    // the figures are the ones the recommendation ranked.
    let flags = v["predict_flags"][0].as_str().unwrap();
    let replicas = first["replicas"].as_f64().unwrap();
    assert!(
        flags.ends_with(&format!("--rate {}", 10.0 / replicas)),
        "{flags}"
    );
    let p = predict(flags);
    let (ttft, tpot) = (p["ttft_s"].as_f64().unwrap(), p["tpot_s"].as_f64().unwrap());
    assert!(ttft <= 0.5, "TTFT {ttft} s");
    assert!(tpot <= 0.030, "TPOT {tpot} s");
    for key in ["ttft_s", "tpot_s", "usd_per_mtok_output"] {
        let (a, b) = (first[key].as_f64().unwrap(), p[key].as_f64().unwrap());
        assert!((a - b).abs() <= 1e-9 * b.abs(), "{key}: {a} vs {b}");
    }
    assert_eq!(first["label"], p["label"]);
    // Ten requests a second over the replicas, each at its share: the demand carried.
    let out = p["output_tok_s"].as_f64().unwrap() * replicas;
    assert!((out - 10.0 * 1000.0).abs() < 1e-6, "{out}");
    // Ranked by $/Mtok; the minimum hardware has no more chips than any ranked entry.
    let ranked = v["ranked"].as_array().unwrap();
    let cost = |e: &Value| e["usd_per_mtok_output"].as_f64().unwrap();
    assert!(ranked.windows(2).all(|w| cost(&w[0]) <= cost(&w[1])));
    let fewest = v["fewest_chips"][0]["total_chips"].as_u64().unwrap();
    assert!(ranked
        .iter()
        .all(|e| e["total_chips"].as_u64().unwrap() >= fewest));
    // Chips that cannot serve it say why: Groq's SRAM does not hold 70B in 64 chips,
    // a laptop's TPOT is far over 30 ms.
    let rejected = v["rejected"].as_array().unwrap();
    let why = |id: &str| {
        rejected
            .iter()
            .find(|r| r["chip"] == id)
            .unwrap_or_else(|| panic!("{id} not rejected: {rejected:?}"))
            .clone()
    };
    assert_eq!(why("groq-lpu")["kind"], "memory");
    assert_eq!(why("m4-max")["kind"], "tpot");
    assert!(rejected
        .iter()
        .all(|r| r["reason"].as_str().is_some_and(|s| s.len() > 10)));
    // No ranked chip is also rejected.
    for e in ranked {
        for pool in e["config"]["pools"].as_array().unwrap() {
            assert!(rejected.iter().all(|r| r["chip"] != pool["chip"]));
        }
    }
}

#[test]
fn tokens_per_day_and_users_are_demands_too() {
    // 1.728e9 tokens a day of 2000-token requests is 10 requests per second.
    let v = json(&recommend(&[
        "--tokens-per-day",
        "1.728e9",
        "--chips",
        "h100-sxm,h200",
        "--json",
    ]));
    assert!((v["rate"].as_f64().unwrap() - 10.0).abs() < 1e-9);
    assert!(v["demand_read"]
        .as_str()
        .unwrap()
        .contains("prompt and output"));
    let v = json(&recommend(&["--users", "64", "--chips", "h200", "--json"]));
    let first = &v["ranked"][0];
    // The busiest replica holds ceil(64 / replicas) users, as a closed loop.
    let replicas = first["replicas"].as_u64().unwrap();
    assert_eq!(
        first["load"]["concurrency"].as_u64().unwrap(),
        64u64.div_ceil(replicas)
    );
    let p = predict(v["predict_flags"][0].as_str().unwrap());
    assert!(p["ttft_s"].as_f64().unwrap() <= 0.5 && p["tpot_s"].as_f64().unwrap() <= 0.03);
}

#[test]
fn refusals_name_their_flag() {
    for (extra, flag) in [
        (vec!["--rate", "0"], "--rate"),
        (vec!["--users", "0"], "--users"),
        (vec!["--tokens-per-day", "-5"], "--tokens-per-day"),
        (vec!["--rate", "1", "--max-chips", "0"], "--max-chips"),
        (vec!["--rate", "1", "--axis", "xx"], "--axis"),
        (vec!["--rate", "1", "--chips", "nope"], "nope"),
    ] {
        let o = recommend(&extra);
        refused(&o, &[flag], &format!("{extra:?}"));
    }
    // A demand is required, and only one.
    refused(
        &recommend(&[]),
        &["--rate <R>|--tokens-per-day <T>|--users <U>"],
        "",
    );
    let two = recommend(&["--rate", "1", "--users", "4"]);
    refused(
        &two,
        &["'--rate <R>' cannot be used with '--users <U>'"],
        "",
    );
    // An axis that does not apply to a dense model is refused, naming it.
    let o = recommend(&["--rate", "1", "--axis", "af"]);
    assert!(stderr(&o).contains("attention/expert"), "{}", stderr(&o));
}

/// `--slo-at p90` bounds each request at the 90th percentile: the ranked deployments'
/// p90 TTFT and TPOT meet the limits, the table names them, and a value that is
/// neither "mean" nor "p90" is refused by the flag's name.
#[test]
fn limits_at_the_p90_bound_the_p90_figures() {
    let v = json(&recommend(&["--rate", "10", "--slo-at", "p90", "--json"]));
    let ranked = v["ranked"].as_array().unwrap();
    assert!(!ranked.is_empty(), "nothing ranked: {v}");
    for e in ranked {
        assert!(e["ttft_p90_s"].as_f64().unwrap() <= 0.5, "{e}");
        assert!(e["tpot_p90_s"].as_f64().unwrap() <= 0.030, "{e}");
    }
    assert_eq!(v["slo"]["at"], "p90");
    let text = recommend(&["--rate", "10", "--slo-at", "p90"]);
    let out = stdout(&text);
    assert!(
        out.contains("recommend for p90 TTFT 500 ms, p90 TPOT 30 ms")
            && out.contains("p90 TTFT ms"),
        "{out}"
    );
    let o = recommend(&["--rate", "10", "--slo-at", "median"]);
    refused(&o, &["--slo-at"], "");
}

/// A flag that none of the axes `--axis` names reads is refused, where it used to be
/// ignored; an axis list with one that reads it, or no list (every axis), takes it.
#[test]
fn a_flag_no_searched_axis_reads_is_refused() {
    let o = recommend(&[
        "--users", "16", "--chips", "h100-sxm", "--axis", "agg", "--link", "10gbe",
    ]);
    refused(
        &o,
        &[
            "--link sets the link between pools",
            "none of the axes searched reads it",
        ],
        "",
    );
    for axes in [&["--axis", "agg,pd"][..], &[]] {
        let mut extra = vec!["--users", "16", "--chips", "h100-sxm", "--link", "10gbe"];
        extra.extend_from_slice(axes);
        let o = recommend(&extra);
        assert!(o.status.success(), "{axes:?}: {}", stderr(&o));
    }
}
