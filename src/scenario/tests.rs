use super::*;
use disagg_engine::disagg::{PoolRole, PoolSpec};
use disagg_engine::serving::{Framework, FrameworkChoice};
use disagg_engine::{Assumptions, Parallelism};

/// The catalogue every scenario test reads its links against.
pub(crate) fn cat() -> &'static Catalogue {
    Catalogue::builtin()
}

#[test]
fn every_default_id_is_in_the_catalogue() {
    let s = Scenario::default();
    assert!(cat().model(&s.model).is_ok());
    for c in &s.chips {
        assert!(cat().chip(c).is_ok(), "{c}");
    }
    assert!(cat().model(s.draft_model.as_deref().unwrap()).is_ok());
}

#[test]
fn query_round_trips() {
    let s = Scenario {
        model: "deepseek-v3".into(),
        isl: 2048,
        osl: 1024,
        prefix_hit_pct: 56.3,
        output_cv: 1.114,
        weight_dtype: Some(DType::Fp4),
        expert_dtype: Some(DType::Mxfp4),
        attn_out_dtype: Some(DType::Nvfp4),
        lm_head_dtype: Some(DType::Bf16),
        kv_dtype: DType::Bf16,
        axis: Axis::AttentionExpert,
        chips: vec!["gb200".into(), "mi355x".into(), "my-h100".into()],
        max_chips: 128,
        target_tok_s_user: Some(37.5),
        ttft_ms: Some(500.0),
        tpot_ms: Some(33.3),
        slo_at: disagg_engine::sweep::SloAt::P90,
        batch: Some(48),
        rate: Some(12.75),
        prompts_per_user: Some(7.5),
        run_requests: Some(52_800),
        run_longest_output: Some(1024),
        draft_model: None,
        eagle_layers: Some(3),
        redundant_experts: 32,
        acceptance: 0.65,
        draft_tokens: 3,
        speculative_decode: true,
        aligned_prefill: true,
        expert_exchange: disagg_engine::assumptions::ExpertExchange::GatherScatter,
        framework: FrameworkChoice::Given(Framework::Vllm),
        scheduling: disagg_engine::serving::Scheduling::Static,
        y_axis: YAxis::TokSPerUsdHour,
        colour_by: ColourBy::Chip,
        custom_config: None,
        chip_edits: [
            (("h200".to_string(), ChipField::MemoryBandwidth), 5.5),
            (("my-h100".to_string(), ChipField::Price), 1.25),
        ]
        .into(),
        user_chips: [("my-h100".to_string(), "h100-sxm".to_string())].into(),
        link: Some("tb5-rdma".into()),
        assumptions: [
            ("mfu".to_string(), 0.45),
            ("step_overhead".to_string(), 0.0003),
        ]
        .into(),
        cost: disagg_engine::cost::CostSettings {
            electricity_usd_kwh: 0.0825,
            pue: 1.31,
            capex_usd_per_chip: Some(27_500.0),
            years: 3.5,
            duty_cycle: 0.72,
            idle_share: 0.2,
            basis: disagg_engine::cost::CostBasis::Ownership,
        },
        show: Some(DeploymentSpec {
            axis: Axis::AttentionExpert,
            pools: vec![
                PoolSpec {
                    role: PoolRole::Attention,
                    chip: "gb200".into(),
                    parallelism: Parallelism {
                        tp: 1,
                        pp: 1,
                        dp: 8,
                        ep: 1,
                    },
                },
                PoolSpec {
                    role: PoolRole::Experts,
                    chip: "my-h100".into(),
                    parallelism: Parallelism {
                        tp: 1,
                        pp: 1,
                        dp: 1,
                        ep: 16,
                    },
                },
            ],
            batch: 256,
            micro_batches: 2,
        }),
        run: RunSettings {
            prompts: Some(480),
            bits_per_weight: Some(4.85),
            host_overlap: Some(false),
            scheduler_recv_interval: 30,
            prefill_two_batch_overlap: true,
            weight_offload: 0.25,
        },
    };
    let (back, notices) = Scenario::from_query(&s.to_query(), cat());
    assert_eq!(back, s);
    assert!(notices.is_empty(), "{notices:?}");
}

