//! The catalogue's rules: every id present, every number sourced and graded, dense
//! peaks, official parameter totals, bad files refused by name; and the repository
//! standing alone.

use super::common::*;
use disagg_engine::catalogue::Grade;

#[test]
fn catalogue_loads_without_problems() {
    assert!(cat().problems.is_empty(), "{:#?}", cat().problems);
}

#[test]
fn catalogue_has_every_required_id() {
    let chips =
        "h100-sxm h100-pcie h200 h800 b200 b300 gb200 gb300 a100-80g a100-pcie l40s rtx-4090 rtx-5090 \
        rtx-pro-6000 dgx-spark mi300x mi325x mi355x tpu-v5e tpu-v5p tpu-v6e tpu-v7 trainium2 \
        inferentia2 gaudi3 groq-lpu cerebras-wse3 sn40l d-matrix-corsair m1-max m2-ultra m3-max \
        m3-ultra m4-max";
    for id in chips.split_whitespace() {
        cat().chip(id).unwrap_or_else(|e| panic!("{e}"));
    }
    let models = "llama-2-7b llama-2-70b llama-3-8b llama-3.1-8b llama-3-70b llama-3.3-70b \
        llama-3.1-405b mistral-7b mixtral-8x7b qwen3-32b qwen3-30b-a3b qwen3-235b-a22b deepseek-v3 \
        deepseek-r1 kimi-k2 gpt-oss-20b gpt-oss-120b gemma-3-27b glm-4.5";
    for id in models.split_whitespace() {
        cat().model(id).unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn every_chip_number_has_a_source_and_grade() {
    for chip in &cat().chips {
        for field in ["bf16_tflops", "memory", "memory_bandwidth"] {
            let p = chip
                .provenance
                .get(field)
                .unwrap_or_else(|| panic!("{} lacks {field}", chip.id));
            assert!(!p.sources.is_empty() && p.sources.iter().all(|s| !s.trim().is_empty()));
        }
        assert!(
            chip.provenance.values().all(|p| !p.sources.is_empty()),
            "{}",
            chip.id
        );
    }
}

#[test]
fn fp8_peaks_are_dense() {
    for chip in &cat().chips {
        if let Some(fp8) = chip.fp8 {
            assert!(
                fp8.value() <= MAX_LOW_PRECISION_RATIO * chip.bf16.value(),
                "{}",
                chip.id
            );
        }
    }
}

#[test]
fn parameter_counts_match_official_totals() {
    for m in &cat().models {
        let gap = (m.ir.params().total - m.official_total_params).abs() / m.official_total_params;
        assert!(
            gap <= PARAM_TOLERANCE || m.param_note.is_some(),
            "{}: {:.1}%",
            m.id,
            gap * 100.0
        );
    }
}

fn chip_file(extra: &str) -> String {
    format!(
        r#"{{"id":"x","name":"x","vendor":"x","form":"x","sources":{{"a":"doc"}},
        "bf16_tflops":{{"value":100,"unit":"TFLOPS","grade":"verified","source":"a"}},
        "memory":{{"value":80,"unit":"GB","grade":"verified","source":"a"}},
        "memory_bandwidth":{{"value":3000,"unit":"GB/s","grade":"verified","source":"a"}}{extra}}}"#
    )
}

fn check_rejected(extra: &str, expected: &str) {
    let json = chip_file(extra);
    let c = Catalogue::from_json_files(&[("x.toml", &json)], &[]);
    let msg = c
        .problems
        .first()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(msg.contains(expected), "'{msg}' should say '{expected}'");
}

