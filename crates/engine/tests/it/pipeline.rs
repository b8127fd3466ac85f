//! Pipelines across unlike devices (`audit/MODEL.md` 6.10): the memory split, the
//! closed form against the one-chip-kind `pp = 2` layout, memory refusals, and the
//! invariants of moving layers between stages.

use super::common::*;
use disagg_engine::disagg::pipeline::{self, memory_split, PipelinePoint};
use disagg_engine::units::Bytes;

fn model(id: &str) -> &'static ModelIr {
    &cat().model(id).unwrap().ir
}

fn setup<'a>(m: &'a ModelIr, isl: u32, osl: u32) -> Setup<'a> {
    Setup {
        kv: DType::Fp16,
        ..Setup::new(m, Workload::new(isl, osl), WeightFormat::new(DType::Bf16))
    }
}

fn chip_with_gb(id: &str, gb: f64) -> Chip {
    let mut c = cat().chip(id).unwrap().clone();
    c.fast.capacity = Bytes::from_gb(gb);
    c
}

fn run(s: &Setup, chips: &[&str], layers: &[u32], batch: u32) -> PipelinePoint {
    let chips: Vec<&Chip> = chips.iter().map(|id| cat().chip(id).unwrap()).collect();
    let stages = pipeline::stages(s.model, &chips, Some(layers)).unwrap();
    pipeline::evaluate(s, &stages, batch).unwrap()
}

#[test]
fn memory_split_is_proportional_with_largest_remainders() {
    let (a, b) = (
        chip_with_gb("m3-ultra", 192.0),
        chip_with_gb("m4-max", 128.0),
    );
    // 80 x 192 / 320 = 48 and 80 x 128 / 320 = 32 exactly.
    assert_eq!(memory_split(80, &[&a, &b]).unwrap(), vec![48, 32]);
    // 61 layers: 36.6 and 24.4, so the larger remainder (0.6) takes the last layer.
    assert_eq!(memory_split(61, &[&a, &b]).unwrap(), vec![37, 24]);
    // Equal remainders: the earlier stages take the layers left over.
    let c = chip_with_gb("m4-max", 128.0);
    assert_eq!(memory_split(80, &[&b, &c, &b]).unwrap(), vec![27, 27, 26]);
    // A chip whose share rounds to no layer takes one from the largest stage.
    let tiny = chip_with_gb("m4-max", 0.5);
    assert_eq!(memory_split(8, &[&a, &tiny]).unwrap(), vec![7, 1]);
    assert_eq!(memory_split(8, &[&tiny, &a, &a]).unwrap(), vec![1, 3, 4]);
    // Fewer layers than stages cannot be split.
    let e = memory_split(2, &[&a, &b, &c]).unwrap_err().to_string();
    assert!(e.contains("at least as many layers"), "{e}");
    // One stage is not a pipeline.
    assert!(memory_split(80, &[&a]).is_err());
}

/// Two identical chips with the layers split evenly run the same step as the
/// one-chip-kind `pp = 2` layout on that chip, but for the hop: `pp = 2` hands the
/// hidden states over the chip's own link for a group of two, the pipeline over the
/// named link between the machines.
#[test]
fn an_even_split_on_two_like_chips_is_pp2_but_for_the_hop() {
    let m = model("llama-3.3-70b");
    let chip = cat().chip("m3-ultra").unwrap();
    let mut s = setup(m, 2048, 128);
    // A named link: 80 Gb/s each way, 300 us.
    s.inter_pool_link = Some(BytesPerSecond::from_gbit_per_s(80.0));
    s.inter_pool_latency = Some(Seconds::from_us(300.0));
    let pp2 = evaluate(
        &s,
        &Deployment::Aggregated {
            pool: PoolConfig {
                chip,
                parallelism: Parallelism {
                    tp: 1,
                    pp: 2,
                    dp: 1,
                    ep: 1,
                },
            },
            batch: 1,
        },
    )
    .unwrap();
    let p = run(&s, &["m3-ultra", "m3-ultra"], &[40, 40], 1);
    // The hops by hand: tokens x hidden (8192) x 2 bytes over bandwidth x link_eff,
    // plus the latency.
    let eff = s.assumptions.link_eff;
    let own = chip.link_for_group(2);
    let hop = |tokens: f64, bw: f64, latency: f64| tokens * 8192.0 * 2.0 / (bw * eff) + latency;
    let named = (80e9 / 8.0, 300e-6);
    let (own_bw, own_lat) = (own.bandwidth.value(), own.latency.value());
    let d_decode = hop(1.0, named.0, named.1) - hop(1.0, own_bw, own_lat);
    let d_prefill = hop(2048.0, named.0, named.1) - hop(2048.0, own_bw, own_lat);
    let step_pp2 = pp2.generating_pool().unwrap().step.value();
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1e-3);
    assert!(
        close(p.decode_step.value(), step_pp2 + d_decode),
        "{} vs {}",
        p.decode_step.value(),
        step_pp2 + d_decode
    );
    // TPOT is the step at batch 1; TTFT the prefill and the first step.
    assert!(close(
        p.point.figures.tpot.value(),
        pp2.figures.tpot.value() + d_decode
    ));
    assert!(close(
        p.point.figures.ttft.value(),
        pp2.figures.ttft.value() + d_prefill + d_decode
    ));
    // The stages: half the layers each, the hop between them.
    assert_eq!(p.stages[0].layers + p.stages[1].layers, 80);
    assert_eq!(p.stages[1].first_layer, 40);
    assert!(p.stages[0].hop.is_some() && p.stages[1].hop.is_none());
}

