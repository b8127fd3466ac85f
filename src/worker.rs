//! Sweeps off the page's main thread: the Web Worker's message loop ([`serve`], run
//! by the `disagg-worker` binary) and the page's handle on a worker ([`Sweeper`]).
//! Messages are JSON text of [`crate::jobs`]' types. When no worker can start (a
//! browser without workers, a page opened without its worker script), the jobs run on
//! the page as before, and the page still works.

use crate::jobs::{
    answer_messages, run, Action, Answer, Assembly, FromWorker, Job, Queue, Reply, Request,
};
use crate::perf::Arrival;
use crate::scenario::Scenario;
use disagg_engine::Catalogue;
use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The worker's loader, next to the page (Trunk writes it for the worker binary).
pub const WORKER_SCRIPT: &str = "disagg-worker_loader.js";

/// In the worker: answers each request with its reply.
pub fn serve() {
    let scope: web_sys::DedicatedWorkerGlobalScope = js_sys::global().unchecked_into();
    let out = scope.clone();
    let on_message =
        Closure::<dyn Fn(web_sys::MessageEvent)>::new(move |ev: web_sys::MessageEvent| {
            let text = ev.data().as_string().unwrap_or_default();
            let clock = || out.performance().map_or(0.0, |p| p.now());
            answer_messages(&text, Catalogue::builtin(), clock, |message| {
                let _ = out.post_message(&JsValue::from_str(&message));
            });
        });
    scope.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
    // The handler lives as long as the worker.
    on_message.forget();
    // The catalogue is read before the worker says it listens, so that no request
    // waits for it (a spare worker reads it while the one at work sweeps).
    let _ = Catalogue::builtin();
    // A message that arrived before the handler was set (while the module loaded) is
    // lost, so the page sends nothing until it hears this.
    let _ = scope.post_message(&JsValue::from_str(READY));
}

/// What the worker says once it listens.
const READY: &str = "ready";

type OnAnswer = Box<dyn Fn(Request, Answer, Arrival)>;
/// The worker's event handlers, kept alive as long as it is.
type Handlers = Vec<Closure<dyn Fn(JsValue)>>;

/// One worker and its queue, seen from the page. Replies to stale requests are
/// dropped; `on_answer` hears the newest request's answer with how it arrived (the
/// job's time among it).
///
/// A stale job is cancelled by ending its worker. Once a request has had to wait
/// behind one, a spare worker is kept loaded beside the one at work, so that the next
/// cancellation hands the newest request to a worker that already listens instead of
/// one that has yet to load.
pub struct Sweeper {
    inner: Rc<Inner>,
}

/// A worker the page started.
struct Slot {
    worker: web_sys::Worker,
    /// Tells the slot's messages from another's.
    id: u64,
    _handlers: Handlers,
    /// Since when a request may have waited for it to listen (its creation, or its
    /// taking over), and how long that was, once it listens (reported with the
    /// first request posted to it).
    waited_from: f64,
    start_ms: f64,
    ready: bool,
}

impl Slot {
    fn end(self) {
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        self.worker.terminate();
    }
}

struct Inner {
    /// The worker at work, and the spare.
    current: RefCell<Option<Slot>>,
    spare: RefCell<Option<Slot>>,
    slots: Cell<u64>,
    queue: RefCell<Queue>,
    /// The request in flight, to run on the page if the worker fails.
    sent: RefCell<Option<Request>>,
    next_id: Cell<u64>,
    /// No worker could start or it failed: jobs run on the page.
    local: Cell<bool>,
    /// A request has had to wait behind a job: keep a spare from now on.
    wants_spare: Cell<bool>,
    /// The parts of the reply on its way.
    assembly: RefCell<Assembly>,
    /// How the request in flight is getting on: when it was posted, how long its
    /// worker took to start, the time spent reading its messages.
    arrival: Cell<Arrival>,
    on_answer: OnAnswer,
}

fn now_ms() -> f64 {
    crate::web::now_ms()
}

impl Sweeper {
    pub fn new(on_answer: impl Fn(Request, Answer, Arrival) + 'static) -> Sweeper {
        Sweeper {
            inner: Rc::new(Inner {
                current: RefCell::new(None),
                spare: RefCell::new(None),
                slots: Cell::new(0),
                queue: RefCell::new(Queue::default()),
                sent: RefCell::new(None),
                next_id: Cell::new(1),
                local: Cell::new(false),
                wants_spare: Cell::new(false),
                assembly: RefCell::new(Assembly::default()),
                arrival: Cell::new(Arrival::default()),
                on_answer: Box::new(on_answer),
            }),
        }
    }

