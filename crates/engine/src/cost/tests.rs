use super::api::{ApiTable, BreakEven, HOURS_PER_MONTH};
use super::*;
use crate::catalogue::Catalogue;
use crate::disagg::{evaluate, explain::explain, Deployment, PoolConfig, Setup};
use crate::dtype::{DType, WeightFormat};
use crate::parallel::Parallelism;
use crate::units::Seconds;
use crate::workload::Workload;

fn chip(id: &str) -> &'static Chip {
    Catalogue::builtin().chip(id).unwrap()
}

#[test]
fn power_is_idle_plus_the_utilised_share_of_the_range_to_tdp() {
    // H100 SXM: 700 W TDP, no catalogued idle power: idle = 0.15 x 700 = 105 W.
    let h100 = chip("h100-sxm");
    assert_eq!(h100.idle_power, None);
    let p = |u| chip_power(h100, u, 0.15).unwrap().0;
    assert!((p(0.0) - 105.0).abs() < 1e-9);
    assert!((p(1.0) - 700.0).abs() < 1e-9);
    assert!((p(0.4) - (105.0 + 0.4 * 595.0)).abs() < 1e-9);
    // A catalogued idle power wins over the share.
    let m2 = chip("m2-ultra");
    let idle = m2.idle_power.unwrap().0;
    assert!((chip_power(m2, 0.0, 0.9).unwrap().0 - idle).abs() < 1e-9);
}

#[test]
fn utilisation_is_the_busy_share_times_the_roofline_share() {
    let t = TimeBreakdown {
        compute: Seconds(2.0),
        weight_memory: Seconds(3.0),
        kv_memory: Seconds(1.0),
        communication: Seconds(1.5),
        overhead: Seconds(0.5),
    };
    // 6 of 8 seconds are compute or memory.
    assert!((utilisation(1.0, &t) - 0.75).abs() < 1e-12);
    assert!((utilisation(0.5, &t) - 0.375).abs() < 1e-12);
    // No time split: the busy share counts whole.
    assert!((utilisation(0.3, &TimeBreakdown::default()) - 0.3).abs() < 1e-12);
    assert_eq!(utilisation(f64::NAN, &t), 0.0);
}

#[test]
fn ownership_per_hour_in_closed_form() {
    let s = CostSettings {
        electricity_usd_kwh: 0.10,
        pue: 1.5,
        years: 4.0,
        duty_cycle: 0.5,
        ..CostSettings::default()
    };
    let power = Power {
        busy: Watts(1000.0),
        idle: Watts(200.0),
    };
    // 35,040 USD over 4 years of 8760 h at half duty: 35,040 / 17,520 = 2 USD/h.
    // Energy: (1000 + 200 x 0.5 / 0.5) W = 1.2 kW x 1.5 x 0.10 = 0.18 USD/h.
    let c = ownership_usd_per_hour(35_040.0, Some(power), &s).unwrap().0;
    assert!((c - 2.18).abs() < 1e-12, "{c}");
    // At full duty the idle hours vanish: 35,040 / 35,040 + 1.0 x 1.5 x 0.10.
    let full = CostSettings {
        duty_cycle: 1.0,
        ..s
    };
    let c = ownership_usd_per_hour(35_040.0, Some(power), &full)
        .unwrap()
        .0;
    assert!((c - 1.15).abs() < 1e-12, "{c}");
    assert_eq!(ownership_usd_per_hour(1.0, None, &s), None);
}

#[test]
fn money_per_mtok_in_closed_form() {
    // 3.6 USD/h over 1000 output tok/s: 1 USD per Mtok; over 3000 input tok/s 1/3;
    // blended over 4000 tok/s 1/4.
    let m = Money::of(
        UsdPerHour(3.6),
        TokensPerSecond(3000.0),
        TokensPerSecond(1000.0),
    );
    assert!((m.per_mtok_output.unwrap().0 - 1.0).abs() < 1e-12);
    assert!((m.per_mtok_input.unwrap().0 - 1.0 / 3.0).abs() < 1e-12);
    assert!((m.per_mtok_blended.unwrap().0 - 0.25).abs() < 1e-12);
}

