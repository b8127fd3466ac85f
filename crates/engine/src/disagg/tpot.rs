//! TPOT as serving benchmarks report it: the mean over requests and its spread (p50,
//! p90). A request's TPOT is its time from first to last token over its tokens after the
//! first (`audit/MODEL.md` 6.1); the mean is the round's. What differs between
//! requests is how many prefill steps of other prompts land inside a request's
//! generation ([`Interruptions`]): each lengthens the request's decode time by one
//! step, spread over its `OSL - 1` intervals.
//!
//! The count is binomial in the closed loop (each of the other prefill steps of a
//! round falls inside the request's generation, at a phase independent of it, with the
//! probability that makes the mean the round's) and Poisson in the open loop (arrivals
//! at random). Percentiles take the count's normal approximation, held between no
//! interruption and every other step. Where nothing interrupts generation (a decode pool
//! that never prefills, a static batch, one sequence alone) every request's TPOT is the
//! mean.

use crate::explain::{diff, max, min, num, power, product, quotient, sum, var, Chain, Source};
use crate::units::Seconds;
use serde::{Deserialize, Serialize};

/// How many prefill steps of other prompts interrupt one request's generation, and
/// what each costs its TPOT.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Interruptions {
    /// Nothing interrupts generation: every request's TPOT is the mean.
    #[default]
    None,
    /// The closed loop: each of the round's `others` prefill steps (all but the one
    /// carrying the request's own prompt) lands inside the request's generation with
    /// probability `share`, independently, and takes `step` off it; the request spreads
    /// that over `tokens` intervals (`OSL - 1`). The count is binomial.
    Binomial {
        others: f64,
        share: f64,
        #[serde(rename = "step_s")]
        step: Seconds,
        tokens: f64,
    },
    /// The open loop: prompts arrive at random, so the count of steps inside a
    /// request's generation is Poisson with mean `mean`.
    Poisson {
        mean: f64,
        #[serde(rename = "step_s")]
        step: Seconds,
        tokens: f64,
    },
}

impl Interruptions {
    /// The closed loop's count for a request whose generation holds `inside` of the
    /// round's prefill time on average, the round holding `per_round` of steps of
    /// `step` each: `inside / step` of the `per_round / step - 1` other steps.
    pub fn closed_loop(inside: Seconds, per_round: Seconds, step: Seconds, tokens: f64) -> Self {
        if !(step.0 > 0.0 && tokens > 0.0 && inside.0 > 0.0) {
            return Interruptions::None;
        }
        let mean = inside / step;
        let others = (per_round / step - 1.0).max(mean);
        Interruptions::Binomial {
            others,
            share: (mean / others).clamp(0.0, 1.0),
            step,
            tokens,
        }
    }

    /// The same mean count with prompts arriving at random (the open loop).
    pub fn at_random(self) -> Self {
        match self {
            Interruptions::Binomial {
                others,
                share,
                step,
                tokens,
            } => Interruptions::Poisson {
                mean: others * share,
                step,
                tokens,
            },
            other => other,
        }
    }

    /// The count's mean, its standard deviation and its largest value.
    fn count(&self) -> (f64, f64, f64) {
        match *self {
            Interruptions::None => (0.0, 0.0, 0.0),
            Interruptions::Binomial { others, share, .. } => {
                let mean = others * share;
                (mean, (mean * (1.0 - share)).max(0.0).sqrt(), others)
            }
            Interruptions::Poisson { mean, .. } => (mean, mean.max(0.0).sqrt(), f64::INFINITY),
        }
    }

    /// What one interruption adds to a request's TPOT: one step over its intervals.
    fn each(&self) -> Seconds {
        match *self {
            Interruptions::None => Seconds::ZERO,
            Interruptions::Binomial { step, tokens, .. }
            | Interruptions::Poisson { step, tokens, .. } => step / tokens.max(1.0),
        }
    }
}

/// One deployment's TPOT: its mean (the figures' TPOT) and its spread over requests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(into = "TpotReport", from = "TpotReport")]
pub struct Tpot {
    pub mean: Seconds,
    pub interruptions: Interruptions,
}

impl Tpot {
    /// Every request at the same TPOT.
    pub fn steady(mean: Seconds) -> Tpot {
        Tpot {
            mean,
            interruptions: Interruptions::None,
        }
    }

    /// TPOT of the request at quantile `q` (0 to 1) of all requests: the mean moved by
    /// the count's deviation at `q` (normal approximation), `mean + z_q sd t / (OSL -
    /// 1)`, held between no interruption (`mean - E[K] t / (OSL - 1)`) and every other
    /// step of the round.
    pub fn quantile(&self, q: f64) -> Seconds {
        let (mean, sd, most) = self.interruptions.count();
        let each = self.interruptions.each();
        let z = standard_normal_quantile(q.clamp(0.001, 0.999));
        let fewest = (self.mean - each * mean).max(Seconds::ZERO);
        let spread = self.mean + each * (z * sd);
        let spread = if most.is_finite() {
            spread.min(self.mean + each * (most - mean))
        } else {
            spread
        };
        spread.max(fewest)
    }

