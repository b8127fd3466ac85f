//! The scenario as a link: always in the address bar, and here to copy.

use super::Page;
use crate::web;
use leptos::prelude::*;

#[component]
pub fn Share() -> impl IntoView {
    let page = expect_context::<Page>();
    let link = Memo::new(move |_| web::link_for(&page.link_query()));
    let said = RwSignal::new(String::new());
    let copy = move |_| {
        let url = link.get_untracked();
        said.set(if web::copy(&url) {
            "Link copied. It reproduces this view exactly.".into()
        } else {
            "Copy the link from the box.".into()
        });
    };
    view! {
        <div class="share">
            <button id="copy-link" on:click=copy>"Copy link"</button>
            <label class="visually-hidden" for="share-link">"Link to this scenario"</label>
            <input id="share-link" type="text" readonly prop:value=link on:focus=|ev| {
                use wasm_bindgen::JsCast;
                if let Some(input) = ev.target().and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok()) {
                    input.select();
                }
            }/>
            <span id="copy-status" role="status">{said}</span>
        </div>
    }
}