    /// Asks for `job` on `scenario`; the answer comes through `on_answer` unless a
    /// newer request overtakes it.
    pub fn submit(&self, scenario: &Scenario, job: Job) {
        let id = self.inner.next_id.get();
        self.inner.next_id.set(id + 1);
        let request = Request::new(id, scenario, job);
        let action = self.inner.queue.borrow_mut().submit(request, now_ms());
        match action {
            Action::Send(r) => Inner::post(&self.inner, r),
            Action::Wait => {
                self.inner.wants_spare.set(true);
                Inner::keep_spare(&self.inner);
                Inner::cancel_when_due(&self.inner);
            }
            Action::Restart(r) => Inner::restart(&self.inner, r),
        }
    }
}

impl Inner {
    fn post(this: &Rc<Inner>, request: Request) {
        if !this.local.get() && this.current.borrow().is_none() {
            let slot = Inner::start(this);
            this.local.set(slot.is_none());
            *this.current.borrow_mut() = slot;
        }
        *this.sent.borrow_mut() = Some(request);
        if this.local.get() {
            Inner::run_here(this);
        } else if this.current.borrow().as_ref().is_some_and(|s| s.ready) {
            Inner::send(this);
        }
        // Otherwise the worker is loading: the request goes when it is ready.
    }

    /// Ends the worker at work (its job is stale) and hands `request` to the spare,
    /// or to a new worker when there is none; a new spare then loads.
    fn restart(this: &Rc<Inner>, request: Request) {
        Inner::stop(this);
        let spare = this.spare.borrow_mut().take();
        this.queue.borrow_mut().set_spare_ready(false);
        if let Some(mut slot) = spare {
            // The request waits for it only from now, and not at all if it listens.
            slot.waited_from = now_ms();
            slot.start_ms = 0.0;
            *this.current.borrow_mut() = Some(slot);
        }
        Inner::post(this, request);
        Inner::keep_spare(this);
    }

    /// Starts a spare worker once one is wanted, unless one is there, no worker runs
    /// at all, or the worker at work is still loading (a spare loading beside it
    /// would only slow it down; it starts when that one listens).
    fn keep_spare(this: &Rc<Inner>) {
        let at_work = this.current.borrow().as_ref().is_some_and(|s| s.ready);
        if !this.wants_spare.get() || this.local.get() || this.spare.borrow().is_some() || !at_work
        {
            return;
        }
        let slot = Inner::start(this);
        *this.spare.borrow_mut() = slot;
    }

    /// Checks again when the job in flight may be cancelled for the waiting request:
    /// a sweep that became stale early is not waited out to its end.
    fn cancel_when_due(this: &Rc<Inner>) {
        let Some(due) = this.queue.borrow().cancel_due() else {
            return;
        };
        let weak = Rc::downgrade(this);
        crate::web::after_ms(due - now_ms(), move || {
            if let Some(this) = weak.upgrade() {
                Inner::restart_if_overdue(&this);
                // A timer that fired early finds a request still waiting: check again
                // when its time has come, rather than wait out the stale job.
                Inner::cancel_when_due(&this);
            }
        });
    }

    fn restart_if_overdue(this: &Rc<Inner>) {
        let next = this.queue.borrow_mut().overdue(now_ms());
        if let Some(next) = next {
            Inner::restart(this, next);
        }
    }

    /// Posts the request in flight to the worker; the page runs it if that fails.
    fn send(this: &Rc<Inner>) {
        let text = this
            .sent
            .borrow()
            .as_ref()
            .and_then(|r| serde_json::to_string(r).ok());
        let Some(text) = text else { return };
        let posted = match this.current.borrow_mut().as_mut() {
            Some(slot) => {
                this.arrival.set(Arrival {
                    posted_at: now_ms(),
                    start_ms: std::mem::take(&mut slot.start_ms),
                    ..Arrival::default()
                });
                slot.worker.post_message(&JsValue::from_str(&text)).is_ok()
            }
            None => false,
        };
        if !posted {
            Inner::fail(this);
        }
    }

    /// The worker would not take a request or broke: the page runs the jobs itself
    /// from now on.
    fn fail(this: &Rc<Inner>) {
        Inner::stop(this);
        if let Some(spare) = this.spare.borrow_mut().take() {
            spare.end();
        }
        this.queue.borrow_mut().set_spare_ready(false);
        this.local.set(true);
        Inner::run_here(this);
    }

