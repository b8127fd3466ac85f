//! Speed of the default heterogeneous sweep: ten chips, all ordered pairs, pool
//! ratios, layouts and batches on the prefill/decode axis. Criterion reports time per
//! sweep; the points per sweep are printed first, so points per second is their ratio.
//! `compare_axes/deepseek-v3` sweeps every axis at one target: its ratio to
//! `sweep/deepseek-v3/pd` is what the page's axes table costs over its own sweep.
//! `largest/deepseek-r1/af` is the largest sweep the page allows.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use disagg_engine::disagg::{Axis, Setup};
use disagg_engine::sweep::{compare_axes, sweep, SweepRequest};
use disagg_engine::{Catalogue, WeightFormat, Workload};

const CHIPS: [&str; 10] = [
    "h100-sxm", "h200", "b200", "gb200", "mi300x", "mi325x", "mi355x", "a100-80g", "l40s", "gaudi3",
];

fn bench(c: &mut Criterion) {
    let cat = Catalogue::builtin();
    for (model, axis) in [
        ("llama-3.3-70b", Axis::PrefillDecode),
        ("deepseek-v3", Axis::PrefillDecode),
        ("qwen3-235b-a22b", Axis::AttentionExpert),
    ] {
        let preset = cat.model(model).unwrap();
        let req = SweepRequest {
            setup: Setup::new(
                &preset.ir,
                Workload::new(8192, 512),
                WeightFormat::new(preset.default_weight_dtype),
            ),
            axis,
            chips: CHIPS.iter().map(|id| cat.chip(id).unwrap()).collect(),
            max_chips: 64,
            target_tok_s_user: None,
            slo: Default::default(),
            batch: None,
        };
        let points = sweep(&req).unwrap().evaluated;
        println!("sweep/{model}/{}: {points} points per sweep", axis.id());
        let mut group = c.benchmark_group("sweep");
        group.sample_size(10);
        group.bench_function(format!("{model}/{}", axis.id()), |b| {
            b.iter(|| sweep(black_box(&req)).unwrap())
        });
        if model == "deepseek-v3" {
            let target = sweep(&req).unwrap().target_tok_s_user;
            group.bench_function(format!("compare_axes/{model}"), |b| {
                b.iter(|| compare_axes(black_box(&req), target).unwrap())
            });
        }
        group.finish();
    }
}

/// The largest sweep the page allows: twelve chip kinds and 4,096 chips on the
/// attention/expert axis of DeepSeek-R1 (about 1.65 million configurations).
fn largest(c: &mut Criterion) {
    let cat = Catalogue::builtin();
    let preset = cat.model("deepseek-r1").unwrap();
    let chips = [
        "h100-sxm", "h200", "b200", "b300", "gb200", "gb300", "mi300x", "mi325x", "mi355x",
        "a100-80g", "gaudi3", "tpu-v6e",
    ];
    let req = SweepRequest {
        setup: Setup::new(
            &preset.ir,
            Workload::new(8192, 1024),
            WeightFormat::new(preset.default_weight_dtype),
        ),
        axis: Axis::AttentionExpert,
        chips: chips.iter().map(|id| cat.chip(id).unwrap()).collect(),
        max_chips: disagg_engine::limits::MAX_SWEEP_CHIPS,
        target_tok_s_user: None,
        slo: Default::default(),
        batch: None,
    };
    let points = sweep(&req).unwrap().evaluated;
    println!("sweep/largest/deepseek-r1/af: {points} points per sweep");
    let mut group = c.benchmark_group("sweep");
    group.sample_size(10);
    group.bench_function("largest/deepseek-r1/af", |b| {
        b.iter(|| sweep(black_box(&req)).unwrap())
    });
    group.finish();
}

criterion_group!(benches, bench, largest);
criterion_main!(benches);
