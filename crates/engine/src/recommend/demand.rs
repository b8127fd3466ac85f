//! Demand: what the deployments a recommendation names must carry, and the one home of
//! its conversions (`audit/MODEL.md` section 8.1).
//!
//! Three ways to state it: a request rate (requests per second arriving at random, an
//! open loop), tokens per day (turned into a request rate), or concurrent users (a
//! closed loop: each user sends the next request when the last one ends). Replicas are
//! independent: each serves its share of the demand with no queue shared between them.

use crate::disagg::open_loop::at_rate;
use crate::disagg::{evaluate, Deployment, DeploymentPoint, Setup};
use crate::error::{EngineError, Result};
use crate::limits::{MAX_BATCH, REQUEST_RATE};
use crate::units::RequestsPerSecond;
use crate::workload::{check_request_rate, Workload};
use serde::{Deserialize, Serialize};

/// Seconds in a day: tokens per day over this are tokens per second.
pub const SECONDS_PER_DAY: f64 = 86_400.0;

/// The demand a recommendation must meet.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Demand {
    /// Requests per second arriving at random (Poisson).
    Rate(RequestsPerSecond),
    /// Tokens per day, prompt and output together, arriving at random.
    TokensPerDay(f64),
    /// Concurrent users, each sending its next request as soon as the last ends.
    Users(u32),
}

/// What one replica carries: its share of the demand.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Load {
    /// Requests per second arriving at random at this replica.
    Rate(RequestsPerSecond),
    /// Concurrent requests this replica holds (a closed loop).
    Concurrency(u32),
}

impl Demand {
    /// Refuses a demand out of the engine's bounds, naming it.
    pub fn validate(&self, workload: &Workload) -> Result<()> {
        match *self {
            Demand::Users(u) if !(1..=MAX_BATCH).contains(&u) => Err(EngineError::InvalidInput(
                format!("users {u} must lie between 1 and {MAX_BATCH}"),
            )),
            Demand::Users(_) => Ok(()),
            Demand::TokensPerDay(t) if !(t.is_finite() && t > 0.0) => {
                Err(EngineError::InvalidInput(format!(
                    "tokens per day must be a positive number, not {t:?}"
                )))
            }
            Demand::Rate(r) => check_request_rate(r.0),
            Demand::TokensPerDay(t) => {
                // The rate read from tokens per day is refused under the count the user
                // gave, with the rate it implies.
                let r = self.rate(workload).map_or(0.0, |r| r.0);
                check_request_rate(r).map_err(|_| {
                    EngineError::InvalidInput(format!(
                        "tokens per day {} ask for {r:.3e} requests per second of {} tokens each; the rate must lie between {} and {} requests per second",
                        crate::error::echoed(t),
                        workload.request_context(),
                        REQUEST_RATE.start(),
                        REQUEST_RATE.end()
                    ))
                })
            }
        }
    }

    /// The request rate an open-loop demand asks for; `None` for users (a closed loop,
    /// whose rate is whatever the deployment's round gives).
    ///
    /// Tokens per day count prompt and output tokens together, as usage reports and API
    /// bills do, so a request carries `ISL + OSL` of them: `R = T / 86 400 / (ISL + OSL)`.
    pub fn rate(&self, workload: &Workload) -> Option<RequestsPerSecond> {
        match *self {
            Demand::Rate(r) => Some(r),
            Demand::TokensPerDay(t) => Some(RequestsPerSecond::new(
                t / SECONDS_PER_DAY / workload.request_context(),
            )),
            Demand::Users(_) => None,
        }
    }

    /// What each of `replicas` independent replicas carries. Random arrivals split at
    /// random over the replicas stay random (a thinned Poisson stream), each at `R / n`;
    /// users spread evenly, and the busiest replica holds `ceil(U / n)` of them, which is
    /// the one evaluated.
    pub fn per_replica(&self, workload: &Workload, replicas: u32) -> Load {
        let n = replicas.max(1);
        match *self {
            Demand::Users(u) => Load::Concurrency(u.div_ceil(n)),
            _ => Load::Rate(RequestsPerSecond::new(
                self.rate(workload).map_or(0.0, |r| r.0) / n as f64,
            )),
        }
    }

