//! `predict --axis pd`'s per-pool layout flags: each pool's TP, PP, DP (attention data
//! parallelism) and EP, kept in the bundle, and every bad value refused by its flag.

use super::{disagg, refused, stderr, stdout};

/// DeepSeek-V3 prefilled on 32 H100s and decoded on 16, with `extra` flags.
fn pd(extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "predict",
        "--model",
        "deepseek-v3",
        "--axis",
        "pd",
        "--prefill-chip",
        "h100-sxm",
        "--prefill-chips",
        "32",
        "--decode-chip",
        "h100-sxm",
        "--decode-chips",
        "16",
        "--isl",
        "2000",
        "--osl",
        "100",
        "--batch",
        "512",
        "--weight-dtype",
        "fp8",
    ];
    args.extend_from_slice(extra);
    disagg(&args)
}

#[test]
fn each_pools_layout_is_stated_by_its_own_flags_and_kept_in_the_bundle() {
    let dir = std::env::temp_dir().join(format!("disagg-pool-flags-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("pd.json");
    let o = pd(&[
        "--prefill-tp",
        "1",
        "--prefill-dp",
        "32",
        "--prefill-ep",
        "32",
        "--decode-tp",
        "8",
        "--decode-pp",
        "2",
        "--decode-ep",
        "8",
        "--prefill-two-batch-overlap",
        "--save-bundle",
        path.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("TP1 PP1 DP32 EP32"), "{out}");
    assert!(out.contains("TP8 PP2 DP1 EP8"), "{out}");
    // The bundle holds both layouts and the overlap, and runs to the same figures.
    let text = std::fs::read_to_string(&path).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let pools = json["deployment"]["pools"].as_array().unwrap();
    let layout = |i: usize| {
        let p = &pools[i]["parallelism"];
        ["tp", "pp", "dp", "ep"].map(|k| p[k].as_u64().unwrap())
    };
    assert_eq!((layout(0), layout(1)), ([1, 1, 32, 32], [8, 2, 1, 8]));
    assert_eq!(json["assumptions"]["prefill_two_batch_overlap"], true);
    let again = super::disagg(&["predict", "--bundle", path.to_str().unwrap()]);
    assert!(again.status.success(), "{}", stderr(&again));
    assert_eq!(stdout(&again), out);
    // Without the overlap the prefill pool's step is longer.
    let exposed = pd(&[
        "--prefill-tp",
        "1",
        "--prefill-ep",
        "32",
        "--decode-tp",
        "8",
        "--decode-pp",
        "2",
        "--decode-ep",
        "8",
    ]);
    assert!(exposed.status.success(), "{}", stderr(&exposed));
    let step = |s: &str| -> f64 {
        let line = s.lines().find(|l| l.contains("DP32 EP32: step")).unwrap();
        let after = line.split("step ").nth(1).unwrap();
        after.split(" ms").next().unwrap().parse().unwrap()
    };
    assert!(step(&stdout(&exposed)) > step(&out));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_bad_per_pool_value_names_its_flag() {
    for (flags, named) in [
        (&["--prefill-ep", "0"][..], "--prefill-ep 0"),
        (&["--decode-pp", "0"][..], "--decode-pp 0"),
        (&["--prefill-tp", "3"][..], "--prefill-tp 3"),
        (
            &["--decode-tp", "4", "--decode-pp", "8"][..],
            "--decode-pp 8",
        ),
        (
            &["--prefill-tp", "2", "--prefill-dp", "8"][..],
            "--prefill-dp 8",
        ),
        (
            &["--decode-dp", "16", "--decode-ep", "32"][..],
            "--decode-ep 32",
        ),
        (
            &["--prefill-dp", "32", "--prefill-ep", "5"][..],
            "--prefill-ep 5",
        ),
    ] {
        let o = pd(flags);
        refused(&o, &[named], &format!("{flags:?}"));
    }
}

/// A flag of another axis than the run's is refused by name, with the axes it applies
/// to, where it used to be ignored; the same flags on their own axis are taken. A
/// speculation's flags belong to the spec axis and to a prefill/decode run that
/// speculates in its decode pool.
#[test]
fn a_flag_of_another_axis_is_refused_by_name() {
    let agg = |extra: &[&str]| {
        let mut args = super::cli::llama_8b_at_batch_64("1000", "200").to_vec();
        args.extend_from_slice(extra);
        disagg(&args)
    };
    for (extra, says) in [
        (
            &["--prefill-tp", "2"][..],
            "--prefill-tp applies to --axis pd, not to --axis agg",
        ),
        (
            &["--decode-chips", "4"],
            "--decode-chips applies to --axis pd",
        ),
        (
            &["--micro-batches", "4"],
            "--micro-batches applies to --axis af",
        ),
        (&["--attn-chips", "2"], "--attn-chips applies to --axis af"),
        (
            &["--no-kv-streaming"],
            "--no-kv-streaming applies to --axis pd",
        ),
        (
            &["--acceptance", "0.5"],
            "--acceptance applies to --axis spec, or to --axis pd with --speculative-decode",
        ),
        (
            &["--draft-model", "mtp"],
            "--draft-model applies to --axis spec",
        ),
        (
            &["--draft-chip", "h100-sxm"],
            "--draft-chip applies to --axis spec",
        ),
        (
            &["--link-gbps", "400"],
            "--link-gbps sets the link between pools",
        ),
    ] {
        let o = agg(extra);
        refused(&o, &[says], &format!("{extra:?}"));
    }
    // The aggregated run's own flags, a default among them, are taken.
    let o = agg(&["--chips", "1", "--tp", "1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // On prefill/decode: the colocated layout is refused, the pools' own flags and the
    // link taken, and a speculation's flags only where the decode pool speculates.
    let o = pd(&["--tp", "8"]);
    assert!(stderr(&o).contains("--tp applies to --axis agg or --axis spec, not to --axis pd"));
    let o = pd(&[
        "--prefill-tp",
        "8",
        "--link-gbps",
        "400",
        "--no-kv-streaming",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = pd(&["--acceptance", "0.7"]);
    assert!(
        stderr(&o).contains("--acceptance applies to --axis spec"),
        "{}",
        stderr(&o)
    );
    let o = pd(&[
        "--speculative-decode",
        "--acceptance",
        "0.7",
        "--draft-tokens",
        "2",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("decode"), "{}", stdout(&o));
}

/// A draft pool's size without its chip used to be ignored (the draft ran on the
/// target's chips); it now needs `--draft-chip`.
#[test]
fn a_draft_pools_size_needs_its_chip() {
    let mut args = super::cli::llama_8b_at_batch_64("500", "100").to_vec();
    args.extend([
        "--axis",
        "spec",
        "--draft-model",
        "llama-3.2-1b",
        "--draft-chips",
        "4",
    ]);
    let o = disagg(&args);
    refused(&o, &["--draft-chip <DRAFT_CHIP>"], "");
    args.extend(["--draft-chip", "h100-sxm"]);
    let o = disagg(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("+ 4x NVIDIA H100 SXM5 80GB TP4 draft"),
        "{}",
        stdout(&o)
    );
}
