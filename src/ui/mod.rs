//! The page's Leptos components. They hold signals and markup only: every decision
//! (what a link means, what the chart shows, what is saved) is made by the plain
//! modules of this crate and tested natively.

mod assumptions;
mod axes;
mod callout;
mod chain;
mod chart_view;
mod chip_edits;
mod chip_picker;
mod controls;
pub(crate) mod cost;
mod desk;
mod detail;
mod export;
mod launch;
mod notices;
mod own_chips;
mod own_model;
mod pins;
mod points_table;
mod rate;
mod recommend;
mod run_settings;
mod share;
mod topology;
mod validation;
mod validation_point;

pub use assumptions::AssumptionsPanel;
pub use axes::AxesTable;
pub use callout::Callout;
pub use chart_view::{ChartView, FrontierTable, Status};
pub use chip_edits::ChipEdits;
pub use chip_picker::ChipPicker;
pub use controls::Controls;
pub use desk::{DeskControls, DeskReading};
pub use detail::Detail;
pub use export::Export;
pub use notices::Notices;
pub use own_chips::OwnChips;
pub use own_model::{ModelSummary, OwnModel};
pub use pins::Pins;
pub use points_table::PointsTable;
pub use rate::RateNote;
pub use recommend::RecommendView;
pub use share::Share;
pub use validation::{ValidationView, ViewSwitch};

use crate::chart::ChartModel;
use crate::jobs::{Answer, Job};
use crate::perf::{Arrival, Latencies, Redraw};
use crate::scenario::Scenario;
use crate::storage::{self, Preferences, Start};
use crate::validation_view::opened::ExploredRun;
use crate::validation_view::{View, ViewState};
use crate::web::{self, BrowserStore};
use crate::worker::Sweeper;
use disagg_engine::disagg::DeploymentSpec;
use disagg_engine::sweep::{SweepPoint, SweepResult};
use disagg_engine::validation::ValidationReport;
use disagg_engine::Catalogue;
use leptos::prelude::*;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;

/// The id of the frontier-table button that opens cloud point `i`.
pub fn opener_id(i: usize) -> String {
    format!("open-{i}")
}

/// A sweep as the page ran it.
#[derive(Debug, PartialEq)]
pub struct Explored {
    /// The scenario swept; its y axis and colours are not used.
    pub scenario: Scenario,
    pub result: Result<SweepResult, String>,
}

impl Explored {
    pub fn point(&self, cloud_index: usize) -> Option<&SweepPoint> {
        self.result.as_ref().ok()?.cloud.get(cloud_index)
    }
}

/// The page's state, shared by context. Every field is a signal, so it is `Copy`.
#[derive(Clone, Copy)]
pub struct Page {
    pub scenario: RwSignal<Scenario>,
    pub preferences: RwSignal<Preferences>,
    pub notices: RwSignal<Vec<String>>,
    /// Per-input messages for values that were refused, by query key.
    pub field_errors: RwSignal<BTreeMap<String, String>>,
    pub explored: RwSignal<Option<Arc<Explored>>>,
    /// A sweep is under way (the chart shows the last one meanwhile).
    pub sweeping: RwSignal<bool>,
    /// The published points as the engine predicts them (computed once, in a worker):
    /// the measured error the page shows beside its figures.
    pub validation: RwSignal<Option<Arc<ValidationReport>>>,
    /// What the chart draws of the current sweep.
    pub chart: Memo<Option<Arc<ChartModel>>>,
    /// Index into the sweep's cloud.
    pub selected: RwSignal<Option<usize>>,
    /// A deployment to select once the sweep of the current scenario draws it: an
    /// imported bundle's, or an opened validation row's.
    pub pending_point: StoredValue<Option<DeploymentSpec>>,
    /// The validation row whose scenario "Explore its scenario" opened, and its run's
    /// measurements that the current sweep's scenario reproduces (the chart's cross, the
    /// detail panel's list; `validation_view::opened::ExploredRun`).
    pub explored_row: RwSignal<Option<String>>,
    pub explored_run: Memo<Option<Arc<ExploredRun>>>,
    /// The id of the control that opened the selected point's details, where focus
    /// returns when they close.
    pub opener: StoredValue<Option<String>>,
    pub hovered: RwSignal<Option<usize>>,
    /// When the input that the next redraw answers happened.
    pub input_at: StoredValue<Option<f64>>,
    /// How a sweep not yet reported by a redraw arrived.
    pub unreported_arrival: StoredValue<Option<Arrival>>,
    pub last_redraw: RwSignal<Option<Redraw>>,
    pub latencies: RwSignal<Latencies>,
    /// Which view shows (explorer or the published measurements) and the latter's
    /// filters; they travel in the link.
    pub view: RwSignal<ViewState>,
    /// The pinned scenarios (link key `pins`) and their sweeps, by swept query.
    pub pins: RwSignal<Vec<crate::pins::Pin>>,
    pub pin_sweeps: RwSignal<crate::pins::Sweeps>,
}

