//! The work the page hands to its Web Worker, and the worker's answers, as plain
//! values that travel as JSON text. The scenario travels as its link query (which
//! round-trips exactly), so the worker rebuilds the very scenario the page holds.
//!
//! [`run`] does a job; the worker calls it, and so does the page itself when no worker
//! could start. [`Queue`] decides what to send when: one job in flight, newer inputs
//! replacing older waiting ones, and a long stale job cancelled.

use crate::explore::{compare, explore};
use crate::pack::Packed;
use crate::recommend_view::RecommendInputs;
use crate::scenario::Scenario;
use disagg_engine::recommend::Recommendation;
use disagg_engine::sweep::{AxisBest, SweepPoint, SweepResult};
use disagg_engine::units::TokensPerSecond;
use disagg_engine::validation::{self, ValidationReport};
use disagg_engine::Catalogue;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Job {
    /// The scenario's sweep.
    Sweep,
    /// Every axis at the sweep's target interactivity.
    Axes { target_tok_s_user: f64 },
    /// The published points, predicted (`disagg validate`): the page's measured error.
    Validation,
    /// Deployments across the catalogue meeting the scenario's limits at a demand.
    Recommend(RecommendInputs),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Request {
    pub id: u64,
    /// The scenario as its link query.
    pub query: String,
    pub job: Job,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Answer {
    Sweep(Result<Box<SweepResult>, String>),
    Axes(Result<Vec<AxisBest>, String>),
    Validation(Result<Box<ValidationReport>, String>),
    Recommend(Result<Box<Recommendation>, String>),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Reply {
    pub id: u64,
    /// Time the job took in the worker.
    pub ms: f64,
    /// Time the worker took to write the answer's parts as messages.
    #[serde(default)]
    pub encode_ms: f64,
    pub answer: Answer,
}

impl Request {
    pub fn new(id: u64, scenario: &Scenario, job: Job) -> Request {
        Request {
            id,
            query: scenario.to_query(),
            job,
        }
    }
}

/// Does `request`'s job. A query the page wrote always reads back cleanly; one that
/// does not is answered with the reason, never a guess.
pub fn run(request: &Request, catalogue: &Catalogue) -> Answer {
    let (scenario, notices) = Scenario::from_query(&request.query, catalogue);
    let refused = (!notices.is_empty()).then(|| {
        format!(
            "the worker could not read the scenario: {}",
            notices.join("; ")
        )
    });
    match &request.job {
        Job::Sweep => Answer::Sweep(match refused {
            Some(why) => Err(why),
            None => explore(&scenario, catalogue).map(Box::new),
        }),
        Job::Validation => Answer::Validation(
            validation::band_report(catalogue)
                .map(Box::new)
                .map_err(|e| e.to_string()),
        ),
        Job::Axes { target_tok_s_user } => Answer::Axes(match refused {
            Some(why) => Err(why),
            None => compare(
                &scenario,
                catalogue,
                TokensPerSecond::new(*target_tok_s_user),
            ),
        }),
        Job::Recommend(inputs) => Answer::Recommend(match refused {
            Some(why) => Err(why),
            None => crate::recommend_view::run(&scenario, inputs, catalogue).map(Box::new),
        }),
    }
}

/// What the worker posts: a sweep's cloud in parts, then the reply with the rest.
/// Each message is read in a task of its own on the page, so a large sweep never
/// holds the page for the time it takes to read all of it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum FromWorker {
    Part { id: u64, points: Packed },
    Done(Reply),
}

/// Points per [`FromWorker::Part`]: a few milliseconds of reading on the page.
pub const POINTS_PER_PART: usize = 500;

/// The worker's side: a request's JSON text in, the messages handed to `post` as
/// each is written (parts of a sweep's cloud, then the reply), so the page reads a
/// part while the next is written.
pub fn answer_messages(
    text: &str,
    catalogue: &Catalogue,
    clock: impl Fn() -> f64,
    mut post: impl FnMut(String),
) {
    let mut reply = reply_to(text, catalogue, &clock);
    let t0 = clock();
    if let Answer::Sweep(Ok(result)) = &mut reply.answer {
        let cloud = std::mem::take(&mut result.cloud);
        for part in cloud.chunks(POINTS_PER_PART) {
            let message = FromWorker::Part {
                id: reply.id,
                points: Packed::new(part),
            };
            if let Ok(text) = serde_json::to_string(&message) {
                post(text);
            }
        }
    }
    reply.encode_ms = clock() - t0;
    if let Ok(text) = serde_json::to_string(&FromWorker::Done(reply)) {
        post(text);
    }
}

/// The page's side: gathers one request's parts until its reply comes.
#[derive(Debug, Default)]
pub struct Assembly {
    id: u64,
    points: Vec<SweepPoint>,
    /// Why a part of the request being gathered could not be read.
    broken: Option<String>,
}

impl Assembly {
    /// Takes one message; returns the whole reply once it is complete. Parts of
    /// another request than the one being gathered start it afresh. A sweep one of
    /// whose parts could not be read is answered as failed, with the reason, rather
    /// than shown without those points.
    pub fn take(&mut self, message: FromWorker) -> Option<Reply> {
        match message {
            FromWorker::Part { id, points } => {
                if id != self.id {
                    self.id = id;
                    self.points.clear();
                    self.broken = None;
                }
                match points.points() {
                    Ok(points) => self.points.extend(points),
                    Err(why) => self.broken = Some(why),
                }
                None
            }
            FromWorker::Done(mut reply) => {
                let (points, broken) = if reply.id == self.id {
                    (std::mem::take(&mut self.points), self.broken.take())
                } else {
                    (Vec::new(), None)
                };
                self.points.clear();
                self.broken = None;
                if let Answer::Sweep(Ok(result)) = &mut reply.answer {
                    match broken {
                        None => result.cloud = points,
                        Some(why) => {
                            reply.answer = Answer::Sweep(Err(format!(
                                "the page could not read the worker's sweep: {why}"
                            )))
                        }
                    }
                }
                Some(reply)
            }
        }
    }
}

/// The reply to a request's JSON text, with the time `clock` measured around the job.
fn reply_to(text: &str, catalogue: &Catalogue, clock: impl Fn() -> f64) -> Reply {
    match serde_json::from_str::<Request>(text) {
        Ok(request) => {
            let t0 = clock();
            let answer = run(&request, catalogue);
            Reply {
                id: request.id,
                ms: clock() - t0,
                encode_ms: 0.0,
                answer,
            }
        }
        // A message the page did not write: answered as a failed sweep with id 0,
        // which no request carries.
        Err(e) => Reply {
            id: 0,
            ms: 0.0,
            encode_ms: 0.0,
            answer: Answer::Sweep(Err(format!("the worker got an unreadable request: {e}"))),
        },
    }
}

/// What the page should do after handing a request to [`Queue::submit`].
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Post it to the worker.
    Send(Request),
    /// Nothing yet: it waits until the job in flight ends.
    Wait,
    /// Stop the worker (its job is stale and long), start a new one, post this.
    Restart(Request),
}

/// Jobs between the page and one worker: at most one in flight and one waiting (the
/// newest; an older waiting job is dropped unseen).
#[derive(Debug, Default)]
pub struct Queue {
    in_flight: Option<(u64, f64)>,
    waiting: Option<Request>,
    /// A spare worker has loaded and listens, ready to take over.
    spare_ready: bool,
}

/// A stale job that has run this long is cancelled rather than waited for, when no
/// spare worker is ready: starting a worker costs about a sweep of the default
/// scenario. With a spare ready a stale job is cancelled at once.
pub const CANCEL_AFTER_MS: f64 = 250.0;

impl Queue {
    /// Whether a spare worker listens, ready to take over from a cancelled job's.
    pub fn set_spare_ready(&mut self, ready: bool) {
        self.spare_ready = ready;
    }

    /// How long a stale job runs before a waiting request cancels it: as long as
    /// starting a worker costs, or not at all when a spare is ready.
    fn cancel_after(&self) -> f64 {
        if self.spare_ready {
            0.0
        } else {
            CANCEL_AFTER_MS
        }
    }

    /// A new request at time `now` (ms).
    pub fn submit(&mut self, request: Request, now: f64) -> Action {
        match self.in_flight {
            None => {
                self.in_flight = Some((request.id, now));
                Action::Send(request)
            }
            Some((_, started)) if now - started >= self.cancel_after() => {
                self.waiting = None;
                self.in_flight = Some((request.id, now));
                Action::Restart(request)
            }
            Some(_) => {
                self.waiting = Some(request);
                Action::Wait
            }
        }
    }

    /// When a request waits behind a job in flight: the time (ms) at which that job
    /// has run long enough to be cancelled for it.
    pub fn cancel_due(&self) -> Option<f64> {
        self.waiting.as_ref()?;
        self.in_flight
            .map(|(_, started)| started + self.cancel_after())
    }

    /// At `now`: the waiting request, when the job in flight has run
    /// [`CANCEL_AFTER_MS`] or more (or at all, with a spare ready), to send to a
    /// restarted worker in its place. A request that arrived early in a long job so
    /// waits at most that long, not for the whole stale job.
    pub fn overdue(&mut self, now: f64) -> Option<Request> {
        let (_, started) = self.in_flight?;
        if now - started < self.cancel_after() {
            return None;
        }
        let next = self.waiting.take()?;
        self.in_flight = Some((next.id, now));
        Some(next)
    }

    /// The reply to `id` arrived at `now`: whether it answers the newest request (an
    /// older one is stale and dropped), and the waiting request to send next.
    pub fn finished(&mut self, id: u64, now: f64) -> (bool, Option<Request>) {
        if self.in_flight.map(|(f, _)| f) != Some(id) {
            return (false, None);
        }
        self.in_flight = None;
        match self.waiting.take() {
            Some(next) => {
                self.in_flight = Some((next.id, now));
                (false, Some(next))
            }
            None => (true, None),
        }
    }

    /// Whether a job is in flight.
    pub fn busy(&self) -> bool {
        self.in_flight.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use disagg_engine::disagg::Axis;

    fn cat() -> &'static Catalogue {
        Catalogue::builtin()
    }

    /// The messages the worker posts for a request's text, in order.
    fn messages(text: &str, catalogue: &Catalogue, clock: impl Fn() -> f64) -> Vec<String> {
        let mut out = Vec::new();
        answer_messages(text, catalogue, clock, |m| out.push(m));
        out
    }

    /// A request's text through the worker's messages and the page's assembly: the
    /// path every job takes.
    fn answer_text(text: &str, catalogue: &Catalogue, clock: impl Fn() -> f64) -> String {
        let mut assembly = Assembly::default();
        let replies: Vec<Reply> = messages(text, catalogue, clock)
            .iter()
            .filter_map(|m| assembly.take(serde_json::from_str(m).unwrap()))
            .collect();
        assert_eq!(replies.len(), 1, "one reply per request");
        serde_json::to_string(&replies[0]).unwrap()
    }

    #[test]
    fn a_sweep_through_json_is_the_sweep_itself() {
        for s in [
            Scenario::default(),
            Scenario {
                axis: Axis::Speculative,
                ttft_ms: Some(700.0),
                batch: Some(32),
                ..Scenario::default()
            },
        ] {
            let request = Request::new(7, &s, Job::Sweep);
            let text = serde_json::to_string(&request).unwrap();
            let reply: Reply = serde_json::from_str(&answer_text(&text, cat(), || 1.0)).unwrap();
            assert_eq!(reply.id, 7);
            assert_eq!(
                reply.answer,
                Answer::Sweep(explore(&s, cat()).map(Box::new))
            );
        }
    }

    #[test]
    fn a_sweep_in_parts_reassembles_to_the_sweep() {
        let s = Scenario::default();
        let request = Request::new(9, &s, Job::Sweep);
        let text = serde_json::to_string(&request).unwrap();
        let messages = messages(&text, cat(), || 0.0);
        let expected = explore(&s, cat()).unwrap();
        assert_eq!(
            messages.len(),
            expected.cloud.len().div_ceil(POINTS_PER_PART) + 1
        );
        let mut assembly = Assembly::default();
        // A stray part of an older request is dropped when the newer one's parts come.
        let stray = FromWorker::Part {
            id: 8,
            points: Packed::new(&expected.cloud[..3]),
        };
        assert_eq!(assembly.take(stray), None);
        let mut replies = Vec::new();
        for m in &messages {
            replies.extend(assembly.take(serde_json::from_str(m).unwrap()));
        }
        assert_eq!(replies.len(), 1);
        assert_eq!(replies[0].answer, Answer::Sweep(Ok(Box::new(expected))));
    }

    #[test]
    fn a_part_that_cannot_be_read_fails_the_sweep_with_the_reason() {
        let s = Scenario::default();
        let text = serde_json::to_string(&Request::new(4, &s, Job::Sweep)).unwrap();
        let mut parts: Vec<FromWorker> = messages(&text, cat(), || 0.0)
            .iter()
            .map(|m| serde_json::from_str(m).unwrap())
            .collect();
        // The first part cut short: its packed rows no longer read.
        if let Some(FromWorker::Part { points, .. }) = parts.first_mut() {
            let mut json = serde_json::to_value(&*points).unwrap();
            let rows = json["rows"].as_str().unwrap().to_string();
            json["rows"] = rows[..rows.len() / 2].into();
            *points = serde_json::from_value(json).unwrap();
        }
        let mut assembly = Assembly::default();
        let replies: Vec<Reply> = parts.into_iter().filter_map(|m| assembly.take(m)).collect();
        assert!(
            matches!(&replies[..], [Reply { answer: Answer::Sweep(Err(why)), .. }]
                if why.contains("could not read the worker's sweep")),
            "{replies:?}"
        );
        // The next request starts clean.
        let text = serde_json::to_string(&Request::new(5, &s, Job::Sweep)).unwrap();
        let replies: Vec<Reply> = messages(&text, cat(), || 0.0)
            .iter()
            .filter_map(|m| assembly.take(serde_json::from_str(m).unwrap()))
            .collect();
        assert_eq!(
            replies[0].answer,
            Answer::Sweep(explore(&s, cat()).map(Box::new))
        );
    }

    #[test]
    fn the_reply_times_the_job_and_the_writing_of_its_parts() {
        // A clock that ticks one millisecond per reading: the job is read around once,
        // the writing of the parts once.
        let ticks = std::cell::Cell::new(0.0);
        let clock = || {
            ticks.set(ticks.get() + 1.0);
            ticks.get()
        };
        let text = serde_json::to_string(&Request::new(2, &Scenario::default(), Job::Sweep));
        let messages = messages(&text.unwrap(), cat(), clock);
        let Some(Ok(FromWorker::Done(reply))) = messages.last().map(|m| serde_json::from_str(m))
        else {
            panic!("no reply last");
        };
        assert_eq!((reply.ms, reply.encode_ms), (1.0, 1.0));
    }

    #[test]
    fn the_axes_job_compares_at_the_given_target() {
        let s = Scenario::default();
        let target = explore(&s, cat()).unwrap().target_tok_s_user;
        let request = Request::new(
            3,
            &s,
            Job::Axes {
                target_tok_s_user: target.value(),
            },
        );
        let text = serde_json::to_string(&request).unwrap();
        let reply: Reply = serde_json::from_str(&answer_text(&text, cat(), || 0.0)).unwrap();
        assert_eq!(reply.answer, Answer::Axes(compare(&s, cat(), target)));
    }

    #[test]
    fn the_validation_job_is_disagg_validate() {
        let request = Request::new(4, &Scenario::default(), Job::Validation);
        let text = serde_json::to_string(&request).unwrap();
        let reply: Reply = serde_json::from_str(&answer_text(&text, cat(), || 0.0)).unwrap();
        let expected = validation::run(
            cat(),
            &validation::BenchmarkTable::builtin().unwrap(),
            &disagg_engine::Assumptions::default(),
        );
        assert_eq!(reply.answer, Answer::Validation(Ok(Box::new(expected))));
    }

    #[test]
    fn the_recommend_job_is_the_view_s_search() {
        let s = Scenario {
            ttft_ms: Some(2000.0),
            tpot_ms: Some(50.0),
            rate: Some(2.0),
            ..Scenario::default()
        };
        let inputs = RecommendInputs {
            chips: vec!["h100-sxm".into()],
            ..RecommendInputs::default()
        };
        let request = Request::new(6, &s, Job::Recommend(inputs.clone()));
        let text = serde_json::to_string(&request).unwrap();
        let reply: Reply = serde_json::from_str(&answer_text(&text, cat(), || 0.0)).unwrap();
        // Every evaluation is kept for the engine's tests, not sent.
        let expected = crate::recommend_view::run(&s, &inputs, cat()).map(|mut r| {
            r.tried.clear();
            Box::new(r)
        });
        assert!(expected.as_ref().is_ok_and(|r| !r.ranked.is_empty()));
        assert_eq!(reply.answer, Answer::Recommend(expected));
    }

    #[test]
    fn bad_messages_are_answered_not_obeyed() {
        let reply: Reply = serde_json::from_str(&answer_text("{nope", cat(), || 0.0)).unwrap();
        assert_eq!(reply.id, 0);
        assert!(matches!(reply.answer, Answer::Sweep(Err(ref e)) if e.contains("unreadable")));
        let request = Request {
            id: 5,
            query: "v=1&model=gpt-9".into(),
            job: Job::Sweep,
        };
        assert!(matches!(run(&request, cat()), Answer::Sweep(Err(ref e)) if e.contains("gpt-9")));
    }

    #[test]
    fn the_queue_keeps_one_job_in_flight_and_the_newest_waiting() {
        let s = Scenario::default();
        let r = |id| Request::new(id, &s, Job::Sweep);
        let mut q = Queue::default();
        assert_eq!(q.submit(r(1), 0.0), Action::Send(r(1)));
        assert_eq!(q.submit(r(2), 10.0), Action::Wait);
        assert_eq!(q.submit(r(3), 20.0), Action::Wait);
        // 1 is stale: dropped, and only the newest waiting request goes next.
        assert_eq!(q.finished(1, 30.0), (false, Some(r(3))));
        assert!(q.busy());
        // A reply to a request never in flight changes nothing.
        assert_eq!(q.finished(2, 31.0), (false, None));
        assert_eq!(q.finished(3, 40.0), (true, None));
        assert!(!q.busy());
        // A long stale job is cancelled.
        assert_eq!(q.submit(r(4), 100.0), Action::Send(r(4)));
        assert_eq!(
            q.submit(r(5), 100.0 + CANCEL_AFTER_MS),
            Action::Restart(r(5))
        );
        assert_eq!(q.finished(4, 500.0), (false, None));
        assert_eq!(q.finished(5, 501.0), (true, None));
    }

    #[test]
    fn a_request_waits_behind_a_stale_job_at_most_the_cancel_time() {
        let s = Scenario::default();
        let r = |id| Request::new(id, &s, Job::Sweep);
        let mut q = Queue::default();
        // Nothing waits: nothing is due, nothing overdue.
        assert_eq!(q.submit(r(1), 0.0), Action::Send(r(1)));
        assert_eq!(q.cancel_due(), None);
        assert_eq!(q.overdue(10_000.0), None);
        // A request 10 ms into a long job waits until the job has run the cancel time.
        assert_eq!(q.submit(r(2), 10.0), Action::Wait);
        assert_eq!(q.cancel_due(), Some(CANCEL_AFTER_MS));
        assert_eq!(q.overdue(CANCEL_AFTER_MS - 1.0), None);
        assert_eq!(q.overdue(CANCEL_AFTER_MS), Some(r(2)));
        // It is now the job in flight, the stale one's reply is dropped, and its own
        // counts from when it was sent.
        assert_eq!(q.cancel_due(), None);
        assert_eq!(q.finished(1, 300.0), (false, None));
        assert_eq!(q.submit(r(3), 300.0), Action::Wait);
        assert_eq!(q.cancel_due(), Some(2.0 * CANCEL_AFTER_MS));
        // A job that ends first sends the waiting request the ordinary way; a timer
        // that fires later finds nothing overdue.
        assert_eq!(q.finished(2, 310.0), (false, Some(r(3))));
        assert_eq!(q.overdue(2.0 * CANCEL_AFTER_MS), None);
        assert_eq!(q.finished(3, 320.0), (true, None));
    }

    #[test]
    fn with_a_spare_ready_a_stale_job_is_cancelled_at_once() {
        let s = Scenario::default();
        let r = |id| Request::new(id, &s, Job::Sweep);
        let mut q = Queue::default();
        assert_eq!(q.submit(r(1), 0.0), Action::Send(r(1)));
        // A request 10 ms in waits while the spare loads...
        assert_eq!(q.submit(r(2), 10.0), Action::Wait);
        assert_eq!(q.cancel_due(), Some(CANCEL_AFTER_MS));
        // ...and goes as soon as it listens.
        q.set_spare_ready(true);
        assert_eq!(q.cancel_due(), Some(0.0));
        assert_eq!(q.overdue(60.0), Some(r(2)));
        // The spare took over; the next is not ready yet: the ordinary wait.
        q.set_spare_ready(false);
        assert_eq!(q.submit(r(3), 70.0), Action::Wait);
        assert_eq!(q.overdue(100.0), None);
        // A request that comes while a spare is ready restarts at once.
        q.set_spare_ready(true);
        assert_eq!(q.submit(r(4), 100.0), Action::Restart(r(4)));
        assert_eq!(q.finished(4, 150.0), (true, None));
        // Nothing in flight: sent, whether or not a spare is ready.
        assert_eq!(q.submit(r(5), 200.0), Action::Send(r(5)));
    }
}
