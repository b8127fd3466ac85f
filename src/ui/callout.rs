//! The answer in words: the best mixed against the best single-kind deployment
//! at the target interactivity, for the chart's objective first.

use super::Page;
use crate::reality::measured_error;
use disagg_engine::sweep::{distinct_whys, Verdict};
use disagg_engine::Catalogue;
use leptos::prelude::*;

#[component]
pub fn Callout() -> impl IntoView {
    let page = expect_context::<Page>();
    // How sure: the measured error on published points of the scenario's chips and axis.
    // A memo: the verdicts are rebuilt when the y axis changes, this sentence is not.
    let measured = Memo::new(move |_| {
        let report = page.validation.get()?;
        page.explored.with(|e| {
            let s = &e.as_ref()?.scenario;
            Some(format!(
                "How sure: {}",
                lowercase_first(&measured_error(
                    &report,
                    &s.chips,
                    s.axis,
                    Catalogue::builtin()
                ))
            ))
        })
    });
    let body = move || {
        let y = page.scenario.with(|s| s.y_axis);
        page.with_result(|r| {
            let first = y.objective();
            let mut callouts: Vec<_> = r.callouts.iter().collect();
            callouts.sort_by_key(|c| c.objective != first);
            // With latency limits set, the first answer is which deployments meet them.
            let slo = r.slo_answer.as_ref().map(|a| {
                let mut picks: Vec<_> = a.picks.iter().collect();
                picks.sort_by_key(|p| p.objective != first);
                view! {
                    <div class="callout-slo" id="callout-slo">
                        {picks
                            .into_iter()
                            .map(|p| view! { <p class="headline">{p.sentence.clone()}</p> })
                            .collect_view()}
                        <p class="why">{a.why_others_fail.clone()}</p>
                    </div>
                }
            });
            // The layouts behind the verdicts, once each (both measures often name the
            // same two deployments), folded away under the short verdict.
            let whys = distinct_whys(callouts.iter().copied())
                .into_iter()
                .map(|w| view! { <p class="why">{w.to_string()}</p> })
                .collect_view();
            let verdicts = callouts
                .into_iter()
                .enumerate()
                .map(|(i, c)| {
                    // The engine decides the verdict; the page only names it.
                    let verdict = match c.verdict {
                        Verdict::MixedWins => "wins",
                        Verdict::OnPar => "par",
                        Verdict::MixedLoses => "loses",
                        Verdict::NoComparison => "none",
                    };
                    view! {
                        <p class=format!("callout-item headline verdict-{verdict}") class:primary=i == 0>
                            {c.headline.clone()}
                        </p>
                    }
                })
                .collect_view();
            Some(view! {
                {slo}
                // Only the short verdict is announced when it changes.
                <div class="callout-verdict" id="callout-verdict" aria-live="polite">
                    <p class="callout-target">"On the "{r.axis.name()}" axis:"</p>
                    {verdicts}
                </div>
                <p class="measured-error" id="callout-error">{move || measured.get()}</p>
                <details class="callout-why" id="callout-why">
                    <summary>"Why"</summary>
                    {whys}
                </details>
            })
        })
    };
    let busy = move || page.explored.with(|e| e.is_none());
    view! {
        <section class="callout" id="callout">
            <h2>"Does a mixed deployment win?"</h2>
            <Show when=busy>
                <p role="status">"Sweeping…"</p>
            </Show>
            {body}
            <super::AxesTable/>
        </section>
    }
}

/// "Too few ..." -> "too few ...", to follow "How sure: ".
fn lowercase_first(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map_or(String::new(), |c| c.to_lowercase().chain(chars).collect())
}
