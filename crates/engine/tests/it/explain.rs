//! Explain chains and operator tables: every chain's value is recomputed from its
//! inputs by its formula, the top chains are the evaluated figures, and every
//! operator table adds up to its step, on every axis.

use crate::common::*;
use disagg_engine::disagg::explain::{explain, Explained};
use disagg_engine::disagg::Draft;
use disagg_engine::explain::{Chain, Source};
use disagg_engine::sweep::{sweep, SweepRequest};

fn setup(model: &str, isl: u32, osl: u32) -> Setup<'static> {
    let preset = cat().model(model).unwrap();
    Setup::new(
        &preset.ir,
        Workload::new(isl, osl),
        WeightFormat::new(preset.default_weight_dtype),
    )
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()) + 1e-15
}

fn chain<'a>(e: &'a Explained, quantity: &str) -> Option<&'a Chain> {
    e.chains.iter().find(|c| c.quantity.starts_with(quantity))
}

/// Every check this file makes of one explained deployment.
fn check(e: &Explained, what: &str) {
    for top in &e.chains {
        for c in top.walk() {
            let again = c.recompute();
            assert!(
                again.is_some_and(|v| close(v, c.value)),
                "{what}: {} = {} gives {again:?}, the chain says {}\n{}",
                c.symbol,
                c.formula,
                c.value,
                top.render()
            );
            assert!(c.value.is_finite(), "{what}: {}", c.symbol);
            // Every assumption an input names is a knob, so its default is a number.
            for i in &c.inputs {
                if let Source::Assumption { name, default } = &i.source {
                    assert!(default.is_finite(), "{what}: assumption {name} is no knob");
                }
            }
            // The formula reads exactly the inputs the chain lists.
            let mut used: Vec<&str> = c.formula.symbols();
            let mut listed: Vec<&str> = c.inputs.iter().map(|i| i.name.as_str()).collect();
            used.sort_unstable();
            listed.sort_unstable();
            listed.dedup();
            assert_eq!(used, listed, "{what}: {}", c.symbol);
        }
    }
    let f = &e.point.figures;
    let expect = |quantity: &str, value: Option<f64>| match (chain(e, quantity), value) {
        (Some(c), Some(v)) => assert!(close(c.value, v), "{what}: {quantity} {} vs {v}", c.value),
        (None, None) => {}
        (c, v) => panic!(
            "{what}: {quantity}: chain {:?} figure {v:?}",
            c.map(|c| c.value)
        ),
    };
    expect("TTFT", Some(f.ttft.value()));
    expect("TPOT", Some(f.tpot.value()));
    expect("tok/s per user", Some(f.tok_s_user.value()));
    expect(
        "output tok/s per chip",
        Some(f.output_tok_s_per_chip.value()),
    );
    expect("input tok/s per chip", Some(f.input_tok_s_per_chip.value()));
    expect("output $/Mtok", f.usd_per_mtok_output.map(|v| v.value()));
    expect("input $/Mtok", f.usd_per_mtok_input.map(|v| v.value()));
    expect(
        "energy per output token",
        f.joules_per_output_token.map(|v| v.value()),
    );
    let fullest = e
        .point
        .pools
        .iter()
        .map(|p| p.memory.total.value())
        .fold(0.0, f64::max);
    expect("memory per chip", Some(fullest));
    let max_batch = chain(e, "max batch").map(|c| c.value);
    assert!(
        max_batch.is_none_or(|v| v == e.point.max_batch() as f64),
        "{what}"
    );
    assert!(
        e.point.pools.iter().any(|p| !p.operators.is_empty()),
        "{what}"
    );
    for pool in &e.point.pools {
        let role = pool.role;
        for t in &pool.operators {
            let sum: f64 = t.rows.iter().map(|r| r.time.value()).sum();
            assert!(
                close(sum, t.step.value()),
                "{what}: {role:?} {}: {sum} vs {}",
                t.phase,
                t.step.value()
            );
            assert!(t
                .rows
                .iter()
                .all(|r| r.time.value() >= 0.0 && r.share.is_finite()));
        }
    }
}