#[test]
fn the_colour_and_the_selected_point_travel_in_the_link() {
    assert!(!Scenario::default().to_query().contains("colour"));
    let (s, notices) = Scenario::from_query("v=1&colour=chip&point=12", cat());
    assert_eq!(s.colour_by, ColourBy::Chip);
    assert!(
        notices.is_empty(),
        "the point is not a scenario notice: {notices:?}"
    );
    let (_, notices) = Scenario::from_query("v=1&colour=plaid", cat());
    assert!(
        notices[0].contains("colour is price or chip"),
        "{notices:?}"
    );
    assert_eq!(selected_point("?v=1&point=12"), Ok(Some(12)));
    let link = link_query(&s, Some(7));
    assert_eq!(selected_point(&link), Ok(Some(7)));
    assert_eq!(Scenario::from_query(&link, cat()).0, s);
    assert_eq!(link_query(&s, None), s.to_query());
    assert_eq!(selected_point("v=1"), Ok(None));
    for bad in ["point=-1", "point=NaN", "point=99999999999999", "point="] {
        let why = selected_point(bad).unwrap_err();
        assert!(why.contains("point="), "{why}");
    }
}

#[test]
fn hostile_queries_give_the_nearest_valid_scenario_and_say_why() {
    let (s, notices) = Scenario::from_query(
        "?v=1&model=gpt-9&isl=-5&osl=99999999999999999999&chips=h200,warp-drive,h200\
         &budget=0&acc=NaN&k=400&target=inf&axis=%3Cscript%3E&zzz=1&%E0%A4=%&sd=maybe&adp=2&xchg=broadcast&ocv=-1",
        cat(),
    );
    let d = Scenario::default();
    assert_eq!(s.model, d.model);
    assert_eq!((s.isl, s.osl), (d.isl, d.osl));
    assert_eq!(s.chips, vec!["h200".to_string()]);
    assert_eq!(s.max_chips, d.max_chips);
    assert_eq!(s.acceptance, d.acceptance);
    assert_eq!(s.draft_tokens, d.draft_tokens);
    assert_eq!(s.target_tok_s_user, None);
    assert_eq!(s.axis, d.axis);
    assert!(!s.speculative_decode);
    assert!(!s.aligned_prefill);
    assert!(s.expert_exchange.is_all_to_all());
    assert_eq!(s.output_cv, 0.0);
    for needle in [
        "model",
        "isl",
        "osl",
        "warp-drive",
        "budget",
        "acc",
        "k=",
        "target",
        "axis",
        "zzz",
        "sd=",
        "adp=",
        "xchg",
        "spread",
    ] {
        assert!(
            notices.iter().any(|n| n.contains(needle)),
            "no notice mentions {needle}: {notices:#?}"
        );
    }
}

#[test]
fn too_many_chip_kinds_are_cut_with_a_notice() {
    let all: Vec<&str> = cat().chips.iter().map(|c| c.id.as_str()).collect();
    let (s, notices) = Scenario::from_query(&format!("v=1&chips={}", all.join(",")), cat());
    assert_eq!(s.chips.len(), MAX_CHIP_KINDS);
    assert!(notices.iter().any(|n| n.contains("at most")));
}

#[test]
fn an_input_that_fails_leaves_the_scenario_as_it_was() {
    let mut s = Scenario::default();
    let before = s.clone();
    for (k, v) in [
        ("isl", "0"),
        ("osl", "1e9"),
        ("acc", "1.5"),
        ("target", "-3"),
        ("wd", "fp3"),
        ("ed", "fp6"),
        ("ao", "fp5"),
        ("hd", "mxfp8"),
        ("hit", "100"),
        ("hit", "-1"),
        ("hit", "NaN"),
        ("ocv", "-0.1"),
        ("ocv", "11"),
        ("ocv", "inf"),
    ] {
        assert!(s.apply(k, v, cat()).is_err(), "{k}={v}");
    }
    assert_eq!(s, before);
    s.apply("target", "25", cat()).unwrap();
    assert_eq!(s.target_tok_s_user, Some(25.0));
    s.apply("target", "", cat()).unwrap();
    assert_eq!(s.target_tok_s_user, None);
    s.apply("wd", "default", cat()).unwrap();
    assert_eq!(s.weight_dtype, None);
    s.apply("ed", "nvfp4", cat()).unwrap();
    assert_eq!(s.expert_dtype, Some(DType::Nvfp4));
    s.apply("ed", "default", cat()).unwrap();
    assert_eq!(s.expert_dtype, None);
    s.apply("ao", "nvfp4", cat()).unwrap();
    assert_eq!(s.attn_out_dtype, Some(DType::Nvfp4));
    // The page's dtype selects read each key's value back.
    assert_eq!(s.dtype_at("ao"), Some(DType::Nvfp4));
    assert_eq!(s.dtype_at("kv"), Some(s.kv_dtype));
    assert_eq!(s.dtype_at("hd"), s.lm_head_dtype);
    s.apply("ao", "", cat()).unwrap();
    assert_eq!(s.attn_out_dtype, None);
}

