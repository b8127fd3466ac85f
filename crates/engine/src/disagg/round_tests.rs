//! Tests of the round (`round.rs`).

use super::*;

fn prefill(step: f64, prompts: f64, steps: f64) -> RoundPrefill {
    RoundPrefill {
        step: Seconds(step),
        prompts_per_step: prompts,
        steps,
        overlap: 1.0,
    }
}

/// The first test's round: 8 sequences of 100 output tokens, a 10 ms decode step and
/// four 40 ms prefill chunks of 2 prompts, refilled continuously.
fn the_first_round() -> Round {
    Round {
        iteration: Seconds(0.010),
        tokens_per_iteration: 1.0,
        seqs: 8.0,
        osl: 100.0,
        prefill: Some(prefill(0.040, 2.0, 4.0)),
        scheduling: Scheduling::Continuous,
        first_wave: 0.0,
        admission: Seconds::ZERO,
    }
}

#[test]
fn a_round_is_its_iterations_plus_its_prefill_chunks() {
    // 8 sequences, 100 output tokens, a 10 ms decode step, prefill chunks of 2
    // prompts taking 40 ms: R = 100 * 10 + 4 * 40 = 1160 ms.
    let r = the_first_round();
    assert!((r.duration().0 - 1.160).abs() < 1e-12);
    assert!((r.output_tok_s(8).0 - 800.0 / 1.160).abs() < 1e-9);
    // A new prompt finds the prefill steps busy u (s - 1) / s of the time and
    // waits u_a t_pf / (2 (1 - u_a)) for them (M/D/1), then its own step and the
    // iteration that yields its first token.
    let u_a = 0.160 / 1.160 * 7.0 / 8.0;
    let wait = u_a * 0.040 / (2.0 * (1.0 - u_a));
    assert!((r.prefill_wait().0 - wait).abs() < 1e-15);
    assert!((r.ttft().0 - (wait + 0.040 + 0.010)).abs() < 1e-12);
    // TPOT is the rest of the round (the latency) over the 99 tokens after the
    // first, so latency = TTFT + (OSL - 1) TPOT exactly.
    assert!((r.tpot().0 - (1.160 - r.ttft().0) / 99.0).abs() < 1e-15);
    assert!((r.ttft().0 + 99.0 * r.tpot().0 - r.duration().0).abs() < 1e-12);
    assert!((r.prefill_share() - 0.160 / 1.160).abs() < 1e-12);
}

#[test]
fn a_static_batch_prefills_every_prompt_then_generates_uninterrupted() {
    // The round above as a static batch: 8 prompts in 4 steps of 40 ms, then 100
    // steps of 10 ms with no refill. The same 1160 ms and the same token rate,
    // B OSL / (prefill(B) + OSL t_it); every first token after all 160 ms of
    // prefill and the first step; TPOT the bare step.
    let r = Round {
        scheduling: Scheduling::Static,
        ..the_first_round()
    };
    assert!((r.duration().0 - 1.160).abs() < 1e-12);
    assert!((r.output_tok_s(8).0 - 8.0 * 100.0 / (0.160 + 100.0 * 0.010)).abs() < 1e-9);
    assert!((r.ttft().0 - (0.160 + 0.010)).abs() < 1e-12);
    assert!((r.tpot().0 - 0.010).abs() < 1e-15);
    // A request's latency is the round: TTFT + (OSL - 1) TPOT.
    assert!((r.ttft().0 + 99.0 * r.tpot().0 - r.duration().0).abs() < 1e-12);
    // Every request waits the same: p50 = p90 = mean, its parts adding up.
    let t = r.ttft_model();
    assert!((t.mean().0 - r.ttft().0).abs() < 1e-12);
    assert_eq!(t.quantile(0.5), t.mean());
    assert_eq!(t.quantile(0.9), t.mean());
    assert!((t.parts.prefill_wait.0 - 0.120).abs() < 1e-12);
    // Against continuous refill: a later first token, a faster one after it.
    let c = Round {
        scheduling: Scheduling::Continuous,
        ..r
    };
    assert!(r.ttft() > c.ttft() && r.tpot() < c.tpot());
    assert_eq!(r.output_tok_s(8), c.output_tok_s(8));
    // Speculation: a cycle yields E tokens, TPOT the cycle over E.
    let spec = Round {
        tokens_per_iteration: 2.5,
        iteration: Seconds(0.025),
        ..r
    };
    assert!((spec.tpot().0 - 0.010).abs() < 1e-15);
}

