use super::table::{delta, rows, show_delta, Baseline, Figure, Source};
use super::*;
use crate::explore::explore;
use disagg_engine::disagg::Axis;

fn cat() -> &'static Catalogue {
    Catalogue::builtin()
}

fn agg() -> Scenario {
    Scenario {
        axis: Axis::Aggregated,
        chips: vec!["h100-sxm".into(), "h200".into()],
        max_chips: 16,
        ..Scenario::default()
    }
}

fn pair(pins: &[Pin]) -> String {
    link_pair(pins).unwrap()
}

/// The value of the link's `pins` pair as the page's link reads it back.
fn read_back(link: &str) -> (Vec<Pin>, String, Vec<String>) {
    split_query(link, cat())
}

#[test]
fn the_pinned_set_round_trips_through_the_link() {
    let mut custom = Scenario {
        rate: Some(2.5),
        ttft_ms: Some(700.0),
        y_axis: crate::scenario::YAxis::TokSPerUsdHour,
        ..agg()
    };
    custom.apply("chip.h200.price", "3.1", cat()).unwrap();
    let pins = vec![
        Pin::new(Scenario::default()),
        Pin {
            name: "cheap & fast = \"good\" ✓".into(),
            scenario: custom,
        },
        Pin::new(agg()),
    ];
    let link = format!("{}&{}&point=3", Scenario::default().to_query(), pair(&pins));
    let (back, rest, notices) = read_back(&link);
    assert_eq!(notices, Vec::<String>::new());
    assert_eq!(back, pins);
    // The rest of the link is the page's, untouched.
    assert_eq!(rest, format!("{}&point=3", Scenario::default().to_query()));
    // The pairs travel in an alphabet the link keeps as is: no escapes at all.
    let value = pair(&pins);
    assert!(
        value
            .trim_start_matches("pins=")
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.,".contains(&b)),
        "{value}"
    );
    assert_eq!(crate::scenario::encode(&value[5..]), value[5..]);
}

#[test]
fn a_pin_of_a_small_change_is_short() {
    let pin = Pin {
        name: "a".into(),
        scenario: Scenario {
            axis: Axis::Aggregated,
            ..Scenario::default()
        },
    };
    // "axis=agg" alone, in base64url: 11 characters, the name's 2 and a dot.
    assert_eq!(pin.encoded().len(), 2 + 1 + 11, "{}", pin.encoded());
    let default = Pin::new(Scenario::default());
    assert_eq!(
        read_back(&pair(std::slice::from_ref(&default))).0,
        vec![default]
    );
}

#[test]
fn no_pins_write_no_key_and_read_as_none() {
    assert_eq!(link_pair(&[]), None);
    let (pins, rest, notices) = read_back("?v=1&axis=agg");
    assert!(pins.is_empty() && notices.is_empty());
    assert_eq!(rest, "v=1&axis=agg");
}

#[test]
fn automatic_names_say_model_axis_chips_and_workload() {
    assert_eq!(
        auto_name(&Scenario::default()),
        "llama-3.3-70b, prefill/decode, 5 chip kinds, 8192/512"
    );
    let name = auto_name(&agg());
    assert_eq!(name, "llama-3.3-70b, aggregated, h100-sxm + h200, 8192/512");
    assert!(name.chars().count() <= MAX_NAME_CHARS);
    assert_eq!(clean_name(" a\u{0}b\n "), "ab");
    assert_eq!(clean_name(&"x".repeat(500)).chars().count(), MAX_NAME_CHARS);
}

#[test]
fn hostile_pins_are_dropped_by_name_and_never_break_the_link() {
    let good = Pin::new(agg());
    let b64 = |s: &str| URL_SAFE_NO_PAD.encode(s.as_bytes());
    let cases = [
        ("garbage", "not a name and a scenario"),
        ("%%%.***", "not base64url"),
        (&*format!("{}.{}", b64("mine"), "!!"), "\"mine\""),
        (&*format!("{}.{}", b64("gpt"), b64("model=gpt-9")), "gpt-9"),
        (
            &*format!("{}.{}", b64("p"), b64("pins=x")),
            "scenario settings only",
        ),
        (
            &*format!("{}.{}", b64("v"), b64("v=7&isl=9")),
            "scenario settings only",
        ),
        (&*format!("{}.{}", b64("x"), b64("isl=-5")), "isl"),
        (
            &*format!("{}.{}", b64("x"), "A".repeat(MAX_PIN_CHARS)),
            "longer than",
        ),
    ];
    for (bad, needle) in cases {
        let link = format!("v=1&pins={bad},{}", good.encoded());
        let (pins, rest, notices) = read_back(&link);
        assert_eq!(pins, vec![good.clone()], "{bad}");
        assert_eq!(rest, "v=1");
        assert_eq!(notices.len(), 1, "{notices:?}");
        assert!(
            notices[0].starts_with("ignored pin 1") && notices[0].contains(needle),
            "{bad}: {notices:?}"
        );
    }
    // Too many: the first four are read, the rest counted, however many.
    let many = vec![good.encoded(); 100_000].join(",");
    let (pins, _, notices) = read_back(&format!("pins={many}"));
    assert_eq!(pins.len(), MAX_PINS);
    assert_eq!(
        notices,
        vec![format!(
            "ignored {} more pins: at most {MAX_PINS} scenarios are pinned at once",
            100_000 - MAX_PINS
        )]
    );
    // A second key is refused; an empty name falls back to the automatic one.
    let unnamed = format!(".{}", good.encoded().split_once('.').unwrap().1);
    let (pins, _, notices) = read_back(&format!("pins={unnamed}&pins={}", good.encoded()));
    assert_eq!(pins, vec![good.clone()]);
    assert_eq!(notices.len(), 1, "{notices:?}");
}

