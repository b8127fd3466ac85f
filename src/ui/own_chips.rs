//! Chips of the user's own: a catalogue chip cloned under a new id, or a blank
//! accelerator from the template, each picked for the pool like any chip and given its
//! numbers in "Your numbers for these chips". Defined through `Scenario::apply` with
//! the link key `chip.<id>.from` (a chip id or `template`).

use super::chip_picker::toggle_chip;
use super::Page;
use crate::scenario::{CHIP_EDIT_PREFIX, USER_CHIP_FROM};
use disagg_engine::catalogue::{ChipField, TEMPLATE};
use disagg_engine::limits::MAX_USER_CHIPS;
use disagg_engine::Catalogue;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

fn from_key(id: &str) -> String {
    format!("{CHIP_EDIT_PREFIX}{id}.{USER_CHIP_FROM}")
}

#[component]
pub fn OwnChips() -> impl IntoView {
    let page = expect_context::<Page>();
    let cat = Catalogue::builtin();
    let new_id = RwSignal::new(String::new());
    let new_from = RwSignal::new("h100-sxm".to_string());
    let bases = std::iter::once(
        view! {
            <option value=TEMPLATE>"a blank accelerator (template)"</option>
        }
        .into_any(),
    )
    .chain(cat.chips.iter().map(|c| {
        let id = c.id.clone();
        let selected = c.id == "h100-sxm";
        view! { <option value=id selected=selected>{c.name.clone()}</option> }.into_any()
    }))
    .collect_view();
    let add = move |_| {
        let id = new_id.get_untracked().trim().to_ascii_lowercase();
        let key = from_key(&id);
        page.set_field(&key, &new_from.get_untracked());
        if page
            .scenario
            .with_untracked(|s| s.user_chips.contains_key(&id))
        {
            new_id.set(String::new());
        }
    };
    let items = move || {
        page.scenario.with(|s| {
            s.user_chips
                .iter()
                .map(|(id, from)| {
                    let picked = s.chips.contains(id);
                    let missing = s.user_chip_missing(id);
                    let base = if from == TEMPLATE {
                        "from the template".to_string()
                    } else {
                        format!(
                            "a copy of {}",
                            cat.chip(from).map_or(from.clone(), |c| c.name.clone())
                        )
                    };
                    let state = if missing.is_empty() {
                        String::new()
                    } else {
                        format!(
                            "; needs {} (below) before it can be picked",
                            ChipField::names(&missing)
                        )
                    };
                    // The numbers the user gave it, each graded "user".
                    let yours: Vec<String> = s
                        .chip_edits
                        .iter()
                        .filter(|((c, _), _)| c == id)
                        .map(|((_, f), v)| format!("{} {v} {}", f.id(), f.unit()))
                        .collect();
                    let yours = (!yours.is_empty()).then(|| {
                        view! {
                            " "
                            <span class="badge grade-user">"user"</span>
                            " "
                            <span class="chip-summary">{yours.join(", ")}</span>
                        }
                    });
                    let (toggle_id, remove_id) = (id.clone(), id.clone());
                    view! {
                        <li class="own-chip">
                            <input
                                type="checkbox"
                                id=format!("chip-{id}")
                                prop:checked=picked
                                disabled=!missing.is_empty()
                                on:change=move |ev| {
                                    toggle_chip(page, &toggle_id, event_target_checked(&ev));
                                    let kept = page.scenario.with_untracked(|s| s.chips.contains(&toggle_id));
                                    if let Some(input) = ev
                                        .target()
                                        .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
                                    {
                                        input.set_checked(kept);
                                    }
                                }
                            />
                            <label for=format!("chip-{id}")>
                                <span class="chip-name">{id.clone()}</span>
                                " "
                                <span class="chip-summary">{format!("{base}{state}")}</span>
                            </label>
                            {yours}
                            " "
                            <button
                                type="button"
                                id=format!("own-chip-remove-{id}")
                                on:click=move |_| page.set_field(&from_key(&remove_id), "")
                            >
                                "Remove"
                            </button>
                        </li>
                    }
                })
                .collect_view()
        })
    };
    // Only the refusals of chip definitions; the numbers' sit under their table.
    let errors = move || {
        page.field_errors.with(|e| {
            e.iter()
                .filter(|(k, _)| k.starts_with(CHIP_EDIT_PREFIX) && k.ends_with(USER_CHIP_FROM))
                .map(|(k, why)| view! { <li>{format!("{k}: {why}")}</li> })
                .collect_view()
        })
    };
    view! {
        <fieldset class="own-chips" id="own-chips">
            <legend>"Chips of your own (at most "{MAX_USER_CHIPS}")"</legend>
            <p class="hint">
                "Copy a catalogue chip under a new name, or start from a blank accelerator, then type its numbers in “Your numbers for these chips” (graded “user”). Tick it to add it to the pool; the link keeps it."
            </p>
            <div class="field">
                <label for="own-chip-id">"New chip id"</label>
                <input
                    type="text"
                    id="own-chip-id"
                    placeholder="my-h100"
                    prop:value=move || new_id.get()
                    on:input=move |ev| new_id.set(event_target_value(&ev))
                />
            </div>
            <div class="field">
                <label for="own-chip-from">"Starting from"</label>
                <select
                    id="own-chip-from"
                    on:change=move |ev| new_from.set(event_target_value(&ev))
                >
                    {bases}
                </select>
            </div>
            <button type="button" id="own-chip-add" on:click=add>"Add chip"</button>
            <ul class="field-error" id="own-chip-errors" role="alert">{errors}</ul>
            <ul class="chips own-chip-list">{items}</ul>
        </fieldset>
    }
}
