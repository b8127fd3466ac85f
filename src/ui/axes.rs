//! The axes side by side, on request: sweeping every axis costs about as much as
//! the page's sweep times the axes, so it runs when asked and is dropped when the
//! scenario changes.

use super::Page;
use crate::compare::{rows, AxisRow};
use crate::explore::compare;
use disagg_engine::Catalogue;
use leptos::prelude::*;

#[component]
pub fn AxesTable() -> impl IntoView {
    let page = expect_context::<Page>();
    let table: RwSignal<Option<Result<Vec<AxisRow>, String>>> = RwSignal::new(None);
    // A new sweep makes the old comparison stale.
    Effect::new(move |_| {
        page.explored.track();
        table.set(None);
    });
    let run = move |_| {
        let Some(target) = page.with_result(|r| Some(r.target_tok_s_user)) else {
            return;
        };
        let s = page.scenario.get_untracked();
        table.set(Some(
            compare(&s, Catalogue::builtin(), target).map(|axes| rows(&axes)),
        ));
    };
    let body = move || {
        table.with(|t| match t {
            None => None,
            Some(Err(e)) => Some(view! { <p class="field-error">{e.clone()}</p> }.into_any()),
            Some(Ok(rows)) => Some(
                view! {
                    <div class="table-scroll" tabindex="0" role="region" aria-label="Axes compared"><table class="axes-table" id="axes-table">
                        <caption>"The best deployment of each axis at the same target"</caption>
                        <thead>
                            <tr>
                                <th scope="col">"Axis"</th>
                                <th scope="col">"Best tok/s per chip"</th>
                                <th scope="col">"Best $/Mtok"</th>
                            </tr>
                        </thead>
                        <tbody>
                            {rows
                                .iter()
                                .map(|r| {
                                    view! {
                                        <tr>
                                            <th scope="row">{r.axis}</th>
                                            <td>{r.throughput.clone()}</td>
                                            <td>{r.cost.clone()}</td>
                                        </tr>
                                    }
                                })
                                .collect_view()}
                        </tbody>
                    </table></div>
                }
                .into_any(),
            ),
        })
    };
    view! {
        <div class="axes">
            <button type="button" id="compare-axes" on:click=run>
                "Compare every axis at this target"
            </button>
            {body}
        </div>
    }
}
