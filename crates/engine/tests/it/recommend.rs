//! `recommend`: the ranking is sound (no deployment the search evaluated is both within
//! the SLO and cheaper than the first it ranks), replica counts follow their closed
//! form, and the work is bounded before it starts.

use crate::common::*;
use disagg_engine::disagg::open_loop::capacity;
use disagg_engine::recommend::{recommend, usd_per_mtok, Demand, Load, RecommendRequest};
use disagg_engine::sweep::Slo;
use disagg_engine::units::RequestsPerSecond;

fn setup(model: &str, isl: u32, osl: u32) -> Setup<'static> {
    let m = cat().model(model).unwrap();
    Setup::new(
        &m.ir,
        Workload::new(isl, osl),
        WeightFormat::new(m.default_weight_dtype),
    )
}

fn request(
    setup: Setup<'static>,
    chips: &[&str],
    ttft_ms: f64,
    tpot_ms: f64,
    demand: Demand,
) -> RecommendRequest<'static> {
    RecommendRequest {
        setup,
        chips: chips.iter().map(|c| cat().chip(c).unwrap()).collect(),
        axes: Vec::new(),
        slo: Slo {
            ttft: Some(Seconds::from_ms(ttft_ms)),
            tpot: Some(Seconds::from_ms(tpot_ms)),
            rate: None,
            ..Slo::default()
        },
        demand,
        max_chips: 256,
    }
}

/// A small seeded generator (xorshift64*), so the scenarios are random but the same on
/// every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn pick<'a, T>(&mut self, from: &'a [T]) -> &'a T {
        &from[(self.next() % from.len() as u64) as usize]
    }
}

#[test]
fn no_evaluated_deployment_is_within_the_slo_and_cheaper_than_the_first_ranked() {
    let mut rng = Rng(0x5EED_2026);
    let models = ["llama-3.1-8b", "qwen3-32b", "mixtral-8x7b"];
    let chips = ["h100-sxm", "h200", "mi300x", "l40s", "b200", "a100-80g"];
    let mut ranked_some = 0;
    for _ in 0..6 {
        let model = *rng.pick(&models);
        let isl = *rng.pick(&[256u32, 1000, 4000]);
        let osl = *rng.pick(&[128u32, 500, 1000]);
        let ttft = *rng.pick(&[200.0, 500.0, 2000.0]);
        let tpot = *rng.pick(&[15.0, 30.0, 60.0]);
        let demand = match rng.next() % 3 {
            0 => Demand::Rate(RequestsPerSecond::new(*rng.pick(&[0.5, 4.0, 20.0]))),
            1 => Demand::TokensPerDay(*rng.pick(&[1e8, 1e9])),
            _ => Demand::Users(*rng.pick(&[8u32, 100, 1000])),
        };
        let picked: Vec<&str> = (0..2).map(|_| *rng.pick(&chips)).collect();
        let req = request(setup(model, isl, osl), &picked, ttft, tpot, demand);
        let r = recommend(&req).unwrap();
        let case = format!("{model} {isl}/{osl} TTFT {ttft} TPOT {tpot} {demand:?} {picked:?}");
        assert!(!r.tried.is_empty(), "{case}: nothing evaluated");
        // Every evaluation's verdict is its figures against the limits.
        for t in &r.tried {
            let within = t.figures.ttft.ms() <= ttft && t.figures.tpot.ms() <= tpot;
            assert_eq!(t.meets_slo, within, "{case}: {}", t.label);
        }
        let Some(first) = r.ranked.first() else {
            // Nothing ranked: then nothing evaluated with a price is within the SLO.
            assert!(
                r.tried
                    .iter()
                    .all(|t| !t.meets_slo || usd_per_mtok(t).is_none()),
                "{case}"
            );
            continue;
        };
        ranked_some += 1;
        let best = usd_per_mtok(first).unwrap();
        for t in r.tried.iter().filter(|t| t.meets_slo) {
            if let Some(c) = usd_per_mtok(t) {
                assert!(
                    c >= best,
                    "{case}: {} x {} at {c} beats {best}",
                    t.replicas,
                    t.label
                );
            }
        }
        // The minimum hardware has no more chips than anything evaluated within the SLO.
        let fewest = r.minimum().unwrap().total_chips;
        assert!(r
            .tried
            .iter()
            .filter(|t| t.meets_slo)
            .all(|t| t.total_chips >= fewest));
    }
    assert!(ranked_some >= 2, "too few scenarios ranked anything");
}

