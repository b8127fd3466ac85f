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
pub struct Sweeper {
    inner: Rc<Inner>,
}

struct Inner {
    worker: RefCell<Option<web_sys::Worker>>,
    handlers: RefCell<Handlers>,
    queue: RefCell<Queue>,
    /// The request in flight, to run on the page if the worker fails.
    sent: RefCell<Option<Request>>,
    next_id: Cell<u64>,
    /// No worker could start or it failed: jobs run on the page.
    local: Cell<bool>,
    /// The worker has said it listens.
    ready: Cell<bool>,
    /// The parts of the reply on its way.
    assembly: RefCell<Assembly>,
    /// How the request in flight is getting on: when it was posted, how long its
    /// worker took to start, the time spent reading its messages.
    arrival: Cell<Arrival>,
    /// When the worker was created, and how long it took to listen (until a request
    /// is posted to it).
    started_at: Cell<f64>,
    start_ms: Cell<f64>,
    on_answer: OnAnswer,
}

fn now_ms() -> f64 {
    crate::web::now_ms()
}

impl Sweeper {
    pub fn new(on_answer: impl Fn(Request, Answer, Arrival) + 'static) -> Sweeper {
        Sweeper {
            inner: Rc::new(Inner {
                worker: RefCell::new(None),
                handlers: RefCell::new(Vec::new()),
                queue: RefCell::new(Queue::default()),
                sent: RefCell::new(None),
                next_id: Cell::new(1),
                local: Cell::new(false),
                ready: Cell::new(false),
                assembly: RefCell::new(Assembly::default()),
                arrival: Cell::new(Arrival::default()),
                started_at: Cell::new(0.0),
                start_ms: Cell::new(0.0),
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
            Action::Wait => Inner::cancel_when_due(&self.inner),
            Action::Restart(r) => {
                Inner::stop(&self.inner);
                Inner::post(&self.inner, r);
            }
        }
    }
}

impl Inner {
    fn post(this: &Rc<Inner>, request: Request) {
        if !this.local.get() && this.worker.borrow().is_none() {
            Inner::start(this);
        }
        *this.sent.borrow_mut() = Some(request);
        if this.local.get() {
            Inner::run_here(this);
        } else if this.ready.get() {
            Inner::send(this);
        }
        // Otherwise the worker is loading: the request goes when it is ready.
    }

    /// Checks again when the job in flight may be cancelled for the waiting request:
    /// a sweep that became stale early is not waited out to its end.
    fn cancel_when_due(this: &Rc<Inner>) {
        let Some(due) = this.queue.borrow().cancel_due() else {
            return;
        };
        let weak = Rc::downgrade(this);
        crate::web::after_ms(due - now_ms(), move || {
            let Some(this) = weak.upgrade() else { return };
            let next = this.queue.borrow_mut().overdue(now_ms());
            if let Some(next) = next {
                Inner::stop(&this);
                Inner::post(&this, next);
            }
            // A timer that fired early finds a request still waiting: check again when
            // its time has come, rather than wait out the stale job.
            Inner::cancel_when_due(&this);
        });
    }

    /// Posts the request in flight to the worker; the page runs it if that fails.
    fn send(this: &Rc<Inner>) {
        let text = this
            .sent
            .borrow()
            .as_ref()
            .and_then(|r| serde_json::to_string(r).ok());
        let Some(text) = text else { return };
        this.arrival.set(Arrival {
            posted_at: now_ms(),
            start_ms: this.start_ms.replace(0.0),
            ..Arrival::default()
        });
        let posted = this
            .worker
            .borrow()
            .as_ref()
            .is_some_and(|w| w.post_message(&JsValue::from_str(&text)).is_ok());
        if !posted {
            Inner::stop(this);
            this.local.set(true);
            Inner::run_here(this);
        }
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

    fn start(this: &Rc<Inner>) {
        this.started_at.set(now_ms());
        let Ok(worker) = web_sys::Worker::new(WORKER_SCRIPT) else {
            this.local.set(true);
            return;
        };
        let on_message = {
            let weak: Weak<Inner> = Rc::downgrade(this);
            Closure::<dyn Fn(JsValue)>::new(move |ev: JsValue| {
                let Some(this) = weak.upgrade() else { return };
                let t0 = now_ms();
                let data = ev
                    .dyn_into::<web_sys::MessageEvent>()
                    .ok()
                    .and_then(|m| m.data().as_string())
                    .unwrap_or_default();
                if data == READY {
                    this.ready.set(true);
                    this.start_ms.set(t0 - this.started_at.get());
                    Inner::send(&this);
                } else if let Ok(message) = serde_json::from_str::<FromWorker>(&data) {
                    let reply = this.assembly.borrow_mut().take(message);
                    let mut arrival = this.arrival.get();
                    arrival.read_ms += now_ms() - t0;
                    this.arrival.set(arrival);
                    if let Some(reply) = reply {
                        Inner::received(&this, reply);
                    }
                }
            })
        };
        // The script would not load or the worker broke: the page takes over.
        let on_error = {
            let weak: Weak<Inner> = Rc::downgrade(this);
            Closure::<dyn Fn(JsValue)>::new(move |_| {
                let Some(this) = weak.upgrade() else { return };
                Inner::stop(&this);
                this.local.set(true);
                Inner::run_here(&this);
            })
        };
        worker.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        worker.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        *this.handlers.borrow_mut() = vec![on_message, on_error];
        *this.worker.borrow_mut() = Some(worker);
    }

    fn stop(this: &Rc<Inner>) {
        this.ready.set(false);
        if let Some(w) = this.worker.borrow_mut().take() {
            w.set_onmessage(None);
            w.set_onerror(None);
            w.terminate();
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