#[test]
fn pinning_refuses_a_fifth_pin_and_a_pasted_config() {
    let four = vec![Pin::new(agg()); MAX_PINS];
    assert!(can_pin(&four[..3], &agg()).is_ok());
    assert!(can_pin(&four, &agg()).unwrap_err().contains("at most 4"));
    let mut own = Scenario::default();
    own.apply("model", crate::engine::catalogue::USER_MODEL_ID, cat())
        .unwrap();
    let padded = own.custom_config.clone().unwrap().replacen(
        '{',
        &format!("{{\"_comment\": \"{}\",", "x".repeat(MAX_PIN_CHARS)),
        1,
    );
    own.apply("cfg", &padded, cat()).unwrap();
    assert!(can_pin(&[], &own).unwrap_err().contains("too long"));
}

#[test]
fn sweeps_are_asked_for_once_per_pin_and_dropped_with_it() {
    let a = Pin::new(agg());
    let b = Pin::new(Scenario::default());
    // The y axis does not change the sweep.
    let b_usd = Pin {
        scenario: Scenario {
            y_axis: crate::scenario::YAxis::TokSPerUsdHour,
            ..b.scenario.clone()
        },
        ..b.clone()
    };
    let pins = vec![a.clone(), b_usd.clone()];
    let mut sweeps = Sweeps::new();
    assert_eq!(next_sweep(&pins, &sweeps, None), Some(a.swept()));
    // Already running: nothing new to send.
    let running = a.swept().to_query();
    assert_eq!(next_sweep(&pins, &sweeps, Some(&running)), None);
    let done = |s: Scenario| {
        Arc::new(Explored {
            result: Err("x".into()),
            scenario: s,
        })
    };
    sweeps.insert(running.clone(), done(a.swept()));
    assert_eq!(next_sweep(&pins, &sweeps, Some(&running)), Some(b.swept()));
    sweeps.insert(b.swept().to_query(), done(b.swept()));
    assert_eq!(next_sweep(&pins, &sweeps, None), None);
    assert!(sweep_of(&b_usd, &sweeps).is_some());
    keep_pinned(&pins[1..], &mut sweeps);
    assert_eq!(sweeps.len(), 1);
    assert!(sweep_of(&a, &sweeps).is_none());
}

#[test]
fn deltas_are_signed_fractions_of_the_baseline_and_never_nan() {
    assert_eq!(delta(&Ok(150.0), &Ok(100.0)), Ok(0.5));
    assert_eq!(delta(&Ok(75.0), &Ok(100.0)), Ok(-0.25));
    assert!(delta(&Ok(1.0), &Ok(0.0)).unwrap_err().contains("zero"));
    assert!(delta(&Ok(1.0), &Err("x".into()))
        .unwrap_err()
        .contains("baseline has none"));
    assert!(delta(&Err("x".into()), &Ok(1.0)).is_err());
    assert!(delta(&Ok(f64::NAN), &Ok(1.0)).is_err());
    assert_eq!(show_delta(0.5), "+50%");
    assert_eq!(show_delta(-0.25), "-25%");
    assert_eq!(show_delta(0.034), "+3.4%");
    assert_eq!(show_delta(-0.0004), "±0%");
    assert_eq!(show_delta(f64::INFINITY), crate::format::MISSING);
}