#[test]
fn the_hit_share_caches_whole_tokens_and_leaves_one_to_compute() {
    let mut s = Scenario {
        isl: 4383,
        prefix_hit_pct: 56.3,
        ..Scenario::default()
    };
    // 0.563 * 4383 = 2467.6
    assert_eq!(s.workload().cached, 2468);
    s.isl = 1;
    assert_eq!(s.workload().cached, 0);
    s.isl = 100;
    s.prefix_hit_pct = MAX_PREFIX_HIT_PCT;
    assert_eq!(s.workload().cached, 99);
    s.prefix_hit_pct = 0.0;
    assert_eq!(s.workload().cached, 0);
    assert!(!s.to_query().contains("hit="));
}

#[test]
fn prompts_per_user_reach_the_workload_and_the_link_only_when_set() {
    let mut s = Scenario::default();
    assert_eq!(s.workload().prompts_per_user, None);
    assert!(!s.to_query().contains("ppu="));
    s.apply("ppu", "10", cat()).unwrap();
    assert_eq!(s.workload().prompts_per_user, Some(10.0));
    assert!(s.to_query().contains("ppu=10"));
    let before = s.clone();
    for bad in ["0.5", "0", "-1", "NaN", "inf", "1e7", "ten"] {
        let why = s.apply("ppu", bad, cat()).unwrap_err();
        assert!(why.contains("prompts per user"), "{bad}: {why}");
    }
    assert_eq!(s, before);
    s.apply("ppu", "", cat()).unwrap();
    assert_eq!(s.prompts_per_user, None);
}

#[test]
fn the_output_spread_reaches_the_workload_and_the_link_only_when_set() {
    let mut s = Scenario::default();
    assert_eq!(s.workload().output_cv, 0.0);
    assert!(!s.to_query().contains("ocv="));
    s.apply("ocv", "1.25", cat()).unwrap();
    assert_eq!(s.workload().output_cv, 1.25);
    assert!(s.to_query().contains("ocv=1.25"));
}

#[test]
fn garbage_never_panics() {
    for q in [
        "",
        "?",
        "&&&",
        "=",
        "v",
        "%",
        "%%%",
        "chips=",
        "chips=,,,",
        "\u{0}=\u{0}",
    ] {
        let (s, _) = Scenario::from_query(q, cat());
        assert!(!s.chips.is_empty());
    }
}
#[test]
fn a_chip_toggle_goes_through_apply_and_keeps_the_pool_valid() {
    let cat = Catalogue::builtin();
    let mut s = Scenario::default();
    let first = s.chips[0].clone();
    // Unticking keeps the others; ticking appends; both land through `apply`.
    let without = s.chips_toggled(&first, false).unwrap();
    assert!(!without.split(',').any(|c| c == first));
    s.apply("chips", &without, cat).unwrap();
    let with = s.chips_toggled(&first, true).unwrap();
    assert!(with.ends_with(&first));
    // The last chip stays, and the page's limit holds.
    let one = Scenario {
        chips: vec![first.clone()],
        ..Scenario::default()
    };
    assert!(one
        .chips_toggled(&first, false)
        .unwrap_err()
        .contains("at least one"));
    let full = Scenario {
        chips: cat
            .chips
            .iter()
            .take(MAX_CHIP_KINDS)
            .map(|c| c.id.clone())
            .collect(),
        ..Scenario::default()
    };
    let extra = &cat.chips[MAX_CHIP_KINDS].id;
    assert!(full
        .chips_toggled(extra, true)
        .unwrap_err()
        .contains("at most"));
    // A toggle of a chip already in that state changes nothing.
    assert_eq!(
        full.chips_toggled(&full.chips[0], true).unwrap(),
        full.chips.join(",")
    );
}

