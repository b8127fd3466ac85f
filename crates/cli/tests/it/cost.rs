//! The cost flags: ownership beside rental, their bounds, the ranking basis, and the
//! break-even against an API price.

use super::{disagg, refused, stderr, stdout};

const AGG: [&str; 13] = [
    "predict",
    "--model",
    "deepseek-v3",
    "--chip",
    "h200",
    "--chips",
    "8",
    "--batch",
    "64",
    "--isl",
    "1000",
    "--osl",
    "1000",
];

fn json(extra: &[&str]) -> serde_json::Value {
    let o = disagg(&[&AGG[..], extra, &["--json"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_str(&stdout(&o)).unwrap()
}

#[test]
fn the_electricity_price_moves_only_the_ownership_figures() {
    let a = json(&[
        "--capex-usd-per-chip",
        "30000",
        "--electricity-usd-kwh",
        "0.05",
    ]);
    let b = json(&[
        "--capex-usd-per-chip",
        "30000",
        "--electricity-usd-kwh",
        "0.40",
    ]);
    for k in [
        "usd_per_hour",
        "usd_per_mtok_output",
        "usd_per_mtok_input",
        "watts",
    ] {
        assert_eq!(a[k], b[k], "{k}");
        assert!(a[k].is_number(), "{k}: {}", a);
    }
    for k in [
        "own_usd_per_hour",
        "own_usd_per_mtok_output",
        "own_usd_per_mtok_input",
    ] {
        let (x, y) = (a[k].as_f64().unwrap(), b[k].as_f64().unwrap());
        assert!(y > x, "{k}: {x} then {y}");
    }
    // Electricity's share of the hour: the power in kW x PUE x the price difference.
    let kw = a["watts"].as_f64().unwrap() / 1e3;
    let d = b["own_usd_per_hour"].as_f64().unwrap() - a["own_usd_per_hour"].as_f64().unwrap();
    assert!((d - kw * 1.58 * 0.35).abs() < 1e-9, "{d}");
}

#[test]
fn without_a_purchase_price_there_are_no_ownership_figures() {
    let v = json(&[]);
    assert!(v["own_usd_per_hour"].is_null());
    let o = disagg(&AGG);
    assert!(
        stdout(&o).contains("give --capex-usd-per-chip"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn bad_cost_flags_are_refused_by_name() {
    for (flag, value) in [
        ("--pue", "0.5"),
        ("--electricity-usd-kwh", "-1"),
        ("--duty-cycle", "0"),
        ("--years", "0"),
        ("--capex-usd-per-chip", "-5"),
        ("--idle-share", "2"),
        ("--cost-basis", "lease"),
    ] {
        let o = disagg(&[&AGG[..], &[flag, value]].concat());
        refused(&o, &[flag], &format!("{flag} {value}"));
    }
}

#[test]
fn the_api_break_even_is_a_chain_and_an_unknown_provider_is_named() {
    let v = json(&["--api", "deepseek"]);
    let chains = v["explain"].as_array().unwrap();
    let volume = chains
        .iter()
        .find(|c| c["quantity"] == "break-even volume against the API")
        .expect("a break-even chain");
    // V* = C_h x 730 h / p_api, with p_api at ISL = OSL = 1000 the mean of 0.27 and 1.10.
    let c_h = v["usd_per_hour"].as_f64().unwrap();
    let want = c_h * 730.0 / 0.685 * 1e6;
    let got = volume["value"].as_f64().unwrap();
    assert!((got - want).abs() < 1e-6 * want, "{got} vs {want}");
    let o = disagg(&[&AGG[..], &["--api", "nobody"]].concat());
    refused(&o, &["--api nobody"], "");
    assert!(stderr(&o).contains("DeepSeek"), "{}", stderr(&o));
}

#[test]
fn with_no_api_named_the_cheapest_row_is_used_and_named() {
    // deepseek-v3 has two rows (DeepSeek's own and Fireworks'); at ISL = OSL = 1000
    // DeepSeek's is cheaper (0.685 against 1.12 per Mtok of the mix).
    let text = stdout(&disagg(&AGG));
    let line = text
        .lines()
        .find(|l| l.contains("vs API"))
        .expect("a vs API line");
    assert!(
        line.contains("DeepSeek deepseek-chat (the cheapest of 2 listed) at $0.685/Mtok"),
        "{line}"
    );
    // Named, the dearer row is used, and the error for a provider without a row
    // lists both providers.
    let text = stdout(&disagg(&[&AGG[..], &["--api", "fireworks"]].concat()));
    assert!(
        text.contains("Fireworks DeepSeek V3 family (as named) at $1.120/Mtok"),
        "{text}"
    );
    let o = disagg(&[&AGG[..], &["--api", "groq"]].concat());
    assert!(
        stderr(&o).contains("the table has DeepSeek, Fireworks"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn sweep_ranks_by_ownership_when_asked() {
    let base = [
        "sweep",
        "--model",
        "llama-3.1-8b",
        "--chips",
        "h100-sxm,h200",
        "--isl",
        "1000",
        "--osl",
        "200",
        "--max-chips",
        "8",
    ];
    let o = disagg(
        &[
            &base[..],
            &["--cost-basis", "ownership", "--capex-usd-per-chip", "25000"],
        ]
        .concat(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let o = disagg(&[&base[..], &["--cost-basis", "ownership", "--pue", "9"]].concat());
    assert!(stderr(&o).contains("--pue"), "{}", stderr(&o));
}
