//! Open-loop load: requests arrive at random (Poisson) at a fixed rate, as in MLPerf's
//! Server scenario and serving benchmarks' `--request-rate`, instead of a fixed number
//! of clients each sending its next request when the last one ends (the closed loop
//! every other figure assumes).
//!
//! A deployment keeps up with a rate `λ` when the concurrency its arrivals build up
//! (Little's law: `λ` times the time each request holds a place) finishes requests at
//! least that fast. [`at_rate`] finds the smallest such concurrency `b` by bisection
//! (request rate grows with concurrency), evaluates the deployment there, and delivers
//! `λ` (not the `b`-concurrency capacity): tokens per second and everything per token
//! scale by `λ / rate(b)`. TTFT is then an M/D/1 queue in front of the prefill steps:
//! a prefill server busy a share `u` of the time with steps of `t_pf` makes an arrival
//! wait `W = u t_pf / (2 (1 - u))` on average (Pollaczek-Khinchine with a fixed
//! service time), spread by Kingman's exponential tail (`Wait::Poisson`).

use super::ttft::{prefill_queue, Ttft, TtftParts, Wait};
use super::{evaluate, Axis, Deployment, DeploymentPoint, PoolRole, Setup};
use crate::cost::PoolLoad;
use crate::error::{EngineError, Result};
use crate::units::{RequestsPerSecond, Seconds};

/// The deployment under Poisson arrivals at `rate` requests per second.
pub fn at_rate(
    setup: &Setup,
    deployment: &Deployment,
    rate: RequestsPerSecond,
) -> Result<DeploymentPoint> {
    if setup.workload.finite_run.is_some() {
        return Err(EngineError::InvalidInput(
            "an open loop at a request rate never ends, so it has no finite run to drain".into(),
        ));
    }
    let held = concurrency(setup, deployment, rate)?;
    Ok(deliver(setup, deployment, held.closed.clone(), rate, &held))
}

/// The concurrency arrivals at a rate build up: the smallest whose closed loop keeps up.
#[derive(Clone, Debug)]
pub(crate) struct Held {
    /// Concurrent requests: the smallest `b` with `X(b) >= rate`.
    pub batch: u32,
    /// The largest concurrency the search could try (memory's and the engine's limits).
    pub most: u32,
    /// The closed loop at `batch`.
    pub closed: DeploymentPoint,
    /// Its request rate `X(batch)`.
    pub serves: RequestsPerSecond,
}

/// The request rate a point serves: output tok/s over OSL.
pub(crate) fn served(setup: &Setup, p: &DeploymentPoint) -> RequestsPerSecond {
    p.figures
        .output_tok_s
        .per_request(setup.workload.osl as f64)
}

