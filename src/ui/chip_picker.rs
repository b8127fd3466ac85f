//! The chip pool: every catalogue chip with its key numbers and a grade badge that
//! opens the sources behind them.

use super::Page;
use crate::chips::ChipCard;
use crate::scenario::MAX_CHIP_KINDS;
use disagg_engine::Catalogue;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

/// Adds or removes a chip through `Scenario::apply`; a refusal (an empty pool, too
/// many kinds) is shown beside the picker.
pub fn toggle_chip(page: Page, id: &str, on: bool) {
    match page.scenario.with_untracked(|s| s.chips_toggled(id, on)) {
        Ok(chips) => page.set_field("chips", &chips),
        Err(why) => page.field_errors.update(|e| {
            e.insert("chips".into(), why);
        }),
    }
}

#[component]
fn ChipRow(card: ChipCard) -> impl IntoView {
    let page = expect_context::<Page>();
    let id = card.id.clone();
    let checkbox = format!("chip-{}", card.id);
    let selected = {
        let id = id.clone();
        Signal::derive(move || page.scenario.with(|s| s.chips.contains(&id)))
    };
    let vendor = card.vendor.clone();
    let visible = move || {
        page.preferences
            .with(|p| p.vendor_filter.is_empty() || p.vendor_filter == vendor)
    };
    let grade = card.grade.name();
    let numbers = card
        .numbers
        .iter()
        .map(|n| {
            view! {
                <tr>
                    <th scope="row">{n.label}</th>
                    <td>{n.value.clone()}</td>
                    <td><span class=format!("badge grade-{}", n.grade.name())>{n.grade.name()}</span></td>
                    <td class="sources">
                        {n.sources.join("; ")}
                        {n.formula.clone().map(|f| view! { <div class="formula">"= "{f}</div> })}
                        {n.note.clone().map(|t| view! { <div class="note">{t}</div> })}
                    </td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <li class="chip" class:hidden=move || !visible() class:on=selected>
            <input
                type="checkbox"
                id=checkbox.clone()
                prop:checked=selected
                on:change=move |ev| {
                    toggle_chip(page, &id, event_target_checked(&ev));
                    // A refused toggle leaves the pool as it was: so must the box.
                    let kept = page.scenario.with_untracked(|s| s.chips.contains(&id));
                    if let Some(input) = ev
                        .target()
                        .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
                    {
                        input.set_checked(kept);
                    }
                }
            />
            <label for=checkbox>
                <span class="chip-name">{card.name.clone()}</span>
                <span class="chip-summary">{card.summary.clone()}</span>
            </label>
            <details class="provenance">
                <summary class=format!("badge grade-{grade}") title=card.tooltip()>
                    {grade}
                    <span class="visually-hidden">" — sources for "{card.name.clone()}</span>
                </summary>
                <div class="table-scroll" tabindex="0" role="region" aria-label="Sources"><table>
                    <caption class="visually-hidden">"Sources for "{card.name.clone()}</caption>
                    <thead>
                        <tr><th>"field"</th><th>"value"</th><th>"grade"</th><th>"source"</th></tr>
                    </thead>
                    <tbody>{numbers}</tbody>
                </table></div>
            </details>
        </li>
    }
}

#[component]
pub fn ChipPicker() -> impl IntoView {
    let page = expect_context::<Page>();
    let cat = Catalogue::builtin();
    let mut vendors: Vec<String> = cat.chips.iter().map(|c| c.vendor.clone()).collect();
    vendors.sort();
    vendors.dedup();
    let prefs = page.preferences;
    let vendor_options = vendors
        .into_iter()
        .map(|v| {
            let v2 = v.clone();
            let value = v.clone();
            view! {
                <option value=value prop:selected=move || prefs.with(|p| p.vendor_filter == v2)>
                    {v}
                </option>
            }
        })
        .collect_view();
    let rows = cat
        .chips
        .iter()
        .map(|c| view! { <ChipRow card=ChipCard::new(c)/> })
        .collect_view();
    let count = move || page.scenario.with(|s| s.chips.len());
    let error = page.field_error("chips");
    view! {
        <fieldset class="chip-picker" id="chip-picker">
            <legend>"Chip pool "<span id="chip-count">{count}</span>" of at most "{MAX_CHIP_KINDS}</legend>
            <div class="field">
                <label for="in-vendor">"Show vendor"</label>
                <select
                    id="in-vendor"
                    on:change=move |ev| prefs.update(|p| p.vendor_filter = event_target_value(&ev))
                >
                    <option value="" prop:selected=move || prefs.with(|p| p.vendor_filter.is_empty())>
                        "all vendors"
                    </option>
                    {vendor_options}
                </select>
            </div>
            <p class="field-error" id="chips-error" role="alert">{error}</p>
            <p class="hint">
                "Grades: verified (the vendor's own documents, official repositories, papers), derived (computed), "
                "vendor-claim, estimate. The badge shows a chip's weakest key number; open it for sources."
            </p>
            <ul class="chips">{rows}</ul>
        </fieldset>
    }
}