#[test]
fn settings_out_of_bounds_name_their_flag() {
    for (s, flag) in [
        (
            CostSettings {
                pue: 0.5,
                ..CostSettings::default()
            },
            "--pue",
        ),
        (
            CostSettings {
                electricity_usd_kwh: f64::NAN,
                ..CostSettings::default()
            },
            "--electricity-usd-kwh",
        ),
        (
            CostSettings {
                duty_cycle: 0.0,
                ..CostSettings::default()
            },
            "--duty-cycle",
        ),
        (
            CostSettings {
                years: 100.0,
                ..CostSettings::default()
            },
            "--years",
        ),
        (
            CostSettings {
                capex_usd_per_chip: Some(-1.0),
                ..CostSettings::default()
            },
            "--capex-usd-per-chip",
        ),
    ] {
        let e = s.validate().unwrap_err().to_string();
        assert!(e.contains(flag), "{e}");
    }
    assert!(CostSettings::default().validate().is_ok());
}

fn llama70b_on_h100(cost: CostSettings) -> crate::disagg::DeploymentPoint {
    let model = &Catalogue::builtin().model("llama-3.3-70b").unwrap().ir;
    let mut setup = Setup::new(
        model,
        Workload::new(1000, 1000),
        WeightFormat::new(DType::Fp8),
    );
    setup.assumptions.cost = cost;
    let d = Deployment::Aggregated {
        pool: PoolConfig {
            chip: chip("h100-sxm"),
            parallelism: Parallelism {
                tp: 4,
                pp: 1,
                dp: 1,
                ep: 1,
            },
        },
        batch: 64,
    };
    evaluate(&setup, &d).unwrap()
}

#[test]
fn the_electricity_price_moves_ownership_figures_and_never_rental_ones() {
    let cheap = CostSettings {
        capex_usd_per_chip: Some(25_000.0),
        electricity_usd_kwh: 0.05,
        ..CostSettings::default()
    };
    let dear = CostSettings {
        electricity_usd_kwh: 0.50,
        ..cheap
    };
    let (a, b) = (
        llama70b_on_h100(cheap).figures,
        llama70b_on_h100(dear).figures,
    );
    assert_eq!(a.usd_per_hour, b.usd_per_hour);
    assert_eq!(a.usd_per_mtok_output, b.usd_per_mtok_output);
    assert_eq!(a.usd_per_mtok_input, b.usd_per_mtok_input);
    assert_eq!(a.usd_per_mtok_blended, b.usd_per_mtok_blended);
    assert_eq!(a.watts, b.watts);
    let (oa, ob) = (a.own_usd_per_hour.unwrap().0, b.own_usd_per_hour.unwrap().0);
    // The difference is exactly the power's kWh at PUE times the price difference.
    let kw = a.watts.unwrap().0 / 1e3;
    assert!((ob - oa - kw * 1.58 * 0.45).abs() < 1e-9, "{oa} {ob}");
    assert!(b.own_usd_per_mtok_output.unwrap().0 > a.own_usd_per_mtok_output.unwrap().0);
    assert!(b.own_usd_per_mtok_input.unwrap().0 > a.own_usd_per_mtok_input.unwrap().0);
    // Without a purchase price there are no ownership figures (H100 has none).
    let none = llama70b_on_h100(CostSettings::default()).figures;
    assert_eq!(none.own_usd_per_hour, None);
}

