//! A validation row opened: a click on its id shows the prediction the table scored,
//! the chain behind its metric and the command that prints the same; another figure's
//! chain opens on a click; the link carries the row (`vv.point`) and reopens it.

use super::driver::{Driver, Session};
use disagg_explorer::engine::validation::{run, BenchmarkTable};
use disagg_explorer::engine::{Assumptions, Catalogue};
use disagg_explorer::format::sig3;

/// The row this test opens: TensorRT-LLM on four B200, its mean TTFT.
const ROW: &str = "IMXA06c";

fn wait_panel(page: &Session, predicted: &str) {
    page.wait_for(
        "the opened row's prediction",
        &format!(
            "const e = document.getElementById('vp-predicted'); return e && e.innerText === {predicted:?} ? true : null;"
        ),
    );
}

pub fn a_row_opens_its_prediction(driver: &Driver, base: &str) {
    let table = BenchmarkTable::builtin().unwrap();
    let report = run(Catalogue::builtin(), &table, &Assumptions::default());
    let row = report.rows.iter().find(|r| r.point.id == ROW).unwrap();
    let predicted = sig3(row.predicted.unwrap());
    let page = driver.session();
    page.open(&format!("{base}/?view=validation"));
    super::validation_view::wait_rows(&page, table.point.len());
    page.click(&format!(
        "#validation-table tr[data-id=\"{ROW}\"] button.row-open"
    ));
    wait_panel(&page, &predicted);
    // The measurement beside it, the chain behind a TTFT row open first, the command.
    assert_eq!(page.text("#vp-measured"), sig3(row.point.measured));
    let chain = page.text("#vp-chain");
    assert!(chain.starts_with("How TTFT is computed"), "{chain}");
    assert_eq!(
        page.text("#vp-command"),
        format!("disagg validate --point {ROW} --explain")
    );
    assert!(
        page.href().contains(&format!("vv.point={ROW}")),
        "{}",
        page.href()
    );
    // The same run's throughput and TPOT rows beside it, as the table scores them.
    let sibling = report
        .rows
        .iter()
        .find(|r| r.point.id == "IMXA06b")
        .unwrap();
    page.wait_for(
        "the run's other rows",
        "return document.getElementById('vp-siblings') ? true : null;",
    );
    let siblings = page.text("#vp-siblings");
    assert!(
        siblings.contains(&format!(
            "measured {}, predicted {}",
            sig3(sibling.point.measured),
            sig3(sibling.predicted.unwrap())
        )) && siblings.contains("row IMXA06b (hold-out)"),
        "{siblings}"
    );
    // Another figure's chain on a click.
    page.js(
        "for (const b of document.querySelectorAll('#validation-point .figure-button')) {
           if (b.innerText === 'TPOT') b.click();
         }",
    );
    page.wait_for(
        "the TPOT chain",
        "const e = document.getElementById('vp-chain'); return e && e.innerText.startsWith('How TPOT') ? true : null;",
    );
    // axe-core on the panel with its mapping, sub-chains and operator tables open.
    page.js(
        "document.querySelectorAll('#validation-point details').forEach(d => d.open = true);
         return true;",
    );
    let violations = page.accessibility_violations();
    assert!(violations.is_empty(), "the opened row: {violations:#?}");
    // The link reopens the row in a fresh page; closing it drops the key.
    let link = page.href();
    let fresh = driver.session();
    fresh.open(&link);
    wait_panel(&fresh, &predicted);
    fresh.click("#vp-close");
    fresh.wait_for(
        "the panel closed",
        "return document.getElementById('validation-point') ? null : true;",
    );
    assert!(!fresh.href().contains("vv.point"), "{}", fresh.href());
    fresh.close();
    page.close();
    eprintln!("validation point: {ROW} opened, its TTFT and TPOT chains, the link reopens it");
}

