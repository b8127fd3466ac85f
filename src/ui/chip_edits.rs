//! The user's own numbers for the chips in the pool (their price, bandwidth, memory,
//! peaks): each replaces the catalogue's everywhere the page computes, travels in the
//! link (`chip.<id>.<field>`), and an empty box returns to the catalogue's number.

use super::Page;
use crate::format::sig3;
use crate::scenario::CHIP_EDIT_PREFIX;
use disagg_engine::catalogue::ChipField;
use disagg_engine::{Catalogue, Chip};
use leptos::prelude::*;

fn key(chip: &str, field: ChipField) -> String {
    format!("{CHIP_EDIT_PREFIX}{chip}.{}", field.id())
}

#[component]
pub fn ChipEdits() -> impl IntoView {
    let page = expect_context::<Page>();
    let cat = Catalogue::builtin();
    let headings = ChipField::ALL
        .into_iter()
        .map(|f| view! { <th scope="col">{f.id().replace('_', " ")}" ("{f.unit()}")"</th> })
        .collect_view();
    // Rows follow the pool and the user's chips only; each box follows its own number.
    // A user chip's grey numbers are those it started from (none for the template).
    let pool = Memo::new(move |_| {
        page.scenario.with(|s| {
            let mut rows: Vec<(String, Chip)> = s
                .chips
                .iter()
                .filter_map(|id| cat.chip(id).ok())
                .map(|c| (c.name.clone(), c.clone()))
                .collect();
            for (id, from) in &s.user_chips {
                let base = cat.chip(from).map_or_else(
                    |_| Chip::template(id),
                    |c| Chip {
                        id: id.clone(),
                        ..c.clone()
                    },
                );
                rows.push((format!("{id} (yours)"), base));
            }
            rows
        })
    });
    let rows = move || {
        pool.get()
            .into_iter()
            .map(|(name, chip)| {
                let cells = ChipField::ALL
                    .into_iter()
                    .map(|f| {
                        let id = chip.id.clone();
                        let k = key(&id, f);
                        let shown = move || {
                            page.scenario.with(|s| {
                                s.chip_edits
                                    .get(&(id.clone(), f))
                                    .map(|v| v.to_string())
                                    .unwrap_or_default()
                            })
                        };
                        let catalogue_value = f
                            .get(&chip)
                            .filter(|v| *v > 0.0)
                            .map_or("none".to_string(), sig3);
                        view! {
                            <td>
                                <input
                                    type="number"
                                    step="any"
                                    id=format!("edit-{}-{}", chip.id, f.id())
                                    aria-label=format!("{} of {} in {} (catalogue: {catalogue_value})", f.id().replace('_', " "), name, f.unit())
                                    placeholder=catalogue_value
                                    prop:value=shown
                                    on:change=move |ev| page.set_field(&k, &event_target_value(&ev))
                                />
                            </td>
                        }
                    })
                    .collect_view();
                view! {
                    <tr>
                        <th scope="row">{name.clone()}</th>
                        {cells}
                    </tr>
                }
            })
            .collect_view()
    };
    let edited = move || page.scenario.with(|s| s.chip_edits.len());
    view! {
        <details class="chip-edits" id="chip-edits">
            <summary>
                "Your numbers for these chips"
                {move || match edited() {
                    0 => String::new(),
                    n => format!(" ({n} in use)"),
                }}
            </summary>
            <p class="hint">
                "Type your price or a spec to use it in place of the catalogue's (grey); it is graded “user” and kept in the link. Empty a box to return to the catalogue."
            </p>
            <div class="table-scroll">
                <table>
                    <caption class="visually-hidden">"Your numbers for the chips in the pool"</caption>
                    <thead>
                        <tr>
                            <th scope="col">"chip"</th>
                            {headings}
                        </tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
            <super::PrefixedErrors prefix=CHIP_EDIT_PREFIX/>
        </details>
    }
}
