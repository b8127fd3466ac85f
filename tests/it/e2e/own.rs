//! Chips of the user's own and the effect of an assumption, end to end: a clone of the
//! H100 at the user's price and bandwidth, picked, moves the chart and its link draws
//! the same chart in a fresh browser; a chip from the template is filled in and picked;
//! an assumption's effect on the headline figures is listed.

use super::driver::{Driver, Session};
use serde_json::json;
use std::time::Duration;

/// Waits until no sweep is under way (a change starts one in the next task).
fn settle(page: &Session) {
    std::thread::sleep(Duration::from_millis(300));
    page.wait_for(
        "the sweep to finish",
        "return document.getElementById('status').dataset.sweeping === 'false' ? true : null;",
    );
}

/// Types into a text box as a user does (an `input` event per change).
fn type_into(page: &Session, id: &str, value: &str) {
    page.js(&format!(
        "const e = document.getElementById({}); e.value = {};
         e.dispatchEvent(new Event('input', {{bubbles: true}})); return true;",
        json!(id),
        json!(value)
    ));
}

fn href(page: &Session) -> String {
    page.js("return location.href;")
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// Adds a chip of the user's own called `id`, starting from `from`.
fn add_chip(page: &Session, id: &str, from: &str) {
    type_into(page, "own-chip-id", id);
    page.set_value("own-chip-from", from);
    page.click("#own-chip-add");
    page.wait_for(
        "the new chip in the list",
        &format!(
            "return document.getElementById({}) ? true : null;",
            json!(format!("chip-{id}"))
        ),
    );
}

pub fn own_chips_and_effects(driver: &Driver, base: &str) {
    let page = driver.session();
    page.open(&format!("{base}/"));
    page.wait_ready();
    let before = page.canvas();

    // Clone the H100 and give it the user's price and bandwidth.
    add_chip(&page, "my-h100", "h100-sxm");
    page.click("#chip-edits summary");
    page.set_value("edit-my-h100-price", "0.9");
    page.set_value("edit-my-h100-memory_bandwidth", "6");
    settle(&page);
    let link = href(&page);
    assert!(
        link.contains("chip.my-h100.from=h100-sxm")
            && link.contains("chip.my-h100.price=0.9")
            && link.contains("chip.my-h100.memory_bandwidth=6"),
        "{link}"
    );
    // Picked, it is swept like any chip: the chart moves and names it.
    let n = page.redraws();
    page.click("#chip-my-h100");
    page.after_input("the sweep with the clone", n);
    settle(&page);
    let with_clone = page.canvas();
    assert_ne!(with_clone, before, "the clone did not move the chart");
    let link = href(&page);
    assert!(link.contains("my-h100"), "{link}");
    let fresh = driver.session();
    fresh.open(&link);
    fresh.wait_ready();
    settle(&fresh);
    assert_eq!(
        fresh.canvas(),
        with_clone,
        "the link drew a different chart"
    );
    assert_eq!(
        fresh.js("return document.getElementById('chip-my-h100').checked;"),
        json!(true)
    );
    fresh.close();

    // A chip from the template: refused until its required numbers are in.
    add_chip(&page, "npu-x", "template");
    let listed = page.text("#own-chips");
    assert!(listed.contains("needs bf16_tflops"), "{listed}");
    assert_eq!(
        page.js("return document.getElementById('chip-npu-x').disabled;"),
        json!(true)
    );
    page.set_value("edit-npu-x-bf16_tflops", "800");
    page.set_value("edit-npu-x-memory", "96");
    page.set_value("edit-npu-x-memory_bandwidth", "3");
    page.wait_for(
        "the template chip to be pickable",
        "return document.getElementById('chip-npu-x').disabled ? null : true;",
    );
    settle(&page);
    let n = page.redraws();
    page.click("#chip-npu-x");
    page.after_input("the sweep with the template chip", n);
    let link = href(&page);
    assert!(
        link.contains("chip.npu-x.from=template") && link.contains("npu-x"),
        "{link}"
    );

    // An assumption's effect on the headline figures.
    settle(&page);
    page.click("#assumptions summary");
    let n = page.redraws();
    page.set_value("assume-mfu", "0.3");
    page.after_input("the sweep at the user's MFU", n);
    let effect = page.wait_for(
        "the effect line",
        "const e = document.getElementById('assumption-effects');
         return e && e.innerText.includes('mfu 0.3') ? e.innerText : null;",
    );
    let effect = effect.as_str().unwrap_or_default();
    // The sign is the native tests' (a chip with its own calibrated MFU, such as the
    // MI300X, does not take the global one): here, the line and its measures.
    assert!(
        effect.contains("mfu 0.3 (default 0.6): best tok/s per chip at the target ")
            && effect.contains("$/Mtok ")
            && effect.contains('%'),
        "{effect}"
    );
    page.close();
}