#[test]
fn every_chain_recomputes_and_every_table_adds_up_on_every_axis() {
    let mut dense = setup("llama-3.3-70b", 4096, 512);
    dense.speculation.draft = Draft::Model {
        id: "llama-3.2-1b",
        ir: &cat().model("llama-3.2-1b").unwrap().ir,
    };
    let mut spec_decode = dense;
    spec_decode.speculative_decode = true;
    let mtp = setup("deepseek-v3", 2048, 256);
    let mut eagle = setup("llama-3.3-70b", 4096, 512);
    eagle.speculation.draft = Draft::Eagle { layers: 1 };
    let mut eagle_decode = eagle;
    eagle_decode.speculative_decode = true;
    let moe = setup("qwen3-30b-a3b", 2048, 256);
    // A framework whose host costs differ from the global assumptions': each chain must
    // name the costs the pool paid.
    let mut sglang = moe;
    sglang.assumptions.framework =
        disagg_engine::serving::FrameworkChoice::Given(disagg_engine::serving::Framework::Sglang);
    // Static batches: every prompt prefilled first, generation uninterrupted.
    let mut static_dense = dense;
    static_dense.assumptions.scheduling = disagg_engine::serving::Scheduling::Static;
    let mut static_moe = moe;
    static_moe.assumptions.scheduling = disagg_engine::serving::Scheduling::Static;
    // A benchmark of a fixed number of prompts: its first wave's TTFT is mixed in.
    let mut wave_dense = dense;
    wave_dense.workload.prompts = Some(80);
    let mut wave_moe = moe;
    wave_moe.workload.prompts = Some(80);
    // A scheduler that polls for new requests every 30 decode steps (SGLang's
    // --scheduler-recv-interval), with and without a first wave.
    let mut polled = dense;
    polled.assumptions.scheduler_recv_interval = 30;
    let mut polled_wave = wave_moe;
    polled_wave.assumptions.scheduler_recv_interval = 30;
    // A finite run read to its last request's end (MLPerf Offline): its rates opened
    // through the drain.
    let mut finite = dense;
    finite.workload.finite_run = Some(disagg_engine::FiniteRun {
        requests: 24_576,
        longest_output: 2048,
    });
    let mut finite_moe = moe;
    finite_moe.workload.finite_run = finite.workload.finite_run;
    let mut checked = 0;
    for (s, axis) in [
        (finite, Axis::Aggregated),
        (finite_moe, Axis::Aggregated),
        (wave_dense, Axis::Aggregated),
        (wave_dense, Axis::Speculative),
        (wave_dense, Axis::PrefillDecode),
        (wave_moe, Axis::AttentionExpert),
        (polled, Axis::Aggregated),
        (polled, Axis::Speculative),
        (polled_wave, Axis::AttentionExpert),
        (polled_wave, Axis::Aggregated),
        (static_dense, Axis::Aggregated),
        (static_dense, Axis::Speculative),
        (static_moe, Axis::AttentionExpert),
        (dense, Axis::Aggregated),
        (dense, Axis::PrefillDecode),
        (spec_decode, Axis::PrefillDecode),
        (dense, Axis::Speculative),
        (mtp, Axis::Speculative),
        (eagle, Axis::Speculative),
        (eagle_decode, Axis::PrefillDecode),
        (moe, Axis::AttentionExpert),
        (mtp, Axis::AttentionExpert),
        (sglang, Axis::AttentionExpert),
        (sglang, Axis::Aggregated),
    ] {
        let r = sweep(&SweepRequest {
            setup: s,
            axis,
            chips: ["h100-sxm", "mi300x", "b200"]
                .map(|c| cat().chip(c).unwrap())
                .to_vec(),
            max_chips: 32,
            target_tok_s_user: None,
            slo: Default::default(),
            batch: None,
        })
        .unwrap();
        assert!(!r.cloud.is_empty(), "{axis:?}");
        // A spread of the cloud: every n-th point, about 25 per axis.
        let step = (r.cloud.len() / 25).max(1);
        for p in r.cloud.iter().step_by(step) {
            let d = p.spec.resolve(cat()).unwrap();
            let e = explain(&s, &d).unwrap();
            assert_eq!(e.point.figures, p.figures, "{}", p.label);
            check(&e, &p.label);
            checked += 1;
        }
    }
    eprintln!("explained {checked} points, every chain recomputed");
    assert!(checked > 100, "{checked}");
}

#[test]
fn a_queue_adds_its_wait_to_ttft() {
    let mut s = setup("llama-3.1-8b", 1000, 1000);
    s.assumptions = s.assumptions.pin("max_seqs_per_replica", 256.0);
    let d = Deployment::Aggregated {
        pool: PoolConfig {
            chip: cat().chip("h100-sxm").unwrap(),
            parallelism: Parallelism::single(),
        },
        batch: 600,
    };
    let e = explain(&s, &d).unwrap();
    check(&e, "600 requests on one H100");
    let ttft = chain(&e, "TTFT").unwrap();
    assert_eq!(ttft.formula.to_string(), "TTFT_engine + W_q");
    let wait = ttft.inputs.iter().find(|i| i.name == "W_q").unwrap();
    assert!(wait.value > 0.0);
}

