//! Cost of one aggregated point: the colocated side and its combine (the unit a sweep
//! repeats millions of times), the full evaluation with its report (what the CLI, the
//! planner and validation call), and the explained point with its chains and operator
//! tables (what the detail panel and `--explain` call); and the whole validation table
//! (what `disagg validate`, every `predict`'s error bands and the page's validation job
//! run). Reported per point or per table; compare runs by ratio, not against a fixed
//! time.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use disagg_engine::disagg::explain::explain;
use disagg_engine::disagg::{aggregated, evaluate, Deployment, PoolConfig, Setup};
use disagg_engine::validation::{run, BenchmarkTable};
use disagg_engine::{Assumptions, Catalogue, DType, Parallelism, WeightFormat, Workload};

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
        let setup = Setup {
            kv: DType::Fp8,
            ..Setup::new(
                &m.ir,
                Workload::new(1024, 1024),
                WeightFormat::new(DType::Fp8),
            )
        };
        let pool = PoolConfig {
            chip,
            parallelism: par,
        };
        c.bench_function(
            &format!("predict_aggregated/{model}/{chip}", chip = chip.id),
            |b| {
                b.iter(|| {
                    let s = aggregated::side(black_box(&setup), pool, 64).unwrap();
                    aggregated::combine(&setup, pool, 64, &s)
                })
            },
        );
        let deployment = Deployment::Aggregated { pool, batch: 64 };
        c.bench_function(
            &format!("evaluate_aggregated/{model}/{chip}", chip = chip.id),
            |b| b.iter(|| evaluate(black_box(&setup), &deployment).unwrap()),
        );
        c.bench_function(
            &format!("explain_aggregated/{model}/{chip}", chip = chip.id),
            |b| b.iter(|| explain(black_box(&setup), &deployment).unwrap()),
        );
    }
    let table = BenchmarkTable::builtin().unwrap();
    c.bench_function(
        &format!("validation_table/{}_rows", table.point.len()),
        |b| b.iter(|| run(cat, black_box(&table), &Assumptions::default())),
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
