//! The user's own model, chips, numbers and assumptions, end to end: a pasted config; a
//! chip's number typed in; a modelling constant set; a clone of the H100 at the user's
//! price and bandwidth, picked, moves the chart and its link draws the same chart in a
//! fresh browser; a chip from the template is filled in and picked; an assumption's effect
//! on the headline figures is listed.

use super::driver::{Driver, Session};
use serde_json::json;

/// Waits until no sweep is under way (a change starts one in the next task).
/// Types into a text box as a user does (an `input` event per change).
fn type_into(page: &Session, id: &str, value: &str) {
    page.js(&format!(
        "const e = document.getElementById({}); e.value = {};
         e.dispatchEvent(new Event('input', {{bubbles: true}})); return true;",
        json!(id),
        json!(value)
    ));
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
    page.settle();
    let link = page.href();
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
    page.settle();
    let with_clone = page.canvas();
    assert_ne!(with_clone, before, "the clone did not move the chart");
    let link = page.href();
    assert!(link.contains("my-h100"), "{link}");
    let fresh = driver.session();
    fresh.open(&link);
    fresh.wait_ready();
    fresh.settle();
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
    page.settle();
    let n = page.redraws();
    page.click("#chip-npu-x");
    page.after_input("the sweep with the template chip", n);
    let link = page.href();
    assert!(
        link.contains("chip.npu-x.from=template") && link.contains("npu-x"),
        "{link}"
    );

    // An assumption's effect on the headline figures.
    page.settle();
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

/// A Qwen2.5-72B-shaped config, from the public fields of its `config.json`.
const QWEN25_72B: &str = r#"{"architectures":["Qwen2ForCausalLM"],"model_type":"qwen2",
  "hidden_size":8192,"intermediate_size":29568,"num_hidden_layers":80,
  "num_attention_heads":64,"num_key_value_heads":8,"vocab_size":152064,
  "max_position_embeddings":32768,"tie_word_embeddings":false,"torch_dtype":"bfloat16"}"#;

/// A pasted config draws a chart and reads as 72.7B parameters; its link (`cfg=`)
/// reproduces the view in a fresh browser; a bad config is refused with its field named.
pub(super) fn a_users_own_model(driver: &Driver, base: &str) {
    let page = driver.session();
    page.open(&format!("{base}/"));
    page.wait_ready();
    // The user's own model starts as the model in hand, its config in the box.
    let n = page.redraws();
    page.set_value("in-model", "custom");
    page.after_input("the model in hand, as the user's own", n);
    let seeded = page.js("return document.getElementById('in-cfg').value;");
    assert!(
        seeded
            .as_str()
            .unwrap_or_default()
            .contains("LlamaForCausalLM"),
        "{seeded}"
    );
    let n = page.redraws();
    page.set_value("in-cfg", QWEN25_72B);
    page.after_input("the sweep of the pasted model", n);
    assert!(!page.blank(), "the pasted model drew a blank chart");
    let about = page.text("#model-summary");
    assert!(about.contains("72.7B total"), "{about}");
    let link = page.href();
    assert!(
        link.contains("model=custom") && link.contains("&cfg=%7B"),
        "{link}"
    );
    let canvas = page.canvas();
    let callout = page.text("#callout");
    // The link alone reproduces it.
    let fresh = driver.session();
    fresh.open(&link);
    fresh.wait_ready();
    assert_eq!(fresh.text("#callout"), callout);
    assert_eq!(
        fresh.canvas(),
        canvas,
        "the cfg link drew a different chart"
    );
    assert!(fresh.text("#model-summary").contains("72.7B total"));
    assert!(
        fresh.text("#notices").is_empty(),
        "{}",
        fresh.text("#notices")
    );
    fresh.close();
    // A config without its width is refused, the field named, the chart kept.
    page.set_value("in-cfg", &QWEN25_72B.replace("\"hidden_size\":8192,", ""));
    let why = page.wait_for(
        "the refusal",
        "const e = document.getElementById('in-cfg-error'); return e && e.innerText ? e.innerText : null;",
    );
    assert!(
        why.as_str().unwrap_or_default().contains("hidden_size"),
        "{why}"
    );
    assert_eq!(page.canvas(), canvas);
    page.close();
}

/// A chip's bandwidth typed in moves the chart, travels in the link, and reads back in
/// a fresh browser; nonsense is refused by name.
pub(super) fn a_users_chip_numbers(driver: &Driver, base: &str) {
    let page = driver.session();
    page.open(&format!("{base}/"));
    page.wait_ready();
    let canvas = page.canvas();
    page.click("#chip-edits summary");
    let set = |value: &str| page.set_value("edit-h200-memory_bandwidth", value);
    let n = page.redraws();
    set("9.6");
    page.after_input("the sweep with the user's bandwidth", n);
    assert_ne!(
        page.canvas(),
        canvas,
        "the bandwidth did not move the chart"
    );
    let link = page.href();
    assert!(link.contains("chip.h200.memory_bandwidth=9.6"), "{link}");
    let edited = page.canvas();
    let fresh = driver.session();
    fresh.open(&link);
    fresh.wait_ready();
    assert_eq!(fresh.canvas(), edited, "the link drew a different chart");
    assert_eq!(
        fresh.js("return document.getElementById('edit-h200-memory_bandwidth').value;"),
        json!("9.6")
    );
    fresh.close();
    set("-2");
    let why = page.wait_for(
        "the refusal",
        "const e = document.querySelector('#chip-edits .field-error'); return e && e.innerText ? e.innerText : null;",
    );
    assert!(
        why.as_str()
            .unwrap_or_default()
            .contains("memory_bandwidth of h200"),
        "{why}"
    );
    page.close();
}

/// A modelling constant set in the panel moves the chart, is listed as non-default and
/// travels in the link; a value out of its range is refused by name.
pub(super) fn a_users_assumptions(driver: &Driver, base: &str) {
    let page = driver.session();
    page.open(&format!("{base}/"));
    page.wait_ready();
    let canvas = page.canvas();
    page.click("#assumptions summary");
    // What the serving framework sets on the chips picked, beside the global default.
    let set_apart = page.js(
        "return document.getElementById('assume-fp4_routed_pick_time').closest('tr').cells[3].innerText;",
    );
    assert_eq!(
        set_apart.as_str().unwrap_or_default(),
        "TensorRT-LLM on b200: 0.0000000192 s = 19.2 ns",
        "{set_apart}"
    );
    let set = |value: &str| page.set_value("assume-mfu", value);
    let n = page.redraws();
    set("0.45");
    page.after_input("the sweep at the user's MFU", n);
    assert_ne!(page.canvas(), canvas, "the MFU did not move the chart");
    let listed = page.text("#non-default");
    assert!(listed.contains("mfu = 0.45 (default 0.6)"), "{listed}");
    let link = page.js("return location.href;");
    assert!(
        link.as_str().unwrap_or_default().contains("a.mfu=0.45"),
        "{link}"
    );
    set("2");
    let why = page.wait_for(
        "the refusal",
        "const e = document.querySelector('#assumptions .field-error'); return e && e.innerText ? e.innerText : null;",
    );
    assert!(why.as_str().unwrap_or_default().contains("mfu"), "{why}");
    page.close();
}
