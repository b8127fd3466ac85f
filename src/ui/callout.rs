//! The answer in words: the best mixed against the best single-chip-kind deployment
//! at the target interactivity, for the chart's objective first.

use super::Page;
use crate::format;
use disagg_engine::sweep::Verdict;
use leptos::prelude::*;

#[component]
pub fn Callout() -> impl IntoView {
    let page = expect_context::<Page>();
    let body = move || {
        let y = page.scenario.with(|s| s.y_axis);
        page.with_result(|r| {
            let first = y.objective();
            let mut callouts: Vec<_> = r.callouts.iter().collect();
            callouts.sort_by_key(|c| c.objective != first);
            let target = format::rate(r.target_tok_s_user);
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
            Some(view! {
                {slo}
                <p class="callout-target">
                    "At "<strong>{target}" tok/s per user"</strong>" on the "{r.axis.name()}" axis:"
                </p>
                {callouts
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
                            <div class=format!("callout-item verdict-{verdict}") class:primary=i == 0>
                                <p class="headline">{c.headline.clone()}</p>
                                <p class="why">{c.why.clone()}</p>
                            </div>
                        }
                    })
                    .collect_view()}
            })
        })
    };
    let busy = move || page.explored.with(|e| e.is_none());
    view! {
        <section class="callout" id="callout" aria-live="polite">
            <h2>"Does a mixed deployment win?"</h2>
            <Show when=busy>
                <p>"Sweeping…"</p>
            </Show>
            {body}
        </section>
    }
}
