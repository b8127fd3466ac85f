//! The figures as serving benchmarks define them: TPOT is the time per output token
//! after the first, so a request's own prefill is its TTFT's and never its TPOT's.

use super::common::*;
use disagg_engine::kernel::OpKind;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

/// After a 20k-token prompt at batch 1, 200 and 2,000 output tokens give TPOTs that
/// are each the bare decode step, and differ only by the attention over the longer
/// context; the prompt's prefill, hundreds of decode steps long, is in TTFT alone.
#[test]
fn at_batch_one_tpot_is_the_decode_step_and_nothing_of_the_prompt() {
    let chip = cat().chip("h100-sxm").unwrap();
    let at = |osl| {
        predict(&scenario(
            "llama-3.3-70b",
            chip,
            tp(4),
            DType::Fp8,
            20_000,
            osl,
            Batch::Fixed(1),
        ))
        .unwrap()
    };
    let (short, long) = (at(200), at(2_000));
    for p in [&short, &long] {
        assert!(close(p.tpot.value(), p.decode_step.value()), "{p:?}");
        assert!(p.prefill_step.value() > 20.0 * p.decode_step.value());
        assert!(p.ttft.value() > p.prefill_step.value());
    }
    let attention = |p: &Prediction| p.decode_cost.op(OpKind::AttnCore).time.value();
    let step_gap = long.tpot.value() - short.tpot.value();
    assert!(step_gap > 0.0);
    assert!(
        close(step_gap, attention(&long) - attention(&short)),
        "TPOT grew by {step_gap} s, the attention core by {} s",
        attention(&long) - attention(&short)
    );
}

/// With company, a request's TPOT carries the prefills of the others' prompts, not
/// its own: its latency (the round, by Little's law) less its TTFT, over its output
/// tokens after the first, as the benchmarks compute it per request.
#[test]
fn with_company_tpot_carries_the_other_prompts_prefills() {
    let chip = cat().chip("h100-sxm").unwrap();
    let p = predict(&scenario(
        "llama-3.3-70b",
        chip,
        tp(4),
        DType::Fp8,
        4_000,
        500,
        Batch::Fixed(8),
    ))
    .unwrap();
    let prompts = p.prefill_batch;
    let round = 500.0 * p.decode_step.value() + p.prefill_step.value() * 8.0 / prompts;
    let tpot = (round - p.ttft.value()) / 499.0;
    assert!(close(p.tpot.value(), tpot), "{} vs {tpot}", p.tpot.value());
    assert!(p.tpot.value() > p.decode_step.value());
    // Its TTFT holds its own prefill step, so TPOT is less than the whole round's share.
    assert!(p.tpot.value() < round / 500.0);
    // Output throughput still pays every prefill of the round.
    assert!(close(p.output_tok_s, 8.0 * 500.0 / round));
}

/// TTFT's parts add up to the headline TTFT on every axis and batch, queue included,
/// and its percentiles bracket the median.
#[test]
fn ttft_parts_add_up_to_the_headline_and_percentiles_are_ordered() {
    let h100 = cat().chip("h100-sxm").unwrap();
    let s = {
        let mut s = scenario(
            "llama-3.3-70b",
            h100,
            tp(4),
            DType::Fp8,
            4_000,
            500,
            Batch::Fixed(1),
        )
        .setup();
        s.assumptions = s.assumptions.pin("max_seqs_per_replica", 64.0);
        s
    };
    let pool = PoolConfig {
        chip: h100,
        parallelism: tp(4),
    };
    for batch in [1, 8, 64, 256] {
        for d in [
            Deployment::Aggregated { pool, batch },
            Deployment::PrefillDecode {
                prefill: pool,
                decode: pool,
                batch,
            },
        ] {
            let p = evaluate(&s, &d).unwrap();
            let t = p.ttft;
            assert!(
                close(t.mean().value(), p.figures.ttft.value()),
                "{d:?}: {t:?} vs {:?}",
                p.figures.ttft
            );
            let (p50, p90) = (t.quantile(0.5), t.quantile(0.9));
            assert!(p50 <= p90 && t.quantile(0.0) <= p50, "{d:?}: {t:?}");
            // Beyond the engine's 64, the rest wait in front of it.
            if batch > 64 {
                assert!(t.parts.queue > Seconds::ZERO, "{d:?}: {t:?}");
            } else if matches!(d, Deployment::Aggregated { .. }) {
                assert_eq!(t.parts.queue, Seconds::ZERO, "{d:?}: {t:?}");
            }
        }
    }
}

