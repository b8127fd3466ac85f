//! A validation row opened (`vv.point`): the published figure beside the prediction,
//! the chain behind the row's metric with every other figure a click away, the pools'
//! steps operator by operator, the mapping the table states, and the bundle and command
//! that reproduce it. Markup only; `crate::validation_view::opened` decides.

use super::chain::{chain_view, operator_tables};
use super::Page;
use crate::chains::by_quantity;
use crate::format::sig3;
use crate::validation_view::opened::{bundle_file, command, metric_chain, open, siblings};
use crate::validation_view::{role_label, signed_percent, source_url, View};
use crate::web;
use disagg_engine::Catalogue;
use leptos::prelude::*;

/// The headline figures a reader can open beside the row's own, by the chain quantity
/// the engine gives each.
const OTHER_CHAINS: [&str; 6] = [
    "TTFT",
    "TPOT",
    "tok/s per user",
    "output tok/s per chip",
    "input tok/s per chip",
    "p90 TTFT",
];

#[component]
pub fn ValidationPoint() -> impl IntoView {
    let page = expect_context::<Page>();
    let id = Memo::new(move |_| page.view.with(|v| v.point.clone()));
    let opened = Memo::new(move |_| {
        id.get()
            .and_then(|id| open(&id, Catalogue::builtin()).map(std::sync::Arc::new))
    });
    // The chain shown: the row's own metric's unless the reader picked another.
    let picked = RwSignal::new(None::<&'static str>);
    Effect::new(move |_| {
        id.track();
        picked.set(None);
    });
    let said = RwSignal::new(String::new());
    let close = move |_| page.view.update(|v| v.point = None);
    let body = move || {
        let o = opened.get()?;
        let p = o.point.clone();
        // The row as the page's validation job scored it.
        let row = page.validation.with(|r| {
            r.as_ref()
                .and_then(|r| r.rows.iter().find(|x| x.point.id == p.id).cloned())
        });
        let (predicted, error) = match &row {
            Some(r) => (
                r.predicted.map_or("-".into(), sig3),
                signed_percent(r.error),
            ),
            None => ("…".into(), "…".into()),
        };
        let own = metric_chain(p.metric);
        let explained = match &o.explained {
            Ok(e) => {
                let chains = e.chains.clone();
                let shown = move || {
                    let q = picked.get().unwrap_or(own);
                    by_quantity(&chains, q).map(|c| {
                        view! {
                            <div class="chain-panel" id="vp-chain" tabindex="0" role="region" aria-label=format!("How {} is computed", c.quantity)>
                                <h4>{format!("How {} is computed", c.quantity)}</h4>
                                {chain_view(c)}
                            </div>
                        }
                    })
                };
                let buttons = OTHER_CHAINS
                    .into_iter()
                    .filter(|q| by_quantity(&e.chains, q).is_some())
                    .map(|q| {
                        view! {
                            <button
                                class="figure-button"
                                aria-pressed=move || (picked.get().unwrap_or(own) == q).to_string()
                                on:click=move |_| picked.set(Some(q))
                            >{q}</button>
                        }
                    })
                    .collect_view();
                view! {
                    <p class="hint">{format!(
                        "The chain behind this row's figure ({}) is open; the row's other figures open the same way.",
                        p.metric.label()
                    )}</p>
                    <div class="figure-buttons" role="group" aria-label="Open a figure's chain">{buttons}</div>
                    <div aria-live="polite">{shown}</div>
                    <h4>"Where the time goes, operator by operator"</h4>
                    <div id="vp-operators">{operator_tables(&e.point)}</div>
                }
                .into_any()
            }
            Err(why) => {
                view! { <p id="vp-unexplained">{format!("Not opened: {why}")}</p> }.into_any()
            }
        };
        let download = {
            let bundle = o.bundle.clone();
            let name = bundle_file(&p.id);
            move |_| {
                said.set(match &bundle {
                    Ok(b) if web::download_text(&name, "application/json", &b.to_json()) => {
                        format!("Bundle {name} exported: `disagg predict --bundle {name} --explain` reproduces this prediction.")
                    }
                    Ok(_) => "The browser refused the download.".into(),
                    Err(why) => format!("No bundle: {why}"),
                })
            }
        };
        // The row's scenario in the explorer, its deployment drawn and selected once the
        // sweep runs (`Page::pending_point`), its run's measurements named beside it.
        let explore = {
            let bundle = o.bundle.clone();
            let id = p.id.clone();
            move |_| {
                let Ok(b) = &bundle else { return };
                let current = page.scenario.get_untracked();
                match crate::bundle::import(&b.to_json(), &current, Catalogue::builtin()) {
                    Ok((scenario, point)) => {
                        page.open_scenario(scenario, point);
                        page.explored_row.set(Some(id.clone()));
                        page.view.update(|v| {
                            v.view = View::Explorer;
                            v.point = None;
                        });
                    }
                    Err(why) => said.set(format!(
                        "The explorer cannot hold this row's scenario ({why}); its bundle runs with the CLI."
                    )),
                }
            }
        };
        let source = match source_url(&p.source) {
            Some(url) => view! { <a href=url rel="noopener noreferrer" target="_blank">{p.source.clone()}</a> }.into_any(),
            None => view! { <span>{p.source.clone()}</span> }.into_any(),
        };
        let role = role_label(p.role);
        // The same run's other rows beside this one, once the page's validation job has
        // scored them.
        let run_rows = {
            let o = o.clone();
            move || {
                let report = page.validation.get()?;
                let lines = siblings(&o, &report, Catalogue::builtin());
                (!lines.is_empty()).then(|| view! {
                    <div class="siblings" id="vp-siblings">
                        <p>"The same run's other published figures:"</p>
                        <ul>{lines.into_iter().map(|l| view! { <li>{l}</li> }).collect_view()}</ul>
                    </div>
                })
            }
        };
        Some(view! {
            <h3 id="vp-title">{format!("{}: {}", p.id, p.metric.label())}</h3>
            <dl class="figures" id="vp-figures">
                <div class="figure"><dt>"measured"</dt><dd id="vp-measured">{sig3(p.measured)}</dd></div>
                <div class="figure"><dt>"predicted"</dt><dd id="vp-predicted">{predicted}</dd></div>
                <div class="figure"><dt>"error"</dt><dd id="vp-error">{error}</dd></div>
                <div class="figure"><dt>"role"</dt><dd>{role}</dd></div>
            </dl>
            {run_rows}
            <p class="source">"Source: "{source}</p>
            {p.note.clone().map(|n| view! {
                <details class="mapping"><summary>"How the table maps this measurement"</summary><p>{n}</p></details>
            })}
            {explained}
            <p class="reproduce">
                "From the command line: "<code id="vp-command">{command(&p.id)}</code>" "
                <button id="vp-bundle" on:click=download>"Download this point's bundle"</button>" "
                <button id="vp-explore" on:click=explore disabled=o.bundle.is_err()>"Explore its scenario"</button>
            </p>
            <p role="status">{move || said.get()}</p>
        })
    };
    view! {
        <Show when=move || id.with(|i| i.is_some())>
            <section class="validation-point" id="validation-point" aria-labelledby="vp-title">
                <button class="close" id="vp-close" on:click=close>"Close"</button>
                {body}
            </section>
        </Show>
    }
}