#[test]
fn a_point_s_power_lies_between_idle_and_tdp_and_its_chains_agree() {
    let s = CostSettings {
        capex_usd_per_chip: Some(25_000.0),
        ..CostSettings::default()
    };
    let f = llama70b_on_h100(s).figures;
    let w = f.watts.unwrap().0;
    assert!(w > 4.0 * 105.0 && w < 4.0 * 700.0, "{w}");
    let j = f.joules_per_output_token.unwrap().0;
    assert!((j - w / f.output_tok_s.0).abs() < 1e-9);
    let model = &Catalogue::builtin().model("llama-3.3-70b").unwrap().ir;
    let mut setup = Setup::new(
        model,
        Workload::new(1000, 1000),
        WeightFormat::new(DType::Fp8),
    );
    setup.assumptions.cost = s;
    let d = Deployment::Aggregated {
        pool: PoolConfig {
            chip: chip("h100-sxm"),
            parallelism: Parallelism {
                tp: 4,
                pp: 1,
                dp: 1,
                ep: 1,
            },
        },
        batch: 64,
    };
    let e = explain(&setup, &d).unwrap();
    let find = |q: &str| e.chains.iter().find(|c| c.quantity == q).unwrap();
    for (q, v) in [
        ("energy per output token", j),
        (
            "owning the deployment, per hour in use",
            f.own_usd_per_hour.unwrap().0,
        ),
        (
            "ownership output $/Mtok",
            f.own_usd_per_mtok_output.unwrap().0,
        ),
        (
            "ownership input $/Mtok",
            f.own_usd_per_mtok_input.unwrap().0,
        ),
    ] {
        let c = find(q);
        assert!(
            (c.value - v).abs() <= 1e-9 * v.abs(),
            "{q}: {} vs {v}",
            c.value
        );
        for link in c.walk() {
            let r = link.recompute().unwrap();
            assert!(
                (r - link.value).abs() <= 1e-9 * link.value.abs().max(1.0),
                "{}",
                link.quantity
            );
        }
    }
}

#[test]
fn ranking_by_ownership_reads_the_ownership_figure() {
    let own = CostSettings {
        capex_usd_per_chip: Some(25_000.0),
        basis: CostBasis::Ownership,
        ..CostSettings::default()
    };
    let f = llama70b_on_h100(own).figures;
    assert_eq!(f.ranked_usd_per_mtok_output(), f.own_usd_per_mtok_output);
    // The chart's tok/s per $/hour is the same dollars: 1e6 / 3600 over $/Mtok.
    let per_usd = f.ranked_output_tok_s_per_usd_hour().unwrap();
    let mtok = f.own_usd_per_mtok_output.unwrap().0;
    assert!(
        (per_usd * mtok - 1e6 / 3600.0).abs() < 1e-6,
        "{per_usd} {mtok}"
    );
    let f = llama70b_on_h100(CostSettings::default()).figures;
    assert_eq!(f.ranked_usd_per_mtok_output(), f.usd_per_mtok_output);
}

#[test]
fn the_api_table_loads_and_maps_to_catalogue_models() {
    let t = ApiTable::builtin();
    assert!(t.prices.len() > 2);
    for p in &t.prices {
        assert!(!p.models.is_empty(), "{}", p.api_model);
        for m in &p.models {
            assert!(
                Catalogue::builtin().model(m).is_ok(),
                "{m} is not a catalogue model"
            );
        }
        assert!(p.source.contains("https://"), "{}", p.api_model);
        for v in [p.input_usd_per_mtok, p.output_usd_per_mtok] {
            assert!(v.is_finite() && v > 0.0, "{} {v}", p.api_model);
        }
        // Only verified rows: every one was read on the provider's own page.
        assert_eq!(
            p.grade,
            crate::catalogue::Grade::Verified,
            "{}",
            p.api_model
        );
    }
    let mut pairs: Vec<(String, String)> = t
        .prices
        .iter()
        .map(|p| (p.provider.to_lowercase(), p.api_model.to_lowercase()))
        .collect();
    pairs.sort();
    pairs.dedup();
    assert_eq!(
        pairs.len(),
        t.prices.len(),
        "a (provider, api_model) repeats"
    );
    assert!(t.find("deepseek", "deepseek-v3", 1000.0, 1000.0).is_some());
}

/// A table of `rows` (provider, api_model, model, input, output, date) as the
/// loader reads it.
fn table_json(rows: &[(&str, &str, &str, f64, f64, &str)]) -> String {
    let price: Vec<serde_json::Value> = rows
        .iter()
        .map(|(provider, api_model, model, i, o, read)| {
            serde_json::json!({
                "provider": provider, "api_model": api_model, "models": [model],
                "input_usd_per_mtok": i, "output_usd_per_mtok": o, "read": read,
                "grade": "verified", "source": "s",
            })
        })
        .collect();
    serde_json::json!({ "sources": { "s": "https://example.org" }, "price": price }).to_string()
}