#[test]
fn catalogue_rules_reject_bad_fields() {
    let ok = chip_file("");
    assert!(Catalogue::from_json_files(&[("x.toml", &ok)], &[])
        .problems
        .is_empty());
    check_rejected(
        r#","fp8_tflops":{"value":300,"unit":"TFLOPS","grade":"verified","source":"a"}"#,
        "sparse figure",
    );
    check_rejected(
        r#","tdp":{"value":300,"unit":"horsepower","grade":"verified","source":"a"}"#,
        "unknown unit",
    );
    check_rejected(
        r#","tdp":{"value":300,"unit":"W","grade":"verified","source":""}"#,
        "no source",
    );
    check_rejected(
        r#","tdp":{"value":300,"unit":"W","grade":"verified","source":"b"}"#,
        "not in the file's [sources]",
    );
    check_rejected(
        r#","tdp":{"value":300,"unit":"W","grade":"derived","source":"a"}"#,
        "formula",
    );
    check_rejected(
        r#","memory_kind":{"kind":"sram","source":"b"}"#,
        "memory_kind: source 'b' is not in the file's [sources]",
    );
    check_rejected(r#","memory_kind":{"kind":"flash","source":"a"}"#, "flash");
    // A measured matmul rate above its dtype's dense peak, or without that peak.
    check_rejected(
        r#","matmul_bf16_tflops":{"value":120,"unit":"TFLOPS","grade":"estimate","source":"a"}"#,
        "matmul_bf16_tflops 120.0 TFLOPS must lie in (0, the dense peak 100.0]",
    );
    check_rejected(
        r#","matmul_fp8_tflops":{"value":150,"unit":"TFLOPS","grade":"estimate","source":"a"}"#,
        "matmul_fp8_tflops needs the dtype's peak beside it",
    );
    check_rejected(
        r#","matmul_fp4_tflops":{"value":150,"unit":"TFLOPS","grade":"estimate","source":"a"}"#,
        "matmul_fp4_tflops needs the dtype's peak beside it",
    );
    check_rejected(
        r#","fp4_tflops":{"value":400,"unit":"TFLOPS","grade":"verified","source":"a"},"matmul_fp4_tflops":{"value":500,"unit":"TFLOPS","grade":"estimate","source":"a"}"#,
        "matmul_fp4_tflops 500.0 TFLOPS must lie in (0, the dense peak 400.0]",
    );
    // A known kind with a known source loads, and says so.
    let sram = chip_file(r#","memory_kind":{"kind":"sram","source":"a"}"#);
    let c = Catalogue::from_json_files(&[("x.toml", &sram)], &[]);
    assert!(c.problems.is_empty(), "{:?}", c.problems);
    assert_eq!(
        c.chips[0].memory_kind,
        disagg_engine::catalogue::MemoryKind::Sram
    );
}

#[test]
fn model_without_reason_for_a_param_gap_is_rejected() {
    let model = r#"{"id":"m","name":"m","hf_repo":"r","default_weight_dtype":"bf16","sources":{"a":"doc"},
        "config_source":"a","config_grade":"verified",
        "official_total_params":{"value":20,"unit":"B","grade":"verified","source":"a"},
        "config":{"hidden_size":4096,"num_hidden_layers":32,"num_attention_heads":32,"intermediate_size":14336,"vocab_size":128256}}"#;
    let c = Catalogue::from_json_files(&[], &[("m.toml", model)]);
    assert!(
        c.problems[0].to_string().contains("no param_note"),
        "{:?}",
        c.problems
    );
}

#[test]
fn nothing_in_the_repository_cites_a_file_outside_it() {
    // The seed documents live beside the repository, not in it: a clone must stand
    // alone. (The needles are built at run time so that this file does not match.)
    let needles: Vec<String> = ["design", "data", "seeds"]
        .iter()
        .map(|d| format!("{}/{d}/", "shared"))
        .chain([format!("..{}shared", '/')])
        .collect();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut stack = vec![root.clone()];
    let mut checked = 0;
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                if !name.starts_with('.')
                    && !["target", "dist", "node_modules"].contains(&name.as_str())
                {
                    stack.push(path);
                }
                continue;
            }
            let text_kind = ["rs", "md", "toml", "html", "css", "sh", "json"]
                .iter()
                .any(|ext| name.ends_with(&format!(".{ext}")));
            if !text_kind {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            checked += 1;
            for needle in &needles {
                assert!(
                    !text.contains(needle.as_str()),
                    "{} cites {needle}",
                    path.strip_prefix(&root).unwrap_or(&path).display()
                );
            }
        }
    }
    assert!(checked > 50, "only {checked} files read");
}