    /// The same mean with prompts arriving at random (the open loop).
    pub fn at_random(self) -> Tpot {
        Tpot {
            interruptions: self.interruptions.at_random(),
            ..self
        }
    }

    pub fn report(&self) -> TpotReport {
        TpotReport {
            mean_s: self.mean.0,
            p50_s: self.quantile(0.5).0,
            p90_s: self.quantile(0.9).0,
            interruptions: self.interruptions,
        }
    }
}

impl From<Tpot> for TpotReport {
    fn from(t: Tpot) -> TpotReport {
        t.report()
    }
}

impl From<TpotReport> for Tpot {
    fn from(r: TpotReport) -> Tpot {
        Tpot {
            mean: Seconds(r.mean_s),
            interruptions: r.interruptions,
        }
    }
}

impl Tpot {
    /// TPOT's p90 as a chain over the mean's (`mean`, the figures' TPOT chain), where
    /// requests differ: `max(0, TPOT - K t / n, min(TPOT + z_0.9 sd t / n, TPOT + (N - K)
    /// t / n))` with `sd = sqrt(K (1 - K / N))` for the closed loop's binomial count and
    /// `sqrt(K)` and no upper bound for the open loop's Poisson count (MODEL.md 6.1).
    /// `None` where every request's TPOT is the mean.
    pub(crate) fn p90_chain(&self, mean: Chain) -> Option<Chain> {
        let (count, _, others) = self.interruptions.count();
        let (step, tokens) = match self.interruptions {
            Interruptions::None => return None,
            Interruptions::Binomial { step, tokens, .. }
            | Interruptions::Poisson { step, tokens, .. } => (step, tokens.max(1.0)),
        };
        let each = quotient(var("t"), var("n"));
        let sd = match self.interruptions {
            Interruptions::Binomial { .. } => power(
                product([var("K"), diff(num(1.0), quotient(var("K"), var("N")))]),
                num(0.5),
            ),
            _ => power(var("K"), num(0.5)),
        };
        let spread = sum([var("TPOT"), product([var("z"), sd, each.clone()])]);
        let high = match self.interruptions {
            Interruptions::Binomial { .. } => min([
                spread,
                sum([
                    var("TPOT"),
                    product([diff(var("N"), var("K")), each.clone()]),
                ]),
            ]),
            _ => spread,
        };
        let formula = max([num(0.0), diff(var("TPOT"), product([var("K"), each])), high]);
        let chain = Chain::new("p90 TPOT", "TPOT_90", "s", "6.1", formula, self.quantile(0.9).0)
            .derived("mean TPOT", mean)
            .input(
                "K",
                "other prompts' prefill steps inside a request's generation, on average",
                count,
                "steps",
                Source::rule("the round's prefill time less the request's own step and its wait, over one step (MODEL.md 6.1)"),
            )
            .input(
                "t",
                "one prefill step, over the pipeline stages that overlap it",
                step.0,
                "s",
                Source::rule("the round's prefill step (MODEL.md 6.1)"),
            )
            .input(
                "n",
                "intervals between a request's tokens",
                tokens,
                "intervals",
                Source::rule("OSL - 1"),
            )
            .input(
                "z",
                "the standard normal's 0.9 quantile",
                standard_normal_quantile(0.9),
                "1",
                Source::rule("the normal approximation of the count (MODEL.md 6.1)"),
            );
        Some(match self.interruptions {
            Interruptions::Binomial { .. } => chain.input(
                "N",
                "the round's other prefill steps, each inside with probability K / N",
                others,
                "steps",
                Source::rule("binomial: the closed loop's steps at phases independent of the request (MODEL.md 6.1)"),
            ),
            _ => chain,
        })
    }
}

/// TPOT as the JSON states it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TpotReport {
    pub mean_s: f64,
    pub p50_s: f64,
    pub p90_s: f64,
    /// How the other prompts' prefill steps interrupt a request's generation.
    pub interruptions: Interruptions,
}

/// The standard normal distribution function, `(1 + erf(x / sqrt 2)) / 2`, with erf by
/// Abramowitz and Stegun's 7.1.26 (absolute error under 1.5e-7).
fn standard_normal_cdf(x: f64) -> f64 {
    let y = x.abs() / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.327_591_1 * y);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let erf = 1.0 - poly * (-y * y).exp();
    0.5 * (1.0 + erf.copysign(x))
}

