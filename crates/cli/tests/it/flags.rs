//! Flags a user gets wrong or sets on purpose: assumption files, output spreads, links,
//! closed pipes, and every refused value naming its flag.

use super::cli::{json_of, llama_8b_at_batch_64};
use super::{disagg, refused, stderr, stdout};

/// `output_tok_s` of DeepSeek-R1 on 8 B200 at the given layout, with extra arguments.
fn r1_output(layout: &[&str], extra: &[&str]) -> f64 {
    let mut args = vec![
        "predict",
        "--model",
        "deepseek-r1",
        "--chip",
        "b200",
        "--chips",
        "8",
        "--isl",
        "1024",
        "--osl",
        "2048",
        "--batch",
        "2048",
        "--json",
    ];
    args.extend_from_slice(layout);
    args.extend_from_slice(extra);
    json_of(&args)["output_tok_s"].as_f64().unwrap()
}

#[test]
fn assumptions_come_from_a_file_or_a_flag_and_bad_ones_are_named() {
    let dir = std::env::temp_dir().join(format!("disagg-assume-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();

    // The printed defaults, read back, predict exactly what no file predicts under the
    // global assumptions (a file pins what it states, so a framework's own default,
    // TensorRT-LLM's per-kernel cost here, no longer replaces it). A layout without an
    // expert all-to-all: the framework's kernel time for that exchange is no knob, and
    // a file does not pin it (MODEL.md 3.7).
    let o = disagg(&["list", "assumptions"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let defaults = dir.join("defaults.json");
    std::fs::write(&defaults, stdout(&o)).unwrap();
    let tensor_parallel = ["--tp", "8", "--ep", "8"];
    let generic = r1_output(&tensor_parallel, &["--framework", "generic"]);
    let from_file = r1_output(
        &tensor_parallel,
        &["--assumptions", defaults.to_str().unwrap()],
    );
    assert_eq!(generic, from_file);
    // With attention DP the file keeps TensorRT-LLM's all-to-all time, and is the
    // slower for it.
    let attention_dp = ["--tp", "1", "--ep", "8"];
    let plain = r1_output(&attention_dp, &[]);
    let generic_dp = r1_output(&attention_dp, &["--framework", "generic"]);
    let from_file_dp = r1_output(
        &attention_dp,
        &["--assumptions", defaults.to_str().unwrap()],
    );
    assert!(from_file_dp < generic_dp, "{from_file_dp} vs {generic_dp}");

    // Aligning the replicas' prefills helps only where replicas share an expert group,
    // and the flag and the file field are the same switch.
    let aligned = r1_output(&attention_dp, &["--aligned-group-prefill"]);
    assert!(aligned > plain * 1.05, "{aligned} vs {plain}");
    let aligned_file = dir.join("aligned.json");
    std::fs::write(&aligned_file, r#"{"aligned_group_prefill": true}"#).unwrap();
    let aligned_by_file = r1_output(
        &attention_dp,
        &["--assumptions", aligned_file.to_str().unwrap()],
    );
    assert_eq!(aligned, aligned_by_file);
    assert_eq!(
        r1_output(&tensor_parallel, &[]),
        r1_output(&tensor_parallel, &["--aligned-group-prefill"])
    );

    // The gather-scatter exchange moves DeepSeek-R1's eight picks over eight chips in
    // as many bytes as the all-to-all, but without TensorRT-LLM's all-to-all kernel
    // floor: it changes the attention-DP prediction, the flag and the file field are the
    // same switch, a tensor-parallel layout does not move, and a bad value is named.
    let gathered = r1_output(&attention_dp, &["--expert-exchange", "gather_scatter"]);
    assert_ne!(gathered, plain);
    let gathered_file = dir.join("gathered.json");
    std::fs::write(&gathered_file, r#"{"expert_exchange": "gather_scatter"}"#).unwrap();
    assert_eq!(
        gathered,
        r1_output(
            &attention_dp,
            &["--assumptions", gathered_file.to_str().unwrap()]
        )
    );
    assert_eq!(
        r1_output(&tensor_parallel, &[]),
        r1_output(&tensor_parallel, &["--expert-exchange", "gather_scatter"])
    );
    let o = disagg(&[
        "predict",
        "--model",
        "deepseek-r1",
        "--chip",
        "b200",
        "--isl",
        "128",
        "--osl",
        "128",
        "--batch",
        "1",
        "--expert-exchange",
        "broadcast",
    ]);
    refused(
        &o,
        &[
            "--expert-exchange: expert exchange \"broadcast\"",
            "gather_scatter",
        ],
        "",
    );

    // A partial file overrides only what it names: a lower efficiency is slower.
    let slow = dir.join("slow.json");
    std::fs::write(&slow, r#"{"mfu": 0.3, "bw_eff": 0.4}"#).unwrap();
    assert!(
        r1_output(&tensor_parallel, &["--assumptions", slow.to_str().unwrap()])
            < r1_output(&tensor_parallel, &[])
    );

    // Misspelt names, impossible values and missing files fail with the reason, on
    // predict, sweep and validate alike.
    for (body, expected) in [
        (r#"{"mfuu": 0.5}"#, "unknown field `mfuu`"),
        (r#"{"bw_eff": 0}"#, "bw_eff = 0.0 must be at least 0.01"),
        (r#"{"mfu": 5e-324}"#, "mfu = 5e-324 must be at least 0.01"),
        (r#"{"runtime_reserve": 0.95}"#, "runtime_reserve"),
        (r#"{"max_seqs_per_replica": 0}"#, "max_seqs_per_replica"),
        ("not json", "expected"),
        // serde would read a list by position (mfu 0.3); it is refused instead.
        ("[0.3]", "a list where named assumptions belong"),
    ] {
        let bad = dir.join("bad.json");
        std::fs::write(&bad, body).unwrap();
        let path = bad.to_str().unwrap();
        for command in [
            "predict --model llama-3.1-8b --chip h100-sxm --isl 128 --osl 128 --batch 1",
            "sweep --model llama-3.1-8b --axis pd --chips h100-sxm --isl 128 --osl 128",
            "validate",
        ] {
            let mut args: Vec<&str> = command.split_whitespace().collect();
            args.extend(["--assumptions", path]);
            let o = disagg(&args);
            refused(&o, &[expected], &format!("{body} on {}", args[0]));
        }
    }
    let o = disagg(&[
        "validate",
        "--assumptions",
        dir.join("missing.json").to_str().unwrap(),
    ]);
    refused(&o, &["cannot read assumptions file"], "");
}

#[test]
fn an_output_spread_slows_decode_and_a_bad_one_is_named() {
    // The spread goes as one `--output-cv=X` argument, so that a negative one is a value.
    let predict = |cv: &str, extra: &[&str]| {
        let spread = format!("--output-cv={cv}");
        let base = llama_8b_at_batch_64("2000", "1000");
        disagg(&[&base[..], &[spread.as_str()], extra].concat())
    };
    let run = |cv: &str| {
        let o = predict(cv, &["--json"]);
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_str::<serde_json::Value>(&stdout(&o)).unwrap()
    };
    let (fixed, spread) = (run("0"), run("1"));
    let tpot = |v: &serde_json::Value| v["tpot_s"].as_f64().unwrap();
    let kv = |v: &serde_json::Value| v["mem_kv_bytes"].as_f64().unwrap();
    assert!(tpot(&spread) > tpot(&fixed));
    assert!(kv(&spread) > kv(&fixed));
    // A bad spread, length or cached prefix is refused by the flag that set it.
    let o = predict("-1", &[]);
    refused(&o, &["--output-cv -1.0 must be"], "");
    for (extra, flag) in [
        (["--cached", "100000"], "--cached"),
        (["--osl", "2000000"], "--osl"),
    ] {
        let mut args: Vec<&str> = vec![
            "predict",
            "--model",
            "llama-3.1-8b",
            "--chip",
            "h100-sxm",
            "--isl",
            "512",
            "--batch",
            "1",
            "--output-cv",
            "0",
        ];
        if extra[0] != "--osl" {
            args.extend(["--osl", "64"]);
        }
        args.extend(extra);
        let o = disagg(&args);
        assert!(
            stderr(&o).contains(&format!("error: {flag} ")),
            "{}",
            stderr(&o)
        );
    }
}

#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    use std::process::{Command, Stdio};
    // `disagg validate | head -1`: the reader goes away before the table is written.
    let mut child = Command::new(env!("CARGO_BIN_EXE_disagg"))
        .arg("validate")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{:?}: {err}", out.status);
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn a_link_slower_than_a_kilobit_is_refused_with_its_flag() {
    // --link-gbps 1e-320 used to pass as "positive" and print an infinite TTFT.
    for gbps in ["1e-320", "0", "-4", "1e9"] {
        let link = format!("--link-gbps={gbps}");
        let o = disagg(
            &[
                &["predict", "--model", "llama-3.1-8b"][..],
                &super::ONE_H100_EACH_POOL,
                &["--isl", "512", "--osl", "64", "--batch", "4", &link],
            ]
            .concat(),
        );
        refused(&o, &["--link-gbps"], gbps);
        assert!(!stdout(&o).contains("inf"), "{gbps}");
    }
}

#[test]
fn messages_name_their_flag_and_axis_ids_ignore_case() {
    // Axis ids read in any case, like chip and model ids.
    let o = disagg(&[
        "sweep",
        "--model",
        "llama-3.1-8b",
        "--axis",
        "PD",
        "--chips",
        "h100-sxm",
        "--isl",
        "256",
        "--osl",
        "32",
        "--max-chips",
        "2",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // An unknown one lists the valid axes, in the plural.
    let o = disagg(&[
        "sweep",
        "--model",
        "llama-3.1-8b",
        "--axis",
        "xy",
        "--chips",
        "h100-sxm",
        "--isl",
        "256",
        "--osl",
        "32",
    ]);
    assert!(
        stderr(&o).contains("valid axes: agg, pd, af, spec"),
        "{}",
        stderr(&o)
    );
    // A negative value is refused by its own flag, not as an unknown argument.
    let o = disagg(&[
        "predict",
        "--model",
        "llama-3.1-8b",
        "--chip",
        "h100-sxm",
        "--isl",
        "-1",
        "--osl",
        "8",
        "--batch",
        "1",
    ]);
    assert!(stderr(&o).contains("'--isl <ISL>'"), "{}", stderr(&o));
    // The target's tensor parallelism is --tp (it read "---tp").
    let o = disagg(&[
        "predict",
        "--model",
        "llama-3.1-8b",
        "--axis",
        "spec",
        "--chip",
        "h100-sxm",
        "--chips",
        "4",
        "--tp",
        "3",
        "--isl",
        "64",
        "--osl",
        "8",
        "--batch",
        "1",
        "--draft-model",
        "llama-3.2-1b",
    ]);
    let err = stderr(&o);
    assert!(
        err.contains("--tp 3 must divide") && !err.contains("---"),
        "{err}"
    );
}

#[test]
fn every_refused_value_names_its_flag() {
    let base = [
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
        "64",
        "--draft-model",
        "llama-3.2-1b",
    ];
    for (bad, flag) in [
        (&["--batch", "1", "--acceptance", "1.5"][..], "--acceptance"),
        (
            &["--batch", "1", "--draft-tokens", "20"][..],
            "--draft-tokens",
        ),
        (
            &["--batch", "1", "--weight-bits", "0.5"][..],
            "--weight-bits",
        ),
        (&["--batch", "0"][..], "--batch"),
    ] {
        let args: Vec<&str> = base.iter().chain(bad).copied().collect();
        let o = disagg(&args);
        let err = stderr(&o);
        assert!(
            err.starts_with(&format!("error: {flag} ")),
            "{bad:?}: {err}"
        );
    }
    let o = disagg(&[
        "predict",
        "--model",
        "deepseek-v3",
        "--axis",
        "af",
        "--attn-chip",
        "h200",
        "--attn-chips",
        "8",
        "--expert-chip",
        "b200",
        "--expert-chips",
        "8",
        "--isl",
        "100",
        "--osl",
        "10",
        "--batch",
        "4",
        "--micro-batches",
        "9",
    ]);
    assert!(
        stderr(&o).starts_with("error: --micro-batches 9"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_benchmarks_prompts_move_ttft_only_and_none_is_refused() {
    let predict = |extra: &[&str]| {
        let mut args = vec![
            "predict",
            "--model",
            "llama-3.1-8b",
            "--chip",
            "h100-sxm",
            "--isl",
            "2000",
            "--osl",
            "1000",
            "--batch",
            "64",
        ];
        args.extend_from_slice(extra);
        disagg(&args)
    };
    let run = |extra: &[&str]| {
        let o = predict(extra);
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_str::<serde_json::Value>(&stdout(&o)).unwrap()
    };
    let (steady, wave) = (run(&["--json"]), run(&["--json", "--prompts", "640"]));
    let f = |v: &serde_json::Value, k: &str| v[k].as_f64().unwrap();
    // The first 64 of 640 prompts arrive together and wait for each other's prefill.
    assert!(f(&wave, "ttft_s") > f(&steady, "ttft_s"));
    assert_eq!(f(&wave, "tpot_s"), f(&steady, "tpot_s"));
    let o = predict(&["--prompts", "0"]);
    refused(&o, &["--prompts 0 must"], "");
}

#[test]
fn an_unknown_link_is_refused_by_its_flag_with_the_valid_ones() {
    for sub in ["predict", "sweep"] {
        let mut args = vec![
            sub,
            "--model",
            "llama-3.1-8b",
            "--isl",
            "128",
            "--osl",
            "128",
            "--link",
            "carrier-pigeon",
        ];
        if sub == "predict" {
            // A link joins pools, so the prediction is a split one.
            args.extend_from_slice(&super::ONE_H100_EACH_POOL);
            args.extend_from_slice(&["--batch", "1"]);
        } else {
            args.extend_from_slice(&["--axis", "pd", "--chips", "h100-sxm"]);
        }
        let o = disagg(&args);
        refused(&o, &["--link: ", "carrier-pigeon", "tb5"], sub);
    }
}

/// `validate` refuses the settings no row reads, where it used to print the same table:
/// a framework (each row runs its source's) and the cost settings (no row measures a
/// cost). A modelling setting, which rows that state none take, is still accepted.
#[test]
fn validate_refuses_the_settings_no_row_reads() {
    for extra in [
        &["--framework", "vllm"][..],
        &["--pue", "2"],
        &["--cost-basis", "ownership"],
    ] {
        let o = disagg(&[&["validate"][..], extra].concat());
        let err = refused(&o, &[], &format!("{extra:?}"));
        assert!(
            err.contains("framework its source names") || err.contains("none measures a cost"),
            "{extra:?}: {err}"
        );
    }
    let o = disagg(&["validate", "--scheduling", "static"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// `list assumptions --chip ID --framework NAME` prints what a pool of that chip runs with,
/// the framework's defaults in place; read back as a file it predicts exactly what the
/// framework does on that chip. It needs a chip, and applies to no other list.
#[test]
fn the_assumptions_a_chip_runs_with_are_listed_and_read_back() {
    let on_b200 = json_of(&[
        "list",
        "assumptions",
        "--chip",
        "b200",
        "--framework",
        "trtllm",
    ]);
    // TensorRT-LLM's fitted per-kernel cost and its timed FP4 pick on the B200.
    assert_eq!(on_b200["kernel_overhead"].as_f64(), Some(3e-6));
    assert_eq!(on_b200["fp4_routed_pick_time"].as_f64(), Some(19.2e-9));
    assert_eq!(on_b200["framework"], "trtllm");
    // The global defaults stay what `list assumptions` prints alone.
    let plain = json_of(&["list", "assumptions"]);
    assert_eq!(plain["fp4_routed_pick_time"].as_f64(), Some(0.0));

    let dir = std::env::temp_dir().join(format!("disagg-on-chip-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("b200-trtllm.json");
    std::fs::write(&file, on_b200.to_string()).unwrap();
    let nvfp4 = ["--tp", "8", "--ep", "8", "--weight-dtype", "nvfp4"];
    let by_framework = r1_output(&nvfp4, &["--framework", "trtllm"]);
    let by_file = r1_output(&nvfp4, &["--assumptions", file.to_str().unwrap()]);
    assert_eq!(by_framework, by_file);
    assert_ne!(by_framework, r1_output(&nvfp4, &["--framework", "generic"]));
    std::fs::remove_dir_all(&dir).ok();

    for (args, says) in [
        (
            &["list", "assumptions", "--framework", "trtllm"][..],
            "--framework needs --chip",
        ),
        (
            &["list", "assumptions", "--chip", "b9000"],
            "--chip: unknown chip 'b9000'",
        ),
        (
            &[
                "list",
                "assumptions",
                "--chip",
                "b200",
                "--framework",
                "tgi",
            ],
            "--framework: ",
        ),
        (
            &["list", "chips", "--chip", "b200"],
            "apply to `list assumptions` only",
        ),
    ] {
        refused(&disagg(args), &[says], &format!("{args:?}"));
    }
}

/// Every option of every command says what it does in `--help`: an option line followed
/// by a blank line or by the next option had no description (the pool flags, --tp, --pp
/// and --ep once had none).
#[test]
fn every_option_is_described_in_help() {
    let is_option = |l: &str| {
        let t = l.trim_start();
        let indent = l.len() - t.len();
        (2..=6).contains(&indent) && t.starts_with('-')
    };
    for command in [
        "list",
        "predict",
        "deploy",
        "sweep",
        "recommend",
        "validate",
    ] {
        let o = disagg(&[command, "--help"]);
        assert!(o.status.success(), "{command}: {}", stderr(&o));
        let help = stdout(&o);
        let lines: Vec<&str> = help.lines().collect();
        let options = lines.iter().filter(|l| is_option(l)).count();
        assert!(options > 1, "{command}: no options read from\n{help}");
        for pair in lines.windows(2) {
            let undescribed = pair[1].trim().is_empty() || is_option(pair[1]);
            assert!(
                !(is_option(pair[0]) && undescribed),
                "{command} --help: `{}` has no description",
                pair[0].trim()
            );
        }
    }
}