/// Under Poisson arrivals the deployment delivers exactly the arrival rate, from the
/// smallest concurrency that keeps up, and its TTFT waits as an M/D/1 queue; a rate
/// beyond what it can serve is refused with the figure it can.
#[test]
fn an_open_loop_delivers_its_rate_and_queues_as_m_d_1() {
    use disagg_engine::disagg::open_loop::at_rate;
    use disagg_engine::units::RequestsPerSecond;
    let h100 = cat().chip("h100-sxm").unwrap();
    let s = scenario(
        "llama-3.3-70b",
        h100,
        tp(4),
        DType::Fp8,
        2_000,
        500,
        Batch::Fixed(1),
    )
    .setup();
    let pool = PoolConfig {
        chip: h100,
        parallelism: tp(4),
    };
    let d = Deployment::Aggregated { pool, batch: 1 };
    let capacity = {
        let most = evaluate(&s, &d).unwrap().max_batch() as u32;
        evaluate(&s, &d.with_batch(most))
            .unwrap()
            .figures
            .output_tok_s
            .value()
            / 500.0
    };
    let rate = 0.5 * capacity;
    let p = at_rate(&s, &d, RequestsPerSecond::new(rate)).unwrap();
    assert!(
        close(p.figures.output_tok_s.value(), rate * 500.0),
        "{:?}",
        p.figures
    );
    // The smallest concurrency that keeps up: one fewer does not.
    let b = p.figures.batch;
    let below = evaluate(&s, &d.with_batch(b - 1)).unwrap();
    assert!(below.figures.output_tok_s.value() / 500.0 < rate);
    // TTFT: the wait of an M/D/1 queue in front of the prefill steps, then the rest.
    let t = p.ttft;
    let u = match t.wait {
        disagg_engine::disagg::ttft::Wait::Poisson { utilisation, .. } => utilisation,
        w => panic!("{w:?}"),
    };
    assert!(u > 0.0 && u < 1.0);
    let service = t.parts.prefill.value();
    assert!(close(
        t.parts.prefill_wait.value(),
        u * service / (2.0 * (1.0 - u))
    ));
    assert!(close(p.figures.ttft.value(), t.mean().value()));
    assert_eq!(t.parts.queue, Seconds::ZERO);
    // A faster rate waits longer.
    let busier = at_rate(&s, &d, RequestsPerSecond::new(0.9 * capacity)).unwrap();
    assert!(busier.figures.ttft > p.figures.ttft && busier.figures.batch > b);
    // Beyond capacity: refused, naming what it serves.
    let e = at_rate(&s, &d, RequestsPerSecond::new(1.5 * capacity))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("serves at most") && e.contains("requests per second"),
        "{e}"
    );
    let e = at_rate(&s, &d, RequestsPerSecond::new(f64::NAN))
        .unwrap_err()
        .to_string();
    assert!(e.contains("request rate"), "{e}");
}

/// `model` in FP8 on H100s at `tp`, `(isl, osl)` prompts and outputs, and a finite run
/// of `(requests, longest output)`: the setup and its tensor-parallel pool.
fn h100_run(
    model: &'static str,
    tp_size: u32,
    (isl, osl): (u32, u32),
    (requests, longest_output): (u32, u32),
) -> (Setup<'static>, PoolConfig<'static>) {
    let h100 = cat().chip("h100-sxm").unwrap();
    let mut s = scenario(
        model,
        h100,
        tp(tp_size),
        DType::Fp8,
        isl,
        osl,
        Batch::Fixed(1),
    )
    .setup();
    s.workload.finite_run = Some(disagg_engine::FiniteRun {
        requests,
        longest_output,
    });
    let pool = PoolConfig {
        chip: h100,
        parallelism: tp(tp_size),
    };
    (s, pool)
}

/// A finite run (MLPerf Offline's drain) is modelled on aggregated deployments; a split
/// one, or an open loop that never ends, refuses it with the reason instead of ignoring
/// it.
#[test]
fn a_finite_run_is_refused_where_it_is_not_modelled() {
    use disagg_engine::disagg::open_loop::at_rate;
    use disagg_engine::units::RequestsPerSecond;
    let (s, pool) = h100_run("llama-3.3-70b", 4, (2_000, 500), (1_000, 1_000));
    let aggregated = Deployment::Aggregated { pool, batch: 32 };
    assert!(evaluate(&s, &aggregated).is_ok());
    let split = Deployment::PrefillDecode {
        prefill: pool,
        decode: pool,
        batch: 32,
    };
    let why = evaluate(&s, &split).unwrap_err().to_string();
    assert!(why.contains("aggregated deployments only"), "{why}");
    let why = at_rate(&s, &aggregated, RequestsPerSecond::new(1.0))
        .unwrap_err()
        .to_string();
    assert!(why.contains("open loop"), "{why}");
}

/// A finite run never holds more sequences than it has requests: a batch above them is
/// refused naming both, a sweep at such a fixed batch too, and a sweep over batches
/// tries none above them.
#[test]
fn a_finite_run_holds_no_more_sequences_than_requests() {
    use disagg_engine::disagg::Axis;
    use disagg_engine::sweep::{sweep, SweepRequest};
    let (s, pool) = h100_run("llama-3.1-8b", 1, (1_000, 128), (10, 128));
    let at = |batch| evaluate(&s, &Deployment::Aggregated { pool, batch });
    assert!(at(10).is_ok());
    let why = at(64).unwrap_err().to_string();
    assert!(
        why.contains("batch 64") && why.contains("10 requests"),
        "{why}"
    );
    let request = |batch| SweepRequest {
        setup: s,
        axis: Axis::Aggregated,
        chips: vec![pool.chip],
        max_chips: 4,
        target_tok_s_user: None,
        slo: Default::default(),
        batch,
    };
    let why = sweep(&request(Some(64))).unwrap_err().to_string();
    assert!(why.contains("batch 64"), "{why}");
    let free = sweep(&request(None)).unwrap();
    assert!(!free.cloud.is_empty());
    assert!(free.cloud.iter().all(|p| p.figures.batch <= 10));
    assert!(free.cloud.iter().any(|p| p.figures.batch == 10));
}

