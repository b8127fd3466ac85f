//! Pinned scenarios: pin the current one, name, restore or remove a pin, and the
//! table of their key figures beside the current scenario's. Every decision is in
//! `crate::pins`; the pins' sweeps run in a worker of their own, one job per pin.

use super::{Explored, Page};
use crate::jobs::{Answer, Job};
use crate::pins::table::{rows, Baseline, Figure, Source};
use crate::pins::{
    auto_name, can_pin, clean_name, keep_pinned, next_sweep, sweep_of, swept, Pin, MAX_NAME_CHARS,
    MAX_PINS,
};
use crate::scenario::Scenario;
use crate::worker::Sweeper;
use disagg_engine::Catalogue;
use leptos::prelude::*;
use std::sync::Arc;

#[component]
pub fn Pins() -> impl IntoView {
    let page = expect_context::<Page>();
    let said = RwSignal::new(String::new());
    let baseline = RwSignal::new(Baseline::Current);
    run_pin_sweeps(page);

    let pin = move |_| {
        let s = page.scenario.get_untracked();
        let pins = page.pins.get_untracked();
        if let Err(why) = can_pin(&pins, &s) {
            said.set(why);
            return;
        }
        let pin = Pin::new(s);
        // The page's own sweep of this very scenario serves the pin too.
        let key = pin.swept().to_query();
        if let Some(e) = page.explored.get_untracked() {
            if !page.sweeping.get_untracked() && e.scenario.to_query() == key {
                page.pin_sweeps.update(|w| {
                    w.insert(key, e);
                });
            }
        }
        said.set(format!("Pinned as pin {}.", pins.len() + 1));
        // The chart's redraw with the pin's frontier answers this input.
        page.input_at.set_value(Some(crate::web::now_ms()));
        page.pins.update(|p| p.push(pin));
    };
    let list = move || {
        page.pins.with(|pins| {
            pins.iter()
                .enumerate()
                .map(|(i, p)| pin_item(page, i, p))
                .collect_view()
        })
    };
    view! {
        <section class="pins" id="pins" aria-label="Pinned scenarios">
            <button type="button" id="pin-scenario" on:click=pin
                disabled=move || page.pins.with(|p| p.len() >= MAX_PINS)>
                "Pin scenario"
            </button>
            <span class="hint">{format!("Keep up to {MAX_PINS} scenarios to compare; they travel in the link.")}</span>
            <span id="pin-status" role="status">{said}</span>
            <ol class="pin-list" id="pin-list">{list}</ol>
            <Show when=move || page.pins.with(|p| !p.is_empty())>
                <CompareTable baseline=baseline/>
            </Show>
        </section>
    }
}

/// One pin: its name to edit, restore and remove.
fn pin_item(page: Page, i: usize, p: &Pin) -> impl IntoView {
    let number = i + 1;
    let scenario = p.scenario.clone();
    let rename = move |ev: leptos::ev::Event| {
        let text = clean_name(&event_target_value(&ev));
        page.input_at.set_value(Some(crate::web::now_ms()));
        page.pins.update(|pins| {
            if let Some(p) = pins.get_mut(i) {
                p.name = if text.is_empty() {
                    auto_name(&p.scenario)
                } else {
                    text
                };
            }
        });
    };
    let restore = move |_| {
        let s = scenario.clone();
        page.edit(|current| *current = s);
    };
    let remove = move |_| {
        page.input_at.set_value(Some(crate::web::now_ms()));
        page.pins.update(|pins| {
            if i < pins.len() {
                pins.remove(i);
            }
        });
    };
    view! {
        <li class="pin" id=format!("pin-{number}")>
            <label for=format!("pin-name-{number}")>{format!("Pin {number}")}</label>
            <input type="text" id=format!("pin-name-{number}") maxlength=MAX_NAME_CHARS
                prop:value=p.name.clone() on:change=rename/>
            <button type="button" id=format!("pin-restore-{number}") on:click=restore>
                "Restore"
            </button>
            <button type="button" id=format!("pin-remove-{number}") on:click=remove
                aria-label=format!("Remove pin {number}")>
                "Remove"
            </button>
        </li>
    }
}

