//! The desk-cluster preset, end to end: its button sets EXO's scenario (DGX Spark
//! prefill, Mac Studio M3 Ultra decode, 10 Gigabit Ethernet between them, Llama-3.1 8B at
//! 8,192 prompt and 32 output tokens), the link carries it, EXO's deployment opens, and
//! the page shows the predicted request latency next to EXO's measured 2.32 s: the very
//! prediction, and the error, that `disagg validate` reports for row EXO01a.

use super::driver::Driver;
use disagg_engine::validation::{evaluate_point, BenchmarkTable, Metric};
use disagg_engine::{Assumptions, Catalogue};
use disagg_explorer::desk;
use std::time::Duration;

pub fn the_desk_preset_reproduces_exo(driver: &Driver, base: &str) {
    // The row's prediction as the validation table computes it.
    let table = BenchmarkTable::builtin().unwrap();
    let row = desk::row(&table).expect("EXO's row is in the table");
    let alone = evaluate_point(Catalogue::builtin(), row, &Assumptions::default()).unwrap();
    let predicted_ms = Metric::E2eMs
        .read(&alone, row.isl as f64, row.osl as f64)
        .unwrap();
    let error = predicted_ms / row.measured - 1.0;

    let page = driver.session();
    page.open(&format!("{base}/?v=1"));
    page.wait_ready();
    page.click("#desk-preset");
    std::thread::sleep(Duration::from_millis(300));
    page.wait_for(
        "the preset's reading",
        "return document.getElementById('desk-line') ? true : null;",
    );
    let href = page.href();
    for key in [
        "model=llama-3.1-8b",
        "axis=pd",
        "isl=8192",
        "osl=32",
        "link=10gbe",
        "batch=1",
    ] {
        assert!(href.contains(key), "{key} in {href}");
    }
    assert_eq!(
        page.js("return document.getElementById('in-link').value;"),
        serde_json::json!("10gbe"),
        "the link chooser shows the preset's link"
    );
    let line = page.text("#desk-line");
    let expected = format!(
        "predicted {}, EXO measured {} ({}{})",
        disagg_explorer::format::duration(disagg_engine::units::Seconds::from_ms(predicted_ms)),
        disagg_explorer::format::duration(disagg_engine::units::Seconds::from_ms(row.measured)),
        if error >= 0.0 { "+" } else { "" },
        disagg_explorer::format::percent(error)
    );
    assert_eq!(line, expected);
    assert!(line.contains("EXO measured 2,320 ms"), "{line}");
    // EXO's deployment is the point whose details are open.
    page.wait_for(
        "EXO's deployment's details",
        "return document.getElementById('detail-title') ? true : null;",
    );
    let title = page.text("#detail-title");
    assert!(
        title.contains("DGX Spark") && title.contains("M3 Ultra"),
        "{title}"
    );
    // The link reproduces the view: opened afresh, the same reading.
    let again = driver.session();
    again.open(&href);
    again.wait_ready();
    again.wait_for(
        "the preset's reading from its link",
        "return document.getElementById('desk-line') ? true : null;",
    );
    assert_eq!(again.text("#desk-line"), expected);
    again.close();
    page.close();
}
