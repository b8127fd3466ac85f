//! The detail panel of a clicked point: every pool's chips, layout, batch, memory
//! and where its time goes, evaluated afresh by the engine.

use super::chain::{chain_view, operator_tables};
use super::Page;
use crate::chains::chain_for;
use crate::explore::{detail, detail_without_speculation, speculation_gain, speculation_summary};
use crate::format::{self, sig3};
use crate::reality::{figure_bands, nearest_points, sentence};
use crate::scenario::SHOW_KEY;
use crate::validation_view::View;
use disagg_engine::disagg::explain::Explained;
use disagg_engine::disagg::DeploymentPoint;
use disagg_engine::units::Bytes;
use disagg_engine::validation::{HowSure, PointError};
use disagg_engine::Catalogue;
use leptos::prelude::*;
use std::collections::BTreeMap;

/// What the detail panel says of a deployment drawn beside the sweep.
const SHOWN_BESIDE: &str = "Drawn beside the sweep: the deployment of the bundle or validation row you opened, which the sweep itself does not keep (its layout or batch is not one the sweep tries, or it lies under its chips' frontier). It is on no frontier and in no verdict.";

/// A published point as the button that opens it in the validation view (`vv.point`).
fn open_row(page: Page, point: PointError) -> impl IntoView {
    let id = point.id.clone();
    view! {
        <button
            class="row-open"
            title="Open this published point in the validation view: the measurement beside the prediction"
            on:click=move |_| page.view.update(|v| {
                v.view = View::Validation;
                v.point = Some(id.clone());
            })
        >
            {point.label()}
        </button>
    }
}

fn pools(d: &DeploymentPoint) -> impl IntoView {
    d.pools
        .iter()
        .map(|p| {
            let t = &p.time;
            let total = t.compute.value()
                + t.weight_memory.value()
                + t.kv_memory.value()
                + t.communication.value()
                + t.overhead.value();
            let share = |v: f64| format::percent(if total > 0.0 { v / total } else { f64::NAN });
            let m = &p.memory;
            view! {
                <tr>
                    <th scope="row">{p.role.name()}</th>
                    <td>{format!("{}x {}", p.chips, p.chip_name)}</td>
                    <td>{p.parallelism.to_string()}</td>
                    <td>{sig3(p.seqs_per_replica)}</td>
                    <td>{format::duration(p.step)}</td>
                    <td>{format::percent(p.utilisation)}</td>
                    <td>
                        {format!(
                            "{} of {} (weights {}, KV {}, workspace {})",
                            format::bytes(m.total),
                            format::bytes(m.fast_capacity + m.cold_capacity),
                            format::bytes(m.weights),
                            format::bytes(m.kv),
                            format::bytes(m.workspace)
                        )}
                    </td>
                    <td>
                        {format!(
                            "compute {}, weights {}, KV {}, comms {}, overhead {}",
                            share(t.compute.value()),
                            share(t.weight_memory.value()),
                            share(t.kv_memory.value()),
                            share(t.communication.value()),
                            share(t.overhead.value())
                        )}
                    </td>
                    <td>{p.bottleneck.name()}</td>
                </tr>
            }
        })
        .collect_view()
}

