//! `--draft-model eagle`, `--eagle-layers` and `--redundant-experts`: they run, travel in
//! a bundle to the same bytes, and a bad value names its flag.

use super::{disagg, stderr, stdout};

fn ok(args: &[&str]) -> String {
    let o = disagg(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    stdout(&o)
}

const EAGLE: [&str; 17] = [
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
    "256",
    "--batch",
    "1",
    "--draft-model",
    "eagle",
    "--draft-tokens",
    "3",
];

/// DeepSeek's decode layout: EP144 over 256 experts and 32 redundant slots.
const REDUNDANT: [&str; 23] = [
    "predict",
    "--model",
    "deepseek-v3",
    "--axis",
    "pd",
    "--prefill-chip",
    "h800",
    "--prefill-chips",
    "32",
    "--decode-chip",
    "h800",
    "--decode-chips",
    "144",
    "--decode-tp",
    "1",
    "--decode-ep",
    "144",
    "--isl",
    "4383",
    "--osl",
    "1211",
    "--batch",
    "2048",
];

#[test]
fn an_eagle_head_and_redundant_experts_run_and_travel_in_a_bundle() {
    let v: serde_json::Value =
        serde_json::from_str(&ok(&[&EAGLE[..], &["--json"]].concat())).unwrap();
    assert!(v["label"].as_str().unwrap().contains("EAGLE"), "{v}");
    let two: serde_json::Value =
        serde_json::from_str(&ok(
            &[&EAGLE[..], &["--eagle-layers", "2", "--json"]].concat()
        ))
        .unwrap();
    // A deeper head drafts more slowly.
    assert!(two["tpot_s"].as_f64().unwrap() > v["tpot_s"].as_f64().unwrap());
    // EP144 needs the redundant slots; with them it runs.
    let refused = disagg(&REDUNDANT);
    assert!(
        stderr(&refused).contains("not divisible by ep 144"),
        "{}",
        stderr(&refused)
    );
    let with = [&REDUNDANT[..], &["--redundant-experts", "32"]].concat();
    ok(&with);
    let d = std::env::temp_dir().join(format!("disagg-eagle-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    for (name, flags) in [
        ("eagle", [&EAGLE[..], &["--eagle-layers", "2"]].concat()),
        ("redundant", with),
    ] {
        let file = d.join(format!("{name}.json"));
        let file = file.to_str().unwrap();
        let from_flags = ok(&[&flags[..], &["--json", "--save-bundle", file]].concat());
        let from_bundle = ok(&["predict", "--bundle", file, "--json"]);
        assert_eq!(from_flags, from_bundle, "{name}");
    }
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn a_bad_eagle_or_redundant_value_names_its_flag() {
    for (extra, flag) in [
        (&["--eagle-layers", "0"][..], "--eagle-layers 0"),
        (&["--eagle-layers", "99"][..], "--eagle-layers 99"),
    ] {
        let o = disagg(&[&EAGLE[..], extra].concat());
        assert!(
            stderr(&o).starts_with(&format!("error: {flag} ")),
            "{}",
            stderr(&o)
        );
    }
    let mut mtp = EAGLE;
    mtp[14] = "mtp";
    let o = disagg(&[&mtp[..], &["--eagle-layers", "2"]].concat());
    assert!(
        stderr(&o).starts_with("error: --eagle-layers needs"),
        "{}",
        stderr(&o)
    );
    let o = disagg(&[&REDUNDANT[..], &["--redundant-experts", "5000"]].concat());
    assert!(
        stderr(&o).starts_with("error: --redundant-experts 5000 "),
        "{}",
        stderr(&o)
    );
}