/// Asks the pins' worker for each pin's sweep, one job at a time (a newer one
/// replaces or cancels a stale one), and forgets the sweeps of removed pins.
fn run_pin_sweeps(page: Page) {
    let in_flight = StoredValue::new(None::<String>);
    let sweeper = StoredValue::new_local(None::<Sweeper>);
    Effect::new(move |_| {
        page.pins.with(|pins| {
            let stale = page.pin_sweeps.with_untracked(|w| {
                let mut kept = w.clone();
                keep_pinned(pins, &mut kept);
                kept.len() != w.len()
            });
            if stale {
                page.pin_sweeps.update(|w| keep_pinned(pins, w));
            }
        });
    });
    Effect::new(move |_| {
        let next = page.pins.with(|pins| {
            page.pin_sweeps
                .with(|w| in_flight.with_value(|f| next_sweep(pins, w, f.as_deref())))
        });
        let Some(s) = next else { return };
        in_flight.set_value(Some(s.to_query()));
        if sweeper.with_value(Option::is_none) {
            sweeper.set_value(Some(Sweeper::new(move |request, answer, _| {
                let Answer::Sweep(result) = answer else {
                    return;
                };
                in_flight.set_value(None);
                let wanted = page
                    .pins
                    .with_untracked(|p| p.iter().any(|p| p.swept().to_query() == request.query));
                if wanted {
                    let (scenario, _) = Scenario::from_query(&request.query, Catalogue::builtin());
                    let e = Arc::new(Explored {
                        scenario,
                        result: result.map(|r| *r),
                    });
                    page.pin_sweeps.update(|w| {
                        w.insert(request.query, e);
                    });
                }
            })));
        }
        sweeper.with_value(|w| {
            if let Some(w) = w {
                w.submit(&s, Job::Sweep)
            }
        });
    });
}

/// The key figures of the current scenario and each pin, with deltas.
#[component]
fn CompareTable(baseline: RwSignal<Baseline>) -> impl IntoView {
    let page = expect_context::<Page>();
    let table = move || {
        let current_name = page.scenario.with(|s| format!("current: {}", auto_name(s)));
        let current = (!page.sweeping.get())
            .then(|| page.explored.get())
            .flatten()
            // The sweep shown belongs to the scenario shown.
            .filter(|e| {
                page.scenario
                    .with(|s| e.scenario.to_query() == swept(s).to_query())
            });
        let pinned: Vec<(String, Option<Arc<Explored>>)> = page.pins.with(|pins| {
            page.pin_sweeps.with(|w| {
                pins.iter()
                    .enumerate()
                    .map(|(i, p)| {
                        (
                            format!("pin {}: {}", i + 1, p.name),
                            sweep_of(p, w).cloned(),
                        )
                    })
                    .collect()
            })
        });
        let mut sources = vec![Source {
            name: current_name,
            sweep: current.as_deref(),
        }];
        sources.extend(pinned.iter().map(|(name, e)| Source {
            name: name.clone(),
            sweep: e.as_deref(),
        }));
        let base = match baseline.get() {
            Baseline::Current => 0,
            Baseline::FirstPin => 1,
        };
        let (target, rows) = rows(&sources, base);
        let caption = match target {
            Some(t) => format!(
                "Key figures at {} tok/s per user (the baseline's target), each with its change against the baseline",
                crate::format::sig3(t.value())
            ),
            None => "Key figures: the sweeps are running".to_string(),
        };
        let body = rows
            .into_iter()
            .map(|r| {
                let cells = r
                    .cells
                    .into_iter()
                    .map(|c| {
                        view! {
                            <td>{c.value}<br/><span class="delta">{c.delta}</span></td>
                        }
                    })
                    .collect_view();
                view! {
                    <tr class:baseline=r.baseline>
                        <th scope="row">{r.name}</th>
                        {cells}
                        <td>{r.verdict}</td>
                    </tr>
                }
            })
            .collect_view();
        view! {
            <caption>{caption}</caption>
            <thead>
                <tr>
                    <th scope="col">"Scenario"</th>
                    {Figure::ALL
                        .iter()
                        .map(|f| view! { <th scope="col">{f.heading()}</th> })
                        .collect_view()}
                    <th scope="col">"Mixed vs single-kind"</th>
                </tr>
            </thead>
            <tbody>{body}</tbody>
        }
    };
    let choose = move |b: Baseline| move |_| baseline.set(b);
    view! {
        <fieldset class="pin-baseline">
            <legend>"Changes against"</legend>
            <label>
                <input type="radio" name="pin-baseline" id="baseline-current"
                    prop:checked=move || baseline.get() == Baseline::Current
                    on:change=choose(Baseline::Current)/>
                "the current scenario"
            </label>
            <label>
                <input type="radio" name="pin-baseline" id="baseline-pin"
                    prop:checked=move || baseline.get() == Baseline::FirstPin
                    on:change=choose(Baseline::FirstPin)/>
                "pin 1"
            </label>
        </fieldset>
        <div class="table-scroll" tabindex="0" role="region" aria-label="Pinned scenarios compared">
            <table class="axes-table compare-table" id="compare-table">{table}</table>
        </div>
    }
}