#[test]
fn a_link_of_a_million_unknown_chips_gives_a_few_notices() {
    let ids: Vec<String> = (0..100_000).map(|i| format!("nochip{i}")).collect();
    let mut s = Scenario::default();
    let before = s.chips.clone();
    let notices = s.apply("chips", &ids.join(","), cat()).unwrap();
    assert_eq!(notices.len(), MAX_NOTICES_PER_FIELD + 2, "{notices:?}");
    assert!(notices.iter().any(|n| n == "and 99995 more ignored chips"));
    assert_eq!(s.chips, before);
}

/// Bounded-time mutation fuzzing of the link parser, seeded with real links: every
/// mutant gives a scenario and at most a page of notices, never a panic, and the
/// scenario it gives is a fixed point of its own link. `DISAGG_FUZZ_INPUTS` runs
/// longer (`cargo test --release -p disagg-explorer --lib fuzz -- --nocapture`).
#[test]
#[allow(clippy::print_stdout)] // the count, for the long run's record
fn fuzz_links() {
    let env = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<u64>().ok());
    let mut state = env("DISAGG_FUZZ_SEED").unwrap_or(0x11c0_ffee).max(1);
    let inputs = env("DISAGG_FUZZ_INPUTS").unwrap_or(2_000) as usize;
    let budget = std::time::Duration::from_secs(if env("DISAGG_FUZZ_INPUTS").is_some() {
        u64::MAX / 4
    } else {
        3
    });
    let mut next = || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    };
    let seeds = [
        Scenario::default().to_query(),
        Scenario {
            target_tok_s_user: Some(37.5),
            ..Scenario::default()
        }
        .to_query(),
        "v=1&model=deepseek-v3&axis=af&chips=h200,b200&budget=4096&isl=1000000&osl=1".into(),
        "model=llama-3.2-1b&isl=1000000&osl=1000000&chips=l40s&budget=1&axis=agg&target=23.17654743841697".into(),
        // Chips of the user's own, a user's chip numbers and an assumption.
        "v=1&chip.mine.from=h200&chip.mine.price=1.5&chip.new.from=template&chip.new.bf16_tflops=900         &chip.new.memory=96&chip.new.memory_bandwidth=4&chip.h100-sxm.tdp=650&a.mfu=0.45         &chips=mine,new,h100-sxm&axis=pd"
            .into(),
    ];
    let pieces = [
        "&",
        "=",
        "%",
        "%FF",
        "%2",
        ",",
        "chips=",
        "isl=",
        "target=",
        "budget=",
        "axis=",
        "model=",
        "1e308",
        "-1",
        "NaN",
        "4294967296",
        "0",
        "\u{0}",
        "é",
        "&v=2",
        "chip.",
        ".from=",
        "template",
        "&chip.x.from=mine",
        "&a.mfu=",
        "cfg=",
        "&draft=eagle:",
        "&re=",
    ];
    let start = std::time::Instant::now();
    let mut tried = 0;
    while tried < inputs && start.elapsed() < budget {
        let mut link: Vec<char> = seeds[next() as usize % seeds.len()].chars().collect();
        for _ in 0..1 + next() % 4 {
            let at = next() as usize % (link.len() + 1);
            match next() % 3 {
                0 if at < link.len() => {
                    link.remove(at);
                }
                1 => {
                    let piece = pieces[next() as usize % pieces.len()];
                    for (k, c) in piece.chars().enumerate() {
                        link.insert(at + k, c);
                    }
                }
                _ => {
                    let end = (at + 1 + next() as usize % 8).min(link.len());
                    let copy: Vec<char> = link[at.min(end)..end].to_vec();
                    for _ in 0..1 + next() % 64 {
                        link.splice(at..at, copy.iter().copied());
                    }
                }
            }
        }
        let link: String = link.into_iter().collect();
        let (s, notices) = Scenario::from_query(&link, cat());
        assert!(notices.len() <= MAX_NOTICES + 1, "{link}");
        let (again, notes) = Scenario::from_query(&s.to_query(), cat());
        assert_eq!(again, s, "{link}");
        assert!(notes.is_empty(), "{link}: {notes:?}");
        tried += 1;
    }
    println!("fuzz links: {tried} inputs");
}