impl Page {
    pub fn new(start: Start) -> Page {
        let scenario = RwSignal::new(start.scenario);
        let preferences = RwSignal::new(start.preferences);
        let explored = RwSignal::new(None);
        let pins = RwSignal::new(Vec::new());
        let pin_sweeps = RwSignal::new(crate::pins::Sweeps::new());
        let validation = RwSignal::new(None);
        let explored_row = RwSignal::new(None);
        let explored_run = chart_view::explored_run(explored, explored_row, validation);
        Page {
            scenario,
            preferences,
            notices: RwSignal::new(start.notices),
            field_errors: RwSignal::new(BTreeMap::new()),
            explored,
            sweeping: RwSignal::new(false),
            validation,
            chart: chart_view::chart_model(
                scenario,
                preferences,
                explored,
                (pins, pin_sweeps),
                explored_run,
            ),
            selected: RwSignal::new(start.point),
            pending_point: StoredValue::new(None),
            explored_row,
            explored_run,
            opener: StoredValue::new(None),
            hovered: RwSignal::new(None),
            input_at: StoredValue::new(Some(web::now_ms())),
            unreported_arrival: StoredValue::new(None),
            last_redraw: RwSignal::new(None),
            latencies: RwSignal::new(Latencies::default()),
            view: RwSignal::new(ViewState::default()),
            pins,
            pin_sweeps,
        }
    }

    /// Changes the scenario from an input: starts the latency clock and clears the
    /// selection, which belongs to the old sweep.
    pub fn edit(&self, f: impl FnOnce(&mut Scenario)) {
        self.input_at.set_value(Some(web::now_ms()));
        // A set notifies even when nothing changes; clear only what is set.
        if self.selected.get_untracked().is_some() {
            self.selected.set(None);
        }
        if self.hovered.get_untracked().is_some() {
            self.hovered.set(None);
        }
        self.scenario.update(f);
    }

    /// Replaces the scenario with one read from a bundle (an imported file, an opened
    /// validation row's), its deployment `point` to be selected once that scenario's
    /// sweep draws it (`pending_point`).
    pub fn open_scenario(&self, scenario: Scenario, point: Option<DeploymentSpec>) {
        self.pending_point.set_value(point);
        self.field_errors.update(|e| e.clear());
        self.edit(|s| *s = scenario);
    }

    /// Changes a preference from an input: the redraw that follows answers it.
    pub fn edit_preferences(&self, f: impl FnOnce(&mut Preferences)) {
        self.input_at.set_value(Some(web::now_ms()));
        self.preferences.update(f);
    }

