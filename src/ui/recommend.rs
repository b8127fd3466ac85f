//! The recommend view: the scenario's limits and a demand in, the deployments across
//! the catalogue that meet them out, searched in a worker of its own. Markup only;
//! `crate::recommend_view` decides what each input means and what each row reads.

use super::Page;
use crate::jobs::{Answer, Job};
use crate::recommend_view::{
    minimum_bands, minimum_line, rejected_lines, rows, summary_line, CHIPS_KEY, TPD_KEY, USERS_KEY,
};
use crate::ui::controls::SloAtSelect;
use crate::worker::Sweeper;
use disagg_engine::recommend::Recommendation;
use disagg_engine::Catalogue;
use leptos::prelude::*;
use std::sync::Arc;

/// What the band columns hold.
const BAND_TITLE: &str = "The median |error| of comparable published hold-out points: same chip family, axis, metric and concurrency (the error band of a point's details)";

/// One input of the view: a scenario key (`ttft`, `tpot`, `rate`) or one of its own.
fn field(
    page: Page,
    key: &'static str,
    label: &'static str,
    value: impl Fn() -> String + Send + Sync + 'static,
    placeholder: &'static str,
    own: bool,
) -> impl IntoView {
    let id = format!("rec-{}", key.trim_start_matches("rec."));
    let error = page.field_error(key);
    let on_change = move |ev: leptos::ev::Event| {
        let text = event_target_value(&ev);
        if own {
            let mut next = page.view.get_untracked();
            match next.recommend.set(key, &text, Catalogue::builtin()) {
                Ok(()) => {
                    page.field_errors.update(|e| {
                        e.remove(key);
                    });
                    page.view.set(next);
                }
                Err(why) => page.field_errors.update(|e| {
                    e.insert(key.to_string(), why);
                }),
            }
        } else {
            // A rate states the demand: it replaces tokens per day and users.
            if key == "rate" {
                page.view.update(|v| {
                    v.recommend.tokens_per_day = None;
                    v.recommend.users = None;
                });
            }
            page.set_field(key, &text);
        }
    };
    view! {
        <div class="field">
            <label for=id.clone()>{label}</label>
            <input type="text" inputmode="decimal" id=id name=key placeholder=placeholder prop:value=value on:change=on_change/>
            <p class="field-error" role="alert">{error}</p>
        </div>
    }
}