#[test]
fn chains_name_catalogue_sources_and_sections_of_the_model_document() {
    let model_md = include_str!("../../../../audit/MODEL.md");
    let s = setup("llama-3.3-70b", 8192, 512);
    let h200 = cat().chip("h200").unwrap();
    let d = Deployment::PrefillDecode {
        prefill: PoolConfig {
            chip: h200,
            parallelism: Parallelism {
                tp: 4,
                pp: 1,
                dp: 1,
                ep: 1,
            },
        },
        decode: PoolConfig {
            chip: h200,
            parallelism: Parallelism {
                tp: 8,
                pp: 1,
                dp: 1,
                ep: 1,
            },
        },
        batch: 64,
    };
    let e = explain(&s, &d).unwrap();
    check(&e, "pd");
    for top in &e.chains {
        for c in top.walk() {
            let heading = model_md.lines().any(|l| {
                l.starts_with('#')
                    && (l.contains(&format!(" {}. ", c.section))
                        || l.contains(&format!(" {} ", c.section)))
            });
            assert!(
                heading,
                "no section {} in MODEL.md for {}",
                c.section, c.symbol
            );
        }
    }
    // The price per hour is the catalogue's, with its grade and sources.
    let usd = chain(&e, "output $/Mtok").unwrap();
    let json = serde_json::to_value(usd).unwrap();
    let text = json.to_string();
    assert!(
        text.contains("\"kind\":\"catalogue\"") && text.contains("\"field\":\"price\""),
        "{text}"
    );
    assert_eq!(json["formula"], "C_h / (X_out × 3600) × 1000000");
    // The decode step's table names its operators by layer group.
    let decode = &e.point.pool(PoolRole::Decode).unwrap().operators;
    assert!(decode[0]
        .rows
        .iter()
        .any(|r| r.layers.starts_with("80 layers")));
}

/// A host cost a serving framework sets is named as that framework's, and one the user
/// states as the assumption it is: a chain never credits the global default with a
/// value it did not give.
#[test]
fn host_costs_name_where_the_pool_took_them() {
    use disagg_engine::explain::Source;
    use disagg_engine::serving::{Framework, FrameworkChoice};
    let mut s = setup("llama-3.1-8b", 1000, 100);
    s.assumptions.framework = FrameworkChoice::Given(Framework::Sglang);
    let d = Deployment::Aggregated {
        pool: PoolConfig {
            chip: cat().chip("h100-sxm").unwrap(),
            parallelism: Parallelism::single(),
        },
        batch: 8,
    };
    let source_of = |s: &Setup, name: &str| {
        let e = explain(s, &d).unwrap();
        check(&e, name);
        e.chains
            .iter()
            .flat_map(|c| c.walk())
            .flat_map(|c| c.inputs.iter())
            .find(|i| i.name == name)
            .map(|i| (i.value, i.source.clone()))
            .unwrap()
    };
    let (v, src) = source_of(&s, "t_step");
    assert!((v - 800e-6).abs() < 1e-12, "{v}");
    assert!(
        matches!(&src, Source::Rule { rule } if rule.contains("SGLang")),
        "{src:?}"
    );
    s.assumptions = s.assumptions.pin("step_overhead", 300e-6);
    let (v, src) = source_of(&s, "t_step");
    assert!((v - 300e-6).abs() < 1e-12, "{v}");
    assert!(matches!(src, Source::Assumption { .. }), "{src:?}");
}