    /// Sets one control from its text; a refused value keeps the scenario and shows
    /// a message by the input.
    pub fn set_field(&self, key: &str, value: &str) {
        let mut next = self.scenario.get_untracked();
        match next.apply(key, value, Catalogue::builtin()) {
            Ok(warnings) => {
                if matches!(key, "model" | "cfg") {
                    // Their controls vanish with a dense model; so do their values.
                    next.reset_expert_settings_of_a_dense_model(Catalogue::builtin());
                }
                self.field_errors.update(|e| {
                    e.remove(key);
                });
                if !warnings.is_empty() {
                    self.notices.update(|n| n.extend(warnings));
                }
                if next != self.scenario.get_untracked() {
                    self.edit(|s| *s = next);
                }
            }
            Err(why) => self.field_errors.update(|e| {
                e.insert(key.to_string(), why);
            }),
        }
    }

    /// Reads the current sweep's result, when there is one and it succeeded (tracked,
    /// like any signal read).
    pub fn with_result<T>(&self, f: impl FnOnce(&SweepResult) -> Option<T>) -> Option<T> {
        self.explored.with(|e| f(e.as_ref()?.result.as_ref().ok()?))
    }

    /// Opens cloud point `i`'s details from the control `opener`.
    pub fn open_detail(&self, i: usize, opener: String) {
        self.opener.set_value(Some(opener));
        self.selected.set(Some(i));
    }

    /// Closes the detail panel and gives the keyboard focus back to what opened it
    /// (the frontier row of the point when the chart did), so focus never drops to the
    /// page.
    pub fn close_detail(&self) {
        if let Some(i) = self.selected.get_untracked() {
            self.selected.set(None);
            let opener = self.opener.get_value().unwrap_or_else(|| opener_id(i));
            self.opener.set_value(None);
            web::focus(&opener);
        }
    }

    /// The link of what the page shows: the scenario, the selected point, and the view
    /// with its filters (tracked).
    pub fn link_query(&self) -> String {
        let point = self.selected.get();
        let link = self
            .scenario
            .with(|s| crate::scenario::link_query(s, point));
        let link = match self.view.with(ViewState::to_query) {
            view if view.is_empty() => link,
            view => format!("{link}&{view}"),
        };
        match self.pins.with(|p| crate::pins::link_pair(p)) {
            Some(pins) => format!("{link}&{pins}"),
            None => link,
        }
    }

    pub fn field_error(&self, key: &'static str) -> impl Fn() -> Option<String> + Copy {
        let errors = self.field_errors;
        move || errors.with(|e| e.get(key).cloned())
    }
}

/// The refusals of every field whose link key starts with `prefix` (a table of inputs
/// sharing one message area), one item each.
#[component]
pub fn PrefixedErrors(prefix: &'static str) -> impl IntoView {
    let page = expect_context::<Page>();
    let items = move || {
        page.field_errors.with(|e| {
            e.iter()
                .filter(|(k, _)| k.starts_with(prefix))
                .map(|(k, why)| view! { <li>{format!("{k}: {why}")}</li> })
                .collect_view()
        })
    };
    view! { <ul class="field-error" role="alert">{items}</ul> }
}

/// A finished sweep becomes the page's: shown, timed, and the link's point checked
/// against it.
fn show_sweep(
    page: Page,
    scenario: Scenario,
    result: Result<SweepResult, String>,
    arrival: Arrival,
) {
    page.unreported_arrival.set_value(Some(arrival));
    // Only a link selects a point before a sweep (an edit clears the selection):
    // check it names one of this sweep's points.
    let drawn = result.as_ref().map_or(0, |r| r.cloud.len());
    if let Some(n) = page.selected.get_untracked().filter(|n| *n >= drawn) {
        page.selected.set(None);
        page.notices.update(|v| {
            v.push(format!(
                "link: ignored point={n}: this sweep has {drawn} points (0 to {})",
                drawn.saturating_sub(1)
            ))
        });
    }
    page.explored
        .set(Some(Arc::new(Explored { scenario, result })));
    page.sweeping.set(false);
}

