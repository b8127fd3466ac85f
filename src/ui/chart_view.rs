//! The chart canvas with hover and click, the status line with the measured redraw
//! time, and the frontier as a table (the keyboard's way to every point).

use super::{Explored, Page};
use crate::chart::canvas::Backend;
use crate::chart::describe::describe;
use crate::chart::draw::{first_part, hover_ring, next_part, Look, Parts};
use crate::chart::{legend, nearest, ChartModel, Cloud};
use crate::format;
use crate::perf::Redraw;
use crate::pins::overlay::pin_lines;
use crate::pins::{Pin, Sweeps};
use crate::scenario::Scenario;
use crate::storage::Preferences;
use crate::validation_view::opened::ExploredRun;
use crate::web;
use disagg_engine::units::Seconds;
use disagg_engine::validation::ValidationReport;
use disagg_engine::Catalogue;
use leptos::html::Canvas;
use leptos::prelude::*;
use std::sync::Arc;

/// A chart of more points than this is drawn in parts (marks cost about half a
/// millisecond per hundred points in headless Chromium here: 20-60 ms for the largest
/// sweep's 7,819): a new one starts in a task of its own, and its marks follow in tasks
/// of about [`SLICE_MS`] each.
const DRAW_APART: usize = 1000;

/// Marks drawn between looks at the clock while a chart is drawn in parts.
const CHUNK: usize = 200;

/// How long a part of a chart drawn in parts holds the page before the rest waits for
/// a task of its own (the browser answers input and paints in between).
const SLICE_MS: f64 = 12.0;

/// Pointer reach for hover and click, in CSS pixels.
const REACH: f64 = 10.0;

/// The chart of the current sweep. Every recomputation counts as a new chart, even
/// one equal to the last: an input whose sweep draws the same picture is still answered
/// by a redraw, so its latency is recorded then and not charged to the next input.
pub(super) fn chart_model(
    scenario: RwSignal<Scenario>,
    preferences: RwSignal<Preferences>,
    explored: RwSignal<Option<Arc<Explored>>>,
    (pins, pin_sweeps): (RwSignal<Vec<Pin>>, RwSignal<Sweeps>),
    run: Memo<Option<Arc<ExploredRun>>>,
) -> Memo<Option<Arc<ChartModel>>> {
    /// Each value computed is new (compared by address, not by contents).
    fn changed<T>(old: Option<&Option<Arc<T>>>, new: Option<&Option<Arc<T>>>) -> bool {
        match (old, new) {
            (Some(Some(a)), Some(Some(b))) => !Arc::ptr_eq(a, b),
            (Some(None), Some(None)) => false,
            _ => true,
        }
    }
    // What does not depend on the y axis, the colours or the filter is read from each
    // sweep once (its points' chips and draw order), so that switching them is cheap.
    let cloud = Memo::new_with_compare(
        move |_| {
            explored.with(|e| {
                let e = e.as_ref()?;
                let r = e.result.as_ref().ok()?;
                // The user's chips are named as the sweep saw them.
                let catalogue = crate::bundle::effective(&e.scenario, Catalogue::builtin())
                    .unwrap_or(std::borrow::Cow::Borrowed(Catalogue::builtin()));
                Some(Arc::new(Cloud::new(r, &e.scenario.chips, &catalogue)))
            })
        },
        changed,
    );
    // The chips and the rest come with the sweep; only what to show is read from the
    // live scenario (through a memo, so that an edit that sweeps again redraws once,
    // when its sweep arrives, and not at once with the old sweep).
    let look = Memo::new(move |_| scenario.with(|s| (s.y_axis, s.colour_by)));
    Memo::new_with_compare(
        move |_| {
            let every = preferences.with(|p| p.show_cloud);
            let (y_axis, colour_by) = look.get();
            let cloud = cloud.get()?;
            explored.with(|e| {
                let e = e.as_ref()?;
                let r = e.result.as_ref().ok()?;
                let shown = Scenario {
                    y_axis,
                    colour_by,
                    ..e.scenario.clone()
                };
                // The pinned scenarios' frontiers, on the same y axis.
                let lines = pins.with(|p| pin_sweeps.with(|w| pin_lines(p, w, y_axis)));
                Some(Arc::new(
                    ChartModel::of(&cloud, r, &shown, every)
                        .with_pins(lines)
                        .with_measured(run.with(|r| r.as_ref()?.mark()), y_axis),
                ))
            })
        },
        changed,
    )
}

