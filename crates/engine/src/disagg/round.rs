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

use super::ttft::{prefill_queue, seen_on_arrival, Ttft, TtftParts, Wait};
use crate::explain::{diff, max, min, num, product, quotient, sum, var, Chain, Source};
use crate::parallel::Parallelism;
use crate::serving::Scheduling;
use crate::units::{RequestsPerSecond, Seconds, TokensPerSecond};

/// The prefill steps of one generation round as a replica's expert group lives them.
///
/// Replicas that share an expert group (attention data parallelism over expert
/// parallelism) meet at every MoE layer, so a step lasts as long as its busiest
/// replica. Aligned, the group's replicas prefill their chunks in the same steps: `c`
/// steps per round, each carrying every replica's chunk. Unaligned, each replica places
/// its `c` chunk steps on its own schedule; taking the places as independent and
/// uniform over the round's `iterations + c` steps, the group sees a chunk in
/// `(iterations + c) * (1 - (1 - c / (iterations + c))^n)` of them, each carrying the
/// chunks of `n * c / steps` replicas on average, and every other replica waits for them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GroupPrefill {
    /// Steps per round that carry a prefill chunk.
    pub steps: f64,
    /// Replicas whose chunks each of those steps carries, on average.
    pub replicas: f64,
}

impl GroupPrefill {
    /// `chunks` prefill chunks per replica and round, `iterations` generation steps
    /// per round, `group` replicas per expert group.
    pub fn of_round(chunks: f64, iterations: f64, group: u32, aligned: bool) -> GroupPrefill {
        let n = group.max(1) as f64;
        let steps = iterations.max(0.0) + chunks;
        if n <= 1.0 || aligned || chunks <= 0.0 || steps <= 0.0 {
            return GroupPrefill {
                steps: chunks.max(0.0),
                replicas: n,
            };
        }
        let share = chunks / steps;
        let with_chunk = steps * (1.0 - (1.0 - share).powf(n));
        GroupPrefill {
            steps: with_chunk,
            replicas: (n * chunks / with_chunk).clamp(1.0, n),
        }
    }
}

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
            Some(p) => generating + p.per_round(),
            None => generating,
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
                ((self.duration() - self.ttft()) / (self.osl - 1.0)).max(Seconds::ZERO)
            }
            _ => self.iteration / self.tokens_per_iteration,
        }
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
    /// less than the bare iterations, `R - (OSL - 1) t_it / E - t_it - t_pf`.
    pub fn prefill_wait(&self) -> Seconds {
        match &self.prefill {
            Some(p) if self.scheduling == Scheduling::Static => {
                (p.per_round() - p.step).max(Seconds::ZERO)
            }
            Some(p) => {
                let queue = prefill_queue(self.arrival_utilisation(), p.step);
                let others = p.per_request() * (self.seqs - 1.0).max(0.0);
                let room = self.duration()
                    - self.iteration * ((self.osl - 1.0).max(0.0) / self.tokens_per_iteration)
                    - self.iteration
                    - p.step;
                queue.min(others).min(room).max(Seconds::ZERO)
            }
            None => Seconds::ZERO,
        }
    }

    /// Time to first token inside the engine (queueing aside): the wait for the
    /// prefill steps ahead ([`Round::prefill_wait`]), the step that prefills the
    /// prompt and the iteration that yields the first token.
    pub fn ttft(&self) -> Seconds {
        match &self.prefill {
            Some(p) if self.scheduling == Scheduling::Static => self.iteration + p.per_round(),
            Some(p) => self.prefill_wait() + p.step + self.iteration,
            None => self.iteration,
        }
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
                    prefill_wait: self.prefill_wait(),
                    prefill: p.step,
                    first_step: self.iteration,
                    ..TtftParts::default()
                },
                wait: Wait::Poisson {
                    mean: self.prefill_wait(),
                    utilisation: self.arrival_utilisation(),
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

/// The round's figures opened into chains ([`Round::explain`]).
#[derive(Clone, Debug)]
pub struct RoundChains {
    pub ttft: Chain,
    pub tpot: Chain,
    pub output: Chain,
    pub input: Chain,
}

impl Round {
    /// The round's TTFT, TPOT and token rates as chains, `running` sequences of
    /// `isl`-token prompts over `replicas` replicas of `stages` pipeline stages; the
    /// iteration and the prefill step (symbols `t_it` and `t_pf`) come as chains of
    /// their own.
    pub fn explain(
        &self,
        running: u32,
        isl: u32,
        stages: u32,
        iteration: Chain,
        prefill_step: Option<Chain>,
    ) -> RoundChains {
        let speculates = self.tokens_per_iteration != 1.0;
        let e = || Source::rule("expected tokens per speculation cycle, (1 - a^(K+1)) / (1 - a)");
        let osl = |c: Chain| c.with_osl(self.osl);
        let with_e = |c: Chain| match speculates {
            true => c.input(
                "E",
                "tokens one iteration yields per sequence",
                self.tokens_per_iteration,
                "tokens",
                e(),
            ),
            false => c,
        };
        let per_iteration = if speculates {
            quotient(var("OSL"), var("E"))
        } else {
            var("OSL")
        };
        let generating = product([per_iteration, var("t_it")]);
        let round = match (&self.prefill, &prefill_step) {
            (Some(p), Some(step)) => {
                let chunks = self.seqs / p.prompts_per_step;
                let steps_source = if p.steps == chunks {
                    Source::rule("one prefill step per chunk: s / p")
                } else {
                    Source::rule("replicas of an expert group wait for each other's chunks (MODEL.md §6.1, GroupPrefill)")
                };
                let overlap = Chain::new(
                    "prefill chunks in flight at once",
                    "o",
                    "chunks",
                    "6.1",
                    max([num(1.0), min([var("PP"), quotient(var("s"), var("p"))])]),
                    p.overlap,
                )
                .input(
                    "PP",
                    "pipeline stages",
                    stages as f64,
                    "stages",
                    Source::deployment("layout"),
                )
                .input(
                    "s",
                    "sequences per replica",
                    self.seqs,
                    "sequences",
                    Source::deployment("batch over replicas"),
                )
                .input(
                    "p",
                    "prompts per prefill step",
                    p.prompts_per_step,
                    "prompts",
                    Source::rule("chunk budget / uncached prompt tokens, at most s"),
                );
                with_e(osl(Chain::new(
                    if self.scheduling.is_continuous() {
                        "one round of a replica: its generation iterations and the prefill chunks of the prompts that replace its finished sequences"
                    } else {
                        "one static batch of a replica: the prefill chunks of all its prompts, then its generation iterations"
                    },
                    "R",
                    "s",
                    "6.1",
                    sum([generating, quotient(product([var("t_pf"), var("n_pf")]), var("o"))]),
                    self.duration().value(),
                )))
                .derived("one generation iteration", iteration.clone())
                .derived("one prefill step", step.clone())
                .input("n_pf", "steps per round that carry a prefill chunk", p.steps, "steps", steps_source)
                .derived("prefill chunks in flight at once", overlap)
            }
            _ => with_e(osl(Chain::new(
                "one round of a replica: its generation iterations",
                "R",
                "s",
                "6.1",
                generating,
                self.duration().value(),
            )))
            .derived("one generation iteration", iteration.clone()),
        };
        let continuous = self.scheduling.is_continuous();
        let ttft = match (&self.prefill, &prefill_step) {
            // A static batch: all its prefill steps, then the first iteration.
            (Some(p), Some(step)) if !continuous => Chain::new(
                "TTFT inside the engine (a static batch: every prompt prefilled first)",
                "TTFT_engine",
                "s",
                "6.1.1",
                sum([
                    var("t_it"),
                    quotient(product([var("t_pf"), var("n_pf")]), var("o")),
                ]),
                self.ttft().value(),
            )
            .derived("the first iteration", iteration.clone())
            .derived("one prefill step", step.clone())
            .input(
                "n_pf",
                "prefill steps of the batch's prompts",
                p.steps,
                "steps",
                Source::rule("one prefill step per chunk: s / p"),
            )
            .input(
                "o",
                "prefill chunks in flight at once",
                p.overlap,
                "chunks",
                Source::rule("max(1, min(PP, s / p))"),
            ),
            (Some(p), Some(step)) => {
                let u = Chain::new(
                    "share of time a new request finds the prefill steps busy",
                    "u_a",
                    "1",
                    "6.1",
                    quotient(product([var("u"), diff(var("s"), num(1.0))]), var("s")),
                    self.arrival_utilisation(),
                )
                .input(
                    "u",
                    "share of the round spent prefilling",
                    self.prefill_share(),
                    "1",
                    Source::rule("t_pf n_pf / o over R"),
                )
                .input(
                    "s",
                    "sequences per replica",
                    self.seqs,
                    "sequences",
                    Source::deployment("batch over replicas"),
                );
                let room = self.duration()
                    - self.iteration * ((self.osl - 1.0).max(0.0) / self.tokens_per_iteration)
                    - self.iteration
                    - p.step;
                let wait = Chain::new(
                    "wait for the prefill steps ahead: an M/D/1 queue at the share the request finds busy, at most every other prompt of the replica",
                    "W_q",
                    "s",
                    "6.1",
                    max([
                        num(0.0),
                        min([
                            quotient(
                                product([var("u_a"), var("t_pf")]),
                                product([num(2.0), diff(num(1.0), min([var("u_a"), num(0.999)]))]),
                            ),
                            product([diff(var("s"), num(1.0)), quotient(var("t_pf"), var("p"))]),
                            var("room"),
                        ]),
                    ]),
                    self.prefill_wait().value(),
                )
                .derived("share of time a new request finds the prefill steps busy", u)
                .derived("one prefill step", step.clone())
                .input(
                    "s",
                    "sequences per replica",
                    self.seqs,
                    "sequences",
                    Source::deployment("batch over replicas"),
                )
                .input(
                    "p",
                    "prompts per prefill step",
                    p.prompts_per_step,
                    "prompts",
                    Source::rule("chunk budget / uncached prompt tokens, at most s"),
                )
                .input(
                    "room",
                    "the round less the bare iterations and the own prefill step",
                    room.value(),
                    "s",
                    Source::rule("R - (OSL - 1) t_it / E - t_it - t_pf"),
                );
                Chain::new(
                    "TTFT inside the engine",
                    "TTFT_engine",
                    "s",
                    "6.1",
                    sum([var("W_q"), var("t_pf"), var("t_it")]),
                    self.ttft().value(),
                )
                .derived("wait for the prefill steps ahead", wait)
                .derived("one prefill step", step.clone())
                .derived(
                    "the iteration that yields the first token",
                    iteration.clone(),
                )
            }
            _ => Chain::new(
                "TTFT inside the engine",
                "TTFT_engine",
                "s",
                "6.1",
                var("t_it"),
                self.ttft().value(),
            )
            .derived("the iteration in flight", iteration.clone()),
        };
        let tpot = match (&self.prefill, &prefill_step) {
            (Some(_), Some(_)) if continuous && self.osl > 1.0 => osl(Chain::new(
                "TPOT, the time per output token after the first: the round (a request's latency inside the engine, by Little's law) less its TTFT, over the tokens after the first",
                "TPOT",
                "s",
                "6.1",
                max([
                    num(0.0),
                    quotient(diff(var("R"), var("TTFT_engine")), diff(var("OSL"), num(1.0))),
                ]),
                self.tpot().value(),
            ))
            .derived("the round", round.clone())
            .derived("TTFT inside the engine", ttft.clone()),
            _ if speculates => with_e(Chain::new(
                "TPOT",
                "TPOT",
                "s",
                "6.1",
                quotient(var("t_it"), var("E")),
                self.tpot().value(),
            ))
            .derived("one generation iteration", iteration.clone()),
            _ => Chain::new("TPOT", "TPOT", "s", "6.1", var("t_it"), self.tpot().value())
                .derived("one generation iteration", iteration.clone()),
        };
        let running_input = |c: Chain| {
            c.input(
                "B",
                "sequences running over all replicas",
                running as f64,
                "sequences",
                Source::workload("batch (concurrency, capped by the engine's limit)"),
            )
        };
        let output = osl(running_input(Chain::new(
            "output tok/s",
            "X_out",
            "tok/s",
            "6.1",
            quotient(product([var("B"), var("OSL")]), var("R")),
            self.output_tok_s(running).value(),
        )))
        .derived("the round", round.clone());
        let input = running_input(Chain::new(
            "input tok/s",
            "X_in",
            "tok/s",
            "6.1",
            quotient(product([var("B"), var("ISL")]), var("R")),
            self.input_tok_s(running, isl).value(),
        ))
        .with_isl(isl as f64)
        .derived("the round", round);
        RoundChains {
            ttft,
            tpot,
            output,
            input,
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
mod tests {
    use super::*;

    fn prefill(step: f64, prompts: f64, steps: f64) -> RoundPrefill {
        RoundPrefill {
            step: Seconds(step),
            prompts_per_step: prompts,
            steps,
            overlap: 1.0,
        }
    }

    #[test]
    fn a_round_is_its_iterations_plus_its_prefill_chunks() {
        // 8 sequences, 100 output tokens, a 10 ms decode step, prefill chunks of 2
        // prompts taking 40 ms: R = 100 * 10 + 4 * 40 = 1160 ms.
        let r = Round {
            iteration: Seconds(0.010),
            tokens_per_iteration: 1.0,
            seqs: 8.0,
            osl: 100.0,
            prefill: Some(prefill(0.040, 2.0, 4.0)),
            scheduling: Scheduling::Continuous,
        };
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
            iteration: Seconds(0.010),
            tokens_per_iteration: 1.0,
            seqs: 8.0,
            osl: 100.0,
            prefill: Some(prefill(0.040, 2.0, 4.0)),
            scheduling: Scheduling::Static,
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
}
