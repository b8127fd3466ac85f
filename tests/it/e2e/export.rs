//! The exports (CSV, JSON, PNG) against what the chart draws.

use super::driver::Driver;
use serde_json::json;

/// The CSV export has one row per drawn point, the same points the table lists; the
/// PNG is the canvas at its device resolution.
pub(super) fn export_matches_the_drawn_points(driver: &Driver, base: &str) {
    let page = driver.session();
    page.open(&format!("{base}/?v=1&axis=agg"));
    page.wait_ready();
    page.js("window.__exports = [];
         const make = URL.createObjectURL;
         URL.createObjectURL = b => { window.__exports.push(b); return make.call(URL, b); };
         const click = HTMLAnchorElement.prototype.click;
         HTMLAnchorElement.prototype.click = function () {
           window.__downloads = (window.__downloads || []).concat([[this.download, this.href]]);
         };
         return true;");
    page.click("#export-csv");
    let csv = page.js_async("window.__exports[0].text().then(done);");
    let csv = csv.as_str().unwrap_or_default();
    let lines: Vec<&str> = csv.lines().filter(|l| !l.is_empty()).collect();
    let drawn = page.latency().2 as usize;
    assert_eq!(lines.len(), drawn + 1, "{csv:.400}");
    for column in [
        "point",
        "config.pools.0.chip",
        "ttft_s",
        "tpot_s",
        "usd_per_mtok_output",
    ] {
        assert!(
            lines[0].split(',').any(|c| c == column),
            "no {column}: {}",
            lines[0]
        );
    }
    page.click("#points-table summary");
    page.wait_for(
        "the points table",
        "return document.querySelectorAll('#points-table tbody tr').length > 0 ? true : null;",
    );
    let mut in_table: Vec<String> = page
        .js("return [...document.querySelectorAll('#points-table tbody button')].map(b => b.id.slice(4));")
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap_or_default().to_string())
        .collect();
    let mut in_csv: Vec<String> = lines[1..]
        .iter()
        .map(|l| l.split(',').next().unwrap_or_default().to_string())
        .collect();
    in_table.sort();
    in_csv.sort();
    assert_eq!(in_csv, in_table, "the CSV's points are not the drawn ones");
    assert!(page
        .text("#export-status")
        .contains(&format!("{drawn} points")));

    page.click("#export-json");
    let doc = page.js_async("window.__exports[1].text().then(done);");
    let doc: serde_json::Value = serde_json::from_str(doc.as_str().unwrap_or_default()).unwrap();
    assert_eq!(doc["points"].as_array().map(Vec::len), Some(drawn));
    assert!(doc["link_query"]
        .as_str()
        .unwrap_or_default()
        .contains("axis=agg"));

    page.click("#export-png");
    let png = page.js_async(
        "const [name, href] = window.__downloads[window.__downloads.length - 1];
         const img = new Image();
         img.onload = () => done([name, href.slice(0, 22), img.naturalWidth === document.getElementById('chart').width,
                                  img.naturalHeight === document.getElementById('chart').height]);
         img.onerror = () => done(['unreadable', href.slice(0, 40)]);
         img.src = href;",
    );
    assert_eq!(png[1], json!("data:image/png;base64,"), "{png}");
    assert!(
        png[0].as_str().unwrap_or_default().ends_with(".png"),
        "{png}"
    );
    assert_eq!(
        (png[2].clone(), png[3].clone()),
        (json!(true), json!(true)),
        "{png}"
    );
    page.close();
}
