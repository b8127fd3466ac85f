//! The chosen deployment drawn: pools, chips and links with bandwidth and how busy
//! each is, the busiest marked; the same in a table for reading and for screen readers.

use crate::topology::{layout, rows};
use disagg_engine::disagg::topology::Topology;
use leptos::prelude::*;

pub fn topology_view(t: &Topology) -> impl IntoView {
    let d = layout(t);
    let view_box = format!("0 0 {} {}", d.width, d.height);
    let pools = d
        .pools
        .iter()
        .map(|b| {
            let chips = b
                .chips
                .iter()
                .map(|(x, y)| {
                    view! {
                        <rect class="topology-chip" x=*x y=*y width=b.chip_size height=b.chip_size rx="2"></rect>
                    }
                })
                .collect_view();
            view! {
                <g class="topology-pool">
                    <rect class="topology-box" x=b.x y=b.y width=b.w height=b.h rx="6"></rect>
                    <text class="topology-title" x=b.x + 12.0 y=b.y + 16.0>{b.title.clone()}</text>
                    <text class="topology-subtitle" x=b.x + 12.0 y=b.y + 30.0>{b.subtitle.clone()}</text>
                    {chips}
                    {b.more.clone().map(|m| view! {
                        <text class="topology-more" x=b.x + 12.0 y=b.y + b.h - 4.0>{m}</text>
                    })}
                </g>
            }
        })
        .collect_view();
    let links = d
        .links
        .iter()
        .map(|l| {
            let class = match (l.within, l.busiest) {
                (true, true) => "topology-link fabric busiest",
                (true, false) => "topology-link fabric",
                (false, true) => "topology-link between busiest",
                (false, false) => "topology-link between",
            };
            let mid = (l.x1 + l.x2) / 2.0;
            let (label_y, busy_y) = if l.within {
                (l.y1 + 13.0, l.y1 + 25.0)
            } else {
                (l.y1 - 8.0, l.y1 + 16.0)
            };
            let busy = if l.busiest {
                format!("{}, busiest", l.busy)
            } else {
                l.busy.clone()
            };
            view! {
                <g class=class>
                    <line x1=l.x1 y1=l.y1 x2=l.x2 y2=l.y2></line>
                    <text x=mid y=label_y text-anchor="middle">{l.label.clone()}</text>
                    <text x=mid y=busy_y text-anchor="middle">{busy}</text>
                </g>
            }
        })
        .collect_view();
    let table = rows(t)
        .into_iter()
        .map(|r| {
            view! {
                <tr class:busiest=r.busiest>
                    <th scope="row">{r.ends}</th>
                    <td>{r.class}</td>
                    <td>{r.bandwidth}</td>
                    <td>{r.lanes}</td>
                    <td>{r.carries}</td>
                    <td>{r.carried}</td>
                    <td>{if r.busiest { format!("{} (busiest)", r.busy) } else { r.busy }}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <h3>"Topology"</h3>
        <div id="topology">
            <p id="topology-summary">{t.summary()}</p>
            <svg class="topology" viewBox=view_box role="img" aria-labelledby="topology-summary">
                {pools}
                {links}
            </svg>
            <div class="table-scroll" tabindex="0" role="region" aria-label="Links">
                <table class="links">
                    <caption class="visually-hidden">"The deployment's links"</caption>
                    <thead>
                        <tr>
                            <th scope="col">"link"</th>
                            <th scope="col">"kind"</th>
                            <th scope="col">"bandwidth per chip"</th>
                            <th scope="col">"chips"</th>
                            <th scope="col">"carries"</th>
                            <th scope="col">"carried per chip"</th>
                            <th scope="col">"busy"</th>
                        </tr>
                    </thead>
                    <tbody>{table}</tbody>
                </table>
            </div>
        </div>
    }
}
