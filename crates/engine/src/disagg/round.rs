//! The continuous-batching round: the one place TTFT, TPOT, the output rate and the
//! prefill share of a pool that both generates and prefills are computed, for every
//! axis whose generating pool also runs prefill (aggregated, attention/expert,
//! speculative) and, without prefill, for a prefill/decode decode pool.
//!
//! Per replica of `s` running sequences, one round produces `s * OSL` tokens in
//! `R = OSL / E * t_iteration + t_prefill * steps / stages`: `OSL / E` generation
//! iterations (a decode step yields one token, a speculation cycle `E` on average),
//! plus the prefill chunks of the `s` new prompts that replace the finished ones.
//! Prefill steals generation time; chunked prefill only spreads it. `steps` is the
//! number of iterations that carry a prefill chunk (more than the replica's own
//! chunks when attention-DP replicas of an expert group wait for each other's
//! prefills, see [`GroupPrefill`]); `stages` pipeline stages overlap their chunks.
//! TTFT follows the steady closed loop that benchmarks run: the replica's sequences
//! finish at staggered times, so a new prompt waits only for the prefill steps ahead of
//! it, an M/D/1 queue at the share of time they are busy as the other `s - 1` leave
//! them (the arrival theorem), then its own step and the iteration that yields its
//! first token. A request holds its place for a round, so its latency is `R` and its
//! TPOT `(R - TTFT) / (OSL - 1)`: latency, TTFT and TPOT obey Little's law exactly.
//!
//! A fixed concurrency above the engine's batch limit does not all run: the engine
//! runs `n` sequences and the other `C - n` requests wait in its queue. By Little's
//! law on that queue a request waits `(C - n) / X` at request rate `X` ([`queue_wait`]).

use super::tpot::{Interruptions, Tpot};
use super::ttft::{cohort_wait, prefill_queue, seen_on_arrival, Ttft, TtftParts, Wait};

use crate::parallel::Parallelism;
use crate::serving::Scheduling;
use crate::units::{RequestsPerSecond, Seconds, TokensPerSecond};

pub use super::group_prefill::GroupPrefill;
pub use super::round_explain::RoundChains;

/// The prefill a generating pool runs between its iterations.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RoundPrefill {
    /// One prefill step (chunk), fixed overhead included.
    pub step: Seconds,
    /// Prompts one step carries.
    pub prompts_per_step: f64,
    /// Steps per round that carry a chunk ([`GroupPrefill::steps`]).
    pub steps: f64,
    /// Chunks in flight at once across pipeline stages.
    pub overlap: f64,
}

impl RoundPrefill {
    /// The prefill of `seqs` new prompts per round on `par`, `prompts_per_step` per
    /// chunk of `step`: chunks overlap across pipeline stages, and the replicas of one
    /// expert group wait for each other's chunks unless `aligned`.
    pub fn of(
        step: Seconds,
        prompts_per_step: f64,
        seqs: f64,
        par: Parallelism,
        group: &GroupPrefill,
    ) -> RoundPrefill {
        let chunks = seqs / prompts_per_step;
        RoundPrefill {
            step,
            prompts_per_step,
            steps: group.steps,
            overlap: (par.pp as f64).min(chunks).max(1.0),
        }
    }

    /// One prompt's share of a prefill step.
    pub fn per_request(&self) -> Seconds {
        self.step / self.prompts_per_step
    }

    /// Time per round the generating pool spends prefilling.
    pub fn per_round(&self) -> Seconds {
        self.step * (self.steps / self.overlap)
    }

    /// Of [`RoundPrefill::per_round`], the part a request lives before its first
    /// token: the one step that carries its own prompt (a prompt never spans two
    /// steps here, [`crate::workload::Workload::prompts_per_chunk`]), overlapped like
    /// the others. It is TTFT's, so TPOT leaves it out.
    pub fn own_step(&self) -> Seconds {
        self.step * (self.steps.min(1.0) / self.overlap)
    }
}