/// The `q` quantile of the standard normal distribution (`z_0.5 = 0`, `z_0.9 = 1.2816`):
/// Abramowitz and Stegun's rational approximation 26.2.23 (absolute error under
/// 4.5e-4), refined by one Newton step on [`standard_normal_cdf`], which leaves the
/// error of the distribution function's own approximation (a few 1e-7). Closed form,
/// so every point of a sweep can afford it; `q` outside `(0, 1)` is held at -10 and 10.
pub fn standard_normal_quantile(q: f64) -> f64 {
    if q.is_nan() || q <= 0.0 {
        return -10.0;
    }
    if q >= 1.0 {
        return 10.0;
    }
    // The tail on the smaller side: t = sqrt(-2 ln p), p = min(q, 1 - q).
    let p = q.min(1.0 - q);
    let t = (-2.0 * p.ln()).sqrt();
    let tail = t
        - (2.515_517 + t * (0.802_853 + t * 0.010_328))
            / (1.0 + t * (1.432_788 + t * (0.189_269 + t * 0.001_308)));
    let x = if q < 0.5 { -tail } else { tail };
    let density = (-0.5 * x * x).exp() / (2.0 * std::f64::consts::PI).sqrt();
    (x - (standard_normal_cdf(x) - q) / density).clamp(-10.0, 10.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 20 ms TPOT whose generation holds 9 ms of a round's 12 ms of 1 ms prefill
    /// steps, over 99 intervals: 9 of the 11 other steps on average.
    fn nine_of_eleven() -> Tpot {
        Tpot {
            mean: Seconds(0.020),
            interruptions: Interruptions::closed_loop(
                Seconds(0.009),
                Seconds(0.012),
                Seconds(0.001),
                99.0,
            ),
        }
    }

    #[test]
    fn the_normal_quantiles_are_the_tabled_ones() {
        assert!(standard_normal_quantile(0.5).abs() < 1e-6);
        assert!((standard_normal_quantile(0.9) - 1.281_551_6).abs() < 1e-5);
        assert!((standard_normal_quantile(0.975) - 1.959_964).abs() < 1e-5);
        assert!((standard_normal_quantile(0.1) + 1.281_551_6).abs() < 1e-5);
        assert_eq!(standard_normal_quantile(f64::NAN), -10.0);
        assert_eq!(standard_normal_quantile(2.0), 10.0);
    }

    #[test]
    fn a_closed_loops_count_is_binomial_with_the_rounds_mean() {
        // 9 ms of a round's 12 ms of 1 ms steps land in the generation: 9 of the 11
        // others on average, each with probability 9/11.
        let i = Interruptions::closed_loop(Seconds(0.009), Seconds(0.012), Seconds(0.001), 99.0);
        let (mean, sd, most) = i.count();
        assert!((mean - 9.0).abs() < 1e-12);
        assert!((sd - (9.0 * (2.0 / 11.0_f64)).sqrt()).abs() < 1e-12);
        assert_eq!(most, 11.0);
        // TPOT 20 ms: p50 the mean, p90 z_0.9 sd steps of 1 ms over 99 intervals above.
        let t = Tpot {
            mean: Seconds(0.020),
            interruptions: i,
        };
        assert!((t.quantile(0.5).0 - 0.020).abs() < 1e-9);
        let p90 = 0.020 + 1.281_551_6 * sd * 0.001 / 99.0;
        assert!((t.quantile(0.9).0 - p90).abs() < 1e-8);
        // Never below no interruption, never above every other step: 2 more than the
        // mean's 9, where the normal's 0.999 quantile would put 9 + 3.09 sd = 12.95.
        assert!(t.quantile(0.0).0 >= 0.020 - 9.0 * 0.001 / 99.0);
        assert!(t.quantile(0.0) < t.mean);
        assert!((t.quantile(1.0).0 - (0.020 + 2.0 * 0.001 / 99.0)).abs() < 1e-15);
    }

    #[test]
    fn arriving_at_random_keeps_the_mean_and_widens_the_spread() {
        let closed = nine_of_eleven();
        let open = closed.at_random();
        assert_eq!(open.mean, closed.mean);
        assert_eq!(open.interruptions.count().0, closed.interruptions.count().0);
        // Poisson: variance 9 against the binomial's 9 x 2/11.
        assert!((open.interruptions.count().1 - 3.0).abs() < 1e-12);
        assert!(open.quantile(0.9) > closed.quantile(0.9));
    }

    #[test]
    fn nothing_interrupting_means_every_request_at_the_mean() {
        let t = Tpot::steady(Seconds(0.015));
        for q in [0.0, 0.5, 0.9, 1.0] {
            assert_eq!(t.quantile(q), Seconds(0.015));
        }
        // Nothing inside the generation, or no step: no interruption.
        assert_eq!(
            Interruptions::closed_loop(Seconds::ZERO, Seconds(0.01), Seconds(0.001), 9.0),
            Interruptions::None
        );
        assert_eq!(
            Interruptions::closed_loop(Seconds(0.01), Seconds(0.01), Seconds::ZERO, 9.0),
            Interruptions::None
        );
    }

    #[test]
    fn the_report_round_trips() {
        let t = nine_of_eleven();
        let json = serde_json::to_string(&t).unwrap();
        let back: Tpot = serde_json::from_str(&json).unwrap();
        assert_eq!(back, t);
        assert!(json.contains("\"p90_s\""));
    }
}
