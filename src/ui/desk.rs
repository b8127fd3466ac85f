//! Desk clusters: the link between pools (a catalogued one, link key `link`), the
//! "desk cluster" preset (EXO's DGX Spark prefill + Mac Studio decode run), and that
//! run's measured request latency beside the prediction. The logic is `crate::desk`.

use super::Page;
use crate::desk::{self, Reading};
use disagg_engine::catalogue::Links;
use disagg_engine::validation::BenchmarkPoint;
use leptos::prelude::*;

/// EXO's row of the table compiled into the engine, read once.
fn exo_row() -> Option<&'static BenchmarkPoint> {
    desk::row(crate::validation_view::published_table()?)
}

/// The link chooser and the preset's button.
#[component]
pub fn DeskControls() -> impl IntoView {
    let page = expect_context::<Page>();
    let s = page.scenario;
    let error = page.field_error("link");
    let options = Links::builtin()
        .links
        .iter()
        .map(|l| {
            let id = l.id.clone();
            let this = l.id.clone();
            let latency = l
                .latency
                .map_or(String::new(), |t| format!(", {:.0} µs", t.us()));
            view! {
                <option value=id prop:selected=move || s.with(|s| s.link.as_deref() == Some(this.as_str()))>
                    {format!("{} ({:.0} Gb/s each way{latency})", l.name, l.gbps())}
                </option>
            }
        })
        .collect_view();
    let preset = move |_| {
        if let Some(row) = exo_row() {
            page.edit(|s| *s = desk::scenario(row));
        }
    };
    view! {
        <fieldset class="desk">
            <legend>"Link between pools"</legend>
            <div class="field">
                <label for="in-link">"Link"</label>
                <select
                    id="in-link"
                    aria-describedby="in-link-error"
                    on:change=move |ev| page.set_field("link", &event_target_value(&ev))
                >
                    <option value="chips" prop:selected=move || s.with(|s| s.link.is_none())>
                        "the chips' own links"
                    </option>
                    {options}
                </select>
                <p class="field-error" id="in-link-error" role="alert">{error}</p>
            </div>
            <button type="button" id="desk-preset" on:click=preset disabled=exo_row().is_none()>
                "Desk cluster: DGX Spark prefill + Mac Studio decode (EXO)"
            </button>
            <span class="hint">
                {exo_row().map(desk::describe).unwrap_or_default()}
            </span>
        </fieldset>
    }
}

/// Under the preset: EXO's deployment from the sweep, its predicted request latency
/// beside EXO's measured one; its details open when its sweep arrives.
#[component]
pub fn DeskReading() -> impl IntoView {
    let page = expect_context::<Page>();
    // The preset's deployment in the current sweep, when the sweep is the preset's.
    let found = Memo::new(move |_| {
        let row = exo_row()?;
        page.explored.with(|e| {
            let e = e.as_ref()?;
            if !desk::is_preset(&e.scenario, row) {
                return None;
            }
            let result = e.result.as_ref().ok()?;
            let i = desk::pick(result, row)?;
            Some((i, Reading::of(&result.cloud[i], row)?))
        })
    });
    // A sweep of the preset opens EXO's deployment, unless a point is already open.
    Effect::new(move |_| {
        if let Some((i, _)) = found.get() {
            if page.selected.get_untracked().is_none() {
                page.open_detail(i, "desk-open".into());
            }
        }
    });
    move || {
        found.get().map(|(i, r)| {
            let row = exo_row();
            view! {
                <section class="desk-reading" id="desk-reading" aria-label="Desk cluster">
                    <h2>"Desk cluster: EXO's DGX Spark + Mac Studio run"</h2>
                    <p>{row.map(desk::describe)}</p>
                    <p>
                        "Request latency (TTFT + (OSL - 1) x TPOT): "
                        <strong id="desk-line">{r.line()}</strong>
                    </p>
                    <p class="hint">
                        {row.map(|p| format!("Validation row {} (hold-out), {}", p.id, p.source))}
                    </p>
                    <button type="button" id="desk-open" on:click=move |_| page.open_detail(i, "desk-open".into())>
                        "Open this deployment's details"
                    </button>
                </section>
            }
        })
    }
}