/// The published measurements of an explored validation row's run, found once per
/// sweep of a scenario that shows a deployment (`ExploredRun::of`): the chart marks
/// them and the detail panel lists them, while the scenario is the row's.
pub(super) fn explored_run(
    explored: RwSignal<Option<Arc<Explored>>>,
    explored_row: RwSignal<Option<String>>,
    validation: RwSignal<Option<Arc<ValidationReport>>>,
) -> Memo<Option<Arc<ExploredRun>>> {
    Memo::new(move |_| {
        let id = explored_row.get()?;
        let report = validation.get()?;
        explored.with(|e| {
            let e = e.as_ref()?;
            e.scenario.show.as_ref()?;
            Some(Arc::new(ExploredRun::of(
                &id,
                &e.scenario,
                &report,
                Catalogue::builtin(),
            )))
        })
    })
}

#[component]
pub fn ChartView() -> impl IntoView {
    let page = expect_context::<Page>();
    let model = page.chart;
    let canvas_ref = NodeRef::<Canvas>::new();
    let ring_ref = NodeRef::<Canvas>::new();
    // Counts the chart's redraws, which move the points under the hover ring.
    let redrawn = RwSignal::new(0u64);
    let positions = StoredValue::new(Vec::<(f64, f64)>::new());
    let resized = RwSignal::new(0u32);
    let tip = RwSignal::new(None::<(f64, f64)>);
    let _resize = window_event_listener(leptos::ev::resize, move |_| resized.update(|n| *n += 1));

    // The number of the newest drawing begun: a part of an older one, waiting for its
    // task, finds it changed and stops.
    let drawings = StoredValue::new(0u64);
    // Whether a new chart is still to be drawn whole and timed (a drawing cut short by
    // a newer one leaves that to the newer one).
    let owed = StoredValue::new(false);

    Effect::new(move |previous: Option<Option<Arc<ChartModel>>>| {
        resized.track();
        let model = model.get();
        // Only a new chart answers an input; a redraw for hover, selection or size
        // does not.
        let fresh = match (&previous, &model) {
            (Some(Some(old)), Some(new)) => !Arc::ptr_eq(old, new),
            (_, Some(_)) => true,
            _ => false,
        };
        let selected = page.selected.get();
        let Some(canvas) = canvas_ref.get() else {
            return model;
        };
        if fresh {
            owed.set_value(true);
        }
        let number = drawings.get_value() + 1;
        drawings.set_value(number);
        let drawing = model.clone();
        let paint = move || {
            if drawings.try_get_value() != Some(number) {
                return;
            }
            let t0 = web::now_ms();
            let dpr = web::device_pixel_ratio();
            let css_w = (canvas.client_width() as f64).max(320.0);
            let key_h = drawing
                .as_ref()
                .map_or(0.0, |m| legend::key(m, css_w).height);
            let css_h = (css_w * 0.6).clamp(320.0, 560.0) + key_h;
            // Only a new size reallocates the canvas and restyles it (plotters paints
            // every pixel anyway).
            let (w, h) = ((css_w * dpr).round() as u32, (css_h * dpr).round() as u32);
            if (canvas.width(), canvas.height()) != (w, h) {
                let _ = canvas.style(("height", format!("{css_h}px")));
                canvas.set_width(w);
                canvas.set_height(h);
            }
            let Some(m) = drawing else {
                positions.set_value(Vec::new());
                redrawn.update(|n| *n += 1);
                return;
            };
            let look = Look {
                scale: dpr,
                selected: selected.and_then(|c| m.points.iter().position(|p| p.cloud_index == c)),
            };
            // A large cloud's marks are drawn in later parts; every point is placed
            // by the first, so hit testing is exact at once.
            let marks = if m.points.len() > DRAW_APART {
                0
            } else {
                usize::MAX
            };
            let first =
                Backend::new(canvas.clone()).and_then(|b| first_part(b, &m, &look, marks).ok());
            let placed = first.as_ref().map_or_else(Vec::new, |p| p.positions());
            positions.set_value(placed.iter().map(|&(x, y)| (x / dpr, y / dpr)).collect());
            redrawn.update(|n| *n += 1);
            // The new chart's latency runs to the end of its last part.
            let done = move || {
                if owed.try_get_value() == Some(true) {
                    owed.set_value(false);
                    report(page, t0, web::now_ms());
                }
            };
            match first {
                Some(parts) => {
                    let rest = Rest {
                        canvas,
                        model: m,
                        look,
                        parts,
                        number,
                    };
                    draw_rest(rest, drawings, t0 + SLICE_MS, done);
                }
                None => done(),
            }
        };
        // A new chart of a large sweep is drawn in a task of its own, after the one
        // that shows the sweep's words and tables.
        if fresh && model.as_ref().is_some_and(|m| m.points.len() > DRAW_APART) {
            web::next_task(paint);
        } else {
            paint();
        }
        model
    });

    // The hover ring, on its own layer: follows the pointer and every redraw.
    Effect::new(move |_| {
        redrawn.track();
        let hovered = page.hovered.get();
        let (Some(layer), Some(canvas)) = (ring_ref.get(), canvas_ref.get()) else {
            return;
        };
        // Setting the size clears the layer.
        layer.set_width(canvas.width());
        layer.set_height(canvas.height());
        let _ = layer.style(("height", format!("{}px", canvas.client_height())));
        let at = model.with_untracked(|m| {
            let m = m.as_ref()?;
            let i = m
                .points
                .iter()
                .position(|p| Some(p.cloud_index) == hovered)?;
            positions.with_value(|p| p.get(i).copied())
        });
        if let (Some((x, y)), Some(backend)) = (at, Backend::new(layer)) {
            let dpr = web::device_pixel_ratio();
            let _ = hover_ring(backend, (x * dpr, y * dpr), dpr);
        }
    });

    let point_at = move |ev: &leptos::ev::MouseEvent| -> Option<(usize, (f64, f64))> {
        let canvas = canvas_ref.get_untracked()?;
        let rect = canvas.get_bounding_client_rect();
        let at = (
            ev.client_x() as f64 - rect.left(),
            ev.client_y() as f64 - rect.top(),
        );
        let i = positions.with_value(|p| nearest(p, at, REACH))?;
        let cloud = model.with_untracked(|m| m.as_ref().map(|m| m.points[i].cloud_index))?;
        Some((cloud, at))
    };
    let on_move = move |ev: leptos::ev::MouseEvent| {
        let hit = point_at(&ev);
        let cloud = hit.map(|h| h.0);
        if cloud != page.hovered.get_untracked() {
            page.hovered.set(cloud);
        }
        tip.set(hit.map(|h| h.1));
    };
    let on_leave = move |_| {
        page.hovered.set(None);
        tip.set(None);
    };
    let on_click = move |ev: leptos::ev::MouseEvent| {
        if let Some((cloud, _)) = point_at(&ev) {
            page.opener.set_value(None);
            page.selected.set(Some(cloud));
        }
    };
    let tooltip = move || {
        let (x, y) = tip.get()?;
        // Right of the pointer on the chart's left half, left of it on the right half,
        // so the tooltip stays on screen however narrow the chart is.
        let width = canvas_ref
            .get_untracked()
            .map_or(0.0, |c| c.client_width() as f64);
        let flip = if x > width / 2.0 {
            "translateX(calc(-100% - 28px))"
        } else {
            "none"
        };
        let cloud = page.hovered.get()?;
        page.explored.with(|e| {
            let p = e.as_ref()?.point(cloud)?;
            let f = &p.figures;
            Some(view! {
                <div
                    class="tooltip"
                    role="tooltip"
                    style:left=format!("{}px", x + 14.0)
                    style:top=format!("{}px", y + 14.0)
                    style:transform=flip
                >
                    <strong>{p.phrase.clone()}</strong>
                    <div>{p.label.clone()}</div>
                    <div>
                        {format!(
                            "{} tok/s/user · {} tok/s per chip · {}/Mtok",
                            format::rate(f.tok_s_user),
                            format::rate(f.output_tok_s_per_chip),
                            format::usd_per_mtok(f.usd_per_mtok_output)
                        )}
                    </div>
                    <div class="hint">"click for details"</div>
                </div>
            })
        })
    };
    // The key's entries as drawn, for the browser tests to read.
    let key_text = move || {
        model.with(|m| {
            m.as_ref().map_or(String::new(), |m| {
                legend::entries(m)
                    .into_iter()
                    .map(|e| e.text)
                    .collect::<Vec<_>>()
                    .join(" | ")
            })
        })
    };
    let summary = move || {
        let m = model.get()?;
        page.with_result(|r| Some(describe(&m, r)))
    };
    let error = move || {
        page.explored.with(|e| {
            e.as_ref()
                .and_then(|e| e.result.as_ref().err().cloned())
                .map(|msg| view! { <p class="chart-error" id="chart-error" role="alert">{msg}</p> })
        })
    };
    view! {
        <figure class="chart">
            <h2 class="visually-hidden">"Chart"</h2>
            {error}
            <div class="canvas-wrap">
                <canvas
                    id="chart"
                    node_ref=canvas_ref
                    role="img"
                    aria-label="Chart of the swept deployments"
                    aria-describedby="chart-summary"
                    data-key=key_text
                    on:mousemove=on_move
                    on:mouseleave=on_leave
                    on:click=on_click
                ></canvas>
                <canvas class="ring-layer" node_ref=ring_ref aria-hidden="true"></canvas>
                {tooltip}
                <Show when=move || page.sweeping.get()>
                    <p class="busy" id="busy" role="status">"Sweeping… the chart shows the last result until the new one is ready."</p>
                </Show>
            </div>
            <p class="visually-hidden" id="chart-summary">{summary}</p>
        </figure>
    }
}