/// The headline figures; each the engine explains is a button that opens its chain
/// in the panel below the list (`open`), and each with an error band has it below.
fn summary(
    e: &Explained,
    against: Option<&disagg_engine::cost::api::Against>,
    rate: Option<f64>,
    bands: &BTreeMap<&'static str, String>,
    open: RwSignal<Option<&'static str>>,
) -> impl IntoView {
    let d = &e.point;
    let f = &d.figures;
    let mut rows: Vec<(&'static str, String)> = vec![
        ("batch (concurrent requests)", sig3(f.batch as f64)),
        ("chips (all pools)", sig3(f.chips as f64)),
        ("TTFT", format::duration(f.ttft)),
        ("TPOT", format::duration(f.tpot)),
        ("tok/s per user", format::rate(f.tok_s_user)),
        (
            "output tok/s per chip",
            format::rate(f.output_tok_s_per_chip),
        ),
        ("input tok/s per chip", format::rate(f.input_tok_s_per_chip)),
        ("$/Mtok output", format::usd_per_mtok(f.usd_per_mtok_output)),
        ("$/Mtok input", format::usd_per_mtok(f.usd_per_mtok_input)),
        (
            "$/Mtok blended",
            format::usd_per_mtok(f.usd_per_mtok_blended),
        ),
        (
            "J per output token",
            format::joules(f.joules_per_output_token),
        ),
        (
            "memory per chip (fullest)",
            format::bytes(
                d.pools
                    .iter()
                    .map(|p| p.memory.total)
                    .fold(Bytes::ZERO, Bytes::max),
            ),
        ),
        ("max batch (memory)", format::count(d.max_batch())),
        ("transfer per request", format::duration(d.transfer_time)),
        ("limited by", d.figures.limiter.name().to_string()),
        ("decode bottleneck", d.figures.bottleneck.name().to_string()),
    ];
    // A split deployment's pool figures, last so that the others keep their places.
    if let Some(v) = d.output_tok_s_per_decode_chip() {
        rows.push(("output tok/s per decode chip", format::rate(v)));
    }
    if let Some(v) = d.input_tok_s_per_prefill_chip() {
        rows.push(("input tok/s per prefill chip", format::rate(v)));
    }
    rows.push(("TTFT p50 / p90", format::ttft_spread(&d.ttft)));
    rows.push(("TPOT p50 / p90", format::tpot_spread(&d.tpot)));
    rows.extend(crate::ui::cost::rows(e, against));
    rows.push(("TTFT, where it goes", format::ttft_parts(&d.ttft.parts)));
    // At a rate the batch is the concurrency the arrivals hold: the rate's rows first.
    if let Some(r) = rate {
        rows.splice(0..1, crate::open_loop::rows(e, r));
    }
    rows.into_iter()
        .enumerate()
        .map(|(n, (k, v))| {
            let value = match chain_for(&e.chains, k) {
                Some(_) => view! {
                    <button
                        class="figure-value"
                        id=format!("figure-{n}")
                        aria-controls="chain-panel"
                        aria-expanded=move || (open.get() == Some(k)).to_string()
                        title="How is this computed?"
                        on:click=move |_| open.update(|o| *o = if *o == Some(k) { None } else { Some(k) })
                    >
                        {v}
                    </button>
                }
                .into_any(),
                None => view! { <span>{v}</span> }.into_any(),
            };
            let band = bands
                .get(k)
                .map(|b| view! { <dd class="error-band">{b.clone()}</dd> });
            view! { <div class="figure"><dt>{k}</dt><dd>{value}</dd>{band}</div> }
        })
        .collect_view()
}