#[test]
fn one_sequence_alone_sees_the_bare_iteration_whatever_its_prompt() {
    // Batch 1: the round is its own prefill then its iterations; none of the
    // prefill is between its tokens.
    let r = Round {
        iteration: Seconds(0.010),
        tokens_per_iteration: 1.0,
        seqs: 1.0,
        osl: 200.0,
        prefill: Some(prefill(2.5, 1.0, 1.0)),
        scheduling: Scheduling::Continuous,
        first_wave: 0.0,
        admission: Seconds::ZERO,
    };
    assert!((r.tpot().0 - 0.010).abs() < 1e-15);
    assert!((r.duration().0 - (2.0 + 2.5)).abs() < 1e-12);
    assert!((r.request_rate(1).0 - 1.0 / 4.5).abs() < 1e-12);
    // Alone it never finds another prompt in flight (the arrival theorem): its
    // TTFT is its own prefill and first iteration, although the round is 56%
    // prefill.
    assert_eq!(r.prefill_wait(), Seconds::ZERO);
    assert!((r.ttft().0 - 2.51).abs() < 1e-12);
}

#[test]
fn a_prompts_wait_never_exceeds_the_other_prompts_prefill() {
    // A round that is nearly all prefill (u_a = 0.75): M/D/1 would wait 1.5 s,
    // but the round holds only one other 1 s chunk (4 prompts, 2 to a step), and
    // (s - 1) t_pf / p = 1.5 s: the round's room, R - (OSL - 1) t_it - t_it - t_pf
    // = 1 s, binds.
    let r = Round {
        iteration: Seconds(0.001),
        tokens_per_iteration: 1.0,
        seqs: 4.0,
        osl: 2.0,
        prefill: Some(prefill(1.0, 2.0, 2.0)),
        scheduling: Scheduling::Continuous,
        first_wave: 0.0,
        admission: Seconds::ZERO,
    };
    assert!(r.arrival_utilisation() > 0.7);
    let cap = (1.0f64 / 2.0 * 3.0).min(r.duration().0 - 0.001 - 0.001 - 1.0);
    assert!(
        (r.prefill_wait().0 - cap).abs() < 1e-12,
        "{:?}",
        r.prefill_wait()
    );
    // Latency, TTFT and TPOT still agree.
    assert!((r.ttft().0 + r.tpot().0 - r.duration().0).abs() < 1e-12);
}

#[test]
fn speculation_divides_the_iterations_by_the_tokens_each_yields() {
    let r = Round {
        iteration: Seconds(0.030),
        tokens_per_iteration: 2.5,
        seqs: 1.0,
        osl: 100.0,
        prefill: None,
        scheduling: Scheduling::Continuous,
        first_wave: 0.0,
        admission: Seconds::ZERO,
    };
    assert!((r.duration().0 - 40.0 * 0.030).abs() < 1e-12);
    assert_eq!(r.ttft(), Seconds(0.030));
    assert_eq!(r.prefill_share(), 0.0);
}

#[test]
fn group_prefill_steps_follow_their_closed_form() {
    // One replica, or aligned replicas: only the replica's own chunks.
    let own = GroupPrefill::of_round(4.0, 100.0, 1, false);
    assert_eq!((own.steps, own.replicas), (4.0, 1.0));
    let aligned = GroupPrefill::of_round(4.0, 100.0, 8, true);
    assert_eq!((aligned.steps, aligned.replicas), (4.0, 8.0));
    // Eight unaligned replicas: 104 * (1 - (100/104)^8) steps carry a chunk.
    let spread = GroupPrefill::of_round(4.0, 100.0, 8, false);
    let steps = 104.0 * (1.0 - (100.0f64 / 104.0).powi(8));
    assert!((spread.steps - steps).abs() < 1e-9);
    assert!((spread.replicas - 32.0 / steps).abs() < 1e-9);
    // Every chunk is carried once: steps times replicas per step is all the chunks.
    assert!((spread.steps * spread.replicas - 8.0 * 4.0).abs() < 1e-9);
    assert!(spread.steps > 4.0 && spread.steps < 8.0 * 4.0 && spread.replicas > 1.0);
    // When every iteration is a chunk, the replicas' chunks coincide again.
    let busy = GroupPrefill::of_round(1e6, 1.0, 8, false);
    assert!(busy.replicas > 7.99, "{busy:?}");
}

#[test]
fn queued_requests_wait_by_littles_law() {
    let rate = RequestsPerSecond(5.0);
    assert_eq!(queue_wait(10, 10, rate), Seconds::ZERO);
    assert_eq!(queue_wait(30, 10, rate), Seconds(4.0));
    assert_eq!(queue_wait(30, 10, RequestsPerSecond::ZERO), Seconds::ZERO);
}

