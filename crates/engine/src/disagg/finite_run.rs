//! A finite run read to its last request's end (MLPerf Offline, trtllm-bench's
//! throughput run), `audit/MODEL.md` 6.1.4.
//!
//! While requests wait, every replica runs `B` sequences and produces output at the
//! steady rate `X` of its round. Once the last request has been admitted the batch
//! drains: the sequences still running finish one by one and the steps that remain
//! carry fewer and fewer of them, down to the last sequence, which runs alone. A
//! running sequence has on average `E[R] = osl (1 + cv^2) / 2` tokens to go (half of
//! [`crate::Workload::running_output`]); the longest has about `K`, the longest output
//! a request may have. With the decode step affine in the batch between one sequence
//! (`t_1`) and `B` (`t_B`), slope `s = (t_B - t_1) / (B - 1)`, the drain takes
//! `sum_k t(b_k)` where `b_k` sequences remain after `k` steps, and the same tokens at
//! the steady batch would take `sum_k b_k t_B / B`. The difference is
//!
//! `L = (t_1 - s) (K - E[R])`
//!
//! (each step's fixed part `t_1 - s` is paid `K` times in the drain, where a full batch
//! would have paid it for `E[R]` steps' worth of tokens). The run's `N` requests take
//! `T = N osl / X` at the steady rate, so its rate is `X T / (T + L)`.
//!
//! A run whose every request fits in the batch at once is one wave: all its sequences
//! start with the run, so when its last request is admitted each has its whole output
//! to go, `E[R] = osl`, and the drain is only the spread of the output lengths.
//! trtllm-bench's datasets of a few thousand fixed-length requests are often that.

use crate::error::EngineError;
use crate::explain::{diff, max, num, product, quotient, sum, var, Chain, Source};
use crate::units::{Seconds, TokensPerSecond};
use crate::workload::Workload;

/// The refusal of a finite run where the drain is not modelled: on any axis but the
/// aggregated one (a split deployment's pools drain on their own schedules).
pub(crate) fn not_on_this_axis() -> EngineError {
    EngineError::InvalidInput(
        "a finite run (MLPerf Offline's drain) is modelled on aggregated deployments only".into(),
    )
}

/// Refuses a batch above `w`'s finite run's requests, naming both: a run never holds
/// more sequences than it has requests. `Ok` where the workload states no run.
pub(crate) fn check_batch(w: &Workload, batch: u32) -> crate::error::Result<()> {
    match w.finite_run {
        Some(run) if batch > run.requests => Err(EngineError::InvalidInput(format!(
            "batch {batch} exceeds the finite run's {} requests: a run never holds more \
             sequences than it has requests (lower the batch or raise the run's requests)",
            run.requests
        ))),
        _ => Ok(()),
    }
}

/// Time a run loses while its batch of `seqs` sequences per replica drains: a decode
/// step costs `one` with one sequence and `full` with all `seqs`, and the longest
/// running sequence has `longest` tokens to go against a mean of `mean_left`. Zero for a
/// batch of one (nothing drains) and never negative.
pub fn drain_loss(one: Seconds, full: Seconds, seqs: f64, longest: f64, mean_left: f64) -> Seconds {
    if seqs.is_nan() || seqs <= 1.0 {
        return Seconds::ZERO;
    }
    let slope = (full - one) / (seqs - 1.0);
    let fixed = (one - slope).max(Seconds::ZERO);
    fixed * (longest - mean_left).max(0.0)
}

/// The rate of a finite run whose steady rate is `steady` (output tokens per second
/// over all replicas) and whose batch drains in `loss`: its tokens over the time to
/// its last request's end. The steady rate itself where the workload states no run.
pub fn run_rate(w: &Workload, steady: TokensPerSecond, loss: Seconds) -> TokensPerSecond {
    match w.finite_run {
        Some(run) if steady.value() > 0.0 => {
            let t = Seconds::new(run.requests as f64 * w.osl as f64 / steady.value());
            steady * (t / (t + loss))
        }
        _ => steady,
    }
}

/// Whether the `running` sequences the deployment holds at once take every request of
/// `w`'s run: the run is then one wave, all of it starting together.
fn one_wave(w: &Workload, running: f64) -> bool {
    w.finite_run
        .is_some_and(|run| run.requests as f64 <= running)
}

/// Tokens a running sequence has left on average when the run's last request is
/// admitted: half of a running sequence's whole output, `E[R] = osl (1 + cv^2) / 2`
/// ([`Workload::running_output`], length-biased), where requests wait behind the batch
/// and the running ones are spread over their outputs; the whole mean output, `osl`,
/// where the run is one wave and every sequence has just started.
fn mean_left(w: &Workload, running: f64) -> f64 {
    if one_wave(w, running) {
        w.osl as f64
    } else {
        w.running_output() / 2.0
    }
}

