//! Export of what the chart shows: the drawn points and frontiers as CSV or JSON, and
//! the chart as a PNG at the screen's resolution; and the scenario as a reproducible
//! bundle, downloaded (with the selected point) or imported.

use super::Page;
use crate::export::{csv, file_name, json};
use crate::web;
use disagg_engine::Catalogue;
use leptos::prelude::*;

/// Offers the scenario's bundle, with the selected point when one is selected.
fn download_bundle(page: Page) -> String {
    let scenario = page.scenario.get_untracked();
    let point = page.selected.get_untracked().and_then(|i| {
        page.explored
            .with_untracked(|e| e.as_ref()?.point(i).map(|p| p.spec.clone()))
    });
    let selected = point.is_some();
    match crate::bundle::bundle(&scenario, Catalogue::builtin(), point) {
        Ok(b) => {
            if web::download_text(crate::bundle::FILE_NAME, "application/json", &b.to_json()) {
                format!(
                    "Bundle exported{}.",
                    if selected {
                        ", with the selected point"
                    } else {
                        ""
                    }
                )
            } else {
                "The browser refused the download.".into()
            }
        }
        Err(why) => format!("No bundle: {why}"),
    }
}

/// Reads the chosen bundle into the scenario; its selected deployment is opened once
/// the sweep that draws it arrives.
fn import_bundle(page: Page, ev: leptos::ev::Event, said: RwSignal<String>) {
    let Some(file) = web::chosen_file(&ev) else {
        return;
    };
    leptos::task::spawn_local(async move {
        let Some(text) = web::file_text(file).await else {
            said.set("The chosen file could not be read.".into());
            return;
        };
        let current = page.scenario.get_untracked();
        match crate::bundle::import(&text, &current, Catalogue::builtin()) {
            Ok((scenario, point)) => {
                page.open_scenario(scenario, point);
                said.set("Bundle imported.".into());
            }
            Err(why) => said.set(format!("Not imported: {why}")),
        }
    });
}

#[component]
pub fn Export() -> impl IntoView {
    let page = expect_context::<Page>();
    let said = RwSignal::new(String::new());
    // An imported bundle's point (or an opened validation row's) is selected in the
    // first sweep of its scenario, which draws it beside its own points where it does
    // not keep it (the scenario's `show`); a notice says which.
    Effect::new(move |_| {
        page.explored.with(|e| {
            let Some(e) = e else { return };
            if page.scenario.with_untracked(|s| *s != e.scenario) {
                return;
            }
            let Some(spec) = page.pending_point.get_value() else {
                return;
            };
            page.pending_point.set_value(None);
            let found = e
                .result
                .as_ref()
                .ok()
                .and_then(|r| r.cloud.iter().position(|p| p.spec == spec));
            match found {
                Some(i) => {
                    if e.result.as_ref().is_ok_and(|r| r.shown == Some(i)) {
                        page.notices
                            .update(|n| n.push(crate::bundle::drawn_beside(&spec)));
                    }
                    page.selected.set(Some(i));
                }
                None => page
                    .notices
                    .update(|n| n.push(crate::bundle::not_drawn(&spec))),
            }
        });
    });
    let offer = move |what: &'static str| {
        let Some(model) = page.chart.get_untracked() else {
            said.set("Nothing to export yet.".into());
            return;
        };
        let scenario = page.scenario.get_untracked();
        let offered = page
            .explored
            .with_untracked(|e| {
                let r = e.as_ref()?.result.as_ref().ok()?;
                Some(match what {
                    "csv" => web::download_text(
                        &file_name(&scenario, "points", "csv"),
                        "text/csv",
                        &csv(&model, r),
                    ),
                    "json" => web::download_text(
                        &file_name(&scenario, "points", "json"),
                        "application/json",
                        &json(&model, r, &scenario),
                    ),
                    _ => web::download_canvas_png("chart", &file_name(&scenario, "chart", "png")),
                })
            })
            .unwrap_or(false);
        said.set(if offered {
            format!(
                "{} exported: {} points.",
                what.to_uppercase(),
                model.points.len()
            )
        } else {
            "The browser refused the download.".into()
        });
    };
    view! {
        <div class="export" role="group" aria-label="Export">
            <span>"Export"</span>
            <button id="export-csv" on:click=move |_| offer("csv")>"Points (CSV)"</button>
            <button id="export-json" on:click=move |_| offer("json")>"Points and frontiers (JSON)"</button>
            <button id="export-png" on:click=move |_| offer("png")>"Chart (PNG)"</button>
            <button
                id="export-bundle"
                title="One file with the model, chips (your numbers included), workload, settings and assumptions; `disagg sweep --bundle FILE` reproduces these figures"
                on:click=move |_| said.set(download_bundle(page))
            >"Download bundle"</button>
            <label class="file" for="import-bundle">"Import bundle"</label>
            <input
                type="file"
                id="import-bundle"
                accept=".json,application/json"
                on:change=move |ev| import_bundle(page, ev, said)
            />
            <span id="export-status" role="status">{said}</span>
        </div>
    }
}
