//! The round's figures opened into explain chains (`Round::explain`): the round, TTFT
//! (with a first wave and an admission wait where there are), TPOT and the token rates.

use super::round::Round;
use crate::explain::{diff, max, min, num, product, quotient, sum, var, Chain, Source};
use crate::units::Seconds;

/// The symbol of the steady loop's TTFT: the engine's TTFT itself unless a first
/// wave is mixed in (MODEL.md 6.1.2).
fn steady_symbol(first_wave: f64) -> &'static str {
    if first_wave > 0.0 {
        "TTFT_ss"
    } else {
        "TTFT_engine"
    }
}

/// The steady loop's TTFT chain inside `ttft`: `ttft` itself, or the one it derives
/// from when a first wave is mixed in.
fn steady_ttft_chain(ttft: &Chain) -> Chain {
    ttft.walk()
        .into_iter()
        .find(|c| c.symbol == "TTFT_ss")
        .cloned()
        .unwrap_or_else(|| ttft.clone())
}

impl Round {
    /// `W_adm`, the admission wait, as a term of the round and of TTFT where there is
    /// one (MODEL.md 6.1.3).
    fn admission_term(&self) -> Option<crate::explain::Expr> {
        (self.admitting() > Seconds::ZERO).then(|| var("W_adm"))
    }

    /// `c` with the admission wait as its input `W_adm`, where there is one.
    fn with_admission(&self, c: Chain) -> Chain {
        if self.admitting() > Seconds::ZERO {
            c.input(
                "W_adm",
                "wait for the scheduler to take the request in: (k - 1) / 2 decode steps at k steps between its polls, for the (s - 1) / s of requests that find it busy",
                self.admitting().value(),
                "s",
                Source::rule("the pool's scheduler_recv_interval k (SGLang --scheduler-recv-interval)"),
            )
        } else {
            c
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
                let round = with_e(osl(Chain::new(
                    if self.scheduling.is_continuous() {
                        "one round of a replica: its generation iterations and the prefill chunks of the prompts that replace its finished sequences"
                    } else {
                        "one static batch of a replica: the prefill chunks of all its prompts, then its generation iterations"
                    },
                    "R",
                    "s",
                    "6.1",
                    sum(
                        [generating, quotient(product([var("t_pf"), var("n_pf")]), var("o"))]
                            .into_iter()
                            .chain(self.admission_term()),
                    ),
                    self.duration().value(),
                )))
                .derived("one generation iteration", iteration.clone())
                .derived("one prefill step", step.clone())
                .input("n_pf", "steps per round that carry a prefill chunk", p.steps, "steps", steps_source)
                .derived("prefill chunks in flight at once", overlap);
                self.with_admission(round)
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
                    - self.admitting()
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
                    self.steady_wait().value(),
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
                    Source::rule("R - W_adm - (OSL - 1) t_it / E - t_it - t_pf"),
                );
                let w = self.wave_share();
                let steady = Chain::new(
                    if w > 0.0 {
                        "TTFT of the steady loop"
                    } else {
                        "TTFT inside the engine"
                    },
                    steady_symbol(w),
                    "s",
                    "6.1",
                    sum([var("W_q"), var("t_pf"), var("t_it")]
                        .into_iter()
                        .chain(self.admission_term())),
                    self.steady_ttft().value(),
                )
                .derived("wait for the prefill steps ahead", wait)
                .derived("one prefill step", step.clone())
                .derived(
                    "the iteration that yields the first token",
                    iteration.clone(),
                );
                let steady = self.with_admission(steady);
                if w > 0.0 {
                    Chain::new(
                        "TTFT inside the engine, over the benchmark's prompts (its first wave and the steady loop)",
                        "TTFT_engine",
                        "s",
                        "6.1.2",
                        sum([
                            var("TTFT_ss"),
                            product([var("w"), diff(var("W_1"), var("W_q"))]),
                        ]),
                        self.ttft().value(),
                    )
                    .derived("TTFT of the steady loop", steady)
                    .input(
                        "W_1",
                        "mean wait of a first-wave prompt for the prompts prefilled before it: t_pf / p * mean over k = 1..s of max(k, p), less t_pf",
                        self.wave_wait().value(),
                        "s",
                        Source::rule("a cohort of s prompts, p to a prefill step"),
                    )
                    .input(
                        "w",
                        "share of the requests in the benchmark's first wave",
                        w,
                        "1",
                        Source::workload("prompts, or prompts per user times the users"),
                    )
                    .input(
                        "W_q",
                        "the steady loop's wait for the prefill steps ahead",
                        self.steady_wait().value(),
                        "s",
                        Source::rule("the M/D/1 wait above"),
                    )
                } else {
                    steady
                }
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
                    quotient(
                        diff(var("R"), var(steady_symbol(self.wave_share()))),
                        diff(var("OSL"), num(1.0)),
                    ),
                ]),
                self.tpot().value(),
            ))
            .derived("the round", round.clone())
            .derived("TTFT of the steady loop", steady_ttft_chain(&ttft)),
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
