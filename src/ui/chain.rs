//! The detail panel's "how is this computed": a figure's explain chain (its formula,
//! each input with value, meaning and source, derived inputs opening their own chain)
//! and each pool's steps operator by operator with a bar for each row's share.

use crate::chains::{operator_lines, section_link, source_text, value};
use crate::format;
use disagg_engine::disagg::DeploymentPoint;
use disagg_engine::explain::{Chain, Source};
use leptos::prelude::*;

/// One chain, its derived inputs folded under their own summaries.
pub(super) fn chain_view(c: &Chain) -> AnyView {
    let inputs = c
        .inputs
        .iter()
        .map(|i| {
            let source = match &i.source {
                Source::Derived { chain } => view! {
                    <details class="sub-chain">
                        <summary>{format!("{}: {} = {}", chain.quantity, chain.symbol, chain.formula)}</summary>
                        {chain_view(chain)}
                    </details>
                }
                .into_any(),
                other => view! { <span>{source_text(other)}</span> }.into_any(),
            };
            view! {
                <tr>
                    <th scope="row"><code>{i.name.clone()}</code></th>
                    <td class="num">{value(i.value, i.unit)}</td>
                    <td>{i.meaning.clone()}</td>
                    <td>{source}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <div class="chain">
            <p class="formula">
                <code>{format!("{} = {}", c.symbol, c.formula)}</code>
                " = "
                <strong>{value(c.value, c.unit)}</strong>
                " "
                <a class="section" href=section_link(c.section) target="_blank" rel="noopener">
                    {format!("model §{}", c.section)}
                </a>
            </p>
            <table class="chain-inputs">
                <caption class="visually-hidden">{format!("Inputs of {}", c.quantity)}</caption>
                <thead>
                    <tr>
                        <th scope="col">"symbol"</th>
                        <th scope="col">"value"</th>
                        <th scope="col">"meaning"</th>
                        <th scope="col">"source"</th>
                    </tr>
                </thead>
                <tbody>{inputs}</tbody>
            </table>
        </div>
    }
    .into_any()
}

/// Every pool's steps, operator by operator, each table folded under its step.
pub(super) fn operator_tables(d: &DeploymentPoint) -> impl IntoView {
    d.pools
        .iter()
        .flat_map(|p| p.operators.iter().map(move |t| (p, t)))
        .enumerate()
        .map(|(n, (p, t))| {
            let title = format!(
                "{} pool ({}x {}), {}: {} per chip",
                p.role.name(),
                p.chips,
                p.chip_name,
                t.phase,
                format::duration(t.step)
            );
            let rows = operator_lines(t)
                .into_iter()
                .map(|l| {
                    view! {
                        <tr>
                            <td>{l.layers}</td>
                            <th scope="row">{l.op}</th>
                            <td class="num">{l.flops}</td>
                            <td class="num">{l.weights}</td>
                            <td class="num">{l.kv}</td>
                            <td class="num">{l.activations}</td>
                            <td class="num">{l.link}</td>
                            <td class="num">{l.intensity}</td>
                            <td>{l.bound}</td>
                            <td class="num">{l.time}</td>
                            <td class="share">
                                <span
                                    class=format!("bar bound-{}", l.bound)
                                    style:width=format!("{:.1}%", l.percent)
                                ></span>
                                <span class="share-text">{format!("{:.1}%", l.percent)}</span>
                            </td>
                        </tr>
                    }
                })
                .collect_view();
            let (summary, label) = (title.clone(), title.clone());
            view! {
                <details class="operators" id=format!("operators-{n}")>
                    <summary>{summary}</summary>
                    <div class="table-scroll" tabindex="0" role="region" aria-label=label>
                        <table class="operators">
                            <caption class="visually-hidden">{title}</caption>
                            <thead>
                                <tr>
                                    <th scope="col">"layers"</th>
                                    <th scope="col">"operator"</th>
                                    <th scope="col">"FLOPs"</th>
                                    <th scope="col">"weights"</th>
                                    <th scope="col">"KV"</th>
                                    <th scope="col">"activations"</th>
                                    <th scope="col">"link"</th>
                                    <th scope="col">"FLOP/byte"</th>
                                    <th scope="col">"bound"</th>
                                    <th scope="col">"time"</th>
                                    <th scope="col">"share of the step"</th>
                                </tr>
                            </thead>
                            <tbody>{rows}</tbody>
                        </table>
                    </div>
                </details>
            }
        })
        .collect_view()
}
