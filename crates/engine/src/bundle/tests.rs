use super::chips::edits_between;
use super::*;
use crate::catalogue::{ChipField, Grade};
use crate::disagg::evaluate;
use crate::limits::MAX_BUNDLE_BYTES;
use crate::sweep::sweep;
use serde_json::{json, Value};

/// A small config of a dense model (Llama-like), as a user would paste it.
const CONFIG: &str = r#"{"architectures": ["LlamaForCausalLM"], "_name_or_path": "my/llama",
  "hidden_size": 2048, "intermediate_size": 8192, "num_hidden_layers": 16,
  "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256,
  "max_position_embeddings": 131072, "torch_dtype": "bfloat16"}"#;

/// A bundle away from every default: the user's config, an edited chip, a changed
/// assumption, latency limits, a link and a selected deployment.
fn unusual() -> Bundle {
    let cat = Catalogue::builtin();
    let h200 = cat
        .chip("h200")
        .unwrap()
        .edited(ChipField::Price, 1.9)
        .unwrap()
        .edited(ChipField::MemoryBandwidth, 5.1)
        .unwrap();
    let chips = vec![h200, cat.chip("mi300x").unwrap().clone()];
    let mut b = Bundle::new(
        ModelSource::Config {
            name: "my/llama".into(),
            text: CONFIG.into(),
        },
        Workload::new(2048, 256)
            .with_cached_share(0.25)
            .with_output_cv(0.5),
        chips,
        Axis::PrefillDecode,
    );
    b.assumptions.mfu = 0.5;
    b.link.gbps = Some(400.0);
    b.sweep.max_chips = 16;
    b.sweep.ttft_ms = Some(800.0);
    b.sweep.tpot_ms = Some(40.0);
    let first = {
        let inputs = b.inputs(cat).unwrap();
        sweep(&inputs.request()).unwrap().cloud[0].spec.clone()
    };
    b.deployment = Some(first);
    b
}

#[test]
fn a_bundle_reads_back_equal_and_gives_the_same_figures_to_the_last_bit() {
    let cat = Catalogue::builtin();
    let b = unusual();
    let text = b.to_json();
    let back = Bundle::read(&text).unwrap();
    assert_eq!(back, b);
    assert_eq!(back.to_json(), text);
    assert!(back.notes().is_empty());
    let (x, y) = (b.inputs(cat).unwrap(), back.inputs(cat).unwrap());
    let (rx, ry) = (sweep(&x.request()).unwrap(), sweep(&y.request()).unwrap());
    assert!(rx.cloud.len() > 10, "{}", rx.cloud.len());
    assert_eq!(rx, ry);
    // The selected deployment is the sweep's point, evaluated alone.
    let point = evaluate(&y.setup(), &y.deployment().unwrap()).unwrap();
    assert_eq!(point.figures, rx.cloud[0].figures);
    // The edited chip travels as a record graded `user`; the model by its text.
    let h200: Value = serde_json::from_str::<Value>(&text).unwrap()["chips"][0].clone();
    assert_eq!(h200["price"], json!(1.9));
    assert_eq!(h200["provenance"]["price"]["grade"], json!("user"));
    assert_eq!(y.model_name(), "my/llama");
    assert_eq!(y.weights().dtype, crate::DType::Bf16);
}

#[test]
fn a_catalogue_model_travels_by_id_and_a_missing_deployment_is_said() {
    let cat = Catalogue::builtin();
    let b = Bundle::new(
        ModelSource::Catalogue("llama-3.3-70b".into()),
        Workload::new(1024, 128),
        vec![cat.chip("b200").unwrap().clone()],
        Axis::Aggregated,
    );
    let back = Bundle::read(&b.to_json()).unwrap();
    let inputs = back.inputs(cat).unwrap();
    assert_eq!(inputs.model_name(), "llama-3.3-70b");
    let why = inputs.deployment().unwrap_err().to_string();
    assert!(why.contains("selects no deployment"), "{why}");
    let unknown = Bundle {
        model: ModelSource::Catalogue("llama-9".into()),
        ..b.clone()
    };
    let why = unknown.inputs(cat).unwrap_err().to_string();
    assert!(
        why.contains("model.catalogue") && why.contains("llama-9"),
        "{why}"
    );
    let draft = Bundle {
        speculation: SpeculationSettings {
            draft: Some(ModelSource::Config {
                name: "d".into(),
                text: "{".into(),
            }),
            ..b.speculation.clone()
        },
        ..b
    };
    let why = draft.inputs(cat).unwrap_err().to_string();
    assert!(why.contains("speculation.draft.config.text"), "{why}");
}

