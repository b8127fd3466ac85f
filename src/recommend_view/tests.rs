use super::*;
use crate::validation_view::{split_query, View, ViewState};

fn cat() -> &'static Catalogue {
    Catalogue::builtin()
}

fn limited() -> Scenario {
    Scenario {
        ttft_ms: Some(500.0),
        tpot_ms: Some(30.0),
        rate: Some(10.0),
        ..Scenario::default()
    }
}

#[test]
fn the_views_keys_are_set_checked_and_written_back() {
    let mut i = RecommendInputs::default();
    assert_eq!(i.to_query(), "");
    i.set(CHIPS_KEY, "h200, h100-sxm,h200", cat()).unwrap();
    assert_eq!(i.chips, ["h200", "h100-sxm"]);
    i.set(TPD_KEY, "1.728e9", cat()).unwrap();
    assert_eq!(i.demand_kind(), "tpd");
    // Users replace tokens per day, and the other way round: one demand at a time.
    i.set(USERS_KEY, "64", cat()).unwrap();
    assert_eq!((i.users, i.tokens_per_day), (Some(64), None));
    assert_eq!(i.to_query(), "rec.users=64&rec.chips=h200,h100-sxm");
    for (key, bad) in [
        (USERS_KEY, "0"),
        (TPD_KEY, "-1"),
        (TPD_KEY, "NaN"),
        (CHIPS_KEY, "h9000"),
    ] {
        let before = i.clone();
        assert!(i.set(key, bad, cat()).is_err(), "{key}={bad}");
        assert_eq!(i, before, "a refused value changes nothing");
    }
    i.set(USERS_KEY, "", cat()).unwrap();
    assert_eq!(i.demand_kind(), "rate");
}

#[test]
fn the_demand_is_users_then_tokens_per_day_then_the_scenarios_rate() {
    let s = limited();
    let mut i = RecommendInputs::default();
    assert_eq!(i.demand(&s), Ok(Demand::Rate(RequestsPerSecond::new(10.0))));
    i.tokens_per_day = Some(1e9);
    assert_eq!(i.demand(&s), Ok(Demand::TokensPerDay(1e9)));
    i.users = Some(8);
    assert_eq!(i.demand(&s), Ok(Demand::Users(8)));
    let none = Scenario {
        rate: None,
        ..limited()
    };
    assert!(RecommendInputs::default().demand(&none).is_err());
    let unlimited = Scenario {
        tpot_ms: None,
        ..limited()
    };
    assert!(slo(&unlimited).unwrap_err().contains("TPOT"));
}

#[test]
fn the_first_row_meets_the_limits_it_was_searched_under() {
    let s = Scenario {
        model: "llama-3.1-8b".into(),
        draft_model: None,
        ..limited()
    };
    let inputs = RecommendInputs {
        chips: vec!["h100-sxm".into(), "l40s".into(), "groq-lpu".into()],
        ..RecommendInputs::default()
    };
    let r = run(&s, &inputs, cat()).unwrap();
    // Before the validation report is in, no band; after, each row's medians.
    let table = rows(&r, None);
    assert!(table
        .iter()
        .all(|x| x.ttft_band == "-" && x.tpot_band == "-"));
    assert!(minimum_bands(&r, None).is_empty());
    let report = disagg_engine::validation::run(
        cat(),
        &disagg_engine::validation::BenchmarkTable::builtin().unwrap(),
        &disagg_engine::Assumptions::default(),
    );
    let table = rows(&r, Some(&report));
    assert_eq!(table.len(), r.ranked.len());
    for (row, e) in table.iter().zip(&r.ranked) {
        let b = e.latency_bands(&report, cat());
        assert_eq!(row.ttft_band, b.ttft.unwrap().median(), "{}", e.label);
        assert_eq!(row.tpot_band, b.tpot.unwrap().median(), "{}", e.label);
    }
    let lines = minimum_bands(&r, Some(&report));
    let b = r.minimum().unwrap().latency_bands(&report, cat());
    assert_eq!(
        lines,
        [
            format!("Error of the TTFT: {}", b.ttft.unwrap().line()),
            format!("Error of the TPOT: {}", b.tpot.unwrap().line())
        ]
    );
    let first = &table[0];
    assert_eq!(first.rank, 1);
    assert!(first.ttft_ms <= 500.0 && first.tpot_ms <= 30.0, "{first:?}");
    assert!(first.usd_per_mtok.starts_with('$'));
    assert!(minimum_line(&r).starts_with("Minimum hardware: "));
    assert!(summary_line(&r).contains("10 requests per second"));
    // Groq's SRAM holds no 8B model within a replica's chips: named with why.
    let rejected = rejected_lines(&r);
    let groq = rejected
        .iter()
        .find(|(name, _, _)| name.contains("Groq"))
        .unwrap();
    assert_eq!(groq.1, "memory");
    // Without limits the page says what is missing instead of searching.
    let open = Scenario {
        ttft_ms: None,
        ..s.clone()
    };
    assert!(run(&open, &inputs, cat()).unwrap_err().contains("TTFT"));
}

#[test]
fn the_view_and_its_inputs_round_trip_through_the_link() {
    let state = ViewState {
        view: View::Recommend,
        recommend: RecommendInputs {
            tokens_per_day: Some(2.5e9),
            users: None,
            chips: vec!["b200".into(), "mi355x".into()],
        },
        ..ViewState::default()
    };
    let q = state.to_query();
    let (back, rest, notices) = split_query(&q, cat());
    assert_eq!(back, state);
    assert!(rest.is_empty() && notices.is_empty(), "{rest} {notices:?}");
    let (_, _, notices) = split_query("view=recommend&rec.users=zero", cat());
    assert!(notices[0].contains("rec.users"), "{notices:?}");
}
