//! "Copy launch command" in the detail panel: the selected point's launch for a
//! framework the user picks (the scenario's by default), shown and copied. What it
//! says is `crate::launch`'s; this holds the markup and the clipboard.

use super::Page;
use crate::launch::{default_framework, launch_of};
use crate::web;
use disagg_engine::deploy::LaunchFramework;
use disagg_engine::Catalogue;
use leptos::prelude::*;

#[component]
pub fn LaunchCommand() -> impl IntoView {
    let page = expect_context::<Page>();
    let chosen = RwSignal::new(None::<LaunchFramework>);
    // Written only while open: a closed panel costs the detail view nothing.
    let open = RwSignal::new(false);
    let status = RwSignal::new(String::new());
    let framework = move || {
        chosen.get().unwrap_or_else(|| {
            page.explored.with(|e| {
                e.as_ref()
                    .map_or(LaunchFramework::Vllm, |e| default_framework(&e.scenario))
            })
        })
    };
    let script = Memo::new(move |_| {
        if !open.get() {
            return None;
        }
        let f = framework();
        let cloud = page.selected.get()?;
        page.explored.with(|e| {
            let e = e.as_ref()?;
            let p = e.point(cloud)?;
            Some(launch_of(&e.scenario, &p.spec, Catalogue::builtin(), f).map(|l| l.script()))
        })
    });
    Effect::new(move |_| {
        page.selected.track();
        status.set(String::new());
    });
    let copy = move |_| {
        let Some(Ok(text)) = script.get_untracked() else {
            return;
        };
        web::copy_or_select(&text, "launch-command", move |copied| {
            status.set(if copied {
                "Copied to the clipboard.".into()
            } else {
                "The command is selected: press Ctrl+C (Cmd+C on a Mac) to copy it.".into()
            })
        });
    };
    let options = LaunchFramework::ALL.map(|f| {
        view! { <option value=f.id() selected=move || framework() == f>{f.name()}</option> }
    });
    view! {
        <details
            class="launch"
            id="launch"
            on:toggle=move |ev| open.set(event_target::<web_sys::HtmlDetailsElement>(&ev).open())
        >
            <summary id="launch-open">"Copy launch command"</summary>
            <label>
                "Framework "
                <select
                    id="launch-framework"
                    on:change=move |ev| {
                        chosen.set(event_target_value(&ev).parse().ok());
                        status.set(String::new());
                    }
                >
                    {options.into_iter().collect_view()}
                </select>
            </label>
            {move || match script.get() {
                Some(Ok(text)) => view! {
                    <pre id="launch-command" tabindex="0" aria-label="Launch command">{text}</pre>
                }
                .into_any(),
                Some(Err(e)) => view! { <p role="alert">{e}</p> }.into_any(),
                None => ().into_any(),
            }}
            <button id="launch-copy" on:click=copy>"Copy"</button>
            <span id="launch-status" role="status">{move || status.get()}</span>
        </details>
    }
}