/// What a "verified" chip number may rest on: the vendor's own documents, official
/// repositories and documentation, papers and official results. A value whose sources
/// are all blogs, shops, wikis or aggregators (even faithful reproductions of a
/// datasheet) is at most an estimate.
const PRIMARY: [&str; 12] = [
    "docs.cloud.google.com", // Google Cloud TPU documentation
    "github.com/aws-neuron", // AWS Neuron SDK repository
    "awsdocs-neuron",        // AWS Neuron documentation
    "github.com/ROCm",       // AMD's ROCm documentation repository
    "jax-ml/jax",            // Google's JAX repository (tpu_info.py)
    "github.com/mlcommons",  // MLPerf official results repositories
    "arXiv",                 // papers
    "NVIDIA/TensorRT-LLM",   // NVIDIA's official repository
    "Apple newsroom",        // the vendor's announcements
    "datasheet PB-",         // a vendor datasheet by document number
    "product brief PB-",     // a vendor product brief by document number
    "support.apple.com",     // Apple Support's own measurements (Mac Studio power)
];

#[test]
fn verified_chip_numbers_rest_on_primary_sources() {
    let mut verified = 0;
    for chip in &cat().chips {
        for (field, p) in &chip.provenance {
            if p.grade != Grade::Verified {
                continue;
            }
            verified += 1;
            assert!(
                p.sources
                    .iter()
                    .any(|s| PRIMARY.iter().any(|m| s.contains(m))),
                "{} {field} is graded verified on secondary sources only: {:?}",
                chip.id,
                p.sources
            );
        }
    }
    assert!(verified > 20, "{verified} verified numbers");
}

/// A Qwen2.5-72B-shaped config, from the public fields of its `config.json`.
pub const QWEN25_72B: &str = r#"{"architectures":["Qwen2ForCausalLM"],"model_type":"qwen2",
  "hidden_size":8192,"intermediate_size":29568,"num_hidden_layers":80,
  "num_attention_heads":64,"num_key_value_heads":8,"vocab_size":152064,
  "max_position_embeddings":32768,"tie_word_embeddings":false,"torch_dtype":"bfloat16"}"#;

#[test]
fn a_users_config_is_a_model_graded_user() {
    let m = disagg_engine::ModelPreset::from_user_config(QWEN25_72B).unwrap();
    assert_eq!(m.id, disagg_engine::catalogue::USER_MODEL_ID);
    assert_eq!(m.name, "Qwen2ForCausalLM");
    assert_eq!(m.config_provenance.grade, Grade::User);
    // Qwen2.5-72B has 72.7B parameters.
    let total = m.ir.params().total;
    assert!((total / 1e9 - 72.7).abs() < 0.1, "{}", total / 1e9);
    assert_eq!(m.official_total_params, total);
    // A bad config names the field; an oversized one is refused before parsing.
    let missing = QWEN25_72B.replace("\"hidden_size\":8192,", "");
    let e = disagg_engine::ModelPreset::from_user_config(&missing).unwrap_err();
    assert!(e.to_string().contains("hidden_size"), "{e}");
    let huge = format!(
        "{{\"pad\":\"{}\"}}",
        "x".repeat(disagg_engine::limits::MAX_CONFIG_BYTES)
    );
    let e = disagg_engine::ModelPreset::from_user_config(&huge).unwrap_err();
    assert!(e.to_string().contains("bytes"), "{e}");
}