/// Sweeps (in the worker) whenever the scenario changes, and keeps the link and the
/// saved state in step with it.
fn run_page(page: Page) {
    // What the sweep depends on: the scenario without the chart's y axis, so that
    // switching the axis redraws without sweeping again.
    let swept = Memo::new(move |_| {
        page.scenario.with(|s| Scenario {
            y_axis: crate::scenario::YAxis::TokSPerChip,
            colour_by: crate::scenario::ColourBy::Price,
            ..s.clone()
        })
    });
    Effect::new(move |_| {
        web::replace_query(&page.link_query());
    });
    let sweeper = Rc::new(Sweeper::new(move |request, answer, arrival| {
        let Answer::Sweep(result) = answer else {
            return;
        };
        let (scenario, _) = Scenario::from_query(&request.query, Catalogue::builtin());
        show_sweep(page, scenario, result.map(|r| *r), arrival);
    }));
    Effect::new(move |_| {
        let s = swept.get();
        page.sweeping.set(true);
        sweeper.submit(&s, Job::Sweep);
    });
    // Once, in a worker of its own: the published points, predicted.
    let validator = Sweeper::new(move |_, answer, _| {
        if let Answer::Validation(Ok(report)) = answer {
            page.validation.set(Some(Arc::new(*report)));
        }
    });
    validator.submit(&Scenario::default(), Job::Validation);
    // Kept by the page's owner, so the worker lives as long as the page.
    StoredValue::new_local(validator);
    Effect::new(move |_| {
        let s = page.scenario.get();
        let p = page.preferences.get();
        storage::save(&mut BrowserStore, &s, &p);
    });
}

/// The whole page.
#[component]
pub fn App() -> impl IntoView {
    // The pins' and the view's keys are the page's, not the scenario's: read apart.
    let (pins, query, pin_notices) = crate::pins::split_query(&web::query(), Catalogue::builtin());
    let (view, query, view_notices) =
        crate::validation_view::split_query(&query, Catalogue::builtin());
    let mut start = storage::start(&query, &mut BrowserStore, Catalogue::builtin());
    start
        .notices
        .extend(view_notices.into_iter().map(|n| format!("link: {n}")));
    start
        .notices
        .extend(pin_notices.into_iter().map(|n| format!("link: {n}")));
    let page = Page::new(start);
    page.view.set(view);
    page.pins.set(pins);
    provide_context(page);
    let explorer = move || page.view.with(|v| v.view == View::Explorer);
    run_page(page);
    view! {
        <a class="skip-link" href=move || match page.view.with(|v| v.view) {
            View::Explorer => "#results",
            View::Validation => "#validation",
            View::Recommend => "#recommend",
        }>"Skip to the results"</a>
        <header class="masthead">
            <h1>"Disagg Explorer"</h1>
            <p class="tagline">
                "Where does splitting LLM inference across different chips beat one chip kind? "
                "Throughput, interactivity and $/Mtok from a roofline model you can check by hand."
            </p>
        </header>
        <ViewSwitch/>
        <Notices/>
        <Show when=move || page.view.with(|v| v.view == View::Validation)>
            <ValidationView/>
        </Show>
        <Show when=move || page.view.with(|v| v.view == View::Recommend)>
            <RecommendView/>
        </Show>
        <main class="layout" hidden=move || !explorer()>
            <aside class="controls" aria-label="Scenario">
                <Controls/>
                <DeskControls/>
                <ChipPicker/>
                <OwnChips/>
                <ChipEdits/>
                <run_settings::RunSettingsPanel/>
                <AssumptionsPanel/>
            </aside>
            <section class="results" id="results" tabindex="-1" aria-label="Results" aria-busy=move || page.sweeping.get().to_string()>
                <Share/>
                <Pins/>
                <Callout/>
                <RateNote/>
                <ChartView/>
                <Status/>
                <Export/>
                <DeskReading/>
                <Detail/>
                <FrontierTable/>
                <PointsTable/>
            </section>
        </main>
        <footer class="footer">
            "All numbers are computed in your browser from public data; each chip's sources are under its grade badge. "
            "The equations: "<a href="docs/model.html">"the performance model"</a>"; the evidence and measured error: "<a href="docs/audit.html">"the audit"</a>"."
        </footer>
    }
}