/// Finds the concurrency `rate` holds, or refuses a rate out of bounds or beyond the
/// deployment's capacity.
pub(crate) fn concurrency(
    setup: &Setup,
    deployment: &Deployment,
    rate: RequestsPerSecond,
) -> Result<Held> {
    crate::workload::check_request_rate(rate.0)?;
    let at = |batch: u32| evaluate(setup, &deployment.with_batch(batch));
    let served = |p: &DeploymentPoint| self::served(setup, p);
    let Reach { probe, most, full } = reach(setup, deployment)?;
    if served(&full) < rate {
        return Err(EngineError::InvalidInput(format!(
            "the deployment serves at most {:.3} requests per second (at {} concurrent requests); a rate of {} exceeds it",
            served(&full).0,
            full.figures.running,
            rate.0
        )));
    }
    let (mut lo, mut hi) = (1u32, most);
    if served(&probe) >= rate {
        hi = 1;
    }
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if served(&at(mid)?) >= rate {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    let closed = at(hi)?;
    Ok(Held {
        batch: hi,
        most,
        serves: served(&closed),
        closed,
    })
}

/// A deployment at one request and at the most it holds.
pub(crate) struct Reach {
    pub probe: DeploymentPoint,
    /// The largest concurrency: memory's and the engine's limits together.
    pub most: u32,
    pub full: DeploymentPoint,
}

pub(crate) fn reach(setup: &Setup, deployment: &Deployment) -> Result<Reach> {
    let at = |batch: u32| evaluate(setup, &deployment.with_batch(batch));
    let probe = at(1)?;
    let most = probe.max_batch().clamp(1, crate::limits::MAX_BATCH as u64) as u32;
    let full = at(most)?;
    Ok(Reach { probe, most, full })
}

/// The most requests per second the deployment serves (at the most it holds), and
/// that concurrency: the largest rate [`at_rate`] accepts.
pub fn capacity(setup: &Setup, deployment: &Deployment) -> Result<(RequestsPerSecond, u32)> {
    let r = reach(setup, deployment)?;
    Ok((served(setup, &r.full), r.most))
}

/// The closed loop `point` at the held concurrency, delivering `rate`: token rates
/// scaled by `rate / X(b)`, TTFT the M/D/1 wait in front of the prefill steps.
pub(crate) fn deliver(
    setup: &Setup,
    deployment: &Deployment,
    mut point: DeploymentPoint,
    rate: RequestsPerSecond,
    held: &Held,
) -> DeploymentPoint {
    let share = rate / held.serves;
    point.figures = point.figures.delivering(share);
    for pool in &mut point.pools {
        pool.utilisation *= share;
        pool.input_tok_s_per_chip = pool.input_tok_s_per_chip * share;
        pool.output_tok_s_per_chip = pool.output_tok_s_per_chip * share;
    }
    // The pools are busy less of the time: their power follows (MODEL.md 6.6.1).
    let loads: Vec<PoolLoad> = deployment
        .pools()
        .into_iter()
        .filter_map(|(role, cfg)| {
            let r = point.pool(role)?;
            Some(PoolLoad::new(cfg.chip, cfg.chips(), r.utilisation, &r.time))
        })
        .collect();
    point.figures = point.figures.with_power(&loads, &setup.assumptions.cost);
    let utilisation = prefill_utilisation(&held.closed) * share;
    point.ttft = open_loop_ttft(&point.ttft, utilisation);
    point.figures.ttft = point.ttft.mean();
    // The same prefill steps interrupt generation, now at random arrivals.
    point.tpot = point.tpot.at_random();
    point.figures.ttft_p90 = point.ttft.quantile(0.9);
    point.figures.tpot_p90 = point.tpot.quantile(0.9);
    point.warnings.push(format!(
        "open loop: {} requests per second arrive at random; Little's law puts about {} of them in flight at once, and the prefill steps are busy {:.0}% of the time",
        rate.0,
        held.batch,
        100.0 * utilisation
    ));
    point
}

/// Share of time the prefill steps keep busy at the point's own rate: the prefill
/// pool's utilisation, or the generating pool's prefill share of its round.
pub(crate) fn prefill_utilisation(p: &DeploymentPoint) -> f64 {
    match p.axis {
        Axis::PrefillDecode => p.pool(PoolRole::Prefill).map_or(0.0, |x| x.utilisation),
        _ => p.figures.prefill_share,
    }
    .clamp(0.0, 1.0)
}

/// TTFT when arrivals are random: the wait of an M/D/1 queue at `utilisation` with
/// prefill steps of the closed loop's `prefill` part, then the same prefill, transfer
/// and first step. Nothing queues in front of the engine: it keeps up.
pub fn open_loop_ttft(closed: &Ttft, utilisation: f64) -> Ttft {
    let u = utilisation.clamp(0.0, 0.999);
    let mean = prefill_queue(u, closed.parts.prefill);
    Ttft {
        parts: TtftParts {
            queue: Seconds::ZERO,
            prefill_wait: mean,
            ..closed.parts
        },
        wait: Wait::Poisson {
            mean,
            utilisation: u,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_m_d_1_wait_follows_pollaczek_khinchine() {
        let closed = Ttft {
            parts: TtftParts {
                prefill: Seconds(0.2),
                first_step: Seconds(0.01),
                ..TtftParts::default()
            },
            wait: Wait::None,
        };
        // u = 0.5, service 200 ms: W = 0.5 * 0.2 / (2 * 0.5) = 100 ms.
        let t = open_loop_ttft(&closed, 0.5);
        assert!((t.parts.prefill_wait.0 - 0.1).abs() < 1e-15);
        assert!((t.mean().0 - 0.31).abs() < 1e-12);
        // Half the arrivals find the server idle; the p90 waits (W/u) ln(u/0.1).
        assert_eq!(t.wait.quantile(0.5), Seconds::ZERO);
        assert!((t.wait.quantile(0.9).0 - 0.2 * (0.5f64 / 0.1).ln()).abs() < 1e-12);
        // An idle server: no wait at all.
        assert_eq!(
            open_loop_ttft(&closed, 0.0).parts.prefill_wait,
            Seconds::ZERO
        );
    }
}