/// The bundle's JSON with `edit` applied at a path of keys (array indices as numbers).
fn edited(path: &[&str], value: Value) -> String {
    let mut v: Value = serde_json::from_str(&unusual().to_json()).unwrap();
    let mut at = &mut v;
    for k in &path[..path.len() - 1] {
        at = match k.parse::<usize>() {
            Ok(i) => &mut at[i],
            Err(_) => &mut at[*k],
        };
    }
    let last = path[path.len() - 1];
    match value {
        Value::Null if last.starts_with('-') => {
            at.as_object_mut().unwrap().remove(&last[1..]);
        }
        value => at[last] = value,
    }
    v.to_string()
}

#[test]
fn every_bad_field_is_refused_by_its_path() {
    let cases: Vec<(&[&str], Value, &str)> = vec![
        (&["workload", "isl"], json!(0), "workload.isl"),
        (&["workload", "isl"], json!("long"), "workload.isl"),
        (&["workload", "osl"], json!(-1), "workload.osl"),
        (&["workload", "cached"], json!(5000), "workload.cached"),
        (
            &["workload", "output_cv"],
            json!(11.0),
            "workload.output_cv",
        ),
        (&["weights", "bits"], json!(0.5), "weights.bits"),
        (&["weights", "dtype"], json!("fp3"), "weights.dtype"),
        (
            &["weights", "expert_dtype"],
            json!("fp6"),
            "weights.expert_dtype",
        ),
        (
            &["weights", "lm_head_dtype"],
            json!(4),
            "weights.lm_head_dtype",
        ),
        (&["kv_dtype"], json!(8), "kv_dtype"),
        // A weight format only.
        (&["kv_dtype"], json!("fp8-block"), "kv_dtype"),
        (
            &["speculation", "acceptance"],
            json!(1.5),
            "speculation.acceptance",
        ),
        (
            &["speculation", "draft_tokens"],
            json!(99),
            "speculation.draft_tokens",
        ),
        (
            &["speculation", "eagle_layers"],
            json!(0),
            "speculation.eagle_layers",
        ),
        (
            &["assumptions", "redundant_experts"],
            json!(-1),
            "assumptions",
        ),
        (&["link", "gbps"], json!(0.0), "link.gbps"),
        (&["sweep", "axis"], json!("sideways"), "sweep.axis"),
        (&["sweep", "max_chips"], json!(0), "sweep.max_chips"),
        (&["sweep", "batch"], json!(0), "sweep.batch"),
        (&["sweep", "ttft_ms"], json!(-3.0), "sweep.ttft_ms"),
        (&["sweep", "slo_at"], json!("p99"), "sweep.slo_at"),
        (&["chips", "0", "price"], json!(-2.0), "chips[0].price"),
        (&["chips", "1", "bf16"], json!(0.0), "chips[1].bf16_tflops"),
        (&["chips", "1", "id"], json!("h200"), "chips[1].id"),
        (&["chips", "0", "id"], json!("a b"), "chips[0].id"),
        (
            &["chips", "0", "scale_up_domain"],
            json!(0),
            "chips[0].scale_up_domain",
        ),
        (&["chips", "0", "sm_count"], json!(0), "chips[0].sm_count"),
        // serde would read these by position; a list is refused where a record belongs.
        (&["workload"], json!([300, 50, 0, 0.0]), "workload"),
        (
            &["chips", "0", "fast"],
            json!([80e9, 3.35e12]),
            "chips[0].fast",
        ),
        (
            &["chips", "0", "fast", "bandwidth"],
            json!("fast"),
            "chips[0].fast.bandwidth",
        ),
        (&["chips"], json!([]), "chips"),
        (&["assumptions", "mfu"], json!(0.0), "assumptions"),
        (&["assumptions", "mfu_typo"], json!(0.5), "assumptions"),
        (&["model"], json!({"catalogue": ""}), "model.catalogue"),
        (&["model"], json!({"hub": "x"}), "model"),
        (&["deployment", "batch"], json!(0), "deployment.batch"),
        (
            &["deployment", "pools", "0", "chip"],
            json!("b200"),
            "deployment.pools[0].chip",
        ),
        (&["surprise"], json!(1), "surprise"),
        // A mistyped key inside a section is refused by its path too, where it used to be
        // read as if absent.
        (&["workload", "osl_typo"], json!(64), "workload.osl_typo"),
        (
            &["deployment", "batch_size"],
            json!(8),
            "deployment.batch_size",
        ),
        (
            &["deployment", "pools", "0", "parallelism", "tensor"],
            json!(2),
            "deployment.pools[0].parallelism.tensor",
        ),
        (&["chips", "0", "tdp_w"], json!(700), "chips[0].tdp_w"),
        (
            &["chips", "0", "efficiency", "mfu_typo"],
            json!(0.5),
            "chips[0].efficiency.mfu_typo",
        ),
        (&["format"], json!(3), "format"),
        (&["format"], json!(0), "format"),
        (&["format"], json!("one"), "format"),
        (&["-format"], Value::Null, "format"),
        (&["engine_version"], json!("99.0.0"), "newer"),
        (&["engine_version"], json!("latest"), "engine_version"),
        (&["-workload"], Value::Null, "workload"),
    ];
    for (path, value, needle) in cases {
        let text = edited(path, value.clone());
        let why = Bundle::read(&text)
            .map(|_| ())
            .expect_err(&format!("{path:?} = {value} was read"))
            .to_string();
        assert!(why.contains(needle), "{path:?} = {value}: {why}");
    }
}

