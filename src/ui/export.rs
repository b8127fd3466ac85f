//! Export of what the chart shows: the drawn points and frontiers as CSV or JSON, and
//! the chart as a PNG at the screen's resolution.

use super::Page;
use crate::export::{csv, file_name, json};
use crate::web;
use leptos::prelude::*;

#[component]
pub fn Export() -> impl IntoView {
    let page = expect_context::<Page>();
    let said = RwSignal::new(String::new());
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
            <span id="export-status" role="status">{said}</span>
        </div>
    }
}
