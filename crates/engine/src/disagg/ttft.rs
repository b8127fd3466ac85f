//! TTFT as serving benchmarks report it: the mean over requests, split into where the
//! time goes, and its spread (p50, p90). Each axis states its parts and how the wait
//! for the prefill steps ahead varies from request to request ([`Wait`]); the queue in
//! front of the engine is added where the deployment is evaluated (`queue_wait`). The
//! wait itself, in closed and open loops alike, is [`prefill_queue`] at the utilisation
//! a request finds ([`seen_on_arrival`]; `audit/MODEL.md` 6.1).
//!
//! Percentiles hold the queue and transfer at their means: only the wait behind other
//! prompts, the term that differs most between requests, is spread.

use crate::explain::{ln, max, num, product, quotient, sum, var, Chain, Source};
use crate::units::Seconds;
use serde::{Deserialize, Serialize};

/// Where one request's time to first token goes, on average.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TtftParts {
    /// Waiting for a place in the engine: requests beyond its batch limit, or beyond
    /// what a pool other than decode lets through (Little's law), and the wait for a
    /// scheduler that polls for new requests only every few steps ([`admission_wait`]).
    #[serde(rename = "queue_s")]
    pub queue: Seconds,
    /// Waiting behind the prefill of other prompts.
    #[serde(rename = "prefill_wait_s")]
    pub prefill_wait: Seconds,
    /// The step that prefills the request's own prompt.
    #[serde(rename = "prefill_s")]
    pub prefill: Seconds,
    /// The part of the KV cache's trip to the decode pool the request waits for.
    #[serde(rename = "transfer_s")]
    pub transfer: Seconds,
    /// The generation step the first token waits for.
    #[serde(rename = "first_step_s")]
    pub first_step: Seconds,
}

impl TtftParts {
    pub fn total(&self) -> Seconds {
        self.queue + self.prefill_wait + self.prefill + self.transfer + self.first_step
    }

    /// The parts by name, in the order a request lives them.
    pub fn named(&self) -> [(&'static str, Seconds); 5] {
        [
            ("queue", self.queue),
            ("waiting for other prompts", self.prefill_wait),
            ("own prefill", self.prefill),
            ("KV transfer", self.transfer),
            ("first step", self.first_step),
        ]
    }
}

/// How the wait behind other prompts differs between requests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Wait {
    /// Nobody waits behind another prompt.
    #[default]
    None,
    /// A cohort that arrives together, as a benchmark's first wave does: `seqs`
    /// prompts prefilled `prompts` to a step of `step`, so the `k`-th waits
    /// `step / prompts * max(k, prompts) - step`, `k` uniform on `1..=seqs` (mean:
    /// `(seqs + 1) / 2` in place of `k`). The steady loop's wait is [`Wait::Poisson`].
    Cohort {
        step: Seconds,
        prompts: f64,
        seqs: f64,
    },
    /// Random (Poisson) arrivals in front of a server busy a share `utilisation` of the
    /// time, waiting `mean` on average: a share `utilisation` of requests waits, for
    /// an exponential time of mean `mean / utilisation` (Kingman's approximation of a
    /// single queue's wait; exact for M/M/1).
    Poisson { mean: Seconds, utilisation: f64 },
    /// Every request waits the same `wait`: a static batch prefills all its prompts
    /// before any first token (MODEL.md 6.1.1).
    Fixed { wait: Seconds },
    /// A benchmark of a fixed number of prompts (MODEL.md 6.1.2): a share `share` of
    /// them is its first wave, a [`Wait::Cohort`] of `seqs` prompts prefilled `prompts`
    /// to a step of `step`; the rest live the steady loop, [`Wait::Poisson`] of mean
    /// `mean` at `utilisation`. The spread is the mixture of the two.
    FirstWave {
        share: f64,
        step: Seconds,
        prompts: f64,
        seqs: f64,
        mean: Seconds,
        utilisation: f64,
    },
}

impl Wait {
    /// The wait of the request at quantile `q` (0 to 1) of all requests.
    pub fn quantile(&self, q: f64) -> Seconds {
        let q = q.clamp(0.0, 1.0);
        match *self {
            Wait::None => Seconds::ZERO,
            Wait::Cohort {
                step,
                prompts,
                seqs,
            } => {
                let k = (q * seqs).ceil().max(1.0);
                let per_prompt = step / prompts.max(1.0);
                (per_prompt * k.max(prompts) - step).max(Seconds::ZERO)
            }
            Wait::Fixed { wait } => wait,
            Wait::FirstWave {
                share,
                step,
                prompts,
                seqs,
                mean,
                utilisation,
            } => {
                let cohort = Wait::Cohort {
                    step,
                    prompts,
                    seqs,
                };
                let steady = Wait::Poisson { mean, utilisation };
                mixture_quantile(share.clamp(0.0, 1.0), &cohort, &steady, q)
            }
            Wait::Poisson { mean, utilisation } => {
                let u = utilisation.clamp(0.0, 1.0);
                if u <= 0.0 || q <= 1.0 - u || q >= 1.0 {
                    Seconds::ZERO
                } else {
                    mean * ((u / (1.0 - q)).ln() / u)
                }
            }
        }
    }
}