#[test]
fn the_table_reads_each_sweep_at_the_baselines_target() {
    let current = Scenario::default();
    let other = agg();
    let swept = |s: &Scenario| Explored {
        result: explore(s, cat()),
        scenario: s.clone(),
    };
    let (ec, eo) = (swept(&current), swept(&other));
    let sources = [
        Source {
            name: "current".into(),
            sweep: Some(&ec),
        },
        Source {
            name: "agg".into(),
            sweep: Some(&eo),
        },
        Source {
            name: "pending".into(),
            sweep: None,
        },
    ];
    let rc = ec.result.as_ref().unwrap();
    let ro = eo.result.as_ref().unwrap();
    let (target, table) = rows(&sources, 0);
    assert_eq!(target, Some(rc.target_tok_s_user));
    assert_eq!(table.len(), 3);
    assert!(table[0].baseline && table[0].cells.iter().all(|c| c.delta == "baseline"));
    // The current row's best tok/s per chip is the callout's own figure.
    let c = &rc.callouts[0];
    let own = [c.heterogeneous_value, c.homogeneous_value]
        .into_iter()
        .flatten()
        .fold(0.0, f64::max);
    assert_eq!(table[0].cells[0].value, crate::format::sig3(own));
    // The other row's delta is its value over the baseline's, by hand.
    let k = |r: &disagg_engine::sweep::SweepResult| {
        table::key_figures(r, rc.target_tok_s_user)
            .get(Figure::TokSPerChip)
            .clone()
            .unwrap()
    };
    assert_eq!(table[1].cells[0].delta, show_delta(k(ro) / k(rc) - 1.0));
    assert!(table[1].cells[0].delta.starts_with(['+', '-', '±']));
    let chips = |r: &disagg_engine::sweep::SweepResult| {
        table::key_figures(r, rc.target_tok_s_user)
            .get(Figure::Chips)
            .clone()
            .unwrap()
    };
    assert_eq!(
        table[1].cells[4].value,
        crate::format::count(chips(ro) as u64)
    );
    assert!(!table[1].cells[4].value.contains('.'));
    assert!(table[1].verdict.contains("tok/s per chip"));
    // The row still sweeping says so, in every cell.
    assert!(table[2].cells.iter().all(|c| c.value == "sweeping…"));
    for row in &table {
        for c in &row.cells {
            for bad in ["NaN", "inf"] {
                assert!(!c.value.contains(bad) && !c.delta.contains(bad), "{c:?}");
            }
        }
    }
    // Against the other baseline, at its target.
    let (target, table) = rows(&sources, 1);
    assert_eq!(target, Some(ro.target_tok_s_user));
    assert!(table[1].baseline && !table[0].baseline);
    assert_eq!(Baseline::default(), Baseline::Current);
    // Nothing swept yet: every row waits, and no target is claimed.
    let waiting = [Source {
        name: "x".into(),
        sweep: None,
    }];
    let (target, table) = rows(&waiting, 0);
    assert_eq!(target, None);
    assert_eq!(table[0].cells[0].value, "sweeping…");
}

#[test]
fn pinned_frontiers_overlay_the_chart_dashed_and_named_in_its_key() {
    use crate::chart::{legend, ChartModel};
    let current = Scenario::default();
    let r = explore(&current, cat()).unwrap();
    let pin = Pin {
        name: "just H100 and H200".into(),
        scenario: agg(),
    };
    let mut sweeps = Sweeps::new();
    sweeps.insert(
        pin.swept().to_query(),
        Arc::new(Explored {
            result: explore(&pin.scenario, cat()),
            scenario: pin.swept(),
        }),
    );
    let lines = overlay::pin_lines(std::slice::from_ref(&pin), &sweeps, current.y_axis);
    assert_eq!(lines.len(), 1);
    let ro = sweeps.values().next().unwrap().result.as_ref().unwrap();
    assert_eq!(lines[0].points.len(), ro.throughput.all.len());
    let model = ChartModel::new(&r, &current, false, cat()).with_pins(lines.clone());
    // The axes cover every point of the pinned frontier.
    for &(x, y) in &lines[0].points {
        assert!(model.x.contains(x) && model.y.contains(y), "{x} {y}");
    }
    let key: Vec<String> = legend::entries(&model)
        .into_iter()
        .map(|e| e.text)
        .collect();
    assert!(
        key.contains(&"pin 1: just H100 and H200".to_string()),
        "{key:?}"
    );
    // Drawn: one more path than without the pin, and its name in the key's text.
    let mut with = crate::chart::recorder::Recorder::of_size(900, 700);
    crate::chart::draw::draw(&mut with, &model, &Default::default()).unwrap();
    let mut without = crate::chart::recorder::Recorder::of_size(900, 700);
    let plain = ChartModel::new(&r, &current, false, cat());
    crate::chart::draw::draw(&mut without, &plain, &Default::default()).unwrap();
    assert!(with.texts.iter().any(|t| t == "pin 1: just H100 and H200"));
    assert!(
        with.paths > without.paths,
        "{} vs {}",
        with.paths,
        without.paths
    );
    let text = crate::chart::describe::describe(&model, &r);
    assert!(
        text.contains("Dashed lines") && text.contains("pin 1: just H100"),
        "{text}"
    );
}
