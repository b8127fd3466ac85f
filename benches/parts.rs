//! What a sweep's cloud costs to write in the worker and to read on the page, per
//! point: the packed parts the worker sends ([`Packed`]) against the JSON of the
//! points it sent before, for the largest sweep the page allows (DeepSeek-R1,
//! attention/expert, twelve chip kinds, 4,096 chips). Criterion reports the time for
//! the whole cloud in parts of [`POINTS_PER_PART`]; the points are printed first, so
//! the time per point is their ratio. In the browser (wasm built for size) each costs
//! several times what it costs here.

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use criterion::{black_box, criterion_group, Criterion};
    use disagg_engine::disagg::Axis;
    use disagg_engine::sweep::SweepPoint;
    use disagg_engine::Catalogue;
    use disagg_explorer::explore::explore;
    use disagg_explorer::jobs::POINTS_PER_PART;
    use disagg_explorer::pack::Packed;
    use disagg_explorer::scenario::Scenario;

    fn bench(c: &mut Criterion) {
        let s = Scenario {
            model: "deepseek-r1".into(),
            axis: Axis::AttentionExpert,
            max_chips: disagg_engine::limits::MAX_SWEEP_CHIPS,
            chips: [
                "h100-sxm", "h200", "b200", "mi300x", "mi355x", "b300", "gb200", "gb300", "mi325x",
                "a100-80g", "gaudi3", "tpu-v6e",
            ]
            .map(String::from)
            .to_vec(),
            ..Scenario::default()
        };
        let cloud = explore(&s, Catalogue::builtin()).unwrap().cloud;
        let json = |points: &[SweepPoint]| serde_json::to_string(points).unwrap();
        let packed = |points: &[SweepPoint]| serde_json::to_string(&Packed::new(points)).unwrap();
        let size = |write: &dyn Fn(&[SweepPoint]) -> String| -> usize {
            cloud.chunks(POINTS_PER_PART).map(|p| write(p).len()).sum()
        };
        println!(
            "parts/largest: {} points; {} bytes as JSON, {} packed",
            cloud.len(),
            size(&json),
            size(&packed)
        );
        let as_json: Vec<String> = cloud.chunks(POINTS_PER_PART).map(json).collect();
        let as_packed: Vec<String> = cloud.chunks(POINTS_PER_PART).map(packed).collect();
        let mut group = c.benchmark_group("parts");
        group.sample_size(20);
        group.bench_function("largest/json/write", |b| {
            b.iter(|| cloud.chunks(POINTS_PER_PART).map(json).collect::<Vec<_>>())
        });
        group.bench_function("largest/packed/write", |b| {
            b.iter(|| {
                cloud
                    .chunks(POINTS_PER_PART)
                    .map(packed)
                    .collect::<Vec<_>>()
            })
        });
        group.bench_function("largest/json/read", |b| {
            b.iter(|| {
                as_json
                    .iter()
                    .map(|t| serde_json::from_str::<Vec<SweepPoint>>(black_box(t)).unwrap())
                    .collect::<Vec<_>>()
            })
        });
        group.bench_function("largest/packed/read", |b| {
            b.iter(|| {
                as_packed
                    .iter()
                    .map(|t| {
                        serde_json::from_str::<Packed>(black_box(t))
                            .unwrap()
                            .points()
                            .unwrap()
                    })
                    .collect::<Vec<_>>()
            })
        });
        group.finish();
    }

    criterion_group!(benches, bench);
}

#[cfg(not(target_arch = "wasm32"))]
criterion::criterion_main!(native::benches);

/// Nothing to measure in a wasm build of the benches.
#[cfg(target_arch = "wasm32")]
fn main() {}
