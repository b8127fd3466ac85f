//! Speed of a recommendation: the case (Llama-3.3-70B, 1000/1000 tokens, TTFT
//! 500 ms, TPOT 30 ms, 10 requests per second) over the whole catalogue, every axis that
//! applies. The layouts tried and replica counts evaluated are printed first, so time per
//! evaluation is their ratio; `one-chip` is the same search on H100 SXM alone.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use disagg_engine::disagg::Setup;
use disagg_engine::limits::DEFAULT_RECOMMEND_CHIPS;
use disagg_engine::recommend::{recommend, Demand, RecommendRequest};
use disagg_engine::sweep::Slo;
use disagg_engine::units::{RequestsPerSecond, Seconds};
use disagg_engine::{Catalogue, WeightFormat, Workload};

fn bench(c: &mut Criterion) {
    let cat = Catalogue::builtin();
    let preset = cat.model("llama-3.3-70b").unwrap();
    let all = RecommendRequest {
        setup: Setup::new(
            &preset.ir,
            Workload::new(1000, 1000),
            WeightFormat::new(preset.default_weight_dtype),
        ),
        chips: cat.chips.iter().collect(),
        axes: Vec::new(),
        slo: Slo {
            ttft: Some(Seconds::from_ms(500.0)),
            tpot: Some(Seconds::from_ms(30.0)),
            rate: None,
            ..Slo::default()
        },
        demand: Demand::Rate(RequestsPerSecond::new(10.0)),
        max_chips: DEFAULT_RECOMMEND_CHIPS,
    };
    let one = RecommendRequest {
        chips: vec![cat.chip("h100-sxm").unwrap()],
        ..all.clone()
    };
    let mut group = c.benchmark_group("recommend");
    group.sample_size(10);
    for (name, req) in [("catalogue", &all), ("one-chip", &one)] {
        let r = recommend(req).unwrap();
        println!(
            "recommend/llama-3.3-70b/{name}: {} chips, {} layouts, {} replica counts evaluated",
            req.chips.len(),
            r.candidates,
            r.evaluations
        );
        group.bench_function(format!("llama-3.3-70b/{name}"), |b| {
            b.iter(|| recommend(black_box(req)).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