    /// The demand in words, with how it was read.
    pub fn describe(&self, workload: &Workload) -> String {
        match *self {
            Demand::Rate(r) => format!("{} requests per second arriving at random", r.0),
            Demand::TokensPerDay(t) => format!(
                "{t} tokens per day (prompt and output): {:.4} requests per second of {} tokens each",
                self.rate(workload).map_or(0.0, |r| r.0),
                workload.request_context()
            ),
            Demand::Users(u) => {
                format!("{u} concurrent users, each sending its next request when the last ends")
            }
        }
    }
}

impl Load {
    /// One replica at this load: the path `disagg predict --rate` takes for a rate
    /// (`open_loop::at_rate`, with the setup's workload marked open-loop), and the one
    /// `predict --batch` takes for a concurrency (`evaluate` at that batch).
    pub fn evaluate(&self, setup: &Setup, deployment: &Deployment) -> Result<DeploymentPoint> {
        match *self {
            Load::Rate(r) => {
                let mut open = *setup;
                open.workload.rate = Some(r.0);
                at_rate(&open, deployment, r)
            }
            Load::Concurrency(b) => evaluate(setup, &deployment.with_batch(b)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workload() -> Workload {
        Workload::new(1000, 1000)
    }

    #[test]
    fn tokens_per_day_count_prompt_and_output() {
        // 1.728e9 tokens a day = 20 000 tok/s; 2000 tokens a request: 10 requests/s.
        let r = Demand::TokensPerDay(1.728e9).rate(&workload()).unwrap();
        assert!((r.0 - 10.0).abs() < 1e-12);
        let w = Workload::new(3000, 1000);
        let r = Demand::TokensPerDay(1.728e9).rate(&w).unwrap();
        assert!((r.0 - 5.0).abs() < 1e-12);
    }

    #[test]
    fn replicas_share_the_demand() {
        let w = workload();
        let rate = Demand::Rate(RequestsPerSecond::new(10.0));
        assert_eq!(
            rate.per_replica(&w, 4),
            Load::Rate(RequestsPerSecond::new(2.5))
        );
        assert_eq!(
            rate.per_replica(&w, 0),
            Load::Rate(RequestsPerSecond::new(10.0))
        );
        // 10 users over 3 replicas: the busiest holds ceil(10 / 3) = 4.
        assert_eq!(Demand::Users(10).per_replica(&w, 3), Load::Concurrency(4));
        assert_eq!(Demand::Users(9).per_replica(&w, 3), Load::Concurrency(3));
        assert_eq!(Demand::Users(10).rate(&w), None);
    }

    #[test]
    fn a_demand_out_of_bounds_is_refused_by_name() {
        let w = workload();
        let e = Demand::Users(0).validate(&w).unwrap_err().to_string();
        assert!(e.contains("users"), "{e}");
        let e = Demand::TokensPerDay(f64::NAN)
            .validate(&w)
            .unwrap_err()
            .to_string();
        assert!(e.contains("tokens per day"), "{e}");
        let e = Demand::Rate(RequestsPerSecond::new(-1.0))
            .validate(&w)
            .unwrap_err()
            .to_string();
        assert!(e.contains("request rate"), "{e}");
        // A rate read from a huge token count is named by that count, short enough to
        // read: not a 300-digit number.
        let e = Demand::TokensPerDay(1e300)
            .validate(&w)
            .unwrap_err()
            .to_string();
        assert!(e.contains("tokens per day 1e300") && e.len() < 200, "{e}");
        assert!(Demand::Rate(RequestsPerSecond::new(10.0))
            .validate(&w)
            .is_ok());
    }
}