/// A chart drawn in parts, between two of them.
struct Rest {
    canvas: web_sys::HtmlCanvasElement,
    model: Arc<ChartModel>,
    look: Look,
    parts: Parts,
    /// Which drawing this is (see `drawings` in [`ChartView`]).
    number: u64,
}

/// Draws the rest of a chart's marks until `until` on the page's clock, then goes on
/// in a task of its own, so that the browser answers input and paints in between;
/// calls `done` once the chart is whole, or the canvas refuses. Stops, without `done`,
/// when a newer drawing has begun while this one waited for its task.
fn draw_rest(
    mut rest: Rest,
    drawings: StoredValue<u64>,
    until: f64,
    done: impl FnOnce() + 'static,
) {
    if drawings.try_get_value() != Some(rest.number) {
        return;
    }
    while !rest.parts.finished() {
        if web::now_ms() >= until {
            return web::next_task(move || {
                draw_rest(rest, drawings, web::now_ms() + SLICE_MS, done)
            });
        }
        let drawn = Backend::new(rest.canvas.clone())
            .map(|b| next_part(b, &rest.model, &rest.look, &mut rest.parts, CHUNK));
        if !matches!(drawn, Some(Ok(()))) {
            break;
        }
    }
    done()
}

/// Records the redraw that answers the last input, drawn from `drawn_from` to `done`.
fn report(page: Page, drawn_from: f64, done: f64) {
    if let Some(started) = page.input_at.get_value() {
        page.input_at.set_value(None);
        let arrival = page.unreported_arrival.get_value();
        page.unreported_arrival.set_value(None);
        let r = Redraw::new(started, arrival, drawn_from, done);
        page.latencies.update(|l| l.push(r.total_ms));
        page.last_redraw.set(Some(r));
    }
}

