//! `disagg deploy`: the launch commands of the deployment `predict` evaluates, as
//! text (snapshots) and as JSON whose numbers are `predict --json`'s.

use super::snapshots::check;
use super::{disagg, refused, stderr, stdout};

const AGG: [&str; 12] = [
    "--model",
    "llama-3.3-70b",
    "--chip",
    "h100-sxm",
    "--chips",
    "8",
    "--tp",
    "8",
    "--batch",
    "64",
    "--isl",
    "1000",
];
const PD: [&str; 16] = [
    "--model",
    "llama-3.3-70b",
    "--axis",
    "pd",
    "--prefill-chip",
    "h100-sxm",
    "--prefill-chips",
    "4",
    "--decode-chip",
    "h200",
    "--decode-chips",
    "8",
    "--batch",
    "64",
    "--isl",
    "1000",
];

fn run(framework: &str, flags: &[&str], extra: &[&str]) -> String {
    let mut args = vec!["deploy", "--framework", framework];
    args.extend(flags);
    args.extend(["--osl", "1000"]);
    args.extend(extra);
    let o = disagg(&args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    stdout(&o)
}

#[test]
fn deploy_text_of_an_aggregated_and_a_prefill_decode_deployment() {
    check("deploy_vllm_aggregated.txt", &run("vllm", &AGG, &[]));
    check("deploy_trtllm_prefill_decode.txt", &run("trtllm", &PD, &[]));
    check("deploy_sglang_prefill_decode.txt", &run("sglang", &PD, &[]));
}

#[test]
fn deploy_json_carries_predicts_layout_under_the_frameworks_defaults() {
    let l: serde_json::Value = serde_json::from_str(&run("dynamo", &PD, &["--json"])).unwrap();
    // Dynamo's workers run vLLM: the point is predicted with vLLM's defaults.
    let mut args = vec!["predict", "--framework", "vllm"];
    args.extend(PD);
    args.extend(["--osl", "1000", "--json"]);
    let p: serde_json::Value = serde_json::from_str(&stdout(&disagg(&args))).unwrap();
    let pools = p["pools"].as_array().unwrap();
    assert_eq!(l["framework"], "dynamo");
    for (i, pool) in pools.iter().enumerate() {
        let worker = &l["commands"][i + 1];
        let flag = |f: &str| {
            worker["args"]
                .as_array()
                .unwrap()
                .iter()
                .find(|a| a["flag"] == f)
                .map(|a| a["value"].as_str().unwrap().parse::<f64>().unwrap())
                .unwrap()
        };
        assert_eq!(flag("--tensor-parallel-size"), pool["tp"].as_f64().unwrap());
        assert_eq!(flag("--data-parallel-size"), pool["dp"].as_f64().unwrap());
        assert_eq!(
            flag("--max-num-seqs"),
            pool["seqs_per_replica"].as_f64().unwrap().ceil()
        );
        assert_eq!(l["pools"][i]["chips"], pool["chips"]);
    }
}

#[test]
fn deploy_names_its_framework() {
    let mut args = vec!["deploy"];
    args.extend(AGG);
    args.extend(["--osl", "1000"]);
    let o = disagg(&args);
    refused(&o, &["--framework vllm, sglang, trtllm or dynamo"], "");
    args.extend(["--framework", "llamacpp"]);
    let o = disagg(&args);
    refused(&o, &["unknown launch framework"], "");
}

/// `predict`'s own outputs are refused by `deploy`, which prints launch commands, where
/// they used to be ignored (an unknown `--api` as much as a known one).
#[test]
fn deploy_refuses_predicts_own_outputs() {
    for extra in [
        &["--explain"][..],
        &["--api", "together"],
        &["--api", "nobody"],
    ] {
        let mut args = vec!["deploy", "--framework", "vllm"];
        args.extend(AGG);
        args.extend(["--osl", "1000"]);
        args.extend(extra);
        let o = disagg(&args);
        refused(
            &o,
            &[&format!("{} is predict's output", extra[0])],
            &format!("{extra:?}"),
        );
    }
}

/// A deployment that does not fit its chips gets no launch commands, only the reason,
/// where it used to get commands that would fail on the machines (DeepSeek-V3's 671 GB
/// of weights on one H100 prefill chip).
#[test]
fn deploy_refuses_a_deployment_that_cannot_run() {
    let mut args = vec!["deploy", "--framework", "sglang"];
    args.extend(PD);
    args.extend(["--osl", "1000"]);
    let model = args.iter().position(|a| *a == "llama-3.3-70b").unwrap();
    args[model] = "deepseek-v3";
    let chips = args.iter().position(|a| *a == "--prefill-chips").unwrap();
    args[chips + 1] = "1";
    let o = disagg(&args);
    refused(
        &o,
        &[
            "no launch is written for a deployment that cannot run",
            "prefill pool does not fit",
        ],
        "",
    );
    assert!(!stdout(&o).contains("launch_server"), "{}", stdout(&o));
}
