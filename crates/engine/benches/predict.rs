//! Cost of one aggregated prediction (the unit a sweep repeats millions of times).
//! Reported per point; compare runs by ratio, not against a fixed time.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use disagg_engine::{
    predict, Batch, Catalogue, DType, Parallelism, Scenario, WeightFormat, Workload,
};

fn bench(c: &mut Criterion) {
    let cat = Catalogue::builtin();
    for (model, chip, par) in [
        (
            "llama-3.3-70b",
            "h100-sxm",
            Parallelism {
                tp: 4,
                pp: 1,
                dp: 2,
                ep: 1,
            },
        ),
        (
            "deepseek-v3",
            "h200",
            Parallelism {
                tp: 8,
                pp: 1,
                dp: 1,
                ep: 8,
            },
        ),
    ] {
        let m = cat.model(model).unwrap();
        let chip = cat.chip(chip).unwrap();
        let scenario = Scenario {
            model: &m.ir,
            chip,
            parallelism: par,
            weights: WeightFormat::new(DType::Fp8),
            kv: DType::Fp8,
            workload: Workload::new(1024, 1024),
            batch: Batch::Fixed(64),
            assumptions: Default::default(),
        };
        c.bench_function(
            &format!("predict_aggregated/{model}/{chip}", chip = chip.id),
            |b| b.iter(|| predict(black_box(&scenario)).unwrap()),
        );
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