#[component]
pub fn RecommendView() -> impl IntoView {
    let page = expect_context::<Page>();
    let answer: RwSignal<Option<Arc<Result<Recommendation, String>>>> = RwSignal::new(None);
    let searching = RwSignal::new(false);
    let sweeper = StoredValue::new_local(Sweeper::new(move |_, reply, _| {
        if let Answer::Recommend(r) = reply {
            answer.set(Some(Arc::new(r.map(|b| *b))));
            searching.set(false);
        }
    }));
    // Searches again whenever the scenario or the view's inputs change.
    Effect::new(move |_| {
        let scenario = page.scenario.get();
        let inputs = page.view.with(|v| v.recommend.clone());
        searching.set(true);
        sweeper.with_value(|s| s.submit(&scenario, Job::Recommend(inputs)));
    });
    let num = |v: Option<f64>| v.map_or(String::new(), |v| v.to_string());
    let inputs = view! {
        <fieldset class="recommend-inputs">
            <legend>"Limits and demand"</legend>
            {field(page, "ttft", "TTFT limit, ms", move || page.scenario.with(|s| num(s.ttft_ms)), "e.g. 500", false)}
            {field(page, "tpot", "TPOT limit, ms", move || page.scenario.with(|s| num(s.tpot_ms)), "e.g. 30", false)}
            <SloAtSelect id="rec-sloat" />
            {field(page, "rate", "Requests per second", move || page.scenario.with(|s| num(s.rate)), "e.g. 10", false)}
            {field(page, TPD_KEY, "or tokens per day", move || page.view.with(|v| num(v.recommend.tokens_per_day)), "prompt + output", true)}
            {field(page, USERS_KEY, "or concurrent users", move || page.view.with(|v| v.recommend.users.map_or(String::new(), |u| u.to_string())), "closed loop", true)}
            {field(page, CHIPS_KEY, "Chips (ids, comma-separated)", move || page.view.with(|v| v.recommend.chips.join(",")), "all chips", true)}
        </fieldset>
    };
    let ok = move || answer.with(|a| a.as_ref().and_then(|a| a.as_ref().as_ref().ok().cloned()));
    let error =
        move || answer.with(|a| a.as_ref().and_then(|a| a.as_ref().as_ref().err().cloned()));
    let table = move || {
        ok().map(|r| {
            // The bands come with the page's validation job, which may answer later.
            let report = page.validation.get();
            let report = report.as_deref();
            let bands = minimum_bands(&r, report)
                .into_iter()
                .map(|line| view! { <li>{line}</li> })
                .collect_view();
            let body = rows(&r, report)
                .into_iter()
                .map(|row| {
                    view! {
                        <tr>
                            <th scope="row" class="num">{row.rank}</th>
                            <td>{row.axis}</td>
                            <td>{row.deployment}</td>
                            <td class="num">{row.replicas}</td>
                            <td class="num">{row.chips}</td>
                            <td class="num">{row.usd_per_mtok}</td>
                            <td class="num rec-ttft">{row.ttft}</td>
                            <td class="num rec-ttft-band">{row.ttft_band}</td>
                            <td class="num rec-tpot">{row.tpot}</td>
                            <td class="num rec-tpot-band">{row.tpot_band}</td>
                            <td class="num">{row.load}</td>
                        </tr>
                    }
                })
                .collect_view();
            let rejected = rejected_lines(&r)
                .into_iter()
                .map(|(chip, kind, why)| view! { <li><strong>{chip}</strong>{format!(" ({kind}): {why}")}</li> })
                .collect_view();
            view! {
                <p id="recommend-summary">{summary_line(&r)}</p>
                <p id="recommend-minimum" class="callout-headline">{minimum_line(&r)}</p>
                <ul id="recommend-minimum-error" class="measured-error">{bands}</ul>
                <div class="table-scroll">
                    <table id="recommend-table">
                        <caption>"Deployments that meet both limits at the demand, cheapest $/Mtok (output) first; one replica's figures at its share; ± the median error of published points like it"</caption>
                        <thead>
                            <tr>
                                <th scope="col">"Rank"</th>
                                <th scope="col">"Axis"</th>
                                <th scope="col">"One replica"</th>
                                <th scope="col">"Replicas"</th>
                                <th scope="col">"Chips"</th>
                                <th scope="col">"$/Mtok"</th>
                                <th scope="col">{r.slo.at.name("TTFT")}</th>
                                <th scope="col" title=BAND_TITLE>"± TTFT"</th>
                                <th scope="col">{r.slo.at.name("TPOT")}</th>
                                <th scope="col" title=BAND_TITLE>"± TPOT"</th>
                                <th scope="col">"Each replica's load"</th>
                            </tr>
                        </thead>
                        <tbody>{body}</tbody>
                    </table>
                </div>
                <h3>"Chips left out, and why"</h3>
                <ul id="recommend-rejected">{rejected}</ul>
            }
        })
    };
    view! {
        <main class="recommend-view" id="recommend" tabindex="-1" aria-labelledby="recommend-title" aria-busy=move || searching.get().to_string()>
            <h2 id="recommend-title">"Which hardware meets the limits at this demand"</h2>
            <p class="lede">
                "The scenario's model, lengths and dtypes, searched over every chip on every axis that applies, each deployment replicated until its replicas carry the demand within the limits. "
                "From the command line: "<code>"disagg recommend"</code>"."
            </p>
            {inputs}
            <Show when=move || searching.get()>
                <p class="busy" id="recommend-busy" role="status">"Searching the catalogue…"</p>
            </Show>
            <p class="field-error" id="recommend-error" role="alert">{error}</p>
            {table}
        </main>
    }
}