/// One round of one replica of a generating pool.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Round {
    /// One generation iteration: a decode step or a speculation cycle.
    pub iteration: Seconds,
    /// Output tokens one iteration yields per sequence: 1, or the expected accepted
    /// tokens of a speculation cycle.
    pub tokens_per_iteration: f64,
    /// Sequences per replica.
    pub seqs: f64,
    /// Mean output tokens per request.
    pub osl: f64,
    /// `None` where prefill runs on other chips (a prefill/decode decode pool).
    pub prefill: Option<RoundPrefill>,
    /// Continuous refill, or a static batch: every prompt prefilled before the first
    /// token, then generation uninterrupted (MODEL.md 6.1.1). The round's length, and
    /// so the token rates, are the same; TTFT and TPOT are not.
    pub scheduling: Scheduling,
    /// Share of the benchmark's requests in its first wave, which arrive together
    /// ([`super::ttft::first_wave_share`], MODEL.md 6.1.2); 0: the steady loop only.
    /// It moves the mean TTFT only: TPOT and the rates stay the steady loop's.
    pub first_wave: f64,
    /// The mean wait of a new request for the scheduler to take it in
    /// ([`admission_wait`], MODEL.md 6.1.3): part of its TTFT and of its cycle, so of
    /// the round (Little's law), never of TPOT. Zero for a static batch.
    pub admission: Seconds,
}

impl Round {
    /// Generation iterations per round.
    pub fn iterations(&self) -> f64 {
        self.osl / self.tokens_per_iteration
    }

    /// The round's length `R`.
    pub fn duration(&self) -> Seconds {
        let generating = self.iteration * self.iterations();
        match &self.prefill {
            Some(p) => generating + p.per_round() + self.admitting(),
            None => generating,
        }
    }

    /// The admission wait where it applies: continuous refill with prefill here.
    pub fn admitting(&self) -> Seconds {
        match &self.prefill {
            Some(_) if self.scheduling.is_continuous() => self.admission.max(Seconds::ZERO),
            _ => Seconds::ZERO,
        }
    }

    /// Mean time between a user's tokens after the first, as serving benchmarks
    /// define TPOT (`(latency - TTFT) / (output tokens - 1)`). A request holds its
    /// place for a round (Little's law: `running / request rate = R`), so its latency
    /// inside the engine is `R` and `TPOT = (R - TTFT) / (OSL - 1)`: whatever of the
    /// round is not before its first token lies between its tokens, so latency, TTFT
    /// and TPOT agree exactly. The prefills of the other prompts interrupt its
    /// generation and count; its own came before its first token. One sequence alone
    /// thus sees the bare iteration, whatever its prompt. Without prefill (a
    /// prefill/decode decode pool) or with one output token it is the iteration over
    /// the tokens it yields. A static batch (MODEL.md 6.1.1) prefills every prompt
    /// before any first token, so no prefill interrupts its generation: the bare
    /// iteration at any batch.
    pub fn tpot(&self) -> Seconds {
        match &self.prefill {
            Some(_) if self.scheduling.is_continuous() && self.osl > 1.0 => {
                ((self.duration() - self.steady_ttft()) / (self.osl - 1.0)).max(Seconds::ZERO)
            }
            _ => self.iteration / self.tokens_per_iteration,
        }
    }

    /// The TPOT of [`Round::tpot`] with its spread over requests (MODEL.md 6.1): of the
    /// round's prefill time, what is neither the request's own step nor the wait before
    /// it, `per_round - t_pf - W`, lands inside its generation on average, in steps of
    /// `t_pf / stages` ([`Interruptions::closed_loop`]). Without prefill here, in a
    /// static batch or with one output token nothing interrupts generation.
    pub fn tpot_model(&self) -> Tpot {
        let mean = self.tpot();
        match &self.prefill {
            Some(p) if self.scheduling.is_continuous() && self.osl > 1.0 => {
                let inside = (p.per_round() - self.steady_wait() - p.step).max(Seconds::ZERO);
                Tpot {
                    mean,
                    interruptions: Interruptions::closed_loop(
                        inside,
                        p.per_round(),
                        p.step / p.overlap,
                        self.osl - 1.0,
                    ),
                }
            }
            _ => Tpot::steady(mean),
        }
    }

