//! What the page ignored or changed (a damaged link, unreadable saved state), shown
//! until the user dismisses it.

use super::Page;
use leptos::prelude::*;

#[component]
pub fn Notices() -> impl IntoView {
    let page = expect_context::<Page>();
    view! {
        <Show when=move || page.notices.with(|n| !n.is_empty())>
            <section id="notices" class="notices" role="status" aria-live="polite">
                <h2>"Some settings were not used"</h2>
                <ul>
                    {move || {
                        page.notices
                            .get()
                            .into_iter()
                            .map(|n| view! { <li class="notice">{n}</li> })
                            .collect_view()
                    }}
                </ul>
                <button id="dismiss-notices" on:click=move |_| page.notices.set(Vec::new())>
                    "Dismiss"
                </button>
            </section>
        </Show>
    }
}
