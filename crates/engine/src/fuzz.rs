//! Bounded-time mutation fuzzing of the engine's input surfaces: model configs (seeded
//! with every catalogue model's config), assumptions files, and the entry points with
//! extreme values. Each input must give a value or an error, never a panic, and every
//! number returned must be finite.
//!
//! `cargo test` runs a few seconds of it. A longer run, with any seed:
//!
//!     DISAGG_FUZZ_INPUTS=1000000 DISAGG_FUZZ_SEED=7 \
//!         cargo test --release -p disagg-engine --lib fuzz -- --nocapture
//!
//! prints the inputs tried per surface; `audit/AUDIT.md` records the last long run.

use crate::assumptions::Assumptions;
use crate::catalogue::Catalogue;
use crate::disagg::plan::{plan, PoolChoice};
use crate::disagg::{evaluate, Axis, Deployment, DeploymentPoint, PoolConfig, PoolRole, Setup};
use crate::dtype::{DType, WeightFormat};
use crate::model::hf::parse_config;
use crate::model::ModelIr;
use crate::parallel::Parallelism;
use crate::workload::Workload;
use serde_json::{Map, Value};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

/// A small deterministic generator (xorshift64*), so a failing seed replays.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Numbers that break naive arithmetic: zeros, signs, integer edges, float edges.
const EXTREMES: [f64; 16] = [
    0.0,
    1.0,
    -1.0,
    0.5,
    3.0,
    255.0,
    65_536.0,
    4_294_967_295.0,
    4_294_967_296.0,
    16_777_217.0,
    1e9,
    1e18,
    1e308,
    -1e308,
    5e-324,
    1e-9,
];

fn settings() -> (u64, usize, Duration) {
    let env = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<u64>().ok());
    let seed = env("DISAGG_FUZZ_SEED")
        .unwrap_or(0x5eed_1234_abcd_0001)
        .max(1);
    match env("DISAGG_FUZZ_INPUTS") {
        // A long run: the inputs asked for, whatever the time.
        Some(n) => (seed, n as usize, Duration::from_secs(u64::MAX / 4)),
        // In `cargo test`: a few seconds per surface at most.
        None => (seed, 3_000, Duration::from_secs(3)),
    }
}

/// Runs `one` on generated inputs until the count or the time runs out; returns the
/// inputs tried. A panic names the surface and the input's number (replay with the seed).
/// The count is printed for the long run's record (tests may print; the engine does not).
#[allow(clippy::print_stdout)]
fn run(surface: &str, mut one: impl FnMut(&mut Rng)) -> usize {
    let (seed, inputs, budget) = settings();
    let mut rng = Rng(seed ^ surface.len() as u64);
    let start = Instant::now();
    let mut slowest = Duration::ZERO;
    let mut tried = 0;
    while tried < inputs && start.elapsed() < budget {
        let t = Instant::now();
        let outcome = catch_unwind(AssertUnwindSafe(|| one(&mut rng)));
        assert!(
            outcome.is_ok(),
            "{surface}: input {tried} (seed {seed}) panicked"
        );
        slowest = slowest.max(t.elapsed());
        tried += 1;
    }
    println!("fuzz {surface}: {tried} inputs, slowest {slowest:?}");
    assert!(tried > 0);
    tried
}

/// Every number a point reports is finite.
fn check_finite(p: &DeploymentPoint) {
    let f = &p.figures;
    assert!(f.is_finite(), "{f:?}");
    let optional = [
        f.usd_per_mtok_output.map(|v| v.value()),
        f.usd_per_mtok_input.map(|v| v.value()),
        f.joules_per_output_token.map(|v| v.value()),
        f.watts.map(|v| v.value()),
    ];
    for v in optional.into_iter().flatten() {
        assert!(v.is_finite(), "{f:?}");
    }
    for pool in &p.pools {
        assert!(
            pool.step.is_finite() && pool.memory.total.is_finite(),
            "{pool:?}"
        );
    }
}

/// A random edit somewhere in `v`: a number made extreme, a field removed or retyped,
/// a list grown.
fn mutate(v: &mut Value, rng: &mut Rng) {
    match v {
        Value::Object(map) if !map.is_empty() => {
            let keys: Vec<String> = map.keys().cloned().collect();
            let key = rng.pick(&keys).clone();
            match rng.below(8) {
                0 => {
                    map.remove(&key);
                }
                1 => {
                    map.insert(key, Value::Null);
                }
                2 => {
                    map.insert(key, Value::String("x".into()));
                }
                _ => {
                    if let Some(child) = map.get_mut(&key) {
                        mutate(child, rng);
                    }
                }
            }
        }
        Value::Array(items) if !items.is_empty() => {
            let i = rng.below(items.len());
            match rng.below(4) {
                0 => {
                    let copy = items[i].clone();
                    let times = *rng.pick(&[1usize, 10, 1000]);
                    items.extend(std::iter::repeat_n(copy, times));
                }
                1 => {
                    items.remove(i);
                }
                _ => mutate(&mut items[i], rng),
            }
        }
        Value::Number(_) | Value::Bool(_) | Value::Null | Value::String(_) => {
            *v = match serde_json::Number::from_f64(*rng.pick(&EXTREMES)) {
                Some(n) if rng.below(4) > 0 => Value::Number(n),
                _ => Value::Bool(rng.below(2) == 0),
            };
        }
        _ => {}
    }
}