#[test]
fn the_loader_refuses_bad_dates_prices_and_repeated_rows() {
    let ok = ("P", "m", "llama-3.1-8b", 1.0, 2.0, "2026-11-25");
    assert!(ApiTable::from_json(&table_json(&[ok])).is_ok());
    for (bad, what) in [
        (
            ("P", "m", "llama-3.1-8b", 1.0, 2.0, "2026-13-01"),
            "13th month",
        ),
        (
            ("P", "m", "llama-3.1-8b", 1.0, 2.0, "2026-11-32"),
            "32nd day",
        ),
        (
            ("P", "m", "llama-3.1-8b", 1.0, 2.0, "25/11/2026"),
            "not ISO",
        ),
        (
            ("P", "m", "llama-3.1-8b", 1.0, 2.0, "2026-1x-05"),
            "not digits",
        ),
        (
            ("P", "m", "llama-3.1-8b", 0.0, 2.0, "2026-11-25"),
            "zero input",
        ),
        (
            ("P", "m", "llama-3.1-8b", 1.0, -2.0, "2026-11-25"),
            "negative output",
        ),
    ] {
        assert!(ApiTable::from_json(&table_json(&[bad])).is_err(), "{what}");
    }
    // NaN and infinity cannot be written in JSON; the loader's check covers TOML's.
    let twice = ApiTable::from_json(&table_json(&[
        ok,
        ("p", "M", "llama-3.1-8b", 3.0, 4.0, "2026-11-25"),
    ]));
    let e = twice.unwrap_err().to_string();
    assert!(e.contains("twice"), "{e}");
}

#[test]
fn with_no_provider_named_the_cheapest_row_at_the_mix_is_used() {
    // A is cheaper on input, B on output: which wins depends on the mix.
    let t = ApiTable::from_json(&table_json(&[
        ("A", "a", "llama-3.1-8b", 0.10, 1.00, "2026-11-25"),
        ("B", "b", "llama-3.1-8b", 0.50, 0.40, "2026-11-25"),
        ("C", "c", "llama-3.3-70b", 0.01, 0.01, "2026-11-25"),
    ]))
    .unwrap();
    // Prefill-heavy, 9000/1000: A 0.19, B 0.49 per Mtok.
    assert_eq!(
        t.cheapest("llama-3.1-8b", 9000.0, 1000.0).unwrap().provider,
        "A"
    );
    // Decode-heavy, 1000/9000: A 0.91, B 0.41.
    assert_eq!(
        t.cheapest("llama-3.1-8b", 1000.0, 9000.0).unwrap().provider,
        "B"
    );
    assert!(t.cheapest("qwen3-4b", 1.0, 1.0).is_none());
    let f = llama70b_on_h100(CostSettings::default()).figures;
    let a = super::api::against(&t, &f, "llama-3.1-8b", None, 1000.0, 9000.0)
        .unwrap()
        .unwrap();
    assert_eq!(a.api.provider, "B");
    assert_eq!(a.choice, super::api::Choice::Cheapest { of: 2 });
    assert_eq!(a.choice.describe(), "the cheapest of 2 listed");
    // Named, the dearer row is kept, and the choice says so.
    let a = super::api::against(&t, &f, "llama-3.1-8b", Some("a"), 1000.0, 9000.0)
        .unwrap()
        .unwrap();
    assert_eq!(
        (a.api.provider.as_str(), a.choice),
        ("A", super::api::Choice::Named)
    );
    // An unknown provider is refused, naming the ones the model has.
    let e = super::api::against(&t, &f, "llama-3.1-8b", Some("Z"), 1000.0, 9000.0)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("--api Z") && e.contains("A, B") && !e.contains('C'),
        "{e}"
    );
}