    /// TTFT and TPOT of the request at the 0.9 quantile ([`Round::ttft_model`],
    /// [`Round::tpot_model`]), as a pool's figures carry them.
    pub fn p90s(&self) -> (Seconds, Seconds) {
        (
            self.ttft_model().quantile(0.9),
            self.tpot_model().quantile(0.9),
        )
    }

    /// Output tokens per second of `running` sequences over all replicas.
    pub fn output_tok_s(&self, running: u32) -> TokensPerSecond {
        TokensPerSecond::over(running as f64 * self.osl, self.duration())
    }

    /// Input tokens per second of `running` sequences of `isl`-token prompts.
    pub fn input_tok_s(&self, running: u32, isl: u32) -> TokensPerSecond {
        TokensPerSecond::over(running as f64 * isl as f64, self.duration())
    }

    /// Requests per second `running` sequences finish: each holds its place for a
    /// round.
    pub fn request_rate(&self, running: u32) -> RequestsPerSecond {
        RequestsPerSecond(running as f64 / self.duration().0)
    }

    /// Share of time a new request finds the replica's prefill steps busy: the
    /// round's prefill share as the other `s - 1` sequences leave it
    /// ([`seen_on_arrival`]).
    pub fn arrival_utilisation(&self) -> f64 {
        seen_on_arrival(self.prefill_share(), self.seqs)
    }

    /// The mean wait of a new prompt for the prefill steps ahead of it. In the steady
    /// closed loop the replica's sequences finish at staggered times (lengths vary,
    /// and even fixed ones drift apart by the chunk that prefilled them), so prompts
    /// arrive one by one and each waits in an M/D/1 queue at the share of time the
    /// prefill steps are busy as it finds them ([`prefill_queue`] at
    /// [`Round::arrival_utilisation`]). It never exceeds the prefills of all the
    /// replica's other prompts, `(s - 1) t_pf / p`, nor leaves the rest of the round
    /// less than the bare iterations, `R - W_adm - (OSL - 1) t_it / E - t_it - t_pf`.
    pub fn steady_wait(&self) -> Seconds {
        match &self.prefill {
            Some(p) if self.scheduling == Scheduling::Static => {
                (p.per_round() - p.step).max(Seconds::ZERO)
            }
            Some(p) => {
                let queue = prefill_queue(self.arrival_utilisation(), p.step);
                let others = p.per_request() * (self.seqs - 1.0).max(0.0);
                let room = self.duration()
                    - self.admitting()
                    - self.iteration * ((self.osl - 1.0).max(0.0) / self.tokens_per_iteration)
                    - self.iteration
                    - p.step;
                queue.min(others).min(room).max(Seconds::ZERO)
            }
            None => Seconds::ZERO,
        }
    }

    /// The mean wait of a prompt of the benchmark's first wave, which arrives with
    /// the replica's other `s - 1` prompts and waits for those prefilled before it
    /// ([`cohort_wait`]); zero without prefill or for a static batch, whose every
    /// prompt already waits for the whole batch.
    pub fn wave_wait(&self) -> Seconds {
        match &self.prefill {
            Some(p) if self.scheduling.is_continuous() => {
                cohort_wait(p.step, p.prompts_per_step, self.seqs)
            }
            _ => Seconds::ZERO,
        }
    }

    /// The mean wait for the prefill steps ahead over all the benchmark's requests:
    /// the steady loop's ([`Round::steady_wait`]) and, for the share `w` of them that
    /// is the first wave, the cohort's ([`Round::wave_wait`]):
    /// `W_ss + w (W_1 - W_ss)`.
    pub fn prefill_wait(&self) -> Seconds {
        let w = self.wave_share();
        let steady = self.steady_wait();
        if w > 0.0 {
            steady + (self.wave_wait() - steady) * w
        } else {
            steady
        }
    }

