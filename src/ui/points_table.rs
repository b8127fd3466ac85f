//! Every drawn point as a table a keyboard can reach: sortable by each column, and
//! each row's deployment opens its details. Rows are built only while the table is
//! open, so a closed table costs a redraw nothing.

use super::Page;
use crate::format;
use crate::points::{sorted, Column, Sort};
use leptos::prelude::*;

/// The id of the button in this table that opens cloud point `i`.
pub fn row_opener_id(i: usize) -> String {
    format!("row-{i}")
}

#[component]
pub fn PointsTable() -> impl IntoView {
    let page = expect_context::<Page>();
    let open = RwSignal::new(false);
    let sort = RwSignal::new(Sort::default());
    let headings = Column::ALL
        .into_iter()
        .map(|c| {
            view! {
                <th scope="col" aria-sort=move || sort.get().aria(c)>
                    <button
                        class="sort"
                        id=format!("sort-{}", c.name().replace(['/', ' ', '$'], ""))
                        on:click=move |_| sort.update(|s| *s = s.clicked(c))
                    >
                        {c.name()}
                        <span aria-hidden="true">
                            {move || match sort.get().aria(c) {
                                "descending" => " ▼",
                                "ascending" => " ▲",
                                _ => "",
                            }}
                        </span>
                    </button>
                </th>
            }
        })
        .collect_view();
    let rows = move || {
        if !open.get() {
            return None;
        }
        let model = page.chart.get()?;
        let sort = sort.get();
        page.with_result(|r| {
            Some(
                sorted(&model, r, sort)
                    .into_iter()
                    .filter_map(|i| Some((i, r.cloud.get(i)?)))
                    .map(|(i, p)| {
                        let f = &p.figures;
                        let id = row_opener_id(i);
                        view! {
                            <tr
                                class:selected=move || page.selected.get() == Some(i)
                                aria-current=move || (page.selected.get() == Some(i)).then_some("true")
                            >
                                <td>{format::rate(f.tok_s_user)}</td>
                                <td>{format::rate(f.output_tok_s_per_chip)}</td>
                                <td>{format::usd_per_mtok(f.usd_per_mtok_output)}</td>
                                <td>{format::duration(f.ttft)}</td>
                                <td>{format::duration(f.tpot)}</td>
                                <td>
                                    {p.class.name()}
                                    {(!p.meets_slo).then(|| format!(", {}", model.misses))}
                                </td>
                                <td>
                                    <button
                                        class="link"
                                        id=id.clone()
                                        on:click=move |_| page.open_detail(i, id.clone())
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
    let count = move || {
        page.chart
            .with(|m| m.as_ref().map_or(0, |m| m.points.len()))
    };
    view! {
        <details
            class="points-table"
            id="points-table"
            on:toggle=move |ev| {
                use wasm_bindgen::JsCast;
                let now = ev
                    .target()
                    .and_then(|t| t.dyn_into::<web_sys::HtmlDetailsElement>().ok())
                    .is_some_and(|d| d.open());
                open.set(now);
            }
        >
            <summary>{move || format!("All {} drawn points", format::count(count() as u64))}</summary>
            <div class="table-scroll">
                <table>
                    <caption class="visually-hidden">
                        "Every point the chart draws; the headings sort, each deployment opens its details"
                    </caption>
                    <thead>
                        <tr>{headings}</tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
            </div>
        </details>
    }
}