/// Counts, reasons for rejection and the measured input-to-redraw time.
#[component]
pub fn Status() -> impl IntoView {
    let page = expect_context::<Page>();
    let counts = move || {
        page.with_result(|r| {
            let rejected: u64 = r.rejected.iter().map(|c| c.count).sum();
            let reasons = r
                .rejected
                .iter()
                .map(|c| format!("{} {}", format::count(c.count), c.name))
                .collect::<Vec<_>>()
                .join(", ");
            let drawn = page
                .chart
                .with(|m| m.as_ref().map_or(0, |m| m.points.len()));
            Some(format!(
                "{} configurations evaluated, {} feasible, {} points drawn; rejected {}{}",
                format::count(r.evaluated),
                format::count(r.feasible),
                format::count(drawn as u64),
                format::count(rejected),
                if reasons.is_empty() {
                    String::new()
                } else {
                    format!(" ({reasons})")
                }
            ))
        })
    };
    let timing = move || {
        let r = page.last_redraw.get()?;
        let l = page.latencies.get();
        Some(format!(
            "input to redrawn chart {} ({}); p95 {} over {} changes",
            format::duration(Seconds::from_ms(r.total_ms)),
            r.parts(),
            format::duration(Seconds::from_ms(l.quantile(0.95).unwrap_or(f64::NAN))),
            l.len()
        ))
    };
    let notes = move || {
        page.with_result(|r| {
            Some(
                r.notes
                    .iter()
                    .map(|n| view! { <li>{n.clone()}</li> })
                    .collect_view(),
            )
        })
    };
    let last_ms = move || {
        page.last_redraw
            .get()
            .map(|r| format!("{:.1}", r.total_ms))
            .unwrap_or_default()
    };
    let p95_ms = move || {
        page.latencies.with(|l| {
            l.quantile(0.95)
                .map(|v| format!("{v:.1}"))
                .unwrap_or_default()
        })
    };
    let redraws = move || page.latencies.with(|l| l.total());
    let drawn = move || {
        page.chart
            .with(|m| m.as_ref().map_or(0, |m| m.points.len()))
    };
    view! {
        <div
            class="status"
            id="status"
            data-last-ms=last_ms
            data-p95-ms=p95_ms
            data-points=drawn
            data-redraws=redraws
            data-sweeping=move || page.sweeping.get().to_string()
        >
            <p>{counts}</p>
            <p id="timing">{timing}</p>
            <ul class="notes">{notes}</ul>
        </div>
    }
}

