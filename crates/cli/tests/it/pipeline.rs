//! `predict --pipeline`: a model's layers over unlike machines, the default memory
//! split, the stages in text and JSON, and the refusals that name what is wrong.

use super::{disagg, refused, stderr, stdout};

const BASE: [&str; 8] = [
    "predict",
    "--model",
    "llama-3.3-70b",
    "--isl",
    "2048",
    "--osl",
    "256",
    "--weight-dtype",
];

fn predict(extra: &[&str]) -> std::process::Output {
    let mut args: Vec<&str> = BASE.to_vec();
    args.push("fp8");
    args.extend_from_slice(extra);
    disagg(&args)
}

fn json(extra: &[&str]) -> serde_json::Value {
    let mut args = extra.to_vec();
    args.push("--json");
    let o = predict(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_str(&stdout(&o)).unwrap()
}

#[test]
fn default_split_follows_usable_memory_and_prints_every_stage() {
    let pipe = [
        "--pipeline",
        "m3-ultra,m4-max",
        "--link",
        "tb5",
        "--batch",
        "1",
    ];
    let v = json(&pipe);
    let stages = v["stages"].as_array().unwrap();
    // Usable memory 384 and 96 GB: 80 x 384 / 480 = 64 layers, and 16.
    let layers: Vec<u64> = stages
        .iter()
        .map(|s| s["layers"].as_u64().unwrap())
        .collect();
    assert_eq!(layers, vec![64, 16]);
    assert_eq!(stages[0]["chip"], "m3-ultra");
    assert!(stages[1]["hop"].is_null());
    // The hop over Thunderbolt 5: 80 Gb/s each way.
    assert_eq!(stages[0]["hop"]["bandwidth_bytes_per_s"], 1e10);
    // At batch 1 the step is the stages and the hop, one after another.
    let sum = stages[0]["decode_s"].as_f64().unwrap()
        + stages[1]["decode_s"].as_f64().unwrap()
        + stages[0]["hop"]["decode_s"].as_f64().unwrap();
    let step = v["decode_step_s"].as_f64().unwrap();
    assert!((step / sum - 1.0).abs() < 1e-12);
    assert!((v["tpot_s"].as_f64().unwrap() / step - 1.0).abs() < 1e-12);
    assert_eq!(v["pools"].as_array().unwrap().len(), 2);
    // The text names each stage's chip, layers and memory.
    let o = predict(&pipe);
    let text = stdout(&o);
    assert!(text.contains("stage 1          Apple M3 Ultra"), "{text}");
    assert!(text.contains("layers 64-79 (16)"), "{text}");
    assert!(text.contains("hop to 2       80.0 Gb/s, 300 us"), "{text}");
}

#[test]
fn given_layers_are_used_and_must_add_up() {
    let v = json(&[
        "--pipeline",
        "m3-ultra,m4-max",
        "--layers",
        "50,30",
        "--batch",
        "4",
    ]);
    assert_eq!(v["stages"][1]["layers"], 30);
    assert_eq!(v["stages"][1]["first_layer"], 50);
    let o = predict(&[
        "--pipeline",
        "m3-ultra,m4-max",
        "--layers",
        "50,20",
        "--batch",
        "1",
    ]);
    refused(
        &o,
        &["pipeline layers add up to 70, but the model has 80 layers"],
        "",
    );
}

#[test]
fn refusals_name_the_chip_the_stage_or_the_flag() {
    let fails = |args: &[&str], want: &str| {
        let o = predict(args);
        refused(&o, &[want], &format!("{args:?}"));
    };
    fails(
        &["--pipeline", "m3-ultra,m5-ultra", "--batch", "1"],
        "--pipeline: unknown chip 'm5-ultra'",
    );
    // 60 layers of 70B in FP8 (about 53 GB) on a 32 GB RTX 5090.
    fails(
        &[
            "--pipeline",
            "rtx-5090,dgx-spark",
            "--layers",
            "60,20",
            "--batch",
            "1",
        ],
        "pipeline stage 1 (NVIDIA GeForce RTX 5090, layers 0-59) does not fit",
    );
    fails(
        &["--pipeline", "m3-ultra", "--batch", "1"],
        "between 2 and 64 stages",
    );
    fails(
        &["--layers", "40,40", "--chip", "m3-ultra", "--batch", "1"],
        "--layers needs --pipeline",
    );
    // A single deployment's sizes, a split pool's layout and a draft's flags do not
    // describe a pipeline: refused, where --chips, the pools' and the draft's used to be
    // ignored.
    for other in [
        ["--chip", "h100-sxm"],
        ["--axis", "pd"],
        ["--save-bundle", "b.json"],
        ["--chips", "4"],
        ["--decode-ep", "2"],
        ["--micro-batches", "4"],
        ["--acceptance", "0.5"],
    ] {
        let mut args = vec!["--pipeline", "m3-ultra,m4-max", "--batch", "1"];
        args.extend(other);
        fails(&args, "cannot be used with");
    }
}
