//! Pinned scenarios: pin the default, change the axis, pin again; the compare table
//! shows both with deltas, the chart overlays both frontiers, and the copied link
//! brings the pins, the table and the overlay back in a fresh browser.

use super::driver::{Driver, Session};
use serde_json::json;

/// The compare table's rows, each as its cells' text.
fn table_rows(page: &Session) -> serde_json::Value {
    page.js(
        "return [...document.querySelectorAll('#compare-table tbody tr')]
           .map(r => [...r.children].map(c => c.textContent));",
    )
}

/// Waits until every row of the compare table has its figures (no row sweeping).
fn wait_for_table(page: &Session, rows: usize) -> serde_json::Value {
    page.wait_for(
        "the compare table's figures",
        &format!(
            "const rows = [...document.querySelectorAll('#compare-table tbody tr')];
             return rows.length === {rows} && rows.every(r => !r.textContent.includes('sweeping'))
               ? true : null;"
        ),
    );
    table_rows(page)
}

/// The chart's key as drawn.
fn key(page: &Session) -> String {
    page.js_text("return document.getElementById('chart').dataset.key;")
}

pub(super) fn two_pinned_scenarios_survive_the_link(driver: &Driver, base: &str) {
    let page = driver.session();
    page.open(&format!("{base}/"));
    page.wait_ready();
    assert_eq!(
        page.js("return document.getElementById('compare-table') === null;"),
        json!(true),
        "a table before any pin"
    );

    // Pin the default scenario: its own sweep serves the pin, and the chart redraws
    // with its frontier dashed and named in the key.
    let plain = page.canvas();
    let n = page.redraws();
    page.click("#pin-scenario");
    page.after_input("the first pin's overlay", n);
    assert_ne!(page.canvas(), plain, "the pin's frontier was not drawn");
    assert_eq!(page.text("#pin-status"), "Pinned as pin 1.");
    assert_eq!(
        page.js("return document.getElementById('pin-name-1').value;"),
        json!("llama-3.3-70b, prefill/decode, 5 chip kinds, 8192/512")
    );

    // Change the axis and pin again: the second pin is the aggregated sweep.
    let n = page.redraws();
    page.click("#axis-agg");
    page.after_input("the aggregated sweep", n);
    page.click("#pin-scenario");
    // Name it.
    page.set_value("pin-name-2", "all aggregated");
    page.wait_for(
        "both pins in the key",
        "const k = document.getElementById('chart').dataset.key;
         return k.includes('pin 1: llama-3.3-70b') && k.includes('pin 2: all aggregated') ? true : null;",
    );

    // The table: the current scenario and both pins, deltas against the current one.
    let rows = wait_for_table(&page, 3);
    let text = rows.to_string();
    assert!(
        text.contains("current: llama-3.3-70b, aggregated"),
        "{text}"
    );
    assert!(text.contains("pin 2: all aggregated"), "{text}");
    for bad in ["NaN", "inf", "undefined"] {
        assert!(!text.contains(bad), "{bad} in {text}");
    }
    let row = |i: usize| rows[i].as_array().cloned().unwrap_or_default();
    // The current row is the baseline; pin 2 is the same scenario (no change); pin 1,
    // prefill/decode, differs from it with a signed percentage.
    assert!(row(0)[1].as_str().unwrap_or_default().ends_with("baseline"));
    assert!(
        row(2)[1].as_str().unwrap_or_default().ends_with("±0%"),
        "{text}"
    );
    let pd = row(1)[1].as_str().unwrap_or_default().to_string();
    assert!(
        pd.contains('%') && (pd.contains('+') || pd.contains('-')),
        "no signed delta on pin 1: {pd}"
    );
    // Against pin 1 instead, the current row carries the delta.
    page.click("#baseline-pin");
    page.wait_for(
        "deltas against pin 1",
        "const r = document.querySelectorAll('#compare-table tbody tr')[1];
         return r && r.children[1].textContent.endsWith('baseline') ? true : null;",
    );
    page.click("#baseline-current");

    // The link carries both pins; a fresh browser finds them, the table and the
    // overlay again, and no notice.
    page.click("#copy-link");
    let link = page.js_text("return document.getElementById('share-link').value;");
    assert!(link.contains("&pins="), "{link}");
    let key_here = key(&page);
    let fresh = driver.session();
    fresh.open(&link);
    fresh.wait_ready();
    assert_eq!(
        fresh.js("return [1, 2].map(i => document.getElementById('pin-name-' + i).value);"),
        json!([
            "llama-3.3-70b, prefill/decode, 5 chip kinds, 8192/512",
            "all aggregated"
        ])
    );
    let again = wait_for_table(&fresh, 3);
    assert_eq!(again, rows, "the link gave another table");
    fresh.wait_for(
        "the pinned frontiers in the key",
        "const k = document.getElementById('chart').dataset.key;
         return k.includes('pin 1: ') && k.includes('pin 2: all aggregated') ? true : null;",
    );
    assert_eq!(key(&fresh), key_here);
    assert!(fresh.text("#chart-summary").contains("Dashed lines"));
    let violations = fresh.accessibility_violations();
    assert!(violations.is_empty(), "with pins: {violations:#?}");
    assert!(
        fresh.text("#notices").is_empty(),
        "a clean link raised notices"
    );

    // Restore pin 1: the page shows prefill/decode again. Remove it: one pin left,
    // and the link follows.
    let n = fresh.redraws();
    fresh.click("#pin-restore-1");
    fresh.after_input("restoring pin 1", n);
    assert_eq!(
        fresh.js("return document.getElementById('axis-pd').checked;"),
        json!(true)
    );
    fresh.click("#pin-remove-1");
    fresh.wait_for(
        "one pin left",
        "return document.querySelectorAll('#pin-list li').length === 1 ? true : null;",
    );
    assert_eq!(
        fresh.js("return document.getElementById('pin-name-1').value;"),
        json!("all aggregated")
    );
    fresh.close();

    // A hostile pin: a notice names it, the good pin stays, the page draws.
    let good = link
        .split("pins=")
        .nth(1)
        .and_then(|v| v.split(',').nth(1))
        .unwrap_or_default()
        .to_string();
    let hostile = driver.session();
    hostile.open(&format!("{base}/?v=1&pins=bW9p.%3Cscript%3E,{good}"));
    hostile.wait_ready();
    let notices = hostile.text("#notices");
    assert!(
        notices.contains("ignored pin 1 (\"moi\")"),
        "no notice naming the bad pin: {notices}"
    );
    assert_eq!(
        hostile.js("return document.querySelectorAll('#pin-list li').length;"),
        json!(1)
    );
    assert!(!hostile.blank(), "a hostile pin left a blank chart");
    hostile.close();
    page.close();
    eprintln!(
        "compare: 2 pins through a link of {} characters; pin 1 against the current scenario: {pd}; axe clean",
        link.len()
    );
}