/// The drain of one replica of `seqs` sequences, out of `running` over the deployment,
/// under `w`'s run: [`drain_loss`] with the run's longest output and the mean tokens a
/// running sequence has left. Zero where the workload states no run.
pub fn replica_drain(
    w: &Workload,
    one: Seconds,
    full: Seconds,
    seqs: f64,
    running: f64,
) -> Seconds {
    match w.finite_run {
        Some(run) => drain_loss(
            one,
            full,
            seqs,
            run.longest_output as f64,
            mean_left(w, running),
        ),
        None => Seconds::ZERO,
    }
}

/// The drain of one replica opened ([`drain_loss`]): `L = max(t_1 - s, 0) max(K - E_R, 0)`
/// with `s = (t_B - t_1) / (B - 1)`, the step's growth per sequence. `None` where the
/// workload states no run.
pub(crate) fn drain_chain(
    w: &Workload,
    one: Seconds,
    full: Seconds,
    seqs: f64,
    running: f64,
) -> Option<Chain> {
    let run = w.finite_run?;
    let e_r_rule = if one_wave(w, running) {
        "the run fits in the batch at once (one wave): every sequence starts with it, osl"
    } else {
        "half a running sequence's whole output, osl (1 + cv^2) / 2"
    };
    let (t1, tb, b, k, e_r) = (var("t_1"), var("t_B"), var("B"), var("K"), var("E_R"));
    let slope = quotient(diff(tb, t1.clone()), diff(b, num(1.0)));
    Some(
        Chain::new(
            "time the run loses while its batch drains",
            "L",
            "s",
            "6.1.4",
            product([
                max([diff(t1, slope), num(0.0)]),
                max([diff(k, e_r), num(0.0)]),
            ]),
            replica_drain(w, one, full, seqs, running).value(),
        )
        .input(
            "t_1",
            "decode step with one sequence",
            one.value(),
            "s",
            Source::rule("the replica's decode step costed at one sequence"),
        )
        .input(
            "t_B",
            "decode step with the full batch",
            full.value(),
            "s",
            Source::rule("the replica's decode step"),
        )
        .input(
            "B",
            "sequences per replica",
            seqs,
            "sequences",
            Source::deployment("sequences per replica"),
        )
        .input(
            "K",
            "longest output a request may have",
            run.longest_output as f64,
            "tokens",
            Source::workload("finite_run.longest_output"),
        )
        .input(
            "E_R",
            "tokens a running sequence has left, on average",
            mean_left(w, running),
            "tokens",
            Source::rule(e_r_rule),
        ),
    )
}