/// The share of `P(W <= w)` of a [`Wait::Cohort`] or [`Wait::Poisson`] wait; the
/// cohort's `k`-th prompt waits at most `w` when `k <= (w + step) prompts / step`.
fn cdf(wait: &Wait, w: Seconds) -> f64 {
    if w.0 < 0.0 {
        return 0.0;
    }
    match *wait {
        Wait::Cohort {
            step,
            prompts,
            seqs,
        } if step.0 > 0.0 && seqs > 0.0 => {
            let p = prompts.max(1.0);
            (((w.0 + step.0) * p / step.0).floor() / seqs).clamp(0.0, 1.0)
        }
        Wait::Poisson { mean, utilisation } if mean.0 > 0.0 => {
            let u = utilisation.clamp(0.0, 1.0);
            if u <= 0.0 {
                1.0
            } else {
                1.0 - u * (-w.0 * u / mean.0).exp()
            }
        }
        _ => 1.0,
    }
}

/// The wait at quantile `q` of a mixture, a share `share` of `cohort` and the rest
/// `steady`: the smallest `w` with `share F_c(w) + (1 - share) F_s(w) >= q`, found by
/// bisection between zero and the larger of the two quantiles (the mixture's CDF lies
/// between its parts', so its quantile between theirs).
fn mixture_quantile(share: f64, cohort: &Wait, steady: &Wait, q: f64) -> Seconds {
    let f = |w: Seconds| share * cdf(cohort, w) + (1.0 - share) * cdf(steady, w);
    let mut hi = cohort.quantile(q).max(steady.quantile(q));
    if f(Seconds::ZERO) >= q {
        return Seconds::ZERO;
    }
    let mut lo = Seconds::ZERO;
    for _ in 0..64 {
        let mid = (lo + hi) * 0.5;
        if f(mid) >= q {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

/// The mean wait of a [`Wait::Cohort`] of `seqs` prompts (rounded to whole prompts,
/// at least one) prefilled `prompts` to a step of `step`: the `k`-th waits
/// `step / prompts * max(k, prompts) - step`, and with `m = min(floor(prompts), seqs)`
/// the sum over `k` of `max(k, prompts)` is `m prompts + (seqs (seqs + 1) - m (m + 1)) / 2`.
pub fn cohort_wait(step: Seconds, prompts: f64, seqs: f64) -> Seconds {
    let s = seqs.round().max(1.0);
    let p = prompts.max(1.0);
    let m = p.floor().min(s);
    let sum = m * p + (s * (s + 1.0) - m * (m + 1.0)) / 2.0;
    (step / p * (sum / s) - step).max(Seconds::ZERO)
}

/// The share of a benchmark's requests that belong to its first wave: of `prompts`
/// requests sent at a concurrency that runs `running` at once, the first `running`
/// arrive together (MODEL.md 6.1.2). `None`: the steady loop only.
pub fn first_wave_share(prompts: Option<u32>, running: u32) -> f64 {
    match prompts {
        Some(n) if n > 0 => (running.min(n) as f64 / n as f64).clamp(0.0, 1.0),
        _ => 0.0,
    }
}

/// The mean wait of a new request for the scheduler to take it in, when it polls for
/// new requests every `interval` decode steps of `iteration` instead of every step
/// (MODEL.md 6.1.3): a request arriving at random while the other `population - 1`
/// requests keep the engine decoding waits the rest of a poll period, `interval
/// iteration / 2` on average, of which the residual of the step in flight, `iteration /
/// 2`, is not modelled at the default of one, so `(interval - 1) iteration / 2`, times
/// the share `(n - 1) / n` of arrivals that find the engine busy (one user alone is
/// polled for at once by an idle scheduler).
pub fn admission_wait(interval: u32, iteration: Seconds, population: f64) -> Seconds {
    let n = population.max(1.0);
    iteration * ((interval.max(1) - 1) as f64 / 2.0 * (n - 1.0) / n)
}

/// The mean wait in front of prefill steps of `step` that are busy a share
/// `utilisation` of the time, for requests arriving at random: an M/D/1 queue,
/// `u step / (2 (1 - u))` (Pollaczek-Khinchine with a fixed service time), `u` held
/// below 0.999 so the figure stays finite. The one formula for that wait: a closed
/// loop's (its many users' arrivals are near Poisson, `audit/MODEL.md` 6.1) and an
/// open loop's (`open_loop.rs`).
pub fn prefill_queue(utilisation: f64, step: Seconds) -> Seconds {
    let u = utilisation.clamp(0.0, 0.999);
    step * (u / (2.0 * (1.0 - u)))
}

/// The share of time a request of a closed loop of `population` requests finds the
/// prefill steps busy, when they are busy `utilisation` of the time: by the arrival
/// theorem of closed queueing networks an arriving request sees the steady state of
/// the loop without itself, `u (n - 1) / n`. One user alone never waits for a prompt.
pub fn seen_on_arrival(utilisation: f64, population: f64) -> f64 {
    let n = population.max(1.0);
    (utilisation * (n - 1.0) / n).clamp(0.0, 1.0)
}

/// One deployment's TTFT: its mean parts and its spread.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(into = "TtftReport", from = "TtftReport")]
pub struct Ttft {
    pub parts: TtftParts,
    pub wait: Wait,
}

impl Ttft {
    pub fn mean(&self) -> Seconds {
        self.parts.total()
    }

    /// TTFT of the request at quantile `q`: the mean with the wait behind other
    /// prompts taken at that quantile instead of its mean.
    pub fn quantile(&self, q: f64) -> Seconds {
        let p = TtftParts {
            prefill_wait: self.wait.quantile(q),
            ..self.parts
        };
        p.total()
    }

    /// The same TTFT with `extra` more queueing in front of the engine.
    pub fn queued(self, extra: Seconds) -> Ttft {
        Ttft {
            parts: TtftParts {
                queue: self.parts.queue + extra,
                ..self.parts
            },
            ..self
        }
    }

    pub fn report(&self) -> TtftReport {
        TtftReport {
            mean_s: self.mean().0,
            p50_s: self.quantile(0.5).0,
            p90_s: self.quantile(0.9).0,
            parts: self.parts,
            wait: self.wait,
        }
    }
}

impl From<Ttft> for TtftReport {
    fn from(t: Ttft) -> TtftReport {
        t.report()
    }
}

impl From<TtftReport> for Ttft {
    fn from(r: TtftReport) -> Ttft {
        Ttft {
            parts: r.parts,
            wait: r.wait,
        }
    }
}

impl Ttft {
    /// TTFT's p90 as a chain (MODEL.md 6.1): the mean's parts with the wait behind other
    /// prompts at its 0.9 quantile, `TTFT_90 = t_queue + W_90 + t_pf + t_xfer + t_1`. The
    /// wait opens as Kingman's exponential tail, `max(0, W / u_a ln(u_a / (1 - 0.9)))`,
    /// where requests arrive near Poisson; a static batch's is its mean; a benchmark's
    /// first wave mixed with the steady loop is a bisection of the mixture's
    /// distribution, stated with its inputs.
    pub(crate) fn p90_chain(&self) -> Chain {
        let q = 0.9;
        let w90 = self.wait.quantile(q);
        let wait = match self.wait {
            Wait::Poisson { mean, utilisation } if utilisation > 0.0 && mean.0 > 0.0 => {
                Chain::new(
                    "p90 wait for the prefill steps ahead (Kingman's exponential tail)",
                    "W_90",
                    "s",
                    "6.1",
                    max([
                        num(0.0),
                        product([
                            quotient(var("W"), var("u_a")),
                            ln(quotient(var("u_a"), num(0.1))),
                        ]),
                    ]),
                    w90.0,
                )
                .input(
                    "W",
                    "mean wait for the prefill steps ahead",
                    mean.0,
                    "s",
                    Source::rule("M/D/1 at the share of time a request finds them busy (MODEL.md 6.1)"),
                )
                .input(
                    "u_a",
                    "share of time a request finds the prefill steps busy",
                    utilisation,
                    "1",
                    Source::rule("the prefill share as the other requests leave it (MODEL.md 6.1)"),
                )
            }
            other => Chain::new(
                "p90 wait for the prefill steps ahead",
                "W_90",
                "s",
                "6.1",
                var("w"),
                w90.0,
            )
            .input(
                "w",
                "the wait of the request at the 0.9 quantile",
                w90.0,
                "s",
                Source::rule(match other {
                    Wait::FirstWave { .. } => {
                        "the benchmark's first wave (a cohort, each prompt behind those prefilled before it) mixed with the steady loop's exponential tail, the mixture's distribution bisected at 0.9 (MODEL.md 6.1.2)"
                    }
                    Wait::Cohort { .. } => {
                        "a cohort arriving together: the prompt at the 0.9 quantile waits for the steps of those before it (MODEL.md 6.1.2)"
                    }
                    Wait::Fixed { .. } => {
                        "a static batch: every request waits for the batch's other prefill steps (MODEL.md 6.1.1)"
                    }
                    _ => "nobody waits behind another prompt",
                }),
            ),
        };
        let p = self.parts;
        Chain::new(
            "p90 TTFT",
            "TTFT_90",
            "s",
            "6.1",
            sum([
                var("t_queue"),
                var("W_90"),
                var("t_pf"),
                var("t_xfer"),
                var("t_1"),
            ]),
            self.quantile(q).0,
        )
        .input(
            "t_queue",
            "queued in front of the engine",
            p.queue.0,
            "s",
            Source::rule("Little's law on the requests the engine or a pool other than decode holds back, and the scheduler's poll (MODEL.md 6.1, 6.3)"),
        )
        .derived("p90 wait for the prefill steps ahead", wait)
        .input(
            "t_pf",
            "own prefill",
            p.prefill.0,
            "s",
            Source::rule("the step that prefills the request's prompt"),
        )
        .input(
            "t_xfer",
            "KV transfer the request waits for",
            p.transfer.0,
            "s",
            Source::rule("the exposed part of the KV cache's trip (MODEL.md 6.3; 0 on one pool)"),
        )
        .input(
            "t_1",
            "first step",
            p.first_step.0,
            "s",
            Source::rule("the generation step the first token waits for"),
        )
    }
}

/// TTFT as the JSON states it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TtftReport {
    pub mean_s: f64,
    pub p50_s: f64,
    pub p90_s: f64,
    pub parts: TtftParts,
    /// How the wait behind other prompts spreads over requests.
    pub wait: Wait,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cohorts_waits_run_from_none_to_all_the_others_prompts() {
        // 8 prompts, 2 to a 40 ms step: the k-th waits 20 ms * max(k, 2) - 40 ms.
        let w = Wait::Cohort {
            step: Seconds(0.040),
            prompts: 2.0,
            seqs: 8.0,
        };
        assert_eq!(w.quantile(0.0), Seconds::ZERO);
        assert!((w.quantile(0.5).0 - (0.020 * 4.0 - 0.040)).abs() < 1e-15);
        assert!((w.quantile(0.9).0 - (0.020 * 8.0 - 0.040)).abs() < 1e-15);
        assert!((w.quantile(1.0).0 - 0.120).abs() < 1e-15);
    }

    #[test]
    fn the_prefill_queue_follows_pollaczek_khinchine_and_the_arrival_theorem() {
        // u = 0.5, 200 ms steps: 0.5 * 0.2 / (2 * 0.5) = 100 ms.
        assert!((prefill_queue(0.5, Seconds(0.2)).0 - 0.1).abs() < 1e-15);
        assert_eq!(prefill_queue(0.0, Seconds(0.2)), Seconds::ZERO);
        assert!(prefill_queue(1.0, Seconds(0.2)).0.is_finite());
        // One user alone never finds another prompt in flight; of four, three others.
        assert_eq!(seen_on_arrival(0.6, 1.0), 0.0);
        assert!((seen_on_arrival(0.6, 4.0) - 0.45).abs() < 1e-15);
    }

    #[test]
    fn the_p90_chain_recomputes_kingmans_tail_and_states_a_mixtures_quantile() {
        let parts = TtftParts {
            queue: Seconds(0.05),
            prefill: Seconds(0.2),
            first_step: Seconds(0.01),
            ..TtftParts::default()
        };
        // Near-Poisson arrivals, W = 100 ms at u_a = 0.5: W_90 = 0.2 ln 5.
        let poisson = Ttft {
            parts: TtftParts {
                prefill_wait: Seconds(0.1),
                ..parts
            },
            wait: Wait::Poisson {
                mean: Seconds(0.1),
                utilisation: 0.5,
            },
        };
        let c = poisson.p90_chain();
        assert!((c.value - (0.05 + 0.2 * 5f64.ln() + 0.2 + 0.01)).abs() < 1e-12);
        assert_eq!(c.value, poisson.quantile(0.9).0);
        for chain in c.walk() {
            assert!((chain.recompute().unwrap() - chain.value).abs() < 1e-12);
        }
        // A first wave mixed in: the quantile the bisection finds, stated as an input.
        let mixed = Ttft {
            wait: Wait::FirstWave {
                share: 0.1,
                step: Seconds(0.2),
                prompts: 2.0,
                seqs: 8.0,
                mean: Seconds(0.1),
                utilisation: 0.5,
            },
            ..poisson
        };
        let c = mixed.p90_chain();
        assert_eq!(c.value, mixed.quantile(0.9).0);
        assert!((c.recompute().unwrap() - c.value).abs() < 1e-12);
    }

    #[test]
    fn the_parts_add_up_and_percentiles_keep_the_queue() {
        let t = Ttft {
            parts: TtftParts {
                queue: Seconds(1.0),
                prefill_wait: Seconds(0.05),
                prefill: Seconds(0.1),
                transfer: Seconds(0.01),
                first_step: Seconds(0.02),
            },
            wait: Wait::Poisson {
                mean: Seconds(0.05),
                utilisation: 0.5,
            },
        };
        assert!((t.mean().0 - 1.18).abs() < 1e-12);
        // p90: half the requests wait, an exponential time of mean 100 ms.
        let p90 = 0.1 * (0.5f64 / 0.1).ln();
        assert!((t.quantile(0.9).0 - (1.0 + p90 + 0.1 + 0.01 + 0.02)).abs() < 1e-12);
        let r = t.queued(Seconds(2.0)).report();
        assert!((r.mean_s - 3.18).abs() < 1e-12 && r.p50_s <= r.p90_s);
    }

    #[test]
    fn a_cohorts_mean_wait_is_the_mean_of_its_prompts_waits() {
        // 8 prompts, 2 to a 40 ms step: waits 0, 0, 20, 40, ..., 120 ms; mean 52.5 ms.
        assert!((cohort_wait(Seconds(0.040), 2.0, 8.0).0 - 0.0525).abs() < 1e-15);
        // Against the sum over k of the quantile formula, for uneven shares too.
        for (p, n) in [(1.0, 5.0), (2.5, 7.0), (9.0, 4.0), (3.0, 3.0)] {
            let step = Seconds(0.1);
            let brute: f64 = (1..=n as u32)
                .map(|k| (step.0 / p * (k as f64).max(p) - step.0).max(0.0))
                .sum::<f64>()
                / n;
            assert!((cohort_wait(step, p, n).0 - brute).abs() < 1e-12, "{p} {n}");
        }
    }

    #[test]
    fn a_first_wave_is_its_share_of_the_prompts_and_mixes_the_two_spreads() {
        assert_eq!(first_wave_share(None, 64), 0.0);
        assert!((first_wave_share(Some(640), 64) - 0.1).abs() < 1e-15);
        assert_eq!(first_wave_share(Some(10), 64), 1.0);
        let (step, prompts, seqs) = (Seconds(0.04), 2.0, 8.0);
        let (mean, utilisation) = (Seconds(0.05), 0.5);
        let mix = |share| Wait::FirstWave {
            share,
            step,
            prompts,
            seqs,
            mean,
            utilisation,
        };
        let cohort = Wait::Cohort {
            step,
            prompts,
            seqs,
        };
        let steady = Wait::Poisson { mean, utilisation };
        for q in [0.3, 0.5, 0.7, 0.9, 0.99] {
            // The two ends are the parts themselves; between, the quantile lies
            // between theirs and grows with q.
            assert!((mix(0.0).quantile(q).0 - steady.quantile(q).0).abs() < 1e-9);
            assert!((mix(1.0).quantile(q).0 - cohort.quantile(q).0).abs() < 1e-9);
            let m = mix(0.3).quantile(q);
            let (a, b) = (cohort.quantile(q), steady.quantile(q));
            assert!(m >= a.min(b) - Seconds(1e-9) && m <= a.max(b) + Seconds(1e-9));
            assert!(mix(0.3).quantile(q - 0.05) <= m);
        }
    }

    #[test]
    fn the_admission_wait_is_the_rest_of_a_poll_period() {
        // Polls every 30 steps of 20 ms, 32 users: (30 - 1) / 2 * 20 ms * 31 / 32.
        let w = admission_wait(30, Seconds(0.020), 32.0);
        assert!((w.0 - 14.5 * 0.020 * 31.0 / 32.0).abs() < 1e-15);
        // Every step (the default), or one user alone: no wait is added.
        assert_eq!(admission_wait(1, Seconds(0.020), 32.0), Seconds::ZERO);
        assert_eq!(admission_wait(30, Seconds(0.020), 1.0), Seconds::ZERO);
    }
}