#[test]
fn a_users_fp8_checkpoint_sets_the_default_weight_format() {
    let with_quantization = |q: &str| {
        let text = QWEN25_72B.replacen('{', &format!("{{\"quantization_config\":{q},"), 1);
        disagg_engine::ModelPreset::from_user_config(&text).unwrap()
    };
    let warning = |m: &disagg_engine::ModelPreset| {
        m.parse_report
            .warnings
            .iter()
            .find(|w| w.contains("quantization_config"))
            .cloned()
            .unwrap_or_default()
    };
    // DeepSeek-V3's and Qwen's FP8 checkpoints: E4M3 with 128 x 128 block scales.
    let block = with_quantization(
        r#"{"quant_method":"fp8","fmt":"e4m3","activation_scheme":"dynamic","weight_block_size":[128,128]}"#,
    );
    assert_eq!(block.default_weight_dtype, DType::Fp8Block);
    assert!(
        warning(&block).contains("default dtype, fp8-block"),
        "{}",
        warning(&block)
    );
    // FP8 without blocks scales per tensor.
    let per_tensor = with_quantization(r#"{"quant_method":"fp8","activation_scheme":"static"}"#);
    assert_eq!(per_tensor.default_weight_dtype, DType::Fp8);
    // A method the engine does not model keeps torch_dtype's format, and says so.
    let awq = with_quantization(r#"{"quant_method":"awq","bits":4,"group_size":128}"#);
    assert_eq!(awq.default_weight_dtype, DType::Bf16);
    assert!(warning(&awq).contains("is not read"), "{}", warning(&awq));
    // No quantization_config: torch_dtype, and no word about it.
    let plain = disagg_engine::ModelPreset::from_user_config(QWEN25_72B).unwrap();
    assert_eq!(plain.default_weight_dtype, DType::Bf16);
    assert_eq!(warning(&plain), "");
}

#[test]
fn a_users_chip_numbers_replace_the_catalogues_graded_user() {
    use disagg_engine::catalogue::ChipField;
    let edited = cat()
        .with_chip_edits([
            ("h200", ChipField::Price, 2.0),
            ("h200", ChipField::MemoryBandwidth, 9.6),
        ])
        .unwrap();
    let before = cat().chip("h200").unwrap();
    let after = edited.chip("h200").unwrap();
    assert_eq!(ChipField::Price.get(after), Some(2.0));
    assert_eq!(ChipField::MemoryBandwidth.get(after), Some(9.6));
    assert_eq!(after.fast.bandwidth.value(), 9.6e12);
    assert_eq!(after.provenance["price"].grade, Grade::User);
    let note = after.provenance["memory_bandwidth"].note.clone().unwrap();
    assert!(note.contains("4.8 TB/s"), "{note}");
    // Other chips and fields are the catalogue's.
    assert_eq!(edited.chip("b200").unwrap(), cat().chip("b200").unwrap());
    assert_eq!(after.memory_capacity(), before.memory_capacity());
    // Twice the bandwidth: a memory-bound decode step takes about half as long.
    let model = &cat().model("llama-3.3-70b").unwrap().ir;
    let step = |chip: &Chip| {
        let setup = Setup::new(
            model,
            Workload::new(1024, 256),
            WeightFormat::new(DType::Fp8),
        );
        let d = Deployment::Aggregated {
            pool: PoolConfig {
                chip,
                parallelism: Parallelism {
                    tp: 2,
                    ..Parallelism::single()
                },
            },
            batch: 1,
        };
        evaluate(&setup, &d).unwrap().figures.tpot.value()
    };
    let ratio = step(after) / step(before);
    assert!((0.45..0.7).contains(&ratio), "{ratio}");
    // Nonsense is refused by name.
    let e = cat()
        .with_chip_edits([("h200", ChipField::Price, -1.0)])
        .unwrap_err();
    assert!(e.to_string().contains("price of h200"), "{e}");
    assert!(cat()
        .with_chip_edits([("warp-drive", ChipField::Price, 1.0)])
        .is_err());
    assert!(ChipField::parse("flux")
        .unwrap_err()
        .to_string()
        .contains("memory_bandwidth"));
}

/// MODEL.md section 1.1: a chip with a measured matmul rate `m` of its peak `P` runs
/// matmuls at `mfu * (m / P) / MATMUL_REFERENCE` of `P`; a dtype it has no measurement
/// for takes the next wider one's share, a calibrated override wins, and a chip with
/// neither keeps the global `mfu`.
#[test]
fn measured_matmul_shares_scale_the_global_mfu() {
    use disagg_engine::assumptions::{Assumptions, ChipRates, MATMUL_REFERENCE};
    use disagg_engine::catalogue::ChipField;
    use disagg_engine::dtype::ComputeRate;
    let a = Assumptions::default();
    let rates = |id: &str| ChipRates::for_chip(cat().chip(id).unwrap(), &a);
    let close = |x: f64, y: f64| assert!((x - y).abs() < 1e-12, "{x} vs {y}");

    // B200: 1,745.0 of 2,250 TFLOPS BF16, 3,432.5 of 4,500 FP8 and 5,702 of 9,000 FP4
    // measured, each dtype at its own share.
    let b200 = rates("b200");
    close(b200.mfu_bf16, 0.6 * (1745.0 / 2250.0) / MATMUL_REFERENCE);
    close(b200.mfu_fp8, 0.6 * (3432.5 / 4500.0) / MATMUL_REFERENCE);
    close(b200.mfu_fp4, 0.6 * (5702.0 / 9000.0) / MATMUL_REFERENCE);
    close(b200.mfu(ComputeRate::Fp4), b200.mfu_fp4);
    close(b200.bw_eff, a.bw_eff);
    // GB200 has no FP4 measurement: its FP4 matmuls take its FP8 share (3,615.6 of 5,000).
    let gb200 = rates("gb200");
    close(gb200.mfu_fp8, 0.6 * (3615.6 / 5000.0) / MATMUL_REFERENCE);
    close(gb200.mfu_fp4, gb200.mfu_fp8);
    // The rate an FP4 matmul runs at, peak x mfu: B200's is its measured 5,702 TFLOPS
    // scaled by mfu / MATMUL_REFERENCE; GB200's is its 10,000 TFLOPS FP4 peak at FP8's share.
    let fp4_rate = |id: &str| {
        let chip = cat().chip(id).unwrap();
        chip.peak(ComputeRate::Fp4).tflops() * rates(id).mfu(ComputeRate::Fp4)
    };
    let rel = |x: f64, y: f64| assert!((x / y - 1.0).abs() < 1e-12, "{x} vs {y}");
    rel(fp4_rate("b200"), 5702.0 * 0.6 / MATMUL_REFERENCE);
    rel(
        fp4_rate("gb200"),
        10_000.0 * 0.6 * (3615.6 / 5000.0) / MATMUL_REFERENCE,
    );
    // MI325X: BF16 from ml-engineering (784.9 of 1,307.4 TFLOPS), FP8 from AMD's own
    // table (1,519 of 2,614.9), each at its own share; its sustained FP8 rate is AMD's
    // measured one scaled by mfu / MATMUL_REFERENCE, whatever its peak.
    let mi325x = rates("mi325x");
    close(mi325x.mfu_bf16, 0.6 * (784.9 / 1307.4) / MATMUL_REFERENCE);
    close(mi325x.mfu_fp8, 0.6 * (1519.0 / 2614.9) / MATMUL_REFERENCE);
    rel(
        cat()
            .chip("mi325x")
            .unwrap()
            .peak(ComputeRate::Fp8)
            .tflops()
            * mi325x.mfu_fp8,
        1519.0 * 0.6 / MATMUL_REFERENCE,
    );
    // MI300X keeps the efficiency fitted on its own calibration point at every dtype (no
    // measured rate may take its FP8 matmuls past the override); an RTX 4090 has no
    // measurement and keeps the global one.
    close(rates("mi300x").mfu_bf16, 0.342);
    close(rates("mi300x").mfu_fp8, 0.342);
    let rtx = rates("rtx-4090");
    close(rtx.mfu_bf16, a.mfu);
    close(rtx.mfu_fp8, a.mfu);

    // The global knob still moves every chip, and no share of a peak passes 1.
    let high = Assumptions {
        mfu: 0.99,
        ..Assumptions::default()
    };
    let a100 = ChipRates::for_chip(cat().chip("a100-80g").unwrap(), &high);
    close(a100.mfu_bf16, 1.0);

    // A user's peak keeps the measured share: doubling B200's BF16 peak doubles its
    // sustained BF16 rate.
    let chip = cat().chip("b200").unwrap();
    let edited = chip.edited(ChipField::Bf16, 4500.0).unwrap();
    let sustained = |c: &disagg_engine::catalogue::Chip| {
        c.peak(ComputeRate::Bf16).tflops() * ChipRates::for_chip(c, &a).mfu(ComputeRate::Bf16)
    };
    close(sustained(&edited) / sustained(chip), 2.0);
}
