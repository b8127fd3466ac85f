//! Cost of ownership on the page: the settings (link keys `kwh`, `pue`, `capex`,
//! `years`, `duty`, `idle`, `own`) in the assumptions panel, and the detail panel's
//! rows of energy per token, ownership $/Mtok and the API break-even, each opening
//! its chain.

use super::Page;
use crate::format::{self, sig3};
use disagg_engine::cost::api::Against;
use disagg_engine::cost::{CostBasis, CostSettings};
use disagg_engine::disagg::explain::Explained;
use leptos::prelude::*;

/// The detail panel's cost rows, after the others so that they keep their places.
pub fn rows(e: &Explained, against: Option<&Against>) -> Vec<(&'static str, String)> {
    let f = &e.point.figures;
    let mut rows = vec![
        (
            "J per token (input and output)",
            format::joules(f.joules_per_token),
        ),
        (
            "$/Mtok output, owned",
            owned(
                format::usd_per_mtok(f.own_usd_per_mtok_output),
                f.own_usd_per_hour.is_some(),
            ),
        ),
        (
            "$/Mtok input, owned",
            owned(
                format::usd_per_mtok(f.own_usd_per_mtok_input),
                f.own_usd_per_hour.is_some(),
            ),
        ),
    ];
    if let Some(a) = against {
        let b = &a.breakeven;
        rows.push((
            "break-even vs API (tokens/month)",
            format!(
                "{} vs {}'s {} ({}, read {}) at ${}/Mtok of this mix ({} $/h){}",
                sig3(b.breakeven_tokens_per_month),
                a.api.provider,
                a.api.api_model,
                a.choice.describe(),
                a.api.read,
                sig3(b.api_usd_per_mtok),
                a.basis,
                if b.ever_cheaper() {
                    ": self-hosting is cheaper above it"
                } else {
                    ": never cheaper, one deployment at full load costs more per token"
                }
            ),
        ));
        rows.push((
            "deployments to reach it",
            format!(
                "{} of {} tokens/month each",
                sig3(b.replicas),
                sig3(b.capacity_tokens_per_month)
            ),
        ));
    }
    rows
}

fn owned(value: String, has: bool) -> String {
    if has {
        value
    } else {
        "n/a: give a purchase price per chip in Modelling assumptions".into()
    }
}

/// One cost setting: its link key, label, default as shown, and the scenario's value.
struct Setting {
    key: &'static str,
    label: &'static str,
    default: String,
    get: fn(&CostSettings) -> Option<f64>,
}

/// The cost settings' inputs, inside the assumptions panel.
#[component]
pub fn CostSettingsPanel() -> impl IntoView {
    let page = expect_context::<Page>();
    let d = CostSettings::default();
    let settings = [
        Setting {
            key: "kwh",
            label: "electricity, USD per kWh (EIA U.S. commercial average)",
            default: d.electricity_usd_kwh.to_string(),
            get: |c| Some(c.electricity_usd_kwh),
        },
        Setting {
            key: "pue",
            label: "PUE, facility over IT power (Uptime Institute 2023 average)",
            default: d.pue.to_string(),
            get: |c| Some(c.pue),
        },
        Setting {
            key: "capex",
            label: "purchase price per chip, USD (none by default)",
            default: String::new(),
            get: |c| c.capex_usd_per_chip,
        },
        Setting {
            key: "years",
            label: "years of amortisation",
            default: d.years.to_string(),
            get: |c| Some(c.years),
        },
        Setting {
            key: "duty",
            label: "duty cycle, share of the hours in use",
            default: d.duty_cycle.to_string(),
            get: |c| Some(c.duty_cycle),
        },
        Setting {
            key: "idle",
            label: "idle power as a share of TDP (chips without a catalogued idle power)",
            default: d.idle_share.to_string(),
            get: |c| Some(c.idle_share),
        },
    ];
    let inputs = settings
        .into_iter()
        .map(|s| {
            let shown = move || {
                page.scenario.with(|sc| {
                    let v = (s.get)(&sc.cost);
                    let default = (s.get)(&CostSettings::default());
                    v.filter(|v| Some(*v) != default)
                        .map(|v| v.to_string())
                        .unwrap_or_default()
                })
            };
            view! {
                <label class="cost-setting">
                    <span>{s.label}</span>
                    <input
                        type="number"
                        step="any"
                        id=format!("cost-{}", s.key)
                        placeholder=s.default.clone()
                        prop:value=shown
                        on:change=move |ev| page.set_field(s.key, &event_target_value(&ev))
                    />
                </label>
            }
        })
        .collect_view();
    let own = move || page.scenario.with(|s| s.cost.basis == CostBasis::Ownership);
    view! {
        <fieldset class="cost-settings" id="cost-settings">
            <legend>"Cost of ownership"</legend>
            <p class="hint">
                "Ownership $/Mtok: the purchase spread over the years in use, plus the chips' power at their utilisation through the PUE at the electricity price. Rental figures use the catalogue's hourly prices and never move with these."
            </p>
            {inputs}
            <label class="cost-setting">
                <input
                    type="checkbox"
                    id="cost-own"
                    prop:checked=own
                    on:change=move |ev| page.set_field("own", if event_target_checked(&ev) { "1" } else { "0" })
                />
                <span>"rank the $/Mtok frontier by ownership instead of rental"</span>
            </label>
            <ul class="field-error" role="alert">
                {move || page.field_errors.with(|e| {
                    e.iter()
                        .filter(|(k, _)| crate::scenario::cost::COST_KEYS.contains(&k.as_str()))
                        .map(|(k, why)| view! { <li>{format!("{k}: {why}")}</li> })
                        .collect_view()
                })}
            </ul>
        </fieldset>
    }
}

#[cfg(test)]
mod tests {
    use crate::scenario::Scenario;
    use disagg_engine::catalogue::Catalogue;

    #[test]
    fn the_break_even_row_names_the_api_row_it_used_and_why() {
        let s = Scenario {
            model: "deepseek-v3".into(),
            axis: disagg_engine::disagg::Axis::Aggregated,
            chips: vec!["h200".into()],
            max_chips: 8,
            isl: 1000,
            osl: 1000,
            ..Scenario::default()
        };
        let cat = Catalogue::builtin();
        let swept = crate::explore::explore(&s, cat).unwrap();
        let spec = &swept.cloud[swept.cloud.len() / 2].spec;
        let e = crate::explore::detail(&s, spec, cat).unwrap();
        // Of DeepSeek-V3's two rows, DeepSeek's own is the cheaper at any mix.
        let against = crate::explore::against(&s, &e.point.figures).unwrap();
        let rows = super::rows(&e, Some(&against));
        let (_, text) = rows
            .iter()
            .find(|(k, _)| *k == "break-even vs API (tokens/month)")
            .unwrap();
        assert!(
            text.contains("DeepSeek's deepseek-chat (the cheapest of 2 listed, read 2026-11-25)"),
            "{text}"
        );
    }
}
