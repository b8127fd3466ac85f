//! `predict --rate`: Poisson arrivals at a request rate instead of a fixed concurrency.

use super::{disagg, refused, stderr, stdout};

fn predict(extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "predict",
        "--model",
        "llama-3.3-70b",
        "--chip",
        "h100-sxm",
        "--chips",
        "4",
        "--tp",
        "4",
        "--isl",
        "2000",
        "--osl",
        "500",
    ];
    args.extend_from_slice(extra);
    disagg(&args)
}

#[test]
fn a_rate_is_delivered_and_its_ttft_queues() {
    let o = predict(&["--rate", "2", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    // Two requests a second of 500 output tokens each: 1,000 output tok/s delivered.
    let out = v["output_tok_s"].as_f64().unwrap();
    assert!((out - 1000.0).abs() < 1e-6, "{out}");
    assert_eq!(v["ttft"]["wait"]["kind"], "poisson");
    assert!(v["ttft"]["p90_s"].as_f64().unwrap() >= v["ttft"]["p50_s"].as_f64().unwrap());
    let text = stdout(&predict(&["--rate", "2"]));
    assert!(text.contains("open loop: 2 requests per second"), "{text}");
}

#[test]
fn a_rate_beyond_capacity_or_out_of_range_is_refused_by_name() {
    let o = predict(&["--rate", "10000"]);
    refused(&o, &["serves at most"], "");
    for bad in ["-1", "nan", "0"] {
        let o = predict(&["--rate", bad]);
        refused(&o, &["--rate"], bad);
    }
    // A huge rate is echoed as given, not as a 301-digit number.
    let o = predict(&["--rate", "1e300"]);
    assert!(
        stderr(&o).contains("--rate 1e300 must lie") && stderr(&o).len() < 200,
        "{}",
        stderr(&o)
    );
    let o = predict(&["--rate", "2", "--batch", "8"]);
    refused(
        &o,
        &["'--rate <R>' cannot be used with '--batch <BATCH>'"],
        "",
    );
    // A benchmark's size is a closed loop's: an open loop never ends, so it has none to
    // state, and these flags used to be ignored beside --rate.
    for size in [&["--prompts", "100"][..], &["--prompts-per-user", "10"]] {
        let o = predict(&[&["--rate", "2"][..], size].concat());
        refused(&o, &["cannot be used with", size[0]], &format!("{size:?}"));
    }
}

/// `--explain` with `--rate` opens the open loop: the concurrency found, the share of
/// its capacity the rate uses, the Pollaczek-Khinchine wait and Kingman's tail, each
/// with its inputs; `--json` carries the same chains.
#[test]
fn explain_with_a_rate_shows_the_concurrency_and_the_queue() {
    let o = predict(&["--rate", "2", "--explain"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    for needle in [
        "open loop: 2 requests per second",
        "B = B_short + 1",
        "σ = λ / X_B",
        "u = min(u_B × σ, 0.999)",
        "W = u × t_pf / (2 × (1 - u))",
        "TTFT = W + t_pf + t_xfer + t_1",
        "W_90 = max(0, W / u × ln(u / 0.1))",
        "λ = 2 req/s",
    ] {
        assert!(text.contains(needle), "{needle}\n{text}");
    }
    let o = predict(&["--rate", "2", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let chains = v["explain"].as_array().unwrap();
    let ttft = chains.iter().find(|c| c["quantity"] == "TTFT").unwrap();
    assert_eq!(ttft["formula"], "W + t_pf + t_xfer + t_1");
    assert!(
        (ttft["value"].as_f64().unwrap() - v["ttft"]["mean_s"].as_f64().unwrap()).abs() < 1e-12
    );
}