    /// Runs the request in flight on the page, after the current task, so the page
    /// answers the same way (asynchronously) with or without a worker.
    fn run_here(this: &Rc<Inner>) {
        let weak = Rc::downgrade(this);
        leptos::task::spawn_local(async move {
            let Some(this) = weak.upgrade() else { return };
            let Some(request) = this.sent.borrow().clone() else {
                return;
            };
            let t0 = now_ms();
            this.arrival.set(Arrival {
                posted_at: t0,
                ..Arrival::default()
            });
            let answer = run(&request, Catalogue::builtin());
            let reply = Reply {
                id: request.id,
                ms: now_ms() - t0,
                encode_ms: 0.0,
                answer,
            };
            Inner::received(&this, reply);
        });
    }

    /// A new worker, loading; `None` when the browser will not start one.
    fn start(this: &Rc<Inner>) -> Option<Slot> {
        let worker = web_sys::Worker::new(WORKER_SCRIPT).ok()?;
        let id = this.slots.get() + 1;
        this.slots.set(id);
        let on_message = {
            let weak: Weak<Inner> = Rc::downgrade(this);
            Closure::<dyn Fn(JsValue)>::new(move |ev: JsValue| {
                if let Some(this) = weak.upgrade() {
                    Inner::heard(&this, id, ev);
                }
            })
        };
        // The script would not load or the worker broke: the page takes over (or,
        // for a spare, does without it).
        let on_error = {
            let weak: Weak<Inner> = Rc::downgrade(this);
            Closure::<dyn Fn(JsValue)>::new(move |_| {
                let Some(this) = weak.upgrade() else { return };
                let spare = this.spare.borrow().as_ref().map(|s| s.id);
                if spare == Some(id) {
                    if let Some(spare) = this.spare.borrow_mut().take() {
                        spare.end();
                    }
                    this.queue.borrow_mut().set_spare_ready(false);
                } else {
                    Inner::fail(&this);
                }
            })
        };
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        Some(Slot {
            worker,
            id,
            _handlers: vec![on_message, on_error],
            waited_from: now_ms(),
            start_ms: 0.0,
            ready: false,
        })
    }

    /// A message from worker `id`: the one at work or the spare.
    fn heard(this: &Rc<Inner>, id: u64, ev: JsValue) {
        let t0 = now_ms();
        let data = ev
            .dyn_into::<web_sys::MessageEvent>()
            .ok()
            .and_then(|m| m.data().as_string())
            .unwrap_or_default();
        let listens = |slot: &RefCell<Option<Slot>>| match slot.borrow_mut().as_mut() {
            Some(s) if s.id == id && data == READY => {
                s.ready = true;
                s.start_ms = t0 - s.waited_from;
                true
            }
            _ => false,
        };
        if listens(&this.current) {
            Inner::send(this);
            Inner::keep_spare(this);
        } else if listens(&this.spare) {
            this.queue.borrow_mut().set_spare_ready(true);
            Inner::restart_if_overdue(this);
        } else if this.current.borrow().as_ref().is_some_and(|s| s.id == id) {
            if let Ok(message) = serde_json::from_str::<FromWorker>(&data) {
                let reply = this.assembly.borrow_mut().take(message);
                let mut arrival = this.arrival.get();
                arrival.read_ms += now_ms() - t0;
                this.arrival.set(arrival);
                if let Some(reply) = reply {
                    Inner::received(this, reply);
                }
            }
        }
    }

    /// Ends the worker at work.
    fn stop(this: &Rc<Inner>) {
        if let Some(slot) = this.current.borrow_mut().take() {
            slot.end();
        }
    }

    fn received(this: &Rc<Inner>, reply: Reply) {
        let read_at = now_ms();
        let arrival = Arrival {
            read_at,
            job_ms: reply.ms,
            encode_ms: reply.encode_ms,
            ..this.arrival.get()
        };
        let (current, next) = this.queue.borrow_mut().finished(reply.id, read_at);
        let request = {
            let mut sent = this.sent.borrow_mut();
            match sent.as_ref() {
                Some(r) if r.id == reply.id => sent.take(),
                _ => None,
            }
        };
        if let Some(next) = next {
            Inner::post(this, next);
        }
        if let (true, Some(request)) = (current, request) {
            // Reading a large reply and showing it are two tasks, not one.
            let weak = Rc::downgrade(this);
            crate::web::next_task(move || {
                if let Some(this) = weak.upgrade() {
                    (this.on_answer)(request, reply.answer, arrival);
                }
            });
        }
    }
}
