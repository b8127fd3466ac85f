//! The modelling constants: each with its meaning, default, what the scenario's serving
//! framework or a chip's own file sets in its place on the chips picked, allowed range, and
//! a box for your own value (kept in the link as `a.<name>`, the names of the CLI's
//! `--assumptions` file). The ones set away from their defaults are listed above the
//! table, so a shared view never hides them.

use super::Page;
use crate::effects::{describe, effects};
use crate::scenario::ASSUMPTION_PREFIX;
use disagg_engine::assumptions::KNOBS;
use disagg_engine::{Assumptions, Catalogue};
use leptos::prelude::*;

#[component]
pub fn AssumptionsPanel() -> impl IntoView {
    let page = expect_context::<Page>();
    let defaults = Assumptions::default();
    // What the framework or a chip's own file sets on the scenario's chips, per knob, once
    // per change of the scenario.
    let set_apart =
        Memo::new(move |_| page.scenario.with(|s| s.set_on_chips(Catalogue::builtin())));
    let rows = KNOBS
        .iter()
        .enumerate()
        .map(|(index, k)| {
            let key = format!("{ASSUMPTION_PREFIX}{}", k.name);
            let shown = move || {
                page.scenario
                    .with(|s| s.assumptions.get(k.name).map(|v| v.to_string()))
                    .unwrap_or_default()
            };
            // As the --assumptions file writes it, and a time in the unit that reads it.
            let default_value = k.get(&defaults);
            let default = default_value.to_string();
            view! {
                <tr>
                    <th scope="row"><code>{k.name}</code></th>
                    <td>{k.meaning}</td>
                    <td>{k.shown(default_value)}</td>
                    <td>{move || set_apart.with(|v| v.get(index).cloned().unwrap_or_default())}</td>
                    <td>{format!("{} to {}", k.range.0, k.range.1)}</td>
                    <td>
                        <input
                            type="number"
                            step="any"
                            id=format!("assume-{}", k.name)
                            aria-label=format!("{} ({}; default {default})", k.name, k.unit)
                            placeholder=default.clone()
                            prop:value=shown
                            on:change=move |ev| page.set_field(&key, &event_target_value(&ev))
                        />
                    </td>
                </tr>
            }
        })
        .collect_view();
    let changed = move || {
        page.scenario.with(|s| {
            s.assumptions
                .iter()
                .map(|(name, v)| match disagg_engine::assumptions::knob(name) {
                    Some(k) => {
                        let read = k
                            .readable_time(*v)
                            .map_or(String::new(), |t| format!(" ({t})"));
                        format!("{name} = {v}{read} (default {})", k.get(&defaults))
                    }
                    None => format!("{name} = {v}"),
                })
                .collect::<Vec<_>>()
        })
    };
    // Each non-default assumption's effect on the deployments the verdict names
    // (a few evaluations of fixed deployments, no sweep: see `effects`).
    let effect_lines = Memo::new(move |_| {
        page.explored.with(|e| {
            let e = e.as_ref()?;
            let r = e.result.as_ref().ok()?;
            if e.scenario.assumptions.is_empty() {
                return None;
            }
            Some(match effects(&e.scenario, r, Catalogue::builtin()) {
                Ok(list) => list.iter().map(describe).collect::<Vec<_>>(),
                Err(why) => vec![why],
            })
        })
    });
    let effect_items = move || {
        effect_lines
            .get()
            .unwrap_or_default()
            .into_iter()
            .map(|line| view! { <li>{line}</li> })
            .collect_view()
    };
    view! {
        <details class="assumptions" id="assumptions">
            <summary>
                "Modelling assumptions"
                {move || match changed().len() {
                    0 => String::new(),
                    n => format!(" ({n} not default)"),
                }}
            </summary>
            <p class="non-default" id="non-default">
                {move || {
                    let c = changed();
                    if c.is_empty() {
                        "All at their defaults.".to_string()
                    } else {
                        format!("Non-default assumptions: {}.", c.join("; "))
                    }
                }}
            </p>
            <p class="hint" class:hidden=move || effect_lines.with(|l| l.is_none())>
                "Each one's effect on the deployments the verdict names, against the same deployments with that one assumption at its default:"
            </p>
            <ul class="effects" id="assumption-effects">{effect_items}</ul>
            <div class="table-scroll">
                <table>
                    <caption class="visually-hidden">"Modelling constants, their defaults and ranges"</caption>
                    <thead>
                        <tr>
                            <th scope="col">"name"</th>
                            <th scope="col">"meaning"</th>
                            <th scope="col">"default"</th>
                            <th scope="col">"set apart on the chips here"</th>
                            <th scope="col">"allowed"</th>
                            <th scope="col">"yours"</th>
                        </tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
            <super::PrefixedErrors prefix=ASSUMPTION_PREFIX/>
            <super::cost::CostSettingsPanel/>
        </details>
    }
}
