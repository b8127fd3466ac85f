//! `--framework`: a serving framework's default batch limit applies where no
//! assumption states one, and a limit the user states wins over it.

use super::{disagg, refused, stderr, stdout};

/// The `batch` line of `predict --max-throughput` on one H100 for `extra` flags.
fn batch_line(extra: &[&str]) -> String {
    let mut args = vec![
        "predict",
        "--model",
        "llama-3.1-8b",
        "--chip",
        "h100-sxm",
        "--isl",
        "1000",
        "--osl",
        "1000",
        "--max-throughput",
    ];
    args.extend_from_slice(extra);
    let o = disagg(&args);
    assert!(o.status.success(), "{extra:?}: {}", stderr(&o));
    stdout(&o)
        .lines()
        .find(|l| l.trim_start().starts_with("batch"))
        .unwrap()
        .to_string()
}

#[test]
fn a_frameworks_batch_limit_applies_unless_an_assumption_states_one() {
    // Memory holds a little over 400 sequences: the generic limit (256) binds,
    // vLLM's 1024 on an 80 GB device does not.
    let generic = batch_line(&["--framework", "generic"]);
    assert!(generic.contains(" 256 (256 running"), "{generic}");
    let vllm = batch_line(&["--framework", "vllm"]);
    assert!(!vllm.contains(" 256 ("), "{vllm}");
    // auto on an NVIDIA data-centre GPU is TensorRT-LLM, whose 2048 does not bind.
    assert_eq!(batch_line(&[]), batch_line(&["--framework", "trtllm"]));
    // A stated limit is pinned: the framework's default does not replace it.
    let dir = std::env::temp_dir().join(format!("disagg-fw-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("a.json");
    std::fs::write(&file, r#"{"max_seqs_per_replica": 100}"#).unwrap();
    let pinned = batch_line(&[
        "--framework",
        "vllm",
        "--assumptions",
        file.to_str().unwrap(),
    ]);
    assert!(pinned.contains(" 100 (100 running"), "{pinned}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn an_unknown_framework_is_refused_by_flag_and_names_the_choices() {
    let o = disagg(&[
        "predict",
        "--model",
        "llama-3.1-8b",
        "--chip",
        "h100-sxm",
        "--isl",
        "100",
        "--osl",
        "100",
        "--batch",
        "1",
        "--framework",
        "tgi",
    ]);
    refused(&o, &["--framework", "\"tgi\"", "sglang"], "");
}
