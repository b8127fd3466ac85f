//! The switch between the explorer and the validation view, and the validation view:
//! the published measurements beside the engine's predictions, from the page's one
//! validation job (`Page::validation`). Markup only; `crate::validation_view` decides.

use super::Page;
use crate::validation_view::breakdown;
use crate::validation_view::draw::{css_height, draw};
use crate::validation_view::scatter::Scatter;
use crate::validation_view::sort::{sorted, Column, Sort};
use crate::validation_view::{kept, options, summary_lines, FilterKey, TableRow, View};
use crate::web;
use disagg_engine::Catalogue;
use leptos::html::Canvas;
use leptos::prelude::*;
use plotters_canvas::CanvasBackend;

/// Two buttons, one pressed: which view the page shows.
#[component]
pub fn ViewSwitch() -> impl IntoView {
    let page = expect_context::<Page>();
    let button = move |view: View, id: &'static str, label: &'static str| {
        view! {
            <button
                id=id
                class="view-button"
                aria-pressed=move || (page.view.with(|v| v.view) == view).to_string()
                on:click=move |_| page.view.update(|v| v.view = view)
            >
                {label}
            </button>
        }
    };
    view! {
        <nav class="view-switch" aria-label="View">
            {button(View::Explorer, "view-explorer", "Explorer")}
            {button(View::Validation, "view-validation", "Published measurements")}
            {button(View::Recommend, "view-recommend", "Recommend")}
        </nav>
    }
}

/// One select per filter, its options the values the table holds.
#[component]
fn FilterSelect(filter: FilterKey) -> impl IntoView {
    let page = expect_context::<Page>();
    let key = filter;
    let id = format!("vv-{}", key.id());
    let choices = move || {
        let report = page.validation.get()?;
        Some(
            options(&report, key, Catalogue::builtin())
                .into_iter()
                .map(|(value, label)| {
                    let this = value.clone();
                    view! {
                        <option
                            value=value
                            prop:selected=move || page.view.with(|v| v.filters.value(key).as_deref() == Some(this.as_str()))
                        >
                            {label}
                        </option>
                    }
                })
                .collect_view(),
        )
    };
    let on_change = move |ev: leptos::ev::Event| {
        let value = event_target_value(&ev);
        let mut next = page.view.get_untracked();
        match next.filters.set(key, &value, Catalogue::builtin()) {
            Ok(()) => page.view.set(next),
            Err(why) => page
                .notices
                .update(|n| n.push(format!("{}: {why}", key.label()))),
        }
    };
    view! {
        <label class="field">
            <span>{key.label()}</span>
            <select id=id on:change=on_change>
                <option value="" prop:selected=move || page.view.with(|v| v.filters.value(key).is_none())>
                    "all"
                </option>
                {choices}
            </select>
        </label>
    }
}