/// A run rate opened: the steady `rate` chain times `T / (T + L)`, `T = N_run OSL / X_out`
/// the run at the steady output rate `output` (tokens per second) and `L` the drain.
/// `value` is the rate the engine reports.
pub(crate) fn run_rate_chain(
    w: &Workload,
    rate: Chain,
    output: f64,
    drain: Chain,
    value: f64,
) -> Chain {
    let requests = w.finite_run.map_or(0.0, |r| r.requests as f64);
    let length = Chain::new(
        "the run at its steady rate",
        "T",
        "s",
        "6.1.4",
        quotient(product([var("N_run"), var("OSL")]), var("X_steady")),
        requests * w.osl as f64 / output,
    )
    .input(
        "N_run",
        "requests in the run",
        requests,
        "requests",
        Source::workload("finite_run.requests"),
    )
    .with_osl(w.osl as f64)
    .input(
        "X_steady",
        "output tok/s of the steady loop",
        output,
        "tok/s",
        Source::rule("the round's output rate before the drain"),
    );
    let steady = format!("{}_steady", rate.symbol);
    Chain::new(
        &format!("{} over the whole run", rate.quantity),
        &rate.symbol,
        rate.unit,
        "6.1.4",
        product([var(&steady), quotient(var("T"), sum([var("T"), var("L")]))]),
        value,
    )
    .derived(
        "the steady loop's rate",
        Chain {
            symbol: steady.clone(),
            ..rate
        },
    )
    .derived("the run at its steady rate", length)
    .derived("time the run loses while its batch drains", drain)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::FiniteRun;

    /// The closed form against the drain stepped out: fixed lengths `L` leave the
    /// running sequences' remaining tokens spread evenly over `1..=L`, so one finishes
    /// every `L / B` steps.
    #[test]
    fn drain_loss_matches_a_drain_stepped_one_sequence_at_a_time() {
        let (b, l) = (64usize, 640usize);
        let (t1, slope) = (0.010, 0.0002);
        let t = |n: usize| t1 + slope * (n as f64 - 1.0);
        // Sequence i has (i + 1) * L / B tokens left.
        let left: Vec<usize> = (0..b).map(|i| (i + 1) * l / b).collect();
        let mut drain = 0.0;
        let mut tokens = 0usize;
        for k in 0..l {
            let running = left.iter().filter(|&&r| r > k).count();
            if running > 0 {
                drain += t(running);
                tokens += running;
            }
        }
        let at_full = tokens as f64 * t(b) / b as f64;
        let mean_left = tokens as f64 / b as f64;
        let loss = drain_loss(
            Seconds::new(t(1)),
            Seconds::new(t(b)),
            b as f64,
            l as f64,
            mean_left,
        );
        assert!((loss.value() - (drain - at_full)).abs() < 1e-9 * drain);
        // Nothing drains from a batch of one, and a step that is all per-sequence work
        // loses nothing.
        assert_eq!(
            drain_loss(Seconds::new(0.01), Seconds::new(0.01), 1.0, 100.0, 50.0),
            Seconds::ZERO
        );
        assert!(
            drain_loss(Seconds::new(0.001), Seconds::new(0.064), 64.0, 100.0, 50.0).value() < 1e-15
        );
    }

    #[test]
    fn a_run_loses_its_drain_over_its_length() {
        let run = FiniteRun {
            requests: 6600,
            longest_output: 1000,
        };
        let w = Workload {
            finite_run: Some(run),
            ..Workload::new(200, 100)
        };
        // 6,600 requests of 100 tokens at 1,000 tok/s take 660 s; a 66 s drain makes
        // it 726 s.
        let x = TokensPerSecond::new(1000.0);
        let r = run_rate(&w, x, Seconds::new(66.0));
        assert!((r.value() - 1000.0 * 660.0 / 726.0).abs() < 1e-9);
        // The longer the run, the less its drain weighs: at 10 tok/s it takes 66,000 s.
        let r = run_rate(&w, TokensPerSecond::new(10.0), Seconds::new(66.0));
        assert!((r.value() - 10.0 * 66_000.0 / 66_066.0).abs() < 1e-12);
        // No run, no change; and the drain uses the length-biased mean left.
        let steady = Workload::new(200, 100).with_output_cv(1.0);
        assert_eq!(run_rate(&steady, x, Seconds::new(66.0)), x);
        let w = Workload {
            finite_run: Some(run),
            ..steady
        };
        let loss = replica_drain(&w, Seconds::new(0.01), Seconds::new(0.01), 10.0, 10.0);
        // slope 0: L = t_1 (K - osl (1 + cv^2) / 2) = 0.01 (1000 - 100).
        assert!((loss.value() - 9.0).abs() < 1e-12);
    }

    /// A run that fits in the batch at once is one wave: fixed lengths end together
    /// and lose nothing; spread lengths lose the fixed part for the longest output's
    /// lead over the mean one, `(t_1 - s)(K - osl)`. One request more than the batch
    /// holds and the running sequences are spread again: `K - osl (1 + cv^2) / 2`.
    #[test]
    fn a_run_that_fits_the_batch_drains_only_its_length_spread() {
        let (one, full) = (Seconds::new(0.010), Seconds::new(0.030));
        let fixed = |requests: u32| Workload {
            finite_run: Some(FiniteRun {
                requests,
                longest_output: 128,
            }),
            ..Workload::new(2048, 128)
        };
        // 375 requests on 8 replicas of 47 sequences each (376 at once).
        assert_eq!(
            replica_drain(&fixed(375), one, full, 47.0, 376.0),
            Seconds::ZERO
        );
        // slope (0.030 - 0.010) / 46, fixed part 0.010 - slope, for 128 - 64 steps.
        let slope = 0.020 / 46.0;
        let spread = replica_drain(&fixed(377), one, full, 47.0, 376.0);
        assert!((spread.value() - (0.010 - slope) * 64.0).abs() < 1e-12);
        let varied = Workload {
            finite_run: Some(FiniteRun {
                requests: 375,
                longest_output: 150,
            }),
            ..Workload::new(2048, 128).with_output_cv(0.1)
        };
        let loss = replica_drain(&varied, one, full, 47.0, 376.0);
        assert!((loss.value() - (0.010 - slope) * 22.0).abs() < 1e-12);
    }
}