/// The overall frontier of the chart's objective as a table; each row opens its
/// point, so a keyboard reaches every frontier deployment.
#[component]
pub fn FrontierTable() -> impl IntoView {
    let page = expect_context::<Page>();
    // The chart's y axis, taken a task after it changes: the rows, and laying them out,
    // follow in a task of their own rather than holding the one that answers the input
    // (a large chart's marks are drawn in later tasks the same way).
    let current = Memo::new(move |_| page.scenario.with(|s| s.y_axis));
    let shown = RwSignal::new(current.get_untracked());
    Effect::new(move |_| {
        let y = current.get();
        if shown.get_untracked() != y {
            web::next_task(move || {
                // Only the newest switch, and only while the table is there.
                if current.try_get_untracked() == Some(y) {
                    shown.try_set(y);
                }
            });
        }
    });
    let rows = move || {
        let y = shown.get();
        page.with_result(|r| {
            let frontier = &r.frontiers_of(y.objective()).all;
            Some(
                frontier
                    .iter()
                    .filter_map(|&i| Some((i, r.cloud.get(i)?)))
                    .map(|(i, p)| {
                        let cloud = Some(i);
                        let f = &p.figures;
                        view! {
                            <tr
                                class=format!("class-{}", serde_json::to_value(p.class).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default())
                                class:selected=move || page.selected.get() == cloud
                                aria-current=move || (page.selected.get() == cloud).then_some("true")
                            >
                                <td>{format::rate(f.tok_s_user)}</td>
                                <td>{format::rate(f.output_tok_s_per_chip)}</td>
                                <td>{format::usd_per_mtok(f.usd_per_mtok_output)}</td>
                                <td>{format::duration(f.ttft)}</td>
                                <td>{p.class.name()}</td>
                                <td>
                                    <button
                                        class="link"
                                        id=super::opener_id(i)
                                        on:click=move |_| page.open_detail(i, super::opener_id(i))
                                    >
                                        {p.label.clone()}
                                    </button>
                                </td>
                            </tr>
                        }
                    })
                    .collect_view(),
            )
        })
    };
    view! {
        <details class="frontier-table" id="frontier-table" open>
            <summary>"Frontier points"</summary>
            <div class="table-scroll"><table>
                <caption class="visually-hidden">
                    "The frontier of the chart's measure; each row's deployment opens its details"
                </caption>
                <thead>
                    <tr>
                        <th scope="col">"tok/s/user"</th>
                        <th scope="col">"tok/s per chip"</th>
                        <th scope="col">"$/Mtok out"</th>
                        <th scope="col">"TTFT"</th>
                        <th scope="col">"kind"</th>
                        <th scope="col">"deployment (opens details)"</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table></div>
        </details>
    }
}
