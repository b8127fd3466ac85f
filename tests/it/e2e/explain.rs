//! The detail panel opens every headline figure into its chain (formula, inputs with
//! sources, the model's section) and shows each pool's steps operator by operator.

use super::driver::{Driver, Session};
use serde_json::json;

/// Opens the H200 + MI300X prefill/decode scenario and clicks a split point of its
/// frontier (the axis's sweep also draws aggregated baselines, and which kind tops the
/// table depends on the model's figures).
pub(super) fn open_a_split_point(page: &Session, base: &str) {
    page.open(&format!("{base}/?v=1&axis=pd&chips=h200,mi300x"));
    page.wait_ready();
    page.js(
        "const b = [...document.querySelectorAll('#frontier-table button')]
                 .find(b => b.textContent.includes('prefill'));
             b.click(); return true;",
    );
}

pub(super) fn a_figure_opens_its_chain_and_steps_their_operators(driver: &Driver, base: &str) {
    let page = driver.session();
    open_a_split_point(&page, base);
    page.wait_for(
        "the detail panel",
        "return document.getElementById('detail') ? true : null;",
    );
    // TTFT's value is a button that opens its chain below the figures.
    let formula = page.open_figure("TTFT", "");
    assert!(formula.starts_with("TTFT = "), "{formula}");
    assert!(
        formula.contains("t_pre") && formula.contains("model §6.3"),
        "{formula}"
    );
    assert_eq!(
        page.js("return document.querySelector('#chain-panel .section').getAttribute('href');"),
        json!("docs/model.html#section-6-3")
    );
    // Every input has a value and a source; a derived one opens its own chain, down
    // to a catalogue number with its grade.
    let inputs = page.text("#chain-panel .chain-inputs");
    assert!(
        inputs.contains("workload: osl") && inputs.contains("prefill step: t_pre = "),
        "{inputs}"
    );
    page.js("document.querySelectorAll('#chain-panel details.sub-chain').forEach(d => d.open = true); return true;");
    let all = page.text("#chain-panel");
    // The prefill step's operators, and (TensorRT-LLM's prompt steps run without CUDA
    // graphs on NVIDIA chips under `auto`) the floor its Python launches put on it.
    assert!(
        all.contains("t_pre = t_attn_proj + t_attn_core")
            || all.contains("t_pre = max(t_attn_proj + t_attn_core"),
        "{all}"
    );
    assert!(all.contains("t_eager = n_k × t_ek"), "{all}");
    // The per-kernel cost names where it came from: the global assumption, or the pool's
    // serving framework's fitted default (TensorRT-LLM's on NVIDIA chips under `auto`).
    assert!(
        all.contains("assumption kernel_overhead")
            || all.contains("TensorRT-LLM's default kernel_overhead"),
        "{all}"
    );
    // $/Mtok reaches the chips' prices in the catalogue.
    page.open_figure("$/Mtok output", "$_out");
    page.js("document.querySelectorAll('#chain-panel details.sub-chain').forEach(d => d.open = true); return true;");
    let money = page.text("#chain-panel");
    assert!(
        money.contains("catalogue, NVIDIA H200") || money.contains("catalogue, AMD Instinct"),
        "{money}"
    );
    // Operator tables: one per pool and step, rows with bars whose shares make 100%.
    let tables =
        page.js("return document.querySelectorAll('#operator-tables details.operators').length;");
    assert_eq!(tables, json!(2), "prefill and decode pools, one step each");
    page.click("#operators-1 summary");
    let shares = page.js(
        "return [...document.querySelectorAll('#operators-1 .share-text')].map(s => parseFloat(s.textContent));",
    );
    let total: f64 = shares
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .sum();
    assert!((total - 100.0).abs() < 1.0, "{shares}");
    let table = page.text("#operators-1");
    assert!(
        table.contains("dense FFN") && table.contains("kernel launches and host work"),
        "{table}"
    );
    let widest = page.js(
        "return Math.max(...[...document.querySelectorAll('#operators-1 .bar')].map(b => b.getBoundingClientRect().width));",
    );
    assert!(
        widest.as_f64().unwrap() > 10.0,
        "bars have no width: {widest}"
    );
    page.close();
}
