//! With a request rate set: what an open loop means and what the chart then shows
//! (`crate::open_loop` decides the words).

use super::Page;
use crate::open_loop::{sweep_note, MEANING};
use leptos::prelude::*;

#[component]
pub fn RateNote() -> impl IntoView {
    let page = expect_context::<Page>();
    let rate = move || page.scenario.with(|s| s.rate);
    let note = move || {
        let r = rate()?;
        page.with_result(|result| Some(sweep_note(r, result)))
    };
    view! {
        <Show when=move || rate().is_some()>
            <section class="rate-note" id="rate-note" aria-label="Open loop">
                <p>{MEANING}</p>
                <p id="rate-sweep">{note}</p>
            </section>
        </Show>
    }
}