#[component]
pub fn ValidationView() -> impl IntoView {
    let page = expect_context::<Page>();
    let canvas_ref = NodeRef::<Canvas>::new();
    let resized = RwSignal::new(0u32);
    let _resize = window_event_listener(leptos::ev::resize, move |_| resized.update(|n| *n += 1));
    // The rows the filters keep, as the table and the scatter read them.
    let shown = Memo::new(move |_| {
        let report = page.validation.get()?;
        let (filters, sort) = page.view.with(|v| (v.filters.clone(), v.sort));
        let kept = kept(&report, &filters, Catalogue::builtin());
        let rows: Vec<TableRow> = sorted(kept.clone(), sort, Catalogue::builtin())
            .into_iter()
            .map(|(_, cells)| cells)
            .collect();
        let lines = summary_lines(&report, &kept, filters.any());
        Some((rows, Scatter::new(&kept), lines))
    });

    Effect::new(move |_| {
        resized.track();
        let Some(canvas) = canvas_ref.get() else {
            return;
        };
        let Some(scatter) = shown.with(|s| s.as_ref().map(|(_, s, _)| s.clone())) else {
            return;
        };
        let dpr = web::device_pixel_ratio();
        let css_w = (canvas.client_width() as f64).max(300.0);
        let css_h = css_height(css_w);
        let (w, h) = ((css_w * dpr).round() as u32, (css_h * dpr).round() as u32);
        if (canvas.width(), canvas.height()) != (w, h) {
            let _ = canvas.style(("height", format!("{css_h}px")));
            canvas.set_width(w);
            canvas.set_height(h);
        }
        if let Some(backend) = CanvasBackend::with_canvas_object(canvas) {
            if let Err(why) = draw(backend, &scatter, dpr) {
                page.notices
                    .update(|n| n.push(format!("the scatter could not be drawn: {why}")));
            }
        }
    });

    let summary = move || {
        shown.with(|s| {
            s.as_ref().map(|(_, _, lines)| {
                lines
                    .iter()
                    .map(|l| view! { <li>{l.clone()}</li> })
                    .collect_view()
            })
        })
    };
    let described = move || shown.with(|s| s.as_ref().map(|(_, sc, _)| sc.describe()));
    let count = move || {
        shown.with(|s| {
            s.as_ref().map_or(String::new(), |(rows, _, _)| {
                let total = page
                    .validation
                    .with(|r| r.as_ref().map_or(0, |r| r.rows.len()));
                format!("{} of {} published points", rows.len(), total)
            })
        })
    };
    let rows = move || {
        shown.with(|s| {
            s.as_ref().map(|(rows, _, _)| {
                rows.iter()
                    .map(|r| {
                        let source = match &r.source_url {
                            Some(url) => view! {
                                <a href=url.clone() rel="noopener noreferrer" target="_blank">{r.source.clone()}</a>
                            }
                            .into_any(),
                            None => view! { <span>{r.source.clone()}</span> }.into_any(),
                        };
                        view! {
                            <tr data-id=r.id.clone()>
                                <th scope="row">{open_button(page, r.id.clone())}</th>
                                <td>{r.model.clone()}</td>
                                <td>{r.chips.clone()}</td>
                                <td>{r.axis}</td>
                                <td>{r.metric}</td>
                                <td>{r.framework}</td>
                                <td class="num">{r.measured.clone()}</td>
                                <td class="num">
                                    {r.predicted.clone()}
                                    {r.problem.clone().map(|why| view! { <span class="why-missing">{format!(" ({why})")}</span> })}
                                </td>
                                <td class="num">{r.error.clone()}</td>
                                <td>{r.role}</td>
                                <td class="source">{source}</td>
                            </tr>
                        }
                    })
                    .collect_view()
            })
        })
    };
    // Each heading is a button that orders the rows by its column (`vv.sort`).
    let headings = Column::ALL
        .into_iter()
        .map(|c| {
            view! {
                <th scope="col" aria-sort=move || Sort::aria(page.view.with(|v| v.sort), c)>
                    <button
                        class="sort-button"
                        id=format!("vv-sort-{}", c.id())
                        title="Sort by this column"
                        on:click=move |_| page.view.update(|v| v.sort = Sort::after_click(v.sort, c))
                    >
                        {c.heading()}
                    </button>
                </th>
            }
        })
        .collect_view();
    let filters = FilterKey::ALL
        .into_iter()
        .map(|key| view! { <FilterSelect filter=key/> })
        .collect_view();
    // The kept rows grouped by what the control names (`vv.by`).
    let grouped = Memo::new(move |_| {
        let by = page.view.with(|v| v.by)?;
        let report = page.validation.get()?;
        let filters = page.view.with(|v| v.filters.clone());
        Some(breakdown::rows(
            kept(&report, &filters, Catalogue::builtin()),
            by,
        ))
    });
    let group_rows = move || {
        grouped.get().map(|rows| {
            rows.into_iter()
                .map(|r| {
                    view! {
                        <tr>
                            <th scope="row">{r.name}</th>
                            {r.cells.into_iter().map(|c| view! { <td class="num">{c}</td> }).collect_view()}
                        </tr>
                    }
                })
                .collect_view()
        })
    };
    let by_choices = breakdown::choices()
        .into_iter()
        .map(|(key, label)| {
            view! {
                <option value=key.id() prop:selected=move || page.view.with(|v| v.by == Some(key))>
                    {label}
                </option>
            }
        })
        .collect_view();
    let on_by = move |ev: leptos::ev::Event| {
        let value = event_target_value(&ev);
        page.view.update(|v| v.by = breakdown::parse(&value).ok());
    };
    view! {
        <main class="validation-view" id="validation" tabindex="-1" aria-labelledby="validation-title">
            <h2 id="validation-title">"How far off the model is on published measurements"</h2>
            <p class="lede">
                "Each row is a published measurement, mapped to a scenario and predicted by the same engine the explorer runs. "
                "Calibration points may have been used to fit constants; hold-out points never were, so their error is the honest one. "
                "The same table, from the command line: "<code>"disagg validate"</code>"."
            </p>
            <Show when=move || page.validation.with(|r| r.is_none())>
                <p class="busy" id="validation-busy" role="status">"Predicting the published points…"</p>
            </Show>
            <ul class="validation-summary" id="validation-summary">{summary}</ul>
            <fieldset class="validation-filters">
                <legend>"Filter the rows"</legend>
                {filters}
            </fieldset>
            <p id="validation-count" role="status">{count}</p>
            <section class="validation-breakdown" aria-labelledby="vv-by-title">
                <h3 id="vv-by-title">"Where the model is close and where it is not"</h3>
                <label class="field">
                    <span>"Group the rows by"</span>
                    <select id="vv-by" on:change=on_by>
                        <option value="" prop:selected=move || page.view.with(|v| v.by.is_none())>"no grouping"</option>
                        {by_choices}
                    </select>
                </label>
                <Show when=move || grouped.with(Option::is_some)>
                    <div class="table-scroll">
                        <table id="validation-breakdown">
                            <caption>"The rows the filters keep, by group: each run's mean rows as the headline counts them; median and p90 of |error|; bias, the hold-out rows' median signed error (above 0: predicted high); within 12%, the hold-out rows inside the headline target. The same from the command line: disagg validate --by KEY."</caption>
                            <thead>
                                <tr>
                                    <th scope="col">"group"</th>
                                    <th scope="col">"calibration rows"</th>
                                    <th scope="col">"median"</th>
                                    <th scope="col">"hold-out rows"</th>
                                    <th scope="col">"median"</th>
                                    <th scope="col">"p90"</th>
                                    <th scope="col">"bias"</th>
                                    <th scope="col">"within 12%"</th>
                                </tr>
                            </thead>
                            <tbody>{group_rows}</tbody>
                        </table>
                    </div>
                </Show>
            </section>
            <figure class="chart validation-chart">
                <canvas
                    id="validation-chart"
                    node_ref=canvas_ref
                    role="img"
                    aria-label="Predicted against measured, log-log"
                    aria-describedby="validation-chart-summary"
                ></canvas>
                <figcaption id="validation-chart-summary">{described}</figcaption>
            </figure>
            <super::validation_point::ValidationPoint/>
            <div class="table-scroll">
                <table id="validation-table">
                    <caption>"Published measurements and the model's predictions; error is (predicted - measured) / measured"</caption>
                    <thead>
                        <tr>{headings}</tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
        </main>
    }
}

/// A row's id as the button that opens it (`vv.point`), or closes it when open.
fn open_button(page: Page, id: String) -> impl IntoView {
    let target = id.clone();
    let is_open = {
        let id = id.clone();
        move || page.view.with(|v| v.point.as_deref() == Some(id.as_str()))
    };
    view! {
        <button
            class="row-open"
            title="Open this prediction: its formulas, inputs and sources"
            aria-expanded=move || is_open().to_string()
            aria-controls="validation-point"
            on:click=move |_| page.view.update(|v| {
                v.point = if v.point.as_deref() == Some(target.as_str()) { None } else { Some(target.clone()) };
            })
        >
            {id}
        </button>
    }
}
