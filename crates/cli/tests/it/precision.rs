//! `--expert-dtype`, `--attn-out-dtype` and `--lm-head-dtype`: each refused value names its flag, the JSON
//! and the explanations name each component's format, and a bundle carries them.

use super::{disagg, refused, stderr, stdout};

/// gpt-oss-120b on one B200 at a fixed batch, its weights in `weights` (all but the
/// components `extra` sets apart).
fn gpt_oss(weights: &str, extra: &[&str]) -> Vec<String> {
    [
        "predict",
        "--model",
        "gpt-oss-120b",
        "--chip",
        "b200",
        "--isl",
        "1024",
        "--osl",
        "256",
        "--batch",
        "8",
        "--weight-dtype",
        weights,
    ]
    .iter()
    .chain(extra)
    .map(|s| s.to_string())
    .collect()
}

fn run(args: &[String]) -> std::process::Output {
    disagg(&args.iter().map(String::as_str).collect::<Vec<_>>())
}

fn json(args: &[String]) -> serde_json::Value {
    let o = run(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    serde_json::from_str(&stdout(&o)).unwrap()
}

#[test]
fn a_bad_component_dtype_is_refused_by_its_flag() {
    for flag in ["--expert-dtype", "--attn-out-dtype", "--lm-head-dtype"] {
        let o = run(&gpt_oss("bf16", &[flag, "fp6"]));
        let err = refused(&o, &["mxfp4, nvfp4"], flag);
        assert!(err.starts_with(&format!("error: {flag}: ")), "{err}");
        let o = disagg(&[
            "sweep",
            "--model",
            "gpt-oss-120b",
            "--chips",
            "b200",
            "--isl",
            "1024",
            "--osl",
            "256",
            flag,
            "mxfp5",
        ]);
        let err = stderr(&o);
        assert!(err.starts_with(&format!("error: {flag}: ")), "{err}");
    }
}

#[test]
fn the_json_names_each_component_and_weighs_it_in_its_format() {
    let mem = |v: &serde_json::Value| v["mem_weights_bytes"].as_f64().unwrap();
    let plain = json(&gpt_oss("bf16", &["--json"]));
    assert_eq!(plain["weight_dtype"], "bf16");
    assert_eq!(plain["expert_dtype"], "bf16");
    assert_eq!(plain["attn_out_dtype"], "bf16");
    assert_eq!(plain["lm_head_dtype"], "bf16");
    let mixed = json(&gpt_oss("bf16", &["--expert-dtype", "mxfp4", "--json"]));
    assert_eq!(mixed["weight_dtype"], "bf16");
    assert_eq!(mixed["expert_dtype"], "mxfp4");
    assert_eq!(mixed["lm_head_dtype"], "bf16");
    let all_mx = json(&gpt_oss("mxfp4", &["--json"]));
    // The experts are most of the weights: the mixed model sits between the two, much
    // nearer the all-MXFP4 one.
    assert!(mem(&all_mx) < mem(&mixed) && mem(&mixed) < mem(&plain));
    assert!(mem(&mixed) - mem(&all_mx) < 0.2 * (mem(&plain) - mem(&all_mx)));
    // The memory chain names the formats.
    let chains = mixed["explain"].to_string();
    assert!(chains.contains("bf16, experts mxfp4"), "{chains}");
    assert!(
        chains.contains("weights in mxfp4 (4.25 bits each)"),
        "{chains}"
    );
    // The attention output projections apart: fewer bytes, both formats named.
    let out = json(&gpt_oss(
        "bf16",
        &[
            "--expert-dtype",
            "mxfp4",
            "--attn-out-dtype",
            "nvfp4",
            "--json",
        ],
    ));
    assert_eq!(out["attn_out_dtype"], "nvfp4");
    assert!(mem(&all_mx) < mem(&out) && mem(&out) < mem(&mixed));
    let chains = out["explain"].to_string();
    assert!(
        chains.contains("bf16, experts mxfp4, attention output nvfp4"),
        "{chains}"
    );
    assert!(
        chains.contains(
            "weights in bf16 (16 bits each), the output projection's in nvfp4 (4.5 bits each)"
        ),
        "{chains}"
    );
}

#[test]
fn a_bundle_carries_the_component_dtypes_and_reproduces_the_figures() {
    let d = std::env::temp_dir().join(format!("disagg-precision-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let file = d.join("mixed.json");
    let file_s = file.to_str().unwrap();
    let flags = gpt_oss(
        "bf16",
        &[
            "--expert-dtype",
            "mxfp4",
            "--attn-out-dtype",
            "nvfp4",
            "--lm-head-dtype",
            "fp8",
            "--json",
            "--save-bundle",
            file_s,
        ],
    );
    let from_flags = run(&flags);
    assert!(from_flags.status.success(), "{}", stderr(&from_flags));
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(saved["weights"]["expert_dtype"], "mxfp4");
    assert_eq!(saved["weights"]["attn_out_dtype"], "nvfp4");
    assert_eq!(saved["weights"]["lm_head_dtype"], "fp8");
    let from_bundle = disagg(&["predict", "--bundle", file_s, "--json"]);
    assert_eq!(stdout(&from_flags), stdout(&from_bundle));
    // A bad value in the file is refused by its field's path.
    let bad = d.join("bad.json");
    let text = std::fs::read_to_string(&file)
        .unwrap()
        .replace("\"mxfp4\"", "\"fp6\"");
    std::fs::write(&bad, text).unwrap();
    let o = disagg(&["predict", "--bundle", bad.to_str().unwrap()]);
    assert!(
        stderr(&o).contains("weights.expert_dtype"),
        "{}",
        stderr(&o)
    );
}

/// The experts' flags on a model without routed experts would change nothing, so they
/// are refused by name; on a mixture-of-experts model they are taken.
#[test]
fn expert_flags_on_a_dense_model_are_refused() {
    for extra in [
        &["--expert-dtype", "fp4"][..],
        &["--redundant-experts", "8"],
    ] {
        let mut args = super::cli::llama_8b_at_batch_64("1000", "200").to_vec();
        args.extend_from_slice(extra);
        let o = disagg(&args);
        refused(
            &o,
            &[&format!("{}: llama-3.1-8b has no routed experts", extra[0])],
            &format!("{extra:?}"),
        );
    }
    let o = run(&gpt_oss("bf16", &["--expert-dtype", "mxfp4"]));
    assert!(o.status.success(), "{}", stderr(&o));
}