#[test]
fn a_first_wave_moves_the_mean_ttft_but_not_the_steady_loop() {
    // The round of the first test; a benchmark of 80 prompts at concurrency 8 sends a
    // tenth of them as its first wave. Those 8 prompts, 2 to a 40 ms step, wait
    // 0, 0, 20, ..., 120 ms (mean 52.5 ms), the rest the steady M/D/1 wait.
    let steady = the_first_round();
    let r = Round {
        first_wave: 0.1,
        ..steady
    };
    assert!((r.wave_wait().0 - 0.0525).abs() < 1e-15);
    let w_ss = steady.prefill_wait();
    assert_eq!(r.steady_wait(), w_ss);
    let mean = w_ss.0 + 0.1 * (0.0525 - w_ss.0);
    assert!((r.prefill_wait().0 - mean).abs() < 1e-15);
    assert!((r.ttft().0 - (mean + 0.040 + 0.010)).abs() < 1e-12);
    // Little's law stays exact on the steady loop: its TTFT and TPOT fill the round.
    assert_eq!(r.tpot(), steady.tpot());
    assert_eq!(r.steady_ttft(), steady.ttft());
    assert!((r.steady_ttft().0 + 99.0 * r.tpot().0 - r.duration().0).abs() < 1e-12);
    assert_eq!(r.output_tok_s(8), steady.output_tok_s(8));
    // The parts still add up to the mean, and the spread is the mixture's.
    let t = r.ttft_model();
    assert!((t.mean().0 - r.ttft().0).abs() < 1e-15);
    assert!(matches!(t.wait, Wait::FirstWave { share, .. } if share == 0.1));
    assert!(t.quantile(0.5) <= t.quantile(0.9));
    // A static batch already waits for its whole batch: no first wave to add.
    let s = Round {
        scheduling: Scheduling::Static,
        ..r
    };
    let s0 = Round {
        scheduling: Scheduling::Static,
        ..steady
    };
    assert_eq!(s.ttft(), s0.ttft());
}

#[test]
fn an_admission_wait_lengthens_ttft_and_the_round_but_not_tpot() {
    let base = the_first_round();
    let r = Round {
        admission: Seconds(0.1),
        ..base
    };
    assert!((r.duration().0 - (base.duration().0 + 0.1)).abs() < 1e-12);
    // The prefill steps are busy a smaller share of the longer cycle, so the queue
    // behind them is shorter; TTFT gains the admission wait less that.
    let d_wait = base.prefill_wait() - r.prefill_wait();
    assert!(d_wait >= Seconds::ZERO);
    assert!((r.ttft().0 - (base.ttft().0 + 0.1 - d_wait.0)).abs() < 1e-12);
    assert_eq!(r.ttft_model().parts.queue, Seconds(0.1));
    assert!((r.ttft_model().mean().0 - r.ttft().0).abs() < 1e-15);
    // Little's law: TTFT and TPOT still fill the (longer) cycle.
    assert!((r.ttft().0 + 99.0 * r.tpot().0 - r.duration().0).abs() < 1e-12);
    // A static batch takes no request in mid-batch.
    let s = Round {
        scheduling: Scheduling::Static,
        ..r
    };
    assert_eq!(s.admitting(), Seconds::ZERO);
}

#[test]
fn tpots_spread_counts_the_other_prompts_steps_inside_a_generation() {
    // The first test's round: R = 1160 ms with four 40 ms chunk steps. A request's own
    // step and the wait W before it are TTFT's; the rest of the round's 160 ms of
    // prefill, 160 - 40 - W, lies inside its generation: (120 - W) / 40 of the 3 other
    // steps on average, each with probability (120 - W) / 120 (binomial), each adding
    // 40 ms / 99 to its TPOT.
    let r = the_first_round();
    let t = r.tpot_model();
    assert_eq!(t.mean, r.tpot());
    let w = r.steady_wait().0;
    let mean = (0.120 - w) / 0.040;
    let share = mean / 3.0;
    let sd = (mean * (1.0 - share)).sqrt();
    let each = 0.040 / 99.0;
    // The bare generation: the mean less the mean count's steps, 99 steps of 10 ms.
    assert!((t.mean.0 - mean * each - 0.010).abs() < 1e-12);
    assert!((t.quantile(0.5).0 - t.mean.0).abs() < 1e-9);
    let p90 = (t.mean.0 + 1.281_551_6 * sd * each).min(t.mean.0 + (3.0 - mean) * each);
    assert!(
        (t.quantile(0.9).0 - p90).abs() < 1e-8,
        "{:?}",
        t.quantile(0.9)
    );
    assert!(t.quantile(0.9) > t.mean);
    // A static batch and a pool without prefill: every request at the mean.
    for r in [
        Round {
            scheduling: Scheduling::Static,
            ..r
        },
        Round { prefill: None, ..r },
    ] {
        let t = r.tpot_model();
        assert_eq!(t.quantile(0.9), t.mean);
        assert_eq!(t.mean, r.tpot());
    }
}