#[test]
fn a_link_of_a_hundred_thousand_fields_gives_a_page_of_notices() {
    let link: Vec<String> = (0..100_000).map(|i| format!("k{i}=v")).collect();
    let (s, notices) = Scenario::from_query(&link.join("&"), cat());
    assert_eq!(s, Scenario::default());
    assert_eq!(notices.len(), MAX_NOTICES + 1);
    assert!(
        notices[MAX_NOTICES].starts_with("and ") && notices[MAX_NOTICES].ends_with(" more notices")
    );
}

#[test]
fn a_fixed_batch_comes_from_the_link_and_a_bad_one_is_refused() {
    let (s, notices) = Scenario::from_query("v=1&batch=32", cat());
    assert!(notices.is_empty(), "{notices:?}");
    assert_eq!(s.batch, Some(32));
    assert!(s.to_query().contains("batch=32"));
    let mut t = s.clone();
    for bad in ["0", "-1", "1.5", "99999999999", "many"] {
        let err = t.apply("batch", bad, cat()).unwrap_err();
        assert!(err.contains("a batch is a whole number"), "{bad}: {err}");
        assert_eq!(t.batch, Some(32));
    }
    t.apply("batch", "", cat()).unwrap();
    assert_eq!(t.batch, None);
    assert!(!t.to_query().contains("batch="));
}

/// A Qwen2.5-72B-shaped config, from the public fields of its `config.json`.
pub(crate) const QWEN25_72B: &str = r#"{"architectures":["Qwen2ForCausalLM"],"model_type":"qwen2",
  "hidden_size":8192,"intermediate_size":29568,"num_hidden_layers":80,
  "num_attention_heads":64,"num_key_value_heads":8,"vocab_size":152064,
  "max_position_embeddings":32768,"tie_word_embeddings":false,"torch_dtype":"bfloat16"}"#;

#[test]
fn a_users_config_travels_in_the_link_and_a_bad_one_is_refused_by_field() {
    let mut s = Scenario::default();
    s.apply("model", "custom", cat()).unwrap();
    s.apply("cfg", QWEN25_72B, cat()).unwrap();
    let q = s.to_query();
    assert!(q.contains("model=custom") && q.contains("&cfg=%7B"), "{q}");
    let (back, notices) = Scenario::from_query(&q, cat());
    assert!(notices.is_empty(), "{notices:?}");
    assert_eq!(back, s);
    // A config without its width: refused, the field named, the scenario kept.
    let bad = QWEN25_72B.replace("\"hidden_size\":8192,", "");
    let why = s.clone().apply("cfg", &bad, cat()).unwrap_err();
    assert!(why.contains("hidden_size"), "{why}");
    let (kept, notices) =
        Scenario::from_query(&format!("v=1&model=custom&cfg={}", encode(&bad)), cat());
    // The refused text is not kept: the model stays the one it started as.
    assert_ne!(kept.custom_config.as_deref(), Some(bad.as_str()));
    assert!(
        notices.iter().any(|n| n.contains("hidden_size")),
        "{notices:?}"
    );
    // A catalogue model does not write the config into its link.
    let other = Scenario {
        model: "llama-3.3-70b".into(),
        ..s
    };
    assert!(!other.to_query().contains("cfg="));
}

#[test]
fn a_users_model_starts_as_the_model_in_hand() {
    let mut s = Scenario::default();
    s.apply("model", "custom", cat()).unwrap();
    let text = s.custom_config.clone().expect("seeded from the preset");
    let own = ModelPreset::from_user_config(&text).unwrap();
    let preset = cat().model(&Scenario::default().model).unwrap();
    assert_eq!(own.ir, preset.ir);
    // Editing a field changes the model.
    let deeper = text.replace("\"num_hidden_layers\": 80", "\"num_hidden_layers\": 40");
    assert_ne!(
        deeper, text,
        "the preset's layer count is written as expected"
    );
    s.apply("cfg", &deeper, cat()).unwrap();
    let edited = ModelPreset::from_user_config(s.custom_config.as_deref().unwrap()).unwrap();
    assert_eq!(edited.ir.num_layers, 40);
}

