//! The validation view end to end: `?view=validation` lists every published point the
//! engine maps, with the summary lines `disagg validate` prints; a filter narrows the
//! rows and travels in the link; the scatter is drawn; the switch goes back and forth;
//! axe-core finds nothing serious.

use super::driver::{Driver, Session};
use disagg_explorer::engine::validation::{breakdown, run, BenchmarkTable, GroupBy, Role};
use disagg_explorer::engine::{Assumptions, Catalogue};
use serde_json::json;

fn rows(page: &Session) -> u64 {
    page.js("return document.querySelectorAll('#validation-table tbody tr').length;")
        .as_u64()
        .unwrap_or(0)
}

/// Waits until the validation table shows `n` rows (the page's validation job answers
/// after the page loads).
pub(super) fn wait_rows(page: &Session, n: usize) {
    page.wait_for(
        &format!("{n} rows in the validation table"),
        &format!(
            "return document.querySelectorAll('#validation-table tbody tr').length === {n} ? true : null;"
        ),
    );
}

/// Pixels of the scatter that are not grey: the band, the marks.
fn coloured(page: &Session) -> u64 {
    page.js("const c = document.getElementById('validation-chart');
         const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
         let coloured = 0;
         for (let i = 0; i < d.length; i += 4) {
           if (d[i] !== d[i+1] || d[i+1] !== d[i+2]) coloured++;
         }
         return coloured;")
        .as_u64()
        .unwrap_or(0)
}

pub fn published_measurements(driver: &Driver, base: &str) {
    let table = BenchmarkTable::builtin().unwrap();
    let report = run(Catalogue::builtin(), &table, &Assumptions::default());
    let page = driver.session();
    page.open(&format!("{base}/?view=validation"));
    // Every point the engine maps is a row, once the page's validation job answers.
    wait_rows(&page, table.point.len());
    assert_eq!(
        page.js("return [document.querySelector('main.layout').hidden,
                        document.getElementById('view-validation').getAttribute('aria-pressed')];"),
        json!([true, "true"])
    );
    // The summary quotes `disagg validate`'s figures (the engine's report, its wording).
    let summary = page.text("#validation-summary");
    for s in [
        report.calibration,
        report.holdout,
        report.holdout_ttft,
        report.holdout_disaggregated,
        report.holdout_median_ttft,
    ] {
        let line = s.expect("every set has points").line();
        assert!(summary.contains(&line), "{line} not in {summary}");
    }
    // A framework column, and sources that name an address are links.
    let headings = page.text("#validation-table thead");
    assert!(headings.contains("Framework"), "{headings}");
    let links = page.js("return document.querySelectorAll('#validation-table td.source a[href^=\"https://\"]').length;");
    assert!(links.as_u64().unwrap_or(0) > 0, "no source links");
    assert!(coloured(&page) > 100, "the scatter is blank");
    let description = page.text("#validation-chart-summary");
    assert!(description.contains("within ±20%"), "{description}");

    // A filter: the hold-out points only, counted from the table itself.
    let holdout = table
        .point
        .iter()
        .filter(|p| p.role == Role::Holdout)
        .count();
    assert!(holdout > 0 && holdout < table.point.len());
    page.set_value("vv-role", "holdout");
    wait_rows(&page, holdout);
    let shown = page.text("#validation-summary");
    assert!(
        shown.contains(&format!("Rows shown ({holdout})")),
        "{shown}"
    );
    let link = page.js("return location.href;");
    let link = link.as_str().unwrap_or_default().to_string();
    assert!(
        link.contains("view=validation") && link.contains("vv.role=holdout"),
        "{link}"
    );

    // The breakdown: the hold-out rows grouped by framework, as `validate --by` gives
    // them; the first group is the one with the most hold-out rows.
    page.set_value("vv-by", "framework");
    page.wait_for(
        "the breakdown table",
        "return document.querySelector('#validation-breakdown tbody tr') ? true : null;",
    );
    let groups = breakdown(
        report.rows.iter().filter(|r| r.point.role == Role::Holdout),
        &[GroupBy::Framework],
    );
    let first = page.text("#validation-breakdown tbody tr");
    let top = &groups[0];
    assert!(
        first.starts_with(&top.key[0])
            && first.contains(&format!("{:.1}%", top.holdout.unwrap().median_ape * 100.0)),
        "{first} against {top:?}"
    );
    assert_eq!(
        page.js("return document.querySelectorAll('#validation-breakdown tbody tr').length;"),
        json!(groups.len())
    );

    // The link opens the same view, filter and all, in a fresh browser.
    let fresh = driver.session();
    fresh.open(&link);
    wait_rows(&fresh, holdout);
    assert_eq!(
        fresh.js("return document.getElementById('vv-role').value;"),
        json!("holdout")
    );
    assert!(
        coloured(&fresh) > 100,
        "the scatter is blank after the link"
    );
    let notices = fresh.text("#notices");
    assert!(!notices.contains("link:"), "{notices}");
    fresh.close();

    // The switch: to the explorer and back; the address bar follows.
    page.click("#view-explorer");
    page.wait_ready();
    let link = page.js("return location.href;");
    assert!(
        !link
            .as_str()
            .unwrap_or_default()
            .contains("view=validation"),
        "{link}"
    );
    assert!(
        !page.blank(),
        "the explorer's chart is blank after the switch"
    );
    page.click("#view-validation");
    wait_rows(&page, holdout);
    assert_eq!(rows(&page) as usize, holdout);

    // axe-core: nothing serious or critical in the view.
    let violations = page.accessibility_violations();
    assert!(violations.is_empty(), "validation view: {violations:#?}");
    eprintln!(
        "validation view: {} rows, {holdout} hold-out, scatter drawn, link round trip, axe clean",
        table.point.len()
    );
    page.close();
}
