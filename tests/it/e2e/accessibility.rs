//! The axe-core accessibility audit of the page with every panel open.

use super::driver::Driver;

/// axe-core finds no serious or critical violation, on the first view and with every
/// panel open.
pub(super) fn accessibility_audit(driver: &Driver, base: &str) {
    let page = driver.session();
    page.open(&format!("{base}/?v=1&ttft=800"));
    page.wait_ready();
    let violations = page.accessibility_violations();
    assert!(violations.is_empty(), "first view: {violations:#?}");
    page.click("#compare-axes");
    page.wait_for(
        "the axes table",
        "return document.getElementById('axes-table') ? true : null;",
    );
    page.click("#callout-why summary");
    page.click("#points-table summary");
    page.click("#frontier-table button");
    page.wait_for(
        "the detail panel",
        "return document.getElementById('detail') ? true : null;",
    );
    page.js("document.querySelectorAll('.provenance')[0].open = true;
         document.getElementById('chip-edits').open = true;
         document.querySelector('#detail .figure-value').click();
         document.querySelectorAll('#operator-tables details').forEach(d => d.open = true);
         return true;");
    page.wait_for(
        "a figure's chain",
        "return document.querySelector('#chain-panel .chain') ? true : null;",
    );
    page.js("document.querySelectorAll('#chain-panel details').forEach(d => d.open = true); return true;");
    let violations = page.accessibility_violations();
    assert!(violations.is_empty(), "every panel open: {violations:#?}");
    eprintln!(
        "accessibility: axe-core {} found no serious or critical violation",
        page.js("return axe.version;")
    );
    page.close();
}