#[test]
fn assumptions_travel_in_the_link_checked_by_their_ranges() {
    let mut s = Scenario::default();
    s.apply("a.mfu", "0.45", cat()).unwrap();
    assert_eq!(s.assumptions().mfu, 0.45);
    assert!(s.to_query().contains("a.mfu=0.45"));
    let (back, notices) = Scenario::from_query(&s.to_query(), cat());
    assert!(notices.is_empty(), "{notices:?}");
    assert_eq!(back, s);
    for (key, value, needle) in [
        ("a.mfu", "0", "mfu"),
        ("a.mfu", "two", "mfu"),
        ("a.warp", "1", "mfu, bw_eff"),
    ] {
        let why = s.clone().apply(key, value, cat()).unwrap_err();
        assert!(why.contains(needle), "{key}={value}: {why}");
    }
    s.apply("a.mfu", "", cat()).unwrap();
    assert_eq!(s.assumptions(), Assumptions::default());
}

#[test]
fn a_recommend_link_round_trips_with_its_limits_and_demand() {
    use crate::validation_view::{split_query, View};
    // The limits and the rate are the scenario's keys; the view, tokens per day and the
    // chips searched are the recommend view's.
    let link = "v=1&model=llama-3.3-70b&isl=1000&osl=1000&ttft=500&tpot=30&rate=10&view=recommend&rec.tpd=1728000000&rec.chips=b200,h200";
    let (view, rest, notices) = split_query(link, cat());
    assert!(notices.is_empty(), "{notices:?}");
    assert_eq!(view.view, View::Recommend);
    assert_eq!(view.recommend.tokens_per_day, Some(1.728e9));
    assert_eq!(view.recommend.chips, ["b200", "h200"]);
    let (s, notices) = Scenario::from_query(&rest, cat());
    assert!(notices.is_empty(), "{notices:?}");
    assert_eq!(
        (s.ttft_ms, s.tpot_ms, s.rate),
        (Some(500.0), Some(30.0), Some(10.0))
    );
    // Written back and read again: the same scenario and view.
    let again = format!("{}&{}", s.to_query(), view.to_query());
    let (view2, rest2, _) = split_query(&again, cat());
    assert_eq!(view2, view);
    assert_eq!(Scenario::from_query(&rest2, cat()).0, s);
}

#[test]
fn the_electricity_price_moves_the_detail_panels_ownership_figures_only() {
    let mut s = Scenario {
        model: "deepseek-v3".into(),
        axis: disagg_engine::disagg::Axis::Aggregated,
        chips: vec!["h200".into()],
        max_chips: 8,
        isl: 1000,
        osl: 1000,
        ..Scenario::default()
    };
    s.apply("capex", "30000", cat()).unwrap();
    let swept = crate::explore::explore(&s, cat()).unwrap();
    let spec = &swept.cloud[swept.cloud.len() / 2].spec;
    let at = |kwh: &str| {
        let mut t = s.clone();
        t.apply("kwh", kwh, cat()).unwrap();
        crate::explore::detail(&t, spec, cat()).unwrap()
    };
    let (a, b) = (at("0.05"), at("0.5"));
    let (fa, fb) = (&a.point.figures, &b.point.figures);
    assert_eq!(fa.usd_per_mtok_output, fb.usd_per_mtok_output);
    assert_eq!(fa.usd_per_mtok_input, fb.usd_per_mtok_input);
    assert!(
        fb.own_usd_per_mtok_output.unwrap().value() > fa.own_usd_per_mtok_output.unwrap().value()
    );
    // DeepSeek-V3 has an API row: the break-even chain is among the panel's chains.
    assert!(crate::chains::chain_for(&a.chains, "break-even vs API (tokens/month)").is_some());
    for (figure, _) in crate::chains::COST_FIGURE_CHAINS {
        let c = crate::chains::chain_for(&a.chains, figure).unwrap_or_else(|| panic!("{figure}"));
        assert!(c.recompute().is_some(), "{figure}");
    }
}