#[test]
fn reading_is_bounded_and_never_panics() {
    let why = Bundle::read(&" ".repeat(MAX_BUNDLE_BYTES + 1))
        .unwrap_err()
        .to_string();
    assert!(why.contains("at most"), "{why}");
    assert!(Bundle::read("[1, 2]").is_err());
    assert!(Bundle::read("not json").is_err());
    // Every cut of a valid bundle is refused, none panics.
    let text = unusual().to_json();
    for end in (0..text.len()).step_by(97) {
        assert!(Bundle::read(&text[..end]).is_err(), "{end}");
    }
    // An older engine's bundle is read, with a note.
    let old = edited(&["engine_version"], json!("0.0.1"));
    let b = Bundle::read(&old).unwrap();
    assert!(b.notes()[0].contains("0.0.1"), "{:?}", b.notes());
}

#[test]
fn edits_are_recovered_from_an_edited_record_and_other_changes_refused() {
    let base = Catalogue::builtin().chip("h200").unwrap();
    let b = unusual();
    let edits = edits_between("chips[0]", base, &b.chips[0]).unwrap();
    assert_eq!(
        edits,
        vec![(ChipField::Price, 1.9), (ChipField::MemoryBandwidth, 5.1)]
    );
    // Applying them gives the record back, provenance included.
    let mut again = base.clone();
    for (f, v) in &edits {
        again = again.edited(*f, *v).unwrap();
    }
    assert_eq!(again, b.chips[0]);
    assert_eq!(again.provenance["price"].grade, Grade::User);
    assert!(edits_between("chips[0]", base, base).unwrap().is_empty());
    // A number typed into the record by hand is recovered too.
    let mut by_hand = base.clone();
    by_hand.fast.bandwidth = crate::units::BytesPerSecond(4.2e12);
    let found = edits_between("c", base, &by_hand).unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].0, ChipField::MemoryBandwidth);
    assert!((found[0].1 - 4.2).abs() < 1e-12, "{found:?}");
    // A change no edit expresses is refused by its field.
    let mut renamed = base.clone();
    renamed.scale_out = None;
    let why = edits_between("chips[3]", base, &renamed)
        .unwrap_err()
        .to_string();
    assert!(why.contains("chips[3].scale_out"), "{why}");
}