/// "Explore its scenario": the row's bundle read into the explorer's scenario, and its
/// deployment selected once the sweep draws it, with the row's prediction among the
/// detail panel's figures (IMXA05b, TensorRT-LLM's TPOT on four B200 at 4 users).
pub fn a_rows_scenario_opens_in_the_explorer(driver: &Driver, base: &str) {
    const EXPLORED: &str = "IMXA05b";
    let table = BenchmarkTable::builtin().unwrap();
    let report = run(Catalogue::builtin(), &table, &Assumptions::default());
    let row = report.rows.iter().find(|r| r.point.id == EXPLORED).unwrap();
    let tpot = disagg_explorer::format::duration(disagg_explorer::engine::units::Seconds::from_ms(
        row.predicted.unwrap(),
    ));
    let page = driver.session();
    page.open(&format!("{base}/?view=validation&vv.point={EXPLORED}"));
    wait_panel(&page, &sig3(row.predicted.unwrap()));
    page.click("#vp-explore");
    page.wait_for(
        "the row's deployment selected in the explorer",
        "return document.getElementById('detail') && document.querySelector('#detail .figure dt') ? true : null;",
    );
    let shown = page.js_text(
        "const d = [...document.querySelectorAll('#detail .figure dt')].find(d => d.textContent === 'TPOT');
         return d ? d.nextElementSibling.innerText : '';",
    );
    assert!(
        shown.starts_with(&tpot),
        "TPOT {shown} against the row's {tpot}"
    );
    let href = page.href();
    assert!(
        !href.contains("view=validation") && href.contains("model=deepseek-r1"),
        "{href}"
    );
    // The run's measurement marked on the chart and named beside the point.
    page.wait_for(
        "the chart's measured cross",
        "const e = document.getElementById('chart-summary'); return e && e.textContent.includes('A cross marks the published measurement') ? true : null;",
    );
    let summary = page.js_text("return document.getElementById('chart-summary').textContent;");
    assert!(summary.contains("IMXA05a, IMXA05b"), "{summary}");
    let measured = page.text("#row-measurements");
    assert!(measured.contains("row IMXA05b (calibration)"), "{measured}");
    page.close();
    eprintln!(
        "validation point: {EXPLORED}'s scenario opened in the explorer with its point selected and its run's measurement marked"
    );
}

/// A row whose deployment the sweep does not keep (MLPerf v4.1's Llama-2-70B Offline on
/// eight H100 at 3,584 sequences, a batch the sweep does not try, with host work in
/// series): "Explore its scenario" draws it beside the sweep, selected, says so in its
/// detail panel with the row's measurement, carries its run setting in the "Run
/// settings" panel and both in the link, and "Stop drawing it" takes it away.
pub fn a_deployment_the_sweep_does_not_keep_is_drawn_beside_it(driver: &Driver, base: &str) {
    const BESIDE: &str = "MLP41-01";
    let table = BenchmarkTable::builtin().unwrap();
    let report = run(Catalogue::builtin(), &table, &Assumptions::default());
    let row = report.rows.iter().find(|r| r.point.id == BESIDE).unwrap();
    let page = driver.session();
    page.open(&format!("{base}/?view=validation&vv.point={BESIDE}"));
    wait_panel(&page, &sig3(row.predicted.unwrap()));
    page.click("#vp-explore");
    page.wait_for(
        "the row's deployment drawn beside the sweep and selected",
        "return document.getElementById('shown-beside') ? true : null;",
    );
    let title = page.text("#detail-title");
    assert!(title.ends_with("batch 3584"), "{title}");
    // The run's measurement beside it, as the table scores it.
    page.wait_for(
        "the row's measurement beside its deployment",
        "return document.getElementById('row-measurements') ? true : null;",
    );
    let measured = page.text("#row-measurements");
    assert!(
        measured.contains(&format!(
            "measured {}, predicted {}",
            sig3(row.point.measured),
            sig3(row.predicted.unwrap())
        )) && measured.contains("row MLP41-01 (calibration)"),
        "{measured}"
    );
    let summary = page.text("#run-settings summary");
    assert_eq!(summary, "Run settings (1 set)");
    assert_eq!(
        page.js_text("return document.getElementById('in-hov').value;"),
        "off"
    );
    let href = page.href();
    assert!(href.contains("show=") && href.contains("hov=off"), "{href}");
    page.click("#stop-showing");
    page.wait_for(
        "the deployment no longer drawn",
        "return !document.getElementById('detail') && !location.href.includes('show=') ? true : null;",
    );
    page.close();
    eprintln!("validation point: {BESIDE}'s deployment drawn beside the sweep, then taken away");
}