#[test]
fn break_even_in_closed_form() {
    let api = super::api::ApiPrice {
        provider: "P".into(),
        api_model: "m".into(),
        models: vec![],
        input_usd_per_mtok: 1.0,
        output_usd_per_mtok: 3.0,
        read: "2026-01-01".into(),
        grade: crate::catalogue::Grade::Verified,
        source: "s".into(),
        note: None,
    };
    // ISL 1000, OSL 1000: 2 USD per Mtok of the mix. 7.30 USD/h is 5329 USD a month,
    // which buys 2664.5 Mtok of the API.
    let b = BreakEven::of(
        UsdPerHour(7.3),
        TokensPerSecond(500.0),
        TokensPerSecond(500.0),
        &api,
        1000.0,
        1000.0,
    )
    .unwrap();
    assert!((b.api_usd_per_mtok - 2.0).abs() < 1e-12);
    assert!((b.usd_per_month - 7.3 * HOURS_PER_MONTH).abs() < 1e-9);
    assert!((b.breakeven_tokens_per_month - 7.3 * 730.0 / 2.0 * 1e6).abs() < 1e-3);
    // 1000 tok/s for 730 h: 2628 Mtok a month, short of 2664.5: two deployments, and
    // one at full load still costs more per token than the API.
    assert!((b.capacity_tokens_per_month - 1000.0 * 3600.0 * 730.0).abs() < 1e-3);
    assert_eq!(b.replicas, 2.0);
    assert!(!b.ever_cheaper());
    for c in b.chains(&api, "rental", 1000.0, 1000.0) {
        for link in c.walk() {
            let r = link.recompute().unwrap();
            assert!(
                (r - link.value).abs() <= 1e-9 * link.value.abs().max(1.0),
                "{}",
                link.quantity
            );
        }
    }
}

#[test]
fn an_open_loop_draws_less_power_and_its_chains_agree_with_its_figures() {
    use crate::disagg::open_loop::at_rate;
    use crate::disagg::open_loop_explain::explain_at_rate;
    use crate::units::RequestsPerSecond;
    let s = CostSettings {
        capex_usd_per_chip: Some(25_000.0),
        ..CostSettings::default()
    };
    let model = &Catalogue::builtin().model("llama-3.3-70b").unwrap().ir;
    let mut setup = Setup::new(
        model,
        Workload::new(1000, 1000),
        WeightFormat::new(DType::Fp8),
    );
    setup.assumptions.cost = s;
    let d = Deployment::Aggregated {
        pool: PoolConfig {
            chip: chip("h100-sxm"),
            parallelism: Parallelism {
                tp: 4,
                pp: 1,
                dp: 1,
                ep: 1,
            },
        },
        batch: 64,
    };
    let rate = RequestsPerSecond::new(0.5);
    let open = at_rate(&setup, &d, rate).unwrap();
    let closed = evaluate(&setup, &d.with_batch(open.figures.batch)).unwrap();
    assert!(open.figures.watts.unwrap().0 < closed.figures.watts.unwrap().0);
    assert!(open.figures.watts.unwrap().0 > 4.0 * 105.0);
    let e = explain_at_rate(&setup, &d, rate).unwrap();
    for (q, v) in [
        (
            "energy per output token",
            open.figures.joules_per_output_token.unwrap().0,
        ),
        (
            "owning the deployment, per hour in use",
            open.figures.own_usd_per_hour.unwrap().0,
        ),
    ] {
        let c = e.chains.iter().find(|c| c.quantity == q).unwrap();
        assert!((c.value - v).abs() <= 1e-9 * v, "{q}: {} vs {v}", c.value);
        // Every link of the chain evaluates to its value from its inputs.
        for link in c.walk() {
            let r = link.recompute().unwrap();
            let tol = 1e-9 * link.value.abs().max(1.0);
            assert!(
                (r - link.value).abs() <= tol,
                "{}: {r} vs {}",
                link.quantity,
                link.value
            );
        }
    }
}

#[test]
fn a_users_purchase_price_and_idle_power_are_chip_edits() {
    use crate::catalogue::ChipField;
    let h100 = chip("h100-sxm")
        .edited(ChipField::PurchasePrice, 25_000.0)
        .unwrap()
        .edited(ChipField::IdlePower, 70.0)
        .unwrap();
    assert_eq!(h100.purchase_price.map(|u| u.0), Some(25_000.0));
    let s = CostSettings::default();
    assert_eq!(s.capex(&h100), Some(25_000.0));
    // The flag, when given, prices every chip alike.
    let flagged = CostSettings {
        capex_usd_per_chip: Some(30_000.0),
        ..s
    };
    assert_eq!(flagged.capex(&h100), Some(30_000.0));
    assert!((chip_power(&h100, 0.0, 0.15).unwrap().0 - 70.0).abs() < 1e-12);
    assert!(h100.edited(ChipField::PurchasePrice, 0.0).is_err());
}