/// A run's outputs add up to its requests times their mean, so no one output is longer
/// than that less one token for each other request: `N osl - (N - 1)`, the whole run's
/// for one request. A longer one is refused with the bound; the bound itself runs.
#[test]
fn a_finite_runs_longest_output_fits_in_its_outputs() {
    use disagg_engine::FiniteRun;
    assert_eq!(FiniteRun::longest_possible(1, 128), 128);
    assert_eq!(FiniteRun::longest_possible(5, 100), 496);
    assert_eq!(FiniteRun::longest_possible(3, 1), 1);
    assert_eq!(
        FiniteRun::longest_possible(u32::MAX, u32::MAX),
        disagg_engine::limits::MAX_LENGTH
    );
    let at = |longest| {
        let (s, pool) = h100_run("llama-3.1-8b", 1, (1_000, 100), (5, longest));
        evaluate(&s, &Deployment::Aggregated { pool, batch: 5 })
    };
    assert!(at(496).is_ok());
    let why = at(497).unwrap_err().to_string();
    assert!(why.contains("497") && why.contains("496"), "{why}");
}

/// trtllm-bench queues a whole dataset at once and reports its output tokens over the
/// time from the first request's start to the last one's end, as MLPerf Offline does:
/// every row from NVIDIA's perf-overview page states the page's dataset size for its
/// lengths and the one output length its fixed-length dataset has, the DeepSeek-R1
/// reference runs their own request counts, and the drain slows a run of several waves
/// by `T / (T + L)` of its steady rate, less the longer the run, and a run of one wave
/// not at all.
#[test]
fn trtllm_bench_rows_are_read_to_their_last_completion() {
    // The page's `$num_requests` per input/output length.
    let num_requests = |isl: u32, osl: u32| match (isl, osl) {
        (128, 128) => 30_000,
        (128, 2048) | (2048, 128) | (1000, 1000) | (500, 2000) => 3_000,
        (128, 4096) | (1000, 2000) | (2048, 2048) | (5000, 500) => 1_500,
        (20000, 2000) => 1_000,
        other => panic!("no dataset size on the page for {other:?}"),
    };
    let page = perf_overview_rows();
    assert!(page.len() >= 69, "{}", page.len());
    for p in &page {
        let run = p
            .offline
            .unwrap_or_else(|| panic!("{} states no run", p.id));
        assert_eq!(run.samples, num_requests(p.isl, p.osl), "{}", p.id);
        assert_eq!(run.longest_output, p.osl, "{}", p.id);
    }
    for (id, requests) in [
        ("TRTDS-01", 49_152),
        ("TRTDS-02", 114_688),
        ("TRTDS-03", 5_120),
    ] {
        let p = published_point(id);
        assert_eq!(p.offline.map(|o| o.samples), Some(requests), "{id}");
    }
    // The drain on a decode-heavy MoE row, whose step is mostly its expert weights:
    // the run's rate is below the steady loop's, and ten times the requests lose
    // about a tenth as much.
    let row = published_point("TRTB21");
    let steady = predict_point(&validation::BenchmarkPoint {
        offline: None,
        ..row.clone()
    });
    let run = predict_point(&row);
    let longer = predict_point(&validation::BenchmarkPoint {
        offline: row.offline.map(|o| validation::OfflineRun {
            samples: o.samples * 10,
            ..o
        }),
        ..row.clone()
    });
    let loss = |p: &Prediction| 1.0 - p.output_tok_s / steady.output_tok_s;
    assert!(loss(&run) > 0.05 && loss(&run) < 0.5, "{}", loss(&run));
    // T / (T + L) with T ten times longer: L / (10 T + L) against L / (T + L).
    let l_over_t = loss(&run) / (1.0 - loss(&run));
    let expected = l_over_t / (10.0 + l_over_t);
    assert!((loss(&longer) - expected).abs() < 1e-9, "{}", loss(&longer));
    assert_eq!(run.tpot, steady.tpot);
    // TRTB17's 3,000 requests fit its eight replicas' batches at once: one wave of one
    // output length, which ends together and drains nothing.
    let one_wave = published_point("TRTB17");
    let run = predict_point(&one_wave);
    assert!(
        run.batch >= one_wave.offline.unwrap().samples,
        "{}",
        run.batch
    );
    let steady = predict_point(&validation::BenchmarkPoint {
        offline: None,
        ..one_wave
    });
    assert_eq!(run.output_tok_s, steady.output_tok_s);
}
