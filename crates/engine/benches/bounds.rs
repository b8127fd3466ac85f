//! Speed of inputs at and past the engine's bounds (`limits`), the cases tests once timed
//! with a wall clock (`model::hf::tests`, `tests/it/sweeps.rs`): the tests now check which
//! path each input takes, and the time they take is measured here. Compare runs by ratio
//! (against an earlier run, or one case against another), never against a fixed time.
//!
//! - `parse_config/...`: `parse_config_str` on a `config.json` text, JSON decoding
//!   included. `refused/num_hidden_layers=4294967295` and `refused/moe_layers=200000` are
//!   refusals (the first once aborted allocating a window per layer, the second took 12 s
//!   searching the list once per layer; decoding its JSON is most of what is left);
//!   `moe_layers=10000` and `decilm=10000` are read
//!   at the bound, reported per layer (criterion's element throughput), so a pass that
//!   stops being linear shows as a falling rate.
//! - `plan/...`: `disagg::plan::plan` with both pools' layouts and the batch open on the
//!   prefill/decode axis of Llama-3.3-70B, 720 + 720 and 5,040 + 5,040 H100 SXM chips
//!   (once 12 s and unending): past `MAX_PLAN_COMBINATIONS` the planner searches the
//!   deployable layouts. The combinations tried are printed first, so time per
//!   combination is their ratio. `refused/bits-per-weight/5040+5040` is a bad setup at the
//!   largest pools, refused before the search: its ratio to `pd/h100-sxm/5040+5040` shows
//!   that no search ran.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use disagg_engine::disagg::plan::{plan, PoolChoice};
use disagg_engine::disagg::{Axis, PoolRole, Setup};
use disagg_engine::model::hf::parse_config_str;
use disagg_engine::{Catalogue, WeightFormat, Workload};

/// A small Llama-shaped config of `layers` layers with `extra` fields added.
fn llama(layers: u64, extra: &str) -> String {
    format!(
        r#"{{"architectures":["LlamaForCausalLM"],"hidden_size":64,"num_attention_heads":4,
        "num_key_value_heads":2,"intermediate_size":128,"vocab_size":100,
        "num_hidden_layers":{layers}{extra}}}"#
    )
}

/// `moe_layers` listing layers `0..n`.
fn moe_layers(n: u32) -> String {
    let list: Vec<String> = (0..n).map(|i| i.to_string()).collect();
    format!(
        r#","num_local_experts":8,"num_experts_per_tok":2,"moe_intermediate_size":32,"moe_layers":[{}]"#,
        list.join(",")
    )
}

/// A DeciLM (Nemotron-NAS) config of `n` blocks, each of its own FFN width, so no two
/// layers group together.
fn decilm(n: u32) -> String {
    let blocks: Vec<String> = (0..n)
        .map(|i| {
            format!(
                r#"{{"attention":{{"n_heads_in_group":2}},"ffn":{{"intermediate_size":{}}}}}"#,
                256 + i
            )
        })
        .collect();
    format!(
        r#"{{"architectures":["DeciLMForCausalLM"],"model_type":"nemotron-nas",
        "hidden_size":1536,"num_hidden_layers":{n},"num_attention_heads":12,
        "num_key_value_heads":null,"intermediate_size":null,"vocab_size":1000,
        "block_configs":[{}]}}"#,
        blocks.join(",")
    )
}

fn parse(c: &mut Criterion) {
    let mut group = c.benchmark_group("parse_config");
    let refused = [
        ("num_hidden_layers=4294967295", llama(4_294_967_295, "")),
        ("moe_layers=200000", llama(2, &moe_layers(200_000))),
    ];
    for (name, json) in &refused {
        assert!(parse_config_str(json).is_err(), "{name}");
        group.bench_function(BenchmarkId::new("refused", name), |b| {
            b.iter(|| parse_config_str(black_box(json)).unwrap_err())
        });
    }
    let read = [
        ("moe_layers=10000", llama(10_000, &moe_layers(10_000))),
        ("decilm=10000", decilm(10_000)),
    ];
    for (name, json) in &read {
        let layers = parse_config_str(json).unwrap().num_layers;
        group.throughput(Throughput::Elements(u64::from(layers)));
        group.bench_function(*name, |b| {
            b.iter(|| parse_config_str(black_box(json)).unwrap())
        });
    }
    group.finish();
}

fn planner(c: &mut Criterion) {
    let cat = Catalogue::builtin();
    let preset = cat.model("llama-3.3-70b").unwrap();
    let chip = cat.chip("h100-sxm").unwrap();
    let setup = Setup::new(
        &preset.ir,
        Workload::new(2000, 200),
        WeightFormat::new(preset.default_weight_dtype),
    );
    let pools = |chips: u32| {
        [PoolRole::Prefill, PoolRole::Decode].map(|role| {
            (
                role,
                PoolChoice {
                    chip,
                    chips,
                    parallelism: None,
                },
            )
        })
    };
    let mut group = c.benchmark_group("plan");
    group.sample_size(10);
    for n in [720, 5040] {
        let (_, point) = plan(&setup, Axis::PrefillDecode, &pools(n), None, 1).unwrap();
        let note = point
            .warnings
            .iter()
            .find(|w| w.contains("combinations"))
            .expect("past the bound the planner says it searched the deployable layouts");
        println!("plan/pd/h100-sxm/{n}+{n}: {note}");
        group.bench_function(format!("pd/h100-sxm/{n}+{n}"), |b| {
            b.iter(|| plan(black_box(&setup), Axis::PrefillDecode, &pools(n), None, 1).unwrap())
        });
    }
    let mut bad = setup;
    bad.weights.bits_override = Some(0.5);
    assert!(plan(&bad, Axis::PrefillDecode, &pools(5040), None, 1).is_err());
    group.bench_function("refused/bits-per-weight/5040+5040", |b| {
        b.iter(|| plan(black_box(&bad), Axis::PrefillDecode, &pools(5040), None, 1).unwrap_err())
    });
    group.finish();
}

criterion_group!(benches, parse, planner);
criterion_main!(benches);