/// An open-loop point's chains recompute like any other, its top chains are the
/// figures `at_rate` gives, and the chains of the queue say what MODEL.md 6.1 says:
/// the concurrency is one more than the largest that falls short of the rate, and the
/// percentiles are Kingman's tail over the Pollaczek-Khinchine mean.
#[test]
fn an_open_loop_point_opens_its_concurrency_and_its_queue() {
    use disagg_engine::disagg::open_loop::at_rate;
    use disagg_engine::disagg::open_loop_explain::explain_at_rate;
    use disagg_engine::units::RequestsPerSecond;
    let dense = setup("llama-3.1-8b", 2000, 200);
    let moe = setup("qwen3-30b-a3b", 2048, 256);
    let h100 = cat().chip("h100-sxm").unwrap();
    let pool = |tp: u32| PoolConfig {
        chip: h100,
        parallelism: Parallelism {
            tp,
            pp: 1,
            dp: 1,
            ep: 1,
        },
    };
    let deployments = [
        (
            dense,
            Deployment::Aggregated {
                pool: pool(1),
                batch: 1,
            },
        ),
        (
            dense,
            Deployment::PrefillDecode {
                prefill: pool(1),
                decode: pool(2),
                batch: 1,
            },
        ),
        (
            moe,
            Deployment::Aggregated {
                pool: pool(2),
                batch: 1,
            },
        ),
    ];
    let mut seen_waits = 0;
    for (s, d) in deployments {
        // The capacity, then rates from a trickle to near it.
        let most = disagg_engine::disagg::evaluate(&s, &d).unwrap().max_batch() as u32;
        let capacity = disagg_engine::disagg::evaluate(&s, &d.with_batch(most.min(4096)))
            .unwrap()
            .figures
            .output_tok_s
            .value()
            / s.workload.osl as f64;
        for share in [0.001, 0.3, 0.8, 0.97] {
            let rate = RequestsPerSecond::new(capacity * share);
            let what = format!(
                "{} at {:.3} req/s",
                d.generating_pool().chip.name,
                rate.value()
            );
            let e = match explain_at_rate(&s, &d, rate) {
                Ok(e) => e,
                // Beyond what memory holds at this length: refused, naming the capacity.
                Err(err) => {
                    assert!(err.to_string().contains("serves at most"), "{what}: {err}");
                    continue;
                }
            };
            check(&e, &what);
            // The same point the plain open loop gives, to the bit.
            let plain = at_rate(&s, &d, rate).unwrap();
            assert_eq!(e.point.figures, plain.figures, "{what}");
            assert_eq!(e.point.ttft, plain.ttft, "{what}");
            for (q, name) in [(0.5, "p50 TTFT"), (0.9, "p90 TTFT")] {
                let c = chain(&e, name).unwrap();
                assert!(close(c.value, e.point.ttft.quantile(q).value()), "{what}");
            }
            // The concurrency chain: B = B_short + 1, the running concurrency, and the
            // rate at B reaches the arrivals while the one at B - 1 does not.
            let held = chain(&e, "concurrent requests the arrivals hold").unwrap();
            assert_eq!(held.value, e.point.figures.batch as f64, "{what}");
            let b = held.value as u32;
            let x = |b: u32| {
                disagg_engine::disagg::evaluate(&s, &d.with_batch(b))
                    .unwrap()
                    .figures
                    .output_tok_s
                    .value()
                    / s.workload.osl as f64
            };
            assert!(x(b) >= rate.value(), "{what}");
            assert!(b == 1 || x(b - 1) < rate.value(), "{what}");
            // The mean wait is Pollaczek-Khinchine's at the utilisation its chain shows.
            let ttft = chain(&e, "TTFT").unwrap();
            let wait = ttft
                .walk()
                .into_iter()
                .find(|c| c.symbol == "W")
                .unwrap()
                .clone();
            let u = wait.inputs.iter().find(|i| i.name == "u").unwrap().value;
            let t_pf = wait.inputs.iter().find(|i| i.name == "t_pf").unwrap().value;
            assert!(close(wait.value, u * t_pf / (2.0 * (1.0 - u))), "{what}");
            assert!((0.0..1.0).contains(&u), "{what}: {u}");
            if wait.value > 0.0 {
                seen_waits += 1;
            }
            let text = disagg_engine::explain::render_all(&e.chains);
            assert!(text.contains("ln(u / 0.1)"), "{what}\n{text}");
        }
    }
    assert!(seen_waits >= 6, "{seen_waits}");
}

/// A pool's operators name kernel factors exactly where its serving framework holds
/// some on its chip (none has earned any yet: AUDIT, "Serving frameworks").
#[test]
fn kernel_factors_are_named_where_the_framework_holds_them() {
    use disagg_engine::explain::Source;
    use disagg_engine::serving::{Framework, FrameworkChoice, KernelFactors};
    let chip = cat().chip("h100-sxm").unwrap();
    let d = Deployment::Aggregated {
        pool: PoolConfig {
            chip,
            parallelism: Parallelism::single(),
        },
        batch: 8,
    };
    for f in Framework::ALL {
        let mut s = setup("llama-3.1-8b", 1000, 100);
        s.assumptions.framework = FrameworkChoice::Given(f);
        let e = explain(&s, &d).unwrap();
        check(&e, f.id());
        let input = e
            .chains
            .iter()
            .flat_map(|c| c.walk())
            .flat_map(|c| c.inputs.iter())
            .find(|i| i.name == "t_ffn")
            .unwrap();
        let Source::Rule { rule } = &input.source else {
            panic!("{:?}", input.source)
        };
        let holds = f.defaults(chip).kernels != KernelFactors::CHIPS;
        assert_eq!(rule.contains("'s kernels"), holds, "{f}: {rule}");
    }
}