    /// The first wave's share where it applies (continuous refill with prefill here).
    pub(crate) fn wave_share(&self) -> f64 {
        match &self.prefill {
            Some(_) if self.scheduling.is_continuous() => self.first_wave.clamp(0.0, 1.0),
            _ => 0.0,
        }
    }

    /// Time to first token inside the engine (queueing aside), over all the
    /// benchmark's requests: the wait for the prefill steps ahead
    /// ([`Round::prefill_wait`]), the step that prefills the prompt and the
    /// iteration that yields the first token.
    pub fn ttft(&self) -> Seconds {
        match &self.prefill {
            Some(p) if self.scheduling == Scheduling::Static => self.iteration + p.per_round(),
            Some(p) => self.admitting() + self.prefill_wait() + p.step + self.iteration,
            None => self.iteration,
        }
    }

    /// TTFT of the steady closed loop alone, the one Little's law ties to TPOT.
    pub fn steady_ttft(&self) -> Seconds {
        Round {
            first_wave: 0.0,
            ..*self
        }
        .ttft()
    }

    /// The TTFT of [`Round::ttft`] split into its parts, with the spread of the wait
    /// for the prefill steps ahead (Kingman's exponential tail of the queue).
    pub fn ttft_model(&self) -> Ttft {
        match &self.prefill {
            // A static batch: every request waits for the batch's other prefill steps.
            Some(p) if self.scheduling == Scheduling::Static => {
                let wait = (p.per_round() - p.step).max(Seconds::ZERO);
                Ttft {
                    parts: TtftParts {
                        prefill_wait: wait,
                        prefill: p.step.min(p.per_round()),
                        first_step: self.iteration,
                        ..TtftParts::default()
                    },
                    wait: Wait::Fixed { wait },
                }
            }
            Some(p) => Ttft {
                parts: TtftParts {
                    queue: self.admitting(),
                    prefill_wait: self.prefill_wait(),
                    prefill: p.step,
                    first_step: self.iteration,
                    ..TtftParts::default()
                },
                wait: match self.wave_share() {
                    w if w > 0.0 => Wait::FirstWave {
                        share: w,
                        step: p.step,
                        prompts: p.prompts_per_step,
                        seqs: self.seqs,
                        mean: self.steady_wait(),
                        utilisation: self.arrival_utilisation(),
                    },
                    _ => Wait::Poisson {
                        mean: self.steady_wait(),
                        utilisation: self.arrival_utilisation(),
                    },
                },
            },
            None => Ttft {
                parts: TtftParts {
                    first_step: self.iteration,
                    ..TtftParts::default()
                },
                wait: Wait::None,
            },
        }
    }

    /// Share of the round spent prefilling.
    pub fn prefill_share(&self) -> f64 {
        match &self.prefill {
            Some(p) => (p.per_round() / self.duration()).clamp(0.0, 1.0),
            None => 0.0,
        }
    }
}

/// How long a request waits for a slot when `concurrency` requests share an engine
/// that runs `running` at once and finishes `request_rate` per second: Little's law on
/// the `concurrency - running` waiting.
pub fn queue_wait(concurrency: u32, running: u32, request_rate: RequestsPerSecond) -> Seconds {
    let waiting = concurrency.saturating_sub(running) as f64;
    if waiting > 0.0 && request_rate.0 > 0.0 {
        Seconds(waiting / request_rate.0)
    } else {
        Seconds::ZERO
    }
}

/// Says that part of a fixed concurrency waits in the engine's queue.
pub fn queue_warning(concurrency: u32, running: u32, per_replica: f64) -> String {
    format!(
        "the engine runs at most {per_replica:.0} sequences per replica: {running} of {concurrency} requests run and {} wait in the queue, which TTFT includes",
        concurrency - running
    )
}

#[cfg(test)]
#[path = "round_tests.rs"]
mod tests;