#[test]
fn mutated_bundles_are_read_or_refused_never_a_panic() {
    let cat = Catalogue::builtin();
    let text = unusual().to_json();
    let bytes = text.as_bytes();
    let mut state: u64 = 0x5eed_b0d1e;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state as usize
    };
    let pieces = [
        "0", "-1", "1e308", "\"x\"", "null", "[]", "{}", "9", ".", "\"",
    ];
    for _ in 0..400 {
        let at = next() % bytes.len();
        let piece = pieces[next() % pieces.len()];
        let mut mutated = String::from_utf8_lossy(&bytes[..at]).into_owned();
        mutated.push_str(piece);
        mutated.push_str(&String::from_utf8_lossy(
            &bytes[(at + 1).min(bytes.len())..],
        ));
        // A bundle that reads must also give inputs or a refusal, and its figures are
        // finite.
        if let Ok(b) = Bundle::read(&mutated) {
            if let Ok(i) = b.inputs(cat) {
                if let Ok(d) = i.deployment() {
                    if let Ok(p) = evaluate(&i.setup(), &d) {
                        assert!(p.figures.tok_s_user.value().is_finite());
                    }
                }
            }
        }
    }
}

#[test]
fn component_dtypes_travel_and_a_bundle_without_them_reads_as_before() {
    let cat = Catalogue::builtin();
    let mut b = Bundle::new(
        ModelSource::Catalogue("deepseek-r1".into()),
        Workload::new(1024, 256),
        vec![cat.chip("b200").unwrap().clone()],
        Axis::Aggregated,
    );
    // A bundle that sets no component writes neither field: the JSON an engine
    // before them wrote, and reads back with both unset.
    let plain = b.to_json();
    assert!(!plain.contains("expert_dtype") && !plain.contains("lm_head_dtype"));
    let back = Bundle::read(&plain).unwrap();
    assert_eq!(
        (back.weights.expert_dtype, back.weights.lm_head_dtype),
        (None, None)
    );
    assert!(!back.inputs(cat).unwrap().setup().precision().is_mixed());
    // Set, they read back equal and reach the setup.
    b.weights.dtype = Some(DType::Bf16);
    b.weights.expert_dtype = Some(DType::Nvfp4);
    b.weights.lm_head_dtype = Some(DType::Fp8);
    let text = b.to_json();
    let back = Bundle::read(&text).unwrap();
    assert_eq!(back, b);
    assert_eq!(back.to_json(), text);
    let p = back.inputs(cat).unwrap().setup().precision();
    assert_eq!(
        (p.dense.dtype, p.experts.dtype, p.lm_head.dtype),
        (DType::Bf16, DType::Nvfp4, DType::Fp8)
    );
}

#[test]
fn an_eagle_head_and_redundant_experts_travel_and_older_bundles_still_read() {
    let cat = Catalogue::builtin();
    let plain = Bundle::new(
        ModelSource::Catalogue("deepseek-v3".into()),
        Workload::new(1024, 256),
        vec![cat.chip("h800").unwrap().clone()],
        Axis::Speculative,
    );
    // A bundle that uses neither writes neither field, so it reads as before.
    let text = plain.to_json();
    assert!(!text.contains("eagle_layers") && !text.contains("redundant_experts"));
    let mut b = plain.clone();
    b.speculation.eagle_layers = Some(2);
    b.assumptions.redundant_experts = 32;
    let back = Bundle::read(&b.to_json()).unwrap();
    assert_eq!(back, b);
    let inputs = back.inputs(cat).unwrap();
    let setup = inputs.setup();
    assert!(matches!(
        setup.speculation.draft,
        crate::disagg::Draft::Eagle { layers: 2 }
    ));
    assert_eq!(setup.assumptions.redundant_experts, 32);
    // An EAGLE head beside a draft model is refused by its field.
    let mut both = b;
    both.speculation.draft = Some(ModelSource::Catalogue("llama-3.2-1b".into()));
    let why = Bundle::read(&both.to_json()).unwrap_err().to_string();
    assert!(why.contains("speculation.eagle_layers"), "{why}");
}

