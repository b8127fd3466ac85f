//! The axes side by side, on request: sweeping every axis costs about as much as
//! the page's sweep times the axes, so it runs when asked and is dropped when the
//! scenario changes.

use super::Page;
use crate::compare::{rows, AxisRow};
use crate::jobs::{Answer, Job};
use crate::worker::Sweeper;
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
    // Its own worker: a comparison never waits behind, or cancels, the page's sweep.
    let comparing = RwSignal::new(false);
    let sweeper = StoredValue::new_local(None::<Sweeper>);
    let run = move |_| {
        let Some(target) = page.with_result(|r| Some(r.target_tok_s_user)) else {
            return;
        };
        let s = page
            .explored
            .with_untracked(|e| e.as_ref().map(|e| e.scenario.clone()));
        let Some(s) = s else { return };
        if sweeper.with_value(Option::is_none) {
            sweeper.set_value(Some(Sweeper::new(move |request, answer, _| {
                comparing.set(false);
                // A comparison of a scenario the page has left is not shown.
                let current = page.explored.with_untracked(|e| {
                    e.as_ref().map(|e| e.scenario.to_query()) == Some(request.query.clone())
                });
                if let (Answer::Axes(axes), true) = (answer, current) {
                    table.set(Some(axes.map(|a| rows(&a))));
                }
            })));
        }
        comparing.set(true);
        sweeper.with_value(|w| {
            if let Some(w) = w {
                w.submit(
                    &s,
                    Job::Axes {
                        target_tok_s_user: target.value(),
                    },
                )
            }
        });
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
            <Show when=move || comparing.get()>
                <p role="status" id="axes-busy">"Sweeping every axis…"</p>
            </Show>
            {body}
        </div>
    }
}