#[component]
pub fn Detail() -> impl IntoView {
    let page = expect_context::<Page>();
    let evaluated = Memo::new(move |_| {
        let cloud = page.selected.get()?;
        page.explored.with(|e| {
            let e = e.as_ref()?;
            let p = e.point(cloud)?;
            let point = detail(&e.scenario, &p.spec, Catalogue::builtin());
            // Beside a speculating point, what the same pools do without it.
            let gain = match (
                &point,
                detail_without_speculation(&e.scenario, &p.spec, Catalogue::builtin()),
            ) {
                (Ok(with), Some(Ok(without))) => {
                    Some(speculation_gain(&with.point.figures, &without.figures))
                }
                _ => None,
            };
            let against = point
                .as_ref()
                .ok()
                .and_then(|x| crate::explore::against(&e.scenario, &x.point.figures));
            Some((
                p.label.clone(),
                speculation_summary(&e.scenario),
                gain,
                point,
                e.scenario.rate,
                against,
            ))
        })
    });
    // How sure: the measured error on published points of this point's chips and axis,
    // and the one or two points that sentence names; worked out once a selection.
    let sure = Memo::new(move |_| {
        let cloud = page.selected.get()?;
        let report = page.validation.get()?;
        page.explored.with(|e| {
            let p = e.as_ref()?.point(cloud)?;
            let mut chips: Vec<String> = p.spec.pools.iter().map(|x| x.chip.clone()).collect();
            chips.dedup();
            let cat = Catalogue::builtin();
            let sure = HowSure::of(&report, cat, &chips, p.spec.axis);
            Some((sentence(&report, &chips, &sure, cat), nearest_points(&sure)))
        })
    });
    let measured = move || sure.get().map(|(text, _)| text);
    // The named points, each opened in the table.
    let nearest = move || {
        let (_, points) = sure.get()?;
        (!points.is_empty()).then(|| {
            view! {
                <p class="nearest-points" id="nearest-points">
                    "Open the published points named: "
                    {points.into_iter().map(|p| open_row(page, p)).collect_view()}
                </p>
            }
        })
    };
    // The selected point is the scenario's deployment to show, drawn beside the sweep.
    let shown_beside = move || {
        let cloud = page.selected.get()?;
        page.with_result(|r| (r.shown == Some(cloud)).then_some(()))
    };
    // Beside the deployment of an explored validation row, its run's measurements.
    let row_measurements = move || {
        let cloud = page.selected.get()?;
        let run = page.explored_run.get()?;
        page.explored.with(|e| {
            let e = e.as_ref()?;
            let p = e.point(cloud)?;
            if e.scenario.show.as_ref() != Some(&p.spec) {
                return None;
            }
            let lines = run.lines();
            (!lines.is_empty()).then_some(lines)
        })
    };
    // The figure whose chain is open; a new point opens none.
    let open = RwSignal::new(None::<&'static str>);
    Effect::new(move |_| {
        page.selected.track();
        open.set(None);
    });
    let body = move || {
        let (label, speculation, gain, result, rate, against) = evaluated.get()?;
        Some(match result {
            Ok(e) => {
                let chains = e.chains.clone();
                let chain_panel = move || {
                    open.get()
                    .and_then(|figure| chain_for(&chains, figure))
                    .map(|c| view! {
                        <div class="chain-panel" tabindex="0" role="region" aria-label=format!("How {} is computed", c.quantity)>
                            <h3>{format!("How {} is computed", c.quantity)}</h3>
                            {chain_view(c)}
                        </div>
                    })
                };
                let d = &e.point;
                // How far off each figure may be: the engine's band of its class.
                let bands = page
                    .validation
                    .get()
                    .map(|r| figure_bands(&r, Catalogue::builtin(), d))
                    .unwrap_or_default();
                view! {
                <h2 id="detail-title">{label}</h2>
                {move || shown_beside().map(|_| view! {
                    <p class="shown-beside" id="shown-beside">
                        {SHOWN_BESIDE}
                        " "
                        <button id="stop-showing" on:click=move |_| {
                            page.close_detail();
                            page.set_field(SHOW_KEY, "");
                        }>"Stop drawing it"</button>
                    </p>
                })}
                {move || row_measurements().map(|lines| view! {
                    <div class="row-measurements" id="row-measurements">
                        <p>"Published measurements of this deployment:"</p>
                        <ul>{lines.into_iter().map(|l| view! { <li>{l}</li> }).collect_view()}</ul>
                    </div>
                })}
                {speculation.map(|text| view! { <p class="speculation">{text}</p> })}
                {gain.map(|text| view! { <p class="speculation" id="speculation-gain">{text}</p> })}
                {rate.map(|r| view! { <p class="open-loop" id="open-loop-answer">{crate::open_loop::answer(&e, r)}</p> })}
                <p class="measured-error" id="measured-error">{measured}</p>
                {nearest}
                <p class="hint">"Click a figure to see how it is computed: its formula, every input with its source, and the model's section."</p>
                <dl class="figures">{summary(&e, against.as_ref(), rate, &bands, open)}</dl>
                <div id="chain-panel" aria-live="polite">{chain_panel}</div>
                <div class="table-scroll" tabindex="0" role="region" aria-label="Pools"><table class="pools">
                    <caption class="visually-hidden">"The deployment's pools"</caption>
                    <thead>
                        <tr>
                            <th scope="col">"pool"</th>
                            <th scope="col">"chips"</th>
                            <th scope="col">"layout"</th>
                            <th scope="col">"seqs/replica"</th>
                            <th scope="col">"step"</th>
                            <th scope="col">"busy"</th>
                            <th scope="col">"memory per chip"</th>
                            <th scope="col">"step time split"</th>
                            <th scope="col">"bottleneck"</th>
                        </tr>
                    </thead>
                    <tbody>{pools(d)}</tbody>
                </table></div>
                <ul class="warnings">
                    {d.warnings.iter().map(|w| view! { <li>{w.clone()}</li> }).collect_view()}
                </ul>
                {super::topology::topology_view(&e.topology)}
                <super::launch::LaunchCommand/>
                <h3>"Where the time goes, operator by operator"</h3>
                <div id="operator-tables">{operator_tables(d)}</div>
            }
            .into_any()
            }
            Err(e) => view! { <p role="alert">{e}</p> }.into_any(),
        })
    };
    // Escape closes the panel from anywhere on the page.
    let listener = window_event_listener(leptos::ev::keydown, move |e| {
        if e.key() == "Escape" && page.selected.get_untracked().is_some() {
            page.close_detail();
        }
    });
    on_cleanup(move || listener.remove());
    view! {
        <Show when=move || page.selected.with(|s| s.is_some())>
            <section class="detail" id="detail" aria-labelledby="detail-title">
                <button class="close" id="detail-close" on:click=move |_| page.close_detail()>
                    "Close details"
                </button>
                {body}
            </section>
        </Show>
    }
}