#[test]
fn replicas_are_the_fewest_that_carry_the_rate_when_latency_is_free() {
    // Limits no deployment comes near: the fewest replicas are ceil(R / X_max), with
    // X_max one replica's most requests per second.
    let rate = 37.0;
    let mut req = request(
        setup("llama-3.1-8b", 1000, 200),
        &["h100-sxm"],
        1e9,
        1e9,
        Demand::Rate(RequestsPerSecond::new(rate)),
    );
    req.axes = vec![Axis::Aggregated];
    let r = recommend(&req).unwrap();
    assert!(!r.ranked.is_empty());
    for e in &r.ranked {
        let d = e.spec.resolve(cat()).unwrap();
        let (x, _) = capacity(&req.setup, &d).unwrap();
        let n = (rate / x.value()).ceil() as u32;
        assert_eq!(e.replicas, n, "{}", e.label);
        assert_eq!(e.total_chips, n * e.chips_per_replica);
        assert_eq!(e.load, Load::Rate(RequestsPerSecond::new(rate / n as f64)));
    }
}

#[test]
fn the_work_is_bounded_before_it_starts() {
    let base = request(
        setup("llama-3.1-8b", 1000, 200),
        &["h100-sxm"],
        500.0,
        30.0,
        Demand::Rate(RequestsPerSecond::new(1.0)),
    );
    // More chip kinds than a recommendation searches.
    let many: Vec<Chip> = (0..=disagg_engine::limits::MAX_RECOMMEND_CHIP_KINDS)
        .map(|i| {
            let mut c = cat().chip("h100-sxm").unwrap().clone();
            c.id = format!("kind-{i}");
            c
        })
        .collect();
    let e = recommend(&RecommendRequest {
        chips: many.iter().collect(),
        ..base.clone()
    })
    .unwrap_err()
    .to_string();
    assert!(e.contains("chip kinds"), "{e}");
    for (bad, word) in [
        (
            RecommendRequest {
                max_chips: 0,
                ..base.clone()
            },
            "chip bound",
        ),
        (
            RecommendRequest {
                chips: Vec::new(),
                ..base.clone()
            },
            "at least one chip",
        ),
        (
            RecommendRequest {
                axes: vec![Axis::AttentionExpert],
                ..base.clone()
            },
            "attention/expert",
        ),
        (
            RecommendRequest {
                demand: Demand::Users(0),
                ..base.clone()
            },
            "users",
        ),
    ] {
        let e = recommend(&bad).unwrap_err().to_string();
        assert!(e.contains(word), "{e}");
    }
}

#[test]
fn ownership_dollars_rank_when_the_cost_settings_choose_them() {
    use disagg_engine::cost::CostBasis;
    let mut s = setup("llama-3.1-8b", 1000, 500);
    s.assumptions.cost.capex_usd_per_chip = Some(30_000.0);
    s.assumptions.cost.basis = CostBasis::Ownership;
    let chips = ["h100-sxm", "l40s", "a100-80g"];
    let demand = Demand::Rate(RequestsPerSecond::new(4.0));
    let owned = recommend(&request(s, &chips, 2000.0, 60.0, demand)).unwrap();
    assert!(!owned.ranked.is_empty());
    // The ranking reads the ownership figure, in ascending order.
    for e in &owned.ranked {
        assert_eq!(
            usd_per_mtok(e),
            e.figures.own_usd_per_mtok_output.map(|v| v.value())
        );
    }
    let costs: Vec<f64> = owned.ranked.iter().filter_map(usd_per_mtok).collect();
    assert!(costs.windows(2).all(|w| w[0] <= w[1]), "{costs:?}");
    // Every chip is owned at the same price, so ownership ranks the chips apart from
    // rental (its hourly prices differ by chip): the two rankings are not the same
    // figures.
    let rented = recommend(&request(
        setup("llama-3.1-8b", 1000, 500),
        &chips,
        2000.0,
        60.0,
        demand,
    ))
    .unwrap();
    assert_ne!(
        rented
            .ranked
            .iter()
            .filter_map(usd_per_mtok)
            .collect::<Vec<_>>(),
        costs
    );
}