/// At batch 1 the stages run one after another: the step is their sum plus the hops.
#[test]
fn batch_one_step_is_the_stages_and_the_hops() {
    let m = model("llama-3.1-8b");
    let mut s = setup(m, 1024, 64);
    s.inter_pool_link = Some(BytesPerSecond::from_gbit_per_s(10.0));
    let p = run(&s, &["rtx-5090", "dgx-spark"], &[12, 20], 1);
    let [a, b] = [&p.stages[0], &p.stages[1]];
    let hop = a.hop.unwrap();
    let sum = a.decode + b.decode + hop.decode;
    assert!((p.decode_step.value() / sum.value() - 1.0).abs() < 1e-12);
    assert_eq!(p.micro_batches, 1.0);
    // One token's hidden states over 10 Gb/s: 8 KiB at 0.9375 GB/s, plus the latency.
    let by_hand = 4096.0 * 2.0 / (10e9 / 8.0 * s.assumptions.link_eff) + hop.latency.value();
    assert!((hop.decode.value() / by_hand - 1.0).abs() < 1e-12);
    // Memory: the first stage holds the embedding, the last the untied head.
    let table = m.vocab as f64 * m.hidden as f64 * 2.0;
    let layer = (m.params().total - m.params().embedding) / 32.0 * 2.0;
    let close = |got: Bytes, want: f64| (got.value() / want - 1.0).abs() < 1e-9;
    assert!(close(a.memory.weights, 12.0 * layer + table));
    assert!(close(b.memory.weights, 20.0 * layer + table));
    // Each stage is a pool of the point; the largest batch is the smaller stage's.
    assert_eq!(p.point.pools.len(), 2);
    assert_eq!(
        p.point.max_batch(),
        p.point
            .pools
            .iter()
            .map(|x| x.max_seqs_per_replica)
            .min()
            .unwrap()
    );
}

#[test]
fn a_stage_that_cannot_hold_its_layers_is_refused_by_name() {
    let m = model("llama-3.3-70b");
    let s = setup(m, 1024, 64);
    let chips = [
        cat().chip("rtx-5090").unwrap(),
        cat().chip("dgx-spark").unwrap(),
    ];
    // 40 layers of 1.7 GB in BF16 do not fit a 32 GB RTX 5090.
    let stages = pipeline::stages(m, &chips, Some(&[40, 40])).unwrap();
    let e = pipeline::evaluate(&s, &stages, 1).unwrap_err().to_string();
    assert!(
        e.contains("stage 1") && e.contains("RTX 5090") && e.contains("short by"),
        "{e}"
    );
    // Layers that do not add up to the model's, or a stage without layers.
    let e = pipeline::stages(m, &chips, Some(&[40, 30])).unwrap_err();
    assert!(e.to_string().contains("add up to 70"), "{e}");
    assert!(pipeline::stages(m, &chips, Some(&[80, 0])).is_err());
    assert!(pipeline::stages(m, &chips, Some(&[80])).is_err());
}

/// Moving a layer to the stage that runs a layer faster never slows batch 1.
#[test]
fn more_layers_on_the_faster_device_never_slow_batch_one() {
    let m = model("llama-3.1-8b");
    let s = setup(m, 2048, 32);
    let fast = ["m3-ultra", "m4-max"];
    let points: Vec<PipelinePoint> = (1..32).map(|k| run(&s, &fast, &[k, 32 - k], 1)).collect();
    // The M3 Ultra is faster per layer in both steps.
    let p = &points[15];
    let per_layer = |i: usize| p.stages[i].decode.value() / p.stages[i].layers as f64;
    assert!(per_layer(0) < per_layer(1));
    for pair in points.windows(2) {
        let (fewer, more) = (&pair[0], &pair[1]);
        assert!(more.decode_step.value() <= fewer.decode_step.value() * (1.0 + 1e-12));
        assert!(
            more.point.figures.ttft.value() <= fewer.point.figures.ttft.value() * (1.0 + 1e-12)
        );
    }
}

/// Above batch 1 the engine runs the whole batch through the stages in turn, or two
/// micro-batches in flight bounded by the slowest stage, whichever is faster; both
/// happen (weight-bound small batches on an unbalanced split, compute-bound large ones),
/// and the round keeps Little's law.
#[test]
fn micro_batches_bound_the_step_and_littles_law_holds() {
    let m = model("llama-3.1-8b");
    let s = setup(m, 1024, 256);
    let mut seen = Vec::new();
    for batch in [2u32, 8, 64, 512] {
        let p = run(&s, &["m3-ultra", "m4-max"], &[20, 12], batch);
        let slowest = p
            .stages
            .iter()
            .map(|x| x.decode.value())
            .fold(0.0, f64::max);
        let (step, traversal) = (p.decode_step.value(), p.decode_traversal.value());
        if p.micro_batches == 1.0 {
            assert_eq!(step, traversal);
        } else {
            assert_eq!(p.micro_batches, 2.0);
            assert_eq!(step, traversal.max(2.0 * slowest));
        }
        seen.push(p.micro_batches);
        let f = &p.point.figures;
        let x = f.output_tok_s.value() / 256.0;
        let c = x * (f.ttft.value() + 255.0 * f.tpot.value());
        assert!((c / batch as f64 - 1.0).abs() < 1e-9, "{c} at {batch}");
    }
    assert!(seen.contains(&1.0) && seen.contains(&2.0), "{seen:?}");
}