fn small_setup(model: &ModelIr) -> Setup<'_> {
    Setup::new(model, Workload::new(256, 32), WeightFormat::new(DType::Fp8))
}

fn evaluate_small(setup: &Setup, chip: &str, chips: u32) {
    let cat = Catalogue::builtin();
    let Ok(chip) = cat.chip(chip) else {
        return;
    };
    let pools = [(
        PoolRole::Colocated,
        PoolChoice {
            chip,
            chips,
            parallelism: None,
        },
    )];
    if let Ok((_, p)) = plan(setup, Axis::Aggregated, &pools, Some(4), 1) {
        check_finite(&p);
    }
}

#[test]
fn fuzz_model_configs() {
    let seeds: Vec<Value> = crate::catalogue::model_configs()
        .filter_map(|text| serde_json::from_str::<Value>(text).ok())
        .filter_map(|file| file.get("config").cloned())
        .collect();
    assert!(seeds.len() >= 10, "{} seeds", seeds.len());
    run("config.json", |rng| {
        let mut config = rng.pick(&seeds).clone();
        for _ in 0..1 + rng.below(3) {
            mutate(&mut config, rng);
        }
        if let Ok(ir) = parse_config(&config) {
            let p = ir.params();
            assert!(p.total.is_finite() && p.active.is_finite(), "{p:?}");
            evaluate_small(&small_setup(&ir), "h100-sxm", 8);
        }
    });
}

#[test]
fn fuzz_assumptions_files() {
    let defaults = serde_json::to_value(Assumptions::default()).unwrap_or_default();
    let keys: Vec<String> = defaults
        .as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default();
    let model = &Catalogue::builtin().model("llama-3.1-8b").unwrap().ir;
    run("assumptions", |rng| {
        let mut file = Map::new();
        for _ in 0..1 + rng.below(4) {
            let key = rng.pick(&keys).clone();
            let value = match rng.below(6) {
                0 => Value::Bool(rng.below(2) == 0),
                1 => Value::String("0.5".into()),
                _ => serde_json::Number::from_f64(*rng.pick(&EXTREMES))
                    .map_or(Value::Null, Value::Number),
            };
            file.insert(key, value);
        }
        let Ok(a) = serde_json::from_value::<Assumptions>(Value::Object(file)) else {
            return;
        };
        let setup = Setup {
            assumptions: a,
            ..small_setup(model)
        };
        evaluate_small(&setup, "h100-sxm", 1);
    });
}

#[test]
fn fuzz_entry_points_with_extreme_values() {
    let cat = Catalogue::builtin();
    let models = [
        "llama-3.1-8b",
        "deepseek-v3",
        "qwen3-30b-a3b",
        "gemma-3-27b",
    ];
    let chips: Vec<&str> = cat.chips.iter().map(|c| c.id.as_str()).collect();
    let ints = [
        0u32,
        1,
        2,
        3,
        8,
        64,
        1000,
        65_536,
        1_000_000,
        1_000_001,
        u32::MAX,
    ];
    let dtypes = [
        DType::Bf16,
        DType::Fp8,
        DType::Fp4,
        DType::Int4,
        DType::Mxfp4,
        DType::Nvfp4,
        // A weight format only: as a KV dtype it must be refused, never evaluated.
        DType::Fp8Block,
    ];
    let components = [
        None,
        Some(DType::Bf16),
        Some(DType::Mxfp4),
        Some(DType::Fp8),
        Some(DType::Fp8Block),
    ];
    run("entry points", |rng| {
        let id = *rng.pick(&models);
        let model = &cat.model(id).unwrap().ir;
        let workload = Workload {
            isl: *rng.pick(&ints),
            osl: *rng.pick(&ints),
            cached: *rng.pick(&ints),
            output_cv: *rng.pick(&[0.0, 1.0, 10.0, 11.0, f64::NAN, f64::INFINITY, -1.0]),
            rate: *rng.pick(&[None, Some(1.0), Some(0.0), Some(f64::NAN), Some(1e9)]),
            prompts: *rng.pick(&[None, Some(0), Some(1), Some(640), Some(u32::MAX)]),
            prompts_per_user: *rng.pick(&[
                None,
                Some(10.0),
                Some(0.5),
                Some(f64::NAN),
                Some(f64::INFINITY),
                Some(1e300),
            ]),
            finite_run: None,
        };
        let setup = Setup {
            kv: *rng.pick(&dtypes),
            expert_dtype: *rng.pick(&components),
            attn_out_dtype: *rng.pick(&components),
            lm_head_dtype: *rng.pick(&components),
            ..Setup::new(model, workload, WeightFormat::new(*rng.pick(&dtypes)))
        };
        let id = *rng.pick(&chips);
        let chip = cat.chip(id).unwrap();
        let small = [1u32, 2, 4, 8, 0, 3, 65_536];
        let parallelism = Parallelism {
            tp: *rng.pick(&small),
            pp: *rng.pick(&small),
            dp: *rng.pick(&small),
            ep: *rng.pick(&small),
        };
        let pool = PoolConfig { chip, parallelism };
        let batch = *rng.pick(&ints);
        let deployment = match rng.below(3) {
            0 => Deployment::Aggregated { pool, batch },
            1 => Deployment::PrefillDecode {
                prefill: pool,
                decode: pool,
                batch,
            },
            _ => Deployment::Speculative {
                target: pool,
                draft: None,
                batch,
            },
        };
        if let Ok(p) = evaluate(&setup, &deployment) {
            check_finite(&p);
        }
    });
}
