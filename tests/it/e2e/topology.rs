//! The detail panel draws the chosen deployment: pools, chips and links with their
//! bandwidth and busy share, the busiest link marked in the drawing and the table.

use super::driver::Driver;
use serde_json::json;

pub(super) fn a_split_point_draws_its_pools_and_links(driver: &Driver, base: &str) {
    let page = driver.session();
    super::explain::open_a_split_point(&page, base);
    page.wait_for(
        "the topology",
        "return document.getElementById('topology') ? true : null;",
    );
    // Two pools drawn, each with its chips as squares.
    assert_eq!(
        page.js("return document.querySelectorAll('#topology svg .topology-pool').length;"),
        json!(2)
    );
    let chips = page.js("return document.querySelectorAll('#topology svg .topology-chip').length;");
    assert!(chips.as_u64().unwrap_or(0) >= 2, "chips drawn: {chips}");
    // The link between the pools carries the KV cache; every busy share is a percent.
    let rows = page.js(
        "return [...document.querySelectorAll('#topology table.links tbody tr')]
             .map(r => [...r.children].map(c => c.textContent));",
    );
    let rows = rows.as_array().cloned().unwrap_or_default();
    assert!(!rows.is_empty(), "no link rows");
    let between = rows
        .iter()
        .find(|r| r[0] == "prefill pool to decode pool")
        .unwrap_or_else(|| panic!("no link between the pools: {rows:?}"));
    assert_eq!(between[4], "KV cache of each request", "{between:?}");
    assert!(
        between[2].as_str().unwrap().ends_with(" GB/s"),
        "{between:?}"
    );
    for r in &rows {
        let busy = r[6].as_str().unwrap();
        assert!(
            busy.starts_with("<1%") || busy.split('%').next().unwrap().parse::<u32>().is_ok(),
            "{busy}"
        );
    }
    // Exactly one busiest link, marked in the table and in the drawing, and named in
    // the summary.
    assert_eq!(
        page.js("return document.querySelectorAll('#topology tr.busiest').length;"),
        json!(1)
    );
    assert_eq!(
        page.js("return document.querySelectorAll('#topology svg .topology-link.busiest').length;"),
        json!(1)
    );
    let busiest = page.text("#topology tr.busiest th");
    let summary = page.text("#topology-summary");
    assert!(
        summary.starts_with(&format!("Busiest link: {busiest}")),
        "{summary} / {busiest}"
    );
}