#[test]
fn a_prefill_pools_expert_layout_and_overlap_travel_and_older_bundles_still_read() {
    use crate::disagg::{PoolRole, PoolSpec};
    use crate::parallel::Parallelism;
    let cat = Catalogue::builtin();
    let mut b = Bundle::new(
        ModelSource::Catalogue("deepseek-v3".into()),
        Workload::new(2000, 100),
        vec![cat.chip("h100-sxm").unwrap().clone()],
        Axis::PrefillDecode,
    );
    b.weights.dtype = Some(crate::DType::Fp8);
    b.assumptions.prefill_two_batch_overlap = true;
    b.assumptions.expert_skew = 1.3;
    let pool = |role, tp, dp, ep| PoolSpec {
        role,
        chip: "h100-sxm".into(),
        parallelism: Parallelism { tp, pp: 1, dp, ep },
    };
    b.deployment = Some(DeploymentSpec {
        axis: Axis::PrefillDecode,
        pools: vec![
            pool(PoolRole::Prefill, 1, 32, 32),
            pool(PoolRole::Decode, 1, 16, 16),
        ],
        batch: 512,
        micro_batches: 1,
    });
    let text = b.to_json();
    let back = Bundle::read(&text).unwrap();
    assert_eq!(back, b);
    let (x, y) = (b.inputs(cat).unwrap(), back.inputs(cat).unwrap());
    let figures = |i: &Inputs| {
        evaluate(&i.setup(), &i.deployment().unwrap())
            .unwrap()
            .figures
    };
    assert_eq!(figures(&x), figures(&y));
    // A bundle written before these assumptions existed reads with their defaults.
    let mut old: Value = serde_json::from_str(&text).unwrap();
    let a = old["assumptions"].as_object_mut().unwrap();
    a.remove("prefill_two_batch_overlap");
    a.remove("expert_skew");
    let old = Bundle::read(&old.to_string()).unwrap();
    assert!(!old.assumptions.prefill_two_batch_overlap);
    assert_eq!(
        old.assumptions.expert_skew,
        Assumptions::default().expert_skew
    );
}

#[test]
fn cost_settings_travel_and_format_1_bundles_still_read() {
    let cat = Catalogue::builtin();
    let plain = Bundle::new(
        ModelSource::Catalogue("llama-3.3-70b".into()),
        Workload::new(1000, 1000),
        vec![cat.chip("h100-sxm").unwrap().clone()],
        Axis::Aggregated,
    );
    // Default cost settings are not written, so such a bundle is format 1 apart from
    // its number, and a format-1 reader's text reads here with the defaults.
    let text = plain.to_json();
    assert!(!text.contains("\"cost\""));
    let old = text.replace(&format!("\"format\": {FORMAT}"), "\"format\": 1");
    assert_ne!(old, text);
    let back = Bundle::read(&old).unwrap();
    assert_eq!(back.assumptions.cost, crate::cost::CostSettings::default());
    let mut b = plain;
    b.assumptions.cost.electricity_usd_kwh = 0.31;
    b.assumptions.cost.capex_usd_per_chip = Some(30_000.0);
    b.assumptions.cost.basis = crate::cost::CostBasis::Ownership;
    let back = Bundle::read(&b.to_json()).unwrap();
    assert_eq!(back, b);
    assert_eq!(
        back.inputs(cat).unwrap().setup().assumptions.cost,
        b.assumptions.cost
    );
    // Out of bounds, refused by its path.
    let bad = edited(&["assumptions", "cost", "pue"], json!(0.2));
    let why = Bundle::read(&bad).unwrap_err().to_string();
    assert!(why.contains("pue"), "{why}");
    // A format this engine does not know.
    let future = text.replace(&format!("\"format\": {FORMAT}"), "\"format\": 99");
    assert!(Bundle::read(&future).is_err());
}
