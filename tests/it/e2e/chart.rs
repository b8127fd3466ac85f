//! Colour by chip and its key, and every drawn point reachable from a table.

use super::driver::{Driver, Session};
use serde_json::json;

/// Colour by chip names every chip in the chart's key; "points drawn" counts what is
/// drawn; every drawn point is a row of a sortable table that opens its details.
pub(super) fn chips_apart_and_every_point_reachable(driver: &Driver, base: &str) {
    let page = driver.session();
    page.open(&format!("{base}/"));
    page.wait_ready();
    let key = |p: &Session| p.js("return document.getElementById('chart').dataset.key;");
    let price_key = key(&page);
    assert!(
        price_key
            .as_str()
            .unwrap_or_default()
            .contains("$/Mtok out"),
        "{price_key}"
    );
    let canvas = page.canvas();
    let n = page.redraws();
    page.click("#colour-chip");
    page.after_input("colour by chip", n);
    let chip_key = key(&page);
    let chip_key = chip_key.as_str().unwrap_or_default();
    for name in [
        "NVIDIA H200",
        "AMD Instinct MI355X",
        "halves: prefill chip | decode chip",
    ] {
        assert!(chip_key.contains(name), "{name} not in the key: {chip_key}");
    }
    assert!(!chip_key.contains("$/Mtok"), "{chip_key}");
    assert_ne!(page.canvas(), canvas, "colour by chip drew the same pixels");
    assert!(page
        .text("#chart-summary")
        .contains("Colour shows the chip: "));
    assert!(page
        .js("return location.search;")
        .as_str()
        .unwrap_or_default()
        .contains("colour=chip"));

    // "Points drawn" is what is drawn: fewer with the cloud hidden, and the status
    // line says the same number.
    let drawn = |p: &Session| p.latency().2;
    let all = drawn(&page);
    let n = page.redraws();
    page.click("#in-cloud");
    page.after_input("hiding the cloud", n);
    let few = drawn(&page);
    assert!(few < all, "{few} of {all}");
    assert!(
        page.text("#status")
            .contains(&format!("{few} points drawn")),
        "{}",
        page.text("#status")
    );
    let n = page.redraws();
    page.click("#in-cloud");
    page.after_input("showing the cloud", n);

    // The table of every drawn point: one row each, sortable, rows open the details.
    page.click("#points-table summary");
    let rows = page.wait_for(
        "the points table",
        "const n = document.querySelectorAll('#points-table tbody tr').length; return n > 0 ? n : null;",
    );
    assert_eq!(rows.as_u64(), Some(all));
    page.click("#sort-Mtokout");
    let sorted = page.js(
        "const th = document.getElementById('sort-Mtokout').closest('th');
         const cells = [...document.querySelectorAll('#points-table tbody tr')]
           .map(r => parseFloat(r.children[2].textContent.replace(/[$,]/g, '')))
           .filter(v => !isNaN(v));
         return [th.getAttribute('aria-sort'), cells.every((v, i) => i === 0 || cells[i - 1] <= v)];",
    );
    assert_eq!(sorted, json!(["ascending", true]));
    let opener = page.js(
        "const b = document.querySelector('#points-table tbody tr:last-child button');
         b.focus(); b.click(); return b.id;",
    );
    page.wait_for(
        "the details of a table row",
        "return document.getElementById('detail') ? true : null;",
    );
    page.js(
        "document.body.dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape', bubbles: true}));
         return true;",
    );
    page.wait_for(
        "Escape to close the row's details",
        "return document.getElementById('detail') ? null : true;",
    );
    assert_eq!(page.js("return document.activeElement.id;"), opener);
    page.close();
}
