//! `predict --explain` and the explain chains and operator tables of `predict --json`.

use super::{disagg, stderr, stdout};

const PD: [&str; 16] = [
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
    "--isl",
    "4096",
    "--osl=1024",
];

#[test]
fn explain_prints_every_headline_chain_and_each_pools_operator_table() {
    let o = disagg(&[&PD[..], &["--batch", "64", "--explain"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    for line in [
        "TTFT = max(W_q + t_pre + t_x + TPOT, B / r - TPOT × (OSL - 1))",
        "TPOT = t_d",
        "x_user = 1 / TPOT",
        "x_out = X_out / N",
        "$_out = C_h / (X_out × 3600) × 1000000",
        "J_out = P / X_out",
        "P = P_prefill + P_decode",
        "M = M_w + M_kv + M_ws",
        "B_max = DP × floor(",
        "prefill pool (8x NVIDIA H200 SXM 141GB), prefill step:",
        "decode pool (8x NVIDIA B200 (HGX/DGX B200)), decode step:",
        "58 layers: MLA 128 heads, MoE 256 experts top-8",
        "kernel launches and host work",
    ] {
        assert!(text.contains(line), "{line} missing:\n{text}");
    }
    // The topology: both pools, their fabrics and the KV link, the busiest named.
    for line in [
        "Topology (MODEL.md 6.9):",
        "prefill pool: 8x NVIDIA H200 SXM 141GB",
        "link prefill pool to decode pool (scale-out):",
        "carries KV cache of each request",
        "Busiest link: ",
    ] {
        assert!(text.contains(line), "{line} missing:\n{text}");
    }
    // A sub-chain is opened once, not under every figure that reads it.
    assert_eq!(text.matches("  t_d = t_attn_proj").count(), 1, "{text}");
}

#[test]
fn json_carries_the_chains_and_operator_tables_whose_times_sum_to_the_step() {
    let o = disagg(&[&PD[..], &["--batch", "64", "--json"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let quantities: Vec<&str> = v["explain"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["quantity"].as_str().unwrap())
        .collect();
    assert_eq!(&quantities[..3], ["TTFT", "TPOT", "tok/s per user"]);
    assert!(
        (v["explain"][1]["value"].as_f64().unwrap() - v["tpot_s"].as_f64().unwrap()).abs() < 1e-12
    );
    // The topology's links, each busy between 0 and 1, the busiest one of them.
    let links = v["topology"]["links"].as_array().unwrap();
    assert_eq!(links.len(), 3, "two fabrics and the KV link");
    assert!(links
        .iter()
        .all(|l| (0.0..=1.0).contains(&l["busy"].as_f64().unwrap())));
    assert!(v["topology"]["busiest"].as_u64().unwrap() < 3);
    assert_eq!(links[2]["carries"], "kv_cache");
    for pool in v["pools"].as_array().unwrap() {
        let tables = pool["operators"].as_array().unwrap();
        assert!(!tables.is_empty());
        for t in tables {
            let sum: f64 = t["rows"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r["time_s"].as_f64().unwrap())
                .sum();
            let step = t["step_s"].as_f64().unwrap();
            assert!((sum - step).abs() < 1e-9 * step, "{sum} vs {step}");
        }
    }
}
